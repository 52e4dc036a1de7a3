/* intel.c — the Intel Intrinsics Guide data file to fixed instruction entries (.isa).
 *
 * Each <intrinsic> of the file whose CPUID is among the extensions asked for and whose
 * operands are integer vectors, masks and integer scalars becomes one entry: its
 * pseudocode (<operation>) parsed (pseudo.c) and evaluated symbolically (eval.c) into
 * the result's expression over the operands, printed in tine's syntax with the form's
 * register width, its features and the C intrinsic. What cannot be translated is listed
 * with the construct that stopped it. The XML is read by a small scanner: the file is
 * Intel's, regular, and only elements and attributes are needed. */
#include "intel.h"

#include "eval.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---- the XML ---------------------------------------------------------------------- */

/* The value of attribute `name` in the tag [tag, end), entities decoded, or NULL. */
static char *attr(tine_arena *a, const char *tag, const char *end, const char *name) {
    size_t n = strlen(name);
    for (const char *p = tag; p + n + 2 < end; p++) {
        if ((p == tag || isspace((unsigned char)p[-1])) && !strncmp(p, name, n) && p[n] == '=' && p[n + 1] == '"') {
            const char *v = p + n + 2, *q = memchr(v, '"', (size_t)(end - v));
            if (!q) return NULL;
            return tine_arena_strdup(a, v, (size_t)(q - v));
        }
    }
    return NULL;
}

static char *decode(tine_arena *a, const char *s, size_t n) {
    char *o = tine_arena_alloc(a, n + 1), *w = o;
    static const struct {
        const char *e, c;
    } ents[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t i = 0; i < n;) {
        bool done = false;
        if (s[i] == '&')
            for (size_t k = 0; k < sizeof ents / sizeof *ents; k++) {
                size_t l = strlen(ents[k].e);
                if (i + l <= n && !strncmp(s + i, ents[k].e, l)) {
                    *w++ = ents[k].c, i += l, done = true;
                    break;
                }
            }
        if (!done) *w++ = s[i++];
    }
    *w = 0;
    return o;
}

typedef struct {
    const char *type, *name, *etype;
    int immwidth;
} xparam;

typedef struct {
    const char *name, *op, *cpuid[4], *types[4], *insn;
    int ncpuid, ntypes, line, opline; /* the element's line, and its <operation>'s */
    xparam ret, par[8];
    int npar;
} xintr;

/* The next <intrinsic> element from *p; false at the end. */
static bool next_intrinsic(tine_arena *a, const char *text, const char **p, xintr *out) {
    const char *s = strstr(*p, "<intrinsic ");
    if (!s) return false;
    const char *e = strstr(s, "</intrinsic>");
    if (!e) return false;
    *p = e + 12;
    memset(out, 0, sizeof *out);
    out->line = 1;
    for (const char *q = text; q < s; q++) out->line += *q == '\n';
    const char *gt = memchr(s, '>', (size_t)(e - s));
    out->name = attr(a, s, gt, "name");
    const char *rettype = attr(a, s, gt, "rettype");
    if (rettype) out->ret.type = rettype;
    for (const char *q = gt; q && q < e;) {
        const char *t = memchr(q, '<', (size_t)(e - q));
        if (!t) break;
        const char *tend = memchr(t, '>', (size_t)(e - t));
        if (!tend) break;
        const char *close = NULL;
#define TAG(n) (!strncmp(t + 1, n, strlen(n)) && (t[1 + strlen(n)] == ' ' || t[1 + strlen(n)] == '>' || t[1 + strlen(n)] == '/'))
        if (TAG("return")) {
            out->ret.type = attr(a, t, tend, "type") ? attr(a, t, tend, "type") : out->ret.type;
            out->ret.name = attr(a, t, tend, "varname");
            out->ret.etype = attr(a, t, tend, "etype");
        } else if (TAG("parameter") && out->npar >= 8) {
            out->npar++; /* counted, not kept: the intrinsic is refused */
        } else if (TAG("parameter")) {
            xparam *x = &out->par[out->npar++];
            x->type = attr(a, t, tend, "type");
            x->name = attr(a, t, tend, "varname");
            x->etype = attr(a, t, tend, "etype");
            const char *iw = attr(a, t, tend, "immwidth");
            x->immwidth = iw ? atoi(iw) : 0;
        } else if (TAG("instruction") && !out->insn)
            out->insn = attr(a, t, tend, "name");
        else if (TAG("CPUID") || TAG("type") || TAG("operation")) {
            close = strstr(tend, "</");
            if (!close || close > e) break;
            char *v = decode(a, tend + 1, (size_t)(close - tend - 1));
            if (TAG("CPUID") && out->ncpuid < 4) out->cpuid[out->ncpuid++] = v;
            else if (TAG("type") && out->ntypes < 4) out->types[out->ntypes++] = v;
            else if (TAG("operation")) {
                out->op = v;
                out->opline = out->line;
                for (const char *r = s; r < tend; r++) out->opline += *r == '\n';
            }
        }
#undef TAG
        q = close ? strchr(close, '>') : tend + 1;
    }
    return out->name != NULL;
}

