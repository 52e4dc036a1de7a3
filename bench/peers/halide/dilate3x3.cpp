// dilate3x3 (BENCHMARKS.md 6): the max over the 3x3 neighbourhood of edge(in) (repeat_edge),
// separable: the max of three rows, then the max of three columns, all in u8.
//
// Schedule: TBD
#include "Halide.h"

namespace {
using namespace Halide;

class Dilate3x3 : public Generator<Dilate3x3> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), yo("yo"), yi("yi");
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
