/* llvm.c — IR to LLVM IR through LLVM 19's C API: expressions as LLVM values (tine_cg_emit_dag),
 * one expression as a function (tine_emit_expr_as, tine_jit_expr); machine.c finishes the module.
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
#include "codegen.h"
#include "../targets/targets.h"


/* ---- emission --------------------------------------------------------------------- */

LLVMTypeRef tine_cg_elem_type(gen *g, tine_type_t t) {
    switch (t.kind) {
    case TINE_FLOAT: return t.bits == 32 ? LLVMFloatTypeInContext(g->lc) : LLVMDoubleTypeInContext(g->lc);
    case TINE_BOOL: return LLVMInt1TypeInContext(g->lc);
    default: return LLVMIntTypeInContext(g->lc, t.bits);
    }
}

static LLVMTypeRef vec_type(gen *g, tine_type_t t) { return LLVMVectorType(tine_cg_elem_type(g, t), t.lanes); }

static LLVMValueRef splat_int(gen *g, tine_type_t t, tine_u128 v) {
    LLVMTypeRef et = tine_cg_elem_type(g, t);
    uint64_t words[2] = {(uint64_t)v, (uint64_t)(v >> 64)};
    LLVMValueRef c = t.bits > 64 ? LLVMConstIntOfArbitraryPrecision(et, 2, words) : LLVMConstInt(et, words[0], 0);
    LLVMValueRef *lanes = tine_xmalloc(sizeof *lanes * t.lanes);
    for (int i = 0; i < t.lanes; i++) lanes[i] = c;
    LLVMValueRef r = LLVMConstVector(lanes, t.lanes);
    free(lanes);
    return r;
}

static LLVMValueRef const_of(gen *g, const tine_expr_t *e) {
    tine_type_t t = e->type;
    LLVMTypeRef et = tine_cg_elem_type(g, t);
    LLVMValueRef *lanes = tine_xmalloc(sizeof *lanes * t.lanes);
    for (int i = 0; i < t.lanes; i++) {
        tine_u128 v = tine_const_value(e, i);
        if (t.kind == TINE_FLOAT) { /* bit-exact: a float constant through its bits */
            LLVMTypeRef it = t.bits == 32 ? LLVMInt32TypeInContext(g->lc) : LLVMInt64TypeInContext(g->lc);
            lanes[i] = LLVMConstBitCast(LLVMConstInt(it, (uint64_t)v, 0), et);
        } else {
            uint64_t words[2] = {(uint64_t)v, (uint64_t)(v >> 64)};
            lanes[i] = t.bits > 64 ? LLVMConstIntOfArbitraryPrecision(et, 2, words) : LLVMConstInt(et, words[0], 0);
        }
    }
    LLVMValueRef r = LLVMConstVector(lanes, t.lanes);
    free(lanes);
    return r;
}

LLVMValueRef tine_cg_intrinsic(gen *g, const char *name, LLVMTypeRef *types, int ntypes, LLVMValueRef *args,
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
    return tine_cg_intrinsic(g, n, &ty, 1, args, 2);
}

/* x << s or x >> s with tine's semantics: a negative (signed) count shifts the other way
 * by its magnitude; counts of the width or more give 0, or the sign for an arithmetic
 * right shift. */
static LLVMValueRef shuffle(gen *g, LLVMValueRef a, LLVMValueRef b, const int *idx, int n);

/* Whether the call v is an intrinsic that works lane by lane (min, max, saturating add and
 * subtract, abs): its result is uniform when its operands are. */
static bool lanewise_intrinsic(LLVMValueRef v) {
    static const char *const names[] = {"llvm.umin.", "llvm.umax.", "llvm.smin.", "llvm.smax.",
                                        "llvm.uadd.sat.", "llvm.usub.sat.", "llvm.sadd.sat.",
                                        "llvm.ssub.sat.", "llvm.abs."};
    LLVMValueRef f = LLVMGetCalledValue(v);
    if (!f || !LLVMIsAFunction(f)) return false;
    size_t len = 0;
    const char *name = LLVMGetValueName2(f, &len);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (len > strlen(names[i]) && strncmp(name, names[i], strlen(names[i])) == 0) return true;
    return false;
}

/* Whether every lane of the vector v is the same value: a splat (a shufflevector with an
 * all-zero mask, as TINE_OP_BROADCAST emits), a constant with equal lanes, or arithmetic,
 * casts and selects of such (a parameter's expression hoisted out of the loop). */
static bool is_uniform(LLVMValueRef v, int depth) {
    if (LLVMIsAShuffleVectorInst(v)) {
        unsigned n = LLVMGetNumMaskElements(v);
        for (unsigned i = 0; i < n; i++)
            if (LLVMGetMaskValue(v, i) != 0) return false;
        return true;
    }
    if (LLVMIsAConstantDataVector(v) || LLVMIsAConstantVector(v)) {
        unsigned n = LLVMGetVectorSize(LLVMTypeOf(v));
        LLVMValueRef e0 = LLVMGetAggregateElement(v, 0);
        for (unsigned i = 1; i < n; i++)
            if (LLVMGetAggregateElement(v, i) != e0) return false;
        return e0 != NULL;
    }
    if (LLVMIsAConstantAggregateZero(v)) return true;
    /* a scalar operand (a select's condition, abs's flag) is one value for every lane */
    if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind) return true;
    if (depth <= 0 || !LLVMIsAInstruction(v)) return false;
    int n = LLVMGetNumOperands(v);
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd:
    case LLVMOr: case LLVMXor: case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMSelect: case LLVMICmp:
        break;
    case LLVMCall: /* lane-wise intrinsics (min(beta_shift, 15) is umin); the callee is last */
        if (!lanewise_intrinsic(v)) return false;
        n--;
        break;
    default: return false;
    }
    for (int i = 0; i < n; i++)
        if (!is_uniform(LLVMGetOperand(v, i), depth - 1)) return false;
    return true;
}

/* x << s or x >> s with tine's rules for counts (docs/SEMANTICS.md): a negative signed
 * count shifts the other way, a count past the width gives 0 (or the sign for >>). A
 * count that is the same in every lane (a parameter's) is decided once on the scalar and
 * the vector shifted by one splat count: one psllw/psraw per vector instead of per-lane
 * selects (softmax's fraction shift by 15 - beta_shift). */
