/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: declarations shared by the module's parts.
 */

#ifndef NDISWRAPPER_H
#define NDISWRAPPER_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "../include/loader_abi.h"
#include "compat.h"

struct pci_dev;

/*
 * The module's workqueues (main.c), one per kind of deferred Windows code,
 * so that no queue ever waits on itself:
 *  ndis_wq: DPC-like work at DISPATCH_LEVEL (timers, interrupt DPCs,
 *	sends, packet returns, filter changes); never waits;
 *  ndis_irp_wq: IRP completion routines (DISPATCH_LEVEL), fed by the
 *	Linux URB completions;
 *  ndis_work_wq: NdisScheduleWorkItem routines (PASSIVE_LEVEL); may wait
 *	for IRPs, i.e. for ndis_irp_wq.
 */
extern struct workqueue_struct *ndis_wq;
extern struct workqueue_struct *ndis_irp_wq;
extern struct workqueue_struct *ndis_work_wq;

/*
 * What /sbin/loadndisdriver handed over for one device: the .sys image and
 * the device's settings, all validated and copied into the kernel.
 */
struct ndis_load_req {
	struct list_head list;
	struct ndis_device_id id;	/* the device being probed */
	bool done;			/* the helper answered */
	char sys_name[NDIS_MAX_NAME];
	void *sys_data;			/* kvmalloc'ed */
	size_t sys_size;
	struct ndis_setting *settings;	/* kvmalloc'ed */
	u32 num_settings;
};

/* loader.c: /dev/<module name> and the user-space helper. */
int ndis_loader_init(void);
void ndis_loader_exit(void);
bool ndis_find_device(u32 bus, u16 vendor, u16 device, u16 subvendor,
		      u16 subdevice, struct ndis_device_id *found);
struct ndis_load_req *ndis_request_driver(const struct ndis_device_id *id);
void ndis_free_request(struct ndis_load_req *req);

/* ntoskrnl.c: the shared user data page, if a driver needed one */
void win_kuser_exit(void);

int ndisbench_pci_init(void);
void ndisbench_pci_exit(void);

int ndisbench_usb_init(void);
void ndisbench_usb_exit(void);

#endif /* NDISWRAPPER_H */
