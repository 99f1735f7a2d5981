// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: USB binding, and the bus driver under an NDIS-WDM miniport:
 * the IRPs it sends to its NextDeviceObject (IofCallDriver, ntoskrnl.c)
 * come here, and their URBs become Linux URBs.
 *
 * Binding: the installed ids are only known at run time (loader.c), so the
 * driver matches every interface and its probe takes only the first
 * interface of a device the helper listed, as pci.c does for PCI.
 *
 * A request IRP (IOCTL_INTERNAL_USB_SUBMIT_URB) is either finished at once
 * (select configuration, abort pipe, anything refused) and completed
 * before IofCallDriver returns, or becomes a struct ndis_urb_req holding
 * a Linux URB over a bounce buffer (the driver's buffer may be on its
 * stack, which is not DMA-able), submitted with GFP_ATOMIC (Windows code
 * runs with preemption off) and answered STATUS_PENDING. The Linux
 * completion runs in interrupt or BH context, where Windows code must not
 * run: it only moves the request to its device's done list and queues the
 * device's completion work on ndis_irp_wq. That work copies the data
 * back, sets the URB and IRP status and completes the IRP with
 * IofCompleteRequest's semantics at DISPATCH_LEVEL; the driver's
 * completion routine may submit again from there. Resetting a pipe sleeps
 * (usb_clear_halt) and runs as a work item on the same queue.
 *
 * Cancellation: IoCancelIrp unlinks the URB (usb_unlink_urb, async); it
 * completes with -ECONNRESET and the IRP with STATUS_CANCELLED. Abort
 * pipe unlinks every URB of the pipe the same way.
 *
 * Surprise removal (disconnect with the device gone): the device is marked
 * gone, so every new request fails at once with STATUS_DEVICE_NOT_CONNECTED
 * / USBD_STATUS_DEVICE_GONE; the URBs in flight are poisoned (killed, and
 * refused should a submission race with us) and their IRPs complete with
 * the same status; then adapter.c tells the miniport
 * (MiniportPnPEventNotify), unregisters the net device and halts it, which
 * cancels and frees what the driver still holds. After MiniportHalt
 * (ndis_usb_stop_io) nothing left in flight is completed any more: the
 * driver has freed its IRPs and URBs, so they are not touched.
 * A plain unbind (rmmod) halts the miniport with the device still there.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/slab.h>
#include <linux/usb.h>
#include <linux/wait.h>

#include "ndis.h"
#include "usb_ctrl.h"
#include "usbd.h"
#include "wincall.h"

#define NDIS_USB_MAX_PIPES	32
#define NDIS_USB_MAX_TRANSFER	(1u << 20)
/*
 * Synchronous failures complete inside IofCallDriver; a completion routine
 * that submits again from there nests one Windows call deeper each time.
 * Past this depth a failed request completes from the queue instead.
 */
#define NDIS_USB_MAX_DEPTH	4

#define USBD_PORT_ENABLED	0x00000001
#define USBD_PORT_CONNECTED	0x00000002

struct ndis_usb_pipe {
	struct usb_endpoint_descriptor *desc;
	unsigned int pipe;		/* Linux pipe */
	int type;			/* USBD_PIPE_* */
};

struct ndis_usb {
	struct ndis_adapter *ad;
	struct usb_device *udev;
	struct usb_interface *intf;
	bool gone;			/* refuse requests (ndis_usb_lock) */
	bool halted;			/* complete nothing any more */
	unsigned int in_flight;		/* requests not yet completed */
	wait_queue_head_t idle;		/* in_flight reached 0 */
	struct list_head done;		/* ndis_urb_req.done_entry */
	struct work_struct complete_work;
	unsigned int num_pipes;
	struct ndis_usb_pipe pipes[NDIS_USB_MAX_PIPES];
};

/*
 * One Windows URB in flight: on ndis_pending from the submission until it
 * is given back to the driver, and on its device's done list in between.
 */
struct ndis_urb_req {
	struct list_head list;		/* ndis_pending */
	struct list_head done_entry;	/* usb->done */
	struct ndis_usb *usb;
	struct win_irp *irp;
	union win_urb *wurb;
	struct urb *urb;		/* NULL: status already known */
	struct ndis_usb_pipe *pipe;	/* bulk/interrupt, reset pipe */
	void *win_buf;			/* the driver's buffer */
	u32 len;
	bool in;
	bool unlinked;			/* cancelled or aborted once */
	bool poisoned;
	int err;			/* without a URB: the outcome */
	struct work_struct slow;	/* reset pipe */
	struct usb_ctrlrequest setup;
};

/*
 * Protects the lists, every request's list linkage and flags, and each
 * device's gone/halted/in_flight. Taken from URB completions (irq or BH)
 * and from Windows code.
 */
