/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pure parts of the agent's soak test (guest/agent/soak.c): the
 * ndisbench.soak= value and /proc/meminfo figures. The agent functions
 * soak.c calls are stubbed: only the parsers run here.
 */
#include "../../../guest/agent/soak.c"

#include "tap.h"

void say(const char *fmt, ...) { (void)fmt; }
void say_result(bool ok, int number, const char *name)
{
    (void)ok; (void)number; (void)name;
}
char *read_file(const char *path) { (void)path; return NULL; }
int bad_value(void) { return -1; }
long long monotonic_us(void) { return 0; }
int kmsg_open(void) { return -1; }
void kmsg_print_new(int fd) { (void)fd; }
bool insmod_facts(const char *name) { (void)name; return false; }
int rmmod_facts(const char *name) { (void)name; return ENOENT; }
bool net_link_up(const struct net_opts *opts) { (void)opts; return false; }
bool net_dhcp_lease(const struct net_opts *opts)
{
    (void)opts;
    return false;
}
int net_start_stream(unsigned int port, pid_t *writer)
{
    (void)port; (void)writer;
    return -1;
}
long long net_wait_iface_state(const char *ifname, bool present)
{
    (void)ifname; (void)present;
    return -1;
}

static void parse_full(void)
{
    struct soak_opts o = { 0 };

    CHECK(soak_parse("600:4000:4001:12", &o));
    CHECK(o.seconds == 600 && o.port == 4000 && o.unplug_port == 4001 &&
          o.cycles == 12);
    CHECK(soak_parse("90:4000", &o));
    CHECK(o.seconds == 90 && o.port == 4000 && o.unplug_port == 0 &&
          o.cycles == 0);
    CHECK(soak_parse("90:4000:0:0", &o));
    CHECK(o.unplug_port == 0 && o.cycles == 0);
}

static void parse_bad(void)
{
    struct soak_opts o = { 0 };
    static const char *const bad[] = {
        "", "600", "0:4000", "600:0", "600:70000", "600:4000:", "x:1",
        "600:4000:4001:12:1", "600:-1", "600 :4000", "90000:4000",
        "600:4000:4001:200000",
    };
    size_t i;

    CHECK(!soak_parse(NULL, &o));
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (soak_parse(bad[i], &o))
            printf("#   accepted '%s'\n", bad[i]);
        CHECK(!soak_parse(bad[i], &o));
    }
}

static void meminfo(void)
{
    const char *text = "MemTotal:         500000 kB\n"
                       "MemFree:          480000 kB\n"
                       "MemAvailable:     488364 kB\n"
                       "Slab:               3404 kB\n"
                       "SReclaimable:          0 kB\n"
                       "SUnreclaim:         3404 kB\n"
                       "VmallocUsed:         508 kB\n";

    CHECK(soak_meminfo_kb(text, "MemAvailable") == 488364);
    CHECK(soak_meminfo_kb(text, "Slab") == 3404);
    CHECK(soak_meminfo_kb(text, "SUnreclaim") == 3404);
    CHECK(soak_meminfo_kb(text, "VmallocUsed") == 508);
    CHECK(soak_meminfo_kb(text, "Mem") == -1);
    CHECK(soak_meminfo_kb(text, "Percpu") == -1);
    CHECK(soak_meminfo_kb(NULL, "Slab") == -1);
}

int main(void)
{
    TEST(parse_full);
    TEST(parse_bad);
    TEST(meminfo);
    return tap_done();
}
