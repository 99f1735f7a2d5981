// SPDX-License-Identifier: GPL-2.0
/*
 * wrapper/driver/ndis_80211_keys.h built as the kernel builds it
 * (-nostdinc, kmock's headers), behind kkeys.h's plain entry points.
 */
#include "ndis_80211_keys.h"
#include "kkeys.h"

const unsigned int kd_oid_add_key = OID_802_11_ADD_KEY;
const unsigned int kd_oid_remove_key = OID_802_11_REMOVE_KEY;
const unsigned int kd_oid_assoc_info = OID_802_11_ASSOCIATION_INFORMATION;

int kd_crypto_modes(const struct kd_crypto *c, unsigned int *auth_mode,
		    unsigned int *encryption)
{
	struct ndis_crypto_req r = {
		.wpa_versions = c->wpa_versions,
		.akm = c->akm, .n_akm = c->n_akm,
		.pairwise = c->pairwise, .n_pairwise = c->n_pairwise,
		.group = c->group, .privacy = c->privacy,
		.wep_key_len = c->wep_key_len, .auth_open = c->auth_open,
	};

	return ndis_crypto_modes(&r, auth_mode, encryption);
}

int kd_wext_crypto_modes(const struct kd_wext_auth *a,
			 unsigned int *auth_mode, unsigned int *encryption)
{
	struct ndis_wext_auth w = {
		.wpa_version = a->wpa_version, .pairwise = a->pairwise,
		.group = a->group, .key_mgmt = a->key_mgmt,
		.auth_alg = a->auth_alg, .privacy = a->privacy,
	};

	return ndis_wext_crypto_modes(&w, auth_mode, encryption);
}

int kd_indication(const unsigned char *buf, unsigned int len,
		  struct kd_event *ev, int max)
{
	struct ndis_80211_event e[8];
	int n = ndis_80211_indication(buf, len, e, max < 8 ? max : 8), i;

	for (i = 0; i < n; i++) {
		ev[i].kind = e[i].kind == NDIS_EV_MIC_FAILURE ?
			     KD_EV_MIC_FAILURE : KD_EV_PMKID_CANDIDATE;
		memcpy(ev[i].bssid, e[i].bssid, 6);
		ev[i].group = e[i].group;
		ev[i].preauth = e[i].preauth;
		ev[i].index = e[i].index;
	}
	return n;
}

static void kd_to_cache(const struct kd_pmkids *c, struct ndis_pmkid_cache *n)
{
	unsigned int i;

	n->max = c->max;
	n->n = c->n;
	for (i = 0; i < c->n; i++) {
		memcpy(n->list[i].bssid, c->bssid[i], 6);
		memcpy(n->list[i].pmkid, c->pmkid[i], 16);
	}
}

static void kd_from_cache(const struct ndis_pmkid_cache *n, struct kd_pmkids *c)
{
	unsigned int i;

	c->n = n->n;
	for (i = 0; i < n->n; i++) {
		memcpy(c->bssid[i], n->list[i].bssid, 6);
		memcpy(c->pmkid[i], n->list[i].pmkid, 16);
	}
}

int kd_pmkid_set(struct kd_pmkids *c, const unsigned char *bssid,
		 const unsigned char *pmkid)
{
	struct ndis_pmkid_cache n;
	int err;

	kd_to_cache(c, &n);
	err = ndis_pmkid_set(&n, bssid, pmkid);
	kd_from_cache(&n, c);
	return err;
}

int kd_pmkid_del(struct kd_pmkids *c, const unsigned char *bssid)
{
	struct ndis_pmkid_cache n;
	int err;

	kd_to_cache(c, &n);
	err = ndis_pmkid_del(&n, bssid);
	kd_from_cache(&n, c);
	return err;
}

unsigned int kd_pmkid_oid(const struct kd_pmkids *c, unsigned char *buf)
{
	struct ndis_pmkid_cache n;

	kd_to_cache(c, &n);
	return ndis_pmkid_oid(&n, buf);
}

int kd_key_add(unsigned char *buf, unsigned char idx, _Bool pairwise,
	       const unsigned char *mac, unsigned int cipher,
	       const unsigned char *key, int key_len,
	       const unsigned char *seq, int seq_len)
{
	struct ndis_80211_key k;
	int n = ndis_key_add(&k, idx, pairwise, mac, cipher, key, key_len,
			     seq, seq_len);

	if (n > 0)
		memcpy(buf, &k, n);
	return n;
}

int kd_key_remove(unsigned char *buf, unsigned char idx, _Bool pairwise,
		  const unsigned char *mac)
{
	struct ndis_80211_remove_key r;
	int n = ndis_key_remove(&r, idx, pairwise, mac);

	if (n > 0)
		memcpy(buf, &r, n);
	return n;
}

int kd_assoc_ies(const unsigned char *buf, unsigned int len,
		 const unsigned char **req, unsigned int *req_len,
		 const unsigned char **resp, unsigned int *resp_len)
{
	struct ndis_assoc_ies ies;
	int err = ndis_assoc_ies(buf, len, &ies);

	if (err)
		return err;
	*req = ies.req;
	*req_len = ies.req_len;
	*resp = ies.resp;
	*resp_len = ies.resp_len;
	return 0;
}
