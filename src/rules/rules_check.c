/* rules_check.c — the checks between the rules of a file: no two of one name, none with
 * the left side and condition of an earlier one, and (unless it lowers) no two of equal
 * priority that can match one term (patterns that unify). Each rule is compared only with
 * the earlier ones a hash index of keys lists as possible conflicts.
 */
#include "pattern.h"

/* Could some term match both patterns? Wildcards unify with anything of their type
 * (conservatively ignoring repeated wildcards), constant wildcards with constants. */
static bool unify(const tine_expr_t *p, const tine_expr_t *q) {
    if (!same_elem(p->type, q->type)) return false;
    bool pw = is_wild(p) && !is_cwild(p), qw = is_wild(q) && !is_cwild(q);
    if (pw || qw) return true;
    if (is_cwild(p) || is_cwild(q)) {
        const tine_expr_t *o = is_cwild(p) ? q : p;
        return is_cwild(o) || o->op == TINE_OP_CONST;
    }
    if (p->op == TINE_OP_CONST || q->op == TINE_OP_CONST)
        return p->op == q->op && const_equal(p, q);
    if (p->op != q->op || p->nops != q->nops || p->imm != q->imm) return false;
    bool ok = true;
    for (int i = 0; i < p->nops && ok; i++) ok = unify(p->ops[i], q->ops[i]);
    if (!ok && p->nops == 2 && commutative((tine_op_t)p->op))
        ok = unify(p->ops[0], q->ops[1]) && unify(p->ops[1], q->ops[0]);
    return ok;
}

static bool ast_equal(const tine_ast *a, const tine_ast *b) {
    if (!a || !b) return a == b;
    if (a->kind != b->kind || a->op != b->op || a->nargs != b->nargs || a->ival != b->ival) return false;
    if ((a->name == NULL) != (b->name == NULL) || (a->name && strcmp(a->name, b->name))) return false;
    if ((a->field == NULL) != (b->field == NULL) || (a->field && strcmp(a->field, b->field))) return false;
    if (a->kind == A_FLOAT && a->fval != b->fval) return false;
    if (!ast_equal(a->targ, b->targ)) return false;
    for (int i = 0; i < a->nargs; i++)
        if (!ast_equal(a->args[i], b->args[i])) return false;
    return true;
}

/* The same condition: the same conditions joined by && (each within the depth limit). */
static bool same_condition(const tine_rule_ast *a, const tine_rule_ast *b) {
    if (a->nconj != b->nconj) return false;
    for (int c = 0; c < a->nconj; c++)
        if (!ast_equal(a->conj[c], b->conj[c])) return false;
    return true;
}

/* ---- the checks between rules -------------------------------------------------------------
 *
 * A rule is compared only with the earlier rules it can conflict with: those of its name,
 * those of its left side and condition, and (at equal priority) those whose patterns can
 * match one term. They are found through a hash table of lists of rules, keyed by what a
 * conflict needs equal, so a file of many rules is checked in time near its length, not
 * its square. A key is a 64-bit hash: a collision only adds a candidate, which the full
 * comparison then rejects. Candidates are compared in the file's order, so the conflict
 * reported is the one the plain all-pairs loops would find first. */

static uint64_t mix(uint64_t h, uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull ^ h >> 29;
}

static uint64_t mix_str(uint64_t h, const char *s) {
    uint64_t x = 1469598103934665603ull;
    for (; s && *s; s++) x = (x ^ (uint8_t)*s) * 1099511628211ull;
    return mix(h, s ? x : 0);
}

/* A hash of what ast_equal compares (within the depth limit: recursion is bounded). */
static uint64_t ast_hash(const tine_ast *a) {
    if (!a) return 7;
    uint64_t h = mix(mix(mix((uint64_t)a->kind, (uint64_t)a->op), (uint64_t)a->nargs), (uint64_t)(tine_u128)a->ival);
    h = mix(mix_str(mix_str(h, a->name), a->field), ast_hash(a->targ));
    for (int i = 0; i < a->nargs; i++) h = mix(h, ast_hash(a->args[i]));
    return h;
}

