/* isa.c — target descriptions: the instruction tables read from src/targets/NAME.isa.
 *
 * A description is data compiled into the library (the build embeds the .isa text) and
 * read once per context. Each instruction becomes an IR op of its own: a node with op
 * TINE_OP_INSN whose immediate names the instruction, and whose meaning is the
 * description's semantics with the operands bound. Like an FPIR op's definition, that
 * semantics is instantiated once per operand type (a template) and then serves the
 * interpreter, bounds analysis, expansion to primitive ops, and the emitter's generic
 * path; nothing else restates what an instruction does.
 *
 * Checks, each with file:line:col: unknown features and register widths, form lists whose
 * LLVM and C names do not line up, duplicate names, operand types that are not concrete
 * integer or float types, and semantics that do not type.
 *
 * Fixed entries (src/targets/x86.gen.isa, the description `x86gen` that `tine isa import`
 * writes from Intel's list: one C intrinsic each) differ from the lane-generic ones of
 * x86.isa and arm.isa:
 *
 *   insn mm256_mask_add_epi16(src:u16x16, k:boolx16, a:u16x16, b:u16x16) = select(k, a + b, src)
 *     fixed                           operand types are exact
 *     forms ymm:avx512bw+avx512vl     one form; '+' joins features that are all needed
 *     c _mm256_mask_add_epi16         the intrinsic, taking the operands in this order
 *     imm NAME BITS                   (optional) NAME is a literal in the C call, of BITS bits
 *     llvm NAME                       (optional) without it the emitter refuses the entry
 *
 * TxN is a vector of N lanes (__m128i/__m256i/__m512i by its bits), a type without lanes a
 * scalar (the C integer of its bits), boolxN a mask (__mmask8/16/32/64: lane j is bit j,
 * 8 bits below 8 lanes). The result is the semantics' type. The vectors, operands and
 * result, are registers of the description's widths, the widest the form's. cost is
 * optional; no lowering rule names a fixed entry; the interpreter, bounds and the SMT
 * encoder read it through its semantics like any other. At most TINE_INSN_MAX_OPS (6)
 * operands: a masked ternary form's src, k, a, b, c and an immediate.
 */
#include "imported.h"
#include "targets.h"

extern const char tine_x86_isa_text[], tine_x86_isa_file[], tine_x86_rules_text[], tine_x86_rules_file[];
extern const char tine_arm_isa_text[], tine_arm_isa_file[], tine_arm_rules_text[], tine_arm_rules_file[];
extern const char tine_x86gen_isa_text[], tine_x86gen_isa_file[];
extern const char tine_x86_synth_rules_text[], tine_x86_synth_rules_file[];

/* The built-in descriptions, each with its lowering rules (src/targets/NAME.rules, and
 * those `tine synth lower` found, NAME.synth.rules, where there are). The
 * generated one (x86gen: Intel's intrinsics, `tine isa import`) has no rules and ~2,000
 * entries: it is read only when asked for by name (tine_isa_get), and its instruction
 * names are known from then on, so that no context pays for it unasked. */
static const struct {
    const char *name;
    const char *text, *file;
    const char *rules, *rules_file;
    bool on_request;
    const char *synth, *synth_file;
} BUILTIN[] = {
    {"x86", tine_x86_isa_text, tine_x86_isa_file, tine_x86_rules_text, tine_x86_rules_file, false,
     tine_x86_synth_rules_text, tine_x86_synth_rules_file},
    {"arm", tine_arm_isa_text, tine_arm_isa_file, tine_arm_rules_text, tine_arm_rules_file, false, NULL, NULL},
    {"x86gen", tine_x86gen_isa_text, tine_x86gen_isa_file, NULL, NULL, true, NULL, NULL},
};
enum { NBUILTIN = sizeof BUILTIN / sizeof BUILTIN[0] };

struct insn_tmpl {
    tine_type_t t[TINE_INSN_MAX_OPS];
    tine_expr_t *ph[TINE_INSN_MAX_OPS];
    tine_expr_t *sem;      /* semantics on the placeholders (FPIR ops kept) */
    tine_expr_t *expanded; /* the same, primitive ops only */
};

/* The descriptions read in one context (its TINE_LAYER_TARGETS slot). */
typedef struct {
    tine_isa *isa[TINE_MAX_ISAS]; /* the built-in descriptions, read on first use */
    bool loading;                 /* a description is being read: its names are not yet known */
    tine_isa *cur;                /* that description: its entries read so far are visible to
                                     the semantics of the later ones (srsra = acc + srshr) */
    tine_imported *imported;      /* the imported entries lane-generic semantics call (imported.c) */
} isa_state;

