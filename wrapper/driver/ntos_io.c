// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's I/O manager and memory manager exports
 * that need no more of the kernel than ntos.h's hooks: IRPs a driver
 * builds for its lower device (IoBuild*Request) and what the I/O manager
 * does when such an IRP completes, MDLs a driver allocates (IoAllocateMdl
 * and the Mm calls over them), device stacks, the error log and WDM's
 * version.
 *
 * Written from the WDK reference. All memory here is the kernel's and
 * resident, so probing and locking pages only records that it was done;
 * there is no user mode, so every buffer is a kernel address.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "ntos.h"
#include "winexport.h"

#define NTOS_PAGE_SHIFT		12
#define NTOS_PAGE_SIZE		(1UL << NTOS_PAGE_SHIFT)

#define IRP_MJ_READ			0x03
#define IRP_MJ_WRITE			0x04
#define IRP_MJ_FLUSH_BUFFERS		0x09
#define IRP_MJ_DEVICE_CONTROL		0x0e
#define IRP_MJ_SHUTDOWN			0x10
#define IRP_MJ_PNP			0x1b

/* IRP.Flags the I/O manager reads back at completion */
#define IRP_BUFFERED_IO			0x00000010
#define IRP_DEALLOCATE_BUFFER		0x00000020
#define IRP_INPUT_OPERATION		0x00000040

/* DEVICE_OBJECT.Flags: how the device takes read and write buffers */
#define DO_BUFFERED_IO			0x00000004
#define DO_DIRECT_IO			0x00000010

#define METHOD_BUFFERED			0
#define METHOD_NEITHER			3

#define MDL_PAGES_LOCKED		0x0002
#define MDL_PARTIAL			0x0010

/*
 * The wrapper's marks, in bits Windows gives these fields for its own
 * bookkeeping (IRP.AllocationFlags, MDL.MdlFlags' allocation bits): an
 * IRP the I/O manager frees when it completes (IoBuildDeviceIoControl-
 * Request's and IoBuildSynchronousFsdRequest's), an MDL IoAllocateMdl
 * made (IoFreeMdl gives NdisAllocateBuffer's back to their pool instead).
 */
#define NTOS_IRP_FREE_AT_COMPLETION	0x80
#define NTOS_MDL_IO_ALLOCATED		0x0008

/* -- IRPs ---------------------------------------------------------------- */

void ntos_init_irp(struct win_irp *irp, u16 size, s8 stack_count)
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

/* An IRP the driver allocated itself, of size bytes with stack_size locations. */
static WIN_ABI void IoInitializeIrp(struct win_irp *irp, u16 size,
				    s8 stack_size)
{
	if (stack_size < 1 ||
	    size < sizeof(*irp) + stack_size * sizeof(irp->stack[0]))
		return;
	ntos_init_irp(irp, size, stack_size);
}
WIN_FUNC(IoInitializeIrp);

static struct win_irp *ntos_new_irp(unsigned long caller, s8 stack_size)
{
	size_t size = sizeof(struct win_irp) +
		      stack_size * sizeof(struct win_io_stack_location);
	struct win_irp *irp;

	if (stack_size < 1)
		return NULL;
	irp = ntos_alloc(caller, size);
	if (irp)
		ntos_init_irp(irp, size, stack_size);
	return irp;
}

/* The location the next driver down gets (IoGetNextIrpStackLocation). */
static struct win_io_stack_location *ntos_next_stack(struct win_irp *irp)
{
	return irp->current_stack_location - 1;
}

/* The I/O manager's buffer for a buffered request, the input copied in. */
static bool ntos_system_buffer(unsigned long caller, struct win_irp *irp,
			       const void *in, u32 in_len, void *out,
			       u32 out_len)
{
	u32 len = max(in_len, out_len);

	if (!len)
		return true;
	irp->associated_irp = ntos_alloc(caller, len);
	if (!irp->associated_irp)
		return false;
	if (in && in_len)
		memcpy(irp->associated_irp, in, in_len);
	irp->flags |= IRP_BUFFERED_IO | IRP_DEALLOCATE_BUFFER;
	if (out && out_len) {
		irp->flags |= IRP_INPUT_OPERATION;
		irp->user_buffer = out;
	}
	return true;
}

