/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: what the agent's parts share.
 *
 * agent.c owns PID 1's life, the console output and the kernel command
 * line; the tests come in families, one file each, and every family
 * exports its rows of the test table (struct agent_test): load.c (boot,
 * insmod, rmmod), install.c (the wrapper's user tool), net.c (the
 * device's interface), wireless.c (scan, roam, the join: iw, or
 * wireless-tools without a wiphy), wpa.c (WPA2 with wpa_supplicant),
 * soak.c. A new test is
 * one row and its functions in its family's file.
 */
#ifndef NDISBENCH_AGENT_H
#define NDISBENCH_AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* More than all the families' rows together. */
#define AGENT_TABLE_MAX 64
#define KMSG_PATH "/dev/kmsg"
/* How long a link may take to come up (or go); scaled by net_slow(). */
#define NET_CARRIER_WAIT_MS 60000
/* The counted pings after a change of the link (replug, roam). */
#define NET_CHANGE_PINGS 10

/* The network tests' options (net.c, wireless.c). */
struct net_opts {
    const char *ifname;         /* ndisbench.net=<ifname>; NULL: none */
    char mac[18];               /* ndisbench.mac=<xx:..:xx>: the NIC's */
    const char *connect_ssid;   /* ndisbench.connect=<ssid>: the join */
    bool scan;                  /* ndisbench.scan=1: scan first */
    bool roam;                  /* ndisbench.roam=1: roam test last */
    unsigned int slowdown;      /* ndisbench.slowdown=<n>: waits x n */
    unsigned int ping_count;    /* ndisbench.ping=<count>; 0: no ping */
    unsigned int tcp_port;      /* ndisbench.tcp=<port>:<bytes>; 0: none */
    unsigned long long tcp_bytes;
    unsigned int profile_hz;    /* ndisbench.profile=<hz>: tcp sampled */
    unsigned int hotplug_port;  /* ndisbench.hotplug=<port>; 0: none */
    unsigned int udp_port;      /* ndisbench.udp=<port>:<ms>; 0: none */
    unsigned int udp_ms;
    char peer[16];              /* ndisbench.peer=<ipv4>[:<count>]; "": none */
    unsigned int peer_count;
};

/* ndisbench.soak=<seconds>:<port>[:<unplug port>[:<cycles>]] (soak.c). */
struct soak_opts {
    unsigned int seconds;       /* 0: no soak */
    unsigned int port;          /* the measured stream of every cycle */
    unsigned int unplug_port;   /* 0: reload cycles only; else the stream
                                 * during an unplug, every other cycle */
    unsigned int cycles;        /* 0: until the time is up */
};

/* Everything the kernel command line asks for (parse_cmdline). */
struct agent_opts {
    char **modules;             /* names from ndisbench.load=, in order */
    bool *loaded;               /* loaded[i]: modules[i] is loaded */
    size_t n_modules;
    /* ndisbench.modparams=<module>.<param>=<value>,...; NULL: none */
    const char *module_params;
    bool shell;                 /* ndisbench.shell=1 */
    const char *install_inf;    /* ndisbench.install=<file.inf> */
    const char *usb_id;         /* ndisbench.usb=vvvv:pppp */
    const char *unbind_id;      /* ndisbench.unbind=vvvv:dddd (PCI) */
    char **broken;              /* ndisbench.broken=a.inf,b.inf */
    size_t n_broken;
    struct net_opts net;
    struct soak_opts soak;
    const char *bad_param;      /* the first parameter that did not parse */
    /* Every table parameter's last value, by row (agent_param()). */
    char *values[AGENT_TABLE_MAX];
    bool given[AGENT_TABLE_MAX];
};

/* What went wrong before the first test; reported by the boot test. */
#define AGENT_MOUNTS 3
struct boot_errors {
    const char *target[AGENT_MOUNTS];   /* /proc, /sys, /dev */
    int mount[AGENT_MOUNTS];            /* 0 or errno */
    int cmdline;                /* 0 or errno: /proc/cmdline unusable */
    int params;                 /* 0 or errno: no console parameter line */
};

/* What the tests of one run tell the later ones. */
struct agent_state {
    const struct boot_errors *errs;
    int number;                 /* the next KTAP test number */
    bool all_loaded;            /* every module of ndisbench.load= loaded */
    bool iface_ok;              /* the iface test passed */
};

/*
 * One row of the test table: a KTAP test (or a setting, run == NULL), the
 * kernel parameter that asks for or configures it, its parser, how many
 * KTAP results it prints for the parsed options (run is called only when
 * that is not 0), and the run itself, which numbers its results from
 * state->number on. Rows run in order of `order`, each in a child of PID 1
 * (isolate.c). result_name gives the name of its index-th result (NULL:
 * every result is named after the row): PID 1 prints the results a dead
 * child left out under it.
 */
