/* interp.c — the statement interpreter: runs a statement on concrete buffers.
 *
 * It is the reference every statement pass is checked against (run the pass's input and
 * its output, compare the buffers), so it follows the IR's meaning literally and checks
 * everything a hostile statement could get wrong: an error is -1 with a message, never a
 * crash. Expressions are evaluated by the expression interpreter (tine_eval128), each
 * evaluation on its own; variables and buffers live in the caller's environment.
 *
 * Scoping: a loop's or a let's variable is bound for its body and afterwards restored to
 * what it was (or unbound), so a read outside its scope is an error, as it would be in
 * compiled code; an allocation's name likewise, and Free unbinds it at once, so a load
 * after the Free is an error too. The caller's buffers are written in place by stores.
 */
#include "stmt.h"

/* Compiler-built statements nest a few dozen deep; the limit keeps a hostile one from
 * exhausting the C stack. */
enum { MAX_DEPTH = 1000 };
/* Elements one allocation may have (the rules of tine.h keep every index within int32). */
#define MAX_ALLOC_ELEMS ((int64_t)1 << 31)

typedef struct alloc_frame {
    const char *name;
    void *data; /* NULL once a Free released it */
    struct alloc_frame *prev;
} alloc_frame;

typedef struct {
    tine_ctx_t *ctx;
    tine_env_t *env;
    alloc_frame *allocs; /* the live allocations, innermost first */
    int depth;
    /* scratch for one evaluation at a time (never live across a nested statement) */
    tine_u128 a[TINE_MAX_LANES], b[TINE_MAX_LANES];
} runner;

static int exec(runner *r, const tine_stmt *s);

/* A one-lane integer expression's value (i32 or i64: it fits int64_t). */
static int eval_int(runner *r, const tine_expr_t *e, const char *what, int64_t *out) {
    if (!e || e->type.lanes != 1 || (e->type.kind != TINE_INT && e->type.kind != TINE_UINT) || e->type.bits > 64) {
        tine_set_error(r->ctx, "%s: not a one-lane integer of at most 64 bits", what);
        return -1;
    }
    if (tine_eval128(r->ctx, e, r->env, r->a) != 0) return -1;
    tine_i128 v = (tine_i128)r->a[0];
    if (v > INT64_MAX) { /* a u64 beyond int64: larger than any size or bound we accept */
        *out = INT64_MAX;
        return 0;
    }
    *out = (int64_t)v;
    return 0;
}

static int eval_bool(runner *r, const tine_expr_t *e, const char *what, bool *out) {
    if (!e || e->type.lanes != 1 || e->type.kind != TINE_BOOL) {
        tine_set_error(r->ctx, "%s: the condition is not a one-lane bool", what);
        return -1;
    }
    if (tine_eval128(r->ctx, e, r->env, r->a) != 0) return -1;
    *out = r->a[0] != 0;
    return 0;
}

/* A variable's binding before a scope rebinds it, and putting it back afterwards. */
typedef struct {
    bool had;
    tine_u128 one;   /* a one-lane value (loop variables) */
    tine_u128 *many; /* a wider one, malloc'd */
} saved_var;

static void save_var(runner *r, const tine_expr_t *var, saved_var *sv) {
    sv->many = NULL;
    int L = var->type.lanes;
    tine_u128 *into = &sv->one;
    if (L > 1) {
        into = sv->many = malloc(sizeof *into * (size_t)L);
        TINE_ASSERT(into != NULL);
    }
    sv->had = tine_env_lookup128(r->env, var, into);
}

static void restore_var(runner *r, const tine_expr_t *var, saved_var *sv) {
    if (sv->had) tine_env_bind128(r->env, var, sv->many ? sv->many : &sv->one);
    else tine_env_unbind(r->env, var);
    free(sv->many);
}

static const char *loop_name(const tine_stmt *s) {
    return s->loop.name ? s->loop.name : tine_expr_name(s->loop.var);
}

