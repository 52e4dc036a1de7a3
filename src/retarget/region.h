/* region.h — private to src/retarget: the state of one file's rewriting and the values
 * of its runs (values.c), shared by the statements' rewriting (retarget.c). */
#ifndef TINE_RETARGET_REGION_H
#define TINE_RETARGET_REGION_H

#include "../cfront/cfront.h"
#include "../codegen/c.h"
#include "../targets/intrin.h"
#include "retarget.h"

/* The most vectors one variable holds (an array of them, a tuple). */
enum { TINE_RT_MAXVEC = 32 };

typedef struct {
    const tine_cnode *decl;
    const char *name;
    int n;                   /* 1, or a tuple's or an array's vectors */
    tine_type_t ir;          /* each vector's type */
    tine_expr_t *val[TINE_RT_MAXVEC];  /* the value in this run; NULL: the C variable's */
    tine_expr_t *leaf[TINE_RT_MAXVEC]; /* the C variable's, read as a leaf */
    bool dirty;              /* val is not in the C variable yet */
    bool scalar;             /* an inlined helper's integer parameter (its copy) */
    char cname[32];          /* the copy's C name */
    int mark;                /* its declaration's mark in the output (rt.declused) */
    int alias;               /* an inlined helper's pointer to the caller's vectors: that
                                variable's index, or -1 */
    bool is_constant;        /* a scalar known to be cval (an unrolled loop's variable) */
    int64_t cval;
} vvar;

/* A loop being widened (widen.c): one memory access of its body, the same in each copy,
 * and the windows of memory its copies read or write at once. */
typedef struct {
    char *base;            /* its address less a constant, as C (a byte address) */
    int64_t off;           /* the constant, in bytes */
    int64_t delta;         /* bytes it moves from one copy to the next */
    int64_t bytes;         /* bytes it reads or writes in one copy */
    tine_type_t elem;      /* its elements' type */
    bool store;
    int win;               /* its window, or -1 */
} rt_access;

typedef struct {
    int64_t lo, hi;        /* bytes from the base, the copies' accesses tiling them */
    int first, last;       /* its first and last access in a copy */
    tine_expr_t *wide;     /* a load window's value, read with copy 0's first access */
    tine_expr_t **part;    /* a store window's values (each copy's), by offset */
    int64_t *part_off;
    int nparts;
} rt_window;

typedef struct {
    const tine_cnode *var[4]; /* the loop's counters (k++, i += 16: two) */
    int64_t step[4];       /* what the loop adds to each */
    int nvar;
    int f, copy;           /* copies; the one being evaluated */
    bool planning;         /* copy 0 evaluated only to find the accesses */
    int seq;               /* accesses seen in this copy */
    const char *why;       /* why the loop cannot be widened (the attempt stops) */
    bool unjoined;         /* a value the copies did not join into one computation */
    rt_access *acc;
    int nacc, capacc;
    rt_window *win;
    int nwin;
    tine_expr_t *plan[8];  /* while planning, the accumulators' values before the body */
    int nplan;
} rt_wide;

typedef struct rt {
    tine_ctx_t *ctx;
    const tine_cfile *f;
    const char *text;
    const char *from, *to, *ffam;
    tine_cemit *em;
    vvar *vars;
    int nvars, capvars;
    int ntmp;
    char indent[64];
    tine_rt_report *report;
    bool failed;
    int inline_depth;       /* helpers being inlined */
    bool *declused;         /* per declaration written: whether its C variable is read or written */
    struct { const tine_cnode *decl; unsigned off; } *refs; /* the function's reads of vector variables */
    const tine_cnode **written; /* the vector variables written after their declaration */
    int nwritten, capwritten;
    int nrefs, caprefs;
    tine_crange loops[32];  /* the loops being rewritten, outermost first */
    int nloops;
    int ndecl, capdecl;
    /* a call of a helper of this file, inlined (retarget.c: the statements' rewriting,
       which the values' evaluation reaches through this) */
    int (*inline_call)(struct rt *r, const tine_cfunc *fn, const tine_cnode *call, tine_expr_t **vals, tine_buf *out);
    /* a straight body run in place (retarget.c's run_inline), for widen.c */
    int (*run_body)(struct rt *r, const tine_cnode *s, tine_expr_t **vals, int *n, tine_buf *out);
    rt_wide *wide;          /* the loop being widened, or NULL */
    /* scalar operands copied, for another read of the same text to share (values.c) */
    struct rt_capture { char *text; tine_type_t t; tine_expr_t *leaf; int block; } *caps;
    int ncaps, capcaps;
    int blocks[64], nblocks, nextblock; /* the blocks being rewritten (ids), innermost last */
    const tine_cnode **swritten;        /* the scalar variables the function writes */
    int nswritten, capswritten;
    bool no_widen;          /* --no-widen */
    /* a load in a loop being widened (widen.c, which values.c reaches through this) */
    tine_expr_t *(*wide_load)(struct rt *r, const tine_cnode *p, tine_type_t elem, int lanes, tine_buf *out);
} rt;

