// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper -i/-l/-r and loadndisdriver --dry-run in a temporary --root.
 * argv: ndiswrapper loadndisdriver [fixtures]
 * fixtures: a fixture build (make -C fixtures O=<dir>: <dir>/bcmwl/bcmwl.inf +
 * .sys, <dir>/broken/); default $NDISBENCH_FIXTURES, which `ndisbench test`
 * sets to its cached build. Without one those tests skip, and a skip fails
 * the test command's stage.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pe_build.h"
#include "tap.h"

static const char *ndiswrapper, *loader, *fixtures;
static char fixture_dir[512];
static char tmp[64], root[128], src[128], out[8192];

static const char tiny_inf[] =
	"; tiny test driver\r\n"
	"[Version]\r\n"
	"Signature = \"$Windows NT$\"\r\n"
	"ClassGuid = {4d36e972-e325-11ce-bfc1-08002be10318}\r\n"
	"DriverVer = 12/01/2026, 1.2.3.4\r\n"
	"[Manufacturer]\r\n"
	"%Mfg% = Models, NTamd64\r\n"
	"[Models.NTamd64]\r\n"
	"%D% = Inst, PCI\\VEN_14E4&DEV_4320&SUBSYS_00E70E11, PCI\\VEN_14e4&DEV_4318\r\n"
	"%D% = Inst, USB\\VID_0baf&PID_0118\r\n"
	"[Inst.NTamd64]\r\n"
	"AddReg = params.reg\r\n"
	"CopyFiles = files\r\n"
	"[files]\r\n"
	"Tiny.SYS\r\n"
	"[params.reg]\r\n"
	"HKR, Ndi\\params\\RoamTrigger, default, 0, \"-70\"\r\n"
	"HKR, Ndi\\params\\RoamTrigger, ParamDesc, 0, \"Roaming\"\r\n"
	"HKR,, MPC, 0, \"1\"\r\n"
	"[Strings]\r\n"
	"Mfg = \"Test\"\r\n"
	"D = \"Tiny adapter\"\r\n";

static void write_file(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "wb");

	CHECK(f && fwrite(d, 1, n, f) == n);
	if (f)
		fclose(f);
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Runs a shell command, collects stdout+stderr, returns the exit status. */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	FILE *p;
	size_t n;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>&1");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int exists(const char *fmt, ...)
{
	char path[512];
	va_list ap;
	struct stat st;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return stat(path, &st) == 0;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* Writes an import's name at the hint/name entry at rva (tiny.sys's
 * .rdata, 0x20 bytes each). */
static void set_import(uint8_t *sys, uint32_t rva, const char *name)
{
	memset(sys + PB_RDATA_FILE(rva) + 2, 0, 0x1e);
	memcpy(sys + PB_RDATA_FILE(rva) + 2, name, strlen(name));
}

/* tiny.sys importing only what the wrapper provides: pb_build's
 * IoConnectInterrupt and KeBugCheckEx are not among its exports. */
static void build_provided(uint8_t *sys)
{
	pb_build(sys);
	set_import(sys, 0x2160, "KeSetEvent");
	set_import(sys, 0x2180, "IoFreeIrp");
}

static void setup(void)
{
	uint8_t sys[PB_FILE_SIZE];
	char path[256];

	strcpy(tmp, "/tmp/ndistools-XXXXXX");
	CHECK(mkdtemp(tmp) != NULL);
	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(src, sizeof(src), "%s/src", tmp);
	mkdir(root, 0755);
	mkdir(src, 0755);
	snprintf(path, sizeof(path), "%s/Tiny.INF", src);
	write_file(path, tiny_inf, sizeof(tiny_inf) - 1);
	build_provided(sys);
	snprintf(path, sizeof(path), "%s/tiny.sys", src);	/* case differs */
	write_file(path, sys, sizeof(sys));
}

