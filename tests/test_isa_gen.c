/* test_isa_gen.c — every fixed (imported) entry of the generated x86 description
 * (x86gen, src/targets/x86.gen.isa) run on this machine through its C intrinsic against
 * the interpreter evaluating its INSN node, bit for bit, every lane.
 *
 * For each entry whose form's features the host has, the test writes one C wrapper per
 * entry (and per immediate value tried) that loads the operands from memory, calls the
 * intrinsic and stores the result: a vector operand as __m128i/__m256i/__m512i by its
 * bits, a mask (boolxN) as __mmask8/16/32/64 with lane j in bit j (8 bits for fewer than
 * 8 lanes), a scalar as the C integer of its bits and signedness, an immediate as a
 * literal. The wrappers are split over a few C files, compiled two at a time with
 * clang-19 -O1 -march=native into one shared object (cshared.h), and dlopened.
 *
 * Inputs per entry: edge vectors (edges.h's values of each operand's type, spread over
 * the lanes; masks all clear, all set, alternating, single bits), then random vectors
 * until at least RANDOM random lane values (the argument: 10,000 in the normal build,
 * 500 under the sanitizers, where the interpreter is slow) per entry, split over its
 * immediate values (each of which takes every third edge vector). Operands of at most 16
 * bits in all (set1 of an i8) get every input instead. Immediates: 0 1 2 3 4 7 8 15 16 17 31 32 33 63 64 127 128 255 and
 * three random values, those below 2^BITS. A mask result's bits past its lanes must be 0.
 *
 * It reports the entries checked, the entries not run here (counted by missing feature)
 * and each mismatch with its first failing input (operands and both results); a mismatch
 * fails. The test can fail: entries of tests/data/isa_gen_sample.isa with a mutated
 * semantics (a + for a -, a shift turned around, the mask's two arms swapped) must be
 * reported.
 *
 * The layers that read an entry through its semantics are checked on the embedded one:
 * Z3 proves _mm_adds_epi8 equal to x86.isa's paddsb and _mm256_mask_add_epi16 (a mask
 * operand) equal to select(k, a + b, src); bounds of _mm_cvtepi8_epi16 are [-128, 127];
 * the JIT refuses an entry without an llvm line; a six-operand entry loads and evaluates.
 *
 * The comparisons run in two processes when there are many; the report gives the wall
 * and CPU seconds of the C build and of the comparisons (TINE_ISA_GEN_KEEP=1 keeps the C).
 *
 * Usage: test_isa_gen [RANDOM] [--file F.isa] [--insn NAME] [-v]
 *   --file reads F.isa in x86gen's place (a sample, or the importer's output).
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "ir/ast.h"
#include "targets/targets.h"
#include "verify/smt.h"

#include "testutil.h"
#include "edges.h"
#include "cshared.h"

#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

typedef void (*wrapper)(const void *const *ops, void *out);

static uint64_t rng = 0x15a6e415a6e4ull;
static uint64_t rnd(void) { return tine_rand64(&rng); }
static bool verbose;

/* CPU seconds of this process and of its children waited for (clang; the second
 * process of the comparisons): the machine's load does not change them, as it does the
 * wall clock. */
static double cpu_seconds(void) {
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a);
    getrusage(RUSAGE_CHILDREN, &b);
    return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) +
           1e-6 * (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec);
}
static bool mutant; /* a mutated entry is being run: its mismatch is expected, not a failure */

enum { K_VEC, K_MASK, K_SCALAR };
static int kind_of(tine_type_t t) { return t.kind == TINE_BOOL ? K_MASK : t.lanes > 1 ? K_VEC : K_SCALAR; }
static int mask_bits(int lanes) { return lanes < 8 ? 8 : lanes; }
static uint64_t lane_mask(tine_type_t t) { return t.kind == TINE_BOOL ? 1 : g_mask(t.bits); }

/* The C type of an operand or result. */
static void c_type(tine_type_t t, char *out, size_t n) {
    switch (kind_of(t)) {
    case K_VEC: snprintf(out, n, "__m%di", t.lanes * t.bits); break;
    case K_MASK: snprintf(out, n, "__mmask%d", mask_bits(t.lanes)); break;
    default: snprintf(out, n, "%sint%d_t", t.kind == TINE_UINT ? "u" : "", t.bits);
    }
}

/* Lane values to the bytes the wrapper reads (and back): a vector's lanes in order, a
 * mask's bits, a scalar's value; little-endian, at most 64 bytes. */
static void to_bytes(tine_type_t t, const uint64_t *lanes, uint8_t *out) {
    memset(out, 0, 64);
    if (kind_of(t) == K_VEC) {
        for (int l = 0; l < t.lanes; l++) memcpy(out + (size_t)l * (size_t)(t.bits / 8), &lanes[l], (size_t)(t.bits / 8));
        return;
    }
    uint64_t v = 0;
    if (kind_of(t) == K_MASK)
        for (int l = 0; l < t.lanes; l++) v |= (lanes[l] & 1) << l;
    else v = lanes[0] & g_mask(t.bits);
    memcpy(out, &v, 8);
}

static void from_bytes(tine_type_t t, const uint8_t *in, uint64_t *lanes, uint64_t *rest) {
    *rest = 0;
    if (kind_of(t) == K_VEC) {
        for (int l = 0; l < t.lanes; l++) {
            lanes[l] = 0;
            memcpy(&lanes[l], in + (size_t)l * (size_t)(t.bits / 8), (size_t)(t.bits / 8));
        }
        return;
    }
    uint64_t v = 0;
    memcpy(&v, in, kind_of(t) == K_MASK ? (size_t)mask_bits(t.lanes) / 8 : (size_t)t.bits / 8);
    if (kind_of(t) == K_MASK) {
        for (int l = 0; l < t.lanes; l++) lanes[l] = v >> l & 1;
        *rest = t.lanes < 64 ? v >> t.lanes : 0; /* the bits past the lanes: 0 */
    } else lanes[0] = v;
}

