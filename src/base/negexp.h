/* negexp.h — 1 - e^-x, the chance that a sampling with mean interval M
 * takes an allocation of x*M bytes (src/trace/tracer_read.c), without libm.
 *
 * libm's -expm1(-x) is the same to some 1e-15; written here because it was
 * vmscope's only call into libm, and every library vmscope maps is copied
 * at every start (0.9 MB for libm, about 0.6 ms: src/linux/selfcopy.h).
 * tests/unit/test_negexp.c holds it to libm's within 64 ulp.
 *
 * Contract: a pure function; 0 for x <= 0 and for NaN, 1 from where
 * e^-x is below half an ulp of 1.
 */
#ifndef VMS_NEGEXP_H
#define VMS_NEGEXP_H

double negexp_1m(double x);

#endif
