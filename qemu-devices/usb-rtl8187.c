/*
 * ndisbench RTL8187-class USB 2.0 WLAN adapter (SoftMAC)
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
 * The USB interface of the RTL8187 (not the 8187B) as Linux's in-tree
 * rtl8187 driver drives it; the register offsets, EEPROM words and the
 * TX/RX headers are in include/rtl8187_regs.h, which the fixture driver
 * shares. The device sends and receives raw 802.11 frames on a wlan-air:
 *
 *   -object wlan-air,id=air0 -device usb-rtl8187,air=air0[,mac=...]
 *
 * Behaviour decided here:
 * - Registers are four pages of 256 bytes of plain storage at
 *   0xff00..0xffff (wIndex = page), with these exceptions on page 0:
 *   CMD.RESET and EEPROM_CMD LOAD mode clear themselves, TSFT counts
 *   microseconds of QEMU_CLOCK_VIRTUAL since the last reset, EEPROM_CMD
 *   in PROGRAM mode bit-bangs the 93c46 and RFPinsOutput bit-bangs the
 *   RTL8225 (only its channel register 7 has an effect); GPIO1 always
 *   reads the rfkill switch (bit 1) as radio on.
 * - The radio is on the air while CMD has TX_ENABLE or RX_ENABLE. Frames
 *   are received only with RX_ENABLE, sent only with TX_ENABLE (a bulk
 *   OUT frame with TX off completes and is dropped).
 * - Up to RTL8187_RX_QUEUE received frames wait for bulk IN transfers;
 *   more are dropped. Queued frames are not migrated.
 * - A bulk IN transfer shorter than the next frame stalls and drops that
 *   frame; a bulk OUT transfer whose header length does not fit stalls.
 * - The 93c46 answers READ only; other opcodes are ignored.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/usb.h"
#include "hw/usb/desc.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "qom/object.h"
#include "wlan-air.h"
#include "include/rtl8187_regs.h"
#include "trace.h"

#define TYPE_USB_RTL8187 "usb-rtl8187"
OBJECT_DECLARE_SIMPLE_TYPE(Rtl8187State, USB_RTL8187)

#define RTL8187_RSSI_DBM    (-40)
#define RTL8187_RX_QUEUE    64
#define RTL8187_TX_MAX      (RTL8187_TX_HDR_SIZE + RTL8187_TX_FLAG_LEN_MASK)

enum {
    RTL8187_EE_IDLE,            /* waiting for the start bit */
    RTL8187_EE_COMMAND,         /* shifting in opcode and address */
    RTL8187_EE_READ,            /* shifting out data */
    RTL8187_EE_IGNORE,          /* unsupported opcode: until CS drops */
};

typedef struct Rtl8187RxFrame {
    QSIMPLEQ_ENTRY(Rtl8187RxFrame) link;
    size_t len;
    uint8_t data[];
} Rtl8187RxFrame;

struct Rtl8187State {
    /*< private >*/
    USBDevice dev;
    /*< public >*/

    USBDesc desc;               /* the class's, with this device's ids */
    USBEndpoint *ep_in;
    WlanRadio radio;
    bool on_air;

    uint8_t regs[RTL8187_REG_PAGES][RTL8187_REG_PAGE_SIZE];
    int64_t tsf_base_us;
    uint8_t channel;

    /* 93c46 */
    uint16_t eeprom[RTL8187_EEPROM_WORDS];
    uint8_t ee_state;
    bool ee_clk;
    bool ee_do;
    uint8_t ee_bits;
    uint16_t ee_shift;
    uint8_t ee_addr;

    /* RTL8225 3-wire */
    bool rf_clk;
    uint8_t rf_bits;
    uint16_t rf_shift;

    QSIMPLEQ_HEAD(, Rtl8187RxFrame) rxq;
    unsigned rxq_len;
    uint8_t frame[RTL8187_TX_MAX];

    /* Properties */
    uint16_t vendor_id;
    uint16_t product_id;
    MACAddr macaddr;
    WlanAir *air;
};

