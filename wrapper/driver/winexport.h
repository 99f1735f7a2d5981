/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the functions the wrapper exports to Windows drivers.
 *
 * Each subsystem file (ntoskrnl.c, hal.c, ndis.c) marks an exported
 * function by WIN_FUNC(name) after its definition, as EXPORT_SYMBOL does
 * for the kernel, or WIN_FUNC_I386(name) when Windows has the name on x86
 * only (inside #ifdef CONFIG_X86_32 with its definition; WIN_FUNC_I386_ASM
 * when the definition is assembly). gen_exports.sh
 * collects those lines at build time into win_exports.c: one table per
 * Windows module, named as drivers import it (undecorated: an i386
 * import has no @N).
 * The import resolver (pe_image.c) looks names up there only; anything
 * else is refused.
 */

#ifndef NDIS_WINEXPORT_H
#define NDIS_WINEXPORT_H

#include "wintypes.h"

struct win_export {
	const char *name;
	void *func;
};

struct win_dll {
	const char *name;		/* as imported, compared case-blind */
	const struct win_export *const *exports;
	unsigned int count;
};

#define WIN_FUNC(name)							\
	const struct win_export win_export_##name = { #name, name }

#define WIN_FUNC_I386(name)	WIN_FUNC(name)

/*
 * An i386 export written in assembly (crt_i386_32.S: a register
 * convention no C attribute describes), declared in C beside this line.
 */
#define WIN_FUNC_I386_ASM(name)	WIN_FUNC(name)

/*
 * An export whose C function has another name: the C runtime (memcpy,
 * strlen, ...), whose Windows names are the kernel's own functions.
 */
#define WIN_FUNC_NAMED(name, func)					\
	const struct win_export win_export_##name = { #name, func }

extern const struct win_dll win_dlls[];
extern const unsigned int win_num_dlls;

#endif /* NDIS_WINEXPORT_H */
