// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: the Linux net device of an adapter, and the miniport block
 * handlers the driver reaches through its DDK macros.
 *
 * TX: ndo_start_xmit queues the skb; a work item (process context, where
 * Windows code may run) wraps each in an NDIS_PACKET with an MDL over the
 * linear data and one per page fragment and hands them to SendPackets in
 * arrays (or one by one to Send). The driver completes each through
 * SendCompleteHandler. RX: PacketIndicateHandler copies each
 * packet into an skb for netif_rx() and gives the packet back, through
 * MiniportReturnPacket from a work item unless the driver indicated it
 * with NDIS_STATUS_RESOURCES. StatusHandler drives the carrier.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/overflow.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "ndis.h"
#include "ndis_sysfs.h"
#include "wincall.h"

#define NDIS_TX_QUEUE_MAX	64
#define OID_GEN_CURRENT_PACKET_FILTER	0x0001010E
#define OID_802_3_CURRENT_ADDRESS	0x01010102
#define OID_GEN_MEDIA_CONNECT_STATUS	0x00010114
#define OID_GEN_PHYSICAL_MEDIUM		0x00010202
#define NDIS_PHYSICAL_MEDIUM_WIRELESS_LAN	1
#define NDIS_MEDIA_STATE_CONNECTED	0

#define NDIS_PACKET_TYPE_DIRECTED	0x00000001
#define NDIS_PACKET_TYPE_MULTICAST	0x00000002
#define NDIS_PACKET_TYPE_ALL_MULTICAST	0x00000004
#define NDIS_PACKET_TYPE_BROADCAST	0x00000008
#define NDIS_PACKET_TYPE_PROMISCUOUS	0x00000020

/*
 * The wrapper's own packets, for sending. The driver may use
 * MiniportReservedEx, which overlaps the first word of WrapperReserved,
 * so the skb is kept outside the packet.
 */
#define NDIS_TX_MDLS	4	/* the head and up to 3 page fragments */

struct ndis_tx_packet {
	struct ndis_packet pkt;
	struct ndis_packet_oob oob;
	struct ndis_packet_ext ext;	/* per-packet info, after the OOB */
	struct win_mdl mdl[NDIS_TX_MDLS];
	struct sk_buff *skb;
	struct ndis_tx_packet *next;	/* in tx_held */
	bool completed;			/* by the driver within SendPackets */
	ndis_status completed_status;
	struct list_head flight;	/* in tx_flight while the driver has it */
	unsigned long sent_at;		/* jiffies it went to the driver */
};
static_assert(offsetof(struct ndis_tx_packet, ext) ==
	      offsetof(struct ndis_tx_packet, oob) +
	      sizeof(struct ndis_packet_oob));
static_assert(NDIS_TX_MDLS == NDIS_SG_MAX_MAPS);

/* Received packets to give back are chained through WrapperReserved[1]. */
static struct ndis_packet **ndis_next_return(struct ndis_packet *pkt)
{
	return (struct ndis_packet **)(pkt->wrapper_reserved + sizeof(void *));
}

static struct ndis_packet_oob *ndis_oob(struct ndis_packet *pkt)
{
	return (struct ndis_packet_oob *)((u8 *)pkt + pkt->oob_offset);
}

static void ndis_tx_done(struct ndis_adapter *ad, struct ndis_packet *pkt,
			 ndis_status status)
{
	struct ndis_tx_packet *tp = container_of(pkt, struct ndis_tx_packet,
						 pkt);
	struct sk_buff *skb = tp->skb;
	struct net_device *net = ad->net;
	unsigned long flags;

	spin_lock_irqsave(&ad->tx_flight_lock, flags);
	list_del_init(&tp->flight);
	spin_unlock_irqrestore(&ad->tx_flight_lock, flags);
	if (tp->ext.info[NDIS_INFO_SG_LIST])
		ndis_sg_unmap(ad, tp->ext.info[NDIS_INFO_SG_LIST]);
	if (status == NDIS_STATUS_SUCCESS) {
		net->stats.tx_packets++;
		net->stats.tx_bytes += skb->len;
	} else {
		net->stats.tx_errors++;
	}
	dev_consume_skb_any(skb);
	kfree(tp);
	ndis_tx_kick(ad);
	if (netif_queue_stopped(net) &&
	    skb_queue_len(&ad->tx_queue) < NDIS_TX_QUEUE_MAX / 2)
		netif_wake_queue(net);
}

/*
 * One MDL over the linear part and one per page fragment (the net device
 * offers scatter-gather, so segmenting a TCP GSO skb copies no payload);
 * an skb with more fragments than fit is linearized. The checksum the
 * stack left to the "hardware" goes to the miniport, in the packet's
 * TcpIpChecksumPacketInfo, only when OID_TCP_TASK_OFFLOAD set it for that
 * kind of packet (offload.c); any other is filled in here, and the info
 * asks for nothing. No 802.1Q tag is carried there (the net device offers
 * no VLAN offload: a tag stays in the frame). A scatter-gather DMA
 * miniport gets the packet's mapped list there.
 */
static struct ndis_packet *ndis_wrap_skb(struct ndis_adapter *ad,
					 struct sk_buff *skb)
{
	struct ndis_tx_packet *tp;
	u32 i, n, pages, csum = 0;

