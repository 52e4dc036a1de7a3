/* stmt_gen.c — a kernel's statement (src/stmt) as one LLVM function: a thin walk.
 *
 * `int tine_run(const void *const *args, int64_t *detail)`: args holds a pointer to each
 * input's tine_buffer_t (in the kernel's order; NULL is a valid, refused, value), then a
 * pointer to each parameter's value (bool: one byte), then the output's tine_buffer_t.
 * It returns 0, or the code of the first Assert that fails (TINE_RUN_SCRATCH when a scratch allocation
 * fails). When detail is not NULL, a failure writes there which one: detail[0] the
 * Assert's index in tine_compiled.asserts (-1: an allocation), detail[1..] its args'
 * values, so the JIT's error is the text the statement interpreter gives.
 *
 * The statement comes from the compile driver (tine_compile_kernel) with its expressions
 * already selected and its plan inside, so this file neither selects nor plans. Each
 * expression is one DAG for tine_cg_emit_dag; the values of loop variables and lets reach later
 * DAGs as leaves of the gen (bound while their body is emitted, innermost binding
 * first), and buffers are found by name through a `load` leaf of element 0, as llvm.c's
 * load_arg looks them up. The caller's values are bound first, as tine_call_bind binds
 * them for the interpreter (the variables of tine_call_var).
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"
#include "buffer_abi.h"

#include "../stmt/passes.h"


typedef struct {
    gen *g;
    tine_ctx_t *ctx;
    LLVMValueRef fn;
    LLVMBuilderRef entry;      /* at the end of the entry block: allocas go there */
    LLVMTypeRef i64, i32, ptr;
    int cap;                   /* of g->lk and g->lv */
    LLVMValueRef *heap;        /* live malloc'd allocations, freed when an Assert fails */
    int nheap, capheap;
    LLVMValueRef calloc_fn, free_fn;
    LLVMTypeRef calloc_ty, free_ty;
    LLVMValueRef detail;       /* int64_t *, maybe NULL */
    tine_compiled_t *c;        /* its asserts */
    bool in_parallel;          /* emitting the body of a parallel loop (an outlined function) */
    int nouter;                /* outlined functions so far (their names) */
} sgen;

/* ---- leaves ---------------------------------------------------------------------------- */

/* Binds a leaf (a variable's node, or a buffer's `load` key) to v until unbind returns
 * the table to the mark bind gave: load_arg looks from the newest binding back, so an
 * inner binding shadows an outer one of the same name. */
static int bind(sgen *s, const tine_expr_t *e, LLVMValueRef v) {
    gen *g = s->g;
    if (g->nl == s->cap) { /* four arrays, one capacity */
        size_t cap = tine_grow_cap((size_t)s->cap, (size_t)g->nl + 1);
        g->lk = tine_xrealloc_array(g->lk, cap, sizeof *g->lk);
        g->lv = tine_xrealloc_array(g->lv, cap, sizeof *g->lv);
        g->lw = tine_xrealloc_array(g->lw, cap, sizeof *g->lw);
        g->ld = tine_xrealloc_array(g->ld, cap, sizeof *g->ld);
        s->cap = (int)cap;
    }
    g->lk[g->nl] = e;
    g->lv[g->nl] = v;
    g->lw[g->nl] = NULL;
    g->ld[g->nl] = NULL;
    return g->nl++;
}

/* bind, with what tine_cg_index_i64 (llvm.c) reads for the variable: a loop's i64 counter w, or a
 * let's definition def. */
static int bind_index(sgen *s, const tine_expr_t *e, LLVMValueRef v, LLVMValueRef w, const tine_expr_t *def) {
    int mark = bind(s, e, v);
    s->g->lw[mark] = w;
    s->g->ld[mark] = def;
    return mark;
}

static void unbind(sgen *s, int mark) { s->g->nl = mark; }

static const tine_expr_t *buffer_key(sgen *s, const char *name, tine_type_t et) {
    return tine_load(s->ctx, name, et, tine_const_int(s->ctx, tine_type(TINE_INT, 32, 1), 0));
}

/* The data pointer of a buffer by name (the newest binding). */
static LLVMValueRef buffer_of(sgen *s, const char *name) {
    gen *g = s->g;
    for (int i = g->nl - 1; i >= 0; i--)
        if (g->lk[i]->op == TINE_OP_LOAD && !strcmp(tine_expr_name(g->lk[i]), name)) return g->lv[i];
    TINE_ASSERT(!"a store to a buffer without a pointer");
    return NULL;
}

