/* SPDX-License-Identifier: MIT */
/*
 * In-kernel tests with KUnit's names and KTAP version 1 output, so Linux habits carry over.
 *
 *	static void my_test(struct kunit *test)
 *	{
 *		KUNIT_EXPECT_EQ(test, 1 + 1, 2);
 *	}
 *	static struct kunit_case my_cases[] = { KUNIT_CASE(my_test), {} };
 *	static struct kunit_suite my_suite = { .name = "my", .test_cases = my_cases };
 *	kunit_test_suite(my_suite);
 *
 * Every C file in tests/kernel/ is linked in; kunit_test_suite() puts the suite in a linker
 * section, so no list needs editing. EXPECT records a failure and goes on; ASSERT also ends
 * the case (on any CPU running it through kunit_run_on_all_cpus). Failure messages name the
 * file, line and CPU. Select suites at boot with test=all|none|suite[,suite.case...].
 */
#ifndef SLABLAB_KUNIT_H
#define SLABLAB_KUNIT_H

#include "kernel/string.h"
#include "kernel/types.h"

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

struct kunit_suite;

struct kunit {
	const char *name;           /* the running case */
	struct kunit_suite *suite;
	int status;                 /* enum kunit_status; FAILURE sticks */
	char status_comment[128];   /* why it was skipped */
	void *priv;                 /* for the suite's init/exit and its cases */
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
};

struct kunit_suite {
	const char name[64];
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases; /* ends with an empty entry */
};

#define KUNIT_CASE(fn) { .run_case = (fn), .name = #fn }

#define __KUNIT_CAT2(a, b) a##b
#define __KUNIT_CAT(a, b) __KUNIT_CAT2(a, b)
#define kunit_test_suites(...)                                                                     \
	static struct kunit_suite *__KUNIT_CAT(__kunit_suites_, __COUNTER__)[] __used              \
		__section(".kunit_suites") = { __VA_ARGS__ }
#define kunit_test_suite(suite) kunit_test_suites(&(suite))

/* ---- reporting (kernel/kunit.c) ---- */
enum kunit_kind { KUNIT_EXPECTATION, KUNIT_ASSERTION };

void kunit_fail_bool(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		     const char *expr, bool expected, const char *fmt, ...);
void kunit_fail_int(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		    const char *left, const char *op, const char *right, long long lv,
		    long long rv, const char *fmt, ...);
void kunit_fail_ptr(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		    const char *left, const char *op, const char *right, const void *lv,
		    const void *rv, const char *fmt, ...);
void kunit_fail_str(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		    const char *left, const char *op, const char *right, const char *lv,
		    const char *rv, const char *fmt, ...);
void kunit_fail_msg(struct kunit *test, enum kunit_kind kind, const char *file, int line,
		    const char *fmt, ...);
void kunit_abort(struct kunit *test) __attribute__((noreturn));
void kunit_log(struct kunit *test, const char *fmt, ...) __printf(2, 3);
void __kunit_skip(struct kunit *test, const char *fmt, ...) __printf(2, 3);

