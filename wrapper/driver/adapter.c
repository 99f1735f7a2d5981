// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: starting and stopping an adapter, whatever its bus.
 *
 * pci.c and usb.c bind a device, then come here: ndis_adapter_create()
 * asks the helper for the driver and loads it, ndis_adapter_start() runs
 * MiniportInitialize and registers the net device, ndis_adapter_stop()
 * undoes that (the surprise removal variant tells the miniport first) and
 * ndis_adapter_destroy() frees the rest. The bus files only enable their
 * device before and disable it after. Everything here runs in process
 * context, at PASSIVE_LEVEL for the Windows code it calls.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/slab.h>

#include "ndis.h"
#include "wincall.h"

#define NDIS_DEVICE_PNP_EVENT_SURPRISE_REMOVED	2

struct ndis_adapter *ndis_adapter_create(struct device *dev, u32 bus,
					 const struct ndis_device_id *id)
{
	struct ndis_load_req *req;
	struct ndis_adapter *ad;
	int err;

	req = ndis_request_driver(id);
	if (IS_ERR(req))
		return ERR_CAST(req);
	ad = kzalloc(sizeof(*ad), GFP_KERNEL);
	if (!ad) {
		ndis_free_request(req);
		return ERR_PTR(-ENOMEM);
	}
	ad->driver = ndis_load_driver(req);
	ad->settings = req->settings;	/* the adapter owns them now */
	ad->num_settings = req->num_settings;
	req->settings = NULL;
	ndis_free_request(req);
	if (IS_ERR(ad->driver)) {
		err = PTR_ERR(ad->driver);
		kvfree(ad->settings);
		kfree(ad);
		return ERR_PTR(err);
	}
	ad->dev = dev;
	ad->bus = bus;
	INIT_LIST_HEAD(&ad->params);
	INIT_LIST_HEAD(&ad->shared);
	INIT_LIST_HEAD(&ad->timers);
	ndis_init_block(ad);
	ndis_wdm_init_dev(ad);
	return ad;
}

/* After MiniportHalt, or a failed MiniportInitialize. */
static void ndis_adapter_cleanup(struct ndis_adapter *ad)
{
	ndis_netdev_quiesce(ad, false);
	ndis_stop_timers(ad);
	if (ad->bus == NDIS_BUS_USB)
		ndis_usb_stop_io(ad);
	ndis_flush_work_items();
	if (ad->bus == NDIS_BUS_PCI)
		ndis_hw_teardown(ad);
	ndis_free_params(ad);
	ndis_netdev_free(ad);
}

int ndis_adapter_start(struct ndis_adapter *ad)
{
	u32 medium = NDIS_MEDIUM_802_3, index = 0, open_error = 0;
	struct ndis_driver *drv = ad->driver;
	ndis_status status;
	int err;

	if (ad->bus == NDIS_BUS_PCI) {
		err = ndis_hw_setup(ad);
		if (err)
			return err;
	}
	err = ndis_netdev_alloc(ad);
	if (err)
		goto err_hw;

	status = LIN2WIN6(drv->chars.initialize, &open_error, &index, &medium,
			  1, &ad->block, ad);
	if (status != NDIS_STATUS_SUCCESS || index != 0) {
		pr_err("%s: MiniportInitialize failed on %s (status %#x)\n",
		       drv->name, dev_name(ad->dev), status);
		ndis_adapter_cleanup(ad);
		return -ENODEV;
	}
	err = ndis_netdev_register(ad);
	if (err) {
		ndis_netdev_quiesce(ad, true);
		LIN2WIN1(drv->chars.halt, ad->ctx);
		ndis_adapter_cleanup(ad);
		return err;
	}
	return 0;

err_hw:
	if (ad->bus == NDIS_BUS_PCI)
		ndis_hw_teardown(ad);
	return err;
}

/*
 * Unbind. On a surprise removal the bus has already failed the I/O in
 * flight; the miniport hears of the removal before its interface goes
 * and it is halted.
 */
void ndis_adapter_stop(struct ndis_adapter *ad, bool surprise)
{
	struct ndis_miniport_chars *c = &ad->driver->chars;

	if (surprise && c->major >= 5 && c->pnp_event_notify)
		LIN2WIN4(c->pnp_event_notify, ad->ctx,
			 NDIS_DEVICE_PNP_EVENT_SURPRISE_REMOVED, NULL, 0);
	ndis_netdev_unregister(ad);
	ndis_netdev_quiesce(ad, true);
	LIN2WIN1(c->halt, ad->ctx);
	ndis_adapter_cleanup(ad);
}

void ndis_adapter_destroy(struct ndis_adapter *ad)
{
	ndis_put_driver(ad->driver);
	kvfree(ad->settings);
	kfree(ad);
}
