/*
 * ndisbench emulated air: the shared medium between WLAN radios
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   -object wlan-air,id=air0[,pcap=FILE][,pcap-max=BYTES][,pcap-flush-ms=MS]
 *           [,drop=N][,corrupt=N]
 *           [,duplicate=N][,delay-us=US][,jitter-us=US][,seed=S]
 *           [,link-listen=PORT | ,link-connect=PORT]
 *           [,link-token=HEX | ,link-token-secret=ID]
 *
 * wlan_air_transmit() copies a frame into a bounded queue and hands it to
 * every other radio tuned to the sender's channel, with the sender's
 * rssi_dbm and the FCS it sent: at once when it is due (no delay) and
 * nothing is queued ahead of it, else from a bottom half. A frame a
 * receiver transmits while it receives one waits until that receive has
 * returned, then goes out in the same run; a frame waits for the bottom
 * half while a receiver's reentrancy guard is engaged, unless that
 * receiver is the sender whose transmission is being delivered and it
 * allows it (rx_while_tx); each receive() runs with the receiver's guard
 * engaged: wlan-air.h. With pcap=FILE
 * every transmitted frame is also written there (radiotap + 802.11,
 * QEMU_CLOCK_VIRTUAL timestamps), as sent, before any fault, until the
 * file would pass pcap-max bytes (default 64 MiB): then the capture stops
 * with one warning, the file holding whole records only. pcap-flush-ms=N
 * buffers the records and writes them at most N host ms later (and when
 * the capture stops or the air goes away) instead of one write each.
 *
 * Fault injection, decided per transmitted frame (beacons included) by a
 * PRNG seeded with seed= (splitmix64), so a sequence of frames meets the
 * same faults on every run. Rates are in parts per 10000:
 * - drop: the frame never reaches any radio;
 * - corrupt: 1 to 3 bits of the frame body (of the header if the frame
 *   has no body) are flipped after the FCS was computed, so the receivers
 *   see an FCS mismatch;
 * - duplicate: the frame arrives twice, the copy with the Retry bit set,
 *   as a retransmission after a lost ACK does;
 * - delay-us + a uniform 0..jitter-us: time on QEMU_CLOCK_VIRTUAL before
 *   the frame is delivered. The medium stays first in, first out (a frame
 *   never overtakes an earlier one), as on a real channel.
 * Five PRNG draws are made for every frame whatever the rates, so changing
 * one rate does not shift the decisions of the others. The counters
 * (frames, lost, corrupted, duplicated, delayed; dropped counts frames
 * the queue could not take; deferred those the bottom half delivered,
 * not the transmit call) are read-only properties; every rate can also
 * be changed at run time with qom-set.
 *
 * The air is an object, not a device: it has no guest-visible state and
 * no migration state (vmstate) of its own. Frames still queued when a VM
 * is saved are lost, as they would be on a real medium.
 *
 * A link joins two airs (two QEMUs, or two airs of one QEMU) into one
 * medium over UDP on 127.0.0.1 (loopback only): one air has
 * link-listen=PORT (binds 127.0.0.1:PORT; the sender of the first valid
 * datagram, normally the other air's hello, becomes its peer for good:
 * datagrams from any other address are dropped), the other
 * link-connect=PORT (binds an ephemeral port, connected to PORT, so the
 * kernel drops datagrams from anyone else; it says hello when created so
 * the listener learns its address at once). Both carry the run's token
 * (link-token=HEX, or link-token-secret=ID naming a secret object, which
 * keeps it off the command line) in every datagram: any local user can
 * send to a port on 127.0.0.1, only the two airs know the token.
 * Every frame a local radio transmitted is sent over the link when it is
 * delivered here (after this air's faults: a lost frame is lost for both
 * sides, a corrupted one arrives corrupted, with the sender's FCS), and
 * the other air hands it to its radios as if it had been transmitted
 * there, on the same channel, with the sender's rssi and FCS, as soon as
 * it arrives (the two virtual clocks are independent). Frames that came
 * from the link are never sent back (no loops) and meet no fault of this
 * air: each frame meets the faults of the air it was transmitted on,
 * once. Every datagram is validated by wlan_link_parse() (wlan-link.c,
 * a pure function the libFuzzer target fuzz_wlan_link runs too: magic,
 * version, token, type, channel, length against the datagram's size); a
 * bad one, or one from another address than the peer's, is counted
 * (link-bad) and traced, never trusted. Counters: link-tx, link-rx, link-bad,
 * link-lost (not sent: no peer known yet, or the socket refused it).
 */

#include "qemu/osdep.h"
#include <zlib.h>
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/units.h"
#include "qemu/module.h"
#include "qemu/sockets.h"
#include "qemu/timer.h"
#include "qom/object_interfaces.h"
#include "crypto/secret_common.h"
#include "wlan-air.h"
#include "wlan-link.h"
#include "trace.h"

#define WLAN_AIR_QUEUE_MAX 256

QEMU_BUILD_BUG_ON(WLAN_LINK_FRAME_MAX != WLAN_MAX_FRAME);

/* Fault rates are parts per 10000; delays at most one second. */
#define WLAN_AIR_RATE_MAX   10000
#define WLAN_AIR_DELAY_MAX  1000000

#define WLAN_FC1_RETRY      0x08
#define WLAN_HDR_LEN        24

/* pcap: LINKTYPE_IEEE802_11_RADIOTAP */
#define WLAN_AIR_PCAP_MAGIC     0xa1b2c3d4
#define WLAN_AIR_PCAP_LINKTYPE  127
#define WLAN_AIR_PCAP_HDR_LEN   24
#define WLAN_AIR_PCAP_REC_LEN   16
#define WLAN_AIR_PCAP_MAX       (64 * MiB)  /* pcap-max default */
/*
 * pcap-flush-ms: 0 writes each record at once (a capture someone reads
 * while it grows); above, records gather in a buffer of this size and go
 * out at most this many host milliseconds later, one write for many (a
 * stream through the air otherwise pays a system call per frame).
 */
