// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of wrapper/driver/ndis_80211_keys.h (built -nostdinc by
 * kkeys.c): which cfg80211 connections map onto which NDIS 5.1
 * authentication mode and encryption status, and the bytes of
 * OID_802_11_ADD_KEY, _REMOVE_KEY and the parse of
 * _ASSOCIATION_INFORMATION, at the offsets Microsoft's NDIS 5.1
 * documentation gives (amd64 and i386 alike: ULONGLONG is 8-aligned on
 * both).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kkeys.h"
#include "tap.h"

#define CCMP	0x000fac04u
#define TKIP	0x000fac02u
#define PSK	0x000fac02u
#define EAP	0x000fac01u
#define WPA1	1u
#define WPA2	2u

static uint32_t rd32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void wr32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void test_crypto_modes(void)
{
	static const unsigned int psk[] = { PSK }, eap[] = { EAP };
	static const unsigned int ccmp[] = { CCMP }, tkip[] = { TKIP };
	static const unsigned int two[] = { CCMP, TKIP };
	struct kd_crypto open = { .auth_open = 1 };
	struct kd_crypto wpa2 = {
		.wpa_versions = WPA2, .akm = psk, .n_akm = 1,
		.pairwise = ccmp, .n_pairwise = 1, .group = CCMP,
		.privacy = 1, .auth_open = 1,
	};
	struct kd_crypto c;
	unsigned int auth = 99, encr = 99;

	CHECK(kd_crypto_modes(&open, &auth, &encr) == 0);
	CHECK(auth == 0 && encr == 1);	/* Open, EncryptionDisabled */
	CHECK(kd_crypto_modes(&wpa2, &auth, &encr) == 0);
	CHECK(auth == 7 && encr == 6);	/* WPA2PSK, Encryption3Enabled */

	/* everything else is refused, the modes left alone */
	auth = encr = 99;
	c = wpa2;
	c.akm = eap;			/* WPA2-Enterprise */
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	c = wpa2;
	c.pairwise = tkip;
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	c = wpa2;
	c.pairwise = two;
	c.n_pairwise = 2;
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	c = wpa2;
	c.group = TKIP;
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	c = wpa2;
	c.wpa_versions = WPA1;
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	c = wpa2;
	c.wpa_versions = WPA1 | WPA2;
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	c = wpa2;
	c.n_akm = 0;
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	c = wpa2;
	c.auth_open = 0;		/* shared key authentication */
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	c = open;
	c.privacy = 1;			/* WEP */
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	c = open;
	c.wep_key_len = 5;
	CHECK(kd_crypto_modes(&c, &auth, &encr) == -EOPNOTSUPP);
	CHECK(auth == 99 && encr == 99);
}

/* IW_AUTH_* values of linux/wireless.h, as wpa_supplicant -Dwext sets them */
#define IW_WPA_DISABLED	1u
#define IW_WPA		2u
#define IW_WPA2		4u
#define IW_NONE		1u
#define IW_TKIP		4u
#define IW_CCMP		8u
#define IW_MGMT_8021X	1u
#define IW_MGMT_PSK	2u
#define IW_ALG_OPEN	1u
#define IW_ALG_SHARED	2u

