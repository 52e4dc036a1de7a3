/* gen.h — the DFT generator (stand-in until the generator lands). */
#ifndef TINE_DFT_GEN_H
#define TINE_DFT_GEN_H
#include "../internal.h"
typedef struct { int adds, muls, negs, consts; } tine_dft_counts;
bool tine_dft_size_ok(int n);
bool tine_dft_gen(tine_ctx_t *ctx, int n, int sign, tine_type_t t, tine_expr_t *const *in, tine_expr_t **out,
                  tine_dft_counts *counts);
#endif
