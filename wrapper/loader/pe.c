// SPDX-License-Identifier: GPL-2.0
/*
 * PE loader for Windows NDIS drivers, PE32+ (x86_64) and PE32 (i386):
 * validation, mapping, base relocation and import resolution.  Compiles in
 * the kernel and on the host (see pe_compat.h).  All multi-byte fields are
 * read byte by byte as little endian, so unaligned or hostile input cannot
 * fault; every offset/size pair is checked against the file or image size
 * with overflow-safe arithmetic.
 *
 * Layout facts used here (Microsoft PE/COFF specification):
 *  - DOS header: "MZ" at 0, file offset of the NT headers at 0x3c.
 *  - NT headers: "PE\0\0", then the 20-byte COFF header (machine, number of
 *    sections, ..., size of optional header, characteristics), then the
 *    optional header.  PE32+ (x86_64) has magic 0x20b, a 64-bit image base
 *    at offset 24 and 112 bytes of fixed fields before the data directories
 *    (8 bytes each); PE32 (i386) has magic 0x10b, BaseOfData at 24, a
 *    32-bit image base at 28, 32-bit stack and heap sizes, so 96 bytes of
 *    fixed fields.  The fields up to 72 (alignments, sizes, subsystem)
 *    are at the same offsets in both.
 *  - Section table: 40-byte entries right after the optional header.
 *  - Import directory: 20-byte descriptors ending with an all-zero one; the
 *    lookup table holds pointer-sized entries (64-bit in PE32+, 32-bit in
 *    PE32), the top bit = import by ordinal, else the RVA of a 16-bit hint
 *    followed by the NUL-terminated name.  The import address table has
 *    the same entry size.  i386 import names are undecorated in the image
 *    ("NdisMRegisterMiniport", not "_NdisMRegisterMiniport@12"): the
 *    decoration is only in the import library's symbols.
 *  - Base relocations: blocks of (page RVA, block size incl. the 8-byte
 *    header) followed by 16-bit entries, type in the top 4 bits, page offset
 *    in the low 12: DIR64 (10, a 64-bit word) in PE32+, HIGHLOW (3, a
 *    32-bit word) in PE32.
 */
#include "pe.h"

#define PE_FAIL(code, ...) do {						\
		if (err && errlen)					\
			snprintf(err, errlen, __VA_ARGS__);		\
		return (code);						\
	} while (0)

/* COFF characteristics */
#define PE_FILE_RELOCS_STRIPPED		0x0001
#define PE_FILE_EXECUTABLE_IMAGE	0x0002

#define PE_OPT_MAGIC_PE32		0x10b
#define PE_OPT_MAGIC_PE32PLUS		0x20b
#define PE_OPT_FIXED_SIZE		112	/* PE32+ fields before dirs */
#define PE_OPT32_FIXED_SIZE		96	/* PE32 fields before dirs */
#define PE_COFF_SIZE			20
#define PE_SECTION_SIZE			40
#define PE_IMPORT_DESC_SIZE		20

#define PE_REL_BASED_ABSOLUTE		0
#define PE_REL_BASED_HIGHLOW		3
#define PE_REL_BASED_DIR64		10

static uint16_t pe_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t pe_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
	       ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t pe_rd64(const uint8_t *p)
{
	return (uint64_t)pe_rd32(p) | ((uint64_t)pe_rd32(p + 4) << 32);
}

static void pe_wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void pe_wr64(uint8_t *p, uint64_t v)
{
	pe_wr32(p, (uint32_t)v);
	pe_wr32(p + 4, (uint32_t)(v >> 32));
}

/* A pointer-sized word of the image (4 or 8 bytes). */
static uint64_t pe_rdptr(const uint8_t *p, uint32_t ptr_size)
{
	return ptr_size == 4 ? pe_rd32(p) : pe_rd64(p);
}

/* True when [off, off+len) lies inside [0, limit), without overflow. */
static int pe_in(uint64_t off, uint64_t len, uint64_t limit)
{
	return off <= limit && len <= limit - off;
}

static int pe_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* Section name as printable text (the 8-byte field need not end in NUL). */
static void pe_secname(const uint8_t *sh, char out[9])
{
	int i;

	for (i = 0; i < 8 && sh[i]; i++)
		out[i] = (sh[i] >= 0x20 && sh[i] < 0x7f) ? (char)sh[i] : '?';
	out[i] = '\0';
}

static const char *pe_machine_name(uint16_t m)
{
	switch (m) {
	case PE_MACHINE_AMD64:	return "x86_64";
	case PE_MACHINE_I386:	return "i386";
	case 0x0200:		return "IA-64";
	case 0x01c0:		return "ARM";
	case 0x01c4:		return "ARM Thumb-2";
	case 0xaa64:		return "ARM64";
	case 0x0ebc:		return "EFI byte code";
	default:		return "unknown";
	}
}

