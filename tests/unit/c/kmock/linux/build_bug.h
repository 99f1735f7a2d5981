/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_BUILD_BUG_H
#define KMOCK_BUILD_BUG_H
/* static_assert(expr) or static_assert(expr, msg), as the kernel's */
#define static_assert(expr, ...) __kmock_static_assert(expr, ##__VA_ARGS__, #expr)
#define __kmock_static_assert(expr, msg, ...) _Static_assert(expr, msg)
#endif
