/* pseudo.h — Intel's intrinsic pseudocode (the <operation> text of the Intrinsics Guide
 * data file) as a syntax tree: src/import/pseudo.c parses it, src/import/intel.c gives
 * it meaning. The language is line-based: statements end at a newline (a backslash
 * continues a line); IF/ELSE/FI, FOR/ENDFOR, CASE/ESAC, DEFINE name(params) { ... }. */
#ifndef TINE_PSEUDO_H
#define TINE_PSEUDO_H

#include <stdbool.h>
#include <stdint.h>

#include "../internal.h"

typedef enum {
    P_NUM, P_NAME, P_BIN, P_UN, P_COND, P_CALL, P_SLICE, P_MEMBER, /* expressions */
    P_ASSIGN, P_IF, P_FOR, P_CASE, P_DEFINE, P_RETURN, P_BLOCK      /* statements */
} p_kind;

typedef struct p_node p_node;
struct p_node {
    p_kind kind;
    int line, col;
    int op;             /* P_BIN/P_UN: the operator's token (see pseudo.c) */
    int64_t num;        /* P_NUM; P_FOR: 1 when it counts down; P_MEMBER: the field's bits */
    const char *name;   /* P_NAME, P_CALL, P_MEMBER (the field), P_FOR (the variable), P_DEFINE */
    p_node **kids;      /* operands, or a block's statements, or a call's arguments */
    int nkids;
    /* P_SLICE: kids[0] base, kids[1] hi, kids[2] lo (NULL: one bit); P_MEMBER: kids[0]
       base, kids[1] index or NULL; P_COND: c, t, f; P_IF: c, then, else (NULL);
       P_FOR: from, to, body; P_CASE: selector, then label/body pairs (label NULL: OTHERWISE)
       P_DEFINE: body, params in `params`; P_ASSIGN: lhs, rhs; P_RETURN: value */
    const char **params;
    int nparams;
};

/* Token codes of the operators P_BIN and P_UN carry (the characters themselves where one
 * character is the operator). */
enum {
    PT_SHL = 256, PT_SHR, PT_LE, PT_GE, PT_EQ, PT_NE, PT_LAND, PT_LOR, PT_AND, PT_OR, PT_XOR, PT_NOT,
    PT_OPVAR /* `x OP y`: the comparison a CASE put in the variable OP */
};

/* The program (a P_BLOCK) of one operation text, or NULL with a message in err
 * ("line:col: what") — the text is Intel's, the caller locates it in its file. */
p_node *tine_pseudo_parse(tine_arena *arena, const char *text, char *err, size_t nerr);

#endif