/* The instruction codes of a description: its id in the top bits (a description read
 * from text, not built in, takes an id past every built-in one). */
static int code_id(const tine_isa *isa) { return isa->id >= 0 ? isa->id : TINE_MAX_ISAS; }

static void free_state(tine_ctx_t *ctx, void *p) {
    (void)ctx;
    isa_state *st = p;
    for (int id = 0; id < TINE_MAX_ISAS; id++) tine_isa_free(st->isa[id]);
    tine_imported_free(st->imported);
    free(st);
}

static isa_state *state(tine_ctx_t *ctx) { return tine_layer_make(ctx, TINE_LAYER_TARGETS, sizeof(isa_state), free_state); }

/* In an instruction's semantics, lanes(x) is the lane count of operand x (pairwise and
 * grouped sums). */
static bool sem_call(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out) {
    if (strcmp(a->name, "lanes")) return false;
    tine_elab_val v = {0};
    if (tine_elab_ok(el, tine_elab_arity(el, a, 1))) {
        v = tine_elab_expr(el, a->args[0], lanes);
        if (tine_elab_ok(el, v)) v = v.lit ? tine_elab_need_typed(el, a->args[0], v) : (tine_elab_val){.lit = 1, .iv = v.e->type.lanes};
    }
    *out = v;
    return true;
}

static const tine_elab_hooks SEM_HOOKS = {.call = sem_call};

/* A lane-generic entry's semantics may also call an imported entry by name
 * (paddsb = reinterpret<i8>(mm_adds_epi8(a, b))): its one definition (imported.c). */
static bool generic_sem_call(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out) {
    return sem_call(el, a, lanes, out) ||
           tine_imported_call(el, a, lanes, out, &state(tine_elab_ctx(el))->imported, &SEM_HOOKS);
}

static const tine_elab_hooks GENERIC_SEM_HOOKS = {.call = generic_sem_call};

const tine_elab_hooks *tine_isa_sem_hooks(void) { return &GENERIC_SEM_HOOKS; }

static void isa_error(tine_ctx_t *ctx, const tine_src *src, tine_word w, const char *fmt, const char *arg) {
    tine_diag(ctx, src, w.line, w.col, fmt, arg);
}

static int feature_index(const tine_isa *isa, const char *name) {
    for (int i = 0; i < isa->nfeatures; i++)
        if (!strcmp(isa->features[i], name)) return i;
    return -1;
}

/* The semantics of instruction k on operands of the given types; NULL with an error. */
static struct insn_tmpl *instantiate(tine_ctx_t *ctx, tine_isa *isa, int k, const tine_type_t *t) {
    tine_insn *in = &isa->insn[k];
    for (int i = 0; i < in->ntmpl; i++) {
        bool same = true;
        for (int j = 0; j < in->nops && same; j++) same = tine_type_eq(in->tmpl[i]->t[j], t[j]);
        if (same) return in->tmpl[i];
    }
    struct insn_tmpl *m = tine_arena_alloc(&isa->arena, sizeof *m);
    tine_binding binds[TINE_INSN_MAX_OPS];
    for (int j = 0; j < in->nops; j++) {
        char ph[4] = {'$', (char)('0' + j), 0};
        m->t[j] = t[j];
        m->ph[j] = tine_var(ctx, ph, t[j]);
        binds[j].name = in->opname[j];
        binds[j].expr = m->ph[j];
    }
    int lanes = t[0].lanes;
    for (int j = 1; in->fixed && j < in->nops; j++) /* a fixed entry may start with a scalar (set1) */
        if (t[j].lanes > lanes) lanes = t[j].lanes;
    tine_elab_env env = {.binds = binds, .nbinds = in->nops, .lanes = lanes, .hooks = in->fixed ? &SEM_HOOKS : &GENERIC_SEM_HOOKS};
    m->sem = tine_elaborate(ctx, in->sem, &env);
    if (!m->sem) return NULL;
    m->expanded = tine_expand(ctx, m->sem);
    if (in->ntmpl == in->captmpl) {
        in->captmpl = in->captmpl ? 2 * in->captmpl : 4;
        struct insn_tmpl **n = tine_arena_alloc(&isa->arena, (size_t)in->captmpl * sizeof *n);
        if (in->ntmpl) memcpy(n, in->tmpl, (size_t)in->ntmpl * sizeof *n);
        in->tmpl = n;
    }
    in->tmpl[in->ntmpl++] = m;
    return m;
}

