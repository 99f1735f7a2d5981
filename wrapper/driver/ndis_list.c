// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's interlocked counters and the doubly linked
 * LIST_ENTRY queues guarded by the driver's NDIS_SPIN_LOCK.
 */

#include <linux/types.h>

#include "ndis_spinlock.h"
#include "wdm.h"
#include "winexport.h"

/*
 * The LONG is the driver's own storage, not an atomic_t: the compiler's
 * atomic builtins (a locked xadd on x86) act on it where it is, and wrap
 * as LONG arithmetic does.
 */
static WIN_ABI s32 NdisInterlockedIncrement(s32 *addend)
{
	return __atomic_add_fetch(addend, 1, __ATOMIC_SEQ_CST);
}
WIN_FUNC(NdisInterlockedIncrement);

static WIN_ABI s32 NdisInterlockedDecrement(s32 *addend)
{
	return __atomic_sub_fetch(addend, 1, __ATOMIC_SEQ_CST);
}
WIN_FUNC(NdisInterlockedDecrement);

/* The head's neighbour, or NULL for the empty list. */
static struct win_list_entry *ndis_list_entry(struct win_list_entry *head,
					      struct win_list_entry *e)
{
	return e == head ? NULL : e;
}

/* Returns the entry that was first before. */
static WIN_ABI struct win_list_entry *
NdisInterlockedInsertHeadList(struct win_list_entry *head,
			      struct win_list_entry *entry,
			      struct ndis_spin_lock *sl)
{
	struct win_list_entry *first;

	ndis_spin_lock_acquire(sl);
	first = head->flink;
	entry->flink = first;
	entry->blink = head;
	first->blink = entry;
	head->flink = entry;
	ndis_spin_lock_release(sl);
	return ndis_list_entry(head, first);
}
WIN_FUNC(NdisInterlockedInsertHeadList);

/* Returns the entry that was last before. */
static WIN_ABI struct win_list_entry *
NdisInterlockedInsertTailList(struct win_list_entry *head,
			      struct win_list_entry *entry,
			      struct ndis_spin_lock *sl)
{
	struct win_list_entry *last;

	ndis_spin_lock_acquire(sl);
	last = head->blink;
	entry->flink = head;
	entry->blink = last;
	last->flink = entry;
	head->blink = entry;
	ndis_spin_lock_release(sl);
	return ndis_list_entry(head, last);
}
WIN_FUNC(NdisInterlockedInsertTailList);

static WIN_ABI struct win_list_entry *
NdisInterlockedRemoveHeadList(struct win_list_entry *head,
			      struct ndis_spin_lock *sl)
{
	struct win_list_entry *first;

	ndis_spin_lock_acquire(sl);
	first = head->flink;
	if (first != head) {
		head->flink = first->flink;
		first->flink->blink = head;
	}
	ndis_spin_lock_release(sl);
	return ndis_list_entry(head, first);
}
WIN_FUNC(NdisInterlockedRemoveHeadList);
