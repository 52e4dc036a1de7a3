/* test_stmt.c — the statement IR's printer and interpreter on statements built by hand.
 *
 * Each case builds a small statement, runs it on concrete buffers and checks every
 * element against values computed here in C; a few also check the printed text exactly
 * (the golden forms of tine_stmt_print). Errors are checked by their return code and
 * message, and by what the run wrote before it stopped. Last, every benchmark kernel's
 * stages as build.c makes them, and after partitioning and simplification (both through
 * tine_kernel_interpret_stmt), against the expression interpreter's output.
 */
#include "driver/driver.h"

#include "../bench/harness.h"
#include "testutil.h"

static tine_ctx_t *ctx;
static tine_stmt_pool pool;
static tine_type_t I32, I16, I32x8, BOOL1;

static tine_expr_t *var(const char *n) { return tine_var(ctx, n, I32); }
static tine_expr_t *ci(int64_t v) { return tine_const_int(ctx, I32, v); }
static tine_expr_t *bin(tine_op_t op, tine_expr_t *a, tine_expr_t *b) { return tine_binary(ctx, op, a, b); }
static tine_expr_t *add(tine_expr_t *a, tine_expr_t *b) { return bin(TINE_OP_ADD, a, b); }
static tine_expr_t *mul(tine_expr_t *a, tine_expr_t *b) { return bin(TINE_OP_MUL, a, b); }
static tine_expr_t *ramp8(tine_expr_t *base) { return tine_ramp(ctx, base, ci(1), 8); }
static tine_expr_t *bc8(tine_expr_t *s) { return tine_broadcast(ctx, s, 8); }

static tine_stmt *serial(tine_expr_t *v, tine_expr_t *mn, tine_expr_t *ex, const char *name, tine_stmt *body) {
    return tine_stmt_for(&pool, v, mn, ex, 1, TINE_LOOP_SERIAL, TINE_PARTITION_AUTO, name, body);
}

static tine_stmt *block(int n, ...) {
    tine_stmt *v[16];
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) v[i] = va_arg(ap, tine_stmt *);
    va_end(ap);
    return tine_stmt_block(&pool, v, n);
}

static void check_text(const tine_stmt *s, const char *want, const char *what) {
    char *got = tine_stmt_print(ctx, s);
    CHECK(got && !strcmp(got, want), "%s: printed\n%s\nwanted\n%s", what, got ? got : "(null)", want);
    free(got);
}

static tine_env_t *env_with(const char *name, int32_t *buf, size_t n) {
    tine_env_t *env = tine_env_new(ctx);
    CHECK(tine_env_bind_buffer(env, name, I32, buf, n) == 0, "bind %s: %s", name, tine_error(ctx));
    return env;
}

static void fill(int32_t *b, int n, int32_t v) {
    for (int i = 0; i < n; i++) b[i] = v;
}

/* A run that must succeed. */
static void run_ok(const tine_stmt *s, tine_env_t *env, const char *what) {
    int rc = tine_stmt_run(ctx, s, env);
    CHECK(rc == 0, "%s: run returned %d: %s", what, rc, tine_error(ctx));
}

/* A run that must fail with rc and a message containing `msg`. */
static void run_fails(const tine_stmt *s, tine_env_t *env, int want_rc, const char *msg, const char *what) {
    int rc = tine_stmt_run(ctx, s, env);
    const char *e = tine_error(ctx);
    CHECK(rc == want_rc && e && strstr(e, msg), "%s: returned %d (wanted %d), error '%s' (wanted '%s')", what, rc,
          want_rc, e ? e : "(none)", msg);
}

