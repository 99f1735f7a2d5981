// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's error and event log. Linux has no event log of
 * Windows' kind; the kernel log is where an administrator looks, so each
 * entry becomes one warning line naming the device, with the driver's
 * code and values (what Event Viewer would show undecoded).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/types.h>

#include "ndis_core.h"
#include "win_crt.h"
#include "winexport.h"

/* values printed per entry; the count says when there were more */
#define NDIS_LOG_MAX_VALUES	8

/*
 * NdisWriteErrorLogEntry(NdisAdapterHandle, ErrorCode, NumberOfErrorValues,
 * ...): the values are ULONGs, passed as varargs (cdecl).
 */
static WIN_CDECL void NdisWriteErrorLogEntry(void *handle, u32 code,
					     u32 count, ...)
{
	char values[NDIS_LOG_MAX_VALUES * 11 + 1];
	size_t len = 0;
	win_va_list ap;
	u32 i;

	values[0] = 0;
	win_va_start(ap, count);
	for (i = 0; i < count && i < NDIS_LOG_MAX_VALUES; i++)
		len += snprintf(values + len, sizeof(values) - len, " 0x%08x",
				(u32)win_va_arg(&ap, 32));
	win_va_end(ap);
	pr_warn("%s: driver error log entry 0x%08x, %u value(s):%s\n",
		ndis_handle_name(handle), code, count, values);
}
WIN_FUNC(NdisWriteErrorLogEntry);
