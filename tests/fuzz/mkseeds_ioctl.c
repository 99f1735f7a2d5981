// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the seeds of fuzz_ioctl into DIR (tests/fuzz/corpus/ioctl holds
 * their output): a selector byte (0: NDIS_IOCTL_ADD_DEVICE, 1:
 * NDIS_IOCTL_LOAD_DRIVER), the structure, then the settings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_abi.h"

static const char *dir;

static void put(const char *name, unsigned char sel, const void *msg,
		size_t size, const struct ndis_setting *s, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(&sel, 1, 1, f) != 1 ||
	    fwrite(msg, size, 1, f) != 1 ||
	    (n && fwrite(s, sizeof(*s), n, f) != n) || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static struct ndis_device_id good_id(void)
{
	struct ndis_device_id id;

	memset(&id, 0, sizeof(id));
	id.abi_version = NDIS_LOADER_ABI_VERSION;
	id.bus = NDIS_BUS_PCI;
	id.vendor = 0x14e4;
	id.device = 0x4320;
	id.subvendor = 0xffff;
	id.subdevice = 0xffff;
	strcpy(id.driver, "bcmwl");
	return id;
}

static struct ndis_load_driver good_load(void)
{
	struct ndis_load_driver ld;

	memset(&ld, 0, sizeof(ld));
	ld.abi_version = NDIS_LOADER_ABI_VERSION;
	ld.num_settings = 2;
	ld.id = good_id();
	strcpy(ld.sys_name, "bcmwl5.sys");
	ld.sys_size = 4096;
	return ld;
}

int main(int argc, char **argv)
{
	struct ndis_setting s[2];
	struct ndis_device_id id;
	struct ndis_load_driver ld;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	memset(s, 0, sizeof(s));
	strcpy(s[0].name, "RoamTrigger");
	strcpy(s[0].value, "-70");
	strcpy(s[1].name, "MPC");
	strcpy(s[1].value, "1");

	id = good_id();
	put("add-pci", 0, &id, sizeof(id), NULL, 0);
	id.bus = NDIS_BUS_USB;
	strcpy(id.driver, "rtl8187_x-1.2");
	put("add-usb", 0, &id, sizeof(id), NULL, 0);
	id = good_id();
	id.abi_version = 2;
	put("add-abi", 0, &id, sizeof(id), NULL, 0);
	id = good_id();
	strcpy(id.driver, "../etc");
	put("add-dotdot", 0, &id, sizeof(id), NULL, 0);
	memset(id.driver, 'a', sizeof(id.driver));
	put("add-unterminated", 0, &id, sizeof(id), NULL, 0);

	ld = good_load();
	put("load-ok", 1, &ld, sizeof(ld), s, 2);
	ld.sys_size = NDIS_MAX_SYS_SIZE + 1;
	put("load-big", 1, &ld, sizeof(ld), s, 2);
	ld = good_load();
	ld.num_settings = NDIS_MAX_SETTINGS + 1;
	put("load-many", 1, &ld, sizeof(ld), s, 2);
	ld = good_load();
	strcpy(ld.sys_name, "a/b.sys");
	put("load-slash", 1, &ld, sizeof(ld), s, 2);
	ld = good_load();
	memset(s[1].value, 'v', sizeof(s[1].value));
	put("load-setting-unterminated", 1, &ld, sizeof(ld), s, 2);
	return 0;
}
