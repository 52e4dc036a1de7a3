// average_pool (BENCHMARKS.md 13): hannk's 8x8 average pool at stride 2 with SAME padding
// on u8 (c, x, y, b): output (x, y) sums u16 input taps 2x-3..2x+4 x 2y-3..2y+4, taps
// outside the input are 0 (constant_exterior over x and y only); n = valid taps (from
// in_w, in_h); inv = u16_sat((2^17 + n) / 2n); out = clamp(u8_sat(rounding_mul_shr(sum, inv,
// 16)), out_min, out_max) (Halide's u16 rounding_mul_shift_right has tine's semantics).
//
// Schedule: separable, each 8-tap stride-2 window as pairs of taps, pairs of pairs and
// two of those (3 adds instead of 7), along the columns first (the row sums h are then
// only as wide as the output), then down the rows; all in u16 vectorized along c.
// Channels are tiled by 128 (whole cache lines of every input pixel) and the output walks
// rows inside a tile: h, the row pairs and pairs of pairs are stored at the tile and
// computed per output row (sliding windows: every input row is summed once), the column
// pairs per row of h. ShiftInwards tiles when c >= 128, GuardWithIf otherwise.
// (The window and this schedule are pool.h's, shared with max_pool.)
// tried (avx2, 1024 x 64 x 64, noisy machine, medians): the 8x8 RDom sum of hannk's
// reference form vectorized along c (6.6 ms); rows first, an 8-row sum per output row
// without sliding (0.94 ms); rows first with sliding and channel tiles of 32 (1.13 ms),
// 64 (0.79 ms), 128 (0.87 ms), 256 (1.10 ms); + prefetch of the input two rows ahead
// (0.86 ms); the final multiply in u32 (0.82 ms) vs rounding_mul_shift_right in u16
// (0.75 ms); columns first with tiles of 32 (0.95 ms), 64 (0.73 ms), 128 (0.70 ms), 256
// (0.78 ms); kept columns first, tiles of 128.
#include "Halide.h"
#include "pool.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class AveragePool : public Generator<AveragePool> {
public:
    Input<Buffer<uint8_t, 4>> in{"in"};
    Input<int32_t> in_w{"in_w"};
    Input<int32_t> in_h{"in_h"};
    Input<uint8_t> out_min{"out_min"};
    Input<uint8_t> out_max{"out_max"};
    Output<Buffer<uint8_t, 4>> out{"out"};

    void generate() {
        Pool8x8s2 pool;
        Var c = pool.c, x = pool.x, y = pool.y, b = pool.b;
        Func z = Pool8x8s2::padded(in, u8(0));
        // u16 never wraps (64 * 255 < 2^16)
        Expr total = pool.window(z, [](Expr a, Expr b) { return a + b; }, [](Expr v) { return u16(v); });

        auto taps = [](Expr s, Expr e) { return min(s + 8, e) - max(s, 0); };
        Expr n = taps(2 * x - 3, in_w) * taps(2 * y - 3, in_h);
        Expr inv = u16_sat((131072 + n) / (2 * n));
        Expr avg = rounding_mul_shift_right(total, inv, 16);
        out(c, x, y, b) = clamp(u8_sat(avg), out_min, out_max);

        pool.schedule(out, natural_vector_size<uint8_t>(), natural_vector_size<uint16_t>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(AveragePool, average_pool)
