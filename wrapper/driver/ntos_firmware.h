/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the firmware files a driver may read (ZwCreateFile,
 * NdisOpenFile): /lib/firmware/ndiswrapper/<driver>/<name>, a plain name
 * only, read whole and read-only. Apart from ntos.h so NDIS.SYS's file
 * calls build without the rest of the kernel (tests/unit/c/test_exports.c).
 */

#ifndef NTOS_FIRMWARE_H
#define NTOS_FIRMWARE_H

#include <linux/types.h>

#include "wintypes.h"

/*
 * ntoskrnl.c: the file the driver at caller has installed as name (a
 * plain name, as the functions below make it), read whole: its bytes,
 * their number and what ntos_firmware_put() takes to let them go. 0 or a
 * negative errno (-ENOENT: no such file, -ENOMEM, -EINVAL: not a regular
 * file or over 16 MiB, -EAGAIN: called above PASSIVE_LEVEL).
 */
int ntos_firmware_get(unsigned long caller, const char *name,
		      const u8 **data, size_t *size, void **cookie);
void ntos_firmware_put(void *cookie);

/*
 * ntos_fwname.c: s (n UTF-16 units) as a plain file name in name (size
 * bytes): printable ASCII without separators, not "." or "..", at most
 * size - 1 characters. 0, or -1 for any other name.
 */
int ntos_firmware_plain_name(const u16 *s, size_t n, char *name,
			     size_t size);

/*
 * ntos_fwname.c: the file name path asks for, if path is a plain name in
 * the driver's directory as Windows names it (its system32\drivers
 * folder under \SystemRoot, \??\C:\Windows or \DosDevices\C:\Windows).
 * 0, or -1 for any other path.
 */
int ntos_firmware_name(const struct win_unicode_string *path, char *name,
		       size_t size);

#endif /* NTOS_FIRMWARE_H */
