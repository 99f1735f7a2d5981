// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: PCI binding (starting and stopping is adapter.c's).
 *
 * The ids of the installed Windows drivers are only known at run time
 * (loader.c), so the driver matches every PCI device and its probe accepts
 * only the ones the helper listed; pci_add_dynid() would do the same but
 * is one more GPL-only export the refusing policies would then name in
 * an "Unknown symbol" line, for nothing the wrapper needs.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/pci.h>

#include "ndis.h"

static const struct pci_device_id ndis_pci_ids[] = {
	{ PCI_DEVICE(PCI_ANY_ID, PCI_ANY_ID) },
	{ }
};

static int ndis_pci_probe(struct pci_dev *pdev,
			  const struct pci_device_id *ent)
{
	struct ndis_device_id id;
	struct ndis_adapter *ad;
	int err;

	if (!ndis_find_device(NDIS_BUS_PCI, pdev->vendor, pdev->device,
			      pdev->subsystem_vendor, pdev->subsystem_device,
			      &id))
		return -ENODEV;

	ad = ndis_adapter_create(&pdev->dev, NDIS_BUS_PCI, &id);
	if (IS_ERR(ad))
		return PTR_ERR(ad);
	ad->pdev = pdev;

	err = pci_enable_device(pdev);
	if (err)
		goto err_destroy;
	pci_set_master(pdev);
	err = pci_request_regions(pdev, KBUILD_MODNAME);
	if (err)
		goto err_disable;
	err = ndis_adapter_start(ad);
	if (err)
		goto err_release;
	pci_set_drvdata(pdev, ad);
	return 0;

err_release:
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
err_destroy:
	ndis_adapter_destroy(ad);
	return err;
}

/* Unbind (rmmod): halt the miniport, free everything. */
static void ndis_pci_remove(struct pci_dev *pdev)
{
	struct ndis_adapter *ad = pci_get_drvdata(pdev);

	ndis_adapter_stop(ad, false);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	ndis_adapter_destroy(ad);
}

/* Power off or reboot: the miniport's shutdown handler stops the chip. */
static void ndis_pci_shutdown(struct pci_dev *pdev)
{
	struct ndis_adapter *ad = pci_get_drvdata(pdev);

	if (ad)
		ndis_hw_shutdown(ad);
}

static struct pci_driver ndis_pci_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= ndis_pci_ids,
	.probe		= ndis_pci_probe,
	.remove		= ndis_pci_remove,
	.shutdown	= ndis_pci_shutdown,
};

int __init ndisbench_pci_init(void)
{
	return pci_register_driver(&ndis_pci_driver);
}

void ndisbench_pci_exit(void)
{
	pci_unregister_driver(&ndis_pci_driver);
}
