/*
 * ndisbench qtests: minimal UHCI and EHCI host controller drivers
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * QEMU 7.2's libqos has no USB transfer helpers, so the USB device-model
 * qtests drive the controllers themselves: a UHCI frame list whose TDs
 * are written into guest RAM (full speed, piix3-usb-uhci at 05.0) and an
 * EHCI async schedule with one QH (high speed, usb-ehci at 06.0), the
 * virtual clock stepped until the transfer is done. A transfer the device
 * keeps NAKing is given up after 20 ms (UHCI) or 100 ms (EHCI, which
 * polls an idle async schedule only every 65 ms) of virtual time:
 * XFER_NAK.
 *
 * Included after libqtest.h and libqos/pci-pc.h by tests/qtest/ndisbench-
 * *-test.c; qemu_build.py links it into QEMU's tests/qtest/ next to them.
 * Guest RAM used: 0x100000..0x104000 (UHCI), 0x110000..0x124000 (EHCI).
 */
#ifndef NDISBENCH_USB_H
#define NDISBENCH_USB_H

/* ---- a minimal UHCI driver -------------------------------------------- */

#define UHCI_DEVFN      QPCI_DEVFN(5, 0)
#define FL_BASE         0x100000        /* frame list, 1024 entries */
#define TD_BASE         0x101000        /* TDs, 32 bytes apart */
#define SETUP_BUF       0x102000
#define DATA_BUF        0x103000

#define UHCI_CMD        0x00
#define UHCI_FRNUM      0x06
#define UHCI_FLBASE     0x08
#define UHCI_PORTSC(n)  (0x10 + 2 * (n))
#define PORT_CCS        (1 << 0)
#define PORT_EN         (1 << 2)
#define PORT_RESET      (1 << 9)
#define TD_ACTIVE       (1u << 23)
#define TD_STALL        (1u << 22)
#define PID_SETUP       0x2d
#define PID_IN          0x69
#define PID_OUT         0xe1

enum { XFER_OK, XFER_STALL, XFER_NAK };

typedef struct Uhci {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar;
} Uhci;

static inline void td_put(Uhci *u, int i, uint32_t link, uint32_t token,
                   uint32_t buf)
{
    uint32_t td[4] = {
        cpu_to_le32(link), cpu_to_le32(TD_ACTIVE | (3u << 27)),
        cpu_to_le32(token), cpu_to_le32(buf),
    };

    qtest_memwrite(u->qts, TD_BASE + i * 32, td, sizeof(td));
}

static inline uint32_t td_token(int pid, int addr, int ep, int toggle, int len)
{
    return ((uint32_t)(len ? len - 1 : 0x7ff) << 21) | (toggle << 19) |
           (ep << 15) | (addr << 8) | pid;
}

static inline uint32_t td_link(int i)
{
    return TD_BASE + i * 32 + 32;       /* the next TD, depth first */
}

/* Runs TDs 0..n-1 (already linked) until done; their actual lengths. */
static inline int uhci_run(Uhci *u, int n, int *actlen)
{
    int i, step;
    uint32_t ctrl;

    for (step = 0; step < 20; step++) {
        qtest_clock_step(u->qts, 1000000);
        for (i = 0; i < n; i++) {
            ctrl = qtest_readl(u->qts, TD_BASE + i * 32 + 4);
            if (ctrl & TD_STALL) {
                return XFER_STALL;
            }
            if (ctrl & TD_ACTIVE) {
                break;
            }
            if (actlen) {
                actlen[i] = (ctrl + 1) & 0x7ff;
            }
        }
        if (i == n) {
            return XFER_OK;
        }
    }
    /* Give up: deactivate the TDs so later frames skip them. */
    for (i = 0; i < n; i++) {
        qtest_writel(u->qts, TD_BASE + i * 32 + 4, 0);
    }
    return XFER_NAK;
}

/*
 * A control transfer; *actual (if not NULL) gets the data stage's length.
 * Never asserts on what the device answers: fuzzers use it directly.
 */
