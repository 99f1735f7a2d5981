/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the SCATTER_GATHER_LIST a miniport that called
 * NdisMInitializeScatterGatherDma finds in a send packet's per-packet
 * info (ScatterGatherListPacketInfo), built from the packet's DMA
 * mappings. Each mapping is one bus-address range (the skb's linear part,
 * each page fragment); a range longer than the driver's
 * MaximumPhysicalMapping is cut into elements of at most that many bytes.
 * No kernel needed: tests/unit/c checks it against kmock.
 */

#ifndef NDIS_SG_H
#define NDIS_SG_H

#include <linux/types.h>

#include "wintypes.h"

/* Elements a range of len bytes takes (0: none for an empty range). */
static inline u32 ndis_sg_elements(u32 len, u32 max_len)
{
	if (!max_len)
		return len ? 1 : 0;
	return len / max_len + (len % max_len ? 1 : 0);
}

/*
 * Appends the range [addr, addr + len) to list (room for max_elements),
 * cut at max_len bytes (0: no limit). Returns false when it does not fit;
 * then the list is unchanged.
 */
static inline bool ndis_sg_append(struct win_sg_list *list, u32 max_elements,
				  u64 addr, u32 len, u32 max_len)
{
	u32 n = ndis_sg_elements(len, max_len);

	if (n > max_elements || list->count > max_elements - n)
		return false;
	while (len) {
		struct win_sg_element *el = &list->elements[list->count++];
		u32 take = max_len && len > max_len ? max_len : len;

		el->address = addr;
		el->length = take;
		el->reserved = 0;
		addr += take;
		len -= take;
	}
	return true;
}

#endif /* NDIS_SG_H */
