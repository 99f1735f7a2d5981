/*
 * ndisbench qtests: a minimal xHCI host controller driver
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The e2e guests put usb-rtl8187 on qemu-xhci (q35), so the fuzzer drives
 * that controller too. QEMU 7.2's libqos has no xHCI transfer helpers;
 * this is the least of the xHCI spec the device needs: a command ring, one
 * event ring (polled, no interrupts), 32-byte contexts (HCCPARAMS1.CSZ is
 * 0 on QEMU's controller), per device slot a transfer ring for EP0 and
 * the bulk endpoints, Link TRBs that toggle the cycle bit. Control and
 * bulk transfers are one TD each; a stalled endpoint is reset and its
 * ring moved past the TD; an IN transfer nobody answers within the wait
 * is cancelled (Stop Endpoint, Set TR Dequeue Pointer): XFER_NAK.
 *
 * Included after libqtest.h, libqos/pci-pc.h and ndisbench-usb.h (for
 * XFER_*). Guest RAM used: 0x400000..0x490000.
 */
#ifndef NDISBENCH_XHCI_H
#define NDISBENCH_XHCI_H

#define XHCI_SLOTS      8
#define XHCI_RING_TRBS  64              /* the last is the Link TRB */
#define XHCI_EVT_TRBS   256

#define XHCI_DCBAA      0x400000
#define XHCI_CMD_RING   0x401000
#define XHCI_EVT_RING   0x402000
#define XHCI_ERST       0x403000
#define XHCI_IN_CTX(s)  (0x404000 + (s) * 0x1000)   /* input contexts */
#define XHCI_DEV_CTX(s) (0x40c000 + (s) * 0x1000)   /* device contexts */
#define XHCI_TR(s, dci) (0x420000 + ((s) * 32 + (dci)) * 0x400)
#define XHCI_BUF        0x480000        /* setup packet, then data */
#define XHCI_BUF_SIZE   0x10000

/* registers (offsets in the operational / runtime / doorbell spaces) */
#define XHCI_USBCMD     0x00
#define XHCI_USBSTS     0x04
#define XHCI_CRCR       0x18
#define XHCI_DCBAAP     0x30
#define XHCI_CONFIG     0x38
#define XHCI_PORTSC(p)  (0x400 + 0x10 * ((p) - 1))
#define XHCI_IR0        0x20            /* interrupter 0 in the runtime space */
#define XHCI_ERSTSZ     0x08
#define XHCI_ERSTBA     0x10
#define XHCI_ERDP       0x18
#define XHCI_CMD_RS     (1u << 0)
#define XHCI_CMD_HCRST  (1u << 1)
#define XHCI_STS_CNR    (1u << 11)
#define XHCI_PORT_CCS   (1u << 0)
#define XHCI_PORT_PR    (1u << 4)
#define XHCI_PORT_PP    (1u << 9)
#define XHCI_PORT_SPEED(v) (((v) >> 10) & 0xf)
#define XHCI_PORT_CHANGES  0x00fe0000u  /* the RW1C change bits */

/* TRBs */
#define TRB_CYCLE       (1u << 0)
#define TRB_TC          (1u << 1)       /* Link: toggle cycle */
#define TRB_ISP         (1u << 2)
#define TRB_IOC         (1u << 5)
#define TRB_IDT         (1u << 6)
#define TRB_TYPE(t)     ((uint32_t)(t) << 10)
#define TRB_TYPE_OF(c)  (((c) >> 10) & 0x3f)
#define TRB_NORMAL      1
#define TRB_SETUP       2
#define TRB_DATA        3
#define TRB_STATUS      4
#define TRB_LINK        6
#define TRB_ENABLE_SLOT 9
#define TRB_DISABLE_SLOT 10
#define TRB_ADDRESS_DEV 11
#define TRB_CONFIG_EP   12
#define TRB_RESET_EP    14
#define TRB_STOP_EP     15
#define TRB_SET_DEQ     16
#define TRB_EV_TRANSFER 32
#define TRB_EV_COMMAND  33
#define TRB_SLOT(s)     ((uint32_t)(s) << 24)
#define TRB_EP(dci)     ((uint32_t)(dci) << 16)
#define CC_SUCCESS      1
#define CC_STALL        6
#define CC_SHORT        13

