/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for <linux/percpu.h>: a test thread is one CPU running one
 * call chain (the kernel's Windows code runs with preemption off, so
 * its per-CPU values are its call chain's), so a per-CPU variable is a
 * thread-local one.
 */
#ifndef KMOCK_NTOS_PERCPU_H
#define KMOCK_NTOS_PERCPU_H
#include <linux/types.h>
#define DECLARE_PER_CPU(type, name)	extern __thread type name
#define DEFINE_PER_CPU(type, name)	__thread type name
#define this_cpu_read(v)		(v)
#define this_cpu_write(v, x)		((v) = (x))
#define this_cpu_inc(v)			((v)++)
#define this_cpu_dec(v)			((v)--)
#endif