/* ---- values.c ---- */

bool rt_fail_at(rt *r, tine_cpos at, const char *fmt, const char *arg);
char *rt_dup_range(const rt *r, tine_crange g);
vvar *rt_var_of(rt *r, const tine_cnode *decl);
bool rt_const_of(rt *r, const tine_cnode *e, int64_t *v);
bool rt_is_vec(const tine_ctype *t);
int rt_vec_count(const tine_ctype *t, tine_type_t *elem);
tine_type_t rt_ir_type(const tine_ctype *t);
tine_expr_t *rt_as_type(rt *r, tine_expr_t *v, tine_type_t t, tine_cpos at);
tine_expr_t *rt_leaf(rt *r, const char *cname, tine_type_t t);
void rt_node_text_into(rt *r, const tine_cnode *e, unsigned *pos, tine_buf *b);
char *rt_node_text(rt *r, const tine_cnode *e);
tine_expr_t *rt_capture_scalar(rt *r, const tine_cnode *a, tine_type_t t, tine_buf *out, char *cname);
char *rt_ptr_text(rt *r, const tine_cnode *p);
tine_expr_t *rt_capture_load(rt *r, const tine_cnode *p, tine_type_t elem, int lanes, tine_buf *out);
tine_expr_t *rt_load_at(rt *r, const char *addr, int64_t off, tine_type_t elem, int lanes, tine_buf *out);
bool rt_store_at(rt *r, const char *addr, int64_t off, tine_expr_t *v, tine_cpos at, tine_buf *out);
bool rt_place(rt *r, const tine_cnode *e, vvar **v, int *slot, int *count);
tine_expr_t *rt_scalar_value(rt *r, const tine_cnode *a, tine_type_t t, tine_buf *out);
int rt_eval_call(rt *r, const tine_cnode *e, tine_expr_t **vals, tine_buf *out, tine_expr_t **stored, const tine_cnode **ptr);
const tine_cfunc *rt_local_func(const rt *r, const char *name);
bool rt_vector_helper(const rt *r, const char *name);
int rt_eval(rt *r, const tine_cnode *e, tine_expr_t **vals, tine_buf *out);
const char *rt_sink(rt *r, tine_expr_t *e, tine_buf *out, tine_cpos at);
bool rt_has_vector(rt *r, const tine_cnode *e);

/* ---- widen.c ---- */

/* A loop of 128-bit code written at the target's width, when it can be (accs: the vector
 * variables of the function its body assigns whole, accumulators): true if it was
 * (the loop as written must follow, for the iterations that remain: *rest is the header
 * to write it with, *close whether a brace opened before the widened loop closes after
 * it). false with nothing written if not. */
bool rt_widen_loop(rt *r, const tine_cnode *s, const tine_cnode *const *accs, int nacc, tine_buf *out, char **rest,
                   bool *close);
/* A store in a loop being widened: written at once, or at the last copy with the others'. */
bool rt_wide_store(rt *r, tine_expr_t *v, const tine_cnode *p, tine_cpos at, tine_buf *out);
tine_expr_t *rt_wide_load(rt *r, const tine_cnode *p, tine_type_t elem, int lanes, tine_buf *out);

#endif
