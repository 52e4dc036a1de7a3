/* header.c — the emulation header: every intrinsic of one instruction set as a C
 * function for another (`tine retarget --emit-header`), tine's own equivalent of SIMDe.
 *
 * Each function is the intrinsic's semantics (src/targets/intrin.c), selected for the
 * target, through the peephole (tine_retarget_optimize) and written by the C emitter, so the header means exactly what the retargeting
 * lift means, intrinsic by intrinsic. Code that tine retarget leaves as it was (a region
 * it cannot lift) compiles against it. The source's vector types are vector-extension
 * types of the same lanes; its tuples structs of them.
 */
#include "../codegen/c.h"
#include "../targets/intrin.h"
#include "retarget.h"

/* The source family's C name of a vector type: uint8x16_t, or __m128i. */
static void src_vec_name(const char *fam, tine_type_t t, char *buf, size_t n) {
    if (!strcmp(fam, "x86")) snprintf(buf, n, "__m%di", t.bits * t.lanes);
    else snprintf(buf, n, "%sint%dx%d_t", t.kind == TINE_INT ? "" : "u", t.bits, t.lanes);
}

static const char *scalar_name(tine_type_t t) {
    static const char *u[] = {"uint8_t", "uint16_t", "uint32_t", "uint64_t"}, *s[] = {"int8_t", "int16_t", "int32_t", "int64_t"};
    int k = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : 3;
    return t.kind == TINE_INT ? s[k] : u[k];
}

typedef struct {
    tine_ctx_t *ctx;
    const char *ffam, *to;
    tine_cemit *em;
    tine_buf types, funcs;
    tine_u64map declared;
    int emitted, skipped;
} hdr;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The C type of a source value, declared in the header on first use. */
static void type_name(hdr *h, tine_type_t t, int tuple, char *buf, size_t n) {
    if (t.lanes == 1) {
        snprintf(buf, n, "%s", scalar_name(t));
        return;
    }
    char v[48];
    src_vec_name(h->ffam, t, v, sizeof v);
    uint64_t one;
    if (!tine_u64map_get(&h->declared, hash_str(v), &one)) {
        tine_u64map_put(&h->declared, hash_str(v), 1);
        if (!strcmp(h->ffam, "x86"))
            tine_buf_printf(&h->types, "typedef long long %s __attribute__((vector_size(%d), aligned(%d)));\n", v,
                            t.bits * t.lanes / 8, t.bits * t.lanes / 8);
        else
            tine_buf_printf(&h->types, "typedef %s %s __attribute__((vector_size(%d)));\n", scalar_name(t), v,
                            t.bits * t.lanes / 8);
    }
    if (tuple <= 1) {
        snprintf(buf, n, "%s", v);
        return;
    }
    char tn[64];
    snprintf(tn, sizeof tn, "%.*sx%d_t", (int)(strlen(v) - 2), v, tuple);
    if (!tine_u64map_get(&h->declared, hash_str(tn), &one)) {
        tine_u64map_put(&h->declared, hash_str(tn), 1);
        tine_buf_printf(&h->types, "typedef struct { %s val[%d]; } %s;\n", v, tuple, tn);
    }
    snprintf(buf, n, "%s", tn);
}

/* The body for one set of immediates: the statements and the return. false if the
 * semantics cannot be applied there (an immediate out of range) or not written. */
