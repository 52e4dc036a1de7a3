/* util.c — arenas and growable strings.
 *
 * An arena hands out zeroed, 16-byte aligned blocks from large chunks and frees them all
 * at once; everything a context creates lives in one, so nothing is freed piecemeal.
 */
#define _DEFAULT_SOURCE
#include "../internal.h"

#include <sys/mman.h>
#include <time.h>

struct tine_chunk {
    tine_chunk *next;
    size_t size;
    _Alignas(16) char data[];
};

enum { CHUNK_MIN = 4 << 10, CHUNK_BIG = 2 << 20 };

_Thread_local tine_oom_point *tine_oom_top;
static _Thread_local size_t oom_bytes; /* the allocation that failed, for the message */

_Noreturn void tine_out_of_memory(size_t bytes) {
    if (!tine_oom_top) {
        fprintf(stderr, "tine: internal error: out of memory (%zu bytes) in a call that has no guard\n", bytes);
        abort();
    }
    oom_bytes = bytes;
    longjmp(tine_oom_top->jb, 1);
}

size_t tine_oom_pop(tine_oom_point *p) {
    tine_oom_top = p->prev;
    return oom_bytes;
}

static void *arena_alloc(tine_arena *a, size_t n, size_t align) {
    a->cur = a->cur ? (char *)(((uintptr_t)a->cur + align - 1) & ~(uintptr_t)(align - 1)) : NULL;
    if (a->cur > a->end) a->cur = a->end;
    n = (n + 7) & ~(size_t)7;
    if ((size_t)(a->end - a->cur) < n || !a->cur) {
        /* chunks double from 4 KiB (most arenas are small, and an interpreter's scratch
           arena lives for one evaluation: a first chunk of 64 KiB, zeroed, was a quarter
           of test_kernel's time under ASan) up to one 2 MiB huge page */
        size_t size = a->head ? a->head->size * 2 : CHUNK_MIN;
        if (size > CHUNK_BIG - sizeof(tine_chunk)) size = CHUNK_BIG - sizeof(tine_chunk);
        if (size < n) size = n;
        tine_chunk *c = tine_big_calloc(sizeof(tine_chunk) + size);
        c->next = a->head;
        c->size = size;
        a->head = c;
        a->cur = c->data;
        a->end = c->data + size;
        a->bytes += sizeof(tine_chunk) + size;
    }
    void *p = a->cur; /* chunks come zeroed */
    a->cur += n;
    return p;
}

void *tine_arena_alloc(tine_arena *a, size_t n) { return arena_alloc(a, n, 16); }
void *tine_arena_alloc8(tine_arena *a, size_t n) { return arena_alloc(a, n, 8); }

char *tine_arena_strdup(tine_arena *a, const char *s, size_t n) {
    char *p = tine_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void tine_arena_free(tine_arena *a) {
    tine_chunk *c = a->head;
    while (c) {
        tine_chunk *next = c->next;
        free(c);
        c = next;
    }
    memset(a, 0, sizeof *a);
}

static void buf_reserve(tine_buf *b, size_t extra) {
    if (b->n + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap * 2 : 64;
    while (cap < b->n + extra + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) tine_out_of_memory(cap);
    b->p = p;
    b->cap = cap;
}

void tine_buf_putc(tine_buf *b, char c) {
    buf_reserve(b, 1);
    b->p[b->n++] = c;
    b->p[b->n] = 0;
}

void tine_buf_puts(tine_buf *b, const char *s) {
    size_t n = strlen(s);
    buf_reserve(b, n);
    memcpy(b->p + b->n, s, n + 1);
    b->n += n;
}

void tine_buf_vprintf(tine_buf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    TINE_ASSERT(n >= 0);
    buf_reserve(b, (size_t)n);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->n += (size_t)n;
}

void tine_buf_printf(tine_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tine_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *tine_xasprintf(const char *fmt, ...) {
    tine_buf b = {0};
    va_list ap;
    va_start(ap, fmt);
    tine_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return b.p;
}

char *tine_i128_str(tine_i128 v, char out[48]) {
    char tmp[48];
    int n = 0, k = 0;
    tine_u128 u = v < 0 ? -(tine_u128)v : (tine_u128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0) out[k++] = '-';
    while (n) out[k++] = tmp[--n];
    out[k] = 0;
    return out;
}

void *tine_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) tine_out_of_memory(n);
    return p;
}

void *tine_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) tine_out_of_memory(n * size);
    return p;
}

void *tine_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) tine_out_of_memory(n);
    return q;
}

void *tine_xrealloc_array(void *p, size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) tine_out_of_memory(SIZE_MAX);
    return tine_xrealloc(p, n * size);
}

size_t tine_grow_cap(size_t cap, size_t need) {
    size_t c = cap < 8 ? 8 : cap;
    while (c < need) {
        if (c > SIZE_MAX / 2) return need;
        c *= 2;
    }
    return c;
}

double tine_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

char *tine_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p) tine_out_of_memory(n);
    return memcpy(p, s, n);
}

int tine_edit_distance(const char *a, const char *b, size_t n) {
    /* one row of the table at a time; names are short (longer ones are cut: a guess) */
    enum { MAX = 64 };
    size_t la = strlen(a) < MAX ? strlen(a) : MAX, lb = n < MAX ? n : MAX;
    int row[MAX + 1];
    for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* Large tables are probed at random; on 4 KiB pages nearly every probe also misses the
 * TLB, which under virtualization costs more than the cache miss. Ask for huge pages. */
void *tine_big_calloc_try(size_t n) {
    enum { HUGE = 2 << 20 };
    if (n < HUGE) return calloc(1, n);
    void *p = NULL;
    size_t size = (n + HUGE - 1) & ~(size_t)(HUGE - 1);
    if (size < n || posix_memalign(&p, HUGE, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);
#endif
    memset(p, 0, n);
    return p;
}

void *tine_big_calloc(size_t n) {
    void *p = tine_big_calloc_try(n);
    if (!p) tine_out_of_memory(n);
    return p;
}

/* ---- tine_u64map ---------------------------------------------------------------------- */

static uint32_t map_slot(const tine_u64map *m, uint64_t k) {
    uint64_t h = (k + 1) * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> 32) & (m->cap - 1);
    while (m->key[i] && m->key[i] != k + 1) i = (i + 1) & (m->cap - 1);
    return i;
}

bool tine_u64map_get(const tine_u64map *m, uint64_t k, uint64_t *v) {
    if (!m->cap) return false;
    uint32_t i = map_slot(m, k);
    if (!m->key[i]) return false;
    *v = m->val[i];
    return true;
}

void tine_u64map_put(tine_u64map *m, uint64_t k, uint64_t v) {
    if (2 * (m->n + 1) > m->cap) {
        tine_u64map old = *m;
        uint32_t cap = m->cap ? 2 * m->cap : 256;
        uint64_t *key = calloc(cap, sizeof *key), *val = calloc(cap, sizeof *val);
        if (!key || !val) { /* m is as it was */
            free(key);
            free(val);
            tine_out_of_memory((size_t)cap * 2 * sizeof *key);
        }
        *m = (tine_u64map){.key = key, .val = val, .cap = cap};
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.key[i]) tine_u64map_put(m, old.key[i] - 1, old.val[i]);
        free(old.key);
        free(old.val);
    }
    uint32_t i = map_slot(m, k);
    if (!m->key[i]) m->n++;
    m->key[i] = k + 1;
    m->val[i] = v;
}

void tine_u64map_free(tine_u64map *m) {
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}
