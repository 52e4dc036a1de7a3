/* test_cfront.c — C read through libclang (src/cfront): the tree `tine retarget` rewrites by.
 *
 * 1. A Neon file (aarch64): includes, parameters, a tuple and .val[1], the macros of
 *    arm_neon.h as calls (vld1q_u8, vst1q_u8, vshrq_n_u8) with their arguments' own text,
 *    macros of the file (a call hidden in LOAD(p) and STORE(p, v): from_macro, the range
 *    of the macro call), `#define N 16` as a constant argument, compound assignment,
 *    postfix ++, if/else, a for loop's four parts; types interned.
 * 2. An x86 file (-mavx2): __m128i as i64x2, _mm_set1_epi8 and its argument's conversion,
 *    _mm_slli_si128 and _mm_shuffle_epi32(w, _MM_SHUFFLE(...)) (a macro in a macro's
 *    argument: a constant CALL with its own range).
 * 3. Statements: inline asm, switch, sizeof and enum constants, for (;;), a declaration
 *    of no variable; the file read from disk; tine_cfile_error's form.
 * 4. Errors: a syntax error (located: file:line:col, the line, a caret), an undeclared
 *    function in C11 (an error in clang 19), a missing file, a missing header, an error
 *    in a header (file:line:col only), a bad triple, nesting past the limit; warnings pass.
 * 5. A generated 20,000-line Neon file parses in well under 10 s (the time is printed).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cfront/cfront.h"
#include "testutil.h"

/* ---- helpers -------------------------------------------------------------------------------- */

/* The text of r in f (a static buffer: one at a time). */
static const char *text(const tine_cfile *f, tine_crange r) {
    static char buf[512];
    size_t len;
    const char *t = tine_cfile_text(f, &len);
    size_t n = r.end.off > r.begin.off ? r.end.off - r.begin.off : 0;
    if (r.end.off > len || n >= sizeof buf) return "(out of range)";
    memcpy(buf, t + r.begin.off, n);
    buf[n] = 0;
    return buf;
}

static bool is(const tine_cnode *n, tine_cnode_kind kind, const char *name) {
    return n && n->kind == kind && (!name || (n->name && strcmp(n->name, name) == 0));
}

/* The first node of kind (and name) in n's tree, depth first. */
static const tine_cnode *find(const tine_cnode *n, tine_cnode_kind kind, const char *name) {
    if (!n) return NULL;
    if (is(n, kind, name)) return n;
    for (int i = 0; i < n->nkids; i++) {
        const tine_cnode *r = find(n->kid[i], kind, name);
        if (r) return r;
    }
    return NULL;
}

/* The n-th (0-based) such node. */
static const tine_cnode *find_nth(const tine_cnode *n, tine_cnode_kind kind, const char *name, int *nth) {
    if (!n) return NULL;
    if (is(n, kind, name) && (*nth)-- == 0) return n;
    for (int i = 0; i < n->nkids; i++) {
        const tine_cnode *r = find_nth(n->kid[i], kind, name, nth);
        if (r) return r;
    }
    return NULL;
}
static const tine_cnode *nth(const tine_cnode *n, tine_cnode_kind kind, const char *name, int k) {
    return find_nth(n, kind, name, &k);
}

static int count(const tine_cnode *n, tine_cnode_kind kind) {
    if (!n) return 0;
    int c = n->kind == kind;
    for (int i = 0; i < n->nkids; i++) c += count(n->kid[i], kind);
    return c;
}

static bool vec(const tine_ctype *t, tine_kind_t kind, int bits, int lanes) {
    return t && t->kind == TINE_CT_VECTOR && t->elem.kind == kind && t->elem.bits == bits && t->elem.lanes == lanes;
}

static const char *err(tine_ctx_t *ctx) { return tine_error(ctx) ? tine_error(ctx) : "(no error)"; }

#define TEXT_IS(f, node, want)                                                                     \
    do {                                                                                           \
        const tine_cnode *n_ = (node);                                                             \
        CHECK(n_ && strcmp(text(f, n_->range), want) == 0, "%s:%d: text '%s', want '%s'", __FILE__, \
              __LINE__, n_ ? text(f, n_->range) : "(no node)", want);                              \
    } while (0)

/* ---- 1. Neon ------------------------------------------------------------------------------- */

