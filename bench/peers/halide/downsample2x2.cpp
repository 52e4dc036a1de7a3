// downsample2x2 (user kernel, video): out(x, y) = (the 2x2 block at (2x, 2y) summed + 2) / 4,
// u8 (a chroma plane from 4:4:4 to 4:2:0).
//
// Schedule (single thread): the output vectorized along x at the natural u8 width; the
// stride-2 loads are dense loads and deinterleaving shuffles.
#include "Halide.h"
#include "user.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class Downsample2x2 : public Generator<Downsample2x2> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y");
        Expr s = u16(in(2 * x, 2 * y)) + u16(in(2 * x + 1, 2 * y)) + u16(in(2 * x, 2 * y + 1)) + u16(in(2 * x + 1, 2 * y + 1));
        out(x, y) = u8((s + 2) >> 2);
        vectorize_rows(out, x, natural_vector_size<uint8_t>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Downsample2x2, downsample2x2)
