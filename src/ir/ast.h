/* ast.h — the syntax tree shared by the parser (parse.c) and the elaborator (elab.c).
 *
 * A tree node records where it came from, so that an error found while typing it (in
 * elab.c, long after parsing) still points at the right column of the right line.
 */
#ifndef TINE_AST_H
#define TINE_AST_H

#include "../internal.h"
#include "../pipeline/directives.h"

#define TINE_MAX_DEPTH 256

/* The front end's limits on a kernel (docs/KERNELS.md, "Limits"), each checked with a
 * located error: they keep compile time and memory proportional to the file. */
enum {
    TINE_KLIMIT_NAME = 64,      /* characters in a declared name */
    TINE_KLIMIT_INPUTS = 16,
    TINE_KLIMIT_PARAMS = 64,
    TINE_KLIMIT_DECLS = 1024,   /* declarations (inputs, params, functions, boundaries) */
    TINE_KLIMIT_STAGES = 16,    /* materialized functions */
    TINE_KLIMIT_TERMS = 8192,   /* unrolled terms of constant reductions, per stage body */
    TINE_KLIMIT_DEPTH = 64,     /* chains of calls; reductions nested (through calls too) */
    TINE_KLIMIT_NODES = 16384,  /* distinct operations of a stage body, functions inlined */
    TINE_KLIMIT_JAM = 64,       /* unrolled points whose loop reductions share one loop nest */
    TINE_KLIMIT_UNROLLED = 2 * TINE_KLIMIT_NODES, /* a stage's operations times the unrolls copying its code */
    /* steps elaborating one stage body (calls, terms). A kernel is elaborated a few
     * dozen times (the scheduler's choices, each stage, each width), so the fuzzing build
     * (TINE_FUZZ) takes 1/256 of it: libFuzzer's timeout then finds hangs, not bodies
     * that are large but within the limit, which take seconds under its instrumentation. */
#ifdef TINE_FUZZ_LIMITS
    TINE_KLIMIT_STEPS = 1 << 16
#else
    TINE_KLIMIT_STEPS = 1 << 24
#endif
};

typedef struct {
    const char *file;
    const char *text;
    /* where each line starts (line k at text + line_at[k - 1]), for a text that may get many
       messages (a rule file's instantiations that do not type); NULL: found by scanning */
    const size_t *line_at;
    int nlines;
} tine_src;

typedef enum {
    A_INT,    /* ival */
    A_FLOAT,  /* fval */
    A_NAME,   /* name: variable, placeholder, true/false/inf/nan */
    A_FIELD,  /* name.field: T.min */
    A_CALL,   /* name<targ>(args) */
    A_LOAD,   /* name[args[0]] */
    A_LANES,  /* name[args...]: per-lane constant of element type name */
    A_UNARY,  /* op args[0] */
    A_BINARY, /* args[0] op args[1] */
    A_TYPE,   /* name(args...) in a type position */
    A_LET,    /* let field = args[0] in args[1] */
    A_REDUCE, /* name(field in args[0]..args[1]) args[2]: op ADD (sum), MIN or MAX */
} tine_ast_kind;

struct tine_ast {
    tine_ast_kind kind;
    tine_op_t op;
    const tine_src *src;
    int line, col;
    const char *name, *field;
    tine_ast *targ;
    tine_ast **args;
    int nargs, cap;
    tine_i128 ival;
    double fval;
    bool logical; /* A_BINARY: && or || of a rule predicate */
    int call_op;  /* A_CALL: tine_op_lookup(name), looked up once by the parser */
};

/* One entry of a rule file. */
typedef struct {
    const char *name, *why;
    const tine_src *src;
    int line, col;         /* of the name */
    int end_line, end_col; /* where the entry ends (for a missing "why") */
    tine_ast *lhs, *rhs, *pred;
    tine_ast **conj;       /* the predicate's top-level && operands */
    int nconj, capconj;
    int priority;
} tine_rule_ast;

int tine_parse_rules(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file,
                     tine_rule_ast **out, int *count);

