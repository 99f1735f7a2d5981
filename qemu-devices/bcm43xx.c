/*
 * ndisbench bcm43xx-class PCI WLAN device (SoftMAC, DMA64 rings)
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 2 of the License, or
 * (at your option) any later version.
 *
 * The register map and the DMA layout are in include/bcm43xx_regs.h, which
 * the Windows fixture driver shares. The device sends and receives raw
 * 802.11 frames (no FCS) on a wlan-air object:
 *
 *   -object wlan-air,id=air0 -device bcm43xx,air=air0[,mac=...]
 *
 * Behaviour the header leaves open, decided here:
 * - TX: one descriptor per frame (FRAMESTART | FRAMEEND); a descriptor
 *   without both bits is a DMAERR_DESC error. TX_DONE is raised for a
 *   completed descriptor only if it has BCM43XX_DCTL0_IRQ.
 * - RX: RX_DONE is raised for every frame written to a buffer; a buffer
 *   too small for header + frame drops the frame (guest error, the slot
 *   is not consumed).
 * - A ring is checked (bus mastering on, size 2..512, base 16-byte
 *   aligned, whole table in guest memory) when its engine is enabled, when
 *   a ring register or INDEX is written while it runs, and before every
 *   use; a bad ring is DMAERR_RING. The index registers must be below the
 *   ring size. So an enabled engine always has a valid ring, which
 *   post_load checks too (with the channel and the other registers): a
 *   migration stream with state the device cannot reach is refused.
 * - DMA reaches guest RAM only (MemTxAttrs.memory): a descriptor or
 *   buffer over a device's registers, this one's or any other's, fails
 *   like one outside guest memory (DMAERR_DESC for a descriptor,
 *   DMAERR_DATA for a buffer) instead of writing them. Every failed
 *   transfer counts in the read-only "dma-errors" property.
 * - One doorbell processes at most ring-size descriptors: a ring whose
 *   INDEX is never reached (TABLEEND placed before it) is DMAERR_RING.
 * - Any DMA error sets the engine's ERROR register, raises DMA_ERROR and
 *   clears the engine's CTL_ENABLE; a CTL write clears ERROR. Enabling an
 *   engine sets its STATUS to 0.
 * - The MACADDR registers and the SPROM start with the "mac" property;
 *   the SPROM is a byte image (16-bit little-endian reads), so the byte at
 *   BCM43XX_SPROM_MAC + i is mac[i].
 * - TSF counts microseconds of QEMU_CLOCK_VIRTUAL since the last reset.
 * - A frame whose FCS does not match (bit errors on the air) is dropped,
 *   unless CTRL has KEEP_BADFCS: then it is delivered with FCS_ERR in
 *   the rx header's flags (b43's MACCTL_KEEP_BAD and FCSERR, in short).
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/msi.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "qom/object.h"
#include "wlan-air.h"
#include "include/bcm43xx_regs.h"
#include "trace.h"

#define TYPE_BCM43XX "bcm43xx"
OBJECT_DECLARE_SIMPLE_TYPE(Bcm43xxState, BCM43XX)

#define BCM43XX_REVISION    0x02
#define BCM43XX_RSSI_DBM    (-40)
#define BCM43XX_DMA_TX      0
#define BCM43XX_DMA_RX      1
#define BCM43XX_DMA_REGS    0x1c        /* bytes of one engine's window */
#define BCM43XX_CTRL_RW     (BCM43XX_CTRL_ENABLE | BCM43XX_CTRL_PROMISC | \
                             BCM43XX_CTRL_KEEP_BADFCS)

typedef struct Bcm43xxDma {
    uint32_t ctl;
    uint32_t index;
    uint32_t ringlo;
    uint32_t ringhi;
    uint32_t ringsize;
    uint32_t status;
    uint32_t error;
} Bcm43xxDma;

struct Bcm43xxState {
    /*< private >*/
    PCIDevice parent_obj;
    /*< public >*/

    MemoryRegion mmio;
    WlanRadio radio;
    bool on_air;
    bool irq_level;
    bool msi_sending;           /* inside msi_notify() */
    bool tx_busy;               /* inside the TX loop */

    /* Registers */
    uint32_t ctrl;
    uint32_t channel;
    uint32_t macaddr_lo;
    uint32_t macaddr_hi;
    uint32_t int_status;
    uint32_t int_mask;
    int64_t tsf_base_us;
    Bcm43xxDma dma[2];

    uint8_t sprom[BCM43XX_SPROM_SIZE];
    uint8_t frame[BCM43XX_MAX_FRAME];

    /* Counters (read-only properties, not migrated) */
    uint64_t dma_errors;        /* DMA transfers that failed */

    /* Properties */
    uint16_t device_id;
    MACAddr macaddr;
    WlanAir *air;
    bool reentrancy_guard;      /* x-reentrancy-guard */
};

