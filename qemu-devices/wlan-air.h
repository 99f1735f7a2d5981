/*
 * ndisbench emulated air: the shared medium between WLAN radios
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Radios (the bcm43xx and usb-rtl8187 device models, the wlan-ap access
 * points) attach to one wlan-air object and exchange raw 802.11 frames
 * (no FCS). A frame is heard by every other radio on the same channel.
 * Delivery happens from a bottom half, never inside the sender's call, so
 * a device model's MMIO handler is never re-entered by its own traffic.
 *
 *   -object wlan-air,id=air0[,pcap=FILE]
 *   -device bcm43xx,air=air0
 */
#ifndef NDISBENCH_WLAN_AIR_H
#define NDISBENCH_WLAN_AIR_H

#include "qemu/queue.h"
#include "qom/object.h"

#define TYPE_WLAN_AIR "wlan-air"
OBJECT_DECLARE_SIMPLE_TYPE(WlanAir, WLAN_AIR)

typedef struct WlanRadio WlanRadio;

/* Called from the air's bottom half with a frame heard on the channel. */
typedef void WlanRadioReceive(WlanRadio *radio, const uint8_t *frame,
                              size_t len, int rssi_dbm);

struct WlanRadio {
    /* Filled in by the owner before wlan_air_attach(). */
    const char *name;           /* for traces */
    uint8_t channel;            /* 1..14; may change while attached */
    int rssi_dbm;               /* how strongly others hear this radio */
    WlanRadioReceive *receive;
    void *opaque;

    /* Private to wlan-air. */
    WlanAir *air;
    QTAILQ_ENTRY(WlanRadio) link;
};

#define WLAN_MAX_FRAME 2346     /* 802.11 MSDU + header, no FCS */

/*
 * The wlan-air object with this id (or QOM path), for a radio's "air"
 * property; NULL and an error naming it if there is none.
 */
WlanAir *wlan_air_find(const char *id, Error **errp);

void wlan_air_attach(WlanAir *air, WlanRadio *radio);
void wlan_air_detach(WlanRadio *radio);
/* Copies the frame; frames longer than WLAN_MAX_FRAME are dropped. */
void wlan_air_transmit(WlanRadio *radio, const uint8_t *frame, size_t len);

#endif /* NDISBENCH_WLAN_AIR_H */
