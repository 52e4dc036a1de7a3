// conv3x3a16 (BENCHMARKS.md 4): b = repeat_edge(in); an i8 3x3 mask m (bounds [0,3) x [0,3));
// products and sum in wrapping i16 (Halide's i16 wraps as tine's); out = u8(clamp(sum >> 4, 0, 255))
// (arithmetic shift; the clamp then u8 becomes vpackuswb).
//
// Schedule (apps/hexagon_benchmarks' conv3x3 shape, single thread): strips of 64 rows; the
// boundary materialized already widened to i16 as a sliding window per strip (store_at the
// strip, compute_at each row, natural i16 width), so the 9 taps are plain i16 loads with no
// clamps and no per-tap zero extension; the output vectorized by the natural u8 width.
// tried (avx2 medians, paired runs): repeat_edge inlined (0.65 ms); b as u8 sliding (0.53 ms);
// output at twice the u8 width (0.56 ms); b for the whole strip at once (same as sliding);
// rows unrolled by 2 (0.54-0.58 vs 0.53-0.56); i16 b at the u8 width (0.59-0.62 vs 0.52-0.56);
// the mask widened once into a compute_root Func (same: LLVM already hoists the 9 loads);
// kept i16 b at the i16 width (0.47-0.50 ms).
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class Conv3x3a16 : public Generator<Conv3x3a16> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Input<Buffer<int8_t, 2>> m{"m"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func b("b");
        b(x, y) = i16(BoundaryConditions::repeat_edge(in)(x, y));
        Expr sum = i16(0);
        for (int i = -1; i <= 1; i++)
            for (int j = -1; j <= 1; j++) sum = sum + b(x + j, y + i) * i16(m(j + 1, i + 1));
        out(x, y) = u8(clamp(sum >> 4, 0, 255));

        const int vec = natural_vector_size<uint8_t>();
        out.split(y, yo, yi, 64, TailStrategy::GuardWithIf).vectorize(x, vec, TailStrategy::GuardWithIf);
        b.store_at(out, yo).compute_at(out, yi).vectorize(x, vec / 2, TailStrategy::GuardWithIf);
        m.dim(0).set_bounds(0, 3).dim(1).set_bounds(0, 3);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Conv3x3a16, conv3x3a16)
