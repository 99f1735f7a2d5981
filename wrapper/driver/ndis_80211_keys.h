/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: WPA2-PSK on the NDIS 5.1 802.11 OIDs, the part that needs
 * no kernel (tests/unit/c/test_ndis_keys.c runs it on the host).
 *
 * A Windows XP station's supplicant tells the driver its policy with
 * OID_802_11_AUTHENTICATION_MODE and OID_802_11_ENCRYPTION_STATUS before
 * OID_802_11_SSID, and its keys with OID_802_11_ADD_KEY /
 * OID_802_11_REMOVE_KEY. NDIS 5.1 has no way to hand the driver an RSN
 * element: the driver writes its own from those two modes, and says which
 * it sent in OID_802_11_ASSOCIATION_INFORMATION. So only what the modes
 * can say is mapped: WPA2-PSK with CCMP for pairwise and group keys, or
 * an open network. The numbers are Microsoft's NDIS 5.1 reference.
 */

#ifndef NDIS_80211_KEYS_H
#define NDIS_80211_KEYS_H

#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#define OID_802_11_AUTHENTICATION_MODE		0x0D010118
#define OID_802_11_ENCRYPTION_STATUS		0x0D01011B
#define OID_802_11_ADD_KEY			0x0D01011D
#define OID_802_11_REMOVE_KEY			0x0D01011E
#define OID_802_11_ASSOCIATION_INFORMATION	0x0D01011F
#define OID_802_11_CAPABILITY			0x0D010122
#define OID_802_11_PMKID			0x0D010123

/* NDIS_802_11_AUTHENTICATION_MODE */
#define NDIS_802_11_AUTH_MODE_OPEN		0
#define NDIS_802_11_AUTH_MODE_WPA2PSK		7
/* NDIS_802_11_ENCRYPTION_STATUS: Encryption3 is AES-CCMP */
#define NDIS_802_11_ENCRYPTION_DISABLED		1
#define NDIS_802_11_ENCRYPTION3_ENABLED		6

/* Suite selectors as IEEE 802.11 writes them (OUI 00-0F-AC, type), which
 * is how cfg80211 numbers them too. */
#define NDIS_SUITE_CCMP		0x000FAC04
#define NDIS_SUITE_PSK		0x000FAC02
#define NDIS_WPA_VERSION_2	2	/* NL80211_WPA_VERSION_2 */

#define NDIS_ALEN		6
#define NDIS_CCMP_KEY_LEN	16
#define NDIS_KEY_RSC_LEN	6	/* CCMP's packet number */

/* What a cfg80211 connect asks for, as plain numbers. */
struct ndis_crypto_req {
	u32 wpa_versions;
	const u32 *akm;
	int n_akm;
	const u32 *pairwise;
	int n_pairwise;
	u32 group;
	bool privacy;
	int wep_key_len;
	bool auth_open;		/* open system or automatic authentication */
};

/*
 * The authentication mode and encryption status for a connect: open, or
 * WPA2-PSK with CCMP only; -EOPNOTSUPP (the outputs untouched) for
 * anything else.
 */
static inline int ndis_crypto_modes(const struct ndis_crypto_req *r,
				    u32 *auth_mode, u32 *encryption)
{
	if (!r->auth_open || r->wep_key_len)
		return -EOPNOTSUPP;
	if (!r->wpa_versions && !r->n_akm && !r->n_pairwise && !r->group &&
	    !r->privacy) {
		*auth_mode = NDIS_802_11_AUTH_MODE_OPEN;
		*encryption = NDIS_802_11_ENCRYPTION_DISABLED;
		return 0;
	}
	if (r->wpa_versions != NDIS_WPA_VERSION_2 || r->n_akm != 1 ||
	    r->akm[0] != NDIS_SUITE_PSK || r->n_pairwise != 1 ||
	    r->pairwise[0] != NDIS_SUITE_CCMP || r->group != NDIS_SUITE_CCMP)
		return -EOPNOTSUPP;
	*auth_mode = NDIS_802_11_AUTH_MODE_WPA2PSK;
	*encryption = NDIS_802_11_ENCRYPTION3_ENABLED;
	return 0;
}

