/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent net family: the device's interface appears (and which
 * driver runs it), its link, DHCP through it, ICMP echo to the slirp
 * gateway, a TCP stream and UDP datagrams to sinks the host runs on
 * 127.0.0.1 (reached as 10.0.2.2), the other guest of a pair, and a
 * hot-unplug in the middle of traffic. When the interface never appears
 * the later network tests still print their results, as failures.
 *
 * Facts only, as for the module tests: the host judges them.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "profile.h"

#define GATEWAY            "10.0.2.2"
#define IFACE_WAIT_MS      30000
#define SYSFS_NET_DIR      "/sys/class/net"
#define DHCP_TIMEOUT_S     60
#define DHCP_RETRIES       10       /* udhcpc -t: discover/requests */
#define DHCP_RETRY_S       2        /* udhcpc -T: seconds between */
#define STR_(x)            #x
#define STR(x)             STR_(x)
#define PING_TIMEOUT_MS    1000
#define PING_INTERVAL_MS   10
#define PING_LATE_MS       2000     /* after the last echo, for stragglers */
#define TCP_TIMEOUT_MS     60000
#define TCP_REPLY_MS       10000    /* the sink's answer after our FIN */
#define POLL_SLICE_MS      100      /* a wait on the host looks this often */
#define BUSYBOX            "/bin/busybox"
#define UDHCPC_SCRIPT      "/etc/udhcpc.script"
#define HOTPLUG_ACKED      65536    /* bytes the host took before the unplug */
#define HOTPLUG_STREAM_MS  5000     /* at most, for them to be acknowledged */
#define HOTPLUG_WAIT_MS    30000
#define UDP_PAYLOAD        64
#define SETTLE_PINGS       20       /* at most, one second each */
#define PEER_PINGS         10       /* default count of ndisbench.peer= */
#define PEER_PINGS_MAX     1000
#define PEER_WAIT_MS       240000   /* for the peer to answer, to ping us */
#define PEER_QUIET_MS      (2 * PING_TIMEOUT_MS)   /* the peer is done */
#define SNMP_PATH          "/proc/net/snmp"

/*
 * Every wait scales with ndisbench.slowdown= (a kernel with slow debug
 * checkers): the host scales its own timeout by the same factor.
 */
static unsigned int slowdown = 1;
#define SLOW(limit)        net_slow(limit)

int net_slow(int limit_ms)
{
    return limit_ms * (int)slowdown;
}

/* ---- option parsing (pure) ---- */

bool net_parse_count(const char *value, unsigned int *count)
{
    char *end;
    unsigned long n;

    if (value == NULL || *value == '\0')
        return false;
    errno = 0;
    n = strtoul(value, &end, 10);
    if (errno != 0 || *end != '\0' || n > 100000)
        return false;
    *count = (unsigned int)n;
    return true;
}

bool net_parse_port(const char *value, unsigned int *port)
{
    unsigned int n;

    if (!net_parse_count(value, &n) || n == 0 || n > 65535)
        return false;
    *port = n;
    return true;
}

bool net_parse_udp(const char *value, struct net_opts *opts)
{
    char port[8];
    const char *colon = value ? strchr(value, ':') : NULL;
    size_t len = colon ? (size_t)(colon - value) : 0;

    if (colon == NULL || len == 0 || len >= sizeof(port))
        return false;
    memcpy(port, value, len);
    port[len] = '\0';
    return net_parse_port(port, &opts->udp_port) &&
           net_parse_count(colon + 1, &opts->udp_ms) && opts->udp_ms > 0;
}

bool net_parse_tcp(const char *value, struct net_opts *opts)
{
    unsigned long port;
    unsigned long long bytes;
    char *end;

    if (value == NULL)
        return false;
    errno = 0;
    port = strtoul(value, &end, 10);
    if (errno != 0 || *end != ':' || port == 0 || port > 65535)
        return false;
    bytes = strtoull(end + 1, &end, 10);
    if (errno != 0 || *end != '\0' || bytes == 0)
        return false;
    opts->tcp_port = (unsigned int)port;
    opts->tcp_bytes = bytes;
    return true;
}

bool net_parse_peer(const char *value, struct net_opts *opts)
{
    const char *colon = value ? strchr(value, ':') : NULL;
    size_t len = colon ? (size_t)(colon - value) : (value ? strlen(value)
                                                          : 0);
    char addr[sizeof(opts->peer)];
    struct in_addr in;
    unsigned int count = PEER_PINGS;

    if (len == 0 || len >= sizeof(addr))
        return false;
    memcpy(addr, value, len);
    addr[len] = '\0';
    if (inet_pton(AF_INET, addr, &in) != 1)
        return false;
    if (colon != NULL && (!net_parse_count(colon + 1, &count) ||
                          count == 0 || count > PEER_PINGS_MAX))
        return false;
    memcpy(opts->peer, addr, len + 1);
    opts->peer_count = count;
    return true;
}

/* ---- helpers ---- */

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;

    return (x > y) - (x < y);
}

/* The p-th percentile (0..100) of n sorted values, nearest rank. */
static long long percentile(const long long *sorted, size_t n, unsigned p)
{
    size_t rank = (n * p + 99) / 100;

    return sorted[rank ? rank - 1 : 0];
}

static int if_ioctl(unsigned long req, struct ifreq *ifr)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int ret;

    if (fd < 0)
        return -errno;
    ret = ioctl(fd, req, ifr) < 0 ? -errno : 0;
    close(fd);
    return ret;
}

static void ifreq_init(struct ifreq *ifr, const char *ifname)
{
    memset(ifr, 0, sizeof(*ifr));
    snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname);
}

/* ---- tests ---- */

static bool iface_exists(const char *ifname)
{
    char path[64];
    struct stat st;

    snprintf(path, sizeof(path), SYSFS_NET_DIR "/%s", ifname);
    return stat(path, &st) == 0;
}

static char *read_attr(const char *ifname, const char *attr);

