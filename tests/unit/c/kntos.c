// SPDX-License-Identifier: GPL-2.0
/*
 * wrapper/driver/ntos_dispatch.h built as the kernel builds it
 * (-nostdinc, kmock's headers, whose wait queue really sleeps), behind
 * kntos.h's plain entry points. The lock and wait queue are the ones
 * ntos_sync.c defines in the module.
 */
#include "ntos_dispatch.h"
#include "ntos_list.h"
#include "ntos_timer.h"
#include "ntos_pool.h"
#include "ntos_thread.h"
#include "ntos_time.h"
#include "kntos.h"

DEFINE_SPINLOCK(win_dispatch_lock);
DECLARE_WAIT_QUEUE_HEAD(win_dispatch_wq);

static_assert(sizeof(struct kd_obj) >= sizeof(struct win_kmutex));
static_assert(sizeof(struct kd_obj) >= sizeof(struct win_ksemaphore));
static_assert(KD_STATUS_TIMEOUT == STATUS_TIMEOUT);
static_assert(KD_STATUS_MUTANT_NOT_OWNED == (int)STATUS_MUTANT_NOT_OWNED);
static_assert(KD_STATUS_SEMAPHORE_LIMIT_EXCEEDED ==
	      (int)STATUS_SEMAPHORE_LIMIT_EXCEEDED);

void kd_KeInitializeEvent(struct kd_obj *o, int synchronization, int state)
{
	win_dispatch_init_event((struct win_kevent *)o,
				synchronization ? WIN_SYNCHRONIZATION_EVENT :
						  WIN_NOTIFICATION_EVENT,
				state);
}

int kd_KeSetEvent(struct kd_obj *o)
{
	return win_dispatch_set_event((struct win_kevent *)o);
}

int kd_KeResetEvent(struct kd_obj *o)
{
	return win_dispatch_reset_event((struct win_kevent *)o);
}

int kd_KeReadState(struct kd_obj *o)
{
	return ((struct win_dispatcher_header *)o)->signal_state;
}

void kd_KeInitializeMutex(struct kd_obj *o)
{
	win_dispatch_init_mutex((struct win_kmutex *)o);
}

int kd_KeReleaseMutex(struct kd_obj *o, void *thread)
{
	return win_dispatch_release_mutex((struct win_kmutex *)o, thread);
}

void *kd_mutex_owner(struct kd_obj *o)
{
	return ((struct win_kmutex *)o)->owner_thread;
}

void kd_KeInitializeSemaphore(struct kd_obj *o, int count, int limit)
{
	win_dispatch_init_semaphore((struct win_ksemaphore *)o, count, limit);
}

int kd_KeReleaseSemaphore(struct kd_obj *o, int adjustment)
{
	return win_dispatch_release_semaphore((struct win_ksemaphore *)o,
					      adjustment);
}

int kd_KeWaitForMultipleObjects(struct kd_obj **objs, unsigned int count,
				int wait_all, void *thread, long timeout_ms)
{
	struct win_dispatch_wait w = {
		.objs = (struct win_dispatcher_header **)objs,
		.count = count,
		.wait_type = wait_all ? WIN_WAIT_ALL : WIN_WAIT_ANY,
		.thread = thread,
	};

	return win_dispatch_wait(&w, timeout_ms < 0 ? MAX_SCHEDULE_TIMEOUT :
				 timeout_ms * KMOCK_HZ / 1000);
}

long long kd_timeout_ms(long long t100, long long now)
{
	return win_dispatch_timeout_ms(t100, now);
}

static_assert(sizeof(struct kd_list_entry) == sizeof(struct win_list_entry));
static_assert(sizeof(struct kd_slist_header) == sizeof(struct win_slist_header));

struct kd_list_entry *kd_ExInterlockedInsertHeadList(struct kd_list_entry *h,
						     struct kd_list_entry *e)
{
	return (struct kd_list_entry *)win_list_insert_head(
		(struct win_list_entry *)h, (struct win_list_entry *)e);
}

struct kd_list_entry *kd_ExInterlockedInsertTailList(struct kd_list_entry *h,
						     struct kd_list_entry *e)
{
	return (struct kd_list_entry *)win_list_insert_tail(
		(struct win_list_entry *)h, (struct win_list_entry *)e);
}

struct kd_list_entry *kd_ExInterlockedRemoveHeadList(struct kd_list_entry *h)
{
	return (struct kd_list_entry *)win_list_remove_head(
		(struct win_list_entry *)h);
}

struct kd_list_entry *kd_ExInterlockedRemoveTailList(struct kd_list_entry *h)
{
	return (struct kd_list_entry *)win_list_remove_tail(
		(struct win_list_entry *)h);
}

struct kd_slist_entry *kd_InterlockedPushEntrySList(struct kd_slist_header *h,
						    struct kd_slist_entry *e)
{
	return (struct kd_slist_entry *)win_slist_push(
		(struct win_slist_header *)h, (struct win_slist_entry *)e);
}

struct kd_slist_entry *kd_InterlockedPopEntrySList(struct kd_slist_header *h)
{
	return (struct kd_slist_entry *)win_slist_pop(
		(struct win_slist_header *)h);
}

unsigned short kd_ExQueryDepthSList(struct kd_slist_header *h)
{
	return win_slist_depth((struct win_slist_header *)h);
}

int kd_InterlockedIncrement(int *v)
{
	return win_interlocked_add(v, 1);
}

int kd_InterlockedDecrement(int *v)
{
	return win_interlocked_add(v, -1);
}

