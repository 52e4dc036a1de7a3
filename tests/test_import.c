/* test_import.c — the importer of Intel's pseudocode (src/import) on excerpts written for
 * this test in the guide's style, each checked against an independent C model of what the
 * instruction does.
 *
 * Each case is a pseudocode text, its operands (type, etype signedness) and a C function
 * computing the result lanes from the operand lanes. The text is parsed and evaluated
 * into one expression; the interpreter then runs that expression (as lanes, packed into
 * whole vectors, and evaluated with every offset) on edge values and random operand
 * tuples (the argument: 3,000; 500 under the sanitizers), and every lane must equal the
 * model's. The cases cover the rules the importer states (docs/IMPORT.md): slices read
 * by their operand's element signedness, exact arithmetic then truncation on assignment,
 * Saturate, SignExtend and ZeroExtend, ABS, masks and zero-masking, IF merged by select,
 * CASE and OP, DEFINE'd helpers, slices at symbolic offsets, wide (256-bit) values
 * shifted by a symbolic amount, scalar and mask results, POPCNT built in. Then the same
 * through a small data file: the .isa text written, the counts, and the report of what
 * was not imported (each at its line, with the construct), and located errors for
 * pseudocode that does not parse.
 */
#include "internal.h"
#include "import/eval.h"
#include "import/intel.h"

#include "testutil.h"

#include <string.h>

typedef struct {
    const char *name, *type; /* tine type of the operand, e.g. "i16x8", "boolx8", "i32" */
    bool sgn;
} operand;

typedef struct {
    const char *what, *text;
    operand ops[4];
    int nops;
    const char *ret; /* the result's type */
    bool ret_sgn;
    /* the model: operand lanes in (sign-extended per type), result lanes out */
    void (*model)(const int64_t *const *in, int64_t *out);
} tcase;

