/*
 * QTest for the ndisbench bcm43xx PCI WLAN device model
 *
 * Copyright (c) 2026 The ndisbench authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Built inside the QEMU tree: tests/qtest/ndisbench-bcm43xx-test.c is a
 * symlink to this file and tests/qtest/meson.build has
 *   qtests_x86_64 += ['ndisbench-bcm43xx-test']
 * The device model is hw/ndisbench/bcm43xx.c (qemu-devices/ in ndisbench).
 * qemu_build.py links wlan-rsn.c and QEMU's crypto library in too
 * (QTEST_EXTRAS): the key table tests seal and open frames with the AP's
 * own CCMP to compare the device's with.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/iov.h"
#include "qemu/sockets.h"
#include "qapi/error.h"
#include "crypto/init.h"
#include "libqtest.h"
#include "qapi/qmp/qdict.h"
#include "qapi/qmp/qlist.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/ndisbench/include/bcm43xx_regs.h"
#include "ndisbench-qtest.h"
#include "../../hw/ndisbench/wlan-frame.h"
#include "../../hw/ndisbench/wlan-rsn.h"

#define BCM_DEVFN       QPCI_DEVFN(4, 0)
#define BCM2_DEVFN      QPCI_DEVFN(5, 0)
#define RAM_MB          128

/* Guest memory used by the tests (RAM is free: the CPUs never run). */
#define TX_RING         0x100000
#define RX_RING         0x101000
#define TX_BUFS         0x200000
#define RX_BUFS         0x300000
#define RX_BUF_SIZE     2400
#define OUTSIDE_RAM     0x40000000ull   /* 1 GiB: nothing mapped there */

#define AP_ARGS  "-object wlan-ap,id=ap0,air=air0,netdev=hs0"

static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

typedef struct Bcm {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar;
    uint64_t bar_size;
    uint32_t ring_off;          /* guest memory offset of this NIC's rings */
    uint32_t tx_next;
    uint32_t rx_posted;
} Bcm;

/* ---- helpers ---------------------------------------------------------- */

static uint32_t rd(Bcm *b, uint32_t reg)
{
    return qpci_io_readl(b->dev, b->bar, reg);
}

static void wr(Bcm *b, uint32_t reg, uint32_t val)
{
    qpci_io_writel(b->dev, b->bar, reg, val);
}

static void bcm_open(Bcm *b, QTestState *qts, QPCIBus *bus, int devfn,
                     uint32_t ring_off)
{
    memset(b, 0, sizeof(*b));
    b->qts = qts;
    b->bus = bus;
    b->dev = qpci_device_find(bus, devfn);
    g_assert(b->dev != NULL);
    qpci_device_enable(b->dev);
    b->bar = qpci_iomap(b->dev, 0, &b->bar_size);
    b->ring_off = ring_off;
}

static void bcm_close(Bcm *b)
{
    qpci_iounmap(b->dev, b->bar);
    g_free(b->dev);
}

static QTestState *start(const char *extra)
{
    return qtest_initf("-M pc -m %d -nodefaults "
                       "-object wlan-air,id=air0 "
                       "-device bcm43xx,air=air0,addr=04.0,"
                       "mac=52:54:00:12:34:56 %s", RAM_MB, extra);
}

static void put_desc(QTestState *qts, uint64_t ring, uint32_t slot,
                     uint32_t ctl0, uint32_t ctl1, uint64_t addr)
{
    uint32_t d[4] = {
        cpu_to_le32(ctl0), cpu_to_le32(ctl1),
        cpu_to_le32((uint32_t)addr), cpu_to_le32(addr >> 32),
    };

    qtest_memwrite(qts, ring + slot * BCM43XX_DESC_SIZE, d, sizeof(d));
}

static void setup_ring(Bcm *b, uint32_t base, uint64_t ring, uint32_t size)
{
    wr(b, base + BCM43XX_DMA_CTL, 0);
    wr(b, base + BCM43XX_DMA_RINGLO, (uint32_t)ring);
    wr(b, base + BCM43XX_DMA_RINGHI, ring >> 32);
    wr(b, base + BCM43XX_DMA_RINGSIZE, size);
    wr(b, base + BCM43XX_DMA_INDEX, 0);
    wr(b, base + BCM43XX_DMA_CTL, BCM43XX_DMA_CTL_ENABLE);
}

#define RING_SLOTS 8

/* Radio on, channel, TX ring, RX ring with RING_SLOTS - 1 buffers. */
static void bcm_up(Bcm *b, uint32_t channel, bool promisc)
{
    uint32_t i;

    wr(b, BCM43XX_REG_CTRL, BCM43XX_CTRL_RESET);
    wr(b, BCM43XX_REG_CHANNEL, channel);
    setup_ring(b, BCM43XX_DMA_TX_BASE, TX_RING + b->ring_off, RING_SLOTS);
    setup_ring(b, BCM43XX_DMA_RX_BASE, RX_RING + b->ring_off, RING_SLOTS);
    for (i = 0; i < RING_SLOTS; i++) {
        put_desc(b->qts, RX_RING + b->ring_off, i,
                 i == RING_SLOTS - 1 ? BCM43XX_DCTL0_TABLEEND : 0,
                 RX_BUF_SIZE, RX_BUFS + b->ring_off + i * 0x1000);
    }
    b->tx_next = 0;
    b->rx_posted = RING_SLOTS - 1;
    wr(b, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_INDEX, b->rx_posted);
    wr(b, BCM43XX_REG_INT_MASK, BCM43XX_INT_ALL);
    wr(b, BCM43XX_REG_CTRL, BCM43XX_CTRL_ENABLE |
       (promisc ? BCM43XX_CTRL_PROMISC : 0));
}

/*
 * Queue one frame on the TX ring, its descriptor with these ctl0 bits too
 * (BCM43XX_DCTL0_ENCRYPT and a key slot), and ring the doorbell.
 */
static void bcm_tx_ctl(Bcm *b, const uint8_t *frame, size_t len,
                       uint32_t ctl0)
{
    uint32_t slot = b->tx_next;
    uint64_t buf = TX_BUFS + b->ring_off + slot * 0x1000;

    qtest_memwrite(b->qts, buf, frame, len);
    put_desc(b->qts, TX_RING + b->ring_off, slot,
             BCM43XX_DCTL0_FRAMESTART | BCM43XX_DCTL0_FRAMEEND |
             BCM43XX_DCTL0_IRQ | ctl0, len, buf);
    b->tx_next = (slot + 1) % RING_SLOTS;
    wr(b, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_INDEX, b->tx_next);
    g_assert_cmpuint(rd(b, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_ERROR), ==,
                     BCM43XX_DMAERR_NONE);
    g_assert_cmpuint(rd(b, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_STATUS), ==,
                     b->tx_next);
}

static void bcm_tx(Bcm *b, const uint8_t *frame, size_t len)
{
    bcm_tx_ctl(b, frame, len, 0);
}

/* Slots the device filled since the last call (up to RX STATUS). */
static uint32_t rx_filled(Bcm *b, uint32_t *consumed)
{
    uint32_t status = rd(b, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_STATUS);

    return (status + RING_SLOTS - *consumed) % RING_SLOTS;
}

/*
 * Wait (real time: the air delivers from a bottom half, the netdev from
 * the main loop) for a received frame; return its length or -1.
 */
static int bcm_rx(Bcm *b, uint32_t *consumed, uint8_t *frame,
                  struct bcm43xx_rxhdr *hdr_out, int wait_ms)
{
    struct bcm43xx_rxhdr hdr;
    uint64_t buf;
    int i;

    for (i = 0; i <= wait_ms; i++) {
        if (rx_filled(b, consumed)) {
            break;
        }
        g_usleep(1000);
    }
    if (!rx_filled(b, consumed)) {
        return -1;
    }
    buf = RX_BUFS + b->ring_off + *consumed * 0x1000;
    qtest_memread(b->qts, buf, &hdr, sizeof(hdr));
    hdr.frame_len = le16_to_cpu(hdr.frame_len);
    g_assert_cmpuint(hdr.frame_len, <=, BCM43XX_MAX_FRAME);
    qtest_memread(b->qts, buf + BCM43XX_RXHDR_SIZE, frame, hdr.frame_len);
    if (hdr_out) {
        *hdr_out = hdr;
    }
    /* Give the buffer back. */
    *consumed = (*consumed + 1) % RING_SLOTS;
    b->rx_posted = (b->rx_posted + 1) % RING_SLOTS;
    wr(b, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_INDEX, b->rx_posted);
    return hdr.frame_len;
}

static size_t mk_hdr(uint8_t *f, uint8_t fc0, uint8_t fc1, const uint8_t *a1,
                     const uint8_t *a2, const uint8_t *a3)
{
    memset(f, 0, 24);
    f[0] = fc0;
    f[1] = fc1;
    memcpy(f + 4, a1, 6);
    memcpy(f + 10, a2, 6);
    memcpy(f + 16, a3, 6);
    return 24;
}

static size_t mk_data(uint8_t *f, const uint8_t *a1, const uint8_t *a2,
                      const uint8_t *a3, uint8_t fc1, uint16_t ethertype,
                      const char *payload)
{
    static const uint8_t snap[6] = { 0xaa, 0xaa, 0x03, 0, 0, 0 };
    size_t n = mk_hdr(f, 0x08, fc1, a1, a2, a3);

    memcpy(f + n, snap, 6);
    n += 6;
    stw_be_p(f + n, ethertype);
    n += 2;
    memcpy(f + n, payload, strlen(payload));
    return n + strlen(payload);
}

/* ---- config space ----------------------------------------------------- */

static void test_config(void)
{
    QTestState *qts = start("");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    Bcm b;

    bcm_open(&b, qts, bus, BCM_DEVFN, 0);
    g_assert_cmphex(qpci_config_readw(b.dev, PCI_VENDOR_ID), ==, 0x14e4);
    g_assert_cmphex(qpci_config_readw(b.dev, PCI_DEVICE_ID), ==, 0x4318);
    g_assert_cmphex(qpci_config_readw(b.dev, PCI_CLASS_DEVICE), ==, 0x0280);
    g_assert_cmphex(qpci_config_readb(b.dev, PCI_INTERRUPT_PIN), ==, 1);
    g_assert_cmpuint(b.bar_size, ==, BCM43XX_MMIO_SIZE);
    g_assert_cmpuint(qpci_find_capability(b.dev, PCI_CAP_ID_MSI, 0), !=, 0);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

static void test_device_ids(void)
{
    static const uint16_t ids[] = { 0x4311, 0x4312, 0x4320 };
    QTestState *qts;
    QPCIBus *bus;
    QDict *resp;
    Bcm b;
    int i;

    for (i = 0; i < ARRAY_SIZE(ids); i++) {
        qts = qtest_initf("-M pc -nodefaults -object wlan-air,id=air0 "
                          "-device bcm43xx,air=air0,addr=04.0,"
                          "device-id=0x%x", ids[i]);
        bus = qpci_new_pc(qts, NULL);
        bcm_open(&b, qts, bus, BCM_DEVFN, 0);
        g_assert_cmphex(qpci_config_readw(b.dev, PCI_DEVICE_ID), ==, ids[i]);
        g_assert_cmphex(rd(&b, BCM43XX_REG_ID) >> 16, ==, ids[i]);
        bcm_close(&b);
        qpci_free_pc(bus);
        qtest_quit(qts);
    }

    /* Realize errors: an unknown id is named; a missing air is refused. */
    qts = qtest_init("-M pc -nodefaults -object wlan-air,id=air0");
    resp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': {"
                     "'driver': 'bcm43xx', 'id': 'bad', 'air': 'air0', "
                     "'device-id': 4660}}");
    g_assert(qdict_haskey(resp, "error"));
    g_assert(strstr(qdict_get_str(qdict_get_qdict(resp, "error"), "desc"),
                    "0x1234"));
    qobject_unref(resp);
    resp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': {"
                     "'driver': 'bcm43xx', 'id': 'noair'}}");
    g_assert(qdict_haskey(resp, "error"));
    g_assert(strstr(qdict_get_str(qdict_get_qdict(resp, "error"), "desc"),
                    "air"));
    qobject_unref(resp);
    qtest_quit(qts);
}

