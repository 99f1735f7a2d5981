/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's sampler (guest/agent/profile.c) without a kernel: its
 * parameter, /proc/kallsyms lines, the symbol an address falls in, the
 * records of a perf ring that wraps, and the tally into places and rows.
 */
#include "../../../guest/agent/profile.c"

#include "tap.h"

void say(const char *fmt, ...) { (void)fmt; }

static void test_hz(void)
{
    unsigned int hz = 0;

    CHECK(profile_parse_hz("250", &hz) == 0 && hz == 250);
    CHECK(profile_parse_hz("10000", &hz) == 0 && hz == 10000);
    CHECK(profile_parse_hz("10001", &hz) < 0);
    CHECK(profile_parse_hz("0", &hz) < 0);
    CHECK(profile_parse_hz("", &hz) < 0);
    CHECK(profile_parse_hz(NULL, &hz) < 0);
    CHECK(profile_parse_hz("99x", &hz) < 0);
}

static void test_kallsyms_line(void)
{
    struct profile_sym s;

    CHECK(profile_kallsyms_line("ffffffff81000000 T _stext\n", &s));
    CHECK(s.addr == 0xffffffff81000000ull);
    CHECK_STR(s.name, "_stext");
    CHECK_STR(s.module, "");
    CHECK(profile_kallsyms_line(
        "ffffffffa0001230 t ndis_tx_work\t[ndiswrapper]\n", &s));
    CHECK(s.addr == 0xffffffffa0001230ull);
    CHECK_STR(s.name, "ndis_tx_work");
    CHECK_STR(s.module, "ndiswrapper");
    CHECK(profile_kallsyms_line("c1000000 W weak_fn\n", &s));
    CHECK_STR(s.name, "weak_fn");
    /* data, bss and absolute symbols are not code */
    CHECK(!profile_kallsyms_line("ffffffff82000000 D jiffies\n", &s));
    CHECK(!profile_kallsyms_line("ffffffff82000000 b buf\t[e1000]\n", &s));
    CHECK(!profile_kallsyms_line("0000000000000000 A fixed_percpu\n", &s));
    CHECK(!profile_kallsyms_line("garbage\n", &s));
    CHECK(!profile_kallsyms_line("ffffffff81000000 T\n", &s));
}

static struct profile_sym syms[] = {
    { 0xffffffff81000300ull, "b_fn", "" },
    { 0xffffffff81000100ull, "a_fn", "" },
    { 0xffffffffa0000000ull, "ndis_tx_work", "ndiswrapper" },
};

static void test_lookup(void)
{
    profile_sort(syms, 3);
    CHECK_STR(syms[0].name, "a_fn");
    CHECK(profile_lookup(syms, 3, 0xffffffff81000000ull) == -1);
    CHECK(profile_lookup(syms, 3, 0xffffffff81000100ull) == 0);
    CHECK(profile_lookup(syms, 3, 0xffffffff810002ffull) == 0);
    CHECK(profile_lookup(syms, 3, 0xffffffff81000300ull) == 1);
    CHECK(profile_lookup(syms, 3, 0xffffffffa0000010ull) == 2);
    /* past the last symbol's reach, and vmalloc below every symbol */
    CHECK(profile_lookup(syms, 3, 0xffffffffa0000000ull +
                         PROFILE_SYM_REACH + 1) == -1);
    CHECK(profile_lookup(syms, 3, 0xffffc90000001000ull) == -1);
    CHECK(profile_lookup(syms, 0, 0xffffffff81000100ull) == -1);
}

/* Writes one record at *pos of a ring of `size` bytes, wrapping. */
static void put(uint8_t *ring, size_t size, uint64_t *pos, uint32_t type,
                uint16_t misc, const uint64_t *words, size_t n_words)
{
    struct perf_event_header h = { type, misc,
                                   (uint16_t)(sizeof(h) + 8 * n_words) };
    size_t i;

    for (i = 0; i < sizeof(h); i++)
        ring[(*pos + i) % size] = ((uint8_t *)&h)[i];
    for (i = 0; i < 8 * n_words; i++)
        ring[(*pos + sizeof(h) + i) % size] = ((const uint8_t *)words)[i];
    *pos += h.size;
}

static void test_ring(void)
{
    uint8_t ring[64];
    struct profile_ip ips[8];
    uint64_t start = 1000 * 64 - 12, pos = start, lost = 0;
    uint64_t k = 0xffffffff81000123ull, u = 0x401000, lost_w[2] = { 7, 5 };
    size_t n;

    memset(ring, 0xee, sizeof(ring));
    /* the first sample straddles the wrap */
    put(ring, sizeof(ring), &pos, PERF_RECORD_SAMPLE,
        PERF_RECORD_MISC_KERNEL, &k, 1);
    put(ring, sizeof(ring), &pos, PERF_RECORD_LOST, 0, lost_w, 2);
    put(ring, sizeof(ring), &pos, PERF_RECORD_SAMPLE,
        PERF_RECORD_MISC_USER, &u, 1);
    n = profile_ring_samples(ring, sizeof(ring), start, pos, ips, 8, &lost);
    CHECK(n == 2);
    CHECK(ips[0].ip == k && !ips[0].user);
    CHECK(ips[1].ip == u && ips[1].user);
    CHECK(lost == 5);
    /* a head inside the last record: that record is not read */
    lost = 0;
    n = profile_ring_samples(ring, sizeof(ring), start, pos - 4, ips, 8,
                             &lost);
    CHECK(n == 1 && lost == 5);
    /* no room: the samples past max are not written */
    lost = 0;
    n = profile_ring_samples(ring, sizeof(ring), start, pos, ips, 1, &lost);
    CHECK(n == 1 && ips[0].ip == k);
}

