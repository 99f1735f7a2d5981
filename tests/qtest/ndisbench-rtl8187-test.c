/*
 * QTest for the ndisbench usb-rtl8187 USB WLAN device model
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Built inside the QEMU tree like ndisbench-bcm43xx-test.c. Realize,
 * descriptors as `info usb` shows them, properties and hot-plug go through
 * QMP/HMP; transfers go through the minimal UHCI (full speed) and EHCI
 * (high speed) drivers of ndisbench-usb.h (7.2's libqos has no USB
 * transfer helpers), the virtual clock stepped.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "qapi/error.h"
#include "qapi/qmp/qdict.h"
#include "qapi/qmp/qjson.h"
#include "libqos/pci-pc.h"
#include "hw/ndisbench/include/rtl8187_regs.h"
#include "ndisbench-qtest.h"
#include "ndisbench-usb.h"
#include "ndisbench-xhci.h"

#define BASE_ARGS "-M pc -nodefaults -object wlan-air,id=air0 " \
                  "-device usb-ehci,id=ehci "

static char *info_usb(QTestState *qts)
{
    return qtest_hmp(qts, "info usb");
}

static void expect_error(QTestState *qts, const char *args, const char *what)
{
    QObject *obj = qobject_from_json(args, &error_abort);
    QDict *resp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': "
                            "%p}", obj);

    g_assert(qdict_haskey(resp, "error"));
    g_assert(strstr(qdict_get_str(qdict_get_qdict(resp, "error"), "desc"),
                    what));
    qobject_unref(resp);
}

/* High speed on EHCI, with the product string and 0bda:8187 by default. */
static void test_descriptors(void)
{
    QTestState *qts = qtest_init(BASE_ARGS
                                 "-device usb-rtl8187,id=wlan0,air=air0,"
                                 "bus=ehci.0,mac=52:54:00:12:34:56");
    char *out = info_usb(qts);
    QDict *resp;

    g_assert(strstr(out, "Speed 480 Mb/s"));
    g_assert(strstr(out, "ID: wlan0"));
    g_assert(strstr(out, "ndisbench RTL8187 USB WLAN"));
    g_free(out);

    resp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                     "'path': 'wlan0', 'property': 'product-id'}}");
    g_assert_cmpint(qdict_get_int(resp, "return"), ==,
                    RTL8187_DEFAULT_PRODUCT_ID);
    qobject_unref(resp);
    resp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                     "'path': 'wlan0', 'property': 'vendor-id'}}");
    g_assert_cmpint(qdict_get_int(resp, "return"), ==, RTL8187_VENDOR_ID);
    qobject_unref(resp);
    resp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                     "'path': 'wlan0', 'property': 'mac'}}");
    g_assert_cmpstr(qdict_get_str(resp, "return"), ==, "52:54:00:12:34:56");
    qobject_unref(resp);
    qtest_quit(qts);
}

/* Other RTL8187 ids of Linux's table realize; 8187B ids and no air fail. */
static void test_ids(void)
{
    QTestState *qts = qtest_init(BASE_ARGS);

    qtest_qmp_device_add(qts, "usb-rtl8187", "netgear",
                         "{'bus': 'ehci.0', 'air': 'air0', "
                         "'vendor-id': 2118, 'product-id': 24832}");
    expect_error(qts, "{'driver': 'usb-rtl8187', 'id': 'b', 'air': 'air0', "
                 "'bus': 'ehci.0', 'product-id': 33161}", "0bda:8189");
    expect_error(qts, "{'driver': 'usb-rtl8187', 'id': 'b2', 'air': 'air0', "
                 "'bus': 'ehci.0', 'product-id': 33175}", "0bda:8197");
    expect_error(qts, "{'driver': 'usb-rtl8187', 'id': 'noair', "
                 "'bus': 'ehci.0'}", "air");
    qtest_quit(qts);
}

/* device_add / device_del repeatedly, two radios on one air. */
static void test_hotplug(void)
{
    QTestState *qts = qtest_init(BASE_ARGS
                                 "-device usb-rtl8187,id=wlan0,air=air0,"
                                 "bus=ehci.0");
    char *out;
    int i;

    for (i = 0; i < 3; i++) {
        qtest_qmp_device_add(qts, "usb-rtl8187", "hot",
                             "{'bus': 'ehci.0', 'air': 'air0', "
                             "'mac': '52:54:00:ab:cd:ef'}");
        out = info_usb(qts);
        g_assert(strstr(out, "ID: hot"));
        g_free(out);
        qtest_qmp_device_del(qts, "hot");
        out = info_usb(qts);
        g_assert(!strstr(out, "ID: hot"));
        g_free(out);
    }
    qtest_qmp_device_del(qts, "wlan0");
    qtest_quit(qts);
}

