/* SPDX-License-Identifier: GPL-2.0 */
/* kmock's <linux/cpumask.h> and the online CPU walk: the CPUs the test
 * program says are online (kmock_kernel.c). */
#ifndef KMOCK_NTOS_CPUMASK_H
#define KMOCK_NTOS_CPUMASK_H
#include_next <linux/cpumask.h>
#include <linux/kernel.h>
/* the kernel's cpumask.h brings it (asm/bitsperlong.h) */
#define BITS_PER_LONG		(8 * (int)sizeof(long))
extern unsigned int nr_cpu_ids;
bool cpu_online(unsigned int cpu);
#define for_each_online_cpu(cpu)					\
	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)			\
		if (!cpu_online(cpu)) {} else
#endif