	if (skb_shinfo(skb)->nr_frags >= NDIS_TX_MDLS && skb_linearize(skb))
		return NULL;
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		csum = ndis_offload_info(ad, skb);
		if (!csum && skb_checksum_help(skb))
			return NULL;
	}
	tp = kzalloc(sizeof(*tp), GFP_KERNEL);
	if (!tp)
		return NULL;
	INIT_LIST_HEAD(&tp->flight);
	pages = ndis_mdl_init(&tp->mdl[0], skb->data, skb_headlen(skb));
	n = 1;
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];

		if (!skb_frag_size(f))
			continue;
		/* lowmem on x86_64: page_address() is the mapping */
		pages += ndis_mdl_init(&tp->mdl[n], skb_frag_address(f),
				       skb_frag_size(f));
		tp->mdl[n - 1].next = &tp->mdl[n];
		n++;
	}
	tp->pkt.head = &tp->mdl[0];
	tp->pkt.tail = &tp->mdl[n - 1];
	tp->pkt.physical_count = pages;
	tp->pkt.count = n;
	tp->pkt.total_length = skb->len;
	tp->pkt.valid_counts = 1;
	tp->pkt.oob_offset = offsetof(struct ndis_tx_packet, oob);
	tp->oob.header_size = ETH_HLEN;
	tp->ext.info[NDIS_INFO_TCPIP_CHECKSUM] = (void *)(uintptr_t)csum;
	tp->skb = skb;
	if (ad->sg_dma) {
		tp->ext.info[NDIS_INFO_SG_LIST] = ndis_sg_map(ad, skb);
		if (!tp->ext.info[NDIS_INFO_SG_LIST]) {
			kfree(tp);
			return NULL;
		}
	}
	return &tp->pkt;
}

/*
 * Everything queued goes to the driver in arrays of up to NDIS_TX_BATCH
 * packets, one SendPackets call (one FPU section) each, as NDIS 5.1 does:
 * under TCG each call into Windows code costs thousands of guest
 * instructions, and the device sees a burst it can complete with one
 * interrupt.
 */
#define NDIS_TX_BATCH	16

/*
 * A serialized miniport's NDIS_STATUS_RESOURCES: the packet is not taken
 * and goes back to the front of the wrapper's queue (tx_held, in order,
 * before anything not yet wrapped). NDIS sends such packets again at the
 * miniport's next NdisMSendComplete or NdisMSendResourcesAvailable (its
 * documented rule); so does the wrapper (ndis_tx_kick). A miniport that
 * answered RESOURCES with no send in flight and never calls
 * NdisMSendResourcesAvailable would leave them held forever: they also
 * go again NDIS_TX_RETRY after the answer (ndis_tx_retry).
 */
#define NDIS_TX_RETRY	(HZ / 20)

static void ndis_tx_hold(struct ndis_adapter *ad, struct ndis_packet **pkts,
			 u32 n)
{
	struct ndis_tx_packet *head = NULL, **tail = &head, *last = NULL;
	unsigned long flags;
	u32 i;

	for (i = 0; i < n; i++) {
		struct ndis_tx_packet *tp = container_of(pkts[i],
							 struct ndis_tx_packet,
							 pkt);

		spin_lock_irqsave(&ad->tx_flight_lock, flags);
		list_del_init(&tp->flight);
		spin_unlock_irqrestore(&ad->tx_flight_lock, flags);
		*tail = tp;
		tail = &tp->next;
		last = tp;
	}
	if (!head)
		return;
	last->next = ad->tx_held;
	ad->tx_held = head;
}

static struct ndis_packet *ndis_tx_unhold(struct ndis_adapter *ad)
{
	struct ndis_tx_packet *tp = ad->tx_held;

	if (!tp)
		return NULL;
	ad->tx_held = tp->next;
	tp->next = NULL;
	return &tp->pkt;
}

/* The packets go to the driver: the transmit watchdog's clock starts. */
static void ndis_tx_fly(struct ndis_adapter *ad, struct ndis_packet **pkts,
			u32 n)
{
	unsigned long flags, now = jiffies;
	u32 i;

	spin_lock_irqsave(&ad->tx_flight_lock, flags);
	for (i = 0; i < n; i++) {
		struct ndis_tx_packet *tp = container_of(pkts[i],
							 struct ndis_tx_packet,
							 pkt);

		tp->sent_at = now;
		list_add_tail(&tp->flight, &ad->tx_flight);
	}
	spin_unlock_irqrestore(&ad->tx_flight_lock, flags);
}

/* A send completed or resources came back: send what waits. */
void ndis_tx_kick(struct ndis_adapter *ad)
{
	atomic_inc(&ad->tx_done_gen);
	smp_mb__after_atomic();		/* against ndis_tx_work's smp_mb() */
	if (READ_ONCE(ad->tx_blocked)) {
		WRITE_ONCE(ad->tx_blocked, false);
		queue_work(ndis_wq, &ad->tx_work);
	}
}

/*
 * Sends one batch; returns the number of packets a serialized miniport
 * answered NDIS_STATUS_RESOURCES (held again, in order).
 */
static u32 ndis_tx_batch(struct ndis_adapter *ad, struct ndis_packet **pkts,
			 u32 n)
{
	struct ndis_miniport_chars *c = &ad->driver->chars;
	bool serialized = ndis_serialized(ad);
	ndis_status status[NDIS_TX_BATCH];
	struct ndis_packet *busy[NDIS_TX_BATCH];
	u32 i, nbusy = 0;

	ndis_serialize(ad);
	ad->in_send = serialized;
	if (c->send_packets) {
		DPC2WIN3(c->send_packets, ad->ctx, pkts, n);
		/*
		 * A deserialized miniport always completes through
		 * SendCompleteHandler, maybe already: the packets may be
		 * gone. A serialized one leaves the status of each in its
		 * OOB data, read before anything else may enter it.
		 */
		for (i = 0; serialized && i < n; i++)
			status[i] = ndis_oob(pkts[i])->status;
	} else {
		for (i = 0; i < n; i++)
			status[i] = DPC2WIN3(c->send, ad->ctx, pkts[i], 0);
	}
	ad->in_send = false;
	ndis_unserialize(ad);
	if (c->send_packets && !serialized)
		return 0;
	for (i = 0; i < n; i++) {
		struct ndis_tx_packet *tp = container_of(pkts[i],
							 struct ndis_tx_packet,
							 pkt);

		if (serialized && tp->completed)
			ndis_tx_done(ad, pkts[i], tp->completed_status);
		else if (status[i] == NDIS_STATUS_RESOURCES && serialized)
			busy[nbusy++] = pkts[i];
		else if (status[i] != NDIS_STATUS_PENDING)
			ndis_tx_done(ad, pkts[i], status[i]);
	}
	ndis_tx_hold(ad, busy, nbusy);
	ad->tx_resent += nbusy;
	return nbusy;
}

