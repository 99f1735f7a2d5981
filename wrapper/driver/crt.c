// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: the C runtime ntoskrnl.exe exports to drivers.
 *
 * A driver built from the DDK imports these: RtlCopyMemory,
 * RtlZeroMemory, RtlFillMemory, RtlEqualMemory and RtlMoveMemory (and so
 * NdisMoveMemory, NdisZeroMemory, NdisEqualMemory, ...) are macros for
 * memcpy, memset, memcmp and memmove, and compilers call memcpy/memset
 * for structure copies. The calling convention is cdecl (WIN_CDECL: the
 * Windows x64 one on amd64, where cdecl is ms_abi). Where the C standard fixes the behaviour
 * the kernel's function does the work; where Microsoft's differs
 * (_snprintf's return value and missing NUL, LLP64 format sizes, _stricmp)
 * it is win_crt.h, which the host unit tests check.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "ntos.h"
#include "win_crt.h"
#include "winexport.h"

static WIN_CDECL void *win_memcpy(void *d, const void *s, size_t n)
{
	return memcpy(d, s, n);
}
WIN_FUNC_NAMED(memcpy, win_memcpy);

static WIN_CDECL void *win_memmove(void *d, const void *s, size_t n)
{
	return memmove(d, s, n);
}
WIN_FUNC_NAMED(memmove, win_memmove);

static WIN_CDECL void *win_memset(void *d, int c, size_t n)
{
	return memset(d, c, n);
}
WIN_FUNC_NAMED(memset, win_memset);

static WIN_CDECL int win_memcmp(const void *a, const void *b, size_t n)
{
	return memcmp(a, b, n);
}
WIN_FUNC_NAMED(memcmp, win_memcmp);

static WIN_CDECL void *win_memchr(const void *s, int c, size_t n)
{
	return memchr(s, c, n);
}
WIN_FUNC_NAMED(memchr, win_memchr);

static WIN_CDECL size_t win_strlen(const char *s)
{
	return strlen(s);
}
WIN_FUNC_NAMED(strlen, win_strlen);

static WIN_CDECL size_t win_strnlen_export(const char *s, size_t max)
{
	return strnlen(s, max);
}
WIN_FUNC_NAMED(strnlen, win_strnlen_export);

static WIN_CDECL int win_strcmp(const char *a, const char *b)
{
	return strcmp(a, b);
}
WIN_FUNC_NAMED(strcmp, win_strcmp);

static WIN_CDECL int win_strncmp(const char *a, const char *b, size_t n)
{
	return strncmp(a, b, n);
}
WIN_FUNC_NAMED(strncmp, win_strncmp);

static WIN_CDECL char *win_strcpy(char *d, const char *s)
{
	return memcpy(d, s, strlen(s) + 1);
}
WIN_FUNC_NAMED(strcpy, win_strcpy);

/* NUL-padded to n, and not terminated when s is n long or longer. */
static WIN_CDECL char *win_strncpy(char *d, const char *s, size_t n)
{
	size_t len = strnlen(s, n);

	memcpy(d, s, len);
	memset(d + len, 0, n - len);
	return d;
}
WIN_FUNC_NAMED(strncpy, win_strncpy);

static WIN_CDECL char *win_strcat(char *d, const char *s)
{
	win_strcpy(d + strlen(d), s);
	return d;
}
WIN_FUNC_NAMED(strcat, win_strcat);

/* At most n characters of s, then always a NUL. */
static WIN_CDECL char *win_strncat(char *d, const char *s, size_t n)
{
	char *end = d + strlen(d);
	size_t len = strnlen(s, n);

	memcpy(end, s, len);
	end[len] = '\0';
	return d;
}
WIN_FUNC_NAMED(strncat, win_strncat);

static WIN_CDECL char *win_strchr(const char *s, int c)
{
	return strchr(s, c);
}
WIN_FUNC_NAMED(strchr, win_strchr);

static WIN_CDECL char *win_strrchr(const char *s, int c)
{
	return strrchr(s, c);
}
WIN_FUNC_NAMED(strrchr, win_strrchr);

static WIN_CDECL char *win_strstr(const char *h, const char *n)
{
	return strstr(h, n);
}
WIN_FUNC_NAMED(strstr, win_strstr);

static WIN_CDECL int win_stricmp(const char *a, const char *b)
{
	return win_strnicmp(a, b, SIZE_MAX);
}
WIN_FUNC_NAMED(_stricmp, win_stricmp);

static WIN_CDECL int win_strnicmp_export(const char *a, const char *b,
				       size_t n)
{
	return win_strnicmp(a, b, n);
}
WIN_FUNC_NAMED(_strnicmp, win_strnicmp_export);

static WIN_CDECL int win_tolower_export(int c)
{
	return win_tolower(c);
}
WIN_FUNC_NAMED(tolower, win_tolower_export);

static WIN_CDECL int win_toupper_export(int c)
{
	return win_toupper(c);
}
WIN_FUNC_NAMED(toupper, win_toupper_export);

static WIN_CDECL size_t win_wcslen(const u16 *s)
{
	return win_wcsnlen(s, SIZE_MAX);
}
WIN_FUNC_NAMED(wcslen, win_wcslen);

static WIN_CDECL int win_vsnprintf_export(char *buf, size_t count,
					  const char *fmt, win_va_list ap)
{
	return win_vsnprintf(buf, count, fmt, &ap);
}
WIN_FUNC_NAMED(_vsnprintf, win_vsnprintf_export);

static WIN_CDECL int win_snprintf(char *buf, size_t count, const char *fmt,
				  ...)
{
	win_va_list ap;
	int n;

	win_va_start(ap, fmt);
	n = win_vsnprintf(buf, count, fmt, &ap);
	win_va_end(ap);
	return n;
}
WIN_FUNC_NAMED(_snprintf, win_snprintf);

/* -- more of the printf family ------------------------------------------- */

/* Unbounded, as the C standard's: the caller vouches for the room. */
static WIN_CDECL int win_vsprintf_export(char *buf, const char *fmt,
					 win_va_list ap)
{
	struct win_out o = { .buf = buf, .size = SIZE_MAX };

	win_format(&o, fmt, &ap);
	buf[o.len] = '\0';
	return o.len;
}
WIN_FUNC_NAMED(vsprintf, win_vsprintf_export);

static WIN_CDECL int win_sprintf(char *buf, const char *fmt, ...)
{
	win_va_list ap;
	int n;

	win_va_start(ap, fmt);
	n = win_vsprintf_export(buf, fmt, ap);
	win_va_end(ap);
	return n;
}
WIN_FUNC_NAMED(sprintf, win_sprintf);

/*
 * The C99 forms (not Microsoft's _snprintf): at most count - 1
 * characters and always a NUL (none when count is 0), and the length the
 * whole output would have.
 */
static int crt_vsnprintf_c99(char *buf, size_t count, const char *fmt,
			     win_va_list *ap)
{
	struct win_out o = { .buf = buf, .size = count ? count - 1 : 0 };

	win_format(&o, fmt, ap);
	if (count)
		buf[min(o.len, count - 1)] = '\0';
	return o.len;
}

static WIN_CDECL int win_vsnprintf_c99(char *buf, size_t count,
				       const char *fmt, win_va_list ap)
{
	return crt_vsnprintf_c99(buf, count, fmt, &ap);
}
WIN_FUNC_NAMED(vsnprintf, win_vsnprintf_c99);

static WIN_CDECL int win_snprintf_c99(char *buf, size_t count,
				      const char *fmt, ...)
{
	win_va_list ap;
	int n;

	win_va_start(ap, fmt);
	n = crt_vsnprintf_c99(buf, count, fmt, &ap);
	win_va_end(ap);
	return n;
}
WIN_FUNC_NAMED(snprintf, win_snprintf_c99);

/* -- the wide printf family ------------------------------------------------ */

static bool crt_in(u16 c, const char *set)
{
	return c && c < 0x80 && strchr(set, c);
}

/*
 * A wide format through the narrow formatter, one conversion at a time.
 * Only the meaning of an unsized s, S, c and C changes: in the wide forms
 * %s and %c are wide and %S and %C narrow (the narrow forms' opposite),
 * so each becomes its explicitly sized twin (%ws, %hs, ...). Characters
 * outside ASCII in the format print as '?'.
 */
static void crt_wformat(struct win_out *o, const u16 *fmt, win_va_list *ap)
{
	while (*fmt) {
		char spec[32];
		size_t n = 0;
		bool sized = false;
		u16 conv;

		if (*fmt != '%') {
			win_out_put(o, *fmt < 0x80 ? (char)*fmt : '?');
			fmt++;
			continue;
		}
		spec[n++] = *fmt++;
		while (n < sizeof(spec) - 4 && crt_in(*fmt, "-+ #0123456789.*"))
			spec[n++] = *fmt++;
		while (n < sizeof(spec) - 4 &&
		       (crt_in(*fmt, "lhwIz") || (sized &&
						  crt_in(*fmt, "0123456789")))) {
			sized = true;
			spec[n++] = *fmt++;
		}
		conv = *fmt;
		if (!conv)
			break;
		fmt++;
		if (!sized && (conv == 's' || conv == 'c')) {
			spec[n++] = 'w';
		} else if (!sized && (conv == 'S' || conv == 'C')) {
			spec[n++] = 'h';
			conv = conv == 'S' ? 's' : 'c';
		}
		spec[n++] = conv < 0x80 ? (char)conv : '?';
		spec[n] = '\0';
		win_format(o, spec, ap);
	}
}

/*
 * Up to count wide characters into buf, a NUL after them when there is
 * room; the whole output's length. The narrow text is made in the upper
 * half of buf's 2 * count bytes and widened forward in place: character
 * i is read at byte count + i before bytes 2i and 2i + 1 are written,
 * and 2i + 1 < count + j for every later j, since i < count.
 */
static size_t crt_vsnwprintf(u16 *buf, size_t count, const u16 *fmt,
			     win_va_list *ap)
{
	struct win_out o = { .buf = (char *)buf + count, .size = count };
	const u8 *narrow = (const u8 *)o.buf;
	size_t i, n;

	crt_wformat(&o, fmt, ap);
	n = min(o.len, count);
	for (i = 0; i < n; i++)
		buf[i] = narrow[i];
	if (o.len < count)
		buf[o.len] = 0;
	return o.len;
}

/* Microsoft's: as _vsnprintf, in wide characters. */
static WIN_CDECL int win_vsnwprintf(u16 *buf, size_t count, const u16 *fmt,
				    win_va_list ap)
{
	size_t len = crt_vsnwprintf(buf, count, fmt, &ap);

	return len <= count && len <= INT_MAX ? (int)len : -1;
}
WIN_FUNC_NAMED(_vsnwprintf, win_vsnwprintf);

/* ntoskrnl's swprintf is the old unbounded one: (buffer, format, ...). */
static WIN_CDECL int win_swprintf(u16 *buf, const u16 *fmt, ...)
{
	win_va_list ap, measure;
	size_t len;

	win_va_start(ap, fmt);
	win_va_copy(measure, ap);
	len = crt_vsnwprintf(NULL, 0, fmt, &measure);
	win_va_end(measure);
	crt_vsnwprintf(buf, len + 1, fmt, &ap);
	win_va_end(ap);
	return len;
}
WIN_FUNC_NAMED(swprintf, win_swprintf);

/* -- characters and numbers (the "C" locale) ---------------------------- */

static WIN_CDECL int win_isdigit(int c)
{
	return c >= '0' && c <= '9';
}
WIN_FUNC_NAMED(isdigit, win_isdigit);

static WIN_CDECL int win_isprint(int c)
{
	return c >= ' ' && c < 0x7f;
}
WIN_FUNC_NAMED(isprint, win_isprint);

static WIN_CDECL u16 win_towlower(u16 c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}
WIN_FUNC_NAMED(towlower, win_towlower);

static WIN_CDECL u16 win_towupper(u16 c)
{
	return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c;
}
WIN_FUNC_NAMED(towupper, win_towupper);

/* Blanks, a sign, decimal digits up to the first other character. */
static WIN_CDECL int win_atoi(const char *s)
{
	bool neg = false;
	unsigned int v = 0;

	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	while (win_isdigit(*s))
		v = v * 10 + (*s++ - '0');
	return neg ? -(int)v : (int)v;
}
WIN_FUNC_NAMED(atoi, win_atoi);

static WIN_CDECL int win_stricmp_plain(const char *a, const char *b)
{
	return win_strnicmp(a, b, SIZE_MAX);
}
WIN_FUNC_NAMED(stricmp, win_stricmp_plain);

/*
 * Microsoft's rand: a linear congruential generator whose state srand
 * sets (1 until then), 15 bits of it per call. One state for all
 * drivers, not per thread; nothing here needs more than its sequence.
 */
static u32 crt_rand_state = 1;

static WIN_CDECL void win_srand(u32 seed)
{
	WRITE_ONCE(crt_rand_state, seed);
}
WIN_FUNC_NAMED(srand, win_srand);

static WIN_CDECL int win_rand(void)
{
	u32 s = READ_ONCE(crt_rand_state) * 214013 + 2531011;

	WRITE_ONCE(crt_rand_state, s);
	return (s >> 16) & 0x7fff;
}
WIN_FUNC_NAMED(rand, win_rand);

/* -- wide strings ------------------------------------------------------------ */

static WIN_CDECL u16 *win_wcscpy(u16 *d, const u16 *s)
{
	return memcpy(d, s, (win_wcsnlen(s, SIZE_MAX) + 1) * 2);
}
WIN_FUNC_NAMED(wcscpy, win_wcscpy);

static WIN_CDECL u16 *win_wcscat(u16 *d, const u16 *s)
{
	win_wcscpy(d + win_wcsnlen(d, SIZE_MAX), s);
	return d;
}
WIN_FUNC_NAMED(wcscat, win_wcscat);

/* NUL-padded to n, and not terminated when s is n long or longer. */
static WIN_CDECL u16 *win_wcsncpy(u16 *d, const u16 *s, size_t n)
{
	size_t len = win_wcsnlen(s, n);

	memcpy(d, s, len * 2);
	memset(d + len, 0, (n - len) * 2);
	return d;
}
WIN_FUNC_NAMED(wcsncpy, win_wcsncpy);

static int crt_wcscmp(const u16 *a, const u16 *b, bool fold)
{
	for (;; a++, b++) {
		u16 ca = fold ? win_towlower(*a) : *a;
		u16 cb = fold ? win_towlower(*b) : *b;

		if (ca != cb || !ca)
			return (int)ca - cb;
	}
}

static WIN_CDECL int win_wcscmp(const u16 *a, const u16 *b)
{
	return crt_wcscmp(a, b, false);
}
WIN_FUNC_NAMED(wcscmp, win_wcscmp);

/* Case-blind in ASCII; _wcsicmp is ntoskrnl's name, wcsicmp an alias. */
static WIN_CDECL int win_wcsicmp(const u16 *a, const u16 *b)
{
	return crt_wcscmp(a, b, true);
}
WIN_FUNC_NAMED(_wcsicmp, win_wcsicmp);
WIN_FUNC_NAMED(wcsicmp, win_wcsicmp);

/* -- debug output ------------------------------------------------------------ */

/*
 * DbgPrint with a component and a level, filtered as Windows filters by
 * default: only the error level (DPFLTR_ERROR_LEVEL, 0) is shown; a level
 * above 31 is a mask, whose bit 0 is the error level.
 */
static void win_dbg_print_va(unsigned long caller, u32 level, const char *fmt,
			     win_va_list *ap)
{
	char buf[256];
	size_t pos;

	if (level > 31 ? !(level & 1) : level != 0)
		return;
	win_vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	buf[sizeof(buf) - 1] = '\0';
	pos = strlen(buf);
	while (pos && buf[pos - 1] == '\n')
		pos--;
	buf[pos] = '\0';
	ntos_log(caller, buf);
}

static WIN_CDECL u32 win_dbg_print_ex(u32 component, u32 level,
				      const char *fmt, ...)
{
	win_va_list ap;

	win_va_start(ap, fmt);
	win_dbg_print_va((unsigned long)__builtin_return_address(0), level,
			 fmt, &ap);
	win_va_end(ap);
	return STATUS_SUCCESS;
}
WIN_FUNC_NAMED(DbgPrintEx, win_dbg_print_ex);

/* DbgPrintEx with the driver's own va_list (a printf of its own). */
static WIN_ABI u32 vDbgPrintEx(u32 component, u32 level, const char *fmt,
			       win_va_list ap)
{
	win_dbg_print_va((unsigned long)__builtin_return_address(0), level,
			 fmt, &ap);
	return STATUS_SUCCESS;
}
WIN_FUNC(vDbgPrintEx);

/*
 * A call through a C++ object's pure virtual slot: a driver bug Windows
 * stops the machine for. Here it is logged, and the call returns.
 */
static WIN_CDECL int win_purecall(void)
{
	ntos_log((unsigned long)__builtin_return_address(0),
		 "_purecall: a pure virtual function was called");
	return 0;
}
WIN_FUNC_NAMED(_purecall, win_purecall);

/*
 * DbgBreakPoint: no kernel debugger is attached to a Windows driver here,
 * so the break is logged (with where it came from) and execution goes on,
 * as on Windows without a debugger when the driver catches the
 * breakpoint exception itself. DDK builds with gcc import it (ASSERT,
 * KdBreakPoint); MSVC builds inline int3 instead, which traps (BUG).
 */
static WIN_ABI void DbgBreakPoint(void)
{
	unsigned long caller = (unsigned long)__builtin_return_address(0);
	char text[64];

	snprintf(text, sizeof(text), "DbgBreakPoint at +%#lx: no debugger, ignored",
		 ntos_image_offset(caller));
	ntos_log(caller, text);
}
WIN_FUNC(DbgBreakPoint);
