// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of wrapper/utils/describe.c (`ndisconf --describe`): what the
 * loader reads, as one line of JSON; refusals print nothing and name
 * their cause; the file statuses are ndisconf's exit statuses.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "describe.h"
#include "inf.h"
#include "pe_build.h"
#include "tap.h"

static char err[512];
static char *out;
static size_t out_len;

/* describe as .inf (inf) or .sys into out; returns the function's rc */
static int describe(const void *data, size_t size, int inf)
{
	FILE *f;
	int rc;

	free(out);
	out = NULL;
	err[0] = '\0';
	f = open_memstream(&out, &out_len);
	if (!f)
		abort();
	rc = inf ? ndis_describe_inf("t.inf", data, size, INF_ARCH_AMD64, f,
				     err, sizeof(err)) :
		   ndis_describe_sys(data, size, f, err, sizeof(err));
	fclose(f);
	return rc;
}

static void test_sys_amd64(void)
{
	uint8_t img[PB_FILE_SIZE];

	pb_build(img);
	CHECK(describe(img, sizeof(img), 0) == 0);
	CHECK_CONTAINS(out, "{\"format\":\"sys\",\"machine\":34404,\"pe\":\"PE32+\",\"subsystem\":1,\"image_size\":16384,\"image_base\":65536,");
	CHECK_CONTAINS(out, "{\"name\":\".text\",\"rva\":4096,");
	CHECK_CONTAINS(out, "\"imports\":[{\"dll\":\"ntoskrnl.exe\",\"name\":\"IoConnectInterrupt\"},{\"dll\":\"ntoskrnl.exe\",\"name\":\"KeBugCheckEx\"},{\"dll\":\"ndis.sys\",\"name\":\"NdisMRegisterMiniport\"}],\"export_directory\":{\"rva\":0,\"size\":0}}\n");
	CHECK(out_len && out[out_len - 1] == '\n' && !memchr(out, '\n', out_len - 1));
}

static void test_sys_i386(void)
{
	uint8_t img[PB_FILE_SIZE];

	pb_build32(img);
	CHECK(describe(img, sizeof(img), 0) == 0);
	CHECK_CONTAINS(out, "\"machine\":332,\"pe\":\"PE32\",");
	CHECK_CONTAINS(out, "{\"dll\":\"ndis.sys\",\"name\":\"NdisMRegisterMiniport\"}");
}

static void set_import(uint8_t *img, uint32_t rva, const char *name)
{
	memset(img + PB_RDATA_FILE(rva) + 2, 0, 0x1e);
	memcpy(img + PB_RDATA_FILE(rva) + 2, name, strlen(name));
}

/* What the user brought: NDIS 6 imports and the imports the wrapper of
 * the image's own architecture lacks (its generated export tables), each
 * as a list and as the installer's one line. */
static void test_sys_brought(void)
{
	uint8_t img[PB_FILE_SIZE];

	pb_build(img);
	CHECK(describe(img, sizeof(img), 0) == 0);
	CHECK_CONTAINS(out, "],\"ndis6\":[],\"ndis6_line\":\"\",\"unknown_imports\":[{\"dll\":\"ntoskrnl.exe\",\"name\":\"IoConnectInterrupt\"},{\"dll\":\"ntoskrnl.exe\",\"name\":\"KeBugCheckEx\"}],\"unknown_imports_line\":\"imports 2 functions this wrapper does not provide: ntoskrnl.exe!IoConnectInterrupt, ntoskrnl.exe!KeBugCheckEx\",\"imports\":[");
	set_import(img, 0x21a0, "NdisMRegisterMiniportDriver");
	set_import(img, 0x2160, "KeSetEvent");
	CHECK(describe(img, sizeof(img), 0) == 0);
	CHECK_CONTAINS(out, "\"ndis6\":[{\"dll\":\"ndis.sys\",\"name\":\"NdisMRegisterMiniportDriver\"}],\"ndis6_line\":\"an NDIS 6 miniport (imports NdisMRegisterMiniportDriver); NDIS wrappers load NDIS 5.x miniports\",\"unknown_imports\":[{\"dll\":\"ntoskrnl.exe\",\"name\":\"KeBugCheckEx\"},{\"dll\":\"ndis.sys\",\"name\":\"NdisMRegisterMiniportDriver\"}],\"unknown_imports_line\":\"imports 2 functions this wrapper does not provide: ntoskrnl.exe!KeBugCheckEx, ndis.sys!NdisMRegisterMiniportDriver\",");
	/* a name the i386 module exports (WIN_FUNC_I386) and the x86_64 one
	 * does not */
	pb_build(img);
	set_import(img, 0x2180, "KefAcquireSpinLockAtDpcLevel");
	CHECK(describe(img, sizeof(img), 0) == 0);
	CHECK_CONTAINS(out, "\"unknown_imports_line\":\"imports 2 functions this wrapper does not provide: ntoskrnl.exe!IoConnectInterrupt, ntoskrnl.exe!KefAcquireSpinLockAtDpcLevel\",");
	pb_build32(img);
	set_import(img, 0x2180, "KefAcquireSpinLockAtDpcLevel");
	CHECK(describe(img, sizeof(img), 0) == 0);
	CHECK_CONTAINS(out, "\"unknown_imports\":[{\"dll\":\"ntoskrnl.exe\",\"name\":\"IoConnectInterrupt\"}],\"unknown_imports_line\":\"imports 1 function this wrapper does not provide: ntoskrnl.exe!IoConnectInterrupt\",");
}

