// SPDX-License-Identifier: GPL-2.0
/*
 * i386's fastcall spin lock exports (wrapper/driver/hal.c's KfAcquireSpinLock
 * and KfReleaseSpinLock, ntos_time.c's KefAcquireSpinLockAtDpcLevel and
 * KefReleaseSpinLockFromDpcLevel), built -m32 -DCONFIG_X86_32 against
 * kmock as an i386 kernel builds them, run under qemu-i386 and called
 * through their export entries as an i386 driver calls them: the lock in
 * ecx, the new IRQL in edx. The lock word and the call chain's IRQL
 * (wincall.h's, per thread here as in kmock_ntos/linux/percpu.h) are
 * checked after each call.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "tap.h"

#define FASTCALL __attribute__((fastcall))

struct kx_export {
	const char *name;
	void *func;
};

#define EXPORT(fn)							\
	extern const struct kx_export win_export_##fn;			\
	static void *export_##fn(void)					\
	{								\
		CHECK_STR(win_export_##fn.name, #fn);			\
		return win_export_##fn.func;				\
	}

/* -- what the module gives hal.c and ntos_time.c ---------------------------- */

__thread unsigned int win_depth;
__thread unsigned char win_irql;
__thread bool win_caller_atomic;

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

/* no port is read or written by these tests */
uint8_t inb(unsigned long port)
{
	return (uint8_t)port;
}

uint16_t inw(unsigned long port)
{
	return (uint16_t)port;
}

uint32_t inl(unsigned long port)
{
	return (uint32_t)port;
}

void outb(uint8_t v, unsigned long port)
{
	(void)v;
	(void)port;
}

void outw(uint16_t v, unsigned long port)
{
	(void)v;
	(void)port;
}

void outl(uint32_t v, unsigned long port)
{
	(void)v;
	(void)port;
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

int main(void)
{
	TEST(test_kf_raising_pair);
	TEST(test_kef_dpc_pair);
	return tap_done();
}