static LLVMValueRef shift(gen *g, tine_type_t t, tine_type_t ts, bool left, LLVMValueRef x, LLVMValueRef s) {
    LLVMBuilderRef b = g->b;
    bool uni = t.lanes > 1 && t.bits <= 64 && is_uniform(s, 8);
    if (uni) s = LLVMBuildExtractElement(b, s, LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0), "");
    LLVMTypeRef st = LLVMTypeOf(s);
    LLVMValueRef zero = uni ? LLVMConstInt(st, 0, 0) : splat_int(g, t, 0),
                 width = uni ? LLVMConstInt(st, (unsigned long long)t.bits, 0) : splat_int(g, t, (tine_u128)t.bits),
                 wm1 = uni ? LLVMConstInt(st, (unsigned long long)(t.bits - 1), 0) : splat_int(g, t, (tine_u128)(t.bits - 1));
    LLVMValueRef mag = s, neg = NULL;
    if (ts.kind == TINE_INT) {
        neg = LLVMBuildICmp(b, LLVMIntSLT, s, zero, "");
        mag = LLVMBuildSelect(b, neg, LLVMBuildSub(b, zero, s, ""), s, "");
    }
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, mag, width, "");
    LLVMValueRef clamped = LLVMBuildSelect(b, big, wm1, mag, ""), count = clamped, vzero = zero;
    if (uni) { /* a select on a scalar condition picks whole vectors */
        LLVMValueRef one = LLVMBuildInsertElement(b, LLVMGetPoison(LLVMVectorType(st, 1)), clamped,
                                                  LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0), "");
        int *idx = tine_xcalloc((size_t)t.lanes, sizeof *idx);
        count = shuffle(g, one, NULL, idx, t.lanes);
        free(idx);
        vzero = splat_int(g, t, 0);
    }
    LLVMValueRef l = LLVMBuildSelect(b, big, vzero, LLVMBuildShl(b, x, count, ""), "");
    /* LLVM 19's x86 backend (AVX2 and up) aborts with "Do not know how to scalarize the
     * result of this operator" on ashr <1 x i128> by umin(s, 127), the form InstCombine
     * makes of ashr by select(big, 127, s); for 128 bits the arithmetic shift takes the
     * same count as select(big, 127, s & 127), which stays out of that fold. */
    LLVMValueRef sra_count = count;
    if (t.bits > 64) sra_count = LLVMBuildSelect(b, big, wm1, LLVMBuildAnd(b, mag, wm1, ""), "");
    LLVMValueRef r = t.kind == TINE_INT ? LLVMBuildAShr(b, x, sra_count, "")
                                        : LLVMBuildSelect(b, big, vzero, LLVMBuildLShr(b, x, count, ""), "");
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
        return tine_cg_intrinsic(g, to.kind == TINE_INT ? "llvm.fptosi.sat" : "llvm.fptoui.sat", types, 2, &v, 1);
    }
    if (to.kind == TINE_FLOAT) return from.kind == TINE_INT ? LLVMBuildSIToFP(b, v, tt, "") : LLVMBuildUIToFP(b, v, tt, "");
    if (to.bits < from.bits) return LLVMBuildTrunc(b, v, tt, "");
    if (to.bits > from.bits) return from.kind == TINE_INT ? LLVMBuildSExt(b, v, tt, "") : LLVMBuildZExt(b, v, tt, "");
    return v;
}

