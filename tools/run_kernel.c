/* run_kernel.c — `tine run FILE`: the kernel compiled through both selections and run on
 * random inputs, every output element compared with the interpreter's.
 *
 * Each input is as large as the region the kernel reads for the output's size and the
 * run's parameters, by the plan's bounds inference (tine_kernel_input_regions), unless
 * --input-size gives it (refused, with the size needed, when smaller). A read through a
 * boundary condition stays inside its input whatever the input is, so the region is found
 * by iteration: the input starts the output's size, becomes the region read, until the
 * region read is the input.
 *
 * Parameters not given by --param are drawn, by the rule docs/KERNELS.md (tine run) states:
 * one that sizes the run (tine_kernel_param_sizes: a loop reduction's bound, or where an
 * input or a stage is read, depends on it) from [0, 16], so a window or a stride stays
 * small; any other across its type's whole range. A kernel with drawn parameters runs
 * three times: the first with values drawn at random, the other two with edge values
 * (0, 1, the maximum; the minimum and -1 when signed; 16 for a sizing one), which of them
 * turning with the seed and the parameter's place, so that seeds 1 to 5 give every
 * parameter every edge value.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { RUNS_DRAWN = 3, SIZING_MAX = 16, REGION_TRIES = 4 };

/* Bytes of one element of t in a buffer (a bool takes a byte). */
static size_t elem_bytes(tine_type_t t) {
    return t.bits < 8 ? 1 : (size_t)t.bits / 8;
}

/* Elements of a dense buffer of these extents, or more than CLI_MAX_ELEMS when larger
 * (the product stops growing there, so it cannot wrap). */
static uint64_t count_elems(int dims, const int64_t *extent) {
    uint64_t n = 1;
    for (int d = 0; d < dims && n <= CLI_MAX_ELEMS; d++) n *= (uint64_t)extent[d];
    return n;
}

/* The geometry of a dense buffer (strides from the extents), without data. A region too
 * large to run (refused by fill_inputs) may still be found on the way: its strides stop
 * growing past 2^40, so they cannot overflow. */
static tine_buffer_t geometry(int dims, const int64_t *min, const int64_t *extent) {
    tine_buffer_t b = {0};
    b.dims = dims;
    for (int d = 0; d < dims; d++) {
        b.min[d] = min[d];
        b.extent[d] = extent[d];
        int64_t big = (int64_t)1 << 40;
        b.stride[d] = !d ? 1 : b.stride[d - 1] > big / extent[d - 1] ? big : b.stride[d - 1] * extent[d - 1];
    }
    return b;
}

/* What one run of the kernel works with. */
typedef struct {
    const options *o;
    tine_ctx_t *ctx;
    tine_kernel_t *k;
    int dims, nin, np;
    int64_t ext[4];          /* the output's extents */
    tine_buffer_t *in, **inp; /* the inputs (geometry, then data) */
    int64_t (*lo)[4], (*hi)[4];
    int *read;
    const cli_input_size **given; /* per input, its --input-size or NULL */
    uint64_t *pv;
    const void **params;
    bool *drawn, *sizes; /* per parameter: not given; sizes the run */
} run;

/* "[lo0, hi0] x [lo1, hi1]" of input i's region into buf. */
static void region_text(const run *r, int i, char *buf, size_t n) {
    int dims;
    tine_kernel_input(r->k, i, NULL, &dims);
    size_t at = 0;
    for (int d = 0; d < dims && at < n; d++)
        at += (size_t)snprintf(buf + at, n - at, "%s[%" PRId64 ", %" PRId64 "]", d ? " x " : "", r->lo[i][d], r->hi[i][d]);
}

/* "WxH.." of input i's region into buf. */
static void extent_text(const run *r, int i, char *buf, size_t n) {
    int dims;
    tine_kernel_input(r->k, i, NULL, &dims);
    size_t at = 0;
    for (int d = 0; d < dims && at < n; d++)
        at += (size_t)snprintf(buf + at, n - at, "%s%" PRId64, d ? "x" : "", r->hi[i][d] - r->lo[i][d] + 1);
}

