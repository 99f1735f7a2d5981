/*
 * QTest for the ndisbench wlan-air and wlan-ap objects
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Built inside the QEMU tree (scripts/ndisbench_lib/build/qemu_build.py links
 * it into tests/qtest/ and adds it to qtests_x86_64). No radio device is
 * needed: the air's pcap file shows what the access point transmits, and
 * the objects are driven through QMP (object-add, qom-get, qom-set,
 * object-del). Traffic through a station is covered by the bcm43xx qtest.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "qapi/qmp/qdict.h"
#include "ndisbench-qtest.h"

#define BEACON_US       102400
#define RT_LEN          13      /* radiotap: header, channel, dBm signal */
#define PCAP_HDR_LEN    24
#define PCAP_REC_LEN    16

static const uint8_t bssid_default[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x00 };

typedef struct Capture {
    char *path;
    gchar *data;
    gsize len;
} Capture;

/* An empty temporary file for the air's pcap= (cap->path). */
static void capture_file(Capture *cap)
{
    int fd = g_file_open_tmp("ndisbench-air-XXXXXX.pcap", &cap->path, NULL);

    g_assert(fd >= 0);
    close(fd);
}

static QTestState *start_ap(Capture *cap, const char *ap_opts)
{
    capture_file(cap);
    return qtest_initf("-machine none -object wlan-air,id=air0,pcap=%s "
                       "-object wlan-ap,id=ap0,air=air0%s", cap->path,
                       ap_opts);
}

static void capture_read(Capture *cap)
{
    g_free(cap->data);
    g_assert(g_file_get_contents(cap->path, &cap->data, &cap->len, NULL));
}

static void capture_free(Capture *cap)
{
    unlink(cap->path);
    g_free(cap->path);
    g_free(cap->data);
}

/* The next pcap record from *off: its 802.11 frame and radiotap fields. */
static bool capture_next(Capture *cap, size_t *off, uint64_t *ts_us,
                         const uint8_t **frame, size_t *len, uint16_t *freq,
                         int8_t *signal)
{
    const uint8_t *p = (const uint8_t *)cap->data + *off;
    uint32_t incl;

    if (*off + PCAP_REC_LEN > cap->len) {
        return false;
    }
    *ts_us = (uint64_t)(uint32_t)ldl_le_p(p) * 1000000 +
             (uint32_t)ldl_le_p(p + 4);
    incl = (uint32_t)ldl_le_p(p + 8);
    g_assert_cmpuint(*off + PCAP_REC_LEN + incl, <=, cap->len);
    p += PCAP_REC_LEN;
    g_assert_cmpuint(incl, >, RT_LEN);
    g_assert_cmpuint(lduw_le_p(p + 2), ==, RT_LEN);
    *freq = lduw_le_p(p + 8);
    *signal = (int8_t)p[12];
    *frame = p + RT_LEN;
    *len = incl - RT_LEN;
    *off += PCAP_REC_LEN + incl;
    return true;
}

/* The IE with this id in a beacon or probe response body, or NULL. */
static const uint8_t *find_ie(const uint8_t *frame, size_t len, uint8_t id,
                              uint8_t *ie_len)
{
    size_t off = 24 + 12;       /* header, timestamp, interval, capability */

    while (off + 2 <= len) {
        g_assert_cmpuint(off + 2 + frame[off + 1], <=, len);
        if (frame[off] == id) {
            *ie_len = frame[off + 1];
            return frame + off + 2;
        }
        off += 2 + frame[off + 1];
    }
    return NULL;
}

