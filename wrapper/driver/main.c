// SPDX-License-Identifier: GPL-2.0
/*
 * ndisbench stand-in for an NDIS wrapper: module init/exit and workqueue.
 *
 * The same sources build as ndiswrapper.ko, driverloader.ko and
 * ndisbench_control.ko (see Kbuild). At init the module uses the
 * EXPORT_SYMBOL_GPL functions alloc_workqueue(), destroy_workqueue(),
 * usb_register_driver() and usb_deregister(), so a module that the loader
 * taints with TAINT_PROPRIETARY_MODULE because of its name fails to load.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/printk.h>
#include <linux/workqueue.h>

#include "ndiswrapper.h"

static struct workqueue_struct *ndisbench_wq;

static void ndisbench_work_fn(struct work_struct *work)
{
	pr_debug("workqueue is running\n");
}

static DECLARE_WORK(ndisbench_work, ndisbench_work_fn);

static int __init ndisbench_init(void)
{
	int err;

	ndisbench_wq = alloc_workqueue("%s", WQ_UNBOUND, 0, KBUILD_MODNAME);
	if (!ndisbench_wq)
		return -ENOMEM;

	queue_work(ndisbench_wq, &ndisbench_work);
	flush_workqueue(ndisbench_wq);

	err = ndisbench_pci_init();
	if (err)
		goto err_destroy_wq;

	err = ndisbench_usb_init();
	if (err)
		goto err_pci_exit;

	pr_info("loaded (pci and usb drivers registered)\n");
	return 0;

err_pci_exit:
	ndisbench_pci_exit();
err_destroy_wq:
	destroy_workqueue(ndisbench_wq);
	return err;
}

static void __exit ndisbench_exit(void)
{
	ndisbench_usb_exit();
	ndisbench_pci_exit();
	destroy_workqueue(ndisbench_wq);
}

module_init(ndisbench_init);
module_exit(ndisbench_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("ndisbench");
MODULE_DESCRIPTION("ndisbench stand-in for an NDIS wrapper");
MODULE_VERSION("0.1");
