// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe, and the accounting of Windows allocations.
 *
 * Every block handed to Windows code comes from win_alloc(), which keeps
 * it on its driver's list; whatever is still there when the driver is
 * unloaded is reported and freed (win_free_leaks()). Windows code runs
 * with preemption off (wincall.h), so nothing here sleeps, except
 * KeWaitForSingleObject, which leaves the FPU section to do so.
 *
 * The I/O manager part: IRPs (allocation, IofCallDriver to the device
 * objects of an adapter, completion with IofCompleteRequest's semantics,
 * cancellation), dispatcher events and the wait, and pool memory.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <asm/fpu/types.h>

#include "ndis.h"
#include "wincall.h"
#include "winexport.h"

DEFINE_PER_CPU(unsigned int, win_depth);
DEFINE_PER_CPU(u8, win_irql);
DEFINE_PER_CPU(bool, win_caller_atomic);

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

/* -- pool ---------------------------------------------------------------- */

static WIN_ABI void *ExAllocatePoolWithTag(u32 pool_type, size_t size,
					   u32 tag)
{
	struct ndis_driver *drv;

	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	return drv ? win_alloc(drv, size) : NULL;
}
WIN_FUNC(ExAllocatePoolWithTag);

static WIN_ABI void ExFreePoolWithTag(void *ptr, u32 tag)
{
	win_free(ptr);
}
WIN_FUNC(ExFreePoolWithTag);

/*
 * Only MDLs of NdisAllocateBuffer exist (the wrapper exports no
 * IoAllocateMdl): the DDK's NdisFreeBuffer is a macro for this.
 */
static WIN_ABI void IoFreeMdl(struct win_mdl *mdl)
{
	ndis_free_mdl(mdl);
}
WIN_FUNC(IoFreeMdl);

/* -- spin locks ---------------------------------------------------------- */

/*
 * The amd64 spin lock family, on a KSPIN_LOCK in the driver's storage
 * (see win_spin_acquire in wincall.h). The DDK's NdisAcquireSpinLock,
 * NdisReleaseSpinLock, NdisDprAcquireSpinLock and NdisDprReleaseSpinLock
 * are macros over these four, KeAcquireSpinLock over the first.
 */
static WIN_ABI u8 KeAcquireSpinLockRaiseToDpc(unsigned long *lock)
{
	return win_spin_acquire_raise(lock);
}
WIN_FUNC(KeAcquireSpinLockRaiseToDpc);

static WIN_ABI void KeReleaseSpinLock(unsigned long *lock, u8 new_irql)
{
	win_spin_release_lower(lock, new_irql);
}
WIN_FUNC(KeReleaseSpinLock);

static WIN_ABI void KeAcquireSpinLockAtDpcLevel(unsigned long *lock)
{
	win_spin_acquire(lock);
}
WIN_FUNC(KeAcquireSpinLockAtDpcLevel);

static WIN_ABI void KeReleaseSpinLockFromDpcLevel(unsigned long *lock)
{
	win_spin_release(lock);
}
WIN_FUNC(KeReleaseSpinLockFromDpcLevel);

/* -- dispatcher events and the wait ------------------------------------- */

/*
 * Event state lives in the KEVENT itself (SignalState); waiters sleep on
 * one wait queue for all events, woken by every KeSetEvent. A
 * synchronization event is consumed by the waiter that sees it set.
 */
static DECLARE_WAIT_QUEUE_HEAD(win_event_wq);

static WIN_ABI void KeInitializeEvent(struct win_kevent *ev, u32 type,
				      u8 state)
{
	memset(ev, 0, sizeof(*ev));
	ev->header.type = type;
	ev->header.size = sizeof(*ev) / sizeof(u32);
	ev->header.signal_state = state ? 1 : 0;
	ev->header.wait_list_head.flink = &ev->header.wait_list_head;
	ev->header.wait_list_head.blink = &ev->header.wait_list_head;
}
WIN_FUNC(KeInitializeEvent);

static s32 win_set_event(struct win_kevent *ev)
{
	s32 old = xchg(&ev->header.signal_state, 1);

	wake_up_all(&win_event_wq);
	return old;
}

