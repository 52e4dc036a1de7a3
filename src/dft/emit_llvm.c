/* emit_llvm.c — a DFT codelet as an LLVM function, FFTW's layout:
 *
 *   void NAME(const T *in, T *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist,
 *             ptrdiff_t ostride, ptrdiff_t odist)
 *
 * Element j of transform t is the complex number at in[2 * (t * idist + j * istride)]. The
 * program computes v transforms at once, lane l holding transform b + l of the block that
 * starts at b: an input is gathered when the program first reads it (the v complex numbers
 * of element j loaded as pairs and split into a vector of real parts and one of imaginary
 * parts), an output scattered when the program stores it. The last block, when howmany is
 * not a multiple of v, repeats the last transform in the lanes past the end: they load
 * and store that transform's own elements and values, so nothing outside the arrays is
 * touched and every store writes what the transform's own lane writes. The values are
 * emitted node by node in the program's order (tine_cg_emit_node), so LLVM receives the
 * schedule; its own machine scheduler may still move instructions.
 */
#include "dft.h"

#include "../codegen/codegen.h"

typedef struct {
    gen g;
    const dft_codelet *c;
    LLVMTypeRef T, i64, ptr, pairT;
    LLVMValueRef in, out, howmany, is2, id2, os2, od2;
    LLVMValueRef *inb, *outb; /* per lane: the block's transform's first element */
    LLVMValueRef *val;        /* node id -> value */
    uint32_t nval;
    bool *gathered, *stored;  /* per element / per output element */
    LLVMValueRef *re_out, *im_out;
    bool in_rows, out_rows;   /* this body's layout: unit strides, read and written by rows */
    int *chunk_left;          /* per output chunk: parts still to store */
    int nchunks, *chunk_off;  /* rows: chunk q holds floats chunk_off[q] .. + v of a transform */
} em;

static LLVMValueRef i64c(em *e, long long v) { return LLVMConstInt(e->i64, (unsigned long long)v, 1); }

static LLVMValueRef shuffle(em *e, LLVMValueRef a, LLVMValueRef b, const int *idx, int n) {
    LLVMValueRef *m = tine_xmalloc(sizeof *m * (size_t)n);
    for (int i = 0; i < n; i++) m[i] = LLVMConstInt(LLVMInt32TypeInContext(e->g.lc), (unsigned)idx[i], 0);
    LLVMValueRef r = LLVMBuildShuffleVector(e->g.b, a, b, LLVMConstVector(m, (unsigned)n), "");
    free(m);
    return r;
}

/* Element j of the block's v transforms: v loaded pairs joined, then split by part. */
static void gather(em *e, int j, LLVMValueRef *re, LLVMValueRef *im) {
    int v = e->c->v;
    LLVMValueRef off = LLVMBuildMul(e->g.b, e->is2, i64c(e, j), "");
    LLVMValueRef *w = tine_xmalloc(sizeof *w * (size_t)v);
    for (int l = 0; l < v; l++) {
        LLVMValueRef p = LLVMBuildGEP2(e->g.b, e->T, e->inb[l], &off, 1, "");
        w[l] = LLVMBuildLoad2(e->g.b, e->pairT, p, "");
        LLVMSetAlignment(w[l], (unsigned)(e->c->elem.bits / 8));
    }
    int idx[128];
    for (int width = 2; width < 2 * v; width *= 2) { /* join neighbours: 2, 4, ... lanes */
        for (int i = 0; i < 2 * width; i++) idx[i] = i;
        for (int l = 0; l < v * 2 / (2 * width); l++) w[l] = shuffle(e, w[2 * l], w[2 * l + 1], idx, 2 * width);
    }
    for (int i = 0; i < v; i++) idx[i] = 2 * i;
    *re = shuffle(e, w[0], w[0], idx, v);
    for (int i = 0; i < v; i++) idx[i] = 2 * i + 1;
    *im = shuffle(e, w[0], w[0], idx, v);
    free(w);
}

