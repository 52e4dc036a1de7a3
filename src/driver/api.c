/* api.c — the public calls that compile, emit, print or interpret a kernel (tine.h), each a
 * thin wrapper that fills a job for the compile driver (compile.c) and runs it; and what
 * `tine compile --dump-after` prints, each step's result as text.
 */
#include "driver.h"

#include "../codegen/codegen.h"
#include "../targets/targets.h"

/* ---- several targets ---------------------------------------------------------------------- */

enum { MAX_TARGETS = 8 };

/* The first target of a list that this CPU runs (what the JIT compiles for when given
 * the list of a multi-target object), or NULL with an error. */
static const char *first_run_here(tine_ctx_t *ctx, const char *list) {
    const tine_target_info *rows[MAX_TARGETS];
    int n = tine_target_list(ctx, list, rows, MAX_TARGETS);
    for (int i = 0; i < n; i++) {
        int runs;
        tine_target_cflags(rows[i]->name, &runs);
        if (runs) return rows[i]->name;
    }
    if (n >= 0) tine_set_error(ctx, "this CPU runs none of the targets %s", list);
    return NULL;
}

/* A multi-target object (codegen/dispatch.c), its assembly or LLVM text: each target's
 * variant compiled by the driver as LLVM text, then linked beside the dispatcher; or its
 * header, the driver's for the first target with the list in it. */
static void *emit_list(tine_kernel_t *k, const char *list, tine_selection_t sel, const char *name, tine_emit_kind_t kind,
                       size_t *size) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    const tine_target_info *rows[MAX_TARGETS];
    int n = tine_target_list(ctx, list, rows, MAX_TARGETS);
    if (n < 0) return NULL;
    if (kind != TINE_EMIT_OBJ && kind != TINE_EMIT_ASM && kind != TINE_EMIT_LLVM && kind != TINE_EMIT_H) {
        tine_set_error(ctx, "a list of targets makes an object, its header, assembly or LLVM text (obj, h, asm, llvm); "
                       "the other outputs take one target");
        return NULL;
    }
    char *ir[MAX_TARGETS] = {0};
    const char *names[MAX_TARGETS];
    void *bytes = NULL;
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        names[i] = rows[i]->name;
        tine_job j = {.kernel = k, .target = names[i], .sel = (int)sel, .last = TINE_STEP_EMIT, .name = name,
                      .kind = kind == TINE_EMIT_H ? kind : TINE_EMIT_LLVM, .targets = list};
        ok = tine_compile_kernel(&j);
        if (kind == TINE_EMIT_H) {
            *size = j.size;
            bytes = j.bytes;
            n = 0; /* the header is every variant's */
        } else {
            ir[i] = j.bytes;
        }
        tine_job_free(&j);
    }
    if (ok && kind != TINE_EMIT_H) bytes = tine_cg_emit_dispatch(ctx, name, names, ir, n, kind, size);
    for (int i = 0; i < n; i++) free(ir[i]);
    return bytes;
}

/* ---- compiling and emitting ------------------------------------------------------------- */

static tine_compiled_t *kernel_compile(tine_kernel_t *k, const char *target, tine_selection_t sel) {
    if (target && strchr(target, ',') && !(target = first_run_here(tine_kernel_ctx(k), target))) return NULL;
    tine_job j = {.kernel = k, .target = target, .sel = (int)sel, .last = TINE_STEP_EMIT, .jit = true};
    tine_compile_kernel(&j);
    tine_compiled_t *c = j.compiled;
    tine_job_free(&j);
    return c;
}

tine_compiled_t *tine_kernel_compile(tine_kernel_t *k, const char *target, tine_selection_t sel) {
    if (!k) return NULL;
    tine_compiled_t *c;
    TINE_GUARD(tine_kernel_ctx(k), NULL, c, kernel_compile(k, target, sel));
    return c;
}