static const char *pe_subsystem_name(uint16_t s)
{
	switch (s) {
	case 0:		return "unknown";
	case 2:		return "Windows GUI";
	case 3:		return "Windows console";
	case 5:		return "OS/2 console";
	case 7:		return "POSIX console";
	case 8:		return "native Win9x driver";
	case 9:		return "Windows CE GUI";
	case 10:	return "EFI application";
	case 11:	return "EFI boot service driver";
	case 12:	return "EFI runtime driver";
	case 13:	return "EFI ROM";
	case 14:	return "Xbox";
	case 16:	return "Windows boot application";
	default:	return "other";
	}
}

static const char *pe_dir_name(unsigned int i)
{
	static const char *const names[PE_NUM_DIRS] = {
		"export", "import", "resource", "exception", "security",
		"base relocation", "debug", "architecture", "global pointer",
		"TLS", "load config", "bound import", "IAT", "delay import",
		"CLR runtime", "reserved",
	};
	return i < PE_NUM_DIRS ? names[i] : "?";
}

int pe_check(const void *file, size_t file_size, struct pe_info *info,
	     char *err, size_t errlen)
{
	return pe_check_machine(file, file_size, PE_MACHINE_NATIVE, info, err,
				errlen);
}

int pe_check_machine(const void *file, size_t file_size, uint16_t machine,
		     struct pe_info *info, char *err, size_t errlen)
{
	const uint8_t *f = file;
	const uint8_t *coff, *opt, *sh;
	uint32_t nt, opt_size, magic, i, hdr_end, prev_end = 0;
	uint32_t salign, falign, fixed, want_magic;
	char name[9];

	if (err && errlen)
		err[0] = '\0';
	if (!file || !info)
		PE_FAIL(-EINVAL, "no file");
	memset(info, 0, sizeof(*info));
	if (machine != PE_MACHINE_AMD64 && machine != PE_MACHINE_I386)
		PE_FAIL(-EINVAL,
			"no PE loader for machine 0x%04x (only x86_64 and i386)",
			machine);
	/* PE32+ for x86_64, PE32 for i386 */
	want_magic = machine == PE_MACHINE_I386 ? PE_OPT_MAGIC_PE32 :
						  PE_OPT_MAGIC_PE32PLUS;
	fixed = machine == PE_MACHINE_I386 ? PE_OPT32_FIXED_SIZE :
					     PE_OPT_FIXED_SIZE;
	info->ptr_size = machine == PE_MACHINE_I386 ? 4 : 8;

	if (file_size > PE_MAX_FILE_SIZE)
		PE_FAIL(-EFBIG, "file too large (%zu bytes, at most %u)",
			file_size, PE_MAX_FILE_SIZE);
	if (file_size < 0x40)
		PE_FAIL(-ENOEXEC, "file too small (%zu bytes) for a DOS header",
			file_size);
	if (f[0] != 'M' || f[1] != 'Z')
		PE_FAIL(-ENOEXEC, "not a PE file: no 'MZ' signature");
	nt = pe_rd32(f + 0x3c);
	if (!pe_in(nt, 4 + PE_COFF_SIZE, file_size))
		PE_FAIL(-ENOEXEC,
			"truncated: NT headers at 0x%x beyond file size 0x%zx",
			nt, file_size);
	if (f[nt] != 'P' || f[nt + 1] != 'E' || f[nt + 2] || f[nt + 3])
		PE_FAIL(-ENOEXEC,
			"not a PE file: no 'PE\\0\\0' signature at 0x%x (MS-DOS or NE/LE executable?)",
			nt);
	coff = f + nt + 4;
	info->nt_offset = nt;
	info->machine = pe_rd16(coff);
	info->num_sections = pe_rd16(coff + 2);
	opt_size = pe_rd16(coff + 16);
	info->characteristics = pe_rd16(coff + 18);
	info->opt_offset = nt + 4 + PE_COFF_SIZE;

