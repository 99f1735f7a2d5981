// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of wrapper/parse/: the wrapper's parsers of driver output
 * (the BSSID list walk, select-configuration's interface list,
 * NdisReadConfiguration's keyword, lookup and conversion).
 */
#include <stddef.h>
#include <string.h>

#include "bssid.h"
#include "ndiscfg.h"
#include "usbcfg.h"
#include "tap.h"

/* -- BSSID list ----------------------------------------------------------- */

/* Appends an entry of entry_len bytes at off; returns the next offset. */
static u32 put_bss(u8 *buf, u32 off, u32 entry_len, u8 tag, u32 ssid_len,
		   u32 ie_length)
{
	struct ndis_bssid_ex e;

	memset(&e, 0, sizeof(e));
	e.length = entry_len;
	memset(e.mac, tag, sizeof(e.mac));
	e.ssid.len = ssid_len;
	memset(e.ssid.ssid, 'a', sizeof(e.ssid.ssid));
	e.infrastructure_mode = 1;
	e.ie_length = ie_length;
	memcpy(buf + off, &e, sizeof(e));
	return off + entry_len;
}

static void set_count(u8 *buf, u32 count)
{
	memcpy(buf, &count, sizeof(count));
}

static void test_bssid_start(void)
{
	struct ndis_bssid_walk w;
	u8 buf[8] = { 0 };

	CHECK(ndis_bssid_walk_start(&w, buf, 3, sizeof(buf)) == -EIO);
	CHECK(ndis_bssid_walk_start(&w, buf, 9, sizeof(buf)) == -EIO);
	set_count(buf, 5);
	CHECK(ndis_bssid_walk_start(&w, buf, 4, sizeof(buf)) == 0);
	CHECK(w.count == 5);
	/* five promised, none written */
	{
		struct ndis_bssid_entry out;

		CHECK(!ndis_bssid_walk_next(&w, &out));
	}
}

static void test_bssid_entries(void)
{
	static u8 buf[1024];
	const u8 ies[] = { 0, 3, 'n', 'e', 't', 1, 2, 0x82, 0x84 };
	struct ndis_bssid_walk w;
	struct ndis_bssid_entry out;
	u32 fixed = sizeof(struct ndis_fixed_ies);
	u32 first = sizeof(struct ndis_bssid_ex) + fixed + sizeof(ies);
	u32 off = 4;

	memset(buf, 0, sizeof(buf));
	off = put_bss(buf, off, first, 1, 3, fixed + sizeof(ies));
	memcpy(buf + 4 + sizeof(struct ndis_bssid_ex) + fixed, ies,
	       sizeof(ies));
	/* an SSID longer than NDIS allows, IELength past the entry */
	off = put_bss(buf, off, sizeof(struct ndis_bssid_ex) + 4, 2, 200, 64);
	set_count(buf, 3);
	CHECK(ndis_bssid_walk_start(&w, buf, off, sizeof(buf)) == 0);

	CHECK(ndis_bssid_walk_next(&w, &out));
	CHECK(out.e == (const void *)(buf + 4));
	CHECK(out.e->mac[0] == 1);
	CHECK(out.ssid_len == 3);
	CHECK(out.fixed == (const void *)out.e->ies);
	CHECK(out.ies == out.e->ies + fixed);
	CHECK(out.ie_len == sizeof(ies));

	CHECK(ndis_bssid_walk_next(&w, &out));
	CHECK(out.e->mac[0] == 2);
	CHECK(out.ssid_len == NDIS_SSID_MAX);
	CHECK(!out.fixed && !out.ies && out.ie_len == 0);

	/* the third entry of the count was not written */
	CHECK(!ndis_bssid_walk_next(&w, &out));
	CHECK(w.index == 2);
}

static void test_bssid_bad_lengths(void)
{
	static u8 buf[1024];
	struct ndis_bssid_walk w;
	struct ndis_bssid_entry out;
	u32 size = sizeof(struct ndis_bssid_ex);
	u32 off;

	/* Length shorter than the fixed fields: the walk stops there */
	memset(buf, 0, sizeof(buf));
	off = put_bss(buf, 4, size, 1, 0, 0);
	put_bss(buf, off, size - 1, 2, 0, 0);
	set_count(buf, 2);
	CHECK(ndis_bssid_walk_start(&w, buf, off + size, sizeof(buf)) == 0);
	CHECK(ndis_bssid_walk_next(&w, &out));
	CHECK(!ndis_bssid_walk_next(&w, &out));

	/* Length past the written bytes */
	memset(buf, 0, sizeof(buf));
	put_bss(buf, 4, size + 1, 1, 0, 0);
	set_count(buf, 1);
	CHECK(ndis_bssid_walk_start(&w, buf, 4 + size, sizeof(buf)) == 0);
	CHECK(!ndis_bssid_walk_next(&w, &out));

	/* IELength below the fixed fields: no fixed fields, no IEs */
	memset(buf, 0, sizeof(buf));
	put_bss(buf, 4, size + 8, 1, 0, 8);
	set_count(buf, 1);
	CHECK(ndis_bssid_walk_start(&w, buf, 4 + size + 8, sizeof(buf)) == 0);
	CHECK(ndis_bssid_walk_next(&w, &out));
	CHECK(!out.fixed && !out.ies && out.ie_len == 0);
}

static void test_bssid_cut_ie(void)
{
	static u8 buf[1024];
	/* an SSID element, then one whose length runs past the IEs */
	const u8 ies[] = { 0, 3, 'n', 'e', 't', 1, 8, 0x82 };
	const u8 whole[] = { 0, 0, 221, 1, 7 };
	u32 fixed = sizeof(struct ndis_fixed_ies);
	u32 len = sizeof(struct ndis_bssid_ex) + fixed + sizeof(ies);
	struct ndis_bssid_walk w;
	struct ndis_bssid_entry out;

	memset(buf, 0, sizeof(buf));
	put_bss(buf, 4, len, 1, 3, fixed + sizeof(ies));
	memcpy(buf + 4 + sizeof(struct ndis_bssid_ex) + fixed, ies,
	       sizeof(ies));
	set_count(buf, 1);
	CHECK(ndis_bssid_walk_start(&w, buf, 4 + len, sizeof(buf)) == 0);
	CHECK(ndis_bssid_walk_next(&w, &out));
	CHECK(out.ie_len == 5);

	CHECK(ndis_bssid_whole_ies(whole, sizeof(whole)) == sizeof(whole));
	CHECK(ndis_bssid_whole_ies(whole, 1) == 0);
	CHECK(ndis_bssid_whole_ies(whole, 4) == 2);
}

/* -- select configuration ---------------------------------------------- */

static const struct ndis_usbcfg_pipe pipes[2] = {
	{ 512, 0x81, 0, 2, (void *)0x1001 },
	{ 64, 0x02, 4, 3, (void *)0x1002 },
};

static const struct ndis_usbcfg_dev dev = {
	.config_value = 1, .interface_number = 0, .alternate_setting = 0,
	.class = 0xff, .subclass = 0xfe, .protocol = 0xfd,
	.num_pipes = 2, .pipes = pipes, .handle = (void *)0x2000,
};

/* Two entries: interface 5 with no pipe, then interface 0 with two. */
static size_t two_entries(u64 *store, size_t size)
{
	struct usbd_interface_information *a = (void *)store, *b;

	memset(store, 0, size);
	a->length = USBD_INTERFACE_SIZE(0);
	a->interface_number = 5;
	a->interface_handle = (void *)0x77;
	a->number_of_pipes = 9;
	b = (void *)((u8 *)store + a->length);
	b->length = USBD_INTERFACE_SIZE(2);
	b->pipes[1].maximum_transfer_size = 8192;
	return a->length + b->length;
}

static void test_usbcfg_select(void)
{
	u64 store[32];
	size_t len = two_entries(store, sizeof(store));
	struct usbd_interface_information *a = (void *)store, *b;

	b = (void *)((u8 *)store + a->length);
	CHECK(ndis_usbcfg_select((u8 *)store, len, 1, &dev) == 0);
	CHECK(a->interface_handle == NULL && a->number_of_pipes == 0);
	CHECK(b->interface_handle == dev.handle);
	CHECK(b->number_of_pipes == 2);
	CHECK(b->class == 0xff && b->subclass == 0xfe && b->protocol == 0xfd);
	CHECK(b->pipes[0].maximum_packet_size == 512);
	CHECK(b->pipes[0].endpoint_address == 0x81);
	CHECK(b->pipes[0].pipe_type == 2);
	CHECK(b->pipes[0].pipe_handle == (void *)0x1001);
	CHECK(b->pipes[0].maximum_transfer_size ==
	      USBD_DEFAULT_MAXIMUM_TRANSFER_SIZE);
	CHECK(b->pipes[1].interval == 4);
	CHECK(b->pipes[1].maximum_transfer_size == 8192);
}

static void test_usbcfg_refused(void)
{
	u64 store[32];
	size_t len = two_entries(store, sizeof(store));
	struct usbd_interface_information *a = (void *)store, *b;

	b = (void *)((u8 *)store + a->length);
	CHECK(ndis_usbcfg_select((u8 *)store, len, 2, &dev) == -EINVAL);
	CHECK(ndis_usbcfg_select((u8 *)store, USBD_INTERFACE_SIZE(0) - 1, 1,
				 &dev) == -EINVAL);
	/* the list ends inside the second entry */
	CHECK(ndis_usbcfg_select((u8 *)store, len - 8, 1, &dev) == -EINVAL);
	CHECK(b->interface_handle == NULL);
	/* no room for the second pipe */
	b->length = USBD_INTERFACE_SIZE(1);
	CHECK(ndis_usbcfg_select((u8 *)store, len, 1, &dev) == -EINVAL);
	CHECK(b->interface_handle == NULL);
	/* another alternate setting */
	two_entries(store, sizeof(store));
	b->alternate_setting = 1;
	CHECK(ndis_usbcfg_select((u8 *)store, len, 1, &dev) == -EINVAL);
	/*
	 * a Length that puts the next entry off its alignment (the fuzzer's
	 * first finding: UBSan, misaligned member access)
	 */
	two_entries(store, sizeof(store));
	a->length = USBD_INTERFACE_SIZE(0) + 1;
	CHECK(ndis_usbcfg_select((u8 *)store, len, 1, &dev) == -EINVAL);
	CHECK(a->interface_handle == (void *)0x77);
	/* a Length shorter than the entry's header */
	two_entries(store, sizeof(store));
	a->length = sizeof(*a) - 1;
	CHECK(ndis_usbcfg_select((u8 *)store, len, 1, &dev) == -EINVAL);
}

/* -- NdisReadConfiguration ------------------------------------------------ */

static void test_cfg_keyword(void)
{
	const u16 media[] = { 'M', 'e', 'd', 'i', 'a' };
	const u16 wide[] = { 'a', 0xe9 }, nul[] = { 'a', 0, 'b' };
	char out[8];

	CHECK(ndis_cfg_keyword(media, sizeof(media), out, sizeof(out)));
	CHECK_STR(out, "Media");
	/* an odd byte count: the last byte is no character */
	CHECK(ndis_cfg_keyword(media, 5, out, sizeof(out)));
	CHECK_STR(out, "Me");
	CHECK(ndis_cfg_keyword(media, 0, out, sizeof(out)));
	CHECK_STR(out, "");
	CHECK(!ndis_cfg_keyword(wide, sizeof(wide), out, sizeof(out)));
	CHECK(!ndis_cfg_keyword(nul, sizeof(nul), out, sizeof(out)));
	/* five characters and the NUL do not fit in five bytes */
	CHECK(!ndis_cfg_keyword(media, sizeof(media), out, 5));
	/* a driver's UNICODE_STRING with no buffer */
	CHECK(ndis_cfg_keyword(NULL, 0, out, sizeof(out)));
	CHECK_STR(out, "");
	CHECK(!ndis_cfg_keyword(NULL, 8, out, sizeof(out)));
}

static void test_cfg_find(void)
{
	static struct ndis_setting set[3];

	memset(set, 0, sizeof(set));
	strcpy(set[0].name, "NetworkAddress");
	strcpy(set[0].value, "first");
	strcpy(set[1].name, "networkaddress");
	strcpy(set[1].value, "second");
	strcpy(set[2].name, "Mode");
	strcpy(set[2].value, "3");
	CHECK_STR(ndis_cfg_find(set, 3, "NETWORKADDRESS"), "first");
	CHECK_STR(ndis_cfg_find(set, 3, "mode"), "3");
	CHECK(ndis_cfg_find(set, 3, "Mod") == NULL);
	CHECK(ndis_cfg_find(set, 3, "Modes") == NULL);
	CHECK(ndis_cfg_find(set, 2, "mode") == NULL);
	CHECK(ndis_cfg_find(set, 0, "mode") == NULL);
	/* a name filling its array, no NUL: compared within it */
	memset(set[2].name, 'x', sizeof(set[2].name));
	CHECK(ndis_cfg_find(set, 3, "x") == NULL);
}

static void test_cfg_parse_u32(void)
{
	u32 v = 7;

	CHECK(ndis_cfg_parse_u32("10", 10, &v) == 0 && v == 10);
	CHECK(ndis_cfg_parse_u32("+7", 10, &v) == 0 && v == 7);
	CHECK(ndis_cfg_parse_u32("12\n", 10, &v) == 0 && v == 12);
	CHECK(ndis_cfg_parse_u32("4294967295", 10, &v) == 0 &&
	      v == 4294967295U);
	CHECK(ndis_cfg_parse_u32("0x1F", 16, &v) == 0 && v == 0x1f);
	CHECK(ndis_cfg_parse_u32("1f", 16, &v) == 0 && v == 0x1f);
	CHECK(ndis_cfg_parse_u32("FFFFFFFF", 16, &v) == 0 && v == 0xffffffff);
	v = 7;
	CHECK(ndis_cfg_parse_u32("4294967296", 10, &v) == -ERANGE);
	CHECK(ndis_cfg_parse_u32("100000000", 16, &v) == -ERANGE);
	CHECK(ndis_cfg_parse_u32("", 10, &v) == -EINVAL);
	CHECK(ndis_cfg_parse_u32("+", 10, &v) == -EINVAL);
	CHECK(ndis_cfg_parse_u32("-1", 10, &v) == -EINVAL);
	CHECK(ndis_cfg_parse_u32(" 1", 10, &v) == -EINVAL);
	CHECK(ndis_cfg_parse_u32("1 ", 10, &v) == -EINVAL);
	CHECK(ndis_cfg_parse_u32("12\n\n", 10, &v) == -EINVAL);
	CHECK(ndis_cfg_parse_u32("0x1F", 10, &v) == -EINVAL);
	CHECK(ndis_cfg_parse_u32("0x", 16, &v) == -EINVAL);
	CHECK(ndis_cfg_parse_u32("1a", 10, &v) == -EINVAL);
	CHECK(v == 7);			/* untouched on failure */
}

static void test_cfg_convert(void)
{
	struct ndis_cfg_value out;
	struct {
		u16 string[4];
		u16 canary;
	} s;

	ndis_cfg_convert("42", NDIS_PARAMETER_INTEGER, s.string, 4, &out);
	CHECK(out.type == NDIS_PARAMETER_INTEGER && out.integer == 42);
	ndis_cfg_convert("2a", NDIS_PARAMETER_HEX_INTEGER, s.string, 4, &out);
	CHECK(out.type == NDIS_PARAMETER_HEX_INTEGER && out.integer == 42);
	/* not a number in the base asked: the value as a string */
	ndis_cfg_convert("2a", NDIS_PARAMETER_INTEGER, s.string, 4, &out);
	CHECK(out.type == NDIS_PARAMETER_STRING && out.length == 4);
	CHECK(s.string[0] == '2' && s.string[1] == 'a' && s.string[2] == 0);
	ndis_cfg_convert("\xe9", NDIS_PARAMETER_STRING, s.string, 4, &out);
	CHECK(out.type == NDIS_PARAMETER_STRING && out.length == 2);
	CHECK(s.string[0] == 0xe9 && s.string[1] == 0);
	/* longer than the room: cut, terminated, nothing written past it */
	s.canary = 0x5a5a;
	ndis_cfg_convert("abcdef", 7, s.string, 4, &out);
	CHECK(out.type == NDIS_PARAMETER_STRING && out.length == 6);
	CHECK(s.string[2] == 'c' && s.string[3] == 0);
	CHECK(s.canary == 0x5a5a);
}

int main(void)
{
	TEST(test_bssid_start);
	TEST(test_bssid_entries);
	TEST(test_bssid_bad_lengths);
	TEST(test_bssid_cut_ie);
	TEST(test_usbcfg_select);
	TEST(test_usbcfg_refused);
	TEST(test_cfg_keyword);
	TEST(test_cfg_find);
	TEST(test_cfg_parse_u32);
	TEST(test_cfg_convert);
	return tap_done();
}
