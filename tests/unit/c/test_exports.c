// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the wrapper's NDIS.SYS and USBD.SYS exports that need no
 * kernel (wrapper/driver/ndis_string.c, ndis_buffer.c, ndis_list.c,
 * ndis_event.c, ndis_misc.c, ndis_mem.c, ndis_log.c, ndis_pool.c,
 * ndis_port.c, ndis_status.c, ndis_rwlock.c, ndis_timer.c, usbd_desc.c), built -nostdinc against kmock
 * as the kernel builds them (kexports in meson.build). Each export is
 * reached through its win_export_<name> entry, the one gen_exports.sh puts
 * in the import table, and called as a driver calls it (ms_abi): a missing
 * export fails the link, a wrong name or behaviour a check.
 *
 * The kernel and wrapper services the files call are this program's
 * (below): the NDIS spin lock pair, the IRQL, the ntoskrnl event exports, the
 * export tables, the driver of a caller and its allocations, the packet
 * pools, I/O ports, the kernel log, the CPU count, the DMA alignment and
 * the wall clock.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kx_export.h"
#include "tap.h"

#define WIN __attribute__((ms_abi))

/* -- amd64 layouts (wintypes.h, wdm.h) -------------------------------------- */

struct kx_ustring {
	uint16_t length, max_length;
	uint16_t *buffer;
};

struct kx_astring {
	uint16_t length, max_length;
	char *buffer;
};

struct kx_mdl {
	struct kx_mdl *next;
	int16_t size, flags;
	void *process;
	void *mapped_va;
	void *start_va;
	uint32_t byte_count, byte_offset;
};

#define MDL_MAPPED_TO_SYSTEM_VA		0x0001
#define MDL_SOURCE_IS_NONPAGED_POOL	0x0004

struct kx_packet {
	uint32_t physical_count, total_length;
	struct kx_mdl *head, *tail;
	void *pool;
	uint32_t count, flags;
	uint8_t valid_counts, packet_flags;
	uint16_t oob_offset;
	uint8_t rest[64];
};

struct kx_list {
	struct kx_list *flink, *blink;
};

struct kx_spin_lock {
	unsigned long lock;
	uint8_t old_irql;
};

struct kx_kevent {
	uint8_t type, signalling, size, reserved;
	int32_t signal_state;
	struct kx_list wait_list_head;
};

struct kx_win_dll {
	const char *name;
	const struct kx_export *const *exports;
	unsigned int count;
};

/* -- the services the exports call ------------------------------------------- */

/* hal.c's IRQL (ndis_core.h), which the fake spin lock raises too */
static uint8_t irql_now;

uint8_t hal_irql(void);
void hal_set_irql(uint8_t level, const char *wrong_way);

uint8_t hal_irql(void)
{
	return irql_now;
}

void hal_set_irql(uint8_t level, const char *wrong_way)
{
	CHECK(!wrong_way);
	irql_now = level;
}

/* ndis_spin_lock.h: NdisAcquireSpinLock/NdisReleaseSpinLock */
static int lock_acquires, lock_releases;

void ndis_spin_lock_acquire(struct kx_spin_lock *sl);
void ndis_spin_lock_release(struct kx_spin_lock *sl);

void ndis_spin_lock_acquire(struct kx_spin_lock *sl)
{
	CHECK(sl->lock == 0);
	sl->lock = 1;
	sl->old_irql = irql_now;	/* raised to DISPATCH_LEVEL */
	irql_now = 2;
	lock_acquires++;
}

void ndis_spin_lock_release(struct kx_spin_lock *sl)
{
	CHECK(sl->lock == 1);
	sl->lock = 0;
	irql_now = sl->old_irql;
	lock_releases++;
}

/* ntoskrnl.c's event exports, as NDIS_EVENT delegates to them */
static struct {
	void *event;
	uint32_t type;
	uint8_t state;
	int64_t timeout;	/* 1: none given (wait forever) */
	int calls;
} ke;
static int32_t ke_wait_status;

static WIN void fake_KeInitializeEvent(void *ev, uint32_t type, uint8_t state)
{
	ke.event = ev;
	ke.type = type;
	ke.state = state;
	ke.calls++;
}

static WIN int32_t fake_KeSetEvent(void *ev, int32_t incr, uint8_t wait)
{
	ke.event = ev;
	ke.calls++;
	return incr + wait;	/* 0 for NdisSetEvent's call */
}

static WIN int32_t fake_KeResetEvent(void *ev)
{
	ke.event = ev;
	ke.calls++;
	return 1;
}

static WIN int32_t fake_KeWaitForSingleObject(void *obj, uint32_t reason,
					       uint8_t mode, uint8_t alertable,
					       int64_t *timeout)
{
	ke.event = obj;
	ke.timeout = timeout ? *timeout : 1;
	ke.calls++;
	CHECK(reason == 0 && mode == 0 && alertable == 0);
	return ke_wait_status;
}

const struct kx_export win_export_KeInitializeEvent = {
	"KeInitializeEvent", (void *)fake_KeInitializeEvent };
const struct kx_export win_export_KeSetEvent = {
	"KeSetEvent", (void *)fake_KeSetEvent };
const struct kx_export win_export_KeResetEvent = {
	"KeResetEvent", (void *)fake_KeResetEvent };
const struct kx_export win_export_KeWaitForSingleObject = {
	"KeWaitForSingleObject", (void *)fake_KeWaitForSingleObject };

/* gen_exports.sh's tables: NdisGetRoutineAddress looks in NDIS.SYS's */
static char routine_a, routine_b, ke_routine;
static const struct kx_export ndis_a = { "NdisAllocateMemoryWithTag",
					 &routine_a };
static const struct kx_export ndis_b = { "NdisMSleep", &routine_b };
static const struct kx_export ke_a = { "KeSetEvent", &ke_routine };
static const struct kx_export *const ntos_table[] = { &ke_a };
static const struct kx_export *const ndis_table[] = { &ndis_a, &ndis_b };
const struct kx_win_dll win_dlls[] = {
	{ "ntoskrnl.exe", ntos_table, 1 },
	{ "NDIS.SYS", ndis_table, 2 },
};
const unsigned int win_num_dlls = 2;

/* ndis_core.h: the driver a return address lies in, its allocations */
static char fake_driver;
static int driver_known = 1, allocs, frees;
static unsigned long last_caller;
static unsigned long long phys_base;	/* virt_to_phys: base + offset */

void *ndis_driver_at(unsigned long addr);
void *win_alloc(void *drv, unsigned long size);
void win_free(void *ptr);
const char *ndis_handle_name(void *handle);
unsigned long long virt_to_phys(volatile void *address);

void *ndis_driver_at(unsigned long addr)
{
	last_caller = addr;
	return driver_known ? &fake_driver : NULL;
}

void *win_alloc(void *drv, unsigned long size)
{
	CHECK(drv == &fake_driver);
	allocs++;
	return calloc(1, size);
}

void win_free(void *ptr)
{
	frees++;
	free(ptr);
}

static char adapter_handle;

const char *ndis_handle_name(void *handle)
{
	CHECK(handle == &adapter_handle);
	return "0000:00:04.0";
}

unsigned long long virt_to_phys(volatile void *address)
{
	return phys_base + ((uintptr_t)address & 0xfff);
}

/* ntos_timer.c's KTIMER bookkeeping, which NDIS_TIMER's calls use */
static struct {
	void *ktimer;		/* the one win_timer_init_for set up */
	void *drv;
	void *forgotten;
	int inits;
} ktimers;

void win_timer_init_for(void *ktimer, void *drv);
bool win_timer_known(const void *ktimer);
void win_timer_forget(void *ktimer);

void win_timer_init_for(void *ktimer, void *drv)
{
	ktimers.ktimer = ktimer;
	ktimers.drv = drv;
	ktimers.inits++;
}

bool win_timer_known(const void *ktimer)
{
	return ktimer && ktimer == ktimers.ktimer;
}

void win_timer_forget(void *ktimer)
{
	ktimers.forgotten = ktimer;
	if (ktimer == ktimers.ktimer)
		ktimers.ktimer = NULL;
}

/* ntoskrnl.c's KeSetTimer and KeCancelTimer, as NDIS_TIMER delegates */
static struct {
	void *ktimer, *dpc;
	int64_t due;
	int sets, cancels;
	uint8_t was_set;
} ke_timer;

static WIN uint8_t fake_KeSetTimer(void *kt, int64_t due, void *dpc)
{
	ke_timer.ktimer = kt;
	ke_timer.due = due;
	ke_timer.dpc = dpc;
	ke_timer.sets++;
	return ke_timer.was_set;
}

static WIN uint8_t fake_KeCancelTimer(void *kt)
{
	ke_timer.ktimer = kt;
	ke_timer.cancels++;
	return ke_timer.was_set;
}

const struct kx_export win_export_KeSetTimer = {
	"KeSetTimer", (void *)fake_KeSetTimer };
const struct kx_export win_export_KeCancelTimer = {
	"KeCancelTimer", (void *)fake_KeCancelTimer };

/* ndis.c's NdisSetTimer on an NDIS_MINIPORT_TIMER */
static struct {
	void *storage;
	uint32_t msecs;
	int calls;
} miniport_timer;

void ndis_miniport_timer_set(void *storage, uint32_t msecs);

void ndis_miniport_timer_set(void *storage, uint32_t msecs)
{
	miniport_timer.storage = storage;
	miniport_timer.msecs = msecs;
	miniport_timer.calls++;
}

/* pe_image.c: the driver's unload handler */
static struct {
	void *handle, *func;
	int calls;
} unload_handler;

void ndis_driver_set_unload(void *wrapper_handle, void *func);

void ndis_driver_set_unload(void *wrapper_handle, void *func)
{
	unload_handler.handle = wrapper_handle;
	unload_handler.func = func;
	unload_handler.calls++;
}

/* ndis_core.h: ndis.c's packet pools */
static struct {
	void *caller;
	uint32_t num, overflow, proto_reserved;
	int calls;
} pool_alloc;

void ndis_packet_pool_alloc(void *caller, int32_t *status, void **handle,
			    uint32_t num, uint32_t overflow,
			    uint32_t proto_reserved);
uint32_t ndis_packet_pool_in_use(void *handle);

void ndis_packet_pool_alloc(void *caller, int32_t *status, void **handle,
			    uint32_t num, uint32_t overflow,
			    uint32_t proto_reserved)
{
	pool_alloc.caller = caller;
	pool_alloc.num = num;
	pool_alloc.overflow = overflow;
	pool_alloc.proto_reserved = proto_reserved;
	pool_alloc.calls++;
	*handle = &pool_alloc;
	*status = 0;
}

uint32_t ndis_packet_pool_in_use(void *handle)
{
	CHECK(handle == &pool_alloc);
	return 7;
}

/* ndis.c's NdisAllocatePacket, which NdisDprAllocatePacket is */
static struct {
	void *pool;
	int calls;
} packet_alloc;
static char fake_packet;

static WIN void fake_NdisAllocatePacket(int32_t *status, void **packet,
					void *pool)
{
	packet_alloc.pool = pool;
	packet_alloc.calls++;
	*packet = &fake_packet;
	*status = 0;
}

const struct kx_export win_export_NdisAllocatePacket = {
	"NdisAllocatePacket", (void *)fake_NdisAllocatePacket };

/* ndis_hw.c's PCI configuration space calls, which the immediate ones
 * are */
static struct {
	void *handle, *buf;
	uint32_t slot, offset, len;
	int reads, writes;
} slot_io;

static WIN uint32_t fake_slot_read(void *handle, uint32_t slot,
				   uint32_t offset, void *buf, uint32_t len)
{
	slot_io.handle = handle;
	slot_io.slot = slot;
	slot_io.offset = offset;
	slot_io.buf = buf;
	slot_io.len = len;
	slot_io.reads++;
	return len - 1;
}

static WIN uint32_t fake_slot_write(void *handle, uint32_t slot,
				    uint32_t offset, void *buf, uint32_t len)
{
	slot_io.handle = handle;
	slot_io.slot = slot;
	slot_io.offset = offset;
	slot_io.buf = buf;
	slot_io.len = len;
	slot_io.writes++;
	return len - 2;
}

const struct kx_export win_export_NdisReadPciSlotInformation = {
	"NdisReadPciSlotInformation", (void *)fake_slot_read };
const struct kx_export win_export_NdisWritePciSlotInformation = {
	"NdisWritePciSlotInformation", (void *)fake_slot_write };

