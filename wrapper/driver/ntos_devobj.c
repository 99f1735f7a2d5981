// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: the I/O manager's device objects, names and locks that a
 * miniport can call beside NDIS: driver object extensions, device objects
 * a driver creates for itself (IoCreateDevice), the properties of the
 * adapter's PDO (IoGetDeviceProperty), the remove lock, the cancel spin
 * lock, the kernel stack's bounds and symbolic links.
 *
 * Names (a named device object, a symbolic link) live in one table here
 * and are compared case-blind, as the object manager does; nothing makes
 * them visible outside the wrapper: there is no \Device or \DosDevices
 * namespace for user space, so a control device a driver names is only
 * reachable by other Windows code through its device object. An entry
 * belongs to the driver object that made it, and ntos_devobj_forget()
 * takes its entries back when the driver unloads.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "ndis_core.h"
#include "ntos.h"
#include "ntos_dispatch.h"
#include "ntos_list.h"
#include "wincall.h"
#include "winexport.h"

#define STATUS_OBJECT_NAME_NOT_FOUND	0xC0000034
#define STATUS_DELETE_PENDING		0xC0000056

/* DRIVER_OBJECT as far as the wrapper reads it */
struct win_driver_object {
	s16 type;
	u16 size;
	struct win_device_object *device_object;	/* the driver's list */
};

enum ntos_entry_kind {
	NTOS_DRIVER_EXTENSION,
	NTOS_DEVICE_NAME,
	NTOS_SYMBOLIC_LINK,
};

/* one table entry; the name (or the extension) follows it */
struct ntos_entry {
	struct list_head list;
	enum ntos_entry_kind kind;
	void *driver_object;		/* the owner */
	void *key;			/* client id, device object */
	u16 name_len;			/* bytes */
	u8 data[] __aligned(16);
};

static LIST_HEAD(ntos_entries);
static DEFINE_SPINLOCK(ntos_entries_lock);

static u16 ntos_fold(u16 c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

static bool ntos_same_name(const struct ntos_entry *e,
			   const struct win_unicode_string *name)
{
	const u16 *a = (const u16 *)e->data;
	unsigned int i;

	if (e->name_len != name->length)
		return false;
	for (i = 0; i < name->length / 2; i++)
		if (ntos_fold(a[i]) != ntos_fold(name->buffer[i]))
			return false;
	return true;
}

/* under ntos_entries_lock */
static struct ntos_entry *ntos_find_name(const struct win_unicode_string *name,
					 enum ntos_entry_kind kind)
{
	struct ntos_entry *e;

	list_for_each_entry(e, &ntos_entries, list)
		if (e->kind == kind && ntos_same_name(e, name))
			return e;
	return NULL;
}

static struct ntos_entry *ntos_find_key(void *driver_object, void *key,
					enum ntos_entry_kind kind)
{
	struct ntos_entry *e;

	list_for_each_entry(e, &ntos_entries, list)
		if (e->kind == kind && e->key == key &&
		    (!driver_object || e->driver_object == driver_object))
			return e;
	return NULL;
}

static struct ntos_entry *ntos_new_entry(unsigned long caller,
					 enum ntos_entry_kind kind,
					 void *driver_object, void *key,
					 const struct win_unicode_string *name,
					 size_t size)
{
	struct ntos_entry *e;

	if (name)
		size = name->length;
	e = ntos_alloc(caller, sizeof(*e) + size);
	if (!e)
		return NULL;
	e->kind = kind;
	e->driver_object = driver_object;
	e->key = key;
	if (name) {
		e->name_len = name->length;
		memcpy(e->data, name->buffer, name->length);
	} else {
		memset(e->data, 0, size);
	}
	return e;
}

void ntos_devobj_forget(void *driver_object)
{
	struct ntos_entry *e, *next;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&ntos_entries_lock, flags);
	list_for_each_entry_safe(e, next, &ntos_entries, list)
		if (e->driver_object == driver_object)
			list_move(&e->list, &gone);
	spin_unlock_irqrestore(&ntos_entries_lock, flags);
	list_for_each_entry_safe(e, next, &gone, list)
		ntos_free(e);
}

/* -- driver object extensions ------------------------------------------- */