int kd_InterlockedExchange(int *v, int n)
{
	return win_interlocked_exchange(v, n);
}

int kd_InterlockedCompareExchange(int *v, int exchange, int comparand)
{
	return win_interlocked_cmpxchg(v, exchange, comparand);
}

void kd_ExInterlockedAddLargeStatistic(long long *v, unsigned int inc)
{
	win_interlocked_add64(v, inc);
}

static struct win_list_entry kd_dpc_queue = { &kd_dpc_queue, &kd_dpc_queue };

static_assert(sizeof(struct kd_obj) >= sizeof(struct win_ktimer));
static_assert(sizeof(struct kd_obj) >= sizeof(struct win_kdpc));

void kd_KeInitializeTimerEx(struct kd_obj *t, int synchronization)
{
	win_timer_init((struct win_ktimer *)t,
		       synchronization ? WIN_SYNCHRONIZATION_TIMER_TYPE :
					 WIN_NOTIFICATION_TIMER_TYPE);
}

int kd_KeSetTimerEx(struct kd_obj *t, unsigned long long due, int period,
		    struct kd_obj *dpc)
{
	unsigned long flags;
	int was;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	was = win_timer_set((struct win_ktimer *)t, due, period,
			    (struct win_kdpc *)dpc);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return was;
}

int kd_KeCancelTimer(struct kd_obj *t)
{
	unsigned long flags;
	int was;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	was = win_timer_cancel((struct win_ktimer *)t);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return was;
}

int kd_timer_expire(struct kd_obj *t, unsigned long long now, int *dpc_queued)
{
	unsigned long flags;
	bool queued;
	int period;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	period = win_timer_expire((struct win_ktimer *)t, &kd_dpc_queue, now,
				  &queued);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	win_dispatch_wake();
	*dpc_queued = queued;
	return period;
}

void kd_KeInitializeDpc(struct kd_obj *dpc, void *routine, void *context)
{
	win_dpc_init((struct win_kdpc *)dpc, routine, context);
}

int kd_KeInsertQueueDpc(struct kd_obj *dpc, void *arg1, void *arg2)
{
	return win_dpc_insert(&kd_dpc_queue, (struct win_kdpc *)dpc, arg1,
			      arg2);
}

int kd_KeRemoveQueueDpc(struct kd_obj *dpc)
{
	return win_dpc_remove((struct win_kdpc *)dpc);
}

struct kd_obj *kd_dpc_take(void **routine, void **context, void **arg1,
			   void **arg2)
{
	struct win_kdpc *dpc = win_dpc_take(&kd_dpc_queue);

	if (dpc) {
		*routine = dpc->deferred_routine;
		*context = dpc->deferred_context;
		*arg1 = dpc->system_argument1;
		*arg2 = dpc->system_argument2;
	}
	return (struct kd_obj *)dpc;
}

static_assert(sizeof(struct kd_lookaside) >=
	      sizeof(struct win_general_lookaside));
static_assert(sizeof(struct kd_obj) >= sizeof(struct win_thread_object));

void kd_ExInitializeNPagedLookasideList(struct kd_lookaside *l, void *allocate,
					void *free, unsigned int size,
					unsigned int tag, void *def_alloc,
					void *def_free)
{
	win_lookaside_init((struct win_general_lookaside *)l, allocate, free,
			   size, tag, def_alloc, def_free);
}

void *kd_lookaside_drain(struct kd_lookaside *l)
{
	return win_lookaside_drain((struct win_general_lookaside *)l);
}

void kd_PsCreateSystemThread(struct kd_obj *t)
{
	win_thread_object_init((struct win_thread_object *)t);
}

void kd_PsTerminateSystemThread(struct kd_obj *t, int status)
{
	unsigned long flags;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	win_thread_object_exit((struct win_thread_object *)t, status);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	win_dispatch_wake();
}

int kd_thread_exit_status(struct kd_obj *t)
{
	return ((struct win_thread_object *)t)->exit_status;
}

int kd_ObfReferenceObject(struct kd_obj *t, int delta)
{
	return win_object_ref((struct win_thread_object *)t, delta);
}

int kd_priority_to_nice(int priority)
{
	return win_priority_to_nice(priority);
}

int kd_nice_to_priority(int nice)
{
	return win_nice_to_priority(nice);
}

static struct win_list_entry kd_work_items = { &kd_work_items,
					       &kd_work_items };

void kd_ExQueueWorkItem(void *item, void *routine, void *parameter)
{
	struct win_work_queue_item *w = item;

	w->worker_routine = routine;		/* ExInitializeWorkItem */
	w->parameter = parameter;
	win_list_insert_tail(&kd_work_items, &w->list);
}

void *kd_work_take(void **routine, void **parameter)
{
	struct win_work_queue_item *w;

	w = (struct win_work_queue_item *)win_list_remove_head(&kd_work_items);
	if (w) {
		*routine = w->worker_routine;
		*parameter = w->parameter;
	}
	return w;
}

unsigned long long kd_KeQueryTickCount(unsigned long long interrupt_time)
{
	return win_tick_count(interrupt_time);
}

unsigned long long kd_KeQueryPerformanceCounter(unsigned long long ns,
						long long *frequency)
{
	*frequency = WIN_PERFORMANCE_FREQUENCY;
	return win_performance_count(ns);
}

long long kd_ExSystemTimeToLocalTime(long long system_time, int minutes_west)
{
	return win_local_time(system_time, minutes_west);
}

int kd_irql_change(int current_irql, int new_irql, int raise)
{
	return win_irql_change(current_irql, new_irql, raise);
}