static void test_sys_refused(void)
{
	uint8_t img[PB_FILE_SIZE];

	pb_build(img);
	img[0] = 'X';
	CHECK(describe(img, sizeof(img), 0) == -ENOEXEC);
	CHECK_STR(err, "not a PE file: no 'MZ' signature");
	CHECK(out_len == 0);
	pb_build(img);
	pb_w16(img + PB_COFF, 0xaa64);
	CHECK(describe(img, sizeof(img), 0) == -ENOEXEC);
	CHECK_STR(err, "machine 0xaa64 (ARM64) is not x86_64 (0x8664)");
	/* an import name past the image: the import walk's refusal */
	pb_build(img);
	pb_w32(img + PB_RDATA_FILE(PB_IMPORT_RVA) + 12, 0x7000);
	CHECK(describe(img, sizeof(img), 0) == -ENOEXEC);
	CHECK_STR(err, "import descriptor 0: DLL name at RVA 0x7000 missing, unterminated or not printable");
	CHECK(out_len == 0);
}

static const char inf_text[] =
	"[Manufacturer]\n"
	"%Mfg% = Mod, NTamd64\n"
	"[Mod.NTamd64]\n"
	"%Desc% = Inst, PCI\\VEN_10EC&DEV_8139&SUBSYS_12345678, USB\\VID_0BDA&PID_8187\n"
	"[Inst.NT]\n"
	"CopyFiles = @Nic.sys\n"
	"AddReg = Reg\n"
	"[Reg]\n"
	"HKR, Ndi\\params\\Speed, default, 0, \"100\"\n"
	"[Strings]\n"
	"Mfg = \"m\"\n"
	"Desc = \"a \"\"quoted\"\" \\ name\"\n";

static void test_inf(void)
{
	CHECK(describe(inf_text, sizeof(inf_text) - 1, 1) == 0);
	CHECK_STR(out, "{\"format\":\"inf\",\"arch\":\"NTamd64\",\"ids\":["
		  "{\"bus\":\"pci\",\"vendor\":\"10ec\",\"device\":\"8139\",\"subvendor\":\"5678\",\"subdevice\":\"1234\","
		  "\"id\":\"PCI\\\\VEN_10EC&DEV_8139&SUBSYS_12345678\",\"description\":\"a \\\"quoted\\\" \\\\ name\","
		  "\"install\":\"Inst.NT\",\"files\":[\"Nic.sys\"],\"settings\":{\"Speed\":\"100\"},\"msi\":false},"
		  "{\"bus\":\"usb\",\"vendor\":\"0bda\",\"device\":\"8187\","
		  "\"id\":\"USB\\\\VID_0BDA&PID_8187\",\"description\":\"a \\\"quoted\\\" \\\\ name\","
		  "\"install\":\"Inst.NT\",\"files\":[\"Nic.sys\"],\"settings\":{\"Speed\":\"100\"},\"msi\":false}]}\n");
}

static void test_inf_refused(void)
{
	static const char nosys[] =
		"[Manufacturer]\nM = Mod\n[Mod]\nD = I, PCI\\VEN_0001&DEV_0002\n[I]\n";

	CHECK(describe("[Version]\n", 10, 1) == -ENOENT);
	CHECK_STR(err, "t.inf: no [Manufacturer] section");
	CHECK(out_len == 0);
	CHECK(describe(nosys, sizeof(nosys) - 1, 1) == -ENOENT);
	CHECK_STR(err, "t.inf:5: no .sys file for install section [I] (no ServiceBinary in [I.Services], no .sys in CopyFiles or SourceDisksFiles)");
	CHECK(out_len == 0);
}

static void test_file_statuses(void)
{
	char dir[] = "/tmp/ndis-describe-XXXXXX", path[600];
	FILE *f, *null = fopen("/dev/null", "w");

	CHECK(mkdtemp(dir) != NULL && null);
	snprintf(path, sizeof(path), "%s/absent.inf", dir);
	CHECK(ndis_describe_file(path, INF_ARCH_AMD64, null, err, sizeof(err)) ==
	      NDIS_DESCRIBE_UNREADABLE);
	CHECK_CONTAINS(err, "absent.inf: No such file or directory");
	snprintf(path, sizeof(path), "%s/bad.inf", dir);
	f = fopen(path, "w");
	fputs("[Version\n", f);
	fclose(f);
	CHECK(ndis_describe_file(path, INF_ARCH_AMD64, null, err, sizeof(err)) ==
	      NDIS_DESCRIBE_REFUSED);
	CHECK_CONTAINS(err, "bad.inf:1: missing ']' in section header");
	unlink(path);
	snprintf(path, sizeof(path), "%s/big.inf", dir);
	f = fopen(path, "w");
	CHECK(f && !ftruncate(fileno(f), INF_MAX_FILE_SIZE + 1));
	fclose(f);
	CHECK(ndis_describe_file(path, INF_ARCH_AMD64, null, err, sizeof(err)) ==
	      NDIS_DESCRIBE_REFUSED);
	CHECK_CONTAINS(err, "big.inf: larger than 8 MiB (8388609 bytes), the wrapper's limit for an .inf");
	unlink(path);
	snprintf(path, sizeof(path), "%s/x.sys", dir);
	f = fopen(path, "w");
	fputs("MZ", f);
	fclose(f);
	CHECK(ndis_describe_file(path, INF_ARCH_AMD64, null, err, sizeof(err)) ==
	      NDIS_DESCRIBE_REFUSED);
	CHECK_CONTAINS(err, "x.sys: file too small (2 bytes) for a DOS header");
	unlink(path);
	rmdir(dir);
	fclose(null);
}

int main(void)
{
	TEST(test_sys_amd64);
	TEST(test_sys_i386);
	TEST(test_sys_brought);
	TEST(test_sys_refused);
	TEST(test_inf);
	TEST(test_inf_refused);
	TEST(test_file_statuses);
	free(out);
	return tap_done();
}
