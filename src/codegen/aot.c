/* aot.c — ahead-of-time kernels: an object file whose entry point carries its own run
 * plan, and the C header that declares it.
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"

#include <ctype.h>

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
        LLVMTypeRef mty = LLVMFunctionType(ptr, &a.i64, 1, 0), fty = LLVMFunctionType(LLVMVoidTypeInContext(lc), &ptr, 1, 0),
                    sty = LLVMFunctionType(i32, &ptr, 1, 0);
        /* the stages may have declared free (and calloc) already */
        LLVMValueRef mal = LLVMGetNamedFunction(m, "malloc"), fre = LLVMGetNamedFunction(m, "free");
        if (!mal) mal = LLVMAddFunction(m, "malloc", mty);
        if (!fre) fre = LLVMAddFunction(m, "free", fty);
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
            /* a stage returns 0 or a failed Assert's code (-1: its scratch): the scratch
               buffers are freed and the code returned */
            LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(lc, fn, "stage"),
                              next = LLVMAppendBasicBlockInContext(lc, fn, "after"),
                              bad = LLVMAppendBasicBlockInContext(lc, fn, "stage_failed");
            if (s == ns - 1) LLVMBuildBr(b, yes);
            else LLVMBuildCondBr(b, a.any[nin + s], yes, next);
            LLVMPositionBuilderAtEnd(b, yes);
            LLVMValueRef rc = LLVMBuildCall2(b, sty, sf, call_args, 1, "");
            LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, rc, LLVMConstInt(i32, 0, 0), ""), bad, next);
            LLVMPositionBuilderAtEnd(b, bad);
            for (int p = 0; p < ns - 1; p++) LLVMBuildCall2(b, fty, fre, &data[p], 1, "");
            LLVMBuildRet(b, rc);
            LLVMPositionBuilderAtEnd(b, next);
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
    static const char *const libc[] = {"malloc", "calloc", "free", "memset", "memcpy", "memmove", "main"};
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
    for (int s = 0; s < c.nst; s++) compiled_stage_free(&c.st[s]);
    free(c.st);
    LLVMDisposeModule(m);
    LLVMContextDispose(lc);
    LLVMDisposeTargetMachine(tm);
    free(triple);
    return result;
}