static WIN_ABI s32 IoAllocateDriverObjectExtension(void *driver_object,
						   void *client_id, u32 size,
						   void **ext)
{
	struct ntos_entry *e;
	unsigned long flags;

	*ext = NULL;
	e = ntos_new_entry((unsigned long)__builtin_return_address(0),
			   NTOS_DRIVER_EXTENSION, driver_object, client_id,
			   NULL, size);
	if (!e)
		return STATUS_INSUFFICIENT_RESOURCES;
	spin_lock_irqsave(&ntos_entries_lock, flags);
	if (ntos_find_key(driver_object, client_id, NTOS_DRIVER_EXTENSION)) {
		spin_unlock_irqrestore(&ntos_entries_lock, flags);
		ntos_free(e);
		return STATUS_OBJECT_NAME_COLLISION;
	}
	list_add(&e->list, &ntos_entries);
	spin_unlock_irqrestore(&ntos_entries_lock, flags);
	*ext = e->data;
	return STATUS_SUCCESS;
}
WIN_FUNC(IoAllocateDriverObjectExtension);

static WIN_ABI void *IoGetDriverObjectExtension(void *driver_object,
						void *client_id)
{
	struct ntos_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&ntos_entries_lock, flags);
	e = ntos_find_key(driver_object, client_id, NTOS_DRIVER_EXTENSION);
	spin_unlock_irqrestore(&ntos_entries_lock, flags);
	return e ? e->data : NULL;
}
WIN_FUNC(IoGetDriverObjectExtension);

/* -- device objects a driver makes ---------------------------------------- */

/*
 * The device object, its DeviceExtension right after it (where Windows
 * puts it), then the wrapper's DEVOBJ_EXTENSION.
 */
static size_t ntos_devobj_ext_at(u32 ext_size)
{
	return (sizeof(struct win_device_object) + ext_size + 15) & ~(size_t)15;
}

/* ndis_core.h: IoCreateDevice for the driver at caller */
s32 ntos_create_device(unsigned long caller, void *driver_object,
		       u32 ext_size, const struct win_unicode_string *name,
		       u32 type, u32 characteristics, void **device)
{
	struct win_device_object **out = (struct win_device_object **)device;
	struct win_driver_object *drv = driver_object;
	size_t ext_at = ntos_devobj_ext_at(ext_size);
	struct win_devobj_extension *devobj_ext;
	struct win_device_object *dev;
	struct ntos_entry *e = NULL;
	unsigned long flags;

	*out = NULL;
	if (!drv)
		return STATUS_INVALID_PARAMETER;
	dev = ntos_alloc(caller, ext_at + sizeof(*devobj_ext));
	if (!dev)
		return STATUS_INSUFFICIENT_RESOURCES;
	memset(dev, 0, ext_at + sizeof(*devobj_ext));
	devobj_ext = (void *)dev + ext_at;
	if (name && name->length) {
		e = ntos_new_entry(caller, NTOS_DEVICE_NAME, drv, dev, name, 0);
		if (!e) {
			ntos_free(dev);
			return STATUS_INSUFFICIENT_RESOURCES;
		}
	}
	dev->type = WIN_IO_TYPE_DEVICE;
	dev->size = sizeof(*dev) + ext_size;
	dev->driver_object = drv;
	dev->device_extension = ext_size ? dev + 1 : NULL;
	dev->device_type = type;
	dev->characteristics = characteristics;
	dev->stack_size = 1;
	dev->flags = WIN_DO_DEVICE_INITIALIZING;
	ntos_init_devobj_ext(devobj_ext, dev);

	spin_lock_irqsave(&ntos_entries_lock, flags);
	if (e && ntos_find_name(name, NTOS_DEVICE_NAME)) {
		spin_unlock_irqrestore(&ntos_entries_lock, flags);
		ntos_free(e);
		ntos_free(dev);
		return STATUS_OBJECT_NAME_COLLISION;
	}
	if (e)
		list_add(&e->list, &ntos_entries);
	dev->next_device = drv->device_object;
	drv->device_object = dev;
	spin_unlock_irqrestore(&ntos_entries_lock, flags);
	*out = dev;
	return STATUS_SUCCESS;
}

static WIN_ABI s32 IoCreateDevice(struct win_driver_object *drv,
				  u32 ext_size,
				  struct win_unicode_string *name,
				  u32 type, u32 characteristics, u8 exclusive,
				  struct win_device_object **out)
{
	return ntos_create_device((unsigned long)__builtin_return_address(0),
				  drv, ext_size, name, type, characteristics,
				  (void **)out);
}
WIN_FUNC(IoCreateDevice);