static int check_beacons(Capture *cap, const char *ssid, uint8_t channel,
                         int8_t rssi)
{
    const uint8_t *f, *ie;
    uint64_t ts, prev_ts = 0;
    size_t off = PCAP_HDR_LEN, len;
    uint16_t freq;
    int8_t signal;
    uint8_t ie_len;
    int n = 0;

    capture_read(cap);
    g_assert_cmpuint(cap->len, >=, PCAP_HDR_LEN);
    g_assert_cmphex((uint32_t)ldl_le_p(cap->data), ==, 0xa1b2c3d4);
    /* LINKTYPE_IEEE802_11_RADIOTAP */
    g_assert_cmpuint((uint32_t)ldl_le_p(cap->data + 20), ==, 127);

    while (capture_next(cap, &off, &ts, &f, &len, &freq, &signal)) {
        n++;
        g_assert_cmpuint(freq, ==, 2407 + 5 * channel);
        g_assert_cmpint(signal, ==, rssi);
        g_assert_cmphex(f[0], ==, 0x80);                    /* beacon */
        g_assert_cmphex(f[1], ==, 0x00);
        g_assert(memcmp(f + 4, "\xff\xff\xff\xff\xff\xff", 6) == 0);
        g_assert(memcmp(f + 10, bssid_default, 6) == 0);
        g_assert(memcmp(f + 16, bssid_default, 6) == 0);
        /* TSF from the virtual clock, 100 TU apart, capability ESS */
        g_assert_cmpuint(ts, ==, (uint64_t)n * BEACON_US);
        g_assert_cmpuint(ldq_le_p(f + 24), ==, ts);
        g_assert_cmpuint(ts - prev_ts, ==, BEACON_US);
        g_assert_cmpuint(lduw_le_p(f + 32), ==, 100);
        g_assert_cmphex(lduw_le_p(f + 34), ==, 0x0001);
        ie = find_ie(f, len, 0, &ie_len);
        g_assert(ie);
        g_assert_cmpuint(ie_len, ==, strlen(ssid));
        g_assert(memcmp(ie, ssid, ie_len) == 0);
        ie = find_ie(f, len, 1, &ie_len);
        g_assert(ie && ie_len == 8 && ie[0] == 0x82);       /* 1 Mb/s basic */
        ie = find_ie(f, len, 3, &ie_len);
        g_assert(ie && ie_len == 1 && ie[0] == channel);
        g_assert(find_ie(f, len, 5, &ie_len));              /* TIM */
        prev_ts = ts;
    }
    g_assert_cmpuint(off, ==, cap->len);
    return n;
}

static void test_beacons(void)
{
    Capture cap = { 0 };
    QTestState *qts = start_ap(&cap, ",ssid=qtest-air,channel=11,rssi=-55");

    /* 10 beacon intervals of virtual time, in uneven steps */
    for (int i = 0; i < 8; i++) {
        qtest_clock_step(qts, 128 * 1000 * 1000);
    }
    g_assert_cmpint(check_beacons(&cap, "qtest-air", 11, -55), ==, 10);
    qtest_quit(qts);
    capture_free(&cap);
}

static uint64_t air_u64(QTestState *qts, const char *prop)
{
    QDict *rsp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                           "'path': '/objects/air0', 'property': %s}}", prop);
    uint64_t val;

    g_assert(qdict_haskey(rsp, "return"));
    val = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return val;
}

/*
 * pcap-max caps the capture: the air stops writing before a record would
 * take the file past it, so the file holds whole records only; every
 * frame is still carried. The default is 64 MiB.
 */
static void test_pcap_max(void)
{
    Capture cap = { 0 };
    QTestState *qts;
    QDict *rsp;
    int n;

    capture_file(&cap);
    qts = qtest_initf("-machine none -object wlan-air,id=air0,pcap=%s,"
                      "pcap-max=1000 -object wlan-ap,id=ap0,air=air0,"
                      "ssid=qtest-air,channel=11,rssi=-55", cap.path);
    for (int i = 0; i < 16; i++) {
        qtest_clock_step(qts, 128 * 1000 * 1000);
    }
    n = check_beacons(&cap, "qtest-air", 11, -55);
    g_assert_cmpuint(cap.len, <=, 1000);
    /* stopped at the first record that did not fit: about 100 bytes */
    g_assert_cmpuint(cap.len, >, 1000 - 110);
    g_assert_cmpuint(air_u64(qts, "frames"), ==, 20);
    g_assert_cmpint(n, <, 20);
    g_assert_cmpuint(air_u64(qts, "pcap-bytes"), ==, cap.len);
    g_assert_cmpuint(air_u64(qts, "pcap-max"), ==, 1000);
    qtest_quit(qts);
    capture_free(&cap);

    memset(&cap, 0, sizeof(cap));
    qts = start_ap(&cap, "");
    g_assert_cmpuint(air_u64(qts, "pcap-max"), ==, 64 * 1024 * 1024);
    /* less than the file header is refused */
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-air', 'id': 'air9', 'pcap-max': 10}}");
    g_assert(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"),
                    "smaller than the file header"));
    qobject_unref(rsp);
    qtest_quit(qts);
    capture_free(&cap);
}

