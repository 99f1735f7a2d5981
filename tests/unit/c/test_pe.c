// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of wrapper/loader/pe.c on synthetic images (pe_build.c); with
 * PE_TEST_KERNEL_BUILD, of its kernel build (-nostdinc against kmock, whose
 * cond_resched() counts its calls).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pe.h"
#include "pe_build.h"
#include "tap.h"
#ifdef PE_TEST_KERNEL_BUILD
#include "kdriver.h"
#endif

#define BASE 0xffffc90000400000ull
#define BASE32 0xf8c40000u	/* i386 vmalloc space */

static uint8_t file[PB_FILE_SIZE];
static char err[256];

struct sym {
	const char *dll, *name;
	uint64_t addr;
};

/* Like kernel text addresses, these have no zero byte: an IAT slot written
 * over a name leaves it unterminated. */
static const struct sym syms[] = {
	{ "ntoskrnl.exe", "IoConnectInterrupt", 0xffffffffa1111111ull },
	{ "ntoskrnl.exe", "KeBugCheckEx", 0xffffffffa2222222ull },
	{ "ndis.sys", "NdisMRegisterMiniport", 0xffffffffa3333333ull },
};

static int resolve(void *ctx, const char *dll, const char *name,
		   uint64_t *addr)
{
	size_t i, n = ctx ? *(size_t *)ctx : sizeof(syms) / sizeof(syms[0]);

	for (i = 0; i < n; i++)
		if (!strcmp(syms[i].dll, dll) && !strcmp(syms[i].name, name)) {
			*addr = syms[i].addr;
			return 0;
		}
	return -ENOENT;
}

/* The same names as an i386 kernel's text addresses. */
static const struct sym syms32[] = {
	{ "ntoskrnl.exe", "IoConnectInterrupt", 0xe1111111u },
	{ "ntoskrnl.exe", "KeBugCheckEx", 0xe2222222u },
	{ "ndis.sys", "NdisMRegisterMiniport", 0xe3333333u },
};

static int resolve32(void *ctx, const char *dll, const char *name,
		     uint64_t *addr)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < sizeof(syms32) / sizeof(syms32[0]); i++)
		if (!strcmp(syms32[i].dll, dll) &&
		    !strcmp(syms32[i].name, name)) {
			*addr = syms32[i].addr;
			return 0;
		}
	return -ENOENT;
}

static int count_calls(void *ctx, const char *dll, const char *name)
{
	(void)dll;
	(void)name;
	++*(uint64_t *)ctx;
	return 0;
}

struct collect {
	char buf[512];
};

static int collect(void *ctx, const char *dll, const char *name)
{
	struct collect *c = ctx;
	size_t n = strlen(c->buf);

	snprintf(c->buf + n, sizeof(c->buf) - n, "%s:%s;", dll, name);
	return 0;
}

