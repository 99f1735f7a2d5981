// SPDX-License-Identifier: GPL-2.0
#include "pe_build.h"

#include <string.h>

void pb_w16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void pb_w32(uint8_t *p, uint32_t v)
{
	pb_w16(p, (uint16_t)v);
	pb_w16(p + 2, (uint16_t)(v >> 16));
}

void pb_w64(uint8_t *p, uint64_t v)
{
	pb_w32(p, (uint32_t)v);
	pb_w32(p + 4, (uint32_t)(v >> 32));
}

uint32_t pb_r32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint64_t pb_r64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void section_at(uint8_t *s, const char *name, uint32_t va,
		       uint32_t vsize, uint32_t raw, uint32_t rawoff,
		       uint32_t ch)
{
	memcpy(s, name, strlen(name));
	pb_w32(s + 8, vsize);
	pb_w32(s + 12, va);
	pb_w32(s + 16, raw);
	pb_w32(s + 20, rawoff);
	pb_w32(s + 36, ch);
}

static void section(uint8_t *b, int i, const char *name, uint32_t va,
		    uint32_t vsize, uint32_t raw, uint32_t rawoff, uint32_t ch)
{
	section_at(b + PB_SEC(i), name, va, vsize, raw, rawoff, ch);
}

static void name_entry(uint8_t *b, uint32_t rva, const char *name)
{
	/* 16-bit hint, then the name */
	memcpy(b + PB_RDATA_FILE(rva) + 2, name, strlen(name) + 1);
}

void pb_build(uint8_t *b)
{
	uint8_t *o = b + PB_OPT, *c = b + PB_COFF, *d;

	memset(b, 0, PB_FILE_SIZE);
	b[0] = 'M';
	b[1] = 'Z';
	pb_w32(b + 0x3c, PB_NT);
	memcpy(b + PB_NT, "PE\0\0", 4);
	pb_w16(c, 0x8664);
	pb_w16(c + 2, 3);			/* sections */
	pb_w16(c + 16, PB_OPT_SIZE);
	pb_w16(c + 18, 0x0002 | 0x0020 | 0x2000); /* exec, large addr, DLL */

	pb_w16(o, 0x20b);
	pb_w32(o + 16, 0x1000);			/* entry */
	pb_w64(o + 24, PB_IMAGE_BASE);
	pb_w32(o + 32, 0x1000);			/* section alignment */
	pb_w32(o + 36, 0x200);			/* file alignment */
	pb_w32(o + 56, 0x4000);			/* size of image */
	pb_w32(o + 60, 0x200);			/* size of headers */
	pb_w16(o + 68, 1);			/* native */
	pb_w32(o + 108, 16);
	d = o + 112;
	pb_w32(d + 8 * 1, PB_IMPORT_RVA);	/* import */
	pb_w32(d + 8 * 1 + 4, 60);
	pb_w32(d + 8 * 5, PB_RELOC_RVA);	/* base reloc */
	pb_w32(d + 8 * 5 + 4, PB_RELOC_SIZE);
	pb_w32(d + 8 * 12, PB_IAT_RVA);		/* IAT */
	pb_w32(d + 8 * 12 + 4, 0x30);

	section(b, 0, ".text", 0x1000, 0x100, 0x200, 0x200, 0x60000020);
	section(b, 1, ".rdata", 0x2000, 0x200, 0x200, 0x400, 0x40000040);
	section(b, 2, ".reloc", 0x3000, PB_RELOC_SIZE, 0x200, 0x600, 0x42000040);

	/* .text: ret; and the absolute pointer */
	b[0x200] = 0xc3;
	pb_w64(b + 0x200 + (PB_PTR_RVA - 0x1000), PB_IMAGE_BASE + 0x2000);

	/* .rdata: descriptors at 0x2000 (2 + terminator), ILTs at 0x2080 and
	 * 0x20a0, IATs at 0x2100 and 0x2120, names from 0x2140 */
	d = b + PB_RDATA_FILE(0x2000);
	pb_w32(d + 0, 0x2080);
	pb_w32(d + 12, 0x2140);		/* "ntoskrnl.exe" */
	pb_w32(d + 16, PB_IAT_RVA);
	pb_w32(d + 20, 0x20a0);
	pb_w32(d + 32, 0x2150);		/* "ndis.sys" */
	pb_w32(d + 36, PB_IAT2_RVA);
	memcpy(b + PB_RDATA_FILE(0x2140), "ntoskrnl.exe", 13);
	memcpy(b + PB_RDATA_FILE(0x2150), "ndis.sys", 9);
	name_entry(b, 0x2160, "IoConnectInterrupt");
	name_entry(b, 0x2180, "KeBugCheckEx");
	name_entry(b, 0x21a0, "NdisMRegisterMiniport");
	pb_w64(b + PB_RDATA_FILE(0x2080), 0x2160);
	pb_w64(b + PB_RDATA_FILE(0x2088), 0x2180);
	pb_w64(b + PB_RDATA_FILE(0x20a0), 0x21a0);
	/* on disk the IAT repeats the lookup table */
	pb_w64(b + PB_RDATA_FILE(0x2100), 0x2160);
	pb_w64(b + PB_RDATA_FILE(0x2108), 0x2180);
	pb_w64(b + PB_RDATA_FILE(0x2120), 0x21a0);

	/* .reloc: page 0x1000, 12 bytes: DIR64 at 0x010, ABSOLUTE padding */
	d = b + PB_RELOC_FILE(0x3000);
	pb_w32(d, 0x1000);
	pb_w32(d + 4, PB_RELOC_SIZE);
	pb_w16(d + 8, (uint16_t)(0xa000 | (PB_PTR_RVA - 0x1000)));
	pb_w16(d + 10, 0);
}

