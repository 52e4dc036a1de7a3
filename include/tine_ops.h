/* tine_ops.h — the operation tables: every op tine knows, one row each.
 *
 * This file is the single source of what an op is. The printer, the parser, the
 * interpreter, the expander (and later the SMT encoder, the rule checker and the
 * emitters) all read these rows through X-macros; nothing restates them.
 *
 * Primitive ops: X(ENUM, "name", arity, infix-token-or-NULL, precedence, commutative)
 *   arity -1 means variadic. Precedence is only meaningful for infix ops (higher binds
 *   tighter, C's order); unary prefix ops are printed with their token too.
 *
 * FPIR ops: X(ENUM, "name", arity, signature, "definition")
 *   The definition is the op's one and only meaning: an expression in tine's own text
 *   syntax over the placeholders x, y, s (the operands in order). Inside a definition:
 *     T        the element type of x;  U  the type parameter (saturating_cast<U>);
 *     R        the op's result type;
 *     widen(e) cast to the integer type of twice the bits, same signedness;
 *     narrow(e) truncating cast to half the bits, same signedness;
 *     cast<TY>(e), reinterpret<TY>(e) with type expressions widen(T), narrow(T),
 *     signed(T), unsigned(T), join(T, U) (the smallest integer type holding both ranges);
 *     T.min, T.max, bits(T) are untyped integer literals.
 *   Where FPIR.md leaves a case open (shift counts at or beyond the width), the
 *   definitions clamp the count so the double-width computation is exact and the result
 *   is the mathematically exact one that ARM's srshl/uqshl produce; see docs/SEMANTICS.md.
 */
#ifndef TINE_OPS_H
#define TINE_OPS_H

#define TINE_PRIM_OPS(X)                                   \
    X(CONST, "const", 0, NULL, 0, 0)                       \
    X(VAR, "var", 0, NULL, 0, 0)                           \
    X(LOAD, "load", 1, NULL, 0, 0)                         \
    X(ADD, "add", 2, "+", 10, 1)                           \
    X(SUB, "sub", 2, "-", 10, 0)                           \
    X(MUL, "mul", 2, "*", 11, 1)                           \
    X(DIV, "div", 2, "/", 11, 0)                           \
    X(MOD, "mod", 2, "%", 11, 0)                           \
    X(MIN, "min", 2, NULL, 0, 1)                           \
    X(MAX, "max", 2, NULL, 0, 1)                           \
    X(NEG, "neg", 1, "-", 12, 0)                           \
    X(AND, "and", 2, "&", 5, 1)                            \
    X(OR, "or", 2, "|", 3, 1)                              \
    X(XOR, "xor", 2, "^", 4, 1)                            \
    X(NOT, "not", 1, "~", 12, 0)                           \
    X(SHL, "shl", 2, "<<", 9, 0)                           \
    X(SHR, "shr", 2, ">>", 9, 0)                           \
    X(EQ, "eq", 2, "==", 6, 1)                             \
    X(NE, "ne", 2, "!=", 6, 1)                             \
    X(LT, "lt", 2, "<", 7, 0)                              \
    X(LE, "le", 2, "<=", 7, 0)                             \
    X(GT, "gt", 2, ">", 7, 0)                              \
    X(GE, "ge", 2, ">=", 7, 0)                             \
    X(SELECT, "select", 3, NULL, 0, 0)                     \
    X(CAST, "cast", 1, NULL, 0, 0)                         \
    X(REINTERPRET, "reinterpret", 1, NULL, 0, 0)           \
    X(BROADCAST, "broadcast", 1, NULL, 0, 0)               \
    X(RAMP, "ramp", 2, NULL, 0, 0)                         \
    X(CONCAT, "concat", -1, NULL, 0, 0)                    \
    X(SLICE, "slice", 1, NULL, 0, 0)                       \
    X(INTERLEAVE, "interleave", -1, NULL, 0, 0)            \
    X(DEINTERLEAVE, "deinterleave", 1, NULL, 0, 0)         \
    X(VECTOR_REDUCE_ADD, "vector_reduce_add", 1, NULL, 0, 0) \
    X(SQRT, "sqrt", 1, NULL, 0, 0)                         \
    X(FMA, "fma", 3, NULL, 0, 0)                           \
    X(INSN, "insn", -1, NULL, 0, 0)

/* Signatures of FPIR ops (checked by tine_fpir(); each names the operand rules):
 *   SAME2_WIDE      x, y same integer type; result widen(T)
 *   SAME2_WIDE_SGN  x, y same integer type; result signed(widen(T))
 *   MIXED2_WIDE     x, y same bits, any signedness; result widen, signed if either is
 *   SHIFT_WIDE      x integer, y same bits any signedness; result widen(T)
 *   EXTEND          x integer of 2n bits, y integer of n bits; result T
 *   UNARY_UNSIGNED  x integer; result unsigned(T)
 *   SAME2_UNSIGNED  x, y same integer type; result unsigned(T)
 *   CAST_PARAM      x integer, type parameter U integer; result U
 *   NARROW          x integer of ≥ 16 bits; result narrow(T)
 *   SAME2           x, y same integer type; result T
 *   SHIFT           x integer, s same bits any signedness; result T
 *   MULSHR          x, y same integer type, s unsigned(T); result T
 */
