// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's interlocked operations: the Interlocked*
 * counters, lists guarded by the caller's spin lock (ExInterlocked* and
 * their i386 fastcall Exf* forms), and SLists (ntos_list.h has their
 * layout and operations).
 *
 * The list functions take the caller's KSPIN_LOCK with interrupts off,
 * as Windows does, so an ISR and a DPC may share a list. The SList
 * functions serialize on one lock of their own: Windows does it with a
 * compare-exchange of the whole header, which only the inline depth
 * readers see, and those read a consistent header either way. The
 * ExInterlocked SList forms' lock argument is therefore unused.
 */

#include <linux/irqflags.h>
#include <linux/spinlock.h>

#include "ntos_list.h"
#include "wincall.h"
#include "winexport.h"

static DEFINE_SPINLOCK(win_slist_lock);

/* -- counters --------------------------------------------------------- */

static WIN_FASTCALL s32 InterlockedIncrement(s32 *addend)
{
	return win_interlocked_add(addend, 1);
}
WIN_FUNC(InterlockedIncrement);

static WIN_FASTCALL s32 InterlockedDecrement(s32 *addend)
{
	return win_interlocked_add(addend, -1);
}
WIN_FUNC(InterlockedDecrement);

static WIN_FASTCALL s32 InterlockedExchange(s32 *target, s32 value)
{
	return win_interlocked_exchange(target, value);
}
WIN_FUNC(InterlockedExchange);

static WIN_FASTCALL s32 InterlockedCompareExchange(s32 *dest, s32 exchange,
						   s32 comparand)
{
	return win_interlocked_cmpxchg(dest, exchange, comparand);
}
WIN_FUNC(InterlockedCompareExchange);

/* A LARGE_INTEGER counter: 64-bit add, atomic against other adders. */
static WIN_FASTCALL void ExInterlockedAddLargeStatistic(s64 *addend,
							u32 increment)
{
	win_interlocked_add64(addend, increment);
}
WIN_FUNC(ExInterlockedAddLargeStatistic);

/* -- lists under the caller's lock ------------------------------------ */

#define WIN_LOCKED(lock, expr) ({					\
	unsigned long flags__;						\
	typeof(expr) ret__;						\
									\
	local_irq_save(flags__);					\
	win_spin_acquire(lock);						\
	ret__ = (expr);							\
	win_spin_release(lock);						\
	local_irq_restore(flags__);					\
	ret__;								\
})

static WIN_FASTCALL struct win_list_entry *
ExfInterlockedInsertHeadList(struct win_list_entry *head,
			     struct win_list_entry *e, unsigned long *lock)
{
	return WIN_LOCKED(lock, win_list_insert_head(head, e));
}
WIN_FUNC(ExfInterlockedInsertHeadList);

static WIN_ABI struct win_list_entry *
ExInterlockedInsertHeadList(struct win_list_entry *head,
			    struct win_list_entry *e, unsigned long *lock)
{
	return WIN_LOCKED(lock, win_list_insert_head(head, e));
}
WIN_FUNC(ExInterlockedInsertHeadList);

static WIN_FASTCALL struct win_list_entry *
ExfInterlockedInsertTailList(struct win_list_entry *head,
			     struct win_list_entry *e, unsigned long *lock)
{
	return WIN_LOCKED(lock, win_list_insert_tail(head, e));
}
WIN_FUNC(ExfInterlockedInsertTailList);

static WIN_ABI struct win_list_entry *
ExInterlockedInsertTailList(struct win_list_entry *head,
			    struct win_list_entry *e, unsigned long *lock)
{
	return WIN_LOCKED(lock, win_list_insert_tail(head, e));
}
WIN_FUNC(ExInterlockedInsertTailList);

static WIN_FASTCALL struct win_list_entry *
ExfInterlockedRemoveHeadList(struct win_list_entry *head, unsigned long *lock)
{
	return WIN_LOCKED(lock, win_list_remove_head(head));
}
WIN_FUNC(ExfInterlockedRemoveHeadList);

static WIN_ABI struct win_list_entry *
ExInterlockedRemoveHeadList(struct win_list_entry *head, unsigned long *lock)
{
	return WIN_LOCKED(lock, win_list_remove_head(head));
}
WIN_FUNC(ExInterlockedRemoveHeadList);

static WIN_FASTCALL struct win_list_entry *
ExfInterlockedRemoveTailList(struct win_list_entry *head, unsigned long *lock)
{
	return WIN_LOCKED(lock, win_list_remove_tail(head));
}
WIN_FUNC(ExfInterlockedRemoveTailList);

static WIN_ABI struct win_list_entry *
ExInterlockedRemoveTailList(struct win_list_entry *head, unsigned long *lock)
{
	return WIN_LOCKED(lock, win_list_remove_tail(head));
}
WIN_FUNC(ExInterlockedRemoveTailList);

/* -- SLists ----------------------------------------------------------- */

static struct win_slist_entry *win_slist_push_locked(struct win_slist_header *h,
						     struct win_slist_entry *e)
{
	struct win_slist_entry *first;
	unsigned long flags;

	spin_lock_irqsave(&win_slist_lock, flags);
	first = win_slist_push(h, e);
	spin_unlock_irqrestore(&win_slist_lock, flags);
	return first;
}

static struct win_slist_entry *win_slist_pop_locked(struct win_slist_header *h)
{
	struct win_slist_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&win_slist_lock, flags);
	e = win_slist_pop(h);
	spin_unlock_irqrestore(&win_slist_lock, flags);
	return e;
}

/* A function in ntoskrnl.exe though the DDK has a macro for it too. */
static WIN_ABI void InitializeSListHead(struct win_slist_header *h)
{
	win_slist_init(h);
}
WIN_FUNC(InitializeSListHead);

static WIN_ABI struct win_slist_entry *
ExInterlockedPushEntrySList(struct win_slist_header *h,
			    struct win_slist_entry *e, unsigned long *lock)
{
	return win_slist_push_locked(h, e);
}
WIN_FUNC(ExInterlockedPushEntrySList);

static WIN_FASTCALL struct win_slist_entry *
ExpInterlockedPushEntrySList(struct win_slist_header *h,
			     struct win_slist_entry *e)
{
	return win_slist_push_locked(h, e);
}
WIN_FUNC(ExpInterlockedPushEntrySList);

static WIN_FASTCALL struct win_slist_entry *
InterlockedPushEntrySList(struct win_slist_header *h,
			  struct win_slist_entry *e)
{
	return win_slist_push_locked(h, e);
}
WIN_FUNC(InterlockedPushEntrySList);

static WIN_ABI struct win_slist_entry *
ExInterlockedPopEntrySList(struct win_slist_header *h, unsigned long *lock)
{
	return win_slist_pop_locked(h);
}
WIN_FUNC(ExInterlockedPopEntrySList);

static WIN_FASTCALL struct win_slist_entry *
ExpInterlockedPopEntrySList(struct win_slist_header *h)
{
	return win_slist_pop_locked(h);
}
WIN_FUNC(ExpInterlockedPopEntrySList);

static WIN_FASTCALL struct win_slist_entry *
InterlockedPopEntrySList(struct win_slist_header *h)
{
	return win_slist_pop_locked(h);
}
WIN_FUNC(InterlockedPopEntrySList);

static WIN_ABI u16 ExQueryDepthSList(struct win_slist_header *h)
{
	return win_slist_depth(h);
}
WIN_FUNC(ExQueryDepthSList);
