/* vectorize.c — tine vectorize's driver, the whole pipeline in one function: C read by the
 * one C front end (src/cfront), run symbolically into a spec (front.c), vectorized by
 * equality saturation (search.c), validated against the spec (validate.c), made a
 * target-level program and optimized by the peephole and the scheduler (tprog.c), emitted
 * (emit_llvm.c, emit_c.c). */
#define _POSIX_C_SOURCE 200809L
#include "vectorize.h"

#include <sys/resource.h>

static bool emit_kind(const char *emit, tine_emit_kind_t *k) {
    if (!strcmp(emit, "obj")) *k = TINE_EMIT_OBJ;
    else if (!strcmp(emit, "asm")) *k = TINE_EMIT_ASM;
    else if (!strcmp(emit, "llvm")) *k = TINE_EMIT_LLVM;
    else return false;
    return true;
}

/* --emit tprog: what each step made (as comments), the rules that fired, the listing. */
static char *tprog_listing(const vz_tprog *t, const tine_buf *rep, size_t *size) {
    tine_buf b = {0};
    for (const char *l = rep->p; l && *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        tine_buf_printf(&b, "# %.*s\n", n, l);
        l = e ? e + 1 : NULL;
    }
    if (t->peep.nfired) {
        tine_buf_puts(&b, "# rules fired:");
        for (int i = 0; i < t->peep.nfired; i++) tine_buf_printf(&b, " %s %d", t->peep.fired[i], t->peep.fired_counts[i]);
        tine_buf_puts(&b, "\n");
    }
    tine_tprog_print(t->prog, &b);
    *size = b.n;
    return b.p ? b.p : tine_strdup("");
}

static double peak_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0; /* Linux: kilobytes */
}

char *tine_vectorize(tine_ctx_t *ctx, const char *path, const char *text, const tine_vectorize_opts *o, size_t *size,
                     char **stats) {
    double t0 = tine_now();
    const char *emit = o->emit ? o->emit : "obj";
    static const char *const kinds[] = {"obj", "h", "c", "asm", "llvm", "tprog", "spec", "egraph-stats"};
    bool known = false;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) known |= !strcmp(emit, kinds[i]);
    if (!known) {
        tine_set_error(ctx, "tine vectorize: --emit takes obj, h, c, asm, llvm, tprog, spec or egraph-stats, not '%s'", emit);
        return NULL;
    }
    const vz_target *t = vz_target_find(o->target);
    if (!t && strcmp(emit, "spec")) {
        tine_set_error(ctx, "tine vectorize: unknown target '%s' (it knows %s)", o->target ? o->target : "",
                       vz_target_names());
        return NULL;
    }
    if (!o->function) {
        tine_set_error(ctx, "tine vectorize: which function? (--function NAME)");
        return NULL;
    }
    tine_cfile *f = tine_cfront_parse(ctx, path, text, o->cflags, o->ncflags, NULL);
    if (!f) return NULL;
    vz_spec *s = vz_front(ctx, f, o->function, NULL);
    tine_cfile_free(f);
    if (!s) return NULL;
    char *out = NULL;
    tine_buf b = {0};
    if (!strcmp(emit, "spec")) {
        vz_spec_print(s, &b);
        out = b.p;
        *size = b.n;
        vz_spec_free(s);
        return out;
    }
    vz_options vo = {.reassociate = o->reassociate, .contract = o->contract, .no_vectorize = o->no_vectorize};
    vo.limits.max_seconds = o->max_seconds;
    vo.limits.max_nodes = o->max_nodes;
    vo.prove_fpa = o->prove;
    vz_program *p = vz_search(ctx, s, t, &vo);
    tine_emit_kind_t k;
    vz_validation val = {0};
    if (p && o->prove && !o->reassociate && !o->contract && vz_prove_identities(ctx, s->elem) != 0) {
        vz_program_free(p);
        p = NULL;
    }
    if (p && !o->no_validate && vz_validate(ctx, p, &vo, &val) != 0) {
        vz_program_free(p);
        p = NULL;
    }
    /* C goes through the target-level program (the peephole, the schedule); LLVM gets the
       e-graph's program directly: through the target-level program its code measured no
       faster (llvm-mca, 21 kernels: geomean 0.998 at AVX2, 1.009 at AVX-512, 1.005 on
       Neon; LLVM schedules and allocates on its own), see docs/VECTORIZE.md */
    bool c_out = !strcmp(emit, "c"), listing = !strcmp(emit, "tprog");
    tine_buf rep = {0};
    tine_tprog_opt po = {.contract = o->contract};
    vz_tprog *tp = p && (c_out || listing) ? vz_tprog_new(ctx, p, &po, listing ? &rep : NULL) : NULL;
    if (!p || ((c_out || listing) && !tp)) out = NULL;
    else if (!strcmp(emit, "h")) out = vz_emit_header(p), *size = strlen(out);
    else if (c_out) out = vz_emit_c(ctx, p, tp, size);
    else if (listing) out = tprog_listing(tp, &rep, size);
    else if (emit_kind(emit, &k)) out = vz_emit_llvm(ctx, p, k, size);
    free(rep.p);
    vz_tprog_free(tp);
    if (p && (stats || !strcmp(emit, "egraph-stats"))) {
        vz_stats(p, &b);
        if (o->no_validate) tine_buf_puts(&b, "validation: skipped (--no-validate)\n");
        else if (val.reals) tine_buf_printf(&b, "validation: %d outputs equal to the C's over the reals (Z3)\n", val.outputs);
        else tine_buf_printf(&b, "validation: %d outputs computed with the C's operations in the C's order, up to "
                                 "identities exact in IEEE arithmetic%s\n", val.outputs,
                             o->prove ? " (proven in Z3's floating-point theory)" : "");
        if (o->prove && !val.reals)
            tine_buf_printf(&b, "proven: %d of %d outputs equal to the C's one by one in Z3's floating-point theory; "
                                "%d more (Z3 out of time) by rewriting with the proven identities\n",
                            val.proven_fpa, val.outputs, val.by_identities);
        tine_buf_printf(&b, "compile seconds: %.3f\npeak memory MB: %.1f\n", tine_now() - t0, peak_mb());
        if (!strcmp(emit, "egraph-stats")) {
            out = b.p;
            *size = b.n;
            b.p = NULL;
        } else if (stats) {
            *stats = b.p;
            b.p = NULL;
        }
    }
    free(b.p);
    vz_program_free(p);
    vz_spec_free(s);
    return out;
}
