// SPDX-License-Identifier: GPL-2.0
/* Unit tests of wrapper/loader/inf.c. argv[1]: optional fixture .inf. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inf.h"
#include "tap.h"

static char err[512];
static const char *fixture;

static const char sample[] =
	"; a comment line\r\n"
	"[Version]\r\n"
	"Signature = \"$Windows NT$\"   ; trailing comment\r\n"
	"Class = Net\r\n"
	"ClassGuid = {4d36e972-e325-11ce-bfc1-08002be10318}\r\n"
	"DriverVer = 01/02/2008, 4.170.25.12\r\n"
	"\r\n"
	"[manufacturer]\r\n"
	"%Mfg% = Broadcom, NTx86, NTamd64.6.0\r\n"
	"[Broadcom.NTx86]\r\n"
	"%Desc% = X86ONLY, PCI\\VEN_1111&DEV_2222\r\n"
	"[BROADCOM.ntamd64.6.0]\r\n"
	"%Desc% = BCM43XX, PCI\\VEN_14e4&DEV_4320&SUBSYS_00E70E11&REV_03, \\\r\n"
	"   PCI\\VEN_14E4&DEV_4318   ; continued\r\n"
	"%UsbDesc% = BCMUSB, USB\\VID_0BAF&PID_0118\r\n"
	"%Desc% = BCM43XX, PCI\\VEN_14E4&DEV_4318, PCI\\CC_0280\r\n"
	"[BCM43XX.NT]\r\n"
	"AddReg = wrong.reg\r\n"
	"[BCM43XX.NTamd64]\r\n"
	"AddReg = common.reg, pci.reg\r\n"
	"CopyFiles = files\r\n"
	"[bcm43xx.ntamd64.Services]\r\n"
	"AddService = BCMWL, 2, svc.install\r\n"
	"[svc.install]\r\n"
	"ServiceBinary = %12%\\BCMWL5.SYS\r\n"
	"[BCMUSB]\r\n"
	"AddReg = common.reg\r\n"
	"CopyFiles = usbfiles\r\n"
	"[usbfiles]\r\n"
	"bcmusb.sys\r\n"
	"[files]\r\n"
	"other.sys\r\n"
	"[common.reg]\r\n"
	"HKR, Ndi\\params\\RoamTrigger, ParamDesc, 0, \"%Roam%\"\r\n"
	"HKR, Ndi\\params\\RoamTrigger, default, 0, \"-70\"\r\n"
	"HKR, Ndi\\params\\RoamTrigger\\enum, \"-70\", 0, \"default\"\r\n"
	"HKR, , MPC, 0, \"1\"\r\n"
	"HKR, Ndi\\Interfaces, UpperRange, 0, \"ndis5\"\r\n"
	"[pci.reg]\r\n"
	"HKR,,MPC,0,\"0\"\r\n"
	"HKR,, Quoted, 0, \"a, b; \"\"c\"\" 100%%\"\r\n"
	"[Strings]\r\n"
	"Mfg = \"Broadcom\"\r\n"
	"Desc = \"Broadcom 802.11g Network Adapter\"\r\n"
	"UsbDesc = USB adapter\r\n"
	"Roam = \"Roaming; threshold\"\r\n"
	"[Strings.0407]\r\n"
	"Desc = \"Deutsch\"\r\n";

static struct inf_file *parse(const char *name, const void *d, size_t n)
{
	struct inf_file *inf = NULL;

	err[0] = '\0';
	if (inf_parse_buffer(name, d, n, &inf, err, sizeof(err)))
		return NULL;
	return inf;
}

static void check_sample(struct inf_file *inf)
{
	const struct inf_section *s;
	const struct inf_line *l;
	struct inf_hwid *ids;
	struct inf_param *p;
	char *sys;
	int n, np;

	CHECK(inf != NULL);
	if (!inf)
		return;
	s = inf_find_section(inf, "VERSION");
	CHECK(s && s->nlines == 4);
	l = inf_find_key(s, "signature");
	CHECK_STR(inf_field(l, 0), "$Windows NT$");
	l = inf_find_key(s, "DriverVer");
	CHECK(l && l->nfields == 2);
	CHECK_STR(inf_field(l, 1), "4.170.25.12");
	CHECK(inf_find_section(inf, "Strings.0407") != NULL);

	CHECK(inf_hwids(inf, &ids, &n, err, sizeof(err)) == 0);
	CHECK(n == 3);	/* duplicate 4318 and the class id dropped */
	if (n == 3) {
		CHECK(ids[0].bus == INF_BUS_PCI && ids[0].vendor == 0x14e4 &&
		      ids[0].device == 0x4320 && ids[0].has_subsys &&
		      ids[0].subvendor == 0x0e11 && ids[0].subdevice == 0x00e7);
		CHECK_STR(ids[0].install, "BCM43XX.NTamd64");
		CHECK_STR(ids[0].description, "Broadcom 802.11g Network Adapter");
		CHECK(ids[0].lineno == 13);
		CHECK(ids[1].device == 0x4318 && !ids[1].has_subsys);
		CHECK(ids[2].bus == INF_BUS_USB && ids[2].vendor == 0x0baf &&
		      ids[2].device == 0x0118);
		CHECK_STR(ids[2].install, "BCMUSB");
		CHECK_STR(ids[2].description, "USB adapter");
	}
	inf_hwids_free(ids, n);

	CHECK(inf_params(inf, "BCM43XX.NTamd64", &p, &np, err, sizeof(err)) == 0);
	CHECK(np == 3);
	if (np == 3) {
		CHECK_STR(p[0].name, "RoamTrigger");
		CHECK_STR(p[0].value, "-70");
		CHECK_STR(p[1].name, "MPC");
		CHECK_STR(p[1].value, "0");	/* pci.reg overrides */
		CHECK_STR(p[2].name, "Quoted");
		CHECK_STR(p[2].value, "a, b; \"c\" 100%");
	}
	inf_params_free(p, np);

	CHECK(inf_sys_file(inf, "BCM43XX.NTamd64", &sys, err, sizeof(err)) == 0);
	CHECK_STR(sys, "BCMWL5.SYS");	/* ServiceBinary wins */
	free(sys);
	CHECK(inf_sys_file(inf, "BCMUSB", &sys, err, sizeof(err)) == 0);
	CHECK_STR(sys, "bcmusb.sys");	/* from CopyFiles */
	free(sys);
}

