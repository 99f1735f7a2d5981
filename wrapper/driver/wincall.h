/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: calling Windows code (see win_thunks.S for the ABI).
 */

#ifndef NDIS_WINCALL_H
#define NDIS_WINCALL_H

#include <linux/percpu.h>
#include <linux/types.h>
#include <asm/fpu/api.h>

u64 win_call(const void *fn, unsigned long nargs, const u64 *args);

/* Nonzero while this CPU runs Windows code (ntoskrnl.c). */
DECLARE_PER_CPU(unsigned int, win_depth);

/*
 * Windows code may use SSE: the outermost call owns the FPU (and so runs
 * with preemption off) while it runs; nested calls, from Windows code
 * through our exports back into Windows code, already own it. Process
 * context only: kernel_fpu_end() must not run with interrupts off.
 */
static inline u64 win_callv(const void *fn, unsigned long nargs,
			    const u64 *args)
{
	u64 ret;

	if (this_cpu_read(win_depth))
		return win_call(fn, nargs, args);
	kernel_fpu_begin();
	this_cpu_inc(win_depth);
	ret = win_call(fn, nargs, args);
	this_cpu_dec(win_depth);
	kernel_fpu_end();
	return ret;
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

#endif /* NDIS_WINCALL_H */