/* The immediate values tried for an immediate of `bits` bits. */
static int imm_values(int bits, uint64_t *out) {
    static const uint64_t FIXED[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 127, 128, 255};
    int n = 0;
    uint64_t m = g_mask(bits);
    for (size_t i = 0; i < sizeof FIXED / sizeof *FIXED; i++)
        if (FIXED[i] <= m) out[n++] = FIXED[i];
    for (int i = 0; i < 3; i++) out[n++] = rnd() & m;
    return n;
}

/* ---- one description's entries -------------------------------------------------------- */

typedef struct {
    int k;              /* the entry */
    int nimm;           /* immediate values tried (1 without an immediate) */
    uint64_t imm[24];
    int first;          /* its first wrapper's number */
} entry;

typedef struct {
    int checked, not_run, mismatched, wrappers, undeclared;
    long calls, mismatches;
    double build_s, check_s;         /* wall seconds: the C build, the comparisons */
    double build_cpu, check_cpu;     /* and their CPU seconds (every process) */
    int missing[32]; /* entries not run, by the feature the host lacks */
} tally;

static void write_wrapper(FILE *f, const tine_insn *in, int num, const uint64_t *imm) {
    char ty[32];
    fprintf(f, "void w%d(const void *const *ops, void *out) {\n", num);
    for (int j = 0; j < in->nops; j++) {
        if (j == in->imm) continue;
        c_type(in->optype[j], ty, sizeof ty);
        fprintf(f, "    %s a%d;\n    memcpy(&a%d, ops[%d], sizeof a%d);\n", ty, j, j, j, j);
    }
    c_type(in->result, ty, sizeof ty);
    fprintf(f, "    %s r = %s(", ty, in->form[0].c);
    for (int j = 0; j < in->nops; j++) {
        if (j == in->imm) fprintf(f, "%s%llu", j ? ", " : "", (unsigned long long)*imm);
        else fprintf(f, "%sa%d", j ? ", " : "", j);
    }
    fprintf(f, ");\n    memcpy(out, &r, sizeof r);\n}\n");
}

/* Writes the wrappers into nfiles C files under dir and builds them into dir/gen.so;
 * the loaded object, or NULL after the failure. */
static void *build_wrappers(const tine_isa *isa, const entry *es, int n, int nwrap, const char *dir) {
    int nfiles = nwrap / 600 + 1;
    if (nfiles > 8) nfiles = 8;
    char *srcs[8], so[300], log[8192];
    FILE *f[8];
    for (int i = 0; i < nfiles; i++) {
        srcs[i] = malloc(300);
        snprintf(srcs[i], 300, "%s/gen%d.c", dir, i);
        f[i] = fopen(srcs[i], "w");
        if (!f[i]) {
            fail("cannot write %s", srcs[i]);
            for (int j = 0; j <= i; j++) {
                if (j < i) fclose(f[j]);
                free(srcs[j]);
            }
            return NULL;
        }
        fprintf(f[i], "#include <immintrin.h>\n#include <stdint.h>\n#include <string.h>\n");
    }
    for (int e = 0; e < n; e++)
        for (int i = 0; i < es[e].nimm; i++)
            write_wrapper(f[(es[e].first + i) * nfiles / (nwrap ? nwrap : 1)], &isa->insn[es[e].k], es[e].first + i,
                          &es[e].imm[i]);
    for (int i = 0; i < nfiles; i++) fclose(f[i]);
    snprintf(so, sizeof so, "%s/gen.so", dir);
    bool built = cshared_build(srcs, nfiles, so, log, sizeof log);
    void *lib = built ? dlopen(so, RTLD_NOW) : NULL;
    check(lib != NULL, "the %d wrappers (%d files) do not build with clang-19: %s", nwrap, nfiles,
          built ? dlerror() : log);
    cshared_clean(srcs, nfiles);
    for (int i = 0; i < nfiles; i++) {
        if (!getenv("TINE_ISA_GEN_KEEP")) remove(srcs[i]); /* kept: the C to look at */
        free(srcs[i]);
    }
    remove(so);
    return lib;
}

static void print_lanes(const char *what, tine_type_t t, const uint64_t *v) {
    printf("    %s:", what);
    int n = t.lanes;
    for (int l = 0; l < n; l++) printf(" %#llx", (unsigned long long)(v[l] & lane_mask(t)));
    printf("\n");
}

/* One input for entry e at immediate value i: the model and the machine, compared. */
typedef struct {
    tine_ctx_t *ctx;
    const tine_insn *in;
    tine_expr_t *node, *vars[TINE_INSN_MAX_OPS];
    tine_env_t *env; /* rebound for every input */
    wrapper fn;
    uint64_t imm;
    long mismatches;
} run;

static void run_one(run *r, uint64_t ops[][64]) {
    const tine_insn *in = r->in;
    uint8_t bytes[TINE_INSN_MAX_OPS][64], got[64];
    const void *ptrs[TINE_INSN_MAX_OPS];
    for (int j = 0; j < in->nops; j++) {
        if (j == in->imm) ops[j][0] = r->imm;
        tine_env_bind(r->env, r->vars[j], ops[j]);
        to_bytes(in->optype[j], ops[j], bytes[j]);
        ptrs[j] = bytes[j];
    }
    uint64_t want[64], have[64], rest;
    int rc = tine_eval(r->ctx, r->node, r->env, want);
    if (rc != 0) {
        if (r->mismatches++ == 0) fail("%s: the interpreter fails: %s", in->name, tine_error(r->ctx));
        return;
    }
    memset(got, 0, sizeof got);
    r->fn(ptrs, got);
    tine_type_t rt = in->result;
    from_bytes(rt, got, have, &rest);
    int bad = rest ? 0 : -1;
    for (int l = 0; l < rt.lanes && bad < 0; l++)
        if ((have[l] ^ want[l]) & lane_mask(rt)) bad = l;
    if (bad < 0) return;
    if (r->mismatches++ > 0) return;
    char head[160];
    snprintf(head, sizeof head, "%s (%s)%s: lane %d differs%s", in->name, in->form[0].c,
             in->imm >= 0 ? " at an immediate" : "", bad, rest ? " (mask bits past the lanes are set)" : "");
    if (mutant) printf("  mutant reported: %s\n", head);
    else fail("%s", head);
    if (in->imm >= 0) printf("    %s = %llu\n", in->opname[in->imm], (unsigned long long)r->imm);
    for (int j = 0; j < in->nops; j++)
        if (j != in->imm) print_lanes(in->opname[j], in->optype[j], ops[j]);
    print_lanes("machine", rt, have);
    print_lanes("model  ", rt, want);
}

