/* lower_search.h — the state of one `tine synth lower` search, shared by its files
 * (private to src/synth): lower_synth.c enumerates (the bank, the grammar, the levels,
 * the driver), lower_values.c gives an expression's values and cost, lower_check.c checks a match (the counterexamples, Z3, the meet in the
 * middle, the near-miss fix-ups), lower_compose.c composes rules from FPIR definitions. */
#ifndef TINE_LOWER_SEARCH_H
#define TINE_LOWER_SEARCH_H

#include "synth.h"

#include "../verify/smt.h"

/* Expressions are built at one xmm register of the spec's narrowest variable (S->zl
 * lanes, at most Z3_LANES: costs count registers from there, and Z3 proves there), and
 * evaluated at EVAL_LANES (every instruction's semantics holds at any lane count). */
enum { EVAL_LANES = 128, Z3_LANES = 16, MAX_VARS = 5, MAX_CEX = 64, MAX_TYPES = 12 };

typedef struct {
    uint64_t key;
    int units;
} cost_slot;

typedef struct {
    bool op[TINE_OP_COUNT];
    int64_t konst[16]; /* constants in the expansion */
    int nkonst;
} opset;

/* The items of one type (at Z3 lanes), in the order they were found: by cost. */
typedef struct {
    tine_type_t t;
    size_t *idx;
    size_t n, cap;
} bucket;

enum { MAX_BUCKETS = 64 };

typedef struct {
    tine_expr_t *e;  /* at S->zl lanes (proofs and printing) */
    tine_type_t et;  /* its type at EVAL_LANES */
    size_t val;      /* offset of its EVAL lanes' values in the pool */
    int cost, size;  /* cost in quarters of a cycle; operator nodes */
    bool konst;      /* a constant: never every operand of a node */
    bool uniform;    /* one value in every lane (made of c0 and constants): a shift count */
} item;

typedef struct {
    tine_ctx_t *ctx;
    const tine_synth_lower_opts *o;
    const char *target;
    uint32_t features;
    const synth_spec *spec;
    tine_expr_t *want_z, *want_e; /* the spec at Z3 and EVAL lanes */
    tine_expr_t *vz[MAX_VARS], *ve[MAX_VARS];
    int nvars;
    tine_env_t *env;              /* the fingerprint inputs */
    tine_env_t *cex[MAX_CEX];     /* counterexamples (and the exhaustive sweep's envs) */
    int ncex;
    uint64_t *want_vals;
    tine_type_t types[MAX_TYPES]; /* the related element types */
    int ntypes;
    item *items;
    size_t n, cap;
    uint64_t *pool;
    size_t npool, pcap;
    uint32_t *slots;
    size_t nslots;
    size_t *level; /* items by cost: level[c]..level[c+1] once c is done */
    double deadline;
    tine_smt *smt;
    tine_synth_lower_stats *st;
    uint64_t seed;
    cost_slot *memo; /* node costs by grammar entry and operand types */
    size_t nmemo;
    int zl; /* lanes of the expressions built */
    opset spec_ops;
    bucket buckets[MAX_BUCKETS];
    int nbuckets;
    int bound;         /* the dearest rewrite worth a rule */
    int last_level;    /* the last cost level searched */
    size_t last_items; /* and the bank's size then */
} search;


typedef enum { G_BIN, G_UN, G_CAST, G_REINT, G_CMP, G_SELECT, G_INSN, G_ILV, G_DEILV } gkind;

typedef struct {
    gkind kind;
    int op;          /* the primitive op; the instruction's code; deinterleave's k */
    int arity;
    tine_type_t to;  /* casts' and reinterprets' element type */
    tine_type_t in[3]; /* an instruction's operand element types */
} gram;


typedef struct {
    tine_expr_t *found; /* proven equal to the spec */
    int cost;
    tine_expr_t *pend;  /* proven, but dearer than the level searched (a meet or a fix-up) */
    int pend_cost;
} result;


/* ---- lower_values.c ---- */

/* v as a lane of type t holds it (masked to the bits; bool to 0/1). */
uint64_t synth_canon(tine_type_t t, uint64_t v);
/* e evaluated in env, each lane canonical; false where it does not evaluate. */
bool synth_eval_in(search *S, tine_env_t *env, const tine_expr_t *e, uint64_t *out);
/* The inputs: edges or random, or the counterexample's lanes (fixed) repeated. */
tine_env_t *synth_make_env(search *S, bool edges, const uint64_t (*fixed)[Z3_LANES]);
/* Does item i have type t and values v? */
bool synth_same_item(search *S, size_t i, tine_type_t t, const uint64_t *v);
static inline uint64_t synth_vals_hash(tine_type_t t, const uint64_t *v) { return synth_hash_vals(t, v, t.lanes); }
/* Costs in quarters of a cycle (-1: not on this target): of a node built; of grammar
 * entry g on operands x; of a whole tree as the search prices it. */
int synth_expr_units(search *S, const tine_expr_t *node);
int synth_node_units(search *S, const gram *g, item *const *x);
int synth_tree_units(search *S, tine_expr_t *e);
/* e (at Z3 lanes) rebuilt at EVAL lanes, for the checks on other inputs. */
tine_expr_t *synth_at_eval(search *S, const tine_expr_t *e);
/* Binds the spec's variables and values; false if it does not elaborate. */
bool synth_bind_spec(search *S, const synth_spec *sp);
/* Is the spec of this name asked for (--op: names' beginnings, comma-separated)? */
bool synth_wanted(const char *only, const char *name);
/* Placeholder j of type t (a grammar node's operand); grammar entry g built on a. */
tine_expr_t *synth_placeholder(search *S, int j, tine_type_t t);
tine_expr_t *synth_build(search *S, const gram *g, tine_expr_t **a);

/* ---- lower_check.c ---- */

/* The item with values v (of type t at EVAL lanes), or -1. */
long synth_find_vals(search *S, tine_type_t t, const uint64_t *v);
/* Is e, whose values match the spec's, equal to it (the counterexamples, then Z3)? */
bool synth_proven(search *S, tine_expr_t *e);
/* Item i, which misses the spec, as one side of a meet in the middle, or fixed up. */
void synth_meet(search *S, size_t i, result *R);
void synth_fix_up(search *S, size_t i, result *R);

/* ---- lower_compose.c ---- */

/* After level t's searches: FPIR definitions lowered by the rules found so far (F),
 * where cheaper, become rules of F. */
void synth_compose(search *S, synth_found **F, size_t *nf, size_t *fcap, const synth_spec *specs, size_t nspecs,
                   const char *t);

#endif
