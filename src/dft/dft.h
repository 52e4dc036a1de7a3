/* dft.h — DFT codelets (tine dft), private to src/dft: the program the driver builds and
 * the emitters that write it. */
#ifndef TINE_DFT_H
#define TINE_DFT_H

#include "../tprog/tprog.h"
#include "gen.h"

/* A codelet: n-point complex DFTs of `elem` (f32, f64), v transforms at a time (one per
 * lane of the program's values), the program's inputs xr<j>, xi<j> (the real and imaginary
 * parts of element j of the v transforms) and outputs yr<k>, yi<k>. */
typedef struct {
    int n, v;
    int nregs; /* the target's vector registers (the scheduler's budget) */
    bool arm;
    tine_type_t elem;
    const char *name;
    tine_tprog *prog;
    /* per input leaf and output of prog: its element and part (0 real, 1 imaginary) */
    int *in_elem, *in_part, *out_elem, *out_part;
} dft_codelet;

/* The codelet's program for o (c->n, c->elem and c->name set by the caller): generated,
 * selected, optimized and scheduled as o asks; what each step made appended to rep.
 * False with an error. */
bool dft_build(tine_ctx_t *ctx, const tine_dft_opts *o, dft_codelet *c, tine_buf *rep);
void dft_codelet_free(dft_codelet *c);

/* The codelet compiled by the JIT for this machine (tests: the compiled program against
 * the interpreter's); NULL with an error. */
typedef void (*dft_fn)(const void *in, void *out, ptrdiff_t howmany, ptrdiff_t is, ptrdiff_t id, ptrdiff_t os,
                       ptrdiff_t od);
typedef struct dft_jit dft_jit;
dft_jit *dft_jit_new(tine_ctx_t *ctx, const dft_codelet *c);
dft_fn dft_jit_fn(const dft_jit *j);
void dft_jit_free(dft_jit *j);

/* The codelet as an object file, assembly or LLVM text (kind), malloc'd; NULL with an
 * error. */
char *dft_emit_llvm(tine_ctx_t *ctx, const dft_codelet *c, tine_emit_kind_t kind, size_t *size);
/* The codelet as C with the target's intrinsics, in the program's order. */
char *dft_emit_c(tine_ctx_t *ctx, const dft_codelet *c, size_t *size);
/* The C header declaring it. */
char *dft_emit_header(const dft_codelet *c);

#endif
