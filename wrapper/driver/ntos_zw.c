// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's file calls (ZwCreateFile, ZwOpenFile,
 * ZwReadFile, ZwQueryInformationFile, ZwClose) for what drivers use them
 * for: reading a firmware image installed beside the driver.
 *
 * Only reading, and only from the driver's own directory as Windows
 * names it (its system32\drivers folder under \SystemRoot, \??\C:\Windows
 * or \DosDevices\C:\Windows), a plain file name there: any other path,
 * a "." or ".." or any separator in the name, or a request to write or
 * create is refused. A driver is code we do not trust; it gets no way
 * to name anything else (ntos_fwname.c, which NdisOpenFile shares). The
 * file itself is read whole by ntos_firmware_get (ntoskrnl.c) from
 * /lib/firmware/ndiswrapper/<driver>/<name>.
 *
 * Written from the WDK reference (ZwCreateFile, ZwReadFile,
 * FILE_STANDARD_INFORMATION, FILE_POSITION_INFORMATION).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "ntos.h"
#include "winexport.h"

#define STATUS_INVALID_INFO_CLASS	0xC0000003
#define STATUS_INFO_LENGTH_MISMATCH	0xC0000004
#define STATUS_INVALID_HANDLE		0xC0000008
#define STATUS_END_OF_FILE		0xC0000011
#define STATUS_ACCESS_DENIED		0xC0000022
#define STATUS_OBJECT_NAME_NOT_FOUND	0xC0000034

/* The access rights that change anything (ACCESS_MASK bits). */
#define WIN_WRITE_ACCESS	(0x00000002 | 0x00000004 | 0x00000010 |	\
				 0x00000100 | 0x00010000 | 0x00040000 | \
				 0x00080000 | 0x10000000 | 0x40000000)

#define FILE_OPEN		1
#define FILE_OPEN_IF		3
#define FILE_OPENED		1	/* IO_STATUS_BLOCK.Information */

#define FILE_STANDARD_INFORMATION	5
#define FILE_POSITION_INFORMATION	14

struct win_object_attributes {
	u32 length;
	void *root_directory;
	struct win_unicode_string *object_name;
	u32 attributes;
	void *security_descriptor;
	void *security_qos;
};
static_assert(sizeof(struct win_object_attributes) == WIN_LAYOUT(0x30, 0x18));

struct win_file_standard_information {
	s64 allocation_size;
	s64 end_of_file;
	u32 number_of_links;
	u8 delete_pending;
	u8 directory;
};
static_assert(sizeof(struct win_file_standard_information) == 24);

/* An open file: what a HANDLE from ZwCreateFile points to. */
#define NTOS_FILE_MAGIC		0x656c6946	/* "File" */

struct ntos_file {
	u32 magic;
	const u8 *data;
	size_t size;
	u64 pos;
	void *cookie;			/* ntos_firmware_put's */
};

static s32 ntos_open(unsigned long caller, void **handle, u32 access,
		     const struct win_object_attributes *oa,
		     struct win_io_status_block *iosb, u32 disposition)
{
	struct ntos_file *f;
	char name[65];
	int err;

	*handle = NULL;
	if (!oa || !oa->object_name || oa->root_directory ||
	    ntos_firmware_name(oa->object_name, name, sizeof(name))) {
		ntos_log(caller, "ZwCreateFile: a path outside the driver's directory, refused");
		return STATUS_ACCESS_DENIED;
	}
	if ((access & WIN_WRITE_ACCESS) ||
	    (disposition != FILE_OPEN && disposition != FILE_OPEN_IF))
		return STATUS_ACCESS_DENIED;
	f = ntos_alloc(caller, sizeof(*f));
	if (!f)
		return STATUS_INSUFFICIENT_RESOURCES;
	err = ntos_firmware_get(caller, name, &f->data, &f->size, &f->cookie);
	if (err) {
		ntos_free(f);
		return err == -ENOMEM ? STATUS_INSUFFICIENT_RESOURCES :
					STATUS_OBJECT_NAME_NOT_FOUND;
	}
	f->magic = NTOS_FILE_MAGIC;
	*handle = f;
	if (iosb) {
		iosb->status = STATUS_SUCCESS;
		iosb->information = FILE_OPENED;
	}
	return STATUS_SUCCESS;
}

