/* cases.c — buffers, fills and the table of benchmark entries (see cases.h). */
#include "cases.h"

#include <stdlib.h>
#include <string.h>

uint64_t case_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static size_t elements(const ref_buffer *b) {
    size_t n = 1;
    for (int d = 0; d < b->dims; d++) n += (size_t)(b->extent[d] - 1) * (size_t)b->stride[d];
    return n;
}

size_t case_bytes(const ref_buffer *b, int bits) { return elements(b) * (size_t)(bits / 8); }

int case_first_difference(const bench_case *c, const void *a, const void *b, int64_t *at) {
    int bytes = c->out_bits / 8;
    int64_t total = 1;
    for (int d = 0; d < c->out.dims; d++) total *= c->out.extent[d];
    for (int64_t n = 0; n < total; n++) {
        int64_t q = n, off = 0;
        for (int d = 0; d < c->out.dims; d++) {
            at[d] = c->out.min[d] + q % c->out.extent[d];
            off += (at[d] - c->out.min[d]) * c->out.stride[d];
            q /= c->out.extent[d];
        }
        if (memcmp((const char *)a + off * bytes, (const char *)b + off * bytes, (size_t)bytes)) return 1;
    }
    return 0;
}

int64_t case_max_difference(const bench_case *c, const void *a, const void *b, const int frame[4]) {
    const ref_buffer *o = &c->out;
    int64_t lo[4] = {0, 0, 0, 0}, hi[4] = {1, 1, 1, 1}, st[4] = {0, 0, 0, 0}, most = 0;
    for (int d = 0; d < o->dims; d++) lo[d] = frame[d], hi[d] = o->extent[d] - frame[d], st[d] = o->stride[d];
    for (int64_t i3 = lo[3]; i3 < hi[3]; i3++)
        for (int64_t i2 = lo[2]; i2 < hi[2]; i2++)
            for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
                for (int64_t i0 = lo[0]; i0 < hi[0]; i0++) {
                    int64_t at = i0 * st[0] + i1 * st[1] + i2 * st[2] + i3 * st[3], x, y;
                    if (c->out_bits == 8) x = ((const uint8_t *)a)[at], y = ((const uint8_t *)b)[at];
                    else if (c->out_bits == 16) x = ((const uint16_t *)a)[at], y = ((const uint16_t *)b)[at];
                    else x = ((const int32_t *)a)[at], y = ((const int32_t *)b)[at];
                    most = x - y > most ? x - y : y - x > most ? y - x : most;
                }
    return most;
}

void case_buffer(ref_buffer *b, int bits, int dims, const int64_t *extent) {
    memset(b, 0, sizeof *b);
    b->dims = dims;
    int64_t s = 1;
    for (int d = 0; d < dims; d++) {
        b->extent[d] = extent[d];
        b->stride[d] = s;
        s *= extent[d];
    }
    b->data = calloc(elements(b) + 64, (size_t)bits / 8); /* a little slack: never read */
    if (!b->data) abort();
}

void *case_at(const ref_buffer *b, int bytes, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    int64_t i[4] = {i0, i1, i2, i3}, off = 0;
    for (int d = 0; d < b->dims; d++) off += (i[d] - b->min[d]) * b->stride[d];
    return (char *)b->data + off * bytes;
}

void case_fill(ref_buffer *b, int bits, int is_signed, case_pattern p, uint64_t *seed) {
    int bytes = bits / 8;
    uint64_t max = bits == 64 ? ~0ull : (1ull << bits) - 1, top = is_signed ? max >> 1 : max;
    uint64_t bottom = is_signed ? (max >> 1) + 1 : 0; /* INT_MIN's bits */
    int64_t c[4] = {0, 0, 0, 0};
    int64_t total = 1;
    for (int d = 0; d < b->dims; d++) total *= b->extent[d];
    for (int64_t n = 0; n < total; n++) {
        int64_t q = n;
        for (int d = 0; d < b->dims; d++) {
            c[d] = b->min[d] + q % b->extent[d];
            q /= b->extent[d];
        }
        uint64_t v;
        switch (p) {
        case PAT_ZERO: v = 0; break;
        case PAT_MAX: v = top; break;
        case PAT_CHECKER: v = ((c[0] ^ c[1] ^ c[2] ^ c[3]) & 1) ? top : bottom; break;
        case PAT_STRIPES: v = c[0] % 3 == 0 ? top : (c[1] & 1) ? 1 : top - 1; break;
        default: v = case_rand(seed); break;
        }
        v &= max;
        memcpy(case_at(b, bytes, c[0], c[1], c[2], c[3]), &v, (size_t)bytes); /* little-endian */
    }
}

void case_input(bench_case *c, const char *name, int bits, int is_signed, int dims, const int64_t *min,
                const int64_t *extent, case_pattern p, uint64_t *seed) {
    int i = c->ninputs++;
    if (i >= CASE_MAX_INPUTS) abort();
    case_buffer(&c->in[i], bits, dims, extent);
    for (int d = 0; d < dims; d++) c->in[i].min[d] = min ? min[d] : 0;
    c->in_bits[i] = bits;
    c->in_signed[i] = is_signed;
    c->in_names[i] = name;
    case_fill(&c->in[i], bits, is_signed, p, seed);
}

void case_param(bench_case *c, const char *name, int64_t value) {
    int i = c->nparams++;
    if (i >= CASE_MAX_PARAMS) abort();
    c->param_names[i] = name;
    c->params[i] = value;
}

void case_params(bench_case *c, const case_param_value *v, int n) {
    for (int i = 0; i < n; i++) case_param(c, v[i].name, v[i].value);
}

void case_output(bench_case *c, int bits, int dims, const int64_t *extent) {
    case_buffer(&c->out, bits, dims, extent);
    c->out_bits = bits;
}

void bench_case_free(bench_case *c) {
    for (int i = 0; i < c->ninputs; i++) free(c->in[i].data);
    free(c->out.data);
    memset(c, 0, sizeof *c);
}

const bench_entry *bench_entries(void) {
    static bench_entry all[64];
    static int n = -1;
    if (n < 0) {
        const bench_entry *tables[] = {image_entries, camera_entries, ml_entries, ml_reduce_entries, user_entries};
        n = 0;
        for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
            for (const bench_entry *e = tables[t]; e->name && n < 63; e++) all[n++] = *e;
        all[n].name = NULL;
    }
    return all;
}

const bench_entry *bench_entry_find(const char *name) {
    for (const bench_entry *e = bench_entries(); e->name; e++)
        if (!strcmp(e->name, name)) return e;
    return NULL;
}

int bench_entry_is_user(const bench_entry *e) {
    for (const bench_entry *u = user_entries; u->name; u++)
        if (!strcmp(u->name, e->name)) return 1;
    return 0;
}

const char *bench_entry_dir(const bench_entry *e) { return bench_entry_is_user(e) ? "user" : "kernels"; }
