// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS_EVENT, a notification KEVENT in the driver's storage
 * and nothing more: each operation is the ntoskrnl one (ntoskrnl.c),
 * called through its export so both name the same event semantics.
 */

#include <linux/types.h>

#include "wdm.h"
#include "winexport.h"

extern const struct win_export win_export_KeInitializeEvent;
extern const struct win_export win_export_KeSetEvent;
extern const struct win_export win_export_KeResetEvent;
extern const struct win_export win_export_KeWaitForSingleObject;

typedef WIN_ABI void (*ke_init_event_fn)(struct win_kevent *ev, u32 type,
					 u8 state);
typedef WIN_ABI s32 (*ke_set_event_fn)(struct win_kevent *ev, s32 increment,
				       u8 wait);
typedef WIN_ABI s32 (*ke_reset_event_fn)(struct win_kevent *ev);
typedef WIN_ABI s32 (*ke_wait_fn)(void *object, u32 reason, u8 mode,
				  u8 alertable, const s64 *timeout);

static WIN_ABI void NdisInitializeEvent(struct win_kevent *ev)
{
	ke_init_event_fn init = win_export_KeInitializeEvent.func;

	init(ev, WIN_NOTIFICATION_EVENT, 0);
}
WIN_FUNC(NdisInitializeEvent);

static WIN_ABI void NdisSetEvent(struct win_kevent *ev)
{
	ke_set_event_fn set = win_export_KeSetEvent.func;

	set(ev, 0, 0);
}
WIN_FUNC(NdisSetEvent);

static WIN_ABI void NdisResetEvent(struct win_kevent *ev)
{
	ke_reset_event_fn reset = win_export_KeResetEvent.func;

	reset(ev);
}
WIN_FUNC(NdisResetEvent);

/*
 * TRUE when the event was signalled, FALSE when ms milliseconds passed
 * first; 0 ms waits for as long as it takes. Executive reason, kernel
 * mode, not alertable.
 */
static WIN_ABI u8 NdisWaitEvent(struct win_kevent *ev, u32 ms)
{
	ke_wait_fn wait = win_export_KeWaitForSingleObject.func;
	s64 timeout = -(s64)ms * 10000;	/* relative, 100 ns units */

	return wait(ev, 0, 0, 0, ms ? &timeout : NULL) == STATUS_SUCCESS;
}
WIN_FUNC(NdisWaitEvent);
