/* lut: AArch64 Neon. */
#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

void lut16_u8(uint8_t *dst, const uint8_t *src, const uint8_t *table, int n) {
  const uint8x16_t tbl = vld1q_u8(table);
  const uint8x16_t low4 = vdupq_n_u8(15);
  int i = 0;
  for (; i + 16 <= n; i += 16) vst1q_u8(dst + i, vqtbl1q_u8(tbl, vandq_u8(vld1q_u8(src + i), low4)));
  if (i + 8 <= n) {
    vst1_u8(dst + i, vqtbl1_u8(tbl, vand_u8(vld1_u8(src + i), vget_low_u8(low4))));
    i += 8;
  }
  for (; i < n; i++) dst[i] = table[src[i] & 15];
}

void reverse_u8(uint8_t *dst, const uint8_t *src, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t v = vld1q_u8(src + n - 16 - i);
    v = vrev64q_u8(v);             /* reverse within each half */
    vst1q_u8(dst + i, vextq_u8(v, v, 8)); /* swap the halves */
  }
  for (; i < n; i++) dst[i] = src[n - 1 - i];
}

uint32_t popcount_sum_u8(const uint8_t *src, int n) {
  uint32x4_t total = vdupq_n_u32(0);
  int i = 0;
  while (i + 16 <= n) {
    /* a u16 lane gains at most 16 per step: flush before 65536 */
    uint16x8_t acc = vdupq_n_u16(0);
    for (int k = 0; k < 4095 && i + 16 <= n; k++, i += 16) acc = vpadalq_u8(acc, vcntq_u8(vld1q_u8(src + i)));
    total = vpadalq_u16(total, acc);
  }
  uint32_t s = vaddvq_u32(total);
  if (i + 8 <= n) {
    s += vaddv_u8(vcnt_u8(vld1_u8(src + i))); /* at most 64 */
    i += 8;
  }
  for (; i < n; i++) s += (uint32_t)__builtin_popcount(src[i]);
  return s;
}

void bswap32_u32(uint32_t *dst, const uint32_t *src, int n) {
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    uint8x16_t v = vreinterpretq_u8_u32(vld1q_u32(src + i));
    vst1q_u32(dst + i, vreinterpretq_u32_u8(vrev32q_u8(v)));
  }
  if (i + 2 <= n) {
    uint8x8_t v = vreinterpret_u8_u32(vld1_u32(src + i));
    vst1_u32(dst + i, vreinterpret_u32_u8(vrev32_u8(v)));
    i += 2;
  }
  for (; i < n; i++) {
    uint32_t x = src[i];
    dst[i] = (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
  }
}

void classify_nibble_u8(uint8_t *dst, const uint8_t *src, const uint8_t *lo_tab,
                        const uint8_t *hi_tab, int n) {
  const uint8x16_t tlo = vld1q_u8(lo_tab), thi = vld1q_u8(hi_tab);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t x = vld1q_u8(src + i);
    uint8x16_t a = vqtbl1q_u8(tlo, vandq_u8(x, vdupq_n_u8(0x0F)));
    uint8x16_t b = vqtbl1q_u8(thi, vshrq_n_u8(x, 4));
    vst1q_u8(dst + i, vandq_u8(a, b));
  }
  for (; i < n; i++) dst[i] = lo_tab[src[i] & 15] & hi_tab[src[i] >> 4];
}

void remap_low16_u8(uint8_t *dst, const uint8_t *src, const uint8_t *table, int n) {
  const uint8x16_t tbl = vld1q_u8(table);
  int i = 0;
  /* tbx leaves out-of-range lanes (index >= 16) as they were */
  for (; i + 16 <= n; i += 16) {
    uint8x16_t x = vld1q_u8(src + i);
    vst1q_u8(dst + i, vqtbx1q_u8(x, tbl, x));
  }
  if (i + 8 <= n) {
    uint8x8_t x = vld1_u8(src + i);
    vst1_u8(dst + i, vqtbx1_u8(x, tbl, x));
    i += 8;
  }
  for (; i < n; i++) dst[i] = src[i] < 16 ? table[src[i]] : src[i];
}
