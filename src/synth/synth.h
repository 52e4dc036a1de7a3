/* synth.h — what src/synth's files share (the search's entry point, tine_synth_lift, is
 * public: tine.h). */
#ifndef TINE_SYNTH_H
#define TINE_SYNTH_H

#include <stdio.h>

#include "../internal.h"

/* ---- rule_text.c: a proven (lifted, better) pair as a rule in lift.rules' syntax ---- */

/* How far the rule is generalised: constants kept exact or turned into predicates, the
 * type variable free, fixed to the example's signedness, or to its type. */
typedef enum { SYNTH_GEN_ALL, SYNTH_GEN_SIGN, SYNTH_GEN_TYPE, SYNTH_GEN_EXACT, SYNTH_GEN_COUNT } tine_synth_gen;

/* Writes `name: lhs -> rhs [if pred] [priority p]  # why` for lhs -> rhs at level g;
 * false when the pair has what the rule language cannot state (more than three
 * constants, an op it has no pattern for). */
bool tine_synth_rule_text(tine_buf *b, const char *name, const tine_expr_t *lhs, const tine_expr_t *rhs,
                          tine_synth_gen g, int priority, const char *why);

/* ---- fingerprint.c: expressions indexed by their values on the search's inputs ------- */

/* Open addressing: slots hold an item's index + 1 (0: empty). */
typedef struct {
    uint32_t *slots;
    size_t nslots;
} synth_index;

uint64_t synth_hash_vals(tine_type_t t, const uint64_t *v, int n);
/* Rebuilds the index at twice its size (at least 2n slots) from items 0..n-1's hashes. */
void synth_rehash(synth_index *x, size_t n, uint64_t (*hash)(void *user, size_t i), void *user);

/* ---- specs.c: what `tine synth lower` finds lowerings for -------------------------- */

enum { SYNTH_MAX_VARS = 5 };

typedef struct {
    char name[48];
    char tmpl[128];   /* $0..$3 the variables, $c a uniform count (c0), @F a grouped sum's lanes */
    int nvars;
    const char *var[SYNTH_MAX_VARS];
    tine_type_t type[SYNTH_MAX_VARS];       /* element types */
    int64_t lo[SYNTH_MAX_VARS], hi[SYNTH_MAX_VARS]; /* a range the inputs keep (lo < hi), else none */
    bool uniform[SYNTH_MAX_VARS];           /* one value in every lane (c0) */
    char pred[96];    /* the rule's predicate: what the ranges and c0 need */
    int priority;
    bool swizzle;     /* interleaves in the grammar (the spec widens or sums groups) */
    bool shift_var;   /* the last variable is a per-lane shift count the grammar may shift by */
    bool insns_only;  /* a window: instructions and interleaves only */
} synth_spec;

/* Every spec (malloc'd array; its count returned). */
size_t synth_specs(synth_spec **out);
/* The spec as an expression at `lanes` lanes (variables typed by suffix), for tine_parse. */
void synth_spec_text(tine_buf *b, const synth_spec *s, int lanes);
/* Is the spec a primitive op (min, max)? The lowering charges the generic form of one
 * as a single cheap op even where LLVM emulates it, so the search is not bounded by it. */
bool synth_spec_is_prim(const synth_spec *s);
/* The spec as a rule's left side; generic: its variables typed T (one type for all). */
void synth_spec_pattern(tine_buf *b, const synth_spec *s);
void synth_spec_pattern_generic(tine_buf *b, const synth_spec *s);

/* ---- lower_rules.c: what `tine synth lower` writes ----------------------------------- */

/* A proven rewrite of a spec at a level, before it is written. */
typedef struct {
    const synth_spec *sp;
    const char *target; /* the level's name (in the driver's copy of the list) */
    char *rhs;          /* the right side's text */
    tine_expr_t *e;     /* and the expression (at the search's lanes) */
    int cost, baseline; /* quarters of a cycle: the rewrite's, the generic lowering's */
    bool done;
} synth_found;

/* Appends the rules of F to out: one rule in T where the same right side was found at
 * several element types and proves for each, else each type's own; a text found at an
 * earlier level once. Every rule is proven again by the rule prover (dropped, counted in
 * st->unproven and logged, if it does not prove). */
void synth_write_rules(tine_ctx_t *ctx, const tine_synth_lower_opts *o, tine_synth_lower_stats *st, tine_buf *out,
                       synth_found *F, size_t n);
/* The rules of F found at level t, each at its own type, as rule text (unproven: what the
 * composition step lowers with). */
void synth_level_rules(tine_buf *out, const synth_found *F, size_t n, const char *t);

#endif
