// SPDX-License-Identifier: GPL-2.0
/*
 * ndisbench_oops: a module whose init dereferences NULL, in the process
 * context of the agent's finit_module() (as a wrapper's PE loader does on
 * a malformed driver). The kernel kills the task; the `survive` check
 * wants the agent's later tests to run all the same and the oops charged
 * to the test that loaded it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/module.h>

static noinline int ndisbench_oops_read(int *p)
{
	OPTIMIZER_HIDE_VAR(p);
	return READ_ONCE(*p);
}

static int __init ndisbench_oops_init(void)
{
	pr_info("dereferencing NULL in module init\n");
	return ndisbench_oops_read(NULL);
}

module_init(ndisbench_oops_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ndisbench: oopses as it loads, for the survive check");