struct agent_test {
    /*
     * A row that is a check's own test has the check's name and its order
     * (scripts/ndisbench_lib/checks/<name>.py;
     * tests/unit/checks/test_registry.py fails on a difference); the
     * agent's own rows go between them.
     */
    int order;
    const char *name;
    const char *param;          /* "ndisbench.ping"; NULL: none */
    /* 0, or -1 with errno: EINVAL (a bad value), ENOMEM */
    int (*parse)(char *value, struct agent_opts *opts);
    int (*planned)(const struct agent_opts *opts);
    void (*run)(struct agent_opts *opts, struct agent_state *state);
    void (*result_name)(const struct agent_opts *opts, int index,
                        char *buf, size_t len);
};

/*
 * What the rows share across their children (isolate.c): one anonymous
 * MAP_SHARED mapping made by PID 1 before the first fork. The children
 * write the state in place, say_result() notes each result printed, and
 * opts->loaded points into it.
 */
struct agent_shared {
    struct agent_state state;
    int last_result;            /* the number of the last result printed */
    long long last_load_us;     /* CLOCK_MONOTONIC of the last module load */
    size_t n_loaded;
    bool loaded[];              /* opts->loaded, moved here */
};

/* How a row's child ended (row_run). */
struct row_end {
    int planned;                /* the results the row plans */
    int printed;                /* of them, printed by the child */
    int status;                 /* its wait status (when reaped) */
    bool reaped;                /* waited for: status is valid */
    bool timed_out;             /* killed at the row's limit */
    int fork_errno;             /* fork() failed: it ran in PID 1 */
};

/* The prefix of the row markers on the console and in the kernel log. */
#define ROW_MARK        "ndisbench: "
/* A row's bound before it counts as hung: times ndisbench.slowdown. */
#define ROW_LIMIT_MS    600000
/* After SIGKILL, how long PID 1 waits for the child to go. */
#define ROW_KILL_WAIT_MS 2000

/*
 * Map the shared state (state->number 1, all_loaded true) and move
 * opts->loaded into it; NULL with errno when mmap() fails (the rows then
 * run in PID 1 as they did before).
 */
struct agent_shared *agent_share(struct agent_opts *opts,
                                 const struct boot_errors *errs);
/* The mapping agent_share() made, or NULL. */
struct agent_shared *agent_shared(void);
/* Unmap it (opts->loaded back on the heap, copied): for the tests. */
void agent_unshare(struct agent_opts *opts);
/* How long a row may run: ROW_LIMIT_MS (and a soak's own seconds), times
 * ndisbench.slowdown. */
int row_limit_ms(const struct agent_test *row, const struct agent_opts *opts);
/* The name of a row's index-th result. */
void row_result_name(const struct agent_test *row,
                     const struct agent_opts *opts, int index, char *buf,
                     size_t len);
/*
 * Run one row in a child, at most limit_ms: the row's begin and end marks
 * on the console and in the kernel log, and for every result the child
 * did not print (it died, hung or returned early) a `not ok` of PID 1's
 * with a row_death fact that says how it ended. state->number moves past
 * the row's plan whatever happened.
 */
void row_run(const struct agent_test *row, struct agent_opts *opts,
             struct agent_state *state, int limit_ms, struct row_end *end);
/* What a row's end says: "killed by signal 11 (Segmentation fault)",
 * "exit status 0 after 1 of 2 results", "timed out after 600 s (killed)". */
void row_death(const struct row_end *end, int limit_ms, char *buf,
               size_t len);


/* The families' rows. */
extern const struct agent_test agent_settings[], load_tests[],
    install_tests[], net_tests[], wireless_tests[], wpa_tests[],
    soak_tests[];
extern const size_t agent_settings_count, load_tests_count,
    install_tests_count, net_tests_count, wireless_tests_count,
    wpa_tests_count, soak_tests_count;

/* Row helpers: one KTAP result whenever the network tests run. */
int planned_once(const struct agent_opts *opts);
int planned_with_iface(const struct agent_opts *opts);
/* The parameter's value as a kernel bool: no value, 1, y, Y: true. */
bool parse_bool(const char *value);
/*
 * Parse the kernel command line (modified in place; the options point
 * into it) with the rows' parsers; the last occurrence of a parameter
 * wins. A value a row's parser refuses names opts->bad_param. Returns 0,
 * or -1 with errno ENOMEM.
 */
int parse_cmdline(char *cmdline, struct agent_opts *opts);
/*
 * ndisbench.params=console: the agent prints PARAMS_READY and reads one
 * line of further parameters (at most PARAMS_LINE_MAX - 1 bytes) from the
 * console.
 */
