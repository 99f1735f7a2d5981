/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the WDM objects an NDIS-WDM miniport shares with the
 * wrapper (amd64 or i386 layouts, wintypes.h): device objects, IRPs and their stack locations,
 * dispatcher events, and the I/O manager's status codes.
 *
 * Written from Microsoft's WDM reference (wdm.h's documented fields); every
 * offset the fixture contract names is pinned with static_assert so a
 * layout mistake fails the build.
 */

#ifndef NDIS_WDM_H
#define NDIS_WDM_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include "wintypes.h"

/* NTSTATUS values the I/O paths use. */
#define STATUS_SUCCESS			0x00000000
#define STATUS_TIMEOUT			0x00000102
#define STATUS_PENDING			0x00000103
#define STATUS_UNSUCCESSFUL		0xC0000001
#define STATUS_INVALID_PARAMETER	0xC000000D
#define STATUS_MORE_PROCESSING_REQUIRED	0xC0000016
#define STATUS_INSUFFICIENT_RESOURCES	0xC000009A
#define STATUS_DEVICE_NOT_CONNECTED	0xC000009D
#define STATUS_NOT_SUPPORTED		0xC00000BB
#define STATUS_CANCELLED		0xC0000120
#define STATUS_INVALID_DEVICE_REQUEST	0xC0000010

#define NT_SUCCESS(status)		((s32)(status) >= 0)

/* Interrupt request levels, as far as the wrapper tracks them. */
#define WIN_PASSIVE_LEVEL		0
#define WIN_APC_LEVEL			1
#define WIN_DISPATCH_LEVEL		2
#define WIN_DEVICE_LEVEL		3	/* any DIRQL */

struct win_list_entry {
	struct win_list_entry *flink;
	struct win_list_entry *blink;
};
static_assert(sizeof(struct win_list_entry) == WIN_LAYOUT(16, 8));

/* -- dispatcher objects ------------------------------------------------- */

#define WIN_NOTIFICATION_EVENT		0
#define WIN_SYNCHRONIZATION_EVENT	1

struct win_dispatcher_header {
	u8 type;
	u8 signalling;
	u8 size;
	u8 reserved;
	s32 signal_state;
	struct win_list_entry wait_list_head;
};

struct win_kevent {
	struct win_dispatcher_header header;
};
static_assert(offsetof(struct win_kevent, header.type) == 0);
static_assert(offsetof(struct win_kevent, header.signal_state) == 4);
static_assert(offsetof(struct win_kevent, header.wait_list_head) == 8);
static_assert(sizeof(struct win_kevent) == WIN_LAYOUT(0x18, 0x10));

/* -- device objects ----------------------------------------------------- */

#define WIN_IO_TYPE_DEVICE		3
#define WIN_IO_TYPE_IRP			6
#define WIN_FILE_DEVICE_UNKNOWN		0x22
#define WIN_DO_DEVICE_INITIALIZING	0x80

struct win_device_object {
	s16 type;
	u16 size;
	s32 reference_count;
	void *driver_object;
	struct win_device_object *next_device;
	struct win_device_object *attached_device;
	void *current_irp;
	void *timer;
	u32 flags;
	u32 characteristics;
	void *vpb;
	void *device_extension;		/* here: the wrapper's owner */
	u32 device_type;
	s8 stack_size;
	u8 rest[WIN_LAYOUT(0x138 - 0x4d, 0xb0 - 0x31)]; /* queue, DPC, ... */
	struct win_devobj_extension *device_object_extension;
	u8 reserved[WIN_LAYOUT(0x10, 0x4)];
};
static_assert(offsetof(struct win_device_object, driver_object) ==
	      WIN_LAYOUT(0x08, 0x08));
static_assert(offsetof(struct win_device_object, next_device) ==
	      WIN_LAYOUT(0x10, 0x0c));
static_assert(offsetof(struct win_device_object, attached_device) ==
	      WIN_LAYOUT(0x18, 0x10));
static_assert(offsetof(struct win_device_object, current_irp) ==
	      WIN_LAYOUT(0x20, 0x14));
static_assert(offsetof(struct win_device_object, timer) ==
	      WIN_LAYOUT(0x28, 0x18));
static_assert(offsetof(struct win_device_object, flags) ==
	      WIN_LAYOUT(0x30, 0x1c));
static_assert(offsetof(struct win_device_object, characteristics) ==
	      WIN_LAYOUT(0x34, 0x20));
static_assert(offsetof(struct win_device_object, vpb) ==
	      WIN_LAYOUT(0x38, 0x24));
static_assert(offsetof(struct win_device_object, device_extension) ==
	      WIN_LAYOUT(0x40, 0x28));
static_assert(offsetof(struct win_device_object, device_type) ==
	      WIN_LAYOUT(0x48, 0x2c));
static_assert(offsetof(struct win_device_object, stack_size) ==
	      WIN_LAYOUT(0x4c, 0x30));
static_assert(offsetof(struct win_device_object, device_object_extension) ==
	      WIN_LAYOUT(0x138, 0xb0));
static_assert(sizeof(struct win_device_object) == WIN_LAYOUT(0x150, 0xb8));