	/* the driver's architecture against the wrapper's */
	if (info->machine == PE_MACHINE_I386 && machine == PE_MACHINE_AMD64)
		PE_FAIL(-ENOEXEC, "32-bit PE (i386) cannot run on x86_64");
	if (info->machine == PE_MACHINE_AMD64 && machine == PE_MACHINE_I386)
		PE_FAIL(-ENOEXEC, "64-bit PE (x86_64) cannot run on i386");
	if (info->machine != machine)
		PE_FAIL(-ENOEXEC,
			"machine 0x%04x (%s) is not %s (0x%04x)",
			info->machine, pe_machine_name(info->machine),
			pe_machine_name(machine), machine);
	if (!(info->characteristics & PE_FILE_EXECUTABLE_IMAGE))
		PE_FAIL(-ENOEXEC,
			"not an executable image (COFF characteristics 0x%04x lack EXECUTABLE_IMAGE): an object file?",
			info->characteristics);
	if (opt_size < 2 || !pe_in(info->opt_offset, opt_size, file_size))
		PE_FAIL(-ENOEXEC,
			"truncated: optional header 0x%x+0x%x beyond file size 0x%zx",
			info->opt_offset, opt_size, file_size);
	opt = f + info->opt_offset;
	magic = pe_rd16(opt);
	if (magic != want_magic)
		PE_FAIL(-ENOEXEC,
			"optional header magic 0x%x does not match machine %s (0x%04x), whose images are %s (0x%x)",
			magic, pe_machine_name(machine), machine,
			want_magic == PE_OPT_MAGIC_PE32 ? "PE32" : "PE32+",
			want_magic);
	if (opt_size < fixed)
		PE_FAIL(-ENOEXEC,
			"optional header size %u too small for %s (at least %u)",
			opt_size, fixed == PE_OPT_FIXED_SIZE ? "PE32+" : "PE32",
			fixed);

	info->entry_rva = pe_rd32(opt + 16);
	info->image_base = machine == PE_MACHINE_I386 ? pe_rd32(opt + 28) :
							pe_rd64(opt + 24);
	salign = info->section_alignment = pe_rd32(opt + 32);
	falign = info->file_alignment = pe_rd32(opt + 36);
	info->size_of_image = pe_rd32(opt + 56);
	info->size_of_headers = pe_rd32(opt + 60);
	info->subsystem = pe_rd16(opt + 68);
	info->dll_characteristics = pe_rd16(opt + 70);
	info->num_dirs = pe_rd32(opt + fixed - 4);

	if (info->subsystem != PE_SUBSYSTEM_NATIVE)
		PE_FAIL(-ENOEXEC,
			"subsystem %u (%s) is not native (1): not a kernel-mode driver",
			info->subsystem, pe_subsystem_name(info->subsystem));
	if (info->num_dirs > PE_NUM_DIRS)
		PE_FAIL(-ENOEXEC, "%u data directories (at most %u)",
			info->num_dirs, PE_NUM_DIRS);
	if (opt_size < fixed + 8 * info->num_dirs)
		PE_FAIL(-ENOEXEC,
			"optional header size %u too small for %u data directories",
			opt_size, info->num_dirs);
	if (!pe_pow2(salign) || !pe_pow2(falign) || falign < 512 ||
	    falign > 65536 || salign < falign || salign > (2u << 20))
		PE_FAIL(-ENOEXEC,
			"bad alignment: section 0x%x, file 0x%x (powers of two, file 512..64K, section >= file)",
			salign, falign);
	if (info->image_base & 0xffff)
		PE_FAIL(-ENOEXEC, "image base 0x%llx not 64K aligned",
			(unsigned long long)info->image_base);
	if (info->size_of_image == 0 || info->size_of_image > PE_MAX_IMAGE_SIZE)
		PE_FAIL(-EFBIG, "size of image 0x%x out of range (1..0x%x)",
			info->size_of_image, PE_MAX_IMAGE_SIZE);
	if (info->ptr_size == 4 &&
	    info->image_base + info->size_of_image > 0x100000000ull)
		PE_FAIL(-ENOEXEC,
			"image base 0x%llx + size of image 0x%x beyond 32-bit addresses",
			(unsigned long long)info->image_base,
			info->size_of_image);
	if (info->num_sections == 0 || info->num_sections > PE_MAX_SECTIONS)
		PE_FAIL(-ENOEXEC, "%u sections (1..%u allowed)",
			info->num_sections, PE_MAX_SECTIONS);

	info->sections_offset = info->opt_offset + opt_size;
	hdr_end = info->sections_offset +
		  (uint32_t)info->num_sections * PE_SECTION_SIZE;
	if (hdr_end > file_size)
		PE_FAIL(-ENOEXEC,
			"truncated: section table 0x%x..0x%x beyond file size 0x%zx",
			info->sections_offset, hdr_end, file_size);
	if (info->size_of_headers < hdr_end ||
	    info->size_of_headers > file_size ||
	    info->size_of_headers > info->size_of_image)
		PE_FAIL(-ENOEXEC,
			"size of headers 0x%x out of range (headers end at 0x%x, file 0x%zx, image 0x%x)",
			info->size_of_headers, hdr_end, file_size,
			info->size_of_image);
	prev_end = (info->size_of_headers + salign - 1) & ~(salign - 1);

