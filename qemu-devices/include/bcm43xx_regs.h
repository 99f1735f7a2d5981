/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ndisbench bcm43xx-class WLAN: register map and DMA layout.
 *
 * One source of truth, included by the QEMU device model
 * (qemu-devices/bcm43xx.c) and by the Windows fixture driver
 * (fixtures/drivers/bcmwl/). Plain integer constants and fixed-width
 * little-endian structures only, so it builds for QEMU (host gcc) and for
 * a freestanding mingw-w64 driver alike.
 *
 * The chip is a SoftMAC: the driver sends and receives raw 802.11 frames
 * through two DMA rings and runs the MLME (scan, auth, assoc) itself. The
 * descriptor ring follows the public b43 "DMA64" documentation: 16-byte
 * descriptors {ctl0, ctl1, addr_lo, addr_hi}, a table-end bit, frame
 * start/end bits, a ring base register pair, an index register the driver
 * writes and a status register the device writes. Frame headers are this
 * bench's own, much smaller than a real Broadcom firmware's.
 */
#ifndef BCM43XX_REGS_H
#define BCM43XX_REGS_H

#include <stdint.h>

#define BCM43XX_VENDOR_ID          0x14e4
#define BCM43XX_DEFAULT_DEVICE_ID  0x4318   /* 0x4311 0x4312 0x4320 too */
#define BCM43XX_CLASS_NETWORK_OTHER 0x0280

/* BAR0: one 16 KiB MMIO window, 32-bit accesses unless noted. */
#define BCM43XX_MMIO_SIZE          0x4000

#define BCM43XX_REG_ID             0x0000  /* RO: device id << 16 | rev */
#define BCM43XX_REG_CTRL           0x0004  /* RW */
#define   BCM43XX_CTRL_ENABLE      (1u << 0)  /* MAC + radio on air */
#define   BCM43XX_CTRL_RESET       (1u << 1)  /* WO: reset rings, IRQs */
#define   BCM43XX_CTRL_PROMISC     (1u << 2)  /* receive every frame */
#define   BCM43XX_CTRL_KEEP_BADFCS (1u << 3)  /* deliver frames with a bad
                                              * FCS (flagged), not drop */
#define   BCM43XX_CTRL_KEEP_BADCRYPT (1u << 4) /* deliver frames that failed
                                              * their MIC or replay check
                                              * (flagged, still sealed) */
#define BCM43XX_REG_CHANNEL        0x0008  /* RW: 1..14 (2.4 GHz) */
#define BCM43XX_REG_MACADDR_LO     0x000c  /* RW: bytes 0..3 of the
                                            * address the RX filter uses */
#define BCM43XX_REG_MACADDR_HI     0x0010  /* RW: bytes 4..5 in bits 0..15 */
#define BCM43XX_REG_TSF_LO         0x0014  /* RO: microseconds, virtual */
#define BCM43XX_REG_TSF_HI         0x0018  /* RO */

#define BCM43XX_REG_INT_STATUS     0x0020  /* RW1C */
#define BCM43XX_REG_INT_MASK       0x0024  /* RW */
#define   BCM43XX_INT_TX_DONE      (1u << 0)
#define   BCM43XX_INT_RX_DONE      (1u << 1)
#define   BCM43XX_INT_RX_NOBUF     (1u << 2)  /* frame dropped: ring full */
#define   BCM43XX_INT_DMA_ERROR    (1u << 3)  /* see the ring ERROR regs */
#define   BCM43XX_INT_ALL          0x0000000fu

/* DMA64 engines: TX at 0x200, RX at 0x240, same register layout. */
#define BCM43XX_DMA_TX_BASE        0x0200
#define BCM43XX_DMA_RX_BASE        0x0240
#define BCM43XX_DMA_CTL            0x00    /* RW */
#define   BCM43XX_DMA_CTL_ENABLE   (1u << 0)
#define BCM43XX_DMA_INDEX          0x04    /* RW: TX: index of the slot
                                            * after the last frame posted;
                                            * RX: index after the last
                                            * empty buffer posted */
#define BCM43XX_DMA_RINGLO         0x08    /* RW: ring base, 16-byte aligned */
#define BCM43XX_DMA_RINGHI         0x0c    /* RW */
#define BCM43XX_DMA_RINGSIZE       0x10    /* RW: descriptors, 2..512 */
#define BCM43XX_DMA_STATUS         0x14    /* RO: index of the next slot the
                                            * device will process */
#define BCM43XX_DMA_ERROR          0x18    /* RO, cleared by CTL write */
#define   BCM43XX_DMAERR_NONE      0
#define   BCM43XX_DMAERR_DESC      1       /* descriptor fetch failed */
#define   BCM43XX_DMAERR_DATA      2       /* buffer outside guest RAM */
#define   BCM43XX_DMAERR_LENGTH    3       /* bad byte count */
#define   BCM43XX_DMAERR_RING      4       /* bad ring base/size */
#define BCM43XX_DMA_MAX_RING       512

