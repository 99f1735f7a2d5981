/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ndisconf --describe FILE`: what the wrapper's own parsers (the INF
 * parser and PE loader of wrapper/loader) read in a driver's .inf or
 * .sys, as one JSON object on one line, so that the bench's host side
 * (userdriver.py, fixtures/check_imports.py) needs no parser of its own.
 *
 * An .inf ("format": "inf"): "arch" (the models decoration used) and
 * "ids", one object per hardware id as the installer takes them: "bus"
 * ("pci" or "usb"), "vendor", "device" (4 lower-case hex digits),
 * "subvendor" and "subdevice" (PCI SUBSYS_, else absent), "id" (as
 * written), "description", "install" (the install section chosen),
 * "files" (the .sys it copies), "settings" (AddReg name -> value) and
 * "msi" (MSISupported).
 *
 * A .sys ("format": "sys"): "machine" and "subsystem" (numbers),
 * "pe" ("PE32+" or "PE32"), "image_size", "image_base", "entry_rva",
 * "sections" ("name", "rva", "virtual_size", "raw_size",
 * "characteristics"), "ndis6" (its imports of NDIS 6 miniport functions,
 * {"dll", "name"}) and "ndis6_line", "unknown_imports" (the imports the
 * wrapper for its architecture does not export) and
 * "unknown_imports_line" (the lines are the installer's, driverkind.h,
 * without the file name; "" when there is nothing to say), "imports"
 * ({"dll", "name"} in import order) and "export_directory" ({"rva",
 * "size"}, zero when it has none).  The
 * image is checked as the installer checks it: headers, mapping,
 * relocation to another base, the import table.  amd64 and i386 images
 * are both described (the bench checks either); others are refused.
 *
 * The buffer functions return 0, or a negative errno with one line in
 * err (-ENOMEM: out of memory, -EPIPE: out could not be written, others:
 * the contents are refused).  ndis_describe_file returns one of the
 * NDIS_DESCRIBE_* statuses below, ndisconf's exit status.
 */
#ifndef NDIS_DESCRIBE_H
#define NDIS_DESCRIBE_H

#include <stddef.h>
#include <stdio.h>

#define NDIS_DESCRIBE_OK		0
#define NDIS_DESCRIBE_REFUSED		1	/* malformed or unsupported */
/* 2 is the command line's (usage) */
#define NDIS_DESCRIBE_UNREADABLE	3	/* cannot be opened or read */
#define NDIS_DESCRIBE_FAILED		4	/* out of memory, output */

/* text (size bytes) of the .inf called name, for the arch decoration
 * (INF_ARCH_AMD64 or INF_ARCH_X86) */
int ndis_describe_inf(const char *name, const void *text, size_t size,
		      const char *arch, FILE *out, char *err, size_t errlen);

/* the bytes of a .sys */
int ndis_describe_sys(const void *data, size_t size, FILE *out, char *err,
		      size_t errlen);

/* A file by its name: *.inf as an .inf (INF_MAX_FILE_SIZE at most),
 * anything else as a .sys (NDIS_MAX_SYS_SIZE at most).  Errors name
 * path. */
int ndis_describe_file(const char *path, const char *arch, FILE *out,
		       char *err, size_t errlen);

#endif /* NDIS_DESCRIBE_H */