static DEFINE_SPINLOCK(ndis_usb_lock);
static LIST_HEAD(ndis_pending);		/* in flight, of all devices */

/* -- completion ----------------------------------------------------------- */

static void ndis_usb_status(struct ndis_usb *usb, int err, s32 *nt,
			    s32 *usbd)
{
	if (!err) {
		*nt = STATUS_SUCCESS;
		*usbd = USBD_STATUS_SUCCESS;
	} else if (READ_ONCE(usb->gone) || err == -ENODEV ||
		   err == -ESHUTDOWN ||
		   usb->udev->state == USB_STATE_NOTATTACHED) {
		*nt = STATUS_DEVICE_NOT_CONNECTED;
		*usbd = USBD_STATUS_DEVICE_GONE;
	} else if (err == -ECONNRESET || err == -ENOENT) {
		*nt = STATUS_CANCELLED;
		*usbd = USBD_STATUS_CANCELED;
	} else if (err == -EPIPE) {
		*nt = STATUS_UNSUCCESSFUL;
		*usbd = USBD_STATUS_STALL_PID;
	} else if (err == -EREMOTEIO) {
		*nt = STATUS_UNSUCCESSFUL;
		*usbd = USBD_STATUS_ERROR_SHORT_TRANSFER;
	} else if (err == -EOVERFLOW) {
		*nt = STATUS_UNSUCCESSFUL;
		*usbd = USBD_STATUS_BABBLE_DETECTED;
	} else if (err == -ENOMEM) {
		*nt = STATUS_INSUFFICIENT_RESOURCES;
		*usbd = USBD_STATUS_INSUFFICIENT_RESOURCES;
	} else if (err == -EINVAL) {
		*nt = STATUS_INVALID_PARAMETER;
		*usbd = USBD_STATUS_INVALID_PARAMETER;
	} else {			/* -EPROTO, -EILSEQ, -ETIME, ... */
		*nt = STATUS_UNSUCCESSFUL;
		*usbd = USBD_STATUS_DEV_NOT_RESPONDING;
	}
}

/* Completes an IRP the wrapper did not take (still in IofCallDriver). */
static s32 ndis_usb_finish(struct win_irp *irp, union win_urb *wurb, s32 nt,
			   s32 usbd)
{
	if (wurb)
		wurb->hdr.status = usbd;
	irp->io_status.status = nt;
	irp->io_status.information = 0;
	ndis_complete_irp(irp, WIN_PASSIVE_LEVEL);
	return nt;
}

static void ndis_free_req(struct ndis_urb_req *req)
{
	if (req->urb) {
		kfree(req->urb->transfer_buffer);
		usb_free_urb(req->urb);
	}
	kfree(req);
}

/* ndis_irp_wq: one completed request back to the Windows driver. */
static void ndis_usb_give_back(struct ndis_usb *usb, struct ndis_urb_req *req)
{
	struct win_irp *irp = req->irp;
	union win_urb *wurb = req->wurb;
	struct urb *urb = req->urb;
	int err = urb ? urb->status : req->err;
	u32 actual = urb ? urb->actual_length : 0;
	s32 nt, usbd;

	if (READ_ONCE(usb->halted)) {	/* the driver freed irp and wurb */
		ndis_free_req(req);
		return;
	}
	ndis_usb_status(usb, err, &nt, &usbd);
	if (urb && req->len) {
		actual = min(actual, req->len);
		if (req->in && (!err || err == -EREMOTEIO))
			memcpy(req->win_buf, urb->transfer_buffer, actual);
		else if (!req->in && !err)
			actual = req->len;
		wurb->transfer.transfer_buffer_length = actual;
	} else if (urb) {
		wurb->transfer.transfer_buffer_length = 0;
	}
	ndis_free_req(req);
	wurb->hdr.status = usbd;
	irp->io_status.status = nt;
	irp->io_status.information = 0;
	ndis_complete_irp(irp, WIN_DISPATCH_LEVEL);
}

static void ndis_usb_complete_work(struct work_struct *work)
{
	struct ndis_usb *usb = container_of(work, struct ndis_usb,
					    complete_work);
	struct ndis_urb_req *req;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ndis_usb_lock, flags);
		req = list_first_entry_or_null(&usb->done, struct ndis_urb_req,
					       done_entry);
		if (req) {
			list_del_init(&req->done_entry);
			list_del_init(&req->list);
		}
		spin_unlock_irqrestore(&ndis_usb_lock, flags);
		if (!req)
			break;

		ndis_usb_give_back(usb, req);

		spin_lock_irqsave(&ndis_usb_lock, flags);
		usb->in_flight--;
		spin_unlock_irqrestore(&ndis_usb_lock, flags);
		wake_up_all(&usb->idle);
	}
}