/* The features, and the targets: those the text declares and, for a built-in
 * description, the registry's rows for it. false after the message. */
static bool load_targets(tine_ctx_t *ctx, tine_isa *isa, int id, const char *file) {
    const tine_isa_ast *a = &isa->ast;
    const tine_src *src = a->src;
    for (int i = 0; i < a->nfeatures; i++) isa->features[isa->nfeatures++] = a->features[i].s;
    for (int i = 0; i < a->ntargets; i++) {
        isa->targets[i].name = a->targets[i].name.s;
        for (int j = 0; j < a->targets[i].nfeatures; j++) {
            int f = feature_index(isa, a->targets[i].features[j].s);
            if (f < 0) {
                isa_error(ctx, src, a->targets[i].features[j], "unknown feature '%s' (declare it with 'feature')",
                          a->targets[i].features[j].s);
                return false;
            }
            isa->targets[i].features |= 1u << f;
        }
    }
    isa->ntargets = a->ntargets;
    /* a built-in description's targets are the registry's rows for it */
    for (int r = 0; id >= 0 && tine_target_at(r); r++) {
        const tine_target_info *t = tine_target_at(r);
        if (strcmp(t->isa, isa->name) || !t->features) continue;
        for (const char *p = t->features; *p;) {
            size_t n = strcspn(p, " ");
            int f = -1;
            for (int i = 0; i < isa->nfeatures; i++)
                if (strlen(isa->features[i]) == n && !memcmp(isa->features[i], p, n)) f = i;
            if (f < 0 || isa->ntargets == 16) {
                tine_set_error(ctx, "target '%s' (src/targets/targets.c) names %.*s, which %s does not declare", t->name,
                               (int)n, p, file);
                return false;
            }
            p += n + (p[n] == ' ');
        }
        isa->targets[isa->ntargets].name = t->name;
        isa->targets[isa->ntargets++].features = tine_target_mask(isa, t);
    }
    return true;
}

/* An instruction's name, its counts of forms and names, and its operands. false after
 * the message. */
static bool load_insn_operands(tine_ctx_t *ctx, tine_isa *isa, int k) {
    const tine_insn_ast *ia = &isa->ast.insns[k];
    tine_insn *in = &isa->insn[k];
    const tine_src *src = isa->ast.src;
    in->name = ia->name.s;
    in->sem = ia->sem;
    in->lat = ia->lat;
    in->rtp = ia->rtp;
    in->pack = ia->pack;
    in->generic = ia->generic;
    in->fixed = ia->fixed;
    in->has_llvm = ia->nllvm > 0;
    in->imm_bits = ia->imm_bits;
    for (int j = 0; j < k; j++)
        if (!strcmp(isa->insn[j].name, in->name)) {
            isa_error(ctx, src, ia->name, "duplicate instruction '%s'", in->name);
            return false;
        }
    if (tine_op_lookup(in->name) >= 0 || tine_isa_lookup(ctx, in->name) >= 0) {
        isa_error(ctx, src, ia->name, "'%s' is already the name of an op", in->name);
        return false;
    }
    if (ia->fixed && (!ia->nforms || !ia->nc)) {
        tine_diag(ctx, src, ia->end_line, 1, "fixed instruction '%s' needs forms and c", in->name);
        return false;
    }
    if (!ia->fixed && (!ia->has_cost || !ia->nforms || !ia->nllvm || !ia->nc)) {
        tine_diag(ctx, src, ia->end_line, 1, "instruction '%s' needs forms, cost, llvm and c", in->name);
        return false;
    }
    if (ia->fixed && (ia->nforms != 1 || ia->pack)) {
        tine_diag(ctx, src, ia->name.line, ia->name.col, "fixed instruction '%s' has one form and no 'pack'", in->name);
        return false;
    }
    if ((!ia->generic && ia->nllvm && ia->nllvm != ia->nforms && ia->nllvm != 1) || ia->nc != ia->nforms) {
        tine_word w = ia->nc != ia->nforms ? ia->c[0] : ia->llvm[0];
        char m[160];
        snprintf(m, sizeof m, "instruction '%%s' has %d forms but %d %s names", ia->nforms,
                 ia->nc != ia->nforms ? ia->nc : ia->nllvm, ia->nc != ia->nforms ? "C" : "LLVM");
        isa_error(ctx, src, w, m, in->name);
        return false;
    }
    if (ia->sig->nargs < 1 || ia->sig->nargs > TINE_INSN_MAX_OPS) {
        tine_diag(ctx, src, ia->sig->line, ia->sig->col, "an instruction has 1 to %d operands", TINE_INSN_MAX_OPS);
        return false;
    }
    in->nops = ia->sig->nargs;
    in->imm = -1;
    in->imm_neg = ia->imm_neg;
    for (int j = 0; j < in->nops; j++) {
        const tine_ast *o = ia->sig->args[j];
        tine_type_t t;
        if (ia->fixed) {
            if (o->kind != A_NAME || !o->targ || o->targ->nargs || !tine_isa_fixed_type(o->targ->name, &t)) {
                tine_diag(ctx, src, o->line, o->col,
                          "an operand of a fixed instruction is written name:TYPE with an integer type, a vector of "
                          "one (a:u16x8) or a mask (k:boolx8)");
                return false;
            }
        } else if (o->kind != A_NAME || !o->targ || o->targ->nargs ||
                   !tine_parse_type_name(o->targ->name, strlen(o->targ->name), &t) || t.kind == TINE_BOOL) {
            tine_diag(ctx, src, o->line, o->col, "an operand is written name:TYPE with an integer or float type (a:u8)");
            return false;
        }
        in->opname[j] = o->name;
        in->optype[j] = t;
        if (ia->imm.s && !strcmp(ia->imm.s, o->name)) in->imm = j;
    }
    if (ia->imm.s && in->imm < 0) {
        isa_error(ctx, src, ia->imm, "'%s' is not an operand of this instruction", ia->imm.s);
        return false;
    }
    if (in->fixed && in->imm >= 0 &&
        (in->optype[in->imm].lanes != 1 || in->optype[in->imm].kind == TINE_BOOL || !in->imm_bits)) {
        char m[160];
        snprintf(m, sizeof m, "the immediate '%%s' of a fixed instruction is an integer scalar with its bits (imm %s 8)",
                 ia->imm.s);
        isa_error(ctx, src, ia->imm, m, ia->imm.s);
        return false;
    }
    return true;
}

