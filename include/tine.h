/* tine.h — the public C API of libtine.
 *
 * Everything lives in a context (tine_ctx_t): expressions, interned names, error state.
 * Expressions are immutable, hash-consed DAG nodes owned by the context's arena, so two
 * structurally equal expressions are the same pointer. Constructors check types and
 * lanes; on misuse they return NULL and record a message in the context
 * (tine_error()). A NULL operand propagates: a chain of constructor calls can be
 * checked once at the end. The library never calls exit() and never prints.
 *
 * Errors: a call reports failure by its return value (NULL, -1); only then is
 * tine_error() its message and tine_error_kind() its kind. After a successful call the
 * error state is unspecified (it may still hold an earlier failure's message, or one a
 * successful call recovered from): never test tine_error() to learn whether a call
 * failed. A call that reports failure always leaves a message (never NULL), except a
 * constructor given a NULL operand, which keeps the message of the call that made it.
 *
 * Threads: one context per thread. A context and everything made from it (expressions,
 * rule sets, kernels, compiled kernels, JIT functions, environments) may be used by one
 * thread at a time only; separate contexts share nothing mutable and may be used on
 * different threads at once. What is process-wide is read-only or synchronised: LLVM's
 * target registration (once, under call_once), the embedded rule and target-description
 * text, and the FPIR op table. tine_compiled_run and tine_kernel_interpret record errors
 * and bounds in the kernel's context, so one compiled kernel must not be run from two
 * threads concurrently (a kernel's parallel loops run on threads its compiled code starts
 * and joins within the call). tine_jit_call only calls the generated function and may be called
 * from several threads at once, while nothing else uses the context.
 */
#ifndef TINE_H
#define TINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tine_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libtine.so exports what this header declares and nothing else: the library is built
 * with hidden visibility (CMakeLists.txt), so its internal functions are no part of its ABI. */
#pragma GCC visibility push(default)

/* ---- types -------------------------------------------------------------------- */

typedef enum { TINE_UINT = 0, TINE_INT = 1, TINE_FLOAT = 2, TINE_BOOL = 3 } tine_kind_t;

/* Element kind × bits × lanes. lanes == 1 is a scalar. Integer bits are 8, 16, 32, 64
 * (128 exists for the double-width intermediates of 64-bit FPIR ops); floats 32, 64;
 * bool has bits == 1. Lanes 1..256. */
typedef struct {
    uint8_t kind;
    uint8_t bits;
    uint16_t lanes;
} tine_type_t;

#define TINE_MAX_LANES 256

tine_type_t tine_type(tine_kind_t kind, int bits, int lanes);
int tine_type_valid(tine_type_t t);
int tine_type_eq(tine_type_t a, tine_type_t b);
int tine_type_is_int(tine_type_t t); /* uint or int */
tine_type_t tine_type_with_lanes(tine_type_t t, int lanes);
tine_type_t tine_type_with_kind(tine_type_t t, tine_kind_t kind); /* with_signedness */
tine_type_t tine_type_widen(tine_type_t t);  /* twice the bits; invalid if impossible */
tine_type_t tine_type_narrow(tine_type_t t); /* half the bits; invalid if impossible */
/* Limits of an integer type with bits <= 64, as two's-complement bit patterns widened
 * to 64 bits (min of i8 is (uint64_t)-128). */
int64_t tine_type_min(tine_type_t t);
uint64_t tine_type_max(tine_type_t t);
/* Writes "u8", "i16x32", "f32", "bool" ...; returns buf. */
char *tine_type_str(tine_type_t t, char *buf, size_t n);

/* ---- context ------------------------------------------------------------------ */

typedef struct tine_ctx tine_ctx_t;
typedef struct tine_expr tine_expr_t;

tine_ctx_t *tine_ctx_new(void);
void tine_ctx_free(tine_ctx_t *ctx);
/* Default lanes for parsing and printing (the --lanes of the CLI). Default 16. */
void tine_set_lanes(tine_ctx_t *ctx, int lanes);
int tine_lanes(const tine_ctx_t *ctx);
/* The last error, or NULL (see "Errors" above: read it after a call that failed). Parse
 * errors read "<file>:line:col: message\n<line>\n   ^". */
const char *tine_error(const tine_ctx_t *ctx);
/* The edit distance (insertions, deletions, substitutions) between a and b's first n bytes
 * (names past 64 bytes are cut): how an unknown name -- a target, a command, an option --
 * finds the known one the user most likely meant. */
int tine_edit_distance(const char *a, const char *b, size_t n);
/* What the last error is about: the caller's input, a documented limit or an allocation
 * (sizes, counts, memory), or tine's own bug (an invalid LLVM module, LLVM failing to
 * optimize, JIT or emit, a broken invariant) -- to be reported as a bug, never as the
 * user's mistake. NONE when no error is held. */
typedef enum {
    TINE_ERROR_NONE = 0,
    TINE_ERROR_INPUT = 1,
    TINE_ERROR_LIMIT = 2,
    TINE_ERROR_INTERNAL = 3
} tine_error_kind_t;
tine_error_kind_t tine_error_kind(const tine_ctx_t *ctx);
void tine_clear_error(tine_ctx_t *ctx);
/* Bytes held by the context's arenas and tables, and the number of interned nodes. */
size_t tine_ctx_bytes(const tine_ctx_t *ctx);
size_t tine_ctx_nodes(const tine_ctx_t *ctx);

/* ---- ops ---------------------------------------------------------------------- */

typedef enum {
#define TINE_X_(e, ...) TINE_OP_##e,
    TINE_PRIM_OPS(TINE_X_)
    TINE_FPIR_OPS(TINE_X_)
#undef TINE_X_
    TINE_OP_COUNT
} tine_op_t;

#define TINE_X_(e, ...) +1
enum { TINE_FPIR_FIRST = 0 TINE_PRIM_OPS(TINE_X_), TINE_FPIR_COUNT = 0 TINE_FPIR_OPS(TINE_X_) };
#undef TINE_X_

