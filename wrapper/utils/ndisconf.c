// SPDX-License-Identifier: GPL-2.0
#include "ndisconf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ndis_conf_dir(const char *root, char *out, size_t outlen)
{
	size_t n;

	if (!root)
		root = "";
	n = strlen(root);
	while (n && root[n - 1] == '/')
		n--;
	snprintf(out, outlen, "%.*s%s", (int)n, root, NDIS_CONF_DIR);
}

void ndis_id_format(const struct ndis_conf_id *id, char *out, size_t outlen)
{
	if (id->has_subsys)
		snprintf(out, outlen, "%04X:%04X:%04X:%04X.%X", id->vendor,
			 id->device, id->subvendor, id->subdevice, id->bus);
	else
		snprintf(out, outlen, "%04X:%04X.%X", id->vendor, id->device,
			 id->bus);
}

static int hex4(const char *s, uint16_t *v)
{
	unsigned int r = 0;
	int i;

	for (i = 0; i < 4; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -1;
		r = r << 4 | (unsigned int)(isdigit((unsigned char)s[i]) ?
			s[i] - '0' : toupper((unsigned char)s[i]) - 'A' + 10);
	}
	*v = (uint16_t)r;
	return 0;
}

int ndis_id_parse(const char *s, struct ndis_conf_id *id)
{
	const char *p;

	memset(id, 0, sizeof(*id));
	if (strlen(s) < 11 || hex4(s, &id->vendor) || s[4] != ':' ||
	    hex4(s + 5, &id->device))
		return -EINVAL;
	p = s + 9;
	if (*p == ':') {
		if (hex4(p + 1, &id->subvendor) || p[5] != ':' ||
		    hex4(p + 6, &id->subdevice))
			return -EINVAL;
		id->has_subsys = 1;
		p += 10;
	}
	if (p[0] != '.')
		return -EINVAL;
	if (p[1] == '5')
		id->bus = NDIS_BUS_PCI;
	else if (p[1] == 'F' || p[1] == 'f')
		id->bus = NDIS_BUS_USB;
	else
		return -EINVAL;
	p += 2;
	if (*p && strcmp(p, ".conf"))
		return -EINVAL;
	return 0;
}

int ndis_driver_name_ok(const char *name)
{
	const char *p;

	if (!*name || name[0] == '.' || strlen(name) >= NDIS_MAX_NAME)
		return 0;
	for (p = name; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
		      strchr("_.+-", *p)))
			return 0;
	return 1;
}

int ndis_read_file(const char *path, size_t max, char **data, size_t *size,
		   char *err, size_t errlen)
{
	struct stat st;
	size_t got = 0;
	ssize_t r;
	char *d;
	int fd, e;

	*data = NULL;
	*size = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		snprintf(err, errlen, "%s: not a regular file of at most %zu bytes",
			 path, max);
		close(fd);
		return -EFBIG;
	}
	d = malloc((size_t)st.st_size + 1);
	if (!d) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		r = read(fd, d + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r ? errno : EIO;
			snprintf(err, errlen, "%s: read: %s", path, strerror(e));
			free(d);
			close(fd);
			return -e;
		}
		got += (size_t)r;
	}
	close(fd);
	d[got] = '\0';
	*data = d;
	*size = got;
	return 0;
}

int ndis_conf_parse(const char *path, char *data, size_t size,
		    struct ndis_conf_setting **set, int *n, char *err,
		    size_t errlen)
{
	struct ndis_conf_setting *s = NULL;
	char *line, *next;
	int cnt = 0, lineno = 0, rc;

	*set = NULL;
	*n = 0;
	if (strlen(data) != size) {
		snprintf(err, errlen, "%s: NUL byte in conf file", path);
		return -EINVAL;
	}
	for (line = data; line && *line; line = next) {
		char *bar, *end;
		size_t nl, vl;

		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		end = line + strlen(line);
		if (end > line && end[-1] == '\r')
			*--end = '\0';
		if (!*line || *line == '#')
			continue;
		bar = strchr(line, '|');
		if (!bar || bar == line) {
			snprintf(err, errlen, "%s:%d: expected name|value", path,
				 lineno);
			rc = -EINVAL;
			goto fail;
		}
		nl = (size_t)(bar - line);
		vl = strlen(bar + 1);
		if (nl >= NDIS_MAX_SETTING_NAME || vl >= NDIS_MAX_SETTING_VALUE) {
			snprintf(err, errlen, "%s:%d: name or value too long (max %d/%d)",
				 path, lineno, NDIS_MAX_SETTING_NAME - 1,
				 NDIS_MAX_SETTING_VALUE - 1);
			rc = -EINVAL;
			goto fail;
		}
		if (cnt >= NDIS_MAX_SETTINGS) {
			snprintf(err, errlen, "%s:%d: more than %d settings", path,
				 lineno, NDIS_MAX_SETTINGS);
			rc = -E2BIG;
			goto fail;
		}
		if (cnt % 32 == 0) {
			struct ndis_conf_setting *ns =
				realloc(s, sizeof(*s) * (size_t)(cnt + 32));

			if (!ns) {
				rc = -ENOMEM;
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			s = ns;
		}
		memset(&s[cnt], 0, sizeof(s[cnt]));
		memcpy(s[cnt].name, line, nl);
		memcpy(s[cnt].value, bar + 1, vl);
		cnt++;
	}
	*set = s;
	*n = cnt;
	return 0;
fail:
	free(s);
	return rc;
}

int ndis_conf_read(const char *path, struct ndis_conf_setting **set, int *n,
		   char *err, size_t errlen)
{
	char *data;
	size_t size;
	int rc;

	*set = NULL;
	*n = 0;
	rc = ndis_read_file(path, 1u << 20, &data, &size, err, errlen);
	if (rc)
		return rc;
	rc = ndis_conf_parse(path, data, size, set, n, err, errlen);
	free(data);
	return rc;
}

int ndis_remove_dir(const char *path)
{
	/* the folder and its entries by handle: no symlink is followed */
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	int rc = 0;
	DIR *d;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(fd, de->d_name, 0))
			rc = -errno;
	}
	closedir(d);
	if (rmdir(path))
		rc = -errno;
	return rc;
}

int ndis_pathf(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(out, n, fmt, ap);
	va_end(ap);
	return r < 0 || (size_t)r >= n ? -ENAMETOOLONG : 0;
}
