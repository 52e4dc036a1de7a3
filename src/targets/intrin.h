/* intrin.h — C intrinsics (arm_neon.h, <immintrin.h>) by name, with what each computes:
 * the semantics `tine retarget` lifts a call through and the emulation header is built
 * from (src/targets/intrin.c). */
#ifndef TINE_INTRIN_H
#define TINE_INTRIN_H

#include "../internal.h"

enum { TINE_INTRIN_MAX_PARAMS = 32, TINE_INTRIN_MAX_RESULTS = 4 };

typedef enum {
    TINE_IP_VEC,    /* a vector value */
    TINE_IP_SCALAR, /* a scalar value */
    TINE_IP_IMM,    /* an integer the C code must write as a constant (a lane, a shift count) */
    TINE_IP_PTR,    /* the address of the memory a load reads or a store writes */
    TINE_IP_TUPLE,  /* n vectors of one type (uint8x16x3_t): n consecutive arguments */
} tine_iparam_kind;

typedef enum { TINE_INTRIN_VALUE, TINE_INTRIN_LOAD, TINE_INTRIN_STORE } tine_intrin_mem;

typedef struct {
    tine_iparam_kind kind;
    tine_type_t type; /* VEC, SCALAR, TUPLE: each value's type; IMM: i32; PTR: the element */
    int n;            /* TUPLE: its vectors */
    int lo, hi;       /* IMM: the values the C intrinsic accepts, lo..hi (lo > hi: not known) */
    const char *name;
} tine_iparam;

typedef struct tine_intrin {
    const char *name; /* the C name */
    const char *from; /* where its meaning is written: "arm.isa", "x86.gen.isa", "neon.intrin" ... */
    int reg_bits;     /* the register the intrinsic works in (64, 128, 256, 512) */
    int nparams;
    tine_iparam param[TINE_INTRIN_MAX_PARAMS];
    tine_intrin_mem mem;
    int mem_lanes;        /* LOAD: the elements read (mem's lanes) */
    tine_type_t mem_elem; /* LOAD, STORE: the element type in memory */
    int nresults;         /* 0: void (a store); more than 1: a tuple (vld3q_u8, vzipq_u8) */
    tine_type_t result[TINE_INTRIN_MAX_RESULTS];
    /* private to intrin.c */
    int src_kind; /* 0: an instruction (isa entry), 1: an .intrin line */
    bool pack;    /* the instruction's one operand is the first two parameters */
    uint32_t code;
    int line;
    tine_type_t T, U;
    int ti, ui, q, w; /* what the line's {T} {U} {q} {W} stood for in the name */
} tine_intrin;

/* The intrinsic called `name` in the C intrinsics of `family` ("arm": arm_neon.h; "x86":
 * <immintrin.h>), NULL if tine does not know it (no error set). */
const tine_intrin *tine_intrin_find(tine_ctx_t *ctx, const char *family, const char *name);

/* What a call computes. args: one value per VEC or SCALAR parameter and n per TUPLE one,
 * in order (of the parameters' types); imms: the value of each IMM parameter, in order;
 * mem: for a LOAD, the elements read (mem_lanes of mem_elem). results[0..nresults): the
 * values, primitive ops only; for a STORE, results[0] is what is written. false with an
 * error (an immediate outside the range its parameter gives, an operand of another
 * type). */
bool tine_intrin_apply(tine_ctx_t *ctx, const tine_intrin *in, tine_expr_t *const *args, const int64_t *imms,
                       tine_expr_t *mem, tine_expr_t **results);

/* Calls fn for every intrinsic of a family's .intrin description and every form with a
 * C name of its instruction descriptions (tests, the emulation header); stops at fn's
 * false. A name that does not resolve is skipped; then the result is false, with the
 * first such error. */
typedef bool (*tine_intrin_each_fn)(void *user, const tine_intrin *in);
bool tine_intrin_each(tine_ctx_t *ctx, const char *family, tine_intrin_each_fn fn, void *user);

/* For tests: reads `text` as the family's .intrin description instead of the built-in one
 * (errors then name `file`), forgetting every intrinsic found so far. false with the
 * error of the first line that does not read (a line's semantics is read when its
 * intrinsic is first found). */
bool tine_intrin_read_text(tine_ctx_t *ctx, const char *family, const char *text, const char *file);

#endif