	for (i = 0; i < info->num_sections; i++) {
		uint32_t va, vsize, raw, rawoff, span;

		sh = f + info->sections_offset + i * PE_SECTION_SIZE;
		pe_secname(sh, name);
		vsize = pe_rd32(sh + 8);
		va = pe_rd32(sh + 12);
		raw = pe_rd32(sh + 16);
		rawoff = pe_rd32(sh + 20);
		span = vsize ? vsize : raw;
		if (va & (salign - 1))
			PE_FAIL(-ENOEXEC,
				"section %u (%s) address 0x%x not aligned to 0x%x",
				i, name, va, salign);
		if (va < prev_end)
			PE_FAIL(-ENOEXEC,
				"section %u (%s) at 0x%x overlaps the %s ending at 0x%x",
				i, name, va, i ? "previous section" : "headers",
				prev_end);
		if (!pe_in(va, span, info->size_of_image))
			PE_FAIL(-ENOEXEC,
				"section %u (%s) 0x%x+0x%x beyond size of image 0x%x",
				i, name, va, span, info->size_of_image);
		if (raw && !pe_in(rawoff, raw, file_size))
			PE_FAIL(-ENOEXEC,
				"section %u (%s) raw data 0x%x+0x%x beyond file size 0x%zx",
				i, name, rawoff, raw, file_size);
		/* next section must start at or after this one's aligned end */
		/* no overflow: va + span <= size of image <= 64 MiB */
		prev_end = (va + span + salign - 1) & ~(salign - 1);
	}

	for (i = 0; i < info->num_dirs; i++) {
		const uint8_t *d = opt + fixed + 8 * i;
		uint32_t rva = pe_rd32(d), size = pe_rd32(d + 4);

		if (!rva && !size)
			continue;
		info->dirs[i].rva = rva;
		info->dirs[i].size = size;
		if (i == PE_DIR_SECURITY)	/* file offset, not mapped */
			continue;
		if (!rva || !pe_in(rva, size, info->size_of_image))
			PE_FAIL(-ENOEXEC,
				"%s directory 0x%x+0x%x outside the image (size 0x%x)",
				pe_dir_name(i), rva, size, info->size_of_image);
	}

	if (!info->entry_rva || info->entry_rva >= info->size_of_image)
		PE_FAIL(-ENOEXEC,
			"entry point RVA 0x%x outside the image (size 0x%x)",
			info->entry_rva, info->size_of_image);
	/*
	 * A driver is always loaded away from its preferred base.  The linker
	 * says "cannot move" with RELOCS_STRIPPED; an image without that flag
	 * and without a relocation directory has nothing to fix up (no
	 * absolute addresses: tiny mingw drivers look like that).
	 */
	if (info->characteristics & PE_FILE_RELOCS_STRIPPED)
		PE_FAIL(-ENOEXEC,
			"relocations stripped (RELOCS_STRIPPED set): the driver cannot be loaded away from its base 0x%llx",
			(unsigned long long)info->image_base);
	if (info->dirs[PE_DIR_IMPORT].size &&
	    info->dirs[PE_DIR_IMPORT].size < PE_IMPORT_DESC_SIZE)
		PE_FAIL(-ENOEXEC, "import directory size %u smaller than one descriptor",
			info->dirs[PE_DIR_IMPORT].size);
	return 0;
}

int pe_map(const void *file, size_t file_size, const struct pe_info *info,
	   void *image, char *err, size_t errlen)
{
	const uint8_t *f = file;
	uint8_t *img = image;
	struct pe_info chk;
	uint32_t i;
	int rc;

	if (!info || !image)
		PE_FAIL(-EINVAL, "no image buffer");
	/* Re-validate: the caller's info must describe this very file. */
	rc = pe_check_machine(file, file_size, info->machine, &chk, err,
			      errlen);
	if (rc)
		return rc;
	if (chk.size_of_image != info->size_of_image ||
	    chk.sections_offset != info->sections_offset ||
	    chk.num_sections != info->num_sections)
		PE_FAIL(-EINVAL, "pe_info does not describe this file");

	memcpy(img, f, chk.size_of_headers);
	for (i = 0; i < chk.num_sections; i++) {
		const uint8_t *sh = f + chk.sections_offset + i * PE_SECTION_SIZE;
		uint32_t vsize = pe_rd32(sh + 8), va = pe_rd32(sh + 12);
		uint32_t raw = pe_rd32(sh + 16), rawoff = pe_rd32(sh + 20);
		uint32_t n = raw;

		if (vsize && vsize < n)
			n = vsize;	/* the rest is file alignment padding */
		if (!n)
			continue;	/* uninitialised data: stays zero */
		/* checked by pe_check; kept as a last guard */
		if (!pe_in(va, n, chk.size_of_image) ||
		    !pe_in(rawoff, n, file_size))
			PE_FAIL(-ENOEXEC, "section %u out of bounds", i);
		memcpy(img + va, f + rawoff, n);
	}
	return 0;
}