/*
 * The wrapper, not the bench, names the interface: ndiswrapper 1.63 calls
 * every one wlan%d, wired or not. As udev does by MAC on a real system,
 * the interface with the NIC's address (ndisbench.mac=) gets the name
 * the checks use; the rename is said, and bind reports it.
 */
static bool rename_by_mac(const struct net_opts *opts)
{
    struct dirent *entry;
    bool renamed = false;
    DIR *dir;

    if (opts->mac[0] == '\0')
        return false;
    dir = opendir(SYSFS_NET_DIR);
    if (dir == NULL)
        return false;
    while (!renamed && (entry = readdir(dir)) != NULL) {
        char *address;
        struct ifreq ifr;
        int err;

        if (entry->d_name[0] == '.' ||
            strlen(entry->d_name) >= sizeof(ifr.ifr_name))
            continue;
        address = read_attr(entry->d_name, "address");
        if (address == NULL || strcmp(address, opts->mac) != 0) {
            free(address);
            continue;
        }
        free(address);
        ifreq_init(&ifr, entry->d_name);
        snprintf(ifr.ifr_newname, sizeof(ifr.ifr_newname), "%s",
                 opts->ifname);
        err = if_ioctl(SIOCSIFNAME, &ifr);
        if (err) {
            say("# rename_error: %s -> %s: %s", entry->d_name, opts->ifname,
                errno_name(-err));
            break;
        }
        say("# renamed: %s -> %s (the NIC's MAC %s)", entry->d_name,
            opts->ifname, opts->mac);
        renamed = true;
    }
    closedir(dir);
    return renamed;
}

static bool wait_for_iface(const struct net_opts *opts, long long *waited_ms)
{
    const char *ifname = opts->ifname;
    long long start = monotonic_us();

    while (!iface_exists(ifname) && !rename_by_mac(opts)) {
        if (monotonic_us() - start > SLOW(IFACE_WAIT_MS) * 1000LL)
            return false;
        usleep(20000);
    }
    *waited_ms = (monotonic_us() - start) / 1000;
    return true;
}

static void say_drvinfo(const char *ifname)
{
    struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
    struct ifreq ifr;
    int err;

    ifreq_init(&ifr, ifname);
    ifr.ifr_data = (char *)&info;
    err = if_ioctl(SIOCETHTOOL, &ifr);
    if (err) {
        say("# ethtool_error: %d", -err);
        return;
    }
    say("# driver: %.32s", info.driver);
    say("# driver_version: %.32s", info.version);
    say("# fw_version: %.32s", info.fw_version);
    say("# bus_info: %.32s", info.bus_info);
}

static bool test_iface(const struct net_opts *opts, bool modules_loaded,
                       int number)
{
    struct ifreq ifr;
    long long waited;
    char name[48];
    bool ok;

    say("# ifname: %s", opts->ifname);
    if (!modules_loaded && access(SYSFS_NET_DIR "/", F_OK) == 0 &&
        !iface_exists(opts->ifname)) {
        /* Its driver did not load: waiting could only time out. */
        say("# error: %s absent and a module it needs did not load",
            opts->ifname);
        ok = false;
    } else {
        ok = wait_for_iface(opts, &waited);
        if (!ok)
            say("# error: %s did not appear within %d ms", opts->ifname,
                SLOW(IFACE_WAIT_MS));
    }
    if (ok) {
        say("# appeared_ms: %lld", waited);
        say_drvinfo(opts->ifname);
        ifreq_init(&ifr, opts->ifname);
        if (if_ioctl(SIOCGIFHWADDR, &ifr) == 0) {
            const unsigned char *m =
                (const unsigned char *)ifr.ifr_hwaddr.sa_data;

            say("# mac: %02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
                m[3], m[4], m[5]);
        }
    }
    snprintf(name, sizeof(name), "bind %s", opts->ifname);
    say_result(ok, number, name);
    return ok;
}

static int set_up(const char *ifname)
{
    struct ifreq ifr;
    int err;

    ifreq_init(&ifr, ifname);
    err = if_ioctl(SIOCGIFFLAGS, &ifr);
    if (err)
        return err;
    ifr.ifr_flags |= IFF_UP;
    return if_ioctl(SIOCSIFFLAGS, &ifr);
}

/* Contents of a one-line sysfs file without its newline, or NULL. */
static char *read_attr(const char *ifname, const char *attr)
{
    char path[IFNAMSIZ + 300 + 32];
    char *text;

    snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
    text = read_file(path);
    if (text != NULL)
        text[strcspn(text, "\n")] = '\0';
    return text;
}

static bool carrier_up(const char *ifname)
{
    char *carrier = read_attr(ifname, "carrier");
    bool up = carrier != NULL && strcmp(carrier, "1") == 0;

    free(carrier);
    return up;
}

/*
 * Facts a wrapper publishes about its association in
 * /sys/class/net/<if>/ndis/ (bssid, ssid, ...): one `ndis_<name>` fact
 * per file.
 */
static void say_ndis_attrs(const char *ifname)
{
    char dirpath[96];
    struct dirent *ent;
    DIR *dir;

    snprintf(dirpath, sizeof(dirpath), "/sys/class/net/%s/ndis", ifname);
    dir = opendir(dirpath);
    if (dir == NULL)
        return;
    while ((ent = readdir(dir)) != NULL) {
        char attr[sizeof(ent->d_name) + 8];
        char *value;

        if (ent->d_name[0] == '.')
            continue;
        snprintf(attr, sizeof(attr), "ndis/%s", ent->d_name);
        value = read_attr(ifname, attr);
        if (value != NULL)
            say("# ndis_%s: %s", ent->d_name, value);
        free(value);
    }
    closedir(dir);
}

