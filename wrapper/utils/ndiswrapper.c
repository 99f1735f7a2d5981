// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: install, list and remove Windows NDIS drivers for the
 * ndiswrapper kernel module, with the historical command line:
 *
 *   ndiswrapper [--root DIR] -i file.inf   install the driver of file.inf
 *   ndiswrapper [--root DIR] -l            list installed drivers
 *   ndiswrapper [--root DIR] -r driver     remove an installed driver
 *
 * --root DIR (or $NDISWRAPPER_ROOT) works under DIR/etc/ndiswrapper.
 * --no-check installs a .sys without validating it (negative tests of the
 * module's own checks need broken images installed).
 *
 * -i parses the .inf, finds the .sys next to it (case-insensitively),
 * validates the .sys as a loadable PE32+ driver (pe_check, then a trial
 * map, relocation to another base and import-table walk), refuses an
 * NDIS 6 miniport and warns, in one line naming them all, of imports the
 * wrapper does not export (driverkind.h: the module then refuses the
 * driver at load, as it always did), and writes /etc/ndiswrapper/<driver>/ with
 * <driver>.inf, the .sys file(s) (lowercased names) and one conf file per
 * PCI/USB hardware id (see ndisconf.h), holding:
 *   NdisVersion|0x50001        NDIS 5.1, as ndiswrapper announced
 *   Environment|1              Ndis environment: Windows NT
 *   BusType|5 or 15            NDIS interface type: PCI or PNP bus (USB)
 *   class_guid|{...}           [Version] ClassGuid, when present
 *   driver_version|...         [Version] DriverVer, when present
 *   <Name>|<value>             every setting from the install's AddReg
 * Everything is written into a temporary directory that is renamed into
 * place at the end, so a failure leaves nothing behind.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driverkind.h"
#include "inf.h"
#include "ndisconf.h"
#include "pe.h"

#define ERRLEN 2048	/* an NDIS 6 line names up to 31 functions */
/*
 * Any base away from the preferred one: exercises every relocation. One of
 * the kernel's vmalloc area on each architecture (a PE32 image must lie
 * below 4 GiB).
 */
#if defined(__i386__)
#define TEST_BASE 0xf8000000ull
#else
#define TEST_BASE 0xffffc90000000000ull
#endif

static char err[ERRLEN];
static int no_check;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("ndiswrapper: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/*
 * What the imports say: an NDIS 6 miniport is refused (its line in e);
 * imports the wrapper lacks are one warning line naming path.
 */
static int check_imports(const void *image, const struct pe_info *info,
			 const char *path, char *e, size_t el)
{
	struct ndis_findings found;
	char *line = NULL;
	int rc;

	rc = ndis_find(image, info, PE_MACHINE_NATIVE, &found, e, el);
	if (rc)
		return rc;
	rc = ndis_ndis6_line(&found, &line);
	if (!rc && line) {
		ndis_pathf(e, el, "%s", line);
		rc = -ENOEXEC;
	} else if (!rc) {
		rc = ndis_unknown_line(&found, &line);
		if (!rc && line)
			fprintf(stderr, "ndiswrapper: warning: %s: %s\n", path,
				line);
	}
	if (rc == -ENOMEM)
		ndis_pathf(e, el, "out of memory listing the imports");
	free(line);
	ndis_findings_free(&found);
	return rc;
}

/* Full offline validation: check, map, relocate, walk the imports. */
static int validate_sys(const char *data, size_t size, const char *path,
			char *e, size_t el)
{
	struct pe_info info;
	void *image;
	int rc;

	rc = pe_check(data, size, &info, e, el);
	if (rc)
		return rc;
	image = calloc(1, info.size_of_image);
	if (!image) {
		ndis_pathf(e, el, "out of memory for a 0x%x byte image",
			 info.size_of_image);
		return -ENOMEM;
	}
	rc = pe_map(data, size, &info, image, e, el);
	if (!rc)
		rc = pe_relocate(image, &info, TEST_BASE, e, el);
	if (!rc)
		rc = check_imports(image, &info, path, e, el);
	free(image);
	return rc;
}

/* Finds name in dir case-insensitively; writes the real path. */
static int find_nocase(const char *dir, const char *name, char *out,
		       size_t outlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int found = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (!strcasecmp(de->d_name, name)) {
			ndis_pathf(out, outlen, "%s/%s", dir, de->d_name);
			found = 1;
			break;
		}
	closedir(d);
	return found ? 0 : -ENOENT;
}

static int write_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	const char *p = data;
	ssize_t w;

	if (fd < 0)
		return -errno;
	while (size) {
		w = write(fd, p, size);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w ? errno : EIO;

			close(fd);
			return -e;
		}
		p += w;
		size -= (size_t)w;
	}
	if (fsync(fd) || close(fd))
		return -errno;
	return 0;
}

