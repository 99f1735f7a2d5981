/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the parts of ntoskrnl.exe's C runtime whose Microsoft
 * semantics differ from the kernel's functions of the same name, as plain
 * functions (crt.c wraps them as ms_abi exports; DbgPrint formats with
 * them). Nothing here needs a kernel: tests/unit/c builds this header
 * against kmock and checks it on the host.
 *
 * Formatting follows the Microsoft printf family on LLP64: long is 32
 * bits; ll, I64 and (on amd64) I, z and the pointer size are 64; %S, %ls
 * and %ws take a UTF-16 string, %Z an ANSI_STRING and %wZ a
 * UNICODE_STRING (counted, not NUL-terminated). Characters outside ASCII
 * in wide strings print as '?'. Every argument is read from a Microsoft
 * va_list (win_va_list): on amd64 its slots are 8 bytes whatever the
 * argument; on i386 it is cdecl's, 4-byte slots and two for a 64-bit
 * argument, and I, z and pointers are 32 bits.
 *
 * _vsnprintf(buf, count, ...): at most count characters; a NUL only when
 * there is room for it; the length when it fits (== count included),
 * otherwise -1.
 */

#ifndef NDIS_WIN_CRT_H
#define NDIS_WIN_CRT_H

#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/types.h>

#ifdef __x86_64__
typedef __builtin_ms_va_list win_va_list;
#define win_va_start(ap, last)	__builtin_ms_va_start(ap, last)
#define win_va_end(ap)		__builtin_ms_va_end(ap)
#define win_va_copy(d, s)	__builtin_ms_va_copy(d, s)
#else
typedef __builtin_va_list win_va_list;
#define win_va_start(ap, last)	__builtin_va_start(ap, last)
#define win_va_end(ap)		__builtin_va_end(ap)
#define win_va_copy(d, s)	__builtin_va_copy(d, s)
#endif

/* Bits of a pointer, size_t and the I size prefix. */
#define WIN_PTR_BITS	((int)sizeof(void *) * 8)

/* The next argument, of size bits (8, 16 and 32 are promoted to a slot). */
static inline u64 win_va_arg(win_va_list *ap, int size)
{
#ifdef __x86_64__
	(void)size;
	return __builtin_va_arg(*ap, u64);
#else
	if (size == 64)
		return __builtin_va_arg(*ap, u64);
	return __builtin_va_arg(*ap, u32);
#endif
}

struct win_out {
	char *buf;
	size_t size;			/* characters buf may take */
	size_t len;			/* characters produced, even past size */
};

static inline void win_out_put(struct win_out *o, char c)
{
	if (o->len < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static inline void win_out_pad(struct win_out *o, char c, int n)
{
	while (n-- > 0)
		win_out_put(o, c);
}

static inline int win_tolower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static inline int win_toupper(int c)
{
	return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c;
}

/* _strnicmp: ASCII case folding to lower case, as the C locale does. */
static inline int win_strnicmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		int x = win_tolower((unsigned char)*a);
		int y = win_tolower((unsigned char)*b);

		if (x != y)
			return x - y;
		if (!x)
			break;
	}
	return 0;
}

