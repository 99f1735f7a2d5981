// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS, the hardware side: adapter resources, I/O space,
 * interrupts, map registers and shared memory, for PCI devices (a USB
 * adapter has no resources: the list is empty, the rest fails).
 *
 * Windows code runs with preemption off (wincall.h), so whatever may sleep
 * (ioremap, request_irq) is done before MiniportInitialize, in
 * ndis_hw_setup(): the memory BARs are mapped and the interrupt requested
 * then, and the NDIS calls only hand them out.
 *
 * Interrupts: the miniport's ISR may use SSE and so needs the FPU, which
 * hard interrupt context cannot always give; it runs in the threaded
 * handler of a oneshot interrupt (the line stays masked until it returns),
 * under the interrupt's spin lock that NdisMSynchronizeWithInterrupt takes
 * too. HandleInterrupt then runs as the DPC in the same thread, once the
 * ISR has returned and the lock is dropped (a DPC runs after its ISR, at
 * DISPATCH_LEVEL, never beside itself: the oneshot thread runs one at a
 * time), so an interrupt costs one thread wakeup, not two; the packets it
 * indicated go back to the driver right after it (netdev.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/overflow.h>
#include <linux/pci.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ndis.h"
#include "ndis_sg.h"
#include "wincall.h"
#include "winexport.h"

struct ndis_irq {
	struct ndis_adapter *ad;
	int irq;
	spinlock_t lock;		/* the ISR, Synchronize, (de)register */
	bool active;			/* NdisMRegisterInterrupt called */
	bool request_isr;
	bool dpc_running;
};

struct ndis_shared {
	struct list_head list;		/* adapter->shared */
	void *va;
	dma_addr_t pa;
	size_t size;
};

static void ndis_irq_dpc(struct ndis_irq *ni)
{
	struct ndis_driver *drv = ni->ad->driver;
	void *ctx = ni->ad->ctx;

	spin_lock(&ni->lock);
	ni->dpc_running = ni->active;
	spin_unlock(&ni->lock);
	if (!ni->dpc_running)
		return;
	ndis_rx_returns_hold(ni->ad);
	ndis_serialize(ni->ad);
	DPC2WIN1(drv->chars.handle_interrupt, ctx);
	if (!ni->request_isr && drv->chars.enable_interrupt)
		DPC2WIN1(drv->chars.enable_interrupt, ctx);
	ndis_unserialize(ni->ad);
	ndis_rx_returns_release(ni->ad);
	WRITE_ONCE(ni->dpc_running, false);
}

static irqreturn_t ndis_irq_thread(int irq, void *data)
{
	struct ndis_irq *ni = data;
	struct ndis_driver *drv = ni->ad->driver;
	u8 recognized = 0, queue_dpc = 0;

	spin_lock(&ni->lock);
	if (ni->active && ni->request_isr) {
		win_callv_at(WIN_DEVICE_LEVEL, drv->chars.isr, 3,
			     (u64 [4]){ WARG(&recognized), WARG(&queue_dpc),
					WARG(ni->ad->ctx) });
	} else if (ni->active) {
		win_callv_at(WIN_DEVICE_LEVEL, drv->chars.disable_interrupt,
			     1, (u64 [4]){ WARG(ni->ad->ctx) });
		recognized = queue_dpc = 1;
	}
	spin_unlock(&ni->lock);
	if (queue_dpc)
		ndis_irq_dpc(ni);
	return recognized ? IRQ_HANDLED : IRQ_NONE;
}

static WIN_ABI ndis_status
NdisMRegisterInterrupt(struct ndis_miniport_interrupt *storage, void *handle,
		       u32 vector, u32 level, u8 request_isr, u8 shared,
		       u32 mode)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	struct ndis_irq *ni = ad->irq;

	if (!ni || (request_isr && !ad->driver->chars.isr) ||
	    (!request_isr && !ad->driver->chars.disable_interrupt) ||
	    !ad->driver->chars.handle_interrupt)
		return NDIS_STATUS_RESOURCES;
	memset(storage, 0, sizeof(*storage));
	storage->object = ni;
	spin_lock(&ni->lock);
	ni->request_isr = request_isr;
	ni->active = true;
	spin_unlock(&ni->lock);
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMRegisterInterrupt);

