// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of the loader messages (msg.h): shared by the ndiswrapper
 * module and the host builds (unit tests, fuzzers).
 */
#include "msg.h"

/* ASCII only: the kernel's isalnum() also takes Latin-1 letters. */
static bool ndis_msg_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool ndis_msg_valid_name(const char *name, size_t size)
{
	size_t len = strnlen(name, size);
	size_t i;

	if (len == 0 || len == size || name[0] == '.')
		return false;
	for (i = 0; i < len; i++)
		if (!ndis_msg_name_char(name[i]))
			return false;
	return true;
}

static int ndis_msg_fail(const char **why, const char *reason, int err)
{
	*why = reason;
	return err;
}

int ndis_msg_check_id(const struct ndis_device_id *id, const char **why)
{
	if (id->abi_version != NDIS_LOADER_ABI_VERSION)
		return ndis_msg_fail(why, "device id: wrong abi_version",
				     -EPROTO);
	if (id->bus != NDIS_BUS_PCI && id->bus != NDIS_BUS_USB)
		return ndis_msg_fail(why, "device id: unknown bus", -EINVAL);
	if (!ndis_msg_valid_name(id->driver, sizeof(id->driver)))
		return ndis_msg_fail(why, "device id: bad driver name",
				     -EINVAL);
	return 0;
}

int ndis_msg_check_load(const struct ndis_load_driver *ld, const char **why)
{
	int err;

	if (ld->abi_version != NDIS_LOADER_ABI_VERSION)
		return ndis_msg_fail(why, "load: wrong abi_version", -EPROTO);
	err = ndis_msg_check_id(&ld->id, why);
	if (err)
		return err;
	if (!ld->sys_size || ld->sys_size > NDIS_MAX_SYS_SIZE)
		return ndis_msg_fail(why, "load: sys_size 0 or too large",
				     -EFBIG);
	if (!ndis_msg_valid_name(ld->sys_name, sizeof(ld->sys_name)))
		return ndis_msg_fail(why, "load: bad sys_name", -EINVAL);
	if (ld->num_settings > NDIS_MAX_SETTINGS)
		return ndis_msg_fail(why, "load: too many settings", -E2BIG);
	return 0;
}

int ndis_msg_check_settings(const struct ndis_setting *settings, __u32 n,
			    const char **why)
{
	__u32 i;

	if (n > NDIS_MAX_SETTINGS)
		return ndis_msg_fail(why, "load: too many settings", -E2BIG);
	for (i = 0; i < n; i++) {
		const struct ndis_setting *s = &settings[i];
		size_t len = strnlen(s->name, sizeof(s->name));

		if (len == 0 || len == sizeof(s->name))
			return ndis_msg_fail(why, "setting: bad name",
					     -EINVAL);
		if (strnlen(s->value, sizeof(s->value)) == sizeof(s->value))
			return ndis_msg_fail(why,
					     "setting: value not terminated",
					     -EINVAL);
	}
	return 0;
}
