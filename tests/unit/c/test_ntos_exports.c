// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ntoskrnl.exe's exports by concern (wrapper/driver/
 * ntos_rtl.c, crt.c, ntos_io.c, ntos_zw.c), built -nostdinc against
 * kmock as the kernel builds them, and called here through their export entries (win_export_NAME)
 * with the Windows calling convention, as a driver calls them. The
 * pool they allocate from is this file's (ntos_alloc), which counts.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <uchar.h>
#include <unistd.h>

#include "kmock_kernel.h"
#include "tap.h"

#define WABI __attribute__((ms_abi))

struct win_export {
	const char *name;
	void *func;
};

/* The export's function as a pointer of type t. */
#define EXPORT(name) extern const struct win_export win_export_##name
#define FN(t, name) ((t)win_export_##name.func)

struct ustr {
	unsigned short length, max_length;
	char16_t *buffer;
};

struct astr {
	unsigned short length, max_length;
	char *buffer;
};

struct guid {
	unsigned int data1;
	unsigned short data2, data3;
	unsigned char data4[8];
};

#define STATUS_SUCCESS			0x00000000
#define STATUS_BUFFER_OVERFLOW		((int)0x80000005)
#define STATUS_ACCESS_VIOLATION		((int)0xC0000005)
#define STATUS_INVALID_PARAMETER	((int)0xC000000D)
#define STATUS_NO_MEMORY		((int)0xC0000017)
#define STATUS_BUFFER_TOO_SMALL		((int)0xC0000023)

/* -- the pool ntos_alloc draws from --------------------------------------- */

static int pool_live;		/* blocks allocated and not freed */
static int pool_fail;		/* the next allocation fails */
static unsigned long pool_caller;

void *ntos_alloc(unsigned long caller, size_t size);
void ntos_free(void *ptr);

void *ntos_alloc(unsigned long caller, size_t size)
{
	void *p;

	pool_caller = caller;
	if (pool_fail) {
		pool_fail = 0;
		return NULL;
	}
	p = calloc(1, size ? size : 1);
	if (p)
		pool_live++;
	return p;
}

void ntos_free(void *ptr)
{
	if (ptr)
		pool_live--;
	free(ptr);
}

/* -- Rtl strings -------------------------------------------------------- */

EXPORT(RtlInitAnsiString);
EXPORT(RtlInitString);
EXPORT(RtlInitUnicodeString);
EXPORT(RtlxAnsiStringToUnicodeSize);
EXPORT(RtlxUnicodeStringToAnsiSize);
EXPORT(RtlAnsiStringToUnicodeString);
EXPORT(RtlUnicodeStringToAnsiString);
EXPORT(RtlFreeUnicodeString);
EXPORT(RtlFreeAnsiString);
EXPORT(RtlCopyString);
EXPORT(RtlCopyUnicodeString);
EXPORT(RtlAppendUnicodeStringToString);
EXPORT(RtlAppendUnicodeToString);
EXPORT(RtlUpcaseUnicodeString);
EXPORT(RtlCompareString);
EXPORT(RtlCompareUnicodeString);
EXPORT(RtlEqualString);
EXPORT(RtlEqualUnicodeString);

typedef WABI void (*init_a_fn)(struct astr *, const char *);
typedef WABI void (*init_u_fn)(struct ustr *, const char16_t *);
typedef WABI unsigned int (*size_a_fn)(const struct astr *);
typedef WABI unsigned int (*size_u_fn)(const struct ustr *);
typedef WABI int (*a2u_fn)(struct ustr *, const struct astr *, unsigned char);
typedef WABI int (*u2a_fn)(struct astr *, const struct ustr *, unsigned char);
typedef WABI int (*uu_fn)(struct ustr *, const struct ustr *, unsigned char);
typedef WABI void (*free_u_fn)(struct ustr *);
typedef WABI void (*free_a_fn)(struct astr *);
typedef WABI void (*copy_a_fn)(struct astr *, const struct astr *);
typedef WABI void (*copy_u_fn)(struct ustr *, const struct ustr *);
typedef WABI int (*append_us_fn)(struct ustr *, const struct ustr *);
typedef WABI int (*append_u_fn)(struct ustr *, const char16_t *);
typedef WABI int (*cmp_a_fn)(const struct astr *, const struct astr *,
			     unsigned char);
typedef WABI int (*cmp_u_fn)(const struct ustr *, const struct ustr *,
			     unsigned char);
typedef WABI unsigned char (*eq_a_fn)(const struct astr *,
				      const struct astr *, unsigned char);
typedef WABI unsigned char (*eq_u_fn)(const struct ustr *,
				      const struct ustr *, unsigned char);

static void test_rtl_init(void)
{
	static const char16_t w[] = u"Wlan";
	struct astr a = { 7, 7, (char *)1 };
	struct ustr u;

	FN(init_a_fn, RtlInitAnsiString)(&a, "hello");
	CHECK(a.length == 5 && a.max_length == 6);
	CHECK(!strcmp(a.buffer, "hello"));
	FN(init_a_fn, RtlInitString)(&a, NULL);
	CHECK(a.length == 0 && a.max_length == 0 && a.buffer == NULL);
	FN(init_u_fn, RtlInitUnicodeString)(&u, w);
	CHECK(u.length == 8 && u.max_length == 10 && u.buffer == w);
	FN(init_u_fn, RtlInitUnicodeString)(&u, NULL);
	CHECK(u.length == 0 && u.max_length == 0 && u.buffer == NULL);
}

static void test_rtl_convert(void)
{
	char16_t wbuf[8];
	char abuf[4];
	struct astr a = { 3, 4, "abc" };
	struct astr hi = { 2, 3, "\xe9z" };
	struct ustr u = { 0, sizeof(wbuf), wbuf };
	struct ustr wide = { 8, 10, (char16_t *)u"a\x20acz\xff" };
	struct astr out = { 0, sizeof(abuf), abuf };
	int live = pool_live;

	CHECK(FN(size_a_fn, RtlxAnsiStringToUnicodeSize)(&a) == 8);
	CHECK(FN(size_u_fn, RtlxUnicodeStringToAnsiSize)(&wide) == 5);

	memset(wbuf, 0x55, sizeof(wbuf));
	CHECK(FN(a2u_fn, RtlAnsiStringToUnicodeString)(&u, &a, 0) ==
	      STATUS_SUCCESS);
	CHECK(u.length == 6 && !memcmp(wbuf, u"abc", 8));
	/* bytes are Latin-1 code points */
	CHECK(FN(a2u_fn, RtlAnsiStringToUnicodeString)(&u, &hi, 0) ==
	      STATUS_SUCCESS);
	CHECK(u.length == 4 && wbuf[0] == 0xe9 && wbuf[1] == 'z' && !wbuf[2]);
	/* too short for the characters: refused, nothing written */
	u.max_length = 4;
	wbuf[0] = 0;
	CHECK(FN(a2u_fn, RtlAnsiStringToUnicodeString)(&u, &a, 0) ==
	      STATUS_BUFFER_OVERFLOW);
	CHECK(wbuf[0] == 0);

	/* allocated: the driver frees it with RtlFreeUnicodeString */
	u.buffer = NULL;
	CHECK(FN(a2u_fn, RtlAnsiStringToUnicodeString)(&u, &a, 1) ==
	      STATUS_SUCCESS);
	CHECK(pool_live == live + 1 && u.buffer && u.max_length == 8);
	CHECK(u.length == 6 && !memcmp(u.buffer, u"abc", 8));
	CHECK(pool_caller != 0);
	FN(free_u_fn, RtlFreeUnicodeString)(&u);
	CHECK(pool_live == live && !u.buffer && !u.length && !u.max_length);
	pool_fail = 1;
	CHECK(FN(a2u_fn, RtlAnsiStringToUnicodeString)(&u, &a, 1) ==
	      STATUS_NO_MEMORY);

	/* back: above 0xff is '?', the rest Latin-1 */
	CHECK(FN(u2a_fn, RtlUnicodeStringToAnsiString)(&out, &wide, 1) ==
	      STATUS_SUCCESS);
	CHECK(pool_live == live + 1 && out.length == 4 &&
	      !memcmp(out.buffer, "a?z\xff", 5));
	FN(free_a_fn, RtlFreeAnsiString)(&out);
	CHECK(pool_live == live && !out.buffer);
	/* a short buffer takes what fits, NUL-terminated, and says so */
	out.buffer = abuf;
	out.max_length = 3;
	CHECK(FN(u2a_fn, RtlUnicodeStringToAnsiString)(&out, &wide, 0) ==
	      STATUS_BUFFER_OVERFLOW);
	CHECK(out.length == 2 && !memcmp(abuf, "a?", 3));
}

static void test_rtl_copy_append(void)
{
	char abuf[4] = "xxx";
	char16_t wbuf[5];
	struct astr src = { 5, 6, "hello" };
	struct astr dst = { 0, 4, abuf };
	struct ustr us = { 4, 6, (char16_t *)u"ab" };
	struct ustr ud = { 0, sizeof(wbuf), wbuf };

	FN(copy_a_fn, RtlCopyString)(&dst, &src);
	CHECK(dst.length == 4 && !memcmp(abuf, "hell", 4));
	src.length = 2;
	FN(copy_a_fn, RtlCopyString)(&dst, &src);
	CHECK(dst.length == 2 && !memcmp(abuf, "he\0l", 4));
	FN(copy_a_fn, RtlCopyString)(&dst, NULL);
	CHECK(dst.length == 0);

	memset(wbuf, 0x55, sizeof(wbuf));
	FN(copy_u_fn, RtlCopyUnicodeString)(&ud, &us);
	CHECK(ud.length == 4 && !memcmp(wbuf, u"ab", 6));
	ud.max_length = 8;
	CHECK(FN(append_us_fn, RtlAppendUnicodeStringToString)(&ud, &us) ==
	      STATUS_SUCCESS);
	/* exactly full: no room for a NUL, none written */
	CHECK(ud.length == 8 && !memcmp(wbuf, u"abab", 8));
	CHECK(wbuf[4] == 0x5555);
	CHECK(FN(append_u_fn, RtlAppendUnicodeToString)(&ud, u"c") ==
	      STATUS_BUFFER_TOO_SMALL);
	CHECK(ud.length == 8 && wbuf[4] == 0x5555);
	ud.max_length = sizeof(wbuf);
	ud.length = 6;
	wbuf[4] = 0x5555;
	CHECK(FN(append_u_fn, RtlAppendUnicodeToString)(&ud, u"c") ==
	      STATUS_SUCCESS);
	CHECK(ud.length == 8 && wbuf[3] == 'c' && wbuf[4] == 0);
}

static void test_rtl_compare(void)
{
	struct astr a = { 3, 3, "abc" }, b = { 3, 3, "ABC" },
		    c = { 2, 2, "ab" };
	struct ustr ua = { 6, 6, (char16_t *)u"ab\xe9" },
		    ub = { 6, 6, (char16_t *)u"AB\xc9" },
		    uc = { 4, 4, (char16_t *)u"ab" };
	char16_t wbuf[3];
	struct ustr up = { 0, sizeof(wbuf), wbuf };
	int live = pool_live;

	CHECK(FN(cmp_a_fn, RtlCompareString)(&a, &b, 0) > 0);
	CHECK(FN(cmp_a_fn, RtlCompareString)(&a, &b, 1) == 0);
	CHECK(FN(cmp_a_fn, RtlCompareString)(&c, &a, 1) < 0);
	CHECK(FN(eq_a_fn, RtlEqualString)(&a, &b, 1) == 1);
	CHECK(FN(eq_a_fn, RtlEqualString)(&a, &b, 0) == 0);
	CHECK(FN(eq_a_fn, RtlEqualString)(&a, &c, 1) == 0);
	CHECK(FN(cmp_u_fn, RtlCompareUnicodeString)(&ua, &ub, 0) > 0);
	CHECK(FN(cmp_u_fn, RtlCompareUnicodeString)(&ua, &ub, 1) == 0);
	CHECK(FN(cmp_u_fn, RtlCompareUnicodeString)(&uc, &ua, 0) < 0);
	CHECK(FN(eq_u_fn, RtlEqualUnicodeString)(&ua, &ub, 1) == 1);
	CHECK(FN(eq_u_fn, RtlEqualUnicodeString)(&ua, &uc, 1) == 0);

	CHECK(FN(uu_fn, RtlUpcaseUnicodeString)(&up, &ua, 0) ==
	      STATUS_SUCCESS);
	CHECK(up.length == 6 && !memcmp(wbuf, u"AB\xc9", 6));
	up.max_length = 4;
	CHECK(FN(uu_fn, RtlUpcaseUnicodeString)(&up, &ua, 0) ==
	      STATUS_BUFFER_OVERFLOW);
	CHECK(FN(uu_fn, RtlUpcaseUnicodeString)(&up, &uc, 1) ==
	      STATUS_SUCCESS);
	CHECK(pool_live == live + 1 && up.length == 4 &&
	      !memcmp(up.buffer, u"AB", 4));
	FN(free_u_fn, RtlFreeUnicodeString)(&up);
	CHECK(pool_live == live);
}

/* -- Rtl integers, GUIDs, memory ----------------------------------------- */

EXPORT(RtlCharToInteger);
EXPORT(RtlUnicodeStringToInteger);
EXPORT(RtlIntegerToUnicodeString);
EXPORT(RtlConvertUlongToLargeInteger);
EXPORT(RtlGUIDFromString);
EXPORT(RtlCompareMemory);
EXPORT(RtlCopyMemory);
EXPORT(RtlMoveMemory);
EXPORT(RtlFillMemory);
EXPORT(RtlZeroMemory);
EXPORT(RtlSecureZeroMemory);
EXPORT(RtlUlongByteSwap);
EXPORT(RtlUshortByteSwap);

typedef WABI int (*c2i_fn)(const char *, unsigned int, unsigned int *);
typedef WABI int (*u2i_fn)(const struct ustr *, unsigned int,
			   unsigned int *);
typedef WABI int (*i2u_fn)(unsigned int, unsigned int, struct ustr *);
typedef WABI unsigned long long (*u2l_fn)(unsigned int);
typedef WABI int (*guid_fn)(const struct ustr *, struct guid *);

static void test_rtl_integers(void)
{
	c2i_fn c2i = FN(c2i_fn, RtlCharToInteger);
	u2i_fn u2i = FN(u2i_fn, RtlUnicodeStringToInteger);
	i2u_fn i2u = FN(i2u_fn, RtlIntegerToUnicodeString);
	struct ustr s = { 10, 10, (char16_t *)u" 0x1fz" };
	char16_t wbuf[6];
	struct ustr out = { 0, sizeof(wbuf), wbuf };
	unsigned int v = 7;

	CHECK(c2i("  -42abc", 0, &v) == STATUS_SUCCESS && v == (unsigned)-42);
	CHECK(c2i("0x1F", 0, &v) == STATUS_SUCCESS && v == 0x1f);
	CHECK(c2i("0b101", 0, &v) == STATUS_SUCCESS && v == 5);
	CHECK(c2i("0o17", 0, &v) == STATUS_SUCCESS && v == 15);
	CHECK(c2i("777", 8, &v) == STATUS_SUCCESS && v == 0777);
	CHECK(c2i("19", 8, &v) == STATUS_SUCCESS && v == 1);
	CHECK(c2i("ff", 16, &v) == STATUS_SUCCESS && v == 255);
	CHECK(c2i("xyz", 10, &v) == STATUS_SUCCESS && v == 0);
	CHECK(c2i("12", 7, &v) == STATUS_INVALID_PARAMETER);
	CHECK(c2i("12", 10, NULL) == STATUS_ACCESS_VIOLATION);
	/* Length bounds the text, not a NUL */
	CHECK(u2i(&s, 0, &v) == STATUS_SUCCESS && v == 0x1f);
	s.length = 6;
	CHECK(u2i(&s, 0, &v) == STATUS_SUCCESS && v == 0);
	s.length = 8;
	CHECK(u2i(&s, 0, &v) == STATUS_SUCCESS && v == 1);

	CHECK(i2u(1234, 0, &out) == STATUS_SUCCESS);
	CHECK(out.length == 8 && !memcmp(wbuf, u"1234", 10));
	CHECK(i2u(0xbeef, 16, &out) == STATUS_SUCCESS);
	CHECK(out.length == 8 && !memcmp(wbuf, u"BEEF", 10));
	CHECK(i2u(5, 2, &out) == STATUS_SUCCESS && !memcmp(wbuf, u"101", 8));
	CHECK(i2u(5, 3, &out) == STATUS_INVALID_PARAMETER);
	/* five digits and the NUL do not fit in 10 bytes */
	out.max_length = 10;
	CHECK(i2u(12345, 10, &out) == STATUS_BUFFER_OVERFLOW);
	out.max_length = 12;
	CHECK(i2u(12345, 10, &out) == STATUS_SUCCESS && out.length == 10);
	CHECK(FN(u2l_fn, RtlConvertUlongToLargeInteger)(0xffffffffu) ==
	      0xffffffffull);
}

static void test_rtl_guid(void)
{
	static const char16_t text[] =
		u"{6B29FC40-CA47-1067-B31D-00DD010662DA}";
	static const unsigned char data4[8] = {
		0xb3, 0x1d, 0x00, 0xdd, 0x01, 0x06, 0x62, 0xda };
	char16_t bad[39];
	struct ustr s = { 76, 78, (char16_t *)text };
	struct guid g;

	CHECK(FN(guid_fn, RtlGUIDFromString)(&s, &g) == STATUS_SUCCESS);
	CHECK(g.data1 == 0x6b29fc40 && g.data2 == 0xca47 &&
	      g.data3 == 0x1067 && !memcmp(g.data4, data4, 8));
	memcpy(bad, text, sizeof(bad));
	bad[9] = '_';
	s.buffer = bad;
	CHECK(FN(guid_fn, RtlGUIDFromString)(&s, &g) ==
	      STATUS_INVALID_PARAMETER);
	bad[9] = '-';
	bad[1] = 'g';
	CHECK(FN(guid_fn, RtlGUIDFromString)(&s, &g) ==
	      STATUS_INVALID_PARAMETER);
	s.buffer = (char16_t *)text;
	s.length = 74;
	CHECK(FN(guid_fn, RtlGUIDFromString)(&s, &g) ==
	      STATUS_INVALID_PARAMETER);
}

typedef WABI size_t (*cmpmem_fn)(const void *, const void *, size_t);
typedef WABI void (*copymem_fn)(void *, const void *, size_t);
typedef WABI void (*fill_fn)(void *, size_t, unsigned char);
typedef WABI void (*zero_fn)(void *, size_t);
typedef WABI void *(*szero_fn)(void *, size_t);
typedef WABI unsigned int (*bswap32_fn)(unsigned int);
typedef WABI unsigned short (*bswap16_fn)(unsigned short);

static void test_rtl_memory(void)
{
	char buf[8] = "abcdefg";

	CHECK(FN(cmpmem_fn, RtlCompareMemory)("abcx", "abcy", 4) == 3);
	CHECK(FN(cmpmem_fn, RtlCompareMemory)("abcx", "abcx", 4) == 4);
	FN(copymem_fn, RtlMoveMemory)(buf + 1, buf, 4);
	CHECK(!memcmp(buf, "aabcdfg", 8));
	FN(copymem_fn, RtlCopyMemory)(buf, "XY", 2);
	CHECK(!memcmp(buf, "XYbcdfg", 8));
	FN(fill_fn, RtlFillMemory)(buf, 3, '*');
	CHECK(!memcmp(buf, "***cdfg", 8));
	FN(zero_fn, RtlZeroMemory)(buf + 5, 2);
	CHECK(!memcmp(buf, "***cd\0\0", 8));
	CHECK(FN(szero_fn, RtlSecureZeroMemory)(buf, 2) == buf);
	CHECK(!memcmp(buf, "\0\0*cd\0\0", 8));
	CHECK(FN(bswap32_fn, RtlUlongByteSwap)(0x11223344) == 0x44332211);
	CHECK(FN(bswap16_fn, RtlUshortByteSwap)(0x1122) == 0x2211);
}

/* -- the C runtime (crt.c) ------------------------------------------------ */

EXPORT(sprintf);
EXPORT(vsprintf);
EXPORT(snprintf);
EXPORT(vsnprintf);
EXPORT(_vsnwprintf);
EXPORT(swprintf);
EXPORT(stricmp);
EXPORT(atoi);
EXPORT(isdigit);
EXPORT(isprint);
EXPORT(rand);
EXPORT(srand);
EXPORT(towlower);
EXPORT(towupper);
EXPORT(wcscat);
EXPORT(wcscmp);
EXPORT(wcscpy);
EXPORT(wcsncpy);
EXPORT(wcsicmp);
EXPORT(_wcsicmp);
EXPORT(strncpy);
EXPORT(strncat);
EXPORT(_stricmp);
EXPORT(tolower);
EXPORT(toupper);
EXPORT(wcslen);
EXPORT(_vsnprintf);

typedef WABI int (*sprintf_fn)(char *, const char *, ...);
typedef WABI int (*vsprintf_fn)(char *, const char *,
				__builtin_ms_va_list);
typedef WABI int (*snprintf_fn)(char *, size_t, const char *, ...);
typedef WABI int (*vsnprintf_fn)(char *, size_t, const char *,
				 __builtin_ms_va_list);
typedef WABI int (*vsnwprintf_fn)(char16_t *, size_t, const char16_t *,
				  __builtin_ms_va_list);
typedef WABI int (*swprintf_fn)(char16_t *, const char16_t *, ...);
typedef WABI int (*int_fn)(int);
typedef WABI int (*atoi_fn)(const char *);
typedef WABI int (*rand_fn)(void);
typedef WABI void (*srand_fn)(unsigned int);
typedef WABI unsigned short (*wint_fn)(unsigned short);
typedef WABI char16_t *(*wcpy_fn)(char16_t *, const char16_t *);
typedef WABI char16_t *(*wncpy_fn)(char16_t *, const char16_t *, size_t);
typedef WABI int (*wcmp_fn)(const char16_t *, const char16_t *);
typedef WABI int (*cmp_fn)(const char *, const char *);
typedef WABI char *(*ncpy_fn)(char *, const char *, size_t);
typedef WABI size_t (*wlen_fn)(const char16_t *);

static WABI int call_vsprintf(char *buf, const char *fmt, ...)
{
	__builtin_ms_va_list ap;
	int n;

	__builtin_ms_va_start(ap, fmt);
	n = FN(vsprintf_fn, vsprintf)(buf, fmt, ap);
	__builtin_ms_va_end(ap);
	return n;
}

static WABI int call_vsnprintf(char *buf, size_t count, const char *fmt, ...)
{
	__builtin_ms_va_list ap;
	int n;

	__builtin_ms_va_start(ap, fmt);
	n = FN(vsnprintf_fn, vsnprintf)(buf, count, fmt, ap);
	__builtin_ms_va_end(ap);
	return n;
}

