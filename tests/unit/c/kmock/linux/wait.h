/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/wait.h>: wait_event_timeout() really sleeps (a
 * condition variable in kmock_wait.c, built with libc), in jiffies of
 * KMOCK_HZ; wake_up_all() wakes every sleeper, which re-checks. */
#ifndef KMOCK_WAIT_H
#define KMOCK_WAIT_H
#include <linux/types.h>

#define KMOCK_HZ		1000
#define MAX_SCHEDULE_TIMEOUT	((long)(~0UL >> 1))

struct wait_queue_head {
	unsigned long generation;
};
typedef struct wait_queue_head wait_queue_head_t;

#define DECLARE_WAIT_QUEUE_HEAD(name)	struct wait_queue_head name = { 0 }

/* The queue's generation now: a later wake changes it. */
unsigned long kmock_wait_prepare(struct wait_queue_head *wq);
/* Sleeps until a wake after @gen or @timeout jiffies: jiffies left. */
long kmock_wait_sleep(struct wait_queue_head *wq, unsigned long gen,
		      long timeout);
void wake_up_all(struct wait_queue_head *wq);

/* The kernel's contract: 0 if @cond is still false after @timeout,
 * otherwise the jiffies left (at least 1). */
#define wait_event_timeout(wq, cond, timeout) ({			\
	long __left = (timeout);					\
	for (;;) {							\
		unsigned long __gen = kmock_wait_prepare(&(wq));	\
		if (cond) {						\
			if (!__left)					\
				__left = 1;				\
			break;						\
		}							\
		if (!__left)						\
			break;						\
		__left = kmock_wait_sleep(&(wq), __gen, __left);	\
	}								\
	__left;								\
})
#endif