static void test_install(void)
{
	char path[512], *c;

	CHECK(run("%s --root %s -i %s/Tiny.INF", ndiswrapper, root, src) == 0);
	CHECK_STR(out, "installed tiny: 3 hardware id(s), 1 driver file(s)\n");
	CHECK(exists("%s/etc/ndiswrapper/tiny/tiny.inf", root));
	CHECK(exists("%s/etc/ndiswrapper/tiny/tiny.sys", root));
	CHECK(exists("%s/etc/ndiswrapper/tiny/14E4:4318.5.conf", root));
	CHECK(exists("%s/etc/ndiswrapper/tiny/0BAF:0118.F.conf", root));
	snprintf(path, sizeof(path),
		 "%s/etc/ndiswrapper/tiny/14E4:4320:0E11:00E7.5.conf", root);
	c = slurp(path);
	CHECK_STR(c, "NdisVersion|0x50001\nEnvironment|1\nBusType|5\n"
		  "class_guid|{4d36e972-e325-11ce-bfc1-08002be10318}\n"
		  "driver_version|1.2.3.4\nRoamTrigger|-70\nMPC|1\n");
	snprintf(path, sizeof(path), "%s/etc/ndiswrapper/tiny/0BAF:0118.F.conf",
		 root);
	c = slurp(path);
	CHECK_CONTAINS(c, "BusType|15\n");
	snprintf(path, sizeof(path), "%s/etc/ndiswrapper/tiny", root);
	CHECK(count_entries(path) == 5);
	snprintf(path, sizeof(path), "%s/etc/ndiswrapper", root);
	CHECK(count_entries(path) == 1);	/* no temporary left */

	CHECK(run("%s --root %s -i %s/Tiny.INF", ndiswrapper, root, src) == 1);
	CHECK_STR(out, "ndiswrapper: driver tiny is already installed (remove it with -r tiny)\n");
}

static void test_list(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/etc/ndiswrapper/broken", root);
	mkdir(path, 0755);
	CHECK(run("NDISWRAPPER_ROOT=%s %s -l", root, ndiswrapper) == 0);
	CHECK_STR(out, "installed drivers:\nbroken : invalid driver!\n"
		  "tiny : driver installed\n");
	rmdir(path);
}

static void test_loadndisdriver(void)
{
	CHECK(run("%s --root %s --dry-run devices", loader, root) == 0);
	CHECK_STR(out, "ADD_DEVICE tiny 0BAF:0118.F\n"
		  "ADD_DEVICE tiny 14E4:4318.5\n"
		  "ADD_DEVICE tiny 14E4:4320:0E11:00E7.5\n");
	CHECK(run("%s --root %s --dry-run driver tiny 14E4:4320.5", loader,
		  root) == 0);
	CHECK_STR(out, "LOAD_DRIVER tiny 14E4:4320:0E11:00E7.5 sys=tiny.sys size=2048 settings=7\n"
		  "  NdisVersion|0x50001\n  Environment|1\n  BusType|5\n"
		  "  class_guid|{4d36e972-e325-11ce-bfc1-08002be10318}\n"
		  "  driver_version|1.2.3.4\n  RoamTrigger|-70\n  MPC|1\n");
	CHECK(run("%s --root %s --dry-run driver tiny 0baf:0118.F", loader,
		  root) == 0);
	CHECK_CONTAINS(out, "LOAD_DRIVER tiny 0BAF:0118.F sys=tiny.sys");
	CHECK(run("%s --root %s --dry-run driver tiny 1234:5678.5", loader,
		  root) == 1);
	CHECK_CONTAINS(out, "loadndisdriver: no conf file for 1234:5678.5 in ");
	CHECK(run("%s --root %s --dry-run driver tiny 12345678", loader,
		  root) == 1);
	CHECK_STR(out, "loadndisdriver: '12345678' is not a device id (VVVV:DDDD.B or VVVV:DDDD:SSSS:ssss.B)\n");
	CHECK(run("%s --root %s --device %s/nodev driver tiny 14E4:4318.5",
		  loader, root, tmp) == 1);
	CHECK_CONTAINS(out, "/nodev: No such file or directory");
}

static void test_remove(void)
{
	CHECK(run("%s --root %s -r tiny", ndiswrapper, root) == 0);
	CHECK(!exists("%s/etc/ndiswrapper/tiny", root));
	CHECK(run("%s --root %s -r tiny", ndiswrapper, root) == 1);
	CHECK_STR(out, "ndiswrapper: driver tiny is not installed\n");
	CHECK(run("%s --root %s -r ../etc", ndiswrapper, root) == 1);
	CHECK(run("%s --root %s -l", ndiswrapper, root) == 0);
	CHECK_STR(out, "installed drivers:\n");
}

