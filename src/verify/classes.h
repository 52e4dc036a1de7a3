/* classes.h — similarity classes of instructions (Hydride's similarity checking).
 *
 * A class is one parameterised template: the semantics of an instruction with every
 * constant a parameter (c0, c1 ...), every type written from one type variable T (the
 * element type of the first operand the template reads: widen(T), signed(widen(T)) ...)
 * and the operands named x0, x1 ... in a canonical order. A member is an instruction with
 * a binding (T, the constants, which operand each xK is) under which the template,
 * elaborated, is proven equal to the member's own semantics by Z3 for all inputs.
 * Signedness is part of T, so it is a parameter: paddsb (T = i8) and paddusb (T = u8)
 * share `saturating_cast<T>(widen(x0) + widen(x1))`; a type whose signedness differs from
 * T's is written with signed()/unsigned(), which fixes it for the whole class.
 *
 * Members are first bucketed by their own template text (syntax after canonical operand
 * order), then each member of a later bucket joins an earlier class when the earlier
 * template, at the member's types with a constant binding of that class and some operand
 * order, is equal to it (evaluation on edge and random inputs, then Z3): templates that
 * differ in syntax but agree in meaning make one class. Buckets that read alike once the
 * types narrower than T are written as they are (i8, not narrow(narrow(T))) are merged
 * under that spelling first.
 */
#ifndef TINE_CLASSES_H
#define TINE_CLASSES_H

#include <stdio.h>

#include "../internal.h"

typedef struct tine_classes tine_classes;

typedef struct {
    int insns;          /* instructions looked at */
    int classes;        /* classes found */
    int spanning;       /* classes with members from more than one description */
    int unabstracted;   /* instructions whose semantics has no template (own class) */
    int joined;         /* members that joined another template's class by proof */
    long z3_queries;    /* Z3 equivalence queries */
    long z3_failed;     /* of which not proven (counterexample, unknown) */
    double seconds;     /* the whole run */
} tine_classes_totals;

/* The classes of the instructions of the n descriptions (built in or parsed).
 * timeout_ms limits each Z3 query (0: none). Never NULL. */
tine_classes *tine_classes_find(tine_ctx_t *ctx, const tine_isa *const *isas, int n, unsigned timeout_ms);
void tine_classes_free(tine_classes *c);
const tine_classes_totals *tine_classes_totals_of(const tine_classes *c);
/* The class (0 ... classes-1) of the instruction of that name, or -1. */
int tine_classes_of(const tine_classes *c, const char *insn);
/* A class's template text ("narrow(((widen(x0) + widen(x1)) + c0) >> c1)"). */
const char *tine_classes_template(const tine_classes *c, int cls);
/* Each class with its template, members and bindings; then the totals line. */
void tine_classes_print(const tine_classes *c, FILE *out);
/* "N instructions, M classes (...)", the totals as the summary line prints them. */
void tine_classes_print_totals(const tine_classes_totals *t, const char *what, FILE *out);

#endif
