/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/preempt.h>: whether this thread runs as an
 * interrupt or bottom half would (kmock_kernel.c; a test sets it). */
#ifndef KMOCK_NTOS_PREEMPT_H
#define KMOCK_NTOS_PREEMPT_H
extern __thread int kmock_in_interrupt;
#define in_interrupt()		(kmock_in_interrupt != 0)
#endif
