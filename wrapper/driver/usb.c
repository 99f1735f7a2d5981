// SPDX-License-Identifier: GPL-2.0
/*
 * ndisbench stand-in for an NDIS wrapper: USB driver.
 *
 * The ID table is empty for now: binding to the devices of the installed
 * Windows drivers comes with the driver loader. usb_register_driver() and
 * usb_deregister() are EXPORT_SYMBOL_GPL, which is what the taint policy
 * checks are about.
 */

#include <linux/usb.h>

#include "ndiswrapper.h"

static const struct usb_device_id ndisbench_usb_ids[] = {
	{ }
};

/* Nothing binds until the driver loader exists, hence no disconnect. */
static int ndisbench_usb_probe(struct usb_interface *intf,
			       const struct usb_device_id *id)
{
	return -ENODEV;
}

static struct usb_driver ndisbench_usb_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= ndisbench_usb_ids,
	.probe		= ndisbench_usb_probe,
};

int __init ndisbench_usb_init(void)
{
	return usb_register(&ndisbench_usb_driver);
}

void ndisbench_usb_exit(void)
{
	usb_deregister(&ndisbench_usb_driver);
}
