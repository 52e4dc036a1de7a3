// sobel3x3 (BENCHMARKS.md 8): p = u16(edge(in)) (repeat_edge); sx = absd of the [1 2 1] row
// sums above and below, sy = absd of the [1 2 1] column sums left and right (all <= 1020, so
// u16 never wraps); out = u8(min(sx + sy, 255)).
//
// Schedule: TBD
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class Sobel3x3 : public Generator<Sobel3x3> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func b("b");
        b(x, y) = BoundaryConditions::repeat_edge(in)(x, y);
        Func p("p"), h("h"), v("v");
        p(x, y) = u16(b(x, y));
        h(x, y) = p(x - 1, y) + 2 * p(x, y) + p(x + 1, y);  // the row sum sx uses
        v(x, y) = p(x, y - 1) + 2 * p(x, y) + p(x, y + 1);  // the column sum sy uses
        Expr sx = absd(h(x, y - 1), h(x, y + 1));
        Expr sy = absd(v(x - 1, y), v(x + 1, y));
        out(x, y) = u8(min(sx + sy, 255));

        const int vec = natural_vector_size<uint8_t>();
        out.vectorize(x, vec, TailStrategy::GuardWithIf);
        b.store_root().compute_at(out, y).vectorize(x, vec, TailStrategy::RoundUp);
        h.store_root().compute_at(out, y).vectorize(x, vec, TailStrategy::RoundUp);
        v.compute_at(out, y).vectorize(x, vec, TailStrategy::RoundUp);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Sobel3x3, sobel3x3)
