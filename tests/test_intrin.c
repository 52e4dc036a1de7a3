/* test_intrin.c — the C intrinsics `tine retarget` knows by name (src/targets/intrin.c),
 * each against the real one.
 *
 * 1. Every intrinsic tine_intrin_each gives for arm and x86 resolves and applies to
 *    variables; each name comes once, and no .intrin line names an intrinsic an
 *    instruction description gives (the instruction's semantics is its one definition:
 *    the names each gives after the descriptions' forms must come from the .intrin file).
 * 2. Coverage: every integer intrinsic of clang-19's arm_neon.h in the families
 *    neon.intrin and arm.isa cover (FAMILIES below) resolves.
 * 3. Silicon: every intrinsic of neon.intrin and of arm.isa is called through arm_neon.h
 *    in one static AArch64 program (clang-19, run under qemu-aarch64), and every one of
 *    x86.intrin this CPU has through <immintrin.h> in a native program, on test vectors:
 *    edge values (0, 1, -1, min, max, min+1, max-1, alternating bits) in every lane and
 *    mixed across lanes, small counts and table indices, and random lanes; immediates at
 *    the low and high ends of their range and the middle; loads read a buffer, stores write
 *    one whose bytes around the store must stay. Every result lane is compared with tine's
 *    interpreter on what tine_intrin_apply gives (a load's `mem` bound to the buffer's
 *    elements; a store's value to the bytes written), bit for bit, except that where
 *    tine's float lane is a NaN the machine's only has to be one (docs/SEMANTICS.md). The inputs are written by this
 *    program to a file the generated program reads, so that both see the same bytes.
 * 4. A broken description (tine_intrin_read_text) gives an error naming the file and the
 *    line.
 *
 * One exception, in one marked place: EXPECTED FAILURE (vreinterpret and vcreate while the
 * IR's reinterpret cannot change the lane size).
 *
 * Skipped (with a note): the AArch64 part where clang-19 cannot build static AArch64
 * programs or qemu-aarch64 is missing; the x86 part where clang-19 is missing.
 *
 * Usage: test_intrin [-v] [--keep] [--random N] [--only NAME] [--family arm|x86]
 *   --random N: random vectors per case besides the 29 of edges, counts and indices (default 4)
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "ir/ast.h"
#include "targets/intrin.h"
#include "retarget/retarget.h"
#include "verify/smt.h"

#include "testutil.h"
#include "edges.h" /* g_is_nan */

#include <ctype.h>
#include <sys/stat.h>
#include <unistd.h>

static bool verbose, keep;
static int nrandom = 4;
static const char *only;

/* ---- the expected failure ---------------------------------------------------------------- */

/* EXPECTED FAILURE, in this one place: vreinterpret and vcreate change the lane size at
 * equal total bits (reinterpret<u16x8>(a_u8x16)), which the IR's reinterpret takes only
 * once its extension (src/ir/expr.c tine_bitcast, the elaborator's reinterpret<u16x8>) is
 * in the tree. Where it is not, their lines do not resolve, and the test says so and goes
 * on. Delete this function and its calls once the extension has landed. */
static bool bitcast_missing;
static bool expected_failure(const char *name) {
    return bitcast_missing && (!strncmp(name, "vreinterpret", 12) || !strncmp(name, "vcreate", 7));
}
static void probe_bitcast(tine_ctx_t *ctx) {
    bitcast_missing = tine_parse(ctx, "reinterpret<u16x8>(a_u8x16)", "probe") == NULL;
    tine_clear_error(ctx);
    if (bitcast_missing)
        printf("test_intrin: EXPECTED FAILURE: reinterpret across lane sizes is not in the IR yet: vreinterpret* and "
               "vcreate* are not checked\n");
}

/* ---- 1. every intrinsic resolves and applies ---------------------------------------------- */

typedef struct {
    tine_ctx_t *ctx;
    const char *file; /* the family's .intrin file, as intrin.c names it */
    int nforms;       /* the instruction descriptions' forms with a C name: each gives them first */
    int seen;
    char **names;
    int n, cap;
} resolve_st;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Variables of each parameter's type; immediates at the low end of their range. */
static int make_args(tine_ctx_t *ctx, const tine_intrin *in, const char *prefix, tine_expr_t **args, int64_t *imms,
                     const int64_t *given) {
    int na = 0, ni = 0;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *pp = &in->param[k];
        if (pp->kind == TINE_IP_IMM) {
            imms[ni] = given ? given[ni] : pp->lo <= pp->hi ? pp->lo : 0;
            ni++;
            continue;
        }
        if (pp->kind == TINE_IP_PTR) continue;
        for (int j = 0; j < (pp->kind == TINE_IP_TUPLE ? pp->n : 1); j++) {
            char vn[32];
            snprintf(vn, sizeof vn, "%s%d", prefix, na);
            args[na++] = tine_var(ctx, vn, pp->type);
        }
    }
    return na;
}

static bool resolve_one(void *user, const tine_intrin *in) {
    resolve_st *st = user;
    tine_ctx_t *ctx = st->ctx;
    bool from_line = st->seen++ >= st->nforms;
    /* the forms come first, each from a description; then the lines' names, each from the
       .intrin file (a line naming an instruction's intrinsic resolves to the instruction) */
    check(from_line == (in->from == st->file || !strcmp(in->from, st->file)),
          "%s: from %s, but it is named by %s", in->name, in->from, from_line ? st->file : "an instruction description");
    TINE_GROW(st->names, st->n + 1, st->cap);
    st->names[st->n++] = tine_strdup(in->name);
    tine_expr_t *args[TINE_INTRIN_MAX_PARAMS * 4], *res[TINE_INTRIN_MAX_RESULTS];
    int64_t imms[TINE_INTRIN_MAX_PARAMS];
    make_args(ctx, in, "r", args, imms, NULL);
    tine_expr_t *mem = in->mem == TINE_INTRIN_LOAD
                           ? tine_var(ctx, "rmem", tine_type_with_lanes(in->mem_elem, in->mem_lanes))
                           : NULL;
    bool ok = tine_intrin_apply(ctx, in, args, imms, mem, res);
    check(ok, "%s: does not apply: %s", in->name, ok ? "" : tine_error(ctx));
    if (!ok) {
        tine_clear_error(ctx);
        return true;
    }
    if (in->mem == TINE_INTRIN_STORE) {
        check(in->mem_lanes >= 1 && res[0]->type.lanes == in->mem_lanes && res[0]->type.bits == in->mem_elem.bits,
              "%s: the store writes %d lanes of %d bits, not %d of %d", in->name, res[0]->type.lanes, res[0]->type.bits,
              in->mem_lanes, in->mem_elem.bits);
    } else {
        check(in->nresults >= 1, "%s: no result", in->name);
        for (int r = 0; r < in->nresults; r++)
            check(tine_type_eq(res[r]->type, in->result[r]), "%s: result %d's type differs from the one found", in->name,
                  r);
    }
    for (int k = 0; k < in->nparams; k++)
        if (in->param[k].kind == TINE_IP_IMM && in->param[k].lo <= in->param[k].hi) {
            /* one past the range is refused */
            int64_t bad[TINE_INTRIN_MAX_PARAMS];
            make_args(ctx, in, "r", args, bad, NULL);
            int ii = 0;
            for (int j = 0; j < k; j++) ii += in->param[j].kind == TINE_IP_IMM;
            bad[ii] = in->param[k].hi + 1;
            bool refused = !tine_intrin_apply(ctx, in, args, bad, mem, res);
            check(refused, "%s: immediate %s at %d, past its range, is taken", in->name, in->param[k].name,
                  in->param[k].hi + 1);
            tine_clear_error(ctx);
        }
    return true;
}