static void test_sample_utf8(void)
{
	struct inf_file *inf = parse("sample.inf", sample, sizeof(sample) - 1);

	if (!inf)
		printf("#   %s\n", err);
	check_sample(inf);
	inf_free(inf);
}

/* UTF-16LE with BOM, including a non-ASCII character (U+00E9) and one
 * outside the BMP (U+1F600, a surrogate pair). */
static void test_sample_utf16(void)
{
	size_t n = sizeof(sample) - 1, i, o = 0;
	static const char extra[] = "[Extra]\r\nName = caf\xc3\xa9 \xf0\x9f\x98\x80\r\n";
	uint8_t *u = malloc(2 * (n + sizeof(extra)) + 2);
	struct inf_file *inf;
	const struct inf_line *l;

	u[o++] = 0xff;
	u[o++] = 0xfe;
	for (i = 0; i < n; i++) {
		u[o++] = (uint8_t)sample[i];
		u[o++] = 0;
	}
	/* hand-encode the extra section */
	for (i = 0; i < sizeof(extra) - 1; i++) {
		unsigned char c = (unsigned char)extra[i];

		if (c == 0xc3) {		/* é */
			u[o++] = 0xe9;
			u[o++] = 0;
			i++;
		} else if (c == 0xf0) {		/* U+1F600 = D83D DE00 */
			u[o++] = 0x3d;
			u[o++] = 0xd8;
			u[o++] = 0x00;
			u[o++] = 0xde;
			i += 3;
		} else {
			u[o++] = c;
			u[o++] = 0;
		}
	}
	inf = parse("sample16.inf", u, o);
	if (!inf)
		printf("#   %s\n", err);
	check_sample(inf);
	l = inf_find_key(inf_find_section(inf, "extra"), "name");
	CHECK_STR(inf_field(l, 0), "caf\xc3\xa9 \xf0\x9f\x98\x80");
	inf_free(inf);
	free(u);
}