/* Its DEVOBJ_EXTENSION where IoCreateDevice puts it: one it made. */
static bool ntos_created_device(struct win_device_object *dev)
{
	size_t ext_size = dev->size - sizeof(*dev);

	return dev->type == WIN_IO_TYPE_DEVICE && dev->driver_object &&
	       dev->size >= sizeof(*dev) &&
	       dev->device_object_extension ==
	       (void *)dev + ntos_devobj_ext_at(ext_size);
}

/* ndis_core.h: IoDeleteDevice for the driver at caller */
void ntos_delete_device(unsigned long caller, void *device)
{
	struct win_device_object *dev = device;
	struct win_driver_object *drv;
	struct win_device_object **p;
	struct ntos_entry *e;
	unsigned long flags;

	if (!dev || !ntos_created_device(dev)) {
		ntos_log(caller,
			 "IoDeleteDevice: not a device object IoCreateDevice made: kept");
		return;
	}
	drv = dev->driver_object;

	spin_lock_irqsave(&ntos_entries_lock, flags);
	for (p = &drv->device_object; *p; p = &(*p)->next_device)
		if (*p == dev) {
			*p = dev->next_device;
			break;
		}
	e = ntos_find_key(NULL, dev, NTOS_DEVICE_NAME);
	if (e)
		list_del(&e->list);
	spin_unlock_irqrestore(&ntos_entries_lock, flags);
	if (e)
		ntos_free(e);
	ntos_free(dev);
}

static WIN_ABI void IoDeleteDevice(struct win_device_object *dev)
{
	ntos_delete_device((unsigned long)__builtin_return_address(0), dev);
}
WIN_FUNC(IoDeleteDevice);

/* -- the adapter's device properties -------------------------------------- */

enum {
	DEVICE_PROPERTY_HARDWARE_ID = 1,
	DEVICE_PROPERTY_CLASS_GUID = 6,
	DEVICE_PROPERTY_BUS_TYPE_GUID = 12,
	DEVICE_PROPERTY_LEGACY_BUS_TYPE = 13,
	DEVICE_PROPERTY_BUS_NUMBER = 14,
	DEVICE_PROPERTY_ENUMERATOR_NAME = 15,
	DEVICE_PROPERTY_ADDRESS = 16,
	DEVICE_PROPERTY_LAST = 19,	/* DevicePropertyRemovalPolicy */
};

#define WIN_PCI_BUS		5	/* INTERFACE_TYPE PCIBus */
#define WIN_PNP_BUS		15	/* PNPBus, what USB reports */

/* GUID_BUS_TYPE_PCI and GUID_BUS_TYPE_USB as stored (little-endian) */
static const u8 ntos_bus_guid_pci[16] = {
	0xb0, 0xdf, 0xeb, 0xc8, 0x10, 0xb5, 0xd0, 0x11,
	0x80, 0xe5, 0x00, 0xa0, 0xc9, 0x25, 0x42, 0xe3 };
static const u8 ntos_bus_guid_usb[16] = {
	0xbc, 0xeb, 0x7d, 0x9d, 0x5d, 0xc8, 0xd1, 0x11,
	0x9e, 0xb4, 0x00, 0x60, 0x08, 0xc3, 0xa1, 0x9a };

/* the setup class of network adapters, as the registry spells it */
static const char ntos_net_class[] = "{4d36e972-e325-11ce-bfc1-08002be10318}";

/* text into UTF-16 at out (room units), each string NUL-ended; units used */
static unsigned int ntos_put_wide(u16 *out, unsigned int room,
				  unsigned int at, const char *s)
{
	do {
		if (at < room)
			out[at] = (u8)*s;
		at++;
	} while (*s++);
	return at;
}

/*
 * The hardware IDs Windows' PCI and USB bus drivers report, the most
 * specific first, as REG_MULTI_SZ (an empty string ends the list).
 */
static unsigned int ntos_hardware_ids(const struct ntos_device_identity *id,
				      u16 *out, unsigned int room)
{
	char s[64];
	unsigned int at = 0;

	if (id->bus == NTOS_BUS_PCI) {
		snprintf(s, sizeof(s), "PCI\\VEN_%04X&DEV_%04X&SUBSYS_%08X&REV_%02X",
			 id->vendor, id->device, id->subsystem, id->revision);
		at = ntos_put_wide(out, room, at, s);
		snprintf(s, sizeof(s), "PCI\\VEN_%04X&DEV_%04X&SUBSYS_%08X",
			 id->vendor, id->device, id->subsystem);
		at = ntos_put_wide(out, room, at, s);
		snprintf(s, sizeof(s), "PCI\\VEN_%04X&DEV_%04X&REV_%02X",
			 id->vendor, id->device, id->revision);
		at = ntos_put_wide(out, room, at, s);
		snprintf(s, sizeof(s), "PCI\\VEN_%04X&DEV_%04X", id->vendor,
			 id->device);
		at = ntos_put_wide(out, room, at, s);
	} else {
		snprintf(s, sizeof(s), "USB\\VID_%04X&PID_%04X&REV_%04X",
			 id->vendor, id->device, id->revision);
		at = ntos_put_wide(out, room, at, s);
		snprintf(s, sizeof(s), "USB\\VID_%04X&PID_%04X", id->vendor,
			 id->device);
		at = ntos_put_wide(out, room, at, s);
	}
	return ntos_put_wide(out, room, at, "");
}

