/* intrin.c — a C intrinsic's meaning, found by its name.
 *
 * `tine retarget` reads C written with one instruction set's intrinsics and lifts each
 * call through what it computes. That meaning is never written twice:
 *
 * - an intrinsic that is the C name of an instruction tine describes is that
 *   instruction's form: arm.isa's `c` lines (vrhaddq_u8 is urhadd_u8 at 16 lanes), and
 *   for x86 the entry `tine isa import` translated from Intel's pseudocode (_mm_adds_epi8
 *   is x86.gen.isa's mm_adds_epi8);
 * - the others (Neon's plain arithmetic, lane moves, loads and stores; x86's _mm_set*,
 *   loads and stores, which the guide does not give as pseudocode) are lines of a
 *   family's .intrin description (src/targets/neon.intrin, x86.intrin), each an
 *   expression in tine's syntax over the parameters, with {q} and {T} in the name
 *   standing for the d and q forms and each type of the `types` line above it. A
 *   line's semantics may call the family's other intrinsics by name, as arm_neon.h
 *   builds vmull_high_u8 from vmull_u8 and vget_high_u8, so that a form built from an
 *   instruction means that instruction. The header of neon.intrin is the format's
 *   reference.
 *
 * A name both places give is an error of the description (test_intrin checks it); the
 * instruction descriptions come first.
 */
#include "intrin.h"

#include <ctype.h>

#include "../ir/elab.h"

extern const char tine_neon_intrin_text[], tine_neon_intrin_file[];
extern const char tine_x86_intrin_text[], tine_x86_intrin_file[];

/* One line of a .intrin description. */
typedef struct {
    const char *pattern; /* the name with {q} {T} {U} {W} {B} */
    const char *params;  /* the text between the parentheses */
    const char *mem;     /* the text in [...] or NULL */
    const char *sem;     /* the expression(s) after '=' */
    char types[16][8];   /* the `types` line in force */
    int ntypes;
    int line;
} iline;

typedef struct {
    const char *family;
    const char *text, *file;
    iline *lines;
    int nlines;
    tine_u64map index;  /* hash of a name -> 1 + its entry in `all` (chains resolved by name) */
    tine_intrin **all;  /* every intrinsic known so far (made on lookup) */
    int nall, capall;
    bool read;
    tine_arena arena;
} family_state;

typedef struct {
    family_state fam[2];           /* arm, x86 */
    const family_state *calling;   /* the family whose line's semantics is being read */
    int depth;                     /* lines being read inside one another (calls) */
} intrin_state;

static void free_state(tine_ctx_t *ctx, void *p) {
    (void)ctx;
    intrin_state *st = p;
    for (int f = 0; f < 2; f++) {
        family_state *fs = &st->fam[f];
        free(fs->lines);
        for (int i = 0; i < fs->nall; i++) free(fs->all[i]);
        free(fs->all);
        tine_u64map_free(&fs->index);
        tine_arena_free(&fs->arena);
    }
    free(st);
}

static intrin_state *state(tine_ctx_t *ctx) { return tine_layer_make(ctx, TINE_LAYER_INTRIN, sizeof(intrin_state), free_state); }

static uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* ---- types ------------------------------------------------------------------------ */

/* A suffix of an intrinsic's name as an element type: s8 u8 p8 (Neon), epi8 epu8 (x86),
 * or tine's own spelling (i8, u8). */
static bool suffix_type(const char *s, tine_type_t *out) {
    tine_kind_t kind;
    const char *bits;
    if (!strncmp(s, "epi", 3)) kind = TINE_INT, bits = s + 3;
    else if (!strncmp(s, "epu", 3)) kind = TINE_UINT, bits = s + 3;
    else if (s[0] == 's' || s[0] == 'i') kind = TINE_INT, bits = s + 1;
    else if (s[0] == 'u' || s[0] == 'p') kind = TINE_UINT, bits = s + 1;
    else return false;
    int b = atoi(bits);
    if (b != 8 && b != 16 && b != 32 && b != 64) return false;
    *out = tine_type(kind, b, 1);
    return true;
}

/* The register an intrinsic works in, by its name: _mm_ 128, _mm256_ 256, _mm512_ 512;
 * Neon's names end their first part in q for a q register (vaddq_u8, vgetq_lane_u8). */
static int name_reg_bits(const char *name) {
    if (!strncmp(name, "_mm512_", 7)) return 512;
    if (!strncmp(name, "_mm256_", 7)) return 256;
    if (!strncmp(name, "_mm_", 4)) return 128;
    const char *u = strchr(name, '_');
    return u && u > name && u[-1] == 'q' ? 128 : 64;
}

/* ---- reading a description ---------------------------------------------------------- */

static bool desc_error(tine_ctx_t *ctx, const family_state *fs, int line, const char *msg) {
    tine_set_error(ctx, "%s:%d: %s", fs->file, line, msg);
    return false;
}

