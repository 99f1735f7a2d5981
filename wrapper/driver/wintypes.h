/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the Windows (amd64, LLP64) objects the wrapper shares with
 * a Windows NDIS 5.1 driver, laid out as the driver was compiled against.
 *
 * Field names follow Microsoft's NDIS/WDM reference in kernel style. The
 * offsets the fixture driver relies on (fixtures/README.md, "Miniport
 * block handlers" and "Other layouts the driver touches directly") are
 * pinned with static_assert below, so a layout mistake fails the build.
 */

#ifndef NDIS_WINTYPES_H
#define NDIS_WINTYPES_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

/* Every function Windows code calls, and every pointer we call, uses it. */
#define WIN_ABI __attribute__((ms_abi))

typedef s32 ndis_status;

#define NDIS_STATUS_SUCCESS		0x00000000
#define NDIS_STATUS_PENDING		0x00000103
#define NDIS_STATUS_MEDIA_CONNECT	0x4001000B
#define NDIS_STATUS_MEDIA_DISCONNECT	0x4001000C
#define NDIS_STATUS_RESET_START		0x40010004
#define NDIS_STATUS_RESET_END		0x40010005
#define NDIS_STATUS_MEDIA_SPECIFIC_INDICATION	0x40010012
#define NDIS_STATUS_LINK_SPEED_CHANGE	0x40010013
#define NDIS_STATUS_FAILURE		0xC0000001
#define NDIS_STATUS_RESOURCES		0xC000009A
#define NDIS_STATUS_NOT_SUPPORTED	0xC00000BB
#define NDIS_STATUS_BUFFER_TOO_SHORT	0xC0010016
#define NDIS_STATUS_INVALID_LENGTH	0xC0010014
#define NDIS_STATUS_INVALID_OID		0xC0010017
#define NDIS_STATUS_UNSUPPORTED_MEDIA	0xC0010019
#define NDIS_STATUS_FILE_NOT_FOUND	0xC001001B

#define NDIS_MEDIUM_802_3		0

#define NDIS_ATTRIBUTE_BUS_MASTER	0x00000008
#define NDIS_ATTRIBUTE_DESERIALIZE	0x00000020

struct win_unicode_string {
	u16 length;			/* bytes, no terminating NUL */
	u16 max_length;			/* bytes */
	u16 *buffer;
};
static_assert(sizeof(struct win_unicode_string) == 16);

/* KDPC and KTIMER only matter by size: drivers embed them. */
struct win_ktimer_kdpc {
	u8 ktimer[64];
	u8 kdpc[64];
};

/* Memory descriptor list = NDIS_BUFFER. */
struct win_mdl {
	struct win_mdl *next;
	s16 size;
	s16 flags;
	void *process;
	void *mapped_va;
	void *start_va;			/* page aligned */
	u32 byte_count;
	u32 byte_offset;
};
#define MDL_MAPPED_TO_SYSTEM_VA		0x0001
#define MDL_SOURCE_IS_NONPAGED_POOL	0x0004
static_assert(offsetof(struct win_mdl, flags) == 10);
static_assert(offsetof(struct win_mdl, mapped_va) == 24);
static_assert(offsetof(struct win_mdl, byte_count) == 40);
static_assert(sizeof(struct win_mdl) == 48);

struct ndis_packet_oob {
	u64 time_to_send;
	u64 time_received;
	u32 header_size;
	u32 media_specific_size;
	void *media_specific;
	ndis_status status;
};
static_assert(offsetof(struct ndis_packet_oob, status) == 32);
static_assert(sizeof(struct ndis_packet_oob) == 40);

/*
 * NDIS_PACKET_EXTENSION: the per-packet info block right after the OOB
 * data (NDIS_PER_PACKET_INFO_FROM_PACKET reads it at packet +
 * NdisPacketOobOffset + 40). Indices as the DDK's NDIS_PER_PACKET_INFO.
 */
#define NDIS_INFO_TCPIP_CHECKSUM	0
#define NDIS_INFO_SG_LIST		5	/* ScatterGatherListPacketInfo */
#define NDIS_INFO_8021Q			6
#define NDIS_PER_PACKET_INFO_MAX	12	/* MaxPerPacketInfo */

struct ndis_packet_ext {
	void *info[NDIS_PER_PACKET_INFO_MAX];
};

/* SCATTER_GATHER_LIST (amd64): bus addresses for a bus-master send. */
struct win_sg_element {
	u64 address;			/* PHYSICAL_ADDRESS */
	u32 length;
	u32 pad;
	u64 reserved;			/* ULONG_PTR */
};
static_assert(sizeof(struct win_sg_element) == 24);

struct win_sg_list {
	u32 count;			/* NumberOfElements */
	u32 pad;
	u64 reserved;
	struct win_sg_element elements[];
};
static_assert(offsetof(struct win_sg_list, elements) == 16);

struct ndis_packet {
	u32 physical_count;
	u32 total_length;
	struct win_mdl *head;
	struct win_mdl *tail;
	void *pool;
	u32 count;
	u32 flags;
	u8 valid_counts;
	u8 packet_flags;
	u16 oob_offset;			/* from the packet start */
	u32 private_pad;		/* the private part is 48 bytes */
	u8 miniport_reserved[16];	/* 24 with the first wrapper word */
	u8 wrapper_reserved[16];
	u64 reserved[2];
	u8 protocol_reserved[8];
};
static_assert(offsetof(struct ndis_packet, oob_offset) == 42);
static_assert(offsetof(struct ndis_packet, miniport_reserved) == 48);
static_assert(offsetof(struct ndis_packet, wrapper_reserved) == 64);
static_assert(offsetof(struct ndis_packet, protocol_reserved) == 96);

struct ndis_spin_lock {			/* driver storage, 16 bytes */
	unsigned long lock;		/* KSPIN_LOCK: 0 free, 1 held */
	u8 old_irql;
};
static_assert(sizeof(struct ndis_spin_lock) == 16);

struct ndis_miniport_timer {		/* driver storage, 160 bytes */
	struct win_ktimer_kdpc kernel;	/* holds our struct ndis_timer * */
	void *func;
	void *context;
	void *miniport;
	void *next;
};
static_assert(sizeof(struct ndis_miniport_timer) == 160);

struct ndis_miniport_interrupt {	/* driver storage, 152 bytes */
	void *object;			/* our struct ndis_irq * */
	u8 opaque[144];
};
static_assert(sizeof(struct ndis_miniport_interrupt) == 152);

#define NDIS_PARAMETER_INTEGER		0
#define NDIS_PARAMETER_HEX_INTEGER	1
#define NDIS_PARAMETER_STRING		2

struct ndis_config_param {
	u32 type;
	union {
		u32 integer;
		struct win_unicode_string string;
	} data;
};
static_assert(offsetof(struct ndis_config_param, data) == 8);

/* CM_PARTIAL_RESOURCE_LIST under 4-byte packing. */
#define CM_RESOURCE_PORT		1
#define CM_RESOURCE_INTERRUPT		2
#define CM_RESOURCE_MEMORY		3
#define CM_RESOURCE_INTERRUPT_LATCHED	0x0001
#define CM_RESOURCE_MEMORY_READ_WRITE	0x0000

struct cm_partial_resource {
	u8 type;
	u8 share;
	u16 flags;
	union {
		struct {
			u64 start;
			u32 length;
		} __packed mem;
		struct {
			u32 level;
			u32 vector;
			u64 affinity;
		} __packed irq;
	} __packed u;
} __packed;
static_assert(sizeof(struct cm_partial_resource) == 20);

struct cm_partial_resource_list {
	u16 version;
	u16 revision;
	u32 count;
	struct cm_partial_resource desc[];
} __packed;

/* NDIS 5.1 miniport characteristics: 240 bytes. */
struct ndis_miniport_chars {
	u8 major;
	u8 minor;
	u16 filler;
	u32 reserved;
	void *check_for_hang;
	void *disable_interrupt;
	void *enable_interrupt;
	void *halt;
	void *handle_interrupt;
	void *initialize;
	void *isr;
	void *query_info;
	void *reconfigure;
	void *reset;
	void *send;
	void *set_info;
	void *transfer_data;
	void *return_packet;		/* NDIS 4 */
	void *send_packets;
	void *allocate_complete;
	void *co_handlers[6];		/* NDIS 5, connection-oriented */
	void *cancel_send_packets;	/* NDIS 5.1 */
	void *pnp_event_notify;
	void *shutdown;
	void *reserved_ptr[4];
};
static_assert(offsetof(struct ndis_miniport_chars, initialize) == 48);
static_assert(offsetof(struct ndis_miniport_chars, return_packet) == 112);
static_assert(offsetof(struct ndis_miniport_chars, shutdown) == 200);
static_assert(sizeof(struct ndis_miniport_chars) == 240);

/*
 * The public prefix of NDIS_MINIPORT_BLOCK: the DDK's NdisM* macros call
 * through these handler fields of the handle we give MiniportInitialize.
 */
struct ndis_miniport_block {
	void *signature;
	u8 pad0[0x190 - 8];
	void *eth_db;			/* 0x190: the filter, opaque */
	u8 pad00[0x1b0 - 0x198];
	void *packet_indicate;		/* 0x1b0 */
	void *send_complete;
	void *send_resources;
	void *reset_complete;
	u32 media_type;			/* 0x1d0 */
	u8 pad1[0x280 - 0x1d4];
	void *eth_rx_indicate;		/* 0x280 */
	void *tr_rx_indicate;
	void *fddi_rx_indicate;
	void *eth_rx_complete;		/* 0x298 */
	void *tr_rx_complete;
	void *fddi_rx_complete;
	void *status;			/* 0x2b0 */
	void *status_complete;
	void *td_complete;
	void *query_complete;
	void *set_complete;
	u8 pad2[0x2f0 - 0x2d8];
};
static_assert(offsetof(struct ndis_miniport_block, eth_db) == 0x190);
static_assert(offsetof(struct ndis_miniport_block, packet_indicate) == 0x1b0);
static_assert(offsetof(struct ndis_miniport_block, send_complete) == 0x1b8);
static_assert(offsetof(struct ndis_miniport_block, send_resources) == 0x1c0);
static_assert(offsetof(struct ndis_miniport_block, reset_complete) == 0x1c8);
static_assert(offsetof(struct ndis_miniport_block, media_type) == 0x1d0);
static_assert(offsetof(struct ndis_miniport_block, eth_rx_indicate) == 0x280);
static_assert(offsetof(struct ndis_miniport_block, eth_rx_complete) == 0x298);
static_assert(offsetof(struct ndis_miniport_block, status) == 0x2b0);
static_assert(offsetof(struct ndis_miniport_block, status_complete) == 0x2b8);
static_assert(offsetof(struct ndis_miniport_block, td_complete) == 0x2c0);
static_assert(offsetof(struct ndis_miniport_block, query_complete) == 0x2c8);
static_assert(offsetof(struct ndis_miniport_block, set_complete) == 0x2d0);
static_assert(sizeof(struct ndis_miniport_block) == 0x2f0);

#endif /* NDIS_WINTYPES_H */
