/* dft.c — tine dft: the driver. A codelet goes from its size to code through
 * tine_dft, whose body is the pipeline in order:
 *
 *   gen        the DFT of size n as real operations, FFTW's algebra (gen.c), one lane per
 *              transform of the batch: the values are vectors of v transforms
 *   select     lowered to the target's instructions (src/tprog: the target-level program)
 *   peephole   the peephole optimizer's passes (src/peephole)
 *   schedule   the order that keeps the fewest values live (src/schedule)
 *   emit       LLVM (object, assembly, LLVM text), C with intrinsics, or the header
 */
#include "dft.h"

#include <ctype.h>

#include "../peephole/optimize.h"
#include "../targets/targets.h"

/* The widest float vector the target has: its widest form of the add. */
static int vector_bits(tine_ctx_t *ctx, const char *target, int elem_bits) {
    const tine_target_info *ti = tine_target_find(target);
    uint32_t features = tine_target_features(ctx, target, NULL);
    if (!ti) return 0;
    bool arm = ti->isa && !strcmp(ti->isa, "arm");
    int code = tine_isa_lookup(ctx, arm ? (elem_bits == 64 ? "fadd_f64" : "fadd_f32") : (elem_bits == 64 ? "addpd" : "addps"));
    const tine_insn *in = code >= 0 ? tine_insn_info(ctx, (uint32_t)code, NULL) : NULL;
    int f = in ? tine_insn_pick_form(in, features, 4096) : -1;
    return f < 0 ? 0 : in->form[f].bits;
}

void dft_codelet_free(dft_codelet *c) {
    tine_tprog_free(c->prog);
    free(c->in_elem);
    free(c->in_part);
    free(c->out_elem);
    free(c->out_part);
}

bool dft_build(tine_ctx_t *ctx, const tine_dft_opts *o, dft_codelet *c, tine_buf *rep) {
    int bits = vector_bits(ctx, o->target, c->elem.bits);
    const tine_target_info *ti = tine_target_find(o->target);
    c->arm = ti && ti->isa && !strcmp(ti->isa, "arm"); /* AArch64 has 32 vector registers, as AVX-512 */
    if (!bits) {
        if (!tine_error(ctx)) tine_set_error(ctx, "tine dft: target %s has no float vectors", o->target);
        return false;
    }
    /* The block's width: 256 bits where the target has 512 unless asked for. AVX-512's
     * gain here is its 32 registers (ymm16-31 too), not the width: on a core that issues a
     * 512-bit operation as two 256-bit halves (AMD Zen 4) the arithmetic per transform is
     * the same and a wider block adds a transpose stage; `tine bench --dft` measured 256-bit
     * blocks 1.11x (f32) and 1.17x (f64) faster geomean at x86-64-avx512 (tests/dft/bench.md).
     * --vector-bits 512 chooses the full width (cores with two 512-bit FMA units). */
    c->nregs = bits >= 512 || c->arm ? 32 : 16;
    if (o->vector_bits) {
        if (o->vector_bits != 128 && o->vector_bits != 256 && o->vector_bits != 512) {
            tine_set_error(ctx, "tine dft: --vector-bits %d: 128, 256 or 512", o->vector_bits);
            return false;
        }
        if (o->vector_bits > bits) {
            tine_set_error(ctx, "tine dft: --vector-bits %d: %s has %d-bit float vectors at most", o->vector_bits,
                           o->target, bits);
            return false;
        }
        bits = o->vector_bits;
    } else if (bits > 256) {
        bits = 256;
    }
    c->v = bits / c->elem.bits;
    while (c->v > 2 && 2 * c->n < c->v) c->v /= 2; /* a transform fills at least one row of the block */
    tine_type_t t = tine_type_with_lanes(c->elem, c->v);
    int n = c->n;
    tine_expr_t **in = tine_xmalloc(sizeof *in * 2 * (size_t)n), **out = tine_xmalloc(sizeof *out * 2 * (size_t)n);
    c->prog = tine_tprog_new(ctx, o->target);
    c->in_elem = tine_xmalloc(sizeof(int) * 2 * (size_t)n);
    c->in_part = tine_xmalloc(sizeof(int) * 2 * (size_t)n);
    c->out_elem = tine_xmalloc(sizeof(int) * 2 * (size_t)n);
    c->out_part = tine_xmalloc(sizeof(int) * 2 * (size_t)n);
    char nm[32];
    for (int j = 0; j < 2 * n; j++) {
        snprintf(nm, sizeof nm, "x%c%d", j % 2 ? 'i' : 'r', j / 2);
        in[j] = tine_var(ctx, nm, t);
        tine_tprog_input(c->prog, in[j]);
        c->in_elem[j] = j / 2, c->in_part[j] = j % 2;
    }
    double t0 = tine_now();
    tine_dft_counts counts;
    bool ok = tine_dft_gen(ctx, n, o->inverse ? 1 : -1, t, in, out, &counts);
    for (int k = 0; ok && k < 2 * n; k++) {
        snprintf(nm, sizeof nm, "y%c%d", k % 2 ? 'i' : 'r', k / 2);
        tine_tprog_output(c->prog, nm, out[k]);
        c->out_elem[k] = k / 2, c->out_part[k] = k % 2;
    }
    free(in);
    free(out);
    if (!ok) return false;
    tine_buf_printf(rep, "dft n=%d %s %s, %d transforms per vector: %d adds, %d multiplies, %d negations\n", n,
                    c->elem.bits == 64 ? "f64" : "f32", o->target, c->v, counts.adds, counts.muls, counts.negs);
    if (!tine_tprog_select(c->prog)) return false;
    tine_tprog_report_line(rep, "select", c->prog, (tine_now() - t0) * 1e3);
    tine_tprog_opt po = {.no_peephole = o->no_peephole, .no_schedule = o->no_schedule, .contract = !o->no_contract,
                         .nregs = c->nregs};
    if (!tine_tprog_optimize(c->prog, &po, NULL, rep)) return false;
    return true;
}