static void ntos_free_irp_buffers(struct win_irp *irp)
{
	struct win_mdl *mdl, *next;

	if (irp->flags & IRP_DEALLOCATE_BUFFER) {
		ntos_free(irp->associated_irp);
		irp->associated_irp = NULL;
		irp->flags &= ~IRP_DEALLOCATE_BUFFER;
	}
	for (mdl = irp->mdl_address; mdl; mdl = next) {
		next = mdl->next;
		ntos_free(mdl);
	}
	irp->mdl_address = NULL;
}

static struct win_mdl *ntos_alloc_mdl(unsigned long caller, void *va,
				      u32 length);

/*
 * Device I/O control to dev: the buffers by the code's transfer method.
 * METHOD_BUFFERED copies through a system buffer, IN_DIRECT and
 * OUT_DIRECT (1, 2) copy the input and describe the output by an MDL,
 * METHOD_NEITHER passes both addresses as they are. The I/O manager
 * frees the IRP when it completes, after setting event and iosb.
 */
static WIN_ABI struct win_irp *
IoBuildDeviceIoControlRequest(u32 code, struct win_device_object *dev,
			      void *in, u32 in_len, void *out, u32 out_len,
			      u8 internal, struct win_kevent *event,
			      struct win_io_status_block *iosb)
{
	unsigned long caller = (unsigned long)__builtin_return_address(0);
	struct win_io_stack_location *sl;
	struct win_irp *irp;

	if (!dev)
		return NULL;
	irp = ntos_new_irp(caller, dev->stack_size);
	if (!irp)
		return NULL;
	sl = ntos_next_stack(irp);
	sl->major_function = internal ? IRP_MJ_INTERNAL_DEVICE_CONTROL :
					IRP_MJ_DEVICE_CONTROL;
	sl->parameters.device_io_control.io_control_code = code;
	sl->parameters.device_io_control.input_buffer_length = in_len;
	sl->parameters.device_io_control.output_buffer_length = out_len;
	switch (code & 3) {
	case METHOD_BUFFERED:
		if (!ntos_system_buffer(caller, irp, in, in_len, out, out_len))
			goto fail;
		break;
	case METHOD_NEITHER:
		sl->parameters.device_io_control.type3_input_buffer = in;
		irp->user_buffer = out;
		break;
	default:
		if (!ntos_system_buffer(caller, irp, in, in_len, NULL, 0))
			goto fail;
		if (out && out_len) {
			irp->mdl_address = ntos_alloc_mdl(caller, out, out_len);
			if (!irp->mdl_address)
				goto fail;
		}
		break;
	}
	irp->user_event = event;
	irp->user_iosb = iosb;
	irp->allocation_flags |= NTOS_IRP_FREE_AT_COMPLETION;
	return irp;

fail:
	ntos_free_irp_buffers(irp);
	ntos_free(irp);
	return NULL;
}
WIN_FUNC(IoBuildDeviceIoControlRequest);

static struct win_irp *ntos_build_fsd(unsigned long caller, u32 major,
				      struct win_device_object *dev,
				      void *buf, u32 len, const s64 *offset)
{
	struct win_io_stack_location *sl;
	struct win_irp *irp;

	if (!dev)
		return NULL;
	irp = ntos_new_irp(caller, dev->stack_size);
	if (!irp)
		return NULL;
	sl = ntos_next_stack(irp);
	sl->major_function = major;
	if (major != IRP_MJ_READ && major != IRP_MJ_WRITE)
		return irp;
	sl->parameters.read_write.length = len;
	sl->parameters.read_write.byte_offset = offset ? *offset : 0;
	if (dev->flags & DO_BUFFERED_IO) {
		if (major == IRP_MJ_WRITE) {
			if (!ntos_system_buffer(caller, irp, buf, len, NULL, 0))
				goto fail;
		} else if (!ntos_system_buffer(caller, irp, NULL, 0, buf, len)) {
			goto fail;
		}
	} else if (dev->flags & DO_DIRECT_IO) {
		irp->mdl_address = ntos_alloc_mdl(caller, buf, len);
		if (!irp->mdl_address)
			goto fail;
	} else {
		irp->user_buffer = buf;
	}
	return irp;

fail:
	ntos_free_irp_buffers(irp);
	ntos_free(irp);
	return NULL;
}

