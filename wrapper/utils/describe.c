// SPDX-License-Identifier: GPL-2.0
/*
 * ndisconf --describe: the wrapper's INF parser and PE loader, their
 * findings as JSON (describe.h).  Nothing here reads the formats itself:
 * every field comes from inf.c and pe.c, or from the header bytes pe.c
 * has validated (the section table).
 */
#define _GNU_SOURCE	/* open_memstream */
#include "describe.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "driverkind.h"
#include "inf.h"
#include "ndisconf.h"
#include "pe.h"

/* Any base away from the preferred one, as the installer relocates to:
 * one of the kernel's vmalloc area (a PE32 image must lie below 4 GiB). */
#define TRIAL_BASE_AMD64	0xffffc90000000000ull
#define TRIAL_BASE_I386		0xf8000000ull

static void json_str(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_cstr(FILE *f, const char *s)
{
	json_str(f, s, strlen(s));
}

static void json_key(FILE *f, const char *key)
{
	json_cstr(f, key);
	fputc(':', f);
}

/* Runs fill into a memory buffer and copies it to out only when fill
 * succeeded: a refused file prints nothing but its error. */
static int emit(FILE *out, int (*fill)(FILE *f, void *ctx), void *ctx,
		char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = fill(f, ctx);
	if (fclose(f) && !rc) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	if (!rc && (fwrite(buf, 1, len, out) != len || fputc('\n', out) == EOF ||
		    fflush(out))) {
		snprintf(err, errlen, "cannot write the description");
		rc = -EPIPE;
	}
	free(buf);
	return rc;
}

/* ---- .inf ---- */

struct inf_ctx {
	const struct inf_file *inf;
	const char *arch;
	const struct inf_hwid *ids;
	int nids;
	char *err;
	size_t errlen;
};

static int inf_id(FILE *f, const struct inf_ctx *c, const struct inf_hwid *h)
{
	struct inf_param *p;
	char *sys, hex[8];
	int np, k, rc;

	rc = inf_sys_file(c->inf, h->install, &sys, c->err, c->errlen);
	if (rc)
		return rc;
	rc = inf_params(c->inf, h->install, &p, &np, c->err, c->errlen);
	if (rc) {
		free(sys);
		return rc;
	}
	fprintf(f, "{\"bus\":\"%s\",", h->bus == INF_BUS_USB ? "usb" : "pci");
	snprintf(hex, sizeof(hex), "%04x", h->vendor);
	json_key(f, "vendor");
	json_cstr(f, hex);
	snprintf(hex, sizeof(hex), "%04x", h->device);
	fputc(',', f);
	json_key(f, "device");
	json_cstr(f, hex);
	if (h->has_subsys) {
		snprintf(hex, sizeof(hex), "%04x", h->subvendor);
		fputc(',', f);
		json_key(f, "subvendor");
		json_cstr(f, hex);
		snprintf(hex, sizeof(hex), "%04x", h->subdevice);
		fputc(',', f);
		json_key(f, "subdevice");
		json_cstr(f, hex);
	}
	fputc(',', f);
	json_key(f, "id");
	json_cstr(f, h->id);
	fputc(',', f);
	json_key(f, "description");
	json_cstr(f, h->description);
	fputc(',', f);
	json_key(f, "install");
	json_cstr(f, h->install);
	fputc(',', f);
	json_key(f, "files");
	fputc('[', f);
	json_cstr(f, sys);
	fputs("],", f);
	json_key(f, "settings");
	fputc('{', f);
	for (k = 0; k < np; k++) {
		if (k)
			fputc(',', f);
		json_key(f, p[k].name);
		json_cstr(f, p[k].value);
	}
	fprintf(f, "},\"msi\":%s}",
		inf_msi_supported(c->inf, h->install) ? "true" : "false");
	inf_params_free(p, np);
	free(sys);
	return 0;
}

static int inf_fill(FILE *f, void *ctx)
{
	const struct inf_ctx *c = ctx;
	int i, rc;

	fputs("{\"format\":\"inf\",", f);
	json_key(f, "arch");
	json_cstr(f, c->arch);
	fputs(",\"ids\":[", f);
	for (i = 0; i < c->nids; i++) {
		if (i)
			fputc(',', f);
		rc = inf_id(f, c, &c->ids[i]);
		if (rc)
			return rc;
	}
	fputs("]}", f);
	return 0;
}

int ndis_describe_inf(const char *name, const void *text, size_t size,
		      const char *arch, FILE *out, char *err, size_t errlen)
{
	struct inf_ctx c = { .arch = arch, .err = err, .errlen = errlen };
	struct inf_file *inf;
	struct inf_hwid *ids;
	int nids, rc;

	rc = inf_parse_buffer(name, text, size, &inf, err, errlen);
	if (rc)
		return rc;
	rc = inf_hwids_arch(inf, arch, &ids, &nids, err, errlen);
	if (rc)
		goto out_inf;
	c.inf = inf;
	c.ids = ids;
	c.nids = nids;
	rc = emit(out, inf_fill, &c, err, errlen);
	inf_hwids_free(ids, nids);
out_inf:
	inf_free(inf);
	return rc;
}

/* ---- .sys ---- */

struct sys_ctx {
	const uint8_t *file;
	const struct pe_info *info;
	const void *image;
	int nimports;
	char *err;
	size_t errlen;
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int sys_import(void *ctx, const char *dll, const char *name)
{
	FILE *f = ctx;

	/* the caller's first entry has no comma: see sys_fill */
	fputs(",{", f);
	json_key(f, "dll");
	json_cstr(f, dll);
	fputc(',', f);
	json_key(f, "name");
	json_cstr(f, name);
	fputc('}', f);
	return 0;
}

static void json_imports(FILE *f, const struct ndis_import *list,
			 unsigned int n)
{
	unsigned int i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		fputs(i ? ",{" : "{", f);
		json_key(f, "dll");
		json_cstr(f, list[i].dll);
		fputc(',', f);
		json_key(f, "name");
		json_cstr(f, list[i].name);
		fputc('}', f);
	}
	fputc(']', f);
}

/* ,"<key>":"<line or empty>" */
static int json_line(FILE *f, const char *key,
		     int (*line_of)(const struct ndis_findings *, char **),
		     const struct ndis_findings *found, char *err,
		     size_t errlen)
{
	char *line;

	if (line_of(found, &line)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fputc(',', f);
	json_key(f, key);
	json_cstr(f, line ? line : "");
	free(line);
	return 0;
}

/* What the user brought (driverkind.h), for the wrapper of the image's
 * own architecture. */
static int sys_findings(FILE *f, const struct sys_ctx *c)
{
	struct ndis_findings found;
	int rc;

	rc = ndis_find(c->image, c->info, c->info->machine, &found, c->err,
		       c->errlen);
	if (rc)
		return rc;
	fputc(',', f);
	json_key(f, "ndis6");
	json_imports(f, found.ndis6, found.n_ndis6);
	rc = json_line(f, "ndis6_line", ndis_ndis6_line, &found, c->err,
		       c->errlen);
	if (!rc) {
		fputc(',', f);
		json_key(f, "unknown_imports");
		json_imports(f, found.unknown, found.n_unknown);
		rc = json_line(f, "unknown_imports_line", ndis_unknown_line,
			       &found, c->err, c->errlen);
	}
	ndis_findings_free(&found);
	return rc;
}

static int sys_fill(FILE *f, void *ctx)
{
	const struct sys_ctx *c = ctx;
	const struct pe_info *info = c->info;
	char *imports = NULL;
	size_t len = 0;
	FILE *imp;
	unsigned int i;
	int rc;

	fprintf(f, "{\"format\":\"sys\",\"machine\":%u,\"pe\":\"%s\","
		"\"subsystem\":%u,\"image_size\":%u,\"image_base\":%llu,"
		"\"entry_rva\":%u,\"sections\":[",
		info->machine, info->ptr_size == 8 ? "PE32+" : "PE32",
		info->subsystem, info->size_of_image,
		(unsigned long long)info->image_base, info->entry_rva);
	/* the section table pe_check has bounded (num_sections entries) */
	for (i = 0; i < info->num_sections; i++) {
		const uint8_t *sh = c->file + info->sections_offset + 40 * i;

		if (i)
			fputc(',', f);
		fputs("{\"name\":", f);
		json_str(f, (const char *)sh, strnlen((const char *)sh, 8));
		fprintf(f, ",\"rva\":%u,\"virtual_size\":%u,\"raw_size\":%u,"
			"\"characteristics\":%u}", le32(sh + 12), le32(sh + 8),
			le32(sh + 16), le32(sh + 36));
	}
	fputc(']', f);
	rc = sys_findings(f, c);
	if (rc)
		return rc;
	fputs(",\"imports\":[", f);
	imp = open_memstream(&imports, &len);
	if (!imp) {
		snprintf(c->err, c->errlen, "out of memory");
		return -ENOMEM;
	}
	rc = pe_for_each_import(c->image, info, sys_import, imp, c->err,
				c->errlen);
	if (fclose(imp) && !rc) {
		snprintf(c->err, c->errlen, "out of memory");
		rc = -ENOMEM;
	}
	if (!rc && len)
		fwrite(imports + 1, 1, len - 1, f);	/* without its first ',' */
	free(imports);
	if (rc)
		return rc;
	fprintf(f, "],\"export_directory\":{\"rva\":%u,\"size\":%u}}",
		info->dirs[PE_DIR_EXPORT].rva, info->dirs[PE_DIR_EXPORT].size);
	return 0;
}

int ndis_describe_sys(const void *data, size_t size, FILE *out, char *err,
		      size_t errlen)
{
	struct sys_ctx c = { .file = data, .err = err, .errlen = errlen };
	struct pe_info info;
	void *image;
	int rc;

	/* the machine the image says, where the loader has one */
	rc = pe_check_machine(data, size, PE_MACHINE_AMD64, &info, err,
			      errlen);
	if (rc && info.machine == PE_MACHINE_I386)
		rc = pe_check_machine(data, size, PE_MACHINE_I386, &info, err,
				      errlen);
	if (rc)
		return rc;
	image = calloc(1, info.size_of_image);
	if (!image) {
		snprintf(err, errlen, "out of memory for a 0x%x byte image",
			 info.size_of_image);
		return -ENOMEM;
	}
	rc = pe_map(data, size, &info, image, err, errlen);
	if (!rc)
		rc = pe_relocate(image, &info, info.machine == PE_MACHINE_I386 ?
				 TRIAL_BASE_I386 : TRIAL_BASE_AMD64,
				 err, errlen);
	if (!rc) {
		c.info = &info;
		c.image = image;
		rc = emit(out, sys_fill, &c, err, errlen);
	}
	free(image);
	return rc;
}

/* ---- files ---- */

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

int ndis_describe_file(const char *path, const char *arch, FILE *out,
		       char *err, size_t errlen)
{
	int inf = has_suffix(path, ".inf");
	size_t max = inf ? INF_MAX_FILE_SIZE : NDIS_MAX_SYS_SIZE;
	char msg[512];
	struct stat st;
	size_t size;
	char *data;
	int rc;

	if (!stat(path, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size > max) {
		snprintf(err, errlen, "%s: larger than %zu MiB (%lld bytes), the wrapper's limit for an %s",
			 path, max >> 20, (long long)st.st_size,
			 inf ? ".inf" : ".sys");
		return NDIS_DESCRIBE_REFUSED;
	}
	if (ndis_read_file(path, max, &data, &size, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s", msg);
		return NDIS_DESCRIBE_UNREADABLE;
	}
	if (inf) {
		rc = ndis_describe_inf(path, data, size, arch, out, err, errlen);
	} else {
		rc = ndis_describe_sys(data, size, out, msg, sizeof(msg));
		if (rc)
			snprintf(err, errlen, "%s: %s", path, msg);
	}
	free(data);
	if (!rc)
		return NDIS_DESCRIBE_OK;
	return rc == -ENOMEM || rc == -EPIPE ? NDIS_DESCRIBE_FAILED :
					      NDIS_DESCRIBE_REFUSED;
}