/* The instruction descriptions' forms with a C name (what tine_intrin_each gives first). */
static int count_forms(tine_ctx_t *ctx, const char *fam) {
    const tine_isa *isa = tine_isa_get(ctx, strcmp(fam, "x86") ? "arm" : "x86gen");
    int n = 0;
    for (int k = 0; isa && k < isa->n; k++)
        for (int f = 0; f < isa->insn[k].nforms; f++) n += isa->insn[k].form[f].c != NULL;
    return n;
}

static int test_resolve(tine_ctx_t *ctx, const char *fam, const char *file) {
    resolve_st st = {.ctx = ctx, .file = file};
    st.nforms = count_forms(ctx, fam);
    bool ok = tine_intrin_each(ctx, fam, resolve_one, &st);
    ok = ok || (bitcast_missing && strstr(tine_error(ctx), "reinterpret")); /* the expected failure */
    check(ok, "%s: tine_intrin_each: %s", fam, ok ? "" : tine_error(ctx));
    tine_clear_error(ctx);
    qsort(st.names, (size_t)st.n, sizeof *st.names, cmp_str);
    for (int i = 1; i < st.n; i++)
        check(strcmp(st.names[i - 1], st.names[i]) != 0, "%s: %s is given twice (one meaning per name)", fam,
              st.names[i]);
    for (int i = 0; i < st.n; i++) free(st.names[i]);
    free(st.names);
    check(st.seen > st.nforms, "%s: the description gives no intrinsic of its own", fam);
    printf("test_intrin: %s: %d intrinsics resolve (%d instruction forms, %d from %s)\n", fam, st.seen, st.nforms,
           st.seen - st.nforms, file);
    return st.seen;
}

/* ---- 2. arm_neon.h coverage --------------------------------------------------------------- */

/* The families of integer intrinsics tine covers, each a name without its element type
 * and without the q of a q form (vaddq_u8: vadd; vdupq_laneq_u8: vdup_laneq;
 * vld1q_u8_x2: vld1_x2). vreinterpret* all. */
static const char *const FAMILIES[] = {
    /* arithmetic */
    "vadd", "vsub", "vmul", "vmla", "vmls", "vmul_n", "vmla_n", "vmls_n", "vmul_lane", "vmul_laneq", "vmla_lane",
    "vmla_laneq", "vmls_lane", "vmls_laneq", "vmull", "vmull_n", "vmull_lane", "vmull_laneq", "vmull_high",
    "vmull_high_n", "vmull_high_lane", "vmull_high_laneq", "vmlal", "vmlal_n", "vmlal_lane", "vmlal_laneq",
    "vmlal_high", "vmlal_high_n", "vmlal_high_lane", "vmlal_high_laneq", "vmlsl", "vmlsl_n", "vmlsl_lane",
    "vmlsl_laneq", "vmlsl_high", "vmlsl_high_n", "vmlsl_high_lane", "vmlsl_high_laneq", "vneg", "vabs", "vqneg",
    "vqabs", "vpadd", "vpaddl", "vpadal", "vaddv", "vaddlv", "vmaxv", "vminv", "vhadd", "vrhadd", "vhsub", "vqadd",
    "vqsub", "vabd", "vaba", "vabdl", "vabal", "vabdl_high", "vabal_high", "vaddl", "vaddw", "vsubl", "vsubw",
    "vaddl_high", "vaddw_high", "vsubl_high", "vsubw_high", "vaddhn", "vraddhn", "vsubhn", "vrsubhn", "vaddhn_high",
    "vraddhn_high", "vsubhn_high", "vrsubhn_high", "vqdmulh", "vqdmulh_n", "vqdmulh_lane", "vqdmulh_laneq",
    "vqrdmulh", "vqrdmulh_n", "vqrdmulh_lane", "vqrdmulh_laneq", "vqdmull", "vqdmull_n", "vqdmull_lane",
    "vqdmull_laneq", "vqdmull_high", "vqdmull_high_n", "vqdmull_high_lane", "vqdmull_high_laneq", "vqdmlal",
    "vqdmlal_n", "vqdmlal_lane", "vqdmlal_laneq", "vqdmlal_high", "vqdmlal_high_n", "vqdmlal_high_lane",
    "vqdmlal_high_laneq", "vqdmlsl", "vqdmlsl_n", "vqdmlsl_lane", "vqdmlsl_laneq", "vqdmlsl_high", "vqdmlsl_high_n",
    "vqdmlsl_high_lane", "vqdmlsl_high_laneq", "vqrdmlah", "vqrdmlah_lane", "vqrdmlah_laneq", "vdot", "vdot_lane",
    "vdot_laneq", "vmax", "vmin", "vpmax", "vpmin", "vuqadd", "vsqadd",
    /* logic */
    "vand", "vorr", "veor", "vbic", "vorn", "vmvn", "vbsl", "vtst",
    /* shifts */
    "vshl_n", "vshr_n", "vsra_n", "vrshr_n", "vrsra_n", "vshrn_n", "vrshrn_n", "vqshrn_n", "vqrshrn_n", "vqshrun_n",
    "vqrshrun_n", "vshll_n", "vshl", "vrshl", "vqshl", "vqrshl", "vqshl_n", "vqshlu_n", "vsli_n", "vsri_n",
    "vshrn_high_n", "vrshrn_high_n", "vqshrn_high_n", "vqrshrn_high_n", "vqshrun_high_n", "vqrshrun_high_n",
    "vshll_high_n",
    /* narrowing, widening */
    "vmovl", "vmovn", "vqmovn", "vqmovun", "vmovl_high", "vmovn_high", "vqmovn_high", "vqmovun_high",
    /* comparisons */
    "vceq", "vcge", "vcgt", "vcle", "vclt", "vceqz", "vcgez", "vcgtz", "vclez", "vcltz",
    /* lanes */
    "vdup_n", "vmov_n", "vdup_lane", "vdup_laneq", "vget_low", "vget_high", "vcombine", "vget_lane", "vset_lane",
    "vcopy_lane", "vcopy_laneq", "vext", "vrev16", "vrev32", "vrev64", "vzip", "vuzp", "vtrn", "vzip1", "vzip2",
    "vuzp1", "vuzp2", "vtrn1", "vtrn2", "vqtbl1", "vqtbl2", "vqtbl3", "vqtbl4", "vqtbx1", "vqtbx2", "vqtbx3",
    "vqtbx4", "vtbl1", "vtbl2", "vtbl3", "vtbl4", "vtbx1", "vtbx2", "vtbx3", "vtbx4", "vcnt", "vclz", "vcls",
    "vcreate", "vdupb_lane", "vduph_lane", "vdups_lane", "vdupd_lane", "vdupb_laneq", "vduph_laneq", "vdups_laneq",
    "vdupd_laneq",
    /* loads and stores */
    "vld1", "vld1_dup", "vld1_lane", "vld1_x2", "vld1_x3", "vld1_x4", "vld2", "vld3", "vld4", "vld2_dup", "vld3_dup",
    "vld4_dup", "vld2_lane", "vld3_lane", "vld4_lane", "vst1", "vst1_lane", "vst1_x2", "vst1_x3", "vst1_x4", "vst2",
    "vst3", "vst4", "vst2_lane", "vst3_lane", "vst4_lane",
    /* the 64-bit scalar (d register) forms */
    "vaddd", "vsubd", "vnegd", "vabsd", "vceqd", "vceqzd", "vcged", "vcgtd", "vcled", "vcltd", "vcgezd", "vcgtzd",
    "vclezd", "vcltzd", "vtstd", "vshld_n", "vshrd_n", "vsrad_n", "vrshrd_n", "vrsrad_n", "vshld", "vrshld", "vpaddd",
    /* the scalar saturating forms (b h s d: 8 to 64 bits) */
    "vqaddb", "vqsubb", "vqshlb_n", "vqshlb", "vqrshlb", "vqabsb", "vqnegb", "vqshlub_n", "vuqaddb", "vsqaddb",
    "vqaddh", "vqsubh", "vqshlh_n", "vqshlh", "vqrshlh", "vqabsh", "vqnegh", "vqshluh_n", "vuqaddh", "vsqaddh",
    "vqmovnh", "vqshrnh_n", "vqrshrnh_n", "vqmovunh", "vqshrunh_n", "vqrshrunh_n", "vqadds", "vqsubs", "vqshls_n",
    "vqshls", "vqrshls", "vqabss", "vqnegs", "vqshlus_n", "vuqadds", "vsqadds", "vqmovns", "vqshrns_n",
    "vqrshrns_n", "vqmovuns", "vqshruns_n", "vqrshruns_n", "vqaddd", "vqsubd", "vqshld_n", "vqshld", "vqrshld",
    "vqabsd", "vqnegd", "vqshlud_n", "vuqaddd", "vsqaddd", "vqmovnd", "vqshrnd_n", "vqrshrnd_n", "vqmovund",
    "vqshrund_n", "vqrshrund_n", "vqdmulhh", "vqdmulhh_lane", "vqdmulhh_laneq", "vqrdmulhh", "vqrdmulhh_lane",
    "vqrdmulhh_laneq", "vqrdmlahh", "vqrdmlahh_lane", "vqrdmlahh_laneq", "vqdmullh", "vqdmullh_lane",
    "vqdmullh_laneq", "vqdmlalh", "vqdmlalh_lane", "vqdmlalh_laneq", "vqdmlslh", "vqdmlslh_lane", "vqdmlslh_laneq",
    "vqdmulhs", "vqdmulhs_lane", "vqdmulhs_laneq", "vqrdmulhs", "vqrdmulhs_lane", "vqrdmulhs_laneq", "vqrdmlahs",
    "vqrdmlahs_lane", "vqrdmlahs_laneq", "vqdmulls", "vqdmulls_lane", "vqdmulls_laneq", "vqdmlals", "vqdmlals_lane",
    "vqdmlals_laneq", "vqdmlsls", "vqdmlsls_lane", "vqdmlsls_laneq", "vslid_n", "vsrid_n",
    /* RDM's multiply-subtract, I8MM's dot products by a lane, SHA3's logic, bit reversal */
    "vqrdmlsh", "vqrdmlsh_lane", "vqrdmlsh_laneq", "vqrdmlshh", "vqrdmlshh_lane", "vqrdmlshh_laneq", "vqrdmlshs",
    "vqrdmlshs_lane", "vqrdmlshs_laneq", "vusdot_lane", "vusdot_laneq", "vsudot_lane", "vsudot_laneq", "veor3", "vbcax",
    "vrbit",
};

