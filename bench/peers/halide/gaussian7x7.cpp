// gaussian7x7 (BENCHMARKS.md 3): no boundary (the case has a 3-pixel margin); [1 6 15 20 15 6 1]
// vertically, then horizontally; out = u8_sat(c >> 12). The .tine computes in i32; the
// vertical pass is at most 255 * 64 = 16320, so it is kept in i16 here (as Halide's own
// apps do) and widened for the horizontal pass, the same values exactly.
//
// Schedule (apps/hexagon_benchmarks' gaussian7x7 shape, single thread): strips of 64 rows; the
// vertical pass r a sliding window per strip (store_at the strip, compute_at each row),
// in i16 vectorized at the natural i16 width; the output vectorized at the natural i32 width
// (8 lanes: one i32 register per horizontal tap).
// tried (avx2 medians, paired runs): output at the u8 width, r at the i32 width (0.96-0.99 ms);
// r at the u8 width (1.04 ms); 32x8 tiles with r per tile (3.4 ms and up: bad); r at half the
// u8 width (1.01-1.08 ms); strips of 1024 rows (within noise); output at half the u8 width
// (0.92-0.95 ms); kept output at the i32 width (0.89-0.91 ms). Then, r in i16 at the i16
// width (1.11-1.14 ms vs 1.18-1.56 for r in i32, same runs on a slower day); + the output at
// the i16 width (1.18-1.20 ms); kept r in i16, the output at the i32 width.
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class Gaussian7x7 : public Generator<Gaussian7x7> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func r("r");
        r(x, y) = i16(in(x, y - 3)) + 6 * i16(in(x, y - 2)) + 15 * i16(in(x, y - 1)) + 20 * i16(in(x, y)) +
                  15 * i16(in(x, y + 1)) + 6 * i16(in(x, y + 2)) + i16(in(x, y + 3));
        out(x, y) = saturating_cast<uint8_t>((i32(r(x - 3, y)) + 6 * i32(r(x - 2, y)) + 15 * i32(r(x - 1, y)) +
                                              20 * i32(r(x, y)) + 15 * i32(r(x + 1, y)) + 6 * i32(r(x + 2, y)) +
                                              i32(r(x + 3, y))) >> 12);

        const int vec = natural_vector_size<uint8_t>();
        out.split(y, yo, yi, 64, TailStrategy::GuardWithIf)
            .vectorize(x, natural_vector_size<int32_t>(), TailStrategy::GuardWithIf);
        r.store_at(out, yo).compute_at(out, yi).vectorize(x, natural_vector_size<int16_t>(), TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Gaussian7x7, gaussian7x7)
