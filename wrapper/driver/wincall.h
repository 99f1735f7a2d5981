/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: calling Windows code (see win_thunks.S for the x86_64 ABI,
 * win_thunks_32.S for i386's).
 */

#ifndef NDIS_WINCALL_H
#define NDIS_WINCALL_H

#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/linkage.h>
#include <linux/processor.h>
#include <linux/types.h>
#include <asm/fpu/api.h>

#include "wdm.h"

/*
 * asmlinkage: on i386 the thunk takes its arguments from the stack, not
 * from the kernel's -mregparm=3 registers. There each args[] entry is one
 * 4-byte slot (a 64-bit argument is two entries, low half first), and
 * stdcall and cdecl functions are both called with win_call.
 */
asmlinkage u64 win_call(const void *fn, unsigned long nargs, const u64 *args);
#ifdef CONFIG_X86_32
/* A fastcall function: args[0] in ecx, args[1] in edx (two entries at
 * least), the rest on the stack. */
asmlinkage u64 win_fastcall(const void *fn, unsigned long nargs,
			    const u64 *args);
#endif

/* Nonzero while this CPU runs Windows code (ntoskrnl.c). */
DECLARE_PER_CPU(unsigned int, win_depth);

/*
 * The IRQL the Windows code running on this CPU believes it runs at
 * (WIN_*_LEVEL, wdm.h). The wrapper never raises the CPU's real priority:
 * Windows code always runs in process context with preemption off, and
 * the level only says what the code may do. PASSIVE_LEVEL: probe,
 * MiniportInitialize/Halt, OID requests, NDIS work items (they may wait);
 * DISPATCH_LEVEL: IRP completion routines, timer and interrupt DPCs, sends
 * and packet returns, and while an NDIS spin lock is held (they may not).
 * KeWaitForSingleObject refuses to sleep above PASSIVE/APC_LEVEL.
 * Per CPU is per call chain: a chain owns its CPU while it runs, and a
 * wait that sleeps gives both values back and takes them along.
 */
DECLARE_PER_CPU(u8, win_irql);

/*
 * Whether the caller of the outermost call into Windows code could sleep
 * (not in interrupt, bottom halves and interrupts enabled), asked before
 * kernel_fpu_begin(): since 6.15 that disables bottom halves, so inside
 * Windows code in_interrupt() is true on any call chain. A wait asks this
 * (win_may_sleep()), not the state the FPU section put the CPU in.
 */
DECLARE_PER_CPU(bool, win_caller_atomic);

/*
 * Windows code may use SSE: the outermost call owns the FPU (and so runs
 * with preemption off) while it runs; nested calls, from Windows code
 * through our exports back into Windows code, already own it and run at
 * the caller's level or irql if that is higher. Process context only:
 * kernel_fpu_end() must not run with interrupts off.
 */
static inline u64 win_callv_at(u8 irql, const void *fn, unsigned long nargs,
			       const u64 *args)
{
	bool atomic;
	u8 old;
	u64 ret;

	if (this_cpu_read(win_depth)) {
		old = this_cpu_read(win_irql);
		if (irql > old)
			this_cpu_write(win_irql, irql);
		ret = win_call(fn, nargs, args);
		this_cpu_write(win_irql, old);
		return ret;
	}
	atomic = in_interrupt() || irqs_disabled();
	kernel_fpu_begin();
	this_cpu_inc(win_depth);
	this_cpu_write(win_irql, irql);
	this_cpu_write(win_caller_atomic, atomic);
	ret = win_call(fn, nargs, args);
	this_cpu_write(win_irql, WIN_PASSIVE_LEVEL);
	this_cpu_dec(win_depth);
	kernel_fpu_end();
	return ret;
}

static inline u64 win_callv(const void *fn, unsigned long nargs,
			    const u64 *args)
{
	return win_callv_at(WIN_PASSIVE_LEVEL, fn, nargs, args);
}

/* Outside Windows code, PASSIVE_LEVEL. */
static inline u8 win_current_irql(void)
{
	return this_cpu_read(win_depth) ? this_cpu_read(win_irql) :
					  WIN_PASSIVE_LEVEL;
}

/*
 * May this call chain sleep: at PASSIVE or APC_LEVEL, and its caller
 * (outside Windows code: the current context) could.
 */
static inline bool win_may_sleep(void)
{
	if (win_current_irql() > WIN_APC_LEVEL)
		return false;
	if (this_cpu_read(win_depth))
		return !this_cpu_read(win_caller_atomic);
	return !in_interrupt() && !irqs_disabled();
}

/*
 * KSPIN_LOCK: one pointer-sized word of the driver's own storage, which
 * the driver zeroes itself (KeInitializeSpinLock is inline in the DDK):
 * 0 free, 1 held. Windows code runs with preemption and bottom halves off
 * (win_callv_at) and never in hard interrupt context (the ISR runs in a
 * thread), so a plain test-and-set lock gives DISPATCH_LEVEL semantics.
 * No Linux spinlock_t fits: it may be larger than the word.
 */
static inline void win_spin_acquire(unsigned long *lock)
{
	for (;;) {
		if (!READ_ONCE(*lock) && !cmpxchg_acquire(lock, 0UL, 1UL))
			return;
		cpu_relax();
	}
}

static inline void win_spin_release(unsigned long *lock)
{
	smp_store_release(lock, 0UL);
}

/* KeAcquireSpinLockRaiseToDpc: the IRQL before, for the release. */
static inline u8 win_spin_acquire_raise(unsigned long *lock)
{
	u8 old = win_current_irql();

	win_spin_acquire(lock);
	if (this_cpu_read(win_depth) && old < WIN_DISPATCH_LEVEL)
		this_cpu_write(win_irql, WIN_DISPATCH_LEVEL);
	return old;
}

static inline void win_spin_release_lower(unsigned long *lock, u8 new_irql)
{
	win_spin_release(lock);
	if (this_cpu_read(win_depth))
		this_cpu_write(win_irql, new_irql);
}

#define WARG(x) ((u64)(uintptr_t)(x))

#define LIN2WIN1(fn, a) \
	win_callv(fn, 1, (u64 [4]){ WARG(a) })
#define LIN2WIN2(fn, a, b) \
	win_callv(fn, 2, (u64 [4]){ WARG(a), WARG(b) })
#define LIN2WIN3(fn, a, b, c) \
	win_callv(fn, 3, (u64 [4]){ WARG(a), WARG(b), WARG(c) })
#define LIN2WIN4(fn, a, b, c, d) \
	win_callv(fn, 4, (u64 [4]){ WARG(a), WARG(b), WARG(c), WARG(d) })
#define LIN2WIN6(fn, a, b, c, d, e, f) \
	win_callv(fn, 6, (u64 [6]){ WARG(a), WARG(b), WARG(c), WARG(d), \
				    WARG(e), WARG(f) })

/* The same at DISPATCH_LEVEL: DPCs, completion routines, sends. */
#define DPC2WIN1(fn, a) \
	win_callv_at(WIN_DISPATCH_LEVEL, fn, 1, (u64 [4]){ WARG(a) })
#define DPC2WIN2(fn, a, b) \
	win_callv_at(WIN_DISPATCH_LEVEL, fn, 2, (u64 [4]){ WARG(a), WARG(b) })
#define DPC2WIN3(fn, a, b, c) \
	win_callv_at(WIN_DISPATCH_LEVEL, fn, 3, \
		     (u64 [4]){ WARG(a), WARG(b), WARG(c) })
#define DPC2WIN4(fn, a, b, c, d) \
	win_callv_at(WIN_DISPATCH_LEVEL, fn, 4, \
		     (u64 [4]){ WARG(a), WARG(b), WARG(c), WARG(d) })
#define DPC2WIN5(fn, a, b, c, d, e) \
	win_callv_at(WIN_DISPATCH_LEVEL, fn, 5, \
		     (u64 [5]){ WARG(a), WARG(b), WARG(c), WARG(d), WARG(e) })

#endif /* NDIS_WINCALL_H */
