/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_CPUMASK_H
#define KMOCK_CPUMASK_H
/* the test program says how many */
unsigned int num_online_cpus(void);
#endif