/*
 * The bus port N of a high-speed device is xHCI port 4 + N (qemu-xhci:
 * p3=4 USB 3 ports first, then the USB 2 ones).
 */
#define XHCI_USB2_PORT(n) (4 + (n))

typedef struct XhciRing {
    uint64_t base;
    uint32_t size;
    uint32_t idx;
    bool cycle;
} XhciRing;

typedef struct Xhci {
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar bar;
    uint32_t op, rt, db;
    XhciRing cmd, evt;
    XhciRing tr[XHCI_SLOTS + 1][32];
} Xhci;

static inline void xhci_ring_init(XhciRing *r, uint64_t base, uint32_t size)
{
    r->base = base;
    r->size = size;
    r->idx = 0;
    r->cycle = true;
}

static inline void xhci_trb_write(Xhci *x, uint64_t addr, uint64_t param,
                                  uint32_t status, uint32_t control)
{
    uint32_t trb[4] = {
        cpu_to_le32(param), cpu_to_le32(param >> 32),
        cpu_to_le32(status), cpu_to_le32(control),
    };

    qtest_memwrite(x->qts, addr, trb, sizeof(trb));
}

/* Enqueue one TRB (the cycle bit is ours to add); returns its address. */
static inline uint64_t xhci_put(Xhci *x, XhciRing *r, uint64_t param,
                                uint32_t status, uint32_t control)
{
    uint64_t addr = r->base + r->idx * 16;

    xhci_trb_write(x, addr, param, status,
                   control | (r->cycle ? TRB_CYCLE : 0));
    if (++r->idx == r->size - 1) {
        xhci_trb_write(x, r->base + r->idx * 16, r->base, 0,
                       TRB_TYPE(TRB_LINK) | TRB_TC |
                       (r->cycle ? TRB_CYCLE : 0));
        r->idx = 0;
        r->cycle = !r->cycle;
    }
    return addr;
}

static inline uint64_t xhci_enqueue_ptr(XhciRing *r)
{
    return r->base + r->idx * 16;
}

static inline void xhci_db(Xhci *x, int slot, int target)
{
    qpci_io_writel(x->dev, x->bar, x->db + 4 * slot, target);
}

/*
 * The next event of @type (for @slot, and for @dci if a transfer event),
 * stepping the virtual clock 1 ms at a time for up to @wait_ms; others
 * are consumed and dropped. False if none came.
 */
static inline bool xhci_event(Xhci *x, int type, int slot, int dci,
                              int wait_ms, uint64_t *param, uint32_t *status,
                              uint32_t *control)
{
    int ms = 0;

    for (;;) {
        uint64_t addr = x->evt.base + x->evt.idx * 16;
        uint32_t trb[4];

        qtest_memread(x->qts, addr, trb, sizeof(trb));
        if (!!(le32_to_cpu(trb[3]) & TRB_CYCLE) != x->evt.cycle) {
            if (ms++ >= wait_ms) {
                return false;
            }
            qtest_clock_step(x->qts, 1000 * 1000);
            continue;
        }
        if (++x->evt.idx == x->evt.size) {
            x->evt.idx = 0;
            x->evt.cycle = !x->evt.cycle;
        }
        qpci_io_writeq(x->dev, x->bar, x->rt + XHCI_IR0 + XHCI_ERDP,
                       (x->evt.base + x->evt.idx * 16) | (1u << 3));
        if (TRB_TYPE_OF(le32_to_cpu(trb[3])) != type ||
            (slot >= 0 && (le32_to_cpu(trb[3]) >> 24) != slot) ||
            (type == TRB_EV_TRANSFER &&
             ((le32_to_cpu(trb[3]) >> 16) & 0x1f) != dci)) {
            continue;
        }
        *param = le32_to_cpu(trb[0]) | (uint64_t)le32_to_cpu(trb[1]) << 32;
        *status = le32_to_cpu(trb[2]);
        *control = le32_to_cpu(trb[3]);
        return true;
    }
}

