/* cfront.h — C source read through libclang (src/cfront/cfront.c) */
#ifndef TINE_CFRONT_H
#define TINE_CFRONT_H
#include "../internal.h"

/* A C file parsed by libclang-19 and handed back as a small tree that owns its strings and
 * never shows libclang: `tine retarget` rewrites intrinsic calls in the file's text by the
 * ranges of this tree, `tine vectorize` reads small kernels from it. What libclang shows
 * and how the tree maps it:
 *
 *  - Implicit conversions (libclang's UnexposedExpr with one operand) are not nodes: a
 *    node is the expression as written, `type` its own type, `conv` the type after the
 *    implicit conversions around it (== type when there are none).
 *  - Function-like macros of headers are calls: clang's arm_neon.h defines vld1q_u8,
 *    vst1q_u8, vgetq_lane_u8 ... (and immintrin.h _mm_slli_si128 ...) as macros, so
 *    `vld1q_u8(p)` is a CALL named "vld1q_u8" with macro_call set, its argument the
 *    expression written between the parentheses, exactly like the call of vaddq_u8 (a
 *    function). A header macro's call inside a macro of the main file (#define LOAD(p)
 *    vld1q_u8(p)) is found by its spelling and is a CALL too, its arguments matched to
 *    the macro's parameters by their order of first use in its body.
 *  - Macros of the main file are expanded: their nodes have from_macro set and the range
 *    of the macro call as written; a macro argument's node has the range where the
 *    argument is written. A range never cuts a macro call in two.
 *  - Statement ranges include their ';' (a DECL's is its declaration statement's).
 */

typedef struct { int line, col; unsigned off; } tine_cpos;        /* in the main file: 1-based line/col, byte offset */
typedef struct { tine_cpos begin, end; } tine_crange;            /* [begin.off, end.off) of the main file's text */

typedef enum { TINE_CT_VOID, TINE_CT_INT, TINE_CT_FLOAT, TINE_CT_PTR, TINE_CT_ARRAY, TINE_CT_VECTOR,
               TINE_CT_TUPLE, TINE_CT_STRUCT, TINE_CT_OTHER } tine_ctype_kind;
typedef struct tine_ctype {
    tine_ctype_kind kind;
    const char *spelling;         /* as the source names it: "uint8x16_t", "__m128i", "const uint8_t *", "int" */
    tine_type_t elem;             /* INT: the type (i32 for int, u8 for uint8_t, bool as u8...); FLOAT: f32/f64;
                                     VECTOR: element type with the lanes (clang's canonical vector type: __m128i is
                                     i64x2, uint8x16_t is u8x16, int8x8_t i8x8); TUPLE: the vector's type */
    bool is_const;                /* PTR: the pointee is const */
    const struct tine_ctype *pointee; /* PTR, ARRAY: what it points to / holds */
    int count;                    /* ARRAY: elements (0 if unknown); TUPLE: vectors (uint8x16x3_t: 3) */
} tine_ctype;
/* A TUPLE is a struct whose only member is an array `val[n]` of vectors (arm_neon.h's uint8x16x3_t);
 * its pointee is the vector's type (uint8x16_t). Enums are INT (their integer type). Elements tine has
 * no type for (_Float16, __bf16, long double; a FLOAT or a VECTOR's) keep their kind and bits (16, 128)
 * and fail tine_type_valid. Types are interned per file: the same kind and spelling, the same pointer. */

typedef enum {
    /* statements */
    TINE_CS_COMPOUND, TINE_CS_DECL, TINE_CS_EXPR, TINE_CS_IF, TINE_CS_FOR, TINE_CS_WHILE, TINE_CS_DO,
    TINE_CS_RETURN, TINE_CS_BREAK, TINE_CS_CONTINUE, TINE_CS_NULL, TINE_CS_ASM, TINE_CS_OTHER,
    /* expressions */
    TINE_CE_CALL, TINE_CE_REF, TINE_CE_INT, TINE_CE_BINARY, TINE_CE_UNARY, TINE_CE_CAST, TINE_CE_SUBSCRIPT,
    TINE_CE_MEMBER, TINE_CE_COND, TINE_CE_PAREN, TINE_CE_INIT_LIST, TINE_CE_OTHER
} tine_cnode_kind;