static void scatter(em *e, int k, LLVMValueRef re, LLVMValueRef im) {
    int v = e->c->v, idx[128];
    for (int i = 0; i < v; i++) idx[2 * i] = i, idx[2 * i + 1] = v + i;
    LLVMValueRef w = shuffle(e, re, im, idx, 2 * v);
    LLVMValueRef off = LLVMBuildMul(e->g.b, e->os2, i64c(e, k), "");
    for (int l = 0; l < v; l++) {
        int two[2] = {2 * l, 2 * l + 1};
        LLVMValueRef pair = shuffle(e, w, w, two, 2);
        LLVMValueRef p = LLVMBuildGEP2(e->g.b, e->T, e->outb[l], &off, 1, "");
        LLVMValueRef st = LLVMBuildStore(e->g.b, pair, p);
        LLVMSetAlignment(st, (unsigned)(e->c->elem.bits / 8));
    }
}

/* x[r][c] -> x[c][r] for v vectors of v lanes, by log2 v stages of two-vector shuffles:
 * stage t swaps bit t of the row with bit t of the lane. */
static void transpose(em *e, LLVMValueRef *x, int v) {
    int ma[64], mb[64];
    for (int g = 1; g < v; g *= 2) {
        for (int c = 0; c < v; c++) {
            ma[c] = (c & g) ? v + c - g : c;
            mb[c] = (c & g) ? v + c : c + g;
        }
        for (int r = 0; r < v; r++) {
            if (r & g) continue;
            LLVMValueRef a = x[r], b = x[r + g];
            x[r] = shuffle(e, a, b, ma, v);
            x[r + g] = shuffle(e, a, b, mb, v);
        }
    }
}

/* Chunk q of the block's transforms read by rows (unit stride: element j's parts are
 * floats 2j, 2j + 1 of its transform): v rows of v floats, transposed into the v values
 * of the chunk's v / 2 elements, both parts. */
static void gather_rows(em *e, int q, LLVMValueRef *vals) {
    int v = e->c->v;
    LLVMTypeRef vt = LLVMVectorType(e->T, (unsigned)v);
    LLVMValueRef off = i64c(e, e->chunk_off[q]);
    for (int l = 0; l < v; l++) {
        LLVMValueRef p = LLVMBuildGEP2(e->g.b, e->T, e->inb[l], &off, 1, "");
        vals[l] = LLVMBuildLoad2(e->g.b, vt, p, "");
        LLVMSetAlignment(vals[l], (unsigned)(e->c->elem.bits / 8));
    }
    transpose(e, vals, v);
}

static void scatter_rows(em *e, int q, LLVMValueRef *vals) {
    int v = e->c->v;
    transpose(e, vals, v);
    LLVMValueRef off = i64c(e, e->chunk_off[q]);
    for (int l = 0; l < v; l++) {
        LLVMValueRef p = LLVMBuildGEP2(e->g.b, e->T, e->outb[l], &off, 1, "");
        LLVMValueRef st = LLVMBuildStore(e->g.b, vals[l], p);
        LLVMSetAlignment(st, (unsigned)(e->c->elem.bits / 8));
    }
}

static int input_index(const tine_tprog *p, const tine_expr_t *x) {
    for (int i = 0; i < p->ninputs; i++)
        if (p->inputs[i] == x) return i;
    return -1;
}

/* The program's items in order: inputs gathered at their first read, values emitted, each
 * output element scattered once both its parts are stored. */