static void test_wext_crypto_modes(void)
{
	struct kd_wext_auth wpa2 = {
		.wpa_version = IW_WPA2, .pairwise = IW_CCMP, .group = IW_CCMP,
		.key_mgmt = IW_MGMT_PSK, .auth_alg = IW_ALG_OPEN, .privacy = 1,
	};
	struct kd_wext_auth open = {
		.wpa_version = IW_WPA_DISABLED, .pairwise = IW_NONE,
		.group = IW_NONE, .auth_alg = IW_ALG_OPEN,
	};
	struct kd_wext_auth none = { 0 };	/* nothing set: iwconfig */
	struct kd_wext_auth a;
	unsigned int auth = 99, encr = 99;

	CHECK(kd_wext_crypto_modes(&wpa2, &auth, &encr) == 0);
	CHECK(auth == 7 && encr == 6);
	CHECK(kd_wext_crypto_modes(&open, &auth, &encr) == 0);
	CHECK(auth == 0 && encr == 1);
	auth = encr = 99;
	CHECK(kd_wext_crypto_modes(&none, &auth, &encr) == 0);
	CHECK(auth == 0 && encr == 1);

	auth = encr = 99;
	a = wpa2;
	a.wpa_version = IW_WPA;
	CHECK(kd_wext_crypto_modes(&a, &auth, &encr) == -EOPNOTSUPP);
	a = wpa2;
	a.pairwise = IW_TKIP;
	CHECK(kd_wext_crypto_modes(&a, &auth, &encr) == -EOPNOTSUPP);
	a = wpa2;
	a.pairwise = IW_CCMP | IW_TKIP;
	CHECK(kd_wext_crypto_modes(&a, &auth, &encr) == -EOPNOTSUPP);
	a = wpa2;
	a.group = IW_TKIP;
	CHECK(kd_wext_crypto_modes(&a, &auth, &encr) == -EOPNOTSUPP);
	a = wpa2;
	a.key_mgmt = IW_MGMT_8021X;
	CHECK(kd_wext_crypto_modes(&a, &auth, &encr) == -EOPNOTSUPP);
	a = wpa2;
	a.auth_alg = IW_ALG_SHARED;
	CHECK(kd_wext_crypto_modes(&a, &auth, &encr) == -EOPNOTSUPP);
	a = open;
	a.privacy = 1;			/* static WEP */
	CHECK(kd_wext_crypto_modes(&a, &auth, &encr) == -EOPNOTSUPP);
	CHECK(auth == 99 && encr == 99);
}

static const unsigned char ap[6] = { 0x02, 0x00, 0x00, 0x00, 0x01, 0x00 };
static const unsigned char bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static void test_key_add(void)
{
	unsigned char key[16], seq[6] = { 1, 2, 3, 4, 5, 6 };
	unsigned char buf[64];
	int i;

	for (i = 0; i < 16; i++)
		key[i] = 0xa0 + i;

	/* pairwise: transmit and pairwise bits, index 0, the AP's BSSID */
	memset(buf, 0xee, sizeof(buf));
	CHECK(kd_key_add(buf, 0, 1, ap, CCMP, key, 16, NULL, 0) == 48);
	CHECK(rd32(buf) == 48);
	CHECK(rd32(buf + 4) == 0xc0000000u);
	CHECK(rd32(buf + 8) == 16);
	CHECK(!memcmp(buf + 12, ap, 6));
	CHECK(rd64(buf + 24) == 0);
	CHECK(!memcmp(buf + 32, key, 16));

	/* group, index 2, with its receive sequence counter (bit 29) */
	memset(buf, 0xee, sizeof(buf));
	CHECK(kd_key_add(buf, 2, 0, ap, CCMP, key, 16, seq, 6) == 48);
	CHECK(rd32(buf + 4) == 0x20000002u);
	CHECK(!memcmp(buf + 12, bcast, 6));
	CHECK(rd64(buf + 24) == 0x060504030201ull);
	CHECK(!memcmp(buf + 32, key, 16));
	/* and without a MAC address */
	CHECK(kd_key_add(buf, 1, 0, NULL, CCMP, key, 16, NULL, 0) == 48);
	CHECK(rd32(buf + 4) == 1 && !memcmp(buf + 12, bcast, 6));

	/* refused: other ciphers, lengths, indexes; a pairwise key needs
	 * its peer and index 0 */
	CHECK(kd_key_add(buf, 0, 1, ap, TKIP, key, 16, NULL, 0) ==
	      -EOPNOTSUPP);
	CHECK(kd_key_add(buf, 0, 1, ap, CCMP, key, 15, NULL, 0) == -EINVAL);
	CHECK(kd_key_add(buf, 4, 0, ap, CCMP, key, 16, NULL, 0) == -EINVAL);
	CHECK(kd_key_add(buf, 1, 1, ap, CCMP, key, 16, NULL, 0) == -EINVAL);
	CHECK(kd_key_add(buf, 0, 1, NULL, CCMP, key, 16, NULL, 0) == -EINVAL);
	CHECK(kd_key_add(buf, 1, 0, ap, CCMP, key, 16, seq, 7) == -EINVAL);
}

