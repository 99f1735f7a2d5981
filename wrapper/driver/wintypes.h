/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the Windows objects the wrapper shares with a Windows NDIS
 * 5.1 driver, laid out as the driver was compiled against: amd64 (LLP64)
 * on x86_64, i386 (ILP32) on a 32-bit kernel.
 *
 * Field names follow Microsoft's NDIS/WDM reference in kernel style.
 * Pointer-sized fields are pointers or unsigned long, so most layouts
 * follow from the C types on both; the rest (padding up to a known
 * offset) uses WIN_LAYOUT. The offsets the fixture drivers rely on
 * (fixtures/README.md, "Miniport block handlers" and "Other layouts the
 * driver touches directly") are pinned with static_assert for each
 * architecture, the numbers those of mingw-w64's DDK declarations (x86_64
 * and i686), so a layout mistake fails the build.
 */

#ifndef NDIS_WINTYPES_H
#define NDIS_WINTYPES_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

/*
 * A layout number: amd64's, or i386's on a 32-bit kernel (the compiler's
 * macro: the host tests build these headers without a kernel config).
 */
#ifdef __x86_64__
#define WIN_LAYOUT(amd64, i386)	(amd64)
#else
#define WIN_LAYOUT(amd64, i386)	(i386)
#endif

/*
 * The conventions of the functions Windows code calls (win_thunks.S and
 * win_thunks_32.S explain them). On x86_64 there is one, Microsoft's x64
 * convention. On i386 a DDK function is stdcall (NTAPI: arguments on the
 * stack, the callee pops them; its import's @N is their bytes), FASTCALL
 * (the first two in ecx and edx: the Kf/Kef spin locks, Iof*, Obf*,
 * Interlocked*) or cdecl (variadic functions and the C runtime: the
 * caller pops). regparm(0): the kernel builds with -mregparm=3, which
 * would otherwise pass a stdcall or cdecl function's first three
 * arguments in eax, edx and ecx.
 */
#ifdef __x86_64__
#define WIN_ABI		__attribute__((ms_abi))
#define WIN_FASTCALL	__attribute__((ms_abi))
#define WIN_CDECL	__attribute__((ms_abi))
#else
#define WIN_ABI		__attribute__((stdcall, regparm(0)))
#define WIN_FASTCALL	__attribute__((fastcall))
#define WIN_CDECL	__attribute__((cdecl, regparm(0)))
#endif

typedef s32 ndis_status;

#define NDIS_STATUS_SUCCESS		0x00000000
#define NDIS_STATUS_PENDING		0x00000103
#define NDIS_STATUS_MEDIA_CONNECT	0x4001000B
#define NDIS_STATUS_MEDIA_DISCONNECT	0x4001000C
#define NDIS_STATUS_RESET_START		0x40010004
#define NDIS_STATUS_RESET_END		0x40010005
#define NDIS_STATUS_MEDIA_SPECIFIC_INDICATION	0x40010012
#define NDIS_STATUS_LINK_SPEED_CHANGE	0x40010013
#define NDIS_STATUS_BUFFER_OVERFLOW	0x80000005
#define NDIS_STATUS_FAILURE		0xC0000001
#define NDIS_STATUS_RESOURCES		0xC000009A
#define NDIS_STATUS_NOT_SUPPORTED	0xC00000BB
#define NDIS_STATUS_BUFFER_TOO_SHORT	0xC0010016
#define NDIS_STATUS_INVALID_LENGTH	0xC0010014
#define NDIS_STATUS_INVALID_OID		0xC0010017
#define NDIS_STATUS_UNSUPPORTED_MEDIA	0xC0010019
#define NDIS_STATUS_FILE_NOT_FOUND	0xC001001B
#define NDIS_STATUS_ERROR_READING_FILE	0xC001001C
#define NDIS_STATUS_ALREADY_MAPPED	0xC001001D

#define NDIS_MEDIUM_802_3		0

#define NDIS_ATTRIBUTE_BUS_MASTER	0x00000008
#define NDIS_ATTRIBUTE_DESERIALIZE	0x00000020

struct win_unicode_string {
	u16 length;			/* bytes, no terminating NUL */
	u16 max_length;			/* bytes */
	u16 *buffer;
};
static_assert(sizeof(struct win_unicode_string) == WIN_LAYOUT(16, 8));

/* ANSI_STRING = NDIS_ANSI_STRING: counted 8-bit characters. */
struct win_ansi_string {
	u16 length;			/* bytes, no terminating NUL */
	u16 max_length;			/* bytes */
	char *buffer;
};
static_assert(sizeof(struct win_ansi_string) == WIN_LAYOUT(16, 8));