#define WLAN_AIR_PCAP_FLUSH_MAX 60000
#define WLAN_AIR_PCAP_BUF       (1 * MiB)

typedef struct WlanAirFrame {
    WlanRadio *sender;          /* NULL once the sender has detached */
    bool from_link;             /* transmitted on the other air */
    uint8_t channel;
    int rssi_dbm;
    uint32_t fcs;               /* as the sender computed it */
    int64_t due_ns;             /* QEMU_CLOCK_VIRTUAL delivery time */
    size_t len;
    QSIMPLEQ_ENTRY(WlanAirFrame) next;
    uint8_t data[];
} WlanAirFrame;

struct WlanAir {
    Object parent_obj;

    char *pcap_path;
    FILE *pcap;
    uint64_t pcap_max;          /* bytes the file may reach */
    uint64_t pcap_bytes;        /* bytes written (buffered included) */
    uint32_t pcap_flush_ms;     /* 0: every record at once */
    QEMUTimer *pcap_timer;      /* QEMU_CLOCK_REALTIME: the buffer out */
    char *pcap_buf;

    QEMUBH *bh;
    QEMUTimer *timer;           /* the head of the queue is delayed */
    bool delivering;            /* inside wlan_air_run(): no nesting */
    WlanRadio *transmitting;    /* its wlan_air_transmit() delivers now */
    QTAILQ_HEAD(, WlanRadio) radios;
    QSIMPLEQ_HEAD(, WlanAirFrame) queue;
    unsigned queued;
    int64_t last_due_ns;
    uint64_t dropped;

    /* Faults */
    uint32_t drop;              /* parts per 10000 */
    uint32_t corrupt;
    uint32_t duplicate;
    uint32_t delay_us;
    uint32_t jitter_us;
    uint64_t seed;
    uint64_t rng;

    /* Counters */
    uint64_t frames;            /* transmitted and queued */
    uint64_t lost;              /* dropped by the drop rate */
    uint64_t corrupted;
    uint64_t duplicated;
    uint64_t delayed;
    uint64_t deferred;          /* delivered by the bottom half */

    /* The link to another air (see the top of this file) */
    uint16_t link_listen;       /* port to bind, or 0 */
    uint16_t link_connect;      /* port to send to, or 0 */
    bool link_token_set;        /* link-token= given */
    uint8_t link_token[WLAN_LINK_TOKEN_LEN];
    char *link_token_secret;    /* link-token-secret=: a secret object */
    int link_fd;                /* -1: no link */
    struct sockaddr_in link_peer;
    bool link_peer_known;       /* pinned: only it is heard */
    uint64_t link_tx;
    uint64_t link_rx;
    uint64_t link_bad;
    uint64_t link_lost;
};

/* A fault setting: a uint32 property with a range. */
typedef struct WlanAirKnob {
    const char *name;
    size_t offset;
    uint32_t max;
    const char *unit;
    const char *desc;
} WlanAirKnob;

static const WlanAirKnob wlan_air_knobs[] = {
    { "drop", offsetof(WlanAir, drop), WLAN_AIR_RATE_MAX,
      "parts per 10000", "frames lost, in parts per 10000" },
    { "corrupt", offsetof(WlanAir, corrupt), WLAN_AIR_RATE_MAX,
      "parts per 10000", "frames with bit errors (bad FCS), in parts per "
      "10000" },
    { "duplicate", offsetof(WlanAir, duplicate), WLAN_AIR_RATE_MAX,
      "parts per 10000", "frames received twice (the copy with the Retry "
      "bit), in parts per 10000" },
    { "delay-us", offsetof(WlanAir, delay_us), WLAN_AIR_DELAY_MAX,
      "microseconds", "fixed delivery delay, microseconds of virtual time" },
    { "jitter-us", offsetof(WlanAir, jitter_us), WLAN_AIR_DELAY_MAX,
      "microseconds", "random extra delay, 0 to this many microseconds" },
};

/* Radiotap header: channel (freq, flags) and antenna signal in dBm. */
typedef struct QEMU_PACKED WlanAirRadiotap {
    uint8_t version;
    uint8_t pad;
    uint16_t len;
    uint32_t present;
    uint16_t freq;
    uint16_t chan_flags;
    int8_t signal_dbm;
    uint8_t antenna;            /* only in frames from the link */
} WlanAirRadiotap;

#define WLAN_AIR_RT_CHANNEL     (1u << 3)
#define WLAN_AIR_RT_DBM_SIGNAL  (1u << 5)
#define WLAN_AIR_RT_ANTENNA     (1u << 11)
/* Antenna 1 in the capture: the frame arrived over the link. */
#define WLAN_AIR_RT_LINK_ANTENNA 1
#define WLAN_AIR_RT_CHAN_2GHZ   0x0080

static uint16_t wlan_air_channel_freq(uint8_t channel)
{
    return channel == 14 ? 2484 : 2407 + 5 * channel;
}

/* The capture ends: what is buffered goes out, the file is closed. */
static void wlan_air_pcap_close(WlanAir *air)
{
    if (air->pcap && fclose(air->pcap) != 0) {
        trace_wlan_air_pcap_error(air->pcap_path, errno);
    }
    air->pcap = NULL;
    if (air->pcap_timer) {
        timer_del(air->pcap_timer);
    }
}

static void wlan_air_pcap_flush(void *opaque)
{
    WlanAir *air = opaque;

    if (air->pcap && fflush(air->pcap) != 0) {
        trace_wlan_air_pcap_error(air->pcap_path, errno);
        wlan_air_pcap_close(air);
    }
}

/*
 * Local frames as sent (channel, signal); frames from the link as they
 * arrived, with antenna 1 added (rt_len 14 instead of 13).
 */
