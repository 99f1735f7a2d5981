// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: USBD.SYS, the helpers an NDIS-WDM USB driver links against
 * to build its configuration request (the descriptor walks are in
 * usbd_desc.c). The requests themselves go down as IRPs (usb.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/usb/ch9.h>

#include "ndis_core.h"
#include "usbd.h"
#include "winexport.h"

/*
 * Builds the URB that selects a configuration with the listed interfaces:
 * one USBD_INTERFACE_INFORMATION per list entry, room for its pipes, and
 * the entry's Interface pointing at it. Pool memory the driver frees with
 * ExFreePoolWithTag.
 */
static union win_urb *usbd_config_request(struct ndis_driver *drv,
					  struct usb_config_descriptor *cd,
					  struct usbd_interface_list_entry *list)
{
	struct usbd_interface_list_entry *e;
	union win_urb *urb;
	size_t size = sizeof(struct urb_select_configuration);
	u8 *p;

	if (!drv || !cd || !list)
		return NULL;
	for (e = list; e->interface_descriptor; e++) {
		struct usb_interface_descriptor *d = e->interface_descriptor;

		size += USBD_INTERFACE_SIZE(d->bNumEndpoints);
		if (size > U16_MAX)
			return NULL;
	}
	urb = win_alloc(drv, size);
	if (!urb)
		return NULL;
	urb->select.hdr.length = size;
	urb->select.hdr.function = URB_FUNCTION_SELECT_CONFIGURATION;
	urb->select.configuration_descriptor = cd;
	p = urb->select.interface;
	for (e = list; e->interface_descriptor; e++) {
		struct usb_interface_descriptor *d = e->interface_descriptor;
		struct usbd_interface_information *info = (void *)p;
		unsigned int i;

		info->length = USBD_INTERFACE_SIZE(d->bNumEndpoints);
		info->interface_number = d->bInterfaceNumber;
		info->alternate_setting = d->bAlternateSetting;
		info->number_of_pipes = d->bNumEndpoints;
		for (i = 0; i < d->bNumEndpoints; i++)
			info->pipes[i].maximum_transfer_size =
				USBD_DEFAULT_MAXIMUM_TRANSFER_SIZE;
		e->interface = info;
		p += info->length;
	}
	return urb;
}

static WIN_ABI union win_urb *
USBD_CreateConfigurationRequestEx(struct usb_config_descriptor *cd,
				  struct usbd_interface_list_entry *list)
{
	return usbd_config_request(ndis_driver_at((unsigned long)
					  __builtin_return_address(0)),
				   cd, list);
}
WIN_FUNC(USBD_CreateConfigurationRequestEx);

extern const struct win_export win_export_USBD_ParseConfigurationDescriptorEx;

typedef WIN_ABI struct usb_interface_descriptor *
(*usbd_parse_config_fn)(struct usb_config_descriptor *cd, void *start,
			s32 number, s32 alternate, s32 class, s32 subclass,
			s32 protocol);

/*
 * The form before Windows 2000: Microsoft's documentation names no
 * interface; the request selects the configuration with its first
 * interface in alternate setting 0, what the one-interface devices of
 * that time had. *size gets the URB's size (0 when there is none).
 */
static WIN_ABI union win_urb *
USBD_CreateConfigurationRequest(struct usb_config_descriptor *cd, u16 *size)
{
	usbd_parse_config_fn parse =
		win_export_USBD_ParseConfigurationDescriptorEx.func;
	struct usbd_interface_list_entry list[2] = { };
	union win_urb *urb = NULL;
	struct ndis_driver *drv;

	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	if (drv && cd)
		list[0].interface_descriptor = parse(cd, cd, -1, 0, -1, -1, -1);
	if (list[0].interface_descriptor)
		urb = usbd_config_request(drv, cd, list);
	*size = urb ? urb->hdr.length : 0;
	return urb;
}
WIN_FUNC(USBD_CreateConfigurationRequest);
