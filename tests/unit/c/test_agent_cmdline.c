/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's kernel command line (guest/agent/agent.c, parse_cmdline)
 * over the real test table: every family's rows are linked in, so what is
 * parsed here is what the guest parses. Nothing runs: only the options
 * and the KTAP plan they give are checked.
 */
#define NDISBENCH_AGENT_NO_MAIN
#include "../../../guest/agent/agent.c"

#include "tap.h"

#define FIX "/lib/ndisbench/fixtures"

/* parse_cmdline on a copy (it works in place; the options point into it). */
static char buf[4096];

static int parse(const char *line, struct agent_opts *opts)
{
    snprintf(buf, sizeof(buf), "%s", line);
    return parse_cmdline(buf, opts);
}

/* What the host asks of an rtl8187/ndiswrapper cell of the default run
 * (cell/compose.py kernel_cmdline). */
static void full_wrapped_cell(void)
{
    struct agent_opts o;

    CHECK(parse("console=ttyS0 loglevel=2 panic=-1 "
                "ndisbench.install=" FIX "/rtlwl/rtlwl.inf "
                "ndisbench.load=ndiswrapper ndisbench.net=wlan0 "
                "ndisbench.usb=0bda:8187 ndisbench.connect=ndisbench "
                "ndisbench.broken=" FIX "/broken/pe32.inf," FIX
                "/broken/noentry.inf ndisbench.scan=1 ndisbench.ping=100 "
                "ndisbench.tcp=40000:4194304 ndisbench.hotplug=40001 "
                "ndisbench.roam=1", &o) == 0);
    CHECK(o.bad_param == NULL);
    CHECK_STR(o.install_inf, FIX "/rtlwl/rtlwl.inf");
    CHECK(o.n_modules == 1);
    CHECK_STR(o.modules[0], "ndiswrapper");
    CHECK_STR(o.usb_id, "0bda:8187");
    CHECK_STR(o.net.ifname, "wlan0");
    CHECK_STR(o.net.connect_ssid, "ndisbench");
    CHECK(o.n_broken == 2);
    CHECK_STR(o.broken[1], FIX "/broken/noentry.inf");
    CHECK(o.net.scan && o.net.roam);
    CHECK(o.net.ping_count == 100);
    CHECK(o.net.tcp_port == 40000 && o.net.tcp_bytes == 4194304);
    CHECK(o.net.hotplug_port == 40001);
    CHECK(o.net.udp_port == 0 && o.net.peer[0] == '\0');
    CHECK(o.soak.seconds == 0 && !o.shell);
    /* boot, 2 broken, install, insmod, bind, scan, associate, dhcp, ping,
     * tcp, hotplug, roam, unload */
    CHECK(planned_tests(&o) == 14);
}

/* The module checks on a bare machine: boot, three loads, unload. */
static void module_cell(void)
{
    struct agent_opts o;

    CHECK(parse("console=ttyS0 ndisbench.load=ndisbench_control,"
                "ndiswrapper,driverloader", &o) == 0);
    CHECK(o.n_modules == 3);
    CHECK_STR(o.modules[2], "driverloader");
    CHECK(o.net.ifname == NULL);
    CHECK(planned_tests(&o) == 5);
}

/* The WPA2 checks on the native row: the network, then wpa2-badkey, wpa2
 * and rekey after the open network's tests (cell/compose.py). */