/* An operand's lane values for input v: edge vectors first, then random ones. */
static void fill(tine_type_t t, int j, long v, long nedge, uint64_t *out) {
    if (t.kind == TINE_BOOL) {
        uint64_t pat[] = {0, ~0ull, 0x5555555555555555ull, ~0x5555555555555555ull, 1, 1ull << (t.lanes - 1), rnd()};
        uint64_t m = v < nedge ? pat[v % 7] : rnd();
        if (v < nedge && v % 7 == 6) m = 1ull << (rnd() % (uint64_t)t.lanes);
        for (int l = 0; l < t.lanes; l++) out[l] = m >> l & 1;
        return;
    }
    uint64_t e[128];
    int ne = v < nedge ? g_edges(t.bits, t.kind == TINE_INT, e) : 1;
    for (int l = 0; l < t.lanes; l++) {
        if (v < nedge) out[l] = e[(size_t)(v * 7 + l * (j + 3)) % (size_t)ne];
        else {
            uint64_t r = rnd(), m = g_mask(t.bits);
            switch (r % 4) { /* uniform bits, near the edges, small */
            case 0: out[l] = rnd() & m; break;
            case 1: out[l] = (g_min(t.bits, t.kind == TINE_INT) + rnd() % 4) & m; break;
            case 2: out[l] = (g_max(t.bits, t.kind == TINE_INT) - rnd() % 4) & m; break;
            default: out[l] = (rnd() >> (rnd() % 64)) & m;
            }
        }
    }
}

static void check_entry(tine_ctx_t *ctx, const tine_isa *isa, const entry *e, void *lib, int random, tally *t) {
    const tine_insn *in = &isa->insn[e->k];
    run r = {.ctx = ctx, .in = in, .env = tine_env_new(ctx)};
    for (int j = 0; j < in->nops; j++) {
        char name[16]; /* "x" and an int */
        snprintf(name, sizeof name, "x%d", j);
        r.vars[j] = tine_var(ctx, name, in->optype[j]);
    }
    r.node = tine_insn_make(ctx, (uint32_t)tine_isa_lookup(ctx, in->name), in->nops, r.vars);
    if (!r.node) {
        fail("%s: no node: %s", in->name, tine_error(ctx));
        t->mismatched++;
        tine_env_free(r.env);
        return;
    }
    /* lanes per input: the widest operand's; edge vectors: the most edges of any operand */
    int L = 1;
    long nedge = 0;
    for (int j = 0; j < in->nops; j++) {
        uint64_t ebuf[128];
        if (j == in->imm) continue;
        if (in->optype[j].lanes > L) L = in->optype[j].lanes;
        long ne = in->optype[j].kind == TINE_BOOL ? 14 : g_edges(in->optype[j].bits, 1, ebuf);
        if (ne > nedge) nedge = ne;
    }
    long nrand = (random / e->nimm + L - 1) / L;
    /* inputs of a few bits in all (set1 of an i8) are tried every one instead */
    int inbits = 0;
    for (int j = 0; j < in->nops; j++)
        if (j != in->imm) inbits += in->optype[j].lanes * (in->optype[j].kind == TINE_BOOL ? 1 : in->optype[j].bits);
    bool every = inbits <= 16 && 1l << inbits <= nedge + nrand;
    for (int i = 0; i < e->nimm; i++) {
        char sym[24];
        snprintf(sym, sizeof sym, "w%d", e->first + i);
        r.fn = (wrapper)(uintptr_t)dlsym(lib, sym);
        r.imm = e->imm[i];
        if (!r.fn) {
            fail("%s: no wrapper %s", in->name, sym);
            break;
        }
        /* with an immediate, each value takes every third edge vector, the three offsets in
           turn: every edge at some immediate values, at a third of the cost */
        int stride = e->nimm > 1 ? 3 : 1;
        for (long v = every ? 0 : i % stride; v < (every ? 1l << inbits : nedge + nrand) && r.mismatches == 0;
             v += every || v >= nedge ? 1 : stride) {
            uint64_t ops[TINE_INSN_MAX_OPS][64];
            if (every) { /* input v's bits, operand by operand, lane by lane */
                int at = 0;
                for (int j = 0; j < in->nops; j++) {
                    if (j == in->imm) continue;
                    int b = in->optype[j].kind == TINE_BOOL ? 1 : in->optype[j].bits;
                    for (int l = 0; l < in->optype[j].lanes; l++, at += b) ops[j][l] = (uint64_t)v >> at & g_mask(b);
                }
            } else
                for (int j = 0; j < in->nops; j++)
                    if (j != in->imm) fill(in->optype[j], j, v, nedge, ops[j]);
            run_one(&r, ops);
            t->calls++;
        }
    }
    tine_env_free(r.env);
    t->checked++;
    t->mismatches += r.mismatches;
    t->mismatched += r.mismatches > 0;
    if (verbose) printf("  %-32s %s\n", in->name, r.mismatches ? "MISMATCH" : "ok");
}

/* The entries compared, in two processes when there are many (the machine's two cores:
 * the interpreter is most of the time); the child's tally and counts come back through a
 * pipe. */
