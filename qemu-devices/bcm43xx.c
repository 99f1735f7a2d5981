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
 *   Such a frame is not decrypted.
 * - The key table (CCMP, the header's "key table" comment) is
 *   wlan-rsn.c's CCMP, the access point's own. CTRL_RESET leaves it as
 *   it is (a driver restarting its rings keeps its association); a device
 *   reset clears it. A CTL write with a cipher other than NONE and CCMP,
 *   or with reserved bits, is a guest error that leaves the slot empty;
 *   so is a write beyond the last slot (ignored). Sealing and opening
 *   failures count in read-only properties (crypto-tx-sealed,
 *   crypto-tx-errors, crypto-rx-decrypted, crypto-no-key,
 *   crypto-mic-failures, crypto-replays) and trace.
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
#include "wlan-frame.h"
#include "wlan-rsn.h"
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
                             BCM43XX_CTRL_KEEP_BADFCS | \
                             BCM43XX_CTRL_KEEP_BADCRYPT)
#define BCM43XX_KEY_END     BCM43XX_KEY_REG(BCM43XX_KEY_SLOTS, 0)

typedef struct Bcm43xxDma {
    uint32_t ctl;
    uint32_t index;
    uint32_t ringlo;
    uint32_t ringhi;
    uint32_t ringsize;
    uint32_t status;
    uint32_t error;
} Bcm43xxDma;

/*
 * One key slot: its registers and, while CTL says CCMP, the key with its
 * counters (ccmp.aes set: the AES schedule of tk).
 */
typedef struct Bcm43xxKey {
    uint32_t ctl;
    uint32_t addr_lo;
    uint32_t addr_hi;
    uint32_t rsc_lo;
    uint32_t rsc_hi;
    uint32_t tk[BCM43XX_KEY_TK_WORDS];
    WlanCcmpKey ccmp;           /* tx_pn, rx_pn[] migrate; aes is rebuilt */
} Bcm43xxKey;

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

    Bcm43xxKey keys[BCM43XX_KEY_SLOTS];

    uint8_t sprom[BCM43XX_SPROM_SIZE];
    uint8_t frame[BCM43XX_MAX_FRAME];
    uint8_t sealed[BCM43XX_MAX_FRAME];  /* TX: frame, sealed */
    uint8_t opened[BCM43XX_MAX_FRAME];  /* RX: a frame decrypted */

    /* Counters (read-only properties, not migrated) */
    uint64_t dma_errors;        /* DMA transfers that failed */
    uint64_t crypto_tx_sealed;  /* frames sealed */
    uint64_t crypto_tx_errors;  /* seal requests not honoured: not sent */
    uint64_t crypto_rx_decrypted;
    uint64_t crypto_no_key;     /* protected, delivered undecrypted */
    uint64_t crypto_mic_failures;
    uint64_t crypto_replays;

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

/* -- key table ------------------------------------------------------------ */

static bool bcm43xx_key_valid(const Bcm43xxKey *k)
{
    return k->ccmp.aes != NULL;
}

static void bcm43xx_key_free(Bcm43xxKey *k)
{
    if (k->ccmp.aes) {
        wlan_ccmp_key_clear(&k->ccmp);
    }
    memset(&k->ccmp, 0, sizeof(k->ccmp));
}

static void bcm43xx_keys_clear(Bcm43xxState *s)
{
    for (int i = 0; i < BCM43XX_KEY_SLOTS; i++) {
        bcm43xx_key_free(&s->keys[i]);
        memset(&s->keys[i], 0, sizeof(s->keys[i]));
    }
}

static uint64_t bcm43xx_key_rsc(const Bcm43xxKey *k)
{
    return (uint64_t)k->rsc_hi << 32 | k->rsc_lo;
}

