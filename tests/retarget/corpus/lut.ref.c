/* lut: reference implementations (portable C). */
#include <stddef.h>
#include <stdint.h>

/* 16-entry table lookup on the low nibble. */
void ref_lut16_u8(uint8_t *dst, const uint8_t *src, const uint8_t *table, int n) {
  for (int i = 0; i < n; i++) dst[i] = table[src[i] & 15];
}

/* dst[i] = src[n - 1 - i] (dst and src do not overlap). */
void ref_reverse_u8(uint8_t *dst, const uint8_t *src, int n) {
  for (int i = 0; i < n; i++) dst[i] = src[n - 1 - i];
}

/* Total number of set bits. */
uint32_t ref_popcount_sum_u8(const uint8_t *src, int n) {
  uint32_t s = 0;
  for (int i = 0; i < n; i++)
    for (int b = 0; b < 8; b++) s += (src[i] >> b) & 1u;
  return s;
}

/* Byte-swap each 32-bit word. */
void ref_bswap32_u32(uint32_t *dst, const uint32_t *src, int n) {
  for (int i = 0; i < n; i++) {
    uint32_t x = src[i];
    dst[i] = (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
  }
}

/* Nibble-table classification (as in SIMD parsers):
 * dst = lo_tab[x & 15] & hi_tab[x >> 4]. */
void ref_classify_nibble_u8(uint8_t *dst, const uint8_t *src, const uint8_t *lo_tab,
                            const uint8_t *hi_tab, int n) {
  for (int i = 0; i < n; i++) dst[i] = lo_tab[src[i] & 15] & hi_tab[src[i] >> 4];
}

/* Remap small values: dst = src < 16 ? table[src] : src. */
void ref_remap_low16_u8(uint8_t *dst, const uint8_t *src, const uint8_t *table, int n) {
  for (int i = 0; i < n; i++) dst[i] = src[i] < 16 ? table[src[i]] : src[i];
}
