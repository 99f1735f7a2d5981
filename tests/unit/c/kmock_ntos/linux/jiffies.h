/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/jiffies.h>: kmock's clock ticks KMOCK_HZ times a
 * second (linux/wait.h); jiffies is kmock_kernel.c's, which a thread of
 * its own advances from the host's monotonic clock (the kernel's tick). */
#ifndef KMOCK_NTOS_JIFFIES_H
#define KMOCK_NTOS_JIFFIES_H
#include <linux/wait.h>
extern volatile unsigned long jiffies;
/* rounded up, as the kernel's */
static inline unsigned long msecs_to_jiffies(unsigned int m)
{
	return ((unsigned long)m * KMOCK_HZ + 999) / 1000;
}
#endif