static void wlan_air_pcap_write(WlanAir *air, const WlanAirFrame *f)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    size_t rt_len = sizeof(WlanAirRadiotap) - (f->from_link ? 0 : 1);
    WlanAirRadiotap rt = {
        .len = cpu_to_le16(rt_len),
        .present = cpu_to_le32(WLAN_AIR_RT_CHANNEL | WLAN_AIR_RT_DBM_SIGNAL |
                               (f->from_link ? WLAN_AIR_RT_ANTENNA : 0)),
        .freq = cpu_to_le16(wlan_air_channel_freq(f->channel)),
        .chan_flags = cpu_to_le16(WLAN_AIR_RT_CHAN_2GHZ),
        .signal_dbm = MAX(-128, MIN(127, f->rssi_dbm)),
        .antenna = WLAN_AIR_RT_LINK_ANTENNA,
    };
    uint32_t rec[4] = {
        now / NANOSECONDS_PER_SECOND,
        (now % NANOSECONDS_PER_SECOND) / 1000,
        rt_len + f->len,
        rt_len + f->len,
    };
    uint64_t size = sizeof(rec) + rt_len + f->len;

    if (air->pcap_bytes + size > air->pcap_max) {
        /* Whole records only: the file stays a valid capture. */
        trace_wlan_air_pcap_full(air->pcap_path, air->pcap_bytes,
                                 air->pcap_max);
        warn_report("wlan-air: pcap %s reached pcap-max=%" PRIu64 " bytes: "
                    "capture stopped", air->pcap_path, air->pcap_max);
        wlan_air_pcap_close(air);
        return;
    }
    air->pcap_bytes += size;
    if (fwrite(rec, sizeof(rec), 1, air->pcap) != 1 ||
        fwrite(&rt, rt_len, 1, air->pcap) != 1 ||
        fwrite(f->data, f->len, 1, air->pcap) != 1) {
        trace_wlan_air_pcap_error(air->pcap_path, errno);
        wlan_air_pcap_close(air);
        return;
    }
    if (!air->pcap_flush_ms) {
        wlan_air_pcap_flush(air);
    } else if (!timer_pending(air->pcap_timer)) {
        timer_mod(air->pcap_timer,
                  qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + air->pcap_flush_ms);
    }
}

uint32_t wlan_air_fcs(const uint8_t *frame, size_t len)
{
    return crc32(0, frame, len);
}

/* splitmix64: small, fast, and any seed (0 too) gives a good sequence. */
static uint64_t wlan_air_rand(WlanAir *air)
{
    uint64_t z = (air->rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A local frame, as this air delivers it, to the other air. */
static void wlan_air_link_send(WlanAir *air, const WlanAirFrame *f)
{
    uint8_t buf[WLAN_LINK_DGRAM_MAX];
    size_t len;
    ssize_t n;

    if (air->link_fd < 0 || f->from_link) {
        return;
    }
    if (!air->link_peer_known) {
        air->link_lost++;
        trace_wlan_air_link_lost(f->len, "no peer yet");
        return;
    }
    len = wlan_link_build(buf, sizeof(buf), WLAN_LINK_FRAME, f->channel,
                          f->rssi_dbm, f->fcs, f->data, f->len,
                          air->link_token);
    assert(len);                /* f->len is 1..WLAN_MAX_FRAME */
    do {
        n = sendto(air->link_fd, buf, len, 0,
                   (struct sockaddr *)&air->link_peer,
                   sizeof(air->link_peer));
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)len) {
        /* ECONNREFUSED: nobody listens (yet); EAGAIN: the peer is slow */
        air->link_lost++;
        trace_wlan_air_link_lost(f->len, n < 0 ? strerror(errno) :
                                 "short send");
        return;
    }
    air->link_tx++;
    trace_wlan_air_link_tx(f->len, f->channel);
}

/*
 * Is a radio other than @sender inside one of its own handlers right now
 * (its reentrancy guard engaged)? Then nothing is delivered to it until
 * it has returned: the frame waits for the bottom half. Except the radio
 * whose transmission is being delivered right now, when it says it can
 * receive there (rx_while_tx, wlan-air.h): an answer to its frame (an
 * access point's bridge replying at once) reaches it in the same call,
 * as a wired NIC model's answer from the net backend does.
 */
static bool wlan_air_receiver_busy(WlanAir *air, const WlanRadio *sender)
{
    WlanRadio *radio;

    QTAILQ_FOREACH(radio, &air->radios, link) {
        if (radio != sender && radio->guard && radio->guard->engaged_in_io &&
            !(radio == air->transmitting && radio->rx_while_tx)) {
            return true;
        }
    }
    return false;
}

static void wlan_air_deliver(WlanAir *air, WlanAirFrame *f)
{
    WlanRadio *radio, *next;

    wlan_air_link_send(air, f);

    QTAILQ_FOREACH_SAFE(radio, &air->radios, link, next) {
        bool engaged;

        if (radio == f->sender || radio->channel != f->channel ||
            !radio->receive) {
            continue;
        }
        trace_wlan_air_deliver(radio->name, f->len, f->channel, f->rssi_dbm,
                               f->from_link);
        /*
         * The receiver's guard is engaged while it receives, as if the
         * frame came through one of its own handlers: an MSI or DMA of
         * its that comes back to its own registers is refused.
         */
        if (radio->guard) {
            engaged = radio->guard->engaged_in_io;
            radio->guard->engaged_in_io = true;
            radio->receive(radio, f->data, f->len, f->fcs, f->rssi_dbm);
            radio->guard->engaged_in_io = engaged;
        } else {
            radio->receive(radio, f->data, f->len, f->fcs, f->rssi_dbm);
        }
    }
}

/*
 * Deliver the frames that are due, in order. Receivers may transmit (an
 * access point answering a probe, its bridge answering a data frame):
 * their frames go to the tail and are delivered after the receive that
 * sent them has returned, so a radio is never re-entered from its own
 * receive or transmit path. A run delivers what was queued when it
 * started and at most WLAN_AIR_QUEUE_MAX frames more (radios answering
 * each other without end); the rest waits for the bottom half.
 */
static void wlan_air_run(WlanAir *air, bool from_bh)
{
    unsigned budget = air->queued + WLAN_AIR_QUEUE_MAX;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    air->delivering = true;
    while (budget-- && !QSIMPLEQ_EMPTY(&air->queue)) {
        WlanAirFrame *f = QSIMPLEQ_FIRST(&air->queue);

        /* (the clock moves on while receivers run: a frame they sent) */
        if (f->due_ns > now &&
            f->due_ns > (now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL))) {
            /* Delayed: the queue is in delivery order, wait for it. */
            timer_mod(air->timer, f->due_ns);
            air->delivering = false;
            return;
        }
        if (wlan_air_receiver_busy(air, f->sender)) {
            /* A bottom half run from a nested event loop: later. */
            break;
        }
        QSIMPLEQ_REMOVE_HEAD(&air->queue, next);
        air->queued--;
        wlan_air_deliver(air, f);
        if (from_bh) {
            air->deferred++;
        }
        g_free(f);
    }
    air->delivering = false;
    if (!QSIMPLEQ_EMPTY(&air->queue)) {
        qemu_bh_schedule(air->bh);
    }
}