/* Interrupt or BH context: no Windows code here. */
static void ndis_usb_urb_done(struct urb *urb)
{
	struct ndis_urb_req *req = urb->context;
	struct ndis_usb *usb = req->usb;
	unsigned long flags;

	spin_lock_irqsave(&ndis_usb_lock, flags);
	list_add_tail(&req->done_entry, &usb->done);
	spin_unlock_irqrestore(&ndis_usb_lock, flags);
	queue_work(ndis_irp_wq, &usb->complete_work);
}

/* A request with its outcome known, completed later from the queue. */
static void ndis_usb_defer(struct ndis_usb *usb, struct ndis_urb_req *req,
			   int err)
{
	unsigned long flags;

	req->err = err;
	spin_lock_irqsave(&ndis_usb_lock, flags);
	usb->in_flight++;
	list_add_tail(&req->list, &ndis_pending);
	list_add_tail(&req->done_entry, &usb->done);
	spin_unlock_irqrestore(&ndis_usb_lock, flags);
	queue_work(ndis_irp_wq, &usb->complete_work);
}

/* -- requests ------------------------------------------------------------- */

static struct ndis_usb_pipe *ndis_usb_pipe_of(struct ndis_usb *usb,
					      void *handle)
{
	uintptr_t off = (uintptr_t)handle - (uintptr_t)usb->pipes;

	if (off >= usb->num_pipes * sizeof(usb->pipes[0]) ||
	    off % sizeof(usb->pipes[0]))
		return NULL;
	return handle;
}

static void *ndis_urb_buffer(struct urb_transfer *t)
{
	struct win_mdl *mdl = t->transfer_buffer_mdl;

	if (t->transfer_buffer || !mdl)
		return t->transfer_buffer;
	if (mdl->flags & (MDL_MAPPED_TO_SYSTEM_VA |
			  MDL_SOURCE_IS_NONPAGED_POOL))
		return mdl->mapped_va;
	return (u8 *)mdl->start_va + mdl->byte_offset;
}

static struct ndis_urb_req *ndis_new_req(struct ndis_usb *usb,
					 struct win_irp *irp,
					 union win_urb *wurb)
{
	struct ndis_urb_req *req = kzalloc(sizeof(*req), GFP_ATOMIC);

	if (!req)
		return NULL;
	INIT_LIST_HEAD(&req->list);
	INIT_LIST_HEAD(&req->done_entry);
	req->usb = usb;
	req->irp = irp;
	req->wurb = wurb;
	return req;
}

/*
 * Takes a prepared request in flight: marks the IRP pending and submits
 * its URB, or completes the IRP at once when that is refused.
 */
static s32 ndis_usb_submit_req(struct ndis_usb *usb, struct ndis_urb_req *req)
{
	struct win_irp *irp = req->irp;
	union win_urb *wurb = req->wurb;
	unsigned long flags;
	s32 nt, usbd;
	int err;

	irp->current_stack_location->control |= SL_PENDING_RETURNED;
	spin_lock_irqsave(&ndis_usb_lock, flags);
	if (usb->gone || READ_ONCE(irp->cancel)) {
		err = usb->gone ? -ENODEV : -ECONNRESET;
		spin_unlock_irqrestore(&ndis_usb_lock, flags);
		goto err_finish;
	}
	list_add_tail(&req->list, &ndis_pending);
	usb->in_flight++;
	spin_unlock_irqrestore(&ndis_usb_lock, flags);

	err = usb_submit_urb(req->urb, GFP_ATOMIC);
	if (!err)
		return STATUS_PENDING;	/* req may be gone already */

	spin_lock_irqsave(&ndis_usb_lock, flags);
	list_del_init(&req->list);
	usb->in_flight--;
	spin_unlock_irqrestore(&ndis_usb_lock, flags);
	wake_up_all(&usb->idle);
err_finish:
	irp->current_stack_location->control &= ~SL_PENDING_RETURNED;
	ndis_free_req(req);
	ndis_usb_status(usb, err, &nt, &usbd);
	return ndis_usb_finish(irp, wurb, nt, usbd);
}

/* The bounce buffer and URB of a transfer; false: out of memory. */
static bool ndis_req_urb(struct ndis_urb_req *req, void *win_buf, u32 len,
			 bool in)
{
	void *buf = NULL;

	req->urb = usb_alloc_urb(0, GFP_ATOMIC);
	if (!req->urb)
		return false;
	if (len) {
		buf = kmalloc(len, GFP_ATOMIC);
		if (!buf)
			return false;
		if (!in)
			memcpy(buf, win_buf, len);
	}
	req->urb->transfer_buffer = buf;
	req->win_buf = win_buf;
	req->len = len;
	req->in = in;
	return true;
}

