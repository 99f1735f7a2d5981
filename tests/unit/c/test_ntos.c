// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ntoskrnl.exe's exports by concern (wrapper/driver/
 * ntos_rtl.c, crt.c), built -nostdinc against kmock as the kernel builds
 * them, and called here through their export entries (win_export_NAME)
 * with the Windows calling convention, as a driver calls them. The
 * pool they allocate from is this file's (ntos_alloc), which counts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>

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
	TEST(test_crt_wide_strings);
	return tap_done();
}