static void test_key_remove(void)
{
	unsigned char buf[64];

	memset(buf, 0xee, sizeof(buf));
	CHECK(kd_key_remove(buf, 0, 1, ap) == 16);
	CHECK(rd32(buf) == 16);
	CHECK(rd32(buf + 4) == 0x40000000u);	/* pairwise, never bit 31 */
	CHECK(!memcmp(buf + 8, ap, 6));
	CHECK(kd_key_remove(buf, 3, 0, ap) == 16);
	CHECK(rd32(buf + 4) == 3 && !memcmp(buf + 8, bcast, 6));
	CHECK(kd_key_remove(buf, 4, 0, ap) == -EINVAL);
	CHECK(kd_key_remove(buf, 0, 1, NULL) == -EINVAL);
}

static void test_assoc_ies(void)
{
	unsigned char buf[128] = { 0 };
	const unsigned char *req, *resp;
	unsigned int req_len, resp_len;

	wr32(buf, 40);
	wr32(buf + 16, 22);	/* RequestIELength */
	wr32(buf + 20, 40);	/* OffsetRequestIEs */
	wr32(buf + 32, 8);	/* ResponseIELength */
	wr32(buf + 36, 62);	/* OffsetResponseIEs */
	CHECK(kd_assoc_ies(buf, 70, &req, &req_len, &resp, &resp_len) == 0);
	CHECK(req == buf + 40 && req_len == 22);
	CHECK(resp == buf + 62 && resp_len == 8);

	/* no response IEs */
	wr32(buf + 32, 0);
	wr32(buf + 36, 0);
	CHECK(kd_assoc_ies(buf, 62, &req, &req_len, &resp, &resp_len) == 0);
	CHECK(req_len == 22 && !resp && resp_len == 0);

	/* every IE range inside the answer, past the fixed part */
	CHECK(kd_assoc_ies(buf, 61, &req, &req_len, &resp, &resp_len) ==
	      -EINVAL);
	CHECK(kd_assoc_ies(buf, 39, &req, &req_len, &resp, &resp_len) ==
	      -EINVAL);
	wr32(buf + 20, 30);
	CHECK(kd_assoc_ies(buf, 70, &req, &req_len, &resp, &resp_len) ==
	      -EINVAL);
	wr32(buf + 20, 0xfffffff0u);	/* offset + length wraps */
	wr32(buf + 16, 0x20);
	CHECK(kd_assoc_ies(buf, 70, &req, &req_len, &resp, &resp_len) ==
	      -EINVAL);
}

static void test_indication(void)
{
	unsigned char buf[96] = { 0 };
	struct kd_event ev[4];

	/* Authentication: a pairwise and a group MIC failure, then a key
	 * update request (not a MIC failure: no event) */
	wr32(buf, 0);			/* Ndis802_11StatusType_Authentication */
	wr32(buf + 4, 16);
	memcpy(buf + 8, ap, 6);
	wr32(buf + 16, 0x06);		/* PAIRWISE_ERROR */
	wr32(buf + 20, 16);
	memcpy(buf + 24, bcast, 6);
	wr32(buf + 32, 0x0e);		/* GROUP_ERROR */
	wr32(buf + 36, 16);
	memcpy(buf + 40, ap, 6);
	wr32(buf + 48, 0x02);		/* KEYUPDATE */
	CHECK(kd_indication(buf, 52, ev, 4) == 2);
	CHECK(ev[0].kind == KD_EV_MIC_FAILURE && ev[0].group == 0 &&
	      !memcmp(ev[0].bssid, ap, 6));
	CHECK(ev[1].kind == KD_EV_MIC_FAILURE && ev[1].group == 1 &&
	      !memcmp(ev[1].bssid, bcast, 6));
	/* a request cut short, or one whose Length would not advance */
	CHECK(kd_indication(buf, 30, ev, 4) == 1);
	wr32(buf + 4, 0);
	CHECK(kd_indication(buf, 52, ev, 4) == 0);

	/* PMKID candidates: version 1, two of them, one pre-authenticating */
	memset(buf, 0, sizeof(buf));
	wr32(buf, 2);			/* Ndis802_11StatusType_PMKID_CandidateList */
	wr32(buf + 4, 1);
	wr32(buf + 8, 2);
	memcpy(buf + 12, ap, 6);
	wr32(buf + 20, 1);		/* PREAUTH_ENABLED */
	memcpy(buf + 24, bcast, 6);
	wr32(buf + 32, 0);
	CHECK(kd_indication(buf, 36, ev, 4) == 2);
	CHECK(ev[0].kind == KD_EV_PMKID_CANDIDATE && ev[0].index == 0 &&
	      ev[0].preauth == 1 && !memcmp(ev[0].bssid, ap, 6));
	CHECK(ev[1].kind == KD_EV_PMKID_CANDIDATE && ev[1].index == 1 &&
	      ev[1].preauth == 0 && !memcmp(ev[1].bssid, bcast, 6));
	CHECK(kd_indication(buf, 36, ev, 1) == 1);	/* room for one */
	CHECK(kd_indication(buf, 35, ev, 4) == 1);	/* the second cut */
	wr32(buf + 4, 2);				/* unknown version */
	CHECK(kd_indication(buf, 36, ev, 4) == 0);

	/* other types, and too short for a type */
	wr32(buf, 1);			/* MediaStreamMode */
	CHECK(kd_indication(buf, 36, ev, 4) == 0);
	CHECK(kd_indication(buf, 3, ev, 4) == 0);
}