static LLVMValueRef shuffle(gen *g, LLVMValueRef a, LLVMValueRef b, const int *idx, int n) {
    LLVMValueRef *m = tine_xmalloc(sizeof *m * (size_t)n);
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
        int *idx = tine_xmalloc(sizeof *idx * (size_t)(total > 2 * wide ? total : 2 * wide));
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
    LLVMValueRef *val = tine_xcalloc(n, sizeof *val);
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
        case TINE_OP_SATURATING_ADD: return tine_cg_intrinsic(g, s ? "llvm.sadd.sat" : "llvm.uadd.sat", &ty, 1, ov, 2);
        case TINE_OP_SATURATING_SUB: return tine_cg_intrinsic(g, s ? "llvm.ssub.sat" : "llvm.usub.sat", &ty, 1, ov, 2);
        case TINE_OP_ABS:
            if (e->ops[0]->type.kind == TINE_INT) {
                LLVMValueRef args[2] = {ov[0], LLVMConstInt(LLVMInt1TypeInContext(g->lc), 0, 0)};
                return tine_cg_intrinsic(g, "llvm.abs", &ty, 1, args, 2);
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

/* Whether nodes hold an instruction the emitter cannot select: a fixed (imported) entry
 * without an `llvm` line, which only the interpreter and the checks evaluate; sets the
 * error. */
bool tine_cg_unselectable(tine_ctx_t *ctx, tine_expr_t *const *order, uint32_t n) {
    for (uint32_t k = 0; k < n; k++) {
        if (order[k]->op != TINE_OP_INSN) continue;
        const tine_insn *in = tine_insn_info(ctx, order[k]->imm, NULL);
        if (in->fixed && !in->has_llvm) {
            tine_set_error(ctx, "instruction '%s' has no llvm line (an imported entry): it is evaluated, not compiled",
                           in->name);
            return true;
        }
    }
    return false;
}

/* Lanes [first, first + n) of v (of `lanes` lanes); lanes past the end are zero. */
static LLVMValueRef lanes_of(gen *g, LLVMValueRef v, int lanes, int first, int n) {
    if (first == 0 && n == lanes) return v;
    int *idx = tine_xmalloc(sizeof *idx * (size_t)n);
    for (int i = 0; i < n; i++) idx[i] = first + i < lanes ? first + i : lanes; /* lane `lanes`: of the zeros */
    LLVMValueRef r = shuffle(g, v, LLVMConstNull(LLVMTypeOf(v)), idx, n);
    free(idx);
    return r;
}

/* Per-register results joined into one vector as a balanced tree of concatenations, so
 * that every vector built on the way has a power-of-two number of lanes: a chain that grows
 * a register at a time builds <12 x i16> and <20 x i16>, which the AArch64 backend
 * legalizes through the stack (a store per lane). Consumes parts; n registers of rl lanes. */
static LLVMValueRef join_registers(gen *g, LLVMValueRef *parts, int n, int rl) {
    int w = 1;
    while (w < n) w *= 2;
    for (int r = n; r < w; r++) parts[r] = LLVMGetPoison(LLVMTypeOf(parts[0])); /* padding, cut off after */
    int *idx = tine_xmalloc(sizeof *idx * (size_t)(w * rl));
    for (int i = 0; i < w * rl; i++) idx[i] = i;
    for (int lanes = rl; w > 1; w /= 2, lanes *= 2)
        for (int r = 0; r < w / 2; r++) parts[r] = shuffle(g, parts[2 * r], parts[2 * r + 1], idx, 2 * lanes);
    free(idx);
    return parts[0];
}

/* An instruction as its semantics, for LLVM to select. Semantics that use another
 * instruction (srsra: acc + srshr(a, n)) get the node's constant operands in place of
 * their placeholders first, so the inner instruction sees its immediate as a constant and
 * is emitted as its intrinsic (srshl by -n, which LLVM folds with the add into srsra)
 * rather than as its own semantics. */
static LLVMValueRef emit_semantics(gen *g, const tine_expr_t *e, LLVMValueRef *ov) {
    const tine_expr_t *const *ph;
    const tine_expr_t *tmpl = tine_insn_template(g->ctx, e, &ph, false);
    uint32_t n;
    tine_expr_t **order = tine_topo(g->ctx, tmpl, &n);
    bool nested = false;
    for (uint32_t k = 0; k < n && !nested; k++) nested = order[k]->op == TINE_OP_INSN;
    free(order);
    if (nested) {
        tine_expr_t *to[TINE_INSN_MAX_OPS];
        for (int i = 0; i < e->nops; i++)
            to[i] = e->ops[i]->op == TINE_OP_CONST ? e->ops[i] : (tine_expr_t *)ph[i];
        tmpl = tine_substitute(g->ctx, tmpl, ph, to, e->nops);
    }
    return emit_template(g, tmpl, ph, e->nops, ov);
}

/* The value that an operand's pieces are cut from when they are half registers (smull
 * reads the low halves, smull2 the high ones in place), frozen so that LLVM does not
 * derive the halves anew from the value's definition (freeze is the value itself, no
 * instruction): a shuffle taking the low half of a deinterleaving shuffle of loads is to
 * LLVM's interleaved-load combine a group of its own, loaded again (an ld2 of 4 lanes
 * beside the ld2 of 8, two more vector registers). A broadcast is left as it is: its
 * halves are itself to LLVM (smull2 by element), and its load may fold into an ld1r.
 * (Broadcasts were rebuilt from a frozen scalar while matmul's tile took its A operands
 * as smull by broadcasts, whose ld1r LLVM hoisted to the loop's top, 12 registers live
 * across the products; its pairs now meet UMULL as bytes, and conv_nn's ld1r is back.) */
static LLVMValueRef halves_source(gen *g, LLVMValueRef v) {
    if (LLVMIsConstant(v) || is_uniform(v, 4)) return v;
    return LLVMBuildFreeze(g->b, v, "");
}

/* An instruction whose form names its LLVM intrinsic with the types spelt out
 * (llvm.aarch64.neon.smull.v8i16): called once per register of the form, on pieces whose
 * lanes are the description's ratios (smull: 8 i8 lanes in, 8 i16 out; xtn: 8 i16 in, 8 i8
 * out), declared with exactly those types. An immediate operand must be a constant, one
 * value in every lane, and is passed as i32; where it is not, the semantics go to LLVM. */
static LLVMValueRef emit_insn_typed(gen *g, const tine_expr_t *e, const tine_insn *in, const tine_insn_form *fm,
                                    LLVMValueRef *ov) {
    tine_type_t t = e->type;
    /* An across-register sum whose intrinsic returns a scalar wider than the result
     * (llvm.aarch64.neon.saddlv.i32.v16i8 for SADDLV to a halfword): one result lane per
     * register, the call's scalar cut to it. */
    size_t base_len;
    LLVMIntrinsicGetName(LLVMLookupIntrinsicID(fm->llvm, strlen(fm->llvm)), &base_len);
    const char *suffix = fm->llvm + base_len + 1;
    int sbits = suffix[0] == 'i' ? atoi(suffix + 1) : 0;
    int W = fm->bits, rl = sbits ? 1 : W / t.bits, nreg = (t.lanes + rl - 1) / rl, ol[TINE_INSN_MAX_OPS];
    bool ok = tine_insn_operand_lanes(in, rl, ol);
    const tine_expr_t *imm = in->imm >= 0 ? e->ops[in->imm] : NULL;
    if (!ok || (imm && !(imm->op == TINE_OP_CONST && (imm->flags & TINE_F_UNIFORM))))
        return emit_semantics(g, e, ov);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(g->lc), params[TINE_INSN_MAX_OPS];
    for (int j = 0; j < e->nops; j++)
        params[j] = j == in->imm ? i32 : LLVMVectorType(tine_cg_elem_type(g, e->ops[j]->type), (unsigned)ol[j]);
    LLVMTypeRef rt = LLVMVectorType(tine_cg_elem_type(g, t), (unsigned)rl);
    LLVMValueRef immv = NULL;
    if (imm) {
        long long v = tine_const_value(imm, 0);
        if (in->imm_neg) v = -v;
        immv = LLVMConstInt(i32, (unsigned long long)(uint32_t)v, 0);
        /* An intrinsic overloaded on its result alone (one type suffix) may take the count
         * as a vector (sqshlu, srshl for srshr): then it gets the count in every lane. */
        size_t len = strlen(fm->llvm), base;
        unsigned id = LLVMLookupIntrinsicID(fm->llvm, len);
        LLVMIntrinsicGetName(id, &base);
        if (!strchr(fm->llvm + base + 1, '.')) {
            LLVMTypeRef it = LLVMIntrinsicGetType(g->lc, id, &rt, 1);
            TINE_ASSERT(LLVMCountParamTypes(it) == (unsigned)e->nops);
            LLVMTypeRef ip[TINE_INSN_MAX_OPS];
            LLVMGetParamTypes(it, ip);
            if (LLVMGetTypeKind(ip[in->imm]) == LLVMVectorTypeKind) {
                params[in->imm] = ip[in->imm];
                tine_type_t ct = e->ops[in->imm]->type;
                ct.lanes = (int)LLVMGetVectorSize(ip[in->imm]);
                immv = splat_int(g, ct, (tine_u128)(int64_t)v);
            }
        }
    }
    /* A pack entry (the pairwise addp, uminp) reads its one operand as two registers, each
     * half a register's share of it; at most 128 bits wide, its result is in lane order. */
    int nargs = e->nops;
    if (in->pack) {
        TINE_ASSERT(e->nops == 1 && W <= 128);
        params[0] = params[1] = LLVMVectorType(tine_cg_elem_type(g, e->ops[0]->type), (unsigned)ol[0] / 2);
        nargs = 2;
    }
    LLVMTypeRef ct = sbits ? LLVMIntTypeInContext(g->lc, (unsigned)sbits) : rt;
    LLVMTypeRef fty = LLVMFunctionType(ct, params, (unsigned)nargs, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(g->m, fm->llvm);
    if (!fn) fn = LLVMAddFunction(g->m, fm->llvm, fty);
    LLVMValueRef src[TINE_INSN_MAX_OPS]; /* what each operand's pieces are cut from */
    for (int j = 0; j < e->nops; j++)
        src[j] = j != in->imm && nreg > 1 && ol[j] * e->ops[j]->type.bits < 128 ? halves_source(g, ov[j])
                                                                                : ov[j];
    LLVMValueRef *parts = tine_xmalloc(sizeof *parts * (size_t)(2 * nreg));
    for (int r = 0; r < nreg; r++) {
        LLVMValueRef args[TINE_INSN_MAX_OPS];
        for (int j = 0; j < e->nops; j++)
            args[j] = j == in->imm ? immv : lanes_of(g, src[j], e->ops[j]->type.lanes, r * ol[j], ol[j]);
        if (in->pack)
            for (int k = 0; k < 2; k++) args[k] = lanes_of(g, ov[0], e->ops[0]->type.lanes, r * ol[0] + k * ol[0] / 2, ol[0] / 2);
        LLVMValueRef v = LLVMBuildCall2(g->b, fty, fn, args, (unsigned)nargs, "");
        if (sbits) {
            if (sbits > t.bits) v = LLVMBuildTrunc(g->b, v, tine_cg_elem_type(g, t), "");
            v = LLVMBuildInsertElement(g->b, LLVMGetUndef(rt), v, LLVMConstInt(i32, 0, 0), "");
        }
        parts[r] = v;
    }
    LLVMValueRef acc = join_registers(g, parts, nreg, rl);
    free(parts);
    return lanes_of(g, acc, nreg * rl, 0, t.lanes);
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
    /* a fixed (imported) entry's features are another description's: its semantics, for
       LLVM to select (those without an llvm line are refused before, tine_cg_unselectable) */
    int f = in->fixed ? -1 : tine_insn_pick_form(in, g->features, bits);
    if (f < 0 || in->generic) /* not on this target: what it means, for LLVM to select */
        return emit_semantics(g, e, ov);
    const tine_insn_form *fm = &in->form[f];
    int W = fm->bits, nreg = (bits + W - 1) / W, rl = W / t.bits; /* result lanes per register */
    unsigned id = LLVMLookupIntrinsicID(fm->llvm, strlen(fm->llvm));
    TINE_ASSERT(id != 0);
    size_t base_len;
    LLVMIntrinsicGetName(id, &base_len);
    if (strlen(fm->llvm) > base_len) return emit_insn_typed(g, e, in, fm, ov);
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
    LLVMTypeRef rt = LLVMVectorType(tine_cg_elem_type(g, t), (unsigned)rl);
    LLVMTypeRef fty = LLVMIntrinsicGetType(g->lc, id, NULL, 0);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(g->m, id, NULL, 0);
    LLVMTypeRef params[8];
    unsigned np = LLVMCountParamTypes(fty);
    TINE_ASSERT(np <= 8);
    LLVMGetParamTypes(fty, params);
    LLVMValueRef *parts = tine_xmalloc(sizeof *parts * (size_t)(2 * nreg)); /* room for join_registers' padding */
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
            int blk = 128 / t.bits, half = blk / 2, *idx = tine_xmalloc(sizeof *idx * (size_t)rl);
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
    LLVMValueRef acc = join_registers(g, parts, nreg, rl);
    free(parts);
    return lanes_of(g, acc, nreg * rl, 0, t.lanes);
}

/* The pointer argument of a variable, or of a load's buffer (loads of one buffer share
 * it: they are found by the buffer's name). */
static LLVMValueRef load_arg(gen *g, const tine_expr_t *e) {
    if (g->lk) {
        for (int i = g->nl - 1; i >= 0; i--) /* the newest binding: inner ones shadow outer ones */
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

/* ---- access indices ---------------------------------------------------------------- */

/* Why indices are computed in i64: an access's i32 index, sign-extended for the address,
 * hides the loop's induction variable behind the extension (LLVM cannot move a sext
 * through an add that may wrap), so every load of a loop got an i32 induction variable of
 * its own and a movslq. Instead the index's spine (adds, subs and muls of leaves: loop
 * variables, lets, geometry, constants, through ramps and broadcasts to lane 0) is
 * computed in i64 from the loop's own i64 counter, and lets that are such sums are
 * substituted. The i64 value is exact and congruent to the wrapped i32 value mod 2^32,
 * so the two are equal whenever the exact value is an i32 — which it is for every access
 * the plan admits: the index is sum over d of (x_d - min_d) * stride_d, each term in
 * [0, the buffer's largest index] and the sum at most that index, an int32_t by tine.h's
 * rules and the plan's scratch limits (regions are checked without wrap, so the
 * coordinates are exact); the simplifier's rewrites of adds, subs and muls are identities
 * of integers. No wrap flags are set, so nothing here can make a value poison. */

enum { SPINE_DEPTH = 24 }; /* deeper sums keep their i32 value */

/* Binding of var e visible below binding `limit` (the newest first), or -1. */
static int binding_of(const gen *g, const tine_expr_t *e, int limit) {
    for (int i = limit - 1; i >= 0; i--)
        if (g->lk[i] == e) return i;
    return -1;
}

/* Whether e is a spine: adds, subs, muls, ramps and broadcasts of variables and constants,
 * all i32. */
static bool is_spine(const tine_expr_t *e, int depth) {
    if (depth > SPINE_DEPTH || e->type.kind != TINE_INT || e->type.bits != 32) return false;
    switch ((tine_op_t)e->op) {
    case TINE_OP_VAR:
    case TINE_OP_CONST: return true;
    case TINE_OP_RAMP:
    case TINE_OP_BROADCAST: return is_spine(e->ops[0], depth + 1);
    case TINE_OP_ADD:
    case TINE_OP_SUB:
    case TINE_OP_MUL: return is_spine(e->ops[0], depth + 1) && is_spine(e->ops[1], depth + 1);
    default: return false;
    }
}

/* Lane 0 of spine e in i64, its variables bound below binding `limit`. */
static LLVMValueRef spine_i64(gen *g, const tine_expr_t *e, int limit, int depth) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(g->lc);
    LLVMValueRef zero = LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0);
    switch ((tine_op_t)e->op) {
    case TINE_OP_CONST: return LLVMConstInt(i64, (unsigned long long)(int64_t)(int32_t)(uint32_t)tine_const_value(e, 0), 1);
    case TINE_OP_VAR: {
        int i = binding_of(g, e, limit);
        TINE_ASSERT(i >= 0);
        if (g->lw[i]) return g->lw[i];
        if (g->ld[i] && is_spine(g->ld[i], depth + 1)) return spine_i64(g, g->ld[i], i, depth + 1);
        return LLVMBuildSExt(g->b, LLVMBuildExtractElement(g->b, g->lv[i], zero, ""), i64, "");
    }
    case TINE_OP_RAMP:
    case TINE_OP_BROADCAST: return spine_i64(g, e->ops[0], limit, depth + 1);
    default: break;
    }
    LLVMValueRef a = spine_i64(g, e->ops[0], limit, depth + 1), b = spine_i64(g, e->ops[1], limit, depth + 1);
    if (e->op == TINE_OP_ADD) return LLVMBuildAdd(g->b, a, b, "");
    if (e->op == TINE_OP_SUB) return LLVMBuildSub(g->b, a, b, "");
    return LLVMBuildMul(g->b, a, b, "");
}

LLVMValueRef tine_cg_index_i64(gen *g, const tine_expr_t *e, LLVMValueRef v) {
    if (g->lk && g->lw && is_spine(e, 0)) return spine_i64(g, e, g->nl, 0);
    return LLVMBuildExtractElement(g->b, v, LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0), "");
}

/* Whether lane i of an i32 index vector is lane 0's value plus i * stride, for a constant
 * stride: ramps with constant strides, broadcasts (stride 0), and sums, differences and
 * constant multiples of those. Exact under wrapping, as tine's i32 arithmetic is. */
bool tine_cg_lane_stride(const tine_expr_t *e, int64_t *stride) {
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
        if (!tine_cg_lane_stride(e->ops[0], &a) || !tine_cg_lane_stride(e->ops[1], &c)) return false;
        *stride = e->op == TINE_OP_ADD ? a + c : a - c;
        return true;
    case TINE_OP_MUL:
        for (int i = 0; i < 2; i++) {
            const tine_expr_t *k = e->ops[i];
            if (k->op == TINE_OP_CONST && (k->flags & TINE_F_UNIFORM) && tine_cg_lane_stride(e->ops[1 - i], &a)) {
                *stride = a * (int64_t)(tine_i128)tine_const_value(k, 0);
                return true;
            }
            /* a broadcast factor keeps a stride of 0 */
            if (k->op == TINE_OP_BROADCAST && tine_cg_lane_stride(e->ops[1 - i], &a) && a == 0) {
                *stride = 0;
                return true;
            }
        }
        return false;
    default: return false;
    }
}

/* Whether lane i of an i32 index vector is lane 0's value plus off[i], constants: ramps
 * with constant strides, broadcasts, constant vectors (the lane patterns of halved
 * coordinates, residue.c), and sums, differences and constant multiples of those. The
 * offsets are i32 differences (exact under wrapping); for the index of a load whose
 * lanes are all in its buffer they are the true distances. */
bool tine_cg_lane_offsets(const tine_expr_t *e, int32_t *off) {
    int L = e->type.lanes;
    switch ((tine_op_t)e->op) {
    case TINE_OP_BROADCAST:
        for (int i = 0; i < L; i++) off[i] = 0;
        return true;
    case TINE_OP_CONST: {
        uint32_t v0 = (uint32_t)tine_const_value(e, 0);
        for (int i = 0; i < L; i++)
            off[i] = (e->flags & TINE_F_UNIFORM) ? 0 : (int32_t)((uint32_t)tine_const_value(e, i) - v0);
        return true;
    }
    case TINE_OP_RAMP: {
        if (e->ops[1]->op != TINE_OP_CONST) return false;
        uint32_t s = (uint32_t)tine_const_value(e->ops[1], 0);
        for (int i = 0; i < L; i++) off[i] = (int32_t)(s * (uint32_t)i);
        return true;
    }
    case TINE_OP_ADD:
    case TINE_OP_SUB: {
        int32_t b[TINE_MAX_LANES];
        if (!tine_cg_lane_offsets(e->ops[0], off) || !tine_cg_lane_offsets(e->ops[1], b)) return false;
        for (int i = 0; i < L; i++)
            off[i] = (int32_t)(e->op == TINE_OP_ADD ? (uint32_t)off[i] + (uint32_t)b[i] : (uint32_t)off[i] - (uint32_t)b[i]);
        return true;
    }
    case TINE_OP_MUL:
        for (int k = 0; k < 2; k++) {
            const tine_expr_t *c = e->ops[k];
            if (c->op == TINE_OP_CONST && (c->flags & TINE_F_UNIFORM) && tine_cg_lane_offsets(e->ops[1 - k], off)) {
                uint32_t m = (uint32_t)tine_const_value(c, 0);
                for (int i = 0; i < L; i++) off[i] = (int32_t)((uint32_t)off[i] * m);
                return true;
            }
            /* a broadcast factor keeps offsets of 0 */
            if (c->op == TINE_OP_BROADCAST && tine_cg_lane_offsets(e->ops[1 - k], off)) {
                bool zero = true;
                for (int i = 0; i < L; i++) zero &= off[i] == 0;
                if (zero) return true;
            }
        }
        return false;
    default: return false;
    }
}

/* Whether e is one value in every lane: a broadcast, a uniform constant, a load at one
 * index, or an integer cast of one of those (conv_nn's i16(in(ci)) pairs). */
static bool is_splat(const tine_expr_t *o) {
    int64_t s;
    if (o->op == TINE_OP_CAST && o->type.kind != TINE_BOOL && o->type.kind != TINE_FLOAT &&
        o->ops[0]->type.kind != TINE_BOOL && o->ops[0]->type.kind != TINE_FLOAT)
        return is_splat(o->ops[0]);
    return o->type.lanes == 1 || (tine_cg_lane_stride(o, &s) && s == 0) ||
           (o->op == TINE_OP_LOAD && tine_cg_lane_stride(o->ops[0], &s) && s == 0);
}

/* Whether e interleaves values each of which is one value in every lane, into elements of
 * at most 64 bits together. */
static bool interleaves_splats(const tine_expr_t *e) {
    if (e->type.kind == TINE_BOOL || e->nops * e->type.bits > 64) return false;
    for (int k = 0; k < e->nops; k++)
        if (!is_splat(e->ops[k])) return false;
    return true;
}

/* Such an interleave is one n-element group repeated: the group as one wide integer,
 * broadcast, which x86 does with one vpbroadcastd/q (as the shuffle of splats it is,
 * LLVM 19 builds it from scalar inserts: interleave(x(m), 0) for pmaddwd cost vmovd, three
 * vpinsrw and a vinserti128 per coefficient in camera_pipe). */
static LLVMValueRef splat_interleave(gen *g, const tine_expr_t *e, LLVMValueRef *ov) {
    LLVMBuilderRef b = g->b;
    int n = e->nops;
    LLVMValueRef zero = LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0);
    LLVMValueRef group = LLVMGetPoison(LLVMVectorType(tine_cg_elem_type(g, e->type), (unsigned)n));
    for (int k = 0; k < n; k++) {
        LLVMValueRef x = LLVMBuildExtractElement(b, ov[k], zero, "");
        group = LLVMBuildInsertElement(b, group, x, LLVMConstInt(LLVMInt32TypeInContext(g->lc), (unsigned long long)k, 0), "");
    }
    LLVMTypeRef wt = LLVMIntTypeInContext(g->lc, (unsigned)(n * e->type.bits));
    LLVMValueRef one = LLVMBuildInsertElement(b, LLVMGetPoison(LLVMVectorType(wt, 1)), LLVMBuildBitCast(b, group, wt, ""), zero, "");
    int *idx = tine_xcalloc((size_t)(e->type.lanes / n), sizeof *idx);
    LLVMValueRef r = shuffle(g, one, NULL, idx, e->type.lanes / n);
    free(idx);
    return LLVMBuildBitCast(b, r, vec_type(g, e->type), "");
}

