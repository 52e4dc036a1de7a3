// requant_i8 (user kernel, ML): out = sat_i8(saturating_add(sat_i16(rounding_shr(
// rounding_mul_shr(acc, m, 31), shift)), zero)) of i32 accumulators acc(x, y), with
// quantized.h's exact m2h32 and rounding_shr_u.
//
// Schedule (single thread, hannk's elementwise ops): the output vectorized along x at the
// natural i8 width.
#include "Halide.h"
#include "quantized.h"
#include "user.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class RequantI8 : public Generator<RequantI8> {
public:
    Input<Buffer<int32_t, 2>> acc{"acc"};
    Input<int32_t> m{"m"};
    Input<uint8_t> shift{"shift"};
    Input<int16_t> zero{"zero"};
    Output<Buffer<int8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y");
        Expr t = saturating_cast<int16_t>(rounding_shr_u(m2h32(acc(x, y), m), u32(shift)));
        out(x, y) = saturating_cast<int8_t>(saturating_add(t, zero));
        vectorize_rows(out, x, natural_vector_size<int8_t>());
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(RequantI8, requant_i8)