/* kmock's asm/io.h: one byte-wide port */
static unsigned long port_seen;
static unsigned char port_value;

unsigned char inb(unsigned long port);
void outb(unsigned char value, unsigned long port);

unsigned char inb(unsigned long port)
{
	port_seen = port;
	return port_value;
}

void outb(unsigned char value, unsigned long port)
{
	port_seen = port;
	port_value = value;
}

/* kmock's linux/printk.h: the last line logged */
static char logged[512];

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(logged, sizeof(logged), fmt, ap);
	va_end(ap);
	return n;
}

/* kmock's linux/dma-mapping.h */
int dma_get_cache_alignment(void);
int dma_get_cache_alignment(void)
{
	return 64;
}

/* kmock's linux/cpumask.h and linux/ktime.h */
unsigned int num_online_cpus(void);
unsigned int num_online_cpus(void)
{
	return 3;
}

struct kx_timespec64 {
	int64_t tv_sec;
	long tv_nsec;
};

void ktime_get_real_ts64(struct kx_timespec64 *ts);
void ktime_get_real_ts64(struct kx_timespec64 *ts)
{
	ts->tv_sec = 1700000000;	/* 2023-11-14 22:13:20 UTC */
	ts->tv_nsec = 123456789;
}

/* ndis_core.h: ndis.c's adapter's log slot (adapter_handle's) */
static void *adapter_log;

void **ndis_log_slot(void *handle);
void **ndis_log_slot(void *handle)
{
	CHECK(handle == &adapter_handle);
	return &adapter_log;
}

/* ndis_core.h: ntos_devobj.c's device objects and links, ndis.c's
 * driver object: a record of the calls, one device object at a time */
#define KX_DEVOBJ_FLAGS		0x30	/* DEVICE_OBJECT.Flags (amd64) */
static char fake_driver_object[16], wrapper_handle;
static struct {
	uint8_t devobj[0x160];
	void *driver_object;
	unsigned long caller;
	char name[64], link[64], target[64];
	uint32_t type;
	int32_t create_status, link_status;
	int creates, deletes, links, unlinks;
	void *deleted;
} io;

static void ascii_of(char *out, size_t size, const struct kx_ustring *u)
{
	size_t i;

	for (i = 0; i < u->length / 2 && i + 1 < size; i++)
		out[i] = u->buffer[i];
	out[i] = 0;
}

int32_t ntos_create_device(unsigned long caller, void *driver_object,
			   uint32_t ext_size, const struct kx_ustring *name,
			   uint32_t type, uint32_t characteristics,
			   void **device);
void ntos_delete_device(unsigned long caller, void *device);
int32_t ntos_create_link(unsigned long caller, const struct kx_ustring *link,
			 const struct kx_ustring *target);
int32_t ntos_delete_link(const struct kx_ustring *link);
void *ndis_wrapper_driver_object(void *wrapper_handle);

int32_t ntos_create_device(unsigned long caller, void *driver_object,
			   uint32_t ext_size, const struct kx_ustring *name,
			   uint32_t type, uint32_t characteristics,
			   void **device)
{
	io.creates++;
	io.caller = caller;
	io.driver_object = driver_object;
	io.type = type;
	CHECK(ext_size == 0 && characteristics == 0);
	ascii_of(io.name, sizeof(io.name), name);
	*device = NULL;
	if (io.create_status)
		return io.create_status;
	memset(io.devobj, 0, sizeof(io.devobj));
	io.devobj[KX_DEVOBJ_FLAGS] = 0x80;	/* DO_DEVICE_INITIALIZING */
	*device = io.devobj;
	return 0;
}

void ntos_delete_device(unsigned long caller, void *device)
{
	CHECK(caller != 0);
	io.deletes++;
	io.deleted = device;
}

int32_t ntos_create_link(unsigned long caller, const struct kx_ustring *link,
			 const struct kx_ustring *target)
{
	CHECK(caller == io.caller);
	io.links++;
	ascii_of(io.link, sizeof(io.link), link);
	ascii_of(io.target, sizeof(io.target), target);
	return io.link_status;
}

int32_t ntos_delete_link(const struct kx_ustring *link)
{
	io.unlinks++;
	ascii_of(io.link, sizeof(io.link), link);
	return 0;
}

void *ndis_wrapper_driver_object(void *handle)
{
	CHECK(handle == &wrapper_handle);
	return fake_driver_object;
}

/* ndis_core.h: ndis.c's deferred calls (run by the test when it
 * chooses), ndis_hw.c's MiniportAllocateComplete and
 * NdisMAllocateSharedMemory */
static struct {
	void (*fn)(void *);
	void *arg;
	int defers, fail;
	int has_handler;
	void *handle, *va, *ctx;
	uint64_t pa;
	uint32_t len;
	int completes;
	uint8_t cached;
	int allocs;
	void *give_va;
} async;

int ndis_defer(void (*fn)(void *), void *arg);
bool ndis_allocate_complete_set(void *handle);
void ndis_allocate_complete(void *handle, void *va, uint64_t *pa,
			    uint32_t len, void *ctx);

int ndis_defer(void (*fn)(void *), void *arg)
{
	async.defers++;
	if (async.fail)
		return -12;
	async.fn = fn;
	async.arg = arg;
	return 0;
}

bool ndis_allocate_complete_set(void *handle)
{
	CHECK(handle == &adapter_handle);
	return async.has_handler;
}

void ndis_allocate_complete(void *handle, void *va, uint64_t *pa,
			    uint32_t len, void *ctx)
{
	async.completes++;
	async.handle = handle;
	async.va = va;
	async.pa = *pa;
	async.len = len;
	async.ctx = ctx;
}

static WIN void fake_NdisMAllocateSharedMemory(void *handle, uint32_t len,
					       uint8_t cached, void **va,
					       uint64_t *pa)
{
	CHECK(handle == &adapter_handle);
	async.allocs++;
	async.cached = cached;
	*va = async.give_va;
	if (async.give_va)
		*pa = 0x1234000 + len;
}

const struct kx_export win_export_NdisMAllocateSharedMemory = {
	"NdisMAllocateSharedMemory", (void *)fake_NdisMAllocateSharedMemory };

/* ndis_core.h: ndis_hw.c's map registers and DMA mappings: the bus
 * address of a piece is its address + 0x100000000, one failure on
 * request */
static struct {
	uint32_t count;
	void *state;
	int maps, unmaps, fail_at;
	uint64_t unmapped[8];
	uint32_t unmapped_len[8];
	bool to_device, unmap_to_device;
} dma;

uint32_t ndis_map_register_count(void *handle);
void **ndis_map_register_slot(void *handle);
void *ndis_map_register_driver(void *handle);
int ndis_dma_map(void *handle, void *va, uint32_t len, bool to_device,
		 uint64_t *addr);
void ndis_dma_unmap(void *handle, uint64_t addr, uint32_t len,
		    bool to_device);

uint32_t ndis_map_register_count(void *handle)
{
	CHECK(handle == &adapter_handle);
	return dma.count;
}

void **ndis_map_register_slot(void *handle)
{
	CHECK(handle == &adapter_handle);
	return &dma.state;
}

void *ndis_map_register_driver(void *handle)
{
	CHECK(handle == &adapter_handle);
	return &fake_driver;
}

int ndis_dma_map(void *handle, void *va, uint32_t len, bool to_device,
		 uint64_t *addr)
{
	CHECK(handle == &adapter_handle);
	CHECK(((uintptr_t)va & 0xfff) + len <= 4096);
	if (++dma.maps == dma.fail_at)
		return -12;
	dma.to_device = to_device;
	*addr = (uintptr_t)va + 0x100000000ULL;
	return 0;
}

void ndis_dma_unmap(void *handle, uint64_t addr, uint32_t len,
		    bool to_device)
{
	CHECK(handle == &adapter_handle);
	dma.unmap_to_device = to_device;
	if (dma.unmaps < 8) {
		dma.unmapped[dma.unmaps] = addr;
		dma.unmapped_len[dma.unmaps] = len;
	}
	dma.unmaps++;
}

/* ndis_core.h: ndis.c's processor times */
static struct {
	unsigned int cpu;
	uint64_t idle_ns, total_ns;
} cpu_times;

void ndis_cpu_times(unsigned int *cpu, uint64_t *idle_ns, uint64_t *total_ns);
void ndis_cpu_times(unsigned int *cpu, uint64_t *idle_ns, uint64_t *total_ns)
{
	*cpu = cpu_times.cpu;
	*idle_ns = cpu_times.idle_ns;
	*total_ns = cpu_times.total_ns;
}

/* kmock's jiffies.h: the 64-bit tick count, KMOCK_HZ (1000) a second */
static uint64_t jiffies_now;

uint64_t get_jiffies_64(void);
uint64_t get_jiffies_64(void)
{
	return jiffies_now;
}

/* ntos_firmware.h: ntoskrnl.c's firmware files, here two made-up ones */
static const uint8_t fw_bytes[5] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
static struct {
	char name[80];
	unsigned long caller;
	int gets, puts;
	void *put_cookie;
} fw;

int ntos_firmware_get(unsigned long caller, const char *name,
		      const uint8_t **data, size_t *size, void **cookie);
void ntos_firmware_put(void *cookie);

int ntos_firmware_get(unsigned long caller, const char *name,
		      const uint8_t **data, size_t *size, void **cookie)
{
	snprintf(fw.name, sizeof(fw.name), "%s", name);
	fw.caller = caller;
	fw.gets++;
	if (!strcmp(name, "nomem.bin"))
		return -12;	/* -ENOMEM */
	if (!strcmp(name, "huge.bin"))
		return -22;	/* -EINVAL: over 16 MiB */
	if (strcmp(name, "fw.bin") && strcmp(name, "FW2.BIN"))
		return -2;	/* -ENOENT */
	*data = fw_bytes;
	*size = sizeof(fw_bytes);
	*cookie = (void *)fw_bytes;
	return 0;
}

void ntos_firmware_put(void *cookie)
{
	fw.put_cookie = cookie;
	fw.puts++;
}

/* ndis_core.h: ndis.c's adapter as ndis_config.c sees it: one made-up
 * adapter with two .conf settings */
struct kx_config_store {
	void *params, *written;
};
static struct kx_config_store config_store;
static char config_adapter;

void *ndis_config_store(void *adapter);
void *ndis_config_driver(void *adapter);
const char *ndis_config_setting(void *adapter, const char *name);

void *ndis_config_store(void *adapter)
{
	CHECK(adapter == &config_adapter);
	return &config_store;
}

void *ndis_config_driver(void *adapter)
{
	CHECK(adapter == &config_adapter);
	return &fake_driver;
}

const char *ndis_config_setting(void *adapter, const char *name)
{
	CHECK(adapter == &config_adapter);
	if (!strcasecmp(name, "Channel"))
		return "11";
	if (!strcasecmp(name, "SSID"))
		return "bench";
	return NULL;
}

/* -- ndis_string.c ------------------------------------------------------------ */

EXPORT(NdisInitUnicodeString)
EXPORT(NdisInitAnsiString)
EXPORT(NdisAnsiStringToUnicodeString)
EXPORT(NdisUnicodeStringToAnsiString)
EXPORT(NdisUpcaseUnicodeString)

#define NDIS_STATUS_SUCCESS		0
#define NDIS_STATUS_BUFFER_OVERFLOW	((int32_t)0x80000005)
#define NDIS_STATUS_FAILURE		((int32_t)0xc0000001)
#define NDIS_STATUS_RESOURCES		((int32_t)0xc000009a)

static void test_init_strings(void)
{
	WIN void (*init_u)(struct kx_ustring *, const uint16_t *) =
		export_NdisInitUnicodeString();
	WIN void (*init_a)(struct kx_astring *, const char *) =
		export_NdisInitAnsiString();
	static const uint16_t name[] = { 'e', 't', 'h', 0 };
	struct kx_ustring u;
	struct kx_astring a;

	memset(&u, 0xa5, sizeof(u));
	init_u(&u, name);
	CHECK(u.length == 6 && u.max_length == 8 && u.buffer == name);
	init_u(&u, NULL);
	CHECK(u.length == 0 && u.max_length == 0 && !u.buffer);

	memset(&a, 0xa5, sizeof(a));
	init_a(&a, "wlan0");
	CHECK(a.length == 5 && a.max_length == 6 && !strcmp(a.buffer, "wlan0"));
	init_a(&a, NULL);
	CHECK(a.length == 0 && a.max_length == 0 && !a.buffer);
}

