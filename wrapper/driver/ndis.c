// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS, the miniport registration, configuration,
 * memory, packet, buffer, spin lock and timer functions.
 *
 * Windows code runs with preemption off (wincall.h): nothing here sleeps,
 * allocations are atomic and go through win_alloc() so leaks are counted.
 * The hardware functions (resources, I/O space, interrupts, DMA) are in
 * ndis_hw.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/kernel.h>
#include <linux/kernel_stat.h>
#include <linux/smp.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/jiffies.h>
#include <linux/timer.h>

#include "../parse/ndiscfg.h"
#include "ndis.h"
#include "ntos.h"
#include "ndis_spinlock.h"
#include "wincall.h"
#include "winexport.h"

/* -- miniport registration --------------------------------------------- */

static WIN_ABI void NdisInitializeWrapper(void **handle, void *driver_object,
					  void *registry_path, void *unused)
{
	*handle = container_of(driver_object, struct ndis_driver,
			       driver_object[0]);
}
WIN_FUNC(NdisInitializeWrapper);

void *ndis_wrapper_driver_object(void *wrapper_handle)
{
	return ((struct ndis_driver *)wrapper_handle)->driver_object;
}

static WIN_ABI void NdisTerminateWrapper(void *handle, void *unused)
{
	struct ndis_driver *drv = handle;

	drv->registered = false;
}
WIN_FUNC(NdisTerminateWrapper);

static WIN_ABI ndis_status NdisMRegisterMiniport(void *handle,
						 const void *chars, u32 len)
{
	struct ndis_driver *drv = handle;
	const struct ndis_miniport_chars *c = chars;

	if (len < offsetof(struct ndis_miniport_chars, return_packet) ||
	    len > sizeof(drv->chars) || c->major < 4) {
		pr_err("%s: miniport characteristics of %u bytes, NDIS %u.%u: not supported\n",
		       drv->name, len, c->major, c->minor);
		return NDIS_STATUS_FAILURE;
	}
	memset(&drv->chars, 0, sizeof(drv->chars));
	memcpy(&drv->chars, chars, len);
	if (!drv->chars.initialize || !drv->chars.halt ||
	    !drv->chars.query_info || !drv->chars.set_info ||
	    (!drv->chars.send && !drv->chars.send_packets)) {
		pr_err("%s: miniport lacks a mandatory handler\n", drv->name);
		return NDIS_STATUS_FAILURE;
	}
	drv->registered = true;
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMRegisterMiniport);

static WIN_ABI void NdisMSetAttributesEx(void *handle, void *ctx,
					 u32 hang_secs, u32 flags, u32 bus)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);

	ad->ctx = ctx;
	ad->attributes = flags;
	ad->hang_secs = hang_secs;
}
WIN_FUNC(NdisMSetAttributesEx);

/*
 * The WDM view of the adapter for NDIS-WDM drivers: the PDO, the FDO and
 * the device object below the FDO, where the driver sends its IRPs. No
 * resource lists: a USB function has none, a PCI driver asks
 * NdisMQueryAdapterResources.
 */
static WIN_ABI void NdisMGetDeviceProperty(void *handle, void **pdo,
					   void **fdo, void **next,
					   void **alloc_res, void **trans_res)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);

	if (pdo)
		*pdo = &ad->wdm.pdo;
	if (fdo)
		*fdo = &ad->wdm.fdo;
	if (next)
		*next = &ad->wdm.pdo;
	if (alloc_res)
		*alloc_res = NULL;
	if (trans_res)
		*trans_res = NULL;
}
WIN_FUNC(NdisMGetDeviceProperty);

/* -- configuration ------------------------------------------------------ */

const char *ndis_setting(struct ndis_adapter *ad, const char *name)
{
	return ndis_cfg_find(ad->settings, ad->num_settings, name);
}

/* ndis_core.h: ndis_config.c's view of the adapter */
struct ndis_config_store *ndis_config_store(void *adapter)
{
	return &((struct ndis_adapter *)adapter)->config;
}

struct ndis_driver *ndis_config_driver(void *adapter)
{
	return ((struct ndis_adapter *)adapter)->driver;
}

const char *ndis_config_setting(void *adapter, const char *name)
{
	return ndis_setting(adapter, name);
}

