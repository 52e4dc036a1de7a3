/* dag.h — the DFT generator's own expression DAG (private to src/dft).
 *
 * A DFT codelet is a linear map of its 2n real inputs, built from sums, products by
 * constants and negations; genfft's simplifier (FFTW's generator) works on such a DAG and
 * so does this one. A node is a leaf (input i), a constant (never negative: a negative
 * one is NEG of a positive one, as genfft keeps them), an n-ary sum (its negated terms
 * last), a product of a constant and a node, or a negation.
 *
 * Nodes are shared by value, not by structure: every node carries its values at DD_K
 * fixed random inputs (its fingerprint), and making a node whose fingerprint some node
 * already has returns that node (genfft's randomized CSE: two linear forms that agree at
 * random points are the same form). Making a node whose value is the negation of an
 * existing node's returns that node negated, so a - b and b - a are one subtraction.
 * Constants are shared by their value (equal within long-double rounding).
 *
 * The constructors (algsimp.c) simplify as they build (genfft's algsimp): products by 0,
 * 1 and -1 disappear, constants fold, negations move out of products and into the sums
 * that use them, a sum's terms over one node or with one constant factor are collected
 * (2 x, c (x + y)), and butterflies whose terms share a node are regrouped. Everything
 * lives in the DAG's arena and goes with dd_free.
 */
#ifndef TINE_DFT_DAG_H
#define TINE_DFT_DAG_H

#include <stdbool.h>
#include <stdint.h>

#include "../internal.h"

enum { DD_LOAD, DD_NUM, DD_PLUS, DD_TIMES, DD_NEG };
enum { DD_K = 4 }; /* random points a fingerprint holds */

typedef struct dd_node dd_node;
struct dd_node {
    uint8_t kind;
    int id;          /* creation order: a node's operands have smaller ids */
    int n;           /* operands: DD_PLUS its terms, DD_TIMES and DD_NEG 1 */
    int leaf;        /* DD_LOAD: the input's index */
    long double c;   /* DD_NUM: the value, >= 0 */
    dd_node *k;      /* DD_TIMES: the constant factor, a DD_NUM > 0 */
    dd_node *negated; /* DD_NUM: its negation, made on first use */
    dd_node **op;    /* the operands */
    dd_node *next;   /* the value table's chain (the constants': DD_NUM) */
    long double fp[DD_K];
};

typedef struct dd_dag dd_dag;

/* A DAG over nleaves inputs; seed picks its random points (any fixed value). */
dd_dag *dd_new(int nleaves, uint64_t seed);
void dd_free(dd_dag *d);
/* How many nodes were made (ids are 0 .. dd_count - 1), and node id. */
int dd_count(const dd_dag *d);
dd_node *dd_at(const dd_dag *d, int id);
/* How many leaves d has, and leaf i's node if it was made (NULL otherwise). */
int dd_leaves(const dd_dag *d);
dd_node *dd_leaf_if_made(const dd_dag *d, int i);

dd_node *dd_load(dd_dag *d, int leaf);
dd_node *dd_num(dd_dag *d, long double c);
dd_node *dd_neg(dd_dag *d, dd_node *x);
/* c * x */
dd_node *dd_scale(dd_dag *d, long double c, dd_node *x);
/* a * b where one of them is a constant (a DD_NUM or its negation). */
dd_node *dd_mul(dd_dag *d, dd_node *a, dd_node *b);
/* The sum of n terms (terms is not kept). */
dd_node *dd_plus(dd_dag *d, dd_node *const *terms, int n);
dd_node *dd_add(dd_dag *d, dd_node *a, dd_node *b);
dd_node *dd_sub(dd_dag *d, dd_node *a, dd_node *b);
/* Whether x is a constant (a DD_NUM or its negation); *v its value. */
bool dd_const_value(const dd_node *x, long double *v);

/* ---- network transposition (transpose.c) ---------------------------------------- */

/* genfft's weight of the DAG reachable from roots: loads + stores + 10 adds + 20 muls +
 * negations + constants (stores: nroots). */
long dd_weight(const dd_dag *d, dd_node *const *roots, int nroots);
/* The DAG reachable from roots (nroots outputs over d's leaves) simplified through its
 * transpose and back, as genfft does until that stops paying; *out (nroots nodes) the
 * outputs in the DAG returned, which replaces d (freed here, or returned itself). */
dd_dag *dd_transpose_simplify(dd_dag *d, dd_node *const *roots, int nroots, dd_node **out);

#endif