static void test_utf8_bom_and_lf(void)
{
	static const char t[] = "\xef\xbb\xbf[A]\nk=v1,\"v 2\" , v3\n\nvalueonly\n"
				"[a]\nmerged = yes\n";
	struct inf_file *inf = parse("bom.inf", t, sizeof(t) - 1);
	const struct inf_section *s;

	CHECK(inf != NULL);
	s = inf_find_section(inf, "A");
	CHECK(s && s->nlines == 3);
	if (s && s->nlines == 3) {
		CHECK(s->lines[0].nfields == 3);
		CHECK_STR(inf_field(&s->lines[0], 1), "v 2");
		CHECK_STR(inf_field(&s->lines[0], 2), "v3");
		CHECK(s->lines[1].key == NULL);
		CHECK_STR(inf_field(&s->lines[1], 0), "valueonly");
		CHECK(s->lines[1].lineno == 4);
		CHECK_STR(s->lines[2].key, "merged");
	}
	CHECK(inf && inf->nsections == 1);
	inf_free(inf);
}

static void test_substitution(void)
{
	static const char t[] =
		"[S]\n"
		"a = %k1%-%K2%, %missing%, 50%%, %12%\\x.sys, \"%k1%\"\n"
		"%k1% = keysub\n"
		"[strings]\n"
		"k1 = one\n"
		"k2 = \"t,w;o\"\n";
	struct inf_file *inf = parse("sub.inf", t, sizeof(t) - 1);
	const struct inf_line *l;

	CHECK(inf != NULL);
	l = inf_find_key(inf_find_section(inf, "S"), "a");
	CHECK(l && l->nfields == 5);
	CHECK_STR(inf_field(l, 0), "one-t,w;o");
	CHECK_STR(inf_field(l, 1), "%missing%");
	CHECK_STR(inf_field(l, 2), "50%");
	CHECK_STR(inf_field(l, 3), "%12%\\x.sys");
	CHECK_STR(inf_field(l, 4), "one");
	CHECK(inf_find_key(inf_find_section(inf, "S"), "one") != NULL);
	inf_free(inf);
}

/* "[S]\n" + lines of "a = %s%%s%...\n" (refs each) + "[Strings]\ns = xxx...\n" */
static char *hostile(int lines, int refs, int slen, size_t *size)
{
	size_t cap = 64 + (size_t)lines * (8 + 3 * (size_t)refs) + (size_t)slen;
	char *t = malloc(cap), *p = t;
	int i, j;

	p += sprintf(p, "[S]\n");
	for (i = 0; i < lines; i++) {
		p += sprintf(p, "a = ");
		for (j = 0; j < refs; j++)
			p += sprintf(p, "%%s%%");
		*p++ = '\n';
	}
	p += sprintf(p, "[Strings]\ns = ");
	memset(p, 'x', (size_t)slen);
	p += slen;
	*p++ = '\n';
	*size = (size_t)(p - t);
	return t;
}

/* %strkey% substitution multiplies: each 3-byte reference can become a
 * long string. The expanded text is capped per line and per file. */
static void test_expansion_caps(void)
{
	struct inf_file *inf;
	size_t size;
	char *t;

	/* 69 KB: one field of 20000 references to a 6550-byte string, 131 MB */
	t = hostile(1, 20000, 6550, &size);
	CHECK(size > 65000 && size < 72000);
	inf = parse("hostile.inf", t, size);
	CHECK(inf == NULL);
	CHECK_STR(err, "hostile.inf:2: line longer than 65536 bytes after %strkey% substitution");
	inf_free(inf);
	free(t);
	/* 300 lines of 60 KB each: every line fits, the file does not */
	t = hostile(300, 10, 6000, &size);
	inf = parse("filecap.inf", t, size);
	CHECK(inf == NULL);
	CHECK_STR(err, "filecap.inf:281: more than 16777216 bytes after %strkey% substitution in all");
	inf_free(inf);
	free(t);
	/* just under the line cap is fine */
	t = hostile(1, 10, 6000, &size);
	inf = parse("ok.inf", t, size);
	CHECK(inf != NULL);
	if (inf)
		CHECK(strlen(inf_field(inf_find_key(inf_find_section(inf, "S"),
						    "a"), 0)) == 60000);
	inf_free(inf);
	free(t);
}

struct bad_inf {
	const char *text;
	const char *msg;
};