/* kind_text: tine_kernel_emit's text of the kind, when it names none of the object's */
static void *kernel_emit(tine_kernel_t *k, const char *target, tine_selection_t sel, const char *name,
                         tine_emit_kind_t kind, const char *kind_text, size_t *size) {
    if (target && strchr(target, ',')) {
        if ((int)kind >= 0) return emit_list(k, target, sel, name, kind, size);
        tine_set_error(tine_kernel_ctx(k), "unknown output kind '%s' (obj, asm, llvm, h)", kind_text);
        return NULL;
    }
    tine_job j = {.kernel = k, .target = target, .sel = (int)sel, .last = TINE_STEP_EMIT, .kind = kind, .name = name};
    if ((int)kind < 0) {
        j.kind = TINE_EMIT_OBJ; /* refused after the checks an object makes, as it always was */
        j.bad_kind = 1;
        j.kind_text = kind_text;
    }
    tine_compile_kernel(&j);
    void *bytes = j.bytes;
    *size = j.size;
    tine_job_free(&j);
    return bytes;
}

void *tine_kernel_emit_kind(tine_kernel_t *k, const char *target, tine_selection_t sel, const char *name,
                            tine_emit_kind_t kind, size_t *size) {
    if ((int)kind < 0 || kind >= TINE_EMIT_NKINDS) {
        tine_set_error(tine_kernel_ctx(k), "unknown output kind %d", (int)kind);
        return NULL;
    }
    void *bytes;
    TINE_GUARD(tine_kernel_ctx(k), NULL, bytes, kernel_emit(k, target, sel, name, kind, NULL, size));
    return bytes;
}

void *tine_kernel_emit(tine_kernel_t *k, const char *target, tine_selection_t sel, const char *name, const char *what,
                       size_t *size) {
    int kind = tine_emit_kind_find(what);
    bool object = kind == TINE_EMIT_OBJ || kind == TINE_EMIT_ASM || kind == TINE_EMIT_LLVM || kind == TINE_EMIT_H;
    void *bytes;
    TINE_GUARD(tine_kernel_ctx(k), NULL, bytes, kernel_emit(k, target, sel, name, object ? kind : -1, what, size));
    return bytes;
}

static char *print_stmt(tine_kernel_t *k, tine_selection_t sel, const char *target) {
    tine_job j = {.kernel = k, .target = target, .sel = (int)sel, .last = TINE_STEP_EMIT, .kind = TINE_EMIT_STMT};
    tine_compile_kernel(&j);
    char *text = j.bytes;
    tine_job_free(&j);
    return text;
}

char *tine_kernel_print_stmt(tine_kernel_t *k, tine_selection_t sel, const char *target) {
    char *text;
    TINE_GUARD(tine_kernel_ctx(k), NULL, text, print_stmt(k, sel, target));
    return text;
}

/* ---- the statement after a step ----------------------------------------------------------- */

typedef struct {
    tine_pass_fn after;
    void *user;
} pass_names;

static void name_pass(void *user, tine_step_t step, const tine_job *j) {
    pass_names *n = user;
    if (step >= TINE_STEP_BUILD && step <= TINE_STEP_HOIST) n->after(n->user, tine_step_name(step), j->stmt);
}

tine_stmt *tine_compile_stmt(tine_stmt_pool *pool, tine_kernel_t *k, int sel, const char *target, tine_pass_fn after,
                             void *user) {
    pass_names n = {after, user};
    tine_job j = {.kernel = k, .target = target, .sel = sel, .last = TINE_STEP_HOIST, .kind = TINE_EMIT_STMT, .pool = pool,
                  .after = after ? name_pass : NULL, .user = &n};
    tine_stmt *s = tine_compile_kernel(&j) ? j.stmt : NULL;
    tine_job_free(&j);
    return s;
}

typedef struct {
    const char *want;
    const tine_stmt *got;
} capture;

static void capture_pass(void *user, const char *pass, const tine_stmt *s) {
    capture *c = user;
    if (!strcmp(pass, c->want)) c->got = s;
}

int tine_kernel_interpret_stmt(tine_kernel_t *k, const char *pass, int sel, const char *target,
                               tine_buffer_t *const *inputs, const void *const *params, tine_buffer_t *out) {
    k = tine_kernel_for_target(k, target);
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    tine_stmt_pool p;
    tine_stmt_pool_init(&p, ctx);
    capture c = {.want = pass};
    int rc = -1;
    if (!tine_compile_stmt(&p, k, sel, target, capture_pass, &c)) {
        /* the error is set */
    } else if (!c.got) {
        tine_set_error(ctx, "the driver has no pass '%s'", pass);
    } else {
        tine_env_t *env = tine_call_bind(k, inputs, params, out);
        rc = tine_stmt_run(ctx, c.got, env) ? -1 : 0; /* the API's -1 (the error says why) */
        tine_env_free(env);
    }
    tine_stmt_pool_free(&p);
    return rc;
}

