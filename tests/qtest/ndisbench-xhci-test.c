/*
 * QTest: QEMU's own xHCI and USB core under a guest that drives them badly
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Each case is something QEMU 7.2 as Debian ships it aborts on (or, for
 * the interval, shifts by more than an int has), fixed by qemu-patches/:
 * the guest's mistake must be a logged guest error, never the end of
 * QEMU. A usb-rtl8187 on qemu-xhci (q35) is the device, as in the e2e
 * guests; transfers go through ndisbench-xhci.h.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/pci-pc.h"
#include "hw/ndisbench/include/rtl8187_regs.h"
#include "ndisbench-qtest.h"
#include "ndisbench-usb.h"
#include "ndisbench-xhci.h"

#define XHCI_STS_HCE    (1u << 12)
#define BSSID_REG       (RTL8187_REG_BASE | RTL8187_REG_BSSID)

static const uint8_t eps[] = { 0x80 | RTL8187_EP_RX, RTL8187_EP_TX,
                               RTL8187_EP_TX_LOW };

static QTestState *start(Xhci *x, QPCIBus **bus, int *slot)
{
    QTestState *qts = qtest_init("-M q35 -m 128 -nodefaults "
                                 "-object wlan-air,id=air0 "
                                 "-device qemu-xhci,id=xhci,addr=04.0 "
                                 "-device usb-rtl8187,air=air0,bus=xhci.0,"
                                 "port=1");

    *bus = qpci_new_pc(qts, NULL);
    xhci_start(x, qts, *bus, QPCI_DEVFN(4, 0));
    *slot = xhci_enumerate(x, XHCI_USB2_PORT(1), eps, ARRAY_SIZE(eps));
    return qts;
}

static void stop(QTestState *qts, Xhci *x, QPCIBus *bus)
{
    xhci_stop(x);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/*
 * A control TD on EP0 whose stages disagree: the Setup TRB's 8 bytes and
 * transfer type (TRT: 0 none, 2 OUT, 3 IN), then, if @data_len, a Data
 * TRB of @data_len bytes at XHCI_BUF + 8 whose DIR bit says @data_in,
 * then the Status TRB. The doorbell is rung; nothing is waited for.
 */
static void bad_ctrl(Xhci *x, int slot, const uint8_t setup[8], int trt,
                     uint32_t data_len, bool data_in)
{
    XhciRing *r = &x->tr[slot][1];

    xhci_put(x, r, ldq_le_p(setup), 8, TRB_TYPE(TRB_SETUP) | TRB_IDT |
             ((uint32_t)trt << 16));
    if (data_len) {
        xhci_put(x, r, XHCI_BUF + 8, data_len,
                 TRB_TYPE(TRB_DATA) | (data_in ? 1u << 16 : 0));
    }
    xhci_put(x, r, 0, 0, TRB_TYPE(TRB_STATUS) | TRB_IOC);
    xhci_db(x, slot, 1);
}

static uint32_t bssid(Xhci *x, int slot)
{
    uint8_t d[4];

    g_assert_cmpint(xhci_ctrl(x, slot, RTL8187_REQT_READ, RTL8187_REQ_GET_REG,
                              BSSID_REG, 0, 4, d), ==, XFER_OK);
    return ldl_le_p(d);
}

static void set_bssid(Xhci *x, int slot, uint32_t v)
{
    uint8_t d[4];

    stl_le_p(d, v);
    g_assert_cmpint(xhci_ctrl(x, slot, RTL8187_REQT_WRITE, RTL8187_REQ_SET_REG,
                              BSSID_REG, 0, 4, d), ==, XFER_OK);
}

/*
 * The event of the TD just queued on EP0: stalled, the controller still
 * running. EP0 is reset and works again.
 */
static void expect_stall(Xhci *x, int slot)
{
    uint64_t p;
    uint32_t st, ctl;

    g_assert(xhci_event(x, TRB_EV_TRANSFER, slot, 1, 100, &p, &st, &ctl));
    g_assert_cmpint(st >> 24, ==, CC_STALL);
    g_assert_cmphex(qpci_io_readl(x->dev, x->bar, x->op + XHCI_USBSTS) &
                    XHCI_STS_HCE, ==, 0);
    xhci_unstick(x, slot, 1, true);
}

/*
 * Setup says OUT with wLength 4, the Data TRB says IN (a mutated
 * fuzz seed, xhci-register-read): QEMU 7.2 left the packet without a
 * buffer and its USB core copied the 4 OUT bytes from it anyway
 * (usb_packet_copy: Assertion `p->actual_length + bytes <= iov->size').
 * Now the TD is refused (a host controller error, as the xHCI model
 * flags a direction mismatch), and after a controller reset the device
 * enumerates and answers again.
 */