/* No DPC may run once this returns, as on Windows. */
static void ndis_irq_deactivate(struct ndis_irq *ni)
{
	spin_lock(&ni->lock);
	ni->active = false;
	spin_unlock(&ni->lock);
	while (READ_ONCE(ni->dpc_running))
		cpu_relax();
}

static WIN_ABI void
NdisMDeregisterInterrupt(struct ndis_miniport_interrupt *storage)
{
	struct ndis_irq *ni = storage->object;

	if (ni)
		ndis_irq_deactivate(ni);
}
WIN_FUNC(NdisMDeregisterInterrupt);

static WIN_ABI u8
NdisMSynchronizeWithInterrupt(struct ndis_miniport_interrupt *storage,
			      void *func, void *ctx)
{
	struct ndis_irq *ni = storage->object;
	u8 ret;

	spin_lock(&ni->lock);
	ret = win_callv_at(WIN_DEVICE_LEVEL, func, 1,
			   (u64 [4]){ WARG(ctx) });
	spin_unlock(&ni->lock);
	return ret;
}
WIN_FUNC(NdisMSynchronizeWithInterrupt);

/* -- resources and I/O space -------------------------------------------- */

static WIN_ABI void NdisMQueryAdapterResources(ndis_status *status,
					       void *wrapper_ctx,
					       struct cm_partial_resource_list
					       *list, u32 *size)
{
	struct ndis_adapter *ad = wrapper_ctx;
	struct pci_dev *pdev = ad->pdev;
	struct cm_partial_resource *d;
	u32 n = 0, needed;
	int i;

	for (i = 0; pdev && i < PCI_STD_NUM_BARS; i++)
		if (pci_resource_len(pdev, i))
			n++;
	if (ad->irq)
		n++;
	needed = sizeof(*list) + n * sizeof(*d);
	if (*size < needed) {
		*size = needed;
		*status = NDIS_STATUS_RESOURCES;
		return;
	}
	memset(list, 0, needed);
	list->version = 1;
	list->revision = 1;
	d = list->desc;
	for (i = 0; pdev && i < PCI_STD_NUM_BARS; i++) {
		if (!pci_resource_len(pdev, i))
			continue;
		d->type = pci_resource_flags(pdev, i) & IORESOURCE_IO ?
			  CM_RESOURCE_PORT : CM_RESOURCE_MEMORY;
		d->share = 1;		/* device exclusive */
		d->u.mem.start = pci_resource_start(pdev, i);
		d->u.mem.length = pci_resource_len(pdev, i);
		d++;
	}
	if (ad->irq) {
		d->type = CM_RESOURCE_INTERRUPT;
		d->share = pdev->msi_enabled ? 1 : 3;	/* 3: shared */
		d->flags = pdev->msi_enabled ? CM_RESOURCE_INTERRUPT_LATCHED
					     : 0;
		d->u.irq.level = ad->irq->irq;
		d->u.irq.vector = ad->irq->irq;
		d->u.irq.affinity = ~0UL;
	}
	list->count = n;
	*size = needed;
	*status = NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMQueryAdapterResources);

static WIN_ABI ndis_status NdisMMapIoSpace(void **va, void *handle, u64 pa,
					   u32 len)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	int i;

	for (i = 0; ad->pdev && i < PCI_STD_NUM_BARS; i++) {
		resource_size_t start = pci_resource_start(ad->pdev, i);

		if (!ad->bars[i] || pa < start || len >
		    pci_resource_len(ad->pdev, i) ||
		    pa - start > pci_resource_len(ad->pdev, i) - len)
			continue;
		*va = (void __force *)ad->bars[i] + (pa - start);
		return NDIS_STATUS_SUCCESS;
	}
	*va = NULL;
	return NDIS_STATUS_RESOURCES;
}
WIN_FUNC(NdisMMapIoSpace);

/* The BARs stay mapped until the device stops. */
static WIN_ABI void NdisMUnmapIoSpace(void *handle, void *va, u32 len)
{
}
WIN_FUNC(NdisMUnmapIoSpace);

/* A range NdisMRegisterIoPortRange handed out, until its deregistration. */
struct ndis_ports {
	struct list_head list;		/* adapter->ports */
	u32 port, count;
};