static WIN_ABI s32 IoGetDeviceProperty(struct win_device_object *dev,
				       u32 property, u32 length, void *buffer,
				       u32 *result_length)
{
	struct ntos_device_identity id;
	u16 wide[160];
	const void *src = wide;
	u32 value, need;

	if (property > DEVICE_PROPERTY_LAST)
		return STATUS_INVALID_PARAMETER_2;
	if (!ntos_device_identity(dev, &id))
		return STATUS_INVALID_DEVICE_REQUEST;
	switch (property) {
	case DEVICE_PROPERTY_HARDWARE_ID:
		need = 2 * ntos_hardware_ids(&id, wide, ARRAY_SIZE(wide));
		break;
	case DEVICE_PROPERTY_CLASS_GUID:
		need = 2 * ntos_put_wide(wide, ARRAY_SIZE(wide), 0,
					 ntos_net_class);
		break;
	case DEVICE_PROPERTY_ENUMERATOR_NAME:
		need = 2 * ntos_put_wide(wide, ARRAY_SIZE(wide), 0,
					 id.bus == NTOS_BUS_PCI ? "PCI" : "USB");
		break;
	case DEVICE_PROPERTY_BUS_TYPE_GUID:
		src = id.bus == NTOS_BUS_PCI ? ntos_bus_guid_pci :
					       ntos_bus_guid_usb;
		need = 16;
		break;
	case DEVICE_PROPERTY_LEGACY_BUS_TYPE:
	case DEVICE_PROPERTY_BUS_NUMBER:
	case DEVICE_PROPERTY_ADDRESS:
		if (property == DEVICE_PROPERTY_LEGACY_BUS_TYPE)
			value = id.bus == NTOS_BUS_PCI ? WIN_PCI_BUS :
							 WIN_PNP_BUS;
		else if (property == DEVICE_PROPERTY_BUS_NUMBER)
			value = id.bus_number;
		else
			value = id.address;
		src = &value;
		need = 4;
		break;
	default:
		/* descriptions, driver keys, ...: the .inf's, not kept here */
		return STATUS_OBJECT_NAME_NOT_FOUND;
	}
	*result_length = need;
	if (length < need)
		return STATUS_BUFFER_TOO_SMALL;
	memcpy(buffer, src, need);
	return STATUS_SUCCESS;
}
WIN_FUNC(IoGetDeviceProperty);

/* -- the remove lock ------------------------------------------------------ */

/* IO_REMOVE_LOCK_COMMON_BLOCK, all of a free build's IO_REMOVE_LOCK */
struct win_remove_lock {
	u8 removed;
	u8 reserved[3];
	s32 io_count;		/* 1 + the holders until the remove */
	struct win_kevent remove_event;
};

static WIN_ABI void IoInitializeRemoveLockEx(struct win_remove_lock *lock,
					     u32 tag, u32 max_minutes,
					     u32 high_watermark, u32 size)
{
	memset(lock, 0, sizeof(*lock));
	lock->io_count = 1;
	win_dispatch_init_event(&lock->remove_event,
				WIN_NOTIFICATION_EVENT, 0);
}
WIN_FUNC(IoInitializeRemoveLockEx);

static void ntos_remove_lock_put(struct win_remove_lock *lock)
{
	if (!win_interlocked_add(&lock->io_count, -1))
		win_dispatch_set_event(&lock->remove_event);
}

static WIN_ABI s32 IoAcquireRemoveLockEx(struct win_remove_lock *lock,
					 void *tag, const char *file, u32 line,
					 u32 size)
{
	win_interlocked_add(&lock->io_count, 1);
	if (READ_ONCE(lock->removed)) {
		ntos_remove_lock_put(lock);
		return STATUS_DELETE_PENDING;
	}
	return STATUS_SUCCESS;
}
WIN_FUNC(IoAcquireRemoveLockEx);

