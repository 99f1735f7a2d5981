/*
 * QTest for the link between two wlan-air objects (link-listen=,
 * link-connect=): one medium across two QEMUs
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Two airs of one QEMU linked over 127.0.0.1 carry each other's frames
 * exactly once (no echo); the test itself plays the other air on a UDP
 * socket to check the datagram format, that a frame from the link reaches
 * a radio (the AP answers a probe request sent over it) and that malformed
 * datagrams are rejected and counted.
 */

#include "qemu/osdep.h"
#include <poll.h>
#include "qemu/bswap.h"
#include "qemu/sockets.h"
#include "libqtest.h"
#include "qapi/qmp/qdict.h"
#include "ndisbench-qtest.h"

#define LINK_MAGIC      0x4e42414cu
#define LINK_VERSION    2
#define LINK_TOKEN_LEN  16
#define LINK_HDR_LEN    (16 + LINK_TOKEN_LEN)
#define LINK_FRAME      0
#define LINK_HELLO      1
#define MAX_FRAME       2346
#define PCAP_HDR_LEN    24
#define PCAP_REC_LEN    16
#define WAIT_US         (5 * 1000 * 1000)

static const uint8_t ap0_bssid[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x00 };
static const uint8_t ap1_bssid[6] = { 0x02, 0x00, 0x00, 0x00, 0x02, 0x00 };
static const uint8_t sta_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x09, 0x09 };

/* The run's link token (link-token=), and one that is not it. */
#define TOKEN_HEX       "00112233445566778899aabbccddeeff"
static const uint8_t token[LINK_TOKEN_LEN] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};
static const uint8_t wrong_token[LINK_TOKEN_LEN] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xfe,
};

static uint64_t counter(QTestState *qts, const char *air, const char *name)
{
    QDict *rsp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                           "'path': %s, 'property': %s}}", air, name);
    uint64_t val;

    g_assert(qdict_haskey(rsp, "return"));
    val = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return val;
}

/* Wait (real time: datagrams) until the counter reaches want. */
static uint64_t wait_counter(QTestState *qts, const char *air,
                             const char *name, uint64_t want)
{
    uint64_t val = 0;
    int waited;

    for (waited = 0; waited < WAIT_US; waited += 10000) {
        val = counter(qts, air, name);
        if (val >= want) {
            break;
        }
        g_usleep(10000);
    }
    return val;
}

/* The test's end of a link: a socket connected to the air's port. */
static int peer_socket(uint16_t port)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                             .sin_port = htons(port) };
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    g_assert(fd >= 0);
    g_assert(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    return fd;
}

static size_t link_header_tok(uint8_t *buf, uint8_t type, uint8_t channel,
                              const uint8_t *frame, size_t len,
                              const uint8_t *tok)
{
    stl_be_p(buf, LINK_MAGIC);
    buf[4] = LINK_VERSION;
    buf[5] = type;
    buf[6] = channel;
    buf[7] = (uint8_t)-50;
    stw_be_p(buf + 8, len);
    stw_be_p(buf + 10, 0);
    stl_be_p(buf + 12, frame ? fcs32(frame, len) : 0);
    memcpy(buf + 16, tok, LINK_TOKEN_LEN);
    if (frame) {
        memcpy(buf + LINK_HDR_LEN, frame, len);
    }
    return LINK_HDR_LEN + len;
}

static size_t link_header(uint8_t *buf, uint8_t type, uint8_t channel,
                          const uint8_t *frame, size_t len)
{
    return link_header_tok(buf, type, channel, frame, len, token);
}

/* A wildcard probe request from sta_mac. */
static size_t probe_request(uint8_t *f)
{
    static const uint8_t ies[] = { 0, 0, 1, 4, 0x82, 0x84, 0x8b, 0x96 };

    memset(f, 0, 24);
    f[0] = 0x40;
    memset(f + 4, 0xff, 6);
    memcpy(f + 10, sta_mac, 6);
    memset(f + 16, 0xff, 6);
    memcpy(f + 24, ies, sizeof(ies));
    return 24 + sizeof(ies);
}