static WIN_ABI s32 KeSetEvent(struct win_kevent *ev, s32 increment, u8 wait)
{
	return win_set_event(ev);
}
WIN_FUNC(KeSetEvent);

static WIN_ABI s32 KeResetEvent(struct win_kevent *ev)
{
	return xchg(&ev->header.signal_state, 0);
}
WIN_FUNC(KeResetEvent);

static bool win_event_take(struct win_kevent *ev)
{
	if (ev->header.type == WIN_SYNCHRONIZATION_EVENT)
		return cmpxchg(&ev->header.signal_state, 1, 0) == 1;
	return READ_ONCE(ev->header.signal_state) != 0;
}

/*
 * Sleeping inside Windows code. The outermost call into Windows holds the
 * FPU (kernel_fpu_begin(): preemption off, the task's user FPU state
 * already saved), so the wait must end that section to schedule, and begin
 * a new one before returning. What Windows expects to survive the call is
 * its callee-saved xmm6-xmm15 (the low 128 bits; the upper YMM halves are
 * volatile in the Windows x64 ABI) and MXCSR's control bits; while the
 * task sleeps other tasks and kernel FPU users own the registers.
 *
 * Whether it may sleep at all is win_may_sleep()'s answer (the caller's
 * context, recorded before the FPU section began), not in_interrupt():
 * since 6.15 the FPU section itself disables bottom halves.
 *
 * The choice: FXSAVE/FXRSTOR into a buffer on this stack, in C, right
 * before kernel_fpu_end() and right after kernel_fpu_begin(). FXSAVE
 * exists on every x86_64 CPU, covers exactly xmm0-15, MXCSR and the x87
 * control word, and needs no XSAVE feature mask; an asm thunk saving only
 * xmm6-15 would be shorter but duplicates what the instruction does, and
 * XSAVE into the task's fpstate is not ours to use (it holds the user
 * state kernel_fpu_begin() saved). Restoring xmm0-5 as well is harmless:
 * they are volatile for the caller. The per-CPU depth and IRQL of this
 * call chain go back to "no Windows code" for the sleep, so another task
 * may run Windows code on this CPU meanwhile, and come back with us on
 * whichever CPU we wake up on.
 */
static long win_wait_event(struct win_kevent *ev, long timeout)
{
	u8 area[sizeof(struct fxregs_state) + 16];
	struct fxregs_state *fx = PTR_ALIGN((void *)area, 16);
	unsigned int depth = this_cpu_read(win_depth);
	u8 irql = this_cpu_read(win_irql);
	bool atomic = this_cpu_read(win_caller_atomic);
	long left;

	if (!depth)
		return wait_event_timeout(win_event_wq, win_event_take(ev),
					  timeout);
	asm volatile("fxsaveq %0" : "=m" (*fx));
	this_cpu_write(win_irql, WIN_PASSIVE_LEVEL);
	this_cpu_write(win_depth, 0);
	kernel_fpu_end();

	left = wait_event_timeout(win_event_wq, win_event_take(ev), timeout);

	kernel_fpu_begin();
	this_cpu_write(win_depth, depth);
	this_cpu_write(win_irql, irql);
	this_cpu_write(win_caller_atomic, atomic);
	asm volatile("fxrstorq %0" : : "m" (*fx));
	return left;
}

/* 100 ns units since 1601 (Windows system time) at the Unix epoch. */
#define WIN_EPOCH_OFFSET	116444736000000000LL

