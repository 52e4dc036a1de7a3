/* parse_isa.c — target description files to their syntax (tine_isa_ast): features,
 * targets, widths, byte shifts and instructions, whose semantics are expressions of the
 * expression grammar (parse.c); src/targets/isa.c gives the tree its meaning.
 *
 *   file   := (feature | target | width | byte_shift | insn)*
 *   feature:= 'feature' WORD+                       on one line
 *   target := 'target' WORD ':' WORD+               on one line
 *   width  := 'width' WORD INT
 *   byte_shift := 'byte_shift' NUMBER              a shift of 8-bit lanes, per register
 *   insn   := 'insn' NAME '(' NAME ':' TYPE (',' ...)* ')' '=' expr attr*
 *   attr   := 'forms' (WORD ':' WORD ('+' WORD)*)+ | 'cost' NUMBER NUMBER | 'llvm' WORD+
 *           | 'c' (WORD ['(' WORD ')'])+ | 'pack' | 'fixed' | 'imm' NAME [INT] ['neg']
 *
 * A WORD is letters, digits and '_', '.', '-' (sse4.1, llvm.x86.sse2.pavg.b, x86-64-avx2);
 * word lists end at the end of their line.
 */
#include "parse.h"

static bool isa_word_char(char c) { return is_name_start(c) || is_digit(c) || c == '.' || c == '-'; }

/* The word starting at the current token; the lexer resumes after it. */
static bool isa_word(parser *ps, tine_word *w, const char *what) {
    if (ps->tok != T_NAME && ps->tok != T_INT && ps->tok != T_FLOAT) {
        char b[32];
        tine_perr(ps, "expected %s, found %s", what, tine_tok_desc(ps->tok, b));
        return false;
    }
    const char *q = ps->tstart;
    while (isa_word_char(*q)) q++;
    w->s = tine_arena_strdup(ps->arena, ps->tstart, (size_t)(q - ps->tstart));
    w->line = ps->line;
    w->col = ps->col;
    ps->p = q;
    ps->tlen = (size_t)(q - ps->tstart);
    tine_lex_next(ps);
    return true;
}

/* Words up to the end of the line (at least one). */
static int isa_words(parser *ps, tine_word *out, int max, int line, const char *what) {
    int n = 0;
    if (ps->tok == T_EOF || ps->line != line) {
        char b[32];
        tine_perr(ps, "expected %s, found %s", what, ps->tok == T_EOF ? "end of input" : "the end of the line");
        (void)b;
        return -1;
    }
    while (ps->tok != T_EOF && ps->line == line && ps->tok != ':') {
        if (n == max) {
            tine_perr(ps, "too many words here (at most %d)", max);
            return -1;
        }
        if (!isa_word(ps, &out[n++], what)) return -1;
    }
    return n;
}

static bool isa_number(parser *ps, double *out, const char *what) {
    if (ps->tok != T_INT && ps->tok != T_FLOAT) {
        char b[32];
        tine_perr(ps, "expected %s (a number), found %s", what, tine_tok_desc(ps->tok, b));
        return false;
    }
    tine_ast num = {0};
    if (!tine_parse_number(ps, &num)) return false;
    *out = num.kind == A_FLOAT ? num.fval : (double)num.ival;
    tine_lex_next(ps);
    return true;
}

