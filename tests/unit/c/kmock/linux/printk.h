/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_PRINTK_H
#define KMOCK_PRINTK_H
/* the test program's log */
int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define KERN_WARNING	"\0014"
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define pr_warn(fmt, ...) printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn_ratelimited pr_warn
#endif