/* A command; its completion code (and *slot for Enable Slot). */
static inline int xhci_command(Xhci *x, uint64_t param, uint32_t control,
                               int *slot)
{
    uint64_t trb = xhci_put(x, &x->cmd, param, 0, control);
    uint64_t p;
    uint32_t st, ctl;

    xhci_db(x, 0, 0);
    do {
        g_assert(xhci_event(x, TRB_EV_COMMAND, -1, 0, 100, &p, &st, &ctl));
    } while (p != trb);
    if (slot) {
        *slot = ctl >> 24;
    }
    return st >> 24;
}

/* Reset (after a stall) or stop an endpoint and skip what is queued. */
static inline void xhci_unstick(Xhci *x, int slot, int dci, bool stalled)
{
    XhciRing *r = &x->tr[slot][dci];

    xhci_command(x, 0, TRB_TYPE(stalled ? TRB_RESET_EP : TRB_STOP_EP) |
                 TRB_SLOT(slot) | TRB_EP(dci), NULL);
    xhci_command(x, xhci_enqueue_ptr(r) | r->cycle,
                 TRB_TYPE(TRB_SET_DEQ) | TRB_SLOT(slot) | TRB_EP(dci), NULL);
}

/* Wait for the TD just queued on (slot, dci): XFER_* and its residue. */
static inline int xhci_wait(Xhci *x, int slot, int dci, int wait_ms,
                            uint32_t *residue)
{
    uint64_t p;
    uint32_t st, ctl;
    int cc;

    xhci_db(x, slot, dci);
    if (!xhci_event(x, TRB_EV_TRANSFER, slot, dci, wait_ms, &p, &st, &ctl)) {
        xhci_unstick(x, slot, dci, false);
        return XFER_NAK;
    }
    cc = st >> 24;
    if (residue) {
        *residue = st & 0xffffff;
    }
    if (cc == CC_SUCCESS || cc == CC_SHORT) {
        return XFER_OK;
    }
    xhci_unstick(x, slot, dci, cc == CC_STALL);
    return XFER_STALL;
}

/*
 * A control transfer on EP0 of @slot (len up to XHCI_BUF_SIZE - 8);
 * never asserts on what the device answers.
 */
static inline int xhci_ctrl(Xhci *x, int slot, uint8_t type, uint8_t req,
                            uint16_t value, uint16_t index, uint16_t len,
                            void *data)
{
    uint8_t setup[8] = { type, req, value, value >> 8, index, index >> 8,
                         len, len >> 8 };
    XhciRing *r = &x->tr[slot][1];
    bool in = type & 0x80;
    int ret;

    g_assert_cmpuint(len, <=, XHCI_BUF_SIZE - 8);
    xhci_put(x, r, ldq_le_p(setup), 8, TRB_TYPE(TRB_SETUP) | TRB_IDT |
             ((len ? (in ? 3u : 2u) : 0u) << 16));
    if (len) {
        if (!in) {
            qtest_memwrite(x->qts, XHCI_BUF + 8, data, len);
        }
        xhci_put(x, r, XHCI_BUF + 8, len,
                 TRB_TYPE(TRB_DATA) | (in ? 1u << 16 : 0));
    }
    xhci_put(x, r, 0, 0, TRB_TYPE(TRB_STATUS) | TRB_IOC |
             ((in && len) ? 0 : 1u << 16));
    ret = xhci_wait(x, slot, 1, 100, NULL);
    if (ret == XFER_OK && in && len) {
        qtest_memread(x->qts, XHCI_BUF + 8, data, len);
    }
    return ret;
}

/* A bulk transfer on endpoint number @ep; *actual gets its length. */
static inline int xhci_bulk(Xhci *x, int slot, bool in, int ep, void *data,
                            int len, int wait_ms, int *actual)
{
    int dci = ep * 2 + (in ? 1 : 0);
    uint32_t residue = 0;
    int ret;

    g_assert_cmpuint(len, <=, XHCI_BUF_SIZE);
    if (ep < 1 || ep > 15 || !x->tr[slot][dci].base) {
        return XFER_STALL;      /* an endpoint the device does not have */
    }
    if (!in) {
        qtest_memwrite(x->qts, XHCI_BUF, data, len);
    }
    xhci_put(x, &x->tr[slot][dci], XHCI_BUF, len,
             TRB_TYPE(TRB_NORMAL) | TRB_IOC | TRB_ISP);
    ret = xhci_wait(x, slot, dci, wait_ms, &residue);
    if (actual) {
        *actual = ret == XFER_OK ? len - (int)residue : 0;
    }
    if (ret == XFER_OK && in) {
        qtest_memread(x->qts, XHCI_BUF, data, len - residue);
    }
    return ret;
}