/* A folder of files that root must never delete through a symlink. */
static void make_victim(char *victim, size_t n)
{
	char path[512];

	snprintf(victim, n, "%s/victim", tmp);
	mkdir(victim, 0755);
	snprintf(path, sizeof(path), "%s/keep.txt", victim);
	write_file(path, "precious\n", 9);
	snprintf(path, sizeof(path), "%s/tiny.sys", victim);
	write_file(path, "not a driver\n", 13);
}

static void test_remove_symlink(void)
{
	char victim[256], link[512];

	make_victim(victim, sizeof(victim));
	snprintf(link, sizeof(link), "%s/etc/ndiswrapper/evil", root);
	CHECK(symlink(victim, link) == 0);
	CHECK(run("%s --root %s -r evil", ndiswrapper, root) == 1);
	CHECK_CONTAINS(out, "evil is a symbolic link, not a driver folder: not removed");
	CHECK(exists("%s/keep.txt", victim));
	CHECK(exists("%s/tiny.sys", victim));
	CHECK(count_entries(victim) == 2);
	unlink(link);
}

/* The installer's temporary folder: a symlink at the name it used to
 * predict (.tmp-<driver>-<pid>; exec keeps the shell's pid) is left
 * alone, and so is its target. */
static void test_install_temp_symlink(void)
{
	char victim[256];

	make_victim(victim, sizeof(victim));
	CHECK(run("ln -s %s %s/etc/ndiswrapper/.tmp-tiny-$$ && exec %s --root %s -i %s/Tiny.INF",
		  victim, root, ndiswrapper, root, src) == 0);
	CHECK_CONTAINS(out, "installed tiny:");
	CHECK(exists("%s/keep.txt", victim));
	CHECK(exists("%s/tiny.sys", victim));
	CHECK(count_entries(victim) == 2);
	CHECK(run("%s --root %s -r tiny", ndiswrapper, root) == 0);
	CHECK(run("rm %s/etc/ndiswrapper/.tmp-tiny-*", root) == 0);
}

static void test_install_refusals(void)
{
	static const char x86only[] = "[Manufacturer]\r\nM = Mod, NTx86\r\n"
		"[Mod.NTx86]\r\nd = I, PCI\\VEN_1234&DEV_5678\r\n"
		"[I.NTx86]\r\nCopyFiles = F\r\n[F]\r\nx86only.sys\r\n";
	uint8_t sys[PB_FILE_SIZE];
	char path[512], etc[512];

	snprintf(etc, sizeof(etc), "%s/etc/ndiswrapper", root);
	/* a 32-bit driver: the PE error line names the file */
	pb_build(sys);
	pb_w16(sys + PB_COFF, 0x14c);
	snprintf(path, sizeof(path), "%s/tiny.sys", src);
	write_file(path, sys, sizeof(sys));
	CHECK(run("%s --root %s -i %s/Tiny.INF", ndiswrapper, root, src) == 1);
	snprintf(path, sizeof(path),
		 "ndiswrapper: %s/tiny.sys: 32-bit PE (i386) cannot run on x86_64\n",
		 src);
	CHECK_STR(out, path);
	/* a bad relocation block is found at install time too */
	pb_build(sys);
	pb_w32(sys + PB_RELOC_FILE(0x3000), 0x8000);
	snprintf(path, sizeof(path), "%s/tiny.sys", src);
	write_file(path, sys, sizeof(sys));
	CHECK(run("%s --root %s -i %s/Tiny.INF", ndiswrapper, root, src) == 1);
	CHECK_CONTAINS(out, "page RVA 0x8000 beyond size of image 0x4000");
	/* --no-check installs it anyway (negative tests of the module) */
	CHECK(run("%s --root %s --no-check -i %s/Tiny.INF", ndiswrapper, root, src) == 0);
	CHECK(run("%s --root %s -r tiny", ndiswrapper, root) == 0);
	/* a missing .sys */
	unlink(path);
	CHECK(run("%s --root %s -i %s/Tiny.INF", ndiswrapper, root, src) == 1);
	CHECK_CONTAINS(out, "Tiny.INF: driver file Tiny.SYS not found in ");
	/* an INF syntax error carries file:line */
	snprintf(path, sizeof(path), "%s/bad.inf", src);
	write_file(path, "[Version]\r\nSignature = \"$Windows NT$\r\n", 37);
	CHECK(run("%s --root %s -i %s", ndiswrapper, root, path) == 1);
	CHECK_STR(out, "ndiswrapper: bad.inf:2: unterminated quoted string\n");
	CHECK(run("%s --root %s -i %s/nothere.inf", ndiswrapper, root, src) == 1);
	CHECK_CONTAINS(out, "nothere.inf: No such file or directory");
	/* a 32-bit driver's .inf: only NTx86 models */
	snprintf(path, sizeof(path), "%s/x86only.inf", src);
	write_file(path, x86only, sizeof(x86only) - 1);
	CHECK(run("%s --root %s -i %s", ndiswrapper, root, path) == 1);
	CHECK_STR(out, "ndiswrapper: x86only.inf:1: no models for NTamd64 (this x86_64 wrapper), only for NTx86 (a 32-bit i386 driver)\n");
	/* nothing half-written anywhere */
	CHECK(count_entries(etc) <= 0);
	CHECK(run("%s --root %s -x", ndiswrapper, root) == 2);
}

