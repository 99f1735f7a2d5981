// SPDX-License-Identifier: GPL-2.0
/*
 * ndisbench_plant: a module with four deliberate bugs, one for each checker
 * of the debug kernel (guest/config/debug.config). The `planted` check
 * loads it and wants every enabled checker to report its bug; a debug
 * kernel that stays quiet here would pass the whole chain for nothing.
 *
 * The order matters: a lockdep report switches lockdep off, and so does the
 * taint a KASAN report adds, so the lock-order bug comes first.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static DEFINE_MUTEX(plant_lock_a);
static DEFINE_MUTEX(plant_lock_b);
static DEFINE_SPINLOCK(plant_spin);
static void *plant_last;	/* the leaked object, until it is forgotten */

/* PROVE_LOCKING: a then b, later b then a (an ABBA deadlock waiting). */
static noinline void ndisbench_plant_lock_order(void)
{
	mutex_lock(&plant_lock_a);
	mutex_lock(&plant_lock_b);
	mutex_unlock(&plant_lock_b);
	mutex_unlock(&plant_lock_a);

	mutex_lock(&plant_lock_b);
	mutex_lock(&plant_lock_a);
	mutex_unlock(&plant_lock_a);
	mutex_unlock(&plant_lock_b);
}

/* DEBUG_ATOMIC_SLEEP: a function that may sleep, under a spinlock. */
static noinline void ndisbench_plant_sleep(void)
{
	spin_lock(&plant_spin);
	might_sleep();
	spin_unlock(&plant_spin);
}

/* KASAN: one byte read past the end of a 16-byte object. */
static noinline void ndisbench_plant_oob(void)
{
	size_t size = 16;
	char *p = kmalloc(size, GFP_KERNEL);

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(size);
	pr_info("reading byte %zu of a %zu-byte object\n", size, size);
	(void)((volatile char *)p)[size];
	kfree(p);
}

/*
 * kmemleak: an object filled with 0xa5 (so its report is recognisable),
 * published, then forgotten.
 */
static noinline void ndisbench_plant_leak(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	memset(p, 0xa5, 64);
	WRITE_ONCE(plant_last, p);
	WRITE_ONCE(plant_last, NULL);
}

static int __init ndisbench_plant_init(void)
{
	pr_info("planting a lock-order inversion, a sleep in atomic context, an out-of-bounds read and a leak\n");
	ndisbench_plant_lock_order();
	ndisbench_plant_sleep();
	ndisbench_plant_oob();
	ndisbench_plant_leak();
	return 0;
}

static void __exit ndisbench_plant_exit(void)
{
}

module_init(ndisbench_plant_init);
module_exit(ndisbench_plant_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ndisbench: deliberate bugs for the debug kernel's checkers");
