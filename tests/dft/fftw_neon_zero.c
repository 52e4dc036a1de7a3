/* fftw_neon_zero.c — FFTW's X(an_INT_guaranteed_to_be_zero) (its kernel/stride.c), for
 * fftw_neon.c, in an object of its own as in FFTW: the codelets' MAKE_VOLATILE_STRIDE
 * relies on the compiler not knowing it is zero. INT is ptrdiff_t on aarch64. */
#include <stddef.h>
extern const ptrdiff_t fftwf_an_INT_guaranteed_to_be_zero, fftw_an_INT_guaranteed_to_be_zero;
const ptrdiff_t fftwf_an_INT_guaranteed_to_be_zero = 0;
const ptrdiff_t fftw_an_INT_guaranteed_to_be_zero = 0;
