/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny TAP harness: CHECK() records a failure with file:line and goes on;
 * each TEST() prints "ok N - name" or "not ok N - name"; tap_done() prints
 * the plan and returns the exit status (non-zero when anything failed).
 */
#ifndef NDIS_TAP_H
#define NDIS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed, tap_cur_failed;

#define CHECK(cond) do {						\
		if (!(cond)) {						\
			printf("#   %s:%d: CHECK(%s) failed\n",		\
			       __FILE__, __LINE__, #cond);		\
			tap_cur_failed = 1;				\
		}							\
	} while (0)

#define CHECK_STR(a, b) do {						\
		const char *a_ = (a), *b_ = (b);			\
		if (!a_ || !b_ || strcmp(a_, b_)) {			\
			printf("#   %s:%d: '%s' != '%s'\n", __FILE__,	\
			       __LINE__, a_ ? a_ : "(null)",		\
			       b_ ? b_ : "(null)");			\
			tap_cur_failed = 1;				\
		}							\
	} while (0)

#define CHECK_CONTAINS(hay, needle) do {				\
		const char *h_ = (hay), *n_ = (needle);			\
		if (!h_ || !strstr(h_, n_)) {				\
			printf("#   %s:%d: '%s' does not contain '%s'\n",	\
			       __FILE__, __LINE__, h_ ? h_ : "(null)", n_); \
			tap_cur_failed = 1;				\
		}							\
	} while (0)

static inline void tap_run(const char *name, void (*fn)(void))
{
	tap_cur_failed = 0;
	fn();
	tap_n++;
	printf("%sok %d - %s\n", tap_cur_failed ? "not " : "", tap_n, name);
	fflush(stdout);
	tap_failed += tap_cur_failed;
}

static inline void tap_skip(const char *name, const char *why)
{
	tap_n++;
	printf("ok %d - %s # SKIP %s\n", tap_n, name, why);
}

#define TEST(fn) tap_run(#fn, fn)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d tests failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* NDIS_TAP_H */
