/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kind of driver a user brought, from its import list: an NDIS 6
 * miniport (which no NDIS wrapper loads: they implement NDIS 5.x), and
 * the imports this wrapper does not provide.  One line each, shared by
 * the installer (`ndiswrapper -i`, on the host and in the guest) and
 * `ndisconf --describe` (the bench's run --driver).  A driver of the
 * other architecture is the loader's own refusal (pe_check_machine).
 *
 * The names the wrapper provides are its kernel module's export tables:
 * gen_exports.sh --names writes them from the same WIN_FUNC lines as the
 * module's (win_export_names.c).
 */
#ifndef NDIS_DRIVERKIND_H
#define NDIS_DRIVERKIND_H

#include <stddef.h>
#include <stdint.h>

#include "pe.h"

struct ndis_export_name {
	const char *name;
	int i386_only;		/* WIN_FUNC_I386: the i386 module only */
};

struct ndis_export_table {
	const char *dll;	/* as imported, compared case-blind */
	const struct ndis_export_name *names;
	unsigned int count;
};

/* generated: win_export_names.c */
extern const struct ndis_export_table ndis_export_tables[];
extern const unsigned int ndis_export_num_tables;

/* Does the wrapper's module for machine (PE_MACHINE_*) export dll!name? */
int ndis_wrapper_exports(uint16_t machine, const char *dll, const char *name);

/* Is dll!name one of the NDIS 6 miniport functions (registration,
 * NET_BUFFER_LIST and NET_BUFFER handling, their OID, status, interrupt
 * and timer calls)? */
int ndis_is_ndis6_import(const char *dll, const char *name);

struct ndis_import {
	char *dll;
	char *name;
};

struct ndis_findings {
	struct ndis_import *ndis6;	/* in import order */
	unsigned int n_ndis6;
	struct ndis_import *unknown;	/* in import order */
	unsigned int n_unknown;
};

/*
 * Walks the imports of a mapped image (pe_map) against the wrapper for
 * machine.  0, or a negative errno with one line in err (the loader's
 * refusal of the import table, or out of memory); *out is then empty.
 */
int ndis_find(const void *image, const struct pe_info *info,
	      uint16_t machine, struct ndis_findings *out,
	      char *err, size_t errlen);
void ndis_findings_free(struct ndis_findings *f);

/*
 * The one lines, without the file name (the caller puts "FILE: " before
 * them), in a malloc'd string; NULL in *line when there is nothing to
 * say.  0 or -ENOMEM.
 *   "an NDIS 6 miniport (imports A, B); NDIS wrappers load NDIS 5.x
 *    miniports"
 *   "imports 2 functions this wrapper does not provide: DLL!A, DLL!B"
 */
int ndis_ndis6_line(const struct ndis_findings *f, char **line);
int ndis_unknown_line(const struct ndis_findings *f, char **line);

#endif /* NDIS_DRIVERKIND_H */