/* Splits the text into lines; an entry continues on lines that start with white space. */
static bool read_family(tine_ctx_t *ctx, family_state *fs) {
    fs->read = true;
    char types[16][8];
    int ntypes = 0, cap = 0;
    const char *p = fs->text;
    int line = 1;
    while (*p) {
        const char *start = p;
        int first = line;
        /* one logical line: up to a newline not followed by white space */
        while (*p) {
            if (*p == '\n') {
                line++;
                if (p[1] == ' ' || p[1] == '\t') { p++; continue; }
                break;
            }
            p++;
        }
        size_t n = (size_t)(p - start);
        if (*p) p++;
        char *l = tine_arena_strdup(&fs->arena, start, n);
        /* a comment ends at its line's end; the semantics keeps its line breaks (an error
           in it names its line), the rest of the entry is read as one line */
        for (char *c = l; *c; c++) {
            if (*c == '#') {
                while (*c && *c != '\n') *c++ = ' ';
                if (!*c) break;
            } else if (*c == '\t') {
                *c = ' ';
            }
        }
        char *close0 = strchr(l, ')'), *eq0 = close0 ? strchr(close0, '=') : NULL;
        for (char *c = l; *c && c != eq0; c++)
            if (*c == '\n') *c = ' ';
        while (*l == ' ' || *l == '\n') l++;
        size_t len = strlen(l);
        while (len && (l[len - 1] == ' ' || l[len - 1] == '\n')) l[--len] = 0;
        if (!len) continue;
        if (!strncmp(l, "types ", 6)) {
            ntypes = 0;
            for (char *tok = strtok(l + 6, " "); tok; tok = strtok(NULL, " ")) {
                tine_type_t t;
                if (ntypes == 16 || strlen(tok) >= 8 || !suffix_type(tok, &t))
                    return desc_error(ctx, fs, first, "a `types` line lists at most 16 suffixes such as u8, s16, epi32");
                strcpy(types[ntypes++], tok);
            }
            continue;
        }
        /* the parameters end at the parenthesis that closes the first (a KIND<TYPE> may
           have parentheses: d<unsigned(narrow(T))>) */
        char *open = strchr(l, '('), *close = NULL;
        for (int depth = 0, i = 0; open && open[i] && !close; i++) {
            depth += open[i] == '(' ? 1 : open[i] == ')' ? -1 : 0;
            if (!depth) close = open + i;
        }
        if (!open || !close) return desc_error(ctx, fs, first, "expected NAME(PARAM:KIND, ...) [MEM] = EXPR");
        iline il = {.line = first, .ntypes = ntypes};
        memcpy(il.types, types, sizeof types);
        *open = 0;
        *close = 0;
        il.pattern = l;
        il.params = open + 1;
        char *rest = close + 1;
        while (*rest == ' ') rest++;
        if (*rest == '[') {
            char *end = strchr(rest, ']');
            if (!end) return desc_error(ctx, fs, first, "an unclosed [");
            *end = 0;
            il.mem = rest + 1;
            rest = end + 1;
            while (*rest == ' ') rest++;
        }
        if (*rest != '=') return desc_error(ctx, fs, first, "expected '=' and the semantics");
        il.sem = rest + 1;
        TINE_GROW(fs->lines, fs->nlines + 1, cap);
        fs->lines[fs->nlines++] = il;
    }
    return true;
}

/* Whether `name` is an expansion of the line's pattern: {q} is "" or "q"; {T} and {U}
 * each suffix of the `types` line; {W} "", 256 or 512, and {B} its register's bits. What
 * each stood for is kept: a line's semantics may name other intrinsics with them. */
typedef struct {
    const iline *il;
    tine_type_t T, U;
    int ti, ui, q, w;
} mstate;

static bool match(mstate *m, const char *p, const char *s) {
    if (!*p) return !*s;
    if (*p != '{') return *p == *s && match(m, p + 1, s + 1);
    const char *close = strchr(p, '}');
    if (!close || close != p + 2) return false;
    const char *rest = close + 1;
    switch (p[1]) {
    case 'q':
        if (*s == 'q' && match(m, rest, s + 1)) return m->q = 1, true;
        if (match(m, rest, s)) return m->q = 0, true;
        return false;
    case 'T':
    case 'U':
        for (int i = 0; i < m->il->ntypes; i++) {
            size_t n = strlen(m->il->types[i]);
            if (strncmp(s, m->il->types[i], n) || !match(m, rest, s + n)) continue;
            suffix_type(m->il->types[i], p[1] == 'T' ? &m->T : &m->U);
            *(p[1] == 'T' ? &m->ti : &m->ui) = i;
            return true;
        }
        return false;
    case 'W': {
        static const char *w[] = {"", "256", "512"};
        for (int i = 2; i >= 0; i--) {
            size_t n = strlen(w[i]);
            m->w = i;
            if (!strncmp(s, w[i], n) && match(m, rest, s + n)) return true;
        }
        return false;
    }
    case 'B': {
        char b[8];
        snprintf(b, sizeof b, "%d", 128 << m->w);
        size_t n = strlen(b);
        return !strncmp(s, b, n) && match(m, rest, s + n);
    }
    default: return false;
    }
}

static bool pattern_match(const iline *il, const char *name, mstate *out) {
    mstate m = {.il = il, .ti = -1, .ui = -1};
    if (!match(&m, il->pattern, name)) return false;
    *out = m;
    return true;
}

/* ---- the intrinsic's parameters ----------------------------------------------------- */

/* An element type in a parameter's KIND<TYPE>: T, U, a type in tine's spelling (u64) or
 * a suffix's (s8), or widen, narrow, signed or unsigned of one (d<unsigned(narrow(T))>:
 * vqmovun_high_s16's first operand, uint8x8_t). Advances *s past it. */
