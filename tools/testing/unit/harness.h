/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny test harness: each test is a function returning true on success;
 * CHECK() reports the first failed condition of a test as a KTAP
 * diagnostic and fails the test. The runner prints KTAP lines and a
 * summary "N passed, M failed", and exits non-zero when anything failed.
 */
#ifndef _ARS_UNIT_HARNESS_H
#define _ARS_UNIT_HARNESS_H

#include <stdbool.h>
#include <stdio.h>

struct unit_test {
	const char *name;
	bool (*fn)(void);
};

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("    # %s:%d: CHECK(%s) failed\n",	\
			       __FILE__, __LINE__, #cond);		\
			return false;					\
		}							\
	} while (0)

/* Like CHECK(), with a printf-style explanation of the values. */
#define CHECKF(cond, fmt, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("    # %s:%d: CHECK(%s) failed: " fmt "\n", \
			       __FILE__, __LINE__, #cond, __VA_ARGS__);	\
			return false;					\
		}							\
	} while (0)

#define UNIT_TEST(f)	{ #f, f }
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static inline int unit_run(const struct unit_test *t, unsigned int n)
{
	unsigned int i, failed = 0;

	printf("KTAP version 1\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		bool ok = t[i].fn();

		failed += !ok;
		printf("%sok %u - %s\n", ok ? "" : "not ", i + 1, t[i].name);
		fflush(stdout);
	}
	printf("%u passed, %u failed\n", n - failed, failed);
	return failed ? 1 : 0;
}

#endif /* _ARS_UNIT_HARNESS_H */
