/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: what /sys/class/net/<if>/ndis/ssid shows of the driver's
 * reply, as a function of the OID query (netdev.c passes ndis_query_oid;
 * tests/unit/c tests it on the host through tests/unit/c/kmock with a
 * driver that lies).
 */

#ifndef NDIS_SYSFS_H
#define NDIS_SYSFS_H

#include <linux/errno.h>
#include <linux/sysfs.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#define OID_802_11_SSID		0x0D010102

struct ndis_adapter;

typedef int (*ndis_oid_query_t)(struct ndis_adapter *ad, u32 oid, void *buf,
				u32 len, u32 *written);

/* NDIS_802_11_SSID */
struct ndis_ssid_reply {
	__le32 len;
	u8 ssid[32];
};

/*
 * The SSID line of ad, or -ENOTCONN. The file is world-readable and the
 * stack below the reply is not ours to show: the reply is zeroed before
 * the query, and only what the driver says it wrote, 4 + SsidLength
 * bytes, is shown.
 */
static inline ssize_t ndis_ssid_show(struct ndis_adapter *ad,
				     ndis_oid_query_t query, char *buf)
{
	struct ndis_ssid_reply ssid = {};
	u32 written, len;

	if (query(ad, OID_802_11_SSID, &ssid, sizeof(ssid), &written) ||
	    written < sizeof(ssid.len))
		return -ENOTCONN;
	len = le32_to_cpu(ssid.len);
	if (len > sizeof(ssid.ssid) || written < sizeof(ssid.len) + len)
		return -ENOTCONN;
	return sysfs_emit(buf, "%.*s\n", (int)len, ssid.ssid);
}

#endif /* NDIS_SYSFS_H */
