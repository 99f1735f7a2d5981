// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: module init and exit.
 *
 * The same sources build as ndiswrapper.ko, driverloader.ko and
 * ndisbench_control.ko (see Kbuild). Deferred Windows routines run on the
 * module's own workqueues (ndiswrapper.h says which runs what).
 * alloc_workqueue(), destroy_workqueue() and the USB functions (usb.c) are
 * GPL-only exports on the kernels the policies are replayed on, so a
 * module tainted P is refused them; they are not the historical wrapper's
 * imports (alloc_workqueue only exists since 2.6.36).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/printk.h>
#include <linux/workqueue.h>

#include "ndiswrapper.h"

struct workqueue_struct *ndis_wq;
struct workqueue_struct *ndis_irp_wq;
struct workqueue_struct *ndis_work_wq;

static int __init ndis_init(void)
{
	int err;

	ndis_wq = alloc_workqueue("%s", WQ_UNBOUND, 0, KBUILD_MODNAME);
	if (!ndis_wq)
		return -ENOMEM;
	err = -ENOMEM;
	ndis_irp_wq = alloc_workqueue("%s_irp", WQ_UNBOUND, 0, KBUILD_MODNAME);
	if (!ndis_irp_wq)
		goto err_destroy_wq;
	ndis_work_wq = alloc_workqueue("%s_work", WQ_UNBOUND, 0,
				       KBUILD_MODNAME);
	if (!ndis_work_wq)
		goto err_destroy_irp_wq;

	err = ndis_loader_init();
	if (err)
		goto err_destroy_work_wq;

	err = ndisbench_pci_init();
	if (err)
		goto err_loader_exit;

	err = ndisbench_usb_init();
	if (err)
		goto err_pci_exit;

	pr_info("loaded (pci and usb drivers registered)\n");
	return 0;

err_pci_exit:
	ndisbench_pci_exit();
err_loader_exit:
	ndis_loader_exit();
err_destroy_work_wq:
	destroy_workqueue(ndis_work_wq);
err_destroy_irp_wq:
	destroy_workqueue(ndis_irp_wq);
err_destroy_wq:
	destroy_workqueue(ndis_wq);
	return err;
}

static void __exit ndis_exit(void)
{
	ndisbench_usb_exit();
	ndisbench_pci_exit();
	ndis_loader_exit();
	win_kuser_exit();
	destroy_workqueue(ndis_work_wq);
	destroy_workqueue(ndis_irp_wq);
	destroy_workqueue(ndis_wq);
}

module_init(ndis_init);
module_exit(ndis_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("ndisbench");
MODULE_DESCRIPTION("NDIS 5.1 miniport wrapper for Windows network drivers");
MODULE_VERSION("0.2");
