/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/workqueue.h>: work runs on a host thread of its
 * own (kmock_kernel.c), once however often it is queued while pending,
 * again if queued while it runs; flush_work() waits for both, as the
 * kernel's. Every queue is the same: the tests need no order between
 * different work items.
 */
#ifndef KMOCK_NTOS_WORKQUEUE_H
#define KMOCK_NTOS_WORKQUEUE_H
#include <linux/types.h>
#include <linux/sched.h>	/* cond_resched, as the kernel's brings it */
struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);
struct work_struct {
	work_func_t func;
	int pending;
	int running;
};
#define DECLARE_WORK(n, f)	struct work_struct n = { .func = (f) }
struct workqueue_struct;
extern struct workqueue_struct *system_wq;
bool queue_work(struct workqueue_struct *wq, struct work_struct *work);
bool flush_work(struct work_struct *work);
#endif
