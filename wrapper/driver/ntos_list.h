/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the list and SList operations behind ntoskrnl.exe's
 * ExInterlocked* and InterlockedPush/PopEntrySList (ntos_list.c), which
 * adds the locking. Kernel-independent, so the unit tests build it
 * against kmock (tests/unit/c/kntos.c).
 *
 * LIST_ENTRY: a circular doubly linked list whose head is an entry; the
 * insert functions return the list's former first (or last) entry, or
 * NULL when it was empty; the remove functions the entry taken, or NULL.
 *
 * SLIST_HEADER, as the WDK lays it out for the inline readers
 * (ExQueryDepthSList and InitializeSListHead are macros on amd64):
 * i386, 8 bytes: the first entry's address, then Depth and Sequence
 * (16 bits each). amd64, 16 bytes (the "Header16" form): the first
 * quadword holds Depth (bits 0-15) and Sequence (16-63), the second
 * HeaderType (bit 0, set), Init (bit 1) and the first entry's address
 * shifted right by 4 (bits 4-63); entries are 16-byte aligned there.
 * An all-zero header (a zeroing InitializeSListHead macro's) is an empty
 * list too; the exported function sets HeaderType and Init on amd64.
 */

#ifndef NDIS_NTOS_LIST_H
#define NDIS_NTOS_LIST_H

#include <linux/types.h>

#include "wdm.h"

struct win_slist_entry {
	struct win_slist_entry *next;
};

struct win_slist_header {
	u64 words[WIN_LAYOUT(2, 1)];
};
static_assert(sizeof(struct win_slist_header) == WIN_LAYOUT(16, 8));

/* The Interlocked* counters: full barriers, as on Windows. */
static inline s32 win_interlocked_add(s32 *addend, s32 v)
{
	return __atomic_add_fetch(addend, v, __ATOMIC_SEQ_CST);
}

static inline s32 win_interlocked_exchange(s32 *target, s32 v)
{
	return __atomic_exchange_n(target, v, __ATOMIC_SEQ_CST);
}

/* The value before; @exchange stored only if that was @comparand. */
static inline s32 win_interlocked_cmpxchg(s32 *dest, s32 exchange,
					  s32 comparand)
{
	__atomic_compare_exchange_n(dest, &comparand, exchange, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return comparand;
}

/*
 * A LARGE_INTEGER add. i386 has no 64-bit atomic add, and gcc's builtin
 * for it there is a libatomic call the kernel lacks: a cmpxchg8b loop.
 */
static inline void win_interlocked_add64(s64 *addend, u32 increment)
{
#ifdef __x86_64__
	__atomic_add_fetch(addend, (s64)increment, __ATOMIC_SEQ_CST);
#else
	u64 old = *(volatile u64 *)addend, new;
	bool done;

	do {
		new = old + increment;
		asm volatile("lock cmpxchg8b %1\n\tsete %0"
			     : "=q" (done), "+m" (*addend), "+A" (old)
			     : "b" ((u32)new), "c" ((u32)(new >> 32))
			     : "memory");
	} while (!done);
#endif
}

static inline struct win_list_entry *
win_list_insert_head(struct win_list_entry *head, struct win_list_entry *e)
{
	struct win_list_entry *first = head->flink;

	e->flink = first;
	e->blink = head;
	first->blink = e;
	head->flink = e;
	return first == head ? NULL : first;
}

static inline struct win_list_entry *
win_list_insert_tail(struct win_list_entry *head, struct win_list_entry *e)
{
	struct win_list_entry *last = head->blink;

	e->flink = head;
	e->blink = last;
	last->flink = e;
	head->blink = e;
	return last == head ? NULL : last;
}

static inline struct win_list_entry *
win_list_unlink(struct win_list_entry *head, struct win_list_entry *e)
{
	if (e == head)
		return NULL;
	e->blink->flink = e->flink;
	e->flink->blink = e->blink;
	return e;
}

static inline struct win_list_entry *
win_list_remove_head(struct win_list_entry *head)
{
	return win_list_unlink(head, head->flink);
}

static inline struct win_list_entry *
win_list_remove_tail(struct win_list_entry *head)
{
	return win_list_unlink(head, head->blink);
}

/* -- SLists (the caller serializes) ------------------------------------ */

#ifdef __x86_64__
#define WIN_SLIST_TYPE_INIT	3ULL	/* HeaderType and Init */

static inline struct win_slist_entry *
win_slist_first(const struct win_slist_header *h)
{
	return (struct win_slist_entry *)(uintptr_t)((h->words[1] >> 4) << 4);
}

static inline u16 win_slist_depth(const struct win_slist_header *h)
{
	return (u16)h->words[0];
}

static inline void win_slist_set(struct win_slist_header *h,
				 struct win_slist_entry *first, u16 depth)
{
	u64 seq = (h->words[0] >> 16) + 1;

	h->words[0] = (seq << 16) | depth;
	h->words[1] = ((u64)(uintptr_t)first >> 4 << 4) | WIN_SLIST_TYPE_INIT;
}
#else
static inline struct win_slist_entry *
win_slist_first(const struct win_slist_header *h)
{
	return (struct win_slist_entry *)(uintptr_t)(u32)h->words[0];
}

static inline u16 win_slist_depth(const struct win_slist_header *h)
{
	return (u16)(h->words[0] >> 32);
}

static inline void win_slist_set(struct win_slist_header *h,
				 struct win_slist_entry *first, u16 depth)
{
	u64 seq = (u16)((h->words[0] >> 48) + 1);

	h->words[0] = (seq << 48) | ((u64)depth << 32) | (u32)(uintptr_t)first;
}
#endif

/* An empty list, as Windows' initializer leaves the header. */
static inline void win_slist_init(struct win_slist_header *h)
{
	h->words[0] = 0;
#ifdef __x86_64__
	h->words[1] = WIN_SLIST_TYPE_INIT;
#endif
}

/* Push: the former first entry, or NULL. */
static inline struct win_slist_entry *
win_slist_push(struct win_slist_header *h, struct win_slist_entry *e)
{
	struct win_slist_entry *first = win_slist_first(h);

	e->next = first;
	win_slist_set(h, e, win_slist_depth(h) + 1);
	return first;
}

/* Pop: the entry taken, or NULL when the list is empty. */
static inline struct win_slist_entry *
win_slist_pop(struct win_slist_header *h)
{
	struct win_slist_entry *first = win_slist_first(h);

	if (!first)
		return NULL;
	win_slist_set(h, first->next, win_slist_depth(h) - 1);
	return first;
}

#endif /* NDIS_NTOS_LIST_H */