static void send_dgram(int fd, const uint8_t *buf, size_t len)
{
    g_assert_cmpint(send(fd, buf, len, 0), ==, len);
}

/* The next datagram from the air within timeout_ms, or 0. */
static ssize_t recv_dgram(int fd, uint8_t *buf, size_t size, int timeout_ms)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN };

    if (poll(&pfd, 1, timeout_ms) <= 0) {
        return 0;
    }
    return recv(fd, buf, size, 0);
}

static QTestState *start_listener(uint16_t port)
{
    return qtest_initf("-machine none -object wlan-air,id=air0,"
                       "link-listen=%u,link-token=" TOKEN_HEX " "
                       "-object wlan-ap,id=ap0,air=air0", port);
}

/*
 * The test as the other air: a probe request sent over the link reaches
 * the AP, whose probe response comes back over it in the link format;
 * the request itself is never sent back.
 */
static void test_frame_crosses(void)
{
    uint16_t port = free_udp_port();
    QTestState *qts = start_listener(port);
    int fd = peer_socket(port);
    uint8_t out[LINK_HDR_LEN + MAX_FRAME], in[LINK_HDR_LEN + MAX_FRAME + 1];
    uint8_t frame[64];
    size_t flen = probe_request(frame);
    bool answered = false;
    ssize_t n;

    send_dgram(fd, out, link_header(out, LINK_HELLO, 0, NULL, 0));
    send_dgram(fd, out, link_header(out, LINK_FRAME, 6, frame, flen));
    g_assert_cmpuint(wait_counter(qts, "/objects/air0", "link-rx", 1), ==,
                     1);
    /* No clock step, so no beacon: what comes back is the AP's answer. */
    while ((n = recv_dgram(fd, in, sizeof(in), 2000)) > 0) {
        size_t len;

        g_assert_cmpint(n, >=, LINK_HDR_LEN + 24);
        g_assert_cmphex(ldl_be_p(in), ==, LINK_MAGIC);
        g_assert_cmpuint(in[4], ==, LINK_VERSION);
        g_assert(!memcmp(in + 16, token, LINK_TOKEN_LEN));
        g_assert_cmpuint(in[5], ==, LINK_FRAME);
        g_assert_cmpuint(in[6], ==, 6);
        g_assert_cmpint((int8_t)in[7], ==, -40);
        len = lduw_be_p(in + 8);
        g_assert_cmpuint(len, ==, n - LINK_HDR_LEN);
        g_assert_cmphex(ldl_be_p(in + 12), ==,
                        fcs32(in + LINK_HDR_LEN, len));
        /* never our own probe request echoed */
        g_assert_cmphex(in[LINK_HDR_LEN], !=, 0x40);
        if (in[LINK_HDR_LEN] == 0x50 &&
            !memcmp(in + LINK_HDR_LEN + 4, sta_mac, 6) &&
            !memcmp(in + LINK_HDR_LEN + 10, ap0_bssid, 6)) {
            answered = true;
            break;
        }
    }
    g_assert_true(answered);
    g_assert_cmpuint(counter(qts, "/objects/air0", "link-tx"), ==, 1);
    g_assert_cmpuint(counter(qts, "/objects/air0", "link-bad"), ==, 0);
    close(fd);
    qtest_quit(qts);
}