#define kunit_info(test, fmt, ...) kunit_log(test, fmt, ##__VA_ARGS__)
#define kunit_err(test, fmt, ...) kunit_log(test, fmt, ##__VA_ARGS__)
#define kunit_mark_skipped(test, fmt, ...) __kunit_skip(test, fmt, ##__VA_ARGS__)
#define kunit_skip(test, fmt, ...)                                                                 \
	do {                                                                                       \
		__kunit_skip(test, fmt, ##__VA_ARGS__);                                            \
		kunit_abort(test);                                                                 \
	} while (0)

#define __KUNIT_END(test, kind)                                                                    \
	do {                                                                                       \
		if ((kind) == KUNIT_ASSERTION)                                                     \
			kunit_abort(test);                                                         \
	} while (0)

#define __KUNIT_BOOL(test, kind, cond, expected, fmt, ...)                                         \
	do {                                                                                       \
		if ((bool)(cond) != (expected)) {                                                 \
			kunit_fail_bool(test, kind, __FILE__, __LINE__, #cond, expected, fmt,      \
					##__VA_ARGS__);                                            \
			__KUNIT_END(test, kind);                                                   \
		}                                                                                  \
	} while (0)

#define __KUNIT_INT(test, kind, left, op, right, fmt, ...)                                         \
	do {                                                                                       \
		__typeof__(left) __l = (left);                                                     \
		__typeof__(right) __r = (right);                                                   \
		if (!(__l op __r)) {                                                               \
			kunit_fail_int(test, kind, __FILE__, __LINE__, #left, #op, #right,         \
				       (long long)__l, (long long)__r, fmt, ##__VA_ARGS__);        \
			__KUNIT_END(test, kind);                                                   \
		}                                                                                  \
	} while (0)

#define __KUNIT_PTR(test, kind, left, op, right, fmt, ...)                                         \
	do {                                                                                       \
		const void *__l = (const void *)(left);                                            \
		const void *__r = (const void *)(right);                                           \
		if (!(__l op __r)) {                                                               \
			kunit_fail_ptr(test, kind, __FILE__, __LINE__, #left, #op, #right, __l,    \
				       __r, fmt, ##__VA_ARGS__);                                   \
			__KUNIT_END(test, kind);                                                   \
		}                                                                                  \
	} while (0)

#define __KUNIT_STR(test, kind, left, op, right, fmt, ...)                                         \
	do {                                                                                       \
		const char *__l = (left);                                                          \
		const char *__r = (right);                                                         \
		if (!(strcmp(__l, __r) op 0)) {                                                    \
			kunit_fail_str(test, kind, __FILE__, __LINE__, #left, #op, #right, __l,    \
				       __r, fmt, ##__VA_ARGS__);                                   \
			__KUNIT_END(test, kind);                                                   \
		}                                                                                  \
	} while (0)

#define KUNIT_FAIL(test, fmt, ...)                                                                 \
	kunit_fail_msg(test, KUNIT_EXPECTATION, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_TRUE(t, c) __KUNIT_BOOL(t, KUNIT_EXPECTATION, c, true, NULL)
#define KUNIT_EXPECT_FALSE(t, c) __KUNIT_BOOL(t, KUNIT_EXPECTATION, c, false, NULL)
#define KUNIT_EXPECT_TRUE_MSG(t, c, f, ...) __KUNIT_BOOL(t, KUNIT_EXPECTATION, c, true, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(t, c, f, ...) __KUNIT_BOOL(t, KUNIT_EXPECTATION, c, false, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_EQ(t, l, r) __KUNIT_INT(t, KUNIT_EXPECTATION, l, ==, r, NULL)
#define KUNIT_EXPECT_NE(t, l, r) __KUNIT_INT(t, KUNIT_EXPECTATION, l, !=, r, NULL)
#define KUNIT_EXPECT_LT(t, l, r) __KUNIT_INT(t, KUNIT_EXPECTATION, l, <, r, NULL)
#define KUNIT_EXPECT_LE(t, l, r) __KUNIT_INT(t, KUNIT_EXPECTATION, l, <=, r, NULL)
#define KUNIT_EXPECT_GT(t, l, r) __KUNIT_INT(t, KUNIT_EXPECTATION, l, >, r, NULL)
#define KUNIT_EXPECT_GE(t, l, r) __KUNIT_INT(t, KUNIT_EXPECTATION, l, >=, r, NULL)
#define KUNIT_EXPECT_EQ_MSG(t, l, r, f, ...) __KUNIT_INT(t, KUNIT_EXPECTATION, l, ==, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_NE_MSG(t, l, r, f, ...) __KUNIT_INT(t, KUNIT_EXPECTATION, l, !=, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_GT_MSG(t, l, r, f, ...) __KUNIT_INT(t, KUNIT_EXPECTATION, l, >, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_LT_MSG(t, l, r, f, ...) __KUNIT_INT(t, KUNIT_EXPECTATION, l, <, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, l, r, f, ...) __KUNIT_INT(t, KUNIT_EXPECTATION, l, <=, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, l, r, f, ...) __KUNIT_INT(t, KUNIT_EXPECTATION, l, >=, r, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_EQ(t, l, r) __KUNIT_PTR(t, KUNIT_EXPECTATION, l, ==, r, NULL)
#define KUNIT_EXPECT_PTR_NE(t, l, r) __KUNIT_PTR(t, KUNIT_EXPECTATION, l, !=, r, NULL)
#define KUNIT_EXPECT_NULL(t, p) __KUNIT_PTR(t, KUNIT_EXPECTATION, p, ==, NULL, NULL)
#define KUNIT_EXPECT_NOT_NULL(t, p) __KUNIT_PTR(t, KUNIT_EXPECTATION, p, !=, NULL, NULL)
#define KUNIT_EXPECT_NOT_NULL_MSG(t, p, f, ...) __KUNIT_PTR(t, KUNIT_EXPECTATION, p, !=, NULL, f, ##__VA_ARGS__)
#define KUNIT_EXPECT_STREQ(t, l, r) __KUNIT_STR(t, KUNIT_EXPECTATION, l, ==, r, NULL)
#define KUNIT_EXPECT_STRNEQ(t, l, r) __KUNIT_STR(t, KUNIT_EXPECTATION, l, !=, r, NULL)

#define KUNIT_ASSERT_TRUE(t, c) __KUNIT_BOOL(t, KUNIT_ASSERTION, c, true, NULL)
#define KUNIT_ASSERT_FALSE(t, c) __KUNIT_BOOL(t, KUNIT_ASSERTION, c, false, NULL)
#define KUNIT_ASSERT_TRUE_MSG(t, c, f, ...) __KUNIT_BOOL(t, KUNIT_ASSERTION, c, true, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_FALSE_MSG(t, c, f, ...) __KUNIT_BOOL(t, KUNIT_ASSERTION, c, false, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_EQ(t, l, r) __KUNIT_INT(t, KUNIT_ASSERTION, l, ==, r, NULL)
#define KUNIT_ASSERT_NE(t, l, r) __KUNIT_INT(t, KUNIT_ASSERTION, l, !=, r, NULL)
#define KUNIT_ASSERT_LT(t, l, r) __KUNIT_INT(t, KUNIT_ASSERTION, l, <, r, NULL)
#define KUNIT_ASSERT_LE(t, l, r) __KUNIT_INT(t, KUNIT_ASSERTION, l, <=, r, NULL)
#define KUNIT_ASSERT_GT(t, l, r) __KUNIT_INT(t, KUNIT_ASSERTION, l, >, r, NULL)
#define KUNIT_ASSERT_GE(t, l, r) __KUNIT_INT(t, KUNIT_ASSERTION, l, >=, r, NULL)
#define KUNIT_ASSERT_EQ_MSG(t, l, r, f, ...) __KUNIT_INT(t, KUNIT_ASSERTION, l, ==, r, f, ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_EQ(t, l, r) __KUNIT_PTR(t, KUNIT_ASSERTION, l, ==, r, NULL)
#define KUNIT_ASSERT_PTR_NE(t, l, r) __KUNIT_PTR(t, KUNIT_ASSERTION, l, !=, r, NULL)
#define KUNIT_ASSERT_NULL(t, p) __KUNIT_PTR(t, KUNIT_ASSERTION, p, ==, NULL, NULL)
#define KUNIT_ASSERT_NOT_NULL(t, p) __KUNIT_PTR(t, KUNIT_ASSERTION, p, !=, NULL, NULL)
#define KUNIT_ASSERT_STREQ(t, l, r) __KUNIT_STR(t, KUNIT_ASSERTION, l, ==, r, NULL)

/*
 * Run fn(test, arg) on every online CPU at once (all start together after a barrier), in
 * ordinary context with interrupts on; returns when every CPU is done. An ASSERT on any
 * CPU ends that CPU's part and fails the case.
 */
void kunit_run_on_all_cpus(struct kunit *test, void (*fn)(struct kunit *test, void *arg),
			   void *arg);

/* kernel/kunit.c: run the suites test= selects. Returns the number of failed cases, or -1
 * if test= names something that does not exist (after printing what does). */
int kunit_run_selected(const char *filter);

#endif
