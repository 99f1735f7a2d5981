// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: pe_check, pe_map, pe_relocate, pe_for_each_import and
 * pe_resolve_imports on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pe.h"

#define FUZZ_MAX_IMAGE (16u << 20)

static int each(void *ctx, const char *dll, const char *name)
{
	/* the strings must be readable and terminated */
	*(size_t *)ctx += strlen(dll) + strlen(name);
	return 0;
}

static int resolve(void *ctx, const char *dll, const char *name,
		   uint64_t *addr)
{
	(void)ctx;
	if (name[0] == 'Z')	/* some names are unknown */
		return -ENOENT;
	/* no zero byte, like a kernel address: an IAT slot written over a
	 * name must leave it unterminated, as in the module */
	*addr = 0xffffffff80808080ull | (strlen(dll) & 0x7f) << 8 |
		(strlen(name) & 0x7f);
	return 0;
}

static void check_err(const char *err, size_t errlen)
{
	if (strnlen(err, errlen) >= errlen)
		abort();	/* not NUL-terminated */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pe_info info;
	char err[160];
	uint8_t *image;
	uint64_t base = 0xffffc90000000000ull;
	size_t n = 0;

	memset(err, 'x', sizeof(err));
	if (pe_check(data, size, &info, err, sizeof(err))) {
		check_err(err, sizeof(err));
		return 0;
	}
	check_err(err, sizeof(err));
	if (info.size_of_image > FUZZ_MAX_IMAGE)
		return 0;
	image = calloc(1, info.size_of_image);
	if (!image)
		return 0;
	if (size > 8)	/* vary the base a little: 64K aligned */
		base += (uint64_t)data[size - 1] << 16;
	if (!pe_map(data, size, &info, image, err, sizeof(err))) {
		pe_relocate(image, &info, base, err, sizeof(err));
		check_err(err, sizeof(err));
		pe_for_each_import(image, &info, each, &n, err, sizeof(err));
		check_err(err, sizeof(err));
		pe_resolve_imports(image, &info, resolve, NULL, err, sizeof(err));
		check_err(err, sizeof(err));
	}
	check_err(err, sizeof(err));
	free(image);
	return 0;
}