static void test_convert_strings(void)
{
	WIN int32_t (*a2u)(struct kx_ustring *, const struct kx_astring *) =
		export_NdisAnsiStringToUnicodeString();
	WIN int32_t (*u2a)(struct kx_astring *, const struct kx_ustring *) =
		export_NdisUnicodeStringToAnsiString();
	char text[] = "Ab\xe9z";	/* Latin-1 e-acute */
	struct kx_astring a = { 4, 5, text };
	uint16_t wide[8], small[3];
	static const uint16_t src[] = { 'N', 'i', 0x00fc, 0x4e2d };
	struct kx_ustring u = { 0, sizeof(wide), wide };
	struct kx_ustring us = { 0, sizeof(small), small };
	struct kx_ustring from = { sizeof(src), sizeof(src), (uint16_t *)src };
	char out[8], tiny[3];
	struct kx_astring ao = { 0, sizeof(out), out };
	struct kx_astring at = { 0, sizeof(tiny), tiny };

	memset(wide, 0, sizeof(wide));
	CHECK(a2u(&u, &a) == NDIS_STATUS_SUCCESS);
	CHECK(u.length == 8 && u.max_length == sizeof(wide));
	CHECK(wide[0] == 'A' && wide[1] == 'b' && wide[2] == 0xe9 &&
	      wide[3] == 'z' && wide[4] == 0);
	/* too small: left as it was */
	memset(small, 0x11, sizeof(small));
	CHECK(a2u(&us, &a) == NDIS_STATUS_BUFFER_OVERFLOW);
	CHECK(us.length == 0 && small[0] == 0x1111);

	memset(out, 0x7f, sizeof(out));
	CHECK(u2a(&ao, &from) == NDIS_STATUS_SUCCESS);
	/* what Latin-1 has not becomes '?' */
	CHECK(ao.length == 4 && !memcmp(out, "Ni\xfc?", 4) && out[4] == 0);
	CHECK(u2a(&at, &from) == NDIS_STATUS_BUFFER_OVERFLOW);
	CHECK(at.length == 0);
}

static void test_upcase_string(void)
{
	WIN int32_t (*upcase)(struct kx_ustring *, const struct kx_ustring *) =
		export_NdisUpcaseUnicodeString();
	static const uint16_t src[] = { 'n', 'd', 'i', 's', '-', '5', 0xe9,
					0xf7, 0xff };
	uint16_t buf[16], small[4];
	struct kx_ustring from = { sizeof(src), sizeof(src), (uint16_t *)src };
	struct kx_ustring to = { 0, sizeof(buf), buf };
	struct kx_ustring to_small = { 0, sizeof(small), small };

	CHECK(upcase(&to, &from) == NDIS_STATUS_SUCCESS);
	CHECK(to.length == sizeof(src));
	CHECK(buf[0] == 'N' && buf[1] == 'D' && buf[2] == 'I' &&
	      buf[3] == 'S' && buf[4] == '-' && buf[5] == '5');
	/* Latin-1 letters too; the division sign and y-diaeresis stay */
	CHECK(buf[6] == 0xc9 && buf[7] == 0xf7 && buf[8] == 0xff);
	CHECK(upcase(&to_small, &from) == NDIS_STATUS_BUFFER_OVERFLOW);
	CHECK(to_small.length == 0);
}

EXPORT(NdisInitializeString)

static void test_initialize_string(void)
{
	WIN void (*init)(struct kx_ustring *, const char *) =
		export_NdisInitializeString();
	struct kx_ustring u;

	allocs = frees = 0;
	driver_known = 1;
	last_caller = 0;
	init(&u, "Ndis\xe9");
	CHECK(last_caller != 0);	/* charged to the caller's driver */
	CHECK(allocs == 1 && u.buffer);
	CHECK(u.length == 10 && u.max_length == 12);
	CHECK(u.buffer && u.buffer[0] == 'N' && u.buffer[3] == 's' &&
	      u.buffer[4] == 0xe9 && u.buffer[5] == 0);
	free(u.buffer);
	/* a caller outside any driver gets nothing */
	driver_known = 0;
	init(&u, "x");
	CHECK(!u.buffer && u.length == 0 && u.max_length == 0 && allocs == 1);
	driver_known = 1;
}

EXPORT(NdisMQueryAdapterInstanceName)

static void test_adapter_instance_name(void)
{
	WIN int32_t (*query)(struct kx_ustring *, void *) =
		export_NdisMQueryAdapterInstanceName();
	struct kx_ustring u;
	static const char want[] = "0000:00:04.0";
	unsigned int i;

	allocs = 0;
	driver_known = 1;
	memset(&u, 0xa5, sizeof(u));
	CHECK(query(&u, &adapter_handle) == NDIS_STATUS_SUCCESS);
	CHECK(allocs == 1 && u.buffer);
	CHECK(u.length == 2 * strlen(want) && u.max_length == u.length + 2);
	for (i = 0; u.buffer && i <= strlen(want); i++)
		CHECK(u.buffer[i] == (unsigned char)want[i]);
	free(u.buffer);
	driver_known = 0;
	CHECK(query(&u, &adapter_handle) == NDIS_STATUS_RESOURCES);
	CHECK(!u.buffer && u.length == 0);
	driver_known = 1;
}

/* -- ndis_status.c ------------------------------------------------------------ */

EXPORT(NdisMIndicateStatus)
EXPORT(NdisMIndicateStatusComplete)

/* NDIS_MINIPORT_BLOCK's StatusHandler and StatusCompleteHandler (amd64) */
#define MB_STATUS		0x2b0
#define MB_STATUS_COMPLETE	0x2b8
#define MB_SIZE			0x2f0

static struct {
	void *handle, *buf;
	int32_t status;
	uint32_t len;
	int calls, completes;
} indicated;

static WIN void fake_status(void *handle, int32_t status, void *buf,
			    uint32_t len)
{
	indicated.handle = handle;
	indicated.status = status;
	indicated.buf = buf;
	indicated.len = len;
	indicated.calls++;
}

static WIN void fake_status_complete(void *handle)
{
	indicated.handle = handle;
	indicated.completes++;
}

static void test_indicate_status(void)
{
	WIN void (*status)(void *, int32_t, void *, uint32_t) =
		export_NdisMIndicateStatus();
	WIN void (*complete)(void *) = export_NdisMIndicateStatusComplete();
	static unsigned char block[MB_SIZE] __attribute__((aligned(8)));
	void *handler = (void *)fake_status, *done = (void *)fake_status_complete;
	char payload[4];

	memset(&indicated, 0, sizeof(indicated));
	memcpy(block + MB_STATUS, &handler, sizeof(handler));
	memcpy(block + MB_STATUS_COMPLETE, &done, sizeof(done));
	status(block, 0x4001000b, payload, sizeof(payload));
	CHECK(indicated.calls == 1 && indicated.handle == block);
	CHECK(indicated.status == 0x4001000b && indicated.buf == payload &&
	      indicated.len == 4);
	complete(block);
	CHECK(indicated.completes == 1 && indicated.calls == 1);
}

/* -- ndis_pool.c ------------------------------------------------------------ */

EXPORT(NdisAllocatePacketPool)
EXPORT(NdisDprAllocatePacket)
EXPORT(NdisPacketPoolUsage)

static void test_packet_pool(void)
{
	WIN void (*pool)(int32_t *, void **, uint32_t, uint32_t) =
		export_NdisAllocatePacketPool();
	WIN void (*dpr_alloc)(int32_t *, void **, void *) =
		export_NdisDprAllocatePacket();
	WIN uint32_t (*usage)(void *) = export_NdisPacketPoolUsage();
	int32_t status = -1;
	void *handle = NULL, *pkt = NULL;

	memset(&pool_alloc, 0, sizeof(pool_alloc));
	pool(&status, &handle, 32, 16);
	/* the Ex form without overflow descriptors, charged to the caller */
	CHECK(pool_alloc.calls == 1 && pool_alloc.caller);
	CHECK(pool_alloc.num == 32 && pool_alloc.overflow == 0 &&
	      pool_alloc.proto_reserved == 16);
	CHECK(status == 0 && handle == &pool_alloc);
	CHECK(usage(handle) == 7);

	memset(&packet_alloc, 0, sizeof(packet_alloc));
	status = -1;
	dpr_alloc(&status, &pkt, handle);
	CHECK(packet_alloc.calls == 1 && packet_alloc.pool == handle);
	CHECK(status == 0 && pkt == &fake_packet);
}

/* -- ndis_port.c ------------------------------------------------------------ */

EXPORT(NdisReadPortUchar)
EXPORT(NdisWritePortUchar)
EXPORT(NdisImmediateReadPortUchar)
EXPORT(NdisImmediateWritePortUchar)

static void test_ports(void)
{
	typedef WIN void (*read_fn)(void *, uint32_t, unsigned char *);
	typedef WIN void (*write_fn)(void *, uint32_t, unsigned char);
	read_fn reads[] = { export_NdisReadPortUchar(),
			    export_NdisImmediateReadPortUchar() };
	write_fn writes[] = { export_NdisWritePortUchar(),
			      export_NdisImmediateWritePortUchar() };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		unsigned char v = 0;

		port_value = 0x5a + i;
		port_seen = 0;
		reads[i](&adapter_handle, 0xc000 + i, &v);
		CHECK(port_seen == 0xc000 + i && v == 0x5a + i);
		port_seen = 0;
		writes[i](&adapter_handle, 0xd000 + i, 0x33 + i);
		CHECK(port_seen == 0xd000 + i && port_value == 0x33 + i);
	}
}

EXPORT(NdisImmediateReadPciSlotInformation)
EXPORT(NdisImmediateWritePciSlotInformation)

static void test_immediate_pci(void)
{
	typedef WIN uint32_t (*slot_fn)(void *, uint32_t, uint32_t, void *,
					uint32_t);
	slot_fn rd = export_NdisImmediateReadPciSlotInformation();
	slot_fn wr = export_NdisImmediateWritePciSlotInformation();
	unsigned char buf[8];

	memset(&slot_io, 0, sizeof(slot_io));
	/* the configuration context is the adapter the handle names */
	CHECK(rd(&adapter_handle, 3, 0x40, buf, 8) == 7);
	CHECK(slot_io.reads == 1 && slot_io.handle == &adapter_handle &&
	      slot_io.slot == 3 && slot_io.offset == 0x40 &&
	      slot_io.buf == buf && slot_io.len == 8);
	CHECK(wr(&adapter_handle, 4, 0x44, buf, 6) == 4);
	CHECK(slot_io.writes == 1 && slot_io.slot == 4 &&
	      slot_io.offset == 0x44 && slot_io.len == 6);
}

/* -- ndis_mem.c ------------------------------------------------------------ */

EXPORT(NdisAllocateMemory)


static void test_allocate_memory(void)
{
	WIN int32_t (*alloc)(void **, uint32_t, uint32_t, int64_t) =
		export_NdisAllocateMemory();
	void *p = NULL;

	allocs = frees = 0;
	driver_known = 1;
	phys_base = 0x12345000;
	CHECK(alloc(&p, 100, 0, -1) == NDIS_STATUS_SUCCESS && p);
	CHECK(allocs == 1 && frees == 0);
	free(p);
	/* contiguous, noncached, below 4 GB: phys_base fits */
	CHECK(alloc(&p, 4096, 3, 0xffffffffLL) == NDIS_STATUS_SUCCESS && p);
	free(p);
	/* memory above the highest acceptable address is given back */
	phys_base = 0x100000000ULL;
	p = &p;
	CHECK(alloc(&p, 64, 1, 0xffffffffLL) == NDIS_STATUS_FAILURE);
	CHECK(!p && allocs == 3 && frees == 1);
	driver_known = 0;
	p = &p;
	CHECK(alloc(&p, 64, 0, -1) == NDIS_STATUS_FAILURE && !p);
	CHECK(allocs == 3);
	driver_known = 1;
}

/* -- ndis_log.c ------------------------------------------------------------ */

EXPORT(NdisWriteErrorLogEntry)

static void test_error_log(void)
{
	WIN void (*log)(void *, uint32_t, uint32_t, ...) =
		export_NdisWriteErrorLogEntry();

	logged[0] = 0;
	log(&adapter_handle, 0xc0001386, 2, 0x11u, 0xdeadbeefu);
	CHECK_STR(logged, "\0014" "ndiswrapper: 0000:00:04.0: driver error log entry 0xc0001386, 2 value(s): 0x00000011 0xdeadbeef\n");
	log(&adapter_handle, 5, 0);
	CHECK_STR(logged, "\0014" "ndiswrapper: 0000:00:04.0: driver error log entry 0x00000005, 0 value(s):\n");
	/* at most 8 values printed; the count says how many there were */
	log(&adapter_handle, 7, 9, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u);
	CHECK_CONTAINS(logged, "9 value(s): 0x00000001 0x00000002 0x00000003 0x00000004 0x00000005 0x00000006 0x00000007 0x00000008\n");
}

