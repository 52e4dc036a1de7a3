/* prove.h — rule proofs: every instantiation of every rule, ∀ inputs, predicate ⇒ lhs = rhs. */
#ifndef TINE_PROVE_H
#define TINE_PROVE_H

#include <stdio.h>

#include "../internal.h"

typedef struct {
    unsigned timeout_ms; /* per query; 0: none */
    const char *only;    /* one rule's name, or NULL */
    bool quiet;          /* no line per instantiation (totals and problems only) */
    bool reals;          /* floats as reals: rules that change rounding (contraction) hold only there */
} tine_prove_opts;

enum { TINE_PROVE_SLOWEST = 10 };

typedef struct {
    long rules, insts;          /* rules and type instantiations looked at */
    long proven, counter, unknown;
    long no_fire;               /* instantiations no constant value lets fire (nothing to prove) */
    long queries;               /* solver queries (one per instantiation, or per enumerated constant) */
    double seconds;             /* solver time */
    /* the instantiations not proven (counterexamples, then unknowns, in file order):
       "name T=u8, name T=i16", as many as fit */
    char unproven[512];
    struct {
        char what[96];
        double seconds;
    } slowest[TINE_PROVE_SLOWEST];
} tine_prove_totals;

/* Proves the rules of `text` (a rule file; lowering rules when `lowering`, whose right
 * sides name instructions of the descriptions loaded in ctx). Writes a line per
 * instantiation to `out` and adds to *t. Returns -1 (message in ctx) when the file does
 * not compile, else the number of counterexamples. */
int tine_prove_rules(tine_ctx_t *ctx, const char *text, const char *file, bool lowering, const tine_prove_opts *o,
                     FILE *out, tine_prove_totals *t);

#endif
