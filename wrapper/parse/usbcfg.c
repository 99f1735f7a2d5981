// SPDX-License-Identifier: GPL-2.0
/* URB_FUNCTION_SELECT_CONFIGURATION's interface list (usbcfg.h). */
#include "usbcfg.h"

static void ndis_usbcfg_fill(struct usbd_interface_information *info,
			     const struct ndis_usbcfg_dev *dev)
{
	u32 i;

	info->class = dev->class;
	info->subclass = dev->subclass;
	info->protocol = dev->protocol;
	info->interface_handle = dev->handle;
	info->number_of_pipes = dev->num_pipes;
	for (i = 0; i < dev->num_pipes; i++) {
		struct usbd_pipe_information *pi = &info->pipes[i];
		const struct ndis_usbcfg_pipe *pipe = &dev->pipes[i];

		pi->maximum_packet_size = pipe->max_packet;
		pi->endpoint_address = pipe->address;
		pi->interval = pipe->interval;
		pi->pipe_type = pipe->type;
		pi->pipe_handle = pipe->handle;
		/* the driver's own limit stands; none is the default */
		if (!pi->maximum_transfer_size)
			pi->maximum_transfer_size =
				USBD_DEFAULT_MAXIMUM_TRANSFER_SIZE;
	}
}

int ndis_usbcfg_select(u8 *list, size_t size, u8 config_value,
		       const struct ndis_usbcfg_dev *dev)
{
	u8 *p = list, *end = list + size;

	if (size < USBD_INTERFACE_SIZE(0) || config_value != dev->config_value)
		return -EINVAL;
	while (end - p >= (long)sizeof(struct usbd_interface_information)) {
		struct usbd_interface_information *info = (void *)p;

		/*
		 * GET_USBD_INTERFACE_SIZE keeps every entry aligned; another
		 * Length would put the next one where it cannot be read.
		 */
		if (info->length < sizeof(*info) || info->length > end - p ||
		    info->length % __alignof__(*info))
			return -EINVAL;
		p += info->length;
		if (info->interface_number != dev->interface_number) {
			info->interface_handle = NULL;
			info->number_of_pipes = 0;
			continue;
		}
		if (info->alternate_setting != dev->alternate_setting ||
		    info->length < USBD_INTERFACE_SIZE(dev->num_pipes))
			return -EINVAL;
		ndis_usbcfg_fill(info, dev);
	}
	return 0;
}