static WABI int call_ms_vsnprintf(char *buf, size_t count, const char *fmt,
				  ...)
{
	__builtin_ms_va_list ap;
	int n;

	__builtin_ms_va_start(ap, fmt);
	n = FN(vsnprintf_fn, _vsnprintf)(buf, count, fmt, ap);
	__builtin_ms_va_end(ap);
	return n;
}

static WABI int call_vsnwprintf(char16_t *buf, size_t count,
				const char16_t *fmt, ...)
{
	__builtin_ms_va_list ap;
	int n;

	__builtin_ms_va_start(ap, fmt);
	n = FN(vsnwprintf_fn, _vsnwprintf)(buf, count, fmt, ap);
	__builtin_ms_va_end(ap);
	return n;
}

static void test_crt_printf(void)
{
	char buf[16];

	memset(buf, '#', sizeof(buf));
	/* LLP64: %ld is 32 bits, %I64x 64 */
	CHECK(FN(sprintf_fn, sprintf)(buf, "%ld/%I64x", -1L,
				     0x123456789ull) == 12);
	CHECK_STR(buf, "-1/123456789");
	CHECK(call_vsprintf(buf, "<%-3s>", "ab") == 5);
	CHECK_STR(buf, "<ab >");
	/* C99's: always terminated, the whole length returned */
	memset(buf, '#', sizeof(buf));
	CHECK(FN(snprintf_fn, snprintf)(buf, 4, "%s", "abcdef") == 6);
	CHECK(!memcmp(buf, "abc\0#", 5));
	CHECK(call_vsnprintf(buf, 8, "%u", 42u) == 2);
	CHECK_STR(buf, "42");
	CHECK(call_vsnprintf(buf, 0, "%u", 42u) == 2);
	CHECK_STR(buf, "42");
}

static void test_crt_wprintf(void)
{
	char16_t buf[12];

	memset(buf, 0x55, sizeof(buf));
	/*
	 * In the wide forms %s is a wide string, %S and %hs narrow. Wide
	 * text outside ASCII is '?', as in the narrow forms.
	 */
	CHECK(call_vsnwprintf(buf, 12, u"%s|%S|%hs|%c", u"w\xe9", "n", "h",
			      (int)u'Z') == 8);
	CHECK(!memcmp(buf, u"w?|n|h|Z", 18));
	/* Microsoft's: no room for the NUL is fine, no room at all -1 */
	memset(buf, 0x55, sizeof(buf));
	CHECK(call_vsnwprintf(buf, 3, u"%d", 123) == 3);
	CHECK(!memcmp(buf, u"123", 6) && buf[3] == 0x5555);
	CHECK(call_vsnwprintf(buf, 3, u"%d", 1234) == -1);
	CHECK(!memcmp(buf, u"123", 6) && buf[3] == 0x5555);
	CHECK(FN(swprintf_fn, swprintf)(buf, u"%02x-%ws", 10, u"ok") == 5);
	CHECK(!memcmp(buf, u"0a-ok", 12));
}

static void test_crt_chars(void)
{
	CHECK(FN(int_fn, isdigit)('7') && !FN(int_fn, isdigit)('a'));
	CHECK(FN(int_fn, isprint)(' ') && FN(int_fn, isprint)('~'));
	CHECK(!FN(int_fn, isprint)('\n') && !FN(int_fn, isprint)(0x7f));
	CHECK(FN(wint_fn, towlower)('Q') == 'q');
	CHECK(FN(wint_fn, towupper)('q') == 'Q');
	CHECK(FN(wint_fn, towupper)(0x3b1) == 0x3b1);
	CHECK(FN(atoi_fn, atoi)("  -123x") == -123);
	CHECK(FN(atoi_fn, atoi)("+7") == 7);
	CHECK(FN(atoi_fn, atoi)("x7") == 0);
	CHECK(FN(cmp_fn, stricmp)("WLAN0", "wlan0") == 0);
	CHECK(FN(cmp_fn, stricmp)("a", "B") < 0);
}

/* The narrow forms the other tests leave out: each through its entry. */
static void test_crt_narrow_strings(void)
{
	char buf[12];

	/* strncpy pads with NULs to n, and leaves a long source unterminated */
	memset(buf, '#', sizeof(buf));
	CHECK(FN(ncpy_fn, strncpy)(buf, "ab", 5) == buf);
	CHECK(!memcmp(buf, "ab\0\0\0#", 6));
	memset(buf, '#', sizeof(buf));
	FN(ncpy_fn, strncpy)(buf, "wlan0", 3);
	CHECK(!memcmp(buf, "wla#", 4));
	/* strncat appends at most n characters and always terminates */
	memset(buf, '#', sizeof(buf));
	strcpy(buf, "ab");
	CHECK(FN(ncpy_fn, strncat)(buf, "cdefg", 3) == buf);
	CHECK(!memcmp(buf, "abcde\0#", 7));
	FN(ncpy_fn, strncat)(buf, "xy", 9);
	CHECK_STR(buf, "abcdexy");
	/* _stricmp compares case-blind, ordered as lower case */
	CHECK(FN(cmp_fn, _stricmp)("NDIS", "ndis") == 0);
	CHECK(FN(cmp_fn, _stricmp)("abc", "ABD") < 0);
	CHECK(FN(cmp_fn, _stricmp)("abcd", "ABC") > 0);
	/* as lower case: '_' (0x5f) sorts before 'a', not after 'A' */
	CHECK(FN(cmp_fn, _stricmp)("_", "A") < 0);
	/* tolower/toupper: ASCII letters only */
	CHECK(FN(int_fn, tolower)('Q') == 'q' && FN(int_fn, tolower)('q') == 'q');
	CHECK(FN(int_fn, tolower)('@') == '@' && FN(int_fn, tolower)('[') == '[');
	CHECK(FN(int_fn, toupper)('z') == 'Z' && FN(int_fn, toupper)('{') == '{');
	CHECK(FN(int_fn, toupper)('5') == '5');
	CHECK(FN(wlen_fn, wcslen)(u"wlan") == 4);
	CHECK(FN(wlen_fn, wcslen)(u"") == 0);
}

/* Microsoft's _vsnprintf: no NUL when the text fills the buffer, -1 past */
static void test_crt_ms_vsnprintf(void)
{
	char buf[8];

	memset(buf, '#', sizeof(buf));
	CHECK(call_ms_vsnprintf(buf, 8, "%d-%s", 12, "ab") == 5);
	CHECK_STR(buf, "12-ab");
	memset(buf, '#', sizeof(buf));
	CHECK(call_ms_vsnprintf(buf, 4, "%d", 1234) == 4);
	CHECK(!memcmp(buf, "1234#", 5));
	memset(buf, '#', sizeof(buf));
	CHECK(call_ms_vsnprintf(buf, 4, "%d", 12345) == -1);
	CHECK(!memcmp(buf, "1234#", 5));
	/* LLP64: %lx is 32 bits */
	CHECK(call_ms_vsnprintf(buf, 8, "%lx", 0xabcdefL) == 6);
	CHECK_STR(buf, "abcdef");
}

/* Microsoft's generator: the sequence a seed gives is fixed. */
static void test_crt_rand(void)
{
	FN(srand_fn, srand)(1);
	CHECK(FN(rand_fn, rand)() == 41);
	CHECK(FN(rand_fn, rand)() == 18467);
	CHECK(FN(rand_fn, rand)() == 6334);
	FN(srand_fn, srand)(1);
	CHECK(FN(rand_fn, rand)() == 41);
}

static void test_crt_wide_strings(void)
{
	char16_t buf[8];

	memset(buf, 0x55, sizeof(buf));
	CHECK(FN(wcpy_fn, wcscpy)(buf, u"ab") == buf);
	CHECK(!memcmp(buf, u"ab", 6));
	CHECK(FN(wcpy_fn, wcscat)(buf, u"cd") == buf);
	CHECK(!memcmp(buf, u"abcd", 10));
	/* wcsncpy pads with NULs to n and does not terminate a long source */
	memset(buf, 0x55, sizeof(buf));
	FN(wncpy_fn, wcsncpy)(buf, u"xy", 4);
	CHECK(!memcmp(buf, u"xy\0", 8) && buf[4] == 0x5555);
	FN(wncpy_fn, wcsncpy)(buf, u"longer", 3);
	CHECK(!memcmp(buf, u"lon", 6) && buf[3] == 0);
	CHECK(FN(wcmp_fn, wcscmp)(u"abc", u"abd") < 0);
	CHECK(FN(wcmp_fn, wcscmp)(u"abc", u"abc") == 0);
	CHECK(FN(wcmp_fn, wcscmp)(u"abcd", u"abc") > 0);
	CHECK(FN(wcmp_fn, wcsicmp)(u"ABC", u"abc") == 0);
	CHECK(FN(wcmp_fn, _wcsicmp)(u"ABD", u"abc") > 0);
}

/* -- the I/O and memory managers (ntos_io.c) ------------------------------ */

/* The amd64 layouts of wrapper/driver/wdm.h and wintypes.h. */
struct list_entry {
	void *flink, *blink;
};

struct mdl {
	struct mdl *next;
	short size, flags;
	void *process, *mapped_va, *start_va;
	unsigned int byte_count, byte_offset;
	unsigned long pfn[];
};
_Static_assert(sizeof(struct mdl) == 48, "MDL");

struct dev {
	short type;
	unsigned short size;
	int reference_count;
	void *driver_object;
	struct dev *next_device, *attached_device;
	void *current_irp, *timer;
	unsigned int flags, characteristics;
	void *vpb, *device_extension;
	unsigned int device_type;
	signed char stack_size;
	unsigned char rest[0x138 - 0x4d];
	struct devobj_ext *device_object_extension;
	unsigned char reserved[0x10];
};
_Static_assert(__builtin_offsetof(struct dev, device_object_extension) ==
	       0x138, "DeviceObjectExtension");

/* DEVOBJ_EXTENSION as the wrapper fills it (opaque to drivers) */
struct devobj_ext {
	short type;
	unsigned short size;
	struct dev *device_object;
	unsigned int system_power_state, device_power_state;
};
_Static_assert(sizeof(struct dev) == 0x150, "DEVICE_OBJECT");

struct iosb {
	long long status;	/* NTSTATUS in the low half */
	unsigned long information;
};

struct stack_loc {
	unsigned char major, minor, flags, control;
	unsigned int pad;
	union {
		struct {
			unsigned long output_len, input_len, code;
			void *type3_input;
		} ioctl;
		struct {
			unsigned long length, key;
			long long byte_offset;
		} rw;
		struct {	/* POINTER_ALIGNMENT ULONGs */
			unsigned int system_context, pad0, type, pad1;
			unsigned int state, pad2, shutdown_type, pad3;
		} power;
		struct {
			void *argument1, *argument2, *argument3, *argument4;
		} others;
	} p;
	void *device_object, *file_object, *completion, *context;
};
_Static_assert(sizeof(struct stack_loc) == 0x48, "IO_STACK_LOCATION");

struct irp {
	short type;
	unsigned short size;
	struct mdl *mdl_address;
	unsigned int flags;
	void *system_buffer;
	struct list_entry thread_list;
	struct iosb io_status;
	unsigned char requestor_mode, pending_returned;
	signed char stack_count, current_location;
	unsigned char cancel, cancel_irql, apc_environment, allocation_flags;
	struct iosb *user_iosb;
	void *user_event;
	unsigned char overlay[16];
	void *cancel_routine, *user_buffer;
	void *driver_context[4], *thread;
	char *auxiliary_buffer;
	struct list_entry list_entry;
	struct stack_loc *current_stack_location;
	void *original_file_object;
	unsigned char tail_rest[8];
	struct stack_loc stack[];
};
_Static_assert(sizeof(struct irp) == 0xd0, "IRP");

bool ntos_irp_complete_top(struct irp *irp);
unsigned long ntos_page_pfn(const void *va);
void ntos_log(unsigned long caller, const char *text);
void ndis_free_mdl(struct mdl *mdl);

/* A made-up frame for every page, 0 for the first page (no memory). */
unsigned long ntos_page_pfn(const void *va)
{
	unsigned long page = (unsigned long)va >> 12;

	return page ? page ^ 0x5000 : 0;
}

static char logged[256];

void ntos_log(unsigned long caller, const char *text)
{
	(void)caller;
	snprintf(logged, sizeof(logged), "%s", text);
}

static struct mdl *ndis_freed;

void ndis_free_mdl(struct mdl *mdl)
{
	ndis_freed = mdl;
}

EXPORT(IoInitializeIrp);
EXPORT(IoBuildDeviceIoControlRequest);
EXPORT(IoBuildSynchronousFsdRequest);
EXPORT(IoBuildAsynchronousFsdRequest);

typedef WABI void (*init_irp_fn)(struct irp *, unsigned short, signed char);
typedef WABI struct irp *(*ioctl_fn)(unsigned int, struct dev *, void *,
				     unsigned int, void *, unsigned int,
				     unsigned char, void *, struct iosb *);
typedef WABI struct irp *(*sync_fsd_fn)(unsigned int, struct dev *, void *,
					unsigned int, const long long *,
					void *, struct iosb *);
typedef WABI struct irp *(*async_fsd_fn)(unsigned int, struct dev *, void *,
					 unsigned int, const long long *,
					 struct iosb *);

static void test_io_irp_init(void)
{
	size_t size = sizeof(struct irp) + 2 * sizeof(struct stack_loc);
	struct irp *irp = malloc(size);

	memset(irp, 0x55, size);
	FN(init_irp_fn, IoInitializeIrp)(irp, size - 1, 2);
	CHECK(irp->type == 0x5555);
	FN(init_irp_fn, IoInitializeIrp)(irp, size, 2);
	CHECK(irp->type == 6 && irp->size == size && irp->stack_count == 2);
	CHECK(irp->current_location == 3);
	CHECK(irp->current_stack_location == &irp->stack[2]);
	CHECK(irp->stack[0].major == 0 && irp->user_iosb == NULL);
	CHECK(irp->thread_list.flink == &irp->thread_list);
	free(irp);
}

static void test_io_build_ioctl(void)
{
	ioctl_fn build = FN(ioctl_fn, IoBuildDeviceIoControlRequest);
	struct dev dev = { .stack_size = 2 };
	struct iosb iosb = { 0, 0 };
	int event, urb, live = pool_live;
	char out[8] = "-------";
	struct irp *irp;

	/* a USB driver's URB submission: METHOD_NEITHER, internal */
	irp = build(0x220003, &dev, &urb, 0, NULL, 0, 1, &event, &iosb);
	CHECK(irp && irp->stack_count == 2 && irp->current_location == 3);
	if (!irp)
		return;
	CHECK(irp->stack[1].major == 0x0f);
	CHECK(irp->stack[1].p.ioctl.code == 0x220003);
	CHECK(irp->stack[1].p.ioctl.type3_input == &urb);
	CHECK(irp->user_event == &event && irp->user_iosb == &iosb);
	CHECK(pool_live == live + 1);
	irp->io_status.status = 0;
	irp->io_status.information = 5;
	CHECK(ntos_irp_complete_top(irp));
	CHECK(iosb.information == 5 && pool_live == live);

	/* METHOD_BUFFERED: through a system buffer both ways */
	irp = build(0x220000, &dev, "abc", 3, out, 6, 0, NULL, &iosb);
	CHECK(irp && irp->stack[1].major == 0x0e);
	if (!irp)
		return;
	CHECK(irp->stack[1].p.ioctl.input_len == 3);
	CHECK(irp->stack[1].p.ioctl.output_len == 6);
	CHECK(irp->flags == 0x70 && irp->user_buffer == out);
	CHECK(!memcmp(irp->system_buffer, "abc", 3));
	memcpy(irp->system_buffer, "wxyz", 4);
	irp->io_status.status = 0;
	irp->io_status.information = 4;
	CHECK(ntos_irp_complete_top(irp));
	CHECK(!memcmp(out, "wxyz---", 8) && pool_live == live);

	/* a failed request copies nothing back */
	irp = build(0x220000, &dev, "abc", 3, out, 6, 0, NULL, &iosb);
	CHECK(irp != NULL);
	if (!irp)
		return;
	memcpy(irp->system_buffer, "ABCD", 4);
	irp->io_status.status = (int)0xC0000001;
	irp->io_status.information = 4;
	CHECK(ntos_irp_complete_top(irp));
	CHECK(!memcmp(out, "wxyz---", 8) && pool_live == live);

	/* METHOD_OUT_DIRECT: the output by an MDL */
	irp = build(0x220002, &dev, "in", 2, out, 8, 0, NULL, NULL);
	CHECK(irp && irp->mdl_address && irp->system_buffer);
	if (!irp)
		return;
	CHECK(irp->mdl_address->byte_count == 8);
	CHECK((char *)irp->mdl_address->start_va +
	      irp->mdl_address->byte_offset == out);
	CHECK(pool_live == live + 3);
	CHECK(ntos_irp_complete_top(irp) && pool_live == live);

	pool_fail = 1;
	CHECK(build(0x220003, &dev, NULL, 0, NULL, 0, 1, NULL, NULL) == NULL);
	CHECK(pool_live == live);
	CHECK(build(0x220003, NULL, NULL, 0, NULL, 0, 1, NULL, NULL) == NULL);
}

static void test_io_build_fsd(void)
{
	struct dev dev = { .stack_size = 1, .flags = 0x4 /* buffered */ };
	struct iosb iosb = { 0, 0 };
	long long offset = 0x1234;
	char buf[8] = "data";
	int live = pool_live;
	struct irp *irp;

	irp = FN(sync_fsd_fn, IoBuildSynchronousFsdRequest)(4, &dev, buf, 4,
							     &offset, NULL,
							     &iosb);
	CHECK(irp && irp->stack[0].major == 4);
	if (!irp)
		return;
	CHECK(irp->stack[0].p.rw.length == 4);
	CHECK(irp->stack[0].p.rw.byte_offset == 0x1234);
	CHECK(irp->flags == 0x30 && !memcmp(irp->system_buffer, "data", 4));
	CHECK(ntos_irp_complete_top(irp) && pool_live == live);

	/* a read: the data comes back at completion */
	irp = FN(sync_fsd_fn, IoBuildSynchronousFsdRequest)(3, &dev, buf, 8,
							     NULL, NULL,
							     &iosb);
	CHECK(irp && irp->flags == 0x70 && irp->user_buffer == buf);
	if (!irp)
		return;
	memcpy(irp->system_buffer, "READ", 4);
	irp->io_status.status = 0;
	irp->io_status.information = 4;
	CHECK(ntos_irp_complete_top(irp));
	CHECK(!memcmp(buf, "READ", 4) && iosb.information == 4);

	/* neither buffered nor direct: the caller's address as it is */
	dev.flags = 0;
	irp = FN(async_fsd_fn, IoBuildAsynchronousFsdRequest)(3, &dev, buf, 8,
							       NULL, &iosb);
	CHECK(irp && irp->user_buffer == buf && !irp->system_buffer);
	if (!irp)
		return;
	/* the caller frees an asynchronous request, not the I/O manager */
	CHECK(!ntos_irp_complete_top(irp) && pool_live == live + 1);
	ntos_free(irp);
	CHECK(pool_live == live);
}

EXPORT(IoAllocateMdl);
EXPORT(IoFreeMdl);
EXPORT(MmSizeOfMdl);
EXPORT(MmBuildMdlForNonPagedPool);
EXPORT(MmProbeAndLockPages);
EXPORT(MmUnlockPages);
EXPORT(MmUnmapLockedPages);
EXPORT(IoBuildPartialMdl);
EXPORT(MmGetPhysicalAddress);
EXPORT(MmIsAddressValid);

typedef WABI struct mdl *(*alloc_mdl_fn)(void *, unsigned int,
					 unsigned char, unsigned char,
					 struct irp *);
typedef WABI void (*mdl_fn)(struct mdl *);
typedef WABI size_t (*size_mdl_fn)(void *, size_t);
typedef WABI void (*lock_fn)(struct mdl *, unsigned char, unsigned int);
typedef WABI void (*unmap_fn)(void *, struct mdl *);
typedef WABI void (*partial_fn)(struct mdl *, struct mdl *, void *,
				unsigned int);
typedef WABI unsigned long long (*phys_fn)(void *);
typedef WABI unsigned char (*valid_fn)(void *);

static void test_io_mdl(void)
{
	alloc_mdl_fn alloc = FN(alloc_mdl_fn, IoAllocateMdl);
	char *mem = aligned_alloc(4096, 4 * 4096);
	struct irp irp = { .mdl_address = NULL };
	struct mdl *m, *m2, *part, fake = { .flags = 4 };
	unsigned long page = (unsigned long)mem >> 12;
	int live = pool_live;

	CHECK(FN(size_mdl_fn, MmSizeOfMdl)(mem + 100, 8192) == 48 + 3 * 8);
	CHECK(FN(size_mdl_fn, MmSizeOfMdl)(mem, 4096) == 48 + 8);
	m = alloc(mem + 100, 8192, 0, 0, &irp);
	CHECK(m && irp.mdl_address == m && pool_live == live + 1);
	if (!m)
		return;
	CHECK(m->size == 48 + 3 * 8 && m->start_va == mem);
	CHECK(m->byte_offset == 100 && m->byte_count == 8192);
	CHECK(m->mapped_va == NULL);
	m2 = alloc(mem, 10, 1, 0, &irp);
	CHECK(m2 && irp.mdl_address == m && m->next == m2);

	FN(mdl_fn, MmBuildMdlForNonPagedPool)(m);
	CHECK(m->mapped_va == mem + 100 && (m->flags & 4));
	CHECK(m->pfn[0] == (page ^ 0x5000) && m->pfn[2] == ((page + 2) ^ 0x5000));

	/* bytes 5000.. of the memory: the source's second page on */
	part = alloc(mem + 5000, 100, 0, 0, NULL);
	CHECK(part != NULL);
	if (!part)
		return;
	FN(partial_fn, IoBuildPartialMdl)(m, part, mem + 5000, 100);
	CHECK(part->start_va == mem + 4096 && part->byte_offset == 904);
	CHECK(part->byte_count == 100 && part->pfn[0] == m->pfn[1]);
	CHECK(part->mapped_va == mem + 5000 && (part->flags & 0x10));
	/* length 0: to the end of the source */
	FN(partial_fn, IoBuildPartialMdl)(m, part, mem + 5000, 0);
	CHECK(part->byte_count == 8192 + 100 - 5000);

	FN(lock_fn, MmProbeAndLockPages)(m2, 0, 0);
	CHECK((m2->flags & 2) && m2->pfn[0] == (page ^ 0x5000));
	m2->flags |= 1;
	FN(unmap_fn, MmUnmapLockedPages)(mem, m2);
	CHECK(!(m2->flags & 1) && (m2->flags & 2));
	FN(mdl_fn, MmUnlockPages)(m2);
	CHECK(!(m2->flags & 2));

	CHECK(FN(phys_fn, MmGetPhysicalAddress)(mem + 4097) ==
	      ((((page + 1) ^ 0x5000) << 12) | 1));
	CHECK(FN(valid_fn, MmIsAddressValid)(mem) == 1);
	CHECK(FN(valid_fn, MmIsAddressValid)((void *)16) == 0);

	/* IoFreeMdl: ours back to the pool, NdisAllocateBuffer's to ndis.c */
	FN(mdl_fn, IoFreeMdl)(part);
	FN(mdl_fn, IoFreeMdl)(m2);
	FN(mdl_fn, IoFreeMdl)(m);
	CHECK(pool_live == live && ndis_freed == NULL);
	FN(mdl_fn, IoFreeMdl)(&fake);
	CHECK(ndis_freed == &fake);
	free(mem);
}

