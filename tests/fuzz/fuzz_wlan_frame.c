// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the access point's 802.11 frame parser (qemu-devices/
 * wlan-frame.c, compiled into QEMU's wlan-ap as it is here). Oracle:
 * every pointer of an accepted frame lies inside the input with its
 * length (each byte is read, for ASan), the body runs from the end of the
 * MAC header to the end of the frame, an SSID sits behind its element
 * header, a payload behind LLC/SNAP and its ethertype, a probe request
 * is only accepted with an SSID; every element the finder returns for any
 * id lies inside the body. The station-facing parsers run too: the RSN
 * element of a (re)association request, and the whole input taken as an
 * RSN element body and as an EAPOL-Key frame (with the RSN element parser
 * on its key data): what they accept lies inside the input, counts match
 * the bytes they cover.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wlan-frame.h"

static const uint8_t *lo, *hi;
static unsigned sum;
static volatile unsigned sink;

static void inside(const uint8_t *p, size_t n)
{
	size_t i;

	if (!p || p < lo || p > hi || n > (size_t)(hi - p))
		abort();
	for (i = 0; i < n; i++)
		sum += p[i];
}

static void check_rsn(const uint8_t *body, size_t len)
{
	WlanRsnIe rsn;
	WlanFrameError err = wlan_rsn_ie_parse(body, len, &rsn);

	if ((unsigned)err >= WLAN_FRAME_ERR_COUNT)
		abort();
	if (err != WLAN_FRAME_OK)
		return;
	if (len < 2 || rsn.version != WLAN_RSN_VERSION)
		abort();
	if (rsn.pmkid_count) {
		inside(rsn.pmkids, (size_t)rsn.pmkid_count * WLAN_PMKID_LEN);
		if (rsn.pmkids < body + 2 || rsn.pmkids > body + len)
			abort();
	}
	/* an announced list is whole inside the element */
	if (rsn.has_group && len > 6 &&
	    6 + 2 + 4 * (size_t)rsn.pairwise_count > len)
		abort();
	sum += rsn.group_cipher + rsn.capabilities +
	       (wlan_rsn_ie_has(rsn.akm, rsn.akm_count, WLAN_AKM_PSK) ? 1 : 0);
}

/* What the element finder returns lies inside [ies, ies + len). */
static void check_ie(const uint8_t *ies, size_t len, uint8_t id)
{
	uint8_t ie_len = 0;
	const uint8_t *ie = wlan_frame_find_ie(ies, len, id, &ie_len);

	if (!ie)
		return;
	if (ie < ies + 2 || ie[-2] != id || ie[-1] != ie_len ||
	    ie + ie_len > ies + len)
		abort();
	inside(ie, ie_len);
}

static void check_eapol(const uint8_t *data, size_t size)
{
	WlanEapolKey key;
	WlanFrameError err = wlan_eapol_key_parse(data, size, &key);

	if ((unsigned)err >= WLAN_FRAME_ERR_COUNT)
		abort();
	if (err != WLAN_FRAME_OK)
		return;
	if (key.frame_len > size || key.frame_len !=
	    WLAN_EAPOL_HDR_LEN + (size_t)key.body_len ||
	    key.descriptor != WLAN_EAPOL_KEY_RSN ||
	    key.mic != data + WLAN_EAPOL_KEY_MIC_AT)
		abort();
	inside(key.nonce, 32);
	inside(key.iv, 16);
	inside(key.rsc, 8);
	inside(key.mic, 16);
	inside(key.key_data, key.key_data_len);
	if (key.key_data + key.key_data_len > data + key.frame_len)
		abort();
	check_rsn(key.key_data, key.key_data_len);
	/* the authenticator looks for message 2's RSN element this way */
	check_ie(key.key_data, key.key_data_len, WLAN_EID_RSN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t snap[] = { 0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00 };
	WlanFrameError err;
	WlanFrame f;
	unsigned id;

	lo = data;
	hi = data + size;
	check_rsn(data, size);
	check_eapol(data, size);
	err = wlan_frame_parse(data, size, &f);
	if ((unsigned)err >= WLAN_FRAME_ERR_COUNT ||
	    !wlan_frame_error_str(err)[0])
		abort();
	if (err != WLAN_FRAME_OK)
		return 0;
	if (size < 2 || f.type != WLAN_FC_TYPE(data[0]) ||
	    f.subtype != WLAN_FC_SUBTYPE(data[0]) || f.fc1 != data[1])
		abort();
	if (!f.addr1) {
		if (f.type != WLAN_TYPE_CTRL || size >= WLAN_HDR_LEN)
			abort();
		return 0;
	}
	inside(f.addr1, 6);
	inside(f.addr2, 6);
	inside(f.addr3, 6);
	if (f.body != data + WLAN_HDR_LEN || f.body_len != size - WLAN_HDR_LEN)
		abort();
	inside(f.body, f.body_len);
	if (f.type == WLAN_TYPE_MGMT && f.subtype == WLAN_MGMT_PROBE_REQ &&
	    !f.has_ssid)
		abort();
	if (f.rsn) {
		if (f.type != WLAN_TYPE_MGMT ||
		    (f.subtype != WLAN_MGMT_ASSOC_REQ &&
		     f.subtype != WLAN_MGMT_REASSOC_REQ))
			abort();
		inside(f.rsn, f.rsn_len);
		if (f.rsn < f.ies + 2 || f.rsn[-2] != WLAN_EID_RSN ||
		    f.rsn[-1] != f.rsn_len)
			abort();
		check_rsn(f.rsn, f.rsn_len);
	}
	if (f.ies) {
		inside(f.ies, f.ies_len);
		if (f.ies + f.ies_len != hi)
			abort();
	}
	if (f.has_ssid) {
		inside(f.ssid, f.ssid_len);
		if (f.ssid < f.body + 2 || f.ssid[-2] != WLAN_EID_SSID ||
		    f.ssid[-1] != f.ssid_len)
			abort();
	}
	if (f.snap) {
		if (f.type != WLAN_TYPE_DATA)
			abort();
		inside(f.payload, f.payload_len);
		if (f.payload + f.payload_len != hi ||
		    f.payload < f.body + sizeof(snap) + 2 ||
		    memcmp(f.payload - 2 - sizeof(snap), snap, sizeof(snap)) ||
		    f.ethertype != (f.payload[-2] << 8 | f.payload[-1]))
			abort();
	}
	for (id = 0; id < 256; id += 17) {
		uint8_t l = 0;
		const uint8_t *ie = wlan_frame_find_ie(f.body, f.body_len, id,
						       &l);

		if (ie) {
			inside(ie, l);
			if (ie[-2] != id || ie[-1] != l)
				abort();
		}
	}
	sink = sum;
	return 0;
}