static void wlan_air_bh(void *opaque)
{
    wlan_air_run(opaque, true);
}

static void wlan_air_timer(void *opaque)
{
    WlanAir *air = opaque;

    qemu_bh_schedule(air->bh);
}

void wlan_air_attach(WlanAir *air, WlanRadio *radio)
{
    assert(air && radio && !radio->air);
    radio->air = air;
    QTAILQ_INSERT_TAIL(&air->radios, radio, link);
    trace_wlan_air_attach(radio->name, radio->channel);
}

void wlan_air_detach(WlanRadio *radio)
{
    WlanAir *air = radio->air;
    WlanAirFrame *f;

    if (!air) {
        return;
    }
    QSIMPLEQ_FOREACH(f, &air->queue, next) {
        if (f->sender == radio) {
            f->sender = NULL;
        }
    }
    QTAILQ_REMOVE(&air->radios, radio, link);
    radio->air = NULL;
    trace_wlan_air_detach(radio->name);
}

static WlanAirFrame *wlan_air_enqueue(WlanAir *air, WlanRadio *radio,
                                      const uint8_t *frame, size_t len,
                                      int64_t due_ns)
{
    WlanAirFrame *f;

    if (air->queued >= WLAN_AIR_QUEUE_MAX) {
        air->dropped++;
        trace_wlan_air_drop(radio->name, len, "queue full");
        return NULL;
    }
    f = g_malloc(sizeof(*f) + len);
    f->sender = radio;
    f->from_link = false;
    f->channel = radio->channel;
    f->rssi_dbm = radio->rssi_dbm;
    f->len = len;
    memcpy(f->data, frame, len);
    f->fcs = wlan_air_fcs(f->data, len);
    f->due_ns = due_ns;
    QSIMPLEQ_INSERT_TAIL(&air->queue, f, next);
    air->queued++;
    return f;
}

/*
 * Flip 1..3 distinct bits of the body (of the header when there is no
 * body), chosen by r: CRC-32 detects every such error, so the FCS never
 * matches again.
 */
static void wlan_air_corrupt(WlanAirFrame *f, uint64_t r)
{
    size_t start = f->len > WLAN_HDR_LEN ? WLAN_HDR_LEN : 0;
    uint32_t nbits = (f->len - start) * 8;     /* at least 8 */
    uint32_t bits[3], bit;
    int flips = 1 + r % 3, i, j;

    r /= 3;
    for (i = 0; i < flips; i++) {
        bit = (r & 0xffff) % nbits;
        r >>= 16;
        /* distinct bits: two flips of one bit would cancel out */
        for (j = 0; j < i; j++) {
            if (bits[j] == bit) {
                bit = (bit + 1) % nbits;
                j = -1;
            }
        }
        bits[i] = bit;
        f->data[start + bit / 8] ^= 1 << (bit % 8);
    }
}