static void check_entries(tine_ctx_t *ctx, const tine_isa *isa, const entry *es, int n, void *lib, int random, tally *t) {
    int fd[2] = {-1, -1};
    fflush(stdout); /* not printed twice by the child */
    long long pass0 = g_pass, fail0 = g_fail;
    pid_t pid = n >= 64 && pipe(fd) == 0 ? fork() : -1;
    if (pid < 0 && fd[0] >= 0) {
        close(fd[0]);
        close(fd[1]);
    }
    bool child = pid == 0, split = pid >= 0;
    tally own = {0}; /* the child's */
    for (int e = split && child; e < n; e += split ? 2 : 1) check_entry(ctx, isa, &es[e], lib, random, child ? &own : t);
    if (child) {
        t = &own;
        long long counts[2] = {g_pass, g_fail};
        fflush(stdout);
        bool ok = write(fd[1], t, sizeof *t) == (ssize_t)sizeof *t && write(fd[1], counts, sizeof counts) == (ssize_t)sizeof counts;
        _exit(ok ? 0 : 1);
    }
    if (!split) return;
    close(fd[1]);
    tally c;
    long long counts[2];
    int status = 0;
    bool got = read(fd[0], &c, sizeof c) == (ssize_t)sizeof c && read(fd[0], counts, sizeof counts) == (ssize_t)sizeof counts;
    close(fd[0]);
    waitpid(pid, &status, 0);
    check(got && WIFEXITED(status) && WEXITSTATUS(status) == 0, "the second process of the comparisons ended badly");
    if (!got) return;
    t->checked += c.checked;
    t->mismatched += c.mismatched;
    t->calls += c.calls;
    t->mismatches += c.mismatches;
    g_pass += counts[0] - pass0; /* the child's counts began at the parent's */
    g_fail += counts[1] - fail0;
}

/* The entries whose C intrinsic clang-19's headers do not declare (the guide lists a few
 * that only Microsoft's compiler has, _mm_cvtsi64x_si128): one -fsyntax-only run over a
 * file naming each (a macro intrinsic is declared by being defined). undeclared[k] is set
 * for those; false when the probe itself cannot run. */
static bool probe_names(const tine_isa *isa, bool *undeclared) {
    char dir[] = "/tmp/tine-isagen-probe-XXXXXX", path[64];
    if (!mkdtemp(dir)) return false;
    snprintf(path, sizeof path, "%s/probe.c", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        rmdir(dir);
        return false;
    }
    fprintf(f, "#include <immintrin.h>\n");
    for (int k = 0; k < isa->n; k++)
        if (isa->insn[k].fixed)
            fprintf(f, "#ifndef %s\nvoid *probe%d = (void *)&%s;\n#endif\n", isa->insn[k].form[0].c, k,
                    isa->insn[k].form[0].c);
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "clang-19 -march=native -Wno-invalid-feature-combination -ferror-limit=0 -fsyntax-only %s 2>&1",
             path);
    FILE *p = popen(cmd, "r");
    if (!p) {
        remove(path), rmdir(dir);
        return false;
    }
    char line[1024];
    while (fgets(line, sizeof line, p)) {
        const char *q = strstr(line, "undeclared identifier '");
        if (!q) continue;
        q += strlen("undeclared identifier '");
        const char *e = strchr(q, '\'');
        if (!e) continue;
        for (int k = 0; k < isa->n; k++)
            if (isa->insn[k].fixed && strlen(isa->insn[k].form[0].c) == (size_t)(e - q) &&
                !strncmp(isa->insn[k].form[0].c, q, (size_t)(e - q)))
                undeclared[k] = true;
    }
    pclose(p);
    remove(path), rmdir(dir);
    return true;
}

/* Checks every fixed entry of isa (or the one named only) whose form the host has. */
static tally check_description(tine_ctx_t *ctx, const tine_isa *isa, const char *only, int random) {
    tally t = {0};
    uint32_t host = tine_target_host_mask(isa);
    entry *es = malloc(sizeof *es * (size_t)(isa->n ? isa->n : 1));
    bool *undeclared = calloc((size_t)(isa->n ? isa->n : 1), sizeof *undeclared);
    check(probe_names(isa, undeclared), "clang-19 runs to probe the C intrinsics' names");
    int n = 0, nwrap = 0;
    for (int k = 0; k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        if (!in->fixed || (only && strcmp(only, in->name))) continue;
        if (undeclared[k]) {
            t.undeclared++;
            if (verbose) printf("  %s: clang-19 does not declare %s\n", in->name, in->form[0].c);
            continue;
        }
        uint32_t lacks = in->form[0].features & ~host;
        if (lacks) {
            t.not_run++;
            for (int f = 0; f < isa->nfeatures; f++) t.missing[f] += lacks >> f & 1;
            continue;
        }
        entry *e = &es[n++];
        e->k = k;
        e->first = nwrap;
        e->nimm = in->imm >= 0 ? imm_values(in->imm_bits, e->imm) : 1;
        if (in->imm < 0) e->imm[0] = 0;
        nwrap += e->nimm;
    }
    char dir[] = "/tmp/tine-isagen-XXXXXX";
    void *lib = NULL;
    if (n && !mkdtemp(dir)) fail("cannot make a temporary directory");
    else if (n) {
        double t0 = now(), c0 = cpu_seconds();
        lib = build_wrappers(isa, es, n, nwrap, dir);
        t.build_cpu = cpu_seconds() - c0;
        if (!getenv("TINE_ISA_GEN_KEEP")) rmdir(dir);
        else printf("  the C wrappers are in %s\n", dir);
        t.build_s = now() - t0;
    }
    t.wrappers = nwrap;
    double t1 = now(), c1 = cpu_seconds();
    if (lib) check_entries(ctx, isa, es, n, lib, random, &t);
    t.check_s = now() - t1;
    t.check_cpu = cpu_seconds() - c1;
    if (lib) dlclose(lib);
    free(es);
    free(undeclared);
    return t;
}

/* ---- the layers that read an instruction through its semantics ----------------------- */

static tine_expr_t *node2(tine_ctx_t *ctx, const char *name, tine_expr_t *a, tine_expr_t *b) {
    tine_expr_t *ops[2] = {a, b};
    int code = tine_isa_lookup(ctx, name);
    return code < 0 ? NULL : tine_insn_make(ctx, (uint32_t)code, b ? 2 : 1, ops);
}

