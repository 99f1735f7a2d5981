/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/io.h>: kmock's port I/O (asm/io.h), and the word
 * and long forms i386's HAL exports use (the test program's ports). */
#ifndef KMOCK_NTOS_IO_H
#define KMOCK_NTOS_IO_H
#include <asm/io.h>
u16 inw(unsigned long port);
u32 inl(unsigned long port);
void outw(u16 value, unsigned long port);
void outl(u32 value, unsigned long port);
#endif