/* A target description file (.isa, see src/targets/x86.isa). */
typedef struct {
    const char *s;
    int line, col;
} tine_word;

typedef struct {
    tine_word name;
    tine_ast *sig;   /* name(op:TYPE, ...): an A_CALL whose arguments are names with types */
    tine_ast *sem;   /* the semantics */
    tine_word form_width[4], form_feature[4][4]; /* a form's features: xmm:avx512bw+avx512vl */
    int nforms, form_nfeatures[4];
    double lat, rtp;
    bool has_cost;
    tine_word llvm[4], c[4];
    tine_word c_arg[4]; /* c NAME(ARG): the C intrinsic's fixed last argument (s NULL: none) */
    int nllvm, nc;
    bool generic, pack;
    tine_word imm; /* the operand that is an immediate (imm.s NULL: none) */
    bool imm_neg;  /* the intrinsic takes the immediate negated */
    int imm_bits;  /* `imm NAME BITS`: its useful bits (0: not given) */
    bool fixed;    /* `fixed`: exact operand types, one form (an imported entry) */
    int end_line;
} tine_insn_ast;

typedef struct {
    tine_word name;
    tine_word features[16];
    int nfeatures;
} tine_isa_target_ast;

typedef struct {
    const tine_src *src;
    tine_word features[32];
    int nfeatures;
    tine_isa_target_ast targets[16];
    int ntargets;
    tine_word width_name[4];
    int width_bits[4], nwidths;
    double byte_shift_cost; /* `byte_shift N`: a shift of 8-bit lanes, per register; 0: not given */
    tine_insn_ast *insns;
    int ninsns;
} tine_isa_ast;

struct tine_isa {
    int id;
    const char *name;
    tine_arena arena;
    tine_isa_ast ast;
    const char *features[32];
    int nfeatures;
    struct {
        const char *name;
        uint32_t features;
    } targets[16];
    int ntargets;
    tine_insn *insn;
    int n;
};

int tine_parse_isa(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file, tine_isa_ast *out);

/* A kernel file (.tine): declarations, then a schedule. */
typedef enum { K_INPUT, K_PARAM, K_FUNC, K_BOUNDARY, K_OUTPUT } tine_kdecl_kind;


typedef struct tine_kdecl_s {
    tine_kdecl_kind kind;
    const char *name;
    const tine_src *src;
    int line, col;
    tine_ast *type;      /* input, param, output: the element type */
    int dims;            /* input: 1..4 */
    const char *args[4]; /* func, output: the coordinate names */
    int nargs;
    tine_ast *body;      /* func, output */
    const char *of;      /* boundary: the input it wraps */
    tine_ast *fill;      /* boundary: constant(in, fill); NULL for edge(in) */
    /* func: computed into a buffer of its own (schedule: materialize f) rather than
       inlined; its element type once its stage is elaborated (calls read that buffer) */
    bool materialized;
    tine_type_t mtype;
    tine_type_t vtype;   /* its values' type: mtype may be narrower (every value fits) */
    int lanes;           /* func, output: the vector width (0: natural) */
    int unroll[4];       /* per coordinate: 0 or 1 = not unrolled */
    int tile[2];         /* tiles of the first two coordinates (0: not tiled) */
    bool parallel;       /* its last coordinate's loop runs on threads */
    int partition[4];    /* per coordinate: 1 + the schedule's tine_partition_mode; 0 = not given (auto) */
    /* func: compute_at f g.y (materialized, computed row by row inside g's loop over its
       coordinate at_dim: a sliding window); at_sched, store_sched: 1 + the index of the
       compute_at and store_at directives (0: none), for located errors */
    const char *at;
    int at_dim, at_sched, store_dim, store_sched;
    /* split, fuse, reorder: the loops, outermost first (nloops 0: one loop per coordinate,
       the last outermost, as unroll, tile, parallel and partition above describe) */
    tine_kloop loops[TINE_KLOOPS_MAX];
    int nloops;
    bool inlined; /* `inline f` was written (the default, made explicit) */
    /* func: `store_as f T` (directive store_as_sched - 1; 0: none): its buffer stores T, not
       the narrowest type its values fit (kernel_stages.c storage_type) */
    tine_type_t store_as;
    int store_as_sched;
    const char *on; /* func: the instruction set it is defined for (`on arm`); NULL: every target */
    /* param: `in LO..HI` (every run's value is in it: the run checks, selection assumes it)
       and `estimate N` (a typical value, for the automatic scheduler), where given; the
       line and column of `in` and of `estimate`, for errors */
    bool ranged, estimated;
    int64_t lo, hi, estimate;
    int range_line, range_col, est_line, est_col;
    /* the directives that set lanes, unroll[d], partition[d], tile, parallel, materialized
       (materialize or compute_root) and inlined (NULL: none): a second directive saying the
       same or the opposite is an error naming the first (schedule.c, kernel_loops.c) */
    const struct tine_kdirective_s *lanes_by, *unroll_by[4], *partition_by[4], *tile_by, *parallel_by, *mat_by, *inline_by;
} tine_kdecl;