static bool body(hdr *h, const tine_intrin *in, const int64_t *imms, tine_buf *out, const char *indent) {
    tine_ctx_t *ctx = h->ctx;
    tine_expr_t *args[TINE_INTRIN_MAX_PARAMS * 4], *mem = NULL;
    int na = 0;
    char ty[48], bind[96];
    tine_cemit_forget(h->em);
    tine_cemit_set_indent(h->em, indent);
    tine_buf pre = {0};
    tine_buf_puts(&pre, "");
    const char *ptr = NULL;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *p = &in->param[k];
        char vn[32];
        if (p->kind == TINE_IP_PTR) { ptr = p->name; continue; }
        if (p->kind == TINE_IP_IMM) continue;
        for (int j = 0; j < (p->kind == TINE_IP_TUPLE ? p->n : 1); j++) {
            snprintf(vn, sizeof vn, "$h%d_%d", k, j);
            args[na] = tine_var(ctx, vn, p->type);
            tine_cemit_type(h->em, p->type, ty, sizeof ty);
            if (p->kind == TINE_IP_TUPLE) snprintf(bind, sizeof bind, "((%s)%s.val[%d])", ty, p->name, j);
            else snprintf(bind, sizeof bind, "((%s)%s)", ty, p->name);
            tine_cemit_bind(h->em, args[na++], bind);
        }
    }
    if (in->mem == TINE_INTRIN_LOAD) {
        /* read in pieces of a power of two of bytes (vld3q_u8's 48 are three of 16) */
        tine_type_t mt = tine_type_with_lanes(in->mem_elem, in->mem_lanes);
        int piece = in->mem_lanes;
        while (piece * mt.bits / 8 > 64 || (piece & (piece - 1))) piece = piece & (piece - 1) ? piece & -piece : piece / 2;
        tine_expr_t *parts[64];
        int np = in->mem_lanes / piece;
        for (int i = 0; i < np; i++) {
            tine_type_t pt = tine_type_with_lanes(in->mem_elem, piece);
            char vn[32];
            snprintf(vn, sizeof vn, "$hm%d", i);
            parts[i] = tine_var(ctx, vn, pt);
            tine_buf_printf(&pre, "%s%s m%d;\n%smemcpy(&m%d, (const char *)%s + %d, sizeof m%d);\n", indent,
                            tine_cemit_type(h->em, pt, ty, sizeof ty), i, indent, i, ptr, i * piece * mt.bits / 8, i);
            snprintf(bind, sizeof bind, "m%d", i);
            tine_cemit_bind(h->em, parts[i], bind);
        }
        mem = np == 1 ? parts[0] : tine_concat(ctx, np, parts);
    }
    tine_expr_t *res[TINE_INTRIN_MAX_RESULTS];
    if (!tine_intrin_apply(ctx, in, args, imms, mem, res)) {
        tine_clear_error(ctx);
        free(pre.p);
        return false;
    }
    int nres = in->mem == TINE_INTRIN_STORE ? 1 : in->nresults;
    const char *names[TINE_INTRIN_MAX_RESULTS];
    tine_buf code = {0};
    tine_buf_puts(&code, "");
    /* the results selected, then through the peephole together (one program: what two
       results share is one value), then written */
    tine_expr_t *sel[TINE_INTRIN_MAX_RESULTS], *vec[TINE_INTRIN_MAX_RESULTS];
    int nvec = 0;
    bool ok = true;
    for (int i = 0; i < nres && ok; i++) {
        tine_expr_t *e = tine_fold_constants(ctx, res[i]);
        if (e && e->type.lanes > 1) e = tine_select_expr(ctx, e, TINE_SELECT_TINE, h->to);
        if (e && e->type.lanes > 1) vec[nvec++] = e;
        ok = (sel[i] = e) != NULL;
    }
    ok = ok && (!nvec || tine_retarget_optimize(ctx, h->to, nvec, vec, NULL));
    for (int i = 0, k = 0; i < nres && ok; i++)
        if (sel[i]->type.lanes > 1) sel[i] = vec[k++];
    for (int i = 0; i < nres; i++) {
        if (!ok || !(names[i] = tine_cemit_value(h->em, sel[i], &code))) {
            tine_clear_error(ctx);
            free(pre.p);
            free(code.p);
            return false;
        }
    }
    tine_buf_puts(out, pre.p);
    tine_buf_puts(out, code.p);
    free(pre.p);
    free(code.p);
    if (in->mem == TINE_INTRIN_STORE) {
        tine_buf_printf(out, "%s%s st = %s;\n%smemcpy(%s, &st, sizeof st);\n", indent,
                        tine_cemit_type(h->em, res[0]->type, ty, sizeof ty), names[0], indent, ptr);
        return true;
    }
    char rt[64];
    type_name(h, in->result[0], in->nresults, rt, sizeof rt);
    if (in->nresults == 1) {
        tine_buf_printf(out, "%sreturn (%s)%s;\n", indent, rt, names[0]);
    } else {
        char et[48];
        type_name(h, in->result[0], 1, et, sizeof et);
        tine_buf_printf(out, "%s%s r;\n", indent, rt);
        for (int i = 0; i < in->nresults; i++) tine_buf_printf(out, "%sr.val[%d] = (%s)%s;\n", indent, i, et, names[i]);
        tine_buf_printf(out, "%sreturn r;\n", indent);
    }
    return true;
}