/* ---- interrupts ------------------------------------------------------- */

#define MSI_ADDR        0x500000        /* MSI writes land in RAM here */
#define MSI_DATA        0x4321
#define PIIX3_DEVFN     QPCI_DEVFN(1, 0)
#define PIIX_PIRQD      0x63            /* slot 4 INTA is PIRQD on i440fx */
#define INTX_GSI        10

static uint32_t msi_take(QTestState *qts)
{
    uint32_t v = qtest_readl(qts, MSI_ADDR);

    qtest_writel(qts, MSI_ADDR, 0);
    return v;
}

/* Raise DMA_ERROR by enabling the TX engine on a ring of size 0. */
static void raise_dma_error(Bcm *b)
{
    wr(b, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_RINGSIZE, 0);
    wr(b, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_CTL, 0);
    wr(b, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_CTL, BCM43XX_DMA_CTL_ENABLE);
}

static void test_intx(void)
{
    QTestState *qts = start("");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    QPCIDevice *piix;
    Bcm b;

    bcm_open(&b, qts, bus, BCM_DEVFN, 0);
    piix = qpci_device_find(bus, PIIX3_DEVFN);
    g_assert(piix != NULL);
    qpci_config_writeb(piix, PIIX_PIRQD, INTX_GSI);
    qtest_irq_intercept_in(qts, "ioapic");

    /* Line = (status & mask) != 0. */
    raise_dma_error(&b);
    g_assert(!qtest_get_irq(qts, INTX_GSI));
    wr(&b, BCM43XX_REG_INT_MASK, BCM43XX_INT_TX_DONE);
    g_assert(!qtest_get_irq(qts, INTX_GSI));
    wr(&b, BCM43XX_REG_INT_MASK, BCM43XX_INT_DMA_ERROR);
    g_assert(qtest_get_irq(qts, INTX_GSI));
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_RX_DONE);
    g_assert(qtest_get_irq(qts, INTX_GSI));
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_DMA_ERROR);
    g_assert(!qtest_get_irq(qts, INTX_GSI));
    raise_dma_error(&b);
    g_assert(qtest_get_irq(qts, INTX_GSI));
    /* CTRL RESET clears the interrupt state. */
    wr(&b, BCM43XX_REG_CTRL, BCM43XX_CTRL_RESET);
    g_assert(!qtest_get_irq(qts, INTX_GSI));

    g_free(piix);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

static void test_msi(void)
{
    QTestState *qts = start("");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint8_t cap;
    uint16_t flags;
    Bcm b;

    bcm_open(&b, qts, bus, BCM_DEVFN, 0);
    cap = qpci_find_capability(b.dev, PCI_CAP_ID_MSI, 0);
    g_assert_cmpuint(cap, !=, 0);
    flags = qpci_config_readw(b.dev, cap + PCI_MSI_FLAGS);
    g_assert(flags & PCI_MSI_FLAGS_64BIT);
    qpci_config_writel(b.dev, cap + PCI_MSI_ADDRESS_LO, MSI_ADDR);
    qpci_config_writel(b.dev, cap + PCI_MSI_ADDRESS_HI, 0);
    qpci_config_writew(b.dev, cap + PCI_MSI_DATA_64, MSI_DATA);
    qpci_config_writew(b.dev, cap + PCI_MSI_FLAGS,
                       flags | PCI_MSI_FLAGS_ENABLE);
    msi_take(qts);

    /* Masked: no message; unmasking a pending cause sends one. */
    raise_dma_error(&b);
    g_assert_cmphex(msi_take(qts), ==, 0);
    wr(&b, BCM43XX_REG_INT_MASK, BCM43XX_INT_ALL);
    g_assert_cmphex(msi_take(qts), ==, MSI_DATA);

    /* Same cause again while pending: no new message. */
    raise_dma_error(&b);
    g_assert_cmphex(msi_take(qts), ==, 0);
    /* An acknowledge that leaves a cause pending sends another. */
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_TX_DONE);
    g_assert_cmphex(msi_take(qts), ==, MSI_DATA);
    /* Acknowledging everything sends nothing; a new cause sends one. */
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    g_assert_cmphex(msi_take(qts), ==, 0);
    raise_dma_error(&b);
    g_assert_cmphex(msi_take(qts), ==, MSI_DATA);

    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/*
 * Without the memory core's reentrancy guard (x-reentrancy-guard=off),
 * the model on its own. A hang is a failure too: the watchdog aborts.
 */
#define NOGUARD         "x-reentrancy-guard=off"
#define WATCHDOG_S      30

static void watchdog(int sig)
{
    fprintf(stderr, "bcm43xx: no answer for %d s: QEMU hangs\n", WATCHDOG_S);
    kill_qemu_children();
    abort();
}

/* MSI on, the message written to @addr with @data. */
static void msi_setup(Bcm *b, uint64_t addr, uint16_t data)
{
    uint8_t cap = qpci_find_capability(b->dev, PCI_CAP_ID_MSI, 0);
    uint16_t flags = qpci_config_readw(b->dev, cap + PCI_MSI_FLAGS);

    qpci_config_writel(b->dev, cap + PCI_MSI_ADDRESS_LO, (uint32_t)addr);
    qpci_config_writel(b->dev, cap + PCI_MSI_ADDRESS_HI, addr >> 32);
    qpci_config_writew(b->dev, cap + PCI_MSI_DATA_64, data);
    qpci_config_writew(b->dev, cap + PCI_MSI_FLAGS,
                       flags | PCI_MSI_FLAGS_ENABLE);
}

/*
 * An MSI whose address is the device's own INT_STATUS: the message is an
 * acknowledge that clears nothing (data 0), so every message would ask
 * for another. One is sent; QEMU stays alive.
 */
static void test_msi_self(void)
{
    QTestState *qts = start("-device bcm43xx,air=air0,addr=05.0,"
                            "mac=52:54:00:ab:cd:ef," NOGUARD);
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    Bcm b;

    alarm(WATCHDOG_S);
    bcm_open(&b, qts, bus, BCM2_DEVFN, 0);
    msi_setup(&b, b.bar.addr + BCM43XX_REG_INT_STATUS, 0);
    wr(&b, BCM43XX_REG_INT_MASK, BCM43XX_INT_ALL);
    raise_dma_error(&b);        /* RINGSIZE 0, kick */
    g_assert_cmphex(rd(&b, BCM43XX_REG_ID), ==, 0x43180002);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==,
                    BCM43XX_INT_DMA_ERROR);
    /* An acknowledge that leaves a cause pending (kick) does the same. */
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_TX_DONE);
    g_assert_cmphex(rd(&b, BCM43XX_REG_ID), ==, 0x43180002);
    alarm(0);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/*
 * The TX loop re-checks the ring before every descriptor: b's MSI (raised
 * while a's TX loop delivers to it) writes a's RINGSIZE down to 1 after
 * a's third frame. a must stop with a ring error, not spin on a ring of
 * one slot whose INDEX it never reaches.
 */
static void test_tx_ring_shrinks(void)
{
    QTestState *qts = start("-device bcm43xx,air=air0,addr=05.0,"
                            "mac=52:54:00:ab:cd:ef," NOGUARD);
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    const uint32_t tx = BCM43XX_DMA_TX_BASE, rx = BCM43XX_DMA_RX_BASE;
    uint8_t frame[64];
    size_t n;
    uint32_t i;
    Bcm a, b;

    alarm(WATCHDOG_S);
    bcm_open(&a, qts, bus, BCM2_DEVFN, 0);
    bcm_open(&b, qts, bus, BCM_DEVFN, 0x10000);
    bcm_up(&a, 1, false);
    bcm_up(&b, 1, false);
    /* b: two buffers, then RX_NOBUF, the only cause it signals */
    wr(&b, rx + BCM43XX_DMA_INDEX, 2);
    wr(&b, BCM43XX_REG_INT_MASK, BCM43XX_INT_RX_NOBUF);
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    msi_setup(&b, a.bar.addr + tx + BCM43XX_DMA_RINGSIZE, 1);

    n = mk_data(frame, bcast, mac_a, mac_a, 0, 0x0800, "to b");
    for (i = 0; i < RING_SLOTS - 2; i++) {
        qtest_memwrite(qts, TX_BUFS + i * 0x1000, frame, n);
        put_desc(qts, TX_RING, i, BCM43XX_DCTL0_FRAMESTART |
                 BCM43XX_DCTL0_FRAMEEND, n, TX_BUFS + i * 0x1000);
    }
    wr(&a, tx + BCM43XX_DMA_INDEX, RING_SLOTS - 2);
    g_assert_cmphex(rd(&a, BCM43XX_REG_ID), ==, 0x43180002);
    g_assert_cmpuint(rd(&a, tx + BCM43XX_DMA_RINGSIZE), ==, 1);
    g_assert_cmpuint(rd(&a, tx + BCM43XX_DMA_ERROR), ==, BCM43XX_DMAERR_RING);
    g_assert_cmphex(rd(&a, tx + BCM43XX_DMA_CTL), ==, 0);
    alarm(0);
    bcm_close(&a);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/*
 * b's MSI rings a's TX doorbell: a transmits inside b's MMIO handler, and
 * its frame reaches b all the same (with the guard: from the air's
 * bottom half, since b is busy; without it: inside b, which copes).
 */
static void test_msi_rings_doorbell(void)
{
    static const char *const guards[] = { "", "," NOGUARD };
    const uint32_t tx = BCM43XX_DMA_TX_BASE;
    uint8_t frame[64], got[BCM43XX_MAX_FRAME];
    uint32_t consumed;
    size_t n;
    Bcm a, b;
    int g;

    for (g = 0; g < ARRAY_SIZE(guards); g++) {
        g_autofree char *extra = g_strdup_printf(
            "-device bcm43xx,air=air0,addr=05.0,mac=52:54:00:ab:cd:ef%s",
            guards[g]);
        QTestState *qts = start(extra);
        QPCIBus *bus = qpci_new_pc(qts, NULL);

        alarm(WATCHDOG_S);
        bcm_open(&a, qts, bus, BCM_DEVFN, 0);
        bcm_open(&b, qts, bus, BCM2_DEVFN, 0x10000);
        bcm_up(&a, 1, false);
        bcm_up(&b, 1, false);
        consumed = 0;
        n = mk_data(frame, mac_b, mac_a, mac_a, 0, 0x0800, "doorbell");
        qtest_memwrite(qts, TX_BUFS, frame, n);
        put_desc(qts, TX_RING, 0, BCM43XX_DCTL0_FRAMESTART |
                 BCM43XX_DCTL0_FRAMEEND, n, TX_BUFS);
        wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
        msi_setup(&b, a.bar.addr + tx + BCM43XX_DMA_INDEX, 1);
        raise_dma_error(&b);    /* b's MSI writes a's TX INDEX = 1 */
        g_assert_cmpuint(rd(&a, tx + BCM43XX_DMA_STATUS), ==, 1);
        g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);
        g_assert(memcmp(got, frame, n) == 0);
        alarm(0);
        bcm_close(&a);
        bcm_close(&b);
        qpci_free_pc(bus);
        qtest_quit(qts);
    }
}

/*
 * a's frame reaches b inside a's TX handler, and b's RX interrupt is an
 * MSI to b's own INT_MASK with data 0. b receives with its reentrancy
 * guard engaged, as if inside one of its handlers: the message is refused
 * by the memory core, b's mask stays, the frame is in b's ring. Without
 * the guard engaged the message rewrote b's INT_MASK from inside b.
 */
static void test_rx_msi_own_registers(void)
{
    QTestState *qts = start("-device bcm43xx,air=air0,addr=05.0,"
                            "mac=52:54:00:ab:cd:ef");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint8_t frame[64], got[BCM43XX_MAX_FRAME];
    uint32_t consumed = 0;
    size_t n;
    Bcm a, b;

    alarm(WATCHDOG_S);
    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    bcm_open(&b, qts, bus, BCM2_DEVFN, 0x10000);
    bcm_up(&a, 1, false);
    bcm_up(&b, 1, false);
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    msi_setup(&b, b.bar.addr + BCM43XX_REG_INT_MASK, 0);
    n = mk_data(frame, mac_b, mac_a, mac_a, 0, 0x0800, "own mask");
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);
    g_assert(memcmp(got, frame, n) == 0);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_MASK), ==, BCM43XX_INT_ALL);
    g_assert_cmphex(rd(&b, BCM43XX_REG_ID), ==, 0x43180002);
    alarm(0);
    bcm_close(&a);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* ---- registers -------------------------------------------------------- */

