/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/delay.h>: a busy wait of @usecs (kmock_kernel.c). */
#ifndef KMOCK_NTOS_DELAY_H
#define KMOCK_NTOS_DELAY_H
void udelay(unsigned long usecs);
#endif
