// sad8x8 (user kernel, video): sad(x, y) = the sum over the 8x8 block at (8x, 8y) of
// |a - b|, u16.
//
// Written as Halide's apps write a box sum, separably: each row's 8 differences of a block
// summed first (h, 8 stride-8 terms), then 8 rows of h. Schedule (single thread): h
// computed per output row (the 8 rows of h that row reads) and sad, both vectorized along
// x at the natural u16 width; the stride-8 loads are dense loads and shuffles.
// tried (avx2): the 64 terms written out in one expression, vectorized the same way: Halide
// took 107 s to compile it for one target (the 64 strided loads' shuffles); kept the
// separable form.
#include "Halide.h"
#include "user.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;
using namespace tine_peer;

class Sad8x8 : public Generator<Sad8x8> {
public:
    Input<Buffer<uint8_t, 2>> a{"a"};
    Input<Buffer<uint8_t, 2>> b{"b"};
    Output<Buffer<uint16_t, 2>> sad{"sad"};

    void generate() {
        Var x("x"), y("y");
        Func h("h");
        Expr s = u16(0);
        for (int i = 0; i < 8; i++) s += u16(absd(a(8 * x + i, y), b(8 * x + i, y)));
        h(x, y) = s;
        Expr t = u16(0);
        for (int j = 0; j < 8; j++) t += h(x, 8 * y + j);
        sad(x, y) = t;
        const int vec = natural_vector_size<uint16_t>();
        vectorize_rows(sad, x, vec);
        h.compute_at(sad, y).vectorize(x, vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Sad8x8, sad8x8)