static void body(em *e) {
    const dft_codelet *c = e->c;
    const tine_tprog *p = c->prog;
    memset(e->gathered, 0, sizeof *e->gathered * (size_t)c->n);
    memset(e->stored, 0, sizeof *e->stored * (size_t)c->n * 2);
    memset(e->val, 0, sizeof *e->val * e->nval);
    for (int q = 0; q < e->nchunks; q++) e->chunk_left[q] = c->v;
    for (int i = 0; i < p->n; i++) {
        const tine_tprog_item *it = &p->order[i];
        const tine_expr_t *x = it->e;
        if (it->store >= 0) {
            int k = c->out_elem[it->store], part = c->out_part[it->store];
            (part ? e->im_out : e->re_out)[k] = e->val[x->id];
            e->stored[2 * k + part] = true;
            if (e->out_rows) { /* a chunk is written once all its values are there */
                int pos = 2 * k + part;
                for (int q = 0; q < e->nchunks; q++) {
                    if (pos < e->chunk_off[q] || pos >= e->chunk_off[q] + c->v || --e->chunk_left[q]) continue;
                    LLVMValueRef vals[64];
                    for (int f = 0; f < c->v; f++) {
                        int at = e->chunk_off[q] + f;
                        vals[f] = at % 2 ? e->im_out[at / 2] : e->re_out[at / 2];
                    }
                    scatter_rows(e, q, vals);
                }
            } else if (e->stored[2 * k] && e->stored[2 * k + 1]) {
                scatter(e, k, e->re_out[k], e->im_out[k]);
            }
            continue;
        }
        if (e->val[x->id]) continue;
        if (x->op == TINE_OP_VAR) {
            int q = input_index(p, x);
            TINE_ASSERT(q >= 0);
            int j = c->in_elem[q];
            TINE_ASSERT(!e->gathered[j]);
            if (e->in_rows) {
                int ch = 0;
                while (2 * j >= e->chunk_off[ch] + c->v) ch++;
                LLVMValueRef vals[64];
                gather_rows(e, ch, vals);
                for (int r = 0; r < p->ninputs; r++) {
                    int pos = 2 * c->in_elem[r] + c->in_part[r] - e->chunk_off[ch];
                    if (pos >= 0 && pos < c->v && !e->gathered[c->in_elem[r]]) e->val[p->inputs[r]->id] = vals[pos];
                }
                for (int f = 0; f < c->v; f++) e->gathered[(e->chunk_off[ch] + f) / 2] = true;
                continue;
            }
            LLVMValueRef re, im;
            gather(e, j, &re, &im);
            e->gathered[j] = true;
            for (int r = 0; r < p->ninputs; r++)
                if (c->in_elem[r] == j) e->val[p->inputs[r]->id] = c->in_part[r] ? im : re;
            continue;
        }
        LLVMValueRef ov[TINE_INSN_MAX_OPS + 4];
        TINE_ASSERT(x->nops <= TINE_INSN_MAX_OPS + 4);
        for (int k = 0; k < x->nops; k++) {
            ov[k] = e->val[x->ops[k]->id];
            if (!ov[k]) ov[k] = e->val[x->ops[k]->id] = tine_cg_emit_node(&e->g, x->ops[k], NULL); /* a constant */
        }
        e->val[x->id] = tine_cg_emit_node(&e->g, x, ov);
    }
}

/* The loop over the blocks of v transforms for one layout of the body; returns its first
 * block (entered with the block index 0). */
static LLVMBasicBlockRef block_loop(em *e, LLVMValueRef fn, LLVMBasicBlockRef done, LLVMValueRef last, bool in_rows,
                                    bool out_rows) {
    const dft_codelet *c = e->c;
    LLVMBuilderRef b = e->g.b;
    LLVMBasicBlockRef pre = LLVMAppendBasicBlockInContext(e->g.lc, fn, "pre");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(e->g.lc, fn, in_rows ? (out_rows ? "rows" : "rows_in") : out_rows ? "rows_out" : "pairs");
    LLVMPositionBuilderAtEnd(b, pre);
    LLVMBuildBr(b, loop);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef blk = LLVMBuildPhi(b, e->i64, "b");
    int v = c->v;
    for (int l = 0; l < v; l++) {
        LLVMValueRef t = LLVMBuildAdd(b, blk, i64c(e, l), "");
        t = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, t, e->howmany, ""), t, last, "");
        LLVMValueRef oi = LLVMBuildMul(b, t, e->id2, ""), oo = LLVMBuildMul(b, t, e->od2, "");
        e->inb[l] = LLVMBuildGEP2(b, e->T, e->in, &oi, 1, "");
        e->outb[l] = LLVMBuildGEP2(b, e->T, e->out, &oo, 1, "");
    }
    e->in_rows = in_rows;
    e->out_rows = out_rows;
    body(e);
    LLVMValueRef next = LLVMBuildAdd(b, blk, i64c(e, v), "next");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, next, e->howmany, ""), loop, done);
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(b);
    LLVMValueRef zero = i64c(e, 0);
    LLVMAddIncoming(blk, &zero, &pre, 1);
    LLVMAddIncoming(blk, &next, &cur, 1);
    return pre;
}

/* The entry point NAME: the block loops (`blocks`, whose arrays are noalias) on in and out,
 * or, for an in-place transform (in == out), on a copy: each block of v transforms copied
 * to a buffer on the stack (contiguous), then transformed from it into out. */
