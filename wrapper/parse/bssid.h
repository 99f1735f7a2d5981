/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The OID_802_11_BSSID_LIST buffer a driver wrote: a count, then that many
 * NDIS_WLAN_BSSID_EX entries of varying length (NDIS 5.1, ntddndis.h in
 * Microsoft's WDK reference), each followed by its IEs. Both wireless
 * interfaces (wireless.c for cfg80211, wext.c for the wireless
 * extensions) read it through this walk, which checks every entry against
 * the bytes the driver said it wrote.
 */
#ifndef NDIS_PARSE_BSSID_H
#define NDIS_PARSE_BSSID_H

#include "parse_compat.h"

#define NDIS_ETH_ALEN		6
#define NDIS_SSID_MAX		32

/* NDIS_802_11_SSID */
struct ndis_ssid {
	__le32 len;
	u8 ssid[NDIS_SSID_MAX];
} __packed;

/* NDIS_802_11_CONFIGURATION */
struct ndis_config {
	__le32 length;
	__le32 beacon_period;		/* TU */
	__le32 atim_window;
	__le32 ds_config;		/* kHz */
	__le32 fh_config[4];
} __packed;

/* NDIS_802_11_FIXED_IEs: what precedes the variable IEs in IEs[]. */
struct ndis_fixed_ies {
	__le64 timestamp;
	__le16 beacon_interval;
	__le16 capabilities;
} __packed;

/* NDIS_WLAN_BSSID_EX, one entry of OID_802_11_BSSID_LIST. */
struct ndis_bssid_ex {
	__le32 length;			/* of the entry: where the next starts */
	u8 mac[NDIS_ETH_ALEN];
	u8 reserved[2];
	struct ndis_ssid ssid;
	__le32 privacy;
	__le32 rssi;			/* dBm, signed */
	__le32 network_type;
	struct ndis_config config;
	__le32 infrastructure_mode;
	u8 rates[16];
	__le32 ie_length;
	u8 ies[];			/* ndis_fixed_ies, then the IEs */
} __packed;

/* Where the walk is in a list; set up by ndis_bssid_walk_start(). */
struct ndis_bssid_walk {
	const u8 *buf;
	u32 written;			/* bytes the driver wrote */
	u32 count;			/* entries it said it wrote */
	u32 index;			/* entries read */
	u32 off;			/* where the next one starts */
};

/* One entry, every part of it inside the buffer. */
struct ndis_bssid_entry {
	const struct ndis_bssid_ex *e;
	u32 ssid_len;			/* at most NDIS_SSID_MAX */
	const struct ndis_fixed_ies *fixed;	/* NULL: the driver gave none */
	const u8 *ies;			/* after the fixed fields */
	u32 ie_len;			/* whole elements only */
};

/*
 * buf: size bytes, of which the driver says it wrote written. 0, or
 * -EIO when written cannot hold the count or exceeds size.
 */
int ndis_bssid_walk_start(struct ndis_bssid_walk *w, const void *buf,
			  u32 written, u32 size);

/*
 * The next entry into *out: false after count entries, or at the first
 * entry whose Length is shorter than the fixed fields or runs past the
 * written bytes (the rest of the list cannot be located). Fixed fields
 * and IEs are given only when IELength lies within the entry and holds
 * the fixed fields; the IEs are cut to whole elements.
 */
bool ndis_bssid_walk_next(struct ndis_bssid_walk *w,
			  struct ndis_bssid_entry *out);

/* The length of the whole (id, length, data) elements at the start of ies. */
u32 ndis_bssid_whole_ies(const u8 *ies, u32 len);

#endif /* NDIS_PARSE_BSSID_H */