/* The report's last line: what LLVM's register allocator spilled in the final assembly
 * (its own "Spill" and "Reload" notes, folded reloads included), over the function's
 * block loops. */
static void asm_spills(tine_ctx_t *ctx, const dft_codelet *c, tine_buf *rep) {
    size_t n = 0;
    char *a = dft_emit_llvm(ctx, c, TINE_EMIT_ASM, &n);
    if (!a) return;
    int spills = 0, reloads = 0, insns = 0;
    for (char *line = a; line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = 0;
        if (line[0] == '\t' && line[1] != '.') insns++;
        if (strstr(line, "Spill")) spills++;
        else if (strstr(line, "Reload")) reloads++;
        line = end ? end + 1 : NULL;
    }
    tine_buf_printf(rep, "assembly  %5d instructions in %s's loops, %d spills and %d reloads of vector registers\n", insns,
                    c->name, spills, reloads);
    free(a);
}

char *dft_emit_header(const dft_codelet *c) {
    const char *T = c->elem.bits == 64 ? "double" : "float";
    return tine_xasprintf("/* %s: %d-point complex DFTs (tine dft), FFTW's layout: element j of transform t at\n"
                          " * in[2 * (t * idist + j * istride)] (real, imaginary), unnormalized. In place when\n"
                          " * in == out with one layout for both; otherwise in and out must not overlap. */\n"
                          "#ifndef %s_H\n#define %s_H\n#include <stddef.h>\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
                          "void %s(const %s *in, %s *out, ptrdiff_t howmany, ptrdiff_t istride, ptrdiff_t idist,\n"
                          "        ptrdiff_t ostride, ptrdiff_t odist);\n"
                          "#ifdef __cplusplus\n}\n#endif\n#endif\n",
                          c->name, c->n, c->name, c->name, c->name, T, T);
}

static bool name_ok(const char *s) {
    if (!s || !*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return false;
    return true;
}

char *tine_dft(tine_ctx_t *ctx, const tine_dft_opts *o, size_t *size, char **report) {
    if (report) *report = NULL;
    if (!tine_dft_size_ok(o->n)) {
        tine_set_error(ctx, "tine dft: --n %d: the sizes are 2 to 64", o->n);
        return NULL;
    }
    const char *type = o->type ? o->type : "f32";
    if (strcmp(type, "f32") && strcmp(type, "f64")) {
        tine_set_error(ctx, "tine dft: --type %s: f32 or f64", type);
        return NULL;
    }
    const char *emit = o->emit ? o->emit : "obj";
    tine_emit_kind_t kind = !strcmp(emit, "obj") ? TINE_EMIT_OBJ : !strcmp(emit, "asm") ? TINE_EMIT_ASM
                            : !strcmp(emit, "llvm")                      ? TINE_EMIT_LLVM
                                                                          : TINE_EMIT_NKINDS;
    bool c_out = !strcmp(emit, "c"), h_out = !strcmp(emit, "h"), listing = !strcmp(emit, "tprog");
    if (kind == TINE_EMIT_NKINDS && !c_out && !h_out && !listing) {
        tine_set_error(ctx, "tine dft: --emit %s: obj, h, c, asm, llvm or tprog", emit);
        return NULL;
    }
    char defname[32];
    snprintf(defname, sizeof defname, "tine_dft_%d", o->n);
    dft_codelet c = {.n = o->n, .name = o->name ? o->name : defname};
    if (!name_ok(c.name)) {
        tine_set_error(ctx, "tine dft: --name %s: a C identifier", c.name);
        return NULL;
    }
    c.elem = (tine_type_t){.kind = TINE_FLOAT, .bits = (uint8_t)(type[1] == '6' ? 64 : 32), .lanes = 1};
    if (!o->target || !tine_target_find(o->target)) {
        tine_set_error(ctx, "tine dft: --target %s: not a target tine knows", o->target ? o->target : "(none)");
        return NULL;
    }
    tine_buf rep = {0};
    char *out = NULL;
    if (h_out) {
        out = dft_emit_header(&c);
        *size = strlen(out);
    } else if (dft_build(ctx, o, &c, &rep)) {
        if (listing) {
            tine_buf b = {0};
            tine_tprog_print(c.prog, &b);
            out = b.p ? b.p : tine_strdup("");
            *size = b.n;
        } else if (c_out) {
            out = dft_emit_c(ctx, &c, size);
        } else {
            out = dft_emit_llvm(ctx, &c, kind, size);
        }
        if (out && report) asm_spills(ctx, &c, &rep);
    }
    dft_codelet_free(&c);
    if (report && out) *report = rep.p ? rep.p : tine_strdup("");
    else free(rep.p);
    return out;
}
