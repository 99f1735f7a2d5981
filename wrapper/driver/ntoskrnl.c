// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe, and the accounting of Windows allocations.
 *
 * Every block handed to Windows code comes from win_alloc(), which keeps
 * it on its driver's list; whatever is still there when the driver is
 * unloaded is reported and freed (win_free_leaks()). Windows code runs
 * with preemption off (wincall.h), so nothing here sleeps; the waits
 * (ntos_sync.c) leave the FPU section to do so (win_sleep_outside_fpu).
 *
 * The I/O manager part: IRPs (allocation, IofCallDriver to the device
 * objects of an adapter, completion with IofCompleteRequest's semantics,
 * cancellation), and pool memory. Dispatcher objects and the waits on
 * them: ntos_sync.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/usb.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <asm/cpufeature.h>
#include <asm/fpu/types.h>

#include "ndis.h"
#include "ntos.h"
#include "ntos_dispatch.h"
#include "ntos_time.h"
#include "win_crt.h"
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
 * DbgPrint: a Windows printf, formatted as Microsoft's CRT does
 * (win_crt.h: LLP64 sizes, %ws, %wZ, ...) from its Microsoft va_list.
 */
static WIN_CDECL u32 DbgPrint(const char *fmt, ...)
{
	struct ndis_driver *drv;
	win_va_list ap;
	char buf[256];
	size_t pos;

	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	win_va_start(ap, fmt);
	win_vsnprintf(buf, sizeof(buf) - 1, fmt, &ap);
	win_va_end(ap);
	buf[sizeof(buf) - 1] = '\0';
	pos = strlen(buf);
	while (pos && buf[pos - 1] == '\n')
		pos--;
	buf[pos] = '\0';
	pr_info("%s: %s\n", drv ? drv->name : "?", buf);
	return 0;
}
WIN_FUNC(DbgPrint);

/*
 * __C_specific_handler: the language handler the compiler names in the
 * unwind data of every function with __try/__except or __finally. The
 * Windows exception dispatcher calls it while it unwinds; nothing calls
 * it on the path where no exception is raised, which is all the wrapper
 * supports: a fault in driver code is a Linux kernel oops, no Windows
 * exception is ever dispatched, so no __except filter or __finally block
 * runs because of one (a __finally still runs when its __try block ends
 * normally: that is inline code). If anything calls it, it says so once
 * and lets the search go on (ExceptionContinueSearch).
 */
#define WIN_EXCEPTION_CONTINUE_SEARCH	1

static WIN_ABI s32 C_specific_handler(void *record, void *frame,
				      void *context, void *dispatcher)
{
	pr_err_once("__C_specific_handler called: Windows exception dispatch is not supported\n");
	return WIN_EXCEPTION_CONTINUE_SEARCH;
}
WIN_FUNC_NAMED(__C_specific_handler, C_specific_handler);

/* -- pool ---------------------------------------------------------------- */

static WIN_ABI void *ExAllocatePoolWithTag(u32 pool_type, size_t size,
					   u32 tag)
{
	struct ndis_driver *drv;

	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	return drv ? win_alloc(drv, size) : NULL;
}
WIN_FUNC(ExAllocatePoolWithTag);

/* ntos.h: the pool of the files by concern (ntos_rtl.c, ...). */
void *ntos_alloc(unsigned long caller, size_t size)
{
	struct ndis_driver *drv = ndis_driver_at(caller);

	return drv ? win_alloc(drv, size) : NULL;
}

void ntos_free(void *ptr)
{
	win_free(ptr);
}

unsigned long ntos_page_pfn(const void *va)
{
	if (is_vmalloc_addr(va))
		return vmalloc_to_pfn(va);
	return virt_addr_valid(va) ? PFN_DOWN(__pa(va)) : 0;
}

unsigned long ntos_image_offset(unsigned long caller)
{
	struct ndis_driver *drv = ndis_driver_at(caller);

	return drv ? caller - (unsigned long)drv->image : 0;
}

void *ntos_driver_object_at(unsigned long caller)
{
	struct ndis_driver *drv = ndis_driver_at(caller);

	return drv ? drv->driver_object : NULL;
}