/* The parameters' values, one per line's worth: "W=16 zero=255". */
static void params_text(const run *r, char *buf, size_t n) {
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < r->np && at < n; i++) {
        tine_type_t t;
        const char *name = tine_kernel_param(r->k, i, &t);
        if (t.kind == TINE_INT || t.kind == TINE_BOOL)
            at += (size_t)snprintf(buf + at, n - at, "%s%s=%" PRId64, i ? " " : "", name, (int64_t)r->pv[i]);
        else
            at += (size_t)snprintf(buf + at, n - at, "%s%s=%" PRIu64, i ? " " : "", name, r->pv[i]);
    }
}

/* Whether input i's region (r->lo, r->hi) lies inside its geometry r->in[i]. */
static bool inside(const run *r, int i) {
    for (int d = 0; d < r->in[i].dims; d++)
        if (r->lo[i][d] < r->in[i].min[d] || r->hi[i][d] > r->in[i].min[d] + r->in[i].extent[d] - 1) return false;
    return true;
}

/* Each input's geometry: the region read, found by iteration from the output's size (see
 * the top), or --input-size's extents from the region's lowest corner. 0, 1 after a
 * library error, 2 after a message that the given size is too small. */
static int size_inputs(run *r, const tine_buffer_t *out) {
    for (int i = 0; i < r->nin; i++) {
        int id;
        tine_kernel_input(r->k, i, NULL, &id);
        int64_t mn[4] = {0}, ex[4];
        for (int d = 0; d < id; d++) ex[d] = d < r->dims ? r->ext[d] : 1;
        r->in[i] = geometry(id, mn, ex);
    }
    bool settled = false;
    for (int t = 0; t < REGION_TRIES && !settled; t++) {
        if (tine_kernel_input_regions(r->k, r->inp, r->params, out, r->lo, r->hi, r->read)) return 1;
        settled = true;
        for (int i = 0; i < r->nin; i++) {
            if (!r->read[i]) continue;
            int64_t ex[4];
            bool same = true;
            for (int d = 0; d < r->in[i].dims; d++) {
                ex[d] = r->hi[i][d] >= r->lo[i][d] ? r->hi[i][d] - r->lo[i][d] + 1 : 1;
                same &= r->lo[i][d] == r->in[i].min[d] && ex[d] == r->in[i].extent[d];
            }
            if (!same) r->in[i] = geometry(r->in[i].dims, r->lo[i], ex);
            settled &= same;
        }
    }
    /* the sizes given, placed where the region read starts */
    bool given = false;
    for (int i = 0; i < r->nin; i++)
        if (r->given[i]) {
            int64_t mn[4];
            for (int d = 0; d < r->in[i].dims; d++) mn[d] = r->read[i] ? r->lo[i][d] : 0;
            r->in[i] = geometry(r->in[i].dims, mn, r->given[i]->extent);
            given = true;
        }
    if (given && tine_kernel_input_regions(r->k, r->inp, r->params, out, r->lo, r->hi, r->read)) return 1;
    for (int i = 0; i < r->nin; i++)
        if (r->given[i] && r->read[i] && !inside(r, i)) {
            char need[80], where[160], ps[400];
            extent_text(r, i, need, sizeof need);
            region_text(r, i, where, sizeof where);
            params_text(r, ps, sizeof ps);
            fprintf(stderr, "tine: --input-size %s=%s is too small: %s reads %s (%s)%s%s\n", r->given[i]->name,
                    r->given[i]->text, r->o->file, need, where, *ps ? " with " : "", ps);
            return 2;
        }
    return 0;
}