static void ndis_tx_work(struct work_struct *work)
{
	struct ndis_adapter *ad = container_of(work, struct ndis_adapter,
					       tx_work);
	struct ndis_packet *pkts[NDIS_TX_BATCH];
	struct ndis_packet *pkt;
	struct sk_buff *skb;
	int gen;
	u32 n, i;

	for (;;) {
		if (READ_ONCE(ad->resetting) || READ_ONCE(ad->tx_blocked))
			return;		/* the reset's end, or a kick, resumes */
		n = 0;
		while (n < NDIS_TX_BATCH && (pkt = ndis_tx_unhold(ad)))
			pkts[n++] = pkt;
		while (n < NDIS_TX_BATCH &&
		       (skb = skb_dequeue(&ad->tx_queue))) {
			pkt = ndis_wrap_skb(ad, skb);
			if (!pkt) {
				ad->net->stats.tx_dropped++;
				dev_kfree_skb_any(skb);
				continue;
			}
			pkts[n++] = pkt;
		}
		if (!n)
			return;
		for (i = 0; i < n; i++)
			ndis_oob(pkts[i])->status = NDIS_STATUS_PENDING;
		ndis_tx_fly(ad, pkts, n);
		gen = atomic_read(&ad->tx_done_gen);
		if (ndis_tx_batch(ad, pkts, n)) {
			WRITE_ONCE(ad->tx_blocked, true);
			smp_mb();	/* blocked seen, or our read sees the gen */
			/* a completion between the send and now kicked no one */
			if (atomic_read(&ad->tx_done_gen) == gen) {
				if (!READ_ONCE(ad->net_gone))
					queue_delayed_work(ndis_wq,
							   &ad->tx_retry,
							   NDIS_TX_RETRY);
				return;
			}
			WRITE_ONCE(ad->tx_blocked, false);
		}
		/*
		 * A stream refills the queue as fast as sends complete: on a
		 * kernel without preemption this loop would keep the CPU
		 * from the interrupt thread whose DPC drains the RX ring.
		 */
		cond_resched();
	}
}

/* NDIS_TX_RETRY after a RESOURCES answer nothing has kicked: kick. */
static void ndis_tx_retry(struct work_struct *work)
{
	struct ndis_adapter *ad = container_of(to_delayed_work(work),
					       struct ndis_adapter, tx_retry);

	if (READ_ONCE(ad->net_gone) || !READ_ONCE(ad->tx_blocked))
		return;
	ad->tx_retried++;
	ndis_tx_kick(ad);
}

/*
 * The transmit watchdog. NDIS resets a miniport whose CheckForHang says
 * hung, and also one it finds unresponsive, holding sends it gave it
 * longer than its timeout; the net device's ndo_tx_timeout (a queue
 * stopped longer than watchdog_timeo) is Linux's word for the same. Every
 * NDIS_TX_WATCH the oldest send the driver holds is looked at: pending
 * NDIS_TX_TIMEOUT with the carrier on (a radio without a link may hold
 * frames) and as long since the last such reset, or ndo_tx_timeout
 * called, the miniport is reset (ndis_reset: sends and requests wait;
 * afterwards the held sends go again). A driver's own MiniportReset
 * completes what it held; one that does not is reset again, at most once
 * per NDIS_TX_TIMEOUT.
 */
#define NDIS_TX_TIMEOUT	(5 * HZ)
#define NDIS_TX_WATCH	HZ

static void ndis_tx_watch(struct work_struct *work)
{
	struct ndis_adapter *ad = container_of(to_delayed_work(work),
					       struct ndis_adapter, tx_watch);
	unsigned long flags, oldest = 0, now = jiffies;
	bool any, stale, due;

	if (!netif_carrier_ok(ad->net))
		ad->tx_reset_at = now;	/* the clock starts with the link */
	spin_lock_irqsave(&ad->tx_flight_lock, flags);
	any = !list_empty(&ad->tx_flight);
	if (any)
		oldest = list_first_entry(&ad->tx_flight,
					  struct ndis_tx_packet,
					  flight)->sent_at;
	spin_unlock_irqrestore(&ad->tx_flight_lock, flags);
	stale = any && time_after(now, oldest + NDIS_TX_TIMEOUT) &&
		time_after(now, ad->tx_reset_at + NDIS_TX_TIMEOUT);
	due = xchg(&ad->tx_timeout_due, false);
	if (stale || due) {
		ad->tx_reset_at = now;
		if (stale)
			netdev_warn(ad->net, "transmit timeout: a send pending for %u ms\n",
				    jiffies_to_msecs(now - oldest));
		else
			netdev_warn(ad->net, "transmit timeout: the queue stopped for %u ms\n",
				    jiffies_to_msecs(ad->net->watchdog_timeo));
		if (ad->driver->chars.reset)
			ndis_reset(ad, "the transmit watchdog");
		else
			netdev_warn(ad->net, "transmit timeout: the driver has no MiniportReset\n");
	}
	if (READ_ONCE(ad->tx_watch_on))
		queue_delayed_work(ndis_work_wq, &ad->tx_watch, NDIS_TX_WATCH);
}

/* The watch resets within NDIS_TX_WATCH (the kernel's watchdog timer
 * cannot wait for MiniportReset). */
static void ndis_tx_timeout(struct net_device *net, unsigned int txqueue)
{
	struct ndis_adapter *ad = *(struct ndis_adapter **)netdev_priv(net);

	WRITE_ONCE(ad->tx_timeout_due, true);
}

/* Unregistering: what a serialized miniport never took is failed. */
static void ndis_tx_drop_held(struct ndis_adapter *ad)
{
	struct ndis_packet *pkt;

	while ((pkt = ndis_tx_unhold(ad)))
		ndis_tx_done(ad, pkt, NDIS_STATUS_FAILURE);
}

static netdev_tx_t ndis_start_xmit(struct sk_buff *skb,
				   struct net_device *net)
{
	struct ndis_adapter *ad = *(struct ndis_adapter **)netdev_priv(net);

