/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent: what the agent's parts share. agent.c owns the console
 * output and PID 1's life; net.c runs the network checks.
 */
#ifndef NDISBENCH_AGENT_H
#define NDISBENCH_AGENT_H

#include <stdbool.h>
#include <stddef.h>

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

#endif /* NDISBENCH_AGENT_H */