typedef struct tine_cnode {
    tine_cnode_kind kind;
    tine_crange range;          /* its text in the main file; a node inside a macro expansion gets the
                                   expansion's range (the macro call as written) */
    bool from_macro;            /* some of its tokens come from a macro expansion */
    const tine_ctype *type;     /* expressions: the expression's type; DECL: the variable's; CAST: the target type */
    const char *name;           /* CALL: the callee's name (a direct call), REF: the variable or function,
                                   DECL: the variable, MEMBER: the field, BINARY/UNARY: the operator as
                                   written ("+", "+=", "=", "<<", "&&", "*" (deref), "&" (address), "++"...) */
    bool postfix;               /* UNARY ++ and -- */
    bool arrow;                 /* MEMBER: -> rather than . */
    bool is_const; int64_t value; /* an integer constant expression (literal, enum, sizeof, 3 * 4, a macro
                                   that expands to one): its value (clang_Cursor_Evaluate) */
    struct tine_cnode **kid;    /* children, fixed layout per kind (see below); NULL where absent */
    int nkids;
    const struct tine_cnode *decl; /* REF: the DECL node it refers to (a local or a parameter), NULL for globals/functions */
    bool is_param;              /* DECL: a function parameter */
    /* added to the interface above: */
    const tine_ctype *conv;     /* expressions: the type after the implicit conversions around it (== type
                                   when none: `c` of char in `int x = c;` has type char, conv int) */
    bool macro_call;            /* CALL: the callee is a header's function-like macro (vld1q_u8) */
    bool is_static;             /* DECL: a static local */
    struct tine_cnode *callee;  /* CALL: the callee expression of an indirect call (name NULL) */
} tine_cnode;
/* Children: COMPOUND: its statements; DECL: [init] (nkids 0 without one); EXPR: [expr]; IF: [cond, then, else];
 * FOR: [init, cond, inc, body] (init is a DECL/EXPR statement); WHILE: [cond, body]; DO: [body, cond];
 * RETURN: [value]; CALL: the arguments; BINARY: [lhs, rhs]; UNARY, CAST, PAREN: [operand];
 * SUBSCRIPT: [base, index]; MEMBER: [base]; COND: [cond, then, else]; INIT_LIST: the elements.
 * A declaration statement with several variables (int a = 1, b;) is a COMPOUND-free sequence: the
 * statement list holds one DECL per variable, each with the statement's range.
 * More precisely:
 *  - IF always has 3 kids (else NULL when absent), FOR 4 (NULL for a part left out: for (;;)), RETURN
 *    1 (NULL for `return;`). A for loop's init declaring several variables is a COMPOUND of its DECLs.
 *    A for loop whose parts cannot be told apart (its header made by a macro and some part left out)
 *    is OTHER with its kids in libclang's order.
 *  - OTHER statements: switch (kids [cond, body]), case ([value, stmt]), default and labels ([stmt],
 *    name the label), goto (no kids), declarations of no variable (typedef, struct: no kids).
 *  - ASM: GCC's asm statement; kids its operands' expressions (outputs, then inputs).
 *  - OTHER expressions: floating and string literals, sizeof/_Alignof (name "sizeof" ..., kid the operand
 *    expression, none for a type), GNU statement expressions ([COMPOUND]), compound literals, and
 *    whatever else libclang shows: its expression and statement children.
 *  - A CALL of a header macro whose argument is not an expression libclang shows (a type, a
 *    stringized name) has an OTHER kid with the argument's text range and no type.
 *  - from_macro: the node's first or last token comes from a macro of the main file (its range
 *    starts or ends in a macro call); a CALL of a header macro written in the main file, and the
 *    arguments written in it, are not from_macro (their text is their own). f(N) is not, its
 *    argument N is.
 *  - is_const: clang folds what it can: an enum constant, sizeof, a const int with a constant init. */

typedef struct {
    const char *name;
    tine_crange range;          /* the whole definition */
    tine_crange body_range;     /* the braces */
    const tine_ctype *ret;
    tine_cnode **param;         /* DECL nodes */
    int nparams;
    tine_cnode *body;           /* COMPOUND */
    bool is_static, is_inline;
} tine_cfunc;

typedef struct {
    const char *name;           /* "arm_neon.h" */
    bool angled;
    tine_crange range;          /* the whole #include line */
} tine_cinclude;

typedef struct tine_cfile tine_cfile;

/* Parses `path` (its text read from disk, or `text` if not NULL, as if at path) with the compiler
 * arguments args[0..nargs) (-I, -D, -std=, ...; the caller's flags pass through) for target triple
 * `triple` ("aarch64-linux-gnu", "x86_64-linux-gnu"; NULL: the host). NULL with a located error
 * (file:line:col, the line, a caret, in the context's error) when the file cannot be read or clang
 * reports an error; warnings are ignored. */
tine_cfile *tine_cfront_parse(tine_ctx_t *ctx, const char *path, const char *text, const char *const *args,
                              int nargs, const char *triple);
void tine_cfile_free(tine_cfile *f);
const char *tine_cfile_text(const tine_cfile *f, size_t *len); /* the main file's text */
const char *tine_cfile_path(const tine_cfile *f);
int tine_cfile_nfuncs(const tine_cfile *f);                  /* function definitions in the main file, in order */
const tine_cfunc *tine_cfile_func(const tine_cfile *f, int i);
int tine_cfile_nincludes(const tine_cfile *f);               /* #include directives of the main file */
const tine_cinclude *tine_cfile_include(const tine_cfile *f, int i);
/* A located message about node `at` of this file, in the context's error: "path:line:col: message", the
 * source line, a caret under the column. */
void tine_cfile_error(tine_ctx_t *ctx, const tine_cfile *f, tine_cpos at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The position of byte offset off of the main file (clamped to its length). */
tine_cpos tine_cfile_pos(const tine_cfile *f, unsigned off);
/* The directory of clang's own headers (arm_neon.h, immintrin.h) the parses pass as -resource-dir,
 * or NULL when none was found (libclang's own default then). */
const char *tine_cfront_resource_dir(void);
#endif