static WIN_ABI s32 KeWaitForSingleObject(void *object, u32 reason, u8 mode,
					 u8 alertable, const s64 *timeout)
{
	struct win_kevent *ev = object;
	long jiffies_left = MAX_SCHEDULE_TIMEOUT;
	s64 t100;

	if (ev->header.type != WIN_NOTIFICATION_EVENT &&
	    ev->header.type != WIN_SYNCHRONIZATION_EVENT) {
		pr_err("KeWaitForSingleObject: object type %u not supported\n",
		       ev->header.type);
		return STATUS_INVALID_PARAMETER;
	}
	if (win_event_take(ev))
		return STATUS_SUCCESS;
	if (timeout) {
		t100 = *timeout;
		if (t100 > 0) {		/* absolute: make it relative */
			struct timespec64 now;

			ktime_get_real_ts64(&now);
			t100 = now.tv_sec * 10000000LL + now.tv_nsec / 100 +
			       WIN_EPOCH_OFFSET - t100;
		}
		if (t100 >= 0)
			return STATUS_TIMEOUT;
		/* rounded up to milliseconds, at most U32_MAX of them */
		jiffies_left = msecs_to_jiffies(min_t(u64, U32_MAX,
						      div_u64(-t100 + 9999,
							      10000))) + 1;
	}
	if (!win_may_sleep()) {
		pr_err_ratelimited("KeWaitForSingleObject at IRQL %u: a wait that cannot sleep, failed with STATUS_TIMEOUT\n",
				   win_current_irql());
		return STATUS_TIMEOUT;
	}
	if (!win_wait_event(ev, jiffies_left))
		return STATUS_TIMEOUT;
	return STATUS_SUCCESS;
}
WIN_FUNC(KeWaitForSingleObject);

/* -- IRPs --------------------------------------------------------------- */

static void win_init_irp(struct win_irp *irp, u16 size, s8 stack_count)
{
	memset(irp, 0, size);
	irp->type = WIN_IO_TYPE_IRP;
	irp->size = size;
	irp->stack_count = stack_count;
	irp->current_location = stack_count + 1;
	irp->current_stack_location = &irp->stack[stack_count];
	irp->thread_list_entry.flink = &irp->thread_list_entry;
	irp->thread_list_entry.blink = &irp->thread_list_entry;
}

static WIN_ABI struct win_irp *IoAllocateIrp(s8 stack_size, u8 charge_quota)
{
	struct ndis_driver *drv;
	struct win_irp *irp;
	size_t size;

	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	if (!drv || stack_size < 1)
		return NULL;
	size = struct_size(irp, stack, stack_size);
	irp = win_alloc(drv, size);
	if (irp)
		win_init_irp(irp, size, stack_size);
	return irp;
}
WIN_FUNC(IoAllocateIrp);

/* The wrapper keeps an IRP it is working on: freeing it is a driver bug. */
static WIN_ABI void IoFreeIrp(struct win_irp *irp)
{
	if (!irp)
		return;
	if (ndis_usb_irp_busy(irp)) {
		pr_err("IoFreeIrp: IRP %p still in flight: not freed\n", irp);
		return;
	}
	win_free(irp);
}
WIN_FUNC(IoFreeIrp);

static WIN_ABI void IoReuseIrp(struct win_irp *irp, s32 status)
{
	u8 flags = irp->allocation_flags;

	win_init_irp(irp, irp->size, irp->stack_count);
	irp->allocation_flags = flags;
	irp->io_status.status = status;
}
WIN_FUNC(IoReuseIrp);

void ndis_complete_irp(struct win_irp *irp, u8 irql)
{
	while (irp->current_location <= irp->stack_count) {
		struct win_io_stack_location *sl = irp->current_stack_location;
		struct win_device_object *dev = NULL;
		void *routine = sl->completion_routine;
		void *context = sl->context;
		u8 control = sl->control;
		s32 status = irp->io_status.status;
		bool invoke;

		irp->pending_returned = !!(control & SL_PENDING_RETURNED);
		irp->current_location++;
		irp->current_stack_location++;
		if (irp->current_location <= irp->stack_count)
			dev = irp->current_stack_location->device_object;
		sl->control = 0;
		sl->completion_routine = NULL;
		sl->context = NULL;

		if (NT_SUCCESS(status))
			invoke = control & SL_INVOKE_ON_SUCCESS;
		else
			invoke = control & SL_INVOKE_ON_ERROR;
		if (irp->cancel && (control & SL_INVOKE_ON_CANCEL))
			invoke = true;
		if (!routine)
			invoke = false;
		if (invoke) {
			s32 ret = win_callv_at(irql, routine, 3,
					       (u64 [4]){ WARG(dev), WARG(irp),
							  WARG(context) });

			/* The routine owns the IRP again: hands off. */
			if (ret == (s32)STATUS_MORE_PROCESSING_REQUIRED)
				return;
		} else if (irp->pending_returned &&
			   irp->current_location <= irp->stack_count) {
			irp->current_stack_location->control |=
				SL_PENDING_RETURNED;
		}
	}
	/* Past the top: what the I/O manager does for its own IRPs. */
	if (irp->user_iosb)
		*irp->user_iosb = irp->io_status;
	if (irp->user_event)
		win_set_event(irp->user_event);
}