static WIN_ABI void IoReleaseRemoveLockEx(struct win_remove_lock *lock,
					  void *tag, u32 size)
{
	ntos_remove_lock_put(lock);
}
WIN_FUNC(IoReleaseRemoveLockEx);

/*
 * The remove (IRP_MN_REMOVE_DEVICE): the caller holds the lock once; no
 * new holder after this, and the wait lasts until every other holder has
 * let go.
 */
static WIN_ABI void IoReleaseRemoveLockAndWaitEx(struct win_remove_lock *lock,
						 void *tag, u32 size)
{
	WRITE_ONCE(lock->removed, 1);
	win_interlocked_add(&lock->io_count, -1);	/* the caller's hold */
	ntos_remove_lock_put(lock);			/* the initial count */
	ntos_wait_event("IoReleaseRemoveLockAndWaitEx", &lock->remove_event);
}
WIN_FUNC(IoReleaseRemoveLockAndWaitEx);

/* -- the cancel spin lock --------------------------------------------------- */

/*
 * One for the system, held at DISPATCH_LEVEL. IoCancelIrp calls a cancel
 * routine holding it; the routine releases it (IoReleaseCancelSpinLock
 * with the IRP's CancelIrql).
 */
static unsigned long ntos_cancel_lock;

u8 ntos_cancel_lock_acquire(void)
{
	return win_spin_acquire_raise(&ntos_cancel_lock);
}

static WIN_ABI void IoAcquireCancelSpinLock(u8 *irql)
{
	*irql = ntos_cancel_lock_acquire();
}
WIN_FUNC(IoAcquireCancelSpinLock);

static WIN_ABI void IoReleaseCancelSpinLock(u8 irql)
{
	win_spin_release_lower(&ntos_cancel_lock, irql);
}
WIN_FUNC(IoReleaseCancelSpinLock);

/* -- the stack, symbolic links -------------------------------------------- */

static WIN_ABI void IoGetStackLimits(unsigned long *low, unsigned long *high)
{
	ntos_stack_limits(low, high);
}
WIN_FUNC(IoGetStackLimits);

s32 ntos_create_link(unsigned long caller,
		     const struct win_unicode_string *link,
		     const struct win_unicode_string *target)
{
	struct ntos_entry *e;
	unsigned long flags;

	if (!link || !link->length || !target)
		return STATUS_INVALID_PARAMETER;
	e = ntos_new_entry(caller, NTOS_SYMBOLIC_LINK,
			   ntos_driver_object_at(caller), NULL, link, 0);
	if (!e)
		return STATUS_INSUFFICIENT_RESOURCES;
	spin_lock_irqsave(&ntos_entries_lock, flags);
	if (ntos_find_name(link, NTOS_SYMBOLIC_LINK)) {
		spin_unlock_irqrestore(&ntos_entries_lock, flags);
		ntos_free(e);
		return STATUS_OBJECT_NAME_COLLISION;
	}
	list_add(&e->list, &ntos_entries);
	spin_unlock_irqrestore(&ntos_entries_lock, flags);
	return STATUS_SUCCESS;
}

static WIN_ABI s32 IoCreateSymbolicLink(struct win_unicode_string *link,
					struct win_unicode_string *target)
{
	return ntos_create_link((unsigned long)__builtin_return_address(0),
				link, target);
}
WIN_FUNC(IoCreateSymbolicLink);

/* No security descriptors here: the same as IoCreateSymbolicLink. */
static WIN_ABI s32
IoCreateUnprotectedSymbolicLink(struct win_unicode_string *link,
				struct win_unicode_string *target)
{
	return ntos_create_link((unsigned long)__builtin_return_address(0),
				link, target);
}
WIN_FUNC(IoCreateUnprotectedSymbolicLink);

s32 ntos_delete_link(const struct win_unicode_string *link)
{
	struct ntos_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&ntos_entries_lock, flags);
	e = ntos_find_name(link, NTOS_SYMBOLIC_LINK);
	if (e)
		list_del(&e->list);
	spin_unlock_irqrestore(&ntos_entries_lock, flags);
	if (!e)
		return STATUS_OBJECT_NAME_NOT_FOUND;
	ntos_free(e);
	return STATUS_SUCCESS;
}

static WIN_ABI s32 IoDeleteSymbolicLink(struct win_unicode_string *link)
{
	return ntos_delete_link(link);
}
WIN_FUNC(IoDeleteSymbolicLink);