/* An instruction's forms: register width, feature, LLVM and C names. false after the
 * message. */
static bool load_insn_forms(tine_ctx_t *ctx, tine_isa *isa, const tine_insn_ast *ia, tine_insn *in) {
    const tine_isa_ast *a = &isa->ast;
    for (int f = 0; f < ia->nforms; f++) {
        int w = -1;
        for (int i = 0; i < a->nwidths; i++)
            if (!strcmp(a->width_name[i].s, ia->form_width[f].s)) w = i;
        if (w < 0) {
            isa_error(ctx, a->src, ia->form_width[f], "unknown register width '%s' (declare it with 'width')",
                      ia->form_width[f].s);
            return false;
        }
        in->form[f].features = 0;
        for (int i = 0; i < ia->form_nfeatures[f]; i++) {
            int fi = feature_index(isa, ia->form_feature[f][i].s);
            if (fi < 0) {
                isa_error(ctx, a->src, ia->form_feature[f][i], "unknown feature '%s' (declare it with 'feature')",
                          ia->form_feature[f][i].s);
                return false;
            }
            in->form[f].features |= 1u << fi;
        }
        in->form[f].bits = a->width_bits[w];
        in->form[f].reg = a->width_name[w].s;
        in->form[f].llvm = ia->generic || !ia->nllvm ? NULL : ia->llvm[ia->nllvm == 1 ? 0 : f].s;
        in->form[f].c = ia->c[f].s;
        in->form[f].c_arg = ia->c_arg[f].s;
    }
    in->nforms = ia->nforms;
    return true;
}

/* A fixed entry's semantics at its exact operand types. Its vectors, operands and result,
 * are registers of the description's widths (the C intrinsic's __m128i ... by their bits),
 * the widest of them its form's. false after the message. */