int pe_relocate(void *image, const struct pe_info *info, uint64_t base,
		char *err, size_t errlen)
{
	uint8_t *img = image;
	uint32_t rva, size, off, pass, word, want;
	uint64_t delta;
	const char *tname;

	if (err && errlen)
		err[0] = '\0';
	if (!image || !info)
		PE_FAIL(-EINVAL, "no image");
	rva = info->dirs[PE_DIR_BASERELOC].rva;
	size = info->dirs[PE_DIR_BASERELOC].size;
	/* PE32+: 64-bit words (DIR64); PE32: 32-bit words (HIGHLOW) */
	word = info->ptr_size == 4 ? 4 : 8;
	want = word == 4 ? PE_REL_BASED_HIGHLOW : PE_REL_BASED_DIR64;
	tname = word == 4 ? "HIGHLOW" : "DIR64";
	if (word == 4 && (base > 0xffffffffull ||
			  base + info->size_of_image > 0x100000000ull))
		PE_FAIL(-ERANGE,
			"a PE32 image cannot live at 0x%llx (size 0x%x): beyond 32-bit addresses",
			(unsigned long long)base, info->size_of_image);
	delta = base - info->image_base;
	if (info->characteristics & PE_FILE_RELOCS_STRIPPED && delta)
		PE_FAIL(-ENOEXEC,
			"relocations stripped, but the image moves from 0x%llx to 0x%llx",
			(unsigned long long)info->image_base,
			(unsigned long long)base);
	/* size 0: nothing to fix up, the loops below do nothing */
	if (!pe_in(rva, size, info->size_of_image))
		PE_FAIL(-ENOEXEC,
			"base relocation directory 0x%x+0x%x outside the image (size 0x%x)",
			rva, size, info->size_of_image);

	/* pass 0 validates everything, pass 1 applies */
	for (pass = 0; pass < 2; pass++) {
		for (off = 0; off < size; ) {
			const uint8_t *blk = img + rva + off;
			uint32_t page, bsize, n, j;

			if (size - off < 8)
				PE_FAIL(-ENOEXEC,
					"base relocation block at directory offset 0x%x truncated (%u bytes left)",
					off, size - off);
			page = pe_rd32(blk);
			bsize = pe_rd32(blk + 4);
			if (bsize < 8 || (bsize & 1) || bsize > size - off)
				PE_FAIL(-ENOEXEC,
					"base relocation block at directory offset 0x%x: bad size %u (8..%u, even)",
					off, bsize, size - off);
			if (page >= info->size_of_image)
				PE_FAIL(-ENOEXEC,
					"base relocation block at directory offset 0x%x: page RVA 0x%x beyond size of image 0x%x",
					off, page, info->size_of_image);
			n = (bsize - 8) / 2;
			for (j = 0; j < n; j++) {
				uint16_t e = pe_rd16(blk + 8 + 2 * j);
				uint32_t type = e >> 12;
				uint32_t target = page + (e & 0xfff);

				if (type == PE_REL_BASED_ABSOLUTE)
					continue;	/* padding */
				if (type != want)
					PE_FAIL(-ENOEXEC,
						"base relocation type %u at RVA 0x%x not supported (only %s and ABSOLUTE in %s)",
						type, target, tname,
						word == 4 ? "PE32" : "PE32+");
				if (!pe_in(target, word, info->size_of_image))
					PE_FAIL(-ENOEXEC,
						"%s relocation at RVA 0x%x beyond size of image 0x%x",
						tname, target, info->size_of_image);
				/* a fixup must not rewrite the table being
				 * applied (validated once, applied once) */
				if (target < rva + size && target + word > rva)
					PE_FAIL(-ENOEXEC,
						"%s relocation at RVA 0x%x patches the relocation directory 0x%x+0x%x",
						tname, target, rva, size);
				if (pass && word == 4)
					pe_wr32(img + target,
						pe_rd32(img + target) +
						(uint32_t)delta);
				else if (pass)
					pe_wr64(img + target,
						pe_rd64(img + target) + delta);
			}
			off += bsize;
		}
	}
	/* Record where the image now lives, as the Windows loader does. */
	if (pe_in(info->opt_offset, 32, info->size_of_image) &&
	    info->opt_offset + 32 <= info->size_of_headers) {
		if (word == 4)
			pe_wr32(img + info->opt_offset + 28, (uint32_t)base);
		else
			pe_wr64(img + info->opt_offset + 24, base);
	}
	return 0;
}

/*
 * Length of the NUL-terminated printable name at rva, at most
 * PE_MAX_SYMBOL_NAME-1 characters, inside the image; 0 if there is none.
 */
