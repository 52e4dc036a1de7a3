/* parse_kernel.c — kernel files (.tine) to their syntax (tine_kernel_ast): declarations
 * (inputs, params, funcs, the output) and the schedule, whose directives are parsed by
 * shape from the directive table. Expressions and types are the grammar of parse.c.
 *
 *   file      := decl* ('schedule' ('auto' | directive*))?     no schedule: auto
 *   decl      := 'input' NAME ':' TYPE '[' INT ']'                 a buffer of 1..4 dims
 *              | 'param' NAME ':' TYPE pinfo*                      a scalar parameter
 *   pinfo     := 'in' INT '..' INT | 'estimate' INT                 its range; a typical value
 *              | 'func' NAME '(' NAME (',' NAME)* ')' '=' expr     a function of coordinates
 *              | 'func' NAME '=' 'edge' '(' NAME ')'               repeat-edge of an input
 *              | 'func' NAME '=' 'constant' '(' NAME ',' expr ')'  constant fill outside it
 *              | 'output' NAME '(' NAME (',' NAME)* ')' ':' TYPE '=' expr
 *   directive := NAME argument*      NAME and the arguments' shape: a row of the
 *                                    directive table (pipeline/directives.h)
 *   (decls and directives may be preceded by `on NAME` / `on all` lines: kernel_on.c)
 */
#include "parse.h"

/* What a kernel declaration found instead of what it expects: a name is quoted; a token
 * on a later line is reported as the end of the line, located just after the last token
 * (where the missing piece belongs, not at the start of the next declaration). */
static const char *kfound(parser *ps, char *buf, size_t n) {
    if (ps->tok == T_EOF || ps->line != ps->prev_line) {
        ps->line = ps->prev_line;
        ps->col = ps->prev_end_col;
        return "the end of the line";
    }
    if (ps->tok != T_NAME) {
        char b[32];
        snprintf(buf, n, "%s", tine_tok_desc(ps->tok, b));
        return buf;
    }
    char t[40];
    snprintf(buf, n, "'%s'", tine_tok_text(ps, t, sizeof t));
    return buf;
}

static bool kexpect(parser *ps, int tok, const char *what) {
    if (ps->tok == tok) {
        tine_lex_next(ps);
        return true;
    }
    char b1[32], b2[48];
    const char *f = kfound(ps, b2, sizeof b2);
    tine_perr(ps, "expected %s %s, found %s", tine_tok_desc(tok, b1), what, f);
    return false;
}

/* A type or definition left out at the end of a line: the next token starts a new
 * declaration (or there is none), which would otherwise be read as the missing piece. */
static bool kmissing(parser *ps) {
    return ps->tok == T_EOF || (ps->line != ps->prev_line &&
                                (tine_is_word(ps, "input") || tine_is_word(ps, "param") || tine_is_word(ps, "func") ||
                                 tine_is_word(ps, "output") || tine_is_word(ps, "schedule")));
}

static tine_ast *kparse_expr(parser *ps, const char *what) {
    if (kmissing(ps)) {
        char b[48];
        const char *f = kfound(ps, b, sizeof b);
        tine_perr(ps, "expected %s, found %s", what, f);
        return NULL;
    }
    return tine_parse_subexpr(ps, 0);
}

static tine_ast *kparse_type(parser *ps) {
    if (ps->tok != T_NAME || kmissing(ps)) {
        char b[48];
        const char *f = kfound(ps, b, sizeof b);
        tine_perr(ps, "expected an element type, found %s", f);
        return NULL;
    }
    return tine_parse_type(ps);
}

static bool expect_name(parser *ps, const char **out, const char *what) {
    char b[48];
    if (ps->tok != T_NAME) {
        const char *f = kfound(ps, b, sizeof b);
        tine_perr(ps, "expected %s, found %s", what, f);
        return false;
    }
    if (ps->tlen > TINE_KLIMIT_NAME) { /* a documented limit: generated C and messages quote names */
        tine_perr(ps, "a name has at most %d characters; this one has %zu", TINE_KLIMIT_NAME, (size_t)ps->tlen);
        return false;
    }
    *out = tine_arena_strdup(ps->arena, ps->tstart, ps->tlen);
    tine_lex_next(ps);
    return true;
}