static bool type_expr(const char **s, tine_type_t T, tine_type_t U, tine_type_t *out) {
    const char *p = *s;
    size_t n = 0; /* the name, up to an x of lanes (u8x32) */
    while (isalnum((unsigned char)p[n]) && !(p[n] == 'x' && n && isdigit((unsigned char)p[n - 1]))) n++;
    if (!n) return false;
    tine_type_t t = {0, 0, 0};
    if (p[n] == '(') {
        const char *q = p + n + 1;
        if (!type_expr(&q, T, U, &t) || *q != ')' || !tine_type_is_int(t)) return false;
        if (n == 5 && !strncmp(p, "widen", 5)) t = tine_type_widen(t);
        else if (n == 6 && !strncmp(p, "narrow", 6)) t = tine_type_narrow(t);
        else if (n == 6 && !strncmp(p, "signed", 6)) t = tine_type_with_kind(t, TINE_INT);
        else if (n == 8 && !strncmp(p, "unsigned", 8)) t = tine_type_with_kind(t, TINE_UINT);
        else return false;
        p = q + 1;
    } else {
        char word[16];
        if (n >= sizeof word) return false;
        memcpy(word, p, n);
        word[n] = 0;
        if (!strcmp(word, "T")) t = T;
        else if (!strcmp(word, "U")) t = U;
        else if (!tine_parse_type_name(word, n, &t) && !suffix_type(word, &t)) return false;
        p += n;
    }
    if (!tine_type_valid(t) || !t.bits) return false;
    int lanes = 1;
    if (*p == 'x' && isdigit((unsigned char)p[1])) { /* a vector: u8x32 */
        lanes = (int)strtol(p + 1, (char **)&p, 10);
        if (lanes < 1 || lanes > TINE_MAX_LANES) return false;
    }
    *out = tine_type_with_lanes(t, lanes);
    *s = p;
    return true;
}

/* A bound of an immediate's range: a number, L (the register's lanes of T), D or Q (the
 * lanes of T in a d or q register) or B (T's bits), then any of -N +N *N /N, left to
 * right (i0..D-1, i1..B/2). */
static bool imm_bound(const char **s, tine_type_t T, int reg, int *out) {
    const char *p = *s;
    long v;
    if (isdigit((unsigned char)*p)) v = strtol(p, (char **)&p, 10);
    else if (*p == 'L') v = reg / T.bits, p++;
    else if (*p == 'D') v = 64 / T.bits, p++;
    else if (*p == 'Q') v = 128 / T.bits, p++;
    else if (*p == 'B') v = T.bits, p++;
    else return false;
    while (*p && strchr("+-*/", *p) && isdigit((unsigned char)p[1])) {
        char op = *p++;
        long k = strtol(p, (char **)&p, 10);
        v = op == '+' ? v + k : op == '-' ? v - k : op == '*' ? v * k : k ? v / k : v;
    }
    *out = (int)v;
    *s = p;
    return true;
}

/* KIND of a parameter of a line: v d q w m s i p u, a tuple count after v d q, an
 * element type other than T in <...> after v d q s p (a type with lanes, u8x32, is that
 * vector), a range after i. */
static bool param_type(const char *kind, tine_type_t T, tine_type_t U, int reg, tine_iparam *out) {
    char k = kind[0];
    const char *p = kind + 1;
    int n = 0;
    while (strchr("vdq", k) && isdigit((unsigned char)*p)) n = n * 10 + (*p++ - '0');
    if (n > 4) return false;
    tine_type_t E = T; /* the element type of v d q s p */
    if (*p == '<') {
        p++;
        if (!strchr("vdqsp", k) || !type_expr(&p, T, U, &E) || *p++ != '>') return false;
    }
    if (E.lanes > 1 && !n && strchr("vdqs", k)) { /* a type with lanes is that vector */
        out->type = E;
        out->kind = TINE_IP_VEC;
        out->n = 0;
        out->lo = 0;
        out->hi = -1;
        return !*p;
    }
    E = tine_type_with_lanes(E, 1);
    out->n = n;
    out->lo = 0;
    out->hi = -1;
    if (k == 'i') {
        out->type = tine_type(TINE_INT, 32, 1);
        out->kind = TINE_IP_IMM;
        if (!*p) return true;
        if (!imm_bound(&p, T, reg, &out->lo) || strncmp(p, "..", 2)) return false;
        p += 2;
        return imm_bound(&p, T, reg, &out->hi) && !*p && out->lo <= out->hi;
    }
    if (*p) return false;
    int b = E.bits;
    switch (k) {
    case 'v': out->type = tine_type_with_lanes(E, reg / b); break;
    case 'd': out->type = tine_type_with_lanes(E, 64 / b); break;
    case 'q': out->type = tine_type_with_lanes(E, 128 / b); break;
    case 'w': if (b == 64) return false; out->type = tine_type_with_lanes(tine_type_widen(T), 64 / b); break;
    case 'm': out->type = tine_type_with_lanes(tine_type_with_kind(T, TINE_UINT), reg / b); break;
    case 's': out->type = E; break;
    case 'p': out->type = E; out->kind = TINE_IP_PTR; return true;
    case 'u': if (!U.bits) return false; out->type = tine_type_with_lanes(U, reg / U.bits); break;
    default: return false;
    }
    out->kind = n ? TINE_IP_TUPLE : k == 's' ? TINE_IP_SCALAR : TINE_IP_VEC;
    return out->type.lanes >= 1;
}