static inline int usb_ctrl_xfer(Uhci *u, int addr, uint8_t type,
                                uint8_t req, uint16_t value, uint16_t index,
                                uint16_t len, void *data, int *actual)
{
    uint8_t setup[8] = { type, req, value, value >> 8, index, index >> 8,
                         len, len >> 8 };
    bool in = type & 0x80;
    int actlen[3] = { 0 };
    int n = 0, ret;

    g_assert_cmpuint(len, <=, 0x800);   /* one TD, SETUP_BUF..DATA_BUF */
    qtest_memwrite(u->qts, SETUP_BUF, setup, sizeof(setup));
    td_put(u, n, td_link(n) | 4, td_token(PID_SETUP, addr, 0, 0, 8),
           SETUP_BUF);
    n++;
    if (len) {
        if (!in) {
            qtest_memwrite(u->qts, DATA_BUF, data, len);
        }
        td_put(u, n, td_link(n) | 4,
               td_token(in ? PID_IN : PID_OUT, addr, 0, 1, len), DATA_BUF);
        n++;
    }
    td_put(u, n, 1, td_token(in ? PID_OUT : PID_IN, addr, 0, 1, 0), 0);
    n++;
    ret = uhci_run(u, n, actlen);
    if (ret == XFER_OK && in && len) {
        qtest_memread(u->qts, DATA_BUF, data, MIN(actlen[1], len));
    }
    if (actual) {
        *actual = len ? actlen[1] : 0;
    }
    return ret;
}

/* A control transfer whose IN data stage must be complete. */
static inline int usb_ctrl(Uhci *u, int addr, uint8_t type, uint8_t req,
                           uint16_t value, uint16_t index, uint16_t len,
                           void *data)
{
    int actual = 0;
    int ret = usb_ctrl_xfer(u, addr, type, req, value, index, len, data,
                            &actual);

    if (ret == XFER_OK && (type & 0x80) && len) {
        g_assert_cmpint(actual, ==, len);
    }
    return ret;
}

static inline int usb_bulk(Uhci *u, int addr, int pid, int ep, void *data,
                    int len, int *actual)
{
    int actlen = 0, ret;

    if (pid == PID_OUT) {
        qtest_memwrite(u->qts, DATA_BUF, data, len);
    }
    td_put(u, 0, 1, td_token(pid, addr, ep, 0, len), DATA_BUF);
    ret = uhci_run(u, 1, &actlen);
    if (ret == XFER_OK && pid == PID_IN) {
        qtest_memread(u->qts, DATA_BUF, data, actlen);
    }
    if (actual) {
        *actual = actlen;
    }
    return ret;
}

static inline void uhci_start(Uhci *u, QTestState *qts)
{
    uint32_t *fl = g_new(uint32_t, 1024);
    int i;

    u->qts = qts;
    u->bus = qpci_new_pc(qts, NULL);
    u->dev = qpci_device_find(u->bus, UHCI_DEVFN);
    g_assert(u->dev != NULL);
    qpci_device_enable(u->dev);
    u->bar = qpci_iomap(u->dev, 4, NULL);
    for (i = 0; i < 1024; i++) {
        fl[i] = cpu_to_le32(TD_BASE);
    }
    qtest_memwrite(qts, FL_BASE, fl, 1024 * 4);
    g_free(fl);
    qtest_writel(qts, TD_BASE, 1);              /* an inactive TD 0 */
    qtest_writel(qts, TD_BASE + 4, 0);
    qpci_io_writel(u->dev, u->bar, UHCI_FLBASE, FL_BASE);
    qpci_io_writew(u->dev, u->bar, UHCI_FRNUM, 0);
    qpci_io_writew(u->dev, u->bar, UHCI_CMD, 0x81);     /* RS, MAXP */
}

static inline void uhci_stop(Uhci *u)
{
    qpci_iounmap(u->dev, u->bar);
    g_free(u->dev);
    qpci_free_pc(u->bus);
}

