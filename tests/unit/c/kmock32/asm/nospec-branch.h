/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CALL_NOSPEC and RET as the kernel spells them without retpolines and
 * return thunks, for the host build of win_thunks_32.S.
 */
#ifndef KMOCK32_NOSPEC_BRANCH_H
#define KMOCK32_NOSPEC_BRANCH_H
#ifdef __ASSEMBLER__
.macro CALL_NOSPEC reg:req
	call	*%\reg
.endm
#define RET	ret
#endif
#endif
