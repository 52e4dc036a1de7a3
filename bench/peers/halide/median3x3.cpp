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
        // per column: (max, min, middle) of the three rows, one Func so the loads are shared
        Func col("col");
        Expr a = b(x, y - 1), c = b(x, y), d = b(x, y + 1);
        col(x, y) = Tuple(max(max(a, c), d), min(min(a, c), d), mid(a, c, d));
        Expr p = min(min(col(x - 1, y)[0], col(x, y)[0]), col(x + 1, y)[0]);
        Expr q = max(max(col(x - 1, y)[1], col(x, y)[1]), col(x + 1, y)[1]);
        Expr r = mid(col(x - 1, y)[2], col(x, y)[2], col(x + 1, y)[2]);
        out(x, y) = mid(p, q, r);

        const int vec = natural_vector_size<uint8_t>();
        out.vectorize(x, vec, TailStrategy::GuardWithIf);
        b.store_root().compute_at(out, y).vectorize(x, vec, TailStrategy::RoundUp);
        col.compute_at(out, y).vectorize(x, vec, TailStrategy::RoundUp);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Median3x3, median3x3)