/* The value of a [load K] count: an integer, or L, 2L, 3L, 4L (L: the register's lanes). */
static int mem_count(const char *s, int L) {
    while (*s == ' ') s++;
    if (!strcmp(s, "L")) return L;
    if (isdigit((unsigned char)s[0]) && s[1] == 'L' && !s[2]) return (s[0] - '0') * L;
    return atoi(s);
}

/* ---- semantics ---------------------------------------------------------------------- */

/* The semantics text with {T} {U} {q} {W} {B} as in the intrinsic's name (a line's
 * semantics may call other intrinsics: vmull_high_{T} is vmull_{T} of the high halves),
 * each immediate's name replaced by its value, L by the register's lanes of T, B by T's
 * bits and V by the register's vector of T (a type: reinterpret<V>). */
static char *subst_text(const iline *il, const tine_intrin *in, const int64_t *imms, int L) {
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    const char *p = il->sem;
    while (*p) {
        if (p[0] == '{' && p[1] && p[2] == '}') {
            static const char *ws[3] = {"", "256", "512"};
            int tu = p[1] == 'T' ? in->ti : p[1] == 'U' ? in->ui : -1;
            if (tu >= 0) tine_buf_puts(&b, il->types[tu]);
            else if (p[1] == 'q') tine_buf_puts(&b, in->q ? "q" : "");
            else if (p[1] == 'W') tine_buf_puts(&b, ws[in->w]);
            else if (p[1] == 'B') tine_buf_printf(&b, "%d", in->reg_bits);
            else tine_buf_printf(&b, "%.3s", p); /* the parser says what is wrong */
            p += 3;
            continue;
        }
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
            if (*p == '{' || (s > il->sem && s[-1] == '}')) { /* a name with braces in it: its parts */
                tine_buf_printf(&b, "%.*s", (int)(p - s), s);
                continue;
            }
            size_t n = (size_t)(p - s);
            bool done = false;
            int ii = 0;
            for (int k = 0; k < in->nparams && !done; k++) {
                if (in->param[k].kind != TINE_IP_IMM) continue;
                if (strlen(in->param[k].name) == n && !strncmp(in->param[k].name, s, n)) {
                    tine_buf_printf(&b, "(%lld)", (long long)imms[ii]);
                    done = true;
                }
                ii++;
            }
            if (!done && n == 1 && *s == 'L') tine_buf_printf(&b, "%d", L), done = true;
            if (!done && n == 1 && *s == 'B') tine_buf_printf(&b, "%d", in->T.bits), done = true;
            if (!done && n == 1 && *s == 'V') { /* the register's vector of T, as a type (i64x1 too) */
                char tn[32];
                tine_buf_printf(&b, "%sx%d", tine_type_str(tine_type_with_lanes(in->T, 1), tn, sizeof tn), L);
                done = true;
            }
            if (!done) tine_buf_printf(&b, "%.*s", (int)n, s);
            continue;
        }
        tine_buf_printf(&b, "%c", *p++);
    }
    return b.p;
}

static const iline *line_of(tine_ctx_t *ctx, const tine_intrin *in) {
    intrin_state *st = state(ctx);
    for (int f = 0; f < 2; f++)
        if (in->from == st->fam[f].file) return &st->fam[f].lines[in->line];
    return NULL;
}

/* ---- other intrinsics in a semantics ------------------------------------------------- */

/* A call in a line's semantics of another intrinsic of the family, as arm_neon.h writes
 * vmull_high_u8 as vmull_u8(vget_high_u8(a), vget_high_u8(b)): its meaning, wherever
 * that is written (an instruction's semantics or another line). Immediates are integer
 * constants; loads, stores and tuple results cannot be called. Other calls go on to the
 * instruction descriptions' hooks (lanes(x), the imported x86 entries). */