static const uint16_t bcm43xx_device_ids[] = {
    0x4318, 0x4311, 0x4312, 0x4320,
};

static const char *const bcm43xx_dma_names[] = {
    [BCM43XX_DMA_TX] = "tx",
    [BCM43XX_DMA_RX] = "rx",
};

static const char *const bcm43xx_dmaerr_names[] = {
    [BCM43XX_DMAERR_NONE] = "none",
    [BCM43XX_DMAERR_DESC] = "descriptor",
    [BCM43XX_DMAERR_DATA] = "data buffer",
    [BCM43XX_DMAERR_LENGTH] = "byte count",
    [BCM43XX_DMAERR_RING] = "ring",
};

static void bcm43xx_update_irq(Bcm43xxState *s, bool kick)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool level = (s->int_status & s->int_mask) != 0;
    bool notify = level && (!s->irq_level || kick);

    trace_bcm43xx_irq(s->int_status, s->int_mask, level);
    /* The new level first: the message below may come back here. */
    s->irq_level = level;
    if (!msi_enabled(pdev)) {
        pci_set_irq(pdev, level);
        return;
    }
    if (!notify) {
        return;
    }
    if (s->msi_sending) {
        /*
         * The message reached this device's own registers (its address is
         * INT_STATUS, say, and the write acknowledged nothing): the one
         * being sent stands for this one, sending again would recurse
         * without end.
         */
        qemu_log_mask(LOG_GUEST_ERROR, "bcm43xx: MSI address 0x%" PRIx64
                      " leads back to the device: message not sent again\n",
                      msi_get_message(pdev, 0).address);
        return;
    }
    s->msi_sending = true;
    msi_notify(pdev, 0);
    s->msi_sending = false;
}

static void bcm43xx_raise(Bcm43xxState *s, uint32_t bits)
{
    bool kick = (bits & s->int_mask & ~s->int_status) != 0;

    s->int_status |= bits;
    bcm43xx_update_irq(s, kick);
}

static void bcm43xx_dma_fail(Bcm43xxState *s, int n, uint32_t code,
                             const char *why)
{
    Bcm43xxDma *d = &s->dma[n];

    qemu_log_mask(LOG_GUEST_ERROR,
                  "bcm43xx: %s DMA %s error at slot %u: %s\n",
                  bcm43xx_dma_names[n], bcm43xx_dmaerr_names[code],
                  d->status, why);
    trace_bcm43xx_dma_error(bcm43xx_dma_names[n], code, d->status);
    d->error = code;
    d->ctl &= ~BCM43XX_DMA_CTL_ENABLE;
    bcm43xx_raise(s, BCM43XX_INT_DMA_ERROR);
}

static uint64_t bcm43xx_ring_base(Bcm43xxDma *d)
{
    return ((uint64_t)d->ringhi << 32) | d->ringlo;
}

/*
 * Engines DMA to and from guest RAM only: MemTxAttrs.memory makes the
 * memory core refuse a transfer that would reach a device's registers
 * (this one's, where a frame would land on CTRL or the ring registers
 * from inside the RX path, or another device's) instead of dispatching
 * it as an MMIO access.
 */
static const MemTxAttrs bcm43xx_dma_attrs = { .memory = 1 };

/* Is [addr, addr + len) mapped for a DMA at all? */
static bool bcm43xx_dma_valid(Bcm43xxState *s, uint64_t addr, uint64_t len,
                              bool is_write)
{
    if (len == 0 || addr + len < addr) {
        return false;
    }
    return address_space_access_valid(pci_get_address_space(PCI_DEVICE(s)),
                                      addr, len, is_write,
                                      bcm43xx_dma_attrs);
}

/*
 * One DMA transfer of engine n. On failure (nothing mapped there, a
 * device's registers, bus mastering off) it is counted and traced; the
 * caller stops the engine.
 */
static bool bcm43xx_dma(Bcm43xxState *s, int n, uint64_t addr, void *buf,
                        uint64_t len, DMADirection dir)
{
    bool is_write = dir == DMA_DIRECTION_FROM_DEVICE;
    MemTxResult res = MEMTX_DECODE_ERROR;

    /* Checked first: a failing transfer to nothing logs every word. */
    if (bcm43xx_dma_valid(s, addr, len, is_write)) {
        res = pci_dma_rw(PCI_DEVICE(s), addr, buf, len, dir,
                         bcm43xx_dma_attrs);
    }
    if (res != MEMTX_OK) {
        s->dma_errors++;
        trace_bcm43xx_dma_fault(bcm43xx_dma_names[n],
                                is_write ? "write" : "read", addr, len, res);
        return false;
    }
    return true;
}

