/* fftw_neon.c — FFTW 3.3.10's own Neon codelet for one size (dft/simd/common/n1fv_N.c, or
 * n1bv_N.c for the backward transform, with simd-support/simd-neon.h), behind tine dft's
 * codelet signature, for bench_arm.sh's FFTW-Neon column:
 *
 *   void NAME(const R *in, R *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist,
 *             ptrdiff_t ostride, ptrdiff_t odist);
 *
 * The codelet is what FFTW's planner runs for a batch of contiguous size-N transforms on
 * aarch64 (dft-direct with n1fv_N_neon): its loop does VL transforms per iteration (2 in
 * single precision, 1 in double), strides in reals. FFTW calls it only with howmany a
 * multiple of VL; an odd last transform here goes through a scratch pair (never in the
 * measured loop: bench_arm.sh traces even counts). The backward codelet takes the real and
 * imaginary pointers swapped, as FFTW's n1b genus requires (ri == ii + 1).
 *
 *   clang --target=aarch64-linux-gnu -O3 -I FFTW_SRC -I tests/dft/fftw_neon [-DFFTW_SINGLE]
 *     -DFFTW_CODELET='"dft/simd/common/n1fv_16.c"' -DFFTW_KERNEL=n1fv_16 -DFFTW_N=16
 *     [-DDFT_INVERSE=1] -DNAME=fftw_neon_dft_16 -c fftw_neon.c
 *
 * The stride trick FFTW plays on its codelets (MAKE_VOLATILE_STRIDE: a zero the compiler
 * cannot see) keeps working: the zero is defined in another object (fftw_neon_zero.c).
 * bench_arm.sh keeps NAME global and makes the rest local (llvm-objcopy), so the codelet
 * built by two compilers links into one driver. */
#define SIMD_HEADER "simd-support/simd-neon.h"
#include FFTW_CODELET

#ifndef DFT_INVERSE
#define DFT_INVERSE 0
#endif

const kdft_genus GENUS = {0, VL};
void X(kdft_register)(planner *p, kdft codelet, const kdft_desc *desc) {
    (void)p, (void)codelet, (void)desc;
}

void NAME(const R *in, R *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist, ptrdiff_t ostride,
          ptrdiff_t odist);

/* one transform (the odd last one when VL is 2) through a contiguous scratch pair; kept out
 * of NAME, so NAME's code is the codelet's loop alone */
static __attribute__((noinline)) void one(const R *a, R *b, ptrdiff_t istride, ptrdiff_t ostride) {
    R x[2 * 2 * FFTW_N] = {0}, y[2 * 2 * FFTW_N];
    for (int j = 0; j < FFTW_N; j++) x[2 * j] = a[2 * j * istride], x[2 * j + 1] = a[2 * j * istride + 1];
    if (DFT_INVERSE)
        FFTW_KERNEL(x + 1, x, y + 1, y, 2, 2, VL, 2 * FFTW_N, 2 * FFTW_N);
    else
        FFTW_KERNEL(x, x + 1, y, y + 1, 2, 2, VL, 2 * FFTW_N, 2 * FFTW_N);
    for (int k = 0; k < FFTW_N; k++) b[2 * k * ostride] = y[2 * k], b[2 * k * ostride + 1] = y[2 * k + 1];
}

/* flatten: the codelet inlined, so a trace of NAME's code is a trace of the codelet */
__attribute__((flatten)) void NAME(const R *in, R *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist,
                                   ptrdiff_t ostride, ptrdiff_t odist) {
    INT even = howmany - howmany % VL;
    if (even > 0) {
        if (DFT_INVERSE)
            FFTW_KERNEL(in + 1, in, out + 1, out, 2 * istride, 2 * ostride, even, 2 * idist, 2 * odist);
        else
            FFTW_KERNEL(in, in + 1, out, out + 1, 2 * istride, 2 * ostride, even, 2 * idist, 2 * odist);
    }
    if (even < howmany) one(in + 2 * even * idist, out + 2 * even * odist, istride, ostride);
}
