/* internal.h — what the library's files share and the public header does not show.
 *
 * Layout of a node: a fixed 24-byte header, then its operand pointers, then (constants
 * only) the lane values. Nodes are created children first, so ids order them
 * topologically; passes that walk a DAG iterate by id instead of recursing.
 */
#ifndef TINE_INTERNAL_H
#define TINE_INTERNAL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tine.h"

/* Lane values: one 128-bit word per lane, canonical (sign-extended from the type's bits
 * for signed types, zero-extended for unsigned, bool and float bit patterns). */
typedef unsigned __int128 tine_u128;
typedef __int128 tine_i128;

/* Internal bugs assert with file:line; they are never the user's fault. */
#define TINE_ASSERT(c)                                                                  \
    do {                                                                                \
        if (!(c)) {                                                                     \
            fprintf(stderr, "%s:%d: internal error: %s\n", __FILE__, __LINE__, #c);     \
            abort();                                                                    \
        }                                                                               \
    } while (0)

/* ---- arena ---------------------------------------------------------------------- */

typedef struct tine_chunk tine_chunk;
typedef struct {
    tine_chunk *head;
    char *cur, *end;
    size_t bytes; /* total bytes obtained from malloc */
} tine_arena;

void *tine_arena_alloc(tine_arena *a, size_t n);  /* 16-byte aligned, zeroed */
void *tine_arena_alloc8(tine_arena *a, size_t n); /* 8-byte aligned, zeroed (nodes) */
char *tine_arena_strdup(tine_arena *a, const char *s, size_t n);
void tine_arena_free(tine_arena *a);
char *tine_strdup(const char *s); /* malloc'd copy */
void *tine_big_calloc(size_t n);  /* zeroed; huge pages where the system has them; free() */
void *tine_big_calloc_try(size_t n); /* the same, or NULL when it fails */

/* ---- out of memory ----------------------------------------------------------------
 * The allocations tine cannot go on without (an arena's chunk, the node table, a growing
 * string) do not return NULL: when one fails, tine_out_of_memory jumps back to the
 * innermost TINE_GUARD of the thread, set by the public call that does input-sized work
 * (parsing a kernel, building, printing, compiling, emitting or interpreting it). That
 * call returns its failure with a limit error ("out of memory ..."); what it had built is
 * lost, and its context is fit only for tine_ctx_free. Outside any guard (a call that
 * does not do input-sized work) a failure is an internal error (it aborts). */
typedef struct tine_oom_point {
    jmp_buf jb;
    struct tine_oom_point *prev;
} tine_oom_point;
extern _Thread_local tine_oom_point *tine_oom_top;
_Noreturn void tine_out_of_memory(size_t bytes);
/* After malloc, calloc or realloc: NULL is running out of memory (above), not a bug. */
#define TINE_CHECK_ALLOC(c)                                                             \
    do {                                                                                \
        if (!(c)) tine_out_of_memory(0);                                                \
    } while (0)
/* The guard's landing: pops p and sets ctx's limit error (expr.c). */
void tine_oom_caught(tine_ctx_t *ctx, tine_oom_point *p);
/* Pops p; the size of the allocation that failed (0: unknown) (util.c). */
size_t tine_oom_pop(tine_oom_point *p);
/* result = call, in the guard of a public function: when memory runs out inside the call,
 * the function returns fail. The function should hold little else: its own locals are
 * not restored by the jump. */
#define TINE_GUARD(ctx, fail, result, call)                                             \
    do {                                                                                \
        tine_oom_point oom_point_ = {.prev = tine_oom_top};                             \
        if (setjmp(oom_point_.jb)) {                                                    \
            tine_oom_caught((ctx), &oom_point_);                                        \
            return fail;                                                                \
        }                                                                               \
        tine_oom_top = &oom_point_;                                                     \
        result = call;                                                                  \
        tine_oom_top = oom_point_.prev;                                                 \
    } while (0)

/* ---- checked allocation and growable arrays -------------------------------------
 * The one way the library allocates from the heap: a failure is running out of memory
 * (tine_out_of_memory above), and a size that overflows size_t is one too. */
void *tine_xmalloc(size_t n);
void *tine_xcalloc(size_t n, size_t size);
void *tine_xrealloc(void *p, size_t n);
void *tine_xrealloc_array(void *p, size_t n, size_t size);
/* The capacity an array of capacity cap grows to so that it holds need elements
 * (doubling, at least 8). */
size_t tine_grow_cap(size_t cap, size_t need);
/* Grows the array p (of capacity cap, any integer lvalue) to hold need elements; the new
 * elements are uninitialized (TINE_GROW) or zero (TINE_GROW_ZERO). */
#define TINE_GROW(p, need, cap)                                                         \
    do {                                                                                \
        if ((size_t)(need) > (size_t)(cap)) {                                           \
            size_t c_ = tine_grow_cap((size_t)(cap), (size_t)(need));                   \
            (p) = tine_xrealloc_array((p), c_, sizeof *(p));                            \
            (cap) = c_;                                                                 \
        }                                                                               \
    } while (0)
#define TINE_GROW_ZERO(p, need, cap)                                                    \
    do {                                                                                \
        if ((size_t)(need) > (size_t)(cap)) {                                           \
            size_t o_ = (size_t)(cap), c_ = tine_grow_cap(o_, (size_t)(need));          \
            (p) = tine_xrealloc_array((p), c_, sizeof *(p));                            \
            memset((p) + o_, 0, (c_ - o_) * sizeof *(p));                               \
            (cap) = c_;                                                                 \
        }                                                                               \
    } while (0)
/* p[n++] = x, growing p first. */
#define TINE_PUSH(p, n, cap, x)                                                         \
    do {                                                                                \
        TINE_GROW((p), (size_t)(n) + 1, (cap));                                         \
        (p)[(n)++] = (x);                                                               \
    } while (0)

/* Seconds on the monotonic clock (for deadlines and timings). */
double tine_now(void);

/* ---- growable byte buffer (strings) ------------------------------------------- */

typedef struct {
    char *p;
    size_t n, cap;
} tine_buf;
void tine_buf_putc(tine_buf *b, char c);
void tine_buf_puts(tine_buf *b, const char *s);
void tine_buf_printf(tine_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tine_buf_vprintf(tine_buf *b, const char *fmt, va_list ap);
/* A malloc'd string, printf-formatted (whatever its length). */
char *tine_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Decimal text of an exact integer; returns out. */
char *tine_i128_str(tine_i128 v, char out[48]);

/* ---- nodes ---------------------------------------------------------------------- */

enum { TINE_F_UNIFORM = 1 }; /* constant: one stored value for all lanes */

/* 16 bytes of header, then the operands, then trailing words: a constant's lane values
 * (two words per value), or a variable's or load's interned name (one word). The hash
 * lives in the context's table, beside the node's id. */
struct tine_expr {
    uint16_t op;
    uint8_t nops;
    uint8_t flags;
    tine_type_t type;
    uint32_t id;
    uint32_t imm; /* slice: begin | stride << 10 | count << 20; deinterleave: n | k << 10 */
    tine_expr_t *ops[];
};

static inline const uint64_t *tine_node_words(const tine_expr_t *e) {
    return (const uint64_t *)(const void *)&e->ops[e->nops];
}
static inline int tine_node_nwords(const tine_expr_t *e) {
    if (e->op == TINE_OP_CONST) return 2 * ((e->flags & TINE_F_UNIFORM) ? 1 : e->type.lanes);
    return e->op == TINE_OP_VAR || e->op == TINE_OP_LOAD;
}
static inline void tine_slice_params(const tine_expr_t *e, int *begin, int *stride, int *count) {
    *begin = (int)(e->imm & 1023);
    *stride = (int)((e->imm >> 10) & 1023);
    *count = (int)((e->imm >> 20) & 1023);
}
static inline void tine_deinterleave_params(const tine_expr_t *e, int *n, int *k) {
    *n = (int)(e->imm & 1023);
    *k = (int)((e->imm >> 10) & 1023);
}
tine_u128 tine_const_value(const tine_expr_t *e, int lane);

/* ---- context -------------------------------------------------------------------- */

typedef struct {
    const char **names;
    uint32_t n, cap;
    uint32_t *table; /* open addressing: name id + 1, 0 empty */
    uint32_t tcap;
} tine_strtab;

typedef struct tine_isa tine_isa;
enum { TINE_MAX_ISAS = 4 };
enum { TINE_PENDING = 16 };
typedef struct tine_ast tine_ast;
struct tine_kernel_ast_s;
struct tine_kdecl_s;

/* The layers above the IR core that keep state per context, in layer order. Each owns
 * one slot of the context (tine_layer_get/_set): its own struct, private to its file,
 * made on first use and freed by the destructor it registers; tine_ctx_free frees the
 * slots from the highest layer down. Their order also ranks the elaborator's hooks. */
typedef enum {
    TINE_LAYER_FPIR,    /* FPIR definitions, templates, expansions (src/fpir/fpir.c) */
    TINE_LAYER_TARGETS, /* target descriptions (src/targets/isa.c) */
    TINE_LAYER_INTRIN,  /* C intrinsics by name (src/targets/intrin.c) */
    TINE_LAYER_BOUNDS,  /* bounds cache and scopes (src/bounds/bounds.c) */
    TINE_LAYER_RULES,   /* rule compiler and matcher (src/rules/rules.c) */
    TINE_LAYER_LIFT,    /* the built-in lift rules (src/lift/lift.c) */
    TINE_LAYER_LOWER,   /* lowering rules per description (src/lower/lower.c) */
    TINE_LAYER_PEEPHOLE, /* the peephole's compiled passes per instruction set (src/peephole/peephole.c) */
    TINE_LAYER_N
} tine_layer;
typedef void (*tine_layer_free_fn)(tine_ctx_t *ctx, void *state);

/* Elaborator extensions (src/ir/elab.h): a call hook answers for the names it knows. */
typedef struct tine_elab tine_elab;
struct tine_elab_val;
typedef bool (*tine_elab_call_fn)(tine_elab *el, const tine_ast *a, int lanes, struct tine_elab_val *out);
enum { TINE_ELAB_EXTS = 4 };

/* The meaning of the core's nodes that are not primitive ops, from the layers that own
 * it: an FPIR op's definition (src/fpir/fpir.c, tine_fpir_install) and an instruction's
 * semantics and name (src/targets/isa.c, tine_isa_install); tine_ctx_new installs both.
 * The core (constructor, interpreter, printer) reaches them only through these. */
typedef struct {
    /* The template of FPIR op `op` on operands of types t[0..n-1] giving rt (placeholders
     * in *ph), or NULL when its definition does not apply there (*why: the reason). */
    const tine_expr_t *(*fpir_template)(tine_ctx_t *ctx, tine_op_t op, int n, const tine_type_t *t,
                                        tine_type_t rt, const tine_expr_t *const **ph, const char **why);
    /* An instruction node's semantics (primitive ops only when expanded), as tine_insn_template. */
    const tine_expr_t *(*insn_template)(tine_ctx_t *ctx, const tine_expr_t *e, const tine_expr_t *const **ph,
                                        bool expanded);
    /* An instruction's name. */
    const char *(*insn_name)(tine_ctx_t *ctx, uint32_t code);
} tine_node_sem;

struct tine_ctx {
    tine_arena arena;      /* nodes and everything that lives as long as the context */
    uint64_t *table;       /* hash-consing table: hash << 32 | (id + 1); 0 is empty */
    tine_expr_t **by_id;   /* node by id */
    uint32_t by_id_cap;
    uint64_t *filter;      /* 4 bits per table slot, 2 set per node: "certainly new" */
    uint32_t filter_log2;  /* log2 of the filter's size in bits */
    uint64_t pending[TINE_PENDING]; /* new nodes not yet in the table, as table words */
    uint32_t npending;
    uint32_t tcap, count;  /* table capacity (power of two), nodes */
    tine_strtab names;
    int lanes;
    char *error;
    tine_error_kind_t error_kind; /* of error; see tine_set_error_kind */
    tine_node_sem sem; /* FPIR and instruction nodes' meaning (above) */
    /* the layers' own state (tine_layer) */
    void *layer[TINE_LAYER_N];
    tine_layer_free_fn layer_free[TINE_LAYER_N];
    /* context-wide elaborator hooks (tine_elab_extend), highest layer first */
    struct {
        tine_elab_call_fn fn;
        unsigned modes;
        int layer;
    } elab_ext[TINE_ELAB_EXTS];
    int nelab_ext;
};

/* A layer's state in ctx, or NULL before it set one. */
static inline void *tine_layer_get(const tine_ctx_t *ctx, tine_layer l) { return ctx->layer[l]; }
/* Sets a layer's state (once) and the destructor tine_ctx_free calls with it. */
void tine_layer_set(tine_ctx_t *ctx, tine_layer l, void *state, tine_layer_free_fn free_fn);
/* Layer l's state, made on first use: `size` zeroed bytes, freed by free_fn. */
void *tine_layer_make(tine_ctx_t *ctx, tine_layer l, size_t size, tine_layer_free_fn free_fn);
/* A context with the IR core's state only (expr.c); tine_ctx_new (context.c) adds the
 * hooks of the layers that extend the language from the start. */
tine_ctx_t *tine_ctx_core_new(void);

/* Errors are user input (TINE_ERROR_INPUT) unless set otherwise: located diagnostics and
 * every message about what the caller passed. A documented limit (sizes, counts) or a
 * failed allocation is TINE_ERROR_LIMIT; tine's own bug (an invalid LLVM module, an
 * invariant reported instead of asserted) is TINE_ERROR_INTERNAL. */
void tine_set_error(tine_ctx_t *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tine_set_error_kind(tine_ctx_t *ctx, tine_error_kind_t kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define tine_set_limit_error(ctx, ...) tine_set_error_kind((ctx), TINE_ERROR_LIMIT, __VA_ARGS__)
#define tine_set_internal_error(ctx, ...) tine_set_error_kind((ctx), TINE_ERROR_INTERNAL, __VA_ARGS__)
void tine_set_error_str(tine_ctx_t *ctx, char *msg); /* takes ownership (malloc'd); kind input */
/* Re-kinds the error held (a located diagnostic built by a helper that sets it as input). */
void tine_error_set_kind(tine_ctx_t *ctx, tine_error_kind_t kind);
/* The error held, taken out of ctx (which then holds none) to be put back by
 * tine_error_restore: for a step that may fail harmlessly while an earlier error must
 * survive it. Restoring replaces whatever the step left. */
typedef struct {
    char *msg;
    tine_error_kind_t kind;
} tine_saved_error;
tine_saved_error tine_error_save(tine_ctx_t *ctx);
void tine_error_restore(tine_ctx_t *ctx, tine_saved_error *saved);
uint32_t tine_intern_name(tine_ctx_t *ctx, const char *s, size_t n);
const char *tine_name(const tine_ctx_t *ctx, uint32_t id);

/* The one node constructor: checks nothing, interns. Constants pass their lane words. */
tine_expr_t *tine_make(tine_ctx_t *ctx, tine_op_t op, tine_type_t t, int nops,
                       tine_expr_t *const *ops, uint32_t imm, int flags,
                       const uint64_t *words, int nwords);
void tine_table_resize(tine_ctx_t *ctx, uint32_t cap);
/* Constant from 128-bit lane values (canonicalized, uniform detected). */
tine_expr_t *tine_const_u128(tine_ctx_t *ctx, tine_type_t t, const tine_u128 *vals);
tine_expr_t *tine_const_splat(tine_ctx_t *ctx, tine_type_t t, tine_u128 v);
/* Whether v (an exact integer) is representable in integer/bool type t. */
bool tine_fits(tine_type_t t, tine_i128 v);
/* A float lane's bits as its value (f32 widened exactly), and a value rounded to float
 * type t's bits (binary32: through C's float conversion, round to nearest). */
double tine_float_of_bits(tine_type_t t, tine_u128 bits);
tine_u128 tine_bits_of_float(tine_type_t t, double d);
/* Canonical form of a raw value in type t (truncate, then sign/zero-extend). */
tine_u128 tine_canon(tine_type_t t, tine_u128 v);
/* Integer limits as exact values (bits <= 128). */
tine_i128 tine_min_i128(tine_type_t t);
tine_i128 tine_max_i128(tine_type_t t);
/* Smallest integer type holding both ranges; invalid type if none. */
tine_type_t tine_type_join(tine_type_t a, tine_type_t b);
const char *tine_type_name(tine_type_t t, char buf[16]); /* element only: "u8" */
/* Parses an element type name ("u8", "i16", "f32", "bool"); returns 0 on failure. */
int tine_parse_type_name(const char *s, size_t n, tine_type_t *out);

/* ---- FPIR --------------------------------------------------------------------- */

typedef enum {
#define X(s) TINE_SIG_##s,
    TINE_FPIR_SIGS(X)
#undef X
} tine_fpir_sig;

typedef struct {
    const char *name;
    int arity;
    tine_fpir_sig sig;
    bool commutative; /* the two operands may be swapped */
    int rank;         /* weight in the lift cost (tine_lift_cost) */
    const char *definition;
} tine_fpir_info;
extern const tine_fpir_info tine_fpir_table[TINE_FPIR_COUNT];

/* Result type of an FPIR op on operands of the given types, or an invalid type with an
 * error in ctx. */
tine_type_t tine_fpir_result_type(tine_ctx_t *ctx, tine_op_t op, int n,
                                  const tine_type_t *args, tine_type_t tparam);
/* The type an untyped literal gets as operand i of an FPIR op whose first operand has
 * type t0 (the parser types it, the printer decides whether it may print it bare). */
tine_type_t tine_fpir_literal_type(tine_op_t op, int i, tine_type_t t0);
/* e with every subexpression of constants evaluated (and selects on a constant condition
 * resolved): tine_eval's meaning, in fewer nodes (fpir.c). */
tine_expr_t *tine_fold_constants(tine_ctx_t *ctx, tine_expr_t *e);
/* The primitive-op form of one FPIR node (its operands are kept as they are). */
tine_expr_t *tine_fpir_expand_node(tine_ctx_t *ctx, const tine_expr_t *e);
/* e's definition one level down (its FPIR ops kept); NULL where it does not apply. */
tine_expr_t *tine_fpir_define(tine_ctx_t *ctx, const tine_expr_t *e);
/* root with the n (at most 4) nodes from[i] replaced by to[i] (of the same types), its
 * other nodes rebuilt on the replacements; ops of every kind are kept. */
tine_expr_t *tine_substitute(tine_ctx_t *ctx, const tine_expr_t *root, const tine_expr_t *const *from,
                             tine_expr_t *const *to, int n);
/* Cached template: the definition instantiated on placeholder variables $0, $1, $2 of
 * the node's operand types, fully expanded (fpir.c). */
const tine_expr_t *tine_fpir_template(tine_ctx_t *ctx, const tine_expr_t *e,
                                      const tine_expr_t *const **placeholders);
/* Installs FPIR's templates in ctx->sem (fpir.c; tine_ctx_new calls it). */
void tine_fpir_install(tine_ctx_t *ctx);
/* The core's view of a non-primitive node through ctx->sem: an FPIR node's template
 * (expanded by construction) or an instruction node's semantics (fpir_ops.c). */
const tine_expr_t *tine_node_template(tine_ctx_t *ctx, const tine_expr_t *e, const tine_expr_t *const **ph,
                                      bool expanded);
const char *tine_insn_name(tine_ctx_t *ctx, uint32_t code);

/* ---- text ---------------------------------------------------------------------- */

/* Placeholder bindings used when elaborating definitions (and later rules). */
typedef struct {
    const char *name;
    tine_expr_t *expr;
} tine_binding;

typedef enum {
    TINE_ELAB_EXPR,    /* user expressions and FPIR definitions */
    TINE_ELAB_PATTERN, /* a rule's left side: x:T and x_u8 are wildcards ?x, c0 is ?c0 */
    TINE_ELAB_RHS,     /* a rule's right side: names and c0 are bound by a match */
    TINE_ELAB_PRED,    /* a rule's predicate: folds to a 0/1 literal */
} tine_elab_mode;

typedef struct {
    tine_type_t T, U, R; /* type variables; invalid when unbound */
    const tine_binding *binds;
    int nbinds;
    int lanes;           /* lanes of leaves at the root */
    bool definition;     /* an FPIR definition (placeholders x, y, s) */
    tine_elab_mode mode;
    tine_i128 cvals[10]; /* values of c0..c9 (RHS, PRED), where cbound has their bit */
    uint32_t cbound;
    bool static_only;    /* PRED: wildcards and c0.. are unknown (decides on T alone) */
    bool cwild_vars;     /* RHS: c0.. become variables ?c0 typed by position (templates) */
    bool fold;           /* integer operations of uniform constants become constants (kernels:
                            an unrolled reduction's terms share what they compute alike) */
    const struct tine_elab_hooks *hooks; /* a front end's extension (elab.h); NULL: none */
    void *hook_data;     /* the front end's state, for its hooks */
} tine_elab_env;

/* A reduction whose bounds are parameters, not constants: a loop. The body it appears in
 * reads its result as the variable `result`; the loop runs r from lo to hi - 1 (an empty
 * range leaves init), each step acc = update, an expression of acc and r. Reductions
 * nested in its body (parent = its index) run inside the loop, before update. Internal
 * variable names start with "$." ($.r0, $.acc0, $.red0; coordinates are $.c0..$.c3), which
 * no parameter or buffer name can produce. */
typedef struct {
    tine_expr_t *r;               /* i32, one lane */
    tine_expr_t *acc, *result;    /* the body's type */
    tine_expr_t *lo, *hi;         /* i32, one lane: parameters and constants */
    tine_expr_t *init, *update;   /* the identity (0, T.max for min, T.min for max); op(acc, body) */
    tine_expr_t *body;            /* the reduced term (update = op(acc, body)) */
    int parent;                   /* the enclosing loop reduction, or -1 */
    tine_op_t op;                 /* TINE_OP_ADD (sum), TINE_OP_MIN, TINE_OP_MAX */
    const char *name;             /* the variable's name in the source (k of sum(k in ...)) */
} tine_reduction;

typedef struct tine_reductions {
    tine_reduction *v;
    int n, cap;
    int current; /* the loop being elaborated, or -1 */
    int base;    /* v[i]'s variables are numbered base + i: each stage has its own */
    int vector;  /* 1 + the reduction whose variable is a ramp of the body's lanes (a
                    vectorized reduction's body, tine_rvec), or 0 */
    long steps;  /* set by tine_kernel_elaborate: the steps it took (a caller that
                    elaborates many times keeps its own budget of them) */
    /* `vectorize f.i N` of a reduction with constant bounds (kernel_elab.c): each one over
       cvec runs cvec_n terms at once at cvec_n times the lanes, the lanes of each point's
       terms adjacent, reduced to the point's lane; cvec_seen counts those elaborated, and
       cvec_float those of floats (refused: not vectorized) */
    const char *cvec;
    int cvec_n, cvec_seen, cvec_float;
} tine_reductions;

/* Parse text into an AST owned by arena; NULL with ctx error on failure. */
tine_ast *tine_parse_ast(tine_ctx_t *ctx, tine_arena *arena, const char *text,
                         const char *file);
tine_expr_t *tine_elaborate(tine_ctx_t *ctx, const tine_ast *ast, const tine_elab_env *env);
/* A predicate's value: 0 with *v set; -1 when it depends on what static_only hides;
 * -2 on an error (message in ctx). */
int tine_elaborate_pred(tine_ctx_t *ctx, const tine_ast *ast, const tine_elab_env *env, tine_i128 *v);
/* tine_print appended to b, with leaves' lanes relative to `lanes` (the statement printer
 * prints each expression at its own lanes, so scalars read x_i32, not x_i32x1). */
/* A primitive op's infix or prefix token ("+", "~"), or NULL (ops.c, from tine_ops.h). */
const char *tine_op_token(tine_op_t op);
void tine_print_buf(tine_ctx_t *ctx, const tine_expr_t *e, int lanes, tine_buf *b);
/* The same, with variables printed by their names alone when bare (the operands of an
 * instruction's semantics, whose types its signature declares). */
void tine_print_named(tine_ctx_t *ctx, const tine_expr_t *e, int lanes, bool bare, tine_buf *b);

/* ---- walking ------------------------------------------------------------------------ */

/* Nodes reachable from root, children first (sorted by id); malloc'd. */
tine_expr_t **tine_topo(tine_ctx_t *ctx, const tine_expr_t *root, uint32_t *count);
/* Whether x is a node of root's DAG (root itself included). */
bool tine_dag_contains(tine_ctx_t *ctx, const tine_expr_t *root, const tine_expr_t *x);
/* Position of e in a tine_topo() array. */
uint32_t tine_topo_index(tine_expr_t *const *order, uint32_t count, const tine_expr_t *e);
/* For an op that only moves lanes (broadcast, concat, interleave, slice, deinterleave):
 * which operand (*op) and lane (*lane) lane i of e comes from. False for any other op. */
bool tine_lane_source(const tine_expr_t *e, int i, int *op, int *lane);
/* The values of a DAG, children first, each node once: the walk the interpreter and the
 * SMT encoder share. A node listed in pre[] takes prevals[j] (a definition's placeholders
 * bound to its operands' values); every other node gets what visit makes of it from its
 * operands' values (ov[i] for e->ops[i]). *out gets the root's value. Stops at the first
 * visit that returns non-zero, and returns that. */
typedef int (*tine_dag_visit_fn)(void *user, const tine_expr_t *e, void *const *ov, void **val);
int tine_dag_values(tine_ctx_t *ctx, const tine_expr_t *root, int npre, const tine_expr_t *const *pre,
                    void *const *prevals, tine_dag_visit_fn visit, void *user, void **out);
/* e with new operands of the same types. */
tine_expr_t *tine_rebuild(tine_ctx_t *ctx, const tine_expr_t *e, tine_expr_t *const *ops);
/* The one-lane form of e when all its lanes are equal by construction (broadcasts,
 * uniform constants, arithmetic on them); NULL when a lane may differ (expr.c). */
tine_expr_t *tine_one_lane(tine_ctx_t *ctx, tine_expr_t *e);
/* e with node v replaced by r wherever it occurs. */
tine_expr_t *tine_replace(tine_ctx_t *ctx, tine_expr_t *e, const tine_expr_t *v, tine_expr_t *r);

/* ---- bounds (bounds.c) ------------------------------------------------------------ */

/* A range holding every lane of e for every input; false when none can be stated. */
bool tine_bounds(tine_ctx_t *ctx, const tine_expr_t *e, tine_i128 *lo, tine_i128 *hi);
/* Scopes of supplied ranges (tine_bounds_set_var): facts that hold for some evaluations
 * only (one kernel run's values) are supplied inside a scope and dropped when it closes,
 * restoring what was there. A clean scope hides every fact from outside it: compiling a
 * kernel selects in one, so the code depends only on what holds for every run. Scopes
 * nest; close returns to the state before the matching open (its returned value). */
int tine_bounds_open(tine_ctx_t *ctx, bool clean);
void tine_bounds_close(tine_ctx_t *ctx, int scope);
/* Supplies, in the current scope, a range holding every element ever stored in buffer
 * `buffer` (element type elem): its loads get it. The statement pass that selects
 * instructions supplies what the stores into a kernel's own buffers show; -1 if the
 * range is empty or leaves the type. */
int tine_bounds_set_buffer(tine_ctx_t *ctx, const char *buffer, tine_type_t elem, int64_t lo, int64_t hi);
/* Advances whenever the facts in view change: a cache of results computed with bounds
 * (a rewrite memo) is valid for the epoch it was filled in only. */
uint64_t tine_bounds_epoch(tine_ctx_t *ctx);

/* ---- selection trace (lower.c) ---------------------------------------------------- */

/* Called by tine_select_expr after tine's selection of a vector expression (one-lane
 * ones are LLVM's): before, lifted into FPIR, and after, while the bounds facts the
 * rules' predicates saw are still in view; and, if rule is not NULL, before that for
 * every lift and lowering rule applied to it (a subexpression lifted before, and
 * remembered, shows none). For a layer above (src/verify's translation validation, the
 * report's selection table: driver/api.c), which the layers that select must not call.
 * fn NULL removes it. */
typedef void (*tine_select_trace_fn)(void *user, tine_ctx_t *ctx, const tine_expr_t *before, const tine_expr_t *lifted,
                                     const tine_expr_t *after, const char *target);
void tine_select_set_trace(tine_ctx_t *ctx, tine_select_trace_fn fn, tine_lift_trace_fn rule, void *user);

/* ---- kernels (pipeline/kernel.c) ------------------------------------------------------ */

tine_ctx_t *tine_kernel_ctx(const tine_kernel_t *k);
/* A kernel body elaborated at `lanes` lanes with the kernel front end's hooks
 * (pipeline/kernel_elab.c): binds are the output's coordinates, loop reductions go to rs. */
tine_expr_t *tine_kernel_elaborate(tine_ctx_t *ctx, const struct tine_kernel_ast_s *k, const tine_ast *body,
                                   const tine_binding *binds, int nbinds, int lanes, tine_reductions *rs);
const char *tine_kernel_output_name(const tine_kernel_t *k);

/* The scalars of kernel bodies, as typed data. A parameter is the variable `$NAME` of its
 * type; a number of a buffer's geometry is the i32 variable `$BUFFER$min0` (extent,
 * stride; dimensions 0..3): identifiers cannot hold a '$', so no parameter or other
 * buffer's name can produce it. Each kernel builds, once, the table of every scalar its
 * bodies may read; the planner, the interpreter and the code generators find a variable's
 * meaning there (never by its name). */
typedef enum { TINE_KS_PARAM, TINE_KS_MIN, TINE_KS_EXTENT, TINE_KS_STRIDE } tine_ks_what;
typedef struct {
    const tine_expr_t *var;
    tine_ks_what what;
    int param; /* TINE_KS_PARAM: the parameter's index; else -1 */
    int input; /* geometry of input `input`, or -1 */
    int stage; /* geometry of stage `stage`'s buffer (the last stage: the output), or -1 */
    int dim;   /* geometry: the dimension */
} tine_kscalar;
/* The variables, made the same way by the elaborator and the table. */
tine_expr_t *tine_kernel_param_var(tine_ctx_t *ctx, const char *param, tine_type_t t);
tine_expr_t *tine_kernel_geometry_var(tine_ctx_t *ctx, const char *buffer, tine_ks_what what, int dim);
/* The kernel's table: n entries; the entry of a variable, or NULL (coordinates, loop
 * variables, anything else); the entry of one buffer's geometry. */
const tine_kscalar *tine_kernel_scalars(const tine_kernel_t *k, int *n);
const tine_kscalar *tine_kernel_scalar_of(const tine_kernel_t *k, const tine_expr_t *var);
const tine_kscalar *tine_kernel_geometry(const tine_kernel_t *k, int input, int stage, tine_ks_what what, int dim);
/* The most functions check() lets a kernel materialize, plus one (the output). Only the
 * checker uses it: the library sizes every array by the kernel's own counts. */
enum { TINE_KERNEL_MAX_STAGES = 17 };
/* Why a name cannot be a kernel's (or its inputs', params', output's) name in the C header
 * of an object compiled ahead of time, or NULL. */
const char *tine_c_name_clash(const char *name);

/* One loop of a stage's nest: a coordinate's, or one that split, fuse or reorder made
 * (pipeline/kernel_loops.c); stmt/build_nest.c builds the list. */
struct tine_kdirective_s; /* a schedule directive (ir/ast.h) */
typedef enum {
    TINE_KLOOP_WHOLE, /* coordinate dim over its whole range */
    TINE_KLOOP_OUTER, /* split: blocks of `factor` of coordinate dim */
    TINE_KLOOP_INNER, /* split: coordinate dim within its block (outer is outside it) */
    TINE_KLOOP_FUSED  /* coordinates dim (inner) and dim2 (outer) walked as one loop */
} tine_kloop_kind;
typedef struct {
    const char *name; /* as the schedule names it: a coordinate or a split's or fuse's name */
    tine_kloop_kind kind;
    int dim, dim2, factor;
    int unroll;       /* 0 or 1: not unrolled */
    int partition;    /* 1 + tine_partition_mode; 0: not given (auto) */
    bool parallel;
    /* the directives that gave the unroll, partition mode and parallel (NULL: none), for
       errors that name both of two directives that say it twice (kernel_loops.c) */
    const struct tine_kdirective_s *unroll_by, *partition_by, *parallel_by;
} tine_kloop;
enum { TINE_KLOOPS_MAX = 8 };
/* The vector loop: the first coordinate's whole loop, or the inner loop of its split. */
static inline bool tine_kloops_is_vector(const tine_kloop *l) {
    return l->dim == 0 && (l->kind == TINE_KLOOP_WHOLE || l->kind == TINE_KLOOP_INNER);
}

/* A stage: the output, or a materialized function, computed over a region into a buffer
 * of its name (the output's, or a scratch buffer); bodies over the coordinates $.c0.. */
typedef struct {
    const char *name;
    const char *coord[4]; /* the declared names of its coordinates (loop names: out.x) */
    tine_type_t type; /* element type */
    int dims, lanes;
    tine_expr_t *body, *body1; /* at `lanes` lanes and at one lane */
    tine_reductions reds, reds1;
    int tile[2];     /* tile sizes of the first two coordinates (a plain nest); 0 = not tiled */
    /* compute_at (kernel_slide.c, stmt/build.c): fold > 0 when the stage is computed row
       by row inside stage at's loop over its coordinate at_dim, a sliding window over the
       stage's coordinate fold_dim (its rows; not the first): at that loop's iteration y,
       stage at reads rows [a*y + base + lo, a*y + base + hi] (base: an i32 one-lane
       expression of kernel scalars and at's outer coordinates, or NULL for 0), and the
       buffer keeps `fold` rows (a power of two > hi - lo), row r at (r - min) & (fold -
       1). Each coordinate d after fold_dim is read at one value per run of the row loop,
       slide_outer[d] (of the same kind as base): the buffer keeps that one slice, and the
       window restarts when it changes (with at's outer coordinates). */
    int fold, fold_dim, at, at_dim, slide_a;
    /* at_strip > 0: computed at the outer loop (at's loops[at_loop]) of a split of at_dim
       by at_strip: at each strip, the rows of the strip's window not computed before;
       fold covers the whole strip's window (a*(at_strip - 1) + hi - lo + 1 rows) */
    int at_loop, at_strip;
    /* ctile > 0: computed inside channel tiles (a split's outer loop of at's first
       coordinate outside the loop it is computed at, or at itself so computed): at reads
       its first coordinate at at's $.c0 + [c_lo, c_hi] only, so each computation covers
       ctile = (at's tile width) + c_hi - c_lo of it; the buffer keeps that many (stride
       min(extent, ctile)), indexed from the tile's first, $.<vp><name>$org (build.c) */
    int ctile, c_lo, c_hi;
    bool c_split; /* the tile is at's split (not at's own tile) */
    int64_t slide_lo, slide_hi;
    tine_expr_t *slide_base, *slide_outer[4];
    /* the window as the first and last row at's iteration y reads, i32 expressions of
       at's coordinate $.c<at_dim> that never decrease as it grows (a*y + base + lo and
       + hi above). slide_a == 0: a function with several readers (kernel_slide.c), its
       rows its last coordinate (fold_dim = dims - 1), and only these describe its window:
       at y the rows [max(first(y), last(y - 1) + 1), last(y)] */
    tine_expr_t *slide_first, *slide_last;
    struct tine_rvec *rvec; /* loop reductions vectorized along their variable */
    int nrvec;
    /* its loops, outermost first, with their unroll, partition mode and parallel (the
       vector loop's unroll: whole vectors per iteration). reshaped false: the plain nest,
       one loop per coordinate, the last outermost (tine_stage_loop); true: the list its
       split, fuse and reorder made (pipeline/kernel_loops.c) */
    tine_kloop loops[TINE_KLOOPS_MAX];
    int nloops;
    bool reshaped;
} tine_stage;

/* The loop of coordinate d of a stage's plain nest (not reshaped). */
static inline const tine_kloop *tine_stage_loop(const tine_stage *st, int d) { return &st->loops[st->dims - 1 - d]; }
/* A loop's unroll factor, 1 when it is not unrolled. */
static inline int tine_kloop_unroll(const tine_kloop *l) { return l->unroll > 1 ? l->unroll : 1; }

/* A loop reduction of a stage vectorized along its own variable (`vectorize out.k N`):
 * for each lane of the stage's vector, its coordinate 0 the variable $.x0, the loop runs
 * N values of the variable at a time into an accumulator of `acc` lanes (groups of N / acc
 * adjacent terms summed first, so dot-product instructions apply), reduces it across its
 * lanes, then finishes the remainder one value at a time. vec is the stage body
 * elaborated at N lanes with coordinate 0 broadcast from $.x0 and reduction `index`'s
 * variable a ramp; tail the body at one lane with coordinate 0 $.x0. Their reductions
 * are numbered as the stage's, so index names the same reduction in reds, reds1, vec and
 * tail. */
typedef struct tine_rvec {
    int index, lanes, acc;
    tine_reductions vec, tail;
} tine_rvec;

/* Stages in the order they run (their count: tine_kernel_nstages, tine.h). */
const tine_stage *tine_kernel_stage(const tine_kernel_t *k, int i);
/* The value of parameter i of a run (params[i] points at it; bool: one byte). */
int64_t tine_kernel_param_value(const tine_kernel_t *k, int i, const void *const *params);
/* A run's bindings for the plan and the statement (stmt/run.c): every variable of
 * tine_call_var for the output and each input (inputs may be NULL), every parameter, and
 * the data of each caller's buffer by name. */
tine_env_t *tine_call_bind(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                           tine_buffer_t *out);
/* The loop reductions of a body (scalar: the one-lane body). */
const tine_reduction *tine_kernel_reductions(const tine_kernel_t *k, int scalar, int *n);
/* The coordinates of a load the elaborator built (index = (x0 - min0) + (x1 - min1) *
 * stride1 + ...), outermost last; false if the index has another shape. */
bool tine_kernel_load_coords(const tine_expr_t *index, int dims, const tine_expr_t **x);
/* kernel_slide.c: the window of every stage computed at another's loop (compute_at),
 * from its consumer's reads; false with a located error where the reads do not slide. */
bool tine_kernel_slide(tine_ctx_t *ctx, const struct tine_kernel_ast_s *k, tine_stage *stages, const struct tine_kdecl_s *const *decls,
                       int nstages);
/* The dimension a coordinate variable ($.c0..$.c3) stands for, or -1. */
int tine_kernel_coord_dim(const char *var);
/* Whether a variable is the compiler's own (coordinates, reduction variables). */
static inline bool tine_kernel_internal_var(const char *var) { return var[0] == '$' && var[1] == '.'; }

/* ---- a map from uint64 to uint64 (util.c) ----------------------------------------- *
 * Open addressing, for memos keyed by expression ids or pointers; zero-initialise it. */
typedef struct {
    uint64_t *key, *val; /* keys stored + 1: 0 is an empty slot */
    uint32_t cap, n;
} tine_u64map;
bool tine_u64map_get(const tine_u64map *m, uint64_t k, uint64_t *v);
void tine_u64map_put(tine_u64map *m, uint64_t k, uint64_t v);
void tine_u64map_free(tine_u64map *m);

/* ---- random numbers (splitmix64; tests and CLI) ---------------------------------- */

static inline uint64_t tine_rand64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- interpreter (internal form, 128-bit lanes) ----------------------------------- */

int tine_eval128(tine_ctx_t *ctx, const tine_expr_t *e, tine_env_t *env, tine_u128 *out);
int tine_env_bind128(tine_env_t *env, const tine_expr_t *var, const tine_u128 *lanes);
/* What the statement interpreter (src/stmt/interp.c) needs of an environment: a bound
 * variable's lanes (false if unbound), removing a variable's or a buffer's binding (so
 * later reads are errors), and a buffer's binding. Buffers are bound as `const void *`
 * but the statement interpreter's stores write them in place: tine_env_buffer hands the
 * pointer back writable, and callers of tine_stmt_run bind buffers it may write. */
bool tine_env_lookup128(tine_env_t *env, const tine_expr_t *var, tine_u128 *lanes);
void tine_env_unbind(tine_env_t *env, const tine_expr_t *var);
void tine_env_unbind_buffer(tine_env_t *env, const char *name);
bool tine_env_buffer(tine_env_t *env, const char *name, tine_type_t *elem, void **data, size_t *count);

/* ---- target descriptions (src/targets/isa.c) -------------------------------------- */

enum { TINE_INSN_MAX_OPS = 6 }; /* a masked ternary form: src, k, a, b, c and an immediate */
typedef struct {
    int bits;          /* register width */
    const char *reg;   /* xmm, ymm, zmm */
    uint32_t features; /* the features it needs (all of them), a mask over the description's */
    const char *llvm;  /* LLVM target intrinsic; NULL: the semantics as generic IR */
    const char *c;     /* C intrinsic */
    const char *c_arg; /* its fixed last argument, after the operands (_mm256_cmp_ps's
                          predicate _CMP_LT_OQ), or NULL */
} tine_insn_form;

struct insn_tmpl;
typedef struct {
    const char *name;
    int nops;
    const char *opname[TINE_INSN_MAX_OPS];
    tine_type_t optype[TINE_INSN_MAX_OPS]; /* element types (a fixed entry's: exact, with lanes) */
    tine_type_t result;                    /* element type (a fixed entry's: exact, with lanes) */
    int probe_lanes[TINE_INSN_MAX_OPS];    /* operand lanes at one register of the first form */
    int probe_result;                      /* and the result's lanes there */
    const tine_ast *sem;
    tine_insn_form form[4];
    int nforms;
    double lat, rtp;
    bool pack, generic;
    int imm; /* the operand that is an immediate (its lane 0, as i32, in the intrinsic call), or -1 */
    bool imm_neg; /* the intrinsic takes it negated (srshr #n as srshl by -n) */
    int imm_bits; /* `imm NAME BITS`: the bits of its useful values (0: not given) */
    /* `fixed` (an imported entry, src/targets/x86.gen.isa): one intrinsic at one register
       width, operand types exact (a scalar has one lane, boolxN is an AVX-512 mask); no
       lowering rule picks it, and without an `llvm` line the emitter refuses it */
    bool fixed, has_llvm;
    struct insn_tmpl **tmpl;
    int ntmpl, captmpl;
} tine_insn;

/* The built-in description of that name ("x86"), or the first one for NULL; NULL if none.
 * One read on request ("x86gen", the imported intrinsics) is read by the first call that
 * names it; its instruction names are known from then on. */
const tine_isa *tine_isa_get(tine_ctx_t *ctx, const char *name);
/* A description read on request ("x86gen"), read from other text (a file being checked,
 * a test's sample) in its place; NULL with a located error, or when it is read already. */
const tine_isa *tine_isa_get_from(tine_ctx_t *ctx, const char *name, const char *text, const char *file);
/* What the lowering driver charges for node x alone on target (its operands not counted;
 * an FPIR op no rule lowers costs its definition): cycles; -1 when x is an instruction the
 * target lacks. src/lower/lower.c. */
double tine_lower_node_cost(tine_ctx_t *ctx, const char *target, const tine_expr_t *x);
/* What e costs lowered for target with the rules rs (each node once, as the lowering
 * charges it; an FPIR op no rule lowers at its definition's cost); -1 if it cannot be.
 * *rewritten (if not NULL): whether a rule applied. */
double tine_lower_cost_in(tine_ctx_t *ctx, tine_expr_t *e, const char *target, const tine_ruleset_t *rs,
                          bool *rewritten);
/* The lowering rules of a built-in description (text; *file its path), or NULL. */
const char *tine_isa_rules(const tine_isa *isa, const char **file);
/* The rules `tine synth lower` found for it (NAME.synth.rules), or NULL where there are none. */
const char *tine_isa_synth_rules(const tine_isa *isa, const char **file);
/* The name of the i-th built-in description ("x86", "arm"), or NULL past the end. */
const char *tine_isa_name(int i);
/* The hooks an instruction's semantics is elaborated with: lanes(x), and calls of
 * imported entries by name (mm_adds_epi8(a, b)). */
const struct tine_elab_hooks *tine_isa_sem_hooks(void);
/* Registers instruction names with the elaborator (every expression may call one). */
void tine_isa_install(tine_ctx_t *ctx);
/* A description from text (not registered with the context: its instructions cannot be
 * named in expressions); NULL with a located error. For checking description files. */
tine_isa *tine_isa_parse(tine_ctx_t *ctx, const char *text, const char *file);
void tine_isa_free(tine_isa *isa);
/* The code (the INSN node's immediate) of an instruction by name, or -1. */
int tine_isa_lookup(tine_ctx_t *ctx, const char *name);
const tine_insn *tine_insn_info(tine_ctx_t *ctx, uint32_t code, const tine_isa **isa);
/* The feature mask of a target the description names (*found says whether it does). */
uint32_t tine_isa_target(const tine_isa *isa, const char *target, bool *found);
/* The form of an instruction to emit for a result of `bits` bits with these features:
 * the widest the target has that the result fills, else the narrowest it has (the
 * operands are padded); -1 if the target has none. Both emitters pick by it. */
int tine_insn_pick_form(const tine_insn *in, uint32_t features, int bits);
/* An instruction node; NULL with an error when the operands do not fit it. */
tine_expr_t *tine_insn_make(tine_ctx_t *ctx, uint32_t code, int n, tine_expr_t *const *ops);
/* The operands' lanes for a result of `lanes` lanes (the ratios are the description's);
 * false if there are none (or more than TINE_MAX_LANES). */
bool tine_insn_operand_lanes(const tine_insn *in, int lanes, int *out);
/* The features a target has, as a mask over the x86 description's features ("host":
 * this CPU's); an unknown target sets an error. */
uint32_t tine_target_features(tine_ctx_t *ctx, const char *target, const tine_isa **isa);
/* The semantics of an instruction node on placeholders (*ph, one per operand), with its
 * FPIR ops, or expanded to primitive ops. */
const tine_expr_t *tine_insn_template(tine_ctx_t *ctx, const tine_expr_t *e, const tine_expr_t *const **ph,
                                      bool expanded);

/* Instruction k of isa (built in or parsed) at `lanes` result lanes, FPIR ops kept, on
 * placeholders (*ph, one per operand); NULL when it has no such lane count. */
const tine_expr_t *tine_isa_insn_sem(tine_ctx_t *ctx, const tine_isa *isa, int k, int lanes, const tine_expr_t *const **ph);

#endif
