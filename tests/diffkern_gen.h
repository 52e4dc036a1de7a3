/* diffkern_gen.h — test_diffkern's random kernel generator (diffkern_gen.c). */
#ifndef DIFFKERN_GEN_H
#define DIFFKERN_GEN_H
#include <stdbool.h>
#include <stdint.h>

/* A random kernel's text (malloc'd) from *seed: its output's dimensions in *dims_out;
 * automatic: `schedule auto` instead of the drawn directives. */
char *gen_kernel(uint64_t *seed, int *dims_out, bool automatic);

/* Whether the comma-separated list DIFFKERN_KNOWN_BAD names finding (an issue's finding
 * whose fix is under way: "issue30-1"; test_diffkern.c says what each one skips). */
bool known_bad(const char *finding);

#endif
