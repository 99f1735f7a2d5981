// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's error and event log. Linux has no event log of
 * Windows' kind; the kernel log is where an administrator looks, so each
 * entry becomes one warning line naming the device, with the driver's
 * code and values (what Event Viewer would show undecoded).
 *
 * And the miniport's own log (NdisMCreateLog & co.): a ring of bytes per
 * adapter, kept in memory, which Windows hands to an application through
 * IOCTL_NDIS_GET_LOG_DATA. Linux has no such device, so nothing reads it
 * (ndis_log_read says what it would give); a driver that writes one loses
 * nothing but the reader.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/spinlock.h>
#include <linux/string.h>
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

/* -- the miniport's log -------------------------------------------------- */

/* Larger logs are refused (RESOURCES: the reference says to retry smaller). */
#define NDIS_MLOG_MAX_SIZE	(64 << 10)
#define NDIS_MLOG_MAGIC		0x676f4c4d	/* "MLog" */

struct ndis_mlog {
	u32 magic;
	spinlock_t lock;		/* writes come at up to DISPATCH_LEVEL */
	void **slot;			/* the adapter's (ndis_log_slot) */
	u32 size;
	u32 start;			/* the oldest byte */
	u32 used;
	u8 data[];
};

static struct ndis_mlog *ndis_mlog(void *handle)
{
	struct ndis_mlog *log = handle;

	return log && log->magic == NDIS_MLOG_MAGIC ? log : NULL;
}

/* One log per adapter: FAILURE while the first is open. */
static WIN_ABI ndis_status NdisMCreateLog(void *handle, u32 size,
					  void **log_handle)
{
	struct ndis_driver *drv;
	struct ndis_mlog *log;
	void **slot;

	if (!handle || !log_handle)
		return NDIS_STATUS_FAILURE;
	*log_handle = NULL;
	slot = ndis_log_slot(handle);
	if (*slot)
		return NDIS_STATUS_FAILURE;
	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	if (!drv)
		return NDIS_STATUS_FAILURE;
	if (!size || size > NDIS_MLOG_MAX_SIZE)
		return NDIS_STATUS_RESOURCES;
	log = win_alloc(drv, sizeof(*log) + size);
	if (!log)
		return NDIS_STATUS_RESOURCES;
	log->magic = NDIS_MLOG_MAGIC;
	spin_lock_init(&log->lock);
	log->slot = slot;
	log->size = size;
	*slot = log;
	*log_handle = log;
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMCreateLog);

/*
 * A ring: once full, each write overwrites the oldest bytes, and a write
 * longer than the log leaves only its last size bytes.
 */
static WIN_ABI ndis_status NdisMWriteLogData(void *log_handle, void *buf,
					     u32 len)
{
	struct ndis_mlog *log = ndis_mlog(log_handle);
	unsigned long flags;
	const u8 *src = buf;
	u32 end, n;

	if (!log || (!buf && len))
		return NDIS_STATUS_FAILURE;
	if (len > log->size) {
		src += len - log->size;
		len = log->size;
	}
	spin_lock_irqsave(&log->lock, flags);
	while (len) {
		end = (log->start + log->used) % log->size;
		n = min(len, log->size - end);
		memcpy(log->data + end, src, n);
		src += n;
		len -= n;
		if (log->used + n > log->size) {
			log->start = (log->start + log->used + n - log->size) %
				     log->size;
			log->used = log->size;
		} else {
			log->used += n;
		}
	}
	spin_unlock_irqrestore(&log->lock, flags);
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMWriteLogData);

/* Empties the log. */
static WIN_ABI void NdisMFlushLog(void *log_handle)
{
	struct ndis_mlog *log = ndis_mlog(log_handle);
	unsigned long flags;

	if (!log)
		return;
	spin_lock_irqsave(&log->lock, flags);
	log->start = 0;
	log->used = 0;
	spin_unlock_irqrestore(&log->lock, flags);
}
WIN_FUNC(NdisMFlushLog);

static WIN_ABI void NdisMCloseLog(void *log_handle)
{
	struct ndis_mlog *log = ndis_mlog(log_handle);

	if (!log) {
		pr_warn_ratelimited("NdisMCloseLog: not a log NdisMCreateLog made, ignored\n");
		return;
	}
	*log->slot = NULL;
	log->magic = 0;
	win_free(log);
}
WIN_FUNC(NdisMCloseLog);

u32 ndis_log_read(void *log_handle, void *buf, u32 len)
{
	struct ndis_mlog *log = ndis_mlog(log_handle);
	unsigned long flags;
	u32 i, n;

	if (!log)
		return 0;
	spin_lock_irqsave(&log->lock, flags);
	n = min(len, log->used);
	for (i = 0; i < n; i++)
		((u8 *)buf)[i] = log->data[(log->start + i) % log->size];
	spin_unlock_irqrestore(&log->lock, flags);
	return n;
}

void ndis_log_release(void **slot)
{
	if (*slot)
		NdisMCloseLog(*slot);
}
