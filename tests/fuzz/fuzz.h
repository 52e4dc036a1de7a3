/* fuzz.h — what the libFuzzer harnesses share.
 *
 * Each harness (fuzz_*.c) defines LLVMFuzzerTestOneInput. Built with clang and
 * -fsanitize=fuzzer it is a libFuzzer target (scripts/fuzz.sh); built with any compiler
 * together with regress_main.c it replays the inputs of tests/fuzz/regress/<harness>/
 * (a normal ctest). A harness reports a broken property with FUZZ_CHECK, which prints
 * and aborts: libFuzzer saves the input as a crash.
 */
#ifndef TINE_FUZZ_H
#define TINE_FUZZ_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                   \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "fuzz: %s:%d: property broken: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            abort();                                                            \
        }                                                                       \
    } while (0)

/* The input as a NUL-terminated string (text after an embedded NUL is ignored by the
 * parsers, as a C string ends there). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

static inline uint64_t fuzz_hash(const uint8_t *data, size_t size) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

static inline uint64_t fuzz_rand(uint64_t *s) {
    *s += 0x9e3779b97f4a7c15ull;
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