	skb_queue_tail(&ad->tx_queue, skb);
	if (skb_queue_len(&ad->tx_queue) >= NDIS_TX_QUEUE_MAX)
		netif_stop_queue(net);
	queue_work(ndis_wq, &ad->tx_work);
	return NETDEV_TX_OK;
}

/* A miniport indicates nothing until a packet filter is set. */
static int ndis_set_filter(struct ndis_adapter *ad, bool up)
{
	struct net_device *net = ad->net;
	__le32 filter = 0;
	u32 f = 0;

	if (up) {
		f = NDIS_PACKET_TYPE_DIRECTED | NDIS_PACKET_TYPE_BROADCAST |
		    NDIS_PACKET_TYPE_MULTICAST;
		if (net->flags & IFF_PROMISC)
			f |= NDIS_PACKET_TYPE_PROMISCUOUS;
		if ((net->flags & IFF_ALLMULTI) || !netdev_mc_empty(net))
			f |= NDIS_PACKET_TYPE_ALL_MULTICAST;
	}
	filter = cpu_to_le32(f);
	return ndis_set_oid(ad, OID_GEN_CURRENT_PACKET_FILTER, &filter,
			    sizeof(filter));
}

/* ndo_set_rx_mode runs atomic; the OID request needs process context. */
static void ndis_rx_mode_work(struct work_struct *work)
{
	struct ndis_adapter *ad = container_of(work, struct ndis_adapter,
					       rx_mode_work);

	if (netif_running(ad->net))
		ndis_set_filter(ad, true);
}

static void ndis_set_rx_mode(struct net_device *net)
{
	struct ndis_adapter *ad = *(struct ndis_adapter **)netdev_priv(net);

	queue_work(ndis_wq, &ad->rx_mode_work);
}

static int ndis_open(struct net_device *net)
{
	struct ndis_adapter *ad = *(struct ndis_adapter **)netdev_priv(net);
	int err;

	err = ndis_set_filter(ad, true);
	if (err) {
		netdev_err(net, "the driver refused the packet filter\n");
		return err;
	}
	netif_start_queue(net);
	ndis_wireless_open(ad);
	return 0;
}

static int ndis_stop(struct net_device *net)
{
	struct ndis_adapter *ad = *(struct ndis_adapter **)netdev_priv(net);

	netif_stop_queue(net);
	ndis_wireless_stop(ad);
	cancel_work_sync(&ad->rx_mode_work);
	ndis_set_filter(ad, false);
	return 0;
}

static const struct net_device_ops ndis_netdev_ops = {
	.ndo_open		= ndis_open,
	.ndo_stop		= ndis_stop,
	.ndo_start_xmit		= ndis_start_xmit,
	.ndo_tx_timeout		= ndis_tx_timeout,
	.ndo_set_rx_mode	= ndis_set_rx_mode,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

static void ndis_get_drvinfo(struct net_device *net,
			     struct ethtool_drvinfo *info)
{
	struct ndis_adapter *ad = *(struct ndis_adapter **)netdev_priv(net);

	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	strscpy(info->version, THIS_MODULE->version, sizeof(info->version));
	strscpy(info->fw_version, ad->driver->sys_name,
		sizeof(info->fw_version));
	strscpy(info->bus_info, dev_name(ad->dev), sizeof(info->bus_info));
}

static const struct ethtool_ops ndis_ethtool_ops = {
	.get_drvinfo	= ndis_get_drvinfo,
	.get_link	= ethtool_op_get_link,
};

/* -- /sys/class/net/<if>/ndis: what the driver reports -------------------- */

#define OID_802_11_BSSID	0x0D010101

static struct ndis_adapter *ndis_dev_adapter(struct device *dev)
{
	return *(struct ndis_adapter **)netdev_priv(to_net_dev(dev));
}

static ssize_t bssid_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	u8 bssid[ETH_ALEN];
	u32 written;

	if (ndis_query_oid(ndis_dev_adapter(dev), OID_802_11_BSSID, bssid,
			   sizeof(bssid), &written) || written != ETH_ALEN)
		return -ENOTCONN;
	return sysfs_emit(buf, "%pM\n", bssid);
}
static DEVICE_ATTR_RO(bssid);

static ssize_t ssid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return ndis_ssid_show(ndis_dev_adapter(dev), ndis_query_oid, buf);
}
static DEVICE_ATTR_RO(ssid);

static struct attribute *ndis_attrs[] = {
	&dev_attr_bssid.attr,
	&dev_attr_ssid.attr,
	NULL
};

static const struct attribute_group ndis_attr_group = {
	.name	= "ndis",
	.attrs	= ndis_attrs,
};

/* -- miniport block handlers (called by Windows code) ---------------------- */

/*
 * A serialized miniport that completes a packet while its SendPackets
 * still runs (the wrapper reads the statuses after it returns): noted in
 * the packet, finished there. Nothing else can call in meanwhile: the
 * serial lock keeps its DPCs and timers out.
 */
static WIN_ABI void ndis_send_complete(void *handle, struct ndis_packet *pkt,
				       ndis_status status)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);

	if (ad->in_send) {
		struct ndis_tx_packet *tp = container_of(pkt,
							 struct ndis_tx_packet,
							 pkt);

		tp->completed = true;
		tp->completed_status = status;
		return;
	}
	ndis_tx_done(ad, pkt, status);
}

static WIN_ABI void ndis_send_resources(void *handle)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);

	ndis_tx_kick(ad);
	if (!READ_ONCE(ad->net_gone))
		netif_wake_queue(ad->net);
}

/* Gives the received packets back; return_lock held, dropped. */
static void ndis_return_unlock(struct ndis_adapter *ad)
{
	struct ndis_packet *pkt = NULL;

	if (!ad->returns_off) {		/* halting: the driver frees them */
		pkt = ad->return_list;
		ad->return_list = NULL;
	}
	if (pkt)
		ad->returning++;
	spin_unlock_bh(&ad->return_lock);
	if (!pkt)
		return;
	while (pkt) {
		struct ndis_packet *next = *ndis_next_return(pkt);

		ndis_serialize(ad);
		DPC2WIN2(ad->driver->chars.return_packet, ad->ctx, pkt);
		ndis_unserialize(ad);
		pkt = next;
	}
	spin_lock_bh(&ad->return_lock);
	ad->returning--;
	spin_unlock_bh(&ad->return_lock);
}