/*
 * The wireless extensions' IW_AUTH_* settings (linux/wireless.h numbers;
 * wext.c asserts them), which wpa_supplicant -Dwext sets one by one before
 * SIOCSIWESSID. All zero (nothing set, as iwconfig leaves them) is open.
 */
#define NDIS_IW_WPA_VERSION_WPA		0x2
#define NDIS_IW_WPA_VERSION_WPA2	0x4
#define NDIS_IW_CIPHER_NONE		0x1
#define NDIS_IW_CIPHER_CCMP		0x8
#define NDIS_IW_KEY_MGMT_802_1X		0x1
#define NDIS_IW_KEY_MGMT_PSK		0x2
#define NDIS_IW_AUTH_ALG_OPEN		0x1

struct ndis_wext_auth {
	u32 wpa_version, pairwise, group, key_mgmt, auth_alg;
	bool privacy;
};

/* One IW_AUTH_CIPHER_* setting as a suite list: none, CCMP, or another. */
static inline int ndis_wext_cipher(u32 iw, u32 *suite)
{
	if (!iw || iw == NDIS_IW_CIPHER_NONE)
		return 0;
	*suite = iw == NDIS_IW_CIPHER_CCMP ? NDIS_SUITE_CCMP : 0;
	return 1;
}

/* The same choice as ndis_crypto_modes(), from the wext settings. */
static inline int ndis_wext_crypto_modes(const struct ndis_wext_auth *a,
					 u32 *auth_mode, u32 *encryption)
{
	u32 akm = 0, pairwise = 0, group = 0;
	struct ndis_crypto_req r = {
		.akm = &akm, .pairwise = &pairwise,
		.privacy = a->privacy,
		.auth_open = !a->auth_alg ||
			     a->auth_alg == NDIS_IW_AUTH_ALG_OPEN,
	};

	if (a->wpa_version & NDIS_IW_WPA_VERSION_WPA)
		r.wpa_versions |= 1;
	if (a->wpa_version & NDIS_IW_WPA_VERSION_WPA2)
		r.wpa_versions |= NDIS_WPA_VERSION_2;
	if (a->key_mgmt) {
		r.n_akm = 1;
		akm = a->key_mgmt == NDIS_IW_KEY_MGMT_PSK ? NDIS_SUITE_PSK : 0;
	}
	r.n_pairwise = ndis_wext_cipher(a->pairwise, &pairwise);
	if (ndis_wext_cipher(a->group, &group))
		r.group = group ? group : ~0U;
	return ndis_crypto_modes(&r, auth_mode, encryption);
}

/*
 * NDIS_802_11_KEY. KeyIndex: the key's index in bits 0-7; bit 31 it is
 * the transmit key, bit 30 a pairwise key (BSSID: the peer; a group key
 * names ff:ff:ff:ff:ff:ff), bit 29 KeyRSC holds the receive sequence
 * counter to start from. KeyRSC is a ULONGLONG, 8-aligned on amd64 and
 * i386 alike; Length counts the header and the key.
 */
#define NDIS_KEY_TRANSMIT	(1U << 31)
#define NDIS_KEY_PAIRWISE	(1U << 30)
#define NDIS_KEY_RSC_SET	(1U << 29)

struct ndis_80211_key {
	__le32 length;
	__le32 index;
	__le32 key_length;
	u8 bssid[NDIS_ALEN];
	u8 pad[6];
	__le64 rsc;
	u8 material[32];
} __packed;
static_assert(offsetof(struct ndis_80211_key, bssid) == 12);
static_assert(offsetof(struct ndis_80211_key, rsc) == 24);
static_assert(offsetof(struct ndis_80211_key, material) == 32);

/* NDIS_802_11_REMOVE_KEY: bit 31 of KeyIndex must be clear. */
struct ndis_80211_remove_key {
	__le32 length;
	__le32 index;
	u8 bssid[NDIS_ALEN];
	u8 pad[2];
} __packed;
static_assert(sizeof(struct ndis_80211_remove_key) == 16);

