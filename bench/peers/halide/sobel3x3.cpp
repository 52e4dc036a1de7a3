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
        // per column, from the same three rows: the [1 2 1] sum (sy's terms) and the
        // difference of the rows above and below (sx = |[1 2 1] of it|, = absd of the sums)
        Func col("col");
        Expr a = u16(b(x, y - 1)), c = u16(b(x, y)), d = u16(b(x, y + 1));
        col(x, y) = Tuple(a + 2 * c + d, i16(a) - i16(d));
        Expr sx = abs(col(x - 1, y)[1] + 2 * col(x, y)[1] + col(x + 1, y)[1]);
        Expr sy = absd(col(x - 1, y)[0], col(x + 1, y)[0]);
        out(x, y) = u8(min(sx + sy, 255));

        const int vec = natural_vector_size<uint8_t>();
        out.vectorize(x, vec, TailStrategy::GuardWithIf);
        b.store_root().compute_at(out, y).vectorize(x, vec, TailStrategy::RoundUp);
        col.compute_at(out, y).vectorize(x, vec, TailStrategy::RoundUp);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Sobel3x3, sobel3x3)