/* ---- the intrinsic's operands ------------------------------------------------------ */

static const struct {
    const char *cpuid, *feature;
} features[] = {
    {"SSE2", "sse2"},           {"SSE3", "sse3"},           {"SSSE3", "ssse3"},
    {"SSE4.1", "sse4.1"},       {"SSE4.2", "sse4.2"},       {"AVX2", "avx2"},
    {"AVX512F", "avx512f"},     {"AVX512BW", "avx512bw"},   {"AVX512DQ", "avx512dq"},
    {"AVX512VL", "avx512vl"},   {"AVX512_VNNI", "avx512vnni"}, {"AVX512_VBMI", "avx512vbmi"},
    {"AVX512_VBMI2", "avx512vbmi2"}, {"AVX512IFMA52", "avx512ifma"}, {"AVX512_IFMA", "avx512ifma"},
    {"AVX512_BITALG", "avx512bitalg"},
};

const char *tine_intel_feature(const char *cpuid) {
    for (size_t i = 0; i < sizeof features / sizeof *features; i++)
        if (!strcmp(cpuid, features[i].cpuid)) return features[i].feature;
    return NULL;
}

/* C scalar types as tine types. */
static bool c_scalar(const char *t, tine_type_t *out) {
    static const struct {
        const char *c;
        bool sgn;
        int bits;
    } m[] = {{"int", 1, 32},        {"const int", 1, 32},       {"unsigned int", 0, 32}, {"short", 1, 16},
             {"unsigned short", 0, 16}, {"char", 1, 8},         {"unsigned char", 0, 8}, {"__int64", 1, 64},
             {"long long", 1, 64},  {"unsigned __int64", 0, 64}, {"__int32", 1, 32},     {"unsigned __int32", 0, 32},
             {"__int16", 1, 16},    {"__int8", 1, 8},           {"const __int64", 1, 64}, {"unsigned long long", 0, 64},
             {"const unsigned int", 0, 32}, {"const char", 1, 8}, {"const short", 1, 16}, {"const unsigned char", 0, 8},
             {"_MM_CMPINT_ENUM", 1, 32}, {"_MM_PERM_ENUM", 1, 32}, {"const _MM_CMPINT_ENUM", 1, 32}};
    for (size_t i = 0; i < sizeof m / sizeof *m; i++)
        if (!strcmp(t, m[i].c)) {
            *out = tine_type(m[i].sgn ? TINE_INT : TINE_UINT, m[i].bits, 1);
            return true;
        }
    return false;
}

/* An operand's type: a vector of its etype's lanes, a mask, or a scalar; its bits in
 * *vbits when a vector. NULL: fine; else why not. */
static const char *operand_type(const char *ctype, const char *etype, tine_type_t *t, bool *sgn, int *vbits) {
    *vbits = 0;
    *sgn = false;
    if (!ctype) return "an operand without a type";
    if (strchr(ctype, '*')) return "a memory operand";
    if (!strncmp(ctype, "__mmask", 7)) {
        int n = atoi(ctype + 7);
        if (n != 8 && n != 16 && n != 32 && n != 64) return "a mask of an unknown width";
        *t = tine_type(TINE_BOOL, 1, n);
        return NULL;
    }
    int bits = !strcmp(ctype, "__m128i") ? 128 : !strcmp(ctype, "__m256i") ? 256 : !strcmp(ctype, "__m512i") ? 512 : 0;
    if (!strncmp(ctype, "__m", 3) && !bits) return "a floating-point or MMX operand";
    if (bits) {
        if (!etype) return "no element type in the data file";
        int eb = 0;
        bool s = false;
        if (!strncmp(etype, "UI", 2) || !strncmp(etype, "SI", 2)) {
            eb = atoi(etype + 2);
            s = etype[0] == 'S';
        } else if (!strcmp(etype, "M128") || !strcmp(etype, "M256") || !strcmp(etype, "M512"))
            eb = 64;
        else if (!strcmp(etype, "MASK")) /* a vector of lane masks (blendv): its bytes */
            eb = 8;
        else
            return "a floating-point element type";
        if (eb != 8 && eb != 16 && eb != 32 && eb != 64) return "an element type of an unusual width";
        *t = tine_type(s ? TINE_INT : TINE_UINT, eb, bits / eb);
        *sgn = s;
        *vbits = bits;
        return NULL;
    }
    if (!c_scalar(ctype, t)) return "an operand of a type not translated";
    *sgn = t->kind == TINE_INT;
    if (etype && (!strncmp(etype, "UI", 2))) *sgn = false;
    if (etype && (!strncmp(etype, "SI", 2))) *sgn = true;
    if (etype && !strcmp(etype, "IMM")) *sgn = false; /* imm8[7:0] reads 0 ... 255 */
    return NULL;
}

