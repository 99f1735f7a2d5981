/*
 * ndisbench emulated air: the shared medium between WLAN radios
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   -object wlan-air,id=air0[,pcap=FILE]
 *
 * wlan_air_transmit() copies a frame into a bounded queue; a bottom half
 * hands it to every other radio tuned to the sender's channel, with the
 * sender's rssi_dbm. With pcap=FILE every transmitted frame is also
 * written there (radiotap + 802.11, QEMU_CLOCK_VIRTUAL timestamps).
 *
 * The air is an object, not a device: it has no guest-visible state and
 * no migration state (vmstate) of its own. Frames still queued when a VM
 * is saved are lost, as they would be on a real medium.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qom/object_interfaces.h"
#include "wlan-air.h"
#include "trace.h"

#define WLAN_AIR_QUEUE_MAX 256

/* pcap: LINKTYPE_IEEE802_11_RADIOTAP */
#define WLAN_AIR_PCAP_MAGIC     0xa1b2c3d4
#define WLAN_AIR_PCAP_LINKTYPE  127

typedef struct WlanAirFrame {
    WlanRadio *sender;          /* NULL once the sender has detached */
    uint8_t channel;
    int rssi_dbm;
    size_t len;
    QSIMPLEQ_ENTRY(WlanAirFrame) next;
    uint8_t data[];
} WlanAirFrame;

struct WlanAir {
    Object parent_obj;

    char *pcap_path;
    FILE *pcap;

    QEMUBH *bh;
    QTAILQ_HEAD(, WlanRadio) radios;
    QSIMPLEQ_HEAD(, WlanAirFrame) queue;
    unsigned queued;
    uint64_t dropped;
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

static void wlan_air_deliver(WlanAir *air, WlanAirFrame *f)
{
    WlanRadio *radio, *next;

    QTAILQ_FOREACH_SAFE(radio, &air->radios, link, next) {
        if (radio == f->sender || radio->channel != f->channel ||
            !radio->receive) {
            continue;
        }
        trace_wlan_air_deliver(radio->name, f->len, f->channel, f->rssi_dbm);
        radio->receive(radio, f->data, f->len, f->rssi_dbm);
    }
}

static void wlan_air_bh(void *opaque)
{
    WlanAir *air = opaque;
    unsigned budget = air->queued;

    /*
     * Receivers may transmit (an access point answering a probe): their
     * frames go to the tail and wait for the next run of the bottom half.
     */
    while (budget-- && !QSIMPLEQ_EMPTY(&air->queue)) {
        WlanAirFrame *f = QSIMPLEQ_FIRST(&air->queue);

        QSIMPLEQ_REMOVE_HEAD(&air->queue, next);
        air->queued--;
        wlan_air_deliver(air, f);
        g_free(f);
    }
    if (!QSIMPLEQ_EMPTY(&air->queue)) {
        qemu_bh_schedule(air->bh);
    }
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

void wlan_air_transmit(WlanRadio *radio, const uint8_t *frame, size_t len)
{
    WlanAir *air = radio->air;
    WlanAirFrame *f;

    if (!air) {
        trace_wlan_air_drop(radio->name, len, "radio not attached");
        return;
    }
    if (len == 0 || len > WLAN_MAX_FRAME) {
        air->dropped++;
        trace_wlan_air_drop(radio->name, len, "bad length");
        return;
    }
    if (air->queued >= WLAN_AIR_QUEUE_MAX) {
        air->dropped++;
        trace_wlan_air_drop(radio->name, len, "queue full");
        return;
    }
    f = g_malloc(sizeof(*f) + len);
    f->sender = radio;
    f->channel = radio->channel;
    f->rssi_dbm = radio->rssi_dbm;
    f->len = len;
    memcpy(f->data, frame, len);
    QSIMPLEQ_INSERT_TAIL(&air->queue, f, next);
    air->queued++;
    trace_wlan_air_transmit(radio->name, len, f->channel, air->queued);
    if (air->pcap) {
        wlan_air_pcap_write(air, f);
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
    /* Read-only counter for tests: qom-get air0 dropped */
    object_property_add_uint64_ptr(obj, "dropped", &air->dropped,
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

    ucc->complete = wlan_air_complete;
    ucc->can_be_deleted = wlan_air_can_be_deleted;

    object_class_property_add_str(oc, "pcap", wlan_air_get_pcap,
                                  wlan_air_set_pcap);
    object_class_property_set_description(oc, "pcap",
        "write every frame on the air to this file (radiotap + 802.11)");
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
