// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NdisMRegisterDevice and NdisMDeregisterDevice, the control
 * device a miniport makes beside its adapter (for its own configuration
 * tool, on Windows).
 *
 * The device object is made by the I/O manager's code (ntos_devobj.c)
 * for the miniport's DRIVER_OBJECT, with the device name, and the
 * symbolic link when one is given; the dispatch table the miniport passes
 * is kept with it. Nothing here is visible to Linux user space: there is
 * no \Device or \DosDevices namespace for a program to open, so no IRP is
 * ever sent to the device and the table's routines are never called. A
 * miniport that registers one still initializes and runs; one whose
 * configuration tool matters needs Windows.
 *
 * Written from the NDIS 5.1 reference: PASSIVE_LEVEL, the table has
 * IRP_MJ_MAXIMUM_FUNCTION + 1 entries, the device is ready for I/O when
 * the call returns (not DO_DEVICE_INITIALIZING), and the NdisDeviceHandle
 * is what NdisMDeregisterDevice takes back.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/types.h>

#include "ndis_core.h"
#include "wdm.h"
#include "winexport.h"

#define NDIS_DEVICE_MAGIC		0x76654444	/* "DDev" */
#define IRP_MJ_MAXIMUM_FUNCTION		0x1b
#define FILE_DEVICE_NETWORK		0x12
#define STATUS_OBJECT_NAME_COLLISION	0xC0000035

struct ndis_device {
	u32 magic;
	void *device;			/* DEVICE_OBJECT */
	void *major[IRP_MJ_MAXIMUM_FUNCTION + 1];
	struct win_unicode_string link;	/* empty: none */
	u16 link_name[];
};

static WIN_ABI ndis_status
NdisMRegisterDevice(void *wrapper_handle,
		    const struct win_unicode_string *device_name,
		    const struct win_unicode_string *symbolic_name,
		    void *const *major_functions, void **device_object,
		    void **device_handle)
{
	unsigned long caller = (unsigned long)__builtin_return_address(0);
	struct ndis_driver *drv = ndis_driver_at(caller);
	size_t link_len = 0;
	struct ndis_device *d;
	s32 st;

	if (device_object)
		*device_object = NULL;
	if (device_handle)
		*device_handle = NULL;
	if (!drv || !wrapper_handle || !device_name ||
	    !device_name->length || !device_name->buffer ||
	    !major_functions || !device_object || !device_handle)
		return NDIS_STATUS_FAILURE;
	if (symbolic_name && symbolic_name->length) {
		if (!symbolic_name->buffer)
			return NDIS_STATUS_FAILURE;
		link_len = symbolic_name->length & ~1u;
	}
	d = win_alloc(drv, sizeof(*d) + link_len);
	if (!d)
		return NDIS_STATUS_RESOURCES;
	memcpy(d->major, major_functions, sizeof(d->major));
	st = ntos_create_device(caller,
				ndis_wrapper_driver_object(wrapper_handle),
				0, device_name, FILE_DEVICE_NETWORK, 0,
				&d->device);
	if (st)
		goto fail;
	if (link_len) {
		memcpy(d->link_name, symbolic_name->buffer, link_len);
		d->link.buffer = d->link_name;
		d->link.length = link_len;
		d->link.max_length = link_len;
		st = ntos_create_link(caller, &d->link, device_name);
		if (st)
			goto fail_device;
	}
	((struct win_device_object *)d->device)->flags &=
		~WIN_DO_DEVICE_INITIALIZING;
	d->magic = NDIS_DEVICE_MAGIC;
	*device_object = d->device;
	*device_handle = d;
	return NDIS_STATUS_SUCCESS;

fail_device:
	ntos_delete_device(caller, d->device);
fail:
	win_free(d);
	return st == (s32)STATUS_OBJECT_NAME_COLLISION ?
		NDIS_STATUS_FAILURE : NDIS_STATUS_RESOURCES;
}
WIN_FUNC(NdisMRegisterDevice);

static WIN_ABI ndis_status NdisMDeregisterDevice(void *device_handle)
{
	struct ndis_device *d = device_handle;

	if (!d || d->magic != NDIS_DEVICE_MAGIC) {
		pr_warn_ratelimited("NdisMDeregisterDevice: not a device NdisMRegisterDevice made, ignored\n");
		return NDIS_STATUS_FAILURE;
	}
	d->magic = 0;
	if (d->link.length)
		ntos_delete_link(&d->link);
	ntos_delete_device((unsigned long)__builtin_return_address(0),
			   d->device);
	win_free(d);
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMDeregisterDevice);
