// SPDX-License-Identifier: GPL-2.0
/*
 * i386's fastcall spin lock exports (wrapper/driver/hal.c's KfAcquireSpinLock
 * and KfReleaseSpinLock, ntos_time.c's KefAcquireSpinLockAtDpcLevel and
 * KefReleaseSpinLockFromDpcLevel), hal.c's port I/O and ntos_register.c's
 * register accessors (stdcall), built -m32 -DCONFIG_X86_32 against
 * kmock as an i386 kernel builds them, run under qemu-i386 and called
 * through their export entries as an i386 driver calls them: the lock in
 * ecx, the new IRQL in edx. The lock word and the call chain's IRQL
 * (wincall.h's, per thread here as in kmock_ntos/linux/percpu.h) are
 * checked after each call. Also ntos_list.c's fastcall counters and SList
 * pop, and its stdcall list forms.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "kx_export.h"
#include "tap.h"

#define FASTCALL __attribute__((fastcall))

/* -- what the module gives hal.c and ntos_time.c ---------------------------- */

__thread unsigned int win_depth;
__thread unsigned char win_irql;
__thread bool win_caller_atomic;
/* kmock_ntos/linux/irqflags.h's interrupt flag (ntos_list.c's lists) */
__thread unsigned long kmock_irqs_off;

struct timespec64 {
	long long tv_sec;
	long tv_nsec;
};

struct timezone {
	int tz_minuteswest;
	int tz_dsttime;
};

struct timezone sys_tz;
unsigned int nr_cpu_ids = 1;

uint64_t win_interrupt_time(void);
uint64_t win_system_time(void);
void ktime_get_raw_ts64(struct timespec64 *ts);
bool cpu_online(unsigned int cpu);
void udelay(unsigned long usecs);
int printk(const char *fmt, ...);
uint8_t inb(unsigned long port);
uint16_t inw(unsigned long port);
uint32_t inl(unsigned long port);
void outb(uint8_t v, unsigned long port);
void outw(uint16_t v, unsigned long port);
void outl(uint32_t v, unsigned long port);

uint64_t win_interrupt_time(void)
{
	return 0;
}

uint64_t win_system_time(void)
{
	return 0;
}

void ktime_get_raw_ts64(struct timespec64 *ts)
{
	ts->tv_sec = 0;
	ts->tv_nsec = 0;
}

bool cpu_online(unsigned int cpu)
{
	return cpu == 0;
}

void udelay(unsigned long usecs)
{
	(void)usecs;
}