static bool intrin_call(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out) {
    tine_ctx_t *ctx = tine_elab_ctx(el);
    intrin_state *st = state(ctx);
    const char *n = a->name;
    bool candidate = st->calling && (st->calling->family[0] == 'x' ? !strncmp(n, "_mm", 3) : n[0] == 'v') &&
                     strcmp(n, "vector_reduce_add");
    if (!candidate) return tine_isa_sem_hooks()->call(el, a, lanes, out);
    if (st->depth >= 16) { /* finding the callee reads its line, which may call it again */
        *out = tine_elab_fail(el, a, "%s: intrinsics call each other 16 deep (a cycle?)", n);
        return true;
    }
    tine_saved_error saved = tine_error_save(ctx);
    const tine_intrin *in = tine_intrin_find(ctx, st->calling->family, n);
    if (!in) {
        if (tine_error(ctx)) { /* a line of that name whose semantics does not read */
            free(saved.msg);
            *out = tine_elab_typed(el, a, NULL);
            return true;
        }
        tine_error_restore(ctx, &saved);
        return tine_isa_sem_hooks()->call(el, a, lanes, out);
    }
    tine_error_restore(ctx, &saved);
    *out = (tine_elab_val){0};
    if (a->targ) {
        *out = tine_elab_fail(el, a, "%s takes no type parameter", n);
        return true;
    }
    if (in->mem != TINE_INTRIN_VALUE || in->nresults != 1) {
        *out = tine_elab_fail(el, a, "%s: a load, a store or a tuple result cannot be called in a semantics", n);
        return true;
    }
    tine_expr_t *args[TINE_INTRIN_MAX_PARAMS * 4];
    int64_t imms[TINE_INTRIN_MAX_PARAMS];
    int na = 0, ni = 0, ai = 0;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *pp = &in->param[k];
        for (int j = 0; j < (pp->kind == TINE_IP_TUPLE ? pp->n : 1); j++, ai++) {
            if (ai >= a->nargs) {
                *out = tine_elab_fail(el, a, "%s takes more arguments", n);
                return true;
            }
            tine_elab_val v = tine_elab_expr(el, a->args[ai], pp->kind == TINE_IP_IMM ? 1 : pp->type.lanes);
            if (!tine_elab_ok(el, v)) return true;
            if (pp->kind == TINE_IP_IMM) {
                if (v.lit != 1) {
                    *out = tine_elab_fail(el, a->args[ai], "%s: operand %s is an integer constant", n, pp->name);
                    return true;
                }
                imms[ni++] = (int64_t)v.iv;
                continue;
            }
            if (v.lit) v = tine_elab_lit_to(el, a->args[ai], v, pp->type);
            if (!tine_elab_ok(el, v)) return true;
            if (!tine_type_eq(v.e->type, pp->type)) {
                char want[32], got[32];
                *out = tine_elab_fail(el, a->args[ai], "%s: operand %s is %s, not %s", n, pp->name,
                                      tine_type_str(pp->type, want, sizeof want), tine_type_str(v.e->type, got, sizeof got));
                return true;
            }
            args[na++] = v.e;
        }
    }
    if (ai != a->nargs) {
        *out = tine_elab_fail(el, a, "%s takes %d arguments, not %d", n, ai, a->nargs);
        return true;
    }
    tine_expr_t *r[TINE_INTRIN_MAX_RESULTS];
    *out = tine_elab_typed(el, a, tine_intrin_apply(ctx, in, args, imms, NULL, r) ? r[0] : NULL);
    return true;
}

static const tine_elab_hooks INTRIN_HOOKS = {.call = intrin_call};

/* Where the semantics text starts in the description: parsing it after that many line
 * breaks and spaces makes the parser's and elaborator's errors name the line and (near
 * enough: substituted immediates shift it) the column in the .intrin file. */
static char *located(const iline *il, const char *whole, const char *part) {
    int line = il->line, col = (int)(il->sem - il->pattern) + 1;
    for (const char *c = whole; c < part; c++) {
        if (*c == '\n') line++, col = 1;
        else col++;
    }
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    for (int i = 1; i < line; i++) tine_buf_puts(&b, "\n");
    tine_buf_printf(&b, "%*s%s", col - 1, "", part);
    return b.p;
}

static bool apply_line(tine_ctx_t *ctx, const tine_intrin *in, tine_expr_t *const *args, const int64_t *imms,
                       tine_expr_t *mem, tine_expr_t **results, int *nres) {
    const iline *il = line_of(ctx, in);
    int L = in->reg_bits / in->T.bits;
    char *text = subst_text(il, in, imms, L);
    tine_binding binds[TINE_INTRIN_MAX_PARAMS * 4 + 1];
    char names[TINE_INTRIN_MAX_PARAMS * 4][24];
    int nb = 0, ai = 0;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *pp = &in->param[k];
        if (pp->kind == TINE_IP_IMM || pp->kind == TINE_IP_PTR) continue;
        if (pp->kind == TINE_IP_TUPLE) {
            for (int j = 0; j < pp->n; j++) {
                snprintf(names[nb], sizeof names[nb], "%s%d", pp->name, j);
                binds[nb].name = names[nb];
                binds[nb++].expr = args[ai++];
            }
            continue;
        }
        binds[nb].name = pp->name;
        binds[nb++].expr = args[ai++];
    }
    if (mem) binds[nb].name = "mem", binds[nb++].expr = mem;
    intrin_state *st = state(ctx);
    const family_state *outer = st->calling;
    for (int f = 0; f < 2; f++)
        if (in->from == st->fam[f].file) st->calling = &st->fam[f];
    st->depth++;
    bool ok = true;
    *nres = 0;
    char *part = text;
    while (ok && part) {
        char *semi = strchr(part, ';');
        if (semi) *semi = 0;
        char *src = located(il, text, part);
        tine_arena arena = {0};
        tine_ast *ast = tine_parse_ast(ctx, &arena, src, in->from);
        tine_elab_env env = {.binds = binds, .nbinds = nb, .lanes = L, .T = in->T, .U = in->U, .hooks = &INTRIN_HOOKS};
        tine_expr_t *r = ast ? tine_elaborate(ctx, ast, &env) : NULL;
        tine_arena_free(&arena);
        free(src);
        if (!r || *nres == TINE_INTRIN_MAX_RESULTS) {
            if (r) tine_set_error(ctx, "%s:%d: more than %d results", in->from, il->line, TINE_INTRIN_MAX_RESULTS);
            ok = false;
            break;
        }
        results[(*nres)++] = tine_expand(ctx, r);
        part = semi ? semi + 1 : NULL;
    }
    st->depth--;
    st->calling = outer;
    free(text);
    return ok;
}

/* ---- finding an intrinsic ------------------------------------------------------------ */

