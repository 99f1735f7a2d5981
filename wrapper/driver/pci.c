// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: PCI binding, and starting and stopping an adapter.
 *
 * The ids of the installed Windows drivers are only known at run time
 * (loader.c), so the driver matches every PCI device and its probe accepts
 * only the ones the helper listed; pci_add_dynid() would do the same but
 * is a GPL-only export the taint policies would then refuse, and the
 * bench's expectation of the GPL-only imports should stay about the
 * workqueue and USB functions the historical wrapper needed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/pci.h>

#include "ndis.h"
#include "wincall.h"

static const struct pci_device_id ndis_pci_ids[] = {
	{ PCI_DEVICE(PCI_ANY_ID, PCI_ANY_ID) },
	{ }
};

/* Unwinds ndis_pci_start() from the point where the device was enabled. */
static void ndis_pci_release(struct ndis_adapter *ad)
{
	ndis_stop_timers(ad);
	ndis_hw_teardown(ad);
	ndis_free_params(ad);
	ndis_netdev_free(ad);
	pci_release_regions(ad->pdev);
	pci_disable_device(ad->pdev);
}

static int ndis_pci_start(struct pci_dev *pdev, struct ndis_adapter *ad)
{
	u32 medium = NDIS_MEDIUM_802_3, index = 0, open_error = 0;
	struct ndis_driver *drv = ad->driver;
	ndis_status status;
	int err;

	err = pci_enable_device(pdev);
	if (err)
		return err;
	pci_set_master(pdev);
	err = pci_request_regions(pdev, KBUILD_MODNAME);
	if (err)
		goto err_disable;
	err = ndis_hw_setup(ad);
	if (err)
		goto err_release;
	err = ndis_netdev_alloc(ad);
	if (err)
		goto err_hw;

	status = LIN2WIN6(drv->chars.initialize, &open_error, &index, &medium,
			  1, &ad->block, ad);
	if (status != NDIS_STATUS_SUCCESS || index != 0) {
		pr_err("%s: MiniportInitialize failed on %s (status %#x)\n",
		       drv->name, pci_name(pdev), status);
		ndis_pci_release(ad);
		return -ENODEV;
	}
	err = ndis_netdev_register(ad);
	if (err) {
		LIN2WIN1(drv->chars.halt, ad->ctx);
		ndis_pci_release(ad);
		return err;
	}
	return 0;

err_hw:
	ndis_hw_teardown(ad);
err_release:
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
	return err;
}

static int ndis_pci_probe(struct pci_dev *pdev,
			  const struct pci_device_id *ent)
{
	struct ndis_device_id id;
	struct ndis_load_req *req;
	struct ndis_adapter *ad;
	int err;

	if (!ndis_find_device(NDIS_BUS_PCI, pdev->vendor, pdev->device,
			      pdev->subsystem_vendor, pdev->subsystem_device,
			      &id))
		return -ENODEV;

	req = ndis_request_driver(&id);
	if (IS_ERR(req))
		return PTR_ERR(req);
	ad = kzalloc(sizeof(*ad), GFP_KERNEL);
	if (!ad) {
		ndis_free_request(req);
		return -ENOMEM;
	}
	ad->driver = ndis_load_driver(req);
	ad->settings = req->settings;	/* the adapter owns them now */
	ad->num_settings = req->num_settings;
	req->settings = NULL;
	ndis_free_request(req);
	if (IS_ERR(ad->driver)) {
		err = PTR_ERR(ad->driver);
		goto err_free_ad;
	}
	ad->pdev = pdev;
	INIT_LIST_HEAD(&ad->params);
	INIT_LIST_HEAD(&ad->shared);
	INIT_LIST_HEAD(&ad->timers);
	ndis_init_block(ad);

	err = ndis_pci_start(pdev, ad);
	if (err)
		goto err_put_driver;
	pci_set_drvdata(pdev, ad);
	return 0;

err_put_driver:
	ndis_put_driver(ad->driver);
err_free_ad:
	kvfree(ad->settings);
	kfree(ad);
	return err;
}

/* Unbind (rmmod): halt the miniport, free everything. */
static void ndis_pci_remove(struct pci_dev *pdev)
{
	struct ndis_adapter *ad = pci_get_drvdata(pdev);

	ndis_netdev_unregister(ad);
	LIN2WIN1(ad->driver->chars.halt, ad->ctx);
	ndis_pci_release(ad);
	ndis_put_driver(ad->driver);
	kvfree(ad->settings);
	kfree(ad);
}

static struct pci_driver ndis_pci_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= ndis_pci_ids,
	.probe		= ndis_pci_probe,
	.remove		= ndis_pci_remove,
};

int __init ndisbench_pci_init(void)
{
	return pci_register_driver(&ndis_pci_driver);
}

void ndisbench_pci_exit(void)
{
	pci_unregister_driver(&ndis_pci_driver);
}