/* ---- full speed (UHCI) ---------------------------------------------- */

#define UHCI_ARGS       "-M pc -m 128 -nodefaults -object wlan-air,id=air0 " \
                        "-device piix3-usb-uhci,id=uhci,addr=05.0 "

static uint32_t reg_read(Uhci *u, int addr, int page, int off, int len)
{
    uint8_t buf[4] = { 0 };

    g_assert_cmpint(usb_ctrl(u, addr, RTL8187_REQT_READ,
                             RTL8187_REQ_GET_REG, RTL8187_REG_BASE | off,
                             page, len, buf), ==, XFER_OK);
    return ldl_le_p(buf);
}

static void reg_write(Uhci *u, int addr, int page, int off, int len,
                      uint32_t val)
{
    uint8_t buf[4];

    stl_le_p(buf, val);
    g_assert_cmpint(usb_ctrl(u, addr, RTL8187_REQT_WRITE,
                             RTL8187_REQ_SET_REG, RTL8187_REG_BASE | off,
                             page, len, buf), ==, XFER_OK);
}

/* ---- transfers -------------------------------------------------------- */

static void test_usb_descriptors(void)
{
    QTestState *qts = qtest_init(UHCI_ARGS "-device usb-rtl8187,air=air0,"
                                 "bus=uhci.0,port=1");
    uint8_t d[64];
    Uhci u;

    uhci_start(&u, qts);
    usb_enumerate(&u, 0, 1);
    g_assert_cmpint(usb_ctrl(&u, 1, 0x80, 0x06, 0x0100, 0, 18, d), ==,
                    XFER_OK);
    g_assert_cmpint(d[1], ==, 1);
    g_assert_cmphex(lduw_le_p(d + 8), ==, RTL8187_VENDOR_ID);
    g_assert_cmphex(lduw_le_p(d + 10), ==, RTL8187_DEFAULT_PRODUCT_ID);
    g_assert_cmpint(usb_ctrl(&u, 1, 0x80, 0x06, 0x0200, 0, 39, d), ==,
                    XFER_OK);
    g_assert_cmpint(lduw_le_p(d + 2), ==, 39);  /* 9 + 9 + 3 * 7 */
    g_assert_cmpint(d[9 + 4], ==, 3);           /* bNumEndpoints */
    g_assert_cmpint(d[9 + 5], ==, 0xff);        /* vendor class */
    g_assert_cmphex(d[18 + 2], ==, 0x81);
    g_assert_cmpint(d[18 + 3], ==, 2);          /* bulk */
    g_assert_cmphex(d[25 + 2], ==, 0x02);
    g_assert_cmpint(d[25 + 3], ==, 2);
    g_assert_cmphex(d[32 + 2], ==, 0x03);
    uhci_stop(&u);
    qtest_quit(qts);
}

static void test_registers(void)
{
    QTestState *qts = qtest_init(UHCI_ARGS "-device usb-rtl8187,air=air0,"
                                 "bus=uhci.0,port=1,mac=52:54:00:12:34:56");
    uint8_t buf[4];
    Uhci u;

    uhci_start(&u, qts);
    usb_enumerate(&u, 0, 1);
    /* The MAC registers start with the mac property. */
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_MAC, 4), ==, 0x12005452);
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_MAC + 4, 2), ==, 0x5634);
    /* Plain registers keep what is written, per page and width. */
    reg_write(&u, 1, 0, RTL8187_REG_BSSID, 4, 0xdeadbeef);
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_BSSID, 4), ==,
                    0xdeadbeef);
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_BSSID + 1, 1), ==, 0xbe);
    reg_write(&u, 1, 2, RTL8187_REG_BSSID, 2, 0x1234);
    g_assert_cmphex(reg_read(&u, 1, 2, RTL8187_REG_BSSID, 2), ==, 0x1234);
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_BSSID, 2), ==, 0xbeef);
    /* CMD.RESET and EEPROM_CMD LOAD clear themselves. */
    reg_write(&u, 1, 0, RTL8187_REG_CMD, 1, RTL8187_CMD_RESET);
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_CMD, 1), ==, 0);
    reg_write(&u, 1, 0, RTL8187_REG_EEPROM_CMD, 1, RTL8187_EEPROM_CMD_LOAD);
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_EEPROM_CMD, 1) &
                    RTL8187_EEPROM_CMD_MODE_MASK, ==, 0);
    /* The rfkill switch reads "radio on", whatever was written. */
    reg_write(&u, 1, 0, RTL8187_REG_GPIO1, 1, 0);
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_GPIO1, 1) &
                    RTL8187_GPIO1_RADIO_ON, ==, RTL8187_GPIO1_RADIO_ON);
    /* TSFT counts. */
    g_assert_cmpuint(reg_read(&u, 1, 0, RTL8187_REG_TSFT, 4), >, 0);

    /* Bad requests stall; the device keeps working. */
    g_assert_cmpint(usb_ctrl(&u, 1, RTL8187_REQT_READ, RTL8187_REQ_GET_REG,
                             0x1234, 0, 1, buf), ==, XFER_STALL);
    g_assert_cmpint(usb_ctrl(&u, 1, RTL8187_REQT_READ, RTL8187_REQ_GET_REG,
                             0xfffe, 0, 4, buf), ==, XFER_STALL);
    g_assert_cmpint(usb_ctrl(&u, 1, RTL8187_REQT_READ, RTL8187_REQ_GET_REG,
                             0xff00, 4, 1, buf), ==, XFER_STALL);
    g_assert_cmpint(usb_ctrl(&u, 1, RTL8187_REQT_READ, RTL8187_REQ_GET_REG,
                             0xff00, 0, 3, buf), ==, XFER_STALL);
    g_assert_cmpint(usb_ctrl(&u, 1, RTL8187_REQT_WRITE, 0x07,
                             0xff00, 0, 1, buf), ==, XFER_STALL);
    g_assert_cmpint(usb_ctrl(&u, 1, RTL8187_REQT_READ, 0x42,
                             0xff00, 0, 1, buf), ==, XFER_STALL);
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_BSSID, 4), ==,
                    0xdeadbeef);
    uhci_stop(&u);
    qtest_quit(qts);
}