/* The RTL8187 (not 8187B) entries of Linux's rtl8187 USB id table. */
static const struct {
    uint16_t vendor;
    uint16_t product;
} rtl8187_ids[] = {
    { 0x0bda, 0x8187 }, { 0x0b05, 0x171d }, { 0x0769, 0x11f2 },
    { 0x0789, 0x010c }, { 0x0846, 0x6100 }, { 0x0846, 0x6a00 },
    { 0x03f0, 0xca02 }, { 0x0df6, 0x000d }, { 0x114b, 0x0150 },
    { 0x1371, 0x9401 }, { 0x13d1, 0xabe6 }, { 0x18e8, 0x6232 },
    { 0x1b75, 0x8187 },
};

enum {
    STR_MANUFACTURER = 1,
    STR_PRODUCT,
    STR_SERIALNUMBER,
};

static const USBDescStrings rtl8187_desc_strings = {
    [STR_MANUFACTURER] = "Manufacturer_Realtek",
    [STR_PRODUCT]      = "RTL8187_Wireless",
    [STR_SERIALNUMBER] = "1",
};

#define RTL8187_EPS(_mps) (USBDescEndpoint[]) {                         \
    {                                                                   \
        .bEndpointAddress = USB_DIR_IN | RTL8187_EP_RX,                 \
        .bmAttributes     = USB_ENDPOINT_XFER_BULK,                     \
        .wMaxPacketSize   = (_mps),                                     \
    }, {                                                                \
        .bEndpointAddress = USB_DIR_OUT | RTL8187_EP_TX,                \
        .bmAttributes     = USB_ENDPOINT_XFER_BULK,                     \
        .wMaxPacketSize   = (_mps),                                     \
    }, {                                                                \
        .bEndpointAddress = USB_DIR_OUT | RTL8187_EP_TX_LOW,            \
        .bmAttributes     = USB_ENDPOINT_XFER_BULK,                     \
        .wMaxPacketSize   = (_mps),                                     \
    },                                                                  \
}

static const USBDescIface rtl8187_iface_full = {
    .bInterfaceNumber   = 0,
    .bNumEndpoints      = 3,
    .bInterfaceClass    = USB_CLASS_VENDOR_SPEC,
    .bInterfaceSubClass = 0xff,
    .bInterfaceProtocol = 0xff,
    .eps = RTL8187_EPS(64),
};

static const USBDescIface rtl8187_iface_high = {
    .bInterfaceNumber   = 0,
    .bNumEndpoints      = 3,
    .bInterfaceClass    = USB_CLASS_VENDOR_SPEC,
    .bInterfaceSubClass = 0xff,
    .bInterfaceProtocol = 0xff,
    .eps = RTL8187_EPS(512),
};

static const USBDescDevice rtl8187_desc_device_full = {
    .bcdUSB             = 0x0200,
    .bDeviceClass       = 0,
    .bMaxPacketSize0    = 64,
    .bNumConfigurations = 1,
    .confs = (USBDescConfig[]) {
        {
            .bNumInterfaces      = 1,
            .bConfigurationValue = 1,
            .bmAttributes        = USB_CFG_ATT_ONE,
            .bMaxPower           = 250,     /* 500 mA */
            .nif = 1,
            .ifs = &rtl8187_iface_full,
        },
    },
};

static const USBDescDevice rtl8187_desc_device_high = {
    .bcdUSB             = 0x0200,
    .bDeviceClass       = 0,
    .bMaxPacketSize0    = 64,
    .bNumConfigurations = 1,
    .confs = (USBDescConfig[]) {
        {
            .bNumInterfaces      = 1,
            .bConfigurationValue = 1,
            .bmAttributes        = USB_CFG_ATT_ONE,
            .bMaxPower           = 250,
            .nif = 1,
            .ifs = &rtl8187_iface_high,
        },
    },
};

static const USBDesc rtl8187_desc = {
    .id = {
        .idVendor      = RTL8187_VENDOR_ID,
        .idProduct     = RTL8187_DEFAULT_PRODUCT_ID,
        .bcdDevice     = 0x0100,
        .iManufacturer = STR_MANUFACTURER,
        .iProduct      = STR_PRODUCT,
        .iSerialNumber = STR_SERIALNUMBER,
    },
    .full = &rtl8187_desc_device_full,
    .high = &rtl8187_desc_device_high,
    .str  = rtl8187_desc_strings,
};

