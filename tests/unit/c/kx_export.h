/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A test's view of the wrapper's export table entries (winexport.h's
 * struct win_export, reduced to what the tests read): EXPORT(fn) declares
 * the entry win_export_<fn> the module defines and export_<fn>(), which
 * checks the entry's name and returns the function it points at.
 */
#ifndef KX_EXPORT_H
#define KX_EXPORT_H

#include "tap.h"

struct kx_export {
	const char *name;
	void *func;
};

#define EXPORT(fn)							\
	extern const struct kx_export win_export_##fn;			\
	static void *export_##fn(void)					\
	{								\
		CHECK_STR(win_export_##fn.name, #fn);			\
		return win_export_##fn.func;				\
	}

#endif