/*
 * An I/O BAR's ports as the driver asked for them: on x86 a Linux I/O
 * resource is the port number itself, and the driver reaches it with the
 * DDK's NdisRawRead/WritePort* (the in and out instructions on amd64), so
 * the "offset" handed back is the raw port. pci_request_regions() holds
 * the BARs while the device is bound; what a registration takes is its
 * record, a Windows allocation of the driver's that
 * NdisMDeregisterIoPortRange releases: a range never deregistered is in
 * the leak count of the driver's unload.
 */
static WIN_ABI ndis_status NdisMRegisterIoPortRange(void **port_offset,
						    void *handle, u32 port,
						    u32 count)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	struct ndis_ports *p;
	int i;

	for (i = 0; ad->pdev && i < PCI_STD_NUM_BARS; i++) {
		resource_size_t start = pci_resource_start(ad->pdev, i);
		resource_size_t len = pci_resource_len(ad->pdev, i);

		if (!(pci_resource_flags(ad->pdev, i) & IORESOURCE_IO) ||
		    !count || port < start || count > len ||
		    port - start > len - count)
			continue;
		p = win_alloc(ad->driver, sizeof(*p));
		if (!p)
			break;
		p->port = port;
		p->count = count;
		list_add(&p->list, &ad->ports);
		*port_offset = (void *)(uintptr_t)port;
		return NDIS_STATUS_SUCCESS;
	}
	pr_err("%s: %s asked for I/O ports %#x+%u outside its BARs\n",
	       ad->driver->name, dev_name(ad->dev), port, count);
	*port_offset = NULL;
	return NDIS_STATUS_RESOURCES;
}
WIN_FUNC(NdisMRegisterIoPortRange);

/* The registration of exactly that range (the BARs stay requested until
 * the device unbinds). */
static WIN_ABI void NdisMDeregisterIoPortRange(void *handle, u32 port,
					       u32 count, void *port_offset)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	struct ndis_ports *p;

	list_for_each_entry(p, &ad->ports, list) {
		if (p->port != port || p->count != count ||
		    port_offset != (void *)(uintptr_t)port)
			continue;
		list_del(&p->list);
		win_free(p);
		return;
	}
	pr_err("%s: deregistering I/O ports %#x+%u it did not register\n",
	       ad->driver->name, port, count);
}
WIN_FUNC(NdisMDeregisterIoPortRange);

/* -- PCI configuration space ------------------------------------------------ */

/*
 * SlotNumber is ignored, as on NT: the adapter's own function. Returns
 * the bytes transferred; the range is clipped to the configuration space.
 */
static u32 ndis_pci_slot_io(void *handle, u32 offset, u8 *buf, u32 len,
			    bool write)
{
	struct pci_dev *pdev = ndis_handle_adapter(handle)->pdev;
	u32 done;

	if (!pdev || offset >= pdev->cfg_size)
		return 0;
	len = min_t(u32, len, pdev->cfg_size - offset);
	for (done = 0; done < len; done++) {
		int err = write ?
			pci_write_config_byte(pdev, offset + done, buf[done]) :
			pci_read_config_byte(pdev, offset + done, &buf[done]);

		if (err)
			break;
	}
	return done;
}

static WIN_ABI u32 NdisReadPciSlotInformation(void *handle, u32 slot,
					      u32 offset, void *buf, u32 len)
{
	return ndis_pci_slot_io(handle, offset, buf, len, false);
}
WIN_FUNC(NdisReadPciSlotInformation);

static WIN_ABI u32 NdisWritePciSlotInformation(void *handle, u32 slot,
					       u32 offset, void *buf, u32 len)
{
	return ndis_pci_slot_io(handle, offset, buf, len, true);
}
WIN_FUNC(NdisWritePciSlotInformation);

/* -- shutdown --------------------------------------------------------------- */

static WIN_ABI void NdisMRegisterAdapterShutdownHandler(void *handle,
							void *ctx, void *func)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);

	ad->shutdown_ctx = ctx;
	WRITE_ONCE(ad->shutdown_fn, func);
}
WIN_FUNC(NdisMRegisterAdapterShutdownHandler);

static WIN_ABI void NdisMDeregisterAdapterShutdownHandler(void *handle)
{
	WRITE_ONCE(ndis_handle_adapter(handle)->shutdown_fn, NULL);
}
WIN_FUNC(NdisMDeregisterAdapterShutdownHandler);

