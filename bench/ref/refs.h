/* refs.h — independent scalar C references for the benchmark kernels.
 *
 * Written plainly, the way a user would, from BENCHMARKS.md alone (not from tine's
 * kernels). Images are row-major with a stride in elements; `in` points at element
 * (0, 0). Kernels without a boundary condition read a margin around the output (the
 * caller provides it); kernels with edge() clamp to the input's w x h, and their output
 * covers the same w x h.
 */
#ifndef TINE_BENCH_REFS_H
#define TINE_BENCH_REFS_H
#include <stddef.h>
#include <stdint.h>

/* reads [-1, w] x [-1, h] */
void gaussian3x3_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t *out, ptrdiff_t out_stride, int w, int h);
void gaussian5x5_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t *out, ptrdiff_t out_stride, int w, int h);
/* reads [-3, w + 2] x [-3, h + 2] */
void gaussian7x7_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t *out, ptrdiff_t out_stride, int w, int h);
void conv3x3a16_ref(const uint8_t *in, ptrdiff_t in_stride, const int8_t mask[9], uint8_t *out,
                    ptrdiff_t out_stride, int w, int h);
void conv3x3a32_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t *out, ptrdiff_t out_stride, int w, int h);
void dilate3x3_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t *out, ptrdiff_t out_stride, int w, int h);
void median3x3_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t *out, ptrdiff_t out_stride, int w, int h);
void sobel3x3_ref(const uint8_t *in, ptrdiff_t in_stride, uint8_t *out, ptrdiff_t out_stride, int w, int h);
/* reads [0, w + 1] x [0, h + 1] */
void blur3x3_ref(const uint16_t *in, ptrdiff_t in_stride, uint16_t *out, ptrdiff_t out_stride, int w, int h);

#endif
