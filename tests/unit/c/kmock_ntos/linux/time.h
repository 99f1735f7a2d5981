/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/time.h>: the kernel's time zone (settimeofday's),
 * kmock_kernel.c's. */
#ifndef KMOCK_NTOS_TIME_H
#define KMOCK_NTOS_TIME_H
struct timezone {
	int tz_minuteswest;
	int tz_dsttime;
};
extern struct timezone sys_tz;
#endif