/* ---- radio -------------------------------------------------------------- */

static void rtl8187_rxq_flush(Rtl8187State *s)
{
    Rtl8187RxFrame *f;

    while ((f = QSIMPLEQ_FIRST(&s->rxq)) != NULL) {
        QSIMPLEQ_REMOVE_HEAD(&s->rxq, link);
        g_free(f);
    }
    s->rxq_len = 0;
}

static void rtl8187_update_radio(Rtl8187State *s)
{
    uint8_t cmd = s->regs[0][RTL8187_REG_CMD];
    bool on = s->dev.attached &&
              (cmd & (RTL8187_CMD_TX_ENABLE | RTL8187_CMD_RX_ENABLE));

    if (on && !s->on_air) {
        wlan_air_attach(s->air, &s->radio);
    } else if (!on && s->on_air) {
        wlan_air_detach(&s->radio);
    }
    s->on_air = on;
    if (!(cmd & RTL8187_CMD_RX_ENABLE)) {
        rtl8187_rxq_flush(s);
    }
}

static uint64_t rtl8187_tsf(Rtl8187State *s)
{
    return qemu_clock_get_us(QEMU_CLOCK_VIRTUAL) - s->tsf_base_us;
}

static void rtl8187_receive(WlanRadio *radio, const uint8_t *frame,
                            size_t len, uint32_t fcs, int rssi_dbm)
{
    Rtl8187State *s = radio->opaque;
    struct rtl8187_rx_hdr hdr;
    Rtl8187RxFrame *f;
    uint32_t flags;
    int agc;

    if (!(s->regs[0][RTL8187_REG_CMD] & RTL8187_CMD_RX_ENABLE)) {
        trace_rtl8187_rx_drop(len, "receiver off");
        return;
    }
    if (len < 10 || len + 4 > RTL8187_RX_FLAG_LEN_MASK ||
        len + 4 + RTL8187_RX_HDR_SIZE > RTL8187_MAX_RX) {
        trace_rtl8187_rx_drop(len, "bad length");
        return;
    }
    if (s->rxq_len >= RTL8187_RX_QUEUE) {
        trace_rtl8187_rx_drop(len, "queue full");
        return;
    }

    /* signal = -4 - (27 * agc >> 6), as the driver computes it */
    agc = ((-4 - rssi_dbm) * 64 + 26) / 27;
    agc = MIN(MAX(agc, 0), 255);
    flags = (len + 4) | RTL8187_RX_FLAG_FS | RTL8187_RX_FLAG_LS;
    if (frame[4] & 1) {
        flags |= (frame[4] == 0xff && frame[5] == 0xff)
                 ? RTL8187_RX_FLAG_BCAST : RTL8187_RX_FLAG_MCAST;
    }
    if (!wlan_air_fcs_ok(frame, len, fcs)) {
        /*
         * Bit errors: the chip still hands the frame up, with the FCS as
         * received and CRC32_ERR in the trailer; the driver drops it.
         */
        flags |= RTL8187_RX_FLAG_CRC32_ERR;
        trace_rtl8187_rx_bad_fcs(len);
    }
    hdr.flags = cpu_to_le32(flags);
    hdr.noise = 0;
    hdr.signal = 0x40;
    hdr.agc = agc;
    hdr.reserved = 0;
    hdr.mac_time = cpu_to_le64(rtl8187_tsf(s));

    f = g_malloc(sizeof(*f) + len + 4 + RTL8187_RX_HDR_SIZE);
    f->len = len + 4 + RTL8187_RX_HDR_SIZE;
    memcpy(f->data, frame, len);
    stl_le_p(f->data + len, fcs);
    memcpy(f->data + len + 4, &hdr, sizeof(hdr));
    QSIMPLEQ_INSERT_TAIL(&s->rxq, f, link);
    s->rxq_len++;
    trace_rtl8187_rx(len, rssi_dbm, s->rxq_len);
    usb_wakeup(s->ep_in, 0);
}

