/*
 * QTest-driven fuzzer for the ndisbench device models
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A seeded PRNG drives random guest actions, interleaved with steps of
 * the virtual clock, against two radios of one model on a faulty air with
 * an access point (whose frame parser the radios feed random frames) and
 * a link to another air that the fuzzer plays (wlan-air link-listen=):
 *
 * - bcm43xx, on pc or on q35 (the e2e machine), each radio with or
 *   without the memory core's reentrancy guard (x-reentrancy-guard):
 *   MMIO reads and writes (registers, SPROM, any offset and width), DMA
 *   rings with random bases, sizes and indexes, descriptors with random
 *   control bits, byte counts and addresses (guest RAM, its last bytes,
 *   either radio's registers, MMCONFIG, nothing at all, 64-bit
 *   wrap-around), bus mastering toggled, MSI on and off with addresses
 *   that are the APIC, either radio's registers (INT_STATUS, the
 *   doorbells, RINGSIZE...), MMCONFIG or anything, and random data;
 * - usb-rtl8187, on pc (one on UHCI, one on EHCI, one hot-plugged) or on
 *   q35 with qemu-xhci (the e2e machine: all three on xHCI,
 *   ndisbench-xhci.h): control requests of any type and length, register
 *   writes that bit-bang garbage into the 93c46 and RTL8225 lines, bulk
 *   OUT of any length with random TX headers, bulk IN of any length on
 *   any endpoint, port resets, hot-unplug and replug;
 * - the air: its fault rates, delay and jitter changed at run time;
 * - the link: datagrams from the fuzzer's end, mostly well-formed with
 *   the run's token and a random 802.11 frame, else with bytes flipped,
 *   cut short or padded, a wrong token, a bad FCS or channel, or from
 *   another local port;
 * - wlan-ap: beside the radios an open AP and a WPA2 one (random frames
 *   to either, association requests with RSN elements, right or not,
 *   EAPOL-Key frames shaped like a supplicant's to its authenticator,
 *   data frames with a CCMP header; it changes its group key every
 *   second);
 *   alone on the air, its clock stepped, its channel and SSID
 *   visibility changed;
 * - migration: every seed ends with the VM saved, the device model's
 *   (or the AP's) section of the stream mutated (bytes flipped, fields set to edge
 *   values) and loaded into new QEMUs: each must refuse it (exit status
 *   1) or load it and keep running while beacons arrive, the radios'
 *   doorbells ring and their registers are read.
 *
 * The machine, the guards and everything else follow from the seed. The
 * test fails if QEMU aborts, asserts, crashes or stops answering (a
 * watchdog aborts a test that makes no progress). Environment:
 *   NDISBENCH_FUZZ_SEED   first seed (default: a fresh random one, printed)
 *   NDISBENCH_FUZZ_ITERS  actions per seed (default: a few seconds)
 *   NDISBENCH_FUZZ_RUNS   seeds to run, one QEMU each (default 1)
 *   NDISBENCH_FUZZ_MUTANTS mutated migration streams per seed (default 2)
 * The seed and the action count are printed (# lines of the TAP log); a
 * failure is replayed by running that seed alone (NDISBENCH_FUZZ_SEED=N,
 * or tests/qtest/fuzz.py --seed N). Link datagrams arrive while QEMU
 * runs, so where they fall between the actions can differ on a replay.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/sockets.h"
#include "libqtest.h"
#include "qapi/qmp/qdict.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/ndisbench/include/bcm43xx_regs.h"
#include "hw/ndisbench/include/rtl8187_regs.h"
#include "ndisbench-qtest.h"
#include "ndisbench-usb.h"
#include "ndisbench-xhci.h"

#define RAM_SIZE        (64 * 1024 * 1024)
#define WATCHDOG_S      60
#define Q35_MMCONFIG    0xb0000000ull   /* q35's PCIe ECAM window */

typedef struct Fuzz {
    uint64_t rng;
    uint64_t seed;
    uint64_t ops;
    const char *what;
} Fuzz;

static Fuzz *cur;

static void watchdog(int sig)
{
    fprintf(stderr, "fuzz %s: seed %" PRIu64 ": no progress for %d s after "
            "%" PRIu64 " actions: QEMU hangs\n", cur ? cur->what : "?",
            cur ? cur->seed : 0, WATCHDOG_S, cur ? cur->ops : 0);
    kill_qemu_children();
    abort();
}

/* One action done: the watchdog starts again. */
static void tick(Fuzz *f)
{
    f->ops++;
    alarm(WATCHDOG_S);
}