static void wpa_cell(void)
{
    struct agent_opts o;
    const char *value = NULL;

    CHECK(parse("console=ttyS0 ndisbench.net=wlan0 "
                "ndisbench.connect=ndisbench "
                "ndisbench.wpa2_badkey=nl80211:ndisbench-wpa2:not-the-key "
                "ndisbench.wpa2=nl80211:ndisbench-wpa2:ndisbench-wpa2-secret"
                ":40000:1048576 "
                "ndisbench.rekey=nl80211:ndisbench-wpa2:ndisbench-wpa2-secret"
                ":40001:4194304", &o) == 0);
    CHECK(o.bad_param == NULL);
    CHECK(agent_param(&o, "ndisbench.wpa2", &value));
    CHECK_STR(value, "nl80211:ndisbench-wpa2:ndisbench-wpa2-secret:40000:"
                     "1048576");
    /* boot, bind, associate, dhcp, wpa2-badkey, wpa2, rekey, unload */
    CHECK(planned_tests(&o) == 8);
    CHECK(parse("ndisbench.wpa2_badkey=wext:ndisbench-wpa2:not-the-key",
                &o) == 0);
    CHECK(o.bad_param == NULL);
    /* without an interface nothing of it runs */
    CHECK(parse("ndisbench.wpa2=nl80211:x:abcdefgh:1:2", &o) == 0);
    CHECK(o.bad_param == NULL);
    CHECK(planned_tests(&o) == 2);
    /* a driver wpa_supplicant is not asked for; no SSID */
    CHECK(parse("ndisbench.wpa2_badkey=madwifi:ndisbench-wpa2:abcdefgh",
                &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.wpa2_badkey");
    CHECK(parse("ndisbench.wpa2_badkey=nl80211::abcdefgh", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.wpa2_badkey");
    /* a passphrase of 8 to 63 characters; a port and a size, or none */
    CHECK(parse("ndisbench.wpa2_badkey=nl80211:n:short", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.wpa2_badkey");
    CHECK(parse("ndisbench.wpa2_badkey=nl80211:n:abcdefgh:1:2", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.wpa2_badkey");
    CHECK(parse("ndisbench.wpa2=nl80211:n:abcdefgh:0:100", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.wpa2");
    CHECK(parse("ndisbench.rekey=nl80211:n:abcdefgh:40000", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.rekey");
}

static void nothing_asked(void)
{
    struct agent_opts o;

    CHECK(parse("", &o) == 0);
    CHECK(o.n_modules == 0 && o.modules == NULL);
    CHECK(planned_tests(&o) == 2);        /* boot, unload */
    CHECK(parse("quiet root=/dev/sda ndisbench.unknown=1", &o) == 0);
    CHECK(o.bad_param == NULL);
    CHECK(planned_tests(&o) == 2);
}

/* Kernel parameter rules: the last occurrence wins, quotes group words,
 * empty list items are skipped. */
static void kernel_rules(void)
{
    struct agent_opts o;

    CHECK(parse("ndisbench.load=a,b ndisbench.load=c,,d,", &o) == 0);
    CHECK(o.n_modules == 2);
    CHECK_STR(o.modules[0], "c");
    CHECK_STR(o.modules[1], "d");
    CHECK(parse("ndisbench.net=wlan0 \"ndisbench.connect=my net\"", &o) == 0);
    CHECK_STR(o.net.connect_ssid, "my net");
    CHECK(parse("ndisbench.connect=\"a b\" ndisbench.ping=3", &o) == 0);
    CHECK_STR(o.net.connect_ssid, "a b");
    CHECK(o.net.ping_count == 3);
    /* An empty value names nothing. */
    CHECK(parse("ndisbench.install= ndisbench.net=", &o) == 0);
    CHECK(o.install_inf == NULL && o.net.ifname == NULL);
}

/* A wired NIC with a user's driver (run --driver): the kernel's own
 * driver for the device is unbound first. */
static void wired_user_driver_cell(void)
{
    struct agent_opts o;

    CHECK(parse("console=ttyS0 ndisbench.install=" FIX
                "/rtl8139nd/rtl8139nd.inf ndisbench.load=ndiswrapper "
                "ndisbench.net=eth0 ndisbench.unbind=10ec:8139 "
                "ndisbench.ping=100 ndisbench.mac=52:54:00:12:34:5F", &o)
          == 0);
    CHECK(o.bad_param == NULL);
    CHECK_STR(o.unbind_id, "10ec:8139");
    CHECK_STR(o.net.ifname, "eth0");
    /* kept as sysfs spells an address: lower case */
    CHECK_STR(o.net.mac, "52:54:00:12:34:5f");
    /* a setting, no test of its own: boot, install, insmod, bind, associate,
     * dhcp, ping, unload */
    CHECK(planned_tests(&o) == 8);
}

static void bools(void)
{
    struct agent_opts o;

    CHECK(parse("ndisbench.shell ndisbench.scan=1 ndisbench.roam=y", &o) == 0);
    CHECK(o.shell && o.net.scan && o.net.roam);
    CHECK(parse("ndisbench.shell=0 ndisbench.scan=n ndisbench.roam=N", &o)
          == 0);
    CHECK(!o.shell && !o.net.scan && !o.net.roam);
}

/* A value that does not parse names its parameter (the first one), and
 * the boot test fails with it. */
static void bad_values(void)
{
    static const char *const bad[] = {
        "ndisbench.ping=x", "ndisbench.ping=", "ndisbench.tcp=80",
        "ndisbench.tcp=0:10", "ndisbench.tcp=80:0", "ndisbench.udp=80",
        "ndisbench.udp=80:0", "ndisbench.hotplug=0",
        "ndisbench.hotplug=70000", "ndisbench.peer=10.0.2",
        "ndisbench.peer=10.0.2.16:0", "ndisbench.soak=600",
        "ndisbench.slowdown=0", "ndisbench.slowdown=21",
        "ndisbench.slowdown", "ndisbench.unbind=10ec",
        "ndisbench.unbind=10ec:81399", "ndisbench.unbind=zzzz:8139",
        "ndisbench.unbind", "ndisbench.mac=52:54:00:12:34",
        "ndisbench.mac=52:54:00:12:34:5g", "ndisbench.mac=52-54-00-12-34-56",
        "ndisbench.mac=52:54:00:12:34:567", "ndisbench.mac",
    };
    struct agent_opts o;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        char name[64];

        snprintf(name, sizeof(name), "%s", bad[i]);
        name[strcspn(name, "=")] = '\0';
        CHECK(parse(bad[i], &o) == 0);
        if (o.bad_param == NULL || strcmp(o.bad_param, name) != 0)
            printf("#   %s: bad_param %s\n", bad[i],
                   o.bad_param ? o.bad_param : "(none)");
        CHECK(o.bad_param != NULL && strcmp(o.bad_param, name) == 0);
    }
    CHECK(parse("ndisbench.tcp=1 ndisbench.ping=x", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.tcp");
    CHECK(parse("ndisbench.slowdown=20 ndisbench.udp=9:500 "
                "ndisbench.peer=10.0.2.16:7 ndisbench.soak=90:4000:4001:12",
                &o) == 0);
    CHECK(o.bad_param == NULL);
    CHECK(o.net.slowdown == 20 && o.net.udp_port == 9 &&
          o.net.udp_ms == 500);
    CHECK_STR(o.net.peer, "10.0.2.16");
    CHECK(o.net.peer_count == 7);
    CHECK(o.soak.seconds == 90 && o.soak.unplug_port == 4001 &&
          o.soak.cycles == 12);
}

/* The network tests need ndisbench.net=; the soak needs a module. */
static void plan_depends_on_what_runs(void)
{
    struct agent_opts o;

    CHECK(parse("ndisbench.ping=100 ndisbench.scan=1 ndisbench.tcp=1:2",
                &o) == 0);
    CHECK(planned_tests(&o) == 2);
    CHECK(parse("ndisbench.net=eth0 ndisbench.ping=100 ndisbench.tcp=1:2 "
                "ndisbench.udp=3:500 ndisbench.peer=10.0.2.16", &o) == 0);
    CHECK(planned_tests(&o) == 2 + 3 + 4);
    CHECK(parse("ndisbench.net=wlan0 ndisbench.soak=60:4000", &o) == 0);
    CHECK(planned_tests(&o) == 2 + 3);
    CHECK(parse("ndisbench.net=wlan0 ndisbench.soak=60:4000 "
                "ndisbench.load=ndiswrapper", &o) == 0);
    CHECK(planned_tests(&o) == 2 + 1 + 3 + 1);
}

/* ndisbench.mtu=<bytes>: a network test, 68 to 1500 (ether_setup's
 * range). */
static void mtu_param(void)
{
    static const char *const bad[] = {
        "ndisbench.mtu=0", "ndisbench.mtu=67", "ndisbench.mtu=1501",
        "ndisbench.mtu=x", "ndisbench.mtu=", "ndisbench.mtu",
    };
    struct agent_opts o;
    size_t i;

    CHECK(parse("ndisbench.net=eth0 ndisbench.mtu=1280", &o) == 0);
    CHECK(o.bad_param == NULL);
    CHECK(planned_tests(&o) == 2 + 3 + 1);
    CHECK(parse("ndisbench.mtu=1280", &o) == 0);
    CHECK(planned_tests(&o) == 2);
    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        CHECK(parse(bad[i], &o) == 0);
        CHECK_STR(o.bad_param, "ndisbench.mtu");
    }
}

/* Each table parameter's last raw value, for rows with no field of their
 * own. */
static void raw_values(void)
{
    struct agent_opts o;
    const char *v = "unset";

    CHECK(parse("ndisbench.ping=3 ndisbench.shell ndisbench.ping=7 "
                "ndisbench.nosuch=1", &o) == 0);
    CHECK(agent_param(&o, "ndisbench.ping", &v));
    CHECK_STR(v, "7");
    CHECK(agent_param(&o, "ndisbench.shell", &v));
    CHECK(v == NULL);
    CHECK(!agent_param(&o, "ndisbench.tcp", &v));
    CHECK(!agent_param(&o, "ndisbench.nosuch", NULL));
    CHECK(parse("", &o) == 0);
    CHECK(!agent_param(&o, "ndisbench.ping", NULL));
}

/* One row per parameter and per test; the order is the run order. */
static void table_is_consistent(void)
{
    const struct agent_test *const *table;
    size_t n = agent_table(&table);
    size_t i, j;

    CHECK(n > 10 && n < TABLE_MAX);
    for (i = 0; i < n; i++) {
        const struct agent_test *row = table[i];

        CHECK(row->name != NULL);
        CHECK(row->run == NULL || row->planned != NULL);
        CHECK((row->param == NULL) == (row->parse == NULL));
        if (row->param)
            CHECK(strncmp(row->param, "ndisbench.", 10) == 0);
        if (i > 0)
            CHECK(table[i - 1]->order < row->order);
        for (j = 0; j < i; j++) {
            CHECK(strcmp(table[j]->name, row->name) != 0);
            CHECK(!row->param || !table[j]->param ||
                  strcmp(table[j]->param, row->param) != 0);
        }
    }
    CHECK_STR(table[n - 1]->name, "unload");
}

/* ndisbench.params=console: the cell's words come on the console later,
 * joined after the command line (the host's snapshot boots). */
static void console_params(void)
{
    struct agent_opts o;
    char *joined;

    CHECK(parse("console=ttyS0 ndisbench.params=console", &o) == 0);
    CHECK(o.bad_param == NULL);
    CHECK(agent_param(&o, "ndisbench.params", NULL));
    CHECK(planned_tests(&o) == 2);        /* a setting: boot, unload */

    CHECK(parse("ndisbench.params=disk", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.params");
    CHECK(parse("ndisbench.params", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.params");

    joined = join_params("console=ttyS0 ndisbench.params=console\n",
                         "ndisbench.load=ndiswrapper ndisbench.ping=3\r");
    CHECK(joined != NULL);
    CHECK_STR(joined, "console=ttyS0 ndisbench.params=console\n "
                      "ndisbench.load=ndiswrapper ndisbench.ping=3");
    CHECK(parse_cmdline(joined, &o) == 0);
    CHECK(o.bad_param == NULL);
    CHECK(o.n_modules == 1);
    CHECK_STR(o.modules[0], "ndiswrapper");
    CHECK(planned_tests(&o) > 2);
    free(joined);
}

/* read_line stops at the newline and leaves the rest unread; a line too
 * long for the buffer and an early end of file are errors. */
static void console_line(void)
{
    char line[16];
    char rest[8] = { 0 };
    int fds[2];

    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], "a b=c\nnext", 10) == 10);
    CHECK(read_line(fds[0], line, sizeof(line)) == 0);
    CHECK_STR(line, "a b=c");
    CHECK(read(fds[0], rest, 4) == 4);
    CHECK_STR(rest, "next");

    CHECK(write(fds[1], "0123456789abcdefXYZ\n", 20) == 20);
    errno = 0;
    CHECK(read_line(fds[0], line, sizeof(line)) == -1);
    CHECK(errno == E2BIG);
    CHECK(read(fds[0], rest, sizeof(rest)) > 0);     /* drain the rest */

    CHECK(write(fds[1], "half", 4) == 4);
    close(fds[1]);
    errno = 0;
    CHECK(read_line(fds[0], line, sizeof(line)) == -1);
    CHECK(errno == EIO);
    close(fds[0]);
}

/*
 * ndisbench.modparams=<module>.<param>=<value>,...: each load of a module
 * gets its own parameters, in order, as finit_module's argument (what
 * modprobe gives a module of the kernel command line's words); a dash in
 * a module name is an underscore, as in the kernel's names.
 */
static void module_params(void)
{
    struct agent_opts o;
    char out[64];

    CHECK(parse("ndisbench.load=ndiswrapper "
                "ndisbench.modparams=ndiswrapper.wiphy=0,"
                "other-mod.debug=1,ndiswrapper.verbose", &o) == 0);
    CHECK(o.bad_param == NULL);
    CHECK_STR(o.module_params, "ndiswrapper.wiphy=0,other-mod.debug=1,"
                               "ndiswrapper.verbose");
    CHECK(module_params_for(o.module_params, "ndiswrapper", out,
                            sizeof(out)) == 0);
    CHECK_STR(out, "wiphy=0 verbose");
    CHECK(module_params_for(o.module_params, "other_mod", out,
                            sizeof(out)) == 0);
    CHECK_STR(out, "debug=1");
    CHECK(module_params_for(o.module_params, "e1000", out,
                            sizeof(out)) == 0);
    CHECK_STR(out, "");
    CHECK(module_params_for(NULL, "ndiswrapper", out, sizeof(out)) == 0);
    CHECK_STR(out, "");
    /* no room: an error, never a cut parameter */
    errno = 0;
    CHECK(module_params_for("ndiswrapper.wiphy=0", "ndiswrapper", out,
                            7) == -1);
    CHECK(errno == E2BIG);
    /* a parameter without its module, or a module without a parameter */
    CHECK(parse("ndisbench.modparams=wiphy=0", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.modparams");
    CHECK(parse("ndisbench.modparams=ndiswrapper.", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.modparams");
    CHECK(parse("ndisbench.modparams=.wiphy=0", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.modparams");
    CHECK(parse("ndisbench.modparams", &o) == 0);
    CHECK_STR(o.bad_param, "ndisbench.modparams");
    /* a setting: no KTAP result of its own */
    CHECK(parse("ndisbench.modparams=ndiswrapper.wiphy=0", &o) == 0);
    CHECK(planned_tests(&o) == 2);
}

int main(void)
{
    TEST(full_wrapped_cell);
    TEST(module_cell);
    TEST(nothing_asked);
    TEST(wpa_cell);
    TEST(kernel_rules);
    TEST(wired_user_driver_cell);
    TEST(bools);
    TEST(bad_values);
    TEST(plan_depends_on_what_runs);
    TEST(raw_values);
    TEST(mtu_param);
    TEST(table_is_consistent);
    TEST(console_params);
    TEST(console_line);
    TEST(module_params);
    return tap_done();
}
