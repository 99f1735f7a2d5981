/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUSER_SHARED_DATA references in a Windows driver image, redirected.
 *
 * On amd64 the DDK's KeQuerySystemTime, KeQueryTickCount and
 * KeQueryInterruptTime are not calls but inline reads of the kernel's
 * shared user data page at KI_USER_SHARED_DATA (0xFFFFF78000000000),
 * which every Windows kernel maps there. A Linux kernel has no page at
 * that address, and cannot give it one in general: on x86-64 it lies in
 * the kernel half, inside the KASAN shadow on KASAN kernels and, with
 * KASLR, possibly inside the randomized direct map, vmalloc or vmemmap
 * regions; and a new top-level kernel mapping is not shared with the page
 * tables of processes that already exist. So the address cannot be made
 * valid; the references to it are rewritten instead, to a page of the
 * wrapper's own that it keeps current (ntoskrnl.c).
 *
 * A 64-bit absolute address can appear in x86-64 code only as the 8-byte
 * immediate of MOVABS r64, imm64 (REX.W + B8+r) or as the moffs64 of MOV
 * to or from the accumulator (A0-A3, optionally after a REX or operand
 * size prefix); any other access goes through a register loaded by one of
 * them. In executable sections only these encodings are rewritten, so a
 * byte pattern that merely looks like the address is left alone; in
 * initialized data (a pointer variable holding SharedUserData), naturally
 * aligned 8-byte values. ndiswrapper 1.63 did this with every 8-byte
 * window of the whole image, whatever it was (pe_linker.c,
 * fix_user_shared_data_addr).
 *
 * Used by the module (pe_image.c), the host tests and hostsim.
 */
#ifndef NDIS_KUSER_H
#define NDIS_KUSER_H

#include "pe_compat.h"

#define WIN_KUSER_SHARED_DATA	0xfffff78000000000ULL
#define WIN_KUSER_SIZE		0x1000ULL	/* one page */

static inline uint64_t kuser_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline int kuser_is_ref(uint64_t v)
{
	return v >= WIN_KUSER_SHARED_DATA &&
	       v < WIN_KUSER_SHARED_DATA + WIN_KUSER_SIZE;
}

/* The opcode bytes before the 8 at code[i] take a 64-bit address. */
static inline int kuser_is_abs_operand(const uint8_t *code, size_t i)
{
	uint8_t op = code[i - 1];

	if (op >= 0xa0 && op <= 0xa3)		/* MOV acc <-> moffs64 */
		return 1;
	return op >= 0xb8 && op <= 0xbf &&	/* MOVABS r64, imm64 */
	       i >= 2 && (code[i - 2] & 0xf8) == 0x48;	/* REX.W */
}

/*
 * Rewrites the shared-data references in len bytes of one section to the
 * same offsets in the page at page (a kernel address); code: an
 * executable section. Returns how many it rewrote.
 */
static inline unsigned int kuser_redirect(uint8_t *sec, size_t len,
					  int code, uint64_t page)
{
	unsigned int n = 0;
	size_t i;

	if (len < 8)
		return 0;
	for (i = code ? 1 : 0; i + 8 <= len; i += code ? 1 : 8) {
		uint64_t v = kuser_get64(sec + i);

		if (!kuser_is_ref(v) || (code && !kuser_is_abs_operand(sec, i)))
			continue;
		v = page + (v - WIN_KUSER_SHARED_DATA);
		memcpy(sec + i, &v, sizeof(v));
		n++;
		if (code)
			i += 7;
	}
	return n;
}

#endif /* NDIS_KUSER_H */