/* The --input-size and --param names against the kernel's; 0, or 2 after a message. */
static int check_names(run *r) {
    const options *o = r->o;
    for (int j = 0; j < o->nparams; j++) {
        bool found = false;
        for (int i = 0; i < r->np; i++) found |= !strcmp(tine_kernel_param(r->k, i, NULL), o->params[j].name);
        if (!found) {
            fprintf(stderr, "tine: %s has no parameter '%s'\n", o->file, o->params[j].name);
            return 2;
        }
    }
    for (int j = 0; j < o->ninput_sizes; j++) {
        const cli_input_size *is = &o->input_sizes[j];
        int found = -1, id = 0;
        for (int i = 0; i < r->nin; i++)
            if (!strcmp(tine_kernel_input(r->k, i, NULL, NULL), is->name)) found = i;
        if (found < 0) {
            fprintf(stderr, "tine: %s has no input '%s'\n", o->file, is->name);
            return 2;
        }
        tine_kernel_input(r->k, found, NULL, &id);
        if (is->n != id) {
            fprintf(stderr, "tine: --input-size %s=%s gives %d extent%s; input '%s' has %d dimension%s\n", is->name,
                    is->text, is->n, is->n == 1 ? "" : "s", is->name, id, id == 1 ? "" : "s");
            return 2;
        }
        r->given[found] = is;
    }
    return 0;
}

/* Parameter values for run `n` (see the top): given ones checked against their types. 0,
 * or 2 after a message. */
static int draw_params(run *r, int n, uint64_t *seed) {
    const options *o = r->o;
    for (int i = 0; i < r->np; i++) {
        tine_type_t t;
        const char *name = tine_kernel_param(r->k, i, &t);
        r->drawn[i] = true;
        for (int j = 0; j < o->nparams; j++)
            if (!strcmp(o->params[j].name, name)) {
                if (cli_param_value(name, t, o->params[j].value, &r->pv[i])) return 2;
                r->drawn[i] = false;
            }
        if (!r->drawn[i]) continue;
        uint64_t edges[6];
        int ne = cli_edge_values(t, edges);
        if (r->sizes[i] && tine_type_is_int(t)) { /* 0, 1, 16 and -1: a window, row or stride stays small */
            ne = 0;
            edges[ne++] = 0;
            edges[ne++] = 1;
            edges[ne++] = SIZING_MAX;
            if (t.kind == TINE_INT) edges[ne++] = (uint64_t)-1;
        }
        int64_t lo, hi;
        bool ranged = tine_kernel_param_range(r->k, i, &lo, &hi);
        if (ranged) { /* the declared range's ends and middle; a size stays small within it */
            if (r->sizes[i] && hi - lo > SIZING_MAX) hi = lo + SIZING_MAX;
            ne = 0;
            edges[ne++] = (uint64_t)lo;
            edges[ne++] = (uint64_t)hi;
            edges[ne++] = (uint64_t)(lo + (hi - lo) / 2);
        }
        if (n > 0 && t.kind != TINE_FLOAT) r->pv[i] = edges[(o->seed + (uint64_t)n + (uint64_t)i) % (uint64_t)ne];
        else if (ranged) r->pv[i] = (uint64_t)lo + cli_rand(seed) % ((uint64_t)(hi - lo) + 1);
        else if (r->sizes[i] && tine_type_is_int(t)) r->pv[i] = cli_rand(seed) % (SIZING_MAX + 1);
        else r->pv[i] = cli_random_lane(t, seed);
        if (ranged && t.bits < 64) r->pv[i] &= (UINT64_C(1) << t.bits) - 1; /* the value's bits, as drawn values are */
    }
    return 0;
}

/* The inputs' data, random (their geometry set); 0, or 1 after a message. */
static int fill_inputs(run *r, uint64_t *seed) {
    uint64_t elems = 0;
    for (int i = 0; i < r->nin; i++) elems += count_elems(r->in[i].dims, r->in[i].extent);
    if (elems > CLI_MAX_ELEMS) {
        char ps[400];
        params_text(r, ps, sizeof ps);
        fprintf(stderr, "tine: the inputs %s reads would exceed %d elements%s%s\n", r->o->file, CLI_MAX_ELEMS,
                *ps ? " with " : "", ps);
        return 1;
    }
    for (int i = 0; i < r->nin; i++) {
        tine_type_t et;
        const char *name = tine_kernel_input(r->k, i, &et, NULL);
        size_t eb = elem_bytes(et), total = (size_t)count_elems(r->in[i].dims, r->in[i].extent);
        if (!(r->in[i].data = malloc(total * eb))) {
            fprintf(stderr, "tine: out of memory for input '%s' (%zu bytes)\n", name, total * eb);
            return 1;
        }
        for (size_t j = 0; j < total; j++) cli_store_elem((char *)r->in[i].data + j * eb, cli_random_lane(et, seed), et, eb);
    }
    return 0;
}

