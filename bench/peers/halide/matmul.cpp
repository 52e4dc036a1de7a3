// matmul (BENCHMARKS.md 20): A(k, y), B(x, k) u8; P = sum_k A * B; M = P + a_off * colsumB +
// b_off * rowsumA + a_off * b_off * K (wrapping i32); out = clamp(u8_sat(rshr(m2h(M + bias,
// om), osh) + ooff), omin, omax). No boundary.
//
// Schedule (apps/linear_algebra / cuda_mat_mul-style blocked matmul on the CPU, single
// thread): A and B widened to i16 and packed once at root in k pairs (B as bp(kk, x, ko), A
// as ap(kk, ko, y)), so the reduction runs two k at a time as vpmaddwd (a VectorReduce of
// factor 2 over the atomic, vectorized pair RVar); the output tiled 16 x 6 (2 i32 vectors x 6
// rows = 12 accumulator registers), the accumulator block computed per tile with a fixed
// extent (bound_extent, RoundUp: the packing clamps rows and columns, so edge tiles compute
// whole and store only inside the output) and the k loop outermost inside the tile, so the
// block stays in registers: per k pair 2 loads of bp, 6 broadcasts of ap, 12 vpmaddwd.
// Row and column sums (for a_off, b_off) at root; requantization per tile with the exact
// sqrdmulh below (m2h32).
// Tried (avx2 medians): u8 x u8 -> u32 per k, 16 x 4 tile, GuardWithIf (2.76 ms); k pairs
// with pmaddwd, GuardWithIf accumulators in memory (1.51); RoundUp tile 16 x 4 (0.62); +
// bound_extent, registers (0.49); tiles 8 x 12 (0.48), 16 x 6 (0.355), 16 x 7 (0.43), 16 x 8
// (0.51), 24 x 4 (0.58), 32 x 3 (0.72); B packed per column panel at the tile column, tiles
// column-major (0.38); with m2h32 instead of rounding_mul_shift_right 16 x 6 (0.334);
// kept 16 x 6, bp at root, m2h32.
#include "Halide.h"
#include "quantized.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class MatMul : public Generator<MatMul> {
public:
    Input<Buffer<uint8_t, 2>> A{"A"};
    Input<Buffer<uint8_t, 2>> B{"B"};
    Input<int32_t> K{"K"};
    Input<int32_t> a_off{"a_off"};
    Input<int32_t> b_off{"b_off"};
    Input<int32_t> bias{"bias"};
    Input<int32_t> om{"om"};
    Input<uint32_t> osh{"osh"};
    Input<int32_t> ooff{"ooff"};
    Input<uint8_t> omin{"omin"};
    Input<uint8_t> omax{"omax"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        Var x("x"), y("y"), xi("xi"), yi("yi"), xo("xo"), yo("yo");
        RDom k(0, K, "k");

        // A and B widened to i16 and packed in pairs of k (the pmaddwd operand layout: lane
        // pairs (k, k + 1) adjacent); an odd K is padded with a zero
        Var kk("kk"), ko("ko");
        Expr K2 = (K + 1) / 2;
        Func ap("ap"), bp("bp");
        // (rows and columns clamped: the accumulator tiles below are computed whole, past
        // the edges of the output, and only stored inside it)
        Expr ya = clamp(y, A.dim(1).min(), A.dim(1).max());
        Expr xb = clamp(x, B.dim(0).min(), B.dim(0).max());
        ap(kk, ko, y) = select(2 * ko + kk < K, i16(A(min(2 * ko + kk, K - 1), ya)), i16(0));
        bp(kk, x, ko) = select(2 * ko + kk < K, i16(B(xb, min(2 * ko + kk, K - 1))), i16(0));

        RDom r(0, 2, 0, K2, "r");
        Func p("p"), rowsum_a("rowsum_a"), colsum_b("colsum_b");
        // i32 (pmaddwd's type): sum of K products <= K * 65025 only leaves i32 past K = 33025,
        // and the vpaddd that accumulates wraps like tine's i32 in any case
        p(x, y) = 0;
        p(x, y) += i32(Internal::widening_mul(ap(r.x, r.y, y), bp(r.x, x, r.y)));
        // the row and column sums in u32: wrapping, as tine's i32
        rowsum_a(y) = u32(0);
        rowsum_a(y) += u32(A(k, y));
        colsum_b(x) = u32(0);
        colsum_b(x) += u32(B(x, k));

        Expr m = u32(p(x, y)) + u32(a_off) * colsum_b(x) + u32(b_off) * rowsum_a(y) + u32(a_off) * u32(b_off) * u32(K);
        Expr v = m2h32(reinterpret<int32_t>(m + u32(bias)), om);
        Expr s = reinterpret<int32_t>(u32(rounding_shr_u(v, osh)) + u32(ooff));
        out(x, y) = clamp(saturating_cast<uint8_t>(s), omin, omax);

        const int vec = natural_vector_size<int32_t>();
        const int TW = 2 * vec, TH = 6;
        out.tile(x, y, xo, yo, xi, yi, TW, TH, TailStrategy::GuardWithIf)
            .vectorize(xi, vec, TailStrategy::GuardWithIf)
            .unroll(yi);
        // the accumulator block: TW x TH i32, whole vectors at constant offsets (registers)
        p.compute_at(out, xo)
            .bound_extent(x, TW)
            .bound_extent(y, TH)
            .vectorize(x, TW, TailStrategy::RoundUp)
            .unroll(y, TH, TailStrategy::RoundUp);
        p.update()
            .reorder(r.x, x, y, r.y)
            .atomic()
            .vectorize(r.x)
            .vectorize(x, TW, TailStrategy::RoundUp)
            .unroll(y, TH, TailStrategy::RoundUp);
        ap.compute_root();
        bp.compute_root().vectorize(x, natural_vector_size<int16_t>(), TailStrategy::GuardWithIf).unroll(kk);
        rowsum_a.compute_root();
        colsum_b.compute_root().vectorize(x, vec, TailStrategy::GuardWithIf);
        colsum_b.update().reorder(x, k).vectorize(x, vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(MatMul, matmul)
