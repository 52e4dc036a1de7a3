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

#endif