#define PARAMS_READY    "# ndisbench-agent: waiting for parameters"
#define PARAMS_LINE_MAX 8192
/*
 * Load the dependency modules now, before the agent waits for its words,
 * so that a saved boot holds them (the device's in-tree driver probed,
 * USB enumerated); the boot test reports them as if it had loaded them,
 * with the taint read before.
 */
void preload_deps(void);
/* cmdline, a space and line, newline dropped: malloc()ed, or NULL. */
char *join_params(const char *cmdline, const char *line);
/* One line from fd without its newline: 0, or -1 with errno. */
int read_line(int fd, char *buf, size_t len);
/* How many KTAP results the rows print for these options (the plan). */
int planned_tests(const struct agent_opts *opts);
/*
 * Whether a table parameter was given, and its last value (NULL: none, or
 * no "="). A row whose value is one number or word needs no field of its
 * own: its parser only checks the value, its planned() and run() read it
 * here.
 */
bool agent_param(const struct agent_opts *opts, const char *param,
                 const char **value);
/* A value that did not parse: -1 with errno EINVAL. */
int bad_value(void);

/* One complete console line (newline added), drained before returning. */
__attribute__((format(printf, 1, 2)))
void say(const char *fmt, ...);
/* The KTAP result line of test `number`. */
void say_result(bool ok, int number, const char *name);
/* A whole file as a NUL-terminated malloc()ed string, or NULL. */
char *read_file(const char *path);
/* Remove trailing newlines (and carriage returns) in place. */
char *strip_newline(char *s);
/*
 * Split a comma-separated list in place into items[], skipping empty
 * items. items[] needs room for strlen(list) / 2 + 1 entries.
 */
size_t split_list(char *list, char **items);

/* Parse "<port>:<bytes>" and "<count>" option values; false if bad. */
bool net_parse_tcp(const char *value, struct net_opts *opts);
bool net_parse_count(const char *value, unsigned int *count);
/* Parse a TCP port (1..65535); false if bad. */
bool net_parse_port(const char *value, unsigned int *port);
/* Parse "<port>:<milliseconds>" (ndisbench.udp=); false if bad. */
bool net_parse_udp(const char *value, struct net_opts *opts);
/* Parse "<ipv4>[:<count>]" (ndisbench.peer=); false if bad. */
bool net_parse_peer(const char *value, struct net_opts *opts);
/* CLOCK_MONOTONIC in microseconds. */
long long monotonic_us(void);

/*
 * The host's clock (hostclock.c): the CMOS RTC, which QEMU keeps on the
 * host's time, for the waits on the host that icount would cut short.
 * A CMOS register reader (tests give their own; default /dev/port).
 */
struct hostclock_cmos {
    int (*read)(void *ctx, unsigned int reg);   /* the value, or -1 */
    void *ctx;
};
void hostclock_use(const struct hostclock_cmos *source);  /* NULL: port */
/* Seconds of the day from RTC registers (BCD or binary, 12 or 24 h), or
 * -1 if they are not a time. */
int hostclock_seconds(int sec, int min, int hour, int reg_b);
/* The RTC's seconds of the day (outside an update), or -1. */
int hostclock_read(void);
/* At least limit_ms between two reads (midnight wraps; a read may be a
 * second off). */
bool hostclock_passed(int start_s, int now_s, int limit_ms);
/* A wait on the host: over after limit_ms of host time (CLOCK_MONOTONIC
 * where the RTC cannot be read). */
struct host_wait {
    long long start_us;
    int start_s;                /* -1: the RTC was not readable */
    int limit_ms;
};
void host_wait_start(struct host_wait *wait, int limit_ms);
bool host_wait_over(const struct host_wait *wait);

/*
 * Run path with argv (PATH set, no other environment) for at most
 * timeout_ms. key == NULL: its output goes to the console; else each line
 * of its stdout and stderr becomes a fact "# <key>: <line>". Returns the
 * exit status, or -errno, -ETIMEDOUT (killed) or -EINTR (signalled).
 */
int agent_run(const char *path, char *const argv[], const char *key,
              int timeout_ms);

/*
 * The parameters of module kname (kernel spelling: '_' for '-') in an
 * ndisbench.modparams= list, as finit_module's argument ("p=v q" in the
 * list's order; "" for none; list may be NULL) in out. Returns 0, or -1
 * with errno E2BIG (out too small) or EINVAL (an item that is not
 * <module>.<param>[=<value>]).
 */
int module_params_for(const char *list, const char *kname, char *out,
                      size_t size);

/*
 * Load /lib/ndisbench/modules/<name>.ko and print its facts (errno, taint
 * masks, module taint, kernel log lines); true if it loaded (load.c).
 */
bool insmod_facts(const char *name);
/* Remove a module: fact `rmmod: <name> errno=<n>` and the kernel log lines
 * of the removal. Returns 0 or the errno. */
