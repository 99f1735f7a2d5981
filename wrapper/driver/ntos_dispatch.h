/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the dispatcher objects (events, mutexes, semaphores) and
 * the wait on one or several of them, as ntos_sync.c exports them.
 * Kernel-independent apart from one spin lock and one wait queue, so the
 * unit tests build it against kmock (tests/unit/c/kdriver.c) and wait on
 * it from real threads.
 *
 * From the WDK's description of the objects: every object starts with a
 * DISPATCHER_HEADER whose Type says what it is and whose SignalState is
 * its state. An event is signalled at nonzero; a synchronization event is
 * reset by the wait it satisfies, a notification event stays set. A
 * mutex (KMUTEX, a "mutant") is free at SignalState 1 and may be taken
 * again by its owner thread, each take lowering SignalState, each release
 * raising it; it is free again at 1. A semaphore is signalled while its
 * count (SignalState) is positive, each satisfied wait takes one, a
 * release adds up to its Limit. A wait on several objects is satisfied by
 * any one of them (WaitAny: the lowest index, its status STATUS_WAIT_0 +
 * index) or only by all at once (WaitAll: STATUS_WAIT_0), and takes what
 * it consumes atomically.
 *
 * All state changes happen under one lock (win_dispatch_lock); every
 * change that can satisfy a wait wakes every waiter, which re-checks.
 */

#ifndef NDIS_NTOS_DISPATCH_H
#define NDIS_NTOS_DISPATCH_H

#include <linux/math64.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "wdm.h"

/* DISPATCHER_HEADER.Type (the WDK's KOBJECTS). */
#define WIN_MUTANT_OBJECT		2
#define WIN_SEMAPHORE_OBJECT		5
#define WIN_THREAD_OBJECT		6
#define WIN_NOTIFICATION_TIMER		8
#define WIN_SYNCHRONIZATION_TIMER	9

#define STATUS_WAIT_0			0x00000000
#define STATUS_ABANDONED_WAIT_0		0x00000080
#define STATUS_SEMAPHORE_LIMIT_EXCEEDED	0xC0000047
#define STATUS_MUTANT_NOT_OWNED		0xC0000046

/* WAIT_TYPE */
#define WIN_WAIT_ALL			0
#define WIN_WAIT_ANY			1

/* THREAD_WAIT_OBJECTS: a wait on more needs the caller's wait blocks. */
#define WIN_THREAD_WAIT_OBJECTS		3
#define WIN_MAXIMUM_WAIT_OBJECTS	64

struct win_kmutex {
	struct win_dispatcher_header header;
	struct win_list_entry mutant_list_entry;
	void *owner_thread;
	u8 abandoned;
	u8 apc_disable;
};
static_assert(offsetof(struct win_kmutex, owner_thread) ==
	      WIN_LAYOUT(0x28, 0x18));
static_assert(sizeof(struct win_kmutex) == WIN_LAYOUT(0x38, 0x20));

struct win_ksemaphore {
	struct win_dispatcher_header header;
	s32 limit;
};
static_assert(offsetof(struct win_ksemaphore, limit) ==
	      WIN_LAYOUT(0x18, 0x10));
static_assert(sizeof(struct win_ksemaphore) == WIN_LAYOUT(0x20, 0x14));

/* The lock and queue every dispatcher object shares (ntos_sync.c). */
extern spinlock_t win_dispatch_lock;
extern struct wait_queue_head win_dispatch_wq;

static inline void win_dispatch_init_header(struct win_dispatcher_header *h,
					    u8 type, u8 size_bytes,
					    s32 state)
{
	h->type = type;
	h->signalling = 0;
	h->size = size_bytes / sizeof(u32);
	h->reserved = 0;
	h->signal_state = state;
	h->wait_list_head.flink = &h->wait_list_head;
	h->wait_list_head.blink = &h->wait_list_head;
}

static inline void win_dispatch_init_event(struct win_kevent *ev, u32 type,
					   u8 state)
{
	memset(ev, 0, sizeof(*ev));
	win_dispatch_init_header(&ev->header, type, sizeof(*ev), state ? 1 : 0);
}

/* A KMUTEX starts free (SignalState 1), with no owner. */
static inline void win_dispatch_init_mutex(struct win_kmutex *m)
{
	memset(m, 0, sizeof(*m));
	win_dispatch_init_header(&m->header, WIN_MUTANT_OBJECT, sizeof(*m), 1);
	m->mutant_list_entry.flink = &m->mutant_list_entry;
	m->mutant_list_entry.blink = &m->mutant_list_entry;
}

static inline void win_dispatch_init_semaphore(struct win_ksemaphore *s,
					       s32 count, s32 limit)
{
	memset(s, 0, sizeof(*s));
	win_dispatch_init_header(&s->header, WIN_SEMAPHORE_OBJECT, sizeof(*s),
				 count);
	s->limit = limit;
}

static inline bool win_dispatch_known(const struct win_dispatcher_header *h)
{
	switch (h->type) {
	case WIN_NOTIFICATION_EVENT:
	case WIN_SYNCHRONIZATION_EVENT:
	case WIN_MUTANT_OBJECT:
	case WIN_SEMAPHORE_OBJECT:
	case WIN_NOTIFICATION_TIMER:
	case WIN_SYNCHRONIZATION_TIMER:
	case WIN_THREAD_OBJECT:
		return true;
	}
	return false;
}