void wlan_air_transmit(WlanRadio *radio, const uint8_t *frame, size_t len)
{
    WlanAir *air = radio->air;
    WlanAirFrame *f, *copy;
    uint64_t r_drop, r_corrupt, r_dup, r_jitter, r_bits;
    int64_t now, due;
    uint32_t delay_us;

    if (!air) {
        trace_wlan_air_drop(radio->name, len, "radio not attached");
        return;
    }
    if (len == 0 || len > WLAN_MAX_FRAME) {
        air->dropped++;
        trace_wlan_air_drop(radio->name, len, "bad length");
        return;
    }

    /* Always five draws per frame: see the comment at the top. */
    r_drop = wlan_air_rand(air);
    r_corrupt = wlan_air_rand(air);
    r_dup = wlan_air_rand(air);
    r_jitter = wlan_air_rand(air);
    r_bits = wlan_air_rand(air);

    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    delay_us = air->delay_us;
    if (air->jitter_us) {
        delay_us += r_jitter % ((uint64_t)air->jitter_us + 1);
    }
    due = MAX(now + (int64_t)delay_us * SCALE_US, air->last_due_ns);

    f = wlan_air_enqueue(air, radio, frame, len, due);
    if (!f) {
        return;
    }
    air->frames++;
    trace_wlan_air_transmit(radio->name, len, f->channel, air->queued);
    if (air->pcap) {
        wlan_air_pcap_write(air, f);
    }
    if (r_drop % WLAN_AIR_RATE_MAX < air->drop) {
        /* Lost on the way: the sender sent it (pcap), nobody hears it. */
        QSIMPLEQ_REMOVE(&air->queue, f, WlanAirFrame, next);
        air->queued--;
        g_free(f);
        air->lost++;
        trace_wlan_air_fault(radio->name, len, "dropped");
        return;
    }
    air->last_due_ns = due;
    if (due > now) {
        air->delayed++;
        trace_wlan_air_delay(radio->name, len, delay_us);
    }
    if (r_dup % WLAN_AIR_RATE_MAX < air->duplicate) {
        copy = wlan_air_enqueue(air, radio, frame, len, due);
        if (copy) {
            if (len >= 2) {
                copy->data[1] |= WLAN_FC1_RETRY;
                copy->fcs = wlan_air_fcs(copy->data, len);
            }
            air->duplicated++;
            trace_wlan_air_fault(radio->name, len, "duplicated");
        }
    }
    if (r_corrupt % WLAN_AIR_RATE_MAX < air->corrupt) {
        wlan_air_corrupt(f, r_bits);
        air->corrupted++;
        trace_wlan_air_fault(radio->name, len, "corrupted");
    }
    /*
     * A frame due now is delivered at once, as a wired NIC model hands
     * its packet to the net backend inside the guest's register write:
     * a bottom half would wait for the main loop thread, which on a
     * busy host is a scheduler slice per frame while the guest idles.
     * Only when nothing is queued ahead of it (so only this frame, and
     * its duplicate, go out here, never to the sender), not from inside
     * a delivery (a receiver transmitting), and not while a receiver is
     * inside one of its own handlers (wlan-air.h): those wait for the
     * bottom half.
     */
    if (!air->delivering && due <= now && QSIMPLEQ_FIRST(&air->queue) == f &&
        !wlan_air_receiver_busy(air, radio)) {
        WlanRadio *outer = air->transmitting;

        air->transmitting = radio;
        wlan_air_run(air, false);
        air->transmitting = outer;
    } else if (!air->delivering) {
        qemu_bh_schedule(air->bh);
    }
    /*
     * Else the run under way takes it once the receive that sent it has
     * returned, or schedules the bottom half when it stops early: no
     * main-loop wakeup per answer here.
     */
}

/* -- the link ------------------------------------------------------------ */

static void wlan_air_link_bad(WlanAir *air, const char *why, size_t len)
{
    air->link_bad++;
    trace_wlan_air_link_bad(why, len);
}

/* A frame from the other air: deliver it here, as if sent here. */
static void wlan_air_link_frame(WlanAir *air, const WlanLinkDatagram *d)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    WlanAirFrame *f;

    if (air->queued >= WLAN_AIR_QUEUE_MAX) {
        air->dropped++;
        trace_wlan_air_drop("link", d->len, "queue full");
        return;
    }
    f = g_malloc(sizeof(*f) + d->len);
    f->sender = NULL;
    f->from_link = true;
    f->channel = d->channel;
    f->rssi_dbm = d->rssi_dbm;
    f->fcs = d->fcs;
    f->len = d->len;
    memcpy(f->data, d->frame, d->len);
    /* First in, first out with the local frames: never overtake one. */
    f->due_ns = MAX(now, air->last_due_ns);
    QSIMPLEQ_INSERT_TAIL(&air->queue, f, next);
    air->queued++;
    air->link_rx++;
    trace_wlan_air_link_rx(d->len, f->channel);
    if (air->pcap) {
        wlan_air_pcap_write(air, f);
    }
    qemu_bh_schedule(air->bh);
}

/*
 * One datagram from the link. Nothing in it is trusted: the size read is
 * the only length used, and wlan_link_parse() checks the header against
 * it and the token against ours. The listener hears only the address of
 * the first valid datagram (the other air's hello) from then on; the
 * connecting air's socket is connected, so the kernel drops the others.
 */
static void wlan_air_link_read(void *opaque)
{
    WlanAir *air = opaque;
    uint8_t buf[WLAN_LINK_DGRAM_MAX + 1];
    struct sockaddr_in from;
    socklen_t fromlen = sizeof(from);
    WlanLinkDatagram d;
    WlanLinkError err;
    ssize_t n;

    n = recvfrom(air->link_fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
                 &fromlen);
    if (n < 0) {
        /* EAGAIN, EINTR; ECONNREFUSED after a send nobody received */
        return;
    }
    if (air->link_listen) {
        if (fromlen != sizeof(from) || from.sin_family != AF_INET) {
            wlan_air_link_bad(air, "not from an IPv4 sender", n);
            return;
        }
        if (air->link_peer_known &&
            (from.sin_addr.s_addr != air->link_peer.sin_addr.s_addr ||
             from.sin_port != air->link_peer.sin_port)) {
            wlan_air_link_bad(air, "not from the peer", ntohs(from.sin_port));
            return;
        }
    }
    err = wlan_link_parse(buf, n, air->link_token, &d);
    if (err != WLAN_LINK_OK) {
        wlan_air_link_bad(air, wlan_link_error_str(err), n);
        return;
    }
    if (air->link_listen && !air->link_peer_known) {
        /* Pinned: a datagram of anyone else is dropped from now on. */
        air->link_peer = from;
        air->link_peer_known = true;
        trace_wlan_air_link_peer(ntohs(from.sin_port));
    }
    if (d.type == WLAN_LINK_FRAME) {
        wlan_air_link_frame(air, &d);
    }
}

