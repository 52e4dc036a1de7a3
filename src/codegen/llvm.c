/* llvm.c — IR to LLVM IR through LLVM 19's C API; JIT, assembly and LLVM text.
 *
 * One expression becomes one function `void f(const void *const *args, void *out)`:
 * args[k] points at the lanes of leaf k (variables, then buffers, in tine_jit_arg order;
 * bools one byte per lane), out receives the result's lanes. Every primitive op is
 * emitted with tine's semantics, which LLVM's instructions do not all share, so the
 * emitter guards what LLVM leaves undefined: division by zero and INT_MIN / -1, shifts by
 * the width or more, negative shift counts, float-to-int overflow (llvm.fptosi.sat).
 *
 * Two selections: LLVM alone expands every FPIR op to its definition and leaves
 * instruction selection to LLVM; the tine selection emits FPIR ops that LLVM has a
 * generic intrinsic for (saturating add/sub, abs) as that intrinsic and expands the rest
 * — until the per-target lowering rules replace this.
 */
#define _POSIX_C_SOURCE 200809L
#include "../internal.h"

#include <ctype.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

/* ---- targets -------------------------------------------------------------------- */

typedef struct {
    const char *name, *cpu, *features;
} target_desc;

static const target_desc TARGETS[] = {
    {"host", NULL, NULL},
    {"x86-64-sse2", "x86-64", "+sse2"},
    {"x86-64-sse41", "x86-64-v2", "+sse4.1,+ssse3"},
    {"x86-64-avx2", "x86-64-v3", "+avx2,+fma"},
    {"x86-64-avx512", "x86-64-v4", "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512vnni"},
};

static void init_llvm_once(void) {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
}

/* LLVM's target registry is process-wide: contexts on several threads may reach this at
 * once, so the registration runs exactly once and the others wait for it. */
static void init_llvm(void) {
    static once_flag once = ONCE_FLAG_INIT;
    call_once(&once, init_llvm_once);
}

/* A target machine for a target name; NULL with an error for an unknown name. */
static LLVMTargetMachineRef target_machine(tine_ctx_t *ctx, const char *name, char **triple_out) {
    init_llvm();
    const target_desc *d = NULL;
    for (size_t i = 0; i < sizeof TARGETS / sizeof *TARGETS; i++)
        if (!strcmp(TARGETS[i].name, name ? name : "host")) d = &TARGETS[i];
    if (!d) {
        tine_buf b = {0};
        tine_buf_printf(&b, "unknown target '%s' (known:", name);
        for (size_t i = 0; i < sizeof TARGETS / sizeof *TARGETS; i++) tine_buf_printf(&b, " %s", TARGETS[i].name);
        tine_buf_puts(&b, ")");
        tine_set_error_str(ctx, b.p);
        return NULL;
    }
    char *triple;
    if (d->cpu) {
        triple = tine_strdup("x86_64-unknown-linux-gnu");
    } else {
        char *t = LLVMGetDefaultTargetTriple();
        triple = tine_strdup(t);
        LLVMDisposeMessage(t);
    }
    char *cpu = d->cpu ? tine_strdup(d->cpu) : LLVMGetHostCPUName();
    char *features = d->cpu ? tine_strdup(d->features) : LLVMGetHostCPUFeatures();
    LLVMTargetRef t;
    char *err = NULL;
    LLVMTargetMachineRef tm = NULL;
    if (LLVMGetTargetFromTriple(triple, &t, &err)) {
        tine_set_internal_error(ctx, "LLVM has no target for %s: %s", triple, err ? err : "");
        LLVMDisposeMessage(err);
    } else {
        tm = LLVMCreateTargetMachine(t, triple, cpu, features, LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                     LLVMCodeModelDefault);
        if (!tm) tine_set_internal_error(ctx, "LLVM could not make a target machine for %s", d->name);
    }
    if (d->cpu) {
        free(cpu);
        free(features);
    } else {
        LLVMDisposeMessage(cpu);
        LLVMDisposeMessage(features);
    }
    if (triple_out && tm) *triple_out = triple;
    else free(triple);
    return tm;
}

/* ---- emission --------------------------------------------------------------------- */

typedef struct {
    tine_ctx_t *ctx;
    LLVMContextRef lc;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    tine_selection_t sel;
    tine_expr_t **order;
    LLVMValueRef *val;
    uint32_t n;
    /* kernels: leaf values by node (variables) or by buffer name (loads) */
    const tine_expr_t **lk;
    LLVMValueRef *lv;
    int nl;
    /* expressions: leaves */
    const tine_expr_t **args;
    int nargs;
    LLVMValueRef argv;
    uint32_t features; /* the target's features, in the x86 description's numbering */
} gen;

static LLVMTypeRef elem_type(gen *g, tine_type_t t) {
    switch (t.kind) {
    case TINE_FLOAT: return t.bits == 32 ? LLVMFloatTypeInContext(g->lc) : LLVMDoubleTypeInContext(g->lc);
    case TINE_BOOL: return LLVMInt1TypeInContext(g->lc);
    default: return LLVMIntTypeInContext(g->lc, t.bits);
    }
}

static LLVMTypeRef vec_type(gen *g, tine_type_t t) { return LLVMVectorType(elem_type(g, t), t.lanes); }

static LLVMValueRef splat_int(gen *g, tine_type_t t, tine_u128 v) {
    LLVMTypeRef et = elem_type(g, t);
    uint64_t words[2] = {(uint64_t)v, (uint64_t)(v >> 64)};
    LLVMValueRef c = t.bits > 64 ? LLVMConstIntOfArbitraryPrecision(et, 2, words) : LLVMConstInt(et, words[0], 0);
    LLVMValueRef *lanes = malloc(sizeof *lanes * t.lanes);
    TINE_ASSERT(lanes != NULL);
    for (int i = 0; i < t.lanes; i++) lanes[i] = c;
    LLVMValueRef r = LLVMConstVector(lanes, t.lanes);
    free(lanes);
    return r;
}

static LLVMValueRef const_of(gen *g, const tine_expr_t *e) {
    tine_type_t t = e->type;
    LLVMTypeRef et = elem_type(g, t);
    LLVMValueRef *lanes = malloc(sizeof *lanes * t.lanes);
    TINE_ASSERT(lanes != NULL);
    for (int i = 0; i < t.lanes; i++) {
        tine_u128 v = tine_const_value(e, i);
        if (t.kind == TINE_FLOAT) {
            double d;
            if (t.bits == 32) {
                uint32_t w = (uint32_t)v;
                float f;
                memcpy(&f, &w, 4);
                d = f;
                /* bit-exact: a float constant through its bits */
                lanes[i] = LLVMConstBitCast(LLVMConstInt(LLVMInt32TypeInContext(g->lc), w, 0), et);
            } else {
                uint64_t w = (uint64_t)v;
                memcpy(&d, &w, 8);
                lanes[i] = LLVMConstBitCast(LLVMConstInt(LLVMInt64TypeInContext(g->lc), w, 0), et);
            }
            (void)d;
        } else {
            uint64_t words[2] = {(uint64_t)v, (uint64_t)(v >> 64)};
            lanes[i] = t.bits > 64 ? LLVMConstIntOfArbitraryPrecision(et, 2, words) : LLVMConstInt(et, words[0], 0);
        }
    }
    LLVMValueRef r = LLVMConstVector(lanes, t.lanes);
    free(lanes);
    return r;
}

static LLVMValueRef intrinsic(gen *g, const char *name, LLVMTypeRef *types, int ntypes, LLVMValueRef *args,
                              int nargs) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    TINE_ASSERT(id != 0);
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->m, id, types, (size_t)ntypes);
    LLVMTypeRef ft = LLVMIntrinsicGetType(g->lc, id, types, (size_t)ntypes);
    return LLVMBuildCall2(g->b, ft, f, args, (unsigned)nargs, "");
}

static LLVMValueRef binop_minmax(gen *g, tine_type_t t, bool is_min, LLVMValueRef a, LLVMValueRef b) {
    if (t.kind == TINE_FLOAT) { /* select(a < b, a, b) / select(a > b, a, b) */
        LLVMValueRef c = LLVMBuildFCmp(g->b, is_min ? LLVMRealOLT : LLVMRealOGT, a, b, "");
        return LLVMBuildSelect(g->b, c, a, b, "");
    }
    const char *n = t.kind == TINE_INT ? (is_min ? "llvm.smin" : "llvm.smax") : (is_min ? "llvm.umin" : "llvm.umax");
    LLVMTypeRef ty = vec_type(g, t);
    LLVMValueRef args[2] = {a, b};
    return intrinsic(g, n, &ty, 1, args, 2);
}

/* x << s or x >> s with tine's semantics: a negative (signed) count shifts the other way
 * by its magnitude; counts of the width or more give 0, or the sign for an arithmetic
 * right shift. */
static LLVMValueRef shift(gen *g, tine_type_t t, tine_type_t ts, bool left, LLVMValueRef x, LLVMValueRef s) {
    LLVMBuilderRef b = g->b;
    LLVMValueRef zero = splat_int(g, t, 0), width = splat_int(g, t, (tine_u128)t.bits),
                 wm1 = splat_int(g, t, (tine_u128)(t.bits - 1));
    LLVMValueRef mag = s, neg = NULL;
    if (ts.kind == TINE_INT) {
        neg = LLVMBuildICmp(b, LLVMIntSLT, s, zero, "");
        mag = LLVMBuildSelect(b, neg, LLVMBuildSub(b, zero, s, ""), s, "");
    }
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, mag, width, "");
    LLVMValueRef clamped = LLVMBuildSelect(b, big, wm1, mag, "");
    LLVMValueRef l = LLVMBuildSelect(b, big, zero, LLVMBuildShl(b, x, clamped, ""), "");
    /* LLVM 19's x86 backend (AVX2 and up) aborts with "Do not know how to scalarize the
     * result of this operator" on ashr <1 x i128> by umin(s, 127), the form InstCombine
     * makes of ashr by select(big, 127, s); for 128 bits the arithmetic shift takes the
     * same count as select(big, 127, s & 127), which stays out of that fold. */
    LLVMValueRef sra_count = clamped;
    if (t.bits > 64) sra_count = LLVMBuildSelect(b, big, wm1, LLVMBuildAnd(b, mag, wm1, ""), "");
    LLVMValueRef r = t.kind == TINE_INT ? LLVMBuildAShr(b, x, sra_count, "")
                                        : LLVMBuildSelect(b, big, zero, LLVMBuildLShr(b, x, clamped, ""), "");
    if (!neg) return left ? l : r;
    return left ? LLVMBuildSelect(b, neg, r, l, "") : LLVMBuildSelect(b, neg, l, r, "");
}

/* floor division and modulo with x / 0 = 0 and x % 0 = 0; INT_MIN / -1 wraps */
static LLVMValueRef divmod(gen *g, tine_type_t t, bool div, LLVMValueRef a, LLVMValueRef d) {
    LLVMBuilderRef b = g->b;
    LLVMValueRef zero = splat_int(g, t, 0), one = splat_int(g, t, 1);
    LLVMValueRef dz = LLVMBuildICmp(b, LLVMIntEQ, d, zero, "");
    LLVMValueRef safe = LLVMBuildSelect(b, dz, one, d, "");
    LLVMValueRef r;
    if (t.kind == TINE_UINT) {
        r = div ? LLVMBuildUDiv(b, a, safe, "") : LLVMBuildURem(b, a, safe, "");
    } else {
        LLVMValueRef m1 = splat_int(g, t, ~(tine_u128)0);
        LLVMValueRef isneg1 = LLVMBuildICmp(b, LLVMIntEQ, safe, m1, "");
        safe = LLVMBuildSelect(b, isneg1, one, safe, ""); /* avoid INT_MIN / -1 */
        LLVMValueRef q = LLVMBuildSDiv(b, a, safe, ""), rem = LLVMBuildSRem(b, a, safe, "");
        /* floor: when the remainder is non-zero and its sign differs from the divisor's */
        LLVMValueRef adj = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntNE, rem, zero, ""),
                                        LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildXor(b, rem, safe, ""), zero, ""), "");
        if (div) {
            q = LLVMBuildSub(b, q, LLVMBuildZExt(b, adj, vec_type(g, t), ""), "");
            r = LLVMBuildSelect(b, isneg1, LLVMBuildSub(b, zero, a, ""), q, "");
        } else {
            rem = LLVMBuildSelect(b, adj, LLVMBuildAdd(b, rem, safe, ""), rem, "");
            r = LLVMBuildSelect(b, isneg1, zero, rem, "");
        }
    }
    return LLVMBuildSelect(b, dz, zero, r, "");
}

static LLVMValueRef cast(gen *g, tine_type_t to, tine_type_t from, LLVMValueRef v) {
    LLVMBuilderRef b = g->b;
    LLVMTypeRef tt = vec_type(g, to);
    if (to.kind == TINE_BOOL) {
        if (from.kind == TINE_FLOAT) return LLVMBuildFCmp(b, LLVMRealUNE, v, LLVMConstNull(vec_type(g, from)), "");
        return LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstNull(vec_type(g, from)), "");
    }
    if (from.kind == TINE_BOOL) return to.kind == TINE_FLOAT ? LLVMBuildUIToFP(b, v, tt, "") : LLVMBuildZExt(b, v, tt, "");
    if (from.kind == TINE_FLOAT && to.kind == TINE_FLOAT)
        return to.bits > from.bits ? LLVMBuildFPExt(b, v, tt, "") : to.bits < from.bits ? LLVMBuildFPTrunc(b, v, tt, "") : v;
    if (from.kind == TINE_FLOAT) { /* truncates toward zero, saturates, NaN -> 0 */
        LLVMTypeRef types[2] = {tt, vec_type(g, from)};
        return intrinsic(g, to.kind == TINE_INT ? "llvm.fptosi.sat" : "llvm.fptoui.sat", types, 2, &v, 1);
    }
    if (to.kind == TINE_FLOAT) return from.kind == TINE_INT ? LLVMBuildSIToFP(b, v, tt, "") : LLVMBuildUIToFP(b, v, tt, "");
    if (to.bits < from.bits) return LLVMBuildTrunc(b, v, tt, "");
    if (to.bits > from.bits) return from.kind == TINE_INT ? LLVMBuildSExt(b, v, tt, "") : LLVMBuildZExt(b, v, tt, "");
    return v;
}

static LLVMValueRef shuffle(gen *g, LLVMValueRef a, LLVMValueRef b, const int *idx, int n) {
    LLVMValueRef *m = malloc(sizeof *m * (size_t)n);
    TINE_ASSERT(m != NULL);
    for (int i = 0; i < n; i++) m[i] = LLVMConstInt(LLVMInt32TypeInContext(g->lc), (unsigned long long)idx[i], 0);
    LLVMValueRef mask = LLVMConstVector(m, (unsigned)n);
    free(m);
    return LLVMBuildShuffleVector(g->b, a, b ? b : LLVMGetPoison(LLVMTypeOf(a)), mask, "");
}

