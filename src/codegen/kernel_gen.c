/* kernel_gen.c — kernels as loop nests: each stage becomes a JIT-compiled function over
 * the output's coordinates, and tine_compiled_run plans and runs them in order.
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"

#include <threads.h>
#include <time.h>
#include <unistd.h>

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
bool build_stage(tine_compiled_t *cc, LLVMModuleRef m, LLVMContextRef lc, tine_selection_t sel, int sn) {
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
        jit_abandon(tsc, m, tm, triple);
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
