/* parse.h — the lexer and parser state shared by the text parsers (private to src/ir).
 *
 * parse.c owns the lexer, the expression grammar and rule files; parse_isa.c reads target
 * description files and parse_kernel.c kernel files, both with the same lexer and, where
 * their grammars embed an expression or a type, the same expression parser.
 */
#ifndef TINE_IR_PARSE_H
#define TINE_IR_PARSE_H

#include "ast.h"

typedef struct {
    tine_ctx_t *ctx;
    tine_arena *arena;
    const tine_src *src;
    const char *p;      /* next character */
    /* current token */
    int tok;
    const char *tstart;
    size_t tlen;
    int line, col;
    const char *line_start;
    int depth;
    bool failed;
    /* rule files */
    bool rules;          /* x:T wildcards, '&&' and '||' */
    int prev_line;       /* line of the token before the current one */
    int prev_end_col;    /* the column just after it */
    int comment_line;    /* a comment trailing the previous token: its line and text */
    const char *comment;
    size_t comment_len;
} parser;

enum { T_EOF = 256, T_INT, T_FLOAT, T_NAME, T_SHL, T_SHR, T_LE, T_GE, T_EQ, T_NE, T_ARROW, T_ANDAND, T_OROR, T_DOTDOT };

static inline bool is_name_start(char c) { return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The first error only, located at the current token (tine_diag); sets ps->failed. */
void tine_perr(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads the next token into ps->tok, ps->tstart/tlen, ps->line/col. */
void tine_lex_next(parser *ps);
/* A token's description for messages ("a name", "'('"), in buf. */
const char *tine_tok_desc(int tok, char buf[32]);
/* The current token's text, cut to n - 1 characters, in buf. */
const char *tine_tok_text(parser *ps, char *buf, size_t n);
/* Consumes tok, or reports "expected WHAT". */
bool tine_expect(parser *ps, int tok, const char *what);
/* Whether the current token is the name w. */
bool tine_is_word(parser *ps, const char *w);
/* An expression of operators binding at least as tightly as min_prec (0: any). */
tine_ast *tine_parse_subexpr(parser *ps, int min_prec);
tine_ast *tine_parse_type(parser *ps);
/* The current INT or FLOAT token into a (A_INT / A_FLOAT). */
bool tine_parse_number(parser *ps, tine_ast *a);
/* A parser at the start of a copy of text in the arena, named file (unnamed when file is
 * NULL); the first token is not read yet. rules: rule and instruction files, which read
 * x:T wildcards, '&&' and '||', and may get many messages (their lines are indexed). */
parser tine_parser_open(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file, const char *unnamed,
                        bool rules);

#endif
