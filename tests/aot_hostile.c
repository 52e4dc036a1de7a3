/* aot_hostile.c — hostile buffer geometries against kernels compiled ahead of time and
 * through the JIT.
 *
 * Two kernels (data/aot_hostile_stage.tine: a materialized stage read through an edge
 * boundary, split across threads by the JIT; data/aot_hostile_reduce.tine: a loop
 * reduction over a parameter's range, two inputs that must cover every read) are built
 * into objects by this build's `tine compile` (tests/CMakeLists.txt) and linked here; the
 * same kernels are parsed and JIT-compiled through libtine. Each case changes one thing of
 * a valid call (a min near INT64_MAX, a stride of 2^31 or 0, an extent past 2^31, a sum
 * that wraps in 64 bits, NULL, another number of dimensions, an output aliasing an input,
 * a parameter reading past an input ...) and states the code the entry point must return
 * (tine.h: 0, -1 scratch, -2 output, -3 aliasing, k input k). Every buffer's memory is
 * exactly what its geometry describes, placed against PROT_NONE guard pages, once ending
 * at the upper guard, once starting at the lower one (so any access outside it faults),
 * and once a byte after it (data needs no alignment).
 * Per case and placement: the AOT entry point must return the stated code; the JIT
 * (tine_compiled_run) and the interpreter must refuse exactly when it does, the JIT with
 * an error of the same kind (naming the output, the input, the stage); accepted calls
 * must give the interpreter's output byte for byte, refused ones must leave the output
 * untouched, and no call may write an input.
 *
 * Output: a line per failure, then "aot_hostile: N checks passed, M failed".
 */
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tine.h"
/* after tine.h: the generated headers then reuse its tine_buffer_t */
#include "hreduce.h"
#include "hstage.h"

static int passed, failed;

static void check(bool ok, const char *what, int place, const char *fmt, const char *detail) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s (placement %d): ", what, place);
    printf(fmt, detail ? detail : "");
    printf("\n");
}

/* ---- guarded memory ---------------------------------------------------------------------- */

typedef struct {
    unsigned char *map;
    size_t len;
} mapping;

/* bytes of memory between two PROT_NONE pages: ending at the upper one (place 0),
   starting at the lower one (place 1), or one byte after it (place 2: unaligned). */
static unsigned char *guarded(size_t bytes, int place, mapping *m) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (bytes + (place == 2) + pg - 1) / pg * pg;
    if (n == 0) n = pg;
    m->len = n + 2 * pg;
    m->map = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m->map == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    if (mprotect(m->map, pg, PROT_NONE) || mprotect(m->map + pg + n, pg, PROT_NONE)) {
        perror("mprotect");
        exit(2);
    }
    return place == 0 ? m->map + pg + n - bytes : m->map + pg + (place == 2);
}

static void unmap(mapping *m) {
    if (m->map) munmap(m->map, m->len);
    m->map = NULL;
}

/* The bytes a geometry describes (the largest index + 1, times the element size); for a
   geometry that describes nothing sensible or something huge, one element (the call must
   refuse it, and anything it touches beyond faults). */
static size_t described_bytes(const tine_buffer_t *b, int esize) {
    if (b->dims < 1 || b->dims > 4) return (size_t)esize;
    __int128 last = 0;
    for (int d = 0; d < b->dims; d++) {
        if (b->extent[d] < 1 || (d && b->stride[d] < 1)) return (size_t)esize;
        last += (__int128)(b->extent[d] - 1) * (d ? b->stride[d] : 1);
    }
    if (last >= (1 << 22)) return (size_t)esize;
    return (size_t)(last + 1) * (size_t)esize;
}

/* ---- the cases ----------------------------------------------------------------------------- */

enum { SET, NULLBUF, NULLDATA, ALIAS, PARAM };
enum { MIN, EXTENT, STRIDE, DIMS };

