/* report.h — `tine report`: what report.c gathers about one kernel, and the page
 * report_html.c writes from it. */
#ifndef TINE_TOOLS_REPORT_H
#define TINE_TOOLS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "asm_loops.h"
#include "tine.h"

/* One step of the driver, as `tine compile --dump-after` shows it: its text cut into lines. */
typedef struct {
    const char *name;
    char **line;
    int nlines;
    bool *fresh; /* line i is not among the previous step's lines */
} report_step;

/* A rule applied to an expression: its name and where it is written. */
typedef struct {
    char *name, *file;
    int line;
} report_rule;

/* A vector expression tine's selection rewrote. */
typedef struct {
    char *loop;                   /* the named loop around its first use ("out.x") */
    char *stage;                  /* the stage that loop belongs to ("out") */
    char *before, *lifted, *lowered;
    report_rule *rules;
    int nrules;
} report_expr;

/* The assembly of one selection, and its innermost loops with llvm-mca's estimates. */
typedef struct {
    asm_text a;
    asm_loop loops[128];
    int nloops;
    double cycles[128]; /* per iteration; negative: not estimated */
} report_asm;

/* A line of the kernel file, and what it names (a declaration or a directive's function). */
typedef struct {
    const char *text;
    const char *names[8];
    int nnames;
} report_src;

typedef struct {
    const char *file, *kernel, *entry, *target, *isa_text, *cpu; /* entry: the entry point's name */
    const char *sel_name, *other_name; /* the selection shown, and the one beside it */
    asm_isa isa;
    bool mca;           /* llvm-mca runs */
    tine_kernel_t *parsed; /* the kernel (its names are the page's), freed last */
    char *source;       /* the file's text */
    char *lines;        /* a copy, cut into src's lines */
    report_src *src;
    int nsrc;
    const char *stages[64];
    int nstages;
    /* uses[d][s]: declaration d's code is computed by stage s (its own, or inlined there) */
    const char *decl_names[128];
    bool decl_stage[128][64];
    int ndecls;
    report_step steps[32];
    int nsteps;
    report_expr *exprs;
    int nexprs, unchanged; /* unchanged: vector expressions selection left as they were */
    report_asm asm_[2];    /* [0] the selection shown, [1] the other */
    /* --bench */
    bool bench;
    char *bench_text;      /* what `tine bench` printed, or NULL */
    char bench_why[256];   /* why there is no bench row, or "" */
    char bench_impl[16][32];
    double bench_ms[16];
    int nbench;
} report;

/* Writes the page; 0, or errno. */
int report_html(const report *r, FILE *f);

#endif
