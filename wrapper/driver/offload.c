// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: checksum offload, as NDIS 5.1 negotiates it.
 *
 * A protocol asks a miniport what it can do with OID_TCP_TASK_OFFLOAD
 * (the buffers: ndis_offload.h), then sets the same OID with the tasks it
 * will use, and from then on asks per packet, in the packet's
 * TcpIpChecksumPacketInfo, for the checksums the miniport is to fill in.
 * A miniport that was never set gets no such request.
 *
 * The wrapper uses the IPv4 transmit checksums of TCP and UDP (Linux
 * computes the IP header's itself) when the miniport offers both, with
 * IP and TCP options as it says it can. Everything else it still
 * computes in software before the send (netdev.c), so the net device's
 * NETIF_F_HW_CSUM holds with or without the miniport.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_ether.h>
#include <linux/slab.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>

#include "ndis.h"
#include "ndis_offload.h"

/*
 * After MiniportInitialize, before the net device is registered: ask,
 * and set what the wrapper uses. A miniport that does not answer (most
 * do not) or refuses the set keeps ad->csum_tx 0: no per-packet request.
 */
#define NDIS_OFFLOAD_BUF	512	/* room for the answer's task chain */

void ndis_offload_setup(struct ndis_adapter *ad)
{
	struct {
		struct ndis_task_offload_header h;
		struct ndis_task_offload t;
		struct ndis_task_checksum c;
	} __packed set = {};
	u8 *buf;
	u32 written, offered, want;

	static_assert(sizeof(set) == sizeof(set.h) + 20 + sizeof(set.c));

	ad->csum_tx = 0;
	buf = kzalloc(NDIS_OFFLOAD_BUF, GFP_KERNEL);
	if (!buf)
		return;
	ndis_offload_header((void *)buf, ETH_HLEN);
	if (ndis_query_oid(ad, OID_TCP_TASK_OFFLOAD, buf, NDIS_OFFLOAD_BUF,
			   &written) ||
	    written < sizeof(struct ndis_task_offload_header)) {
		kfree(buf);
		return;
	}
	offered = ndis_offload_offered(buf, written);
	kfree(buf);
	if (!(offered & NDIS_V4TX_TCP) || !(offered & NDIS_V4TX_UDP))
		return;
	want = offered & (NDIS_V4TX_TCP | NDIS_V4TX_UDP |
			  NDIS_V4TX_IP_OPTIONS | NDIS_V4TX_TCP_OPTIONS);
	ndis_offload_header(&set.h, ETH_HLEN);
	set.h.offset_first_task = sizeof(set.h);
	set.t.version = NDIS_TASK_OFFLOAD_VERSION;
	set.t.size = NDIS_TASK_OFFLOAD_SIZE;
	set.t.task = NDIS_TASK_TCPIP_CHECKSUM;
	set.t.task_buffer_length = sizeof(set.c);
	set.c.v4_transmit = want;
	if (ndis_set_oid(ad, OID_TCP_TASK_OFFLOAD, &set, sizeof(set))) {
		pr_info("%s: the driver offers checksum offload but refused it\n",
			ad->driver->name);
		return;
	}
	ad->csum_tx = want;
	pr_info("%s: IPv4 transmit checksum offload set (TCP, UDP%s%s)\n",
		ad->driver->name,
		want & NDIS_V4TX_IP_OPTIONS ? ", IP options" : "",
		want & NDIS_V4TX_TCP_OPTIONS ? ", TCP options" : "");
}

/*
 * A CHECKSUM_PARTIAL skb's TcpIpChecksumPacketInfo: the miniport's IPv4
 * TCP or UDP checksum when it was set for it (options included), else 0
 * and the caller computes it. The stack left the pseudo header's sum in
 * the checksum field, as NDIS protocols do for an offloaded checksum.
 */
u32 ndis_offload_info(struct ndis_adapter *ad, struct sk_buff *skb)
{
	const struct iphdr *ip;
	u32 csum_off = skb_checksum_start_offset(skb);

	if (!ad->csum_tx || skb->protocol != htons(ETH_P_IP) ||
	    skb_network_offset(skb) != ETH_HLEN ||
	    csum_off != skb_transport_offset(skb))
		return 0;
	ip = ip_hdr(skb);
	if (ip->version != 4 ||
	    (ip->ihl > 5 && !(ad->csum_tx & NDIS_V4TX_IP_OPTIONS)))
		return 0;
	if (ip->protocol == IPPROTO_TCP &&
	    skb->csum_offset == offsetof(struct tcphdr, check)) {
		if (tcp_hdrlen(skb) > sizeof(struct tcphdr) &&
		    !(ad->csum_tx & NDIS_V4TX_TCP_OPTIONS))
			return 0;
		return NDIS_CSUM_V4 | NDIS_CSUM_TCP;
	}
	if (ip->protocol == IPPROTO_UDP &&
	    skb->csum_offset == offsetof(struct udphdr, check))
		return NDIS_CSUM_V4 | NDIS_CSUM_UDP;
	return 0;
}