static WIN_ABI void NdisReadNetworkAddress(ndis_status *status, void **addr,
					   u32 *len, void *handle)
{
	struct ndis_adapter *ad = handle;
	const char *value = ndis_setting(ad, "NetworkAddress");
	u8 mac[ETH_ALEN];
	int i, n = 0;

	*status = NDIS_STATUS_FAILURE;
	if (!value)
		return;
	for (i = 0; value[i] && n < 2 * ETH_ALEN; i++) {
		int digit = hex_to_bin(value[i]);

		if (digit < 0) {
			if (strchr(":-", value[i]))
				continue;
			return;
		}
		mac[n / 2] = n % 2 ? mac[n / 2] << 4 | digit : digit;
		n++;
	}
	if (n != 2 * ETH_ALEN || value[i] || !is_valid_ether_addr(mac))
		return;
	memcpy(ad->mac, mac, ETH_ALEN);
	*addr = ad->mac;
	*len = ETH_ALEN;
	*status = NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisReadNetworkAddress);

void **ndis_log_slot(void *handle)
{
	return &ndis_handle_adapter(handle)->log;
}

/* -- processor times ---------------------------------------------------- */

/*
 * ndis_core.h. The busy time is the scheduler's per-CPU account; idle is
 * the rest of the time since boot, because a tickless kernel does not
 * add to the account's idle field while the CPU sleeps (and the call that
 * does count it is a GPL-only export).
 */
void ndis_cpu_times(unsigned int *cpu, u64 *idle_ns, u64 *total_ns)
{
	static const int busy[] = { CPUTIME_USER, CPUTIME_NICE,
				    CPUTIME_SYSTEM, CPUTIME_SOFTIRQ,
				    CPUTIME_IRQ, CPUTIME_STEAL };
	unsigned int c = raw_smp_processor_id();
	u64 total = jiffies64_to_nsecs(get_jiffies_64() - INITIAL_JIFFIES);
	u64 used = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(busy); i++)
		used += kcpustat_cpu(c).cpustat[busy[i]];
	*cpu = c;
	*total_ns = total;
	*idle_ns = used < total ? total - used : 0;
}

/* -- memory ------------------------------------------------------------- */

const char *ndis_handle_name(void *handle)
{
	return dev_name(ndis_handle_adapter(handle)->dev);
}

static WIN_ABI ndis_status NdisAllocateMemoryWithTag(void **addr, u32 len,
						     u32 tag)
{
	struct ndis_driver *drv;

	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	*addr = drv ? win_alloc(drv, len) : NULL;
	return *addr ? NDIS_STATUS_SUCCESS : NDIS_STATUS_FAILURE;
}
WIN_FUNC(NdisAllocateMemoryWithTag);

static WIN_ABI void NdisFreeMemory(void *addr, u32 len, u32 flags)
{
	win_free(addr);
}
WIN_FUNC(NdisFreeMemory);

/* -- packets and buffers ------------------------------------------------ */

struct ndis_pool {
	struct ndis_driver *drv;
	u32 max;			/* descriptors, with overflow */
	u32 used;
	u32 proto_reserved;
	spinlock_t lock;
};

/* caller: the return address of the export, in the driver's image */
static struct ndis_pool *ndis_new_pool(void *caller, u32 max,
				       u32 proto_reserved)
{
	struct ndis_driver *drv = ndis_driver_at((unsigned long)caller);
	struct ndis_pool *pool;

	if (!drv)
		return NULL;
	pool = win_alloc(drv, sizeof(*pool));
	if (!pool)
		return NULL;
	pool->drv = drv;
	pool->max = max;
	pool->proto_reserved = proto_reserved;
	spin_lock_init(&pool->lock);
	return pool;
}

static bool ndis_pool_get(struct ndis_pool *pool)
{
	bool ok;

	spin_lock(&pool->lock);
	ok = pool->used < pool->max;
	if (ok)
		pool->used++;
	spin_unlock(&pool->lock);
	return ok;
}

static void ndis_pool_put(struct ndis_pool *pool)
{
	spin_lock(&pool->lock);
	pool->used--;
	spin_unlock(&pool->lock);
}

/* caller: as ndis_new_pool's (NdisAllocatePacketPool: ndis_pool.c) */
void ndis_packet_pool_alloc(void *caller, ndis_status *status, void **handle,
			    u32 num, u32 overflow, u32 proto_reserved)
{
	struct ndis_pool *pool = NULL;

	if (proto_reserved <= 4096 && num <= U32_MAX - overflow)
		pool = ndis_new_pool(caller, num + overflow, proto_reserved);
	*handle = pool;
	*status = pool ? NDIS_STATUS_SUCCESS : NDIS_STATUS_RESOURCES;
}