const char *tine_op_name(tine_op_t op);
int tine_op_is_fpir(tine_op_t op);
/* Looks an op up by name ("add", "widening_add"); returns -1 if none. */
int tine_op_lookup(const char *name);
/* The defining expression of an FPIR op, as written in tine_ops.h; NULL otherwise. */
const char *tine_fpir_definition(tine_op_t op);

/* ---- expressions -------------------------------------------------------------- */

tine_op_t tine_expr_op(const tine_expr_t *e);
tine_type_t tine_expr_type(const tine_expr_t *e);
int tine_expr_nops(const tine_expr_t *e);
tine_expr_t *tine_expr_operand(const tine_expr_t *e, int i);
/* A dense id, unique in the context; children always have smaller ids than parents. */
uint32_t tine_expr_id(const tine_expr_t *e);
/* Variable name, or buffer name of a load; NULL otherwise. */
const char *tine_expr_name(const tine_expr_t *e);
/* Lane i of a constant, as a bit pattern (sign-extended to 64 bits for signed types;
 * float bits for floats). */
uint64_t tine_expr_const_lane(const tine_expr_t *e, int i);

/* Leaves. A variable is identified by its name and type. */
tine_expr_t *tine_var(tine_ctx_t *ctx, const char *name, tine_type_t t);
/* Uniform constant: value is truncated/extended to t by t's signedness rules and must be
 * representable (an unrepresentable value is an error). */
tine_expr_t *tine_const_int(tine_ctx_t *ctx, tine_type_t t, int64_t value);
tine_expr_t *tine_const_uint(tine_ctx_t *ctx, tine_type_t t, uint64_t value);
tine_expr_t *tine_const_float(tine_ctx_t *ctx, tine_type_t t, double value);
/* value rounded to float type t (f32, f64; round to nearest even) as its bits. */
uint64_t tine_float_to_bits(tine_type_t t, double value);
/* Per-lane constant from t.lanes bit patterns (as tine_expr_const_lane returns). */
tine_expr_t *tine_const_lanes(tine_ctx_t *ctx, tine_type_t t, const uint64_t *lanes);

/* Primitive ops. */
tine_expr_t *tine_binary(tine_ctx_t *ctx, tine_op_t op, tine_expr_t *a, tine_expr_t *b);
tine_expr_t *tine_unary(tine_ctx_t *ctx, tine_op_t op, tine_expr_t *a); /* neg, not, sqrt */
tine_expr_t *tine_select(tine_ctx_t *ctx, tine_expr_t *c, tine_expr_t *t, tine_expr_t *f);
/* a * b + c rounded once (IEEE 754 fusedMultiplyAdd, round to nearest even): floats of
 * one type. */
tine_expr_t *tine_fma(tine_ctx_t *ctx, tine_expr_t *a, tine_expr_t *b, tine_expr_t *c);
/* |a|: on integers the FPIR op abs (its result unsigned(T)); on floats a's sign bit
 * cleared, written as the bit operation it is (reinterpret, &, reinterpret), so NaNs keep
 * their payload and every layer knows it without an op of its own. */
tine_expr_t *tine_abs(tine_ctx_t *ctx, tine_expr_t *a);
/* Cast to elem's element kind and bits (its lanes are ignored). */
tine_expr_t *tine_cast(tine_ctx_t *ctx, tine_type_t elem, tine_expr_t *a);
/* The same bits as elem's element kind and bits (its lanes are ignored): bits(elem) ==
 * bits(a), neither bool. */
tine_expr_t *tine_reinterpret(tine_ctx_t *ctx, tine_type_t elem, tine_expr_t *a);
/* a's bits as type t, lanes and all: lanes(t) * bits(t) == lanes(a) * bits(a), neither
 * bool. Where the lane sizes differ the lanes are repacked little-endian (lane 0 of a
 * u16x8 is bytes 0, its low byte, and 1 of the u8x16), as LLVM's bitcast of vectors and
 * every target tine has: one REINTERPRET node whose lanes differ from its operand's.
 * With t's lanes equal to a's it is tine_reinterpret. A reinterpret of a reinterpret is
 * one; back to the operand's type it is the operand. */
tine_expr_t *tine_bitcast(tine_ctx_t *ctx, tine_type_t t, tine_expr_t *a);
tine_expr_t *tine_broadcast(tine_ctx_t *ctx, tine_expr_t *scalar, int lanes);
tine_expr_t *tine_ramp(tine_ctx_t *ctx, tine_expr_t *base, tine_expr_t *stride, int lanes);
/* load(buffer, index): element type elem, lanes from index (an i32 vector). */
tine_expr_t *tine_load(tine_ctx_t *ctx, const char *buffer, tine_type_t elem, tine_expr_t *index);
tine_expr_t *tine_concat(tine_ctx_t *ctx, int n, tine_expr_t *const *v);
/* Lanes begin, begin+stride, ... (count of them). */
tine_expr_t *tine_slice(tine_ctx_t *ctx, tine_expr_t *v, int begin, int stride, int count);
/* Lane i*n + j of the result is lane i of v[j]. */
tine_expr_t *tine_interleave(tine_ctx_t *ctx, int n, tine_expr_t *const *v);
/* Lanes k, k+n, k+2n ... of v (the k-th of n interleaved vectors). */
tine_expr_t *tine_deinterleave(tine_ctx_t *ctx, tine_expr_t *v, int n, int k);
/* Sum of adjacent groups of lanes: result has `lanes` lanes, each the wrapping sum of
 * v.lanes / lanes consecutive lanes. */
tine_expr_t *tine_vector_reduce_add(tine_ctx_t *ctx, tine_expr_t *v, int lanes);

/* FPIR ops. tparam is the result type of saturating_cast (lanes ignored); ignored by
 * every other op. */
tine_expr_t *tine_fpir(tine_ctx_t *ctx, tine_op_t op, int n, tine_expr_t *const *args,
                       tine_type_t tparam);

