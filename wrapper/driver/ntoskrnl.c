// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe, and the accounting of Windows allocations.
 *
 * Every block handed to Windows code comes from win_alloc(), which keeps
 * it on its driver's list; whatever is still there when the driver is
 * unloaded is reported and freed (win_free_leaks()). Windows code runs
 * with preemption off (wincall.h), so nothing here may sleep.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ndis.h"
#include "wincall.h"
#include "winexport.h"

DEFINE_PER_CPU(unsigned int, win_depth);

struct win_alloc {
	struct list_head list;
	struct ndis_driver *drv;
	size_t size;
} __aligned(16);

void *win_alloc(struct ndis_driver *drv, size_t size)
{
	struct win_alloc *a;
	unsigned long flags;

	if (size > INT_MAX - sizeof(*a))
		return NULL;
	a = kzalloc(sizeof(*a) + size, GFP_ATOMIC);
	if (!a)
		return NULL;
	a->drv = drv;
	a->size = size;
	spin_lock_irqsave(&drv->alloc_lock, flags);
	list_add(&a->list, &drv->allocs);
	drv->num_allocs++;
	spin_unlock_irqrestore(&drv->alloc_lock, flags);
	return a + 1;
}

void win_free(void *ptr)
{
	struct win_alloc *a;
	struct ndis_driver *drv;
	unsigned long flags;

	if (!ptr)
		return;
	a = (struct win_alloc *)ptr - 1;
	drv = a->drv;
	spin_lock_irqsave(&drv->alloc_lock, flags);
	list_del(&a->list);
	drv->num_allocs--;
	spin_unlock_irqrestore(&drv->alloc_lock, flags);
	kfree(a);
}

void win_free_leaks(struct ndis_driver *drv)
{
	struct win_alloc *a, *tmp;

	if (drv->num_allocs)
		pr_info("%s: %u Windows allocations leaked\n", drv->name,
			drv->num_allocs);
	list_for_each_entry_safe(a, tmp, &drv->allocs, list) {
		list_del(&a->list);
		kfree(a);
	}
	drv->num_allocs = 0;
}

/*
 * DbgPrint: a Windows printf. The arguments come as a Microsoft va_list;
 * each conversion is re-formatted with the kernel's snprintf, reading the
 * argument with the Windows sizes (long is 32 bits, I64 and ll 64).
 */
static int win_format_one(char *out, size_t len, const char **fmtp,
			  __builtin_ms_va_list *ap)
{
	const char *f = *fmtp;		/* just after '%' */
	char spec[32] = "%";
	size_t n = 1;
	bool wide = false;
	u64 v;

	while (*f && strchr("-+ #0", *f) && n < 6)
		spec[n++] = *f++;
	while (*f && (isdigit(*f) || *f == '.' || *f == '*') && n < 11) {
		if (*f == '*') {	/* width or precision from an int */
			int arg = __builtin_va_arg(*ap, u64);

			n += scnprintf(spec + n, sizeof(spec) - n, "%d",
				       clamp(arg, 0, 255));
			f++;
			continue;
		}
		spec[n++] = *f++;
	}
	if (f[0] == 'I' && f[1] == '6' && f[2] == '4') {
		wide = true;
		f += 3;
	} else if (f[0] == 'l' && f[1] == 'l') {
		wide = true;
		f += 2;
	} else if (*f == 'l' || *f == 'h' || *f == 'z' || *f == 'I') {
		wide = *f == 'z' || *f == 'I';
		f++;
	}
	*fmtp = *f ? f + 1 : f;
	switch (*f) {
	case 'd':
	case 'i':
		v = __builtin_va_arg(*ap, u64);
		spec[n++] = 'l';
		spec[n++] = 'l';
		spec[n++] = 'd';
		return snprintf(out, len, spec,
				wide ? (long long)v : (long long)(s32)v);
	case 'u':
	case 'x':
	case 'X':
		v = __builtin_va_arg(*ap, u64);
		spec[n++] = 'l';
		spec[n++] = 'l';
		spec[n++] = *f;
		return snprintf(out, len, spec, wide ? v : (u64)(u32)v);
	case 'c':
		v = __builtin_va_arg(*ap, u64);
		return snprintf(out, len, "%c", (char)v);
	case 'p':
		v = __builtin_va_arg(*ap, u64);
		return snprintf(out, len, "%016llx", v);
	case 's':
		v = __builtin_va_arg(*ap, u64);
		spec[n++] = 's';
		return snprintf(out, len, spec,
				v ? (const char *)(uintptr_t)v : "(null)");
	case '%':
		return snprintf(out, len, "%%");
	default:			/* wide strings and the rest */
		return snprintf(out, len, "?");
	}
}

static WIN_ABI u32 DbgPrint(const char *fmt, ...)
{
	struct ndis_driver *drv;
	__builtin_ms_va_list ap;
	char buf[256];
	size_t pos = 0;

	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	__builtin_ms_va_start(ap, fmt);
	while (*fmt && pos < sizeof(buf) - 1) {
		if (*fmt != '%') {
			buf[pos++] = *fmt++;
			continue;
		}
		fmt++;
		pos += win_format_one(buf + pos, sizeof(buf) - pos, &fmt,
				      &ap);
		pos = min(pos, sizeof(buf) - 1);
	}
	__builtin_ms_va_end(ap);
	while (pos && buf[pos - 1] == '\n')
		pos--;
	buf[pos] = '\0';
	pr_info("%s: %s\n", drv ? drv->name : "?", buf);
	return 0;
}
WIN_FUNC(DbgPrint);

/*
 * Every MDL the wrapper builds describes memory already mapped in the
 * kernel, so the "mapping" is the address the MDL describes.
 */
static WIN_ABI void *MmMapLockedPagesSpecifyCache(struct win_mdl *mdl,
						  u32 mode, u32 cache,
						  void *addr, u32 bugcheck,
						  u32 priority)
{
	if (mdl->flags & (MDL_MAPPED_TO_SYSTEM_VA |
			  MDL_SOURCE_IS_NONPAGED_POOL))
		return mdl->mapped_va;
	mdl->mapped_va = (u8 *)mdl->start_va + mdl->byte_offset;
	mdl->flags |= MDL_MAPPED_TO_SYSTEM_VA;
	return mdl->mapped_va;
}
WIN_FUNC(MmMapLockedPagesSpecifyCache);