/* The whole number at the current token (not consumed), into num. */
static bool whole_number(parser *ps, tine_ast *num, const char *what) {
    char b[48];
    if (ps->tok != T_INT) {
        const char *f = kfound(ps, b, sizeof b);
        tine_perr(ps, "expected %s (a whole number), found %s", what, f);
        return false;
    }
    return tine_parse_number(ps, num);
}

static bool expect_int(parser *ps, int lo, int hi, int *out, const char *what) {
    tine_ast num = {0};
    if (!whole_number(ps, &num, what)) return false;
    if (num.ival < lo || num.ival > hi) {
        tine_perr(ps, "%s must be from %d to %d", what, lo, hi);
        return false;
    }
    *out = (int)num.ival;
    tine_lex_next(ps);
    return true;
}

/* A whole number with an optional minus sign, within int64. */
static bool expect_i64(parser *ps, int64_t *out, const char *what) {
    bool neg = ps->tok == '-';
    if (neg) tine_lex_next(ps);
    tine_ast num = {0};
    if (!whole_number(ps, &num, what)) return false;
    if (num.ival > (neg ? (tine_i128)INT64_MAX + 1 : (tine_i128)INT64_MAX)) {
        tine_perr(ps, "%s is too large (at most 64 bits)", what);
        return false;
    }
    *out = neg ? (int64_t)(-(num.ival - 1) - 1) : (int64_t)num.ival;
    tine_lex_next(ps);
    return true;
}

/* A parameter's `in LO..HI` and `estimate N`, each at most once, in either order. */
static bool parse_param_info(parser *ps, tine_kdecl *d) {
    for (;;) {
        bool in = tine_is_word(ps, "in"), est = tine_is_word(ps, "estimate");
        if (!in && !est) return true;
        if (in ? d->ranged : d->estimated) {
            tine_perr(ps, "'%s' is given twice for parameter '%s'", in ? "in" : "estimate", d->name);
            return false;
        }
        int line = ps->line, col = ps->col;
        tine_lex_next(ps);
        if (est) {
            if (!expect_i64(ps, &d->estimate, "the estimate")) return false;
            d->estimated = true, d->est_line = line, d->est_col = col;
            continue;
        }
        if (!expect_i64(ps, &d->lo, "the range's first value") ||
            !kexpect(ps, T_DOTDOT, "between the range's values, as in 'in 1..4096'") ||
            !expect_i64(ps, &d->hi, "the range's last value"))
            return false;
        d->ranged = true, d->range_line = line, d->range_col = col;
    }
}

static bool parse_coords(parser *ps, tine_kdecl *d) {
    char b[48];
    if (!kexpect(ps, '(', "before the coordinates")) return false;
    for (;;) {
        if (d->nargs == 4) {
            tine_perr(ps, "a function has at most 4 coordinates");
            return false;
        }
        if (!expect_name(ps, &d->args[d->nargs], "a coordinate name")) return false;
        for (int i = 0; i < d->nargs; i++)
            if (!strcmp(d->args[i], d->args[d->nargs])) {
                tine_perr(ps, "coordinate '%s' appears twice", d->args[i]);
                return false;
            }
        d->nargs++;
        if (ps->tok != ',') break;
        tine_lex_next(ps);
    }
    if (ps->tok != ')') {
        const char *f = kfound(ps, b, sizeof b);
        tine_perr(ps, "expected ',' or ')' in the coordinates of '%s', found %s", d->name, f);
        return false;
    }
    tine_lex_next(ps);
    return true;
}

/* `on NAME`: what follows, up to the next `on` line or `schedule`, is for instruction set
 * NAME alone (kernel.c checks the name); `on all`: for every target again. */
