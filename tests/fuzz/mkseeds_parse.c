// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the seeds of fuzz_bssid, fuzz_usbcfg and fuzz_ndiscfg into
 * DIR/bssid, DIR/usbcfg and DIR/ndiscfg (tests/fuzz/corpus/ holds their
 * output): BSSID lists as the fixture drivers write them, select-
 * configuration URBs as a USB driver builds them, and configuration reads
 * of the settings the fixtures' .inf files declare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bssid.h"
#include "usbcfg.h"

static const char *root;

static void put(const char *sub, const char *name, const void *data,
		size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", root, sub, name);
	f = fopen(path, "wb");
	if (!f || (size && fwrite(data, size, 1, f) != 1) || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* -- BSSID lists ---------------------------------------------------------- */

static size_t bss(uint8_t *buf, size_t off, uint8_t tag, const char *ssid,
		  const uint8_t *ies, uint32_t ies_len, uint32_t ds_khz)
{
	struct ndis_bssid_ex e;
	struct ndis_fixed_ies fixed;
	uint32_t len = sizeof(e) + sizeof(fixed) + ies_len;

	memset(&e, 0, sizeof(e));
	memset(&fixed, 0, sizeof(fixed));
	e.length = (len + 3) & ~3u;	/* drivers keep entries aligned */
	memset(e.mac, tag, sizeof(e.mac));
	e.mac[0] = 0x02;
	e.ssid.len = strlen(ssid);
	memcpy(e.ssid.ssid, ssid, e.ssid.len);
	e.rssi = (uint32_t)-40;
	e.config.length = sizeof(e.config);
	e.config.beacon_period = 100;
	e.config.ds_config = ds_khz;
	e.infrastructure_mode = 1;
	e.ie_length = sizeof(fixed) + ies_len;
	fixed.beacon_interval = 100;
	fixed.capabilities = 1;
	memcpy(buf + off, &e, sizeof(e));
	memcpy(buf + off + sizeof(e), &fixed, sizeof(fixed));
	memcpy(buf + off + sizeof(e) + sizeof(fixed), ies, ies_len);
	return off + e.length;
}

static void bssid_seeds(void)
{
	static uint8_t buf[4096];
	const uint8_t ies[] = { 0, 9, 'n', 'd', 'i', 's', 'b', 'e', 'n', 'c',
				'h', 1, 4, 0x82, 0x84, 0x8b, 0x96, 3, 1, 6 };
	const uint8_t cut[] = { 0, 4, 'o', 'p', 'e', 'n', 221, 9, 0, 0x50 };
	uint32_t count;
	size_t off;

	memset(buf, 0, sizeof(buf));
	count = 0;
	put("bssid", "empty", &count, sizeof(count));
	off = bss(buf, 4, 1, "ndisbench", ies, sizeof(ies), 2437000);
	count = 1;
	memcpy(buf, &count, 4);
	put("bssid", "one", buf, off);
	off = bss(buf, off, 2, "other", ies, 11, 2412000);
	off = bss(buf, off, 3, "open", cut, sizeof(cut), 2462000);
	count = 3;
	memcpy(buf, &count, 4);
	put("bssid", "three-one-cut-ie", buf, off);
	count = 9;
	memcpy(buf, &count, 4);
	put("bssid", "count-past-end", buf, off);
}

/* -- select configuration --------------------------------------------------- */

static void usb_seed(const char *name, const uint8_t dev[6], int entries,
		     const uint8_t *numbers, const uint32_t *pipes)
{
	static uint8_t buf[4096];
	size_t off = 6;
	int i;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, dev, 6);
	for (i = 0; i < entries; i++) {
		struct usbd_interface_information info;

		memset(&info, 0, sizeof(info));
		info.length = USBD_INTERFACE_SIZE(pipes[i]);
		info.interface_number = numbers[i];
		info.number_of_pipes = pipes[i];
		memcpy(buf + off, &info, sizeof(info));
		off += info.length;
	}
	put("usbcfg", name, buf, off);
}

static void usbcfg_seeds(void)
{
	/* asked, active, interface, alternate, pipes, class */
	const uint8_t rtl8187[6] = { 1, 1, 0, 0, 3, 0xff };
	const uint8_t other_cfg[6] = { 2, 1, 0, 0, 3, 0xff };
	const uint8_t one[] = { 0 }, two[] = { 1, 0 };
	const uint32_t p3[] = { 3 }, p03[] = { 0, 3 }, p1[] = { 1 };

	usb_seed("rtl8187", rtl8187, 1, one, p3);
	usb_seed("two-interfaces", rtl8187, 2, two, p03);
	usb_seed("no-room-for-pipes", rtl8187, 1, one, p1);
	usb_seed("other-configuration", other_cfg, 1, one, p3);
}

/* -- NdisReadConfiguration -------------------------------------------------- */

static void cfg_seed(const char *name, uint8_t type, const char *keyword,
		     const char *settings)
{
	uint8_t buf[1024];
	uint16_t klen = 2 * strlen(keyword);
	size_t off = 4, i;

	buf[0] = type;
	buf[1] = 255;
	memcpy(buf + 2, &klen, 2);
	for (i = 0; keyword[i]; i++) {
		buf[off++] = keyword[i];
		buf[off++] = 0;
	}
	memcpy(buf + off, settings, strlen(settings));
	put("ndiscfg", name, buf, off + strlen(settings));
}

static void ndiscfg_seeds(void)
{
	const char *set = "NetworkAddress|02:00:00:00:00:01\n"
			  "msi_supported|1\nPowerSaveMode|0x1F\n"
			  "Channel|11\nSSID|ndisbench\nBig|4294967295\n";

	cfg_seed("integer", 0, "channel", set);
	cfg_seed("hex", 1, "POWERSAVEMODE", set);
	cfg_seed("string", 2, "SSID", set);
	cfg_seed("integer-not-a-number", 0, "NetworkAddress", set);
	cfg_seed("hex-overflow", 1, "Big", set);
	cfg_seed("missing", 0, "NoSuchKey", set);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	root = argv[1];
	bssid_seeds();
	usbcfg_seeds();
	ndiscfg_seeds();
	return 0;
}