/*
 * What the user brought, one line each: an NDIS 6 miniport is refused
 * naming its NDIS 6 imports; imports the wrapper lacks are all named in
 * one warning and the driver installs (the module's load is where it
 * fails, as it always did). A driver of the other architecture is the
 * loader's refusal (test_install_refusals, install32.py).
 */
static void test_install_brought(void)
{
	uint8_t sys[PB_FILE_SIZE];
	char path[512], want[1024], etc[512];

	snprintf(etc, sizeof(etc), "%s/etc/ndiswrapper", root);
	snprintf(path, sizeof(path), "%s/tiny.sys", src);
	build_provided(sys);
	set_import(sys, 0x21a0, "NdisMRegisterMiniportDriver");
	write_file(path, sys, sizeof(sys));
	CHECK(run("%s --root %s -i %s/Tiny.INF", ndiswrapper, root, src) == 1);
	snprintf(want, sizeof(want),
		 "ndiswrapper: %s/tiny.sys: an NDIS 6 miniport (imports NdisMRegisterMiniportDriver); NDIS wrappers load NDIS 5.x miniports\n",
		 src);
	CHECK_STR(out, want);
	CHECK(count_entries(etc) <= 0);
	/* pb_build's own imports: two the wrapper lacks */
	pb_build(sys);
	write_file(path, sys, sizeof(sys));
	CHECK(run("%s --root %s -i %s/Tiny.INF", ndiswrapper, root, src) == 0);
	snprintf(want, sizeof(want),
		 "ndiswrapper: warning: %s/tiny.sys: imports 2 functions this wrapper does not provide: ntoskrnl.exe!IoConnectInterrupt, ntoskrnl.exe!KeBugCheckEx\n"
		 "installed tiny: 3 hardware id(s), 1 driver file(s)\n", src);
	CHECK_STR(out, want);
	CHECK(run("%s --root %s -r tiny", ndiswrapper, root) == 0);
	/* --no-check looks at none of it */
	set_import(sys, 0x21a0, "NdisMRegisterMiniportDriver");
	write_file(path, sys, sizeof(sys));
	CHECK(run("%s --root %s --no-check -i %s/Tiny.INF", ndiswrapper, root,
		  src) == 0);
	CHECK_STR(out, "installed tiny: 3 hardware id(s), 1 driver file(s)\n");
	CHECK(run("%s --root %s -r tiny", ndiswrapper, root) == 0);
	build_provided(sys);
	write_file(path, sys, sizeof(sys));
}

