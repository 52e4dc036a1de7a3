/* fuzz_lower.c — parse, lift, lower: the input expression, its lifted form and that
 * lowered to the instructions of an x86 target (chosen by the input) compute the same
 * lanes in the interpreter on random inputs; lift and lower never fail on an expression
 * that parsed, and nothing crashes. */
#include "fuzz.h"

enum { MAX_LEAVES = 64, BUF_ELEMS = 64 };

typedef struct {
    const tine_expr_t *var[MAX_LEAVES];
    int nvar;
    const tine_expr_t *load[MAX_LEAVES]; /* one per buffer name */
    int nload;
    int too_many;
} leaves;

/* The variables and buffers of e (every node once). */
static void collect(tine_ctx_t *ctx, const tine_expr_t *e, leaves *L) {
    size_t n = tine_ctx_nodes(ctx) + 1;
    uint8_t *seen = calloc(n, 1);
    const tine_expr_t **stack = malloc(n * sizeof *stack);
    if (!seen || !stack) abort();
    size_t sp = 0;
    stack[sp++] = e;
    seen[tine_expr_id(e)] = 1;
    while (sp) {
        const tine_expr_t *x = stack[--sp];
        tine_op_t op = tine_expr_op(x);
        if (op == TINE_OP_VAR) {
            if (L->nvar < MAX_LEAVES) L->var[L->nvar++] = x;
            else L->too_many = 1;
        } else if (op == TINE_OP_LOAD) {
            int have = 0;
            for (int i = 0; i < L->nload; i++) have |= tine_expr_name(L->load[i]) == tine_expr_name(x);
            if (!have && L->nload < MAX_LEAVES) L->load[L->nload++] = x;
            else if (!have) L->too_many = 1;
        }
        for (int i = 0; i < tine_expr_nops(x); i++) {
            const tine_expr_t *c = tine_expr_operand(x, i);
            if (c && tine_expr_id(c) < n && !seen[tine_expr_id(c)]) {
                seen[tine_expr_id(c)] = 1;
                stack[sp++] = c;
            }
        }
    }
    free(seen);
    free(stack);
}

static uint64_t rand_lane(uint64_t *s, tine_type_t t) {
    uint64_t r = fuzz_rand(s);
    switch (fuzz_rand(s) % 4) { /* edges often */
    case 0: r = 0; break;
    case 1: r = ~0ull; break;
    case 2: r = (uint64_t)1 << (t.bits - 1); break;
    default: break;
    }
    if (t.kind == TINE_FLOAT) return t.bits == 32 ? (r & 0xffffffffu) : r;
    if (t.kind == TINE_BOOL) return r & 1;
    if (t.bits >= 64) return r;
    uint64_t m = ((uint64_t)1 << t.bits) - 1;
    r &= m;
    if (t.kind == TINE_INT && (r >> (t.bits - 1) & 1)) r |= ~m; /* sign-extended, as the API wants */
    return r;
}

static int is_nan(tine_type_t t, uint64_t v) {
    if (t.kind != TINE_FLOAT) return 0;
    if (t.bits == 32) return (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu);
    return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v & 0xfffffffffffffull);
}

static const char *const TARGETS[] = {"x86-64-sse2", "x86-64-sse41", "x86-64-avx2", "x86-64-avx512"};

/* One context for many inputs: a new one compiles the lift and lowering rules again
 * (about 0.1 s), so it is kept until it holds 64 MiB. Nothing an input leaves in it
 * changes how the next is lifted or lowered (nodes are interned, rules are fixed); a
 * finding is replayed in a fresh context by fuzz_regress_lower. */
static tine_ctx_t *ctx;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (ctx && tine_ctx_bytes(ctx) > ((size_t)64 << 20)) {
        tine_ctx_free(ctx);
        ctx = NULL;
    }
    if (!ctx) ctx = tine_ctx_new();
    tine_expr_t *e = tine_parse(ctx, text, "<fuzz>");
    uint64_t seed = fuzz_hash(data, size);
    const char *target = TARGETS[seed % 4];
    leaves L = {0};
    if (e) collect(ctx, e, &L);
    tine_type_t et = e ? tine_expr_type(e) : (tine_type_t){0, 0, 0};
    int ok = e && !L.too_many && et.bits <= 64;
    for (int i = 0; ok && i < L.nvar; i++) ok = tine_expr_type(L.var[i]).bits <= 64;
    for (int i = 0; ok && i < L.nload; i++) ok = tine_expr_type(L.load[i]).bits <= 64;
    if (ok) { /* tine_eval handles at most 64-bit lanes */
        char *p = tine_print(ctx, e);
        tine_expr_t *l = tine_lift(ctx, e);
        FUZZ_CHECK(l != NULL, "lift failed on %s: %s", p, tine_error(ctx));
        FUZZ_CHECK(tine_type_eq(tine_expr_type(l), et), "lift changed the type of %s", p);
        tine_expr_t *w = tine_lower(ctx, l, target);
        FUZZ_CHECK(w != NULL, "lowering to %s failed on %s: %s", target, p, tine_error(ctx));
        FUZZ_CHECK(tine_type_eq(tine_expr_type(w), et), "lowering changed the type of %s", p);
        static uint64_t vals[MAX_LEAVES][TINE_MAX_LANES];
        static uint64_t bufs[MAX_LEAVES][BUF_ELEMS];
        for (int trial = 0; trial < 4; trial++) {
            tine_env_t *env = tine_env_new(ctx);
            for (int i = 0; i < L.nvar; i++) {
                tine_type_t t = tine_expr_type(L.var[i]);
                for (int j = 0; j < t.lanes; j++) vals[i][j] = rand_lane(&seed, t);
                FUZZ_CHECK(tine_env_bind(env, L.var[i], vals[i]) == 0, "binding failed: %s", tine_error(ctx));
            }
            for (int i = 0; i < L.nload; i++) {
                for (int j = 0; j < BUF_ELEMS; j++) bufs[i][j] = fuzz_rand(&seed);
                /* a buffer that cannot be bound (bool) makes the evaluation fail: skipped */
                tine_env_bind_buffer(env, tine_expr_name(L.load[i]), tine_type_with_lanes(tine_expr_type(L.load[i]), 1),
                                     bufs[i], BUF_ELEMS);
            }
            uint64_t ve[TINE_MAX_LANES], vl[TINE_MAX_LANES], vw[TINE_MAX_LANES];
            if (tine_eval(ctx, e, env, ve) == 0) { /* else: a load outside its buffer, say */
                FUZZ_CHECK(tine_eval(ctx, l, env, vl) == 0, "the lifted form of %s fails: %s", p, tine_error(ctx));
                FUZZ_CHECK(tine_eval(ctx, w, env, vw) == 0, "the %s form of %s fails: %s", target, p, tine_error(ctx));
                for (int j = 0; j < et.lanes; j++) {
                    FUZZ_CHECK(ve[j] == vl[j] || (is_nan(et, ve[j]) && is_nan(et, vl[j])),
                               "lift: lane %d of %s: 0x%llx, lifted 0x%llx", j, p, (unsigned long long)ve[j],
                               (unsigned long long)vl[j]);
                    FUZZ_CHECK(ve[j] == vw[j] || (is_nan(et, ve[j]) && is_nan(et, vw[j])),
                               "lower (%s): lane %d of %s: 0x%llx, lowered 0x%llx", target, j, p,
                               (unsigned long long)ve[j], (unsigned long long)vw[j]);
                }
            }
            tine_env_free(env);
        }
        free(p);
    }
    free(text);
    return 0;
}