static uint32_t pe_name_len(const uint8_t *img, uint32_t size_of_image,
			    uint32_t rva)
{
	uint32_t i;

	if (!rva || rva >= size_of_image)
		return 0;
	for (i = 0; i < PE_MAX_SYMBOL_NAME && rva + i < size_of_image; i++) {
		uint8_t c = img[rva + i];

		if (!c)
			return i;
		if (c < 0x20 || c >= 0x7f)
			return 0;
	}
	return 0;
}

/* True when [a, a+alen) and [b, b+blen) share a byte. */
static int pe_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

typedef int (*pe_import_cb)(void *c, const char *dll, const char *name,
			    uint32_t iat_rva);

struct pe_idesc {
	uint32_t ilt;		/* lookup table: the IAT itself for old linkers */
	uint32_t name;		/* DLL name */
	uint32_t iat;
};

/* Descriptor d of the import directory at dir (inside the image). */
static void pe_idesc_at(const uint8_t *img, uint32_t dir, uint32_t d,
			struct pe_idesc *id)
{
	const uint8_t *desc = img + dir + d * PE_IMPORT_DESC_SIZE;

	id->ilt = pe_rd32(desc);
	id->name = pe_rd32(desc + 12);
	id->iat = pe_rd32(desc + 16);
	if (!id->ilt)
		id->ilt = id->iat;
}

/* Entries (ps bytes each) before the zero that ends a validated lookup
 * table. */
static uint32_t pe_ilt_count(const uint8_t *img, uint32_t soi, uint32_t ilt,
			     uint32_t ps)
{
	uint32_t j = 0;

	while (pe_in(ilt + (uint64_t)j * ps, ps, soi) &&
	       pe_rdptr(img + ilt + (uint64_t)j * ps, ps))
		j++;
	return j;
}

/*
 * Validates every lookup entry of descriptor d and counts them (*count),
 * refusing more than max; with cb, calls it for each import.
 */
static int pe_walk_desc(const uint8_t *img, uint32_t soi, uint32_t ps,
			uint32_t d, const struct pe_idesc *id, const char *dll,
			uint32_t max, pe_import_cb cb, void *c,
			uint32_t *count, char *err, size_t errlen)
{
	/* the ordinal flag is the top bit of the entry */
	uint32_t j, ord_shift = ps * 8 - 1;
	int rc;

	for (j = 0; ; j++) {
		uint64_t ent, ilt_at = id->ilt + (uint64_t)j * ps;
		uint64_t iat_at = id->iat + (uint64_t)j * ps;
		uint32_t hint_rva;

		if (!pe_in(ilt_at, ps, soi))
			PE_FAIL(-ENOEXEC,
				"%s: import lookup entry %u at RVA 0x%llx beyond size of image 0x%x",
				dll, j, (unsigned long long)ilt_at, soi);
		ent = pe_rdptr(img + ilt_at, ps);
		if (!ent)
			break;
		if (j >= max)
			PE_FAIL(-E2BIG,
				"import descriptor %u (%s): more than %u imports in all",
				d, dll, PE_MAX_IMPORTS);
		if (!pe_in(iat_at, ps, soi))
			PE_FAIL(-ENOEXEC,
				"%s: import address entry %u at RVA 0x%llx beyond size of image 0x%x",
				dll, j, (unsigned long long)iat_at, soi);
		if (ent >> ord_shift)
			PE_FAIL(-EINVAL,
				"%s: import by ordinal %u is not supported (only imports by name can be resolved)",
				dll, (unsigned int)(ent & 0xffff));
		if (ent >> 31)
			PE_FAIL(-ENOEXEC,
				"%s: import lookup entry %u has reserved bits set (0x%llx)",
				dll, j, (unsigned long long)ent);
		hint_rva = (uint32_t)ent;	/* < 2^31: hint_rva + 2 fits */
		if (!pe_name_len(img, soi, hint_rva + 2))
			PE_FAIL(-ENOEXEC,
				"%s: import %u name at RVA 0x%x missing, unterminated or not printable",
				dll, j, hint_rva);
		if (cb) {
			cond_resched();
			rc = cb(c, dll, (const char *)img + hint_rva + 2,
				(uint32_t)iat_at);
			if (rc)
				return rc;
		}
	}
	*count = j;
	return 0;
}

/*
 * The IAT of descriptor d must not overlap anything the walk reads: the
 * descriptors, a DLL name, a lookup table, an import name. A slot written
 * there would change it under the walk (an address has no NUL byte: a name
 * written over would run on past the image).
 */
