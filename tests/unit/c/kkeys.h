/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wrapper/driver/ndis_80211_keys.h as kkeys.c builds it (-nostdinc,
 * kmock), in plain C types for test programs built against libc.
 */
#ifndef NDIS_KKEYS_H
#define NDIS_KKEYS_H

/* ndis_80211_keys.h: cfg80211's crypto settings and keys as the NDIS
 * 5.1 802.11 OIDs carry them (see there) */
struct kd_crypto {
	unsigned int wpa_versions;
	const unsigned int *akm;
	int n_akm;
	const unsigned int *pairwise;
	int n_pairwise;
	unsigned int group;
	_Bool privacy;
	int wep_key_len;
	_Bool auth_open;
};
int kd_crypto_modes(const struct kd_crypto *c, unsigned int *auth_mode,
		    unsigned int *encryption);
/* the wireless extensions' IW_AUTH_* settings (their numbers) */
struct kd_wext_auth {
	unsigned int wpa_version, pairwise, group, key_mgmt, auth_alg;
	_Bool privacy;
};
int kd_wext_crypto_modes(const struct kd_wext_auth *a,
			 unsigned int *auth_mode, unsigned int *encryption);
/* buf: at least 64 bytes; returns the OID's length or -errno */
int kd_key_add(unsigned char *buf, unsigned char idx, _Bool pairwise,
	       const unsigned char *mac, unsigned int cipher,
	       const unsigned char *key, int key_len,
	       const unsigned char *seq, int seq_len);
int kd_key_remove(unsigned char *buf, unsigned char idx, _Bool pairwise,
		  const unsigned char *mac);
/* the request and response IEs of an OID_802_11_ASSOCIATION_INFORMATION
 * answer of len bytes, or -errno */
int kd_assoc_ies(const unsigned char *buf, unsigned int len,
		 const unsigned char **req, unsigned int *req_len,
		 const unsigned char **resp, unsigned int *resp_len);
/* NDIS_STATUS_MEDIA_SPECIFIC_INDICATION's 802.11 events */
enum { KD_EV_MIC_FAILURE = 1, KD_EV_PMKID_CANDIDATE = 2 };
struct kd_event {
	int kind;
	unsigned char bssid[6];
	_Bool group;		/* MIC failure: the group key's */
	_Bool preauth;		/* candidate: pre-authentication enabled */
	unsigned int index;	/* candidate: its place in the list */
};
int kd_indication(const unsigned char *buf, unsigned int len,
		  struct kd_event *ev, int max);
/* a PMKSA cache as OID_802_11_PMKID carries it (max entries, n used) */
struct kd_pmkids {
	unsigned int max, n;
	unsigned char bssid[16][6], pmkid[16][16];
};
int kd_pmkid_set(struct kd_pmkids *c, const unsigned char *bssid,
		 const unsigned char *pmkid);
int kd_pmkid_del(struct kd_pmkids *c, const unsigned char *bssid);
/* buf: room for 8 + 16 x 22 bytes; returns the OID's length */
unsigned int kd_pmkid_oid(const struct kd_pmkids *c, unsigned char *buf);
extern const unsigned int kd_oid_add_key, kd_oid_remove_key,
	kd_oid_assoc_info;

#endif
