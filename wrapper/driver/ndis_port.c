// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's byte-wide port I/O of NDIS 3 drivers, on an
 * adapter handle or, before one exists, on the configuration context
 * MiniportInitialize got. Either way the port is the raw port number
 * (NdisMRegisterIoPortRange hands out the same, ndis_hw.c), so the
 * handle does not change which port is meant.
 */

#include <linux/types.h>
#include <asm/io.h>

#include "winexport.h"

static WIN_ABI void NdisReadPortUchar(void *handle, u32 port, u8 *data)
{
	*data = inb(port);
}
WIN_FUNC(NdisReadPortUchar);

static WIN_ABI void NdisWritePortUchar(void *handle, u32 port, u8 data)
{
	outb(data, port);
}
WIN_FUNC(NdisWritePortUchar);

static WIN_ABI void NdisImmediateReadPortUchar(void *config_ctx, u32 port,
					       u8 *data)
{
	*data = inb(port);
}
WIN_FUNC(NdisImmediateReadPortUchar);

static WIN_ABI void NdisImmediateWritePortUchar(void *config_ctx, u32 port,
						u8 data)
{
	outb(data, port);
}
WIN_FUNC(NdisImmediateWritePortUchar);