EXPORT(IoGetAttachedDevice);
EXPORT(IoGetAttachedDeviceReference);
EXPORT(IoAttachDeviceToDeviceStack);
EXPORT(IoDetachDevice);
EXPORT(IoIsWdmVersionAvailable);
EXPORT(IoWMIRegistrationControl);

typedef WABI struct dev *(*dev_fn)(struct dev *);
typedef WABI struct dev *(*attach_fn)(struct dev *, struct dev *);
typedef WABI void (*detach_fn)(struct dev *);
typedef WABI unsigned char (*wdm_fn)(unsigned char, unsigned char);
typedef WABI int (*wmi_fn)(struct dev *, unsigned int);

static void test_io_device_stack(void)
{
	attach_fn attach = FN(attach_fn, IoAttachDeviceToDeviceStack);
	static struct dev a, b, c;

	a.stack_size = 2;
	CHECK(attach(&b, &a) == &a);
	CHECK(a.attached_device == &b && b.stack_size == 3);
	CHECK(attach(&c, &a) == &b && c.stack_size == 4);
	CHECK(FN(dev_fn, IoGetAttachedDevice)(&a) == &c);
	CHECK(attach(&c, &b) == NULL);
	c.reference_count = 1;
	CHECK(FN(dev_fn, IoGetAttachedDeviceReference)(&b) == &c);
	CHECK(c.reference_count == 2);
	FN(detach_fn, IoDetachDevice)(&b);
	CHECK(b.attached_device == NULL);
	CHECK(FN(dev_fn, IoGetAttachedDevice)(&a) == &b);
}

EXPORT(PsGetVersion);
EXPORT(RtlIsServicePackVersionInstalled);

typedef WABI unsigned char (*psver_fn)(unsigned int *, unsigned int *,
				       unsigned int *, struct ustr *);
typedef WABI unsigned char (*spver_fn)(unsigned int);

static void test_io_versions(void)
{
	wdm_fn wdm = FN(wdm_fn, IoIsWdmVersionAvailable);
	psver_fn psver = FN(psver_fn, PsGetVersion);
	unsigned int major = 0, minor = 0, build = 0;
	char16_t csd_buf[8] = u"x";
	struct ustr csd = { 2, sizeof(csd_buf), csd_buf };
	struct dev d;

	/* Windows XP x64 (5.2.3790, the x64 XP) on a 64-bit build, as WDM
	 * 1.30 says XP: a free build, no service pack string */
	CHECK(psver(&major, &minor, &build, &csd) == 0);
	CHECK(major == 5 && minor == 2 && build == 3790);
	CHECK(csd.length == 0);
	CHECK(psver(NULL, NULL, NULL, NULL) == 0);

	/* NTDDI numbers (0xMMmmSSss): the same version, no service pack;
	 * another major version is FALSE whatever its service pack */
	spver_fn spver = FN(spver_fn, RtlIsServicePackVersionInstalled);
	CHECK(spver(0x05020000) == 1);		/* NTDDI_WS03 */
	CHECK(spver(0x05020100) == 0);		/* NTDDI_WS03SP1 */
	CHECK(spver(0x05020001) == 0);
	CHECK(spver(0x05010000) == 0);		/* NTDDI_WINXP */
	CHECK(spver(0x05000400) == 0);		/* NTDDI_WIN2KSP4 */
	CHECK(spver(0x06000000) == 0);		/* NTDDI_VISTA */

	CHECK(wdm(1, 0x30) && wdm(1, 0x10) && wdm(0, 0x99));
	CHECK(!wdm(1, 0x31) && !wdm(6, 0));
	CHECK(FN(wmi_fn, IoWMIRegistrationControl)(&d, 1) == STATUS_SUCCESS);
	CHECK(FN(wmi_fn, IoWMIRegistrationControl)(NULL, 1) ==
	      STATUS_INVALID_PARAMETER);
}

EXPORT(IoAllocateErrorLogEntry);
EXPORT(IoWriteErrorLogEntry);
EXPORT(IoFreeErrorLogEntry);

struct error_log_packet {
	unsigned char major, retry;
	unsigned short dump_data_size, number_of_strings, string_offset;
	unsigned short event_category;
	int error_code;
	unsigned int unique_error_value;
	int final_status;
	unsigned int sequence_number, io_control_code;
	long long device_offset;
	unsigned int dump_data[];
};
_Static_assert(sizeof(struct error_log_packet) == 0x28, "IO_ERROR_LOG_PACKET");

typedef WABI void *(*alloc_log_fn)(void *, unsigned char);
typedef WABI void (*write_log_fn)(void *);

static void test_io_error_log(void)
{
	alloc_log_fn alloc = FN(alloc_log_fn, IoAllocateErrorLogEntry);
	size_t size = sizeof(struct error_log_packet) + 8 + sizeof(u"fw");
	struct error_log_packet *p;
	struct dev d;
	int live = pool_live;

	CHECK(alloc(&d, 241) == NULL);
	CHECK(alloc(&d, 0x27) == NULL);
	CHECK(alloc(NULL, 0x30) == NULL);
	p = alloc(&d, size);
	CHECK(p && pool_live == live + 1);
	if (!p)
		return;
	CHECK(p->error_code == 0 && p->dump_data_size == 0);
	p->error_code = (int)0xC0040001;
	p->unique_error_value = 7;
	p->final_status = (int)0xC0000001;
	p->dump_data_size = 8;
	p->dump_data[0] = 0xdead;
	p->dump_data[1] = 0xbeef;
	p->number_of_strings = 1;
	p->string_offset = sizeof(*p) + 8;
	memcpy((char *)p + p->string_offset, u"fw", sizeof(u"fw"));
	FN(write_log_fn, IoWriteErrorLogEntry)(p);
	CHECK_STR(logged, "error log: code 0xc0040001, unique value 0x7, "
		  "status 0xc0000001, data 0xdead 0xbeef, \"fw\"");
	CHECK(pool_live == live);

	/* sizes and offsets past the entry are not read */
	p = alloc(&d, sizeof(*p) + 4);
	CHECK(p != NULL);
	if (!p)
		return;
	p->dump_data_size = 200;
	p->dump_data[0] = 1;
	p->number_of_strings = 1;
	p->string_offset = 200;
	FN(write_log_fn, IoWriteErrorLogEntry)(p);
	CHECK_STR(logged, "error log: code 0, unique value 0, status 0, "
		  "data 0x1");
	p = alloc(&d, 0x30);
	FN(write_log_fn, IoFreeErrorLogEntry)(p);
	CHECK(pool_live == live);
}

/* -- files (ntos_zw.c) ---------------------------------------------------- */

struct object_attributes {
	unsigned int length;
	void *root_directory;
	struct ustr *object_name;
	unsigned int attributes;
	void *security_descriptor, *security_qos;
};

static const char fw_data[] = "0123456789";
static char fw_asked[80];
static int fw_open;

int ntos_firmware_get(unsigned long caller, const char *name,
		      const unsigned char **data, size_t *size, void **cookie);
void ntos_firmware_put(void *cookie);
int ntos_firmware_name(const struct ustr *path, char *name, size_t size);

/* One file is installed, fw.bin. */
int ntos_firmware_get(unsigned long caller, const char *name,
		      const unsigned char **data, size_t *size, void **cookie)
{
	(void)caller;
	snprintf(fw_asked, sizeof(fw_asked), "%s", name);
	if (strcmp(name, "fw.bin"))
		return -2;	/* ENOENT */
	*data = (const unsigned char *)fw_data;
	*size = 10;
	*cookie = (void *)fw_data;
	fw_open++;
	return 0;
}

void ntos_firmware_put(void *cookie)
{
	if (cookie == fw_data)
		fw_open--;
}

EXPORT(ZwCreateFile);
EXPORT(ZwOpenFile);
EXPORT(ZwReadFile);
EXPORT(ZwQueryInformationFile);
EXPORT(ZwClose);

typedef WABI int (*create_fn)(void **, unsigned int,
			      const struct object_attributes *, struct iosb *,
			      const long long *, unsigned int, unsigned int,
			      unsigned int, unsigned int, void *,
			      unsigned int);
typedef WABI int (*open_fn)(void **, unsigned int,
			    const struct object_attributes *, struct iosb *,
			    unsigned int, unsigned int);
typedef WABI int (*read_fn)(void *, void *, void *, void *, struct iosb *,
			    void *, unsigned int, const long long *,
			    const unsigned int *);
typedef WABI int (*query_fn)(void *, struct iosb *, void *, unsigned int,
			     unsigned int);
typedef WABI int (*close_fn)(void *);

#define GENERIC_READ		0x80000000u
#define GENERIC_WRITE		0x40000000u
#define STATUS_INVALID_HANDLE	((int)0xC0000008)
#define STATUS_END_OF_FILE	((int)0xC0000011)
#define STATUS_ACCESS_DENIED	((int)0xC0000022)
#define STATUS_NOT_FOUND	((int)0xC0000034)

/* The answer to a path, with the name put to the firmware loader. */
static int zw_open_path(const char16_t *path, unsigned int access,
			unsigned int disposition, void **h)
{
	struct ustr name = { 0, 0, (char16_t *)path };
	struct object_attributes oa = { sizeof(oa), NULL, &name, 0x40, 0, 0 };
	struct iosb iosb = { 0, 0 };

	while (path[name.length / 2])
		name.length += 2;
	fw_asked[0] = '\0';
	return FN(create_fn, ZwCreateFile)(h, access, &oa, &iosb, NULL, 0, 1,
					   disposition, 0, NULL, 0);
}

static void test_zw_paths(void)
{
	static const char16_t *const refused[] = {
		u"\\SystemRoot\\system32\\drivers\\..",
		u"\\SystemRoot\\system32\\drivers\\.",
		u"\\SystemRoot\\system32\\drivers\\",
		u"\\SystemRoot\\system32\\drivers\\sub\\fw.bin",
		u"\\SystemRoot\\system32\\drivers\\../../etc/passwd",
		u"\\SystemRoot\\system32\\drivers\\..\\config\\SAM",
		u"\\SystemRoot\\system32\\config\\SAM",
		u"\\??\\C:\\Windows\\fw.bin",
		u"\\??\\D:\\Windows\\system32\\drivers\\fw.bin",
		u"fw.bin",
		u"/lib/firmware/fw.bin",
		u"\\SystemRoot\\system32\\drivers\\fw\x0101.bin",
		u"\\SystemRoot\\system32\\drivers\\C:fw.bin",
	};
	void *h = (void *)1;
	unsigned int i;
	char name[16];
	struct ustr s = { 0, 0, (char16_t *)u"\\SystemRoot\\system32\\drivers\\toolong.bin" };

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int st = zw_open_path(refused[i], GENERIC_READ, 1, &h);

		if (st != STATUS_ACCESS_DENIED || fw_asked[0])
			printf("#   path %u: %#x, asked for '%s'\n", i,
			       (unsigned int)st, fw_asked);
		CHECK(st == STATUS_ACCESS_DENIED && !fw_asked[0]);
		CHECK(h == NULL);
	}
	/* the three spellings of the driver's folder, case-blind */
	CHECK(zw_open_path(u"\\systemroot\\System32\\DRIVERS\\nofw.bin",
			   GENERIC_READ, 1, &h) == STATUS_NOT_FOUND);
	CHECK_STR(fw_asked, "nofw.bin");
	CHECK(zw_open_path(u"\\??\\C:\\WINDOWS\\system32\\drivers\\fw.bin",
			   GENERIC_READ, 1, &h) == STATUS_SUCCESS);
	CHECK(FN(close_fn, ZwClose)(h) == STATUS_SUCCESS);
	CHECK(zw_open_path(u"\\DosDevices\\C:\\Windows\\system32\\drivers\\fw.bin",
			   GENERIC_READ, 3, &h) == STATUS_SUCCESS);
	CHECK(FN(close_fn, ZwClose)(h) == STATUS_SUCCESS);
	/* reading only: no writing, creating or replacing */
	CHECK(zw_open_path(u"\\SystemRoot\\system32\\drivers\\fw.bin",
			   GENERIC_READ | GENERIC_WRITE, 1, &h) ==
	      STATUS_ACCESS_DENIED);
	CHECK(zw_open_path(u"\\SystemRoot\\system32\\drivers\\fw.bin",
			   GENERIC_READ, 2, &h) == STATUS_ACCESS_DENIED);
	CHECK(zw_open_path(u"\\SystemRoot\\system32\\drivers\\fw.bin",
			   GENERIC_READ, 5, &h) == STATUS_ACCESS_DENIED);
	CHECK(!fw_asked[0] && fw_open == 0);
	/* a name longer than the room for it */
	while (s.buffer[s.length / 2])
		s.length += 2;
	CHECK(ntos_firmware_name(&s, name, 11) == -1);
	CHECK(ntos_firmware_name(&s, name, 12) == 0);
	CHECK_STR(name, "toolong.bin");
}

static void test_zw_read(void)
{
	struct ustr name = { 0, 0,
		(char16_t *)u"\\SystemRoot\\system32\\drivers\\fw.bin" };
	struct object_attributes oa = { sizeof(oa), NULL, &name, 0x40, 0, 0 };
	struct iosb iosb = { 0, 0 };
	unsigned char info[24];
	long long off = 8, size;
	int live = pool_live;
	char buf[8];
	void *h;

	while (name.buffer[name.length / 2])
		name.length += 2;
	CHECK(FN(open_fn, ZwOpenFile)(&h, GENERIC_READ, &oa, &iosb, 1, 0) ==
	      STATUS_SUCCESS);
	CHECK(h && iosb.information == 1 && fw_open == 1);
	CHECK(FN(query_fn, ZwQueryInformationFile)(h, &iosb, info, 24, 5) ==
	      STATUS_SUCCESS);
	memcpy(&size, info + 8, 8);
	CHECK(size == 10 && iosb.information == 24);
	CHECK(FN(query_fn, ZwQueryInformationFile)(h, &iosb, info, 23, 5) ==
	      (int)0xC0000004);
	CHECK(FN(query_fn, ZwQueryInformationFile)(h, &iosb, info, 24, 99) ==
	      (int)0xC0000003);

	CHECK(FN(read_fn, ZwReadFile)(h, NULL, NULL, NULL, &iosb, buf, 4,
				      NULL, NULL) == STATUS_SUCCESS);
	CHECK(iosb.information == 4 && !memcmp(buf, "0123", 4));
	CHECK(FN(read_fn, ZwReadFile)(h, NULL, NULL, NULL, &iosb, buf, 4,
				      NULL, NULL) == STATUS_SUCCESS);
	CHECK(!memcmp(buf, "4567", 4));
	CHECK(FN(read_fn, ZwReadFile)(h, NULL, NULL, NULL, &iosb, buf, 8,
				      &off, NULL) == STATUS_SUCCESS);
	CHECK(iosb.information == 2 && !memcmp(buf, "89", 2));
	CHECK(FN(query_fn, ZwQueryInformationFile)(h, &iosb, info, 8, 14) ==
	      STATUS_SUCCESS);
	memcpy(&size, info, 8);
	CHECK(size == 10);
	CHECK(FN(read_fn, ZwReadFile)(h, NULL, NULL, NULL, &iosb, buf, 8,
				      NULL, NULL) == STATUS_END_OF_FILE);
	CHECK(iosb.information == 0);

	CHECK(FN(close_fn, ZwClose)(h) == STATUS_SUCCESS);
	CHECK(fw_open == 0 && pool_live == live);
	/* a handle that is not an open file */
	CHECK(FN(close_fn, ZwClose)(buf) == STATUS_INVALID_HANDLE);
	CHECK(FN(read_fn, ZwReadFile)(NULL, NULL, NULL, NULL, &iosb, buf, 8,
				      NULL, NULL) == STATUS_INVALID_HANDLE);
}

/* -- more of the memory manager, and RtlAssert ---------------------------- */

void *ntos_map_io(unsigned long long phys, size_t size, bool cached);
void ntos_unmap_io(void *va);
void *ntos_alloc_contiguous(size_t size, unsigned long long highest);
void ntos_free_contiguous(void *va, size_t size);

static unsigned long long io_phys;
static size_t io_size;
static bool io_cached;
static void *io_unmapped;
static char io_space[64];

void *ntos_map_io(unsigned long long phys, size_t size, bool cached)
{
	io_phys = phys;
	io_size = size;
	io_cached = cached;
	return io_space;
}

void ntos_unmap_io(void *va)
{
	io_unmapped = va;
}

static unsigned long long contig_highest;
static int contig_live;

void *ntos_alloc_contiguous(size_t size, unsigned long long highest)
{
	contig_highest = highest;
	contig_live++;
	return calloc(1, size);
}

void ntos_free_contiguous(void *va, size_t size)
{
	(void)size;
	contig_live--;
	free(va);
}

EXPORT(MmMapIoSpace);
EXPORT(MmUnmapIoSpace);
EXPORT(MmAllocateContiguousMemorySpecifyCache);
EXPORT(MmFreeContiguousMemorySpecifyCache);
EXPORT(MmLockPagableDataSection);
EXPORT(MmUnlockPagableImageSection);
EXPORT(IoIs32bitProcess);
EXPORT(RtlAssert);

typedef WABI void *(*map_io_fn)(unsigned long long, size_t, unsigned int);
typedef WABI void (*unmap_io_fn)(void *, size_t);
typedef WABI void *(*contig_fn)(size_t, unsigned long long,
				unsigned long long, unsigned long long,
				unsigned int);
typedef WABI void (*free_contig_fn)(void *, size_t, unsigned int);
typedef WABI void *(*lock_section_fn)(void *);
typedef WABI void (*unlock_section_fn)(void *);
typedef WABI unsigned char (*is32_fn)(void *);
typedef WABI void (*assert_fn)(void *, void *, unsigned int, char *);

static void test_mm_io_space(void)
{
	map_io_fn map = FN(map_io_fn, MmMapIoSpace);
	contig_fn contig = FN(contig_fn, MmAllocateContiguousMemorySpecifyCache);
	void *p;

	/* MmNonCached 0, MmCached 1, MmWriteCombined 2 */
	CHECK(map(0xfebf0000ull, 256, 0) == io_space);
	CHECK(io_phys == 0xfebf0000ull && io_size == 256 && !io_cached);
	CHECK(map(0x1000, 16, 1) == io_space && io_cached);
	CHECK(map(0x1000, 0, 0) == NULL);
	FN(unmap_io_fn, MmUnmapIoSpace)(io_space, 256);
	CHECK(io_unmapped == io_space);

	p = contig(8192, 0, 0xffffffffull, 0, 1);
	CHECK(p && contig_live == 1 && contig_highest == 0xffffffffull);
	FN(free_contig_fn, MmFreeContiguousMemorySpecifyCache)(p, 8192, 1);
	CHECK(contig_live == 0);
	/* a boundary the allocation must not cross is more than is offered */
	CHECK(contig(8192, 0, ~0ull, 4096, 1) == NULL);
	CHECK(contig(0, 0, ~0ull, 0, 1) == NULL);
	CHECK(contig_live == 0);
}

static void test_mm_sections(void)
{
	static int in_section;
	void *h = FN(lock_section_fn, MmLockPagableDataSection)(&in_section);

	/* nothing is paged: the handle is good for the unlock, no more */
	CHECK(h != NULL);
	FN(unlock_section_fn, MmUnlockPagableImageSection)(h);
	CHECK(FN(is32_fn, IoIs32bitProcess)(NULL) == 0);
	logged[0] = '\0';
	FN(assert_fn, RtlAssert)("len > 0", "recv.c", 42, NULL);
	CHECK_STR(logged, "RtlAssert: len > 0 failed at recv.c:42");
	FN(assert_fn, RtlAssert)("x", "a.c", 7, "bad length");
	CHECK_STR(logged, "RtlAssert: x failed at a.c:7: bad length");
}

/* -- work items ------------------------------------------------------------- */

struct work_item {
	struct dev *dev;
	void *routine, *context;
	void *work;
};

void *ntos_work_new(struct work_item *item);
void ntos_work_queue(void *work);
void ntos_work_free(void *work);

static struct work_item *work_of;
static int work_live, work_queued, work_fail;

void *ntos_work_new(struct work_item *item)
{
	if (work_fail)
		return NULL;
	work_of = item;
	work_live++;
	return &work_live;
}

void ntos_work_queue(void *work)
{
	if (work == &work_live)
		work_queued++;
}

void ntos_work_free(void *work)
{
	if (work == &work_live)
		work_live--;
}

EXPORT(IoAllocateWorkItem);
EXPORT(IoQueueWorkItem);
EXPORT(IoFreeWorkItem);

typedef WABI struct work_item *(*alloc_work_fn)(struct dev *);
typedef WABI void (*queue_work_fn)(struct work_item *, void *, int, void *);
typedef WABI void (*free_work_fn)(struct work_item *);

static void test_io_work_items(void)
{
	alloc_work_fn alloc = FN(alloc_work_fn, IoAllocateWorkItem);
	struct dev d;
	int ctx, live = pool_live;
	struct work_item *w = alloc(&d);

	CHECK(w && work_of == w && w->dev == &d && work_live == 1);
	CHECK(pool_live == live + 1);
	if (!w)
		return;
	/* DelayedWorkQueue 1: one queue for all types */
	FN(queue_work_fn, IoQueueWorkItem)(w, (void *)test_io_work_items, 1,
					   &ctx);
	CHECK(w->routine == (void *)test_io_work_items && w->context == &ctx);
	CHECK(work_queued == 1);
	FN(free_work_fn, IoFreeWorkItem)(w);
	CHECK(work_live == 0 && pool_live == live);
	CHECK(alloc(NULL) == NULL);
	work_fail = 1;
	CHECK(alloc(&d) == NULL && pool_live == live);
	work_fail = 0;
	pool_fail = 1;
	CHECK(alloc(&d) == NULL && work_live == 0);
}

/* -- debug output ----------------------------------------------------------- */

EXPORT(DbgPrintEx);
EXPORT(vDbgPrintEx);
EXPORT(_purecall);

typedef WABI unsigned int (*vdbgex_fn)(unsigned int, unsigned int,
				       const char *, __builtin_ms_va_list);