static void test_hidden(void)
{
    Capture cap = { 0 };
    QTestState *qts = start_ap(&cap, ",ssid=secret,hidden=on");

    qtest_clock_step(qts, 3 * BEACON_US * 1000);
    g_assert_cmpint(check_beacons(&cap, "", 6, -40), ==, 3);
    qtest_quit(qts);
    capture_free(&cap);
}

static void test_channel_change(void)
{
    Capture cap = { 0 };
    QTestState *qts = start_ap(&cap, "");
    QDict *rsp;

    qtest_clock_step(qts, BEACON_US * 1000);
    rsp = qtest_qmp(qts, "{'execute': 'qom-set', 'arguments': {"
                    "'path': '/objects/ap0', 'property': 'channel', "
                    "'value': 1}}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    qtest_clock_step(qts, BEACON_US * 1000);

    capture_read(&cap);
    {
        size_t off = PCAP_HDR_LEN, len;
        const uint8_t *f, *ie;
        uint64_t ts;
        uint16_t freq;
        int8_t signal;
        uint8_t ie_len;

        g_assert(capture_next(&cap, &off, &ts, &f, &len, &freq, &signal));
        g_assert_cmpuint(freq, ==, 2437);
        g_assert(capture_next(&cap, &off, &ts, &f, &len, &freq, &signal));
        g_assert_cmpuint(freq, ==, 2412);
        ie = find_ie(f, len, 3, &ie_len);
        g_assert(ie && ie[0] == 1);
        g_assert(!capture_next(&cap, &off, &ts, &f, &len, &freq, &signal));
    }
    rsp = qtest_qmp(qts, "{'execute': 'qom-set', 'arguments': {"
                    "'path': '/objects/ap0', 'property': 'channel', "
                    "'value': 15}}");
    g_assert(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"),
                    "channel must be 1 to 14"));
    qobject_unref(rsp);
    qtest_quit(qts);
    capture_free(&cap);
}

static const char *qmp_error(QDict *rsp)
{
    g_assert(qdict_haskey(rsp, "error"));
    return qdict_get_str(qdict_get_qdict(rsp, "error"), "desc");
}

/* object-add / object-del at run time, and their errors. */
static void test_qmp_lifecycle(void)
{
    QTestState *qts = qtest_init("-machine none -object wlan-air,id=air0 "
                                 "-netdev hubport,id=h0,hubid=0");
    QDict *rsp;
    char *s;

    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-ap', 'id': 'ap1', 'air': 'air0', "
                    "'netdev': 'nope'}}");
    g_assert(strstr(qmp_error(rsp), "netdev 'nope' not found"));
    qobject_unref(rsp);

    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-ap', 'id': 'ap1', 'air': 'h0'}}");
    g_assert(strstr(qmp_error(rsp), "air 'h0' not found"));
    qobject_unref(rsp);

    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-ap', 'id': 'ap1', 'air': 'air0', "
                    "'bssid': '02:00:00:00:01:99', 'netdev': 'h0', "
                    "'ssid': 'runtime'}}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);

    rsp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                    "'path': '/objects/ap1', 'property': 'bssid'}}");
    g_assert_cmpstr(qdict_get_str(rsp, "return"), ==, "02:00:00:00:01:99");
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                    "'path': '/objects/ap1', 'property': 'stations'}}");
    g_assert_cmpint(qdict_get_int(rsp, "return"), ==, 0);
    qobject_unref(rsp);

    /* the netdev now has its peer: a second AP cannot take it */
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-ap', 'id': 'ap2', 'air': 'air0', "
                    "'netdev': 'h0'}}");
    g_assert(strstr(qmp_error(rsp), "already in use by 'ap1'"));
    qobject_unref(rsp);

    /* the air cannot go while a radio is on it */
    rsp = qtest_qmp(qts, "{'execute': 'object-del', 'arguments': {"
                    "'id': 'air0'}}");
    qmp_error(rsp);
    qobject_unref(rsp);

    /* deleting the AP frees the netdev for another one */
    rsp = qtest_qmp(qts, "{'execute': 'object-del', 'arguments': {"
                    "'id': 'ap1'}}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    qtest_clock_step(qts, 10 * BEACON_US * 1000);   /* no timer left */
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-ap', 'id': 'ap2', 'air': 'air0', "
                    "'netdev': 'h0'}}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);

    s = qtest_hmp(qts, "info network");
    g_assert(strstr(s, "ap2: index=0,type=nic,model=wlan-ap"));
    g_free(s);

    rsp = qtest_qmp(qts, "{'execute': 'object-del', 'arguments': {"
                    "'id': 'ap2'}}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'object-del', 'arguments': {"
                    "'id': 'air0'}}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    qtest_quit(qts);
}

/* ---- fault injection -------------------------------------------------- */

static uint64_t air_counter(QTestState *qts, const char *name)
{
    QDict *rsp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                           "'path': '/objects/air0', 'property': %s}}",
                           name);
    uint64_t val;

    g_assert(qdict_haskey(rsp, "return"));
    val = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return val;
}