static WIN_ABI s32 ZwCreateFile(void **handle, u32 access,
				const struct win_object_attributes *oa,
				struct win_io_status_block *iosb,
				const s64 *allocation_size, u32 attributes,
				u32 share, u32 disposition, u32 options,
				void *ea, u32 ea_length)
{
	return ntos_open((unsigned long)__builtin_return_address(0), handle,
			 access, oa, iosb, disposition);
}
WIN_FUNC(ZwCreateFile);

static WIN_ABI s32 ZwOpenFile(void **handle, u32 access,
			      const struct win_object_attributes *oa,
			      struct win_io_status_block *iosb, u32 share,
			      u32 options)
{
	return ntos_open((unsigned long)__builtin_return_address(0), handle,
			 access, oa, iosb, FILE_OPEN);
}
WIN_FUNC(ZwOpenFile);

static struct ntos_file *ntos_file(void *handle)
{
	struct ntos_file *f = handle;

	return f && f->magic == NTOS_FILE_MAGIC ? f : NULL;
}

/*
 * Synchronous: the data is in memory. From byte_offset, or the current
 * position when there is none; STATUS_END_OF_FILE at or past the end.
 */
static WIN_ABI s32 ZwReadFile(void *handle, void *event, void *apc_routine,
			      void *apc_context,
			      struct win_io_status_block *iosb, void *buf,
			      u32 length, const s64 *byte_offset,
			      const u32 *key)
{
	struct ntos_file *f = ntos_file(handle);
	u64 pos;
	size_t n;

	if (!f)
		return STATUS_INVALID_HANDLE;
	pos = byte_offset && *byte_offset >= 0 ? (u64)*byte_offset : f->pos;
	if (pos >= f->size) {
		if (iosb) {
			iosb->status = STATUS_END_OF_FILE;
			iosb->information = 0;
		}
		return STATUS_END_OF_FILE;
	}
	n = min_t(u64, length, f->size - pos);
	memcpy(buf, f->data + pos, n);
	f->pos = pos + n;
	if (iosb) {
		iosb->status = STATUS_SUCCESS;
		iosb->information = n;
	}
	return STATUS_SUCCESS;
}
WIN_FUNC(ZwReadFile);

static WIN_ABI s32 ZwQueryInformationFile(void *handle,
					  struct win_io_status_block *iosb,
					  void *info, u32 length, u32 cls)
{
	struct ntos_file *f = ntos_file(handle);
	size_t n;

	if (!f)
		return STATUS_INVALID_HANDLE;
	if (cls == FILE_STANDARD_INFORMATION) {
		struct win_file_standard_information si = {
			.allocation_size = f->size,
			.end_of_file = f->size,
			.number_of_links = 1,
		};

		n = sizeof(si);
		if (length < n)
			return STATUS_INFO_LENGTH_MISMATCH;
		memcpy(info, &si, n);
	} else if (cls == FILE_POSITION_INFORMATION) {
		s64 pos = f->pos;

		n = sizeof(pos);
		if (length < n)
			return STATUS_INFO_LENGTH_MISMATCH;
		memcpy(info, &pos, n);
	} else {
		return STATUS_INVALID_INFO_CLASS;
	}
	if (iosb) {
		iosb->status = STATUS_SUCCESS;
		iosb->information = n;
	}
	return STATUS_SUCCESS;
}
WIN_FUNC(ZwQueryInformationFile);

/* Handles are Zw*'s files, or PsCreateSystemThread's threads. */
static WIN_ABI s32 ZwClose(void *handle)
{
	struct ntos_file *f = ntos_file(handle);

	if (!f && win_object_close(handle))
		return STATUS_SUCCESS;
	if (!f)
		return STATUS_INVALID_HANDLE;
	f->magic = 0;
	ntos_firmware_put(f->cookie);
	ntos_free(f);
	return STATUS_SUCCESS;
}
WIN_FUNC(ZwClose);