/* for y in [0, 3), x in [1, 5): out[(x - 1) + 4 * y] = x + 10 * y */
static void test_nest(void) {
    tine_expr_t *x = var("x"), *y = var("y");
    tine_stmt *st = tine_stmt_store(&pool, "out", add(bin(TINE_OP_SUB, x, ci(1)), mul(ci(4), y)),
                                    add(x, mul(ci(10), y)));
    tine_stmt *s = serial(y, ci(0), ci(3), "out.y", serial(x, ci(1), ci(4), "out.x", st));
    check_text(s,
               "for out.y (y_i32) in [0, 3) {\n"
               "  for out.x (x_i32) in [1, 1 + 4) {\n"
               "    out[x_i32 - 1 + 4 * y_i32] = x_i32 + 10 * y_i32\n"
               "  }\n"
               "}\n",
               "nest");
    int32_t out[12];
    fill(out, 12, -1);
    tine_env_t *env = env_with("out", out, 12);
    run_ok(s, env, "nest");
    for (int yy = 0; yy < 3; yy++)
        for (int xx = 1; xx < 5; xx++)
            CHECK(out[xx - 1 + 4 * yy] == xx + 10 * yy, "nest: out[%d] = %d", xx - 1 + 4 * yy, out[xx - 1 + 4 * yy]);
    /* the loop variables are unbound again afterwards */
    run_fails(tine_stmt_evaluate(&pool, x), env, -1, "not bound", "loop variable out of scope");
    tine_env_free(env);
}

/* for.vectorized<8> x in [m, m + 32): out[ramp(x - m, 1, 8)] = ramp(x, 1, 8) * 3 */
static void test_vectorized(void) {
    tine_expr_t *x = var("x"), *m = var("m");
    tine_stmt *st = tine_stmt_store(&pool, "out", ramp8(bin(TINE_OP_SUB, x, m)), mul(ramp8(x), bc8(ci(3))));
    tine_stmt *s = tine_stmt_for(&pool, x, m, ci(32), 8, TINE_LOOP_VECTORIZED, TINE_PARTITION_NEVER, "out.x", st);
    check_text(s,
               "for.vectorized<8> out.x (x_i32) in [m_i32, m_i32 + 32) partition never {\n"
               "  out[ramp(x_i32 - m_i32, 1, 8)] = ramp(x_i32, 1, 8) * 3\n"
               "}\n",
               "vectorized");
    int32_t out[40];
    fill(out, 40, -1);
    tine_env_t *env = env_with("out", out, 40);
    uint64_t mv = (uint64_t)(int64_t)-5;
    tine_env_bind(env, m, &mv);
    run_ok(s, env, "vectorized");
    for (int i = 0; i < 32; i++) CHECK(out[i] == (i - 5) * 3, "vectorized: out[%d] = %d", i, out[i]);
    for (int i = 32; i < 40; i++) CHECK(out[i] == -1, "vectorized: out[%d] = %d written", i, out[i]);
    tine_env_free(env);
}

/* for x in [0, 8): let t = x * x in out[x] = t + 1; then the let's shadowing of x */
static void test_let(void) {
    tine_expr_t *x = var("x"), *t = var("t");
    tine_stmt *s = serial(x, ci(0), ci(8), NULL,
                          tine_stmt_let(&pool, t, mul(x, x), tine_stmt_store(&pool, "out", x, add(t, ci(1)))));
    check_text(s,
               "for x_i32 in [0, 8) {\n"
               "  let t_i32 = x_i32 * x_i32 {\n"
               "    out[x_i32] = t_i32 + 1\n"
               "  }\n"
               "}\n",
               "let");
    int32_t out[16];
    fill(out, 16, -1);
    tine_env_t *env = env_with("out", out, 16);
    run_ok(s, env, "let");
    for (int i = 0; i < 8; i++) CHECK(out[i] == i * i + 1, "let: out[%d] = %d", i, out[i]);
    /* for x in [0, 4): { let x = x + 8 in out[x] = x; out[x] = -x }: the let's x is scoped */
    tine_stmt *inner = tine_stmt_let(&pool, x, add(x, ci(8)), tine_stmt_store(&pool, "out", x, x));
    tine_stmt *after = tine_stmt_store(&pool, "out", x, bin(TINE_OP_SUB, ci(0), x));
    fill(out, 16, -1);
    run_ok(serial(x, ci(0), ci(4), NULL, block(2, inner, after)), env, "let shadowing");
    for (int i = 0; i < 4; i++) CHECK(out[i] == -i && out[i + 8] == i + 8, "let shadowing: out[%d] = %d, out[%d] = %d",
                                      i, out[i], i + 8, out[i + 8]);
    tine_env_free(env);
}

