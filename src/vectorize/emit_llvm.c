/* emit_llvm.c — the extracted program as LLVM IR: one function named and typed as the C
 * kernel (every parameter a pointer, noalias: a kernel's arrays do not overlap, as
 * Diospyros assumes), each chosen class computed once, each output chunk stored once
 * computed (last of all when the kernel reads an output's own elements).
 *
 * A vector of leaves is built as the cost model priced it: a contiguous run is one load,
 * one element a broadcast, other lanes come from loads of register-wide windows of their
 * array joined by shufflevector (LLVM picks the permute: vpermps, vpermt2ps, tbl, ...);
 * a window past the end of an array is a masked load, so no element outside what the
 * kernel touches is ever read. A chunk with lanes no output needs is a masked store.
 */
#include "vectorize.h"
#include "../codegen/codegen.h"

typedef struct {
    tine_ctx_t *ctx;
    const vz_program *p;
    const vz_spec *s;
    LLVMContextRef lc;
    LLVMModuleRef m;
    LLVMBuilderRef b;
    LLVMTypeRef ft, vt, i32, i1, ptr;
    LLVMValueRef fn;
    LLVMValueRef *arg;  /* per spec array */
    LLVMValueRef *val;  /* per class */
    int W;
} em;

static LLVMValueRef intrinsic(em *e, const char *name, LLVMTypeRef *types, int ntypes, LLVMValueRef *args, int nargs) {
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    TINE_ASSERT(id != 0);
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(e->m, id, types, (size_t)ntypes);
    LLVMTypeRef t = LLVMIntrinsicGetType(e->lc, id, types, (size_t)ntypes);
    return LLVMBuildCall2(e->b, t, f, args, (unsigned)nargs, "");
}

static LLVMValueRef i32c(em *e, int v) { return LLVMConstInt(e->i32, (unsigned long long)(int64_t)v, 1); }

static LLVMValueRef elem_ptr(em *e, int array, int idx) {
    LLVMValueRef ix = LLVMConstInt(LLVMInt64TypeInContext(e->lc), (unsigned long long)idx, 0);
    return LLVMBuildInBoundsGEP2(e->b, e->ft, e->arg[array], &ix, 1, "");
}

static unsigned elem_bytes(const em *e) { return (unsigned)e->s->elem.bits / 8; }

static LLVMValueRef const_of(em *e, int64_t bits) {
    vz_node n = {.op = VZ_CONST, .data = bits};
    return LLVMConstReal(e->ft, vz_const_value(e->s, &n));
}

static LLVMValueRef lane_mask(em *e, const bool *on) {
    LLVMValueRef m[16];
    for (int l = 0; l < e->W; l++) m[l] = LLVMConstInt(e->i1, on[l], 0);
    return LLVMConstVector(m, (unsigned)e->W);
}

static LLVMValueRef scalar_load(em *e, int array, int idx);

/* n lanes of v from lane `first` (n a power of two, or 1: a scalar). */
static LLVMValueRef lanes_of(em *e, LLVMValueRef v, int first, int n) {
    if (n == 1) return LLVMBuildExtractElement(e->b, v, i32c(e, first), "");
    LLVMValueRef m[16];
    for (int i = 0; i < n; i++) m[i] = i32c(e, first + i);
    return LLVMBuildShuffleVector(e->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(m, (unsigned)n), "");
}

/* A part of a vector register, widened back to W lanes (the rest undefined). */
static LLVMValueRef widen(em *e, LLVMValueRef part, int n) {
    if (n == 1) return LLVMBuildInsertElement(e->b, LLVMGetPoison(e->vt), part, i32c(e, 0), "");
    LLVMValueRef m[16];
    for (int i = 0; i < e->W; i++) m[i] = i < n ? i32c(e, i) : LLVMGetUndef(e->i32);
    return LLVMBuildShuffleVector(e->b, part, LLVMGetPoison(LLVMTypeOf(part)), LLVMConstVector(m, (unsigned)e->W), "");
}

/* Elements [start, start + W) of an array, the ones past its end not read: AVX-512 loads
 * them under a mask register; elsewhere (vmaskmovps is slow, SSE and Neon have none) the
 * part inside is loaded in power-of-two pieces and joined. */
