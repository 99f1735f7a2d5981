/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the wrapper's own objects behind the Windows handles.
 *
 * A struct ndis_driver is one loaded .sys image (shared by its devices);
 * a struct ndis_adapter is one device it drives: its NDIS_MINIPORT_BLOCK
 * is the MiniportAdapterHandle, the adapter itself the
 * WrapperConfigurationContext the driver gets in MiniportInitialize.
 */

#ifndef NDIS_NDIS_H
#define NDIS_NDIS_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ndis_80211_keys.h"
#include "ndis_core.h"
#include "ndiswrapper.h"
#include "wdm.h"
#include "wintypes.h"

#define NDIS_DRIVER_OBJECT_SIZE	0x150	/* DRIVER_OBJECT, amd64 */

struct ndis_driver {
	struct list_head list;		/* ndis_drivers */
	struct kref ref;		/* one per adapter, one while loading */
	char name[NDIS_MAX_NAME];	/* the directory in /etc/ndiswrapper */
	char sys_name[NDIS_MAX_NAME];
	void *image;			/* mapped, relocated image */
	size_t image_size;
	struct page **pages;
	unsigned int num_pages;
	u8 driver_object[NDIS_DRIVER_OBJECT_SIZE];	/* opaque to drivers */
	struct win_unicode_string registry_path;
	bool registered;		/* NdisMRegisterMiniport succeeded */
	void *unload;			/* NdisMRegisterUnloadHandler's */
	struct ndis_miniport_chars chars;
	spinlock_t alloc_lock;
	struct list_head allocs;	/* struct win_alloc: leak accounting */
	unsigned int num_allocs;
};

struct ndis_usb;
struct ndis_request;
struct ndis_tx_packet;

/* wext.c: an adapter's wireless extensions (wiphy=0), in the adapter. */
struct ndis_wext {
	bool on;			/* the handlers are the net device's */
	struct mutex lock;		/* the scan fields, auth */
	unsigned long scan_due;		/* jiffies: the requested list is ready */
	bool scanning;			/* a SIOCSIWSCAN not yet read back */
	spinlock_t queue_lock;		/* dead against the indications */
	bool dead;			/* event_work is not queued any more */
	struct work_struct event_work;	/* a media indication to tell */
	struct ndis_wext_auth auth;	/* SIOCSIWAUTH, for the next join */
};

/*
 * One device a Windows driver drives, on either bus: dev and bus are all
 * the shared code (adapter.c, ndis.c, netdev.c) looks at; pdev is set for
 * PCI (pci.c, ndis_hw.c), intf/udev/usb for USB (usb.c).
 */
struct ndis_adapter {
	struct ndis_miniport_block block;	/* MiniportAdapterHandle */
	struct ndis_driver *driver;
	struct device *dev;
	u32 bus;			/* NDIS_BUS_PCI or NDIS_BUS_USB */
	struct pci_dev *pdev;
	struct usb_interface *intf;
	struct usb_device *udev;
	struct ndis_usb *usb;
	struct ndis_wdm_dev wdm;	/* PDO and FDO */
	struct net_device *net;
	struct ndis_wext wext;		/* wiphy=0: wext.c */
	void *ctx;			/* MiniportAdapterContext */
	u32 attributes;			/* NDIS_ATTRIBUTE_* */
	void __iomem *bars[PCI_STD_NUM_BARS];
	struct ndis_setting *settings;	/* from the loader */
	u32 num_settings;
	struct ndis_config_store config;	/* ndis_config.c */
	void *log;			/* NdisMCreateLog's (ndis_log.c) */
	u8 mac[ETH_ALEN];
	u32 map_registers;
	void *map_register_state;	/* ndis_dma.c */
	bool sg_dma;			/* NdisMInitializeScatterGatherDma */
	u32 csum_tx;			/* checksum offload set (offload.c) */
	u32 sg_max_mapping;		/* bytes per element, 0: any */
	struct list_head shared;	/* struct ndis_shared */
	struct list_head ports;		/* struct ndis_ports */
	struct list_head timers;	/* struct ndis_timer */
	struct ndis_irq *irq;
	void *shutdown_fn;		/* NdisMRegisterAdapterShutdownHandler */
	void *shutdown_ctx;
	struct mutex oid_lock;		/* one request at a time */
	spinlock_t req_lock;		/* req_pending */
	struct ndis_request *req_pending;	/* the driver has it (netdev.c) */
	struct sk_buff_head tx_queue;
	struct work_struct tx_work;
	struct work_struct rx_mode_work;
	spinlock_t return_lock;
	struct ndis_packet *return_list;	/* received, to give back */
	struct work_struct return_work;
	bool returns_off;		/* halting: the driver takes no more */
	unsigned int returns_held;	/* DPCs that give back after they run */
	unsigned int returning;		/* give-backs running */
	spinlock_t rx_lock;		/* rx_on against unregistering */
	bool rx_on;			/* registered: indications go up */
	bool net_gone;			/* unregistering: no more indications */

