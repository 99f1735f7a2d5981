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
