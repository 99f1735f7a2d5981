/*
 * ndisbench emulated air: the shared medium between WLAN radios
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Radios (the bcm43xx and usb-rtl8187 device models, the wlan-ap access
 * points) attach to one wlan-air object and exchange raw 802.11 frames
 * (no FCS in the buffer: the FCS the sender computed travels beside it).
 * A frame is heard by every other radio on the same channel. Delivery
 * happens from a bottom half, never inside the sender's call, so a device
 * model's MMIO handler is never re-entered by its own traffic.
 *
 * The air can be faulty (drop=, corrupt=, duplicate=, delay-us=,
 * jitter-us=, seed=; see wlan-air.c): a corrupted frame arrives with bit
 * errors, so wlan_air_fcs() of what was received no longer matches the
 * fcs argument, and each receiver does what its hardware does with a bad
 * FCS (drop it, or flag it in its RX header).
 *
 *   -object wlan-air,id=air0[,pcap=FILE][,drop=N][,corrupt=N]...
 *   -device bcm43xx,air=air0
 */
#ifndef NDISBENCH_WLAN_AIR_H
#define NDISBENCH_WLAN_AIR_H

#include "qemu/queue.h"
#include "qom/object.h"

#define TYPE_WLAN_AIR "wlan-air"
OBJECT_DECLARE_SIMPLE_TYPE(WlanAir, WLAN_AIR)

typedef struct WlanRadio WlanRadio;

/*
 * Called from the air's bottom half with a frame heard on the channel and
 * the FCS its sender transmitted (CRC-32 of the frame as sent).
 */
typedef void WlanRadioReceive(WlanRadio *radio, const uint8_t *frame,
                              size_t len, uint32_t fcs, int rssi_dbm);

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

/* The 802.11 FCS (IEEE CRC-32) of a frame. */
uint32_t wlan_air_fcs(const uint8_t *frame, size_t len);

/* Does the received frame match the FCS it was sent with? */
static inline bool wlan_air_fcs_ok(const uint8_t *frame, size_t len,
                                   uint32_t fcs)
{
    return wlan_air_fcs(frame, len) == fcs;
}

#endif /* NDISBENCH_WLAN_AIR_H */