/* An endpoint context of an input context (dci 1 = EP0). */
static inline void xhci_ep_ctx(Xhci *x, int slot, int dci, int ep_type,
                               int mps)
{
    uint32_t ctx[8] = { 0 };

    xhci_ring_init(&x->tr[slot][dci], XHCI_TR(slot, dci), XHCI_RING_TRBS);
    qtest_memset(x->qts, XHCI_TR(slot, dci), 0, XHCI_RING_TRBS * 16);
    ctx[1] = cpu_to_le32((3 << 1) | (ep_type << 3) | (mps << 16));
    ctx[2] = cpu_to_le32(XHCI_TR(slot, dci) | 1);      /* DCS */
    ctx[4] = cpu_to_le32(8);
    qtest_memwrite(x->qts, XHCI_IN_CTX(slot) + 32 * (dci + 1), ctx,
                   sizeof(ctx));
}

/*
 * Reset xHCI port @port, give its device a slot, address it, set
 * configuration 1 and configure the bulk endpoints @eps (0x81, 0x02...).
 * Returns the slot.
 */
static inline int xhci_enumerate(Xhci *x, int port, const uint8_t *eps,
                                 int neps)
{
    uint32_t portsc = qpci_io_readl(x->dev, x->bar, x->op +
                                    XHCI_PORTSC(port));
    uint32_t ctx[8] = { 0 };
    int slot, speed, i, last = 1;

    g_assert(portsc & XHCI_PORT_CCS);
    qpci_io_writel(x->dev, x->bar, x->op + XHCI_PORTSC(port),
                   XHCI_PORT_PP | XHCI_PORT_PR);
    portsc = qpci_io_readl(x->dev, x->bar, x->op + XHCI_PORTSC(port));
    qpci_io_writel(x->dev, x->bar, x->op + XHCI_PORTSC(port),
                   XHCI_PORT_PP | (portsc & XHCI_PORT_CHANGES));
    speed = XHCI_PORT_SPEED(portsc);
    g_assert_cmpint(xhci_command(x, 0, TRB_TYPE(TRB_ENABLE_SLOT), &slot), ==,
                    CC_SUCCESS);
    g_assert_cmpint(slot, >=, 1);
    g_assert_cmpint(slot, <=, XHCI_SLOTS);
    memset(x->tr[slot], 0, sizeof(x->tr[slot]));
    qtest_memset(x->qts, XHCI_IN_CTX(slot), 0, 0x1000);
    qtest_memset(x->qts, XHCI_DEV_CTX(slot), 0, 0x1000);
    qtest_writeq(x->qts, XHCI_DCBAA + 8 * slot, XHCI_DEV_CTX(slot));

    /* Address Device: the slot and EP0 */
    qtest_writel(x->qts, XHCI_IN_CTX(slot) + 4, 0x3);  /* add A0, A1 */
    ctx[0] = cpu_to_le32((speed << 20) | (1u << 27));
    ctx[1] = cpu_to_le32(port << 16);
    qtest_memwrite(x->qts, XHCI_IN_CTX(slot) + 32, ctx, sizeof(ctx));
    xhci_ep_ctx(x, slot, 1, 4, speed == 3 ? 64 : 8);
    g_assert_cmpint(xhci_command(x, XHCI_IN_CTX(slot),
                                 TRB_TYPE(TRB_ADDRESS_DEV) | TRB_SLOT(slot),
                                 NULL), ==, CC_SUCCESS);
    g_assert_cmpint(xhci_ctrl(x, slot, 0x00, 0x09, 1, 0, 0, NULL), ==,
                    XFER_OK);

    /* Configure Endpoint: the bulk endpoints */
    qtest_writel(x->qts, XHCI_IN_CTX(slot), 0);
    qtest_writel(x->qts, XHCI_IN_CTX(slot) + 4, 1);
    for (i = 0; i < neps; i++) {
        int dci = (eps[i] & 0xf) * 2 + !!(eps[i] & 0x80);

        qtest_writel(x->qts, XHCI_IN_CTX(slot) + 4,
                     qtest_readl(x->qts, XHCI_IN_CTX(slot) + 4) | 1u << dci);
        xhci_ep_ctx(x, slot, dci, (eps[i] & 0x80) ? 6 : 2, 512);
        last = MAX(last, dci);
    }
    ctx[0] = cpu_to_le32((speed << 20) | ((uint32_t)last << 27));
    qtest_memwrite(x->qts, XHCI_IN_CTX(slot) + 32, ctx, sizeof(ctx));
    g_assert_cmpint(xhci_command(x, XHCI_IN_CTX(slot),
                                 TRB_TYPE(TRB_CONFIG_EP) | TRB_SLOT(slot),
                                 NULL), ==, CC_SUCCESS);
    return slot;
}

