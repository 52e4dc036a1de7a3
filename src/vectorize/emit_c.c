/* emit_c.c — the extracted program as C with the target's intrinsics (tine vectorize
 * --emit c): <immintrin.h> for x86 (SSE4.1, AVX2 with FMA, AVX-512F), <arm_neon.h> for
 * AArch64. The function has the kernel's own signature; its body is the program's
 * target-level form (tprog.c: selected, peephole-optimized, scheduled) written by
 * src/codegen/c.c in that order, each value one statement; this file writes what the
 * program leaves to its frame: the inputs (each vector of leaves as its leaf plan, an
 * array element as a scalar) at their first read, and each chunk's store.
 *
 * Shuffles are the target's: a one-source permute then a blend (shufps + blendps on
 * SSE4.1, vpermps + vblendps on AVX2), vpermt2ps on AVX-512, tbl on two registers on
 * Neon. Float operations are separate statements: compile with -ffp-contract=off (GCC
 * contracts across statements by default, which the strict mode's bit-exactness forbids).
 */
#include "vectorize.h"

#include "../codegen/c.h"

#include <math.h>

typedef struct {
    tine_ctx_t *ctx;
    const vz_program *p;
    const vz_spec *s;
    const vz_tprog *t;
    tine_cemit *ce;
    tine_buf *b;       /* where the statements go */
    int next;          /* the last variable number */
    int W;
    bool arm, f64;
    const char *ft;    /* float, double */
    char vt[24], pre[16], sfx[4];
    char load[40], store[40], set1[40], zero[48]; /* the target's unaligned load and store, broadcast, zero */
} cem;

