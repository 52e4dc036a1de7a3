/* peephole.h — the peephole optimizer of target-level programs (src/tprog): FFTW-GEL's
 * committed-choice rewriting over a target's instructions, in passes run to a fixpoint.
 *
 * The rules are the rule language's (instruction patterns on both sides, predicates):
 * src/peephole/common.peep for the generic ops every target has (lane moves), then one
 * file per instruction set (src/peephole/x86.peep, arm.peep), each split into passes by
 * `pass NAME` lines; each pass is a rule set compiled to the rule engine's indexed
 * matchers, and `tine verify --rules peephole-x86` proves every rule through the
 * instructions' semantics. Around the rules, every pass also folds constants (an
 * instruction of constants is evaluated by the interpreter), propagates copies (a rule
 * whose right side is one of its wildcards), merges redundant instructions (values are
 * hash-consed: an instruction equal to one the program has is that one) and drops dead
 * code (the order is rebuilt from the outputs).
 */
#ifndef TINE_PEEPHOLE_H
#define TINE_PEEPHOLE_H

#include "../tprog/tprog.h"

typedef struct {
    bool contract; /* the program allows a * b + c to round once (the `contract` pass) */
    int max_rounds; /* per pass; 0: 32 */
} tine_peep_opts;

enum { TINE_PEEP_MAX_PASSES = 16 };
typedef struct {
    int passes;
    char pass_name[TINE_PEEP_MAX_PASSES][32];
    int pass_rewrites[TINE_PEEP_MAX_PASSES]; /* rules fired in that pass */
    int pass_rounds[TINE_PEEP_MAX_PASSES];
    int folded;     /* instructions of constants evaluated */
    int copies;     /* rewrites to one of the matched values */
    int redundant;  /* rewrites to an instruction the program already computed */
    int dead;       /* values no longer computed: dead once a rewrite replaced their reader */
    int lane_moves; /* lane moves rewritten to a copy or to the swap rules' form of a swap */
    int before, after; /* instructions (and other computing nodes) before and after */
    /* the rules that fired (by name, in the order they first did) and how often */
    char fired[64][32];
    int fired_counts[64];
    int nfired;
} tine_peep_stats;

/* Optimizes p in place; false with an error (the rules' file does not compile, or a
 * pass does not reach its fixpoint within max_rounds: a rule set that does not
 * terminate, which is the rules' bug). st may be NULL. */
bool tine_peephole(tine_tprog *p, const tine_peep_opts *o, tine_peep_stats *st);
/* The same with the rules of `text` (a .peep file's format; `file` names it in messages)
 * instead of the instruction set's own. */
bool tine_peephole_with(tine_tprog *p, const tine_peep_opts *o, const char *text, const char *file,
                        tine_peep_stats *st);

/* Pass k of an instruction set's peephole rules ("x86", "arm"): the file's text with every
 * line outside the pass blank, so that line numbers are the file's (malloc'd), its file
 * name, the pass's name and flags; NULL past the last pass or for a set without rules. */
char *tine_peephole_pass(const char *isa, int k, const char **file, char *name, size_t namecap, bool *contract,
                         bool *lacking);

#endif