static WIN_ABI void NdisAllocatePacketPoolEx(ndis_status *status,
					     void **handle, u32 num,
					     u32 overflow, u32 proto_reserved)
{
	ndis_packet_pool_alloc(__builtin_return_address(0), status, handle,
			       num, overflow, proto_reserved);
}
WIN_FUNC(NdisAllocatePacketPoolEx);

/* The descriptors of the pool now allocated (NdisPacketPoolUsage). */
u32 ndis_packet_pool_in_use(void *handle)
{
	struct ndis_pool *pool = handle;
	u32 used;

	spin_lock(&pool->lock);
	used = pool->used;
	spin_unlock(&pool->lock);
	return used;
}

static WIN_ABI void NdisFreePacketPool(void *handle)
{
	win_free(handle);
}
WIN_FUNC(NdisFreePacketPool);

/*
 * The out-of-band block follows the protocol reserved area, and the
 * per-packet info block (NDIS_PACKET_EXTENSION) the OOB block: drivers
 * read and write it with NDIS_PER_PACKET_INFO_FROM_PACKET.
 */
static WIN_ABI void NdisAllocatePacket(ndis_status *status,
				       struct ndis_packet **result,
				       void *handle)
{
	struct ndis_pool *pool = handle;
	struct ndis_packet *pkt;
	size_t oob;

	*result = NULL;
	*status = NDIS_STATUS_RESOURCES;
	if (!ndis_pool_get(pool))
		return;
	oob = ALIGN(offsetof(struct ndis_packet, protocol_reserved) +
		    pool->proto_reserved, 8);
	pkt = win_alloc(pool->drv, oob + sizeof(struct ndis_packet_oob) +
			sizeof(struct ndis_packet_ext));
	if (!pkt) {
		ndis_pool_put(pool);
		return;
	}
	pkt->pool = pool;
	pkt->oob_offset = oob;
	*result = pkt;
	*status = NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisAllocatePacket);

static WIN_ABI void NdisFreePacket(struct ndis_packet *pkt)
{
	ndis_pool_put(pkt->pool);
	win_free(pkt);
}
WIN_FUNC(NdisFreePacket);

static WIN_ABI void NdisAllocateBufferPool(ndis_status *status, void **handle,
					   u32 num)
{
	struct ndis_pool *pool;

	pool = ndis_new_pool(__builtin_return_address(0), num, 0);

	*handle = pool;
	*status = pool ? NDIS_STATUS_SUCCESS : NDIS_STATUS_RESOURCES;
}
WIN_FUNC(NdisAllocateBufferPool);

static WIN_ABI void NdisFreeBufferPool(void *handle)
{
	win_free(handle);
}
WIN_FUNC(NdisFreeBufferPool);

/* An MDL over memory the driver has mapped: nonpaged, system VA known. */
static WIN_ABI void NdisAllocateBuffer(ndis_status *status,
				       struct win_mdl **result, void *handle,
				       void *va, u32 len)
{
	struct ndis_pool *pool = handle;
	struct win_mdl *mdl;

	*result = NULL;
	*status = NDIS_STATUS_FAILURE;
	if (!ndis_pool_get(pool))
		return;
	mdl = win_alloc(pool->drv, sizeof(*mdl) + sizeof(void *));
	if (!mdl) {
		ndis_pool_put(pool);
		return;
	}
	*(struct ndis_pool **)(mdl + 1) = pool;
	ndis_mdl_init(mdl, va, len);
	*result = mdl;
	*status = NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisAllocateBuffer);

/*
 * The MDLs NdisAllocateBuffer hands out; on amd64 the DDK's NdisFreeBuffer
 * is a macro for IoFreeMdl (ntoskrnl.c), which comes here.
 */
void ndis_free_mdl(struct win_mdl *mdl)
{
	if (!mdl)
		return;
	ndis_pool_put(*(struct ndis_pool **)(mdl + 1));
	win_free(mdl);
}

static WIN_ABI void NdisFreeBuffer(struct win_mdl *mdl)
{
	ndis_free_mdl(mdl);
}
WIN_FUNC(NdisFreeBuffer);