EXPORT(NdisWriteEventLogEntry)

static void test_event_log(void)
{
	WIN int32_t (*log)(void *, int32_t, uint32_t, uint16_t, void *,
			   uint32_t, void *) = export_NdisWriteEventLogEntry();
	/* two NUL-terminated UTF-16 strings, one after the other */
	static const uint16_t strings[] = { 'r', 'x', 0, 'c', 'h', '6', 0 };
	unsigned char data[3] = { 1, 2, 3 };

	logged[0] = 0;
	CHECK(log(&adapter_handle, (int32_t)0xc0001390, 17, 2,
		  (void *)strings, sizeof(data), data) == NDIS_STATUS_SUCCESS);
	CHECK_STR(logged, "\0014" "ndiswrapper: driver event log entry 0xc0001390 (17): \"rx\" \"ch6\", 3 data bytes\n");
	CHECK(log(&adapter_handle, 5, 0, 0, NULL, 0, NULL) ==
	      NDIS_STATUS_SUCCESS);
	CHECK_STR(logged, "\0014" "ndiswrapper: driver event log entry 0x00000005 (0):, 0 data bytes\n");
}

/* -- ndis_buffer.c ------------------------------------------------------------- */

EXPORT(NdisQueryBuffer)
EXPORT(NdisQueryBufferSafe)
EXPORT(NdisQueryBufferOffset)
EXPORT(NdisBufferLength)
EXPORT(NdisBufferVirtualAddress)
EXPORT(NdisAdjustBufferLength)
EXPORT(NdisGetBufferPhysicalArraySize)
EXPORT(NdisGetFirstBufferFromPacket)
EXPORT(NdisGetFirstBufferFromPacketSafe)
EXPORT(NdisUnchainBufferAtBack)
EXPORT(NdisCopyFromPacketToPacket)
EXPORT(NdisCopyFromPacketToPacketSafe)

/* as ndis_mdl_init (ndis.h) describes driver memory */
static void mdl_init(struct kx_mdl *mdl, void *va, uint32_t len)
{
	memset(mdl, 0, sizeof(*mdl));
	mdl->size = sizeof(*mdl);
	mdl->flags = MDL_SOURCE_IS_NONPAGED_POOL;
	mdl->mapped_va = va;
	mdl->start_va = (void *)((uintptr_t)va & ~(uintptr_t)4095);
	mdl->byte_offset = (uintptr_t)va & 4095;
	mdl->byte_count = len;
}

static void chain(struct kx_packet *pkt, struct kx_mdl *mdls, int n)
{
	int i;

	memset(pkt, 0, sizeof(*pkt));
	for (i = 0; i < n; i++)
		mdls[i].next = i + 1 < n ? &mdls[i + 1] : NULL;
	pkt->head = n ? &mdls[0] : NULL;
	pkt->tail = n ? &mdls[n - 1] : NULL;
	pkt->valid_counts = 1;
}

static void test_query_buffer(void)
{
	WIN void (*query)(struct kx_mdl *, void **, uint32_t *) =
		export_NdisQueryBuffer();
	WIN void (*query_safe)(struct kx_mdl *, void **, uint32_t *, int) =
		export_NdisQueryBufferSafe();
	WIN void (*query_offset)(struct kx_mdl *, uint32_t *, uint32_t *) =
		export_NdisQueryBufferOffset();
	WIN uint32_t (*length)(struct kx_mdl *) = export_NdisBufferLength();
	WIN void *(*vaddr)(struct kx_mdl *) = export_NdisBufferVirtualAddress();
	WIN void (*adjust)(struct kx_mdl *, uint32_t) =
		export_NdisAdjustBufferLength();
	WIN void (*span)(struct kx_mdl *, uint32_t *) =
		export_NdisGetBufferPhysicalArraySize();
	static unsigned char mem[3 * 4096] __attribute__((aligned(4096)));
	struct kx_mdl mdl, unmapped;
	void *va = NULL;
	uint32_t len = 0, off = 0, pages = 0;

	mdl_init(&mdl, mem + 4000, 200);
	query(&mdl, &va, &len);
	CHECK(va == mem + 4000 && len == 200);
	len = 0;
	query(&mdl, NULL, &len);	/* VirtualAddress is optional */
	CHECK(len == 200);
	va = NULL;
	query_safe(&mdl, &va, &len, 16);
	CHECK(va == mem + 4000 && len == 200);
	query_offset(&mdl, &off, &len);
	CHECK(off == 4000 && len == 200);
	CHECK(length(&mdl) == 200);
	CHECK(vaddr(&mdl) == mem + 4000);
	span(&mdl, &pages);
	CHECK(pages == 2);		/* 4000..4199 crosses a page */
	adjust(&mdl, 50);
	CHECK(length(&mdl) == 50 && mdl.byte_offset == 4000);
	span(&mdl, &pages);
	CHECK(pages == 1);
	adjust(&mdl, 0);
	span(&mdl, &pages);
	CHECK(pages == 1);		/* an empty buffer counts one page */

	/* not yet mapped: the address from its page and offset */
	memset(&unmapped, 0, sizeof(unmapped));
	unmapped.start_va = mem + 4096;
	unmapped.byte_offset = 10;
	unmapped.byte_count = 5;
	CHECK(vaddr(&unmapped) == mem + 4106);
	va = NULL;
	query_safe(&unmapped, &va, &len, 32);
	CHECK(va == mem + 4106 && len == 5);
}

static void test_first_buffer(void)
{
	WIN void (*first)(struct kx_packet *, struct kx_mdl **, void **,
			  uint32_t *, uint32_t *) =
		export_NdisGetFirstBufferFromPacket();
	WIN void (*first_safe)(struct kx_packet *, struct kx_mdl **, void **,
			       uint32_t *, uint32_t *, int) =
		export_NdisGetFirstBufferFromPacketSafe();
	unsigned char a[10], b[20], c[30];
	struct kx_mdl mdls[3], *buf = NULL;
	struct kx_packet pkt;
	void *va = NULL;
	uint32_t len = 0, total = 0;

	mdl_init(&mdls[0], a, sizeof(a));
	mdl_init(&mdls[1], b, sizeof(b));
	mdl_init(&mdls[2], c, sizeof(c));
	chain(&pkt, mdls, 3);
	first(&pkt, &buf, &va, &len, &total);
	CHECK(buf == &mdls[0] && va == a && len == 10 && total == 60);
	buf = NULL;
	first_safe(&pkt, &buf, &va, &len, &total, 16);
	CHECK(buf == &mdls[0] && va == a && len == 10 && total == 60);

	chain(&pkt, mdls, 0);
	va = a;
	len = total = 7;
	first(&pkt, &buf, &va, &len, &total);
	CHECK(!buf && !va && len == 0 && total == 0);
}

static void test_unchain_at_back(void)
{
	WIN void (*unchain)(struct kx_packet *, struct kx_mdl **) =
		export_NdisUnchainBufferAtBack();
	unsigned char a[4], b[4];
	struct kx_mdl mdls[2], *got = NULL;
	struct kx_packet pkt;

	mdl_init(&mdls[0], a, 4);
	mdl_init(&mdls[1], b, 4);
	chain(&pkt, mdls, 2);
	unchain(&pkt, &got);
	CHECK(got == &mdls[1] && !got->next);
	CHECK(pkt.head == &mdls[0] && pkt.tail == &mdls[0] && !mdls[0].next);
	CHECK(pkt.valid_counts == 0);
	unchain(&pkt, &got);
	CHECK(got == &mdls[0] && !pkt.head && !pkt.tail);
	got = &mdls[1];
	unchain(&pkt, &got);
	CHECK(!got);
}

static void test_copy_packet(void)
{
	WIN void (*copy)(struct kx_packet *, uint32_t, uint32_t,
			 struct kx_packet *, uint32_t, uint32_t *) =
		export_NdisCopyFromPacketToPacket();
	WIN void (*copy_safe)(struct kx_packet *, uint32_t, uint32_t,
			      struct kx_packet *, uint32_t, uint32_t *, int) =
		export_NdisCopyFromPacketToPacketSafe();
	unsigned char s1[5] = "abcde", s2[3] = "fgh", s3[4] = "ijkl";
	unsigned char d1[4], d2[6], d3[2];
	struct kx_mdl src_mdls[3], dst_mdls[3];
	struct kx_packet src, dst;
	uint32_t copied = 99;

	mdl_init(&src_mdls[0], s1, 5);
	mdl_init(&src_mdls[1], s2, 3);
	mdl_init(&src_mdls[2], s3, 4);
	mdl_init(&dst_mdls[0], d1, 4);
	mdl_init(&dst_mdls[1], d2, 6);
	mdl_init(&dst_mdls[2], d3, 2);
	chain(&src, src_mdls, 3);
	chain(&dst, dst_mdls, 3);

	/* source bytes 3..9 ("defghij") to destination offset 2 */
	memset(d1, '.', 4);
	memset(d2, '.', 6);
	memset(d3, '.', 2);
	copy(&dst, 2, 7, &src, 3, &copied);
	CHECK(copied == 7);
	CHECK(!memcmp(d1, "..de", 4) && !memcmp(d2, "fghij.", 6) &&
	      !memcmp(d3, "..", 2));

	/* more than the source holds from there: what it has */
	copy_safe(&dst, 0, 100, &src, 10, &copied, 16);
	CHECK(copied == 2 && !memcmp(d1, "klde", 4));
	/* more than the destination has room for */
	copy(&dst, 9, 100, &src, 0, &copied);
	CHECK(copied == 3 && !memcmp(d2 + 5, "a", 1) && !memcmp(d3, "bc", 2));
	/* an offset past either end copies nothing */
	copy(&dst, 12, 5, &src, 0, &copied);
	CHECK(copied == 0);
	copy(&dst, 0, 5, &src, 12, &copied);
	CHECK(copied == 0);
}

/* -- ndis_list.c ------------------------------------------------------------- */

EXPORT(NdisInterlockedIncrement)
EXPORT(NdisInterlockedDecrement)
EXPORT(NdisInterlockedInsertHeadList)
EXPORT(NdisInterlockedInsertTailList)
EXPORT(NdisInterlockedRemoveHeadList)

static void test_interlocked_counts(void)
{
	WIN int32_t (*inc)(int32_t *) = export_NdisInterlockedIncrement();
	WIN int32_t (*dec)(int32_t *) = export_NdisInterlockedDecrement();
	int32_t v = -1;

	CHECK(inc(&v) == 0 && v == 0);
	CHECK(inc(&v) == 1 && v == 1);
	CHECK(dec(&v) == 0 && dec(&v) == -1 && v == -1);
	v = INT32_MAX;
	CHECK(inc(&v) == INT32_MIN);	/* wraps, as LONG arithmetic does */
}

static void test_interlocked_lists(void)
{
	typedef WIN struct kx_list *(*insert_fn)(struct kx_list *,
						 struct kx_list *,
						 struct kx_spin_lock *);
	insert_fn head_ins = export_NdisInterlockedInsertHeadList();
	insert_fn tail_ins = export_NdisInterlockedInsertTailList();
	WIN struct kx_list *(*remove)(struct kx_list *, struct kx_spin_lock *) =
		export_NdisInterlockedRemoveHeadList();
	struct kx_spin_lock sl = { 0, 0 };
	struct kx_list list = { &list, &list }, e1, e2, e3, e4;

	lock_acquires = lock_releases = 0;
	CHECK(!remove(&list, &sl));
	CHECK(!tail_ins(&list, &e1, &sl));		/* was empty */
	CHECK(tail_ins(&list, &e2, &sl) == &e1);
	/* the head insert returns the old first entry, the tail one the
	 * old last */
	CHECK(head_ins(&list, &e3, &sl) == &e1);
	CHECK(tail_ins(&list, &e4, &sl) == &e2);
	/* e3 e1 e2 e4, both ways round */
	CHECK(list.flink == &e3 && e3.flink == &e1 && e1.flink == &e2 &&
	      e2.flink == &e4 && e4.flink == &list);
	CHECK(list.blink == &e4 && e4.blink == &e2 && e2.blink == &e1 &&
	      e1.blink == &e3 && e3.blink == &list);
	CHECK(remove(&list, &sl) == &e3);
	CHECK(remove(&list, &sl) == &e1);
	CHECK(remove(&list, &sl) == &e2);
	CHECK(remove(&list, &sl) == &e4);
	CHECK(!remove(&list, &sl));
	CHECK(list.flink == &list && list.blink == &list);
	/* every call under the caller's lock, released again */
	CHECK(lock_acquires == 10 && lock_releases == 10 && sl.lock == 0);
}

