/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the OID_TCP_TASK_OFFLOAD buffers of NDIS 5.1 (offload.c
 * asks and sets with them). A query's buffer starts with the caller's
 * NDIS_TASK_OFFLOAD_HEADER (version, the 802.3 encapsulation and its
 * header size); the miniport follows it with a chain of NDIS_TASK_OFFLOAD
 * blocks, each a task and its parameters, OffsetFirstTask (from the
 * buffer's start) and each OffsetNextTask (from that block's start)
 * leading to the next, 0 ending it. No kernel needed: tests/unit/c checks
 * the walk against kmock.
 */

#ifndef NDIS_OFFLOAD_H
#define NDIS_OFFLOAD_H

#include <linux/types.h>

#define OID_TCP_TASK_OFFLOAD		0xFC010201
#define NDIS_TASK_OFFLOAD_VERSION	1
#define NDIS_IEEE_802_3_ENCAPSULATION	2	/* NDIS_ENCAPSULATION */
#define NDIS_ENCAPSULATION_FIXED_HEADER	1	/* Flags.FixedHeaderSize */
#define NDIS_TASK_TCPIP_CHECKSUM	0	/* TcpIpChecksumNdisTask */

/* NDIS_TASK_TCP_IP_CHECKSUM's V4Transmit bits */
#define NDIS_V4TX_IP_OPTIONS	0x01
#define NDIS_V4TX_TCP_OPTIONS	0x02
#define NDIS_V4TX_TCP		0x04
#define NDIS_V4TX_UDP		0x08

/* NDIS_TCP_IP_CHECKSUM_PACKET_INFO's Transmit bits */
#define NDIS_CSUM_V4		0x01
#define NDIS_CSUM_TCP		0x04
#define NDIS_CSUM_UDP		0x08

/* The layouts are the same on amd64 and i386: ULONGs and enums. */
struct ndis_task_offload_header {
	u32 version;
	u32 size;
	u32 reserved;
	u32 offset_first_task;
	u32 encapsulation;		/* NDIS_ENCAPSULATION_FORMAT */
	u32 encapsulation_flags;
	u32 encapsulation_header_size;
};

struct ndis_task_offload {
	u32 version;
	u32 size;			/* sizeof(NDIS_TASK_OFFLOAD) */
	u32 task;
	u32 offset_next_task;
	u32 task_buffer_length;
	u8 task_buffer[];
};
#define NDIS_TASK_OFFLOAD_SIZE	24	/* with TaskBuffer[1], padded */

/* NDIS_TASK_TCP_IP_CHECKSUM */
struct ndis_task_checksum {
	u32 v4_transmit;
	u32 v4_receive;
	u32 v6_transmit;
	u32 v6_receive;
};

#define NDIS_OFFLOAD_TASKS_MAX	16	/* a longer chain is not believed */

/* The header a query or set begins with: 802.3, 14-byte headers. */
static inline void ndis_offload_header(struct ndis_task_offload_header *h,
				       u32 eth_hlen)
{
	h->version = NDIS_TASK_OFFLOAD_VERSION;
	h->size = sizeof(*h);
	h->reserved = 0;
	h->offset_first_task = 0;
	h->encapsulation = NDIS_IEEE_802_3_ENCAPSULATION;
	h->encapsulation_flags = NDIS_ENCAPSULATION_FIXED_HEADER;
	h->encapsulation_header_size = eth_hlen;
}

/*
 * The V4Transmit bits of the checksum task in the written bytes of a
 * query's answer, or 0: no such task, or a chain that leaves the buffer,
 * points back into the header, is misaligned or too long.
 */
static inline u32 ndis_offload_offered(const u8 *buf, u32 written)
{
	const struct ndis_task_offload_header *h = (const void *)buf;
	u32 off, n, len, next;

	if (written < sizeof(*h))
		return 0;
	off = h->offset_first_task;
	for (n = 0; off && n < NDIS_OFFLOAD_TASKS_MAX; n++) {
		const struct ndis_task_offload *t;

		if (off < sizeof(*h) || off > written || (off & 3) ||
		    written - off < sizeof(*t))
			return 0;
		t = (const void *)(buf + off);
		len = t->task_buffer_length;
		if (written - off - sizeof(*t) < len)
			return 0;
		if (t->task == NDIS_TASK_TCPIP_CHECKSUM &&
		    len >= sizeof(struct ndis_task_checksum))
			return ((const struct ndis_task_checksum *)
				t->task_buffer)->v4_transmit;
		next = t->offset_next_task;
		if (!next || next > written - off)
			return 0;
		off += next;
	}
	return 0;
}

#endif /* NDIS_OFFLOAD_H */
