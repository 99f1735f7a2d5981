// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writes the seeds of fuzz_wlan_link (built with -DSEEDS_LINK) or of
 * fuzz_wlan_frame into DIR: the frames the access point and the stations
 * exchange (probe, authentication, association, deauthentication, data
 * with LLC/SNAP, QoS and null data, an ACK), as they are, or (link) in
 * link datagrams with fuzz_wlan.h's token, and a hello.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SEEDS_LINK
#include "fuzz_wlan.h"
#endif
#include "wlan-frame.h"

static const char *dir;

static void put(const char *name, const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || (len && fwrite(buf, len, 1, f) != 1) || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static size_t hdr(uint8_t *f, uint8_t fc0, uint8_t fc1)
{
	static const uint8_t bssid[6] = { 2, 0, 0, 0, 1, 0 };
	static const uint8_t sta[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };

	memset(f, 0, WLAN_HDR_LEN);
	f[0] = fc0;
	f[1] = fc1;
	memcpy(f + 4, bssid, 6);
	memcpy(f + 10, sta, 6);
	memcpy(f + 16, bssid, 6);
	f[22] = 0x10;
	return WLAN_HDR_LEN;
}

static size_t ies(uint8_t *f, size_t n)
{
	static const uint8_t e[] = {
		0, 9, 'n', 'd', 'i', 's', 'b', 'e', 'n', 'c', 'h',
		1, 4, 0x82, 0x84, 0x8b, 0x96, 3, 1, 6,
	};

	memcpy(f + n, e, sizeof(e));
	return n + sizeof(e);
}

/* WPA2-PSK, CCMP pairwise and group: the RSN element a station sends */
static const uint8_t rsn_ie[] = {
	48, 20, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 4,
	1, 0, 0x00, 0x0f, 0xac, 2, 0, 0,
};

/* EAPOL-Key message 2 of the 4-way handshake, its key data the element */
static size_t eapol_msg2(uint8_t *f)
{
	size_t body = 95 + sizeof(rsn_ie);

	memset(f, 0, 4 + body);
	f[0] = 1;			/* 802.1X-2001 */
	f[1] = 3;			/* EAPOL-Key */
	f[2] = body >> 8;
	f[3] = body & 0xff;
	f[4] = 2;			/* RSN descriptor */
	f[5] = 0x01;			/* key info: MIC, pairwise, version 2 */
	f[6] = 0x0a;
	f[4 + 12] = 1;			/* replay counter 1 */
	memset(f + 4 + 13, 0x5a, 32);	/* SNonce */
	memset(f + 4 + 77, 0xc3, 16);	/* MIC */
	f[4 + 94] = sizeof(rsn_ie);
	memcpy(f + 4 + 95, rsn_ie, sizeof(rsn_ie));
	return 4 + body;
}

static void frame(const char *name, const uint8_t *f, size_t len)
{
#ifdef SEEDS_LINK
	uint8_t d[WLAN_LINK_DGRAM_MAX];
	size_t n = wlan_link_build(d, sizeof(d), WLAN_LINK_FRAME, 6, -40,
				   0x12345678, f, len, fuzz_link_token);

	if (!n)
		exit(1);
	put(name, d, n);
#else
	put(name, f, len);
#endif
}

int main(int argc, char **argv)
{
	static const uint8_t snap[] = { 0xaa, 0xaa, 3, 0, 0, 0, 0x08, 0x00 };
	uint8_t f[512];
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
#ifdef SEEDS_LINK
	{
		uint8_t d[WLAN_LINK_HDR_LEN];

		put("hello", d, wlan_link_build(d, sizeof(d), WLAN_LINK_HELLO,
						0, 0, 0, NULL, 0,
						fuzz_link_token));
	}
#endif
	n = hdr(f, 0x40, 0);		/* probe request */
	frame("probe-req", f, ies(f, n));
	n = hdr(f, 0xb0, 0);		/* authentication, open, seq 1 */
	memcpy(f + n, "\0\0\1\0\0\0", 6);
	frame("auth", f, n + 6);
	n = hdr(f, 0x00, 0);		/* association request */
	memcpy(f + n, "\1\0\12\0", 4);
	frame("assoc-req", f, ies(f, n + 4));
	n = ies(f, n + 4);		/* ... with WPA2-PSK */
	memcpy(f + n, rsn_ie, sizeof(rsn_ie));
	frame("assoc-req-rsn", f, n + sizeof(rsn_ie));
	n = hdr(f, 0x20, 0);		/* reassociation request */
	memcpy(f + n, "\1\0\12\0\2\0\0\0\1\0", 10);
	frame("reassoc-req", f, ies(f, n + 10));
	n = hdr(f, 0xc0, 0);		/* deauthentication, reason 3 */
	memcpy(f + n, "\3\0", 2);
	frame("deauth", f, n + 2);
	n = hdr(f, 0x08, WLAN_FC1_TODS);	/* data to the DS */
	memcpy(f + n, snap, sizeof(snap));
	memcpy(f + n + sizeof(snap), "payload", 7);
	frame("data", f, n + sizeof(snap) + 7);
	n = hdr(f, 0x88, WLAN_FC1_TODS | WLAN_FC1_ORDER);	/* QoS + HTC */
	memset(f + n, 0, 6);
	memcpy(f + n + 6, snap, sizeof(snap));
	frame("qos-data", f, n + 6 + sizeof(snap));
	n = hdr(f, 0x08, WLAN_FC1_TODS);	/* EAPOL-Key message 2 */
	memcpy(f + n, snap, 6);
	f[n + 6] = 0x88;
	f[n + 7] = 0x8e;
	n += 8;
	frame("eapol-msg2", f, n + eapol_msg2(f + n));
#ifndef SEEDS_LINK
	/* the bare parsers' inputs: an EAPOL frame, an RSN element body */
	put("eapol-key", f, eapol_msg2(f));
	put("rsn-ie", rsn_ie + 2, sizeof(rsn_ie) - 2);
#endif
	n = hdr(f, 0x48, WLAN_FC1_TODS);	/* null function */
	frame("null", f, n);
	n = hdr(f, 0x08, WLAN_FC1_TODS | WLAN_FC1_FROMDS);	/* 4 addresses */
	memset(f + n, 0x02, 6);
	memcpy(f + n + 6, snap, sizeof(snap));
	frame("wds-data", f, n + 6 + sizeof(snap));
	n = hdr(f, 0xd4, 0);		/* ACK: 10 bytes */
	frame("ack", f, 10);
	return 0;
}
