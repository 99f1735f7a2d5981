// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's completion of IRPs and the power manager's
 * IRP calls, on the wrapper's IRP machinery (wdm.h's layouts; IoCallDriver
 * is ntoskrnl.c's ntos_call_driver, which only dispatches to the
 * wrapper's own device objects).
 *
 * Power: the wrapper itself never sends a power IRP (a miniport's power
 * is OID_PNP_SET_POWER's business); these are for a driver that asks for
 * one (PoRequestPowerIrp, to its own device stack, as a USB miniport
 * does before it idles the device) or passes one on. At the bottom of the
 * adapter's stack the wrapper answers as a bus driver: a set or query of
 * a power state succeeds, a wait-wake is not supported (nothing here
 * wakes the system).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ntos.h"
#include "ntos_dispatch.h"
#include "wincall.h"
#include "winexport.h"

/* -- completion ------------------------------------------------------------ */

void ndis_complete_irp(struct win_irp *irp, u8 irql)
{
	struct win_kevent *event;

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
	event = irp->user_event;
	ntos_irp_complete_top(irp);
	if (event)
		win_dispatch_set_event(event);
}

static WIN_FASTCALL void IofCompleteRequest(struct win_irp *irp, s8 boost)
{
	ndis_complete_irp(irp, WIN_PASSIVE_LEVEL);
}
WIN_FUNC(IofCompleteRequest);

/* -- power ----------------------------------------------------------------- */

#define WIN_SYSTEM_POWER_STATE		0	/* POWER_STATE_TYPE */
#define WIN_DEVICE_POWER_STATE		1
#define WIN_POWER_WORKING		1	/* PowerSystemWorking, D0 */

void ntos_init_devobj_ext(struct win_devobj_extension *ext,
			  struct win_device_object *dev)
{
	memset(ext, 0, sizeof(*ext));
	ext->type = WIN_IO_TYPE_DEVICE_OBJECT_EXTENSION;
	ext->size = sizeof(*ext);
	ext->device_object = dev;
	ext->system_power_state = WIN_POWER_WORKING;
	ext->device_power_state = WIN_POWER_WORKING;
	dev->device_object_extension = ext;
}

s32 ntos_power_dispatch(struct win_irp *irp)
{
	struct win_io_stack_location *sl = irp->current_stack_location;
	s32 status;

	switch (sl->minor_function) {
	case IRP_MN_SET_POWER:
	case IRP_MN_QUERY_POWER:
		status = STATUS_SUCCESS;
		break;
	default:
		status = STATUS_NOT_SUPPORTED;
		break;
	}
	irp->io_status.status = status;
	irp->io_status.information = 0;
	ndis_complete_irp(irp, WIN_PASSIVE_LEVEL);
	return status;
}

/* IoCallDriver for a power IRP (XP serialized them; nothing does here). */
static WIN_ABI s32 PoCallDriver(struct win_device_object *dev,
				struct win_irp *irp)
{
	return ntos_call_driver(dev, irp);
}
WIN_FUNC(PoCallDriver);

/*
 * XP's power manager sent a device its power IRPs one at a time and this
 * let the next one go; the wrapper has no queue of them (Vista and later
 * have none either), so it only checks what it is given.
 */
static WIN_ABI void PoStartNextPowerIrp(struct win_irp *irp)
{
	if (!irp || irp->current_location > irp->stack_count ||
	    irp->current_stack_location->major_function != IRP_MJ_POWER)
		ntos_log((unsigned long)__builtin_return_address(0),
			 "PoStartNextPowerIrp: not a power IRP");
}
WIN_FUNC(PoStartNextPowerIrp);

/* The state before, the new one kept in the device object's extension. */
static WIN_ABI u32 PoSetPowerState(struct win_device_object *dev, u32 type,
				   u32 state)
{
	struct win_devobj_extension *ext = dev->device_object_extension;
	u32 old;

	if (!ext || ext->type != WIN_IO_TYPE_DEVICE_OBJECT_EXTENSION) {
		ntos_log((unsigned long)__builtin_return_address(0),
			 "PoSetPowerState: a device object the wrapper did not make: not recorded");
		return state;
	}
	if (type == WIN_SYSTEM_POWER_STATE) {
		old = ext->system_power_state;
		ext->system_power_state = state;
	} else if (type == WIN_DEVICE_POWER_STATE) {
		old = ext->device_power_state;
		ext->device_power_state = state;
	} else {
		return 0;
	}
	return old;
}
WIN_FUNC(PoSetPowerState);

/*
 * PoRequestPowerIrp: the IRP has one location more than the top of
 * dev's stack needs; the power manager's (the top one) holds the
 * driver's callback, called with dev, the request and the final status
 * once the stack completes the IRP, which is then freed.
 */
static WIN_ABI s32 po_request_complete(struct win_device_object *dev,
				       struct win_irp *irp, void *context)
{
	struct win_io_stack_location *ours = irp->current_stack_location;
	void *callback = ours->parameters.others.argument1;

	if (callback)
		win_callv(callback, 5,
			  (u64 [5]){ WARG(ours->device_object),
				     ours->minor_function,
				     (u32)(unsigned long)
				     ours->parameters.others.argument3,
				     WARG(ours->parameters.others.argument2),
				     WARG(&irp->io_status) });
	ntos_free(irp);
	return STATUS_MORE_PROCESSING_REQUIRED;
}

static WIN_ABI s32 PoRequestPowerIrp(struct win_device_object *dev, u8 minor,
				     u32 state, void *callback, void *context,
				     struct win_irp **irp_out)
{
	unsigned long caller = (unsigned long)__builtin_return_address(0);
	struct win_io_stack_location *ours, *next;
	struct win_device_object *top = dev;
	struct win_irp *irp;
	size_t size;
	s8 count;

	if (minor > IRP_MN_QUERY_POWER)
		return STATUS_INVALID_PARAMETER_2;
	while (top->attached_device)
		top = top->attached_device;
	count = top->stack_size + 1;
	size = sizeof(*irp) + count * sizeof(irp->stack[0]);
	irp = ntos_alloc(caller, size);
	if (!irp)
		return STATUS_INSUFFICIENT_RESOURCES;
	ntos_init_irp(irp, size, count);

	/* the power manager's own location */
	irp->current_location--;
	irp->current_stack_location--;
	ours = irp->current_stack_location;
	ours->major_function = IRP_MJ_POWER;
	ours->minor_function = minor;
	ours->device_object = dev;
	ours->parameters.others.argument1 = callback;
	ours->parameters.others.argument2 = context;
	ours->parameters.others.argument3 = (void *)(unsigned long)state;

	/* the top driver's */
	next = ours - 1;
	next->major_function = IRP_MJ_POWER;
	next->minor_function = minor;
	if (minor == IRP_MN_WAIT_WAKE) {
		next->parameters.power.system_context = state;
	} else {
		next->parameters.power.type = WIN_DEVICE_POWER_STATE;
		next->parameters.power.state = state;
	}
	next->completion_routine = po_request_complete;
	next->control = SL_INVOKE_ON_SUCCESS | SL_INVOKE_ON_ERROR |
			SL_INVOKE_ON_CANCEL;
	irp->io_status.status = STATUS_NOT_SUPPORTED;
	if (irp_out)
		*irp_out = irp;
	ntos_call_driver(top, irp);
	return STATUS_PENDING;
}
WIN_FUNC(PoRequestPowerIrp);