/* a driver's own printf over vDbgPrintEx, as NetKVM's DebugPrint is */
static WABI unsigned int call_vdbg(unsigned int level, const char *fmt, ...)
{
	__builtin_ms_va_list ap;
	unsigned int status;

	__builtin_ms_va_start(ap, fmt);
	status = FN(vdbgex_fn, vDbgPrintEx)(101, level, fmt, ap);
	__builtin_ms_va_end(ap);
	return status;
}

static void test_vdbg_print_ex(void)
{
	logged[0] = '\0';
	/* the same filter as DbgPrintEx, the arguments from the va_list */
	CHECK(call_vdbg(0x80000009u, "[%s]<=0x%X\n", "Init", 0x1fu) ==
	      STATUS_SUCCESS);
	CHECK_STR(logged, "[Init]<=0x1F");
	CHECK(call_vdbg(2, "trace %d", 1) == STATUS_SUCCESS);
	CHECK(call_vdbg(0x80000008u, "masked %d", 2) == STATUS_SUCCESS);
	CHECK_STR(logged, "[Init]<=0x1F");
	CHECK(call_vdbg(0, "rx %d of %ws", 3, u"wl0") == STATUS_SUCCESS);
	CHECK_STR(logged, "rx 3 of wl0");
}

typedef WABI unsigned int (*dbgex_fn)(unsigned int, unsigned int,
				      const char *, ...);
typedef WABI int (*purecall_fn)(void);

static void test_dbg_print_ex(void)
{
	dbgex_fn dbg = FN(dbgex_fn, DbgPrintEx);

	logged[0] = '\0';
	/* DPFLTR_ERROR_LEVEL is shown; trace and info are filtered */
	CHECK(dbg(77, 0, "rx %d of %ws\n", 3, u"wl0") == STATUS_SUCCESS);
	CHECK_STR(logged, "rx 3 of wl0");
	CHECK(dbg(77, 2, "trace %d", 1) == STATUS_SUCCESS);
	CHECK(dbg(77, 3, "info %d", 1) == STATUS_SUCCESS);
	CHECK_STR(logged, "rx 3 of wl0");
	/* a level above 31 is a mask: bit 0 is the error level */
	CHECK(dbg(77, 0x80000001u, "mask %s", "ok") == STATUS_SUCCESS);
	CHECK_STR(logged, "mask ok");
	CHECK(dbg(77, 0x80000004u, "masked") == STATUS_SUCCESS);
	CHECK_STR(logged, "mask ok");
	FN(purecall_fn, _purecall)();
	CHECK_STR(logged, "_purecall: a pure virtual function was called");
}

EXPORT(DbgBreakPoint);

typedef WABI void (*break_fn)(void);

unsigned long ntos_image_offset(unsigned long caller);

/* ntoskrnl.c's side: the caller's offset in its driver's image */
static unsigned long offset_asked;

unsigned long ntos_image_offset(unsigned long caller)
{
	offset_asked = caller;
	return 0x1a2b;
}

static void test_dbg_break_point(void)
{
	/* no debugger: a log line naming where, and the call returns */
	logged[0] = '\0';
	offset_asked = 0;
	FN(break_fn, DbgBreakPoint)();
	CHECK_STR(logged, "DbgBreakPoint at +0x1a2b: no debugger, ignored");
	CHECK(offset_asked != 0);
}

EXPORT(MmGetSystemRoutineAddress);

typedef WABI void *(*routine_fn)(struct ustr *);

/* ntoskrnl.c's side: a made-up table of two kernel exports. */
static char routine_asked[80];
static int routine_a, routine_b;

void *ntos_system_routine(const char *name);
void *ntos_system_routine(const char *name)
{
	snprintf(routine_asked, sizeof(routine_asked), "%s", name);
	if (!strcmp(name, "KeSetEvent"))
		return &routine_a;
	if (!strcmp(name, "HalGetBusData"))
		return &routine_b;
	return NULL;
}

static void test_mm_system_routine(void)
{
	routine_fn get = FN(routine_fn, MmGetSystemRoutineAddress);
	char16_t name[] = u"KeSetEvent", hal[] = u"HalGetBusData";
	char16_t odd[] = u"Ke\u00e9Set", unknown[] = u"NdisMSendComplete";
	char16_t nul[] = u"KeSet\0Event";
	char16_t longname[100];
	struct ustr s = { sizeof(name) - 2, sizeof(name), name };
	int i;

	CHECK(get(&s) == &routine_a);
	CHECK_STR(routine_asked, "KeSetEvent");
	s = (struct ustr){ sizeof(hal) - 2, sizeof(hal), hal };
	CHECK(get(&s) == &routine_b);
	s = (struct ustr){ sizeof(unknown) - 2, sizeof(unknown), unknown };
	CHECK(get(&s) == NULL);
	CHECK_STR(routine_asked, "NdisMSendComplete");
	/* the counted length, not a terminator, ends the name */
	s = (struct ustr){ 4, sizeof(name), name };
	CHECK(get(&s) == NULL);
	CHECK_STR(routine_asked, "Ke");
	/* no export has a character past ASCII, a NUL, an odd length or a
	 * name longer than 64: refused without a lookup */
	routine_asked[0] = '\0';
	s = (struct ustr){ sizeof(odd) - 2, sizeof(odd), odd };
	CHECK(get(&s) == NULL);
	s = (struct ustr){ sizeof(nul) - 2, sizeof(nul), nul };
	CHECK(get(&s) == NULL);
	s = (struct ustr){ 3, sizeof(name), name };
	CHECK(get(&s) == NULL);
	for (i = 0; i < 100; i++)
		longname[i] = 'A';
	s = (struct ustr){ 2 * 65, sizeof(longname), longname };
	CHECK(get(&s) == NULL);
	CHECK(get(NULL) == NULL);
	s = (struct ustr){ 0, 0, NULL };
	CHECK(get(&s) == NULL);
	CHECK_STR(routine_asked, "");
}

/* -- the kernel side of ntos_list.c, ntos_time.c, ntos_sync.c, ntos_pool.c -- */

/*
 * What ntoskrnl.c gives those files in the module: the call chain's
 * depth and IRQL (per CPU there, per thread here: kmock_ntos/linux/
 * percpu.h), win_call (the thunk: a Windows-ABI call of up to six
 * arguments), the interrupt time, and the sleep outside the FPU section.
 */
__thread unsigned int win_depth;
__thread unsigned char win_irql;
__thread bool win_caller_atomic;

unsigned long long win_call(const void *fn, unsigned long nargs,
			    const unsigned long long *args);
unsigned long long win_interrupt_time(void);
long win_sleep_outside_fpu(long (*sleep)(void *arg, long timeout),
			   void *arg, long timeout);

typedef WABI unsigned long long (*call6_fn)(unsigned long long,
	unsigned long long, unsigned long long, unsigned long long,
	unsigned long long, unsigned long long);

unsigned long long win_call(const void *fn, unsigned long nargs,
			    const unsigned long long *args)
{
	unsigned long long a[6] = { 0 };

	memcpy(a, args, (nargs < 6 ? nargs : 6) * sizeof(a[0]));
	return ((call6_fn)fn)(a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* InterruptTime (100 ns units since boot): what a test sets. */
static unsigned long long interrupt_time;

unsigned long long win_interrupt_time(void)
{
	return interrupt_time;
}

/* ntoskrnl.c's, as it behaves: the chain's depth and IRQL given back
 * for the sleep and taken along again. */
static int sleeps_outside;	/* sleeps from inside Windows code */

long win_sleep_outside_fpu(long (*sleep)(void *arg, long timeout),
			   void *arg, long timeout)
{
	unsigned int depth = win_depth;
	unsigned char irql = win_irql;
	bool atomic = win_caller_atomic;
	long left;

	if (!depth)
		return sleep(arg, timeout);
	sleeps_outside++;
	win_irql = 0;
	win_depth = 0;
	kernel_fpu_end();
	left = sleep(arg, timeout);
	kernel_fpu_begin();
	win_depth = depth;
	win_irql = irql;
	win_caller_atomic = atomic;
	return left;
}

/* The kernel log: the last line. */
static char klog[256];

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(klog, sizeof(klog), fmt, ap);
	va_end(ap);
	return n;
}

/* The driver pool (ndis_core.h): one driver, blocks counted. */
struct ndis_driver {
	int id;
};

static struct ndis_driver the_driver = { 1 };
static int drv_live;		/* win_alloc'd and not win_free'd */
static unsigned long driver_asked;	/* ndis_driver_at's address */

struct ndis_driver *ndis_driver_at(unsigned long addr);
void *win_alloc(struct ndis_driver *drv, size_t size);
void win_free(void *ptr);

struct ndis_driver *ndis_driver_at(unsigned long addr)
{
	driver_asked = addr;
	return &the_driver;
}

void *win_alloc(struct ndis_driver *drv, size_t size)
{
	void *p = drv == &the_driver ? calloc(1, size) : NULL;

	if (p)
		drv_live++;
	return p;
}

void win_free(void *ptr)
{
	if (ptr)
		drv_live--;
	free(ptr);
}

#define WIN_PASSIVE_LEVEL	0
#define WIN_DISPATCH_LEVEL	2

/* Runs the rest of the test as if inside Windows code at @irql. */
static void enter_windows(unsigned char irql)
{
	win_depth = 1;
	win_irql = irql;
	win_caller_atomic = false;
}

static void leave_windows(void)
{
	win_depth = 0;
	win_irql = WIN_PASSIVE_LEVEL;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* -- lists under the caller's spin lock (ntos_list.c) ---------------------- */

EXPORT(ExfInterlockedInsertHeadList);
EXPORT(ExfInterlockedInsertTailList);
EXPORT(ExfInterlockedRemoveHeadList);
EXPORT(ExfInterlockedRemoveTailList);

typedef WABI struct list_entry *(*list_insert_fn)(struct list_entry *,
						  struct list_entry *,
						  unsigned long *);
typedef WABI struct list_entry *(*list_remove_fn)(struct list_entry *,
						  unsigned long *);

/* A thread that takes the list's lock, as another CPU would. */
struct lock_holder {
	unsigned long *lock;
	struct list_entry *head, *e;
	volatile int done;
};

static void *insert_under_held_lock(void *arg)
{
	struct lock_holder *h = arg;

	FN(list_insert_fn, ExfInterlockedInsertTailList)(h->head, h->e, h->lock);
	h->done = 1;
	return NULL;
}

static void test_list_locked(void)
{
	struct list_entry head = { &head, &head }, a, b, c;
	struct lock_holder h = { 0 };
	unsigned long lock = 0;
	pthread_t t;

	/* into an empty list: NULL, the entry linked both ways */
	CHECK(FN(list_insert_fn, ExfInterlockedInsertHeadList)(&head, &a,
							       &lock) == NULL);
	CHECK(head.flink == &a && head.blink == &a);
	CHECK(a.flink == &head && a.blink == &head);
	/* the first (last) entry before the insertion */
	CHECK(FN(list_insert_fn, ExfInterlockedInsertHeadList)(&head, &b,
							       &lock) == &a);
	CHECK(FN(list_insert_fn, ExfInterlockedInsertTailList)(&head, &c,
							       &lock) == &a);
	/* head, b, a, c */
	CHECK(head.flink == &b && b.flink == &a && a.flink == &c &&
	      c.flink == &head);
	CHECK(head.blink == &c && c.blink == &a && a.blink == &b &&
	      b.blink == &head);
	/* the lock given back, interrupts as they were */
	CHECK(lock == 0 && kmock_irqs_off == 0);
	CHECK(FN(list_remove_fn, ExfInterlockedRemoveTailList)(&head,
							       &lock) == &c);
	CHECK(FN(list_remove_fn, ExfInterlockedRemoveHeadList)(&head,
							       &lock) == &b);
	CHECK(head.flink == &a && head.blink == &a && a.flink == &head);
	CHECK(FN(list_remove_fn, ExfInterlockedRemoveHeadList)(&head,
							       &lock) == &a);
	CHECK(head.flink == &head && head.blink == &head);
	/* an empty list: NULL, the head untouched */
	CHECK(FN(list_remove_fn, ExfInterlockedRemoveHeadList)(&head,
							       &lock) == NULL);
	CHECK(FN(list_remove_fn, ExfInterlockedRemoveTailList)(&head,
							       &lock) == NULL);
	CHECK(head.flink == &head && head.blink == &head && lock == 0);

	/* a lock another CPU holds: the insertion waits for its release */
	lock = 1;
	h.lock = &lock;
	h.head = &head;
	h.e = &a;
	CHECK(!pthread_create(&t, NULL, insert_under_held_lock, &h));
	usleep(50000);
	CHECK(!h.done && head.flink == &head);
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK(h.done && head.flink == &a && head.blink == &a && lock == 0);
}

/* -- SLists, the Ex and Exp forms (ntos_list.c) ----------------------------- */

struct slist_entry {
	struct slist_entry *next;
} __attribute__((aligned(16)));

struct slist_header {
	unsigned long long words[2];
} __attribute__((aligned(16)));

EXPORT(ExInterlockedPushEntrySList);
EXPORT(ExInterlockedPopEntrySList);
EXPORT(ExpInterlockedPushEntrySList);
EXPORT(ExpInterlockedPopEntrySList);
EXPORT(ExQueryDepthSList);
EXPORT(InterlockedPushEntrySList);

typedef WABI struct slist_entry *(*ex_push_fn)(struct slist_header *,
					       struct slist_entry *,
					       unsigned long *);
typedef WABI struct slist_entry *(*ex_pop_fn)(struct slist_header *,
					      unsigned long *);
typedef WABI struct slist_entry *(*exp_push_fn)(struct slist_header *,
						struct slist_entry *);
typedef WABI struct slist_entry *(*exp_pop_fn)(struct slist_header *);
typedef WABI unsigned short (*depth_fn)(struct slist_header *);

static void test_slist_ex(void)
{
	struct slist_header h = { { 0, 0 } };
	struct slist_entry a, b, c;
	/* SLists serialize on a lock of their own (ntos_list.c): the
	 * caller's is not taken, so a held one does not stop them */
	unsigned long lock = 1;

	CHECK(FN(ex_push_fn, ExInterlockedPushEntrySList)(&h, &a,
							  &lock) == NULL);
	CHECK(FN(exp_push_fn, ExpInterlockedPushEntrySList)(&h, &b) == &a);
	CHECK(FN(ex_push_fn, ExInterlockedPushEntrySList)(&h, &c,
							  &lock) == &b);
	CHECK(FN(depth_fn, ExQueryDepthSList)(&h) == 3);
	/* last in, first out, linked through Next */
	CHECK(c.next == &b && b.next == &a && a.next == NULL);
	CHECK(FN(exp_pop_fn, ExpInterlockedPopEntrySList)(&h) == &c);
	CHECK(FN(ex_pop_fn, ExInterlockedPopEntrySList)(&h, &lock) == &b);
	CHECK(FN(depth_fn, ExQueryDepthSList)(&h) == 1);
	CHECK(FN(exp_pop_fn, ExpInterlockedPopEntrySList)(&h) == &a);
	CHECK(FN(ex_pop_fn, ExInterlockedPopEntrySList)(&h, &lock) == NULL);
	CHECK(FN(exp_pop_fn, ExpInterlockedPopEntrySList)(&h) == NULL);
	CHECK(FN(depth_fn, ExQueryDepthSList)(&h) == 0);
	CHECK(lock == 1);
}

EXPORT(InitializeSListHead);

typedef WABI void (*slist_init_fn)(struct slist_header *);

static void test_slist_init(void)
{
	struct slist_header h;
	struct slist_entry a;

	/* whatever was there: an empty amd64 "Header16" list, HeaderType
	 * and Init set, as Windows' initializer leaves it */
	memset(&h, 0xa5, sizeof(h));
	FN(slist_init_fn, InitializeSListHead)(&h);
	CHECK(!memcmp(&h, (unsigned long long [2]){ 0, 3 }, sizeof(h)));
	CHECK(FN(depth_fn, ExQueryDepthSList)(&h) == 0);
	CHECK(FN(exp_pop_fn, ExpInterlockedPopEntrySList)(&h) == NULL);
	CHECK(FN(exp_push_fn, ExpInterlockedPushEntrySList)(&h, &a) == NULL);
	CHECK(FN(depth_fn, ExQueryDepthSList)(&h) == 1);
	CHECK(FN(exp_pop_fn, ExpInterlockedPopEntrySList)(&h) == &a);
}

/* -- clocks, IRQL and spin locks (ntos_time.c) ------------------------------ */

EXPORT(KeQuerySystemTime);
EXPORT(ExSetTimerResolution);
EXPORT(KeQueryActiveProcessors);
EXPORT(KeRaiseIrqlToDpcLevel);
EXPORT(KeLowerIrql);
EXPORT(KeInitializeSpinLock);
EXPORT(KeAcquireSpinLock);

typedef WABI void (*time_fn)(long long *);
typedef WABI unsigned int (*resolution_fn)(unsigned int, unsigned char);
typedef WABI unsigned long (*affinity_fn)(void);
typedef WABI unsigned char (*raise_dpc_fn)(void);
typedef WABI void (*lower_fn)(unsigned char);
typedef WABI void (*spin_init_fn)(unsigned long *);
typedef WABI void (*spin_acquire_fn)(unsigned long *, unsigned char *);

#define WIN_EPOCH_100NS		116444736000000000LL

static long long host_system_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 10000000LL + ts.tv_nsec / 100 + WIN_EPOCH_100NS;
}

static void test_time_clocks(void)
{
	long long before, t = 0, after;

	before = host_system_time();
	FN(time_fn, KeQuerySystemTime)(&t);
	after = host_system_time();
	/* 100 ns units since 1601, the host's clock */
	CHECK(t >= before && t <= after);
	/* one resolution (15.625 ms) whatever is asked, set or cleared */
	CHECK(FN(resolution_fn, ExSetTimerResolution)(10000, 1) == 156250);
	CHECK(FN(resolution_fn, ExSetTimerResolution)(0, 0) == 156250);
	/* a bit per online CPU */
	nr_cpu_ids = 4;
	kmock_online_mask = 0xb;
	CHECK(FN(affinity_fn, KeQueryActiveProcessors)() == 0xb);
	/* as many as KAFFINITY holds */
	nr_cpu_ids = 80;
	kmock_online_mask = ~0UL;
	CHECK(FN(affinity_fn, KeQueryActiveProcessors)() == ~0UL);
	nr_cpu_ids = 1;
	kmock_online_mask = 1;
	CHECK(FN(affinity_fn, KeQueryActiveProcessors)() == 1);
}

static void test_time_irql(void)
{
	/* outside Windows code the level is PASSIVE and stays so */
	CHECK(FN(raise_dpc_fn, KeRaiseIrqlToDpcLevel)() == WIN_PASSIVE_LEVEL);
	CHECK(win_irql == WIN_PASSIVE_LEVEL);
	/* inside: raised, the old level returned for KeLowerIrql */
	enter_windows(WIN_PASSIVE_LEVEL);
	CHECK(FN(raise_dpc_fn, KeRaiseIrqlToDpcLevel)() == WIN_PASSIVE_LEVEL);
	CHECK(win_irql == WIN_DISPATCH_LEVEL);
	FN(lower_fn, KeLowerIrql)(WIN_PASSIVE_LEVEL);
	CHECK(win_irql == WIN_PASSIVE_LEVEL);
	/* from DIRQL "raising" to DISPATCH_LEVEL would lower: refused */
	win_irql = 5;
	klog[0] = '\0';
	CHECK(FN(raise_dpc_fn, KeRaiseIrqlToDpcLevel)() == 5);
	CHECK(win_irql == 5);
	CHECK_CONTAINS(klog, "KeRaiseIrqlToDpcLevel from IRQL 5 to 2: the wrong way, ignored");
	leave_windows();
}

static void *acquire_held_spin_lock(void *arg)
{
	struct lock_holder *h = arg;
	unsigned char old = 0xff;

	enter_windows(WIN_PASSIVE_LEVEL);
	FN(spin_acquire_fn, KeAcquireSpinLock)(h->lock, &old);
	h->done = 1 + (old == WIN_PASSIVE_LEVEL &&
		       win_irql == WIN_DISPATCH_LEVEL);
	leave_windows();
	return NULL;
}

static void test_time_spin_lock(void)
{
	struct lock_holder h = { 0 };
	unsigned long lock = 1;
	unsigned char old = 0xff;
	pthread_t t;

	FN(spin_init_fn, KeInitializeSpinLock)(&lock);
	CHECK(lock == 0);
	/* taken, and the caller raised to DISPATCH_LEVEL: the old level back */
	enter_windows(WIN_PASSIVE_LEVEL);
	FN(spin_acquire_fn, KeAcquireSpinLock)(&lock, &old);
	CHECK(lock == 1 && old == WIN_PASSIVE_LEVEL);
	CHECK(win_irql == WIN_DISPATCH_LEVEL);
	/* a caller at DISPATCH_LEVEL already stays there */
	lock = 0;
	FN(spin_acquire_fn, KeAcquireSpinLock)(&lock, &old);
	CHECK(lock == 1 && old == WIN_DISPATCH_LEVEL &&
	      win_irql == WIN_DISPATCH_LEVEL);
	leave_windows();
	/* another thread's acquisition spins until the holder lets go */
	h.lock = &lock;
	CHECK(!pthread_create(&t, NULL, acquire_held_spin_lock, &h));
	usleep(50000);
	CHECK(!h.done);
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK(h.done == 2 && lock == 1);
}

/* The amd64 spin lock family NdisAcquireSpinLock and its kin expand to:
 * the lock word, and the IRQL raised and given back (ntos_time.c). */
EXPORT(KeAcquireSpinLockRaiseToDpc);
EXPORT(KeReleaseSpinLock);
EXPORT(KeAcquireSpinLockAtDpcLevel);
EXPORT(KeReleaseSpinLockFromDpcLevel);

typedef WABI unsigned char (*spin_raise_fn)(unsigned long *);
typedef WABI void (*spin_release_fn)(unsigned long *, unsigned char);
typedef WABI void (*spin_dpc_fn)(unsigned long *);

static void *acquire_at_dpc_held(void *arg)
{
	struct lock_holder *h = arg;

	FN(spin_dpc_fn, KeAcquireSpinLockAtDpcLevel)(h->lock);
	h->done = 1;
	return NULL;
}

static void test_time_spin_lock_family(void)
{
	struct lock_holder h = { 0 };
	unsigned long lock = 0;
	unsigned char old;
	pthread_t t;

	/* NdisAcquireSpinLock: taken at DISPATCH_LEVEL, the old level back */
	enter_windows(WIN_PASSIVE_LEVEL);
	old = FN(spin_raise_fn, KeAcquireSpinLockRaiseToDpc)(&lock);
	CHECK(old == WIN_PASSIVE_LEVEL && lock == 1);
	CHECK(win_irql == WIN_DISPATCH_LEVEL);
	/* NdisReleaseSpinLock: free, and the caller back at its level */
	FN(spin_release_fn, KeReleaseSpinLock)(&lock, old);
	CHECK(lock == 0 && win_irql == WIN_PASSIVE_LEVEL);
	/* the Dpr forms: the caller is at DISPATCH_LEVEL and stays there */
	win_irql = WIN_DISPATCH_LEVEL;
	FN(spin_dpc_fn, KeAcquireSpinLockAtDpcLevel)(&lock);
	CHECK(lock == 1 && win_irql == WIN_DISPATCH_LEVEL);
	FN(spin_dpc_fn, KeReleaseSpinLockFromDpcLevel)(&lock);
	CHECK(lock == 0 && win_irql == WIN_DISPATCH_LEVEL);
	/* a raise from DISPATCH_LEVEL returns it, the release keeps it */
	old = FN(spin_raise_fn, KeAcquireSpinLockRaiseToDpc)(&lock);
	CHECK(old == WIN_DISPATCH_LEVEL && win_irql == WIN_DISPATCH_LEVEL);
	FN(spin_release_fn, KeReleaseSpinLock)(&lock, old);
	CHECK(lock == 0 && win_irql == WIN_DISPATCH_LEVEL);
	leave_windows();
	/* outside Windows code the level stays PASSIVE */
	old = FN(spin_raise_fn, KeAcquireSpinLockRaiseToDpc)(&lock);
	CHECK(old == WIN_PASSIVE_LEVEL && lock == 1 && win_irql == 0);
	/* held: another CPU's KeAcquireSpinLockAtDpcLevel spins till the release */
	h.lock = &lock;
	CHECK(!pthread_create(&t, NULL, acquire_at_dpc_held, &h));
	usleep(50000);
	CHECK(!h.done);
	FN(spin_release_fn, KeReleaseSpinLock)(&lock, old);
	pthread_join(t, NULL);
	CHECK(h.done && lock == 1);
}


/* -- events and the delay (ntos_sync.c) ------------------------------------- */

struct kevent {
	unsigned char type, signalling, size, reserved;
	int signal_state;
	struct list_entry wait_list_head;
};

EXPORT(KeInitializeEvent);
EXPORT(KeSetEvent);
EXPORT(KeClearEvent);
EXPORT(KeReadStateEvent);
EXPORT(KeDelayExecutionThread);

typedef WABI void (*event_init_fn)(struct kevent *, unsigned int,
				   unsigned char);
typedef WABI int (*event_set_fn)(struct kevent *, int, unsigned char);
typedef WABI void (*event_clear_fn)(struct kevent *);
typedef WABI int (*event_read_fn)(struct kevent *);
typedef WABI int (*delay_fn)(unsigned char, unsigned char,
			     const long long *);

#define STATUS_TIMEOUT		0x102

static void test_sync_event_state(void)
{
	struct kevent ev;

	memset(&ev, 0x55, sizeof(ev));
	FN(event_init_fn, KeInitializeEvent)(&ev, 0, 1);	/* notification */
	CHECK(FN(event_read_fn, KeReadStateEvent)(&ev) == 1);
	FN(event_clear_fn, KeClearEvent)(&ev);
	CHECK(ev.signal_state == 0);
	CHECK(FN(event_read_fn, KeReadStateEvent)(&ev) == 0);
	CHECK(FN(event_set_fn, KeSetEvent)(&ev, 0, 0) == 0);
	CHECK(FN(event_read_fn, KeReadStateEvent)(&ev) == 1);
	/* the state as the object holds it, whoever wrote it */
	ev.signal_state = 0;
	CHECK(FN(event_read_fn, KeReadStateEvent)(&ev) == 0);
	/* a cleared event has no waiters to satisfy: still cleared */
	FN(event_clear_fn, KeClearEvent)(&ev);
	CHECK(FN(event_read_fn, KeReadStateEvent)(&ev) == 0);
}

static void test_sync_delay(void)
{
	long long interval, start, took;

	CHECK(FN(delay_fn, KeDelayExecutionThread)(0, 0, NULL) ==
	      STATUS_INVALID_PARAMETER);
	/* relative, 50 ms: sleeps that long (the scheduler may add) */
	interval = -500000;
	start = now_ns();
	CHECK(FN(delay_fn, KeDelayExecutionThread)(0, 0, &interval) ==
	      STATUS_SUCCESS);
	took = now_ns() - start;
	CHECK(took >= 50000000LL && took < 2000000000LL);
	/* an absolute time already past: at once */
	interval = host_system_time() - 10000000;
	start = now_ns();
	CHECK(FN(delay_fn, KeDelayExecutionThread)(0, 0, &interval) ==
	      STATUS_SUCCESS);
	CHECK(now_ns() - start < 200000000LL);
	/* absolute, 30 ms ahead */
	interval = host_system_time() + 300000;
	start = now_ns();
	CHECK(FN(delay_fn, KeDelayExecutionThread)(0, 0, &interval) ==
	      STATUS_SUCCESS);
	took = now_ns() - start;
	CHECK(took >= 29000000LL && took < 2000000000LL);
	/* from Windows code at PASSIVE_LEVEL: the sleep leaves its FPU section */
	enter_windows(WIN_PASSIVE_LEVEL);
	sleeps_outside = 0;
	interval = -100000;
	start = now_ns();
	CHECK(FN(delay_fn, KeDelayExecutionThread)(0, 0, &interval) ==
	      STATUS_SUCCESS);
	CHECK(now_ns() - start >= 10000000LL);
	CHECK(sleeps_outside == 1 && win_depth == 1);
	/* at DISPATCH_LEVEL: up to 1 ms busy-waits, longer is refused */
	win_irql = WIN_DISPATCH_LEVEL;
	interval = -5000;
	start = now_ns();
	CHECK(FN(delay_fn, KeDelayExecutionThread)(0, 0, &interval) ==
	      STATUS_SUCCESS);
	CHECK(now_ns() - start >= 500000LL);
	CHECK(sleeps_outside == 1);
	klog[0] = '\0';
	interval = -20000;
	CHECK(FN(delay_fn, KeDelayExecutionThread)(0, 0, &interval) ==
	      STATUS_INVALID_PARAMETER);
	CHECK_CONTAINS(klog, "KeDelayExecutionThread at IRQL 2: cannot sleep");
	CHECK(sleeps_outside == 1 && win_irql == WIN_DISPATCH_LEVEL);
	leave_windows();
}

/* -- the pool and lookaside lists (ntos_pool.c) ----------------------------- */

struct lookaside {
	struct slist_header list_head;
	unsigned short depth, maximum_depth;
	unsigned int total_allocates, allocate_misses, total_frees;
	unsigned int free_misses, type, tag, size;
	void *allocate;
	void *free;
	struct list_entry list_entry;
	unsigned int last_total_allocates, last_allocate_misses;
	unsigned int future[2];
} __attribute__((aligned(16)));

EXPORT(ExFreePool);
EXPORT(ExInitializeNPagedLookasideList);
EXPORT(ExDeleteNPagedLookasideList);

typedef WABI void (*free_pool_fn)(void *);
typedef WABI void (*la_init_fn)(struct lookaside *, void *, void *,
				unsigned int, size_t, unsigned int,
				unsigned short);
typedef WABI void (*la_delete_fn)(struct lookaside *);
typedef WABI void *(*la_alloc_fn)(unsigned int, size_t, unsigned int);

/* A driver's own Free routine: what it was given. */
static void *driver_freed[4];
static int driver_frees;

static WABI void driver_la_free(void *p)
{
	if (driver_frees < 4)
		driver_freed[driver_frees] = p;
	driver_frees++;
	free(p);
}

static void test_pool_free(void)
{
	void *p = win_alloc(&the_driver, 32);

	CHECK(p && drv_live == 1);
	FN(free_pool_fn, ExFreePool)(p);
	CHECK(drv_live == 0);
	/* NULL is no block */
	FN(free_pool_fn, ExFreePool)(NULL);
	CHECK(drv_live == 0);
}

static void test_pool_lookaside(void)
{
	struct lookaside l;
	void *e[3];
	int i;

	_Static_assert(sizeof(struct lookaside) == 0x60, "amd64 layout");
	/* the pool's own Allocate and Free: blocks charged to the driver */
	memset(&l, 0x55, sizeof(l));
	FN(la_init_fn, ExInitializeNPagedLookasideList)(&l, NULL, NULL, 0,
							48, 0x6b6f6f4c, 0);
	CHECK(l.size == 48 && l.tag == 0x6b6f6f4c && l.depth == 4);
	CHECK(l.allocate && l.free);
	for (i = 0; i < 3; i++)
		e[i] = ((la_alloc_fn)l.allocate)(0, l.size, l.tag);
	CHECK(e[0] && e[1] && e[2] && drv_live == 3);
	/* ExFreeToNPagedLookasideList (inline) caches them on the SList */
	for (i = 0; i < 3; i++)
		FN(exp_push_fn, InterlockedPushEntrySList)(&l.list_head, e[i]);
	CHECK(FN(depth_fn, ExQueryDepthSList)(&l.list_head) == 3);
	/* deleted: every cached entry back to the pool */
	FN(la_delete_fn, ExDeleteNPagedLookasideList)(&l);
	CHECK(drv_live == 0);
	CHECK(FN(depth_fn, ExQueryDepthSList)(&l.list_head) == 0);
	CHECK(kmock_fpu_depth == 0 && win_depth == 0);

	/* the driver's own Free gets each cached entry, last cached first */
	FN(la_init_fn, ExInitializeNPagedLookasideList)(&l, NULL,
							(void *)driver_la_free,
							0, 16, 1, 0);
	CHECK(l.free == (void *)driver_la_free);
	driver_frees = 0;
	for (i = 0; i < 2; i++) {
		e[i] = calloc(1, 16);
		FN(exp_push_fn, InterlockedPushEntrySList)(&l.list_head, e[i]);
	}
	FN(la_delete_fn, ExDeleteNPagedLookasideList)(&l);
	CHECK(driver_frees == 2 && driver_freed[0] == e[1] &&
	      driver_freed[1] == e[0]);
	/* an empty list: nothing to free */
	FN(la_delete_fn, ExDeleteNPagedLookasideList)(&l);
	CHECK(driver_frees == 2);
}


/* -- threads and object references (ntos_thread.c) -------------------------- */

EXPORT(PsCreateSystemThread);
EXPORT(KeGetCurrentThread);
EXPORT(PsGetCurrentThread);
EXPORT(KeQueryPriorityThread);
EXPORT(KeSetPriorityThread);
EXPORT(ObReferenceObjectByHandle);
EXPORT(ObfDereferenceObject);
EXPORT(KeWaitForSingleObject);

typedef WABI int (*create_thread_fn)(void **, unsigned int, void *, void *,
				     void *, void *, void *);
typedef WABI void *(*current_thread_fn)(void);
typedef WABI int (*query_prio_fn)(void *);
typedef WABI int (*set_prio_fn)(void *, int);
typedef WABI int (*ref_handle_fn)(void *, unsigned int, void *,
				  unsigned char, void **, void *);
typedef WABI long (*deref_fn)(void *);
typedef WABI int (*close_fn)(void *);
typedef WABI int (*wait1_fn)(void *, unsigned int, unsigned char,
			     unsigned char, const long long *);

#define STATUS_INVALID_HANDLE		((int)0xC0000008)
#define STATUS_INSUFFICIENT_RESOURCES	((int)0xC000009A)

/* What the system thread saw of itself. */
struct thread_seen {
	void *ke, *ps;
	int prio_before, prio_after;
	unsigned char irql;
	int ran;
};

static WABI void system_thread_start(void *context)
{
	struct thread_seen *s = context;

	usleep(30000);	/* the creator's wait has to wait */
	s->ke = FN(current_thread_fn, KeGetCurrentThread)();
	s->ps = FN(current_thread_fn, PsGetCurrentThread)();
	s->prio_before = FN(query_prio_fn, KeQueryPriorityThread)(s->ke);
	FN(set_prio_fn, KeSetPriorityThread)(s->ke, 10);
	s->prio_after = FN(query_prio_fn, KeQueryPriorityThread)(s->ke);
	s->irql = win_irql;
	s->ran = 1;
}

static void test_thread_current_priority(void)
{
	void *me = FN(current_thread_fn, KeGetCurrentThread)();

	/* the task: the same to both, and a mutex's owner is it too */
	CHECK(me && me == FN(current_thread_fn, PsGetCurrentThread)());
	kmock_set_current_nice(0);
	CHECK(FN(query_prio_fn, KeQueryPriorityThread)(me) == 8);
	/* 12 is nice -8; the old priority returned */
	CHECK(FN(set_prio_fn, KeSetPriorityThread)(me, 12) == 8);
	CHECK(kmock_current_nice() == -8);
	CHECK(FN(query_prio_fn, KeQueryPriorityThread)(me) == 12);
	/* real time (16 and up) is the highest nice level */
	CHECK(FN(set_prio_fn, KeSetPriorityThread)(me, 20) == 12);
	CHECK(kmock_current_nice() == -20);
	/* read back as the variable range's top */
	CHECK(FN(set_prio_fn, KeSetPriorityThread)(me, 2) == 15);
	CHECK(kmock_current_nice() == 12);
	/* another thread's is not known: normal, and left alone */
	CHECK(FN(query_prio_fn, KeQueryPriorityThread)((void *)&me) == 8);
	CHECK(FN(set_prio_fn, KeSetPriorityThread)((void *)&me, 15) == 8);
	CHECK(kmock_current_nice() == 12);
	kmock_set_current_nice(0);
}

static void test_thread_handle_references(void)
{
	struct thread_seen seen = { 0 };
	long long timeout = -20000000;	/* 2 s */
	int slabs = kmock_slab_live;
	void *handle = NULL, *obj = NULL;
	long long start;

	CHECK(FN(create_thread_fn, PsCreateSystemThread)(&handle, 0, NULL,
			NULL, NULL, (void *)system_thread_start, &seen) ==
	      STATUS_SUCCESS);
	CHECK(handle != NULL && kmock_slab_live == slabs + 1);
	/* the handle referenced: the thread object itself */
	CHECK(FN(ref_handle_fn, ObReferenceObjectByHandle)(handle, 0, NULL, 0,
							   &obj, NULL) ==
	      STATUS_SUCCESS);
	CHECK(obj == handle);
	/* waited on until the thread's routine returns */
	start = now_ns();
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(obj, 0, 0, 0, &timeout) ==
	      STATUS_SUCCESS);
	CHECK(now_ns() - start >= 25000000LL);
	CHECK(seen.ran == 1);
	/* in it: its own task, at PASSIVE_LEVEL, its own priority */
	CHECK(seen.ke && seen.ke == seen.ps);
	CHECK(seen.ke != FN(current_thread_fn, KeGetCurrentThread)());
	CHECK(seen.irql == WIN_PASSIVE_LEVEL);
	CHECK(seen.prio_before == 8 && seen.prio_after == 10);
	/* the ended thread's reference is gone: the handle's and ours left */
	usleep(20000);
	CHECK(kmock_kthreads_running == 0);
	CHECK(FN(deref_fn, ObfDereferenceObject)(obj) == 1);
	CHECK(kmock_slab_live == slabs + 1);
	/* the handle closed: the last reference, the object freed */
	CHECK(FN(close_fn, ZwClose)(handle) == STATUS_SUCCESS);
	CHECK(kmock_slab_live == slabs);
	/* a freed (or never given) handle is refused, said in the log */
	klog[0] = '\0';
	obj = (void *)1;
	CHECK(FN(ref_handle_fn, ObReferenceObjectByHandle)(handle, 0, NULL, 0,
							   &obj, NULL) ==
	      STATUS_INVALID_HANDLE);
	CHECK(obj == (void *)1);
	CHECK_CONTAINS(klog, "is no handle the wrapper gave");
	/* an object the wrapper did not make is left alone: 1 */
	CHECK(FN(deref_fn, ObfDereferenceObject)(&seen) == 1);
	/* no kernel thread: no object left behind */
	kmock_kthread_fail = 1;
	handle = NULL;
	CHECK(FN(create_thread_fn, PsCreateSystemThread)(&handle, 0, NULL,
			NULL, NULL, (void *)system_thread_start, &seen) ==
	      STATUS_INSUFFICIENT_RESOURCES);
	kmock_kthread_fail = 0;
	CHECK(handle == NULL && kmock_slab_live == slabs);
}