/* A cast of such an interleave is the same group cast: each element cast as a scalar and
 * packed into one wide integer, broadcast. In general registers that is a shift and an
 * or; cast as a vector it costs a narrow of the broadcast register (matmul's A pairs for
 * Neon's UMULL of bytes: ldr w, dup .4s, xtn per row and k pair, where ldrh, orr, dup
 * .8h takes one vector instruction). NULL when e is not such a cast. */
static LLVMValueRef cast_splat_interleave(gen *g, const tine_expr_t *e, LLVMValueRef v) {
    const tine_expr_t *il = e->ops[0];
    tine_type_t t = e->type, f = il->type;
    int n = il->nops;
    if (il->op != TINE_OP_INTERLEAVE || !interleaves_splats(il) || t.kind == TINE_BOOL || t.kind == TINE_FLOAT ||
        f.kind == TINE_BOOL || f.kind == TINE_FLOAT || n * t.bits > 64 || t.lanes % n)
        return NULL;
    LLVMBuilderRef b = g->b;
    LLVMTypeRef wt = LLVMIntTypeInContext(g->lc, (unsigned)(n * t.bits)), et = tine_cg_elem_type(g, t);
    LLVMValueRef packed = NULL;
    for (int k = 0; k < n; k++) {
        LLVMValueRef x = LLVMBuildExtractElement(b, v, LLVMConstInt(LLVMInt32TypeInContext(g->lc), (unsigned long long)k, 0), "");
        x = t.bits < f.bits ? LLVMBuildTrunc(b, x, et, "")
            : t.bits > f.bits ? (f.kind == TINE_INT ? LLVMBuildSExt(b, x, et, "") : LLVMBuildZExt(b, x, et, "")) : x;
        x = LLVMBuildZExt(b, x, wt, "");
        if (k) x = LLVMBuildShl(b, x, LLVMConstInt(wt, (unsigned long long)(k * t.bits), 0), "");
        packed = packed ? LLVMBuildOr(b, packed, x, "") : x;
    }
    LLVMValueRef zero = LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0);
    LLVMValueRef one = LLVMBuildInsertElement(b, LLVMGetPoison(LLVMVectorType(wt, 1)), packed, zero, "");
    int *idx = tine_xcalloc((size_t)(t.lanes / n), sizeof *idx);
    LLVMValueRef r = shuffle(g, one, NULL, idx, t.lanes / n);
    free(idx);
    return LLVMBuildBitCast(b, r, vec_type(g, t), "");
}

