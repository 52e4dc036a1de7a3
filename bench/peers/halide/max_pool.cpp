// max_pool (BENCHMARKS.md 14): hannk's 8x8 max pool at stride 2 with SAME padding on u8
// (c, x, y, b): output (x, y) is the max of input taps 2x-3..2x+4 x 2y-3..2y+4, taps
// outside the input read out_min (constant_exterior over x and y only);
// out = min(max(out_min, m), out_max).
//
// Schedule: separable, each 8-tap stride-2 window as the max of pairs of taps, of pairs of
// pairs and of two of those (3 maxes instead of 7), along the columns first (the row maxes
// h are then only as wide as the output), then down the rows; all in u8 vectorized along
// c. Channels are tiled by 128 (whole cache lines of every input pixel) and the output
// walks rows inside a tile: h, the row pairs and pairs of pairs are stored at the tile and
// computed per output row (sliding windows: every input row is reduced once), the column
// pairs per row of h. ShiftInwards tiles when c >= 128, GuardWithIf otherwise.
// (The window and this schedule are pool.h's, shared with average_pool.)
// tried (avx2, 1024 x 64 x 64, noisy machine, medians): the 8x8 RDom max of hannk's
// reference form vectorized along c (10.3 ms); rows first, an 8-row max per output row
// without sliding (0.90 ms); rows first with sliding and channel tiles of 32 (0.65 ms),
// 64 (0.41 ms), 128 (0.40 ms), 256 (0.41 ms); + prefetch of the input two rows ahead
// (0.52 ms); columns first with tiles of 64 (0.42 ms), 128 (0.39 ms); kept columns
// first, tiles of 128.
#include "Halide.h"
#include "pool.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class MaxPool : public Generator<MaxPool> {
public:
    Input<Buffer<uint8_t, 4>> in{"in"};
    Input<uint8_t> out_min{"out_min"};
    Input<uint8_t> out_max{"out_max"};
    Output<Buffer<uint8_t, 4>> out{"out"};

    void generate() {
        Pool8x8s2 pool;
        Var c = pool.c, x = pool.x, y = pool.y, b = pool.b;
        Func z = Pool8x8s2::padded(in, out_min);
        Expr m = pool.window(z, [](Expr a, Expr b) { return max(a, b); }, [](Expr v) { return v; });
        out(c, x, y, b) = min(max(out_min, m), out_max);

        pool.schedule(out, natural_vector_size<uint8_t>(), natural_vector_size<uint8_t>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(MaxPool, max_pool)