/* An i64 value as the <1 x T> a scalar variable is. */
static LLVMValueRef scalar_vec(gen *g, LLVMValueRef v, tine_type_t t) {
    LLVMValueRef x = t.bits == 64 ? v : LLVMBuildTrunc(g->b, v, tine_cg_elem_type(g, t), "");
    return LLVMBuildInsertElement(g->b, LLVMGetPoison(LLVMVectorType(tine_cg_elem_type(g, t), 1)), x,
                                  LLVMConstInt(LLVMInt32TypeInContext(g->lc), 0, 0), "");
}

/* A one-lane integer expression's value as i64 (sign-extended). */
static LLVMValueRef scalar_i64(sgen *s, const tine_expr_t *e) {
    gen *g = s->g;
    LLVMValueRef v = LLVMBuildExtractElement(g->b, tine_cg_emit_dag(g, e), LLVMConstInt(s->i32, 0, 0), "");
    if (e->type.bits == 64) return v;
    return e->type.kind == TINE_UINT ? LLVMBuildZExt(g->b, v, s->i64, "") : LLVMBuildSExt(g->b, v, s->i64, "");
}

/* ---- statements ---------------------------------------------------------------------------- */

static LLVMBasicBlockRef block(sgen *s, const char *name) { return LLVMAppendBasicBlockInContext(s->g->lc, s->fn, name); }

/* Returns code (i32) from the function, freeing the live heap allocations first. */
static void emit_return_value(sgen *s, LLVMValueRef code) {
    gen *g = s->g;
    for (int i = s->nheap - 1; i >= 0; i--) LLVMBuildCall2(g->b, s->free_ty, s->free_fn, &s->heap[i], 1, "");
    LLVMBuildRet(g->b, code);
}

static void emit_return(sgen *s, int code) { emit_return_value(s, LLVMConstInt(s->i32, (unsigned long long)(int64_t)code, 1)); }

/* Continues in a new block when `fail` (i1) is false; else returns code, after writing
 * the failure's detail: the Assert `as` (its index and args' values), or -1 without one. */
static void fail_if(sgen *s, LLVMValueRef fail, int code, const tine_stmt *as) {
    gen *g = s->g;
    LLVMBasicBlockRef bad = block(s, "fail"), write = block(s, "detail"), ret = block(s, "refuse"), ok = block(s, "ok");
    LLVMBuildCondBr(g->b, fail, bad, ok);
    LLVMPositionBuilderAtEnd(g->b, bad);
    LLVMBuildCondBr(g->b, LLVMBuildIsNull(g->b, s->detail, ""), ret, write);
    LLVMPositionBuilderAtEnd(g->b, write);
    int n = as ? as->assert_.nargs : 0;
    for (int i = 0; i <= n; i++) {
        LLVMValueRef v = i == 0 ? LLVMConstInt(s->i64, (unsigned long long)(as ? s->c->nasserts : -1), 1)
                                : scalar_i64(s, as->assert_.args[i - 1]);
        LLVMValueRef idx = LLVMConstInt(s->i64, (unsigned long long)i, 0);
        LLVMBuildStore(g->b, v, LLVMBuildGEP2(g->b, s->i64, s->detail, &idx, 1, ""));
    }
    LLVMBuildBr(g->b, ret);
    LLVMPositionBuilderAtEnd(g->b, ret);
    emit_return(s, code);
    LLVMPositionBuilderAtEnd(g->b, ok);
    if (!as) return;
    tine_compiled_t *c = s->c; /* its message, for the JIT's error */
    c->asserts = tine_xrealloc_array(c->asserts, (size_t)c->nasserts + 1, sizeof *c->asserts);
    c->asserts[c->nasserts].code = code;
    c->asserts[c->nasserts++].message = tine_strdup(as->assert_.message);
}

static void emit_stmt(sgen *s, const tine_stmt *st);
static void emit_parallel(sgen *s, const tine_stmt *st, LLVMValueRef lo, LLVMValueRef extent);