static bool parse_on(parser *ps, tine_kernel_ast *k, const char **on) {
    tine_lex_next(ps);
    int line = ps->line, col = ps->col;
    const char *name;
    if (!expect_name(ps, &name, "an instruction set (as in 'on arm') or 'all'")) return false;
    if (!strcmp(name, "all")) {
        *on = NULL;
        return true;
    }
    int i = 0;
    while (i < k->non && strcmp(k->on[i].isa, name)) i++;
    if (i == k->non) {
        if (k->non == (int)(sizeof k->on / sizeof k->on[0])) {
            ps->line = line;
            ps->col = col;
            tine_perr(ps, "a kernel names at most %d instruction sets with 'on'", k->non);
            return false;
        }
        k->on[k->non].isa = name;
        k->on[k->non].line = line;
        k->on[k->non++].col = col;
    }
    *on = k->on[i].isa;
    return true;
}

/* One declaration (input, param, func, boundary, output) into d, in the region of `on`
 * (NULL: every target's). */
static bool parse_decl(parser *ps, tine_kdecl *d, const char *on) {
    char b[48];
    d->src = ps->src;
    d->line = ps->line;
    d->col = ps->col;
    d->on = on;
    if (on && !tine_is_word(ps, "func")) {
        tine_perr(ps, "only functions can be defined for one instruction set ('on %s'); inputs, parameters and "
                  "the output are every target's (write 'on all' before them)", on);
        return false;
    }
    if (tine_is_word(ps, "input") || tine_is_word(ps, "param")) {
        d->kind = tine_is_word(ps, "input") ? K_INPUT : K_PARAM;
        tine_lex_next(ps);
        if (!expect_name(ps, &d->name, "a name") || !kexpect(ps, ':', "after the name") || !(d->type = kparse_type(ps)))
            return false;
        if (d->kind == K_PARAM) return parse_param_info(ps, d);
        return d->kind != K_INPUT || (kexpect(ps, '[', "and the number of dimensions, as in u8[2]") &&
                                      expect_int(ps, 1, 4, &d->dims, "the number of dimensions") &&
                                      kexpect(ps, ']', "after the number of dimensions"));
    }
    if (tine_is_word(ps, "func") || tine_is_word(ps, "output")) {
        d->kind = tine_is_word(ps, "func") ? K_FUNC : K_OUTPUT;
        tine_lex_next(ps);
        if (!expect_name(ps, &d->name, "a function name")) return false;
        if (d->kind == K_FUNC && ps->tok == '=') { /* a boundary condition */
            tine_lex_next(ps);
            d->kind = K_BOUNDARY;
            bool edge = tine_is_word(ps, "edge");
            if (!edge && !tine_is_word(ps, "constant")) {
                const char *f = kfound(ps, b, sizeof b);
                tine_perr(ps, "expected edge(input) or constant(input, value) after 'func %s =', found %s", d->name, f);
                return false;
            }
            tine_lex_next(ps);
            if (!kexpect(ps, '(', "after the boundary condition") || !expect_name(ps, &d->of, "the input it applies to"))
                return false;
            if (!edge && (!kexpect(ps, ',', "and the value outside the input") ||
                          !(d->fill = kparse_expr(ps, "the value outside the input"))))
                return false;
            return kexpect(ps, ')', "to close the boundary condition");
        }
        if (!parse_coords(ps, d)) return false;
        if (d->kind == K_OUTPUT && (!kexpect(ps, ':', "and the output's element type, as in out(x, y): u8 = ...") ||
                                    !(d->type = kparse_type(ps))))
            return false;
        return kexpect(ps, '=', "before the definition") && (d->body = kparse_expr(ps, "the definition")) != NULL;
    }
    tine_perr(ps, "expected a declaration (input, param, func, output) or 'schedule', found %s%s%s",
              ps->tok == T_NAME ? "'" : "", ps->tok == T_NAME ? tine_tok_text(ps, b, sizeof b) : tine_tok_desc(ps->tok, b),
         ps->tok == T_NAME ? "'" : "");
    return false;
}