/* x86.isa's entries against the imported ones: for every form of x86.isa whose C intrinsic
 * x86gen has too (x86.isa's semantics are the 128-bit entry's, extended to any lanes by
 * src/targets/imported.c; at 256 and 512 bits this checks that extension against the
 * guide's own wider entries), the two instructions on the imported entry's operands
 * (reinterpreted where the guide types a lane unsigned and x86.isa signed) must agree —
 * by Z3 for the 128-bit forms, on edge and random inputs in the interpreter for every
 * form. x86.isa's "pack" entries take their two registers as one operand and are left out,
 * as are forms whose operands or results do not match lane for lane (pmuldq's 64-bit
 * operand lanes, psadbw's 64-bit result lanes where the guide types 16-bit ones). */
static void test_hand_entries(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    const tine_isa *hand = tine_isa_get(ctx, "x86"), *gen = tine_isa_get(ctx, "x86gen");
    int compared = 0, proven = 0, skipped = 0;
    for (int k = 0; hand && gen && k < hand->n; k++) {
        const tine_insn *h = &hand->insn[k];
        for (int f = 0; f < h->nforms; f++) {
            int g = -1;
            for (int i = 0; i < gen->n && g < 0; i++)
                if (!strcmp(gen->insn[i].form[0].c, h->form[f].c)) g = i;
            if (g < 0) continue;
            const tine_insn *in = &gen->insn[g];
            bool fits = !h->pack && in->nops == h->nops;
            for (int j = 0; j < h->nops && fits; j++)
                fits = in->optype[j].bits == h->optype[j].bits && in->optype[j].lanes > 1;
            if (!fits) {
                skipped++;
                continue;
            }
            tine_expr_t *vars[TINE_INSN_MAX_OPS], *hops[TINE_INSN_MAX_OPS];
            for (int j = 0; j < in->nops; j++) {
                char name[16];
                snprintf(name, sizeof name, "x%d", j);
                vars[j] = tine_var(ctx, name, in->optype[j]);
                hops[j] = tine_reinterpret(ctx, h->optype[j], vars[j]);
            }
            int hc = tine_isa_lookup(ctx, h->name), gc = tine_isa_lookup(ctx, in->name);
            tine_expr_t *he = hc < 0 ? NULL : tine_insn_make(ctx, (uint32_t)hc, h->nops, hops);
            tine_expr_t *ge = gc < 0 ? NULL : tine_insn_make(ctx, (uint32_t)gc, in->nops, vars);
            if (he && ge && !tine_type_eq(he->type, ge->type) && he->type.lanes == ge->type.lanes &&
                he->type.bits == ge->type.bits)
                ge = tine_reinterpret(ctx, he->type, ge);
            if (he && ge && he->type.lanes != ge->type.lanes) { /* psadbw: u64 lanes here, u16 in the guide */
                skipped++;
                continue;
            }
            if (!he || !ge || !tine_type_eq(he->type, ge->type)) {
                fail("%s (%s) and the imported %s cannot be compared: %s", h->name, h->form[f].c, in->name,
                     tine_error(ctx));
                continue;
            }
            compared++;
            /* the interpreter, on random and edge lanes */
            uint64_t lanes[TINE_INSN_MAX_OPS][64], r1[64], r2[64];
            bool same = true;
            for (int t = 0; t < 400 && same; t++) {
                tine_env_t *env = tine_env_new(ctx);
                for (int j = 0; j < in->nops; j++) {
                    fill(in->optype[j], j, t, 50, lanes[j]); /* 50 edge vectors, then random ones */
                    tine_env_bind(env, vars[j], lanes[j]);
                }
                same = !tine_eval(ctx, he, env, r1) && !tine_eval(ctx, ge, env, r2) &&
                       !memcmp(r1, r2, sizeof(uint64_t) * (size_t)he->type.lanes);
                tine_env_free(env);
            }
            check(same, "%s (%s) disagrees with the imported %s on some input", h->name, h->form[f].c, in->name);
            if (same && h->form[f].bits == 128) {
                char why[512];
                double sec;
                tine_smt *z = tine_smt_new(ctx, 60000);
                tine_smt_result r = tine_smt_equal(z, he, ge, why, sizeof why, &sec);
                tine_smt_free(z);
                check(r == TINE_SMT_PROVEN, "Z3: %s (%s) is not proven equal to the imported %s: %s", h->name,
                      h->form[f].c, in->name, why);
                proven += r == TINE_SMT_PROVEN;
            }
        }
    }
    printf("x86.isa against x86gen: %d forms compared (%d proven by Z3), %d left out\n", compared, proven, skipped);
    check(compared >= 80, "most of x86.isa's forms have an imported twin (%d)", compared);
    tine_ctx_free(ctx);
}

/* x86.isa's semantics are calls of imported entries (src/targets/imported.c), which have
 * one shape each; at other lanes the call must still mean what the instruction does. Each
 * case states that independently, as x86.isa wrote it before it called the imported
 * entries, and must agree with the instruction at lane counts below, at and above one
 * register: lane-wise and strided entries (direct), the packs (block by block, padded
 * below a register; psadbw states its own semantics, x86.isa says why), on edge and random inputs in the interpreter, and by Z3 at
 * the smallest count. Each instruction's semantics at 2 registers must also be direct
 * (no concat) where the case says so. */
static void collect_vars(const tine_expr_t *e, const tine_expr_t **vars, int *n) {
    if (e->op == TINE_OP_VAR) {
        for (int i = 0; i < *n; i++)
            if (vars[i] == e) return;
        if (*n < 8) vars[(*n)++] = e;
        return;
    }
    for (int i = 0; i < e->nops; i++) collect_vars(e->ops[i], vars, n);
}

static bool has_concat(const tine_expr_t *e) {
    if (e->op == TINE_OP_CONCAT) return true;
    for (int i = 0; i < e->nops; i++)
        if (has_concat(e->ops[i])) return true;
    return false;
}