/* The 93c46 protocol as Linux's eeprom_93cx6.c drives it. */
static void ee_out(Uhci *u, uint8_t bits)
{
    reg_write(u, 1, 0, RTL8187_REG_EEPROM_CMD, 1,
              RTL8187_EEPROM_CMD_PROGRAM | bits);
}

static uint16_t ee_read_word(Uhci *u, int word)
{
    uint32_t cmd = (0x6 << RTL8187_EEPROM_ADDR_BITS) | word;
    uint16_t val = 0;
    int i;

    ee_out(u, RTL8187_EEPROM_CMD_CS);
    ee_out(u, RTL8187_EEPROM_CMD_CS | RTL8187_EEPROM_CMD_CK);
    ee_out(u, RTL8187_EEPROM_CMD_CS);
    for (i = RTL8187_EEPROM_ADDR_BITS + 2; i >= 0; i--) {
        uint8_t di = (cmd >> i) & 1 ? RTL8187_EEPROM_CMD_WRITE : 0;

        ee_out(u, RTL8187_EEPROM_CMD_CS | di);
        ee_out(u, RTL8187_EEPROM_CMD_CS | di | RTL8187_EEPROM_CMD_CK);
        ee_out(u, RTL8187_EEPROM_CMD_CS | di);
    }
    for (i = 15; i >= 0; i--) {
        ee_out(u, RTL8187_EEPROM_CMD_CS | RTL8187_EEPROM_CMD_CK);
        if (reg_read(u, 1, 0, RTL8187_REG_EEPROM_CMD, 1) &
            RTL8187_EEPROM_CMD_READ) {
            val |= 1 << i;
        }
        ee_out(u, RTL8187_EEPROM_CMD_CS);
    }
    ee_out(u, 0);
    return val;
}

static void test_eeprom(void)
{
    QTestState *qts = qtest_init(UHCI_ARGS "-device usb-rtl8187,air=air0,"
                                 "bus=uhci.0,port=1,mac=52:54:00:ab:cd:ef");
    Uhci u;

    uhci_start(&u, qts);
    usb_enumerate(&u, 0, 1);
    reg_write(&u, 1, 0, RTL8187_REG_EEPROM_CMD, 1, RTL8187_EEPROM_CMD_CONFIG);
    g_assert_cmphex(ee_read_word(&u, RTL8187_EEPROM_ID), ==,
                    RTL8187_EEPROM_ID_VALUE);
    g_assert_cmphex(ee_read_word(&u, RTL8187_EEPROM_MAC_ADDR), ==, 0x5452);
    g_assert_cmphex(ee_read_word(&u, RTL8187_EEPROM_MAC_ADDR + 1), ==,
                    0xab00);
    g_assert_cmphex(ee_read_word(&u, RTL8187_EEPROM_MAC_ADDR + 2), ==,
                    0xefcd);
    uhci_stop(&u);
    qtest_quit(qts);
}

