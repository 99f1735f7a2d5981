// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the access point's 802.11 frame parser (qemu-devices/
 * wlan-frame.c, compiled into QEMU's wlan-ap as it is here). Oracle:
 * every pointer of an accepted frame lies inside the input with its
 * length (each byte is read, for ASan), the body runs from the end of the
 * MAC header to the end of the frame, an SSID sits behind its element
 * header, a payload behind LLC/SNAP and its ethertype, a probe request
 * is only accepted with an SSID; every element the finder returns for any
 * id lies inside the body.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t snap[] = { 0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00 };
	WlanFrameError err;
	WlanFrame f;
	unsigned id;

	lo = data;
	hi = data + size;
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