static void test_errors(void)
{
	static const struct bad_inf bads[] = {
		{ "[A]\nk = \"abc\n", "bad.inf:2: unterminated quoted string" },
		{ "[A]\nk = \"abc\\\nmore\"\n", "bad.inf:2: unterminated quoted string" },
		{ "; c\n\n[A\n", "bad.inf:3: missing ']' in section header" },
		{ "[A] x\n", "bad.inf:1: text after section header ']'" },
		{ "[ ]\n", "bad.inf:1: empty section name" },
		{ "key = v\n[A]\n", "bad.inf:1: line outside any [section]" },
		{ "[A]\nk=v\n\0", "bad.inf:3: NUL byte in a text file" },
	};
	size_t i;

	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		size_t n = strlen(bads[i].text) + (i == 6);
		struct inf_file *inf = parse("bad.inf", bads[i].text, n);

		if (inf || strcmp(err, bads[i].msg)) {
			printf("#   case %zu: err '%s', want '%s'\n", i, err,
			       bads[i].msg);
			tap_cur_failed = 1;
		}
		inf_free(inf);
	}
	/* odd-length UTF-16 */
	CHECK(parse("odd.inf", "\xff\xfe[\0A\0]", 7) == NULL);
	CHECK_CONTAINS(err, "odd.inf: UTF-16");
}

static void test_semantic_errors(void)
{
	static const char nomfg[] = "[Version]\nSignature=x\n";
	static const char x86[] = "[Manufacturer]\nM = Mod, NTx86\n[Mod.NTx86]\nd = I, PCI\\VEN_1&DEV_2\n";
	static const char nt[] = "[Manufacturer]\nM = Mod, NTx86, NT.6.0\n"
		"[Mod.NTx86]\nd = I, PCI\\VEN_0001&DEV_0001\n"
		"[Mod.NT.6.0]\nd = I, PCI\\VEN_0001&DEV_0002\n"
		"[Mod]\nd = I, PCI\\VEN_0001&DEV_0003\n[I]\n";
	static const char noinst[] = "[Manufacturer]\nM = Mod\n[Mod]\nd = Nope, PCI\\VEN_1234&DEV_5678\n";
	static const char noreg[] = "[Manufacturer]\nM = Mod\n[Mod]\nd = I, USB\\VID_1234&PID_5678\n[I]\nAddReg = gone\n";
	struct inf_file *inf;
	struct inf_hwid *ids;
	struct inf_param *p;
	char *sys;
	int n, np;

	inf = parse("nomfg.inf", nomfg, sizeof(nomfg) - 1);
	CHECK(inf_hwids(inf, &ids, &n, err, sizeof(err)) == -ENOENT);
	CHECK_STR(err, "nomfg.inf: no [Manufacturer] section");
	inf_free(inf);
	inf = parse("x86.inf", x86, sizeof(x86) - 1);
	CHECK(inf_hwids(inf, &ids, &n, err, sizeof(err)) == -ENOENT);
	CHECK_STR(err, "x86.inf:1: no models for NTamd64 (this x86_64 wrapper), only for NTx86 (a 32-bit i386 driver)");
	inf_free(inf);
	inf = parse("nt.inf", nt, sizeof(nt) - 1);
	CHECK(inf_hwids(inf, &ids, &n, err, sizeof(err)) == 0 && n == 1);
	if (n == 1)
		CHECK(ids[0].device == 0x0002);	/* Mod.NT.6.0, not Mod */
	inf_hwids_free(ids, n);
	inf_free(inf);
	inf = parse("noinst.inf", noinst, sizeof(noinst) - 1);
	CHECK(inf_hwids(inf, &ids, &n, err, sizeof(err)) == -ENOENT);
	CHECK_CONTAINS(err, "noinst.inf:4: install section [Nope]");
	inf_free(inf);
	inf = parse("noreg.inf", noreg, sizeof(noreg) - 1);
	CHECK(inf_hwids(inf, &ids, &n, err, sizeof(err)) == 0 && n == 1);
	inf_hwids_free(ids, n);
	CHECK(inf_params(inf, "I", &p, &np, err, sizeof(err)) == -ENOENT);
	CHECK_STR(err, "noreg.inf:6: AddReg section [gone] not found");
	CHECK(inf_sys_file(inf, "I", &sys, err, sizeof(err)) == -ENOENT);
	CHECK_CONTAINS(err, "noreg.inf:5: no .sys file for install section [I]");
	inf_free(inf);
}

