// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: ntoskrnl.exe's run-time library (Rtl*): counted strings,
 * their conversions and comparisons, integers to and from text, GUIDs,
 * and the memory helpers a driver imports instead of inlining.
 *
 * Written from the WDK reference. A counted string's Length and
 * MaximumLength are bytes; Length counts no terminating NUL, and the
 * functions add one only where there is room for it. The "ANSI" code
 * page here is ISO 8859-1: a byte is the code point of the same value,
 * and a character above 0xff becomes '?' on the way back (no NLS
 * tables). Buffers the functions allocate come from the calling driver's
 * pool (ntos_alloc), as RtlFreeUnicodeString/RtlFreeAnsiString expect.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "ntos.h"
#include "winexport.h"

#define WIN_MAX_USHORT	0xffff

static size_t ntos_wcslen(const u16 *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static char ntos_upcase(char c)
{
	return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c;
}

/* Upper case of the Latin-1 range; other characters are their own. */
static u16 ntos_upcase_w(u16 c)
{
	if ((c >= 'a' && c <= 'z') ||
	    (c >= 0xe0 && c <= 0xfe && c != 0xf7))
		return c - 0x20;
	if (c == 0xff)
		return 0x178;
	return c;
}

/* -- initialising ------------------------------------------------------- */

/* The string is src itself; the lengths are capped where USHORT ends. */
static void ntos_init_ansi(struct win_ansi_string *dst, const char *src)
{
	size_t len;

	dst->buffer = (char *)src;
	if (!src) {
		dst->length = 0;
		dst->max_length = 0;
		return;
	}
	len = min_t(size_t, strlen(src), WIN_MAX_USHORT - 1);
	dst->length = len;
	dst->max_length = len + 1;
}

static WIN_ABI void RtlInitAnsiString(struct win_ansi_string *dst,
				      const char *src)
{
	ntos_init_ansi(dst, src);
}
WIN_FUNC(RtlInitAnsiString);

static WIN_ABI void RtlInitString(struct win_ansi_string *dst,
				  const char *src)
{
	ntos_init_ansi(dst, src);
}
WIN_FUNC(RtlInitString);

static WIN_ABI void RtlInitUnicodeString(struct win_unicode_string *dst,
					 const u16 *src)
{
	size_t len;

	dst->buffer = (u16 *)src;
	if (!src) {
		dst->length = 0;
		dst->max_length = 0;
		return;
	}
	/* the largest even Length that leaves room for the NUL */
	len = min_t(size_t, ntos_wcslen(src) * 2, WIN_MAX_USHORT - 3);
	dst->length = len;
	dst->max_length = len + 2;
}
WIN_FUNC(RtlInitUnicodeString);

/* -- sizes and conversions ---------------------------------------------- */

/* Bytes a conversion needs, terminating NUL included. */
static WIN_ABI u32 RtlxAnsiStringToUnicodeSize(const struct win_ansi_string *s)
{
	return (s->length + 1) * 2;
}
WIN_FUNC(RtlxAnsiStringToUnicodeSize);

static WIN_ABI u32 RtlxUnicodeStringToAnsiSize(const struct win_unicode_string *s)
{
	return s->length / 2 + 1;
}
WIN_FUNC(RtlxUnicodeStringToAnsiSize);

static WIN_ABI s32 RtlAnsiStringToUnicodeString(struct win_unicode_string *dst,
						const struct win_ansi_string *src,
						u8 allocate)
{
	u32 need = RtlxAnsiStringToUnicodeSize(src);
	unsigned int i;

	if (need > WIN_MAX_USHORT)
		return STATUS_INVALID_PARAMETER_2;
	if (allocate) {
		dst->buffer = ntos_alloc((unsigned long)
					 __builtin_return_address(0), need);
		if (!dst->buffer)
			return STATUS_NO_MEMORY;
		dst->max_length = need;
	} else if (dst->max_length < need - 2) {
		return STATUS_BUFFER_OVERFLOW;
	}
	for (i = 0; i < src->length; i++)
		dst->buffer[i] = (u8)src->buffer[i];
	dst->length = src->length * 2;
	if (dst->max_length >= need)
		dst->buffer[src->length] = 0;
	return STATUS_SUCCESS;
}
WIN_FUNC(RtlAnsiStringToUnicodeString);

/*
 * Without allocate, a destination too short takes what fits (and a NUL)
 * and the result says STATUS_BUFFER_OVERFLOW.
 */
static WIN_ABI s32 RtlUnicodeStringToAnsiString(struct win_ansi_string *dst,
						const struct win_unicode_string *src,
						u8 allocate)
{
	u32 need = RtlxUnicodeStringToAnsiSize(src);
	s32 status = STATUS_SUCCESS;
	unsigned int i, n = src->length / 2;

	if (allocate) {
		dst->buffer = ntos_alloc((unsigned long)
					 __builtin_return_address(0), need);
		if (!dst->buffer)
			return STATUS_NO_MEMORY;
		dst->max_length = need;
	} else if (dst->max_length < need) {
		if (!dst->max_length)
			return STATUS_BUFFER_OVERFLOW;
		n = dst->max_length - 1;
		status = STATUS_BUFFER_OVERFLOW;
	}
	for (i = 0; i < n; i++)
		dst->buffer[i] = src->buffer[i] > 0xff ? '?' : src->buffer[i];
	dst->buffer[n] = '\0';
	dst->length = n;
	return status;
}
WIN_FUNC(RtlUnicodeStringToAnsiString);

static WIN_ABI void RtlFreeUnicodeString(struct win_unicode_string *s)
{
	ntos_free(s->buffer);
	s->buffer = NULL;
	s->length = 0;
	s->max_length = 0;
}
WIN_FUNC(RtlFreeUnicodeString);

static WIN_ABI void RtlFreeAnsiString(struct win_ansi_string *s)
{
	ntos_free(s->buffer);
	s->buffer = NULL;
	s->length = 0;
	s->max_length = 0;
}
WIN_FUNC(RtlFreeAnsiString);

/* -- copying and appending ---------------------------------------------- */

/* As much of src as dst holds; a NUL after it when there is room. */
static WIN_ABI void RtlCopyString(struct win_ansi_string *dst,
				  const struct win_ansi_string *src)
{
	u16 n;

	if (!src) {
		dst->length = 0;
		return;
	}
	n = min(src->length, dst->max_length);
	memmove(dst->buffer, src->buffer, n);
	dst->length = n;
	if (n < dst->max_length)
		dst->buffer[n] = '\0';
}
WIN_FUNC(RtlCopyString);

static WIN_ABI void RtlCopyUnicodeString(struct win_unicode_string *dst,
					 const struct win_unicode_string *src)
{
	u16 n;

	if (!src) {
		dst->length = 0;
		return;
	}
	n = min(src->length, dst->max_length) & ~1;
	memmove(dst->buffer, src->buffer, n);
	dst->length = n;
	if (n + 2 <= dst->max_length)
		dst->buffer[n / 2] = 0;
}
WIN_FUNC(RtlCopyUnicodeString);

static s32 ntos_append_w(struct win_unicode_string *dst, const u16 *src,
			 size_t bytes)
{
	size_t end = dst->length + bytes;

	if (end > dst->max_length)
		return STATUS_BUFFER_TOO_SMALL;
	memmove((u8 *)dst->buffer + dst->length, src, bytes);
	dst->length = end;
	if (end + 2 <= dst->max_length)
		dst->buffer[end / 2] = 0;
	return STATUS_SUCCESS;
}

static WIN_ABI s32
RtlAppendUnicodeStringToString(struct win_unicode_string *dst,
			       const struct win_unicode_string *src)
{
	return ntos_append_w(dst, src->buffer, src->length);
}
WIN_FUNC(RtlAppendUnicodeStringToString);

static WIN_ABI s32 RtlAppendUnicodeToString(struct win_unicode_string *dst,
					    const u16 *src)
{
	if (!src)
		return STATUS_SUCCESS;
	return ntos_append_w(dst, src, ntos_wcslen(src) * 2);
}
WIN_FUNC(RtlAppendUnicodeToString);

static WIN_ABI s32 RtlUpcaseUnicodeString(struct win_unicode_string *dst,
					  const struct win_unicode_string *src,
					  u8 allocate)
{
	unsigned int i;

	if (allocate) {
		dst->buffer = ntos_alloc((unsigned long)
					 __builtin_return_address(0),
					 src->length);
		if (!dst->buffer)
			return STATUS_NO_MEMORY;
		dst->max_length = src->length;
	} else if (dst->max_length < src->length) {
		return STATUS_BUFFER_OVERFLOW;
	}
	for (i = 0; i < src->length / 2; i++)
		dst->buffer[i] = ntos_upcase_w(src->buffer[i]);
	dst->length = src->length & ~1;
	return STATUS_SUCCESS;
}
WIN_FUNC(RtlUpcaseUnicodeString);

/* -- comparing ------------------------------------------------------------ */

/* The first differing character decides, then the length. */
static WIN_ABI s32 RtlCompareString(const struct win_ansi_string *a,
				    const struct win_ansi_string *b,
				    u8 case_insensitive)
{
	unsigned int i, n = min(a->length, b->length);

	for (i = 0; i < n; i++) {
		u8 ca = a->buffer[i], cb = b->buffer[i];

		if (case_insensitive) {
			ca = ntos_upcase(ca);
			cb = ntos_upcase(cb);
		}
		if (ca != cb)
			return (s32)ca - cb;
	}
	return (s32)a->length - b->length;
}
WIN_FUNC(RtlCompareString);

static WIN_ABI s32
RtlCompareUnicodeString(const struct win_unicode_string *a,
			const struct win_unicode_string *b,
			u8 case_insensitive)
{
	unsigned int i, n = min(a->length, b->length) / 2;

	for (i = 0; i < n; i++) {
		u16 ca = a->buffer[i], cb = b->buffer[i];

		if (case_insensitive) {
			ca = ntos_upcase_w(ca);
			cb = ntos_upcase_w(cb);
		}
		if (ca != cb)
			return (s32)ca - cb;
	}
	return (s32)a->length - b->length;
}
WIN_FUNC(RtlCompareUnicodeString);

static WIN_ABI u8 RtlEqualString(const struct win_ansi_string *a,
				 const struct win_ansi_string *b,
				 u8 case_insensitive)
{
	return a->length == b->length &&
	       !RtlCompareString(a, b, case_insensitive);
}
WIN_FUNC(RtlEqualString);

static WIN_ABI u8 RtlEqualUnicodeString(const struct win_unicode_string *a,
					const struct win_unicode_string *b,
					u8 case_insensitive)
{
	return a->length == b->length &&
	       !RtlCompareUnicodeString(a, b, case_insensitive);
}
WIN_FUNC(RtlEqualUnicodeString);

/* -- integers and text ---------------------------------------------------- */

static int ntos_digit(u16 c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/*
 * The parse both text-to-integer functions share, over n characters of
 * 8 or 16 bits: blanks (up to the space), a sign, with base 0 a 0x, 0o
 * or 0b prefix (10 otherwise), then digits up to the first that is not
 * one of the base's. No digits at all is 0, and success.
 */
static s32 ntos_parse_ulong(const void *text, size_t width, size_t n,
			    u32 base, u32 *value)
{
	size_t i = 0;
	bool neg = false;
	u32 v = 0;

#define CH(k) (width == 1 ? ((const u8 *)text)[k] : ((const u16 *)text)[k])
	if (!value)
		return STATUS_ACCESS_VIOLATION;
	if (base != 0 && base != 2 && base != 8 && base != 10 && base != 16)
		return STATUS_INVALID_PARAMETER;
	while (i < n && CH(i) && CH(i) <= ' ')
		i++;
	if (i < n && (CH(i) == '+' || CH(i) == '-'))
		neg = CH(i++) == '-';
	if (base == 0) {
		base = 10;
		if (i + 1 < n && CH(i) == '0') {
			switch (CH(i + 1)) {
			case 'x': case 'X':
				base = 16;
				break;
			case 'o': case 'O':
				base = 8;
				break;
			case 'b': case 'B':
				base = 2;
				break;
			}
			if (base != 10)
				i += 2;
		}
	}
	for (; i < n && (u32)ntos_digit(CH(i)) < base; i++)
		v = v * base + ntos_digit(CH(i));
#undef CH
	*value = neg ? -v : v;
	return STATUS_SUCCESS;
}

static WIN_ABI s32 RtlCharToInteger(const char *text, u32 base, u32 *value)
{
	return ntos_parse_ulong(text, 1, text ? strlen(text) : 0, base,
				value);
}
WIN_FUNC(RtlCharToInteger);

static WIN_ABI s32
RtlUnicodeStringToInteger(const struct win_unicode_string *s, u32 base,
			  u32 *value)
{
	return ntos_parse_ulong(s->buffer, 2, s->length / 2, base, value);
}
WIN_FUNC(RtlUnicodeStringToInteger);

/* The digits of value in base (0: 10), NUL-terminated, into s. */
static WIN_ABI s32 RtlIntegerToUnicodeString(u32 value, u32 base,
					     struct win_unicode_string *s)
{
	u16 digits[33];
	unsigned int n = 0, i;

	if (!base)
		base = 10;
	if (base != 2 && base != 8 && base != 10 && base != 16)
		return STATUS_INVALID_PARAMETER;
	do {
		digits[n++] = "0123456789ABCDEF"[value % base];
		value /= base;
	} while (value);
	if ((n + 1) * 2 > s->max_length)
		return STATUS_BUFFER_OVERFLOW;
	for (i = 0; i < n; i++)
		s->buffer[i] = digits[n - 1 - i];
	s->buffer[n] = 0;
	s->length = n * 2;
	return STATUS_SUCCESS;
}
WIN_FUNC(RtlIntegerToUnicodeString);

static WIN_ABI u64 RtlConvertUlongToLargeInteger(u32 value)
{
	return value;
}
WIN_FUNC(RtlConvertUlongToLargeInteger);

/* The GUID of "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}", exactly that. */
static WIN_ABI s32 RtlGUIDFromString(const struct win_unicode_string *s,
				     struct win_guid *guid)
{
	static const char form[] = "{________-____-____-____-____________}";
	u8 bytes[16];
	unsigned int i, nibble = 0;

	if (s->length != (sizeof(form) - 1) * 2)
		return STATUS_INVALID_PARAMETER;
	for (i = 0; i < sizeof(form) - 1; i++) {
		u16 c = s->buffer[i];
		int d;

		if (form[i] != '_') {
			if (c != form[i])
				return STATUS_INVALID_PARAMETER;
			continue;
		}
		d = ntos_digit(c);
		if (d > 15)
			return STATUS_INVALID_PARAMETER;
		if (nibble % 2)
			bytes[nibble / 2] |= d;
		else
			bytes[nibble / 2] = d << 4;
		nibble++;
	}
	/* Data1..Data3 are numbers (read big-endian from the text). */
	guid->data1 = (u32)bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 |
		      bytes[3];
	guid->data2 = bytes[4] << 8 | bytes[5];
	guid->data3 = bytes[6] << 8 | bytes[7];
	memcpy(guid->data4, bytes + 8, 8);
	return STATUS_SUCCESS;
}
WIN_FUNC(RtlGUIDFromString);

/* -- memory ----------------------------------------------------------------- */

/* How many leading bytes are the same. */
static WIN_ABI size_t RtlCompareMemory(const void *a, const void *b,
				       size_t len)
{
	const u8 *pa = a, *pb = b;
	size_t i = 0;

	while (i < len && pa[i] == pb[i])
		i++;
	return i;
}
WIN_FUNC(RtlCompareMemory);

static WIN_ABI void RtlCopyMemory(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}
WIN_FUNC(RtlCopyMemory);

static WIN_ABI void RtlMoveMemory(void *dst, const void *src, size_t len)
{
	memmove(dst, src, len);
}
WIN_FUNC(RtlMoveMemory);

/* Note the order: length before the fill byte. */
static WIN_ABI void RtlFillMemory(void *dst, size_t len, u8 fill)
{
	memset(dst, fill, len);
}
WIN_FUNC(RtlFillMemory);

static WIN_ABI void RtlZeroMemory(void *dst, size_t len)
{
	memset(dst, 0, len);
}
WIN_FUNC(RtlZeroMemory);

/* Zeroes that the compiler may not drop as dead stores. */
static WIN_ABI void *RtlSecureZeroMemory(void *dst, size_t len)
{
	volatile u8 *p = dst;

	while (len--)
		*p++ = 0;
	return dst;
}
WIN_FUNC(RtlSecureZeroMemory);

/* fastcall on i386, as the DDK declares them. */
static WIN_FASTCALL u32 RtlUlongByteSwap(u32 v)
{
	return __builtin_bswap32(v);
}
WIN_FUNC(RtlUlongByteSwap);

static WIN_FASTCALL u16 RtlUshortByteSwap(u16 v)
{
	return __builtin_bswap16(v);
}
WIN_FUNC(RtlUshortByteSwap);

/* -- RtlAssert ------------------------------------------------------------- */

/*
 * A checked build's failed ASSERT: with no debugger to break into, the
 * assertion is logged and the driver goes on, as Windows does when the
 * debugger lets it.
 */
static WIN_ABI void RtlAssert(const char *assertion, const char *file,
			      u32 line, const char *message)
{
	char text[200];

	snprintf(text, sizeof(text), "RtlAssert: %s failed at %s:%u%s%s",
		 assertion ? assertion : "?", file ? file : "?", line,
		 message ? ": " : "", message ? message : "");
	ntos_log((unsigned long)__builtin_return_address(0), text);
}
WIN_FUNC(RtlAssert);