/* for x in [0, 10): if (x < 3) out[x] = 100 else if (x % 2 == 0) out[x] = 200 else out[x] = 300 */
static void test_if(void) {
    tine_expr_t *x = var("x");
    tine_stmt *s = serial(
        x, ci(0), ci(10), NULL,
        tine_stmt_if(&pool, bin(TINE_OP_LT, x, ci(3)), tine_stmt_store(&pool, "out", x, ci(100)),
                     tine_stmt_if(&pool, bin(TINE_OP_EQ, bin(TINE_OP_MOD, x, ci(2)), ci(0)),
                                  tine_stmt_store(&pool, "out", x, ci(200)), tine_stmt_store(&pool, "out", x, ci(300)))));
    check_text(s,
               "for x_i32 in [0, 10) {\n"
               "  if (x_i32 < 3) {\n"
               "    out[x_i32] = 100\n"
               "  } else {\n"
               "    if (x_i32 % 2 == 0) {\n"
               "      out[x_i32] = 200\n"
               "    } else {\n"
               "      out[x_i32] = 300\n"
               "    }\n"
               "  }\n"
               "}\n",
               "if");
    int32_t out[10];
    fill(out, 10, -1);
    tine_env_t *env = env_with("out", out, 10);
    run_ok(s, env, "if");
    for (int i = 0; i < 10; i++) {
        int want = i < 3 ? 100 : i % 2 == 0 ? 200 : 300;
        CHECK(out[i] == want, "if: out[%d] = %d, wanted %d", i, out[i], want);
    }
    tine_env_free(env);
}

/* allocate tmp: i16[n] { for x: tmp[x] = i16(x * 7 - 20); for x: let v = tmp[n - 1 - x] in
 * out[x] = i32(v) * 2; free tmp } */
static void test_allocate(void) {
    tine_expr_t *x = var("x"), *n = var("n"), *v = tine_var(ctx, "v", I16);
    tine_stmt *fill_tmp =
        serial(x, ci(0), n, NULL, tine_stmt_store(&pool, "tmp", x, tine_cast(ctx, I16, add(mul(x, ci(7)), ci(-20)))));
    tine_expr_t *ld = tine_load(ctx, "tmp", I16, bin(TINE_OP_SUB, bin(TINE_OP_SUB, n, ci(1)), x));
    tine_stmt *use = serial(x, ci(0), n, NULL,
                            tine_stmt_let(&pool, v, ld,
                                          tine_stmt_store(&pool, "out", x, mul(tine_cast(ctx, I32, v), ci(2)))));
    tine_stmt *s = tine_stmt_allocate(&pool, "tmp", I16, n, block(3, fill_tmp, use, tine_stmt_free(&pool, "tmp")));
    check_text(s,
               "allocate tmp: i16[n_i32] {\n"
               "  for x_i32 in [0, n_i32) {\n"
               "    tmp[x_i32] = i16(x_i32 * 7 + -20)\n"
               "  }\n"
               "  for x_i32 in [0, n_i32) {\n"
               "    let v_i16 = tmp_i16[n_i32 - 1 - x_i32] {\n"
               "      out[x_i32] = i32(v_i16) * 2\n"
               "    }\n"
               "  }\n"
               "  free tmp\n"
               "}\n",
               "allocate");
    int32_t out[6];
    fill(out, 6, -1);
    tine_env_t *env = env_with("out", out, 6);
    uint64_t nv = 6;
    tine_env_bind(env, n, &nv);
    run_ok(s, env, "allocate");
    for (int i = 0; i < 6; i++) {
        int want = (int16_t)((5 - i) * 7 - 20) * 2;
        CHECK(out[i] == want, "allocate: out[%d] = %d, wanted %d", i, out[i], want);
    }
    /* scratch is zeroed: a fresh allocation read before any store */
    fill(out, 6, -1);
    tine_stmt *zero = tine_stmt_allocate(
        &pool, "tmp", I16, n,
        serial(x, ci(0), n, NULL, tine_stmt_store(&pool, "out", x, tine_cast(ctx, I32, tine_load(ctx, "tmp", I16, x)))));
    run_ok(zero, env, "allocate zeroed");
    for (int i = 0; i < 6; i++) CHECK(out[i] == 0, "allocate zeroed: out[%d] = %d", i, out[i]);
    /* the allocation is gone afterwards, and after its Free */
    run_fails(tine_stmt_evaluate(&pool, tine_load(ctx, "tmp", I16, ci(0))), env, -1, "not bound", "load after allocate");
    tine_stmt *late = tine_stmt_allocate(&pool, "tmp", I16, n,
                                         block(2, tine_stmt_free(&pool, "tmp"),
                                               tine_stmt_evaluate(&pool, tine_load(ctx, "tmp", I16, ci(0)))));
    run_fails(late, env, -1, "not bound", "load after free");
    tine_stmt *twice = tine_stmt_allocate(&pool, "tmp", I16, n,
                                          block(2, tine_stmt_free(&pool, "tmp"), tine_stmt_free(&pool, "tmp")));
    run_fails(twice, env, -1, "free tmp: freed twice", "double free");
    run_fails(tine_stmt_free(&pool, "out"), env, -1, "free out: no allocation", "free of a caller's buffer");
    /* sizes refused */
    nv = (uint64_t)(int64_t)-3;
    tine_env_bind(env, n, &nv);
    run_fails(zero, env, -1, "allocate tmp: negative size -3", "negative size");
    tine_stmt *huge = tine_stmt_allocate(&pool, "tmp", I16, tine_const_int(ctx, tine_type(TINE_INT, 64, 1), 1ll << 40),
                                         tine_stmt_free(&pool, "tmp"));
    run_fails(huge, env, -1, "more than the 2^31", "huge size");
    tine_env_free(env);
}

