// SPDX-License-Identifier: GPL-2.0
/* NdisReadConfiguration's keyword, lookup and conversion (ndiscfg.h). */
#include "ndiscfg.h"

bool ndis_cfg_keyword(const u16 *buffer, u16 length, char *out,
		      size_t size)
{
	size_t i, n = length / sizeof(u16);

	if (n >= size || (n && !buffer))
		return false;
	for (i = 0; i < n; i++) {
		if (!buffer[i] || buffer[i] > 0x7e)
			return false;
		out[i] = buffer[i];
	}
	out[n] = '\0';
	return true;
}

static char ndis_cfg_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* a (size bytes) and b equal up to a NUL, ASCII case ignored. */
static bool ndis_cfg_same(const char *a, size_t size, const char *b)
{
	size_t i;

	for (i = 0; i < size; i++) {
		if (ndis_cfg_lower(a[i]) != ndis_cfg_lower(b[i]))
			return false;
		if (!a[i])
			return true;
	}
	return false;
}

const char *ndis_cfg_find(const struct ndis_setting *settings, u32 num,
			  const char *name)
{
	u32 i;

	for (i = 0; i < num; i++)
		if (ndis_cfg_same(settings[i].name, sizeof(settings[i].name),
				  name))
			return settings[i].value;
	return NULL;
}

static int ndis_cfg_digit(char c, unsigned int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return d < (int)base ? d : -1;
}

int ndis_cfg_parse_u32(const char *s, unsigned int base, u32 *res)
{
	u64 v = 0;
	int d, n = 0;

	if (*s == '+')
		s++;
	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    ndis_cfg_digit(s[2], 16) >= 0)
		s += 2;
	for (; (d = ndis_cfg_digit(*s, base)) >= 0; s++, n++) {
		v = v * base + d;
		if (v > 0xffffffffULL)
			return -ERANGE;
	}
	if (*s == '\n')
		s++;
	if (!n || *s)
		return -EINVAL;
	*res = v;
	return 0;
}

void ndis_cfg_convert(const char *value, u32 type, u16 *string,
		      size_t size, struct ndis_cfg_value *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if ((type == NDIS_PARAMETER_INTEGER &&
	     !ndis_cfg_parse_u32(value, 10, &out->integer)) ||
	    (type == NDIS_PARAMETER_HEX_INTEGER &&
	     !ndis_cfg_parse_u32(value, 16, &out->integer))) {
		out->type = type;
		return;
	}
	/* Latin-1 bytes are their own UTF-16 code units */
	for (i = 0; value[i] && i + 1 < size; i++)
		string[i] = (u8)value[i];
	if (size)
		string[i] = 0;
	out->type = NDIS_PARAMETER_STRING;
	out->length = i * sizeof(u16);
}
