/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PE image loader for Windows NDIS drivers: PE32+ (x86_64) and PE32 (i386).
 *
 * Every function returns 0 or a negative errno and, on failure, writes one
 * human-readable, NUL-terminated line to err (errlen bytes; err may be NULL)
 * that names what is wrong.  Nothing allocates memory; the caller provides
 * the image buffer (info->size_of_image bytes, zeroed).
 *
 * Typical use:
 *   pe_check(file) -> pe_map(file, image) -> pe_relocate(image, base)
 *   -> pe_resolve_imports(image, resolver).
 */
#ifndef NDIS_PE_H
#define NDIS_PE_H

#include "pe_compat.h"

#define PE_MACHINE_AMD64	0x8664
#define PE_MACHINE_I386		0x014c
#define PE_SUBSYSTEM_NATIVE	1

/*
 * The machine the loader is built for: pe_check() accepts only its images
 * (an x86_64 wrapper runs PE32+ drivers, an i386 one PE32 drivers).
 */
#if defined(__x86_64__)
#define PE_MACHINE_NATIVE	PE_MACHINE_AMD64
#elif defined(__i386__)
#define PE_MACHINE_NATIVE	PE_MACHINE_I386
#else
#error "the PE loader is for x86_64 and i386"
#endif

/* Limits; anything larger is refused as implausible for a driver. */
#define PE_MAX_IMAGE_SIZE	(64u << 20)	/* 64 MiB */
#define PE_MAX_FILE_SIZE	(256u << 20)	/* keeps every offset in 32 bits */
#define PE_MAX_SECTIONS		96		/* the format's own limit */
#define PE_MAX_IMPORT_DLLS	256
/*
 * In all, over every DLL: each is one resolver call (a search of the
 * wrapper's exports, under its load mutex); drivers import a few hundred.
 */
#define PE_MAX_IMPORTS		4096
#define PE_MAX_SYMBOL_NAME	256		/* incl. NUL */

/* Data directory indexes (PE/COFF optional header). */
#define PE_DIR_EXPORT		0
#define PE_DIR_IMPORT		1
#define PE_DIR_RESOURCE		2
#define PE_DIR_EXCEPTION	3
#define PE_DIR_SECURITY		4	/* a file offset, not an RVA */
#define PE_DIR_BASERELOC	5
#define PE_DIR_IAT		12
#define PE_NUM_DIRS		16

struct pe_dir {
	uint32_t rva;
	uint32_t size;
};

struct pe_info {		/* filled by pe_check() */
	uint16_t machine;	/* PE_MACHINE_AMD64 or PE_MACHINE_I386 */
	uint16_t subsystem;	/* 1 = native */
	uint32_t size_of_image;
	uint32_t size_of_headers;
	uint32_t entry_rva;
	uint64_t image_base;
	uint16_t num_sections;
	/* below: what the other functions need */
	uint16_t characteristics;	/* COFF header flags */
	uint16_t dll_characteristics;
	uint32_t section_alignment;
	uint32_t file_alignment;
	uint32_t nt_offset;		/* "PE\0\0" signature */
	uint32_t opt_offset;		/* optional header */
	uint32_t sections_offset;	/* section table */
	uint32_t num_dirs;		/* NumberOfRvaAndSizes, <= 16 */
	uint32_t ptr_size;		/* 8 (PE32+) or 4 (PE32): import
					 * entries, relocated words */
	struct pe_dir dirs[PE_NUM_DIRS];	/* zero when absent */
};

/* Validates the headers of a driver for PE_MACHINE_NATIVE. */
int pe_check(const void *file, size_t file_size, struct pe_info *info,
	     char *err, size_t errlen);

/*
 * The same for a given machine (PE_MACHINE_AMD64: PE32+ only,
 * PE_MACHINE_I386: PE32 only); an image of the other one is refused with
 * "32-bit PE (i386) cannot run on x86_64" or "64-bit PE (x86_64) cannot
 * run on i386".
 */
int pe_check_machine(const void *file, size_t file_size, uint16_t machine,
		     struct pe_info *info, char *err, size_t errlen);

/* Copies headers and sections into image (info->size_of_image bytes,
 * zeroed by the caller), bounds-checked. */
int pe_map(const void *file, size_t file_size, const struct pe_info *info,
	   void *image, char *err, size_t errlen);

/* Applies base relocations (DIR64 and ABSOLUTE in PE32+, HIGHLOW and
 * ABSOLUTE in PE32; any other type is an error) for the image now at
 * address base (a PE32 image must lie below 4 GiB: -ERANGE).  pe_check
 * refuses images flagged RELOCS_STRIPPED; an image with no relocation
 * directory (and no such flag) has no absolute addresses and needs no
 * fixups.  All blocks are validated before the first write, so a failure
 * leaves the image untouched.  Also stores the new base in the image's
 * optional header. */
int pe_relocate(void *image, const struct pe_info *info, uint64_t base,
		char *err, size_t errlen);

/* resolve returns 0 and sets *addr, or -ENOENT. */
typedef int (*pe_resolve_fn)(void *ctx, const char *dll, const char *name,
			     uint64_t *addr);

/*
 * Resolves every import by name and writes the IAT.  The whole import table
 * is validated first: an IAT that overlaps the descriptors, a DLL name, a
 * lookup table or an import name is refused before any slot is written.
 * An unknown symbol does not stop it: every import is tried, and if any
 * was unknown -ENOENT is returned (the IAT then partly written) with all of
 * them in one error line, in import order: exactly
 * "unknown symbol: <dll>:'<name>'" for one (ndiswrapper's wording),
 * "<n> unknown symbols: <dll>:'<name>' <dll>:'<name>' ..." for several
 * (cut with "..." where errlen ends).  Imports by ordinal are refused
 * (-EINVAL); in a PE32 image an address beyond 32 bits is refused (-ERANGE).
 */
int pe_resolve_imports(void *image, const struct pe_info *info,
		       pe_resolve_fn resolve, void *ctx,
		       char *err, size_t errlen);

/*
 * Calls fn(ctx, dll, name) for each import, in order, once the table is
 * validated as above; a non-zero return of fn stops the walk and is
 * returned.
 */
int pe_for_each_import(const void *image, const struct pe_info *info,
		       int (*fn)(void *ctx, const char *dll, const char *name),
		       void *ctx, char *err, size_t errlen);

#endif /* NDIS_PE_H */
