/* eval.h — Intel pseudocode evaluated into one tine expression (src/import/eval.c). */
#ifndef TINE_IMPORT_EVAL_H
#define TINE_IMPORT_EVAL_H

#include "pseudo.h"

/* An operand or the result: its name in the pseudocode, its variable (a vector of its
 * element type, a boolxN mask, or a scalar) and whether its slices read signed. */
typedef struct {
    const char *name;
    tine_expr_t *var;
    tine_type_t type; /* the result's type (ret only) */
    bool sgn;
    int bits; /* a scalar read as its low bits only (an immediate's); 0: all */
    int reach; /* set by tine_pseudo_eval: the end of the highest bits the program reads */
} tine_pseudo_arg;

/* The result register of the program as an expression over the operands' variables:
 * the concatenation of its lanes (a scalar for a scalar result); NULL with "line:col:
 * what" in err when a construct is not translated. A slice at a symbolic offset is a
 * choice among the offsets the offset's range allows, or (every_offset) among every
 * offset: longer, but the same in every lane, so the lanes may pack into vectors. */
tine_expr_t *tine_pseudo_eval(tine_ctx_t *ctx, tine_arena *arena, const p_node *prog, const tine_pseudo_arg *args,
                              int nargs, const tine_pseudo_arg *ret, bool every_offset, char *err, size_t nerr);

/* A concatenation of lanes that are one function of the operands' lanes at a constant
 * stride, as that function on whole vectors (slices of stride k, broadcasts); e itself
 * when its lanes are not. */
tine_expr_t *tine_pseudo_compact(tine_ctx_t *ctx, tine_expr_t *e);

/* e with its casts and reinterprets tidied: a reinterpret of a reinterpret is one, the
 * narrowing of a widened value is the value, the low bits of a wide add, sub, mul or
 * bitwise op are the narrow op's. The meaning is unchanged. */
tine_expr_t *tine_pseudo_tidy(tine_ctx_t *ctx, tine_expr_t *e);

#endif
