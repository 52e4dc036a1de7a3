#define _POSIX_C_SOURCE 200809L
/* report.c — `tine report K.tine`: one self-contained HTML page of what the kernel became,
 * gathered here from the library's public calls and written by report_html.c.
 *
 *   - the file's lines, each declaration and directive mapped by name to the stages that
 *     compute it (its own, or those it is inlined into: tine_kernel_stage_calls);
 *   - the driver's result after every step (tine_kernel_dump_after, all steps);
 *   - every vector expression tine's selection rewrote, lifted and lowered, with the rules
 *     applied (tine_kernel_selections);
 *   - the assembly of both selections (the one shown, and the other beside it), cut into
 *     innermost loops with llvm-mca's cycles per iteration (asm_loops.c);
 *   - with --bench, the kernel's row of `tine bench`, run as a child process in a
 *     temporary directory (its table as printed, its times from tine-bench.csv).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../bench/ref/cases.h"
#include "cli.h"
#include "report.h"

static char *xstrdup(const char *s) {
    char *d = strdup(s ? s : "");
    if (!d) abort();
    return d;
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) abort();
    return p;
}

/* ---- the file and its names ------------------------------------------------------------ */

static void add_name(report_src *l, const char *name) {
    for (int i = 0; i < l->nnames; i++)
        if (!strcmp(l->names[i], name)) return;
    if (l->nnames < 8 && name[0]) l->names[l->nnames++] = name;
}

static void gather_source(report *r, const tine_kernel_t *k) {
    char *copy = r->lines = xstrdup(r->source);
    for (char *p = copy;; r->nsrc++) {
        r->src = xrealloc(r->src, sizeof *r->src * (size_t)(r->nsrc + 1));
        r->src[r->nsrc] = (report_src){.text = p};
        char *nl = strchr(p, '\n');
        if (!nl) {
            r->nsrc += *p != 0;
            break;
        }
        *nl = 0;
        p = nl + 1;
    }
    const char *name;
    int line;
    for (int i = 0; (name = tine_kernel_decl(k, i, NULL, &line)) && r->ndecls < 128; i++) {
        if (line >= 1 && line <= r->nsrc) add_name(&r->src[line - 1], name);
        r->decl_names[r->ndecls] = name;
        bool own = false;
        for (int s = 0; s < r->nstages; s++) own |= !strcmp(r->stages[s], name);
        /* a stage's own function is computed there alone; other stages read its buffer */
        for (int s = 0; s < r->nstages; s++)
            r->decl_stage[r->ndecls][s] = own ? !strcmp(r->stages[s], name) : tine_kernel_stage_calls(k, s, name);
        r->ndecls++;
    }
    for (int i = 0; (name = tine_kernel_directive(k, i, &line)); i++)
        if (line >= 1 && line <= r->nsrc) add_name(&r->src[line - 1], name);
}

/* ---- the steps ----------------------------------------------------------------------- */

/* Whether line is among the lines of p (a step's). */
static bool has_line(const report_step *p, const char *line) {
    for (int i = 0; i < p->nlines; i++)
        if (!strcmp(p->line[i], line)) return true;
    return false;
}

/* Cuts the dump into steps at its "# after NAME" lines (the steps' names in order, so a
 * line of the assembly that happens to read so is not taken for one). */
static void gather_steps(report *r, char *dump) {
    int want = 0;
    report_step *cur = NULL;
    for (char *p = dump; *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        char head[64];
        const char *next = want < TINE_NSTEPS ? tine_step_name((tine_step_t)want) : NULL;
        snprintf(head, sizeof head, "# after %s", next ? next : "");
        if (next && !strcmp(p, head) && r->nsteps < 32) {
            cur = &r->steps[r->nsteps++];
            cur->name = next;
            want++;
        } else if (cur) {
            cur->line = xrealloc(cur->line, sizeof *cur->line * (size_t)(cur->nlines + 1));
            cur->line[cur->nlines++] = p;
        }
        if (!nl) break;
        p = nl + 1;
    }
    /* fresh lines: not in the previous step's text (a line-set comparison, quadratic only
       in the lines of two neighbouring steps) */
    for (int s = 0; s < r->nsteps; s++) {
        report_step *st = &r->steps[s];
        st->fresh = xrealloc(NULL, sizeof *st->fresh * (size_t)(st->nlines + 1));
        for (int i = 0; i < st->nlines; i++) st->fresh[i] = s > 0 && !has_line(&r->steps[s - 1], st->line[i]);
    }
}

/* ---- the selection table ---------------------------------------------------------------- */

typedef struct {
    report *r;
    tine_ctx_t *ctx;
    report_rule *pending;
    int npending;
} sel_collect;