/* for x in [0, 10): assert(x < 5, 7, "x reached 5"); out[x] = x + 1 */
static void test_assert(void) {
    tine_expr_t *x = var("x");
    tine_stmt *s = serial(x, ci(0), ci(10), NULL,
                          block(2, tine_stmt_assert(&pool, bin(TINE_OP_LT, x, ci(5)), 7, "x reached \"5\""),
                                tine_stmt_store(&pool, "out", x, add(x, ci(1)))));
    check_text(s,
               "for x_i32 in [0, 10) {\n"
               "  assert(x_i32 < 5, 7, \"x reached \\\"5\\\"\")\n"
               "  out[x_i32] = x_i32 + 1\n"
               "}\n",
               "assert");
    int32_t out[10];
    fill(out, 10, -1);
    tine_env_t *env = env_with("out", out, 10);
    run_fails(s, env, 7, "x reached \"5\"", "assert");
    for (int i = 0; i < 10; i++) CHECK(out[i] == (i < 5 ? i + 1 : -1), "assert: out[%d] = %d", i, out[i]);
    tine_env_free(env);
}

static void test_bad_store(void) {
    tine_expr_t *x = var("x");
    int32_t out[6];
    fill(out, 6, -1);
    tine_env_t *env = env_with("out", out, 6);
    /* for x in [0, 5): out[x + 2] = x: the fifth store is refused, the four before it done */
    tine_stmt *s = serial(x, ci(0), ci(5), NULL, tine_stmt_store(&pool, "out", add(x, ci(2)), x));
    run_fails(s, env, -1, "store to out at index 6 outside [0, 6)", "store past the end");
    for (int i = 0; i < 6; i++) CHECK(out[i] == (i < 2 ? -1 : i - 2), "store past the end: out[%d] = %d", i, out[i]);
    /* a vector store with one bad lane writes none of its lanes */
    fill(out, 6, -1);
    tine_stmt *v = tine_stmt_store(&pool, "out", tine_ramp(ctx, ci(3), ci(-1), 8), bc8(ci(9)));
    run_fails(v, env, -1, "store to out at index -1 outside [0, 6)", "vector store before the start");
    for (int i = 0; i < 6; i++) CHECK(out[i] == -1, "vector store before the start: out[%d] = %d", i, out[i]);
    run_fails(tine_stmt_store(&pool, "nowhere", ci(0), ci(1)), env, -1, "store to nowhere: no such buffer",
              "store to an unbound buffer");
    run_fails(tine_stmt_store(&pool, "out", ci(0), tine_const_int(ctx, I16, 1)), env, -1,
              "the buffer holds i32 but the store writes i16", "store of the wrong type");
    tine_env_free(env);
}

