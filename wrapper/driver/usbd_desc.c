// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: USBD.SYS's descriptor walks over a configuration descriptor
 * the driver read from the device, and the USBD interface version. Every
 * descriptor returned lies wholly inside the buffer; a zero or short
 * length ends the walk.
 */

#include <linux/types.h>
#include <linux/usb/ch9.h>
#include <asm/byteorder.h>

#include "winexport.h"

/* The first descriptor of the type at or after start, within len bytes
 * from buf. */
static WIN_ABI void *USBD_ParseDescriptors(void *buf, u32 len, void *start,
					   s32 type)
{
	u8 *end = (u8 *)buf + len;
	u8 *p = start;

	if (p < (u8 *)buf || p >= end)
		return NULL;
	while (end - p >= 2) {
		if (p[0] < 2 || p[0] > end - p)
			break;
		if (p[1] == type)
			return p;
		p += p[0];
	}
	return NULL;
}
WIN_FUNC(USBD_ParseDescriptors);

/*
 * Finds an interface descriptor in a configuration descriptor, from start
 * on; -1 in any of the criteria matches anything.
 */
static WIN_ABI struct usb_interface_descriptor *
USBD_ParseConfigurationDescriptorEx(struct usb_config_descriptor *cd,
				    void *start, s32 number, s32 alternate,
				    s32 class, s32 subclass, s32 protocol)
{
	u32 len = le16_to_cpu(cd->wTotalLength);
	struct usb_interface_descriptor *d;
	u8 *p = start;

	while ((d = USBD_ParseDescriptors(cd, len, p, USB_DT_INTERFACE))) {
		if (d->bLength >= USB_DT_INTERFACE_SIZE &&
		    (number == -1 || d->bInterfaceNumber == number) &&
		    (alternate == -1 || d->bAlternateSetting == alternate) &&
		    (class == -1 || d->bInterfaceClass == class) &&
		    (subclass == -1 || d->bInterfaceSubClass == subclass) &&
		    (protocol == -1 || d->bInterfaceProtocol == protocol))
			return d;
		p = (u8 *)d + d->bLength;
	}
	return NULL;
}
WIN_FUNC(USBD_ParseConfigurationDescriptorEx);

/* The older form: by interface number and alternate setting only. */
static WIN_ABI struct usb_interface_descriptor *
USBD_ParseConfigurationDescriptor(struct usb_config_descriptor *cd,
				  u8 number, u8 alternate)
{
	return USBD_ParseConfigurationDescriptorEx(cd, cd, number, alternate,
						   -1, -1, -1);
}
WIN_FUNC(USBD_ParseConfigurationDescriptor);

/* USBD_VERSION_INFORMATION */
struct usbd_version_information {
	u32 usbdi_version;
	u32 supported_usb_version;	/* BCD */
};

/* Windows XP's USBD interface (0x500), on a USB 2.0 stack; NULL asks
 * nothing. */
static WIN_ABI void
USBD_GetUSBDIVersion(struct usbd_version_information *info)
{
	if (!info)
		return;
	info->usbdi_version = 0x500;
	info->supported_usb_version = 0x200;
}
WIN_FUNC(USBD_GetUSBDIVersion);
