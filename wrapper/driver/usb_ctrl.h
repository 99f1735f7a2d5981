/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the setup of a control request built from a Windows URB,
 * as pure functions (usb.c sends it; tests/unit/c tests them on the host
 * through tests/unit/c/kmock).
 */

#ifndef NDIS_USB_CTRL_H
#define NDIS_USB_CTRL_H

#include <linux/types.h>
#include <linux/usb/ch9.h>

#include "usbd.h"

/*
 * The type and recipient bits of bmRequestType for a vendor or class
 * request (URB_FUNCTION_VENDOR_* and URB_FUNCTION_CLASS_*). The direction
 * comes from the transfer flags (ndis_usb_control()), the type from the
 * function: RequestTypeReservedBits only extends the recipient (values
 * 4..31), so the driver's bits outside USB_RECIP_MASK are dropped.
 */
static inline u8 ndis_usb_vendor_type(u16 function, u8 reserved_bits)
{
	u8 type;

	switch (function) {
	case URB_FUNCTION_VENDOR_DEVICE:
		type = USB_TYPE_VENDOR | USB_RECIP_DEVICE;
		break;
	case URB_FUNCTION_VENDOR_INTERFACE:
		type = USB_TYPE_VENDOR | USB_RECIP_INTERFACE;
		break;
	case URB_FUNCTION_VENDOR_ENDPOINT:
		type = USB_TYPE_VENDOR | USB_RECIP_ENDPOINT;
		break;
	case URB_FUNCTION_VENDOR_OTHER:
		type = USB_TYPE_VENDOR | USB_RECIP_OTHER;
		break;
	case URB_FUNCTION_CLASS_DEVICE:
		type = USB_TYPE_CLASS | USB_RECIP_DEVICE;
		break;
	case URB_FUNCTION_CLASS_INTERFACE:
		type = USB_TYPE_CLASS | USB_RECIP_INTERFACE;
		break;
	case URB_FUNCTION_CLASS_ENDPOINT:
		type = USB_TYPE_CLASS | USB_RECIP_ENDPOINT;
		break;
	default:			/* URB_FUNCTION_CLASS_OTHER */
		type = USB_TYPE_CLASS | USB_RECIP_OTHER;
		break;
	}
	return type | (reserved_bits & USB_RECIP_MASK);
}

/*
 * Whether a request with this bmRequestType and wLength goes on the IN
 * control pipe. The USB core counts a request without data as OUT,
 * whatever its direction bit, and warns ("BOGUS control dir") when the
 * pipe says otherwise.
 */
static inline bool ndis_usb_ctrl_pipe_in(u8 request_type, u16 length)
{
	return (request_type & USB_DIR_IN) && length;
}

#endif /* NDIS_USB_CTRL_H */