static void rtl8187_set_channel(Rtl8187State *s, uint16_t val)
{
    unsigned ch = 0;

    if (val == RTL8225_CHAN_14) {
        ch = 14;
    } else if (val >= RTL8225_CHAN_BASE &&
               (val - RTL8225_CHAN_BASE) % RTL8225_CHAN_STEP == 0 &&
               (val - RTL8225_CHAN_BASE) / RTL8225_CHAN_STEP < 13) {
        ch = (val - RTL8225_CHAN_BASE) / RTL8225_CHAN_STEP + 1;
    }
    if (ch == 0) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "usb-rtl8187: RTL8225 channel value 0x%03x is no "
                      "channel, ignored\n", val);
        return;
    }
    trace_rtl8187_channel(ch);
    s->channel = ch;
    s->radio.channel = ch;
}

static void rtl8187_rf_write(Rtl8187State *s, uint8_t reg, uint16_t val)
{
    trace_rtl8187_rf_write(reg, val);
    if (reg == RTL8225_REG_CHANNEL) {
        rtl8187_set_channel(s, val);
    }
}

/* ---- bit-banged buses --------------------------------------------------- */

static void rtl8187_ee_reset(Rtl8187State *s)
{
    s->ee_state = RTL8187_EE_IDLE;
    s->ee_do = false;
    s->ee_bits = 0;
    s->ee_shift = 0;
}

static void rtl8187_ee_write(Rtl8187State *s, uint8_t val)
{
    bool cs = val & RTL8187_EEPROM_CMD_CS;
    bool clk = val & RTL8187_EEPROM_CMD_CK;
    bool di = val & RTL8187_EEPROM_CMD_WRITE;
    bool rising = clk && !s->ee_clk;

    s->ee_clk = clk;
    if (!cs) {
        rtl8187_ee_reset(s);
        return;
    }
    if (!rising) {
        return;
    }
    switch (s->ee_state) {
    case RTL8187_EE_IDLE:
        if (di) {
            s->ee_state = RTL8187_EE_COMMAND;
            s->ee_bits = 0;
            s->ee_shift = 0;
        }
        break;
    case RTL8187_EE_COMMAND:
        s->ee_shift = (s->ee_shift << 1) | di;
        if (++s->ee_bits < 2 + RTL8187_EEPROM_ADDR_BITS) {
            break;
        }
        s->ee_addr = s->ee_shift & (RTL8187_EEPROM_WORDS - 1);
        if ((s->ee_shift >> RTL8187_EEPROM_ADDR_BITS) == 2) {
            trace_rtl8187_eeprom_read(s->ee_addr, s->eeprom[s->ee_addr]);
            s->ee_state = RTL8187_EE_READ;
            s->ee_bits = 0;
            s->ee_do = false;           /* the dummy 0 bit */
        } else {
            qemu_log_mask(LOG_UNIMP, "usb-rtl8187: 93c46 opcode %u "
                          "ignored (read-only EEPROM)\n",
                          s->ee_shift >> RTL8187_EEPROM_ADDR_BITS);
            s->ee_state = RTL8187_EE_IGNORE;
        }
        break;
    case RTL8187_EE_READ:
        if (s->ee_bits == 16) {         /* sequential read: next word */
            s->ee_addr = (s->ee_addr + 1) & (RTL8187_EEPROM_WORDS - 1);
            s->ee_bits = 0;
        }
        s->ee_do = (s->eeprom[s->ee_addr] >> (15 - s->ee_bits)) & 1;
        s->ee_bits++;
        break;
    default:
        break;
    }
}

static void rtl8187_rf_pins(Rtl8187State *s, uint16_t val)
{
    bool clk = val & RTL8187_RFPINS_CLK;

    if (val & RTL8187_RFPINS_EN) {
        /* enable high: the end of a word */
        if (s->rf_bits == 16) {
            rtl8187_rf_write(s, s->rf_shift & 0xf, s->rf_shift >> 4);
        }
        s->rf_bits = 0;
        s->rf_shift = 0;
    } else if (clk != s->rf_clk && s->rf_bits < 32) {
        /* the driver changes data on both clock edges: latch on both */
        s->rf_shift = (s->rf_shift << 1) | (val & RTL8187_RFPINS_DATA);
        s->rf_bits++;
    }
    s->rf_clk = clk;
}