/* RTL8225 word over the 3-wire bus, clocked as Linux's rtl8225.c does. */
static void rf_write(Uhci *u, int addr, uint8_t reg, uint16_t data)
{
    uint16_t bang = (data << 4) | (reg & 0xf);
    int i;

    reg_write(u, addr, 0, RTL8187_REG_RFPINS_OUTPUT, 2, RTL8187_RFPINS_EN);
    reg_write(u, addr, 0, RTL8187_REG_RFPINS_OUTPUT, 2, 0);
    for (i = 15; i >= 0; i--) {
        uint16_t v = (bang >> i) & 1;

        if (i & 1) {
            reg_write(u, addr, 0, RTL8187_REG_RFPINS_OUTPUT, 2, v);
        }
        reg_write(u, addr, 0, RTL8187_REG_RFPINS_OUTPUT, 2,
                  v | RTL8187_RFPINS_CLK);
        if (!(i & 1)) {
            reg_write(u, addr, 0, RTL8187_REG_RFPINS_OUTPUT, 2, v);
        }
    }
    reg_write(u, addr, 0, RTL8187_REG_RFPINS_OUTPUT, 2, RTL8187_RFPINS_EN);
}

static size_t mk_frame(uint8_t *f, const char *payload)
{
    static const uint8_t hdr[24] = {
        0x08, 0x00, 0x00, 0x00,                     /* data, no DS bits */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff,         /* addr1: broadcast */
        0x52, 0x54, 0x00, 0x12, 0x34, 0x56,
        0x52, 0x54, 0x00, 0x12, 0x34, 0x56,
        0x00, 0x00,
    };

    memcpy(f, hdr, sizeof(hdr));
    memcpy(f + sizeof(hdr), payload, strlen(payload));
    return sizeof(hdr) + strlen(payload);
}

static int tx(Uhci *u, int addr, const uint8_t *frame, size_t len,
              uint32_t hdr_len)
{
    uint8_t buf[512];

    memset(buf, 0, RTL8187_TX_HDR_SIZE);
    stl_le_p(buf, hdr_len | RTL8187_TX_FLAG_NO_ENC);
    memcpy(buf + RTL8187_TX_HDR_SIZE, frame, len);
    return usb_bulk(u, addr, PID_OUT, RTL8187_EP_TX, buf,
                    RTL8187_TX_HDR_SIZE + len, NULL);
}

/*
 * Two adapters on UHCI ports 1 and 2 (USB addresses 1 and 2), enumerated,
 * with their CMD registers set: the sender and the receiver of a test.
 */
#define PAIR_ARGS(rx_id) \
    UHCI_ARGS "-device usb-rtl8187,air=air0,bus=uhci.0,port=1," \
    "mac=52:54:00:12:34:56 -device usb-rtl8187," rx_id "air=air0," \
    "bus=uhci.0,port=2,mac=52:54:00:ab:cd:ef"

static void start_pair(Uhci *u, QTestState *qts, uint32_t cmd1,
                       uint32_t cmd2)
{
    uhci_start(u, qts);
    usb_enumerate(u, 0, 1);
    usb_enumerate(u, 1, 2);
    reg_write(u, 1, 0, RTL8187_REG_CMD, 1, cmd1);
    reg_write(u, 2, 0, RTL8187_REG_CMD, 1, cmd2);
}

