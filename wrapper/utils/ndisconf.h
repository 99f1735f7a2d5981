/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by ndiswrapper (installer) and loadndisdriver (helper): paths
 * under the configuration root, conf file names and contents, small file
 * helpers.  Error reporting: functions return 0 or a negative errno and
 * write one line to err.
 *
 * Conf files: /etc/ndiswrapper/<driver>/<VVVV>:<DDDD>.<B>.conf, or with
 * subsystem ids <VVVV>:<DDDD>:<SSSS>:<ssss>.<B>.conf (SSSS = subsystem
 * vendor, ssss = subsystem device), uppercase hex, B = 5 (PCI) or F (USB).
 * Contents: one "name|value" setting per line; empty lines and lines
 * starting with '#' are ignored.
 */
#ifndef NDISCONF_H
#define NDISCONF_H

#include <stddef.h>
#include <stdint.h>

#include "loader_abi.h"

#define NDIS_ROOT_ENV	"NDISWRAPPER_ROOT"

struct ndis_conf_id {
	unsigned int bus;	/* NDIS_BUS_PCI or NDIS_BUS_USB */
	uint16_t vendor, device;
	int has_subsys;
	uint16_t subvendor, subdevice;
};

struct ndis_conf_setting {
	char name[NDIS_MAX_SETTING_NAME];
	char value[NDIS_MAX_SETTING_VALUE];
};

/* "<root>/etc/ndiswrapper" (root "" or "/" means the real root). */
void ndis_conf_dir(const char *root, char *out, size_t outlen);

/* Formats "VVVV:DDDD[:SSSS:ssss].B" (no ".conf"). */
void ndis_id_format(const struct ndis_conf_id *id, char *out, size_t outlen);
/* Parses "VVVV:DDDD[:SSSS:ssss].B" optionally followed by ".conf". */
int ndis_id_parse(const char *s, struct ndis_conf_id *id);

/* Valid driver directory name: [a-z0-9_.+-], not starting with '.', < 64. */
int ndis_driver_name_ok(const char *name);

/* Reads a whole regular file of at most max bytes (malloc'd, NUL added). */
int ndis_read_file(const char *path, size_t max, char **data, size_t *size,
		   char *err, size_t errlen);

/* Parses a conf file's text (data[size] == '\0'; its lines are cut in
 * place; path only names it in errors): at most NDIS_MAX_SETTINGS. */
int ndis_conf_parse(const char *path, char *data, size_t size,
		    struct ndis_conf_setting **set, int *n, char *err,
		    size_t errlen);
/* Reads and parses a conf file's settings (at most NDIS_MAX_SETTINGS). */
int ndis_conf_read(const char *path, struct ndis_conf_setting **set, int *n,
		   char *err, size_t errlen);

/* snprintf that reports truncation as -ENAMETOOLONG (else 0). */
int ndis_pathf(char *out, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* rm -r of a directory holding plain files only (one level).  Symlinks are
 * never followed: a path that is one is refused (-ELOOP or -ENOTDIR), a
 * link inside is unlinked itself. */
int ndis_remove_dir(const char *path);

#endif /* NDISCONF_H */