/* Bring the interface up and wait for the driver to report a link. */
static bool link_up(const struct net_opts *opts)
{
    long long start = monotonic_us();
    char *operstate;
    int err;
    bool up;

    err = set_up(opts->ifname);
    if (err)
        say("# ifup_errno: %d", -err);
    if (opts->connect_ssid)
        wireless_join(opts);
    while (!(up = carrier_up(opts->ifname)) &&
           monotonic_us() - start < SLOW(NET_CARRIER_WAIT_MS) * 1000LL)
        usleep(20000);
    if (up)
        say("# carrier_ms: %lld", (monotonic_us() - start) / 1000);
    else
        say("# error: no carrier on %s within %d ms", opts->ifname,
            SLOW(NET_CARRIER_WAIT_MS));
    operstate = read_attr(opts->ifname, "operstate");
    say("# operstate: %s", operstate ? operstate : "-");
    free(operstate);
    say_ndis_attrs(opts->ifname);
    if (opts->connect_ssid)
        wireless_link_facts(opts);
    return up;
}

static bool test_link(const struct net_opts *opts, int number)
{
    bool up = link_up(opts);

    say_result(up, number, "associate");
    return up;
}

static bool dhcp_lease(const struct net_opts *opts)
{
    char *argv[] = { "udhcpc", "-i", (char *)opts->ifname, "-n", "-q",
                     "-f", "-t", STR(DHCP_RETRIES), "-T", STR(DHCP_RETRY_S),
                     "-s", UDHCPC_SCRIPT,
                     NULL };
    struct ifreq ifr;
    struct host_wait host;
    long long start;
    int status, tries = 0;
    bool ok = false;

    start = monotonic_us();
    /*
     * udhcpc gives up after its own retries on the guest's clock; under
     * icount a slow host can make them pass in no real time, so it runs
     * again until they would have taken in real time.
     */
    host_wait_start(&host, SLOW(DHCP_RETRIES * DHCP_RETRY_S * 1000));
    do {
        status = agent_run(BUSYBOX, argv, NULL, SLOW(DHCP_TIMEOUT_S) * 1000);
        tries++;
    } while (status != 0 && status != -EINTR && !host_wait_over(&host));
    say("# udhcpc_status: %d", status);
    say("# udhcpc_runs: %d", tries);
    say("# dhcp_ms: %lld", (monotonic_us() - start) / 1000);
    ifreq_init(&ifr, opts->ifname);
    if (status == 0 && if_ioctl(SIOCGIFADDR, &ifr) == 0) {
        struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

        say("# address: %s", inet_ntoa(sin->sin_addr));
        ok = true;
    } else {
        say("# address: -");
    }
    return ok;
}

static bool test_dhcp(const struct net_opts *opts, int number)
{
    bool ok = dhcp_lease(opts);

    say_result(ok, number, "dhcp");
    return ok;
}

static uint16_t icmp_checksum(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint32_t sum = 0;

    for (; len > 1; p += 2, len -= 2)
        sum += (uint32_t)p[0] << 8 | p[1];
    if (len)
        sum += (uint32_t)p[0] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return htons((uint16_t)~sum);
}

/*
 * The sequence number of an echo reply to `id` in a raw IPv4 packet, or
 * -1 for anything else (short, another type, another pinger's).
 */
static int echo_reply_seq(const uint8_t *buf, size_t n, uint16_t id)
{
    const struct icmphdr *icmp;
    const struct iphdr *ip;

    if (n < sizeof(*ip))
        return -1;
    ip = (const struct iphdr *)buf;
    if (ip->ihl < 5 || n < ip->ihl * 4u + sizeof(*icmp))
        return -1;
    icmp = (const struct icmphdr *)(buf + ip->ihl * 4);
    if (icmp->type != ICMP_ECHOREPLY || icmp->un.echo.id != htons(id))
        return -1;
    return ntohs(icmp->un.echo.sequence);
}

/* An echo request of `len` bytes (header included) into pkt. */
static void echo_request(uint8_t *pkt, size_t len, uint16_t id, uint16_t seq)
{
    struct icmphdr *icmp = (struct icmphdr *)pkt;

    icmp->type = ICMP_ECHO;
    icmp->code = 0;
    icmp->un.echo.id = htons(id);
    icmp->un.echo.sequence = htons(seq);
    icmp->checksum = 0;
    icmp->checksum = icmp_checksum(pkt, len);
}

/* Wait for the echo reply with this id/seq; its RTT in us, or -1. */
static long long ping_wait(int fd, uint16_t id, uint16_t seq, long long sent)
{
    long long deadline = sent + PING_TIMEOUT_MS * 1000LL;
    uint8_t buf[1500];

    for (;;) {
        long long left = deadline - monotonic_us();
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        ssize_t n;

        if (left <= 0 || poll(&pfd, 1, (int)(left / 1000) + 1) <= 0)
            return -1;
        n = recv(fd, buf, sizeof(buf), 0);
        if (n > 0 && echo_reply_seq(buf, (size_t)n, id) == seq)
            return monotonic_us() - sent;
    }
}

/* One echo request; its RTT in us, or -1 (not sent, or no reply). */
static long long ping_once(int fd, const struct sockaddr_in *dst,
                           uint16_t id, uint16_t seq)
{
    uint8_t pkt[sizeof(struct icmphdr) + 56] = { 0 };
    long long sent;

    echo_request(pkt, sizeof(pkt), id, seq);
    sent = monotonic_us();
    if (sendto(fd, pkt, sizeof(pkt), 0, (const struct sockaddr *)dst,
               sizeof(*dst)) < 0)
        return -1;
    return ping_wait(fd, id, seq, sent);
}

/*
 * After the link changed under the stack (replug, roam) the first echoes
 * may go while ARP and the new path settle: wait, bounded, for one answer
 * before the counted pings. Fact: settle_pings, the echoes it took.
 */
static void ping_settle(void)
{
    struct sockaddr_in dst = { .sin_family = AF_INET };
    uint16_t id = (uint16_t)(getpid() + 1);
    int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
    unsigned int i;

    if (fd < 0)
        return;
    inet_pton(AF_INET, GATEWAY, &dst.sin_addr);
    for (i = 1; i <= SETTLE_PINGS; i++)
        if (ping_once(fd, &dst, id, (uint16_t)i) >= 0)
            break;
    say("# settle_pings: %u", i);
    close(fd);
}