/* ---- 32-bit lanes read in place as 64-bit ones ----------------------------------------
 * x86 multiplies 32-bit lanes into 64 bits only in place: pmuldq and pmuludq read the low
 * half of each 64-bit lane. LLVM 19 does not see that a product of extended even or odd
 * lanes, cast<i64>(deinterleave(a:i32, 2, k)), is such a product: it extends the halves of
 * each register apart (vpmovzxdq, vextracti128) and shuffles the products back
 * (vperm2i128, vshufps). So a 64-bit product of two such extensions is written as what
 * they are in a's register, its 64-bit lanes shifted down (odd) or extended in place
 * (even), which LLVM selects to pmuldq on a itself; and an interleave of two truncations
 * from 64 bits, the way such products come back to 32-bit lanes, as a blend. Both are
 * identities on little-endian lanes. */

/* The lanes of an integer vector type, and its element bits; 0 for other types. */
static int int_lanes(LLVMTypeRef t, unsigned *bits) {
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || LLVMGetTypeKind(LLVMGetElementType(t)) != LLVMIntegerTypeKind)
        return 0;
    *bits = LLVMGetIntTypeWidth(LLVMGetElementType(t));
    return (int)LLVMGetVectorSize(t);
}

/* Whether v extends to 64 bits the even (k = 0) or odd (k = 1) 32-bit lanes of a: a sext
 * (s) or zext of a shufflevector <k, k+2, ...> of a alone, as deinterleave emits it, here
 * or in a template. The tine node is not consulted: in an instruction's or an FPIR op's
 * template the deinterleave is an operand already emitted. */
