/* egraph.h — an e-graph: terms hash-consed into equivalence classes, kept closed under
 * congruence (tine vectorize's search, issue 35; egg's design: deferred rebuilding).
 *
 * A node is an operator (op, an integer the user gives meaning to), a datum (a constant,
 * an array index: part of the node's identity) and child classes. Adding a node that is
 * already there (its children taken canonically) returns its class. eg_union merges two
 * classes; the graph is closed under congruence again (f(a) and f(b) in one class once
 * a and b are) only after eg_rebuild, which repairs the parents of the merged classes as
 * one batch, as egg does, so that a round of unions costs what it changes. An analysis
 * (make: a node's datum from its children's, merge: two classes' into one) rides along.
 */
#ifndef TINE_EGRAPH_H
#define TINE_EGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t eg_id;
typedef struct eg_graph eg_graph;

typedef struct {
    uint32_t op;
    int64_t data;
    uint32_t n;          /* children */
    const eg_id *kids;   /* canonical after eg_rebuild */
} eg_node;

/* An analysis: make gives a new node's class its data (children's data by eg_data);
 * merge folds b's data into a's (the class that stays) and says whether a's changed. */
typedef struct {
    void *(*make)(eg_graph *g, const eg_node *n, void *user);
    bool (*merge)(eg_graph *g, void *a, void *b, void *user);
    void (*free_data)(void *data, void *user);
    void *user;
} eg_analysis;

eg_graph *eg_new(const eg_analysis *analysis); /* analysis may be NULL */
void eg_free(eg_graph *g);

/* The class of the node (added if it is not there). */
eg_id eg_add(eg_graph *g, uint32_t op, int64_t data, uint32_t n, const eg_id *kids);
/* The canonical id of a class. */
eg_id eg_find(const eg_graph *g, eg_id a);
/* Merges two classes; false if they were one. Congruence waits for eg_rebuild. */
bool eg_union(eg_graph *g, eg_id a, eg_id b);
/* Restores the invariants after unions: every node's children canonical, one node per
 * canonical form, congruent nodes in one class. Returns how many classes it merged. */
int eg_rebuild(eg_graph *g);

/* Counts: nodes (distinct canonical forms after a rebuild) and classes. */
size_t eg_node_count(const eg_graph *g);
size_t eg_class_count(const eg_graph *g);
/* The nodes of a class (after eg_rebuild: canonical, each once), by index. */
size_t eg_class_size(const eg_graph *g, eg_id c);
eg_node eg_class_node(const eg_graph *g, eg_id c, size_t i);
/* A class's analysis data. */
void *eg_data(const eg_graph *g, eg_id c);
/* Every canonical class id, in order, into out (at most max); how many there are. */
size_t eg_classes(const eg_graph *g, eg_id *out, size_t max);

/* ---- e-matching ----------------------------------------------------------------------- */

/* A pattern: a tree of nodes, each an operator with children (patterns) or a variable
 * (?x: any class; a variable that occurs twice matches one class twice). */
enum { EG_MAX_VARS = 16, EG_MAX_KIDS = 16 };
typedef struct {
    int var;             /* >= 0: the variable ?var (the rest is unused) */
    uint32_t op;
    bool any_data;       /* match any datum, else exactly `data` */
    int64_t data;
    uint32_t n;
    int kids[EG_MAX_KIDS]; /* indexes of the children in the pattern's nodes */
} eg_pat_node;

typedef struct {
    const eg_pat_node *nodes;
    int root, nvars;
} eg_pattern;

/* One match: the class the pattern's root is in, and each variable's class. */
typedef void (*eg_match_fn)(eg_id root, const eg_id *subst, void *user);
/* Every match of p in the graph (after eg_rebuild), each (root, substitution) once; their
 * count. */
size_t eg_match(const eg_graph *g, const eg_pattern *p, eg_match_fn fn, void *user);

/* ---- rewriting to saturation --------------------------------------------------------- */

/* A rule: where lhs matches, the class also holds rhs (a pattern over lhs's variables),
 * or, with apply set, whatever apply adds (a custom rule: it returns the class to merge
 * with the match's root, or the root itself for none). */
typedef struct {
    const char *name;
    eg_pattern lhs, rhs;
    eg_id (*apply)(eg_graph *g, eg_id root, const eg_id *subst, void *user);
    void *user;
} eg_rule;

typedef struct {
    int max_iters;          /* 0: 30 */
    size_t max_nodes;       /* 0: 100000 */
    double max_seconds;     /* 0: 10 */
    size_t match_limit;     /* egg's backoff scheduler: a rule with more matches than its limit
                               (0: 1000) is banned for ban_iters (0: 5) iterations, and both
                               double each time */
    int ban_iters;
} eg_limits;

typedef enum { EG_SATURATED, EG_ITER_LIMIT, EG_NODE_LIMIT, EG_TIME_LIMIT } eg_stop;

typedef struct {
    eg_stop stop;
    int iters;
    size_t applied, nodes, classes;
    double seconds;
} eg_report;

/* Applies the rules in rounds (every rule's matches found, then applied, then one
 * rebuild) until a round changes nothing or a limit is reached. */
eg_report eg_run(eg_graph *g, const eg_rule *rules, int nrules, const eg_limits *limits);
/* The class of a pattern instantiated with a substitution (added as needed). */
eg_id eg_instantiate(eg_graph *g, const eg_pattern *p, const eg_id *subst);

/* ---- extraction ---------------------------------------------------------------------- */

/* A node's own cost (its children's are added by the extraction). */
typedef double (*eg_cost_fn)(const eg_node *n, void *user);
/* One past the largest class id (the size of per-class arrays). */
size_t eg_id_limit(const eg_graph *g);
/* The cheapest term of every class by tree cost (a node's cost plus each child's, a child
 * used twice counted twice; Diospyros's cost): for each canonical class c, cost[c] and
 * best[c], the index of the chosen node among eg_class_node(c, ·); INFINITY and
 * UINT32_MAX for a class with no finite term (only cycles). After eg_rebuild. */
void eg_extract_tree(const eg_graph *g, eg_cost_fn fn, void *user, double *cost, uint32_t *best);

/* The cost of the term rooted at root under a choice of node per class (best, indexes as
 * eg_extract_tree gives them), each class counted once however often it is used (a DAG's
 * cost: a shared subterm is computed once); INFINITY if the choice has a cycle. */
double eg_dag_cost(const eg_graph *g, eg_cost_fn fn, void *user, eg_id root, const uint32_t *best);
/* DAG-aware extraction: from the tree extraction's choice (best, as eg_extract_tree left
 * it), single changes of one class's node in the context of the whole DAG, kept while
 * they lower eg_dag_cost (a node whose children the DAG already computes costs only
 * itself), within a budget of work (20 M class visits: a large graph keeps the best found
 * by then). Never worse than the tree choice; not always optimal. Returns the DAG cost. */
double eg_extract_dag(const eg_graph *g, eg_cost_fn fn, void *user, eg_id root, uint32_t *best);

/* Checks the invariants (tests): NULL, or what is broken. */
const char *eg_check(const eg_graph *g);

#endif