static const char *const NEON =
    "#include <arm_neon.h>\n"
    "#include <stdint.h>\n"
    "\n"
    "#define N 16\n"
    "#define LOAD(p) vld1q_u8(p)\n"
    "#define ADD(a, b) vaddq_u8(a, b)\n"
    "#define STORE(p, v) vst1q_u8(p, v)\n"
    "\n"
    "void blend(uint8_t *dst, const uint8_t *src, int n) {\n"                  /* 9 */
    "    uint8x16x3_t t = vld3q_u8(src);\n"                                      /* 10 */
    "    uint8x16_t acc = vdupq_n_u8(0), k = vld1q_u8(src + N);\n"               /* 11 */
    "    for (int i = 0; i < n; i++) {\n"                                        /* 12 */
    "        uint8x16_t a = LOAD(src + i * N);\n"                                /* 13 */
    "        a = ADD(a, t.val[1]);\n"                                            /* 14 */
    "        acc = vaddq_u8(acc, vshrq_n_u8(a, 2));\n"                           /* 15 */
    "        if (i & 1) {\n"                                                     /* 16 */
    "            acc += k;\n"                                                    /* 17 */
    "        } else\n"                                                           /* 18 */
    "            acc = veorq_u8(acc, a);\n"                                      /* 19 */
    "        vst1q_u8(dst + i * N, acc);\n"                                      /* 20 */
    "    }\n"                                                                    /* 21 */
    "    STORE(dst, acc);\n"                                                     /* 22 */
    "    n += N;\n"                                                              /* 23 */
    "    n++;\n"                                                                 /* 24 */
    "}\n";