/* Malformed datagrams are counted and dropped; the link still works. */
static void test_malformed(void)
{
    uint16_t port = free_udp_port();
    QTestState *qts = start_listener(port);
    int fd = peer_socket(port);
    static uint8_t buf[LINK_HDR_LEN + 3000];
    uint8_t frame[64], in[LINK_HDR_LEN + MAX_FRAME];
    size_t flen = probe_request(frame), len;
    unsigned bad = 0;

    /* shorter than the header */
    send_dgram(fd, buf, link_header(buf, LINK_FRAME, 6, frame, flen) - flen
               - 8);
    bad++;
    /* the old format (version 1, a 16-byte header without token) */
    len = link_header(buf, LINK_FRAME, 6, frame, flen);
    buf[4] = 1;
    send_dgram(fd, buf, len);
    bad++;
    /* a wrong token, one bit off */
    send_dgram(fd, buf, link_header_tok(buf, LINK_FRAME, 6, frame, flen,
                                        wrong_token));
    bad++;
    /* bad magic */
    len = link_header(buf, LINK_FRAME, 6, frame, flen);
    buf[0] ^= 0xff;
    send_dgram(fd, buf, len);
    bad++;
    /* unknown version */
    len = link_header(buf, LINK_FRAME, 6, frame, flen);
    buf[4] = 3;
    send_dgram(fd, buf, len);
    bad++;
    /* reserved field set */
    len = link_header(buf, LINK_FRAME, 6, frame, flen);
    buf[11] = 1;
    send_dgram(fd, buf, len);
    bad++;
    /* the header's length says more than the datagram holds, and less */
    len = link_header(buf, LINK_FRAME, 6, frame, flen);
    send_dgram(fd, buf, len - 10);
    bad++;
    stw_be_p(buf + 8, flen - 1);
    send_dgram(fd, buf, len);
    bad++;
    /* channels 0 and 15 */
    len = link_header(buf, LINK_FRAME, 0, frame, flen);
    send_dgram(fd, buf, len);
    len = link_header(buf, LINK_FRAME, 15, frame, flen);
    send_dgram(fd, buf, len);
    bad += 2;
    /* an empty frame; one longer than 802.11 allows (consistent header) */
    send_dgram(fd, buf, link_header(buf, LINK_FRAME, 6, frame, 0));
    memset(buf + LINK_HDR_LEN, 0, 3000);
    link_header(buf, LINK_FRAME, 6, NULL, 3000);
    send_dgram(fd, buf, LINK_HDR_LEN + 3000);
    bad += 2;
    /* unknown type; a hello with a body */
    send_dgram(fd, buf, link_header(buf, 7, 6, frame, flen));
    send_dgram(fd, buf, link_header(buf, LINK_HELLO, 0, frame, flen));
    bad += 2;

    g_assert_cmpuint(wait_counter(qts, "/objects/air0", "link-bad", bad),
                     ==, bad);
    g_assert_cmpuint(counter(qts, "/objects/air0", "link-rx"), ==, 0);
    /* Nothing valid came: the AP heard nothing, so it answered nothing. */
    g_assert_cmpint(recv_dgram(fd, in, sizeof(in), 200), ==, 0);

    /* A good frame after all that still crosses. */
    send_dgram(fd, buf, link_header(buf, LINK_FRAME, 6, frame, flen));
    g_assert_cmpuint(wait_counter(qts, "/objects/air0", "link-rx", 1), ==,
                     1);
    g_assert_cmpint(recv_dgram(fd, in, sizeof(in), 2000), >, LINK_HDR_LEN);
    g_assert_cmpuint(counter(qts, "/objects/air0", "link-bad"), ==, bad);
    close(fd);
    qtest_quit(qts);
}

/*
 * Once the other air said hello, the listener hears only it: a datagram
 * from another local port, token and all, is dropped and counted, and
 * does not make its sender the peer (the AP's answer still goes to the
 * first); one from the peer's port with a wrong token is dropped too.
 */
static void test_hijack(void)
{
    uint16_t port = free_udp_port();
    QTestState *qts = start_listener(port);
    int fd = peer_socket(port), evil = peer_socket(port);
    uint8_t out[LINK_HDR_LEN + MAX_FRAME], in[LINK_HDR_LEN + MAX_FRAME + 1];
    uint8_t frame[64];
    size_t flen = probe_request(frame);

    send_dgram(fd, out, link_header(out, LINK_HELLO, 0, NULL, 0));
    g_usleep(100 * 1000);
    counter(qts, "/objects/air0", "link-rx");
    send_dgram(evil, out, link_header(out, LINK_HELLO, 0, NULL, 0));
    send_dgram(evil, out, link_header(out, LINK_FRAME, 6, frame, flen));
    /* and one from the peer's own port with a wrong token */
    send_dgram(fd, out, link_header_tok(out, LINK_FRAME, 6, frame, flen,
                                        wrong_token));
    g_assert_cmpuint(wait_counter(qts, "/objects/air0", "link-bad", 3), ==,
                     3);
    g_assert_cmpuint(counter(qts, "/objects/air0", "link-rx"), ==, 0);
    g_assert_cmpint(recv_dgram(evil, in, sizeof(in), 200), ==, 0);

    /* the peer's own frame still crosses, and the answer comes to it */
    send_dgram(fd, out, link_header(out, LINK_FRAME, 6, frame, flen));
    g_assert_cmpuint(wait_counter(qts, "/objects/air0", "link-rx", 1), ==,
                     1);
    g_assert_cmpint(recv_dgram(fd, in, sizeof(in), 2000), >, LINK_HDR_LEN);
    g_assert_cmpint(recv_dgram(evil, in, sizeof(in), 200), ==, 0);
    close(evil);
    close(fd);
    qtest_quit(qts);
}

