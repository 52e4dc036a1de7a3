// gaussian5x5 (BENCHMARKS.md 2): b = repeat_edge(in) (the .tine's edge(in)); [1 4 6 4 1]
// vertically, then horizontally, in wrapping i16 (Halide's i16 wraps as tine's does);
// out = u8(c >> 8): c reaches 65280 and wraps, the u8 still keeps bits 8..15 = floor(c / 256).
//
// Schedule (apps/hexagon_benchmarks' gaussian5x5 shape, single thread): strips of 64 rows;
// per strip both the boundary b (u8, natural u8 width) and the vertical pass r (i16, the
// natural i16 width) are sliding windows (store_at the strip, compute_at each row: each row
// of b and r computed once, storage folded to a few rows); the output vectorized by the
// natural u8 width. Materializing b takes the clamps out of the 5x5 loads (inlined, the
// clamped taps cost a third of the time, below).
// tried (avx2 medians, a loaded 2-core machine, paired runs): repeat_edge inlined (0.94 ms);
// inlined with r at the u8 width (1.17 ms); b materialized, r at the u8 width (0.62-0.68 ms vs
// 0.54-0.62); strips of 256 / 1024 rows, the output at half the u8 width, b widened to i16
// before storing (all within noise of the kept one); kept u8 b + i16 r sliding, strips of 64
// (0.54-0.58 ms).
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class Gaussian5x5 : public Generator<Gaussian5x5> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func b("b");
        b(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
        Func r("r");
        r(x, y) = i16(b(x, y - 2)) + 4 * i16(b(x, y - 1)) + 6 * i16(b(x, y)) + 4 * i16(b(x, y + 1)) + i16(b(x, y + 2));
        out(x, y) = u8((r(x - 2, y) + 4 * r(x - 1, y) + 6 * r(x, y) + 4 * r(x + 1, y) + r(x + 2, y)) >> 8);

        const int vec = natural_vector_size<uint8_t>();
        out.split(y, yo, yi, 64, TailStrategy::GuardWithIf).vectorize(x, vec, TailStrategy::GuardWithIf);
        r.store_at(out, yo).compute_at(out, yi).vectorize(x, vec / 2, TailStrategy::GuardWithIf);
        b.store_at(out, yo).compute_at(out, yi).vectorize(x, vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Gaussian5x5, gaussian5x5)