static void test_registers(void)
{
    QTestState *qts = start("");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint32_t tsf0, tsf1;
    Bcm b;
    int i;

    bcm_open(&b, qts, bus, BCM_DEVFN, 0);
    g_assert_cmphex(rd(&b, BCM43XX_REG_ID), ==, 0x43180002);

    /* INT_MASK keeps the defined bits; INT_STATUS starts clear. */
    wr(&b, BCM43XX_REG_INT_MASK, 0xffffffff);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_MASK), ==, BCM43XX_INT_ALL);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==, 0);

    /* Raise DMA_ERROR (ring size 0), then write-1-to-clear it. */
    wr(&b, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_CTL, BCM43XX_DMA_CTL_ENABLE);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==,
                    BCM43XX_INT_DMA_ERROR);
    wr(&b, BCM43XX_REG_INT_STATUS, 0);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==,
                    BCM43XX_INT_DMA_ERROR);
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_TX_DONE);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==,
                    BCM43XX_INT_DMA_ERROR);
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_DMA_ERROR);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==, 0);

    /* CTRL: RESET clears the mask and is not readable. */
    wr(&b, BCM43XX_REG_CTRL, BCM43XX_CTRL_RESET | BCM43XX_CTRL_PROMISC);
    g_assert_cmphex(rd(&b, BCM43XX_REG_CTRL), ==, BCM43XX_CTRL_PROMISC);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_MASK), ==, 0);

    /* Channel 1..14, anything else ignored. */
    g_assert_cmpuint(rd(&b, BCM43XX_REG_CHANNEL), ==, 1);
    wr(&b, BCM43XX_REG_CHANNEL, 6);
    g_assert_cmpuint(rd(&b, BCM43XX_REG_CHANNEL), ==, 6);
    wr(&b, BCM43XX_REG_CHANNEL, 0);
    g_assert_cmpuint(rd(&b, BCM43XX_REG_CHANNEL), ==, 6);
    wr(&b, BCM43XX_REG_CHANNEL, 15);
    g_assert_cmpuint(rd(&b, BCM43XX_REG_CHANNEL), ==, 6);
    wr(&b, BCM43XX_REG_CHANNEL, 14);
    g_assert_cmpuint(rd(&b, BCM43XX_REG_CHANNEL), ==, 14);

    /* SPROM: revision 1, the mac property in network byte order. */
    g_assert_cmphex(qpci_io_readw(b.dev, b.bar, BCM43XX_SPROM_REV), ==, 1);
    for (i = 0; i < 6; i += 2) {
        uint16_t w = qpci_io_readw(b.dev, b.bar, BCM43XX_SPROM_MAC + i);

        g_assert_cmphex(w & 0xff, ==, mac_a[i]);
        g_assert_cmphex(w >> 8, ==, mac_a[i + 1]);
    }
    /* The RX filter address starts as the same MAC. */
    g_assert_cmphex(rd(&b, BCM43XX_REG_MACADDR_LO), ==, ldl_le_p(mac_a));
    g_assert_cmphex(rd(&b, BCM43XX_REG_MACADDR_HI), ==, lduw_le_p(mac_a + 4));
    wr(&b, BCM43XX_REG_MACADDR_HI, 0xffff1234);
    g_assert_cmphex(rd(&b, BCM43XX_REG_MACADDR_HI), ==, 0x1234);

    /* TSF: microseconds of virtual time. */
    tsf0 = rd(&b, BCM43XX_REG_TSF_LO);
    qtest_clock_step(qts, 5 * 1000 * 1000);
    tsf1 = rd(&b, BCM43XX_REG_TSF_LO);
    g_assert_cmpuint(tsf1 - tsf0, >=, 5000);
    g_assert_cmpuint(tsf1 - tsf0, <, 5000 + 1000);
    g_assert_cmpuint(rd(&b, BCM43XX_REG_TSF_HI), ==, 0);

    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* ---- two radios on one air ------------------------------------------- */

static void test_air_pair(void)
{
    QTestState *qts = start("-device bcm43xx,air=air0,addr=05.0,"
                            "mac=52:54:00:ab:cd:ef");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint8_t frame[BCM43XX_MAX_FRAME], got[BCM43XX_MAX_FRAME];
    struct bcm43xx_rxhdr hdr;
    uint32_t consumed = 0;
    Bcm a, b;
    size_t n;
    int len;

    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    bcm_open(&b, qts, bus, BCM2_DEVFN, 0x10000);
    bcm_up(&a, 6, false);
    bcm_up(&b, 6, false);

    /* Unicast to b: TX_DONE on a, RX_DONE and the frame on b. */
    n = mk_data(frame, mac_b, mac_a, mac_a, 0, 0x0800, "unicast a->b");
    bcm_tx(&a, frame, n);
    g_assert_cmphex(rd(&a, BCM43XX_REG_INT_STATUS) & BCM43XX_INT_TX_DONE,
                    ==, BCM43XX_INT_TX_DONE);
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    g_assert_cmpint(len, ==, n);
    g_assert(memcmp(got, frame, n) == 0);
    g_assert_cmpuint(hdr.channel, ==, 6);
    g_assert_cmpint(hdr.rssi_dbm, <, 0);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS) & BCM43XX_INT_RX_DONE,
                    ==, BCM43XX_INT_RX_DONE);

    /* Another station's unicast is filtered, broadcast is not. */
    n = mk_data(frame, (const uint8_t *)"\x02\x00\x00\x00\x00\x01", mac_a,
                mac_a, 0, 0x0800, "for someone else");
    bcm_tx(&a, frame, n);
    n = mk_data(frame, bcast, mac_a, mac_a, 0, 0x0800, "broadcast");
    bcm_tx(&a, frame, n);
    len = bcm_rx(&b, &consumed, got, NULL, 2000);
    g_assert_cmpint(len, ==, n);
    g_assert(memcmp(got, frame, n) == 0);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);

    /* The filter uses the MACADDR registers, not the SPROM address. */
    wr(&b, BCM43XX_REG_MACADDR_LO, 0x00000002);
    wr(&b, BCM43XX_REG_MACADDR_HI, 0x0100);
    n = mk_data(frame, mac_b, mac_a, mac_a, 0, 0x0800, "to the old MAC");
    bcm_tx(&a, frame, n);
    n = mk_data(frame, (const uint8_t *)"\x02\x00\x00\x00\x00\x01", mac_a,
                mac_a, 0, 0x0800, "to the new MAC");
    bcm_tx(&a, frame, n);
    len = bcm_rx(&b, &consumed, got, NULL, 2000);
    g_assert_cmpint(len, ==, n);
    g_assert(memcmp(got, frame, n) == 0);
    wr(&b, BCM43XX_REG_MACADDR_LO, ldl_le_p(mac_b));
    wr(&b, BCM43XX_REG_MACADDR_HI, lduw_le_p(mac_b + 4));

    /* Promiscuous b hears it all. */
    wr(&b, BCM43XX_REG_CTRL, BCM43XX_CTRL_ENABLE | BCM43XX_CTRL_PROMISC);
    n = mk_data(frame, (const uint8_t *)"\x02\x00\x00\x00\x00\x01", mac_a,
                mac_a, 0, 0x0800, "promisc");
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);

    /* Other channel: nothing. */
    wr(&b, BCM43XX_REG_CHANNEL, 11);
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    wr(&b, BCM43XX_REG_CHANNEL, 6);

    /* No posted buffer: RX_NOBUF and the frame is dropped. */
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    wr(&b, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_INDEX, consumed);
    b.rx_posted = consumed;
    bcm_tx(&a, frame, n);
    for (len = 0; len < 2000 && !(rd(&b, BCM43XX_REG_INT_STATUS) &
                                  BCM43XX_INT_RX_NOBUF); len++) {
        g_usleep(1000);
    }
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==, BCM43XX_INT_RX_NOBUF);
    g_assert_cmpuint(rd(&b, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_STATUS), ==,
                     consumed);

    /* A buffer too small for header + frame: dropped, slot kept. */
    put_desc(qts, RX_RING + b.ring_off, consumed, 0, 16,
             RX_BUFS + b.ring_off + consumed * 0x1000);
    b.rx_posted = (consumed + 1) % RING_SLOTS;
    wr(&b, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_INDEX, b.rx_posted);
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==, 0);
    g_assert_cmphex(rd(&b, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_ERROR), ==,
                    BCM43XX_DMAERR_NONE);

    /* Radio off: a's frames go nowhere (but TX still completes). */
    put_desc(qts, RX_RING + b.ring_off, consumed, 0, RX_BUF_SIZE,
             RX_BUFS + b.ring_off + consumed * 0x1000);
    wr(&a, BCM43XX_REG_CTRL, 0);
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    wr(&a, BCM43XX_REG_CTRL, BCM43XX_CTRL_ENABLE);
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);

    bcm_close(&a);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* Hot-unplug detaches the radio: the air never calls a freed device. */
