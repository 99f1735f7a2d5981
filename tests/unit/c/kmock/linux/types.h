/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for the kernel's <linux/types.h>: only what the kernel really
 * provides and the host-tested kernel code (pe.c, the wrapper's
 * usb_ctrl.h and ndis_sysfs.h) may use, so a -nostdinc build catches any
 * libc dependency on machines without a kernel tree. */
#ifndef KMOCK_TYPES_H
#define KMOCK_TYPES_H
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
typedef u8 uint8_t;
typedef u16 uint16_t;
typedef u32 uint32_t;
typedef u64 uint64_t;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;
typedef unsigned long size_t;
typedef long ssize_t;
typedef unsigned long uintptr_t;
typedef _Bool bool;
#define NULL ((void *)0)
#endif