/* Operands of a concat/interleave joined into one vector of their total lanes. */
static LLVMValueRef join(gen *g, const tine_expr_t *e, LLVMValueRef *ov) {
    /* pairwise concatenation through shuffles (operands of unequal lanes are padded) */
    LLVMValueRef acc = ov[0];
    int lanes = e->ops[0]->type.lanes;
    for (int k = 1; k < e->nops; k++) {
        int nl = e->ops[k]->type.lanes, total = lanes + nl, wide = lanes > nl ? lanes : nl;
        int *idx = malloc(sizeof *idx * (size_t)(total > 2 * wide ? total : 2 * wide));
        TINE_ASSERT(idx != NULL);
        LLVMValueRef a = acc, bv = ov[k];
        /* widen both to `wide` lanes so shufflevector takes them */
        if (lanes < wide) {
            for (int i = 0; i < wide; i++) idx[i] = i < lanes ? i : lanes;
            a = shuffle(g, a, NULL, idx, wide);
        }
        if (nl < wide) {
            for (int i = 0; i < wide; i++) idx[i] = i < nl ? i : nl;
            bv = shuffle(g, bv, NULL, idx, wide);
        }
        for (int i = 0; i < total; i++) idx[i] = i < lanes ? i : wide + (i - lanes);
        acc = shuffle(g, a, bv, idx, total);
        lanes = total;
        free(idx);
    }
    return acc;
}

static LLVMValueRef emit_node(gen *g, const tine_expr_t *e, LLVMValueRef *ov);

/* A template (an FPIR definition or an instruction's semantics) on operands already
 * emitted: placeholder ph[i] takes ov[i]. */
static LLVMValueRef emit_template(gen *g, const tine_expr_t *tmpl, const tine_expr_t *const *ph, int nph,
                                  LLVMValueRef *ov) {
    uint32_t n;
    tine_expr_t **order = tine_topo(g->ctx, tmpl, &n);
    LLVMValueRef *val = calloc(n, sizeof *val);
    TINE_ASSERT(val != NULL);
    for (uint32_t k = 0; k < n; k++) {
        for (int i = 0; i < nph; i++)
            if (order[k] == ph[i]) val[k] = ov[i];
        if (val[k]) continue;
        LLVMValueRef o[256];
        for (int i = 0; i < order[k]->nops; i++) o[i] = val[tine_topo_index(order, n, order[k]->ops[i])];
        val[k] = emit_node(g, order[k], o);
    }
    LLVMValueRef r = val[n - 1];
    free(val);
    free(order);
    return r;
}

/* An FPIR node: an intrinsic where the selection has one, else its definition. */
static LLVMValueRef emit_fpir(gen *g, const tine_expr_t *e, LLVMValueRef *ov) {
    tine_type_t t = e->type;
    if (g->sel == TINE_SELECT_TINE) {
        LLVMTypeRef ty = vec_type(g, t);
        bool s = t.kind == TINE_INT;
        switch ((tine_op_t)e->op) {
        case TINE_OP_SATURATING_ADD: return intrinsic(g, s ? "llvm.sadd.sat" : "llvm.uadd.sat", &ty, 1, ov, 2);
        case TINE_OP_SATURATING_SUB: return intrinsic(g, s ? "llvm.ssub.sat" : "llvm.usub.sat", &ty, 1, ov, 2);
        case TINE_OP_ABS:
            if (e->ops[0]->type.kind == TINE_INT) {
                LLVMValueRef args[2] = {ov[0], LLVMConstInt(LLVMInt1TypeInContext(g->lc), 0, 0)};
                return intrinsic(g, "llvm.abs", &ty, 1, args, 2);
            }
            return ov[0];
        default: break;
        }
    }
    const tine_expr_t *const *ph;
    const tine_expr_t *tmpl = tine_fpir_template(g->ctx, e, &ph);
    return emit_template(g, tmpl, ph, e->nops, ov);
}

/* ---- target instructions ------------------------------------------------------------- */

/* The form of an instruction to emit for a result of `bits` bits: the widest the target
 * has that the result fills, else the narrowest it has (the operands are padded); -1 if
 * the target has none. */
static int insn_form(const tine_insn *in, uint32_t features, int bits) {
    int best = -1;
    for (int f = 0; f < in->nforms; f++) {
        if (!(features >> in->form[f].feature & 1)) continue;
        const tine_insn_form *c = &in->form[f];
        if (best < 0) best = f;
        else if (c->bits <= bits && (in->form[best].bits > bits || c->bits > in->form[best].bits)) best = f;
        else if (in->form[best].bits > bits && c->bits < in->form[best].bits) best = f;
    }
    return best;
}

/* Lanes [first, first + n) of v (of `lanes` lanes); lanes past the end are zero. */
static LLVMValueRef lanes_of(gen *g, LLVMValueRef v, int lanes, int first, int n) {
    if (first == 0 && n == lanes) return v;
    int *idx = malloc(sizeof *idx * (size_t)n);
    TINE_ASSERT(idx != NULL);
    for (int i = 0; i < n; i++) idx[i] = first + i < lanes ? first + i : lanes; /* lane `lanes`: of the zeros */
    LLVMValueRef r = shuffle(g, v, LLVMConstNull(LLVMTypeOf(v)), idx, n);
    free(idx);
    return r;
}

/* An instruction node. A generic form is its semantics as generic IR; an intrinsic form
 * is called once per register: the operands are cut into register-sized pieces (padded
 * with zeros when the vector is narrower than the register), bitcast to the intrinsic's
 * parameter types, and the results joined. A pack instruction reads two registers per
 * result register and works per 128-bit block, so its result is put back in lane order. */
static LLVMValueRef emit_insn(gen *g, const tine_expr_t *e, LLVMValueRef *ov) {
    const tine_insn *in = tine_insn_info(g->ctx, e->imm, NULL);
    tine_type_t t = e->type;
    int bits = t.lanes * t.bits;
    int f = insn_form(in, g->features, bits);
    if (f < 0 || in->generic) { /* not on this target: what it means, for LLVM to select */
        const tine_expr_t *const *ph;
        const tine_expr_t *tmpl = tine_insn_template(g->ctx, e, &ph, false);
        return emit_template(g, tmpl, ph, e->nops, ov);
    }
    const tine_insn_form *fm = &in->form[f];
    int W = fm->bits, nreg = (bits + W - 1) / W, rl = W / t.bits; /* result lanes per register */
    unsigned id = LLVMLookupIntrinsicID(fm->llvm, strlen(fm->llvm));
    TINE_ASSERT(id != 0);
    if (LLVMIntrinsicIsOverloaded(id)) { /* a generic intrinsic (llvm.sadd.sat): one call; LLVM splits */
        LLVMTypeRef vt = vec_type(g, t);
        LLVMTypeRef fty = LLVMIntrinsicGetType(g->lc, id, &vt, 1);
        LLVMValueRef fn = LLVMGetIntrinsicDeclaration(g->m, id, &vt, 1), args[8];
        unsigned np = LLVMCountParamTypes(fty);
        TINE_ASSERT(np <= 8 && (int)np >= e->nops);
        for (int j = 0; j < e->nops; j++) args[j] = ov[j];
        for (unsigned j = (unsigned)e->nops; j < np; j++) /* llvm.abs: INT_MIN is not poison */
            args[j] = LLVMConstInt(LLVMInt1TypeInContext(g->lc), 0, 0);
        return LLVMBuildCall2(g->b, fty, fn, args, np, "");
    }
    LLVMTypeRef rt = LLVMVectorType(elem_type(g, t), (unsigned)rl);
    LLVMTypeRef fty = LLVMIntrinsicGetType(g->lc, id, NULL, 0);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(g->m, id, NULL, 0);
    LLVMTypeRef params[8];
    unsigned np = LLVMCountParamTypes(fty);
    TINE_ASSERT(np <= 8);
    LLVMGetParamTypes(fty, params);
    LLVMValueRef *parts = malloc(sizeof *parts * (size_t)nreg);
    TINE_ASSERT(parts != NULL);
    for (int r = 0; r < nreg; r++) {
        LLVMValueRef args[8];
        unsigned na = 0;
        for (int j = 0; j < e->nops; j++) {
            tine_type_t ot = e->ops[j]->type;
            int ol = W / ot.bits; /* operand lanes per register */
            int pieces = in->pack ? 2 : 1;
            int first = r * ol * pieces;
            for (int k = 0; k < pieces; k++) {
                LLVMValueRef piece = lanes_of(g, ov[j], ot.lanes, first + k * ol, ol);
                TINE_ASSERT(na < np);
                args[na] = LLVMBuildBitCast(g->b, piece, params[na], "");
                na++;
            }
        }
        LLVMValueRef v = LLVMBuildCall2(g->b, fty, fn, args, np, "");
        v = LLVMBuildBitCast(g->b, v, rt, "");
        if (in->pack) { /* machine lane p of each 128-bit block: half from each register */
            int blk = 128 / t.bits, half = blk / 2, *idx = malloc(sizeof *idx * (size_t)rl);
            TINE_ASSERT(idx != NULL);
            for (int p = 0; p < rl; p++) {
                int j = p / blk, q = p % blk;
                int want = q < half ? j * half + q : rl / 2 + j * half + (q - half);
                idx[want] = p;
            }
            v = shuffle(g, v, NULL, idx, rl);
            free(idx);
        }
        parts[r] = v;
    }
    LLVMValueRef acc = parts[0];
    for (int r = 1; r < nreg; r++) { /* join registers pairwise into one vector */
        int have = r * rl, *idx = malloc(sizeof *idx * (size_t)(have + rl));
        TINE_ASSERT(idx != NULL);
        LLVMValueRef next = lanes_of(g, parts[r], rl, 0, have); /* widened to acc's lanes */
        for (int i = 0; i < have + rl; i++) idx[i] = i;
        acc = shuffle(g, acc, next, idx, have + rl);
        free(idx);
    }
    free(parts);
    return lanes_of(g, acc, nreg * rl, 0, t.lanes);
}

/* The pointer argument of a variable, or of a load's buffer (loads of one buffer share
 * it: they are found by the buffer's name). */
static LLVMValueRef load_arg(gen *g, const tine_expr_t *e) {
    if (g->lk) {
        for (int i = 0; i < g->nl; i++)
            if (g->lk[i] == e || (e->op == TINE_OP_LOAD && g->lk[i]->op == TINE_OP_LOAD &&
                                  tine_expr_name(g->lk[i]) == tine_expr_name(e)))
                return g->lv[i];
        TINE_ASSERT(!"a kernel leaf without a value");
    }
    int k = 0;
    while (k < g->nargs && g->args[k] != e &&
           !(e->op == TINE_OP_LOAD && g->args[k]->op == TINE_OP_LOAD && tine_expr_name(g->args[k]) == tine_expr_name(e)))
        k++;
    TINE_ASSERT(k < g->nargs);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(g->lc, 0);
    LLVMValueRef idx = LLVMConstInt(LLVMInt64TypeInContext(g->lc), (unsigned long long)k, 0);
    LLVMValueRef slot = LLVMBuildGEP2(g->b, ptr, g->argv, &idx, 1, "");
    return LLVMBuildLoad2(g->b, ptr, slot, "");
}

/* Whether lane i of an i32 index vector is lane 0's value plus i * stride, for a constant
 * stride: ramps with constant strides, broadcasts (stride 0), and sums, differences and
 * constant multiples of those. Exact under wrapping, as tine's i32 arithmetic is. */
static bool lane_stride(const tine_expr_t *e, int64_t *stride) {
    int64_t a, c;
    switch ((tine_op_t)e->op) {
    case TINE_OP_BROADCAST: *stride = 0; return true;
    case TINE_OP_CONST:
        if (!(e->flags & TINE_F_UNIFORM)) return false;
        *stride = 0;
        return true;
    case TINE_OP_RAMP:
        if (e->ops[1]->op != TINE_OP_CONST) return false;
        *stride = (int64_t)(tine_i128)tine_const_value(e->ops[1], 0);
        return true;
    case TINE_OP_ADD:
    case TINE_OP_SUB:
        if (!lane_stride(e->ops[0], &a) || !lane_stride(e->ops[1], &c)) return false;
        *stride = e->op == TINE_OP_ADD ? a + c : a - c;
        return true;
    case TINE_OP_MUL:
        for (int i = 0; i < 2; i++) {
            const tine_expr_t *k = e->ops[i];
            if (k->op == TINE_OP_CONST && (k->flags & TINE_F_UNIFORM) && lane_stride(e->ops[1 - i], &a)) {
                *stride = a * (int64_t)(tine_i128)tine_const_value(k, 0);
                return true;
            }
            /* a broadcast factor keeps a stride of 0 */
            if (k->op == TINE_OP_BROADCAST && lane_stride(e->ops[1 - i], &a) && a == 0) {
                *stride = 0;
                return true;
            }
        }
        return false;
    default: return false;
    }
}