static int64_t clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static void m_adds16(const int64_t *const *in, int64_t *out) {
    for (int j = 0; j < 8; j++) out[j] = clampi(in[0][j] + in[1][j], -32768, 32767);
}
static void m_subus8(const int64_t *const *in, int64_t *out) {
    for (int j = 0; j < 16; j++) out[j] = clampi(in[0][j] - in[1][j], 0, 255);
}
static void m_madd(const int64_t *const *in, int64_t *out) {
    for (int j = 0; j < 4; j++)
        out[j] = (int32_t)(uint32_t)(in[0][2 * j] * in[1][2 * j] + in[0][2 * j + 1] * in[1][2 * j + 1]);
}
static void m_mask_add(const int64_t *const *in, int64_t *out) { /* src, k, a, b */
    for (int j = 0; j < 8; j++) out[j] = in[1][j] ? (uint32_t)(in[2][j] + in[3][j]) : in[0][j];
}
static void m_maskz_sub(const int64_t *const *in, int64_t *out) { /* k, a, b */
    for (int j = 0; j < 4; j++) out[j] = in[0][j] ? (int64_t)((uint64_t)in[1][j] - (uint64_t)in[2][j]) : 0;
}
static void m_srai(const int64_t *const *in, int64_t *out) { /* a (i16), imm */
    int64_t n = in[1][0] & 255;
    for (int j = 0; j < 8; j++) out[j] = (uint16_t)(n > 15 ? (in[0][j] < 0 ? -1 : 0) : in[0][j] >> n);
}
static void m_srli(const int64_t *const *in, int64_t *out) { /* a (u16) by count's low 64 bits */
    uint64_t n = (uint64_t)in[1][0];
    for (int j = 0; j < 8; j++) out[j] = n > 15 ? 0 : (uint16_t)((uint64_t)in[0][j] >> n);
}
static void m_shufb(const int64_t *const *in, int64_t *out) {
    for (int j = 0; j < 16; j++) out[j] = in[1][j] & 0x80 ? 0 : in[0][in[1][j] & 15];
}
static void m_shufd(const int64_t *const *in, int64_t *out) { /* a (u32x4), imm */
    for (int j = 0; j < 4; j++) out[j] = in[0][(in[1][0] >> (2 * j)) & 3];
}
static void m_cmp(const int64_t *const *in, int64_t *out) { /* a, b (i16x8), imm: EQ LT LE FALSE NE NLT NLE TRUE */
    for (int j = 0; j < 8; j++) {
        int64_t a = in[0][j], b = in[1][j];
        bool r[8] = {a == b, a < b, a <= b, false, a != b, a >= b, a > b, true};
        out[j] = r[in[2][0] & 7];
    }
}
static void m_alignr(const int64_t *const *in, int64_t *out) { /* a, b (u8x16), imm: (a:b) >> imm*8 */
    int n = (int)(in[2][0] & 255); /* 32 or more: all zeros */
    for (int j = 0; j < 16; j++) {
        int k = j + n;
        out[j] = k < 16 ? in[1][k] : k < 32 ? in[0][k - 16] : 0;
    }
}
static void m_movemask(const int64_t *const *in, int64_t *out) {
    int64_t r = 0;
    for (int j = 0; j < 16; j++) r |= (int64_t)((in[0][j] >> 7) & 1) << j;
    out[0] = r;
}
static void m_abs(const int64_t *const *in, int64_t *out) {
    for (int j = 0; j < 16; j++) out[j] = in[0][j] < 0 ? -in[0][j] : in[0][j];
}
static void m_minmax(const int64_t *const *in, int64_t *out) { /* max(min(a, b), c) unsigned */
    for (int j = 0; j < 8; j++) {
        int64_t m = in[0][j] < in[1][j] ? in[0][j] : in[1][j];
        out[j] = m > in[2][j] ? m : in[2][j];
    }
}
static void m_insert(const int64_t *const *in, int64_t *out) { /* a (u16x8), i (u16 scalar), imm */
    for (int j = 0; j < 8; j++) out[j] = j == (in[2][0] & 7) ? (uint16_t)in[1][0] : in[0][j];
}
static void m_packus(const int64_t *const *in, int64_t *out) { /* a, b (i16x8) → u8x16 */
    for (int j = 0; j < 8; j++) out[j] = clampi(in[0][j], 0, 255), out[j + 8] = clampi(in[1][j], 0, 255);
}
static void m_sad(const int64_t *const *in, int64_t *out) { /* u8x16 → u64x2 */
    for (int q = 0; q < 2; q++) {
        int64_t s = 0;
        for (int k = 0; k < 8; k++) s += llabs(in[0][8 * q + k] - in[1][8 * q + k]);
        out[q] = s;
    }
}
static void m_rol(const int64_t *const *in, int64_t *out) { /* u32x4 rotated left by imm % 32 */
    unsigned n = (unsigned)(in[1][0] & 255) % 32;
    for (int j = 0; j < 4; j++) {
        uint32_t v = (uint32_t)in[0][j];
        out[j] = n ? (uint32_t)(v << n | v >> (32 - n)) : v;
    }
}

static void m_popcnt(const int64_t *const *in, int64_t *out) {
    for (int j = 0; j < 16; j++) out[j] = __builtin_popcount((unsigned)in[0][j] & 255);
}

