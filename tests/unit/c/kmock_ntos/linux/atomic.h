/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/atomic.h>: the kernel's cmpxchg and release store
 * (both return and order as the kernel's do), as gcc's builtins. */
#ifndef KMOCK_NTOS_ATOMIC_H
#define KMOCK_NTOS_ATOMIC_H
#include <linux/kernel.h>	/* READ_ONCE, as the kernel's brings it */
/* the value *p had: the exchange happened when it equals @old */
#define cmpxchg_acquire(p, old, new) ({					\
	__typeof__(*(p)) o__ = (old);					\
	__atomic_compare_exchange_n((p), &o__, (new), 0,		\
				    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED); \
	o__;								\
})
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#endif