/*
 * Which echo replies of one run came back, by sequence number. A reply
 * that arrives after its own wait ended (the host stalled the guest's
 * network under TCG) still proves the packet passed, as ping(8) counts
 * it: it is recorded when it comes, and counted late.
 */
int ping_ledger_take(struct ping_ledger *l, const uint8_t *buf, size_t n,
                     long long now)
{
    int got = echo_reply_seq(buf, n, l->id);
    unsigned int seq;

    if (got < 0)
        return -1;
    seq = (unsigned int)got;
    if (seq >= l->count || l->sent[seq] == 0 || l->rtt[seq] >= 0)
        return -1;      /* not ours, never sent, or a duplicate */
    l->rtt[seq] = now - l->sent[seq];
    l->received++;
    if (l->waiting != (int)seq)
        l->late++;
    return (int)seq;
}

/* Take replies until `seq` has one (or, seq < 0, all have) or the
 * deadline passes. */
static void ping_collect(int fd, struct ping_ledger *l, long long deadline)
{
    uint8_t buf[1500];

    for (;;) {
        long long left = deadline - monotonic_us();
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        ssize_t n;

        if (l->received == l->count ||
            (l->waiting >= 0 && l->rtt[l->waiting] >= 0))
            return;
        if (left <= 0 || poll(&pfd, 1, (int)(left / 1000) + 1) <= 0)
            return;
        n = recv(fd, buf, sizeof(buf), 0);
        if (n > 0)
            ping_ledger_take(l, buf, (size_t)n, monotonic_us());
    }
}

static unsigned int ping_target(const char *target, unsigned int count)
{
    struct sockaddr_in dst = { .sin_family = AF_INET };
    struct ping_ledger l = { .id = (uint16_t)getpid(), .count = count };
    long long *sorted = calloc(count, sizeof(*sorted));
    long long start = monotonic_us();
    unsigned int i, received = 0;
    int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);

    l.sent = calloc(count, sizeof(*l.sent));
    l.rtt = malloc(count * sizeof(*l.rtt));
    inet_pton(AF_INET, target, &dst.sin_addr);
    say("# target: %s", target);
    if (fd < 0 || !sorted || !l.sent || !l.rtt) {
        say("# error: raw socket: %s", strerror(errno));
        goto out;
    }
    for (i = 0; i < count; i++)
        l.rtt[i] = -1;
    for (i = 0; i < count; i++) {
        uint8_t pkt[sizeof(struct icmphdr) + 56] = { 0 };

        echo_request(pkt, sizeof(pkt), l.id, (uint16_t)i);
        l.waiting = (int)i;
        l.sent[i] = monotonic_us();
        if (sendto(fd, pkt, sizeof(pkt), 0, (const struct sockaddr *)&dst,
                   sizeof(dst)) < 0)
            l.sent[i] = 0;      /* not sent: no reply can be its */
        else
            ping_collect(fd, &l, l.sent[i] + PING_TIMEOUT_MS * 1000LL);
        usleep(PING_INTERVAL_MS * 1000);
    }
    l.waiting = -1;
    ping_collect(fd, &l, monotonic_us() + PING_LATE_MS * 1000LL);
    for (i = 0; i < count; i++)
        if (l.rtt[i] >= 0)
            sorted[received++] = l.rtt[i];
out:
    say("# seconds: %.3f", (double)(monotonic_us() - start) / 1e6);
    say("# transmitted: %u", count);
    say("# received: %u", received);
    say("# late_replies: %u", l.late);
    if (received) {
        qsort(sorted, received, sizeof(*sorted), cmp_ll);
        say("# rtt_p50_us: %lld", percentile(sorted, received, 50));
        say("# rtt_p99_us: %lld", percentile(sorted, received, 99));
        say("# rtt_max_us: %lld", sorted[received - 1]);
    }
    if (fd >= 0)
        close(fd);
    free(sorted);
    free(l.sent);
    free(l.rtt);
    return received;
}

static unsigned int ping_gateway(unsigned int count)
{
    return ping_target(GATEWAY, count);
}

static bool test_ping(const struct net_opts *opts, int number)
{
    bool ok = ping_gateway(opts->ping_count) == opts->ping_count;

    say_result(ok, number, "ping");
    return ok;
}

/*
 * Send bytes to the gateway's port, half-close, read the sink's
 * "received=<n>" line: facts target, host_clock, bytes_sent, seconds,
 * sink_reply. True when every byte went out, or enough() (asked after
 * each write, if given) said the stream may stop; *answered: the sink
 * replied.
 */
bool net_tcp_stream_until(unsigned int port, unsigned long long bytes,
                          bool *answered,
                          bool (*enough)(void *ctx, unsigned long long sent),
                          void *ctx)
{
    bool stopped = false;
    struct sockaddr_in dst = { .sin_family = AF_INET,
                               .sin_port = htons((uint16_t)port) };
    static uint8_t block[65536];
    unsigned long long sent = 0;
    long long start = monotonic_us();
    char reply[64] = "";
    size_t got = 0;
    struct host_wait host, answer;
    int fd;
    size_t i;

    for (i = 0; i < sizeof(block); i++)
        block[i] = (uint8_t)(i * 7 + 3);
    inet_pton(AF_INET, GATEWAY, &dst.sin_addr);
    say("# target: %s:%u", GATEWAY, port);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
        say("# error: connect: %s", strerror(errno));
        goto out;
    }
    /* The host's sink reads the stream: the limit is the host's time. */
    host_wait_start(&host, SLOW(TCP_TIMEOUT_MS));
    /* rtc: host waits bounded by the RTC; guest: by CLOCK_MONOTONIC. */
    say("# host_clock: %s", host.start_s >= 0 ? "rtc" : "guest");
    while (sent < bytes && !host_wait_over(&host)) {
        size_t chunk = sizeof(block);
        ssize_t n;

        if (bytes - sent < chunk)
            chunk = (size_t)(bytes - sent);
        n = write(fd, block, chunk);
        if (n < 0) {
            say("# error: write: %s", strerror(errno));
            break;
        }
        sent += (unsigned long long)n;
        if (enough && enough(ctx, sent)) {
            stopped = true;
            break;
        }
    }
    shutdown(fd, SHUT_WR);
    host_wait_start(&answer, TCP_REPLY_MS);
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        ssize_t n;
        int ready;

        if (got + 1 >= sizeof(reply))
            break;
        ready = poll(&pfd, 1, POLL_SLICE_MS);
        if (ready < 0)
            break;
        if (ready == 0) {
            if (host_wait_over(&answer))
                break;
            continue;
        }
        n = read(fd, reply + got, sizeof(reply) - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    reply[got] = '\0';
    reply[strcspn(reply, "\r\n")] = '\0';
out:
    say("# bytes_sent: %llu", sent);
    say("# seconds: %.3f", (double)(monotonic_us() - start) / 1e6);
    say("# sink_reply: %s", got ? reply : "-");
    if (fd >= 0)
        close(fd);
    *answered = got > 0;
    return sent == bytes || stopped;
}