/* Whether the source family's C spells every operand: x86 vectors are 128, 256 or 512
 * bits, and AVX-512's masks (bool lanes, __mmask16) are not written here. */
static bool spellable(const hdr *h, const tine_intrin *in) {
    for (int k = 0; k <= in->nparams; k++) {
        tine_type_t t = k < in->nparams ? in->param[k].type : in->result[0];
        if (k == in->nparams && !in->nresults) break;
        if (k < in->nparams && (in->param[k].kind == TINE_IP_PTR || in->param[k].kind == TINE_IP_IMM)) continue;
        if (t.kind == TINE_BOOL || t.kind == TINE_FLOAT) return false;
        int bits = t.bits * t.lanes;
        if (t.lanes > 1 && !strcmp(h->ffam, "x86") && bits != 128 && bits != 256 && bits != 512) return false;
        if (t.lanes > 1 && strcmp(h->ffam, "x86") && bits != 64 && bits != 128) return false;
    }
    return true;
}

static bool one(void *user, const tine_intrin *in) {
    hdr *h = user;
    if (!spellable(h, in)) {
        h->skipped++;
        return true;
    }
    char rt[64], pt[64];
    if (in->mem == TINE_INTRIN_STORE || !in->nresults) snprintf(rt, sizeof rt, "void");
    else type_name(h, in->result[0], in->nresults, rt, sizeof rt);
    tine_buf sig = {0};
    tine_buf_printf(&sig, "static inline %s %s(", rt, in->name);
    int nimm = 0;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *p = &in->param[k];
        if (k) tine_buf_puts(&sig, ", ");
        switch (p->kind) {
        case TINE_IP_PTR: tine_buf_printf(&sig, "%svoid *%s", in->mem == TINE_INTRIN_LOAD ? "const " : "", p->name); break;
        case TINE_IP_IMM: tine_buf_printf(&sig, "int %s", p->name), nimm++; break;
        case TINE_IP_SCALAR: tine_buf_printf(&sig, "%s %s", scalar_name(p->type), p->name); break;
        default:
            type_name(h, p->type, p->kind == TINE_IP_TUPLE ? p->n : 1, pt, sizeof pt);
            tine_buf_printf(&sig, "%s %s", pt, p->name);
        }
    }
    if (!in->nparams) tine_buf_puts(&sig, "void");
    tine_buf_puts(&sig, ") {\n");
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    bool ok = false;
    if (nimm == 0) {
        ok = body(h, in, NULL, &b, "    ");
    } else if (nimm == 1) {
        /* the immediate's every value the C code may write: one case each */
        const char *name = NULL;
        for (int k = 0; k < in->nparams; k++)
            if (in->param[k].kind == TINE_IP_IMM) name = in->param[k].name;
        tine_buf_printf(&b, "    switch (%s) {\n", name);
        int cases = 0;
        for (int64_t v = 0; v <= 64; v++) {
            tine_buf cb = {0};
            tine_buf_puts(&cb, "");
            if (body(h, in, &v, &cb, "        ")) {
                tine_buf_printf(&b, "    case %d: {\n%s    }\n", (int)v, cb.p);
                cases++;
            }
            free(cb.p);
        }
        tine_buf_puts(&b, "    default: break;\n    }\n");
        if (in->mem == TINE_INTRIN_STORE || !in->nresults) tine_buf_puts(&b, "");
        else tine_buf_printf(&b, "    %s z;\n    memset(&z, 0, sizeof z);\n    return z;\n", rt);
        ok = cases > 0;
    }
    if (ok) {
        tine_buf_printf(&h->funcs, "%s%s}\n", sig.p, b.p);
        h->emitted++;
    } else {
        h->skipped++;
    }
    free(sig.p);
    free(b.p);
    return true;
}

