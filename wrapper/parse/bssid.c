// SPDX-License-Identifier: GPL-2.0
/* The walk over an OID_802_11_BSSID_LIST buffer (bssid.h). */
#include "bssid.h"

int ndis_bssid_walk_start(struct ndis_bssid_walk *w, const void *buf,
			  u32 written, u32 size)
{
	__le32 count;

	memset(w, 0, sizeof(*w));
	if (written < sizeof(count) || written > size)
		return -EIO;
	memcpy(&count, buf, sizeof(count));
	w->buf = buf;
	w->written = written;
	w->count = le32_to_cpu(count);
	w->off = sizeof(count);
	return 0;
}

u32 ndis_bssid_whole_ies(const u8 *ies, u32 len)
{
	u32 off = 0;

	/* each element: its id, its length, then that many bytes */
	while (len - off >= 2 && ies[off + 1] <= len - off - 2)
		off += 2 + ies[off + 1];
	return off;
}

bool ndis_bssid_walk_next(struct ndis_bssid_walk *w,
			  struct ndis_bssid_entry *out)
{
	const struct ndis_bssid_ex *e;
	u32 len, ie_length;

	if (!w->buf || w->index >= w->count ||
	    w->written - w->off < sizeof(*e))
		return false;
	e = (const void *)(w->buf + w->off);
	len = le32_to_cpu(e->length);
	if (len < sizeof(*e) || len > w->written - w->off)
		return false;
	w->off += len;
	w->index++;

	memset(out, 0, sizeof(*out));
	out->e = e;
	out->ssid_len = le32_to_cpu(e->ssid.len);
	if (out->ssid_len > NDIS_SSID_MAX)
		out->ssid_len = NDIS_SSID_MAX;
	ie_length = le32_to_cpu(e->ie_length);
	if (ie_length <= len - sizeof(*e) &&
	    ie_length >= sizeof(*out->fixed)) {
		out->fixed = (const void *)e->ies;
		out->ies = e->ies + sizeof(*out->fixed);
		out->ie_len = ndis_bssid_whole_ies(out->ies, ie_length -
						   sizeof(*out->fixed));
	}
	return true;
}
