/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_SCHED_H
#define KMOCK_SCHED_H
int cond_resched(void);
#endif
