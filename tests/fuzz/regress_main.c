/* regress_main.c — replays saved inputs through a harness without libFuzzer: each
 * argument is a file or a directory of files (in name order), each file one call of
 * LLVMFuzzerTestOneInput. A broken property aborts (the test fails); it prints how many
 * inputs ran and fails if there were none (an empty or missing corpus is a mistake). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    size_t n = 0, cap = 4096;
    uint8_t *buf = malloc(cap);
    for (size_t k; buf && (k = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) {
            uint8_t *t = realloc(buf, cap *= 2);
            if (!t) free(buf);
            buf = t;
        }
    }
    fclose(f);
    if (!buf) abort();
    fprintf(stderr, "%s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    int ran = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "no such file or directory: %s\n", argv[i]);
            bad = 1;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]) != 0;
            ran++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            bad = 1;
            continue;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        for (struct dirent *de; (de = readdir(d));) {
            if (de->d_name[0] == '.') continue; /* ., .., hidden files */
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                char **t = realloc(names, cap * sizeof *names);
                if (!t) abort();
                names = t;
            }
            size_t len = strlen(argv[i]) + strlen(de->d_name) + 2;
            names[n] = malloc(len);
            if (!names[n]) abort();
            snprintf(names[n++], len, "%s/%s", argv[i], de->d_name);
        }
        closedir(d);
        qsort(names, n, sizeof *names, by_name);
        for (size_t k = 0; k < n; k++) {
            bad |= run_file(names[k]) != 0;
            ran++;
            free(names[k]);
        }
        free(names);
    }
    printf("%d inputs replayed\n", ran);
    return bad || ran == 0 ? 1 : 0;
}
