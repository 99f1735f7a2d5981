/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Builds a tiny, valid PE32+ native driver image in memory, laid out as a
 * mingw-w64 driver would be, for the unit tests and the fuzz seeds:
 *   headers   file 0x000, RVA 0x0000, 0x200 bytes
 *   .text     file 0x200, RVA 0x1000: code; a 64-bit pointer at RVA 0x1010
 *             to image_base + 0x2000 (DIR64 relocated)
 *   .rdata    file 0x400, RVA 0x2000: imports of ntoskrnl.exe (IoConnectInterrupt,
 *             KeBugCheckEx) and ndis.sys (NdisMRegisterMiniport)
 *   .reloc    file 0x600, RVA 0x3000: one block, DIR64 at 0x1010 + padding
 *   size of image 0x4000, file size 0x800, image base 0x10000
 */
#ifndef NDIS_PE_BUILD_H
#define NDIS_PE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#define PB_FILE_SIZE	0x800
#define PB_NT		0x80		/* e_lfanew */
#define PB_COFF		(PB_NT + 4)
#define PB_OPT		(PB_COFF + 20)
#define PB_OPT_SIZE	(112 + 16 * 8)
#define PB_SECTIONS	(PB_OPT + PB_OPT_SIZE)
#define PB_SEC(i)	(PB_SECTIONS + 40 * (i))
#define PB_IMAGE_BASE	0x10000ull
#define PB_PTR_RVA	0x1010
#define PB_IMPORT_RVA	0x2000
#define PB_IAT_RVA	0x2100		/* ntoskrnl IAT: 2 entries + 0 */
#define PB_IAT2_RVA	0x2120		/* ndis IAT: 1 entry + 0 */
#define PB_RELOC_RVA	0x3000
#define PB_RELOC_SIZE	12
/* file offsets of RVAs inside .rdata/.reloc */
#define PB_RDATA_FILE(rva)	((rva) - 0x2000 + 0x400)
#define PB_RELOC_FILE(rva)	((rva) - 0x3000 + 0x600)

void pb_build(uint8_t *buf);	/* PB_FILE_SIZE bytes */

/*
 * The same driver as PE32 (i386), as i686 mingw-w64 links it: machine
 * 0x14c, optional header magic 0x10b with its 96 bytes of fixed fields and
 * a 32-bit image base at offset 28, 32-bit import lookup and address
 * entries (same RVAs: the tables are simply shorter), and a HIGHLOW (type
 * 3) relocation of the 32-bit pointer at RVA 0x1010. Same file size and
 * section RVAs; the section table starts 16 bytes earlier.
 */
#define PB32_OPT_SIZE	(96 + 16 * 8)
#define PB32_SECTIONS	(PB_OPT + PB32_OPT_SIZE)
#define PB32_SEC(i)	(PB32_SECTIONS + 40 * (i))
#define PB32_DIR(i)	(PB_OPT + 96 + 8 * (i))
void pb_build32(uint8_t *buf);	/* PB_FILE_SIZE bytes */
void pb_w16(uint8_t *p, uint16_t v);
void pb_w32(uint8_t *p, uint32_t v);
void pb_w64(uint8_t *p, uint64_t v);
uint32_t pb_r32(const uint8_t *p);
uint64_t pb_r64(const uint8_t *p);

#endif