static void test_valid_image(void)
{
	struct pe_info info;
	uint8_t *img;
	struct collect c = { "" };

	pb_build(file);
	CHECK(pe_check(file, sizeof(file), &info, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(info.machine == 0x8664);
	CHECK(info.subsystem == 1);
	CHECK(info.size_of_image == 0x4000);
	CHECK(info.size_of_headers == 0x200);
	CHECK(info.entry_rva == 0x1000);
	CHECK(info.image_base == PB_IMAGE_BASE);
	CHECK(info.num_sections == 3);
	CHECK(info.dirs[PE_DIR_IMPORT].rva == PB_IMPORT_RVA);
	CHECK(info.dirs[PE_DIR_BASERELOC].size == PB_RELOC_SIZE);

	img = calloc(1, info.size_of_image);
	CHECK(pe_map(file, sizeof(file), &info, img, err, sizeof(err)) == 0);
	CHECK(img[0] == 'M' && img[0x1000] == 0xc3);
	CHECK(pb_r64(img + PB_PTR_RVA) == PB_IMAGE_BASE + 0x2000);
	CHECK(!memcmp(img + 0x2140, "ntoskrnl.exe", 13));

	CHECK(pe_relocate(img, &info, BASE, err, sizeof(err)) == 0);
	CHECK(pb_r64(img + PB_PTR_RVA) == BASE + 0x2000);
	CHECK(pb_r64(img + PB_OPT + 24) == BASE);	/* new base recorded */

	CHECK(pe_for_each_import(img, &info, collect, &c, err, sizeof(err)) == 0);
	CHECK_STR(c.buf, "ntoskrnl.exe:IoConnectInterrupt;ntoskrnl.exe:KeBugCheckEx;"
		  "ndis.sys:NdisMRegisterMiniport;");

	CHECK(pe_resolve_imports(img, &info, resolve, NULL, err, sizeof(err)) == 0);
	CHECK(pb_r64(img + PB_IAT_RVA) == syms[0].addr);
	CHECK(pb_r64(img + PB_IAT_RVA + 8) == syms[1].addr);
	CHECK(pb_r64(img + PB_IAT_RVA + 16) == 0);
	CHECK(pb_r64(img + PB_IAT2_RVA) == syms[2].addr);
	free(img);
}

static void test_same_base_and_small_err(void)
{
	struct pe_info info;
	uint8_t *img;
	char small[8];

	pb_build(file);
	CHECK(pe_check(file, sizeof(file), &info, NULL, 0) == 0);
	img = calloc(1, info.size_of_image);
	CHECK(pe_map(file, sizeof(file), &info, img, NULL, 0) == 0);
	CHECK(pe_relocate(img, &info, PB_IMAGE_BASE, NULL, 0) == 0);
	CHECK(pb_r64(img + PB_PTR_RVA) == PB_IMAGE_BASE + 0x2000);
	file[0] = 'X';
	CHECK(pe_check(file, sizeof(file), &info, small, sizeof(small)) < 0);
	CHECK(strlen(small) == sizeof(small) - 1);	/* truncated, terminated */
	free(img);
}

static void test_unknown_symbol(void)
{
	struct pe_info info;
	uint8_t *img;
	size_t n = 1;	/* only IoConnectInterrupt is known */

	pb_build(file);
	CHECK(pe_check(file, sizeof(file), &info, err, sizeof(err)) == 0);
	img = calloc(1, info.size_of_image);
	CHECK(pe_map(file, sizeof(file), &info, img, err, sizeof(err)) == 0);
	CHECK(pe_resolve_imports(img, &info, resolve, &n, err, sizeof(err)) == -ENOENT);
	/* all of them, not only the first */
	CHECK_STR(err, "2 unknown symbols: ntoskrnl.exe:'KeBugCheckEx' "
		  "ndis.sys:'NdisMRegisterMiniport'");
	free(img);
}

/* Every missing import in one error, not just the first: a user sees the
 * whole list the wrapper lacks for a driver at once. */
static void test_all_unknown_symbols(void)
{
	struct pe_info info;
	uint8_t *img;
	size_t n = 0;	/* nothing is known */
	char small[40];

	pb_build(file);
	CHECK(pe_check(file, sizeof(file), &info, err, sizeof(err)) == 0);
	img = calloc(1, info.size_of_image);
	CHECK(pe_map(file, sizeof(file), &info, img, err, sizeof(err)) == 0);
	CHECK(pe_resolve_imports(img, &info, resolve, &n, err, sizeof(err)) == -ENOENT);
	CHECK_STR(err, "3 unknown symbols: ntoskrnl.exe:'IoConnectInterrupt' "
		  "ntoskrnl.exe:'KeBugCheckEx' ndis.sys:'NdisMRegisterMiniport'");
	/* too small for the list: the count stays, the cut is marked */
	CHECK(pe_resolve_imports(img, &info, resolve, &n, small, sizeof(small)) == -ENOENT);
	CHECK_STR(small, "3 unknown symbols: ntoskrnl.exe:'IoC...");
	free(img);
}

static void m_noreloc(uint8_t *b, size_t *s);

/* No relocation directory and no RELOCS_STRIPPED flag: nothing to fix. */
static void test_no_relocations(void)
{
	struct pe_info info;
	uint8_t *img;
	size_t size = sizeof(file);

	pb_build(file);
	m_noreloc(file, &size);
	CHECK(pe_check(file, size, &info, err, sizeof(err)) == 0);
	img = calloc(1, info.size_of_image);
	CHECK(pe_map(file, size, &info, img, err, sizeof(err)) == 0);
	CHECK(pe_relocate(img, &info, BASE, err, sizeof(err)) == 0);
	CHECK(pb_r64(img + PB_PTR_RVA) == PB_IMAGE_BASE + 0x2000);
	CHECK(pb_r64(img + PB_OPT + 24) == BASE);
	free(img);
}

/* Old linkers leave the lookup table out: the IAT holds the names and is
 * overwritten in place, entry after entry. */
static void test_iat_holds_names(void)
{
	struct pe_info info;
	uint8_t *img;

	pb_build(file);
	pb_w32(file + PB_RDATA_FILE(0x2000), 0);
	pb_w32(file + PB_RDATA_FILE(0x2014), 0);
	CHECK(pe_check(file, sizeof(file), &info, err, sizeof(err)) == 0);
	img = calloc(1, info.size_of_image);
	CHECK(pe_map(file, sizeof(file), &info, img, err, sizeof(err)) == 0);
	CHECK(pe_resolve_imports(img, &info, resolve, NULL, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(pb_r64(img + PB_IAT_RVA) == syms[0].addr);
	CHECK(pb_r64(img + PB_IAT_RVA + 8) == syms[1].addr);
	CHECK(pb_r64(img + PB_IAT2_RVA) == syms[2].addr);
	free(img);
}

static void test_map_mismatch(void)
{
	struct pe_info info;
	uint8_t *img;

	pb_build(file);
	CHECK(pe_check(file, sizeof(file), &info, err, sizeof(err)) == 0);
	info.size_of_image = 0x1000;
	img = calloc(1, 0x4000);
	CHECK(pe_map(file, sizeof(file), &info, img, err, sizeof(err)) == -EINVAL);
	CHECK_CONTAINS(err, "does not describe");
	free(img);
}

/* ---- malformations: each one mutates the valid image ---- */

enum stage { CHECK_STAGE, RELOC_STAGE, IMPORT_STAGE };

struct bad {
	const char *name;
	void (*mutate)(uint8_t *b, size_t *size);
	enum stage stage;
	int rc;
	const char *msg;
};

static uint8_t *opt(uint8_t *b) { return b + PB_OPT; }
static uint8_t *dir(uint8_t *b, int i) { return b + PB_OPT + 112 + 8 * i; }

static void m_no_mz(uint8_t *b, size_t *s) { (void)s; b[0] = 'Z'; }
static void m_tiny(uint8_t *b, size_t *s) { (void)b; *s = 0x30; }
static void m_trunc(uint8_t *b, size_t *s) { (void)b; *s = 0x500; }
static void m_lfanew(uint8_t *b, size_t *s) { (void)s; pb_w32(b + 0x3c, 0xfffffff0u); }
static void m_pesig(uint8_t *b, size_t *s) { (void)s; b[PB_NT + 1] = 'X'; }
static void m_i386(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_COFF, 0x14c); }
static void m_arm64(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_COFF, 0xaa64); }
static void m_pe32(uint8_t *b, size_t *s) { (void)s; pb_w16(opt(b), 0x10b); }
static void m_gui(uint8_t *b, size_t *s) { (void)s; pb_w16(opt(b) + 68, 2); }
static void m_obj(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_COFF + 18, 0x2000); }
static void m_stripped(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_COFF + 18, 0x2003); }
static void m_noreloc(uint8_t *b, size_t *s) { (void)s; memset(dir(b, 5), 0, 8); }
static void m_overlap(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_SEC(1) + 12, 0x1000); }
static void m_beyond(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_SEC(2) + 8, 0x2000); }
static void m_misalign(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_SEC(1) + 12, 0x2010); }
static void m_nsec0(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_COFF + 2, 0); }
static void m_nsec_big(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_COFF + 2, 40); }
static void m_nsec_100(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_COFF + 2, 100); }
static void m_hdrsize(uint8_t *b, size_t *s) { (void)s; pb_w32(opt(b) + 60, 0x900); }
static void m_falign(uint8_t *b, size_t *s) { (void)s; pb_w32(opt(b) + 36, 0x300); }
static void m_salign(uint8_t *b, size_t *s) { (void)s; pb_w32(opt(b) + 32, 0x100); }
static void m_bigimage(uint8_t *b, size_t *s) { (void)s; pb_w32(opt(b) + 56, 0x10000000); }
static void m_entry(uint8_t *b, size_t *s) { (void)s; pb_w32(opt(b) + 16, 0x5000); }
static void m_ndirs(uint8_t *b, size_t *s) { (void)s; pb_w32(opt(b) + 108, 17); }
static void m_optsize(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_COFF + 16, 100); }
static void m_impdir(uint8_t *b, size_t *s) { (void)s; pb_w32(dir(b, 1), 0x3ff0); }
static void m_rawoff_wrap(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_SEC(1) + 20, 0xfffffe00u); }
static void m_rel_odd(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RELOC_FILE(0x3004), 11); }
static void m_rel_small(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RELOC_FILE(0x3004), 4); }
static void m_rel_big(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RELOC_FILE(0x3004), 0x100); }
static void m_rel_page(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RELOC_FILE(0x3000), 0x8000); }
static void m_rel_type(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_RELOC_FILE(0x3008), 0x3010); }
static void m_rel_edge(uint8_t *b, size_t *s)
{
	(void)s;
	pb_w32(b + PB_RELOC_FILE(0x3000), 0x3000);
	pb_w16(b + PB_RELOC_FILE(0x3008), 0xaffc);
}
static void m_rel_self(uint8_t *b, size_t *s)
{
	(void)s;
	pb_w32(b + PB_RELOC_FILE(0x3000), 0x3000);
	pb_w16(b + PB_RELOC_FILE(0x3008), 0xa004);
}
static void m_rel_dirsize(uint8_t *b, size_t *s) { (void)s; pb_w32(dir(b, 5) + 4, 14); }
static void m_ordinal(uint8_t *b, size_t *s)
{
	(void)s;
	pb_w64(b + PB_RDATA_FILE(0x2088), 0x8000000000000007ull);
}
static void m_dllname(uint8_t *b, size_t *s) { (void)s; b[PB_RDATA_FILE(0x2142)] = 0x01; }
static void m_dllname_rva(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x200c), 0x9000); }
static void m_symname_rva(uint8_t *b, size_t *s) { (void)s; pb_w64(b + PB_RDATA_FILE(0x2080), 0x3ffe); }
static void m_iat_out(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2010), 0x3ffc); }
static void m_noterm(uint8_t *b, size_t *s)
{
	(void)s;
	/* descriptors run into the end of the image without a terminator:
	 * the image ends at 0x3200, one valid descriptor sits at 0x31ec */
	uint8_t *d = b + PB_RELOC_FILE(0x31ec);

	pb_w32(opt(b) + 56, 0x3200);
	pb_w32(b + PB_SEC(2) + 8, 0x200);
	pb_w32(d, 0x2080);
	pb_w32(d + 12, 0x2140);
	pb_w32(d + 16, PB_IAT_RVA);
	pb_w32(dir(b, 1), 0x31ec);
	pb_w32(dir(b, 1) + 4, 20);
}
static void m_longname(uint8_t *b, size_t *s)
{
	(void)s;
	/* a 480-byte name in .text: longer than PE_MAX_SYMBOL_NAME */
	pb_w32(b + PB_SEC(0) + 8, 0x200);
	memset(b + 0x200 + 0x20, 'A', 0x1e0);
	pb_w64(b + PB_RDATA_FILE(0x2080), 0x1020 - 2);
}