static void test_hotplug(void)
{
    QTestState *qts = start("");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint8_t frame[64];
    size_t n;
    Bcm a, b;
    int i;

    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    bcm_up(&a, 1, false);
    qtest_qmp_device_add(qts, "bcm43xx", "hot", "{'addr': '0x5', "
                         "'air': 'air0', 'mac': '52:54:00:ab:cd:ef'}");
    bcm_open(&b, qts, bus, BCM2_DEVFN, 0x10000);
    bcm_up(&b, 1, true);
    n = mk_data(frame, bcast, mac_a, mac_a, 0, 0x0800, "to b");
    bcm_tx(&a, frame, n);
    bcm_close(&b);
    qpci_unplug_acpi_device_test(qts, "hot", 5);
    for (i = 0; i < 20; i++) {
        bcm_tx(&a, frame, n);
    }
    g_assert_cmphex(rd(&a, BCM43XX_REG_ID), ==, 0x43180002);
    bcm_close(&a);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* ---- bad DMA ---------------------------------------------------------- */

/* The engine reports @code, raises DMA_ERROR, stops; QEMU keeps running. */
static void expect_dma_error(Bcm *b, uint32_t base, uint32_t code)
{
    g_assert_cmpuint(rd(b, base + BCM43XX_DMA_ERROR), ==, code);
    g_assert_cmphex(rd(b, BCM43XX_REG_INT_STATUS) & BCM43XX_INT_DMA_ERROR,
                    ==, BCM43XX_INT_DMA_ERROR);
    g_assert_cmphex(rd(b, base + BCM43XX_DMA_CTL) & BCM43XX_DMA_CTL_ENABLE,
                    ==, 0);
    g_assert_cmphex(rd(b, BCM43XX_REG_ID), ==, 0x43180002);
    /* A CTL write clears the error. */
    wr(b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    wr(b, base + BCM43XX_DMA_CTL, 0);
    g_assert_cmpuint(rd(b, base + BCM43XX_DMA_ERROR), ==, 0);
}

static void tx_one(Bcm *b, uint32_t ctl0, uint32_t len, uint64_t addr)
{
    put_desc(b->qts, TX_RING, 0, ctl0, len, addr);
    setup_ring(b, BCM43XX_DMA_TX_BASE, TX_RING, RING_SLOTS);
    wr(b, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_INDEX, 1);
}

static void test_bad_dma(void)
{
    QTestState *qts = start("");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    const uint32_t tx = BCM43XX_DMA_TX_BASE, rx = BCM43XX_DMA_RX_BASE;
    const uint32_t frame_ok = BCM43XX_DCTL0_FRAMESTART |
                              BCM43XX_DCTL0_FRAMEEND;
    uint8_t frame[64];
    Bcm b;

    bcm_open(&b, qts, bus, BCM_DEVFN, 0);
    bcm_up(&b, 1, false);
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    memset(frame, 0x5a, sizeof(frame));
    qtest_memwrite(qts, TX_BUFS, frame, sizeof(frame));

    /* Ring base outside guest RAM (low and high words). */
    setup_ring(&b, tx, OUTSIDE_RAM, RING_SLOTS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_RING);
    setup_ring(&b, tx, 0x1000000000ull, RING_SLOTS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_RING);
    setup_ring(&b, rx, OUTSIDE_RAM, RING_SLOTS);
    expect_dma_error(&b, rx, BCM43XX_DMAERR_RING);
    /* Misaligned ring base. */
    setup_ring(&b, tx, TX_RING + 8, RING_SLOTS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_RING);

    /* Ring size 0 and > 512. */
    setup_ring(&b, tx, TX_RING, 0);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_RING);
    setup_ring(&b, tx, TX_RING, BCM43XX_DMA_MAX_RING + 1);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_RING);
    setup_ring(&b, rx, RX_RING, 0);
    expect_dma_error(&b, rx, BCM43XX_DMAERR_RING);
    /* A ring of 512 is fine. */
    setup_ring(&b, tx, TX_RING, BCM43XX_DMA_MAX_RING);
    g_assert_cmpuint(rd(&b, tx + BCM43XX_DMA_ERROR), ==, 0);
    g_assert_cmphex(rd(&b, tx + BCM43XX_DMA_CTL), ==, BCM43XX_DMA_CTL_ENABLE);

    /* Bus mastering off: no DMA at all. */
    qpci_config_writew(b.dev, PCI_COMMAND,
                       qpci_config_readw(b.dev, PCI_COMMAND) &
                       ~PCI_COMMAND_MASTER);
    setup_ring(&b, tx, TX_RING, RING_SLOTS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_RING);
    qpci_config_writew(b.dev, PCI_COMMAND,
                       qpci_config_readw(b.dev, PCI_COMMAND) |
                       PCI_COMMAND_MASTER);

    /* INDEX beyond the ring. */
    setup_ring(&b, tx, TX_RING, RING_SLOTS);
    wr(&b, tx + BCM43XX_DMA_INDEX, RING_SLOTS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_RING);

    /* Descriptor buffer outside RAM. */
    tx_one(&b, frame_ok, 64, OUTSIDE_RAM);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_DATA);
    tx_one(&b, frame_ok, 64, 0xfffffffffffff000ull);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_DATA);
    /* Buffer running off the end of RAM. */
    tx_one(&b, frame_ok, 64, RAM_MB * 1024 * 1024 - 32);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_DATA);

    /* Zero, too short and oversized byte counts. */
    tx_one(&b, frame_ok, 0, TX_BUFS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_LENGTH);
    tx_one(&b, frame_ok, 9, TX_BUFS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_LENGTH);
    tx_one(&b, frame_ok, BCM43XX_MAX_FRAME + 1, TX_BUFS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_LENGTH);
    tx_one(&b, frame_ok, BCM43XX_DCTL1_BYTECNT_MASK, TX_BUFS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_LENGTH);

    /* A frame read from the device's own registers (re-entrant DMA). */
    tx_one(&b, frame_ok, 64, b.bar.addr + BCM43XX_SPROM_BASE);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_DATA);

    /* A ring in the device's own BAR: its first descriptor fetch fails. */
    setup_ring(&b, tx, b.bar.addr + BCM43XX_SPROM_BASE, RING_SLOTS);
    wr(&b, tx + BCM43XX_DMA_INDEX, 1);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_DESC);

    /* A frame split over descriptors is not supported. */
    tx_one(&b, BCM43XX_DCTL0_FRAMESTART, 64, TX_BUFS);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_DESC);

    /* A ring whose INDEX is never reached: TABLEEND at slot 1, INDEX 3. */
    put_desc(qts, TX_RING, 0, frame_ok, 64, TX_BUFS);
    put_desc(qts, TX_RING, 1, frame_ok | BCM43XX_DCTL0_TABLEEND, 64,
             TX_BUFS);
    setup_ring(&b, tx, TX_RING, RING_SLOTS);
    wr(&b, tx + BCM43XX_DMA_INDEX, 3);
    expect_dma_error(&b, tx, BCM43XX_DMAERR_RING);


    /* After all that, a good frame still goes out. */
    setup_ring(&b, tx, TX_RING, RING_SLOTS);
    put_desc(qts, TX_RING, 0, frame_ok | BCM43XX_DCTL0_IRQ, 64, TX_BUFS);
    wr(&b, tx + BCM43XX_DMA_INDEX, 1);
    g_assert_cmpuint(rd(&b, tx + BCM43XX_DMA_ERROR), ==, 0);
    g_assert_cmpuint(rd(&b, tx + BCM43XX_DMA_STATUS), ==, 1);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==, BCM43XX_INT_TX_DONE);

    /* Without DCTL0_IRQ the frame completes silently. */
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    put_desc(qts, TX_RING, 1, frame_ok, 64, TX_BUFS);
    wr(&b, tx + BCM43XX_DMA_INDEX, 2);
    g_assert_cmpuint(rd(&b, tx + BCM43XX_DMA_STATUS), ==, 2);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==, 0);

    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* RX into a buffer outside RAM: a second radio sends a broadcast. */
