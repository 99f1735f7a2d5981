/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_MM_H
#define KMOCK_MM_H
#include <asm/page.h>
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)
#endif
