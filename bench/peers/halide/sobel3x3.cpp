// sobel3x3 (BENCHMARKS.md 8): p = u16(edge(in)) (repeat_edge); sx = absd of the [1 2 1] row
// sums above and below, sy = absd of the [1 2 1] column sums left and right (all <= 1020, so
// u16 never wraps); out = u8(min(sx + sy, 255)). sx is computed as |[1 2 1] of the i16
// differences (row above - row below)|: the same value (the sums are exact, so absd of them
// is the absolute value of their difference, <= 1020).
//
// Schedule (single thread, one sliding window down the whole image): the output vectorized
// by the natural u8 width; edge(in) copied one new row per output row into a rolling
// buffer; per output row one Tuple column Func from the three rows (the u16 column sum
// for sy, the i16 row difference for sx), vectorized at the u8 width (two registers of
// u16), RoundUp; out combines it at x-1, x, x+1. Output GuardWithIf.
// tried (avx2 medians, 1920x1080): h (row sums) sliding + v (column sums) per row at the u16
// width, clamped input, 64-row strips, GuardWithIf (1.19 ms); + row copy, u8 width (0.63);
// + RoundUp (0.50); + no strips (0.50-0.52 vs 0.54 same run); h/v at the u16 width (0.514);
// v inlined (0.477 vs 0.475); 2x vector (0.502 vs 0.466); a u16 row copy instead of u8
// (0.78 vs 0.65); the Tuple column instead of h and v (0.407 vs 0.497 same run); the Tuple
// without the row copy (0.478 vs 0.414); kept the Tuple with the copy: 0.41 ms avx2,
// 0.63 ms sse41.
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class Sobel3x3 : public Generator<Sobel3x3> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y");
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