/* The caller frees it (IoFreeIrp), typically in its completion routine. */
static WIN_ABI struct win_irp *
IoBuildAsynchronousFsdRequest(u32 major, struct win_device_object *dev,
			      void *buf, u32 len, const s64 *offset,
			      struct win_io_status_block *iosb)
{
	struct win_irp *irp;

	irp = ntos_build_fsd((unsigned long)__builtin_return_address(0),
			     major, dev, buf, len, offset);
	if (irp)
		irp->user_iosb = iosb;
	return irp;
}
WIN_FUNC(IoBuildAsynchronousFsdRequest);

/* The I/O manager frees it at completion, after event and iosb. */
static WIN_ABI struct win_irp *
IoBuildSynchronousFsdRequest(u32 major, struct win_device_object *dev,
			     void *buf, u32 len, const s64 *offset,
			     struct win_kevent *event,
			     struct win_io_status_block *iosb)
{
	struct win_irp *irp;

	irp = ntos_build_fsd((unsigned long)__builtin_return_address(0),
			     major, dev, buf, len, offset);
	if (irp) {
		irp->user_iosb = iosb;
		irp->user_event = event;
		irp->allocation_flags |= NTOS_IRP_FREE_AT_COMPLETION;
	}
	return irp;
}
WIN_FUNC(IoBuildSynchronousFsdRequest);

bool ntos_irp_complete_top(struct win_irp *irp)
{
	bool freed = irp->allocation_flags & NTOS_IRP_FREE_AT_COMPLETION;

	if ((irp->flags & (IRP_BUFFERED_IO | IRP_INPUT_OPERATION)) ==
	    (IRP_BUFFERED_IO | IRP_INPUT_OPERATION) &&
	    NT_SUCCESS(irp->io_status.status) && irp->user_buffer &&
	    irp->associated_irp) {
		struct win_io_stack_location *sl =
			&irp->stack[irp->stack_count - 1];
		unsigned long n = irp->io_status.information;
		u32 room = sl->major_function == IRP_MJ_READ ?
			   sl->parameters.read_write.length :
			   sl->parameters.device_io_control.output_buffer_length;

		memcpy(irp->user_buffer, irp->associated_irp,
		       min_t(unsigned long, n, room));
	}
	if (irp->user_iosb)
		*irp->user_iosb = irp->io_status;
	if (freed) {
		ntos_free_irp_buffers(irp);
		ntos_free(irp);
	}
	return freed;
}

/* -- MDLs ---------------------------------------------------------------- */

static u32 ntos_pages_spanned(const void *va, size_t length)
{
	unsigned long off = (unsigned long)va & (NTOS_PAGE_SIZE - 1);

	return (off + length + NTOS_PAGE_SIZE - 1) >> NTOS_PAGE_SHIFT;
}

static unsigned long *ntos_mdl_pfns(struct win_mdl *mdl)
{
	return (unsigned long *)(mdl + 1);
}

/* The MDL header and its page frame array for length bytes at va. */
static WIN_ABI size_t MmSizeOfMdl(void *va, size_t length)
{
	return sizeof(struct win_mdl) +
	       ntos_pages_spanned(va, length) * sizeof(unsigned long);
}
WIN_FUNC(MmSizeOfMdl);

static void ntos_mdl_describe(struct win_mdl *mdl, void *va, u32 length)
{
	mdl->start_va = (void *)((unsigned long)va & ~(NTOS_PAGE_SIZE - 1));
	mdl->byte_offset = (unsigned long)va & (NTOS_PAGE_SIZE - 1);
	mdl->byte_count = length;
}

static struct win_mdl *ntos_alloc_mdl(unsigned long caller, void *va,
				      u32 length)
{
	size_t size = MmSizeOfMdl(va, length);
	struct win_mdl *mdl;

	if (size > 0x7fff)	/* MDL.Size is a CSHORT */
		return NULL;
	mdl = ntos_alloc(caller, size);
	if (!mdl)
		return NULL;
	mdl->size = size;
	mdl->flags = NTOS_MDL_IO_ALLOCATED;
	ntos_mdl_describe(mdl, va, length);
	return mdl;
}

/* With an IRP: its MDL, or (secondary) the last of its MDL chain. */
static WIN_ABI struct win_mdl *IoAllocateMdl(void *va, u32 length,
					     u8 secondary, u8 charge_quota,
					     struct win_irp *irp)
{
	struct win_mdl *mdl, **link;