/* The run's token: link-token=HEX, or the secret link-token-secret names. */
static bool wlan_air_link_token(WlanAir *air, Error **errp)
{
    g_autofree char *hex = NULL;

    if (air->link_token_set && air->link_token_secret) {
        error_setg(errp, "wlan-air: link-token and link-token-secret "
                   "exclude each other");
        return false;
    }
    if (air->link_token_set) {
        return true;
    }
    if (!air->link_token_secret) {
        error_setg(errp, "wlan-air: a link needs link-token=HEX (%d hex "
                   "digits, the same on both airs; python3 -c 'import "
                   "secrets; print(secrets.token_hex(%d))') or "
                   "link-token-secret=ID (a secret object holding them)",
                   2 * WLAN_LINK_TOKEN_LEN, WLAN_LINK_TOKEN_LEN);
        return false;
    }
    hex = qcrypto_secret_lookup_as_utf8(air->link_token_secret, errp);
    if (!hex) {
        error_prepend(errp, "wlan-air: link-token-secret=%s: ",
                      air->link_token_secret);
        return false;
    }
    g_strstrip(hex);
    if (!wlan_link_parse_token(hex, air->link_token)) {
        error_setg(errp, "wlan-air: link-token-secret=%s: the secret is "
                   "not %d hex digits", air->link_token_secret,
                   2 * WLAN_LINK_TOKEN_LEN);
        return false;
    }
    return true;
}

static bool wlan_air_link_open(WlanAir *air, Error **errp)
{
    struct sockaddr_in local = {
        .sin_family = AF_INET,
        .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
        .sin_port = htons(air->link_listen),
    };
    uint8_t hello[WLAN_LINK_HDR_LEN];
    const char *what = air->link_listen ? "link-listen" : "link-connect";
    uint16_t port = air->link_listen ? air->link_listen : air->link_connect;
    size_t hello_len;
    int fd;

    if (air->link_listen && air->link_connect) {
        error_setg(errp, "wlan-air: link-listen and link-connect exclude "
                   "each other (one air listens, the other connects)");
        return false;
    }
    if (!wlan_air_link_token(air, errp)) {
        return false;
    }
    hello_len = wlan_link_build(hello, sizeof(hello), WLAN_LINK_HELLO, 0, 0,
                                0, NULL, 0, air->link_token);
    fd = qemu_socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        error_setg_errno(errp, errno, "wlan-air: %s=%u: cannot create a UDP "
                         "socket", what, port);
        return false;
    }
    if (bind(fd, (struct sockaddr *)&local, sizeof(local)) < 0) {
        error_setg_errno(errp, errno, "wlan-air: %s=%u: cannot bind "
                         "127.0.0.1:%u", what, port, air->link_listen);
        close(fd);
        return false;
    }
    if (air->link_connect) {
        air->link_peer = local;
        air->link_peer.sin_port = htons(air->link_connect);
        if (connect(fd, (struct sockaddr *)&air->link_peer,
                    sizeof(air->link_peer)) < 0) {
            error_setg_errno(errp, errno, "wlan-air: link-connect=%u: "
                             "cannot connect to 127.0.0.1:%u", port, port);
            close(fd);
            return false;
        }
        air->link_peer_known = true;
    }
    qemu_socket_set_nonblock(fd);
    air->link_fd = fd;
    qemu_set_fd_handler(fd, wlan_air_link_read, NULL, air);
    trace_wlan_air_link_open(what, port);
    if (air->link_connect &&
        send(fd, hello, hello_len, 0) != (ssize_t)hello_len) {
        /* Nobody listens yet: the first frame will introduce us. */
        trace_wlan_air_link_lost(0, "hello not sent");
    }
    return true;
}

static void wlan_air_get_port(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    uint16_t value = *(uint16_t *)((char *)obj + (size_t)opaque);

    visit_type_uint16(v, name, &value, errp);
}

static void wlan_air_set_port(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    WlanAir *air = WLAN_AIR(obj);
    uint16_t value;

    if (air->timer) {
        error_setg(errp, "wlan-air: %s cannot be changed once the air "
                   "exists", name);
        return;
    }
    if (!visit_type_uint16(v, name, &value, errp)) {
        return;
    }
    if (value == 0) {
        error_setg(errp, "wlan-air: %s=0: a UDP port on 127.0.0.1 is "
                   "needed (1 to 65535)", name);
        return;
    }
    *(uint16_t *)((char *)obj + (size_t)opaque) = value;
}

static void wlan_air_set_token(Object *obj, const char *value, Error **errp)
{
    WlanAir *air = WLAN_AIR(obj);

    if (air->timer) {
        error_setg(errp, "wlan-air: link-token cannot be changed once the "
                   "air exists");
        return;
    }
    if (!wlan_link_parse_token(value, air->link_token)) {
        error_setg(errp, "wlan-air: link-token must be %d hex digits",
                   2 * WLAN_LINK_TOKEN_LEN);
        return;
    }
    air->link_token_set = true;
}

static char *wlan_air_get_token_secret(Object *obj, Error **errp)
{
    return g_strdup(WLAN_AIR(obj)->link_token_secret);
}

static void wlan_air_set_token_secret(Object *obj, const char *value,
                                      Error **errp)
{
    WlanAir *air = WLAN_AIR(obj);

    if (air->timer) {
        error_setg(errp, "wlan-air: link-token-secret cannot be changed "
                   "once the air exists");
        return;
    }
    g_free(air->link_token_secret);
    air->link_token_secret = g_strdup(value);
}

WlanAir *wlan_air_find(const char *id, Error **errp)
{
    Object *obj = object_resolve_path_component(object_get_objects_root(),
                                                id);

    if (!obj) {
        obj = object_resolve_path(id, NULL);
    }
    if (!obj) {
        error_setg(errp, "air '%s' not found (create it with -object "
                   "wlan-air,id=%s)", id, id);
        return NULL;
    }
    if (!object_dynamic_cast(obj, TYPE_WLAN_AIR)) {
        error_setg(errp, "'%s' is a %s, not a wlan-air", id,
                   object_get_typename(obj));
        return NULL;
    }
    return WLAN_AIR(obj);
}