static void test_air(void)
{
    QTestState *qts = qtest_init(PAIR_ARGS(""));
    uint8_t frame[128], buf[1023];
    size_t n = mk_frame(frame, "hello over the air");
    uint32_t flags;
    int actual, sig;
    Uhci u;

    start_pair(&u, qts, RTL8187_CMD_TX_ENABLE | RTL8187_CMD_RX_ENABLE,
               RTL8187_CMD_TX_ENABLE | RTL8187_CMD_RX_ENABLE);

    /* Nothing received yet: bulk IN NAKs. */
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             NULL), ==, XFER_NAK);

    /* 1 -> 2 on channel 1: frame + FCS + RX trailer. */
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             &actual), ==, XFER_OK);
    g_assert_cmpint(actual, ==, n + 4 + RTL8187_RX_HDR_SIZE);
    g_assert(memcmp(buf, frame, n) == 0);
    flags = ldl_le_p(buf + n + 4);
    g_assert_cmpint(flags & RTL8187_RX_FLAG_LEN_MASK, ==, n + 4);
    g_assert(flags & RTL8187_RX_FLAG_BCAST);
    sig = -4 - ((27 * buf[n + 4 + 6]) >> 6);
    g_assert_cmpint(sig, <=, -38);
    g_assert_cmpint(sig, >=, -42);

    /* Radio 2 to channel 6 by the RTL8225 channel register: 1 -> 2 lost. */
    rf_write(&u, 2, RTL8225_REG_CHANNEL,
             RTL8225_CHAN_BASE + 5 * RTL8225_CHAN_STEP);
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             NULL), ==, XFER_NAK);
    rf_write(&u, 1, RTL8225_REG_CHANNEL,
             RTL8225_CHAN_BASE + 5 * RTL8225_CHAN_STEP);
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             &actual), ==, XFER_OK);
    g_assert_cmpint(actual, ==, n + 4 + RTL8187_RX_HDR_SIZE);

    /* The zero-length packet after a 64-byte multiple is fine. */
    g_assert_cmpint(usb_bulk(&u, 1, PID_OUT, RTL8187_EP_TX, buf, 0, NULL),
                    ==, XFER_OK);
    /* A header length past the transfer, a runt transfer: stall. */
    g_assert_cmpint(tx(&u, 1, frame, n, n + 1), ==, XFER_STALL);
    g_assert_cmpint(usb_bulk(&u, 1, PID_OUT, RTL8187_EP_TX, buf, 8, NULL),
                    ==, XFER_STALL);
    /* A bulk IN too short for the frame stalls and drops it. */
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, 16, NULL),
                    ==, XFER_STALL);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             NULL), ==, XFER_NAK);
    /* IN on an OUT endpoint stalls. */
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_TX, buf, 64, NULL),
                    ==, XFER_STALL);

    /* Quit with a frame queued for radio 2: freed at unrealize. */
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    uhci_stop(&u);
    qtest_quit(qts);
}

/*
 * A frame with bit errors on the air is still handed up, as the chip
 * does: the FCS as sent (no longer matching) and CRC32_ERR in the RX
 * trailer; Linux's rtl8187 and the rtlwl fixture drop it. A clean frame
 * has the matching FCS and no error flag.
 */
static void test_bad_fcs(void)
{
    QTestState *qts = qtest_init(PAIR_ARGS(""));
    uint8_t frame[128], buf[1023];
    size_t n = mk_frame(frame, "bits flipped on the way over");
    uint32_t flags;
    int actual, flips;
    Uhci u;

    start_pair(&u, qts, RTL8187_CMD_TX_ENABLE, RTL8187_CMD_RX_ENABLE);

    air_set(qts, "corrupt", 10000);
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             &actual), ==, XFER_OK);
    g_assert_cmpint(actual, ==, n + 4 + RTL8187_RX_HDR_SIZE);
    flags = ldl_le_p(buf + n + 4);
    g_assert(flags & RTL8187_RX_FLAG_CRC32_ERR);
    g_assert_cmpint(flags & RTL8187_RX_FLAG_LEN_MASK, ==, n + 4);
    flips = bits_differ(buf, frame, n);
    g_assert_cmpint(flips, >=, 1);
    g_assert_cmpint(flips, <=, 3);
    /* the FCS field is what the sender computed over the clean frame */
    g_assert_cmphex((uint32_t)ldl_le_p(buf + n), ==, fcs32(frame, n));
    g_assert_cmphex((uint32_t)ldl_le_p(buf + n), !=, fcs32(buf, n));

    air_set(qts, "corrupt", 0);
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             &actual), ==, XFER_OK);
    flags = ldl_le_p(buf + n + 4);
    g_assert(!(flags & (RTL8187_RX_FLAG_CRC32_ERR | RTL8187_RX_FLAG_ICV_ERR)));
    g_assert(memcmp(buf, frame, n) == 0);
    g_assert_cmphex((uint32_t)ldl_le_p(buf + n), ==, fcs32(buf, n));

    /*
     * 100 ms of delay on the virtual clock: a bulk IN (which waits 20 ms
     * of it) NAKs, 100 ms later the frame is there.
     */
    air_set(qts, "delay-us", 100000);
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             NULL), ==, XFER_NAK);
    qtest_clock_step(qts, 100 * 1000 * 1000);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             &actual), ==, XFER_OK);
    g_assert_cmpint(actual, ==, n + 4 + RTL8187_RX_HDR_SIZE);
    uhci_stop(&u);
    qtest_quit(qts);
}

