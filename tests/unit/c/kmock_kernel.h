/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmock_kernel.c's kernel state as a test program (built with libc)
 * sees and sets it: the kernel side reads it through kmock_ntos/'s
 * headers (linux/irqflags.h, preempt.h, cpumask.h, time.h, sched.h,
 * asm/fpu/api.h).
 */
#ifndef KMOCK_KERNEL_H
#define KMOCK_KERNEL_H

/* This thread's: interrupts off, in interrupt context, FPU sections
 * begun and not ended. */
extern __thread unsigned long kmock_irqs_off;
extern __thread int kmock_in_interrupt;
extern __thread int kmock_fpu_depth;

void kernel_fpu_begin(void);
void kernel_fpu_end(void);

/* Online CPUs: the ones whose bit is set, below nr_cpu_ids. */
extern unsigned int nr_cpu_ids;
extern unsigned long kmock_online_mask;

struct timezone;
extern struct timezone sys_tz;

/* This thread's task_struct's nice value. */
int kmock_current_nice(void);
void kmock_set_current_nice(int nice);

/* kzalloc'd and not kfree'd */
extern int kmock_slab_live;
/* kthread_run fails (ERR_PTR(-ENOMEM)) while set */
extern int kmock_kthread_fail;
/* kernel threads started and not ended */
extern int kmock_kthreads_running;

#endif