/* The loop st from lo while < hi (i64), by its step. */
static void emit_serial(sgen *s, const tine_stmt *st, LLVMValueRef lo, LLVMValueRef hi) {
    gen *g = s->g;
    /* blocks named after the loop ("out.x.vec.body"; a partitioned loop's parts are
       "out.x.pro", "out.x" and "out.x.epi"): verbose assembly prints them on the labels,
       and tests/test_dense_loads.sh finds the steady-state loops by them */
    char hn[160], bn[160], dn[160];
    const char *ln = st->loop.name ? st->loop.name : "loop", *kind = st->loop.loop == TINE_LOOP_VECTORIZED ? ".vec" : "";
    snprintf(hn, sizeof hn, "%s%s.head", ln, kind);
    snprintf(bn, sizeof bn, "%s%s.body", ln, kind);
    snprintf(dn, sizeof dn, "%s%s.done", ln, kind);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b), head = block(s, hn), body = block(s, bn), exit = block(s, dn);
    LLVMBuildBr(g->b, head);
    LLVMPositionBuilderAtEnd(g->b, head);
    LLVMValueRef i = LLVMBuildPhi(g->b, s->i64, st->loop.name ? st->loop.name : "i");
    LLVMAddIncoming(i, &lo, &pre, 1);
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, i, hi, ""), body, exit);
    LLVMPositionBuilderAtEnd(g->b, body);
    int mark = bind_index(s, st->loop.var, scalar_vec(g, i, st->loop.var->type), i, NULL);
    emit_stmt(s, st->loop.body);
    unbind(s, mark);
    LLVMValueRef next = LLVMBuildAdd(g->b, i, LLVMConstInt(s->i64, (unsigned long long)st->loop.step, 0), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
    LLVMAddIncoming(i, &next, &latch, 1);
    LLVMBuildBr(g->b, head);
    LLVMPositionBuilderAtEnd(g->b, exit);
}

static void emit_for(sgen *s, const tine_stmt *st) {
    gen *g = s->g;
    LLVMValueRef lo = scalar_i64(s, st->loop.min);
    if (st->loop.loop == TINE_LOOP_UNROLLED) { /* the body once per iteration, the variable known */
        int64_t n = (int64_t)(tine_i128)tine_const_value(st->loop.extent, 0);
        for (int64_t i = 0; i < n; i++) {
            LLVMValueRef x = LLVMBuildAdd(g->b, lo, LLVMConstInt(s->i64, (unsigned long long)i, 0), "");
            int mark = bind_index(s, st->loop.var, scalar_vec(g, x, st->loop.var->type), x, NULL);
            emit_stmt(s, st->loop.body);
            unbind(s, mark);
        }
        return;
    }
    LLVMValueRef extent = scalar_i64(s, st->loop.extent);
    /* a parallel loop inside another one's body runs serially: the outer loop's chunks
       already occupy the threads */
    if (st->loop.loop == TINE_LOOP_PARALLEL && !s->in_parallel) {
        emit_parallel(s, st, lo, extent);
        return;
    }
    /* serial, vectorized (by its step), nested parallel: from min while < min + extent */
    emit_serial(s, st, lo, LLVMBuildAdd(g->b, lo, extent, ""));
}

/* buffer[index] = value: consecutive lanes as one vector store at lane 0's index, one
 * lane (or lanes all at one address: the last lane's value) as a scalar store, anything
 * else as a scatter. llvm.masked.scatter writes overlapping lanes in lane order (LangRef:
 * "ordered from least-significant to most-significant element"), so later lanes win on
 * equal addresses, as tine's interpreter writes them. */
static void emit_store(sgen *s, const tine_stmt *st) {
    gen *g = s->g;
    tine_type_t t = st->store.value->type;
    LLVMTypeRef et = tine_cg_elem_type(g, t);
    LLVMValueRef base = buffer_of(s, st->store.buffer);
    LLVMValueRef idx = tine_cg_emit_dag(g, st->store.index), val = tine_cg_emit_dag(g, st->store.value);
    int64_t stride;
    bool known = tine_cg_lane_stride(st->store.index, &stride);
    if (t.lanes == 1 || (known && (stride == 0 || stride == 1))) {
        bool last = t.lanes > 1 && stride == 0;
        LLVMValueRef i0 = tine_cg_index_i64(g, st->store.index, idx);
        LLVMValueRef p = LLVMBuildGEP2(g->b, et, base, &i0, 1, "");
        LLVMValueRef v = val;
        if (t.lanes == 1 || last)
            v = LLVMBuildExtractElement(g->b, val, LLVMConstInt(s->i32, (unsigned long long)(t.lanes - 1), 0), "");
        LLVMSetAlignment(LLVMBuildStore(g->b, v, p), 1);
        return;
    }
    LLVMValueRef ptrs = LLVMBuildGEP2(g->b, et, base, &idx, 1, "");
    LLVMTypeRef types[2] = {LLVMTypeOf(val), LLVMTypeOf(ptrs)};
    LLVMValueRef args[4] = {val, ptrs, LLVMConstInt(s->i32, 1, 0),
                            LLVMConstAllOnes(LLVMVectorType(LLVMInt1TypeInContext(g->lc), t.lanes))};
    tine_cg_intrinsic(g, "llvm.masked.scatter", types, 2, args, 4);
}

/* Scratch of `size` elements, zeroed (as the statement interpreter gives it), bound by name
 * for the body: a small constant size is an alloca of the entry block (LLVM promotes
 * accumulators to registers and removes the zeroing their first store overwrites); any
 * other size comes from calloc, and a failed allocation returns -1. */