typedef struct {
    const char *what;
    int kernel; /* 0: hstage, 1: hreduce */
    int op;
    int buf;    /* 0: out, 1 + i: input i; ALIAS: the input out overlaps */
    int field, dim;
    int64_t value; /* SET: the new value; ALIAS: out's offset from the input's end, in bytes; PARAM: n */
    int want;
} hcase;

#define P31 ((int64_t)1 << 31)
static const hcase CASES[] = {
    {"out NULL", 0, NULLBUF, 0, 0, 0, 0, -2},
    {"out data NULL", 0, NULLDATA, 0, 0, 0, 0, -2},
    {"out dims 3", 0, SET, 0, DIMS, 0, 3, -2},
    {"out dims 0", 0, SET, 0, DIMS, 0, 0, -2},
    {"out dims -7", 0, SET, 0, DIMS, 0, -7, -2},
    {"out extent[0] 0", 0, SET, 0, EXTENT, 0, 0, -2},
    {"out extent[1] -5", 0, SET, 0, EXTENT, 1, -5, -2},
    {"out extent[0] 2^31", 0, SET, 0, EXTENT, 0, P31, -2},
    {"out extent[1] 2^33 + 6", 0, SET, 0, EXTENT, 1, ((int64_t)1 << 33) + 6, -2},
    {"out extent[1] INT64_MAX", 0, SET, 0, EXTENT, 1, INT64_MAX, -2},
    {"out min[0] INT64_MAX - 3", 0, SET, 0, MIN, 0, INT64_MAX - 3, -2},
    {"out min[1] INT64_MIN + 2", 0, SET, 0, MIN, 1, INT64_MIN + 2, -2},
    {"out min[0] INT32_MAX - 10 (its last x past i32)", 0, SET, 0, MIN, 0, INT32_MAX - 10, -2},
    {"out min[0] INT32_MIN", 0, SET, 0, MIN, 0, INT32_MIN, 0},
    {"out min[1] INT32_MAX - 5 (m read at y + 1 wraps: its region is too large)", 0, SET, 0, MIN, 1, INT32_MAX - 5, -1},
    {"out stride[1] 0", 0, SET, 0, STRIDE, 1, 0, -2},
    {"out stride[1] -37", 0, SET, 0, STRIDE, 1, -37, -2},
    {"out stride[1] 2^31", 0, SET, 0, STRIDE, 1, P31, -2},
    {"out stride[1] 36 (rows overlap)", 0, SET, 0, STRIDE, 1, 36, -2},
    {"out stride[1] INT64_MAX", 0, SET, 0, STRIDE, 1, INT64_MAX, -2},
    {"out stride[1] 2^62 (the span wraps in 64 bits)", 0, SET, 0, STRIDE, 1, (int64_t)1 << 62, -2},
    {"out stride[1] 2^30 (span past 2^31)", 0, SET, 0, STRIDE, 1, (int64_t)1 << 30, -2},
    {"out stride[0] 0 (ignored)", 0, SET, 0, STRIDE, 0, 0, 0},
    {"out stride[0] INT64_MIN (ignored)", 0, SET, 0, STRIDE, 0, INT64_MIN, 0},
    {"out stride[1] 40 (padded rows)", 0, SET, 0, STRIDE, 1, 40, 0},
    {"out extent[0] 1", 0, SET, 0, EXTENT, 0, 1, 0},
    {"in NULL", 0, NULLBUF, 1, 0, 0, 0, 1},
    {"in data NULL", 0, NULLDATA, 1, 0, 0, 0, 1},
    {"in dims 3", 0, SET, 1, DIMS, 0, 3, 1},
    {"in extent[0] 0", 0, SET, 1, EXTENT, 0, 0, 1},
    {"in extent[1] -1", 0, SET, 1, EXTENT, 1, -1, 1},
    {"in extent[0] 2^31 + 10", 0, SET, 1, EXTENT, 0, P31 + 10, 1},
    {"in min[0] INT64_MAX", 0, SET, 1, MIN, 0, INT64_MAX, 1},
    {"in min[0] INT64_MAX - 5 (min + extent wraps)", 0, SET, 1, MIN, 0, INT64_MAX - 5, 1},
    {"in min[1] INT64_MIN", 0, SET, 1, MIN, 1, INT64_MIN, 1},
    {"in min[1] INT32_MAX - 3 (its last y past i32)", 0, SET, 1, MIN, 1, INT32_MAX - 3, 1},
    {"in stride[1] 0", 0, SET, 1, STRIDE, 1, 0, 1},
    {"in stride[1] -30", 0, SET, 1, STRIDE, 1, -30, 1},
    {"in stride[1] 2^31 + 1", 0, SET, 1, STRIDE, 1, P31 + 1, 1},
    {"in stride[1] 1 (rows overlap: allowed for inputs)", 0, SET, 1, STRIDE, 1, 1, 0},
    {"in extent[1] 1 (the edge clamps)", 0, SET, 1, EXTENT, 1, 1, 0},
    {"out on the same memory as in", 0, ALIAS, 1, 0, 0, -100000, -3},
    {"out overlapping in's last element", 0, ALIAS, 1, 0, 0, -1, -3},
    {"out right after in", 0, ALIAS, 1, 0, 0, 0, 0},
    {"w NULL", 1, NULLBUF, 2, 0, 0, 0, 2},
    {"w data NULL", 1, NULLDATA, 2, 0, 0, 0, 2},
    {"w dims 2", 1, SET, 2, DIMS, 0, 2, 2},
    {"w extent[0] 4 (n = 5 reads w(4))", 1, SET, 2, EXTENT, 0, 4, 2},
    {"w min[0] 1", 1, SET, 2, MIN, 0, 1, 2},
    {"w stride[0] 0 (ignored)", 1, SET, 2, STRIDE, 0, 0, 0},
    {"in extent[0] 40 (one short for x + r)", 1, SET, 1, EXTENT, 0, 40, 1},
    {"in min[0] -1 (shifted: x + r = 40 outside)", 1, SET, 1, MIN, 0, -1, 1},
    {"out min[0] 1 (x + r past the inputs)", 1, SET, 0, MIN, 0, 1, 1},
    {"out extent[1] 7 (one more row than in has)", 1, SET, 0, EXTENT, 1, 7, 1},
    {"out min[1] -1", 1, SET, 0, MIN, 1, -1, 1},
    {"n = INT32_MAX (x + r wraps)", 1, PARAM, 0, 0, 0, INT32_MAX, 1},
    {"n = 6 (in and w one short)", 1, PARAM, 0, 0, 0, 6, 1},
    {"n = 0 (empty sum)", 1, PARAM, 0, 0, 0, 0, 0},
    {"n = -5 (empty sum)", 1, PARAM, 0, 0, 0, -5, 0},
    {"n = INT32_MIN (empty sum)", 1, PARAM, 0, 0, 0, INT32_MIN, 0},
    {"out on the same memory as w", 1, ALIAS, 2, 0, 0, -100000, -3},
    {"out overlapping in's last element", 1, ALIAS, 1, 0, 0, -1, -3},
    {"out stride[1] 2^31 - 1 (span past 2^31)", 1, SET, 0, STRIDE, 1, INT32_MAX, -2},
};

