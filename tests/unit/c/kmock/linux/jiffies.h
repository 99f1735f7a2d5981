/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/jiffies.h>: the 64-bit tick count (the test
 * program's), at KMOCK_HZ, starting as the kernel's does five minutes
 * before the 32-bit count wraps. */
#ifndef KMOCK_JIFFIES_H
#define KMOCK_JIFFIES_H
#include <linux/types.h>
#include <linux/wait.h>
#define INITIAL_JIFFIES	((unsigned long)(unsigned int)(-300 * KMOCK_HZ))
u64 get_jiffies_64(void);
static inline u64 jiffies64_to_msecs(u64 j)
{
	return j * 1000 / KMOCK_HZ;
}
#endif