static void emit_allocate(sgen *s, const tine_stmt *st) {
    gen *g = s->g;
    tine_type_t t = st->alloc.type;
    LLVMTypeRef et = tine_cg_elem_type(g, t);
    int64_t esz = t.kind == TINE_BOOL ? 1 : t.bits / 8;
    const tine_expr_t *n = st->alloc.size;
    LLVMValueRef p, raw = NULL;
    bool heap = true;
    if (n->op == TINE_OP_CONST) {
        int64_t count = (int64_t)(tine_i128)tine_const_value(n, 0);
        if (count < 1) count = 1;
        if (count * esz <= 4096) {
            p = LLVMBuildArrayAlloca(s->entry, et, LLVMConstInt(s->i64, (unsigned long long)count, 0), st->alloc.buffer);
            LLVMSetAlignment(p, 64);
            LLVMBuildMemSet(g->b, p, LLVMConstInt(LLVMInt8TypeInContext(g->lc), 0, 0),
                            LLVMConstInt(s->i64, (unsigned long long)(count * esz), 0), 64);
            heap = false;
        }
    }
    if (heap) {
        LLVMValueRef count = scalar_i64(s, n);
        LLVMValueRef one = LLVMConstInt(s->i64, 1, 0);
        count = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, count, one, ""), one, count, "");
        /* 64 bytes more, the buffer from the first cache line boundary in it: calloc's
           16-byte alignment splits every other 32-byte vector across two lines */
        LLVMValueRef bytes = LLVMBuildAdd(g->b, LLVMBuildMul(g->b, count, LLVMConstInt(s->i64, (unsigned long long)esz, 0), ""),
                                          LLVMConstInt(s->i64, 64, 0), "");
        LLVMValueRef args[2] = {bytes, one};
        raw = LLVMBuildCall2(g->b, s->calloc_ty, s->calloc_fn, args, 2, st->alloc.buffer);
        fail_if(s, LLVMBuildIsNull(g->b, raw, ""), TINE_RUN_SCRATCH, NULL);
        LLVMValueRef addr = LLVMBuildPtrToInt(g->b, raw, s->i64, "");
        LLVMValueRef pad = LLVMBuildAnd(g->b, LLVMBuildSub(g->b, LLVMConstInt(s->i64, 0, 0), addr, ""), LLVMConstInt(s->i64, 63, 0), "");
        p = LLVMBuildGEP2(g->b, LLVMInt8TypeInContext(g->lc), raw, &pad, 1, "");
        TINE_PUSH(s->heap, s->nheap, s->capheap, raw);
    }
    int mark = bind(s, buffer_key(s, st->alloc.buffer, t), p);
    emit_stmt(s, st->alloc.body);
    unbind(s, mark);
    if (heap) { /* the body's Free marks the end of its use; the memory goes here */
        s->nheap--;
        LLVMBuildCall2(g->b, s->free_ty, s->free_fn, &raw, 1, "");
    }
}

static void emit_stmt(sgen *s, const tine_stmt *st) {
    if (!st) return;
    gen *g = s->g;
    switch (st->kind) {
    case TINE_S_FOR: emit_for(s, st); return;
    case TINE_S_LET: {
        int mark = bind_index(s, st->let.var, tine_cg_emit_dag(g, st->let.value), NULL, st->let.value);
        emit_stmt(s, st->let.body);
        unbind(s, mark);
        return;
    }
    case TINE_S_STORE: emit_store(s, st); return;
    case TINE_S_ALLOCATE: emit_allocate(s, st); return;
    case TINE_S_FREE: return; /* the Allocate frees after its body */
    case TINE_S_IF: {
        LLVMValueRef c = LLVMBuildExtractElement(g->b, tine_cg_emit_dag(g, st->if_.cond), LLVMConstInt(s->i32, 0, 0), "");
        LLVMBasicBlockRef yes = block(s, "then"), no = st->if_.else_ ? block(s, "else") : NULL, done = block(s, "endif");
        LLVMBuildCondBr(g->b, c, yes, no ? no : done);
        LLVMPositionBuilderAtEnd(g->b, yes);
        emit_stmt(s, st->if_.then_);
        LLVMBuildBr(g->b, done);
        if (no) {
            LLVMPositionBuilderAtEnd(g->b, no);
            emit_stmt(s, st->if_.else_);
            LLVMBuildBr(g->b, done);
        }
        LLVMPositionBuilderAtEnd(g->b, done);
        return;
    }
    case TINE_S_BLOCK:
        for (int i = 0; i < st->block.n; i++) emit_stmt(s, st->block.v[i]);
        return;
    case TINE_S_ASSERT: {
        LLVMValueRef c = LLVMBuildExtractElement(g->b, tine_cg_emit_dag(g, st->assert_.cond), LLVMConstInt(s->i32, 0, 0), "");
        fail_if(s, LLVMBuildNot(g->b, c, ""), st->assert_.code, st);
        return;
    }
    case TINE_S_EVALUATE: tine_cg_emit_dag(g, st->eval.value); return;
    }
    TINE_ASSERT(!"unknown statement");
}