static void test_tally(void)
{
    struct profile_ip ips[] = {
        { 0xffffffff81000110ull, false }, { 0xffffffff81000120ull, false },
        { 0xffffffff81000130ull, false }, { 0xffffffffa0000004ull, false },
        { 0xffffffffa0000008ull, false }, { 0x401000, true },
        { 0xffffc90000001000ull, false },
    };
    struct profile_row where[PROFILE_WHERE_MAX], rows[16];
    size_t n_where = 0, n;

    profile_sort(syms, 3);
    n = profile_tally(ips, 7, syms, 3, where, &n_where, rows, 16);
    CHECK(n == 4);
    CHECK(n_where == 4);
    CHECK_STR(where[0].name, "kernel");
    CHECK(where[0].samples == 3);
    CHECK_STR(where[1].name, "ndiswrapper");
    CHECK(where[1].samples == 2);
    CHECK_STR(where[2].name, "no symbol");
    CHECK_STR(where[3].name, "user");
    CHECK_STR(rows[0].name, "a_fn");
    CHECK(rows[0].samples == 3);
    CHECK_STR(rows[1].name, "ndis_tx_work");
    CHECK_STR(rows[1].module, "ndiswrapper");
    CHECK_STR(rows[2].name, "[no symbol]");
    CHECK_STR(rows[3].name, "[user]");
    CHECK(rows[3].samples == 1);
    /* the rows end at max_rows: the heaviest are kept */
    CHECK(profile_tally(ips, 7, syms, 3, where, &n_where, rows, 2) == 2);
    CHECK_STR(rows[0].name, "a_fn");
    CHECK_STR(rows[1].name, "ndis_tx_work");
    /* ... whatever their place in the symbol table */
    CHECK(profile_tally(ips + 4, 3, syms, 3, where, &n_where, rows, 1) == 1);
    CHECK(profile_tally(ips + 5, 2, syms, 3, where, &n_where, rows, 1) == 1);
    {
        struct profile_ip far[] = {
            { 0xffffffff81000110ull, false },
            { 0xffffc90000001000ull, false },
            { 0xffffc90000002000ull, false },
        };

        CHECK(profile_tally(far, 3, syms, 3, where, &n_where, rows, 1) == 1);
        CHECK_STR(rows[0].name, "[no symbol]");
        CHECK(rows[0].samples == 2);
    }
}

static void test_vmalloc_line(void)
{
    struct profile_region r;

    CHECK(profile_vmalloc_line("0xffffc90000200000-0xffffc9000021f000  "
                               "126976 ndis_map_image+0x8c/0x1e0 "
                               "[ndiswrapper] pages=30 vmap\n", &r));
    CHECK(r.start == 0xffffc90000200000ull);
    CHECK(r.end == 0xffffc9000021f000ull);
    CHECK_STR(r.caller, "ndis_map_image [ndiswrapper]");
    CHECK(profile_vmalloc_line("0xffffc90000000000-0xffffc90000005000   "
                               "20480 irq_init_percpu_irqstack+0xed/0x120 "
                               "vmap\n", &r));
    CHECK_STR(r.caller, "irq_init_percpu_irqstack");
    /* no caller printed, an empty or inverted range, garbage */
    CHECK(!profile_vmalloc_line("0xffffc90000000000-0xffffc90000005000   "
                                "20480 pages=4 vmalloc\n", &r));
    CHECK(!profile_vmalloc_line("0xffffc90000005000-0xffffc90000005000   "
                                "0 f+0x1/0x2 vmap\n", &r));
    CHECK(!profile_vmalloc_line("none\n", &r));
}

static void test_nosym_rows(void)
{
    struct profile_region regions[] = {
        { 0xffffc90000100000ull, 0xffffc90000104000ull, "stack" },
        { 0xffffc90000200000ull, 0xffffc9000021f000ull,
          "ndis_map_image [ndiswrapper]" },
    };
    struct profile_ip ips[] = {
        { 0xffffc90000211a43ull, false }, { 0xffffc90000211a4full, false },
        { 0xffffc90000211a50ull, false }, { 0xffffc90000211a44ull, false },
        { 0xffffc90000300000ull, false },       /* in no region */
        { 0xffffffff81000110ull, false },       /* a symbol's */
        { 0x401000, true },
    };
    struct profile_row rows[4];
    size_t n;

    profile_sort(syms, 3);
    n = profile_nosym_rows(ips, 7, syms, 3, regions, 2, rows, 4);
    CHECK(n == 3);
    CHECK_STR(rows[0].name, "ndis_map_image [ndiswrapper]+0x11a40");
    CHECK(rows[0].samples == 3);
    /* ties by address */
    CHECK_STR(rows[1].name, "ndis_map_image [ndiswrapper]+0x11a50");
    CHECK_STR(rows[2].name, "0xffffc90000300000");
    CHECK(profile_nosym_rows(ips, 7, syms, 3, regions, 2, rows, 1) == 1);
    CHECK(profile_nosym_rows(ips + 5, 2, syms, 3, regions, 2, rows, 4) == 0);
}

int main(void)
{
    TEST(test_hz);
    TEST(test_kallsyms_line);
    TEST(test_lookup);
    TEST(test_ring);
    TEST(test_tally);
    TEST(test_vmalloc_line);
    TEST(test_nosym_rows);
    return tap_done();
}
