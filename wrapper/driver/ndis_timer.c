// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS_TIMER (NdisInitializeTimer, NdisSetTimer,
 * NdisCancelTimer), the timer NDIS gives any driver: a notification
 * KTIMER followed by its KDPC in the driver's storage, the timer function
 * being the DPC's routine (the same four arguments). Setting and
 * cancelling are the ntoskrnl ones (ntos_timer.c), called through their
 * exports. Unlike a miniport timer (ndis.c) its function is not
 * serialized with the miniport's handlers: the driver locks for itself.
 *
 * NdisSetTimer takes either kind: on amd64 the DDK's NdisMSetTimer is a
 * macro over it. A KTIMER NdisInitializeTimer set up is one ntos_timer.c
 * knows; anything else is a miniport timer.
 */

#include <linux/sched.h>
#include <linux/types.h>

#include "ndis_core.h"
#include "ntos_timer.h"
#include "winexport.h"

extern const struct win_export win_export_KeSetTimer;
extern const struct win_export win_export_KeCancelTimer;

typedef WIN_ABI u8 (*ke_set_timer_fn)(struct win_ktimer *kt, s64 due_time,
				      struct win_kdpc *dpc);
typedef WIN_ABI u8 (*ke_cancel_timer_fn)(struct win_ktimer *kt);

struct ndis_timer_storage {
	struct win_ktimer timer;
	struct win_kdpc dpc;
};
static_assert(sizeof(struct ndis_timer_storage) ==
	      sizeof(struct win_ktimer_kdpc));

static WIN_ABI void NdisInitializeTimer(struct ndis_timer_storage *t,
					void *func, void *context)
{
	/* the timer is the caller's driver's: its unload frees it */
	win_timer_init_for(&t->timer,
			   ndis_driver_at((unsigned long)__builtin_return_address(0)));
	win_dpc_init(&t->dpc, func, context);
}
WIN_FUNC(NdisInitializeTimer);

static WIN_ABI void NdisSetTimer(void *storage, u32 msecs)
{
	struct ndis_timer_storage *t = storage;
	ke_set_timer_fn set = win_export_KeSetTimer.func;

	if (!win_timer_known(&t->timer)) {
		ndis_miniport_timer_set(storage, msecs);
		return;
	}
	set(&t->timer, -(s64)msecs * 10000, &t->dpc);	/* relative, 100 ns */
}
WIN_FUNC(NdisSetTimer);

/* Whether it was set; a DPC already queued still runs, as in Windows. */
static WIN_ABI void NdisCancelTimer(struct ndis_timer_storage *t,
				    u8 *cancelled)
{
	ke_cancel_timer_fn cancel = win_export_KeCancelTimer.func;

	*cancelled = cancel(&t->timer);
}
WIN_FUNC(NdisCancelTimer);
