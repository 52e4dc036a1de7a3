// conv3x3a32 (BENCHMARKS.md 5): b = repeat_edge(in); constant weights w(dx, dy) = dy + 3 dx + 8;
// products in i16, widened and summed in i32; out = u8(clamp(sum >> 4, 0, 255)).
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
        b.store_at(out, yo).compute_at(out, yi).vectorize(x, vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Conv3x3a32, conv3x3a32)