static void test_empty(void) {
    tine_expr_t *x = var("x"), *e = var("e");
    int32_t out[4];
    fill(out, 4, -1);
    tine_env_t *env = env_with("out", out, 4);
    /* for x in [2, 2 + e): out[x] = 5, with e = 0 and e = -7; and an empty block */
    tine_stmt *s = serial(x, ci(2), e, NULL, tine_stmt_store(&pool, "out", x, ci(5)));
    int64_t es[] = {0, -7};
    for (int k = 0; k < 2; k++) {
        uint64_t ev = (uint64_t)es[k];
        tine_env_bind(env, e, &ev);
        run_ok(s, env, "empty extent");
        for (int i = 0; i < 4; i++) CHECK(out[i] == -1, "extent %lld: out[%d] = %d", (long long)es[k], i, out[i]);
    }
    tine_stmt *empty = tine_stmt_block(&pool, NULL, 0);
    run_ok(empty, env, "empty block");
    check_text(empty, "", "empty block");
    check_text(serial(x, ci(0), ci(4), NULL, empty), "for x_i32 in [0, 4) {\n}\n", "empty body");
    tine_env_free(env);
}

/* The nested loop reductions of passes.h: for each 8-lane vector of x,
 *   out[x] = sum(r0 in 0..K) (sum(r1 in 0..r0 + 1) x * r1 + r0) */
static void test_reductions(void) {
    tine_expr_t *x = var("$.c0"), *K = var("$K"), *r0 = var("$.r0"), *r1 = var("$.r1");
    tine_expr_t *acc0 = tine_var(ctx, "$.acc0", I32x8), *acc1 = tine_var(ctx, "$.acc1", I32x8);
    tine_expr_t *red0 = tine_var(ctx, "$.red0", I32x8), *red1 = tine_var(ctx, "$.red1", I32x8);
    tine_expr_t *lanes = ramp8(ci(0));
    tine_expr_t *a0 = tine_load(ctx, "$.a0", I32, lanes), *a1 = tine_load(ctx, "$.a1", I32, lanes);
    tine_stmt *inner_loop = serial(
        r1, ci(0), bin(TINE_OP_MAX, add(r0, ci(1)), ci(0)), NULL,
        tine_stmt_let(&pool, acc1, a1, tine_stmt_store(&pool, "$.a1", lanes, add(acc1, mul(ramp8(x), bc8(r1))))));
    tine_stmt *update0 = tine_stmt_let(
        &pool, red1, a1, tine_stmt_let(&pool, acc0, a0, tine_stmt_store(&pool, "$.a0", lanes, add(acc0, add(red1, bc8(r0))))));
    tine_stmt *inner = tine_stmt_allocate(&pool, "$.a1", I32, ci(8),
                                          block(4, tine_stmt_store(&pool, "$.a1", lanes, bc8(ci(0))), inner_loop,
                                                update0, tine_stmt_free(&pool, "$.a1")));
    tine_stmt *outer = tine_stmt_allocate(
        &pool, "$.a0", I32, ci(8),
        block(4, tine_stmt_store(&pool, "$.a0", lanes, bc8(ci(0))),
              serial(r0, ci(0), bin(TINE_OP_MAX, K, ci(0)), NULL, inner),
              tine_stmt_let(&pool, red0, a0, tine_stmt_store(&pool, "out", ramp8(x), red0)),
              tine_stmt_free(&pool, "$.a0")));
    tine_stmt *s = tine_stmt_for(&pool, x, ci(0), ci(24), 8, TINE_LOOP_VECTORIZED, TINE_PARTITION_AUTO, "out.x", outer);
    check_text(s,
               "for.vectorized<8> out.x ($.c0_i32) in [0, 24) {\n"
               "  allocate $.a0: i32[8] {\n"
               "    $.a0[ramp(0, 1, 8)] = 0\n"
               "    for $.r0_i32 in [0, max($K_i32, 0)) {\n"
               "      allocate $.a1: i32[8] {\n"
               "        $.a1[ramp(0, 1, 8)] = 0\n"
               "        for $.r1_i32 in [0, max($.r0_i32 + 1, 0)) {\n"
               "          let $.acc1_i32 = $.a1_i32[ramp(0, 1, 8)] {\n"
               "            $.a1[ramp(0, 1, 8)] = $.acc1_i32 + ramp($.c0_i32, 1, 8) * x($.r1_i32)\n"
               "          }\n"
               "        }\n"
               "        let $.red1_i32 = $.a1_i32[ramp(0, 1, 8)]\n"
               "        let $.acc0_i32 = $.a0_i32[ramp(0, 1, 8)] {\n"
               "          $.a0[ramp(0, 1, 8)] = $.acc0_i32 + ($.red1_i32 + x($.r0_i32))\n"
               "        }\n"
               "        free $.a1\n"
               "      }\n"
               "    }\n"
               "    let $.red0_i32 = $.a0_i32[ramp(0, 1, 8)] {\n"
               "      out[ramp($.c0_i32, 1, 8)] = $.red0_i32\n"
               "    }\n"
               "    free $.a0\n"
               "  }\n"
               "}\n",
               "reductions");
    int32_t out[24];
    for (int Kv = -1; Kv <= 5; Kv += 3) {
        fill(out, 24, -1);
        tine_env_t *env = env_with("out", out, 24);
        uint64_t kv = (uint64_t)(int64_t)Kv;
        tine_env_bind(env, K, &kv);
        run_ok(s, env, "reductions");
        for (int i = 0; i < 24; i++) {
            int want = 0;
            for (int a = 0; a < Kv; a++) {
                int sum1 = 0;
                for (int b = 0; b <= a; b++) sum1 += i * b;
                want += sum1 + a;
            }
            CHECK(out[i] == want, "reductions K=%d: out[%d] = %d, wanted %d", Kv, i, out[i], want);
        }
        tine_env_free(env);
    }
}