static void test_data_direction(void)
{
    static const uint8_t setup[8] = {
        RTL8187_REQT_WRITE, RTL8187_REQ_SET_REG,
        BSSID_REG & 0xff, BSSID_REG >> 8, 0, 0, 4, 0,
    };
    QPCIBus *bus;
    Xhci x;
    int slot;
    QTestState *qts = start(&x, &bus, &slot);
    uint8_t buf[18];

    qtest_memwrite(qts, XHCI_BUF + 8, "\xef\xbe\xad\xde", 4);
    bad_ctrl(&x, slot, setup, 2, 4, true);
    qtest_clock_step(qts, 10 * 1000 * 1000);
    /* QEMU is still there, and says what became of the controller */
    g_assert_cmphex(qpci_io_readl(x.dev, x.bar, x.op + XHCI_USBSTS) &
                    XHCI_STS_HCE, ==, XHCI_STS_HCE);

    xhci_stop(&x);
    xhci_start(&x, qts, bus, QPCI_DEVFN(4, 0));
    slot = xhci_enumerate(&x, XHCI_USB2_PORT(1), eps, ARRAY_SIZE(eps));
    g_assert_cmpint(xhci_ctrl(&x, slot, 0x80, 0x06, 0x0100, 0, 18, buf), ==,
                    XFER_OK);
    g_assert_cmphex(lduw_le_p(buf + 10), ==, 0x8187);
    stop(qts, &x, bus);
}

/*
 * Setup says OUT with wLength 8, the Data TRB (OUT too) holds 2 bytes:
 * 7.2's do_parameter() copied 8 bytes from the 2-byte buffer (the same
 * assertion). Now it stalls, and nothing is written.
 */
static void test_out_beyond_data(void)
{
    static const uint8_t setup[8] = {
        RTL8187_REQT_WRITE, RTL8187_REQ_SET_REG,
        BSSID_REG & 0xff, BSSID_REG >> 8, 0, 0, 8, 0,
    };
    QPCIBus *bus;
    Xhci x;
    int slot;
    QTestState *qts = start(&x, &bus, &slot);

    set_bssid(&x, slot, 0x11223344);
    qtest_memwrite(qts, XHCI_BUF + 8, "\xef\xbe\xad\xde", 4);
    bad_ctrl(&x, slot, setup, 2, 2, false);
    expect_stall(&x, slot);
    g_assert_cmphex(bssid(&x, slot), ==, 0x11223344);

    /* no data stage at all */
    bad_ctrl(&x, slot, setup, 2, 0, false);
    expect_stall(&x, slot);
    g_assert_cmphex(bssid(&x, slot), ==, 0x11223344);
    stop(qts, &x, bus);
}

/*
 * GET_DESCRIPTOR(device) with wLength 18 over an IN Data TRB of 4 bytes:
 * 7.2 copied the device's 18-byte reply into the 4-byte buffer (the same
 * assertion). Now it stalls, and guest memory past the 4 bytes is
 * untouched.
 */
static void test_in_beyond_data(void)
{
    static const uint8_t setup[8] = { 0x80, 0x06, 0x00, 0x01, 0, 0, 18, 0 };
    QPCIBus *bus;
    Xhci x;
    int slot;
    QTestState *qts = start(&x, &bus, &slot);
    uint8_t buf[32], paint[32];

    memset(paint, 0x5a, sizeof(paint));
    qtest_memwrite(qts, XHCI_BUF + 8, paint, sizeof(paint));
    bad_ctrl(&x, slot, setup, 3, 4, true);
    expect_stall(&x, slot);
    qtest_memread(qts, XHCI_BUF + 8 + 4, buf, sizeof(buf) - 4);
    g_assert(memcmp(buf, paint, sizeof(buf) - 4) == 0);
    g_assert_cmpint(xhci_ctrl(&x, slot, 0x80, 0x06, 0x0100, 0, 18, buf), ==,
                    XFER_OK);
    g_assert_cmphex(lduw_le_p(buf + 10), ==, 0x8187);
    stop(qts, &x, bus);
}

/*
 * An interrupt IN endpoint whose context says Interval 112 (reserved: n
 * is 0..15 for 2^n microframes): 7.2 computed 1 << 112 (UBSan: shift
 * exponent 112 is too large; on x86 it came out as 2^16 microframes,
 * 8.2 s). Taken as 15 now, the endpoint's first TD runs within 2^15
 * microframes (4.1 s) of the controller's start. The device has no
 * endpoint 5, so that TD stalls: what matters is that it ran.
 */