static bool load_fixed_semantics(tine_ctx_t *ctx, tine_isa *isa, int k) {
    const tine_insn_ast *ia = &isa->ast.insns[k];
    const tine_isa_ast *a = &isa->ast;
    tine_insn *in = &isa->insn[k];
    struct insn_tmpl *m = instantiate(ctx, isa, k, in->optype);
    if (!m) return false;
    in->result = m->sem->type;
    int widest = 0;
    for (int j = 0; j <= in->nops; j++) {
        tine_type_t t = j < in->nops ? in->optype[j] : in->result;
        if (t.lanes == 1 || t.kind == TINE_BOOL) continue; /* scalars and masks are not registers */
        int bits = t.lanes * t.bits;
        bool reg = false;
        for (int i = 0; i < a->nwidths; i++) reg |= a->width_bits[i] == bits;
        if (!reg) {
            char msg[160];
            const tine_ast *o = j < in->nops ? ia->sig->args[j] : NULL;
            snprintf(msg, sizeof msg, "%s%s of '%%s' is a vector of %d bits, not of a register width",
                     o ? "operand " : "the result", o ? o->name : "", bits);
            tine_diag(ctx, a->src, o ? o->line : ia->name.line, o ? o->col : ia->name.col, msg, in->name);
            return false;
        }
        if (bits > widest) widest = bits;
    }
    if (widest && widest != in->form[0].bits) {
        char msg[160];
        snprintf(msg, sizeof msg, "the form of '%%s' is %d bits wide, but its widest vector is %d bits", in->form[0].bits,
                 widest);
        isa_error(ctx, a->src, ia->form_width[0], msg, in->name);
        return false;
    }
    for (int j = 0; j < in->nops; j++) in->probe_lanes[j] = in->optype[j].lanes;
    in->probe_result = in->result.lanes;
    return true;
}

/* An instruction's semantics, typed at its narrowest form's lanes and checked to scale
 * with the lanes (the probe lanes recorded). false after the message. */
static bool load_insn_semantics(tine_ctx_t *ctx, tine_isa *isa, int k) {
    const tine_insn_ast *ia = &isa->ast.insns[k];
    tine_insn *in = &isa->insn[k];
    if (in->fixed) return load_fixed_semantics(ctx, isa, k);
    /* the semantics must type: try it at the narrowest form's lanes */
    tine_type_t t[TINE_INSN_MAX_OPS];
    for (int j = 0; j < in->nops; j++) t[j] = tine_type_with_lanes(in->optype[j], 1);
    int lanes = in->form[0].bits / in->optype[in->nops - 1].bits;
    for (int j = 0; j < in->nops; j++) t[j].lanes = lanes * in->optype[in->nops - 1].bits / in->optype[j].bits;
    if (in->pack) t[0].lanes = 2 * in->form[0].bits / in->optype[0].bits;
    struct insn_tmpl *m = instantiate(ctx, isa, k, t);
    if (!m && !in->pack) { /* mixed widths at equal lanes (saddw: a:i16 + widen(b:i8), smlal) */
        tine_saved_error saved = tine_error_save(ctx);
        for (int j = 0; j < in->nops; j++) t[j].lanes = lanes;
        m = instantiate(ctx, isa, k, t);
        tine_error_restore(ctx, &saved); /* the first attempt's message, if neither fits */
    }
    if (!m) return false;
    /* whole-vector semantics scale with the lanes (the emitter and the lowering take an
     * instruction's lanes in proportion): at twice the operands' lanes, twice the result's */
    tine_type_t t2[TINE_INSN_MAX_OPS];
    for (int j = 0; j < in->nops; j++) t2[j] = tine_type_with_lanes(t[j], 2 * t[j].lanes);
    tine_saved_error saved = tine_error_save(ctx);
    struct insn_tmpl *m2 = t2[0].lanes <= TINE_MAX_LANES ? instantiate(ctx, isa, k, t2) : NULL;
    tine_error_restore(ctx, &saved);
    if (m2 && m2->sem->type.lanes != 2 * m->sem->type.lanes) {
        isa_error(ctx, isa->ast.src, ia->name,
                  "the semantics of '%s' do not scale with the lanes (twice the operands' lanes must give twice the result's)",
                  in->name);
        return false;
    }
    in->result = tine_type_with_lanes(m->sem->type, 1);
    for (int j = 0; j < in->nops; j++) in->probe_lanes[j] = t[j].lanes;
    in->probe_result = m->sem->type.lanes;
    return true;
}

static tine_isa *load(tine_ctx_t *ctx, int id, const char *text, const char *file) {
    tine_isa *isa = tine_xcalloc(1, sizeof *isa);
    isa->id = id;
    isa->name = id >= 0 ? BUILTIN[id].name : file;
    state(ctx)->cur = isa; /* the caller resets it */
    tine_isa_ast *a = &isa->ast;
    if (tine_parse_isa(ctx, &isa->arena, text, file, a) != 0) goto fail;
    if (!load_targets(ctx, isa, id, file)) goto fail;
    isa->insn = tine_arena_alloc(&isa->arena, (size_t)(a->ninsns ? a->ninsns : 1) * sizeof *isa->insn);
    for (int k = 0; k < a->ninsns; k++) {
        if (!load_insn_operands(ctx, isa, k) || !load_insn_forms(ctx, isa, &a->insns[k], &isa->insn[k]) || !load_insn_semantics(ctx, isa, k))
            goto fail;
        /* visible from here on: to the semantics of the entries below (not its own, which
         * would not end) */
        isa->n = k + 1;
    }
    return isa;
fail:
    tine_arena_free(&isa->arena);
    free(isa);
    return NULL;
}