static LLVMValueRef emit_node(gen *g, const tine_expr_t *e, LLVMValueRef *ov) {
    LLVMBuilderRef b = g->b;
    tine_type_t t = e->type;
    tine_op_t op = (tine_op_t)e->op;
    bool fl = t.kind == TINE_FLOAT;
    switch (op) {
    case TINE_OP_CONST: return const_of(g, e);
    case TINE_OP_VAR: {
        if (g->lk) return load_arg(g, e);
        LLVMValueRef p = load_arg(g, e);
        if (t.kind == TINE_BOOL) {
            LLVMTypeRef bytes = LLVMVectorType(LLVMInt8TypeInContext(g->lc), t.lanes);
            LLVMValueRef v = LLVMBuildLoad2(b, bytes, p, "");
            LLVMSetAlignment(v, 1);
            return LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstNull(bytes), "");
        }
        LLVMValueRef v = LLVMBuildLoad2(b, vec_type(g, t), p, "");
        LLVMSetAlignment(v, 1);
        return v;
    }
    case TINE_OP_LOAD: {
        LLVMValueRef base = load_arg(g, e);
        int64_t stride;
        if (t.lanes > 1 && lane_stride(e->ops[0], &stride) && (stride == 1 || stride == 0)) {
            /* consecutive lanes: one vector load at lane 0's index (or one element,
               broadcast) instead of a gather */
            LLVMValueRef i0 = LLVMBuildExtractElement(b, ov[0], LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0), "");
            LLVMValueRef p = LLVMBuildGEP2(b, elem_type(g, t), base, &i0, 1, "");
            if (stride == 1) {
                LLVMValueRef v = LLVMBuildLoad2(b, vec_type(g, t), p, "");
                LLVMSetAlignment(v, 1);
                return v;
            }
            LLVMValueRef x = LLVMBuildLoad2(b, elem_type(g, t), p, "");
            LLVMValueRef one = LLVMBuildInsertElement(b, LLVMGetPoison(LLVMVectorType(elem_type(g, t), 1)), x,
                                                      LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0), "");
            int *idx = calloc((size_t)t.lanes, sizeof *idx);
            TINE_ASSERT(idx != NULL);
            LLVMValueRef r = shuffle(g, one, NULL, idx, t.lanes);
            free(idx);
            return r;
        }
        LLVMValueRef ptrs = LLVMBuildGEP2(b, elem_type(g, t), base, &ov[0], 1, "");
        LLVMTypeRef types[2] = {vec_type(g, t), LLVMTypeOf(ptrs)};
        LLVMValueRef args[4] = {ptrs, LLVMConstInt(LLVMInt32TypeInContext(g->lc), 1, 0),
                                LLVMConstAllOnes(LLVMVectorType(LLVMInt1TypeInContext(g->lc), t.lanes)),
                                LLVMGetPoison(vec_type(g, t))};
        return intrinsic(g, "llvm.masked.gather", types, 2, args, 4);
    }
    case TINE_OP_ADD: return fl ? LLVMBuildFAdd(b, ov[0], ov[1], "") : LLVMBuildAdd(b, ov[0], ov[1], "");
    case TINE_OP_SUB: return fl ? LLVMBuildFSub(b, ov[0], ov[1], "") : LLVMBuildSub(b, ov[0], ov[1], "");
    case TINE_OP_MUL: return fl ? LLVMBuildFMul(b, ov[0], ov[1], "") : LLVMBuildMul(b, ov[0], ov[1], "");
    case TINE_OP_DIV: return fl ? LLVMBuildFDiv(b, ov[0], ov[1], "") : divmod(g, t, true, ov[0], ov[1]);
    case TINE_OP_MOD: return divmod(g, t, false, ov[0], ov[1]);
    case TINE_OP_MIN: return binop_minmax(g, t, true, ov[0], ov[1]);
    case TINE_OP_MAX: return binop_minmax(g, t, false, ov[0], ov[1]);
    case TINE_OP_NEG: return fl ? LLVMBuildFNeg(b, ov[0], "") : LLVMBuildNeg(b, ov[0], "");
    case TINE_OP_AND: return LLVMBuildAnd(b, ov[0], ov[1], "");
    case TINE_OP_OR: return LLVMBuildOr(b, ov[0], ov[1], "");
    case TINE_OP_XOR: return LLVMBuildXor(b, ov[0], ov[1], "");
    case TINE_OP_NOT: return LLVMBuildNot(b, ov[0], "");
    case TINE_OP_SHL: return shift(g, t, e->ops[1]->type, true, ov[0], ov[1]);
    case TINE_OP_SHR: return shift(g, t, e->ops[1]->type, false, ov[0], ov[1]);
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE: {
        tine_type_t ot = e->ops[0]->type;
        if (ot.kind == TINE_FLOAT) {
            static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT, LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
            return LLVMBuildFCmp(b, fp[op - TINE_OP_EQ], ov[0], ov[1], "");
        }
        static const LLVMIntPredicate sp[] = {LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
        static const LLVMIntPredicate up[] = {LLVMIntEQ, LLVMIntNE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
        if (ot.bits == 128 && op != TINE_OP_EQ && op != TINE_OP_NE) {
            /* LLVM 19's x86 backend with AVX-512 miscompiles an ordered compare of a 1-lane
               i128 vector that feeds a select (it tests the high half against 2, not 1).
               Compare the halves instead: the high halves by the type's signedness, the low
               halves unsigned when the high halves are equal. */
            LLVMTypeRef h = LLVMVectorType(LLVMInt64TypeInContext(g->lc), ot.lanes);
            LLVMValueRef sh = splat_int(g, ot, 64);
            LLVMValueRef ah = LLVMBuildTrunc(b, LLVMBuildLShr(b, ov[0], sh, ""), h, ""),
                         bh = LLVMBuildTrunc(b, LLVMBuildLShr(b, ov[1], sh, ""), h, "");
            LLVMValueRef al = LLVMBuildTrunc(b, ov[0], h, ""), bl = LLVMBuildTrunc(b, ov[1], h, "");
            LLVMValueRef hi = LLVMBuildICmp(b, (ot.kind == TINE_INT ? sp : up)[op - TINE_OP_EQ], ah, bh, "");
            LLVMValueRef lo = LLVMBuildICmp(b, up[op - TINE_OP_EQ], al, bl, "");
            LLVMValueRef heq = LLVMBuildICmp(b, LLVMIntEQ, ah, bh, "");
            return LLVMBuildSelect(b, heq, lo, hi, "");
        }
        return LLVMBuildICmp(b, (ot.kind == TINE_INT ? sp : up)[op - TINE_OP_EQ], ov[0], ov[1], "");
    }
    case TINE_OP_SELECT: return LLVMBuildSelect(b, ov[0], ov[1], ov[2], "");
    case TINE_OP_CAST: return cast(g, t, e->ops[0]->type, ov[0]);
    case TINE_OP_REINTERPRET: return LLVMBuildBitCast(b, ov[0], vec_type(g, t), "");
    case TINE_OP_BROADCAST: {
        int *idx = calloc((size_t)t.lanes, sizeof *idx);
        TINE_ASSERT(idx != NULL);
        LLVMValueRef r = shuffle(g, ov[0], NULL, idx, t.lanes);
        free(idx);
        return r;
    }
    case TINE_OP_RAMP: {
        int *idx = calloc((size_t)t.lanes, sizeof *idx);
        TINE_ASSERT(idx != NULL);
        LLVMValueRef base = shuffle(g, ov[0], NULL, idx, t.lanes), stride = shuffle(g, ov[1], NULL, idx, t.lanes);
        free(idx);
        LLVMTypeRef et = elem_type(g, t);
        LLVMValueRef *iota = malloc(sizeof *iota * t.lanes);
        TINE_ASSERT(iota != NULL);
        for (int i = 0; i < t.lanes; i++) iota[i] = LLVMConstInt(et, (unsigned long long)i, 0);
        LLVMValueRef io = LLVMConstVector(iota, t.lanes);
        free(iota);
        return LLVMBuildAdd(b, base, LLVMBuildMul(b, stride, io, ""), "");
    }
    case TINE_OP_CONCAT: return join(g, e, ov);
    case TINE_OP_INTERLEAVE: {
        LLVMValueRef all = join(g, e, ov);
        int n = e->nops, l = e->ops[0]->type.lanes, *idx = malloc(sizeof *idx * (size_t)t.lanes);
        TINE_ASSERT(idx != NULL);
        for (int i = 0; i < t.lanes; i++) idx[i] = (i % n) * l + i / n;
        LLVMValueRef r = shuffle(g, all, NULL, idx, t.lanes);
        free(idx);
        return r;
    }
    case TINE_OP_SLICE:
    case TINE_OP_DEINTERLEAVE: {
        int begin, stride, count, n, k;
        if (op == TINE_OP_SLICE) tine_slice_params(e, &begin, &stride, &count);
        else {
            tine_deinterleave_params(e, &n, &k);
            begin = k;
            stride = n;
            count = t.lanes;
        }
        int *idx = malloc(sizeof *idx * (size_t)count);
        TINE_ASSERT(idx != NULL);
        for (int i = 0; i < count; i++) idx[i] = begin + i * stride;
        LLVMValueRef r = shuffle(g, ov[0], NULL, idx, count);
        free(idx);
        return r;
    }
    case TINE_OP_VECTOR_REDUCE_ADD: {
        int gsz = e->ops[0]->type.lanes / t.lanes, *idx = malloc(sizeof *idx * (size_t)t.lanes);
        TINE_ASSERT(idx != NULL);
        LLVMValueRef acc = NULL;
        for (int j = 0; j < gsz; j++) {
            for (int i = 0; i < t.lanes; i++) idx[i] = i * gsz + j;
            LLVMValueRef part = shuffle(g, ov[0], NULL, idx, t.lanes);
            acc = !acc ? part : fl ? LLVMBuildFAdd(b, acc, part, "") : LLVMBuildAdd(b, acc, part, "");
        }
        free(idx);
        return acc;
    }
    case TINE_OP_SQRT: {
        LLVMTypeRef ty = vec_type(g, t);
        return intrinsic(g, "llvm.sqrt", &ty, 1, ov, 1);
    }
    case TINE_OP_INSN: return emit_insn(g, e, ov);
    default: break;
    }
    TINE_ASSERT(tine_op_is_fpir(op));
    return emit_fpir(g, e, ov);
}

/* ---- compiled expressions ---------------------------------------------------------- */

struct tine_jit {
    tine_ctx_t *ctx;
    LLVMOrcLLJITRef jit;
    void (*fn)(const void *const *, void *);
    const tine_expr_t **args;
    int nargs;
};

static int cmp_leaf(const void *a, const void *b) {
    const tine_expr_t *x = *(const tine_expr_t *const *)a, *y = *(const tine_expr_t *const *)b;
    if (x->op != y->op) return x->op == TINE_OP_VAR ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static LLVMValueRef emit_dag(gen *g, const tine_expr_t *root) {
    uint32_t n;
    tine_expr_t **order = tine_topo(g->ctx, root, &n);
    LLVMValueRef *val = calloc(n, sizeof *val);
    TINE_ASSERT(val != NULL);
    for (uint32_t k = 0; k < n; k++) {
        LLVMValueRef ov[256];
        const tine_expr_t *x = order[k];
        for (int i = 0; i < x->nops; i++) ov[i] = val[tine_topo_index(order, n, x->ops[i])];
        val[k] = emit_node(g, x, ov);
    }
    LLVMValueRef r = val[n - 1];
    free(val);
    free(order);
    return r;
}

/* An invalid module is tine's bug, never the input's: reported as an internal error (with
 * the verifier's first complaint) so that the caller gets a failure instead of LLVM
 * crashing on the module later. False if m is invalid. */
static bool verify_module(tine_ctx_t *ctx, LLVMModuleRef m) {
    char *msg = NULL;
    bool bad = LLVMVerifyModule(m, LLVMReturnStatusAction, &msg);
    if (bad) {
        const char *why = msg ? msg : "";
        const char *nl = strchr(why, '\n');
        tine_set_internal_error(ctx, "tine emitted an invalid LLVM module: %.*s", (int)(nl ? nl - why : (long)strlen(why)),
                                why);
    }
    LLVMDisposeMessage(msg);
    return !bad;
}

/* Ends the function being built and verifies the module. */
static bool finish_function(gen *g) {
    LLVMBuildRetVoid(g->b);
    LLVMDisposeBuilder(g->b);
    return verify_module(g->ctx, g->m);
}

/* Builds the module of one expression; NULL with an error. */
static LLVMModuleRef build_module(tine_ctx_t *ctx, LLVMContextRef lc, const tine_expr_t *e, tine_selection_t sel,
                                  const char *target, const char *name, const tine_expr_t ***args_out,
                                  int *nargs_out) {
    if (e->type.bits > 64) {
        tine_set_error(ctx, "a compiled expression's result must have at most 64-bit lanes");
        return NULL;
    }
    gen g = {.ctx = ctx, .lc = lc, .sel = sel, .features = tine_target_features(ctx, target, NULL)};
    const tine_expr_t *root = sel == TINE_SELECT_LLVM ? tine_expand(ctx, (tine_expr_t *)e)
                                                      : tine_lower(ctx, (tine_expr_t *)e, target);
    g.order = tine_topo(ctx, root, &g.n);
    /* leaves: variables, then one per buffer (the first load of each names it) */
    g.args = malloc(sizeof *g.args * g.n);
    TINE_ASSERT(g.args != NULL);
    for (uint32_t k = 0; k < g.n; k++) {
        const tine_expr_t *x = g.order[k];
        if (x->op == TINE_OP_VAR) {
            if (x->type.bits > 64) {
                tine_set_error(ctx, "a compiled expression's inputs must have at most 64-bit lanes");
                free(g.order);
                free(g.args);
                return NULL;
            }
            g.args[g.nargs++] = x;
        }
    }
    qsort(g.args, (size_t)g.nargs, sizeof *g.args, cmp_leaf);
    int nvars = g.nargs;
    for (uint32_t k = 0; k < g.n; k++) {
        const tine_expr_t *x = g.order[k];
        if (x->op != TINE_OP_LOAD) continue;
        bool seen = false;
        for (int i = nvars; i < g.nargs && !seen; i++) seen = tine_expr_name(g.args[i]) == tine_expr_name(x);
        if (!seen) g.args[g.nargs++] = x;
    }
    g.m = LLVMModuleCreateWithNameInContext("tine", lc);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(lc, 0);
    LLVMTypeRef params[2] = {ptr, ptr};
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(lc), params, 2, 0);
    LLVMValueRef fn = LLVMAddFunction(g.m, name, fty);
    g.argv = LLVMGetParam(fn, 0);
    LLVMValueRef out = LLVMGetParam(fn, 1);
    g.b = LLVMCreateBuilderInContext(lc);
    LLVMPositionBuilderAtEnd(g.b, LLVMAppendBasicBlockInContext(lc, fn, "entry"));
    free(g.order);
    LLVMValueRef r = emit_dag(&g, root);
    tine_type_t rt = root->type;
    if (rt.kind == TINE_BOOL) r = LLVMBuildZExt(g.b, r, LLVMVectorType(LLVMInt8TypeInContext(lc), rt.lanes), "");
    LLVMValueRef st = LLVMBuildStore(g.b, r, out);
    LLVMSetAlignment(st, 1);
    if (!finish_function(&g)) {
        free(g.args);
        LLVMDisposeModule(g.m);
        return NULL;
    }
    *args_out = g.args;
    *nargs_out = g.nargs;
    return g.m;
}

static void set_layout(LLVMModuleRef m, LLVMTargetMachineRef tm) {
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    char *layout = LLVMCopyStringRepOfTargetData(td);
    LLVMSetDataLayout(m, layout);
    LLVMDisposeMessage(layout);
    LLVMDisposeTargetData(td);
}

