// rgb_to_grey (user kernel, colour): grey(x, y) = (77 R + 150 G + 29 B + 128) >> 8 of a
// planar u8 RGB image rgb(x, y, c), in u16.
//
// Schedule (single thread): the output vectorized along x at the natural u8 width.
#include "Halide.h"
#include "user.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class RgbToGrey : public Generator<RgbToGrey> {
public:
    Input<Buffer<uint8_t, 3>> rgb{"rgb"};
    Output<Buffer<uint8_t, 2>> grey{"grey"};

    void generate() {
        Var x("x"), y("y");
        Expr s = u16(77) * u16(rgb(x, y, 0)) + u16(150) * u16(rgb(x, y, 1)) + u16(29) * u16(rgb(x, y, 2));
        grey(x, y) = u8((s + 128) >> 8);
        vectorize_rows(grey, x, natural_vector_size<uint8_t>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RgbToGrey, rgb_to_grey)