/* ---- parallel loops ---------------------------------------------------------------------------- */

/* The leaves a statement reads: variables, and buffers by name (loads, stores). */
typedef struct {
    const tine_expr_t **var;
    const char **buf;
    int nvar, nbuf, capvar, capbuf;
    tine_ctx_t *ctx;
} uses;

static void use_buf(uses *u, const char *name) {
    for (int i = 0; i < u->nbuf; i++)
        if (!strcmp(u->buf[i], name)) return;
    TINE_PUSH(u->buf, u->nbuf, u->capbuf, name);
}

static void use_expr(uses *u, const tine_expr_t *e) {
    if (!e) return;
    uint32_t n;
    tine_expr_t **o = tine_topo(u->ctx, e, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (o[i]->op == TINE_OP_LOAD) use_buf(u, tine_expr_name(o[i]));
        if (o[i]->op != TINE_OP_VAR) continue;
        bool seen = false;
        for (int j = 0; j < u->nvar && !seen; j++) seen = u->var[j] == o[i];
        if (seen) continue;
        TINE_PUSH(u->var, u->nvar, u->capvar, o[i]);
    }
    free(o);
}

static void use_stmt(void *user, const tine_stmt *st) {
    uses *u = user;
    switch (st->kind) {
    case TINE_S_FOR: use_expr(u, st->loop.min), use_expr(u, st->loop.extent); break;
    case TINE_S_LET: use_expr(u, st->let.value); break;
    case TINE_S_STORE: use_buf(u, st->store.buffer), use_expr(u, st->store.index), use_expr(u, st->store.value); break;
    case TINE_S_ALLOCATE: use_expr(u, st->alloc.size); break;
    case TINE_S_IF: use_expr(u, st->if_.cond); break;
    case TINE_S_ASSERT: use_expr(u, st->assert_.cond); break;
    case TINE_S_EVALUATE: use_expr(u, st->eval.value); break;
    case TINE_S_FREE:
    case TINE_S_BLOCK: break;
    }
}

static bool uses_leaf(const uses *u, const tine_expr_t *key) {
    if (key->op == TINE_OP_LOAD) {
        for (int i = 0; i < u->nbuf; i++)
            if (!strcmp(u->buf[i], tine_expr_name(key))) return true;
        return false;
    }
    for (int i = 0; i < u->nvar; i++)
        if (u->var[i] == key) return true;
    return false;
}

/* Whether binding i of the table is shadowed by a newer binding of the same leaf. */
static bool shadowed(const gen *g, int i) {
    for (int j = i + 1; j < g->nl; j++)
        if (g->lk[j] == g->lk[i] || (g->lk[i]->op == TINE_OP_LOAD && g->lk[j]->op == TINE_OP_LOAD &&
                                     !strcmp(tine_expr_name(g->lk[i]), tine_expr_name(g->lk[j]))))
            return true;
    return false;
}

/* The parallel loop st over [lo, lo + extent) (i64 values of the caller): its body
 * outlined (as the file's note says), then the runtime called; a chunk's failure code
 * is returned from the caller as an Assert's would be. */
