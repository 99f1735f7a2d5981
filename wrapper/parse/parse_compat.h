/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parsers of driver output (bssid.c, usbcfg.c, ndiscfg.c) need,
 * from the kernel or from libc. They compile in both worlds: in the
 * ndiswrapper module (driver/parse.c includes them) and on the host (unit
 * tests and the fuzz targets of tests/fuzz), so what the fuzzers check is
 * what the kernel runs.
 */
#ifndef NDIS_PARSE_COMPAT_H
#define NDIS_PARSE_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>	/* true, false, offsetof */
#include <linux/string.h>
#include <linux/errno.h>
#include <asm/byteorder.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <linux/types.h>	/* __le16, __le32, __le64 (linux-libc-dev) */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;

/* The host builds are x86 only: little-endian, as the Windows structures. */
#define le16_to_cpu(x)	((u16)(x))
#define le32_to_cpu(x)	((u32)(x))
#define cpu_to_le16(x)	((__le16)(x))
#define cpu_to_le32(x)	((__le32)(x))
#define __packed	__attribute__((__packed__))
#endif

#endif /* NDIS_PARSE_COMPAT_H */
