// gaussian3x3 (BENCHMARKS.md 1): [1 2 1] vertically, then horizontally, in i16; no
// boundary (the caller provides a one-pixel margin, as for the .tine kernel).
//
// Schedule (apps/hexagon_benchmarks' gaussian3x3, single thread): the output vectorized
// by the natural u8 width; the vertical pass computed per strip of rows and kept for the
// strip (store_at the strip, compute_at each row: a sliding window, each row sum computed
// once), vectorized at the i16 width.
// tried (avx2 medians, 1920x1080, paired runs on a loaded machine): one sliding window down
// the whole image instead of 64-row strips (0.30-0.31 ms vs 0.30-0.32: equal); r at the u8
// width (0.33-0.34 ms); the output at twice the u8 width with r at the u8 width (0.48-0.58
// ms vs 0.43-0.50 in the same runs); kept the strips.
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class Gaussian3x3 : public Generator<Gaussian3x3> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func r("r");
        r(x, y) = i16(in(x, y - 1)) + 2 * i16(in(x, y)) + i16(in(x, y + 1));
        out(x, y) = u8((r(x - 1, y) + 2 * r(x, y) + r(x + 1, y) + 8) >> 4);

        const int vec = natural_vector_size<uint8_t>();
        out.split(y, yo, yi, 64, TailStrategy::GuardWithIf).vectorize(x, vec, TailStrategy::GuardWithIf);
        r.store_at(out, yo).compute_at(out, yi).vectorize(x, vec / 2, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Gaussian3x3, gaussian3x3)
