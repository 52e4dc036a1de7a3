/* vectorize.h — tine vectorize: a spec (spec.h) vectorized by equality saturation
 * (search.c), the chosen program emitted through LLVM (emit_llvm.c) or as C with the
 * target's intrinsics (emit_c.c).
 *
 * The language of the e-graph (Diospyros's vector DSL): the scalar ops of spec.h with the
 * same numbers; DC, a lane no output needs; VEC, a vector of `width` scalar classes (a lane
 * each); a vector op per scalar op (VZ_V(op)), lane i of which is the scalar op on lane i
 * of its operands; LIST, the root, the output chunks in order.
 */
#ifndef TINE_VECTORIZE_H
#define TINE_VECTORIZE_H

#include "../egraph/egraph.h"
#include "../peephole/optimize.h"
#include "spec.h"

enum { VZ_DC = 16, VZ_VEC = 17, VZ_LIST = 18, VZ_VBASE = 32 };
#define VZ_V(op) (VZ_VBASE + (op))
#define VZ_IS_V(op) ((op) >= VZ_VBASE)

/* The targets tine vectorize emits for, and their f32 lanes. */
typedef struct {
    const char *name;   /* tine's target name */
    int bits;           /* vector register */
    bool arm;           /* Neon (else x86) */
    bool two_source;    /* a one-instruction two-register permute (vpermt2ps, tbl2) */
} vz_target;
const vz_target *vz_target_find(const char *name);
const char *vz_target_names(void); /* "x86-64-sse41, ..." for messages */

typedef struct {
    bool reassociate;   /* AC rules on (equal over the reals, not bit for bit) */
    bool contract;      /* a*b + c may become one fma */
    bool no_vectorize;  /* the spec as scalar code (the ablation) */
    bool prove_fpa;     /* strict mode: also prove every output in Z3's FPA (tine verify --vectorized) */
    unsigned fpa_timeout_ms;
    bool wrong_identity; /* tests only: lift with x = x + 0, which -0 breaks (validation must catch it) */
    eg_limits limits;
} vz_options;

/* A chunk of outputs: `width` lanes of the outputs laid end to end (the output arrays'
 * elements in order, one array after another, as Diospyros's list), each lane an element
 * (array -1: a lane no output needs). */
typedef struct {
    eg_id cls;
    int array[16], elem[16];
} vz_chunk;

typedef struct {
    const vz_spec *spec;
    const vz_target *target;
    int width;          /* lanes */
    eg_graph *g;
    eg_id root;
    uint32_t *best;     /* per class, the chosen node */
    vz_chunk *chunk;    /* the chosen layout's */
    int nchunks, layout; /* layout: 0 flat, 1 rows, 2 split (search.c) */
    eg_report report;
    double tree_cost, dag_cost, seconds;
    size_t spec_nodes;
} vz_program;

/* How a vector of leaves (kids: W classes of input elements, constants, DC) is built, the
 * one plan the cost model prices and the emitters follow: sources (the constants as one
 * vector; an element broadcast; a register-wide window of an array, kept inside it) and
 * per lane its source (-1: DC or not a leaf) and the lane of the source it takes. */
enum { VZ_SRC_CONST, VZ_SRC_BROADCAST, VZ_SRC_WINDOW };
typedef struct {
    int kind, array, start; /* BROADCAST: the element; WINDOW: the first element */
} vz_source;
typedef struct {
    int nsrc;
    vz_source src[17];
    int8_t lane_src[16], lane_at[16];
} vz_leaf_plan;
void vz_plan_leaves(const eg_graph *g, const vz_spec *s, int W, const eg_id *kids, vz_leaf_plan *plan);

/* Whether class c is one leaf (an input element, a constant, DC; leaves never merge with
 * computations), and that node. */
bool vz_leaf(const eg_graph *g, eg_id c, eg_node *n);

/* The runs of a chunk's lanes bound for consecutive elements of one array. */
typedef struct {
    int lane, array, elem, len;
} vz_run;
int vz_store_runs(const vz_chunk *ch, int W, vz_run *runs); /* runs: W at most */