static void test_bad_rx_dma(void)
{
    QTestState *qts = start("-device bcm43xx,air=air0,addr=05.0,"
                            "mac=52:54:00:ab:cd:ef");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    const uint32_t rx = BCM43XX_DMA_RX_BASE;
    uint8_t frame[64];
    size_t n;
    Bcm a, b;
    int i;

    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    bcm_open(&b, qts, bus, BCM2_DEVFN, 0x10000);
    bcm_up(&a, 1, false);
    bcm_up(&b, 1, false);
    put_desc(qts, RX_RING + b.ring_off, 0, 0, RX_BUF_SIZE, OUTSIDE_RAM);
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    n = mk_data(frame, bcast, mac_a, mac_a, 0, 0x0800, "x");
    bcm_tx(&a, frame, n);
    for (i = 0; i < 2000 && !rd(&b, rx + BCM43XX_DMA_ERROR); i++) {
        g_usleep(1000);
    }
    expect_dma_error(&b, rx, BCM43XX_DMAERR_DATA);

    /*
     * A buffer over the device's own registers: the frame would land on
     * CTRL, the ring registers... refused.
     */
    bcm_up(&b, 1, false);
    put_desc(qts, RX_RING + b.ring_off, 0, 0, RX_BUF_SIZE, b.bar.addr);
    wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
    memset(frame + 24, 0xff, sizeof(frame) - 24);
    bcm_tx(&a, frame, sizeof(frame));
    for (i = 0; i < 2000 && !rd(&b, rx + BCM43XX_DMA_ERROR); i++) {
        g_usleep(1000);
    }
    expect_dma_error(&b, rx, BCM43XX_DMAERR_DATA);
    g_assert_cmphex(rd(&b, BCM43XX_REG_CTRL), ==, BCM43XX_CTRL_ENABLE);
    bcm_close(&a);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

static uint64_t qom_u64(QTestState *qts, const char *path, const char *prop)
{
    QDict *rsp = qtest_qmp(qts, "{'execute': 'qom-get', 'arguments': {"
                           "'path': %s, 'property': %s}}", path, prop);
    uint64_t val;

    g_assert(qdict_haskey(rsp, "return"));
    val = qdict_get_int(rsp, "return");
    qobject_unref(rsp);
    return val;
}

/*
 * DMA reaches guest RAM only: b's RX buffer placed over a's registers (a
 * beacon of the AP, delivered from its timer, so no device's MMIO handler
 * is on the stack to trip QEMU's reentrancy guard) must leave a's
 * registers alone. b reports a data error and counts it.
 */
static void test_dma_other_bar(void)
{
    QTestState *qts = start("-device bcm43xx,id=b,air=air0,addr=05.0,"
                            "mac=52:54:00:ab:cd:ef "
                            "-object wlan-ap,id=ap0,air=air0,channel=1");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    const uint32_t rx = BCM43XX_DMA_RX_BASE, tx = BCM43XX_DMA_TX_BASE;
    static const uint32_t regs[] = {
        BCM43XX_REG_CTRL, BCM43XX_REG_CHANNEL, BCM43XX_REG_MACADDR_LO,
        BCM43XX_REG_MACADDR_HI, BCM43XX_REG_INT_MASK,
        tx + BCM43XX_DMA_CTL, tx + BCM43XX_DMA_INDEX, tx + BCM43XX_DMA_RINGLO,
        tx + BCM43XX_DMA_RINGSIZE, rx + BCM43XX_DMA_CTL,
        rx + BCM43XX_DMA_RINGLO, rx + BCM43XX_DMA_RINGSIZE,
    };
    /* b's buffer over a's registers, and over a's DMA engines */
    static const uint32_t targets[] = { 0, BCM43XX_DMA_TX_BASE - 8 };
    uint32_t before[ARRAY_SIZE(regs)];
    Bcm a, b;
    int i, t;

    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    bcm_open(&b, qts, bus, BCM2_DEVFN, 0x10000);
    bcm_up(&a, 1, false);
    for (t = 0; t < ARRAY_SIZE(targets); t++) {
        bcm_up(&b, 1, false);
        put_desc(qts, RX_RING + b.ring_off, 0, 0, RX_BUF_SIZE,
                 a.bar.addr + targets[t]);
        wr(&b, BCM43XX_REG_INT_STATUS, BCM43XX_INT_ALL);
        for (i = 0; i < ARRAY_SIZE(regs); i++) {
            before[i] = rd(&a, regs[i]);
        }
        /* one beacon interval: the AP's beacon reaches both radios */
        qtest_clock_step(qts, 110 * 1000 * 1000);
        for (i = 0; i < ARRAY_SIZE(regs); i++) {
            g_assert_cmphex(rd(&a, regs[i]), ==, before[i]);
        }
        expect_dma_error(&b, rx, BCM43XX_DMAERR_DATA);
        /* the rx header, the first write, failed */
        g_assert_cmpuint(qom_u64(qts, "/machine/peripheral/b", "dma-errors"),
                         ==, t + 1);
    }
    /* a itself received the beacons as usual */
    g_assert_cmpuint(rd(&a, rx + BCM43XX_DMA_STATUS), ==, 2);
    bcm_close(&a);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* ---- through the access point to a -netdev -------------------------- */

typedef struct ApEnv {
    QTestState *qts;
    QPCIBus *bus;
    Bcm b;
    int sock;                   /* our end of -netdev socket,fd= */
    uint32_t consumed;
    uint8_t bssid[6];
    uint8_t ssid[33];
    uint8_t ssid_len;
    uint32_t channel;
} ApEnv;

/* Next received frame with frame control byte 0 == @fc0, or -1. */
static int ap_wait(ApEnv *e, uint8_t fc0, uint8_t *got, int wait_ms)
{
    gint64 end = g_get_monotonic_time() + wait_ms * 1000;
    int len;

    do {
        len = bcm_rx(&e->b, &e->consumed, got, NULL, 10);
        if (len >= 24 && got[0] == fc0) {
            return len;
        }
    } while (g_get_monotonic_time() < end);
    return -1;
}

/* Scan like a driver: each channel, one beacon interval of virtual time. */
static bool ap_scan(ApEnv *e)
{
    uint8_t got[BCM43XX_MAX_FRAME];
    uint32_t ch;
    int len, i;

    for (ch = 1; ch <= 14; ch++) {
        wr(&e->b, BCM43XX_REG_CHANNEL, ch);
        qtest_clock_step(e->qts, 250 * 1000 * 1000);
        len = ap_wait(e, 0x80, got, 200);
        if (len < 0) {
            continue;
        }
        memcpy(e->bssid, got + 16, 6);
        e->channel = ch;
        /* IEs after timestamp(8), interval(2), capability(2). */
        for (i = 36; i + 2 <= len; i += 2 + got[i + 1]) {
            if (got[i] == 0 && got[i + 1] <= 32) {
                e->ssid_len = got[i + 1];
                memcpy(e->ssid, got + i + 2, e->ssid_len);
            }
        }
        return true;
    }
    return false;
}

static int ap_mgmt_reply(ApEnv *e, uint8_t fc0, uint8_t *got)
{
    int i, len;

    for (i = 0; i < 50; i++) {
        qtest_clock_step(e->qts, 10 * 1000 * 1000);
        len = ap_wait(e, fc0, got, 20);
        if (len >= 0 && memcmp(got + 4, mac_a, 6) == 0) {
            return len;
        }
    }
    return -1;
}

static void ap_associate(ApEnv *e)
{
    uint8_t f[256], got[BCM43XX_MAX_FRAME];
    size_t n;
    int len;

    /* Open System authentication, sequence 1. */
    n = mk_hdr(f, 0xb0, 0, e->bssid, mac_a, e->bssid);
    stw_le_p(f + n, 0);
    stw_le_p(f + n + 2, 1);
    stw_le_p(f + n + 4, 0);
    bcm_tx(&e->b, f, n + 6);
    len = ap_mgmt_reply(e, 0xb0, got);
    g_assert_cmpint(len, >=, 30);
    g_assert_cmpuint(lduw_le_p(got + 26), ==, 2);      /* auth seq 2 */
    g_assert_cmpuint(lduw_le_p(got + 28), ==, 0);      /* success */

    /* Association request: capability ESS, listen interval, SSID, rates. */
    n = mk_hdr(f, 0x00, 0, e->bssid, mac_a, e->bssid);
    stw_le_p(f + n, 0x0001);
    stw_le_p(f + n + 2, 10);
    n += 4;
    f[n++] = 0;
    f[n++] = e->ssid_len;
    memcpy(f + n, e->ssid, e->ssid_len);
    n += e->ssid_len;
    f[n++] = 1;
    f[n++] = 4;
    f[n++] = 0x82;
    f[n++] = 0x84;
    f[n++] = 0x8b;
    f[n++] = 0x96;
    bcm_tx(&e->b, f, n);
    len = ap_mgmt_reply(e, 0x10, got);
    g_assert_cmpint(len, >=, 30);
    g_assert_cmpuint(lduw_le_p(got + 26), ==, 0);      /* success */
}

/* Authentication (and association) of another station, forged by us. */
static void ap_forge(ApEnv *e, const uint8_t *mac, bool assoc)
{
    uint8_t f[128];
    size_t n;

    n = mk_hdr(f, 0xb0, 0, e->bssid, mac, e->bssid);
    stw_le_p(f + n, 0);
    stw_le_p(f + n + 2, 1);
    stw_le_p(f + n + 4, 0);
    bcm_tx(&e->b, f, n + 6);
    if (!assoc) {
        return;
    }
    n = mk_hdr(f, 0x00, 0, e->bssid, mac, e->bssid);
    stw_le_p(f + n, 0x0001);
    stw_le_p(f + n + 2, 10);
    n += 4;
    f[n++] = 0;
    f[n++] = e->ssid_len;
    memcpy(f + n, e->ssid, e->ssid_len);
    n += e->ssid_len;
    bcm_tx(&e->b, f, n);
}

/* Our station's authentication: the status of the AP's answer. */
static int ap_auth_status(ApEnv *e)
{
    uint8_t f[64], got[BCM43XX_MAX_FRAME];
    size_t n = mk_hdr(f, 0xb0, 0, e->bssid, mac_a, e->bssid);
    int len;

    stw_le_p(f + n, 0);
    stw_le_p(f + n + 2, 1);
    stw_le_p(f + n + 4, 0);
    bcm_tx(&e->b, f, n + 6);
    len = ap_mgmt_reply(e, 0xb0, got);
    g_assert_cmpint(len, >=, 30);
    return lduw_le_p(got + 28);
}

static void ap_setup(ApEnv *e)
{
    int sv[2];
    int ret;

    memset(e, 0, sizeof(*e));
    ret = socketpair(PF_UNIX, SOCK_STREAM, 0, sv);
    g_assert_cmpint(ret, !=, -1);
    e->qts = qtest_initf("-M pc -m %d -nodefaults "
                         "-object wlan-air,id=air0 "
                         "-netdev socket,fd=%d,id=hs0 " AP_ARGS " "
                         "-device bcm43xx,air=air0,addr=04.0,"
                         "mac=52:54:00:12:34:56", RAM_MB, sv[1]);
    close(sv[1]);
    e->sock = sv[0];
    qemu_socket_set_nonblock(e->sock);
    e->bus = qpci_new_pc(e->qts, NULL);
    bcm_open(&e->b, e->qts, e->bus, BCM_DEVFN, 0);
    bcm_up(&e->b, 1, false);
}

static void ap_teardown(ApEnv *e)
{
    bcm_close(&e->b);
    qpci_free_pc(e->bus);
    qtest_quit(e->qts);
    close(e->sock);
}

/* One Ethernet frame from the netdev socket (4-byte BE length prefix). */
static int sock_recv(ApEnv *e, uint8_t *buf, size_t size, int wait_ms)
{
    gint64 end = g_get_monotonic_time() + wait_ms * 1000;
    uint32_t len;
    size_t got = 0;
    ssize_t r;

    while (got < sizeof(len)) {
        r = read(e->sock, (uint8_t *)&len + got, sizeof(len) - got);
        if (r > 0) {
            got += r;
        } else if (g_get_monotonic_time() > end) {
            return -1;
        } else {
            /* Let the main loop run: a qtest command is one iteration. */
            rd(&e->b, BCM43XX_REG_ID);
            g_usleep(1000);
        }
    }
    len = be32_to_cpu(len);
    g_assert_cmpuint(len, <=, size);
    got = 0;
    while (got < len) {
        r = read(e->sock, buf + got, len - got);
        if (r > 0) {
            got += r;
        } else {
            g_assert_cmpint(g_get_monotonic_time(), <, end + 1000000);
            g_usleep(1000);
        }
    }
    return len;
}

static void sock_send(ApEnv *e, const uint8_t *buf, size_t len)
{
    uint32_t be = cpu_to_be32(len);
    struct iovec iov[] = {
        { .iov_base = &be, .iov_len = sizeof(be) },
        { .iov_base = (void *)buf, .iov_len = len },
    };
    ssize_t ret;

    ret = iov_send(e->sock, iov, 2, 0, sizeof(be) + len);
    g_assert_cmpint(ret, ==, sizeof(be) + len);
}

static void test_ap_beacons(void)
{
    uint8_t got[BCM43XX_MAX_FRAME];
    ApEnv e;
    int beacons = 0;
    int i;

    ap_setup(&e);
    g_assert_true(ap_scan(&e));
    /* Drain, then count the beacons of 1024 ms of virtual time. */
    while (ap_wait(&e, 0x80, got, 20) >= 0) {
        ;
    }
    for (i = 0; i < 32; i++) {
        qtest_clock_step(e.qts, 32 * 1000 * 1000);
        while (ap_wait(&e, 0x80, got, 20) >= 0) {
            g_assert(memcmp(got + 4, bcast, 6) == 0);
            g_assert(memcmp(got + 16, e.bssid, 6) == 0);
            beacons++;
        }
    }
    g_assert_cmpint(beacons, >=, 9);
    g_assert_cmpint(beacons, <=, 11);
    ap_teardown(&e);
}

static void test_ap_data(void)
{
    static const uint8_t peer[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
    uint8_t f[BCM43XX_MAX_FRAME], got[BCM43XX_MAX_FRAME];
    const char *payload = "ndisbench bcm43xx to the netdev";
    ApEnv e;
    size_t n;
    int len, i;

    ap_setup(&e);
    g_assert_true(ap_scan(&e));
    ap_associate(&e);

    /* TX: a ToDS data frame leaves the AP as Ethernet. */
    n = mk_data(f, e.bssid, mac_a, peer, 0x01, 0x0800, payload);
    bcm_tx(&e.b, f, n);
    len = sock_recv(&e, got, sizeof(got), 5000);
    g_assert_cmpint(len, >=, 14 + strlen(payload));
    g_assert(memcmp(got, peer, 6) == 0);
    g_assert(memcmp(got + 6, mac_a, 6) == 0);
    g_assert_cmphex(lduw_be_p(got + 12), ==, 0x0800);
    g_assert(memcmp(got + 14, payload, strlen(payload)) == 0);

    /* RX: an Ethernet frame for our MAC arrives as FromDS data. */
    memcpy(f, mac_a, 6);
    memcpy(f + 6, peer, 6);
    stw_be_p(f + 12, 0x0800);
    memset(f + 14, 0xa5, 46);
    memcpy(f + 14, "from the netdev", 15);
    sock_send(&e, f, 60);
    for (i = 0, len = -1; i < 2000 && len < 0; i++) {
        len = ap_wait(&e, 0x08, got, 1);
    }
    g_assert_cmpint(len, >=, 24 + 8 + 46);
    g_assert_cmphex(got[1] & 0x03, ==, 0x02);            /* FromDS */
    g_assert(memcmp(got + 4, mac_a, 6) == 0);
    g_assert(memcmp(got + 10, e.bssid, 6) == 0);
    g_assert(memcmp(got + 16, peer, 6) == 0);
    g_assert_cmphex(lduw_be_p(got + 30), ==, 0x0800);
    g_assert(memcmp(got + 32, "from the netdev", 15) == 0);
    ap_teardown(&e);
}

/*
 * The AP's 32 station entries: forged authentications from 32 random MACs
 * must not lock a real station out. A station that only authenticated
 * gives its entry up to a newcomer when the table is full (the one heard
 * from longest ago); an associated one only after 300 s without a frame
 * (then it is deauthenticated).
 */
static void test_ap_station_table(void)
{
    uint8_t mac[6] = { 0x02, 0x66, 0x00, 0x00, 0x00, 0x00 };
    uint8_t got[BCM43XX_MAX_FRAME];
    ApEnv e;
    int i;

    ap_setup(&e);
    g_assert_true(ap_scan(&e));
    for (i = 0; i < 32; i++) {
        mac[4] = g_test_rand_int_range(0, 256);
        mac[5] = i;
        ap_forge(&e, mac, false);
    }
    /* the table is full of stations that only authenticated */
    ap_associate(&e);
    g_assert_cmpuint(qom_u64(e.qts, "/objects/ap0", "stations"), ==, 1);
    ap_teardown(&e);

    /* full of associated stations: the real one waits 300 s, not forever */
    ap_setup(&e);
    g_assert_true(ap_scan(&e));
    for (i = 0; i < 32; i++) {
        mac[4] = g_test_rand_int_range(0, 256);
        mac[5] = i;
        ap_forge(&e, mac, true);
    }
    g_assert_cmpuint(qom_u64(e.qts, "/objects/ap0", "stations"), ==, 32);
    g_assert_cmpint(ap_auth_status(&e), ==, 17);        /* AP full */
    qtest_clock_step(e.qts, 301ll * 1000 * 1000 * 1000);
    while (bcm_rx(&e.b, &e.consumed, got, NULL, 20) >= 0) {
        ;                       /* beacons */
    }
    ap_associate(&e);
    g_assert_cmpuint(qom_u64(e.qts, "/objects/ap0", "stations"), ==, 32);
    ap_teardown(&e);
}

/* ---- migration ------------------------------------------------------- */

/* ---- a faulty air ---------------------------------------------------- */

/*
 * What the radio does with the air's faults: a frame with bit errors is
 * dropped (bad FCS), or with KEEP_BADFCS delivered flagged; a delayed
 * frame waits for the virtual clock; a duplicate arrives twice, the copy
 * with the Retry bit.
 */
static void test_air_faults(void)
{
    QTestState *qts = start("-device bcm43xx,air=air0,addr=05.0,"
                            "mac=52:54:00:ab:cd:ef");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint8_t frame[BCM43XX_MAX_FRAME], got[BCM43XX_MAX_FRAME];
    struct bcm43xx_rxhdr hdr;
    uint32_t consumed = 0;
    Bcm a, b;
    size_t n;
    int len, flips;

    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    bcm_open(&b, qts, bus, BCM2_DEVFN, 0x10000);
    bcm_up(&a, 6, false);
    bcm_up(&b, 6, false);
    n = mk_data(frame, mac_b, mac_a, mac_a, 0, 0x0800,
                "a payload long enough for a few bit errors");

    /* Every frame corrupted: the receiver drops them all. */
    air_set(qts, "corrupt", 10000);
    bcm_tx(&a, frame, n);
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 100), ==, -1);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS) & BCM43XX_INT_RX_DONE,
                    ==, 0);

    /* KEEP_BADFCS: delivered, flagged, 1 to 3 bits of the body flipped. */
    wr(&b, BCM43XX_REG_CTRL, BCM43XX_CTRL_ENABLE | BCM43XX_CTRL_KEEP_BADFCS);
    bcm_tx(&a, frame, n);
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    g_assert_cmpint(len, ==, n);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, BCM43XX_RXHDR_FCS_ERR);
    g_assert(memcmp(got, frame, 24) == 0);
    flips = bits_differ(got, frame, n);
    g_assert_cmpint(flips, >=, 1);
    g_assert_cmpint(flips, <=, 3);
    g_assert_cmphex(fcs32(got, n), !=, fcs32(frame, n));

    /* A clean air: the same radio delivers with flags 0. */
    air_set(qts, "corrupt", 0);
    bcm_tx(&a, frame, n);
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    g_assert_cmpint(len, ==, n);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, 0);
    g_assert(memcmp(got, frame, n) == 0);
    wr(&b, BCM43XX_REG_CTRL, BCM43XX_CTRL_ENABLE);

    /* 5 ms of delay: nothing after 4 ms of virtual time, then the frame. */
    air_set(qts, "delay-us", 5000);
    bcm_tx(&a, frame, n);
    qtest_clock_step(qts, 4 * 1000 * 1000);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 100), ==, -1);
    qtest_clock_step(qts, 1 * 1000 * 1000);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);
    g_assert(memcmp(got, frame, n) == 0);

    /* Jitter 0..3 ms on top: within 5..8 ms, and frames keep their order. */
    air_set(qts, "jitter-us", 3000);
    frame[n - 1] = '1';
    bcm_tx(&a, frame, n);
    frame[n - 1] = '2';
    bcm_tx(&a, frame, n);
    qtest_clock_step(qts, 4 * 1000 * 1000);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 100), ==, -1);
    qtest_clock_step(qts, 4 * 1000 * 1000);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);
    g_assert_cmpint(got[n - 1], ==, '1');
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);
    g_assert_cmpint(got[n - 1], ==, '2');
    air_set(qts, "delay-us", 0);
    air_set(qts, "jitter-us", 0);

    /* Duplicates: the frame, then its retransmission (Retry bit). */
    air_set(qts, "duplicate", 10000);
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);
    g_assert(memcmp(got, frame, n) == 0);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);
    g_assert_cmphex(got[1], ==, frame[1] | 0x08);
    g_assert(memcmp(got + 2, frame + 2, n - 2) == 0);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    air_set(qts, "duplicate", 0);

    /* Lost frames never arrive. */
    air_set(qts, "drop", 10000);
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 100), ==, -1);
    air_set(qts, "drop", 0);
    bcm_tx(&a, frame, n);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 2000), ==, n);

    bcm_close(&a);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/*
 * Duplicates on the air: the AP drops a data frame's retransmission (the
 * Retry bit and the sequence control of the frame before it), so the
 * netdev gets each frame once; a new sequence number passes.
 */