/* Fully expand every FPIR op to primitive ops, per its definition. */
tine_expr_t *tine_expand(tine_ctx_t *ctx, tine_expr_t *e);

/* ---- text --------------------------------------------------------------------- */

/* Parses one expression; variables are typed by suffix (a_u8, x_i16x32), lanes default to
 * tine_lanes(ctx). `file` names the input in diagnostics ("<input>" if NULL). Nesting
 * deeper than 256 (parentheses, operators, calls) is refused as a limit. */
tine_expr_t *tine_parse(tine_ctx_t *ctx, const char *text, const char *file);
/* Prints in the syntax tine_parse reads (parse(print(e)) == e). The string is
 * malloc'd; release it with free(). */
char *tine_print(tine_ctx_t *ctx, const tine_expr_t *e);

/* ---- rules and lifting ------------------------------------------------------------ */

/* A compiled rule set (see docs/RULES.md). Compiling checks every rule; the first problem
 * is returned through the context as file:line:col, the line and a caret. */
typedef struct tine_ruleset tine_ruleset_t;
tine_ruleset_t *tine_rules_compile(tine_ctx_t *ctx, const char *text, const char *file);
void tine_rules_free(tine_ruleset_t *rs);
int tine_rules_count(const tine_ruleset_t *rs);
/* Rule i's name, file, line and "why" comment; -1 if there is no rule i. */
int tine_rule_info(const tine_ruleset_t *rs, int i, const char **name, const char **file, int *line,
                   const char **why);
/* The built-in lift rules (src/lift/lift.rules), compiled once per context. */
tine_ruleset_t *tine_lift_rules(tine_ctx_t *ctx);

/* Called for every rewrite, in order: the rule, where it is, the node before and after. */
typedef void (*tine_lift_trace_fn)(void *user, const char *rule, const char *file, int line,
                                   const tine_expr_t *before, const tine_expr_t *after);
/* Lifts e into FPIR with the built-in rules, or with rs. */
tine_expr_t *tine_lift(tine_ctx_t *ctx, tine_expr_t *e);
/* Lowers FPIR to the instructions of a target ("host", "x86-64-sse2" ... "x86-64-avx512")
 * with its lowering rules: each node takes the cheapest matching rewrite whose
 * instructions the target has; the rest stays for LLVM. NULL with an error for an
 * unknown target. The trace, if given, is called for every rule applied. */
tine_expr_t *tine_lower(tine_ctx_t *ctx, tine_expr_t *e, const char *target);
tine_expr_t *tine_lower_with(tine_ctx_t *ctx, tine_expr_t *e, const char *target, tine_lift_trace_fn trace,
                             void *user);
/* The targets tine compiles for, in the order of their target descriptions (x86:
 * "x86-64-sse2", "x86-64-sse41", "x86-64-avx2", "x86-64-avx512"): the i-th name, or NULL
 * past the end. */
const char *tine_target_name(tine_ctx_t *ctx, int i);
/* 1 when this machine runs code for target (it has every feature the target's
 * description names, as LLVM sees the host), 0 when it does not; -1 with an error for an
 * unknown target. */
int tine_target_runs_here(tine_ctx_t *ctx, const char *target);
/* The C compiler flags that build code for target's level (x86-64-avx2: "-march=x86-64-v3"),
 * or NULL for the host or an unknown target; *runs: 1 when this CPU runs that code. */
const char *tine_target_cflags(const char *target, int *runs);
/* The target description (the architecture) target compiles with: "x86" or "arm"; NULL
 * for an unknown target. Tools ask this, not the flags, which architecture a target is. */
const char *tine_target_isa(const char *target);
/* The instruction forms of a built-in description ("x86", "arm", "x86gen": the imported
 * intrinsics; NULL: all of them), one line each: the description, the instruction, its
 * register, C intrinsic and features ('+': all needed), and "runs here", "not on this CPU"
 * or "qemu" (another architecture's). malloc'd; NULL with an error for an unknown name. */
char *tine_isa_list(tine_ctx_t *ctx, const char *isa);
/* The lowering rules of a target description ("x86"), compiled on first use: the hand
 * rules (src/targets/NAME.rules), or the ones `tine synth lower` found after
 * tine_set_lower_rules(ctx, "synthesized"). */
tine_ruleset_t *tine_lower_rules(tine_ctx_t *ctx, const char *isa);
/* Which lowering rules selection uses from now on: "hand" (the default) or "synthesized"
 * (src/targets/x86.synth.rules alone; a description without such a file keeps its hand
 * rules). -1 with an error for another name. */
int tine_set_lower_rules(tine_ctx_t *ctx, const char *which);
tine_expr_t *tine_lift_with(tine_ctx_t *ctx, tine_ruleset_t *rs, tine_expr_t *e, tine_lift_trace_fn trace,
                            void *user);

/* Supplies a range for an integer variable, used by bounds inference (and so by
 * predicated rules: tine_lift, tine_lower, tine_jit_expr trust it); the range must lie
 * within the variable's type. It stays in the context until it is supplied again. Kernel
 * compilation and kernel runs never see such ranges: compiled kernels depend only on what
 * holds for every run. */
int tine_bounds_set_var(tine_ctx_t *ctx, const tine_expr_t *var, int64_t lo, int64_t hi);

/* ---- code generation (LLVM 19) ---------------------------------------------------- */

/* Instruction selection: LLVM alone (FPIR expanded to its definitions, LLVM selects), or
 * tine's (FPIR lowered by tine; for now: LLVM's generic intrinsics where they exist). */
typedef enum { TINE_SELECT_LLVM, TINE_SELECT_TINE } tine_selection_t;
/* What compiling produces, one enum for the library and the CLI (`--emit NAME`): LLVM
 * text, assembly, an object file (expressions and kernels); for kernels also the C
 * header of the object's entry point, each stage's body lifted (fpir) or lowered to the
 * target's instructions (lowered), the statement after every pass (stmt), and the
 * schedule (schedule). X(ID, name). */
