/* walk.h — what the files of src/cfront share, private to it: the parsed file, and the
 * walk's state that turns libclang's cursors into the tree of cfront.h.
 *
 * Files, in the order they use each other (no file uses a later one):
 *   ctype.c  types, interned per file
 *   macro.c  the main file's macro expansions: ranges (file locations that never cut a
 *            macro call), from_macro, and the calls of header macros (vld1q_u8)
 *   walk.c   functions, statements, expressions, #includes: the tree
 *   cfront.c the entry points: parsing (arguments, clang's resource directory), clang's
 *            first error as a located message, the file's accessors
 *
 * libclang calls back into visitor functions; a longjmp out of one (tine_out_of_memory)
 * would cross libclang's C++ frames. So callbacks only collect cursors, with plain
 * realloc, and the tree is built (in the arena) after each visit returns.
 */
#ifndef TINE_CFRONT_WALK_H
#define TINE_CFRONT_WALK_H

#include <clang-c/Index.h>

#include "../ir/ast.h"
#include "cfront.h"

struct tine_cfile {
    tine_arena arena; /* the tree, its types and strings; the text */
    CXIndex index;
    CXTranslationUnit tu;
    const char *path, *text;
    size_t len;
    size_t *line_at; /* where each line of text starts */
    int nlines;
    tine_src src; /* path, text and line_at for tine_diag */
    tine_cfunc **funcs;
    int nfuncs;
    tine_cinclude *incs;
    int nincs;
};

/* Cursors collected by a visitor (realloc'd: see above). */
typedef struct {
    CXCursor *c;
    int n, cap;
    bool oom;
} tine_cw_cursors;
/* c's children as libclang visits them; free .c after. */
tine_cw_cursors tine_cw_children(CXCursor c);
/* The callback that collects (client data: a tine_cw_cursors). */
enum CXChildVisitResult tine_cw_collect(CXCursor c, CXCursor parent, CXClientData data);
/* After a visit: out of memory when the callback could not collect. */
void tine_cw_check(tine_cw_cursors *v);

/* One macro expansion of the main file, from the preprocessing record (which records the
 * calls written in the file and in macro arguments, not those a macro's body makes). */
typedef struct {
    unsigned begin, end; /* offsets of the call as written: [name, past its ')') */
    int parent;          /* the expansion whose arguments hold this one, -1 if none */
    CXCursor cursor;
    signed char call;    /* a header's function-like macro: 1 yes, 0 no, -1 not looked at yet */
    bool as_call;        /* it became a CALL node: its arguments are not from_macro */
} tine_cw_macro;

typedef struct {
    const tine_ctype *t;
    unsigned hash;
} tine_cw_tslot;

typedef struct {
    CXCursor cursor;
    tine_cnode *node;
} tine_cw_dslot;

typedef struct {
    tine_ctx_t *ctx;
    tine_cfile *f;
    CXTranslationUnit tu;
    CXFile main;
    tine_arena *arena;
    /* macro.c */
    tine_cw_macro *macros; /* sorted by begin */
    int nmacros, capmacros;
    /* ctype.c: the interned types (open addressing) */
    tine_cw_tslot *types;
    unsigned ntypes, captypes;
    /* walk.c: DECL nodes by their cursor (open addressing), every node built (for from_macro) */
    tine_cw_dslot *decls;
    unsigned ndecls, capdecls;
    tine_cnode **nodes;
    size_t nnodes, capnodes;
    const char *binop[64], *unop[32]; /* operator spellings, duplicated once */
    int depth;
    bool failed; /* a located error is set */
} tine_cw;

/* ---- ctype.c ---- */
/* The interned type of t (never NULL; an invalid type is OTHER with spelling ""). */
const tine_ctype *tine_cw_type(tine_cw *w, CXType t);
/* Whether t is an integer type (bool, char, enums included). */
bool tine_cw_type_is_int(CXType t);
void tine_cw_types_free(tine_cw *w);

/* ---- macro.c ---- */
/* The line and column of byte offset off of f's text (clamped to its length). */
tine_cpos tine_cw_pos(const tine_cfile *f, unsigned off);
tine_crange tine_cw_range(tine_cw *w, unsigned b, unsigned e);
/* loc's offset in the main file: its file location (1), or, when that is in a header (a
 * helper macro's argument), its expansion's (2); 0 when neither is in the main file. */
int tine_cw_offset(tine_cw *w, CXSourceLocation loc, unsigned *off);
/* Cursor c's extent as offsets [*b, *e) of the main file, as libclang gives it (file
 * locations); false when it is not in the main file. */
bool tine_cw_raw(tine_cw *w, CXCursor c, unsigned *b, unsigned *e);
/* The table of the main file's macro expansions, from the translation unit's top-level
 * cursors of kind CXCursor_MacroExpansion (in any order). */
void tine_cw_macros(tine_cw *w, const CXCursor *exp, int n);
/* The call written at offset b (its name starts there), or -1. */
int tine_cw_macro_at(tine_cw *w, unsigned b);
/* The innermost call whose arguments hold b while e reaches its end or past, or -1: an
 * extent libclang ended at a call's end because its last token came from a macro. */
int tine_cw_cut(tine_cw *w, unsigned b, unsigned e);
/* Widens [*b, *e) until it cuts no call: it holds a call whole, or lies in its arguments. */
void tine_cw_fix(tine_cw *w, unsigned *b, unsigned *e);
/* The innermost call whose arguments hold offset b (past its name), or -1. */
int tine_cw_in_args(tine_cw *w, unsigned b);
/* Whether the text [b, e) can be one macro argument's: no ',' outside brackets, brackets
 * balanced. */
bool tine_cw_one_arg(tine_cw *w, unsigned b, unsigned e);
/* Whether [b, e) starts or ends in a call (as_call calls aside). */
bool tine_cw_from_macro(tine_cw *w, unsigned b, unsigned e);
/* The end of the token at p of the main file: a macro call's end when one starts there, a
 * sizeof's parenthesized operand, adjacent string literals together. */
unsigned tine_cw_token_end(tine_cw *w, unsigned p);
/* Past whitespace and comments from *e, whether `tok` follows (then *e is past it). */
bool tine_cw_after(tine_cw *w, unsigned *e, const char *tok);
/* Whether the main file has the word `word` at p. */
bool tine_cw_word_at(tine_cw *w, unsigned p, const char *word);
/* A for loop written at b: the offsets of its two ';' and its ')' (the header before
 * limit); 0 when the text at b is not one. */
int tine_cw_for_parts(tine_cw *w, unsigned b, unsigned limit, unsigned cut[3]);

/* A call of a header's function-like macro: its name, and per argument the cursor of its
 * expression (a null cursor when none was found; span: where the argument is written). */
typedef struct {
    const char *name;
    int nargs;
    CXCursor *arg;
    unsigned (*span)[2]; /* direct calls */
    bool direct;         /* written in the main file (its expansion marked as_call) */
} tine_cw_call;
/* Whether expression c, whose raw extent starts at b, is the whole expansion of a header's
 * function-like macro; fills call (arrays malloc'd: tine_cw_call_free). */
bool tine_cw_macro_call(tine_cw *w, CXCursor c, unsigned b, tine_cw_call *call);
void tine_cw_call_free(tine_cw_call *call);

/* ---- walk.c ---- */
/* Builds f's functions and includes from its translation unit; false with a located error. */
bool tine_cw_walk(tine_ctx_t *ctx, tine_cfile *f);

#endif