static void test_pmkid(void)
{
	unsigned char b1[6] = { 2, 0, 0, 0, 1, 0 }, b2[6] = { 2, 0, 0, 0, 2, 0 };
	unsigned char b3[6] = { 2, 0, 0, 0, 3, 0 };
	unsigned char p1[16], p2[16], p3[16], buf[128];
	struct kd_pmkids c = { .max = 2 };

	memset(p1, 0x11, 16);
	memset(p2, 0x22, 16);
	memset(p3, 0x33, 16);
	CHECK(kd_pmkid_set(&c, b1, p1) == 0 && c.n == 1);
	CHECK(kd_pmkid_set(&c, b2, p2) == 0 && c.n == 2);
	/* the same BSSID again: replaced in place */
	CHECK(kd_pmkid_set(&c, b1, p3) == 0 && c.n == 2);
	/* full: the oldest makes room */
	CHECK(kd_pmkid_set(&c, b3, p3) == 0 && c.n == 2);
	/* OID_802_11_PMKID: Length, BSSIDInfoCount, 22-byte BSSID_INFOs */
	memset(buf, 0xee, sizeof(buf));
	CHECK(kd_pmkid_oid(&c, buf) == 8 + 2 * 22);
	CHECK(rd32(buf) == 52 && rd32(buf + 4) == 2);
	CHECK(!memcmp(buf + 8, b1, 6) && !memcmp(buf + 14, p3, 16));
	CHECK(!memcmp(buf + 30, b3, 6) && !memcmp(buf + 36, p3, 16));
	CHECK(kd_pmkid_del(&c, b2) == -ENOENT && c.n == 2);
	CHECK(kd_pmkid_del(&c, b1) == 0 && c.n == 1);
	CHECK(kd_pmkid_oid(&c, buf) == 30 && rd32(buf + 4) == 1 &&
	      !memcmp(buf + 8, b3, 6));
	c.n = 0;		/* flush */
	CHECK(kd_pmkid_oid(&c, buf) == 8 && rd32(buf) == 8 && rd32(buf + 4) == 0);
	c.max = 0;		/* the driver keeps none */
	CHECK(kd_pmkid_set(&c, b1, p1) == -EOPNOTSUPP && c.n == 0);
}

static void test_oid_numbers(void)
{
	CHECK(kd_oid_add_key == 0x0d01011d);
	CHECK(kd_oid_remove_key == 0x0d01011e);
	CHECK(kd_oid_assoc_info == 0x0d01011f);
}

int main(void)
{
	TEST(test_crypto_modes);
	TEST(test_wext_crypto_modes);
	TEST(test_key_add);
	TEST(test_key_remove);
	TEST(test_assoc_ies);
	TEST(test_indication);
	TEST(test_pmkid);
	TEST(test_oid_numbers);
	return tap_done();
}
