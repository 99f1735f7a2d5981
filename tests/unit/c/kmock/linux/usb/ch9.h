/* SPDX-License-Identifier: GPL-2.0 */
/* bmRequestType's fields, as the USB 2.0 specification (9.3) numbers them. */
#ifndef KMOCK_USB_CH9_H
#define KMOCK_USB_CH9_H
#define USB_DIR_OUT		0
#define USB_DIR_IN		0x80
#define USB_TYPE_MASK		(0x03 << 5)
#define USB_TYPE_STANDARD	(0x00 << 5)
#define USB_TYPE_CLASS		(0x01 << 5)
#define USB_TYPE_VENDOR		(0x02 << 5)
#define USB_TYPE_RESERVED	(0x03 << 5)
#define USB_RECIP_MASK		0x1f
#define USB_RECIP_DEVICE	0x00
#define USB_RECIP_INTERFACE	0x01
#define USB_RECIP_ENDPOINT	0x02
#define USB_RECIP_OTHER		0x03
#endif
