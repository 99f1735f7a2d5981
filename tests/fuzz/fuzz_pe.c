// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: pe_check_machine, pe_map, pe_relocate,
 * pe_for_each_import and pe_resolve_imports on arbitrary bytes, loaded for
 * an x86_64 wrapper (PE32+) and for an i386 one (PE32). */
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

/* ctx: the machine (an i386 kernel's addresses are 32-bit) */
static int resolve(void *ctx, const char *dll, const char *name,
		   uint64_t *addr)
{
	uint16_t machine = *(const uint16_t *)ctx;

	if (name[0] == 'Z')	/* some names are unknown */
		return -ENOENT;
	/* no zero byte, like a kernel address: an IAT slot written over a
	 * name must leave it unterminated, as in the module */
	*addr = 0xffffffff80808080ull | (strlen(dll) & 0x7f) << 8 |
		(strlen(name) & 0x7f);
	if (machine == PE_MACHINE_I386)
		*addr &= 0xffffffffull;
	if (name[0] == 'W')	/* and some beyond 32 bits: refused in PE32 */
		*addr |= 0x8080808000000000ull;
	return 0;
}

static void check_err(const char *err, size_t errlen)
{
	if (strnlen(err, errlen) >= errlen)
		abort();	/* not NUL-terminated */
}

static void load(const uint8_t *data, size_t size, uint16_t machine)
{
	struct pe_info info;
	char err[160];
	uint8_t *image;
	uint64_t base = machine == PE_MACHINE_I386 ? 0xd0000000ull :
						     0xffffc90000000000ull;
	size_t n = 0;

	memset(err, 'x', sizeof(err));
	if (pe_check_machine(data, size, machine, &info, err, sizeof(err))) {
		check_err(err, sizeof(err));
		return;
	}
	check_err(err, sizeof(err));
	if (info.size_of_image > FUZZ_MAX_IMAGE)
		return;
	image = calloc(1, info.size_of_image);
	if (!image)
		return;
	if (size > 8)	/* vary the base a little: 64K aligned */
		base += (uint64_t)data[size - 1] << 16;
	if (!pe_map(data, size, &info, image, err, sizeof(err))) {
		pe_relocate(image, &info, base, err, sizeof(err));
		check_err(err, sizeof(err));
		pe_for_each_import(image, &info, each, &n, err, sizeof(err));
		check_err(err, sizeof(err));
		pe_resolve_imports(image, &info, resolve, &machine, err,
				   sizeof(err));
		check_err(err, sizeof(err));
	}
	check_err(err, sizeof(err));
	free(image);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	load(data, size, PE_MACHINE_AMD64);
	load(data, size, PE_MACHINE_I386);
	return 0;
}
