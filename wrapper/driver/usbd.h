/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the USB request blocks (URBs) of the Windows USB driver
 * interface (usb.h, usbdi.h in Microsoft's WDK reference), amd64 or i386
 * layouts (wintypes.h),
 * and the USBD status codes. A Windows URB is never a Linux struct urb:
 * usb.c translates one into the other.
 */

#ifndef NDIS_USBD_H
#define NDIS_USBD_H

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include "wdm.h"
#include "../parse/usbcfg.h"

#define IOCTL_INTERNAL_USB_SUBMIT_URB		0x00220003
#define IOCTL_INTERNAL_USB_RESET_PORT		0x00220007
#define IOCTL_INTERNAL_USB_GET_PORT_STATUS	0x00220013

/* _URB_HEADER.Function */
#define URB_FUNCTION_SELECT_CONFIGURATION	0x0000
#define URB_FUNCTION_ABORT_PIPE			0x0002
#define URB_FUNCTION_BULK_OR_INTERRUPT_TRANSFER	0x0009
#define URB_FUNCTION_GET_DESCRIPTOR_FROM_DEVICE	0x000B
#define URB_FUNCTION_VENDOR_DEVICE		0x0017
#define URB_FUNCTION_VENDOR_INTERFACE		0x0018
#define URB_FUNCTION_VENDOR_ENDPOINT		0x0019
#define URB_FUNCTION_CLASS_DEVICE		0x001A
#define URB_FUNCTION_CLASS_INTERFACE		0x001B
#define URB_FUNCTION_CLASS_ENDPOINT		0x001C
#define URB_FUNCTION_SYNC_RESET_PIPE_AND_CLEAR_STALL	0x001E
#define URB_FUNCTION_CLASS_OTHER		0x001F
#define URB_FUNCTION_VENDOR_OTHER		0x0020

/* TransferFlags */
#define USBD_TRANSFER_DIRECTION_IN		0x00000001
#define USBD_SHORT_TRANSFER_OK			0x00000002

/* USBD_STATUS */
#define USBD_STATUS_SUCCESS			0x00000000
#define USBD_STATUS_PENDING			0x40000000
#define USBD_STATUS_STALL_PID			0xC0000004
#define USBD_STATUS_DEV_NOT_RESPONDING		0xC0000005
#define USBD_STATUS_BABBLE_DETECTED		0xC0000012
#define USBD_STATUS_DEVICE_GONE			0xC0007000
#define USBD_STATUS_CANCELED			0xC0010000
#define USBD_STATUS_INVALID_URB_FUNCTION	0x80000200
#define USBD_STATUS_INVALID_PARAMETER		0x80000300
#define USBD_STATUS_ERROR_SHORT_TRANSFER	0x80000900
#define USBD_STATUS_INSUFFICIENT_RESOURCES	0xC0003000

/* USBD_PIPE_TYPE */
#define USBD_PIPE_CONTROL			0
#define USBD_PIPE_ISOCHRONOUS			1
#define USBD_PIPE_BULK				2
#define USBD_PIPE_INTERRUPT			3

struct usbd_urb_header {
	u16 length;
	u16 function;
	s32 status;			/* USBD_STATUS */
	void *usbd_device_handle;
	u32 usbd_flags;
};
static_assert(offsetof(struct usbd_urb_header, status) == 4);
static_assert(offsetof(struct usbd_urb_header, usbd_device_handle) == 8);
static_assert(offsetof(struct usbd_urb_header, usbd_flags) ==
	      WIN_LAYOUT(0x10, 0xc));
static_assert(sizeof(struct usbd_urb_header) == WIN_LAYOUT(0x18, 0x10));

/* struct usbd_pipe_information: ../parse/usbcfg.h */
static_assert(offsetof(struct usbd_pipe_information, endpoint_address) == 2);
static_assert(offsetof(struct usbd_pipe_information, interval) == 3);
static_assert(offsetof(struct usbd_pipe_information, pipe_type) == 4);
static_assert(offsetof(struct usbd_pipe_information, pipe_handle) == 8);
static_assert(offsetof(struct usbd_pipe_information,
		       maximum_transfer_size) == WIN_LAYOUT(0x10, 0xc));
static_assert(offsetof(struct usbd_pipe_information, pipe_flags) ==
	      WIN_LAYOUT(0x14, 0x10));
static_assert(sizeof(struct usbd_pipe_information) == WIN_LAYOUT(0x18, 0x14));

/* struct usbd_interface_information: ../parse/usbcfg.h */
static_assert(offsetof(struct usbd_interface_information, class) == 4);
static_assert(offsetof(struct usbd_interface_information, protocol) == 6);
static_assert(offsetof(struct usbd_interface_information,
		       interface_handle) == 8);
static_assert(offsetof(struct usbd_interface_information,
		       number_of_pipes) == WIN_LAYOUT(0x10, 0xc));
static_assert(offsetof(struct usbd_interface_information, pipes) ==
	      WIN_LAYOUT(0x18, 0x10));

struct usbd_interface_list_entry {
	void *interface_descriptor;	/* struct usb_interface_descriptor */
	struct usbd_interface_information *interface;
};
static_assert(sizeof(struct usbd_interface_list_entry) ==
	      WIN_LAYOUT(0x10, 0x8));

struct urb_select_configuration {
	struct usbd_urb_header hdr;
	void *configuration_descriptor;
	void *configuration_handle;
	u8 interface[];		/* struct usbd_interface_information */
};
static_assert(offsetof(struct urb_select_configuration,
		       configuration_descriptor) == WIN_LAYOUT(0x18, 0x10));
static_assert(offsetof(struct urb_select_configuration,
		       configuration_handle) == WIN_LAYOUT(0x20, 0x14));
static_assert(offsetof(struct urb_select_configuration, interface) ==
	      WIN_LAYOUT(0x28, 0x18));

/* What the three transfer URBs share: flags, length, buffer, MDL. */
struct urb_transfer {
	struct usbd_urb_header hdr;
	void *handle;			/* PipeHandle, or reserved */
	u32 transfer_flags;		/* reserved for descriptors */
	u32 transfer_buffer_length;
	void *transfer_buffer;
	struct win_mdl *transfer_buffer_mdl;
	void *urb_link;
	void *hca[8];
};
static_assert(offsetof(struct urb_transfer, transfer_flags) ==
	      WIN_LAYOUT(0x20, 0x14));
static_assert(offsetof(struct urb_transfer, transfer_buffer_length) ==
	      WIN_LAYOUT(0x24, 0x18));
static_assert(offsetof(struct urb_transfer, transfer_buffer) ==
	      WIN_LAYOUT(0x28, 0x1c));
static_assert(offsetof(struct urb_transfer, transfer_buffer_mdl) ==
	      WIN_LAYOUT(0x30, 0x20));
static_assert(offsetof(struct urb_transfer, urb_link) ==
	      WIN_LAYOUT(0x38, 0x24));
static_assert(offsetof(struct urb_transfer, hca) ==
	      WIN_LAYOUT(0x40, 0x28));
static_assert(sizeof(struct urb_transfer) == WIN_LAYOUT(0x80, 0x48));

/* _URB_BULK_OR_INTERRUPT_TRANSFER is exactly the common part. */

struct urb_control_descriptor_request {
	struct urb_transfer t;
	u16 reserved1;
	u8 index;
	u8 descriptor_type;
	u16 language_id;
	u16 reserved2;
};
static_assert(offsetof(struct urb_control_descriptor_request, index) ==
	      WIN_LAYOUT(0x82, 0x4a));
static_assert(offsetof(struct urb_control_descriptor_request,
		       descriptor_type) == WIN_LAYOUT(0x83, 0x4b));
static_assert(offsetof(struct urb_control_descriptor_request,
		       language_id) == WIN_LAYOUT(0x84, 0x4c));
static_assert(sizeof(struct urb_control_descriptor_request) ==
	      WIN_LAYOUT(0x88, 0x50));

struct urb_control_vendor_or_class_request {
	struct urb_transfer t;
	u8 request_type_reserved_bits;
	u8 request;
	u16 value;
	u16 index;
	u16 reserved1;
};
static_assert(offsetof(struct urb_control_vendor_or_class_request,
		       request) == WIN_LAYOUT(0x81, 0x49));
static_assert(offsetof(struct urb_control_vendor_or_class_request,
		       value) == WIN_LAYOUT(0x82, 0x4a));
static_assert(offsetof(struct urb_control_vendor_or_class_request,
		       index) == WIN_LAYOUT(0x84, 0x4c));
static_assert(sizeof(struct urb_control_vendor_or_class_request) ==
	      WIN_LAYOUT(0x88, 0x50));

struct urb_pipe_request {
	struct usbd_urb_header hdr;
	void *pipe_handle;
	u32 reserved;
};
static_assert(offsetof(struct urb_pipe_request, pipe_handle) ==
	      WIN_LAYOUT(0x18, 0x10));
static_assert(sizeof(struct urb_pipe_request) == WIN_LAYOUT(0x28, 0x18));

union win_urb {
	struct usbd_urb_header hdr;
	struct urb_select_configuration select;
	struct urb_transfer transfer;	/* bulk/interrupt */
	struct urb_control_descriptor_request descriptor;
	struct urb_control_vendor_or_class_request vendor;
	struct urb_pipe_request pipe;
};

#endif /* NDIS_USBD_H */