/* Checks the ring registers; on failure the engine is stopped. */
static bool bcm43xx_ring_ok(Bcm43xxState *s, int n)
{
    Bcm43xxDma *d = &s->dma[n];
    uint64_t base = bcm43xx_ring_base(d);

    if (!(PCI_DEVICE(s)->config[PCI_COMMAND] & PCI_COMMAND_MASTER)) {
        bcm43xx_dma_fail(s, n, BCM43XX_DMAERR_RING,
                         "bus mastering is off in PCI_COMMAND");
        return false;
    }
    if (d->ringsize < 2 || d->ringsize > BCM43XX_DMA_MAX_RING) {
        bcm43xx_dma_fail(s, n, BCM43XX_DMAERR_RING, "ring size not 2..512");
        return false;
    }
    if (base & (BCM43XX_DESC_SIZE - 1)) {
        bcm43xx_dma_fail(s, n, BCM43XX_DMAERR_RING,
                         "ring base not 16-byte aligned");
        return false;
    }
    if (!bcm43xx_dma_valid(s, base,
                           (uint64_t)d->ringsize * BCM43XX_DESC_SIZE,
                           false)) {
        bcm43xx_dma_fail(s, n, BCM43XX_DMAERR_RING,
                         "ring outside guest memory");
        return false;
    }
    if (d->index >= d->ringsize || d->status >= d->ringsize) {
        bcm43xx_dma_fail(s, n, BCM43XX_DMAERR_RING,
                         "index beyond the ring size");
        return false;
    }
    return true;
}

static bool bcm43xx_read_desc(Bcm43xxState *s, int n,
                              struct bcm43xx_dmadesc64 *desc)
{
    Bcm43xxDma *d = &s->dma[n];
    uint64_t addr = bcm43xx_ring_base(d) +
                    (uint64_t)d->status * BCM43XX_DESC_SIZE;

    if (!bcm43xx_dma(s, n, addr, desc, sizeof(*desc),
                     DMA_DIRECTION_TO_DEVICE)) {
        bcm43xx_dma_fail(s, n, BCM43XX_DMAERR_DESC,
                         "descriptor fetch failed");
        return false;
    }
    desc->ctl0 = le32_to_cpu(desc->ctl0);
    desc->ctl1 = le32_to_cpu(desc->ctl1);
    desc->addr_lo = le32_to_cpu(desc->addr_lo);
    desc->addr_hi = le32_to_cpu(desc->addr_hi);
    return true;
}

static void bcm43xx_advance(Bcm43xxState *s, int n,
                            const struct bcm43xx_dmadesc64 *desc)
{
    Bcm43xxDma *d = &s->dma[n];

    if ((desc->ctl0 & BCM43XX_DCTL0_TABLEEND) ||
        d->status + 1 >= d->ringsize) {
        d->status = 0;
    } else {
        d->status++;
    }
}

static void bcm43xx_tx_kick(Bcm43xxState *s)
{
    Bcm43xxDma *d = &s->dma[BCM43XX_DMA_TX];
    struct bcm43xx_dmadesc64 desc;
    uint32_t done = 0;
    bool irq = false;

    if (s->tx_busy) {
        /*
         * Re-entered from the loop below (the frame it handed to the air
         * reached another radio at once, and that radio's MSI or DMA
         * reached INDEX or CTL here): the loop checks the ring again and
         * reads INDEX before every descriptor.
         */
        return;
    }
    s->tx_busy = true;
    while ((d->ctl & BCM43XX_DMA_CTL_ENABLE) && d->status != d->index) {
        uint32_t len;
        uint64_t addr;

        /*
         * Before every descriptor, not once: wlan_air_transmit() below may
         * have changed the registers under us (see above).
         */
        if (!bcm43xx_ring_ok(s, BCM43XX_DMA_TX)) {
            break;
        }
        if (done >= d->ringsize) {
            bcm43xx_dma_fail(s, BCM43XX_DMA_TX, BCM43XX_DMAERR_RING,
                             "INDEX not reached after a whole ring");
            break;
        }
        if (!bcm43xx_read_desc(s, BCM43XX_DMA_TX, &desc)) {
            break;
        }
        if ((desc.ctl0 & (BCM43XX_DCTL0_FRAMESTART |
                          BCM43XX_DCTL0_FRAMEEND)) !=
            (BCM43XX_DCTL0_FRAMESTART | BCM43XX_DCTL0_FRAMEEND)) {
            bcm43xx_dma_fail(s, BCM43XX_DMA_TX, BCM43XX_DMAERR_DESC,
                             "frame does not fit one descriptor");
            break;
        }
        len = desc.ctl1 & BCM43XX_DCTL1_BYTECNT_MASK;
        if (len < 10 || len > BCM43XX_MAX_FRAME) {
            bcm43xx_dma_fail(s, BCM43XX_DMA_TX, BCM43XX_DMAERR_LENGTH,
                             "byte count not 10..2346");
            break;
        }
        addr = ((uint64_t)desc.addr_hi << 32) | desc.addr_lo;
        if (!bcm43xx_dma(s, BCM43XX_DMA_TX, addr, s->frame, len,
                         DMA_DIRECTION_TO_DEVICE)) {
            bcm43xx_dma_fail(s, BCM43XX_DMA_TX, BCM43XX_DMAERR_DATA,
                             "frame buffer outside guest RAM");
            break;
        }
        if (s->on_air) {
            trace_bcm43xx_tx(d->status, len, s->frame[0]);
            wlan_air_transmit(&s->radio, s->frame, len);
        } else {
            trace_bcm43xx_tx_drop(d->status, len, "radio off");
        }
        if (desc.ctl0 & BCM43XX_DCTL0_IRQ) {
            irq = true;
        }
        bcm43xx_advance(s, BCM43XX_DMA_TX, &desc);
        done++;
    }
    s->tx_busy = false;
    if (irq) {
        bcm43xx_raise(s, BCM43XX_INT_TX_DONE);
    }
}