bool net_tcp_stream(unsigned int port, unsigned long long bytes,
                    bool *answered)
{
    return net_tcp_stream_until(port, bytes, answered, NULL, NULL);
}

static bool test_tcp(const struct net_opts *opts, int number)
{
    bool answered = false, sent;
    struct profile prof;
    bool sampling = opts->profile_hz &&
                    profile_begin(&prof, opts->profile_hz);

    if (opts->profile_hz && !sampling)
        say("# profile_error: %s", prof.error);
    sent = net_tcp_stream(opts->tcp_port, opts->tcp_bytes, &answered);
    if (sampling)
        profile_end(&prof);

    say_result(sent && answered, number, "tcp");
    return sent;
}

/*
 * Small-packet rate: UDP datagrams of UDP_PAYLOAD bytes to the host's sink
 * as fast as the stack takes them for opts->udp_ms; the host counts what
 * arrives (the rate is the host's count over the time).
 */
static bool test_udp(const struct net_opts *opts, int number)
{
    struct sockaddr_in dst = { .sin_family = AF_INET,
                               .sin_port = htons((uint16_t)opts->udp_port) };
    uint8_t payload[UDP_PAYLOAD] = { 0 };
    unsigned long long sent = 0, errors = 0;
    long long start, elapsed;
    int fd;

    inet_pton(AF_INET, GATEWAY, &dst.sin_addr);
    say("# target: %s:%u", GATEWAY, opts->udp_port);
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
        say("# error: udp socket: %s", strerror(errno));
        say_result(false, number, "udp");
        return false;
    }
    start = monotonic_us();
    while ((elapsed = monotonic_us() - start) < opts->udp_ms * 1000LL) {
        memcpy(payload, &sent, sizeof(sent));
        if (send(fd, payload, sizeof(payload), 0) < 0) {
            errors++;
            usleep(100);    /* queue full: let it drain */
        } else {
            sent++;
        }
    }
    close(fd);
    say("# udp_payload: %d", UDP_PAYLOAD);
    say("# udp_sent: %llu", sent);
    say("# udp_send_errors: %llu", errors);
    say("# seconds: %.3f", (double)elapsed / 1e6);
    say_result(sent > 0, number, "udp");
    return sent > 0;
}

/* ---- a smaller MTU ---- */

#define MTU_PARAM          "ndisbench.mtu"
#define MTU_PINGS          3        /* echoes of the full new size */
#define IP_HEADER          20       /* IPv4 without options */

static int mtu_of(const char *ifname)
{
    char *text = read_attr(ifname, "mtu");
    int mtu = text ? atoi(text) : -1;

    free(text);
    return mtu;
}

/* 0 or -errno of SIOCSIFMTU. */
static int set_mtu(const char *ifname, int mtu)
{
    struct ifreq ifr;

    ifreq_init(&ifr, ifname);
    ifr.ifr_mtu = mtu;
    return if_ioctl(SIOCSIFMTU, &ifr);
}

/*
 * A driver may reset its link to change the MTU (e1000 does): the time
 * until the carrier is back, in ms, or -1.
 */
static long long wait_carrier(const char *ifname)
{
    long long start = monotonic_us();

    while (!carrier_up(ifname)) {
        if (monotonic_us() - start > SLOW(NET_CARRIER_WAIT_MS) * 1000LL)
            return -1;
        usleep(20000);
    }
    return (monotonic_us() - start) / 1000;
}

/*
 * One echo request that makes an IPv4 packet of exactly `bytes` (the
 * ICMP header is part of what a raw socket sends) on a socket with DF
 * set: 0 and *rtt (the reply's, us; -1: none), or the errno of sendto()
 * (EMSGSIZE: the stack would have to fragment).
 */
static int df_echo(int fd, const struct sockaddr_in *dst, uint16_t id,
                   uint16_t seq, unsigned int bytes, long long *rtt)
{
    static uint8_t pkt[1500 + 1];
    size_t len = bytes - IP_HEADER;
    long long sent;

    memset(pkt, 0xa5, len);
    echo_request(pkt, len, id, seq);
    sent = monotonic_us();
    *rtt = -1;
    if (sendto(fd, pkt, len, 0, (const struct sockaddr *)dst,
               sizeof(*dst)) < 0)
        return errno;
    *rtt = ping_wait(fd, id, seq, sent);
    return 0;
}

/*
 * The interface takes a smaller MTU (the driver's netdev must accept the
 * change), echoes of exactly that size with DF set cross it and are
 * answered, one byte more is refused by the stack before it reaches the
 * driver; then the MTU it had is put back for the tests after this one.
 */