/* IATs over what the import walk reads (a slot written there changes it) */
static void m_iat_desc(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2010), 0x2028); }
static void m_iat_own_ilt(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2010), 0x2078); }
static void m_iat_ilt(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2024), 0x2088); }
static void m_iat_name(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2024), 0x2180); }
static void m_iat_dll(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2010), 0x2148); }

static const struct bad bads[] = {
	{ "no MZ", m_no_mz, CHECK_STAGE, -ENOEXEC, "no 'MZ' signature" },
	{ "tiny file", m_tiny, CHECK_STAGE, -ENOEXEC, "file too small (48 bytes)" },
	{ "truncated", m_trunc, CHECK_STAGE, -ENOEXEC,
	  "section 1 (.rdata) raw data 0x400+0x200 beyond file size 0x500" },
	{ "e_lfanew", m_lfanew, CHECK_STAGE, -ENOEXEC, "beyond file size" },
	{ "PE signature", m_pesig, CHECK_STAGE, -ENOEXEC, "no 'PE\\0\\0' signature" },
	{ "i386", m_i386, CHECK_STAGE, -ENOEXEC, "32-bit PE (i386) cannot run on x86_64" },
	{ "arm64", m_arm64, CHECK_STAGE, -ENOEXEC, "machine 0xaa64 (ARM64) is not x86_64" },
	{ "PE32", m_pe32, CHECK_STAGE, -ENOEXEC,
	  "optional header magic 0x10b does not match machine x86_64 (0x8664), whose images are PE32+ (0x20b)" },
	{ "GUI subsystem", m_gui, CHECK_STAGE, -ENOEXEC,
	  "subsystem 2 (Windows GUI) is not native (1)" },
	{ "object file", m_obj, CHECK_STAGE, -ENOEXEC, "not an executable image" },
	{ "relocs stripped", m_stripped, CHECK_STAGE, -ENOEXEC, "relocations stripped" },
	{ "overlap", m_overlap, CHECK_STAGE, -ENOEXEC,
	  "section 1 (.rdata) at 0x1000 overlaps the previous section" },
	{ "beyond image", m_beyond, CHECK_STAGE, -ENOEXEC,
	  "section 2 (.reloc) 0x3000+0x2000 beyond size of image 0x4000" },
	{ "misaligned", m_misalign, CHECK_STAGE, -ENOEXEC, "not aligned to 0x1000" },
	{ "0 sections", m_nsec0, CHECK_STAGE, -ENOEXEC, "0 sections" },
	{ "40 sections", m_nsec_big, CHECK_STAGE, -ENOEXEC,
	  "size of headers 0x200 out of range (headers end at 0x7c8" },
	{ "100 sections", m_nsec_100, CHECK_STAGE, -ENOEXEC, "100 sections (1..96 allowed)" },
	{ "headers size", m_hdrsize, CHECK_STAGE, -ENOEXEC, "size of headers 0x900" },
	{ "file alignment", m_falign, CHECK_STAGE, -ENOEXEC, "bad alignment" },
	{ "section alignment", m_salign, CHECK_STAGE, -ENOEXEC, "bad alignment" },
	{ "huge image", m_bigimage, CHECK_STAGE, -EFBIG, "size of image 0x10000000 out of range" },
	{ "entry", m_entry, CHECK_STAGE, -ENOEXEC, "entry point RVA 0x5000" },
	{ "17 dirs", m_ndirs, CHECK_STAGE, -ENOEXEC, "17 data directories" },
	{ "opt header size", m_optsize, CHECK_STAGE, -ENOEXEC, "optional header size 100" },
	{ "import dir", m_impdir, CHECK_STAGE, -ENOEXEC,
	  "import directory 0x3ff0+0x3c outside the image" },
	{ "raw offset wrap", m_rawoff_wrap, CHECK_STAGE, -ENOEXEC,
	  "raw data 0xfffffe00+0x200 beyond file size" },
	{ "reloc odd size", m_rel_odd, RELOC_STAGE, -ENOEXEC, "bad size 11" },
	{ "reloc small size", m_rel_small, RELOC_STAGE, -ENOEXEC, "bad size 4" },
	{ "reloc size > dir", m_rel_big, RELOC_STAGE, -ENOEXEC, "bad size 256" },
	{ "reloc page", m_rel_page, RELOC_STAGE, -ENOEXEC,
	  "page RVA 0x8000 beyond size of image 0x4000" },
	{ "reloc type", m_rel_type, RELOC_STAGE, -ENOEXEC,
	  "base relocation type 3 at RVA 0x1010 not supported (only DIR64 and ABSOLUTE in PE32+)" },
	{ "reloc at edge", m_rel_edge, RELOC_STAGE, -ENOEXEC,
	  "DIR64 relocation at RVA 0x3ffc beyond size of image" },
	{ "reloc patches itself", m_rel_self, RELOC_STAGE, -ENOEXEC,
	  "DIR64 relocation at RVA 0x3004 patches the relocation directory 0x3000+0xc" },
	{ "reloc dir tail", m_rel_dirsize, RELOC_STAGE, -ENOEXEC, "truncated (2 bytes left)" },
	{ "ordinal", m_ordinal, IMPORT_STAGE, -EINVAL,
	  "ntoskrnl.exe: import by ordinal 7 is not supported" },
	{ "dll name", m_dllname, IMPORT_STAGE, -ENOEXEC, "import descriptor 0: DLL name" },
	{ "dll name rva", m_dllname_rva, IMPORT_STAGE, -ENOEXEC, "RVA 0x9000" },
	{ "symbol name rva", m_symname_rva, IMPORT_STAGE, -ENOEXEC, "import 0 name at RVA 0x3ffe" },
	{ "IAT outside", m_iat_out, IMPORT_STAGE, -ENOEXEC, "ntoskrnl.exe: import address entry 0 at RVA 0x3ffc beyond" },
	{ "no terminator", m_noterm, IMPORT_STAGE, -ENOEXEC, "no terminating entry" },
	{ "unterminated name", m_longname, IMPORT_STAGE, -ENOEXEC, "import 0 name at RVA 0x101e" },
	{ "IAT over descriptors", m_iat_desc, IMPORT_STAGE, -ENOEXEC,
	  "import descriptor 0 (ntoskrnl.exe): import address table 0x2028+0x10 overlaps the import descriptors 0x2000+0x3c" },
	{ "IAT over own ILT", m_iat_own_ilt, IMPORT_STAGE, -ENOEXEC,
	  "import descriptor 0 (ntoskrnl.exe): import address table 0x2078+0x10 overlaps the import lookup table of descriptor 0 at RVA 0x2080" },
	{ "IAT over other ILT", m_iat_ilt, IMPORT_STAGE, -ENOEXEC,
	  "import descriptor 1 (ndis.sys): import address table 0x2088+0x8 overlaps the import lookup table of descriptor 0 at RVA 0x2080" },
	{ "IAT over import name", m_iat_name, IMPORT_STAGE, -ENOEXEC,
	  "import descriptor 1 (ndis.sys): import address table 0x2180+0x8 overlaps the name of import 1 of descriptor 0 at RVA 0x2180" },
	{ "IAT over DLL name", m_iat_dll, IMPORT_STAGE, -ENOEXEC,
	  "import descriptor 0 (ntoskrnl.exe): import address table 0x2148+0x10 overlaps the DLL name of descriptor 0 at RVA 0x2140" },
};