static bool bcm43xx_rx_accept(Bcm43xxState *s, const uint8_t *frame,
                              size_t len)
{
    uint8_t mac[6];

    if (s->ctrl & BCM43XX_CTRL_PROMISC) {
        return true;
    }
    if (len < 10) {
        return false;
    }
    if (frame[4] & 1) {
        return true;            /* broadcast or multicast */
    }
    stl_le_p(mac, s->macaddr_lo);
    stw_le_p(mac + 4, s->macaddr_hi);
    return memcmp(frame + 4, mac, 6) == 0;
}

static void bcm43xx_receive(WlanRadio *radio, const uint8_t *frame,
                            size_t len, uint32_t fcs, int rssi_dbm)
{
    Bcm43xxState *s = radio->opaque;
    Bcm43xxDma *d = &s->dma[BCM43XX_DMA_RX];
    struct bcm43xx_dmadesc64 desc;
    struct bcm43xx_rxhdr hdr;
    uint32_t bufsize;
    uint64_t addr;
    uint16_t frame_len;
    bool bad_fcs;

    if (!(s->ctrl & BCM43XX_CTRL_ENABLE) ||
        !(d->ctl & BCM43XX_DMA_CTL_ENABLE)) {
        trace_bcm43xx_rx_drop(len, "receiver off");
        return;
    }
    if (len > BCM43XX_MAX_FRAME || !bcm43xx_rx_accept(s, frame, len)) {
        trace_bcm43xx_rx_drop(len, "filtered");
        return;
    }
    bad_fcs = !wlan_air_fcs_ok(frame, len, fcs);
    if (bad_fcs && !(s->ctrl & BCM43XX_CTRL_KEEP_BADFCS)) {
        trace_bcm43xx_rx_drop(len, "bad FCS");
        return;
    }
    if (!bcm43xx_ring_ok(s, BCM43XX_DMA_RX)) {
        return;
    }
    if (d->status == d->index) {
        trace_bcm43xx_rx_drop(len, "no buffer");
        bcm43xx_raise(s, BCM43XX_INT_RX_NOBUF);
        return;
    }
    if (!bcm43xx_read_desc(s, BCM43XX_DMA_RX, &desc)) {
        return;
    }
    bufsize = desc.ctl1 & BCM43XX_DCTL1_BYTECNT_MASK;
    if (bufsize < BCM43XX_RXHDR_SIZE + len) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "bcm43xx: rx buffer at slot %u holds %u bytes, "
                      "frame needs %zu: dropped\n",
                      d->status, bufsize, BCM43XX_RXHDR_SIZE + len);
        trace_bcm43xx_rx_drop(len, "buffer too small");
        return;
    }
    addr = ((uint64_t)desc.addr_hi << 32) | desc.addr_lo;
    hdr.frame_len = 0;
    hdr.channel = s->channel;
    hdr.rssi_dbm = MIN(MAX(rssi_dbm, INT8_MIN), INT8_MAX);
    hdr.flags = cpu_to_le32(bad_fcs ? BCM43XX_RXHDR_FCS_ERR : 0);
    /*
     * The length goes last: a driver polling it sees a complete frame
     * (and a header whose frame did not fit RAM says 0).
     */
    frame_len = cpu_to_le16(len);
    if (!bcm43xx_dma(s, BCM43XX_DMA_RX, addr, &hdr, sizeof(hdr),
                     DMA_DIRECTION_FROM_DEVICE) ||
        !bcm43xx_dma(s, BCM43XX_DMA_RX, addr + BCM43XX_RXHDR_SIZE,
                     (void *)frame, len, DMA_DIRECTION_FROM_DEVICE) ||
        !bcm43xx_dma(s, BCM43XX_DMA_RX, addr, &frame_len, sizeof(frame_len),
                     DMA_DIRECTION_FROM_DEVICE)) {
        bcm43xx_dma_fail(s, BCM43XX_DMA_RX, BCM43XX_DMAERR_DATA,
                         "rx buffer outside guest RAM");
        return;
    }
    trace_bcm43xx_rx(d->status, len, rssi_dbm);
    bcm43xx_advance(s, BCM43XX_DMA_RX, &desc);
    bcm43xx_raise(s, BCM43XX_INT_RX_DONE);
}

