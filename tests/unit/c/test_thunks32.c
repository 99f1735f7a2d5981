// SPDX-License-Identifier: GPL-2.0
/*
 * The i386 thunks of wrapper/driver/win_thunks_32.S, built for the host
 * with gcc -m32 (kmock32/ stands in for the kernel's linkage and
 * nospec-branch headers): stdcall, fastcall and cdecl functions with many
 * arguments, called through win_call/win_fastcall from thunk32_harness.S
 * with sentinels in ebx, esi, edi and ebp. After each call those four and
 * esp must be as before, whatever the callee popped; each callee checks
 * its arguments, their slots and esp's 16-byte alignment at the call.
 */
#include <stdint.h>
#include <string.h>

#include "tap.h"

typedef uint64_t u64;

#define ASMLINKAGE __attribute__((regparm(0)))
ASMLINKAGE u64 win_call(const void *fn, unsigned long nargs, const u64 *args);
ASMLINKAGE u64 win_fastcall(const void *fn, unsigned long nargs,
			    const u64 *args);
u64 harness_call(void *thunk, const void *fn, unsigned long nargs,
		 const u64 *args);
extern uint32_t harness_regs[6];

#define STDCALL __attribute__((stdcall))
#define FASTCALL __attribute__((fastcall))
#define CDECL __attribute__((cdecl))

static uint32_t seen[16];
static unsigned int seen_n;
static int misaligned;

/* the first stack argument's slot: 4 above the return address, so the
 * slot is 16-byte aligned when esp was at the call */
static void stack_at(const void *first_slot)
{
	misaligned = ((uintptr_t)first_slot & 15) != 0;
}

#define RECORD12() do {							\
		uint32_t v[12] = { a1, a2, a3, a4, a5, a6, a7, a8, a9,	\
				   a10, a11, a12 };			\
		memcpy(seen, v, sizeof(v));				\
		seen_n = 12;						\
	} while (0)

#define ARGS12 uint32_t a1, uint32_t a2, uint32_t a3, uint32_t a4,	\
	uint32_t a5, uint32_t a6, uint32_t a7, uint32_t a8, uint32_t a9, \
	uint32_t a10, uint32_t a11, uint32_t a12

/* clobbers what a Windows callee may: eax, ecx, edx */
#define CLOBBER() __asm__ volatile("" ::: "eax", "ecx", "edx", "memory")

static STDCALL __attribute__((noinline)) u64 std12(ARGS12)
{
	CLOBBER();
	stack_at(&a1);
	RECORD12();
	return (u64)0xfeedface << 32 | (a1 ^ a12);
}

static FASTCALL __attribute__((noinline)) u64 fast12(ARGS12)
{
	CLOBBER();
	stack_at(&a3);		/* a1, a2 came in ecx and edx */
	RECORD12();
	return (u64)0xdeadbeef << 32 | (a2 + a11);
}

static CDECL __attribute__((noinline)) u64 cdecl12(ARGS12)
{
	CLOBBER();
	stack_at(&a1);
	RECORD12();
	return a3;
}

static STDCALL __attribute__((noinline)) uint32_t std0(void)
{
	seen_n = 0;
	return 0x600d;
}

static FASTCALL __attribute__((noinline)) uint32_t fast1(uint32_t a1)
{
	seen[0] = a1;
	seen_n = 1;
	return a1 + 1;
}

/* a 64-bit argument takes two slots, low half first: @16 */
static STDCALL __attribute__((noinline)) u64 std_wide(uint32_t a, u64 b,
							  uint32_t c)
{
	stack_at(&a);
	seen[0] = a;
	seen[1] = (uint32_t)b;
	seen[2] = (uint32_t)(b >> 32);
	seen[3] = c;
	seen_n = 4;
	return b + 1;
}

static const u64 args12[12] = {
	0x01010101, 0x02020202, 0x03030303, 0x04040404, 0x05050505,
	0x06060606, 0x07070707, 0x08080808, 0x09090909, 0x0a0a0a0a,
	0x0b0b0b0b, 0x0c0c0c0c,
};