/* Every vector type of the source's C and its tuples (code kept as written may name one no
 * intrinsic it calls does). */
static void all_types(hdr *h) {
    static const int bits[] = {8, 16, 32, 64};
    char buf[64];
    for (int b = 0; b < 4; b++)
        for (int u = 0; u < 2; u++) {
            if (!strcmp(h->ffam, "x86") && (b != 3 || u)) continue; /* __m128i: one type a size */
            for (int w = !strcmp(h->ffam, "x86") ? 128 : 64; w <= (!strcmp(h->ffam, "x86") ? 512 : 128); w *= 2) {
                tine_type_t t = {.kind = u ? TINE_UINT : TINE_INT, .bits = bits[b], .lanes = w / bits[b]};
                for (int k = 1; k <= (strcmp(h->ffam, "x86") ? 4 : 1); k++) type_name(h, t, k, buf, sizeof buf);
            }
        }
}

bool tine_retarget_emulation(tine_ctx_t *ctx, const char *from, const char *to, tine_cemit *em, const char *const *names,
                             int n, tine_buf *out) {
    const char *ffam = tine_target_isa(from);
    hdr h = {.ctx = ctx, .ffam = ffam, .to = to, .em = em};
    tine_buf_puts(&h.types, "");
    tine_buf_puts(&h.funcs, "");
    all_types(&h);
    bool ok = ffam != NULL;
    for (int i = 0; i < n && ok; i++) {
        const tine_intrin *in = tine_intrin_find(ctx, ffam, names[i]);
        int before = h.emitted;
        if (in) one(&h, in);
        if (!in || h.emitted == before) {
            if (!tine_error(ctx)) tine_set_error(ctx, "'%s' cannot be emulated for %s", names[i], to);
            ok = false;
        }
    }
    if (ok) {
        tine_buf_puts(out, h.types.p);
        tine_buf_puts(out, h.funcs.p);
    }
    free(h.types.p);
    free(h.funcs.p);
    tine_u64map_free(&h.declared);
    return ok;
}

char *tine_retarget_header(tine_ctx_t *ctx, const char *from, const char *to, int *emitted, int *skipped) {
    const char *ffam = tine_target_isa(from), *tfam = tine_target_isa(to);
    if (!ffam || !tfam) {
        tine_set_error(ctx, "unknown target '%s'", ffam ? to : from);
        return NULL;
    }
    hdr h = {.ctx = ctx, .ffam = ffam, .to = to, .em = tine_cemit_new(ctx, to, "    ")};
    if (!h.em) return NULL;
    tine_buf_puts(&h.types, "");
    tine_buf_puts(&h.funcs, "");
    bool ok = true;
    if (!tine_intrin_each(ctx, ffam, one, &h)) tine_clear_error(ctx); /* those are counted as skipped by the tests */
    char *res = NULL;
    if (ok) {
        tine_buf out = {0};
        tine_buf_printf(&out, "/* %s intrinsics for %s, generated by tine retarget --emit-header from their semantics. */\n",
                        ffam, to);
        tine_buf_printf(&out, "#ifndef TINE_EMULATE_%s_H\n#define TINE_EMULATE_%s_H\n", ffam, ffam);
        tine_buf_printf(&out, "#include <stdint.h>\n#include <string.h>\n#include <%s>\n", !strcmp(tfam, "arm") ? "arm_neon.h" : "immintrin.h");
        tine_cemit_prelude(h.em, &out);
        tine_buf_puts(&out, h.types.p);
        tine_buf_puts(&out, h.funcs.p);
        tine_buf_puts(&out, "#endif\n");
        res = out.p;
    }
    if (emitted) *emitted = h.emitted;
    if (skipped) *skipped = h.skipped;
    free(h.types.p);
    free(h.funcs.p);
    tine_u64map_free(&h.declared);
    tine_cemit_free(h.em);
    return res;
}
