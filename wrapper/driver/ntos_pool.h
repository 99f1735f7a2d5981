/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: NPAGED_LOOKASIDE_LIST as ntos_pool.c exports it, laid out
 * for the DDK's inline ExAllocateFromNPagedLookasideList and
 * ExFreeToNPagedLookasideList, which the driver compiles in: they pop
 * and push L.ListHead (an SList, ntos_list.h) and call L.Allocate and
 * L.Free themselves when the list is empty or deeper than L.Depth, so
 * both must point at functions even when the driver passed none.
 * Kernel-independent, so the unit tests build it against kmock.
 */

#ifndef NDIS_NTOS_POOL_H
#define NDIS_NTOS_POOL_H

#include "ntos_list.h"

#define WIN_LOOKASIDE_DEPTH		4
#define WIN_LOOKASIDE_MAXIMUM_DEPTH	256

struct win_general_lookaside {
	struct win_slist_header list_head;
	u16 depth;
	u16 maximum_depth;
	u32 total_allocates;
	u32 allocate_misses;
	u32 total_frees;
	u32 free_misses;
	u32 type;
	u32 tag;
	u32 size;
	void *allocate;			/* PVOID (*)(POOL_TYPE, SIZE_T, ULONG) */
	void *free;			/* VOID (*)(PVOID) */
	struct win_list_entry list_entry;
	u32 last_total_allocates;
	u32 last_allocate_misses;
	u32 future[2];
};
static_assert(offsetof(struct win_general_lookaside, depth) ==
	      WIN_LAYOUT(0x10, 0x08));
static_assert(offsetof(struct win_general_lookaside, size) ==
	      WIN_LAYOUT(0x2c, 0x24));
static_assert(offsetof(struct win_general_lookaside, allocate) ==
	      WIN_LAYOUT(0x30, 0x28));
static_assert(offsetof(struct win_general_lookaside, free) ==
	      WIN_LAYOUT(0x38, 0x2c));
static_assert(sizeof(struct win_general_lookaside) == WIN_LAYOUT(0x60, 0x48));

/*
 * The driver's Allocate and Free if it gave them, else @def_alloc and
 * @def_free (the pool's own).
 */
static inline void win_lookaside_init(struct win_general_lookaside *l,
				      void *allocate, void *free, u32 size,
				      u32 tag, void *def_alloc, void *def_free)
{
	memset(l, 0, sizeof(*l));
	l->depth = WIN_LOOKASIDE_DEPTH;
	l->maximum_depth = WIN_LOOKASIDE_MAXIMUM_DEPTH;
	l->type = 0;			/* NonPagedPool */
	l->tag = tag;
	l->size = size;
	l->allocate = allocate ? allocate : def_alloc;
	l->free = free ? free : def_free;
	l->list_entry.flink = &l->list_entry;
	l->list_entry.blink = &l->list_entry;
}

/* ExDeleteNPagedLookasideList: the next cached entry to give to L.Free. */
static inline void *win_lookaside_drain(struct win_general_lookaside *l)
{
	return win_slist_pop(&l->list_head);
}

#endif /* NDIS_NTOS_POOL_H */