typedef struct FaultCounts {
    uint64_t frames, lost, corrupted, duplicated, delayed, dropped;
} FaultCounts;

/*
 * The AP beacons for @seconds of virtual time on an air with these
 * faults; one-second steps keep the air's queue (256) from filling.
 */
static void run_beacons(const char *faults, int seconds, FaultCounts *c)
{
    QTestState *qts = qtest_initf("-machine none -object wlan-air,id=air0,%s "
                                  "-object wlan-ap,id=ap0,air=air0", faults);
    int i;

    for (i = 0; i < seconds; i++) {
        qtest_clock_step(qts, 1000 * 1000 * 1000);
    }
    c->frames = air_counter(qts, "frames");
    c->lost = air_counter(qts, "lost");
    c->corrupted = air_counter(qts, "corrupted");
    c->duplicated = air_counter(qts, "duplicated");
    c->delayed = air_counter(qts, "delayed");
    c->dropped = air_counter(qts, "dropped");
    qtest_quit(qts);
}

/* count is rate (parts per 10000) of n, within tol_pct percent. */
static void assert_rate(uint64_t count, uint64_t n, unsigned rate,
                        unsigned tol_pct)
{
    double expect = (double)n * rate / 10000;

    g_test_message("%" PRIu64 " of %" PRIu64 " (expected %.1f)", count, n,
                   expect);
    g_assert_cmpfloat(count, >=, expect * (100 - tol_pct) / 100);
    g_assert_cmpfloat(count, <=, expect * (100 + tol_pct) / 100);
}

/*
 * With a fixed seed the fault counts over ~9800 beacons match the rates
 * (binomial: 3 standard deviations is under 25% at these counts), and
 * the same seed gives exactly the same counts again.
 */
static void test_fault_rates(void)
{
    const char *faults = "drop=300,corrupt=200,duplicate=150,seed=42";
    FaultCounts a, b, c;

    run_beacons(faults, 1000, &a);
    g_assert_cmpuint(a.frames, ==, 1000 * 1000000 / BEACON_US);
    g_assert_cmpuint(a.dropped, ==, 0);
    assert_rate(a.lost, a.frames, 300, 25);
    /* corrupt and duplicate apply to the frames that were not lost */
    assert_rate(a.corrupted, a.frames - a.lost, 200, 25);
    assert_rate(a.duplicated, a.frames - a.lost, 150, 25);
    g_assert_cmpuint(a.delayed, ==, 0);

    run_beacons(faults, 1000, &b);
    g_assert(memcmp(&a, &b, sizeof(a)) == 0);

    /* another seed: other frames, the same rates */
    run_beacons("drop=300,corrupt=200,duplicate=150,seed=7", 1000, &c);
    g_assert(memcmp(&a, &c, sizeof(a)) != 0);
    assert_rate(c.lost, c.frames, 300, 25);
    assert_rate(c.corrupted, c.frames - c.lost, 200, 25);
    assert_rate(c.duplicated, c.frames - c.lost, 150, 25);

    /* all or nothing */
    run_beacons("drop=10000", 20, &c);
    g_assert_cmpuint(c.lost, ==, c.frames);
    run_beacons("corrupt=10000,duplicate=10000,delay-us=1", 20, &c);
    g_assert_cmpuint(c.lost, ==, 0);
    g_assert_cmpuint(c.corrupted, ==, c.frames);
    g_assert_cmpuint(c.duplicated, ==, c.frames);
    g_assert_cmpuint(c.delayed, ==, c.frames);
}