void ntos_stack_limits(unsigned long *low, unsigned long *high)
{
	*low = (unsigned long)task_stack_page(current);
	*high = *low + THREAD_SIZE;
}

void ntos_log(unsigned long caller, const char *text)
{
	struct ndis_driver *drv = ndis_driver_at(caller);

	pr_warn_ratelimited("%s: %s\n", drv ? drv->name : "?", text);
}

/*
 * ntos.h: the files ZwCreateFile opens, read whole from
 * /lib/firmware/ndiswrapper/<driver>/<name> (NTOS_FIRMWARE_MAX at most).
 * Not through request_firmware(): that is a GPL-only export, and the
 * module's GPL-only imports are a fixed list (tests/e2e/expectations.toml).
 * Opening and reading sleep: they leave the Windows FPU section
 * (win_sleep_outside_fpu).
 */
#define NTOS_FIRMWARE_DIR	"/lib/firmware/ndiswrapper"
#define NTOS_FIRMWARE_MAX	(16 << 20)

struct ntos_firmware_req {
	const char *path;
	void *data;
	size_t size;
	int err;
};

static long ntos_firmware_read(void *arg, long timeout)
{
	struct ntos_firmware_req *r = arg;
	struct file *f;
	loff_t size, pos = 0;
	ssize_t n;

	f = filp_open(r->path, O_RDONLY, 0);
	if (IS_ERR(f)) {
		r->err = PTR_ERR(f);
		return 0;
	}
	size = i_size_read(file_inode(f));
	if (!S_ISREG(file_inode(f)->i_mode) || size > NTOS_FIRMWARE_MAX) {
		r->err = -EINVAL;
		goto out;
	}
	r->data = kvmalloc(size ? size : 1, GFP_KERNEL);
	if (!r->data) {
		r->err = -ENOMEM;
		goto out;
	}
	while (pos < size) {
		n = kernel_read(f, (u8 *)r->data + pos, size - pos, &pos);
		if (n <= 0)
			break;
	}
	r->size = pos;
out:
	filp_close(f, NULL);
	return 0;
}

int ntos_firmware_get(unsigned long caller, const char *name,
		      const u8 **data, size_t *size, void **cookie)
{
	struct ndis_driver *drv = ndis_driver_at(caller);
	struct ntos_firmware_req r = { };
	char path[160];

	if (!drv)
		return -ENOENT;
	if (!win_may_sleep()) {
		pr_err_ratelimited("%s: ZwCreateFile at IRQL %u: files open at PASSIVE_LEVEL only\n",
				   drv->name, win_current_irql());
		return -EAGAIN;
	}
	if (snprintf(path, sizeof(path), NTOS_FIRMWARE_DIR "/%s/%s", drv->name,
		     name) >= sizeof(path))
		return -ENAMETOOLONG;
	r.path = path;
	win_sleep_outside_fpu(ntos_firmware_read, &r, 0);
	if (r.err)
		return r.err;
	*data = r.data;
	*size = r.size;
	*cookie = r.data;
	return 0;
}

static long ntos_firmware_free(void *data, long timeout)
{
	kvfree(data);
	return 0;
}

/* vfree may sleep: a driver closing at raised IRQL (a bug) leaks it. */
void ntos_firmware_put(void *cookie)
{
	if (!win_may_sleep()) {
		pr_err_ratelimited("ZwClose at IRQL %u: the file's memory is leaked\n",
				   win_current_irql());
		return;
	}
	win_sleep_outside_fpu(ntos_firmware_free, cookie, 0);
}

void *ntos_map_io(u64 phys, size_t size, bool cached)
{
	return (void __force *)(cached ? ioremap_cache(phys, size) :
					 ioremap(phys, size));
}

void ntos_unmap_io(void *va)
{
	iounmap((void __iomem *)va);
}

/*
 * Whole pages from the page allocator, from ZONE_DMA32 when highest is
 * 4 GiB - 1, checked against highest (a limit below 4 GiB is not
 * offered); GFP_ATOMIC: callers may be at DISPATCH_LEVEL.
 */