static s32 ndis_usb_transfer(struct ndis_usb *usb, struct win_irp *irp,
			     union win_urb *wurb)
{
	struct urb_transfer *t = &wurb->transfer;
	struct usb_device *udev = usb->udev;
	struct ndis_usb_pipe *pipe = ndis_usb_pipe_of(usb, t->handle);
	u32 len = t->transfer_buffer_length;
	void *win_buf = ndis_urb_buffer(t);
	struct ndis_urb_req *req;
	bool in;

	if (!pipe || (pipe->type != USBD_PIPE_BULK &&
		      pipe->type != USBD_PIPE_INTERRUPT) ||
	    len > NDIS_USB_MAX_TRANSFER || (len && !win_buf))
		return ndis_usb_finish(irp, wurb, STATUS_INVALID_PARAMETER,
				       USBD_STATUS_INVALID_PARAMETER);
	in = usb_pipein(pipe->pipe);
	req = ndis_new_req(usb, irp, wurb);
	if (!req || !ndis_req_urb(req, win_buf, len, in)) {
		if (req)
			ndis_free_req(req);
		return ndis_usb_finish(irp, wurb,
				       STATUS_INSUFFICIENT_RESOURCES,
				       USBD_STATUS_INSUFFICIENT_RESOURCES);
	}
	req->pipe = pipe;
	if (pipe->type == USBD_PIPE_BULK)
		usb_fill_bulk_urb(req->urb, udev, pipe->pipe,
				  req->urb->transfer_buffer, len,
				  ndis_usb_urb_done, req);
	else
		usb_fill_int_urb(req->urb, udev, pipe->pipe,
				 req->urb->transfer_buffer, len,
				 ndis_usb_urb_done, req,
				 pipe->desc->bInterval);
	if (in && !(t->transfer_flags & USBD_SHORT_TRANSFER_OK))
		req->urb->transfer_flags |= URB_SHORT_NOT_OK;
	return ndis_usb_submit_req(usb, req);
}

/* Descriptor, vendor and class requests on the default control pipe. */
static s32 ndis_usb_control(struct ndis_usb *usb, struct win_irp *irp,
			    union win_urb *wurb, u8 type, u8 request,
			    u16 value, u16 index, bool in)
{
	struct urb_transfer *t = &wurb->transfer;
	struct usb_device *udev = usb->udev;
	u32 len = t->transfer_buffer_length;
	void *win_buf = ndis_urb_buffer(t);
	struct ndis_urb_req *req;

	if (len > U16_MAX || (len && !win_buf))
		return ndis_usb_finish(irp, wurb, STATUS_INVALID_PARAMETER,
				       USBD_STATUS_INVALID_PARAMETER);
	req = ndis_new_req(usb, irp, wurb);
	if (!req || !ndis_req_urb(req, win_buf, len, in)) {
		if (req)
			ndis_free_req(req);
		return ndis_usb_finish(irp, wurb,
				       STATUS_INSUFFICIENT_RESOURCES,
				       USBD_STATUS_INSUFFICIENT_RESOURCES);
	}
	req->setup.bRequestType = type | (in ? USB_DIR_IN : USB_DIR_OUT);
	req->setup.bRequest = request;
	req->setup.wValue = cpu_to_le16(value);
	req->setup.wIndex = cpu_to_le16(index);
	req->setup.wLength = cpu_to_le16(len);
	usb_fill_control_urb(req->urb, udev,
			     ndis_usb_ctrl_pipe_in(req->setup.bRequestType,
						   len) ?
				     usb_rcvctrlpipe(udev, 0) :
				     usb_sndctrlpipe(udev, 0),
			     (u8 *)&req->setup, req->urb->transfer_buffer,
			     len, ndis_usb_urb_done, req);
	return ndis_usb_submit_req(usb, req);
}

static s32 ndis_usb_vendor(struct ndis_usb *usb, struct win_irp *irp,
			   union win_urb *wurb)
{
	struct urb_control_vendor_or_class_request *v = &wurb->vendor;
	u8 type = ndis_usb_vendor_type(wurb->hdr.function,
				       v->request_type_reserved_bits);

	return ndis_usb_control(usb, irp, wurb, type, v->request, v->value,
				v->index, v->t.transfer_flags &
					  USBD_TRANSFER_DIRECTION_IN);
}

/*
 * The interface is configured already (the USB core did it before the
 * probe): selecting the active configuration only hands out the handles of
 * the pipes of the current alternate setting. Another configuration or
 * alternate setting is refused.
 */