/* Saturates and extracts; NULL with an error (a limit that leaves no program). */
vz_program *vz_search(tine_ctx_t *ctx, const vz_spec *s, const vz_target *t, const vz_options *o);
void vz_program_free(vz_program *p);
/* The chosen node of class c. */
eg_node vz_chosen(const vz_program *p, eg_id c);
/* Whether class c holds a vector (else a scalar). */
bool vz_is_vector(const vz_program *p, eg_id c);
/* Statistics as text (--emit egraph-stats). */
void vz_stats(const vz_program *p, tine_buf *b);

/* validate.c: the program against the spec, output by output: 0, or -1 with an error. In
 * strict mode each stored lane must be the spec's own computation (up to identities exact
 * in IEEE arithmetic); otherwise equal over the reals (prove.c). */
typedef struct {
    int outputs;        /* stored lanes checked */
    int proven_fpa;     /* of them, proven one by one in Z3's FPA (with prove_fpa) */
    int by_identities;  /* with prove_fpa: Z3 gave up, equal by rewriting with the proven identities */
    bool reals;         /* checked over the reals (--reassociate, --contract) */
} vz_validation;
int vz_validate(tine_ctx_t *ctx, const vz_program *p, const vz_options *o, vz_validation *out);
/* prove.c: got[i] == want[i] for every i over the reals (nodes of t; sqrt uninterpreted),
 * proven by Z3: 0, or -1 with the first pair not proven. */
int vz_prove_reals(tine_ctx_t *ctx, const vz_spec *t, const int32_t *got, const int32_t *want, int n);

/* prove.c: got[i] == want[i] in IEEE arithmetic (RNE; NaNs one value), proven by Z3's
 * floating-point theory through the SMT encoding of src/verify (names: the spec whose
 * arrays name the inputs, or NULL). Where Z3 gives up (timeout_ms) on a pair whose
 * fallback[i] is set (equal after rewriting with the proven identities), that stands
 * (*by_identities). 0; 1 when Z3 gave up on another pair; -1 refuted. *proven counts the
 * pairs proven directly. */
int vz_prove_fpa(tine_ctx_t *ctx, const vz_spec *t, const vz_spec *names, const int32_t *got, const int32_t *want, int n,
                 unsigned timeout_ms, const bool *fallback, int *proven, int *by_identities);
/* The exact identities of the lifting rules, proven once per process for the type. */
int vz_prove_identities(tine_ctx_t *ctx, tine_type_t elem);

/* tprog.c: the chosen program as a target-level program for its target (src/tprog):
 * vector ops as IR ops on f32xW (f64xW), scalar ops on one lane, each vector of leaves an
 * input, one output per chunk (chunk i: output i); selected, then the peephole and the
 * schedule (tine_tprog_optimize with opt; its contract flag should be the options'), each
 * step's line appended to report when it is not NULL. A kernel that reads an output's
 * own elements stores last. NULL with an error. */
typedef struct {
    tine_tprog *prog;
    /* per input of prog: the class whose leaf plan builds it (a vector: array -1), or, for
       a scalar, the class of the GET and the element it reads */
    eg_id *in_cls;
    int *in_array, *in_elem;
    int cap;
    tine_peep_stats peep; /* what the peephole did */
} vz_tprog;
vz_tprog *vz_tprog_new(tine_ctx_t *ctx, const vz_program *p, const tine_tprog_opt *opt, tine_buf *report);
void vz_tprog_free(vz_tprog *t);

/* emit_c.c: the program (t, p's target-level program) as C with the target's intrinsics,
 * in t's order (malloc'd; NULL with an error). */
char *vz_emit_c(tine_ctx_t *ctx, const vz_program *p, const vz_tprog *t, size_t *size);

/* emit_llvm.c: the program as an object, assembly or LLVM text (kind TINE_EMIT_*), the
 * function named and typed as the C kernel. */
char *vz_emit_llvm(tine_ctx_t *ctx, const vz_program *p, tine_emit_kind_t kind, size_t *size);
/* The header declaring the function. */
char *vz_emit_header(const vz_program *p);

#endif
