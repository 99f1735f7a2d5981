/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ndisbench usb-rtl8187: the RTL8187 (not 8187B) USB interface as Linux's
 * in-tree rtl8187 driver uses it (register offsets, 93c46 EEPROM words,
 * TX header and RX trailer).
 *
 * One source of truth, included by the QEMU device model
 * (qemu-devices/usb-rtl8187.c), its qtest and the fixture driver. Plain
 * integer constants and fixed-width little-endian, naturally aligned
 * structures only, so it builds for QEMU (host gcc) and for a
 * freestanding mingw-w64 driver alike.
 */
#ifndef RTL8187_REGS_H
#define RTL8187_REGS_H

#include <stdint.h>

#define RTL8187_VENDOR_ID               0x0bda
#define RTL8187_DEFAULT_PRODUCT_ID      0x8187

/* Endpoints: bulk IN 1 carries RX, bulk OUT 2 (and 3) carry TX. */
#define RTL8187_EP_RX                   1
#define RTL8187_EP_TX                   2
#define RTL8187_EP_TX_LOW               3

/*
 * Vendor control requests. Register access: wValue = register address
 * (RTL8187_REG_BASE | offset), wIndex = page (0..3), wLength = 1, 2 or 4.
 * wIndex RTL8187_INDEX_RF8225 writes an RTL8225 register directly
 * (wValue = RF register, 2 data bytes), as the driver does on asic rev 1.
 */
#define RTL8187_REQT_READ               0xc0
#define RTL8187_REQT_WRITE              0x40
#define RTL8187_REQ_GET_REG             0x05
#define RTL8187_REQ_SET_REG             0x05
#define RTL8187_REG_BASE                0xff00
#define RTL8187_REG_PAGES               4
#define RTL8187_REG_PAGE_SIZE           0x100
#define RTL8187_INDEX_RF8225            0x8225

/* Register offsets within a page (struct rtl818x_csr) */
#define RTL8187_REG_MAC                 0x00    /* 6 bytes */
#define RTL8187_REG_TSFT                0x18    /* 8 bytes, read-only */
#define RTL8187_REG_BSSID               0x2e    /* 6 bytes */
#define RTL8187_REG_CMD                 0x37
#define   RTL8187_CMD_TX_ENABLE         (1 << 2)
#define   RTL8187_CMD_RX_ENABLE         (1 << 3)
#define   RTL8187_CMD_RESET             (1 << 4)    /* self-clearing */
#define RTL8187_REG_TX_CONF             0x40    /* 32-bit */
#define   RTL8187_TX_CONF_HWVER_MASK    (7u << 25)  /* reads 0: RTL8187vB */
#define RTL8187_REG_RX_CONF             0x44    /* 32-bit; bit 6 0: 93c46 */
#define   RTL8187_RX_CONF_EEPROM_93C66  (1 << 6)
#define RTL8187_REG_EEPROM_CMD          0x50
#define   RTL8187_EEPROM_CMD_READ       (1 << 0)    /* DO, from the EEPROM */
#define   RTL8187_EEPROM_CMD_WRITE      (1 << 1)    /* DI, to the EEPROM */
#define   RTL8187_EEPROM_CMD_CK         (1 << 2)
#define   RTL8187_EEPROM_CMD_CS         (1 << 3)
#define   RTL8187_EEPROM_CMD_MODE_MASK  (3 << 6)
#define   RTL8187_EEPROM_CMD_NORMAL     (0 << 6)
#define   RTL8187_EEPROM_CMD_LOAD       (1 << 6)    /* autoload, self-clearing */
#define   RTL8187_EEPROM_CMD_PROGRAM    (2 << 6)    /* bit-bang the 93c46 */
#define   RTL8187_EEPROM_CMD_CONFIG     (3 << 6)
#define RTL8187_REG_PGSELECT            0x5e
#define RTL8187_REG_PHY                 0x7c    /* 4 bytes */
/* RTL8225 3-wire bus: bit 0 data, bit 1 clock, bit 2 enable (low = busy) */
#define RTL8187_REG_RFPINS_OUTPUT       0x80    /* 16-bit */
#define RTL8187_REG_RFPINS_ENABLE       0x82
#define RTL8187_REG_RFPINS_SELECT       0x84
#define RTL8187_REG_RFPINS_INPUT        0x86
#define   RTL8187_RFPINS_DATA           (1 << 0)
#define   RTL8187_RFPINS_CLK            (1 << 1)
#define   RTL8187_RFPINS_EN             (1 << 2)
#define RTL8187_REG_GPIO0               0x91
#define RTL8187_REG_GPIO1               0x92    /* input pins */
#define   RTL8187_GPIO1_RADIO_ON        (1 << 1)    /* rfkill switch: on */
#define RTL8187_REG_ASIC_REV            0xfe    /* reads 0: 3-wire bit-bang */