#define TINE_EMIT_KINDS(X)                                                                                             \
    X(LLVM, "llvm")                                                                                                    \
    X(ASM, "asm")                                                                                                      \
    X(OBJ, "obj")                                                                                                      \
    X(H, "h")                                                                                                          \
    X(FPIR, "fpir")                                                                                                    \
    X(LOWERED, "lowered")                                                                                              \
    X(STMT, "stmt")                                                                                                    \
    X(SCHEDULE, "schedule")                                                                                            \
    X(TPROG, "tprog")
#define TINE_EMIT_ENUM_(id, name) TINE_EMIT_##id,
typedef enum { TINE_EMIT_KINDS(TINE_EMIT_ENUM_) TINE_EMIT_NKINDS } tine_emit_kind_t;
#undef TINE_EMIT_ENUM_
/* The kind's name ("obj", ...; NULL out of range), and the kind a name names (-1: none). */
const char *tine_emit_kind_name(tine_emit_kind_t kind);
int tine_emit_kind_find(const char *name);

/* Selection, the one function every compiled expression and kernel statement goes
 * through: LLVM alone expands FPIR ops into the primitive ops LLVM selects from; tine
 * lifts e into FPIR, then lowers it for target (tine_lift, tine_lower). NULL with an
 * error for an unknown target. */
tine_expr_t *tine_select_expr(tine_ctx_t *ctx, tine_expr_t *e, tine_selection_t sel, const char *target);

/* Targets: "host", "x86-64-sse2", "x86-64-sse41", "x86-64-avx2", "x86-64-avx512", "arm-64",
 * "arm-64-dotprod", "arm-64-i8mm" (the AArch64 ones compile only: emit, AOT objects). */
/* The optimized LLVM IR or assembly of `void tine_expr(const void *const *args, void *out)`
 * computing e; malloc'd text, or NULL with an error. */
char *tine_emit_expr(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel,
                     tine_emit_kind_t kind);
/* The same function named `symbol`, as LLVM text, assembly or an object file (for any
 * target: AArch64 objects run under qemu-aarch64): malloc'd bytes with a NUL after them,
 * *size their length (may be NULL); if args is not NULL, *args (malloc'd) and *nargs
 * receive the function's arguments in order, as tine_jit_arg gives them. NULL with an
 * error. */
char *tine_emit_expr_as(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel,
                        tine_emit_kind_t kind, const char *symbol, size_t *size, const tine_expr_t ***args,
                        int *nargs);

/* e compiled by LLVM's JIT for the host. Call it with one pointer per argument
 * (tine_jit_arg: variables, then buffers), each at the lanes (or elements) of that leaf,
 * in native layout, bools one byte per lane; out receives e's lanes. */
typedef struct tine_jit tine_jit_t;
tine_jit_t *tine_jit_expr(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel);
int tine_jit_nargs(const tine_jit_t *j);
const tine_expr_t *tine_jit_arg(const tine_jit_t *j, int i);
void tine_jit_call(const tine_jit_t *j, const void *const *args, void *out);
void tine_jit_free(tine_jit_t *j);

/* ---- kernels ---------------------------------------------------------------------- */

/* A buffer: dims 1..4; element (i0, i1, ...) at data[(i0 - min[0]) + (i1 - min[1]) * stride[1]
 * + ...] (strides in elements; dimension 0 is dense).
 *
 * What a caller must pass to every kernel entry point (tine_kernel_check_region,
 * tine_kernel_interpret, tine_compiled_run, and the entry points of AOT objects, which
 * check the same rules in the same order):
 *   - the buffer and its data non-NULL; dims the kernel's for that buffer;
 *   - every extent >= 1; min, extent and min + extent - 1 fit in int32_t;
 *   - stride[d] for d >= 1 positive and fits in int32_t; stride[0] is ignored (dense);
 *   - the largest index, sum over d of (extent[d] - 1) * stride[d], fits in int32_t;
 *   - the output's dimensions nest: stride[d] >= extent[d-1] * stride[d-1] (inputs may
 *     overlap themselves);
 *   - the output does not overlap any input in memory;
 *   - data needs no alignment.
 * A call that breaks a rule is refused before anything is read or written: -1 with an
 * error naming the buffer and the rule (AOT: -2 for the output, k for input k, -3 when
 * the output overlaps an input; -1 when a scratch buffer would be too large). */
/* What a kernel run returns: the codes of an AOT entry point (and of the statement's
 * checks inside every compiled run); input k (1-based) is TINE_RUN_INPUT + k - 1. */
typedef enum {
    TINE_RUN_OK = 0,
    TINE_RUN_SCRATCH = -1, /* a scratch buffer would be too large or cannot be allocated */
    TINE_RUN_OUTPUT = -2,  /* the output breaks a rule */
    TINE_RUN_OVERLAP = -3, /* the output overlaps an input */
    TINE_RUN_NO_TARGET = -4, /* a multi-target object: this CPU runs none of its targets */
    TINE_RUN_PARAM = -5,   /* a parameter is outside the range its declaration gives (`in`) */
    TINE_RUN_INPUT = 1,    /* input 1 breaks a rule or does not cover the region read */
} tine_run_code_t;
#ifndef TINE_BUFFER_T_DEFINED
#define TINE_BUFFER_T_DEFINED 1 /* the headers of AOT kernels declare it too */
typedef struct {
    void *data;
    int dims;
    int64_t min[4], extent[4], stride[4];
} tine_buffer_t;
#endif

/* A kernel (.tine file, see docs/KERNELS.md): parsed, checked and lowered to vector
 * bodies; NULL with a located error. */
typedef struct tine_kernel tine_kernel_t;
tine_kernel_t *tine_kernel_parse(tine_ctx_t *ctx, const char *text, const char *file);
/* The same kernel with its every-target definitions and directives alone (the `on NAME`
 * ones ignored: tine bench measures LLVM alone both ways), and whether k has functions or
 * directives of its own for target's instruction set. */
