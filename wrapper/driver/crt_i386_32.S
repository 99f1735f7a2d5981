/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: the i386 64-bit arithmetic helpers that follow no C
 * calling convention (crt_i386.c has the stdcall ones and says why
 * drivers import them). Built on a 32-bit kernel only.
 *
 *  - _allshl, _aullshl (left), _allshr (arithmetic right), _aullshr
 *    (logical right): the value in edx:eax, the count in cl (the rest of
 *    ecx is ignored), the result in edx:eax; nothing on the stack. A count
 *    of 64 or more shifts everything out (0, or the sign for _allshr).
 *    Only eax, ecx and edx change.
 *  - _alldvrm, _aulldvrm: stdcall like _alldiv (two 64-bit operands on
 *    the stack, 16 bytes popped), the quotient in edx:eax and the
 *    remainder in ebx:ecx, so ebx is not preserved; esi, edi and ebp are.
 */

#include <linux/linkage.h>
#include <asm/nospec-branch.h>

	.text

SYM_FUNC_START(_allshl)
	cmpb	$64, %cl
	jae	2f
	cmpb	$32, %cl
	jae	1f
	shld	%cl, %eax, %edx
	shl	%cl, %eax
	RET
1:	mov	%eax, %edx
	xor	%eax, %eax
	shl	%cl, %edx		/* the count mod 32 */
	RET
2:	xor	%eax, %eax
	xor	%edx, %edx
	RET
SYM_FUNC_END(_allshl)

/* 1.63 exported it; MSVC's code calls _allshl for unsigned values too */
SYM_FUNC_START(_aullshl)
	jmp	_allshl
SYM_FUNC_END(_aullshl)

SYM_FUNC_START(_allshr)
	cmpb	$64, %cl
	jae	2f
	cmpb	$32, %cl
	jae	1f
	shrd	%cl, %edx, %eax
	sar	%cl, %edx
	RET
1:	mov	%edx, %eax
	sar	$31, %edx
	sar	%cl, %eax		/* the count mod 32 */
	RET
2:	sar	$31, %edx
	mov	%edx, %eax
	RET
SYM_FUNC_END(_allshr)

SYM_FUNC_START(_aullshr)
	cmpb	$64, %cl
	jae	2f
	cmpb	$32, %cl
	jae	1f
	shrd	%cl, %edx, %eax
	shr	%cl, %edx
	RET
1:	mov	%edx, %eax
	xor	%edx, %edx
	shr	%cl, %eax		/* the count mod 32 */
	RET
2:	xor	%eax, %eax
	xor	%edx, %edx
	RET
SYM_FUNC_END(_aullshr)

/*
 * The dvrm pair: divider(a, b, &rem) (crt_i386.c, regparm(0)) with the
 * remainder in a local, then ebx:ecx from it.
 */
.macro DVRM name:req, divider:req
SYM_FUNC_START(\name)
	push	%ebp
	mov	%esp, %ebp
	sub	$8, %esp		/* the remainder */
	mov	%esp, %eax
	push	%eax
	push	20(%ebp)		/* b, high half */
	push	16(%ebp)
	push	12(%ebp)		/* a, high half */
	push	8(%ebp)
	call	\divider
	mov	-8(%ebp), %ecx
	mov	-4(%ebp), %ebx
	mov	%ebp, %esp
	pop	%ebp
	ret	$16
SYM_FUNC_END(\name)
.endm

DVRM _alldvrm, win_lldivrem
DVRM _aulldvrm, win_ulldivrem
