// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's clocks and IRQL: KeQuerySystemTime,
 * KeQueryTickCount, KeQueryPerformanceCounter, KeQueryActiveProcessors,
 * ExSystemTimeToLocalTime, ExSetTimerResolution, KeRaiseIrql,
 * KeRaiseIrqlToDpcLevel, KeLowerIrql, and the spin locks, which move
 * the IRQL: the calls the amd64 DDK has as macros but older drivers
 * import (KeInitializeSpinLock, KeAcquireSpinLock), the amd64 family
 * the NDIS spin lock macros call and i386's fastcall twins. ntos_time.h
 * has the arithmetic (unit-tested).
 *
 * The IRQL is the wrapper's per-CPU record of the running Windows call
 * chain (wincall.h): outside Windows code it is PASSIVE_LEVEL and stays
 * so. Windows code already runs with preemption off, so raising it
 * changes what the wrapper allows (no waits), not what Linux does.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/time.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "ntos.h"
#include "ntos_time.h"
#include "wincall.h"
#include "winexport.h"

static WIN_ABI void KeQuerySystemTime(s64 *time)
{
	*time = win_system_time();
}
WIN_FUNC(KeQuerySystemTime);

static WIN_ABI void KeQueryTickCount(s64 *count)
{
	*count = win_tick_count(win_interrupt_time());
}
WIN_FUNC(KeQueryTickCount);

/* The raw monotonic clock: ktime_get() is a GPL-only export. */
static WIN_ABI s64 KeQueryPerformanceCounter(s64 *frequency)
{
	struct timespec64 now;

	if (frequency)
		*frequency = WIN_PERFORMANCE_FREQUENCY;
	ktime_get_raw_ts64(&now);
	return win_performance_count(timespec64_to_ns(&now));
}
WIN_FUNC(KeQueryPerformanceCounter);

/* KAFFINITY: a bit per online CPU, as many as the type holds. */
static WIN_ABI unsigned long KeQueryActiveProcessors(void)
{
	unsigned long mask = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (cpu < BITS_PER_LONG)
			mask |= 1UL << cpu;
	return mask;
}
WIN_FUNC(KeQueryActiveProcessors);

static WIN_ABI void ExSystemTimeToLocalTime(const s64 *system_time,
					    s64 *local_time)
{
	*local_time = win_local_time(*system_time, sys_tz.tz_minuteswest);
}
WIN_FUNC(ExSystemTimeToLocalTime);

/* The clock does not change: its one resolution is the answer. */
static WIN_ABI u32 ExSetTimerResolution(u32 desired, u8 set)
{
	return WIN_TIME_INCREMENT;
}
WIN_FUNC(ExSetTimerResolution);

static void win_irql_set(u8 new_irql, bool raise, const char *who)
{
	u8 cur = win_current_irql();
	int to = win_irql_change(cur, new_irql, raise);

	if (to < 0) {
		pr_err_ratelimited("%s from IRQL %u to %u: the wrong way, ignored\n",
				   who, cur, new_irql);
		return;
	}
	if (this_cpu_read(win_depth))
		this_cpu_write(win_irql, to);
}

static WIN_ABI void KeRaiseIrql(u8 new_irql, u8 *old_irql)
{
	*old_irql = win_current_irql();
	win_irql_set(new_irql, true, "KeRaiseIrql");
}
WIN_FUNC(KeRaiseIrql);

static WIN_ABI u8 KeRaiseIrqlToDpcLevel(void)
{
	u8 old = win_current_irql();

	win_irql_set(WIN_DISPATCH_LEVEL, true, "KeRaiseIrqlToDpcLevel");
	return old;
}
WIN_FUNC(KeRaiseIrqlToDpcLevel);

static WIN_ABI void KeLowerIrql(u8 new_irql)
{
	win_irql_set(new_irql, false, "KeLowerIrql");
}
WIN_FUNC(KeLowerIrql);

static WIN_ABI void KeInitializeSpinLock(unsigned long *lock)
{
	*lock = 0;
}
WIN_FUNC(KeInitializeSpinLock);

static WIN_ABI void KeAcquireSpinLock(unsigned long *lock, u8 *old_irql)
{
	*old_irql = win_spin_acquire_raise(lock);
}
WIN_FUNC(KeAcquireSpinLock);

/*
 * The amd64 spin lock family, on a KSPIN_LOCK in the driver's storage
 * (see win_spin_acquire in wincall.h). The DDK's NdisAcquireSpinLock,
 * NdisReleaseSpinLock, NdisDprAcquireSpinLock and NdisDprReleaseSpinLock
 * are macros over these four, KeAcquireSpinLock over the first.
 */
static WIN_ABI u8 KeAcquireSpinLockRaiseToDpc(unsigned long *lock)
{
	return win_spin_acquire_raise(lock);
}
WIN_FUNC(KeAcquireSpinLockRaiseToDpc);

static WIN_ABI void KeReleaseSpinLock(unsigned long *lock, u8 new_irql)
{
	win_spin_release_lower(lock, new_irql);
}
WIN_FUNC(KeReleaseSpinLock);

static WIN_ABI void KeAcquireSpinLockAtDpcLevel(unsigned long *lock)
{
	win_spin_acquire(lock);
}
WIN_FUNC(KeAcquireSpinLockAtDpcLevel);

static WIN_ABI void KeReleaseSpinLockFromDpcLevel(unsigned long *lock)
{
	win_spin_release(lock);
}
WIN_FUNC(KeReleaseSpinLockFromDpcLevel);

#ifdef CONFIG_X86_32
/*
 * On i386 the DDK's KeAcquireSpinLockAtDpcLevel and
 * KeReleaseSpinLockFromDpcLevel (behind NdisDprAcquireSpinLock) call
 * these fastcall twins (HAL's KfAcquireSpinLock/KfReleaseSpinLock do the
 * raising ones, hal.c).
 */
static WIN_FASTCALL void KefAcquireSpinLockAtDpcLevel(unsigned long *lock)
{
	win_spin_acquire(lock);
}
WIN_FUNC_I386(KefAcquireSpinLockAtDpcLevel);

static WIN_FASTCALL void KefReleaseSpinLockFromDpcLevel(unsigned long *lock)
{
	win_spin_release(lock);
}
WIN_FUNC_I386(KefReleaseSpinLockFromDpcLevel);
#endif /* CONFIG_X86_32 */