static void bcm43xx_set_radio(Bcm43xxState *s, bool on)
{
    if (on && !s->on_air) {
        wlan_air_attach(s->air, &s->radio);
    } else if (!on && s->on_air) {
        wlan_air_detach(&s->radio);
    }
    s->on_air = on;
}

static void bcm43xx_dma_reset(Bcm43xxState *s)
{
    memset(s->dma, 0, sizeof(s->dma));
}

static void bcm43xx_load_macaddr(Bcm43xxState *s)
{
    s->macaddr_lo = ldl_le_p(s->macaddr.a);
    s->macaddr_hi = lduw_le_p(s->macaddr.a + 4);
}

static uint32_t bcm43xx_dma_read(Bcm43xxState *s, int n, hwaddr reg)
{
    Bcm43xxDma *d = &s->dma[n];

    switch (reg) {
    case BCM43XX_DMA_CTL:
        return d->ctl;
    case BCM43XX_DMA_INDEX:
        return d->index;
    case BCM43XX_DMA_RINGLO:
        return d->ringlo;
    case BCM43XX_DMA_RINGHI:
        return d->ringhi;
    case BCM43XX_DMA_RINGSIZE:
        return d->ringsize;
    case BCM43XX_DMA_STATUS:
        return d->status;
    case BCM43XX_DMA_ERROR:
        return d->error;
    default:
        return 0;
    }
}

static void bcm43xx_dma_write(Bcm43xxState *s, int n, hwaddr reg,
                              uint32_t val)
{
    Bcm43xxDma *d = &s->dma[n];

    switch (reg) {
    case BCM43XX_DMA_CTL:
        d->error = BCM43XX_DMAERR_NONE;
        if ((val & BCM43XX_DMA_CTL_ENABLE) &&
            !(d->ctl & BCM43XX_DMA_CTL_ENABLE)) {
            d->status = 0;
            d->ctl = val & BCM43XX_DMA_CTL_ENABLE;
            if (!bcm43xx_ring_ok(s, n)) {
                break;
            }
            if (n == BCM43XX_DMA_TX) {
                bcm43xx_tx_kick(s);
            }
        } else {
            d->ctl = val & BCM43XX_DMA_CTL_ENABLE;
        }
        break;
    case BCM43XX_DMA_INDEX:
        d->index = val;
        if (n == BCM43XX_DMA_TX) {
            bcm43xx_tx_kick(s);
        } else if (d->ctl & BCM43XX_DMA_CTL_ENABLE) {
            bcm43xx_ring_ok(s, n);
        }
        break;
    case BCM43XX_DMA_RINGLO:
    case BCM43XX_DMA_RINGHI:
    case BCM43XX_DMA_RINGSIZE:
        if (reg == BCM43XX_DMA_RINGLO) {
            d->ringlo = val;
        } else if (reg == BCM43XX_DMA_RINGHI) {
            d->ringhi = val;
        } else {
            d->ringsize = val;
        }
        /* A running engine's ring stays valid, or the engine stops. */
        if (d->ctl & BCM43XX_DMA_CTL_ENABLE) {
            bcm43xx_ring_ok(s, n);
        }
        break;
    case BCM43XX_DMA_STATUS:
    case BCM43XX_DMA_ERROR:
        qemu_log_mask(LOG_GUEST_ERROR,
                      "bcm43xx: write to read-only %s DMA register 0x%"
                      HWADDR_PRIx "\n", bcm43xx_dma_names[n], reg);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR,
                      "bcm43xx: write to unknown %s DMA register 0x%"
                      HWADDR_PRIx "\n", bcm43xx_dma_names[n], reg);
        break;
    }
}

static uint64_t bcm43xx_tsf(Bcm43xxState *s)
{
    return qemu_clock_get_us(QEMU_CLOCK_VIRTUAL) - s->tsf_base_us;
}