/* -- timers and DPCs (ntos_timer.c) ----------------------------------------- */

struct kdpc {
	unsigned char type, importance;
	unsigned short number;
	struct list_entry dpc_list_entry;
	void *deferred_routine, *deferred_context;
	void *system_argument1, *system_argument2;
	void *dpc_data;
};

struct ktimer {
	struct kevent header;
	unsigned long long due_time;
	struct list_entry timer_list_entry;
	struct kdpc *dpc;
	int period;
};

/* ndiswrapper.h's: where DPCs run (kmock runs every queue alike) */
struct workqueue_struct *ndis_wq;
void win_timers_release(struct ndis_driver *drv);

EXPORT(KeInitializeTimer);
EXPORT(KeSetTimerEx);
EXPORT(KeCancelTimer);
EXPORT(KeReadStateTimer);
EXPORT(KeInitializeDpc);
EXPORT(KeInsertQueueDpc);
EXPORT(KeSetImportanceDpc);
EXPORT(KeFlushQueuedDpcs);

typedef WABI void (*timer_init_fn)(struct ktimer *);
typedef WABI unsigned char (*timer_set_fn)(struct ktimer *, long long, int,
					   struct kdpc *);
typedef WABI unsigned char (*timer_cancel_fn)(struct ktimer *);
typedef WABI unsigned char (*timer_read_fn)(struct ktimer *);
typedef WABI void (*dpc_init_fn)(struct kdpc *, void *, void *);
typedef WABI unsigned char (*dpc_insert_fn)(struct kdpc *, void *, void *);
typedef WABI void (*dpc_importance_fn)(struct kdpc *, unsigned int);
typedef WABI void (*flush_dpcs_fn)(void);

#define WIN_NOTIFICATION_TIMER	8

static void test_timer_state(void)
{
	struct ktimer kt;
	long long timeout = -20000000;	/* 2 s */
	int slabs = kmock_slab_live;
	long long start, took;

	memset(&kt, 0x55, sizeof(kt));
	driver_asked = 0;
	FN(timer_init_fn, KeInitializeTimer)(&kt);
	/* a notification timer, not set, charged to the caller's driver */
	CHECK(kt.header.type == WIN_NOTIFICATION_TIMER);
	CHECK(kt.header.signal_state == 0 && kt.dpc == NULL);
	CHECK(driver_asked != 0 && kmock_slab_live == slabs + 1);
	CHECK(FN(timer_read_fn, KeReadStateTimer)(&kt) == 0);
	/* 30 ms from now: not signalled before, signalled after */
	start = now_ns();
	CHECK(FN(timer_set_fn, KeSetTimerEx)(&kt, -300000, 0, NULL) == 0);
	CHECK(FN(timer_read_fn, KeReadStateTimer)(&kt) == 0);
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(&kt, 0, 0, 0, &timeout) ==
	      STATUS_SUCCESS);
	took = now_ns() - start;
	CHECK(took >= 29000000LL && took < 2000000000LL);
	CHECK(FN(timer_read_fn, KeReadStateTimer)(&kt) == 1);
	/* a notification timer stays signalled after the wait */
	CHECK(FN(timer_read_fn, KeReadStateTimer)(&kt) == 1);
	/* set again: not signalled until it expires; cancelled, never */
	CHECK(FN(timer_set_fn, KeSetTimerEx)(&kt, -200000, 0, NULL) == 0);
	CHECK(FN(timer_read_fn, KeReadStateTimer)(&kt) == 0);
	CHECK(FN(timer_cancel_fn, KeCancelTimer)(&kt) == 1);
	usleep(50000);
	CHECK(FN(timer_read_fn, KeReadStateTimer)(&kt) == 0);
	/* the driver's unload frees its timers */
	win_timers_release(&the_driver);
	CHECK(kmock_slab_live == slabs);
}

static int dpc_runs;
static unsigned char dpc_irql;

static WABI void slow_dpc(struct kdpc *dpc, void *context, void *arg1,
			  void *arg2)
{
	(void)dpc;
	(void)arg1;
	(void)arg2;
	usleep(50000);
	dpc_irql = win_irql;
	__atomic_add_fetch(&dpc_runs, (int)(long)context, __ATOMIC_SEQ_CST);
}

static void test_dpc_importance_flush(void)
{
	struct kdpc dpc, other;

	FN(dpc_init_fn, KeInitializeDpc)(&dpc, (void *)slow_dpc, (void *)1);
	FN(dpc_init_fn, KeInitializeDpc)(&other, (void *)slow_dpc, (void *)10);
	CHECK(dpc.importance == 1);	/* MediumImportance */
	FN(dpc_importance_fn, KeSetImportanceDpc)(&dpc, 2);
	CHECK(dpc.importance == 2);
	FN(dpc_importance_fn, KeSetImportanceDpc)(&other, 0);
	CHECK(other.importance == 0);
	/* at DISPATCH_LEVEL it cannot wait: not flushed, said so */
	dpc_runs = 0;
	CHECK(FN(dpc_insert_fn, KeInsertQueueDpc)(&dpc, NULL, NULL) == 1);
	CHECK(FN(dpc_insert_fn, KeInsertQueueDpc)(&other, NULL, NULL) == 1);
	enter_windows(WIN_DISPATCH_LEVEL);
	klog[0] = '\0';
	FN(flush_dpcs_fn, KeFlushQueuedDpcs)();
	leave_windows();
	CHECK(__atomic_load_n(&dpc_runs, __ATOMIC_SEQ_CST) == 0);
	CHECK_CONTAINS(klog, "KeFlushQueuedDpcs at IRQL 2: cannot wait, not flushed");
	/* at PASSIVE_LEVEL: back once both have run, whatever importance */
	FN(flush_dpcs_fn, KeFlushQueuedDpcs)();
	CHECK(__atomic_load_n(&dpc_runs, __ATOMIC_SEQ_CST) == 11);
	CHECK(dpc_irql == WIN_DISPATCH_LEVEL);
	/* nothing queued: at once */
	FN(flush_dpcs_fn, KeFlushQueuedDpcs)();
	CHECK(dpc_runs == 11);
}

/* MmMapLockedPages*: the MDL's memory is the kernel's, mapped already
 * (ntos_io.c). */
EXPORT(MmMapLockedPages);
EXPORT(MmMapLockedPagesSpecifyCache);

typedef WABI void *(*map_locked_fn)(struct mdl *, unsigned int);
typedef WABI void *(*map_locked_cache_fn)(struct mdl *, unsigned int,
					  unsigned int, void *, unsigned int,
					  unsigned int);

