/* SPDX-License-Identifier: GPL-2.0 */
/* kmock's <linux/printk.h> and the error level (to the test's printk). */
#ifndef KMOCK_NTOS_PRINTK_H
#define KMOCK_NTOS_PRINTK_H
#include_next <linux/printk.h>
#define KERN_ERR	"\0013"
#define pr_err(fmt, ...) printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err_ratelimited(fmt, ...) pr_err(fmt, ##__VA_ARGS__)
#endif
