/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_ASM_IO_H
#define KMOCK_ASM_IO_H
#include <linux/types.h>
/* the test program's physical addresses */
u64 virt_to_phys(volatile void *address);
#endif