/* -- ndis_rwlock.c ----------------------------------------------------------- */

EXPORT(NdisInitializeReadWriteLock)
EXPORT(NdisAcquireReadWriteLock)
EXPORT(NdisReleaseReadWriteLock)

/* NDIS_RW_LOCK (amd64): the lock and context, 64 reference slots */
struct kx_rw_lock {
	struct kx_spin_lock sl;
	uint32_t readers;		/* the first reference slot */
	unsigned char rest[64 * 16 - 4];
};

struct kx_lock_state {
	uint16_t state;
	uint8_t old_irql;
};

static void test_rw_lock(void)
{
	WIN void (*init)(struct kx_rw_lock *) =
		export_NdisInitializeReadWriteLock();
	WIN void (*acquire)(struct kx_rw_lock *, uint8_t,
			    struct kx_lock_state *) =
		export_NdisAcquireReadWriteLock();
	WIN void (*release)(struct kx_rw_lock *, struct kx_lock_state *) =
		export_NdisReleaseReadWriteLock();
	struct kx_rw_lock rw;
	struct kx_lock_state outer, inner, w;

	memset(&rw, 0xa5, sizeof(rw));
	init(&rw);
	CHECK(rw.sl.lock == 0 && rw.readers == 0 && rw.rest[sizeof(rw.rest) - 1] == 0);

	irql_now = 0;
	lock_acquires = lock_releases = 0;
	/* readers share it, recursively too, at DISPATCH_LEVEL */
	acquire(&rw, 0, &outer);
	CHECK(rw.readers == 1 && rw.sl.lock == 0 && irql_now == 2);
	CHECK(outer.old_irql == 0);
	acquire(&rw, 0, &inner);
	CHECK(rw.readers == 2 && rw.sl.lock == 0 && inner.old_irql == 2);
	release(&rw, &inner);
	CHECK(rw.readers == 1 && irql_now == 2);
	release(&rw, &outer);
	CHECK(rw.readers == 0 && irql_now == 0);

	/* a writer holds the lock until it releases it */
	acquire(&rw, 1, &w);
	CHECK(rw.sl.lock == 1 && irql_now == 2 && w.old_irql == 0);
	release(&rw, &w);
	CHECK(rw.sl.lock == 0 && irql_now == 0);
	CHECK(lock_acquires == lock_releases);
}

/* -- ndis_event.c ------------------------------------------------------------ */

EXPORT(NdisInitializeEvent)
EXPORT(NdisSetEvent)
EXPORT(NdisResetEvent)
EXPORT(NdisWaitEvent)

static void test_events(void)
{
	WIN void (*init)(struct kx_kevent *) = export_NdisInitializeEvent();
	WIN void (*set)(struct kx_kevent *) = export_NdisSetEvent();
	WIN void (*reset)(struct kx_kevent *) = export_NdisResetEvent();
	WIN uint8_t (*wait)(struct kx_kevent *, uint32_t) =
		export_NdisWaitEvent();
	struct kx_kevent ev;

	memset(&ke, 0, sizeof(ke));
	init(&ev);
	/* a notification event, not signalled */
	CHECK(ke.event == &ev && ke.type == 0 && ke.state == 0 &&
	      ke.calls == 1);
	set(&ev);
	CHECK(ke.event == &ev && ke.calls == 2);
	reset(&ev);
	CHECK(ke.event == &ev && ke.calls == 3);

	ke_wait_status = 0;			/* STATUS_SUCCESS */
	CHECK(wait(&ev, 0) == 1);
	CHECK(ke.timeout == 1);			/* 0 ms: no timeout */
	ke_wait_status = 0x102;			/* STATUS_TIMEOUT */
	CHECK(wait(&ev, 250) == 0);
	CHECK(ke.timeout == -2500000);		/* relative, 100 ns units */
	CHECK(ke.calls == 5);
}

/* -- ndis_timer.c ------------------------------------------------------------ */

EXPORT(NdisInitializeTimer)
EXPORT(NdisSetTimer)
EXPORT(NdisCancelTimer)
EXPORT(NdisMRegisterUnloadHandler)

/* NDIS_TIMER, amd64: a KTIMER (64 bytes) and its KDPC (64 bytes) */
struct kx_ndis_timer {
	uint8_t ktimer[64];
	struct {
		uint8_t type, importance;
		uint16_t number;
		struct kx_list dpc_list_entry;
		void *routine, *context, *arg1, *arg2, *dpc_data;
	} dpc;
};

/* only its address matters: the timer never fires here */
static char timer_function;

static void test_ndis_timer(void)
{
	WIN void (*init)(struct kx_ndis_timer *, void *, void *) =
		export_NdisInitializeTimer();
	WIN void (*set)(void *, uint32_t) = export_NdisSetTimer();
	WIN void (*cancel)(struct kx_ndis_timer *, uint8_t *) =
		export_NdisCancelTimer();
	struct kx_ndis_timer t;
	uint8_t miniport[160];
	char context;
	uint8_t cancelled = 7;

	memset(&ktimers, 0, sizeof(ktimers));
	memset(&ke_timer, 0, sizeof(ke_timer));
	memset(&miniport_timer, 0, sizeof(miniport_timer));
	memset(&t, 0xcc, sizeof(t));
	init(&t, &timer_function, &context);
	/* the KTIMER set up for the caller's driver, not the wrapper */
	CHECK(ktimers.inits == 1 && ktimers.ktimer == t.ktimer &&
	      ktimers.drv == &fake_driver);
	/* the KDPC: DpcObject (19), medium importance, the timer function
	 * and its context as the deferred routine, not queued */
	CHECK(t.dpc.type == 19 && t.dpc.importance == 1 && t.dpc.number == 0);
	CHECK(t.dpc.routine == &timer_function &&
	      t.dpc.context == &context && t.dpc.dpc_data == NULL);

	/* NdisSetTimer on it: KeSetTimer, relative, 100 ns units, its DPC */
	set(&t, 10);
	CHECK(ke_timer.sets == 1 && ke_timer.ktimer == t.ktimer &&
	      ke_timer.due == -100000 && ke_timer.dpc == &t.dpc);
	CHECK(miniport_timer.calls == 0);

	/* NdisSetTimer on a miniport timer: ndis.c's */
	set(miniport, 250);
	CHECK(miniport_timer.calls == 1 && miniport_timer.storage == miniport &&
	      miniport_timer.msecs == 250 && ke_timer.sets == 1);

	/* NdisCancelTimer: whether KeCancelTimer found it set */
	ke_timer.was_set = 1;
	cancel(&t, &cancelled);
	CHECK(ke_timer.cancels == 1 && ke_timer.ktimer == t.ktimer &&
	      cancelled == 1);
	ke_timer.was_set = 0;
	cancel(&t, &cancelled);
	CHECK(ke_timer.cancels == 2 && cancelled == 0);
}

static char unload;

static void test_unload_handler(void)
{
	WIN void (*reg)(void *, void *) = export_NdisMRegisterUnloadHandler();
	char handle;

	memset(&unload_handler, 0, sizeof(unload_handler));
	reg(&handle, &unload);
	CHECK(unload_handler.calls == 1 && unload_handler.handle == &handle &&
	      unload_handler.func == &unload);
}

/* -- ndis_misc.c ------------------------------------------------------------- */

EXPORT(NdisGetVersion)
EXPORT(NdisSystemProcessorCount)
EXPORT(NdisGetCurrentSystemTime)
EXPORT(NdisGetRoutineAddress)
EXPORT(NdisMGetDmaAlignment)
EXPORT(NdisGetSystemUpTime)

EXPORT(NdisGetCurrentProcessorCounts)

/* milliseconds of the running CPU: idle, and all its time (idle too) */
static void test_processor_counts(void)
{
	WIN void (*counts)(uint32_t *, uint32_t *, uint32_t *) =
		export_NdisGetCurrentProcessorCounts();
	uint32_t idle = 1, all = 1, index = 9;

	cpu_times.cpu = 2;
	cpu_times.idle_ns = 1999999;
	cpu_times.total_ns = 7000000000ULL;
	counts(&idle, &all, &index);
	CHECK(idle == 1 && all == 7000 && index == 2);
	/* a ULONG of milliseconds wraps after 49.7 days */
	cpu_times.total_ns = (1ULL << 32) * 1000000ULL + 5000000;
	counts(&idle, &all, &index);
	CHECK(all == 5);
	/* each pointer may be NULL */
	cpu_times.cpu = 0;
	index = 9;
	counts(NULL, NULL, &index);
	CHECK(index == 0);
	counts(&idle, NULL, NULL);
	CHECK(idle == 1);
}

static void test_misc(void)
{
	WIN uint32_t (*version)(void) = export_NdisGetVersion();
	WIN uint32_t (*dma_align)(void *) = export_NdisMGetDmaAlignment();
	WIN int8_t (*cpus)(void) = export_NdisSystemProcessorCount();
	WIN void (*now)(int64_t *) = export_NdisGetCurrentSystemTime();
	int64_t t = 0;

	CHECK(version() == 0x00050001);		/* NDIS 5.1 */
	CHECK(dma_align(&adapter_handle) == 64);
	CHECK(cpus() == 3);
	now(&t);
	/* 100 ns units since 1601-01-01 */
	CHECK(t == (1700000000LL + 11644473600LL) * 10000000LL + 1234567);
}

/* Milliseconds since boot: jiffies count from 5 minutes before their
 * 32-bit wrap, and the ULONG wraps after 49.7 days. */
static void test_uptime(void)
{
	WIN void (*uptime)(uint32_t *) = export_NdisGetSystemUpTime();
	const uint64_t initial = (uint32_t)(-300 * 1000);
	uint32_t ms = 7;

	jiffies_now = initial;
	uptime(&ms);
	CHECK(ms == 0);
	jiffies_now = initial + 1234;
	uptime(&ms);
	CHECK(ms == 1234);
	/* past the 32-bit jiffies wrap: still counted from boot */
	jiffies_now = 0x100000000ULL + 5000;
	uptime(&ms);
	CHECK(ms == 300000 + 5000);
	/* 50 days: the ULONG wrapped */
	jiffies_now = initial + 50ULL * 86400 * 1000;
	uptime(&ms);
	CHECK(ms == (uint32_t)(50ULL * 86400 * 1000));
}

static void test_routine_address(void)
{
	WIN void *(*lookup)(struct kx_ustring *) =
		export_NdisGetRoutineAddress();
	static const uint16_t sleep_name[] = { 'N', 'd', 'i', 's', 'M', 'S',
					       'l', 'e', 'e', 'p' };
	static const uint16_t ke_name[] = { 'K', 'e', 'S', 'e', 't', 'E',
					    'v', 'e', 'n', 't' };
	struct kx_ustring name = { sizeof(sleep_name), sizeof(sleep_name),
				   (uint16_t *)sleep_name };

	CHECK(lookup(&name) == &routine_b);
	name.length -= 2;			/* "NdisMSlee" */
	CHECK(!lookup(&name));
	/* NDIS.SYS's own exports only */
	name.buffer = (uint16_t *)ke_name;
	name.length = name.max_length = sizeof(ke_name);
	CHECK(!lookup(&name));
}

/* -- usbd_desc.c --------------------------------------------------------------- */

EXPORT(USBD_GetUSBDIVersion)
EXPORT(USBD_ParseDescriptors)
EXPORT(USBD_ParseConfigurationDescriptor)

/* a configuration: interface 0 (alt 0, alt 1 with two endpoints) */
static const unsigned char config[] = {
	9, 2, 41, 0, 1, 1, 0, 0x80, 50,			/* configuration */
	9, 4, 0, 0, 0, 0xff, 0, 0, 0,			/* interface 0/0 */
	9, 4, 0, 1, 2, 0xff, 0xff, 0xff, 0,		/* interface 0/1 */
	7, 5, 0x81, 2, 0, 2, 0,				/* endpoint */
	7, 5, 0x02, 2, 0, 2, 0,				/* endpoint */
};