static bool parse_insn(parser *ps, tine_insn_ast *in) {
    int line = ps->line;
    tine_lex_next(ps); /* insn */
    if (ps->tok != T_NAME) {
        char b[32];
        tine_perr(ps, "expected the instruction's name after 'insn', found %s", tine_tok_desc(ps->tok, b));
        return false;
    }
    in->name = (tine_word){tine_arena_strdup(ps->arena, ps->tstart, ps->tlen), ps->line, ps->col};
    in->sig = tine_parse_subexpr(ps, 0);
    if (!in->sig) return false;
    if (in->sig->kind != A_CALL) {
        tine_perr(ps, "expected the operands of '%s' in parentheses, as in %s(a:u8, b:u8)", in->name.s, in->name.s);
        return false;
    }
    if (!tine_expect(ps, '=', "before the instruction's semantics")) return false;
    in->sem = tine_parse_subexpr(ps, 0);
    if (!in->sem) return false;
    (void)line;
    for (;;) {
        char b[32];
        int l = ps->line;
        if (tine_is_word(ps, "forms")) {
            tine_lex_next(ps);
            while (ps->tok != T_EOF && ps->line == l) {
                if (in->nforms == 4) {
                    tine_perr(ps, "at most 4 forms");
                    return false;
                }
                if (!isa_word(ps, &in->form_width[in->nforms], "a register width (xmm, ymm, zmm)")) return false;
                if (!tine_expect(ps, ':', "between the width and its feature (xmm:sse2)")) return false;
                int f = in->nforms++;
                if (!isa_word(ps, &in->form_feature[f][in->form_nfeatures[f]++], "a feature")) return false;
                while (ps->tok == '+' && ps->line == l) { /* every feature joined is needed */
                    tine_lex_next(ps);
                    if (in->form_nfeatures[f] == 4) {
                        tine_perr(ps, "at most 4 features per form");
                        return false;
                    }
                    if (!isa_word(ps, &in->form_feature[f][in->form_nfeatures[f]++], "a feature after '+'")) return false;
                }
            }
            if (in->nforms == 0) {
                tine_perr(ps, "expected the forms, as in xmm:sse2 ymm:avx2, found the end of the line");
                return false;
            }
        } else if (tine_is_word(ps, "cost")) {
            tine_lex_next(ps);
            if (!isa_number(ps, &in->lat, "the latency") || !isa_number(ps, &in->rtp, "the reciprocal throughput"))
                return false;
            in->has_cost = true;
        } else if (tine_is_word(ps, "llvm")) {
            tine_lex_next(ps);
            int n = isa_words(ps, in->llvm, 4, l, "'generic' or an LLVM intrinsic name per form");
            if (n < 0) return false;
            in->nllvm = n;
            in->generic = n == 1 && !strcmp(in->llvm[0].s, "generic");
        } else if (tine_is_word(ps, "c")) {
            tine_lex_next(ps);
            if (ps->tok == T_EOF || ps->line != l) {
                tine_perr(ps, "expected a C intrinsic name per form, found %s",
                          ps->tok == T_EOF ? "end of input" : "the end of the line");
                return false;
            }
            int n = 0;
            do { /* NAME or NAME(ARG), per form */
                if (n == 4) {
                    tine_perr(ps, "too many words here (at most 4)");
                    return false;
                }
                if (!isa_word(ps, &in->c[n], "a C intrinsic name per form")) return false;
                if (ps->tok == '(' && ps->line == l) {
                    tine_lex_next(ps);
                    if (!isa_word(ps, &in->c_arg[n], "the intrinsic's fixed argument (_CMP_LT_OQ)") ||
                        !tine_expect(ps, ')', "after the intrinsic's fixed argument"))
                        return false;
                }
                n++;
            } while (ps->tok != T_EOF && ps->line == l);
            in->nc = n;
        } else if (tine_is_word(ps, "fixed")) {
            tine_lex_next(ps);
            in->fixed = true;
        } else if (tine_is_word(ps, "pack")) {
            tine_lex_next(ps);
            in->pack = true;
        } else if (tine_is_word(ps, "imm")) {
            tine_lex_next(ps);
            if (ps->tok != T_NAME || ps->line != l) {
                tine_perr(ps, "expected the name of the operand that is an immediate after 'imm', found %s", tine_tok_desc(ps->tok, b));
                return false;
            }
            in->imm = (tine_word){tine_arena_strdup(ps->arena, ps->tstart, ps->tlen), ps->line, ps->col};
            tine_lex_next(ps);
            if (ps->tok == T_INT && ps->line == l) { /* imm NAME BITS */
                int bl = ps->line, bc = ps->col;
                double bits;
                if (!isa_number(ps, &bits, "the immediate's bits")) return false;
                if (bits < 1 || bits > 32 || bits != (int)bits) {
                    ps->line = bl;
                    ps->col = bc;
                    tine_perr(ps, "an immediate has 1 to 32 bits");
                    return false;
                }
                in->imm_bits = (int)bits;
            }
            if (ps->tok == T_NAME && ps->line == l && tine_is_word(ps, "neg")) { /* srshr #n is srshl by -n */
                in->imm_neg = true;
                tine_lex_next(ps);
            }
        } else if (ps->tok == T_EOF || tine_is_word(ps, "insn") || tine_is_word(ps, "feature") || tine_is_word(ps, "target") ||
                   tine_is_word(ps, "width") || tine_is_word(ps, "byte_shift")) {
            break;
        } else {
            bool quote = ps->tok == T_NAME;
            char q[64], t[48];
            if (quote) snprintf(q, sizeof q, "'%s'", tine_tok_text(ps, t, sizeof t));
            tine_perr(ps, "unexpected %s in instruction '%s' (expected fixed, forms, cost, llvm, c, pack or imm)",
                      quote ? q : tine_tok_desc(ps->tok, b), in->name.s);
            return false;
        }
        in->end_line = ps->prev_line;
    }
    return true;
}

