/* fpir_typings.h — every typing of every FPIR op over operands of some bits, for the tests
 * that build each op at each type (test_codegen, test_cemit). */
#ifndef TINE_TESTS_FPIR_TYPINGS_H
#define TINE_TESTS_FPIR_TYPINGS_H

#include "internal.h"

/* One typing: op with n operands of types ts (one lane each) and type parameter tparam
 * (saturating_cast's result; {0} for the others). rounding_mul_shr on 64 bits, which its
 * definition cannot compute, is given too: the caller builds it or checks it is refused. */
typedef void (*fpir_typing_fn)(void *user, tine_op_t op, int n, const tine_type_t *ts, tine_type_t tparam);

static inline void fpir_typings(int bits_lo, int bits_hi, fpir_typing_fn fn, void *user) {
    tine_type_t none = {0, 0, 0};
    for (int op = TINE_FPIR_FIRST; op < TINE_OP_COUNT; op++) {
        tine_fpir_sig sig = tine_fpir_table[op - TINE_FPIR_FIRST].sig;
        int n = tine_fpir_table[op - TINE_FPIR_FIRST].arity;
        for (int bits = bits_lo; bits <= bits_hi; bits *= 2)
            for (int sx = 0; sx < 2; sx++) {
                tine_type_t x = tine_type(sx ? TINE_INT : TINE_UINT, bits, 1);
                switch (sig) {
                case TINE_SIG_SAME2_WIDE:
                case TINE_SIG_SAME2_WIDE_SGN:
                case TINE_SIG_SAME2_UNSIGNED:
                case TINE_SIG_SAME2: {
                    tine_type_t ts[2] = {x, x};
                    fn(user, (tine_op_t)op, n, ts, none);
                    break;
                }
                case TINE_SIG_MIXED2_WIDE:
                case TINE_SIG_SHIFT_WIDE:
                case TINE_SIG_SHIFT:
                    for (int sy = 0; sy < 2; sy++) {
                        tine_type_t ts[2] = {x, tine_type(sy ? TINE_INT : TINE_UINT, bits, 1)};
                        fn(user, (tine_op_t)op, n, ts, none);
                    }
                    break;
                case TINE_SIG_EXTEND:
                    for (int sy = 0; sy < 2 && bits > 8; sy++) {
                        tine_type_t ts[2] = {x, tine_type(sy ? TINE_INT : TINE_UINT, bits / 2, 1)};
                        fn(user, (tine_op_t)op, n, ts, none);
                    }
                    break;
                case TINE_SIG_UNARY_UNSIGNED: fn(user, (tine_op_t)op, n, &x, none); break;
                case TINE_SIG_NARROW:
                    if (bits > 8) fn(user, (tine_op_t)op, n, &x, none);
                    break;
                case TINE_SIG_CAST_PARAM:
                    for (int ub = 8; ub <= 64; ub *= 2)
                        for (int su = 0; su < 2; su++) fn(user, (tine_op_t)op, n, &x, tine_type(su ? TINE_INT : TINE_UINT, ub, 1));
                    break;
                case TINE_SIG_MULSHR: {
                    tine_type_t ts[3] = {x, x, tine_type(TINE_UINT, bits, 1)};
                    fn(user, (tine_op_t)op, n, ts, none);
                    break;
                }
                }
            }
    }
}

/* A typing's label: op<U>(T1, T2) xL, and a note when a 128-bit result is tested as its
 * halves. */
static inline void fpir_typing_label(char *lb, size_t size, tine_op_t op, int n, const tine_type_t *ts,
                                     tine_type_t tparam, int lanes, bool halves) {
    char t[32];
    int len = snprintf(lb, size, "%s", tine_op_name(op));
    if (tine_fpir_table[op - TINE_FPIR_FIRST].sig == TINE_SIG_CAST_PARAM)
        len += snprintf(lb + len, size - (size_t)len, "<%s>", tine_type_str(tparam, t, sizeof t));
    len += snprintf(lb + len, size - (size_t)len, "(");
    for (int i = 0; i < n; i++)
        len += snprintf(lb + len, size - (size_t)len, "%s%s", i ? ", " : "", tine_type_str(ts[i], t, sizeof t));
    snprintf(lb + len, size - (size_t)len, ") x%d%s", lanes, halves ? " (the 128-bit result as its halves)" : "");
}

#endif
