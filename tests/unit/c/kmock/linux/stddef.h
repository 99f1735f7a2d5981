/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_STDDEF_H
#define KMOCK_STDDEF_H
#include <linux/types.h>
enum { false = 0, true = 1 };
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