static int optimize(tine_ctx_t *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm) {
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(m, "default<O3>", tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (err) {
        char *msg = LLVMGetErrorMessage(err);
        tine_set_internal_error(ctx, "LLVM's optimizer failed: %s", msg ? msg : "");
        LLVMDisposeErrorMessage(msg);
        return -1;
    }
    return 0;
}

/* Sets the module's target, optimizes it, and hands it to a new LLJIT; the target
 * machine, the module and the thread-safe context are consumed. Returns the address of
 * `symbol`, or 0 with an error in ctx. */
static uint64_t jit_module(tine_ctx_t *ctx, LLVMTargetMachineRef tm, const char *triple,
                           LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef m, const char *symbol,
                           LLVMOrcLLJITRef *jit) {
    LLVMSetTarget(m, triple);
    set_layout(m, tm);
    LLVMErrorRef err = NULL;
    LLVMOrcExecutorAddress addr = 0;
    if (optimize(ctx, m, tm) == 0) {
        LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
        /* the builder takes the target machine */
        LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
        tm = NULL;
        err = LLVMOrcCreateLLJIT(jit, builder);
        if (!err) {
            LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
            m = NULL;
            err = LLVMOrcLLJITAddLLVMIRModule(*jit, LLVMOrcLLJITGetMainJITDylib(*jit), tsm);
        }
        if (!err) err = LLVMOrcLLJITLookup(*jit, &addr, symbol);
    }
    if (m) LLVMDisposeModule(m);
    LLVMOrcDisposeThreadSafeContext(tsc);
    if (tm) LLVMDisposeTargetMachine(tm);
    if (err) {
        char *msg = LLVMGetErrorMessage(err);
        tine_set_internal_error(ctx, "LLVM's JIT failed: %s", msg ? msg : "");
        LLVMDisposeErrorMessage(msg);
        addr = 0;
    }
    return addr;
}

/* The module for the target, optimized (O3), as LLVM text, assembly or an object file:
 * malloc'd bytes with a NUL after them (*size excludes it), or NULL with an error. */
enum { OUT_LLVM, OUT_ASM, OUT_OBJ };
static char *module_output(tine_ctx_t *ctx, LLVMModuleRef m, LLVMTargetMachineRef tm, const char *triple, int what,
                           size_t *size) {
    LLVMSetTarget(m, triple);
    set_layout(m, tm);
    if (optimize(ctx, m, tm) != 0) return NULL;
    char *out = NULL;
    if (what == OUT_LLVM) {
        char *s = LLVMPrintModuleToString(m);
        out = tine_strdup(s);
        *size = strlen(s);
        LLVMDisposeMessage(s);
        return out;
    }
    LLVMMemoryBufferRef buf;
    char *err = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, what == OUT_OBJ ? LLVMObjectFile : LLVMAssemblyFile, &err, &buf)) {
        tine_set_internal_error(ctx, "LLVM could not emit the %s: %s", what == OUT_OBJ ? "object file" : "assembly",
                                err ? err : "");
        LLVMDisposeMessage(err);
        return NULL;
    }
    *size = LLVMGetBufferSize(buf);
    out = malloc(*size + 1);
    TINE_ASSERT(out != NULL);
    memcpy(out, LLVMGetBufferStart(buf), *size);
    out[*size] = 0;
    LLVMDisposeMemoryBuffer(buf);
    return out;
}

char *tine_emit_expr(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel,
                     tine_emit_kind_t kind) {
    if (!e) return NULL;
    char *triple = NULL;
    LLVMTargetMachineRef tm = target_machine(ctx, target, &triple);
    if (!tm) return NULL;
    LLVMContextRef lc = LLVMContextCreate();
    const tine_expr_t **args;
    int nargs;
    LLVMModuleRef m = build_module(ctx, lc, e, sel, target, "tine_expr", &args, &nargs);
    char *text = NULL;
    if (m) {
        free(args);
        size_t n;
        text = module_output(ctx, m, tm, triple, kind == TINE_EMIT_LLVM ? OUT_LLVM : OUT_ASM, &n);
        LLVMDisposeModule(m);
    }
    LLVMContextDispose(lc);
    LLVMDisposeTargetMachine(tm);
    free(triple);
    return text;
}

tine_jit_t *tine_jit_expr(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel) {
    if (!e) return NULL;
    char *triple = NULL;
    LLVMTargetMachineRef tm = target_machine(ctx, target, &triple);
    if (!tm) return NULL;
    tine_jit_t *j = calloc(1, sizeof *j);
    TINE_ASSERT(j != NULL);
    j->ctx = ctx;
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef lc = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef m = build_module(ctx, lc, e, sel, target, "tine_expr", &j->args, &j->nargs);
    if (!m) {
        LLVMOrcDisposeThreadSafeContext(tsc);
        LLVMDisposeTargetMachine(tm);
        free(triple);
        free(j);
        return NULL;
    }
    uint64_t addr = jit_module(ctx, tm, triple, tsc, m, "tine_expr", &j->jit);
    free(triple);
    j->fn = (void (*)(const void *const *, void *))(uintptr_t)addr;
    if (!j->fn) {
        tine_jit_free(j);
        return NULL;
    }
    return j;
}

void tine_jit_free(tine_jit_t *j) {
    if (!j) return;
    if (j->jit) LLVMOrcDisposeLLJIT(j->jit);
    free(j->args);
    free(j);
}

int tine_jit_nargs(const tine_jit_t *j) { return j->nargs; }
const tine_expr_t *tine_jit_arg(const tine_jit_t *j, int i) { return i >= 0 && i < j->nargs ? j->args[i] : NULL; }
void tine_jit_call(const tine_jit_t *j, const void *const *args, void *out) { j->fn(args, out); }

/* ---- kernels ------------------------------------------------------------------------------
 *
 * `void tine_kernel(const void *const *args)`: args[0] is the output's data, args[1 + i]
 * points at the int64 value of scalar i (parameters and buffer geometry, tine_compiled's
 * order), then one data pointer per input. Loops run over the output's dimensions, the
 * first innermost and vectorized: whole vectors, then one last vector shifted back to end
 * at the edge (it recomputes a few lanes; the body is pure), or one element at a time
 * when the output is narrower than a vector.
 */

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    void (*fn)(const void *const *);
    const tine_kscalar **scalars; /* the scalars whose values the caller passes */
    int nscalars;
    tine_expr_t *coord[4];       /* $.c0..: loop coordinates */
} compiled_stage;

struct tine_compiled {
    tine_kernel_t *k;
    char *target;
    LLVMOrcLLJITRef jit;
    double select_ms, llvm_ms;
    compiled_stage *st; /* one per stage */
    int nst;
};

typedef struct {
    gen *g;
    const compiled_stage *c;
    const tine_expr_t *body, *body1;
    tine_reduction *reds[2]; /* the loop reductions of body and body1, lifted or expanded */
    int nreds[2];
    int unroll[4], tile[2];
    int dims, lanes;
    tine_type_t ot;
    LLVMValueRef fn, out, min[4], extent[4], stride[4];
    LLVMTypeRef i64;
} kgen;

/* The value slot of a leaf in the table. */
static void set_leaf(gen *g, const tine_expr_t *e, LLVMValueRef v) {
    for (int i = 0; i < g->nl; i++)
        if (g->lk[i] == e) {
            g->lv[i] = v;
            return;
        }
    g->lk[g->nl] = e;
    g->lv[g->nl++] = v;
}

static LLVMValueRef scalar_vec(gen *g, LLVMValueRef v, tine_type_t t) {
    /* an i64 value as the <1 x T> a scalar variable is */
    LLVMValueRef x = LLVMBuildTrunc(g->b, v, elem_type(g, t), "");
    if (t.bits == 64) x = v;
    return LLVMBuildInsertElement(g->b, LLVMGetPoison(LLVMVectorType(elem_type(g, t), 1)), x,
                                  LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0), "");
}

/* The loop reductions nested directly in `parent` (-1: the body's own): each a loop over
 * r with the accumulator a phi, its result then bound to the reduction's variable. */
static void emit_loops(kgen *kg, const tine_reduction *rs, int n, int parent) {
    gen *g = kg->g;
    LLVMValueRef zero = LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0);
    for (int i = 0; i < n; i++) {
        const tine_reduction *R = &rs[i];
        if (R->parent != parent) continue;
        LLVMValueRef lo = LLVMBuildSExt(g->b, LLVMBuildExtractElement(g->b, emit_dag(g, R->lo), zero, ""), kg->i64, "");
        LLVMValueRef hi = LLVMBuildSExt(g->b, LLVMBuildExtractElement(g->b, emit_dag(g, R->hi), zero, ""), kg->i64, "");
        LLVMValueRef init = emit_dag(g, R->init);
        LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
        LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "reduce"),
                          body = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "reduce_body"),
                          exit = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "reduce_done");
        LLVMBuildBr(g->b, head);
        LLVMPositionBuilderAtEnd(g->b, head);
        LLVMValueRef r = LLVMBuildPhi(g->b, kg->i64, "r"), acc = LLVMBuildPhi(g->b, LLVMTypeOf(init), "acc");
        LLVMAddIncoming(r, &lo, &pre, 1);
        LLVMAddIncoming(acc, &init, &pre, 1);
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, r, hi, ""), body, exit);
        LLVMPositionBuilderAtEnd(g->b, body);
        set_leaf(g, R->r, scalar_vec(g, r, tine_type(TINE_INT, 32, 1)));
        set_leaf(g, R->acc, acc);
        emit_loops(kg, rs, n, i);
        LLVMValueRef next_acc = emit_dag(g, R->update);
        LLVMValueRef next_r = LLVMBuildAdd(g->b, r, LLVMConstInt(kg->i64, 1, 0), "");
        LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
        LLVMAddIncoming(r, &next_r, &latch, 1);
        LLVMAddIncoming(acc, &next_acc, &latch, 1);
        LLVMBuildBr(g->b, head);
        LLVMPositionBuilderAtEnd(g->b, exit);
        set_leaf(g, R->result, acc);
    }
}

/* One body at coordinate c0 (i64) of the innermost dimension, stored at out[index]. */
static void emit_point(kgen *kg, const tine_expr_t *body, LLVMValueRef c0, LLVMValueRef index) {
    gen *g = kg->g;
    if (kg->c->coord[0]) set_leaf(g, kg->c->coord[0], scalar_vec(g, c0, tine_type(TINE_INT, 32, 1)));
    int which = body == kg->body ? 0 : 1;
    emit_loops(kg, kg->reds[which], kg->nreds[which], -1);
    LLVMValueRef v = emit_dag(g, body);
    LLVMValueRef p = LLVMBuildGEP2(g->b, elem_type(g, kg->ot), kg->out, &index, 1, "");
    LLVMValueRef st = LLVMBuildStore(g->b, v, p);
    LLVMSetAlignment(st, 1);
}

/* for (i = lo; i < hi; i += step) — returns the induction value inside the body; the
 * caller emits the body, then calls loop_end. */
typedef struct {
    LLVMBasicBlockRef header, exit;
    LLVMValueRef phi, step;
} loop;

static LLVMValueRef loop_begin(kgen *kg, loop *l, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef step) {
    gen *g = kg->g;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
    l->header = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "loop");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "body");
    l->exit = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "exit");
    LLVMBuildBr(g->b, l->header);
    LLVMPositionBuilderAtEnd(g->b, l->header);
    l->phi = LLVMBuildPhi(g->b, kg->i64, "i");
    LLVMAddIncoming(l->phi, &lo, &pre, 1);
    l->step = step;
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, l->phi, hi, ""), body, l->exit);
    LLVMPositionBuilderAtEnd(g->b, body);
    return l->phi;
}

static void loop_end(kgen *kg, loop *l) {
    gen *g = kg->g;
    LLVMValueRef next = LLVMBuildAdd(g->b, l->phi, l->step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
    LLVMAddIncoming(l->phi, &next, &latch, 1);
    LLVMBuildBr(g->b, l->header);
    LLVMPositionBuilderAtEnd(g->b, l->exit);
}

/* The innermost dimension over [x0, x0 + w) (offsets from its minimum): whole vectors,
 * `unroll` of them per iteration and then one at a time, then one last vector shifted
 * back to end at x0 + w (it recomputes a few lanes; the body is pure); or one element at
 * a time when w is narrower than a vector. */
static void emit_x(kgen *kg, LLVMValueRef row, LLVMValueRef x0, LLVMValueRef w) {
    gen *g = kg->g;
    LLVMValueRef zero = LLVMConstInt(kg->i64, 0, 0), one = LLVMConstInt(kg->i64, 1, 0);
    LLVMValueRef L = LLVMConstInt(kg->i64, (unsigned long long)kg->lanes, 0), end = LLVMBuildAdd(g->b, x0, w, "");
    LLVMBasicBlockRef vec = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "vector"),
                      sca = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "scalar"),
                      done = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "row_done");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, w, L, ""), vec, sca);
    LLVMPositionBuilderAtEnd(g->b, vec);
    loop l;
    LLVMValueRef start = x0;
    int U = kg->unroll[0];
    if (U > 1) { /* U vectors per iteration while they fit */
        LLVMValueRef UL = LLVMConstInt(kg->i64, (unsigned long long)(U * kg->lanes), 0);
        LLVMValueRef x = loop_begin(kg, &l, x0, LLVMBuildAdd(g->b, LLVMBuildSub(g->b, end, UL, ""), one, ""), UL);
        for (int u = 0; u < U; u++) {
            LLVMValueRef xu = LLVMBuildAdd(g->b, x, LLVMConstInt(kg->i64, (unsigned long long)(u * kg->lanes), 0), "");
            emit_point(kg, kg->body, LLVMBuildAdd(g->b, kg->min[0], xu, ""), LLVMBuildAdd(g->b, row, xu, ""));
        }
        loop_end(kg, &l);
        start = l.phi; /* where the unrolled loop stopped */
    }
    LLVMValueRef x = loop_begin(kg, &l, start, LLVMBuildAdd(g->b, LLVMBuildSub(g->b, end, L, ""), one, ""), L);
    emit_point(kg, kg->body, LLVMBuildAdd(g->b, kg->min[0], x, ""), LLVMBuildAdd(g->b, row, x, ""));
    loop_end(kg, &l);
    LLVMBasicBlockRef tail = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "tail");
    LLVMValueRef rem = LLVMBuildSRem(g->b, w, L, "");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, rem, zero, ""), tail, done);
    LLVMPositionBuilderAtEnd(g->b, tail);
    LLVMValueRef last = LLVMBuildSub(g->b, end, L, "");
    emit_point(kg, kg->body, LLVMBuildAdd(g->b, kg->min[0], last, ""), LLVMBuildAdd(g->b, row, last, ""));
    LLVMBuildBr(g->b, done);
    /* narrower than a vector: one element at a time */
    LLVMPositionBuilderAtEnd(g->b, sca);
    x = loop_begin(kg, &l, x0, end, one);
    emit_point(kg, kg->body1, LLVMBuildAdd(g->b, kg->min[0], x, ""), LLVMBuildAdd(g->b, row, x, ""));
    loop_end(kg, &l);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
}