static uint64_t bcm43xx_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    Bcm43xxState *s = opaque;
    uint64_t val = 0;

    if (addr >= BCM43XX_SPROM_BASE &&
        addr < BCM43XX_SPROM_BASE + BCM43XX_SPROM_SIZE) {
        hwaddr off = addr - BCM43XX_SPROM_BASE;

        if (size == 2 && !(off & 1)) {
            val = lduw_le_p(s->sprom + off);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "bcm43xx: SPROM read of %u bytes at 0x%"
                          HWADDR_PRIx ": 16-bit aligned reads only\n",
                          size, addr);
        }
        trace_bcm43xx_mmio_read(addr, val, size);
        return val;
    }
    if (size != 4 || (addr & 3)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "bcm43xx: %u-byte read at 0x%" HWADDR_PRIx
                      ": registers are 32-bit\n", size, addr);
        return 0;
    }

    switch (addr) {
    case BCM43XX_REG_ID:
        val = ((uint32_t)s->device_id << 16) | BCM43XX_REVISION;
        break;
    case BCM43XX_REG_CTRL:
        val = s->ctrl;
        break;
    case BCM43XX_REG_CHANNEL:
        val = s->channel;
        break;
    case BCM43XX_REG_MACADDR_LO:
        val = s->macaddr_lo;
        break;
    case BCM43XX_REG_MACADDR_HI:
        val = s->macaddr_hi;
        break;
    case BCM43XX_REG_TSF_LO:
        val = (uint32_t)bcm43xx_tsf(s);
        break;
    case BCM43XX_REG_TSF_HI:
        val = bcm43xx_tsf(s) >> 32;
        break;
    case BCM43XX_REG_INT_STATUS:
        val = s->int_status;
        break;
    case BCM43XX_REG_INT_MASK:
        val = s->int_mask;
        break;
    case BCM43XX_DMA_TX_BASE ... BCM43XX_DMA_TX_BASE + BCM43XX_DMA_REGS - 1:
        val = bcm43xx_dma_read(s, BCM43XX_DMA_TX,
                               addr - BCM43XX_DMA_TX_BASE);
        break;
    case BCM43XX_DMA_RX_BASE ... BCM43XX_DMA_RX_BASE + BCM43XX_DMA_REGS - 1:
        val = bcm43xx_dma_read(s, BCM43XX_DMA_RX,
                               addr - BCM43XX_DMA_RX_BASE);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR,
                      "bcm43xx: read of unknown register 0x%" HWADDR_PRIx
                      "\n", addr);
        break;
    }
    trace_bcm43xx_mmio_read(addr, val, size);
    return val;
}

static void bcm43xx_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    Bcm43xxState *s = opaque;

    trace_bcm43xx_mmio_write(addr, val, size);
    if (size != 4 || (addr & 3)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "bcm43xx: %u-byte write at 0x%" HWADDR_PRIx
                      ": registers are 32-bit\n", size, addr);
        return;
    }

    switch (addr) {
    case BCM43XX_REG_CTRL:
        if (val & BCM43XX_CTRL_RESET) {
            bcm43xx_dma_reset(s);
            s->int_status = 0;
            s->int_mask = 0;
            bcm43xx_update_irq(s, false);
        }
        s->ctrl = val & BCM43XX_CTRL_RW;
        bcm43xx_set_radio(s, s->ctrl & BCM43XX_CTRL_ENABLE);
        break;
    case BCM43XX_REG_CHANNEL:
        if (val < 1 || val > 14) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "bcm43xx: channel %" PRIu64 " not 1..14, "
                          "ignored\n", val);
            break;
        }
        s->channel = val;
        s->radio.channel = val;
        break;
    case BCM43XX_REG_MACADDR_LO:
        s->macaddr_lo = val;
        break;
    case BCM43XX_REG_MACADDR_HI:
        s->macaddr_hi = val & 0xffff;
        break;
    case BCM43XX_REG_INT_STATUS:
        s->int_status &= ~val;
        bcm43xx_update_irq(s, true);
        break;
    case BCM43XX_REG_INT_MASK:
        s->int_mask = val & BCM43XX_INT_ALL;
        bcm43xx_update_irq(s, false);
        break;
    case BCM43XX_DMA_TX_BASE ... BCM43XX_DMA_TX_BASE + BCM43XX_DMA_REGS - 1:
        bcm43xx_dma_write(s, BCM43XX_DMA_TX, addr - BCM43XX_DMA_TX_BASE,
                          val);
        break;
    case BCM43XX_DMA_RX_BASE ... BCM43XX_DMA_RX_BASE + BCM43XX_DMA_REGS - 1:
        bcm43xx_dma_write(s, BCM43XX_DMA_RX, addr - BCM43XX_DMA_RX_BASE,
                          val);
        break;
    case BCM43XX_REG_ID:
    case BCM43XX_REG_TSF_LO:
    case BCM43XX_REG_TSF_HI:
        qemu_log_mask(LOG_GUEST_ERROR,
                      "bcm43xx: write to read-only register 0x%"
                      HWADDR_PRIx "\n", addr);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR,
                      "bcm43xx: write to unknown register 0x%" HWADDR_PRIx
                      "\n", addr);
        break;
    }
}

