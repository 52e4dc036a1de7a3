/* cshared.h — C sources built into one shared object for the instruction tests
 * (test_isa.c's C intrinsics, test_isa_gen.c's imported entries): clang-19 -O1
 * -march=native, each source compiled on its own, two at a time (the machine's two cores),
 * then linked. Header-only, for one test program each.
 */
#ifndef TINE_TEST_CSHARED_H
#define TINE_TEST_CSHARED_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Runs a shell command, its output (both streams) into log. The pipe is drained to the
 * end: closing it early would kill clang with SIGPIPE (a CPU whose -march=native draws
 * hundreds of warnings, as clang 19 on some Xeons does). */
static inline int cshared_run(const char *cmd, char *log, size_t cap) {
    FILE *p = popen(cmd, "r");
    size_t got = p ? fread(log, 1, cap - 1, p) : 0;
    log[got] = 0;
    for (char sink[4096]; p && fread(sink, 1, sizeof sink, p) > 0;) {}
    return p ? pclose(p) : -1;
}

/* Builds srcs[0..n) (paths without quotes or spaces) into the shared object so; false
 * with clang's messages in log. */
static inline bool cshared_build(char *const *srcs, int n, const char *so, char *log, size_t cap) {
    static const char FLAGS[] = "-O1 -march=native -Wno-invalid-feature-combination -fPIC";
    size_t len = 512;
    for (int i = 0; i < n; i++) len += 2 * strlen(srcs[i]) + 8;
    char *cmd = malloc(len);
    if (!cmd) return false;
    int w = snprintf(cmd, len, "printf '%%s\\n'");
    for (int i = 0; i < n; i++) w += snprintf(cmd + w, len - (size_t)w, " %s", srcs[i]);
    w += snprintf(cmd + w, len - (size_t)w, " | xargs -P 2 -I{} clang-19 %s -c {} -o {}.o 2>&1 && clang-19 -shared -o %s", FLAGS, so);
    for (int i = 0; i < n; i++) w += snprintf(cmd + w, len - (size_t)w, " %s.o", srcs[i]);
    snprintf(cmd + w, len - (size_t)w, " 2>&1");
    int rc = cshared_run(cmd, log, cap);
    free(cmd);
    return rc == 0;
}

/* Removes the objects cshared_build left beside its sources. */
static inline void cshared_clean(char *const *srcs, int n) {
    for (int i = 0; i < n; i++) {
        char o[512];
        snprintf(o, sizeof o, "%s.o", srcs[i]);
        remove(o);
    }
}

#endif