/* ---- one kernel's buffers ------------------------------------------------------------------ */

typedef struct {
    int nin;
    tine_buffer_t buf[3]; /* out, inputs */
    int esize[3];
    const char *name[3];
} kspec;

static kspec base_spec(int kernel) {
    kspec s = {0};
    const int64_t W = 37, H = 6;
    s.buf[0] = (tine_buffer_t){.dims = 2, .min = {0, 0}, .extent = {W, H}, .stride = {1, W}};
    s.name[0] = "out";
    s.name[1] = "in";
    if (kernel == 0) {
        s.nin = 1;
        s.esize[0] = 2;
        s.esize[1] = 1;
        s.buf[1] = (tine_buffer_t){.dims = 2, .min = {-3, -2}, .extent = {30, 9}, .stride = {1, 30}};
    } else {
        s.nin = 2;
        s.esize[0] = 4;
        s.esize[1] = 1;
        s.esize[2] = 2;
        s.buf[1] = (tine_buffer_t){.dims = 2, .min = {0, 0}, .extent = {W + 4, H}, .stride = {1, W + 4}};
        s.buf[2] = (tine_buffer_t){.dims = 1, .min = {0}, .extent = {5}, .stride = {1}};
        s.name[2] = "w";
    }
    return s;
}

static int64_t *field_of(tine_buffer_t *b, int field, int dim) {
    return field == MIN ? &b->min[dim] : field == EXTENT ? &b->extent[dim] : &b->stride[dim];
}

