/* diffkern_eval.h — random reduction kernels described as trees, and an evaluator of
 * them written from docs/SEMANTICS.md and docs/KERNELS.md alone.
 *
 * test_diffkern's fourth part: a kernel is drawn as a small tree (dk_kernel_t: one
 * input, two i32 parameters and one of another type, up to two functions, the output),
 * printed as .tine text (diffkern_redgen.c), and each output element is computed here in
 * C — never through tine's parser, IR, expression interpreter or statements — and
 * compared with tine_kernel_interpret (and, for some kernels, compiled code). What the
 * trees hold is what issue 30 found wrong: reductions with constant and parameter bounds
 * (empty, negative, nested, bounded by an enclosing variable) whose bodies do arithmetic
 * that wraps (r * 1073741824, products near the type's limits), casts and reinterprets
 * of reduction variables, calls of functions at negative and scaled offsets
 * (f(2 * x - 3, y + 1)), boundaries (edge, constant), and 1-D per-row functions.
 */
#ifndef DIFFKERN_EVAL_H
#define DIFFKERN_EVAL_H
#include "tine.h"

#include <stdbool.h>
#include <stdint.h>

/* an integer type: signedness and 8, 16, 32 or 64 bits */
typedef struct {
    bool sgn;
    int bits;
} dk_type_t;

typedef enum {
    DK_CONST,    /* value (its type: t) */
    DK_COORD,    /* coordinate index (0 x, 1 y), i32 */
    DK_RVAR,     /* reduction variable index, i32 */
    DK_PARAM,    /* parameter index: 0 p (i32), 1 z (i32), 2 q (its type) */
    DK_READ,     /* source index (DK_SRC_*), a[0..nargs-1] its coordinates (i32) */
    DK_CAST,     /* a[0] to t */
    DK_REINTERP, /* a[0] to t, same bits */
    DK_BIN,      /* op (DK_OP_*), a[0], a[1] of type t */
    DK_SELECT,   /* select(a[0] <op> a[1], a[2], a[3]); a[0], a[1] of another type */
    DK_RED       /* op (DK_RED_*) over rvar index, a[0]..a[1] (i32 bounds), body a[2] */
} dk_kind_t;

enum { DK_ADD, DK_SUB, DK_MUL, DK_DIV, DK_MOD, DK_AND, DK_OR, DK_XOR, DK_MIN, DK_MAX, DK_SHL, DK_SHR, DK_NBIN };
enum { DK_LT, DK_LE, DK_EQ, DK_NE, DK_GT, DK_GE, DK_NCMP };
enum { DK_SUM, DK_REDMIN, DK_REDMAX };
/* sources of a read: the input directly, edge(in0), constant(in0, zval), function 0, 1 */
enum { DK_SRC_IN, DK_SRC_EDGE, DK_SRC_CONST, DK_SRC_FN0, DK_SRC_FN1 };

typedef struct dk_node {
    dk_kind_t kind;
    dk_type_t t;
    int op, index, n;
    int64_t value; /* DK_CONST: the value, in t's range */
    struct dk_node *a[4];
} dk_node_t;

enum { DK_MAXNODES = 512, DK_MAXRVARS = 16 };

typedef struct {
    char name[4];    /* "m0", "m1", "s" */
    int nargs;       /* 1 or 2 */
    int arg[2];      /* the coordinate each argument is (0 x, 1 y): s(y) has one, y */
    dk_type_t t;
    dk_node_t *body;
    bool loopred;    /* its body has a loop reduction */
} dk_fn_t;

typedef struct {
    int dims;            /* 1 or 2 */
    dk_type_t in_t, q_t; /* the input's elements; parameter q */
    int64_t zval;        /* constant(in0, zval)'s fill value */
    bool has_edge, has_const;
    int nfn;
    dk_fn_t fn[2];
    dk_type_t out_t;
    dk_node_t *out;
    int nrvars;
    dk_node_t pool[DK_MAXNODES];
    int nnodes;
} dk_kernel_t;

/* The values a kernel is evaluated at: the input, p, z, q's bits (q's type's value). */
typedef struct {
    const tine_buffer_t *in;
    int64_t p, z;
    uint64_t q;
} dk_args_t;

/* Element (c[0], c[1]) of the output, its bits zero-extended from the output type into
 * *out; false when it would read the input outside its buffer (a run tine must refuse). */
bool dk_eval_output(const dk_kernel_t *k, const dk_args_t *args, const int64_t *c, uint64_t *out);

/* The same value as a two's-complement pattern of t's width, canonical: sign-extended to
 * 64 bits when t is signed, zero-extended when not. */
uint64_t dk_norm(dk_type_t t, uint64_t v);

/* ---- the generator (diffkern_redgen.c) ---- */

/* A random kernel from *seed. */
void dk_generate(dk_kernel_t *k, uint64_t *seed);
/* Its text; param_bounds: constant reduction bounds written `a + z..b + z` (z = 0 at
 * run time, so the same values through loops instead of unrolled terms); a schedule
 * section: the text after "schedule\n" (or NULL: none). malloc'd. */
char *dk_print(const dk_kernel_t *k, bool param_bounds, const char *schedule);
/* A random schedule for k (materialize, compute_root, inline, compute_at and store_at,
 * vectorize of coordinates and loop reductions with acc, unroll, split, tile, parallel);
 * malloc'd text of directives. */
char *dk_schedule(const dk_kernel_t *k, uint64_t *seed);
const char *dk_type_name(dk_type_t t);

#endif