void *ntos_alloc_contiguous(size_t size, u64 highest)
{
	gfp_t gfp = GFP_ATOMIC | __GFP_ZERO | __GFP_NOWARN;
	void *va;

	if (highest < U32_MAX)
		return NULL;
	if (highest == U32_MAX)
		gfp |= GFP_DMA32;
	va = alloc_pages_exact(size, gfp);
	if (va && virt_to_phys(va) + size - 1 > highest) {
		free_pages_exact(va, size);
		return NULL;
	}
	return va;
}

void ntos_free_contiguous(void *va, size_t size)
{
	if (va)
		free_pages_exact(va, size);
}

/*
 * ntos.h: IO_WORKITEMs run on ndis_work_wq, where NDIS's work items run
 * and which MiniportHalt's flush waits for (ndis_flush_work_items).
 */
struct ntos_work {
	struct work_struct work;
	struct ntos_work_item *item;
};

static void ntos_work_run(struct work_struct *work)
{
	struct ntos_work_item *item = container_of(work, struct ntos_work,
						   work)->item;

	/* The routine may free the item (and this work): hands off after. */
	LIN2WIN2(READ_ONCE(item->routine), item->dev, READ_ONCE(item->context));
}

void *ntos_work_new(struct ntos_work_item *item)
{
	struct ntos_work *w = kzalloc(sizeof(*w), GFP_ATOMIC);

	if (!w)
		return NULL;
	INIT_WORK(&w->work, ntos_work_run);
	w->item = item;
	return w;
}

void ntos_work_queue(void *work)
{
	queue_work(ndis_work_wq, &((struct ntos_work *)work)->work);
}

void ntos_work_free(void *work)
{
	kfree(work);
}

static WIN_ABI void ExFreePoolWithTag(void *ptr, u32 tag)
{
	win_free(ptr);
}
WIN_FUNC(ExFreePoolWithTag);

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
 * they are volatile for the caller. On i386 the same state is the 32-bit
 * FXSAVE's (xmm0-7), or FNSAVE's x87 state on a CPU without FXSR (no SSE
 * either). The per-CPU depth and IRQL of this
 * call chain go back to "no Windows code" for the sleep, so another task
 * may run Windows code on this CPU meanwhile, and come back with us on
 * whichever CPU we wake up on. sleep(arg, timeout) runs outside the
 * section (KeWaitForSingleObject's wait, NdisMSleep's); its result is
 * returned. The caller checks that the driver may wait at all.
 */
static void win_fpu_save(struct fxregs_state *fx)
{
#ifdef CONFIG_X86_64
	asm volatile("fxsaveq %0" : "=m" (*fx));
#else
	if (boot_cpu_has(X86_FEATURE_FXSR))
		asm volatile("fxsave %0" : "=m" (*fx));
	else
		asm volatile("fnsave %0; fwait" : "=m" (*fx));
#endif
}

static void win_fpu_restore(struct fxregs_state *fx)
{
#ifdef CONFIG_X86_64
	asm volatile("fxrstorq %0" : : "m" (*fx));
#else
	if (boot_cpu_has(X86_FEATURE_FXSR))
		asm volatile("fxrstor %0" : : "m" (*fx));
	else
		asm volatile("frstor %0" : : "m" (*fx));
#endif
}

long win_sleep_outside_fpu(long (*sleep)(void *arg, long timeout),
			   void *arg, long timeout)
{
	u8 area[sizeof(struct fxregs_state) + 16];
	struct fxregs_state *fx = PTR_ALIGN((void *)area, 16);
	unsigned int depth = this_cpu_read(win_depth);
	u8 irql = this_cpu_read(win_irql);
	bool atomic = this_cpu_read(win_caller_atomic);
	long left;

	if (!depth)
		return sleep(arg, timeout);
	win_fpu_save(fx);
	this_cpu_write(win_irql, WIN_PASSIVE_LEVEL);
	this_cpu_write(win_depth, 0);
	kernel_fpu_end();

	left = sleep(arg, timeout);

	kernel_fpu_begin();
	this_cpu_write(win_depth, depth);
	this_cpu_write(win_irql, irql);
	this_cpu_write(win_caller_atomic, atomic);
	win_fpu_restore(fx);
	return left;
}