tine_kernel_t *tine_kernel_parse_common(tine_ctx_t *ctx, const char *text, const char *file);
int tine_kernel_has_own(const tine_kernel_t *k, const char *target);
/* The kernel k is for target: with its functions and directives `on` the target's
 * instruction set (docs/KERNELS.md), or k itself when it has none of its own. Compiling
 * k for target takes this one by itself. */
tine_kernel_t *tine_kernel_for_target(tine_kernel_t *k, const char *target);
void tine_kernel_free(tine_kernel_t *k);
int tine_kernel_dims(const tine_kernel_t *k);
int tine_kernel_lanes(const tine_kernel_t *k);
tine_type_t tine_kernel_output_type(const tine_kernel_t *k);
int tine_kernel_ninputs(const tine_kernel_t *k);
const char *tine_kernel_input(const tine_kernel_t *k, int i, tine_type_t *elem, int *dims);
int tine_kernel_nparams(const tine_kernel_t *k);
const char *tine_kernel_param(const tine_kernel_t *k, int i, tine_type_t *t);
/* Whether parameter i declares a range (`param K: i32 in 1..4096`), and the range: a run
 * with another value returns TINE_RUN_PARAM. */
int tine_kernel_param_range(const tine_kernel_t *k, int i, int64_t *lo, int64_t *hi);
/* The body of one output vector (or one element, scalar != 0): IR over $c0.. */
const tine_expr_t *tine_kernel_body(const tine_kernel_t *k, int scalar);
/* 0 if the buffers follow the rules above and every input covers the region the kernel
 * reads to fill out; else -1 with an error naming the buffer, and the rule or the region.
 * params[i] points at parameter i's value (bool parameters: one byte). */
int tine_kernel_check_region(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                             const tine_buffer_t *out);
/* The region of each input the kernel reads to fill out (its geometry; its data is not
 * read) with these parameters: input i is read at coordinates lo[i][d] ..= hi[i][d] in
 * dimension d, read[i] 0 when it is not read at all. The inputs' geometries are the ones
 * given (data may be NULL: they are not checked), since a read through a boundary
 * condition (edge, constant) stays inside its input, whatever that is. 0, or -1 with an
 * error (the output or a parameter breaks a rule, a stage would be too large). */
int tine_kernel_input_regions(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                              const tine_buffer_t *out, int64_t (*lo)[4], int64_t (*hi)[4], int *read);
/* 1 when parameter i sizes the run: a loop reduction's bounds or the region some input or
 * stage is read at depend on it (a window's width, a row's length, a stride); 0 when it
 * does not (a coefficient, a shift, a zero point); -1 with an error. */
int tine_kernel_param_sizes(const tine_kernel_t *k, int i);
/* The reference: fills out with the interpreter (checks the region first). */
int tine_kernel_interpret(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                          tine_buffer_t *out);
/* The kernel compiled for a target (LLVM alone, or tine's selection); run checks the
 * region, then calls the compiled code. */
typedef struct tine_compiled tine_compiled_t;
tine_compiled_t *tine_kernel_compile(tine_kernel_t *k, const char *target, tine_selection_t sel);
int tine_compiled_run(tine_compiled_t *c, tine_buffer_t *const *inputs, const void *const *params,
                      tine_buffer_t *out);
void tine_compiled_free(tine_compiled_t *c);
/* Compile time by phase, in milliseconds: the selection (tine's lifting, or LLVM alone's
 * expansion of FPIR ops) and LLVM (IR emission, O3, machine code). Parsing and lowering
 * to stages is tine_kernel_parse. */
void tine_compiled_times(const tine_compiled_t *c, double *select_ms, double *llvm_ms);
/* Ahead of time: the kernel as an object file (what = "obj"), assembly ("asm"), LLVM IR
 * ("llvm"), or the C header ("h") declaring its entry point
 *   int NAME(const tine_buffer_t *input..., intN_t param..., tine_buffer_t *out);
 * which checks its buffers (the rules above) and its inputs' regions itself, returning 0;
 * -2 (output), k (input k), -3 (aliasing) or -1 (scratch) when it refuses (the header's
 * comment says the same). target may be a comma-separated list of one architecture's
 * targets, best first: one object holding each one's code whose entry point runs the
 * first this CPU runs (-4 when none), and `const char *NAME_target(void)` naming it
 * (docs/KERNELS.md, Targets); tine_kernel_compile takes the first this CPU runs.
 * Returns malloc'd bytes and their count, or NULL with an error. */
/* Every stage's vector body after selection (lifted for tine, and then lowered to the
 * target's instructions when target is not NULL; expanded for LLVM alone), printed, each
 * after a "# stage NAME" line; malloc'd, or NULL with an error for an unknown target. */
char *tine_kernel_print_stages(tine_kernel_t *k, tine_selection_t sel, const char *target);
/* Every stage's loop nest after the passes and selection, as statements (docs/ARCHITECTURE.md, Loop nests):
 * malloc'd text, or NULL with an error for an unknown target. */
char *tine_kernel_print_stmt(tine_kernel_t *k, tine_selection_t sel, const char *target);
/* The schedule the kernel was compiled with, as .tine text ("schedule", then one directive
 * a line): the file's own, or the one `schedule auto` chose (or no schedule: the same);
 * pasted into the file in place of its schedule, it gives the same code. malloc'd. */
char *tine_kernel_print_schedule(const tine_kernel_t *k);
void *tine_kernel_emit(tine_kernel_t *k, const char *target, tine_selection_t sel, const char *name, const char *what,
                       size_t *size);
/* What the file became, for tools that show it (`tine report`). The stages, in the order
 * they run (the materialized functions, then the output): their count and the i-th's
 * name (NULL past the end); the loops of stage S are named "S.x" and so on. */