/*
 * RTL8225 3-wire word: 16 bits MSB first, (data << 4) | register. The
 * channel is register 7; its value is RTL8225_CHAN_BASE +
 * (channel - 1) * RTL8225_CHAN_STEP for channels 1..13, RTL8225_CHAN_14
 * for channel 14.
 */
#define RTL8225_REG_CHANNEL             0x7
#define RTL8225_CHAN_BASE               0x085c
#define RTL8225_CHAN_STEP               0x0080
#define RTL8225_CHAN_14                 0x0f72

/* 93c46 EEPROM: 64 16-bit words, 6 address bits, read opcode 10b */
#define RTL8187_EEPROM_WORDS            64
#define RTL8187_EEPROM_ADDR_BITS        6
#define RTL8187_EEPROM_ID               0x00    /* 0x8129 */
#define RTL8187_EEPROM_ID_VALUE         0x8129
#define RTL8187_EEPROM_TXPWR_BASE       0x05
#define RTL8187_EEPROM_MAC_ADDR         0x07    /* 3 words, mac[0] low */
#define RTL8187_EEPROM_TXPWR_CHAN_1     0x16    /* 3 words, ch 1..6 */
#define RTL8187_EEPROM_TXPWR_CHAN_6     0x1b    /* 2 words, ch 11..14 */
#define RTL8187_EEPROM_SELECT_GPIO      0x3b
#define RTL8187_EEPROM_TXPWR_CHAN_4     0x3d    /* 2 words, ch 7..10 */

/* TX: this header, then the 802.11 frame (no FCS), on a bulk OUT endpoint */
struct rtl8187_tx_hdr {
    uint32_t flags;         /* length, rate << 24, RTS/CTS, NO_ENC... */
    uint16_t rts_duration;
    uint16_t len;           /* 0 */
    uint32_t retry;         /* retry limit << 8 */
};

#define RTL8187_TX_HDR_SIZE             12
#define RTL8187_TX_FLAG_LEN_MASK        0x0fff      /* frame length */
#define RTL8187_TX_FLAG_NO_ENC          (1 << 15)
#define RTL8187_TX_FLAG_SPLCP           (1 << 16)
#define RTL8187_TX_FLAG_MOREFRAG        (1 << 17)
#define RTL8187_TX_FLAG_CTS             (1 << 18)
#define RTL8187_TX_FLAG_RTS_RATE_SHIFT  19
#define RTL8187_TX_FLAG_RTS             (1 << 23)
#define RTL8187_TX_FLAG_RATE_SHIFT      24
#define RTL8187_TX_FLAG_RATE_MASK       (0xf << 24)

/*
 * RX: one bulk IN transfer is the 802.11 frame, its FCS (4 bytes, the
 * driver says RX_INCLUDES_FCS), then this trailer. flags bits 0..11 are
 * the frame length including the FCS; signal in dBm = -4 - (27 * agc >> 6).
 */
struct rtl8187_rx_hdr {
    uint32_t flags;
    uint8_t noise;
    uint8_t signal;         /* bit 7: antenna */
    uint8_t agc;
    uint8_t reserved;
    uint64_t mac_time;      /* TSFT at reception, us */
};

#define RTL8187_RX_HDR_SIZE             16
#define RTL8187_MAX_RX                  0x9c4       /* driver's URB size */
#define RTL8187_RX_FLAG_LEN_MASK        0x0fff
#define RTL8187_RX_FLAG_ICV_ERR         (1 << 12)
#define RTL8187_RX_FLAG_CRC32_ERR       (1 << 13)
#define RTL8187_RX_FLAG_BCAST           (1 << 16)
#define RTL8187_RX_FLAG_MCAST           (1 << 18)
#define RTL8187_RX_FLAG_RATE_SHIFT      20
#define RTL8187_RX_FLAG_SPLCP           (1 << 25)
#define RTL8187_RX_FLAG_LS              (1 << 28)
#define RTL8187_RX_FLAG_FS              (1 << 29)

#endif /* RTL8187_REGS_H */