/*
 * The system goes down (pci.c's .shutdown): the handler the driver
 * registered, else the NDIS 5.1 characteristics' AdapterShutdownHandler,
 * which takes the adapter context.
 */
void ndis_hw_shutdown(struct ndis_adapter *ad)
{
	void *fn = READ_ONCE(ad->shutdown_fn);

	if (fn)
		LIN2WIN1(fn, ad->shutdown_ctx);
	else if (ad->driver->chars.major >= 5 && ad->driver->chars.shutdown)
		LIN2WIN1(ad->driver->chars.shutdown, ad->ctx);
}

/* -- DMA ------------------------------------------------------------------ */

static WIN_ABI ndis_status NdisMAllocateMapRegisters(void *handle,
						     u32 channel, u8 dma_size,
						     u32 count, u32 max_map)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	static const u8 bits[] = { 24, 32, 64 };

	/* the registers' state is sized by their count */
	ndis_map_registers_release(handle);
	if (dma_size >= ARRAY_SIZE(bits) ||
	    dma_set_mask_and_coherent(ad->dev,
				      DMA_BIT_MASK(bits[dma_size])))
		return NDIS_STATUS_RESOURCES;
	ad->map_registers = count;
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMAllocateMapRegisters);

static WIN_ABI void NdisMFreeMapRegisters(void *handle)
{
	ndis_map_registers_release(handle);
	ndis_handle_adapter(handle)->map_registers = 0;
}
WIN_FUNC(NdisMFreeMapRegisters);

static WIN_ABI void NdisMAllocateSharedMemory(void *handle, u32 len,
					      u8 cached, void **va, u64 *pa)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	struct ndis_shared *sh;

	*va = NULL;
	/*
	 * NDIS 5: the DMA set up first, by NdisMAllocateMapRegisters or
	 * NdisMInitializeScatterGatherDma (either gives the adapter its
	 * DMA mask; a scatter-gather driver has no map registers)
	 */
	if ((!ad->map_registers && !ad->sg_dma) || !len)
		return;
	sh = win_alloc(ad->driver, sizeof(*sh));
	if (!sh)
		return;
	sh->va = dma_alloc_coherent(ad->dev, len, &sh->pa, GFP_ATOMIC);
	if (!sh->va) {
		win_free(sh);
		return;
	}
	sh->size = len;
	list_add(&sh->list, &ad->shared);
	*va = sh->va;
	*pa = sh->pa;
}
WIN_FUNC(NdisMAllocateSharedMemory);

static WIN_ABI void NdisMFreeSharedMemory(void *handle, u32 len, u8 cached,
					  void *va, u64 pa)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	struct ndis_shared *sh;

	list_for_each_entry(sh, &ad->shared, list) {
		if (sh->va != va)
			continue;
		dma_free_coherent(ad->dev, sh->size, sh->va, sh->pa);
		list_del(&sh->list);
		win_free(sh);
		return;
	}
	pr_err("%s: freeing shared memory it does not own\n",
	       ad->driver->name);
}
WIN_FUNC(NdisMFreeSharedMemory);

/* ndis_core.h: for NdisM*BufferPhysicalMapping (ndis_dma.c) */
u32 ndis_map_register_count(void *handle)
{
	return ndis_handle_adapter(handle)->map_registers;
}

void **ndis_map_register_slot(void *handle)
{
	return &ndis_handle_adapter(handle)->map_register_state;
}

struct ndis_driver *ndis_map_register_driver(void *handle)
{
	return ndis_handle_adapter(handle)->driver;
}

/* Windows memory is kmalloc'ed or vmalloc'ed: either has a page. */
int ndis_dma_map(void *handle, void *va, u32 len, bool to_device, u64 *addr)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	struct page *page = is_vmalloc_addr(va) ? vmalloc_to_page(va) :
						  virt_addr_valid(va) ?
						  virt_to_page(va) : NULL;
	dma_addr_t a;

	if (!page)
		return -EINVAL;
	a = dma_map_page(ad->dev, page, offset_in_page(va), len,
			 to_device ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
	if (dma_mapping_error(ad->dev, a))
		return -ENOMEM;
	*addr = a;
	return 0;
}