static void check_neon(const tine_cfile *f) {
    CHECK(tine_cfile_nincludes(f) == 2, "two includes, got %d", tine_cfile_nincludes(f));
    const tine_cinclude *i0 = tine_cfile_include(f, 0), *i1 = tine_cfile_include(f, 1);
    CHECK(i0 && strcmp(i0->name, "arm_neon.h") == 0 && i0->angled, "include 0 is <arm_neon.h>");
    CHECK(i1 && strcmp(i1->name, "stdint.h") == 0 && i1->angled, "include 1 is <stdint.h>");
    if (i0) CHECK(strcmp(text(f, i0->range), "#include <arm_neon.h>") == 0, "the include's range: '%s'", text(f, i0->range));
    CHECK(i1 && i1->range.begin.line == 2 && i1->range.begin.col == 1, "the second include is at 2:1");

    CHECK(tine_cfile_nfuncs(f) == 1, "one function, got %d", tine_cfile_nfuncs(f));
    const tine_cfunc *fn = tine_cfile_func(f, 0);
    if (!fn) return;
    CHECK(strcmp(fn->name, "blend") == 0 && fn->ret && fn->ret->kind == TINE_CT_VOID, "blend returns void");
    CHECK(fn->range.begin.line == 9 && fn->range.end.line == 25 && fn->body_range.begin.line == 9 &&
              text(f, fn->body_range)[0] == '{',
          "the function's ranges: %d-%d", fn->range.begin.line, fn->range.end.line);
    CHECK(fn->nparams == 3, "three parameters");
    if (fn->nparams != 3) return;
    const tine_cnode *dst = fn->param[0], *src = fn->param[1], *n = fn->param[2];
    CHECK(is(dst, TINE_CS_DECL, "dst") && dst->is_param && dst->type->kind == TINE_CT_PTR && !dst->type->is_const &&
              strcmp(dst->type->spelling, "uint8_t *") == 0 && dst->type->pointee->kind == TINE_CT_INT &&
              dst->type->pointee->elem.kind == TINE_UINT && dst->type->pointee->elem.bits == 8,
          "dst is uint8_t *");
    CHECK(is(src, TINE_CS_DECL, "src") && src->type->kind == TINE_CT_PTR && src->type->is_const &&
              strcmp(src->type->spelling, "const uint8_t *") == 0 && strcmp(src->type->pointee->spelling, "const uint8_t") == 0,
          "src is const uint8_t * (%s)", src && src->type ? src->type->spelling : "?");
    CHECK(is(n, TINE_CS_DECL, "n") && n->type->kind == TINE_CT_INT && n->type->elem.kind == TINE_INT &&
              n->type->elem.bits == 32 && strcmp(n->type->spelling, "int") == 0,
          "n is int (i32)");
    TEXT_IS(f, src, "const uint8_t *src");

    const tine_cnode *body = fn->body;
    CHECK(is(body, TINE_CS_COMPOUND, NULL) && body->nkids == 7, "the body: 7 statements (two DECLs from one), got %d",
          body ? body->nkids : -1);
    if (!body || body->nkids != 7) return;

    /* uint8x16x3_t t = vld3q_u8(src); */
    const tine_cnode *t = body->kid[0];
    CHECK(is(t, TINE_CS_DECL, "t") && t->type->kind == TINE_CT_TUPLE && t->type->count == 3 &&
              t->type->elem.kind == TINE_UINT && t->type->elem.bits == 8 && t->type->elem.lanes == 16 &&
              strcmp(t->type->spelling, "uint8x16x3_t") == 0 && vec(t->type->pointee, TINE_UINT, 8, 16),
          "t is a tuple of 3 u8x16");
    TEXT_IS(f, t, "uint8x16x3_t t = vld3q_u8(src);");
    const tine_cnode *ld3 = t->nkids ? t->kid[0] : NULL;
    CHECK(is(ld3, TINE_CE_CALL, "vld3q_u8") && ld3->macro_call && !ld3->from_macro && ld3->nkids == 1 &&
              is(ld3->kid[0], TINE_CE_REF, "src") && ld3->kid[0]->decl == src && ld3->type == t->type,
          "vld3q_u8(src): a CALL of arm_neon.h's macro, its argument the parameter src");
    TEXT_IS(f, ld3, "vld3q_u8(src)");

    /* uint8x16_t acc = vdupq_n_u8(0), k = vld1q_u8(src + N); */
    const tine_cnode *acc = body->kid[1], *k = body->kid[2];
    CHECK(is(acc, TINE_CS_DECL, "acc") && is(k, TINE_CS_DECL, "k"), "acc and k: two DECLs");
    CHECK(acc->range.begin.off == k->range.begin.off && acc->range.end.off == k->range.end.off,
          "both with the statement's range");
    TEXT_IS(f, k, "uint8x16_t acc = vdupq_n_u8(0), k = vld1q_u8(src + N);");
    CHECK(vec(acc->type, TINE_UINT, 8, 16) && strcmp(acc->type->spelling, "uint8x16_t") == 0 && acc->type == k->type,
          "acc and k are uint8x16_t (u8x16), one interned type");
    const tine_cnode *dup = acc->nkids ? acc->kid[0] : NULL;
    CHECK(is(dup, TINE_CE_CALL, "vdupq_n_u8") && !dup->macro_call && dup->nkids == 1 && is(dup->kid[0], TINE_CE_INT, NULL) &&
              dup->kid[0]->is_const && dup->kid[0]->value == 0 && dup->kid[0]->conv->elem.bits == 8,
          "vdupq_n_u8(0): a function's CALL, its argument 0 converted to uint8_t");
    const tine_cnode *ld1 = k->nkids ? k->kid[0] : NULL;
    CHECK(is(ld1, TINE_CE_CALL, "vld1q_u8") && ld1->macro_call && ld1->nkids == 1, "vld1q_u8(src + N) is a CALL");
    if (ld1 && ld1->nkids == 1) {
        const tine_cnode *arg = ld1->kid[0];
        TEXT_IS(f, arg, "src + N");
        CHECK(is(arg, TINE_CE_BINARY, "+") && arg->nkids == 2 && is(arg->kid[1], TINE_CE_INT, NULL) &&
                  arg->kid[1]->is_const && arg->kid[1]->value == 16 && arg->kid[1]->from_macro,
              "the argument src + N: N is the constant 16, from a macro");
        if (arg->nkids == 2) TEXT_IS(f, arg->kid[1], "N");
        CHECK(arg->type && arg->type->kind == TINE_CT_PTR && arg->conv && arg->conv != arg->type,
              "src + N is a pointer converted for the builtin (%s)", arg->conv ? arg->conv->spelling : "?");
    }

    /* for (int i = 0; i < n; i++) { ... } */
    const tine_cnode *loop = body->kid[3];
    CHECK(is(loop, TINE_CS_FOR, NULL) && loop->nkids == 4, "the for loop has four kids");
    if (!is(loop, TINE_CS_FOR, NULL) || loop->nkids != 4) return;
    CHECK(is(loop->kid[0], TINE_CS_DECL, "i") && is(loop->kid[1], TINE_CE_BINARY, "<") &&
              is(loop->kid[2], TINE_CE_UNARY, "++") && loop->kid[2]->postfix && is(loop->kid[3], TINE_CS_COMPOUND, NULL),
          "for: [DECL i, i < n, i++ (postfix), body]");
    TEXT_IS(f, loop->kid[0], "int i = 0;");
    TEXT_IS(f, loop->kid[2], "i++");
    const tine_cnode *lb = loop->kid[3];
    CHECK(lb->nkids == 5, "the loop body: 5 statements, got %d", lb->nkids);
    if (lb->nkids != 5) return;
    const tine_cnode *iref = find(loop->kid[1], TINE_CE_REF, "i");
    CHECK(iref && iref->decl == loop->kid[0] && iref->conv == iref->type, "i refers to its DECL");

    /* uint8x16_t a = LOAD(src + i * N); a macro of the file hides vld1q_u8 */
    const tine_cnode *a = lb->kid[0], *load = a->nkids ? a->kid[0] : NULL;
    CHECK(is(load, TINE_CE_CALL, "vld1q_u8") && load->macro_call && load->from_macro && load->nkids == 1,
          "LOAD(...) is the CALL vld1q_u8, from a macro");
    TEXT_IS(f, load, "LOAD(src + i * N)");
    if (load && load->nkids == 1) {
        TEXT_IS(f, load->kid[0], "src + i * N");
        CHECK(load->kid[0]->from_macro, "LOAD's argument is in a macro call");
    }

    /* a = ADD(a, t.val[1]); vaddq_u8, a function, in a macro of the file */
    const tine_cnode *s14 = lb->kid[1];
    CHECK(is(s14, TINE_CS_EXPR, NULL) && is(s14->kid[0], TINE_CE_BINARY, "="), "a = ADD(...) is an assignment");
    TEXT_IS(f, s14, "a = ADD(a, t.val[1]);");
    const tine_cnode *add = find(s14, TINE_CE_CALL, "vaddq_u8");
    CHECK(add && !add->macro_call && add->from_macro && add->nkids == 2, "ADD(...) is the CALL vaddq_u8, from a macro");
    TEXT_IS(f, add, "ADD(a, t.val[1])");
    const tine_cnode *sub = find(s14, TINE_CE_SUBSCRIPT, NULL), *mem = find(s14, TINE_CE_MEMBER, "val");
    CHECK(sub && mem && sub->kid[0] == mem && !mem->arrow && is(mem->kid[0], TINE_CE_REF, "t") && mem->kid[0]->decl == t &&
              mem->type->kind == TINE_CT_ARRAY && mem->type->count == 3 && vec(mem->type->pointee, TINE_UINT, 8, 16) &&
              mem->conv->kind == TINE_CT_PTR && is(sub->kid[1], TINE_CE_INT, NULL) && sub->kid[1]->value == 1 &&
              vec(sub->type, TINE_UINT, 8, 16),
          "t.val[1]: SUBSCRIPT of the MEMBER val (an array of 3 vectors, decayed), a uint8x16_t");
    TEXT_IS(f, sub, "t.val[1]");

    /* acc = vaddq_u8(acc, vshrq_n_u8(a, 2)); */
    const tine_cnode *shr = find(lb->kid[2], TINE_CE_CALL, "vshrq_n_u8");
    CHECK(shr && shr->macro_call && !shr->from_macro && shr->nkids == 2 && is(shr->kid[0], TINE_CE_REF, "a") &&
              is(shr->kid[1], TINE_CE_INT, NULL) && shr->kid[1]->is_const && shr->kid[1]->value == 2,
          "vshrq_n_u8(a, 2) is a CALL with a and the constant 2");
    TEXT_IS(f, shr, "vshrq_n_u8(a, 2)");
    if (shr && shr->nkids == 2) TEXT_IS(f, shr->kid[1], "2");

    /* if (i & 1) { acc += k; } else acc = veorq_u8(acc, a); */
    const tine_cnode *iff = lb->kid[3];
    CHECK(is(iff, TINE_CS_IF, NULL) && iff->nkids == 3 && is(iff->kid[0], TINE_CE_BINARY, "&") &&
              is(iff->kid[1], TINE_CS_COMPOUND, NULL) && is(iff->kid[2], TINE_CS_EXPR, NULL),
          "if/else: [cond, {then}, else statement]");
    const tine_cnode *pluseq = find(iff, TINE_CE_BINARY, "+=");
    CHECK(pluseq && pluseq->nkids == 2 && vec(pluseq->type, TINE_UINT, 8, 16), "acc += k is BINARY +=");
    if (iff && iff->nkids == 3) TEXT_IS(f, iff->kid[2], "acc = veorq_u8(acc, a);");

    /* vst1q_u8(dst + i * N, acc); */
    const tine_cnode *st = lb->kid[4], *st1 = st->nkids ? st->kid[0] : NULL;
    CHECK(is(st, TINE_CS_EXPR, NULL) && is(st1, TINE_CE_CALL, "vst1q_u8") && st1->macro_call && st1->nkids == 2 &&
              st1->type->kind == TINE_CT_VOID,
          "vst1q_u8(...) is a CALL returning void");
    TEXT_IS(f, st, "vst1q_u8(dst + i * N, acc);");
    TEXT_IS(f, st1, "vst1q_u8(dst + i * N, acc)");
    if (st1 && st1->nkids == 2) {
        TEXT_IS(f, st1->kid[0], "dst + i * N");
        TEXT_IS(f, st1->kid[1], "acc");
        CHECK(is(st1->kid[1], TINE_CE_REF, "acc") && st1->kid[1]->decl == acc && !st1->kid[1]->from_macro,
              "vst1q_u8's second argument is acc, written as is");
        CHECK(st1->kid[0]->from_macro, "dst + i * N ends in the macro N");
    }

    /* STORE(dst, acc): vst1q_u8 in a macro of the file, its parameters used out of order */
    const tine_cnode *store = body->kid[4]->nkids ? body->kid[4]->kid[0] : NULL;
    CHECK(is(store, TINE_CE_CALL, "vst1q_u8") && store->from_macro && store->nkids == 2 &&
              is(store->kid[0], TINE_CE_REF, "dst") && is(store->kid[1], TINE_CE_REF, "acc"),
          "STORE(dst, acc) is the CALL vst1q_u8(dst, acc)");
    TEXT_IS(f, store, "STORE(dst, acc)");

    /* n += N; n++; */
    const tine_cnode *ne = body->kid[5]->nkids ? body->kid[5]->kid[0] : NULL;
    CHECK(is(ne, TINE_CE_BINARY, "+=") && ne->kid[0]->decl == n && ne->kid[1]->is_const && ne->kid[1]->value == 16 &&
              ne->from_macro && !body->kid[5]->from_macro,
          "n += N: compound assignment of the constant 16");
    const tine_cnode *inc = body->kid[6]->nkids ? body->kid[6]->kid[0] : NULL;
    CHECK(is(inc, TINE_CE_UNARY, "++") && inc->postfix && !inc->is_const, "n++ is a postfix ++");
    TEXT_IS(f, body->kid[6], "n++;");
    CHECK(body->kid[6]->range.begin.line == 24 && body->kid[6]->range.begin.col == 5, "n++ is at 24:5");
}