int printk(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

/* the test's ports and registers: the last access recorded */
static unsigned long io_port;
static uint32_t io_value;
static int io_width;		/* bytes; negative: a write */
static const volatile void *io_reg;
uint8_t readb(const volatile void *addr);
uint16_t readw(const volatile void *addr);
uint32_t readl(const volatile void *addr);
void writeb(uint8_t v, volatile void *addr);
void writew(uint16_t v, volatile void *addr);
void writel(uint32_t v, volatile void *addr);

static uint32_t port_in(unsigned long port, int width)
{
	io_port = port;
	io_width = width;
	return 0xa1b2c3d4u >> (8 * (4 - width));
}

static void port_out(unsigned long port, uint32_t v, int width)
{
	io_port = port;
	io_value = v;
	io_width = -width;
}

uint8_t inb(unsigned long port)
{
	return (uint8_t)port_in(port, 1);
}

uint16_t inw(unsigned long port)
{
	return (uint16_t)port_in(port, 2);
}

uint32_t inl(unsigned long port)
{
	return port_in(port, 4);
}

void outb(uint8_t v, unsigned long port)
{
	port_out(port, v, 1);
}

void outw(uint16_t v, unsigned long port)
{
	port_out(port, v, 2);
}

void outl(uint32_t v, unsigned long port)
{
	port_out(port, v, 4);
}

/* the kernel's MMIO accessors, on plain memory here */
uint8_t readb(const volatile void *addr)
{
	io_reg = addr;
	io_width = 1;
	return *(const volatile uint8_t *)addr;
}

uint16_t readw(const volatile void *addr)
{
	io_reg = addr;
	io_width = 2;
	return *(const volatile uint16_t *)addr;
}

uint32_t readl(const volatile void *addr)
{
	io_reg = addr;
	io_width = 4;
	return *(const volatile uint32_t *)addr;
}

void writeb(uint8_t v, volatile void *addr)
{
	io_reg = addr;
	io_width = -1;
	*(volatile uint8_t *)addr = v;
}

void writew(uint16_t v, volatile void *addr)
{
	io_reg = addr;
	io_width = -2;
	*(volatile uint16_t *)addr = v;
}

void writel(uint32_t v, volatile void *addr)
{
	io_reg = addr;
	io_width = -4;
	*(volatile uint32_t *)addr = v;
}

/* -- the tests ------------------------------------------------------------- */

EXPORT(KfAcquireSpinLock)
EXPORT(KfReleaseSpinLock)
EXPORT(KefAcquireSpinLockAtDpcLevel)
EXPORT(KefReleaseSpinLockFromDpcLevel)

static void test_kf_raising_pair(void)
{
	FASTCALL uint8_t (*acquire)(unsigned long *) = export_KfAcquireSpinLock();
	FASTCALL void (*release)(unsigned long *, uint8_t) =
		export_KfReleaseSpinLock();
	unsigned long lock = 0;
	uint8_t old;

	/* in Windows code at PASSIVE_LEVEL: raised to DISPATCH_LEVEL */
	win_depth = 1;
	win_irql = 0;
	old = acquire(&lock);
	CHECK(old == 0 && lock == 1 && win_irql == 2);
	/* NdisReleaseSpinLock: free, back at the level edx names */
	release(&lock, old);
	CHECK(lock == 0 && win_irql == 0);
	/* from DIRQL: its level returned, kept by the release */
	win_irql = 5;
	old = acquire(&lock);
	CHECK(old == 5 && lock == 1 && win_irql == 5);
	release(&lock, old);
	CHECK(lock == 0 && win_irql == 5);
	/* outside Windows code: the lock only */
	win_depth = 0;
	win_irql = 0;
	CHECK(acquire(&lock) == 0 && lock == 1 && win_irql == 0);
	release(&lock, 2);
	CHECK(lock == 0 && win_irql == 0);
}

static void test_kef_dpc_pair(void)
{
	FASTCALL void (*acquire)(unsigned long *) =
		export_KefAcquireSpinLockAtDpcLevel();
	FASTCALL void (*release)(unsigned long *) =
		export_KefReleaseSpinLockFromDpcLevel();
	unsigned long lock = 0, other = 0;

	/* NdisDprAcquireSpinLock: the caller is at DISPATCH_LEVEL already */
	win_depth = 1;
	win_irql = 2;
	acquire(&lock);
	CHECK(lock == 1 && other == 0 && win_irql == 2);
	acquire(&other);
	CHECK(lock == 1 && other == 1);
	release(&lock);
	CHECK(lock == 0 && other == 1 && win_irql == 2);
	release(&other);
	CHECK(other == 0 && win_irql == 2);
	win_depth = 0;
	win_irql = 0;
}

EXPORT(READ_PORT_UCHAR)
EXPORT(READ_PORT_USHORT)
EXPORT(READ_PORT_ULONG)
EXPORT(WRITE_PORT_UCHAR)
EXPORT(WRITE_PORT_USHORT)
EXPORT(WRITE_PORT_ULONG)

#define STDCALL __attribute__((stdcall))

static void test_port_io(void)
{
	STDCALL uint8_t (*in8)(uint8_t *) = export_READ_PORT_UCHAR();
	STDCALL uint16_t (*in16)(uint16_t *) = export_READ_PORT_USHORT();
	STDCALL uint32_t (*in32)(uint32_t *) = export_READ_PORT_ULONG();
	STDCALL void (*out8)(uint8_t *, uint8_t) = export_WRITE_PORT_UCHAR();
	STDCALL void (*out16)(uint16_t *, uint16_t) =
		export_WRITE_PORT_USHORT();
	STDCALL void (*out32)(uint32_t *, uint32_t) =
		export_WRITE_PORT_ULONG();

	/* the "address" is the raw port number NdisMRegisterIoPortRange gave */
	CHECK(in8((uint8_t *)0xc010) == 0xa1 && io_port == 0xc010 &&
	      io_width == 1);
	CHECK(in16((uint16_t *)0xc012) == 0xa1b2 && io_port == 0xc012 &&
	      io_width == 2);
	CHECK(in32((uint32_t *)0xc014) == 0xa1b2c3d4u && io_port == 0xc014 &&
	      io_width == 4);
	out8((uint8_t *)0xc020, 0x5e);
	CHECK(io_port == 0xc020 && io_value == 0x5e && io_width == -1);
	out16((uint16_t *)0xc022, 0xbeef);
	CHECK(io_port == 0xc022 && io_value == 0xbeef && io_width == -2);
	out32((uint32_t *)0xc024, 0xfeedf00du);
	CHECK(io_port == 0xc024 && io_value == 0xfeedf00du && io_width == -4);
}

EXPORT(READ_REGISTER_UCHAR)
EXPORT(READ_REGISTER_USHORT)
EXPORT(READ_REGISTER_ULONG)
EXPORT(WRITE_REGISTER_UCHAR)
EXPORT(WRITE_REGISTER_USHORT)
EXPORT(WRITE_REGISTER_ULONG)

static void test_register_io(void)
{
	STDCALL uint8_t (*rd8)(uint8_t *) = export_READ_REGISTER_UCHAR();
	STDCALL uint16_t (*rd16)(uint16_t *) = export_READ_REGISTER_USHORT();
	STDCALL uint32_t (*rd32)(uint32_t *) = export_READ_REGISTER_ULONG();
	STDCALL void (*wr8)(uint8_t *, uint8_t) =
		export_WRITE_REGISTER_UCHAR();
	STDCALL void (*wr16)(uint16_t *, uint16_t) =
		export_WRITE_REGISTER_USHORT();
	STDCALL void (*wr32)(uint32_t *, uint32_t) =
		export_WRITE_REGISTER_ULONG();
	/* a mapped register block (NdisMMapIoSpace's address) */
	static uint32_t regs[4] = { 0x11223344u, 0x55667788u, 0, 0 };
	uint8_t *base = (uint8_t *)regs;

	CHECK(rd8(base + 1) == 0x33 && io_reg == base + 1 && io_width == 1);
	CHECK(rd16((uint16_t *)(base + 4)) == 0x7788 && io_width == 2);
	CHECK(rd32(&regs[1]) == 0x55667788u && io_reg == &regs[1] &&
	      io_width == 4);
	wr8(base + 8, 0xab);
	CHECK(regs[2] == 0xab && io_reg == base + 8 && io_width == -1);
	wr16((uint16_t *)(base + 10), 0xcdef);
	CHECK(regs[2] == 0xcdef00abu && io_width == -2);
	wr32(&regs[3], 0x01020304u);
	CHECK(regs[3] == 0x01020304u && io_reg == &regs[3] && io_width == -4);
}

/* ntos_list.c's counters, fastcall on i386: the first two arguments in
 * ecx and edx, a third on the stack (the callee pops it). */
EXPORT(InterlockedIncrement)
EXPORT(InterlockedDecrement)
EXPORT(InterlockedExchange)
EXPORT(InterlockedCompareExchange)
EXPORT(ExInterlockedAddLargeStatistic)

static void test_interlocked_fastcall(void)
{
	FASTCALL int32_t (*inc)(int32_t *) = export_InterlockedIncrement();
	FASTCALL int32_t (*dec)(int32_t *) = export_InterlockedDecrement();
	FASTCALL int32_t (*xchg)(int32_t *, int32_t) =
		export_InterlockedExchange();
	FASTCALL int32_t (*cmpxchg)(int32_t *, int32_t, int32_t) =
		export_InterlockedCompareExchange();
	FASTCALL void (*add_large)(int64_t *, uint32_t) =
		export_ExInterlockedAddLargeStatistic();
	int32_t v = 41;
	int64_t big = 0xffffffffLL;

	CHECK(inc(&v) == 42 && v == 42);
	CHECK(dec(&v) == 41 && v == 41);
	CHECK(xchg(&v, -7) == 41 && v == -7);
	/* the value before; stored only when it equals the comparand */
	CHECK(cmpxchg(&v, 100, -6) == -7 && v == -7);
	CHECK(cmpxchg(&v, 100, -7) == -7 && v == 100);
	/* i386's 64-bit add (a cmpxchg8b loop): the carry into the high word */
	add_large(&big, 1);
	CHECK(big == 0x100000000LL);
	add_large(&big, 0xffffffffu);
	CHECK(big == 0x1ffffffffLL);
	big = -2;
	add_large(&big, 3);
	CHECK(big == 1);
}

/* The SList pop, fastcall (the header in ecx), and the stdcall push and
 * depth around it: last in, first out. */
EXPORT(InitializeSListHead)
EXPORT(InterlockedPushEntrySList)
EXPORT(InterlockedPopEntrySList)
EXPORT(ExQueryDepthSList)

struct slist32_entry {
	struct slist32_entry *next;
};

static void test_slist_pop_fastcall(void)
{
	STDCALL void (*init)(uint64_t *) = export_InitializeSListHead();
	FASTCALL struct slist32_entry *(*push)(uint64_t *,
					       struct slist32_entry *) =
		export_InterlockedPushEntrySList();
	FASTCALL struct slist32_entry *(*pop)(uint64_t *) =
		export_InterlockedPopEntrySList();
	STDCALL uint16_t (*depth)(uint64_t *) = export_ExQueryDepthSList();
	uint64_t head = ~0ULL;
	struct slist32_entry a, b;

	init(&head);
	CHECK(head == 0 && depth(&head) == 0);
	CHECK(pop(&head) == NULL);
	CHECK(push(&head, &a) == NULL);
	CHECK(push(&head, &b) == &a);
	CHECK(depth(&head) == 2 && b.next == &a);
	CHECK(pop(&head) == &b && depth(&head) == 1);
	CHECK(pop(&head) == &a && pop(&head) == NULL);
	CHECK(depth(&head) == 0);
}

/* The stdcall list forms under the caller's lock (three and two
 * arguments on the stack, popped by the callee). */
EXPORT(ExInterlockedInsertHeadList)
EXPORT(ExInterlockedInsertTailList)
EXPORT(ExInterlockedRemoveHeadList)
EXPORT(ExInterlockedRemoveTailList)

struct list32_entry {
	struct list32_entry *flink, *blink;
};

static void test_list_stdcall(void)
{
	STDCALL struct list32_entry *(*ins_head)(struct list32_entry *,
			struct list32_entry *, unsigned long *) =
		export_ExInterlockedInsertHeadList();
	STDCALL struct list32_entry *(*ins_tail)(struct list32_entry *,
			struct list32_entry *, unsigned long *) =
		export_ExInterlockedInsertTailList();
	STDCALL struct list32_entry *(*rm_head)(struct list32_entry *,
						unsigned long *) =
		export_ExInterlockedRemoveHeadList();
	STDCALL struct list32_entry *(*rm_tail)(struct list32_entry *,
						unsigned long *) =
		export_ExInterlockedRemoveTailList();
	struct list32_entry head = { &head, &head }, a, b, c;
	unsigned long lock = 0;

	CHECK(ins_tail(&head, &a, &lock) == NULL);
	CHECK(ins_head(&head, &b, &lock) == &a);
	CHECK(ins_tail(&head, &c, &lock) == &a);
	/* head, b, a, c; the lock given back */
	CHECK(head.flink == &b && b.flink == &a && a.flink == &c &&
	      c.flink == &head && head.blink == &c && lock == 0);
	CHECK(kmock_irqs_off == 0);
	CHECK(rm_tail(&head, &lock) == &c);
	CHECK(rm_head(&head, &lock) == &b);
	CHECK(rm_head(&head, &lock) == &a);
	CHECK(rm_tail(&head, &lock) == NULL && rm_head(&head, &lock) == NULL);
	CHECK(head.flink == &head && head.blink == &head && lock == 0);
}

int main(void)
{
	TEST(test_kf_raising_pair);
	TEST(test_kef_dpc_pair);
	TEST(test_port_io);
	TEST(test_register_io);
	TEST(test_interlocked_fastcall);
	TEST(test_slist_pop_fastcall);
	TEST(test_list_stdcall);
	return tap_done();
}
