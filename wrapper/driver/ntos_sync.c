// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's dispatcher objects and waits: events,
 * mutexes, semaphores, KeWaitForSingleObject/KeWaitForMultipleObjects,
 * and KeDelayExecutionThread. The objects' rules are ntos_dispatch.h's
 * (unit-tested there); this file is the exports and the sleeping.
 *
 * A thread is identified by its task_struct: a mutex's owner is the task
 * that took it (KeGetCurrentThread in ntos_thread.c answers the same).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "ntos.h"
#include "ntos_dispatch.h"
#include "wincall.h"
#include "winexport.h"

DEFINE_SPINLOCK(win_dispatch_lock);
DECLARE_WAIT_QUEUE_HEAD(win_dispatch_wq);

u64 win_system_time(void)
{
	struct timespec64 now;

	ktime_get_real_ts64(&now);
	return now.tv_sec * 10000000ULL + now.tv_nsec / 100 + WIN_EPOCH_OFFSET;
}

bool win_timeout_jiffies(const s64 *timeout, long *jiffies)
{
	s64 ms;

	*jiffies = MAX_SCHEDULE_TIMEOUT;
	if (!timeout)
		return true;
	ms = win_dispatch_timeout_ms(*timeout, *timeout > 0 ?
				     (s64)win_system_time() : 0);
	if (ms < 0)
		return false;
	/* at most U32_MAX milliseconds; one more jiffy for the partial one */
	*jiffies = msecs_to_jiffies(min_t(u64, U32_MAX, ms)) + 1;
	return true;
}

/* -- events ----------------------------------------------------------- */

static WIN_ABI void KeInitializeEvent(struct win_kevent *ev, u32 type,
				      u8 state)
{
	win_dispatch_init_event(ev, type, state);
}
WIN_FUNC(KeInitializeEvent);

static WIN_ABI s32 KeSetEvent(struct win_kevent *ev, s32 increment, u8 wait)
{
	return win_dispatch_set_event(ev);
}
WIN_FUNC(KeSetEvent);

static WIN_ABI s32 KeResetEvent(struct win_kevent *ev)
{
	return win_dispatch_reset_event(ev);
}
WIN_FUNC(KeResetEvent);

static WIN_ABI void KeClearEvent(struct win_kevent *ev)
{
	win_dispatch_reset_event(ev);
}
WIN_FUNC(KeClearEvent);

static WIN_ABI s32 KeReadStateEvent(struct win_kevent *ev)
{
	return READ_ONCE(ev->header.signal_state);
}
WIN_FUNC(KeReadStateEvent);

/* -- mutexes and semaphores ------------------------------------------- */

/* The level is the deadlock checker's (Windows ignores it too). */
static WIN_ABI void KeInitializeMutex(struct win_kmutex *m, u32 level)
{
	win_dispatch_init_mutex(m);
}
WIN_FUNC(KeInitializeMutex);

static WIN_ABI s32 KeReleaseMutex(struct win_kmutex *m, u8 wait)
{
	s32 ret = win_dispatch_release_mutex(m, current);

	if (ret == (s32)STATUS_MUTANT_NOT_OWNED)
		pr_err_ratelimited("KeReleaseMutex: mutex %p not owned by the caller\n",
				   m);
	return ret;
}
WIN_FUNC(KeReleaseMutex);

static WIN_ABI void KeInitializeSemaphore(struct win_ksemaphore *s,
					  s32 count, s32 limit)
{
	win_dispatch_init_semaphore(s, count, limit);
}
WIN_FUNC(KeInitializeSemaphore);

static WIN_ABI s32 KeReleaseSemaphore(struct win_ksemaphore *s, s32 increment,
				      s32 adjustment, u8 wait)
{
	s32 ret = win_dispatch_release_semaphore(s, adjustment);

	if (ret == (s32)STATUS_SEMAPHORE_LIMIT_EXCEEDED)
		pr_err_ratelimited("KeReleaseSemaphore: %p released by %d past its limit %d\n",
				   s, adjustment, s->limit);
	return ret;
}
WIN_FUNC(KeReleaseSemaphore);

/* -- the waits ------------------------------------------------------- */

static long win_dispatch_sleep(void *arg, long timeout)
{
	struct win_dispatch_wait *w = arg;

	return win_dispatch_wait(w, timeout) == STATUS_TIMEOUT ? 0 : 1;
}