static char *wlan_air_get_pcap(Object *obj, Error **errp)
{
    return g_strdup(WLAN_AIR(obj)->pcap_path);
}

static void wlan_air_set_pcap(Object *obj, const char *value, Error **errp)
{
    WlanAir *air = WLAN_AIR(obj);

    if (air->pcap) {
        error_setg(errp, "wlan-air: pcap cannot be changed once the air "
                   "exists");
        return;
    }
    g_free(air->pcap_path);
    air->pcap_path = g_strdup(value);
}

static void wlan_air_get_pcap_max(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    visit_type_uint64(v, name, &WLAN_AIR(obj)->pcap_max, errp);
}

static void wlan_air_set_pcap_max(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    WlanAir *air = WLAN_AIR(obj);
    uint64_t value;

    if (air->pcap) {
        error_setg(errp, "wlan-air: pcap-max cannot be changed once the "
                   "capture is open");
        return;
    }
    if (!visit_type_uint64(v, name, &value, errp)) {
        return;
    }
    if (value < WLAN_AIR_PCAP_HDR_LEN) {
        error_setg(errp, "wlan-air: pcap-max=%" PRIu64 " is smaller than "
                   "the file header (%d bytes)", value,
                   WLAN_AIR_PCAP_HDR_LEN);
        return;
    }
    air->pcap_max = value;
}

static void wlan_air_get_pcap_flush(Object *obj, Visitor *v,
                                    const char *name, void *opaque,
                                    Error **errp)
{
    visit_type_uint32(v, name, &WLAN_AIR(obj)->pcap_flush_ms, errp);
}

static void wlan_air_set_pcap_flush(Object *obj, Visitor *v,
                                    const char *name, void *opaque,
                                    Error **errp)
{
    WlanAir *air = WLAN_AIR(obj);
    uint32_t value;

    if (air->pcap) {
        error_setg(errp, "wlan-air: pcap-flush-ms cannot be changed once "
                   "the capture is open");
        return;
    }
    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value > WLAN_AIR_PCAP_FLUSH_MAX) {
        error_setg(errp, "wlan-air: pcap-flush-ms=%" PRIu32 " is more than "
                   "%d", value, WLAN_AIR_PCAP_FLUSH_MAX);
        return;
    }
    air->pcap_flush_ms = value;
}

static void wlan_air_get_knob(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    const WlanAirKnob *knob = opaque;
    uint32_t value = *(uint32_t *)((char *)obj + knob->offset);

    visit_type_uint32(v, name, &value, errp);
}

static void wlan_air_set_knob(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    const WlanAirKnob *knob = opaque;
    uint32_t value;

    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value > knob->max) {
        error_setg(errp, "wlan-air: %s=%" PRIu32 " is out of range "
                   "(0 to %" PRIu32 ", %s)", name, value, knob->max,
                   knob->unit);
        return;
    }
    *(uint32_t *)((char *)obj + knob->offset) = value;
    trace_wlan_air_set(name, value);
}

static void wlan_air_get_seed(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    visit_type_uint64(v, name, &WLAN_AIR(obj)->seed, errp);
}

/* Setting the seed restarts the PRNG: the same faults from here on. */
static void wlan_air_set_seed(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    WlanAir *air = WLAN_AIR(obj);
    uint64_t value;

    if (!visit_type_uint64(v, name, &value, errp)) {
        return;
    }
    air->seed = value;
    air->rng = value;
}

static void wlan_air_complete(UserCreatable *uc, Error **errp)
{
    WlanAir *air = WLAN_AIR(uc);
    uint32_t hdr[WLAN_AIR_PCAP_HDR_LEN / 4] = {
        WLAN_AIR_PCAP_MAGIC,
        2 | (4 << 16),          /* version 2.4, host byte order */
        0,                      /* thiszone */
        0,                      /* sigfigs */
        65535,                  /* snaplen */
        WLAN_AIR_PCAP_LINKTYPE,
    };

    air->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, wlan_air_timer, air);
    if ((air->link_listen || air->link_connect) &&
        !wlan_air_link_open(air, errp)) {
        return;
    }
    if (!air->pcap_path) {
        return;
    }
    air->pcap = fopen(air->pcap_path, "wb");
    if (!air->pcap) {
        error_setg_errno(errp, errno, "wlan-air: cannot open pcap file '%s'",
                         air->pcap_path);
        return;
    }
    if (air->pcap_flush_ms) {
        air->pcap_buf = g_malloc(WLAN_AIR_PCAP_BUF);
        setvbuf(air->pcap, air->pcap_buf, _IOFBF, WLAN_AIR_PCAP_BUF);
        air->pcap_timer = timer_new_ms(QEMU_CLOCK_REALTIME,
                                       wlan_air_pcap_flush, air);
    }
    air->pcap_bytes = sizeof(hdr);
    if (fwrite(hdr, sizeof(hdr), 1, air->pcap) != 1 ||
        fflush(air->pcap) != 0) {
        error_setg_errno(errp, errno, "wlan-air: cannot write pcap file "
                         "'%s'", air->pcap_path);
        wlan_air_pcap_close(air);
    }
}

static bool wlan_air_can_be_deleted(UserCreatable *uc)
{
    return QTAILQ_EMPTY(&WLAN_AIR(uc)->radios);
}


/* The counters, as read-only QOM properties of the same names. */
static const struct {
    const char *name;
    size_t offset;
} wlan_air_counters[] = {
    { "dropped", offsetof(WlanAir, dropped) },
    { "frames", offsetof(WlanAir, frames) },
    { "lost", offsetof(WlanAir, lost) },
    { "corrupted", offsetof(WlanAir, corrupted) },
    { "duplicated", offsetof(WlanAir, duplicated) },
    { "delayed", offsetof(WlanAir, delayed) },
    { "deferred", offsetof(WlanAir, deferred) },
    { "link-tx", offsetof(WlanAir, link_tx) },
    { "link-rx", offsetof(WlanAir, link_rx) },
    { "link-bad", offsetof(WlanAir, link_bad) },
    { "link-lost", offsetof(WlanAir, link_lost) },
    { "pcap-bytes", offsetof(WlanAir, pcap_bytes) },
};