static void test_parse_file(void)
{
	char path[] = "/tmp/ndis-inf-XXXXXX";
	int fd = mkstemp(path);
	struct inf_file *inf = NULL;

	CHECK(fd >= 0);
	CHECK(write(fd, sample, sizeof(sample) - 1) == (ssize_t)sizeof(sample) - 1);
	close(fd);
	CHECK(inf_parse_file(path, &inf, err, sizeof(err)) == 0);
	check_sample(inf);
	inf_free(inf);
	unlink(path);
	CHECK(inf_parse_file("/nonexistent/x.inf", &inf, err, sizeof(err)) == -ENOENT);
	CHECK_CONTAINS(err, "/nonexistent/x.inf: No such file");
}

static void test_fixture(void)
{
	struct inf_file *inf = NULL;
	struct inf_hwid *ids;
	int n, i;

	CHECK(inf_parse_file(fixture, &inf, err, sizeof(err)) == 0);
	if (!inf) {
		printf("#   %s\n", err);
		return;
	}
	CHECK(inf_hwids(inf, &ids, &n, err, sizeof(err)) == 0);
	for (i = 0; i < n; i++) {
		struct inf_param *p;
		char *sys = NULL;
		int np;

		printf("#   %s -> [%s]\n", ids[i].id, ids[i].install);
		CHECK(inf_params(inf, ids[i].install, &p, &np, err, sizeof(err)) == 0);
		inf_params_free(p, np);
		CHECK(inf_sys_file(inf, ids[i].install, &sys, err, sizeof(err)) == 0);
		free(sys);
	}
	inf_hwids_free(ids, n);
	/* the NTx86 models: the i386 build of the same driver */
	CHECK(inf_hwids_arch(inf, INF_ARCH_X86, &ids, &n, err, sizeof(err)) == 0);
	CHECK(n > 0);
	for (i = 0; i < n; i++) {
		char *sys = NULL;

		CHECK_CONTAINS(ids[i].install, ".NTx86");
		CHECK(inf_sys_file(inf, ids[i].install, &sys, err, sizeof(err)) == 0);
		free(sys);
	}
	inf_hwids_free(ids, n);
	inf_free(inf);
}

/* MSISupported in the install section's .HW AddReg (Windows' own
 * opt-in to message-signaled interrupts) and everything that is not it. */
static void test_msi_supported(void)
{
	static const char text[] =
		"[Version]\r\nSignature = \"$Windows NT$\"\r\n"
		"[MSI.NTamd64]\r\nAddReg = common.reg\r\n"
		"[MSI.NTamd64.HW]\r\nAddReg = other.reg, msi.reg\r\n"
		"[OFF.NTamd64]\r\nAddReg = common.reg\r\n"
		"[OFF.NTamd64.HW]\r\nAddReg = off.reg\r\n"
		"[ELSEWHERE]\r\nAddReg = msi.reg\r\n"
		"[WRONGKEY]\r\n"
		"[WRONGKEY.HW]\r\nAddReg = wrongkey.reg\r\n"
		"[NOREG]\r\n"
		"[NOREG.HW]\r\nAddReg = missing.reg\r\n"
		"[common.reg]\r\nHKR,, MSISupported, 0x00010001, 1\r\n"
		"[other.reg]\r\nHKR, \"Interrupt Management\", 0x00000010\r\n"
		"[msi.reg]\r\nHKR, \"Interrupt Management\\MessageSignaledInterruptProperties\", "
		"msisupported, 0x00010001, 1\r\n"
		"[off.reg]\r\nHKR, \"Interrupt Management\\MessageSignaledInterruptProperties\", "
		"MSISupported, 0x00010001, 0\r\n"
		"[wrongkey.reg]\r\nHKR, \"Interrupt Management\", MSISupported, 0x00010001, 1\r\n";
	struct inf_file *inf = NULL;

	CHECK(inf_parse_buffer("msi.inf", text, sizeof(text) - 1, &inf, err,
			       sizeof(err)) == 0);
	if (!inf)
		return;
	CHECK(inf_msi_supported(inf, "MSI.NTamd64") == 1);
	CHECK(inf_msi_supported(inf, "OFF.NTamd64") == 0);	/* value 0 */
	CHECK(inf_msi_supported(inf, "ELSEWHERE") == 0);	/* not in .HW */
	CHECK(inf_msi_supported(inf, "WRONGKEY") == 0);	/* other key */
	CHECK(inf_msi_supported(inf, "NOREG") == 0);	/* section missing */
	CHECK(inf_msi_supported(inf, "NONE") == 0);	/* no .HW at all */
	inf_free(inf);
}

