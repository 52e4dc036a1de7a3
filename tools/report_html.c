/* report_html.c — the page of `tine report` (report.c gathers what it shows): one HTML
 * file with its style and script inline, nothing fetched from anywhere.
 *
 * Every link is to an anchor of the same page, and each is written only where its anchor
 * is: the source's lines (src-N), the stages (stage-S), a step's listing (step-NAME) and
 * the loops in it (step-NAME-LN), the selected expressions (sel-N), the innermost loops of
 * the assembly (asm-0-N for the selection shown, asm-1-N for the other) and the bench row
 * (bench). Everything that comes from the kernel or the compiler is escaped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tine.h"

static void esc(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* pre, then text escaped, then post (markup, written as it is). */
static void put(FILE *f, const char *pre, const char *text, const char *post) {
    fputs(pre, f);
    esc(f, text);
    fputs(post, f);
}

static const char STYLE[] =
    "body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d232b;background:#fafbfc}"
    "header{background:#233047;color:#fff;padding:14px 24px}header h1{margin:0;font-size:22px}"
    "header p{margin:4px 0 0;color:#c9d4e5}nav{padding:8px 24px;background:#e8edf4;position:sticky;top:0;z-index:2}"
    "nav a{margin-right:16px}main{padding:0 24px 40px}h2{margin-top:32px;border-bottom:2px solid #233047}"
    "a{color:#1f5fbf;text-decoration:none}a:hover{text-decoration:underline}"
    "pre,code,.src td.code{font:13px/1.4 ui-monospace,Menlo,Consolas,monospace}"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #d5dbe3;padding:8px;margin:4px 0}"
    "table{border-collapse:collapse}td,th{border:1px solid #d5dbe3;padding:4px 8px;vertical-align:top;text-align:left}"
    "th{background:#eef2f7}.src td{border:none;padding:0 8px}.src td.n{color:#8a94a3;text-align:right;user-select:none}"
    ".src td.code{white-space:pre-wrap;overflow-wrap:anywhere;max-width:70ch}.src tr:target{background:#fff3c4}"
    ".chip{display:inline-block;background:#e3ebf7;border-radius:9px;padding:0 8px;margin:1px 3px 1px 0;font-size:12px}"
    ".fresh{background:#e2f5e2}.loopline{font-weight:600}:target{outline:2px solid #f0b400}"
    "details{margin:6px 0}summary{cursor:pointer;font-weight:600}.muted{color:#6b7584}"
    ".pair{display:grid;grid-template-columns:1fr 1fr;gap:12px}.sel td{max-width:34vw}"
    ".sel pre{max-height:18em;overflow:auto}.note{background:#fff7df;border:1px solid #efd98f;padding:6px 10px}";

/* Opens the collapsed sections around the anchor a link goes to, then shows it. */
static const char SCRIPT[] =
    "function tineOpen(id){var e=document.getElementById(id);if(!e)return;"
    "for(var p=e;p;p=p.parentElement)if(p.tagName==='DETAILS')p.open=true;e.scrollIntoView({block:'center'});}"
    "window.addEventListener('hashchange',function(){tineOpen(decodeURIComponent(location.hash.slice(1)));});"
    "document.addEventListener('DOMContentLoaded',function(){"
    "if(location.hash)tineOpen(decodeURIComponent(location.hash.slice(1)));"
    "document.querySelectorAll('button[data-open]').forEach(function(b){b.addEventListener('click',function(){"
    "var o=b.getAttribute('data-open')==='1';document.querySelectorAll('#steps details').forEach(function(d){d.open=o;});});});});";

/* What each driver step does, from the one table of them (tine.h). */
static const char *step_what(const char *name) {
#define TINE_STEP_WHAT_(id, nm, what) what,
    static const char *const WHAT[] = {TINE_STEPS(TINE_STEP_WHAT_)};
#undef TINE_STEP_WHAT_
    int i = tine_step_find(name);
    return i >= 0 && i < TINE_NSTEPS ? WHAT[i] : "";
}