/*
 * Runs each malformation of table t over the image build() makes, loaded
 * for machine (pe_check_machine), resolving with res.
 */
static void run_bads(const struct bad *t, size_t n, void (*build)(uint8_t *),
		     uint16_t machine, pe_resolve_fn res)
{
	size_t i;

	for (i = 0; i < n; i++, t++) {
		size_t size = sizeof(file);
		struct pe_info info;
		uint8_t *img = NULL, *copy = NULL;
		int rc;
		struct collect c = { "" };

		build(file);
		t->mutate(file, &size);
		err[0] = '\0';
		rc = pe_check_machine(file, size, machine, &info, err,
				      sizeof(err));
		if (t->stage != CHECK_STAGE && rc == 0) {
			img = calloc(1, info.size_of_image);
			rc = pe_map(file, size, &info, img, err, sizeof(err));
			if (rc == 0 && t->stage == RELOC_STAGE) {
				copy = malloc(info.size_of_image);
				memcpy(copy, img, info.size_of_image);
				rc = pe_relocate(img, &info,
						 machine == PE_MACHINE_I386 ?
						 BASE32 : BASE, err, sizeof(err));
				/* a failed relocation leaves the image as it was */
				if (rc && memcmp(copy, img, info.size_of_image)) {
					printf("#   %s: image modified\n", t->name);
					tap_cur_failed = 1;
				}
			} else if (rc == 0) {
				rc = pe_for_each_import(img, &info, collect, &c,
							err, sizeof(err));
				if (rc == t->rc) {
					/* the resolver must fail the same way */
					char e2[256];
					int rc2 = pe_resolve_imports(img, &info, res,
								     NULL, e2, sizeof(e2));
					if (rc2 != rc || strcmp(e2, err)) {
						printf("#   %s: resolve gave %d '%s'\n",
						       t->name, rc2, e2);
						tap_cur_failed = 1;
					}
				}
			}
		}
		if (rc != t->rc || !strstr(err, t->msg)) {
			printf("#   %s: rc %d (want %d), err '%s' (want '%s')\n",
			       t->name, rc, t->rc, err, t->msg);
			tap_cur_failed = 1;
		}
		free(img);
		free(copy);
	}
}