static const MemoryRegionOps bcm43xx_mmio_ops = {
    .read = bcm43xx_mmio_read,
    .write = bcm43xx_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 4,
    },
};

static void bcm43xx_reset(DeviceState *dev)
{
    Bcm43xxState *s = BCM43XX(dev);

    bcm43xx_set_radio(s, false);
    s->ctrl = 0;
    s->channel = 1;
    s->radio.channel = 1;
    bcm43xx_load_macaddr(s);
    s->int_status = 0;
    s->int_mask = 0;
    s->tsf_base_us = qemu_clock_get_us(QEMU_CLOCK_VIRTUAL);
    bcm43xx_dma_reset(s);
    s->irq_level = false;
    pci_set_irq(PCI_DEVICE(s), 0);
}

/*
 * The invariants the registers keep at run time: an engine is enabled
 * only with a ring that passed bcm43xx_ring_ok() (every write that could
 * break it checks it again), STATUS never leaves the largest ring.
 */
static const char *bcm43xx_dma_state_bad(const Bcm43xxDma *d)
{
    if (d->ctl & ~BCM43XX_DMA_CTL_ENABLE) {
        return "unknown CTL bits";
    }
    if (d->error > BCM43XX_DMAERR_RING) {
        return "unknown error code";
    }
    if (d->status >= BCM43XX_DMA_MAX_RING) {
        return "STATUS beyond any ring";
    }
    if (!(d->ctl & BCM43XX_DMA_CTL_ENABLE)) {
        return NULL;
    }
    if (d->ringsize < 2 || d->ringsize > BCM43XX_DMA_MAX_RING) {
        return "enabled with a ring size not 2..512";
    }
    if (d->ringlo & (BCM43XX_DESC_SIZE - 1)) {
        return "enabled with a misaligned ring";
    }
    if (d->index >= d->ringsize || d->status >= d->ringsize) {
        return "enabled with an index beyond the ring";
    }
    return NULL;
}

static int bcm43xx_post_load(void *opaque, int version_id)
{
    Bcm43xxState *s = opaque;
    const char *bad = NULL, *engine = "";
    int n;

    if (s->channel < 1 || s->channel > 14) {
        bad = "channel not 1..14";
    } else if (s->ctrl & ~BCM43XX_CTRL_RW) {
        bad = "unknown CTRL bits";
    } else if ((s->int_status | s->int_mask) & ~BCM43XX_INT_ALL) {
        bad = "unknown interrupt bits";
    } else if (s->macaddr_hi > 0xffff) {
        bad = "MACADDR_HI above 16 bits";
    }
    for (n = 0; n < ARRAY_SIZE(s->dma) && !bad; n++) {
        bad = bcm43xx_dma_state_bad(&s->dma[n]);
        if (bad) {
            engine = n == BCM43XX_DMA_TX ? "TX engine " : "RX engine ";
        }
    }
    if (bad) {
        error_report("bcm43xx: migrated state refused: %s%s", engine, bad);
        return -EINVAL;
    }
    s->radio.channel = s->channel;
    s->irq_level = (s->int_status & s->int_mask) != 0;
    bcm43xx_set_radio(s, s->ctrl & BCM43XX_CTRL_ENABLE);
    return 0;
}

static const VMStateDescription vmstate_bcm43xx_dma = {
    .name = "bcm43xx-dma",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(ctl, Bcm43xxDma),
        VMSTATE_UINT32(index, Bcm43xxDma),
        VMSTATE_UINT32(ringlo, Bcm43xxDma),
        VMSTATE_UINT32(ringhi, Bcm43xxDma),
        VMSTATE_UINT32(ringsize, Bcm43xxDma),
        VMSTATE_UINT32(status, Bcm43xxDma),
        VMSTATE_UINT32(error, Bcm43xxDma),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_bcm43xx = {
    .name = TYPE_BCM43XX,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = bcm43xx_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, Bcm43xxState),
        VMSTATE_UINT32(ctrl, Bcm43xxState),
        VMSTATE_UINT32(channel, Bcm43xxState),
        VMSTATE_UINT32(macaddr_lo, Bcm43xxState),
        VMSTATE_UINT32(macaddr_hi, Bcm43xxState),
        VMSTATE_UINT32(int_status, Bcm43xxState),
        VMSTATE_UINT32(int_mask, Bcm43xxState),
        VMSTATE_INT64(tsf_base_us, Bcm43xxState),
        VMSTATE_STRUCT_ARRAY(dma, Bcm43xxState, 2, 1, vmstate_bcm43xx_dma,
                             Bcm43xxDma),
        VMSTATE_END_OF_LIST()
    }
};

