// median3x3 (BENCHMARKS.md 7): edge(in) (repeat_edge); per column the max, min and middle
// of three rows; out = mid(min of the maxes, max of the mins, mid of the mids), all in u8,
// mid(a, b, c) = max(min(max(a, b), c), min(a, b)).
//
// Schedule: TBD
#include "Halide.h"

namespace {
using namespace Halide;

Expr mid(Expr a, Expr b, Expr c) { return max(min(max(a, b), c), min(a, b)); }

class Median3x3 : public Generator<Median3x3> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func b("b");
        b(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
        Func hi("hi"), lo("lo"), md("md");
        hi(x, y) = max(max(b(x, y - 1), b(x, y)), b(x, y + 1));
        lo(x, y) = min(min(b(x, y - 1), b(x, y)), b(x, y + 1));
        md(x, y) = mid(b(x, y - 1), b(x, y), b(x, y + 1));
        Expr p = min(min(hi(x - 1, y), hi(x, y)), hi(x + 1, y));
        Expr q = max(max(lo(x - 1, y), lo(x, y)), lo(x + 1, y));
        Expr r = mid(md(x - 1, y), md(x, y), md(x + 1, y));
        out(x, y) = mid(p, q, r);

        const int vec = natural_vector_size<uint8_t>();
        out.split(y, yo, yi, 64, TailStrategy::GuardWithIf).vectorize(x, vec, TailStrategy::GuardWithIf);
        b.store_at(out, yo).compute_at(out, yi).vectorize(x, vec, TailStrategy::GuardWithIf);
        for (Func f : {hi, lo, md}) f.store_at(out, yo).compute_at(out, yi).vectorize(x, vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Median3x3, median3x3)