static tine_intrin *from_line(tine_ctx_t *ctx, family_state *fs, int li, const char *name, const mstate *m) {
    const iline *il = &fs->lines[li];
    tine_intrin *in = tine_xcalloc(1, sizeof *in);
    in->name = tine_arena_strdup(&fs->arena, name, strlen(name));
    in->from = fs->file;
    in->src_kind = 1;
    in->line = li;
    in->T = m->T;
    in->U = m->U;
    in->ti = m->ti;
    in->ui = m->ui;
    in->q = m->q;
    in->w = m->w;
    /* a {q} in the pattern says it (vceq_u8 is the d form, though its name's first part
       ends in q), else the name */
    in->reg_bits = strstr(il->pattern, "{q}") ? (in->q ? 128 : 64) : name_reg_bits(name);
    if (!in->T.bits && il->ntypes == 1) suffix_type(il->types[0], &in->T), in->ti = 0;
    if (!in->T.bits) {
        tine_set_error(ctx, "%s:%d: %s: no element type (a {T} in the name, or a `types` line of one)", fs->file, il->line, name);
        free(in);
        return NULL;
    }
    /* the parameters */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", il->params);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        while (*tok == ' ') tok++;
        char *colon = strchr(tok, ':');
        tine_iparam *pp = &in->param[in->nparams];
        if (!colon || in->nparams == TINE_INTRIN_MAX_PARAMS || !param_type(colon + 1, in->T, in->U, in->reg_bits, pp)) {
            tine_set_error(ctx,
                           "%s:%d: %s: a parameter is NAME:KIND (v d q w m s i p u; v2 d3 q4 tuples; v<TYPE> d q s p "
                           "of another element type; i LO..HI)",
                           fs->file, il->line, name);
            free(in);
            return NULL;
        }
        *colon = 0;
        pp->name = tine_arena_strdup(&fs->arena, tok, strlen(tok));
        in->nparams++;
    }
    int L = in->reg_bits / in->T.bits;
    in->mem_elem = in->T; /* or the pointer's element (p<u32>) */
    for (int k = 0; k < in->nparams; k++)
        if (in->param[k].kind == TINE_IP_PTR) in->mem_elem = in->param[k].type;
    if (il->mem) {
        if (!strncmp(il->mem, "load", 4)) in->mem = TINE_INTRIN_LOAD, in->mem_lanes = mem_count(il->mem + 4, L);
        else if (!strcmp(il->mem, "store")) in->mem = TINE_INTRIN_STORE;
        else {
            tine_set_error(ctx, "%s:%d: [load K] or [store]", fs->file, il->line);
            free(in);
            return NULL;
        }
    }
    /* the result types: the semantics applied once to variables (immediates at the low
       end of their range, or 0) */
    tine_expr_t *args[TINE_INTRIN_MAX_PARAMS * 4];
    int64_t imms[TINE_INTRIN_MAX_PARAMS];
    int na = 0, ni = 0;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *pp = &in->param[k];
        char vn[32];
        if (pp->kind == TINE_IP_IMM) imms[ni++] = pp->lo <= pp->hi ? pp->lo : 0;
        else if (pp->kind == TINE_IP_TUPLE)
            for (int j = 0; j < pp->n; j++) snprintf(vn, sizeof vn, "$%d", na), args[na++] = tine_var(ctx, vn, pp->type);
        else if (pp->kind != TINE_IP_PTR) snprintf(vn, sizeof vn, "$%d", na), args[na++] = tine_var(ctx, vn, pp->type);
    }
    tine_expr_t *mem = NULL;
    if (in->mem == TINE_INTRIN_LOAD) {
        if (in->mem_lanes < 1 || in->mem_lanes > TINE_MAX_LANES) {
            tine_set_error(ctx, "%s:%d: a load's count is 1..%d or L, 2L, 3L, 4L", fs->file, il->line, TINE_MAX_LANES);
            free(in);
            return NULL;
        }
        mem = tine_var(ctx, "$mem", tine_type_with_lanes(in->mem_elem, in->mem_lanes));
    }
    tine_expr_t *res[TINE_INTRIN_MAX_RESULTS];
    int nres = 0;
    if (!apply_line(ctx, in, args, imms, mem, res, &nres)) {
        free(in);
        return NULL;
    }
    if (in->mem == TINE_INTRIN_STORE) {
        in->mem_elem = res[0]->type;
        in->mem_elem.lanes = 1;
        in->mem_lanes = res[0]->type.lanes;
    } else {
        in->nresults = nres;
        for (int i = 0; i < nres; i++) in->result[i] = res[i]->type;
    }
    return in;
}