static void test_ap_duplicates(void)
{
    static const uint8_t peer[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
    uint8_t f[BCM43XX_MAX_FRAME], got[BCM43XX_MAX_FRAME];
    ApEnv e;
    size_t n;
    int i;

    ap_setup(&e);
    g_assert_true(ap_scan(&e));
    ap_associate(&e);
    air_set(e.qts, "duplicate", 10000);
    for (i = 0; i < 3; i++) {
        n = mk_data(f, e.bssid, mac_a, peer, 0x01, 0x0800, "once");
        stw_le_p(f + 22, (100 + i) << 4);
        bcm_tx(&e.b, f, n);
        g_assert_cmpint(sock_recv(&e, got, sizeof(got), 5000), ==, 14 + 4);
        g_assert(memcmp(got + 14, "once", 4) == 0);
        g_assert_cmpint(sock_recv(&e, got, sizeof(got), 200), ==, -1);
    }
    ap_teardown(&e);
}

/* The access point ignores a corrupted request: no probe response. */
static void test_ap_bad_fcs(void)
{
    uint8_t f[64], got[BCM43XX_MAX_FRAME];
    ApEnv e;
    size_t n;

    ap_setup(&e);
    g_assert_true(ap_scan(&e));
    n = mk_hdr(f, 0x40, 0, bcast, mac_a, bcast);
    f[n++] = 0;                 /* wildcard SSID */
    f[n++] = 0;
    f[n++] = 1;                 /* rates */
    f[n++] = 1;
    f[n++] = 0x82;
    bcm_tx(&e.b, f, n);
    g_assert_cmpint(ap_mgmt_reply(&e, 0x50, got), >=, 24);

    air_set(e.qts, "corrupt", 10000);
    /* the AP's answer would be corrupted too: keep bad frames to see */
    wr(&e.b, BCM43XX_REG_CTRL, BCM43XX_CTRL_ENABLE |
       BCM43XX_CTRL_KEEP_BADFCS);
    bcm_tx(&e.b, f, n);
    g_assert_cmpint(ap_mgmt_reply(&e, 0x50, got), ==, -1);
    ap_teardown(&e);
}

/*
 * The AP answers a probe inside its receive, which runs inside the
 * station's TX doorbell write: the answer reaches the station once the
 * AP's receive has returned, still inside that write (the station allows
 * it: rx_while_tx), not from the air's bottom half.
 */
static void test_ap_answer_in_tx(void)
{
    uint8_t f[64], got[BCM43XX_MAX_FRAME];
    uint64_t deferred;
    ApEnv e;
    size_t n;

    ap_setup(&e);
    g_assert_true(ap_scan(&e));
    n = mk_hdr(f, 0x40, 0, bcast, mac_a, bcast);
    f[n++] = 0;                 /* wildcard SSID */
    f[n++] = 0;
    f[n++] = 1;                 /* rates */
    f[n++] = 1;
    f[n++] = 0x82;
    deferred = qom_u64(e.qts, "/objects/air0", "deferred");
    bcm_tx(&e.b, f, n);
    g_assert_cmpint(ap_mgmt_reply(&e, 0x50, got), >=, 24);
    g_assert_cmpuint(qom_u64(e.qts, "/objects/air0", "deferred"), ==,
                     deferred);
    ap_teardown(&e);
}

static void test_migration(void)
{
    char *dir = stream_dir_new();
    g_autofree char *path = g_build_filename(dir, "bcm43xx.mig", NULL);
    uint8_t got[BCM43XX_MAX_FRAME];
    QTestState *qts;
    QPCIBus *bus;
    uint32_t consumed = 0;
    Bcm b;
    int len, i;

    qts = start("-object wlan-ap,id=ap0,air=air0");
    bus = qpci_new_pc(qts, NULL);
    bcm_open(&b, qts, bus, BCM_DEVFN, 0);
    bcm_up(&b, 6, false);
    wr(&b, BCM43XX_REG_MACADDR_HI, 0x7788);
    raise_dma_error(&b);        /* leaves the TX engine with an error */
    qtest_qmp_assert_success(qts, "{'execute': 'stop'}");
    migrate_to_file(qts, path);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);

    qts = qtest_initf("-M pc -m %d -nodefaults -object wlan-air,id=air0 "
                      "-object wlan-ap,id=ap0,air=air0 "
                      "-device bcm43xx,air=air0,addr=04.0,"
                      "mac=52:54:00:12:34:56 -incoming defer", RAM_MB);
    incoming_from_file(qts, path);
    qobject_unref(qtest_qmp_receive(qts));      /* migrate-incoming */
    wait_incoming(qts);
    bus = qpci_new_pc(qts, NULL);
    b.dev = qpci_device_find(bus, BCM_DEVFN);
    /* The BAR keeps the address the source's qpci_iomap() gave it. */
    b.bar.addr = qpci_config_readl(b.dev, PCI_BASE_ADDRESS_0) &
                 PCI_BASE_ADDRESS_MEM_MASK;
    b.bar.is_io = false;
    b.qts = qts;
    b.bus = bus;
    b.rx_posted = RING_SLOTS - 1;
    g_assert_cmpuint(rd(&b, BCM43XX_REG_CHANNEL), ==, 6);
    g_assert_cmphex(rd(&b, BCM43XX_REG_CTRL), ==, BCM43XX_CTRL_ENABLE);
    g_assert_cmphex(rd(&b, BCM43XX_REG_MACADDR_HI), ==, 0x7788);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_MASK), ==, BCM43XX_INT_ALL);
    g_assert_cmphex(rd(&b, BCM43XX_REG_INT_STATUS), ==,
                    BCM43XX_INT_DMA_ERROR);
    g_assert_cmpuint(rd(&b, BCM43XX_DMA_TX_BASE + BCM43XX_DMA_ERROR), ==,
                     BCM43XX_DMAERR_RING);
    g_assert_cmphex(rd(&b, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_RINGLO), ==,
                    RX_RING);
    g_assert_cmpuint(rd(&b, BCM43XX_DMA_RX_BASE + BCM43XX_DMA_INDEX), ==,
                     RING_SLOTS - 1);

    /* The radio is back on the air: the AP's beacons arrive. */
    qtest_qmp_assert_success(qts, "{'execute': 'cont'}");
    for (i = 0, len = -1; i < 20 && len < 0; i++) {
        qtest_clock_step(qts, 110 * 1000 * 1000);
        len = bcm_rx(&b, &consumed, got, NULL, 50);
    }
    g_assert_cmpint(len, >, 24);
    g_assert_cmphex(got[0], ==, 0x80);

    g_free(b.dev);
    qpci_free_pc(bus);
    qtest_quit(qts);
    stream_dir_free(dir);
}

/*
 * A stream whose bcm43xx state is out of range must not load (post_load
 * refuses it, QEMU exits with status 1): a channel of 300, an enabled RX
 * engine whose STATUS or INDEX is beyond its ring, or whose ring is
 * larger than 512. The stream as saved loads.
 */
static void test_migration_bad_state(void)
{
    char *dir = stream_dir_new();
    g_autofree char *path = g_build_filename(dir, "bcm43xx.mig", NULL);
    g_autofree char *bad = g_strdup_printf("%s.patched", path);
    g_autofree char *args = g_strdup_printf(
        "-M pc -m %d -nodefaults -object wlan-air,id=air0 "
        "-device bcm43xx,air=air0,addr=04.0,mac=52:54:00:12:34:56", RAM_MB);
    /* CTRL, CHANNEL, MACADDR_LO, MACADDR_HI as saved below */
    static const uint8_t regs[16] = {
        0, 0, 0, 1, 0, 0, 0, 6, 0x31, 0x43, 0x42, 0x4e, 0, 0, 0x77, 0x88,
    };
    /* the RX engine: CTL, INDEX, RINGLO, RINGHI, RINGSIZE (8) */
    static const uint8_t rx[20] = {
        0, 0, 0, 1, 0, 0, 0, RING_SLOTS - 1, 0, 0x10, 0x10, 0, 0, 0, 0, 0,
        0, 0, 0, RING_SLOTS,
    };
    static const struct {
        const uint8_t *pattern;
        size_t plen, off;
        uint32_t val;
        const char *what;
    } cases[] = {
        { regs, sizeof(regs), 4, 300, "channel 300" },
        { regs, sizeof(regs), 4, 0, "channel 0" },
        { rx, sizeof(rx), 20, RING_SLOTS, "RX STATUS = ring size" },
        { rx, sizeof(rx), 4, 600, "RX INDEX 600" },
        { rx, sizeof(rx), 16, 600, "RX ring of 600" },
    };
    QTestState *qts;
    QPCIBus *bus;
    Bcm b;
    int i;

    qts = start("");
    bus = qpci_new_pc(qts, NULL);
    bcm_open(&b, qts, bus, BCM_DEVFN, 0);
    bcm_up(&b, 6, false);
    wr(&b, BCM43XX_REG_MACADDR_LO, 0x3143424e);
    wr(&b, BCM43XX_REG_MACADDR_HI, 0x7788);
    qtest_qmp_assert_success(qts, "{'execute': 'stop'}");
    migrate_to_file(qts, path);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);

    qts = load_stream(args, path);
    g_assert(qts != NULL);
    qtest_quit(qts);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        g_test_message("stream with %s", cases[i].what);
        patch_stream(path, bad, cases[i].pattern, cases[i].plen,
                     cases[i].off, cases[i].val);
        qts = load_stream(args, bad);
        if (qts) {
            qtest_quit(qts);
            g_error("a stream with %s loaded", cases[i].what);
        }
    }
    stream_dir_free(dir);
}

