// conv_nn (BENCHMARKS.md 18): acc(co, x, y, b) = bias(co) + sum over ci < C and a 3x3 filter
// of (f(co, ci, fx, fy) - fz)(in(ci, x sx + fx dx, y sy + fy dy, b) - iz), zero points
// subtracted in i16, sum in i32 (no overflow at these sizes), the requantization tail of quantized.h.
//
// Schedule (hannk's conv on x86 without VNNI): channel pairs so each product pair is one
// pmaddwd lane: the filter repacked once (tiny) as fp(ci & 1, co, ci / 2, fx, fy) in i16
// with fz subtracted and zero past C; in - iz staged in i16 per input row (store_root +
// compute_at the output row: a sliding window, each row converted once), zero past C. The
// accumulators are a fixed 32-channel x 2-pixel tile (bound_extent + store_in(Register):
// 8 ymm, unrolled), the reduction (channel pairs innermost, then the taps) runs over it with
// the pair vectorized atomically (pmaddwd of 16 filter i16 by a broadcast input pair;
// vpdpwssd on the AVX-512 row), then the tail is applied to the tile vectorized over co.
// Full tiles are specialized (ShiftInwards); otherwise guarded, with the accumulator tile
// computed whole on clamped reads.
// Tried (avx2, medians of --time with the clock counting this thread's CPU time; the machine
// was shared and wall medians swung 2-3x): accumulators in a stack buffer updated in memory
// (4.46 ms); 32 x 3 tile in registers (3.66 ms, spills); 32 x 2 tile (2.95 ms); + input
// staged per row instead of compute_root (2.82 ms); taps innermost instead of channel
// pairs (3.02 ms); kept 32 x 2 with the per-row input (2.8-3.1 ms over repeated runs).
#include "Halide.h"
#include "quantized.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class ConvNN : public Generator<ConvNN> {
public:
    Input<Buffer<uint8_t, 4>> in{"in"};
    Input<Buffer<uint8_t, 4>> f{"f"};
    Input<Buffer<int32_t, 1>> bias{"bias"};
    Input<int32_t> C{"C"};
    Input<int32_t> sx{"sx"};
    Input<int32_t> sy{"sy"};
    Input<int32_t> dx{"dx"};
    Input<int32_t> dy{"dy"};
    Input<uint8_t> iz{"iz"};
    Input<uint8_t> fz{"fz"};
    Input<int32_t> om{"om"};
    Input<uint32_t> shift{"shift"};
    Input<uint8_t> out_zero{"out_zero"};
    Input<uint8_t> omin{"omin"};
    Input<uint8_t> omax{"omax"};
    Output<Buffer<uint8_t, 4>> out{"out"};

    void generate() {
        Var co("co"), ci("ci"), x("x"), y("y"), b("b"), cil("cil"), cio("cio"), fx("fx"), fy("fy");
        // the input with its zero point subtracted, i16, zero beyond channel C (the channel
        // pairs of the last one), coordinates clamped (the accumulator tiles round up)
        Func inp("inp");
        Expr cc = clamp(ci, 0, C - 1);
        Expr xc = clamp(x, in.dim(1).min(), in.dim(1).max());
        Expr yc = clamp(y, in.dim(2).min(), in.dim(2).max());
        inp(ci, x, y, b) = select(ci < C, i16(in(cc, xc, yc, b)) - i16(iz), i16(0));
        // the filter packed as channel pairs interleaved along the output channel:
        // fp(cil, co, cio, fx, fy) = f(co, 2 cio + cil, fx, fy) - fz (0 beyond C)
        Func fp("fp");
        Expr c2 = 2 * cio + cil;
        Expr coc = clamp(co, f.dim(0).min(), f.dim(0).max());
        fp(cil, co, cio, fx, fy) = select(c2 < C, i16(f(coc, clamp(c2, 0, C - 1), fx, fy)) - i16(fz), i16(0));

        RDom r(0, 2, 0, (C + 1) / 2, 0, 3, 0, 3);
        RVar rl = r[0], rc = r[1], rx = r[2], ry = r[3];
        Func acc("acc");
        acc(co, x, y, b) = bias(clamp(co, bias.dim(0).min(), bias.dim(0).max()));
        acc(co, x, y, b) += i32(fp(rl, co, rc, rx, ry)) * i32(inp(2 * rc + rl, x * sx + rx * dx, y * sy + ry * dy, b));
        out(co, x, y, b) = requantize(acc(co, x, y, b), om, shift, out_zero, omin, omax);

        const int natural = natural_vector_size<uint8_t>();
        const int vec = std::min(natural, 32);  // the channel tile
        const int v32 = natural_vector_size<int32_t>();
        // the pixel tile: accumulators (vec / v32) * XT registers of the 16 (32 on AVX-512)
        const int XT = natural >= 64 ? 6 : 2;
        Var xo("xo"), xi("xi"), coo("coo"), c1("c1"), c0("c0");
        // full tiles of 32 channels x XT pixels when the output has them; guarded otherwise
        Expr Co = out.dim(0).extent(), W = out.dim(1).extent();
        out.specialize(Co >= vec && W >= XT)
            .split(co, coo, co, vec, TailStrategy::ShiftInwards)
            .split(x, xo, xi, XT, TailStrategy::ShiftInwards)
            .reorder(co, xi, coo, xo, y, b)
            .vectorize(co);
        out.split(co, coo, co, vec, TailStrategy::GuardWithIf)
            .split(x, xo, xi, XT, TailStrategy::GuardWithIf)
            .reorder(co, xi, coo, xo, y, b)
            .vectorize(co);
        acc.compute_at(out, coo).bound_extent(co, vec).bound_extent(x, XT).store_in(MemoryType::Register).vectorize(co, v32);
        acc.update()
            .split(co, c1, c0, v32)
            .reorder(rl, c0, c1, x, rc, rx, ry, y, b)
            .atomic()
            .vectorize(rl)
            .vectorize(c0)
            .unroll(c1)
            .unroll(x);
        inp.store_root().compute_at(out, y).vectorize(ci, natural_vector_size<int16_t>(), TailStrategy::GuardWithIf);
        fp.compute_root().reorder_storage(cil, co, cio, fx, fy).vectorize(co, v32, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ConvNN, conv_nn)