static void test_malformed(void)
{
	run_bads(bads, sizeof(bads) / sizeof(bads[0]), pb_build,
		 PE_MACHINE_AMD64, resolve);
}

/*
 * The module builds the image in a vmap() followed by a guard page. An IAT
 * that overlaps the NUL of its own DLL name, at the very end of the image:
 * once the first slot is written (a kernel address has no zero byte) the
 * name runs into the guard page, and the next error line read it there.
 * The walk runs in a child over an image with a PROT_NONE page after it,
 * so the old fault shows as a signal instead of killing the test.
 */
#define TAIL_FILE_SIZE	0x1600		/* .reloc raw data covers 0x3000..0x4000 */
#define TAIL_NAME_RVA	0x3ff3		/* "ntoskrnl.exe": its NUL at 0x3fff */
#define TAIL_IAT_RVA	0x3ff8		/* two slots: 0x3ff8, then 0x4000 */

struct guarded_result {
	int rc;
	char err[256];
};

static void test_iat_over_dll_name_at_image_end(void)
{
	static uint8_t tail[TAIL_FILE_SIZE];
	uint8_t *d = tail + PB_RDATA_FILE(PB_IMPORT_RVA);
	struct guarded_result *res;
	struct pe_info info;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *img;
	int status = 0;
	pid_t pid;

	memset(tail, 0, sizeof(tail));
	pb_build(tail);
	pb_w32(tail + PB_SEC(2) + 8, 0x1000);		/* .reloc vsize */
	pb_w32(tail + PB_SEC(2) + 16, 0x1000);		/* .reloc raw size */
	memset(d + 20, 0, 20);				/* one descriptor */
	pb_w32(d + 12, TAIL_NAME_RVA);
	pb_w32(d + 16, TAIL_IAT_RVA);
	memcpy(tail + PB_RELOC_FILE(TAIL_NAME_RVA), "ntoskrnl.exe", 13);

	CHECK(pe_check(tail, sizeof(tail), &info, err, sizeof(err)) == 0);
	CHECK(info.size_of_image == 0x4000 && info.size_of_image % page == 0);
	img = mmap(NULL, info.size_of_image + page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(img != MAP_FAILED && res != MAP_FAILED);
	if (img == MAP_FAILED || res == MAP_FAILED)
		return;
	CHECK(mprotect(img + info.size_of_image, page, PROT_NONE) == 0);
	CHECK(pe_map(tail, sizeof(tail), &info, img, err, sizeof(err)) == 0);
	CHECK(pe_relocate(img, &info, BASE, err, sizeof(err)) == 0);

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		res->rc = pe_resolve_imports(img, &info, resolve, NULL,
					     res->err, sizeof(res->err));
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status))
		printf("#   resolving read past the image: signal %d\n",
		       WTERMSIG(status));
	CHECK(WIFEXITED(status));
	if (WIFEXITED(status)) {
		CHECK(res->rc == -ENOEXEC);
		/* the whole table is checked before the first slot is
		 * written: its second slot is past the image */
		CHECK_STR(res->err,
			  "ntoskrnl.exe: import address entry 1 at RVA 0x4000 beyond size of image 0x4000");
		CHECK(!memcmp(img + TAIL_NAME_RVA, "ntoskrnl.exe", 13));
	}
	munmap(img, info.size_of_image + page);
	munmap(res, sizeof(*res));
}

/*
 * ndesc descriptors of ntoskrnl.exe sharing one lookup table of n entries
 * (IoConnectInterrupt each), in a .reloc grown to 0x10000 bytes on file and
 * 0x20000 in the image: descriptors at 0x3100, the table at 0x5000, one
 * IAT for all at 0x14000 (IATs may overlap each other: nothing reads them).
 */
#define MANY_FILE_SIZE	(0x600 + 0x10000)

static uint8_t many[MANY_FILE_SIZE];

static void build_many(uint32_t ndesc, uint32_t n)
{
	uint32_t i;

	memset(many, 0, sizeof(many));
	pb_build(many);
	pb_w32(many + PB_OPT + 56, 0x23000);		/* size of image */
	pb_w32(many + PB_SEC(2) + 8, 0x20000);
	pb_w32(many + PB_SEC(2) + 16, 0x10000);
	pb_w32(dir(many, 1), 0x3100);
	pb_w32(dir(many, 1) + 4, (ndesc + 1) * 20);
	for (i = 0; i < ndesc; i++) {
		uint8_t *d = many + PB_RELOC_FILE(0x3100) + 20 * i;

		pb_w32(d, 0x5000);
		pb_w32(d + 12, 0x2140);
		pb_w32(d + 16, 0x14000);
	}
	for (i = 0; i < n; i++)
		pb_w64(many + PB_RELOC_FILE(0x5000) + 8 * i, 0x2160);
}

/* cond_resched() calls so far: the host build has none to count */
static unsigned long kd_resched(void)
{
#ifdef PE_TEST_KERNEL_BUILD
	return kd_resched_calls;
#else
	return 0;
#endif
}

static unsigned long resolve_resched;	/* in the last resolve_many() */