/* One run: parameters, inputs, the interpreter and both compiled kernels, compared. */
static int run_once(run *r, int n, int nruns, uint64_t *seed, tine_compiled_t *const *c, tine_buffer_t *ref,
                    tine_buffer_t *got) {
    static const char *const names[2] = {"LLVM alone", "tine"};
    int rc = draw_params(r, n, seed);
    if (!rc) rc = size_inputs(r, ref);
    if (rc == 1) cli_report(r->ctx, "tine: ");
    if (!rc) rc = fill_inputs(r, seed);
    if (rc) return rc;
    /* what this run is: its parameters (when drawn), and where each input lies */
    char ps[400];
    params_text(r, ps, sizeof ps);
    if (nruns > 1) printf("run %d of %d: %s; ", n + 1, nruns, ps);
    printf("input%s", r->nin == 1 ? "" : "s");
    for (int i = 0; i < r->nin; i++) {
        printf("%s %s ", i ? "," : "", tine_kernel_input(r->k, i, NULL, NULL));
        for (int d = 0; d < r->in[i].dims; d++) printf("%s%" PRId64, d ? "x" : "", r->in[i].extent[d]);
        for (int d = 0; d < r->in[i].dims; d++) printf("%s%" PRId64, d ? ", " : " at (", r->in[i].min[d]);
        printf(")");
    }
    printf("\n");
    size_t total = (size_t)count_elems(r->dims, r->ext), bytes = elem_bytes(tine_kernel_output_type(r->k));
    if (tine_kernel_interpret(r->k, r->inp, r->params, ref)) {
        cli_report(r->ctx, "tine: ");
        return 1;
    }
    for (int s = 0; s < 2; s++) {
        memset(got->data, 0, total * bytes);
        if (tine_compiled_run(c[s], r->inp, r->params, got)) {
            cli_report(r->ctx, "tine: ");
            return 1;
        }
        if (memcmp(ref->data, got->data, total * bytes)) {
            for (size_t j = 0; j < total; j++)
                if (memcmp((char *)ref->data + j * bytes, (char *)got->data + j * bytes, bytes)) {
                    printf("%s: element %zu differs from the interpreter\n", names[s], j);
                    break;
                }
            return 1;
        }
        uint64_t sum = 1469598103934665603ull;
        for (size_t j = 0; j < total * bytes; j++) sum = (sum ^ ((unsigned char *)got->data)[j]) * 1099511628211ull;
        printf("%s: %zu elements, bit-exact with the interpreter, checksum %016" PRIx64 "\n", names[s], total, sum);
    }
    return 0;
}

/* The output's extents (--size, as many as its dimensions) and the two output buffers;
 * 0, 1 (out of memory) or 2 after a message. */
static int make_outputs(run *r, tine_buffer_t *ref, tine_buffer_t *got) {
    const options *o = r->o;
    if (o->nsize && o->nsize != r->dims) {
        fprintf(stderr, "tine: --size %s gives %d extent%s; the output of %s has %d dimension%s\n", o->size_text,
                o->nsize, o->nsize == 1 ? "" : "s", o->file, r->dims, r->dims == 1 ? "" : "s");
        return 2;
    }
    for (int d = 0; d < o->nsize; d++) r->ext[d] = o->size[d];
    uint64_t elems = count_elems(r->dims, r->ext);
    if (2 * elems > CLI_MAX_ELEMS) {
        fprintf(stderr, "tine: --size %s is too large: the output twice would exceed %d elements\n", o->size_text,
                CLI_MAX_ELEMS);
        return 2;
    }
    int64_t zero[4] = {0};
    size_t bytes = elem_bytes(tine_kernel_output_type(r->k));
    *ref = geometry(r->dims, zero, r->ext);
    *got = *ref;
    ref->data = calloc((size_t)elems, bytes);
    got->data = calloc((size_t)elems, bytes);
    if (!ref->data || !got->data) {
        fprintf(stderr, "tine: out of memory for the output (%zu bytes, twice)\n", (size_t)elems * bytes);
        return 1;
    }
    return 0;
}

