// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's timers and DPCs (KeInitializeTimerEx,
 * KeSetTimerEx, KeCancelTimer, KeInitializeDpc, KeInsertQueueDpc, ...).
 * The objects' state changes are ntos_timer.h's (unit-tested there);
 * this file gives them Linux timers and a place to run.
 *
 * A KTIMER has no room for a Linux timer, so each initialized one has a
 * struct win_timer found by the KTIMER's address (a driver has a few);
 * the driver that initialized it owns it, and its unload cancels and
 * frees them (win_timers_release). Queued DPCs run in order from one
 * work item on ndis_wq at DISPATCH_LEVEL (process context, as the NDIS
 * timers' DPCs do: Windows code may use the FPU there).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "ndis_core.h"
#include "ndiswrapper.h"
#include "ntos.h"
#include "ntos_timer.h"
#include "wincall.h"
#include "winexport.h"

struct win_timer {
	struct list_head link;		/* win_timers */
	struct win_ktimer *kt;
	struct ndis_driver *drv;
	struct timer_list timer;
};

/* Both under win_dispatch_lock. */
static LIST_HEAD(win_timers);
static struct win_list_entry win_dpc_queue = { &win_dpc_queue, &win_dpc_queue };

static void win_dpc_run(struct work_struct *work);
static DECLARE_WORK(win_dpc_work, win_dpc_run);

static void win_dpc_run(struct work_struct *work)
{
	void *routine, *context, *arg1, *arg2;
	struct win_kdpc *dpc;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&win_dispatch_lock, flags);
		dpc = win_dpc_take(&win_dpc_queue);
		if (dpc) {
			routine = dpc->deferred_routine;
			context = dpc->deferred_context;
			arg1 = dpc->system_argument1;
			arg2 = dpc->system_argument2;
		}
		spin_unlock_irqrestore(&win_dispatch_lock, flags);
		if (!dpc)
			return;
		DPC2WIN4(routine, dpc, context, arg1, arg2);
		cond_resched();
	}
}

/* Under win_dispatch_lock. */
static struct win_timer *win_timer_find(struct win_ktimer *kt)
{
	struct win_timer *t;

	list_for_each_entry(t, &win_timers, link)
		if (t->kt == kt)
			return t;
	return NULL;
}

static void win_timer_fire(struct timer_list *timer)
{
	struct win_timer *t = timer_container_of(t, timer, timer);
	unsigned long flags;
	bool dpc_queued;
	s32 period;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	period = win_timer_expire(t->kt, &win_dpc_queue, win_system_time(),
				  &dpc_queued);
	if (period)
		mod_timer(&t->timer, jiffies + msecs_to_jiffies(period));
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	win_dispatch_wake();
	if (dpc_queued)
		queue_work(ndis_wq, &win_dpc_work);
}

/* -- DPCs ------------------------------------------------------------- */

static WIN_ABI void KeInitializeDpc(struct win_kdpc *dpc, void *routine,
				    void *context)
{
	win_dpc_init(dpc, routine, context);
}
WIN_FUNC(KeInitializeDpc);

static WIN_ABI u8 KeInsertQueueDpc(struct win_kdpc *dpc, void *arg1,
				   void *arg2)
{
	unsigned long flags;
	bool queued;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	queued = win_dpc_insert(&win_dpc_queue, dpc, arg1, arg2);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	if (queued)
		queue_work(ndis_wq, &win_dpc_work);
	return queued;
}
WIN_FUNC(KeInsertQueueDpc);

static WIN_ABI u8 KeRemoveQueueDpc(struct win_kdpc *dpc)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	was = win_dpc_remove(dpc);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return was;
}
WIN_FUNC(KeRemoveQueueDpc);

/* One queue, run in order: the importance changes nothing here. */
static WIN_ABI void KeSetImportanceDpc(struct win_kdpc *dpc, u32 importance)
{
	dpc->importance = importance;
}
WIN_FUNC(KeSetImportanceDpc);

/* Returns after every DPC queued before the call has run. */
static WIN_ABI void KeFlushQueuedDpcs(void)
{
	if (!win_may_sleep()) {
		pr_err_ratelimited("KeFlushQueuedDpcs at IRQL %u: cannot wait, not flushed\n",
				   win_current_irql());
		return;
	}
	flush_work(&win_dpc_work);
}
WIN_FUNC(KeFlushQueuedDpcs);

/* -- timers ----------------------------------------------------------- */

/* KeInitializeTimerEx for the driver @drv: a timer set up (again). */
static void win_timer_setup(struct win_ktimer *kt, u32 type,
			    struct ndis_driver *drv)
{
	struct win_timer *t, *fresh;
	unsigned long flags;

