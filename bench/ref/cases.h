/* cases.h — the benchmark kernels' inputs, parameters and references, for harnesses.
 *
 * Every kernel of bench/kernels and of bench/user (the user kernels: outside the 20 of
 * BENCHMARKS.md, `schedule auto`, reported in a table of their own) has an entry: `make`
 * allocates and fills its buffers and
 * parameter values for a size and a pattern, `ref` computes the expected output with the
 * kernel's independent scalar C reference (refs.h). tests/test_refs.c and `tine bench`
 * both iterate over bench_entries; `tine bench` also loads this directory compiled by
 * clang-19 and gcc as shared objects and times their `ref`s.
 *
 * Buffers have tine_buffer_t's layout: element (i0, i1, ...) at data[(i0 - min[0]) +
 * (i1 - min[1]) * stride[1] + ...], strides in elements, dimension 0 dense. Inputs and
 * parameters are in the order the .tine file declares them; their names are recorded so a
 * harness can check the two agree.
 */
#ifndef TINE_BENCH_CASES_H
#define TINE_BENCH_CASES_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    void *data;
    int dims;
    int64_t min[4], extent[4], stride[4];
} ref_buffer;

enum { CASE_MAX_INPUTS = 8, CASE_MAX_PARAMS = 16 };

/* Sizes: three small test shapes (CASE_TEST0..2: odd extents, one narrower than any
 * vector), a quick benchmark size (CI smoke) and the default size of BENCHMARKS.md. */
typedef enum { CASE_TEST0, CASE_TEST1, CASE_TEST2, CASE_QUICK, CASE_FULL } case_size;
/* Fill patterns: random, all 0, all max, 0/max checkerboard, stripes of max, 1, max-1. */
typedef enum { PAT_RANDOM, PAT_ZERO, PAT_MAX, PAT_CHECKER, PAT_STRIPES, PAT_COUNT } case_pattern;

typedef struct {
    const char *name;
    int ninputs, nparams;
    ref_buffer in[CASE_MAX_INPUTS];
    int in_bits[CASE_MAX_INPUTS], in_signed[CASE_MAX_INPUTS];
    const char *in_names[CASE_MAX_INPUTS];
    int64_t params[CASE_MAX_PARAMS];
    const char *param_names[CASE_MAX_PARAMS];
    ref_buffer out;
    int out_bits;
} bench_case;

typedef struct {
    const char *name;                                      /* bench/<bench_entry_dir>/NAME.tine */
    int (*make)(bench_case *c, case_size size, case_pattern p, uint64_t *seed); /* 0 on success */
    void (*ref)(const bench_case *c, void *out);            /* out has c->out's geometry */
} bench_entry;

/* Every kernel's entry, the 20 in BENCHMARKS.md order and then the user kernels, ending
 * with {0}. */
const bench_entry *bench_entries(void);
const bench_entry *bench_entry_find(const char *name);
/* Whether e is a user kernel (an entry of user.c's table: bench/user/NAME.tine, no hand
 * schedule, a table of its own in `tine bench`), and the directory under bench/ of e's
 * kernel file: "kernels", or "user". */
int bench_entry_is_user(const bench_entry *e);
const char *bench_entry_dir(const bench_entry *e);
void bench_case_free(bench_case *c);

/* Helpers for `make` functions. case_buffer allocates a dense buffer of the given extents
 * (min 0 unless changed afterwards; mins are taken into account by the helpers below). */
void case_buffer(ref_buffer *b, int bits, int dims, const int64_t *extent);
void case_fill(ref_buffer *b, int bits, int is_signed, case_pattern p, uint64_t *seed);
void case_input(bench_case *c, const char *name, int bits, int is_signed, int dims, const int64_t *min,
                const int64_t *extent, case_pattern p, uint64_t *seed);
void case_param(bench_case *c, const char *name, int64_t value);
/* Several parameters in order: CASE_PARAMS(c, {"z1", 0}, {"m1", 100}). */
typedef struct {
    const char *name;
    int64_t value;
} case_param_value;
void case_params(bench_case *c, const case_param_value *v, int n);
#define CASE_PARAMS(c, ...)                                                  \
    do {                                                                     \
        const case_param_value case_params_[] = {__VA_ARGS__};              \
        case_params((c), case_params_, (int)(sizeof case_params_ / sizeof case_params_[0])); \
    } while (0)
void case_output(bench_case *c, int bits, int dims, const int64_t *extent);
uint64_t case_rand(uint64_t *seed);
/* The bytes b spans (from its first element to its last), elements of `bits` bits. */
size_t case_bytes(const ref_buffer *b, int bits);
/* Whether outputs a and b (c->out's geometry) differ; if so, the first differing
 * element's coordinates in at[0 .. dims-1]. Only elements of the output are compared. */
int case_first_difference(const bench_case *c, const void *a, const void *b, int64_t *at);
/* The largest |a - b| over outputs a and b (c->out's geometry), leaving out frame[d]
 * elements at both ends of each dimension d (a peer's border: bench/peers/peer.h).
 * Elements are unsigned below 32 bits, i32 at 32. */
int64_t case_max_difference(const bench_case *c, const void *a, const void *b, const int frame[4]);
/* The address of element (i0, i1, i2, i3) of b, elements of `bytes` bytes. */
void *case_at(const ref_buffer *b, int bytes, int64_t i0, int64_t i1, int64_t i2, int64_t i3);

/* The per-file entry tables cases.c gathers. */
extern const bench_entry image_entries[], camera_entries[], ml_entries[], ml_reduce_entries[], user_entries[];

#endif
