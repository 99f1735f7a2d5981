// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: which file names a driver may open (ntos_firmware.h):
 * ZwCreateFile's paths and NdisOpenFile's names come down to one plain
 * name in the driver's own firmware folder. A driver is code we do not
 * trust; no name it passes reaches anything else.
 */

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>

#include "ntos_firmware.h"

static const char *const ntos_driver_dirs[] = {
	"\\SystemRoot\\system32\\drivers\\",
	"\\??\\C:\\Windows\\system32\\drivers\\",
	"\\DosDevices\\C:\\Windows\\system32\\drivers\\",
};

static bool ntos_prefix_of(const u16 *s, size_t n, const char *prefix)
{
	size_t i;

	for (i = 0; prefix[i]; i++) {
		u16 c = i < n ? s[i] : 0;
		char p = prefix[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (p >= 'A' && p <= 'Z')
			p += 'a' - 'A';
		if (c != (u8)p)
			return false;
	}
	return true;
}

int ntos_firmware_plain_name(const u16 *s, size_t n, char *name,
			     size_t size)
{
	size_t i;

	if (!s || n < 1 || n >= size)
		return -1;
	for (i = 0; i < n; i++) {
		u16 c = s[i];

		if (c <= ' ' || c >= 0x7f || c == '\\' || c == '/' ||
		    c == ':')
			return -1;
		name[i] = c;
	}
	name[n] = '\0';
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -1;
	return 0;
}

int ntos_firmware_name(const struct win_unicode_string *path, char *name,
		       size_t size)
{
	size_t n = path->length / 2, k, start;

	if (!path->buffer)
		return -1;
	for (k = 0; k < ARRAY_SIZE(ntos_driver_dirs); k++) {
		if (ntos_prefix_of(path->buffer, n, ntos_driver_dirs[k]))
			break;
	}
	if (k == ARRAY_SIZE(ntos_driver_dirs))
		return -1;
	start = strlen(ntos_driver_dirs[k]);
	if (n < start)
		return -1;
	return ntos_firmware_plain_name(path->buffer + start, n - start, name,
					size);
}