/* Coordinate d at c (i64): its variable set, then the dimensions inside it. */
static void emit_dim(kgen *kg, int d, LLVMValueRef row);
static void emit_at(kgen *kg, int d, LLVMValueRef c, LLVMValueRef row) {
    gen *g = kg->g;
    if (kg->c->coord[d]) set_leaf(g, kg->c->coord[d], scalar_vec(g, c, tine_type(TINE_INT, 32, 1)));
    LLVMValueRef off = LLVMBuildMul(g->b, LLVMBuildSub(g->b, c, kg->min[d], ""), kg->stride[d], "");
    emit_dim(kg, d - 1, LLVMBuildAdd(g->b, row, off, ""));
}

static LLVMValueRef imin(gen *g, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, a, b, ""), a, b, "");
}

static void emit_dim(kgen *kg, int d, LLVMValueRef row) {
    gen *g = kg->g;
    LLVMValueRef one = LLVMConstInt(kg->i64, 1, 0);
    if (d == 0) {
        emit_x(kg, row, LLVMConstInt(kg->i64, 0, 0), kg->extent[0]);
        return;
    }
    LLVMValueRef lo = kg->min[d], hi = LLVMBuildAdd(g->b, kg->min[d], kg->extent[d], "");
    loop l;
    if (d == 1 && kg->tile[0]) {
        /* tiles of tile[0] x tile[1]: rows of a tile, each a run of the first coordinate */
        LLVMValueRef TX = LLVMConstInt(kg->i64, (unsigned long long)kg->tile[0], 0),
                     TY = LLVMConstInt(kg->i64, (unsigned long long)kg->tile[1], 0);
        loop ly, lx;
        LLVMValueRef ty = loop_begin(kg, &ly, lo, hi, TY);
        LLVMValueRef tx = loop_begin(kg, &lx, LLVMConstInt(kg->i64, 0, 0), kg->extent[0], TX);
        LLVMValueRef w = imin(g, TX, LLVMBuildSub(g->b, kg->extent[0], tx, ""));
        LLVMValueRef y = loop_begin(kg, &l, ty, imin(g, LLVMBuildAdd(g->b, ty, TY, ""), hi), one);
        if (kg->c->coord[1]) set_leaf(g, kg->c->coord[1], scalar_vec(g, y, tine_type(TINE_INT, 32, 1)));
        LLVMValueRef off = LLVMBuildMul(g->b, LLVMBuildSub(g->b, y, kg->min[1], ""), kg->stride[1], "");
        emit_x(kg, LLVMBuildAdd(g->b, row, off, ""), tx, w);
        loop_end(kg, &l);
        loop_end(kg, &lx);
        loop_end(kg, &ly);
        return;
    }
    int U = kg->unroll[d];
    LLVMValueRef c = loop_begin(kg, &l, lo, hi, LLVMConstInt(kg->i64, (unsigned long long)U, 0));
    emit_at(kg, d, c, row);
    for (int u = 1; u < U; u++) { /* the next ones while inside */
        LLVMValueRef cu = LLVMBuildAdd(g->b, c, LLVMConstInt(kg->i64, (unsigned long long)u, 0), "");
        LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "unrolled"),
                          no = LLVMAppendBasicBlockInContext(g->lc, kg->fn, "unrolled_done");
        LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, cu, hi, ""), yes, no);
        LLVMPositionBuilderAtEnd(g->b, yes);
        emit_at(kg, d, cu, row);
        LLVMBuildBr(g->b, no);
        LLVMPositionBuilderAtEnd(g->b, no);
    }
    loop_end(kg, &l);
}

/* The function `tine_stageN` of stage n: args[0] its buffer's data, then the values of
 * its scalars, then the data of every input and of every earlier stage's buffer. */
/* The selection of one DAG: LLVM alone expands FPIR ops to their definitions; tine lifts
 * to FPIR and lowers that to the target's instructions. */
static tine_expr_t *select_expr(tine_ctx_t *ctx, tine_expr_t *e, tine_selection_t sel, const char *target) {
    if (!e) return NULL;
    if (sel == TINE_SELECT_LLVM) return tine_expand(ctx, e);
    tine_expr_t *r = tine_lower(ctx, tine_lift(ctx, e), target);
    TINE_ASSERT(r != NULL); /* the target was checked when its machine was made */
    return r;
}

/* False with an internal error if the module is invalid. */
static bool build_stage(tine_compiled_t *cc, LLVMModuleRef m, LLVMContextRef lc, tine_selection_t sel, int sn) {
    tine_kernel_t *k = cc->k;
    compiled_stage *c = &cc->st[sn];
    const tine_stage *st = tine_kernel_stage(k, sn);
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    gen g = {.ctx = ctx, .lc = lc, .sel = sel, .m = m, .features = tine_target_features(ctx, cc->target, NULL)};
    kgen kg = {.g = &g, .c = c, .dims = st->dims, .lanes = st->lanes, .ot = st->type};
    memcpy(kg.unroll, st->unroll, sizeof kg.unroll);
    memcpy(kg.tile, st->tile, sizeof kg.tile);
#define xform(ctx, e) select_expr(ctx, e, sel, cc->target)
    double t0 = seconds();
    kg.body = xform(ctx, st->body);
    kg.body1 = xform(ctx, st->body1);
    /* every DAG the function evaluates: the bodies, and their loops' bounds and updates */
    int nroots = 2;
    const tine_expr_t **roots = malloc(sizeof *roots * (size_t)(2 + 3 * (st->reds.n + st->reds1.n)));
    TINE_ASSERT(roots != NULL);
    roots[0] = kg.body;
    roots[1] = kg.body1;
    for (int w = 0; w < 2; w++) {
        const tine_reductions *rs = w ? &st->reds1 : &st->reds;
        kg.nreds[w] = rs->n;
        kg.reds[w] = malloc(sizeof *kg.reds[w] * (size_t)(rs->n + 1));
        TINE_ASSERT(kg.reds[w] != NULL);
        for (int i = 0; i < rs->n; i++) {
            tine_reduction *R = &kg.reds[w][i];
            *R = rs->v[i];
            R->lo = xform(ctx, R->lo);
            R->hi = xform(ctx, R->hi);
            R->update = xform(ctx, R->update);
            roots[nroots++] = R->lo;
            roots[nroots++] = R->hi;
            roots[nroots++] = R->update;
        }
    }
    cc->select_ms += (seconds() - t0) * 1e3;
    /* the scalars: every variable of those but the compiler's own, and the geometry of
       the stage's buffer, which the loops need */
    uint32_t total = 0;
    tine_expr_t ***order = malloc(sizeof *order * (size_t)nroots);
    uint32_t *norder = malloc(sizeof *norder * (size_t)nroots);
    TINE_ASSERT(order && norder);
    for (int i = 0; i < nroots; i++) {
        order[i] = tine_topo(ctx, roots[i], &norder[i]);
        total += norder[i];
    }
    c->scalars = malloc(sizeof *c->scalars * (total + 12));
    TINE_ASSERT(c->scalars != NULL);
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    for (int d = 0; d < kg.dims; d++)
        for (int w = TINE_KS_MIN; w <= TINE_KS_STRIDE; w++) {
            c->scalars[c->nscalars] = tine_kernel_geometry(k, -1, sn, (tine_ks_what)w, d);
            TINE_ASSERT(c->scalars[c->nscalars++] != NULL);
        }
    for (int pass = 0; pass < nroots; pass++) {
        tine_expr_t **o = order[pass];
        for (uint32_t i = 0; i < norder[pass]; i++) {
            const tine_expr_t *v = o[i];
            if (v->op != TINE_OP_VAR) continue;
            const char *name = tine_expr_name(v);
            if (tine_kernel_coord_dim(name) >= 0) {
                c->coord[tine_kernel_coord_dim(name)] = (tine_expr_t *)v;
                continue;
            }
            if (tine_kernel_internal_var(name)) continue;
            const tine_kscalar *ks = tine_kernel_scalar_of(k, v);
            TINE_ASSERT(ks != NULL); /* every other variable is a parameter or geometry */
            bool seen = false;
            for (int j = 0; j < c->nscalars && !seen; j++) seen = c->scalars[j] == ks;
            if (!seen) c->scalars[c->nscalars++] = ks;
        }
    }
    for (int i = 0; i < nroots; i++) free(order[i]);
    free(order);
    free(norder);
    free(roots);
    int nbuf = tine_kernel_ninputs(k) + sn;
    size_t nleaves = (size_t)(c->nscalars + 16 + nbuf + 3 * (kg.nreds[0] + kg.nreds[1]));
    g.lk = malloc(sizeof *g.lk * nleaves);
    g.lv = malloc(sizeof *g.lv * nleaves);
    TINE_ASSERT(g.lk && g.lv);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(lc, 0);
    kg.i64 = LLVMInt64TypeInContext(lc);
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(lc), &ptr, 1, 0);
    char fname[32];
    snprintf(fname, sizeof fname, "tine_stage%d", sn);
    kg.fn = LLVMAddFunction(g.m, fname, fty);
    LLVMValueRef argv = LLVMGetParam(kg.fn, 0);
    g.b = LLVMCreateBuilderInContext(lc);
    LLVMPositionBuilderAtEnd(g.b, LLVMAppendBasicBlockInContext(lc, kg.fn, "entry"));
    /* the arguments, loaded once */
    int nargs = 1 + c->nscalars + nbuf;
    LLVMValueRef *raw = malloc(sizeof *raw * (size_t)nargs);
    TINE_ASSERT(raw != NULL);
    for (int i = 0; i < nargs; i++) {
        LLVMValueRef idx = LLVMConstInt(kg.i64, (unsigned long long)i, 0);
        raw[i] = LLVMBuildLoad2(g.b, ptr, LLVMBuildGEP2(g.b, ptr, argv, &idx, 1, ""), "");
    }
    kg.out = raw[0];
    for (int i = 0; i < c->nscalars; i++) {
        LLVMValueRef v = LLVMBuildLoad2(g.b, kg.i64, raw[1 + i], "");
        const tine_expr_t *var = c->scalars[i]->var;
        if (i < 3 * kg.dims) { /* the stage buffer's geometry */
            int d = i / 3;
            (i % 3 == 0 ? kg.min : i % 3 == 1 ? kg.extent : kg.stride)[d] = v;
        }
        set_leaf(&g, var, scalar_vec(&g, v, var->type));
    }
    for (int i = 0; i < nbuf; i++) {
        /* loads find their buffer by name: a load of that name (of element 0) keys it */
        tine_type_t et;
        const char *name;
        if (i < tine_kernel_ninputs(k)) name = tine_kernel_input(k, i, &et, NULL);
        else {
            const tine_stage *p = tine_kernel_stage(k, i - tine_kernel_ninputs(k));
            name = p->name;
            et = p->type;
        }
        set_leaf(&g, tine_load(ctx, name, et, tine_const_int(ctx, i32, 0)), raw[1 + c->nscalars + i]);
    }
    emit_dim(&kg, kg.dims - 1, LLVMConstInt(kg.i64, 0, 0));
    bool ok = finish_function(&g);
    free(raw);
    free(g.lk);
    free(g.lv);
    free(kg.reds[0]);
    free(kg.reds[1]);
    return ok;
#undef xform
}

tine_compiled_t *tine_kernel_compile(tine_kernel_t *k, const char *target, tine_selection_t sel) {
    if (!k) return NULL;
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    double t0 = seconds();
    char *triple = NULL;
    LLVMTargetMachineRef tm = target_machine(ctx, target, &triple);
    if (!tm) return NULL;
    tine_compiled_t *c = calloc(1, sizeof *c);
    TINE_ASSERT(c != NULL);
    c->k = k;
    c->target = tine_strdup(target);
    c->nst = tine_kernel_nstages(k);
    c->st = calloc((size_t)c->nst, sizeof *c->st);
    TINE_ASSERT(c->st != NULL);
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef lc = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tine", lc);
    /* the code serves every run: selection sees no run's bounds facts (docs/ARCHITECTURE.md) */
    int scope = tine_bounds_open(ctx, true);
    bool built = true;
    for (int s = 0; s < tine_kernel_nstages(k) && built; s++) built = build_stage(c, m, lc, sel, s);
    tine_bounds_close(ctx, scope);
    if (!built) {
        LLVMDisposeModule(m);
        LLVMOrcDisposeThreadSafeContext(tsc);
        LLVMDisposeTargetMachine(tm);
        free(triple);
        tine_compiled_free(c);
        return NULL;
    }
    uint64_t addr = jit_module(ctx, tm, triple, tsc, m, "tine_stage0", &c->jit);
    free(triple);
    c->st[0].fn = (void (*)(const void *const *))(uintptr_t)addr;
    bool lost = false; /* jit_module reported its own failure; a lost stage is reported here */
    for (int s = 1; s < tine_kernel_nstages(k) && addr && !lost; s++) {
        char fname[32];
        snprintf(fname, sizeof fname, "tine_stage%d", s);
        LLVMOrcExecutorAddress a = 0;
        LLVMErrorRef err = LLVMOrcLLJITLookup(c->jit, &a, fname);
        if (err) {
            char *msg = LLVMGetErrorMessage(err);
            tine_set_internal_error(ctx, "LLVM's JIT lost the function of stage %d: %s", s, msg ? msg : "");
            LLVMDisposeErrorMessage(msg);
            lost = true;
        }
        c->st[s].fn = (void (*)(const void *const *))(uintptr_t)a;
    }
    if (!addr || lost) {
        tine_compiled_free(c);
        return NULL;
    }
    c->llvm_ms = (seconds() - t0) * 1e3 - c->select_ms;
    return c;
}

void tine_compiled_times(const tine_compiled_t *c, double *select_ms, double *llvm_ms) {
    *select_ms = c->select_ms;
    *llvm_ms = c->llvm_ms;
}

/* The stages of one plan, in order. */
static int run_plan(tine_compiled_t *c, tine_buffer_t *const *inputs, const void *const *params, const tine_plan *plan) {
    tine_kernel_t *k = c->k;
    for (int s = 0; s < tine_kernel_nstages(k); s++) {
        const compiled_stage *cs = &c->st[s];
        if (!plan->buf[s].data) continue; /* nothing reads it */
        int64_t *vals = malloc(sizeof *vals * (size_t)(cs->nscalars + 1));
        const void **args = malloc(sizeof *args * (size_t)(1 + cs->nscalars + tine_kernel_ninputs(k) + s));
        if (!vals || !args) {
            free(vals);
            free(args);
            return -1;
        }
        int n = 0;
        args[n++] = plan->buf[s].data;
        for (int i = 0; i < cs->nscalars; i++) {
            /* a stage's own geometry is its plan buffer's (for the output, this slice's) */
            vals[i] = tine_kscalar_value(k, cs->scalars[i], inputs, params, plan);
            args[n++] = &vals[i];
        }
        for (int i = 0; i < tine_kernel_ninputs(k); i++) args[n++] = inputs[i]->data;
        for (int p = 0; p < s; p++) args[n++] = plan->buf[p].data;
        cs->fn(args);
        free(vals);
        free(args);
    }
    return 0;
}

