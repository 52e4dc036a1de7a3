/* testutil.h — what the C tests share: pass/fail counters, failure messages (the first
 * MAX_REPORT printed, every one counted), a clock, and reading a file.
 *
 * Header-only, for one test program each: the counters are that program's. A test that
 * wants another cap defines MAX_REPORT before including this.
 */
#ifndef TINE_TESTUTIL_H
#define TINE_TESTUTIL_H
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef MAX_REPORT
#define MAX_REPORT 60
#endif

static long long g_pass, g_fail, g_reported;

static inline void pass(void) { g_pass++; }

/* Counts a failure; prints "FAIL: message" unless MAX_REPORT were printed already. */
static inline bool fail_reported(void) {
    g_fail++;
    if (g_reported++ < MAX_REPORT) return true;
    if (g_reported == MAX_REPORT + 1) printf("FAIL: (further failures are counted, not printed)\n");
    return false;
}

static inline void vfail(const char *fmt, va_list ap) {
    if (!fail_reported()) return;
    fputs("FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
}

static inline void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(fmt, ap);
    va_end(ap);
}

static inline void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void check(bool ok, const char *fmt, ...) {
    if (ok) {
        pass();
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vfail(fmt, ap);
    va_end(ap);
}

#define CHECK(cond, ...)        \
    do {                        \
        if (cond) pass();       \
        else fail(__VA_ARGS__); \
    } while (0)

/* Seconds on a monotonic-enough clock (for reporting where a test spends its time). */
static inline double now(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A test's parts run in order, each reported with whether it failed and its time. */
typedef struct {
    const char *name;
    void (*fn)(void);
} test_part;
static inline void run_parts(const test_part *parts, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double t0 = now();
        long long f0 = g_fail;
        parts[i].fn();
        printf("%-15s %s (%.2f s)\n", parts[i].name, g_fail == f0 ? "ok" : "FAILED", now() - t0);
    }
}

/* A whole file, NUL-terminated and malloc'd; NULL if it cannot be read. */
static inline char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t n = 0, cap = 4096;
    char *s = malloc(cap);
    for (size_t k; s && (k = fread(s + n, 1, cap - n - 1, f)) > 0;) {
        n += k;
        if (cap - n - 1 == 0) {
            char *t = realloc(s, cap *= 2);
            if (!t) free(s);
            s = t;
        }
    }
    fclose(f);
    if (s) s[n] = 0;
    return s;
}

#endif