/* device_del of a radio on the air, with frames queued, mid-traffic. */
static void test_unplug_on_air(void)
{
    QTestState *qts = qtest_init(PAIR_ARGS("id=rx,"));
    uint8_t frame[128];
    size_t n = mk_frame(frame, "to a radio going away");
    char *out;
    int i;
    Uhci u;

    start_pair(&u, qts, RTL8187_CMD_TX_ENABLE, RTL8187_CMD_RX_ENABLE);
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);  /* in flight */
    qtest_qmp_device_del(qts, "rx");
    out = qtest_hmp(qts, "info usb");
    g_assert(!strstr(out, "ID: rx"));
    g_free(out);
    for (i = 0; i < 10; i++) {
        g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
        qtest_clock_step(qts, 1000000);
    }
    g_assert_cmphex(reg_read(&u, 1, 0, RTL8187_REG_CMD, 1), ==,
                    RTL8187_CMD_TX_ENABLE);
    uhci_stop(&u);
    qtest_quit(qts);
}

/* The wlan-ap's beacons (channel 6) arrive by bulk IN once tuned there. */
static void test_ap_beacon(void)
{
    QTestState *qts = qtest_init(UHCI_ARGS
                                 "-object wlan-ap,id=ap0,air=air0 "
                                 "-device usb-rtl8187,air=air0,bus=uhci.0,"
                                 "port=1");
    uint8_t buf[1023];
    int actual = 0, ret = XFER_NAK, i;
    Uhci u;

    uhci_start(&u, qts);
    usb_enumerate(&u, 0, 1);
    rf_write(&u, 1, RTL8225_REG_CHANNEL,
             RTL8225_CHAN_BASE + 5 * RTL8225_CHAN_STEP);
    reg_write(&u, 1, 0, RTL8187_REG_CMD, 1, RTL8187_CMD_RX_ENABLE);
    for (i = 0; i < 10 && ret == XFER_NAK; i++) {
        qtest_clock_step(qts, 110 * 1000 * 1000);
        ret = usb_bulk(&u, 1, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                       &actual);
    }
    g_assert_cmpint(ret, ==, XFER_OK);
    g_assert_cmpint(actual, >, 24 + 4 + RTL8187_RX_HDR_SIZE);
    g_assert_cmphex(buf[0], ==, 0x80);          /* beacon */
    g_assert_cmpint(ldl_le_p(buf + actual - RTL8187_RX_HDR_SIZE) &
                    RTL8187_RX_FLAG_LEN_MASK, ==,
                    actual - RTL8187_RX_HDR_SIZE);
    uhci_stop(&u);
    qtest_quit(qts);
}

/* ---- high speed (EHCI) ----------------------------------------------- */