/* The form of an instruction whose C name this is: its parameters at that register. */
static tine_intrin *from_insn(const tine_insn *ins, uint32_t code, int f, const char *from) {
    tine_intrin *in = tine_xcalloc(1, sizeof *in);
    const tine_insn_form *fm = &ins->form[f];
    in->name = fm->c;
    in->from = from;
    in->code = code;
    in->reg_bits = fm->bits;
    /* the result's lanes: as many as fill the form's register (forms are named by the
       result's: xtn's d form reads a q register), fewer where an operand would not fit in
       a Neon register (a sum across lanes: addv's q form writes one lane), except where
       the operand is two registers by design (a pairwise `pack` instruction: vpaddq_s8's
       a and b are its one operand's halves) */
    int rl = ins->fixed ? ins->result.lanes : fm->bits / ins->result.bits, ol[TINE_INSN_MAX_OPS] = {0};
    if (!ins->fixed && tine_insn_operand_lanes(ins, rl, ol)) {
        int widest = 0;
        for (int j = 0; j < ins->nops; j++)
            if (ol[j] * ins->optype[j].bits > widest) widest = ol[j] * ins->optype[j].bits;
        if (widest > 128 && !ins->pack) {
            rl = rl * 128 / widest;
            if (rl < 1 || !tine_insn_operand_lanes(ins, rl, ol)) rl = 1, tine_insn_operand_lanes(ins, 1, ol);
        }
    }
    for (int j = 0; j < ins->nops; j++) {
        int lanes = ins->fixed ? ins->optype[j].lanes : ol[j];
        /* a pack entry's one operand is the two registers the C intrinsic takes (vpmin_s16's
           a and b are sminp_i16's operand, its halves) */
        for (int k = 0; k < (ins->pack ? 2 : 1); k++) {
            tine_iparam *pp = &in->param[in->nparams++];
            pp->name = ins->pack ? (k ? "b" : "a") : ins->opname[j];
            int pl = ins->pack ? lanes / 2 : lanes;
            pp->type = tine_type_with_lanes(ins->optype[j], pl < 1 ? 1 : pl);
            pp->kind = j == ins->imm ? TINE_IP_IMM : pp->type.lanes == 1 ? TINE_IP_SCALAR : TINE_IP_VEC;
            /* the descriptions do not say what the C intrinsic accepts (imm NAME BITS is the
               bits of the useful values, not a limit of the C call) */
            pp->lo = 0;
            pp->hi = -1;
        }
    }
    in->pack = ins->pack;
    in->nresults = 1;
    in->result[0] = tine_type_with_lanes(ins->result, rl);
    return in;
}

static family_state *family(tine_ctx_t *ctx, const char *name) {
    intrin_state *st = state(ctx);
    int f = !strcmp(name, "x86");
    if (f == 0 && strcmp(name, "arm")) {
        tine_set_error(ctx, "no intrinsics family '%s' (arm, x86)", name);
        return NULL;
    }
    family_state *fs = &st->fam[f];
    if (!fs->family) {
        fs->family = f ? "x86" : "arm";
        fs->text = f ? tine_x86_intrin_text : tine_neon_intrin_text;
        fs->file = f ? tine_x86_intrin_file : tine_neon_intrin_file;
    }
    if (!fs->read && !read_family(ctx, fs)) return NULL;
    return fs;
}

static const tine_intrin *remember(family_state *fs, tine_intrin *in) {
    TINE_GROW(fs->all, fs->nall + 1, fs->capall);
    fs->all[fs->nall++] = in;
    tine_u64map_put(&fs->index, name_hash(in->name), (uint64_t)fs->nall);
    return in;
}

/* An instruction form whose C name is `name`: arm.isa's forms, or the imported x86 entry
 * of that name (_mm_adds_epi8 is mm_adds_epi8). */
static tine_intrin *find_insn(tine_ctx_t *ctx, const family_state *fs, const char *name) {
    bool x86 = !strcmp(fs->family, "x86");
    const tine_isa *isa = tine_isa_get(ctx, x86 ? "x86gen" : "arm");
    if (!isa) return NULL;
    if (x86) {
        if (name[0] != '_') return NULL;
        int code = tine_isa_lookup(ctx, name + 1);
        if (code < 0) return NULL;
        const tine_isa *owner;
        const tine_insn *ins = tine_insn_info(ctx, (uint32_t)code, &owner);
        if (owner != isa) return NULL;
        return from_insn(ins, (uint32_t)code, 0, "x86.gen.isa");
    }
    for (int k = 0; k < isa->n; k++)
        for (int f = 0; f < isa->insn[k].nforms; f++)
            if (isa->insn[k].form[f].c && !strcmp(isa->insn[k].form[f].c, name)) {
                int code = tine_isa_lookup(ctx, isa->insn[k].name);
                return from_insn(&isa->insn[k], (uint32_t)code, f, "arm.isa");
            }
    return NULL;
}

const tine_intrin *tine_intrin_find(tine_ctx_t *ctx, const char *fam, const char *name) {
    family_state *fs = family(ctx, fam);
    if (!fs) return NULL;
    uint64_t v;
    if (tine_u64map_get(&fs->index, name_hash(name), &v) && !strcmp(fs->all[v - 1]->name, name)) return fs->all[v - 1];
    for (int i = 0; i < fs->nall; i++) /* a hash collision: the slow way */
        if (!strcmp(fs->all[i]->name, name)) return fs->all[i];
    tine_intrin *in = find_insn(ctx, fs, name);
    for (int li = 0; !in && li < fs->nlines; li++) {
        mstate m;
        if (!pattern_match(&fs->lines[li], name, &m)) continue;
        in = from_line(ctx, fs, li, name, &m);
        if (!in) return NULL;
    }
    return in ? remember(fs, in) : NULL;
}