static inline void xhci_disable_slot(Xhci *x, int slot)
{
    xhci_command(x, 0, TRB_TYPE(TRB_DISABLE_SLOT) | TRB_SLOT(slot), NULL);
    memset(x->tr[slot], 0, sizeof(x->tr[slot]));
}

/* Reset, rings and running; @devfn of the qemu-xhci on @bus. */
static inline void xhci_start(Xhci *x, QTestState *qts, QPCIBus *bus,
                              int devfn)
{
    uint32_t erst[4];
    int i;

    memset(x, 0, sizeof(*x));
    x->qts = qts;
    x->dev = qpci_device_find(bus, devfn);
    g_assert(x->dev != NULL);
    qpci_device_enable(x->dev);
    x->bar = qpci_iomap(x->dev, 0, NULL);
    x->op = qpci_io_readb(x->dev, x->bar, 0);
    x->db = qpci_io_readl(x->dev, x->bar, 0x14);
    x->rt = qpci_io_readl(x->dev, x->bar, 0x18);
    g_assert(!(qpci_io_readl(x->dev, x->bar, 0x10) & (1 << 2)));  /* CSZ */

    qpci_io_writel(x->dev, x->bar, x->op + XHCI_USBCMD, XHCI_CMD_HCRST);
    for (i = 0; i < 1000 && (qpci_io_readl(x->dev, x->bar, x->op +
                                           XHCI_USBSTS) & XHCI_STS_CNR); i++) {
        qtest_clock_step(qts, 1000 * 1000);
    }
    qtest_memset(qts, XHCI_DCBAA, 0, XHCI_ERST + 0x1000 - XHCI_DCBAA);
    qpci_io_writel(x->dev, x->bar, x->op + XHCI_CONFIG, XHCI_SLOTS);
    qpci_io_writeq(x->dev, x->bar, x->op + XHCI_DCBAAP, XHCI_DCBAA);
    xhci_ring_init(&x->cmd, XHCI_CMD_RING, XHCI_RING_TRBS);
    qpci_io_writeq(x->dev, x->bar, x->op + XHCI_CRCR, XHCI_CMD_RING | 1);
    xhci_ring_init(&x->evt, XHCI_EVT_RING, XHCI_EVT_TRBS);
    erst[0] = cpu_to_le32(XHCI_EVT_RING);
    erst[1] = 0;
    erst[2] = cpu_to_le32(XHCI_EVT_TRBS);
    erst[3] = 0;
    qtest_memwrite(qts, XHCI_ERST, erst, sizeof(erst));
    qpci_io_writel(x->dev, x->bar, x->rt + XHCI_IR0 + XHCI_ERSTSZ, 1);
    qpci_io_writeq(x->dev, x->bar, x->rt + XHCI_IR0 + XHCI_ERDP,
                   XHCI_EVT_RING);
    /* the high half last: that is when QEMU takes the table */
    qpci_io_writel(x->dev, x->bar, x->rt + XHCI_IR0 + XHCI_ERSTBA,
                   XHCI_ERST);
    qpci_io_writel(x->dev, x->bar, x->rt + XHCI_IR0 + XHCI_ERSTBA + 4, 0);
    qpci_io_writel(x->dev, x->bar, x->op + XHCI_USBCMD, XHCI_CMD_RS);
}

static inline void xhci_stop(Xhci *x)
{
    qpci_iounmap(x->dev, x->bar);
    g_free(x->dev);
}

#endif /* NDISBENCH_XHCI_H */
