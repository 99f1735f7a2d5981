// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's NDIS_BUFFER (MDL) and packet chain queries.
 * The DDK makes several of them macros over the MDL's fields; NDIS.SYS
 * exports them all the same, and drivers built against older or
 * binary-compatible headers import them.
 */

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/page.h>

#include "winexport.h"

/*
 * The buffer's system address: every MDL the wrapper or a driver builds
 * over kernel memory is already mapped, so mapping it is recording the
 * address its page and offset give (as MmGetSystemAddressForMdl does).
 */
static void *ndis_buffer_va(struct win_mdl *mdl)
{
	if (mdl->flags & (MDL_MAPPED_TO_SYSTEM_VA |
			  MDL_SOURCE_IS_NONPAGED_POOL))
		return mdl->mapped_va;
	mdl->mapped_va = (u8 *)mdl->start_va + mdl->byte_offset;
	mdl->flags |= MDL_MAPPED_TO_SYSTEM_VA;
	return mdl->mapped_va;
}

/* VirtualAddress may be NULL: only the length is wanted. */
static WIN_ABI void NdisQueryBuffer(struct win_mdl *mdl, void **va, u32 *len)
{
	if (va)
		*va = ndis_buffer_va(mdl);
	*len = mdl->byte_count;
}
WIN_FUNC(NdisQueryBuffer);

/* Priority only says how hard a mapping may try: ours never fails. */
static WIN_ABI void NdisQueryBufferSafe(struct win_mdl *mdl, void **va,
					u32 *len, u32 priority)
{
	NdisQueryBuffer(mdl, va, len);
}
WIN_FUNC(NdisQueryBufferSafe);

static WIN_ABI void NdisQueryBufferOffset(struct win_mdl *mdl, u32 *offset,
					  u32 *len)
{
	*offset = mdl->byte_offset;
	*len = mdl->byte_count;
}
WIN_FUNC(NdisQueryBufferOffset);

static WIN_ABI u32 NdisBufferLength(struct win_mdl *mdl)
{
	return mdl->byte_count;
}
WIN_FUNC(NdisBufferLength);

static WIN_ABI void *NdisBufferVirtualAddress(struct win_mdl *mdl)
{
	return ndis_buffer_va(mdl);
}
WIN_FUNC(NdisBufferVirtualAddress);

/* The driver may shorten (or restore) what the buffer describes. */
static WIN_ABI void NdisAdjustBufferLength(struct win_mdl *mdl, u32 len)
{
	mdl->byte_count = len;
}
WIN_FUNC(NdisAdjustBufferLength);

/* The pages the buffer spans; an empty buffer counts one. */
static WIN_ABI void NdisGetBufferPhysicalArraySize(struct win_mdl *mdl,
						   u32 *pages)
{
	u64 end = (u64)(mdl->byte_offset & ~PAGE_MASK) + mdl->byte_count;

	*pages = mdl->byte_count ? DIV_ROUND_UP_ULL(end, PAGE_SIZE) : 1;
}
WIN_FUNC(NdisGetBufferPhysicalArraySize);

/*
 * The first buffer, its address and length, and the bytes of the whole
 * chain; a packet without buffers gives NULLs and zeros.
 */
static WIN_ABI void NdisGetFirstBufferFromPacket(struct ndis_packet *pkt,
						 struct win_mdl **first,
						 void **va, u32 *first_len,
						 u32 *total)
{
	struct win_mdl *mdl = pkt->head;
	u32 sum = 0;

	*first = mdl;
	*va = mdl ? ndis_buffer_va(mdl) : NULL;
	*first_len = mdl ? mdl->byte_count : 0;
	for (; mdl; mdl = mdl->next)
		sum += mdl->byte_count;
	*total = sum;
}
WIN_FUNC(NdisGetFirstBufferFromPacket);

static WIN_ABI void NdisGetFirstBufferFromPacketSafe(struct ndis_packet *pkt,
						     struct win_mdl **first,
						     void **va, u32 *first_len,
						     u32 *total, u32 priority)
{
	NdisGetFirstBufferFromPacket(pkt, first, va, first_len, total);
}
WIN_FUNC(NdisGetFirstBufferFromPacketSafe);

/* The last buffer off the chain (NULL when there is none). */
static WIN_ABI void NdisUnchainBufferAtBack(struct ndis_packet *pkt,
					    struct win_mdl **result)
{
	struct win_mdl *mdl = pkt->head, *prev = NULL;

	*result = NULL;
	if (!mdl)
		return;
	while (mdl->next) {
		prev = mdl;
		mdl = mdl->next;
	}
	if (prev)
		prev->next = NULL;
	else
		pkt->head = NULL;
	pkt->tail = prev;
	pkt->valid_counts = 0;
	*result = mdl;
}
WIN_FUNC(NdisUnchainBufferAtBack);

/* A position in a packet's buffer chain: the buffer and the byte in it. */
struct ndis_chain_pos {
	struct win_mdl *mdl;
	u32 off;
};

/* Skips offset bytes from the chain's start; false when it has fewer. */
static bool ndis_chain_seek(struct ndis_chain_pos *pos, struct win_mdl *head,
			    u32 offset)
{
	for (pos->mdl = head; pos->mdl; pos->mdl = pos->mdl->next) {
		if (offset < pos->mdl->byte_count) {
			pos->off = offset;
			return true;
		}
		offset -= pos->mdl->byte_count;
	}
	return false;
}

/* The contiguous bytes left at pos (moving past exhausted buffers). */
static u32 ndis_chain_span(struct ndis_chain_pos *pos)
{
	while (pos->mdl && pos->off >= pos->mdl->byte_count) {
		pos->mdl = pos->mdl->next;
		pos->off = 0;
	}
	return pos->mdl ? pos->mdl->byte_count - pos->off : 0;
}

/*
 * Copies up to count bytes between the two chains, from the offsets
 * given; *copied says how many the shorter side allowed.
 */
static WIN_ABI void NdisCopyFromPacketToPacket(struct ndis_packet *dst,
					       u32 dst_offset, u32 count,
					       struct ndis_packet *src,
					       u32 src_offset, u32 *copied)
{
	struct ndis_chain_pos d, s;
	u32 done = 0;

	if (ndis_chain_seek(&d, dst->head, dst_offset) &&
	    ndis_chain_seek(&s, src->head, src_offset)) {
		while (done < count) {
			u32 n = min3(ndis_chain_span(&d), ndis_chain_span(&s),
				     count - done);

			if (!n)
				break;
			memcpy((u8 *)ndis_buffer_va(d.mdl) + d.off,
			       (u8 *)ndis_buffer_va(s.mdl) + s.off, n);
			d.off += n;
			s.off += n;
			done += n;
		}
	}
	*copied = done;
}
WIN_FUNC(NdisCopyFromPacketToPacket);

static WIN_ABI void NdisCopyFromPacketToPacketSafe(struct ndis_packet *dst,
						   u32 dst_offset, u32 count,
						   struct ndis_packet *src,
						   u32 src_offset, u32 *copied,
						   u32 priority)
{
	NdisCopyFromPacketToPacket(dst, dst_offset, count, src, src_offset,
				   copied);
}
WIN_FUNC(NdisCopyFromPacketToPacketSafe);