/* The AES schedule of the slot's TK (install and post_load). */
static bool bcm43xx_key_build(Bcm43xxKey *k, int slot, Error **errp)
{
    uint8_t tk[WLAN_TK_LEN];
    uint64_t tx_pn = k->ccmp.tx_pn;
    uint64_t rx_pn[WLAN_CCMP_TIDS];
    bool ok;

    memcpy(rx_pn, k->ccmp.rx_pn, sizeof(rx_pn));
    for (int i = 0; i < BCM43XX_KEY_TK_WORDS; i++) {
        stl_le_p(tk + 4 * i, k->tk[i]);
    }
    bcm43xx_key_free(k);
    ok = wlan_ccmp_key_init(&k->ccmp, tk,
                            slot < BCM43XX_KEY_GROUP_SLOTS ? slot : 0, errp);
    memset(tk, 0, sizeof(tk));
    k->ccmp.tx_pn = tx_pn;
    memcpy(k->ccmp.rx_pn, rx_pn, sizeof(rx_pn));
    return ok;
}

static void bcm43xx_key_ctl(Bcm43xxState *s, int slot, uint32_t val)
{
    Bcm43xxKey *k = &s->keys[slot];
    Error *err = NULL;

    bcm43xx_key_free(k);
    k->ctl = BCM43XX_KEY_CIPHER_NONE;
    if (val == BCM43XX_KEY_CIPHER_NONE) {
        trace_bcm43xx_key_clear(slot);
        return;
    }
    if (val != BCM43XX_KEY_CIPHER_CCMP) {
        qemu_log_mask(LOG_GUEST_ERROR, "bcm43xx: key slot %d: CTL 0x%x: "
                      "CCMP (%u) is the only cipher: slot left empty\n",
                      slot, val, BCM43XX_KEY_CIPHER_CCMP);
        return;
    }
    for (int i = 0; i < WLAN_CCMP_TIDS; i++) {
        k->ccmp.rx_pn[i] = bcm43xx_key_rsc(k);
    }
    k->ccmp.tx_pn = 0;
    if (!bcm43xx_key_build(k, slot, &err)) {
        /* the AES backend failed: no guest can cause that */
        error_report_err(err);
        bcm43xx_key_free(k);
        return;
    }
    k->ctl = val;
    trace_bcm43xx_key_set(slot, k->addr_lo, k->addr_hi,
                          bcm43xx_key_rsc(k));
}

static uint32_t bcm43xx_key_read(Bcm43xxState *s, int slot, hwaddr reg)
{
    Bcm43xxKey *k = &s->keys[slot];

    switch (reg) {
    case BCM43XX_KEY_CTL:
        return k->ctl;
    case BCM43XX_KEY_ADDR_LO:
        return k->addr_lo;
    case BCM43XX_KEY_ADDR_HI:
        return k->addr_hi;
    case BCM43XX_KEY_RSC_LO:
        return k->rsc_lo;
    case BCM43XX_KEY_RSC_HI:
        return k->rsc_hi;
    case BCM43XX_KEY_TXPN_LO:
        return (uint32_t)k->ccmp.tx_pn;
    case BCM43XX_KEY_TXPN_HI:
        return k->ccmp.tx_pn >> 32;
    case BCM43XX_KEY_TK ... BCM43XX_KEY_TK + 4 * BCM43XX_KEY_TK_WORDS - 1:
        return 0;               /* key material stays in the chip */
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "bcm43xx: read of unknown key "
                      "register 0x%" HWADDR_PRIx " of slot %d\n", reg, slot);
        return 0;
    }
}

static void bcm43xx_key_write(Bcm43xxState *s, int slot, hwaddr reg,
                              uint32_t val)
{
    Bcm43xxKey *k = &s->keys[slot];

    switch (reg) {
    case BCM43XX_KEY_CTL:
        bcm43xx_key_ctl(s, slot, val);
        break;
    case BCM43XX_KEY_ADDR_LO:
        k->addr_lo = val;
        break;
    case BCM43XX_KEY_ADDR_HI:
    case BCM43XX_KEY_RSC_HI:
        if (val > 0xffff) {
            qemu_log_mask(LOG_GUEST_ERROR, "bcm43xx: key slot %d: 0x%x in "
                          "a 16-bit register (0x%" HWADDR_PRIx "): "
                          "ignored\n", slot, val, reg);
            break;
        }
        if (reg == BCM43XX_KEY_ADDR_HI) {
            k->addr_hi = val;
        } else {
            k->rsc_hi = val;
        }
        break;
    case BCM43XX_KEY_RSC_LO:
        k->rsc_lo = val;
        break;
    case BCM43XX_KEY_TK ... BCM43XX_KEY_TK + 4 * BCM43XX_KEY_TK_WORDS - 1:
        if (reg & 3) {
            goto unknown;
        }
        /* takes effect at the next CTL write (the installed key stays) */
        k->tk[(reg - BCM43XX_KEY_TK) / 4] = val;
        break;
    case BCM43XX_KEY_TXPN_LO:
    case BCM43XX_KEY_TXPN_HI:
        qemu_log_mask(LOG_GUEST_ERROR, "bcm43xx: write to read-only key "
                      "register 0x%" HWADDR_PRIx " of slot %d\n", reg, slot);
        break;
    default:
    unknown:
        qemu_log_mask(LOG_GUEST_ERROR, "bcm43xx: write to unknown key "
                      "register 0x%" HWADDR_PRIx " of slot %d\n", reg, slot);
        break;
    }
}

