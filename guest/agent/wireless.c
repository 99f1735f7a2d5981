/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ndisbench-agent wireless family: the interface as a cfg80211 station,
 * seen with the standard tools. The link test (net.c) joins with
 * `iw connect` and prints what `iw link` and iwconfig (the wireless
 * extensions) say; `scan` lists the air's BSSs; `roam` has the host
 * remove the associated AP and follows the station to the other AP of the
 * SSID. Facts only: the host judges them.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "agent.h"

#define IW                 "/usr/sbin/iw"
#define IW_TIMEOUT_MS      10000
#define IWCONFIG           "/usr/sbin/iwconfig"
#define IW_SCAN_TIMEOUT_MS 30000
/* iw exits with its -errno: cfg80211 refused a connect as EALREADY */
#define IW_STATUS_EALREADY (256 - EALREADY)
#define ROAM_WAIT_MS       30000

/* ---- joining, and what the tools say about the link ---- */

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

void wireless_link_facts(const struct net_opts *opts)
{
    iw_link(opts);
    iwconfig(opts);
}

/* ---- scan ---- */

/* What `iw dev <if> scan` finds: every BSS on the air, one fact a line. */
static bool test_scan(const struct net_opts *opts, int number)
{
    char *argv[] = { "iw", "dev", (char *)opts->ifname, "scan", NULL };
    int err = net_set_up(opts->ifname);
    int status;

    if (err)
        say("# ifup_errno: %d", -err);
    status = agent_run(IW, argv, "iw_scan", net_slow(IW_SCAN_TIMEOUT_MS));
    say("# iw_scan_status: %d", status);
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
    if (opts->connect_ssid) {
        /* As a supplicant would: forget the gone BSS (cfg80211 keeps
         * scan results for 30 s and would try it first), then join. */
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
    { 55, "scan", "ndisbench.scan", parse_scan, planned_scan, run_scan, NULL },
    { 130, "roam", "ndisbench.roam", parse_roam, planned_roam, run_roam,
      NULL },
};
const size_t wireless_tests_count = ARRAY_SIZE(wireless_tests);