static void test_derived(void) {
    static const struct {
        const char *insn, *ref; /* %d: the lanes / the given divisor */
        int div, lanes[4];
        bool direct;
    } cases[] = {
        {"pavgb(a_u8, b_u8)", "u8((u16(a_u8) + u16(b_u8) + 1) >> 1)", 1, {4, 16, 32, 64}, true},
        {"paddsb(a_i8, b_i8)", "saturating_cast<i8>(i16(a_i8) + i16(b_i8))", 1, {8, 16, 48, 64}, true},
        {"psubusw(a_u16, b_u16)", "saturating_cast<u16>(i32(a_u16) - i32(b_u16))", 1, {4, 8, 16, 32}, true},
        {"pabsb(a_i8)", "reinterpret<u8>(select(a_i8 < 0, -a_i8, a_i8))", 1, {8, 16, 32, 64}, true},
        {"pminsd(a_i32, b_i32)", "min(a_i32, b_i32)", 1, {2, 4, 8, 16}, true},
        {"pmaxuq(a_u64, b_u64)", "max(a_u64, b_u64)", 1, {2, 4, 8, 8}, true},
        {"pmulhw(a_i16, b_i16)", "i16((i32(a_i16) * i32(b_i16)) >> 16)", 1, {4, 8, 16, 32}, true},
        {"pmulhrsw(a_i16, b_i16)", "i16((i32(a_i16) * i32(b_i16) + 16384) >> 15)", 1, {4, 8, 16, 32}, true},
        {"pmuldq(a_i32, b_i32)", "widening_mul(deinterleave(a_i32, 2, 0), deinterleave(b_i32, 2, 0))", 1, {2, 4, 8, 16}, true},
        {"pmaddwd(a_i16, b_i16)", "vector_reduce_add(i32(a_i16) * i32(b_i16), %d)", 2, {4, 8, 16, 32}, true},
        {"pmaddubsw(a_u8, b_i8)", "saturating_cast<i16>(vector_reduce_add(i32(a_u8) * i32(b_i8), %d))", 2, {8, 16, 32, 64}, true},
        {"vpdpbusd(acc_i32x%d, a_u8, b_i8)", "acc_i32x%d + vector_reduce_add(i32(a_u8) * i32(b_i8), %d)", 4, {8, 16, 32, 64}, true},
        {"vpdpwssd(acc_i32x%d, a_i16, b_i16)", "acc_i32x%d + vector_reduce_add(i32(a_i16) * i32(b_i16), %d)", 2, {4, 8, 16, 32}, true},
        {"psadbw(a_u8, b_u8)", "vector_reduce_add(u64(select(a_u8 > b_u8, a_u8 - b_u8, b_u8 - a_u8)), %d)", 8, {8, 16, 32, 64}, true},
        {"packsswb(a_i16)", "saturating_cast<i8>(a_i16)", 1, {8, 16, 32, 64}, false},
        {"packuswb(a_i16)", "saturating_cast<u8>(a_i16)", 1, {8, 16, 32, 64}, false},
        {"packssdw(a_i32)", "saturating_cast<i16>(a_i32)", 1, {4, 8, 16, 32}, false},
        {"packusdw(a_i32)", "saturating_cast<u16>(a_i32)", 1, {4, 8, 16, 32}, false},
    };
    tine_ctx_t *ctx = tine_ctx_new();
    int compared = 0, proven = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int li = 0; li < 4; li++) {
            int L = cases[c].lanes[li], d = L / cases[c].div;
            char it[160], rt[200];
            snprintf(it, sizeof it, cases[c].insn, d);
            if (strstr(cases[c].ref, "acc_")) snprintf(rt, sizeof rt, cases[c].ref, d, d);
            else snprintf(rt, sizeof rt, cases[c].ref, d);
            tine_set_lanes(ctx, L);
            tine_expr_t *he = tine_parse(ctx, it, "insn"), *re = tine_parse(ctx, rt, "ref");
            if (!he || !re || !tine_type_eq(he->type, re->type)) {
                fail("%s at %d lanes cannot be compared with %s: %s", it, L, rt, tine_error(ctx));
                continue;
            }
            const tine_expr_t *const *ph;
            const tine_expr_t *sem = tine_insn_template(ctx, he, &ph, false);
            if (li == 2)
                check(has_concat(sem) == !cases[c].direct, "%s at %d lanes: the semantics are %s, expected %s", it, L,
                      has_concat(sem) ? "block by block" : "direct", cases[c].direct ? "direct" : "block by block");
            const tine_expr_t *vars[8];
            int nv = 0;
            collect_vars(re, vars, &nv);
            collect_vars(he, vars, &nv);
            uint64_t lanes[8][64], r1[64], r2[64];
            bool same = true;
            for (int t = 0; t < 300 && same; t++) {
                tine_env_t *env = tine_env_new(ctx);
                for (int j = 0; j < nv; j++) {
                    fill(vars[j]->type, j, t, 50, lanes[j]);
                    tine_env_bind(env, vars[j], lanes[j]);
                }
                same = !tine_eval(ctx, he, env, r1) && !tine_eval(ctx, re, env, r2) &&
                       !memcmp(r1, r2, sizeof(uint64_t) * (size_t)he->type.lanes);
                tine_env_free(env);
            }
            check(same, "%s at %d lanes disagrees with %s on some input", it, L, rt);
            compared++;
            if (same && li == 0) {
                char why[512];
                double sec;
                tine_smt *z = tine_smt_new(ctx, 60000);
                tine_smt_result r = tine_smt_equal(z, he, re, why, sizeof why, &sec);
                tine_smt_free(z);
                check(r == TINE_SMT_PROVEN, "Z3: %s at %d lanes is not proven to be %s: %s", it, L, rt, why);
                proven += r == TINE_SMT_PROVEN;
            }
        }
    }
    printf("x86.isa's semantics at other lanes: %d comparisons (%d proven by Z3)\n", compared, proven);
    tine_ctx_free(ctx);
    /* an error held while an instruction's semantics are taken from its imported entry at
       new lanes survives it, and nothing of it leaks (the sanitizer build runs this) */
    ctx = tine_ctx_new();
    int code = tine_isa_lookup(ctx, "paddsb");
    check(tine_parse(ctx, "a_u8 +", "held") == NULL && tine_error(ctx), "a parse error is held");
    tine_type_t i8x48 = tine_type(TINE_INT, 8, 48);
    tine_expr_t *held[2] = {tine_var(ctx, "p", i8x48), tine_var(ctx, "q", i8x48)};
    check(code >= 0 && tine_insn_make(ctx, (uint32_t)code, 2, held) != NULL && tine_error(ctx) &&
              strstr(tine_error(ctx), "held"),
          "the error held before paddsb was made at 48 lanes survives it: %s", tine_error(ctx) ? tine_error(ctx) : "(none)");
    tine_ctx_free(ctx);
}

