// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the walk over an OID_802_11_BSSID_LIST buffer a driver
 * wrote (wrapper/parse/bssid.c, what wireless.c and wext.c run).
 *
 * Input: the buffer, all of it written by the driver (a copy of exactly
 * that size, so ASan sees any read past it). Oracle: the list is refused
 * only when it cannot hold its count; the entries tile the buffer from
 * byte 4 in order, each at least the fixed fields long and inside the
 * written bytes, at most as many as the count; an SSID length is the
 * driver's cut to 32; fixed fields and IEs lie inside their entry and its
 * IELength, and the IEs given are whole elements, the next one (if any)
 * incomplete. Every byte handed out is read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bssid.h"

static volatile uint8_t sink;

static void touch(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sink ^= p[i];
}

static uint32_t get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The IEs given are whole elements, and nothing whole follows them. */
static void check_ies(const uint8_t *ies, uint32_t ie_len, uint32_t room)
{
	uint32_t off = 0;

	if (ie_len > room)
		abort();
	while (off < ie_len) {
		if (ie_len - off < 2 || ies[off + 1] > ie_len - off - 2)
			abort();
		off += 2 + ies[off + 1];
	}
	if (off != ie_len)
		abort();
	if (room - off >= 2 && ies[off + 1] <= room - off - 2)
		abort();	/* a whole element was cut off */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ndis_bssid_walk w;
	struct ndis_bssid_entry b;
	uint8_t *buf;
	uint32_t off = 4, n = 0, count;
	int err;

	if (size > 1 << 20)
		return 0;
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	/* more written than the buffer holds */
	if (size && ndis_bssid_walk_start(&w, buf, size, size - 1) != -EIO)
		abort();
	err = ndis_bssid_walk_start(&w, buf, size, size);
	if ((size < 4) != (err == -EIO) || (err && err != -EIO))
		abort();
	if (err) {
		if (ndis_bssid_walk_next(&w, &b))
			abort();	/* a refused list has no entry */
		free(buf);
		return 0;
	}
	count = get32(buf);
	while (ndis_bssid_walk_next(&w, &b)) {
		const uint8_t *e = (const uint8_t *)b.e;
		uint32_t len = get32(e), ie_length;

		if (e != buf + off || len < sizeof(*b.e) || len > size - off)
			abort();
		if (++n > count || w.index != n)
			abort();
		touch(e, len);
		if (b.ssid_len != (get32(&b.e->ssid.len) > NDIS_SSID_MAX ?
				   NDIS_SSID_MAX : get32(&b.e->ssid.len)))
			abort();
		ie_length = get32(&b.e->ie_length);
		if (b.fixed) {
			const uint8_t *fixed = (const uint8_t *)b.fixed;

			if (fixed != b.e->ies ||
			    ie_length > len - sizeof(*b.e) ||
			    ie_length < sizeof(*b.fixed) ||
			    b.ies != fixed + sizeof(*b.fixed))
				abort();
			check_ies(b.ies, b.ie_len,
				  ie_length - sizeof(*b.fixed));
			touch(b.ies, b.ie_len);
		} else if (b.ies || b.ie_len ||
			   (ie_length <= len - sizeof(*b.e) &&
			    ie_length >= sizeof(*b.fixed))) {
			abort();	/* IEs without fixed fields, or lost */
		}
		off += len;
	}
	/* stopped early only at an entry that does not fit */
	if (n < count && size - off >= sizeof(*b.e)) {
		uint32_t len = get32(buf + off);

		if (len >= sizeof(*b.e) && len <= size - off)
			abort();
	}
	free(buf);
	return 0;
}
