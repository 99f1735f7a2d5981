/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmock's <linux/sched.h> and the tasks: each test thread has its own
 * task_struct (current; kmock_kernel.c), its nice value as the
 * scheduler keeps it (-20..19), and a sleep that really sleeps.
 */
#ifndef KMOCK_NTOS_SCHED_H
#define KMOCK_NTOS_SCHED_H
#include_next <linux/sched.h>
#include <linux/wait.h>
struct task_struct {
	int nice;
};
struct task_struct *kmock_current(void);
#define current		kmock_current()
/* sleeps @timeout jiffies; 0, as nothing wakes it early */
long schedule_timeout_uninterruptible(long timeout);
static inline int task_nice(const struct task_struct *p)
{
	return p->nice;
}
static inline void set_user_nice(struct task_struct *p, long nice)
{
	p->nice = nice < -20 ? -20 : nice > 19 ? 19 : nice;
}
#endif
