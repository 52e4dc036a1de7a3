/* imported.c — the semantics of a hand-described instruction, taken from its imported
 * entry.
 *
 * x86.isa names each instruction tine selects and how to emit it (forms, costs, LLVM and C
 * names); what the instruction computes it takes from the entry `tine isa import` wrote
 * from Intel's pseudocode (x86.gen.isa), by calling that entry in its semantics:
 *
 *   insn paddsb(a:i8, b:i8) = reinterpret<i8>(mm_adds_epi8(a, b))
 *
 * so that each instruction has one definition. An imported entry has one shape (16 lanes
 * of u8 for mm_adds_epi8); an x86.isa entry has any lanes (the lowering's vectors, which
 * the emitter splits into registers or pads). A call therefore means the imported
 * semantics at the call's lanes, in one of two ways:
 *
 * - direct: where the imported expression is lane-wise (no concat, per-lane constant or
 *   broadcast to a lane count), or its slices each take every k-th lane of an operand (slice(a, 1, 2, 4) of a:i16x8, pmaddwd's odd lanes), the same
 *   expression is elaborated on the call's operands, a slice's count scaled to their
 *   lanes. Bounds, proofs and the emitter's generic path then see the compact form.
 * - per block: otherwise (the expression concatenates lanes it computed one by one:
 *   packsswb) it is applied to each run of the operands' lanes that the entry
 *   takes, the last run padded with zeros and the result cut to scale, and the results
 *   are concatenated.
 *
 * An argument is reinterpreted to its operand's type (the guide types some lanes unsigned
 * that x86.isa types signed); it may give several operands of one type in turn: a pack's
 * operand spans the two registers the intrinsic takes (packsswb = mm_packs_epi16(a)).
 *
 * The entries are found in the embedded text by name through an index built on the first
 * call, and parsed one at a time as they are called: a context that loads x86.isa reads
 * some forty entries, not the ~2,000 of the whole description.
 */
#include "imported.h"

extern const char tine_x86gen_isa_text[], tine_x86gen_isa_file[];

typedef struct {
    const char *name;
    size_t off, end;         /* the entry's text: from its `insn` to the next one */
    const tine_insn_ast *ia; /* parsed on the first call; NULL before */
    tine_type_t t[TINE_INSN_MAX_OPS];
    int nops;
    int direct; /* 1 direct, 0 per block, -1 not yet known */
} entry;

struct tine_imported {
    tine_arena arena;
    entry *e;
    int n;
};

void tine_imported_free(tine_imported *im) {
    if (!im) return;
    tine_arena_free(&im->arena);
    free(im->e);
    free(im);
}

static int by_name(const void *a, const void *b) { return strcmp(((const entry *)a)->name, ((const entry *)b)->name); }

/* Every `insn NAME(` at the start of a line of the generated text, sorted by name. */
static tine_imported *index_text(void) {
    tine_imported *im = tine_xcalloc(1, sizeof *im);
    const char *text = tine_x86gen_isa_text;
    int cap = 0;
    for (const char *p = text; (p = strstr(p, "insn ")) != NULL; p += 5) {
        if (p != text && p[-1] != '\n') continue;
        const char *q = p + 5, *s = q;
        while (*q && *q != '(' && *q != '\n') q++;
        if (*q != '(') continue;
        if (im->n == cap) {
            cap = cap ? 2 * cap : 2048;
            im->e = tine_xrealloc(im->e, (size_t)cap * sizeof *im->e);
        }
        entry *e = &im->e[im->n++];
        memset(e, 0, sizeof *e);
        e->name = tine_arena_strdup(&im->arena, s, (size_t)(q - s));
        e->off = (size_t)(p - text);
        e->direct = -1;
        if (im->n > 1) im->e[im->n - 2].end = e->off;
    }
    if (im->n) im->e[im->n - 1].end = strlen(text);
    qsort(im->e, (size_t)im->n, sizeof *im->e, by_name);
    return im;
}

static entry *find(tine_imported **imp, const char *name) {
    if (strncmp(name, "mm", 2)) return NULL; /* every imported name: mm_, mm256_, mm512_ */
    if (!*imp) *imp = index_text();
    entry key = {.name = name};
    return bsearch(&key, (*imp)->e, (size_t)(*imp)->n, sizeof key, by_name);
}

/* The entry's syntax and operand types; false with an error (a build defect: the whole
 * description loads in test_isa_gen). */
