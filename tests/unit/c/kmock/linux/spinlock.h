/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/spinlock.h>: a real lock (an atomic flag the
 * threads of a unit test spin on); no interrupts to disable. */
#ifndef KMOCK_SPINLOCK_H
#define KMOCK_SPINLOCK_H
#include <linux/types.h>

typedef struct {
	int locked;
} spinlock_t;

#define DEFINE_SPINLOCK(x)	spinlock_t x = { 0 }
#define spin_lock_init(l)	((l)->locked = 0)

static inline void spin_lock(spinlock_t *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		;
}

static inline void spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#define spin_lock_irqsave(l, flags)	do { (flags) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) do { (void)(flags); spin_unlock(l); } while (0)
#endif