static LLVMValueRef load_window(em *e, int array, int start) {
    int count = e->s->array[array].count;
    LLVMValueRef at = elem_ptr(e, array, start);
    if (start + e->W <= count) {
        LLVMValueRef v = LLVMBuildLoad2(e->b, e->vt, at, "");
        LLVMSetAlignment(v, elem_bytes(e));
        return v;
    }
    if (e->p->target->bits == 512) {
        bool on[16];
        for (int l = 0; l < e->W; l++) on[l] = start + l < count;
        LLVMTypeRef types[2] = {e->vt, e->ptr};
        LLVMValueRef args[4] = {at, i32c(e, (int)elem_bytes(e)), lane_mask(e, on), LLVMGetPoison(e->vt)};
        return intrinsic(e, "llvm.masked.load", types, 2, args, 4);
    }
    LLVMValueRef acc = NULL;
    for (int done = 0, left = count - start; left > 0;) {
        int n = 1;
        while (n * 2 <= left) n *= 2;
        LLVMValueRef part;
        if (n == 1) part = scalar_load(e, array, start + done);
        else {
            part = LLVMBuildLoad2(e->b, LLVMVectorType(e->ft, (unsigned)n), elem_ptr(e, array, start + done), "");
            LLVMSetAlignment(part, elem_bytes(e));
        }
        LLVMValueRef w = widen(e, part, n), m[16];
        for (int l = 0; l < e->W; l++)
            m[l] = l < done ? i32c(e, l) : l < done + n ? i32c(e, e->W + l - done) : LLVMGetUndef(e->i32);
        acc = LLVMBuildShuffleVector(e->b, acc ? acc : LLVMGetPoison(e->vt), w, LLVMConstVector(m, (unsigned)e->W), "");
        done += n, left -= n;
    }
    return acc;
}

static LLVMValueRef scalar_load(em *e, int array, int idx) {
    LLVMValueRef v = LLVMBuildLoad2(e->b, e->ft, elem_ptr(e, array, idx), "");
    LLVMSetAlignment(v, elem_bytes(e));
    return v;
}


/* The leaf lanes of a VEC as vz_plan_leaves plans them (the others undefined): each
 * source built, then merged into one vector a shufflevector at a time. */
static LLVMValueRef leaf_vector(em *e, const eg_node *vec, bool *is_leaf) {
    int W = e->W;
    vz_leaf_plan plan;
    vz_plan_leaves(e->p->g, e->s, W, vec->kids, &plan);
    LLVMValueRef acc = NULL;
    for (int k = 0; k < plan.nsrc; k++) {
        const vz_source *src = &plan.src[k];
        LLVMValueRef v, lanes[16];
        eg_node n;
        if (src->kind == VZ_SRC_CONST) {
            for (int l = 0; l < W; l++)
                lanes[l] = plan.lane_src[l] == k && vz_leaf(e->p->g, vec->kids[l], &n) ? const_of(e, n.data) : LLVMGetUndef(e->ft);
            v = LLVMConstVector(lanes, (unsigned)W);
        } else if (src->kind == VZ_SRC_BROADCAST)
            v = LLVMBuildInsertElement(e->b, LLVMGetPoison(e->vt), scalar_load(e, src->array, src->start), i32c(e, 0), "");
        else v = load_window(e, src->array, src->start);
        LLVMValueRef mask[16];
        for (int l = 0; l < W; l++)
            mask[l] = plan.lane_src[l] == k ? i32c(e, W + plan.lane_at[l])
                      : acc && plan.lane_src[l] >= 0 && plan.lane_src[l] < k ? i32c(e, l)
                                                                              : LLVMGetUndef(e->i32);
        acc = LLVMBuildShuffleVector(e->b, acc ? acc : LLVMGetPoison(e->vt), v, LLVMConstVector(mask, (unsigned)W), "");
    }
    for (int l = 0; l < W; l++) {
        eg_node n;
        is_leaf[l] = vz_leaf(e->p->g, vec->kids[l], &n);
    }
    return acc ? acc : LLVMGetUndef(e->vt);
}

static LLVMValueRef emit(em *e, eg_id c);

static LLVMValueRef fcmp(em *e, int64_t pred, LLVMValueRef a, LLVMValueRef b) {
    static const LLVMRealPredicate p[] = {LLVMRealOLT, LLVMRealOLE, LLVMRealOGT, LLVMRealOGE, LLVMRealOEQ, LLVMRealUNE};
    return LLVMBuildFCmp(e->b, p[pred], a, b, "");
}

