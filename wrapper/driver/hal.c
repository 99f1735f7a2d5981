// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: HAL.dll.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/printk.h>

#include "ndis_core.h"
#include "wincall.h"
#include "winexport.h"

/* For hal_port.c's IRQL calls and ndis_rwlock.c (ndis_core.h). */
u8 hal_irql(void)
{
	return win_current_irql();
}

/*
 * Only inside Windows code: outside it the level is PASSIVE_LEVEL by
 * definition (wincall.h).
 */
void hal_set_irql(u8 irql, const char *wrong_way)
{
	if (wrong_way)
		pr_err_ratelimited("%s to IRQL %u from %u: the wrong way (a bug check on Windows)\n",
				   wrong_way, irql, win_current_irql());
	if (this_cpu_read(win_depth))
		this_cpu_write(win_irql, irql);
}

/* A busy wait, as on Windows; drivers use it for microseconds. */
static WIN_ABI void KeStallExecutionProcessor(u32 usecs)
{
	while (usecs > 1000) {
		udelay(1000);
		usecs -= 1000;
	}
	udelay(usecs);
}
WIN_FUNC(KeStallExecutionProcessor);

#ifdef CONFIG_X86_32
/*
 * i386's HAL exports what amd64's DDK does inline: the raising spin lock
 * pair behind KeAcquireSpinLock/KeReleaseSpinLock and NdisAcquireSpinLock
 * (fastcall: the lock in ecx, the new IRQL in edx), and port I/O, on the
 * raw port numbers NdisMRegisterIoPortRange hands out (ndis_hw.c).
 */
static WIN_FASTCALL u8 KfAcquireSpinLock(unsigned long *lock)
{
	return win_spin_acquire_raise(lock);
}
WIN_FUNC_I386(KfAcquireSpinLock);

static WIN_FASTCALL void KfReleaseSpinLock(unsigned long *lock, u8 new_irql)
{
	win_spin_release_lower(lock, new_irql);
}
WIN_FUNC_I386(KfReleaseSpinLock);

static WIN_ABI u8 READ_PORT_UCHAR(u8 *port)
{
	return inb((unsigned long)port);
}
WIN_FUNC_I386(READ_PORT_UCHAR);

static WIN_ABI u16 READ_PORT_USHORT(u16 *port)
{
	return inw((unsigned long)port);
}
WIN_FUNC_I386(READ_PORT_USHORT);

static WIN_ABI u32 READ_PORT_ULONG(u32 *port)
{
	return inl((unsigned long)port);
}
WIN_FUNC_I386(READ_PORT_ULONG);

static WIN_ABI void WRITE_PORT_UCHAR(u8 *port, u8 v)
{
	outb(v, (unsigned long)port);
}
WIN_FUNC_I386(WRITE_PORT_UCHAR);

static WIN_ABI void WRITE_PORT_USHORT(u16 *port, u16 v)
{
	outw(v, (unsigned long)port);
}
WIN_FUNC_I386(WRITE_PORT_USHORT);

static WIN_ABI void WRITE_PORT_ULONG(u32 *port, u32 v)
{
	outl(v, (unsigned long)port);
}
WIN_FUNC_I386(WRITE_PORT_ULONG);
#endif
