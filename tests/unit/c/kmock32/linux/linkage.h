/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's SYM_FUNC_START/END for a host build of
 * wrapper/driver/win_thunks_32.S (test_thunks32, gcc -m32).
 */
#ifndef KMOCK32_LINKAGE_H
#define KMOCK32_LINKAGE_H
#ifdef __ASSEMBLER__
#define SYM_FUNC_START(name)	.globl name; .type name, @function; .p2align 4; name:
#define SYM_FUNC_END(name)	.size name, . - name
#endif
#endif
