/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/io.h>: kmock's port I/O (asm/io.h), the word and
 * long forms i386's HAL exports use (the test program's ports), and MMIO. */
#ifndef KMOCK_NTOS_IO_H
#define KMOCK_NTOS_IO_H
#include <asm/io.h>
u16 inw(unsigned long port);
u32 inl(unsigned long port);
void outw(u16 value, unsigned long port);
void outl(u32 value, unsigned long port);
/* MMIO (i386's register accessor exports; the test program's memory) */
u8 readb(const volatile void *addr);
u16 readw(const volatile void *addr);
u32 readl(const volatile void *addr);
void writeb(u8 value, volatile void *addr);
void writew(u16 value, volatile void *addr);
void writel(u32 value, volatile void *addr);
#endif