static const tcase cases[] = {
    {"signed saturating add (Saturate16 of the exact sum)",
     "FOR j := 0 to 7\n\ti := j*16\n\tdst[i+15:i] := Saturate16(a[i+15:i] + b[i+15:i])\nENDFOR\ndst[MAX:128] := 0\n",
     {{"a", "i16x8", 1}, {"b", "i16x8", 1}}, 2, "i16x8", 1, m_adds16},
    {"unsigned saturating subtract (the difference is exact, then clamped)",
     "FOR j := 0 to 15\n\ti := j*8\n\tdst[i+7:i] := SaturateU8(a[i+7:i] - b[i+7:i])\nENDFOR\n",
     {{"a", "u8x16", 0}, {"b", "u8x16", 0}}, 2, "u8x16", 0, m_subus8},
    {"pairs multiplied and added (the halves of each result lane)",
     "FOR j := 0 to 3\n\ti := j*32\n\tdst[i+31:i] := SignExtend32(a[i+31:i+16]*b[i+31:i+16]) + \\\n"
     "\t                SignExtend32(a[i+15:i]*b[i+15:i])\nENDFOR\n",
     {{"a", "i16x8", 1}, {"b", "i16x8", 1}}, 2, "i32x4", 1, m_madd},
    {"merge-masking",
     "FOR j := 0 to 7\n\ti := j*32\n\tIF k[j]\n\t\tdst[i+31:i] := a[i+31:i] + b[i+31:i]\n\tELSE\n"
     "\t\tdst[i+31:i] := src[i+31:i]\n\tFI\nENDFOR\ndst[MAX:256] := 0\n",
     {{"src", "u32x8", 0}, {"k", "boolx8", 0}, {"a", "u32x8", 0}, {"b", "u32x8", 0}}, 4, "u32x8", 0, m_mask_add},
    {"zero-masking, 64-bit lanes",
     "FOR j := 0 to 3\n\ti := j*64\n\tIF k[j]\n\t\tdst[i+63:i] := a[i+63:i] - b[i+63:i]\n\tELSE\n"
     "\t\tdst[i+63:i] := 0\n\tFI\nENDFOR\n",
     {{"k", "boolx8", 0}, {"a", "u64x4", 0}, {"b", "u64x4", 0}}, 3, "u64x4", 0, m_maskz_sub},
    {"arithmetic shift right of signed lanes, the count guarded",
     "FOR j := 0 to 7\n\ti := j*16\n\tIF imm8[7:0] > 15\n\t\tdst[i+15:i] := (a[i+15] ? 0xFFFF : 0x0)\n\tELSE\n"
     "\t\tdst[i+15:i] := SignExtend16(a[i+15:i] >> imm8[7:0])\n\tFI\nENDFOR\n",
     {{"a", "i16x8", 1}, {"imm8", "i32", 0}}, 2, "u16x8", 0, m_srai},
    {"logical shift right by a 64-bit count from a vector",
     "FOR j := 0 to 7\n\ti := j*16\n\tIF count[63:0] > 15\n\t\tdst[i+15:i] := 0\n\tELSE\n"
     "\t\tdst[i+15:i] := ZeroExtend16(a[i+15:i] >> count[63:0])\n\tFI\nENDFOR\n",
     {{"a", "u16x8", 0}, {"count", "u64x2", 0}}, 2, "u16x8", 0, m_srli},
    {"byte shuffle: a slice at a symbolic offset",
     "FOR j := 0 to 15\n\ti := j*8\n\tIF b[i+7] == 1\n\t\tdst[i+7:i] := 0\n\tELSE\n\t\tindex[3:0] := b[i+3:i]\n"
     "\t\tdst[i+7:i] := a[index*8+7:index*8]\n\tFI\nENDFOR\n",
     {{"a", "u8x16", 0}, {"b", "u8x16", 0}}, 2, "u8x16", 0, m_shufb},
    {"a helper function with CASE on immediate bits",
     "DEFINE PICK(src, control) {\n\tCASE(control[1:0]) OF\n\t0:\ttmp[31:0] := src[31:0]\n\t1:\ttmp[31:0] := src[63:32]\n"
     "\t2:\ttmp[31:0] := src[95:64]\n\t3:\ttmp[31:0] := src[127:96]\n\tESAC\n\tRETURN tmp[31:0]\n}\n"
     "dst[31:0] := PICK(a[127:0], imm8[1:0])\ndst[63:32] := PICK(a[127:0], imm8[3:2])\n"
     "dst[95:64] := PICK(a[127:0], imm8[5:4])\ndst[127:96] := PICK(a[127:0], imm8[7:6])\n",
     {{"a", "u32x4", 0}, {"imm8", "i32", 0}}, 2, "u32x4", 0, m_shufd},
    {"a comparison chosen by the immediate (OP), into a mask",
     "CASE (imm8[2:0]) OF\n0: OP := _MM_CMPINT_EQ\n1: OP := _MM_CMPINT_LT\n2: OP := _MM_CMPINT_LE\n"
     "3: OP := _MM_CMPINT_FALSE\n4: OP := _MM_CMPINT_NE\n5: OP := _MM_CMPINT_NLT\n6: OP := _MM_CMPINT_NLE\n"
     "7: OP := _MM_CMPINT_TRUE\nESAC\nFOR j := 0 to 7\n\ti := j*16\n\tk[j] := ( a[i+15:i] OP b[i+15:i] ) ? 1 : 0\n"
     "ENDFOR\nk[MAX:8] := 0\n",
     {{"a", "i16x8", 1}, {"b", "i16x8", 1}, {"imm8", "i32", 0}}, 3, "boolx8", 0, m_cmp},
    {"a 256-bit concatenation shifted by a symbolic number of bytes",
     "tmp[255:0] := ((a[127:0] << 128)[255:0] OR b[127:0]) >> (imm8*8)\ndst[127:0] := tmp[127:0]\n",
     {{"a", "u8x16", 0}, {"b", "u8x16", 0}, {"imm8", "i32", 0}}, 3, "u8x16", 0, m_alignr},
    {"the lanes' sign bits as a scalar",
     "FOR j := 0 to 15\n\ti := j*8\n\tdst[j] := a[i+7]\nENDFOR\ndst[MAX:16] := 0\n",
     {{"a", "i8x16", 1}}, 1, "i32", 1, m_movemask},
    {"absolute value of signed bytes, unsigned result (|-128| = 128)",
     "FOR j := 0 to 15\n\ti := j*8\n\tdst[i+7:i] := ABS(a[i+7:i])\nENDFOR\n",
     {{"a", "i8x16", 1}}, 1, "u8x16", 0, m_abs},
    {"MIN and MAX of unsigned words",
     "FOR j := 0 to 7\n\ti := j*16\n\tdst[i+15:i] := MAX(MIN(a[i+15:i], b[i+15:i]), c[i+15:i])\nENDFOR\n",
     {{"a", "u16x8", 0}, {"b", "u16x8", 0}, {"c", "u16x8", 0}}, 3, "u16x8", 0, m_minmax},
    {"an assignment at a symbolic offset",
     "dst[127:0] := a[127:0]\nsel := imm8[2:0]*16\ndst[sel+15:sel] := i[15:0]\n",
     {{"a", "u16x8", 0}, {"i", "u16", 0}, {"imm8", "i32", 0}}, 3, "u16x8", 0, m_insert},
    {"unsigned saturation of signed words, two sources",
     "FOR j := 0 to 7\n\tdst.byte[j] := SaturateU8(a.word[j])\n\tdst.byte[j+8] := SaturateU8(b.word[j])\nENDFOR\n",
     {{"a", "i16x8", 1}, {"b", "i16x8", 1}}, 2, "u8x16", 0, m_packus},
    {"sums of absolute differences into 64-bit lanes",
     "FOR j := 0 to 15\n\ti := j*8\n\ttmp[i+7:i] := ABS(a[i+7:i] - b[i+7:i])\nENDFOR\nFOR j := 0 to 1\n\ti := j*64\n"
     "\tdst[i+15:i] := tmp[i+7:i] + tmp[i+15:i+8] + tmp[i+23:i+16] + tmp[i+31:i+24] + \\\n"
     "\t               tmp[i+39:i+32] + tmp[i+47:i+40] + tmp[i+55:i+48] + tmp[i+63:i+56]\n\tdst[i+63:i+16] := 0\nENDFOR\n",
     {{"a", "u8x16", 0}, {"b", "u8x16", 0}}, 2, "u64x2", 0, m_sad},
    {"rotate through a helper, the count taken modulo 32",
     "DEFINE ROL(src, count_src) {\n\tcount := count_src % 32\n\tRETURN (src << count) OR (src >> (32 - count))\n}\n"
     "FOR j := 0 to 3\n\ti := j*32\n\tdst[i+31:i] := ROL(a[i+31:i], imm8[7:0])\nENDFOR\n",
     {{"a", "u32x4", 0}, {"imm8", "i32", 0}}, 2, "u32x4", 0, m_rol},
    {"POPCNT built in: the text's own DO WHILE definition is skipped",
     "DEFINE POPCNT(a) {\n\tcount := 0\n\tDO WHILE a > 0\n\t\tcount += a[0]\n\t\ta >>= 1\n\tOD\n\tRETURN count\n}\n"
     "FOR j := 0 to 15\n\ti := j*8\n\tdst[i+7:i] := POPCNT(a[i+7:i])\nENDFOR\n",
     {{"a", "u8x16", 0}}, 1, "u8x16", 0, m_popcnt},
};

