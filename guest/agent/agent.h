/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: what the agent's parts share. agent.c owns the console
 * output and PID 1's life; net.c runs the network checks.
 */
#ifndef NDISBENCH_AGENT_H
#define NDISBENCH_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The network checks selected on the kernel command line. */
struct net_opts {
    const char *ifname;         /* ndisbench.net=<ifname>; NULL: none */
    const char *connect_ssid;   /* ndisbench.connect=<ssid>: iw connect */
    bool scan;                  /* ndisbench.scan=1: iw scan first */
    bool roam;                  /* ndisbench.roam=1: roam test last */
    unsigned int slowdown;      /* ndisbench.slowdown=<n>: waits x n */
    unsigned int ping_count;    /* ndisbench.ping=<count>; 0: no ping */
    unsigned int tcp_port;      /* ndisbench.tcp=<port>:<bytes>; 0: none */
    unsigned long long tcp_bytes;
    unsigned int hotplug_port;  /* ndisbench.hotplug=<port>; 0: none */
    unsigned int udp_port;      /* ndisbench.udp=<port>:<ms>; 0: none */
    unsigned int udp_ms;
    char peer[16];              /* ndisbench.peer=<ipv4>[:<count>]; "": none */
    unsigned int peer_count;
};

/* One complete console line (newline added), drained before returning. */
__attribute__((format(printf, 1, 2)))
void say(const char *fmt, ...);
/* The KTAP result line of test `number`. */
void say_result(bool ok, int number, const char *name);
/* A whole file as a NUL-terminated malloc()ed string, or NULL. */
char *read_file(const char *path);

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
/* Number of KTAP tests net_run_tests() prints for these options. */
int net_test_count(const struct net_opts *opts);
/* Run the network tests, numbered from `first`. modules_loaded: every
 * module of ndisbench.load= loaded (else a missing interface is not
 * waited for). */
void net_run_tests(const struct net_opts *opts, bool modules_loaded,
                   int first);

/*
 * Run path with argv (PATH set, no other environment) for at most
 * timeout_ms. key == NULL: its output goes to the console; else each line
 * of its stdout and stderr becomes a fact "# <key>: <line>". Returns the
 * exit status, or -errno, -ETIMEDOUT (killed) or -EINTR (signalled).
 */
int agent_run(const char *path, char *const argv[], const char *key,
              int timeout_ms);

/*
 * Load /lib/ndisbench/modules/<name>.ko and print its facts (errno, taint
 * masks, module taint, kernel log lines); true if it loaded.
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

/* `ndiswrapper -i inf` and `ndiswrapper -l`: KTAP test `number`. */
bool install_run_test(const char *inf, int number);

/*
 * A malformed driver: install it unchecked, load the wrapper module (which
 * must refuse the driver), report whether a wlan interface appeared,
 * remove module and driver. KTAP test `number`, named "broken <name>".
 */
bool broken_run_test(const char *inf, const char *module, int number);

/* /dev/kmsg opened at its end (-1 with errno), and every record logged
 * since printed as `kmsg` facts. */
int kmsg_open(void);
void kmsg_print_new(int fd);
/* The records of a /dev/kmsg fd at warning level or worse since it was
 * last read, as `klog` facts (at most 400, then `klog_skipped`). */
void klog_print_new(int fd);

/* net.c helpers other tests reuse: bring the link up (facts carrier_ms,
 * operstate, ...), take a DHCP lease (udhcpc_status, address), a child
 * streaming to 10.0.2.2:port until killed, and wait until the interface
 * exists (or not): the milliseconds it took, or -1. */
bool net_link_up(const struct net_opts *opts);
bool net_dhcp_lease(const struct net_opts *opts);
pid_t net_start_stream(unsigned int port);
long long net_wait_iface_state(const char *ifname, bool present);

/* ndisbench.soak=<seconds>:<port>[:<unplug port>[:<cycles>]] (soak.c). */
struct soak_opts {
    unsigned int seconds;       /* 0: no soak */
    unsigned int port;          /* the measured stream of every cycle */
    unsigned int unplug_port;   /* 0: reload cycles only; else the stream
                                 * during an unplug, every other cycle */
    unsigned int cycles;        /* 0: until the time is up */
};

/* Parse the option value; false if bad. */
bool soak_parse(const char *value, struct soak_opts *opts);
/* "<key>:  <n> kB" of a /proc/meminfo text, or -1. */
long long soak_meminfo_kb(const char *meminfo, const char *key);
/* The soak: KTAP test `number`, named "soak". ready: the interface is up
 * with an address (the network tests before it passed). */
bool soak_run_test(const struct soak_opts *opts, const struct net_opts *net,
                   const char *module, bool ready, int number);

#endif /* NDISBENCH_AGENT_H */