/* Hostile shapes: deep nesting is refused, not a stack overflow. */
static void test_hostile(void) {
    tine_expr_t *x = var("x");
    tine_stmt *s = tine_stmt_store(&pool, "out", ci(0), ci(1));
    for (int i = 0; i < 5000; i++) s = tine_stmt_if(&pool, tine_const_int(ctx, BOOL1, 1), s, NULL);
    int32_t out[1] = {0};
    tine_env_t *env = env_with("out", out, 1);
    run_fails(s, env, -1, "nested deeper", "deep nesting");
    run_fails(serial(x, ci(0), ci(1), NULL, tine_stmt_store(&pool, "out", var("unbound"), ci(1))), env, -1,
              "not bound", "unbound variable in an index");
    tine_env_free(env);
}

/* ---- hoisting ----------------------------------------------------------------------------- */

/* for y in [0, 3):
 *   let z = k + 1
 *     for.vectorized<8> x in [0, 16):
 *       out[ramp(x + y * 16, 1, 8)] = in[ramp(x + y * 16, 1, 8)] * bc(k * k) + bc(y * y + z) + bc(in[k])
 *       out[ramp(x + y * 16 + 48, 1, 8)] = ramp(x, 1, 8) * bc(y * 16)
 * The row base y * 16 is bound once per row for both stores and the broadcast (one lane:
 * the indices keep their ramps, so the loads stay dense), bc(k * k) and z's value once
 * before both loops (z's Let goes), bc(y * y + z) once per row; the loads stay where they
 * were, in[k] included. */