static void test_endpoint_interval(void)
{
    enum { DCI = 5 * 2 + 1 };
    QPCIBus *bus;
    Xhci x;
    int slot;
    QTestState *qts = start(&x, &bus, &slot);
    uint32_t portsc = qpci_io_readl(x.dev, x.bar, x.op +
                                    XHCI_PORTSC(XHCI_USB2_PORT(1)));
    uint32_t ctx[8] = { 0 };
    uint64_t p;
    uint32_t st, ctl;

    qtest_memset(qts, XHCI_IN_CTX(slot), 0, 0x1000);
    qtest_writel(qts, XHCI_IN_CTX(slot) + 4, 1u | 1u << DCI);
    ctx[0] = cpu_to_le32((XHCI_PORT_SPEED(portsc) << 20) |
                         ((uint32_t)DCI << 27));
    ctx[1] = cpu_to_le32(XHCI_USB2_PORT(1) << 16);
    qtest_memwrite(qts, XHCI_IN_CTX(slot) + 32, ctx, sizeof(ctx));
    xhci_ep_ctx(&x, slot, DCI, 7, 64);          /* interrupt IN */
    qtest_writel(qts, XHCI_IN_CTX(slot) + 32 * (DCI + 1),
                 cpu_to_le32(112u << 16));
    g_assert_cmpint(xhci_command(&x, XHCI_IN_CTX(slot),
                                 TRB_TYPE(TRB_CONFIG_EP) | TRB_SLOT(slot),
                                 NULL), ==, CC_SUCCESS);

    xhci_put(&x, &x.tr[slot][DCI], XHCI_BUF, 8,
             TRB_TYPE(TRB_NORMAL) | TRB_IOC);
    xhci_db(&x, slot, DCI);
    g_assert(xhci_event(&x, TRB_EV_TRANSFER, slot, DCI, 5000, &p, &st,
                        &ctl));
    g_assert_cmpint(st >> 24, ==, CC_STALL);
    stop(qts, &x, bus);
}

/*
 * A bulk OUT endpoint whose context asks for streams (MaxPStreams 1,
 * linear stream array), its doorbell rung with stream ID 0, which is
 * reserved: 7.2 asserted in xhci_find_stream() (a mutated fuzz seed).
 * Now the doorbell does nothing, and Set TR Dequeue Pointer for stream 0
 * is an Invalid Stream ID Error.
 */
static void test_stream_id_0(void)
{
    enum { DCI = 4 * 2, STREAMS = 0x6000, CC_INVALID_STREAM_ID = 34 };
    QPCIBus *bus;
    Xhci x;
    int slot;
    QTestState *qts = start(&x, &bus, &slot);
    uint32_t portsc = qpci_io_readl(x.dev, x.bar, x.op +
                                    XHCI_PORTSC(XHCI_USB2_PORT(1)));
    uint32_t ctx[8] = { 0 };

    qtest_memset(qts, XHCI_IN_CTX(slot), 0, 0x1000);
    qtest_memset(qts, STREAMS, 0, 0x100);
    qtest_writel(qts, XHCI_IN_CTX(slot) + 4, 1u | 1u << DCI);
    ctx[0] = cpu_to_le32((XHCI_PORT_SPEED(portsc) << 20) |
                         ((uint32_t)DCI << 27));
    ctx[1] = cpu_to_le32(XHCI_USB2_PORT(1) << 16);
    qtest_memwrite(qts, XHCI_IN_CTX(slot) + 32, ctx, sizeof(ctx));
    memset(ctx, 0, sizeof(ctx));
    ctx[0] = cpu_to_le32(1u << 10 | 1u << 15);  /* MaxPStreams 1, LSA */
    ctx[1] = cpu_to_le32((3 << 1) | (2 << 3) | (512 << 16));
    ctx[2] = cpu_to_le32(STREAMS);
    ctx[4] = cpu_to_le32(8);
    qtest_memwrite(qts, XHCI_IN_CTX(slot) + 32 * (DCI + 1), ctx,
                   sizeof(ctx));
    g_assert_cmpint(xhci_command(&x, XHCI_IN_CTX(slot),
                                 TRB_TYPE(TRB_CONFIG_EP) | TRB_SLOT(slot),
                                 NULL), ==, CC_SUCCESS);

    xhci_db(&x, slot, DCI);                     /* stream 0 */
    qtest_clock_step(qts, 10 * 1000 * 1000);
    g_assert_cmpint(xhci_command(&x, 0, TRB_TYPE(TRB_STOP_EP) |
                                 TRB_SLOT(slot) | TRB_EP(DCI), NULL), ==,
                    CC_SUCCESS);
    g_assert_cmpint(xhci_command(&x, (STREAMS + 0x100) | 1,
                                 TRB_TYPE(TRB_SET_DEQ) | TRB_SLOT(slot) |
                                 TRB_EP(DCI), NULL), ==,
                    CC_INVALID_STREAM_ID);
    /* the controller and the device still work */
    g_assert_cmphex(qpci_io_readl(x.dev, x.bar, x.op + XHCI_USBSTS) &
                    XHCI_STS_HCE, ==, 0);
    set_bssid(&x, slot, 0x55667788);
    g_assert_cmphex(bssid(&x, slot), ==, 0x55667788);
    stop(qts, &x, bus);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/ndisbench/xhci/ctrl-data-direction",
                   test_data_direction);
    qtest_add_func("/ndisbench/xhci/ctrl-out-beyond-data",
                   test_out_beyond_data);
    qtest_add_func("/ndisbench/xhci/ctrl-in-beyond-data",
                   test_in_beyond_data);
    qtest_add_func("/ndisbench/xhci/endpoint-interval",
                   test_endpoint_interval);
    qtest_add_func("/ndisbench/xhci/stream-id-0", test_stream_id_0);
    return g_test_run();
}
