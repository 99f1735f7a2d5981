/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent soak test, ndisbench.soak=<seconds>:<port>[:<port2>
 * [:<cycles>]]: cycles until the time is up (or <cycles> are done), each one
 *
 *   1. a TCP stream of SOAK_STREAM_MS to the host's sink on 10.0.2.2:<port>,
 *      half-closed, the sink's "received=<n>" read back;
 *   2. a disturbance: rmmod + insmod of the wrapper ("reload"), or, when a
 *      second port is given (USB rows), every other cycle a hot-unplug and
 *      replug ("hotplug") while a stream to 10.0.2.2:<port2> runs;
 *   3. the interface back all the way: link, DHCP;
 *   4. the kernel's warnings of the cycle as `klog` facts, and one fact
 *      line `soak_cycle` with the guest's memory figures.
 *
 * A line `soak_cycle: n=0 kind=start ...` before the first cycle is the
 * baseline. Facts only: the host judges growth, bytes and completeness.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

#define SOAK_GATEWAY       "10.0.2.2"
#define SOAK_STREAM_MS     3000     /* measured stream of each cycle */
#define SOAK_UNPLUG_MS     1000     /* stream before the unplug request */
#define SOAK_REPLY_MS      10000
#define SOAK_SETTLE_MS     200      /* before the memory figures (RCU) */
#define SOAK_REFCNT_MAX    512

/* ---- option parsing (pure) ---- */

bool soak_parse(const char *value, struct soak_opts *opts)
{
    unsigned long long field[4] = { 0, 0, 0, 0 };
    static const unsigned long long max[4] = { 86400, 65535, 65535, 100000 };
    const char *cursor = value;
    size_t i;

    if (value == NULL || *value == '\0')
        return false;
    for (i = 0; i < 4; i++) {
        char *end;

        if (*cursor < '0' || *cursor > '9')
            return false;
        errno = 0;
        field[i] = strtoull(cursor, &end, 10);
        if (errno != 0 || field[i] > max[i])
            return false;
        cursor = end;
        if (*cursor == '\0')
            break;
        if (*cursor != ':' || i == 3)
            return false;
        cursor++;
    }
    if (field[0] == 0 || field[1] == 0)
        return false;
    opts->seconds = (unsigned int)field[0];
    opts->port = (unsigned int)field[1];
    opts->unplug_port = (unsigned int)field[2];
    opts->cycles = (unsigned int)field[3];
    return true;
}

