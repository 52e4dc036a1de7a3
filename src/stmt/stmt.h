/* stmt.h — the statement IR: loop nests over tine expressions.
 *
 * A kernel's stages become one statement each (src/stmt/build.c) and the passes of
 * src/stmt/passes.c rewrite it (partitioning, simplification); the statement interpreter
 * (interp.c) runs any statement on concrete buffers, so each pass is checked by running
 * its input and its output; codegen walks the final statement into LLVM.
 *
 * Statements are immutable trees allocated in a tine_stmt_pool (an arena the caller
 * owns); a pass builds a new tree and shares the subtrees it does not change.
 * Expressions inside are ordinary hash-consed tine expressions of the pool's context.
 * Loop variables and let-bound names are i32 (lets: any type) variables of that context;
 * buffers are named (inputs, stage buffers, scratch) and read by `load` expressions.
 */
#ifndef TINE_STMT_H
#define TINE_STMT_H

#include "../internal.h"

typedef enum {
    TINE_S_FOR,      /* var from min while var < min + extent, by step */
    TINE_S_LET,      /* var = value in body */
    TINE_S_STORE,    /* buffer[index] = value (index and value of the same lanes) */
    TINE_S_ALLOCATE, /* scratch buffer of `size` elements of `type`, live in body */
    TINE_S_FREE,     /* the end of an allocation's use (the last statement of its body) */
    TINE_S_IF,       /* cond (bool, one lane) ? then : else (else may be NULL) */
    TINE_S_BLOCK,    /* statements in order */
    TINE_S_ASSERT,   /* cond, or the run stops with code and message */
    TINE_S_EVALUATE, /* an expression evaluated for its effects (none today; kept for passes) */
} tine_stmt_kind;

/* How a loop runs. A vectorized loop's body was built at `step` lanes: its variable is
 * the first lane's coordinate, it advances by step, and its extent is a multiple of step.
 * An unrolled loop has a constant extent and is emitted once per iteration. A parallel
 * loop's iterations are independent and write disjoint memory: codegen outlines its body
 * and runs contiguous chunks of its range on threads (src/codegen/parallel.c; a parallel
 * loop inside another one's body runs serially); the interpreter runs it in order. Its
 * step is 1. */
typedef enum { TINE_LOOP_SERIAL, TINE_LOOP_VECTORIZED, TINE_LOOP_UNROLLED, TINE_LOOP_PARALLEL } tine_loop_kind;

/* What the schedule says about splitting a loop into prologue, steady state and
 * epilogue (`partition f.x auto|always|never`, partition.c): auto partitions when a
 * boundary condition in the body depends on the loop variable (or a vector index is
 * clamped against another loop invariant); always also when that
 * leaves nothing to remove (then the epilogue is the loop's last iteration, the steady
 * state the rest, the prologue empty); never keeps the loop whole. The parts are named
 * "S.x.pro", "S.x" (the steady state keeps the name) and "S.x.epi", and marked never. */
typedef enum { TINE_PARTITION_AUTO, TINE_PARTITION_ALWAYS, TINE_PARTITION_NEVER } tine_partition_mode;

typedef struct tine_stmt tine_stmt;
struct tine_stmt {
    tine_stmt_kind kind;
    union {
        struct {
            tine_expr_t *var, *min, *extent; /* i32, one lane */
            int step;                        /* 1, or the lanes of a vectorized loop */
            tine_loop_kind loop;
            tine_partition_mode partition;
            const char *name;                /* the schedule's name for it, "out.x" (printing, errors) */
            tine_stmt *body;
            /* A vectorized loop may say how to do its work one element at a time: for
               elem_var in [min, min + extent) run elem_body computes what it computes
               (the builder's one-lane body). Partitioning runs a prologue and an epilogue
               that way: a few elements of scalar code instead of vectors gathered lane
               by lane. NULL when unknown; passes that rebuild a loop keep it
               (tine_stmt_for_like); interpretation and codegen ignore it. */
            tine_expr_t *elem_var;
            tine_stmt *elem_body;
        } loop;
        struct {
            tine_expr_t *var, *value;
            tine_stmt *body;
        } let;
        struct {
            const char *buffer;              /* interned in the context */
            tine_type_t type;                /* element type (one lane) */
            tine_expr_t *index, *value;      /* index: i32 of value's lanes */
        } store;
        struct {
            const char *buffer;
            tine_type_t type;                /* element type */
            tine_expr_t *size;               /* i32 (or i64) elements, one lane */
            tine_stmt *body;
        } alloc;
        struct {
            const char *buffer;
        } free_;
        struct {
            tine_expr_t *cond;
            tine_stmt *then_, *else_;
        } if_;
        struct {
            tine_stmt **v;
            int n;
        } block;
        struct {
            tine_expr_t *cond;
            int code;                        /* the run's return code when cond is false */
            const char *message;             /* each "{}" stands for the next arg's value */
            tine_expr_t **args;              /* one-lane integers, evaluated only on failure */
            int nargs;                       /* at most TINE_ASSERT_MAX_ARGS */
        } assert_;
        struct {
            tine_expr_t *value;
        } eval;
    };
};

/* Statements live in a pool: an arena, and the context of their expressions. */
typedef struct {
    tine_ctx_t *ctx;
    tine_arena arena;
} tine_stmt_pool;

