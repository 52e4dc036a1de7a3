/* gen.h — the DFT generator (tine dft, issue 36): the DFT of size n as a DAG of real
 * float operations in tine's IR, simplified as FFTW's genfft simplifies its codelets, so
 * that the operation counts are FFTW's (docs/ARCHITECTURE.md, "DFT generator").
 */
#ifndef TINE_DFT_GEN_H
#define TINE_DFT_GEN_H

#include <stdbool.h>

#include "tine.h"

/* Real operations in the result DAG, each node once: additions and subtractions,
 * multiplications, negations, and distinct constants. */
typedef struct {
    int adds, muls, negs, consts;
} tine_dft_counts;

/* Whether n is a size the generator makes (2 <= n <= 64: all of them). */
bool tine_dft_size_ok(int n);

/* out[2k] + i*out[2k+1] = sum_j (in[2j] + i*in[2j+1]) * exp(sign * 2*pi*i * j*k / n) for
 * k < n, sign -1 (forward, FFTW's FFTW_FORWARD) or +1 (inverse), unnormalized. in: 2n
 * leaves (any nodes) of float type t (f32 or f64, any lane count: the same scalar
 * algorithm lane-wise); constants are made at t. counts may be NULL. False with an error
 * (the context's error) for a size it does not make, a sign other than -1 and +1, a type
 * that is not f32 or f64, or an input that is NULL or not of type t. */
bool tine_dft_gen(tine_ctx_t *ctx, int n, int sign, tine_type_t t, tine_expr_t *const *in, tine_expr_t **out,
                  tine_dft_counts *counts);

#endif