static void test_mm_map_locked_pages(void)
{
	static char mem[8192] __attribute__((aligned(4096)));
	struct mdl m = { .start_va = mem, .byte_offset = 300,
			 .byte_count = 100 };
	struct mdl pool = { .flags = 4, .mapped_va = mem + 8,
			    .start_va = mem, .byte_offset = 8 };

	/* a locked MDL: its address, now recorded as mapped */
	CHECK(FN(map_locked_cache_fn, MmMapLockedPagesSpecifyCache)(&m, 0, 1,
			NULL, 0, 16) == mem + 300);
	CHECK(m.mapped_va == mem + 300 && (m.flags & 1));
	/* mapped already: the same address again */
	m.mapped_va = mem + 4096;
	CHECK(FN(map_locked_fn, MmMapLockedPages)(&m, 0) == mem + 4096);
	/* MmUnmapLockedPages clears the mark: MmMapLockedPages maps again */
	m.flags = 0;
	CHECK(FN(map_locked_fn, MmMapLockedPages)(&m, 0) == mem + 300);
	CHECK(m.flags == 1);
	/* nonpaged pool (MmBuildMdlForNonPagedPool): its mapped address */
	CHECK(FN(map_locked_fn, MmMapLockedPages)(&pool, 0) == mem + 8);
	CHECK(pool.flags == 4);
}

/* HAL.dll's busy wait (hal.c): as long as it says, never sleeping. */
EXPORT(KeStallExecutionProcessor);

typedef WABI void (*stall_fn)(unsigned int);

static void test_hal_stall(void)
{
	long long start;

	start = now_ns();
	FN(stall_fn, KeStallExecutionProcessor)(2500);
	CHECK(now_ns() - start >= 2500000LL);
	start = now_ns();
	FN(stall_fn, KeStallExecutionProcessor)(40);
	CHECK(now_ns() - start >= 40000LL);
	/* at DISPATCH_LEVEL too: it does not leave the FPU section */
	enter_windows(WIN_DISPATCH_LEVEL);
	sleeps_outside = 0;
	start = now_ns();
	FN(stall_fn, KeStallExecutionProcessor)(1200);
	CHECK(now_ns() - start >= 1200000LL);
	CHECK(sleeps_outside == 0 && win_depth == 1);
	leave_windows();
}

/* -- IRP completion and power (ntos_irp.c) ---------------------------------- */

EXPORT(IofCompleteRequest);
EXPORT(PoCallDriver);
EXPORT(PoStartNextPowerIrp);
EXPORT(PoSetPowerState);
EXPORT(PoRequestPowerIrp);

typedef WABI void (*complete_fn)(struct irp *, signed char);
typedef WABI int (*po_call_fn)(struct dev *, struct irp *);
typedef WABI void (*po_next_fn)(struct irp *);
typedef WABI unsigned int (*po_set_fn)(struct dev *, unsigned int,
				       unsigned int);
typedef WABI int (*po_request_fn)(struct dev *, unsigned char, unsigned int,
				  void *, void *, struct irp **);

int ntos_call_driver(struct dev *dev, struct irp *irp);
int ntos_power_dispatch(struct irp *irp);

#define IRP_MJ_POWER		0x16
#define IRP_MN_WAIT_WAKE	0x00
#define IRP_MN_SET_POWER	0x02
#define IRP_MN_QUERY_POWER	0x03
#define STATUS_PENDING		0x00000103
#define STATUS_NOT_SUPPORTED	((int)0xC00000BB)
#define STATUS_MORE_PROCESSING	((int)0xC0000016)
#define STATUS_INVALID_PARAMETER_2 ((int)0xC00000F0)

/* what the lower driver does with an IRP sent down (ntoskrnl.c's
 * IofCallDriver in the module): the next location taken, and here the
 * IRP completed at once with lower_status, unless lower_keeps */
static struct dev *lower_dev;
static struct irp *lower_irp;
static struct stack_loc lower_sl;
static int lower_status, lower_keeps, lower_calls;

int ntos_call_driver(struct dev *dev, struct irp *irp)
{
	lower_calls++;
	lower_dev = dev;
	lower_irp = irp;
	irp->current_location--;
	irp->current_stack_location--;
	irp->current_stack_location->device_object = dev;
	lower_sl = *irp->current_stack_location;
	if (lower_keeps)
		return STATUS_PENDING;
	irp->io_status.status = lower_status;
	irp->io_status.information = 0;
	FN(complete_fn, IofCompleteRequest)(irp, 0);
	return lower_status;
}

/* a driver's IoCompletion routine */
static int completion_calls, completion_ret, completion_pending;
static void *completion_dev, *completion_irp, *completion_ctx;

static WABI int completion(void *dev, void *irp, void *ctx)
{
	completion_calls++;
	completion_pending = ((struct irp *)irp)->pending_returned;
	completion_dev = dev;
	completion_irp = irp;
	completion_ctx = ctx;
	return completion_ret;
}

/* an IRP of two locations sent to upper, which sets completion in the
 * lower's location (IoSetCompletionRoutine) and passes it to lower */
static struct irp *two_level_irp(struct dev *upper, struct dev *lower,
				 unsigned char control, void *iosb,
				 void *event)
{
	size_t size = sizeof(struct irp) + 2 * sizeof(struct stack_loc);
	struct irp *irp = calloc(1, size);

	FN(init_irp_fn, IoInitializeIrp)(irp, size, 2);
	irp->user_iosb = iosb;
	irp->user_event = event;
	irp->current_location--;		/* IoCallDriver(upper) */
	irp->current_stack_location--;
	irp->current_stack_location->device_object = upper;
	irp->stack[0].completion = (void *)completion;
	irp->stack[0].context = &completion_calls;
	irp->stack[0].control = control;
	irp->current_location--;		/* IoCallDriver(lower) */
	irp->current_stack_location--;
	irp->current_stack_location->device_object = lower;
	return irp;
}

static void test_io_complete_request(void)
{
	complete_fn complete = FN(complete_fn, IofCompleteRequest);
	struct dev upper = { .type = 3 }, lower = { .type = 3 };
	struct iosb iosb = { -1, 9 };
	struct kevent ev;
	struct irp *irp;

	FN(event_init_fn, KeInitializeEvent)(&ev, 0, 0);
	/* invoked on success: the routine gets the upper device, the IRP
	 * and its context; then the I/O manager's part (status block,
	 * event) */
	completion_calls = 0;
	completion_ret = 0;
	irp = two_level_irp(&upper, &lower, 0xe0, &iosb, &ev);
	irp->io_status.status = 0;
	irp->io_status.information = 42;
	irp->stack[0].control |= 0x01;		/* SL_PENDING_RETURNED */
	complete(irp, 0);
	CHECK(completion_calls == 1 && completion_dev == &upper &&
	      completion_irp == irp && completion_ctx == &completion_calls);
	CHECK(completion_pending == 1);
	CHECK(irp->current_location == 3);
	CHECK(irp->stack[0].completion == NULL && irp->stack[0].control == 0);
	CHECK((int)iosb.status == 0 && iosb.information == 42);
	CHECK(ev.signal_state == 1);
	free(irp);

	/* STATUS_MORE_PROCESSING_REQUIRED: the routine owns the IRP again */
	completion_ret = STATUS_MORE_PROCESSING;
	iosb.status = -1;
	FN(event_clear_fn, KeClearEvent)(&ev);
	irp = two_level_irp(&upper, &lower, 0xe0, &iosb, &ev);
	irp->io_status.status = 0;
	complete(irp, 0);
	CHECK(completion_calls == 2 && irp->current_location == 2);
	CHECK(iosb.status == -1 && ev.signal_state == 0);
	free(irp);

	/* on success only, and the IRP failed: not invoked, pending passed
	 * up to the upper location */
	completion_ret = 0;
	irp = two_level_irp(&upper, &lower, 0x40, &iosb, NULL);
	irp->io_status.status = STATUS_NOT_SUPPORTED;
	irp->stack[0].control |= 0x01;
	complete(irp, 0);
	CHECK(completion_calls == 2);
	CHECK(irp->pending_returned == 1 && irp->stack[1].control == 0);
	CHECK((int)iosb.status == STATUS_NOT_SUPPORTED);
	free(irp);
}

/* a driver's PoRequestPowerIrp callback (REQUEST_POWER_COMPLETE) */
static int power_done_calls;
static void *power_done_dev, *power_done_ctx;
static unsigned char power_done_minor;
static unsigned int power_done_state;
static int power_done_status;

static WABI void power_done(void *dev, unsigned char minor,
			    unsigned int state, void *ctx, struct iosb *iosb)
{
	power_done_calls++;
	power_done_dev = dev;
	power_done_minor = minor;
	power_done_state = state;
	power_done_ctx = ctx;
	power_done_status = (int)iosb->status;
}

static void test_po_request_power_irp(void)
{
	po_request_fn request = FN(po_request_fn, PoRequestPowerIrp);
	struct dev pdo = { .type = 3, .stack_size = 1 };
	struct dev fdo = { .type = 3, .stack_size = 2 };
	struct irp *irp = NULL;
	int live = pool_live, ctx;

	/* to the top of the stack, one location more for the callback;
	 * the driver's callback gets the device it named */
	pdo.attached_device = &fdo;
	lower_calls = power_done_calls = 0;
	lower_keeps = 0;
	lower_status = 0;
	CHECK(request(&pdo, IRP_MN_SET_POWER, 4, (void *)power_done, &ctx,
		      &irp) == STATUS_PENDING);
	CHECK(irp != NULL && irp == lower_irp);
	CHECK(lower_calls == 1 && lower_dev == &fdo);
	CHECK(lower_sl.major == IRP_MJ_POWER &&
	      lower_sl.minor == IRP_MN_SET_POWER);
	CHECK(lower_sl.p.power.type == 1 && lower_sl.p.power.state == 4);
	CHECK(power_done_calls == 1 && power_done_dev == &pdo &&
	      power_done_minor == IRP_MN_SET_POWER && power_done_state == 4 &&
	      power_done_ctx == &ctx && power_done_status == 0);
	CHECK(pool_live == live);		/* the IRP freed */

	/* completed later, with an error; no IRP pointer wanted */
	lower_keeps = 1;
	CHECK(request(&fdo, IRP_MN_QUERY_POWER, 2, (void *)power_done, NULL,
		      NULL) == STATUS_PENDING);
	CHECK(lower_calls == 2 && lower_dev == &fdo && power_done_calls == 1);
	CHECK(lower_irp->stack_count == 3 && pool_live == live + 1);
	lower_irp->io_status.status = STATUS_NOT_SUPPORTED;
	FN(complete_fn, IofCompleteRequest)(lower_irp, 0);
	CHECK(power_done_calls == 2 && power_done_dev == &fdo &&
	      power_done_minor == IRP_MN_QUERY_POWER &&
	      power_done_status == STATUS_NOT_SUPPORTED);
	CHECK(pool_live == live);

	/* wait-wake: the system state in Parameters.WaitWake */
	lower_keeps = 0;
	CHECK(request(&fdo, IRP_MN_WAIT_WAKE, 3, (void *)power_done, NULL,
		      NULL) == STATUS_PENDING);
	CHECK(lower_sl.minor == IRP_MN_WAIT_WAKE &&
	      lower_sl.p.power.system_context == 3);
	CHECK(power_done_calls == 3 && pool_live == live);

	/* not a power request a driver may ask for; no memory */
	CHECK(request(&fdo, 7, 1, (void *)power_done, NULL, &irp) ==
	      STATUS_INVALID_PARAMETER_2);
	CHECK(lower_calls == 3);
	pool_fail = 1;
	CHECK(request(&fdo, IRP_MN_SET_POWER, 1, (void *)power_done, NULL,
		      NULL) == (int)0xC000009A);
	CHECK(lower_calls == 3 && pool_live == live);
}

static void test_po_call_and_state(void)
{
	struct devobj_ext ext = { .type = 13, .size = sizeof(ext),
				  .system_power_state = 1,
				  .device_power_state = 1 };
	struct dev d = { .type = 3, .device_object_extension = &ext };
	struct dev bare = { .type = 3 };
	po_set_fn set = FN(po_set_fn, PoSetPowerState);
	size_t size = sizeof(struct irp) + 2 * sizeof(struct stack_loc);
	struct irp *irp = calloc(1, size);

	ext.device_object = &d;
	/* the previous state back, the new one kept per device and type */
	CHECK(set(&d, 1, 4) == 1 && ext.device_power_state == 4);
	CHECK(set(&d, 1, 1) == 4 && ext.device_power_state == 1);
	CHECK(set(&d, 0, 2) == 1 && ext.system_power_state == 2);
	CHECK(ext.device_power_state == 1);
	/* a device object the wrapper did not make: nothing kept */
	logged[0] = '\0';
	CHECK(set(&bare, 1, 4) == 4);
	CHECK_CONTAINS(logged, "PoSetPowerState");
	CHECK(set(&d, 9, 1) == 0 && ext.system_power_state == 2);

	/* PoCallDriver: IoCallDriver for a power IRP */
	FN(init_irp_fn, IoInitializeIrp)(irp, size, 2);
	irp->stack[1].major = IRP_MJ_POWER;
	irp->stack[1].minor = IRP_MN_SET_POWER;
	lower_calls = 0;
	lower_status = 0;
	lower_keeps = 1;
	CHECK(FN(po_call_fn, PoCallDriver)(&d, irp) == STATUS_PENDING);
	CHECK(lower_calls == 1 && lower_dev == &d && lower_irp == irp);
	/* the next power IRP may come: nothing is queued here */
	logged[0] = '\0';
	FN(po_next_fn, PoStartNextPowerIrp)(irp);
	CHECK(logged[0] == '\0');
	irp->stack[1].major = 0x0e;
	FN(po_next_fn, PoStartNextPowerIrp)(irp);
	CHECK_CONTAINS(logged, "PoStartNextPowerIrp: not a power IRP");
	lower_keeps = 0;
	free(irp);
}

static void test_power_dispatch(void)
{
	size_t size = sizeof(struct irp) + sizeof(struct stack_loc);
	struct irp *irp = calloc(1, size);
	struct iosb iosb;
	static const struct {
		unsigned char minor;
		int status;
	} cases[] = {
		{ IRP_MN_SET_POWER, 0 }, { IRP_MN_QUERY_POWER, 0 },
		{ IRP_MN_WAIT_WAKE, STATUS_NOT_SUPPORTED },
		{ 0x01, STATUS_NOT_SUPPORTED },	/* POWER_SEQUENCE */
	};

	/* the wrapper's own device objects as the bottom of the stack: a
	 * set or query succeeds, nothing wakes the system */
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FN(init_irp_fn, IoInitializeIrp)(irp, size, 1);
		irp->user_iosb = &iosb;
		iosb.status = 1;
		irp->current_location--;
		irp->current_stack_location--;
		irp->stack[0].major = IRP_MJ_POWER;
		irp->stack[0].minor = cases[i].minor;
		CHECK(ntos_power_dispatch(irp) == cases[i].status);
		CHECK((int)iosb.status == cases[i].status);
		CHECK(irp->current_location == 2);
	}
	free(irp);
}

/* -- device objects, names and locks (ntos_devobj.c) ------------------------ */

EXPORT(IoAllocateDriverObjectExtension);
EXPORT(IoGetDriverObjectExtension);
EXPORT(IoCreateDevice);
EXPORT(IoDeleteDevice);
EXPORT(IoGetDeviceProperty);
EXPORT(IoInitializeRemoveLockEx);
EXPORT(IoAcquireRemoveLockEx);
EXPORT(IoReleaseRemoveLockEx);
EXPORT(IoReleaseRemoveLockAndWaitEx);
EXPORT(IoAcquireCancelSpinLock);
EXPORT(IoReleaseCancelSpinLock);
EXPORT(IoGetStackLimits);
EXPORT(IoCreateSymbolicLink);
EXPORT(IoCreateUnprotectedSymbolicLink);
EXPORT(IoDeleteSymbolicLink);

#define STATUS_OBJECT_NAME_NOT_FOUND	((int)0xC0000034)
#define STATUS_OBJECT_NAME_COLLISION	((int)0xC0000035)
#define STATUS_DELETE_PENDING		((int)0xC0000056)
#define STATUS_INVALID_DEVICE_REQUEST	((int)0xC0000010)
#define STATUS_INSUFFICIENT_RESOURCES	((int)0xC000009A)

typedef WABI int (*alloc_drvext_fn)(void *, void *, unsigned int, void **);
typedef WABI void *(*get_drvext_fn)(void *, void *);
typedef WABI int (*create_dev_fn)(void *, unsigned int, struct ustr *,
				  unsigned int, unsigned int, unsigned char,
				  struct dev **);
typedef WABI void (*delete_dev_fn)(struct dev *);
typedef WABI int (*dev_prop_fn)(struct dev *, unsigned int, unsigned int,
				void *, unsigned int *);
typedef WABI void (*rl_init_fn)(void *, unsigned int, unsigned int,
				unsigned int, unsigned int);
typedef WABI int (*rl_acquire_fn)(void *, void *, const char *,
				  unsigned int, unsigned int);
typedef WABI void (*rl_release_fn)(void *, void *, unsigned int);
typedef WABI void (*cancel_acquire_fn)(unsigned char *);
typedef WABI void (*cancel_release_fn)(unsigned char);
typedef WABI void (*stack_limits_fn)(unsigned long *, unsigned long *);
typedef WABI int (*link_fn)(struct ustr *, struct ustr *);
typedef WABI int (*unlink_fn)(struct ustr *);

/* DRIVER_OBJECT: Type, Size, DeviceObject */
struct drvobj {
	short type;
	unsigned short size;
	struct dev *device_object;
	unsigned char rest[0x150 - 0x10];
};

/* ntoskrnl.c's side: the driver object of the code at caller, the
 * identity of the wrapper's device objects, the kernel stack */
struct ntos_device_identity {
	unsigned int bus, bus_number, address;
	unsigned short vendor, device;
	unsigned int subsystem;
	unsigned short revision;
};

static struct drvobj test_drvobj, other_drvobj;
static struct dev pci_pdo = { .type = 3 }, usb_pdo = { .type = 3 };

void *ntos_driver_object_at(unsigned long caller);
bool ntos_device_identity(struct dev *dev, struct ntos_device_identity *id);
void ntos_stack_limits(unsigned long *low, unsigned long *high);
void ntos_devobj_forget(void *driver_object);

void *ntos_driver_object_at(unsigned long caller)
{
	return caller ? &test_drvobj : NULL;
}

bool ntos_device_identity(struct dev *dev, struct ntos_device_identity *id)
{
	memset(id, 0, sizeof(*id));
	if (dev == &pci_pdo) {
		*id = (struct ntos_device_identity){ 1, 2, 3 << 16 | 1,
			0x10ec, 0x8139, 0x813910ec, 0x20 };
		return true;
	}
	if (dev == &usb_pdo) {
		*id = (struct ntos_device_identity){ 2, 1, 4, 0x0bda, 0x8187,
			0, 0x0100 };
		return true;
	}
	return false;
}

void ntos_stack_limits(unsigned long *low, unsigned long *high)
{
	*low = 0x10000;
	*high = 0x14000;
}

static void test_io_driver_object_extension(void)
{
	alloc_drvext_fn alloc = FN(alloc_drvext_fn,
				   IoAllocateDriverObjectExtension);
	get_drvext_fn get = FN(get_drvext_fn, IoGetDriverObjectExtension);
	int id_a, id_b, live = pool_live;
	void *ext = NULL, *ext2 = NULL;

	CHECK(get(&test_drvobj, &id_a) == NULL);
	CHECK(alloc(&test_drvobj, &id_a, 24, &ext) == STATUS_SUCCESS);
	CHECK(ext != NULL && pool_live == live + 1);
	memset(ext, 0x5a, 24);		/* all of it is the driver's */
	CHECK(get(&test_drvobj, &id_a) == ext);
	/* one per client id and driver object */
	CHECK(alloc(&test_drvobj, &id_a, 8, &ext2) ==
	      STATUS_OBJECT_NAME_COLLISION && ext2 == NULL);
	CHECK(alloc(&test_drvobj, &id_b, 8, &ext2) == STATUS_SUCCESS);
	CHECK(ext2 != ext && get(&test_drvobj, &id_b) == ext2);
	CHECK(get(&other_drvobj, &id_a) == NULL);
	pool_fail = 1;
	CHECK(alloc(&other_drvobj, &id_a, 8, &ext2) ==
	      STATUS_INSUFFICIENT_RESOURCES);
	/* the driver unloads: its extensions go */
	ntos_devobj_forget(&test_drvobj);
	CHECK(get(&test_drvobj, &id_a) == NULL && pool_live == live);
}

static void test_io_create_device(void)
{
	create_dev_fn create = FN(create_dev_fn, IoCreateDevice);
	delete_dev_fn del = FN(delete_dev_fn, IoDeleteDevice);
	struct ustr name;
	struct dev *a = NULL, *b = NULL;
	int live = pool_live;

	FN(init_u_fn, RtlInitUnicodeString)(&name, u"\\Device\\Wlan0Ctl");
	CHECK(create(&test_drvobj, 64, &name, 0x12, 0x100, 0, &a) ==
	      STATUS_SUCCESS);
	CHECK(a != NULL);
	if (!a)
		return;
	/* the driver's own device object, its extension zeroed after it */
	CHECK(a->type == 3 && a->size == sizeof(struct dev) + 64);
	CHECK(a->driver_object == &test_drvobj && a->device_type == 0x12);
	CHECK(a->characteristics == 0x100 && a->stack_size == 1);
	CHECK(a->flags & 0x80);		/* DO_DEVICE_INITIALIZING */
	CHECK(a->device_extension == (void *)(a + 1));
	CHECK(((unsigned char *)a->device_extension)[63] == 0);
	CHECK(a->device_object_extension != NULL &&
	      a->device_object_extension->device_object == a &&
	      a->device_object_extension->device_power_state == 1);
	CHECK(test_drvobj.device_object == a);
	/* a name already taken */
	CHECK(create(&test_drvobj, 0, &name, 0x12, 0, 0, &b) ==
	      STATUS_OBJECT_NAME_COLLISION && b == NULL);
	/* unnamed: no extension, first in the driver's list */
	CHECK(create(&test_drvobj, 0, NULL, 0x17, 0, 0, &b) ==
	      STATUS_SUCCESS);
	CHECK(b && b->device_extension == NULL && b->next_device == a);
	CHECK(test_drvobj.device_object == b);
	del(a);
	CHECK(test_drvobj.device_object == b && b->next_device == NULL);
	/* the name is free again */
	CHECK(create(&test_drvobj, 0, &name, 0x12, 0, 0, &a) ==
	      STATUS_SUCCESS);
	del(b);
	del(a);
	CHECK(test_drvobj.device_object == NULL && pool_live == live);

	/* not one IoCreateDevice made (the adapter's own): refused, kept */
	logged[0] = '\0';
	del(&pci_pdo);
	CHECK_CONTAINS(logged, "IoDeleteDevice: not a device object IoCreateDevice made");
	CHECK(pci_pdo.type == 3);
	/* no driver object */
	CHECK(create(NULL, 0, NULL, 0x12, 0, 0, &a) == STATUS_INVALID_PARAMETER);
	CHECK(a == NULL && pool_live == live);
}

