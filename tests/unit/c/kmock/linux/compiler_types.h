/* SPDX-License-Identifier: GPL-2.0 */
/* Kbuild force-includes the kernel's compiler_types.h in every file (its
 * attribute shorthands); the kmock builds do the same with -include. */
#ifndef KMOCK_COMPILER_TYPES_H
#define KMOCK_COMPILER_TYPES_H
#define __packed __attribute__((__packed__))
#define __aligned(x) __attribute__((__aligned__(x)))
#define __printf(a, b) __attribute__((__format__(printf, a, b)))
#define __iomem
#endif