void ndis_dma_unmap(void *handle, u64 addr, u32 len, bool to_device)
{
	dma_unmap_page(ndis_handle_adapter(handle)->dev, addr, len,
		       to_device ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
}

/* ndis_core.h: for NdisMAllocateSharedMemoryAsync (ndis_dma.c) */
bool ndis_allocate_complete_set(void *handle)
{
	return ndis_handle_adapter(handle)->driver->chars.allocate_complete;
}

void ndis_allocate_complete(void *handle, void *va, u64 *pa, u32 len,
			    void *ctx)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);

	/* halting: the memory stays the adapter's, the halt's to free */
	if (READ_ONCE(ad->returns_off))
		return;
	ndis_serialize(ad);
	DPC2WIN5(ad->driver->chars.allocate_complete, ad->ctx, va, pa, len,
		 ctx);
	ndis_unserialize(ad);
}

/* -- scatter-gather DMA ----------------------------------------------------- */

/*
 * NdisMInitializeScatterGatherDma: a bus-master miniport (NdisMSetAttributesEx
 * with NDIS_ATTRIBUTE_BUS_MASTER) asks for the bus addresses of every send
 * packet, so it can give them to its DMA engine without copying. From
 * then on each packet it is sent carries a SCATTER_GATHER_LIST in its
 * per-packet info (ScatterGatherListPacketInfo): the skb's linear part and
 * page fragments dma_map'ed to the device, each cut at
 * MaximumPhysicalMapping bytes; they are unmapped when the send completes.
 * The list is a Windows allocation of the driver's: one never released
 * (a send that never completes, or a completion that skipped the unmap)
 * is in the leak count its unload reports.
 */
static WIN_ABI ndis_status NdisMInitializeScatterGatherDma(void *handle,
							   u8 dma64,
							   u32 max_mapping)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);

	if (!ad->pdev || !(ad->attributes & NDIS_ATTRIBUTE_BUS_MASTER)) {
		pr_err("%s: scatter-gather DMA for a device that is not a PCI bus master\n",
		       ad->driver->name);
		return NDIS_STATUS_NOT_SUPPORTED;
	}
	if (dma_set_mask_and_coherent(ad->dev, DMA_BIT_MASK(dma64 ? 64 : 32)))
		return NDIS_STATUS_RESOURCES;
	ad->sg_max_mapping = max_mapping;
	ad->sg_dma = true;
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisMInitializeScatterGatherDma);

/* What a send's list maps, for the unmap. */
struct ndis_sg {
	u32 nmaps;
	struct {
		dma_addr_t addr;
		u32 len;
		bool page;
	} map[NDIS_SG_MAX_MAPS];
	u32 max_elements;
	struct win_sg_list list;	/* elements follow */
};

void ndis_sg_unmap(struct ndis_adapter *ad, struct win_sg_list *list)
{
	struct ndis_sg *sg = container_of(list, struct ndis_sg, list);
	u32 i;

	for (i = 0; i < sg->nmaps; i++) {
		if (sg->map[i].page)
			dma_unmap_page(ad->dev, sg->map[i].addr, sg->map[i].len,
				       DMA_TO_DEVICE);
		else
			dma_unmap_single(ad->dev, sg->map[i].addr,
					 sg->map[i].len, DMA_TO_DEVICE);
	}
	win_free(sg);
}

static bool ndis_sg_add(struct ndis_adapter *ad, struct ndis_sg *sg,
			dma_addr_t addr, u32 len, bool page)
{
	if (dma_mapping_error(ad->dev, addr))
		return false;
	sg->map[sg->nmaps].addr = addr;
	sg->map[sg->nmaps].len = len;
	sg->map[sg->nmaps].page = page;
	sg->nmaps++;
	return ndis_sg_append(&sg->list, sg->max_elements, addr, len,
			      ad->sg_max_mapping);
}

/*
 * The list of an skb with at most NDIS_SG_MAX_MAPS - 1 fragments (process
 * context), or NULL if a mapping failed.
 */
struct win_sg_list *ndis_sg_map(struct ndis_adapter *ad, struct sk_buff *skb)
{
	u32 i, n = ndis_sg_elements(skb_headlen(skb), ad->sg_max_mapping);
	struct ndis_sg *sg;

