/* SPDX-License-Identifier: GPL-2.0 */
/* kmock's <linux/ktime.h> and the raw monotonic clock (kmock_kernel.c:
 * the host's CLOCK_MONOTONIC_RAW). */
#ifndef KMOCK_NTOS_KTIME_H
#define KMOCK_NTOS_KTIME_H
#include_next <linux/ktime.h>
void ktime_get_raw_ts64(struct timespec64 *ts);
static inline s64 timespec64_to_ns(const struct timespec64 *ts)
{
	return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}
#endif
