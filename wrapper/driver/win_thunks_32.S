/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: calls from Linux into Windows code (i386). Kbuild takes this
 * file instead of win_thunks.S on a 32-bit kernel (CONFIG_X86_32).
 *
 * Windows on x86 has three calling conventions, all with the arguments on
 * the stack in 4-byte slots, pushed right to left (the first argument at
 * the lowest address), and the same register rules: the callee may
 * clobber eax, ecx and edx and preserves ebx, esi, edi and ebp; eax
 * returns 32 bits, edx:eax 64 bits. A 64-bit argument (LARGE_INTEGER,
 * NDIS_PHYSICAL_ADDRESS) takes two slots, low half first.
 *
 *  - stdcall (NTAPI, most of the DDK: every NDIS, Io, Ke, Ex, Mm function,
 *    DriverEntry, the miniport handlers): the callee pops its arguments
 *    (ret $N). N, the bytes of arguments, is the @N of the decorated name
 *    an i386 import library uses (_NdisMRegisterMiniport@12); the import
 *    table of a .sys holds the undecorated name (fixtures/lib/i386/).
 *  - fastcall (FASTCALL: HAL's Kf* spin locks, ntoskrnl's Iof* (IofCallDriver,
 *    IofCompleteRequest), Kef*, ObfDereferenceObject and the Interlocked
 *    family): the first two 32-bit arguments in ecx and edx, the rest on
 *    the stack, popped by the callee; decorated @Name@N.
 *  - cdecl (the C runtime the kernel exports: memcpy, memset, sprintf,
 *    DbgPrint and every variadic function): the caller pops.
 *
 * The Linux i386 kernel is built with -mregparm=3 (the first three
 * arguments in eax, edx, ecx), which is none of these: every function the
 * wrapper exports to Windows code must say which convention it follows
 * (stdcall, fastcall, or regparm(0) for cdecl), and the functions here are
 * asmlinkage (regparm(0): their own arguments on the stack).
 *
 * Linux's i386 convention preserves the same four registers, so a C
 * caller loses nothing. Both conventions keep the direction flag clear.
 *
 * Stack: Windows x86 code needs only 4-byte alignment (MSVC realigns where
 * it needs more); esp is 16-byte aligned at the call here anyway, which
 * also suits gcc-built drivers. Whether the callee popped its arguments
 * or not, esp is restored from ebp afterwards, so a convention mismatch
 * cannot unbalance the caller's stack.
 *
 * FPU and SSE: as on x86_64 (win_thunks.S), wincall.h brackets every call
 * into Windows code with kernel_fpu_begin()/kernel_fpu_end(): the task's
 * x87/SSE state is saved first. On i386 kernel_fpu_begin() also runs
 * fninit, so the x87 control word is 0x37f (64-bit precision) where
 * Windows sets 0x27f (53-bit): a driver computing in long double would see
 * more precision than on Windows, nothing worse.
 *
 * Windows code is only called from process context (probe, workqueue,
 * threaded interrupt handler), never from hard or soft interrupts.
 */

#include <linux/linkage.h>
#include <asm/nospec-branch.h>

	.text

/*
 * u64 win_call(const void *fn, unsigned long nargs, const u64 *args)
 *
 * Calls fn(args[0], ..., args[nargs - 1]), stdcall or cdecl: one 4-byte
 * stack slot per args[] entry (its low half; a 64-bit argument is two
 * entries), esp 16-byte aligned at the call. Returns edx:eax.
 */
SYM_FUNC_START(win_call)
	push	%ebp
	mov	%esp, %ebp
	push	%ebx
	push	%esi
	push	%edi

	mov	12(%ebp), %ecx		/* nargs */
	mov	16(%ebp), %esi		/* args */

	/* nargs slots, esp 16-byte aligned */
	lea	0(,%ecx,4), %eax
	sub	%eax, %esp
	and	$-16, %esp

	xor	%edx, %edx
1:	cmp	%ecx, %edx
	jae	2f
	mov	(%esi,%edx,8), %eax
	mov	%eax, (%esp,%edx,4)
	inc	%edx
	jmp	1b

2:	mov	8(%ebp), %eax
	CALL_NOSPEC eax

	/* stdcall popped its slots, cdecl did not: restore from ebp */
	lea	-12(%ebp), %esp
	pop	%edi
	pop	%esi
	pop	%ebx
	pop	%ebp
	RET
SYM_FUNC_END(win_call)

/*
 * u64 win_fastcall(const void *fn, unsigned long nargs, const u64 *args)
 *
 * Calls the fastcall fn(args[0], ..., args[nargs - 1]): args[0] in ecx,
 * args[1] in edx, the rest in stack slots as for win_call. args has at
 * least two entries (the caller pads), nargs may be smaller.
 */
SYM_FUNC_START(win_fastcall)
	push	%ebp
	mov	%esp, %ebp
	push	%ebx
	push	%esi
	push	%edi

	mov	12(%ebp), %ecx		/* nargs */
	mov	16(%ebp), %esi		/* args */

	/* stack arguments: max(nargs - 2, 0) */
	xor	%ebx, %ebx
	cmp	$2, %ecx
	jbe	1f
	lea	-2(%ecx), %ebx
1:	lea	0(,%ebx,4), %eax
	sub	%eax, %esp
	and	$-16, %esp

	xor	%edx, %edx
2:	cmp	%ebx, %edx
	jae	3f
	mov	16(%esi,%edx,8), %eax	/* args[2 + i] */
	mov	%eax, (%esp,%edx,4)
	inc	%edx
	jmp	2b

3:	mov	8(%ebp), %eax
	mov	0(%esi), %ecx
	mov	8(%esi), %edx
	CALL_NOSPEC eax

	lea	-12(%ebp), %esp
	pop	%edi
	pop	%esi
	pop	%ebx
	pop	%ebp
	RET
SYM_FUNC_END(win_fastcall)
