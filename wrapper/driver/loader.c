// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: the interface to the user-space loader.
 *
 * The module registers a misc device named after itself (/dev/ndiswrapper
 * for the real build; the driverloader and control builds get their own
 * node so that all three can be loaded together) and talks to
 * /sbin/loadndisdriver as wrapper/include/loader_abi.h describes:
 *
 *  - at init "loadndisdriver devices" hands over the hardware ids of the
 *    installed drivers (NDIS_IOCTL_ADD_DEVICE);
 *  - when such a device probes, "loadndisdriver driver <drv> VVVV:DDDD.B"
 *    hands over the .sys image and the settings (NDIS_IOCTL_LOAD_DRIVER);
 *    the probe, which waits for the helper to exit, then takes them.
 *
 * A missing helper means "no drivers configured", not an error. Both
 * ioctls come from root only and every length, count and string is
 * checked before use, by the validators shared with the host
 * (wrapper/loader/msg.c, which the ioctl fuzzer runs).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/umh.h>

#include "ndiswrapper.h"

#include "../loader/msg.c"

#define NDIS_MAX_DEVICES	64

struct ndis_dev_entry {
	struct list_head list;
	struct ndis_device_id id;
};

static DEFINE_MUTEX(ndis_loader_lock);
static LIST_HEAD(ndis_devices);		/* struct ndis_dev_entry */
static unsigned int ndis_num_devices;
static LIST_HEAD(ndis_requests);	/* pending struct ndis_load_req */

/* Runs the helper and waits for it; -ENOENT when it is not installed. */
static int ndis_run_helper(char **argv)
{
	static char *envp[] = {
		"HOME=/",
		"PATH=/sbin:/usr/sbin:/bin:/usr/bin",
		"NDISWRAPPER_DEVICE=/dev/" KBUILD_MODNAME,
		NULL
	};
	int ret;

	ret = call_usermodehelper(NDIS_LOADER_PATH, argv, envp,
				  UMH_WAIT_PROC);
	if (ret == -ENOENT)
		pr_info("%s not found: no Windows drivers configured\n",
			NDIS_LOADER_PATH);
	else if (ret < 0)
		pr_err("cannot run %s: error %d\n", NDIS_LOADER_PATH, ret);
	else if (ret > 0)
		pr_err("%s %s failed (status %d)\n", NDIS_LOADER_PATH,
		       argv[1], ret);
	return ret;
}

/* A message the validators refused: say why (root sent it). */
static int ndis_refused(const char *ioctl, const char *why, int err)
{
	pr_info_ratelimited("%s refused: %s (%d)\n", ioctl, why, err);
	return err;
}

static bool ndis_same_device(const struct ndis_device_id *a,
			     const struct ndis_device_id *b)
{
	return a->bus == b->bus && a->vendor == b->vendor &&
	       a->device == b->device && a->subvendor == b->subvendor &&
	       a->subdevice == b->subdevice;
}

static long ndis_ioctl_add_device(void __user *arg)
{
	struct ndis_dev_entry *entry, *e;
	const char *why;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	if (copy_from_user(&entry->id, arg, sizeof(entry->id))) {
		err = -EFAULT;
		goto err_free;
	}
	err = ndis_msg_check_id(&entry->id, &why);
	if (err) {
		ndis_refused("NDIS_IOCTL_ADD_DEVICE", why, err);
		goto err_free;
	}

	mutex_lock(&ndis_loader_lock);
	list_for_each_entry(e, &ndis_devices, list) {
		if (ndis_same_device(&e->id, &entry->id)) {
			err = -EEXIST;
			goto err_unlock;
		}
	}
	if (ndis_num_devices >= NDIS_MAX_DEVICES) {
		err = -ENOSPC;
		goto err_unlock;
	}
	list_add_tail(&entry->list, &ndis_devices);
	ndis_num_devices++;
	mutex_unlock(&ndis_loader_lock);
	pr_info("%s: device %04X:%04X.%X\n", entry->id.driver,
		entry->id.vendor, entry->id.device, entry->id.bus);
	return 0;

err_unlock:
	mutex_unlock(&ndis_loader_lock);
err_free:
	kfree(entry);
	return err;
}

/*
 * Copies and checks the settings (every name and value NUL-terminated) of
 * a request that passed ndis_msg_check_load (num_settings in bounds).
 */
static int ndis_copy_settings(struct ndis_load_req *req,
			      const struct ndis_load_driver *ld)
{
	const char *why;
	int err;

	req->num_settings = ld->num_settings;
	if (!ld->num_settings)
		return 0;
	req->settings = vmemdup_user(u64_to_user_ptr(ld->settings),
				     array_size(ld->num_settings,
						sizeof(*req->settings)));
	if (IS_ERR(req->settings)) {
		int err = PTR_ERR(req->settings);

		req->settings = NULL;
		return err;
	}
	err = ndis_msg_check_settings(req->settings, ld->num_settings, &why);
	if (err)
		return ndis_refused("NDIS_IOCTL_LOAD_DRIVER", why, err);
	return 0;
}

/* The image of a request that passed ndis_msg_check_load. */
static int ndis_copy_image(struct ndis_load_req *req,
			   const struct ndis_load_driver *ld)
{
	req->sys_data = vmemdup_user(u64_to_user_ptr(ld->sys_data),
				     ld->sys_size);
	if (IS_ERR(req->sys_data)) {
		int err = PTR_ERR(req->sys_data);

		req->sys_data = NULL;
		return err;
	}
	req->sys_size = ld->sys_size;
	strscpy(req->sys_name, ld->sys_name, sizeof(req->sys_name));
	return 0;
}

