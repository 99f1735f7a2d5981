// SPDX-License-Identifier: GPL-2.0
/*
 * loadndisdriver: the user-space helper the ndiswrapper module runs
 * (contract: wrapper/include/loader_abi.h).
 *
 *   loadndisdriver [opts] devices
 *       every <conf dir>/<driver>/<id>.conf -> NDIS_IOCTL_ADD_DEVICE
 *   loadndisdriver [opts] driver <driver> <VVVV>:<DDDD>[:<SSSS>:<ssss>].<B>
 *       the driver's .sys and the id's settings -> NDIS_IOCTL_LOAD_DRIVER
 *
 * Options: --root DIR (or $NDISWRAPPER_ROOT) reads DIR/etc/ndiswrapper;
 * --device PATH opens PATH instead of /dev/ndiswrapper; --dry-run prints
 * each request on stdout instead of issuing it (for tests).
 *
 * For "driver", the conf file is <id>.conf; a request without subsystem ids
 * falls back to the first (sorted) <VVVV>:<DDDD>:*.<B>.conf, one with them
 * falls back to <VVVV>:<DDDD>.<B>.conf.  The .sys is the only *.sys in the
 * driver's directory (several are refused).  The .sys is checked with
 * pe_check before it is handed over.
 *
 * Static, no syslog: it runs in a busybox initramfs.  Errors: one line on
 * stderr and exit status 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ndisconf.h"
#include "pe.h"

static int dry_run;
static const char *device_path = "/dev/" NDIS_DEVICE_NAME;
static char err[512];

/*
 * The module runs us with no terminal: an error also goes to the kernel
 * log (/dev/kmsg, level 3), next to the module's own lines, when we talk
 * to the real device.
 */
static void log_kernel(const char *line)
{
	char rec[1100];
	int fd, len;

	if (dry_run || strcmp(device_path, "/dev/" NDIS_DEVICE_NAME) != 0)
		return;
	len = snprintf(rec, sizeof(rec), "<3>loadndisdriver: %s\n", line);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof(rec))
		len = sizeof(rec) - 1;
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* One write() is one kernel log record; if it fails, stderr has the
	 * line and there is nowhere else to report it. */
	if (write(fd, rec, (size_t)len) != len)
		len = 0;
	close(fd);
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "loadndisdriver: %s\n", line);
	log_kernel(line);
	return 1;
}

