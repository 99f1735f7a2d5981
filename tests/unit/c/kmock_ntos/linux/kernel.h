/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmock's <linux/kernel.h> and what the ntoskrnl.exe export files use on
 * top of it (min, max, min_t, ARRAY_SIZE, SIZE_MAX, INT_MAX, READ_ONCE, WRITE_ONCE):
 * searched before kmock/, for those files only.
 */
#ifndef KMOCK_NTOS_KERNEL_H
#define KMOCK_NTOS_KERNEL_H
#include_next <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/printk.h>
#ifndef SIZE_MAX
#define SIZE_MAX (~(size_t)0)
#endif
#ifndef INT_MAX
#define INT_MAX 0x7fffffff
#endif
#ifndef READ_ONCE
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#endif
#ifndef min
#define min(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef max
#define max(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#ifndef min_t
#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#endif
#endif
