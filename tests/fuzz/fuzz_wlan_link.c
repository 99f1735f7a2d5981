// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the air link's datagram parser (qemu-devices/
 * wlan-link.c, compiled into QEMU's wlan-air as it is here) and its token
 * parser. Oracle: an accepted datagram carries our token, its frame lies
 * inside the input exactly where and as long as the header says, a frame
 * is 1..2346 bytes on channel 1..14 and a hello empty; wlan_link_build()
 * of what was parsed gives the input back byte for byte; the same bytes
 * with any other token are refused as such. An accepted link-token is 32
 * hex digits.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_wlan.h"

static void check_token_parser(const uint8_t *data, size_t size)
{
	char hex[2 * WLAN_LINK_TOKEN_LEN + 8];
	uint8_t tok[WLAN_LINK_TOKEN_LEN];
	size_t n = size < sizeof(hex) - 1 ? size : sizeof(hex) - 1, i;

	memcpy(hex, data, n);
	hex[n] = '\0';
	if (!wlan_link_parse_token(hex, tok))
		return;
	if (strlen(hex) != 2 * WLAN_LINK_TOKEN_LEN)
		abort();
	for (i = 0; i < 2 * WLAN_LINK_TOKEN_LEN; i++)
		if (!isxdigit((unsigned char)hex[i]))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t buf[WLAN_LINK_DGRAM_MAX], other[WLAN_LINK_TOKEN_LEN];
	WlanLinkDatagram d, d2;
	WlanLinkError err;
	unsigned sum = 0;
	size_t i, n;

	check_token_parser(data, size);
	err = wlan_link_parse(data, size, fuzz_link_token, &d);
	if ((unsigned)err >= WLAN_LINK_ERR_COUNT ||
	    !wlan_link_error_str(err)[0])
		abort();
	if (err != WLAN_LINK_OK)
		return 0;
	if (size < WLAN_LINK_HDR_LEN ||
	    memcmp(data + 16, fuzz_link_token, WLAN_LINK_TOKEN_LEN))
		abort();
	if (d.frame != data + WLAN_LINK_HDR_LEN ||
	    d.len != size - WLAN_LINK_HDR_LEN)
		abort();
	if (d.type == WLAN_LINK_FRAME) {
		if (d.len < 1 || d.len > WLAN_LINK_FRAME_MAX ||
		    d.channel < 1 || d.channel > 14)
			abort();
	} else if (d.type != WLAN_LINK_HELLO || d.len != 0) {
		abort();
	}
	for (i = 0; i < d.len; i++)
		sum += d.frame[i];	/* every byte readable (ASan) */

	n = wlan_link_build(buf, sizeof(buf), d.type, d.channel, d.rssi_dbm,
			    d.fcs, d.frame, d.len, fuzz_link_token);
	if (n != size || memcmp(buf, data, size))
		abort();

	memcpy(other, fuzz_link_token, sizeof(other));
	other[sum % WLAN_LINK_TOKEN_LEN] ^= 1u << (sum % 8);
	if (wlan_link_parse(data, size, other, &d2) != WLAN_LINK_ERR_TOKEN)
		abort();
	return 0;
}
