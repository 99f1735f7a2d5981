/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: KTIMER and KDPC as ntos_timer.c exports them: the objects'
 * layouts and their state changes, kernel-independent so the unit tests
 * build them against kmock (tests/unit/c/kntos.c). The caller holds
 * win_dispatch_lock around each, wakes waiters and runs the DPC queue.
 *
 * From the WDK: a timer is a dispatcher object (Type 8 notification, 9
 * synchronization) whose DispatcherHeader.Inserted says it is set.
 * KeSetTimerEx resets it (not signalled), records the period (ms, 0 for
 * one expiry) and the DPC; at expiry it becomes signalled (waiters
 * return; a synchronization timer lets one through), its DPC is queued
 * with the expiry's system time as SystemArgument1/2 (low, high), and a
 * periodic timer is set again. A DPC is queued at most once: inserting
 * a queued DPC does nothing and says so (FALSE); removing it before it
 * runs says whether it was queued. The wrapper links a queued KDPC
 * through its own DpcListEntry and marks it queued by DpcData, both
 * fields the WDK leaves to the kernel.
 */

#ifndef NDIS_NTOS_TIMER_H
#define NDIS_NTOS_TIMER_H

#include "ntos_dispatch.h"

/* TIMER_TYPE */
#define WIN_NOTIFICATION_TIMER_TYPE	0
#define WIN_SYNCHRONIZATION_TIMER_TYPE	1

#define WIN_DPC_OBJECT			19	/* KOBJECTS: DpcObject */
#define WIN_MEDIUM_IMPORTANCE		1

struct win_kdpc {
	u8 type;
	u8 importance;
	u16 number;
	struct win_list_entry dpc_list_entry;
	void *deferred_routine;
	void *deferred_context;
	void *system_argument1;
	void *system_argument2;
	void *dpc_data;
};
static_assert(offsetof(struct win_kdpc, deferred_routine) ==
	      WIN_LAYOUT(0x18, 0x0c));
static_assert(sizeof(struct win_kdpc) == WIN_LAYOUT(0x40, 0x20));

struct win_ktimer {
	struct win_dispatcher_header header;	/* reserved: Inserted */
	u64 due_time;
	struct win_list_entry timer_list_entry;
	struct win_kdpc *dpc;
	s32 period;
};
static_assert(offsetof(struct win_ktimer, dpc) == WIN_LAYOUT(0x30, 0x20));
static_assert(sizeof(struct win_ktimer) == WIN_LAYOUT(0x40, 0x28));

static inline void win_dpc_init(struct win_kdpc *dpc, void *routine,
				void *context)
{
	memset(dpc, 0, sizeof(*dpc));
	dpc->type = WIN_DPC_OBJECT;
	dpc->importance = WIN_MEDIUM_IMPORTANCE;
	dpc->deferred_routine = routine;
	dpc->deferred_context = context;
}

/* KeInsertQueueDpc: false if it was queued already. */
static inline bool win_dpc_insert(struct win_list_entry *queue,
				  struct win_kdpc *dpc, void *arg1, void *arg2)
{
	if (dpc->dpc_data)
		return false;
	dpc->system_argument1 = arg1;
	dpc->system_argument2 = arg2;
	dpc->dpc_data = queue;
	dpc->dpc_list_entry.flink = queue;
	dpc->dpc_list_entry.blink = queue->blink;
	queue->blink->flink = &dpc->dpc_list_entry;
	queue->blink = &dpc->dpc_list_entry;
	return true;
}

static inline void win_dpc_unlink(struct win_kdpc *dpc)
{
	dpc->dpc_list_entry.blink->flink = dpc->dpc_list_entry.flink;
	dpc->dpc_list_entry.flink->blink = dpc->dpc_list_entry.blink;
	dpc->dpc_data = NULL;
}

/* KeRemoveQueueDpc: whether it was queued. */
static inline bool win_dpc_remove(struct win_kdpc *dpc)
{
	if (!dpc->dpc_data)
		return false;
	win_dpc_unlink(dpc);
	return true;
}

/* The next DPC to run, dequeued (it may be queued again at once). */
static inline struct win_kdpc *win_dpc_take(struct win_list_entry *queue)
{
	struct win_kdpc *dpc;

	if (queue->flink == queue)
		return NULL;
	dpc = (struct win_kdpc *)((u8 *)queue->flink -
				  offsetof(struct win_kdpc, dpc_list_entry));
	win_dpc_unlink(dpc);
	return dpc;
}

static inline void win_timer_init(struct win_ktimer *t, u32 type)
{
	memset(t, 0, sizeof(*t));
	win_dispatch_init_header(&t->header,
				 type == WIN_SYNCHRONIZATION_TIMER_TYPE ?
				 WIN_SYNCHRONIZATION_TIMER :
				 WIN_NOTIFICATION_TIMER, sizeof(*t), 0);
	t->timer_list_entry.flink = &t->timer_list_entry;
	t->timer_list_entry.blink = &t->timer_list_entry;
}

/* KeSetTimerEx's state change: whether it was set before. */
static inline bool win_timer_set(struct win_ktimer *t, u64 due_time,
				 s32 period, struct win_kdpc *dpc)
{
	bool was = t->header.reserved;

	t->header.signal_state = 0;
	t->header.reserved = 1;
	t->due_time = due_time;
	t->period = period > 0 ? period : 0;
	t->dpc = dpc;
	return was;
}

/* KeCancelTimer's: whether it was set. */
static inline bool win_timer_cancel(struct win_ktimer *t)
{
	bool was = t->header.reserved;

	t->header.reserved = 0;
	return was;
}

/*
 * The expiry at system time @now: signals the timer and queues its DPC
 * (true in *@dpc_queued if it was queued now). The period to set it
 * again for, in ms; 0: it stays expired. A timer cancelled meanwhile
 * does nothing.
 */
static inline s32 win_timer_expire(struct win_ktimer *t,
				   struct win_list_entry *queue, u64 now,
				   bool *dpc_queued)
{
	*dpc_queued = false;
	if (!t->header.reserved)
		return 0;
	t->header.signal_state = 1;
	if (t->dpc)
		*dpc_queued = win_dpc_insert(queue, t->dpc,
					     (void *)(uintptr_t)(u32)now,
					     (void *)(uintptr_t)(u32)(now >> 32));
	if (!t->period)
		t->header.reserved = 0;
	return t->period;
}

#endif /* NDIS_NTOS_TIMER_H */
