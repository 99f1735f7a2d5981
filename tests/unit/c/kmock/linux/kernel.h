/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_KERNEL_H
#define KMOCK_KERNEL_H
#include <linux/types.h>
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define DIV_ROUND_UP_ULL(n, d)	(((unsigned long long)(n) + (d) - 1) / (d))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define min3(a, b, c)	min(min(a, b), c)
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
