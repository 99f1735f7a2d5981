/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the clock and IRQL arithmetic of ntos_time.c's exports,
 * kernel-independent so the unit tests build it against kmock.
 *
 * From the WDK: KeQueryTickCount counts clock ticks of
 * KeQueryTimeIncrement's length since boot; KeQueryPerformanceCounter
 * returns a monotonic count and its frequency (here 10 MHz: 100 ns
 * units); ExSystemTimeToLocalTime shifts a system time (UTC, 100 ns
 * since 1601) by the local time zone's bias. KeRaiseIrql may only raise
 * and KeLowerIrql only lower: the other way is a caller's bug (a bug
 * check on Windows), refused here with the level left as it was.
 */

#ifndef NDIS_NTOS_TIME_H
#define NDIS_NTOS_TIME_H

#include <linux/math64.h>
#include <linux/types.h>

#define WIN_TIME_INCREMENT		156250	/* 100 ns units: 15.625 ms */
#define WIN_PERFORMANCE_FREQUENCY	10000000

/* Ticks from InterruptTime (100 ns units since boot). */
static inline u64 win_tick_count(u64 interrupt_time)
{
	return div_u64(interrupt_time, WIN_TIME_INCREMENT);
}

/* The performance counter from monotonic nanoseconds. */
static inline u64 win_performance_count(u64 ns)
{
	return div_u64(ns, 1000000000 / WIN_PERFORMANCE_FREQUENCY);
}

/* Local time from system time, the zone @minutes_west of Greenwich. */
static inline s64 win_local_time(s64 system_time, s32 minutes_west)
{
	return system_time - (s64)minutes_west * 60 * 10000000;
}

/* KeRaiseIrql (@raise) or KeLowerIrql: the level to set, or -1. */
static inline int win_irql_change(u8 current_irql, u8 new_irql, bool raise)
{
	if (raise ? new_irql < current_irql : new_irql > current_irql)
		return -1;
	return new_irql;
}

#endif /* NDIS_NTOS_TIME_H */