static void emit_parallel(sgen *s, const tine_stmt *st, LLVMValueRef lo, LLVMValueRef extent) {
    gen *g = s->g;
    TINE_ASSERT(st->loop.step == 1);
    /* the closure: the bindings in view that the body reads */
    uses u = {.ctx = s->ctx};
    tine_stmt_visit(st->loop.body, use_stmt, &u);
    int ncap = 0;
    const tine_expr_t **ck = tine_xrealloc_array(NULL, (size_t)g->nl + 1, sizeof *ck);
    LLVMValueRef *cv = tine_xrealloc_array(NULL, (size_t)g->nl + 1, sizeof *cv);
    LLVMTypeRef *ct = tine_xrealloc_array(NULL, (size_t)g->nl + 1, sizeof *ct);
    for (int i = 0; i < g->nl; i++)
        if (g->lk[i] != st->loop.var && uses_leaf(&u, g->lk[i]) && !shadowed(g, i)) {
            ck[ncap] = g->lk[i];
            cv[ncap] = g->lv[i];
            ct[ncap++] = LLVMTypeOf(g->lv[i]);
        }
    free(u.var);
    free(u.buf);
    LLVMTypeRef cty = LLVMStructTypeInContext(g->lc, ct, (unsigned)ncap, 0);
    LLVMValueRef clo = LLVMBuildAlloca(s->entry, cty, "closure");
    for (int i = 0; i < ncap; i++) LLVMBuildStore(g->b, cv[i], LLVMBuildStructGEP2(g->b, cty, clo, (unsigned)i, ""));

    /* the outlined body, emitted with a state of its own: its function, its entry
       block, an empty table of leaves (the caller's values are not its values) and its
       own heap allocations */
    sgen saved = *s;
    const tine_expr_t **saved_lk = g->lk;
    LLVMValueRef *saved_lv = g->lv, *saved_lw = g->lw;
    const tine_expr_t **saved_ld = g->ld;
    LLVMBuilderRef saved_b = g->b;
    int saved_nl = g->nl;
    char name[160];
    snprintf(name, sizeof name, "%s.par%d", LLVMGetValueName(s->fn), s->nouter++);
    LLVMTypeRef params[3] = {s->ptr, s->i64, s->i64};
    LLVMValueRef fn = LLVMAddFunction(g->m, name, LLVMFunctionType(s->i32, params, 3, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    s->fn = fn;
    s->in_parallel = true;
    /* the caller's detail pointer is not this function's value, and chunks fail at once:
       a failure here reports its code only (the JIT finds the message by code) */
    s->detail = LLVMConstNull(s->ptr);
    s->heap = NULL;
    s->nheap = s->capheap = 0;
    s->cap = 0;
    g->lk = NULL;
    g->lv = NULL;
    g->lw = NULL;
    g->ld = NULL;
    g->nl = 0;
    LLVMBasicBlockRef entry = block(s, "entry"), start = block(s, "start");
    s->entry = LLVMCreateBuilderInContext(g->lc);
    LLVMPositionBuilderAtEnd(s->entry, entry);
    g->b = LLVMCreateBuilderInContext(g->lc);
    LLVMPositionBuilderAtEnd(g->b, start);
    LLVMValueRef in = LLVMGetParam(fn, 0);
    for (int i = 0; i < ncap; i++)
        bind(s, ck[i], LLVMBuildLoad2(g->b, ct[i], LLVMBuildStructGEP2(g->b, cty, in, (unsigned)i, ""), ""));
    emit_serial(s, st, LLVMGetParam(fn, 1), LLVMGetParam(fn, 2));
    LLVMBuildRet(g->b, LLVMConstInt(s->i32, 0, 0));
    LLVMBuildBr(s->entry, start);
    LLVMDisposeBuilder(s->entry);
    LLVMDisposeBuilder(g->b);
    free(g->lk);
    free(g->lv);
    free(g->lw);
    free(g->ld);
    free(s->heap);
    int nouter = s->nouter;
    *s = saved;
    s->nouter = nouter;
    g->lk = saved_lk;
    g->lv = saved_lv;
    g->lw = saved_lw;
    g->ld = saved_ld;
    g->nl = saved_nl;
    g->b = saved_b;
    free(ck);
    free(cv);
    free(ct);

    /* the call, and a chunk's failure returned */
    LLVMValueRef rt = tine_cg_parallel_runtime(g->m);
    LLVMValueRef args[4] = {fn, clo, lo, extent};
    LLVMValueRef rc = LLVMBuildCall2(g->b, LLVMGlobalGetValueType(rt), rt, args, 4, "");
    LLVMBasicBlockRef bad = block(s, "chunk.fail"), ok = block(s, "chunk.ok");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, rc, LLVMConstInt(s->i32, 0, 0), ""), bad, ok);
    LLVMPositionBuilderAtEnd(g->b, bad);
    emit_return_value(s, rc);
    LLVMPositionBuilderAtEnd(g->b, ok);
}

/* ---- the stage's function -------------------------------------------------------------------- */
/* ---- the kernel's function ------------------------------------------------------------------- */

/* An i64 value as the <1 x T> variable var is, bound to it. */
static void bind_scalar(sgen *s, const tine_expr_t *var, LLVMValueRef v64) {
    bind(s, var, scalar_vec(s->g, v64, var->type));
}

/* The variables of tine_call_var for one caller's buffer p (a tine_buffer_t *, its fields
 * at the offsets of buffer_abi.h), and its data by name. A NULL buffer reads a zeroed one instead, so nothing here reads through NULL;
 * the plan refuses the call before its values matter. */
