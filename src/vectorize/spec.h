/* spec.h — tine vectorize's specification: what a small float kernel computes, as one
 * hash-consed DAG of scalar operations over its input elements (Diospyros's lifted
 * program), and the front end that builds it from C by symbolic evaluation (front.c).
 *
 * Every node is unique (op, data, children): a value computed twice in the C is one node,
 * so a 4×4 QR stays a few thousand nodes. The spec is the meaning the search must keep
 * and translation validation checks against; it is never rewritten.
 */
#ifndef TINE_VECTORIZE_SPEC_H
#define TINE_VECTORIZE_SPEC_H

#include "../internal.h"
#include "../cfront/cfront.h"

/* The scalar ops. A comparison's predicate is its datum; GET's datum is array << 32 |
 * element; CONST's the value's bits in the kernel's float type. */
#define VZ_SCALAR_OPS(X)                                                                  \
    X(GET, "get", 0) X(CONST, "const", 0) X(ADD, "+", 2) X(SUB, "-", 2) X(MUL, "*", 2)  \
    X(DIV, "/", 2) X(NEG, "neg", 1) X(SQRT, "sqrt", 1) X(FMA, "fma", 3) X(CMP, "cmp", 2) \
    X(SEL, "select", 3)
typedef enum {
#define X(e, s, n) VZ_##e,
    VZ_SCALAR_OPS(X)
#undef X
    VZ_NSCALAR
} vz_op;
const char *vz_op_name(int op);
int vz_op_arity(int op);

/* CMP's predicates (C's six comparisons, IEEE: unordered is false but for NE). */
typedef enum { VZ_LT, VZ_LE, VZ_GT, VZ_GE, VZ_EQ, VZ_NE } vz_pred;

typedef struct {
    uint8_t op, n;
    int32_t kid[3];
    int64_t data;
} vz_node;

typedef struct {
    const char *name;   /* the parameter's name (owned) */
    bool output;        /* a parameter the kernel writes (not const) */
    int count;          /* elements: one past the last the kernel touches */
    int declared;       /* elements its declaration gives (0: unknown, a pointer) */
    int row;            /* elements of its last dimension (a 2-D array's row; 0: 1-D) */
    int pos;            /* its position among the function's parameters */
} vz_array;

typedef struct {
    tine_type_t elem;   /* f32 or f64 */
    vz_node *node;
    int nnodes, capnodes;
    uint32_t *table;    /* hash-consing: node index + 1, open addressing */
    size_t captable;
    vz_array *array;
    int narrays, caparrays;
    /* per output array, per element: the node it ends with, or -1 (never written) */
    int32_t **out;
    const char *func;   /* the C function's name (owned) */
    char *signature;    /* its prototype as written, for the emitted header (owned) */
} vz_spec;

/* The node (added if new). */
int32_t vz_add(vz_spec *s, int op, int64_t data, int n, const int32_t *kids);
int32_t vz_get(vz_spec *s, int array, int elem);
int32_t vz_const(vz_spec *s, double v);   /* rounded to the kernel's type */
int64_t vz_bits(tine_type_t t, double v); /* v rounded to t (f32, f64): its bits */
double vz_const_value(const vz_spec *s, const vz_node *n);
void vz_spec_free(vz_spec *s);
/* Whether the kernel reads an output's own elements (its stores must then wait). */
bool vz_reads_output(const vz_spec *s);
/* The spec as text: one line per node reachable from an output, then the outputs. */
void vz_spec_print(const vz_spec *s, tine_buf *b);

typedef struct {
    size_t max_nodes;   /* 0: 2,000,000 */
    long max_steps;     /* statements executed while unrolling; 0: 50,000,000 */
} vz_front_limits;

/* Symbolic evaluation of function `name` of file f: NULL with a located error (the
 * construct outside the subset, or a limit) in the context. */
vz_spec *vz_front(tine_ctx_t *ctx, const tine_cfile *f, const char *name, const vz_front_limits *lim);

#endif
