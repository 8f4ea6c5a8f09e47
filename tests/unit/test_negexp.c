/* test_negexp — negexp_1m() (base/negexp.h) against libm's -expm1(-x):
 * within 64 ulp of it at every power of two from 2^-60 to 2^6, beside
 * each, at the branches (1/2, 40), and at 100,000 random points spread
 * evenly in log x (the seed printed, VMSCOPE_SEED replays it); 0 at and
 * below 0 and for NaN, 1 far out. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/negexp.h"
#include "tap.h"

static int worst_ulps;

static int close_to_libm(double x)
{
	double want = -expm1(-x), got = negexp_1m(x);
	double ulp = nextafter(want, INFINITY) - want;
	double d = fabs(got - want) / ulp;

	if (d > worst_ulps)
		worst_ulps = (int)d;
	return d <= 64;
}

int main(void)
{
	unsigned seed = tap_seed((unsigned)time(NULL));
	int e, i, bad = 0;
	double x;

	for (e = -60; e <= 6; e++) {
		x = ldexp(1, e);
		bad += !close_to_libm(x) + !close_to_libm(nextafter(x, 0)) +
		       !close_to_libm(nextafter(x, INFINITY)) +
		       !close_to_libm(x * 1.5);
	}
	ok(!bad, "2^-60..2^6, beside each and 1.5 times: within 64 ulp of libm "
	   "(%d off)", bad);
	ok(close_to_libm(0.5) && close_to_libm(nextafter(0.5, 0)) &&
		   close_to_libm(nextafter(0.5, 1)) && close_to_libm(39.999) &&
		   close_to_libm(40) && close_to_libm(0.3) &&
		   close_to_libm(0.7) && close_to_libm(1) && close_to_libm(25),
	   "at the branches (1/2, 40) and between");
	srand(seed);
	bad = 0;
	for (i = 0; i < 100000; i++) {
		/* log2 x evenly in [-50, 7] */
		x = ldexp(1, -50) * exp2(57.0 * rand() / RAND_MAX);
		bad += !close_to_libm(x);
	}
	ok(!bad, "100,000 random points, 2^-50..2^7: within 64 ulp of libm "
	   "(%d off; the worst %d ulp)", bad, worst_ulps);
	ok(negexp_1m(0) == 0 && negexp_1m(-1) == 0 && negexp_1m(-DBL_MAX) == 0 &&
		   negexp_1m(NAN) == 0,
	   "0 at and below 0, and for NaN");
	ok(negexp_1m(40) == 1 && negexp_1m(745) == 1 &&
		   negexp_1m(INFINITY) == 1 && negexp_1m(DBL_MAX) == 1,
	   "1 from 40 on (libm: %.17g at 40)", -expm1(-40.0));
	return tap_done();
}
