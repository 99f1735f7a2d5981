/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/slab.h>: kzalloc and kfree (kmock_kernel.c: the
 * host's heap, the blocks live counted in kmock_slab_live). */
#ifndef KMOCK_NTOS_SLAB_H
#define KMOCK_NTOS_SLAB_H
#include <linux/types.h>
typedef unsigned int gfp_t;
#define GFP_KERNEL	0x1u
#define GFP_ATOMIC	0x2u
void *kzalloc(size_t size, gfp_t flags);
void kfree(const void *p);
#endif