static void ndis_return_work(struct work_struct *work)
{
	struct ndis_adapter *ad = container_of(work, struct ndis_adapter,
					       return_work);

	spin_lock_bh(&ad->return_lock);
	ndis_return_unlock(ad);
}

/*
 * Around a DPC (ndis_hw.c): the packets it indicates are given back when
 * it has returned, in its thread, instead of by return_work (a second
 * thread wakeup per interrupt). Never inside the indication: the driver
 * is not re-entered from its own NdisMIndicateReceivePacket.
 */
void ndis_rx_returns_hold(struct ndis_adapter *ad)
{
	spin_lock_bh(&ad->return_lock);
	ad->returns_held++;
	spin_unlock_bh(&ad->return_lock);
}

void ndis_rx_returns_release(struct ndis_adapter *ad)
{
	spin_lock_bh(&ad->return_lock);
	if (--ad->returns_held) {
		spin_unlock_bh(&ad->return_lock);
		return;
	}
	ndis_return_unlock(ad);
}

/* An skb received (len bytes from the Ethernet header on) goes up. */
static void ndis_rx_deliver(struct ndis_adapter *ad, struct sk_buff *skb)
{
	struct net_device *net = ad->net;
	u32 len = skb->len;

	skb->protocol = eth_type_trans(skb, net);
	/*
	 * Not before the net device is registered, nor once it is being
	 * unregistered: rx_on goes off under rx_lock before
	 * unregister_netdev(), which then flushes the backlog, so no skb
	 * outlives the device. (Not RCU: rcu_read_lock() is a GPL-only
	 * call on preemptible-RCU kernels and the import list would differ
	 * between kernels.)
	 */
	spin_lock_bh(&ad->rx_lock);
	if (ad->rx_on) {
		net->stats.rx_packets++;
		net->stats.rx_bytes += len;
		netif_rx(skb);
	} else {
		dev_kfree_skb_any(skb);
	}
	spin_unlock_bh(&ad->rx_lock);
}

static bool ndis_rx_len_ok(struct net_device *net, u32 len)
{
	if (len >= ETH_HLEN && len <= net->mtu + ETH_HLEN + 64)
		return true;
	net->stats.rx_length_errors++;
	return false;
}

static void ndis_rx_one(struct ndis_adapter *ad, struct ndis_packet *pkt)
{
	struct net_device *net = ad->net;
	struct win_mdl *mdl;
	struct sk_buff *skb;
	u32 len = 0;

	for (mdl = pkt->head; mdl; mdl = mdl->next)
		len += mdl->byte_count;
	if (!ndis_rx_len_ok(net, len))
		return;
	skb = netdev_alloc_skb(net, len + NET_IP_ALIGN);
	if (!skb) {
		net->stats.rx_dropped++;
		return;
	}
	skb_reserve(skb, NET_IP_ALIGN);
	for (mdl = pkt->head; mdl; mdl = mdl->next)
		skb_put_data(skb, (u8 *)mdl->start_va + mdl->byte_offset,
			     mdl->byte_count);
	ndis_rx_deliver(ad, skb);
}

/*
 * The Ethernet receive path of the miniport block, behind the DDK macros
 * NdisMEthIndicateReceive(h, ctx, hdr, hlen, la, lalen, size) ->
 * EthRxIndicateHandler(EthDB, ctx, hdr, hdr, hlen, la, lalen, size) and
 * NdisMEthIndicateReceiveComplete(h) -> EthRxCompleteHandler(EthDB).
 * EthDB (the filter database, opaque to the driver) is the block itself.
 * The header and the lookahead are copied during the call, as a protocol
 * must; size counts the bytes after the header. When the lookahead holds
 * less than that, the rest comes from MiniportTransferData into a packet
 * over the tail of the skb, synchronously or later through
 * TDCompleteHandler (NdisMTransferDataComplete).
 */
struct ndis_td_packet {
	struct ndis_packet pkt;
	struct ndis_packet_oob oob;
	struct ndis_packet_ext ext;
	struct win_mdl mdl;
	struct sk_buff *skb;
	u32 want;			/* bytes MiniportTransferData owes */
};

static void ndis_td_done(struct ndis_adapter *ad, struct ndis_packet *pkt,
			 ndis_status status, u32 copied)
{
	struct ndis_td_packet *tp = container_of(pkt, struct ndis_td_packet,
						 pkt);

	if (status == NDIS_STATUS_SUCCESS && copied == tp->want) {
		ndis_rx_deliver(ad, tp->skb);
	} else {
		ad->net->stats.rx_errors++;
		dev_kfree_skb_any(tp->skb);
	}
	kfree(tp);
}