static LLVMValueRef bind_caller_buffer(sgen *s, LLVMValueRef p, LLVMValueRef zero, const char *name, tine_type_t et, int dims) {
    gen *g = s->g;
    LLVMBuilderRef b = g->b;
    tine_ctx_t *ctx = s->ctx;
    LLVMValueRef given = LLVMBuildIsNotNull(b, p, ""), q = LLVMBuildSelect(b, given, p, zero, "");
    LLVMTypeRef i8 = LLVMInt8TypeInContext(g->lc);
    _Static_assert(TINE_BUFFER_OFF_data == 0, "data is where p points");
    LLVMValueRef data = LLVMBuildLoad2(b, s->ptr, q, "");
#define FIELD(off, ty) LLVMBuildLoad2(b, (ty), LLVMBuildGEP2(b, i8, q, (LLVMValueRef[]){LLVMConstInt(s->i64, (off), 0)}, 1, ""), "")
    bind_scalar(s, tine_call_var(ctx, name, TINE_CALL_GIVEN, 0), LLVMBuildZExt(b, given, s->i64, ""));
    bind_scalar(s, tine_call_var(ctx, name, TINE_CALL_DATA, 0), LLVMBuildZExt(b, LLVMBuildIsNotNull(b, data, ""), s->i64, ""));
    bind_scalar(s, tine_call_var(ctx, name, TINE_CALL_DIMS, 0), LLVMBuildSExt(b, FIELD(TINE_BUFFER_OFF_dims, s->i32), s->i64, ""));
    bind_scalar(s, tine_call_var(ctx, name, TINE_CALL_ADDR, 0), LLVMBuildPtrToInt(b, data, s->i64, ""));
    for (int d = 0; d < dims; d++) {
        bind_scalar(s, tine_call_var(ctx, name, TINE_CALL_MIN, d), FIELD(TINE_BUFFER_OFF_min + 8 * (unsigned)d, s->i64));
        bind_scalar(s, tine_call_var(ctx, name, TINE_CALL_EXTENT, d), FIELD(TINE_BUFFER_OFF_extent + 8 * (unsigned)d, s->i64));
        bind_scalar(s, tine_call_var(ctx, name, TINE_CALL_STRIDE, d), FIELD(TINE_BUFFER_OFF_stride + 8 * (unsigned)d, s->i64));
    }
#undef FIELD
    bind(s, buffer_key(s, name, et), data);
    return data;
}

/* The base a pointer is computed from through GEPs. */
static LLVMValueRef pointer_base(LLVMValueRef p) {
    while (LLVMIsAGetElementPtrInst(p)) p = LLVMGetOperand(p, 0);
    return p;
}

/* Why: a kernel's inputs are read-only while it runs and never overlap its output (the
 * call is refused when they do, tine.h), and its scratch is its own. LLVM cannot see
 * that through the pointers it loads from the buffers, so a load of an input that is the
 * same in every iteration (conv3x3a16's mask, camera_pipe's colour matrix) stayed in the
 * loop, behind the loop's stores. Every load from an input's data gets the alias scope
 * "tine.inputs" and every store the promise not to touch it (scoped noalias metadata),
 * which lets LICM move such loads out. Loads inside parallel tasks read their bases from
 * a closure and are left alone. */
static void mark_input_loads(sgen *s, const LLVMValueRef *inputs, int nin) {
    LLVMContextRef lc = s->g->lc;
    LLVMMetadataRef dom_ops[1] = {LLVMMDStringInContext2(lc, "tine.domain", 11)};
    LLVMMetadataRef dom = LLVMMDNodeInContext2(lc, dom_ops, 1);
    LLVMMetadataRef scope_ops[2] = {LLVMMDStringInContext2(lc, "tine.inputs", 11), dom};
    LLVMMetadataRef scope = LLVMMDNodeInContext2(lc, scope_ops, 2);
    LLVMValueRef list = LLVMMetadataAsValue(lc, LLVMMDNodeInContext2(lc, &scope, 1));
    unsigned k_scope = LLVMGetMDKindIDInContext(lc, "alias.scope", 11), k_noalias = LLVMGetMDKindIDInContext(lc, "noalias", 7);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(s->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (LLVMIsAStoreInst(in)) {
                LLVMSetMetadata(in, k_noalias, list);
            } else if (LLVMIsALoadInst(in)) {
                LLVMValueRef base = pointer_base(LLVMGetOperand(in, 0));
                for (int i = 0; i < nin; i++)
                    if (base == inputs[i]) {
                        LLVMSetMetadata(in, k_scope, list);
                        break;
                    }
            }
        }
}