int cli_run_kernel(const options *o) {
    tine_ctx_t *ctx = cli_ctx(o);
    if (!ctx) return 2;
    tine_kernel_t *k = cli_load_kernel(ctx, o->file);
    if (!k) {
        tine_ctx_free(ctx);
        return 1;
    }
    run r = {.o = o, .ctx = ctx, .k = k, .dims = tine_kernel_dims(k), .nin = tine_kernel_ninputs(k),
             .np = tine_kernel_nparams(k), .ext = {67, 45, 3, 2}};
    size_t ni = (size_t)r.nin + 1, np = (size_t)r.np + 1;
    r.in = calloc(ni, sizeof *r.in);
    r.inp = calloc(ni, sizeof *r.inp);
    r.lo = calloc(ni, sizeof *r.lo);
    r.hi = calloc(ni, sizeof *r.hi);
    r.read = calloc(ni, sizeof *r.read);
    r.given = calloc(ni, sizeof *r.given);
    r.pv = calloc(np, sizeof *r.pv);
    r.params = calloc(np, sizeof *r.params);
    r.drawn = calloc(np, sizeof *r.drawn);
    r.sizes = calloc(np, sizeof *r.sizes);
    tine_buffer_t ref = {0}, got = {0};
    tine_compiled_t *c[2] = {NULL, NULL};
    int rc = 0;
    if (!r.in || !r.inp || !r.lo || !r.hi || !r.read || !r.given || !r.pv || !r.params || !r.drawn || !r.sizes) {
        fprintf(stderr, "tine: out of memory\n");
        rc = 1;
    }
    for (int i = 0; i < r.nin && !rc; i++) r.inp[i] = &r.in[i];
    for (int i = 0; i < r.np && !rc; i++) r.params[i] = &r.pv[i]; /* little-endian: the low bytes hold the value */
    if (!rc) rc = check_names(&r);
    if (!rc) rc = make_outputs(&r, &ref, &got);
    for (int i = 0; i < r.np && !rc; i++) {
        int sz = tine_kernel_param_sizes(k, i);
        if (sz < 0) {
            cli_report(ctx, "tine: ");
            rc = 1;
        }
        r.sizes[i] = sz > 0;
    }
    /* three runs when a parameter is drawn (the first draws them; a dry draw says which) */
    uint64_t seed = o->seed, dry = o->seed;
    if (!rc) rc = draw_params(&r, 0, &dry);
    int nruns = 1;
    for (int i = 0; i < r.np && !rc; i++)
        if (r.drawn[i]) nruns = RUNS_DRAWN;
    static const tine_selection_t sels[2] = {TINE_SELECT_LLVM, TINE_SELECT_TINE};
    for (int s = 0; s < 2 && !rc; s++)
        if (!(c[s] = tine_kernel_compile(k, o->target ? o->target : "host", sels[s]))) {
            cli_report(ctx, "tine: ");
            rc = 1;
        }
    for (int n = 0; n < nruns && !rc; n++) {
        rc = run_once(&r, n, nruns, &seed, c, &ref, &got);
        for (int i = 0; i < r.nin; i++) {
            free(r.in[i].data);
            r.in[i].data = NULL;
        }
    }
    for (int s = 0; s < 2; s++) tine_compiled_free(c[s]);
    free(ref.data);
    free(got.data);
    free(r.in);
    free(r.inp);
    free(r.lo);
    free(r.hi);
    free(r.read);
    free(r.given);
    free(r.pv);
    free(r.params);
    free(r.drawn);
    free(r.sizes);
    tine_kernel_free(k);
    tine_ctx_free(ctx);
    return rc;
}
