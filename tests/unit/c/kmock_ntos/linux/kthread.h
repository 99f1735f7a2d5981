/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/kthread.h>: a kernel thread is a host thread
 * (kmock_kernel.c) with a task_struct of its own (current in it is the
 * task kthread_run returned); ERR_PTR(-ENOMEM) when
 * kmock_kthread_fail is set. Its exit ends the thread there and then.
 */
#ifndef KMOCK_NTOS_KTHREAD_H
#define KMOCK_NTOS_KTHREAD_H
#include <linux/err.h>
#include <linux/sched.h>
struct completion;
struct task_struct *kthread_run(int (*fn)(void *data), void *data,
				const char *namefmt, ...)
	__attribute__((format(printf, 3, 4)));
void kthread_complete_and_exit(struct completion *comp, long code)
	__attribute__((noreturn));
#endif