static void test_neon(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_cfile *f = tine_cfront_parse(ctx, "neon_blend.c", NEON, NULL, 0, "aarch64-linux-gnu");
    CHECK(f != NULL, "the Neon file parses for aarch64: %s", err(ctx));
    if (f) {
        size_t len;
        CHECK(strcmp(tine_cfile_text(f, &len), NEON) == 0 && len == strlen(NEON) &&
                  strcmp(tine_cfile_path(f), "neon_blend.c") == 0,
              "the file's text and path");
        check_neon(f);
    }
    tine_cfile_free(f);
    /* the host cannot parse it: arm_neon.h refuses x86 */
    tine_clear_error(ctx);
    f = tine_cfront_parse(ctx, "neon_blend.c", NEON, NULL, 0, "x86_64-linux-gnu");
    CHECK(!f && strstr(err(ctx), "arm_neon.h"), "arm_neon.h on x86 is clang's error: %s", err(ctx));
    tine_cfile_free(f);
    tine_ctx_free(ctx);
}

/* ---- 2. x86 -------------------------------------------------------------------------------- */

static void test_x86(void) {
    static const char *const X86 =
        "#include <immintrin.h>\n"
        "__m128i f(__m128i v, const __m128i *p) {\n"
        "    __m128i s = _mm_set1_epi8(3);\n"
        "    __m128i w = _mm_slli_si128(v, 4);\n"
        "    __m256i y = _mm256_setzero_si256();\n"
        "    s = _mm_add_epi8(s, _mm_loadu_si128(p));\n"
        "    return _mm_shuffle_epi32(w, _MM_SHUFFLE(0, 1, 2, 3));\n"
        "}\n";
    tine_ctx_t *ctx = tine_ctx_new();
    const char *args[] = {"-mavx2", "-std=c11"};
    tine_cfile *f = tine_cfront_parse(ctx, "x86.c", X86, args, 2, "x86_64-linux-gnu");
    CHECK(f != NULL, "the x86 file parses with -mavx2: %s", err(ctx));
    const tine_cfunc *fn = f ? tine_cfile_func(f, 0) : NULL;
    if (!fn || !fn->body || fn->body->nkids != 5) {
        fail("f's body has 5 statements");
        tine_cfile_free(f);
        tine_ctx_free(ctx);
        return;
    }
    CHECK(vec(fn->ret, TINE_INT, 64, 2) && strcmp(fn->ret->spelling, "__m128i") == 0, "f returns __m128i (i64x2)");
    CHECK(fn->param[1]->type->kind == TINE_CT_PTR && fn->param[1]->type->is_const &&
              vec(fn->param[1]->type->pointee, TINE_INT, 64, 2) &&
              strcmp(fn->param[1]->type->pointee->spelling, "const __m128i") == 0 && fn->param[0]->type == fn->ret,
          "p points to const __m128i; v's type and f's are one interned type");
    const tine_cnode *s = fn->body->kid[0], *set1 = s->kid[0];
    CHECK(vec(s->type, TINE_INT, 64, 2) && strcmp(s->type->spelling, "__m128i") == 0, "s is __m128i");
    CHECK(is(set1, TINE_CE_CALL, "_mm_set1_epi8") && !set1->macro_call && set1->nkids == 1 &&
              set1->kid[0]->is_const && set1->kid[0]->value == 3 && set1->kid[0]->type->elem.bits == 32 &&
              strcmp(set1->kid[0]->conv->spelling, "char") == 0,
          "_mm_set1_epi8(3): its argument an int converted to char");
    const tine_cnode *sl = fn->body->kid[1]->kid[0];
    CHECK(is(sl, TINE_CE_CALL, "_mm_slli_si128") && sl->macro_call && sl->nkids == 2 && is(sl->kid[0], TINE_CE_REF, "v") &&
              sl->kid[0]->decl == fn->param[0] && sl->kid[1]->value == 4,
          "_mm_slli_si128(v, 4): a macro's CALL");
    TEXT_IS(f, sl, "_mm_slli_si128(v, 4)");
    CHECK(vec(fn->body->kid[2]->type, TINE_INT, 64, 4) && strcmp(fn->body->kid[2]->type->spelling, "__m256i") == 0,
          "y is __m256i (i64x4)");
    const tine_cnode *ld = find(fn->body->kid[3], TINE_CE_CALL, "_mm_loadu_si128");
    CHECK(ld && ld->nkids == 1 && is(ld->kid[0], TINE_CE_REF, "p"), "_mm_loadu_si128(p)");
    const tine_cnode *ret = fn->body->kid[4], *sh = ret->kid[0];
    TEXT_IS(f, ret, "return _mm_shuffle_epi32(w, _MM_SHUFFLE(0, 1, 2, 3));");
    CHECK(is(sh, TINE_CE_CALL, "_mm_shuffle_epi32") && sh->macro_call && sh->nkids == 2, "_mm_shuffle_epi32 is a CALL");
    if (sh && sh->nkids == 2) {
        const tine_cnode *m = sh->kid[1];
        CHECK(is(m, TINE_CE_CALL, "_MM_SHUFFLE") && m->macro_call && m->nkids == 4 && m->is_const && m->value == 27 &&
                  !m->from_macro,
              "_MM_SHUFFLE(0, 1, 2, 3) is a constant CALL (27), got %lld", m ? (long long)m->value : -1);
        TEXT_IS(f, m, "_MM_SHUFFLE(0, 1, 2, 3)");
        if (m && m->nkids == 4) TEXT_IS(f, m->kid[3], "3");
    }
    tine_cfile_free(f);
    tine_ctx_free(ctx);
}

