/* aot_check.h — the tally of the plain C programs that link AOT kernels (aot_main.c,
 * dispatch_main.c): a failed check prints the kernel, harness size and fill pattern. */
#ifndef TINE_AOT_CHECK_H
#define TINE_AOT_CHECK_H

#include <stdio.h>

static int passed, failed;

static void check(int ok, const char *what, const char *kernel, int size, int pattern) {
    if (ok) passed++;
    else {
        failed++;
        printf("FAIL %s: %s (size %d, pattern %d)\n", kernel, what, size, pattern);
    }
}

#endif
