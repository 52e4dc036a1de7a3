/* elab.h — the elaborator as layers above the text layer extend it.
 *
 * elab.c knows the expression language: literals, types, operators, casts, lane
 * operations, FPIR ops, lets, reductions with constant bounds, and a rule's wildcards.
 * What other layers add to the language reaches it through hooks, so elab.c calls
 * nothing above it:
 *
 * - per elaboration (tine_elab_env.hooks): a front end's names, calls, reductions with
 *   bounds that are not constants, and a step limit (kernels, src/pipeline/kernel_elab.c;
 *   an instruction's semantics, lanes(x), src/targets/isa.c);
 * - per context (tine_elab_extend): functions every elaboration in some modes may call
 *   (instruction names, isa.c; the bounds predicates of rule conditions, rules.c).
 *
 * A hook elaborates with the functions below, which are elab.c's own: its values and
 * errors are exactly those of the built-in forms.
 */
#ifndef TINE_ELAB_H
#define TINE_ELAB_H

#include "ast.h"

/* A value being elaborated: a typed node, or a literal still without a type. */
typedef struct tine_elab_val {
    tine_expr_t *e; /* typed value, or NULL for a literal (or after an error) */
    int lit;        /* 0 typed/error, 1 integer literal, 2 float literal,
                       3 constant wildcard of a rule pattern (iv = its number),
                       4 (bound in a scope only) the variable of an unrolled reduction,
                       an i32 typed where it is read */
    tine_i128 iv;
    double fv;
} tine_elab_val;

/* A front end's extension of one elaboration. Each hook may be NULL. */
typedef struct tine_elab_hooks {
    /* Every step (each subexpression); false stops with *out (an error). */
    bool (*step)(tine_elab *el, const tine_ast *a, tine_elab_val *out);
    /* A name no let or reduction binds: true when handled (*out). */
    bool (*name)(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out);
    /* A call that is not an FPIR op, before the built-in functions: true when handled. */
    tine_elab_call_fn call;
    /* A reduction whose bounds are not both integer constants (lo, hi elaborated). */
    tine_elab_val (*reduce)(tine_elab *el, const tine_ast *a, tine_elab_val lo, tine_elab_val hi, int lanes);
    /* A reduction with constant bounds (lo < hi, both fit i32), before it unrolls: true
     * when handled (*out; a kernel's vectorized reduction, its terms at more lanes). */
    bool (*vreduce)(tine_elab *el, const tine_ast *a, tine_i128 lo, tine_i128 hi, int lanes, tine_elab_val *out);
    /* A value bound by a let, a reduction or a call, read at a position of more lanes
     * than it has (inside such terms): that value with each lane repeated to `lanes`. */
    tine_expr_t *(*widen)(tine_elab *el, tine_expr_t *e, int lanes);
} tine_elab_hooks;

/* Registers a context-wide call hook for the modes in `modes` (a mask of 1 << mode);
 * hooks of higher layers are consulted first (a layer's names shadow those below).
 * Registering the same function again does nothing. */
void tine_elab_extend(tine_ctx_t *ctx, tine_elab_call_fn fn, unsigned modes, int layer);

tine_ctx_t *tine_elab_ctx(const tine_elab *el);
const tine_elab_env *tine_elab_env_of(const tine_elab *el);
tine_elab_val tine_elab_expr(tine_elab *el, const tine_ast *a, int lanes);
/* A located error at `at` (the first error of an elaboration only); returns no value. */
tine_elab_val tine_elab_fail(tine_elab *el, const tine_ast *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A constructor's result: NULL moves its message to `at`. */
tine_elab_val tine_elab_typed(tine_elab *el, const tine_ast *at, tine_expr_t *e);
bool tine_elab_ok(const tine_elab *el, tine_elab_val v);
tine_elab_val tine_elab_lit_to(tine_elab *el, const tine_ast *at, tine_elab_val v, tine_type_t t);
tine_elab_val tine_elab_need_typed(tine_elab *el, const tine_ast *at, tine_elab_val v);
tine_elab_val tine_elab_binary(tine_elab *el, const tine_ast *at, tine_op_t op, const tine_ast *aa, tine_elab_val a,
                               const tine_ast *ab, tine_elab_val b);
tine_type_t tine_elab_type_of(tine_elab *el, const tine_ast *a);
/* An error unless a call has n arguments (a value with lit set when it has). */
tine_elab_val tine_elab_arity(tine_elab *el, const tine_ast *a, int n);
/* Two operands where either may be a literal: a literal takes the other's type. */
bool tine_elab_unify(tine_elab *el, const tine_ast *aa, tine_elab_val *a, const tine_ast *ab, tine_elab_val *b);
/* An integer constant from lo to hi (an error naming `what` otherwise). */
bool tine_elab_int_arg(tine_elab *el, const tine_ast *a, int lo, int hi, int *out, const char *what);
/* Registers the built-in functions (elab_builtins.c: casts, min, ramp, slice, ...) as the
 * call hook consulted before every layer's; a call with a type parameter that is not a
 * cast is an error there. */
void tine_elab_builtins_install(tine_ctx_t *ctx);
/* The identity of reduction op over T (0, T.max for min, T.min for max; floats: 0, ±inf). */
tine_expr_t *tine_elab_reduce_identity(tine_ctx_t *ctx, tine_op_t op, tine_type_t T);

/* Names: push binds a name innermost, pop drops the innermost n. locals counts the lets
 * and reductions of the body being elaborated (at most 64 are allowed). enter makes the
 * innermost n names the only ones a called body sees (an inlined function's coordinates);
 * leave restores what enter returned. */
void tine_elab_push(tine_elab *el, const char *name, tine_elab_val v);
void tine_elab_pop(tine_elab *el, int n);
int tine_elab_locals(const tine_elab *el);
typedef struct {
    int scope_base, let_base;
} tine_elab_frame;
tine_elab_frame tine_elab_enter(tine_elab *el, int n);
void tine_elab_leave(tine_elab *el, tine_elab_frame f);
/* Reductions nested around the term being elaborated (through inlined calls too);
 * adds delta first. */
int tine_elab_rdepth(tine_elab *el, int delta);

#endif
