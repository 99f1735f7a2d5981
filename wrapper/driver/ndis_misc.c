// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's questions about the host: its version, the
 * processors, the wall clock and the time since boot, DMA alignment,
 * and its own exports by name; and the driver's unload handler.
 */

#include <linux/cpumask.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/types.h>

#include "ndis_core.h"
#include "winexport.h"

/* NDIS 5.1: the major version in the high word. */
static WIN_ABI u32 NdisGetVersion(void)
{
	return 0x00050001;
}
WIN_FUNC(NdisGetVersion);

/* A CCHAR: more than 127 processors are reported as 127. */
static WIN_ABI s8 NdisSystemProcessorCount(void)
{
	unsigned int n = num_online_cpus();

	return n > 127 ? 127 : n;
}
WIN_FUNC(NdisSystemProcessorCount);

/*
 * The running processor's index and its times so far: idle, and all of
 * it (Windows counts its idle thread as kernel time, so KernelAndUser
 * includes the idle time; a driver takes the load as one minus the
 * ratio of the two counts' differences). Counted in milliseconds here: a
 * ULONG of them wraps after 49.7 days, and only differences matter.
 */
static WIN_ABI void NdisGetCurrentProcessorCounts(u32 *idle,
						  u32 *kernel_and_user,
						  u32 *index)
{
	unsigned int cpu;
	u64 idle_ns, total_ns;

	ndis_cpu_times(&cpu, &idle_ns, &total_ns);
	if (idle)
		*idle = div_u64(idle_ns, 1000000);
	if (kernel_and_user)
		*kernel_and_user = div_u64(total_ns, 1000000);
	if (index)
		*index = cpu;
}
WIN_FUNC(NdisGetCurrentProcessorCounts);

/* 100 ns units from 1601-01-01 to 1970-01-01 */
#define NDIS_EPOCH_OFFSET_100NS	116444736000000000LL

/* UTC in Windows' units (100 ns since 1601-01-01), from the real clock. */
static WIN_ABI void NdisGetCurrentSystemTime(s64 *time)
{
	struct timespec64 now;

	ktime_get_real_ts64(&now);
	*time = now.tv_sec * 10000000LL + now.tv_nsec / 100 +
		NDIS_EPOCH_OFFSET_100NS;
}
WIN_FUNC(NdisGetCurrentSystemTime);

/*
 * Milliseconds since boot, from jiffies (ktime_get_boottime() would add
 * the GPL-only ktime_get_with_offset to the module's imports).
 */
static WIN_ABI void NdisGetSystemUpTime(u32 *msecs)
{
	*msecs = (u32)jiffies64_to_msecs(get_jiffies_64() - INITIAL_JIFFIES);
}
WIN_FUNC(NdisGetSystemUpTime);

/* Does the counted UTF-16 name spell the ASCII one exactly? */
static bool ndis_name_is(const struct win_unicode_string *name,
			 const char *ascii)
{
	unsigned int i, n = name->length / 2;

	if (strlen(ascii) != n)
		return false;
	for (i = 0; i < n; i++)
		if (name->buffer[i] != (u8)ascii[i])
			return false;
	return true;
}

/*
 * An NDIS.SYS export by its exact name, from the table the import
 * resolver uses; NULL for a name the wrapper does not export.
 */
static WIN_ABI void *NdisGetRoutineAddress(struct win_unicode_string *name)
{
	unsigned int d, i;

	for (d = 0; d < win_num_dlls; d++) {
		const struct win_dll *dll = &win_dlls[d];

		if (strcasecmp(dll->name, "NDIS.SYS"))
			continue;
		for (i = 0; i < dll->count; i++)
			if (ndis_name_is(name, dll->exports[i]->name))
				return dll->exports[i]->func;
	}
	return NULL;
}
WIN_FUNC(NdisGetRoutineAddress);

/* The alignment DMA buffers need for the CPU caches' sake. */
static WIN_ABI u32 NdisMGetDmaAlignment(void *handle)
{
	return dma_get_cache_alignment();
}
WIN_FUNC(NdisMGetDmaAlignment);

/* The driver's DriverUnload: run when the wrapper unloads the driver. */
static WIN_ABI void NdisMRegisterUnloadHandler(void *wrapper_handle,
					       void *unload)
{
	ndis_driver_set_unload(wrapper_handle, unload);
}
WIN_FUNC(NdisMRegisterUnloadHandler);