/* ---- registers ---------------------------------------------------------- */

static uint8_t rtl8187_reg_read(Rtl8187State *s, unsigned page, unsigned off)
{
    uint8_t val = s->regs[page][off];

    if (page != 0) {
        return val;
    }
    switch (off) {
    case RTL8187_REG_TSFT ... RTL8187_REG_TSFT + 7:
        return rtl8187_tsf(s) >> (8 * (off - RTL8187_REG_TSFT));
    case RTL8187_REG_GPIO1:
        /* the rfkill switch the driver polls (mask 0x02): radio on */
        return val | RTL8187_GPIO1_RADIO_ON;
    case RTL8187_REG_EEPROM_CMD:
        val &= ~RTL8187_EEPROM_CMD_READ;
        if ((val & RTL8187_EEPROM_CMD_MODE_MASK) ==
            RTL8187_EEPROM_CMD_PROGRAM && s->ee_do) {
            val |= RTL8187_EEPROM_CMD_READ;
        }
        return val;
    default:
        return val;
    }
}

static void rtl8187_reg_write(Rtl8187State *s, unsigned page, unsigned off,
                              unsigned len, uint32_t val)
{
    unsigned i;

    for (i = 0; i < len; i++) {
        s->regs[page][off + i] = val >> (8 * i);
    }
    if (page != 0) {
        return;
    }
    for (i = off; i < off + len; i++) {
        switch (i) {
        case RTL8187_REG_CMD:
            s->regs[0][i] &= ~RTL8187_CMD_RESET;
            rtl8187_update_radio(s);
            break;
        case RTL8187_REG_EEPROM_CMD:
            if ((s->regs[0][i] & RTL8187_EEPROM_CMD_MODE_MASK) ==
                RTL8187_EEPROM_CMD_LOAD) {
                /* autoload done at once */
                s->regs[0][i] &= ~RTL8187_EEPROM_CMD_MODE_MASK;
            }
            if ((s->regs[0][i] & RTL8187_EEPROM_CMD_MODE_MASK) ==
                RTL8187_EEPROM_CMD_PROGRAM) {
                rtl8187_ee_write(s, s->regs[0][i]);
            } else {
                rtl8187_ee_reset(s);
                s->ee_clk = false;
            }
            break;
        case RTL8187_REG_RFPINS_OUTPUT:
            rtl8187_rf_pins(s, lduw_le_p(&s->regs[0][i]));
            break;
        default:
            break;
        }
    }
}

static void rtl8187_stall(USBPacket *p, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);

static void rtl8187_stall(USBPacket *p, const char *fmt, ...)
{
    va_list ap;
    g_autofree char *msg = NULL;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    qemu_log_mask(LOG_GUEST_ERROR, "usb-rtl8187: %s\n", msg);
    trace_rtl8187_stall(msg);
    p->status = USB_RET_STALL;
}

