// SPDX-License-Identifier: GPL-2.0
/*
 * i386 ntoskrnl.exe's 64-bit arithmetic helpers (wrapper/driver/crt_i386.c
 * and crt_i386_32.S), built -m32 -DCONFIG_X86_32 against kmock as an i386
 * kernel builds them, run under qemu-i386 and called through their export
 * entries with the register and stack contents MSVC-compiled code gives
 * them (arith_call_stack, arith_call_regs below): the results in edx:eax
 * (and ebx:ecx for the dvrm pair), the stack the callee pops, and the
 * callee-saved registers (except ebx where the result lives) checked.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kx_export.h"
#include "tap.h"

/* -- what the module gives crt_i386.c -------------------------------------- */

static char printk_last[256];
static int printk_count;

int printk(const char *fmt, ...);

int printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(printk_last, sizeof(printk_last), fmt, ap);
	va_end(ap);
	printk_count++;
	return 0;
}

/* -- the calls as MSVC code makes them -------------------------------------- */

/* the registers after the call, and how far esp moved (0: callee popped) */
uint32_t arith_fn, arith_sp_before, arith_sp_after;
uint32_t arith_eax, arith_edx, arith_ebx, arith_ecx, arith_esi, arith_edi;
uint32_t arith_in[4];

void arith_call_stack(void);
void arith_call_regs(void);

/*
 * arith_call_stack: pushes arith_in[3..0] (two 64-bit operands, low half
 * first, the first operand lowest) and calls arith_fn (stdcall).
 * arith_call_regs: calls arith_fn with edx:eax = arith_in[1]:arith_in[0]
 * and ecx = arith_in[2], nothing on the stack. Both load ebx, esi, edi
 * and ebp with markers and record the registers after the call.
 */
__asm__(
	".text\n"
	".globl arith_call_stack\n"
	"arith_call_stack:\n"
	"	push %ebp\n"
	"	push %ebx\n"
	"	push %esi\n"
	"	push %edi\n"
	"	mov $0x5a5a5a5a, %ebx\n"
	"	mov $0x6b6b6b6b, %esi\n"
	"	mov $0x7c7c7c7c, %edi\n"
	"	mov $0x0d0d0d0d, %ebp\n"
	"	mov %esp, arith_sp_before\n"
	"	push arith_in+12\n"
	"	push arith_in+8\n"
	"	push arith_in+4\n"
	"	push arith_in\n"
	"	call *arith_fn\n"
	"	jmp 1f\n"
	".globl arith_call_regs\n"
	"arith_call_regs:\n"
	"	push %ebp\n"
	"	push %ebx\n"
	"	push %esi\n"
	"	push %edi\n"
	"	mov $0x5a5a5a5a, %ebx\n"
	"	mov $0x6b6b6b6b, %esi\n"
	"	mov $0x7c7c7c7c, %edi\n"
	"	mov $0x0d0d0d0d, %ebp\n"
	"	mov %esp, arith_sp_before\n"
	"	mov arith_in, %eax\n"
	"	mov arith_in+4, %edx\n"
	"	mov arith_in+8, %ecx\n"
	"	call *arith_fn\n"
	"1:	mov %esp, arith_sp_after\n"
	"	mov %eax, arith_eax\n"
	"	mov %edx, arith_edx\n"
	"	mov %ebx, arith_ebx\n"
	"	mov %ecx, arith_ecx\n"
	"	mov %esi, arith_esi\n"
	"	mov %edi, arith_edi\n"
	"	cmp $0x0d0d0d0d, %ebp\n"
	"	je 2f\n"
	"	movl $0, arith_esi\n"	/* ebp lost: fail the esi check */
	"2:	mov arith_sp_before, %esp\n"
	"	pop %edi\n"
	"	pop %esi\n"
	"	pop %ebx\n"
	"	pop %ebp\n"
	"	ret\n");

static uint64_t edx_eax(void)
{
	return (uint64_t)arith_edx << 32 | arith_eax;
}

static uint64_t ebx_ecx(void)
{
	return (uint64_t)arith_ebx << 32 | arith_ecx;
}

static bool saved_regs_kept(bool ebx_too)
{
	return arith_sp_after == arith_sp_before &&
	       arith_esi == 0x6b6b6b6b && arith_edi == 0x7c7c7c7c &&
	       (!ebx_too || arith_ebx == 0x5a5a5a5a);
}

/* fn(a, b) stdcall; the result in edx:eax */
static uint64_t call2(void *fn, uint64_t a, uint64_t b)
{
	arith_fn = (uint32_t)(uintptr_t)fn;
	arith_in[0] = (uint32_t)a;
	arith_in[1] = (uint32_t)(a >> 32);
	arith_in[2] = (uint32_t)b;
	arith_in[3] = (uint32_t)(b >> 32);
	arith_call_stack();
	return edx_eax();
}

