// mix_gain (user kernel, audio): out(x) = sat_i16(rounding_shr(l(x) * gl + r(x) * gr, 15)),
// i16 channels and Q15 gains, the sum in i32.
//
// Schedule (single thread): the output vectorized along x at the natural i16 width.
#include "Halide.h"
#include "user.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class MixGain : public Generator<MixGain> {
public:
    Input<Buffer<int16_t, 1>> l{"l"};
    Input<Buffer<int16_t, 1>> r{"r"};
    Input<int16_t> gl{"gl"};
    Input<int16_t> gr{"gr"};
    Output<Buffer<int16_t, 1>> out{"out"};

    void generate() {
        Var x("x");
        out(x) = i16_sat(rounding_shr_const(i32(l(x)) * i32(gl) + i32(r(x)) * i32(gr), 15));
        vectorize_rows(out, x, natural_vector_size<int16_t>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(MixGain, mix_gain)