static const char *const INT_SUFFIX[] = {"s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "p8", "p16"};

/* The family of an integer intrinsic's name (see FAMILIES), or false for one of another
 * element type (f32, p64, bf16 anywhere in the name). */
static bool family_of(const char *name, char *out, size_t n) {
    static const char *const other[] = {"_f16", "_f32", "_f64", "_p64", "_p128", "_bf16", "_mf8"};
    for (size_t i = 0; i < sizeof other / sizeof *other; i++)
        if (strstr(name, other[i])) return false;
    char s[96];
    snprintf(s, sizeof s, "%s", name);
    char xn[8] = "";
    size_t len = strlen(s);
    if (len > 3 && s[len - 3] == '_' && s[len - 2] == 'x' && isdigit((unsigned char)s[len - 1])) {
        snprintf(xn, sizeof xn, "%s", s + len - 3);
        s[len - 3] = 0;
    }
    char *u = strrchr(s, '_');
    bool typed = false;
    for (size_t i = 0; u && i < sizeof INT_SUFFIX / sizeof *INT_SUFFIX; i++) typed |= !strcmp(u + 1, INT_SUFFIX[i]);
    if (!typed) return false;
    *u = 0;
    char *first = strchr(s, '_');
    size_t fl = first ? (size_t)(first - s) : strlen(s);
    if (fl > 1 && s[fl - 1] == 'q') memmove(s + fl - 1, s + fl, strlen(s + fl) + 1);
    snprintf(out, n, "%s%s", s, xn);
    return true;
}

static void test_coverage(tine_ctx_t *ctx) {
    char dir[512] = "", path[700];
    FILE *p = popen("clang-19 -print-resource-dir 2>/dev/null", "r");
    if (p) {
        if (!fgets(dir, sizeof dir, p)) dir[0] = 0;
        pclose(p);
    }
    dir[strcspn(dir, "\n")] = 0;
    snprintf(path, sizeof path, "%s/include/arm_neon.h", dir);
    char *text = dir[0] ? read_file(path) : NULL;
    if (!text) {
        printf("test_intrin: coverage skipped: no clang-19 arm_neon.h\n");
        return;
    }
    int in_scope = 0, missing = 0;
    char seen_last[96] = "";
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        /* a definition: "#define NAME(" or "__ai __attribute__((...)) TYPE NAME(" */
        const char *at = NULL;
        if (!strncmp(line, "#define v", 9)) at = line + 8;
        else if (!strncmp(line, "__ai ", 5) && (at = strstr(line, "))) ")) != NULL) {
            const char *open = strchr(at + 4, '(');
            at = open;
            while (at && at > line && (isalnum((unsigned char)at[-1]) || at[-1] == '_')) at--;
        }
        if (at && *at == 'v') {
            char name[96];
            size_t n = strspn(at, "abcdefghijklmnopqrstuvwxyz0123456789_");
            if (n < sizeof name && at[n] == '(') {
                memcpy(name, at, n);
                name[n] = 0;
                char fam[128];
                bool want = strcmp(name, seen_last) && family_of(name, fam, sizeof fam);
                snprintf(seen_last, sizeof seen_last, "%s", name);
                for (size_t i = 0; want && i < sizeof FAMILIES / sizeof *FAMILIES; i++)
                    if (!strcmp(fam, FAMILIES[i]) || !strncmp(fam, "vreinterpret", 12)) {
                        in_scope++;
                        bool found = tine_intrin_find(ctx, "arm", name) != NULL || expected_failure(name);
                        if (!found) missing++;
                        check(found, "%s (arm_neon.h) does not resolve: %s", name,
                              tine_error(ctx) ? tine_error(ctx) : "no description names it");
                        tine_clear_error(ctx);
                        break;
                    }
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    check(in_scope > 2000, "only %d integer intrinsics of arm_neon.h are in the families (the header's format?)",
          in_scope);
    printf("test_intrin: arm_neon.h: %d integer intrinsics in the covered families, %d do not resolve\n", in_scope,
           missing);
}

/* ---- 3. silicon ------------------------------------------------------------------------------ */

enum { MAXV = 4 * TINE_INTRIN_MAX_PARAMS, NEDGE = 9 };

/* One call of an intrinsic with one set of immediates, on every test vector. */
typedef struct {
    const tine_intrin *in;
    int64_t imms[TINE_INTRIN_MAX_PARAMS];
    tine_expr_t *vars[MAXV], *mem, *res[TINE_INTRIN_MAX_RESULTS];
    int nvars, nres;
    int off[MAXV], memoff; /* the inputs' places in a vector's record */
    int inb, outb;         /* a vector's record in the input and output files */
    int resb[TINE_INTRIN_MAX_RESULTS], storeb;
    int defined;           /* the bytes of the result defined (-1: all; see defined_bytes) */
    long inpos, outpos;    /* the first vector's records in the files */
} ccase;

static int round64(int n) { return (n + 63) & ~63; }

static uint64_t mix(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t mask_of(int bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }

/* Lane l of operand j in test vector v, for an element of `bits` bits. The first NEDGE
 * vectors have one edge value in every lane (each operand another), the next NEDGE the
 * edges mixed across lanes, then small signed counts (shifts by a register), NINDEX
 * vectors whose lanes together are every table index 0..79 (lane l of the k-th is
 * k + 10 l: a table lookup's every entry, and past the end), and random lanes: uniform,
 * near the ends, or small. */
enum { NINDEX = 10 };
static uint64_t gen_lane(int bits, bool sgn, int v, int j, int l) {
    uint64_t m = mask_of(bits), lo = sgn ? 1ull << (bits - 1) : 0, hi = sgn ? m >> 1 : m;
    uint64_t edge[NEDGE] = {0, 1, m, lo, hi, lo + 1, hi - 1, 0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull};
    if (v < NEDGE) return edge[(v + j) % NEDGE] & m;
    if (v < 2 * NEDGE) return edge[(v + l + 2 * j) % NEDGE] & m;
    if (v == 2 * NEDGE) return (uint64_t)((l * 5 + j * 3) % 19 - 9) & m;
    if (v <= 2 * NEDGE + NINDEX) return (uint64_t)(v - 2 * NEDGE - 1 + 10 * l) & m;
    uint64_t r = mix((uint64_t)v * 1000003u + (uint64_t)j * 131u + (uint64_t)l), r2 = mix(r);
    switch (r % 4) {
    case 0: return r2 & m;
    case 1: return (lo + r2 % 4) & m;
    case 2: return (hi - r2 % 4) & m;
    default: return (r2 >> (r2 % 64)) & m;
    }
}

static int nvectors(void) { return 2 * NEDGE + 1 + NINDEX + nrandom; }

/* The immediates to try for parameter pp of intrinsic in: its range's ends and middle.
 * arm.isa does not give its ranges: there they are the shifts' (left 0..bits-1, SHLL's
 * 0..bits; right 1..bits, a narrowing one 1..the result's bits). */
static int imm_values(const tine_intrin *in, const tine_iparam *pp, int64_t *v) {
    int lo = pp->lo, hi = pp->hi;
    if (lo > hi) {
        int ob = in->param[0].type.bits, rb = in->nresults ? in->result[0].bits : ob;
        bool left = strstr(in->name, "shl") || strstr(in->name, "sli");
        lo = left ? 0 : 1;
        hi = left ? (strstr(in->name, "shll") ? ob : ob - 1) : (rb < ob ? rb : ob);
    }
    int64_t cand[3] = {lo, lo + (hi - lo) / 2, hi};
    int n = 0;
    for (int i = 0; i < 3; i++)
        if (!n || v[n - 1] != cand[i]) v[n++] = cand[i];
    return n;
}

/* C types. arm: arm_neon.h's vector, tuple and scalar types (p8 and p16 lanes are passed
 * as unsigned ones, which -flax-vector-conversions converts; a tuple has the intrinsic's
 * own type); x86: __m128i and its wider kin for every vector. */
static void c_scalar(tine_type_t t, char *out, size_t n) {
    snprintf(out, n, "%sint%d_t", t.kind == TINE_UINT ? "u" : "", t.bits);
}

static void c_vector(bool x86, tine_type_t t, int tuple, bool poly, char *out, size_t n) {
    int total = t.lanes * t.bits;
    if (x86) snprintf(out, n, "__m%di", total);
    else if (tuple)
        snprintf(out, n, "%s%d%sx%dx%d_t", poly ? "poly" : t.kind == TINE_UINT ? "uint" : "int", t.bits,
                 "", t.lanes, tuple);
    else snprintf(out, n, "%sint%dx%d_t", t.kind == TINE_UINT ? "u" : "", t.bits, t.lanes);
}

/* Whether the intrinsic's element type (its name's last type suffix) is a polynomial one. */
static bool poly_name(const char *name) {
    const char *p = strstr(name, "_p8");
    if (!p) p = strstr(name, "_p16");
    return p != NULL;
}

/* The bytes of a result Intel defines, -1 for all: not the upper lanes of a cast to a
 * wider register, nothing of an "undefined" one (x86.intrin defines them as zero). */
static int defined_bytes(const char *name) {
    if (!strcmp(name, "_mm256_castsi128_si256") || !strcmp(name, "_mm512_castsi128_si512")) return 16;
    if (!strcmp(name, "_mm512_castsi256_si512")) return 32;
    if (strstr(name, "_undefined_")) return 0;
    return -1;
}

typedef struct {
    tine_ctx_t *ctx;
    bool x86;
    const char *file;          /* the family's .intrin file */
    bool avx2, avx512;         /* x86: what this CPU runs */
    ccase *cases;
    int n, cap;
    int nintrin, nline, nskip;
    FILE *src[4];              /* the generated wrappers, in four files built side by side */
    tine_buf table;            /* the driver's rows */
} silicon_st;

/* Whether this CPU runs x86 intrinsic `name` (AVX2 for 256 bits; AVX-512F/BW/VL for 512
 * bits and the element-typed loads and stores). */
static bool x86_runs(const silicon_st *st, const char *name) {
    bool e512 = !strncmp(name, "_mm512_", 7) || strstr(name, "load_epi") || strstr(name, "loadu_epi") ||
                strstr(name, "store_epi") || strstr(name, "storeu_epi");
    if (e512) return st->avx512;
    if (!strncmp(name, "_mm256_", 7)) return st->avx2;
    return true;
}

/* Writes the wrapper c_K that calls the intrinsic on a record's inputs and writes its
 * results (or lets the store write) at out. */
static void write_wrapper(silicon_st *st, int k, FILE *f) {
    ccase *c = &st->cases[k];
    const tine_intrin *in = c->in;
    fprintf(f, "void c_%d(const unsigned char *in, unsigned char *out) {\n", k);
    tine_buf call = {0};
    tine_buf_printf(&call, "%s(", in->name);
    int vi = 0, ii = 0;
    for (int p = 0; p < in->nparams; p++) {
        const tine_iparam *pp = &in->param[p];
        const char *sep = p ? ", " : "";
        char t[64];
        if (pp->kind == TINE_IP_IMM) {
            tine_buf_printf(&call, "%s%lld", sep, (long long)c->imms[ii++]);
        } else if (pp->kind == TINE_IP_PTR) {
            if (in->mem == TINE_INTRIN_LOAD) tine_buf_printf(&call, "%s(const void *)(in + %d)", sep, c->memoff);
            else tine_buf_printf(&call, "%s(void *)out", sep);
        } else if (pp->kind == TINE_IP_TUPLE) {
            c_vector(st->x86, pp->type, pp->n, poly_name(in->name), t, sizeof t);
            fprintf(f, "    %s x%d; memcpy(&x%d, in + %d, sizeof x%d);\n", t, p, p, c->off[vi], p);
            tine_buf_printf(&call, "%sx%d", sep, p);
            vi += pp->n;
        } else {
            /* an arm.isa operand of one lane is a vector of one (int64x1_t) */
            bool scalar = pp->kind == TINE_IP_SCALAR && !(!st->x86 && in->src_kind == 0);
            if (scalar) c_scalar(pp->type, t, sizeof t);
            else c_vector(st->x86, pp->type, 0, false, t, sizeof t);
            fprintf(f, "    %s x%d; memcpy(&x%d, in + %d, sizeof x%d);\n", t, p, p, c->off[vi], p);
            tine_buf_printf(&call, "%sx%d", sep, p);
            vi++;
        }
    }
    tine_buf_puts(&call, ")");
    if (in->mem == TINE_INTRIN_STORE) fprintf(f, "    %s;\n}\n", call.p);
    else fprintf(f, "    __auto_type r = %s;\n    memcpy(out, &r, sizeof r);\n}\n", call.p);
    free(call.p);
}

/* Adds the cases of one intrinsic: one per set of immediates. */
static bool add_intrinsic(void *user, const tine_intrin *in) {
    silicon_st *st = user;
    tine_ctx_t *ctx = st->ctx;
    if (only && strcmp(only, in->name)) return true;
    bool line = in->from == st->file || !strcmp(in->from, st->file);
    if (st->x86 && !line) return true; /* the imported entries: test_isa_gen */
    if (st->x86 && !x86_runs(st, in->name)) {
        st->nskip++;
        return true;
    }
    st->nintrin++;
    st->nline += line;
    /* the immediates: each parameter's values, the k-th of each in case k */
    int64_t iv[TINE_INTRIN_MAX_PARAMS][3];
    int niv[TINE_INTRIN_MAX_PARAMS], ni = 0, ncase = 1;
    for (int p = 0; p < in->nparams; p++)
        if (in->param[p].kind == TINE_IP_IMM) {
            niv[ni] = imm_values(in, &in->param[p], iv[ni]);
            if (niv[ni] > ncase) ncase = niv[ni];
            ni++;
        }
    for (int k = 0; k < ncase; k++) {
        TINE_GROW(st->cases, st->n + 1, st->cap);
        ccase *c = &st->cases[st->n];
        memset(c, 0, sizeof *c);
        c->in = in;
        c->defined = defined_bytes(in->name);
        for (int i = 0; i < ni; i++) c->imms[i] = iv[i][k < niv[i] ? k : niv[i] - 1];
        char prefix[32];
        snprintf(prefix, sizeof prefix, "s%d_", st->n);
        c->nvars = make_args(ctx, in, prefix, c->vars, c->imms, c->imms);
        /* the record: each input 64-byte aligned (a tuple's vectors adjacent, as in its C
           struct), the load's elements likewise */
        int pos = 0, vi = 0;
        for (int p = 0; p < in->nparams; p++) {
            const tine_iparam *pp = &in->param[p];
            if (pp->kind == TINE_IP_IMM || pp->kind == TINE_IP_PTR) continue;
            int n = pp->kind == TINE_IP_TUPLE ? pp->n : 1, bytes = pp->type.lanes * pp->type.bits / 8;
            for (int j = 0; j < n; j++) c->off[vi++] = pos + j * bytes;
            pos = round64(pos + n * bytes);
        }
        if (in->mem == TINE_INTRIN_LOAD) {
            c->memoff = pos;
            c->mem = tine_var(ctx, "$m", tine_type_with_lanes(in->mem_elem, in->mem_lanes));
            pos = round64(pos + in->mem_lanes * in->mem_elem.bits / 8);
        }
        c->inb = pos;
        if (!tine_intrin_apply(ctx, in, c->vars, c->imms, c->mem, c->res)) {
            fail("%s: does not apply at its test immediates: %s", in->name, tine_error(ctx));
            tine_clear_error(ctx);
            continue;
        }
        if (in->mem == TINE_INTRIN_STORE) {
            c->nres = 0;
            c->storeb = in->mem_lanes * in->mem_elem.bits / 8;
            c->outb = round64(c->storeb) + 64; /* the bytes after the store, which it must leave */
        } else {
            c->nres = in->nresults;
            int ob = 0;
            for (int r = 0; r < c->nres; r++) ob += c->resb[r] = c->res[r]->type.lanes * c->res[r]->type.bits / 8;
            c->outb = round64(ob);
        }
        write_wrapper(st, st->n, st->src[st->n % 4]);
        tine_buf_printf(&st->table, "    {c_%d, %d, %d},\n", st->n, c->inb, c->outb);
        st->n++;
    }
    return true;
}

static const char DRIVER_MAIN[] =
    "int main(int argc, char **argv) {\n"
    "    FILE *fi = argc > 2 ? fopen(argv[1], \"rb\") : NULL, *fo = argc > 2 ? fopen(argv[2], \"wb\") : NULL;\n"
    "    if (!fi || !fo) return 2;\n"
    "    fseek(fi, 0, SEEK_END);\n"
    "    long size = ftell(fi);\n"
    "    fseek(fi, 0, SEEK_SET);\n"
    "    unsigned char *in = aligned_alloc(64, (size_t)size + 64), *out = aligned_alloc(64, 1 << 16);\n"
    "    if (!in || !out || fread(in, 1, (size_t)size, fi) != (size_t)size) return 3;\n"
    "    long pos = 0;\n"
    "    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++)\n"
    "        for (int v = 0; v < NVEC; v++) {\n"
    "            memset(out, 0xa5, (size_t)rows[i].outb);\n"
    "            rows[i].f(in + pos, out);\n"
    "            pos += rows[i].inb;\n"
    "            if (fwrite(out, 1, (size_t)rows[i].outb, fo) != (size_t)rows[i].outb) return 4;\n"
    "        }\n"
    "    return fclose(fo) != 0;\n"
    "}\n";

static int run(const char *cmd, char *out, size_t n) {
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t got = fread(out, 1, n - 1, p);
    out[got] = 0;
    for (char sink[4096]; fread(sink, 1, sizeof sink, p) > 0;) {}
    return pclose(p);
}

static void put_lane(unsigned char *p, int bits, uint64_t v) { memcpy(p, &v, (size_t)bits / 8); }
static uint64_t get_lane(const unsigned char *p, int bits) {
    uint64_t v = 0;
    memcpy(&v, p, (size_t)bits / 8);
    return v;
}

/* Fills the input records of every case (all vectors). */
static unsigned char *make_inputs(silicon_st *st, long *size) {
    long total = 0;
    int nv = nvectors();
    for (int k = 0; k < st->n; k++) {
        st->cases[k].inpos = total;
        total += (long)st->cases[k].inb * nv;
    }
    unsigned char *buf = calloc(1, (size_t)total + 64);
    for (int k = 0; k < st->n; k++) {
        ccase *c = &st->cases[k];
        for (int v = 0; v < nv; v++) {
            unsigned char *rec = buf + c->inpos + (long)v * c->inb;
            for (int j = 0; j < c->nvars; j++) {
                tine_type_t t = c->vars[j]->type;
                for (int l = 0; l < t.lanes; l++)
                    put_lane(rec + c->off[j] + l * t.bits / 8, t.bits, gen_lane(t.bits, t.kind == TINE_INT, v, j, l));
            }
            if (c->mem) {
                tine_type_t t = c->mem->type;
                for (int l = 0; l < t.lanes; l++)
                    put_lane(rec + c->memoff + l * t.bits / 8, t.bits,
                             gen_lane(t.bits, t.kind == TINE_INT, v, c->nvars, l));
            }
        }
    }
    *size = total;
    return buf;
}

/* Compares every vector's results with the interpreter's. */
static void compare(silicon_st *st, ccase *c, const unsigned char *inbuf, const unsigned char *outbuf) {
    tine_ctx_t *ctx = st->ctx;
    const tine_intrin *in = c->in;
    int nv = nvectors();
    long bad = 0;
    for (int v = 0; v < nv; v++) {
        const unsigned char *rec = inbuf + c->inpos + (long)v * c->inb, *out = outbuf + c->outpos + (long)v * c->outb;
        tine_env_t *env = tine_env_new(ctx);
        uint64_t lanes[TINE_MAX_LANES];
        for (int j = 0; j < c->nvars; j++) {
            tine_type_t t = c->vars[j]->type;
            for (int l = 0; l < t.lanes; l++) lanes[l] = get_lane(rec + c->off[j] + l * t.bits / 8, t.bits);
            tine_env_bind(env, c->vars[j], lanes);
        }
        if (c->mem) {
            tine_type_t t = c->mem->type;
            for (int l = 0; l < t.lanes; l++) lanes[l] = get_lane(rec + c->memoff + l * t.bits / 8, t.bits);
            tine_env_bind(env, c->mem, lanes);
        }
        int nres = in->mem == TINE_INTRIN_STORE ? 1 : c->nres, at = 0;
        for (int r = 0; r < nres; r++) {
            tine_type_t t = c->res[r]->type;
            uint64_t want[TINE_MAX_LANES];
            if (tine_eval(ctx, c->res[r], env, want) != 0) {
                fail("%s: the interpreter fails: %s", in->name, tine_error(ctx));
                tine_clear_error(ctx);
                bad++;
                break;
            }
            for (int l = 0; l < t.lanes; l++) {
                int byte = at + l * t.bits / 8;
                if (c->defined >= 0 && byte >= c->defined) break;
                uint64_t got = get_lane(out + byte, t.bits), w = want[l] & mask_of(t.bits);
                if (got == w) continue;
                /* which NaN an arithmetic op returns is not tine's semantics (SEMANTICS.md) */
                if (t.kind == TINE_FLOAT && g_is_nan(t.bits, got) && g_is_nan(t.bits, w)) continue;
                if (bad++ == 0) {
                    char ops[512] = "";
                    for (int j = 0; j < c->nvars && strlen(ops) < 400; j++) {
                        tine_type_t vt = c->vars[j]->type;
                        snprintf(ops + strlen(ops), sizeof ops - strlen(ops), " op%d=[", j);
                        for (int q = 0; q < vt.lanes && q < 8; q++)
                            snprintf(ops + strlen(ops), sizeof ops - strlen(ops), "%s%llx", q ? " " : "",
                                     (unsigned long long)get_lane(rec + c->off[j] + q * vt.bits / 8, vt.bits));
                        snprintf(ops + strlen(ops), sizeof ops - strlen(ops), "%s]", vt.lanes > 8 ? " ..." : "");
                    }
                    char imms[64] = "";
                    for (int p = 0, i = 0; p < in->nparams; p++)
                        if (in->param[p].kind == TINE_IP_IMM)
                            snprintf(imms + strlen(imms), sizeof imms - strlen(imms), " %s=%lld", in->param[p].name,
                                     (long long)c->imms[i++]);
                    fail("%s%s: vector %d, result %d lane %d is %#llx on the machine, %#llx in tine (%s);%s", in->name,
                         imms, v, r, l, (unsigned long long)got, (unsigned long long)w, in->from, ops);
                }
            }
            at += t.lanes * t.bits / 8;
        }
        if (in->mem == TINE_INTRIN_STORE) /* the bytes after the store are as the driver left them */
            for (int b = c->storeb; b < c->outb; b++)
                if (out[b] != 0xa5) {
                    if (bad++ == 0) fail("%s: vector %d: the store writes byte %d, past its %d", in->name, v, b, c->storeb);
                    break;
                }
        tine_env_free(env);
    }
    check(bad == 0, "%s: %ld lanes differ from the machine's", in->name, bad);
}

/* Builds and runs the program for the family and compares. */
static void test_silicon(tine_ctx_t *ctx, const char *fam, const char *file) {
    bool x86 = !strcmp(fam, "x86");
    char dir[] = "/tmp/tine-intrin-XXXXXX", path[512], cmd[4096], out[16384];
    if (!mkdtemp(dir)) {
        fail("cannot make a temporary directory");
        return;
    }
    const char *cc = x86 ? "clang-19 -O1 -w -flax-vector-conversions=all"
                         : "clang-19 --target=aarch64-linux-gnu -march=armv8.6-a+i8mm+dotprod+rdm+sha2+sha3 -O1 -w "
                           "-flax-vector-conversions=all";
    const char *why = NULL;
    struct stat sb;
    if (!x86 && stat("/usr/aarch64-linux-gnu", &sb) != 0) why = "the AArch64 sysroot /usr/aarch64-linux-gnu is missing";
    if (!why && !x86 && run("command -v qemu-aarch64 2>&1", out, sizeof out) != 0) why = "qemu-aarch64 is missing";
    if (!why && run("command -v clang-19 2>&1", out, sizeof out) != 0) why = "clang-19 is missing";
    if (why) {
        printf("test_intrin: %s on silicon: skipped: %s\n", fam, why);
        rmdir(dir);
        return;
    }
    double t0 = now();
    silicon_st st = {.ctx = ctx, .x86 = x86, .file = file};
    __builtin_cpu_init();
    st.avx2 = x86 && __builtin_cpu_supports("avx2");
    st.avx512 = x86 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl");
    const char *flags = !x86 ? "" : st.avx512 ? "-mavx2 -mavx512f -mavx512bw -mavx512vl" : st.avx2 ? "-mavx2" : "-msse4.1";
    const char *head = x86 ? "#include <immintrin.h>\n#include <stdint.h>\n#include <string.h>\n"
                           : "#include <arm_neon.h>\n#include <stdint.h>\n#include <string.h>\n";
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/w%d.c", dir, i);
        st.src[i] = fopen(path, "w");
        if (!st.src[i]) {
            fail("cannot write %s", path);
            return;
        }
        fputs(head, st.src[i]);
    }
    tine_buf_puts(&st.table, "");
    bool ok = tine_intrin_each(ctx, fam, add_intrinsic, &st);
    ok = ok || (bitcast_missing && strstr(tine_error(ctx), "reinterpret")); /* the expected failure */
    check(ok, "%s: tine_intrin_each: %s", fam, ok ? "" : tine_error(ctx));
    tine_clear_error(ctx);
    for (int i = 0; i < 4; i++) fclose(st.src[i]);
    snprintf(path, sizeof path, "%s/main.c", dir);
    FILE *mf = fopen(path, "w");
    fprintf(mf, "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#define NVEC %d\n", nvectors());
    for (int k = 0; k < st.n; k++) fprintf(mf, "void c_%d(const unsigned char *, unsigned char *);\n", k);
    fprintf(mf, "static const struct { void (*f)(const unsigned char *, unsigned char *); int inb, outb; } rows[] = {\n%s};\n%s",
            st.n ? st.table.p : "{0, 0, 0}\n", DRIVER_MAIN);
    fclose(mf);
    free(st.table.p);
    long insize;
    unsigned char *inbuf = make_inputs(&st, &insize);
    snprintf(path, sizeof path, "%s/in.bin", dir);
    FILE *fin = fopen(path, "wb");
    bool wrote = fin && fwrite(inbuf, 1, (size_t)insize, fin) == (size_t)insize;
    if (fin) fclose(fin);
    check(wrote, "cannot write %s", path);
    double t1 = now();
    /* the wrappers in four objects, two at a time (the machine's cores) */
    snprintf(cmd, sizeof cmd,
             "cd %s && printf '%%s\\n' w0 w1 w2 w3 | xargs -P 2 -I{} %s %s -c {}.c -o {}.o 2>&1 && "
             "%s %s %s -o prog main.c w0.o w1.o w2.o w3.o 2>&1",
             dir, cc, flags, cc, x86 ? "" : "-static", flags);
    int rc = run(cmd, out, sizeof out);
    check(rc == 0, "%s: the program (%s) does not build: %.3000s", fam, dir, out);
    double t2 = now();
    if (rc == 0) {
        snprintf(cmd, sizeof cmd, "cd %s && %s ./prog in.bin out.bin 2>&1", dir, x86 ? "" : "qemu-aarch64");
        rc = run(cmd, out, sizeof out);
        check(rc == 0, "%s: the program failed (%d): %s", fam, rc, out);
    }
    double t3 = now();
    snprintf(path, sizeof path, "%s/out.bin", dir);
    unsigned char *outbuf = NULL;
    long outsize = 0;
    if (rc == 0) {
        FILE *fo = fopen(path, "rb");
        if (fo) {
            fseek(fo, 0, SEEK_END);
            outsize = ftell(fo);
            fseek(fo, 0, SEEK_SET);
            outbuf = malloc((size_t)outsize + 1);
            if (fread(outbuf, 1, (size_t)outsize, fo) != (size_t)outsize) outsize = -1;
            fclose(fo);
        }
        long want = 0;
        for (int k = 0; k < st.n; k++) {
            st.cases[k].outpos = want;
            want += (long)st.cases[k].outb * nvectors();
        }
        check(outbuf && outsize == want, "%s: the program wrote %ld bytes, not %ld", fam, outsize, want);
        if (outbuf && outsize == want)
            for (int k = 0; k < st.n; k++) compare(&st, &st.cases[k], inbuf, outbuf);
    }
    double t4 = now();
    printf("test_intrin: %s on %s: %d intrinsics (%d from %s, %d not run: this CPU lacks them), %d cases, %d vectors "
           "each; write %.1f s, build %.1f s, run %.1f s, compare %.1f s\n",
           fam, x86 ? "this machine" : "qemu-aarch64", st.nintrin, st.nline, file, st.nskip, st.n, nvectors(), t1 - t0,
           t2 - t1, t3 - t2, t4 - t3);
    free(inbuf);
    free(outbuf);
    free(st.cases);
    if (!keep) {
        const char *files[] = {"w0.c", "w1.c", "w2.c", "w3.c", "w0.o", "w1.o", "w2.o", "w3.o",
                               "main.c", "prog", "in.bin", "out.bin"};
        for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, files[i]);
            unlink(path);
        }
        rmdir(dir);
    } else {
        printf("test_intrin: %s: files kept in %s\n", fam, dir);
    }
}

/* ---- 4. errors in a description ------------------------------------------------------------ */

/* text's first intrinsic (or `name`) must fail to read or resolve with an error that names
 * file:line. */
static void broken(const char *text, const char *name, int line, const char *what) {
    tine_ctx_t *ctx = tine_ctx_new();
    char where[64];
    snprintf(where, sizeof where, "broken.intrin:%d:", line);
    bool read = tine_intrin_read_text(ctx, "arm", text, "broken.intrin");
    const char *err = NULL;
    if (!read) {
        err = tine_error(ctx);
    } else {
        const tine_intrin *in = tine_intrin_find(ctx, "arm", name);
        check(in == NULL, "%s: %s resolves", what, name);
        err = in ? NULL : tine_error(ctx);
    }
    check(err && strstr(err, where), "%s: the error does not name %s: %s", what, where, err ? err : "(none)");
    if (verbose && err) printf("  %s: %s\n", what, err);
    tine_ctx_free(ctx);
}

static void test_errors(void) {
    broken("types u8\nvfoo_{T}(a:v) a + a\n", "vfoo_u8", 2, "no '='");
    broken("types u8 k9\nvfoo_{T}(a:v) = a\n", "vfoo_u8", 1, "an unknown type suffix");
    broken("# a comment\ntypes u8\nvfoo_{T}(a:z) = a\n", "vfoo_u8", 3, "an unknown parameter kind");
    broken("types u8\n\nvfoo_{T}(a:v, n:i3..1) = a\n", "vfoo_u8", 3, "an empty immediate range");
    broken("types u8\nvfoo_{T}(a:v) = a +\n", "vfoo_u8", 2, "a semantics that does not parse");
    broken("types u8\nvbar_{T}(a:v) = a\nvfoo_{T}(a:v, b:v) =\n    a + b +\n    nosuch(b)\n", "vfoo_u8", 5,
           "an unknown function on an entry's third line");
    broken("types u8\nvfoo_{T}(a:v, b:d<u16>) = a + b\n", "vfoo_u8", 2, "operands of two types");
    broken("types u8\nvfoo_{T}(a:v) = vbar_{T}(a)\nvbar_{T}(a:v) = a + undefined_name\n", "vfoo_u8", 3,
           "an error in an intrinsic another calls");
    broken("types u8\nvfoo_{T}(a:v) = vfoo_{T}(a)\n", "vfoo_u8", 2, "an intrinsic that calls itself");
    /* and a good text reads: the hook replaces the description */
    tine_ctx_t *ctx = tine_ctx_new();
    bool ok = tine_intrin_read_text(ctx, "arm", "types u8\nvfoo{q}_{T}(a:v, n:i0..B-1) = a << n\n", "good.intrin");
    const tine_intrin *in = ok ? tine_intrin_find(ctx, "arm", "vfooq_u8") : NULL;
    check(in && in->param[1].lo == 0 && in->param[1].hi == 7 && in->reg_bits == 128,
          "a one-line description: vfooq_u8 %s", in ? "has the wrong shape" : tine_error(ctx));
    check(tine_intrin_find(ctx, "arm", "vadd_u8") == NULL, "the replaced description still gives vadd_u8");
    tine_ctx_free(ctx);
}

/* tine retarget's table lookups (src/retarget/tables.c): vqtbl1q_u8 and vqtbl1_u8, as
 * their semantics give them, made x86's pshufb, proven equal with Z3: any index (with the
 * saturating fix-up) and a nibble (used as it is); and vcnt as two lookups of nibbles. */
static void test_tables(tine_ctx_t *ctx) {
    static const struct { const char *name; int lanes; bool nibble; } cases[] = {
        {"vqtbl1q_u8", 16, false}, {"vqtbl1q_u8", 16, true}, {"vqtbl1_u8", 8, false}, {"vqtbl1q_s8", 16, false}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const tine_intrin *in = tine_intrin_find(ctx, "arm", cases[c].name);
        tine_type_t t8 = in ? in->param[0].type : (tine_type_t){0};
        tine_type_t i8 = {.kind = TINE_UINT, .bits = 8, .lanes = cases[c].lanes};
        tine_expr_t *t = tine_var(ctx, "table", t8), *idx = tine_var(ctx, "idx", i8);
        if (cases[c].nibble) idx = tine_binary(ctx, TINE_OP_AND, idx, tine_const_int(ctx, i8, 15));
        tine_expr_t *args[2] = {t, idx}, *res[TINE_INTRIN_MAX_RESULTS];
        bool ok = in && tine_intrin_apply(ctx, in, args, NULL, NULL, res);
        tine_expr_t *sel = ok ? tine_select_expr(ctx, res[0], TINE_SELECT_TINE, "x86-64-sse41") : NULL;
        tine_expr_t *l = sel ? tine_retarget_tables(ctx, sel, "x86-64-sse41") : NULL;
        char *p = l ? tine_print(ctx, l) : NULL;
        bool made = p && strstr(p, "mm_shuffle_epi8") && (!cases[c].nibble || !strstr(p, "saturating_add"));
        check(made, "%s%s: not made pshufb (%s)", cases[c].name, cases[c].nibble ? " of a nibble" : "",
              p ? p : tine_error(ctx));
        if (made) {
            tine_smt *smt = tine_smt_new(ctx, 60000);
            char why[512] = "";
            tine_smt_result r = tine_smt_equal(smt, res[0], l, why, sizeof why, NULL);
            check(r == TINE_SMT_PROVEN, "%s%s as pshufb: not proven equal (%s)", cases[c].name,
                  cases[c].nibble ? " of a nibble" : "", why);
            tine_smt_free(smt);
        }
        free(p);
    }
    /* vcnt: the bit-parallel count of its definition, made two lookups of nibbles */
    static const char *const cnt[] = {"vcntq_u8", "vcnt_u8", "vcntq_s8"};
    for (size_t c = 0; c < sizeof cnt / sizeof *cnt; c++) {
        const tine_intrin *in = tine_intrin_find(ctx, "arm", cnt[c]);
        tine_expr_t *x = in ? tine_var(ctx, "x", in->param[0].type) : NULL, *res[TINE_INTRIN_MAX_RESULTS];
        bool ok = in && tine_intrin_apply(ctx, in, &x, NULL, NULL, res);
        tine_expr_t *sel = ok ? tine_select_expr(ctx, res[0], TINE_SELECT_TINE, "x86-64-avx2") : NULL;
        tine_expr_t *l = sel ? tine_retarget_tables(ctx, sel, "x86-64-avx2") : NULL;
        char *p = l ? tine_print(ctx, l) : NULL;
        bool made = p && strstr(p, "mm_shuffle_epi8");
        check(made, "%s: not made pshufb (%s)", cnt[c], p ? p : tine_error(ctx));
        if (made) {
            tine_smt *smt = tine_smt_new(ctx, 60000);
            char why[512] = "";
            check(tine_smt_equal(smt, res[0], l, why, sizeof why, NULL) == TINE_SMT_PROVEN,
                  "%s as two lookups: not proven equal (%s)", cnt[c], why);
            tine_smt_free(smt);
        }
        free(p);
    }
}

int main(int argc, char **argv) {
    const char *family = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = true;
        else if (!strcmp(argv[i], "--keep")) keep = true;
        else if (!strcmp(argv[i], "--random") && i + 1 < argc) nrandom = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--family") && i + 1 < argc) family = argv[++i];
        else {
            fprintf(stderr, "usage: test_intrin [-v] [--keep] [--random N] [--only NAME] [--family arm|x86]\n");
            return 2;
        }
    }
    if (nrandom < 0) nrandom = 0;
    double t0 = now();
    tine_ctx_t *ctx = tine_ctx_new();
    probe_bitcast(ctx);
    static const char *const fams[2][2] = {{"arm", "src/targets/neon.intrin"}, {"x86", "src/targets/x86.intrin"}};
    for (int f = 0; f < 2; f++) {
        if (family && strcmp(family, fams[f][0])) continue;
        if (!only) test_resolve(ctx, fams[f][0], fams[f][1]);
        if (!only && f == 0) test_coverage(ctx);
        test_silicon(ctx, fams[f][0], fams[f][1]);
    }
    if (!only) test_errors();
    if (!only && (!family || !strcmp(family, "arm"))) test_tables(ctx);
    tine_ctx_free(ctx);
    printf("test_intrin: %.1f s\n", now() - t0);
    printf("test_intrin: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
