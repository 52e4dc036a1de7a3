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
 *   standing for the d and q forms and each type of the `types` line above it. The
 *   header of neon.intrin is the format's reference.
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
    family_state fam[2]; /* arm, x86 */
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
        char *hash = strchr(l, '#');
        if (hash) *hash = 0;
        for (char *c = l; *c; c++)
            if (*c == '\n' || *c == '\t') *c = ' ';
        while (*l == ' ') l++;
        size_t len = strlen(l);
        while (len && l[len - 1] == ' ') l[--len] = 0;
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
        char *open = strchr(l, '('), *eq = strstr(l, ") ");
        char *close = open ? strchr(open, ')') : NULL;
        if (!open || !close || !eq) return desc_error(ctx, fs, first, "expected NAME(PARAM:KIND, ...) [MEM] = EXPR");
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
 * each suffix of the `types` line; {W} "", 256 or 512, and {B} its register's bits. */
typedef struct {
    const iline *il;
    tine_type_t T, U;
    int w;
} mstate;

static bool match(mstate *m, const char *p, const char *s) {
    if (!*p) return !*s;
    if (*p != '{') return *p == *s && match(m, p + 1, s + 1);
    const char *close = strchr(p, '}');
    if (!close || close != p + 2) return false;
    const char *rest = close + 1;
    switch (p[1]) {
    case 'q': return (*s == 'q' && match(m, rest, s + 1)) || match(m, rest, s);
    case 'T':
    case 'U':
        for (int i = 0; i < m->il->ntypes; i++) {
            size_t n = strlen(m->il->types[i]);
            if (strncmp(s, m->il->types[i], n) || !match(m, rest, s + n)) continue;
            suffix_type(m->il->types[i], p[1] == 'T' ? &m->T : &m->U);
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

static bool pattern_match(const iline *il, const char *name, tine_type_t *T, tine_type_t *U) {
    mstate m = {.il = il};
    if (!match(&m, il->pattern, name)) return false;
    *T = m.T;
    *U = m.U;
    return true;
}

/* ---- the intrinsic's parameters ----------------------------------------------------- */

/* KIND of a parameter of a line: v d q w m s i p u, a tuple count after v d q. */
static bool param_type(const char *kind, tine_type_t T, tine_type_t U, int reg, tine_iparam *out) {
    int b = T.bits;
    char k = kind[0];
    int n = kind[1] ? atoi(kind + 1) : 0;
    if (n && (k != 'v' && k != 'd' && k != 'q')) return false;
    out->n = n;
    switch (k) {
    case 'v': out->type = tine_type_with_lanes(T, reg / b); break;
    case 'd': out->type = tine_type_with_lanes(T, 64 / b); break;
    case 'q': out->type = tine_type_with_lanes(T, 128 / b); break;
    case 'w': if (b == 64) return false; out->type = tine_type_with_lanes(tine_type_widen(T), 64 / b); break;
    case 'm': out->type = tine_type_with_lanes(tine_type_with_kind(T, TINE_UINT), reg / b); break;
    case 's': out->type = T; break;
    case 'i': out->type = tine_type(TINE_INT, 32, 1); out->kind = TINE_IP_IMM; return true;
    case 'p': out->type = T; out->kind = TINE_IP_PTR; return true;
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

/* The semantics text with each immediate's name and L replaced by its value. */
static char *subst_text(const char *sem, const tine_intrin *in, const int64_t *imms, int L) {
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    const char *p = sem;
    while (*p) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
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
            if (!done && n == 1 && *s == 'V') { /* the register's vector of T, as a type */
                char tn[32];
                tine_buf_puts(&b, tine_type_str(tine_type_with_lanes(in->T, L), tn, sizeof tn));
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

static bool apply_line(tine_ctx_t *ctx, const tine_intrin *in, tine_expr_t *const *args, const int64_t *imms,
                       tine_expr_t *mem, tine_expr_t **results, int *nres) {
    const iline *il = line_of(ctx, in);
    int L = in->reg_bits / in->T.bits;
    char *text = subst_text(il->sem, in, imms, L);
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
    bool ok = true;
    *nres = 0;
    char *part = text;
    while (ok && part) {
        char *semi = strchr(part, ';');
        if (semi) *semi = 0;
        tine_arena arena = {0};
        tine_ast *ast = tine_parse_ast(ctx, &arena, part, in->from);
        tine_elab_env env = {.binds = binds, .nbinds = nb, .lanes = L, .T = in->T, .U = in->U,
                             .hooks = tine_isa_sem_hooks()};
        tine_expr_t *r = ast ? tine_elaborate(ctx, ast, &env) : NULL;
        tine_arena_free(&arena);
        if (!r || *nres == TINE_INTRIN_MAX_RESULTS) {
            if (r) tine_set_error(ctx, "%s:%d: more than %d results", in->from, il->line, TINE_INTRIN_MAX_RESULTS);
            ok = false;
            break;
        }
        results[(*nres)++] = tine_expand(ctx, r);
        part = semi ? semi + 1 : NULL;
    }
    free(text);
    return ok;
}

/* ---- finding an intrinsic ------------------------------------------------------------ */

static tine_intrin *from_line(tine_ctx_t *ctx, family_state *fs, int li, const char *name, tine_type_t T, tine_type_t U) {
    const iline *il = &fs->lines[li];
    tine_intrin *in = tine_xcalloc(1, sizeof *in);
    in->name = tine_arena_strdup(&fs->arena, name, strlen(name));
    in->from = fs->file;
    in->src_kind = 1;
    in->line = li;
    in->T = T;
    in->U = U;
    in->reg_bits = name_reg_bits(name);
    if (!T.bits && il->ntypes == 1) suffix_type(il->types[0], &in->T);
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
            tine_set_error(ctx, "%s:%d: %s: a parameter is NAME:KIND (v d q w m s i p u; v2 d3 q4 tuples)", fs->file,
                           il->line, name);
            free(in);
            return NULL;
        }
        *colon = 0;
        pp->name = tine_arena_strdup(&fs->arena, tok, strlen(tok));
        in->nparams++;
    }
    int L = in->reg_bits / in->T.bits;
    in->mem_elem = in->T;
    if (il->mem) {
        if (!strncmp(il->mem, "load", 4)) in->mem = TINE_INTRIN_LOAD, in->mem_lanes = mem_count(il->mem + 4, L);
        else if (!strcmp(il->mem, "store")) in->mem = TINE_INTRIN_STORE;
        else {
            tine_set_error(ctx, "%s:%d: [load K] or [store]", fs->file, il->line);
            free(in);
            return NULL;
        }
    }
    /* the result types: the semantics applied once to variables (immediates at 1) */
    tine_expr_t *args[TINE_INTRIN_MAX_PARAMS * 4];
    int64_t imms[TINE_INTRIN_MAX_PARAMS];
    int na = 0, ni = 0;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *pp = &in->param[k];
        char vn[32];
        if (pp->kind == TINE_IP_IMM) imms[ni++] = 1;
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
        mem = tine_var(ctx, "$mem", tine_type_with_lanes(in->T, in->mem_lanes));
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
       a Neon register (a sum across lanes: addv's q form writes one lane) */
    int rl = ins->fixed ? ins->result.lanes : fm->bits / ins->result.bits, ol[TINE_INSN_MAX_OPS] = {0};
    if (!ins->fixed && tine_insn_operand_lanes(ins, rl, ol)) {
        int widest = 0;
        for (int j = 0; j < ins->nops; j++)
            if (ol[j] * ins->optype[j].bits > widest) widest = ol[j] * ins->optype[j].bits;
        if (widest > 128) {
            rl = rl * 128 / widest;
            if (rl < 1 || !tine_insn_operand_lanes(ins, rl, ol)) rl = 1, tine_insn_operand_lanes(ins, 1, ol);
        }
    }
    for (int j = 0; j < ins->nops; j++) {
        tine_iparam *pp = &in->param[in->nparams++];
        pp->name = ins->opname[j];
        int lanes = ins->fixed ? ins->optype[j].lanes : ol[j];
        pp->type = tine_type_with_lanes(ins->optype[j], lanes < 1 ? 1 : lanes);
        pp->kind = j == ins->imm ? TINE_IP_IMM : pp->type.lanes == 1 ? TINE_IP_SCALAR : TINE_IP_VEC;
    }
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
        tine_type_t T = {0}, U = {0};
        if (!pattern_match(&fs->lines[li], name, &T, &U)) continue;
        in = from_line(ctx, fs, li, name, T, U);
        if (!in) return NULL;
    }
    return in ? remember(fs, in) : NULL;
}

bool tine_intrin_apply(tine_ctx_t *ctx, const tine_intrin *in, tine_expr_t *const *args, const int64_t *imms,
                       tine_expr_t *mem, tine_expr_t **results) {
    int na = 0, ni = 0;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *pp = &in->param[k];
        if (pp->kind == TINE_IP_IMM) { ni++; continue; }
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
    for (int j = 0; j < ins->nops; j++)
        ops[j] = in->param[j].kind == TINE_IP_IMM ? tine_const_int(ctx, in->param[j].type, imms[ni++]) : args[na++];
    tine_expr_t *e = tine_insn_make(ctx, in->code, ins->nops, ops);
    if (!e) return false;
    results[0] = tine_expand(ctx, e);
    return results[0] != NULL;
}

bool tine_intrin_each(tine_ctx_t *ctx, const char *fam, tine_intrin_each_fn fn, void *user) {
    family_state *fs = family(ctx, fam);
    if (!fs) return false;
    bool x86 = !strcmp(fs->family, "x86");
    const tine_isa *isa = tine_isa_get(ctx, x86 ? "x86gen" : "arm");
    for (int k = 0; isa && k < isa->n; k++)
        for (int f = 0; f < isa->insn[k].nforms; f++) {
            const char *c = isa->insn[k].form[f].c;
            if (!c) continue;
            const tine_intrin *in = tine_intrin_find(ctx, fam, x86 && c[0] != '_' ? c : c);
            if (in && !fn(user, in)) return true;
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
                        if (!in) return false;
                        if (!fn(user, in)) return true;
                    }
    }
    return true;
}