/* fn with the value in edx:eax and the count in ecx; the result in edx:eax */
static uint64_t shift(void *fn, uint64_t v, uint32_t ecx)
{
	arith_fn = (uint32_t)(uintptr_t)fn;
	arith_in[0] = (uint32_t)v;
	arith_in[1] = (uint32_t)(v >> 32);
	arith_in[2] = ecx;
	arith_call_regs();
	return edx_eax();
}

#define S(x) ((uint64_t)(int64_t)(x))

/* -- the tests ------------------------------------------------------------- */

EXPORT(_allmul)
EXPORT(_aullmul)
EXPORT(_alldiv)
EXPORT(_allrem)
EXPORT(_aulldiv)
EXPORT(_aullrem)
EXPORT(_alldvrm)
EXPORT(_aulldvrm)
EXPORT(_allshl)
EXPORT(_aullshl)
EXPORT(_allshr)
EXPORT(_aullshr)

static void test_multiply(void)
{
	void *fns[2] = { export__allmul(), export__aullmul() };

	/* the low 64 bits of the product: one answer signed or not */
	for (int i = 0; i < 2; i++) {
		CHECK(call2(fns[i], 3, S(-7)) == S(-21));
		CHECK(saved_regs_kept(true));
		CHECK(call2(fns[i], S(-3), S(-7)) == 21);
		CHECK(call2(fns[i], 0xffffffffULL, 0xffffffffULL) ==
		      0xfffffffe00000001ULL);
		CHECK(call2(fns[i], 0x123456789ULL, 0x10000ULL) ==
		      0x1234567890000ULL);
		CHECK(call2(fns[i], 1ULL << 32, 1ULL << 32) == 0);
		CHECK(call2(fns[i], S(INT64_MIN), S(-1)) == S(INT64_MIN));
		CHECK(saved_regs_kept(true));
	}
}

static void test_signed_divide(void)
{
	void *div = export__alldiv(), *rem = export__allrem();

	/* C's truncation toward zero; the remainder has the dividend's sign */
	CHECK(call2(div, S(-7), 2) == S(-3));
	CHECK(saved_regs_kept(true));
	CHECK(call2(rem, S(-7), 2) == S(-1));
	CHECK(saved_regs_kept(true));
	CHECK(call2(div, 7, S(-2)) == S(-3) && call2(rem, 7, S(-2)) == 1);
	CHECK(call2(div, S(-7), S(-2)) == 3 && call2(rem, S(-7), S(-2)) ==
	      S(-1));
	/* a divisor wider than 32 bits */
	CHECK(call2(div, S(INT64_MAX), 0x100000001ULL) == 0x7fffffffULL);
	CHECK(call2(rem, S(INT64_MAX), 0x100000001ULL) == 0x80000000ULL);
	CHECK(call2(div, S(-1000000000000LL), S(-3000000000LL)) == 333);
	CHECK(call2(rem, S(-1000000000000LL), S(-3000000000LL)) ==
	      S(-1000000000LL));
	/* INT64_MIN / -1 wraps to INT64_MIN (no divide error), remainder 0 */
	CHECK(call2(div, S(INT64_MIN), S(-1)) == S(INT64_MIN));
	CHECK(call2(rem, S(INT64_MIN), S(-1)) == 0);
	CHECK(call2(div, S(INT64_MIN), 2) == S(INT64_MIN / 2));
	CHECK(saved_regs_kept(true));
}

static void test_unsigned_divide(void)
{
	void *div = export__aulldiv(), *rem = export__aullrem();

	CHECK(call2(div, UINT64_MAX, 3) == 0x5555555555555555ULL);
	CHECK(saved_regs_kept(true));
	CHECK(call2(rem, UINT64_MAX, 10) == 5);
	CHECK(saved_regs_kept(true));
	/* no sign: what _alldiv takes for -1 / 2 */
	CHECK(call2(div, UINT64_MAX, 2) == 0x7fffffffffffffffULL);
	CHECK(call2(div, UINT64_MAX, 1ULL << 32) == 0xffffffffULL);
	CHECK(call2(rem, UINT64_MAX, 1ULL << 32) == 0xffffffffULL);
	CHECK(call2(div, 0xfffffffffffffffeULL, UINT64_MAX) == 0);
	CHECK(call2(rem, 0xfffffffffffffffeULL, UINT64_MAX) ==
	      0xfffffffffffffffeULL);
	CHECK(call2(div, 5, 7) == 0 && call2(rem, 5, 7) == 5);
}

