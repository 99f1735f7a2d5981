/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: what the ntoskrnl.exe export files by concern (ntos_rtl.c,
 * ntos_io.c) share, kept free of kernel headers beyond wintypes.h and
 * wdm.h so the host unit tests build them as they are (kmock).
 */

#ifndef NDIS_NTOS_H
#define NDIS_NTOS_H

#include "wdm.h"
#include "wintypes.h"

#define STATUS_BUFFER_OVERFLOW		0x80000005
#define STATUS_ACCESS_VIOLATION		0xC0000005
#define STATUS_NO_MEMORY		0xC0000017
#define STATUS_BUFFER_TOO_SMALL		0xC0000023
#define STATUS_OBJECT_NAME_COLLISION	0xC0000035
#define STATUS_INVALID_PARAMETER_2	0xC00000F0

/* STRING and ANSI_STRING: UNICODE_STRING's layout with 8-bit characters. */
struct win_ansi_string {
	u16 length;			/* bytes, no terminating NUL */
	u16 max_length;			/* bytes */
	char *buffer;
};
static_assert(sizeof(struct win_ansi_string) == WIN_LAYOUT(16, 8));

struct win_guid {
	u32 data1;
	u16 data2;
	u16 data3;
	u8 data4[8];
};
static_assert(sizeof(struct win_guid) == 16);

/*
 * Pool memory for a Windows caller, charged to the driver whose code is
 * at caller (a return address), as ExAllocatePoolWithTag's; NULL when
 * no driver is there or memory is short. ntos_free() takes it back.
 * ntoskrnl.c has them in the module, the unit tests their own.
 */
void *ntos_alloc(unsigned long caller, size_t size);
void ntos_free(void *ptr);

#endif /* NDIS_NTOS_H */
