/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_KTIME_H
#define KMOCK_KTIME_H
#include <linux/types.h>
struct timespec64 {
	s64 tv_sec;
	long tv_nsec;
};
/* the test program's clock */
void ktime_get_real_ts64(struct timespec64 *ts);
#endif
