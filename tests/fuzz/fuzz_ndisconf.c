// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: ndisconf's conf file reader (wrapper/utils/ndisconf.c,
 * ndis_conf_parse, which ndis_conf_read runs on a file's text) and its
 * file name parser (ndis_id_parse). Oracle: an accepted file gives at most
 * NDIS_MAX_SETTINGS settings, each a non-empty terminated name without
 * '|' and a terminated value, and "name|value" is a line of the input
 * (with an optional '\r'); the settings are the input's lines in order,
 * skipping empty and '#' lines. An accepted id formats back to the same
 * name, ignoring case and the ".conf" suffix.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "describe.h"
#include "inf.h"
#include "ndisconf.h"

static void check_settings(const char *text, size_t size,
			   const struct ndis_conf_setting *set, int n)
{
	const char *line = text, *end = text + size;
	int i = 0;

	if (n < 0 || n > NDIS_MAX_SETTINGS)
		abort();
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
		size_t nlen, vlen;

		if (len && line[len - 1] == '\r')
			len--;
		if (len && line[0] != '#') {
			if (i >= n)
				abort();	/* a setting line was dropped */
			nlen = strnlen(set[i].name, NDIS_MAX_SETTING_NAME);
			vlen = strnlen(set[i].value, NDIS_MAX_SETTING_VALUE);
			if (!nlen || nlen == NDIS_MAX_SETTING_NAME ||
			    vlen == NDIS_MAX_SETTING_VALUE ||
			    memchr(set[i].name, '|', nlen) ||
			    nlen + 1 + vlen != len ||
			    memcmp(line, set[i].name, nlen) ||
			    line[nlen] != '|' ||
			    memcmp(line + nlen + 1, set[i].value, vlen))
				abort();
			i++;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (i != n)
		abort();	/* a setting that is no line of the input */
}

static void check_id(const uint8_t *data, size_t size)
{
	struct ndis_conf_id id;
	char s[64], back[64];
	size_t len = size < sizeof(s) - 1 ? size : sizeof(s) - 1;

	memcpy(s, data, len);
	s[len] = '\0';
	if (ndis_id_parse(s, &id))
		return;
	if (id.bus != NDIS_BUS_PCI && id.bus != NDIS_BUS_USB)
		abort();
	ndis_id_format(&id, back, sizeof(back));
	len = strlen(back);
	if (strncasecmp(s, back, len) || (s[len] && strcmp(s + len, ".conf")))
		abort();
}

static void check_description(const char *out, size_t len, const char *format)
{
	size_t i;

	if (len < 2 || out[0] != '{' || out[len - 2] != '}' ||
	    out[len - 1] != '\n' || strncmp(out + 1, format, strlen(format)))
		abort();
	for (i = 0; i + 1 < len; i++)
		if ((unsigned char)out[i] < 0x20)
			abort();	/* a raw newline or control byte */
}

static void check_describe(const uint8_t *data, size_t size, int inf)
{
	char err[256] = "", *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int rc;

	if (!f)
		abort();
	rc = inf ? ndis_describe_inf("fuzz.inf", data, size, INF_ARCH_AMD64, f,
				     err, sizeof(err)) :
		   ndis_describe_sys(data, size, f, err, sizeof(err));
	if (fclose(f))
		abort();
	if (rc) {
		if (len || !err[0] || !memchr(err, '\0', sizeof(err)))
			abort();	/* output from a refusal, or no cause named */
		free(out);
		return;
	}
	check_description(out, len, inf ? "\"format\":\"inf\"" :
					   "\"format\":\"sys\"");
	/* a described .sys says what its imports say, lists and lines
	 * together: a line exactly when its list has an entry */
	if (!inf) {
		int n6 = !strstr(out, "\"ndis6\":[]");
		int nu = !strstr(out, "\"unknown_imports\":[]");

		if (!strstr(out, "\"ndis6\":[") ||
		    !strstr(out, "\"unknown_imports\":[") ||
		    n6 == !!strstr(out, "\"ndis6_line\":\"\"") ||
		    nu == !!strstr(out, "\"unknown_imports_line\":\"\""))
			abort();
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ndis_conf_setting *set;
	char err[256] = "", *text, *copy;
	int n;

	check_id(data, size);
	check_describe(data, size, 1);
	check_describe(data, size, 0);
	/* exactly size bytes plus the NUL ndis_read_file adds: ASan sees
	 * any read past them */
	text = malloc(size + 1);
	copy = malloc(size + 1);
	if (!text || !copy)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	memcpy(copy, text, size + 1);
	if (!ndis_conf_parse("fuzz.conf", text, size, &set, &n, err,
			     sizeof(err))) {
		check_settings(copy, size, set, n);
		free(set);
	} else if (!err[0] || !memchr(err, '\0', sizeof(err))) {
		abort();	/* a refusal names its cause */
	}
	free(text);
	free(copy);
	return 0;
}