/* reorder's loops, f.a f.b ...: innermost first, two or more, all of one function. */
static bool parse_loops(parser *ps, tine_kdirective *s) {
    const char *dims[TINE_KLOOPS_MAX];
    int nd = 0;
    while (ps->tok == T_NAME) {
        const char *q = ps->p;
        while (*q == ' ' || *q == '\t') q++;
        if (nd && *q != '.') break; /* the next directive */
        const char *g;
        int gl = ps->line, gc = ps->col;
        if (!expect_name(ps, &g, "a function name")) return false;
        if (!s->func) s->func = g;
        else if (strcmp(g, s->func)) {
            ps->line = gl;
            ps->col = gc;
            tine_perr(ps, "reorder: '%s' is not '%s'; a reorder names loops of one function", g, s->func);
            return false;
        }
        if (!kexpect(ps, '.', "between the function and its loop, as in out.y")) return false;
        if (nd == TINE_KLOOPS_MAX) {
            tine_perr(ps, "reorder: a function has at most %d loops", TINE_KLOOPS_MAX);
            return false;
        }
        if (!expect_name(ps, &dims[nd++], "a loop")) return false;
    }
    if (nd < 2) {
        char b[48];
        const char *f = kfound(ps, b, sizeof b);
        tine_perr(ps, "reorder: expected two or more loops, innermost first, as in reorder out.y out.x; found %s", f);
        return false;
    }
    s->dims = tine_arena_alloc(ps->arena, sizeof *s->dims * (size_t)nd);
    memcpy(s->dims, dims, sizeof *dims * (size_t)nd);
    s->ndims = nd;
    return true;
}

/* One argument of directive s, as its shape (directives.h) says it is written. */
static bool parse_darg(parser *ps, tine_kdirective *s, const tine_darg *a) {
    char b[48];
    switch (a->tag) {
    case TINE_DA_NAME: return expect_name(ps, tine_dir_slot_name(s, a->slot), a->what);
    case TINE_DA_DOT: return kexpect(ps, '.', a->what);
    case TINE_DA_INT: return expect_int(ps, a->lo, a->hi, tine_dir_slot_int(s, a->slot), a->what);
    case TINE_DA_WIDTH: /* natural: 0, chosen from the element type */
        if (!tine_is_word(ps, "natural")) return expect_int(ps, a->lo, a->hi, tine_dir_slot_int(s, a->slot), a->what);
        tine_lex_next(ps);
        return true;
    case TINE_DA_ACC: /* optional: a reduction's accumulator lanes (kernel.c) */
        if (!tine_is_word(ps, "acc")) return true;
        s->acc_line = ps->line;
        s->acc_col = ps->col;
        tine_lex_next(ps);
        return expect_int(ps, a->lo, a->hi, tine_dir_slot_int(s, a->slot), a->what);
    case TINE_DA_MODE: {
        int m = a->lo;
        while (m <= a->hi && !tine_is_word(ps, tine_dir_mode_name(m))) m++;
        if (m > a->hi) {
            const char *f = kfound(ps, b, sizeof b);
            tine_perr(ps, "expected %s, found %s", a->what, f);
            return false;
        }
        *tine_dir_slot_int(s, a->slot) = m;
        tine_lex_next(ps);
        return true;
    }
    case TINE_DA_AGAIN: {
        const char *g = NULL;
        int gl = ps->line, gc = ps->col;
        if (!expect_name(ps, &g, a->what)) return false;
        if (strcmp(g, s->func)) {
            ps->line = gl;
            ps->col = gc;
            tine_perr(ps, "%s: '%s' is not '%s'; both loops must be loops of one function", s->what, g, s->func);
            return false;
        }
        return true;
    }
    case TINE_DA_LOOPS: return parse_loops(ps, s);
    }
    return false;
}