/* Bad values are refused with an error that names the range. */
static void test_fault_validation(void)
{
    QTestState *qts = qtest_init("-machine none -object wlan-air,id=air0,"
                                 "drop=100");
    static const struct {
        const char *name;
        int64_t value;
    } bad[] = {
        { "drop", 10001 }, { "corrupt", 20000 },
        { "duplicate", 4294967295ll }, { "delay-us", 1000001 },
        { "jitter-us", 5000000 },
    };
    QDict *rsp;
    int i;

    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        g_autofree char *what = g_strdup_printf("%s=%" PRId64 " is out "
                                                "of range", bad[i].name,
                                                bad[i].value);

        rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                        "'qom-type': 'wlan-air', 'id': 'air1', "
                        "%s: %" PRId64 "}}", bad[i].name, bad[i].value);
        g_assert(strstr(qmp_error(rsp), what));
        qobject_unref(rsp);
        rsp = qtest_qmp(qts, "{'execute': 'qom-set', 'arguments': {"
                        "'path': '/objects/air0', 'property': %s, "
                        "'value': %" PRId64 "}}", bad[i].name,
                        bad[i].value);
        g_assert(strstr(qmp_error(rsp), what));
        qobject_unref(rsp);
    }
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-air', 'id': 'air1', 'drop': -1}}");
    qmp_error(rsp);
    qobject_unref(rsp);
    /* the failed sets left the value alone; a good one is taken */
    rsp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                    "'path': '/objects/air0', 'property': 'drop'}}");
    g_assert_cmpint(qdict_get_int(rsp, "return"), ==, 100);
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'qom-set', 'arguments': {"
                    "'path': '/objects/air0', 'property': 'jitter-us', "
                    "'value': 1000000}}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-air', 'id': 'air1', 'drop': 10000, "
                    "'corrupt': 0, 'duplicate': 5, 'delay-us': 2000, "
                    "'jitter-us': 500, 'seed': 18446744073709551615}}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    qtest_quit(qts);
}

/* Poll query-migrate until the migration completes (a failure fails). */
static void wait_migrated(QTestState *qts)
{
    for (int i = 0; i < 6000; i++) {
        QDict *rsp = qtest_qmp(qts, "{'execute': 'query-migrate'}");
        QDict *ret = qdict_get_qdict(rsp, "return");
        const char *status = ret && qdict_haskey(ret, "status") ?
                             qdict_get_str(ret, "status") : "";
        bool done = strcmp(status, "completed") == 0;

        g_assert_cmpstr(status, !=, "failed");
        qobject_unref(rsp);
        if (done) {
            return;
        }
        g_usleep(10 * 1000);
    }
    g_assert_not_reached();
}

/*
 * The AP is saved with the VM (the bench restores booted guests from
 * snapshots: scripts/ndisbench_lib/guest/snapshot.py): a restored AP
 * beacons on its saved schedule with its sequence number going on, not
 * from its own start again. qtest's virtual clock starts at 0 in the
 * restored QEMU too, so the first beacon there comes at the saved time.
 */
