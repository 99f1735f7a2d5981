// SPDX-License-Identifier: GPL-2.0
/*
 * ndisbench stand-in for an NDIS wrapper: PCI driver.
 *
 * The ID table is empty for now: binding to the devices of the installed
 * Windows drivers comes with the driver loader.
 */

#include <linux/pci.h>

#include "ndiswrapper.h"

static const struct pci_device_id ndisbench_pci_ids[] = {
	{ }
};

/* Nothing binds until the driver loader exists, hence no remove either. */
static int ndisbench_pci_probe(struct pci_dev *pdev,
			       const struct pci_device_id *id)
{
	return -ENODEV;
}

static struct pci_driver ndisbench_pci_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= ndisbench_pci_ids,
	.probe		= ndisbench_pci_probe,
};

int __init ndisbench_pci_init(void)
{
	return pci_register_driver(&ndisbench_pci_driver);
}

void ndisbench_pci_exit(void)
{
	pci_unregister_driver(&ndisbench_pci_driver);
}
