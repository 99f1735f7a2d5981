// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's pool and lookaside lists beyond
 * ExAllocatePoolWithTag/ExFreePoolWithTag (ntoskrnl.c): ExFreePool and
 * the nonpaged lookaside lists (ntos_pool.h has their layout).
 */

#include <linux/string.h>

#include "ndis_core.h"
#include "ntos_pool.h"
#include "wincall.h"
#include "winexport.h"

static WIN_ABI void ExFreePool(void *ptr)
{
	win_free(ptr);
}
WIN_FUNC(ExFreePool);

/*
 * A lookaside list's default Allocate: pool charged to the driver the
 * inline ExAllocateFromNPagedLookasideList runs in (its return address).
 */
static WIN_ABI void *win_lookaside_alloc(u32 pool_type, size_t size, u32 tag)
{
	struct ndis_driver *drv;

	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	return drv ? win_alloc(drv, size) : NULL;
}

static WIN_ABI void win_lookaside_free(void *ptr)
{
	win_free(ptr);
}

static WIN_ABI void
ExInitializeNPagedLookasideList(struct win_general_lookaside *l,
				void *allocate, void *free, u32 flags,
				size_t size, u32 tag, u16 depth)
{
	win_lookaside_init(l, allocate, free, size, tag, win_lookaside_alloc,
			   win_lookaside_free);
}
WIN_FUNC(ExInitializeNPagedLookasideList);

/* The cached entries go back through L.Free (the driver's, if any). */
static WIN_ABI void
ExDeleteNPagedLookasideList(struct win_general_lookaside *l)
{
	void *entry;

	while ((entry = win_lookaside_drain(l)))
		LIN2WIN1(l->free, entry);
}
WIN_FUNC(ExDeleteNPagedLookasideList);
