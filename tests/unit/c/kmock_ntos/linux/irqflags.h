/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/irqflags.h>: this thread's (this CPU's) interrupt
 * flag, kmock_irqs_off (kmock_kernel.c), saved and restored as the
 * kernel's are: nonzero while interrupts are off. */
#ifndef KMOCK_NTOS_IRQFLAGS_H
#define KMOCK_NTOS_IRQFLAGS_H
extern __thread unsigned long kmock_irqs_off;
#define local_irq_save(flags)	do {					\
		(flags) = kmock_irqs_off;				\
		kmock_irqs_off = 1;					\
	} while (0)
#define local_irq_restore(flags)	(kmock_irqs_off = (flags))
#define irqs_disabled()		(kmock_irqs_off != 0)
#endif