typedef struct {
    tine_compiled_t *c;
    tine_buffer_t *const *inputs;
    const void *const *params;
    tine_buffer_t out;
    tine_plan plan;
    int rc;
} chunk;

static int run_chunk(void *arg) {
    chunk *ch = arg;
    ch->rc = run_plan(ch->c, ch->inputs, ch->params, &ch->plan);
    return 0;
}

int tine_compiled_run(tine_compiled_t *c, tine_buffer_t *const *inputs, const void *const *params, tine_buffer_t *out) {
    tine_kernel_t *k = c->k;
    const tine_stage *os = tine_kernel_stage(k, tine_kernel_nstages(k) - 1);
    int D = os->dims - 1, nt = 1;
    /* the buffers first: the split below computes with out's geometry */
    if (tine_kernel_check_buffers(k, inputs, out)) return -1;
    if (os->parallel) {
        long np = sysconf(_SC_NPROCESSORS_ONLN);
        nt = np < 1 ? 1 : np > 64 ? 64 : (int)np;
        if (nt > out->extent[D]) nt = (int)(out->extent[D] > 0 ? out->extent[D] : 1);
    }
    chunk ch[64];
    /* the output's last coordinate in nt slices, each with its own plan (scratch regions
       for just what it reads), planned here, run on threads */
    for (int t = 0; t < nt; t++) {
        int64_t a = out->extent[D] * t / nt, b = out->extent[D] * (t + 1) / nt;
        ch[t] = (chunk){.c = c, .inputs = inputs, .params = params, .out = *out};
        if (nt > 1) {
            ch[t].out.min[D] = out->min[D] + a;
            ch[t].out.extent[D] = b - a;
            ch[t].out.data = (char *)out->data + a * (D ? out->stride[D] : 1) * (os->type.bits / 8);
        }
        if (tine_kernel_plan(k, inputs, params, &ch[t].out, &ch[t].plan)) {
            for (int u = 0; u < t; u++) tine_plan_free(k, &ch[u].plan);
            return -1;
        }
    }
    thrd_t th[64];
    bool started[64] = {false};
    for (int t = 1; t < nt; t++) started[t] = thrd_create(&th[t], run_chunk, &ch[t]) == thrd_success;
    run_chunk(&ch[0]);
    int rc = ch[0].rc;
    for (int t = 1; t < nt; t++) {
        if (started[t]) thrd_join(th[t], NULL);
        else run_chunk(&ch[t]); /* no thread: this one runs it */
        rc |= ch[t].rc;
    }
    for (int t = 0; t < nt; t++) tine_plan_free(k, &ch[t].plan);
    if (rc) tine_set_limit_error(tine_kernel_ctx(k), "out of memory for a stage's arguments");
    return rc ? -1 : 0;
}

void tine_compiled_free(tine_compiled_t *c) {
    if (!c) return;
    if (c->jit) LLVMOrcDisposeLLJIT(c->jit);
    for (int s = 0; s < c->nst; s++) free(c->st[s].scalars);
    free(c->st);
    free(c->target);
    free(c);
}

/* ---- AOT: an object file and a C header -------------------------------------------------
 *
 * An object file carries its own run plan: the entry point `int NAME(const tine_buffer_t
 * *input..., T param..., tine_buffer_t *out)` bounds every load of every stage by
 * interval arithmetic evaluated at run time over the actual geometry and parameters (the
 * rules of bounds.c for the ops coordinates are made of; anything else gets its type's
 * range), derives each materialized stage's region from its consumers' reads, checks
 * every input covers what is read, allocates the scratch buffers, and calls the stage
 * functions in order. It first checks the buffers by the rules of tine_kernel_check_buffers
 * (kernel.c), in the same order and with no arithmetic that can overflow. Returns 0; -2
 * when `out` breaks a rule; k > 0 when input k (1-based) does, or does not cover what the
 * kernel reads; -3 when out overlaps an input; -1 when a scratch buffer would be too large
 * (the JIT plan's limits) or cannot be allocated.
 */

typedef struct {
    LLVMValueRef lo, hi; /* i64 */
    bool klo, khi;       /* whether each end is known (compile-time) */
} ival;

typedef struct {
    gen *g;
    const tine_kernel_t *k;
    LLVMTypeRef i64, i1;
    const tine_kscalar *ks; /* the kernel's scalar table */
    LLVMValueRef *sv;       /* and their i64 values, by index in it (NULL: not known) */
    LLVMValueRef clo[4], chi[4]; /* the coordinates of the stage being bounded */
    /* per buffer (inputs, then stages): the region read so far */
    LLVMValueRef (*lo)[4], (*hi)[4];
    LLVMValueRef *any;
    const tine_expr_t **rvar; /* loop variables and their ranges */
    ival *rval;
    int nr;
    const char *bad; /* a buffer whose reads cannot be bounded */
} aot;

static LLVMValueRef k64(aot *a, int64_t v) { return LLVMConstInt(a->i64, (unsigned long long)v, 1); }

/* The value slot of one buffer's geometry (input >= 0, or stage). */
static LLVMValueRef *aot_geom(aot *a, int input, int stage, tine_ks_what what, int dim) {
    const tine_kscalar *s = tine_kernel_geometry(a->k, input, stage, what, dim);
    TINE_ASSERT(s != NULL);
    return &a->sv[s - a->ks];
}

static ival type_ival(aot *a, tine_type_t t) {
    if (t.kind == TINE_BOOL) return (ival){k64(a, 0), k64(a, 1), true, true};
    if (t.kind == TINE_FLOAT || t.bits > 32) return (ival){NULL, NULL, false, false};
    return (ival){k64(a, tine_type_min(t)), k64(a, (int64_t)tine_type_max(t)), true, true};
}

static LLVMValueRef smin(aot *a, LLVMValueRef x, LLVMValueRef y) {
    return LLVMBuildSelect(a->g->b, LLVMBuildICmp(a->g->b, LLVMIntSLT, x, y, ""), x, y, "");
}
static LLVMValueRef smax(aot *a, LLVMValueRef x, LLVMValueRef y) {
    return LLVMBuildSelect(a->g->b, LLVMBuildICmp(a->g->b, LLVMIntSGT, x, y, ""), x, y, "");
}

/* r if it lies inside t's range, else t's range (the operation wrapped) */
static ival wrap_guard(aot *a, tine_type_t t, ival r) {
    ival tr = type_ival(a, t);
    if (!r.klo || !r.khi || !tr.klo) return tr;
    LLVMBuilderRef b = a->g->b;
    LLVMValueRef in = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, r.lo, tr.lo, ""), LLVMBuildICmp(b, LLVMIntSLE, r.hi, tr.hi, ""), "");
    return (ival){LLVMBuildSelect(b, in, r.lo, tr.lo, ""), LLVMBuildSelect(b, in, r.hi, tr.hi, ""), true, true};
}

/* x * y in i64; *ovf |= whether it overflowed. */
static LLVMValueRef mul_ovf(aot *a, LLVMValueRef x, LLVMValueRef y, LLVMValueRef *ovf) {
    LLVMBuilderRef b = a->g->b;
    LLVMValueRef args[2] = {x, y};
    LLVMValueRef r = intrinsic(a->g, "llvm.smul.with.overflow", &a->i64, 1, args, 2);
    *ovf = LLVMBuildOr(b, *ovf, LLVMBuildExtractValue(b, r, 1, ""), "");
    return LLVMBuildExtractValue(b, r, 0, "");
}

/* r, or t's range when ovf holds */
static ival ovf_guard(aot *a, tine_type_t t, ival r, LLVMValueRef ovf) {
    ival tr = type_ival(a, t);
    if (!tr.klo) return tr;
    LLVMBuilderRef b = a->g->b;
    return (ival){LLVMBuildSelect(b, ovf, tr.lo, r.lo, ""), LLVMBuildSelect(b, ovf, tr.hi, r.hi, ""), true, true};
}

static bool const_int(const tine_expr_t *e, int64_t *v) {
    if (e->op != TINE_OP_CONST || !(e->flags & TINE_F_UNIFORM) || !tine_type_is_int(e->type) || e->type.bits > 32) return false;
    *v = (int64_t)(tine_i128)tine_const_value(e, 0);
    return true;
}

static ival aot_node(aot *a, const tine_expr_t *e, const ival *o) {
    /* Every known value is an i32 (geometry, checked first; coordinates) or lies in its
       type's range (parameters, results through wrap_guard, at most 32 bits): sums and
       differences fit in i64; products are checked (mul_ovf). */
    LLVMBuilderRef b = a->g->b;
    tine_type_t t = e->type;
    int64_t c;
    switch ((tine_op_t)e->op) {
    case TINE_OP_CONST:
        if (const_int(e, &c)) return (ival){k64(a, c), k64(a, c), true, true};
        return type_ival(a, t);
    case TINE_OP_VAR: {
        for (int i = 0; i < a->nr; i++)
            if (a->rvar[i] == e) return a->rval[i];
        const tine_kscalar *ks = tine_kernel_scalar_of(a->k, e);
        LLVMValueRef v = ks ? a->sv[ks - a->ks] : NULL;
        if (v && tine_type_is_int(t)) return (ival){v, v, true, true};
        int d = tine_kernel_coord_dim(tine_expr_name(e));
        if (d >= 0 && a->clo[d]) return (ival){a->clo[d], a->chi[d], true, true};
        return type_ival(a, t);
    }
    case TINE_OP_BROADCAST: return o[0];
    case TINE_OP_ADD:
    case TINE_OP_SUB: {
        if (!tine_type_is_int(t) || t.bits > 32) return type_ival(a, t);
        bool add = e->op == TINE_OP_ADD;
        ival r = {add ? LLVMBuildAdd(b, o[0].lo ? o[0].lo : k64(a, 0), o[1].lo ? o[1].lo : k64(a, 0), "")
                      : LLVMBuildSub(b, o[0].lo ? o[0].lo : k64(a, 0), o[1].hi ? o[1].hi : k64(a, 0), ""),
                  add ? LLVMBuildAdd(b, o[0].hi ? o[0].hi : k64(a, 0), o[1].hi ? o[1].hi : k64(a, 0), "")
                      : LLVMBuildSub(b, o[0].hi ? o[0].hi : k64(a, 0), o[1].lo ? o[1].lo : k64(a, 0), ""),
                  o[0].klo && o[0].khi && o[1].klo && o[1].khi, o[0].klo && o[0].khi && o[1].klo && o[1].khi};
        return wrap_guard(a, t, r);
    }
    case TINE_OP_MUL: {
        if (!tine_type_is_int(t) || t.bits > 32 || !o[0].klo || !o[0].khi || !o[1].klo || !o[1].khi) return type_ival(a, t);
        /* products of u32 ranges can pass 2^63: any product that overflows gives the type's range */
        LLVMValueRef ovf = LLVMConstInt(a->i1, 0, 0);
        LLVMValueRef p[4] = {mul_ovf(a, o[0].lo, o[1].lo, &ovf), mul_ovf(a, o[0].lo, o[1].hi, &ovf),
                             mul_ovf(a, o[0].hi, o[1].lo, &ovf), mul_ovf(a, o[0].hi, o[1].hi, &ovf)};
        ival r = {smin(a, smin(a, p[0], p[1]), smin(a, p[2], p[3])), smax(a, smax(a, p[0], p[1]), smax(a, p[2], p[3])), true, true};
        return ovf_guard(a, t, wrap_guard(a, t, r), ovf);
    }
    case TINE_OP_DIV:
        /* floor division by a positive constant is monotone */
        if (tine_type_is_int(t) && t.bits <= 32 && const_int(e->ops[1], &c) && c > 0 && o[0].klo && o[0].khi) {
            LLVMValueRef kc = k64(a, c), one = k64(a, 1);
            LLVMValueRef lo = o[0].lo, hi = o[0].hi;
            /* floor(x / c) = (x - (c - 1)) / c for negative x, x / c otherwise */
            lo = LLVMBuildSDiv(b, LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, lo, k64(a, 0), ""),
                                                  LLVMBuildSub(b, lo, LLVMBuildSub(b, kc, one, ""), ""), lo, ""), kc, "");
            hi = LLVMBuildSDiv(b, LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, hi, k64(a, 0), ""),
                                                  LLVMBuildSub(b, hi, LLVMBuildSub(b, kc, one, ""), ""), hi, ""), kc, "");
            return (ival){lo, hi, true, true};
        }
        return type_ival(a, t);
    case TINE_OP_SHR:
        if (tine_type_is_int(t) && t.bits <= 32 && const_int(e->ops[1], &c) && c >= 0 && c < t.bits && o[0].klo && o[0].khi)
            return (ival){LLVMBuildAShr(b, o[0].lo, k64(a, c), ""), LLVMBuildAShr(b, o[0].hi, k64(a, c), ""), true, true};
        return type_ival(a, t);
    case TINE_OP_SHL:
        if (tine_type_is_int(t) && t.bits <= 32 && const_int(e->ops[1], &c) && c >= 0 && c < t.bits && o[0].klo && o[0].khi) {
            LLVMValueRef ovf = LLVMConstInt(a->i1, 0, 0);
            ival r = {mul_ovf(a, o[0].lo, k64(a, (int64_t)1 << c), &ovf), mul_ovf(a, o[0].hi, k64(a, (int64_t)1 << c), &ovf),
                      true, true};
            return ovf_guard(a, t, wrap_guard(a, t, r), ovf);
        }
        return type_ival(a, t);
    case TINE_OP_AND:
        for (int i = 0; i < 2; i++)
            if (const_int(e->ops[i], &c) && c >= 0) return (ival){k64(a, 0), k64(a, c), true, true};
        return type_ival(a, t);
    case TINE_OP_MIN:
    case TINE_OP_MAX: {
        if (!tine_type_is_int(t) || t.bits > 32) return type_ival(a, t);
        bool mn = e->op == TINE_OP_MIN;
        ival r;
        /* min: the high end is known if either is; the low end needs both (max: mirrored) */
        bool kboth_lo = o[0].klo && o[1].klo, kboth_hi = o[0].khi && o[1].khi;
        if (mn) {
            r.klo = kboth_lo;
            r.lo = kboth_lo ? smin(a, o[0].lo, o[1].lo) : NULL;
            r.khi = o[0].khi || o[1].khi;
            r.hi = kboth_hi ? smin(a, o[0].hi, o[1].hi) : o[0].khi ? o[0].hi : o[1].hi;
        } else {
            r.khi = kboth_hi;
            r.hi = kboth_hi ? smax(a, o[0].hi, o[1].hi) : NULL;
            r.klo = o[0].klo || o[1].klo;
            r.lo = kboth_lo ? smax(a, o[0].lo, o[1].lo) : o[0].klo ? o[0].lo : o[1].lo;
        }
        ival tr = type_ival(a, t);
        if (!r.klo) r.lo = tr.lo, r.klo = tr.klo;
        if (!r.khi) r.hi = tr.hi, r.khi = tr.khi;
        return r;
    }
    case TINE_OP_SELECT:
        if (o[1].klo && o[1].khi && o[2].klo && o[2].khi)
            return (ival){smin(a, o[1].lo, o[2].lo), smax(a, o[1].hi, o[2].hi), true, true};
        return type_ival(a, t);
    case TINE_OP_CAST:
        if (tine_type_is_int(t) && t.bits <= 32 && tine_type_is_int(e->ops[0]->type) && e->ops[0]->type.bits <= 32)
            return wrap_guard(a, t, o[0]);
        return type_ival(a, t);
    default: return type_ival(a, t);
    }
}

