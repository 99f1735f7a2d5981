// SPDX-License-Identifier: GPL-2.0
/* kmock's cond_resched(), for kernel-mode builds: it counts its calls. */
#include <linux/sched.h>

#include "kdriver.h"

unsigned long kd_resched_calls;

int cond_resched(void)
{
	kd_resched_calls++;
	return 0;
}
