/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/linkage.h>: x86-64's asmlinkage adds nothing. */
#ifndef KMOCK_NTOS_LINKAGE_H
#define KMOCK_NTOS_LINKAGE_H
#define asmlinkage
#endif
