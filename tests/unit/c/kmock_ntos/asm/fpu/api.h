/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <asm/fpu/api.h>: the FPU sections kmock_kernel.c counts
 * (begun and not ended), so a test sees a sleep leave them. */
#ifndef KMOCK_NTOS_FPU_API_H
#define KMOCK_NTOS_FPU_API_H
void kernel_fpu_begin(void);
void kernel_fpu_end(void);
#endif
