// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: NdisReadConfiguration's keyword decoding, settings
 * lookup and value conversion (wrapper/parse/ndiscfg.c, what ndis.c runs
 * when a driver reads its configuration).
 *
 * Input: byte 0 the type asked (its low two bits), byte 1 the room for a
 * string (1..256 units), bytes 2-3 the keyword's byte count (a count with
 * no bytes behind it: a NULL buffer), the keyword's UTF-16 units, then the
 * settings as lines "name|value" (cut to fit, at most 16). Oracle: a
 * keyword is accepted exactly when its units are printable ASCII and fit
 * with a NUL, and reads back as them; the lookup gives the first setting
 * equal to it with ASCII case ignored; every value converts as the
 * kernel's kstrtou32 rules say (restated here) or as its bytes widened,
 * cut to the room, terminated, nothing written past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ndiscfg.h"

#define MAX_SETTINGS 16

/* kstrtou32's rules, restated */
static int ref_u32(const char *s, unsigned int base, uint32_t *res)
{
	const char *digits = base == 16 ? "0123456789abcdefABCDEF" :
					   "0123456789";
	uint64_t v = 0;
	size_t n;

	if (*s == '+')
		s++;
	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    s[2] && strchr(digits, s[2]))
		s += 2;
	n = strspn(s, digits);
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		v = v * base + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	s += n;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = (uint32_t)v;
	return 0;
}

static void check_convert(const char *value, uint32_t type, size_t room)
{
	struct ndis_cfg_value v;
	uint16_t *string = malloc(room * sizeof(*string));
	uint32_t want_int = 0;
	size_t i, len = strlen(value);
	int as_int;

	if (!string)
		abort();
	as_int = (type == NDIS_PARAMETER_INTEGER &&
		  !ref_u32(value, 10, &want_int)) ||
		 (type == NDIS_PARAMETER_HEX_INTEGER &&
		  !ref_u32(value, 16, &want_int));
	ndis_cfg_convert(value, type, string, room, &v);
	if (as_int) {
		if (v.type != type || v.integer != want_int)
			abort();
	} else {
		if (len > room - 1)
			len = room - 1;
		if (v.type != NDIS_PARAMETER_STRING ||
		    v.length != len * sizeof(uint16_t) || string[len])
			abort();
		for (i = 0; i < len; i++)
			if (string[i] != (uint8_t)value[i])
				abort();
	}
	free(string);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ndis_setting set[MAX_SETTINGS];
	char name[NDIS_MAX_SETTING_NAME];
	const char *found, *want = NULL;
	uint16_t *units = NULL, klen;
	size_t room, n = 0, i, have;
	uint32_t type, num = 0;
	int ok;

	if (size < 4)
		return 0;
	type = data[0] & 3;
	room = data[1] + 1;
	memcpy(&klen, data + 2, sizeof(klen));
	data += 4;
	size -= 4;
	have = klen <= size ? klen : 0;	/* no bytes: no buffer */
	if (have) {
		units = malloc(have);	/* exactly the bytes claimed */
		if (!units)
			abort();
		memcpy(units, data, have);
		data += have;
		size -= have;
	}
	ok = ndis_cfg_keyword(units, klen, name, sizeof(name));
	{
		size_t count = klen / 2;
		int want_ok = count < sizeof(name) && (!count || units);

		for (i = 0; want_ok && i < count; i++) {
			uint16_t u;

			memcpy(&u, (uint8_t *)units + 2 * i, 2);
			want_ok = u && u <= 0x7e;
		}
		if (ok != want_ok)
			abort();
		for (i = 0; ok && i < count; i++) {
			uint16_t u;

			memcpy(&u, (uint8_t *)units + 2 * i, 2);
			if ((uint8_t)name[i] != u)
				abort();
		}
		if (ok && name[count])
			abort();
	}
	free(units);

	/* the settings: "name|value" lines */
	memset(set, 0, sizeof(set));
	while (n < size && num < MAX_SETTINGS) {
		const uint8_t *eol = memchr(data + n, '\n', size - n);
		size_t end = eol ? (size_t)(eol - data) : size;
		const uint8_t *bar = memchr(data + n, '|', end - n);
		size_t nlen = (bar ? (size_t)(bar - data) : end) - n;
		size_t vlen = bar ? end - (size_t)(bar - data) - 1 : 0;

		if (nlen >= NDIS_MAX_SETTING_NAME)
			nlen = NDIS_MAX_SETTING_NAME - 1;
		if (vlen >= NDIS_MAX_SETTING_VALUE)
			vlen = NDIS_MAX_SETTING_VALUE - 1;
		memcpy(set[num].name, data + n, nlen);
		if (bar)
			memcpy(set[num].value, bar + 1, vlen);
		num++;
		n = end + 1;
	}
	if (ok) {
		for (i = 0; i < num && !want; i++)
			if (!strcasecmp(set[i].name, name))
				want = set[i].value;
		found = ndis_cfg_find(set, num, name);
		if (found != want)
			abort();
		if (found)
			check_convert(found, type, room);
	}
	for (i = 0; i < num; i++)
		check_convert(set[i].value, type, room);
	return 0;
}
