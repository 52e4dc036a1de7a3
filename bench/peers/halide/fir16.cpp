// fir16 (user kernel, audio): out(x) = sat_i16(rounding_shr(sum over k < 16 of in(x + k) *
// taps(k), 15)), i16 samples and Q15 taps, products summed in i32.
//
// Schedule (single thread): the 16 taps written out (the filter's length is constant),
// each tap a scalar broadcast; the output vectorized along x at the natural i16 width.
#include "Halide.h"
#include "user.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class Fir16 : public Generator<Fir16> {
public:
    Input<Buffer<int16_t, 1>> in{"in"};
    Input<Buffer<int16_t, 1>> taps{"taps"};
    Output<Buffer<int16_t, 1>> out{"out"};

    void generate() {
        Var x("x");
        Expr s = 0;
        for (int k = 0; k < 16; k++) s += i32(in(x + k)) * i32(taps(k));
        out(x) = i16_sat(rounding_shr_const(s, 15));
        vectorize_rows(out, x, natural_vector_size<int16_t>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Fir16, fir16)
