// conv3x3a32 (BENCHMARKS.md 5): b = repeat_edge(in); constant weights w(dx, dy) = dy + 3 dx + 8;
// products in i16 (exact: at most 255 * 12), widened and summed in i32;
// out = u8(clamp(sum >> 4, 0, 255)).
//
// Schedule (apps/hexagon_benchmarks' conv3x3 shape, single thread): strips of 64 rows; the
// boundary materialized as u8 in a sliding window per strip (store_at the strip, compute_at
// each row, half the natural u8 width), so the taps have no clamps; the output vectorized by
// the natural u8 width. Halide lowers each tap to vpmovzxbd + vpmaddwd against the constant.
// tried (avx2 medians, paired runs): repeat_edge inlined (1.25 ms); output at twice the u8
// width (1.26 ms); at half the u8 width (1.13-1.20 vs 1.07-1.16); rows unrolled by 2
// (1.08-1.11 vs 1.06-1.08); b widened to i16 before storing (1.57-1.62 ms: loses the
// vpmaddwd form); strips of 16 rows (within noise); u8 b at the u8 width (1.07-1.09 ms);
// kept u8 b at half the u8 width, 64-row strips (1.02-1.05 ms).
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class Conv3x3a32 : public Generator<Conv3x3a32> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func b("b");
        b(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
        Expr sum = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) sum = sum + i32(i16(b(x + dx, y + dy)) * i16(dy + 3 * dx + 8));
        out(x, y) = u8(clamp(sum >> 4, 0, 255));

        const int vec = natural_vector_size<uint8_t>();
        out.split(y, yo, yi, 64, TailStrategy::GuardWithIf).vectorize(x, vec, TailStrategy::GuardWithIf);
        b.store_at(out, yo).compute_at(out, yi).vectorize(x, vec / 2, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Conv3x3a32, conv3x3a32)
