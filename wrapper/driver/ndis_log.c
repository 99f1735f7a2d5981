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

/* at most this much of an event's strings is printed */
#define NDIS_LOG_TEXT		128
#define NDIS_LOG_MAX_STRING	64

/*
 * NdisWriteEventLogEntry(LogHandle, EventCode, UniqueEventValue,
 * NumStrings, StringsList, DataSize, Data): the strings are NUL-terminated
 * UTF-16, one after the other; printed as ASCII ('?' for the rest), the
 * data by its size only. The handle is a driver or device object, which
 * names no adapter.
 */
static WIN_ABI ndis_status NdisWriteEventLogEntry(void *log_handle, u32 code,
						  u32 unique, u16 num_strings,
						  const u16 *strings,
						  u32 data_size, void *data)
{
	char text[NDIS_LOG_TEXT];
	size_t len = 0;
	u16 i;

	text[0] = 0;
	for (i = 0; strings && i < num_strings; i++) {
		unsigned int n;

		if (len + 4 > sizeof(text))
			break;
		text[len++] = ' ';
		text[len++] = '"';
		for (n = 0; *strings && n < NDIS_LOG_MAX_STRING; n++) {
			u16 c = *strings++;

			if (len + 2 < sizeof(text))
				text[len++] = c >= 0x20 && c < 0x7f ? c : '?';
		}
		while (*strings)	/* past what was not printed */
			strings++;
		strings++;
		text[len++] = '"';
		text[len] = 0;
	}
	pr_warn("driver event log entry 0x%08x (%u):%s, %u data bytes\n",
		code, unique, text, data_size);
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisWriteEventLogEntry);
