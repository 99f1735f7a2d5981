/*
 * ndisbench emulated air: the shared medium between WLAN radios
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Radios (the bcm43xx and usb-rtl8187 device models, the wlan-ap access
 * points) attach to one wlan-air object and exchange raw 802.11 frames
 * (no FCS in the buffer: the FCS the sender computed travels beside it).
 * A frame is heard by every other radio on the same channel, never by its
 * sender: at once, inside the sender's wlan_air_transmit() call, when it
 * is due and nothing is queued ahead of it (as a wired NIC model hands its
 * packet to the net backend inside the guest's register write), otherwise
 * from a bottom half. So a receiver may run inside another device's MMIO
 * handler, and what it does there (an MSI, a DMA) may reach that device's
 * registers: every model must be safe against that on its own, without
 * the memory core's reentrancy guard (QEMU 7.2 before 7.2.6 has none;
 * bcm43xx's x-reentrancy-guard=off tests it).
 *
 * Where the guard exists the air uses it: a radio's receive() runs with
 * the radio's guard (WlanRadio.guard, its DeviceState's) engaged, so an
 * MSI or DMA of the receiver that comes back to its own registers is
 * refused; and a frame waits for the bottom half while a receiver's guard
 * is engaged (one of its handlers is on the stack: its MSI rang the
 * sender's doorbell, say), so a radio never receives inside itself; the
 * one exception is an answer to a radio's own frame while its transmit
 * is being delivered, when the radio sets rx_while_tx. A frame a
 * receiver transmits while it receives goes out once that receive has
 * returned.
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
#include "hw/qdev-core.h"          /* MemReentrancyGuard */

#define TYPE_WLAN_AIR "wlan-air"
OBJECT_DECLARE_SIMPLE_TYPE(WlanAir, WLAN_AIR)

typedef struct WlanRadio WlanRadio;

/*
 * Called by the air (inside the sender's transmit call or from a bottom
 * half, see above) with a frame heard on the channel and the FCS its
 * sender transmitted (CRC-32 of the frame as sent).
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
    /* The owner's reentrancy guard (its DeviceState's), or NULL */
    MemReentrancyGuard *guard;
    /*
     * receive() may run inside this radio's own wlan_air_transmit() call
     * (its TX path re-reads its state after transmitting): an answer to
     * the frame, sent at once by the receiver, then arrives before the
     * transmit returns instead of from the bottom half.
     */
    bool rx_while_tx;

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