/*
 * The models and install sections for the wrapper's architecture: NTamd64
 * on x86_64, NTx86 on i386. A 32-bit driver's .inf (only NTx86 models) is
 * refused by an x86_64 wrapper, a 64-bit one's by an i386 wrapper, each
 * naming both.
 */
static void test_arch(void)
{
	static const char dual[] = "[Manufacturer]\nM = Mod, NTamd64, NTx86\n"
		"[Mod.NTamd64]\nd = I, PCI\\VEN_0001&DEV_0064\n"
		"[Mod.NTx86]\nd = I, PCI\\VEN_0001&DEV_0086\n"
		"[I.NTamd64]\nCopyFiles = F64\n[I.NTx86]\nCopyFiles = F32\n"
		"[I.NT]\n[F64]\nd64.sys\n[F32]\nd32.sys\n";
	static const char x86[] = "[Manufacturer]\nM = Mod, NTx86.5.1\n"
		"[Mod.NTx86.5.1]\nd = I, PCI\\VEN_0001&DEV_0002\n[I.NTx86]\n[I]\n";
	static const char amd64[] = "[Manufacturer]\nM = Mod, NTamd64\n"
		"[Mod.NTamd64]\nd = I, PCI\\VEN_0001&DEV_0002\n[I]\n";
	static const char ia64[] = "[Manufacturer]\nM = Mod, NTia64\n"
		"[Mod.NTia64]\nd = I, PCI\\VEN_0001&DEV_0002\n[I]\n";
	static const char any[] = "[Manufacturer]\nM = Mod, NT\n"
		"[Mod.NT]\nd = I, PCI\\VEN_0001&DEV_0002\n[I.NT]\n";
	struct inf_file *inf;
	struct inf_hwid *ids;
	char *sys = NULL;
	int n;

	inf = parse("dual.inf", dual, sizeof(dual) - 1);
	CHECK(inf_hwids_arch(inf, INF_ARCH_AMD64, &ids, &n, err, sizeof(err)) == 0);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(ids[0].device == 0x0064);
		CHECK_STR(ids[0].install, "I.NTamd64");
		CHECK(inf_sys_file(inf, ids[0].install, &sys, err, sizeof(err)) == 0);
		CHECK_STR(sys ? sys : "", "d64.sys");
		free(sys);
	}
	inf_hwids_free(ids, n);
	CHECK(inf_hwids_arch(inf, INF_ARCH_X86, &ids, &n, err, sizeof(err)) == 0);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(ids[0].device == 0x0086);
		CHECK_STR(ids[0].install, "I.NTx86");
		sys = NULL;
		CHECK(inf_sys_file(inf, ids[0].install, &sys, err, sizeof(err)) == 0);
		CHECK_STR(sys ? sys : "", "d32.sys");
		free(sys);
	}
	inf_hwids_free(ids, n);
	CHECK(inf_install_section_arch(inf, "I", INF_ARCH_X86) ==
	      inf_find_section(inf, "I.NTx86"));
	CHECK(inf_install_section_arch(inf, "I", INF_ARCH_AMD64) ==
	      inf_find_section(inf, "I.NTamd64"));
#ifdef __x86_64__
	/* without an architecture: the one the wrapper is built for */
	CHECK(inf_hwids(inf, &ids, &n, err, sizeof(err)) == 0 && n == 1);
	if (n == 1)
		CHECK(ids[0].device == 0x0064);
	inf_hwids_free(ids, n);
	CHECK(inf_install_section(inf, "I") == inf_find_section(inf, "I.NTamd64"));