/*
 * cfg80211's add_key as OID_802_11_ADD_KEY: a CCMP key, pairwise (index
 * 0, the peer's address, always the transmit key) or group (index 0-3).
 * seq: the receive sequence counter, little-endian, up to 6 bytes.
 * Returns the OID's length, -EOPNOTSUPP for another cipher, -EINVAL for
 * a key the OID cannot carry.
 */
static inline int ndis_key_add(struct ndis_80211_key *k, u8 idx,
			       bool pairwise, const u8 *mac, u32 cipher,
			       const u8 *key, int key_len, const u8 *seq,
			       int seq_len)
{
	u32 index = idx;
	u64 rsc = 0;
	int i;

	if (cipher != NDIS_SUITE_CCMP)
		return -EOPNOTSUPP;
	if (key_len != NDIS_CCMP_KEY_LEN || idx > 3 ||
	    seq_len < 0 || seq_len > NDIS_KEY_RSC_LEN ||
	    (pairwise && (idx || !mac)))
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	if (pairwise) {
		index |= NDIS_KEY_TRANSMIT | NDIS_KEY_PAIRWISE;
		memcpy(k->bssid, mac, NDIS_ALEN);
	} else {
		memset(k->bssid, 0xff, NDIS_ALEN);
	}
	if (seq && seq_len) {
		for (i = seq_len - 1; i >= 0; i--)
			rsc = rsc << 8 | seq[i];
		index |= NDIS_KEY_RSC_SET;
	}
	k->length = cpu_to_le32(offsetof(struct ndis_80211_key, material) +
				key_len);
	k->index = cpu_to_le32(index);
	k->key_length = cpu_to_le32(key_len);
	k->rsc = cpu_to_le64(rsc);
	memcpy(k->material, key, key_len);
	return offsetof(struct ndis_80211_key, material) + key_len;
}

/* cfg80211's del_key as OID_802_11_REMOVE_KEY; its length or -EINVAL. */
static inline int ndis_key_remove(struct ndis_80211_remove_key *r, u8 idx,
				  bool pairwise, const u8 *mac)
{
	if (idx > 3 || (pairwise && !mac))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->length = cpu_to_le32(sizeof(*r));
	r->index = cpu_to_le32(idx | (pairwise ? NDIS_KEY_PAIRWISE : 0));
	if (pairwise)
		memcpy(r->bssid, mac, NDIS_ALEN);
	else
		memset(r->bssid, 0xff, NDIS_ALEN);
	return sizeof(*r);
}

/*
 * NDIS_802_11_ASSOCIATION_INFORMATION: the fixed fields of the last
 * association request and response, then where in the answer their IEs
 * are (offsets from the structure's start).
 */
struct ndis_80211_assoc_info {
	__le32 length;
	__le16 req_fixed_available;
	__le16 req_capabilities;
	__le16 req_listen_interval;
	u8 req_current_ap[NDIS_ALEN];
	__le32 req_ie_length;
	__le32 req_ie_offset;
	__le16 resp_fixed_available;
	__le16 resp_capabilities;
	__le16 resp_status;
	__le16 resp_aid;
	__le32 resp_ie_length;
	__le32 resp_ie_offset;
} __packed;
static_assert(offsetof(struct ndis_80211_assoc_info, req_ie_length) == 16);
static_assert(offsetof(struct ndis_80211_assoc_info, resp_ie_length) == 32);
static_assert(sizeof(struct ndis_80211_assoc_info) == 40);

struct ndis_assoc_ies {
	const u8 *req, *resp;	/* NULL when empty */
	u32 req_len, resp_len;
};

static inline int ndis_assoc_range(const u8 *buf, u32 len, __le32 off_le,
				   __le32 n_le, const u8 **ie, u32 *ie_len)
{
	u64 off = le32_to_cpu(off_le), n = le32_to_cpu(n_le);

	*ie = NULL;
	*ie_len = 0;
	if (!n)
		return 0;
	if (off < sizeof(struct ndis_80211_assoc_info) || off + n > len)
		return -EINVAL;
	*ie = buf + off;
	*ie_len = n;
	return 0;
}

/* The IEs of an OID_802_11_ASSOCIATION_INFORMATION answer of len bytes,
 * every range checked against it: -EINVAL when one is outside. */