static void on_rule(void *user, const char *rule, const char *file, int line, const tine_expr_t *before,
                    const tine_expr_t *after) {
    (void)before;
    (void)after;
    sel_collect *c = user;
    c->pending = xrealloc(c->pending, sizeof *c->pending * (size_t)(c->npending + 1));
    c->pending[c->npending++] = (report_rule){xstrdup(rule), xstrdup(file), line};
}

static char *print_expr(tine_ctx_t *ctx, const tine_expr_t *e) {
    char *s = tine_print(ctx, e);
    return s ? s : xstrdup("(not printable)");
}

static void on_selected(void *user, const char *loop, const tine_expr_t *before, const tine_expr_t *lifted,
                        const tine_expr_t *lowered) {
    sel_collect *c = user;
    report *r = c->r;
    if (before == lowered) { /* an index ramp, a plain load: nothing to show */
        r->unchanged++;
        for (int i = 0; i < c->npending; i++) free(c->pending[i].name), free(c->pending[i].file);
        c->npending = 0;
        return;
    }
    r->exprs = xrealloc(r->exprs, sizeof *r->exprs * (size_t)(r->nexprs + 1));
    report_expr *x = &r->exprs[r->nexprs++];
    *x = (report_expr){.loop = xstrdup(loop), .before = print_expr(c->ctx, before),
                       .lifted = print_expr(c->ctx, lifted), .lowered = print_expr(c->ctx, lowered),
                       .rules = c->pending, .nrules = c->npending};
    /* the stage is the loop name's first part: loops are named STAGE.COORD */
    x->stage = xstrdup(loop);
    x->stage[strcspn(x->stage, ".")] = 0;
    c->pending = NULL;
    c->npending = 0;
}

/* ---- the assembly --------------------------------------------------------------------- */

static bool mca_runs(void) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", asm_mca_path());
    return system(cmd) == 0;
}

static void gather_asm(report *r, report_asm *ra, const char *text, const char *who) {
    asm_parse(text, r->isa, &ra->a);
    int steady;
    ra->nloops = asm_find_loops(&ra->a, ra->loops, 128, &steady);
    for (int i = 0; i < ra->nloops; i++) {
        char what[160];
        snprintf(what, sizeof what, "report: %s, %s loop %s", r->kernel, who, ra->loops[i].name);
        ra->cycles[i] = r->mca ? asm_mca_cycles(&ra->a, &ra->loops[i], r->cpu, what) : -1;
    }
}

