// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's file calls (NdisOpenFile, NdisMapFile,
 * NdisUnmapFile, NdisCloseFile), which miniports use to load a firmware
 * image at initialization.
 *
 * The same files ZwCreateFile opens (ntos_firmware.h): the name is a
 * plain file name, or one in the driver's system32\drivers folder, and
 * it is read whole from /lib/firmware/ndiswrapper/<driver>/<name> when
 * opened (16 MiB at most). Mapping hands out that copy; it is read-only
 * to the wrapper's mind, and a driver that writes it changes only its
 * own copy.
 *
 * Written from the NDIS 5.1 reference: NdisOpenFile runs at
 * PASSIVE_LEVEL and says FILE_NOT_FOUND, RESOURCES or ERROR_READING_FILE
 * when it fails; a file is mapped once at a time (ALREADY_MAPPED);
 * NdisCloseFile releases it, mapped or not.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/types.h>

#include "ndis_core.h"
#include "ntos_firmware.h"
#include "winexport.h"

#define NDIS_FILE_MAGIC		0x656c6946	/* "File" */
#define NDIS_FILE_NAME_MAX	64

/* What NdisOpenFile's FileHandle points to. */
struct ndis_file {
	u32 magic;
	bool mapped;
	const u8 *data;
	size_t size;
	void *cookie;			/* ntos_firmware_put's */
};

static struct ndis_file *ndis_file(void *handle)
{
	struct ndis_file *f = handle;

	return f && f->magic == NDIS_FILE_MAGIC ? f : NULL;
}

/*
 * HighestAcceptableAddress bounds where the copy may lie physically; the
 * copy is for the CPU (NdisMapFile gives its virtual address, and a
 * driver copies from it into memory it allocated for the device), so it
 * is not placed by it.
 */
static WIN_ABI void NdisOpenFile(ndis_status *status, void **handle,
				 u32 *length,
				 const struct win_unicode_string *name,
				 s64 highest)
{
	unsigned long caller = (unsigned long)__builtin_return_address(0);
	struct ndis_driver *drv = ndis_driver_at(caller);
	char file[NDIS_FILE_NAME_MAX + 1];
	struct ndis_file *f;
	int err;

	if (!status)
		return;
	if (!handle || !length || !name) {
		*status = NDIS_STATUS_FAILURE;
		return;
	}
	*handle = NULL;
	*length = 0;
	if (!drv) {
		*status = NDIS_STATUS_FAILURE;
		return;
	}
	if (ntos_firmware_plain_name(name->buffer, name->length / 2, file,
				     sizeof(file)) &&
	    ntos_firmware_name(name, file, sizeof(file))) {
		pr_warn_ratelimited("NdisOpenFile: a name that is not a plain file name, refused\n");
		*status = NDIS_STATUS_FILE_NOT_FOUND;
		return;
	}
	f = win_alloc(drv, sizeof(*f));
	if (!f) {
		*status = NDIS_STATUS_RESOURCES;
		return;
	}
	err = ntos_firmware_get(caller, file, &f->data, &f->size, &f->cookie);
	if (!err && f->size > U32_MAX) {
		ntos_firmware_put(f->cookie);
		err = -EINVAL;
	}
	if (err) {
		win_free(f);
		*status = err == -ENOENT || err == -ENAMETOOLONG ?
				NDIS_STATUS_FILE_NOT_FOUND :
			  err == -ENOMEM ? NDIS_STATUS_RESOURCES :
				NDIS_STATUS_ERROR_READING_FILE;
		return;
	}
	f->magic = NDIS_FILE_MAGIC;
	*handle = f;
	*length = f->size;
	*status = NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisOpenFile);

static WIN_ABI void NdisMapFile(ndis_status *status, void **buffer,
				void *handle)
{
	struct ndis_file *f = ndis_file(handle);

	if (!status)
		return;
	if (!f || !buffer) {
		*status = NDIS_STATUS_FAILURE;
		return;
	}
	if (f->mapped) {
		*buffer = NULL;
		*status = NDIS_STATUS_ALREADY_MAPPED;
		return;
	}
	f->mapped = true;
	*buffer = (void *)f->data;
	*status = NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMapFile);

static WIN_ABI void NdisUnmapFile(void *handle)
{
	struct ndis_file *f = ndis_file(handle);

	if (f)
		f->mapped = false;
}
WIN_FUNC(NdisUnmapFile);

static WIN_ABI void NdisCloseFile(void *handle)
{
	struct ndis_file *f = ndis_file(handle);

	if (!f) {
		pr_warn_ratelimited("NdisCloseFile: not a file NdisOpenFile opened, ignored\n");
		return;
	}
	f->magic = 0;
	ntos_firmware_put(f->cookie);
	win_free(f);
}
WIN_FUNC(NdisCloseFile);