static WIN_ABI void ndis_eth_rx_indicate(void *eth_db, void *rx_ctx,
					 u8 *addr, u8 *hdr, u32 hlen,
					 u8 *la, u32 lalen, u32 size)
{
	struct ndis_adapter *ad = ndis_handle_adapter(eth_db);
	struct net_device *net = ad->net;
	struct ndis_td_packet *tp;
	struct sk_buff *skb;
	ndis_status status;
	u32 copied = 0;

	if (READ_ONCE(ad->net_gone))
		return;
	if (hlen != ETH_HLEN || !ndis_rx_len_ok(net, hlen + size))
		return;
	if (lalen > size)
		lalen = size;
	skb = netdev_alloc_skb(net, hlen + size + NET_IP_ALIGN);
	if (!skb) {
		net->stats.rx_dropped++;
		return;
	}
	skb_reserve(skb, NET_IP_ALIGN);
	skb_put_data(skb, hdr, hlen);
	skb_put_data(skb, la, lalen);
	if (lalen == size) {
		ndis_rx_deliver(ad, skb);
		return;
	}
	tp = kzalloc(sizeof(*tp), GFP_ATOMIC);
	if (!tp || !ad->driver->chars.transfer_data) {
		kfree(tp);
		net->stats.rx_dropped++;
		dev_kfree_skb_any(skb);
		return;
	}
	tp->skb = skb;
	tp->want = size - lalen;
	tp->pkt.physical_count = ndis_mdl_init(&tp->mdl,
					       skb_put(skb, tp->want),
					       tp->want);
	tp->pkt.head = &tp->mdl;
	tp->pkt.tail = &tp->mdl;
	tp->pkt.count = 1;
	tp->pkt.total_length = tp->want;
	tp->pkt.valid_counts = 1;
	tp->pkt.oob_offset = offsetof(struct ndis_td_packet, oob);
	/* MiniportTransferData(Packet, BytesTransferred, Context,
	 *                      ReceiveContext, ByteOffset, BytesToTransfer);
	 * ByteOffset counts from after the header */
	status = LIN2WIN6(ad->driver->chars.transfer_data, &tp->pkt, &copied,
			  ad->ctx, rx_ctx, lalen, tp->want);
	if (status != NDIS_STATUS_PENDING)
		ndis_td_done(ad, &tp->pkt, status, copied);
}

/* Nothing batched here: each frame went to netif_rx() already. */
static WIN_ABI void ndis_eth_rx_complete(void *eth_db)
{
}

static WIN_ABI void ndis_td_complete(void *handle, struct ndis_packet *pkt,
				     ndis_status status, u32 copied)
{
	ndis_td_done(ndis_handle_adapter(handle), pkt, status, copied);
}

static WIN_ABI void ndis_indicate_packets(void *handle,
					  struct ndis_packet **pkts, u32 n)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	bool queued = false;
	u32 i;

	for (i = 0; i < n; i++) {
		struct ndis_packet *pkt = pkts[i];

		ndis_rx_one(ad, pkt);
		if (ndis_oob(pkt)->status == NDIS_STATUS_RESOURCES ||
		    !ad->driver->chars.return_packet)
			continue;	/* the driver takes it back itself */
		ndis_oob(pkt)->status = NDIS_STATUS_PENDING;
		spin_lock_bh(&ad->return_lock);
		*ndis_next_return(pkt) = ad->return_list;
		ad->return_list = pkt;
		/* a DPC that holds the returns gives them back after it */
		if (!ad->returns_held)
			queued = true;
		spin_unlock_bh(&ad->return_lock);
	}
	if (queued)
		queue_work(ndis_wq, &ad->return_work);
}

static WIN_ABI void ndis_indicate_status(void *handle, ndis_status status,
					 void *buf, u32 len)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);

	/* A carrier event would hold the device past free_netdev(). */
	if (READ_ONCE(ad->net_gone))
		return;
	switch ((u32)status) {
	case NDIS_STATUS_MEDIA_CONNECT:
		netif_carrier_on(ad->net);
		break;
	case NDIS_STATUS_MEDIA_DISCONNECT:
		netif_carrier_off(ad->net);
		break;
	case NDIS_STATUS_RESET_START:	/* the miniport resets itself */
		netif_stop_queue(ad->net);
		break;
	case NDIS_STATUS_RESET_END:
		netif_wake_queue(ad->net);
		break;
	case NDIS_STATUS_MEDIA_SPECIFIC_INDICATION:	/* 802.11: below */
	case NDIS_STATUS_LINK_SPEED_CHANGE:	/* ethtool asks anyway */
		break;
	default:
		/*
		 * Any other code (WAN, token ring, power, vendor ones) is
		 * taken and ignored, as by a protocol that does not bind to
		 * it; said once per adapter so that it is not silent.
		 */
		if (!xchg(&ad->status_unknown_said, true))
			netdev_info(ad->net, "status %#x (%u bytes) ignored; further unknown ones too\n",
				    status, len);
		break;
	}
	ndis_wireless_status(ad, status, buf, len);
}

static WIN_ABI void ndis_status_complete(void *handle)
{
}

static WIN_ABI void ndis_reset_complete(void *handle, ndis_status status,
					u8 addressing_reset)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);

	if (!READ_ONCE(ad->resetting)) {
		pr_err_ratelimited("%s: NdisMResetComplete, but no reset is in progress\n",
				   ad->driver->name);
		return;
	}
	ad->reset_status = status;
	ad->reset_addressing = addressing_reset;
	complete(&ad->reset_done);
}

/* After a reset that lost the addressing: the filter the stack wants. */
int ndis_restore_filter(struct ndis_adapter *ad)
{
	return ndis_set_filter(ad, netif_running(ad->net));
}

/* -- OID requests ---------------------------------------------------------- */

/*
 * One query or set at a time (oid_lock), as NDIS sends them. The driver
 * gets a buffer and BytesWritten/BytesNeeded words of the request's own,
 * not the caller's: a driver that returns NDIS_STATUS_PENDING writes them
 * later, from a work item or a DPC, and then calls
 * NdisMQueryInformationComplete / NdisMSetInformationComplete (the
 * block's QueryCompleteHandler / SetCompleteHandler), which wakes the
 * waiter. Two references: the caller's, and the pending slot's, which the
 * completion drops. A request the driver does not complete within
 * NDIS_REQUEST_TIMEOUT fails with -ETIMEDOUT, but its memory stays the
 * driver's until it completes or the adapter is gone; until then the
 * next request is refused with -EBUSY (NDIS too sends no second one).
 */
#define NDIS_REQUEST_TIMEOUT	(10 * HZ)

struct ndis_request {
	refcount_t ref;
	struct completion done;
	ndis_status status;
	u32 oid;
	u32 written;			/* BytesWritten / BytesRead */
	u32 needed;
	u32 len;
	u8 buf[];			/* InformationBuffer */
};

static void ndis_request_put(struct ndis_request *r)
{
	if (refcount_dec_and_test(&r->ref))
		kfree(r);
}

