// conv3x3a16 (BENCHMARKS.md 4): b = repeat_edge(in); an i8 3x3 mask m; products and sum in
// wrapping i16; out = u8(clamp(sum >> 4, 0, 255)).
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
