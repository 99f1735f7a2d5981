/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for the kernel's <linux/ioctl.h>: loader_abi.h's _IOW. */
#ifndef KMOCK_IOCTL_H
#define KMOCK_IOCTL_H
#define _IOC(dir, type, nr, size) \
	(((dir) << 30) | ((size) << 16) | ((type) << 8) | (nr))
#define _IOW(type, nr, t) _IOC(1U, (type), (nr), sizeof(t))
#endif