/* TX and RX at high speed: 512-byte packets, a 2500-byte bulk IN. */
static void test_ehci(void)
{
    QTestState *qts = qtest_init("-M pc -m 128 -nodefaults "
                                 "-object wlan-air,id=air0 "
                                 "-device usb-ehci,id=ehci,addr=06.0 "
                                 "-device usb-rtl8187,air=air0,bus=ehci.0,"
                                 "port=1 "
                                 "-device usb-rtl8187,air=air0,bus=ehci.0,"
                                 "port=2");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint8_t frame[600], buf[RTL8187_MAX_RX], d[4];
    size_t n = mk_frame(frame, "high speed");
    int actual;
    Ehci e;

    ehci_start(&e, qts, bus);
    ehci_enumerate(&e, 0, 1);
    ehci_enumerate(&e, 1, 2);

    /* wMaxPacketSize 512 in the high-speed configuration */
    g_assert_cmpint(ehci_ctrl(&e, 1, 0x80, 0x06, 0x0200, 0, 39, buf), ==,
                    XFER_OK);
    g_assert_cmpint(lduw_le_p(buf + 18 + 4), ==, 512);

    stl_le_p(d, RTL8187_CMD_TX_ENABLE);
    g_assert_cmpint(ehci_ctrl(&e, 1, RTL8187_REQT_WRITE, RTL8187_REQ_SET_REG,
                              RTL8187_REG_BASE | RTL8187_REG_CMD, 0, 1, d),
                    ==, XFER_OK);
    stl_le_p(d, RTL8187_CMD_RX_ENABLE);
    g_assert_cmpint(ehci_ctrl(&e, 2, RTL8187_REQT_WRITE, RTL8187_REQ_SET_REG,
                              RTL8187_REG_BASE | RTL8187_REG_CMD, 0, 1, d),
                    ==, XFER_OK);

    g_assert_cmpint(ehci_bulk(&e, 2, true, RTL8187_EP_RX, buf, sizeof(buf),
                              NULL), ==, XFER_NAK);
    /* A 500-byte frame: 512 bytes with the header, then a ZLP. */
    memset(frame + n, 0x5a, 500 - n);
    n = 500;
    memset(buf, 0, RTL8187_TX_HDR_SIZE);
    stl_le_p(buf, n | RTL8187_TX_FLAG_NO_ENC);
    memcpy(buf + RTL8187_TX_HDR_SIZE, frame, n);
    g_assert_cmpint(ehci_bulk(&e, 1, false, RTL8187_EP_TX, buf,
                              RTL8187_TX_HDR_SIZE + n, NULL), ==, XFER_OK);
    g_assert_cmpint(ehci_bulk(&e, 1, false, RTL8187_EP_TX, buf, 0, NULL),
                    ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(ehci_bulk(&e, 2, true, RTL8187_EP_RX, buf, sizeof(buf),
                              &actual), ==, XFER_OK);
    g_assert_cmpint(actual, ==, n + 4 + RTL8187_RX_HDR_SIZE);
    g_assert(memcmp(buf, frame, n) == 0);

    ehci_stop(&e);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/*
 * On q35 and qemu-xhci, as the e2e guests have it: descriptors, a frame
 * from one adapter received by the other, NAK then RX, a stall, and an
 * unplugged adapter replugged and enumerated on a new slot.
 */
static void test_xhci(void)
{
    static const uint8_t eps[] = { 0x80 | RTL8187_EP_RX, RTL8187_EP_TX,
                                   RTL8187_EP_TX_LOW };
    QTestState *qts = qtest_init("-M q35 -m 128 -nodefaults "
                                 "-object wlan-air,id=air0 "
                                 "-device qemu-xhci,id=xhci,addr=04.0 "
                                 "-device usb-rtl8187,air=air0,bus=xhci.0,"
                                 "port=1 "
                                 "-device usb-rtl8187,id=hot,air=air0,"
                                 "bus=xhci.0,port=2");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint8_t frame[600], buf[RTL8187_MAX_RX], d[4];
    size_t n = mk_frame(frame, "over xhci");
    int actual, tx, rx;
    Xhci x;

    xhci_start(&x, qts, bus, QPCI_DEVFN(4, 0));
    tx = xhci_enumerate(&x, XHCI_USB2_PORT(1), eps, ARRAY_SIZE(eps));
    rx = xhci_enumerate(&x, XHCI_USB2_PORT(2), eps, ARRAY_SIZE(eps));
    g_assert_cmpint(tx, !=, rx);

    g_assert_cmpint(xhci_ctrl(&x, tx, 0x80, 0x06, 0x0100, 0, 18, buf), ==,
                    XFER_OK);
    g_assert_cmphex(lduw_le_p(buf + 8), ==, 0x0bda);
    g_assert_cmphex(lduw_le_p(buf + 10), ==, 0x8187);
    g_assert_cmpint(xhci_ctrl(&x, tx, 0x80, 0x06, 0x0200, 0, 39, buf), ==,
                    XFER_OK);
    g_assert_cmpint(lduw_le_p(buf + 18 + 4), ==, 512);
    /* an unknown request stalls; EP0 works again afterwards */
    g_assert_cmpint(xhci_ctrl(&x, tx, 0xc0, 0x77, 0, 0, 4, d), ==,
                    XFER_STALL);
    stl_le_p(d, RTL8187_CMD_TX_ENABLE);
    g_assert_cmpint(xhci_ctrl(&x, tx, RTL8187_REQT_WRITE, RTL8187_REQ_SET_REG,
                              RTL8187_REG_BASE | RTL8187_REG_CMD, 0, 1, d),
                    ==, XFER_OK);
    stl_le_p(d, RTL8187_CMD_RX_ENABLE);
    g_assert_cmpint(xhci_ctrl(&x, rx, RTL8187_REQT_WRITE, RTL8187_REQ_SET_REG,
                              RTL8187_REG_BASE | RTL8187_REG_CMD, 0, 1, d),
                    ==, XFER_OK);

    for (int round = 0; round < 2; round++) {
        g_assert_cmpint(xhci_bulk(&x, rx, true, RTL8187_EP_RX, buf,
                                  sizeof(buf), 20, NULL), ==, XFER_NAK);
        memset(buf, 0, RTL8187_TX_HDR_SIZE);
        stl_le_p(buf, n | RTL8187_TX_FLAG_NO_ENC);
        memcpy(buf + RTL8187_TX_HDR_SIZE, frame, n);
        g_assert_cmpint(xhci_bulk(&x, tx, false, RTL8187_EP_TX, buf,
                                  RTL8187_TX_HDR_SIZE + n, 20, NULL), ==,
                        XFER_OK);
        g_assert_cmpint(xhci_bulk(&x, rx, true, RTL8187_EP_RX, buf,
                                  sizeof(buf), 100, &actual), ==, XFER_OK);
        g_assert_cmpint(actual, ==, n + 4 + RTL8187_RX_HDR_SIZE);
        g_assert(memcmp(buf, frame, n) == 0);

        /* the receiver unplugged, replugged: a new slot */
        qtest_qmp_device_del(qts, "hot");
        xhci_disable_slot(&x, rx);
        qtest_qmp_device_add(qts, "usb-rtl8187", "hot",
                             "{'bus': 'xhci.0', 'port': '2', 'air': 'air0'}");
        rx = xhci_enumerate(&x, XHCI_USB2_PORT(2), eps, ARRAY_SIZE(eps));
        stl_le_p(d, RTL8187_CMD_RX_ENABLE);
        g_assert_cmpint(xhci_ctrl(&x, rx, RTL8187_REQT_WRITE,
                                  RTL8187_REQ_SET_REG,
                                  RTL8187_REG_BASE | RTL8187_REG_CMD, 0, 1,
                                  d), ==, XFER_OK);
    }
    xhci_stop(&x);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* ---- migration -------------------------------------------------------- */

/* Registers, EEPROM and channel survive; the radios are back on the air. */
static void test_migration(void)
{
    char *dir = stream_dir_new();
    g_autofree char *path = g_build_filename(dir, "rtl8187.mig", NULL);
    uint8_t frame[128], buf[1023];
    size_t n = mk_frame(frame, "after migration");
    QTestState *qts;
    int64_t now;
    int actual;
    Uhci u;

    qts = qtest_init(PAIR_ARGS(""));
    start_pair(&u, qts, RTL8187_CMD_TX_ENABLE, RTL8187_CMD_RX_ENABLE);
    reg_write(&u, 2, 1, RTL8187_REG_BSSID, 4, 0x01020304);
    rf_write(&u, 2, RTL8225_REG_CHANNEL, RTL8225_CHAN_14);
    now = qtest_clock_step(qts, 0);
    qtest_qmp_assert_success(qts, "{'execute': 'stop'}");
    migrate_to_file(qts, path);
    uhci_stop(&u);
    qtest_quit(qts);

    qts = qtest_init(PAIR_ARGS("") " -incoming defer");
    incoming_from_file(qts, path);
    qobject_unref(qtest_qmp_receive(qts));      /* migrate-incoming */
    wait_incoming(qts);
    qtest_qmp_assert_success(qts, "{'execute': 'cont'}");
    /* The migrated timers are on the source's virtual clock. */
    qtest_clock_set(qts, now + 1000000);
    memset(&u, 0, sizeof(u));
    u.qts = qts;                /* the UHCI schedule itself was migrated */
    g_assert_cmphex(reg_read(&u, 2, 1, RTL8187_REG_BSSID, 4), ==,
                    0x01020304);
    g_assert_cmphex(reg_read(&u, 2, 0, RTL8187_REG_CMD, 1), ==,
                    RTL8187_CMD_RX_ENABLE);
    /* Radio 2 is still on channel 14: radio 1 (channel 1) is not heard. */
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             NULL), ==, XFER_NAK);
    rf_write(&u, 1, RTL8225_REG_CHANNEL, RTL8225_CHAN_14);
    g_assert_cmpint(tx(&u, 1, frame, n, n), ==, XFER_OK);
    qtest_clock_step(qts, 1000000);
    g_assert_cmpint(usb_bulk(&u, 2, PID_IN, RTL8187_EP_RX, buf, sizeof(buf),
                             &actual), ==, XFER_OK);
    g_assert_cmpint(actual, ==, n + 4 + RTL8187_RX_HDR_SIZE);
    qtest_quit(qts);
    stream_dir_free(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/ndisbench/rtl8187/descriptors", test_descriptors);
    qtest_add_func("/ndisbench/rtl8187/ids", test_ids);
    qtest_add_func("/ndisbench/rtl8187/hotplug", test_hotplug);
    qtest_add_func("/ndisbench/rtl8187/usb-descriptors",
                   test_usb_descriptors);
    qtest_add_func("/ndisbench/rtl8187/registers", test_registers);
    qtest_add_func("/ndisbench/rtl8187/eeprom", test_eeprom);
    qtest_add_func("/ndisbench/rtl8187/air", test_air);
    qtest_add_func("/ndisbench/rtl8187/bad-fcs", test_bad_fcs);
    qtest_add_func("/ndisbench/rtl8187/unplug-on-air", test_unplug_on_air);
    qtest_add_func("/ndisbench/rtl8187/ap-beacon", test_ap_beacon);
    qtest_add_func("/ndisbench/rtl8187/ehci", test_ehci);
    qtest_add_func("/ndisbench/rtl8187/xhci", test_xhci);
    qtest_add_func("/ndisbench/rtl8187/migration", test_migration);
    return g_test_run();
}