/* KDPC and KTIMER only matter by size: drivers embed them. */
struct win_ktimer_kdpc {
	u8 ktimer[WIN_LAYOUT(64, 40)];
	u8 kdpc[WIN_LAYOUT(64, 32)];
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
static_assert(offsetof(struct win_mdl, flags) == WIN_LAYOUT(10, 6));
static_assert(offsetof(struct win_mdl, mapped_va) == WIN_LAYOUT(24, 12));
static_assert(offsetof(struct win_mdl, byte_count) == WIN_LAYOUT(40, 20));
static_assert(sizeof(struct win_mdl) == WIN_LAYOUT(48, 28));

struct ndis_packet_oob {
	u64 time_to_send;
	u64 time_received;
	u32 header_size;
	u32 media_specific_size;
	void *media_specific;
	ndis_status status;
};
static_assert(offsetof(struct ndis_packet_oob, header_size) == 16);
static_assert(offsetof(struct ndis_packet_oob, status) == WIN_LAYOUT(32, 28));
static_assert(sizeof(struct ndis_packet_oob) == WIN_LAYOUT(40, 32));

/*
 * NDIS_PACKET_EXTENSION: the per-packet info block right after the OOB
 * data (NDIS_PER_PACKET_INFO_FROM_PACKET reads it at packet +
 * NdisPacketOobOffset + sizeof(NDIS_PACKET_OOB_DATA)). Indices as the DDK's NDIS_PER_PACKET_INFO.
 */
#define NDIS_INFO_TCPIP_CHECKSUM	0
#define NDIS_INFO_SG_LIST		5	/* ScatterGatherListPacketInfo */
#define NDIS_INFO_8021Q			6
#define NDIS_PER_PACKET_INFO_MAX	12	/* MaxPerPacketInfo */

struct ndis_packet_ext {
	void *info[NDIS_PER_PACKET_INFO_MAX];
};

/* SCATTER_GATHER_LIST: bus addresses for a bus-master send. */
struct win_sg_element {
	u64 address;			/* PHYSICAL_ADDRESS */
	u32 length;
	unsigned long reserved;		/* ULONG_PTR */
};
static_assert(sizeof(struct win_sg_element) == WIN_LAYOUT(24, 16));

struct win_sg_list {
	u32 count;			/* NumberOfElements */
	unsigned long reserved;
	struct win_sg_element elements[];
};
static_assert(offsetof(struct win_sg_list, elements) == WIN_LAYOUT(16, 8));

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
	/* two words each; MiniportReservedEx: three with the first wrapper one */
	u8 miniport_reserved[2 * sizeof(void *)] __aligned(sizeof(void *));
	u8 wrapper_reserved[2 * sizeof(void *)];
	unsigned long reserved[2];
	u8 protocol_reserved[8];
};
static_assert(offsetof(struct ndis_packet, oob_offset) == WIN_LAYOUT(42, 30));
static_assert(offsetof(struct ndis_packet, miniport_reserved) ==
	      WIN_LAYOUT(48, 32));
static_assert(offsetof(struct ndis_packet, wrapper_reserved) ==
	      WIN_LAYOUT(64, 40));
static_assert(offsetof(struct ndis_packet, protocol_reserved) ==
	      WIN_LAYOUT(96, 56));

struct ndis_spin_lock {			/* driver storage, 16 or 8 bytes */
	unsigned long lock;		/* KSPIN_LOCK: 0 free, 1 held */
	u8 old_irql;
};
static_assert(sizeof(struct ndis_spin_lock) == WIN_LAYOUT(16, 8));

struct ndis_miniport_timer {		/* driver storage, 160 or 88 bytes */
	struct win_ktimer_kdpc kernel;	/* holds our struct ndis_timer * */
	void *func;
	void *context;
	void *miniport;
	void *next;
};
static_assert(sizeof(struct ndis_miniport_timer) == WIN_LAYOUT(160, 88));

struct ndis_miniport_interrupt {	/* driver storage, 152 or 80 bytes */
	void *object;			/* our struct ndis_irq * */
	u8 opaque[WIN_LAYOUT(144, 76)];
};
static_assert(sizeof(struct ndis_miniport_interrupt) == WIN_LAYOUT(152, 80));

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
static_assert(offsetof(struct ndis_config_param, data) == WIN_LAYOUT(8, 4));

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
			unsigned long affinity;	/* KAFFINITY */
		} __packed irq;
	} __packed u;
} __packed;
static_assert(sizeof(struct cm_partial_resource) == WIN_LAYOUT(20, 16));

