/*
 * ndisbench emulated air: the shared medium between WLAN radios
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   -object wlan-air,id=air0[,pcap=FILE][,drop=N][,corrupt=N]
 *           [,duplicate=N][,delay-us=US][,jitter-us=US][,seed=S]
 *
 * wlan_air_transmit() copies a frame into a bounded queue; a bottom half
 * hands it to every other radio tuned to the sender's channel, with the
 * sender's rssi_dbm and the FCS it sent. With pcap=FILE every transmitted
 * frame is also written there (radiotap + 802.11, QEMU_CLOCK_VIRTUAL
 * timestamps), as sent, before any fault.
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
 * the queue could not take) are read-only properties; every rate can also
 * be changed at run time with qom-set.
 *
 * The air is an object, not a device: it has no guest-visible state and
 * no migration state (vmstate) of its own. Frames still queued when a VM
 * is saved are lost, as they would be on a real medium.
 */

#include "qemu/osdep.h"
#include <zlib.h>
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qom/object_interfaces.h"
#include "wlan-air.h"
#include "trace.h"

#define WLAN_AIR_QUEUE_MAX 256

/* Fault rates are parts per 10000; delays at most one second. */
#define WLAN_AIR_RATE_MAX   10000
#define WLAN_AIR_DELAY_MAX  1000000

#define WLAN_FC1_RETRY      0x08
#define WLAN_HDR_LEN        24

/* pcap: LINKTYPE_IEEE802_11_RADIOTAP */
#define WLAN_AIR_PCAP_MAGIC     0xa1b2c3d4
#define WLAN_AIR_PCAP_LINKTYPE  127

typedef struct WlanAirFrame {
    WlanRadio *sender;          /* NULL once the sender has detached */
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

    QEMUBH *bh;
    QEMUTimer *timer;           /* the head of the queue is delayed */
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
} WlanAirRadiotap;

#define WLAN_AIR_RT_CHANNEL     (1u << 3)
#define WLAN_AIR_RT_DBM_SIGNAL  (1u << 5)
#define WLAN_AIR_RT_CHAN_2GHZ   0x0080

static uint16_t wlan_air_channel_freq(uint8_t channel)
{
    return channel == 14 ? 2484 : 2407 + 5 * channel;
}

static void wlan_air_pcap_write(WlanAir *air, const WlanAirFrame *f)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    WlanAirRadiotap rt = {
        .len = cpu_to_le16(sizeof(WlanAirRadiotap)),
        .present = cpu_to_le32(WLAN_AIR_RT_CHANNEL | WLAN_AIR_RT_DBM_SIGNAL),
        .freq = cpu_to_le16(wlan_air_channel_freq(f->channel)),
        .chan_flags = cpu_to_le16(WLAN_AIR_RT_CHAN_2GHZ),
        .signal_dbm = MAX(-128, MIN(127, f->rssi_dbm)),
    };
    uint32_t rec[4] = {
        now / NANOSECONDS_PER_SECOND,
        (now % NANOSECONDS_PER_SECOND) / 1000,
        sizeof(rt) + f->len,
        sizeof(rt) + f->len,
    };

    if (fwrite(rec, sizeof(rec), 1, air->pcap) != 1 ||
        fwrite(&rt, sizeof(rt), 1, air->pcap) != 1 ||
        fwrite(f->data, f->len, 1, air->pcap) != 1 ||
        fflush(air->pcap) != 0) {
        trace_wlan_air_pcap_error(air->pcap_path, errno);
        fclose(air->pcap);
        air->pcap = NULL;
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

static void wlan_air_deliver(WlanAir *air, WlanAirFrame *f)
{
    WlanRadio *radio, *next;

    QTAILQ_FOREACH_SAFE(radio, &air->radios, link, next) {
        if (radio == f->sender || radio->channel != f->channel ||
            !radio->receive) {
            continue;
        }
        trace_wlan_air_deliver(radio->name, f->len, f->channel, f->rssi_dbm);
        radio->receive(radio, f->data, f->len, f->fcs, f->rssi_dbm);
    }
}

static void wlan_air_bh(void *opaque)
{
    WlanAir *air = opaque;
    unsigned budget = air->queued;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    /*
     * Receivers may transmit (an access point answering a probe): their
     * frames go to the tail and wait for the next run of the bottom half.
     */
    while (budget-- && !QSIMPLEQ_EMPTY(&air->queue)) {
        WlanAirFrame *f = QSIMPLEQ_FIRST(&air->queue);

        if (f->due_ns > now) {
            /* Delayed: the queue is in delivery order, wait for it. */
            timer_mod(air->timer, f->due_ns);
            return;
        }
        QSIMPLEQ_REMOVE_HEAD(&air->queue, next);
        air->queued--;
        wlan_air_deliver(air, f);
        g_free(f);
    }
    if (!QSIMPLEQ_EMPTY(&air->queue)) {
        qemu_bh_schedule(air->bh);
    }
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
    qemu_bh_schedule(air->bh);
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
    uint32_t hdr[6] = {
        WLAN_AIR_PCAP_MAGIC,
        2 | (4 << 16),          /* version 2.4, host byte order */
        0,                      /* thiszone */
        0,                      /* sigfigs */
        65535,                  /* snaplen */
        WLAN_AIR_PCAP_LINKTYPE,
    };

    air->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, wlan_air_timer, air);
    if (!air->pcap_path) {
        return;
    }
    air->pcap = fopen(air->pcap_path, "wb");
    if (!air->pcap) {
        error_setg_errno(errp, errno, "wlan-air: cannot open pcap file '%s'",
                         air->pcap_path);
        return;
    }
    if (fwrite(hdr, sizeof(hdr), 1, air->pcap) != 1 ||
        fflush(air->pcap) != 0) {
        error_setg_errno(errp, errno, "wlan-air: cannot write pcap file "
                         "'%s'", air->pcap_path);
        fclose(air->pcap);
        air->pcap = NULL;
    }
}

static bool wlan_air_can_be_deleted(UserCreatable *uc)
{
    return QTAILQ_EMPTY(&WLAN_AIR(uc)->radios);
}

static void wlan_air_init(Object *obj)
{
    WlanAir *air = WLAN_AIR(obj);

    QTAILQ_INIT(&air->radios);
    QSIMPLEQ_INIT(&air->queue);
    air->bh = qemu_bh_new(wlan_air_bh, air);
    /* Read-only counters: qom-get air0 dropped */
    object_property_add_uint64_ptr(obj, "dropped", &air->dropped,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "frames", &air->frames,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "lost", &air->lost,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "corrupted", &air->corrupted,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "duplicated", &air->duplicated,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "delayed", &air->delayed,
                                   OBJ_PROP_FLAG_READ);
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
    qemu_bh_delete(air->bh);
    if (air->timer) {
        timer_free(air->timer);
    }
    QSIMPLEQ_FOREACH_SAFE(f, &air->queue, next, next) {
        g_free(f);
    }
    if (air->pcap) {
        fclose(air->pcap);
    }
    g_free(air->pcap_path);
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