/* ---- the selection table (tine report) ---------------------------------------------------- */

/* What tine_kernel_selections passes on: the loop of each expression, from the statement
 * selection is about to rewrite. */
typedef struct {
    tine_u64map loop; /* expression id -> the name (const char *) of the loop around its first use */
    tine_selected_fn selected;
    tine_lift_trace_fn rule;
    void *user;
} selections;

static void note_expr(selections *S, const tine_expr_t *e, const char *loop) {
    uint64_t v;
    if (e && !tine_u64map_get(&S->loop, tine_expr_id(e), &v)) tine_u64map_put(&S->loop, tine_expr_id(e), (uint64_t)(uintptr_t)loop);
}

/* The named loop around each expression of s (the expressions tine_stmt_select sees). */
static void note_loops(selections *S, const tine_stmt *s, const char *loop) {
    if (!s) return;
    switch (s->kind) {
    case TINE_S_FOR:
        note_expr(S, s->loop.min, loop);
        note_expr(S, s->loop.extent, loop);
        note_loops(S, s->loop.body, s->loop.name ? s->loop.name : loop);
        break;
    case TINE_S_LET:
        note_expr(S, s->let.value, loop);
        note_loops(S, s->let.body, loop);
        break;
    case TINE_S_STORE:
        note_expr(S, s->store.index, loop);
        note_expr(S, s->store.value, loop);
        break;
    case TINE_S_ALLOCATE:
        note_expr(S, s->alloc.size, loop);
        note_loops(S, s->alloc.body, loop);
        break;
    case TINE_S_IF:
        note_expr(S, s->if_.cond, loop);
        note_loops(S, s->if_.then_, loop);
        note_loops(S, s->if_.else_, loop);
        break;
    case TINE_S_BLOCK:
        for (int i = 0; i < s->block.n; i++) note_loops(S, s->block.v[i], loop);
        break;
    case TINE_S_ASSERT:
        note_expr(S, s->assert_.cond, loop);
        break;
    case TINE_S_EVALUATE: note_expr(S, s->eval.value, loop); break;
    case TINE_S_FREE: break;
    }
}

static void before_select(void *user, const char *pass, const tine_stmt *s) {
    if (!strcmp(pass, tine_step_name(TINE_STEP_UNSWITCH))) note_loops(user, s, "");
}

static void selected(void *user, tine_ctx_t *ctx, const tine_expr_t *before, const tine_expr_t *lifted,
                     const tine_expr_t *after, const char *target) {
    (void)ctx;
    (void)target;
    selections *S = user;
    uint64_t v = 0;
    tine_u64map_get(&S->loop, tine_expr_id(before), &v);
    S->selected(S->user, v ? (const char *)(uintptr_t)v : "", before, lifted, after);
}

static void applied(void *user, const char *rule, const char *file, int line, const tine_expr_t *before,
                    const tine_expr_t *after) {
    selections *S = user;
    S->rule(S->user, rule, file, line, before, after);
}

static int kernel_selections(tine_kernel_t *k, const char *target, tine_lift_trace_fn rule, tine_selected_fn fn,
                             void *user) {
    k = tine_kernel_for_target(k, target);
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    selections S = {.selected = fn, .rule = rule, .user = user};
    tine_stmt_pool p;
    tine_stmt_pool_init(&p, ctx);
    tine_select_set_trace(ctx, selected, rule ? applied : NULL, &S);
    tine_stmt *s = tine_compile_stmt(&p, k, (int)TINE_SELECT_TINE, target, before_select, &S);
    tine_select_set_trace(ctx, NULL, NULL, NULL);
    tine_stmt_pool_free(&p);
    tine_u64map_free(&S.loop);
    return s ? 0 : -1;
}

