/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Windows .inf parser (host only), enough for ndiswrapper -i.
 *
 * Syntax handled: [section] headers (names compared case-insensitively,
 * repeated sections merged), "key = value" and value-only lines, fields
 * separated by commas, double-quoted strings ("" inside a quoted string is
 * one quote), %strkey% substitution from [Strings] (%% is a literal %;
 * [Strings.<locale>] sections are ignored; unknown tokens are kept as
 * written, e.g. DIRIDs like %12%), ';' comments outside quotes, a trailing
 * backslash continuing the line, CR/LF line ends, UTF-8/ASCII (with or
 * without BOM) and UTF-16LE/BE with BOM (converted to UTF-8).
 *
 * Every error is one line "<file>:<line>: <what>".  A line whose key and
 * fields come to more than INF_MAX_LINE_TEXT bytes after substitution, or
 * a file whose lines come to more than INF_MAX_TEXT, is refused.
 */
#ifndef NDIS_INF_H
#define NDIS_INF_H

#include <stddef.h>
#include <stdint.h>

#define INF_MAX_FILE_SIZE	(8u << 20)
#define INF_MAX_SECTIONS	16384
#define INF_MAX_HWIDS		8192
/* The text after %strkey% substitution, which multiplies (each 3-byte
 * reference can become a long string): per logical line, per file. */
#define INF_MAX_LINE_TEXT	(64u << 10)
#define INF_MAX_TEXT		(16u << 20)

struct inf_line {
	char *key;		/* NULL for value-only lines */
	char **fields;		/* comma-separated values, substituted */
	int nfields;
	int lineno;		/* first physical line */
};

struct inf_section {
	char *name;
	struct inf_line *lines;
	int nlines;
	int lineno;
};

struct inf_file {
	char *name;		/* used in error lines (base name) */
	struct inf_section *sections;
	int nsections;
};

int inf_parse_buffer(const char *name, const void *data, size_t size,
		     struct inf_file **out, char *err, size_t errlen);
int inf_parse_file(const char *path, struct inf_file **out,
		   char *err, size_t errlen);
void inf_free(struct inf_file *inf);

const struct inf_section *inf_find_section(const struct inf_file *inf,
					   const char *name);
/* First line of sec whose key matches (case-insensitive), or NULL. */
const struct inf_line *inf_find_key(const struct inf_section *sec,
				    const char *key);
/* Value of field i or "" when absent. */
const char *inf_field(const struct inf_line *l, int i);

#define INF_BUS_PCI	5
#define INF_BUS_USB	15

struct inf_hwid {
	int bus;			/* INF_BUS_PCI or INF_BUS_USB */
	uint16_t vendor, device;
	int has_subsys;
	uint16_t subvendor, subdevice;	/* PCI SUBSYS_<subdevice><subvendor> */
	char *id;			/* as written in the .inf */
	char *description;		/* model line key */
	char *install;			/* resolved install section name */
	int lineno;
};

/*
 * The INF platform decoration of an architecture: NTamd64 for the x86_64
 * wrapper, NTx86 for the i386 one; INF_ARCH_NATIVE is the one the code is
 * built for.
 */
#define INF_ARCH_AMD64	"NTamd64"
#define INF_ARCH_X86	"NTx86"
#if defined(__i386__)
#define INF_ARCH_NATIVE	INF_ARCH_X86
#define INF_DISK_ARCH	"x86"		/* [SourceDisksFiles.x86] */
#else
#define INF_ARCH_NATIVE	INF_ARCH_AMD64
#define INF_DISK_ARCH	"amd64"
#endif

/* Hardware ids of the models for arch (INF_ARCH_*: decorated models
 * sections such as [Models.NTamd64] or [Models.NTx86.5.1] are preferred,
 * then architecture-less ones such as [Models.NT.6.0], the undecorated
 * section is the fallback).  Ids of other buses are skipped.
 * Duplicates (same bus, ids and subsystem) are dropped.  An .inf whose
 * models are all for other platforms is refused naming them:
 * "<inf>:<line>: no models for NTamd64 (this x86_64 wrapper), only for
 * NTx86 (a 32-bit i386 driver)", and the reverse. */
int inf_hwids_arch(const struct inf_file *inf, const char *arch,
		   struct inf_hwid **ids, int *nids, char *err, size_t errlen);
/* The same for INF_ARCH_NATIVE. */
int inf_hwids(const struct inf_file *inf, struct inf_hwid **ids, int *nids,
	      char *err, size_t errlen);
void inf_hwids_free(struct inf_hwid *ids, int nids);

/* Install section actually used for a models entry: <s>.<arch>, then
 * <s>.NT, then <s>.  NULL if none exists. */
const struct inf_section *inf_install_section_arch(const struct inf_file *inf,
						   const char *install,
						   const char *arch);
/* The same for INF_ARCH_NATIVE. */
const struct inf_section *inf_install_section(const struct inf_file *inf,
					      const char *install);

struct inf_param {
	char *name;
	char *value;
};

/* Device settings from the install section's AddReg sections:
 *   HKR, Ndi\params\<Name>, default, <flags>, <value>  -> Name = value
 *   HKR, , <Name>, <flags>, <value>                    -> Name = value
 * Later lines override earlier ones with the same (case-insensitive) name. */
int inf_params(const struct inf_file *inf, const char *install,
	       struct inf_param **params, int *nparams,
	       char *err, size_t errlen);
void inf_params_free(struct inf_param *p, int n);

/* Whether the device may use message-signaled interrupts: Windows uses
 * MSI only for a driver whose <install>.HW section adds
 *   HKR, "Interrupt Management\MessageSignaledInterruptProperties",
 *        MSISupported, 0x00010001, 1
 * (the last such line wins); otherwise the line interrupt, shared. */
int inf_msi_supported(const struct inf_file *inf, const char *install);

/* The driver's .sys file name: the ServiceBinary of the AddService in
 * <install>.Services, else the first .sys of the CopyFiles sections, else
 * the first of [SourceDisksFiles.<INF_DISK_ARCH>] or [SourceDisksFiles].
 * Returns a malloc'd string. */
int inf_sys_file(const struct inf_file *inf, const char *install,
		 char **sys, char *err, size_t errlen);

#endif /* NDIS_INF_H */