	mdl = ntos_alloc_mdl((unsigned long)__builtin_return_address(0), va,
			     length);
	if (!mdl || !irp)
		return mdl;
	if (!secondary) {
		irp->mdl_address = mdl;
		return mdl;
	}
	for (link = &irp->mdl_address; *link; link = &(*link)->next)
		;
	*link = mdl;
	return mdl;
}
WIN_FUNC(IoAllocateMdl);

/* NdisAllocateBuffer's MDLs go back to their pool (ndis.c). */
static WIN_ABI void IoFreeMdl(struct win_mdl *mdl)
{
	if (mdl && (mdl->flags & NTOS_MDL_IO_ALLOCATED))
		ntos_free(mdl);
	else
		ndis_free_mdl(mdl);
}
WIN_FUNC(IoFreeMdl);

static void ntos_fill_pfns(struct win_mdl *mdl)
{
	unsigned long *pfn = ntos_mdl_pfns(mdl);
	u32 i, n = ntos_pages_spanned((u8 *)mdl->start_va + mdl->byte_offset,
				      mdl->byte_count);

	for (i = 0; i < n; i++)
		pfn[i] = ntos_page_pfn((u8 *)mdl->start_va +
				       i * NTOS_PAGE_SIZE);
}

static WIN_ABI void MmBuildMdlForNonPagedPool(struct win_mdl *mdl)
{
	ntos_fill_pfns(mdl);
	mdl->mapped_va = (u8 *)mdl->start_va + mdl->byte_offset;
	mdl->flags |= MDL_SOURCE_IS_NONPAGED_POOL;
}
WIN_FUNC(MmBuildMdlForNonPagedPool);

/* Kernel memory is resident: the frames, and the note that it is locked. */
static WIN_ABI void MmProbeAndLockPages(struct win_mdl *mdl, u8 mode,
					u32 operation)
{
	ntos_fill_pfns(mdl);
	mdl->flags |= MDL_PAGES_LOCKED;
}
WIN_FUNC(MmProbeAndLockPages);

static WIN_ABI void MmUnlockPages(struct win_mdl *mdl)
{
	mdl->flags &= ~(MDL_PAGES_LOCKED | MDL_MAPPED_TO_SYSTEM_VA);
}
WIN_FUNC(MmUnlockPages);

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

/* The older form, which the DDK's MmGetSystemAddressForMdl calls. */
static WIN_ABI void *MmMapLockedPages(struct win_mdl *mdl, u32 mode)
{
	return MmMapLockedPagesSpecifyCache(mdl, mode, 0, NULL, 1, 0);
}
WIN_FUNC(MmMapLockedPages);

/* The mapping MmMapLockedPages* handed out is the memory's own address. */
static WIN_ABI void MmUnmapLockedPages(void *va, struct win_mdl *mdl)
{
	mdl->flags &= ~MDL_MAPPED_TO_SYSTEM_VA;
}
WIN_FUNC(MmUnmapLockedPages);

/*
 * target describes length bytes of source from va (length 0: to the end
 * of source), with source's page frames for them.
 */
static WIN_ABI void IoBuildPartialMdl(struct win_mdl *source,
				      struct win_mdl *target, void *va,
				      u32 length)
{
	u8 *src_va = (u8 *)source->start_va + source->byte_offset;
	unsigned long skip;
	u32 i, n;

	skip = ((unsigned long)va >> NTOS_PAGE_SHIFT) -
	       ((unsigned long)source->start_va >> NTOS_PAGE_SHIFT);
	if (!length)
		length = source->byte_count - ((u8 *)va - src_va);
	ntos_mdl_describe(target, va, length);
	n = ntos_pages_spanned(va, length);
	for (i = 0; i < n; i++)
		ntos_mdl_pfns(target)[i] = ntos_mdl_pfns(source)[skip + i];
	target->flags = (target->flags & NTOS_MDL_IO_ALLOCATED) | MDL_PARTIAL |
			(source->flags & MDL_SOURCE_IS_NONPAGED_POOL);
	if (source->flags & (MDL_MAPPED_TO_SYSTEM_VA |
			     MDL_SOURCE_IS_NONPAGED_POOL)) {
		target->mapped_va = va;
		target->flags |= source->flags & MDL_MAPPED_TO_SYSTEM_VA;
	}
}
WIN_FUNC(IoBuildPartialMdl);