int tine_kernel_nstages(const tine_kernel_t *k);
const char *tine_kernel_stage_name(const tine_kernel_t *k, int i);
/* The i-th declaration, in the order written: its name, *kind ("input", "param", "func",
 * "boundary", "output") and *line in the file; NULL past the end. */
const char *tine_kernel_decl(const tine_kernel_t *k, int i, const char **kind, int *line);
/* The i-th directive of the schedule k was compiled with: the function it is about (""
 * for none), *line its line in the file (schedule auto's: the line of `auto`); NULL past
 * the end. */
const char *tine_kernel_directive(const tine_kernel_t *k, int i, int *line);
/* 1 when stage i computes declaration `name`'s code: it is the stage's function, or the
 * function calls it directly or through functions that are not materialized (inlined
 * into it); 0 otherwise (a materialized function it calls is read from that stage's
 * buffer); 0 for an input or a parameter. */
int tine_kernel_stage_calls(const tine_kernel_t *k, int stage, const char *name);
/* Every vector expression tine's selection rewrites when k is compiled for target, once
 * each, in the order of the statement: `selected` gets the named loop around its first
 * use ("out.x"; "" outside loops), the expression, lifted into FPIR, and lowered to the
 * target's instructions; `rule` (may be NULL), before that, every lift and lowering rule
 * applied to it, as tine_lift_with traces (a part lifted before shows none). 0, or -1
 * with an error. */
typedef void (*tine_selected_fn)(void *user, const char *loop, const tine_expr_t *before, const tine_expr_t *lifted,
                                 const tine_expr_t *lowered);
int tine_kernel_selections(tine_kernel_t *k, const char *target, tine_lift_trace_fn rule, tine_selected_fn selected,
                           void *user);
/* tine_kernel_emit by kind: any kind of tine_emit_kind_t (fpir, lowered, stmt and schedule
 * give the text tine_kernel_print_stages, tine_kernel_print_stmt and
 * tine_kernel_print_schedule give). */
void *tine_kernel_emit_kind(tine_kernel_t *k, const char *target, tine_selection_t sel, const char *name,
                            tine_emit_kind_t kind, size_t *size);

/* The steps from a kernel's text to its code, in the order the compile driver
 * (src/driver/compile.c) runs them; `tine compile --dump-after NAME` shows what one
 * produced. X(ID, name, what it does). */
#define TINE_STEPS(X)                                                                                                  \
    X(PARSE, "parse", "the text as a kernel's declarations and directives")                                          \
    X(ON, "on", "the `on` names checked; the target's sections' definitions and directives kept")                    \
    X(CHECK, "check", "declarations and the call graph checked")                                                     \
    X(SCHEDULE, "schedule", "the directives (schedule auto's or the written ones) applied and checked")               \
    X(ELABORATE, "elaborate", "each stage's bodies, at one lane and at its width")                                    \
    X(SLIDE, "slide", "the sliding windows of the stages computed at another's loop")                                \
    X(UNROLLED, "unrolled", "the code the unrolls make, within its limit")                                           \
    X(SCALARS, "scalars", "the kernel's scalar table: parameters and buffer geometry")                               \
    X(TARGET, "target", "the kernel's functions and directives `on` the target's instruction set")                     \
    X(BUILD, "build", "the run's plan and each stage's loop nest, as one statement")                                  \
    X(PARTITION, "partition", "boundary conditions leave the steady state")                                           \
    X(SIMPLIFY, "simplify", "index and bound arithmetic in linear form")                                              \
    X(RESIDUE, "residue", "vector loops per residue: x / 2 as dense reads")                                           \
    X(UNSWITCH, "unswitch", "vector loops per value of an invariant select")                                          \
    X(SELECT, "select", "lift + lower, once per expression")                                                          \
    X(INTERLEAVE, "interleave", "interleaves of loads of one buffer as one dense load")                               \
    X(PEEPHOLE, "peephole", "innermost loop bodies as target-level programs through the peephole optimizer")          \
    X(REASSOC, "reassoc", "a sum's invariant addends gathered, added last")                                           \
    X(HOIST, "hoist", "loop invariants bound once, outside their loops")                                              \
    X(EMIT, "emit", "the LLVM module: JIT, object, assembly, LLVM text; or the header or a listing")
#define TINE_STEP_ENUM_(id, name, what) TINE_STEP_##id,
typedef enum { TINE_STEPS(TINE_STEP_ENUM_) TINE_NSTEPS } tine_step_t;
#undef TINE_STEP_ENUM_
/* The step's name ("parse", ...; NULL out of range), and the step a name names (-1: none). */
const char *tine_step_name(tine_step_t step);
int tine_step_find(const char *name);
/* What the driver produced after `step` (or after every step when step is TINE_NSTEPS),
 * compiling the kernel of `text` (from `file`) for target with sel towards an output of
 * `kind` (named `name`): for each, a line "# after NAME", then the kernel's schedule and
 * stages (parse ... target; the front half's steps of every target's kernel), the
 * statement (build ... hoist) or the output, as text (emit: an object as assembly).
 * malloc'd, or NULL with an error. */
char *tine_kernel_dump_after(tine_ctx_t *ctx, const char *text, const char *file, const char *target,
                             tine_selection_t sel, const char *name, tine_emit_kind_t kind, int step);

/* ---- interpreter -------------------------------------------------------------- */

typedef struct tine_env tine_env_t;

tine_env_t *tine_env_new(tine_ctx_t *ctx);
void tine_env_free(tine_env_t *env);
/* Binds a variable node to lane values (bit patterns, one per lane; copied). */
int tine_env_bind(tine_env_t *env, const tine_expr_t *var, const uint64_t *lanes);
/* Binds a buffer: `count` elements of type elem (native layout: 1, 2, 4 or 8 bytes per
 * element; not copied). Loads outside [0, count) are errors. */
int tine_env_bind_buffer(tine_env_t *env, const char *name, tine_type_t elem,
                         const void *data, size_t count);