typedef struct tine_kdirective_s {
    tine_dir_kind kind;  /* its row of the directive table (pipeline/directives.h) */
    const char *what;    /* its name, tine_dir_name(kind): what its errors begin with */
    const char *func, *dim, *dim2;
    const char *name, *name2; /* split: the outer and inner loops' names; fuse: the fused loop's; store_as: the type */
    const char **dims;   /* reorder: the loops, innermost first */
    int ndims;
    const char *at;      /* compute_at, store_at: the stage (g of g.y; dim is y) */
    int n, n2;           /* vectorize: 0 = natural; partition: the mode (auto 0, always 1, never 2);
                            vectorize of a reduction: n2 the accumulator's lanes (`acc A`; 0: the default) */
    int acc_line, acc_col; /* vectorize: where `acc` is written (0: it is not) */
    const tine_src *src;
    int line, col;
    const char *on; /* the instruction set it applies to (`on arm`); NULL: every target */
} tine_kdirective;

/* The field of s that an argument of its shape (directives.h) reads or sets. */
static inline const char **tine_dir_slot_name(tine_kdirective *s, tine_darg_slot slot) {
    switch (slot) {
    case TINE_DS_FUNC: return &s->func;
    case TINE_DS_DIM: return &s->dim;
    case TINE_DS_DIM2: return &s->dim2;
    case TINE_DS_AT: return &s->at;
    case TINE_DS_NAME: return &s->name;
    case TINE_DS_NAME2: return &s->name2;
    default: TINE_ASSERT(!"a name's slot"); return NULL;
    }
}
static inline int *tine_dir_slot_int(tine_kdirective *s, tine_darg_slot slot) {
    TINE_ASSERT(slot == TINE_DS_N || slot == TINE_DS_N2);
    return slot == TINE_DS_N ? &s->n : &s->n2;
}
/* The directive named name, or TINE_DIR_COUNT. */
static inline tine_dir_kind tine_dir_lookup(const char *name) {
    int k = 0;
    while (k < TINE_DIR_COUNT && strcmp(tine_dir_name((tine_dir_kind)k), name)) k++;
    return (tine_dir_kind)k;
}

typedef struct tine_kernel_ast_s {
    const tine_src *src;
    tine_kdecl *decls;
    int ndecls;
    tine_kdirective *sched;
    int nsched;
    /* `schedule auto`, or no schedule section: the directives are chosen by the automatic
       scheduler (pipeline/autosched.c) and put in sched before they are checked; auto_line
       and auto_col locate the word auto (0 when the file has no schedule) */
    bool auto_sched;
    int auto_line, auto_col;
    /* 0: auto uses every directive; 1: only materialize, vectorize (of coordinates) and
       unroll (tine_kernel_parse retries at 1 when a choice of level 0 is refused) */
    int auto_level;
    /* the `on NAME` lines (NAME not `all`), in order: the instruction sets, levels or
       features with definitions or directives of their own (kernel_on.c) */
    struct {
        const char *isa;
        int line, col;
    } on[8];
    int non;
    /* the bits of a `natural` vector: the target's register width (tine_kernel_on_filter) */
    int natural_bits;
} tine_kernel_ast;