static void test_migration(void)
{
    Capture cap = { 0 };
    char *dir = stream_dir_new();
    g_autofree char *state = g_build_filename(dir, "ap.state", NULL);
    QTestState *src, *dst;
    const uint8_t *f;
    uint64_t ts;
    size_t off = PCAP_HDR_LEN, len;
    uint16_t freq;
    int8_t signal;

    src = qtest_init("-machine none -object wlan-air,id=air0 "
                     "-object wlan-ap,id=ap0,air=air0");
    for (int i = 0; i < 8; i++) {       /* 10 beacons: sequence 0 to 9 */
        qtest_clock_step(src, 128 * 1000 * 1000);
    }
    migrate_to_file(src, state);
    qtest_quit(src);

    capture_file(&cap);
    dst = qtest_initf("-machine none -object wlan-air,id=air0,pcap=%s "
                      "-object wlan-ap,id=ap0,air=air0 -incoming defer",
                      cap.path);
    incoming_from_file(dst, state);
    qobject_unref(qtest_qmp_receive(dst));      /* migrate-incoming */
    wait_migrated(dst);
    /* the 11th beacon is due at 11 intervals: one beacon, sequence 10 */
    qtest_clock_step(dst, 11 * BEACON_US * 1000 + 1000);
    capture_read(&cap);
    g_assert(capture_next(&cap, &off, &ts, &f, &len, &freq, &signal));
    g_assert_cmphex(f[0], ==, 0x80);
    g_assert_cmpuint(lduw_le_p(f + 22) >> 4, ==, 10);
    g_assert_cmpuint(ts, ==, 11 * BEACON_US);
    g_assert(!capture_next(&cap, &off, &ts, &f, &len, &freq, &signal));
    qtest_quit(dst);
    capture_free(&cap);
    stream_dir_free(dir);
}

/*
 * The next beacon's time comes from the stream: a negative one (no clock
 * reads that) is refused, QEMU exits with status 1; one long past is
 * clamped to the time of the restore (a beacon then, and on schedule
 * after), not caught up beacon by beacon, which for a far-past value
 * keeps the main loop sending them for ever.
 */
static void test_migration_beacon_time(void)
{
    static const uint8_t id[] = "wlan-ap/ap0/wlan-ap";
    /* the section's fields follow the idstr, instance and version ids */
    const size_t at = sizeof(id) - 1 + 8;
    const uint64_t restore_us = 10 * 1000 * 1000;
    const char *args = "-machine none -object wlan-air,id=air0 "
                       "-object wlan-ap,id=ap0,air=air0";
    char *dir = stream_dir_new();
    g_autofree char *path = g_build_filename(dir, "ap.state", NULL);
    g_autofree char *bad = g_build_filename(dir, "ap-bad.state", NULL);
    Capture cap = { 0 };
    QTestState *src, *dst;
    const uint8_t *f;
    uint64_t ts, seen[4];
    size_t off = PCAP_HDR_LEN, len;
    uint16_t freq;
    int8_t signal;
    int n = 0;

    src = qtest_init(args);
    qtest_clock_step(src, 128 * 1000 * 1000);
    migrate_to_file(src, path);
    qtest_quit(src);

    patch_stream(path, bad, id, sizeof(id) - 1, at, 0x80000000);
    dst = load_stream(args, bad);
    if (dst) {
        qtest_quit(dst);
        g_error("a stream with a negative beacon time loaded");
    }

    /* next beacon at 1 ns, restored at 10 s */
    patch_stream(path, bad, id, sizeof(id) - 1, at, 0);
    patch_stream(bad, bad, id, sizeof(id) - 1, at + 4, 1);
    capture_file(&cap);
    dst = qtest_initf("-machine none -object wlan-air,id=air0,pcap=%s "
                      "-object wlan-ap,id=ap0,air=air0 -incoming defer",
                      cap.path);
    qtest_clock_step(dst, restore_us * 1000);
    incoming_from_file(dst, bad);
    qobject_unref(qtest_qmp_receive(dst));      /* migrate-incoming */
    wait_migrated(dst);
    qtest_clock_step(dst, BEACON_US * 1000 * 3 / 2);
    capture_read(&cap);
    while (capture_next(&cap, &off, &ts, &f, &len, &freq, &signal)) {
        if (ts >= restore_us && f[0] == 0x80) {
            g_assert_cmpint(n, <, ARRAY_SIZE(seen));
            seen[n++] = ts;
        }
    }
    g_assert_cmpint(n, ==, 2);
    g_assert_cmpuint(seen[0], ==, restore_us);
    g_assert_cmpuint(seen[1], ==, restore_us + BEACON_US);
    qtest_quit(dst);
    capture_free(&cap);
    stream_dir_free(dir);
}