static bool parse_entry(tine_ctx_t *ctx, tine_imported *im, entry *e) {
    if (e->ia) return true;
    size_t n = e->end - e->off;
    char *text = tine_arena_strdup(&im->arena, tine_x86gen_isa_text + e->off, n);
    tine_isa_ast ast;
    if (tine_parse_isa(ctx, &im->arena, text, tine_x86gen_isa_file, &ast) != 0) return false;
    if (ast.ninsns != 1 || !ast.insns[0].fixed) {
        tine_set_error(ctx, "%s: '%s' is not one fixed entry", tine_x86gen_isa_file, e->name);
        return false;
    }
    const tine_ast *sig = ast.insns[0].sig;
    e->nops = sig->nargs;
    for (int j = 0; j < sig->nargs; j++) {
        const tine_ast *o = sig->args[j];
        if (o->kind != A_NAME || !o->targ || !tine_isa_fixed_type(o->targ->name, &e->t[j]) || e->t[j].lanes < 2 ||
            e->t[j].kind == TINE_BOOL) {
            tine_set_error(ctx, "'%s' is called from a lane-generic semantics, but its operand %d is not a vector", e->name,
                           j + 1);
            return false;
        }
    }
    e->ia = tine_arena_alloc(&im->arena, sizeof *e->ia);
    *(tine_insn_ast *)e->ia = ast.insns[0];
    return true;
}

/* A fixed entry's operand type: an integer type (a scalar), TxN (a vector of N lanes) or
 * boolxN (an AVX-512 mask of N lanes); isa.c reads the fixed entries' types with it. */
bool tine_isa_fixed_type(const char *s, tine_type_t *out) {
    const char *x = strchr(s, 'x');
    tine_type_t t;
    if (!tine_parse_type_name(s, x ? (size_t)(x - s) : strlen(s), &t) || t.kind == TINE_FLOAT) return false;
    if (!x) {
        if (t.kind == TINE_BOOL) return false; /* a mask has its lanes */
        *out = t;
        return true;
    }
    long n = 0;
    for (const char *p = x + 1; *p; p++) {
        if (*p < '0' || *p > '9' || n > TINE_MAX_LANES) return false;
        n = n * 10 + (*p - '0');
    }
    if (n < 2 || n > TINE_MAX_LANES || x[1] == '0') return false;
    *out = tine_type_with_lanes(t, (int)n);
    return true;
}

/* ---- direct: the imported expression at other lanes ------------------------------- */

typedef struct {
    const entry *e;
    tine_expr_t *const *args; /* the call's operands, reinterpreted */
    bool not_direct;          /* the expression is not lane-generic */
} direct_data;

/* In the imported expression: a slice of an operand that takes every k-th of its lanes
 * takes every k-th of the call's; concat, and any other slice, are not lane-generic. */
static bool direct_call(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out) {
    (void)lanes;
    direct_data *d = tine_elab_env_of(el)->hook_data;
    bool slice = !strcmp(a->name, "slice");
    if (!slice && strcmp(a->name, "concat") && strcmp(a->name, "interleave")) return false;
    int j = -1;
    if (slice && a->nargs == 4 && a->args[0]->kind == A_NAME)
        for (int i = 0; i < d->e->nops; i++)
            if (!strcmp(d->e->ia->sig->args[i]->name, a->args[0]->name)) j = i;
    int k[3];
    bool ok = j >= 0;
    for (int i = 0; ok && i < 3; i++) ok = a->args[1 + i]->kind == A_INT && a->args[1 + i]->ival >= 0 && a->args[1 + i]->ival <= TINE_MAX_LANES;
    for (int i = 0; ok && i < 3; i++) k[i] = (int)a->args[1 + i]->ival;
    ok = ok && k[1] >= 1 && k[0] < k[1] && k[1] * k[2] == d->e->t[j].lanes;
    if (!ok) {
        d->not_direct = true;
        *out = tine_elab_fail(el, a, "not lane-generic");
        return true;
    }
    tine_expr_t *v = d->args[j];
    *out = tine_elab_typed(el, a, tine_slice(tine_elab_ctx(el), v, k[0], k[1], v->type.lanes / k[1]));
    return true;
}

/* Per-lane constants (u8[1, 2, ...]) and broadcasts to a lane count (x16(n)) have the
 * entry's lanes written in them: not lane-generic either. */
static bool direct_step(tine_elab *el, const tine_ast *a, tine_elab_val *out) {
    bool fixed_lanes = a->kind == A_LANES;
    if (a->kind == A_CALL && a->name[0] == 'x' && a->name[1]) {
        fixed_lanes = true;
        for (const char *p = a->name + 1; *p; p++) fixed_lanes &= *p >= '0' && *p <= '9';
    }
    if (!fixed_lanes) return true;
    ((direct_data *)tine_elab_env_of(el)->hook_data)->not_direct = true;
    *out = tine_elab_fail(el, a, "not lane-generic");
    return false;
}

static const tine_elab_hooks DIRECT_HOOKS = {.step = direct_step, .call = direct_call};

static tine_expr_t *elab_direct(tine_ctx_t *ctx, entry *e, tine_expr_t *const *args, int lanes) {
    tine_binding binds[TINE_INSN_MAX_OPS];
    for (int j = 0; j < e->nops; j++) binds[j] = (tine_binding){e->ia->sig->args[j]->name, args[j]};
    direct_data d = {.e = e, .args = args};
    tine_elab_env env = {.binds = binds, .nbinds = e->nops, .lanes = lanes, .hooks = &DIRECT_HOOKS, .hook_data = &d};
    tine_saved_error saved = tine_error_save(ctx);
    tine_expr_t *r = tine_elaborate(ctx, e->ia->sem, &env);
    if (d.not_direct) e->direct = 0, r = NULL;
    else e->direct = 1;
    if (r || !e->direct) tine_error_restore(ctx, &saved); /* the error held before, if any */
    else free(saved.msg);                                  /* a real failure: its message stands */
    return r;
}