/* ---- one intrinsic --------------------------------------------------------------------- */

/* The size of e printed as a tree (shared nodes repeated), capped at cap. */
static long tree_size(const tine_expr_t *e, long cap) {
    long n = 1;
    for (int i = 0; i < e->nops && n < cap; i++) n += tree_size(e->ops[i], cap - n);
    return n;
}

/* The longest semantics the importer writes: longer ones are listed as not imported
 * (a later language with names for shared subexpressions would take them). */
enum { TINE_IMPORT_MAX_TEXT = 24000 };
/* The most operands an instruction entry has (TINE_INSN_MAX_OPS of the descriptions). */
enum { TINE_IMPORT_MAX_OPS = 6 };

static const char *reg_of(int bits) { return bits == 128 ? "xmm" : bits == 256 ? "ymm" : "zmm"; }

/* The entry of one intrinsic appended to out, or why not in why. */
static bool import_one(tine_ctx_t *ctx, tine_arena *a, const xintr *in, tine_buf *out, char *why, size_t nwhy) {
    tine_pseudo_arg args[8], ret = {0};
    int vbits = 0;
    if (in->npar == 0) {
        snprintf(why, nwhy, "no operand (a constant such as setzero)");
        return false;
    }
    if (in->npar > TINE_IMPORT_MAX_OPS) {
        snprintf(why, nwhy, "%d operands, more than an instruction takes (%d): a sequence such as a set", in->npar,
                 TINE_IMPORT_MAX_OPS);
        return false;
    }
    for (int i = 0; i < in->npar; i++) {
        tine_type_t t;
        bool sgn;
        int vb;
        const char *bad = operand_type(in->par[i].type, in->par[i].etype, &t, &sgn, &vb);
        if (bad) {
            snprintf(why, nwhy, "%s (%s)", bad, in->par[i].name ? in->par[i].name : "?");
            return false;
        }
        if (vb > vbits) vbits = vb;
        if (!in->par[i].name) {
            snprintf(why, nwhy, "an unnamed operand");
            return false;
        }
        args[i] = (tine_pseudo_arg){in->par[i].name, tine_var(ctx, in->par[i].name, t), t, sgn, 0, 0};
        /* an immediate is its low bits: its values are those the instruction encodes */
        if (in->par[i].etype && !strcmp(in->par[i].etype, "IMM"))
            args[i].bits = in->par[i].immwidth > 8 ? in->par[i].immwidth : 8;
    }
    if (!in->ret.type || !strcmp(in->ret.type, "void")) {
        snprintf(why, nwhy, "no result (a store)");
        return false;
    }
    bool rsgn;
    int rb;
    const char *bad = operand_type(in->ret.type, in->ret.etype, &ret.type, &rsgn, &rb);
    if (bad) {
        snprintf(why, nwhy, "%s (the result)", bad);
        return false;
    }
    if (rb > vbits) vbits = rb;
    if (!vbits) {
        snprintf(why, nwhy, "no vector operand (a mask-register or scalar operation)");
        return false;
    }
    ret.name = in->ret.name ? in->ret.name : "dst";
    ret.sgn = rsgn;
    if (!in->op) {
        snprintf(why, nwhy, "no pseudocode");
        return false;
    }
    char err[256];
    p_node *prog = tine_pseudo_parse(a, in->op, err, sizeof err);
    if (!prog) {
        snprintf(why, nwhy, "pseudocode %s", err);
        return false;
    }
    tine_expr_t *e = tine_pseudo_eval(ctx, a, prog, args, in->npar, &ret, false, err, sizeof err);
    if (!e) {
        snprintf(why, nwhy, "pseudocode %s", err);
        return false;
    }
    e = tine_pseudo_compact(ctx, tine_pseudo_tidy(ctx, e));
    if (e->op == TINE_OP_CONCAT) { /* lanes that did not pack may with every offset */
        tine_expr_t *e2 = tine_pseudo_eval(ctx, a, prog, args, in->npar, &ret, true, err, sizeof err);
        if (e2) e2 = tine_pseudo_compact(ctx, tine_pseudo_tidy(ctx, e2));
        if (e2 && e2->op != TINE_OP_CONCAT) e = e2;
    }
    /* the text has no names for shared subexpressions: a running count (expand,
       compress) prints as a tree of exponential size */
    if (tree_size(e, 200000) >= 200000) {
        snprintf(why, nwhy, "semantics too large without shared subexpressions (a running count)");
        return false;
    }
    /* the entry */
    size_t start = out->n;
    tine_buf_printf(out, "insn %s(", in->name + (in->name[0] == '_'));
    for (int i = 0; i < in->npar; i++) {
        char ts[32];
        tine_buf_printf(out, "%s%s:%s", i ? ", " : "", args[i].name, tine_type_str(args[i].type, ts, sizeof ts));
    }
    tine_buf_puts(out, ") = ");
    /* printed at the lanes the loader elaborates a fixed entry at: its operands' most */
    int ctx_lanes = 1;
    for (int i = 0; i < in->npar; i++)
        if (args[i].type.lanes > ctx_lanes) ctx_lanes = args[i].type.lanes;
    tine_print_named(ctx, e, ctx_lanes, true, out);
    if (out->n - start > TINE_IMPORT_MAX_TEXT) {
        snprintf(why, nwhy, "semantics of %zu characters, more than %d (lanes that are not one function of the "
                 "operands' lanes)", out->n - start, TINE_IMPORT_MAX_TEXT);
        return false;
    }
    tine_buf_puts(out, "\n  fixed\n  forms ");
    tine_buf_printf(out, "%s:", reg_of(vbits));
    for (int i = 0; i < in->ncpuid; i++) tine_buf_printf(out, "%s%s", i ? "+" : "", tine_intel_feature(in->cpuid[i]));
    tine_buf_printf(out, "\n  c %s\n", in->name);
    /* an immediate's BITS: the values the intrinsic takes (a compiler refuses others) */
    for (int i = 0; i < in->npar; i++)
        if (in->par[i].etype && !strcmp(in->par[i].etype, "IMM")) {
            int bits = in->par[i].immwidth ? in->par[i].immwidth : args[i].reach > 0 && args[i].reach < 8 ? args[i].reach : 8;
            tine_buf_printf(out, "  imm %s %d\n", in->par[i].name, bits);
        }
    tine_buf_putc(out, '\n');
    return true;
}