/* The JIT's error must be of the kind the code says. */
static bool same_kind(const char *err, int want, const kspec *s) {
    if (!err) return false;
    char pre[64];
    if (want == -3) return !strncmp(err, "output 'out' overlaps", 21);
    if (want == -2) return !strncmp(err, "output 'out'", 12) && !strstr(err, "overlaps");
    if (want == -1) return !strncmp(err, "stage ", 6);
    snprintf(pre, sizeof pre, "input '%s'", s->name[want]);
    return !strncmp(err, pre, strlen(pre));
}

static int call_aot(int kernel, tine_buffer_t *const *p, int32_t n, int16_t bias) {
    if (kernel == 0) return hstage(p[1], p[0]);
    return hreduce(p[1], p[2], n, bias, p[0]);
}

static void run_case(tine_ctx_t *ctx, const hcase *c, int place, tine_kernel_t *const *ks, tine_compiled_t *const *cs) {
    kspec s = base_spec(c->kernel);
    int32_t n = 5;
    int16_t bias = -7;
    if (c->op == SET) {
        if (c->field == DIMS) s.buf[c->buf].dims = (int)c->value;
        else *field_of(&s.buf[c->buf], c->field, c->dim) = c->value;
    }
    if (c->op == PARAM) n = (int32_t)c->value;
    /* memory: one mapping per buffer, or, for ALIAS, one holding the input and out */
    mapping m[3] = {{0}};
    size_t bytes[3];
    for (int i = 0; i <= s.nin; i++) bytes[i] = described_bytes(&s.buf[i], s.esize[i]);
    for (int i = 0; i <= s.nin; i++) {
        if (c->op == ALIAS && i == 0) continue;
        if (c->op == ALIAS && i == c->buf) {
            int64_t off = (int64_t)bytes[i] + c->value; /* out's offset from the input's start */
            if (off < 0) off = 0;
            size_t total = (size_t)off + bytes[0] > bytes[i] ? (size_t)off + bytes[0] : bytes[i];
            unsigned char *base = guarded(total, place, &m[i]);
            s.buf[i].data = base;
            s.buf[0].data = base + off;
        } else {
            s.buf[i].data = guarded(bytes[i], place, &m[i]);
        }
    }
    uint64_t seed = 99;
    for (int i = 1; i <= s.nin; i++)
        for (size_t j = 0; j < bytes[i]; j++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            ((unsigned char *)s.buf[i].data)[j] = (unsigned char)(seed >> 56);
        }
    if (c->op == ALIAS) memset(s.buf[0].data, 0xA5, bytes[0]); /* it may overlap the input: only now */
    unsigned char *saved[3] = {0};
    for (int i = 1; i <= s.nin; i++) {
        saved[i] = malloc(bytes[i]);
        memcpy(saved[i], s.buf[i].data, bytes[i]);
    }
    tine_buffer_t *p[3] = {&s.buf[0], &s.buf[1], &s.buf[2]};
    if (c->op == NULLBUF) p[c->buf] = NULL;
    if (c->op == NULLDATA) s.buf[c->buf].data = NULL;
    unsigned char *outmem = p[0] && s.buf[0].data ? s.buf[0].data : NULL;
    unsigned char *res[3] = {0}; /* AOT, JIT, interpreter */
    int rc[3];
    const void *params[2] = {&n, &bias};
    char err[3][600] = {{0}};
    for (int r = 0; r < 3; r++) {
        if (outmem) memset(outmem, 0xA5, bytes[0]);
        tine_clear_error(ctx);
        if (r == 0) rc[r] = call_aot(c->kernel, p, n, bias);
        else if (r == 1) rc[r] = tine_compiled_run(cs[c->kernel], p + 1, params, p[0]);
        else rc[r] = tine_kernel_interpret(ks[c->kernel], p + 1, params, p[0]);
        if (r && tine_error(ctx)) snprintf(err[r], sizeof err[r], "%s", tine_error(ctx));
        if (outmem) {
            res[r] = malloc(bytes[0]);
            memcpy(res[r], outmem, bytes[0]);
        }
    }
    char detail[700];
    snprintf(detail, sizeof detail, "%d (want %d)", rc[0], c->want);
    check(rc[0] == c->want, c->what, place, "the entry point returns %s", detail);
    snprintf(detail, sizeof detail, "%d: %s", rc[1], err[1]);
    check((rc[1] == 0) == (c->want == 0), c->what, place, "the JIT does not agree with the entry point: %s", detail);
    if (c->want) check(same_kind(err[1], c->want, &s), c->what, place, "the JIT refuses for another reason: %s", err[1]);
    snprintf(detail, sizeof detail, "%d: %s", rc[2], err[2]);
    check((rc[2] == 0) == (c->want == 0), c->what, place, "the interpreter does not agree: %s", detail);
    if (outmem) {
        bool untouched = true;
        for (int r = 0; r < 3; r++)
            for (size_t j = 0; j < bytes[0] && rc[r]; j++) untouched &= res[r][j] == 0xA5;
        check(untouched, c->what, place, "a refused call wrote the output%s", NULL);
        if (rc[0] == 0 && rc[2] == 0)
            check(!memcmp(res[0], res[2], bytes[0]), c->what, place, "the entry point's output differs from the interpreter's%s", NULL);
        if (rc[1] == 0 && rc[2] == 0)
            check(!memcmp(res[1], res[2], bytes[0]), c->what, place, "the JIT's output differs from the interpreter's%s", NULL);
    }
    for (int i = 1; i <= s.nin; i++)
        if (s.buf[i].data && p[i] && (c->op != ALIAS || i != c->buf || c->want))
            check(!memcmp(saved[i], s.buf[i].data, bytes[i]), c->what, place, "input %s was written", s.name[i]);
    for (int i = 0; i < 3; i++) {
        free(saved[i]);
        free(res[i]);
        unmap(&m[i]);
    }
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *t = calloc(1, 1 << 16);
    size_t n = fread(t, 1, (1 << 16) - 1, f);
    t[n] = 0;
    fclose(f);
    return t;
}