static void test_io_device_property(void)
{
	dev_prop_fn prop = FN(dev_prop_fn, IoGetDeviceProperty);
	static const char16_t pci_ids[] =
		u"PCI\\VEN_10EC&DEV_8139&SUBSYS_813910EC&REV_20\0"
		u"PCI\\VEN_10EC&DEV_8139&SUBSYS_813910EC\0"
		u"PCI\\VEN_10EC&DEV_8139&REV_20\0"
		u"PCI\\VEN_10EC&DEV_8139\0";
	static const char16_t usb_ids[] =
		u"USB\\VID_0BDA&PID_8187&REV_0100\0USB\\VID_0BDA&PID_8187\0";
	static const unsigned char pci_guid[16] = {
		0xb0, 0xdf, 0xeb, 0xc8, 0x10, 0xb5, 0xd0, 0x11,
		0x80, 0xe5, 0x00, 0xa0, 0xc9, 0x25, 0x42, 0xe3 };
	char16_t buf[256];
	unsigned int len = 0, v = 0;
	struct dev stranger = { .type = 3 };

	/* HardwareID: REG_MULTI_SZ, the most specific first */
	CHECK(prop(&pci_pdo, 1, sizeof(buf), buf, &len) == STATUS_SUCCESS);
	CHECK(len == sizeof(pci_ids) && !memcmp(buf, pci_ids, len));
	CHECK(prop(&usb_pdo, 1, sizeof(buf), buf, &len) == STATUS_SUCCESS);
	CHECK(len == sizeof(usb_ids) && !memcmp(buf, usb_ids, len));
	/* too small: the size needed, nothing written */
	buf[0] = u'x';
	CHECK(prop(&pci_pdo, 1, 10, buf, &len) == STATUS_BUFFER_TOO_SMALL);
	CHECK(len == sizeof(pci_ids) && buf[0] == u'x');
	/* numbers: BusNumber, Address, LegacyBusType (PCIBus, PNPBus) */
	CHECK(prop(&pci_pdo, 14, 4, &v, &len) == STATUS_SUCCESS &&
	      v == 2 && len == 4);
	CHECK(prop(&pci_pdo, 16, 4, &v, &len) == STATUS_SUCCESS &&
	      v == (3 << 16 | 1));
	CHECK(prop(&usb_pdo, 16, 4, &v, &len) == STATUS_SUCCESS && v == 4);
	CHECK(prop(&pci_pdo, 13, 4, &v, &len) == STATUS_SUCCESS && v == 5);
	CHECK(prop(&usb_pdo, 13, 4, &v, &len) == STATUS_SUCCESS && v == 15);
	/* BusTypeGuid, EnumeratorName, ClassGuid (the Net class) */
	CHECK(prop(&pci_pdo, 12, sizeof(buf), buf, &len) == STATUS_SUCCESS);
	CHECK(len == 16 && !memcmp(buf, pci_guid, 16));
	CHECK(prop(&usb_pdo, 15, sizeof(buf), buf, &len) == STATUS_SUCCESS);
	CHECK(len == 8 && !memcmp(buf, u"USB", 8));
	CHECK(prop(&pci_pdo, 6, sizeof(buf), buf, &len) == STATUS_SUCCESS);
	CHECK(len == 78 &&
	      !memcmp(buf, u"{4d36e972-e325-11ce-bfc1-08002be10318}", 78));
	/* what the wrapper does not know; not a property; not its device */
	CHECK(prop(&pci_pdo, 0, sizeof(buf), buf, &len) ==
	      STATUS_OBJECT_NAME_NOT_FOUND);
	CHECK(prop(&pci_pdo, 99, sizeof(buf), buf, &len) ==
	      STATUS_INVALID_PARAMETER_2);
	CHECK(prop(&stranger, 14, 4, &v, &len) ==
	      STATUS_INVALID_DEVICE_REQUEST);
}

/* IO_REMOVE_LOCK of a free build: Removed, IoCount, RemoveEvent */
struct remove_lock {
	unsigned char removed, reserved[3];
	int io_count;
	struct kevent remove_event;
};

struct release_later {
	void *lock;
	int done;
};

static void *release_remove_lock_later(void *arg)
{
	struct release_later *r = arg;
	struct timespec d = { 0, 100 * 1000 * 1000 };

	nanosleep(&d, NULL);
	r->done = 1;
	FN(rl_release_fn, IoReleaseRemoveLockEx)(r->lock, &d, sizeof(struct remove_lock));
	return NULL;
}

static void test_io_remove_lock(void)
{
	rl_init_fn init = FN(rl_init_fn, IoInitializeRemoveLockEx);
	rl_acquire_fn acquire = FN(rl_acquire_fn, IoAcquireRemoveLockEx);
	rl_release_fn release = FN(rl_release_fn, IoReleaseRemoveLockEx);
	rl_release_fn release_wait = FN(rl_release_fn,
					IoReleaseRemoveLockAndWaitEx);
	struct remove_lock lock;
	struct release_later r = { &lock, 0 };
	unsigned int sz = sizeof(lock);
	int tag;
	pthread_t t;

	memset(&lock, 0x77, sizeof(lock));
	init(&lock, 0x6b636f4c, 0, 0, sz);
	CHECK(lock.removed == 0 && lock.io_count == 1);
	CHECK(lock.remove_event.signal_state == 0);
	CHECK(acquire(&lock, &tag, "a.c", 1, sz) == STATUS_SUCCESS);
	CHECK(acquire(&lock, &tag, "a.c", 2, sz) == STATUS_SUCCESS);
	CHECK(lock.io_count == 3);
	release(&lock, &tag, sz);
	CHECK(lock.io_count == 2);
	/* the remove: waits for the other holder, then refuses everyone */
	CHECK(acquire(&lock, &tag, "a.c", 3, sz) == STATUS_SUCCESS);
	CHECK(!pthread_create(&t, NULL, release_remove_lock_later, &r));
	win_depth = 0;
	release_wait(&lock, &tag, sz);
	CHECK(r.done == 1 && lock.removed == 1 && lock.io_count == 0);
	CHECK(lock.remove_event.signal_state == 1);
	pthread_join(t, NULL);
	CHECK(acquire(&lock, &tag, "a.c", 4, sz) == STATUS_DELETE_PENDING);
	CHECK(lock.io_count == 0);
}

static void test_io_cancel_spin_lock(void)
{
	cancel_acquire_fn acquire = FN(cancel_acquire_fn,
				       IoAcquireCancelSpinLock);
	cancel_release_fn release = FN(cancel_release_fn,
				       IoReleaseCancelSpinLock);
	unsigned char irql = 0xff;

	/* one system-wide lock, held at DISPATCH_LEVEL */
	win_depth = 1;
	win_irql = 0;
	acquire(&irql);
	CHECK(irql == 0 && win_irql == 2);
	release(irql);
	CHECK(win_irql == 0);
	acquire(&irql);			/* free again: no deadlock */
	release(irql);
	win_depth = 0;
}

static void test_io_stack_limits_and_links(void)
{
	link_fn create = FN(link_fn, IoCreateSymbolicLink);
	link_fn create_unprotected = FN(link_fn,
					IoCreateUnprotectedSymbolicLink);
	unlink_fn del = FN(unlink_fn, IoDeleteSymbolicLink);
	unsigned long low = 0, high = 0;
	struct ustr link, link2, target;
	int live = pool_live;

	FN(stack_limits_fn, IoGetStackLimits)(&low, &high);
	CHECK(low == 0x10000 && high == 0x14000);

	/* a name table: one target per link name, case-blind */
	FN(init_u_fn, RtlInitUnicodeString)(&link, u"\\DosDevices\\WLAN0");
	FN(init_u_fn, RtlInitUnicodeString)(&link2, u"\\dosdevices\\wlan0");
	FN(init_u_fn, RtlInitUnicodeString)(&target, u"\\Device\\Wlan0Ctl");
	CHECK(create(&link, &target) == STATUS_SUCCESS);
	CHECK(pool_live == live + 1);
	CHECK(create(&link2, &target) == STATUS_OBJECT_NAME_COLLISION);
	CHECK(create_unprotected(&link2, &target) ==
	      STATUS_OBJECT_NAME_COLLISION);
	CHECK(del(&link2) == STATUS_SUCCESS && pool_live == live);
	CHECK(del(&link) == STATUS_OBJECT_NAME_NOT_FOUND);
	CHECK(create_unprotected(&link, &target) == STATUS_SUCCESS);
	/* the driver unloads: its links go */
	ntos_devobj_forget(&test_drvobj);
	CHECK(pool_live == live);
	CHECK(del(&link) == STATUS_OBJECT_NAME_NOT_FOUND);
}

/* -- counters and lists under the caller's lock, the stdcall forms
 * (ntos_list.c) ------------------------------------------------------------ */

EXPORT(InterlockedIncrement);
EXPORT(InterlockedDecrement);
EXPORT(InterlockedExchange);
EXPORT(InterlockedCompareExchange);
EXPORT(ExInterlockedAddLargeStatistic);

typedef WABI int (*ilk_step_fn)(int *);
typedef WABI int (*ilk_xchg_fn)(int *, int);
typedef WABI int (*ilk_cmpxchg_fn)(int *, int, int);
typedef WABI void (*add_large_fn)(long long *, unsigned int);

#define ILK_ROUNDS	100000

struct ilk_counters {
	int count;
	long long large;
};

/* Another CPU counting up and down on the same words. */
static void *ilk_hammer(void *arg)
{
	struct ilk_counters *c = arg;
	int i;

	for (i = 0; i < ILK_ROUNDS; i++) {
		FN(ilk_step_fn, InterlockedIncrement)(&c->count);
		FN(ilk_step_fn, InterlockedIncrement)(&c->count);
		FN(ilk_step_fn, InterlockedDecrement)(&c->count);
		FN(add_large_fn, ExInterlockedAddLargeStatistic)(&c->large,
								  0x10001);
	}
	return NULL;
}

static void test_interlocked_counters(void)
{
	struct ilk_counters c = { 0, 0 };
	pthread_t t[2];
	int v = 5, i;

	/* Increment and Decrement: the value after */
	CHECK(FN(ilk_step_fn, InterlockedIncrement)(&v) == 6 && v == 6);
	CHECK(FN(ilk_step_fn, InterlockedDecrement)(&v) == 5 && v == 5);
	v = 0;
	CHECK(FN(ilk_step_fn, InterlockedDecrement)(&v) == -1 && v == -1);
	v = 0x7fffffff;
	CHECK(FN(ilk_step_fn, InterlockedIncrement)(&v) == (int)0x80000000);
	/* Exchange: the value before, the new one stored */
	v = 7;
	CHECK(FN(ilk_xchg_fn, InterlockedExchange)(&v, -3) == 7 && v == -3);
	/* CompareExchange: the value before; stored only if it matched */
	v = 10;
	CHECK(FN(ilk_cmpxchg_fn, InterlockedCompareExchange)(&v, 20, 11) ==
	      10 && v == 10);
	CHECK(FN(ilk_cmpxchg_fn, InterlockedCompareExchange)(&v, 20, 10) ==
	      10 && v == 20);
	/* AddLargeStatistic: a 64-bit add, the carry into the high half */
	c.large = 0xffffffffLL;
	FN(add_large_fn, ExInterlockedAddLargeStatistic)(&c.large, 1);
	CHECK(c.large == 0x100000000LL);
	c.large = 0x1fffffff0LL;
	FN(add_large_fn, ExInterlockedAddLargeStatistic)(&c.large, 0xffffffffu);
	CHECK(c.large == 0x2ffffffefLL);
	/* two CPUs at once: no update lost */
	c.count = 0;
	c.large = 0;
	for (i = 0; i < 2; i++)
		CHECK(!pthread_create(&t[i], NULL, ilk_hammer, &c));
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK(c.count == 2 * ILK_ROUNDS);
	CHECK(c.large == 2LL * ILK_ROUNDS * 0x10001);
}

EXPORT(ExInterlockedInsertHeadList);
EXPORT(ExInterlockedInsertTailList);
EXPORT(ExInterlockedRemoveHeadList);
EXPORT(ExInterlockedRemoveTailList);

static void *insert_head_under_held_lock(void *arg)
{
	struct lock_holder *h = arg;

	FN(list_insert_fn, ExInterlockedInsertHeadList)(h->head, h->e, h->lock);
	h->done = 1;
	return NULL;
}

static void *remove_tail_under_held_lock(void *arg)
{
	struct lock_holder *h = arg;

	h->e = FN(list_remove_fn, ExInterlockedRemoveTailList)(h->head,
							       h->lock);
	h->done = 1;
	return NULL;
}

static void test_list_locked_stdcall(void)
{
	struct list_entry head = { &head, &head }, a, b, c, d;
	struct lock_holder h = { 0 };
	unsigned long lock = 0;
	pthread_t t;

	/* into an empty list: NULL (it was empty), linked both ways */
	CHECK(FN(list_insert_fn, ExInterlockedInsertTailList)(&head, &a,
							      &lock) == NULL);
	CHECK(head.flink == &a && head.blink == &a);
	CHECK(a.flink == &head && a.blink == &head);
	/* the old first (last) entry returned */
	CHECK(FN(list_insert_fn, ExInterlockedInsertTailList)(&head, &b,
							      &lock) == &a);
	CHECK(FN(list_insert_fn, ExInterlockedInsertHeadList)(&head, &c,
							      &lock) == &a);
	/* head, c, a, b */
	CHECK(head.flink == &c && c.flink == &a && a.flink == &b &&
	      b.flink == &head);
	CHECK(head.blink == &b && b.blink == &a && a.blink == &c &&
	      c.blink == &head);
	CHECK(lock == 0 && kmock_irqs_off == 0);
	CHECK(FN(list_remove_fn, ExInterlockedRemoveHeadList)(&head,
							      &lock) == &c);
	CHECK(FN(list_remove_fn, ExInterlockedRemoveTailList)(&head,
							      &lock) == &b);
	CHECK(head.flink == &a && head.blink == &a && a.blink == &head);
	CHECK(FN(list_remove_fn, ExInterlockedRemoveTailList)(&head,
							      &lock) == &a);
	/* empty: NULL, the head untouched, the lock given back */
	CHECK(FN(list_remove_fn, ExInterlockedRemoveHeadList)(&head,
							      &lock) == NULL);
	CHECK(FN(list_remove_fn, ExInterlockedRemoveTailList)(&head,
							      &lock) == NULL);
	CHECK(head.flink == &head && head.blink == &head && lock == 0);
	CHECK(kmock_irqs_off == 0);

	/* a lock another CPU holds: the insertion waits for it */
	lock = 1;
	h.lock = &lock;
	h.head = &head;
	h.e = &d;
	CHECK(!pthread_create(&t, NULL, insert_head_under_held_lock, &h));
	usleep(50000);
	CHECK(!h.done && head.flink == &head);
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK(h.done && head.flink == &d && head.blink == &d && lock == 0);
	/* and so does the removal */
	lock = 1;
	h.done = 0;
	h.e = NULL;
	CHECK(!pthread_create(&t, NULL, remove_tail_under_held_lock, &h));
	usleep(50000);
	CHECK(!h.done && head.flink == &d);
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK(h.done && h.e == &d && head.flink == &head && lock == 0);
}

EXPORT(InterlockedPopEntrySList);

static void test_slist_interlocked_pop(void)
{
	struct slist_header h;
	struct slist_entry a, b, c;

	FN(slist_init_fn, InitializeSListHead)(&h);
	CHECK(FN(exp_pop_fn, InterlockedPopEntrySList)(&h) == NULL);
	FN(exp_push_fn, InterlockedPushEntrySList)(&h, &a);
	FN(exp_push_fn, InterlockedPushEntrySList)(&h, &b);
	FN(exp_push_fn, InterlockedPushEntrySList)(&h, &c);
	CHECK(FN(depth_fn, ExQueryDepthSList)(&h) == 3);
	/* last pushed, first popped; the depth follows */
	CHECK(FN(exp_pop_fn, InterlockedPopEntrySList)(&h) == &c);
	CHECK(FN(depth_fn, ExQueryDepthSList)(&h) == 2);
	CHECK(FN(exp_pop_fn, InterlockedPopEntrySList)(&h) == &b);
	/* a push between pops goes on top */
	FN(exp_push_fn, InterlockedPushEntrySList)(&h, &c);
	CHECK(FN(exp_pop_fn, InterlockedPopEntrySList)(&h) == &c);
	CHECK(FN(exp_pop_fn, InterlockedPopEntrySList)(&h) == &a);
	CHECK(FN(exp_pop_fn, InterlockedPopEntrySList)(&h) == NULL);
	CHECK(FN(depth_fn, ExQueryDepthSList)(&h) == 0);
}

/* -- clocks and IRQL (ntos_time.c) ------------------------------------------ */

EXPORT(KeQueryTickCount);
EXPORT(KeQueryPerformanceCounter);
EXPORT(ExSystemTimeToLocalTime);
EXPORT(KeRaiseIrql);

typedef WABI long long (*perf_fn)(long long *);
typedef WABI void (*local_time_fn)(const long long *, long long *);
typedef WABI void (*raise_fn)(unsigned char, unsigned char *);

#define WIN_TICK_100NS		156250	/* KeQueryTimeIncrement: 15.625 ms */

static long long raw_100ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 10000000LL + ts.tv_nsec / 100;
}

static void test_time_tick_count(void)
{
	long long ticks = -1;

	/* whole ticks of InterruptTime since boot */
	interrupt_time = 0;
	FN(time_fn, KeQueryTickCount)(&ticks);
	CHECK(ticks == 0);
	interrupt_time = WIN_TICK_100NS - 1;
	FN(time_fn, KeQueryTickCount)(&ticks);
	CHECK(ticks == 0);
	/* the clock moves on: so does the count */
	interrupt_time = 3 * WIN_TICK_100NS;
	FN(time_fn, KeQueryTickCount)(&ticks);
	CHECK(ticks == 3);
	interrupt_time = 86400ULL * 10000000 + 5;	/* a day up */
	FN(time_fn, KeQueryTickCount)(&ticks);
	CHECK(ticks == 5529600);
	interrupt_time = 0;
}

static void test_time_performance_counter(void)
{
	long long freq = 0, before, count, after, later;

	/* 10 MHz: the counter counts 100 ns units of the raw monotonic clock */
	before = raw_100ns();
	count = FN(perf_fn, KeQueryPerformanceCounter)(&freq);
	after = raw_100ns();
	CHECK(freq == 10000000);
	CHECK(count >= before && count <= after);
	/* the frequency is optional; the count goes on */
	usleep(20000);
	later = FN(perf_fn, KeQueryPerformanceCounter)(NULL);
	CHECK(later - count >= 200000 && later - count < 20000000);
}

static void test_time_local(void)
{
	struct timezone saved = sys_tz;
	long long sys = 133000000000000000LL, local = 0;

	/* UTC: the same */
	sys_tz.tz_minuteswest = 0;
	FN(local_time_fn, ExSystemTimeToLocalTime)(&sys, &local);
	CHECK(local == sys);
	/* five hours west (the bias is +300 minutes): five hours earlier */
	sys_tz.tz_minuteswest = 300;
	FN(local_time_fn, ExSystemTimeToLocalTime)(&sys, &local);
	CHECK(local == sys - 5LL * 3600 * 10000000);
	/* an hour east: an hour later */
	sys_tz.tz_minuteswest = -60;
	FN(local_time_fn, ExSystemTimeToLocalTime)(&sys, &local);
	CHECK(local == sys + 3600LL * 10000000);
	/* half-hour zones too (UTC+5:30) */
	sys_tz.tz_minuteswest = -330;
	FN(local_time_fn, ExSystemTimeToLocalTime)(&sys, &local);
	CHECK(local == sys + 330LL * 60 * 10000000);
	sys_tz = saved;
}

static void test_time_raise_irql(void)
{
	unsigned char old = 0xff;

	/* outside Windows code: PASSIVE_LEVEL, and it stays so */
	FN(raise_fn, KeRaiseIrql)(WIN_DISPATCH_LEVEL, &old);
	CHECK(old == WIN_PASSIVE_LEVEL && win_irql == WIN_PASSIVE_LEVEL);
	/* inside: raised, the old level given back for KeLowerIrql */
	enter_windows(WIN_PASSIVE_LEVEL);
	old = 0xff;
	FN(raise_fn, KeRaiseIrql)(WIN_DISPATCH_LEVEL, &old);
	CHECK(old == WIN_PASSIVE_LEVEL && win_irql == WIN_DISPATCH_LEVEL);
	/* to the level it is at: allowed, unchanged */
	FN(raise_fn, KeRaiseIrql)(WIN_DISPATCH_LEVEL, &old);
	CHECK(old == WIN_DISPATCH_LEVEL && win_irql == WIN_DISPATCH_LEVEL);
	/* to a device level (DIRQL) */
	FN(raise_fn, KeRaiseIrql)(5, &old);
	CHECK(old == WIN_DISPATCH_LEVEL && win_irql == 5);
	/* "raising" to a lower level: refused, the level kept */
	klog[0] = '\0';
	FN(raise_fn, KeRaiseIrql)(WIN_PASSIVE_LEVEL, &old);
	CHECK(old == 5 && win_irql == 5);
	CHECK_CONTAINS(klog, "KeRaiseIrql from IRQL 5 to 0: the wrong way, ignored");
	FN(lower_fn, KeLowerIrql)(WIN_PASSIVE_LEVEL);
	CHECK(win_irql == WIN_PASSIVE_LEVEL);
	leave_windows();
}

/* -- mutexes and semaphores (ntos_sync.c) ----------------------------------- */

struct kmutex {
	struct kevent header;
	struct list_entry mutant_list_entry;
	void *owner_thread;
	unsigned char abandoned, apc_disable;
};

struct ksemaphore {
	struct kevent header;
	int limit;
};

EXPORT(KeInitializeMutex);
EXPORT(KeReleaseMutex);
EXPORT(KeInitializeSemaphore);
EXPORT(KeReleaseSemaphore);

typedef WABI void (*mutex_init_fn)(struct kmutex *, unsigned int);
typedef WABI int (*mutex_release_fn)(struct kmutex *, unsigned char);
typedef WABI void (*sem_init_fn)(struct ksemaphore *, int, int);
typedef WABI int (*sem_release_fn)(struct ksemaphore *, int, int,
				   unsigned char);

#define WIN_MUTANT_OBJECT		2
#define WIN_SEMAPHORE_OBJECT		5
#define STATUS_MUTANT_NOT_OWNED		((int)0xC0000046)
#define STATUS_SEMAPHORE_LIMIT_EXCEEDED	((int)0xC0000047)

/* Another thread's wait on (or release of) an object. */
struct other_waiter {
	void *obj;
	long long timeout;	/* 100 ns units, relative if negative */
	int status;
	volatile int done;
};

static void *wait_from_other_thread(void *arg)
{
	struct other_waiter *w = arg;

	w->status = FN(wait1_fn, KeWaitForSingleObject)(w->obj, 0, 0, 0,
							&w->timeout);
	w->done = 1;
	return NULL;
}