/* Evaluates e; writes e's lanes (bit patterns) to out. Returns 0, or -1 with an error. */
int tine_eval(tine_ctx_t *ctx, const tine_expr_t *e, tine_env_t *env, uint64_t *out);

/* ---- target descriptions from vendors' pseudocode (src/import) ---------------------- */

/* `tine isa import --intel`: the Intel Intrinsics Guide data file (its text xml, named
 * file in messages) translated into fixed instruction entries: *isa_text gets the
 * description (.isa text), *report one line per integer SIMD intrinsic not imported
 * (file:line: name: the construct that stopped it) after a summary per extension; both
 * malloc'd. cpuids: Intel's CPUID names, comma-separated (SSE2,AVX512BW,...), or NULL for
 * every extension tine imports. *imported of *candidates intrinsics. 0, or -1 with an
 * error (an unknown CPUID name). */
int tine_isa_import_intel(tine_ctx_t *ctx, const char *xml, const char *file, const char *cpuids, char **isa_text,
                          char **report, int *imported, int *candidates);

/* ---- proofs (src/verify, Z3) ------------------------------------------------------- */

/* Proves rules with Z3: for every rule and type instantiation, for all inputs, predicate
 * implies lhs = rhs. which: "lift" or "x86" (the built-in rule sets), or NULL for `text`
 * (a rule file named `file`): lift rules, or lowering rules on the instruction set `isa`.
 * only: one rule's name, or NULL. Writes a line per instantiation (quiet: only the ones
 * not proven) and totals to out. Returns the number of instantiations not proven
 * (counterexamples and unknowns: a timeout is not a proof; one that never fires is not
 * counted), with the context's error naming them when there are any; or -1 with an
 * error. */
int tine_verify_rules(tine_ctx_t *ctx, const char *which, const char *text, const char *file, const char *isa,
                      unsigned timeout_ms, const char *only, int quiet, FILE *out);

/* ---- synthesis (src/synth) --------------------------------------------------------- */

typedef struct {
    int size;                   /* operators in an enumerated expression (at most) */
    const tine_type_t *types;   /* the variables' element types, one search each */
    int ntypes;
    double time_limit;          /* seconds for the whole search; 0: none */
    unsigned timeout_ms;        /* per Z3 query */
    int from_scratch;           /* compare against no rules instead of the built-in ones */
    int hand_only;              /* ... against lift.rules without lift.synth.rules */
    int focus;                  /* an op (tine_op_t) the left sides must hold; -1: any */
    int general;                /* only rules that hold for every T they type at */
    FILE *log;                  /* a line per rule found, or NULL */
} tine_synth_lift_opts;

typedef struct {
    long enumerated, distinct;  /* expressions built; kept after fingerprint dedup */
    long fpir;                  /* FPIR candidates (distinct right sides) */
    long matched;               /* expressions some cheaper candidate evaluates equal to */
    long not_cheaper;           /* ... only candidates that do not lower the lift cost */
    long unproven;              /* candidates no generalisation proved (or compiled) */
    long overlaps;              /* proven rules dropped: overlap with the rules loaded */
    long rules;                 /* rules written */
    long general;               /* ... of them for every T the rule types at */
    double seconds;
    int timed_out;
} tine_synth_lift_stats;

/* `tine synth lift` (src/synth/lift_synth.c): lifting rules found by enumeration, each
 * proven with Z3. Returns the rule file's text (malloc'd), or NULL with an error. Every
 * rule in it is proven for all the instantiations it admits. */
char *tine_synth_lift(tine_ctx_t *ctx, const tine_synth_lift_opts *o, tine_synth_lift_stats *st);

typedef struct {
    const char *targets;        /* comma-separated target names: one search per level */
    const char *only;           /* specs whose name starts with this (an op: "rounding_shr"), or NULL */
    int size;                   /* nodes in a right side (at most) */
    int max_cost;               /* the costliest right side searched, in quarter cycles */
    double spec_seconds;        /* the search's time per spec and target */
    unsigned timeout_ms;        /* per Z3 query */
    FILE *log;                  /* a line per spec searched, or NULL */
} tine_synth_lower_opts;

typedef struct {
    long specs, searches;       /* specs, and (spec, target) searches */
    long enumerated, distinct;  /* nodes built; kept after fingerprint dedup */
    long matched, queries, counterexamples, unknown;
    long found, rules;          /* searches that found a proven rewrite; rules written (distinct) */
    long unproven;              /* rules the rule prover did not prove (dropped) */
    long timed_out;             /* searches stopped by spec_seconds */
    double seconds, solver_seconds;
    long peak_kb;               /* the process's peak resident memory after the search */
} tine_synth_lower_stats;

/* `tine synth lower` (src/synth/lower_synth.c): lowering rules found by search over the
 * target's instructions, each proven with Z3 as it is found and the file as a whole by
 * the rule prover. Returns the rule file's text (malloc'd), or NULL with an error. */
char *tine_synth_lower(tine_ctx_t *ctx, const tine_synth_lower_opts *o, tine_synth_lower_stats *st);

/* lift.rules and the rules of `text` (a rule file named `file`) compiled as one set, so
 * the rule compiler's checks (cost, overlaps) run across both; for tine_lift_with. NULL
 * with a located error. */
tine_ruleset_t *tine_lift_rules_plus(tine_ctx_t *ctx, const char *text, const char *file);

/* Translation validation: compiles the kernel `text` (named `file` in messages) for
 * target, or for every x86 level when target is NULL, with tine's selection, and proves
 * each vector expression selection rewrote equal to what it came from, assuming the
 * interval facts selection used. Returns the number of counterexamples, or -1 with an
 * error when the kernel does not compile. */
int tine_verify_kernel_all(tine_ctx_t *ctx, const char *text, const char *file, const char *target,
                           unsigned timeout_ms, FILE *out);