/* ---- 3. statements; from disk; tine_cfile_error ------------------------------------------------ */

static void test_statements(void) {
    static const char *const SRC =
        "enum { E = 5 };\n"
        "static inline int h(int *p, int c) {\n"
        "    int x = 1;\n"
        "    __asm__ volatile(\"\" : \"+r\"(x));\n"
        "    typedef int T;\n"
        "    int a[4];\n"
        "    switch (c) { case 1: x++; break; default: x--; }\n"
        "    for (;;) break;\n"
        "    while (x > 0) { x -= 2; continue; }\n"
        "    do x++; while (x < 3);\n"
        "    ;\n"
        "    *p = c ? x : -x;\n"
        "    return (int)sizeof(a) + E + 3 * 4;\n"
        "}\n";
    char dir[] = "/tmp/test_cfront_XXXXXX";
    if (!mkdtemp(dir)) {
        fail("mkdtemp");
        return;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/stmts.c", dir);
    FILE *fp = fopen(path, "w");
    fputs(SRC, fp);
    fclose(fp);
    tine_ctx_t *ctx = tine_ctx_new();
    tine_cfile *f = tine_cfront_parse(ctx, path, NULL, NULL, 0, NULL);
    CHECK(f != NULL, "a file read from disk parses for the host: %s", err(ctx));
    const tine_cfunc *fn = f ? tine_cfile_func(f, 0) : NULL;
    if (fn && fn->body && fn->body->nkids == 11) {
        const tine_cnode *const *k = (const tine_cnode *const *)fn->body->kid;
        CHECK(strcmp(tine_cfile_text(f, NULL), SRC) == 0, "the text read from disk");
        CHECK(fn->is_static && fn->is_inline && fn->ret->kind == TINE_CT_INT, "static inline int h");
        CHECK(is(k[1], TINE_CS_ASM, NULL) && k[1]->nkids >= 1 && is(k[1]->kid[0], TINE_CE_REF, "x"), "asm is ASM");
        TEXT_IS(f, k[1], "__asm__ volatile(\"\" : \"+r\"(x));");
        CHECK(is(k[2], TINE_CS_OTHER, NULL) && k[2]->nkids == 0, "a typedef is OTHER");
        CHECK(is(k[3], TINE_CS_DECL, "a") && k[3]->type->kind == TINE_CT_ARRAY && k[3]->type->count == 4 && !k[3]->nkids,
              "int a[4]: an ARRAY of 4, no init");
        CHECK(is(k[4], TINE_CS_OTHER, NULL) && k[4]->nkids == 2 && count(k[4], TINE_CS_BREAK) == 1 &&
                  find(k[4], TINE_CE_UNARY, "--"),
              "switch is OTHER [cond, body] with its statements");
        CHECK(is(k[5], TINE_CS_FOR, NULL) && k[5]->nkids == 4 && !k[5]->kid[0] && !k[5]->kid[1] && !k[5]->kid[2] &&
                  is(k[5]->kid[3], TINE_CS_BREAK, NULL),
              "for (;;) break: three parts absent");
        TEXT_IS(f, k[5]->kid[3], "break;");
        CHECK(is(k[6], TINE_CS_WHILE, NULL) && k[6]->nkids == 2 && count(k[6], TINE_CS_CONTINUE) == 1 &&
                  find(k[6], TINE_CE_BINARY, "-="),
              "while: [cond, body]");
        CHECK(is(k[7], TINE_CS_DO, NULL) && is(k[7]->kid[0], TINE_CS_EXPR, NULL) && is(k[7]->kid[1], TINE_CE_BINARY, "<"),
              "do: [body, cond]");
        TEXT_IS(f, k[7], "do x++; while (x < 3);");
        CHECK(is(k[8], TINE_CS_NULL, NULL), "; is NULL");
        const tine_cnode *cond = find(k[9], TINE_CE_COND, NULL);
        CHECK(cond && cond->nkids == 3 && is(find(k[9], TINE_CE_UNARY, "*"), TINE_CE_UNARY, "*") &&
                  find(cond, TINE_CE_UNARY, "-"),
              "*p = c ? x : -x");
        const tine_cnode *r = k[10]->kid[0];
        CHECK(is(k[10], TINE_CS_RETURN, NULL) && r && r->is_const && r->value == 16 + 5 + 12,
              "the return value is the constant 33, got %lld", r ? (long long)r->value : -1);
        const tine_cnode *so = find(r, TINE_CE_OTHER, "sizeof"), *e = find(r, TINE_CE_REF, "E");
        CHECK(so && so->is_const && so->value == 16 && e && e->is_const && e->value == 5 && !e->decl,
              "sizeof(a) is 16, E is 5");
        if (so) TEXT_IS(f, so, "sizeof(a)");
        /* a located message at a node */
        tine_cfile_error(ctx, f, k[3]->range.begin, "arrays are %s", "refused");
        char want[256];
        snprintf(want, sizeof want, "%s:6:5: arrays are refused\n    int a[4];\n    ^", path);
        CHECK(strcmp(err(ctx), want) == 0, "tine_cfile_error: '%s'", err(ctx));
    } else fail("h's body has 11 statements, got %d", fn && fn->body ? fn->body->nkids : -1);
    tine_cfile_free(f);
    unlink(path);
    rmdir(dir);
    tine_ctx_free(ctx);
}

/* ---- 4. errors ---------------------------------------------------------------------------- */

static void expect_error(const char *what, const char *path, const char *src, const char *const *args, int nargs,
                         const char *triple, const char *const *want, int nwant) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_cfile *f = tine_cfront_parse(ctx, path, src, args, nargs, triple);
    CHECK(!f, "%s: refused", what);
    CHECK(tine_error(ctx) != NULL, "%s: an error is set", what);
    for (int i = 0; i < nwant; i++) CHECK(strstr(err(ctx), want[i]) != NULL, "%s: '%s' in: %s", what, want[i], err(ctx));
    tine_cfile_free(f);
    tine_ctx_free(ctx);
}