static inline int ndis_assoc_ies(const void *buf, u32 len,
				 struct ndis_assoc_ies *out)
{
	const struct ndis_80211_assoc_info *ai = buf;

	if (len < sizeof(*ai))
		return -EINVAL;
	if (ndis_assoc_range(buf, len, ai->req_ie_offset, ai->req_ie_length,
			     &out->req, &out->req_len) ||
	    ndis_assoc_range(buf, len, ai->resp_ie_offset,
			     ai->resp_ie_length, &out->resp, &out->resp_len))
		return -EINVAL;
	return 0;
}

/*
 * OID_802_11_PMKID: the driver's whole PMKID cache at once (Length,
 * BSSIDInfoCount, then BSSID_INFO: BSSID and the 16-byte PMKID, 22 bytes
 * each, unpadded); the driver says in OID_802_11_CAPABILITY's NoOfPMKIDs
 * (offset 8) how many it keeps. The wrapper keeps cfg80211's PMKSAs in
 * that many entries, the oldest giving way, and sets the list on every
 * change.
 */
#define NDIS_PMKID_LEN		16
#define NDIS_PMKID_MAX		16
#define NDIS_CAPABILITY_NO_OF_PMKIDS	8

struct ndis_pmkid_entry {
	u8 bssid[NDIS_ALEN];
	u8 pmkid[NDIS_PMKID_LEN];
} __packed;
static_assert(sizeof(struct ndis_pmkid_entry) == 22);

struct ndis_pmkid_cache {
	u32 max;		/* the driver's NoOfPMKIDs, at most NDIS_PMKID_MAX */
	u32 n;
	struct ndis_pmkid_entry list[NDIS_PMKID_MAX];
};

/* Room for OID_802_11_PMKID with a full cache. */
#define NDIS_PMKID_OID_SIZE	(8 + NDIS_PMKID_MAX * 22)

static inline int ndis_pmkid_del(struct ndis_pmkid_cache *c, const u8 *bssid);

/* The BSSID's PMKID, newest last: a BSSID set again moves to the end. */
static inline int ndis_pmkid_set(struct ndis_pmkid_cache *c, const u8 *bssid,
				 const u8 *pmkid)
{
	if (!c->max)
		return -EOPNOTSUPP;
	if (ndis_pmkid_del(c, bssid) && c->n >= c->max) {
		memmove(&c->list[0], &c->list[1],
			(c->n - 1) * sizeof(c->list[0]));
		c->n--;
	}
	memcpy(c->list[c->n].bssid, bssid, NDIS_ALEN);
	memcpy(c->list[c->n].pmkid, pmkid, NDIS_PMKID_LEN);
	c->n++;
	return 0;
}

static inline int ndis_pmkid_del(struct ndis_pmkid_cache *c, const u8 *bssid)
{
	u32 i;

	for (i = 0; i < c->n; i++) {
		if (memcmp(c->list[i].bssid, bssid, NDIS_ALEN))
			continue;
		memmove(&c->list[i], &c->list[i + 1],
			(c->n - i - 1) * sizeof(c->list[0]));
		c->n--;
		return 0;
	}
	return -ENOENT;
}

/* The cache as OID_802_11_PMKID into buf (NDIS_PMKID_OID_SIZE); its length. */
static inline u32 ndis_pmkid_oid(const struct ndis_pmkid_cache *c, void *buf)
{
	u32 len = 8 + c->n * sizeof(c->list[0]);
	__le32 head[2] = { cpu_to_le32(len), cpu_to_le32(c->n) };

	memcpy(buf, head, sizeof(head));
	memcpy((u8 *)buf + 8, c->list, c->n * sizeof(c->list[0]));
	return len;
}

/*
 * NDIS_STATUS_MEDIA_SPECIFIC_INDICATION on an 802.11 adapter: an
 * NDIS_802_11_STATUS_TYPE, then for Authentication a run of
 * NDIS_802_11_AUTHENTICATION_REQUEST (each its own Length; Flags say a
 * MIC failure of the pairwise or the group key, or a rekey request), for
 * PMKID_CandidateList an NDIS_802_11_PMKID_CANDIDATE_LIST (Version 1,
 * NumCandidates, then BSSID + Flags each, bit 0 pre-authentication).
 */