/* ---- the key table (CCMP in the device) ------------------------------- */

static const uint8_t key_tk[WLAN_TK_LEN] = {
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
    0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
};
static const uint8_t key_gtk[WLAN_TK_LEN] = {
    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
    0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
};

#define KEY_PAIRWISE_A  4       /* a's slot for b */
#define KEY_PAIRWISE_B  5       /* b's slot for a */
#define KEY_SEAL(slot)  (BCM43XX_DCTL0_ENCRYPT | \
                         (uint32_t)(slot) << BCM43XX_DCTL0_KEY_SHIFT)

/* ADDR, RSC and TK first, CTL last (it installs the key). */
static void key_install(Bcm *b, int slot, const uint8_t *peer,
                        const uint8_t *tk, uint64_t rsc)
{
    int i;

    wr(b, BCM43XX_KEY_REG(slot, BCM43XX_KEY_ADDR_LO),
       peer ? ldl_le_p(peer) : 0);
    wr(b, BCM43XX_KEY_REG(slot, BCM43XX_KEY_ADDR_HI),
       peer ? lduw_le_p(peer + 4) : 0);
    wr(b, BCM43XX_KEY_REG(slot, BCM43XX_KEY_RSC_LO), (uint32_t)rsc);
    wr(b, BCM43XX_KEY_REG(slot, BCM43XX_KEY_RSC_HI), rsc >> 32);
    for (i = 0; i < BCM43XX_KEY_TK_WORDS; i++) {
        wr(b, BCM43XX_KEY_REG(slot, BCM43XX_KEY_TK + 4 * i),
           ldl_le_p(tk + 4 * i));
    }
    wr(b, BCM43XX_KEY_REG(slot, BCM43XX_KEY_CTL), BCM43XX_KEY_CIPHER_CCMP);
}

/* The frame wlan-rsn.c makes of plain under key_id with this PN. */
static size_t ref_seal(const uint8_t *tk, uint8_t key_id, uint64_t pn,
                       const uint8_t *plain, size_t len, uint8_t *out)
{
    WlanCcmpKey ref;
    size_t out_len;

    g_assert(wlan_ccmp_key_init(&ref, tk, key_id, &error_abort));
    ref.tx_pn = pn - 1;
    g_assert_cmpint(wlan_ccmp_encap(&ref, plain, len, out,
                                    BCM43XX_MAX_FRAME, &out_len), ==,
                    WLAN_CCMP_OK);
    wlan_ccmp_key_clear(&ref);
    return out_len;
}

static QTestState *start_pair(const char *extra)
{
    return qtest_initf("-M pc -m %d -nodefaults "
                       "-object wlan-air,id=air0 "
                       "-device bcm43xx,id=a,air=air0,addr=04.0,"
                       "mac=52:54:00:12:34:56 "
                       "-device bcm43xx,id=b,air=air0,addr=05.0,"
                       "mac=52:54:00:ab:cd:ef %s", RAM_MB, extra);
}

/*
 * The key registers: CTL installs what ADDR/RSC/TK hold, the TK does not
 * read back, TXPN is read-only, a cipher this chip lacks (TKIP) or
 * reserved CTL bits leave the slot empty, and nothing beyond the last
 * slot is a register.
 */
static void test_key_registers(void)
{
    QTestState *qts = start("");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    Bcm a;

    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    key_install(&a, KEY_PAIRWISE_A, mac_b, key_tk, 0x123456789abcull);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A, BCM43XX_KEY_CTL)),
                    ==, BCM43XX_KEY_CIPHER_CCMP);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A,
                                           BCM43XX_KEY_ADDR_LO)), ==,
                    (uint32_t)ldl_le_p(mac_b));
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A,
                                           BCM43XX_KEY_ADDR_HI)), ==,
                    lduw_le_p(mac_b + 4));
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A,
                                           BCM43XX_KEY_RSC_LO)), ==,
                    0x56789abc);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A,
                                           BCM43XX_KEY_RSC_HI)), ==, 0x1234);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A, BCM43XX_KEY_TK)),
                    ==, 0);
    wr(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A, BCM43XX_KEY_TXPN_LO), 7);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A,
                                           BCM43XX_KEY_TXPN_LO)), ==, 0);

    key_install(&a, 6, mac_b, key_tk, 0);
    wr(&a, BCM43XX_KEY_REG(6, BCM43XX_KEY_CTL), 3);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(6, BCM43XX_KEY_CTL)), ==, 0);
    wr(&a, BCM43XX_KEY_REG(6, BCM43XX_KEY_CTL),
       BCM43XX_KEY_CIPHER_CCMP | 0x100);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(6, BCM43XX_KEY_CTL)), ==, 0);
    wr(&a, BCM43XX_KEY_REG(6, BCM43XX_KEY_RSC_HI), 0x10000);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(6, BCM43XX_KEY_RSC_HI)), ==, 0);
    wr(&a, BCM43XX_KEY_REG(BCM43XX_KEY_SLOTS, BCM43XX_KEY_CTL),
       BCM43XX_KEY_CIPHER_CCMP);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(BCM43XX_KEY_SLOTS,
                                           BCM43XX_KEY_CTL)), ==, 0);

    /* CTRL_RESET keeps the table (the driver's rings restart, the
     * association does not); a device reset clears it. */
    wr(&a, BCM43XX_REG_CTRL, BCM43XX_CTRL_RESET);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A, BCM43XX_KEY_CTL)),
                    ==, BCM43XX_KEY_CIPHER_CCMP);
    qtest_qmp_assert_success(qts, "{'execute': 'system_reset'}");
    qtest_qmp_eventwait(qts, "RESET");
    bcm_close(&a);              /* the reset cleared the BAR */
    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A, BCM43XX_KEY_CTL)),
                    ==, 0);
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A,
                                           BCM43XX_KEY_ADDR_LO)), ==, 0);

    bcm_close(&a);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/*
 * a seals, b opens: the air carries exactly wlan-rsn.c's CCMP of the
 * plaintext with PN 1, 2, ...; b without a key gets it sealed and
 * UNDECRYPTED, with the key opened and DECRYPTED (its slot named). Frames
 * the test seals itself: a replay and a forged MIC are dropped and
 * counted, or with KEEP_BADCRYPT delivered sealed and flagged; a group
 * frame opens under the group slot of its key id; a removed key opens
 * nothing. A seal request the device cannot honour sends nothing.
 */
static void test_key_ccmp(void)
{
    QTestState *qts = start_pair("");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint8_t plain[BCM43XX_MAX_FRAME], sealed[BCM43XX_MAX_FRAME];
    uint8_t got[BCM43XX_MAX_FRAME];
    struct bcm43xx_rxhdr hdr;
    uint32_t consumed = 0;
    size_t n, slen;
    Bcm a, b;
    int len;

    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    bcm_open(&b, qts, bus, BCM2_DEVFN, 0x10000);
    bcm_up(&a, 6, false);
    bcm_up(&b, 6, false);
    key_install(&a, KEY_PAIRWISE_A, mac_b, key_tk, 0);
    n = mk_data(plain, mac_b, mac_a, mac_a, WLAN_FC1_TODS, 0x0800,
                "sealed by the device");

    /* b has no key: the frame as on the air */
    bcm_tx_ctl(&a, plain, n, KEY_SEAL(KEY_PAIRWISE_A));
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    slen = ref_seal(key_tk, 0, 1, plain, n, sealed);
    g_assert_cmpint(len, ==, n + WLAN_CCMP_OVERHEAD);
    g_assert_cmpint(len, ==, slen);
    g_assert(memcmp(got, sealed, slen) == 0);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, BCM43XX_RXHDR_UNDECRYPTED);
    g_assert_cmpuint(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A,
                                            BCM43XX_KEY_TXPN_LO)), ==, 1);
    g_assert_cmpuint(qom_u64(qts, "/machine/peripheral/a", "crypto-tx-sealed"),
                     ==, 1);
    g_assert_cmpuint(qom_u64(qts, "/machine/peripheral/b", "crypto-no-key"),
                     ==, 1);

    /* b gets a's key: PN 2 arrives opened */
    key_install(&b, KEY_PAIRWISE_B, mac_a, key_tk, 0);
    bcm_tx_ctl(&a, plain, n, KEY_SEAL(KEY_PAIRWISE_A));
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    g_assert_cmpint(len, ==, n);
    g_assert(memcmp(got, plain, n) == 0);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, BCM43XX_RXHDR_DECRYPTED |
                    KEY_PAIRWISE_B << BCM43XX_RXHDR_KEY_SHIFT);

    /* sealed by the test with PN 100, sent as it is: opened */
    slen = ref_seal(key_tk, 0, 100, plain, n, sealed);
    bcm_tx(&a, sealed, slen);
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    g_assert_cmpint(len, ==, n);
    g_assert(memcmp(got, plain, n) == 0);
    g_assert_cmphex(le32_to_cpu(hdr.flags) & BCM43XX_RXHDR_DECRYPTED, ==,
                    BCM43XX_RXHDR_DECRYPTED);

    /* the same again, and PN 50: replays, dropped and counted */
    bcm_tx(&a, sealed, slen);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    slen = ref_seal(key_tk, 0, 50, plain, n, sealed);
    bcm_tx(&a, sealed, slen);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    g_assert_cmpuint(qom_u64(qts, "/machine/peripheral/b", "crypto-replays"),
                     ==, 2);

    /* PN 101 with a changed ciphertext byte: MIC failure, dropped */
    slen = ref_seal(key_tk, 0, 101, plain, n, sealed);
    sealed[WLAN_HDR_LEN + WLAN_CCMP_HDR_LEN + 3] ^= 0x01;
    bcm_tx(&a, sealed, slen);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    g_assert_cmpuint(qom_u64(qts, "/machine/peripheral/b",
                             "crypto-mic-failures"), ==, 1);
    /* the forgery did not move the counter: PN 101 intact is taken */
    slen = ref_seal(key_tk, 0, 101, plain, n, sealed);
    bcm_tx(&a, sealed, slen);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, &hdr, 2000), ==, n);

    /* KEEP_BADCRYPT: both kinds delivered as sent, flagged */
    wr(&b, BCM43XX_REG_CTRL, BCM43XX_CTRL_ENABLE |
       BCM43XX_CTRL_KEEP_BADCRYPT);
    bcm_tx(&a, sealed, slen);
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    g_assert_cmpint(len, ==, slen);
    g_assert(memcmp(got, sealed, slen) == 0);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, BCM43XX_RXHDR_REPLAY);
    slen = ref_seal(key_tk, 0, 102, plain, n, sealed);
    sealed[slen - 1] ^= 0x80;
    bcm_tx(&a, sealed, slen);
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    g_assert_cmpint(len, ==, slen);
    g_assert(memcmp(got, sealed, slen) == 0);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, BCM43XX_RXHDR_MIC_FAIL);
    wr(&b, BCM43XX_REG_CTRL, BCM43XX_CTRL_ENABLE);

    /* a group frame under key id 2: b's group slot 2, from its RSC on */
    n = mk_data(plain, bcast, mac_a, mac_a, WLAN_FC1_FROMDS, 0x0800,
                "group-addressed");
    key_install(&b, 2, NULL, key_gtk, 40);
    slen = ref_seal(key_gtk, 2, 40, plain, n, sealed);
    bcm_tx(&a, sealed, slen);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    slen = ref_seal(key_gtk, 2, 41, plain, n, sealed);
    bcm_tx(&a, sealed, slen);
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    g_assert_cmpint(len, ==, n);
    g_assert(memcmp(got, plain, n) == 0);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, BCM43XX_RXHDR_DECRYPTED |
                    2 << BCM43XX_RXHDR_KEY_SHIFT);
    /* key id 1 has no key */
    slen = ref_seal(key_gtk, 1, 42, plain, n, sealed);
    bcm_tx(&a, sealed, slen);
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    g_assert_cmpint(len, ==, slen);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, BCM43XX_RXHDR_UNDECRYPTED);

    /* b removes the pairwise key: a's next frame stays sealed */
    wr(&b, BCM43XX_KEY_REG(KEY_PAIRWISE_B, BCM43XX_KEY_CTL),
       BCM43XX_KEY_CIPHER_NONE);
    n = mk_data(plain, mac_b, mac_a, mac_a, WLAN_FC1_TODS, 0x0800,
                "after the key is gone");
    bcm_tx_ctl(&a, plain, n, KEY_SEAL(KEY_PAIRWISE_A));
    len = bcm_rx(&b, &consumed, got, &hdr, 2000);
    slen = ref_seal(key_tk, 0, 3, plain, n, sealed);
    g_assert_cmpint(len, ==, slen);
    g_assert(memcmp(got, sealed, slen) == 0);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, BCM43XX_RXHDR_UNDECRYPTED);

    /*
     * Seal requests the device cannot honour: an empty slot, a slot
     * beyond the table, a management frame, a frame too long once
     * sealed. Nothing goes out, each descriptor completes (bcm_tx_ctl
     * checks STATUS and ERROR), each is counted.
     */
    bcm_tx_ctl(&a, plain, n, KEY_SEAL(3));
    bcm_tx_ctl(&a, plain, n, KEY_SEAL(BCM43XX_KEY_SLOTS));
    mk_hdr(got, 0x40, 0, bcast, mac_a, bcast);
    bcm_tx_ctl(&a, got, WLAN_HDR_LEN, KEY_SEAL(KEY_PAIRWISE_A));
    memset(plain + n, 0x5a, BCM43XX_MAX_FRAME - n);
    bcm_tx_ctl(&a, plain, BCM43XX_MAX_FRAME - WLAN_CCMP_OVERHEAD + 1,
               KEY_SEAL(KEY_PAIRWISE_A));
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    g_assert_cmpuint(qom_u64(qts, "/machine/peripheral/a",
                             "crypto-tx-errors"), ==, 4);
    g_assert_cmpuint(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A,
                                            BCM43XX_KEY_TXPN_LO)), ==, 3);
    /* the longest that fits goes out */
    bcm_tx_ctl(&a, plain, BCM43XX_MAX_FRAME - WLAN_CCMP_OVERHEAD,
               KEY_SEAL(KEY_PAIRWISE_A));
    g_assert_cmpint(bcm_rx(&b, &consumed, got, &hdr, 2000), ==,
                    BCM43XX_MAX_FRAME);

    bcm_close(&a);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/*
 * The key table migrates: the destination seals with the next PN and
 * keeps the receive counters (a replay of a frame taken before the
 * migration is still one). A stream with a cipher the chip lacks, an
 * address above 48 bits or a PN beyond 48 bits does not load.
 */