static int resolve_many(uint32_t ndesc, uint32_t n, uint64_t *calls)
{
	unsigned long resched_before;
	struct pe_info info;
	uint8_t *img;
	int rc;

	build_many(ndesc, n);
	rc = pe_check(many, sizeof(many), &info, err, sizeof(err));
	if (rc)
		return rc;
	img = calloc(1, info.size_of_image);
	rc = pe_map(many, sizeof(many), &info, img, err, sizeof(err));
	if (!rc)
		rc = pe_for_each_import(img, &info, count_calls, calls, err,
					sizeof(err));
	if (!rc) {
		resched_before = kd_resched();
		rc = pe_resolve_imports(img, &info, resolve, NULL, err,
					sizeof(err));
		resolve_resched = kd_resched() - resched_before;
	}
	free(img);
	return rc;
}

/* Every import is one resolver call (a linear search of the exports, under
 * the module's load mutex): their total is capped. */
static void test_import_caps(void)
{
	uint64_t calls = 0;

	/* 4096 in all: 256 descriptors of 16 */
	CHECK(resolve_many(256, 16, &calls) == 0);
	CHECK_STR(err, "");
	CHECK(calls == 4096);
#ifdef PE_TEST_KERNEL_BUILD
	/* the kernel walk yields before every resolver call */
	if (resolve_resched < 4096)
		printf("#   %lu cond_resched() calls for 4096 imports\n",
		       resolve_resched);
	CHECK(resolve_resched >= 4096);
#endif
	calls = 0;
	CHECK(resolve_many(2, 2049, &calls) == -E2BIG);
	CHECK_STR(err, "import descriptor 1 (ntoskrnl.exe): more than 4096 imports in all");
	CHECK(calls == 0);
	CHECK(resolve_many(1, 4097, &calls) == -E2BIG);
	CHECK_STR(err, "import descriptor 0 (ntoskrnl.exe): more than 4096 imports in all");
	CHECK(resolve_many(257, 1, &calls) == -E2BIG);
	CHECK_STR(err, "more than 256 import descriptors");
}

static void test_every_truncation(void)
{
	struct pe_info info;
	size_t n;
	int accepted = 0;

	/* every prefix of the file is refused until the last section's raw data
	 * is complete; none may crash (run under ASan in the fuzz build) */
	pb_build(file);
	for (n = 0; n < sizeof(file); n++)
		if (pe_check(file, n, &info, err, sizeof(err)) == 0)
			accepted++;
	CHECK(accepted == 0);
	/* sizes beyond PE_MAX_FILE_SIZE are refused before any read */
	CHECK(pe_check(file, (size_t)PE_MAX_FILE_SIZE + 1, &info, err,
		       sizeof(err)) == -EFBIG);
	CHECK_CONTAINS(err, "file too large");
}

/* ---- PE32 (i386) images, loaded for an i386 wrapper ---- */