static bool ext_of_half(LLVMValueRef v, LLVMValueRef *a, int *k, bool *s) {
    *s = LLVMIsASExtInst(v) != NULL;
    if (!*s && !LLVMIsAZExtInst(v)) return false;
    LLVMValueRef sh = LLVMGetOperand(v, 0);
    unsigned vb, ab;
    int n = int_lanes(LLVMTypeOf(v), &vb);
    if (!n || vb != 64 || !LLVMIsAShuffleVectorInst(sh)) return false;
    *a = LLVMGetOperand(sh, 0);
    if (int_lanes(LLVMTypeOf(*a), &ab) != 2 * n || ab != 32 || (int)LLVMGetNumMaskElements(sh) != n) return false;
    *k = LLVMGetMaskValue(sh, 0);
    for (int i = 0; i < n; i++)
        if ((*k != 0 && *k != 1) || LLVMGetMaskValue(sh, (unsigned)i) != *k + 2 * i) return false;
    return true;
}

/* Such an extension on a's 64-bit lanes in place. */
static LLVMValueRef ext_in_place(gen *g, LLVMValueRef a, int k, bool s) {
    LLVMBuilderRef b = g->b;
    unsigned ab;
    tine_type_t wt = {TINE_UINT, 64, (uint16_t)(int_lanes(LLVMTypeOf(a), &ab) / 2)};
    LLVMValueRef w = LLVMBuildBitCast(b, a, vec_type(g, wt), ""), c32 = splat_int(g, wt, 32);
    if (k == 1) return s ? LLVMBuildAShr(b, w, c32, "") : LLVMBuildLShr(b, w, c32, "");
    if (!s) return LLVMBuildAnd(b, w, splat_int(g, wt, 0xffffffffu), "");
    return LLVMBuildAShr(b, LLVMBuildShl(b, w, c32, ""), c32, "");
}

/* A 64-bit product of two such extensions, in place (pmuldq, pmuludq); NULL if not one. */
static LLVMValueRef mul_in_place(gen *g, LLVMValueRef x, LLVMValueRef y) {
    LLVMValueRef a, c;
    int k, l;
    bool s, t;
    if (!ext_of_half(x, &a, &k, &s) || !ext_of_half(y, &c, &l, &t)) return NULL;
    return LLVMBuildMul(g->b, ext_in_place(g, a, k, s), ext_in_place(g, c, l, t), "");
}

/* interleave(p, q) of two truncations from 64 to 32 bits (the LLVM values, as
 * ext_in_place reads them) as a blend of p's low halves with q's moved up; NULL when e is
 * not one. */