/*
 * DEVOBJ_EXTENSION: opaque to drivers (only the power manager and the
 * I/O manager read it), so its fields past DeviceObject are the
 * wrapper's: the power states PoSetPowerState records (POWER_STATE
 * values, PowerSystemWorking and PowerDeviceD0 = 1).
 */
#define WIN_IO_TYPE_DEVICE_OBJECT_EXTENSION	13

struct win_devobj_extension {
	s16 type;
	u16 size;
	struct win_device_object *device_object;
	u32 system_power_state;
	u32 device_power_state;
};

void ntos_init_devobj_ext(struct win_devobj_extension *ext,
			  struct win_device_object *dev);

/* -- IRPs ---------------------------------------------------------------- */

#define IRP_MJ_INTERNAL_DEVICE_CONTROL	0x0f
#define IRP_MJ_POWER			0x16

#define IRP_MN_WAIT_WAKE		0x00
#define IRP_MN_POWER_SEQUENCE		0x01
#define IRP_MN_SET_POWER		0x02
#define IRP_MN_QUERY_POWER		0x03

/* IO_STACK_LOCATION.Control */
#define SL_PENDING_RETURNED		0x01
#define SL_INVOKE_ON_CANCEL		0x20
#define SL_INVOKE_ON_SUCCESS		0x40
#define SL_INVOKE_ON_ERROR		0x80

struct win_io_stack_location {
	u8 major_function;
	u8 minor_function;
	u8 flags;
	u8 control;
	union {				/* Parameters: 4 pointers */
		struct {		/* POINTER_ALIGNMENT ULONGs */
			u32 output_buffer_length __aligned(sizeof(void *));
			u32 input_buffer_length __aligned(sizeof(void *));
			u32 io_control_code __aligned(sizeof(void *));
			void *type3_input_buffer;
		} device_io_control;
		struct {		/* Read and Write */
			u32 length __aligned(sizeof(void *));
			u32 key __aligned(sizeof(void *));
			s64 byte_offset;
		} read_write;
		struct {		/* IRP_MJ_POWER (WaitWake: the first) */
			u32 system_context;
			u32 type __aligned(sizeof(void *));
			u32 state __aligned(sizeof(void *));
			u32 shutdown_type __aligned(sizeof(void *));
		} power;
		struct {
			void *argument1;
			void *argument2;
			void *argument3;
			void *argument4;
		} others;
	} parameters;
	struct win_device_object *device_object;
	void *file_object;
	void *completion_routine;	/* WIN_ABI, see wdm_completion_fn */
	void *context;
};
static_assert(offsetof(struct win_io_stack_location, control) == 3);
static_assert(offsetof(struct win_io_stack_location, parameters) ==
	      WIN_LAYOUT(8, 4));
static_assert(offsetof(struct win_io_stack_location,
		       parameters.device_io_control.input_buffer_length) ==
	      WIN_LAYOUT(0x10, 0x8));
static_assert(offsetof(struct win_io_stack_location,
		       parameters.device_io_control.io_control_code) ==
	      WIN_LAYOUT(0x18, 0xc));
static_assert(offsetof(struct win_io_stack_location,
		       parameters.others.argument4) == WIN_LAYOUT(0x20, 0x10));
static_assert(offsetof(struct win_io_stack_location,
		       parameters.read_write.byte_offset) ==
	      WIN_LAYOUT(0x18, 0xc));
static_assert(offsetof(struct win_io_stack_location, parameters.power.state) ==
	      WIN_LAYOUT(0x18, 0xc));
static_assert(offsetof(struct win_io_stack_location, device_object) ==
	      WIN_LAYOUT(0x28, 0x14));
static_assert(offsetof(struct win_io_stack_location, file_object) ==
	      WIN_LAYOUT(0x30, 0x18));
static_assert(offsetof(struct win_io_stack_location,
		       completion_routine) == WIN_LAYOUT(0x38, 0x1c));
static_assert(offsetof(struct win_io_stack_location, context) ==
	      WIN_LAYOUT(0x40, 0x20));
static_assert(sizeof(struct win_io_stack_location) == WIN_LAYOUT(0x48, 0x24));

struct win_io_status_block {
	union {
		s32 status;
		void *pointer;
	};
	unsigned long information;
};
static_assert(sizeof(struct win_io_status_block) == WIN_LAYOUT(16, 8));

struct win_irp {
	s16 type;
	u16 size;
	struct win_mdl *mdl_address;
	u32 flags;
	void *associated_irp;
	struct win_list_entry thread_list_entry;
	struct win_io_status_block io_status;
	u8 requestor_mode;
	u8 pending_returned;
	s8 stack_count;
	s8 current_location;
	u8 cancel;
	u8 cancel_irql;
	u8 apc_environment;
	u8 allocation_flags;
	struct win_io_status_block *user_iosb;
	struct win_kevent *user_event;
	u8 overlay[2 * sizeof(void *)];
	void *cancel_routine;
	void *user_buffer;
	/* Tail.Overlay (the Tail union is a KAPC's 0x58 or 0x30 bytes) */
	void *driver_context[4];
	void *thread;
	char *auxiliary_buffer;
	struct win_list_entry list_entry;
	struct win_io_stack_location *current_stack_location;
	void *original_file_object;
	u8 tail_rest[8];
	struct win_io_stack_location stack[];	/* StackCount of them */
};
static_assert(offsetof(struct win_irp, mdl_address) ==
	      WIN_LAYOUT(0x08, 0x04));
