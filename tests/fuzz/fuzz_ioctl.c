// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the validators of the wrapper's ioctl messages
 * (wrapper/loader/msg.c, the code the module runs on what
 * /sbin/loadndisdriver sends over /dev/ndiswrapper).
 *
 * Input: byte 0 selects the message (even: NDIS_IOCTL_ADD_DEVICE, odd:
 * NDIS_IOCTL_LOAD_DRIVER); then the structure's bytes (zero-filled when
 * short); for LOAD_DRIVER the rest is the settings array the module would
 * copy in, cut to whole entries (the claimed num_settings stays whatever
 * the input says). Every verdict is checked against the ABI's limits,
 * computed here independently; a violation aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

/* The rule of msg.h, restated: the fuzzer's oracle. */
static int plain_name(const char *name, size_t size)
{
	const char *nul = memchr(name, '\0', size);
	const char *p;

	if (!nul || nul == name || name[0] == '.')
		return 0;
	for (p = name; p < nul; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '/' || c < 0x20 || c >= 0x7f)
			return 0;
		if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
		      (c >= 'a' && c <= 'z') || c == '.' || c == '_' ||
		      c == '-'))
			return 0;
	}
	return 1;
}

static void check_reason(int err, const char *why)
{
	if (err == 0)
		return;
	if (err != -EPROTO && err != -EINVAL && err != -EFBIG &&
	    err != -E2BIG)
		abort();	/* an errno the ioctl does not document */
	if (!why || !why[0] || strlen(why) > 80)
		abort();
}

static void check_id(const struct ndis_device_id *id, int err)
{
	int want = id->abi_version == NDIS_LOADER_ABI_VERSION &&
		   (id->bus == NDIS_BUS_PCI || id->bus == NDIS_BUS_USB) &&
		   plain_name(id->driver, sizeof(id->driver));

	if (want != (err == 0))
		abort();
	if (id->abi_version != NDIS_LOADER_ABI_VERSION && err != -EPROTO)
		abort();
	if (ndis_msg_valid_name(id->driver, sizeof(id->driver)) !=
	    plain_name(id->driver, sizeof(id->driver)))
		abort();
}

static void fuzz_add_device(const uint8_t *data, size_t size)
{
	struct ndis_device_id id;
	const char *why = NULL;
	int err;

	memset(&id, 0, sizeof(id));
	memcpy(&id, data, size < sizeof(id) ? size : sizeof(id));
	err = ndis_msg_check_id(&id, &why);
	check_reason(err, why);
	check_id(&id, err);
}

static void fuzz_load_driver(const uint8_t *data, size_t size)
{
	struct ndis_load_driver ld;
	struct ndis_setting *settings = NULL;
	const char *why = NULL;
	size_t n = 0, i;
	int err, want;

	memset(&ld, 0, sizeof(ld));
	memcpy(&ld, data, size < sizeof(ld) ? size : sizeof(ld));
	err = ndis_msg_check_load(&ld, &why);
	check_reason(err, why);
	want = ld.abi_version == NDIS_LOADER_ABI_VERSION &&
	       ld.id.abi_version == NDIS_LOADER_ABI_VERSION &&
	       (ld.id.bus == NDIS_BUS_PCI || ld.id.bus == NDIS_BUS_USB) &&
	       plain_name(ld.id.driver, sizeof(ld.id.driver)) &&
	       ld.sys_size >= 1 && ld.sys_size <= NDIS_MAX_SYS_SIZE &&
	       plain_name(ld.sys_name, sizeof(ld.sys_name)) &&
	       ld.num_settings <= NDIS_MAX_SETTINGS;
	if (want != (err == 0))
		abort();
	if (ld.abi_version != NDIS_LOADER_ABI_VERSION && err != -EPROTO)
		abort();
	if (err)
		return;

	/* Accepted: what the module then copies and checks. */
	if (size > sizeof(ld))
		n = (size - sizeof(ld)) / sizeof(*settings);
	if (n > ld.num_settings)
		n = ld.num_settings;
	if (n) {
		settings = malloc(n * sizeof(*settings));
		if (!settings)
			return;
		memcpy(settings, data + sizeof(ld), n * sizeof(*settings));
	}
	why = NULL;
	err = ndis_msg_check_settings(settings, (__u32)n, &why);
	check_reason(err, why);
	want = 1;
	for (i = 0; i < n; i++) {
		const struct ndis_setting *s = &settings[i];

		/* what ndis.c later reads with strlen() must be terminated */
		if (!s->name[0] || !memchr(s->name, '\0', sizeof(s->name)) ||
		    !memchr(s->value, '\0', sizeof(s->value)))
			want = 0;
	}
	if (want != (err == 0))
		abort();
	/* more than the limit is refused, whatever the entries hold */
	if (n && ndis_msg_check_settings(settings,
					 NDIS_MAX_SETTINGS + 1 + data[0] / 2,
					 &why) != -E2BIG)
		abort();
	free(settings);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_load_driver(data + 1, size - 1);
	else
		fuzz_add_device(data + 1, size - 1);
	return 0;
}
