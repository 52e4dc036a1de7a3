/* compile.c — the compile driver: a kernel from its text to emitted code, every step in
 * order in one function (tine_compile_kernel), as the table of tine.h (TINE_STEPS) names
 * them (their names: util/names.c). Every way to compile a
 * kernel goes through it (api.c): the JIT, objects, headers, assembly and LLVM text, the
 * listings of `--emit`, the statement interpreter, `tine verify` and `tine bench`.
 */
#include "driver.h"

#include "../codegen/codegen.h"
#include "../pipeline/front.h"
#include "../targets/targets.h"

/* ---- what the output needs ------------------------------------------------------------- */

static bool machine_code(tine_emit_kind_t kind) {
    return kind == TINE_EMIT_OBJ || kind == TINE_EMIT_ASM || kind == TINE_EMIT_LLVM;
}

/* Whether the output is made from the statement (the others from the kernel alone). */
static bool needs_stmt(const tine_job *j) {
    return j->jit || j->whole || machine_code(j->kind) || j->kind == TINE_EMIT_STMT || j->kind == TINE_EMIT_TPROG;
}

/* What the output needs, checked before any work, in the order each output always
 * checked it: the target machine for code (an unknown target, or one this process
 * cannot run, refused first), the entry point's name for an object and its header. */
static bool open_output(tine_job *j, tine_cg_machine *mc) {
    tine_ctx_t *ctx = tine_kernel_ctx(j->kernel);
    if (j->jit) return tine_cg_open(mc, ctx, j->target, true);
    if (machine_code(j->kind) || j->kind == TINE_EMIT_H) {
        if (!tine_cg_target_machine_known(ctx, j->target) || !tine_cg_entry_name_ok(ctx, j->name)) return false;
        if (j->bad_kind) {
            tine_set_error(ctx, "unknown output kind '%s' (obj, asm, llvm, h)", j->kind_text);
            return false;
        }
        return j->kind == TINE_EMIT_H || tine_cg_open(mc, ctx, j->target, false);
    }
    if (needs_stmt(j) && j->sel == TINE_SELECT_TINE && j->target && strcmp(j->target, "host")) {
        const tine_target_info *t = tine_target_find(j->target);
        if (!t || !t->features) {
            tine_set_error(ctx, "unknown target '%s'", j->target);
            return false;
        }
    }
    return true;
}

/* The emit step: the output from the statement (code, its listing) or the kernel. */
static bool emit(tine_job *j, tine_cg_machine *mc) {
    tine_kernel_t *k = j->kernel;
    tine_selection_t sel = (tine_selection_t)j->sel;
    if (j->jit) return (j->compiled = tine_cg_jit_kernel(mc, k, j->target, sel, j->stmt, j->stmt_ms)) != NULL;
    switch (j->kind) {
    case TINE_EMIT_LLVM:
    case TINE_EMIT_ASM:
    case TINE_EMIT_OBJ: j->bytes = tine_cg_emit_kernel(mc, k, j->target, sel, j->stmt, j->name, j->kind, &j->size); break;
    case TINE_EMIT_H: j->bytes = tine_cg_header(k, j->name, j->targets ? j->targets : j->target, sel); break;
    /* fpir: the bodies lifted (no target); lowered: lowered to the target's instructions */
    case TINE_EMIT_FPIR: j->bytes = tine_kernel_print_stages(k, sel, NULL); break;
    case TINE_EMIT_LOWERED: j->bytes = tine_kernel_print_stages(k, sel, j->target); break;
    case TINE_EMIT_STMT: j->bytes = tine_stmt_print(tine_kernel_ctx(k), j->stmt); break;
    case TINE_EMIT_TPROG: /* the peephole step wrote it */
        j->bytes = j->listing.p ? j->listing.p : tine_strdup("");
        j->listing = (tine_buf){0};
        break;
    case TINE_EMIT_SCHEDULE: j->bytes = tine_kernel_print_schedule(j->parsed); break; /* every target's */
    default: break;
    }
    if (j->bytes && !machine_code(j->kind)) j->size = strlen(j->bytes);
    return j->bytes != NULL;
}

/* ---- the front half ---------------------------------------------------------------------- */

/* A front step's result ok, seen by `after` when the kernel is every target's (key NULL). */
static bool front_step(tine_job *j, tine_step_t step, tine_kernel_t *kn, const tine_on_key *key, bool ok) {
    if (ok && !key && j->after) {
        tine_kernel_t *was = j->kernel;
        j->kernel = kn;
        j->after(j->user, step, j);
        j->kernel = was;
    }
    return ok;
}

/* The kernel of the job's text for key (NULL: every target's), the front half's steps in
 * order (pipeline/front.h). Under schedule auto, a choice the checks
 * refuse (a sliding window or a vectorized reduction whose conditions the scheduler did
 * not foresee) is not the user's error: the kernel is made again with the plainer
 * directives only (level 1), and an error then is the kernel's own. */
