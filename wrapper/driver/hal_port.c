// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: i386 HAL.dll's string port I/O and IRQL calls. On amd64
 * the DDK makes them inline (rep ins/outs, the cr8 register), so only an
 * i386 driver imports them. The ports are the raw numbers
 * NdisMRegisterIoPortRange hands out (ndis_hw.c); the IRQL is the one the
 * wrapper keeps for the Windows code running on this CPU (hal.c).
 */

#include <linux/types.h>
#include <asm/io.h>

#include "ndis_core.h"
#include "winexport.h"

#ifdef CONFIG_X86_32
/* count items from the port into buffer (rep insb/insw/insl) */
static WIN_ABI void READ_PORT_BUFFER_UCHAR(u8 *port, u8 *buffer, u32 count)
{
	insb((unsigned long)port, buffer, count);
}
WIN_FUNC_I386(READ_PORT_BUFFER_UCHAR);

static WIN_ABI void READ_PORT_BUFFER_USHORT(u16 *port, u16 *buffer,
					    u32 count)
{
	insw((unsigned long)port, buffer, count);
}
WIN_FUNC_I386(READ_PORT_BUFFER_USHORT);

static WIN_ABI void READ_PORT_BUFFER_ULONG(u32 *port, u32 *buffer, u32 count)
{
	insl((unsigned long)port, buffer, count);
}
WIN_FUNC_I386(READ_PORT_BUFFER_ULONG);

static WIN_ABI void WRITE_PORT_BUFFER_UCHAR(u8 *port, u8 *buffer, u32 count)
{
	outsb((unsigned long)port, buffer, count);
}
WIN_FUNC_I386(WRITE_PORT_BUFFER_UCHAR);

static WIN_ABI void WRITE_PORT_BUFFER_USHORT(u16 *port, u16 *buffer,
					     u32 count)
{
	outsw((unsigned long)port, buffer, count);
}
WIN_FUNC_I386(WRITE_PORT_BUFFER_USHORT);

static WIN_ABI void WRITE_PORT_BUFFER_ULONG(u32 *port, u32 *buffer,
					    u32 count)
{
	outsl((unsigned long)port, buffer, count);
}
WIN_FUNC_I386(WRITE_PORT_BUFFER_ULONG);

static WIN_ABI u8 KeGetCurrentIrql(void)
{
	return hal_irql();
}
WIN_FUNC_I386(KeGetCurrentIrql);

/*
 * Raising to a lower level is a bug check on Windows; here the level is
 * only what the driver believes, so it is logged by hal.c and kept.
 */
static WIN_FASTCALL u8 KfRaiseIrql(u8 new_irql)
{
	u8 old = hal_irql();

	hal_set_irql(new_irql, new_irql < old ? "KfRaiseIrql" : NULL);
	return old;
}
WIN_FUNC_I386(KfRaiseIrql);

static WIN_FASTCALL void KfLowerIrql(u8 new_irql)
{
	hal_set_irql(new_irql, new_irql > hal_irql() ? "KfLowerIrql" : NULL);
}
WIN_FUNC_I386(KfLowerIrql);
#endif