static void test_usbd(void)
{
	struct { uint32_t usbdi, usb; } info = { 0, 0 };
	WIN void (*version)(void *) = export_USBD_GetUSBDIVersion();
	WIN const unsigned char *(*parse)(const void *, uint32_t, const void *,
					  int32_t) =
		export_USBD_ParseDescriptors();
	WIN const unsigned char *(*parse_cfg)(const void *, uint8_t, uint8_t) =
		export_USBD_ParseConfigurationDescriptor();

	CHECK(sizeof(config) == 41);
	version(&info);
	CHECK(info.usbdi == 0x500 && info.usb == 0x200);

	CHECK(parse(config, sizeof(config), config, 4) == config + 9);
	/* at or after the start (a descriptor boundary) */
	CHECK(parse(config, sizeof(config), config + 18, 4) == config + 18);
	CHECK(!parse(config, sizeof(config), config + 27, 4));
	CHECK(parse(config, sizeof(config), config, 5) == config + 27);
	CHECK(parse(config, sizeof(config), config + 34, 5) == config + 34);
	CHECK(!parse(config, sizeof(config), config, 0x21));
	/* a descriptor running past the end is not returned */
	CHECK(!parse(config, sizeof(config) - 1, config + 34, 5));
	/* a start outside the buffer finds nothing */
	CHECK(!parse(config, sizeof(config), config + 41, 5));
	/* a zero length stops the walk */
	{
		unsigned char bad[] = { 9, 2, 20, 0, 0, 0, 0, 0, 0,
					0, 4, 9, 4, 0, 0, 0, 0, 0, 0, 0 };

		CHECK(!parse(bad, sizeof(bad), bad, 4));
	}

	CHECK(parse_cfg(config, 0, 1) == config + 18);
	CHECK(parse_cfg(config, 0, 0) == config + 9);
	CHECK(!parse_cfg(config, 1, 0));
}

EXPORT(USBD_CreateConfigurationRequestEx)
EXPORT(USBD_CreateConfigurationRequest)

/* _URB_SELECT_CONFIGURATION and USBD_INTERFACE_INFORMATION (amd64) */
#define URB_SELECT_INTERFACE	0x28
#define IF_SIZE(pipes)		(0x18 + (pipes) * 0x18)

struct kx_list_entry {
	const void *interface_descriptor;
	void *interface;
};

static void check_interface(const unsigned char *info, int number, int alt,
			    uint32_t pipes)
{
	uint32_t n, i, max;
	uint16_t len;

	memcpy(&len, info, 2);
	memcpy(&n, info + 0x10, 4);
	CHECK(len == IF_SIZE(pipes) && info[2] == number && info[3] == alt);
	CHECK(n == pipes);
	for (i = 0; i < n; i++) {
		memcpy(&max, info + 0x18 + i * 0x18 + 0x10, 4);
		CHECK(max == 4096);	/* USBD_DEFAULT_MAXIMUM_TRANSFER_SIZE */
	}
}

static void test_usbd_config_request(void)
{
	WIN unsigned char *(*create_ex)(const void *, struct kx_list_entry *) =
		export_USBD_CreateConfigurationRequestEx();
	WIN unsigned char *(*create)(const void *, uint16_t *) =
		export_USBD_CreateConfigurationRequest();
	struct kx_list_entry list[2] = { { config + 18, NULL }, { NULL, NULL } };
	unsigned char *urb;
	uint16_t len, function, size = 0;
	const void *cd;

	allocs = 0;
	driver_known = 1;
	urb = create_ex(config, list);
	CHECK(urb && allocs == 1);
	if (urb) {
		memcpy(&len, urb, 2);
		memcpy(&function, urb + 2, 2);
		memcpy(&cd, urb + 0x18, sizeof(cd));
		CHECK(len == URB_SELECT_INTERFACE + IF_SIZE(2));
		CHECK(function == 0 && cd == config);	/* SELECT_CONFIGURATION */
		CHECK(list[0].interface == urb + URB_SELECT_INTERFACE);
		check_interface(urb + URB_SELECT_INTERFACE, 0, 1, 2);
		free(urb);
	}

	/* the older form: the first interface's setting 0, and the size */
	urb = create(config, &size);
	CHECK(urb && allocs == 2);
	CHECK(size == URB_SELECT_INTERFACE + IF_SIZE(0));
	if (urb) {
		memcpy(&len, urb, 2);
		CHECK(len == size);
		check_interface(urb + URB_SELECT_INTERFACE, 0, 0, 0);
		free(urb);
	}

	/* outside any driver: nothing */
	driver_known = 0;
	size = 7;
	CHECK(!create_ex(config, list) && !create(config, &size));
	CHECK(size == 0 && allocs == 2);
	driver_known = 1;
}

/* -- ndis_file.c ------------------------------------------------------------ */

EXPORT(NdisOpenFile)
EXPORT(NdisMapFile)
EXPORT(NdisUnmapFile)
EXPORT(NdisCloseFile)

#define NDIS_STATUS_FILE_NOT_FOUND	((int32_t)0xc001001b)
#define NDIS_STATUS_ERROR_READING_FILE	((int32_t)0xc001001c)
#define NDIS_STATUS_ALREADY_MAPPED	((int32_t)0xc001001d)

/* s as a counted UTF-16 string in buf (at most 95 characters) */
static struct kx_ustring ustr(uint16_t *buf, const char *s)
{
	struct kx_ustring u;
	size_t i;

	for (i = 0; s[i] && i < 95; i++)
		buf[i] = (unsigned char)s[i];
	u.length = i * 2;
	u.max_length = i * 2;
	u.buffer = buf;
	return u;
}

typedef WIN void (*open_file_fn)(int32_t *, void **, uint32_t *,
				 struct kx_ustring *, int64_t);

/* NdisOpenFile of name: its status, the handle and length it gave */
static int32_t open_file(const char *name, void **handle, uint32_t *len)
{
	open_file_fn open = export_NdisOpenFile();
	uint16_t buf[96];
	struct kx_ustring u = ustr(buf, name);
	int32_t status = 0x1234;

	*handle = (void *)1;
	*len = 77;
	open(&status, handle, len, &u, -1);
	return status;
}

static void test_files(void)
{
	WIN void (*map)(int32_t *, void **, void *) = export_NdisMapFile();
	WIN void (*unmap)(void *) = export_NdisUnmapFile();
	WIN void (*close)(void *) = export_NdisCloseFile();
	open_file_fn open = export_NdisOpenFile();
	int32_t status;
	void *h, *h2, *va;
	uint32_t len;
	uint16_t buf[8];
	struct kx_ustring u;

	memset(&fw, 0, sizeof(fw));
	allocs = frees = 0;
	driver_known = 1;
	CHECK(open_file("fw.bin", &h, &len) == NDIS_STATUS_SUCCESS);
	CHECK(h && len == 5 && !strcmp(fw.name, "fw.bin") && fw.caller);
	CHECK(allocs == 1);
	/* mapped once at a time: the file's bytes */
	va = NULL;
	map(&status, &va, h);
	CHECK(status == NDIS_STATUS_SUCCESS && va == fw_bytes);
	va = &va;
	map(&status, &va, h);
	CHECK(status == NDIS_STATUS_ALREADY_MAPPED && !va);
	unmap(h);
	map(&status, &va, h);
	CHECK(status == NDIS_STATUS_SUCCESS && va == fw_bytes);
	/* closed while mapped: the copy goes back all the same */
	close(h);
	CHECK(fw.puts == 1 && fw.put_cookie == fw_bytes && frees == 1);
	/* a closed handle is no file any more */
	map(&status, &va, h2 = h);
	CHECK(status == NDIS_STATUS_FAILURE);
	close(h2);
	CHECK(fw.puts == 1 && frees == 1);
	CHECK_CONTAINS(logged, "NdisCloseFile: not a file NdisOpenFile opened, ignored");

	/* the driver's system32\drivers path names the same folder */
	CHECK(open_file("\\SystemRoot\\system32\\drivers\\FW2.BIN", &h,
			&len) == NDIS_STATUS_SUCCESS);
	CHECK(!strcmp(fw.name, "FW2.BIN") && len == 5);
	close(h);
	CHECK(fw.puts == 2 && frees == 2);

	/* refused names never reach the file system */
	fw.gets = 0;
	CHECK(open_file("..", &h, &len) == NDIS_STATUS_FILE_NOT_FOUND);
	CHECK(!h && len == 0);
	CHECK(open_file("sub/fw.bin", &h, &len) == NDIS_STATUS_FILE_NOT_FOUND);
	CHECK(open_file("C:\\fw.bin", &h, &len) ==
	      NDIS_STATUS_FILE_NOT_FOUND);
	CHECK(open_file("\\SystemRoot\\system32\\fw.bin", &h, &len) ==
	      NDIS_STATUS_FILE_NOT_FOUND);
	CHECK(open_file("", &h, &len) == NDIS_STATUS_FILE_NOT_FOUND);
	CHECK(open_file("a123456789b123456789c123456789d123456789e123456789f123456789g1234",
			&h, &len) == NDIS_STATUS_FILE_NOT_FOUND);	/* 65 */
	CHECK(fw.gets == 0);
	CHECK_CONTAINS(logged, "NdisOpenFile: a name that is not a plain file name, refused");
	CHECK(open_file("a123456789b123456789c123456789d123456789e123456789f123456789g123",
			&h, &len) == NDIS_STATUS_FILE_NOT_FOUND);	/* 64 */
	CHECK(fw.gets == 1);

	/* the folder's answers as NDIS statuses; nothing left allocated */
	CHECK(open_file("missing.bin", &h, &len) == NDIS_STATUS_FILE_NOT_FOUND);
	CHECK(open_file("nomem.bin", &h, &len) == NDIS_STATUS_RESOURCES);
	CHECK(open_file("huge.bin", &h, &len) ==
	      NDIS_STATUS_ERROR_READING_FILE);
	CHECK(!h && len == 0 && allocs == frees);

	/* bad arguments */
	CHECK(open_file("fw.bin", &h, &len) == NDIS_STATUS_SUCCESS);
	map(&status, NULL, h);
	CHECK(status == NDIS_STATUS_FAILURE);
	map(&status, &va, NULL);
	CHECK(status == NDIS_STATUS_FAILURE);
	unmap(NULL);
	close(NULL);
	close(h);
	u = ustr(buf, "fw.bin");
	status = 0;
	open(&status, NULL, &len, &u, -1);
	CHECK(status == NDIS_STATUS_FAILURE);
	open(&status, &h, NULL, &u, -1);
	CHECK(status == NDIS_STATUS_FAILURE);
	open(&status, &h, &len, NULL, -1);
	CHECK(status == NDIS_STATUS_FAILURE);
	open(NULL, &h, &len, &u, -1);	/* nowhere to say: nothing done */
	u.buffer = NULL;
	open(&status, &h, &len, &u, -1);
	CHECK(status == NDIS_STATUS_FILE_NOT_FOUND);
	driver_known = 0;
	CHECK(open_file("fw.bin", &h, &len) == NDIS_STATUS_FAILURE && !h);
	driver_known = 1;
	CHECK(allocs == frees && fw.puts == 3);
}

/* -- ndis_config.c ---------------------------------------------------------- */

EXPORT(NdisOpenConfiguration)
EXPORT(NdisReadConfiguration)
EXPORT(NdisWriteConfiguration)
EXPORT(NdisCloseConfiguration)
EXPORT(NdisOpenConfigurationKeyByName)
EXPORT(NdisOpenConfigurationKeyByIndex)

#define NDIS_STATUS_NOT_SUPPORTED	((int32_t)0xc00000bb)

struct kx_config_param {
	uint32_t type;
	union {
		uint32_t integer;
		struct kx_ustring string;
	} data;
};

typedef WIN void (*read_config_fn)(int32_t *, struct kx_config_param **,
				   void *, struct kx_ustring *, uint32_t);
typedef WIN void (*write_config_fn)(int32_t *, void *, struct kx_ustring *,
				    struct kx_config_param *);

/* NdisReadConfiguration of keyword as type: its status and result */
static int32_t read_config(void *h, const char *keyword, uint32_t type,
			   struct kx_config_param **out)
{
	read_config_fn read = export_NdisReadConfiguration();
	uint16_t buf[96];
	struct kx_ustring k = ustr(buf, keyword);
	int32_t status = 0x1234;

	*out = NULL;
	read(&status, out, h, &k, type);
	return status;
}