static void test_errors(void) {
    const char *c11[] = {"-std=c11"};
    expect_error("a syntax error", "bad.c", "int f(int x) {\n  return x +;\n}\n", NULL, 0, NULL,
                 (const char *[]){"bad.c:2:13: expected expression\n  return x +;\n            ^"}, 1);
    expect_error("an undeclared function in C11", "undeclared.c", "int f(int x) {\n  return foo(x);\n}\n", c11, 1,
                 "aarch64-linux-gnu", (const char *[]){"undeclared.c:2:10: ", "undeclared function 'foo'", "\n  return foo(x);\n         ^"},
                 3);
    expect_error("a missing file", "/nonexistent/dir/k.c", NULL, NULL, 0, NULL,
                 (const char *[]){"/nonexistent/dir/k.c: cannot read the file"}, 1);
    expect_error("a missing header", "inc.c", "#include \"nope.h\"\nint x;\n", NULL, 0, NULL,
                 (const char *[]){"inc.c:1:10: 'nope.h' file not found\n#include \"nope.h\"\n         ^"}, 1);
    expect_error("a bad target triple", "t.c", "int x;\n", NULL, 0, "no-such-triple",
                 (const char *[]){"t.c: libclang could not parse"}, 1);
    expect_error("an unknown argument", "t.c", "int x;\n", (const char *[]){"-fno-such-flag"}, 1, NULL,
                 (const char *[]){"t.c: unknown argument"}, 1);
    expect_error("a macro's error", "m.c", "#define BAD(x) (x +)\nint f(int a) { return BAD(a); }\n", NULL, 0, NULL,
                 (const char *[]){"m.c:"}, 1);

    /* an error in a header: its place, no line and caret of the main file */
    char dir[] = "/tmp/test_cfront_XXXXXX";
    if (mkdtemp(dir)) {
        char hpath[128], cpath[128];
        snprintf(hpath, sizeof hpath, "%s/broken.h", dir);
        snprintf(cpath, sizeof cpath, "%s/main.c", dir);
        FILE *fp = fopen(hpath, "w");
        fputs("int ok;\nint bad = ;\n", fp);
        fclose(fp);
        tine_ctx_t *ctx = tine_ctx_new();
        tine_cfile *f = tine_cfront_parse(ctx, cpath, "#include \"broken.h\"\nint y;\n", NULL, 0, NULL);
        char want[160];
        snprintf(want, sizeof want, "%s:2:11: expected expression", hpath);
        CHECK(!f && strcmp(err(ctx), want) == 0, "an error in a header: '%s', want '%s'", err(ctx), want);
        tine_cfile_free(f);
        tine_ctx_free(ctx);
        unlink(hpath);
        rmdir(dir);
    }

    /* warnings pass */
    tine_ctx_t *ctx = tine_ctx_new();
    const char *wall[] = {"-Wall", "-Wextra"};
    tine_cfile *f = tine_cfront_parse(ctx, "w.c", "int f(int a) { int unused; return 0; }\n", wall, 2, NULL);
    CHECK(f && tine_cfile_nfuncs(f) == 1, "warnings are ignored: %s", err(ctx));
    tine_cfile_free(f);

    /* nested past the limit: a located limit error, no crash; a sum of 900 terms is fine */
    for (int terms = 900; terms <= 3000; terms += 2100) {
        tine_buf b = {0};
        tine_buf_puts(&b, "int f(int a) {\n    return a");
        for (int i = 1; i < terms; i++) tine_buf_puts(&b, " + a");
        tine_buf_puts(&b, ";\n}\n");
        tine_clear_error(ctx);
        f = tine_cfront_parse(ctx, "deep.c", b.p, NULL, 0, NULL);
        if (terms < 1000) CHECK(f != NULL, "a sum of %d terms parses: %s", terms, err(ctx));
        else
            CHECK(!f && tine_error_kind(ctx) == TINE_ERROR_LIMIT && strstr(err(ctx), "deep.c:2:") &&
                      strstr(err(ctx), "nested more than 1000 deep"),
                  "a sum of %d terms is a limit error: %s", terms, err(ctx));
        tine_cfile_free(f);
        free(b.p);
    }
    tine_ctx_free(ctx);
}

