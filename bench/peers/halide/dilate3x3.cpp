// dilate3x3 (BENCHMARKS.md 6): the max over the 3x3 neighbourhood of edge(in) (repeat_edge),
// separable: the max of three rows, then the max of three columns, all in u8.
//
// Schedule (single thread, one sliding window down the whole image): the output vectorized
// by the natural u8 width; edge(in) copied one new row per output row into a rolling
// buffer (store_root + compute_at out.y; the clamped edge vectors, which Halide gathers,
// are paid once per row instead of once per use); the horizontal max v likewise one new
// row per output row, so out is three aligned row loads and two maxes. Intermediates use
// TailStrategy::RoundUp (their reads are clamped or from the rolling buffer, so rounding the
// row up is safe and leaves no predicated tail); the output GuardWithIf (any width).
// tried (avx2 medians, 1920x1080): vertical-first v per row, no copy, 64-row strips,
// GuardWithIf everywhere (0.58 ms); horizontal-first sliding v (0.34); + row copy of edge(in)
// (0.27); + RoundUp intermediates (0.235); + no strips (0.17); without the row copy (0.29 vs
// 0.26 same run); 2x vector (0.197 vs 0.170); vertical-first v with the copy (0.190 vs
// 0.170); kept the sliding horizontal-first one: 0.17-0.18 ms avx2, 0.25 ms sse41.
#include "Halide.h"

namespace {
using namespace Halide;

class Dilate3x3 : public Generator<Dilate3x3> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y");
        Func b("b");
        b(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
        Func v("v");
        v(x, y) = max(max(b(x - 1, y), b(x, y)), b(x + 1, y));
        out(x, y) = max(max(v(x, y - 1), v(x, y)), v(x, y + 1));

        const int vec = natural_vector_size<uint8_t>();
        out.vectorize(x, vec, TailStrategy::GuardWithIf);
        b.store_root().compute_at(out, y).vectorize(x, vec, TailStrategy::RoundUp);
        v.store_root().compute_at(out, y).vectorize(x, vec, TailStrategy::RoundUp);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Dilate3x3, dilate3x3)