static s32 ndis_usb_select_config(struct ndis_usb *usb,
				  union win_urb *wurb, s32 *usbd)
{
	struct urb_select_configuration *sc = &wurb->select;
	struct usb_host_interface *alt = usb->intf->cur_altsetting;
	struct usb_config_descriptor *cd = sc->configuration_descriptor;
	struct ndis_usbcfg_pipe pipes[NDIS_USB_MAX_PIPES];
	struct ndis_usbcfg_dev dev = {
		.config_value = usb->udev->actconfig->desc.bConfigurationValue,
		.interface_number = alt->desc.bInterfaceNumber,
		.alternate_setting = alt->desc.bAlternateSetting,
		.class = alt->desc.bInterfaceClass,
		.subclass = alt->desc.bInterfaceSubClass,
		.protocol = alt->desc.bInterfaceProtocol,
		.num_pipes = usb->num_pipes,
		.pipes = pipes,
		.handle = usb->intf,
	};
	unsigned int i;

	*usbd = USBD_STATUS_INVALID_PARAMETER;
	if (!cd) {			/* unconfigure: nothing to do */
		*usbd = USBD_STATUS_SUCCESS;
		return STATUS_SUCCESS;
	}
	if (sc->hdr.length < sizeof(*sc))
		return STATUS_INVALID_PARAMETER;
	for (i = 0; i < usb->num_pipes; i++) {
		struct ndis_usb_pipe *pipe = &usb->pipes[i];

		pipes[i].max_packet = usb_endpoint_maxp(pipe->desc);
		pipes[i].address = pipe->desc->bEndpointAddress;
		pipes[i].interval = pipe->desc->bInterval;
		pipes[i].type = pipe->type;
		pipes[i].handle = pipe;
	}
	if (ndis_usbcfg_select(sc->interface, sc->hdr.length - sizeof(*sc),
			       cd->bConfigurationValue, &dev))
		return STATUS_INVALID_PARAMETER;
	sc->configuration_handle = usb;
	*usbd = USBD_STATUS_SUCCESS;
	return STATUS_SUCCESS;
}

/* Unlinks every URB of a pipe (NULL: of the device); atomic context. */
static void ndis_usb_unlink_pipe(struct ndis_usb *usb,
				 struct ndis_usb_pipe *pipe)
{
	struct ndis_urb_req *req;
	struct urb *urb;
	unsigned long flags;

	for (;;) {
		urb = NULL;
		spin_lock_irqsave(&ndis_usb_lock, flags);
		list_for_each_entry(req, &ndis_pending, list) {
			if (req->usb != usb || !req->urb || req->unlinked ||
			    (pipe && req->pipe != pipe))
				continue;
			req->unlinked = true;
			urb = usb_get_urb(req->urb);
			break;
		}
		spin_unlock_irqrestore(&ndis_usb_lock, flags);
		if (!urb)
			return;
		usb_unlink_urb(urb);
		usb_put_urb(urb);
	}
}

/* Process context: usb_clear_halt() sleeps. */
static void ndis_usb_reset_work(struct work_struct *work)
{
	struct ndis_urb_req *req = container_of(work, struct ndis_urb_req,
						slow);
	struct ndis_usb *usb = req->usb;
	unsigned long flags;

	req->err = usb->gone ? -ENODEV :
		   usb_clear_halt(usb->udev, req->pipe->pipe);
	spin_lock_irqsave(&ndis_usb_lock, flags);
	list_add_tail(&req->done_entry, &usb->done);
	spin_unlock_irqrestore(&ndis_usb_lock, flags);
	queue_work(ndis_irp_wq, &usb->complete_work);
}

static s32 ndis_usb_reset_pipe(struct ndis_usb *usb, struct win_irp *irp,
			       union win_urb *wurb)
{
	struct ndis_usb_pipe *pipe = ndis_usb_pipe_of(usb,
						      wurb->pipe.pipe_handle);
	struct ndis_urb_req *req;
	unsigned long flags;

	if (!pipe)
		return ndis_usb_finish(irp, wurb, STATUS_INVALID_PARAMETER,
				       USBD_STATUS_INVALID_PARAMETER);
	req = ndis_new_req(usb, irp, wurb);
	if (!req)
		return ndis_usb_finish(irp, wurb,
				       STATUS_INSUFFICIENT_RESOURCES,
				       USBD_STATUS_INSUFFICIENT_RESOURCES);
	req->pipe = pipe;
	INIT_WORK(&req->slow, ndis_usb_reset_work);
	irp->current_stack_location->control |= SL_PENDING_RETURNED;
	spin_lock_irqsave(&ndis_usb_lock, flags);
	if (usb->gone) {
		spin_unlock_irqrestore(&ndis_usb_lock, flags);
		irp->current_stack_location->control &= ~SL_PENDING_RETURNED;
		kfree(req);
		return ndis_usb_finish(irp, wurb, STATUS_DEVICE_NOT_CONNECTED,
				       USBD_STATUS_DEVICE_GONE);
	}
	list_add_tail(&req->list, &ndis_pending);
	usb->in_flight++;
	spin_unlock_irqrestore(&ndis_usb_lock, flags);
	queue_work(ndis_irp_wq, &req->slow);
	return STATUS_PENDING;
}