static void bcm43xx_realize(PCIDevice *pdev, Error **errp)
{
    Bcm43xxState *s = BCM43XX(pdev);
    Error *err = NULL;
    const char *name;
    int i;

    for (i = 0; i < ARRAY_SIZE(bcm43xx_device_ids); i++) {
        if (bcm43xx_device_ids[i] == s->device_id) {
            break;
        }
    }
    if (i == ARRAY_SIZE(bcm43xx_device_ids)) {
        error_setg(errp, "bcm43xx: unsupported device-id 0x%04x "
                   "(use 0x4318, 0x4311, 0x4312 or 0x4320)", s->device_id);
        return;
    }
    if (!s->air) {
        error_setg(errp, "bcm43xx: the 'air' property is required "
                   "(-object wlan-air,id=air0 -device bcm43xx,air=air0)");
        return;
    }

    pci_config_set_device_id(pdev->config, s->device_id);
    pci_config_set_interrupt_pin(pdev->config, 1);

    if (msi_init(pdev, 0, 1, true, false, &err) == -ENOTSUP) {
        error_free(err);        /* no MSI on this machine: INTx only */
    } else if (err) {
        error_propagate(errp, err);
        return;
    }

    qemu_macaddr_default_if_unset(&s->macaddr);
    memset(s->sprom, 0, sizeof(s->sprom));
    stw_le_p(s->sprom + (BCM43XX_SPROM_REV - BCM43XX_SPROM_BASE), 1);
    memcpy(s->sprom + (BCM43XX_SPROM_MAC - BCM43XX_SPROM_BASE),
           s->macaddr.a, sizeof(s->macaddr.a));

    name = object_get_canonical_path_component(OBJECT(s));
    s->radio.name = g_strdup(name ? name : TYPE_BCM43XX);
    s->radio.channel = 1;
    s->radio.rssi_dbm = BCM43XX_RSSI_DBM;
    s->radio.receive = bcm43xx_receive;
    s->radio.opaque = s;
    s->radio.guard = &DEVICE(s)->mem_reentrancy_guard;
    /* RX and TX share no state; the TX loop re-reads its registers. */
    s->radio.rx_while_tx = true;

    memory_region_init_io(&s->mmio, OBJECT(s), &bcm43xx_mmio_ops, s,
                          "bcm43xx-mmio", BCM43XX_MMIO_SIZE);
    /*
     * x-reentrancy-guard=off, for tests: the memory core's guard against
     * re-entrant MMIO (which refuses an access to this BAR while one of
     * its handlers runs) is not there, as in QEMU 7.2 before 7.2.6. The
     * model must be safe without it.
     */
    s->mmio.disable_reentrancy_guard = !s->reentrancy_guard;
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY, &s->mmio);
}

static void bcm43xx_instance_init(Object *obj)
{
    Bcm43xxState *s = BCM43XX(obj);

    /* Read-only counter: qom-get <device path> dma-errors */
    object_property_add_uint64_ptr(obj, "dma-errors", &s->dma_errors,
                                   OBJ_PROP_FLAG_READ);
}

static void bcm43xx_exit(PCIDevice *pdev)
{
    Bcm43xxState *s = BCM43XX(pdev);

    bcm43xx_set_radio(s, false);
    msi_uninit(pdev);
    g_free((char *)s->radio.name);
    s->radio.name = NULL;
}

static Property bcm43xx_properties[] = {
    DEFINE_PROP_UINT16("device-id", Bcm43xxState, device_id,
                       BCM43XX_DEFAULT_DEVICE_ID),
    DEFINE_PROP_MACADDR("mac", Bcm43xxState, macaddr),
    DEFINE_PROP_LINK("air", Bcm43xxState, air, TYPE_WLAN_AIR, WlanAir *),
    DEFINE_PROP_BOOL("x-reentrancy-guard", Bcm43xxState, reentrancy_guard,
                     true),
    DEFINE_PROP_END_OF_LIST(),
};

static void bcm43xx_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = bcm43xx_realize;
    k->exit = bcm43xx_exit;
    k->vendor_id = BCM43XX_VENDOR_ID;
    k->device_id = BCM43XX_DEFAULT_DEVICE_ID;
    k->revision = BCM43XX_REVISION;
    k->class_id = BCM43XX_CLASS_NETWORK_OTHER;
    dc->desc = "ndisbench Broadcom BCM43xx-class SoftMAC WLAN";
    dc->reset = bcm43xx_reset;
    dc->vmsd = &vmstate_bcm43xx;
    device_class_set_props(dc, bcm43xx_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo bcm43xx_info = {
    .name = TYPE_BCM43XX,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(Bcm43xxState),
    .instance_init = bcm43xx_instance_init,
    .class_init = bcm43xx_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void bcm43xx_register_types(void)
{
    type_register_static(&bcm43xx_info);
}

type_init(bcm43xx_register_types)