/* pcap records of @path from the link (antenna field) and local ones. */
static void count_capture(const char *path, const uint8_t *local_bssid,
                          const uint8_t *remote_bssid, unsigned *local,
                          unsigned *remote)
{
    g_autofree gchar *data = NULL;
    gsize size, off = PCAP_HDR_LEN;

    *local = *remote = 0;
    g_assert(g_file_get_contents(path, &data, &size, NULL));
    while (off + PCAP_REC_LEN <= size) {
        uint32_t incl = ldl_le_p(data + off + 8);
        const uint8_t *rt = (const uint8_t *)data + off + PCAP_REC_LEN;
        uint16_t rt_len;
        uint32_t present;

        g_assert(off + PCAP_REC_LEN + incl <= size);
        rt_len = lduw_le_p(rt + 2);
        present = ldl_le_p(rt + 4);
        g_assert_cmpuint(incl, >=, rt_len + 24);
        if (present & (1u << 11)) {
            /* from the link: antenna 1, the other air's AP */
            g_assert_cmpuint(rt_len, ==, 14);
            g_assert_cmpuint(rt[13], ==, 1);
            g_assert(!memcmp(rt + rt_len + 10, remote_bssid, 6));
            (*remote)++;
        } else {
            g_assert_cmpuint(rt_len, ==, 13);
            g_assert(!memcmp(rt + rt_len + 10, local_bssid, 6));
            (*local)++;
        }
        off += PCAP_REC_LEN + incl;
    }
    g_assert_cmpuint(off, ==, size);
}

/*
 * Two airs of one QEMU linked, an AP on each: every beacon crosses once,
 * each way, and nothing comes back (an echo would make link-tx exceed
 * the frames transmitted locally, and the counts grow without end).
 */