static s32 ndis_usb_submit_urb(struct ndis_usb *usb, struct win_irp *irp,
			       union win_urb *wurb)
{
	struct ndis_usb_pipe *pipe;
	s32 nt, usbd;

	if (!wurb)
		return ndis_usb_finish(irp, NULL, STATUS_INVALID_PARAMETER, 0);
	if (READ_ONCE(usb->gone)) {
		struct ndis_urb_req *req;

		/* A driver resubmitting from its completion routine. */
		if (this_cpu_read(win_depth) < NDIS_USB_MAX_DEPTH)
			return ndis_usb_finish(irp, wurb,
					       STATUS_DEVICE_NOT_CONNECTED,
					       USBD_STATUS_DEVICE_GONE);
		req = ndis_new_req(usb, irp, wurb);
		if (!req)
			return ndis_usb_finish(irp, wurb,
					       STATUS_DEVICE_NOT_CONNECTED,
					       USBD_STATUS_DEVICE_GONE);
		irp->current_stack_location->control |= SL_PENDING_RETURNED;
		ndis_usb_defer(usb, req, -ENODEV);
		return STATUS_PENDING;
	}
	switch (wurb->hdr.function) {
	case URB_FUNCTION_SELECT_CONFIGURATION:
		nt = ndis_usb_select_config(usb, wurb, &usbd);
		return ndis_usb_finish(irp, wurb, nt, usbd);
	case URB_FUNCTION_BULK_OR_INTERRUPT_TRANSFER:
		return ndis_usb_transfer(usb, irp, wurb);
	case URB_FUNCTION_GET_DESCRIPTOR_FROM_DEVICE:
		return ndis_usb_control(usb, irp, wurb, USB_RECIP_DEVICE,
					USB_REQ_GET_DESCRIPTOR,
					wurb->descriptor.descriptor_type << 8 |
					wurb->descriptor.index,
					wurb->descriptor.language_id, true);
	case URB_FUNCTION_VENDOR_DEVICE:
	case URB_FUNCTION_VENDOR_INTERFACE:
	case URB_FUNCTION_VENDOR_ENDPOINT:
	case URB_FUNCTION_VENDOR_OTHER:
	case URB_FUNCTION_CLASS_DEVICE:
	case URB_FUNCTION_CLASS_INTERFACE:
	case URB_FUNCTION_CLASS_ENDPOINT:
	case URB_FUNCTION_CLASS_OTHER:
		return ndis_usb_vendor(usb, irp, wurb);
	case URB_FUNCTION_ABORT_PIPE:
		pipe = ndis_usb_pipe_of(usb, wurb->pipe.pipe_handle);
		if (!pipe)
			return ndis_usb_finish(irp, wurb,
					       STATUS_INVALID_PARAMETER,
					       USBD_STATUS_INVALID_PARAMETER);
		ndis_usb_unlink_pipe(usb, pipe);
		return ndis_usb_finish(irp, wurb, STATUS_SUCCESS,
				       USBD_STATUS_SUCCESS);
	case URB_FUNCTION_SYNC_RESET_PIPE_AND_CLEAR_STALL:
		return ndis_usb_reset_pipe(usb, irp, wurb);
	default:
		pr_err_ratelimited("%s: URB function %#x not supported\n",
				   usb->ad->driver->name, wurb->hdr.function);
		return ndis_usb_finish(irp, wurb, STATUS_NOT_SUPPORTED,
				       USBD_STATUS_INVALID_URB_FUNCTION);
	}
}