void tine_stmt_pool_init(tine_stmt_pool *p, tine_ctx_t *ctx);
void tine_stmt_pool_free(tine_stmt_pool *p);

/* Constructors. They check the invariants above with TINE_ASSERT: statements are built by
 * the compiler, never parsed from user text, so a broken one is tine's bug. */
tine_stmt *tine_stmt_for(tine_stmt_pool *p, tine_expr_t *var, tine_expr_t *min, tine_expr_t *extent, int step,
                         tine_loop_kind loop, tine_partition_mode part, const char *name, tine_stmt *body);
/* Loop `old` over another range and body: its variable, step, kind, partition mode,
 * name and element-wise form kept. */
tine_stmt *tine_stmt_for_like(tine_stmt_pool *p, const tine_stmt *old, tine_expr_t *min, tine_expr_t *extent,
                              tine_stmt *body);
tine_stmt *tine_stmt_let(tine_stmt_pool *p, tine_expr_t *var, tine_expr_t *value, tine_stmt *body);
tine_stmt *tine_stmt_store(tine_stmt_pool *p, const char *buffer, tine_expr_t *index, tine_expr_t *value);
tine_stmt *tine_stmt_allocate(tine_stmt_pool *p, const char *buffer, tine_type_t type, tine_expr_t *size,
                              tine_stmt *body);
tine_stmt *tine_stmt_free(tine_stmt_pool *p, const char *buffer);
tine_stmt *tine_stmt_if(tine_stmt_pool *p, tine_expr_t *cond, tine_stmt *then_, tine_stmt *else_);
/* A block of n statements (NULLs skipped; one statement is returned as itself). */
tine_stmt *tine_stmt_block(tine_stmt_pool *p, tine_stmt *const *v, int n);
tine_stmt *tine_stmt_block2(tine_stmt_pool *p, tine_stmt *a, tine_stmt *b);
tine_stmt *tine_stmt_assert(tine_stmt_pool *p, tine_expr_t *cond, int code, const char *message);
/* An Assert whose message shows values: each "{}" in message is replaced by the next of
 * args (one-lane integers, evaluated when cond fails), as tine_stmt_assert_text does. */
enum { TINE_ASSERT_MAX_ARGS = 16 };
tine_stmt *tine_stmt_assert_args(tine_stmt_pool *p, tine_expr_t *cond, int code, const char *message,
                                 tine_expr_t *const *args, int nargs);
/* Assert `old` with another condition, its code, message and args kept. */
tine_stmt *tine_stmt_assert_like(tine_stmt_pool *p, const tine_stmt *old, tine_expr_t *cond);
/* An Assert's message with its args' values in place of the "{}"s (malloc'd). The
 * interpreter and the JIT both make their error text with it. */
char *tine_stmt_assert_text(const char *message, const int64_t *vals, int nvals);
tine_stmt *tine_stmt_evaluate(tine_stmt_pool *p, tine_expr_t *value);

/* A copy of s with its expressions mapped through f (NULL from f keeps the expression)
 * and its statements rebuilt only where something changed. `f` sees every expression
 * slot: loop bounds, let values, store indices and values, sizes, conditions. */
typedef tine_expr_t *(*tine_stmt_expr_fn)(void *user, tine_expr_t *e);
tine_stmt *tine_stmt_map_exprs(tine_stmt_pool *p, tine_stmt *s, tine_stmt_expr_fn f, void *user);

/* s with every vectorized loop replaced by f(p, loop) (not looking inside those), the
 * statements around them rebuilt where something changed. */
typedef tine_stmt *(*tine_stmt_loop_fn)(tine_stmt_pool *p, tine_stmt *loop);
tine_stmt *tine_stmt_map_vector_loops(tine_stmt_pool *p, tine_stmt *s, tine_stmt_loop_fn f);
/* The same for the loops `take` chooses (of any kind; the others are looked inside), f
 * given user. */
typedef tine_stmt *(*tine_stmt_loop_user_fn)(void *user, tine_stmt_pool *p, tine_stmt *loop);
tine_stmt *tine_stmt_map_loops(tine_stmt_pool *p, tine_stmt *s, bool (*take)(const tine_stmt *loop),
                               tine_stmt_loop_user_fn f, void *user);

/* Calls f on every statement of s, parents before children. */
void tine_stmt_visit(const tine_stmt *s, void (*f)(void *user, const tine_stmt *s), void *user);

/* ---- printer (print.c) ---------------------------------------------------------------------
 * Text like Halide's .stmt listings: one statement per line, nested bodies indented. */
char *tine_stmt_print(tine_ctx_t *ctx, const tine_stmt *s); /* malloc'd */

/* ---- interpreter (interp.c) ----------------------------------------------------------------
 * Runs s with the variables and buffers of env (tine_env_bind, tine_env_bind_buffer: the
 * buffers its stores write are written in place). Allocations are zeroed scratch, bound
 * for their body. Returns 0; an Assert that fails returns its code with its message as the
 * context's error; a load or store outside its buffer, or another evaluation error,
 * returns -1 with the error. */
int tine_stmt_run(tine_ctx_t *ctx, const tine_stmt *s, tine_env_t *env);

#endif