bool tine_cg_build_kernel(tine_compiled_t *cc, LLVMModuleRef m, LLVMContextRef lc, tine_selection_t sel,
                          const tine_stmt *body) {
    tine_kernel_t *k = cc->k;
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    gen g = {.ctx = ctx, .lc = lc, .sel = sel, .m = m, .features = tine_target_features(ctx, cc->target, NULL)};
    sgen s = {.g = &g, .ctx = ctx, .c = cc};
    s.i64 = LLVMInt64TypeInContext(lc);
    s.i32 = LLVMInt32TypeInContext(lc);
    s.ptr = LLVMPointerTypeInContext(lc, 0);
    LLVMTypeRef params[2] = {s.ptr, s.ptr};
    s.fn = LLVMAddFunction(m, "tine_run", LLVMFunctionType(s.i32, params, 2, 0));
    LLVMTypeRef cargs[2] = {s.i64, s.i64};
    s.calloc_ty = LLVMFunctionType(s.ptr, cargs, 2, 0);
    s.free_ty = LLVMFunctionType(LLVMVoidTypeInContext(lc), &s.ptr, 1, 0);
    if (!(s.calloc_fn = LLVMGetNamedFunction(m, "calloc"))) s.calloc_fn = LLVMAddFunction(m, "calloc", s.calloc_ty);
    if (!(s.free_fn = LLVMGetNamedFunction(m, "free"))) s.free_fn = LLVMAddFunction(m, "free", s.free_ty);
    LLVMBasicBlockRef entry = block(&s, "entry"), start = block(&s, "start");
    s.entry = LLVMCreateBuilderInContext(lc);
    LLVMPositionBuilderAtEnd(s.entry, entry);
    g.b = LLVMCreateBuilderInContext(lc);
    LLVMPositionBuilderAtEnd(g.b, start);
    s.detail = LLVMGetParam(s.fn, 1);
    /* the caller's values, as tine_call_bind binds them */
    LLVMTypeRef zty = LLVMArrayType(s.i64, TINE_BUFFER_SIZE / 8); /* a zeroed tine_buffer_t */
    LLVMValueRef zero = LLVMAddGlobal(m, zty, "tine.no_buffer");
    LLVMSetInitializer(zero, LLVMConstNull(zty));
    LLVMSetGlobalConstant(zero, 1);
    LLVMSetLinkage(zero, LLVMPrivateLinkage);
    LLVMValueRef argv = LLVMGetParam(s.fn, 0);
    int nin = tine_kernel_ninputs(k), np = tine_kernel_nparams(k);
    LLVMValueRef *raw = tine_xrealloc_array(NULL, (size_t)(nin + np + 1), sizeof *raw);
    for (int i = 0; i < nin + np + 1; i++) {
        LLVMValueRef idx = LLVMConstInt(s.i64, (unsigned long long)i, 0);
        raw[i] = LLVMBuildLoad2(g.b, s.ptr, LLVMBuildGEP2(g.b, s.ptr, argv, &idx, 1, ""), "");
    }
    bind_caller_buffer(&s, raw[nin + np], zero, tine_kernel_output_name(k), tine_kernel_output_type(k), tine_kernel_dims(k));
    LLVMValueRef *in_data = tine_xrealloc_array(NULL, (size_t)(nin + 1), sizeof *in_data);
    for (int i = 0; i < nin; i++) {
        tine_type_t et;
        int dims;
        const char *name = tine_kernel_input(k, i, &et, &dims);
        in_data[i] = bind_caller_buffer(&s, raw[i], zero, name, et, dims);
    }
    for (int i = 0; i < np; i++) {
        tine_type_t t;
        const char *name = tine_kernel_param(k, i, &t);
        int bits = t.kind == TINE_BOOL ? 8 : t.bits; /* bool: one byte */
        LLVMValueRef v = LLVMBuildLoad2(g.b, LLVMIntTypeInContext(lc, (unsigned)bits), raw[nin + i], "");
        if (t.kind == TINE_BOOL) v = LLVMBuildZExt(g.b, LLVMBuildIsNotNull(g.b, v, ""), s.i64, "");
        else if (bits < 64) v = t.kind == TINE_INT ? LLVMBuildSExt(g.b, v, s.i64, "") : LLVMBuildZExt(g.b, v, s.i64, "");
        bind_scalar(&s, tine_kernel_param_var(ctx, name, t), v);
    }
    free(raw);
    emit_stmt(&s, body);
    mark_input_loads(&s, in_data, nin);
    free(in_data);
    LLVMBuildRet(g.b, LLVMConstInt(s.i32, 0, 0));
    LLVMBuildBr(s.entry, start);
    LLVMDisposeBuilder(s.entry);
    LLVMDisposeBuilder(g.b);
    free(g.lk);
    free(g.lv);
    free(g.lw);
    free(g.ld);
    free(s.heap);
    return tine_cg_verify_module(ctx, m);
}