int tine_parse_isa(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file, tine_isa_ast *out) {
    parser ps = tine_parser_open(ctx, arena, text, file, "<isa>", true);
    memset(out, 0, sizeof *out);
    out->src = ps.src;
    int cap = 0;
    tine_lex_next(&ps);
    while (!ps.failed && ps.tok != T_EOF) {
        int l = ps.line;
        if (tine_is_word(&ps, "feature")) {
            tine_lex_next(&ps);
            int n = isa_words(&ps, out->features + out->nfeatures, 32 - out->nfeatures, l, "a feature name");
            if (n < 0) break;
            out->nfeatures += n;
        } else if (tine_is_word(&ps, "target")) {
            tine_lex_next(&ps);
            if (out->ntargets == 16) {
                tine_perr(&ps, "at most 16 targets");
                break;
            }
            tine_isa_target_ast *t = &out->targets[out->ntargets++];
            if (!isa_word(&ps, &t->name, "a target name")) break;
            if (!tine_expect(&ps, ':', "after the target name")) break;
            int n = isa_words(&ps, t->features, 16, l, "the target's features");
            if (n < 0) break;
            t->nfeatures = n;
        } else if (tine_is_word(&ps, "width")) {
            tine_lex_next(&ps);
            if (out->nwidths == 4) {
                tine_perr(&ps, "at most 4 register widths");
                break;
            }
            if (!isa_word(&ps, &out->width_name[out->nwidths], "a register family name")) break;
            double bits;
            int bl = ps.line, bc = ps.col;
            if (!isa_number(&ps, &bits, "the register width in bits")) break;
            if (bits != 64 && bits != 128 && bits != 256 && bits != 512 && bits != 1024 && bits != 2048) {
                ps.line = bl;
                ps.col = bc;
                tine_perr(&ps, "a register width is a power of two from 64 to 2048 bits");
                break;
            }
            out->width_bits[out->nwidths++] = (int)bits;
        } else if (tine_is_word(&ps, "byte_shift")) {
            tine_lex_next(&ps);
            int bl = ps.line, bc = ps.col;
            if (!isa_number(&ps, &out->byte_shift_cost, "the cost per register of a shift of 8-bit lanes")) break;
            if (out->byte_shift_cost <= 0) {
                ps.line = bl;
                ps.col = bc;
                tine_perr(&ps, "a cost is positive");
                break;
            }
        } else if (tine_is_word(&ps, "insn")) {
            if (out->ninsns == cap) {
                cap = cap ? 2 * cap : 64;
                tine_insn_ast *m = tine_arena_alloc(arena, (size_t)cap * sizeof *m);
                if (out->ninsns) memcpy(m, out->insns, (size_t)out->ninsns * sizeof *m);
                out->insns = m;
            }
            if (!parse_insn(&ps, &out->insns[out->ninsns])) break;
            out->ninsns++;
        } else {
            char b[32], q[64], t[48];
            bool quote = ps.tok == T_NAME;
            if (quote) snprintf(q, sizeof q, "'%s'", tine_tok_text(&ps, t, sizeof t));
            tine_perr(&ps, "expected 'feature', 'target', 'width', 'byte_shift' or 'insn', found %s", quote ? q : tine_tok_desc(ps.tok, b));
            break;
        }
    }
    return ps.failed ? -1 : 0;
}