bool tine_insn_operand_lanes(const tine_insn *in, int lanes, int *out) {
    if (in->fixed && lanes != in->probe_result) return false; /* its one shape */
    for (int j = 0; j < in->nops; j++) {
        long l = (long)lanes * in->probe_lanes[j];
        if (l % in->probe_result || l / in->probe_result > TINE_MAX_LANES || l / in->probe_result < 1) return false;
        out[j] = (int)(l / in->probe_result);
    }
    return true;
}

/* Reads built-in description id from text into the context; NULL with the error. */
static tine_isa *read_builtin(tine_ctx_t *ctx, int id, const char *text, const char *file) {
    isa_state *st = state(ctx);
    st->loading = true;
    st->isa[id] = load(ctx, id, text, file);
    st->loading = false;
    st->cur = NULL;
    return st->isa[id];
}

const tine_isa *tine_isa_get(tine_ctx_t *ctx, const char *name) {
    isa_state *st = state(ctx);
    for (int id = 0; id < NBUILTIN; id++) {
        if (name ? strcmp(BUILTIN[id].name, name) : BUILTIN[id].on_request) continue;
        if (!st->isa[id]) {
            tine_saved_error saved = tine_error_save(ctx);
            if (!read_builtin(ctx, id, BUILTIN[id].text, BUILTIN[id].file)) {
                /* the shipped descriptions load (a test says so); this is a build defect */
                fprintf(stderr, "%s\n", tine_error(ctx));
                TINE_ASSERT(!"a built-in target description does not load");
            }
            tine_error_restore(ctx, &saved);
        }
        return st->isa[id];
    }
    return NULL;
}

const tine_isa *tine_isa_get_from(tine_ctx_t *ctx, const char *name, const char *text, const char *file) {
    isa_state *st = state(ctx);
    for (int id = 0; id < NBUILTIN; id++) {
        if (strcmp(BUILTIN[id].name, name)) continue;
        if (!BUILTIN[id].on_request || st->isa[id]) {
            tine_set_error(ctx, "description '%s' is %s", name, st->isa[id] ? "read already" : "not read on request");
            return NULL;
        }
        return read_builtin(ctx, id, text, file);
    }
    tine_set_error(ctx, "no built-in description is named '%s'", name);
    return NULL;
}

const char *tine_isa_rules(const tine_isa *isa, const char **file) {
    if (isa->id < 0 || isa->id >= NBUILTIN) return NULL;
    *file = BUILTIN[isa->id].rules_file;
    return BUILTIN[isa->id].rules;
}

const char *tine_isa_synth_rules(const tine_isa *isa, const char **file) {
    if (isa->id < 0 || isa->id >= NBUILTIN) return NULL;
    *file = BUILTIN[isa->id].synth_file;
    return BUILTIN[isa->id].synth;
}

const char *tine_isa_name(int i) { return i >= 0 && i < NBUILTIN ? BUILTIN[i].name : NULL; }

tine_isa *tine_isa_parse(tine_ctx_t *ctx, const char *text, const char *file) {
    isa_state *st = state(ctx);
    bool was = st->loading;
    tine_isa *was_cur = st->cur;
    st->loading = true;
    tine_isa *isa = load(ctx, -1, text, file);
    st->loading = was;
    st->cur = was_cur;
    return isa;
}

void tine_isa_free(tine_isa *isa) {
    if (!isa) return;
    tine_arena_free(&isa->arena);
    free(isa);
}

int tine_isa_lookup(tine_ctx_t *ctx, const char *name) {
    isa_state *st = state(ctx);
    if (st->cur) /* the entries read so far of the one loading */
        for (int k = 0; k < st->cur->n; k++)
            if (!strcmp(st->cur->insn[k].name, name)) return code_id(st->cur) << 12 | k;
    for (int id = 0; id < NBUILTIN; id++) {
        const tine_isa *isa = st->isa[id];
        if (!isa) {
            /* the one loading checks its own names; one read on request has none until then */
            if (st->loading || BUILTIN[id].on_request) continue;
            isa = tine_isa_get(ctx, BUILTIN[id].name);
        }
        for (int k = 0; k < isa->n; k++)
            if (!strcmp(isa->insn[k].name, name)) return id << 12 | k;
    }
    return -1;
}