static WIN_ABI u64 MmGetPhysicalAddress(void *va)
{
	return ((u64)ntos_page_pfn(va) << NTOS_PAGE_SHIFT) |
	       ((unsigned long)va & (NTOS_PAGE_SIZE - 1));
}
WIN_FUNC(MmGetPhysicalAddress);

static WIN_ABI u8 MmIsAddressValid(void *va)
{
	return ntos_page_pfn(va) != 0;
}
WIN_FUNC(MmIsAddressValid);

/* Longer than any name ntoskrnl.exe or HAL.dll exports. */
#define NTOS_ROUTINE_NAME_MAX	64

/*
 * A kernel or HAL export by name, NULL when there is none: drivers use it
 * to find a routine a newer Windows has without importing it. Export names
 * are ASCII; anything else cannot name one.
 */
static WIN_ABI void *
MmGetSystemRoutineAddress(const struct win_unicode_string *name)
{
	char ascii[NTOS_ROUTINE_NAME_MAX + 1];
	unsigned int i, n;

	if (!name || !name->buffer || (name->length & 1))
		return NULL;
	n = name->length / 2;
	if (!n || n > NTOS_ROUTINE_NAME_MAX)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!name->buffer[i] || name->buffer[i] > 0x7e)
			return NULL;
		ascii[i] = (char)name->buffer[i];
	}
	ascii[n] = '\0';
	return ntos_system_routine(ascii);
}
WIN_FUNC(MmGetSystemRoutineAddress);

/* -- device stacks ----------------------------------------------------- */

static WIN_ABI struct win_device_object *
IoGetAttachedDevice(struct win_device_object *dev)
{
	while (dev->attached_device)
		dev = dev->attached_device;
	return dev;
}
WIN_FUNC(IoGetAttachedDevice);

/* The top with a reference the caller drops (ObDereferenceObject). */
static WIN_ABI struct win_device_object *
IoGetAttachedDeviceReference(struct win_device_object *dev)
{
	dev = IoGetAttachedDevice(dev);
	__atomic_add_fetch(&dev->reference_count, 1, __ATOMIC_SEQ_CST);
	return dev;
}
WIN_FUNC(IoGetAttachedDeviceReference);

/* source goes on top of target's stack; the device it lands on. */
static WIN_ABI struct win_device_object *
IoAttachDeviceToDeviceStack(struct win_device_object *source,
			    struct win_device_object *target)
{
	struct win_device_object *top = IoGetAttachedDevice(target);

	if (top == source)
		return NULL;
	top->attached_device = source;
	source->stack_size = top->stack_size + 1;
	return top;
}
WIN_FUNC(IoAttachDeviceToDeviceStack);

/* target: the device whatever sits on it detaches from. */
static WIN_ABI void IoDetachDevice(struct win_device_object *target)
{
	target->attached_device = NULL;
}
WIN_FUNC(IoDetachDevice);

/*
 * The WDM version of XP x64 and Server 2003 (1.30), the kernels
 * KUSER_SHARED_DATA says these are.
 */
static WIN_ABI u8 IoIsWdmVersionAvailable(u8 major, u8 minor)
{
	return major < 1 || (major == 1 && minor <= 0x30);
}
WIN_FUNC(IoIsWdmVersionAvailable);

/*
 * The same Windows: XP x64 (5.2.3790) on a 64-bit guest, XP (5.1.2600)
 * on a 32-bit one; a free build (FALSE), no service pack string. Drivers
 * pick code paths by it (pgiri/ndiswrapper users met it as a missing
 * import).
 */
/* 5.2 on amd64 (XP x64 / Server 2003), 5.1 on i386 (XP) */
#define NTOS_MAJOR	5
#define NTOS_MINOR	(sizeof(void *) == 8 ? 2 : 1)

static WIN_ABI u8 PsGetVersion(u32 *major, u32 *minor, u32 *build,
			       struct win_unicode_string *csd)
{
	bool wide = sizeof(void *) == 8;

	if (major)
		*major = NTOS_MAJOR;
	if (minor)
		*minor = NTOS_MINOR;
	if (build)
		*build = wide ? 3790 : 2600;
	if (csd)
		csd->length = 0;
	return 0;
}
WIN_FUNC(PsGetVersion);

