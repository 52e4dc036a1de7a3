/* c.h — expressions as C: the target's intrinsics for its instructions, GCC/Clang vector
 * extensions for the rest (src/codegen/c.c). */
#ifndef TINE_CODEGEN_C_H
#define TINE_CODEGEN_C_H

#include "../internal.h"
#include "../tprog/tprog.h"

typedef struct tine_cemit tine_cemit;

/* An emitter for `target` (a registry name: x86-64-avx2, arm-64); NULL with an error for
 * an unknown target. `indent` starts every statement it writes. */
tine_cemit *tine_cemit_new(tine_ctx_t *ctx, const char *target, const char *indent);
void tine_cemit_free(tine_cemit *c);
void tine_cemit_set_indent(tine_cemit *c, const char *indent);

/* Names the C value of a leaf (a variable node): an expression of the type
 * tine_cemit_type gives for its type. */
void tine_cemit_bind(tine_cemit *c, const tine_expr_t *leaf, const char *cexpr);

/* Appends to `out` the statements that compute e (each node once over all calls: a value
 * already computed is reused) and returns the C name of e's value (owned by the emitter),
 * of type tine_cemit_type(e's type); NULL with an error where e cannot be written (a
 * vector whose size is not a power of two of bytes, a leaf without a name). */
const char *tine_cemit_value(tine_cemit *c, const tine_expr_t *e, tine_buf *out);

/* Forgets the values computed so far (the code after a point that leaves their scope). */
void tine_cemit_forget(tine_cemit *c);
/* How many lane loops (a C loop over a vector's lanes, for an op no instruction and no C
 * operator does) the emitter has written so far. */
int tine_cemit_lane_loops(const tine_cemit *c);

/* The C type the emitter gives values of type t: a scalar's (uint8_t, int32_t), or its
 * vector-extension type (tine_u8x16: typedef'd by the prelude). */
const char *tine_cemit_type(tine_cemit *c, tine_type_t t, char *buf, size_t n);

/* The C type of a target register holding lanes of t (__m128i, uint8x16_t), or NULL where
 * the target has none of that size. */
const char *tine_cemit_reg_type(tine_cemit *c, tine_type_t t, char *buf, size_t n);

/* A target-level program (src/tprog) as C statements, in its order: each value written once
 * (tine_cemit_value), an input at its first read through input(user, i, out), which writes
 * what the input needs and binds it (tine_cemit_bind; it may bind other inputs too), and
 * each store through store(user, k, value, out) with the C name of output k's value. False
 * with an error where a value cannot be written. */
typedef void (*tine_cemit_input_fn)(void *user, int input, tine_buf *out);
typedef void (*tine_cemit_store_fn)(void *user, int output, const char *value, tine_buf *out);
bool tine_cemit_program(tine_cemit *c, const tine_tprog *p, tine_cemit_input_fn input,
                        tine_cemit_store_fn store, void *user, tine_buf *out);

/* The declarations the emitted code needs (vector typedefs, helper functions), to be
 * placed before it. */
void tine_cemit_prelude(tine_cemit *c, tine_buf *out);

#endif