static void entry_point(em *e, LLVMTypeRef fty, LLVMValueRef blocks) {
    const dft_codelet *c = e->c;
    LLVMContextRef lc = e->g.lc;
    LLVMBuilderRef b = e->g.b;
    LLVMValueRef fn = LLVMAddFunction(e->g.m, c->name, fty);
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(lc, nounwind, 0));
    LLVMValueRef p[7];
    for (int i = 0; i < 7; i++) p[i] = LLVMGetParam(fn, (unsigned)i);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(lc, fn, "entry");
    LLVMBasicBlockRef direct = LLVMAppendBasicBlockInContext(lc, fn, "direct");
    LLVMBasicBlockRef copy = LLVMAppendBasicBlockInContext(lc, fn, "in_place");
    LLVMBasicBlockRef elem = LLVMAppendBasicBlockInContext(lc, fn, "copy");
    LLVMBasicBlockRef call = LLVMAppendBasicBlockInContext(lc, fn, "call");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(lc, fn, "done");
    LLVMPositionBuilderAtEnd(b, entry);
    int v = c->v, n = c->n;
    LLVMTypeRef buf_t = LLVMArrayType(e->T, (unsigned)(2 * n * v));
    LLVMValueRef buf = LLVMBuildAlloca(b, buf_t, "buf");
    LLVMSetAlignment(buf, 64);
    LLVMValueRef same = LLVMBuildICmp(b, LLVMIntEQ, p[0], p[1], "");
    LLVMValueRef any = LLVMBuildICmp(b, LLVMIntSGT, p[2], i64c(e, 0), "");
    LLVMBuildCondBr(b, LLVMBuildAnd(b, same, any, ""), copy, direct);
    LLVMPositionBuilderAtEnd(b, direct);
    LLVMBuildCall2(b, fty, blocks, p, 7, "");
    LLVMBuildRetVoid(b);
    /* in place: block b0 .. b0 + v */
    LLVMPositionBuilderAtEnd(b, copy);
    LLVMValueRef b0 = LLVMBuildPhi(b, e->i64, "b0");
    LLVMValueRef last = LLVMBuildSub(b, p[2], i64c(e, 1), "");
    LLVMValueRef two = i64c(e, 2);
    LLVMValueRef is2 = LLVMBuildMul(b, p[3], two, ""), id2 = LLVMBuildMul(b, p[4], two, "");
    LLVMValueRef base[64];
    for (int l = 0; l < v; l++) {
        LLVMValueRef t = LLVMBuildAdd(b, b0, i64c(e, l), "");
        t = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, t, p[2], ""), t, last, "");
        LLVMValueRef off = LLVMBuildMul(b, t, id2, "");
        base[l] = LLVMBuildGEP2(b, e->T, p[0], &off, 1, "");
    }
    LLVMBuildBr(b, elem);
    LLVMPositionBuilderAtEnd(b, elem); /* element j of the v transforms, to buf[l][j] */
    LLVMValueRef j = LLVMBuildPhi(b, e->i64, "j");
    LLVMValueRef from = LLVMBuildMul(b, j, is2, "");
    for (int l = 0; l < v; l++) {
        LLVMValueRef src = LLVMBuildGEP2(b, e->T, base[l], &from, 1, "");
        LLVMValueRef x = LLVMBuildLoad2(b, e->pairT, src, "");
        LLVMSetAlignment(x, (unsigned)(c->elem.bits / 8));
        LLVMValueRef to = LLVMBuildAdd(b, LLVMBuildMul(b, j, two, ""), i64c(e, 2L * n * l), "");
        LLVMValueRef dst = LLVMBuildGEP2(b, e->T, buf, &to, 1, "");
        LLVMValueRef st = LLVMBuildStore(b, x, dst);
        LLVMSetAlignment(st, (unsigned)(c->elem.bits / 8));
    }
    LLVMValueRef j1 = LLVMBuildAdd(b, j, i64c(e, 1), "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, j1, i64c(e, n), ""), elem, call);
    LLVMValueRef zero = i64c(e, 0);
    LLVMAddIncoming(j, &zero, &copy, 1);
    LLVMAddIncoming(j, &j1, &elem, 1);
    LLVMPositionBuilderAtEnd(b, call);
    LLVMValueRef left = LLVMBuildSub(b, p[2], b0, "");
    LLVMValueRef cnt = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, left, i64c(e, v), ""), left, i64c(e, v), "");
    LLVMValueRef ooff = LLVMBuildMul(b, b0, LLVMBuildMul(b, p[6], two, ""), "");
    LLVMValueRef args[7] = {buf, LLVMBuildGEP2(b, e->T, p[1], &ooff, 1, ""), cnt, i64c(e, 1), i64c(e, n), p[5], p[6]};
    LLVMBuildCall2(b, fty, blocks, args, 7, "");
    LLVMValueRef b1 = LLVMBuildAdd(b, b0, i64c(e, v), "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, b1, p[2], ""), copy, done);
    LLVMAddIncoming(b0, &zero, &entry, 1);
    LLVMAddIncoming(b0, &b1, &call, 1);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMBuildRetVoid(b);
}