/* An op on scalars or vectors alike (LLVM's float ops are lane-wise). */
static LLVMValueRef op_value(em *e, uint32_t op, int64_t data, LLVMValueRef *k) {
    LLVMTypeRef t = LLVMTypeOf(k[op == VZ_SEL ? 1 : 0]);
    switch (op) {
    case VZ_ADD: return LLVMBuildFAdd(e->b, k[0], k[1], "");
    case VZ_SUB: return LLVMBuildFSub(e->b, k[0], k[1], "");
    case VZ_MUL: return LLVMBuildFMul(e->b, k[0], k[1], "");
    case VZ_DIV: return LLVMBuildFDiv(e->b, k[0], k[1], "");
    case VZ_NEG: return LLVMBuildFNeg(e->b, k[0], "");
    case VZ_SQRT: return intrinsic(e, "llvm.sqrt", &t, 1, k, 1);
    case VZ_FMA: return intrinsic(e, "llvm.fma", &t, 1, k, 3);
    case VZ_CMP: return fcmp(e, data, k[0], k[1]);
    case VZ_SEL: return LLVMBuildSelect(e->b, k[0], k[1], k[2], "");
    default: TINE_ASSERT(!"not an op"); return NULL;
    }
}

static LLVMValueRef emit_vec(em *e, const eg_node *n) {
    bool is_leaf[16], uniform = true;
    for (uint32_t l = 1; l < n->n; l++) uniform = uniform && eg_find(e->p->g, n->kids[l]) == eg_find(e->p->g, n->kids[0]);
    eg_node x;
    if (uniform && !vz_leaf(e->p->g, n->kids[0], &x)) { /* one computed scalar everywhere */
        LLVMValueRef s = emit(e, n->kids[0]);
        LLVMValueRef v = LLVMBuildInsertElement(e->b, LLVMGetPoison(LLVMVectorType(LLVMTypeOf(s), (unsigned)e->W)), s,
                                                i32c(e, 0), "");
        LLVMValueRef zeros[16];
        for (int l = 0; l < e->W; l++) zeros[l] = i32c(e, 0);
        return LLVMBuildShuffleVector(e->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(zeros, (unsigned)e->W), "");
    }
    LLVMValueRef v = leaf_vector(e, n, is_leaf);
    for (uint32_t l = 0; l < n->n; l++) {
        if (is_leaf[l]) continue;
        LLVMValueRef s = emit(e, n->kids[l]);
        if (LLVMTypeOf(s) != e->ft && LLVMTypeOf(v) == e->vt) /* a vector of conditions */
            v = LLVMGetPoison(LLVMVectorType(LLVMTypeOf(s), (unsigned)e->W));
        v = LLVMBuildInsertElement(e->b, v, s, i32c(e, (int)l), "");
    }
    return v;
}

static LLVMValueRef emit(em *e, eg_id c) {
    c = eg_find(e->p->g, c);
    if (e->val[c]) return e->val[c];
    eg_node n = vz_chosen(e->p, c);
    LLVMValueRef k[3], r;
    switch (n.op) {
    case VZ_GET: r = scalar_load(e, (int)(n.data >> 32), (int)(uint32_t)n.data); break;
    case VZ_CONST: r = const_of(e, n.data); break;
    case VZ_DC: r = LLVMGetUndef(e->ft); break;
    case VZ_VEC: r = emit_vec(e, &n); break;
    default: {
        uint32_t op = VZ_IS_V(n.op) ? n.op - VZ_VBASE : n.op;
        for (uint32_t i = 0; i < n.n; i++) k[i] = emit(e, n.kids[i]);
        r = op_value(e, op, n.data, k);
    }
    }
    return e->val[c] = r;
}

/* A chunk's lanes to their elements: a full chunk of one array in order is one store;
 * else each run of lanes bound for consecutive elements of one array is stored in
 * power-of-two pieces (AVX-512: under a mask where the run is the chunk's only one). */
static void store_chunk(em *e, const vz_chunk *ch, LLVMValueRef v) {
    int W = e->W;
    bool on[16], one_run = true;
    for (int l = 0; l < W; l++) {
        on[l] = ch->array[l] >= 0;
        if (on[l] && (ch->array[l] != ch->array[0] || ch->array[0] < 0 || ch->elem[l] != ch->elem[0] + l)) one_run = false;
    }
    LLVMValueRef at = ch->array[0] >= 0 ? elem_ptr(e, ch->array[0], ch->elem[0]) : NULL;
    bool all = one_run;
    for (int l = 0; l < W; l++) all = all && on[l];
    if (all) {
        LLVMValueRef st = LLVMBuildStore(e->b, v, at);
        LLVMSetAlignment(st, elem_bytes(e));
        return;
    }
    if (one_run && e->p->target->bits == 512) {
        LLVMTypeRef types[2] = {e->vt, e->ptr};
        LLVMValueRef args[4] = {v, at, i32c(e, (int)elem_bytes(e)), lane_mask(e, on)};
        intrinsic(e, "llvm.masked.store", types, 2, args, 4);
        return;
    }
    vz_run runs[16];
    for (int r = 0, nr = vz_store_runs(ch, W, runs); r < nr; r++) /* each in power-of-two pieces */
        for (int done = 0; done < runs[r].len;) {
            int n = 1;
            while (n * 2 <= runs[r].len - done) n *= 2;
            LLVMValueRef st = LLVMBuildStore(e->b, lanes_of(e, v, runs[r].lane + done, n),
                                             elem_ptr(e, runs[r].array, runs[r].elem + done));
            LLVMSetAlignment(st, elem_bytes(e));
            done += n;
        }
}