static void test_valid_image32(void)
{
	struct pe_info info;
	uint8_t *img;
	struct collect c = { "" };

	pb_build32(file);
	CHECK(pe_check_machine(file, sizeof(file), PE_MACHINE_I386, &info,
			       err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(info.machine == 0x14c);
	CHECK(info.ptr_size == 4);
	CHECK(info.subsystem == 1);
	CHECK(info.size_of_image == 0x4000);
	CHECK(info.entry_rva == 0x1000);
	CHECK(info.image_base == PB_IMAGE_BASE);
	CHECK(info.num_sections == 3);
	CHECK(info.sections_offset == PB32_SECTIONS);
	CHECK(info.dirs[PE_DIR_IMPORT].rva == PB_IMPORT_RVA);
	CHECK(info.dirs[PE_DIR_BASERELOC].size == PB_RELOC_SIZE);
	CHECK(info.dirs[PE_DIR_IAT].size == 0x28);

	img = calloc(1, info.size_of_image);
	CHECK(pe_map(file, sizeof(file), &info, img, err, sizeof(err)) == 0);
	CHECK(pb_r32(img + PB_PTR_RVA) == PB_IMAGE_BASE + 0x2000);

	/* HIGHLOW: the 32-bit word moves, the next one stays */
	pb_w32(img + PB_PTR_RVA + 4, 0x55555555u);
	CHECK(pe_relocate(img, &info, BASE32, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(pb_r32(img + PB_PTR_RVA) == BASE32 + 0x2000);
	CHECK(pb_r32(img + PB_PTR_RVA + 4) == 0x55555555u);
	/* the new base at offset 28 of the PE32 header, BaseOfData kept */
	CHECK(pb_r32(img + PB_OPT + 28) == BASE32);
	CHECK(pb_r32(img + PB_OPT + 24) == 0);

	CHECK(pe_for_each_import(img, &info, collect, &c, err, sizeof(err)) == 0);
	CHECK_STR(c.buf, "ntoskrnl.exe:IoConnectInterrupt;ntoskrnl.exe:KeBugCheckEx;"
		  "ndis.sys:NdisMRegisterMiniport;");

	CHECK(pe_resolve_imports(img, &info, resolve32, NULL, err,
				 sizeof(err)) == 0);
	CHECK_STR(err, "");
	CHECK(pb_r32(img + PB_IAT_RVA) == syms32[0].addr);
	CHECK(pb_r32(img + PB_IAT_RVA + 4) == syms32[1].addr);
	CHECK(pb_r32(img + PB_IAT_RVA + 8) == 0);
	CHECK(pb_r32(img + PB_IAT2_RVA) == syms32[2].addr);
	CHECK(pb_r32(img + PB_IAT2_RVA + 4) == 0);
	free(img);
}

/* Each wrapper refuses the other architecture's drivers, naming both. */
static void test_arch_mismatch(void)
{
	struct pe_info info;

	pb_build32(file);
	CHECK(pe_check_machine(file, sizeof(file), PE_MACHINE_AMD64, &info,
			       err, sizeof(err)) == -ENOEXEC);
	CHECK_STR(err, "32-bit PE (i386) cannot run on x86_64");
#ifdef __x86_64__
	/* pe_check is for the machine it is built for */
	CHECK(pe_check(file, sizeof(file), &info, err, sizeof(err)) == -ENOEXEC);
	CHECK_STR(err, "32-bit PE (i386) cannot run on x86_64");
#endif
	pb_build(file);
	CHECK(pe_check_machine(file, sizeof(file), PE_MACHINE_I386, &info,
			       err, sizeof(err)) == -ENOEXEC);
	CHECK_STR(err, "64-bit PE (x86_64) cannot run on i386");
	pb_w16(file + PB_COFF, 0xaa64);
	CHECK(pe_check_machine(file, sizeof(file), PE_MACHINE_I386, &info,
			       err, sizeof(err)) == -ENOEXEC);
	CHECK_STR(err, "machine 0xaa64 (ARM64) is not i386 (0x014c)");
	/* a loader only for the two */
	CHECK(pe_check_machine(file, sizeof(file), 0xaa64, &info, err,
			       sizeof(err)) == -EINVAL);
	CHECK_STR(err, "no PE loader for machine 0xaa64 (only x86_64 and i386)");
}

/* What does not fit 32 bits is refused, not truncated. */
static void test_pe32_wide_values(void)
{
	struct pe_info info;
	uint8_t *img;

	pb_build32(file);
	CHECK(pe_check_machine(file, sizeof(file), PE_MACHINE_I386, &info,
			       err, sizeof(err)) == 0);
	img = calloc(1, info.size_of_image);
	CHECK(pe_map(file, sizeof(file), &info, img, err, sizeof(err)) == 0);
	CHECK(pe_relocate(img, &info, BASE, err, sizeof(err)) == -ERANGE);
	CHECK_STR(err, "a PE32 image cannot live at 0xffffc90000400000 (size 0x4000): beyond 32-bit addresses");
	CHECK(pb_r32(img + PB_PTR_RVA) == PB_IMAGE_BASE + 0x2000);
	/* the last byte at 0xffffffff is fine, one page higher is not */
	CHECK(pe_relocate(img, &info, 0xfffff000u, err, sizeof(err)) == -ERANGE);
	CHECK_CONTAINS(err, "cannot live at 0xfffff000 (size 0x4000)");
	CHECK(pe_relocate(img, &info, 0xffffc000u, err, sizeof(err)) == 0);
	CHECK(pb_r32(img + PB_PTR_RVA) == 0xffffc000u + 0x2000);
	/* 64-bit addresses (the x86_64 resolver) do not fit a PE32 slot */
	CHECK(pe_resolve_imports(img, &info, resolve, NULL, err,
				 sizeof(err)) == -ERANGE);
	CHECK_STR(err, "ntoskrnl.exe:'IoConnectInterrupt' is at 0xffffffffa1111111, beyond a 32-bit import slot");
	free(img);
}

static uint8_t *opt32(uint8_t *b) { return b + PB_OPT; }
static void m32_magic(uint8_t *b, size_t *s) { (void)s; pb_w16(opt32(b), 0x20b); }
static void m32_optsize(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_COFF + 16, 90); }
static void m32_ndirs(uint8_t *b, size_t *s) { (void)s; pb_w32(opt32(b) + 92, 17); }
static void m32_dirsize(uint8_t *b, size_t *s)
{
	/* 10 directories' room, 16 claimed; the section table moves up */
	(void)s;
	pb_w16(b + PB_COFF + 16, 96 + 8 * 10);
}
static void m32_base(uint8_t *b, size_t *s) { (void)s; pb_w32(opt32(b) + 28, 0x10800); }
static void m32_base_top(uint8_t *b, size_t *s)
{
	(void)s;
	pb_w32(opt32(b) + 28, 0xffff0000u);
	pb_w32(opt32(b) + 56, 0x14000);		/* size of image */
}
static void m32_rel_dir64(uint8_t *b, size_t *s) { (void)s; pb_w16(b + PB_RELOC_FILE(0x3008), 0xa010); }
static void m32_rel_edge(uint8_t *b, size_t *s)
{
	(void)s;
	pb_w32(b + PB_RELOC_FILE(0x3000), 0x3000);
	pb_w16(b + PB_RELOC_FILE(0x3008), 0x3ffe);
}
static void m32_rel_self(uint8_t *b, size_t *s)
{
	(void)s;
	pb_w32(b + PB_RELOC_FILE(0x3000), 0x3000);
	pb_w16(b + PB_RELOC_FILE(0x3008), 0x3008);
}
static void m32_ordinal(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2084), 0x80000007u); }
static void m32_symname_rva(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2080), 0x3ffe); }
static void m32_iat_out(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2010), 0x3ffe); }
static void m32_iat_desc(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2010), 0x2028); }
static void m32_iat_ilt(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2024), 0x2088); }
static void m32_iat_name(uint8_t *b, size_t *s) { (void)s; pb_w32(b + PB_RDATA_FILE(0x2024), 0x2180); }