/* -- the shared user data page ------------------------------------------- */

/*
 * The page that replaces KUSER_SHARED_DATA for the drivers whose reads of
 * it the loader redirected (wrapper/loader/kuser.h says why the real
 * address cannot be mapped). Made on the first such driver; from then on
 * a timer keeps its clocks current every WIN_KUSER_PERIOD_MS, as Windows'
 * clock interrupt does: InterruptTime (100 ns since boot), SystemTime
 * (100 ns since 1601) and TickCount (clock ticks of KeQueryTimeIncrement),
 * each a KSYSTEM_TIME written High2Time first and then as one 64-bit
 * store, which is what the amd64 macros read. NtMajorVersion and
 * NtMinorVersion say 5.2 (XP x64 / Server 2003), the NDIS 5.1 kernels.
 */
#define WIN_KUSER_PERIOD_MS	10
#define KUSER_TICK_COUNT_LOW	0x000
#define KUSER_TICK_MULTIPLIER	0x004
#define KUSER_INTERRUPT_TIME	0x008
#define KUSER_SYSTEM_TIME	0x014
#define KUSER_NT_MAJOR		0x26c
#define KUSER_NT_MINOR		0x270
#define KUSER_TICK_COUNT	0x320

static DEFINE_MUTEX(win_kuser_lock);
static u8 *win_kuser;
static struct timer_list win_kuser_timer;

static void win_ksystem_time_set(u8 *page, unsigned int off, u64 v)
{
	WRITE_ONCE(*(u32 *)(page + off + 8), (u32)(v >> 32));
	smp_wmb();
#ifdef CONFIG_X86_64
	WRITE_ONCE(*(u64 *)(page + off), v);
#else
	/* i386 readers compare High1Time (written last) with High2Time. */
	WRITE_ONCE(*(u32 *)(page + off), (u32)v);
	smp_wmb();
	WRITE_ONCE(*(u32 *)(page + off + 4), (u32)(v >> 32));
#endif
}

/* InterruptTime: 100 ns units since boot, at the clock tick. */
u64 win_interrupt_time(void)
{
	return div_u64(jiffies64_to_nsecs(get_jiffies_64() - INITIAL_JIFFIES),
		       100);
}

static void win_kuser_update(struct timer_list *timer)
{
	u64 up, tick;

	up = win_interrupt_time();
	tick = win_tick_count(up);
	win_ksystem_time_set(win_kuser, KUSER_INTERRUPT_TIME, up);
	win_ksystem_time_set(win_kuser, KUSER_SYSTEM_TIME, win_system_time());
	win_ksystem_time_set(win_kuser, KUSER_TICK_COUNT, tick);
	WRITE_ONCE(*(u32 *)(win_kuser + KUSER_TICK_COUNT_LOW), (u32)tick);
	mod_timer(&win_kuser_timer,
		  jiffies + msecs_to_jiffies(WIN_KUSER_PERIOD_MS));
}

/* The page's address, made and started on the first call; 0: no memory. */
u64 win_kuser_page(void)
{
	mutex_lock(&win_kuser_lock);
	if (!win_kuser) {
		win_kuser = (u8 *)get_zeroed_page(GFP_KERNEL);
		if (win_kuser) {
			*(u32 *)(win_kuser + KUSER_TICK_MULTIPLIER) =
				div_u64((u64)WIN_TIME_INCREMENT << 24, 10000);
			*(u32 *)(win_kuser + KUSER_NT_MAJOR) = 5;
			*(u32 *)(win_kuser + KUSER_NT_MINOR) = 2;
			timer_setup(&win_kuser_timer, win_kuser_update, 0);
			win_kuser_update(&win_kuser_timer);
		}
	}
	mutex_unlock(&win_kuser_lock);
	return (u64)(uintptr_t)win_kuser;
}

