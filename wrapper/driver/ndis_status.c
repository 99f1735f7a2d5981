// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NdisMIndicateStatus and NdisMIndicateStatusComplete as
 * NDIS.SYS exports. The DDK's macros of the same names call the miniport
 * block's StatusHandler and StatusCompleteHandler (netdev.c fills them);
 * a driver that imports the functions gets the very same handlers.
 */

#include <linux/types.h>

#include "winexport.h"

typedef WIN_ABI void (*ndis_status_fn)(void *handle, ndis_status status,
				       void *buf, u32 len);
typedef WIN_ABI void (*ndis_status_complete_fn)(void *handle);

static WIN_ABI void NdisMIndicateStatus(struct ndis_miniport_block *block,
					ndis_status status, void *buf,
					u32 len)
{
	ndis_status_fn handler = block->status;

	handler(block, status, buf, len);
}
WIN_FUNC(NdisMIndicateStatus);

static WIN_ABI void
NdisMIndicateStatusComplete(struct ndis_miniport_block *block)
{
	ndis_status_complete_fn handler = block->status_complete;

	handler(block);
}
WIN_FUNC(NdisMIndicateStatusComplete);