	if (skb_shinfo(skb)->nr_frags >= NDIS_SG_MAX_MAPS)
		return NULL;
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++)
		n += ndis_sg_elements(skb_frag_size(&skb_shinfo(skb)->frags[i]),
				      ad->sg_max_mapping);
	sg = win_alloc(ad->driver, struct_size(sg, list.elements, n));
	if (!sg)
		return NULL;
	sg->max_elements = n;
	if (skb_headlen(skb) &&
	    !ndis_sg_add(ad, sg, dma_map_single(ad->dev, skb->data,
						skb_headlen(skb),
						DMA_TO_DEVICE),
			 skb_headlen(skb), false))
		goto err;
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];

		if (!skb_frag_size(f))
			continue;
		if (!ndis_sg_add(ad, sg, skb_frag_dma_map(ad->dev, f, 0,
							  skb_frag_size(f),
							  DMA_TO_DEVICE),
				 skb_frag_size(f), true))
			goto err;
	}
	return &sg->list;

err:
	ndis_sg_unmap(ad, &sg->list);
	return NULL;
}

/* -- setup and teardown, process context ---------------------------------- */

int ndis_hw_setup(struct ndis_adapter *ad)
{
	struct pci_dev *pdev = ad->pdev;
	struct ndis_irq *ni;
	const char *msi;
	int i, err;

	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		if (!pci_resource_len(pdev, i) ||
		    !(pci_resource_flags(pdev, i) & IORESOURCE_MEM))
			continue;
		ad->bars[i] = pci_iomap(pdev, i, 0);
		if (!ad->bars[i]) {
			err = -ENOMEM;
			goto err_unmap;
		}
	}
	/*
	 * An NDIS 5 miniport's ISR is written for a level-triggered line
	 * it may share; Windows gives a device MSI only when the driver's
	 * INF opts in (MSISupported, which the installer passes on).
	 */
	msi = ndis_setting(ad, "msi_supported");
	err = pci_alloc_irq_vectors(pdev, 1, 1,
				    msi && !strcmp(msi, "1") ?
				    PCI_IRQ_ALL_TYPES : PCI_IRQ_INTX);
	if (err < 0)
		goto err_unmap;
	err = -ENOMEM;
	ni = kzalloc(sizeof(*ni), GFP_KERNEL);
	if (!ni)
		goto err_vectors;
	ni->ad = ad;
	ni->irq = pci_irq_vector(pdev, 0);
	spin_lock_init(&ni->lock);
	err = request_threaded_irq(ni->irq, NULL, ndis_irq_thread,
				   IRQF_ONESHOT |
				   (pdev->msi_enabled || pdev->msix_enabled ?
				    0 : IRQF_SHARED),
				   ad->driver->name, ni);
	if (err)
		goto err_free_irq;
	ad->irq = ni;
	pci_info(pdev, "%s interrupt %d\n",
		 pdev->msi_enabled ? "MSI" : "shared line", ni->irq);
	return 0;

err_free_irq:
	kfree(ni);
err_vectors:
	pci_free_irq_vectors(pdev);
err_unmap:
	while (i--)
		if (ad->bars[i])
			pci_iounmap(pdev, ad->bars[i]);
	return err;
}

/*
 * After MiniportHalt. Shared memory the driver did not free is released
 * here; its bookkeeping stays a Windows allocation, so the driver's leak
 * count includes it.
 */
void ndis_hw_teardown(struct ndis_adapter *ad)
{
	struct ndis_shared *sh, *tmp;
	int i;

	ndis_map_registers_release(&ad->block);
	ndis_irq_deactivate(ad->irq);
	free_irq(ad->irq->irq, ad->irq);
	kfree(ad->irq);
	ad->irq = NULL;
	pci_free_irq_vectors(ad->pdev);
	list_for_each_entry_safe(sh, tmp, &ad->shared, list) {
		dma_free_coherent(ad->dev, sh->size, sh->va, sh->pa);
		list_del(&sh->list);
	}
	/* port ranges never deregistered: their records stay counted */
	INIT_LIST_HEAD(&ad->ports);
	for (i = 0; i < PCI_STD_NUM_BARS; i++)
		if (ad->bars[i])
			pci_iounmap(ad->pdev, ad->bars[i]);
}