/* ---- lookups ---------------------------------------------------------------------------- */

static int stage_index(const report *r, const char *name) {
    for (int s = 0; s < r->nstages; s++)
        if (!strcmp(r->stages[s], name)) return s;
    return -1;
}

static int decl_index(const report *r, const char *name) {
    for (int d = 0; d < r->ndecls; d++)
        if (!strcmp(r->decl_names[d], name)) return d;
    return -1;
}

/* The statement's name of the loop an assembly block belongs to: codegen names the blocks
 * after the loop ("out.x.vec.body", "out.x.pro.body"), and LLVM adds suffixes (".us"). */
static void loop_of(const char *asm_name, char *out, size_t n) {
    size_t len = strlen(asm_name);
    const char *v = strstr(asm_name, ".vec."), *b = strstr(asm_name, ".body");
    if (v && (!b || v < b)) len = (size_t)(v - asm_name);
    else if (b) len = (size_t)(b - asm_name);
    snprintf(out, n, "%.*s", (int)len, asm_name);
}

/* The loop a listing's line opens ("for.vectorized<32> out.x (...)"): its name into out. */
static bool loop_line(const char *line, char *out, size_t n) {
    while (*line == ' ') line++;
    if (strncmp(line, "for", 3) || (line[3] != ' ' && line[3] != '.')) return false;
    const char *sp = strchr(line, ' ');
    if (!sp) return false;
    size_t len = strcspn(sp + 1, " (");
    snprintf(out, n, "%.*s", (int)len, sp + 1);
    return len > 0;
}

/* Whether loop (a statement's name, "out.x.pro") is one of stage's. */
static bool loop_of_stage(const char *loop, const char *stage) {
    size_t n = strlen(stage);
    return !strncmp(loop, stage, n) && loop[n] == '.';
}

/* The statement step whose loops the stages link to: the last one (hoist). */
static int last_stmt_step(const report *r) {
    for (int s = r->nsteps - 1; s >= 0; s--)
        if (!strcmp(r->steps[s].name, tine_step_name(TINE_STEP_HOIST))) return s;
    return -1;
}

/* The first line of step s opening a loop of stage (or -1). */
static int first_loop_line(const report *r, int s, const char *stage) {
    char name[128];
    for (int i = 0; s >= 0 && i < r->steps[s].nlines; i++)
        if (loop_line(r->steps[s].line[i], name, sizeof name) && loop_of_stage(name, stage)) return i;
    return -1;
}

static int first_expr(const report *r, const char *stage) {
    for (int i = 0; i < r->nexprs; i++)
        if (!strcmp(r->exprs[i].stage, stage)) return i;
    return -1;
}

/* ---- the sections ----------------------------------------------------------------------- */

static void stage_chips(FILE *f, const report *r, const char *stage, const char *label) {
    int hs = last_stmt_step(r), ll = first_loop_line(r, hs, stage), fx = first_expr(r, stage);
    fprintf(f, "<a class=chip href=\"#stage-");
    esc(f, stage);
    fprintf(f, "\">%s ", label);
    esc(f, stage);
    fprintf(f, "</a>");
    if (ll >= 0) fprintf(f, "<a class=chip href=\"#step-%s-L%d\">loops</a>", r->steps[hs].name, ll + 1);
    if (fx >= 0) fprintf(f, "<a class=chip href=\"#sel-%d\">expressions</a>", fx + 1);
}