static bool test_mtu(const struct net_opts *opts, unsigned int mtu,
                     int number)
{
    struct sockaddr_in dst = { .sin_family = AF_INET };
    uint16_t id = (uint16_t)(getpid() + 3);
    int before = mtu_of(opts->ifname), pmtu = IP_PMTUDISC_DO;
    int err, over = -1, fd;
    unsigned int i, received = 0;
    long long rtt, carrier, back = -1;
    bool ok;

    say("# mtu_before: %d", before);
    err = set_mtu(opts->ifname, (int)mtu);
    say("# mtu_set_errno: %d", -err);
    say("# mtu: %d", mtu_of(opts->ifname));
    carrier = wait_carrier(opts->ifname);
    say("# mtu_carrier_ms: %lld", carrier);
    ping_settle();
    inet_pton(AF_INET, GATEWAY, &dst.sin_addr);
    fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
    if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu,
                             sizeof(pmtu)) < 0) {
        say("# error: raw socket with DF: %s", strerror(errno));
    } else {
        say("# df_ping_bytes: %u", mtu);
        for (i = 1; i <= MTU_PINGS; i++) {
            if (df_echo(fd, &dst, id, (uint16_t)i, mtu, &rtt) == 0 &&
                rtt >= 0)
                received++;
            usleep(PING_INTERVAL_MS * 1000);
        }
        say("# df_transmitted: %u", MTU_PINGS);
        say("# df_received: %u", received);
        over = df_echo(fd, &dst, id, MTU_PINGS + 1, mtu + 1, &rtt);
        say("# df_over_errno: %s", errno_name(over));
    }
    if (fd >= 0)
        close(fd);
    if (before > 0 && set_mtu(opts->ifname, before) != 0)
        say("# error: MTU %d not put back: %s", before, strerror(errno));
    say("# mtu_restored: %d", mtu_of(opts->ifname));
    if (before > 0) {
        back = wait_carrier(opts->ifname);
        say("# restored_carrier_ms: %lld", back);
    }
    ok = err == 0 && carrier >= 0 && received == MTU_PINGS &&
         over == EMSGSIZE && mtu_of(opts->ifname) == before && back >= 0;
    say_result(ok, number, "mtu");
    return ok;
}

/* ---- hot-unplug and replug in the middle of traffic ---- */

/*
 * A TCP connection to the host's sink and a child that writes to it until
 * it is killed; the connected socket (the parent's copy, for TCP_INFO), or
 * -1 with errno set.
 */
static int start_stream(unsigned int port, pid_t *writer)
{
    struct sockaddr_in dst = { .sin_family = AF_INET,
                               .sin_port = htons((uint16_t)port) };
    static uint8_t block[16384];
    int fd;

    inet_pton(AF_INET, GATEWAY, &dst.sin_addr);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0)
        goto fail;
    *writer = fork();
    if (*writer < 0)
        goto fail;
    if (*writer == 0) {
        while (write(fd, block, sizeof(block)) > 0)
            ;
        _exit(0);
    }
    return fd;
fail:
    close(fd);
    return -1;
}

/* Bytes of the stream the host has acknowledged (slirp acks what its
 * socket took, and hands it on to the host's sink), or -1. */
static long long stream_acked(int fd)
{
    struct tcp_info info;
    socklen_t len = sizeof(info);

    memset(&info, 0, sizeof(info));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) < 0 ||
        len < offsetof(struct tcp_info, tcpi_bytes_acked) +
              sizeof(info.tcpi_bytes_acked))
        return -1;
    return (long long)info.tcpi_bytes_acked;
}

/* Wait until the interface exists (or not); the time it took, or -1. */
static long long wait_iface_state(const char *ifname, bool present)
{
    long long start = monotonic_us();
    struct host_wait host;

    /* The host's QMP action does it: the limit is the host's time. */
    host_wait_start(&host, SLOW(HOTPLUG_WAIT_MS));
    while (iface_exists(ifname) != present) {
        if (host_wait_over(&host))
            return -1;
        usleep(20000);
    }
    return (monotonic_us() - start) / 1000;
}

/*
 * Ask the host (a console line it watches) to remove the device while a
 * TCP stream runs through it, wait for the interface to go, ask for the
 * device back, and bring the new interface all the way to ping again.
 */
static bool test_hotplug(const struct net_opts *opts, int number)
{
    long long unplug_ms, replug_ms = -1, acked;
    struct host_wait host;
    bool ok = false;
    pid_t writer;
    int fd;

    say("# target: %s:%u", GATEWAY, opts->hotplug_port);
    fd = start_stream(opts->hotplug_port, &writer);
    if (fd < 0) {
        say("# error: stream to the sink: %s", strerror(errno));
        goto out;
    }
    /*
     * Unplug once the host has taken bytes through the device (bounded by
     * host time: an unanswered stream is the judge's to report).
     */
    host_wait_start(&host, HOTPLUG_STREAM_MS);
    while ((acked = stream_acked(fd)) < HOTPLUG_ACKED &&
           !host_wait_over(&host))
        usleep(10000);
    say("# stream_acked: %lld", acked);
    say("# hotplug_request: unplug");
    unplug_ms = wait_iface_state(opts->ifname, false);
    kill(writer, SIGKILL);
    waitpid(writer, NULL, 0);
    close(fd);
    if (unplug_ms < 0) {
        say("# error: %s still present %d ms after the unplug",
            opts->ifname, SLOW(HOTPLUG_WAIT_MS));
        goto out;
    }
    say("# unplug_ms: %lld", unplug_ms);
    say("# hotplug_request: replug");
    replug_ms = wait_iface_state(opts->ifname, true);
    if (replug_ms < 0) {
        say("# error: %s did not come back within %d ms", opts->ifname,
            SLOW(HOTPLUG_WAIT_MS));
        goto out;
    }
    say("# replug_ms: %lld", replug_ms);
    if (!link_up(opts) || !dhcp_lease(opts))
        goto out;
    ping_settle();
    ok = ping_gateway(NET_CHANGE_PINGS) == NET_CHANGE_PINGS;
out:
    say_result(ok, number, "hotplug");
    return ok;
}