static inline size_t win_wcsnlen(const u16 *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

struct win_spec {
	bool left, zero;
	int width;			/* -1: none */
	int prec;			/* -1: none */
	char flags[6];			/* "+ #" as given, NUL-terminated */
};

/* A string of len characters (narrow or UTF-16) with width and precision. */
static inline void win_out_str(struct win_out *o, const struct win_spec *sp,
			       const void *s, size_t len, bool wide)
{
	size_t i;

	if (sp->prec >= 0 && len > (size_t)sp->prec)
		len = sp->prec;
	if (!sp->left && sp->width > 0 && (size_t)sp->width > len)
		win_out_pad(o, ' ', sp->width - (int)len);
	for (i = 0; i < len; i++) {
		if (wide) {
			u16 c = ((const u16 *)s)[i];

			win_out_put(o, c < 0x80 ? (char)c : '?');
		} else {
			win_out_put(o, ((const char *)s)[i]);
		}
	}
	if (sp->left && sp->width > 0 && (size_t)sp->width > len)
		win_out_pad(o, ' ', sp->width - (int)len);
}

static inline size_t win_strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/* Numbers through the kernel's (or libc's) snprintf, with "ll". */
static inline void win_out_num(struct win_out *o, const struct win_spec *sp,
			       char conv, u64 v, bool is_signed)
{
	char spec[32], tmp[300];
	int n = 0, k;

	spec[n++] = '%';
	for (k = 0; sp->flags[k]; k++)
		spec[n++] = sp->flags[k];
	if (sp->left)
		spec[n++] = '-';
	if (sp->zero)
		spec[n++] = '0';
	n += snprintf(spec + n, sizeof(spec) - n, sp->width >= 0 ? "%d" : "",
		      sp->width);
	if (sp->prec >= 0)
		n += snprintf(spec + n, sizeof(spec) - n, ".%d", sp->prec);
	spec[n++] = 'l';
	spec[n++] = 'l';
	spec[n++] = conv;
	spec[n] = '\0';
	if (is_signed)
		k = snprintf(tmp, sizeof(tmp), spec, (long long)v);
	else
		k = snprintf(tmp, sizeof(tmp), spec, (unsigned long long)v);
	for (n = 0; n < k && n < (int)sizeof(tmp) - 1; n++)
		win_out_put(o, tmp[n]);
}

/* ANSI_STRING and UNICODE_STRING: Length (bytes), MaximumLength, Buffer */
struct win_counted_string {
	u16 length;
	u16 max_length;
	const void *buffer;
};

static inline int win_format(struct win_out *o, const char *fmt,
			     win_va_list *ap)
{
	while (*fmt) {
		struct win_spec sp = { .width = -1, .prec = -1 };
		int size = 32, nflags = 0;	/* argument size in bits */
		bool wide = false;
		u64 v;

		if (*fmt != '%') {
			win_out_put(o, *fmt++);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				sp.left = true;
			else if (*fmt == '0')
				sp.zero = true;
			else if ((*fmt == '+' || *fmt == ' ' || *fmt == '#') &&
				 nflags < 5)
				sp.flags[nflags++] = *fmt;
			else
				break;
		}
		if (*fmt == '*') {
			sp.width = (int)win_va_arg(ap, 32);
			if (sp.width < 0) {
				sp.left = true;
				sp.width = -sp.width;
			}
			fmt++;
		} else {
			for (; *fmt >= '0' && *fmt <= '9'; fmt++)
				sp.width = (sp.width < 0 ? 0 : sp.width) * 10 +
					   (*fmt - '0');
		}
		if (*fmt == '.') {
			fmt++;
			sp.prec = 0;
			if (*fmt == '*') {
				sp.prec = (int)win_va_arg(ap, 32);
				fmt++;
			} else {
				for (; *fmt >= '0' && *fmt <= '9'; fmt++)
					sp.prec = sp.prec * 10 + (*fmt - '0');
			}
		}
		if (sp.width > 256)
			sp.width = 256;
		if (sp.prec > 256 || sp.prec < -1)
			sp.prec = sp.prec < 0 ? -1 : 256;
		if (fmt[0] == 'I' && fmt[1] == '6' && fmt[2] == '4') {
			size = 64;
			fmt += 3;
		} else if (fmt[0] == 'I' && fmt[1] == '3' && fmt[2] == '2') {
			fmt += 3;
		} else if (fmt[0] == 'l' && fmt[1] == 'l') {
			size = 64;
			fmt += 2;
		} else if (fmt[0] == 'h' && fmt[1] == 'h') {
			size = 8;
			fmt += 2;
		} else if (*fmt == 'I' || *fmt == 'z') {
			size = WIN_PTR_BITS;
			fmt++;
		} else if (*fmt == 'h') {
			size = 16;
			fmt++;
		} else if (*fmt == 'l' || *fmt == 'w') {
			wide = true;		/* long stays 32 bits */
			fmt++;
		}
		switch (*fmt) {
		case 'd':
		case 'i':
			v = win_va_arg(ap, size);
			if (size == 8)
				v = (u64)(s64)(s8)v;
			else if (size == 16)
				v = (u64)(s64)(s16)v;
			else if (size == 32)
				v = (u64)(s64)(s32)v;
			win_out_num(o, &sp, 'd', v, true);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			v = win_va_arg(ap, size);
			if (size == 8)
				v = (u8)v;
			else if (size == 16)
				v = (u16)v;
			else if (size == 32)
				v = (u32)v;
			win_out_num(o, &sp, *fmt, v, false);
			break;
		case 'p':
			v = win_va_arg(ap, WIN_PTR_BITS);
			sp = (struct win_spec){ .zero = true,
						.width = WIN_PTR_BITS / 4,
						.prec = -1 };
			win_out_num(o, &sp, 'X', v, false);
			break;
		case 'c':
		case 'C': {
			char c = (char)win_va_arg(ap, 32);

			if ((wide || *fmt == 'C') && (u8)c >= 0x80)
				c = '?';
			win_out_str(o, &sp, &c, 1, false);
			break;
		}
		case 's':
		case 'S': {
			const void *s = (const void *)(uintptr_t)
					win_va_arg(ap, WIN_PTR_BITS);

			wide = wide || *fmt == 'S';
			if (!s)
				win_out_str(o, &sp, "(null)", 6, false);
			else if (wide)
				win_out_str(o, &sp, s, win_wcsnlen(s,
					    sp.prec >= 0 ? (size_t)sp.prec :
					    (size_t)-1), true);
			else
				win_out_str(o, &sp, s, win_strnlen(s,
					    sp.prec >= 0 ? (size_t)sp.prec :
					    (size_t)-1), false);
			break;
		}
		case 'Z': {
			const struct win_counted_string *cs =
				(const void *)(uintptr_t)
				win_va_arg(ap, WIN_PTR_BITS);

			if (!cs || !cs->buffer)
				win_out_str(o, &sp, "(null)", 6, false);
			else
				win_out_str(o, &sp, cs->buffer,
					    wide ? cs->length / 2 : cs->length,
					    wide);
			break;
		}
		case '%':
			win_out_put(o, '%');
			break;
		case '\0':
			return 0;
		default:			/* unknown: shown, no argument */
			win_out_put(o, '%');
			win_out_put(o, *fmt);
			break;
		}
		fmt++;
	}
	return 0;
}

/* Microsoft _vsnprintf (see the top of this file). */
static inline int win_vsnprintf(char *buf, size_t count, const char *fmt,
				win_va_list *ap)
{
	struct win_out o = { .buf = buf, .size = count };

	win_format(&o, fmt, ap);
	if (o.len < count)
		buf[o.len] = '\0';
	return o.len <= count && o.len <= 0x7fffffff ? (int)o.len : -1;
}

#endif /* NDIS_WIN_CRT_H */