int main(void) {
    static const char *const files[2] = {"data/aot_hostile_stage.tine", "data/aot_hostile_reduce.tine"};
    tine_ctx_t *ctx = tine_ctx_new();
    tine_kernel_t *ks[2];
    tine_compiled_t *cs[2];
    for (int i = 0; i < 2; i++) {
        char *text = read_text(files[i]);
        ks[i] = text ? tine_kernel_parse(ctx, text, files[i]) : NULL;
        free(text);
        cs[i] = ks[i] ? tine_kernel_compile(ks[i], "host", TINE_SELECT_TINE) : NULL;
        if (!cs[i]) {
            printf("FAIL %s: %s\n", files[i], tine_error(ctx) ? tine_error(ctx) : "cannot read it");
            return 1;
        }
    }
    int ncases = (int)(sizeof CASES / sizeof CASES[0]);
    for (int i = 0; i < ncases; i++)
        for (int place = 0; place < 3; place++) run_case(ctx, &CASES[i], place, ks, cs);
    for (int i = 0; i < 2; i++) {
        tine_compiled_free(cs[i]);
        tine_kernel_free(ks[i]);
    }
    tine_ctx_free(ctx);
    printf("aot_hostile: %d cases, %d checks passed, %d failed\n", ncases, passed, failed);
    return failed != 0;
}
