// fully_connected (BENCHMARKS.md 17): acc(c, b) = bias(c) + sum_k (f(k, c) - fz)(in(k, b) - iz),
// zero points subtracted in i16, products summed in i32 (exact: |acc| < 2^31 for K < 32000),
// then the requantization tail (quantized.h); no boundary.
//
// Schedule: the filter is k-dense, so each output is a dot product of two contiguous rows
// (a GEMV for batch 1, bound by streaming the filter once). The reduction over k is split
// k = rl + 2 rh + 16 ro and rfactored over rh: 8 i32 lanes of partial sums, each lane the
// sum of k pairs (rl vectorized atomically, which Halide lowers to pmaddwd on SSE2/AVX2 and
// vpdpwssd on the AVX-512 row), then one horizontal add per output and a scalar tail for
// K % 16. in - iz is staged as i16 once per batch row; the requantized output is vectorized
// over c at the natural u8 width.
// Tried (avx2, medians of --time with the clock counting this thread's CPU time; the machine
// was shared and wall medians swung 2-3x): this rfactor dot product (0.040 ms); the same
// with 4 channels per pass sharing the input loads (part at the 32-channel tile, 0.068 ms);
// hannk's layout, vectorized over c with the filter repacked in the pipeline as k pairs
// interleaved along c (1.10 ms: the per-call transpose of the 1 MB filter dominates);
// kept the first.
#include "Halide.h"
#include "quantized.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class FullyConnected : public Generator<FullyConnected> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Input<Buffer<uint8_t, 2>> f{"f"};
    Input<Buffer<int32_t, 1>> bias{"bias"};
    Input<int32_t> K{"K"};
    Input<uint8_t> iz{"iz"};
    Input<uint8_t> fz{"fz"};
    Input<int32_t> om{"om"};
    Input<uint32_t> shift{"shift"};
    Input<uint8_t> out_zero{"out_zero"};
    Input<uint8_t> omin{"omin"};
    Input<uint8_t> omax{"omax"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var c("c"), b("b"), v("v");
        Func inp("inp"), fw("fw");
        inp(v, b) = i16(in(v, b)) - i16(iz);
        fw(v, c) = i16(f(v, c)) - i16(fz);

        // k = rl + 2 rh + 16 ro over the multiple of 16 below K, then the tail
        Expr K16 = (K / 16) * 16;
        RDom r(0, 2, 0, 8, 0, K / 16);
        RVar rl = r[0], rh = r[1], ro = r[2];
        Expr k = rl + 2 * rh + 16 * ro;
        Func dot("dot");
        dot(c, b) = 0;
        dot(c, b) += i32(fw(k, c)) * i32(inp(k, b));
        RDom rt(K16, K - K16);
        Func acc("acc");
        acc(c, b) = bias(c) + dot(c, b);
        acc(c, b) += i32(fw(rt, c)) * i32(inp(rt, b));
        out(c, b) = requantize(acc(c, b), om, shift, out_zero, omin, omax);

        const int vec = natural_vector_size<uint8_t>();
        out.vectorize(c, vec, TailStrategy::GuardWithIf);
        inp.compute_at(out, b).vectorize(v, natural_vector_size<int16_t>(), TailStrategy::GuardWithIf);
        acc.compute_at(out, c);
        // 8 lanes of partial sums per output, two products per lane (pmaddwd)
        Func part = dot.update().rfactor(rh, v);
        dot.compute_at(acc, c);
        dot.update().atomic().vectorize(rh);
        part.compute_at(dot, c).vectorize(v);
        part.update().reorder(rl, v, ro).atomic().vectorize(rl).vectorize(v);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(FullyConnected, fully_connected)