static WIN_ABI void NdisUnchainBufferAtFront(struct ndis_packet *pkt,
					     struct win_mdl **result)
{
	struct win_mdl *mdl = pkt->head;

	*result = mdl;
	if (!mdl)
		return;
	pkt->head = mdl->next;
	if (!pkt->head)
		pkt->tail = NULL;
	mdl->next = NULL;
	pkt->valid_counts = 0;
}
WIN_FUNC(NdisUnchainBufferAtFront);

/*
 * The pages an MDL's bytes span (ADDRESS_AND_SIZE_TO_SPAN_PAGES of its
 * virtual address and byte count); an empty buffer counts one, as on
 * Windows. NdisGetBufferPhysicalArraySize is a DDK macro for it.
 */
static WIN_ABI u32 NDIS_BUFFER_TO_SPAN_PAGES(struct win_mdl *mdl)
{
	u64 end;

	if (!mdl->byte_count)
		return 1;
	end = (u64)offset_in_page(mdl->byte_offset) + mdl->byte_count;
	return DIV_ROUND_UP_ULL(end, PAGE_SIZE);
}
WIN_FUNC(NDIS_BUFFER_TO_SPAN_PAGES);

/* -- time ----------------------------------------------------------------- */

static long ndis_sleep_us(void *unused, long usecs)
{
	if (usecs <= 20 * USEC_PER_MSEC)
		usleep_range(usecs, usecs + usecs / 8 + 10);
	else
		msleep(DIV_ROUND_UP(usecs, USEC_PER_MSEC));
	return 0;
}

/*
 * NdisMSleep really sleeps (the CPU is given up: usleep_range for up to
 * 20 ms, msleep above), leaving the FPU section as KeWaitForSingleObject
 * does. Windows allows it at PASSIVE_LEVEL only; anywhere else (a DPC, a
 * timer, the ISR, under a spin lock) a sleep would schedule in atomic
 * context, so it is refused with an error and returns at once.
 */
static WIN_ABI void NdisMSleep(u32 usecs)
{
	u8 irql = win_current_irql();

	/*
	 * Not in_interrupt(): since 6.15 the FPU section Windows code runs in
	 * disables bottom halves, so it is true on every call chain; ask
	 * whether the caller of the outermost call could sleep.
	 */
	if (irql > WIN_PASSIVE_LEVEL || !win_may_sleep()) {
		pr_err_ratelimited("NdisMSleep(%u us) at IRQL %u: sleeping is allowed at PASSIVE_LEVEL only; refused\n",
				   usecs, irql);
		return;
	}
	win_sleep_outside_fpu(ndis_sleep_us, NULL, usecs);
}
WIN_FUNC(NdisMSleep);

/* -- spin locks --------------------------------------------------------- */

/*
 * NDIS_SPIN_LOCK is { KSPIN_LOCK SpinLock; KIRQL OldIrql; } in the
 * driver's storage. On amd64 the DDK's NdisAllocateSpinLock zeroes the
 * KSPIN_LOCK inline and NdisAcquireSpinLock & co. are macros over the
 * ntoskrnl Ke*SpinLock* family (ntoskrnl.c), so a driver built from the
 * DDK never calls these; they are real NDIS.SYS exports all the same and
 * work on the very same word, so both forms can share one lock.
 */
static WIN_ABI void NdisAllocateSpinLock(struct ndis_spin_lock *sl)
{
	sl->lock = 0;
	sl->old_irql = WIN_PASSIVE_LEVEL;
}
WIN_FUNC(NdisAllocateSpinLock);

static WIN_ABI void NdisFreeSpinLock(struct ndis_spin_lock *sl)
{
}
WIN_FUNC(NdisFreeSpinLock);

/* Raises to DISPATCH_LEVEL, as on Windows; release goes back. */
void ndis_spin_lock_acquire(struct ndis_spin_lock *sl)
{
	sl->old_irql = win_spin_acquire_raise(&sl->lock);
}

void ndis_spin_lock_release(struct ndis_spin_lock *sl)
{
	win_spin_release_lower(&sl->lock, sl->old_irql);
}

static WIN_ABI void NdisAcquireSpinLock(struct ndis_spin_lock *sl)
{
	ndis_spin_lock_acquire(sl);
}
WIN_FUNC(NdisAcquireSpinLock);