/* Module exit: no driver is left to read it. */
void win_kuser_exit(void)
{
	if (!win_kuser)
		return;
	timer_delete_sync(&win_kuser_timer);
	free_page((unsigned long)win_kuser);
	win_kuser = NULL;
}

/* The clock tick TickCount counts, in 100 ns units. */
static WIN_ABI u32 KeQueryTimeIncrement(void)
{
	return WIN_TIME_INCREMENT;
}
WIN_FUNC(KeQueryTimeIncrement);

#ifdef CONFIG_X86_32
/* A function on i386; amd64's DDK reads KUSER_SHARED_DATA inline. */
static WIN_ABI u64 KeQueryInterruptTime(void)
{
	return win_interrupt_time();
}
WIN_FUNC_I386(KeQueryInterruptTime);
#endif

/* -- IRPs --------------------------------------------------------------- */

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
		ntos_init_irp(irp, size, stack_size);
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

	ntos_init_irp(irp, irp->size, irp->stack_count);
	irp->allocation_flags = flags;
	irp->io_status.status = status;
}
WIN_FUNC(IoReuseIrp);

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

bool ntos_device_identity(struct win_device_object *dev,
			  struct ntos_device_identity *id)
{
	struct ndis_adapter *ad;

	memset(id, 0, sizeof(*id));
	if (!ndis_our_device(dev, &ad))
		return false;
	if (ad->bus == NDIS_BUS_PCI) {
		struct pci_dev *p = ad->pdev;

		id->bus = NTOS_BUS_PCI;
		id->bus_number = p->bus->number;
		id->address = PCI_SLOT(p->devfn) << 16 | PCI_FUNC(p->devfn);
		id->vendor = p->vendor;
		id->device = p->device;
		id->subsystem = p->subsystem_device << 16 | p->subsystem_vendor;
		id->revision = p->revision;
	} else {
		struct usb_device *u = ad->udev;

		id->bus = NTOS_BUS_USB;
		id->bus_number = u->bus->busnum;
		id->address = u->portnum;
		id->vendor = le16_to_cpu(u->descriptor.idVendor);
		id->device = le16_to_cpu(u->descriptor.idProduct);
		id->revision = le16_to_cpu(u->descriptor.bcdDevice);
	}
	return true;
}

s32 ntos_call_driver(struct win_device_object *dev, struct win_irp *irp)
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
	/* the wrapper is the bus driver at the bottom of every stack */
	if (ndis_our_device(dev, &ad) &&
	    irp->current_stack_location->major_function == IRP_MJ_POWER)
		return ntos_power_dispatch(irp);
	if (!ndis_our_device(dev, &ad) || ad->bus != NDIS_BUS_USB) {
		irp->io_status.status = STATUS_INVALID_DEVICE_REQUEST;
		irp->io_status.information = 0;
		ndis_complete_irp(irp, WIN_PASSIVE_LEVEL);
		return STATUS_INVALID_DEVICE_REQUEST;
	}
	return ndis_usb_dispatch(ad, irp);
}

static WIN_FASTCALL s32 IofCallDriver(struct win_device_object *dev,
				      struct win_irp *irp)
{
	return ntos_call_driver(dev, irp);
}
WIN_FUNC(IofCallDriver);

/*
 * The IRPs the wrapper completes are cancelled by usb.c (the Linux URB is
 * unlinked); a cancel routine someone else set is called as Windows
 * calls it: holding the cancel spin lock, which the routine releases
 * with the IRP's CancelIrql (ntos_devobj.c).
 */
static WIN_ABI u8 IoCancelIrp(struct win_irp *irp)
{
	void *routine;

	WRITE_ONCE(irp->cancel, 1);
	routine = xchg(&irp->cancel_routine, NULL);
	if (routine) {
		irp->cancel_irql = ntos_cancel_lock_acquire();
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
	ntos_init_devobj_ext(&w->pdo_ext, &w->pdo);
	ntos_init_devobj_ext(&w->fdo_ext, &w->fdo);
	w->fdo.driver_object = ad->driver->driver_object;
	w->pdo.attached_device = &w->fdo;
}
