/* negexp.c — 1 - e^-x (negexp.h). */
#include "base/negexp.h"

/* e^-x for 0 <= x <= 1/2 by its series: the terms fall by x/k at least
 * as fast as halving, 22 of them below 1e-17 of the sum (>= 0.6). */
static double exp_neg_small(double x)
{
	double term = 1, sum = 1;
	int k;

	for (k = 1; k <= 22; k++) {
		term *= -x / k;
		sum += term;
	}
	return sum;
}

double negexp_1m(double x)
{
	double term, sum, e;
	int k, m = 0;

	if (!(x > 0))
		return 0;
	if (x >= 40) /* e^-40 = 4.2e-18, below half an ulp of 1 */
		return 1;
	if (x < 0.5) {
		/* x - x^2/2! + x^3/3! ...: the sum stays above 3/4 x, so the
		 * alternating terms cancel nothing of note */
		term = x;
		sum = x;
		for (k = 2; k <= 22 && term != 0; k++) {
			term *= -x / k;
			sum += term;
		}
		return sum;
	}
	/* e^-x = (e^-(x/2^m))^(2^m), x/2^m <= 1/2, m <= 7: each squaring
	 * doubles the relative error, some 128 ulp of e^-x with the
	 * series' own rounding (14 ulp of the result measured, test_negexp
	 * holds 64), and e^-x <= 0.61 of a result >= 0.39 */
	while (x > 0.5) {
		x /= 2;
		m++;
	}
	e = exp_neg_small(x);
	while (m--)
		e *= e;
	return 1 - e;
}
