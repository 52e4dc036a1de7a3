// camera_pipe (BENCHMARKS.md 10): Halide's apps/camera_pipe on a GRBG u16 raw image to planar
// u8 RGB, stage for stage as bench/kernels/camera_pipe.tine and bench/ref/camera.c: hot-pixel
// clamp, the split into the four Bayer channels, the demosaic in wrapping i16 (avg rounds
// down in i32), the Q8.8 colour matrix in i32 (/ 256 rounds down), the 1024-entry tone-curve
// LUT, and the blur121 unsharp mask (strength 32/32). No boundary: the case gives the margin.
//
// Schedule (apps/camera_pipe's, single thread): strips of 128 output rows, two rows (one
// Bayer quad row) a step; every stage (denoised, the 4 quad channels, green at red / blue,
// the full-resolution red, green, blue, the curved image) is stored for the strip and
// computed per step as a sliding window over full-width rows, its storage folded to the
// few rows live (fold_storage), vectorized at the i16 width (2x for the full-resolution
// stages, as the app does); the parity selects become interleaves because those stages are
// aligned to the quad (align_bounds 2); the three channels unrolled. The output vectorized
// at the u8 width with the blurs inline. GuardWithIf everywhere so any extent is exact
// (the test shapes give exactly the raw extent read, so no stage may round up or shift).
// The curve lookup is a scalar gather on x86 and is about half the time.
// tried (avx2, 2560x1920; user cycles per run in a standalone harness, the machine shared):
// tiles of 128x32 outputs with every stage per tile, demosaic per curved vector (heap
// allocation per vector: 0.147 Gcycles, test_peers 146 ms); tiles with the demosaic per tile
// (0.147 Gcycles); strips of 32 unfolded (0.093); strips folded: 32 rows (0.078), 128 rows
// (0.071), 512 (0.072), whole image (0.096); denoise fused into the quad split (0.101);
// green or all of red / green / blue inline in curved (0.080, 0.075); curved 16 or 8 lanes
// instead of 32 (0.077, 0.075); the unsharp's vertical pass materialized (0.187);
// strips of 64 / 256 rows (0.076, 0.071); kept strips of 128 folded, 32-lane curved:
// test_peers --time avx2 22.3 / 23.8 ms, sse41 29.5 / 26.3 ms, sse2 35.6 / 38.7 ms.
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class CameraPipe : public Generator<CameraPipe> {
public:
    GeneratorParam<int> strip{"strip", 128};  // output rows per strip

    Input<Buffer<uint16_t, 2>> raw{"raw"};
    Input<Buffer<int16_t, 2>> matrix{"matrix"};
    Input<Buffer<uint8_t, 1>> curve{"curve"};
    Output<Buffer<uint8_t, 3>> out{"out"};

    // i16((i32(a) + i32(b) + 1) / 2), the division rounding down (Halide's and tine's)
    static Expr avg(Expr a, Expr b) { return i16((i32(a) + i32(b) + 1) / 2); }
    static Expr avg8(Expr a, Expr b) { return u8((u16(a) + u16(b) + 1) / 2); }

    void generate() {
        Var x("x"), y("y"), c("c");

        Func s("s"), denoised("denoised"), deint("deint");
        s(x, y) = i16(raw(x + 16, y + 12));
        denoised(x, y) = max(min(s(x, y), max(max(s(x - 2, y), s(x + 2, y)), max(s(x, y - 2), s(x, y + 2)))), i16(0));
        // the four Bayer channels at quad resolution: 0 gr, 1 r, 2 b, 3 gb
        deint(x, y, c) = select(c == 0, denoised(2 * x, 2 * y), c == 1, denoised(2 * x + 1, 2 * y),
                                c == 2, denoised(2 * x, 2 * y + 1), denoised(2 * x + 1, 2 * y + 1));
        auto g_gr = [&](Expr X, Expr Y) { return deint(X, Y, 0); };
        auto r_r = [&](Expr X, Expr Y) { return deint(X, Y, 1); };
        auto b_b = [&](Expr X, Expr Y) { return deint(X, Y, 2); };
        auto g_gb = [&](Expr X, Expr Y) { return deint(X, Y, 3); };

        Func g_r("g_r"), g_b("g_b");
        {
            Expr gv0 = g_gb(x, y - 1), gv1 = g_gb(x, y), gh0 = g_gr(x + 1, y), gh1 = g_gr(x, y);
            g_r(x, y) = select(absd(gh0, gh1) < absd(gv0, gv1), avg(gh0, gh1), avg(gv0, gv1));
        }
        {
            Expr gv0 = g_gr(x, y + 1), gv1 = g_gr(x, y), gh0 = g_gb(x - 1, y), gh1 = g_gb(x, y);
            g_b(x, y) = select(absd(gh0, gh1) < absd(gv0, gv1), avg(gh0, gh1), avg(gv0, gv1));
        }
        Expr r_gr = g_gr(x, y) - avg(g_r(x, y), g_r(x - 1, y)) + avg(r_r(x - 1, y), r_r(x, y));
        Expr b_gr = g_gr(x, y) - avg(g_b(x, y), g_b(x, y - 1)) + avg(b_b(x, y), b_b(x, y - 1));
        Expr r_gb = g_gb(x, y) - avg(g_r(x, y), g_r(x, y + 1)) + avg(r_r(x, y), r_r(x, y + 1));
        Expr b_gb = g_gb(x, y) - avg(g_b(x, y), g_b(x + 1, y)) + avg(b_b(x, y), b_b(x + 1, y));
        Expr rp = g_b(x, y) - avg(g_r(x, y), g_r(x - 1, y + 1)) + avg(r_r(x, y), r_r(x - 1, y + 1));
        Expr rn = g_b(x, y) - avg(g_r(x - 1, y), g_r(x, y + 1)) + avg(r_r(x - 1, y), r_r(x, y + 1));
        Expr r_b = select(absd(r_r(x, y), r_r(x - 1, y + 1)) < absd(r_r(x - 1, y), r_r(x, y + 1)), rp, rn);
        Expr bp = g_r(x, y) - avg(g_b(x, y), g_b(x + 1, y - 1)) + avg(b_b(x, y), b_b(x + 1, y - 1));
        Expr bn = g_r(x, y) - avg(g_b(x + 1, y), g_b(x, y - 1)) + avg(b_b(x + 1, y), b_b(x, y - 1));
        Expr b_r = select(absd(b_b(x, y), b_b(x + 1, y - 1)) < absd(b_b(x + 1, y), b_b(x, y - 1)), bp, bn);

        // quad-resolution values as Funcs so the full-resolution planes can read them at x / 2
        Func q_r_gr("q_r_gr"), q_b_gr("q_b_gr"), q_r_gb("q_r_gb"), q_b_gb("q_b_gb"), q_r_b("q_r_b"), q_b_r("q_b_r");
        q_r_gr(x, y) = r_gr;
        q_b_gr(x, y) = b_gr;
        q_r_gb(x, y) = r_gb;
        q_b_gb(x, y) = b_gb;
        q_r_b(x, y) = r_b;
        q_b_r(x, y) = b_r;

        Func red("red"), green("green"), blue("blue");
        Expr X = x / 2, Y = y / 2;
        Expr ex = x % 2 == 0, ey = y % 2 == 0;
        red(x, y) = select(ey, select(ex, q_r_gr(X, Y), r_r(X, Y)), select(ex, q_r_b(X, Y), q_r_gb(X, Y)));
        green(x, y) = select(ey, select(ex, g_gr(X, Y), g_r(X, Y)), select(ex, g_b(X, Y), g_gb(X, Y)));
        blue(x, y) = select(ey, select(ex, q_b_gr(X, Y), q_b_r(X, Y)), select(ex, b_b(X, Y), q_b_gb(X, Y)));

        Func curved("curved");
        Expr corrected = i16((i32(matrix(3, c)) + i32(matrix(0, c)) * i32(red(x, y)) + i32(matrix(1, c)) * i32(green(x, y)) +
                              i32(matrix(2, c)) * i32(blue(x, y))) /
                             256);
        curved(x, y, c) = curve(i32(clamp(corrected, i16(0), i16(1023))));

        Func blur_y("blur_y");
        blur_y(x, y, c) = avg8(avg8(curved(x, y - 1, c), curved(x, y + 1, c)), curved(x, y, c));
        Expr blur = avg8(avg8(blur_y(x - 1, y, c), blur_y(x + 1, y, c)), blur_y(x, y, c));
        Expr v = i16(curved(x, y, c));
        out(x, y, c) = saturating_cast<uint8_t>(v + ((v - i16(blur)) * 32) / 32);

        // ---- schedule (see the header)
        const int v8 = natural_vector_size<uint8_t>(), v16 = natural_vector_size<int16_t>();
        const TailStrategy G = TailStrategy::GuardWithIf;
        Var yo("yo"), yi("yi"), xi("xi"), xv("xv");
        out.bound(c, 0, 3)
            .split(y, yo, y, strip, G)
            .split(y, y, yi, 2, G)
            .split(x, x, xv, v8, G)
            .reorder(xv, c, x, yi, y, yo)
            .vectorize(xv)
            .unroll(c)
            .unroll(yi);
        // every stage: stored for the strip, computed per output row pair (a sliding
        // window), folded to the few rows live at a time; full-resolution stages aligned to
        // the Bayer quad so the parity selects become interleaves
        curved.compute_at(out, y)
            .store_at(out, yo)
            .fold_storage(y, 8)
            .align_bounds(x, 2)
            .align_bounds(y, 2)
            .split(y, y, yi, 2, G)
            .split(x, x, xi, 2 * v16, G)
            .reorder(xi, c, yi, x, y)
            .vectorize(xi)
            .unroll(c)
            .unroll(yi);
        for (Func f : {red, green, blue}) {
            f.compute_at(out, y)
                .store_at(out, yo)
                .fold_storage(y, 8)
                .align_bounds(x, 2)
                .align_bounds(y, 2)
                .vectorize(x, 2 * v16, G)
                .unroll(y, 2, G);
        }
        for (Func f : {g_r, g_b}) {
            f.compute_at(out, y).store_at(out, yo).fold_storage(y, 4).vectorize(x, v16, G);
        }
        deint.compute_at(out, y)
            .store_at(out, yo)
            .fold_storage(y, 8)
            .bound(c, 0, 4)
            .vectorize(x, v16, G)
            .reorder(c, x, y)
            .unroll(c);
        denoised.compute_at(out, y).store_at(out, yo).fold_storage(y, 16).vectorize(x, v16, G);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(CameraPipe, camera_pipe)