static void put(cem *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(cem *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tine_buf_puts(e->b, "    ");
    tine_buf_vprintf(e->b, fmt, ap);
    va_end(ap);
}

/* A constant as an exact hexadecimal literal. */
static void literal(cem *e, int64_t bits, char *out, size_t n) {
    vz_node x = {.op = VZ_CONST, .data = bits};
    double v = vz_const_value(e->s, &x);
    if (v != v) snprintf(out, n, "(%s)NAN", e->ft);
    else if (v == INFINITY || v == -INFINITY) snprintf(out, n, "(%s)%sINFINITY", e->ft, v < 0 ? "-" : "");
    else snprintf(out, n, "%a%s", v, e->f64 ? "" : "f");
}


/* r = lanes of a (lane_from_a[l] >= 0) and of b (from_b[l] >= 0), the rest anything. */
static void shuffle2(cem *e, int r, int a, int b, const int *from_a, const int *from_b) {
    int W = e->W;
    if (e->arm) { /* tbl on the two registers' bytes */
        int eb = e->f64 ? 8 : 4;
        tine_buf_puts(e->b, "    {\n        static const uint8_t ix[16] = {");
        for (int l = 0; l < W; l++)
            for (int k = 0; k < eb; k++)
                tine_buf_printf(e->b, "%d%s", from_a[l] >= 0 ? from_a[l] * eb + k : from_b[l] >= 0 ? 16 + from_b[l] * eb + k : 0,
                                l == W - 1 && k == eb - 1 ? "" : ", ");
        tine_buf_printf(e->b, "};\n        uint8x16x2_t t = {{vreinterpretq_u8_%s(v%d), vreinterpretq_u8_%s(v%d)}};\n"
                               "        v%d = vreinterpretq_%s_u8(vqtbl2q_u8(t, vld1q_u8(ix)));\n    }\n",
                        e->sfx, a, e->sfx, b, r, e->sfx);
        return;
    }
    if (W == 16 || (e->f64 && W == 8)) { /* AVX-512: vpermt2ps / vpermt2pd */
        tine_buf_printf(e->b, "    v%d = %spermutex2var_%s(v%d, %s(", r, e->pre, e->sfx, a,
                        e->f64 ? "_mm512_setr_epi64" : "_mm512_setr_epi32");
        for (int l = 0; l < W; l++) tine_buf_printf(e->b, "%d%s", from_a[l] >= 0 ? from_a[l] : from_b[l] >= 0 ? W + from_b[l] : 0, l < W - 1 ? ", " : "");
        tine_buf_printf(e->b, "), v%d);\n", b);
        return;
    }
    /* one-source permutes, then a blend */
    int pa = ++e->next, pb = ++e->next, mask = 0;
    for (int l = 0; l < W; l++) mask |= (from_b[l] >= 0) << l;
    int src[2] = {a, b}, dst[2] = {pa, pb};
    const int *from[2] = {from_a, from_b};
    for (int k = 0; k < 2; k++) {
        if (e->f64 && W == 2) { /* shufpd: lane 0 from its first operand, lane 1 from its second */
            int i0 = from[k][0] >= 0 ? from[k][0] : 0, i1 = from[k][1] >= 0 ? from[k][1] : 0;
            put(e, "%s v%d = _mm_shuffle_pd(v%d, v%d, %d);\n", e->vt, dst[k], src[k], src[k], i0 | i1 << 1);
        } else if (W == 4 && !e->f64) {
            int imm = 0;
            for (int l = 0; l < 4; l++) imm |= (from[k][l] >= 0 ? from[k][l] : 0) << (2 * l);
            put(e, "%s v%d = _mm_shuffle_ps(v%d, v%d, %d);\n", e->vt, dst[k], src[k], src[k], imm);
        } else if (!e->f64) {
            put(e, "%s v%d = _mm256_permutevar8x32_ps(v%d, _mm256_setr_epi32(", e->vt, dst[k], src[k]);
            for (int l = 0; l < 8; l++) tine_buf_printf(e->b, "%d%s", from[k][l] >= 0 ? from[k][l] : 0, l < 7 ? ", " : "));\n");
        } else { /* 4 doubles: vpermpd */
            int imm = 0;
            for (int l = 0; l < 4; l++) imm |= (from[k][l] >= 0 ? from[k][l] : 0) << (2 * l);
            put(e, "%s v%d = _mm256_permute4x64_pd(v%d, %d);\n", e->vt, dst[k], src[k], imm);
        }
    }
    put(e, "v%d = %sblend_%s(v%d, v%d, %d);\n", r, e->pre, e->sfx, pa, pb, mask);
}

/* A vector of leaves, as vz_plan_leaves plans it. */
static int leaf_vector(cem *e, const eg_node *vec) {
    int W = e->W, r = ++e->next;
    vz_leaf_plan plan;
    vz_plan_leaves(e->p->g, e->s, W, vec->kids, &plan);
    put(e, "%s v%d = %s;\n", e->vt, r, e->zero);
    bool have = false;
    for (int k = 0; k < plan.nsrc; k++) {
        const vz_source *src = &plan.src[k];
        int v = ++e->next;
        const vz_array *A = &e->s->array[src->array];
        if (src->kind == VZ_SRC_CONST) {
            tine_buf_printf(e->b, "    static const %s c%d[%d] = {", e->ft, v, W);
            for (int l = 0; l < W; l++) {
                eg_node n;
                char lit[64] = "0";
                if (plan.lane_src[l] == k && vz_leaf(e->p->g, vec->kids[l], &n)) literal(e, n.data, lit, sizeof lit);
                tine_buf_printf(e->b, "%s%s", lit, l < W - 1 ? ", " : "};\n");
            }
            put(e, "%s v%d = %s(c%d);\n", e->vt, v, e->load, v);
        } else if (src->kind == VZ_SRC_BROADCAST)
            put(e, "%s v%d = %s(%s_[%d]);\n", e->vt, v, e->set1, A->name, src->start);
        else if (src->start + W <= A->count)
            put(e, "%s v%d = %s(&%s_[%d]);\n", e->vt, v, e->load, A->name, src->start);
        else { /* past the array's end: the part inside, through a zeroed copy */
            put(e, "%s w%d[%d] = {0};\n", e->ft, v, W);
            put(e, "memcpy(w%d, &%s_[%d], %d * sizeof(%s));\n", v, A->name, src->start, A->count - src->start, e->ft);
            put(e, "%s v%d = %s(w%d);\n", e->vt, v, e->load, v);
        }
        int from_a[16], from_b[16];
        bool identity = true;
        for (int l = 0; l < W; l++) {
            from_b[l] = plan.lane_src[l] == k ? plan.lane_at[l] : -1;
            from_a[l] = have && plan.lane_src[l] >= 0 && plan.lane_src[l] < k ? l : -1;
            identity = identity && (from_b[l] < 0 || from_b[l] == l) && from_a[l] < 0;
        }
        if (!have && identity) put(e, "v%d = v%d;\n", r, v);
        else shuffle2(e, r, r, v, from_a, from_b);
        have = true;
    }
    return r;
}

/* Chunk k's value (a C name of the emitter's vector type) to its elements, through an
 * array: each run of lanes bound for one array's consecutive elements one memcpy. */
static void store_chunk(void *user, int k, const char *value, tine_buf *out) {
    cem *e = user;
    const vz_chunk *ch = &e->p->chunk[k];
    e->b = out;
    int W = e->W, r = ++e->next;
    put(e, "%s o%d[%d];\n", e->ft, r, W);
    put(e, "%s(o%d, (%s)%s);\n", e->store, r, e->vt, value);
    vz_run runs[16];
    for (int i = 0, nr = vz_store_runs(ch, W, runs); i < nr; i++)
        put(e, "memcpy(&%s_[%d], &o%d[%d], %d * sizeof(%s));\n", e->s->array[runs[i].array].name, runs[i].elem, r,
            runs[i].lane, runs[i].len, e->ft);
}

/* Input q at its first read: its leaf plan built (a vector, cast to the emitter's vector
 * type) or its element read (a scalar), and bound. */
static void read_input(void *user, int q, tine_buf *out) {
    cem *e = user;
    const vz_tprog *t = e->t;
    const tine_expr_t *x = t->prog->inputs[q];
    e->b = out;
    char cx[96], tb[48];
    if (t->in_array[q] >= 0) {
        int r = ++e->next;
        put(e, "%s s%d = %s_[%d];\n", e->ft, r, e->s->array[t->in_array[q]].name, t->in_elem[q]);
        snprintf(cx, sizeof cx, "s%d", r);
    } else {
        eg_node n = vz_chosen(e->p, t->in_cls[q]);
        int r = leaf_vector(e, &n);
        snprintf(cx, sizeof cx, "((%s)v%d)", tine_cemit_type(e->ce, x->type, tb, sizeof tb), r);
    }
    tine_cemit_bind(e->ce, x, cx);
}

char *vz_emit_c(tine_ctx_t *ctx, const vz_program *p, const vz_tprog *t, size_t *size) {
    const vz_spec *s = p->spec;
    cem e = {.ctx = ctx, .p = p, .s = s, .t = t, .W = p->width, .arm = p->target->arm, .f64 = s->elem.bits == 64};
    e.ce = tine_cemit_new(ctx, t->prog->target, "    ");
    if (!e.ce) return NULL;
    e.ft = e.f64 ? "double" : "float";
    snprintf(e.sfx, sizeof e.sfx, "%s", e.arm ? (e.f64 ? "f64" : "f32") : (e.f64 ? "pd" : "ps"));
    int bits = p->width * s->elem.bits; /* the lanes the search chose, at most the target's */
    if (e.arm) snprintf(e.vt, sizeof e.vt, "%s", e.f64 ? "float64x2_t" : "float32x4_t");
    else snprintf(e.vt, sizeof e.vt, "__m%d%s", bits, e.f64 ? "d" : "");
    snprintf(e.pre, sizeof e.pre, "%s", bits == 128 ? "_mm_" : bits == 256 ? "_mm256_" : "_mm512_");
    if (e.arm) {
        snprintf(e.load, sizeof e.load, "vld1q_%s", e.sfx);
        snprintf(e.store, sizeof e.store, "vst1q_%s", e.sfx);
        snprintf(e.set1, sizeof e.set1, "vdupq_n_%s", e.sfx);
        snprintf(e.zero, sizeof e.zero, "vdupq_n_%s(0)", e.sfx);
    } else {
        snprintf(e.load, sizeof e.load, "%sloadu_%s", e.pre, e.sfx);
        snprintf(e.store, sizeof e.store, "%sstoreu_%s", e.pre, e.sfx);
        snprintf(e.set1, sizeof e.set1, "%sset1_%s", e.pre, e.sfx);
        snprintf(e.zero, sizeof e.zero, "%ssetzero_%s()", e.pre, e.sfx);
    }
    tine_buf body = {0}, b = {0};
    bool ok = tine_cemit_program(e.ce, t->prog, read_input, store_chunk, &e, &body);
    char *out = NULL;
    if (ok) {
        tine_buf_printf(&b, "/* %s: vectorized by tine vectorize for %s (%d lanes). Compile with -ffp-contract=off:\n"
                            " * each float operation is its own statement, rounded where the program says. */\n",
                        s->func, p->target->name, e.W);
        tine_buf_printf(&b, "#include <math.h>\n#include <stdint.h>\n#include <string.h>\n#include <%s>\n\n",
                        e.arm ? "arm_neon.h" : "immintrin.h");
        tine_cemit_prelude(e.ce, &b);
        /* the prototype as written, its ';' the body's brace */
        const char *sig = s->signature ? s->signature : "";
        size_t n = strlen(sig);
        tine_buf_printf(&b, "\n%.*s {\n", (int)(n && sig[n - 1] == ';' ? n - 1 : n), sig);
        e.b = &b;
        for (int i = 0; i < s->narrays; i++)
            put(&e, "%s%s *%s_ = (%s%s *)%s;\n", s->array[i].output ? "" : "const ", e.ft, s->array[i].name,
                s->array[i].output ? "" : "const ", e.ft, s->array[i].name);
        tine_buf_puts(&b, body.p ? body.p : "");
        tine_buf_puts(&b, "}\n");
        out = b.p;
        *size = b.n;
    }
    free(body.p);
    tine_cemit_free(e.ce);
    return out;
}