static int run_for(runner *r, const tine_stmt *s) {
    const tine_expr_t *var = s->loop.var;
    if (!var || var->op != TINE_OP_VAR || var->type.kind != TINE_INT || var->type.bits != 32 || var->type.lanes != 1) {
        tine_set_error(r->ctx, "loop: its variable is not a one-lane i32 variable");
        return -1;
    }
    const char *name = loop_name(s);
    if (s->loop.step < 1) {
        tine_set_error(r->ctx, "loop %s: step %d is not positive", name, s->loop.step);
        return -1;
    }
    int64_t mn, ex;
    if (eval_int(r, s->loop.min, "loop min", &mn) != 0 || eval_int(r, s->loop.extent, "loop extent", &ex) != 0)
        return -1;
    if (ex <= 0) return 0;
    if (mn < INT32_MIN || mn > INT32_MAX || ex > (int64_t)INT32_MAX + 1 || mn + ex - 1 > INT32_MAX) {
        tine_set_error(r->ctx, "loop %s: [%lld, %lld + %lld) does not fit in int32", name, (long long)mn,
                       (long long)mn, (long long)ex);
        return -1;
    }
    saved_var sv;
    save_var(r, var, &sv);
    int rc = 0;
    for (int64_t v = mn, end = mn + ex; v < end && rc == 0; v += s->loop.step) {
        tine_u128 lane = (tine_u128)(tine_i128)v;
        tine_env_bind128(r->env, var, &lane);
        rc = exec(r, s->loop.body);
    }
    restore_var(r, var, &sv);
    return rc;
}

static int run_let(runner *r, const tine_stmt *s) {
    const tine_expr_t *var = s->let.var, *val = s->let.value;
    if (!var || var->op != TINE_OP_VAR || !val || !tine_type_eq(var->type, val->type)) {
        tine_set_error(r->ctx, "let: the variable and its value differ in type");
        return -1;
    }
    if (tine_eval128(r->ctx, val, r->env, r->a) != 0) return -1;
    saved_var sv;
    save_var(r, var, &sv);
    tine_env_bind128(r->env, var, r->a);
    int rc = exec(r, s->let.body);
    restore_var(r, var, &sv);
    return rc;
}

static void put_elem(void *data, int bits, size_t i, tine_u128 v) {
    unsigned char *p = (unsigned char *)data + i * (size_t)(bits / 8);
    uint64_t w = (uint64_t)v; /* the low bits: canonical values truncate to the element */
    switch (bits) {
    case 8: *p = (uint8_t)w; break;
    case 16: { uint16_t x = (uint16_t)w; memcpy(p, &x, 2); break; }
    case 32: { uint32_t x = (uint32_t)w; memcpy(p, &x, 4); break; }
    case 64: memcpy(p, &w, 8); break;
    default: TINE_ASSERT(!"buffer element width");
    }
}

static int run_store(runner *r, const tine_stmt *s) {
    const char *name = s->store.buffer;
    const tine_expr_t *ix = s->store.index, *val = s->store.value;
    tine_type_t elem;
    void *data;
    size_t count;
    char t1[16], t2[16];
    if (!tine_env_buffer(r->env, name, &elem, &data, &count)) {
        tine_set_error(r->ctx, "store to %s: no such buffer is bound", name);
        return -1;
    }
    if (!ix || !val || ix->type.kind != TINE_INT || ix->type.bits != 32 || ix->type.lanes != val->type.lanes) {
        tine_set_error(r->ctx, "store to %s: the index is not i32 of the value's lanes", name);
        return -1;
    }
    if (elem.kind != val->type.kind || elem.bits != val->type.bits) {
        tine_set_error(r->ctx, "store to %s: the buffer holds %s but the store writes %s", name,
                       tine_type_name(elem, t1), tine_type_name(val->type, t2));
        return -1;
    }
    if (tine_eval128(r->ctx, ix, r->env, r->a) != 0 || tine_eval128(r->ctx, val, r->env, r->b) != 0) return -1;
    int L = ix->type.lanes;
    for (int i = 0; i < L; i++) { /* every lane checked before any is written */
        tine_i128 k = (tine_i128)r->a[i];
        if (k < 0 || (tine_u128)k >= count) {
            tine_set_error(r->ctx, "store to %s at index %lld outside [0, %zu)", name, (long long)k, count);
            return -1;
        }
    }
    for (int i = 0; i < L; i++) put_elem(data, elem.bits, (size_t)r->a[i], r->b[i]);
    return 0;
}

