// gaussian5x5 (BENCHMARKS.md 2): b = repeat_edge(in); [1 4 6 4 1] vertically, then
// horizontally, in wrapping i16; out = u8(c >> 8) (c wraps past 32767, the u8 keeps bits 8..15).
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
