/* naive_codelet.c — a test double for `tine dft`'s codelet, so the bench harness can be
 * built and checked without tine (bench.sh --selftest, TINE_DFT_STANDIN=1): a direct
 * O(N^2) DFT with the codelet's signature,
 *
 *   void NAME(const T *in, T *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist,
 *             ptrdiff_t ostride, ptrdiff_t odist);
 *
 * interleaved complex elements, strides and distances in complex elements, unnormalized,
 * sign -1 (DFT_INVERSE=1: +1). It is not a fast transform and its times mean nothing.
 *
 *   -DDFT_N=16 [-DDFT_F64=1] [-DDFT_INVERSE=1] [-DDFT_NAME=sym] (default tine_dft_N)
 *   -DDFT_BUG=1  steps by N transforms instead of idist (the strided check must fail)
 *   -DDFT_BUG=2  the other sign (every check must fail)
 *   -DDFT_BUG=3  writes one complex element past the last transform (the guard check)
 */
#include <math.h>
#include <stddef.h>

#ifndef DFT_N
#error "naive_codelet.c: needs -DDFT_N=N"
#endif
#if defined(DFT_F64) && DFT_F64
typedef double real;
#else
typedef float real;
#endif
#if defined(DFT_INVERSE) && DFT_INVERSE
#define SIGN 1.0
#else
#define SIGN -1.0
#endif
#ifndef DFT_BUG
#define DFT_BUG 0
#endif
#define PASTE2(a, b) a##b
#define PASTE(a, b) PASTE2(a, b)
#ifndef DFT_NAME
#define DFT_NAME PASTE(tine_dft_, DFT_N)
#endif

void DFT_NAME(const real *in, real *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist, ptrdiff_t ostride,
              ptrdiff_t odist);

void DFT_NAME(const real *in, real *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist, ptrdiff_t ostride,
              ptrdiff_t odist) {
    enum { N = DFT_N };
    const double sign = DFT_BUG == 2 ? -SIGN : SIGN, pi = 3.14159265358979323846;
    double wr[N], wi[N];
    for (int k = 0; k < N; k++) {
        wr[k] = cos(2 * pi * k / N);
        wi[k] = sign * sin(2 * pi * k / N);
    }
    if (DFT_BUG == 1) idist = N;
    for (ptrdiff_t t = 0; t < howmany; t++) {
        const real *x = in + 2 * t * idist;
        real *y = out + 2 * t * odist;
        for (int k = 0; k < N; k++) {
            double sr = 0, si = 0;
            for (int j = 0; j < N; j++) {
                int w = j * k % N;
                double xr = x[2 * j * istride], xi = x[2 * j * istride + 1];
                sr += xr * wr[w] - xi * wi[w];
                si += xr * wi[w] + xi * wr[w];
            }
            y[2 * k * ostride] = (real)sr;
            y[2 * k * ostride + 1] = (real)si;
        }
    }
    if (DFT_BUG == 3 && howmany > 0) {
        real *past = out + 2 * ((howmany - 1) * odist + (N - 1) * ostride + 1);
        past[0] = past[1] = 0;
    }
}
