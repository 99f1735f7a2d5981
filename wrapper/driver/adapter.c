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

#include <linux/completion.h>
#include <linux/err.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

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
	INIT_LIST_HEAD(&ad->shared);
	INIT_LIST_HEAD(&ad->ports);
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
	ndis_config_free_params(&ad->config);
	ndis_log_release(&ad->log);
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
	ndis_hang_start(ad);
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
	ndis_hang_stop(ad);
	ndis_netdev_unregister(ad);
	ndis_netdev_quiesce(ad, true);
	LIN2WIN1(c->halt, ad->ctx);
	ndis_adapter_cleanup(ad);
}

/* -- CheckForHang and Reset --------------------------------------------- */

/*
 * As NDIS does: every CheckForHangTimeInSeconds (NdisMSetAttributesEx;
 * 0: the default 2 s) MiniportCheckForHang runs at DISPATCH_LEVEL, and
 * when it answers TRUE, MiniportReset. Meanwhile no send and no request
 * reaches the miniport (oid_lock held, resetting set); a reset that
 * pends ends with NdisMResetComplete (the block's ResetCompleteHandler),
 * within NDIS_RESET_TIMEOUT. One that lost the addressing
 * (AddressingReset TRUE) gets the packet filter again; then the held
 * sends go. The work runs on ndis_work_wq: it waits, and the reset's
 * completion may come from a timer DPC on ndis_wq.
 */
#define NDIS_HANG_DEFAULT_SECS	2
#define NDIS_RESET_TIMEOUT	(5 * HZ)

void ndis_reset(struct ndis_adapter *ad, const char *found_by)
{
	struct ndis_miniport_chars *c = &ad->driver->chars;
	u8 addressing = 0;
	ndis_status status;

	mutex_lock(&ad->oid_lock);
	reinit_completion(&ad->reset_done);
	WRITE_ONCE(ad->resetting, true);
	netif_stop_queue(ad->net);
	ndis_serialize(ad);
	status = DPC2WIN2(c->reset, &addressing, ad->ctx);
	ndis_unserialize(ad);
	if (status == NDIS_STATUS_PENDING) {
		if (!wait_for_completion_timeout(&ad->reset_done,
						 NDIS_RESET_TIMEOUT)) {
			netdev_err(ad->net, "reset: no NdisMResetComplete within %u s\n",
				   NDIS_RESET_TIMEOUT / HZ);
			status = NDIS_STATUS_FAILURE;
		} else {
			status = ad->reset_status;
			addressing = ad->reset_addressing;
		}
	}
	WRITE_ONCE(ad->resetting, false);
	mutex_unlock(&ad->oid_lock);
	netdev_warn(ad->net, "the driver was hung: reset %s (status %#x)%s, found by %s\n",
		    status == NDIS_STATUS_SUCCESS ? "done" : "failed", status,
		    addressing ? ", addressing restored" : "", found_by);
	if (status == NDIS_STATUS_SUCCESS && addressing)
		ndis_restore_filter(ad);
	netif_wake_queue(ad->net);
	/* NDIS sends what it held again after a reset */
	WRITE_ONCE(ad->tx_blocked, false);
	queue_work(ndis_wq, &ad->tx_work);
}

static void ndis_hang_work(struct work_struct *work)
{
	struct ndis_adapter *ad = container_of(to_delayed_work(work),
					       struct ndis_adapter, hang_work);
	struct ndis_miniport_chars *c = &ad->driver->chars;
	u8 hung;

	ndis_serialize(ad);
	hung = DPC2WIN1(c->check_for_hang, ad->ctx);
	ndis_unserialize(ad);
	if (hung && c->reset)
		ndis_reset(ad, "CheckForHang");
	if (READ_ONCE(ad->hang_on))
		queue_delayed_work(ndis_work_wq, &ad->hang_work,
				   ad->hang_secs * HZ);
}

/* Once the net device is registered. */
void ndis_hang_start(struct ndis_adapter *ad)
{
	if (!ad->driver->chars.check_for_hang)
		return;
	if (!ad->hang_secs)
		ad->hang_secs = NDIS_HANG_DEFAULT_SECS;
	INIT_DELAYED_WORK(&ad->hang_work, ndis_hang_work);
	WRITE_ONCE(ad->hang_on, true);
	queue_delayed_work(ndis_work_wq, &ad->hang_work, ad->hang_secs * HZ);
}

/* Before MiniportHalt: no CheckForHang or Reset beside or after it. */
void ndis_hang_stop(struct ndis_adapter *ad)
{
	if (!READ_ONCE(ad->hang_on))
		return;
	WRITE_ONCE(ad->hang_on, false);
	cancel_delayed_work_sync(&ad->hang_work);
}

void ndis_adapter_destroy(struct ndis_adapter *ad)
{
	ndis_config_free_written(&ad->config);
	ndis_put_driver(ad->driver);
	kvfree(ad->settings);
	kfree(ad);
}