static int pe_check_iat(const uint8_t *img, uint32_t soi, uint32_t ps,
			uint32_t dir, uint32_t ndesc, uint32_t d,
			char *err, size_t errlen)
{
	uint32_t dsize = (ndesc + 1) * PE_IMPORT_DESC_SIZE;
	struct pe_idesc id, o;
	uint32_t len, e, j, n;
	const char *dll;

	pe_idesc_at(img, dir, d, &id);
	dll = (const char *)img + id.name;
	len = ps * pe_ilt_count(img, soi, id.ilt, ps);
	if (pe_overlap(id.iat, len, dir, dsize))
		PE_FAIL(-ENOEXEC,
			"import descriptor %u (%s): import address table 0x%x+0x%x overlaps the import descriptors 0x%x+0x%x",
			d, dll, id.iat, len, dir, dsize);
	for (e = 0; e < ndesc; e++) {
		pe_idesc_at(img, dir, e, &o);
		n = pe_ilt_count(img, soi, o.ilt, ps);
		if (pe_overlap(id.iat, len, o.name,
			       pe_name_len(img, soi, o.name) + 1))
			PE_FAIL(-ENOEXEC,
				"import descriptor %u (%s): import address table 0x%x+0x%x overlaps the DLL name of descriptor %u at RVA 0x%x",
				d, dll, id.iat, len, e, o.name);
		/*
		 * An IAT that is its own lookup table: each entry is read
		 * before it is written.
		 */
		if (!(e == d && o.ilt == id.iat) &&
		    pe_overlap(id.iat, len, o.ilt, ps * ((uint64_t)n + 1)))
			PE_FAIL(-ENOEXEC,
				"import descriptor %u (%s): import address table 0x%x+0x%x overlaps the import lookup table of descriptor %u at RVA 0x%x",
				d, dll, id.iat, len, e, o.ilt);
		for (j = 0; j < n; j++) {
			uint32_t name = (uint32_t)pe_rdptr(img + o.ilt + ps * j,
							   ps) + 2;

			/* cheap test first: a name is shorter than this */
			if (!pe_overlap(id.iat, len, name, PE_MAX_SYMBOL_NAME))
				continue;
			if (pe_overlap(id.iat, len, name,
				       pe_name_len(img, soi, name) + 1))
				PE_FAIL(-ENOEXEC,
					"import descriptor %u (%s): import address table 0x%x+0x%x overlaps the name of import %u of descriptor %u at RVA 0x%x",
					d, dll, id.iat, len, j, e, name - 2);
		}
	}
	return 0;
}

/*
 * Three walks: validate every descriptor and entry, refuse IATs over what
 * is read, then call cb for each import. cb may write the IAT: nothing it
 * writes is read again, and each DLL name is passed as a copy.
 */