static int run_allocate(runner *r, const tine_stmt *s) {
    const char *name = s->alloc.buffer;
    tine_type_t t = s->alloc.type;
    char tn[16];
    if (t.kind == TINE_BOOL || (t.bits != 8 && t.bits != 16 && t.bits != 32 && t.bits != 64)) {
        tine_set_error(r->ctx, "allocate %s: %s cannot be a buffer's element type", name, tine_type_name(t, tn));
        return -1;
    }
    int64_t n;
    if (eval_int(r, s->alloc.size, "allocation size", &n) != 0) return -1;
    if (n < 0) {
        tine_set_error(r->ctx, "allocate %s: negative size %lld", name, (long long)n);
        return -1;
    }
    if (n > MAX_ALLOC_ELEMS) {
        tine_set_limit_error(r->ctx, "allocate %s: %lld elements is more than the 2^31 an allocation may have",
                             name, (long long)n);
        return -1;
    }
    void *data = calloc(n ? (size_t)n : 1, (size_t)(t.bits / 8));
    if (!data) {
        tine_set_limit_error(r->ctx, "allocate %s: out of memory for %lld elements", name, (long long)n);
        return -1;
    }
    tine_type_t old_elem;
    void *old_data;
    size_t old_count;
    bool shadows = tine_env_buffer(r->env, name, &old_elem, &old_data, &old_count);
    if (tine_env_bind_buffer(r->env, name, t, data, (size_t)n) != 0) {
        free(data);
        return -1;
    }
    alloc_frame f = {name, data, r->allocs};
    r->allocs = &f;
    int rc = exec(r, s->alloc.body);
    r->allocs = f.prev;
    if (f.data) free(f.data); /* the body had no Free, or stopped before it */
    if (shadows) tine_env_bind_buffer(r->env, name, old_elem, old_data, old_count);
    else tine_env_unbind_buffer(r->env, name);
    return rc;
}

static int run_free(runner *r, const tine_stmt *s) {
    const char *name = s->free_.buffer;
    alloc_frame *f = r->allocs;
    while (f && strcmp(f->name, name) != 0) f = f->prev;
    if (!f) {
        tine_set_error(r->ctx, "free %s: no allocation of that name is live here", name);
        return -1;
    }
    if (!f->data) {
        tine_set_error(r->ctx, "free %s: freed twice", name);
        return -1;
    }
    free(f->data);
    f->data = NULL;
    tine_env_unbind_buffer(r->env, name);
    return 0;
}

/* The error of a failed Assert, its args' values in the message; its code. */
static int assert_failed(runner *r, const tine_stmt *s) {
    int64_t v[TINE_ASSERT_MAX_ARGS];
    for (int i = 0; i < s->assert_.nargs; i++)
        if (eval_int(r, s->assert_.args[i], "assert's value", &v[i]) != 0) return -1;
    char *text = tine_stmt_assert_text(s->assert_.message, v, s->assert_.nargs);
    tine_set_error_str(r->ctx, text); /* takes it */
    return s->assert_.code ? s->assert_.code : -1;
}

static int exec(runner *r, const tine_stmt *s) {
    if (!s) return 0;
    if (r->depth >= MAX_DEPTH) {
        tine_set_limit_error(r->ctx, "statement nested deeper than %d", MAX_DEPTH);
        return -1;
    }
    r->depth++;
    int rc = 0;
    bool c;
    switch (s->kind) {
    case TINE_S_FOR: rc = run_for(r, s); break;
    case TINE_S_LET: rc = run_let(r, s); break;
    case TINE_S_STORE: rc = run_store(r, s); break;
    case TINE_S_ALLOCATE: rc = run_allocate(r, s); break;
    case TINE_S_FREE: rc = run_free(r, s); break;
    case TINE_S_IF:
        rc = eval_bool(r, s->if_.cond, "if", &c);
        if (rc == 0) rc = exec(r, c ? s->if_.then_ : s->if_.else_);
        break;
    case TINE_S_BLOCK:
        for (int i = 0; i < s->block.n && rc == 0; i++) rc = exec(r, s->block.v[i]);
        break;
    case TINE_S_ASSERT:
        rc = eval_bool(r, s->assert_.cond, "assert", &c);
        if (rc == 0 && !c) rc = assert_failed(r, s);
        break;
    case TINE_S_EVALUATE:
        if (!s->eval.value) {
            tine_set_error(r->ctx, "evaluate: no expression");
            rc = -1;
        } else {
            rc = tine_eval128(r->ctx, s->eval.value, r->env, r->a);
        }
        break;
    default:
        tine_set_internal_error(r->ctx, "statement of unknown kind %d", (int)s->kind);
        rc = -1;
        break;
    }
    r->depth--;
    return rc;
}

int tine_stmt_run(tine_ctx_t *ctx, const tine_stmt *s, tine_env_t *env) {
    runner *r = malloc(sizeof *r); /* 8 KB of scratch: off the stack */
    TINE_CHECK_ALLOC(r != NULL);
    r->ctx = ctx;
    r->env = env;
    r->allocs = NULL;
    r->depth = 0;
    int rc = exec(r, s);
    free(r);
    return rc;
}
