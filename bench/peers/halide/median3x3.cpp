// median3x3 (BENCHMARKS.md 7): edge(in) (repeat_edge); per column the max, min and middle
// of three rows; out = mid(min of the maxes, max of the mins, mid of the mids), all in u8,
// mid(a, b, c) = max(min(max(a, b), c), min(a, b)).
//
// Schedule (single thread, one sliding window down the whole image): the output vectorized
// by the natural u8 width; edge(in) copied one new row per output row into a rolling
// buffer (store_root + compute_at out.y: the gathered edge vectors once per row); the
// column (max, min, mid) as one Tuple Func per output row, so the three rows are loaded
// once for all three; out then reads it at x-1, x, x+1. Intermediates RoundUp (no
// predicated tail, reads are clamped or buffered), the output GuardWithIf.
// tried (avx2 medians, 1920x1080): hi/lo/md as three Funcs reading the clamped input, 64-row
// strips, GuardWithIf everywhere (1.83 ms); + row copy (0.70); Tuple column (0.68); +
// RoundUp (0.46); + no strips (0.41-0.44 vs 0.44-0.45 same run); no row copy (0.46 vs 0.42);
// 2x vector (0.47 vs 0.37); three Funcs instead of the Tuple (0.49 vs 0.50, sse41 0.76 vs
// 0.70); kept the Tuple one: 0.41 ms avx2, 0.62 ms sse41.
#include "Halide.h"

namespace {
using namespace Halide;

Expr mid(Expr a, Expr b, Expr c) { return max(min(max(a, b), c), min(a, b)); }

class Median3x3 : public Generator<Median3x3> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y");
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
