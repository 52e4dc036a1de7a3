/* test_tv.c — translation validation (src/verify/tv.c) of the 20 benchmark kernels at
 * every x86 level: each vector expression tine's selection rewrote is proven equal to
 * the expression it came from; a counterexample (or an expression the encoding refuses
 * other than for floats) fails the test. Unknowns (a query past the timeout) are
 * counted and reported, as are float expressions (the encoding has none).
 *
 * test_tv [-v] [--timeout MS] [--target NAME] [--kernel SUBSTRING]
 *   -v prints every expression's line; by default one line per kernel and level, and
 *   every line of a kernel with a counterexample.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "verify/tv.h"

#include <dirent.h>

#include "testutil.h"

#define KDIR "../bench/kernels"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    bool verbose = false;
    unsigned timeout_ms = 1000; /* per query: what needs more is counted unknown */
    if (getenv("TINE_TV_TIMEOUT_MS")) timeout_ms = (unsigned)atoi(getenv("TINE_TV_TIMEOUT_MS")); /* the sanitizer build */
    const char *only_target = getenv("TINE_TV_LEVEL"), *only_kernel = NULL; /* the sanitizer build: one level */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = true;
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout_ms = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--target") && i + 1 < argc) only_target = argv[++i];
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) only_kernel = argv[++i];
        else {
            fprintf(stderr, "usage: test_tv [-v] [--timeout MS] [--target NAME] [--kernel SUBSTRING]\n");
            return 2;
        }
    }
    /* the kernels `tine bench` runs: bench/kernels/NAME.tine */
    char *names[64];
    int nk = 0;
    DIR *d = opendir(KDIR);
    if (!d) {
        printf("FAIL: cannot open %s\n", KDIR);
        return 1;
    }
    for (struct dirent *de; (de = readdir(d)) && nk < 64;) {
        size_t n = strlen(de->d_name);
        if (n > 5 && !strcmp(de->d_name + n - 5, ".tine")) names[nk++] = tine_strdup(de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)nk, sizeof *names, cmp_str);
    if (!only_kernel) CHECK(nk == 20, "%d benchmark kernels in %s, expected 20", nk, KDIR);

    tine_ctx_t *probe = tine_ctx_new();
    const char *levels[8];
    int nl = 0;
    for (int i = 0; nl < 8 && tine_target_name(probe, i); i++) /* the x86 levels: CI's time budget */
        if (!strncmp(tine_target_name(probe, i), "x86", 3)) levels[nl++] = tine_target_name(probe, i);
    tine_ctx_free(probe);
    CHECK(nl >= 4, "%d x86 levels", nl);

    double t0 = now();
    tine_tv_totals all = {0}, per[8] = {{0}};
    tine_tv_memo *memo = tine_tv_memo_new(); /* a pair proven at one level is not queried again at the next */
    for (int l = 0; l < nl; l++) {
        if (only_target && strcmp(only_target, levels[l])) continue;
        for (int i = 0; i < nk; i++) {
            if (only_kernel && !strstr(names[i], only_kernel)) continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", KDIR, names[i]);
            char *text = read_file(path);
            if (!text) {
                fail("cannot read %s", path);
                continue;
            }
            tine_ctx_t *ctx = tine_ctx_new();
            char *log = NULL;
            size_t loglen = 0;
            FILE *out = open_memstream(&log, &loglen);
            tine_tv_totals before = per[l];
            int rc = tine_verify_kernel(ctx, text, names[i], levels[l], timeout_ms, out, &per[l], memo);
            fclose(out);
            int errors = per[l].errors - before.errors;
            if (verbose || rc != 0 || errors) fputs(log, stdout);
            else { /* the kernel's line: the last one */
                char *last = loglen > 1 ? log + loglen - 2 : log;
                while (last > log && last[-1] != '\n') last--;
                fputs(last, stdout);
            }
            fflush(stdout);
            check(rc == 0, "%s on %s: %s", names[i], levels[l],
                  rc < 0 ? tine_error(ctx) : "counterexamples (above)");
            check(errors == 0, "%s on %s: %d expressions the encoding refused", names[i], levels[l], errors);
            check(rc < 0 || per[l].exprs > before.exprs, "%s on %s: no vector expression was selected", names[i],
                  levels[l]);
            free(log);
            tine_ctx_free(ctx);
            free(text);
        }
    }
    tine_tv_memo_free(memo);
    printf("\n");
    for (int l = 0; l < nl; l++) {
        if (!per[l].kernels) continue;
        printf("%s:\n", levels[l]);
        tine_tv_print_totals(stdout, &per[l], "  ", false);
        tine_tv_add(&all, &per[l]);
    }
    printf("all levels (%.1fs):\n", now() - t0);
    tine_tv_print_totals(stdout, &all, "  ", true);
    CHECK(all.counterexamples == 0, "%d counterexamples", all.counterexamples);
    CHECK(all.proven > 0, "nothing proven");
    /* the levels select many of the same pairs: the memo must have found them (natural
       vectors follow each level's registers, so levels of one width share most: 388 of
       806 verdicts reused over the 20 kernels, SSE4.1 154 of its 202 from SSE2) */
    if (!only_target && !only_kernel) CHECK(all.reused > all.exprs / 3, "%d of %d verdicts reused", all.reused, all.exprs);
    for (int i = 0; i < nk; i++) free(names[i]);
    printf("test_tv: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
