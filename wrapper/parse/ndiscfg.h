/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NdisReadConfiguration's side of the settings table: the keyword a driver
 * asks for (a counted UTF-16 UNICODE_STRING), the lookup in the device's
 * settings (loader_abi.h: name|value pairs from its .conf file) and the
 * value in the type the driver asked for.
 */
#ifndef NDIS_PARSE_NDISCFG_H
#define NDIS_PARSE_NDISCFG_H

#include "parse_compat.h"
#include "../include/loader_abi.h"

/* NDIS_PARAMETER_TYPE */
#define NDIS_PARAMETER_INTEGER		0
#define NDIS_PARAMETER_HEX_INTEGER	1
#define NDIS_PARAMETER_STRING		2

/*
 * The keyword as a NUL-terminated ASCII name in out (size bytes): length
 * is in bytes (an odd last byte is ignored), buffer may be NULL only when
 * length is 0. false when a character is NUL or not printable ASCII, or
 * the name and its NUL do not fit.
 */
bool ndis_cfg_keyword(const u16 *buffer, u16 length, char *out,
		      size_t size);

/*
 * The value of the first setting called name (NUL-terminated, ASCII case
 * ignored), or NULL.
 */
const char *ndis_cfg_find(const struct ndis_setting *settings, u32 num,
			  const char *name);

/*
 * The kernel's kstrtou32: an optional '+', then digits of base (10 or 16;
 * 16 takes an optional "0x"), an optional '\n'; 0, -EINVAL or -ERANGE.
 */
int ndis_cfg_parse_u32(const char *s, unsigned int base, u32 *res);

/* What NdisReadConfiguration returns for a setting's value. */
struct ndis_cfg_value {
	u32 type;			/* NDIS_PARAMETER_* */
	u32 integer;			/* _INTEGER, _HEX_INTEGER */
	u16 length;			/* _STRING: bytes, no terminating NUL */
};

/*
 * value (NUL-terminated) as type: an integer when the driver asks for one
 * and the value is one in that base, else a string: the value's bytes
 * widened to UTF-16 into string (size units, terminated, cut to fit).
 */
void ndis_cfg_convert(const char *value, u32 type, u16 *string,
		      size_t size, struct ndis_cfg_value *out);

#endif /* NDIS_PARSE_NDISCFG_H */