const tine_insn *tine_insn_info(tine_ctx_t *ctx, uint32_t code, const tine_isa **isa_out) {
    int id = (int)(code >> 12), k = (int)(code & 4095);
    isa_state *st = state(ctx);
    const tine_isa *isa = st->cur && id == code_id(st->cur) ? st->cur : NULL;
    if (!isa && id >= NBUILTIN) return NULL;
    if (!isa) isa = tine_isa_get(ctx, BUILTIN[id].name);
    if (isa_out) *isa_out = isa;
    return k < isa->n ? &isa->insn[k] : NULL;
}

uint32_t tine_isa_target(const tine_isa *isa, const char *target, bool *found) {
    for (int i = 0; i < isa->ntargets; i++)
        if (!strcmp(isa->targets[i].name, target)) {
            if (found) *found = true;
            return isa->targets[i].features;
        }
    if (found) *found = false;
    return 0;
}

tine_expr_t *tine_insn_make(tine_ctx_t *ctx, uint32_t code, int n, tine_expr_t *const *ops) {
    const tine_isa *isa;
    const tine_insn *in = tine_insn_info(ctx, code, &isa);
    TINE_ASSERT(in != NULL);
    if (n != in->nops) {
        tine_set_error(ctx, "%s takes %d operand%s, not %d", in->name, in->nops, in->nops == 1 ? "" : "s", n);
        return NULL;
    }
    tine_type_t t[TINE_INSN_MAX_OPS];
    for (int j = 0; j < n; j++) {
        if (!ops[j]) return NULL;
        t[j] = ops[j]->type;
        if (in->fixed && t[j].lanes != in->optype[j].lanes) { /* its one shape */
            tine_set_error(ctx, "operand %d of %s has %d lanes, not %d", j + 1, in->name, t[j].lanes, in->optype[j].lanes);
            return NULL;
        }
        if (t[j].kind != in->optype[j].kind || t[j].bits != in->optype[j].bits) {
            char a[16], b[16];
            tine_set_error(ctx, "operand %d of %s is %s, not %s", j + 1, in->name, tine_type_name(t[j], a),
                           tine_type_name(in->optype[j], b));
            return NULL;
        }
    }
    struct insn_tmpl *m = instantiate(ctx, (tine_isa *)isa, (int)(code & 4095), t);
    if (!m) {
        const char *why = tine_error(ctx);
        const char *nl = why ? strchr(why, '\n') : NULL;
        char *msg = tine_xmalloc(256);
        snprintf(msg, 256, "%s is not defined at these lanes (%.*s)", in->name,
                 why ? (int)(nl ? nl - why : (long)strlen(why)) : 0, why ? why : "");
        tine_set_error_str(ctx, msg);
        return NULL;
    }
    return tine_make(ctx, TINE_OP_INSN, m->sem->type, n, ops, code, 0, NULL, 0);
}

const tine_expr_t *tine_insn_template(tine_ctx_t *ctx, const tine_expr_t *e, const tine_expr_t *const **ph,
                                      bool expanded) {
    const tine_isa *isa;
    TINE_ASSERT(tine_insn_info(ctx, e->imm, &isa) != NULL);
    tine_type_t t[TINE_INSN_MAX_OPS];
    for (int j = 0; j < e->nops; j++) t[j] = e->ops[j]->type;
    struct insn_tmpl *m = instantiate(ctx, (tine_isa *)isa, (int)(e->imm & 4095), t);
    TINE_ASSERT(m != NULL); /* the constructor instantiated it */
    *ph = (const tine_expr_t *const *)m->ph;
    return expanded ? m->expanded : m->sem;
}

/* Instruction k of a description (built in or read by tine_isa_parse) at `lanes` result
 * lanes: what the similarity classes compare (src/verify/classes.c) at one lane count
 * for every instruction, so that lane-dependent constants (slices) agree. */
const tine_expr_t *tine_isa_insn_sem(tine_ctx_t *ctx, const tine_isa *isa, int k, int lanes, const tine_expr_t *const **ph) {
    const tine_insn *in = &isa->insn[k];
    int l[TINE_INSN_MAX_OPS];
    if (!tine_insn_operand_lanes(in, lanes, l)) return NULL;
    tine_type_t t[TINE_INSN_MAX_OPS];
    for (int j = 0; j < in->nops; j++) t[j] = tine_type_with_lanes(in->optype[j], l[j]);
    tine_saved_error saved = tine_error_save(ctx);
    struct insn_tmpl *m = instantiate(ctx, (tine_isa *)isa, k, t);
    tine_error_restore(ctx, &saved);
    if (!m) return NULL;
    *ph = (const tine_expr_t *const *)m->ph;
    return m->sem;
}