static tine_type_t parse_type(const char *s) {
    tine_type_t t = {0};
    const char *x = strchr(s, 'x');
    size_t n = x ? (size_t)(x - s) : strlen(s);
    TINE_ASSERT(tine_parse_type_name(s, n, &t));
    t.lanes = x ? atoi(x + 1) : 1;
    return t;
}

static uint64_t rng = 0x1b2c3d4e5f60718ull;

/* A random lane of t (values near the edges half the time), sign-extended. */
static int64_t draw(tine_type_t t, int k) {
    if (t.kind == TINE_BOOL) return (int64_t)(tine_rand64(&rng) & 1);
    uint64_t r = tine_rand64(&rng), m = t.bits == 64 ? ~0ull : (1ull << t.bits) - 1;
    uint64_t v = k % 4 == 0 ? r : k % 4 == 1 ? (r & 3) : k % 4 == 2 ? (m - (r & 3)) : ((m >> 1) + (r & 3) - 1);
    v &= m;
    if (t.kind == TINE_INT && t.bits < 64 && (v >> (t.bits - 1)) & 1) v |= ~m;
    return (int64_t)v;
}

static void run_case(const tcase *c, int trials) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_arena arena = {0};
    char err[256];
    p_node *prog = tine_pseudo_parse(&arena, c->text, err, sizeof err);
    if (!prog) {
        fail("%s: does not parse: %s", c->what, err);
        goto out;
    }
    tine_pseudo_arg args[4], ret = {.name = "dst", .type = parse_type(c->ret), .sgn = c->ret_sgn};
    if (!strcmp(c->ret, "boolx8")) ret.name = "k";
    for (int i = 0; i < c->nops; i++) {
        tine_type_t t = parse_type(c->ops[i].type);
        args[i] = (tine_pseudo_arg){c->ops[i].name, tine_var(ctx, c->ops[i].name, t), t, c->ops[i].sgn,
                                    !strcmp(c->ops[i].name, "imm8") ? 8 : 0, 0};
    }
    tine_expr_t *e = tine_pseudo_eval(ctx, &arena, prog, args, c->nops, &ret, false, err, sizeof err);
    if (!e) {
        fail("%s: not translated: %s", c->what, err);
        goto out;
    }
    tine_expr_t *packed = tine_pseudo_compact(ctx, tine_pseudo_tidy(ctx, e));
    /* the lanes, the tidied and packed form and the form with every offset all agree */
    tine_expr_t *every = tine_pseudo_eval(ctx, &arena, prog, args, c->nops, &ret, true, err, sizeof err);
    tine_expr_t *forms[3] = {e, packed, every};
    int64_t in[4][64], out[64];
    const int64_t *inp[4] = {in[0], in[1], in[2], in[3]};
    uint64_t got[64], bits[64];
    long bad = 0;
    for (int trial = 0; trial < trials && bad < 3; trial++) {
        for (int i = 0; i < c->nops; i++) {
            tine_type_t t = args[i].type;
            for (int j = 0; j < t.lanes; j++) in[i][j] = draw(t, trial + j);
            if (trial < 64 && t.lanes == 1) in[i][0] = trial; /* every small immediate */
        }
        c->model(inp, out);
        for (int f = 0; f < 3; f++) {
            if (!forms[f]) continue;
            tine_env_t *env = tine_env_new(ctx);
            for (int i = 0; i < c->nops; i++) {
                for (int j = 0; j < args[i].type.lanes; j++) bits[j] = (uint64_t)in[i][j];
                tine_env_bind(env, args[i].var, bits);
            }
            int rc = tine_eval(ctx, forms[f], env, got);
            tine_env_free(env);
            tine_type_t rt = ret.type;
            uint64_t m = rt.kind == TINE_BOOL ? 1 : rt.bits == 64 ? ~0ull : (1ull << rt.bits) - 1;
            for (int j = 0; j < rt.lanes && !rc; j++)
                if ((got[j] & m) != ((uint64_t)out[j] & m)) {
                    if (bad++ < 3)
                        fail("%s (%s form): lane %d is %#llx, the model says %#llx (first operand lane 0 %lld, "
                             "last operand %lld)",
                             c->what, f == 0 ? "lane" : f == 1 ? "packed" : "every-offset", j,
                             (unsigned long long)(got[j] & m), (unsigned long long)((uint64_t)out[j] & m),
                             (long long)in[0][0], (long long)in[c->nops - 1][0]);
                    break;
                }
            if (rc) {
                fail("%s: the interpreter refused it: %s", c->what, tine_error(ctx));
                bad = 3;
            }
        }
    }
    if (!bad) pass();