static uint64_t rnd(Fuzz *f)
{
    uint64_t z = (f->rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t below(Fuzz *f, uint32_t n)
{
    return n ? rnd(f) % n : 0;
}

static bool chance(Fuzz *f, unsigned pct)
{
    return below(f, 100) < pct;
}

/* A 32-bit value a fuzzer finds interesting: edges, small, random. */
static uint32_t value32(Fuzz *f)
{
    static const uint32_t edges[] = {
        0, 1, 2, 3, 4, 0x7f, 0x80, 0xff, 0x100, 0x1ff, 0x200, 0x201,
        0x7ff, 0x800, 0x92a, 0x92b, 0xfff, 0x1000, 0x1fff, 0x2000,
        0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
    };

    switch (below(f, 4)) {
    case 0:
        return edges[below(f, ARRAY_SIZE(edges))];
    case 1:
        return below(f, 16);
    case 2:
        return 1u << below(f, 32);
    default:
        return rnd(f);
    }
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *s = g_getenv(name);

    return s && *s ? g_ascii_strtoull(s, NULL, 0) : dflt;
}

/*
 * Random 802.11 frames: mostly well-formed headers, random bodies, to the
 * open AP or the WPA2 one beside it (WPA2_AP), whose association requests
 * often carry an RSN element, well-formed or not.
 */
static const uint8_t ap_bssid[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x00 };
static const uint8_t wpa2_bssid[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x01 };
#define WPA2_AP "-object wlan-ap,id=ap1,air=air0,channel=1," \
                "bssid=02:00:00:00:01:01,passphrase=fuzzing-wpa2," \
                "group-rekey=1 "

/* An RSN element at buf (room for 2 + 20 bytes): the right suite, or not. */
static void random_rsn(Fuzz *f, uint8_t *buf)
{
    static const uint8_t good[] = {
        48, 20, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 4,
        1, 0, 0x00, 0x0f, 0xac, 2, 0, 0,
    };

    memcpy(buf, good, sizeof(good));
    while (chance(f, 50)) {
        buf[1 + below(f, sizeof(good) - 1)] = chance(f, 50) ? rnd(f)
                                                            : below(f, 6);
    }
}

/*
 * The body of a data frame to the WPA2 AP's authenticator, at buf (room
 * bytes): LLC/SNAP, EAPOL and an EAPOL-Key descriptor shaped like a
 * supplicant's message 2 or 4 or group message 2 (or any key info), its
 * lengths mostly right, its key data an RSN element or garbage; the MIC
 * cannot be right, so the AP's MIC checks and the paths before them run.
 * Returns the length written.
 */
static size_t random_eapol(Fuzz *f, uint8_t *buf, size_t room)
{
    static const uint16_t key_infos[] = { 0x010a, 0x030a, 0x0302, 0x008a };
    static const uint8_t snap[] = { 0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00,
                                    0x88, 0x8e };
    uint8_t *e = buf + sizeof(snap), *k = e + 4;
    size_t kd_len = chance(f, 50) ? 22 : below(f, 64);
    size_t len = sizeof(snap) + 4 + 95 + kd_len, i;

    if (room < len) {
        return 0;
    }
    memcpy(buf, snap, sizeof(snap));
    for (i = sizeof(snap); i < len; i++) {
        buf[i] = rnd(f);
    }
    e[0] = 1 + below(f, 2);
    e[1] = chance(f, 90) ? 3 : rnd(f);
    stw_be_p(e + 2, chance(f, 80) ? 95 + kd_len : value32(f));
    k[0] = chance(f, 90) ? 2 : rnd(f);
    stw_be_p(k + 1, chance(f, 80) ? key_infos[below(f, 4)] : value32(f));
    stq_be_p(k + 5, chance(f, 80) ? 1 + below(f, 4) : rnd(f));
    stw_be_p(k + 93, chance(f, 80) ? kd_len : value32(f));
    if (kd_len == 22) {
        random_rsn(f, k + 95);
    }
    return len;
}

/*
 * A station's way into the WPA2 AP's authenticator, one step at random:
 * open authentication, an association request with the right RSN element
 * (mostly), or a data frame with EAPOL or a CCMP header. Random frames
 * alone seldom get a station that far. 0 when max has no room.
 */
static size_t wpa2_step(Fuzz *f, uint8_t *buf, size_t max,
                        const uint8_t *self)
{
    static const uint8_t ssid[] = { 0, 9, 'n', 'd', 'i', 's', 'b', 'e', 'n',
                                    'c', 'h' };
    size_t len = 24;

    if (max < 24 + 4 + sizeof(ssid) + 22) {
        return 0;
    }
    memset(buf, 0, 24);
    memcpy(buf + 4, wpa2_bssid, 6);
    memcpy(buf + 10, self, 6);
    memcpy(buf + 16, wpa2_bssid, 6);
    stw_le_p(buf + 22, below(f, 4096) << 4);
    switch (below(f, 4)) {
    case 0:                                     /* open, seq 1 */
        buf[0] = 0xb0;
        memcpy(buf + 24, "\0\0\1\0\0\0", 6);
        return 30;
    case 1:
        buf[0] = 0x00;
        memcpy(buf + 24, "\x11\0\x0a\0", 4);
        memcpy(buf + 28, ssid, sizeof(ssid));
        random_rsn(f, buf + 28 + sizeof(ssid));
        return 28 + sizeof(ssid) + 22;     /* whatever its length says */
    default:
        buf[0] = 0x08;
        buf[1] = 0x01;                          /* ToDS */
        if (chance(f, 75)) {
            return len + random_eapol(f, buf + len, max - len);
        }
        len = MIN(max, len + 8 + 16 + below(f, 200));
        for (size_t i = 24; i < len; i++) {
            buf[i] = rnd(f);
        }
        buf[1] |= 0x40;                         /* Protected */
        buf[24 + 3] = 0x20;                     /* Ext IV, key id 0 */
        return len;
    }
}

static size_t random_frame(Fuzz *f, uint8_t *buf, size_t max,
                           const uint8_t *self)
{
    static const uint8_t fc0s[] = {
        0x00, 0x20, 0x40, 0xb0, 0xc0, 0xa0, 0x08, 0x88, 0x48, 0xc8,
        0x80, 0x50, 0xd4, 0xb4,
    };
    const uint8_t *bssid;
    size_t len, off;

    if (chance(f, 15) && (len = wpa2_step(f, buf, max, self))) {
        return len;
    }
    len = chance(f, 10) ? below(f, max + 1) : MIN(max, 24 + below(f, 300));
    for (off = 0; off < len; off++) {
        buf[off] = rnd(f);
    }
    if (len < 24 || chance(f, 10)) {
        return len;
    }
    buf[0] = fc0s[below(f, ARRAY_SIZE(fc0s))];
    buf[1] = chance(f, 50) ? (buf[0] & 0x0c) == 0x08 : value32(f);
    bssid = chance(f, 30) ? wpa2_bssid : ap_bssid;
    memcpy(buf + 4, chance(f, 70) ? bssid :
           (const uint8_t *)"\xff\xff\xff\xff\xff\xff", 6);
    memcpy(buf + 10, self, 6);
    if (chance(f, 20)) {
        /* another station: fills the AP's table (32) */
        buf[10] = 0x02;
        buf[15] = below(f, 40);
    }
    memcpy(buf + 16, bssid, 6);
    if (buf[0] == 0xb0 && len >= 30) {          /* auth: open, seq 1 */
        stw_le_p(buf + 24, chance(f, 80) ? 0 : value32(f));
        stw_le_p(buf + 26, chance(f, 80) ? 1 : value32(f));
    }
    /* IEs after the fixed fields: random ids, lengths often too long */
    off = buf[0] == 0x40 ? 24 : buf[0] == 0x00 ? 28 : buf[0] == 0x20 ? 34
                                                                      : len;
    while (off + 2 <= len && chance(f, 90)) {
        uint8_t id = chance(f, 60) ? below(f, 4) : rnd(f);
        uint8_t ie_len = chance(f, 80) ? below(f, 40) : rnd(f);

        buf[off] = id;
        buf[off + 1] = ie_len;
        if (id == 0 && chance(f, 50) && off + 2 + 9 <= len) {
            buf[off + 1] = 9;
            memcpy(buf + off + 2, "ndisbench", 9);
            ie_len = 9;
        } else if (chance(f, 20) && off + 2 + 20 <= len) {
            random_rsn(f, buf + off);
            ie_len = buf[off + 1];
        }
        off += 2 + ie_len;
    }
    if ((buf[0] == 0x08 || buf[0] == 0x88) && len >= 26 && chance(f, 40)) {
        /* a data frame: EAPOL for the authenticator, or a CCMP header */
        off = buf[0] == 0x88 ? 26 : 24;
        if (chance(f, 70)) {
            len = MAX(len, off + random_eapol(f, buf + off, max - off));
        } else if (off + 16 <= len) {
            buf[1] |= 0x40;                     /* Protected */
            buf[off + 3] = 0x20 | (chance(f, 80) ? 0 : rnd(f) & 0xc0);
        }
    }
    return len;
}

static void air_knobs(Fuzz *f, QTestState *qts)
{
    static const char *const rates[] = { "drop", "corrupt", "duplicate" };

    if (chance(f, 70)) {
        air_set(qts, rates[below(f, 3)],
                chance(f, 20) ? 10000 : chance(f, 50) ? 0 : below(f, 3000));
    } else {
        air_set(qts, chance(f, 50) ? "delay-us" : "jitter-us",
                chance(f, 50) ? 0 : below(f, chance(f, 10) ? 1000001
                                                           : 20000));
    }
}

static void clock_step(Fuzz *f, QTestState *qts)
{
    static const int64_t steps[] = {
        0, 1000, 100000, 1000000, 10000000, 102400000, 500000000,
    };

    qtest_clock_step(qts, steps[below(f, ARRAY_SIZE(steps))] +
                          below(f, 1000000));
}

/* ---- the link: the fuzzer as the other air ---------------------------- */

#define LINK_HDR_LEN    32
#define LINK_TOKEN_LEN  16

typedef struct Link {
    uint16_t port;
    int fd;                     /* the peer: its hello came first */
    int evil;                   /* another local port */
    uint8_t token[LINK_TOKEN_LEN];
    char hex[2 * LINK_TOKEN_LEN + 1];
} Link;

static int link_socket(uint16_t port)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                             .sin_port = htons(port) };
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    g_assert(fd >= 0);
    g_assert(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    qemu_socket_set_nonblock(fd);
    return fd;
}

static size_t link_dgram(uint8_t *buf, uint8_t type, uint8_t channel,
                         int8_t rssi, uint32_t fcs, const uint8_t *frame,
                         size_t len, const uint8_t *token)
{
    stl_be_p(buf, 0x4e42414c);
    buf[4] = 2;
    buf[5] = type;
    buf[6] = channel;
    buf[7] = rssi;
    stw_be_p(buf + 8, len);
    stw_be_p(buf + 10, 0);
    stl_be_p(buf + 12, fcs);
    memcpy(buf + 16, token, LINK_TOKEN_LEN);
    memcpy(buf + LINK_HDR_LEN, frame, len);
    return LINK_HDR_LEN + len;
}

/* A port and a token for the air's link-listen=, link-token=. */
static void link_init(Fuzz *f, Link *l)
{
    int i;

    l->port = free_udp_port();
    for (i = 0; i < LINK_TOKEN_LEN; i++) {
        l->token[i] = rnd(f);
        sprintf(l->hex + 2 * i, "%02x", l->token[i]);
    }
}

/* QEMU is up: say hello first, so that our port is the peer. */
static void link_start(Link *l)
{
    uint8_t buf[LINK_HDR_LEN];

    l->fd = link_socket(l->port);
    l->evil = link_socket(l->port);
    send(l->fd, buf, link_dgram(buf, 1, 0, 0, 0, NULL, 0, l->token), 0);
}

static void link_stop(Link *l)
{
    close(l->fd);
    close(l->evil);
}

/*
 * One datagram: mostly a well-formed frame with the run's token, else
 * with faults; whatever the air sent us meanwhile is read and dropped.
 */
static void link_fuzz(Fuzz *f, Link *l, const uint8_t *mac)
{
    uint8_t frame[2346], buf[LINK_HDR_LEN + 2400], tok[LINK_TOKEN_LEN];
    size_t flen = MAX(random_frame(f, frame, sizeof(frame), mac), 1);
    uint8_t channel = chance(f, 80) ? 1 : below(f, 20);
    uint32_t fcs = chance(f, 90) ? fcs32(frame, flen) : rnd(f);
    size_t n, i;

    memcpy(tok, l->token, sizeof(tok));
    if (chance(f, 5)) {
        tok[below(f, sizeof(tok))] ^= 1 << below(f, 8);
    }
    n = link_dgram(buf, chance(f, 95) ? 0 : below(f, 4), channel, -50,
                   fcs, frame, flen, tok);
    switch (below(f, 10)) {
    case 0:                     /* bytes flipped anywhere */
        for (i = 1 + below(f, 4); i; i--) {
            buf[below(f, n)] ^= 1 << below(f, 8);
        }
        break;
    case 1:                     /* cut short, or padded */
        n = chance(f, 50) ? below(f, n) : MIN(n + 1 + below(f, 64),
                                              sizeof(buf));
        break;
    default:
        break;
    }
    send(chance(f, 95) ? l->fd : l->evil, buf, n, 0);
    while (recv(l->fd, buf, sizeof(buf), 0) > 0) {
        ;
    }
}

/* ---- migration streams ------------------------------------------------- */

/*
 * The fields of the (n-th) section whose idstr ends with @suffix in a
 * stream: [*start, *end), up to its footer. A section is 0x04, its id
 * (be32), the idstr's length and the idstr, instance and version ids
 * (be32 each), the fields, then 0x7e and the id again.
 */
static bool stream_section(const uint8_t *data, size_t size,
                           const char *suffix, int nth, size_t *start,
                           size_t *end)
{
    size_t slen = strlen(suffix), off = 0;
    const uint8_t *p, *footer;
    uint8_t pattern[5];

    while ((p = memmem(data + off, size - off, suffix, slen))) {
        size_t at = p - data;

        off = at + 1;
        for (size_t len = slen; len < 256 && len <= at + slen; len++) {
            size_t id = at + slen - len;     /* where the idstr begins */

            if (id < 6 || data[id - 1] != len || data[id - 6] != 0x04) {
                continue;
            }
            if (nth-- > 0) {
                break;
            }
            pattern[0] = 0x7e;
            memcpy(pattern + 1, data + id - 5, 4);
            *start = id + len + 8;
            footer = memmem(data + *start, size - *start, pattern, 5);
            if (!footer) {
                return false;
            }
            *end = footer - data;
            return true;
        }
    }
    return false;
}

/*
 * 1..4 changes to the last @ours bytes of [start, end) (the model's own
 * fields), or (@anywhere) to any byte of the section: a bit flipped, a
 * byte replaced, a 32-bit field set to an edge value.
 */
static void stream_mutate(Fuzz *f, uint8_t *data, size_t start, size_t end,
                          size_t ours, bool anywhere)
{
    int n = 1 + below(f, 4);

    if (end - start < ours) {
        ours = end - start;
    }
    while (n--) {
        size_t lo = anywhere && chance(f, 20) ? start : end - ours;
        size_t pos = lo + below(f, end - lo);

        switch (below(f, 3)) {
        case 0:
            data[pos] ^= 1 << below(f, 8);
            break;
        case 1:
            data[pos] = rnd(f);
            break;
        default:
            pos = end - ours + ((pos - (end - ours)) & ~(size_t)3);
            if (pos >= end - ours && pos + 4 <= end) {
                stl_be_p(data + pos, value32(f));
            }
            break;
        }
    }
}

typedef void StreamCheck(Fuzz *f, QTestState *qts, void *opaque);

/*
 * Save the VM (it runs on afterwards), then load @mutants mutated copies
 * of it into new QEMUs started with @dest_args: each one is refused (the
 * destination exits with status 1) or loads, and then @check runs on it.
 * A crash fails the test (load_stream).
 */
static void fuzz_migration(Fuzz *f, QTestState *qts, const char *dest_args,
                           const char *suffix, int sections, size_t ours,
                           bool anywhere, StreamCheck *check, void *opaque)
{
    char *dir = stream_dir_new();
    g_autofree char *path = g_build_filename(dir, "saved.mig", NULL);
    g_autofree char *mutant = g_strdup_printf("%s.mutant", path);
    uint64_t mutants = env_u64("NDISBENCH_FUZZ_MUTANTS", 2);
    g_autofree gchar *data = NULL;
    gsize size;
    int loaded = 0, refused = 0;
    uint64_t m;

    qtest_qmp_assert_success(qts, "{'execute': 'stop'}");
    migrate_to_file(qts, path);
    qtest_qmp_assert_success(qts, "{'execute': 'cont'}");
    g_assert(g_file_get_contents(path, &data, &size, NULL));
    for (m = 0; m < mutants; m++) {
        g_autofree gchar *copy = g_memdup2(data, size);
        size_t start, end;
        QTestState *dst;

        if (!stream_section((uint8_t *)copy, size, suffix,
                            below(f, sections), &start, &end)) {
            g_error("fuzz %s: no %s section in the stream", f->what,
                    suffix);
        }
        stream_mutate(f, (uint8_t *)copy, start, end, ours, anywhere);
        g_assert(g_file_set_contents(mutant, copy, size, NULL));
        dst = load_stream(dest_args, mutant);
        tick(f);
        if (!dst) {
            refused++;
            continue;
        }
        loaded++;
        check(f, dst, opaque);
        qtest_quit(dst);
        tick(f);
    }
    g_test_message("fuzz %s: seed %" PRIu64 ": %" PRIu64 " mutated "
                   "migration streams, %d loaded, %d refused", f->what,
                   f->seed, mutants, loaded, refused);
    stream_dir_free(dir);
}

/* ---- bcm43xx ---------------------------------------------------------- */

#define BCM_RINGS       0x100000        /* 0x100000..0x1fffff: rings */
#define BCM_BUFS        0x200000        /* 0x200000..0x3fffff: buffers */

typedef struct BcmDev {
    QPCIDevice *dev;
    QPCIBar bar;
    uint64_t bar_addr;
    int devfn;
    uint8_t mac[6];
    uint64_t ring[2];           /* what we last programmed */
    uint32_t ringsize[2];
} BcmDev;

typedef struct BcmFuzz {
    Fuzz f;
    QTestState *qts;
    QPCIBus *bus;
    bool q35;
    BcmDev d[2];
    Link link;
} BcmFuzz;

/* Registers a stray MSI or DMA is most likely to hurt. */
static uint32_t bcm_reg(Fuzz *f)
{
    static const uint32_t regs[] = {
        BCM43XX_REG_CTRL, BCM43XX_REG_CHANNEL, BCM43XX_REG_INT_STATUS,
        BCM43XX_REG_INT_MASK,
        BCM43XX_DMA_TX_BASE + BCM43XX_DMA_CTL,
        BCM43XX_DMA_TX_BASE + BCM43XX_DMA_INDEX,
        BCM43XX_DMA_TX_BASE + BCM43XX_DMA_RINGLO,
        BCM43XX_DMA_TX_BASE + BCM43XX_DMA_RINGSIZE,
        BCM43XX_DMA_RX_BASE + BCM43XX_DMA_CTL,
        BCM43XX_DMA_RX_BASE + BCM43XX_DMA_INDEX,
        BCM43XX_DMA_RX_BASE + BCM43XX_DMA_RINGSIZE,
    };

    return regs[below(f, ARRAY_SIZE(regs))];
}

/* Somewhere in a radio's registers, or its config space (q35 only). */
static uint64_t bcm_target(BcmFuzz *b)
{
    Fuzz *f = &b->f;
    BcmDev *d = &b->d[below(f, 2)];

    if (b->q35 && chance(f, 15)) {
        static const uint8_t cfg[] = {
            PCI_COMMAND, PCI_BASE_ADDRESS_0, 0x50, 0x54, 0x58, 0x5c,
        };

        return Q35_MMCONFIG + (d->devfn << 12) + cfg[below(f, sizeof(cfg))];
    }
    return d->bar_addr + (chance(f, 70) ? bcm_reg(f)
                                        : below(f, BCM43XX_MMIO_SIZE));
}

static void bcm_wr(BcmFuzz *b, BcmDev *d, uint32_t reg, uint32_t val)
{
    qpci_io_writel(d->dev, d->bar, reg, val);
}

/* An address for DMA: usually sane, sometimes anything but. */
static uint64_t bcm_addr(BcmFuzz *b, uint32_t len)
{
    Fuzz *f = &b->f;

    switch (below(f, 12)) {
    case 0:
        return RAM_SIZE - below(f, len + 16);   /* straddles the end */
    case 1:
        return 0x40000000ull + below(f, 0x1000);    /* nothing there */
    case 2:
        return bcm_target(b);
    case 3:
        return 0xfffffffffffff000ull + below(f, 0x1000);   /* wraps */
    case 4:
        return ((uint64_t)rnd(f) << 32) | (uint32_t)rnd(f);
    case 5:
        return below(f, 0x1000);                /* low RAM */
    default:
        return BCM_BUFS + below(f, 0x200000 - 0x2000);
    }
}

static void bcm_ring(BcmFuzz *b, BcmDev *d, int n)
{
    Fuzz *f = &b->f;
    uint32_t base = n ? BCM43XX_DMA_RX_BASE : BCM43XX_DMA_TX_BASE;
    uint32_t size = chance(f, 80) ? 2 + below(f, 63) : value32(f);
    uint64_t ring = chance(f, 80) ? BCM_RINGS + below(f, 0xf0) * 0x1000
                                  : bcm_addr(b, size * 16);

    if (chance(f, 90)) {
        ring &= ~15ull;
    }
    if (chance(f, 70)) {
        bcm_wr(b, d, base + BCM43XX_DMA_CTL, 0);
    }
    bcm_wr(b, d, base + BCM43XX_DMA_RINGLO, ring);
    bcm_wr(b, d, base + BCM43XX_DMA_RINGHI, ring >> 32);
    bcm_wr(b, d, base + BCM43XX_DMA_RINGSIZE, size);
    bcm_wr(b, d, base + BCM43XX_DMA_INDEX, chance(f, 80) ? 0 : value32(f));
    bcm_wr(b, d, base + BCM43XX_DMA_CTL, chance(f, 90) ? 1 : value32(f));
    d->ring[n] = ring;
    d->ringsize[n] = size;
}

/* TX descriptor bits asking for a seal: a slot, mostly a real one. */
static uint32_t bcm_seal(Fuzz *f)
{
    uint32_t slot = chance(f, 80) ? below(f, BCM43XX_KEY_SLOTS)
                                  : below(f, 16);

    return BCM43XX_DCTL0_ENCRYPT | slot << BCM43XX_DCTL0_KEY_SHIFT;
}

/* Descriptors for the ring last programmed (in RAM or not). */
static void bcm_descs(BcmFuzz *b, BcmDev *d, int n)
{
    Fuzz *f = &b->f;
    uint32_t count = MIN(d->ringsize[n], 64), i;

    if (d->ring[n] < BCM_RINGS || d->ring[n] + count * 16 > BCM_BUFS) {
        return;                 /* not ours to write */
    }
    for (i = 0; i < count; i++) {
        uint32_t len = chance(f, 70) ? (n ? 2400 : 24 + below(f, 400))
                                     : value32(f);
        uint64_t addr = bcm_addr(b, len & 0x1fff);
        uint32_t ctl0 = chance(f, 70) ? BCM43XX_DCTL0_FRAMESTART |
                                        BCM43XX_DCTL0_FRAMEEND |
                                        BCM43XX_DCTL0_IRQ : value32(f);
        uint32_t desc[4];

        if (!n && chance(f, 20)) {
            ctl0 |= bcm_seal(f);
        }

        if (i == count - 1 && chance(f, 80)) {
            ctl0 |= BCM43XX_DCTL0_TABLEEND;
        }
        desc[0] = cpu_to_le32(ctl0);
        desc[1] = cpu_to_le32(len);
        desc[2] = cpu_to_le32(addr);
        desc[3] = cpu_to_le32(addr >> 32);
        qtest_memwrite(b->qts, d->ring[n] + i * 16, desc, sizeof(desc));
        /* a frame in the buffer, when the buffer is RAM we own */
        if (!n && addr >= BCM_BUFS && addr + 2400 < BCM_BUFS + 0x200000) {
            uint8_t frame[2400];
            size_t flen = random_frame(f, frame, MIN(sizeof(frame),
                                                     len & 0x1fff), d->mac);

            qtest_memwrite(b->qts, addr, frame, flen);
        }
    }
}

/*
 * A burst of well-formed frames on a sane TX ring: the air, the other
 * radio's RX path and the access point's parser get real traffic.
 */
static void bcm_tx_burst(BcmFuzz *b, BcmDev *d)
{
    Fuzz *f = &b->f;
    uint32_t size = 2 + below(f, 31), n = 1 + below(f, size - 1), i;
    uint64_t ring = BCM_RINGS + (d == &b->d[0] ? 0xf0000 : 0xf8000);
    uint8_t frame[2346];

    bcm_wr(b, d, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_CTL, 0);
    bcm_wr(b, d, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_RINGLO, ring);
    bcm_wr(b, d, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_RINGHI, 0);
    bcm_wr(b, d, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_RINGSIZE, size);
    bcm_wr(b, d, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_INDEX, 0);
    for (i = 0; i < n; i++) {
        uint64_t buf = BCM_BUFS + 0x100000 + i * 0x1000 +
                       (d == &b->d[0] ? 0 : 0x80000);
        size_t len = MAX(random_frame(f, frame, 2346, d->mac), 10);
        uint32_t desc[4] = {
            cpu_to_le32(BCM43XX_DCTL0_FRAMESTART | BCM43XX_DCTL0_FRAMEEND |
                        BCM43XX_DCTL0_IRQ |
                        (chance(f, 30) ? bcm_seal(f) : 0)),
            cpu_to_le32(len), cpu_to_le32(buf), 0,
        };

        qtest_memwrite(b->qts, buf, frame, len);
        qtest_memwrite(b->qts, ring + i * 16, desc, sizeof(desc));
    }
    bcm_wr(b, d, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_CTL, 1);
    bcm_wr(b, d, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_INDEX, n);
    d->ring[0] = ring;
    d->ringsize[0] = size;
}

/*
 * A key slot: usually a CCMP key for the other radio's address (or a
 * group key) so that sealed traffic between the two is opened, at times
 * a bad cipher, a cleared slot, a slot beyond the table, or junk.
 */
static void bcm_key(BcmFuzz *b, BcmDev *d)
{
    Fuzz *f = &b->f;
    BcmDev *peer = d == &b->d[0] ? &b->d[1] : &b->d[0];
    uint32_t slot = chance(f, 90) ? below(f, BCM43XX_KEY_SLOTS)
                                  : below(f, 16);
    uint32_t i;

    if (chance(f, 80)) {
        bcm_wr(b, d, BCM43XX_KEY_REG(slot, BCM43XX_KEY_ADDR_LO),
               ldl_le_p(peer->mac));
        bcm_wr(b, d, BCM43XX_KEY_REG(slot, BCM43XX_KEY_ADDR_HI),
               chance(f, 90) ? lduw_le_p(peer->mac + 4) : value32(f));
    }
    if (chance(f, 50)) {
        bcm_wr(b, d, BCM43XX_KEY_REG(slot, BCM43XX_KEY_RSC_LO),
               chance(f, 70) ? below(f, 4) : value32(f));
        bcm_wr(b, d, BCM43XX_KEY_REG(slot, BCM43XX_KEY_RSC_HI),
               chance(f, 80) ? 0 : value32(f));
    }
    for (i = 0; i < BCM43XX_KEY_TK_WORDS; i++) {
        /* the same key on both radios, mostly */
        bcm_wr(b, d, BCM43XX_KEY_REG(slot, BCM43XX_KEY_TK + 4 * i),
               chance(f, 90) ? 0x01020304u * (i + 1) : value32(f));
    }
    bcm_wr(b, d, BCM43XX_KEY_REG(slot, BCM43XX_KEY_CTL),
           chance(f, 70) ? BCM43XX_KEY_CIPHER_CCMP :
           chance(f, 50) ? BCM43XX_KEY_CIPHER_NONE : value32(f));
}

/* A working radio: the fuzzer needs real traffic to reach deep paths. */
static void bcm_sane(BcmFuzz *b, BcmDev *d)
{
    Fuzz *f = &b->f;

    /* an MSI into MMCONFIG may have moved the BAR or turned it off */
    qpci_config_writel(d->dev, PCI_BASE_ADDRESS_0, d->bar_addr);
    qpci_config_writew(d->dev, PCI_COMMAND,
                       qpci_config_readw(d->dev, PCI_COMMAND) |
                       PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
    bcm_wr(b, d, BCM43XX_REG_CTRL, BCM43XX_CTRL_RESET);
    bcm_wr(b, d, BCM43XX_REG_CHANNEL, chance(f, 80) ? 1 : 1 + below(f, 14));
    bcm_ring(b, d, 0);
    bcm_descs(b, d, 0);
    bcm_ring(b, d, 1);
    bcm_descs(b, d, 1);
    bcm_wr(b, d, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_INDEX,
           d->ringsize[1] ? below(f, d->ringsize[1]) : 0);
    bcm_wr(b, d, BCM43XX_REG_INT_MASK, value32(f));
    bcm_wr(b, d, BCM43XX_REG_CTRL, BCM43XX_CTRL_ENABLE |
           (chance(f, 30) ? BCM43XX_CTRL_PROMISC : 0) |
           (chance(f, 30) ? BCM43XX_CTRL_KEEP_BADFCS : 0) |
           (chance(f, 30) ? BCM43XX_CTRL_KEEP_BADCRYPT : 0));
}

static void bcm_mmio(BcmFuzz *b, BcmDev *d)
{
    static const uint32_t regs[] = {
        BCM43XX_REG_ID, BCM43XX_REG_CTRL, BCM43XX_REG_CHANNEL,
        BCM43XX_REG_MACADDR_LO, BCM43XX_REG_MACADDR_HI, BCM43XX_REG_TSF_LO,
        BCM43XX_REG_TSF_HI, BCM43XX_REG_INT_STATUS, BCM43XX_REG_INT_MASK,
    };
    Fuzz *f = &b->f;
    uint32_t off, val = value32(f);
    int size = 1 << below(f, 3);

    switch (below(f, 5)) {
    case 0:
        off = regs[below(f, ARRAY_SIZE(regs))];
        break;
    case 4:
        off = BCM43XX_KEY_BASE +
              below(f, BCM43XX_KEY_SLOTS * BCM43XX_KEY_STRIDE + 0x40);
        break;
    case 1:
        off = (chance(f, 50) ? BCM43XX_DMA_TX_BASE : BCM43XX_DMA_RX_BASE) +
              below(f, 0x20);
        break;
    case 2:
        off = BCM43XX_SPROM_BASE + below(f, BCM43XX_SPROM_SIZE + 4);
        break;
    default:
        off = below(f, BCM43XX_MMIO_SIZE);
        break;
    }
    if (chance(f, 70)) {
        size = 4;
        off &= ~3u;
    }
    off = MIN(off, BCM43XX_MMIO_SIZE - size);
    if (chance(f, 50)) {
        switch (size) {
        case 1:
            qpci_io_readb(d->dev, d->bar, off);
            break;
        case 2:
            qpci_io_readw(d->dev, d->bar, off);
            break;
        default:
            qpci_io_readl(d->dev, d->bar, off);
            break;
        }
        return;
    }
    switch (size) {
    case 1:
        qpci_io_writeb(d->dev, d->bar, off, val);
        break;
    case 2:
        qpci_io_writew(d->dev, d->bar, off, val);
        break;
    default:
        qpci_io_writel(d->dev, d->bar, off, val);
        break;
    }
}

static void bcm_pci(BcmFuzz *b, BcmDev *d)
{
    Fuzz *f = &b->f;
    uint16_t cmd = qpci_config_readw(d->dev, PCI_COMMAND);
    uint8_t msi = qpci_find_capability(d->dev, PCI_CAP_ID_MSI, 0);
    uint64_t addr;

    if (chance(f, 50) || !msi) {
        /* bus mastering off now and then, mostly on; the BAR stays */
        cmd |= PCI_COMMAND_MASTER;
        if (chance(f, 30)) {
            cmd &= ~PCI_COMMAND_MASTER;
        }
        qpci_config_writew(d->dev, PCI_COMMAND, cmd);
        return;
    }
    /*
     * The message's address: the APIC mostly; else a radio's registers
     * (INT_STATUS, its own doorbells, the other's...), its config space
     * (MMCONFIG, q35), or anything.
     */
    switch (below(f, 10)) {
    case 0 ... 4:
        addr = 0xfee00000 | below(f, 256) << 12;
        break;
    case 5 ... 8:
        addr = bcm_target(b);
        break;
    default:
        addr = chance(f, 50) ? value32(f) : ((uint64_t)rnd(f) << 32 | rnd(f));
        break;
    }
    qpci_config_writel(d->dev, msi + PCI_MSI_ADDRESS_LO, addr);
    qpci_config_writel(d->dev, msi + PCI_MSI_ADDRESS_HI, addr >> 32);
    qpci_config_writew(d->dev, msi + PCI_MSI_DATA_64,
                       chance(f, 50) ? 0x4000 | below(f, 256) : value32(f));
    qpci_config_writew(d->dev, msi + PCI_MSI_FLAGS,
                       (chance(f, 70) ? PCI_MSI_FLAGS_ENABLE : 0) |
                       PCI_MSI_FLAGS_64BIT);
}

static void bcm_fuzz_one(BcmFuzz *b)
{
    Fuzz *f = &b->f;
    BcmDev *d = &b->d[below(f, 2)];
    uint32_t base = chance(f, 50) ? BCM43XX_DMA_TX_BASE
                                  : BCM43XX_DMA_RX_BASE;

    switch (below(f, 24)) {
    case 0 ... 5:
        bcm_mmio(b, d);
        break;
    case 22 ... 23:
        link_fuzz(f, &b->link, d->mac);
        break;
    case 20 ... 21:
        bcm_tx_burst(b, d);
        break;
    case 6:
        bcm_ring(b, d, base == BCM43XX_DMA_RX_BASE);
        break;
    case 7 ... 8:
        bcm_descs(b, d, base == BCM43XX_DMA_RX_BASE);
        break;
    case 9 ... 11:
        /* the doorbell, mostly within the ring */
        bcm_wr(b, d, base + BCM43XX_DMA_INDEX, chance(f, 80) ?
               below(f, MAX(d->ringsize[base == BCM43XX_DMA_RX_BASE], 1))
               : value32(f));
        break;
    case 12:
        if (chance(f, 50)) {
            bcm_key(b, d);
        } else {
            bcm_sane(b, d);
        }
        break;
    case 13:
        bcm_pci(b, d);
        break;
    case 14:
        air_knobs(f, b->qts);
        break;
    default:
        clock_step(f, b->qts);
        break;
    }
}

/* A loaded mutated stream: beacons arrive, doorbells ring, reads. */
static void bcm_check_loaded(Fuzz *f, QTestState *qts, void *opaque)
{
    BcmFuzz *b = opaque;
    int i, n;

    for (i = 0; i < 8; i++) {
        qtest_clock_step(qts, 1000 * 1000 * (1 + below(f, 120)));
        for (n = 0; n < 2; n++) {
            uint64_t bar = b->d[n].bar_addr;

            qtest_writel(qts, bar + bcm_reg(f), value32(f));
            qtest_writel(qts, bar + BCM43XX_DMA_TX_BASE + BCM43XX_DMA_INDEX,
                         below(f, 64));
            qtest_readl(qts, bar + BCM43XX_REG_ID);
        }
        tick(f);
    }
}

static char *bcm_args(BcmFuzz *b, uint64_t seed, bool link, bool guard0,
                      bool guard1)
{
    g_autofree char *air = link ? g_strdup_printf(
        ",link-listen=%u,link-token=%s", b->link.port, b->link.hex)
                                : g_strdup("");

    return g_strdup_printf("-M %s -m 64M -nodefaults "
                           "-object wlan-air,id=air0,seed=%" PRIu64 "%s "
                           "-object wlan-ap,id=ap0,air=air0,channel=1 "
                           WPA2_AP
                           "-device bcm43xx,air=air0,addr=04.0,"
                           "mac=52:54:00:12:34:56%s "
                           "-device bcm43xx,air=air0,addr=05.0,"
                           "mac=52:54:00:ab:cd:ef%s",
                           b->q35 ? "q35" : "pc", seed, air,
                           guard0 ? "" : ",x-reentrancy-guard=off",
                           guard1 ? "" : ",x-reentrancy-guard=off");
}

static void bcm_fuzz_seed(uint64_t seed, uint64_t iters, uint64_t *ops)
{
    BcmFuzz b = { .f = { .rng = seed, .seed = seed, .what = "bcm43xx" } };
    g_autofree char *args = NULL, *dest_args = NULL;
    bool guard0, guard1;
    uint64_t i;
    int n;

    cur = &b.f;
    alarm(WATCHDOG_S);
    b.q35 = chance(&b.f, 50);
    guard0 = chance(&b.f, 60);
    guard1 = chance(&b.f, 60);
    link_init(&b.f, &b.link);
    args = bcm_args(&b, seed, true, guard0, guard1);
    dest_args = bcm_args(&b, seed, false, guard0, guard1);
    g_test_message("fuzz bcm43xx: seed %" PRIu64 ": %s", seed, args);
    b.qts = qtest_init(args);
    link_start(&b.link);
    b.bus = qpci_new_pc(b.qts, NULL);
    for (n = 0; n < 2; n++) {
        BcmDev *d = &b.d[n];

        d->devfn = QPCI_DEVFN(4 + n, 0);
        d->dev = qpci_device_find(b.bus, d->devfn);
        g_assert(d->dev);
        qpci_device_enable(d->dev);
        d->bar = qpci_iomap(d->dev, 0, NULL);
        d->bar_addr = qpci_config_readl(d->dev, PCI_BASE_ADDRESS_0) & ~0xfull;
        memcpy(d->mac, n ? "\x52\x54\x00\xab\xcd\xef"
                         : "\x52\x54\x00\x12\x34\x56", 6);
        bcm_sane(&b, d);
    }
    for (i = 0; i < iters; i++) {
        bcm_fuzz_one(&b);
        tick(&b.f);
    }
    fuzz_migration(&b.f, b.qts, dest_args, "/bcm43xx", 2,
                   6 * 4 + 8 + 2 * 7 * 4, true, bcm_check_loaded, &b);
    /* still alive and answering */
    for (n = 0; n < 2; n++) {
        bcm_sane(&b, &b.d[n]);
        g_assert_cmphex(qpci_io_readl(b.d[n].dev, b.d[n].bar,
                                      BCM43XX_REG_ID) & 0xffff0000, ==,
                        0x43180000);
    }
    for (n = 0; n < 2; n++) {
        qpci_iounmap(b.d[n].dev, b.d[n].bar);
        g_free(b.d[n].dev);
    }
    qpci_free_pc(b.bus);
    qtest_quit(b.qts);
    link_stop(&b.link);
    alarm(0);
    cur = NULL;
    *ops += b.f.ops;
}

/* ---- usb-rtl8187 ------------------------------------------------------- */

/*
 * Two machines: pc with UHCI (ports 1 and 2, the second hot-plugged) and
 * EHCI (port 1), or q35 with qemu-xhci (ports 1, 2 hot-plugged, 3) as
 * the e2e guests have it. Target t: the adapter on the first, the
 * hot-plugged, the third port.
 */
#define RTL_AIR "-object wlan-air,id=air0,seed=%" PRIu64 "%s " \
                "-object wlan-ap,id=ap0,air=air0,channel=1 " WPA2_AP
#define RTL_PC_ARGS "-M pc -m 64M -nodefaults " RTL_AIR \
                 "-device piix3-usb-uhci,id=uhci,addr=05.0 " \
                 "-device usb-ehci,id=ehci,addr=06.0 " \
                 "-device usb-rtl8187,air=air0,bus=uhci.0,port=1," \
                 "mac=52:54:00:12:34:56 %s" \
                 "-device usb-rtl8187,air=air0,bus=ehci.0,port=1," \
                 "mac=52:54:00:ab:cd:ef "
#define RTL_PC_HOT "-device usb-rtl8187,id=hot,air=air0,bus=uhci.0," \
                   "port=2,mac=52:54:00:12:34:57 "
#define RTL_Q35_ARGS "-M q35 -m 64M -nodefaults " RTL_AIR \
                 "-device qemu-xhci,id=xhci,addr=04.0 " \
                 "-device usb-rtl8187,air=air0,bus=xhci.0,port=1," \
                 "mac=52:54:00:12:34:56 %s" \
                 "-device usb-rtl8187,air=air0,bus=xhci.0,port=3," \
                 "mac=52:54:00:ab:cd:ef "
#define RTL_Q35_HOT "-device usb-rtl8187,id=hot,air=air0,bus=xhci.0," \
                    "port=2,mac=52:54:00:12:34:57 "
#define RTL_XHCI_DEVFN QPCI_DEVFN(4, 0)

static const uint8_t rtl_eps[] = {
    0x80 | RTL8187_EP_RX, RTL8187_EP_TX, RTL8187_EP_TX_LOW,
};

typedef struct RtlFuzz {
    Fuzz f;
    QTestState *qts;
    QPCIBus *bus;
    bool xhci;
    Uhci u;
    Ehci e;
    Xhci x;
    int slot[3];                /* xHCI: each adapter's slot */
    bool hot_present;
    Link link;
} RtlFuzz;

static int rtl_ctrl(RtlFuzz *r, int t, uint8_t type, uint8_t req,
                    uint16_t value, uint16_t index, uint16_t len,
                    uint8_t *data)
{
    if (r->xhci) {
        return xhci_ctrl(&r->x, r->slot[t], type, req, value, index, len,
                         data);
    }
    if (t == 2) {
        return ehci_ctrl(&r->e, 1, type, req, value, index, len, data);
    }
    return usb_ctrl_xfer(&r->u, t + 1, type, req, value, index, len, data,
                         NULL);
}

static void rtl_reg_write(RtlFuzz *r, int t, int page, int off, int len,
                          uint32_t val)
{
    uint8_t buf[4];

    stl_le_p(buf, val);
    rtl_ctrl(r, t, RTL8187_REQT_WRITE, RTL8187_REQ_SET_REG,
             RTL8187_REG_BASE | off, page, len, buf);
}

static void rtl_control(RtlFuzz *r, int t)
{
    static const uint8_t types[] = {
        RTL8187_REQT_READ, RTL8187_REQT_WRITE, 0x80, 0x81, 0x82, 0x01,
        0x02, 0x21, 0xa1, 0xc1, 0x41, 0xc2, 0x42,
    };
    static const uint8_t reqs[] = { 0x05, 0x05, 0x05, 0x06, 0x00, 0x01,
                                    0x03, 0x08, 0x0a, 0x0b, 0x0c };
    Fuzz *f = &r->f;
    uint8_t type = chance(f, 90) ? types[below(f, ARRAY_SIZE(types))] : rnd(f);
    uint8_t req = chance(f, 90) ? reqs[below(f, ARRAY_SIZE(reqs))] : rnd(f);
    uint16_t value, index, len;
    uint8_t data[0x400];
    uint32_t i;

    if (type == 0x00 && (req == 0x05 || req == 0x09)) {
        req = 0x01;     /* SET_ADDRESS/SET_CONFIGURATION: done below */
    }
    value = chance(f, 70) ? RTL8187_REG_BASE | below(f, 0x100) : value32(f);
    index = chance(f, 60) ? below(f, 5) : chance(f, 50) ?
            RTL8187_INDEX_RF8225 : value32(f);
    len = chance(f, 70) ? below(f, 6) : below(f, sizeof(data) + 1);
    if (t == 2 || r->xhci) {
        len = MIN(len, 0x400);
    }
    for (i = 0; i < len; i++) {
        data[i] = rnd(f);
    }
    rtl_ctrl(r, t, type, req, value, index, len, data);
}

/* Bit-bang garbage into the 93c46 and RTL8225 lines, or any register. */
static void rtl_bitbang(RtlFuzz *r, int t)
{
    static const uint8_t regs[] = {
        RTL8187_REG_EEPROM_CMD, RTL8187_REG_RFPINS_OUTPUT,
        RTL8187_REG_RFPINS_OUTPUT + 1, RTL8187_REG_CMD, RTL8187_REG_TSFT,
        RTL8187_REG_GPIO1, RTL8187_REG_ASIC_REV, 0xff, 0xfc,
    };
    Fuzz *f = &r->f;
    int n = 1 + below(f, 64), i;
    uint8_t reg = chance(f, 80) ? regs[below(f, ARRAY_SIZE(regs))] : rnd(f);
    int len = 1 << below(f, 3);

    for (i = 0; i < n; i++) {
        uint32_t val = value32(f);

        if (reg == RTL8187_REG_EEPROM_CMD && chance(f, 80)) {
            val = RTL8187_EEPROM_CMD_PROGRAM | (val & 0x0f);
        }
        rtl_reg_write(r, t, chance(f, 90) ? 0 : below(f, 5),
                      MIN(reg, 0x100 - len), len, val);
    }
}

static void rtl_radio_on(RtlFuzz *r, int t)
{
    Fuzz *f = &r->f;

    rtl_reg_write(r, t, 0, RTL8187_REG_CMD, 1,
                  chance(f, 90) ? RTL8187_CMD_TX_ENABLE |
                                  RTL8187_CMD_RX_ENABLE : value32(f));
}

static void rtl_bulk_out(RtlFuzz *r, int t)
{
    Fuzz *f = &r->f;
    int max = t == 2 || r->xhci ? 5000 : 1023;
    int size = chance(f, 70) ? 0 : below(f, max + 1);
    uint8_t buf[5000];
    size_t flen;
    int ep = chance(f, 90) ? (chance(f, 80) ? RTL8187_EP_TX
                                            : RTL8187_EP_TX_LOW)
                           : below(f, 16);

    if (size == 0) {
        /* a well-formed TX: header + random frame */
        flen = random_frame(f, buf + RTL8187_TX_HDR_SIZE,
                            MIN(max - RTL8187_TX_HDR_SIZE, 2346),
                            (const uint8_t *)"\x52\x54\x00\x12\x34\x56");
        memset(buf, 0, RTL8187_TX_HDR_SIZE);
        stl_le_p(buf, (chance(f, 90) ? flen : value32(f) & 0xfff) |
                 RTL8187_TX_FLAG_NO_ENC);
        size = RTL8187_TX_HDR_SIZE + flen;
    } else {
        int i;

        for (i = 0; i < size; i++) {
            buf[i] = rnd(f);
        }
    }
    if (r->xhci) {
        xhci_bulk(&r->x, r->slot[t], false, ep, buf, size, 20, NULL);
    } else if (t == 2) {
        ehci_bulk(&r->e, 1, false, ep, buf, size, NULL);
    } else {
        usb_bulk(&r->u, t + 1, PID_OUT, ep, buf, MIN(size, 1023), NULL);
    }
}

static void rtl_bulk_in(RtlFuzz *r, int t)
{
    Fuzz *f = &r->f;
    uint8_t buf[RTL8187_MAX_RX + 512];
    int ep = chance(f, 90) ? RTL8187_EP_RX : below(f, 16);
    bool hs = t == 2 || r->xhci;
    int size = chance(f, 70) ? (hs ? RTL8187_MAX_RX : 1023)
                             : below(f, hs ? sizeof(buf) : 1024);

    if (r->xhci) {
        xhci_bulk(&r->x, r->slot[t], true, ep, buf, size, 20, NULL);
    } else if (t == 2) {
        ehci_bulk(&r->e, 1, true, ep, buf, size, NULL);
    } else {
        usb_bulk(&r->u, t + 1, PID_IN, ep, buf, MAX(size, 1), NULL);
    }
}

/* Port reset and enumeration again (the device resets itself). */
static void rtl_xhci_enumerate(RtlFuzz *r, int t)
{
    r->slot[t] = xhci_enumerate(&r->x, XHCI_USB2_PORT(t + 1), rtl_eps,
                                ARRAY_SIZE(rtl_eps));
}

static void rtl_reenumerate(RtlFuzz *r, int t)
{
    if (r->xhci) {
        if (t != 1 || r->hot_present) {
            xhci_disable_slot(&r->x, r->slot[t]);
            rtl_xhci_enumerate(r, t);
        }
    } else if (t == 2) {
        ehci_enumerate(&r->e, 0, 1);
    } else if (t == 0 || r->hot_present) {
        usb_enumerate(&r->u, t, t + 1);
    }
}

static void rtl_hotplug(RtlFuzz *r)
{
    if (r->hot_present) {
        qtest_qmp_device_del(r->qts, "hot");
        if (r->xhci) {
            xhci_disable_slot(&r->x, r->slot[1]);
        }
        r->hot_present = false;
        return;
    }
    qtest_qmp_device_add(r->qts, "usb-rtl8187", "hot",
                         "{'bus': %s, 'port': '2', 'air': 'air0', "
                         "'mac': '52:54:00:12:34:57'}",
                         r->xhci ? "xhci.0" : "uhci.0");
    r->hot_present = true;
    if (r->xhci) {
        rtl_xhci_enumerate(r, 1);
    } else {
        usb_enumerate(&r->u, 1, 2);
    }
    rtl_radio_on(r, 1);
}

static void rtl_fuzz_one(RtlFuzz *r)
{
    Fuzz *f = &r->f;
    int t = below(f, 3);

    if (t == 1 && !r->hot_present) {
        t = 0;
    }
    switch (below(f, 42)) {
    case 0 ... 7:
        rtl_control(r, t);
        break;
    case 40 ... 41:
        link_fuzz(f, &r->link, (const uint8_t *)"\x52\x54\x00\x12\x34\x56");
        break;
    case 8 ... 11:
        rtl_bitbang(r, t);
        break;
    case 12 ... 21:
        rtl_bulk_out(r, t);
        break;
    case 22 ... 29:
        rtl_bulk_in(r, t);
        break;
    case 30 ... 31:
        rtl_radio_on(r, t);
        break;
    case 32:
        rtl_reenumerate(r, t);
        break;
    case 33:
        rtl_hotplug(r);
        break;
    case 34:
        air_knobs(f, r->qts);
        break;
    default:
        clock_step(f, r->qts);
        break;
    }
}

static char *rtl_args(RtlFuzz *r, uint64_t seed, bool link)
{
    g_autofree char *air = link ? g_strdup_printf(
        ",link-listen=%u,link-token=%s", r->link.port, r->link.hex)
                                : g_strdup("");

    if (r->xhci) {
        return g_strdup_printf(RTL_Q35_ARGS, seed, air,
                               r->hot_present ? RTL_Q35_HOT : "");
    }
    return g_strdup_printf(RTL_PC_ARGS, seed, air,
                           r->hot_present ? RTL_PC_HOT : "");
}

/* A loaded mutated stream: the air runs, frames reach the adapters. */
static void rtl_check_loaded(Fuzz *f, QTestState *qts, void *opaque)
{
    int i;

    for (i = 0; i < 8; i++) {
        qtest_clock_step(qts, 1000 * 1000 * (1 + below(f, 120)));
        tick(f);
    }
}

/* The size of usb-rtl8187's own fields at the end of its section. */
#define RTL_VMSTATE_OURS (RTL8187_REG_PAGES * RTL8187_REG_PAGE_SIZE + 8 + \
                          1 + 2 * RTL8187_EEPROM_WORDS + 11)

static void rtl_fuzz_seed(uint64_t seed, uint64_t iters, uint64_t *ops)
{
    RtlFuzz r = { .f = { .rng = seed, .seed = seed, .what = "rtl8187" } };
    g_autofree char *args = NULL, *dest_args = NULL;
    uint8_t desc[18];
    uint64_t i;
    int t;

    cur = &r.f;
    alarm(WATCHDOG_S);
    r.xhci = chance(&r.f, 50);
    r.hot_present = true;
    link_init(&r.f, &r.link);
    args = rtl_args(&r, seed, true);
    g_test_message("fuzz rtl8187: seed %" PRIu64 ": %s", seed, args);
    r.qts = qtest_init(args);
    link_start(&r.link);
    if (r.xhci) {
        r.bus = qpci_new_pc(r.qts, NULL);
        xhci_start(&r.x, r.qts, r.bus, RTL_XHCI_DEVFN);
        for (t = 0; t < 3; t++) {
            rtl_xhci_enumerate(&r, t);
        }
    } else {
        uhci_start(&r.u, r.qts);
        r.bus = r.u.bus;
        ehci_start(&r.e, r.qts, r.bus);
        usb_enumerate(&r.u, 0, 1);
        usb_enumerate(&r.u, 1, 2);
        ehci_enumerate(&r.e, 0, 1);
    }
    for (t = 0; t < 3; t++) {
        rtl_radio_on(&r, t);
    }
    for (i = 0; i < iters; i++) {
        rtl_fuzz_one(&r);
        tick(&r.f);
    }
    dest_args = rtl_args(&r, seed, false);
    fuzz_migration(&r.f, r.qts, dest_args, "/usb-rtl8187",
                   r.hot_present ? 3 : 2, RTL_VMSTATE_OURS, false,
                   rtl_check_loaded, &r);
    /* still alive and answering */
    if (r.xhci) {
        rtl_reenumerate(&r, 0);
        g_assert_cmpint(xhci_ctrl(&r.x, r.slot[0], 0x80, 0x06, 0x0100, 0,
                                  18, desc), ==, XFER_OK);
        xhci_stop(&r.x);
        qpci_free_pc(r.bus);
    } else {
        usb_enumerate(&r.u, 0, 1);
        g_assert_cmpint(usb_ctrl(&r.u, 1, 0x80, 0x06, 0x0100, 0, 18, desc),
                        ==, XFER_OK);
        ehci_stop(&r.e);
        uhci_stop(&r.u);
    }
    qtest_quit(r.qts);
    link_stop(&r.link);
    alarm(0);
    cur = NULL;
    *ops += r.f.ops;
}

/* ---- wlan-ap ----------------------------------------------------------- */

/* The AP's own fields: next_beacon_ns (int64) and seq (uint16). */
#define AP_VMSTATE_OURS (8 + 2)

/* A loaded mutated stream: beacons go out on schedule, nothing hangs. */
static void ap_check_loaded(Fuzz *f, QTestState *qts, void *opaque)
{
    int i;

    for (i = 0; i < 8; i++) {
        qtest_clock_step(qts, 1000 * 1000 * (1 + below(f, 400)));
        tick(f);
    }
}

/*
 * An access point alone on the air (no radio: machine none): its clock
 * runs in steps of any length while its channel, SSID visibility and
 * signal change; then its migration section is mutated (the beacon time
 * and sequence number, or any byte) and loaded.
 */
static void ap_fuzz_seed(uint64_t seed, uint64_t iters, uint64_t *ops)
{
    Fuzz f = { .rng = seed, .seed = seed, .what = "wlan-ap" };
    g_autofree char *args = NULL;
    QTestState *qts;
    uint64_t i;

    cur = &f;
    alarm(WATCHDOG_S);
    args = g_strdup_printf("-machine none -object wlan-air,id=air0,seed=%"
                           PRIu64 " -object wlan-ap,id=ap0,air=air0,"
                           "channel=%d", seed, 1 + (int)below(&f, 13));
    g_test_message("fuzz wlan-ap: seed %" PRIu64 ": %s", seed, args);
    qts = qtest_init(args);
    for (i = 0; i < iters; i++) {
        switch (below(&f, 4)) {
        case 0:
            qtest_qmp_assert_success(qts, "{'execute': 'qom-set', "
                                     "'arguments': {'path': '/objects/ap0',"
                                     " 'property': 'channel', 'value': %d}}",
                                     1 + (int)below(&f, 13));
            break;
        case 1:
            qtest_qmp_assert_success(qts, "{'execute': 'qom-set', "
                                     "'arguments': {'path': '/objects/ap0',"
                                     " 'property': 'hidden', 'value': %i}}",
                                     chance(&f, 50));
            break;
        default:
            qtest_clock_step(qts, 1000 * (1 + below(&f, 300000)));
            break;
        }
        tick(&f);
    }
    fuzz_migration(&f, qts, args, "ap0/wlan-ap", 1, AP_VMSTATE_OURS, true,
                   ap_check_loaded, NULL);
    qtest_clock_step(qts, 1000 * 1000 * 1000);  /* still beaconing */
    qtest_quit(qts);
    alarm(0);
    cur = NULL;
    *ops += f.ops;
}

/* ---- driver ------------------------------------------------------------ */

typedef void FuzzSeed(uint64_t seed, uint64_t iters, uint64_t *ops);

static void fuzz_run(const char *what, FuzzSeed *fn, uint64_t dflt_iters)
{
    /* a fresh seed each run unless one is given: printed, to replay it */
    uint64_t seed = env_u64("NDISBENCH_FUZZ_SEED", g_random_int());
    uint64_t iters = env_u64("NDISBENCH_FUZZ_ITERS", dflt_iters);
    uint64_t runs = env_u64("NDISBENCH_FUZZ_RUNS", 1);
    uint64_t ops = 0, r;
    gint64 start = g_get_monotonic_time();

    for (r = 0; r < runs; r++) {
        g_test_message("fuzz %s: seed %" PRIu64 ", %" PRIu64 " actions "
                       "(replay: NDISBENCH_FUZZ_SEED=%" PRIu64 " "
                       "NDISBENCH_FUZZ_ITERS=%" PRIu64 ", or "
                       "tests/qtest/fuzz.py --device %s --seed %" PRIu64
                       " --iters %" PRIu64 ")", what, seed + r, iters,
                       seed + r, iters, what, seed + r, iters);
        fn(seed + r, iters, &ops);
    }
    g_test_message("fuzz %s: %" PRIu64 " actions in %" PRIu64 " run(s), "
                   "%.1f s, no crash", what, ops, runs,
                   (g_get_monotonic_time() - start) / 1e6);
}

static void test_fuzz_bcm43xx(void)
{
    fuzz_run("bcm43xx", bcm_fuzz_seed, 3000);
}

static void test_fuzz_rtl8187(void)
{
    fuzz_run("rtl8187", rtl_fuzz_seed, 600);
}

static void test_fuzz_wlan_ap(void)
{
    fuzz_run("wlan-ap", ap_fuzz_seed, 200);
}

int main(int argc, char **argv)
{
    struct sigaction sa = { .sa_handler = watchdog };

    g_test_init(&argc, &argv, NULL);
    sigaction(SIGALRM, &sa, NULL);
    qtest_add_func("/ndisbench/fuzz/bcm43xx", test_fuzz_bcm43xx);
    qtest_add_func("/ndisbench/fuzz/rtl8187", test_fuzz_rtl8187);
    qtest_add_func("/ndisbench/fuzz/wlan-ap", test_fuzz_wlan_ap);
    return g_test_run();
}
