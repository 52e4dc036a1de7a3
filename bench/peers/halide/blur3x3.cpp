// blur3x3 (BENCHMARKS.md 9): u16 in and out, no boundary (the case gives a two-pixel
// margin): bx = (in(x) + in(x+1) + in(x+2)) / 3, out = (bx(y) + bx(y+1) + bx(y+2)) / 3, each
// sum wrapping in u16 before the (unsigned, exact) division.
//
// Schedule: TBD
#include "Halide.h"

namespace {
using namespace Halide;

class Blur3x3 : public Generator<Blur3x3> {
public:
    Input<Buffer<uint16_t, 2>> in{"in"};
    Output<Buffer<uint16_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), yo("yo"), yi("yi");
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