static s32 win_wait_objects(const char *who, struct win_dispatch_wait *w,
			    const s64 *timeout)
{
	unsigned long flags;
	long jiffies_left;
	s32 status;
	u32 i;

	for (i = 0; i < w->count; i++)
		if (!w->objs[i] || !win_dispatch_known(w->objs[i])) {
			pr_err("%s: object %u has type %u, not a dispatcher object the wrapper knows\n",
			       who, i, w->objs[i] ? w->objs[i]->type : 0xff);
			return STATUS_INVALID_PARAMETER;
		}
	spin_lock_irqsave(&win_dispatch_lock, flags);
	status = win_dispatch_try(w->objs, w->count, w->wait_type, w->thread);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	if (status >= 0)
		return status;
	if (!win_timeout_jiffies(timeout, &jiffies_left))
		return STATUS_TIMEOUT;
	if (!win_may_sleep()) {
		pr_err_ratelimited("%s at IRQL %u: a wait that cannot sleep, failed with STATUS_TIMEOUT\n",
				   who, win_current_irql());
		return STATUS_TIMEOUT;
	}
	if (!win_sleep_outside_fpu(win_dispatch_sleep, w, jiffies_left))
		return STATUS_TIMEOUT;
	return w->status;
}

static WIN_ABI s32 KeWaitForSingleObject(void *object, u32 reason, u8 mode,
					 u8 alertable, const s64 *timeout)
{
	struct win_dispatcher_header *objs[1] = { object };
	struct win_dispatch_wait w = {
		.objs = objs, .count = 1, .wait_type = WIN_WAIT_ANY,
		.thread = current,
	};

	return win_wait_objects("KeWaitForSingleObject", &w, timeout);
}
WIN_FUNC(KeWaitForSingleObject);

s32 ntos_wait_event(const char *who, struct win_kevent *ev)
{
	struct win_dispatcher_header *objs[1] = { &ev->header };
	struct win_dispatch_wait w = {
		.objs = objs, .count = 1, .wait_type = WIN_WAIT_ANY,
		.thread = current,
	};

	return win_wait_objects(who, &w, NULL);
}

/*
 * The wait blocks are the caller's scratch memory on Windows; the wrapper
 * needs none, but a wait on more than THREAD_WAIT_OBJECTS without them is
 * refused as Windows does (with a bug check there).
 */
static WIN_ABI s32 KeWaitForMultipleObjects(u32 count, void **objects,
					    u32 wait_type, u32 reason, u8 mode,
					    u8 alertable, const s64 *timeout,
					    void *wait_blocks)
{
	struct win_dispatch_wait w = {
		.objs = (struct win_dispatcher_header **)objects,
		.count = count, .wait_type = wait_type, .thread = current,
	};

	if (!count || count > WIN_MAXIMUM_WAIT_OBJECTS ||
	    (count > WIN_THREAD_WAIT_OBJECTS && !wait_blocks) ||
	    (wait_type != WIN_WAIT_ALL && wait_type != WIN_WAIT_ANY)) {
		pr_err("KeWaitForMultipleObjects: %u objects, wait type %u, wait blocks %p: refused\n",
		       count, wait_type, wait_blocks);
		return STATUS_INVALID_PARAMETER;
	}
	return win_wait_objects("KeWaitForMultipleObjects", &w, timeout);
}
WIN_FUNC(KeWaitForMultipleObjects);

static long win_delay_sleep(void *arg, long timeout)
{
	return schedule_timeout_uninterruptible(timeout);
}

/*
 * KeDelayExecutionThread: sleeps for the interval (same units as a
 * wait's timeout); at raised IRQL, where Windows would bug check, it
 * busy-waits up to a millisecond and refuses anything longer.
 */
static WIN_ABI s32 KeDelayExecutionThread(u8 mode, u8 alertable,
					  const s64 *interval)
{
	long jiffies_left;

	if (!interval)
		return STATUS_INVALID_PARAMETER;
	if (!win_timeout_jiffies(interval, &jiffies_left))
		return STATUS_SUCCESS;
	if (!win_may_sleep()) {
		if (*interval < 0 && *interval >= -10000) {
			udelay(div_u64(-*interval + 9, 10));
			return STATUS_SUCCESS;
		}
		pr_err_ratelimited("KeDelayExecutionThread at IRQL %u: cannot sleep\n",
				   win_current_irql());
		return STATUS_INVALID_PARAMETER;
	}
	win_sleep_outside_fpu(win_delay_sleep, NULL, jiffies_left);
	return STATUS_SUCCESS;
}
WIN_FUNC(KeDelayExecutionThread);