static tine_kernel_t *front(tine_job *j, const tine_on_key *key) {
#define F(id, call) front_step(j, TINE_STEP_##id, kn, key, (call))
    for (int level = 0; level < 2; level++) {
        tine_kernel_t *kn = tine_front_new(j->ctx);
        if (!F(PARSE, tine_front_parse(kn, j->text, j->file)) || /* the declarations and directives */
            !F(ON, tine_front_on(kn, key))) {                    /* key's definitions and directives */
            tine_kernel_free(kn);
            return NULL;
        }
        if (F(CHECK, tine_front_check(kn)) &&                    /* declarations, the call graph */
            F(SCHEDULE, tine_front_schedule(kn, level)) &&       /* auto's or the written directives */
            F(ELABORATE, tine_front_elaborate(kn)) &&            /* each stage's bodies */
            F(SLIDE, tine_front_slide(kn)) &&                    /* compute_at's sliding windows */
            F(UNROLLED, tine_front_unrolled_limit(kn)) &&        /* the code the unrolls make */
            F(SCALARS, tine_front_scalars(kn)))                  /* parameters and buffer geometry */
            return kn;
        bool retry = tine_front_retries(kn, level);
        tine_kernel_free(kn);
        if (!retry) return NULL;
    }
    return NULL;
#undef F
}

/* Every target's kernel, with one more per key (a `natural` width and the `on` sections
 * that apply) that a target has and it has not: the job's target's alone, or every
 * target's for a job that compiles for several (unless the job wants the common one only). */
static tine_kernel_t *front_all(tine_job *j) {
    tine_kernel_t *k = front(j, NULL);
    tine_on_key keys[8];
    int n = k && !j->common ? tine_front_keys(k, j->target && !j->targets ? j->target : NULL, keys) : 0;
    for (int i = 0; i < n; i++) {
        tine_kernel_t *v = front(j, &keys[i]);
        if (!v) {
            tine_kernel_free(k);
            return NULL;
        }
        tine_front_add_variant(k, &keys[i], v);
    }
    return k;
}

/* ---- the driver ------------------------------------------------------------------------- */

bool tine_compile_kernel(tine_job *j) {
    tine_cg_machine mc = {0};
    int scope = -1;
    bool ok = false;
    tine_kernel_t *k;
    tine_stmt_pool *p;
    tine_stmt *s = NULL;
    double t0 = 0;
/* A step's result s is seen by `after`; the job ends after its last step. */
#define AFTER(id)                                                                                                      \
    do {                                                                                                               \
        j->stmt = s;                                                                                                   \
        if (j->after) j->after(j->user, TINE_STEP_##id, j);                                                            \
        if (j->last == TINE_STEP_##id) goto finished;                                                                  \
    } while (0)
#define STEP(id, expr)                                                                                                 \
    do {                                                                                                               \
        s = (expr);                                                                                                    \
        AFTER(id);                                                                                                     \
    } while (0)
    /* the front half (front_all): parse, on, check, schedule, elaborate, slide, unrolled,
       scalars; for every target's kernel and once per `on` instruction set */
    if (!j->kernel && (j->kernel = front_all(j)) != NULL) j->parsed_here = true;
    if (!(k = j->parsed = j->kernel)) return false;
    if (j->last < TINE_STEP_TARGET) return true;
    k = j->kernel = tine_kernel_for_target(k, j->target); /* its functions `on` the target's instruction set */
    AFTER(TARGET);
    if (!open_output(j, &mc)) return false;              /* what the output needs, before any work */
    if (!j->pool) {
        j->pool = &j->own_pool;
        tine_stmt_pool_init(j->pool, tine_kernel_ctx(k));
    }
    p = j->pool;
    /* the code serves every run: no run's bounds facts (docs/ARCHITECTURE.md) */
    scope = tine_bounds_open(tine_kernel_ctx(k), true);
    t0 = tine_now();
    if (needs_stmt(j)) {
        s = tine_stmt_build_kernel(p, k); /* plan + stages + schedule + bounds inference -> one statement */
        if (!s) goto done;
        AFTER(BUILD);
        STEP(PARTITION, tine_stmt_partition(p, k, s)); /* boundary conditions leave the steady state */
        STEP(SIMPLIFY, tine_stmt_simplify(p, s));      /* index and bound arithmetic in linear form */
        STEP(RESIDUE, tine_stmt_residues(p, s));       /* vector loops per residue: x / 2 as dense reads */
        STEP(UNSWITCH, tine_stmt_unswitch(p, s));      /* vector loops per value of an invariant select */
        if (j->sel < 0) goto finished;                 /* the statement before selection */
        STEP(SELECT, tine_stmt_select(p, s, (tine_selection_t)j->sel, j->target)); /* lift + lower, once per expression */
        STEP(INTERLEAVE, tine_stmt_interleave(p, s));  /* the pair instructions' operands, loaded whole */
        s = tine_stmt_peephole(p, s, (tine_selection_t)j->sel, j->target, /* loop bodies as target programs */
                               j->kind == TINE_EMIT_TPROG ? &j->listing : NULL);
        if (!s) goto done;
        AFTER(PEEPHOLE);
        STEP(REASSOC, tine_stmt_reassociate(p, s));    /* a sum's invariant addends gathered, added last */
        STEP(HOIST, tine_stmt_hoist(p, s));            /* loop invariants bound once, outside their loops */
    }
    j->stmt_ms = (tine_now() - t0) * 1e3;
    if (!emit(j, &mc)) goto done;                      /* JIT, object, assembly, LLVM text, header or listing */
    AFTER(EMIT);
#undef STEP
#undef AFTER
finished:
    ok = true;
done:
    tine_cg_close(&mc);
    if (scope >= 0) tine_bounds_close(tine_kernel_ctx(k), scope);
    return ok;
}

void tine_job_free(tine_job *j) {
    free(j->listing.p);
    if (j->pool == &j->own_pool) tine_stmt_pool_free(&j->own_pool);
    if (j->parsed_here) tine_kernel_free(j->parsed);
    *j = (tine_job){0};
}
