/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent WPA2 family: the station joins the air's WPA2-PSK
 * network with Debian's wpa_supplicant, as a Linux user would, after the
 * open network's tests. The agent writes its configuration (the SSID, the
 * passphrase, WPA-PSK over RSN with CCMP pairwise and group), starts it
 * with the driver interface the host names (nl80211 for a cfg80211
 * wiphy, wext for a wireless-extensions driver, or auto: whichever the
 * interface offers, for a user's wrapper tree), and reads its control
 * socket: the events it sends an attached monitor (association, the
 * handshake's completion or failure, group rekeys), each a fact, and its
 * STATUS at the end. Then the usual DHCP, ping and TCP over the protected
 * link. Facts only: the host judges them, and the air's capture.
 *
 * Each parameter names the driver and the network first (no ':' in
 * the SSID or the passphrase):
 *   ndisbench.wpa2_badkey=<driver>:<ssid>:<passphrase>   a wrong one
 *   ndisbench.wpa2=<driver>:<ssid>:<passphrase>:<port>:<bytes>
 *                                      join, then dhcp, ping, tcp
 *   ndisbench.rekey=<driver>:<ssid>:<passphrase>:<port>:<bytes>
 *                                      a stream across group rekeys
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"

#define WPA_SUPPLICANT     "/usr/sbin/wpa_supplicant"
#define IW                 "/usr/sbin/iw"
#define IP                 "/usr/sbin/ip"
#define WPA_CONF           "/tmp/wpa_supplicant.conf"
#define WPA_LOG            "/tmp/wpa_supplicant.log"
#define WPA_CTRL_DIR       "/tmp/wpa_ctrl"
#define WPA2_PARAM         "ndisbench.wpa2"
#define BADKEY_PARAM       "ndisbench.wpa2_badkey"
#define REKEY_PARAM        "ndisbench.rekey"
#define SSID_MAX           32
#define PASS_MIN           8       /* a WPA passphrase: 8..63 characters */
#define PASS_MAX           63
#define CTRL_WAIT_MS       10000   /* for the control socket to appear */
#define CTRL_REPLY_MS      2000
#define JOIN_WAIT_MS       60000   /* scan, association, handshake */
#define BADKEY_WAIT_MS     40000   /* for the failure to be reported */
#define TOOL_TIMEOUT_MS    10000
#define WPA2_PINGS         20
#define STOP_WAIT_MS       5000
#define LOG_LINES_MAX      40      /* of wpa_supplicant's own output */

/* The events the join waits for (wpa_supplicant's wording). */
#define EV_CONNECTED       "CTRL-EVENT-CONNECTED"
#define EV_ASSOCIATED      "Associated with"
#define EV_HANDSHAKE_FAIL  "4-Way Handshake failed"
#define EV_TEMP_DISABLED   "CTRL-EVENT-SSID-TEMP-DISABLED"
#define EV_REKEYED         "Group rekeying completed"
/* The rekey stream may stop once this many rekeys completed during it and
 * this much went (checks/rekey.py judges the same floor): its length
 * follows the AP's rekeys, not the host's speed. */
#define REKEY_STOP_REKEYS  2
#define REKEY_MIN_BYTES    (1ULL << 20)
/* The stream is spread over at least this much guest time: a fast link
 * (bcm43xx's DMA rings move 16 MiB in 0.3 s) would spend its bytes before
 * two of the AP's 1 s rekeys came. */
#define REKEY_SPREAD_MS    4000

struct wpa_network {
    char driver[8];
    char ssid[SSID_MAX + 1];
};

struct wpa_run {
    char passphrase[PASS_MAX + 1];
    unsigned int port;
    unsigned long long bytes;
};

/* One wpa_supplicant and the agent's two sockets on its control
 * interface: requests, and an attached monitor for its events. */
struct wpa_link {
    pid_t pid;                  /* 0: not started by this row */
    int req;
    int mon;
    char req_path[64];
    char mon_path[64];
    long long start_us;
    long long assoc_us;         /* the last "Associated with"; 0: none */
    long long connected_us;     /* CTRL-EVENT-CONNECTED; 0: not yet */
    bool failed;                /* the handshake failed */
    unsigned int rekeys;        /* group rekeys seen */
};

/* ---- the parameters ---- */

/* "<driver>:<ssid>:<rest>": the network, and where the rest begins. */
static const char *parse_network(const char *value, struct wpa_network *net)
{
    const char *c1 = value ? strchr(value, ':') : NULL;
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    size_t dlen, slen;

    if (!c2)
        return NULL;
    dlen = (size_t)(c1 - value);
    slen = (size_t)(c2 - c1 - 1);
    if (dlen >= sizeof(net->driver) || slen == 0 || slen > SSID_MAX)
        return NULL;
    memcpy(net->driver, value, dlen);
    net->driver[dlen] = '\0';
    memcpy(net->ssid, c1 + 1, slen);
    net->ssid[slen] = '\0';
    if (strcmp(net->driver, "nl80211") != 0 &&
        strcmp(net->driver, "wext") != 0 &&
        strcmp(net->driver, "auto") != 0)
        return NULL;
    return c2 + 1;
}

/* A passphrase the agent can write into the configuration as it is. */
static bool passphrase_ok(const char *p, size_t len)
{
    size_t i;

    if (len < PASS_MIN || len > PASS_MAX)
        return false;
    for (i = 0; i < len; i++)
        if (p[i] <= ' ' || p[i] > '~' || p[i] == '"' || p[i] == '\\')
            return false;
    return true;
}

/* "<driver>:<ssid>:<passphrase>[:<port>:<bytes>]" */
static bool parse_run(const char *value, struct wpa_network *net,
                      struct wpa_run *run, bool stream)
{
    const char *pass = parse_network(value, net);
    const char *colon = pass ? strchr(pass, ':') : NULL;
    size_t len = colon ? (size_t)(colon - pass) : (pass ? strlen(pass) : 0);
    struct net_opts tcp = { 0 };

    memset(run, 0, sizeof(*run));
    if (!pass || !passphrase_ok(pass, len) || (colon != NULL) != stream)
        return false;
    memcpy(run->passphrase, pass, len);
    run->passphrase[len] = '\0';
    if (!stream)
        return true;
    if (!net_parse_tcp(colon + 1, &tcp))
        return false;
    run->port = tcp.tcp_port;
    run->bytes = tcp.tcp_bytes;
    return true;
}

static int parse_stream_run(char *value, struct agent_opts *opts)
{
    struct wpa_network net;
    struct wpa_run run;

    (void)opts;
    return parse_run(value, &net, &run, true) ? 0 : bad_value();
}

static int parse_badkey(char *value, struct agent_opts *opts)
{
    struct wpa_network net;
    struct wpa_run run;

    (void)opts;
    return parse_run(value, &net, &run, false) ? 0 : bad_value();
}

/* ---- wpa_supplicant and its control interface ---- */

static bool write_conf(const struct wpa_network *net, const char *pass)
{
    FILE *f = fopen(WPA_CONF, "w");

    if (!f) {
        say("# error: %s: %s", WPA_CONF, strerror(errno));
        return false;
    }
    fprintf(f, "ctrl_interface=%s\nap_scan=1\nnetwork={\n"
            "\tssid=\"%s\"\n\tpsk=\"%s\"\n\tkey_mgmt=WPA-PSK\n"
            "\tproto=RSN\n\tpairwise=CCMP\n\tgroup=CCMP\n}\n",
            WPA_CTRL_DIR, net->ssid, pass);
    return fclose(f) == 0;
}

/* A datagram socket bound to its own path, connected to the interface's
 * control socket; -1 if there is none (yet). */
static int ctrl_open(const char *ifname, char *path, size_t size,
                     const char *tag)
{
    struct sockaddr_un local = { .sun_family = AF_UNIX };
    struct sockaddr_un dest = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    snprintf(path, size, "/tmp/ndisbench-wpa-%d-%s", (int)getpid(), tag);
    unlink(path);
    snprintf(local.sun_path, sizeof(local.sun_path), "%s", path);
    snprintf(dest.sun_path, sizeof(dest.sun_path), "%s/%s", WPA_CTRL_DIR,
             ifname);
    if (bind(fd, (struct sockaddr *)&local, sizeof(local)) < 0 ||
        connect(fd, (struct sockaddr *)&dest, sizeof(dest)) < 0) {
        close(fd);
        unlink(path);
        return -1;
    }
    return fd;
}

/* Send a request; its reply (events skipped) in reply. */
static bool ctrl_request(int fd, const char *cmd, char *reply, size_t size)
{
    long long deadline = monotonic_us() + CTRL_REPLY_MS * 1000LL;

    if (send(fd, cmd, strlen(cmd), 0) < 0)
        return false;
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        long long left = (deadline - monotonic_us()) / 1000;
        ssize_t n;

        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
            return false;
        n = recv(fd, reply, size - 1, 0);
        if (n < 0)
            return false;
        reply[n] = '\0';
        if (reply[0] != '<')    /* not an unsolicited event */
            return true;
    }
}

/* wpa_supplicant's own output, when its control interface never came. */
static void say_log(void)
{
    char *text = read_file(WPA_LOG);
    char *line, *save = NULL;
    int n = 0;

    if (!text)
        return;
    for (line = strtok_r(text, "\n", &save); line && n < LOG_LINES_MAX;
         line = strtok_r(NULL, "\n", &save), n++)
        say("# wpa_supplicant: %s", line);
    free(text);
}

/*
 * Leave the open network (its address too) and start wpa_supplicant on
 * the interface; connect to its control interface and attach a monitor.
 */
static bool wpa_start(const struct net_opts *opts,
                      const struct wpa_network *net, const char *pass,
                      struct wpa_link *link)
{
    char *leave[] = { "iw", "dev", (char *)opts->ifname, "disconnect",
                      NULL };
    char *flush[] = { "ip", "-4", "addr", "flush", "dev",
                      (char *)opts->ifname, NULL };
    /* auto: nl80211 where the interface has a wiphy, as scan does */
    const char *driver = strcmp(net->driver, "auto") != 0 ? net->driver :
        wireless_has_wiphy(opts->ifname) ? "nl80211" : "wext";
    char *argv[] = { "wpa_supplicant", "-i", (char *)opts->ifname, "-D",
                     (char *)driver, "-c", WPA_CONF, NULL };
    char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
    long long deadline;
    char reply[64];

    memset(link, 0, sizeof(*link));
    link->req = link->mon = -1;
    say("# wpa_driver: %s", driver);
    say("# wpa_ssid: %s", net->ssid);
    if (strcmp(driver, "nl80211") == 0)
        say("# iw_disconnect_status: %d",
            agent_run(IW, leave, "iw_disconnect", net_slow(TOOL_TIMEOUT_MS)));
    say("# addr_flush_status: %d",
        agent_run(IP, flush, "addr_flush", net_slow(TOOL_TIMEOUT_MS)));
    if (!write_conf(net, pass))
        return false;
    link->start_us = monotonic_us();
    link->pid = fork();
    if (link->pid < 0) {
        say("# error: fork: %s", strerror(errno));
        link->pid = 0;
        return false;
    }
    if (link->pid == 0) {
        int fd = open(WPA_LOG, O_WRONLY | O_CREAT | O_TRUNC, 0644);

        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        setsid();
        execve(WPA_SUPPLICANT, argv, envp);
        _exit(127);
    }
    deadline = monotonic_us() + net_slow(CTRL_WAIT_MS) * 1000LL;
    while (link->req < 0 || link->mon < 0) {
        int status;

        if (waitpid(link->pid, &status, WNOHANG) == link->pid) {
            say("# error: wpa_supplicant exited (status %d)",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            link->pid = 0;
            say_log();
            return false;
        }
        if (monotonic_us() > deadline) {
            say("# error: no control interface %s/%s", WPA_CTRL_DIR,
                opts->ifname);
            say_log();
            return false;
        }
        if (link->req < 0)
            link->req = ctrl_open(opts->ifname, link->req_path,
                                  sizeof(link->req_path), "req");
        if (link->mon < 0)
            link->mon = ctrl_open(opts->ifname, link->mon_path,
                                  sizeof(link->mon_path), "mon");
        usleep(50000);
    }
    if (!ctrl_request(link->mon, "ATTACH", reply, sizeof(reply)) ||
        strncmp(reply, "OK", 2) != 0) {
        say("# error: wpa_supplicant refused ATTACH");
        return false;
    }
    return true;
}

/* One event of the monitor: a fact, and what it says of the join. */
static void take_event(struct wpa_link *link, char *msg)
{
    char *text = msg;
    long long now = monotonic_us();

    if (text[0] == '<' && strchr(text, '>'))
        text = strchr(text, '>') + 1;
    strip_newline(text);
    say("# wpa_event: %s", text);
    if (strstr(text, EV_ASSOCIATED))
        link->assoc_us = now;
    else if (strstr(text, EV_CONNECTED) && !link->connected_us)
        link->connected_us = now;
    else if (strstr(text, EV_HANDSHAKE_FAIL) ||
             strstr(text, EV_TEMP_DISABLED))
        link->failed = true;
    else if (strstr(text, EV_REKEYED))
        link->rekeys++;
}

/* Read the events that came, for at most wait_ms (0: only those there). */
static void drain_events(struct wpa_link *link, int wait_ms)
{
    long long deadline = monotonic_us() + wait_ms * 1000LL;
    char msg[512];

    for (;;) {
        struct pollfd pfd = { .fd = link->mon, .events = POLLIN };
        long long left = (deadline - monotonic_us()) / 1000;
        ssize_t n;

        if (poll(&pfd, 1, left > 0 ? (int)left : 0) <= 0)
            return;
        n = recv(link->mon, msg, sizeof(msg) - 1, 0);
        if (n <= 0)
            return;
        msg[n] = '\0';
        take_event(link, msg);
    }
}

/*
 * Until the handshake completed, failed (stop_on_fail), or limit_ms of the
 * guest's clock: wpa_supplicant's own timeouts (authentication, the
 * temporary disabling of a network) run on it, and the guest's clock may
 * run ahead of the host's while the guest idles.
 */
static void wait_join(struct wpa_link *link, int limit_ms, bool stop_on_fail)
{
    long long deadline = monotonic_us() + limit_ms * 1000LL;

    while (!link->connected_us && !(stop_on_fail && link->failed) &&
           monotonic_us() < deadline)
        drain_events(link, 200);
    if (link->connected_us) {
        say("# connect_ms: %lld",
            (link->connected_us - link->start_us) / 1000);
        say("# handshake_ms: %lld", link->assoc_us ?
            (link->connected_us - link->assoc_us) / 1000 : -1LL);
    } else {
        say("# connect_ms: -");
        say("# handshake_ms: -");
    }
}

/* STATUS as facts: wpa_state, key_mgmt, the ciphers, the BSSID. */
static bool say_status(struct wpa_link *link, char *state, size_t size)
{
    static const char *const keys[] = { "wpa_state", "key_mgmt",
        "pairwise_cipher", "group_cipher", "bssid", "ssid" };
    char reply[2048];
    char *line, *save = NULL;
    size_t i;

    state[0] = '\0';
    if (!ctrl_request(link->req, "STATUS", reply, sizeof(reply))) {
        say("# error: no STATUS reply");
        return false;
    }
    for (line = strtok_r(reply, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');

        if (!eq)
            continue;
        *eq = '\0';
        for (i = 0; i < ARRAY_SIZE(keys); i++)
            if (strcmp(line, keys[i]) == 0)
                say("# %s%s: %s", i == 4 || i == 5 ? "wpa_" : "", line,
                    eq + 1);
        if (strcmp(line, "wpa_state") == 0)
            snprintf(state, size, "%s", eq + 1);
    }
    return true;
}

/* Close the sockets; stop wpa_supplicant too (a wrong key's). */
static void wpa_close(struct wpa_link *link, bool stop)
{
    char reply[64];

    if (stop && link->req >= 0)
        ctrl_request(link->req, "TERMINATE", reply, sizeof(reply));
    if (link->mon >= 0) {
        ctrl_request(link->mon, "DETACH", reply, sizeof(reply));
        close(link->mon);
        unlink(link->mon_path);
    }
    if (link->req >= 0) {
        close(link->req);
        unlink(link->req_path);
    }
    if (stop && link->pid > 0) {
        long long deadline = monotonic_us() + STOP_WAIT_MS * 1000LL;
        int status;

        while (waitpid(link->pid, &status, WNOHANG) == 0) {
            if (monotonic_us() > deadline) {
                kill(link->pid, SIGKILL);
                waitpid(link->pid, &status, 0);
                break;
            }
            usleep(20000);
        }
        say("# wpa_supplicant_stopped: 1");
    }
}

/* An earlier row's wpa_supplicant, still joined (COMPLETED): reuse it;
 * one that is not is stopped. */
static bool wpa_attach(const struct net_opts *opts, struct wpa_link *link)
{
    char reply[2048];

    memset(link, 0, sizeof(*link));
    link->start_us = monotonic_us();
    link->req = ctrl_open(opts->ifname, link->req_path,
                          sizeof(link->req_path), "req");
    link->mon = ctrl_open(opts->ifname, link->mon_path,
                          sizeof(link->mon_path), "mon");
    if (link->req < 0 || link->mon < 0 ||
        !ctrl_request(link->mon, "ATTACH", reply, sizeof(reply))) {
        wpa_close(link, false);
        link->req = link->mon = -1;
        return false;
    }
    if (!ctrl_request(link->req, "STATUS", reply, sizeof(reply)) ||
        !strstr(reply, "wpa_state=COMPLETED\n")) {
        char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
        long long deadline = monotonic_us() + STOP_WAIT_MS * 1000LL;

        say("# wpa_earlier_not_joined: 1");
        wpa_close(link, true);
        link->req = link->mon = -1;
        /* not our child: gone when its control socket is */
        snprintf(path, sizeof(path), "%s/%s", WPA_CTRL_DIR, opts->ifname);
        while (access(path, F_OK) == 0 && monotonic_us() < deadline)
            usleep(20000);
        return false;
    }
    return true;
}

/* ---- the tests ---- */

/* A wrong passphrase: no COMPLETED, the failure reported, then stopped. */
static bool test_badkey(const struct agent_opts *opts, int number)
{
    struct wpa_network net;
    struct wpa_run run;
    struct wpa_link link;
    char state[32] = "";
    const char *value = NULL;
    bool ok = false;

    agent_param(opts, BADKEY_PARAM, &value);
    if (!parse_run(value, &net, &run, false))
        goto out;
    if (wpa_start(&opts->net, &net, run.passphrase, &link)) {
        wait_join(&link, net_slow(BADKEY_WAIT_MS), true);
        drain_events(&link, 0);
        say_status(&link, state, sizeof(state));
        ok = link.failed && !link.connected_us;
    }
    wpa_close(&link, true);
out:
    say_result(ok, number, "wpa2-badkey");
    return ok;
}

/* The right passphrase: COMPLETED, then DHCP, ping and TCP over it. */
static bool test_wpa2(const struct agent_opts *opts, int number)
{
    struct wpa_network net;
    struct wpa_run run;
    struct wpa_link link;
    char state[32] = "";
    const char *value = NULL;
    bool ok = false, answered = false;
    unsigned int replies;

    agent_param(opts, WPA2_PARAM, &value);
    if (!parse_run(value, &net, &run, true))
        goto out;
    if (!wpa_start(&opts->net, &net, run.passphrase, &link)) {
        wpa_close(&link, true);
        goto out;
    }
    wait_join(&link, net_slow(JOIN_WAIT_MS), false);
    drain_events(&link, 0);
    say_status(&link, state, sizeof(state));
    if (strcmp(state, "COMPLETED") == 0 && net_dhcp_lease(&opts->net)) {
        replies = net_ping_gateway(WPA2_PINGS);
        ok = replies == WPA2_PINGS &&
             net_tcp_stream(run.port, run.bytes, &answered) && answered;
    }
    /* wpa_supplicant stays: the rekey test streams over this link. */
    wpa_close(&link, false);
out:
    say_result(ok, number, "wpa2");
    return ok;
}

/* The rekey stream's progress: the link whose events are read between
 * writes, and its rekey count when the stream began. */
struct rekey_watch {
    struct wpa_link *link;
    unsigned int before;
    long long start_us;
    unsigned long long bytes;
};

static bool rekeyed_enough(void *ctx, unsigned long long sent)
{
    struct rekey_watch *watch = ctx;
    long long due = watch->start_us +
                    (long long)((double)REKEY_SPREAD_MS * 1000.0 *
                                (double)sent / (double)watch->bytes);
    long long now = monotonic_us();

    if (due > now)
        usleep((useconds_t)(due - now));
    drain_events(watch->link, 0);
    return sent >= REKEY_MIN_BYTES &&
           watch->link->rekeys - watch->before >= REKEY_STOP_REKEYS;
}

/* A stream over the protected link while the AP changes its group key:
 * every byte arrives, the rekeys are counted, the link stays. */
static bool test_rekey(const struct agent_opts *opts, int number)
{
    struct wpa_network net;
    struct wpa_run run;
    struct wpa_link link;
    char state[32] = "";
    const char *value = NULL;
    bool ok = false, answered = false, sent;
    unsigned int before;
    struct rekey_watch watch;

    agent_param(opts, REKEY_PARAM, &value);
    if (!parse_run(value, &net, &run, true))
        goto out;
    if (wpa_attach(&opts->net, &link)) {
        say("# wpa_joined_before: 1");
    } else {
        if (!wpa_start(&opts->net, &net, run.passphrase, &link)) {
            wpa_close(&link, true);
            goto out;
        }
        wait_join(&link, net_slow(JOIN_WAIT_MS), false);
        if (!link.connected_us || !net_dhcp_lease(&opts->net)) {
            wpa_close(&link, true);
            goto out;
        }
    }
    /* Only the rekeys during the stream count: the AP's interval also
     * ran through the join and the wpa2 test. */
    drain_events(&link, 0);
    before = link.rekeys;
    watch.link = &link;
    watch.before = before;
    watch.start_us = monotonic_us();
    watch.bytes = run.bytes;
    sent = net_tcp_stream_until(run.port, run.bytes, &answered,
                                rekeyed_enough, &watch);
    drain_events(&link, 0);
    say("# group_rekeys: %u", link.rekeys - before);
    say_status(&link, state, sizeof(state));
    ok = sent && answered && link.rekeys > before &&
         strcmp(state, "COMPLETED") == 0;
    wpa_close(&link, false);
out:
    say_result(ok, number, "rekey");
    return ok;
}

/* ---- the rows ---- */

static int planned_badkey(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && agent_param(opts, BADKEY_PARAM, NULL);
}

static int planned_wpa2(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && agent_param(opts, WPA2_PARAM, NULL);
}

static int planned_rekey(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && agent_param(opts, REKEY_PARAM, NULL);
}

static void run_badkey(struct agent_opts *opts, struct agent_state *state)
{
    if (state->iface_ok)
        test_badkey(opts, state->number);
    else
        say_result(false, state->number, "wpa2-badkey");
    state->number++;
}

static void run_wpa2(struct agent_opts *opts, struct agent_state *state)
{
    if (state->iface_ok)
        test_wpa2(opts, state->number);
    else
        say_result(false, state->number, "wpa2");
    state->number++;
}

static void run_rekey(struct agent_opts *opts, struct agent_state *state)
{
    if (state->iface_ok)
        test_rekey(opts, state->number);
    else
        say_result(false, state->number, "rekey");
    state->number++;
}

const struct agent_test wpa_tests[] = {
    { 161, "wpa2-badkey", BADKEY_PARAM, parse_badkey, planned_badkey,
      run_badkey, NULL },
    { 162, "wpa2", WPA2_PARAM, parse_stream_run, planned_wpa2, run_wpa2,
      NULL },
    { 163, "rekey", REKEY_PARAM, parse_stream_run, planned_rekey, run_rekey,
      NULL },
};
const size_t wpa_tests_count = ARRAY_SIZE(wpa_tests);
