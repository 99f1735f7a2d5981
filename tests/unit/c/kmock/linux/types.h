/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for the kernel's <linux/types.h>: only what the kernel really
 * provides and pe.c may use, so a -nostdinc build of pe.c catches any libc
 * dependency on machines without a kernel tree. */
#ifndef KMOCK_TYPES_H
#define KMOCK_TYPES_H
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef u8 uint8_t;
typedef u16 uint16_t;
typedef u32 uint32_t;
typedef u64 uint64_t;
typedef unsigned long size_t;
typedef unsigned long uintptr_t;
#define NULL ((void *)0)
#endif
