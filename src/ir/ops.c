/* ops.c — the ops of the IR as facts: the names of the primitive ops, the FPIR table of
 * tine_ops.h (name, arity, signature, definition text), and the type an untyped literal
 * operand of an FPIR op gets.
 *
 * Plain data and the functions that read it, below everything that makes nodes (expr.c,
 * fpir_ops.c): the parser, elaborator, printer and every layer above ask here.
 */
#include "../internal.h"

static const char *const prim_names[] = {
#define X(e, name, ...) name,
    TINE_PRIM_OPS(X)
#undef X
};

const char *tine_op_name(tine_op_t op) {
    if ((int)op < TINE_FPIR_FIRST) return prim_names[op];
    if ((int)op < TINE_OP_COUNT) return tine_fpir_table[op - TINE_FPIR_FIRST].name;
    return "?";
}

const char *tine_op_token(tine_op_t op) {
    switch (op) {
#define X(e, name, ar, tok, prec, comm) \
    case TINE_OP_##e: return tok;
        TINE_PRIM_OPS(X)
#undef X
    default: return NULL;
    }
}

int tine_op_is_fpir(tine_op_t op) { return (int)op >= TINE_FPIR_FIRST && (int)op < TINE_OP_COUNT; }

int tine_op_lookup(const char *name) {
    for (int i = 0; i < TINE_OP_COUNT; i++)
        if (strcmp(tine_op_name((tine_op_t)i), name) == 0) return i;
    return -1;
}

const char *tine_fpir_definition(tine_op_t op) {
    return tine_op_is_fpir(op) ? tine_fpir_table[op - TINE_FPIR_FIRST].definition : NULL;
}

const tine_fpir_info tine_fpir_table[TINE_FPIR_COUNT] = {
#define X(e, name, ar, sig, comm, rank, def) {name, ar, TINE_SIG_##sig, comm, rank, def},
    TINE_FPIR_OPS(X)
#undef X
};

tine_type_t tine_fpir_literal_type(tine_op_t op, int i, tine_type_t t0) {
    tine_fpir_sig sig = tine_fpir_table[op - TINE_FPIR_FIRST].sig;
    if (i == 0) return t0;
    if (sig == TINE_SIG_EXTEND) return tine_type_narrow(t0);
    if (sig == TINE_SIG_MULSHR && i == 2) return tine_type_with_kind(t0, TINE_UINT);
    return t0;
}
