/* SPDX-License-Identifier: GPL-2.0 */
/*
 * URB_FUNCTION_SELECT_CONFIGURATION: the interface list a driver hands in
 * (USBD_INTERFACE_INFORMATION entries, each with room for its pipes,
 * usbdi.h in Microsoft's WDK reference), checked against the URB's size
 * and the device's real descriptors, and filled with the pipes of the
 * interface the wrapper drives. Layouts: the host's pointer size, which is
 * the Windows one the module is built for (usbd.h asserts the offsets).
 */
#ifndef NDIS_PARSE_USBCFG_H
#define NDIS_PARSE_USBCFG_H

#include "parse_compat.h"

#define USBD_DEFAULT_MAXIMUM_TRANSFER_SIZE	4096

struct usbd_pipe_information {
	u16 maximum_packet_size;
	u8 endpoint_address;
	u8 interval;
	s32 pipe_type;
	void *pipe_handle;
	u32 maximum_transfer_size;
	u32 pipe_flags;
};

struct usbd_interface_information {
	u16 length;			/* with all its pipes */
	u8 interface_number;
	u8 alternate_setting;
	u8 class;
	u8 subclass;
	u8 protocol;
	u8 reserved;
	void *interface_handle;
	u32 number_of_pipes;
	struct usbd_pipe_information pipes[];
};

/* The size of an interface entry with n pipes (GET_USBD_INTERFACE_SIZE). */
#define USBD_INTERFACE_SIZE(n) \
	(sizeof(struct usbd_interface_information) + \
	 (n) * sizeof(struct usbd_pipe_information))

/* One endpoint of the interface's current alternate setting. */
struct ndis_usbcfg_pipe {
	u16 max_packet;
	u8 address;
	u8 interval;
	s32 type;			/* USBD_PIPE_* */
	void *handle;
};

/* The device as the USB core configured it, from its descriptors. */
struct ndis_usbcfg_dev {
	u8 config_value;		/* the active bConfigurationValue */
	u8 interface_number;
	u8 alternate_setting;		/* the current one */
	u8 class;
	u8 subclass;
	u8 protocol;
	u32 num_pipes;
	const struct ndis_usbcfg_pipe *pipes;
	void *handle;			/* the interface's handle */
};

/*
 * list: the interface entries, size bytes up to the end of the URB (its
 * header's Length); config_value: the bConfigurationValue of the
 * configuration descriptor the driver hands in. Entries of other
 * interfaces get no handle and no pipes; the device's interface gets its
 * handle and pipes when the driver asks for its current alternate setting
 * and left room for every pipe. Returns 0, or -EINVAL (nothing more is
 * written) for another configuration or alternate setting, an empty list
 * or an entry whose Length is shorter than its header, runs past size or
 * is not a multiple of the entry's alignment. list must be aligned as an
 * entry (it is, inside a URB).
 */
int ndis_usbcfg_select(u8 *list, size_t size, u8 config_value,
		       const struct ndis_usbcfg_dev *dev);

#endif /* NDIS_PARSE_USBCFG_H */
