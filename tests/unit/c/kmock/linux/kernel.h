/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_KERNEL_H
#define KMOCK_KERNEL_H
#include <linux/types.h>
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#endif
