/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/timer.h>: a timer fires on a host thread
 * (kmock_kernel.c) once jiffies reaches its expiry, unless set again or
 * deleted first; timer_delete_sync() also waits for a running callback.
 */
#ifndef KMOCK_NTOS_TIMER_H
#define KMOCK_NTOS_TIMER_H
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/jiffies.h>
struct timer_list {
	void (*function)(struct timer_list *t);
	unsigned long expires;
	void *firing;		/* kmock_kernel.c's pending expiry */
	int pending;
	int running;
};
void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *),
		 unsigned int flags);
int mod_timer(struct timer_list *t, unsigned long expires);
/* named apart from libc's POSIX timer_delete() in kmock_kernel.c */
#define timer_delete		kmock_timer_delete
#define timer_delete_sync	kmock_timer_delete_sync
int timer_delete(struct timer_list *t);
int timer_delete_sync(struct timer_list *t);
#define timer_container_of(var, t, field)				\
	container_of(t, __typeof__(*var), field)
#endif