/* Resets the port's device and gives it @addr and configuration 1. */
static inline void usb_enumerate(Uhci *u, int port, int addr)
{
    g_assert(qpci_io_readw(u->dev, u->bar, UHCI_PORTSC(port)) & PORT_CCS);
    qpci_io_writew(u->dev, u->bar, UHCI_PORTSC(port), PORT_RESET);
    qpci_io_writew(u->dev, u->bar, UHCI_PORTSC(port), 0);
    qpci_io_writew(u->dev, u->bar, UHCI_PORTSC(port), PORT_EN);
    g_assert_cmpint(usb_ctrl(u, 0, 0x00, 0x05, addr, 0, 0, NULL), ==,
                    XFER_OK);
    g_assert_cmpint(usb_ctrl(u, addr, 0x00, 0x09, 1, 0, 0, NULL), ==,
                    XFER_OK);
}

/* ---- high speed: a minimal EHCI driver (async schedule, one QH) ------- */

#define EHCI_DEVFN      QPCI_DEVFN(6, 0)
#define EHCI_OP         0x20
#define EHCI_USBCMD     (EHCI_OP + 0x00)
#define EHCI_ASYNC      (EHCI_OP + 0x18)
#define EHCI_CONFIG     (EHCI_OP + 0x40)
#define EHCI_PORTSC(n)  (EHCI_OP + 0x44 + 4 * (n))
#define EHCI_QH         0x110000
#define EHCI_QTD        0x111000        /* qTDs, 32 bytes apart */
#define EHCI_BUF        0x120000        /* 4 pages */
#define QTD_ACTIVE      (1u << 7)
#define QTD_HALT        (1u << 6)

typedef struct Ehci {
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar bar;
} Ehci;

static inline void qh_put(Ehci *e, int addr, int ep, int mps, uint32_t first)
{
    uint32_t qh[12] = { 0 };

    qh[0] = cpu_to_le32(EHCI_QH | 2);                   /* itself, QH */
    qh[1] = cpu_to_le32(addr | (ep << 8) | (2 << 12) | (1 << 14) |
                        (1 << 15) | (mps << 16));       /* HS, DTC, H */
    qh[2] = cpu_to_le32(1u << 30);
    qh[4] = cpu_to_le32(first);
    qh[5] = cpu_to_le32(1);
    qtest_memwrite(e->qts, EHCI_QH, qh, sizeof(qh));
}

static inline void qtd_put(Ehci *e, int i, bool last, int pid, int toggle,
                    int len, uint32_t buf)
{
    uint32_t qtd[8] = { 0 };
    int j;

    qtd[0] = cpu_to_le32(last ? 1 : EHCI_QTD + (i + 1) * 32);
    qtd[1] = cpu_to_le32(1);
    qtd[2] = cpu_to_le32(((uint32_t)toggle << 31) | (len << 16) |
                         (3 << 10) | (pid << 8) | QTD_ACTIVE);
    for (j = 0; j < 4; j++) {
        qtd[3 + j] = cpu_to_le32(buf + j * 4096);
    }
    qtest_memwrite(e->qts, EHCI_QTD + i * 32, qtd, sizeof(qtd));
}

static inline int ehci_run(Ehci *e, int n, int *left)
{
    uint32_t token;
    int i, ms;

    /*
     * 1 ms steps for 20 ms, then 10 ms steps up to 100 ms: an idle EHCI
     * polls its async schedule only every (up to) 65 ms of virtual time.
     */
    for (ms = 0; ms < 100; ms += ms < 20 ? 1 : 10) {
        qtest_clock_step(e->qts, (ms < 20 ? 1 : 10) * 1000000);
        for (i = 0; i < n; i++) {
            token = qtest_readl(e->qts, EHCI_QTD + i * 32 + 8);
            if (token & QTD_HALT) {
                qh_put(e, 0, 0, 64, 1);
                return XFER_STALL;
            }
            if (token & QTD_ACTIVE) {
                break;
            }
            if (left) {
                left[i] = (token >> 16) & 0x7fff;
            }
        }
        if (i == n) {
            return XFER_OK;
        }
    }
    qh_put(e, 0, 0, 64, 1);
    for (i = 0; i < n; i++) {
        qtest_writel(e->qts, EHCI_QTD + i * 32 + 8, 0);
    }
    qtest_clock_step(e->qts, 1000000);
    return XFER_NAK;
}