/* Does this slot's peer address equal addr? */
static bool bcm43xx_key_peer(const Bcm43xxKey *k, const uint8_t *addr)
{
    return ldl_le_p(addr) == k->addr_lo && lduw_le_p(addr + 4) == k->addr_hi;
}

/*
 * TX: seal s->frame (len bytes) with the key in slot into s->sealed;
 * the sealed length, or 0 when the frame is not to be sent.
 */
static size_t bcm43xx_tx_seal(Bcm43xxState *s, uint32_t slot, size_t len)
{
    const char *why = NULL;
    WlanCcmpError err;
    size_t out_len = 0;

    if (slot >= BCM43XX_KEY_SLOTS) {
        why = "no such key slot";
    } else if (!bcm43xx_key_valid(&s->keys[slot])) {
        why = "no key in the slot";
    } else if (len + WLAN_CCMP_OVERHEAD > BCM43XX_MAX_FRAME) {
        why = "too long once sealed";
    } else {
        err = wlan_ccmp_encap(&s->keys[slot].ccmp, s->frame, len, s->sealed,
                              sizeof(s->sealed), &out_len);
        if (err != WLAN_CCMP_OK) {
            why = wlan_ccmp_error_str(err);
        }
    }
    if (why) {
        qemu_log_mask(LOG_GUEST_ERROR, "bcm43xx: TX frame to seal with key "
                      "slot %u not sent: %s\n", slot, why);
        trace_bcm43xx_crypto_tx_fail(slot, why);
        s->crypto_tx_errors++;
        return 0;
    }
    s->crypto_tx_sealed++;
    trace_bcm43xx_crypto_tx(slot, s->keys[slot].ccmp.tx_pn, out_len);
    return out_len;
}

/* The slot that opens a protected data frame, or -1. */
static int bcm43xx_rx_key_slot(Bcm43xxState *s, const uint8_t *frame,
                               size_t len)
{
    size_t hdr = wlan_ccmp_data_hdr_len(frame, len);
    uint8_t key_id;

    if (!hdr || len < hdr + WLAN_CCMP_HDR_LEN) {
        return -1;
    }
    key_id = frame[hdr + 3] >> WLAN_CCMP_KEY_ID_SHIFT;
    if ((frame[4] & 1) || key_id != 0) {
        return bcm43xx_key_valid(&s->keys[key_id]) ? key_id : -1;
    }
    for (int i = BCM43XX_KEY_PAIRWISE_FIRST; i < BCM43XX_KEY_SLOTS; i++) {
        if (bcm43xx_key_valid(&s->keys[i]) &&
            bcm43xx_key_peer(&s->keys[i], frame + 10)) {
            return i;
        }
    }
    return -1;
}

/*
 * RX: the key table's verdict on a frame (see the header). Returns false
 * to drop it; else *frame and *len are what to deliver (s->opened when
 * decrypted), *flags the RX header bits to add.
 */