	/*
	 * A serialized miniport (no NDIS_ATTRIBUTE_DESERIALIZE) is never
	 * entered twice at once: sends, the interrupt DPC, requests, timer
	 * DPCs, packet returns, CheckForHang and Reset take serial_lock
	 * (ndis_serialize()). Its sends answered NDIS_STATUS_RESOURCES wait
	 * in tx_held, in order, for a completion or
	 * NdisMSendResourcesAvailable.
	 */
	spinlock_t serial_lock;
	struct ndis_tx_packet *tx_held;
	bool tx_blocked;
	bool in_send;			/* in a serialized SendPackets */
	unsigned long tx_resent;	/* RESOURCES answers, for the log */
	atomic_t tx_done_gen;
	struct delayed_work tx_retry;	/* held sends go again (netdev.c) */
	unsigned long tx_retried;	/* times it did, for the log */

	/*
	 * The transmit watchdog (netdev.c): the sends the driver holds, oldest
	 * first; one pending NDIS_TX_TIMEOUT, or ndo_tx_timeout, resets it.
	 */
	spinlock_t tx_flight_lock;
	struct list_head tx_flight;
	struct delayed_work tx_watch;
	bool tx_watch_on;
	bool tx_timeout_due;		/* ndo_tx_timeout said so */
	unsigned long tx_reset_at;	/* jiffies of its last reset */

	/* CheckForHang every hang_secs; Reset when it says so (adapter.c) */
	u32 hang_secs;
	struct delayed_work hang_work;
	bool hang_on;
	bool resetting;			/* no sends while the miniport resets */
	struct completion reset_done;
	ndis_status reset_status;
	bool reset_addressing;
	bool status_unknown_said;
};

/* DISPATCH_LEVEL calls into a serialized miniport go one at a time. */
static inline bool ndis_serialized(struct ndis_adapter *ad)
{
	return !(ad->attributes & NDIS_ATTRIBUTE_DESERIALIZE);
}

static inline void ndis_serialize(struct ndis_adapter *ad)
{
	if (ndis_serialized(ad))
		spin_lock_bh(&ad->serial_lock);
}

static inline void ndis_unserialize(struct ndis_adapter *ad)
{
	if (ndis_serialized(ad))
		spin_unlock_bh(&ad->serial_lock);
}

/*
 * An MDL over nonpaged memory the kernel has mapped (va, len bytes): how
 * NdisAllocateBuffer and the TX path describe buffers. Returns the number
 * of pages it spans.
 */
static inline u32 ndis_mdl_init(struct win_mdl *mdl, void *va, u32 len)
{
	mdl->size = sizeof(*mdl);
	mdl->flags = MDL_SOURCE_IS_NONPAGED_POOL;
	mdl->mapped_va = va;
	mdl->start_va = (void *)((uintptr_t)va & PAGE_MASK);
	mdl->byte_offset = offset_in_page(va);
	mdl->byte_count = len;
	return DIV_ROUND_UP(offset_in_page(va) + len, PAGE_SIZE);
}

static inline struct ndis_adapter *ndis_handle_adapter(void *handle)
{
	return container_of(handle, struct ndis_adapter, block);
}

/* adapter.c: what both buses share, from the driver load to the free. */
struct ndis_adapter *ndis_adapter_create(struct device *dev, u32 bus,
					 const struct ndis_device_id *id);
int ndis_adapter_start(struct ndis_adapter *ad);
void ndis_adapter_stop(struct ndis_adapter *ad, bool surprise);
void ndis_adapter_destroy(struct ndis_adapter *ad);
void ndis_hang_start(struct ndis_adapter *ad);
void ndis_hang_stop(struct ndis_adapter *ad);
void ndis_reset(struct ndis_adapter *ad, const char *found_by);

