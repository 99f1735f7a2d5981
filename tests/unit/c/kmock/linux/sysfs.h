/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_SYSFS_H
#define KMOCK_SYSFS_H
/* buf is a PAGE_SIZE sysfs buffer; returns the length written */
int sysfs_emit(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#endif