static bool bcm43xx_rx_open(Bcm43xxState *s, const uint8_t **frame,
                            size_t *len, uint32_t *flags)
{
    const uint8_t *f = *frame;
    WlanCcmpError err;
    size_t out_len;
    int slot;

    if (*len < WLAN_HDR_LEN || WLAN_FC_TYPE(f[0]) != WLAN_TYPE_DATA ||
        !(f[1] & WLAN_FC1_PROTECTED)) {
        return true;
    }
    slot = bcm43xx_rx_key_slot(s, f, *len);
    if (slot < 0) {
        s->crypto_no_key++;
        trace_bcm43xx_crypto_rx_fail(-1, "no key");
        *flags |= BCM43XX_RXHDR_UNDECRYPTED;
        return true;
    }
    err = wlan_ccmp_decap(&s->keys[slot].ccmp, f, *len, s->opened, &out_len);
    switch (err) {
    case WLAN_CCMP_OK:
        s->crypto_rx_decrypted++;
        *frame = s->opened;
        *len = out_len;
        *flags |= BCM43XX_RXHDR_DECRYPTED |
                  (uint32_t)slot << BCM43XX_RXHDR_KEY_SHIFT;
        return true;
    case WLAN_CCMP_ERR_REPLAY:
        s->crypto_replays++;
        *flags |= BCM43XX_RXHDR_REPLAY;
        break;
    case WLAN_CCMP_ERR_MIC:
        s->crypto_mic_failures++;
        *flags |= BCM43XX_RXHDR_MIC_FAIL;
        break;
    default:
        /* not CCMP, or another key's: the driver may know what it is */
        s->crypto_no_key++;
        trace_bcm43xx_crypto_rx_fail(slot, wlan_ccmp_error_str(err));
        *flags |= BCM43XX_RXHDR_UNDECRYPTED;
        return true;
    }
    trace_bcm43xx_crypto_rx_fail(slot, wlan_ccmp_error_str(err));
    return (s->ctrl & BCM43XX_CTRL_KEEP_BADCRYPT) != 0;
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
        if (desc.ctl0 & BCM43XX_DCTL0_ENCRYPT) {
            len = bcm43xx_tx_seal(s, (desc.ctl0 & BCM43XX_DCTL0_KEY_MASK) >>
                                  BCM43XX_DCTL0_KEY_SHIFT, len);
        }
        if (len == 0) {
            trace_bcm43xx_tx_drop(d->status, 0, "not sealed");
        } else if (s->on_air) {
            const uint8_t *out = desc.ctl0 & BCM43XX_DCTL0_ENCRYPT ?
                                 s->sealed : s->frame;

            trace_bcm43xx_tx(d->status, len, out[0]);
            wlan_air_transmit(&s->radio, out, len);
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
    uint32_t flags = 0;
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
    /*
     * Opened only now that it has a buffer: a frame dropped for want of
     * one leaves the receive counters alone, so its retry is no replay.
     */
    if (bad_fcs) {
        flags |= BCM43XX_RXHDR_FCS_ERR;
    } else if (!bcm43xx_rx_open(s, &frame, &len, &flags)) {
        trace_bcm43xx_rx_drop(len, "failed its CCMP check");
        return;
    }
    addr = ((uint64_t)desc.addr_hi << 32) | desc.addr_lo;
    hdr.frame_len = 0;
    hdr.channel = s->channel;
    hdr.rssi_dbm = MIN(MAX(rssi_dbm, INT8_MIN), INT8_MAX);
    hdr.flags = cpu_to_le32(flags);
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
    case BCM43XX_KEY_BASE ... BCM43XX_KEY_END - 1:
        val = bcm43xx_key_read(s, (addr - BCM43XX_KEY_BASE) /
                               BCM43XX_KEY_STRIDE,
                               (addr - BCM43XX_KEY_BASE) %
                               BCM43XX_KEY_STRIDE);
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
    case BCM43XX_KEY_BASE ... BCM43XX_KEY_END - 1:
        bcm43xx_key_write(s, (addr - BCM43XX_KEY_BASE) / BCM43XX_KEY_STRIDE,
                          (addr - BCM43XX_KEY_BASE) % BCM43XX_KEY_STRIDE,
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
    bcm43xx_keys_clear(s);
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

/* A slot's registers and counters as the device keeps them. */
static const char *bcm43xx_key_state_bad(const Bcm43xxKey *k)
{
    if (k->ctl != BCM43XX_KEY_CIPHER_NONE &&
        k->ctl != BCM43XX_KEY_CIPHER_CCMP) {
        return "a cipher the chip lacks, or reserved CTL bits";
    }
    if (k->addr_hi > 0xffff || k->rsc_hi > 0xffff) {
        return "ADDR_HI or RSC_HI above 16 bits";
    }
    if (k->ccmp.tx_pn > WLAN_CCMP_PN_MAX) {
        return "a TX PN beyond 48 bits";
    }
    for (int i = 0; i < WLAN_CCMP_TIDS; i++) {
        if (k->ccmp.rx_pn[i] > WLAN_CCMP_PN_MAX) {
            return "a receive counter beyond 48 bits";
        }
    }
    return NULL;
}

/*
 * A stream without the keys subsection has no keys: the table (ciphers
 * and all) is emptied before the load, which then fills it, if at all.
 */
static int bcm43xx_pre_load(void *opaque)
{
    bcm43xx_keys_clear(opaque);
    return 0;
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
    for (n = 0; n < BCM43XX_KEY_SLOTS && !bad; n++) {
        bad = bcm43xx_key_state_bad(&s->keys[n]);
        if (bad) {
            engine = "key slot: ";
        }
    }
    if (bad) {
        error_report("bcm43xx: migrated state refused: %s%s", engine, bad);
        return -EINVAL;
    }
    for (n = 0; n < BCM43XX_KEY_SLOTS; n++) {
        Bcm43xxKey *k = &s->keys[n];
        Error *err = NULL;

        /* pre_load emptied the table: the loaded PNs stay */
        if (k->ctl == BCM43XX_KEY_CIPHER_CCMP &&
            !bcm43xx_key_build(k, n, &err)) {
            error_report_err(err);
            return -EINVAL;
        }
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

static const VMStateDescription vmstate_bcm43xx_key = {
    .name = "bcm43xx-key",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (VMStateField[]) {
        VMSTATE_UINT32(ctl, Bcm43xxKey),
        VMSTATE_UINT32(addr_lo, Bcm43xxKey),
        VMSTATE_UINT32(addr_hi, Bcm43xxKey),
        VMSTATE_UINT32(rsc_lo, Bcm43xxKey),
        VMSTATE_UINT32(rsc_hi, Bcm43xxKey),
        VMSTATE_UINT32_ARRAY(tk, Bcm43xxKey, BCM43XX_KEY_TK_WORDS),
        VMSTATE_UINT64(ccmp.tx_pn, Bcm43xxKey),
        VMSTATE_UINT64_ARRAY(ccmp.rx_pn, Bcm43xxKey, WLAN_CCMP_TIDS),
        VMSTATE_END_OF_LIST()
    }
};

/* Sent when a slot holds anything: a stream without keys stays as it was. */
static bool bcm43xx_keys_needed(void *opaque)
{
    Bcm43xxState *s = opaque;
    static const Bcm43xxKey empty;

    for (int i = 0; i < BCM43XX_KEY_SLOTS; i++) {
        if (memcmp(&s->keys[i], &empty, offsetof(Bcm43xxKey, ccmp)) ||
            s->keys[i].ccmp.tx_pn) {
            return true;
        }
    }
    return false;
}

static const VMStateDescription vmstate_bcm43xx_keys = {
    .name = "bcm43xx/keys",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = bcm43xx_keys_needed,
    .fields = (VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(keys, Bcm43xxState, BCM43XX_KEY_SLOTS, 1,
                             vmstate_bcm43xx_key, Bcm43xxKey),
        VMSTATE_END_OF_LIST()
    }
};

static const VMStateDescription vmstate_bcm43xx = {
    .name = TYPE_BCM43XX,
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_load = bcm43xx_pre_load,
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
    },
    .subsections = (const VMStateDescription * []) {
        &vmstate_bcm43xx_keys,
        NULL
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
    object_property_add_uint64_ptr(obj, "crypto-tx-sealed",
                                   &s->crypto_tx_sealed, OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "crypto-tx-errors",
                                   &s->crypto_tx_errors, OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "crypto-rx-decrypted",
                                   &s->crypto_rx_decrypted,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "crypto-no-key", &s->crypto_no_key,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "crypto-mic-failures",
                                   &s->crypto_mic_failures,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint64_ptr(obj, "crypto-replays",
                                   &s->crypto_replays, OBJ_PROP_FLAG_READ);
}

static void bcm43xx_exit(PCIDevice *pdev)
{
    Bcm43xxState *s = BCM43XX(pdev);

    bcm43xx_set_radio(s, false);
    bcm43xx_keys_clear(s);
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