/* IofCallDriver to a USB adapter's device objects (ntoskrnl.c). */
s32 ndis_usb_dispatch(struct ndis_adapter *ad, struct win_irp *irp)
{
	struct win_io_stack_location *sl = irp->current_stack_location;
	struct ndis_usb *usb = ad->usb;
	u32 *port_status;

	if (sl->major_function != IRP_MJ_INTERNAL_DEVICE_CONTROL)
		return ndis_usb_finish(irp, NULL, STATUS_NOT_SUPPORTED, 0);
	switch (sl->parameters.device_io_control.io_control_code) {
	case IOCTL_INTERNAL_USB_SUBMIT_URB:
		return ndis_usb_submit_urb(usb, irp,
					   sl->parameters.others.argument1);
	case IOCTL_INTERNAL_USB_GET_PORT_STATUS:
		port_status = sl->parameters.others.argument1;
		if (port_status)
			*port_status = READ_ONCE(usb->gone) ? 0 :
				       USBD_PORT_ENABLED | USBD_PORT_CONNECTED;
		return ndis_usb_finish(irp, NULL, STATUS_SUCCESS, 0);
	case IOCTL_INTERNAL_USB_RESET_PORT:
		return ndis_usb_finish(irp, NULL, READ_ONCE(usb->gone) ?
				       STATUS_DEVICE_NOT_CONNECTED :
				       STATUS_SUCCESS, 0);
	default:
		return ndis_usb_finish(irp, NULL, STATUS_NOT_SUPPORTED, 0);
	}
}

/* IoCancelIrp on an IRP the wrapper may hold. */
bool ndis_usb_cancel(struct win_irp *irp)
{
	struct ndis_urb_req *req;
	struct urb *urb = NULL;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&ndis_usb_lock, flags);
	list_for_each_entry(req, &ndis_pending, list) {
		if (req->irp != irp)
			continue;
		found = true;
		if (req->urb && !req->unlinked) {
			req->unlinked = true;
			urb = usb_get_urb(req->urb);
		}
		break;
	}
	spin_unlock_irqrestore(&ndis_usb_lock, flags);
	if (urb) {
		usb_unlink_urb(urb);
		usb_put_urb(urb);
	}
	return found;
}

/* IoFreeIrp: is the IRP in flight, or completed but not given back yet? */
bool ndis_usb_irp_busy(struct win_irp *irp)
{
	struct ndis_urb_req *req;
	unsigned long flags;
	bool busy = false;

	spin_lock_irqsave(&ndis_usb_lock, flags);
	list_for_each_entry(req, &ndis_pending, list) {
		if (req->irp == irp) {
			busy = true;
			break;
		}
	}
	spin_unlock_irqrestore(&ndis_usb_lock, flags);
	return busy;
}

/*
 * Process context: kills every URB of the device and waits until all its
 * requests went through the completion work. Poisoning also refuses a
 * submission that races with this (the URB is the request's own).
 */
static void ndis_usb_kill_all(struct ndis_usb *usb)
{
	struct ndis_urb_req *req;
	struct urb *urb;

	for (;;) {
		urb = NULL;
		spin_lock_irq(&ndis_usb_lock);
		list_for_each_entry(req, &ndis_pending, list) {
			if (req->usb != usb || !req->urb || req->poisoned)
				continue;
			req->poisoned = true;
			urb = usb_get_urb(req->urb);
			break;
		}
		spin_unlock_irq(&ndis_usb_lock);
		if (!urb)
			break;
		usb_poison_urb(urb);
		usb_put_urb(urb);
	}
	wait_event(usb->idle, !READ_ONCE(usb->in_flight));
	flush_work(&usb->complete_work);
}

/* After MiniportHalt (or a failed MiniportInitialize), adapter.c. */
void ndis_usb_stop_io(struct ndis_adapter *ad)
{
	struct ndis_usb *usb = ad->usb;

	spin_lock_irq(&ndis_usb_lock);
	usb->gone = true;
	WRITE_ONCE(usb->halted, true);
	spin_unlock_irq(&ndis_usb_lock);
	if (usb->in_flight)
		pr_info("%s: %u USB requests still in flight after halt\n",
			ad->driver->name, usb->in_flight);
	ndis_usb_kill_all(usb);
}

/* -- binding --------------------------------------------------------------- */

/* Every interface: the probe decides (see the top of this file). */
static const struct usb_device_id ndis_usb_ids[] = {
	{ .driver_info = 1 },
	{ }
};

static int ndis_usb_pipe_type(const struct usb_endpoint_descriptor *d)
{
	switch (usb_endpoint_type(d)) {
	case USB_ENDPOINT_XFER_CONTROL:
		return USBD_PIPE_CONTROL;
	case USB_ENDPOINT_XFER_ISOC:
		return USBD_PIPE_ISOCHRONOUS;
	case USB_ENDPOINT_XFER_BULK:
		return USBD_PIPE_BULK;
	default:
		return USBD_PIPE_INTERRUPT;
	}
}

static struct ndis_usb *ndis_usb_new(struct usb_interface *intf)
{
	struct usb_host_interface *alt = intf->cur_altsetting;
	struct usb_device *udev = interface_to_usbdev(intf);
	struct ndis_usb *usb;
	unsigned int i;