static void test_key_migration(void)
{
    char *dir = stream_dir_new();
    g_autofree char *path = g_build_filename(dir, "bcm43xx-keys.mig", NULL);
    g_autofree char *bad = g_strdup_printf("%s.patched", path);
    g_autofree char *args = g_strdup_printf(
        "-M pc -m %d -nodefaults -object wlan-air,id=air0 "
        "-device bcm43xx,id=a,air=air0,addr=04.0,mac=52:54:00:12:34:56 "
        "-device bcm43xx,id=b,air=air0,addr=05.0,mac=52:54:00:ab:cd:ef",
        RAM_MB);
    /* a's slot 4 as saved: CTL, ADDR_LO, ADDR_HI (big-endian) */
    uint8_t slot[12] = { 0, 0, 0, BCM43XX_KEY_CIPHER_CCMP };
    static const struct {
        size_t off;
        uint32_t val;
        const char *what;
    } cases[] = {
        { 0, 3, "key cipher 3 (TKIP)" },
        { 0, BCM43XX_KEY_CIPHER_CCMP | 0x100, "reserved key CTL bits" },
        { 8, 0x10000, "key ADDR_HI above 16 bits" },
        { 12 + 4 + 4 + 16, 0x10000, "TX PN beyond 48 bits" },
    };
    uint8_t plain[256], sealed[BCM43XX_MAX_FRAME], got[BCM43XX_MAX_FRAME];
    struct bcm43xx_rxhdr hdr;
    uint32_t consumed = 0;
    QTestState *qts;
    QPCIBus *bus;
    size_t n, slen, old_len;
    uint8_t old[BCM43XX_MAX_FRAME];
    Bcm a, b;
    int i;

    stl_be_p(slot + 4, ldl_le_p(mac_b));
    stl_be_p(slot + 8, lduw_le_p(mac_b + 4));
    qts = start_pair("");
    bus = qpci_new_pc(qts, NULL);
    bcm_open(&a, qts, bus, BCM_DEVFN, 0);
    bcm_open(&b, qts, bus, BCM2_DEVFN, 0x10000);
    bcm_up(&a, 6, false);
    bcm_up(&b, 6, false);
    key_install(&a, KEY_PAIRWISE_A, mac_b, key_tk, 0);
    key_install(&b, KEY_PAIRWISE_B, mac_a, key_tk, 0);
    n = mk_data(plain, mac_b, mac_a, mac_a, WLAN_FC1_TODS, 0x0800,
                "before the migration");
    bcm_tx_ctl(&a, plain, n, KEY_SEAL(KEY_PAIRWISE_A));
    g_assert_cmpint(bcm_rx(&b, &consumed, got, &hdr, 2000), ==, n);
    old_len = ref_seal(key_tk, 0, 1, plain, n, old);
    qtest_qmp_assert_success(qts, "{'execute': 'stop'}");
    migrate_to_file(qts, path);
    bcm_close(&a);
    bcm_close(&b);
    qpci_free_pc(bus);
    qtest_quit(qts);

    qts = qtest_initf("%s -incoming defer", args);
    incoming_from_file(qts, path);
    qobject_unref(qtest_qmp_receive(qts));      /* migrate-incoming */
    wait_incoming(qts);
    bus = qpci_new_pc(qts, NULL);
    a.dev = qpci_device_find(bus, BCM_DEVFN);
    b.dev = qpci_device_find(bus, BCM2_DEVFN);
    a.bar.addr = qpci_config_readl(a.dev, PCI_BASE_ADDRESS_0) &
                 PCI_BASE_ADDRESS_MEM_MASK;
    b.bar.addr = qpci_config_readl(b.dev, PCI_BASE_ADDRESS_0) &
                 PCI_BASE_ADDRESS_MEM_MASK;
    a.bar.is_io = b.bar.is_io = false;
    a.qts = b.qts = qts;
    a.bus = b.bus = bus;
    qtest_qmp_assert_success(qts, "{'execute': 'cont'}");
    g_assert_cmphex(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A, BCM43XX_KEY_CTL)),
                    ==, BCM43XX_KEY_CIPHER_CCMP);
    g_assert_cmpuint(rd(&a, BCM43XX_KEY_REG(KEY_PAIRWISE_A,
                                            BCM43XX_KEY_TXPN_LO)), ==, 1);
    /* b still knows PN 1: the old frame is a replay */
    bcm_tx(&a, old, old_len);
    g_assert_cmpint(bcm_rx(&b, &consumed, got, NULL, 50), ==, -1);
    g_assert_cmpuint(qom_u64(qts, "/machine/peripheral/b", "crypto-replays"),
                     ==, 1);
    /* a seals with PN 2, b opens it */
    bcm_tx_ctl(&a, plain, n, KEY_SEAL(KEY_PAIRWISE_A));
    g_assert_cmpint(bcm_rx(&b, &consumed, got, &hdr, 2000), ==, n);
    g_assert(memcmp(got, plain, n) == 0);
    g_assert_cmphex(le32_to_cpu(hdr.flags), ==, BCM43XX_RXHDR_DECRYPTED |
                    KEY_PAIRWISE_B << BCM43XX_RXHDR_KEY_SHIFT);
    slen = ref_seal(key_tk, 0, 2, plain, n, sealed);
    g_assert_cmpuint(slen, ==, n + WLAN_CCMP_OVERHEAD);
    g_free(a.dev);
    g_free(b.dev);
    qpci_free_pc(bus);
    qtest_quit(qts);

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        g_test_message("stream with %s", cases[i].what);
        patch_stream(path, bad, slot, sizeof(slot), cases[i].off,
                     cases[i].val);
        qts = load_stream(args, bad);
        if (qts) {
            qtest_quit(qts);
            g_error("a stream with %s loaded", cases[i].what);
        }
    }
    stream_dir_free(dir);
}

/* Is a QOM type (device or user-creatable object) built into QEMU? */
static bool has_type(const char *name)
{
    QTestState *qts = qtest_init("-machine none");
    QDict *resp = qtest_qmp(qts, "{'execute': 'qom-list-types'}");
    const QListEntry *p;
    bool found = false;

    for (p = qlist_first(qdict_get_qlist(resp, "return")); p && !found;
         p = qlist_next(p)) {
        QDict *info = qobject_to(QDict, qlist_entry_obj(p));

        found = g_str_equal(qdict_get_str(info, "name"), name);
    }
    qobject_unref(resp);
    qtest_quit(qts);
    return found;
}

int main(int argc, char **argv)
{
    struct sigaction sa = { .sa_handler = watchdog };

    g_test_init(&argc, &argv, NULL);
    sigaction(SIGALRM, &sa, NULL);
    qcrypto_init(&error_abort);

    qtest_add_func("/ndisbench/bcm43xx/config", test_config);
    qtest_add_func("/ndisbench/bcm43xx/device-ids", test_device_ids);
    qtest_add_func("/ndisbench/bcm43xx/registers", test_registers);
    qtest_add_func("/ndisbench/bcm43xx/intx", test_intx);
    qtest_add_func("/ndisbench/bcm43xx/msi", test_msi);
    qtest_add_func("/ndisbench/bcm43xx/msi-self", test_msi_self);
    qtest_add_func("/ndisbench/bcm43xx/tx-ring-shrinks",
                   test_tx_ring_shrinks);
    qtest_add_func("/ndisbench/bcm43xx/msi-rings-doorbell",
                   test_msi_rings_doorbell);
    qtest_add_func("/ndisbench/bcm43xx/rx-msi-own-registers",
                   test_rx_msi_own_registers);
    qtest_add_func("/ndisbench/bcm43xx/air-pair", test_air_pair);
    qtest_add_func("/ndisbench/bcm43xx/air-faults", test_air_faults);
    qtest_add_func("/ndisbench/bcm43xx/hotplug", test_hotplug);
    qtest_add_func("/ndisbench/bcm43xx/bad-dma", test_bad_dma);
    qtest_add_func("/ndisbench/bcm43xx/bad-rx-dma", test_bad_rx_dma);
    qtest_add_func("/ndisbench/bcm43xx/key-registers", test_key_registers);
    qtest_add_func("/ndisbench/bcm43xx/key-ccmp", test_key_ccmp);
    qtest_add_func("/ndisbench/bcm43xx/key-migration", test_key_migration);
    if (has_type("wlan-ap")) {
        qtest_add_func("/ndisbench/bcm43xx/dma-other-bar",
                       test_dma_other_bar);
        qtest_add_func("/ndisbench/bcm43xx/ap-beacons", test_ap_beacons);
        qtest_add_func("/ndisbench/bcm43xx/ap-data", test_ap_data);
        qtest_add_func("/ndisbench/bcm43xx/ap-bad-fcs", test_ap_bad_fcs);
        qtest_add_func("/ndisbench/bcm43xx/ap-answer-in-tx",
                       test_ap_answer_in_tx);
        qtest_add_func("/ndisbench/bcm43xx/ap-duplicates",
                       test_ap_duplicates);
        qtest_add_func("/ndisbench/bcm43xx/ap-station-table",
                       test_ap_station_table);
        qtest_add_func("/ndisbench/bcm43xx/migration", test_migration);
        qtest_add_func("/ndisbench/bcm43xx/migration-bad-state",
                       test_migration_bad_state);
    }
    return g_test_run();
}