static inline int ehci_ctrl(Ehci *e, int addr, uint8_t type, uint8_t req,
                     uint16_t value, uint16_t index, uint16_t len,
                     void *data)
{
    uint8_t setup[8] = { type, req, value, value >> 8, index, index >> 8,
                         len, len >> 8 };
    bool in = type & 0x80;
    int n = 0, ret;

    qtest_memwrite(e->qts, EHCI_BUF, setup, sizeof(setup));
    qtd_put(e, n++, false, 2, 0, 8, EHCI_BUF);
    if (len) {
        if (!in) {
            qtest_memwrite(e->qts, EHCI_BUF + 0x1000, data, len);
        }
        qtd_put(e, n++, false, in ? 1 : 0, 1, len, EHCI_BUF + 0x1000);
    }
    qtd_put(e, n++, true, in ? 0 : 1, 1, 0, 0);
    qh_put(e, addr, 0, 64, EHCI_QTD);
    ret = ehci_run(e, n, NULL);
    if (ret == XFER_OK && in && len) {
        qtest_memread(e->qts, EHCI_BUF + 0x1000, data, len);
    }
    return ret;
}

static inline int ehci_bulk(Ehci *e, int addr, bool in, int ep, void *data,
                     int len, int *actual)
{
    int left = 0, ret;

    if (!in) {
        qtest_memwrite(e->qts, EHCI_BUF, data, len);
    }
    qtd_put(e, 0, true, in ? 1 : 0, 0, len, EHCI_BUF);
    qh_put(e, addr, ep, 512, EHCI_QTD);
    ret = ehci_run(e, 1, &left);
    if (actual) {
        *actual = len - left;
    }
    if (ret == XFER_OK && in) {
        qtest_memread(e->qts, EHCI_BUF, data, len - left);
    }
    return ret;
}

static inline void ehci_enumerate(Ehci *e, int port, int addr)
{
    g_assert(qpci_io_readl(e->dev, e->bar, EHCI_PORTSC(port)) & 1);
    qpci_io_writel(e->dev, e->bar, EHCI_PORTSC(port), (1 << 12) | (1 << 8));
    qpci_io_writel(e->dev, e->bar, EHCI_PORTSC(port), 1 << 12);
    g_assert(qpci_io_readl(e->dev, e->bar, EHCI_PORTSC(port)) & (1 << 2));
    g_assert_cmpint(ehci_ctrl(e, 0, 0x00, 0x05, addr, 0, 0, NULL), ==,
                    XFER_OK);
    g_assert_cmpint(ehci_ctrl(e, addr, 0x00, 0x09, 1, 0, 0, NULL), ==,
                    XFER_OK);
}

/* Async schedule on, with an idle QH; @bus stays the caller's. */
static inline void ehci_start(Ehci *e, QTestState *qts, QPCIBus *bus)
{
    e->qts = qts;
    e->dev = qpci_device_find(bus, EHCI_DEVFN);
    g_assert(e->dev != NULL);
    qpci_device_enable(e->dev);
    e->bar = qpci_iomap(e->dev, 0, NULL);
    qh_put(e, 0, 0, 64, 1);
    qpci_io_writel(e->dev, e->bar, EHCI_CONFIG, 1);
    qpci_io_writel(e->dev, e->bar, EHCI_ASYNC, EHCI_QH);
    qpci_io_writel(e->dev, e->bar, EHCI_USBCMD, (1 << 5) | 1);  /* ASE, RS */
}

static inline void ehci_stop(Ehci *e)
{
    qpci_iounmap(e->dev, e->bar);
    g_free(e->dev);
}

#endif /* NDISBENCH_USB_H */