#endif
	inf_free(inf);

	inf = parse("x86.inf", x86, sizeof(x86) - 1);
	CHECK(inf_hwids_arch(inf, INF_ARCH_AMD64, &ids, &n, err, sizeof(err)) == -ENOENT);
	CHECK_STR(err, "x86.inf:1: no models for NTamd64 (this x86_64 wrapper), only for NTx86.5.1 (a 32-bit i386 driver)");
	CHECK(inf_hwids_arch(inf, INF_ARCH_X86, &ids, &n, err, sizeof(err)) == 0 && n == 1);
	if (n == 1)
		CHECK_STR(ids[0].install, "I.NTx86");
	inf_hwids_free(ids, n);
	inf_free(inf);

	inf = parse("amd64.inf", amd64, sizeof(amd64) - 1);
	CHECK(inf_hwids_arch(inf, INF_ARCH_X86, &ids, &n, err, sizeof(err)) == -ENOENT);
	CHECK_STR(err, "amd64.inf:1: no models for NTx86 (this i386 wrapper), only for NTamd64 (a 64-bit x86_64 driver)");
	inf_free(inf);

	inf = parse("ia64.inf", ia64, sizeof(ia64) - 1);
	CHECK(inf_hwids_arch(inf, INF_ARCH_AMD64, &ids, &n, err, sizeof(err)) == -ENOENT);
	CHECK_STR(err, "ia64.inf:1: no models for NTamd64 (this x86_64 wrapper), only for NTia64");
	inf_free(inf);

	/* architecture-less NT models serve both */
	inf = parse("any.inf", any, sizeof(any) - 1);
	CHECK(inf_hwids_arch(inf, INF_ARCH_AMD64, &ids, &n, err, sizeof(err)) == 0 && n == 1);
	inf_hwids_free(ids, n);
	CHECK(inf_hwids_arch(inf, INF_ARCH_X86, &ids, &n, err, sizeof(err)) == 0 && n == 1);
	if (n == 1)
		CHECK_STR(ids[0].install, "I.NT");
	inf_hwids_free(ids, n);
	inf_free(inf);
}

/* No ServiceBinary, no .sys in CopyFiles: the source disks' list names
 * it, this platform's first; a CopyFiles .sys still wins. */
static void test_source_disks_files(void)
{
	static const char head[] =
		"[Manufacturer]\nM = Mod\n[Mod]\nD = I, PCI\\VEN_10EC&DEV_8139\n";
	static const char both[] =
		"[I]\nCopyFiles = Files\n[Files]\nreadme.txt\n"
		"[SourceDisksFiles]\nreadme.txt = 1\nother.sys = 1\n"
		"[SourceDisksFiles.amd64]\nnic.sys = 1,,\n";
	static const char plain[] =
		"[I]\n[SourceDisksFiles]\nreadme.txt = 1\nother.sys = 1\n";
	static const char copied[] =
		"[I]\nCopyFiles = @copy.sys\n[SourceDisksFiles]\nother.sys = 1\n";
	static const char none[] = "[I]\n[SourceDisksFiles]\nreadme.txt = 1\n";
	const char *bodies[] = { both, plain, copied, none };
	const char *want[] = { "nic.sys", "other.sys", "copy.sys", NULL };
	char text[512];
	unsigned int i;

	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		struct inf_file *inf;
		char *sys = NULL;
		int rc;

		snprintf(text, sizeof(text), "%s%s", head, bodies[i]);
		inf = parse("disks.inf", text, strlen(text));
		CHECK(inf != NULL);
		if (!inf)
			continue;
		rc = inf_sys_file(inf, "I", &sys, err, sizeof(err));
		if (want[i]) {
			CHECK(rc == 0);
			CHECK_STR(sys, want[i]);
		} else {
			CHECK(rc == -ENOENT);
			CHECK_STR(err, "disks.inf:5: no .sys file for install section [I] (no ServiceBinary in [I.Services], no .sys in CopyFiles or SourceDisksFiles)");
		}
		free(sys);
		inf_free(inf);
	}
}

int main(int argc, char **argv)
{
	fixture = argc > 1 ? argv[1] : NULL;
	TEST(test_sample_utf8);
	TEST(test_sample_utf16);
	TEST(test_utf8_bom_and_lf);
	TEST(test_substitution);
	TEST(test_expansion_caps);
	TEST(test_errors);
	TEST(test_semantic_errors);
	TEST(test_parse_file);
	TEST(test_msi_supported);
	TEST(test_arch);
	TEST(test_source_disks_files);
	if (fixture && access(fixture, R_OK) == 0)
		TEST(test_fixture);
	else
		tap_skip("test_fixture", "fixtures/drivers/bcmwl/bcmwl.inf not present");
	return tap_done();
}