struct cm_partial_resource_list {
	u16 version;
	u16 revision;
	u32 count;
	struct cm_partial_resource desc[];
} __packed;

/* NDIS 5.1 miniport characteristics: 240 bytes (i386: 124). */
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
static_assert(offsetof(struct ndis_miniport_chars, initialize) ==
	      WIN_LAYOUT(48, 28));
static_assert(offsetof(struct ndis_miniport_chars, return_packet) ==
	      WIN_LAYOUT(112, 60));
static_assert(offsetof(struct ndis_miniport_chars, shutdown) ==
	      WIN_LAYOUT(200, 104));
static_assert(sizeof(struct ndis_miniport_chars) == WIN_LAYOUT(240, 124));

/*
 * The public prefix of NDIS_MINIPORT_BLOCK: the DDK's NdisM* macros call
 * through these handler fields of the handle we give MiniportInitialize.
 */
#define NDIS_MB_ETH_DB		WIN_LAYOUT(0x190, 0xd8)
#define NDIS_MB_PACKET_INDICATE	WIN_LAYOUT(0x1b0, 0xe8)
#define NDIS_MB_MEDIA_TYPE_END	(NDIS_MB_PACKET_INDICATE + \
				 4 * sizeof(void *) + 4)
#define NDIS_MB_ETH_RX_INDICATE	WIN_LAYOUT(0x280, 0x164)
#define NDIS_MB_SET_COMPLETE_END	(NDIS_MB_ETH_RX_INDICATE + \
					 11 * sizeof(void *))
#define NDIS_MB_SIZE		WIN_LAYOUT(0x2f0, 0x19c)

struct ndis_miniport_block {
	void *signature;
	u8 pad0[NDIS_MB_ETH_DB - sizeof(void *)];
	void *eth_db;			/* the filter, opaque */
	u8 pad00[NDIS_MB_PACKET_INDICATE - NDIS_MB_ETH_DB - sizeof(void *)];
	void *packet_indicate;
	void *send_complete;
	void *send_resources;
	void *reset_complete;
	u32 media_type;
	u8 pad1[NDIS_MB_ETH_RX_INDICATE - NDIS_MB_MEDIA_TYPE_END];
	void *eth_rx_indicate;
	void *tr_rx_indicate;
	void *fddi_rx_indicate;
	void *eth_rx_complete;
	void *tr_rx_complete;
	void *fddi_rx_complete;
	void *status;
	void *status_complete;
	void *td_complete;
	void *query_complete;
	void *set_complete;
	u8 pad2[NDIS_MB_SIZE - NDIS_MB_SET_COMPLETE_END];
};
static_assert(offsetof(struct ndis_miniport_block, eth_db) ==
	      WIN_LAYOUT(0x190, 0xd8));
static_assert(offsetof(struct ndis_miniport_block, packet_indicate) ==
	      WIN_LAYOUT(0x1b0, 0xe8));
static_assert(offsetof(struct ndis_miniport_block, send_complete) ==
	      WIN_LAYOUT(0x1b8, 0xec));
static_assert(offsetof(struct ndis_miniport_block, send_resources) ==
	      WIN_LAYOUT(0x1c0, 0xf0));
static_assert(offsetof(struct ndis_miniport_block, reset_complete) ==
	      WIN_LAYOUT(0x1c8, 0xf4));
static_assert(offsetof(struct ndis_miniport_block, media_type) ==
	      WIN_LAYOUT(0x1d0, 0xf8));
static_assert(offsetof(struct ndis_miniport_block, eth_rx_indicate) ==
	      WIN_LAYOUT(0x280, 0x164));
static_assert(offsetof(struct ndis_miniport_block, eth_rx_complete) ==
	      WIN_LAYOUT(0x298, 0x170));
static_assert(offsetof(struct ndis_miniport_block, status) ==
	      WIN_LAYOUT(0x2b0, 0x17c));
static_assert(offsetof(struct ndis_miniport_block, status_complete) ==
	      WIN_LAYOUT(0x2b8, 0x180));
static_assert(offsetof(struct ndis_miniport_block, td_complete) ==
	      WIN_LAYOUT(0x2c0, 0x184));
static_assert(offsetof(struct ndis_miniport_block, query_complete) ==
	      WIN_LAYOUT(0x2c8, 0x188));
static_assert(offsetof(struct ndis_miniport_block, set_complete) ==
	      WIN_LAYOUT(0x2d0, 0x18c));
static_assert(sizeof(struct ndis_miniport_block) == WIN_LAYOUT(0x2f0, 0x19c));

#endif /* NDIS_WINTYPES_H */