static int32_t write_config(void *h, const char *keyword,
			    struct kx_config_param *param)
{
	write_config_fn write = export_NdisWriteConfiguration();
	uint16_t buf[96];
	struct kx_ustring k = ustr(buf, keyword);
	int32_t status = 0x1234;

	write(&status, h, &k, param);
	return status;
}

/* the UTF-16 string of a STRING parameter as ASCII */
static const char *param_text(const struct kx_config_param *p)
{
	static char text[300];
	unsigned int i;

	for (i = 0; i < p->data.string.length / 2 && i + 1 < sizeof(text); i++)
		text[i] = p->data.string.buffer[i];
	text[i] = 0;
	return text;
}

static void test_configuration(void)
{
	WIN void (*open)(int32_t *, void **, void *) =
		export_NdisOpenConfiguration();
	WIN void (*close)(void *) = export_NdisCloseConfiguration();
	WIN void (*by_name)(int32_t *, void *, struct kx_ustring *, void **) =
		export_NdisOpenConfigurationKeyByName();
	WIN void (*by_index)(int32_t *, void *, uint32_t, struct kx_ustring *,
			     void **) = export_NdisOpenConfigurationKeyByIndex();
	struct kx_config_param *p, w;
	uint16_t buf[300];
	struct kx_ustring name;
	void *h = NULL, *sub;
	int32_t status;
	int i;

	memset(&config_store, 0, sizeof(config_store));
	allocs = frees = 0;
	open(&status, &h, &config_adapter);
	CHECK(status == NDIS_STATUS_SUCCESS && h == &config_adapter);

	/* the .conf values, in the type asked for */
	CHECK(read_config(h, "channel", 0, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p && p->type == 0 && p->data.integer == 11);
	CHECK(read_config(h, "Channel", 1, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->type == 1 && p->data.integer == 0x11);
	CHECK(read_config(h, "SSID", 2, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->type == 2 && !strcmp(param_text(p), "bench"));
	CHECK(read_config(h, "Missing", 0, &p) == NDIS_STATUS_FAILURE && !p);
	CHECK(allocs == 3);

	/* a written integer is read back as a number, in either base */
	w.type = 0;
	w.data.integer = 6;
	CHECK(write_config(h, "Channel", &w) == NDIS_STATUS_SUCCESS);
	CHECK(read_config(h, "CHANNEL", 0, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->type == 0 && p->data.integer == 6);
	CHECK(read_config(h, "channel", 1, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->type == 1 && p->data.integer == 6);
	CHECK(read_config(h, "channel", 2, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->type == 0 && p->data.integer == 6);
	/* writing it again replaces it: one value kept */
	w.type = 1;
	w.data.integer = 0xabc;
	CHECK(write_config(h, "channel", &w) == NDIS_STATUS_SUCCESS);
	CHECK(read_config(h, "Channel", 1, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->type == 1 && p->data.integer == 0xabc);
	CHECK(allocs == 3 + 1 + 4);

	/* a written string, new keyword, read as a string or an integer */
	w.type = 2;
	w.data.string = ustr(buf, "42");
	CHECK(write_config(h, "NewKey", &w) == NDIS_STATUS_SUCCESS);
	CHECK(read_config(h, "newkey", 2, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->type == 2 && !strcmp(param_text(p), "42"));
	CHECK(read_config(h, "newkey", 0, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->type == 0 && p->data.integer == 42);
	w.data.string = ustr(buf, "");
	CHECK(write_config(h, "SSID", &w) == NDIS_STATUS_SUCCESS);
	CHECK(read_config(h, "ssid", 2, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->type == 2 && p->data.string.length == 0);

	/* closing frees what reads returned, not what was written */
	i = frees;
	close(h);
	CHECK(frees == i + 10 && config_store.params == NULL);
	CHECK(read_config(h, "Channel", 0, &p) == NDIS_STATUS_SUCCESS);
	CHECK(p->data.integer == 0xabc);
	close(h);

	/* refused writes leave the value as it was */
	buf[0] = 0x00e9;	/* not ASCII */
	w.type = 2;
	w.data.string.length = 2;
	w.data.string.buffer = buf;
	CHECK(write_config(h, "NewKey", &w) == NDIS_STATUS_FAILURE);
	w.data.string = ustr(buf, "x");
	w.data.string.length = 256 * 2;	/* no room for its NUL */
	for (i = 0; i < 256; i++)
		buf[i] = 'x';
	CHECK(write_config(h, "NewKey", &w) == NDIS_STATUS_FAILURE);
	w.type = 4;	/* NDIS_PARAMETER_BINARY */
	CHECK(write_config(h, "NewKey", &w) == NDIS_STATUS_NOT_SUPPORTED);
	w.type = 3;	/* NDIS_PARAMETER_MULTI_STRING */
	CHECK(write_config(h, "NewKey", &w) == NDIS_STATUS_NOT_SUPPORTED);
	w.type = 0;
	CHECK(write_config(h, "", &w) == NDIS_STATUS_FAILURE);
	CHECK(write_config(NULL, "NewKey", &w) == NDIS_STATUS_FAILURE);
	CHECK(write_config(h, "NewKey", NULL) == NDIS_STATUS_FAILURE);
	CHECK(read_config(h, "newkey", 2, &p) == NDIS_STATUS_SUCCESS);
	CHECK(!strcmp(param_text(p), "42"));
	CHECK(read_config(NULL, "newkey", 2, &p) == NDIS_STATUS_FAILURE);
	CHECK(read_config(h, "", 2, &p) == NDIS_STATUS_FAILURE);
	((write_config_fn)export_NdisWriteConfiguration())(&status, h, NULL,
							   &w);
	CHECK(status == NDIS_STATUS_FAILURE);
	((read_config_fn)export_NdisReadConfiguration())(&status, &p, h, NULL,
							  0);
	CHECK(status == NDIS_STATUS_FAILURE);
	close(h);
	close(NULL);

	/* the flat settings have no subkeys: neither call opens one */
	name = ustr(buf, "Ndi");
	sub = &sub;
	status = 0;
	by_name(&status, h, &name, &sub);
	CHECK(status == NDIS_STATUS_FAILURE && !sub);
	sub = &sub;
	status = 0;
	name.length = 6;
	by_index(&status, h, 0, &name, &sub);
	CHECK(status == NDIS_STATUS_FAILURE && !sub && name.length == 6);
	by_name(NULL, h, NULL, NULL);
	by_index(NULL, NULL, 3, NULL, NULL);

	/* the adapter's end frees the written values */
	CHECK(config_store.written != NULL && allocs == frees + 3);
	{
		void ndis_config_free_written(struct kx_config_store *cs);

		ndis_config_free_written(&config_store);
	}
	CHECK(config_store.written == NULL && allocs == frees);
}

/* -- ndis_log.c: the miniport's log ---------------------------------------- */

EXPORT(NdisMCreateLog)
EXPORT(NdisMWriteLogData)
EXPORT(NdisMFlushLog)
EXPORT(NdisMCloseLog)

uint32_t ndis_log_read(void *log_handle, void *buf, uint32_t len);
void ndis_log_release(void **slot);

static void test_miniport_log(void)
{
	WIN int32_t (*create)(void *, uint32_t, void **) =
		export_NdisMCreateLog();
	WIN int32_t (*write)(void *, const void *, uint32_t) =
		export_NdisMWriteLogData();
	WIN void (*flush)(void *) = export_NdisMFlushLog();
	WIN void (*close)(void *) = export_NdisMCloseLog();
	void *log = NULL, *second = &second;
	char out[64];
	uint32_t n;

	allocs = frees = 0;
	driver_known = 1;
	adapter_log = NULL;
	CHECK(create(&adapter_handle, 8, &log) == NDIS_STATUS_SUCCESS && log);
	CHECK(adapter_log == log && allocs == 1);
	/* one per adapter */
	CHECK(create(&adapter_handle, 8, &second) == NDIS_STATUS_FAILURE);
	CHECK(!second && allocs == 1);

	CHECK(write(log, "abc", 3) == NDIS_STATUS_SUCCESS);
	n = ndis_log_read(log, out, sizeof(out));
	CHECK(n == 3 && !memcmp(out, "abc", 3));
	/* full: the oldest bytes go */
	CHECK(write(log, "defghij", 7) == NDIS_STATUS_SUCCESS);
	n = ndis_log_read(log, out, sizeof(out));
	CHECK(n == 8 && !memcmp(out, "cdefghij", 8));
	CHECK(write(log, "kl", 2) == NDIS_STATUS_SUCCESS);
	n = ndis_log_read(log, out, sizeof(out));
	CHECK(n == 8 && !memcmp(out, "efghijkl", 8));
	/* a write past the log's size: its last 8 bytes */
	CHECK(write(log, "0123456789ABC", 13) == NDIS_STATUS_SUCCESS);
	n = ndis_log_read(log, out, sizeof(out));
	CHECK(n == 8 && !memcmp(out, "56789ABC", 8));
	n = ndis_log_read(log, out, 3);
	CHECK(n == 3 && !memcmp(out, "567", 3));
	/* flushed: empty, then filling from the start again */
	flush(log);
	CHECK(ndis_log_read(log, out, sizeof(out)) == 0);
	CHECK(write(log, "xy", 2) == NDIS_STATUS_SUCCESS);
	n = ndis_log_read(log, out, sizeof(out));
	CHECK(n == 2 && !memcmp(out, "xy", 2));
	CHECK(write(log, NULL, 0) == NDIS_STATUS_SUCCESS);
	CHECK(write(log, NULL, 4) == NDIS_STATUS_FAILURE);
	CHECK(ndis_log_read(log, out, sizeof(out)) == 2);

	/* closed: the slot is free for another */
	close(log);
	CHECK(!adapter_log && frees == 1);
	CHECK(write(log, "z", 1) == NDIS_STATUS_FAILURE);
	flush(log);
	close(log);
	CHECK(frees == 1);
	CHECK_CONTAINS(logged, "NdisMCloseLog: not a log NdisMCreateLog made, ignored");

	/* sizes: none, or over 64 KiB, is RESOURCES (retry smaller) */
	CHECK(create(&adapter_handle, 0, &log) == NDIS_STATUS_RESOURCES);
	CHECK(!log);
	CHECK(create(&adapter_handle, (64 << 10) + 1, &log) ==
	      NDIS_STATUS_RESOURCES);
	CHECK(create(&adapter_handle, 64 << 10, &log) == NDIS_STATUS_SUCCESS);
	CHECK(write(log, "q", 1) == NDIS_STATUS_SUCCESS);
	/* left open: the adapter's halt closes it */
	ndis_log_release(&adapter_log);
	CHECK(!adapter_log && allocs == 2 && frees == 2);
	ndis_log_release(&adapter_log);
	CHECK(frees == 2);

	/* bad arguments */
	CHECK(create(NULL, 8, &log) == NDIS_STATUS_FAILURE);
	CHECK(create(&adapter_handle, 8, NULL) == NDIS_STATUS_FAILURE);
	CHECK(write(NULL, "a", 1) == NDIS_STATUS_FAILURE);
	flush(NULL);
	close(NULL);
	CHECK(ndis_log_read(NULL, out, 1) == 0);
	driver_known = 0;
	CHECK(create(&adapter_handle, 8, &log) == NDIS_STATUS_FAILURE && !log);
	driver_known = 1;
	CHECK(allocs == 2 && !adapter_log);
}

/* -- ndis_device.c ---------------------------------------------------------- */

EXPORT(NdisMRegisterDevice)
EXPORT(NdisMDeregisterDevice)

static void test_register_device(void)
{
	WIN int32_t (*reg)(void *, struct kx_ustring *, struct kx_ustring *,
			   void **, void **, void **) =
		export_NdisMRegisterDevice();
	WIN int32_t (*dereg)(void *) = export_NdisMDeregisterDevice();
	static char dispatch[28];
	void *major[28], *dev, *handle;
	uint16_t nbuf[64], lbuf[64];
	struct kx_ustring name = ustr(nbuf, "\\Device\\bench0");
	struct kx_ustring link = ustr(lbuf, "\\DosDevices\\bench0");
	int i;

	for (i = 0; i < 28; i++)
		major[i] = &dispatch[i];
	memset(&io, 0, sizeof(io));
	allocs = frees = 0;
	driver_known = 1;
	CHECK(reg(&wrapper_handle, &name, &link, major, &dev, &handle) ==
	      NDIS_STATUS_SUCCESS);
	/* the miniport's driver object, its names, FILE_DEVICE_NETWORK */
	CHECK(dev == io.devobj && handle && io.creates == 1);
	CHECK(io.driver_object == fake_driver_object && io.type == 0x12);
	CHECK(io.caller && io.caller == last_caller);
	CHECK_STR(io.name, "\\Device\\bench0");
	CHECK(io.links == 1);
	CHECK_STR(io.link, "\\DosDevices\\bench0");
	CHECK_STR(io.target, "\\Device\\bench0");
	/* ready for I/O on return */
	CHECK(io.devobj[KX_DEVOBJ_FLAGS] == 0);
	/* the table is copied: the driver's array may go */
	memset(major, 0, sizeof(major));
	CHECK(memcmp(handle, "DDev", 4) == 0);
	CHECK(((void **)((char *)handle + 16))[0] == &dispatch[0]);
	CHECK(((void **)((char *)handle + 16))[27] == &dispatch[27]);

	/* the link overwritten to prove the handle keeps its own copy */
	lbuf[0] = 'X';
	CHECK(dereg(handle) == NDIS_STATUS_SUCCESS);
	CHECK(io.unlinks == 1 && io.deletes == 1 && io.deleted == io.devobj);
	CHECK_STR(io.link, "\\DosDevices\\bench0");
	CHECK(allocs == 1 && frees == 1);
	/* twice: the second is refused, logged */
	CHECK(dereg(handle) == NDIS_STATUS_FAILURE);
	CHECK(dereg(NULL) == NDIS_STATUS_FAILURE);
	CHECK(io.deletes == 1 && frees == 1);
	CHECK_CONTAINS(logged, "NdisMDeregisterDevice: not a device NdisMRegisterDevice made, ignored");

	/* no symbolic link: none made, none deleted */
	for (i = 0; i < 28; i++)
		major[i] = &dispatch[i];
	CHECK(reg(&wrapper_handle, &name, NULL, major, &dev, &handle) ==
	      NDIS_STATUS_SUCCESS);
	CHECK(io.links == 1);
	CHECK(dereg(handle) == NDIS_STATUS_SUCCESS);
	CHECK(io.unlinks == 1 && io.deletes == 2);

	/* a name taken: FAILURE, nothing left behind */
	io.create_status = (int32_t)0xc0000035;
	dev = handle = &dev;
	CHECK(reg(&wrapper_handle, &name, &link, major, &dev, &handle) ==
	      NDIS_STATUS_FAILURE);
	CHECK(!dev && !handle && allocs == frees);
	io.create_status = (int32_t)0xc000009a;	/* out of memory */
	CHECK(reg(&wrapper_handle, &name, &link, major, &dev, &handle) ==
	      NDIS_STATUS_RESOURCES);
	io.create_status = 0;
	/* the link's name taken: the device goes again */
	io.link_status = (int32_t)0xc0000035;
	CHECK(reg(&wrapper_handle, &name, &link, major, &dev, &handle) ==
	      NDIS_STATUS_FAILURE);
	CHECK(!dev && !handle && io.deletes == 3 && allocs == frees);
	io.link_status = 0;

	/* bad arguments */
	CHECK(reg(NULL, &name, &link, major, &dev, &handle) ==
	      NDIS_STATUS_FAILURE);
	CHECK(reg(&wrapper_handle, NULL, &link, major, &dev, &handle) ==
	      NDIS_STATUS_FAILURE);
	name.length = 0;
	CHECK(reg(&wrapper_handle, &name, &link, major, &dev, &handle) ==
	      NDIS_STATUS_FAILURE);
	name = ustr(nbuf, "\\Device\\bench0");
	CHECK(reg(&wrapper_handle, &name, &link, NULL, &dev, &handle) ==
	      NDIS_STATUS_FAILURE);
	CHECK(reg(&wrapper_handle, &name, &link, major, NULL, &handle) ==
	      NDIS_STATUS_FAILURE && !handle);
	CHECK(reg(&wrapper_handle, &name, &link, major, &dev, NULL) ==
	      NDIS_STATUS_FAILURE && !dev);
	link.buffer = NULL;
	CHECK(reg(&wrapper_handle, &name, &link, major, &dev, &handle) ==
	      NDIS_STATUS_FAILURE);
	driver_known = 0;
	link = ustr(lbuf, "\\DosDevices\\bench0");
	CHECK(reg(&wrapper_handle, &name, &link, major, &dev, &handle) ==
	      NDIS_STATUS_FAILURE);
	driver_known = 1;
	CHECK(io.creates == 5 && allocs == frees);
}

/* -- ndis_dma.c ------------------------------------------------------------- */

EXPORT(NdisMAllocateSharedMemoryAsync)

#define NDIS_STATUS_PENDING	0x00000103

static void test_shared_memory_async(void)
{
	WIN int32_t (*alloc)(void *, uint32_t, uint8_t, void *) =
		export_NdisMAllocateSharedMemoryAsync();
	static char ctx, memory[64];

	memset(&async, 0, sizeof(async));
	allocs = frees = 0;
	driver_known = 1;
	async.has_handler = 1;
	async.give_va = memory;
	/* pending: nothing allocated or completed before the work runs */
	CHECK(alloc(&adapter_handle, 4096, 1, &ctx) == NDIS_STATUS_PENDING);
	CHECK(async.defers == 1 && async.allocs == 0 && async.completes == 0);
	async.fn(async.arg);
	CHECK(async.allocs == 1 && async.cached == 1 && async.completes == 1);
	CHECK(async.handle == &adapter_handle && async.va == memory);
	CHECK(async.pa == 0x1234000 + 4096 && async.len == 4096);
	CHECK(async.ctx == &ctx && allocs == 1 && frees == 1);
	/* no memory: the completion says so with a NULL address */
	async.give_va = NULL;
	CHECK(alloc(&adapter_handle, 100, 0, NULL) == NDIS_STATUS_PENDING);
	async.pa = 77;
	async.fn(async.arg);
	CHECK(async.completes == 2 && !async.va && async.pa == 0);
	CHECK(async.len == 100 && !async.ctx && frees == 2);

	/* no MiniportAllocateComplete, no length, no driver: FAILURE */
	async.has_handler = 0;
	CHECK(alloc(&adapter_handle, 100, 0, &ctx) == NDIS_STATUS_FAILURE);
	async.has_handler = 1;
	CHECK(alloc(&adapter_handle, 0, 0, &ctx) == NDIS_STATUS_FAILURE);
	CHECK(alloc(NULL, 100, 0, &ctx) == NDIS_STATUS_FAILURE);
	driver_known = 0;
	CHECK(alloc(&adapter_handle, 100, 0, &ctx) == NDIS_STATUS_FAILURE);
	driver_known = 1;
	CHECK(async.defers == 2 && allocs == 2);
	/* the work queue refused: RESOURCES, the request freed */
	async.fail = 1;
	CHECK(alloc(&adapter_handle, 100, 0, &ctx) == NDIS_STATUS_RESOURCES);
	CHECK(allocs == 3 && frees == 3 && async.completes == 2);
}

EXPORT(NdisMStartBufferPhysicalMapping)
EXPORT(NdisMCompleteBufferPhysicalMapping)

struct kx_physical_unit {
	uint64_t address;
	uint32_t length;
};

static void test_buffer_physical_mapping(void)
{
	WIN void (*start)(void *, struct kx_mdl *, uint32_t, uint8_t,
			  struct kx_physical_unit *, uint32_t *) =
		export_NdisMStartBufferPhysicalMapping();
	WIN void (*complete)(void *, struct kx_mdl *, uint32_t) =
		export_NdisMCompleteBufferPhysicalMapping();
	void ndis_map_registers_release(void *handle);
	static uint8_t pages[4 * 4096] __attribute__((aligned(4096)));
	struct kx_physical_unit units[40];
	struct kx_mdl mdl = { 0 };
	uint32_t n = 99;

	memset(&dma, 0, sizeof(dma));
	allocs = frees = 0;
	dma.count = 2;
	/* 5000 bytes from 0x100 into a page: two pieces, cut at the page */
	mdl.start_va = pages;
	mdl.byte_offset = 0x100;
	mdl.byte_count = 5000;
	start(&adapter_handle, &mdl, 1, 1, units, &n);
	CHECK(n == 2 && dma.maps == 2 && dma.to_device);
	CHECK(units[0].address == (uintptr_t)pages + 0x100 + 0x100000000ULL);
	CHECK(units[0].length == 4096 - 0x100);
	CHECK(units[1].address == (uintptr_t)pages + 4096 + 0x100000000ULL);
	CHECK(units[1].length == 5000 - (4096 - 0x100));
	CHECK(allocs == 1);	/* the registers' state, once */
	/* completed: both pieces unmapped, once */
	complete(&adapter_handle, &mdl, 1);
	CHECK(dma.unmaps == 2 && dma.unmapped[0] == units[0].address);
	CHECK(dma.unmap_to_device);
	CHECK(dma.unmapped_len[1] == units[1].length);
	complete(&adapter_handle, &mdl, 1);
	CHECK(dma.unmaps == 2);
	/* a register mapped again: the old mapping goes first */
	mdl.byte_offset = 0;
	mdl.byte_count = 60;
	start(&adapter_handle, &mdl, 0, 0, units, &n);
	CHECK(n == 1 && units[0].length == 60 && !dma.to_device);
	start(&adapter_handle, &mdl, 0, 0, units, &n);
	CHECK(n == 1 && dma.unmaps == 3 && !dma.unmap_to_device);
	/* a register not allocated: nothing mapped */
	start(&adapter_handle, &mdl, 2, 0, units, &n);
	CHECK(n == 0 && dma.maps == 4);
	CHECK_CONTAINS(logged, "NdisMStartBufferPhysicalMapping: map register 2 not allocated");
	complete(&adapter_handle, &mdl, 7);
	/* a mapping that fails half way: what was mapped is undone */
	mdl.byte_count = 3 * 4096;
	dma.fail_at = dma.maps + 2;
	start(&adapter_handle, &mdl, 1, 1, units, &n);
	CHECK(n == 0 && dma.unmaps == 4);
	CHECK_CONTAINS(logged, "buffer of 12288 bytes not mapped");
	dma.fail_at = 0;
	/* over 32 pages (a register's most) is refused the same way */
	{
		static uint8_t big[34 * 4096] __attribute__((aligned(4096)));

		mdl.start_va = big;
		mdl.byte_count = 33 * 4096;
		int before = dma.unmaps;
		start(&adapter_handle, &mdl, 1, 1, units, &n);
		CHECK(n == 0 && dma.unmaps == before + 32);
		mdl.byte_count = 32 * 4096;
		start(&adapter_handle, &mdl, 1, 1, units, &n);
		CHECK(n == 32);
	}
	/* bad arguments */
	start(&adapter_handle, &mdl, 0, 1, NULL, &n);
	CHECK(n == 0);
	start(&adapter_handle, NULL, 0, 1, units, &n);
	CHECK(n == 0);
	start(NULL, &mdl, 0, 1, units, &n);
	CHECK(n == 0);
	start(&adapter_handle, &mdl, 0, 1, units, NULL);
	complete(NULL, &mdl, 0);
	/* freed: every mapping undone, the state freed */
	n = (uint32_t)dma.unmaps;
	ndis_map_registers_release(&adapter_handle);
	CHECK((uint32_t)dma.unmaps == n + 1 + 32 && !dma.state && frees == 1);
	ndis_map_registers_release(&adapter_handle);
	CHECK(frees == 1);
}

int main(void)
{
	TEST(test_init_strings);
	TEST(test_convert_strings);
	TEST(test_upcase_string);
	TEST(test_initialize_string);
	TEST(test_allocate_memory);
	TEST(test_error_log);
	TEST(test_event_log);
	TEST(test_indicate_status);
	TEST(test_adapter_instance_name);
	TEST(test_packet_pool);
	TEST(test_ports);
	TEST(test_immediate_pci);
	TEST(test_query_buffer);
	TEST(test_first_buffer);
	TEST(test_unchain_at_back);
	TEST(test_copy_packet);
	TEST(test_interlocked_counts);
	TEST(test_interlocked_lists);
	TEST(test_rw_lock);
	TEST(test_events);
	TEST(test_ndis_timer);
	TEST(test_unload_handler);
	TEST(test_misc);
	TEST(test_processor_counts);
	TEST(test_uptime);
	TEST(test_routine_address);
	TEST(test_usbd);
	TEST(test_usbd_config_request);
	TEST(test_files);
	TEST(test_configuration);
	TEST(test_miniport_log);
	TEST(test_register_device);
	TEST(test_shared_memory_async);
	TEST(test_buffer_physical_mapping);
	return tap_done();
}
