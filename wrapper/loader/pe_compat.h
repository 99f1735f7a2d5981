/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few types and functions the PE loader needs, from the kernel or from
 * libc.  pe.c compiles in both worlds: in the ndiswrapper module (included
 * as "../loader/pe.c", no libc, no allocation) and on the host (unit tests,
 * fuzzers, `ndiswrapper -i`).
 */
#ifndef NDIS_PE_COMPAT_H
#define NDIS_PE_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/kernel.h>	/* snprintf */
#include <linux/sched.h>	/* cond_resched */
#else
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <stdio.h>		/* snprintf */

/* Long walks yield the CPU in the kernel; the host has nothing to do. */
static inline int cond_resched(void)
{
	return 0;
}
#endif

#endif /* NDIS_PE_COMPAT_H */