/*
 * The key table: CCMP in the device, as a Broadcom-class chip keeps its
 * keys in its own memory. One 0x40-byte register window per slot:
 * slots 0..3 are the group keys by key id, slots 4..11 the pairwise
 * keys, one per peer (ADDR: the transmitter whose frames it opens and
 * the receiver of the frames it seals). The driver writes ADDR, RSC and
 * the TK, then CTL last: CTL with cipher CCMP installs the key (its TX
 * PN starts at 0, every receive counter at RSC); cipher NONE removes it.
 * The TK reads back as 0 (key material does not leave the chip).
 *
 * TX: a descriptor with BCM43XX_DCTL0_ENCRYPT names a slot: the device
 * seals the data frame (CCMP header from the slot's next PN, Protected
 * bit, MIC; 16 bytes longer on the air). A slot without a key, or a frame
 * that is not data or would grow past BCM43XX_MAX_FRAME, is not sent (a
 * guest error; the descriptor completes).
 *
 * RX: a protected data frame with a good FCS is looked up: a
 * group-addressed one, or one naming key id 1..3, under the group slot of
 * its key id; a unicast one with key id 0 under the pairwise slot of its
 * transmitter (addr2). Opened: delivered as plaintext (Protected clear,
 * no CCMP header, no MIC) with RXHDR_DECRYPTED and the slot. No key for
 * it (or not CCMP): delivered as received with RXHDR_UNDECRYPTED. A MIC
 * mismatch or a PN not above the slot's counter for the frame's TID is
 * dropped, unless CTRL has KEEP_BADCRYPT: then delivered as received
 * with RXHDR_MIC_FAIL or RXHDR_REPLAY.
 */
#define BCM43XX_KEY_BASE           0x0400
#define BCM43XX_KEY_STRIDE         0x40
#define BCM43XX_KEY_SLOTS          12
#define BCM43XX_KEY_GROUP_SLOTS    4       /* slot = key id */
#define BCM43XX_KEY_PAIRWISE_FIRST 4
#define BCM43XX_KEY_REG(slot, reg) (BCM43XX_KEY_BASE + \
                                    (slot) * BCM43XX_KEY_STRIDE + (reg))
#define BCM43XX_KEY_CTL            0x00    /* RW: cipher, written last */
#define   BCM43XX_KEY_CIPHER_NONE  0
#define   BCM43XX_KEY_CIPHER_CCMP  1       /* the only one this chip has */
#define BCM43XX_KEY_ADDR_LO        0x04    /* RW: peer address bytes 0..3 */
#define BCM43XX_KEY_ADDR_HI        0x08    /* RW: bytes 4..5 in bits 0..15 */
#define BCM43XX_KEY_RSC_LO         0x0c    /* RW: first receive PN - 1 */
#define BCM43XX_KEY_RSC_HI         0x10    /* RW: PN bits 32..47 */
#define BCM43XX_KEY_TXPN_LO        0x14    /* RO: the last PN sent */
#define BCM43XX_KEY_TXPN_HI        0x18    /* RO */
#define BCM43XX_KEY_TK             0x20    /* WO: 4 words, TK byte 0 in
                                            * bits 0..7 of the first */
#define BCM43XX_KEY_TK_WORDS       4

/* SPROM image, read-only, 16-bit reads. MAC in network byte order. */
#define BCM43XX_SPROM_BASE         0x1000
#define BCM43XX_SPROM_SIZE         0x0080
#define BCM43XX_SPROM_REV          (BCM43XX_SPROM_BASE + 0x00) /* = 1 */
#define BCM43XX_SPROM_MAC          (BCM43XX_SPROM_BASE + 0x48) /* 6 bytes */

/* A DMA64 descriptor (all fields little-endian). */
struct bcm43xx_dmadesc64 {
    uint32_t ctl0;
    uint32_t ctl1;
    uint32_t addr_lo;
    uint32_t addr_hi;
};
#define BCM43XX_DESC_SIZE          16
#define BCM43XX_DCTL0_TABLEEND     (1u << 28) /* last slot: wrap to 0 */
#define BCM43XX_DCTL0_IRQ          (1u << 29) /* interrupt on completion */
#define BCM43XX_DCTL0_FRAMEEND     (1u << 30)
#define BCM43XX_DCTL0_FRAMESTART   (1u << 31)
#define BCM43XX_DCTL0_ENCRYPT      (1u << 27) /* TX: seal with the key */
#define BCM43XX_DCTL0_KEY_SHIFT    20         /* TX: ...in this slot */
#define BCM43XX_DCTL0_KEY_MASK     (0xfu << BCM43XX_DCTL0_KEY_SHIFT)
#define BCM43XX_DCTL1_BYTECNT_MASK 0x00001fffu /* buffer length */

/*
 * TX: each frame is one descriptor (FRAMESTART | FRAMEEND) whose buffer is
 * the raw 802.11 frame without FCS; byte count = frame length (10..2346).
 *
 * RX: the driver posts empty buffers (byte count = buffer size, >= 2400).
 * The device fills one buffer per frame: an rx header, then the 802.11
 * frame without FCS, and writes the header's length field last.
 */
struct bcm43xx_rxhdr {
    uint16_t frame_len;     /* bytes of 802.11 frame after this header */
    uint8_t channel;
    int8_t rssi_dbm;
    uint32_t flags;         /* BCM43XX_RXHDR_*, other bits 0 */
};
/* Only with BCM43XX_CTRL_KEEP_BADFCS: the frame failed its FCS check. */
#define BCM43XX_RXHDR_FCS_ERR      (1u << 0)
/* The key table's verdict on a protected data frame (see above). */
#define BCM43XX_RXHDR_DECRYPTED    (1u << 1)  /* now plaintext */
#define BCM43XX_RXHDR_UNDECRYPTED  (1u << 2)  /* no key: as received */
#define BCM43XX_RXHDR_MIC_FAIL     (1u << 3)  /* KEEP_BADCRYPT only */
#define BCM43XX_RXHDR_REPLAY       (1u << 4)  /* KEEP_BADCRYPT only */
#define BCM43XX_RXHDR_KEY_SHIFT    8          /* DECRYPTED: the slot */
#define BCM43XX_RXHDR_KEY_MASK     (0xfu << BCM43XX_RXHDR_KEY_SHIFT)
#define BCM43XX_RXHDR_SIZE         8
#define BCM43XX_RX_BUF_MIN         2400
#define BCM43XX_MAX_FRAME          2346

#endif /* BCM43XX_REGS_H */