out:
    tine_arena_free(&arena);
    tine_ctx_free(ctx);
}

/* Pseudocode the importer does not take: a located message naming the construct. */
static void bad_pseudocode(void) {
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"dst[7:0] := a[7:0] +\n", "1:"},
        {"FOR j := 0 to 3\n\tdst[j] := 1\n", "expected ENDFOR"},
        {"IF a[0]\n\tdst[0] := 1\n", "expected ELSE or FI"},
        {"WHILE a[0]\n\tdst[0] := 1\nOD\n", "WHILE loops are not translated"},
        {"dst[7:0] := Frobnicate(a[7:0])\n", "the function 'Frobnicate'"},
        {"dst[7:0] := q[7:0]\n", "'q' is used before it is set"},
        {"FOR j := 0 to a[3:0]\n\tdst[j] := 1\nENDFOR\n", "not a constant"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tine_ctx_t *ctx = tine_ctx_new();
        tine_arena arena = {0};
        char err[256] = "";
        tine_type_t t = tine_type(TINE_UINT, 8, 16);
        tine_pseudo_arg a = {"a", tine_var(ctx, "a", t), t, false, 0, 0}, ret = {"dst", NULL, t, false, 0, 0};
        p_node *prog = tine_pseudo_parse(&arena, bad[i].text, err, sizeof err);
        tine_expr_t *e = prog ? tine_pseudo_eval(ctx, &arena, prog, &a, 1, &ret, false, err, sizeof err) : NULL;
        check(!e && strstr(err, bad[i].want) && err[0] >= '1' && err[0] <= '9',
              "bad pseudocode %zu: expected a located error with \"%s\", got \"%s\"", i, bad[i].want, err);
        tine_arena_free(&arena);
        tine_ctx_free(ctx);
    }
}

