/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_ASM_PROCESSOR_H
#define KMOCK_ASM_PROCESSOR_H
static inline void cpu_relax(void)
{
	__asm__ __volatile__("" : : : "memory");
}
#endif
