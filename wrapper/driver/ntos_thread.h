/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: system threads, work items and object references as
 * ntos_thread.c exports them: the state changes, kernel-independent so
 * the unit tests build them against kmock (tests/unit/c/kntos.c).
 *
 * From the WDK: PsCreateSystemThread gives a handle; the driver turns it
 * into the thread object with ObReferenceObjectByHandle and may wait on
 * that object, which is signalled when the thread ends (its routine
 * returns or it calls PsTerminateSystemThread), then drops it with
 * ObDereferenceObject. Here the handle is the object's address, and an
 * object lives while references remain: the handle's, the running
 * thread's, and each ObReferenceObject*'s.
 *
 * A WORK_QUEUE_ITEM (ExInitializeWorkItem is a macro that fills it) is
 * queued through its own List entry and run once at PASSIVE_LEVEL.
 *
 * Priorities: Windows' 1-15 are the variable range around 8 (normal),
 * 16-31 real time; here 8 is nice 0 and each step two nice levels, and
 * real time is the highest nice level (no real-time class is taken).
 */

#ifndef NDIS_NTOS_THREAD_H
#define NDIS_NTOS_THREAD_H

#include "ntos_dispatch.h"

#define WIN_NORMAL_PRIORITY		8
#define WIN_LOW_REALTIME_PRIORITY	16

struct win_thread_object {
	struct win_dispatcher_header header;	/* signalled at its end */
	s32 refs;				/* under win_dispatch_lock */
	s32 exit_status;
};

struct win_work_queue_item {
	struct win_list_entry list;
	void *worker_routine;
	void *parameter;
};
static_assert(offsetof(struct win_work_queue_item, worker_routine) ==
	      WIN_LAYOUT(0x10, 0x08));

/* A new thread object: the handle's reference and the thread's. */
static inline void win_thread_object_init(struct win_thread_object *t)
{
	memset(t, 0, sizeof(*t));
	win_dispatch_init_header(&t->header, WIN_THREAD_OBJECT, sizeof(*t), 0);
	t->refs = 2;
}

/* Under win_dispatch_lock: the thread ended (the caller wakes waiters). */
static inline void win_thread_object_exit(struct win_thread_object *t,
					  s32 status)
{
	t->exit_status = status;
	t->header.signal_state = 1;
}

/* Under win_dispatch_lock: the references left (free it at 0). */
static inline s32 win_object_ref(struct win_thread_object *t, s32 delta)
{
	t->refs += delta;
	return t->refs;
}

static inline s32 win_priority_to_nice(s32 priority)
{
	s32 nice;

	if (priority >= WIN_LOW_REALTIME_PRIORITY)
		return -20;
	nice = (WIN_NORMAL_PRIORITY - priority) * 2;
	return nice < -20 ? -20 : nice > 19 ? 19 : nice;
}

static inline s32 win_nice_to_priority(s32 nice)
{
	s32 priority = WIN_NORMAL_PRIORITY - nice / 2;

	return priority < 1 ? 1 : priority > 15 ? 15 : priority;
}

#endif /* NDIS_NTOS_THREAD_H */