static struct ndis_load_req *ndis_pending(const struct ndis_device_id *id)
{
	struct ndis_load_req *req;

	list_for_each_entry(req, &ndis_requests, list)
		if (!req->done && req->id.bus == id->bus &&
		    req->id.vendor == id->vendor &&
		    req->id.device == id->device &&
		    !strcmp(req->id.driver, id->driver))
			return req;
	return NULL;
}

static long ndis_ioctl_load_driver(void __user *arg)
{
	struct ndis_load_driver *ld;
	struct ndis_load_req *req;
	const char *why;
	int err;

	ld = memdup_user(arg, sizeof(*ld));
	if (IS_ERR(ld))
		return PTR_ERR(ld);
	/* Every fixed field first, whether or not anybody asked. */
	err = ndis_msg_check_load(ld, &why);
	if (err) {
		ndis_refused("NDIS_IOCTL_LOAD_DRIVER", why, err);
		goto out_free;
	}

	mutex_lock(&ndis_loader_lock);
	req = ndis_pending(&ld->id);
	if (!req) {
		err = -ESRCH;		/* nobody asked for this driver */
		goto out_unlock;
	}
	err = ndis_copy_image(req, ld);
	if (!err)
		err = ndis_copy_settings(req, ld);
	if (err) {
		kvfree(req->sys_data);
		kvfree(req->settings);
		req->sys_data = NULL;
		req->settings = NULL;
		req->num_settings = 0;
		goto out_unlock;
	}
	req->done = true;
out_unlock:
	mutex_unlock(&ndis_loader_lock);
out_free:
	kfree(ld);
	return err;
}

static int ndis_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return nonseekable_open(inode, file);
}

static long ndis_ioctl(struct file *file, unsigned int cmd,
		       unsigned long arg)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	switch (cmd) {
	case NDIS_IOCTL_ADD_DEVICE:
		return ndis_ioctl_add_device((void __user *)arg);
	case NDIS_IOCTL_LOAD_DRIVER:
		return ndis_ioctl_load_driver((void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations ndis_fops = {
	.owner		= THIS_MODULE,
	.open		= ndis_open,
	.unlocked_ioctl	= ndis_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice ndis_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= KBUILD_MODNAME,
	.fops	= &ndis_fops,
	.mode	= 0600,
};

/* Looks up the installed driver for a device; fills *found. */
bool ndis_find_device(u32 bus, u16 vendor, u16 device, u16 subvendor,
		      u16 subdevice, struct ndis_device_id *found)
{
	struct ndis_dev_entry *e;
	bool ret = false;

	mutex_lock(&ndis_loader_lock);
	list_for_each_entry(e, &ndis_devices, list) {
		if (e->id.bus != bus || e->id.vendor != vendor ||
		    e->id.device != device)
			continue;
		if ((e->id.subvendor != 0xffff &&
		     e->id.subvendor != subvendor) ||
		    (e->id.subdevice != 0xffff &&
		     e->id.subdevice != subdevice))
			continue;
		*found = e->id;
		ret = true;
		break;
	}
	mutex_unlock(&ndis_loader_lock);
	return ret;
}

void ndis_free_request(struct ndis_load_req *req)
{
	kvfree(req->sys_data);
	kvfree(req->settings);
	kfree(req);
}

/*
 * Asks the helper for the driver of a device and waits for it. Returns the
 * image and settings, or an ERR_PTR.
 */
struct ndis_load_req *ndis_request_driver(const struct ndis_device_id *id)
{
	char hwid[16];
	char *argv[] = { NDIS_LOADER_PATH, "driver", (char *)id->driver,
			 hwid, NULL };
	struct ndis_load_req *req;
	int err;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return ERR_PTR(-ENOMEM);
	req->id = *id;
	snprintf(hwid, sizeof(hwid), "%04X:%04X.%X", id->vendor, id->device,
		 id->bus);

	mutex_lock(&ndis_loader_lock);
	list_add_tail(&req->list, &ndis_requests);
	mutex_unlock(&ndis_loader_lock);

	err = ndis_run_helper(argv);

	mutex_lock(&ndis_loader_lock);
	list_del(&req->list);
	mutex_unlock(&ndis_loader_lock);

	if (!err && !req->done) {
		pr_err("%s: %s handed over no driver for %s\n", id->driver,
		       NDIS_LOADER_PATH, hwid);
		err = -ENOENT;
	}
	if (err) {
		ndis_free_request(req);
		return ERR_PTR(err < 0 ? err : -ENOENT);
	}
	return req;
}

int __init ndis_loader_init(void)
{
	char *argv[] = { NDIS_LOADER_PATH, "devices", NULL };
	int err;

	err = misc_register(&ndis_miscdev);
	if (err) {
		pr_err("cannot register /dev/%s: error %d\n", KBUILD_MODNAME,
		       err);
		return err;
	}
	/* No helper or a failing one leaves the device list empty. */
	ndis_run_helper(argv);
	return 0;
}

void ndis_loader_exit(void)
{
	struct ndis_dev_entry *e, *tmp;

	misc_deregister(&ndis_miscdev);
	list_for_each_entry_safe(e, tmp, &ndis_devices, list) {
		list_del(&e->list);
		kfree(e);
	}
	ndis_num_devices = 0;
}