static void test_divide_and_remainder(void)
{
	void *sdvrm = export__alldvrm(), *udvrm = export__aulldvrm();

	/* the quotient in edx:eax, the remainder in ebx:ecx */
	CHECK(call2(sdvrm, S(-1000000000000LL), 7) == S(-142857142857LL));
	CHECK(ebx_ecx() == S(-1));
	CHECK(saved_regs_kept(false));
	CHECK(call2(sdvrm, S(INT64_MIN), S(-1)) == S(INT64_MIN));
	CHECK(ebx_ecx() == 0);
	CHECK(call2(udvrm, UINT64_MAX, 0x100000001ULL) == 0xffffffffULL);
	CHECK(ebx_ecx() == 0);
	CHECK(saved_regs_kept(false));
	CHECK(call2(udvrm, 0x123456789abcdefULL, 0x10000ULL) ==
	      0x123456789abULL);
	CHECK(ebx_ecx() == 0xcdefULL);
}

static void test_divide_by_zero(void)
{
	void *fns[6] = { export__alldiv(), export__allrem(), export__aulldiv(),
			 export__aullrem(), export__alldvrm(),
			 export__aulldvrm() };

	/* a divide error on Windows: here logged, quotient 0, remainder the
	 * dividend, and the kernel goes on */
	for (int i = 0; i < 6; i++) {
		int before = printk_count;
		uint64_t got = call2(fns[i], 1234, 0);

		CHECK(printk_count == before + 1);
		CHECK_CONTAINS(printk_last, "division by zero");
		CHECK(saved_regs_kept(i < 4));
		if (i == 1 || i == 3)
			CHECK(got == 1234);
		else
			CHECK(got == 0);
		if (i >= 4)
			CHECK(ebx_ecx() == 1234);
	}
}

static void test_shift_left(void)
{
	void *fns[2] = { export__allshl(), export__aullshl() };

	for (int i = 0; i < 2; i++) {
		void *shl = fns[i];

		CHECK(shift(shl, 0x8000000180000001ULL, 0) ==
		      0x8000000180000001ULL);
		CHECK(saved_regs_kept(true));
		CHECK(shift(shl, 0x8000000180000001ULL, 1) ==
		      0x0000000300000002ULL);
		CHECK(shift(shl, 0x00000000ffffffffULL, 31) ==
		      0x7fffffff80000000ULL);
		CHECK(shift(shl, 0x00000000ffffffffULL, 32) ==
		      0xffffffff00000000ULL);
		CHECK(shift(shl, 0x00000000ffffffffULL, 33) ==
		      0xfffffffe00000000ULL);
		CHECK(shift(shl, 1, 63) == 0x8000000000000000ULL);
		/* 64 and more: everything shifted out */
		CHECK(shift(shl, UINT64_MAX, 64) == 0);
		CHECK(shift(shl, UINT64_MAX, 200) == 0);
		/* the count is cl alone */
		CHECK(shift(shl, 1, 0xffffff04) == 16);
		CHECK(saved_regs_kept(true));
	}
}

static void test_shift_right(void)
{
	void *sar = export__allshr(), *shr = export__aullshr();

	/* _allshr: arithmetic, the sign bit copied in */
	CHECK(shift(sar, S(-256), 4) == S(-16));
	CHECK(saved_regs_kept(true));
	CHECK(shift(sar, 0x8000000000000000ULL, 31) == 0xffffffff00000000ULL);
	CHECK(shift(sar, 0x8000000000000000ULL, 32) == 0xffffffff80000000ULL);
	CHECK(shift(sar, 0x8000000000000000ULL, 63) == UINT64_MAX);
	CHECK(shift(sar, 0x4000000000000000ULL, 62) == 1);
	CHECK(shift(sar, 0x7fffffff00000000ULL, 33) == 0x3fffffffULL);
	CHECK(shift(sar, S(-5), 64) == UINT64_MAX);
	CHECK(shift(sar, 5, 100) == 0);
	CHECK(shift(sar, S(-256), 0xabcdef04) == S(-16));
	CHECK(saved_regs_kept(true));
	/* _aullshr: logical, zeros in */
	CHECK(shift(shr, 0x8000000000000000ULL, 31) == 0x0000000100000000ULL);
	CHECK(saved_regs_kept(true));
	CHECK(shift(shr, 0x8000000000000000ULL, 32) == 0x80000000ULL);
	CHECK(shift(shr, 0x8000000000000000ULL, 63) == 1);
	CHECK(shift(shr, 0xfedcba9876543210ULL, 4) == 0x0fedcba987654321ULL);
	CHECK(shift(shr, 0xfedcba9876543210ULL, 0) == 0xfedcba9876543210ULL);
	CHECK(shift(shr, UINT64_MAX, 64) == 0);
	CHECK(shift(shr, UINT64_MAX, 0x104) == 0x0fffffffffffffffULL);
	CHECK(saved_regs_kept(true));
}

int main(void)
{
	TEST(test_multiply);
	TEST(test_signed_divide);
	TEST(test_unsigned_divide);
	TEST(test_divide_and_remainder);
	TEST(test_divide_by_zero);
	TEST(test_shift_left);
	TEST(test_shift_right);
	return tap_done();
}