	fresh = kzalloc(sizeof(*fresh), GFP_ATOMIC);
	spin_lock_irqsave(&win_dispatch_lock, flags);
	t = win_timer_find(kt);
	if (!t && fresh) {
		t = fresh;
		fresh = NULL;
		t->kt = kt;
		timer_setup(&t->timer, win_timer_fire, 0);
		list_add(&t->link, &win_timers);
	}
	if (t)
		t->drv = drv;
	win_timer_init(kt, type);	/* not set: a pending expiry is void */
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	kfree(fresh);
	if (!t)
		pr_err("KeInitializeTimerEx: no memory for timer %p\n", kt);
}

static WIN_ABI void KeInitializeTimerEx(struct win_ktimer *kt, u32 type)
{
	win_timer_setup(kt, type,
			ndis_driver_at((unsigned long)__builtin_return_address(0)));
}
WIN_FUNC(KeInitializeTimerEx);

static WIN_ABI void KeInitializeTimer(struct win_ktimer *kt)
{
	win_timer_setup(kt, WIN_NOTIFICATION_TIMER_TYPE,
			ndis_driver_at((unsigned long)__builtin_return_address(0)));
}
WIN_FUNC(KeInitializeTimer);

/* NdisInitializeTimer's (ndis_timer.c): a notification timer. */
void win_timer_init_for(void *ktimer, struct ndis_driver *drv)
{
	win_timer_setup(ktimer, WIN_NOTIFICATION_TIMER_TYPE, drv);
}

bool win_timer_known(const void *ktimer)
{
	unsigned long flags;
	bool known;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	known = win_timer_find((struct win_ktimer *)ktimer) != NULL;
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return known;
}

/* The storage is no longer a KTIMER: its Linux timer stopped and freed. */
void win_timer_forget(void *ktimer)
{
	struct win_timer *t;
	unsigned long flags;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	t = win_timer_find(ktimer);
	if (t)
		list_del(&t->link);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	if (!t)
		return;
	timer_delete_sync(&t->timer);
	kfree(t);
}

/*
 * Due time in 100 ns units (negative: relative; positive: absolute
 * system time), period in ms. Whether the timer was set before.
 */
static WIN_ABI u8 KeSetTimerEx(struct win_ktimer *kt, s64 due_time,
			       s32 period, struct win_kdpc *dpc)
{
	u64 now = win_system_time();
	struct win_timer *t;
	unsigned long flags;
	s64 ms;
	bool was;

	ms = win_dispatch_timeout_ms(due_time, now);
	spin_lock_irqsave(&win_dispatch_lock, flags);
	t = win_timer_find(kt);
	if (!t) {
		spin_unlock_irqrestore(&win_dispatch_lock, flags);
		pr_err("KeSetTimerEx: timer %p was not initialized\n", kt);
		return 0;
	}
	was = win_timer_set(kt, due_time < 0 ? now - due_time : due_time,
			    period, dpc);
	mod_timer(&t->timer, jiffies + (ms > 0 ?
		  msecs_to_jiffies(min_t(s64, ms, U32_MAX)) : 0));
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return was;
}
WIN_FUNC(KeSetTimerEx);

static WIN_ABI u8 KeSetTimer(struct win_ktimer *kt, s64 due_time,
			     struct win_kdpc *dpc)
{
	return KeSetTimerEx(kt, due_time, 0, dpc);
}
WIN_FUNC(KeSetTimer);

static WIN_ABI u8 KeCancelTimer(struct win_ktimer *kt)
{
	struct win_timer *t;
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	was = win_timer_cancel(kt);
	t = win_timer_find(kt);
	if (t)
		timer_delete(&t->timer);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return was;
}
WIN_FUNC(KeCancelTimer);

static WIN_ABI u8 KeReadStateTimer(struct win_ktimer *kt)
{
	return READ_ONCE(kt->header.signal_state) != 0;
}
WIN_FUNC(KeReadStateTimer);

/* The driver's unload: its timers stopped and freed, its DPCs run. */
void win_timers_release(struct ndis_driver *drv)
{
	struct win_timer *t, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&win_dispatch_lock, flags);
	list_for_each_entry_safe(t, tmp, &win_timers, link)
		if (t->drv == drv)
			list_move(&t->link, &gone);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	list_for_each_entry_safe(t, tmp, &gone, link) {
		timer_delete_sync(&t->timer);
		kfree(t);
	}
	flush_work(&win_dpc_work);
}
