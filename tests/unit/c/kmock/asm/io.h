/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_ASM_IO_H
#define KMOCK_ASM_IO_H
#include <linux/types.h>
/* the test program's physical addresses and I/O ports */
u64 virt_to_phys(volatile void *address);
u8 inb(unsigned long port);
void outb(u8 value, unsigned long port);
void insb(unsigned long port, void *addr, unsigned long count);
void insw(unsigned long port, void *addr, unsigned long count);
void insl(unsigned long port, void *addr, unsigned long count);
void outsb(unsigned long port, const void *addr, unsigned long count);
void outsw(unsigned long port, const void *addr, unsigned long count);
void outsl(unsigned long port, const void *addr, unsigned long count);
#endif