/* ---- 5. a large file ------------------------------------------------------------------------ */

static void test_large(void) {
    enum { FUNCS = 2000 };
    tine_buf b = {0};
    tine_buf_puts(&b, "#include <arm_neon.h>\n#include <stdint.h>\n");
    for (int i = 0; i < FUNCS; i++)
        tine_buf_printf(&b,
                        "void k%d(uint8_t *d, const uint8_t *s, int n) {\n"
                        "    for (int i = 0; i < n; i += 16) {\n"
                        "        uint8x16_t a = vld1q_u8(s + i);\n"
                        "        uint8x16_t b = vld1q_u8(s + i + 16);\n"
                        "        a = vaddq_u8(a, vshrq_n_u8(b, %d));\n"
                        "        vst1q_u8(d + i, a);\n"
                        "        d[i] += s[i] * 3;\n"
                        "    }\n"
                        "}\n"
                        "\n",
                        i, i % 7 + 1);
    int lines = 0;
    for (size_t i = 0; i < b.n; i++) lines += b.p[i] == '\n';
    tine_ctx_t *ctx = tine_ctx_new();
    double t0 = now();
    tine_cfile *f = tine_cfront_parse(ctx, "large.c", b.p, NULL, 0, "aarch64-linux-gnu");
    double t = now() - t0;
    printf("test_cfront: a %d-line Neon file (%d functions) parsed and walked in %.2f s\n", lines, FUNCS, t);
    CHECK(lines >= 20000 && f && tine_cfile_nfuncs(f) == FUNCS, "the large file parses: %s", err(ctx));
    CHECK(t < 10.0, "in under 10 s (%.2f s)", t);
    const tine_cfunc *last = f ? tine_cfile_func(f, FUNCS - 1) : NULL;
    const tine_cnode *shr = last ? find(last->body, TINE_CE_CALL, "vshrq_n_u8") : NULL;
    CHECK(shr && shr->nkids == 2 && shr->kid[1]->is_const && shr->kid[1]->value == (FUNCS - 1) % 7 + 1 &&
              nth(last->body, TINE_CE_CALL, "vld1q_u8", 1),
          "the last function's calls are there");
    tine_cfile_free(f);
    tine_ctx_free(ctx);
    free(b.p);
}

int main(void) {
    const char *rd = tine_cfront_resource_dir();
    printf("test_cfront: clang's resource directory %s\n", rd ? rd : "(libclang's own)");
    test_neon();
    test_x86();
    test_statements();
    test_errors();
    test_large();
    printf("test_cfront: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
