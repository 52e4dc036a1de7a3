// blur3x3 (BENCHMARKS.md 9): u16 in and out, no boundary (the case gives a two-pixel
// margin): bx = (in(x) + in(x+1) + in(x+2)) / 3, out = (bx(y) + bx(y+1) + bx(y+2)) / 3, each
// sum wrapping in u16 before the (unsigned, exact) division.
//
// Schedule (single thread, one sliding window down the whole image): out vectorized by
// twice the natural u16 width (two registers per iteration: fewer loop trips and a longer
// independent chain for the mulhi-based /3); bx computed one new row per output row into
// a rolling three-row buffer (store_root + compute_at out.y), so each input row is summed
// once. GuardWithIf for both: bx has no boundary, so RoundUp would read past the two-pixel
// margin on widths that are not a multiple of the vector.
// tried (avx2 medians, 960x1080): tiles 256x32 with bx per tile (apps/blur style, 0.34 ms);
// sliding window in 64-row strips (0.150), 32-row strips (0.154); no strips at 2x vector
// (0.132 vs 0.154 same run); no strips at 1x vector (0.149 vs 0.133); 4x vector (0.135 vs
// 0.144, 0.119 vs 0.120: no gain); kept 2x: 0.12-0.13 ms avx2, 0.18-0.21 ms sse41.
#include "Halide.h"

namespace {
using namespace Halide;

class Blur3x3 : public Generator<Blur3x3> {
public:
    Input<Buffer<uint16_t, 2>> in{"in"};
    Output<Buffer<uint16_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y");
        Func bx("bx");
        bx(x, y) = (in(x, y) + in(x + 1, y) + in(x + 2, y)) / 3;
        out(x, y) = (bx(x, y) + bx(x, y + 1) + bx(x, y + 2)) / 3;

        const int vec = natural_vector_size<uint16_t>();
        out.vectorize(x, 2 * vec, TailStrategy::GuardWithIf);
        bx.store_root().compute_at(out, y).vectorize(x, 2 * vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Blur3x3, blur3x3)
