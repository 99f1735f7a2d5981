/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the NDIS 5.1 802.11 OIDs and the structures they carry,
 * shared by the two wireless interfaces of an adapter: cfg80211
 * (wireless.c) and the wireless extensions (wext.c).
 */

#ifndef NDIS_80211_H
#define NDIS_80211_H

#include <linux/build_bug.h>
#include <linux/if_ether.h>
#include <linux/types.h>

#include "ndis.h"
#include "ndis_80211_keys.h"
#include "../parse/bssid.h"

#define OID_GEN_LINK_SPEED		0x00010107
#define OID_GEN_MEDIA_CONNECT_STATUS	0x00010114
#define OID_802_11_BSSID		0x0D010101
#define OID_802_11_SSID			0x0D010102
#define OID_802_11_INFRASTRUCTURE_MODE	0x0D010108
#define OID_802_11_DISASSOCIATE		0x0D010115
#define OID_802_11_BSSID_LIST_SCAN	0x0D01011A
#define OID_802_11_RSSI			0x0D010206
#define OID_802_11_CONFIGURATION	0x0D010211
#define OID_802_11_BSSID_LIST		0x0D010217

#define NDIS_MEDIA_STATE_CONNECTED	0
#define NDIS_802_11_INFRASTRUCTURE	1

/*
 * NDIS has no "scan done" indication: the list is read this long after
 * the scan request. Microsoft's guidance gives a driver a few seconds to
 * survey the channels; the fixtures need 14 x 110 ms (bcmwl) and
 * 14 x 150 ms (rtlwl).
 */
#define NDIS_SCAN_WAIT_MS		4000
/* Room for OID_802_11_ASSOCIATION_INFORMATION: two frames' IEs. */
#define NDIS_ASSOC_INFO_SIZE		1024
/* Room for OID_802_11_BSSID_LIST: dozens of BSSs with their IEs. */
#define NDIS_BSSID_LIST_SIZE		(64 * 1024)

/* The list's structures and its walk: ../parse/bssid.h */
static_assert(offsetof(struct ndis_bssid_ex, rssi) == 52);
static_assert(offsetof(struct ndis_bssid_ex, config) == 60);
static_assert(offsetof(struct ndis_bssid_ex, ie_length) == 112);
static_assert(offsetof(struct ndis_bssid_ex, ies) == 116);

/*
 * A station in an infrastructure network with the given authentication
 * mode and encryption status (ndis_80211_keys.h): what a join asks first.
 */
static inline int ndis_80211_infra(struct ndis_adapter *ad, u32 auth_mode,
				   u32 encryption)
{
	const u32 setup[][2] = {
		{ OID_802_11_INFRASTRUCTURE_MODE, NDIS_802_11_INFRASTRUCTURE },
		{ OID_802_11_AUTHENTICATION_MODE, auth_mode },
		{ OID_802_11_ENCRYPTION_STATUS, encryption },
	};
	int i, err;

	for (i = 0; i < ARRAY_SIZE(setup); i++) {
		__le32 v = cpu_to_le32(setup[i][1]);

		err = ndis_set_oid(ad, setup[i][0], &v, sizeof(v));
		if (err)
			return err;
	}
	return 0;
}

/* An open network: what wext's SIOCSIWESSID asks first. */
static inline int ndis_80211_open_infra(struct ndis_adapter *ad)
{
	return ndis_80211_infra(ad, NDIS_802_11_AUTH_MODE_OPEN,
				NDIS_802_11_ENCRYPTION_DISABLED);
}

#endif /* NDIS_80211_H */