static void rtl8187_handle_control(USBDevice *dev, USBPacket *p,
                                   int request, int value, int index,
                                   int length, uint8_t *data)
{
    Rtl8187State *s = USB_RTL8187(dev);
    unsigned off = value - RTL8187_REG_BASE;
    uint32_t val = 0;
    int ret, i;

    ret = usb_desc_handle_control(dev, p, request, value, index, length,
                                  data);
    if (ret >= 0) {
        return;
    }

    switch (request) {
    case VendorDeviceRequest | RTL8187_REQ_GET_REG:
    case VendorDeviceOutRequest | RTL8187_REQ_SET_REG:
        break;
    default:
        rtl8187_stall(p, "unknown control request 0x%04x value 0x%04x "
                      "index 0x%04x length %d", request, value, index,
                      length);
        return;
    }

    if (request == (VendorDeviceOutRequest | RTL8187_REQ_SET_REG) &&
        index == RTL8187_INDEX_RF8225) {
        if (length != 2 || value > 0xf) {
            rtl8187_stall(p, "RTL8225 write of register 0x%x with %d "
                          "bytes", value, length);
            return;
        }
        rtl8187_rf_write(s, value, lduw_le_p(data));
        return;
    }
    if (value < RTL8187_REG_BASE || index >= RTL8187_REG_PAGES ||
        (length != 1 && length != 2 && length != 4) ||
        off + length > RTL8187_REG_PAGE_SIZE) {
        rtl8187_stall(p, "register %s of 0x%04x page %d, %d bytes: out "
                      "of range", request & (USB_DIR_IN << 8) ? "read" :
                      "write", value, index, length);
        return;
    }

    if (request == (VendorDeviceRequest | RTL8187_REQ_GET_REG)) {
        for (i = 0; i < length; i++) {
            data[i] = rtl8187_reg_read(s, index, off + i);
            val |= (uint32_t)data[i] << (8 * i);
        }
        p->actual_length = length;
        trace_rtl8187_reg_read(index, value, val, length);
    } else {
        for (i = 0; i < length; i++) {
            val |= (uint32_t)data[i] << (8 * i);
        }
        trace_rtl8187_reg_write(index, value, val, length);
        rtl8187_reg_write(s, index, off, length, val);
    }
}

static void rtl8187_tx(Rtl8187State *s, USBPacket *p)
{
    size_t size = p->iov.size;
    uint32_t flags, len;

    if (size == 0) {
        /*
         * The zero-length packet ending a transfer of a multiple of
         * wMaxPacketSize bytes (the driver sets URB_ZERO_PACKET).
         */
        return;
    }
    if (size < RTL8187_TX_HDR_SIZE || size > sizeof(s->frame)) {
        rtl8187_stall(p, "bulk OUT of %zu bytes (header %d, frame at "
                      "most %d)", size, RTL8187_TX_HDR_SIZE,
                      RTL8187_TX_FLAG_LEN_MASK);
        return;
    }
    usb_packet_copy(p, s->frame, size);
    flags = ldl_le_p(s->frame);
    len = flags & RTL8187_TX_FLAG_LEN_MASK;
    if (len < 10 || len > size - RTL8187_TX_HDR_SIZE ||
        len > WLAN_MAX_FRAME) {
        rtl8187_stall(p, "TX header length %u does not fit a %zu-byte "
                      "transfer", len, size);
        return;
    }
    if (!(s->regs[0][RTL8187_REG_CMD] & RTL8187_CMD_TX_ENABLE) ||
        !s->on_air) {
        trace_rtl8187_tx_drop(len, "transmitter off");
        return;
    }
    trace_rtl8187_tx(len, flags, s->frame[RTL8187_TX_HDR_SIZE],
                     s->channel);
    wlan_air_transmit(&s->radio, s->frame + RTL8187_TX_HDR_SIZE, len);
}

static void rtl8187_handle_data(USBDevice *dev, USBPacket *p)
{
    Rtl8187State *s = USB_RTL8187(dev);
    Rtl8187RxFrame *f;

    switch (p->pid) {
    case USB_TOKEN_IN:
        if (p->ep->nr != RTL8187_EP_RX) {
            break;
        }
        f = QSIMPLEQ_FIRST(&s->rxq);
        if (!f) {
            p->status = USB_RET_NAK;
            return;
        }
        QSIMPLEQ_REMOVE_HEAD(&s->rxq, link);
        s->rxq_len--;
        if (p->iov.size < f->len) {
            rtl8187_stall(p, "bulk IN of %zu bytes for a %zu-byte "
                          "frame: frame dropped", p->iov.size, f->len);
        } else {
            usb_packet_copy(p, f->data, f->len);
        }
        g_free(f);
        return;
    case USB_TOKEN_OUT:
        if (p->ep->nr != RTL8187_EP_TX && p->ep->nr != RTL8187_EP_TX_LOW) {
            break;
        }
        rtl8187_tx(s, p);
        return;
    default:
        break;
    }
    rtl8187_stall(p, "%s transfer on endpoint %d",
                  p->pid == USB_TOKEN_IN ? "IN" : "OUT", p->ep->nr);
}