/* ---- two guests on one air: ping each other ---- */

/* Icmp InEchos of /proc/net/snmp: echo requests received since boot. */
static long long icmp_in_echos(void)
{
    char *text = read_file(SNMP_PATH);
    char *names = NULL, *values = NULL, *line, *save = NULL;
    long long result = -1;

    if (text == NULL)
        return -1;
    for (line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "Icmp: ", 6) != 0)
            continue;
        if (names == NULL) {
            names = line;
        } else {
            values = line;
            break;
        }
    }
    if (names != NULL && values != NULL) {
        char *ns = NULL, *vs = NULL;
        char *name = strtok_r(names, " ", &ns);
        char *value = strtok_r(values, " ", &vs);

        while (name != NULL && value != NULL) {
            if (strcmp(name, "InEchos") == 0) {
                result = strtoll(value, NULL, 10);
                break;
            }
            name = strtok_r(NULL, " ", &ns);
            value = strtok_r(NULL, " ", &vs);
        }
    }
    free(text);
    return result;
}

/*
 * The other guest on the air (through the AP's relay): wait, bounded,
 * for its first answer (it may still be booting), ping it peer_count
 * times, then wait, bounded, until it has pinged us as often (InEchos:
 * only the peer sends this guest echo requests) and then stopped (no echo
 * request for PEER_QUIET_MS), so that neither guest powers off while the
 * other still needs it. Facts only.
 */
static bool test_peer(const struct net_opts *opts, int number)
{
    struct sockaddr_in dst = { .sin_family = AF_INET };
    uint16_t id = (uint16_t)(getpid() + 2);
    long long start = monotonic_us(), limit = SLOW(PEER_WAIT_MS) * 1000LL;
    long long in_echos = icmp_in_echos(), rtt = -1;
    unsigned int i, received = 0;
    int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
    bool ok = false;

    say("# peer: %s", opts->peer);
    say("# in_echos_start: %lld", in_echos);
    if (fd < 0) {
        say("# error: raw socket: %s", strerror(errno));
        goto out;
    }
    inet_pton(AF_INET, opts->peer, &dst.sin_addr);
    for (i = 1; rtt < 0 && monotonic_us() - start < limit; i++) {
        long long sent = monotonic_us();

        rtt = ping_once(fd, &dst, id, (uint16_t)i);
        if (rtt < 0 && monotonic_us() - sent < PING_TIMEOUT_MS * 1000LL)
            usleep(PING_TIMEOUT_MS * 1000);  /* no route/ARP yet */
    }
    close(fd);
    say("# settle_pings: %u", i - 1);
    if (rtt < 0) {
        say("# error: %s did not answer within %d ms", opts->peer,
            SLOW(PEER_WAIT_MS));
        goto out;
    }
    say("# peer_answered_ms: %lld", (monotonic_us() - start) / 1000);
    received = ping_target(opts->peer, opts->peer_count);
    start = monotonic_us();
    while ((in_echos = icmp_in_echos()) >= 0 &&
           in_echos < (long long)opts->peer_count &&
           monotonic_us() - start < limit)
        usleep(50000);
    if (in_echos >= (long long)opts->peer_count) {
        long long last = monotonic_us(), seen = in_echos, now;

        say("# peer_pinged_ms: %lld", (last - start) / 1000);
        /*
         * The count includes the peer's settle pings, so it may be one
         * counted echo short of done: stay until it has been quiet for
         * longer than one echo's timeout.
         */
        while ((now = monotonic_us()) - last < PEER_QUIET_MS * 1000LL &&
               now - start < limit) {
            usleep(50000);
            in_echos = icmp_in_echos();
            if (in_echos != seen) {
                seen = in_echos;
                last = monotonic_us();
            }
        }
    } else {
        say("# error: %s sent %lld echo requests within %d ms, not %u",
            opts->peer, in_echos, SLOW(PEER_WAIT_MS), opts->peer_count);
    }
    say("# in_echos: %lld", in_echos);
    ok = received == opts->peer_count &&
         in_echos >= (long long)opts->peer_count;
out:
    say_result(ok, number, "peer");
    return ok;
}

/* ---- the helpers other tests reuse (wireless.c, soak.c) ---- */

bool net_link_up(const struct net_opts *opts)
{
    return link_up(opts);
}

bool net_carrier_up(const char *ifname)
{
    return carrier_up(ifname);
}

int net_set_up(const char *ifname)
{
    return set_up(ifname);
}

bool net_dhcp_lease(const struct net_opts *opts)
{
    return dhcp_lease(opts);
}

int net_start_stream(unsigned int port, pid_t *writer)
{
    return start_stream(port, writer);
}

long long net_wait_iface_state(const char *ifname, bool present)
{
    return wait_iface_state(ifname, present);
}

void net_ping_settle(void)
{
    ping_settle();
}

unsigned int net_ping_gateway(unsigned int count)
{
    return ping_gateway(count);
}

/* ---- the rows ---- */

/* ndisbench.slowdown=<n>, 1 to 20: every wait of the network tests. */
static int parse_slowdown(char *value, struct agent_opts *opts)
{
    if (!net_parse_count(value, &opts->net.slowdown) ||
        opts->net.slowdown == 0 || opts->net.slowdown > 20)
        return bad_value();
    /* Set here, in PID 1: every row's child inherits it. */
    slowdown = opts->net.slowdown;
    return 0;
}

/* ndisbench.profile=<hz>: the tcp stream sampled (profile.c). */
static int parse_profile(char *value, struct agent_opts *opts)
{
    return profile_parse_hz(value, &opts->net.profile_hz) == 0 ? 0 :
           bad_value();
}

/* ndisbench.mac=<xx:xx:xx:xx:xx:xx>: the NIC's address, which finds its
 * interface under a name of the wrapper's own (rename_by_mac). */
