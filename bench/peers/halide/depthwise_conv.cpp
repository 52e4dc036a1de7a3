// depthwise_conv (BENCHMARKS.md 19): hannk's quantized 3x3 depthwise convolution, u8
// (c, x, y, b), VALID (the caller pads). acc = [bias - iz * sum fd] + sum fd * in, wrapping
// i32 (fd = f - fz); out = clamp(u8_sat(sat_add(i16_sat(rshr(m2h(acc, om), osh)), oz)), min, max).
//
// Schedule (apps/hannk's depthwise conv, single thread): the output vectorized over the dense
// channel dimension at the natural u8 width (32 lanes on AVX2, four i32 accumulators each),
// x unrolled by 4 inside each channel vector so the nine filter vectors and the shared input
// columns are loaded and widened once for four outputs; the zeroed filter and the per-channel
// offset computed once at root. Tails (C = 5, 67, 97; odd widths) by GuardWithIf. The
// widening i16 x i16 products become vpmaddwd. The requantization is where the time went:
// Halide 14's rounding_mul_shift_right(i32, i32, 31) narrows i64 with saturation (vpcmpgtq +
// vblendvpd per half, ~4 ops per lane), so sqrdmulh is written out (m2h32 below) with a
// logical i64 shift and a single INT_MIN fix-up, exact (quantized.h).
// Tried (avx2; the machine was shared with other builds, so minima of 10 runs, medians were
// 2-4x noise): c x 32 alone with Halide's rounding_mul_shift_right (2.59 ms median, quiet);
// + x unrolled by 2 (2.39), by 4 (2.37); c x 16, x by 4 (3.11); with m2h32: x by 1 (2.34),
// by 2 (2.20), by 4 (2.00), c x 16, x by 2 (2.52); the taps as u8 x u8 -> u16 products minus
// fz * sum(in) (3.16); the taps paired into one vpmaddwd each (an atomic vectorized pair
// RVar: Halide 14 gathers the pairs with vpinsrb, 7.1); the filter pre-widened to i32
// (vpmulld, 2.4); kept m2h32, c x 32, x by 4 (2.0-2.3 ms median on a quieter machine;
// sse41 2.9-3.1).
#include "Halide.h"
#include "quantized.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class DepthwiseConv : public Generator<DepthwiseConv> {
public:
    Input<Buffer<uint8_t, 4>> in{"in"};
    Input<Buffer<uint8_t, 3>> f{"f"};
    Input<Buffer<int32_t, 1>> bias{"bias"};
    Input<uint8_t> iz{"iz"};
    Input<uint8_t> fz{"fz"};
    Input<int32_t> om{"om"};
    Input<uint32_t> osh{"osh"};
    Input<uint8_t> out_zero{"out_zero"};
    Input<uint8_t> out_min{"out_min"};
    Input<uint8_t> out_max{"out_max"};
    Output<Buffer<uint8_t, 4>> out{"out"};

    void generate() {
        Var c("c"), x("x"), y("y"), b("b"), fx("fx"), fy("fy");

        // the zeroed filter, i16
        Func fd("fd");
        fd(c, fx, fy) = i16(f(c, fx, fy)) - i16(fz);

        // bias minus the input zero point's share, wrapping (u32)
        Func offset("offset");
        RDom r(0, 3, 0, 3);
        offset(c) = u32(bias(c));
        offset(c) -= u32(i32(iz) * i32(fd(c, r.x, r.y)));

        // the nine taps: |sum| <= 9 * 255 * 255, no overflow in i32
        Expr conv = 0;
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++)
                conv += i32(widening_mul(fd(c, i, j), i16(in(c, x + i, y + j, b))));
        Expr acc = reinterpret<int32_t>(offset(c) + u32(conv));
        out(c, x, y, b) = requantize(acc, om, osh, out_zero, out_min, out_max);

        const int vec = natural_vector_size<uint8_t>();
        Var co("co"), ci("ci"), xo("xo"), xi("xi");
        out.split(c, co, ci, vec, TailStrategy::GuardWithIf)
            .split(x, xo, xi, 4, TailStrategy::GuardWithIf)
            .reorder(ci, xi, co, xo, y, b)
            .vectorize(ci)
            .unroll(xi);
        offset.compute_root();
        fd.compute_root();
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(DepthwiseConv, depthwise_conv)