static int open_dev(void)
{
	int fd;

	if (dry_run)
		return -1;
	fd = open(device_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fail("%s: %s", device_path, strerror(errno));
	return fd;
}

static void fill_id(struct ndis_device_id *d, const struct ndis_conf_id *c,
		    const char *driver)
{
	memset(d, 0, sizeof(*d));
	d->abi_version = NDIS_LOADER_ABI_VERSION;
	d->bus = c->bus;
	d->vendor = c->vendor;
	d->device = c->device;
	d->subvendor = c->has_subsys ? c->subvendor : 0xffff;
	d->subdevice = c->has_subsys ? c->subdevice : 0xffff;
	snprintf(d->driver, sizeof(d->driver), "%s", driver);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, non-hidden entry names of dir. */
static int list_dir(const char *dir, char ***names, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL, **nv;
	int cnt = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		nv = realloc(v, sizeof(*v) * (size_t)(cnt + 1));
		if (!nv)
			break;
		v = nv;
		v[cnt] = strdup(de->d_name);
		if (v[cnt])
			cnt++;
	}
	closedir(d);
	qsort(v, (size_t)cnt, sizeof(*v), cmp_str);
	*names = v;
	*n = cnt;
	return 0;
}

static void free_names(char **v, int n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

static int devices(const char *confdir)
{
	char **drivers, **files, dir[4200];
	int nd, nf, i, j, fd, rc = 0, count = 0;

	if (list_dir(confdir, &drivers, &nd)) {
		if (errno == ENOENT)
			return 0;	/* nothing installed */
		return fail("%s: %s", confdir, strerror(errno));
	}
	fd = open_dev();
	if (fd < 0 && !dry_run) {
		free_names(drivers, nd);
		return 1;
	}
	for (i = 0; i < nd && !rc; i++) {
		if (!ndis_driver_name_ok(drivers[i]) ||
		    ndis_pathf(dir, sizeof(dir), "%s/%s", confdir, drivers[i]) ||
		    list_dir(dir, &files, &nf))
			continue;
		for (j = 0; j < nf && !rc; j++) {
			struct ndis_conf_id cid;
			struct ndis_device_id id;
			char name[64];

			if (ndis_id_parse(files[j], &cid) ||
			    !strstr(files[j], ".conf"))
				continue;
			fill_id(&id, &cid, drivers[i]);
			ndis_id_format(&cid, name, sizeof(name));
			if (dry_run) {
				printf("ADD_DEVICE %s %s\n", drivers[i], name);
			} else if (ioctl(fd, NDIS_IOCTL_ADD_DEVICE, &id)) {
				rc = fail("ADD_DEVICE %s %s: %s", drivers[i],
					  name, strerror(errno));
			}
			count++;
		}
		free_names(files, nf);
	}
	free_names(drivers, nd);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcasecmp(s + n - m, suf);
}

/* Finds the conf file for the requested id (see the header comment). */
static int find_conf(const char *dir, const struct ndis_conf_id *want,
		     char *out, size_t outlen, struct ndis_conf_id *found)
{
	char **files;
	int n, i, rc = -ENOENT;
	struct ndis_conf_id c;

	if (list_dir(dir, &files, &n))
		return -errno;
	/* exact first */
	for (i = 0; i < n && rc; i++)
		if (!ndis_id_parse(files[i], &c) && has_suffix(files[i], ".conf") &&
		    c.bus == want->bus && c.vendor == want->vendor &&
		    c.device == want->device && c.has_subsys == want->has_subsys &&
		    (!c.has_subsys || (c.subvendor == want->subvendor &&
				       c.subdevice == want->subdevice))) {
			*found = c;
			rc = ndis_pathf(out, outlen, "%s/%s", dir, files[i]);
		}
	for (i = 0; i < n && rc; i++)
		if (!ndis_id_parse(files[i], &c) && has_suffix(files[i], ".conf") &&
		    c.bus == want->bus && c.vendor == want->vendor &&
		    c.device == want->device) {
			*found = c;
			rc = ndis_pathf(out, outlen, "%s/%s", dir, files[i]);
		}
	free_names(files, n);
	return rc;
}

static int load_driver(const char *confdir, const char *driver,
		       const char *idstr)
{
	char dir[4200], conf[8400], syspath[8400], sysname[NDIS_MAX_NAME];
	struct ndis_conf_id want, cid;
	struct ndis_conf_setting *set = NULL;
	struct ndis_setting *abi_set = NULL;
	struct ndis_load_driver req;
	struct pe_info info;
	char **files, *data = NULL;
	size_t size;
	int n, nset, i, nsys = 0, fd, rc = 1;

	if (!ndis_driver_name_ok(driver))
		return fail("'%s' is not a driver name", driver);
	if (ndis_id_parse(idstr, &want) || strstr(idstr, ".conf"))
		return fail("'%s' is not a device id (VVVV:DDDD.B or VVVV:DDDD:SSSS:ssss.B)",
			    idstr);
	if (ndis_pathf(dir, sizeof(dir), "%s/%s", confdir, driver))
		return fail("%s: path too long", confdir);
	if (find_conf(dir, &want, conf, sizeof(conf), &cid))
		return fail("no conf file for %s in %s", idstr, dir);
	if (list_dir(dir, &files, &n))
		return fail("%s: %s", dir, strerror(errno));
	for (i = 0; i < n; i++)
		if (has_suffix(files[i], ".sys")) {
			if (nsys++ || strlen(files[i]) >= sizeof(sysname)) {
				free_names(files, n);
				return fail("%s: several .sys files (or a name over %d bytes); cannot choose",
					    dir, NDIS_MAX_NAME - 1);
			}
			snprintf(sysname, sizeof(sysname), "%s", files[i]);
		}
	free_names(files, n);
	if (!nsys)
		return fail("%s: no .sys file", dir);
	if (ndis_pathf(syspath, sizeof(syspath), "%s/%s", dir, sysname))
		return fail("%s: path too long", dir);
	if (ndis_read_file(syspath, NDIS_MAX_SYS_SIZE, &data, &size, err,
			   sizeof(err)))
		return fail("%s", err);
	if (pe_check(data, size, &info, err, sizeof(err))) {
		fail("%s: %s", syspath, err);
		goto out;
	}
	if (ndis_conf_read(conf, &set, &nset, err, sizeof(err))) {
		fail("%s", err);
		goto out;
	}
	abi_set = calloc((size_t)nset + 1, sizeof(*abi_set));
	if (!abi_set) {
		fail("out of memory");
		goto out;
	}
	for (i = 0; i < nset; i++) {
		memcpy(abi_set[i].name, set[i].name, sizeof(abi_set[i].name));
		memcpy(abi_set[i].value, set[i].value, sizeof(abi_set[i].value));
	}
	memset(&req, 0, sizeof(req));
	req.abi_version = NDIS_LOADER_ABI_VERSION;
	req.num_settings = (__u32)nset;
	fill_id(&req.id, &cid, driver);
	memcpy(req.sys_name, sysname, sizeof(req.sys_name));
	req.sys_data = (__u64)(uintptr_t)data;
	req.sys_size = size;
	req.settings = (__u64)(uintptr_t)abi_set;
	if (dry_run) {
		char name[64];

		ndis_id_format(&cid, name, sizeof(name));
		printf("LOAD_DRIVER %s %s sys=%s size=%zu settings=%d\n",
		       driver, name, sysname, size, nset);
		for (i = 0; i < nset; i++)
			printf("  %s|%s\n", abi_set[i].name, abi_set[i].value);
		rc = 0;
		goto out;
	}
	fd = open_dev();
	if (fd < 0)
		goto out;
	if (ioctl(fd, NDIS_IOCTL_LOAD_DRIVER, &req))
		fail("LOAD_DRIVER %s %s: %s", driver, idstr, strerror(errno));
	else
		rc = 0;
	close(fd);
out:
	free(abi_set);
	free(set);
	free(data);
	return rc;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: loadndisdriver [--root DIR] [--device PATH] [--dry-run] devices\n"
		"       loadndisdriver [--root DIR] [--device PATH] [--dry-run] driver <driver> <VVVV>:<DDDD>.<B>\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *root = getenv(NDIS_ROOT_ENV);
	char confdir[4096];
	int i = 1;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--dry-run"))
			dry_run = 1;
		else if (!strcmp(argv[i], "--root") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(argv[i], "--device") && i + 1 < argc)
			device_path = argv[++i];
		else
			return usage();
	}
	ndis_conf_dir(root, confdir, sizeof(confdir));
	if (argc - i == 1 && !strcmp(argv[i], "devices"))
		return devices(confdir);
	if (argc - i == 3 && !strcmp(argv[i], "driver"))
		return load_driver(confdir, argv[i + 1], argv[i + 2]);
	return usage();
}