/* The intervals of every node of root (a stage's one-lane DAG); loads widen the regions
 * of their buffers when `active` holds. */
static void aot_dag(aot *a, const tine_kernel_t *k, const tine_expr_t *root, LLVMValueRef active, ival *out) {
    uint32_t n;
    tine_expr_t **order = tine_topo(a->g->ctx, root, &n);
    ival *v = calloc(n, sizeof *v);
    TINE_ASSERT(v != NULL);
    LLVMBuilderRef b = a->g->b;
    for (uint32_t i = 0; i < n; i++) {
        const tine_expr_t *e = order[i];
        ival o[UINT8_MAX + 1]; /* nops is a uint8_t */
        for (int j = 0; j < e->nops; j++) o[j] = v[tine_topo_index(order, n, e->ops[j])];
        v[i] = aot_node(a, e, o);
        if (e->op != TINE_OP_LOAD) continue;
        const char *name = tine_expr_name(e);
        int buf = -1, dims = 0;
        for (int j = 0; j < tine_kernel_ninputs(k); j++) {
            int id;
            if (!strcmp(tine_kernel_input(k, j, NULL, &id), name)) buf = j, dims = id;
        }
        for (int s = 0; s < tine_kernel_nstages(k) - 1 && buf < 0; s++)
            if (!strcmp(tine_kernel_stage(k, s)->name, name)) buf = tine_kernel_ninputs(k) + s, dims = tine_kernel_stage(k, s)->dims;
        const tine_expr_t *x[4];
        if (buf < 0 || !tine_kernel_load_coords(tine_expr_operand(e, 0), dims, x)) {
            a->bad = name;
            continue;
        }
        for (int d = 0; d < dims; d++) {
            ival c = v[tine_topo_index(order, n, x[d])];
            if (!c.klo || !c.khi) {
                a->bad = name;
                break;
            }
            LLVMValueRef first = LLVMBuildNot(b, a->any[buf], "");
            a->lo[buf][d] = LLVMBuildSelect(b, LLVMBuildAnd(b, active, LLVMBuildOr(b, first, LLVMBuildICmp(b, LLVMIntSLT, c.lo, a->lo[buf][d], ""), ""), ""), c.lo, a->lo[buf][d], "");
            a->hi[buf][d] = LLVMBuildSelect(b, LLVMBuildAnd(b, active, LLVMBuildOr(b, first, LLVMBuildICmp(b, LLVMIntSGT, c.hi, a->hi[buf][d], ""), ""), ""), c.hi, a->hi[buf][d], "");
        }
        a->any[buf] = LLVMBuildOr(b, a->any[buf], active, "");
    }
    if (out) *out = v[n - 1];
    free(v);
    free(order);
}

/* The reads of stage st over its region ($.lo0.., $.hi0.. set): loops' variables over
 * their ranges, updates' loads counted only when their loop runs. */
static void aot_stage(aot *a, const tine_kernel_t *k, const tine_stage *st) {
    LLVMBuilderRef b = a->g->b;
    LLVMValueRef yes = LLVMConstInt(a->i1, 1, 0);
    aot_dag(a, k, st->body1, yes, NULL);
    LLVMValueRef *runs = malloc(sizeof *runs * (size_t)(st->reds1.n + 1));
    free(a->rvar);
    free(a->rval);
    a->rvar = malloc(sizeof *a->rvar * (size_t)(st->reds1.n + 1));
    a->rval = malloc(sizeof *a->rval * (size_t)(st->reds1.n + 1));
    TINE_ASSERT(runs && a->rvar && a->rval);
    a->nr = 0;
    for (int i = 0; i < st->reds1.n; i++) {
        const tine_reduction *R = &st->reds1.v[i];
        ival lo, hi;
        aot_dag(a, k, R->lo, yes, &lo);
        aot_dag(a, k, R->hi, yes, &hi);
        if (!lo.klo || !hi.khi) {
            a->bad = "a loop reduction's bounds";
            break;
        }
        LLVMValueRef r = LLVMBuildICmp(b, LLVMIntSGT, hi.hi, lo.lo, "");
        runs[i] = R->parent >= 0 ? LLVMBuildAnd(b, runs[R->parent], r, "") : r;
        a->rvar[a->nr] = R->r;
        a->rval[a->nr++] = (ival){lo.lo, LLVMBuildSub(b, hi.hi, k64(a, 1), ""), true, true};
        aot_dag(a, k, R->update, runs[i], NULL);
    }
    free(runs);
}

static LLVMValueRef field(aot *a, LLVMValueRef buf, int offset, bool is_int) {
    LLVMBuilderRef b = a->g->b;
    LLVMValueRef off = k64(a, offset);
    LLVMValueRef p = LLVMBuildGEP2(b, LLVMInt8TypeInContext(a->g->lc), buf, &off, 1, "");
    if (is_int) return LLVMBuildSExt(b, LLVMBuildLoad2(b, LLVMInt32TypeInContext(a->g->lc), p, ""), a->i64, "");
    return LLVMBuildLoad2(b, a->i64, p, "");
}

static LLVMValueRef aot_fail(aot *a, LLVMValueRef fn, LLVMValueRef cond, int code) {
    LLVMBuilderRef b = a->g->b;
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(a->g->lc, fn, "refuse"),
                      ok = LLVMAppendBasicBlockInContext(a->g->lc, fn, "ok");
    LLVMBuildCondBr(b, cond, bad, ok);
    LLVMPositionBuilderAtEnd(b, bad);
    LLVMBuildRet(b, LLVMConstInt(LLVMInt32TypeInContext(a->g->lc), (unsigned long long)(int64_t)code, 1));
    LLVMPositionBuilderAtEnd(b, ok);
    return NULL;
}

static LLVMValueRef icmp(aot *a, LLVMIntPredicate p, LLVMValueRef x, int64_t c) {
    return LLVMBuildICmp(a->g->b, p, x, k64(a, c), "");
}

/* The rules of tine_kernel_check_buffers for one caller's buffer p (a tine_buffer_t *:
 * data at 0, dims at 8, then int64 min[4] at 16, extent[4] at 48, stride[4] at 80),
 * refused with `code`; sets the table's values of its geometry (stride[0] is 1) and
 * returns the bytes it spans, *data its data. Values are compared before any arithmetic
 * uses them, and a refusal is sticky, so a wrapped sum of values already refused cannot
 * hide one. */
static LLVMValueRef aot_check_buffer(aot *a, LLVMValueRef fn, LLVMValueRef p, int dims, int esize, bool is_out, int code,
                                     int input, int stage, LLVMValueRef *data) {
    LLVMBuilderRef b = a->g->b;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(a->g->lc, 0);
    aot_fail(a, fn, LLVMBuildIsNull(b, p, ""), code);
    *data = LLVMBuildLoad2(b, ptr, p, "");
    aot_fail(a, fn, LLVMBuildIsNull(b, *data, ""), code);
    aot_fail(a, fn, icmp(a, LLVMIntNE, field(a, p, 8, true), dims), code);
    LLVMValueRef bad = LLVMConstInt(a->i1, 0, 0), last = k64(a, 0), mn[4], ex[4], sd[4];
#define BAD(c) bad = LLVMBuildOr(b, bad, (c), "")
    for (int d = 0; d < dims; d++) {
        mn[d] = field(a, p, 16 + 8 * d, false);
        ex[d] = field(a, p, 48 + 8 * d, false);
        sd[d] = d ? field(a, p, 80 + 8 * d, false) : k64(a, 1);
        BAD(icmp(a, LLVMIntSLT, ex[d], 1));
        BAD(icmp(a, LLVMIntSGT, ex[d], INT32_MAX));
        BAD(icmp(a, LLVMIntSLT, mn[d], INT32_MIN));
        BAD(icmp(a, LLVMIntSGT, mn[d], INT32_MAX));
        BAD(icmp(a, LLVMIntSGT, LLVMBuildSub(b, LLVMBuildAdd(b, mn[d], ex[d], ""), k64(a, 1), ""), INT32_MAX));
        if (d) {
            BAD(icmp(a, LLVMIntSLT, sd[d], 1));
            BAD(icmp(a, LLVMIntSGT, sd[d], INT32_MAX));
        }
    }
    for (int d = 0; d < dims; d++) {
        last = LLVMBuildAdd(b, last, LLVMBuildMul(b, LLVMBuildSub(b, ex[d], k64(a, 1), ""), sd[d], ""), "");
        BAD(icmp(a, LLVMIntSGT, last, INT32_MAX));
        BAD(icmp(a, LLVMIntSLT, last, 0));
    }
    for (int d = 1; d < dims && is_out; d++)
        BAD(LLVMBuildICmp(b, LLVMIntSLT, sd[d], LLVMBuildMul(b, sd[d - 1], ex[d - 1], ""), ""));
#undef BAD
    aot_fail(a, fn, bad, code);
    for (int d = 0; d < dims; d++) {
        *aot_geom(a, input, stage, TINE_KS_MIN, d) = mn[d];
        *aot_geom(a, input, stage, TINE_KS_EXTENT, d) = ex[d];
        *aot_geom(a, input, stage, TINE_KS_STRIDE, d) = sd[d];
    }
    return LLVMBuildMul(b, LLVMBuildAdd(b, last, k64(a, 1), ""), k64(a, esize), "");
}