static void test_hoist(void) {
    tine_expr_t *x = var("x"), *y = var("y"), *k = var("k"), *z = var("z");
    tine_expr_t *row = add(x, mul(y, ci(16)));
    tine_expr_t *in = tine_load(ctx, "in", I32, ramp8(row)), *ink = tine_load(ctx, "in", I32, k);
    tine_expr_t *v0 = add(add(mul(in, bc8(mul(k, k))), bc8(add(mul(y, y), z))), bc8(ink));
    tine_stmt *st0 = tine_stmt_store(&pool, "out", ramp8(row), v0);
    tine_stmt *st1 = tine_stmt_store(&pool, "out", ramp8(add(row, ci(48))), mul(ramp8(x), bc8(mul(y, ci(16)))));
    tine_stmt *xl = tine_stmt_for(&pool, x, ci(0), ci(16), 8, TINE_LOOP_VECTORIZED, TINE_PARTITION_NEVER, "out.x",
                                  block(2, st0, st1));
    tine_stmt *s = serial(y, ci(0), ci(3), "out.y", tine_stmt_let(&pool, z, add(k, ci(1)), xl));
    tine_stmt *h = tine_stmt_hoist(&pool, s);
    check_text(h,
               "let $.h0_i32 = k_i32 + 1\n"
               "let $.h2_i32 = x(k_i32 * k_i32) {\n"
               "  for out.y (y_i32) in [0, 3) {\n"
               "    let $.h1_i32 = y_i32 * 16\n"
               "    let $.h3_i32 = x(y_i32 * y_i32 + $.h0_i32) {\n"
               "      for.vectorized<8> out.x (x_i32) in [0, 16) partition never {\n"
               "        out[ramp(x_i32 + $.h1_i32, 1, 8)] =\n" /* past 100 columns: wrapped */
               "            in_i32[ramp(x_i32 + $.h1_i32, 1, 8)] * $.h2_i32 + $.h3_i32 + x(in_i32[k_i32])\n"
               "        out[ramp(x_i32 + $.h1_i32 + 48, 1, 8)] = ramp(x_i32, 1, 8) * x($.h1_i32)\n"
               "      }\n"
               "    }\n"
               "  }\n"
               "}\n",
               "hoist");
    int32_t inb[64], want[96], got[96];
    for (int i = 0; i < 64; i++) inb[i] = i * 7 - 100;
    for (int after = 0; after < 2; after++) {
        int32_t *out = after ? got : want;
        fill(out, 96, -1);
        tine_env_t *env = env_with("out", out, 96);
        CHECK(tine_env_bind_buffer(env, "in", I32, inb, 64) == 0, "bind in: %s", tine_error(ctx));
        uint64_t kv = 5;
        tine_env_bind(env, k, &kv);
        run_ok(after ? h : s, env, after ? "hoisted" : "before hoisting");
        tine_env_free(env);
    }
    CHECK(!memcmp(want, got, sizeof want), "hoist: the results differ");
    CHECK(want[0] == inb[0] * 25 + 6 + inb[5] && want[95] == 15 * 32, "hoist: out[0] = %d, out[95] = %d", want[0],
          want[95]);
    /* a second run names its bindings after the first's */
    char *again = tine_stmt_print(ctx, tine_stmt_hoist(&pool, h));
    char *once = tine_stmt_print(ctx, h);
    CHECK(!strcmp(again, once), "hoisting twice changes\n%s\ninto\n%s", once, again);
    free(again);
    free(once);
    /* an Assert keeps its args when an invariant part of them moves out of the loop: the
       failure's message shows the same values before and after hoisting */
    tine_expr_t *lim = mul(k, ci(3));
    tine_stmt *as = tine_stmt_assert_args(&pool, tine_binary(ctx, TINE_OP_LT, y, lim), 7, "y = {} reached {}",
                                          (tine_expr_t *[]){y, lim}, 2);
    tine_stmt *ls = serial(y, ci(0), ci(10), "out.y", as);
    tine_stmt *lh = tine_stmt_hoist(&pool, ls);
    char *msg[2] = {NULL, NULL};
    for (int after = 0; after < 2; after++) {
        tine_env_t *env = tine_env_new(ctx);
        uint64_t kv = 2;
        tine_env_bind(env, k, &kv);
        int rc = tine_stmt_run(ctx, after ? lh : ls, env);
        CHECK(rc == 7, "hoist: the Assert returns %d, not 7", rc);
        msg[after] = tine_strdup(tine_error(ctx) ? tine_error(ctx) : "");
        tine_env_free(env);
    }
    CHECK(!strcmp(msg[0], "y = 6 reached 6") && !strcmp(msg[0], msg[1]),
          "hoist: the Assert's message is '%s' before and '%s' after", msg[0], msg[1]);
    free(msg[0]);
    free(msg[1]);
}