static WIN_ABI void ndis_request_complete(void *handle, ndis_status status)
{
	struct ndis_adapter *ad = ndis_handle_adapter(handle);
	struct ndis_request *r;

	spin_lock_bh(&ad->req_lock);
	r = ad->req_pending;
	ad->req_pending = NULL;
	spin_unlock_bh(&ad->req_lock);
	if (!r) {
		pr_err_ratelimited("%s: request completed, but none is pending\n",
				   ad->driver->name);
		return;
	}
	r->status = status;
	complete(&r->done);
	ndis_request_put(r);
}

/* Drops the slot's reference unless the driver's completion took it. */
static void ndis_request_unpend(struct ndis_adapter *ad,
				struct ndis_request *r)
{
	bool ours;

	spin_lock_bh(&ad->req_lock);
	ours = ad->req_pending == r;
	if (ours)
		ad->req_pending = NULL;
	spin_unlock_bh(&ad->req_lock);
	if (ours)
		ndis_request_put(r);
}

/* 0, -EIO (the driver's status), -ETIMEDOUT, -EBUSY or -ENOMEM. */
static int ndis_request(struct ndis_adapter *ad, bool query, u32 oid,
			void *buf, u32 len, u32 *written)
{
	struct ndis_miniport_chars *c = &ad->driver->chars;
	struct ndis_request *r;
	ndis_status status;
	u32 busy_oid = 0;
	int err = 0;

	r = kzalloc(struct_size(r, buf, len), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	refcount_set(&r->ref, 2);
	init_completion(&r->done);
	r->oid = oid;
	r->len = len;
	/* a query's buffer may carry input too (OID_TCP_TASK_OFFLOAD's header) */
	memcpy(r->buf, buf, len);

	mutex_lock(&ad->oid_lock);
	spin_lock_bh(&ad->req_lock);
	if (ad->req_pending) {
		busy_oid = ad->req_pending->oid;
		err = -EBUSY;
	} else {
		ad->req_pending = r;
	}
	spin_unlock_bh(&ad->req_lock);
	if (err) {
		pr_err_ratelimited("%s: OID %#x refused: OID %#x is still pending in the driver\n",
				   ad->driver->name, oid, busy_oid);
		mutex_unlock(&ad->oid_lock);
		kfree(r);
		return err;
	}
	/* a serialized miniport's requests run at DISPATCH_LEVEL, locked */
	ndis_serialize(ad);
	status = win_callv_at(ndis_serialized(ad) ? WIN_DISPATCH_LEVEL :
			      WIN_PASSIVE_LEVEL,
			      query ? c->query_info : c->set_info, 6,
			      (u64 [6]){ WARG(ad->ctx), WARG(oid),
					 WARG(r->buf), WARG(len),
					 WARG(&r->written), WARG(&r->needed) });
	ndis_unserialize(ad);
	if (status != NDIS_STATUS_PENDING) {
		ndis_request_unpend(ad, r);
	} else if (!wait_for_completion_timeout(&r->done,
						NDIS_REQUEST_TIMEOUT)) {
		pr_err("%s: OID %#x pending for %u s: given up (its buffer stays the driver's until it completes)\n",
		       ad->driver->name, oid, NDIS_REQUEST_TIMEOUT / HZ);
		err = -ETIMEDOUT;
	} else {
		status = r->status;
	}
	mutex_unlock(&ad->oid_lock);

	if (!err && status != NDIS_STATUS_SUCCESS)
		err = -EIO;
	if (!err && query) {
		*written = min(r->written, len);
		memcpy(buf, r->buf, *written);
	}
	ndis_request_put(r);
	return err;
}

int ndis_query_oid(struct ndis_adapter *ad, u32 oid, void *buf, u32 len,
		   u32 *written)
{
	*written = 0;
	return ndis_request(ad, true, oid, buf, len, written);
}

int ndis_set_oid(struct ndis_adapter *ad, u32 oid, void *buf, u32 len)
{
	return ndis_request(ad, false, oid, buf, len, NULL);
}

/* After MiniportHalt: a request the driver never completed is freed. */
static void ndis_request_abandon(struct ndis_adapter *ad)
{
	struct ndis_request *r;

	spin_lock_bh(&ad->req_lock);
	r = ad->req_pending;
	ad->req_pending = NULL;
	spin_unlock_bh(&ad->req_lock);
	if (r)
		ndis_request_put(r);
}

/* Before MiniportInitialize: the handlers the DDK macros call through. */
void ndis_init_block(struct ndis_adapter *ad)
{
	struct ndis_miniport_block *b = &ad->block;

	b->eth_db = b;
	b->eth_rx_indicate = ndis_eth_rx_indicate;
	b->eth_rx_complete = ndis_eth_rx_complete;
	b->td_complete = ndis_td_complete;
	b->packet_indicate = ndis_indicate_packets;
	b->send_complete = ndis_send_complete;
	b->send_resources = ndis_send_resources;
	b->reset_complete = ndis_reset_complete;
	b->media_type = NDIS_MEDIUM_802_3;
	b->status = ndis_indicate_status;
	b->status_complete = ndis_status_complete;
	b->query_complete = ndis_request_complete;
	b->set_complete = ndis_request_complete;
	skb_queue_head_init(&ad->tx_queue);
	INIT_WORK(&ad->tx_work, ndis_tx_work);
	spin_lock_init(&ad->return_lock);
	spin_lock_init(&ad->rx_lock);
	INIT_WORK(&ad->return_work, ndis_return_work);
	INIT_WORK(&ad->rx_mode_work, ndis_rx_mode_work);
	mutex_init(&ad->oid_lock);
	spin_lock_init(&ad->req_lock);
	spin_lock_init(&ad->serial_lock);
	atomic_set(&ad->tx_done_gen, 0);
	INIT_DELAYED_WORK(&ad->tx_retry, ndis_tx_retry);
	spin_lock_init(&ad->tx_flight_lock);
	INIT_LIST_HEAD(&ad->tx_flight);
	INIT_DELAYED_WORK(&ad->tx_watch, ndis_tx_watch);
	init_completion(&ad->reset_done);
}

/* The net device exists before MiniportInitialize: indications need it. */
int ndis_netdev_alloc(struct ndis_adapter *ad)
{
	struct net_device *net;
	int err;

	net = alloc_netdev(sizeof(ad), "wlan%d", NET_NAME_ENUM, ether_setup);
	if (!net)
		return -ENOMEM;
	*(struct ndis_adapter **)netdev_priv(net) = ad;
	net->netdev_ops = &ndis_netdev_ops;
	net->ethtool_ops = &ndis_ethtool_ops;
	/* ndis_wrap_skb: fragments become MDLs, checksums are done there */
	net->hw_features = NETIF_F_SG | NETIF_F_HW_CSUM;
	net->features = net->hw_features;
	net->watchdog_timeo = NDIS_TX_TIMEOUT;
	net->sysfs_groups[0] = &ndis_attr_group;
	SET_NETDEV_DEV(net, ad->dev);
	netif_carrier_off(net);
	ad->net = net;
	err = ndis_wireless_alloc(ad);
	if (err) {
		ad->net = NULL;
		free_netdev(net);
	}
	return err;
}

/*
 * After MiniportInitialize: a driver that does not say its medium is a
 * wireless LAN (OID_GEN_PHYSICAL_MEDIUM, which wired NDIS 5 drivers mostly
 * do not answer) drives an Ethernet NIC: eth%d, no wiphy, and the
 * carrier from OID_GEN_MEDIA_CONNECT_STATUS, as NDIS asks a new miniport.
 */
static void ndis_netdev_medium(struct ndis_adapter *ad)
{
	u32 medium = 0, state = 0, written;

	if (ndis_query_oid(ad, OID_GEN_PHYSICAL_MEDIUM, &medium,
			   sizeof(medium), &written) || written != sizeof(medium) ||
	    medium != NDIS_PHYSICAL_MEDIUM_WIRELESS_LAN) {
		ndis_wireless_free(ad);
		strscpy(ad->net->name, "eth%d", sizeof(ad->net->name));
	}
	if (!ndis_query_oid(ad, OID_GEN_MEDIA_CONNECT_STATUS, &state,
			    sizeof(state), &written) && written == sizeof(state) &&
	    state == NDIS_MEDIA_STATE_CONNECTED)
		netif_carrier_on(ad->net);
}

int ndis_netdev_register(struct ndis_adapter *ad)
{
	u8 mac[ETH_ALEN];
	u32 written;
	int err;

	err = ndis_query_oid(ad, OID_802_3_CURRENT_ADDRESS, mac, sizeof(mac),
			     &written);
	if (err || written != ETH_ALEN || !is_valid_ether_addr(mac)) {
		pr_err("%s: no valid MAC address from the driver\n",
		       ad->driver->name);
		return -EIO;
	}
	eth_hw_addr_set(ad->net, mac);
	ndis_netdev_medium(ad);
	ndis_offload_setup(ad);
	err = ndis_wireless_register(ad);
	if (err)
		return err;
	err = register_netdev(ad->net);
	if (err) {
		ndis_wireless_unregister(ad);
		return err;
	}
	spin_lock_bh(&ad->rx_lock);
	ad->rx_on = true;
	spin_unlock_bh(&ad->rx_lock);
	ad->tx_reset_at = jiffies;
	WRITE_ONCE(ad->tx_watch_on, true);
	queue_delayed_work(ndis_work_wq, &ad->tx_watch, NDIS_TX_WATCH);
	netdev_info(ad->net, "%s on %s, MAC %pM\n", ad->driver->sys_name,
		    dev_name(ad->dev), mac);
	return 0;
}

/* Before MiniportHalt: no more sends, and none left in flight here. */
void ndis_netdev_unregister(struct ndis_adapter *ad)
{
	WRITE_ONCE(ad->tx_watch_on, false);
	cancel_delayed_work_sync(&ad->tx_watch);
	WRITE_ONCE(ad->net_gone, true);
	spin_lock_bh(&ad->rx_lock);
	ad->rx_on = false;
	spin_unlock_bh(&ad->rx_lock);
	ndis_wireless_quiesce(ad);
	unregister_netdev(ad->net);
	ndis_wireless_unregister(ad);
	/* net_gone: neither re-arms the other any more */
	cancel_delayed_work_sync(&ad->tx_retry);
	cancel_work_sync(&ad->tx_work);
	cancel_delayed_work_sync(&ad->tx_retry);
	ndis_tx_drop_held(ad);
	skb_queue_purge(&ad->tx_queue);
	if (ad->tx_resent)
		pr_info("%s: %lu sends the serialized miniport answered NDIS_STATUS_RESOURCES were queued again\n",
			ad->driver->name, ad->tx_resent);
	if (ad->tx_retried)
		pr_info("%s: %lu times the held sends went again on the retry timer (no completion, no NdisMSendResourcesAvailable)\n",
			ad->driver->name, ad->tx_retried);
}

/*
 * Right before MiniportHalt (give_back): the packets the stack still owes
 * the driver go back now, as NDIS returns them all before it halts a
 * miniport; any indicated later are not returned, so that no
 * MiniportReturnPacket runs beside or after Halt. After a failed
 * MiniportInitialize nothing goes back.
 */
void ndis_netdev_quiesce(struct ndis_adapter *ad, bool give_back)
{
	WRITE_ONCE(ad->net_gone, true);
	spin_lock_bh(&ad->rx_lock);
	ad->rx_on = false;
	spin_unlock_bh(&ad->rx_lock);
	if (give_back)
		flush_work(&ad->return_work);
	spin_lock_bh(&ad->return_lock);
	ad->returns_off = true;
	spin_unlock_bh(&ad->return_lock);
	flush_work(&ad->return_work);
	/* a DPC's give-back that started before returns_off */
	while (READ_ONCE(ad->returning))
		msleep(1);
}

/* After MiniportHalt. */
void ndis_netdev_free(struct ndis_adapter *ad)
{
	cancel_work_sync(&ad->return_work);
	ndis_request_abandon(ad);
	ndis_wireless_free(ad);
	free_netdev(ad->net);
}
