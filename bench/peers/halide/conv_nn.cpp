// conv_nn: header at the end
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

Expr requantize(Expr acc, Expr om, Expr shift, Expr out_zero, Expr omin, Expr omax) {
    Expr p = i64(acc) * i64(om);
    Expr m = i32(clamp((p + (i64(1) << 30)) >> 31, i64(INT32_MIN), i64(INT32_MAX)));
    Expr s = i64(min(shift, u32(33)));
    Expr r = (i64(m) + ((i64(1) << s) >> 1)) >> s;
    Expr t = i32(clamp(r, i64(-32768), i64(32767)));
    Expr o = u8(clamp(t + i32(out_zero), 0, 255));
    return select(o < omin, omin, min(o, omax));
}

class ConvNN : public Generator<ConvNN> {
public:
    GeneratorParam<int> XT{"XT", 2};
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

        const int vec = natural_vector_size<uint8_t>();
        const int v32 = natural_vector_size<int32_t>();
        Var xo("xo"), xi("xi"), coo("coo"), c1("c1"), c0("c0"), c1o("c1o"), c1i("c1i");
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
            .split(co, c1, c0, v32, TailStrategy::RoundUp)
            .split(c1, c1o, c1i, vec / v32, TailStrategy::RoundUp)
            .split(x, xo, xi, XT, TailStrategy::RoundUp)
            .reorder(rl, c0, c1i, xi, rc, rx, ry, c1o, xo, y, b)
            .atomic()
            .vectorize(rl)
            .vectorize(c0)
            .unroll(c1i)
            .unroll(xi);
        inp.store_root().compute_at(out, y).vectorize(ci, natural_vector_size<int16_t>(), TailStrategy::GuardWithIf);
        fp.compute_root().reorder_storage(cil, co, cio, fx, fy).vectorize(co, v32, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(ConvNN, conv_nn)
