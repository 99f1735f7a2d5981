// SPDX-License-Identifier: GPL-2.0
/* Unit tests of wrapper/loader/msg.c: the ioctl message validators. */
#include <string.h>

#include "msg.h"
#include "tap.h"

static struct ndis_device_id good_id(void)
{
	struct ndis_device_id id;

	memset(&id, 0, sizeof(id));
	id.abi_version = NDIS_LOADER_ABI_VERSION;
	id.bus = NDIS_BUS_USB;
	strcpy(id.driver, "net8187");
	return id;
}

static struct ndis_load_driver good_load(void)
{
	struct ndis_load_driver ld;

	memset(&ld, 0, sizeof(ld));
	ld.abi_version = NDIS_LOADER_ABI_VERSION;
	ld.id = good_id();
	strcpy(ld.sys_name, "net8187.sys");
	ld.sys_size = NDIS_MAX_SYS_SIZE;
	ld.num_settings = NDIS_MAX_SETTINGS;
	return ld;
}

static void test_names(void)
{
	char full[8];

	CHECK(ndis_msg_valid_name("bcmwl5.sys", 11));
	CHECK(ndis_msg_valid_name("a-b_c.1", 8));
	CHECK(!ndis_msg_valid_name("", 8));
	CHECK(!ndis_msg_valid_name(".", 8));
	CHECK(!ndis_msg_valid_name("..", 8));
	CHECK(!ndis_msg_valid_name(".hidden", 8));
	CHECK(!ndis_msg_valid_name("a/b", 8));
	CHECK(!ndis_msg_valid_name("a b", 8));
	/* Latin-1 letters: the kernel's isalnum() would take them */
	CHECK(!ndis_msg_valid_name("caf\xe9", 8));
	memset(full, 'a', sizeof(full));
	CHECK(!ndis_msg_valid_name(full, sizeof(full)));	/* no NUL */
	full[7] = '\0';
	CHECK(ndis_msg_valid_name(full, sizeof(full)));
}

static void test_id(void)
{
	struct ndis_device_id id = good_id();
	const char *why = NULL;

	CHECK(ndis_msg_check_id(&id, &why) == 0);
	id.bus = NDIS_BUS_PCI;
	CHECK(ndis_msg_check_id(&id, &why) == 0);
	id.bus = 3;
	CHECK(ndis_msg_check_id(&id, &why) == -EINVAL);
	CHECK_STR(why, "device id: unknown bus");
	id = good_id();
	id.abi_version = 0;
	CHECK(ndis_msg_check_id(&id, &why) == -EPROTO);
	id = good_id();
	strcpy(id.driver, "../x");
	CHECK(ndis_msg_check_id(&id, &why) == -EINVAL);
	CHECK_STR(why, "device id: bad driver name");
}

static void test_load(void)
{
	struct ndis_load_driver ld = good_load();
	const char *why = NULL;

	CHECK(ndis_msg_check_load(&ld, &why) == 0);	/* limits included */
	ld.abi_version = 2;
	CHECK(ndis_msg_check_load(&ld, &why) == -EPROTO);
	ld = good_load();
	ld.id.abi_version = 2;
	CHECK(ndis_msg_check_load(&ld, &why) == -EPROTO);
	ld = good_load();
	ld.sys_size = 0;
	CHECK(ndis_msg_check_load(&ld, &why) == -EFBIG);
	ld.sys_size = NDIS_MAX_SYS_SIZE + 1ull;
	CHECK(ndis_msg_check_load(&ld, &why) == -EFBIG);
	ld.sys_size = ~0ull;
	CHECK(ndis_msg_check_load(&ld, &why) == -EFBIG);
	ld = good_load();
	ld.num_settings = NDIS_MAX_SETTINGS + 1;
	CHECK(ndis_msg_check_load(&ld, &why) == -E2BIG);
	ld.num_settings = ~0u;
	CHECK(ndis_msg_check_load(&ld, &why) == -E2BIG);
	ld = good_load();
	memset(ld.sys_name, 'x', sizeof(ld.sys_name));
	CHECK(ndis_msg_check_load(&ld, &why) == -EINVAL);
	CHECK_STR(why, "load: bad sys_name");
}

static void test_settings(void)
{
	struct ndis_setting s[2];
	const char *why = NULL;

	memset(s, 0, sizeof(s));
	strcpy(s[0].name, "MPC");
	strcpy(s[1].name, "RoamTrigger");
	strcpy(s[1].value, "-70");
	CHECK(ndis_msg_check_settings(s, 2, &why) == 0);
	CHECK(ndis_msg_check_settings(NULL, 0, &why) == 0);
	CHECK(ndis_msg_check_settings(s, NDIS_MAX_SETTINGS + 1, &why) ==
	      -E2BIG);
	memset(s[1].value, 'v', sizeof(s[1].value));
	CHECK(ndis_msg_check_settings(s, 2, &why) == -EINVAL);
	CHECK_STR(why, "setting: value not terminated");
	CHECK(ndis_msg_check_settings(s, 1, &why) == 0);
	s[0].name[0] = '\0';
	CHECK(ndis_msg_check_settings(s, 1, &why) == -EINVAL);
	memset(s[0].name, 'n', sizeof(s[0].name));
	CHECK(ndis_msg_check_settings(s, 1, &why) == -EINVAL);
}

int main(void)
{
	TEST(test_names);
	TEST(test_id);
	TEST(test_load);
	TEST(test_settings);
	return tap_done();
}
