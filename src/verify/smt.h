/* smt.h — tine expressions as Z3 bit-vector terms, and equivalence queries.
 *
 * Every lane of every value is one bit-vector of its element's width (a bool is one
 * bit). Primitive ops are encoded with tine's conventions (docs/SEMANTICS.md); an FPIR
 * op or a target instruction only through its definition (the template the interpreter
 * evaluates), so nothing here restates an op's meaning. A float lane is its IEEE bits,
 * computed on through Z3's floating-point theory (round to nearest even), every arithmetic
 * NaN written as the canonical quiet NaN; or, with tine_smt_floats_as_reals, a real.
 */
#ifndef TINE_SMT_H
#define TINE_SMT_H

#include <z3.h>

#include "../internal.h"

typedef struct tine_smt tine_smt;

typedef enum { TINE_SMT_PROVEN, TINE_SMT_COUNTEREXAMPLE, TINE_SMT_UNKNOWN, TINE_SMT_ERROR } tine_smt_result;

/* timeout_ms = 0: no limit. */
tine_smt *tine_smt_new(tine_ctx_t *ctx, unsigned timeout_ms);
void tine_smt_free(tine_smt *s);
Z3_context tine_smt_z3(tine_smt *s);
void tine_smt_set_timeout(tine_smt *s, unsigned timeout_ms);
/* Encodings made from now on (on) treat a product of two extensions whose exact product
 * fits the result as a variable bounded by the product's range (exact where an operand is
 * 0 or 1), the same variable for the same operands: an over-approximation, so a proof
 * holds for the real products, while a counterexample may not. Multiplier equivalence is
 * what a bit-blasting solver finds hardest; most rules need only the product's range. */
void tine_smt_abstract_products(tine_smt *s, bool on);
/* Encodings made from now on (on) take float lanes as reals: + - * / and neg exact, fma
 * as a * b + c, sqrt an uninterpreted function of one real, min/max/comparisons/select by
 * the reals' order, int -> float exact; a float's bits and float -> integer casts
 * uninterpreted functions. Float variables are real constants; float constants must be
 * finite. Equal over the reals is what reassociation keeps (Diospyros's guarantee); the
 * default (off) is IEEE bit-exactness, NaNs all equal. */
void tine_smt_floats_as_reals(tine_smt *s, bool on);

/* A bit-vector sort of `bits` bits, a numeral of it (v reduced modulo 2^bits). */
Z3_sort tine_smt_sort(tine_smt *s, int bits);
Z3_ast tine_smt_num(tine_smt *s, int bits, tine_u128 v);
/* v (a term of from's width and signedness) extended or truncated to `to` bits. */
Z3_ast tine_smt_resize(tine_smt *s, Z3_ast v, int from_bits, bool from_signed, int to_bits);

/* One lane of a binary primitive op on terms of element type t, as the encoding gives it
 * (a comparison gives a 1-bit term). */
Z3_ast tine_smt_binop(tine_smt *s, tine_op_t op, tine_type_t t, Z3_ast a, Z3_ast b);

/* The lanes a variable takes (instead of fresh constants named after it). */
void tine_smt_bind(tine_smt *s, const tine_expr_t *var, const Z3_ast *lanes);
/* Binds var's lanes to extensions (signed when `sign`) of fresh `bits`-bit values: every
 * value of var's type in the range of `bits`-bit values, and only those. For a wildcard a
 * predicate bounds to that range, a proof over these lanes covers every input it admits. */
void tine_smt_bind_narrow(tine_smt *s, const tine_expr_t *var, int bits, bool sign);
/* e's lanes; -1 with the context's error set when e holds what the encoding refuses. A
 * variable not bound is a fresh constant per lane (the same on every call); a load is an
 * uninterpreted function of its buffer applied to the index. */
int tine_smt_encode(tine_smt *s, const tine_expr_t *e, Z3_ast *lanes);
/* How many cross-lane nodes (slices, concats, interleaves, reductions, broadcasts,
 * ramps, reinterprets to other lane sizes) the encodings so far went through, templates
 * included. */
long tine_smt_cross_lane(const tine_smt *s);

/* A fact every later query assumes (a Z3 bool). */
void tine_smt_assume(tine_smt *s, Z3_ast fact);

/* Proves a == b lane for lane under the assumptions. On a counterexample (or error),
 * `why` gets the inputs and both sides' values; on unknown, Z3's reason. `seconds`
 * gets the solver's time. */
tine_smt_result tine_smt_equal(tine_smt *s, const tine_expr_t *a, const tine_expr_t *b, char *why, size_t n,
                               double *seconds);
/* The same for a Z3 bool: valid under the assumptions? (why: a model, as for equal) */
tine_smt_result tine_smt_valid(tine_smt *s, Z3_ast goal, char *why, size_t n, double *seconds);
/* Whether a Z3 bool is satisfiable under the assumptions: 1 yes (model kept for
 * tine_smt_model_value), 0 no, -1 unknown. */
int tine_smt_sat(tine_smt *s, Z3_ast cond);
/* Lanes of type t written as the last model gives them ("[1, -2]"); returns the length. */
size_t tine_smt_put_lanes(tine_smt *s, char *out, size_t n, tine_type_t t, const Z3_ast *v);
/* A term's value in the last model (after tine_smt_sat returned 1). */
bool tine_smt_model_value(tine_smt *s, Z3_ast v, tine_u128 *out);

#endif