/* The `natural` vector of every target's kernel: 256 bits. */
enum { TINE_NATURAL_BITS = 256 };

/* What a target's kernel is made for (kernel_on.c): its `natural` vector's bits and the
 * kernel's `on` sections that apply to it, in the order they apply (a later one's
 * definitions and directives replace an earlier one's). */
typedef struct {
    int bits;
    int n;
    const char *on[8];
} tine_on_key;

/* The declaration of a name in a kernel, or NULL. */
const tine_kdecl *tine_kernel_find(const tine_kernel_ast *k, const char *name);


/* The automatic scheduler (pipeline/autosched.c): the directives of `schedule auto`, in
 * k->sched (allocated from arena), for schedule.c to apply as a hand schedule's. */
void tine_autoschedule(tine_ctx_t *ctx, tine_arena *arena, tine_kernel_ast *k);
/* A kernel's directives as .tine text ("schedule", then one a line), appended to b. */
void tine_schedule_print(const tine_kernel_ast *k, tine_buf *b);
/* Its directives `on` instruction set on (NULL: those for every target), one a line. */
void tine_schedule_print_on(const tine_kernel_ast *k, const char *on, tine_buf *b);
/* One directive as it is written (no newline), appended to b. */
void tine_directive_print(const tine_kdirective *s, tine_buf *b);

/* kernel_loops.c: split, fuse and reorder (directive s) of f's loops; vectorize, unroll,
 * partition, parallel of a loop of a reshaped f (*handled false: a vectorize that names a
 * reduction's variable, left to the caller); the index of f's loop of that name or -1.
 * False with a located error. */
bool tine_kloops_directive(tine_ctx_t *ctx, const tine_kdirective *s, tine_kdecl *f);
bool tine_kloops_apply(tine_ctx_t *ctx, const tine_kdirective *s, tine_kdecl *f, bool *handled);
int tine_kloops_find(const tine_kdecl *f, const char *name);
/* f's loops, outermost first, into loops (TINE_KLOOPS_MAX): the list its split, fuse and
 * reorder made, or the plain nest (one loop per coordinate, the last outermost, with
 * unroll, partition and parallel as f says); their count. */
int tine_kloops_of(const tine_kdecl *f, tine_kloop *loops);
/* A located error at directive s, which says again what `first` said (the same directive
 * twice: "write it once"; or differently: fmt says what, and the message names first's
 * text and line:col). Always false. */
bool tine_kdirective_again(tine_ctx_t *ctx, const tine_kdirective *s, const tine_kdirective *first, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* tile f a b W H as split a ao ai W, split b bo bi H, reorder ai bi ao bo (any two loops). */
bool tine_kloops_tile(tine_ctx_t *ctx, tine_arena *arena, const tine_kdirective *s, tine_kdecl *f);

/* kernel_on.c: whether every `on NAME` names a target's instruction set, level or feature
 * (a located error if not); the key of k for target (NULL: the host); whether two keys
 * are the same; k's declarations and directives for key (NULL: every target's), in place. */
bool tine_kernel_on_check(tine_ctx_t *ctx, const tine_kernel_ast *k);
void tine_kernel_on_key(const tine_kernel_ast *k, const char *target, tine_on_key *key);
bool tine_on_key_eq(const tine_on_key *a, const tine_on_key *b);
void tine_kernel_on_filter(tine_kernel_ast *k, const tine_on_key *key);

int tine_parse_kernel(tine_ctx_t *ctx, tine_arena *arena, const char *text, const char *file,
                      tine_kernel_ast *out);

/* A located error in ctx: file:line:col: message, the source line, a caret (diag.c). */
void tine_diag(tine_ctx_t *ctx, const tine_src *src, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void tine_vdiag(tine_ctx_t *ctx, const tine_src *src, int line, int col, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
int tine_binop_prec(tine_op_t op);

#endif