static WIN_ABI void NdisReleaseSpinLock(struct ndis_spin_lock *sl)
{
	ndis_spin_lock_release(sl);
}
WIN_FUNC(NdisReleaseSpinLock);

static WIN_ABI void NdisDprAcquireSpinLock(struct ndis_spin_lock *sl)
{
	win_spin_acquire(&sl->lock);
}
WIN_FUNC(NdisDprAcquireSpinLock);

static WIN_ABI void NdisDprReleaseSpinLock(struct ndis_spin_lock *sl)
{
	win_spin_release(&sl->lock);
}
WIN_FUNC(NdisDprReleaseSpinLock);

/* -- work items ------------------------------------------------------------ */

/*
 * NdisScheduleWorkItem: the routine runs at PASSIVE_LEVEL on ndis_work_wq
 * and may wait (KeWaitForSingleObject) for IRPs, whose completion routines
 * run on ndis_irp_wq: a separate queue, so a waiting work item never holds
 * up the completion it waits for. The wrapper's part is its own
 * allocation (the driver's NDIS_WORK_ITEM may be freed by the routine);
 * ndis_flush_work_items() waits for all of them after MiniportHalt.
 */
struct ndis_work {
	struct work_struct work;
	void *item;			/* NDIS_WORK_ITEM */
};

struct ndis_work_item {			/* the driver's storage */
	void *context;
	void *routine;
	u8 wrapper_reserved[8 * sizeof(void *)];
};
static_assert(offsetof(struct ndis_work_item, routine) == WIN_LAYOUT(8, 4));
static_assert(offsetof(struct ndis_work_item, wrapper_reserved) ==
	      WIN_LAYOUT(0x10, 0x8));

static void ndis_work_run(struct work_struct *work)
{
	struct ndis_work *w = container_of(work, struct ndis_work, work);
	struct ndis_work_item *item = w->item;
	void *routine = READ_ONCE(item->routine);
	void *context = READ_ONCE(item->context);

	kfree(w);
	LIN2WIN2(routine, item, context);
}

static WIN_ABI ndis_status NdisScheduleWorkItem(struct ndis_work_item *item)
{
	struct ndis_work *w;

	w = kzalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		return NDIS_STATUS_RESOURCES;
	INIT_WORK(&w->work, ndis_work_run);
	w->item = item;
	queue_work(ndis_work_wq, &w->work);
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisScheduleWorkItem);

/* ndis_core.h: fn(arg) later, from the module's work queue */
struct ndis_deferred {
	struct work_struct work;
	void (*fn)(void *arg);
	void *arg;
};

static void ndis_deferred_run(struct work_struct *work)
{
	struct ndis_deferred *d = container_of(work, struct ndis_deferred,
					       work);

	d->fn(d->arg);
	kfree(d);
}

int ndis_defer(void (*fn)(void *arg), void *arg)
{
	struct ndis_deferred *d = kzalloc(sizeof(*d), GFP_ATOMIC);

	if (!d)
		return -ENOMEM;
	INIT_WORK(&d->work, ndis_deferred_run);
	d->fn = fn;
	d->arg = arg;
	queue_work(ndis_work_wq, &d->work);
	return 0;
}

void ndis_flush_work_items(void)
{
	flush_workqueue(ndis_work_wq);
}

/* -- timers ------------------------------------------------------------- */

/*
 * An NDIS timer is a Linux timer whose expiry queues the timer function
 * as a DPC: a work item on the module's workqueue, where Windows code may
 * run (process context). The driver's NDIS_MINIPORT_TIMER holds a pointer
 * to it; the adapter keeps them all and frees them after MiniportHalt.
 */
struct ndis_timer {
	struct list_head list;		/* adapter->timers */
	spinlock_t lock;		/* period against the re-arm */
	unsigned long period;		/* jiffies; 0: one-shot */
	struct timer_list timer;
	struct work_struct dpc;
	struct ndis_miniport_timer *storage;
	struct ndis_adapter *ad;
	void *func;
	void *context;
};

static void ndis_timer_dpc(struct work_struct *work)
{
	struct ndis_timer *t = container_of(work, struct ndis_timer, dpc);

	ndis_serialize(t->ad);
	DPC2WIN4(t->func, NULL, t->context, NULL, NULL);
	ndis_unserialize(t->ad);
}