struct tine_rule_bucket {
    uint64_t key;
    int *v, n, cap; /* rule indices, ascending, each once; v NULL: an empty slot */
};

static tine_rule_bucket *index_find(tine_rule_index *ix, uint64_t key, bool create) {
    if (create && 2 * (ix->n + 1) > ix->cap) {
        size_t cap = ix->cap ? 2 * ix->cap : 256;
        tine_rule_index bigger = {tine_xcalloc(cap, sizeof *ix->b), cap, ix->n};
        for (size_t i = 0; i < ix->cap; i++)
            if (ix->b[i].v) {
                size_t j = (size_t)(ix->b[i].key >> 7) & (bigger.cap - 1);
                while (bigger.b[j].v) j = (j + 1) & (bigger.cap - 1);
                bigger.b[j] = ix->b[i];
            }
        free(ix->b);
        *ix = bigger;
    }
    if (!ix->cap) return NULL;
    size_t j = (size_t)(key >> 7) & (ix->cap - 1);
    while (ix->b[j].v && ix->b[j].key != key) j = (j + 1) & (ix->cap - 1);
    if (ix->b[j].v) return &ix->b[j];
    if (!create) return NULL;
    ix->b[j] = (tine_rule_bucket){key, NULL, 0, 0};
    TINE_GROW(ix->b[j].v, 1, ix->b[j].cap); /* non-NULL: the slot is taken */
    ix->n++;
    return &ix->b[j];
}

static void index_add(tine_rule_index *ix, uint64_t key, int rule) {
    tine_rule_bucket *b = index_find(ix, key, true);
    if (b->n && b->v[b->n - 1] == rule) return;
    TINE_PUSH(b->v, b->n, b->cap, rule);
}

void tine_rule_index_free(tine_rule_index *ix) {
    for (size_t i = 0; i < ix->cap; i++) free(ix->b[i].v);
    free(ix->b);
}

