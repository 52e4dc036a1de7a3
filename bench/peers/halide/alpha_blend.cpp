// alpha_blend (user kernel, colour): out = (a * alpha + b * (255 - alpha) + 127) / 255, u8
// images and alpha plane, in u16 (the division by 255 rounded to nearest).
//
// Schedule (single thread): the output vectorized along x at the natural u8 width; Halide
// lowers the u16 division by the constant 255 to a multiply and shifts.
#include "Halide.h"
#include "user.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class AlphaBlend : public Generator<AlphaBlend> {
public:
    Input<Buffer<uint8_t, 2>> a{"a"};
    Input<Buffer<uint8_t, 2>> b{"b"};
    Input<Buffer<uint8_t, 2>> alpha{"alpha"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y");
        Expr w = u16(alpha(x, y));
        out(x, y) = u8((u16(a(x, y)) * w + u16(b(x, y)) * (u16(255) - w) + 127) / 255);
        vectorize_rows(out, x, natural_vector_size<uint8_t>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(AlphaBlend, alpha_blend)