static void rtl8187_load_eeprom(Rtl8187State *s)
{
    int i;

    memset(s->eeprom, 0, sizeof(s->eeprom));
    s->eeprom[RTL8187_EEPROM_ID] = RTL8187_EEPROM_ID_VALUE;
    s->eeprom[RTL8187_EEPROM_TXPWR_BASE] = 0x0101;
    for (i = 0; i < 3; i++) {
        s->eeprom[RTL8187_EEPROM_MAC_ADDR + i] =
            s->macaddr.a[2 * i] | (s->macaddr.a[2 * i + 1] << 8);
        s->eeprom[RTL8187_EEPROM_TXPWR_CHAN_1 + i] = 0x0808;
    }
    for (i = 0; i < 2; i++) {
        s->eeprom[RTL8187_EEPROM_TXPWR_CHAN_4 + i] = 0x0808;
        s->eeprom[RTL8187_EEPROM_TXPWR_CHAN_6 + i] = 0x0808;
    }
}

static void rtl8187_handle_reset(USBDevice *dev)
{
    Rtl8187State *s = USB_RTL8187(dev);

    memset(s->regs, 0, sizeof(s->regs));
    memcpy(&s->regs[0][RTL8187_REG_MAC], s->macaddr.a, 6);
    s->tsf_base_us = qemu_clock_get_us(QEMU_CLOCK_VIRTUAL);
    s->channel = 1;
    s->radio.channel = 1;
    rtl8187_ee_reset(s);
    s->ee_clk = false;
    s->rf_clk = false;
    s->rf_bits = 0;
    s->rf_shift = 0;
    rtl8187_update_radio(s);
    rtl8187_rxq_flush(s);
}

static void rtl8187_handle_attach(USBDevice *dev)
{
    usb_desc_attach(dev);
    rtl8187_update_radio(USB_RTL8187(dev));
}

static void rtl8187_realize(USBDevice *dev, Error **errp)
{
    Rtl8187State *s = USB_RTL8187(dev);
    const char *name;
    int i;

    for (i = 0; i < ARRAY_SIZE(rtl8187_ids); i++) {
        if (rtl8187_ids[i].vendor == s->vendor_id &&
            rtl8187_ids[i].product == s->product_id) {
            break;
        }
    }
    if (i == ARRAY_SIZE(rtl8187_ids)) {
        error_setg(errp, "usb-rtl8187: %04x:%04x is not an RTL8187 "
                   "(not 8187B) id of Linux's rtl8187 driver (use "
                   "0bda:8187)", s->vendor_id, s->product_id);
        return;
    }
    if (!s->air) {
        error_setg(errp, "usb-rtl8187: the 'air' property is required "
                   "(-object wlan-air,id=air0 -device usb-rtl8187,air=air0)");
        return;
    }

    s->desc = rtl8187_desc;
    s->desc.id.idVendor = s->vendor_id;
    s->desc.id.idProduct = s->product_id;
    dev->usb_desc = &s->desc;
    usb_desc_create_serial(dev);
    usb_desc_init(dev);
    s->ep_in = usb_ep_get(dev, USB_TOKEN_IN, RTL8187_EP_RX);

    QSIMPLEQ_INIT(&s->rxq);
    qemu_macaddr_default_if_unset(&s->macaddr);
    rtl8187_load_eeprom(s);

    name = object_get_canonical_path_component(OBJECT(s));
    s->radio.name = g_strdup(name ? name : TYPE_USB_RTL8187);
    s->radio.channel = 1;
    s->radio.rssi_dbm = RTL8187_RSSI_DBM;
    s->radio.receive = rtl8187_receive;
    s->radio.opaque = s;
    s->radio.guard = &DEVICE(s)->mem_reentrancy_guard;
    rtl8187_handle_reset(dev);
}