static bool build_entry(tine_compiled_t *cc, LLVMModuleRef m, LLVMContextRef lc, const char *name) {
    tine_kernel_t *k = cc->k;
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    int nin = tine_kernel_ninputs(k), np = tine_kernel_nparams(k), ns = tine_kernel_nstages(k), nks;
    gen g = {.ctx = ctx, .lc = lc, .m = m};
    aot a = {.g = &g, .k = k, .i64 = LLVMInt64TypeInContext(lc), .i1 = LLVMInt1TypeInContext(lc)};
    a.ks = tine_kernel_scalars(k, &nks);
    a.sv = calloc((size_t)nks + 1, sizeof *a.sv);
    a.lo = calloc((size_t)(nin + ns), sizeof *a.lo);
    a.hi = calloc((size_t)(nin + ns), sizeof *a.hi);
    a.any = calloc((size_t)(nin + ns), sizeof *a.any);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(lc, 0), i32 = LLVMInt32TypeInContext(lc);
    LLVMTypeRef *pt = malloc(sizeof *pt * (size_t)(nin + np + 1));
    LLVMValueRef *data = calloc((size_t)ns, sizeof *data), *indata = calloc((size_t)nin + 1, sizeof *indata),
                 *inbytes = calloc((size_t)nin + 1, sizeof *inbytes), (*ext)[4] = calloc((size_t)ns, sizeof *ext),
                 (*mins)[4] = calloc((size_t)ns, sizeof *mins);
    TINE_ASSERT(a.sv && a.lo && a.hi && a.any && pt && data && indata && inbytes && ext && mins);
    for (int i = 0; i < nin; i++) pt[i] = ptr;
    for (int i = 0; i < np; i++) {
        tine_type_t t;
        tine_kernel_param(k, i, &t);
        pt[nin + i] = LLVMIntTypeInContext(lc, (unsigned)t.bits);
    }
    pt[nin + np] = ptr;
    LLVMValueRef fn = LLVMAddFunction(m, name, LLVMFunctionType(i32, pt, (unsigned)(nin + np + 1), 0));
    g.b = LLVMCreateBuilderInContext(lc);
    LLVMBuilderRef b = g.b;
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(lc, fn, "entry"));
    /* the buffers, by the rules, in tine_kernel_check_buffers' order */
    LLVMValueRef out = LLVMGetParam(fn, (unsigned)(nin + np)), odata;
    LLVMValueRef obytes = aot_check_buffer(&a, fn, out, tine_kernel_dims(k), tine_kernel_output_type(k).bits / 8, true, -2,
                                           -1, ns - 1, &odata);
    for (int i = 0; i < nin; i++) {
        int id;
        tine_type_t t;
        tine_kernel_input(k, i, &t, &id);
        inbytes[i] = aot_check_buffer(&a, fn, LLVMGetParam(fn, (unsigned)i), id, t.bits / 8, false, i + 1, i, -1, &indata[i]);
    }
    LLVMValueRef o = LLVMBuildPtrToInt(b, odata, a.i64, "");
    for (int i = 0; i < nin; i++) {
        LLVMValueRef p = LLVMBuildPtrToInt(b, indata[i], a.i64, "");
        LLVMValueRef overlap = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, o, LLVMBuildAdd(b, p, inbytes[i], ""), ""),
                                            LLVMBuildICmp(b, LLVMIntULT, p, LLVMBuildAdd(b, o, obytes, ""), ""), "");
        aot_fail(&a, fn, overlap, -3);
    }
    for (int i = 0; i < np; i++) {
        tine_type_t t;
        tine_kernel_param(k, i, &t);
        LLVMValueRef v = LLVMGetParam(fn, (unsigned)(nin + i));
        v = t.bits == 64 ? v : t.kind == TINE_INT ? LLVMBuildSExt(b, v, a.i64, "") : LLVMBuildZExt(b, v, a.i64, "");
        for (int j = 0; j < nks; j++)
            if (a.ks[j].what == TINE_KS_PARAM && a.ks[j].param == i) a.sv[j] = v;
    }
    LLVMValueRef no = LLVMConstInt(a.i1, 0, 0);
    for (int i = 0; i < nin + ns; i++) {
        a.any[i] = no;
        for (int d = 0; d < 4; d++) a.lo[i][d] = a.hi[i][d] = k64(&a, 0);
    }
    /* from the output back: each stage's region, then its reads */
    for (int s = ns - 1; s >= 0 && !a.bad; s--) {
        const tine_stage *st = tine_kernel_stage(k, s);
        memset(a.clo, 0, sizeof a.clo);
        memset(a.chi, 0, sizeof a.chi);
        for (int d = 0; d < st->dims; d++) {
            if (s == ns - 1) {
                mins[s][d] = *aot_geom(&a, -1, s, TINE_KS_MIN, d);
                ext[s][d] = *aot_geom(&a, -1, s, TINE_KS_EXTENT, d);
            } else {
                int bi = nin + s;
                mins[s][d] = a.lo[bi][d];
                ext[s][d] = LLVMBuildSelect(b, a.any[bi], LLVMBuildAdd(b, LLVMBuildSub(b, a.hi[bi][d], a.lo[bi][d], ""), k64(&a, 1), ""), k64(&a, 0), "");
                *aot_geom(&a, -1, s, TINE_KS_MIN, d) = mins[s][d];
                *aot_geom(&a, -1, s, TINE_KS_EXTENT, d) = ext[s][d];
                *aot_geom(&a, -1, s, TINE_KS_STRIDE, d) =
                    d == 0 ? k64(&a, 1) : LLVMBuildMul(b, *aot_geom(&a, -1, s, TINE_KS_STRIDE, d - 1), ext[s][d - 1], "");
            }
            a.clo[d] = mins[s][d];
            a.chi[d] = LLVMBuildSub(b, LLVMBuildAdd(b, mins[s][d], ext[s][d], ""), k64(&a, 1), "");
        }
        aot_stage(&a, k, st);
    }
    bool ok = !a.bad;
    if (!ok)
        tine_set_error(ctx, "an object file bounds every read at run time; the reads of '%s' cannot be bounded by "
                       "interval arithmetic (the JIT's run plan bounds them with the run's values)", a.bad);
    for (int i = 0; i < nin && ok; i++) {
        int id;
        tine_kernel_input(k, i, NULL, &id);
        LLVMValueRef bad = no;
        for (int d = 0; d < id; d++) {
            LLVMValueRef mn = *aot_geom(&a, i, -1, TINE_KS_MIN, d);
            LLVMValueRef mx = LLVMBuildSub(b, LLVMBuildAdd(b, mn, *aot_geom(&a, i, -1, TINE_KS_EXTENT, d), ""), k64(&a, 1), "");
            bad = LLVMBuildOr(b, bad, LLVMBuildICmp(b, LLVMIntSLT, a.lo[i][d], mn, ""), "");
            bad = LLVMBuildOr(b, bad, LLVMBuildICmp(b, LLVMIntSGT, a.hi[i][d], mx, ""), "");
        }
        aot_fail(&a, fn, LLVMBuildAnd(b, a.any[i], bad, ""), i + 1);
    }
    if (ok) {
        /* the scratch buffers within the JIT plan's limits (each extent <= 2^28, fewer
           than 2^31 elements; the running product is checked before the next factor) */
        LLVMValueRef big = no;
        for (int s = 0; s < ns - 1; s++) {
            const tine_stage *st = tine_kernel_stage(k, s);
            LLVMValueRef bad = no, total = k64(&a, 1);
            for (int d = 0; d < st->dims; d++) {
                bad = LLVMBuildOr(b, bad, icmp(&a, LLVMIntSLT, mins[s][d], INT32_MIN), "");
                bad = LLVMBuildOr(b, bad, icmp(&a, LLVMIntSGT, a.hi[nin + s][d], INT32_MAX), "");
                bad = LLVMBuildOr(b, bad, icmp(&a, LLVMIntSGT, ext[s][d], 1 << 28), "");
                bad = LLVMBuildOr(b, bad, icmp(&a, LLVMIntSLT, ext[s][d], 0), "");
                total = LLVMBuildMul(b, total, ext[s][d], "");
                bad = LLVMBuildOr(b, bad, icmp(&a, LLVMIntSGT, total, INT32_MAX), "");
            }
            big = LLVMBuildOr(b, big, LLVMBuildAnd(b, a.any[nin + s], bad, ""), "");
        }
        aot_fail(&a, fn, big, -1);
        /* scratch buffers, then the stages in order */
        LLVMTypeRef mty = LLVMFunctionType(ptr, &a.i64, 1, 0), fty = LLVMFunctionType(LLVMVoidTypeInContext(lc), &ptr, 1, 0);
        LLVMValueRef mal = LLVMAddFunction(m, "malloc", mty), fre = LLVMAddFunction(m, "free", fty);
        LLVMValueRef fail_alloc = no;
        for (int s = 0; s < ns - 1; s++) {
            const tine_stage *st = tine_kernel_stage(k, s);
            LLVMValueRef bytes = k64(&a, st->type.bits / 8);
            for (int d = 0; d < st->dims; d++) bytes = LLVMBuildMul(b, bytes, ext[s][d], "");
            LLVMValueRef used = a.any[nin + s];
            LLVMValueRef p = LLVMBuildCall2(b, mty, mal, &bytes, 1, "");
            /* malloc(0) may return NULL or not; an unread stage has no buffer */
            data[s] = LLVMBuildSelect(b, used, p, LLVMConstNull(ptr), "");
            fail_alloc = LLVMBuildOr(b, fail_alloc, LLVMBuildAnd(b, used, LLVMBuildIsNull(b, p, ""), ""), "");
            LLVMBasicBlockRef fr = LLVMAppendBasicBlockInContext(lc, fn, "unused"), go = LLVMAppendBasicBlockInContext(lc, fn, "next");
            LLVMBuildCondBr(b, used, go, fr);
            LLVMPositionBuilderAtEnd(b, fr);
            LLVMBuildCall2(b, fty, fre, &p, 1, "");
            LLVMBuildBr(b, go);
            LLVMPositionBuilderAtEnd(b, go);
        }
        LLVMBasicBlockRef oom = LLVMAppendBasicBlockInContext(lc, fn, "oom"), run = LLVMAppendBasicBlockInContext(lc, fn, "run");
        LLVMBuildCondBr(b, fail_alloc, oom, run);
        LLVMPositionBuilderAtEnd(b, oom);
        for (int s = 0; s < ns - 1; s++) LLVMBuildCall2(b, fty, fre, &data[s], 1, "");
        LLVMBuildRet(b, LLVMConstInt(i32, (unsigned long long)-1, 1));
        LLVMPositionBuilderAtEnd(b, run);
        data[ns - 1] = odata;
        for (int s = 0; s < ns; s++) {
            const compiled_stage *cs = &cc->st[s];
            int nargs = 1 + cs->nscalars + nin + s;
            LLVMValueRef args = LLVMBuildArrayAlloca(b, ptr, k64(&a, nargs), "");
            LLVMValueRef slots = LLVMBuildArrayAlloca(b, a.i64, k64(&a, cs->nscalars + 1), "");
            int n = 0;
            LLVMValueRef *vals = malloc(sizeof *vals * (size_t)nargs);
            TINE_ASSERT(vals != NULL);
            vals[n++] = data[s];
            for (int i = 0; i < cs->nscalars; i++) {
                LLVMValueRef v = a.sv[cs->scalars[i] - a.ks];
                TINE_ASSERT(v != NULL);
                LLVMValueRef idx = k64(&a, i);
                LLVMValueRef slot = LLVMBuildGEP2(b, a.i64, slots, &idx, 1, "");
                LLVMBuildStore(b, v, slot);
                vals[n++] = slot;
            }
            for (int i = 0; i < nin; i++) vals[n++] = indata[i];
            for (int p = 0; p < s; p++) vals[n++] = data[p];
            for (int i = 0; i < n; i++) {
                LLVMValueRef idx = k64(&a, i);
                LLVMBuildStore(b, vals[i], LLVMBuildGEP2(b, ptr, args, &idx, 1, ""));
            }
            free(vals);
            char fname[32];
            snprintf(fname, sizeof fname, "tine_stage%d", s);
            LLVMValueRef sf = LLVMGetNamedFunction(m, fname);
            LLVMValueRef call_args[1] = {args};
            if (s == ns - 1) LLVMBuildCall2(b, fty, sf, call_args, 1, "");
            else {
                LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(lc, fn, "stage"), next = LLVMAppendBasicBlockInContext(lc, fn, "after");
                LLVMBuildCondBr(b, a.any[nin + s], yes, next);
                LLVMPositionBuilderAtEnd(b, yes);
                LLVMBuildCall2(b, fty, sf, call_args, 1, "");
                LLVMBuildBr(b, next);
                LLVMPositionBuilderAtEnd(b, next);
            }
        }
        for (int s = 0; s < ns - 1; s++) LLVMBuildCall2(b, fty, fre, &data[s], 1, "");
        LLVMBuildRet(b, LLVMConstInt(i32, 0, 0));
    } else {
        LLVMBuildRet(b, LLVMConstInt(i32, 0, 0));
    }
    LLVMDisposeBuilder(b);
    free(a.sv);
    free(a.lo);
    free(a.hi);
    free(a.any);
    free(a.rvar);
    free(a.rval);
    free(pt);
    free(data);
    free(indata);
    free(inbytes);
    free(ext);
    free(mins);
    return ok;
}

/* The C header declaring the entry point. */
static char *aot_header(tine_kernel_t *k, const char *name, const char *target, tine_selection_t sel) {
    tine_buf b = {0};
    tine_buf_printf(&b, "/* %s.h: generated by tine for %s (%s selection). */\n", name, target,
                    sel == TINE_SELECT_TINE ? "tine" : "LLVM alone");
    tine_buf_printf(&b, "#ifndef TINE_KERNEL_%s_H\n#define TINE_KERNEL_%s_H\n#include <stdint.h>\n\n", name, name);
    tine_buf_puts(&b, "#ifndef TINE_BUFFER_T_DEFINED\n#define TINE_BUFFER_T_DEFINED 1\n"
                      "/* element (i0, i1, ...) at data[(i0 - min[0]) + (i1 - min[1]) * stride[1] + ...] (strides in\n"
                      " * elements; dimension 0 is dense) */\n"
                      "typedef struct {\n    void *data;\n    int dims;\n    int64_t min[4], extent[4], stride[4];\n"
                      "} tine_buffer_t;\n#endif\n\n");
    tine_buf_puts(&b, "/* Fills out. Every buffer must be non-NULL with non-NULL data and the kernel's number of\n"
                      " * dimensions; each extent >= 1; min, extent, min + extent - 1 and stride[d >= 1] (> 0) fit\n"
                      " * in int32_t (stride[0] is ignored: dimension 0 is dense); the largest index\n"
                      " * sum((extent[d] - 1) * stride[d]) fits in int32_t; out's dimensions nest (stride[d] >=\n"
                      " * extent[d-1] * stride[d-1]) and out does not overlap any input. Data needs no alignment.\n"
                      " * Returns 0 after filling out; -2 when out breaks a rule; k > 0 when input k (1-based, in\n"
                      " * this order) breaks one or does not cover the region the kernel reads; -3 when out\n"
                      " * overlaps an input; -1 when a scratch buffer would be too large or cannot be allocated.\n"
                      " * A refused call writes nothing. */\n");
    tine_buf_printf(&b, "int %s(", name);
    for (int i = 0; i < tine_kernel_ninputs(k); i++) {
        int id;
        tine_type_t t;
        const char *in = tine_kernel_input(k, i, &t, &id);
        char tn[32];
        tine_buf_printf(&b, "const tine_buffer_t *%s /* %s, %d-D */, ", in, tine_type_name(t, tn), id);
    }
    for (int i = 0; i < tine_kernel_nparams(k); i++) {
        tine_type_t t;
        const char *pn = tine_kernel_param(k, i, &t);
        if (t.kind == TINE_BOOL) tine_buf_printf(&b, "_Bool %s, ", pn); /* i1 in the object: bit 0, as C passes _Bool */
        else tine_buf_printf(&b, "%sint%d_t %s, ", t.kind == TINE_INT ? "" : "u", t.bits, pn);
    }
    tine_type_t ot = tine_kernel_output_type(k);
    char tn[32];
    tine_buf_printf(&b, "tine_buffer_t *%s /* %s, %d-D */);\n\n#endif\n", tine_kernel_output_name(k), tine_type_name(ot, tn),
                    tine_kernel_dims(k));
    return b.p;
}

void *tine_kernel_emit(tine_kernel_t *k, const char *target, tine_selection_t sel, const char *name, const char *what,
                       size_t *size) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    bool ident = name && (isalpha((unsigned char)name[0]) || name[0] == '_');
    for (const char *p = name; ident && *p; p++) ident = isalnum((unsigned char)*p) || *p == '_';
    if (!ident) {
        tine_set_error(ctx, "the kernel's name '%s' is not a C identifier", name ? name : "");
        return NULL;
    }
    /* the entry point is an external symbol beside libc's, and the header's function */
    static const char *const libc[] = {"malloc", "free", "memset", "memcpy", "memmove", "main"};
    const char *why = tine_c_name_clash(name);
    for (size_t i = 0; i < sizeof libc / sizeof *libc && !why; i++)
        if (!strcmp(name, libc[i])) why = "the object calls (or the program defines) a C library function of that name";
    if (why) {
        tine_set_error(ctx, "the kernel's name '%s' cannot be its C function's name: %s; choose another name", name, why);
        return NULL;
    }
    if (!strcmp(what, "h")) {
        char *h = aot_header(k, name, target, sel);
        *size = strlen(h);
        return h;
    }
    bool obj = !strcmp(what, "obj"), as = !strcmp(what, "asm"), ll = !strcmp(what, "llvm");
    if (!obj && !as && !ll) {
        tine_set_error(ctx, "unknown output kind '%s' (obj, asm, llvm, h)", what);
        return NULL;
    }
    char *triple = NULL;
    LLVMTargetMachineRef tm = target_machine(ctx, target, &triple);
    if (!tm) return NULL;
    tine_compiled_t c = {.k = k, .target = (char *)target, .nst = tine_kernel_nstages(k)};
    c.st = calloc((size_t)c.nst, sizeof *c.st);
    TINE_ASSERT(c.st != NULL);
    LLVMContextRef lc = LLVMContextCreate();
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, lc);
    int scope = tine_bounds_open(ctx, true); /* as in tine_kernel_compile: no run's facts */
    bool built = true;
    for (int s = 0; s < tine_kernel_nstages(k) && built; s++) built = build_stage(&c, m, lc, sel, s);
    tine_bounds_close(ctx, scope);
    void *result = NULL;
    if (built && build_entry(&c, m, lc, name)) {
        for (int s = 0; s < tine_kernel_nstages(k); s++) {
            char fname[32];
            snprintf(fname, sizeof fname, "tine_stage%d", s);
            LLVMSetLinkage(LLVMGetNamedFunction(m, fname), LLVMInternalLinkage);
        }
        if (verify_module(ctx, m)) result = module_output(ctx, m, tm, triple, ll ? OUT_LLVM : obj ? OUT_OBJ : OUT_ASM, size);
    }
    for (int s = 0; s < c.nst; s++) free(c.st[s].scalars);
    free(c.st);
    LLVMDisposeModule(m);
    LLVMContextDispose(lc);
    LLVMDisposeTargetMachine(tm);
    free(triple);
    return result;
}