/* The function: one loop per layout the body has. Where the transform's floats fill
 * whole vectors (2n a multiple of v), a unit input stride is read by rows and transposed
 * (v loads and v log2 v shuffles for v / 2 elements of v transforms, against v loads and
 * about 2v shuffles per element gathered by pairs), and a unit output stride written
 * alike; the strides are tested once per call. */
static LLVMModuleRef build(em *e) {
    const dft_codelet *c = e->c;
    LLVMContextRef lc = e->g.lc;
    e->g.m = LLVMModuleCreateWithNameInContext("tine_dft", lc);
    e->T = c->elem.bits == 64 ? LLVMDoubleTypeInContext(lc) : LLVMFloatTypeInContext(lc);
    e->i64 = LLVMInt64TypeInContext(lc);
    e->ptr = LLVMPointerTypeInContext(lc, 0);
    e->pairT = LLVMVectorType(e->T, 2);
    LLVMTypeRef params[7] = {e->ptr, e->ptr, e->i64, e->i64, e->i64, e->i64, e->i64};
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(lc), params, 7, 0);
    char *inner = tine_xasprintf("%s.blocks", c->name);
    LLVMValueRef fn = LLVMAddFunction(e->g.m, inner, fty);
    free(inner);
    LLVMSetLinkage(fn, LLVMPrivateLinkage);
    unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
    for (unsigned a = 1; a <= 2; a++) LLVMAddAttributeAtIndex(fn, a, LLVMCreateEnumAttribute(lc, noalias, 0));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(lc, nounwind, 0));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(lc, noinline, 0));
    e->g.b = LLVMCreateBuilderInContext(lc);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(lc, fn, "entry");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(lc, fn, "done");
    LLVMBuilderRef b = e->g.b;
    LLVMPositionBuilderAtEnd(b, entry);
    e->in = LLVMGetParam(fn, 0);
    e->out = LLVMGetParam(fn, 1);
    e->howmany = LLVMGetParam(fn, 2);
    LLVMValueRef two = i64c(e, 2);
    e->is2 = LLVMBuildMul(b, LLVMGetParam(fn, 3), two, "is2");
    e->id2 = LLVMBuildMul(b, LLVMGetParam(fn, 4), two, "id2");
    e->os2 = LLVMBuildMul(b, LLVMGetParam(fn, 5), two, "os2");
    e->od2 = LLVMBuildMul(b, LLVMGetParam(fn, 6), two, "od2");
    LLVMValueRef last = LLVMBuildSub(b, e->howmany, i64c(e, 1), "last");
    /* chunks of v floats; the last one ends at the transform's end, overlapping the one
       before it where v does not divide 2n (it loads and stores floats of the transform's
       own, the values it stores the same) */
    bool rows = 2 * c->n >= c->v && c->v <= 64;
    e->nchunks = rows ? (2 * c->n + c->v - 1) / c->v : 0;
    for (int q = 0; q < e->nchunks; q++) e->chunk_off[q] = q * c->v + c->v <= 2 * c->n ? q * c->v : 2 * c->n - c->v;
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(lc, fn, "start");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGT, e->howmany, i64c(e, 0), ""), start, done);
    LLVMBasicBlockRef loops[4];
    int nl = rows ? 4 : 1;
    for (int k = 0; k < nl; k++) loops[k] = block_loop(e, fn, done, last, k & 1, k >> 1);
    LLVMPositionBuilderAtEnd(b, start);
    if (rows) {
        LLVMValueRef in1 = LLVMBuildICmp(b, LLVMIntEQ, LLVMGetParam(fn, 3), i64c(e, 1), "");
        LLVMValueRef out1 = LLVMBuildICmp(b, LLVMIntEQ, LLVMGetParam(fn, 5), i64c(e, 1), "");
        LLVMValueRef k = LLVMBuildAdd(b, LLVMBuildZExt(b, in1, e->i64, ""),
                                      LLVMBuildShl(b, LLVMBuildZExt(b, out1, e->i64, ""), i64c(e, 1), ""), "layout");
        LLVMValueRef sw = LLVMBuildSwitch(b, k, loops[0], 3);
        for (int q = 1; q < 4; q++) LLVMAddCase(sw, i64c(e, q), loops[q]);
    } else {
        LLVMBuildBr(b, loops[0]);
    }
    LLVMPositionBuilderAtEnd(b, done);
    LLVMBuildRetVoid(b);
    entry_point(e, fty, fn);
    LLVMDisposeBuilder(b);
    return e->g.m;
}