/* what harness_call saw: the callee-saved registers and esp unchanged */
static void check_regs(const char *what)
{
	static const uint32_t want[4] = {
		0x11111111, 0x22222222, 0x33333333, 0x44444444 };
	static const char *const names[4] = { "ebx", "esi", "edi", "ebp" };
	int i;

	for (i = 0; i < 4; i++)
		if (harness_regs[i] != want[i]) {
			printf("#   %s: %s 0x%08x after the call (was 0x%08x)\n",
			       what, names[i], harness_regs[i], want[i]);
			tap_cur_failed = 1;
		}
	if (harness_regs[4] != harness_regs[5]) {
		printf("#   %s: esp 0x%08x after the call, 0x%08x before\n",
		       what, harness_regs[5], harness_regs[4]);
		tap_cur_failed = 1;
	}
}

static void check_seen12(void)
{
	unsigned int i;

	CHECK(seen_n == 12);
	for (i = 0; i < 12; i++)
		if (seen[i] != (uint32_t)args12[i]) {
			printf("#   argument %u: 0x%08x, want 0x%08x\n", i + 1,
			       seen[i], (uint32_t)args12[i]);
			tap_cur_failed = 1;
		}
	CHECK(!misaligned);
}

static void test_stdcall(void)
{
	u64 r;

	memset(seen, 0, sizeof(seen));
	r = harness_call((void *)win_call, (const void *)std12, 12, args12);
	check_regs("stdcall, 12 arguments (callee pops 48)");
	check_seen12();
	CHECK(r == ((u64)0xfeedface << 32 | (0x01010101 ^ 0x0c0c0c0c)));

	r = harness_call((void *)win_call, (const void *)std0, 0, args12);
	check_regs("stdcall, no argument");
	CHECK(r == 0x600d && seen_n == 0);
}

static void test_fastcall(void)
{
	static const u64 one[2] = { 41, 0 };
	u64 r;

	memset(seen, 0, sizeof(seen));
	r = harness_call((void *)win_fastcall, (const void *)fast12, 12, args12);
	check_regs("fastcall, 12 arguments (ecx, edx, callee pops 40)");
	check_seen12();
	CHECK(r == ((u64)0xdeadbeef << 32 | (0x02020202 + 0x0b0b0b0b)));

	r = harness_call((void *)win_fastcall, (const void *)fast1, 1, one);
	check_regs("fastcall, 1 argument (ecx only)");
	CHECK((uint32_t)r == 42 && seen_n == 1 && seen[0] == 41);
}

/* the caller pops: win_call restores esp itself */
static void test_cdecl(void)
{
	u64 r;

	memset(seen, 0, sizeof(seen));
	r = harness_call((void *)win_call, (const void *)cdecl12, 12, args12);
	check_regs("cdecl, 12 arguments (callee pops none)");
	check_seen12();
	CHECK((uint32_t)r == 0x03030303);
}

static void test_wide_argument(void)
{
	static const u64 a[4] = { 7, 0x89abcdef, 0x01234567, 9 };
	u64 r;

	r = harness_call((void *)win_call, (const void *)std_wide, 4, a);
	check_regs("stdcall with a 64-bit argument");
	CHECK(seen_n == 4 && seen[0] == 7 && seen[1] == 0x89abcdef &&
	      seen[2] == 0x01234567 && seen[3] == 9);
	CHECK(r == 0x0123456789abcdf0ull);
	CHECK(!misaligned);
}

/* every argument count, both thunks: esp and registers always balance */
static void test_every_count(void)
{
	unsigned long n;

	for (n = 0; n <= 12; n++) {
		harness_call((void *)win_call, (const void *)cdecl12, n, args12);
		check_regs("cdecl, any count");
		harness_call((void *)win_fastcall, (const void *)fast1, n, args12);
		check_regs("fastcall, any count");
	}
}

int main(void)
{
	TEST(test_stdcall);
	TEST(test_fastcall);
	TEST(test_cdecl);
	TEST(test_wide_argument);
	TEST(test_every_count);
	return tap_done();
}