static_assert(offsetof(struct win_irp, flags) ==
	      WIN_LAYOUT(0x10, 0x08));
static_assert(offsetof(struct win_irp, associated_irp) ==
	      WIN_LAYOUT(0x18, 0x0c));
static_assert(offsetof(struct win_irp, thread_list_entry) ==
	      WIN_LAYOUT(0x20, 0x10));
static_assert(offsetof(struct win_irp, io_status.status) ==
	      WIN_LAYOUT(0x30, 0x18));
static_assert(offsetof(struct win_irp, io_status.information) ==
	      WIN_LAYOUT(0x38, 0x1c));
static_assert(offsetof(struct win_irp, requestor_mode) ==
	      WIN_LAYOUT(0x40, 0x20));
static_assert(offsetof(struct win_irp, pending_returned) ==
	      WIN_LAYOUT(0x41, 0x21));
static_assert(offsetof(struct win_irp, stack_count) ==
	      WIN_LAYOUT(0x42, 0x22));
static_assert(offsetof(struct win_irp, current_location) ==
	      WIN_LAYOUT(0x43, 0x23));
static_assert(offsetof(struct win_irp, cancel) ==
	      WIN_LAYOUT(0x44, 0x24));
static_assert(offsetof(struct win_irp, cancel_irql) ==
	      WIN_LAYOUT(0x45, 0x25));
static_assert(offsetof(struct win_irp, apc_environment) ==
	      WIN_LAYOUT(0x46, 0x26));
static_assert(offsetof(struct win_irp, allocation_flags) ==
	      WIN_LAYOUT(0x47, 0x27));
static_assert(offsetof(struct win_irp, user_iosb) ==
	      WIN_LAYOUT(0x48, 0x28));
static_assert(offsetof(struct win_irp, user_event) ==
	      WIN_LAYOUT(0x50, 0x2c));
static_assert(offsetof(struct win_irp, overlay) ==
	      WIN_LAYOUT(0x58, 0x30));
static_assert(offsetof(struct win_irp, cancel_routine) ==
	      WIN_LAYOUT(0x68, 0x38));
static_assert(offsetof(struct win_irp, user_buffer) ==
	      WIN_LAYOUT(0x70, 0x3c));
static_assert(offsetof(struct win_irp, driver_context) ==
	      WIN_LAYOUT(0x78, 0x40));
static_assert(offsetof(struct win_irp, thread) ==
	      WIN_LAYOUT(0x98, 0x50));
static_assert(offsetof(struct win_irp, auxiliary_buffer) ==
	      WIN_LAYOUT(0xa0, 0x54));
static_assert(offsetof(struct win_irp, list_entry) ==
	      WIN_LAYOUT(0xa8, 0x58));
static_assert(offsetof(struct win_irp, current_stack_location) ==
	      WIN_LAYOUT(0xb8, 0x60));
static_assert(offsetof(struct win_irp, original_file_object) ==
	      WIN_LAYOUT(0xc0, 0x64));
static_assert(offsetof(struct win_irp, stack) ==
	      WIN_LAYOUT(0xd0, 0x70));
static_assert(sizeof(struct win_irp) == WIN_LAYOUT(0xd0, 0x70));

/* The stack location the current (lowest called) driver owns. */
static inline struct win_io_stack_location *
win_irp_current_stack(struct win_irp *irp)
{
	return irp->current_stack_location;
}

/* -- the wrapper's side ------------------------------------------------- */

struct ndis_adapter;

/*
 * The device objects of an adapter: the PDO stands for the bus driver
 * (the wrapper's usb.c), the FDO for the miniport; NdisMGetDeviceProperty
 * hands both out, with the PDO as the NextDeviceObject IRPs go to.
 */
struct ndis_wdm_dev {
	struct win_device_object pdo;
	struct win_device_object fdo;
	struct win_devobj_extension pdo_ext;
	struct win_devobj_extension fdo_ext;
};

void ndis_wdm_init_dev(struct ndis_adapter *ad);

/*
 * Completes an IRP the wrapper owns (IoCompleteRequest): walks the stack
 * locations up, calling each completion routine its Control asks for, at
 * irql or the caller's level if higher. Windows context or not.
 */
void ndis_complete_irp(struct win_irp *irp, u8 irql);

/* usb.c: the bus driver behind the PDO of a USB adapter. */
s32 ndis_usb_dispatch(struct ndis_adapter *ad, struct win_irp *irp);
bool ndis_usb_cancel(struct win_irp *irp);
bool ndis_usb_irp_busy(struct win_irp *irp);

/* ntoskrnl.c */
int ndis_wdm_init(void);
void ndis_wdm_exit(void);

#endif /* NDIS_WDM_H */
