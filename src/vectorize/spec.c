/* spec.c — the specification's node table: hash-consed scalar nodes, constants in the
 * kernel's type, and the spec printed (tine vectorize --emit spec). */
#include "spec.h"

#include <math.h>

static const char *const names[] = {
#define X(e, s, n) s,
    VZ_SCALAR_OPS(X)
#undef X
};
static const int arities[] = {
#define X(e, s, n) n,
    VZ_SCALAR_OPS(X)
#undef X
};

const char *vz_op_name(int op) { return op >= 0 && op < VZ_NSCALAR ? names[op] : "?"; }
int vz_op_arity(int op) { return op >= 0 && op < VZ_NSCALAR ? arities[op] : 0; }

static uint64_t node_hash(int op, int64_t data, int n, const int32_t *kids) {
    uint64_t h = 1469598103934665603ull ^ (uint64_t)op;
    h = (h ^ (uint64_t)data) * 1099511628211ull;
    for (int i = 0; i < n; i++) h = (h ^ (uint32_t)kids[i]) * 1099511628211ull;
    return h ^ h >> 29;
}

static bool same(const vz_node *x, int op, int64_t data, int n, const int32_t *kids) {
    if (x->op != op || x->n != n || x->data != data) return false;
    for (int i = 0; i < n; i++)
        if (x->kid[i] != kids[i]) return false;
    return true;
}

static void rehash(vz_spec *s) {
    size_t cap = s->captable ? 2 * s->captable : 1024;
    uint32_t *t = tine_xcalloc(cap, sizeof *t);
    for (int i = 0; i < s->nnodes; i++) {
        const vz_node *x = &s->node[i];
        size_t j = node_hash(x->op, x->data, x->n, x->kid) & (cap - 1);
        while (t[j]) j = (j + 1) & (cap - 1);
        t[j] = (uint32_t)i + 1;
    }
    free(s->table);
    s->table = t;
    s->captable = cap;
}

int32_t vz_add(vz_spec *s, int op, int64_t data, int n, const int32_t *kids) {
    if ((size_t)(s->nnodes + 1) * 2 > s->captable) rehash(s);
    size_t j = node_hash(op, data, n, kids) & (s->captable - 1);
    for (; s->table[j]; j = (j + 1) & (s->captable - 1))
        if (same(&s->node[s->table[j] - 1], op, data, n, kids)) return (int32_t)s->table[j] - 1;
    TINE_GROW(s->node, (size_t)s->nnodes + 1, s->capnodes);
    vz_node *x = &s->node[s->nnodes];
    memset(x, 0, sizeof *x);
    x->op = (uint8_t)op;
    x->n = (uint8_t)n;
    x->data = data;
    for (int i = 0; i < n; i++) x->kid[i] = kids[i];
    s->table[j] = (uint32_t)s->nnodes + 1;
    return s->nnodes++;
}

int32_t vz_get(vz_spec *s, int array, int elem) { return vz_add(s, VZ_GET, (int64_t)array << 32 | (uint32_t)elem, 0, NULL); }

int64_t vz_bits(tine_type_t t, double v) { return (int64_t)(uint64_t)tine_bits_of_float(t, v); }

int32_t vz_const(vz_spec *s, double v) { return vz_add(s, VZ_CONST, vz_bits(s->elem, v), 0, NULL); }

double vz_const_value(const vz_spec *s, const vz_node *n) { return tine_float_of_bits(s->elem, (uint64_t)n->data); }

void vz_spec_free(vz_spec *s) {
    if (!s) return;
    for (int i = 0; i < s->narrays; i++) {
        free((char *)s->array[i].name);
        free(s->out ? s->out[i] : NULL);
    }
    free(s->out);
    free(s->array);
    free(s->node);
    free(s->table);
    free((char *)s->func);
    free(s->signature);
    free(s);
}

static const char *const preds[] = {"<", "<=", ">", ">=", "==", "!="};

void vz_spec_print(const vz_spec *s, tine_buf *b) {
    bool *live = tine_xcalloc((size_t)s->nnodes + 1, 1);
    for (int a = 0; a < s->narrays; a++)
        for (int i = 0; s->array[a].output && i < s->array[a].count; i++)
            if (s->out[a][i] >= 0) live[s->out[a][i]] = true;
    for (int i = s->nnodes - 1; i >= 0; i--) /* children precede parents */
        for (int k = 0; live[i] && k < s->node[i].n; k++) live[s->node[i].kid[k]] = true;
    int count = 0;
    for (int i = 0; i < s->nnodes; i++) {
        if (!live[i]) continue;
        const vz_node *x = &s->node[i];
        count++;
        tine_buf_printf(b, "%%%d = ", i);
        if (x->op == VZ_GET) tine_buf_printf(b, "%s[%d]", s->array[x->data >> 32].name, (int)(uint32_t)x->data);
        else if (x->op == VZ_CONST) tine_buf_printf(b, "%.9g", vz_const_value(s, x));
        else {
            tine_buf_printf(b, "%s", x->op == VZ_CMP ? preds[x->data] : vz_op_name(x->op));
            for (int k = 0; k < x->n; k++) tine_buf_printf(b, " %%%d", x->kid[k]);
        }
        tine_buf_puts(b, "\n");
    }
    for (int a = 0; a < s->narrays; a++)
        for (int i = 0; s->array[a].output && i < s->array[a].count; i++)
            if (s->out[a][i] >= 0) tine_buf_printf(b, "%s[%d] = %%%d\n", s->array[a].name, i, s->out[a][i]);
    tine_buf_printf(b, "# %d nodes\n", count);
    free(live);
}

bool vz_reads_output(const vz_spec *s) {
    for (int i = 0; i < s->nnodes; i++)
        if (s->node[i].op == VZ_GET && s->array[s->node[i].data >> 32].output) return true;
    return false;
}
