/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_NTOS_TIMEKEEPING_H
#define KMOCK_NTOS_TIMEKEEPING_H
#include <linux/ktime.h>
#endif