void pb_build32(uint8_t *b)
{
	uint8_t *o = b + PB_OPT, *c = b + PB_COFF, *d;

	memset(b, 0, PB_FILE_SIZE);
	b[0] = 'M';
	b[1] = 'Z';
	pb_w32(b + 0x3c, PB_NT);
	memcpy(b + PB_NT, "PE\0\0", 4);
	pb_w16(c, 0x14c);
	pb_w16(c + 2, 3);			/* sections */
	pb_w16(c + 16, PB32_OPT_SIZE);
	pb_w16(c + 18, 0x0002 | 0x0100 | 0x2000); /* exec, 32-bit, DLL */

	pb_w16(o, 0x10b);
	pb_w32(o + 16, 0x1000);			/* entry */
	pb_w32(o + 28, (uint32_t)PB_IMAGE_BASE);
	pb_w32(o + 32, 0x1000);			/* section alignment */
	pb_w32(o + 36, 0x200);			/* file alignment */
	pb_w32(o + 56, 0x4000);			/* size of image */
	pb_w32(o + 60, 0x200);			/* size of headers */
	pb_w16(o + 68, 1);			/* native */
	pb_w32(o + 92, 16);
	pb_w32(b + PB32_DIR(1), PB_IMPORT_RVA);	/* import */
	pb_w32(b + PB32_DIR(1) + 4, 60);
	pb_w32(b + PB32_DIR(5), PB_RELOC_RVA);	/* base reloc */
	pb_w32(b + PB32_DIR(5) + 4, PB_RELOC_SIZE);
	pb_w32(b + PB32_DIR(12), PB_IAT_RVA);	/* IAT */
	pb_w32(b + PB32_DIR(12) + 4, 0x28);

	section_at(b + PB32_SEC(0), ".text", 0x1000, 0x100, 0x200, 0x200,
		   0x60000020);
	section_at(b + PB32_SEC(1), ".rdata", 0x2000, 0x200, 0x200, 0x400,
		   0x40000040);
	section_at(b + PB32_SEC(2), ".reloc", 0x3000, PB_RELOC_SIZE, 0x200,
		   0x600, 0x42000040);

	/* .text: ret; and the absolute 32-bit pointer */
	b[0x200] = 0xc3;
	pb_w32(b + 0x200 + (PB_PTR_RVA - 0x1000),
	       (uint32_t)PB_IMAGE_BASE + 0x2000);

	/* .rdata: as in pb_build, with 4-byte lookup and address entries */
	d = b + PB_RDATA_FILE(0x2000);
	pb_w32(d + 0, 0x2080);
	pb_w32(d + 12, 0x2140);		/* "ntoskrnl.exe" */
	pb_w32(d + 16, PB_IAT_RVA);
	pb_w32(d + 20, 0x20a0);
	pb_w32(d + 32, 0x2150);		/* "ndis.sys" */
	pb_w32(d + 36, PB_IAT2_RVA);
	memcpy(b + PB_RDATA_FILE(0x2140), "ntoskrnl.exe", 13);
	memcpy(b + PB_RDATA_FILE(0x2150), "ndis.sys", 9);
	name_entry(b, 0x2160, "IoConnectInterrupt");
	name_entry(b, 0x2180, "KeBugCheckEx");
	name_entry(b, 0x21a0, "NdisMRegisterMiniport");
	pb_w32(b + PB_RDATA_FILE(0x2080), 0x2160);
	pb_w32(b + PB_RDATA_FILE(0x2084), 0x2180);
	pb_w32(b + PB_RDATA_FILE(0x20a0), 0x21a0);
	pb_w32(b + PB_RDATA_FILE(0x2100), 0x2160);
	pb_w32(b + PB_RDATA_FILE(0x2104), 0x2180);
	pb_w32(b + PB_RDATA_FILE(0x2120), 0x21a0);

	/* .reloc: page 0x1000, 12 bytes: HIGHLOW at 0x010, ABSOLUTE padding */
	d = b + PB_RELOC_FILE(0x3000);
	pb_w32(d, 0x1000);
	pb_w32(d + 4, PB_RELOC_SIZE);
	pb_w16(d + 8, (uint16_t)(0x3000 | (PB_PTR_RVA - 0x1000)));
	pb_w16(d + 10, 0);
}