static void test_fixture_install(void)
{
	char r2[256], path[1024];
	const char *conf;

	snprintf(r2, sizeof(r2), "%s/root2", tmp);
	mkdir(r2, 0755);
	CHECK(run("%s --root %s -i %s/bcmwl.inf", ndiswrapper, r2, fixture_dir) == 0);
	printf("#   %s", out);
	CHECK(exists("%s/etc/ndiswrapper/bcmwl/14E4:4318.5.conf", r2));
	snprintf(path, sizeof(path), "%s/etc/ndiswrapper/bcmwl/14E4:4318.5.conf",
		 r2);
	conf = slurp(path);
	/* bcmwl.inf's .HW section opts in to MSI: the wrapper is told so */
	CHECK(conf && strstr(conf, "\nmsi_supported|1\n"));
	CHECK(run("%s --root %s -l", ndiswrapper, r2) == 0);
	CHECK_CONTAINS(out, "bcmwl : driver installed");
	/* bcmwlserial.inf is bcmwl.inf without it: the line interrupt */
	snprintf(path, sizeof(path), "%s/../bcmwlserial/bcmwlserial.inf",
		 fixture_dir);
	CHECK(run("%s --root %s -i %s", ndiswrapper, r2, path) == 0);
	snprintf(path, sizeof(path),
		 "%s/etc/ndiswrapper/bcmwlserial/14E4:4318.5.conf", r2);
	conf = slurp(path);
	CHECK(conf && !strstr(conf, "msi_supported"));
}

/* <fixtures>/broken: refused at install unless --no-check, or installed
 * (the module refuses or fails them later). */
static void test_broken_fixtures(void)
{
	static const struct {
		const char *name, *msg;	/* msg NULL: installs */
	} cases[] = {
		{ "truncated", "truncated: section table" },
		{ "pe32", "32-bit PE (i386) cannot run on x86_64" },
		/* the i386 build: its .inf's NTamd64 models name a PE32 .sys */
		{ "../i386/bcmwl/bcmwl", "i386/bcmwl/bcmwl.sys: 32-bit PE (i386) cannot run on x86_64" },
		{ "badreloc", "page RVA" },
		{ "badrelocsize", "bad size 4294967280" },
		{ "unknownimport", NULL },
		{ "entryfail", NULL },
		{ "initfail", NULL },
		{ "misuse", NULL },
	};
	char r3[256];
	size_t i;

	snprintf(r3, sizeof(r3), "%s/root3", tmp);
	mkdir(r3, 0755);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *n = cases[i].name;
		int rc = run("%s --root %s -i %s/broken/%s.inf", ndiswrapper,
			     r3, fixtures, n);

		printf("#   %s: %s", n, out);
		if (cases[i].msg) {
			CHECK(rc == 1);
			CHECK_CONTAINS(out, cases[i].msg);
			CHECK(run("%s --root %s --no-check -i %s/broken/%s.inf",
				  ndiswrapper, r3, fixtures, n) == 0);
			CHECK(run("%s --root %s -l", ndiswrapper, r3) == 0);
		} else {
			CHECK(rc == 0);
		}
	}
}

int main(int argc, char **argv)
{
	int have_fixture;

	if (argc < 3) {
		fprintf(stderr, "usage: test_tools ndiswrapper loadndisdriver [fixtures]\n");
		return 2;
	}
	ndiswrapper = argv[1];
	loader = argv[2];
	fixtures = argc > 3 ? argv[3] : getenv("NDISBENCH_FIXTURES");
	if (fixtures && *fixtures)
		snprintf(fixture_dir, sizeof(fixture_dir), "%s/bcmwl", fixtures);
	else
		fixtures = NULL;
	setup();
	TEST(test_install);
	TEST(test_list);
	TEST(test_loadndisdriver);
	TEST(test_remove);
	TEST(test_remove_symlink);
	TEST(test_install_temp_symlink);
	TEST(test_install_refusals);
	TEST(test_install_brought);
	have_fixture = fixtures &&
		exists("%s/bcmwl.inf", fixture_dir) &&
		exists("%s/bcmwl.sys", fixture_dir);
	if (have_fixture)
		TEST(test_fixture_install);
	else
		tap_skip("test_fixture_install", fixtures ?
			 "no bcmwl/bcmwl.inf + .sys in the fixture build" :
			 "no fixture build (NDISBENCH_FIXTURES unset)");
	if (fixtures && exists("%s/broken/badreloc.sys", fixtures))
		TEST(test_broken_fixtures);
	else
		tap_skip("test_broken_fixtures", fixtures ?
			 "no broken/ in the fixture build" :
			 "no fixture build (NDISBENCH_FIXTURES unset)");
	if (!tap_failed)
		run("rm -rf %s", tmp);
	else
		printf("# kept %s\n", tmp);
	return tap_done();
}