#define TINE_FPIR_SIGS(X) \
    X(SAME2_WIDE) X(SAME2_WIDE_SGN) X(MIXED2_WIDE) X(SHIFT_WIDE) X(EXTEND) \
    X(UNARY_UNSIGNED) X(SAME2_UNSIGNED) X(CAST_PARAM) X(NARROW) X(SAME2) X(SHIFT) X(MULSHR)

/* FPIR ops: X(enum, name, arity, signature, commutative, rank, definition).
 * commutative: the operands may be swapped (the rule matcher tries both orders); rank:
 * the op's weight in the lift cost (src/rules/rules.c; a primitive op weighs 1, a
 * multiply 2, a division 4), ranking lifted forms of equal operand bits. */
#define TINE_FPIR_OPS(X)                                                                        \
    X(WIDENING_ADD, "widening_add", 2, SAME2_WIDE, 1, 2, "widen(x) + widen(y)")                 \
    X(WIDENING_SUB, "widening_sub", 2, SAME2_WIDE_SGN, 0, 2,                                    \
      "cast<signed(widen(T))>(x) - cast<signed(widen(T))>(y)")                                  \
    X(WIDENING_MUL, "widening_mul", 2, MIXED2_WIDE, 1, 3, "cast<R>(x) * cast<R>(y)")            \
    X(WIDENING_SHL, "widening_shl", 2, SHIFT_WIDE, 0, 2, "widen(x) << widen(y)")                \
    X(WIDENING_SHR, "widening_shr", 2, SHIFT_WIDE, 0, 2, "widen(x) >> widen(y)")                \
    X(EXTENDING_ADD, "extending_add", 2, EXTEND, 0, 3, "x + reinterpret<T>(widen(y))")          \
    X(EXTENDING_SUB, "extending_sub", 2, EXTEND, 0, 3, "x - reinterpret<T>(widen(y))")          \
    X(EXTENDING_MUL, "extending_mul", 2, EXTEND, 0, 4, "x * reinterpret<T>(widen(y))")          \
    X(ABS, "abs", 1, UNARY_UNSIGNED, 0, 2, "reinterpret<unsigned(T)>(select(x > 0, x, -x))")    \
    X(ABSD, "absd", 2, SAME2_UNSIGNED, 1, 3,                                                    \
      "reinterpret<unsigned(T)>(select(x > y, x - y, y - x))")                                  \
    X(SATURATING_CAST, "saturating_cast", 1, CAST_PARAM, 0, 2,                                  \
      "cast<U>(clamp(cast<join(T, U)>(x), U.min, U.max))")                                      \
    X(SATURATING_NARROW, "saturating_narrow", 1, NARROW, 0, 3, "saturating_cast<narrow(T)>(x)") \
    X(SATURATING_ADD, "saturating_add", 2, SAME2, 1, 2, "saturating_narrow(widening_add(x, y))") \
    X(SATURATING_SUB, "saturating_sub", 2, SAME2, 0, 2, "saturating_cast<T>(widening_sub(x, y))") \
    X(HALVING_ADD, "halving_add", 2, SAME2, 1, 3, "narrow(widening_add(x, y) >> 1)")            \
    X(HALVING_SUB, "halving_sub", 2, SAME2, 0, 3, "narrow((widen(x) - widen(y)) >> 1)")         \
    X(ROUNDING_HALVING_ADD, "rounding_halving_add", 2, SAME2, 1, 2,                             \
      "narrow((widening_add(x, y) + 1) >> 1)")                                                  \
    X(ROUNDING_SHR, "rounding_shr", 2, SHIFT, 0, 3,                                             \
      "narrow((widen(x) + (cast<widen(T)>(1) << "                                               \
      "(min(cast<signed(widen(T))>(y), bits(T) + 1) - 1))) >> "                                 \
      "min(cast<signed(widen(T))>(y), bits(T) + 1))")                                           \
    X(ROUNDING_SHL, "rounding_shl", 2, SHIFT, 0, 4,                                             \
      "narrow((widen(x) + (cast<widen(T)>(1) << "                                               \
      "(min(-cast<signed(widen(T))>(y), bits(T) + 1) - 1))) >> "                                \
      "min(-cast<signed(widen(T))>(y), bits(T) + 1))")                                          \
    X(MUL_SHR, "mul_shr", 3, MULSHR, 0, 3, "saturating_narrow(widening_mul(x, y) >> widen(s))") \
    X(ROUNDING_MUL_SHR, "rounding_mul_shr", 3, MULSHR, 0, 3,                                    \
      "saturating_narrow(rounding_shr(widening_mul(x, y), widen(s)))")                          \
    X(SATURATING_SHL, "saturating_shl", 2, SHIFT, 0, 4,                                         \
      "saturating_cast<T>(widen(x) << min(cast<signed(widen(T))>(y), bits(T)))")

#endif