static int pe_walk_imports(const uint8_t *img, const struct pe_info *info,
			   pe_import_cb cb, void *c, char *err, size_t errlen)
{
	char dll[PE_MAX_SYMBOL_NAME];
	uint32_t dir, soi, d, ndesc, n, len, total = 0;
	struct pe_idesc id;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!img || !info)
		PE_FAIL(-EINVAL, "no image");
	dir = info->dirs[PE_DIR_IMPORT].rva;
	soi = info->size_of_image;
	if (!info->dirs[PE_DIR_IMPORT].size)
		return 0;
	for (d = 0; ; d++) {
		if (!pe_in(dir + (uint64_t)d * PE_IMPORT_DESC_SIZE,
			   PE_IMPORT_DESC_SIZE, soi))
			PE_FAIL(-ENOEXEC,
				"import descriptor %u at RVA 0x%llx beyond size of image 0x%x (no terminating entry)",
				d, (unsigned long long)dir +
				(uint64_t)d * PE_IMPORT_DESC_SIZE, soi);
		pe_idesc_at(img, dir, d, &id);
		if (!id.ilt && !id.name && !id.iat)
			break;			/* terminator */
		if (d >= PE_MAX_IMPORT_DLLS)
			PE_FAIL(-E2BIG, "more than %u import descriptors",
				PE_MAX_IMPORT_DLLS);
		if (!pe_name_len(img, soi, id.name))
			PE_FAIL(-ENOEXEC,
				"import descriptor %u: DLL name at RVA 0x%x missing, unterminated or not printable",
				d, id.name);
		if (!id.iat)
			PE_FAIL(-ENOEXEC,
				"import descriptor %u (%s): no import address table",
				d, (const char *)img + id.name);
		rc = pe_walk_desc(img, soi, info->ptr_size, d, &id,
				  (const char *)img + id.name,
				  PE_MAX_IMPORTS - total, NULL, NULL, &n,
				  err, errlen);
		if (rc)
			return rc;
		total += n;
	}
	ndesc = d;
	for (d = 0; d < ndesc; d++) {
		cond_resched();
		rc = pe_check_iat(img, soi, info->ptr_size, dir, ndesc, d,
				  err, errlen);
		if (rc)
			return rc;
	}
	for (d = 0; d < ndesc; d++) {
		pe_idesc_at(img, dir, d, &id);
		len = pe_name_len(img, soi, id.name);
		memcpy(dll, img + id.name, len);
		dll[len] = '\0';
		rc = pe_walk_desc(img, soi, info->ptr_size, d, &id, dll,
				  PE_MAX_IMPORTS, cb, c, &n, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

struct pe_each_ctx {
	int (*fn)(void *ctx, const char *dll, const char *name);
	void *ctx;
};

static int pe_each_cb(void *c, const char *dll, const char *name,
		      uint32_t iat_rva)
{
	struct pe_each_ctx *e = c;

	(void)iat_rva;
	return e->fn(e->ctx, dll, name);
}

int pe_for_each_import(const void *image, const struct pe_info *info,
		       int (*fn)(void *ctx, const char *dll, const char *name),
		       void *ctx, char *err, size_t errlen)
{
	struct pe_each_ctx e;

	e.fn = fn;
	e.ctx = ctx;
	if (!fn)
		PE_FAIL(-EINVAL, "no callback");
	return pe_walk_imports(image, info, pe_each_cb, &e, err, errlen);
}

struct pe_resolve_ctx {
	uint8_t *img;
	uint32_t ptr_size;	/* of an IAT slot */
	pe_resolve_fn resolve;
	void *ctx;
	char *err;
	size_t errlen;
	unsigned int missing;	/* names the resolver does not know */
	size_t pos;		/* listing them: where the next goes in err */
};

/*
 * An unknown name does not stop the walk: every one is counted, and the
 * error lists them all (a second walk), so one failed load shows all the
 * wrapper lacks for that driver.
 */
static int pe_resolve_cb(void *c, const char *dll, const char *name,
			 uint32_t iat_rva)
{
	struct pe_resolve_ctx *r = c;
	char *err = r->err;
	size_t errlen = r->errlen;
	uint64_t addr = 0;
	int rc;

	rc = r->resolve(r->ctx, dll, name, &addr);
	if (rc == -ENOENT) {
		r->missing++;
		return 0;
	}
	if (rc)
		PE_FAIL(rc < 0 ? rc : -EINVAL,
			"resolving %s:'%s' failed (error %d)", dll, name, rc);
	if (r->ptr_size == 4) {
		if (addr >> 32)
			PE_FAIL(-ERANGE,
				"%s:'%s' is at 0x%llx, beyond a 32-bit import slot",
				dll, name, (unsigned long long)addr);
		pe_wr32(r->img + iat_rva, (uint32_t)addr);
	} else {
		pe_wr64(r->img + iat_rva, addr);
	}
	return 0;
}

/* Appends to the error; if it does not fit, it ends with "..." where cut. */
static void pe_append(struct pe_resolve_ctx *r, const char *str)
{
	static const char cut[] = "...";
	size_t n = strlen(str);

	if (r->pos >= r->errlen)
		return;
	if (n < r->errlen - r->pos) {
		memcpy(r->err + r->pos, str, n + 1);
		r->pos += n;
		return;
	}
	memcpy(r->err + r->pos, str, r->errlen - r->pos - 1);
	r->err[r->errlen - 1] = '\0';
	r->pos = r->errlen;
	if (r->errlen > sizeof(cut))
		memcpy(r->err + r->errlen - sizeof(cut), cut, sizeof(cut));
}

static int pe_list_missing_cb(void *c, const char *dll, const char *name,
			      uint32_t iat_rva)
{
	struct pe_resolve_ctx *r = c;
	uint64_t addr = 0;

	(void)iat_rva;
	if (r->resolve(r->ctx, dll, name, &addr) != -ENOENT)
		return 0;
	pe_append(r, " ");
	pe_append(r, dll);
	pe_append(r, ":'");
	pe_append(r, name);
	pe_append(r, "'");
	return 0;
}

int pe_resolve_imports(void *image, const struct pe_info *info,
		       pe_resolve_fn resolve, void *ctx,
		       char *err, size_t errlen)
{
	struct pe_resolve_ctx r;
	int rc;

	r.img = image;
	r.ptr_size = info ? info->ptr_size : 8;
	r.resolve = resolve;
	r.ctx = ctx;
	r.err = err;
	r.errlen = errlen;
	r.missing = 0;
	r.pos = 0;
	if (!resolve)
		PE_FAIL(-EINVAL, "no resolver");
	rc = pe_walk_imports(image, info, pe_resolve_cb, &r, err, errlen);
	if (rc || !r.missing)
		return rc;
	if (!err || !errlen)
		return -ENOENT;
	if (r.missing == 1) {
		pe_append(&r, "unknown symbol:");
	} else {
		char head[32];

		snprintf(head, sizeof(head), "%u unknown symbols:", r.missing);
		pe_append(&r, head);
	}
	pe_walk_imports(image, info, pe_list_missing_cb, &r, NULL, 0);
	return -ENOENT;
}
