/* SPDX-License-Identifier: GPL-2.0 */
/* bmRequestType's fields, as the USB 2.0 specification (9.3) numbers them,
 * and the configuration and interface descriptors (9.6.3, 9.6.5). */
#ifndef KMOCK_USB_CH9_H
#define KMOCK_USB_CH9_H
#include <linux/types.h>
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

#define USB_DT_CONFIG		0x02
#define USB_DT_INTERFACE	0x04
#define USB_DT_INTERFACE_SIZE	9

struct usb_config_descriptor {
	u8 bLength;
	u8 bDescriptorType;
	__le16 wTotalLength;
	u8 bNumInterfaces;
	u8 bConfigurationValue;
	u8 iConfiguration;
	u8 bmAttributes;
	u8 bMaxPower;
} __attribute__((packed));

struct usb_interface_descriptor {
	u8 bLength;
	u8 bDescriptorType;
	u8 bInterfaceNumber;
	u8 bAlternateSetting;
	u8 bNumEndpoints;
	u8 bInterfaceClass;
	u8 bInterfaceSubClass;
	u8 bInterfaceProtocol;
	u8 iInterface;
} __attribute__((packed));
#endif