static WIN_ABI void IofCompleteRequest(struct win_irp *irp, s8 boost)
{
	ndis_complete_irp(irp, WIN_PASSIVE_LEVEL);
}
WIN_FUNC(IofCompleteRequest);

static bool ndis_our_device(struct win_device_object *dev,
			    struct ndis_adapter **adp)
{
	struct ndis_adapter *ad;

	if (!dev || dev->type != WIN_IO_TYPE_DEVICE || !dev->device_extension)
		return false;
	ad = dev->device_extension;
	if (dev != &ad->wdm.pdo && dev != &ad->wdm.fdo)
		return false;
	*adp = ad;
	return true;
}

static WIN_ABI s32 IofCallDriver(struct win_device_object *dev,
				 struct win_irp *irp)
{
	struct ndis_adapter *ad;

	if (irp->current_location <= 1) {
		pr_err("IofCallDriver: IRP %p has no stack location left\n",
		       irp);
		return STATUS_INVALID_PARAMETER;
	}
	irp->current_location--;
	irp->current_stack_location--;
	irp->current_stack_location->device_object = dev;
	if (!ndis_our_device(dev, &ad) || ad->bus != NDIS_BUS_USB) {
		irp->io_status.status = STATUS_INVALID_DEVICE_REQUEST;
		irp->io_status.information = 0;
		ndis_complete_irp(irp, WIN_PASSIVE_LEVEL);
		return STATUS_INVALID_DEVICE_REQUEST;
	}
	return ndis_usb_dispatch(ad, irp);
}
WIN_FUNC(IofCallDriver);

/*
 * The IRPs the wrapper completes are cancelled by usb.c (the Linux URB is
 * unlinked); a cancel routine someone else set is called as Windows would,
 * but with no cancel spin lock to release (nothing exports one).
 */
static WIN_ABI u8 IoCancelIrp(struct win_irp *irp)
{
	void *routine;

	WRITE_ONCE(irp->cancel, 1);
	routine = xchg(&irp->cancel_routine, NULL);
	if (routine) {
		irp->cancel_irql = win_current_irql();
		win_callv(routine, 2,
			  (u64 [4]){ WARG(irp->current_stack_location->
					  device_object), WARG(irp) });
		return 1;
	}
	return ndis_usb_cancel(irp);
}
WIN_FUNC(IoCancelIrp);

/* -- device objects ------------------------------------------------------- */

static void ndis_init_devobj(struct win_device_object *d,
			     struct ndis_adapter *ad, s8 stack_size)
{
	memset(d, 0, sizeof(*d));
	d->type = WIN_IO_TYPE_DEVICE;
	d->size = sizeof(*d);
	d->reference_count = 1;
	d->device_extension = ad;
	d->device_type = WIN_FILE_DEVICE_UNKNOWN;
	d->stack_size = stack_size;
}

/*
 * The PDO is the bus driver's (the wrapper's usb.c, stack size 2 as the
 * contract with the fixtures says), the FDO the miniport's, attached on
 * top of it.
 */
void ndis_wdm_init_dev(struct ndis_adapter *ad)
{
	struct ndis_wdm_dev *w = &ad->wdm;

	ndis_init_devobj(&w->pdo, ad, 2);
	ndis_init_devobj(&w->fdo, ad, 3);
	w->fdo.driver_object = ad->driver->driver_object;
	w->pdo.attached_device = &w->fdo;
}