/* Whether the intrinsic is one of the integer SIMD intrinsics of the extensions asked. */
static bool wanted(const xintr *in, const char *const *cpuids, int ncpuids) {
    if (!in->ncpuid) return false;
    for (int i = 0; i < in->ntypes; i++)
        if (strstr(in->types[i], "Floating")) return false;
    for (int i = 0; i < in->ncpuid; i++) {
        if (!tine_intel_feature(in->cpuid[i])) return false;
        bool ok = ncpuids == 0;
        for (int k = 0; k < ncpuids && !ok; k++) ok = !strcmp(cpuids[k], in->cpuid[i]);
        if (!ok) return false;
    }
    /* integer: no floating-point vector anywhere */
    const char *ts[9] = {in->ret.type};
    int n = in->npar < 8 ? in->npar : 8; /* the parameters kept */
    for (int i = 0; i < n; i++) ts[i + 1] = in->par[i].type;
    for (int i = 0; i <= n; i++)
        if (ts[i] && !strncmp(ts[i], "__m", 3) && strncmp(ts[i], "__mmask", 7) && ts[i][strlen(ts[i]) - 1] != 'i')
            return false;
    return true;
}

int tine_import_intel(tine_ctx_t *ctx, const char *xml, const char *file, const char *const *cpuids, int ncpuids,
                      tine_buf *out, tine_buf *report, tine_intel_counts *counts) {
    tine_arena a = {0};
    memset(counts, 0, sizeof *counts);
    const char *ver = strstr(xml, "<intrinsics_list");
    char *version = NULL;
    if (ver) version = attr(&a, ver, strchr(ver, '>') ? strchr(ver, '>') : ver + strlen(ver), "version");
    tine_buf_printf(out,
                    "# x86.gen.isa — generated by `tine isa import --intel` from the Intel Intrinsics Guide data\n"
                    "# file (%s, version %s): one fixed entry per integer SIMD intrinsic, its semantics translated\n"
                    "# from the intrinsic's pseudocode (src/import). Do not edit: import again.\n\n",
                    file, version ? version : "not stated");
    tine_buf_puts(out, "feature sse2 sse3 ssse3 sse4.1 sse4.2 avx2 avx512f avx512bw avx512dq avx512vl avx512vnni "
                       "avx512vbmi avx512vbmi2 avx512ifma avx512bitalg\n\nwidth xmm 128\nwidth ymm 256\nwidth zmm 512\n\n");
    const char *p = xml;
    xintr in;
    char **seen = NULL;
    int nseen = 0, capseen = 0;
    while (next_intrinsic(&a, xml, &p, &in)) {
        if (!wanted(&in, cpuids, ncpuids)) continue;
        bool dup = false;
        for (int i = 0; i < nseen && !dup; i++) dup = !strcmp(seen[i], in.name);
        if (dup) continue;
        TINE_GROW(seen, nseen + 1, capseen);
        seen[nseen++] = (char *)in.name;
        counts->candidates++;
        char why[400];
        size_t mark = out->n;
        tine_saved_error se = tine_error_save(ctx);
        if (getenv("TINE_IMPORT_TRACE")) fprintf(stderr, "%s\n", in.name);
        bool ok = import_one(ctx, &a, &in, out, why, sizeof why);
        tine_error_restore(ctx, &se);
        if (ok) counts->imported++;
        else {
            out->n = mark;
            if (out->p) out->p[mark] = 0;
            /* a pseudocode error "L:C: what" is located in the file */
            int pl, pc, used = 0;
            if (!strncmp(why, "pseudocode ", 11) && sscanf(why + 11, "%d:%d: %n", &pl, &pc, &used) == 2 && used)
                tine_buf_printf(report, "%s:%d:%d: %s: %s\n", file, in.opline + pl - 1, pc, in.name, why + 11 + used);
            else
                tine_buf_printf(report, "%s:%d: %s: %s\n", file, in.line, in.name, why);
        }
        /* per extension: the first CPUID names it */
        int k = 0;
        for (; k < counts->next && strcmp(counts->ext[k].name, in.cpuid[0]); k++) {}
        if (k == counts->next && k < 32) {
            snprintf(counts->ext[k].name, sizeof counts->ext[k].name, "%s", in.cpuid[0]);
            counts->next++;
        }
        if (k < 32) {
            counts->ext[k].candidates++;
            counts->ext[k].imported += ok;
        }
    }
    free(seen);
    tine_arena_free(&a);
    return 0;
}