static void add_attr(em *e, unsigned idx, const char *name) {
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(e->fn, idx, LLVMCreateEnumAttribute(e->lc, kind, 0));
}

static LLVMModuleRef build(em *e) {
    const vz_spec *s = e->s;
    e->m = LLVMModuleCreateWithNameInContext("tine_vectorize", e->lc);
    e->b = LLVMCreateBuilderInContext(e->lc);
    e->ft = s->elem.bits == 32 ? LLVMFloatTypeInContext(e->lc) : LLVMDoubleTypeInContext(e->lc);
    e->vt = LLVMVectorType(e->ft, (unsigned)e->W);
    e->i32 = LLVMInt32TypeInContext(e->lc);
    e->i1 = LLVMInt1TypeInContext(e->lc);
    e->ptr = LLVMPointerTypeInContext(e->lc, 0);
    LLVMTypeRef *pt = tine_xmalloc(sizeof *pt * (size_t)(s->narrays + 1));
    for (int i = 0; i < s->narrays; i++) pt[i] = e->ptr;
    e->fn = LLVMAddFunction(e->m, s->func, LLVMFunctionType(LLVMVoidTypeInContext(e->lc), pt, (unsigned)s->narrays, 0));
    free(pt);
    e->arg = tine_xmalloc(sizeof *e->arg * (size_t)(s->narrays + 1));
    for (int i = 0; i < s->narrays; i++) {
        e->arg[i] = LLVMGetParam(e->fn, (unsigned)s->array[i].pos);
        add_attr(e, (unsigned)s->array[i].pos + 1, "noalias");
        add_attr(e, (unsigned)s->array[i].pos + 1, "nocapture");
        if (!s->array[i].output) add_attr(e, (unsigned)s->array[i].pos + 1, "readonly");
    }
    add_attr(e, LLVMAttributeFunctionIndex, "nounwind");
    LLVMPositionBuilderAtEnd(e->b, LLVMAppendBasicBlockInContext(e->lc, e->fn, "entry"));
    e->val = tine_xcalloc(eg_id_limit(e->p->g), sizeof *e->val);
    /* each chunk stored once computed (its registers free again), unless the kernel reads
       an output's own elements: then every store waits until all is computed */
    bool reads_output = vz_reads_output(s);
    LLVMValueRef *v = tine_xmalloc(sizeof *v * (size_t)(e->p->nchunks + 1));
    for (int i = 0; i < e->p->nchunks; i++) {
        v[i] = emit(e, e->p->chunk[i].cls);
        if (!reads_output) store_chunk(e, &e->p->chunk[i], v[i]);
    }
    for (int i = 0; reads_output && i < e->p->nchunks; i++) store_chunk(e, &e->p->chunk[i], v[i]);
    free(v);
    LLVMBuildRetVoid(e->b);
    free(e->val);
    free(e->arg);
    LLVMDisposeBuilder(e->b);
    return e->m;
}

char *vz_emit_llvm(tine_ctx_t *ctx, const vz_program *p, tine_emit_kind_t kind, size_t *size) {
    char *triple = NULL;
    LLVMTargetMachineRef tm = tine_cg_target_machine(ctx, p->target->name, &triple);
    if (!tm) return NULL;
    em e = {.ctx = ctx, .p = p, .s = p->spec, .W = p->width, .lc = LLVMContextCreate()};
    LLVMModuleRef m = build(&e);
    char *out = tine_cg_verify_module(ctx, m) ? tine_cg_module_output(ctx, m, tm, triple, kind, size) : NULL;
    LLVMDisposeModule(m);
    LLVMContextDispose(e.lc);
    LLVMDisposeTargetMachine(tm);
    free(triple);
    return out;
}

char *vz_emit_header(const vz_program *p) {
    tine_buf b = {0};
    tine_buf_printf(&b, "/* %s: vectorized by tine vectorize for %s */\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n%s\n"
                        "#ifdef __cplusplus\n}\n#endif\n",
                    p->spec->func, p->target->name, p->spec->signature ? p->spec->signature : "");
    return b.p ? b.p : tine_strdup("");
}