/* A small data file: what is imported, what is listed and why. */
static void data_file(void) {
    static const char xml[] =
        "<intrinsics_list version=\"test\" date=\"2026\">\n"
        "<intrinsic tech=\"SSE2\" name=\"_mm_adds_epi16\">\n\t<type>Integer</type>\n\t<CPUID>SSE2</CPUID>\n"
        "\t<return type=\"__m128i\" varname=\"dst\" etype=\"SI16\"/>\n"
        "\t<parameter type=\"__m128i\" varname=\"a\" etype=\"SI16\"/>\n"
        "\t<parameter type=\"__m128i\" varname=\"b\" etype=\"SI16\"/>\n"
        "\t<operation>\nFOR j := 0 to 7\n\ti := j*16\n\tdst[i+15:i] := Saturate16(a[i+15:i] + b[i+15:i])\nENDFOR\n"
        "\t</operation>\n\t<instruction name=\"PADDSW\" form=\"xmm, xmm\"/>\n</intrinsic>\n"
        "<intrinsic tech=\"AVX-512\" name=\"_mm256_mask_cmplt_epu8_mask\">\n\t<type>Integer</type>\n\t<type>Mask</type>\n"
        "\t<CPUID>AVX512BW</CPUID>\n\t<CPUID>AVX512VL</CPUID>\n"
        "\t<return type=\"__mmask32\" varname=\"k\" etype=\"MASK\"/>\n"
        "\t<parameter type=\"__mmask32\" varname=\"k1\" etype=\"MASK\"/>\n"
        "\t<parameter type=\"__m256i\" varname=\"a\" etype=\"UI8\"/>\n"
        "\t<parameter type=\"__m256i\" varname=\"b\" etype=\"UI8\"/>\n"
        "\t<operation>\nFOR j := 0 to 31\n\ti := j*8\n\tIF k1[j]\n\t\tk[j] := ( a[i+7:i] &lt; b[i+7:i] ) ? 1 : 0\n"
        "\tELSE\n\t\tk[j] := 0\n\tFI\nENDFOR\nk[MAX:32] := 0\n\t</operation>\n</intrinsic>\n"
        "<intrinsic tech=\"SSE2\" name=\"_mm_add_pd\">\n\t<type>Floating Point</type>\n\t<CPUID>SSE2</CPUID>\n"
        "\t<return type=\"__m128d\" varname=\"dst\" etype=\"FP64\"/>\n</intrinsic>\n"
        "<intrinsic tech=\"SSE4.2\" name=\"_mm_cmpistrz\">\n\t<type>Integer</type>\n\t<CPUID>SSE4.2</CPUID>\n"
        "\t<return type=\"int\" varname=\"dst\" etype=\"UI32\"/>\n"
        "\t<parameter type=\"__m128i\" varname=\"a\" etype=\"UI8\"/>\n"
        "\t<operation>\nx := 0\nWHILE x &lt; 3 DO\n\tx := x + 1\nOD\ndst := x\n\t</operation>\n</intrinsic>\n"
        "</intrinsics_list>\n";
    tine_ctx_t *ctx = tine_ctx_new();
    char *text = NULL, *report = NULL;
    int imported = 0, candidates = 0;
    int rc = tine_isa_import_intel(ctx, xml, "guide.xml", NULL, &text, &report, &imported, &candidates);
    check(rc == 0 && imported == 2 && candidates == 3, "data file: %d of %d imported (rc %d), want 2 of 3", imported,
          candidates, rc);
    check(text && strstr(text, "insn mm_adds_epi16(a:i16x8, b:i16x8) = saturating_cast<i16>") &&
              strstr(text, "forms xmm:sse2") && strstr(text, "c _mm_adds_epi16"),
          "data file: the saturating add's entry:\n%s", text ? text : "");
    check(text && strstr(text, "insn mm256_mask_cmplt_epu8_mask(k1:boolx32, a:u8x32, b:u8x32) = ") &&
              strstr(text, "forms ymm:avx512bw+avx512vl"),
          "data file: the masked comparison's entry:\n%s", text ? text : "");
    char want[64];
    int line = 1;
    for (const char *q = xml; q < strstr(xml, "WHILE"); q++) line += *q == '\n';
    snprintf(want, sizeof want, "guide.xml:%d:1: _mm_cmpistrz: WHILE", line);
    check(report && strstr(report, want),
          "data file: the report names the WHILE loop at its line (%s):\n%s", want, report ? report : "");
    check(report && strstr(report, "imported 2 of 3"), "data file: the summary:\n%s", report ? report : "");
    free(text), free(report);
    /* an unknown extension is refused with the closest name */
    rc = tine_isa_import_intel(ctx, xml, "guide.xml", "SSE2,AVX512BX", &text, &report, &imported, &candidates);
    check(rc < 0 && strstr(tine_error(ctx), "did you mean 'AVX512BW'"), "--cpuid AVX512BX: %s", tine_error(ctx));
    /* only the extensions asked for */
    rc = tine_isa_import_intel(ctx, xml, "guide.xml", "SSE2", &text, &report, &imported, &candidates);
    check(rc == 0 && imported == 1 && candidates == 1, "--cpuid SSE2: %d of %d", imported, candidates);
    free(text), free(report);
    tine_ctx_free(ctx);
}

int main(int argc, char **argv) {
    double t0 = now();
    int trials = argc > 1 ? atoi(argv[1]) : 3000; /* random tuples per case: 500 under the sanitizers */
    if (trials < 100) trials = 100;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i], trials);
    bad_pseudocode();
    data_file();
    printf("test_import: %lld passed, %lld failed (%.1f s)\n", g_pass, g_fail, now() - t0);
    return g_fail != 0;
}