/* ---- per block ------------------------------------------------------------------------ */

/* The entry applied to each run of the arguments' lanes (argument i gives `per` operands
 * in turn, its run their lanes together; the last run padded with zeros), the results
 * concatenated and cut in proportion to the first argument's lanes. */
static tine_expr_t *elab_blocks(tine_ctx_t *ctx, const entry *e, tine_expr_t *const *whole, int nargs, int per,
                                const tine_elab_hooks *hooks) {
    int run0 = per * e->t[0].lanes;
    int nblocks = (whole[0]->type.lanes + run0 - 1) / run0;
    tine_expr_t **parts = tine_xcalloc((size_t)nblocks, sizeof *parts);
    tine_expr_t *r = NULL;
    for (int b = 0; b < nblocks; b++) {
        tine_binding binds[TINE_INSN_MAX_OPS];
        for (int i = 0; i < nargs; i++) {
            int l0 = e->t[i * per].lanes, run = per * l0, have = whole[i]->type.lanes - b * run;
            tine_expr_t *v = tine_slice(ctx, whole[i], b * run, 1, have < run ? have : run);
            if (v && have < run) {
                tine_expr_t *pad[2] = {v, tine_const_int(ctx, tine_type_with_lanes(e->t[i * per], run - have), 0)};
                v = tine_concat(ctx, 2, pad);
            }
            if (!v) goto done;
            for (int s = 0; s < per; s++) {
                int j = i * per + s;
                binds[j] = (tine_binding){e->ia->sig->args[j]->name, per == 1 ? v : tine_slice(ctx, v, s * l0, 1, l0)};
                if (!binds[j].expr) goto done;
            }
        }
        tine_elab_env env = {.binds = binds, .nbinds = e->nops, .lanes = e->t[0].lanes, .hooks = hooks};
        if (!(parts[b] = tine_elaborate(ctx, e->ia->sem, &env))) goto done;
    }
    r = nblocks == 1 ? parts[0] : tine_concat(ctx, nblocks, parts);
    long have = (long)whole[0]->type.lanes * parts[0]->type.lanes, keep = have / run0;
    if (r && keep != r->type.lanes) {
        if (keep < 1 || keep * run0 != have) {
            tine_set_error(ctx, "%s at %d lanes has no whole number of result lanes", e->name, whole[0]->type.lanes);
            r = NULL;
        } else
            r = tine_slice(ctx, r, 0, 1, (int)keep);
    }
done:
    free(parts);
    return r;
}

/* ---- the call ------------------------------------------------------------------------- */

bool tine_imported_call(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out, tine_imported **imp,
                        const tine_elab_hooks *fixed_hooks) {
    entry *e = find(imp, a->name);
    if (!e) return false;
    tine_ctx_t *ctx = tine_elab_ctx(el);
    if (!parse_entry(ctx, *imp, e)) {
        *out = tine_elab_typed(el, a, NULL);
        return true;
    }
    if (a->nargs < 1 || e->nops % a->nargs) {
        *out = tine_elab_fail(el, a, "%s takes %d operands (an argument may give several of one type in turn)", e->name,
                              e->nops);
        return true;
    }
    int per = e->nops / a->nargs;
    tine_expr_t *whole[TINE_INSN_MAX_OPS];
    for (int i = 0; i < a->nargs; i++) {
        tine_elab_val v = tine_elab_expr(el, a->args[i], lanes);
        if (tine_elab_ok(el, v) && v.lit) v = tine_elab_need_typed(el, a->args[i], v);
        if (!tine_elab_ok(el, v)) {
            *out = v;
            return true;
        }
        for (int s = 1; s < per; s++)
            if (!tine_type_eq(e->t[i * per + s], e->t[i * per])) {
                *out = tine_elab_fail(el, a->args[i], "one argument gives operands of %s of different types", e->name);
                return true;
            }
        if (!(whole[i] = tine_reinterpret(ctx, e->t[i * per], v.e))) {
            *out = tine_elab_typed(el, a->args[i], NULL);
            return true;
        }
        if ((long)whole[i]->type.lanes * e->t[0].lanes != (long)whole[0]->type.lanes * e->t[i * per].lanes) {
            *out = tine_elab_fail(el, a->args[i], "the arguments of %s are not in proportion to its operands", e->name);
            return true;
        }
    }
    tine_expr_t *r = NULL;
    if (per == 1 && e->direct != 0) r = elab_direct(ctx, e, whole, whole[0]->type.lanes);
    if (!r && (per > 1 || e->direct == 0)) r = elab_blocks(ctx, e, whole, a->nargs, per, fixed_hooks);
    *out = tine_elab_typed(el, a, r);
    return true;
}