/* Value of "<key>:   <n> kB" in a /proc/meminfo text, or -1. */
long long soak_meminfo_kb(const char *meminfo, const char *key)
{
    size_t len = strlen(key);
    const char *line = meminfo;

    while (line != NULL && *line != '\0') {
        if (strncmp(line, key, len) == 0 && line[len] == ':')
            return strtoll(line + len + 1, NULL, 10);
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    return -1;
}

/* ---- facts ---- */

/* "<module>:<refcnt>,..." of every loaded module in out (size > 0). */
static void refcounts(char *out, size_t size)
{
    DIR *dir = opendir("/sys/module");
    struct dirent *ent;
    size_t used = 0;

    out[0] = '\0';
    if (dir == NULL)
        return;
    while ((ent = readdir(dir)) != NULL) {
        char path[300];
        char *text;
        int n;

        if (ent->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/sys/module/%s/refcnt", ent->d_name);
        text = read_file(path);
        if (text == NULL)
            continue;       /* built in: no refcount */
        n = snprintf(out + used, size - used, "%s%s:%ld", used ? "," : "",
                     ent->d_name, strtol(text, NULL, 10));
        free(text);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    closedir(dir);
    if (used == 0)
        snprintf(out, size, "-");
}

static void say_cycle(unsigned int n, const char *kind, bool ok,
                      unsigned long long sent, long long reply,
                      long long cycle_ms, long long soak_ms)
{
    static char refcnt[SOAK_REFCNT_MAX];
    char *meminfo;

    usleep(SOAK_SETTLE_MS * 1000);
    meminfo = read_file("/proc/meminfo");
    refcounts(refcnt, sizeof(refcnt));
    say("# soak_cycle: n=%u kind=%s ok=%d sent=%llu reply=%lld "
        "mem_available_kb=%lld slab_kb=%lld sunreclaim_kb=%lld "
        "vmalloc_used_kb=%lld refcnt=%s ms=%lld t_ms=%lld", n, kind, ok,
        sent, reply, soak_meminfo_kb(meminfo, "MemAvailable"),
        soak_meminfo_kb(meminfo, "Slab"),
        soak_meminfo_kb(meminfo, "SUnreclaim"),
        soak_meminfo_kb(meminfo, "VmallocUsed"), refcnt, cycle_ms, soak_ms);
    free(meminfo);
}

/*
 * Stream to the sink for ms, half-close, read "received=<n>". *sent: what
 * write() took; returns the sink's count, or -1 without a reply.
 */
static long long soak_stream(unsigned int port, int ms,
                             unsigned long long *sent)
{
    struct sockaddr_in dst = { .sin_family = AF_INET,
                               .sin_port = htons((uint16_t)port) };
    static uint8_t block[16384];
    long long start = monotonic_us();
    char reply[64] = "";
    size_t got = 0;
    int fd;

    *sent = 0;
    inet_pton(AF_INET, SOAK_GATEWAY, &dst.sin_addr);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
        say("# soak_error: connect: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    while (monotonic_us() - start < ms * 1000LL) {
        ssize_t n = write(fd, block, sizeof(block));

        if (n < 0) {
            say("# soak_error: write: %s", strerror(errno));
            break;
        }
        *sent += (unsigned long long)n;
    }
    shutdown(fd, SHUT_WR);
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        ssize_t n;

        if (got + 1 >= sizeof(reply) || poll(&pfd, 1, SOAK_REPLY_MS) <= 0)
            break;
        n = read(fd, reply + got, sizeof(reply) - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    reply[got] = '\0';
    if (strncmp(reply, "received=", 9) != 0) {
        say("# soak_error: no sink reply after %llu bytes", *sent);
        return -1;
    }
    return strtoll(reply + 9, NULL, 10);
}

/* rmmod + insmod of the wrapper; the interface goes and comes back. */
static bool soak_reload(const struct net_opts *net, const char *module)
{
    if (rmmod_facts(module) != 0)
        return false;
    if (net_wait_iface_state(net->ifname, false) < 0) {
        say("# soak_error: %s still present after rmmod", net->ifname);
        return false;
    }
    if (!insmod_facts(module))
        return false;
    if (net_wait_iface_state(net->ifname, true) < 0) {
        say("# soak_error: %s did not come back after insmod",
            net->ifname);
        return false;
    }
    return true;
}

/* Unplug (the host's device_del) under a stream, then replug. */
static bool soak_hotplug(const struct net_opts *net, unsigned int port)
{
    int kmsg = kmsg_open();
    pid_t stream;
    int fd = net_start_stream(port, &stream);
    bool gone, ok = false;

    if (fd < 0) {
        say("# soak_error: stream to the sink: %s", strerror(errno));
        goto out;
    }
    usleep(SOAK_UNPLUG_MS * 1000);
    say("# hotplug_request: unplug");
    gone = net_wait_iface_state(net->ifname, false) >= 0;
    kill(stream, SIGKILL);
    waitpid(stream, NULL, 0);
    close(fd);
    if (!gone) {
        say("# soak_error: %s still present after the unplug",
            net->ifname);
        goto out;
    }
    say("# hotplug_request: replug");
    if (net_wait_iface_state(net->ifname, true) < 0) {
        say("# soak_error: %s did not come back after the replug",
            net->ifname);
        goto out;
    }
    ok = true;
out:
    if (kmsg >= 0) {
        kmsg_print_new(kmsg);
        close(kmsg);
    }
    return ok;
}

bool soak_run_test(const struct soak_opts *opts, const struct net_opts *net,
                   const char *module, bool ready, int number)
{
    long long start = monotonic_us();
    long long end = start + opts->seconds * 1000000LL;
    int klog = kmsg_open();
    unsigned int n = 0;
    bool ok = ready;

    say("# soak_seconds: %u", opts->seconds);
    say("# soak_module: %s", module);
    say("# soak_kinds: %s", opts->unplug_port ? "reload,hotplug" : "reload");
    if (!ready)
        say("# soak_error: interface not up before the soak");
    else
        say_cycle(0, "start", true, 0, 0, 0, 0);
    while (ok && monotonic_us() < end &&
           (opts->cycles == 0 || n < opts->cycles)) {
        long long cycle_start = monotonic_us();
        bool hotplug = opts->unplug_port && n % 2 == 1;
        unsigned long long sent;
        long long reply;

        n++;
        reply = soak_stream(opts->port, SOAK_STREAM_MS, &sent);
        ok = reply >= 0;
        if (ok)
            ok = hotplug ? soak_hotplug(net, opts->unplug_port)
                         : soak_reload(net, module);
        if (ok)
            ok = net_link_up(net) && net_dhcp_lease(net);
        /* The log buffer wraps within minutes of cycles: the warnings
         * (WARN, lockdep, KASAN) of every cycle go out as it ends. */
        if (klog >= 0)
            klog_print_new(klog);
        say_cycle(n, hotplug ? "hotplug" : "reload", ok, sent, reply,
                  (monotonic_us() - cycle_start) / 1000,
                  (monotonic_us() - start) / 1000);
    }
    if (klog >= 0)
        close(klog);
    say("# soak_cycles: %u", n);
    say("# soak_end: %s", !ok ? "failed" :
        opts->cycles && n == opts->cycles ? "cycles" : "time");
    say("# soak_elapsed_ms: %lld", (monotonic_us() - start) / 1000);
    say_result(ok, number, "soak");
    return ok;
}

/* ---- the row ---- */

static int parse_soak(char *value, struct agent_opts *opts)
{
    return soak_parse(value, &opts->soak) ? 0 : bad_value();
}

/* After the network tests, which bring the link up; it reloads the last
 * module of ndisbench.load=. */
static int planned_soak(const struct agent_opts *opts)
{
    return opts->soak.seconds > 0 && opts->n_modules > 0;
}

static void run_soak(struct agent_opts *opts, struct agent_state *state)
{
    soak_run_test(&opts->soak, &opts->net,
                  opts->modules[opts->n_modules - 1],
                  state->all_loaded && opts->net.ifname != NULL,
                  state->number++);
}

const struct agent_test soak_tests[] = {
    { 168, "soak", "ndisbench.soak", parse_soak, planned_soak, run_soak,
      NULL },
};
const size_t soak_tests_count = ARRAY_SIZE(soak_tests);
