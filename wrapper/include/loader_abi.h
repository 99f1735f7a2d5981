/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between the ndiswrapper module and its user-space loader,
 * /sbin/loadndisdriver, over the misc device /dev/ndiswrapper (root only).
 *
 * Shared by wrapper/driver (kernel) and wrapper/utils (user space); fixed
 * size, fixed layout types only, so the structures are the same on both
 * sides of the ioctl.
 *
 * Flow, as in the historical ndiswrapper:
 *  1. The module loads, registers /dev/ndiswrapper, and runs
 *     "/sbin/loadndisdriver devices": the helper reads every
 *     /etc/ndiswrapper/<driver>/<VVVV>:<DDDD>.<B>.conf and hands each
 *     hardware id to the module (NDIS_IOCTL_ADD_DEVICE); the module binds
 *     its PCI/USB drivers to those ids.
 *  2. When a device with such an id probes, the module runs
 *     "/sbin/loadndisdriver driver <driver> <VVVV>:<DDDD>.<B>": the helper
 *     hands over the .sys image and the device's settings
 *     (NDIS_IOCTL_LOAD_DRIVER); the module validates and relocates the PE
 *     image and starts the Windows driver.
 * The module validates every length and count it is given.
 */
#ifndef NDISWRAPPER_LOADER_ABI_H
#define NDISWRAPPER_LOADER_ABI_H

#ifdef __KERNEL__
#include <linux/ioctl.h>
#include <linux/types.h>
#else
#include <linux/types.h>
#include <sys/ioctl.h>
#endif

#define NDIS_LOADER_ABI_VERSION    1
#define NDIS_DEVICE_NAME           "ndiswrapper"   /* /dev/ndiswrapper */
#define NDIS_LOADER_PATH           "/sbin/loadndisdriver"
#define NDIS_CONF_DIR              "/etc/ndiswrapper"

#define NDIS_BUS_PCI               5
#define NDIS_BUS_USB               15              /* written 'F' */

#define NDIS_MAX_NAME              64      /* driver and file names */
#define NDIS_MAX_SETTING_NAME      128
#define NDIS_MAX_SETTING_VALUE     256
#define NDIS_MAX_SETTINGS          512
#define NDIS_MAX_SYS_SIZE          (16u << 20)

struct ndis_device_id {
	__u32 abi_version;         /* NDIS_LOADER_ABI_VERSION */
	__u32 bus;                 /* NDIS_BUS_PCI or NDIS_BUS_USB */
	__u16 vendor;
	__u16 device;
	__u16 subvendor;           /* 0xffff: any */
	__u16 subdevice;           /* 0xffff: any */
	char driver[NDIS_MAX_NAME]; /* NUL-terminated */
};

struct ndis_setting {
	char name[NDIS_MAX_SETTING_NAME];   /* NUL-terminated */
	char value[NDIS_MAX_SETTING_VALUE]; /* NUL-terminated */
};

struct ndis_load_driver {
	__u32 abi_version;         /* NDIS_LOADER_ABI_VERSION */
	__u32 num_settings;        /* <= NDIS_MAX_SETTINGS */
	struct ndis_device_id id;
	char sys_name[NDIS_MAX_NAME]; /* e.g. "bcmwl5.sys" */
	__u64 sys_data;            /* user pointer to the .sys image */
	__u64 sys_size;            /* <= NDIS_MAX_SYS_SIZE */
	__u64 settings;            /* user pointer: struct ndis_setting[] */
};

#define NDIS_IOCTL_MAGIC           'N'
#define NDIS_IOCTL_ADD_DEVICE      _IOW(NDIS_IOCTL_MAGIC, 1, \
					struct ndis_device_id)
#define NDIS_IOCTL_LOAD_DRIVER     _IOW(NDIS_IOCTL_MAGIC, 2, \
					struct ndis_load_driver)

#endif /* NDISWRAPPER_LOADER_ABI_H */