/*
 * A periodic timer is re-armed when it fires, before its DPC runs, as
 * Windows' KeSetTimerEx does: the period counts from expiry to expiry.
 * A DPC still queued or running when it fires again runs once more after
 * (a work item queued twice runs once: a late DPC is not doubled).
 */
static void ndis_timer_fire(struct timer_list *timer)
{
	struct ndis_timer *t = timer_container_of(t, timer, timer);

	spin_lock(&t->lock);
	if (t->period)
		mod_timer(&t->timer, jiffies + t->period);
	spin_unlock(&t->lock);
	queue_work(ndis_wq, &t->dpc);
}

static WIN_ABI void NdisMInitializeTimer(struct ndis_miniport_timer *storage,
					 void *handle, void *func,
					 void *context)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	struct ndis_timer *t;

	/* the storage may have held an NDIS_TIMER of the driver's before */
	win_timer_forget(storage->kernel.ktimer);
	memset(storage, 0, sizeof(*storage));
	t = win_alloc(ad->driver, sizeof(*t));
	if (!t) {
		pr_err("%s: no memory for a timer\n", ad->driver->name);
		return;
	}
	spin_lock_init(&t->lock);
	timer_setup(&t->timer, ndis_timer_fire, 0);
	INIT_WORK(&t->dpc, ndis_timer_dpc);
	t->storage = storage;
	t->ad = ad;
	t->func = func;
	t->context = context;
	list_add(&t->list, &ad->timers);
	storage->func = func;
	storage->context = context;
	storage->miniport = handle;
	memcpy(storage->kernel.ktimer, &t, sizeof(t));
}
WIN_FUNC(NdisMInitializeTimer);

static struct ndis_timer *ndis_timer_of(struct ndis_miniport_timer *storage)
{
	struct ndis_timer *t;

	memcpy(&t, storage->kernel.ktimer, sizeof(t));
	return t;
}

static void ndis_arm_timer(struct ndis_miniport_timer *storage, u32 msecs,
			   unsigned long period, const char *caller)
{
	struct ndis_timer *t = ndis_timer_of(storage);

	if (!t) {
		pr_err_once("%s on a timer NdisMInitializeTimer did not set up\n",
			    caller);
		return;
	}
	spin_lock_bh(&t->lock);
	t->period = period;
	mod_timer(&t->timer, jiffies + msecs_to_jiffies(msecs));
	spin_unlock_bh(&t->lock);
}

/*
 * NdisSetTimer (ndis_timer.c) on the driver's NDIS_MINIPORT_TIMER: on
 * amd64 the DDK's NdisMSetTimer is a macro over it (NDIS.SYS exports no
 * NdisMSetTimer there), which works because both timer types begin with
 * the same KTIMER, where NdisMInitializeTimer left our pointer.
 */
void ndis_miniport_timer_set(void *storage, u32 msecs)
{
	ndis_arm_timer(storage, msecs, 0, "NdisSetTimer");
}

/* First expiry after msecs, then every msecs until NdisMCancelTimer. */
static WIN_ABI void NdisMSetPeriodicTimer(struct ndis_miniport_timer *storage,
					  u32 msecs)
{
	ndis_arm_timer(storage, msecs, max(msecs_to_jiffies(msecs), 1UL),
		       "NdisMSetPeriodicTimer");
}
WIN_FUNC(NdisMSetPeriodicTimer);

static WIN_ABI void NdisMCancelTimer(struct ndis_miniport_timer *storage,
				     u8 *cancelled)
{
	struct ndis_timer *t = ndis_timer_of(storage);
	bool was_pending = false;

	if (t) {
		spin_lock_bh(&t->lock);
		t->period = 0;
		was_pending = timer_delete(&t->timer);
		spin_unlock_bh(&t->lock);
		was_pending |= cancel_work(&t->dpc);
	}
	*cancelled = was_pending;
}
WIN_FUNC(NdisMCancelTimer);

/* After MiniportHalt: no timer may fire into the unloaded driver. */
void ndis_stop_timers(struct ndis_adapter *ad)
{
	struct ndis_timer *t, *tmp;

	list_for_each_entry_safe(t, tmp, &ad->timers, list) {
		spin_lock_bh(&t->lock);
		t->period = 0;
		spin_unlock_bh(&t->lock);
		timer_delete_sync(&t->timer);
		cancel_work_sync(&t->dpc);
		list_del(&t->list);
		win_free(t);
	}
}