bool tine_intrin_apply(tine_ctx_t *ctx, const tine_intrin *in, tine_expr_t *const *args, const int64_t *imms,
                       tine_expr_t *mem, tine_expr_t **results) {
    int na = 0, ni = 0;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *pp = &in->param[k];
        if (pp->kind == TINE_IP_IMM) {
            if (pp->lo <= pp->hi && (imms[ni] < pp->lo || imms[ni] > pp->hi)) {
                tine_set_error(ctx, "%s: operand %s is %lld, outside %d..%d", in->name, pp->name, (long long)imms[ni],
                               pp->lo, pp->hi);
                return false;
            }
            ni++;
            continue;
        }
        if (pp->kind == TINE_IP_PTR) continue;
        for (int j = 0; j < (pp->kind == TINE_IP_TUPLE ? pp->n : 1); j++, na++)
            if (!tine_type_eq(args[na]->type, pp->type)) {
                char want[32], got[32];
                tine_set_error(ctx, "%s: operand %s is %s, not %s", in->name, pp->name,
                               tine_type_str(args[na]->type, got, sizeof got), tine_type_str(pp->type, want, sizeof want));
                return false;
            }
    }
    if (in->src_kind == 1) {
        int nres;
        return apply_line(ctx, in, args, imms, mem, results, &nres);
    }
    const tine_insn *ins = tine_insn_info(ctx, in->code, NULL);
    tine_expr_t *ops[TINE_INSN_MAX_OPS];
    na = ni = 0;
    if (in->pack) { /* the operand is the two registers, in order */
        ops[0] = tine_concat(ctx, 2, args);
        na = 2;
    }
    for (int j = in->pack ? 1 : 0; j < ins->nops; j++) {
        int k = in->pack ? j + 1 : j;
        ops[j] = in->param[k].kind == TINE_IP_IMM ? tine_const_int(ctx, in->param[k].type, imms[ni++]) : args[na++];
    }
    tine_expr_t *e = tine_insn_make(ctx, in->code, ins->nops, ops);
    if (!e) return false;
    results[0] = tine_expand(ctx, e);
    return results[0] != NULL;
}

bool tine_intrin_each(tine_ctx_t *ctx, const char *fam, tine_intrin_each_fn fn, void *user) {
    family_state *fs = family(ctx, fam);
    if (!fs) return false;
    char *failed = NULL;
    bool x86 = !strcmp(fs->family, "x86");
    const tine_isa *isa = tine_isa_get(ctx, x86 ? "x86gen" : "arm");
    for (int k = 0; isa && k < isa->n; k++)
        for (int f = 0; f < isa->insn[k].nforms; f++) {
            const char *c = isa->insn[k].form[f].c;
            if (!c) continue;
            const tine_intrin *in = tine_intrin_find(ctx, fam, c);
            if (in && !fn(user, in)) goto stop;
        }
    /* the description's names: every expansion of each line */
    for (int li = 0; li < fs->nlines; li++) {
        const iline *il = &fs->lines[li];
        const char *qs[2] = {"", "q"}, *ws[3] = {"", "256", "512"};
        bool hq = strstr(il->pattern, "{q}"), hT = strstr(il->pattern, "{T}"), hU = strstr(il->pattern, "{U}"),
             hW = strstr(il->pattern, "{W}");
        for (int q = 0; q < (hq ? 2 : 1); q++)
            for (int w = 0; w < (hW ? 3 : 1); w++)
                for (int t = 0; t < (hT ? il->ntypes : 1); t++)
                    for (int u = 0; u < (hU ? il->ntypes : 1); u++) {
                        if (hU && u == t) continue;
                        tine_buf b = {0};
                        tine_buf_puts(&b, "");
                        for (const char *p = il->pattern; *p; p++) {
                            if (!strncmp(p, "{q}", 3)) tine_buf_puts(&b, qs[q]), p += 2;
                            else if (!strncmp(p, "{T}", 3)) tine_buf_puts(&b, il->types[t]), p += 2;
                            else if (!strncmp(p, "{U}", 3)) tine_buf_puts(&b, il->types[u]), p += 2;
                            else if (!strncmp(p, "{W}", 3)) tine_buf_puts(&b, ws[w]), p += 2;
                            else if (!strncmp(p, "{B}", 3)) tine_buf_printf(&b, "%d", 128 << w), p += 2;
                            else tine_buf_printf(&b, "%c", *p);
                        }
                        const tine_intrin *in = tine_intrin_find(ctx, fam, b.p);
                        free(b.p);
                        if (!in) { /* the first failure's message is kept; the others still come */
                            if (!failed) failed = tine_strdup(tine_error(ctx) ? tine_error(ctx) : "an intrinsic not found");
                            tine_clear_error(ctx);
                            continue;
                        }
                        if (!fn(user, in)) goto stop;
                    }
    }
stop:
    if (failed) {
        tine_set_error(ctx, "%s", failed);
        free(failed);
        return false;
    }
    return true;
}

bool tine_intrin_read_text(tine_ctx_t *ctx, const char *fam, const char *text, const char *file) {
    if (strcmp(fam, "arm") && strcmp(fam, "x86")) return family(ctx, fam) != NULL; /* the error */
    family_state *fs = family(ctx, fam);
    if (!fs) { /* the built-in text's error does not matter: it is replaced */
        tine_clear_error(ctx);
        fs = &state(ctx)->fam[!strcmp(fam, "x86")];
    }
    free(fs->lines);
    for (int i = 0; i < fs->nall; i++) free(fs->all[i]);
    free(fs->all);
    tine_u64map_free(&fs->index);
    tine_arena_free(&fs->arena);
    fs->lines = NULL;
    fs->all = NULL;
    fs->nlines = fs->nall = fs->capall = 0;
    memset(&fs->index, 0, sizeof fs->index);
    fs->text = tine_arena_strdup(&fs->arena, text, strlen(text));
    fs->file = tine_arena_strdup(&fs->arena, file, strlen(file));
    return read_family(ctx, fs);
}