/* Six operands; Z3 and bounds analysis through a fixed entry's semantics; the emitter
 * refuses an entry without an llvm line; x86gen's names are unknown until it is read. */
static void test_consumers(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    check(tine_isa_lookup(ctx, "mm_adds_epi8") < 0, "x86gen's names are unknown before it is read");
    check(tine_isa_get(ctx, "x86gen") != NULL && tine_isa_lookup(ctx, "mm_adds_epi8") >= 0,
          "x86gen's names are known once it is read");
    tine_type_t i8x16 = tine_type(TINE_INT, 8, 16);
    tine_expr_t *a = tine_var(ctx, "a", i8x16), *b = tine_var(ctx, "b", i8x16);
    tine_expr_t *gen = node2(ctx, "mm_adds_epi8", a, b), *hand = node2(ctx, "paddsb", a, b);
    check(gen && hand, "mm_adds_epi8 and x86's paddsb at 16 lanes: %s", tine_error(ctx));
    tine_type_t i8x8 = tine_type(TINE_INT, 8, 8);
    bool refused = !node2(ctx, "mm_adds_epi8", tine_var(ctx, "c", i8x8), tine_var(ctx, "d", i8x8));
    check(refused && strstr(tine_error(ctx), "operand 1 of mm_adds_epi8 has 8 lanes, not 16"),
          "a fixed entry takes its exact lanes only: %s", refused ? tine_error(ctx) : "(made)");
    if (gen && hand) {
        char why[512];
        double sec;
        tine_smt *z = tine_smt_new(ctx, 60000);
        /* the guide's result is typed u8 (its etype), paddsb's i8: the same bits */
        tine_expr_t *gen_bits = tine_reinterpret(ctx, hand->type, gen);
        check(tine_smt_equal(z, gen_bits, hand, why, sizeof why, &sec) == TINE_SMT_PROVEN,
              "Z3: the imported _mm_adds_epi8 is x86.isa's paddsb: %s", why);
        check(tine_smt_equal(z, gen, node2(ctx, "mm_adds_epi8", a, a), why, sizeof why, &sec) == TINE_SMT_COUNTEREXAMPLE,
              "Z3: mm_adds_epi8(a, b) is not mm_adds_epi8(a, a)");
        /* a mask operand (bool lanes) through the encoder: _mm256_mask_add_epi16 is
           select(k, a + b, src) */
        tine_type_t u16x16 = tine_type(TINE_UINT, 16, 16);
        tine_expr_t *m[4] = {tine_var(ctx, "src", u16x16), tine_var(ctx, "k", tine_type(TINE_BOOL, 1, 16)),
                             tine_var(ctx, "p", u16x16), tine_var(ctx, "q", u16x16)};
        int code = tine_isa_lookup(ctx, "mm256_mask_add_epi16");
        tine_expr_t *masked = code < 0 ? NULL : tine_insn_make(ctx, (uint32_t)code, 4, m);
        tine_expr_t *by_hand = tine_select(ctx, m[1], tine_binary(ctx, TINE_OP_ADD, m[2], m[3]), m[0]);
        check(masked && tine_smt_equal(z, masked, by_hand, why, sizeof why, &sec) == TINE_SMT_PROVEN,
              "Z3: _mm256_mask_add_epi16 is select(k, a + b, src): %s", masked ? why : tine_error(ctx));
        tine_smt_free(z);
        tine_jit_t *jit = tine_jit_expr(ctx, gen, "host", TINE_SELECT_TINE);
        const char *err = tine_error(ctx);
        check(!jit && err && strstr(err, "has no llvm line"), "the JIT refuses an entry without an llvm line: %s",
              jit ? "compiled" : err ? err : "(no error)");
        if (jit) tine_jit_free(jit);
    }
    tine_expr_t *w = node2(ctx, "mm_cvtepi8_epi16", a, NULL);
    tine_i128 lo = 0, hi = 0;
    check(w && tine_bounds(ctx, w, &lo, &hi) && lo == -128 && hi == 127,
          "bounds of _mm_cvtepi8_epi16 through its semantics: [-128, 127], got [%lld, %lld]", (long long)lo, (long long)hi);
    tine_ctx_free(ctx);
    /* six operands, the most an entry has (src, k, a, b, c and an immediate) */
    ctx = tine_ctx_new();
    const tine_isa *isa = tine_isa_get_from(ctx, "x86gen",
                                            "feature sse2\nwidth xmm 128\n"
                                            "insn six(a:u8x16, b:u8x16, c:u8x16, d:u8x16, e:u8x16, n:u32) = "
                                            "a + b + c + d + e + x16(cast<u8>(n))\n  fixed\n  forms xmm:sse2\n  c _mm_six\n  imm n 8\n",
                                            "<six>");
    check(isa && isa->n == 1 && isa->insn[0].nops == 6, "a six-operand entry loads: %s", isa ? "" : tine_error(ctx));
    if (isa) {
        tine_expr_t *v[6];
        uint64_t lanes[6][16], out[16];
        tine_env_t *env = tine_env_new(ctx);
        for (int j = 0; j < 6; j++) {
            char name[4] = {(char)('p' + j), 0};
            v[j] = tine_var(ctx, name, isa->insn[0].optype[j]);
            for (int l = 0; l < 16; l++) lanes[j][l] = (uint64_t)(j * 40 + l);
            tine_env_bind(env, v[j], lanes[j]);
        }
        tine_expr_t *e = tine_insn_make(ctx, (uint32_t)tine_isa_lookup(ctx, "six"), 6, v);
        bool ok = e && tine_eval(ctx, e, env, out) == 0;
        for (int l = 0; ok && l < 16; l++) ok = out[l] == ((uint64_t)(0 + 40 + 80 + 120 + 160 + 5 * l + 200) & 255);
        check(ok, "the six-operand entry evaluates (lane l: the sum of the operands' lanes and n)");
        tine_env_free(env);
    }
    tine_ctx_free(ctx);
}