static void em_init(em *e, tine_ctx_t *ctx, const dft_codelet *c, LLVMContextRef lc) {
    memset(e, 0, sizeof *e);
    e->c = c;
    e->g.ctx = ctx;
    e->g.lc = lc;
    e->g.sel = TINE_SELECT_TINE;
    e->g.features = tine_target_features(ctx, c->prog->target, NULL);
    for (int i = 0; i < c->prog->n; i++)
        if (c->prog->order[i].e->id >= e->nval) e->nval = c->prog->order[i].e->id + 1;
    e->val = tine_xcalloc(e->nval ? e->nval : 1, sizeof *e->val);
    e->inb = tine_xcalloc((size_t)c->v, sizeof *e->inb);
    e->outb = tine_xcalloc((size_t)c->v, sizeof *e->outb);
    e->gathered = tine_xcalloc((size_t)c->n, sizeof *e->gathered);
    e->stored = tine_xcalloc((size_t)c->n * 2, sizeof *e->stored);
    e->re_out = tine_xcalloc((size_t)c->n, sizeof *e->re_out);
    e->im_out = tine_xcalloc((size_t)c->n, sizeof *e->im_out);
    e->chunk_left = tine_xcalloc((size_t)(2 * c->n / c->v + 2), sizeof *e->chunk_left);
    e->chunk_off = tine_xcalloc((size_t)(2 * c->n / c->v + 2), sizeof *e->chunk_off);
}

static void em_free(em *e) {
    free(e->val);
    free(e->inb);
    free(e->outb);
    free(e->gathered);
    free(e->stored);
    free(e->re_out);
    free(e->im_out);
    free(e->chunk_left);
    free(e->chunk_off);
}

char *dft_emit_llvm(tine_ctx_t *ctx, const dft_codelet *c, tine_emit_kind_t kind, size_t *size) {
    char *triple = NULL;
    LLVMTargetMachineRef tm = tine_cg_target_machine(ctx, c->prog->target, &triple);
    if (!tm) return NULL;
    em e;
    em_init(&e, ctx, c, LLVMContextCreate());
    LLVMModuleRef m = build(&e);
    char *out = tine_cg_verify_module(ctx, m) ? tine_cg_module_output(ctx, m, tm, triple, kind, size) : NULL;
    LLVMDisposeModule(m);
    LLVMContextDispose(e.g.lc);
    LLVMDisposeTargetMachine(tm);
    free(triple);
    em_free(&e);
    return out;
}

struct dft_jit {
    LLVMOrcLLJITRef jit;
    dft_fn fn;
};

dft_jit *dft_jit_new(tine_ctx_t *ctx, const dft_codelet *c) {
    char *triple = NULL;
    LLVMTargetMachineRef tm = tine_cg_jit_target_machine(ctx, c->prog->target, &triple);
    if (!tm) return NULL;
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    em e;
    em_init(&e, ctx, c, LLVMOrcThreadSafeContextGetContext(tsc));
    LLVMModuleRef m = build(&e);
    em_free(&e);
    if (!tine_cg_verify_module(ctx, m)) {
        tine_cg_jit_abandon(tsc, m, tm, triple);
        return NULL;
    }
    dft_jit *j = tine_xcalloc(1, sizeof *j);
    uint64_t addr = tine_cg_jit_module(ctx, tm, triple, tsc, m, c->name, &j->jit);
    free(triple);
    j->fn = (dft_fn)(uintptr_t)addr;
    if (!j->fn) {
        dft_jit_free(j);
        return NULL;
    }
    return j;
}

dft_fn dft_jit_fn(const dft_jit *j) { return j->fn; }

void dft_jit_free(dft_jit *j) {
    if (!j) return;
    if (j->jit) LLVMOrcDisposeLLJIT(j->jit);
    free(j);
}