static void wlan_air_init(Object *obj)
{
    WlanAir *air = WLAN_AIR(obj);
    size_t i;

    QTAILQ_INIT(&air->radios);
    QSIMPLEQ_INIT(&air->queue);
    air->link_fd = -1;
    air->pcap_max = WLAN_AIR_PCAP_MAX;
    air->bh = qemu_bh_new(wlan_air_bh, air);
    /* Read-only counters: qom-get air0 dropped */
    for (i = 0; i < ARRAY_SIZE(wlan_air_counters); i++) {
        object_property_add_uint64_ptr(obj, wlan_air_counters[i].name,
                                       (uint64_t *)((char *)air +
                                           wlan_air_counters[i].offset),
                                       OBJ_PROP_FLAG_READ);
    }
}

static void wlan_air_finalize(Object *obj)
{
    WlanAir *air = WLAN_AIR(obj);
    WlanAirFrame *f, *next;
    WlanRadio *radio, *next_radio;

    /*
     * At exit objects go away in any order: radios still attached find
     * radio->air == NULL and stop using the air.
     */
    QTAILQ_FOREACH_SAFE(radio, &air->radios, link, next_radio) {
        wlan_air_detach(radio);
    }
    if (air->link_fd >= 0) {
        qemu_set_fd_handler(air->link_fd, NULL, NULL, NULL);
        close(air->link_fd);
    }
    qemu_bh_delete(air->bh);
    if (air->timer) {
        timer_free(air->timer);
    }
    QSIMPLEQ_FOREACH_SAFE(f, &air->queue, next, next) {
        g_free(f);
    }
    wlan_air_pcap_close(air);
    if (air->pcap_timer) {
        timer_free(air->pcap_timer);
    }
    g_free(air->pcap_buf);      /* after fclose: it was the file's buffer */
    g_free(air->pcap_path);
    g_free(air->link_token_secret);
    memset(air->link_token, 0, sizeof(air->link_token));
}

static void wlan_air_class_init(ObjectClass *oc, void *data)
{
    UserCreatableClass *ucc = USER_CREATABLE_CLASS(oc);
    int i;

    ucc->complete = wlan_air_complete;
    ucc->can_be_deleted = wlan_air_can_be_deleted;

    object_class_property_add_str(oc, "pcap", wlan_air_get_pcap,
                                  wlan_air_set_pcap);
    object_class_property_set_description(oc, "pcap",
        "write every frame on the air to this file (radiotap + 802.11)");
    object_class_property_add(oc, "pcap-max", "uint64", wlan_air_get_pcap_max,
                              wlan_air_set_pcap_max, NULL, NULL);
    object_class_property_set_description(oc, "pcap-max",
        "bytes the pcap file may reach; the capture stops before a frame "
        "would take it further (default 64 MiB)");
    object_class_property_add(oc, "pcap-flush-ms", "uint32",
                              wlan_air_get_pcap_flush,
                              wlan_air_set_pcap_flush, NULL, NULL);
    object_class_property_set_description(oc, "pcap-flush-ms",
        "0 (default): each record written at once; 1 to 60000: records "
        "buffered and written at most this many host ms later");

    for (i = 0; i < ARRAY_SIZE(wlan_air_knobs); i++) {
        const WlanAirKnob *knob = &wlan_air_knobs[i];

        object_class_property_add(oc, knob->name, "uint32",
                                  wlan_air_get_knob, wlan_air_set_knob,
                                  NULL, (void *)knob);
        object_class_property_set_description(oc, knob->name, knob->desc);
    }
    object_class_property_add(oc, "seed", "uint64", wlan_air_get_seed,
                              wlan_air_set_seed, NULL, NULL);
    object_class_property_set_description(oc, "seed",
        "seed of the fault PRNG: the same seed, the same faults");
    object_class_property_add(oc, "link-listen", "uint16", wlan_air_get_port,
                              wlan_air_set_port, NULL,
                              (void *)offsetof(WlanAir, link_listen));
    object_class_property_set_description(oc, "link-listen",
        "join the air of another QEMU: listen on UDP 127.0.0.1:PORT");
    object_class_property_add(oc, "link-connect", "uint16",
                              wlan_air_get_port, wlan_air_set_port, NULL,
                              (void *)offsetof(WlanAir, link_connect));
    object_class_property_set_description(oc, "link-connect",
        "join the air of another QEMU: the one with link-listen=PORT");
    /* Write only: qom-get does not hand the token out. */
    object_class_property_add_str(oc, "link-token", NULL,
                                  wlan_air_set_token);
    object_class_property_set_description(oc, "link-token",
        "the run's link token, 32 hex digits, the same on both airs: "
        "datagrams without it are dropped");
    object_class_property_add_str(oc, "link-token-secret",
                                  wlan_air_get_token_secret,
                                  wlan_air_set_token_secret);
    object_class_property_set_description(oc, "link-token-secret",
        "id of a secret object holding the link token (keeps it off the "
        "command line)");
}

static const TypeInfo wlan_air_info = {
    .name = TYPE_WLAN_AIR,
    .parent = TYPE_OBJECT,
    .instance_size = sizeof(WlanAir),
    .instance_init = wlan_air_init,
    .instance_finalize = wlan_air_finalize,
    .class_init = wlan_air_class_init,
    .interfaces = (InterfaceInfo[]) {
        { TYPE_USER_CREATABLE },
        { }
    },
};

static void wlan_air_register_types(void)
{
    type_register_static(&wlan_air_info);
}

type_init(wlan_air_register_types)