static void rtl8187_unrealize(USBDevice *dev)
{
    Rtl8187State *s = USB_RTL8187(dev);

    if (s->on_air) {
        wlan_air_detach(&s->radio);
        s->on_air = false;
    }
    rtl8187_rxq_flush(s);
    g_free((char *)s->radio.name);
    s->radio.name = NULL;
}

static int rtl8187_post_load(void *opaque, int version_id)
{
    Rtl8187State *s = opaque;

    if (s->ee_state > RTL8187_EE_IGNORE ||
        s->ee_addr >= RTL8187_EEPROM_WORDS || s->ee_bits > 16 ||
        s->channel < 1 || s->channel > 14) {
        return -EINVAL;
    }
    s->radio.channel = s->channel;
    rtl8187_update_radio(s);
    return 0;
}

static const VMStateDescription vmstate_rtl8187 = {
    .name = TYPE_USB_RTL8187,
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = rtl8187_post_load,
    .fields = (VMStateField[]) {
        VMSTATE_USB_DEVICE(dev, Rtl8187State),
        VMSTATE_UINT8_2DARRAY(regs, Rtl8187State, RTL8187_REG_PAGES,
                              RTL8187_REG_PAGE_SIZE),
        VMSTATE_INT64(tsf_base_us, Rtl8187State),
        VMSTATE_UINT8(channel, Rtl8187State),
        VMSTATE_UINT16_ARRAY(eeprom, Rtl8187State, RTL8187_EEPROM_WORDS),
        VMSTATE_UINT8(ee_state, Rtl8187State),
        VMSTATE_BOOL(ee_clk, Rtl8187State),
        VMSTATE_BOOL(ee_do, Rtl8187State),
        VMSTATE_UINT8(ee_bits, Rtl8187State),
        VMSTATE_UINT16(ee_shift, Rtl8187State),
        VMSTATE_UINT8(ee_addr, Rtl8187State),
        VMSTATE_BOOL(rf_clk, Rtl8187State),
        VMSTATE_UINT8(rf_bits, Rtl8187State),
        VMSTATE_UINT16(rf_shift, Rtl8187State),
        VMSTATE_END_OF_LIST()
    }
};

static Property rtl8187_properties[] = {
    DEFINE_PROP_UINT16("vendor-id", Rtl8187State, vendor_id,
                       RTL8187_VENDOR_ID),
    DEFINE_PROP_UINT16("product-id", Rtl8187State, product_id,
                       RTL8187_DEFAULT_PRODUCT_ID),
    DEFINE_PROP_MACADDR("mac", Rtl8187State, macaddr),
    DEFINE_PROP_LINK("air", Rtl8187State, air, TYPE_WLAN_AIR, WlanAir *),
    DEFINE_PROP_END_OF_LIST(),
};

static void rtl8187_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    USBDeviceClass *uc = USB_DEVICE_CLASS(klass);

    uc->product_desc   = "ndisbench RTL8187 USB WLAN";
    uc->usb_desc       = &rtl8187_desc;
    uc->realize        = rtl8187_realize;
    uc->unrealize      = rtl8187_unrealize;
    uc->handle_reset   = rtl8187_handle_reset;
    uc->handle_attach  = rtl8187_handle_attach;
    uc->handle_control = rtl8187_handle_control;
    uc->handle_data    = rtl8187_handle_data;
    dc->desc = "ndisbench Realtek RTL8187-class USB SoftMAC WLAN";
    dc->vmsd = &vmstate_rtl8187;
    device_class_set_props(dc, rtl8187_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo rtl8187_info = {
    .name = TYPE_USB_RTL8187,
    .parent = TYPE_USB_DEVICE,
    .instance_size = sizeof(Rtl8187State),
    .class_init = rtl8187_class_init,
};

QEMU_BUILD_BUG_ON(sizeof(struct rtl8187_tx_hdr) != RTL8187_TX_HDR_SIZE);
QEMU_BUILD_BUG_ON(sizeof(struct rtl8187_rx_hdr) != RTL8187_RX_HDR_SIZE);

static void rtl8187_register_types(void)
{
    type_register_static(&rtl8187_info);
}

type_init(rtl8187_register_types)