int tine_kernel_selections(tine_kernel_t *k, const char *target, tine_lift_trace_fn rule, tine_selected_fn fn,
                           void *user) {
    int rc;
    TINE_GUARD(tine_kernel_ctx(k), -1, rc, kernel_selections(k, target, rule, fn, user));
    return rc;
}

/* ---- parsing: the driver's front half ---------------------------------------------------- */

static tine_kernel_t *parse(tine_ctx_t *ctx, const char *text, const char *file, bool common) {
    tine_job j = {.ctx = ctx, .text = text, .file = file, .last = TINE_STEP_SCALARS, .common = common};
    tine_kernel_t *k = tine_compile_kernel(&j) ? j.kernel : NULL;
    j.parsed_here = false; /* the caller's */
    tine_job_free(&j);
    return k;
}

tine_kernel_t *tine_kernel_parse(tine_ctx_t *ctx, const char *text, const char *file) {
    tine_kernel_t *k;
    TINE_GUARD(ctx, NULL, k, parse(ctx, text, file, false));
    return k;
}

tine_kernel_t *tine_kernel_parse_common(tine_ctx_t *ctx, const char *text, const char *file) {
    tine_kernel_t *k;
    TINE_GUARD(ctx, NULL, k, parse(ctx, text, file, true));
    return k;
}

/* ---- --dump-after ------------------------------------------------------------------------ */

typedef struct {
    int want; /* a step, or TINE_NSTEPS: every one */
    tine_buf b;
} dumper;

/* The kernel as the front half left it: its schedule, then each stage's body. */
static void dump_kernel(tine_buf *b, tine_kernel_t *k) {
    char *sched = tine_kernel_print_schedule(k);
    if (sched) tine_buf_puts(b, sched);
    free(sched);
    for (int i = 0; i < tine_kernel_nstages(k); i++) {
        const tine_stage *st = tine_kernel_stage(k, i);
        char *body = tine_print(tine_kernel_ctx(k), st->body);
        tine_buf_printf(b, "# stage %s (%d lanes)\n%s\n", st->name, st->lanes, body);
        free(body);
    }
}

static void dump_step(void *user, tine_step_t step, const tine_job *j) {
    dumper *d = user;
    if (d->want != TINE_NSTEPS && d->want != (int)step) return;
    tine_buf_printf(&d->b, "# after %s\n", tine_step_name(step));
    if (step <= TINE_STEP_TARGET) {
        dump_kernel(&d->b, j->kernel);
    } else if (step == TINE_STEP_EMIT) {
        tine_buf_puts(&d->b, j->bytes);
    } else {
        char *text = tine_stmt_print(tine_kernel_ctx(j->kernel), j->stmt);
        tine_buf_puts(&d->b, text);
        free(text);
    }
}

static char *dump_after(tine_ctx_t *ctx, const char *text, const char *file, const char *target, tine_selection_t sel,
                        const char *name, tine_emit_kind_t kind, int step) {
    dumper d = {.want = step};
    tine_job j = {.ctx = ctx, .text = text, .file = file, .target = target, .sel = (int)sel, .last = step == TINE_NSTEPS ? TINE_STEP_EMIT : step,
                  .kind = kind == TINE_EMIT_OBJ ? TINE_EMIT_ASM : kind, /* an object shown as its assembly */
                  .name = name, .whole = true, .after = dump_step, .user = &d};
    bool ok = tine_compile_kernel(&j);
    if (j.bytes) free(j.bytes);
    tine_job_free(&j);
    if (!ok) {
        free(d.b.p);
        return NULL;
    }
    return d.b.p ? d.b.p : tine_strdup("");
}

char *tine_kernel_dump_after(tine_ctx_t *ctx, const char *text, const char *file, const char *target,
                             tine_selection_t sel, const char *name, tine_emit_kind_t kind, int step) {
    if (step < 0 || step > TINE_NSTEPS || (int)kind < 0 || kind >= TINE_EMIT_NKINDS) {
        tine_set_error(ctx, "no step %d or output kind %d", step, (int)kind);
        return NULL;
    }
    char *out;
    TINE_GUARD(ctx, NULL, out, dump_after(ctx, text, file, target, sel, name, kind, step));
    return out;
}