/*
 * version is an NTDDI number, 0xMMmmSSss (major, minor, service pack,
 * sub-version): TRUE when it names the running major.minor and no later
 * service pack than the running one, which is none (PsGetVersion's empty
 * CSD string). Another major.minor is FALSE, older or newer.
 */
static WIN_ABI u8 RtlIsServicePackVersionInstalled(u32 version)
{
	u32 running = NTOS_MAJOR << 24 | NTOS_MINOR << 16;

	return (version & 0xffff0000) == running && !(version & 0xffff);
}
WIN_FUNC(RtlIsServicePackVersionInstalled);

/*
 * No WMI consumer exists here: a registration is accepted, and no
 * IRP_MJ_SYSTEM_CONTROL request will ever come of it, as on a system
 * where nobody queries the provider.
 */
static WIN_ABI s32 IoWMIRegistrationControl(struct win_device_object *dev,
					    u32 action)
{
	return dev ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
}
WIN_FUNC(IoWMIRegistrationControl);

/* -- the error log -------------------------------------------------------- */

/* IO_ERROR_LOG_PACKET, DumpData[] after it */
struct win_error_log_packet {
	u8 major_function_code;
	u8 retry_count;
	u16 dump_data_size;
	u16 number_of_strings;
	u16 string_offset;
	u16 event_category;
	s32 error_code;
	u32 unique_error_value;
	s32 final_status;
	u32 sequence_number;
	u32 io_control_code;
	s64 device_offset;
	u32 dump_data[];
};
static_assert(offsetof(struct win_error_log_packet, error_code) == 0x0c);
static_assert(offsetof(struct win_error_log_packet, dump_data) == 0x28);

#define ERROR_LOG_MAXIMUM_SIZE		240

/* The entry's size, kept in front of it for IoWriteErrorLogEntry. */
struct ntos_error_log_entry {
	u32 size;
	u32 pad[3];
	struct win_error_log_packet packet;
};

static struct ntos_error_log_entry *ntos_error_entry(void *packet)
{
	return (struct ntos_error_log_entry *)
	       ((u8 *)packet - offsetof(struct ntos_error_log_entry, packet));
}

/*
 * Zeroed, entry_size bytes from the packet's start; NULL above
 * ERROR_LOG_MAXIMUM_SIZE. The driver fills it and writes or frees it.
 */
static WIN_ABI void *IoAllocateErrorLogEntry(void *io_object, u8 entry_size)
{
	struct ntos_error_log_entry *e;

	if (!io_object || entry_size < sizeof(struct win_error_log_packet) ||
	    entry_size > ERROR_LOG_MAXIMUM_SIZE)
		return NULL;
	e = ntos_alloc((unsigned long)__builtin_return_address(0),
		       offsetof(struct ntos_error_log_entry, packet) +
		       entry_size);
	if (!e)
		return NULL;
	e->size = entry_size;
	return &e->packet;
}
WIN_FUNC(IoAllocateErrorLogEntry);

static WIN_ABI void IoFreeErrorLogEntry(void *entry)
{
	if (entry)
		ntos_free(ntos_error_entry(entry));
}
WIN_FUNC(IoFreeErrorLogEntry);

/*
 * The system's event log is the kernel log here: one line with the
 * codes, the first dump words and the first insertion string (ASCII),
 * each read only where it lies inside the entry.
 */
static WIN_ABI void IoWriteErrorLogEntry(void *entry)
{
	struct ntos_error_log_entry *e = ntos_error_entry(entry);
	struct win_error_log_packet *p = &e->packet;
	char text[160], str[33];
	unsigned int i, n, words;

	words = min_t(unsigned int, p->dump_data_size,
		      e->size - sizeof(*p)) / 4;
	words = min(words, 4U);
	str[0] = '\0';
	if (p->number_of_strings && p->string_offset >= sizeof(*p) &&
	    p->string_offset < e->size) {
		const u16 *s = (const u16 *)((u8 *)p + p->string_offset);
		unsigned int max = (e->size - p->string_offset) / 2;

		for (i = 0; i < max && i < sizeof(str) - 1 && s[i]; i++)
			str[i] = s[i] < 0x80 && s[i] >= ' ' ? s[i] : '?';
		str[i] = '\0';
	}
	n = snprintf(text, sizeof(text),
		     "error log: code %#x, unique value %#x, status %#x",
		     (u32)p->error_code, p->unique_error_value,
		     (u32)p->final_status);
	for (i = 0; i < words && n < sizeof(text); i++)
		n += snprintf(text + n, sizeof(text) - n, "%s%#x",
			      i ? " " : ", data ", p->dump_data[i]);
	if (str[0] && n < sizeof(text))
		snprintf(text + n, sizeof(text) - n, ", \"%s\"", str);
	ntos_log((unsigned long)__builtin_return_address(0), text);
	ntos_free(e);
}
WIN_FUNC(IoWriteErrorLogEntry);

