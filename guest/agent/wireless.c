/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent wireless family: the interface as a station, seen with
 * the standard tools of the interface's own API. An interface with a
 * cfg80211 wiphy (/sys/class/net/<if>/phy80211) is driven through nl80211
 * with iw; one without (a wireless-extensions driver, as ndiswrapper
 * always was) with wireless-tools: iwlist scan, iwconfig essid, and the
 * association read back with SIOCGIWAP and SIOCGIWESSID. Each test says
 * which way it went (`wireless_api: nl80211` or `wext`). The link test
 * (net.c) joins and prints what the tools say of the link; `scan` lists
 * the air's BSSs; `roam` has the host remove the associated AP and
 * follows the station to the other AP of the SSID. Facts only: the host
 * judges them.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/wireless.h>

#include "agent.h"

#define IW                 "/usr/sbin/iw"
#define IW_TIMEOUT_MS      10000
#define IWCONFIG           "/usr/sbin/iwconfig"
#define IWLIST             "/usr/sbin/iwlist"
#define IW_SCAN_TIMEOUT_MS 30000
/* iw exits with its -errno: cfg80211 refused a connect as EALREADY */
#define IW_STATUS_EALREADY (256 - EALREADY)
#define ROAM_WAIT_MS       30000

/* ---- which API: nl80211 where the interface has a wiphy ---- */

/*
 * cfg80211 links a wiphy's interface to it in sysfs; a driver without one
 * can only offer wireless extensions. Asked afresh by every test (a
 * hotplug makes a new interface), and said as the test's fact.
 */
bool wireless_has_wiphy(const char *ifname)
{
    char path[IFNAMSIZ + 32];

    snprintf(path, sizeof(path), "/sys/class/net/%s/phy80211", ifname);
    return access(path, F_OK) == 0;
}

static bool use_nl80211(const char *ifname)
{
    bool nl80211 = wireless_has_wiphy(ifname);

    say("# wireless_api: %s", nl80211 ? "nl80211" : "wext");
    return nl80211;
}

/* ---- joining, and what the tools say about the link ---- */

/*
 * Wireless extensions: setting the ESSID is the join (the driver
 * associates to a BSS of it); the association is then awaited as the
 * carrier, as with iw.
 */
static void wext_join(const struct net_opts *opts)
{
    char *argv[] = { "iwconfig", (char *)opts->ifname, "essid",
                     (char *)opts->connect_ssid, NULL };

    say("# iwconfig_essid_status: %d",
        agent_run(IWCONFIG, argv, "iwconfig_essid",
                  net_slow(IW_TIMEOUT_MS)));
}

/*
 * Ask cfg80211 to join the SSID (mac80211 drivers do nothing until told);
 * the association itself is then awaited as the carrier. A wrapped NDIS
 * 5.1 driver may already be associated on its own (its INF's SSID, or it
 * roamed by itself); cfg80211 then refuses with EALREADY, and the agent
 * leaves that BSS first, as a supplicant does, so the join is iw's. The
 * last iw_connect_status fact is the one judged.
 */
void wireless_join(const struct net_opts *opts)
{
    char *argv[] = { "iw", "dev", (char *)opts->ifname, "connect",
                     (char *)opts->connect_ssid, NULL };
    char *leave[] = { "iw", "dev", (char *)opts->ifname, "disconnect",
                      NULL };
    long long start;
    int status;

    if (!use_nl80211(opts->ifname)) {
        wext_join(opts);
        return;
    }
    status = agent_run(IW, argv, "iw_connect", net_slow(IW_TIMEOUT_MS));
    say("# iw_connect_status: %d", status);
    if (status != IW_STATUS_EALREADY)
        return;
    say("# iw_disconnect_status: %d",
        agent_run(IW, leave, "iw_disconnect", net_slow(IW_TIMEOUT_MS)));
    start = monotonic_us();
    while (net_carrier_up(opts->ifname) &&
           monotonic_us() - start < net_slow(NET_CARRIER_WAIT_MS) * 1000LL)
        usleep(20000);
    say("# iw_connect_status: %d",
        agent_run(IW, argv, "iw_connect", net_slow(IW_TIMEOUT_MS)));
}

/* What cfg80211 says the interface is associated to. */
static void iw_link(const struct net_opts *opts)
{
    char *argv[] = { "iw", "dev", (char *)opts->ifname, "link", NULL };

    agent_run(IW, argv, "iw_link", net_slow(IW_TIMEOUT_MS));
}

/*
 * The same link as an iwconfig-era user sees it: wireless extensions, which
 * cfg80211 emulates where the kernel has CONFIG_CFG80211_WEXT.
 */
static void iwconfig(const struct net_opts *opts)
{
    char *argv[] = { "iwconfig", (char *)opts->ifname, NULL };

    say("# iwconfig_status: %d",
        agent_run(IWCONFIG, argv, "iwconfig", net_slow(IW_TIMEOUT_MS)));
}

/* One wireless-extensions request on the interface: 0 or -errno. */
static int wext_ioctl(const char *ifname, unsigned long req,
                      struct iwreq *wrq)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int ret;

    if (fd < 0)
        return -errno;
    snprintf(wrq->ifr_name, sizeof(wrq->ifr_name), "%s", ifname);
    ret = ioctl(fd, req, wrq) < 0 ? -errno : 0;
    close(fd);
    return ret;
}

/*
 * What the wireless extensions say the interface is associated to, read
 * with the requests themselves (iwconfig's text is for the reader):
 * facts wext_ap (the BSSID) and wext_essid, or wext_*_error.
 */