static void section_source(FILE *f, const report *r) {
    fprintf(f, "<h2 id=source>Source</h2><p class=muted>Each line that declares a function or gives a directive "
               "about one links to the stage that computes it: its own when it is materialized (or the output), "
               "else the stages it is inlined into.</p><table class=src>\n");
    for (int i = 0; i < r->nsrc; i++) {
        const report_src *l = &r->src[i];
        fprintf(f, "<tr id=src-%d><td class=n>%d</td><td class=code>", i + 1, i + 1);
        esc(f, l->text);
        fprintf(f, "</td><td>");
        for (int j = 0; j < l->nnames; j++) {
            int d = decl_index(r, l->names[j]);
            if (d < 0) continue;
            bool own = stage_index(r, l->names[j]) >= 0;
            for (int s = 0; s < r->nstages; s++)
                if (r->decl_stage[d][s]) stage_chips(f, r, r->stages[s], own ? "stage" : "in");
        }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void section_stages(FILE *f, const report *r) {
    fprintf(f, "<h2 id=stages>Stages</h2><p class=muted>In the order they run. Loops are those of the "
               "statement after the last statement step; expressions those tine's selection rewrote.</p>\n");
    int hs = last_stmt_step(r);
    for (int s = 0; s < r->nstages; s++) {
        const char *st = r->stages[s];
        fprintf(f, "<h3 id=\"stage-");
        esc(f, st);
        fprintf(f, "\">stage ");
        esc(f, st);
        fprintf(f, "</h3><p>computes: ");
        for (int d = 0; d < r->ndecls; d++) {
            if (!r->decl_stage[d][s]) continue;
            int line = 0;
            for (int i = 0; i < r->nsrc && !line; i++)
                for (int j = 0; j < r->src[i].nnames; j++)
                    if (!strcmp(r->src[i].names[j], r->decl_names[d])) line = i + 1;
            if (line) fprintf(f, "<a class=chip href=\"#src-%d\">", line);
            else fprintf(f, "<span class=chip>");
            esc(f, r->decl_names[d]);
            fprintf(f, line ? "</a>" : "</span>");
        }
        fprintf(f, "</p><p>loops: ");
        char name[128];
        int nl = 0;
        for (int i = 0; hs >= 0 && i < r->steps[hs].nlines; i++)
            if (loop_line(r->steps[hs].line[i], name, sizeof name) && loop_of_stage(name, st)) {
                fprintf(f, "<a class=chip href=\"#step-%s-L%d\">", r->steps[hs].name, i + 1);
                esc(f, name);
                fprintf(f, " <span class=muted>line %d</span></a>", i + 1);
                nl++;
            }
        if (!nl) fprintf(f, "<span class=muted>none named</span>");
        fprintf(f, "</p><p>expressions: ");
        int nx = 0;
        for (int i = 0; i < r->nexprs; i++)
            if (!strcmp(r->exprs[i].stage, st)) fprintf(f, "<a class=chip href=\"#sel-%d\">%d</a>", i + 1, i + 1), nx++;
        if (!nx) fprintf(f, "<span class=muted>none rewritten</span>");
        fprintf(f, "</p><p>innermost loops in assembly: ");
        int na = 0;
        for (int a = 0; a < 2; a++)
            for (int i = 0; i < r->asm_[a].nloops; i++) {
                char lo[128];
                loop_of(r->asm_[a].loops[i].name, lo, sizeof lo);
                if (!loop_of_stage(lo, st)) continue;
                fprintf(f, "<a class=chip href=\"#asm-%d-%d\">%s: ", a, i + 1, a ? r->other_name : r->sel_name);
                esc(f, r->asm_[a].loops[i].name);
                fprintf(f, "</a>");
                na++;
            }
        if (!na) fprintf(f, "<span class=muted>none named after it</span>");
        fprintf(f, "</p>\n");
    }
}

static void section_steps(FILE *f, const report *r) {
    fprintf(f, "<h2 id=steps>After each step</h2><p class=muted>What the driver produced after each of its "
               "steps (<code>tine compile --dump-after STEP</code>), %s's selection. Lines not in the previous "
               "step's text are <span class=fresh>marked</span>. <button data-open=1>open all</button> "
               "<button data-open=0>close all</button></p>\n",
            r->sel_name);
    for (int s = 0; s < r->nsteps; s++) {
        const report_step *st = &r->steps[s];
        int fresh = 0;
        for (int i = 0; i < st->nlines; i++) fresh += st->fresh[i];
        fprintf(f, "<details id=\"step-%s\"><summary>after %s <span class=muted>— ", st->name, st->name);
        esc(f, step_what(st->name));
        fprintf(f, " (%d lines, %d new)</span></summary><pre>", st->nlines, fresh);
        char name[128];
        for (int i = 0; i < st->nlines; i++) {
            bool loop = loop_line(st->line[i], name, sizeof name);
            if (loop || st->fresh[i]) {
                fprintf(f, "<span");
                if (loop) fprintf(f, " id=\"step-%s-L%d\"", st->name, i + 1);
                fprintf(f, " class=\"%s%s\">", st->fresh[i] ? "fresh" : "", loop ? " loopline" : "");
                esc(f, st->line[i]);
                fprintf(f, "</span>\n");
            } else {
                esc(f, st->line[i]);
                fputc('\n', f);
            }
        }
        fprintf(f, "</pre></details>\n");
    }
}

/* The other selection's innermost loops of the statement's loop `loop`: links and totals. */
static void asm_of_loop(FILE *f, const report *r, int a, const char *loop) {
    const report_asm *ra = &r->asm_[a];
    int n = 0;
    for (int i = 0; i < ra->nloops; i++) {
        char lo[128];
        loop_of(ra->loops[i].name, lo, sizeof lo);
        if (strcmp(lo, loop)) continue;
        fprintf(f, "<a class=chip href=\"#asm-%d-%d\">", a, i + 1);
        esc(f, ra->loops[i].name);
        fprintf(f, ": %d instructions", ra->loops[i].ins);
        if (ra->cycles[i] > 0) fprintf(f, ", %.2f cycles", ra->cycles[i]);
        fprintf(f, "</a><br>");
        n++;
    }
    if (!n) fprintf(f, "<span class=muted>no innermost loop named after it</span>");
}

static void section_selection(FILE *f, const report *r) {
    fprintf(f, "<h2 id=selection>Selection</h2><p class=muted>Each vector expression tine's selection "
               "rewrote (%d; %d more it left as they were): as built, lifted into FPIR, and lowered to the "
               "target's instructions, with every rule applied (lift rules, then lowering rules; a part lifted "
               "before shows none). Beside it, the innermost loops of its loop in the assembly of both selections "
               "(LLVM alone expands the same expression and leaves the choice to LLVM).</p>\n",
            r->nexprs, r->unchanged);
    if (!r->nexprs) return;
    fprintf(f, "<table class=sel><tr><th>#</th><th>stage, loop</th><th>expression</th><th>rules applied</th>"
               "<th>innermost loops: %s</th><th>%s</th></tr>\n",
            r->sel_name, r->other_name);
    for (int i = 0; i < r->nexprs; i++) {
        const report_expr *x = &r->exprs[i];
        fprintf(f, "<tr id=sel-%d><td>%d</td><td>", i + 1, i + 1);
        if (stage_index(r, x->stage) >= 0) {
            fprintf(f, "<a href=\"#stage-");
            esc(f, x->stage);
            fprintf(f, "\">");
            esc(f, x->stage);
            fprintf(f, "</a>");
        }
        put(f, "<br><code>", x->loop, "</code></td><td>");
        fprintf(f, "<details><summary>as built (%zu characters)</summary>", strlen(x->before));
        put(f, "<pre>", x->before, "</pre></details>");
        put(f, "<b>lifted</b><pre>", x->lifted, "</pre>");
        put(f, "<b>lowered</b><pre>", x->lowered, "</pre></td><td>");
        for (int j = 0; j < x->nrules; j++) {
            esc(f, x->rules[j].name);
            fprintf(f, " <span class=muted>");
            esc(f, x->rules[j].file);
            fprintf(f, ":%d</span><br>", x->rules[j].line);
        }
        if (!x->nrules) fprintf(f, "<span class=muted>none (lifted before)</span>");
        for (int a = 0; a < 2; a++) {
            fprintf(f, "</td><td>");
            asm_of_loop(f, r, a, x->loop);
        }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void asm_loop_box(FILE *f, const report *r, int a, int i) {
    const report_asm *ra = &r->asm_[a];
    const asm_loop *l = &ra->loops[i];
    fprintf(f, "<div id=asm-%d-%d><b>%s</b>: <code>", a, i + 1, a ? r->other_name : r->sel_name);
    esc(f, l->name[0] ? l->name : l->head);
    fprintf(f, "</code> — %d instructions, %d vector", l->ins, l->vec);
    if (ra->cycles[i] > 0) fprintf(f, ", <b>%.2f cycles per iteration</b>", ra->cycles[i]);
    else if (r->mca) fprintf(f, ", <span class=muted>no estimate (llvm-mca failed on it)</span>");
    fprintf(f, "<pre>");
    for (int j = 0; j < l->nblocks; j++) {
        const asm_block *b = &ra->a.b[l->blocks[j]];
        fprintf(f, "<span class=muted># ");
        esc(f, b->name[0] ? b->name : b->id);
        fprintf(f, "</span>\n");
        for (int k = b->first; k < b->first + b->count; k++) {
            esc(f, ra->a.ins[k]);
            fputc('\n', f);
        }
    }
    fprintf(f, "</pre></div>\n");
}

static void section_asm(FILE *f, const report *r) {
    fprintf(f, "<h2 id=assembly>Innermost loops</h2><p class=muted>Every innermost loop of the assembly "
               "(<code>--emit asm</code>), %s on the left and %s on the right where a loop of the same name "
               "exists in both. ",
            r->sel_name, r->other_name);
    if (r->mca)
        fprintf(f, "Cycles per iteration are llvm-mca's estimate (<code>%s -mcpu=%s</code>, 100 iterations, "
                   "Total Cycles / 100)%s.</p>\n",
                asm_mca_path(), r->cpu,
                r->isa == ASM_X86 ? ": the Zen 4 model, for every x86 target (it has AVX-512)" : "");
    else
        fprintf(f, "</p><p class=note>No cycle estimates: <code>%s</code> does not run on this machine "
                   "(scripts/setup.sh installs llvm-19; TINE_LLVM_MCA names another).</p>\n",
                asm_mca_path());
    bool *shown = calloc((size_t)r->asm_[1].nloops + 1, sizeof *shown);
    if (!shown) abort();
    for (int i = 0; i < r->asm_[0].nloops; i++) {
        fprintf(f, "<div class=pair><div>");
        asm_loop_box(f, r, 0, i);
        fprintf(f, "</div><div>");
        for (int j = 0; j < r->asm_[1].nloops; j++)
            if (!shown[j] && !strcmp(r->asm_[1].loops[j].name, r->asm_[0].loops[i].name)) {
                asm_loop_box(f, r, 1, j);
                shown[j] = true;
                break;
            }
        fprintf(f, "</div></div>\n");
    }
    for (int j = 0; j < r->asm_[1].nloops; j++)
        if (!shown[j]) {
            fprintf(f, "<div class=pair><div></div><div>");
            asm_loop_box(f, r, 1, j);
            fprintf(f, "</div></div>\n");
        }
    free(shown);
}

/* How the bench's CSV names an implementation, as its table does. */
static const char *impl_label(const char *csv) {
    static const char *const NAMES[][2] = {{"llvm", "LLVM alone"}, {"tine_auto", "tine auto"}, {"halide", "Halide 14"}};
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (!strcmp(csv, NAMES[i][0])) return NAMES[i][1];
    return csv;
}

/* The bench row's times as horizontal bars on a log scale (the C references are tens of
 * times slower than the vector code: on a linear one the rest would be slivers), a
 * gridline at each power of ten. */
static void bench_chart(FILE *f, const report *r) {
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < r->nbench; i++) {
        lo = fmin(lo, r->bench_ms[i]);
        hi = fmax(hi, r->bench_ms[i]);
    }
    double d0 = floor(log10(lo)) , d1 = fmax(ceil(log10(hi)), d0 + 1), span = d1 - d0;
    const double x0 = 130, w = 440;
    int h = 24 * r->nbench + 44;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=680 height=%d role=img>", h);
    for (double d = d0; d <= d1; d++) {
        double x = x0 + w * (d - d0) / span;
        fprintf(f, "<line x1=%.1f y1=0 x2=%.1f y2=%d stroke=\"#d5dbe3\"/><text x=%.1f y=%d font-size=11 "
                   "fill=\"#6b7584\">%g ms</text>",
                x, x, 24 * r->nbench + 4, x - 8, 24 * r->nbench + 18, pow(10, d));
    }
    for (int i = 0; i < r->nbench; i++) {
        double bw = w * (log10(r->bench_ms[i]) - d0) / span;
        fprintf(f, "<text x=0 y=%d font-size=13>", 24 * i + 17);
        esc(f, impl_label(r->bench_impl[i]));
        fprintf(f, "</text><rect x=%.0f y=%d width=%.1f height=16 fill=\"%s\"/><text x=%.1f y=%d font-size=12>%.3g ms"
                   "</text>",
                x0, 24 * i + 4, fmax(bw, 1), !strcmp(r->bench_impl[i], "tine") ? "#2f7d32" : "#5b7db1", x0 + bw + 6,
                24 * i + 17, r->bench_ms[i]);
    }
    fprintf(f, "<text x=%.0f y=%d font-size=12 fill=\"#6b7584\">median ms of the bench's timed runs, log scale "
               "(shorter is faster)</text></svg>\n",
            x0, h - 4);
}

static void section_bench(FILE *f, const report *r) {
    fprintf(f, "<h2 id=bench>Bench</h2>\n");
    if (r->bench_why[0]) {
        put(f, "<p class=note>", r->bench_why, ".</p>\n");
    }
    if (r->nbench) bench_chart(f, r);
    if (r->bench_text) {
        put(f, "<details><summary>tine bench --filter ", r->kernel, " --target ");
        put(f, "", r->target, "</summary>");
        put(f, "<pre>", r->bench_text, "</pre></details>\n");
    }
}

int report_html(const report *r, FILE *f) {
    fprintf(f, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>tine report: ");
    esc(f, r->kernel);
    fprintf(f, "</title><style>%s</style><script>%s</script></head><body>\n<header><h1>", STYLE, SCRIPT);
    esc(f, r->kernel);
    fprintf(f, "</h1><p>");
    esc(f, r->file);
    fprintf(f, " · target ");
    esc(f, r->target);
    fprintf(f, " (%s) · %s's selection shown, %s beside it · %d stage%s, %d expression%s rewritten</p></header>\n",
            r->isa_text, r->sel_name, r->other_name, r->nstages, r->nstages == 1 ? "" : "s", r->nexprs,
            r->nexprs == 1 ? "" : "s");
    fprintf(f, "<nav><a href=\"#source\">source</a><a href=\"#stages\">stages</a><a href=\"#steps\">steps</a>"
               "<a href=\"#selection\">selection</a><a href=\"#assembly\">loops</a>%s</nav><main>\n",
            r->bench ? "<a href=\"#bench\">bench</a>" : "");
    section_source(f, r);
    section_stages(f, r);
    section_selection(f, r);
    section_asm(f, r);
    section_steps(f, r);
    if (r->bench) section_bench(f, r);
    fprintf(f, "</main></body></html>\n");
    return ferror(f) ? -1 : 0;
}