/* -- I/O space and contiguous memory --------------------------------------- */

#define MM_CACHED		1

/* Device memory: uncached unless MmCached is asked for. */
static WIN_ABI void *MmMapIoSpace(u64 phys, size_t size, u32 cache_type)
{
	if (!size)
		return NULL;
	return ntos_map_io(phys, size, cache_type == MM_CACHED);
}
WIN_FUNC(MmMapIoSpace);

static WIN_ABI void MmUnmapIoSpace(void *va, size_t size)
{
	ntos_unmap_io(va);
}
WIN_FUNC(MmUnmapIoSpace);

/*
 * Physically contiguous memory below highest. A boundary (a power of two
 * the block may not cross) is honoured when the block's own alignment
 * (the kernel's pages come aligned to their rounded-up size) implies it:
 * a block no bigger than the boundary. Memory is cached whatever the
 * cache type (x86 DMA is coherent).
 */
static WIN_ABI void *
MmAllocateContiguousMemorySpecifyCache(size_t size, u64 lowest, u64 highest,
				       u64 boundary, u32 cache_type)
{
	if (!size || (boundary && size > boundary))
		return NULL;
	return ntos_alloc_contiguous(size, highest);
}
WIN_FUNC(MmAllocateContiguousMemorySpecifyCache);

static WIN_ABI void MmFreeContiguousMemorySpecifyCache(void *va, size_t size,
						       u32 cache_type)
{
	ntos_free_contiguous(va, size);
}
WIN_FUNC(MmFreeContiguousMemorySpecifyCache);

/*
 * A driver's pageable sections are as resident as the rest of its image
 * here: locking one returns a handle (the address) and unlocking it has
 * nothing to undo.
 */
static WIN_ABI void *MmLockPagableDataSection(void *address)
{
	return address;
}
WIN_FUNC(MmLockPagableDataSection);

static WIN_ABI void MmUnlockPagableImageSection(void *handle)
{
}
WIN_FUNC(MmUnlockPagableImageSection);

/* There are no user processes here, 32-bit or other. */
static WIN_ABI u8 IoIs32bitProcess(struct win_irp *irp)
{
	return 0;
}
WIN_FUNC(IoIs32bitProcess);

/* -- work items ------------------------------------------------------------ */

/*
 * IoAllocateWorkItem: the routine IoQueueWorkItem names runs at
 * PASSIVE_LEVEL, in the same queue as NDIS's work items whatever queue
 * type is asked for (ntos_work_queue). The routine may free its own item.
 */
static WIN_ABI struct ntos_work_item *
IoAllocateWorkItem(struct win_device_object *dev)
{
	struct ntos_work_item *item;

	if (!dev)
		return NULL;
	item = ntos_alloc((unsigned long)__builtin_return_address(0),
			  sizeof(*item));
	if (!item)
		return NULL;
	item->dev = dev;
	item->work = ntos_work_new(item);
	if (!item->work) {
		ntos_free(item);
		return NULL;
	}
	return item;
}
WIN_FUNC(IoAllocateWorkItem);

static WIN_ABI void IoQueueWorkItem(struct ntos_work_item *item,
				    void *routine, u32 queue_type,
				    void *context)
{
	WRITE_ONCE(item->routine, routine);
	WRITE_ONCE(item->context, context);
	ntos_work_queue(item->work);
}
WIN_FUNC(IoQueueWorkItem);

static WIN_ABI void IoFreeWorkItem(struct ntos_work_item *item)
{
	ntos_work_free(item->work);
	ntos_free(item);
}
WIN_FUNC(IoFreeWorkItem);