static const struct bad bads32[] = {
	{ "PE32+ magic", m32_magic, CHECK_STAGE, -ENOEXEC,
	  "optional header magic 0x20b does not match machine i386 (0x014c), whose images are PE32 (0x10b)" },
	{ "PE32 opt header size", m32_optsize, CHECK_STAGE, -ENOEXEC,
	  "optional header size 90 too small for PE32 (at least 96)" },
	{ "PE32 17 dirs", m32_ndirs, CHECK_STAGE, -ENOEXEC, "17 data directories" },
	{ "PE32 dirs beyond header", m32_dirsize, CHECK_STAGE, -ENOEXEC,
	  "optional header size 176 too small for 16 data directories" },
	{ "PE32 base alignment", m32_base, CHECK_STAGE, -ENOEXEC,
	  "image base 0x10800 not 64K aligned" },
	{ "PE32 base near 4G", m32_base_top, CHECK_STAGE, -ENOEXEC,
	  "image base 0xffff0000 + size of image 0x14000 beyond 32-bit addresses" },
	{ "PE32 DIR64 reloc", m32_rel_dir64, RELOC_STAGE, -ENOEXEC,
	  "base relocation type 10 at RVA 0x1010 not supported (only HIGHLOW and ABSOLUTE in PE32)" },
	{ "PE32 reloc at edge", m32_rel_edge, RELOC_STAGE, -ENOEXEC,
	  "HIGHLOW relocation at RVA 0x3ffe beyond size of image 0x4000" },
	{ "PE32 reloc patches itself", m32_rel_self, RELOC_STAGE, -ENOEXEC,
	  "HIGHLOW relocation at RVA 0x3008 patches the relocation directory 0x3000+0xc" },
	{ "PE32 ordinal", m32_ordinal, IMPORT_STAGE, -EINVAL,
	  "ntoskrnl.exe: import by ordinal 7 is not supported" },
	{ "PE32 symbol name rva", m32_symname_rva, IMPORT_STAGE, -ENOEXEC,
	  "import 0 name at RVA 0x3ffe" },
	{ "PE32 IAT outside", m32_iat_out, IMPORT_STAGE, -ENOEXEC,
	  "ntoskrnl.exe: import address entry 0 at RVA 0x3ffe beyond" },
	{ "PE32 IAT over descriptors", m32_iat_desc, IMPORT_STAGE, -ENOEXEC,
	  "import descriptor 0 (ntoskrnl.exe): import address table 0x2028+0x8 overlaps the import descriptors 0x2000+0x3c" },
	{ "PE32 IAT over other ILT", m32_iat_ilt, IMPORT_STAGE, -ENOEXEC,
	  "import descriptor 1 (ndis.sys): import address table 0x2088+0x4 overlaps the import lookup table of descriptor 0 at RVA 0x2080" },
	{ "PE32 IAT over import name", m32_iat_name, IMPORT_STAGE, -ENOEXEC,
	  "import descriptor 1 (ndis.sys): import address table 0x2180+0x4 overlaps the name of import 1 of descriptor 0 at RVA 0x2180" },
};

static void test_malformed32(void)
{
	run_bads(bads32, sizeof(bads32) / sizeof(bads32[0]), pb_build32,
		 PE_MACHINE_I386, resolve32);
}

static void test_every_truncation32(void)
{
	struct pe_info info;
	size_t n;
	int accepted = 0;

	pb_build32(file);
	for (n = 0; n < sizeof(file); n++)
		if (pe_check_machine(file, n, PE_MACHINE_I386, &info, err,
				     sizeof(err)) == 0)
			accepted++;
	CHECK(accepted == 0);
	CHECK(pe_check_machine(file, sizeof(file), PE_MACHINE_I386, &info,
			       err, sizeof(err)) == 0);
}

/*
 * The i386 fixture drivers as i686 mingw-w64 links them ($NDISBENCH_FIXTURES
 * /i386/<d>/<d>.sys): loaded for i386, their imports are the undecorated
 * names (dlltool -k), every one resolved into a 32-bit slot; the x86_64
 * loader refuses them.
 */
static const char *fixtures;

struct names32 {
	unsigned int n, decorated;
};

static int check_name(void *ctx, const char *dll, const char *name)
{
	struct names32 *c = ctx;

	(void)dll;
	c->n++;
	if (strchr(name, '@') || name[0] == '_') {
		printf("#   decorated import %s:%s\n", dll, name);
		c->decorated++;
	}
	return 0;
}

static int resolve_any32(void *ctx, const char *dll, const char *name,
			 uint64_t *addr)
{
	(void)ctx;
	*addr = 0xe0000000u | (uint32_t)(strlen(dll) << 8) |
		(uint32_t)strlen(name);
	return 0;
}

static void test_i386_fixtures(void)
{
	static const char *const drivers[] = { "bcmwl", "rtlwl", "rtl8139nd" };
	size_t i;

	for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
		struct names32 c = { 0, 0 };
		struct pe_info info;
		char path[4096];
		uint8_t *data, *img;
		long size;
		FILE *f;

		snprintf(path, sizeof(path), "%s/i386/%s/%s.sys", fixtures,
			 drivers[i], drivers[i]);
		f = fopen(path, "rb");
		CHECK(f != NULL);
		if (!f) {
			printf("#   %s: missing\n", path);
			continue;
		}
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		rewind(f);
		data = malloc((size_t)size);
		CHECK(fread(data, 1, (size_t)size, f) == (size_t)size);
		fclose(f);
		CHECK(pe_check(data, (size_t)size, &info, err, sizeof(err)) == -ENOEXEC);
		CHECK_STR(err, "32-bit PE (i386) cannot run on x86_64");
		CHECK(pe_check_machine(data, (size_t)size, PE_MACHINE_I386,
				       &info, err, sizeof(err)) == 0);
		CHECK_STR(err, "");
		img = calloc(1, info.size_of_image);
		CHECK(pe_map(data, (size_t)size, &info, img, err, sizeof(err)) == 0);
		/* mingw links base relocations: HIGHLOW only */
		CHECK(info.dirs[PE_DIR_BASERELOC].size > 0);
		CHECK(pe_relocate(img, &info, BASE32, err, sizeof(err)) == 0);
		CHECK_STR(err, "");
		CHECK(pe_for_each_import(img, &info, check_name, &c, err,
					 sizeof(err)) == 0);
		CHECK(c.n > 20 && c.decorated == 0);
		CHECK(pe_resolve_imports(img, &info, resolve_any32, NULL, err,
					 sizeof(err)) == 0);
		CHECK_STR(err, "");
		free(img);
		free(data);
	}
}

int main(void)
{
	TEST(test_valid_image);
	TEST(test_same_base_and_small_err);
	TEST(test_unknown_symbol);
	TEST(test_all_unknown_symbols);
	TEST(test_no_relocations);
	TEST(test_iat_holds_names);
	TEST(test_map_mismatch);
	TEST(test_malformed);
	TEST(test_every_truncation);
	TEST(test_iat_over_dll_name_at_image_end);
	TEST(test_import_caps);
	TEST(test_valid_image32);
	TEST(test_arch_mismatch);
	TEST(test_pe32_wide_values);
	TEST(test_malformed32);
	TEST(test_every_truncation32);
	fixtures = getenv("NDISBENCH_FIXTURES");
	if (fixtures && *fixtures)
		TEST(test_i386_fixtures);
	else
		tap_skip("test_i386_fixtures",
			 "no fixture build (NDISBENCH_FIXTURES unset)");
	return tap_done();
}