/* Why the page has no bench row. */
static void no_row(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void no_row(report *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(r->bench_why, sizeof r->bench_why, "No bench row: ");
    vsnprintf(r->bench_why + n, sizeof r->bench_why - (size_t)n, fmt, ap);
    va_end(ap);
}

/* ---- --bench ---------------------------------------------------------------------------- */

/* The output of `tine bench --filter KERNEL --target T` run in a temporary directory, and
 * the kernel's times from its tine-bench.csv (every column NAME_ms with a NAME_state of
 * "timed"). */
static void gather_bench(report *r, const char *self) {
    bool known = false;
    for (const bench_entry *be = bench_entries(); be->name; be++) known |= !strcmp(be->name, r->kernel);
    if (!known) {
        no_row(r, "%s is not one of the benchmark kernels of bench/kernels or bench/user (tine bench measures those only)", r->kernel);
        return;
    }
    if (!strcmp(r->target, "host")) {
        no_row(r, "tine bench has a row per named target: give --target (x86-64-avx2 ...)");
        return;
    }
    if (strchr(self, '\'')) { /* the command below quotes it so; the kernel and target are known names */
        no_row(r, "the tine program's path holds a quote: cannot run its bench");
        return;
    }
    char dir[] = "/tmp/tine-report-XXXXXX";
    if (!mkdtemp(dir)) {
        no_row(r, "cannot make a temporary directory: %s", strerror(errno));
        return;
    }
    char cmd[4096 + 512];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' bench --filter '%s' --target '%s' 2>&1", dir, self, r->kernel, r->target);
    FILE *pp = popen(cmd, "r");
    size_t cap = 4096, n = 0;
    char *out = xrealloc(NULL, cap);
    size_t got;
    while (pp && (got = fread(out + n, 1, cap - n - 1, pp)) > 0)
        if ((n += got) + 1 == cap) out = xrealloc(out, cap *= 2);
    out[n] = 0;
    /* the bench's progress is rewritten in place on the terminal ('\r'): its last state
       of each line is what a reader saw */
    char *w = out;
    for (char *line = out; *line;) {
        size_t len = strcspn(line, "\n");
        char *cr = line;
        for (char *q = line; q < line + len; q++)
            if (*q == '\r') cr = q + 1;
        size_t keep = (size_t)(line + len - cr);
        memmove(w, cr, keep);
        w += keep;
        line += len;
        if (*line) *w++ = *line++;
    }
    *w = 0;
    int status = pp ? pclose(pp) : -1;
    r->bench_text = out;
    if (status != 0) no_row(r, "tine bench failed (its output is below)");
    char path[600];
    snprintf(path, sizeof path, "%s/tine-bench.csv", dir);
    /* an AArch64 row is llvm-mca's estimate (bench_mca.c), a table without tine-bench.csv */
    if (status == 0 && r->isa == ASM_ARM)
        snprintf(r->bench_why, sizeof r->bench_why, "The AArch64 row is llvm-mca's estimate, not a timing: its table is below");
    char *csv = status == 0 && r->isa != ASM_ARM ? tine_cli_read_file(path) : NULL;
    if (csv) {
        /* the header names the columns; the kernel's row is the one of its name and target */
        char *save, *hdr = strtok_r(csv, "\n", &save), *row;
        char *cols[256];
        int nc = 0;
        for (char *q = hdr; q && nc < 256; q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL) cols[nc++] = q;
        for (int i = 0; i < nc; i++) cols[i][strcspn(cols[i], ",")] = 0;
        while ((row = strtok_r(NULL, "\n", &save))) {
            char *val[256];
            int nv = 0;
            for (char *q = row; q && nv < 256; q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL) val[nv++] = q;
            for (int i = 0; i < nv; i++) val[i][strcspn(val[i], ",")] = 0;
            if (nv < 2 || strcmp(val[0], r->kernel) || strcmp(val[1], r->target)) continue;
            for (int i = 0; i < nc && i < nv && r->nbench < 16; i++) {
                size_t len = strlen(cols[i]);
                if (len < 4 || strcmp(cols[i] + len - 3, "_ms") || !val[i][0]) continue;
                char state[64];
                snprintf(state, sizeof state, "%.*s_state", (int)(len - 3), cols[i]);
                for (int j = 0; j < nc && j < nv; j++)
                    if (!strcmp(cols[j], state) && !strcmp(val[j], "timed")) {
                        snprintf(r->bench_impl[r->nbench], sizeof r->bench_impl[0], "%.*s", (int)(len - 3), cols[i]);
                        r->bench_ms[r->nbench++] = atof(val[i]);
                    }
            }
        }
        free(csv);
    } else if (!r->bench_why[0]) {
        no_row(r, "tine bench wrote no tine-bench.csv");
    }
    const char *files[] = {"tine-bench.csv", "tine-bench.svg", "tine-bench.png"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        remove(path);
    }
    rmdir(dir);
}

/* ---- the command ------------------------------------------------------------------------ */

/* The kernel's name: the file's name without its directory and ".tine"; and the entry
 * point's, that name with what a C identifier cannot hold made '_'. */
static void kernel_name(const char *file, char *out, size_t n, char *entry, size_t ne) {
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    size_t len = strlen(b);
    if (len > 5 && !strcmp(b + len - 5, ".tine")) len -= 5;
    snprintf(out, n, "%.*s", (int)len, b);
    snprintf(entry, ne, "%s%s", isdigit((unsigned char)out[0]) || !out[0] ? "k_" : "", out);
    for (char *p = entry; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') *p = '_';
}

static void report_free(report *r) {
    free(r->source);
    free(r->lines);
    free(r->src);
    for (int s = 0; s < r->nsteps; s++) {
        free(r->steps[s].line);
        free(r->steps[s].fresh);
    }
    for (int i = 0; i < r->nexprs; i++) {
        report_expr *x = &r->exprs[i];
        free(x->loop), free(x->stage), free(x->before), free(x->lifted), free(x->lowered);
        for (int j = 0; j < x->nrules; j++) free(x->rules[j].name), free(x->rules[j].file);
        free(x->rules);
    }
    free(r->exprs);
    for (int i = 0; i < 2; i++) asm_free(&r->asm_[i].a);
    free(r->bench_text);
    tine_kernel_free(r->parsed); /* the names of stages and declarations were its */
}

/* Everything the page shows, into r; 0, or the exit status after a message. */
static int gather(report *r, tine_ctx_t *ctx, tine_selection_t sel, char **dump, char **other_asm) {
    tine_kernel_t *k = r->parsed = tine_kernel_parse(ctx, r->source, r->file);
    if (!k) {
        cli_report(ctx, "");
        return 1;
    }
    tine_kernel_t *kt = tine_kernel_for_target(k, r->target);
    int rc = 0;
    for (int s = 0; s < tine_kernel_nstages(kt) && r->nstages < 64; s++) r->stages[r->nstages++] = tine_kernel_stage_name(kt, s);
    gather_source(r, kt);
    /* the selection table first: lifting remembers what it lifted in the context, and the
       rules shown are those applied the first time; then the shown selection's steps (its
       assembly the emit step's) */
    sel_collect c = {.r = r, .ctx = ctx};
    size_t size = 0;
    if (tine_kernel_selections(k, r->target, on_rule, on_selected, &c) != 0 ||
        !(*dump = tine_kernel_dump_after(ctx, r->source, r->file, r->target, sel, r->entry, TINE_EMIT_ASM,
                                         TINE_NSTEPS)) ||
        !(*other_asm = tine_kernel_emit(k, r->target, sel == TINE_SELECT_TINE ? TINE_SELECT_LLVM : TINE_SELECT_TINE,
                                        r->entry, "asm", &size))) {
        cli_report(ctx, "tine report: ");
        rc = 1;
    }
    for (int i = 0; i < c.npending; i++) free(c.pending[i].name), free(c.pending[i].file);
    free(c.pending);
    return rc;
}

int cli_cmd_report(const options *o) {
    char name[256], entry[260], out_name[300];
    kernel_name(o->file, name, sizeof name, entry, sizeof entry);
    report r = {.file = o->file, .kernel = name, .entry = entry, .target = o->target ? o->target : "host"};
    tine_selection_t sel = o->select && !strcmp(o->select, "llvm") ? TINE_SELECT_LLVM : TINE_SELECT_TINE;
    if (o->select && strcmp(o->select, "llvm") && strcmp(o->select, "tine")) {
        fprintf(stderr, "tine: --select takes llvm or tine, not '%s'\n", o->select);
        return 2;
    }
    r.sel_name = sel == TINE_SELECT_TINE ? "tine" : "LLVM alone";
    r.other_name = sel == TINE_SELECT_TINE ? "LLVM alone" : "tine";
    tine_ctx_t *ctx = cli_ctx(o);
    if (!ctx) return 2;
    const char *isa = tine_target_isa(r.target);
    if (!isa && strcmp(r.target, "host")) {
        fprintf(stderr, "tine: unknown target '%s'\n", r.target);
        tine_ctx_free(ctx);
        return 1;
    }
#if defined(__aarch64__)
    if (!isa) isa = "arm";
#else
    if (!isa) isa = "x86";
#endif
    r.isa = !strcmp(isa, "arm") ? ASM_ARM : ASM_X86;
    r.isa_text = isa;
    r.cpu = r.isa == ASM_ARM ? "neoverse-n1" : ASM_X86_CPU;
    r.mca = mca_runs();
    if (!(r.source = tine_cli_read_file(o->file))) {
        tine_ctx_free(ctx);
        return 1;
    }
    char *dump = NULL, *other = NULL;
    int rc = gather(&r, ctx, sel, &dump, &other);
    if (!rc) {
        gather_steps(&r, dump);
        /* the shown selection's assembly: the emit step's text */
        const report_step *emit = r.nsteps ? &r.steps[r.nsteps - 1] : NULL;
        size_t len = 0;
        for (int i = 0; emit && i < emit->nlines; i++) len += strlen(emit->line[i]) + 1;
        char *shown = xrealloc(NULL, len + 1), *p = shown;
        for (int i = 0; emit && i < emit->nlines; i++) p += sprintf(p, "%s\n", emit->line[i]);
        *p = 0;
        gather_asm(&r, &r.asm_[0], shown, r.sel_name);
        gather_asm(&r, &r.asm_[1], other, r.other_name);
        free(shown);
        if (o->bench) {
            r.bench = true;
            char self[4096];
            ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
            if (n > 0) {
                self[n] = 0;
                gather_bench(&r, self);
            } else {
                no_row(&r, "cannot find the tine program to run its bench");
            }
        }
        snprintf(out_name, sizeof out_name, "%s.html", name);
        const char *path = o->out ? o->out : out_name;
        char *page = NULL;
        size_t page_size = 0;
        FILE *f = open_memstream(&page, &page_size);
        if (!f || report_html(&r, f) != 0 || fclose(f) != 0) {
            fprintf(stderr, "tine: out of memory writing the report\n");
            rc = 1;
        } else {
            rc = cli_write(path, page, page_size);
            if (!rc) fprintf(stderr, "tine report: wrote %s\n", path);
        }
        free(page);
    }
    free(dump);
    free(other);
    report_free(&r);
    tine_ctx_free(ctx);
    return rc;
}
