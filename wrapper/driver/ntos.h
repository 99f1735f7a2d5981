/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: what the ntoskrnl.exe files (ntoskrnl.c, ntos_*.c) share.
 */

#ifndef NDIS_NTOS_H
#define NDIS_NTOS_H

#include <linux/types.h>

/* 100 ns units since 1601 (Windows system time) at the Unix epoch. */
#define WIN_EPOCH_OFFSET	116444736000000000LL

/* ntoskrnl.c: InterruptTime, 100 ns units since boot at the clock tick */
u64 win_interrupt_time(void);
/* ntos_sync.c: SystemTime, 100 ns units since 1601 */
u64 win_system_time(void);

/*
 * ntos_sync.c: a Windows timeout (100 ns units; negative: relative,
 * positive: absolute system time; NULL: none) as jiffies for
 * wait_event_timeout(): false when it has already passed.
 */
bool win_timeout_jiffies(const s64 *timeout, long *jiffies);

/* ntos_timer.c: a driver's unload stops and frees its KTIMERs' timers */
struct ndis_driver;
void win_timers_release(struct ndis_driver *drv);

/* ntos_thread.c: ZwClose of a handle PsCreateSystemThread gave (false:
 * not one of those) */
bool win_object_close(void *handle);

#endif /* NDIS_NTOS_H */