/* Under win_dispatch_lock: would a wait by @thread be satisfied now? */
static inline bool win_dispatch_ready(const struct win_dispatcher_header *h,
				      const void *thread)
{
	if (h->type == WIN_MUTANT_OBJECT)
		return h->signal_state > 0 ||
		       ((const struct win_kmutex *)h)->owner_thread == thread;
	return h->signal_state > 0;
}

/* Under win_dispatch_lock: what a satisfied wait does to the object. */
static inline void win_dispatch_consume(struct win_dispatcher_header *h,
					void *thread)
{
	switch (h->type) {
	case WIN_SYNCHRONIZATION_EVENT:
	case WIN_SYNCHRONIZATION_TIMER:
		h->signal_state = 0;
		break;
	case WIN_SEMAPHORE_OBJECT:
		h->signal_state--;
		break;
	case WIN_MUTANT_OBJECT:
		h->signal_state--;
		((struct win_kmutex *)h)->owner_thread = thread;
		break;
	}
}

/*
 * Under win_dispatch_lock: satisfies the wait if it can. The status of a
 * satisfied wait, or -1.
 */
static inline s32 win_dispatch_try(struct win_dispatcher_header **objs,
				   u32 count, u32 wait_type, void *thread)
{
	u32 i;

	if (wait_type == WIN_WAIT_ANY) {
		for (i = 0; i < count; i++)
			if (win_dispatch_ready(objs[i], thread)) {
				win_dispatch_consume(objs[i], thread);
				return STATUS_WAIT_0 + i;
			}
		return -1;
	}
	for (i = 0; i < count; i++)
		if (!win_dispatch_ready(objs[i], thread))
			return -1;
	for (i = 0; i < count; i++)
		win_dispatch_consume(objs[i], thread);
	return STATUS_WAIT_0;
}

struct win_dispatch_wait {
	struct win_dispatcher_header **objs;
	u32 count;
	u32 wait_type;
	void *thread;
	s32 status;
};

static inline bool win_dispatch_try_locked(struct win_dispatch_wait *w)
{
	unsigned long flags;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	w->status = win_dispatch_try(w->objs, w->count, w->wait_type,
				     w->thread);
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return w->status >= 0;
}

/*
 * Sleeps (up to @timeout jiffies, or MAX_SCHEDULE_TIMEOUT) until the wait
 * is satisfied: its status, or STATUS_TIMEOUT.
 */
static inline s32 win_dispatch_wait(struct win_dispatch_wait *w, long timeout)
{
	if (!wait_event_timeout(win_dispatch_wq, win_dispatch_try_locked(w),
				timeout))
		return STATUS_TIMEOUT;
	return w->status;
}

/* Any change that may satisfy a wait: every waiter checks again. */
static inline void win_dispatch_wake(void)
{
	wake_up_all(&win_dispatch_wq);
}

/* KeSetEvent: the previous state. */
static inline s32 win_dispatch_set_event(struct win_kevent *ev)
{
	unsigned long flags;
	s32 old;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	old = ev->header.signal_state;
	ev->header.signal_state = 1;
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	win_dispatch_wake();
	return old;
}

/* KeResetEvent / KeClearEvent: the previous state. */
static inline s32 win_dispatch_reset_event(struct win_kevent *ev)
{
	unsigned long flags;
	s32 old;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	old = ev->header.signal_state;
	ev->header.signal_state = 0;
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	return old;
}

/*
 * KeReleaseMutex by @thread: the previous state, or
 * STATUS_MUTANT_NOT_OWNED (state unchanged) when @thread does not own it.
 */
static inline s32 win_dispatch_release_mutex(struct win_kmutex *m,
					     void *thread)
{
	unsigned long flags;
	bool freed;
	s32 old;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	old = m->header.signal_state;
	if (old > 0 || m->owner_thread != thread) {
		spin_unlock_irqrestore(&win_dispatch_lock, flags);
		return (s32)STATUS_MUTANT_NOT_OWNED;
	}
	freed = ++m->header.signal_state == 1;
	if (freed)
		m->owner_thread = NULL;
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	if (freed)
		win_dispatch_wake();
	return old;
}

/*
 * KeReleaseSemaphore: the previous count, or
 * STATUS_SEMAPHORE_LIMIT_EXCEEDED (count unchanged) when it would pass
 * the limit (Windows raises that as an exception).
 */
static inline s32 win_dispatch_release_semaphore(struct win_ksemaphore *s,
						 s32 adjustment)
{
	unsigned long flags;
	s32 old;

	spin_lock_irqsave(&win_dispatch_lock, flags);
	old = s->header.signal_state;
	if (adjustment <= 0 || old > s->limit - adjustment) {
		spin_unlock_irqrestore(&win_dispatch_lock, flags);
		return (s32)STATUS_SEMAPHORE_LIMIT_EXCEEDED;
	}
	s->header.signal_state = old + adjustment;
	spin_unlock_irqrestore(&win_dispatch_lock, flags);
	win_dispatch_wake();
	return old;
}

/*
 * A wait's timeout (100 ns units: negative relative, positive absolute
 * system time, which @now is) as whole milliseconds, rounded up: -1 when
 * it has already passed.
 */
static inline s64 win_dispatch_timeout_ms(s64 t100, s64 now)
{
	if (t100 > 0)
		t100 = now - t100;
	if (t100 >= 0)
		return -1;
	return div_u64((u64)-t100 + 9999, 10000);
}

#endif /* NDIS_NTOS_DISPATCH_H */
