/* tap.h — the smallest TAP emitter, for the C unit tests.
 * ok(cond, fmt, ...) prints "ok - ..." or "not ok - ..." with the file and
 * line; tap_done() returns the exit status (1 if anything failed).
 * tap_seed(default) is a randomised test's seed: VMSCOPE_SEED from the
 * environment, else default; printed once as a TAP comment ("# seed N"). */
#ifndef VMS_TAP_H
#define VMS_TAP_H

#include <stdio.h>
#include <stdlib.h>

static int tap_failed;

#define ok(cond, ...)                                                          \
	do {                                                                   \
		int ok_c_ = !!(cond);                                          \
		printf("%s - ", ok_c_ ? "ok" : "not ok");                      \
		printf(__VA_ARGS__);                                           \
		if (!ok_c_) {                                                  \
			printf(" (%s:%d)", __FILE__, __LINE__);                \
			tap_failed = 1;                                        \
		}                                                              \
		printf("\n");                                                  \
	} while (0)

static inline unsigned tap_seed(unsigned dflt)
{
	static int shown;
	static unsigned v;

	if (!shown) {
		const char *e = getenv("VMSCOPE_SEED");

		v = e && *e ? (unsigned)strtoul(e, NULL, 0) : dflt;
		printf("# seed %u (VMSCOPE_SEED=%u replays it)\n", v, v);
		shown = 1;
	}
	return v;
}

static inline int tap_done(void)
{
	return tap_failed;
}

#endif
