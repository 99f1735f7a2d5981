/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/ctype.h>: compat.h includes it; the files kmock
 * builds use nothing of it. */
#ifndef KMOCK_NTOS_CTYPE_H
#define KMOCK_NTOS_CTYPE_H
#endif