/* ---- the test can fail: mutated entries of the sample --------------------------------- */

/* text with `from` replaced by `to` in the entry named insn; NULL if it is not there. */
static char *replace(const char *text, const char *insn, const char *from, const char *to) {
    char head[80];
    snprintf(head, sizeof head, "insn %s(", insn);
    const char *p = strstr(text, head);
    p = p ? strstr(p, from) : NULL;
    if (!p) return NULL;
    size_t n = strlen(text) + strlen(to) + 1;
    char *s = malloc(n);
    snprintf(s, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
    return s;
}

static void test_mutants(const char *sample) {
    static const struct {
        const char *insn, *from, *to;
    } M[] = {
        {"mm_adds_epi8", "widen(a) + widen(b)", "widen(a) - widen(b)"},
        {"mm_slli_epi16", "a << x8", "a >> x8"},
        {"mm_movemask_epi8", "cast<i32>(a < 0)", "cast<i32>(a <= 0)"},
        {"mm256_madd_epi16", "widen(a) * widen(b), 8)", "widen(a) * widen(a), 8)"},
        {"mm256_mask_add_epi16", "select(k, a + b, src)", "select(k, src, a + b)"},
        {"mm512_cmplt_epi32_mask", "= a < b", "= a <= b"},
    };
    char *text = read_file(sample);
    if (!text) {
        fail("cannot read %s", sample);
        return;
    }
    int caught = 0, run = 0;
    for (size_t i = 0; i < sizeof M / sizeof *M; i++) {
        char *m = replace(text, M[i].insn, M[i].from, M[i].to);
        check(m != NULL, "mutant %zu: '%s' is not in %s", i, M[i].from, sample);
        if (!m) continue;
        tine_ctx_t *ctx = tine_ctx_new();
        const tine_isa *isa = tine_isa_get_from(ctx, "x86gen", m, sample);
        check(isa != NULL, "mutant %zu loads: %s", i, isa ? "" : tine_error(ctx));
        if (isa) {
            mutant = true;
            tally t = check_description(ctx, isa, M[i].insn, 200);
            mutant = false;
            if (t.checked) {
                run++;
                caught += t.mismatched == 1;
                check(t.mismatched == 1, "mutant of %s (%s -> %s) is not reported", M[i].insn, M[i].from, M[i].to);
            } else printf("  mutant of %s: not run on this CPU\n", M[i].insn);
        }
        tine_ctx_free(ctx);
        free(m);
    }
    check(run >= 3, "at least the SSE2 mutants run (%d did)", run);
    printf("mutants: %d of %d run here, %d reported\n", run, (int)(sizeof M / sizeof *M), caught);
    free(text);
}

int main(int argc, char **argv) {
    const char *file = NULL, *only = NULL;
    int random = 10000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = true;
        else if (!strcmp(argv[i], "--file") && i + 1 < argc) file = argv[++i];
        else if (!strcmp(argv[i], "--insn") && i + 1 < argc) only = argv[++i];
        else if (argv[i][0] >= '1' && argv[i][0] <= '9') random = atoi(argv[i]);
        else {
            fprintf(stderr, "usage: test_isa_gen [RANDOM] [--file F.isa] [--insn NAME] [-v]\n");
            return 2;
        }
    }
    double t0 = now();
    tine_ctx_t *ctx = tine_ctx_new();
    const tine_isa *isa;
    char *text = file ? read_file(file) : NULL;
    if (file && !text) {
        fprintf(stderr, "test_isa_gen: cannot read %s\n", file);
        return 2;
    }
    isa = file ? tine_isa_get_from(ctx, "x86gen", text, file) : tine_isa_get(ctx, "x86gen");
    if (!isa) {
        printf("FAIL: %s does not load: %s\n", file, tine_error(ctx));
        return 1;
    }
    double t1 = now();
    tally t = check_description(ctx, isa, only, random);
    printf("test_isa_gen: %s: %d entries, read in %.2f s; %d checked (%ld calls), %d not run on this CPU, %d with "
           "mismatches\n",
           file ? file : "x86gen", isa->n, t1 - t0, t.checked, t.calls, t.not_run, t.mismatched);
    printf("  %d wrappers built in %.1f s (%.1f s of CPU), compared in %.1f s (%.1f s of CPU)\n", t.wrappers, t.build_s,
           t.build_cpu, t.check_s, t.check_cpu);
    for (int f = 0; f < isa->nfeatures; f++)
        if (t.missing[f]) printf("  not run: %d entries need %s\n", t.missing[f], isa->features[f]);
    if (t.undeclared) printf("  not run: %d entries whose C intrinsic clang-19 does not declare (-v lists them)\n", t.undeclared);
    check(t.mismatched == 0, "%d entries disagree with the machine", t.mismatched);
    check(t.checked > 0 || only, "no entry ran on this CPU");
    if (only && !t.checked && !t.not_run) fail("no fixed entry is named '%s'", only);
    tine_ctx_free(ctx);
    free(text);
    if (!file && !only) {
        test_consumers();
        test_hand_entries();
        test_derived();
        test_mutants("data/isa_gen_sample.isa");
    }
    printf("test_isa_gen: %.1f s\n", now() - t0);
    printf("test_isa_gen: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
