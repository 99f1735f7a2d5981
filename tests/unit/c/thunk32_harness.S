/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_thunks32's caller (gcc -m32): calls a thunk of win_thunks_32.S the
 * way the kernel does (asmlinkage: its three arguments on the stack) with
 * sentinel values in the callee-saved ebx, esi, edi and ebp, and records
 * them and esp after the thunk returns.
 *
 * u64 harness_call(void *thunk, const void *fn, unsigned long nargs,
 *                  const u64 *args)
 * After it: harness_regs[0..3] = ebx, esi, edi, ebp after the thunk;
 * harness_regs[4] = esp before the call, harness_regs[5] = after it.
 */
	.data
	.p2align 2
	.globl	harness_regs
harness_regs:
	.long	0, 0, 0, 0, 0, 0
saved_esp:
	.long	0

	.text
	.globl	harness_call
	.type	harness_call, @function
harness_call:
	push	%ebp
	push	%ebx
	push	%esi
	push	%edi
	mov	%esp, saved_esp
	/* our arguments at 20(%esp): thunk, fn, nargs, args */
	push	32(%esp)		/* args */
	push	32(%esp)		/* nargs */
	push	32(%esp)		/* fn */
	mov	saved_esp, %eax
	mov	20(%eax), %eax		/* thunk */
	mov	%esp, harness_regs + 16
	mov	$0x11111111, %ebx
	mov	$0x22222222, %esi
	mov	$0x33333333, %edi
	mov	$0x44444444, %ebp
	call	*%eax
	mov	%ebx, harness_regs
	mov	%esi, harness_regs + 4
	mov	%edi, harness_regs + 8
	mov	%ebp, harness_regs + 12
	mov	%esp, harness_regs + 20
	mov	saved_esp, %esp
	pop	%edi
	pop	%esi
	pop	%ebx
	pop	%ebp
	ret
	.size	harness_call, . - harness_call

	.section .note.GNU-stack, "", @progbits
