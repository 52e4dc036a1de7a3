/* transpose: reference implementations (portable C).  Strides in elements. */
#include <stddef.h>
#include <stdint.h>

void ref_transpose4x4_u32(uint32_t *dst, ptrdiff_t dst_stride, const uint32_t *src,
                          ptrdiff_t src_stride) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) dst[j * dst_stride + i] = src[i * src_stride + j];
}

void ref_transpose8x8_u16(uint16_t *dst, ptrdiff_t dst_stride, const uint16_t *src,
                          ptrdiff_t src_stride) {
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) dst[j * dst_stride + i] = src[i * src_stride + j];
}

void ref_transpose16x16_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                           ptrdiff_t src_stride) {
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) dst[j * dst_stride + i] = src[i * src_stride + j];
}

/* Interleave: dst[2i] = a[i], dst[2i + 1] = b[i]. */
void ref_zip_u16(uint16_t *dst, const uint16_t *a, const uint16_t *b, int n) {
  for (int i = 0; i < n; i++) {
    dst[2 * i] = a[i];
    dst[2 * i + 1] = b[i];
  }
}

/* De-interleave: even[i] = src[2i], odd[i] = src[2i + 1]. */
void ref_unzip_u8(uint8_t *even, uint8_t *odd, const uint8_t *src, int n) {
  for (int i = 0; i < n; i++) {
    even[i] = src[2 * i];
    odd[i] = src[2 * i + 1];
  }
}

void ref_transpose4x4_u8(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                         ptrdiff_t src_stride) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) dst[j * dst_stride + i] = src[i * src_stride + j];
}
