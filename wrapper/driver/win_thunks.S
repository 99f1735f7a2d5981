/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: calls from Linux into Windows code (x86_64).
 *
 * The Windows x64 convention: the first four integer arguments in rcx,
 * rdx, r8 and r9, the rest on the stack above a 32-byte "shadow space"
 * the caller reserves for the callee, rsp 16-byte aligned at the call;
 * rax returns. The callee preserves rbx, rbp, rdi, rsi, r12-r15 and
 * xmm6-xmm15; it may clobber rax, rcx, rdx, r8-r11 and xmm0-xmm5.
 * Everything the System V convention lets a callee clobber is a superset
 * of that except rdi and rsi, which Windows preserves anyway, so a
 * System V caller loses nothing. The direction flag is clear in both.
 *
 * The other direction (Windows calling the functions the wrapper exports)
 * needs no assembly: those are C functions declared ms_abi (WIN_ABI in
 * wintypes.h); gcc then takes the arguments from rcx/rdx/r8/r9 and the
 * stack and saves rdi/rsi itself.
 *
 * xmm registers: the kernel is built without SSE, but a Windows driver
 * may use xmm0-15 freely (MSVC and mingw emit SSE for copies). The C side
 * (wincall.h) therefore brackets every call into Windows code with
 * kernel_fpu_begin()/kernel_fpu_end(): the task's user FPU state is saved
 * first, and no interrupt or softirq uses the FPU meanwhile. Inside that
 * bracket the Windows code may call back into our ms_abi functions: they
 * never touch xmm (no SSE in the kernel) and never sleep (kernel_fpu_begin
 * disables preemption), so the driver's callee-saved xmm6-15 survive.
 * Windows code is only called from process context (probe, workqueue,
 * threaded interrupt handler), never from hard or soft interrupts.
 *
 * objtool: win_call is an ordinary SYM_FUNC with a frame pointer, so the
 * stack realignment and the argument area are described by rbp; the
 * indirect call goes through CALL_NOSPEC (a retpoline where the kernel
 * uses them) and the return through RET (return thunk, SLS).
 * IBT: with CONFIG_X86_KERNEL_IBT (Debian's 6.12) on a CPU that enforces
 * it, an indirect call must land on an ENDBR64, and Windows code has
 * none, so the call below would raise #CP there. Not handled yet; the
 * plan is a per-image page of stubs "endbr64; jmp rel32 <target>" that
 * this call targets instead (a direct jmp is not tracked). The opposite
 * direction is fine: our exports are address-taken C functions, which
 * the compiler starts with ENDBR64. QEMU's TCG does not enforce IBT.
 */

#include <linux/linkage.h>
#include <asm/nospec-branch.h>

	.text

/*
 * u64 win_call(const void *fn, unsigned long nargs, const u64 *args)
 *
 * Calls fn(args[0], ..., args[nargs - 1]) with the Windows convention.
 * args has at least four entries (wincall.h pads), nargs <= 16.
 */
SYM_FUNC_START(win_call)
	push	%rbp
	mov	%rsp, %rbp
	push	%rbx
	push	%r12

	mov	%rdi, %rbx		/* fn */
	mov	%rdx, %r12		/* args */

	/* The argument area: max(nargs, 4) slots, rsp 16-byte aligned. */
	mov	%rsi, %rax
	cmp	$4, %rax
	jae	1f
	mov	$4, %eax
1:	shl	$3, %rax
	sub	%rax, %rsp
	and	$-16, %rsp

	/* Stack arguments 5..nargs; slots 0-3 are the shadow space. */
	mov	$4, %ecx
2:	cmp	%rsi, %rcx
	jae	3f
	mov	(%r12,%rcx,8), %rax
	mov	%rax, (%rsp,%rcx,8)
	inc	%rcx
	jmp	2b

3:	mov	0(%r12), %rcx
	mov	8(%r12), %rdx
	mov	16(%r12), %r8
	mov	24(%r12), %r9
	mov	%rbx, %rax
	CALL_NOSPEC rax

	lea	-16(%rbp), %rsp
	pop	%r12
	pop	%rbx
	pop	%rbp
	RET
SYM_FUNC_END(win_call)