	usb = kzalloc(sizeof(*usb), GFP_KERNEL);
	if (!usb)
		return NULL;
	usb->udev = udev;
	usb->intf = intf;
	init_waitqueue_head(&usb->idle);
	INIT_LIST_HEAD(&usb->done);
	INIT_WORK(&usb->complete_work, ndis_usb_complete_work);
	usb->num_pipes = min_t(unsigned int, alt->desc.bNumEndpoints,
			       NDIS_USB_MAX_PIPES);
	for (i = 0; i < usb->num_pipes; i++) {
		struct usb_endpoint_descriptor *d = &alt->endpoint[i].desc;
		struct ndis_usb_pipe *pipe = &usb->pipes[i];
		unsigned int ep = usb_endpoint_num(d);

		pipe->desc = d;
		pipe->type = ndis_usb_pipe_type(d);
		switch (usb_endpoint_type(d)) {
		case USB_ENDPOINT_XFER_BULK:
			pipe->pipe = usb_endpoint_dir_in(d) ?
				     usb_rcvbulkpipe(udev, ep) :
				     usb_sndbulkpipe(udev, ep);
			break;
		case USB_ENDPOINT_XFER_INT:
			pipe->pipe = usb_endpoint_dir_in(d) ?
				     usb_rcvintpipe(udev, ep) :
				     usb_sndintpipe(udev, ep);
			break;
		case USB_ENDPOINT_XFER_ISOC:
			pipe->pipe = usb_endpoint_dir_in(d) ?
				     usb_rcvisocpipe(udev, ep) :
				     usb_sndisocpipe(udev, ep);
			break;
		default:
			pipe->pipe = usb_endpoint_dir_in(d) ?
				     usb_rcvctrlpipe(udev, ep) :
				     usb_sndctrlpipe(udev, ep);
			break;
		}
	}
	return usb;
}

static int ndis_usb_probe(struct usb_interface *intf,
			  const struct usb_device_id *ent)
{
	struct usb_device *udev = interface_to_usbdev(intf);
	struct ndis_device_id id;
	struct ndis_adapter *ad;
	struct ndis_usb *usb;
	int err;

	/* The whole function is the driver's: bind its first interface. */
	if (!udev->actconfig || udev->actconfig->interface[0] != intf)
		return -ENODEV;
	if (!ndis_find_device(NDIS_BUS_USB,
			      le16_to_cpu(udev->descriptor.idVendor),
			      le16_to_cpu(udev->descriptor.idProduct), 0, 0,
			      &id))
		return -ENODEV;

	usb = ndis_usb_new(intf);
	if (!usb)
		return -ENOMEM;
	ad = ndis_adapter_create(&intf->dev, NDIS_BUS_USB, &id);
	if (IS_ERR(ad)) {
		err = PTR_ERR(ad);
		goto err_free_usb;
	}
	ad->intf = intf;
	ad->udev = udev;
	ad->usb = usb;
	usb->ad = ad;
	err = ndis_adapter_start(ad);
	if (err)
		goto err_destroy;
	usb_set_intfdata(intf, ad);
	return 0;

err_destroy:
	ndis_adapter_destroy(ad);
err_free_usb:
	kfree(usb);
	return err;
}

/*
 * Unbind. The USB core marks an unplugged device NOTATTACHED before it
 * unbinds its interfaces: that is a surprise removal; otherwise (rmmod)
 * the device is still there and the stop is orderly.
 */
static void ndis_usb_disconnect(struct usb_interface *intf)
{
	struct ndis_adapter *ad = usb_get_intfdata(intf);
	struct usb_device *udev = interface_to_usbdev(intf);
	struct ndis_usb *usb = ad->usb;
	bool surprise = udev->state == USB_STATE_NOTATTACHED;

	if (surprise) {
		dev_info(&intf->dev, "%s: surprise removal\n",
			 ad->driver->name);
		spin_lock_irq(&ndis_usb_lock);
		usb->gone = true;
		spin_unlock_irq(&ndis_usb_lock);
		ndis_usb_kill_all(usb);
	}
	ndis_adapter_stop(ad, surprise);
	usb_set_intfdata(intf, NULL);
	ndis_adapter_destroy(ad);
	kfree(usb);
}

/*
 * soft_unbind: on an orderly unbind the USB core leaves the URBs alone,
 * so that MiniportHalt can cancel its own IRPs and see them come back
 * STATUS_CANCELLED; on an unplug it kills them before the disconnect.
 */
static struct usb_driver ndis_usb_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= ndis_usb_ids,
	.probe		= ndis_usb_probe,
	.disconnect	= ndis_usb_disconnect,
	.soft_unbind	= 1,
};

int __init ndisbench_usb_init(void)
{
	return usb_register(&ndis_usb_driver);
}

void ndisbench_usb_exit(void)
{
	usb_deregister(&ndis_usb_driver);
}
