// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's access of NDIS 3 drivers to the hardware
 * without mapping it: byte-wide port I/O on an adapter handle or, before
 * one exists, on the configuration context MiniportInitialize got, and
 * PCI configuration space on that context. The port is the raw port
 * number (NdisMRegisterIoPortRange hands out the same, ndis_hw.c), so
 * the handle does not change which port is meant; the context is the
 * adapter the handle names (NdisOpenConfiguration, ndis.c).
 */

#include <linux/types.h>
#include <asm/io.h>

#include "winexport.h"

extern const struct win_export win_export_NdisReadPciSlotInformation;
extern const struct win_export win_export_NdisWritePciSlotInformation;

typedef WIN_ABI u32 (*ndis_pci_slot_fn)(void *handle, u32 slot, u32 offset,
					void *buf, u32 len);

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

/* The bytes read or written, as NdisReadPciSlotInformation's. */
static WIN_ABI u32 NdisImmediateReadPciSlotInformation(void *config_ctx,
						       u32 slot, u32 offset,
						       void *buf, u32 len)
{
	ndis_pci_slot_fn rd = win_export_NdisReadPciSlotInformation.func;

	return rd(config_ctx, slot, offset, buf, len);
}
WIN_FUNC(NdisImmediateReadPciSlotInformation);

static WIN_ABI u32 NdisImmediateWritePciSlotInformation(void *config_ctx,
							u32 slot, u32 offset,
							void *buf, u32 len)
{
	ndis_pci_slot_fn wr = win_export_NdisWritePciSlotInformation.func;

	return wr(config_ctx, slot, offset, buf, len);
}
WIN_FUNC(NdisImmediateWritePciSlotInformation);