static void wext_link(const struct net_opts *opts)
{
    /*
     * Room for one byte more than an ESSID and its NUL: the kernel then
     * gives the WE-21 length, without a NUL (a buffer of exactly 33 bytes
     * is a pre-WE-21 tool's, which gets the NUL counted); iwconfig does
     * the same.
     */
    char essid[IW_ESSID_MAX_SIZE + 2] = "";
    char shown[4 * IW_ESSID_MAX_SIZE + 1];
    struct iwreq wrq;
    int err;

    memset(&wrq, 0, sizeof(wrq));
    err = wext_ioctl(opts->ifname, SIOCGIWAP, &wrq);
    if (err) {
        say("# wext_ap_error: %s", errno_name(-err));
    } else {
        const unsigned char *m =
            (const unsigned char *)wrq.u.ap_addr.sa_data;

        say("# wext_ap: %02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
            m[3], m[4], m[5]);
    }
    memset(&wrq, 0, sizeof(wrq));
    wrq.u.essid.pointer = essid;
    wrq.u.essid.length = sizeof(essid);
    err = wext_ioctl(opts->ifname, SIOCGIWESSID, &wrq);
    if (err) {
        say("# wext_essid_error: %s", errno_name(-err));
        return;
    }
    escape_text(essid, wrq.u.essid.length > IW_ESSID_MAX_SIZE ?
                IW_ESSID_MAX_SIZE : wrq.u.essid.length, shown,
                sizeof(shown));
    say("# wext_essid: %s", shown);
}

void wireless_link_facts(const struct net_opts *opts)
{
    if (use_nl80211(opts->ifname)) {
        iw_link(opts);
    } else {
        wext_link(opts);
    }
    iwconfig(opts);
}

/* ---- scan ---- */

/*
 * What `iw dev <if> scan` (or, without a wiphy, `iwlist <if> scan`)
 * finds: every BSS on the air, one fact a line.
 */
static bool test_scan(const struct net_opts *opts, int number)
{
    char *iw[] = { "iw", "dev", (char *)opts->ifname, "scan", NULL };
    char *iwlist[] = { "iwlist", (char *)opts->ifname, "scan", NULL };
    int err = net_set_up(opts->ifname);
    int status;

    if (err)
        say("# ifup_errno: %d", -err);
    if (use_nl80211(opts->ifname)) {
        status = agent_run(IW, iw, "iw_scan",
                           net_slow(IW_SCAN_TIMEOUT_MS));
        say("# iw_scan_status: %d", status);
    } else {
        status = agent_run(IWLIST, iwlist, "iwlist_scan",
                           net_slow(IW_SCAN_TIMEOUT_MS));
        say("# iwlist_scan_status: %d", status);
    }
    say_result(status == 0, number, "scan");
    return status == 0;
}


/* ---- roaming: the associated AP goes away ---- */

/*
 * Ask the host to remove the AP the station is associated to, wait for
 * the link to drop, then for it to come back (through the other AP of the
 * SSID: the driver's own roaming, or `iw connect` again on mac80211), and
 * reach the gateway through it.
 */
static bool test_roam(const struct net_opts *opts, int number)
{
    long long start = monotonic_us();
    struct host_wait host;
    bool ok = false;

    say("# roam_request: drop");
    /* The host's QMP object-del drops it: the limit is the host's time. */
    host_wait_start(&host, net_slow(ROAM_WAIT_MS));
    while (net_carrier_up(opts->ifname)) {
        if (host_wait_over(&host)) {
            say("# error: link still up %d ms after the AP went away",
                net_slow(ROAM_WAIT_MS));
            goto out;
        }
        usleep(20000);
    }
    say("# lost_ms: %lld", (monotonic_us() - start) / 1000);
    if (opts->connect_ssid && wireless_has_wiphy(opts->ifname)) {
        /* As a supplicant would: forget the gone BSS (cfg80211 keeps
         * scan results for 30 s and would try it first), then join. A
         * wireless-extensions driver keeps its own list. */
        char *argv[] = { "iw", "dev", (char *)opts->ifname, "scan",
                         "flush", NULL };

        say("# rescan_status: %d",
            agent_run(IW, argv, "iw_rescan", net_slow(IW_SCAN_TIMEOUT_MS)));
    }
    if (net_link_up(opts)) {
        net_ping_settle();
        ok = net_ping_gateway(NET_CHANGE_PINGS) == NET_CHANGE_PINGS;
    }
out:
    say_result(ok, number, "roam");
    return ok;
}

/* ---- the rows ---- */

static int parse_scan(char *value, struct agent_opts *opts)
{
    opts->net.scan = parse_bool(value);
    return 0;
}

static int planned_scan(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && opts->net.scan;
}

static void run_scan(struct agent_opts *opts, struct agent_state *state)
{
    if (state->iface_ok)
        test_scan(&opts->net, state->number);
    else
        say_result(false, state->number, "scan");
    state->number++;
}

static int parse_roam(char *value, struct agent_opts *opts)
{
    opts->net.roam = parse_bool(value);
    return 0;
}

static int planned_roam(const struct agent_opts *opts)
{
    return opts->net.ifname != NULL && opts->net.roam;
}

static void run_roam(struct agent_opts *opts, struct agent_state *state)
{
    if (state->iface_ok)
        test_roam(&opts->net, state->number);
    else
        say_result(false, state->number, "roam");
    state->number++;
}

const struct agent_test wireless_tests[] = {
    { 80, "scan", "ndisbench.scan", parse_scan, planned_scan, run_scan, NULL },
    { 160, "roam", "ndisbench.roam", parse_roam, planned_roam, run_roam,
      NULL },
};
const size_t wireless_tests_count = ARRAY_SIZE(wireless_tests);