static void *release_mutex_from_other_thread(void *arg)
{
	struct other_waiter *w = arg;

	w->status = FN(mutex_release_fn, KeReleaseMutex)(w->obj, 0);
	w->done = 1;
	return NULL;
}

static void test_sync_mutex(void)
{
	struct kmutex m;
	struct other_waiter w = { 0 };
	long long zero = 0;
	void *me = FN(current_thread_fn, KeGetCurrentThread)();
	pthread_t t;

	_Static_assert(sizeof(struct kmutex) == 0x38, "amd64 KMUTEX");
	memset(&m, 0x55, sizeof(m));
	FN(mutex_init_fn, KeInitializeMutex)(&m, 0);
	/* a mutant object, signalled (free), no owner */
	CHECK(m.header.type == WIN_MUTANT_OBJECT && m.header.size == 0x38 / 4);
	CHECK(m.header.signal_state == 1 && m.owner_thread == NULL);
	CHECK(m.abandoned == 0);
	/* a free mutex's release: not owned, state unchanged */
	klog[0] = '\0';
	CHECK(FN(mutex_release_fn, KeReleaseMutex)(&m, 0) ==
	      STATUS_MUTANT_NOT_OWNED);
	CHECK(m.header.signal_state == 1);
	CHECK_CONTAINS(klog, "not owned by the caller");
	/* acquired: owned by the caller, the count down */
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(&m, 0, 0, 0, &zero) ==
	      STATUS_SUCCESS);
	CHECK(m.owner_thread == me && m.header.signal_state == 0);
	/* the owner acquires it again at once (recursively) */
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(&m, 0, 0, 0, &zero) ==
	      STATUS_SUCCESS);
	CHECK(m.owner_thread == me && m.header.signal_state == -1);
	/* another thread times out on it */
	w.obj = &m;
	w.timeout = -300000;	/* 30 ms */
	CHECK(!pthread_create(&t, NULL, wait_from_other_thread, &w));
	pthread_join(t, NULL);
	CHECK(w.done && w.status == STATUS_TIMEOUT);
	CHECK(m.owner_thread == me && m.header.signal_state == -1);
	/* and may not release it */
	w.done = 0;
	CHECK(!pthread_create(&t, NULL, release_mutex_from_other_thread, &w));
	pthread_join(t, NULL);
	CHECK(w.status == STATUS_MUTANT_NOT_OWNED);
	CHECK(m.owner_thread == me && m.header.signal_state == -1);
	/* one release per acquisition: the previous state returned; still
	 * owned after the first */
	CHECK(FN(mutex_release_fn, KeReleaseMutex)(&m, 0) == -1);
	CHECK(m.owner_thread == me && m.header.signal_state == 0);
	/* a waiter blocked meanwhile gets it with the last release */
	w.done = 0;
	w.timeout = -20000000;	/* 2 s */
	CHECK(!pthread_create(&t, NULL, wait_from_other_thread, &w));
	usleep(50000);
	CHECK(!w.done);
	CHECK(FN(mutex_release_fn, KeReleaseMutex)(&m, 0) == 0);
	pthread_join(t, NULL);
	CHECK(w.done && w.status == STATUS_SUCCESS);
	/* now the waiter's: owned by that thread, not by us */
	CHECK(m.header.signal_state == 0 && m.owner_thread != NULL &&
	      m.owner_thread != me);
	CHECK(FN(mutex_release_fn, KeReleaseMutex)(&m, 0) ==
	      STATUS_MUTANT_NOT_OWNED);
	/* initialized again: free */
	FN(mutex_init_fn, KeInitializeMutex)(&m, 3);
	CHECK(m.header.signal_state == 1 && m.owner_thread == NULL);
}

static void test_sync_semaphore(void)
{
	struct ksemaphore s;
	struct other_waiter w = { 0 };
	long long zero = 0;
	pthread_t t;

	_Static_assert(sizeof(struct ksemaphore) == 0x20, "amd64 KSEMAPHORE");
	memset(&s, 0x55, sizeof(s));
	FN(sem_init_fn, KeInitializeSemaphore)(&s, 1, 3);
	CHECK(s.header.type == WIN_SEMAPHORE_OBJECT &&
	      s.header.size == 0x20 / 4);
	CHECK(s.header.signal_state == 1 && s.limit == 3);
	/* a wait takes one; at zero it is not signalled */
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(&s, 0, 0, 0, &zero) ==
	      STATUS_SUCCESS);
	CHECK(s.header.signal_state == 0);
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(&s, 0, 0, 0, &zero) ==
	      STATUS_TIMEOUT);
	CHECK(s.header.signal_state == 0);
	/* released by Adjustment: the previous count returned */
	CHECK(FN(sem_release_fn, KeReleaseSemaphore)(&s, 0, 2, 0) == 0);
	CHECK(s.header.signal_state == 2);
	/* past the limit: refused, the count unchanged */
	klog[0] = '\0';
	CHECK(FN(sem_release_fn, KeReleaseSemaphore)(&s, 0, 2, 0) ==
	      STATUS_SEMAPHORE_LIMIT_EXCEEDED);
	CHECK(s.header.signal_state == 2);
	CHECK_CONTAINS(klog, "past its limit 3");
	/* up to the limit exactly: allowed */
	CHECK(FN(sem_release_fn, KeReleaseSemaphore)(&s, 0, 1, 0) == 2);
	CHECK(s.header.signal_state == 3);
	/* down to zero, then a waiter blocks until a release */
	FN(sem_init_fn, KeInitializeSemaphore)(&s, 0, 1);
	CHECK(s.header.signal_state == 0 && s.limit == 1);
	w.obj = &s;
	w.timeout = -20000000;	/* 2 s */
	CHECK(!pthread_create(&t, NULL, wait_from_other_thread, &w));
	usleep(50000);
	CHECK(!w.done);
	CHECK(FN(sem_release_fn, KeReleaseSemaphore)(&s, 0, 1, 0) == 0);
	pthread_join(t, NULL);
	/* the waiter took the count it was released with */
	CHECK(w.done && w.status == STATUS_SUCCESS);
	CHECK(s.header.signal_state == 0);
}

/* -- work items, references, thread ends (ntos_thread.c) -------------------- */

struct work_queue_item {
	struct list_entry list;
	void *worker_routine;
	void *parameter;
};

EXPORT(ExQueueWorkItem);
EXPORT(ObfReferenceObject);
EXPORT(PsTerminateSystemThread);

typedef WABI void (*queue_item_fn)(struct work_queue_item *, unsigned int);
typedef WABI long (*ref_fn)(void *);
typedef WABI int (*terminate_fn)(int);

/* The order the work items ran in, and the IRQL they ran at. */
static int work_order[4];
static int work_runs;
static unsigned char work_irql = 0xff;
static bool work_on_caller;
static pthread_t work_caller;

static WABI void record_work(void *parameter)
{
	int n = __atomic_load_n(&work_runs, __ATOMIC_SEQ_CST);

	if (n < 4)
		work_order[n] = (int)(long)parameter;
	work_irql = win_irql;
	work_on_caller = pthread_equal(pthread_self(), work_caller);
	__atomic_add_fetch(&work_runs, 1, __ATOMIC_SEQ_CST);
}

static bool wait_for_count(int *count, int want)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (__atomic_load_n(count, __ATOMIC_SEQ_CST) >= want)
			return true;
		usleep(10000);
	}
	return false;
}

static void test_ex_queue_work_item(void)
{
	struct work_queue_item a = { { NULL, NULL }, (void *)record_work,
				     (void *)1 };
	struct work_queue_item b = { { NULL, NULL }, (void *)record_work,
				     (void *)2 };

	_Static_assert(__builtin_offsetof(struct work_queue_item, worker_routine) == 0x10,
		       "amd64 WORK_QUEUE_ITEM");
	work_runs = 0;
	work_caller = pthread_self();
	/* each queue type is the same queue: run once each, in order */
	FN(queue_item_fn, ExQueueWorkItem)(&a, 0);	/* CriticalWorkQueue */
	FN(queue_item_fn, ExQueueWorkItem)(&b, 1);	/* DelayedWorkQueue */
	CHECK(wait_for_count(&work_runs, 2));
	usleep(20000);
	CHECK(work_runs == 2);
	CHECK(work_order[0] == 1 && work_order[1] == 2);
	/* by a system worker thread at PASSIVE_LEVEL, not by the caller */
	CHECK(work_irql == WIN_PASSIVE_LEVEL && !work_on_caller);
	/* an item that has run may be queued again */
	FN(queue_item_fn, ExQueueWorkItem)(&a, 2);	/* HyperCritical */
	CHECK(wait_for_count(&work_runs, 3));
	CHECK(work_order[2] == 1);
}

/* A thread object's exit status, as the wrapper keeps it after the
 * dispatcher header (ntos_thread.h). */
struct thread_object {
	struct kevent header;
	int refs;
	int exit_status;
};

static volatile int after_terminate;

static WABI void terminating_thread(void *context)
{
	usleep(30000);	/* the creator's wait has to wait */
	FN(terminate_fn, PsTerminateSystemThread)((int)(long)context);
	after_terminate = 1;	/* never reached */
}

static WABI void returning_thread(void *context)
{
	(void)context;
}

static bool wait_threads_ended(void)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (!__atomic_load_n(&kmock_kthreads_running, __ATOMIC_SEQ_CST))
			return true;
		usleep(10000);
	}
	return false;
}

static void test_thread_terminate(void)
{
	long long timeout = -20000000;	/* 2 s */
	int slabs = kmock_slab_live;
	void *handle = NULL;
	long long start;

	/* the thread ends itself mid-routine: its waiter sees the status */
	after_terminate = 0;
	CHECK(FN(create_thread_fn, PsCreateSystemThread)(&handle, 0, NULL,
			NULL, NULL, (void *)terminating_thread,
			(void *)0x1234L) == STATUS_SUCCESS);
	CHECK(((struct thread_object *)handle)->header.signal_state == 0);
	start = now_ns();
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(handle, 0, 0, 0, &timeout) ==
	      STATUS_SUCCESS);
	CHECK(now_ns() - start >= 25000000LL);
	CHECK(((struct thread_object *)handle)->header.signal_state == 1);
	CHECK(((struct thread_object *)handle)->exit_status == 0x1234);
	CHECK(wait_threads_ended());
	usleep(20000);
	CHECK(after_terminate == 0);
	/* its FPU section ended with it: nothing left begun on this thread */
	CHECK(kmock_fpu_depth == 0);
	CHECK(FN(close_fn, ZwClose)(handle) == STATUS_SUCCESS);
	CHECK(kmock_slab_live == slabs);
	/* a routine that returns: STATUS_SUCCESS */
	CHECK(FN(create_thread_fn, PsCreateSystemThread)(&handle, 0, NULL,
			NULL, NULL, (void *)returning_thread, NULL) ==
	      STATUS_SUCCESS);
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(handle, 0, 0, 0, &timeout) ==
	      STATUS_SUCCESS);
	CHECK(((struct thread_object *)handle)->exit_status == STATUS_SUCCESS);
	CHECK(wait_threads_ended());
	CHECK(FN(close_fn, ZwClose)(handle) == STATUS_SUCCESS);
	CHECK(kmock_slab_live == slabs);
	/* from a thread PsCreateSystemThread did not make: refused */
	klog[0] = '\0';
	CHECK(FN(terminate_fn, PsTerminateSystemThread)(0) ==
	      STATUS_INVALID_PARAMETER);
	CHECK_CONTAINS(klog, "not a thread PsCreateSystemThread made");
}

static void test_object_reference(void)
{
	long long timeout = -20000000;	/* 2 s */
	int slabs = kmock_slab_live;
	void *handle = NULL;
	int other = 0;

	CHECK(FN(create_thread_fn, PsCreateSystemThread)(&handle, 0, NULL,
			NULL, NULL, (void *)returning_thread, NULL) ==
	      STATUS_SUCCESS);
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(handle, 0, 0, 0, &timeout) ==
	      STATUS_SUCCESS);
	CHECK(wait_threads_ended());
	usleep(20000);
	/* the handle's reference is left: one more, the count returned */
	CHECK(FN(ref_fn, ObfReferenceObject)(handle) == 2);
	CHECK(FN(ref_fn, ObfReferenceObject)(handle) == 3);
	CHECK(((struct thread_object *)handle)->refs == 3);
	CHECK(FN(deref_fn, ObfDereferenceObject)(handle) == 2);
	CHECK(FN(deref_fn, ObfDereferenceObject)(handle) == 1);
	/* the object lives while referenced: closing the handle with a
	 * reference taken leaves it, the last dereference frees it */
	CHECK(FN(ref_fn, ObfReferenceObject)(handle) == 2);
	CHECK(FN(close_fn, ZwClose)(handle) == STATUS_SUCCESS);
	CHECK(kmock_slab_live == slabs + 1);
	CHECK(FN(deref_fn, ObfDereferenceObject)(handle) == 0);
	CHECK(kmock_slab_live == slabs);
	/* an object the wrapper did not make: 1, left alone */
	CHECK(FN(ref_fn, ObfReferenceObject)(&other) == 1);
	CHECK(other == 0);
}

/* -- timers and DPCs (ntos_timer.c) ----------------------------------------- */

EXPORT(KeInitializeTimerEx);
EXPORT(KeRemoveQueueDpc);

typedef WABI void (*timer_init_ex_fn)(struct ktimer *, unsigned int);
typedef WABI unsigned char (*dpc_remove_fn)(struct kdpc *);

#define WIN_SYNCHRONIZATION_TIMER	9

static void test_timer_init_ex(void)
{
	struct ktimer kt;
	long long timeout = -20000000;	/* 2 s */
	long long zero = 0;
	int slabs = kmock_slab_live;

	/* SynchronizationTimer: signalled at expiry, reset by the wait */
	memset(&kt, 0x55, sizeof(kt));
	driver_asked = 0;
	FN(timer_init_ex_fn, KeInitializeTimerEx)(&kt, 1);
	CHECK(kt.header.type == WIN_SYNCHRONIZATION_TIMER);
	CHECK(kt.header.signal_state == 0 && kt.dpc == NULL);
	CHECK(driver_asked != 0 && kmock_slab_live == slabs + 1);
	CHECK(FN(timer_set_fn, KeSetTimerEx)(&kt, -200000, 0, NULL) == 0);
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(&kt, 0, 0, 0, &timeout) ==
	      STATUS_SUCCESS);
	CHECK(FN(timer_read_fn, KeReadStateTimer)(&kt) == 0);
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(&kt, 0, 0, 0, &zero) ==
	      STATUS_TIMEOUT);
	/* NotificationTimer: stays signalled after the wait; initialized
	 * again, the same timer (no second one charged) */
	FN(timer_init_ex_fn, KeInitializeTimerEx)(&kt, 0);
	CHECK(kt.header.type == WIN_NOTIFICATION_TIMER);
	CHECK(kmock_slab_live == slabs + 1);
	CHECK(FN(timer_set_fn, KeSetTimerEx)(&kt, -200000, 0, NULL) == 0);
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(&kt, 0, 0, 0, &timeout) ==
	      STATUS_SUCCESS);
	CHECK(FN(timer_read_fn, KeReadStateTimer)(&kt) == 1);
	CHECK(FN(wait1_fn, KeWaitForSingleObject)(&kt, 0, 0, 0, &zero) ==
	      STATUS_SUCCESS);
	win_timers_release(&the_driver);
	CHECK(kmock_slab_live == slabs);
}

/* A DPC that holds the queue's runner until released. */
static volatile int dpc_gate_open;
static int gate_runs, target_runs;

static WABI void gate_dpc(struct kdpc *dpc, void *context, void *arg1,
			  void *arg2)
{
	int i;

	(void)dpc;
	(void)context;
	(void)arg1;
	(void)arg2;
	for (i = 0; i < 200 && !dpc_gate_open; i++)
		usleep(10000);
	__atomic_add_fetch(&gate_runs, 1, __ATOMIC_SEQ_CST);
}

static WABI void target_dpc(struct kdpc *dpc, void *context, void *arg1,
			    void *arg2)
{
	(void)dpc;
	(void)context;
	(void)arg1;
	(void)arg2;
	__atomic_add_fetch(&target_runs, 1, __ATOMIC_SEQ_CST);
}

static void test_dpc_remove(void)
{
	struct kdpc gate, target, idle;

	FN(dpc_init_fn, KeInitializeDpc)(&gate, (void *)gate_dpc, NULL);
	FN(dpc_init_fn, KeInitializeDpc)(&target, (void *)target_dpc, NULL);
	FN(dpc_init_fn, KeInitializeDpc)(&idle, (void *)target_dpc, NULL);
	dpc_gate_open = 0;
	gate_runs = 0;
	target_runs = 0;
	/* never queued: FALSE */
	CHECK(FN(dpc_remove_fn, KeRemoveQueueDpc)(&idle) == 0);
	/* queued behind a running one: removed once (TRUE), then FALSE */
	CHECK(FN(dpc_insert_fn, KeInsertQueueDpc)(&gate, NULL, NULL) == 1);
	CHECK(FN(dpc_insert_fn, KeInsertQueueDpc)(&target, NULL, NULL) == 1);
	CHECK(FN(dpc_remove_fn, KeRemoveQueueDpc)(&target) == 1);
	CHECK(FN(dpc_remove_fn, KeRemoveQueueDpc)(&target) == 0);
	/* removed, it never runs */
	dpc_gate_open = 1;
	FN(flush_dpcs_fn, KeFlushQueuedDpcs)();
	CHECK(gate_runs == 1 && target_runs == 0);
	/* and may be queued again, and then runs */
	CHECK(FN(dpc_insert_fn, KeInsertQueueDpc)(&target, NULL, NULL) == 1);
	FN(flush_dpcs_fn, KeFlushQueuedDpcs)();
	CHECK(target_runs == 1);
	/* once run it is no longer queued: FALSE */
	CHECK(FN(dpc_remove_fn, KeRemoveQueueDpc)(&target) == 0);
}

/* -- the C runtime's narrow strings, the rest (crt.c) ----------------------- */

EXPORT(_strnicmp);
EXPORT(strnlen);
EXPORT(strrchr);

typedef WABI int (*strnicmp_fn)(const char *, const char *, size_t);
typedef WABI size_t (*strnlen_fn)(const char *, size_t);
typedef WABI char *(*strrchr_fn)(const char *, int);

static void test_crt_strn_strrchr(void)
{
	static const char path[] = "a/b/c.sys";

	/* _strnicmp: at most n characters, case ignored */
	CHECK(FN(strnicmp_fn, _strnicmp)("NdisWrap", "ndisWRAPPER", 8) == 0);
	CHECK(FN(strnicmp_fn, _strnicmp)("NdisWrap", "ndisWRAPPER", 9) < 0);
	CHECK(FN(strnicmp_fn, _strnicmp)("ndisWRAPPER", "NdisWrap", 9) > 0);
	CHECK(FN(strnicmp_fn, _strnicmp)("abcd", "ABCX", 4) < 0);
	CHECK(FN(strnicmp_fn, _strnicmp)("abcX", "ABCd", 3) == 0);
	CHECK(FN(strnicmp_fn, _strnicmp)("x", "y", 0) == 0);
	/* letters compare as lower case: '_' (0x5f) is below 'a' */
	CHECK(FN(strnicmp_fn, _strnicmp)("A", "_", 1) > 0);
	/* strnlen: the length, at most max */
	CHECK(FN(strnlen_fn, strnlen)("hello", 3) == 3);
	CHECK(FN(strnlen_fn, strnlen)("hello", 5) == 5);
	CHECK(FN(strnlen_fn, strnlen)("hello", 64) == 5);
	CHECK(FN(strnlen_fn, strnlen)("", 8) == 0);
	CHECK(FN(strnlen_fn, strnlen)("hello", 0) == 0);
	/* strrchr: the last occurrence; the terminator is one too */
	CHECK(FN(strrchr_fn, strrchr)(path, '/') == path + 3);
	CHECK(FN(strrchr_fn, strrchr)(path, 'a') == path);
	CHECK(FN(strrchr_fn, strrchr)(path, 'x') == NULL);
	CHECK(FN(strrchr_fn, strrchr)(path, '\0') == path + 9);
}

int main(void)
{
	TEST(test_rtl_init);
	TEST(test_rtl_convert);
	TEST(test_rtl_copy_append);
	TEST(test_rtl_compare);
	TEST(test_rtl_integers);
	TEST(test_rtl_guid);
	TEST(test_rtl_memory);
	TEST(test_crt_printf);
	TEST(test_crt_wprintf);
	TEST(test_crt_chars);
	TEST(test_crt_rand);
	TEST(test_crt_narrow_strings);
	TEST(test_crt_ms_vsnprintf);
	TEST(test_crt_wide_strings);
	TEST(test_io_irp_init);
	TEST(test_io_build_ioctl);
	TEST(test_io_build_fsd);
	TEST(test_io_mdl);
	TEST(test_io_device_stack);
	TEST(test_io_versions);
	TEST(test_io_error_log);
	TEST(test_zw_paths);
	TEST(test_zw_read);
	TEST(test_mm_io_space);
	TEST(test_mm_sections);
	TEST(test_io_work_items);
	TEST(test_dbg_print_ex);
	TEST(test_vdbg_print_ex);
	TEST(test_dbg_break_point);
	TEST(test_mm_system_routine);
	TEST(test_mm_map_locked_pages);
	TEST(test_list_locked);
	TEST(test_slist_ex);
	TEST(test_slist_init);
	TEST(test_time_clocks);
	TEST(test_time_irql);
	TEST(test_time_spin_lock);
	TEST(test_time_spin_lock_family);
	TEST(test_sync_event_state);
	TEST(test_sync_delay);
	TEST(test_pool_free);
	TEST(test_pool_lookaside);
	TEST(test_thread_current_priority);
	TEST(test_thread_handle_references);
	TEST(test_timer_state);
	TEST(test_dpc_importance_flush);
	TEST(test_hal_stall);
	TEST(test_io_complete_request);
	TEST(test_po_request_power_irp);
	TEST(test_po_call_and_state);
	TEST(test_power_dispatch);
	TEST(test_io_driver_object_extension);
	TEST(test_io_create_device);
	TEST(test_io_device_property);
	TEST(test_io_remove_lock);
	TEST(test_io_cancel_spin_lock);
	TEST(test_io_stack_limits_and_links);
	TEST(test_interlocked_counters);
	TEST(test_list_locked_stdcall);
	TEST(test_slist_interlocked_pop);
	TEST(test_time_tick_count);
	TEST(test_time_performance_counter);
	TEST(test_time_local);
	TEST(test_time_raise_irql);
	TEST(test_sync_mutex);
	TEST(test_sync_semaphore);
	TEST(test_ex_queue_work_item);
	TEST(test_thread_terminate);
	TEST(test_object_reference);
	TEST(test_timer_init_ex);
	TEST(test_dpc_remove);
	TEST(test_crt_strn_strrchr);
	return tap_done();
}