/* ---- the benchmark kernels' built nests against tine_kernel_interpret ------------------- */

static double t_interp, t_stmt; /* seconds in each interpreter (reported) */

static void test_bench_kernels(void) {
    int nk = 0;
    for (const bench_entry *be = bench_entries(); be->name; be++) {
        char path[256];
        snprintf(path, sizeof path, "../bench/%s/%s.tine", bench_entry_dir(be), be->name);
        char *text = read_file(path);
        if (!text) {
            fail("cannot read %s (the test runs in tests/)", path);
            continue;
        }
        tine_ctx_t *kc = tine_ctx_new();
        tine_kernel_t *k = tine_kernel_parse(kc, text, path);
        CHECK(k != NULL, "%s: %s", path, tine_error(kc));
        uint64_t seed = 99;
        for (int w = 0; k && w < 3; w++) {
            bench_case c = {.name = be->name};
            case_binding b;
            char err[256];
            if (be->make(&c, (case_size)(CASE_TEST0 + w), w == 1 ? PAT_MAX : PAT_RANDOM, &seed) != 0 ||
                case_bind(&c, k, NULL, &b, err, sizeof err) != 0) {
                fail("%s: the harness case does not fit", be->name);
                bench_case_free(&c);
                continue;
            }
            size_t bytes = case_bytes(&c.out, c.out_bits);
            unsigned char *want = malloc(bytes), *got = malloc(bytes);
            memset(want, 0xA5, bytes);
            memset(got, 0xA5, bytes);
            char what[96];
            snprintf(what, sizeof what, "%s case %d", be->name, w);
            b.out.data = want;
            double t0 = now();
            int rc = tine_kernel_interpret(k, b.inputs, b.params, &b.out);
            t_interp += now() - t0;
            CHECK(rc == 0, "%s: interpret: %s", what, tine_error(kc));
            /* the stages as built, after partitioning and simplification, and after
               tine's selection for AVX2 and hoisting (through the driver) */
            static const char *const phase[3] = {"build", "simplify", "hoist"};
            for (int ph = 0; ph < 3 && rc == 0; ph++) {
                memset(got, 0xA5, bytes);
                b.out.data = got;
                t0 = now();
                int rs = tine_kernel_interpret_stmt(k, phase[ph], ph < 2 ? -1 : TINE_SELECT_TINE, "x86-64-avx2",
                                                    b.inputs, b.params, &b.out);
                t_stmt += now() - t0;
                CHECK(rs == 0, "%s: the statements after %s do not run: %s", what, phase[ph], tine_error(kc));
                if (rs == 0) {
                    int64_t at[4] = {0};
                    bool same = !case_first_difference(&c, want, got, at);
                    CHECK(same, "%s: the statements' output after %s differs at (%lld, %lld, %lld)", what, phase[ph],
                          (long long)at[0], (long long)at[1], (long long)at[2]);
                }
            }
            free(want);
            free(got);
            bench_case_free(&c);
        }
        nk++;
        tine_kernel_free(k);
        tine_ctx_free(kc);
        free(text);
    }
    CHECK(nk >= 9, "only %d benchmark kernels", nk);
}

int main(void) {
    ctx = tine_ctx_new();
    tine_stmt_pool_init(&pool, ctx);
    I32 = tine_type(TINE_INT, 32, 1);
    I16 = tine_type(TINE_INT, 16, 1);
    I32x8 = tine_type(TINE_INT, 32, 8);
    BOOL1 = tine_type(TINE_BOOL, 1, 1);
    test_nest();
    test_vectorized();
    test_let();
    test_if();
    test_allocate();
    test_assert();
    test_bad_store();
    test_empty();
    test_reductions();
    test_hostile();
    test_hoist();
    double t0 = now();
    test_bench_kernels();
    printf("benchmark kernels: %.2f s (tine_kernel_interpret %.2f s, the built nests %.2f s)\n", now() - t0, t_interp,
           t_stmt);
    tine_stmt_pool_free(&pool);
    tine_ctx_free(ctx);
    printf("test_stmt: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