static int parse_mac(char *value, struct agent_opts *opts)
{
    size_t i;

    if (value == NULL || strlen(value) != sizeof(opts->net.mac) - 1)
        return bad_value();
    for (i = 0; value[i]; i++) {
        bool colon = i % 3 == 2;

        if (colon ? value[i] != ':' : !isxdigit((unsigned char)value[i]))
            return bad_value();
        opts->net.mac[i] = (char)tolower((unsigned char)value[i]);
    }
    opts->net.mac[i] = '\0';
    return 0;
}

/* ndisbench.net=<ifname>: the network tests run on it. */
static int parse_net(char *value, struct agent_opts *opts)
{
    if (value && *value)
        opts->net.ifname = value;
    return 0;
}

/* The first network test: once the modules are loaded. */
static void run_iface(struct agent_opts *opts, struct agent_state *state)
{
    state->iface_ok = test_iface(&opts->net, state->all_loaded,
                                 state->number++);
}

static void iface_result_name(const struct agent_opts *opts, int index,
                              char *buf, size_t len)
{
    (void)index;
    snprintf(buf, len, "bind %s", opts->net.ifname);
}

/* A later network test without its interface: the result, as a failure. */
static bool no_iface(struct agent_state *state, const char *name)
{
    if (state->iface_ok)
        return false;
    say_result(false, state->number++, name);
    return true;
}

/* ndisbench.connect=<ssid>: the link test joins it with iw first. */
static int parse_connect(char *value, struct agent_opts *opts)
{
    if (value && *value)
        opts->net.connect_ssid = value;
    return 0;
}

static void run_link(struct agent_opts *opts, struct agent_state *state)
{
    if (!no_iface(state, "associate"))
        test_link(&opts->net, state->number++);
}

static void run_dhcp(struct agent_opts *opts, struct agent_state *state)
{
    if (!no_iface(state, "dhcp"))
        test_dhcp(&opts->net, state->number++);
}

static int parse_ping(char *value, struct agent_opts *opts)
{
    return net_parse_count(value, &opts->net.ping_count) ? 0 : bad_value();
}

static int planned_ping(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && opts->net.ping_count > 0;
}

static void run_ping(struct agent_opts *opts, struct agent_state *state)
{
    if (!no_iface(state, "ping"))
        test_ping(&opts->net, state->number++);
}

static int parse_tcp(char *value, struct agent_opts *opts)
{
    return net_parse_tcp(value, &opts->net) ? 0 : bad_value();
}

static int planned_tcp(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && opts->net.tcp_port > 0;
}

static void run_tcp(struct agent_opts *opts, struct agent_state *state)
{
    if (!no_iface(state, "tcp"))
        test_tcp(&opts->net, state->number++);
}

static int parse_udp(char *value, struct agent_opts *opts)
{
    return net_parse_udp(value, &opts->net) ? 0 : bad_value();
}

static int planned_udp(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && opts->net.udp_port > 0;
}

static void run_udp(struct agent_opts *opts, struct agent_state *state)
{
    if (!no_iface(state, "udp"))
        test_udp(&opts->net, state->number++);
}

static int parse_peer(char *value, struct agent_opts *opts)
{
    return net_parse_peer(value, &opts->net) ? 0 : bad_value();
}

static int planned_peer(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && opts->net.peer[0] != '\0';
}

static void run_peer(struct agent_opts *opts, struct agent_state *state)
{
    if (!no_iface(state, "peer"))
        test_peer(&opts->net, state->number++);
}

/* ndisbench.mtu=<bytes>, 68 to 1500 (what ether_setup() allows). */
static int parse_mtu(char *value, struct agent_opts *opts)
{
    unsigned int mtu;

    (void)opts;
    if (!net_parse_count(value, &mtu) || mtu < 68 || mtu > 1500)
        return bad_value();
    return 0;
}

static int planned_mtu(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && agent_param(opts, MTU_PARAM, NULL);
}

static void run_mtu(struct agent_opts *opts, struct agent_state *state)
{
    const char *value = NULL;
    unsigned int mtu = 0;

    agent_param(opts, MTU_PARAM, &value);
    net_parse_count(value, &mtu);
    if (!no_iface(state, "mtu"))
        test_mtu(&opts->net, mtu, state->number++);
}

static int parse_hotplug(char *value, struct agent_opts *opts)
{
    return net_parse_port(value, &opts->net.hotplug_port) ? 0 : bad_value();
}

static int planned_hotplug(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && opts->net.hotplug_port > 0;
}

static void run_hotplug(struct agent_opts *opts, struct agent_state *state)
{
    if (!no_iface(state, "hotplug"))
        test_hotplug(&opts->net, state->number++);
}

const struct agent_test net_tests[] = {
    { 5, "slowdown", "ndisbench.slowdown", parse_slowdown, NULL, NULL, NULL },
    { 6, "mac", "ndisbench.mac", parse_mac, NULL, NULL, NULL },
    { 7, "profile", "ndisbench.profile", parse_profile, NULL, NULL, NULL },
    { 70, "bind", "ndisbench.net", parse_net, planned_with_iface,
      run_iface, iface_result_name },
    { 90, "associate", "ndisbench.connect", parse_connect, planned_with_iface,
      run_link, NULL },
    { 100, "dhcp", NULL, NULL, planned_with_iface, run_dhcp, NULL },
    { 110, "ping", "ndisbench.ping", parse_ping, planned_ping, run_ping, NULL },
    { 115, "mtu", MTU_PARAM, parse_mtu, planned_mtu, run_mtu, NULL },
    { 120, "tcp", "ndisbench.tcp", parse_tcp, planned_tcp, run_tcp, NULL },
    { 130, "udp", "ndisbench.udp", parse_udp, planned_udp, run_udp, NULL },
    { 165, "peer", "ndisbench.peer", parse_peer, planned_peer, run_peer,
      NULL },
    { 150, "hotplug", "ndisbench.hotplug", parse_hotplug, planned_hotplug,
      run_hotplug, NULL },
};
const size_t net_tests_count = ARRAY_SIZE(net_tests);