int rmmod_facts(const char *name);

/* The name of an errno ("EINVAL"), "0" for 0. */
const char *errno_name(int err);

/*
 * As root, malformed messages to the wrapper's /dev/<module> (devnode.c):
 * one fact `ioctl: <case> errno=<NAME>` per case.
 */
void devnode_ioctl_facts(const char *path);

/* /dev/kmsg opened at its end (-1 with errno), and every record logged
 * since printed as `kmsg` facts (kmsg.c). */
int kmsg_open(void);
void kmsg_print_new(int fd);
/* The records of a /dev/kmsg fd at warning level or worse since it was
 * last read, as `klog` facts (at most 400, then `klog_skipped`). */
void klog_print_new(int fd);
/* A row's mark in the kernel log: "ndisbench: <what> <row>" at notice
 * level (off the console; klog_print_new() prints the marks too). */
void kmsg_mark(const char *what, const char *row);
/* Where kmsg_mark() writes: KMSG_PATH (the unit tests use a file). */
extern const char *kmsg_mark_path;
/* The message text of one /dev/kmsg record; NULL if it has no ';'. */
const char *kmsg_record_text(const char *rec, size_t len, size_t *text_len);
/* len bytes of in, bytes outside ' '..'~' as \xNN, NUL-terminated. */
size_t escape_text(const char *in, size_t len, char *out, size_t out_size);

/* net.c helpers other tests reuse: a wait limit times ndisbench.slowdown,
 * bring the link up (facts carrier_ms, operstate, ...), is the carrier
 * up, take a DHCP lease (udhcpc_status, address), a child streaming to
 * 10.0.2.2:port until killed, wait until the interface exists (or not):
 * the milliseconds it took, or -1; after a change of the link, echoes
 * until one is answered; count echoes to the gateway: the replies. */
int net_slow(int limit_ms);
bool net_link_up(const struct net_opts *opts);
bool net_carrier_up(const char *ifname);
bool net_dhcp_lease(const struct net_opts *opts);
int net_start_stream(unsigned int port, pid_t *writer);
long long net_wait_iface_state(const char *ifname, bool present);
void net_ping_settle(void);
/* The echo replies of one ping run, by sequence number (net.c). */
struct ping_ledger {
    uint16_t id;
    unsigned int count;
    long long *sent;            /* us, per sequence number; 0: not sent */
    long long *rtt;             /* us; -1: no reply (yet) */
    unsigned int received;
    unsigned int late;          /* replies that came after their wait */
    int waiting;                /* the sequence number waited for; -1 */
};
int ping_ledger_take(struct ping_ledger *l, const uint8_t *buf, size_t n,
                     long long now);
unsigned int net_ping_gateway(unsigned int count);
/* A TCP stream of bytes to 10.0.2.2:port and the sink's answer (facts of
 * the tcp test): every byte sent; *answered: the sink replied. */
bool net_tcp_stream(unsigned int port, unsigned long long bytes,
                    bool *answered);
/* The same, stopping early once enough(ctx, bytes sent so far) is true
 * (asked after each write): then true as well. */
bool net_tcp_stream_until(unsigned int port, unsigned long long bytes,
                          bool *answered,
                          bool (*enough)(void *ctx, unsigned long long sent),
                          void *ctx);
/* Bring the interface up; 0 or -errno. */
int net_set_up(const char *ifname);

/* wireless.c helpers of the link test: join (`iw connect` where the
 * interface has a cfg80211 wiphy, else `iwconfig essid`), and what
 * nl80211 or the wireless extensions and iwconfig say about the link. */
void wireless_join(const struct net_opts *opts);
/* The interface has a cfg80211 wiphy (sysfs phy80211). */
bool wireless_has_wiphy(const char *ifname);
void wireless_link_facts(const struct net_opts *opts);

/* `ndiswrapper -i inf` and `ndiswrapper -l`: KTAP test `number`. */
bool install_run_test(const char *inf, int number);
/*
 * A malformed driver: install it unchecked, load the wrapper module (which
 * must refuse the driver), report whether a wlan interface appeared,
 * remove module and driver. KTAP test `number`, named "broken <name>".
 */
bool broken_run_test(const char *inf, const char *module, int number);

/* Parse the ndisbench.soak= value; false if bad. */
bool soak_parse(const char *value, struct soak_opts *opts);
/* "<key>:  <n> kB" of a /proc/meminfo text, or -1. */
long long soak_meminfo_kb(const char *meminfo, const char *key);
/* The soak: KTAP test `number`, named "soak". ready: the interface is up
 * with an address (the network tests before it passed). */
bool soak_run_test(const struct soak_opts *opts, const struct net_opts *net,
                   const char *module, bool ready, int number);

#endif /* NDISBENCH_AGENT_H */