static void test_two_airs(void)
{
    uint16_t port = free_udp_port();
    g_autofree char *pcap = NULL, *tokfile = NULL;
    QTestState *qts;
    uint64_t tx0, tx1, frames0, frames1;
    unsigned local, remote;
    int fd, tokfd;

    fd = g_file_open_tmp("ndisbench-link-XXXXXX.pcap", &pcap, NULL);
    g_assert(fd >= 0);
    close(fd);
    tokfd = g_file_open_tmp("ndisbench-link-XXXXXX.token", &tokfile, NULL);
    g_assert(tokfd >= 0);
    g_assert_cmpint(write(tokfd, TOKEN_HEX "\n", 33), ==, 33);
    close(tokfd);
    /* air1 reads the token from a secret object (a file), air0 inline */
    qts = qtest_initf("-machine none "
                      "-object secret,id=tok,file=%s,format=raw "
                      "-object wlan-air,id=air0,link-listen=%u,"
                      "link-token=" TOKEN_HEX " "
                      "-object wlan-air,id=air1,link-connect=%u,pcap=%s,"
                      "link-token-secret=tok "
                      "-object wlan-ap,id=ap0,air=air0,bssid=%s "
                      "-object wlan-ap,id=ap1,air=air1,bssid=%s",
                      tokfile, port, port, pcap, "02:00:00:00:01:00",
                      "02:00:00:00:02:00");
    /* let air0 read air1's hello before anything is transmitted */
    g_usleep(100 * 1000);
    counter(qts, "/objects/air0", "link-rx");
    qtest_clock_step(qts, 1000 * 1000 * 1000);

    frames0 = counter(qts, "/objects/air0", "frames");
    frames1 = counter(qts, "/objects/air1", "frames");
    g_assert_cmpuint(frames0, >=, 9);
    g_assert_cmpuint(frames1, >=, 9);
    tx0 = counter(qts, "/objects/air0", "link-tx");
    tx1 = counter(qts, "/objects/air1", "link-tx");
    g_assert_cmpuint(tx0, ==, frames0);
    g_assert_cmpuint(tx1, ==, frames1);
    g_assert_cmpuint(wait_counter(qts, "/objects/air1", "link-rx", tx0), ==,
                     tx0);
    g_assert_cmpuint(wait_counter(qts, "/objects/air0", "link-rx", tx1), ==,
                     tx1);
    /* give an echo time to show up, then count again */
    g_usleep(200 * 1000);
    g_assert_cmpuint(counter(qts, "/objects/air0", "link-tx"), ==, tx0);
    g_assert_cmpuint(counter(qts, "/objects/air1", "link-tx"), ==, tx1);
    g_assert_cmpuint(counter(qts, "/objects/air1", "link-rx"), ==, tx0);
    g_assert_cmpuint(counter(qts, "/objects/air0", "link-lost"), ==, 0);
    g_assert_cmpuint(counter(qts, "/objects/air0", "link-bad"), ==, 0);
    g_assert_cmpuint(counter(qts, "/objects/air1", "link-bad"), ==, 0);

    /* air1's capture: its own beacons, and air0's marked as from the link */
    count_capture(pcap, ap1_bssid, ap0_bssid, &local, &remote);
    g_assert_cmpuint(local, ==, frames1);
    g_assert_cmpuint(remote, ==, tx0);
    qtest_quit(qts);
    unlink(pcap);
    unlink(tokfile);
}

/* A port already taken, and both ends on one air, are errors. */
static void test_link_validation(void)
{
    uint16_t port = free_udp_port();
    QTestState *qts = start_listener(port);
    QDict *rsp;

    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-air', 'id': 'air1', "
                    "'link-listen': %u, 'link-token': %s}}", port, TOKEN_HEX);
    g_assert(qdict_haskey(rsp, "error"));
    g_assert(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"),
                    "cannot bind"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-air', 'id': 'air2', "
                    "'link-listen': %u, 'link-connect': %u}}", port + 1,
                    port);
    g_assert(qdict_haskey(rsp, "error"));
    g_assert(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"),
                    "exclude each other"));
    qobject_unref(rsp);
    /* no token, a token that is not 32 hex digits, an unknown secret */
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-air', 'id': 'air3', "
                    "'link-connect': %u}}", port);
    g_assert(qdict_haskey(rsp, "error"));
    g_assert(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"),
                    "needs link-token"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-air', 'id': 'air4', "
                    "'link-connect': %u, 'link-token': '0011'}}", port);
    g_assert(qdict_haskey(rsp, "error"));
    g_assert(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"),
                    "32 hex digits"));
    qobject_unref(rsp);
    rsp = qtest_qmp(qts, "{'execute': 'object-add', 'arguments': {"
                    "'qom-type': 'wlan-air', 'id': 'air5', "
                    "'link-connect': %u, 'link-token-secret': 'nope'}}",
                    port);
    g_assert(qdict_haskey(rsp, "error"));
    g_assert(strstr(qdict_get_str(qdict_get_qdict(rsp, "error"), "desc"),
                    "link-token-secret=nope"));
    qobject_unref(rsp);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/ndisbench/link/frame-crosses", test_frame_crosses);
    qtest_add_func("/ndisbench/link/malformed", test_malformed);
    qtest_add_func("/ndisbench/link/hijack", test_hijack);
    qtest_add_func("/ndisbench/link/two-airs", test_two_airs);
    qtest_add_func("/ndisbench/link/validation", test_link_validation);
    return g_test_run();
}