int tine_isa_import_intel(tine_ctx_t *ctx, const char *xml, const char *file, const char *cpuids, char **isa_text,
                          char **report, int *imported, int *candidates) {
    const char *names[64];
    char *list = cpuids ? tine_strdup(cpuids) : NULL;
    int n = 0;
    for (char *tok = list, *next; tok && n < 64; tok = next) {
        next = strchr(tok, ',');
        if (next) *next++ = 0;
        if (!*tok) continue;
        if (!tine_intel_feature(tok)) {
            const char *best = NULL;
            int bd = 3;
            for (size_t i = 0; i < sizeof features / sizeof *features; i++) {
                int d = tine_edit_distance(tok, features[i].cpuid, strlen(features[i].cpuid));
                if (d < bd) bd = d, best = features[i].cpuid;
            }
            tine_set_error(ctx, "unknown CPUID '%s'%s%s%s (tine imports SSE2, SSE3, SSSE3, SSE4.1, SSE4.2, AVX2, AVX512F, "
                           "AVX512BW, AVX512DQ, AVX512VL, AVX512_VNNI, AVX512_VBMI, AVX512_VBMI2, AVX512IFMA52, "
                           "AVX512_BITALG)", tok, best ? ": did you mean '" : "", best ? best : "", best ? "'?" : "");
            free(list);
            return -1;
        }
        names[n++] = tok;
    }
    tine_buf out = {0}, lines = {0}, rep = {0};
    tine_intel_counts c;
    tine_import_intel(ctx, xml, file, names, n, &out, &lines, &c);
    free(list);
    tine_buf_printf(&rep, "imported %d of %d integer SIMD intrinsics (%.1f%%)\n", c.imported, c.candidates,
                    c.candidates ? 100.0 * c.imported / c.candidates : 0.0);
    for (int i = 0; i < c.next; i++)
        tine_buf_printf(&rep, "  %-14s %4d of %4d\n", c.ext[i].name, c.ext[i].imported, c.ext[i].candidates);
    if (lines.p) tine_buf_puts(&rep, lines.p);
    free(lines.p);
    *isa_text = out.p ? out.p : tine_strdup("");
    *report = rep.p;
    *imported = c.imported, *candidates = c.candidates;
    return 0;
}
