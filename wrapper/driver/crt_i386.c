// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: the 64-bit arithmetic helpers of i386 ntoskrnl.exe. A
 * 32-bit MSVC build calls these for every 64-bit multiply, divide,
 * remainder and variable shift (LONGLONG and ULONGLONG arithmetic: tick
 * counts, byte counters, rates), so an XP driver for i386 imports them.
 *
 * _allmul, _alldiv, _allrem, _aulldiv and _aullrem are stdcall with two
 * 64-bit operands on the stack (low half first) and the result in
 * edx:eax: plain WIN_ABI functions here. The shifts (value in edx:eax,
 * count in cl, nothing on the stack) and the dvrm pair (the remainder
 * comes back in ebx:ecx as well) follow no C convention: crt_i386_32.S
 * has them, and they call the dividers below for the dvrm pair.
 *
 * Signed division works on the magnitudes and gives the quotient the
 * sign of the operands' product, the remainder the dividend's sign (C's
 * truncation), as Microsoft's helpers do: INT64_MIN / -1 therefore wraps
 * to INT64_MIN with remainder 0 rather than trapping. Division by zero is
 * a divide error (a bug check) on Windows; here it is logged and gives
 * quotient 0 and the dividend as the remainder, and the kernel goes on.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/printk.h>
#include <linux/types.h>

#include "winexport.h"

#ifdef CONFIG_X86_32
/* Called from crt_i386_32.S (regparm(0), as WIN_CDECL is on i386). */
WIN_CDECL u64 win_ulldivrem(u64 a, u64 b, u64 *rem);
WIN_CDECL s64 win_lldivrem(s64 a, s64 b, s64 *rem);

WIN_CDECL u64 win_ulldivrem(u64 a, u64 b, u64 *rem)
{
	if (!b) {
		pr_err_ratelimited("64-bit division by zero in a Windows driver (a divide error on Windows): quotient 0\n");
		*rem = a;
		return 0;
	}
	return div64_u64_rem(a, b, rem);
}

WIN_CDECL s64 win_lldivrem(s64 a, s64 b, s64 *rem)
{
	/* magnitudes as unsigned: |INT64_MIN| fits */
	u64 ua = a < 0 ? -(u64)a : (u64)a;
	u64 ub = b < 0 ? -(u64)b : (u64)b;
	u64 uq, ur;

	uq = win_ulldivrem(ua, ub, &ur);
	if (!ub) {
		*rem = a;
		return 0;
	}
	*rem = a < 0 ? -(s64)ur : (s64)ur;
	return (a < 0) != (b < 0) ? (s64)-uq : (s64)uq;
}

/* the low 64 bits of the product, the same signed or not */
static WIN_ABI s64 _allmul(s64 a, s64 b)
{
	return (s64)((u64)a * (u64)b);
}
WIN_FUNC_I386(_allmul);

/* not Microsoft's (its unsigned multiply is _allmul), but 1.63 had it */
static WIN_ABI u64 _aullmul(u64 a, u64 b)
{
	return a * b;
}
WIN_FUNC_I386(_aullmul);

static WIN_ABI s64 _alldiv(s64 a, s64 b)
{
	s64 rem;

	return win_lldivrem(a, b, &rem);
}
WIN_FUNC_I386(_alldiv);

static WIN_ABI s64 _allrem(s64 a, s64 b)
{
	s64 rem;

	win_lldivrem(a, b, &rem);
	return rem;
}
WIN_FUNC_I386(_allrem);

static WIN_ABI u64 _aulldiv(u64 a, u64 b)
{
	u64 rem;

	return win_ulldivrem(a, b, &rem);
}
WIN_FUNC_I386(_aulldiv);

static WIN_ABI u64 _aullrem(u64 a, u64 b)
{
	u64 rem;

	win_ulldivrem(a, b, &rem);
	return rem;
}
WIN_FUNC_I386(_aullrem);

/* crt_i386_32.S */
void _alldvrm(void);
void _aulldvrm(void);
void _allshl(void);
void _aullshl(void);
void _allshr(void);
void _aullshr(void);
WIN_FUNC_I386_ASM(_alldvrm);
WIN_FUNC_I386_ASM(_aulldvrm);
WIN_FUNC_I386_ASM(_allshl);
WIN_FUNC_I386_ASM(_aullshl);
WIN_FUNC_I386_ASM(_allshr);
WIN_FUNC_I386_ASM(_aullshr);
#endif
