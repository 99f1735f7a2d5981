/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/version.h>: kmock is the newest kernel API. */
#ifndef KMOCK_NTOS_VERSION_H
#define KMOCK_NTOS_VERSION_H
#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE	KERNEL_VERSION(7, 3, 0)
#endif