/* ---- instruction names in expressions ---------------------------------------------- */

/* A target instruction (src/targets): its operand types are fixed, so a literal operand
 * takes its type from the description, at the lanes that give it the width of the
 * operands beside it. */
static tine_elab_val elab_insn(tine_elab *el, const tine_ast *a, int code, int lanes) {
    const tine_insn *in = tine_insn_info(tine_elab_ctx(el), (uint32_t)code, NULL);
    if (!tine_elab_ok(el, tine_elab_arity(el, a, in->nops))) return (tine_elab_val){0};
    if (a->targ) return tine_elab_fail(el, a, "%s takes no type parameter", in->name);
    tine_elab_val v[TINE_INSN_MAX_OPS];
    int width = 0;
    for (int i = 0; i < in->nops; i++) {
        v[i] = tine_elab_expr(el, a->args[i], lanes);
        if (!tine_elab_ok(el, v[i])) return (tine_elab_val){0};
        if (!v[i].lit && !width) width = v[i].e->type.lanes * v[i].e->type.bits;
    }
    if (!width) return tine_elab_need_typed(el, a->args[0], v[0]);
    tine_expr_t *args[TINE_INSN_MAX_OPS];
    for (int i = 0; i < in->nops; i++) {
        if (v[i].lit) { /* a fixed entry's operand types are exact */
            int l = in->fixed ? in->optype[i].lanes : width / in->optype[i].bits;
            if (l < 1) l = 1;
            v[i] = tine_elab_lit_to(el, a->args[i], v[i], tine_type_with_lanes(in->optype[i], l));
            if (!tine_elab_ok(el, v[i])) return (tine_elab_val){0};
        }
        args[i] = v[i].e;
    }
    return tine_elab_typed(el, a, tine_insn_make(tine_elab_ctx(el), (uint32_t)code, in->nops, args));
}

static bool insn_call(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out) {
    int code = tine_isa_lookup(tine_elab_ctx(el), a->name);
    if (code < 0) return false;
    *out = elab_insn(el, a, code, lanes);
    return true;
}

static const char *insn_name(tine_ctx_t *ctx, uint32_t code) { return tine_insn_info(ctx, code, NULL)->name; }

void tine_isa_install(tine_ctx_t *ctx) {
    /* the core's interpreter and printer see instruction nodes through these */
    ctx->sem.insn_template = tine_insn_template;
    ctx->sem.insn_name = insn_name;
    /* every mode: expressions, rule patterns and right sides, descriptions' semantics */
    tine_elab_extend(ctx, insn_call, 1u << TINE_ELAB_EXPR | 1u << TINE_ELAB_PATTERN | 1u << TINE_ELAB_RHS | 1u << TINE_ELAB_PRED,
                     TINE_LAYER_TARGETS);
}

/* ---- the registry's questions that need a description -------------------------- */

uint32_t tine_target_features(tine_ctx_t *ctx, const char *target, const tine_isa **isa_out) {
    const tine_target_info *t = tine_target_find(target ? target : "host");
    const tine_isa *isa = tine_isa_get(ctx, t ? t->isa : "x86");
    if (isa_out) *isa_out = isa;
    if (!t) {
        tine_set_error(ctx, "unknown target '%s'", target);
        return 0;
    }
    return t->features ? tine_target_mask(isa, t) : tine_target_host_mask(isa);
}

int tine_target_runs_here(tine_ctx_t *ctx, const char *target) {
    const tine_target_info *t = tine_target_find(target);
    if (!t || !t->features) {
        tine_set_error(ctx, "unknown target '%s'", target);
        return -1;
    }
    const tine_isa *isa = tine_isa_get(ctx, t->isa);
    return (tine_target_mask(isa, t) & ~tine_target_host_mask(isa)) == 0;
}

int tine_insn_pick_form(const tine_insn *in, uint32_t features, int bits) {
    int best = -1;
    for (int f = 0; f < in->nforms; f++) {
        if (in->form[f].features & ~features) continue;
        const tine_insn_form *c = &in->form[f];
        if (best < 0) best = f;
        else if (c->bits <= bits && (in->form[best].bits > bits || c->bits > in->form[best].bits)) best = f;
        else if (in->form[best].bits > bits && c->bits < in->form[best].bits) best = f;
    }
    return best;
}
