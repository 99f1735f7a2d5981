// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: i386 ntoskrnl.exe's register accessors. On amd64 the DDK
 * makes READ_REGISTER_* and WRITE_REGISTER_* inline volatile accesses;
 * an i386 driver imports them from ntoskrnl.exe (not HAL.dll, where the
 * port I/O calls are). The driver passes the virtual address of a
 * register NdisMMapIoSpace mapped; the kernel's MMIO accessors do the
 * access with the ordering Windows' ones give.
 */

#include <linux/io.h>
#include <linux/types.h>

#include "wintypes.h"
#include "winexport.h"

#ifdef CONFIG_X86_32
static WIN_ABI u8 READ_REGISTER_UCHAR(u8 *reg)
{
	return readb((void __iomem *)reg);
}
WIN_FUNC_I386(READ_REGISTER_UCHAR);

static WIN_ABI u16 READ_REGISTER_USHORT(u16 *reg)
{
	return readw((void __iomem *)reg);
}
WIN_FUNC_I386(READ_REGISTER_USHORT);

static WIN_ABI u32 READ_REGISTER_ULONG(u32 *reg)
{
	return readl((void __iomem *)reg);
}
WIN_FUNC_I386(READ_REGISTER_ULONG);

static WIN_ABI void WRITE_REGISTER_UCHAR(u8 *reg, u8 v)
{
	writeb(v, (void __iomem *)reg);
}
WIN_FUNC_I386(WRITE_REGISTER_UCHAR);

static WIN_ABI void WRITE_REGISTER_USHORT(u16 *reg, u16 v)
{
	writew(v, (void __iomem *)reg);
}
WIN_FUNC_I386(WRITE_REGISTER_USHORT);

static WIN_ABI void WRITE_REGISTER_ULONG(u32 *reg, u32 v)
{
	writel(v, (void __iomem *)reg);
}
WIN_FUNC_I386(WRITE_REGISTER_ULONG);
#endif