/* Bounds soundness: each op's interval rule against Z3 on many operand intervals (quick:
 * the reduced set CI runs). timeout_ms limits each query, and the whole run to
 * timeout_ms per interval tuple planned (at least 10 s, said first on out); tuples left
 * then are counted as skipped. Returns 1 if a result left its computed interval, -1 with
 * an error, 0 otherwise. */
int tine_verify_bounds_all(tine_ctx_t *ctx, int quick, unsigned timeout_ms, FILE *out);

/* Similarity classes of instructions (src/verify/classes.c): the instructions of the
 * description `isa` ("x86", "arm", or "all"/NULL: every built-in one, each also counted
 * alone) grouped by parameterised template, members proven instances by Z3 (timeout_ms per
 * query, 0: none). Writes each class (template, members, bindings) and the counts to out.
 * Returns the number of classes, or -1 with an error (an unknown description). */
int tine_isa_classes(tine_ctx_t *ctx, const char *isa, unsigned timeout_ms, FILE *out);

/* ---- retargeting intrinsic C (src/retarget) --------------------------------------- */

typedef struct {
    const char *from, *to;     /* targets: arm-64, x86-64-sse2, -sse41, -avx2, -avx512 */
    const char *const *cflags; /* the user's -I/-D flags, passed to the C front end */
    int ncflags;
    char **kept;               /* if not NULL: *kept (malloc'd), per function kept as written
                                  (one tine cannot rewrite; its intrinsics emulated), why */
    int no_widen;              /* nonzero: keep 128-bit loops at 128 bits on a wider target */
} tine_retarget_opts;

/* The C file at `path` (its text, or `text` if not NULL) rewritten for o->to: every
 * function whose code uses o->from's intrinsics has its vector code lifted through the
 * intrinsics' semantics, selected for o->to and written as C with o->to's intrinsics; the
 * rest of the text is kept as written. malloc'd; NULL with a located error. *report (if
 * not NULL, malloc'd): per call site what it became. */
char *tine_retarget(tine_ctx_t *ctx, const char *path, const char *text, const tine_retarget_opts *o, char **report);
/* The emulation header: every intrinsic of `from`'s instruction set as a static inline C
 * function for `to`, from its semantics (malloc'd; NULL with an error). *emitted and
 * *skipped (if not NULL): the intrinsics written, and those that could not be. */
char *tine_retarget_header(tine_ctx_t *ctx, const char *from, const char *to, int *emitted, int *skipped);
/* The functions of the file a test can call (`tine retarget --check`): not static, every
 * parameter an integer or a pointer to integers, returning one or nothing. One line each:
 * NAME, the return type, then per parameter "K BYTES NAME TYPE" (K: i a pointer to const
 * data, o a pointer to writable data, s an integer; BYTES: the pointee's or the integer's
 * size), separated by tabs. malloc'd; NULL with a located error. */
char *tine_retarget_functions(tine_ctx_t *ctx, const char *path, const char *text, const tine_retarget_opts *o);

/* ---- small float kernels vectorized (tine vectorize) --------------------------------- */

typedef struct {
    const char *function;      /* the kernel: a function of the file */
    const char *target;        /* x86-64-sse41, x86-64-avx2, x86-64-avx512, arm-64 */
    const char *emit;          /* obj (default), h, c, asm, llvm, spec, egraph-stats */
    const char *const *cflags; /* the C compiler's -I/-D/-U/-std= words */
    int ncflags;
    int reassociate;           /* AC rules on: equal over the reals, not bit for bit */
    int contract;              /* a*b + c may become one fma */
    int no_vectorize;          /* the spec as scalar code (the ablation) */
    int no_validate;           /* skip translation validation */
    int prove;                 /* also prove each output in Z3's floating-point theory (tine verify --vectorized) */
    double max_seconds;        /* the search's time limit (0: 8 s) */
    size_t max_nodes;          /* the e-graph's node limit (0: 2,000,000) */
} tine_vectorize_opts;

/* The kernel o->function of the C file at `path` (its text, or `text` if not NULL),
 * symbolically evaluated into its specification, vectorized by equality saturation for
 * o->target, validated against the specification, and written as o->emit asks (the
 * function keeps the C function's name and signature). malloc'd, *size its bytes; NULL with
 * a located error. *stats (if not NULL, malloc'd): the search's statistics, compile time
 * and peak memory, as text. */
char *tine_vectorize(tine_ctx_t *ctx, const char *path, const char *text, const tine_vectorize_opts *o, size_t *size,
                     char **stats);

/* ---- DFT codelets (tine dft) ------------------------------------------------------- */

typedef struct {
    int n;              /* the transform's size, 2 to 64 */
    int inverse;        /* sign +1 (FFTW_BACKWARD) instead of -1; unnormalized either way */
    const char *type;   /* "f32" (default) or "f64" */
    const char *target; /* x86-64-sse41, x86-64-avx2, x86-64-avx512, arm-64 ... */
    const char *emit;   /* obj (default), h, c, asm, llvm, tprog (the target-level program) */
    const char *name;   /* the function's name (default tine_dft_N) */
    int no_peephole;    /* skip the peephole optimizer (the ablation) */
    int no_schedule;    /* keep the selection's order (the ablation) */
    int no_contract;    /* no fused multiply-adds (each product and sum rounded) */
    int vector_bits;    /* the block's vector width: 128, 256, 512 (0: the target's, at most 256) */
} tine_dft_opts;

/* A straight-line codelet computing o->n-point complex DFTs over a batch, in FFTW's
 * layout: void NAME(const T *in, T *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t
 * idist, ptrdiff_t ostride, ptrdiff_t odist), element j of transform t the complex number
 * at in[2 * (t * idist + j * istride)] (strides and distances in complex elements), as
 * fftw_plan_many_dft has it; in place when in == out with one layout for both, else in
 * and out must not overlap. malloc'd, *size its bytes; NULL
 * with an error. *report (if not NULL, malloc'd): what each step of the pipeline made. */
char *tine_dft(tine_ctx_t *ctx, const tine_dft_opts *o, size_t *size, char **report);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