#define NDIS_802_11_STATUS_AUTHENTICATION	0
#define NDIS_802_11_STATUS_PMKID_CANDIDATES	2
#define NDIS_802_11_AUTH_REQUEST_PAIRWISE_ERROR	0x06
#define NDIS_802_11_AUTH_REQUEST_GROUP_ERROR	0x0E
#define NDIS_802_11_PMKID_CANDIDATE_PREAUTH	0x01

struct ndis_80211_auth_request {
	__le32 length;
	u8 bssid[NDIS_ALEN];
	u8 pad[2];
	__le32 flags;
} __packed;
static_assert(sizeof(struct ndis_80211_auth_request) == 16);

struct ndis_80211_pmkid_candidate {
	u8 bssid[NDIS_ALEN];
	u8 pad[2];
	__le32 flags;
} __packed;
static_assert(sizeof(struct ndis_80211_pmkid_candidate) == 12);

enum ndis_80211_event_kind {
	NDIS_EV_MIC_FAILURE = 1,
	NDIS_EV_PMKID_CANDIDATE,
};

struct ndis_80211_event {
	enum ndis_80211_event_kind kind;
	u8 bssid[NDIS_ALEN];
	bool group;		/* MIC failure of the group key */
	bool preauth;		/* candidate allows pre-authentication */
	u32 index;		/* candidate's place in the list */
};

static inline u32 ndis_le32_at(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

/*
 * The events of one indication of len bytes, at most max into ev; every
 * entry checked against len (a cut one and what follows are left out).
 * Returns how many.
 */
static inline int ndis_80211_indication(const void *buf, u32 len,
					struct ndis_80211_event *ev, int max)
{
	const u8 *p = buf;
	u32 off = 4, i, n;
	int got = 0;

	if (len < 4)
		return 0;
	switch (ndis_le32_at(p)) {
	case NDIS_802_11_STATUS_AUTHENTICATION:
		while (got < max &&
		       len - off >= sizeof(struct ndis_80211_auth_request)) {
			struct ndis_80211_auth_request r;
			u32 flags;

			memcpy(&r, p + off, sizeof(r));
			if (le32_to_cpu(r.length) < sizeof(r) ||
			    le32_to_cpu(r.length) > len - off)
				break;
			off += le32_to_cpu(r.length);
			flags = le32_to_cpu(r.flags);
			if (flags != NDIS_802_11_AUTH_REQUEST_PAIRWISE_ERROR &&
			    flags != NDIS_802_11_AUTH_REQUEST_GROUP_ERROR)
				continue;
			memset(&ev[got], 0, sizeof(ev[got]));
			ev[got].kind = NDIS_EV_MIC_FAILURE;
			memcpy(ev[got].bssid, r.bssid, NDIS_ALEN);
			ev[got].group =
				flags == NDIS_802_11_AUTH_REQUEST_GROUP_ERROR;
			got++;
		}
		break;
	case NDIS_802_11_STATUS_PMKID_CANDIDATES:
		if (len < 12 || ndis_le32_at(p + 4) != 1)
			break;
		n = ndis_le32_at(p + 8);
		off = 12;
		for (i = 0; i < n && got < max &&
		     len - off >= sizeof(struct ndis_80211_pmkid_candidate);
		     i++, off += sizeof(struct ndis_80211_pmkid_candidate)) {
			struct ndis_80211_pmkid_candidate c;

			memcpy(&c, p + off, sizeof(c));
			memset(&ev[got], 0, sizeof(ev[got]));
			ev[got].kind = NDIS_EV_PMKID_CANDIDATE;
			memcpy(ev[got].bssid, c.bssid, NDIS_ALEN);
			ev[got].preauth = le32_to_cpu(c.flags) &
					  NDIS_802_11_PMKID_CANDIDATE_PREAUTH;
			ev[got].index = i;
			got++;
		}
		break;
	}
	return got;
}

#endif /* NDIS_80211_KEYS_H */