/* Appends the rules of a key's list to *out (a growing array). */
static void gather(tine_rule_index *ix, uint64_t key, int **out, int *n, int *cap) {
    const tine_rule_bucket *b = index_find(ix, key, false);
    for (int i = 0; b && i < b->n; i++) TINE_PUSH(*out, *n, *cap, b->v[i]);
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

enum { KEY_NAME = 1, KEY_SIDE, KEY_EXACT, KEY_ALL, KEY_PATH, KEY_CONST_AT, KEY_WILD_AT, SHAPE_DEPTH = 16, PATH_DEPTH = 64 };

/* What unify compares of one node: op, operands, immediate, element type, a constant's
 * value (a constant that is not uniform unifies with no constant: its own key). */
static uint64_t node_head(const tine_expr_t *e) {
    uint64_t h = mix(mix(mix(mix((uint64_t)e->op, (uint64_t)e->nops), e->imm), (uint64_t)e->type.kind), (uint64_t)e->type.bits);
    if (e->op == TINE_OP_CONST) h = mix(h, e->flags & TINE_F_UNIFORM ? (uint64_t)tine_const_value(e, 0) : ~(uint64_t)e->id);
    return h;
}

/* The key of a pattern's nodes down to depth d below e (0: e alone), an operand pair of a
 * commutative op as a set (unify tries both orders); false when a wildcard is among them
 * (it unifies with any subterm). Two patterns that unify and have keys at depth d have
 * the same one. */
static bool shape(const tine_expr_t *e, int d, uint64_t *key) {
    if (is_wild(e)) return false;
    uint64_t h = node_head(e), k[2];
    if (d > 0 && e->nops == 2 && commutative((tine_op_t)e->op)) {
        if (!shape(e->ops[0], d - 1, &k[0]) || !shape(e->ops[1], d - 1, &k[1])) return false;
        h = mix(mix(h, k[0] < k[1] ? k[0] : k[1]), k[0] < k[1] ? k[1] : k[0]);
    } else {
        for (int i = 0; i < e->nops && d > 0; i++) {
            if (!shape(e->ops[i], d - 1, &k[0])) return false;
            h = mix(h, k[0]);
        }
    }
    *key = h;
    return true;
}

/* An instantiation's keys at depths 0..*depth (its pattern has no wildcard down to
 * *depth, at most SHAPE_DEPTH), with the rule's priority: rules overlap only at equal
 * priority. The root is never a wildcard. */
static void shape_keys(const tine_rule *r, const tine_expr_t *p, uint64_t *k, int *depth) {
    *depth = 0;
    shape(p, 0, &k[0]);
    while (*depth < SHAPE_DEPTH && shape(p, *depth + 1, &k[*depth + 1])) ++*depth;
    for (int d = 0; d <= *depth; d++) k[d] = mix(mix(k[d], (uint64_t)(int64_t)r->ast.priority), (uint64_t)d);
}

/* Positions in a pattern: the operand indices from the root, through ops whose operands
 * unify in order only (not a commutative pair), at most PATH_DEPTH deep; a path's hash
 * starts from the root's node and the rule's priority. Two patterns that unify have at a
 * position they both reach either the same constant, or a wildcard in one of them at the
 * position or above it. So a pattern with a constant at such a position (its anchor: the
 * first in preorder) can overlap only rules listed with that constant there
 * (KEY_CONST_AT) or with a wildcard at a position on the way to it (KEY_WILD_AT): rules
 * alike down to their wildcards but for constants beside them ((x:T - K) - (y:T - K)) are
 * told apart by their constants. */
static uint64_t path_root(const tine_rule *r, const tine_expr_t *p) {
    return mix(mix(KEY_PATH, (uint64_t)(int64_t)r->ast.priority), node_head(p));
}

static bool find_anchor(const tine_expr_t *e, uint64_t path, int depth, uint64_t *prefix, int *n, uint64_t *key) {
    prefix[depth] = path;
    if (e->op == TINE_OP_CONST) {
        *n = depth + 1;
        *key = mix(mix(KEY_CONST_AT, path), node_head(e));
        return true;
    }
    if (is_wild(e) || depth == PATH_DEPTH || (e->nops == 2 && commutative((tine_op_t)e->op))) return false;
    for (int i = 0; i < e->nops; i++)
        if (find_anchor(e->ops[i], mix(path, (uint64_t)i + 1), depth + 1, prefix, n, key)) return true;
    return false;
}

static void index_positions(tine_rule_index *ix, const tine_expr_t *e, uint64_t path, int depth, int rule) {
    if (e->op == TINE_OP_CONST) {
        index_add(ix, mix(mix(KEY_CONST_AT, path), node_head(e)), rule);
    } else if (is_wild(e)) {
        index_add(ix, mix(KEY_WILD_AT, path), rule);
    } else if (depth < PATH_DEPTH && !(e->nops == 2 && commutative((tine_op_t)e->op))) {
        for (int i = 0; i < e->nops; i++) index_positions(ix, e->ops[i], mix(path, (uint64_t)i + 1), depth + 1, rule);
    }
}

/* Equal priority may not overlap: correctness must not depend on a tie-break. A rule whose
 * pattern has keys down to depth D is listed under its key at every depth up to D (KEY_ALL)
 * and as ending at D (KEY_EXACT); an earlier rule can overlap it only if they have the same
 * key at the depth where the shallower of the two ends. false after the message. */
bool tine_rules_check_overlaps(tine_ctx_t *ctx, tine_ruleset_t *rs) {
    tine_rule_index ix = {0};
    int *cand = NULL, ncand = 0, capcand = 0;
    bool ok = true;
    for (int i = 0; i < rs->n && ok; i++) {
        tine_rule *a = &rs->rules[i];
        ncand = 0;
        for (int x = 0; x < a->ninst; x++) {
            uint64_t k[SHAPE_DEPTH + 1], prefix[PATH_DEPTH + 1], anchor;
            int D, np;
            if (find_anchor(a->inst[x].lhs, path_root(a, a->inst[x].lhs), 0, prefix, &np, &anchor)) {
                gather(&ix, anchor, &cand, &ncand, &capcand);
                for (int d = 0; d < np; d++) gather(&ix, mix(KEY_WILD_AT, prefix[d]), &cand, &ncand, &capcand);
                continue;
            }
            shape_keys(a, a->inst[x].lhs, k, &D);
            for (int d = 0; d < D; d++) gather(&ix, mix(KEY_EXACT, k[d]), &cand, &ncand, &capcand);
            gather(&ix, mix(KEY_ALL, k[D]), &cand, &ncand, &capcand);
        }
        if (ncand) qsort(cand, (size_t)ncand, sizeof *cand, cmp_int);
        for (int c = 0; c < ncand && ok; c++) {
            if (c && cand[c] == cand[c - 1]) continue;
            tine_rule *b = &rs->rules[cand[c]];
            for (int x = 0; x < a->ninst && ok; x++)
                for (int y = 0; y < b->ninst && ok; y++)
                    if (unify(a->inst[x].lhs, b->inst[y].lhs)) {
                        char tb[16];
                        tine_diag(ctx, a->ast.src, a->ast.line, a->ast.col,
                                  "rule '%s' overlaps rule '%s' (line %d) at equal priority %d (both can match a "
                                  "term with T = %s); give one a higher priority",
                                  a->ast.name, b->ast.name, b->ast.line, a->ast.priority, tine_type_name(a->inst[x].T, tb));
                        ok = false;
                    }
        }
        for (int x = 0; x < a->ninst; x++) {
            uint64_t k[SHAPE_DEPTH + 1];
            int D;
            shape_keys(a, a->inst[x].lhs, k, &D);
            for (int d = 0; d <= D; d++) index_add(&ix, mix(KEY_ALL, k[d]), i);
            index_add(&ix, mix(KEY_EXACT, k[D]), i);
            index_positions(&ix, a->inst[x].lhs, path_root(a, a->inst[x].lhs), 0, i);
        }
    }
    free(cand);
    tine_rule_index_free(&ix);
    return ok;
}

/* The first earlier rule of r's name, and of its left side and condition (-1: none); a
 * conflict is with the earlier of the two, the name's first where it is the same rule. */
void tine_rule_index_twins(tine_rule_index *ix, const tine_ruleset_t *rs, int i, bool lowering, int *same_name,
                           int *same_side) {
    const tine_rule_ast *r = &rs->rules[i].ast;
    *same_name = *same_side = -1;
    const tine_rule_bucket *b = index_find(ix, mix_str(KEY_NAME, r->name), false);
    for (int k = 0; b && k < b->n && *same_name < 0; k++)
        if (!strcmp(rs->rules[b->v[k]].ast.name, r->name)) *same_name = b->v[k];
    if (lowering) return;
    uint64_t side = mix(KEY_SIDE, ast_hash(r->lhs));
    for (int c = 0; c < r->nconj; c++) side = mix(side, ast_hash(r->conj[c]));
    b = index_find(ix, side, false);
    for (int k = 0; b && k < b->n && *same_side < 0; k++) {
        const tine_rule_ast *o = &rs->rules[b->v[k]].ast;
        if (ast_equal(o->lhs, r->lhs) && same_condition(o, r)) *same_side = b->v[k];
    }
}

void tine_rule_index_add(tine_rule_index *ix, const tine_ruleset_t *rs, int i) {
    const tine_rule_ast *r = &rs->rules[i].ast;
    uint64_t side = mix(KEY_SIDE, ast_hash(r->lhs));
    for (int c = 0; c < r->nconj; c++) side = mix(side, ast_hash(r->conj[c]));
    index_add(ix, mix_str(KEY_NAME, r->name), i);
    index_add(ix, side, i);
}

