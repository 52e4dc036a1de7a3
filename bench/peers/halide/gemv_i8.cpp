// gemv_i8 (user kernel, ML): out(n) = sum over k < K of w(k, n) * in(k), i8 weights and
// activations, summed in i32 (|sum| < 2^31 for K < 2^17).
//
// Schedule (single thread), fully_connected's: each output is a dot product of two
// k-dense rows. The reduction over k is split k = rl + 2 rh + 16 ro and rfactored over rh:
// 8 i32 lanes of partial sums, each the sum of k pairs (rl vectorized atomically: pmaddwd
// on SSE2/AVX2, vpdpwssd on the AVX-512 row; i8 x i8 has no byte dot product on x86), one
// horizontal add per output, a scalar tail for K % 16. The activations are widened to i16
// once, the outputs vectorized at the natural i32 width.
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class GemvI8 : public Generator<GemvI8> {
public:
    Input<Buffer<int8_t, 2>> w{"w"};
    Input<Buffer<int8_t, 1>> in{"in"};
    Input<int32_t> K{"K"};
    Output<Buffer<int32_t, 1>> out{"out"};

    void generate() {
        Var n("n"), v("v");
        Func inp("inp"), wt("wt");
        inp(v) = i16(in(v));
        wt(v, n) = i16(w(v, n));

        Expr K16 = (K / 16) * 16;
        RDom r(0, 2, 0, 8, 0, K / 16);
        RVar rl = r[0], rh = r[1], ro = r[2];
        Expr k = rl + 2 * rh + 16 * ro;
        Func dot("dot");
        dot(n) = 0;
        dot(n) += i32(wt(k, n)) * i32(inp(k));
        RDom rt(K16, K - K16);
        Func acc("acc");
        acc(n) = dot(n);
        acc(n) += i32(wt(rt, n)) * i32(inp(rt));
        out(n) = acc(n);

        out.vectorize(n, natural_vector_size<int32_t>(), TailStrategy::GuardWithIf);
        inp.compute_root().vectorize(v, natural_vector_size<int16_t>(), TailStrategy::GuardWithIf);
        acc.compute_at(out, n);
        Func part = dot.update().rfactor(rh, v);
        dot.compute_at(acc, n);
        dot.update().atomic().vectorize(rh);
        part.compute_at(dot, n).vectorize(v);
        part.update().reorder(rl, v, ro).atomic().vectorize(rl).vectorize(v);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(GemvI8, gemv_i8)
