/* SPDX-License-Identifier: GPL-2.0 */
/* Stand-in for <linux/err.h>: an errno in a pointer's last page. */
#ifndef KMOCK_NTOS_ERR_H
#define KMOCK_NTOS_ERR_H
#include <linux/types.h>
#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error)
{
	return (void *)error;
}
static inline bool IS_ERR(const void *ptr)
{
	return IS_ERR_VALUE(ptr);
}
#endif
