/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/panic.h>: compat.h includes it; the files kmock
 * builds use nothing of it. */
#ifndef KMOCK_NTOS_PANIC_H
#define KMOCK_NTOS_PANIC_H
#endif