/*
 * pcap-flush-ms buffers the capture: records reach the file at the
 * host-clock timer (or when the air goes away), not one write each; the
 * count of bytes written (pcap-bytes) includes the buffered ones. 0, the
 * default, writes every record at once (a capture read while it grows).
 */
static void test_pcap_flush(void)
{
    Capture cap = { 0 };
    QTestState *qts;
    QDict *rsp;
    gint64 deadline;

    capture_file(&cap);
    /* a long timer: nothing but the header before the air goes away */
    qts = qtest_initf("-machine none -object wlan-air,id=air0,pcap=%s,"
                      "pcap-flush-ms=10000 -object wlan-ap,id=ap0,air=air0,"
                      "ssid=qtest-air,channel=11,rssi=-55", cap.path);
    g_assert_cmpuint(air_u64(qts, "pcap-flush-ms"), ==, 10000);
    for (int i = 0; i < 4; i++) {
        qtest_clock_step(qts, 128 * 1000 * 1000);
    }
    capture_read(&cap);
    g_assert_cmpuint(cap.len, ==, PCAP_HDR_LEN);
    g_assert_cmpuint(air_u64(qts, "pcap-bytes"), >, PCAP_HDR_LEN);
    qtest_quit(qts);
    /* ... and every record once it has */
    g_assert_cmpint(check_beacons(&cap, "qtest-air", 11, -55), ==, 5);
    capture_free(&cap);

    /* a short one: the records arrive without the air going away */
    memset(&cap, 0, sizeof(cap));
    capture_file(&cap);
    qts = qtest_initf("-machine none -object wlan-air,id=air0,pcap=%s,"
                      "pcap-flush-ms=20 -object wlan-ap,id=ap0,air=air0,"
                      "ssid=qtest-air,channel=11,rssi=-55", cap.path);
    for (int i = 0; i < 4; i++) {
        qtest_clock_step(qts, 128 * 1000 * 1000);
    }
    deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
    do {
        g_usleep(30 * 1000);
        air_u64(qts, "frames");         /* the main loop turns */
        capture_read(&cap);
    } while (cap.len < air_u64(qts, "pcap-bytes") &&
             g_get_monotonic_time() < deadline);
    g_assert_cmpuint(cap.len, ==, air_u64(qts, "pcap-bytes"));
    g_assert_cmpint(check_beacons(&cap, "qtest-air", 11, -55), ==, 5);
    /* bounded, and fixed once the capture is open */
    rsp = qtest_qmp(qts, "{'execute': 'qom-set', 'arguments': {"
                    "'path': '/objects/air0', 'property': 'pcap-flush-ms', "
                    "'value': 5}}");
    g_assert(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"),
                    "once the capture is open"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-air', 'id': 'air9', "
                    "'pcap-flush-ms': 60001}}");
    g_assert(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"),
                    "pcap-flush-ms"));
    qobject_unref(rsp);
    qtest_quit(qts);
    capture_free(&cap);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/ndisbench/air/beacons", test_beacons);
    qtest_add_func("/ndisbench/air/hidden", test_hidden);
    qtest_add_func("/ndisbench/air/pcap-max", test_pcap_max);
    qtest_add_func("/ndisbench/air/pcap-flush", test_pcap_flush);
    qtest_add_func("/ndisbench/air/channel-change", test_channel_change);
    qtest_add_func("/ndisbench/air/qmp-lifecycle", test_qmp_lifecycle);
    qtest_add_func("/ndisbench/air/fault-rates", test_fault_rates);
    qtest_add_func("/ndisbench/air/fault-validation", test_fault_validation);
    qtest_add_func("/ndisbench/air/migration", test_migration);
    qtest_add_func("/ndisbench/air/migration-beacon-time",
                   test_migration_beacon_time);
    return g_test_run();
}