/* pe_image.c */
struct ndis_driver *ndis_load_driver(struct ndis_load_req *req);
void ndis_put_driver(struct ndis_driver *drv);

/* ntoskrnl.c (win_alloc and win_free: ndis_core.h) */
void win_free_leaks(struct ndis_driver *drv);
u64 win_kuser_page(void);

/* ndis.c */
const char *ndis_setting(struct ndis_adapter *ad, const char *name);
void ndis_free_mdl(struct win_mdl *mdl);
void ndis_stop_timers(struct ndis_adapter *ad);
void ndis_flush_work_items(void);

/* ndis_hw.c */
int ndis_hw_setup(struct ndis_adapter *ad);
void ndis_hw_teardown(struct ndis_adapter *ad);
void ndis_hw_shutdown(struct ndis_adapter *ad);
#define NDIS_SG_MAX_MAPS	4	/* the linear part and 3 fragments */
struct win_sg_list *ndis_sg_map(struct ndis_adapter *ad, struct sk_buff *skb);
void ndis_sg_unmap(struct ndis_adapter *ad, struct win_sg_list *list);

/* usb.c: after MiniportHalt, whatever the driver left in flight. */
void ndis_usb_stop_io(struct ndis_adapter *ad);

/* netdev.c */
void ndis_init_block(struct ndis_adapter *ad);
int ndis_netdev_alloc(struct ndis_adapter *ad);
int ndis_netdev_register(struct ndis_adapter *ad);
void ndis_netdev_unregister(struct ndis_adapter *ad);
void ndis_netdev_quiesce(struct ndis_adapter *ad, bool give_back);
void ndis_rx_returns_hold(struct ndis_adapter *ad);
void ndis_rx_returns_release(struct ndis_adapter *ad);
void ndis_netdev_free(struct ndis_adapter *ad);
int ndis_query_oid(struct ndis_adapter *ad, u32 oid, void *buf, u32 len,
		   u32 *written);
int ndis_set_oid(struct ndis_adapter *ad, u32 oid, void *buf, u32 len);

/* wireless.c: the net device as a cfg80211 station (see there). */
int ndis_wireless_alloc(struct ndis_adapter *ad);
int ndis_wireless_register(struct ndis_adapter *ad);
void ndis_wireless_quiesce(struct ndis_adapter *ad);
void ndis_wireless_unregister(struct ndis_adapter *ad);
void ndis_wireless_free(struct ndis_adapter *ad);
void ndis_wireless_open(struct ndis_adapter *ad);
void ndis_wireless_stop(struct ndis_adapter *ad);
/* buf, len: the indication's data (802.11 media-specific events) */
void ndis_wireless_status(struct ndis_adapter *ad, ndis_status status,
			  const void *buf, u32 len);

/*
 * wext.c: the wireless extensions of an adapter without a wiphy (see
 * there), where the kernel has them.
 */
#if IS_ENABLED(CONFIG_WIRELESS_EXT)
int ndis_wext_alloc(struct ndis_adapter *ad);
void ndis_wext_quiesce(struct ndis_adapter *ad);
void ndis_wext_free(struct ndis_adapter *ad);
void ndis_wext_status(struct ndis_adapter *ad, ndis_status status,
		      const void *buf, u32 len);
#else
static inline int ndis_wext_alloc(struct ndis_adapter *ad)
{
	pr_err("wiphy=0 needs wireless extensions: this kernel has no CONFIG_WIRELESS_EXT\n");
	return -EOPNOTSUPP;
}
static inline void ndis_wext_quiesce(struct ndis_adapter *ad) {}
static inline void ndis_wext_free(struct ndis_adapter *ad) {}
static inline void ndis_wext_status(struct ndis_adapter *ad,
				    ndis_status status, const void *buf,
				    u32 len) {}
#endif
void ndis_tx_kick(struct ndis_adapter *ad);
int ndis_restore_filter(struct ndis_adapter *ad);

/* offload.c: OID_TCP_TASK_OFFLOAD, and each send's checksum request. */
void ndis_offload_setup(struct ndis_adapter *ad);
u32 ndis_offload_info(struct ndis_adapter *ad, struct sk_buff *skb);


#endif /* NDIS_NDIS_H */