static LLVMValueRef blend_truncs(gen *g, const tine_expr_t *e, LLVMValueRef *ov) {
    if (e->nops != 2 || e->type.bits != 32 || e->type.kind == TINE_FLOAT) return NULL;
    LLVMValueRef src[2];
    for (int i = 0; i < 2; i++) {
        unsigned sb = 0;
        if (!LLVMIsATruncInst(ov[i])) return NULL;
        src[i] = LLVMGetOperand(ov[i], 0);
        if (int_lanes(LLVMTypeOf(src[i]), &sb) != e->ops[i]->type.lanes || sb != 64) return NULL;
    }
    LLVMBuilderRef b = g->b;
    tine_type_t wt = {TINE_UINT, 64, e->ops[1]->type.lanes};
    LLVMValueRef hi = LLVMBuildShl(b, src[1], splat_int(g, wt, 32), "");
    LLVMTypeRef vt = vec_type(g, e->type);
    int *idx = tine_xmalloc(sizeof *idx * (size_t)e->type.lanes);
    for (int i = 0; i < e->type.lanes; i++) idx[i] = i % 2 ? e->type.lanes + i : i;
    LLVMValueRef r = shuffle(g, LLVMBuildBitCast(b, src[0], vt, ""), LLVMBuildBitCast(b, hi, vt, ""), idx, e->type.lanes);
    free(idx);
    return r;
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
        int32_t off[TINE_MAX_LANES];
        /* (one lane in a kernel: a plain load at tine_cg_index_i64's address, not a gather of one) */
        if ((t.lanes > 1 || g->lk) && tine_cg_lane_offsets(e->ops[0], off)) {
            /* lane i reads lane 0's element plus off[i] (a constant): no gather */
            int lo = 0, hi = 0;
            bool dense = true;
            for (int i = 0; i < t.lanes; i++) {
                lo = off[i] < lo ? off[i] : lo;
                hi = off[i] > hi ? off[i] : hi;
                dense &= off[i] == i;
            }
            LLVMTypeRef et = tine_cg_elem_type(g, t);
            LLVMValueRef i0 = tine_cg_index_i64(g, e->ops[0], ov[0]);
            LLVMValueRef p = LLVMBuildGEP2(b, et, base, &i0, 1, "");
            if (dense) {
                /* consecutive lanes: one vector load at lane 0's index */
                LLVMValueRef v = LLVMBuildLoad2(b, vec_type(g, t), p, "");
                LLVMSetAlignment(v, 1);
                return v;
            }
            if (lo == 0 && hi == 0) {
                /* one element, broadcast */
                LLVMValueRef x = LLVMBuildLoad2(b, et, p, "");
                LLVMValueRef one = LLVMBuildInsertElement(b, LLVMGetPoison(LLVMVectorType(et, 1)), x,
                                                          LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0), "");
                int *idx = tine_xcalloc((size_t)t.lanes, sizeof *idx);
                LLVMValueRef r = shuffle(g, one, NULL, idx, t.lanes);
                free(idx);
                return r;
            }
            int n = hi - lo + 1, w = 1;
            if (n <= 4 * t.lanes) {
                /* lanes within n = hi - lo + 1 elements (strides 2-4, halved coordinates x / 2,
                   any constant pattern): dense loads of exactly those n elements, then a
                   shuffle. Never past them (the buffer may end right at the last one, and
                   every element between two a lane reads is in the buffer): two loads of w
                   elements, w the largest power of two <= n (n < 2w), one at the first
                   element and one ending at the last; they overlap, and each lane takes its
                   element from either. (One load of n elements, n odd, is split by LLVM into
                   pieces and reassembled with per-element inserts.) */
                while (2 * w <= n) w *= 2;
                LLVMTypeRef wt = LLVMVectorType(et, (unsigned)w);
                LLVMValueRef lo_off = LLVMConstInt(LLVMInt64TypeInContext(g->lc), (unsigned long long)(int64_t)lo, 1);
                LLVMValueRef p0 = LLVMBuildGEP2(b, et, p, &lo_off, 1, "");
                LLVMValueRef d = LLVMConstInt(LLVMInt64TypeInContext(g->lc), (unsigned long long)(n - w), 0);
                LLVMValueRef p1 = LLVMBuildGEP2(b, et, p0, &d, 1, "");
                LLVMValueRef vlo = LLVMBuildLoad2(b, wt, p0, ""), vhi = n > w ? LLVMBuildLoad2(b, wt, p1, "") : NULL;
                LLVMSetAlignment(vlo, 1);
                if (vhi) LLVMSetAlignment(vhi, 1);
                int *idx = tine_xmalloc(sizeof *idx * (size_t)t.lanes);
                for (int i = 0; i < t.lanes; i++) {
                    int j = off[i] - lo;
                    idx[i] = j < w ? j : w + (j - (n - w));
                }
                LLVMValueRef r = shuffle(g, vlo, vhi, idx, t.lanes);
                free(idx);
                return r;
            }
        }
        LLVMValueRef ptrs = LLVMBuildGEP2(b, tine_cg_elem_type(g, t), base, &ov[0], 1, "");
        LLVMTypeRef types[2] = {vec_type(g, t), LLVMTypeOf(ptrs)};
        LLVMValueRef args[4] = {ptrs, LLVMConstInt(LLVMInt32TypeInContext(g->lc), 1, 0),
                                LLVMConstAllOnes(LLVMVectorType(LLVMInt1TypeInContext(g->lc), t.lanes)),
                                LLVMGetPoison(vec_type(g, t))};
        return tine_cg_intrinsic(g, "llvm.masked.gather", types, 2, args, 4);
    }
    case TINE_OP_ADD: return fl ? LLVMBuildFAdd(b, ov[0], ov[1], "") : LLVMBuildAdd(b, ov[0], ov[1], "");
    case TINE_OP_SUB: return fl ? LLVMBuildFSub(b, ov[0], ov[1], "") : LLVMBuildSub(b, ov[0], ov[1], "");
    case TINE_OP_MUL: {
        if (fl) return LLVMBuildFMul(b, ov[0], ov[1], "");
        LLVMValueRef p = mul_in_place(g, ov[0], ov[1]);
        return p ? p : LLVMBuildMul(b, ov[0], ov[1], "");
    }
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
    case TINE_OP_CAST: {
        LLVMValueRef r = cast_splat_interleave(g, e, ov[0]);
        return r ? r : cast(g, t, e->ops[0]->type, ov[0]);
    }
    case TINE_OP_REINTERPRET: return LLVMBuildBitCast(b, ov[0], vec_type(g, t), "");
    case TINE_OP_BROADCAST: {
        int *idx = tine_xcalloc((size_t)t.lanes, sizeof *idx);
        LLVMValueRef r = shuffle(g, ov[0], NULL, idx, t.lanes);
        free(idx);
        return r;
    }
    case TINE_OP_RAMP: {
        int *idx = tine_xcalloc((size_t)t.lanes, sizeof *idx);
        LLVMValueRef base = shuffle(g, ov[0], NULL, idx, t.lanes), stride = shuffle(g, ov[1], NULL, idx, t.lanes);
        free(idx);
        LLVMTypeRef et = tine_cg_elem_type(g, t);
        LLVMValueRef *iota = tine_xmalloc(sizeof *iota * t.lanes);
        for (int i = 0; i < t.lanes; i++) iota[i] = LLVMConstInt(et, (unsigned long long)i, 0);
        LLVMValueRef io = LLVMConstVector(iota, t.lanes);
        free(iota);
        return LLVMBuildAdd(b, base, LLVMBuildMul(b, stride, io, ""), "");
    }
    case TINE_OP_CONCAT: return join(g, e, ov);
    case TINE_OP_INTERLEAVE: {
        if (interleaves_splats(e)) return splat_interleave(g, e, ov);
        LLVMValueRef blend = blend_truncs(g, e, ov);
        if (blend) return blend;
        LLVMValueRef all = join(g, e, ov);
        int n = e->nops, l = e->ops[0]->type.lanes, *idx = tine_xmalloc(sizeof *idx * (size_t)t.lanes);
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
        int *idx = tine_xmalloc(sizeof *idx * (size_t)count);
        for (int i = 0; i < count; i++) idx[i] = begin + i * stride;
        LLVMValueRef r = shuffle(g, ov[0], NULL, idx, count);
        free(idx);
        return r;
    }
    case TINE_OP_VECTOR_REDUCE_ADD: {
        if (t.lanes == 1 && !fl && e->ops[0]->type.lanes > 2) { /* a whole-vector sum: LLVM's reduction (AArch64 addv) */
            LLVMTypeRef ty = vec_type(g, e->ops[0]->type);
            LLVMValueRef s = tine_cg_intrinsic(g, "llvm.vector.reduce.add", &ty, 1, ov, 1);
            return LLVMBuildInsertElement(b, LLVMGetUndef(vec_type(g, t)), s, LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0), "");
        }
        int gsz = e->ops[0]->type.lanes / t.lanes, *idx = tine_xmalloc(sizeof *idx * (size_t)t.lanes);
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
        return tine_cg_intrinsic(g, "llvm.sqrt", &ty, 1, ov, 1);
    }
    case TINE_OP_FMA: { /* llvm.fma rounds once on every target (a library call where no instruction does) */
        LLVMTypeRef ty = vec_type(g, t);
        return tine_cg_intrinsic(g, "llvm.fma", &ty, 1, ov, 3);
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

/* The nodes are emitted depth first, operands left to right: an order the DAG's shape
 * fixes. Node ids would not do: a node made earlier in the context's life (by another
 * kernel's run, another selection) has an older id, and the code would then depend on
 * what the context did before. */
LLVMValueRef tine_cg_emit_node(gen *g, const tine_expr_t *e, LLVMValueRef *ov) { return emit_node(g, e, ov); }

LLVMValueRef tine_cg_emit_dag(gen *g, const tine_expr_t *root) {
    uint32_t n;
    tine_expr_t **order = tine_topo(g->ctx, root, &n);
    LLVMValueRef *val = tine_xcalloc(n, sizeof *val);
    struct {
        const tine_expr_t *x;
        int next;
    } *stack = tine_xmalloc(sizeof *stack * n);
    uint32_t sp = 0;
    stack[sp++].x = root, stack[0].next = 0;
    while (sp) {
        const tine_expr_t *x = stack[sp - 1].x;
        if (stack[sp - 1].next < x->nops) {
            const tine_expr_t *o = x->ops[stack[sp - 1].next++];
            if (!val[tine_topo_index(order, n, o)]) {
                TINE_ASSERT(sp < n); /* a node is on the stack once (a DAG: no node is its own operand) */
                stack[sp].x = o;
                stack[sp++].next = 0;
            }
            continue;
        }
        sp--;
        uint32_t k = tine_topo_index(order, n, x);
        LLVMValueRef ov[256];
        for (int i = 0; i < x->nops; i++) ov[i] = val[tine_topo_index(order, n, x->ops[i])];
        val[k] = emit_node(g, x, ov);
    }
    LLVMValueRef r = val[n - 1];
    free(stack);
    free(val);
    free(order);
    return r;
}

/* An invalid module is tine's bug, never the input's: reported as an internal error (with
 * the verifier's first complaint) so that the caller gets a failure instead of LLVM
 * crashing on the module later. False if m is invalid. */
bool tine_cg_verify_module(tine_ctx_t *ctx, LLVMModuleRef m) {
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
bool tine_cg_finish_function(gen *g) {
    LLVMBuildRetVoid(g->b);
    LLVMDisposeBuilder(g->b);
    return tine_cg_verify_module(g->ctx, g->m);
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
    const tine_expr_t *root = tine_select_expr(ctx, (tine_expr_t *)e, sel, target);
    if (!root) return NULL;
    g.order = tine_topo(ctx, root, &g.n);
    if (tine_cg_unselectable(ctx, g.order, g.n)) {
        free(g.order);
        return NULL;
    }
    /* leaves: variables, then one per buffer (the first load of each names it) */
    g.args = tine_xmalloc(sizeof *g.args * g.n);
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
    LLVMValueRef r = tine_cg_emit_dag(&g, root);
    tine_type_t rt = root->type;
    if (rt.kind == TINE_BOOL) r = LLVMBuildZExt(g.b, r, LLVMVectorType(LLVMInt8TypeInContext(lc), rt.lanes), "");
    LLVMValueRef st = LLVMBuildStore(g.b, r, out);
    LLVMSetAlignment(st, 1);
    if (!tine_cg_finish_function(&g)) {
        free(g.args);
        LLVMDisposeModule(g.m);
        return NULL;
    }
    *args_out = g.args;
    *nargs_out = g.nargs;
    return g.m;
}

char *tine_emit_expr_as(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel,
                        tine_emit_kind_t kind, const char *symbol, size_t *size, const tine_expr_t ***args,
                        int *nargs) {
    if (!e) return NULL;
    if (kind != TINE_EMIT_LLVM && kind != TINE_EMIT_ASM && kind != TINE_EMIT_OBJ) {
        tine_set_error(ctx, "an expression is emitted as llvm, asm or obj, not %s", tine_emit_kind_name(kind));
        return NULL;
    }
    char *triple = NULL;
    LLVMTargetMachineRef tm = tine_cg_target_machine(ctx, target, &triple);
    if (!tm) return NULL;
    LLVMContextRef lc = LLVMContextCreate();
    const tine_expr_t **a;
    int na;
    LLVMModuleRef m = build_module(ctx, lc, e, sel, target, symbol, &a, &na);
    char *text = NULL;
    if (m) {
        size_t n;
        text = tine_cg_module_output(ctx, m, tm, triple, kind, &n);
        LLVMDisposeModule(m);
        if (size) *size = n;
        if (args && text) {
            *args = a;
            *nargs = na;
        } else {
            free(a);
        }
    }
    LLVMContextDispose(lc);
    LLVMDisposeTargetMachine(tm);
    free(triple);
    return text;
}

char *tine_emit_expr(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel,
                     tine_emit_kind_t kind) {
    if (kind == TINE_EMIT_OBJ) {
        tine_set_error(ctx, "tine_emit_expr gives text; an object comes from tine_emit_expr_as");
        return NULL;
    }
    return tine_emit_expr_as(ctx, e, target, sel, kind, "tine_expr", NULL, NULL, NULL);
}

tine_jit_t *tine_jit_expr(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel) {
    if (!e) return NULL;
    char *triple = NULL;
    LLVMTargetMachineRef tm = tine_cg_jit_target_machine(ctx, target, &triple);
    if (!tm) return NULL;
    tine_jit_t *j = tine_xcalloc(1, sizeof *j);
    j->ctx = ctx;
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef lc = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef m = build_module(ctx, lc, e, sel, target, "tine_expr", &j->args, &j->nargs);
    if (!m) {
        tine_cg_jit_abandon(tsc, NULL, tm, triple);
        free(j);
        return NULL;
    }
    uint64_t addr = tine_cg_jit_module(ctx, tm, triple, tsc, m, "tine_expr", &j->jit);
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