/* One directive into s: its name, then its arguments by the shape of its row. */
static bool parse_directive(parser *ps, tine_kdirective *s, const char *on) {
    s->src = ps->src;
    s->line = ps->line;
    s->col = ps->col;
    s->on = on;
    const char *w;
    if (!expect_name(ps, &w, "a schedule directive")) return false;
    s->kind = tine_dir_lookup(w);
    if (s->kind == TINE_DIR_COUNT) {
        ps->line = s->line;
        ps->col = s->col;
        if (!strcmp(w, "input") || !strcmp(w, "param") || !strcmp(w, "func") || !strcmp(w, "output")) {
            tine_perr(ps, "'%s' declares something, but declarations come before 'schedule'", w);
            return false;
        }
        if (!strcmp(w, "auto")) { /* auto is a whole schedule, not one directive among others */
            tine_perr(ps, "'auto' is a whole schedule, not a directive: write 'schedule auto' alone, or only "
                      "directives (tine compile FILE --emit schedule prints the ones auto chooses, to edit)");
            return false;
        }
        tine_buf names = {0};
        for (int k = 0; k < TINE_DIR_COUNT; k++) tine_buf_printf(&names, "%s%s", k ? ", " : "", tine_dir_name((tine_dir_kind)k));
        tine_perr(ps, "unknown schedule directive '%s' (%s)", w, names.p);
        free(names.p);
        return false;
    }
    s->what = tine_dir_name(s->kind);
    const tine_dir_info *info = tine_dir_info_of(s->kind);
    for (int i = 0; i < TINE_DARGS_MAX && info->args[i].what; i++)
        if (!parse_darg(ps, s, &info->args[i])) return false;
    return true;
}

/* The schedule section, after the word `schedule`: `auto`, or directives (with `on`
 * regions), appended to *sched. */
static void parse_schedule(parser *ps, tine_kernel_ast *k, tine_kdirective **sched, size_t *cap) {
    const char *on = NULL;
    tine_lex_next(ps);
    if (tine_is_word(ps, "auto")) { /* the automatic scheduler chooses every directive */
        k->auto_sched = true;
        k->auto_line = ps->line;
        k->auto_col = ps->col;
        tine_lex_next(ps);
        if (ps->tok != T_EOF)
            tine_perr(ps, "'schedule auto' chooses every directive; write either 'auto' or directives "
                      "(tine compile FILE --emit schedule prints the ones auto chooses, to edit)");
    }
    while (!ps->failed && ps->tok != T_EOF) {
        if (tine_is_word(ps, "on")) {
            if (!parse_on(ps, k, &on)) break;
            continue;
        }
        TINE_GROW(*sched, (size_t)k->nsched + 1, *cap);
        tine_kdirective *s = &(*sched)[k->nsched];
        memset(s, 0, sizeof *s);
        if (!parse_directive(ps, s, on)) break;
        k->nsched++;
    }
}

/* A copy in the arena of the n elements of a growable array, which is freed. */
static void *to_arena(tine_arena *arena, void *v, size_t n, size_t size) {
    void *a = n ? tine_arena_alloc(arena, n * size) : NULL;
    if (n) memcpy(a, v, n * size);
    free(v);
    return a;
}

int tine_parse_kernel(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file, tine_kernel_ast *k) {
    parser ps = tine_parser_open(ctx, arena, text, file, "<kernel>", false);
    memset(k, 0, sizeof *k);
    k->src = ps.src;
    tine_kdecl *decls = NULL;
    tine_kdirective *sched = NULL;
    size_t cap = 0, scap = 0;
    const char *on = NULL; /* the current `on NAME` region's instruction set */
    tine_lex_next(&ps);
    while (!ps.failed && ps.tok != T_EOF && !tine_is_word(&ps, "schedule")) {
        if (tine_is_word(&ps, "on")) {
            if (!parse_on(&ps, k, &on)) break;
            continue;
        }
        TINE_GROW(decls, (size_t)k->ndecls + 1, cap);
        memset(&decls[k->ndecls], 0, sizeof *decls);
        if (!parse_decl(&ps, &decls[k->ndecls], on)) break;
        k->ndecls++;
    }
    if (!ps.failed && !tine_is_word(&ps, "schedule")) k->auto_sched = true; /* no schedule: the automatic one */
    if (!ps.failed && tine_is_word(&ps, "schedule")) parse_schedule(&ps, k, &sched, &scap);
    k->decls = to_arena(arena, decls, (size_t)k->ndecls, sizeof *decls);
    k->sched = to_arena(arena, sched, (size_t)k->nsched, sizeof *sched);
    return ps.failed ? -1 : 0;
}