static int mkdir_p(const char *path)
{
	char tmp[4096], *p;

	ndis_pathf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Appends "name|value\n" after checking it fits the loader ABI. */
static int add_setting(char **buf, size_t *len, int *count, const char *inf,
		       const char *name, const char *value)
{
	size_t nl = strlen(name), vl = strlen(value);
	char *nb;

	if (!nl || nl >= NDIS_MAX_SETTING_NAME || strpbrk(name, "|\n\r"))
		return fail("%s: setting name '%s' unusable (empty, over %d bytes, or contains '|')",
			    inf, name, NDIS_MAX_SETTING_NAME - 1), -EINVAL;
	if (vl >= NDIS_MAX_SETTING_VALUE || strpbrk(value, "\n\r"))
		return fail("%s: value of setting '%s' over %d bytes or multi-line",
			    inf, name, NDIS_MAX_SETTING_VALUE - 1), -EINVAL;
	if (++*count > NDIS_MAX_SETTINGS)
		return fail("%s: more than %d settings", inf, NDIS_MAX_SETTINGS),
		       -E2BIG;
	nb = realloc(*buf, *len + nl + vl + 3);
	if (!nb)
		return fail("out of memory"), -ENOMEM;
	*buf = nb;
	*len += (size_t)sprintf(nb + *len, "%s|%s\n", name, value);
	return 0;
}

static int install(const char *root, const char *inf_path)
{
	char confdir[4096], tmpdir[4200], final[4200], path[8400], src[8400];
	char driver[NDIS_MAX_NAME + 8], infdir[4096];
	const char *base, *dot;
	struct inf_file *inf = NULL;
	struct inf_hwid *ids = NULL;
	char **sys = NULL;
	int nids = 0, nsys = 0, i, j, rc = 1, made_tmp = 0;
	char *data = NULL;
	size_t size;
	struct stat st;
	const struct inf_section *ver;

	base = strrchr(inf_path, '/');
	base = base ? base + 1 : inf_path;
	if (base == inf_path)
		ndis_pathf(infdir, sizeof(infdir), ".");
	else
		ndis_pathf(infdir, sizeof(infdir), "%.*s",
			 (int)(base - inf_path - 1 > 0 ? base - inf_path - 1 : 1),
			 inf_path);
	dot = strrchr(base, '.');
	if (!dot || strcasecmp(dot, ".inf") ||
	    (size_t)(dot - base) >= NDIS_MAX_NAME || dot == base)
		return fail("%s: not an .inf file name", inf_path);
	ndis_pathf(driver, sizeof(driver), "%.*s", (int)(dot - base), base);
	lower(driver);
	if (!ndis_driver_name_ok(driver))
		return fail("%s: driver name '%s' has unusable characters",
			    inf_path, driver);

	if (inf_parse_file(inf_path, &inf, err, sizeof(err)))
		return fail("%s", err);
	if (inf_hwids(inf, &ids, &nids, err, sizeof(err))) {
		fail("%s", err);
		goto out;
	}
	/* the .sys of every install section used */
	for (i = 0; i < nids; i++) {
		char *s;
		int seen = 0;

		if (inf_sys_file(inf, ids[i].install, &s, err, sizeof(err))) {
			fail("%s", err);
			goto out;
		}
		for (j = 0; j < nsys; j++)
			seen |= !strcasecmp(sys[j], s);
		if (seen) {
			free(s);
			continue;
		}
		sys = realloc(sys, sizeof(*sys) * (size_t)(nsys + 1));
		if (!sys) {
			free(s);
			fail("out of memory");
			goto out;
		}
		sys[nsys++] = s;
	}
	for (i = 0; i < nsys; i++) {
		if (find_nocase(infdir, sys[i], src, sizeof(src))) {
			fail("%s: driver file %s not found in %s", inf_path,
			     sys[i], infdir);
			goto out;
		}
		if (ndis_read_file(src, NDIS_MAX_SYS_SIZE, &data, &size, err,
				   sizeof(err))) {
			fail("%s", err);
			goto out;
		}
		if (!no_check &&
		    validate_sys(data, size, src, err, sizeof(err))) {
			fail("%s: %s", src, err);
			goto out;
		}
		free(data);
		data = NULL;
	}

	ndis_conf_dir(root, confdir, sizeof(confdir));
	if (ndis_pathf(final, sizeof(final), "%s/%s", confdir, driver)) {
		fail("%s: path too long", confdir);
		goto out;
	}
	if (!stat(final, &st)) {
		fail("driver %s is already installed (remove it with -r %s)",
		     driver, driver);
		goto out;
	}
	if ((rc = mkdir_p(confdir))) {
		fail("%s: %s", confdir, strerror(-rc));
		rc = 1;
		goto out;
	}
	rc = 1;
	/* a fresh name nobody could have prepared (root writes there) */
	ndis_pathf(tmpdir, sizeof(tmpdir), "%s/.tmp-%s-XXXXXX", confdir,
		   driver);
	if (!mkdtemp(tmpdir)) {
		fail("%s: %s", tmpdir, strerror(errno));
		goto out;
	}
	made_tmp = 1;
	if (chmod(tmpdir, 0755)) {	/* as the installed folders were */
		fail("%s: %s", tmpdir, strerror(errno));
		goto out;
	}

	/* the .inf and the .sys files */
	if (ndis_read_file(inf_path, INF_MAX_FILE_SIZE, &data, &size, err,
			   sizeof(err))) {
		fail("%s", err);
		goto out;
	}
	ndis_pathf(path, sizeof(path), "%s/%s.inf", tmpdir, driver);
	if (write_file(path, data, size)) {
		fail("%s: %s", path, strerror(errno));
		goto out;
	}
	free(data);
	data = NULL;
	for (i = 0; i < nsys; i++) {
		char lname[NDIS_MAX_NAME];

		find_nocase(infdir, sys[i], src, sizeof(src));
		if (ndis_read_file(src, NDIS_MAX_SYS_SIZE, &data, &size, err,
				   sizeof(err))) {
			fail("%s", err);
			goto out;
		}
		if (strlen(sys[i]) >= sizeof(lname) || strchr(sys[i], '/')) {
			fail("%s: driver file name %s unusable", inf_path, sys[i]);
			goto out;
		}
		strcpy(lname, sys[i]);
		lower(lname);
		ndis_pathf(path, sizeof(path), "%s/%s", tmpdir, lname);
		if (write_file(path, data, size)) {
			fail("%s: %s", path, strerror(errno));
			goto out;
		}
		free(data);
		data = NULL;
	}

	/* one conf file per hardware id */
	ver = inf_find_section(inf, "Version");
	for (i = 0; i < nids; i++) {
		struct ndis_conf_id cid;
		struct inf_param *p;
		char idname[64], num[16];
		char *buf = NULL;
		size_t len = 0;
		int np, k, cnt = 0, bad = 0;
		const struct inf_line *l;

		memset(&cid, 0, sizeof(cid));
		cid.bus = (unsigned int)ids[i].bus;
		cid.vendor = ids[i].vendor;
		cid.device = ids[i].device;
		cid.has_subsys = ids[i].has_subsys;
		cid.subvendor = ids[i].subvendor;
		cid.subdevice = ids[i].subdevice;
		ndis_id_format(&cid, idname, sizeof(idname));
		if (inf_params(inf, ids[i].install, &p, &np, err, sizeof(err))) {
			fail("%s", err);
			goto out;
		}
		ndis_pathf(num, sizeof(num), "%d", ids[i].bus);
		bad |= add_setting(&buf, &len, &cnt, base, "NdisVersion", "0x50001");
		bad |= add_setting(&buf, &len, &cnt, base, "Environment", "1");
		bad |= add_setting(&buf, &len, &cnt, base, "BusType", num);
		l = inf_find_key(ver, "ClassGuid");
		if (!bad && l)
			bad |= add_setting(&buf, &len, &cnt, base, "class_guid",
					   inf_field(l, 0));
		l = inf_find_key(ver, "DriverVer");
		if (!bad && l && l->nfields > 1)
			bad |= add_setting(&buf, &len, &cnt, base,
					   "driver_version", inf_field(l, 1));
		/* The wrapper's, not the driver's: the interrupt it may get. */
		if (!bad && inf_msi_supported(inf, ids[i].install))
			bad |= add_setting(&buf, &len, &cnt, base,
					   "msi_supported", "1");
		for (k = 0; !bad && k < np; k++)
			bad |= add_setting(&buf, &len, &cnt, base, p[k].name,
					   p[k].value);
		inf_params_free(p, np);
		ndis_pathf(path, sizeof(path), "%s/%s.conf", tmpdir, idname);
		if (!bad && write_file(path, buf ? buf : "", len)) {
			fail("%s: %s", path, strerror(errno));
			bad = 1;
		}
		free(buf);
		if (bad)
			goto out;
	}
	if (rename(tmpdir, final)) {
		fail("%s: %s", final, strerror(errno));
		goto out;
	}
	made_tmp = 0;
	printf("installed %s: %d hardware id(s), %d driver file(s)\n", driver,
	       nids, nsys);
	rc = 0;
out:
	if (made_tmp)
		ndis_remove_dir(tmpdir);
	free(data);
	for (i = 0; i < nsys; i++)
		free(sys[i]);
	free(sys);
	inf_hwids_free(ids, nids);
	inf_free(inf);
	return rc;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcasecmp(s + n - m, suf);
}

/* A driver dir is valid with an .inf, a .sys passing pe_check, a conf. */
static int driver_valid(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int inf = 0, sys = 0, conf = 0;
	struct ndis_conf_id id;
	char path[8400];

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (has_suffix(de->d_name, ".inf"))
			inf = 1;
		else if (has_suffix(de->d_name, ".conf") &&
			 !ndis_id_parse(de->d_name, &id))
			conf = 1;
		else if (has_suffix(de->d_name, ".sys")) {
			char *data;
			size_t size;
			struct pe_info info;
			char e[ERRLEN];

			ndis_pathf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (!ndis_read_file(path, NDIS_MAX_SYS_SIZE, &data, &size,
					    e, sizeof(e))) {
				if (!pe_check(data, size, &info, e, sizeof(e)))
					sys = 1;
				free(data);
			}
		}
	}
	closedir(d);
	return inf && sys && conf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list(const char *root)
{
	char confdir[4096], path[8400];
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	int n = 0, i;
	struct stat st;

	ndis_conf_dir(root, confdir, sizeof(confdir));
	printf("installed drivers:\n");
	d = opendir(confdir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return fail("%s: %s", confdir, strerror(errno));
	}
	while ((de = readdir(d))) {
		char **nn;

		if (de->d_name[0] == '.')
			continue;
		ndis_pathf(path, sizeof(path), "%s/%s", confdir, de->d_name);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		nn = realloc(names, sizeof(*names) * (size_t)(n + 1));
		if (!nn)
			break;
		names = nn;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		ndis_pathf(path, sizeof(path), "%s/%s", confdir, names[i]);
		printf("%s : %s\n", names[i], driver_valid(path) ?
		       "driver installed" : "invalid driver!");
		free(names[i]);
	}
	free(names);
	return 0;
}

static int remove_driver(const char *root, const char *driver)
{
	char confdir[4096], path[4200], trash[4300];
	struct stat st;

	if (!*driver || driver[0] == '.' || strchr(driver, '/'))
		return fail("'%s' is not a driver name", driver);
	ndis_conf_dir(root, confdir, sizeof(confdir));
	if (ndis_pathf(path, sizeof(path), "%s/%s", confdir, driver))
		return fail("%s: path too long", confdir);
	if (lstat(path, &st) || !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
		return fail("driver %s is not installed", driver);
	if (S_ISLNK(st.st_mode))
		return fail("%s is a symbolic link, not a driver folder: not removed",
			    path);
	/* rename first: the driver disappears atomically */
	ndis_pathf(trash, sizeof(trash), "%s/.rm-%s-%d", confdir, driver,
		 (int)getpid());
	if (rename(path, trash))
		return fail("%s: %s", path, strerror(errno));
	if (ndis_remove_dir(trash))
		return fail("%s: could not remove all files", trash);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ndiswrapper [--root DIR] [--no-check] OPTION\n"
		"  -i inffile   install the driver described by inffile\n"
		"  -l           list installed drivers\n"
		"  -r driver    remove driver\n"
		"  --root DIR   operate on DIR/etc/ndiswrapper (also $%s)\n"
		"  --no-check   with -i: do not validate the .sys (for negative tests)\n",
		NDIS_ROOT_ENV);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "no-check", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = getenv(NDIS_ROOT_ENV);
	const char *arg = NULL;
	int c, cmd = 0;

	while ((c = getopt_long(argc, argv, "i:lr:h", opts, NULL)) != -1) {
		switch (c) {
		case 'R':
			root = optarg;
			break;
		case 'N':
			no_check = 1;
			break;
		case 'i':
		case 'r':
			arg = optarg;
			/* fall through */
		case 'l':
			if (cmd)
				return fail("only one of -i, -l, -r at a time");
			cmd = c;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!cmd || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (cmd == 'i')
		return install(root, arg);
	if (cmd == 'r')
		return remove_driver(root, arg);
	return list(root);
}
