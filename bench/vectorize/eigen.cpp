/* eigen.cpp — the Eigen 3.4 peer of `tine bench --vectorize`: each kernel of
 * bench/vectorize/ (*.c) written with Eigen's fixed-size matrices, as a user of Eigen
 * would, over the same arrays (Eigen::Map of row-major fixed-size matrices) and with the
 * same C signature, named eigen_NAME. Diospyros compared against Eigen for MatMul,
 * QProd and QRDecomp; for 2DConv, which Eigen has no function for, this file uses block
 * operations (below).
 *
 * None of these is expected to match the C bit for bit: Eigen sums matrix products in
 * its own order, with FMA where the target has it, and its QR uses other signs. The bench
 * compares them with a tolerance (tests/vectorize/driver.h) and, for QR, checks A = QR
 * and Q^T Q = I instead of comparing Q and R element by element.
 *
 * Built with the flags of the naive C of the same row (clang++-19 -O3 -march=...).
 */
#include <Eigen/Dense>
#include <Eigen/Geometry>

namespace {

template <int R, int C>
using RowMat = Eigen::Matrix<float, R, C, Eigen::RowMajor>;

/* 2-D full convolution: the output zeroed, then for every filter tap the whole input,
 * scaled by the tap, added into the output block it lands on (out.block(fr, fc) of the
 * input's size). Each output element is then summed in the C's order (fr, then fc,
 * ascending, from 0), one vector multiply and add per tap and input row. */
template <int IR, int IC, int FR, int FC>
inline void conv2d(const float *in, const float *f, float *out) {
    Eigen::Map<const RowMat<IR, IC>> I(in);
    Eigen::Map<const RowMat<FR, FC>> F(f);
    Eigen::Map<RowMat<IR + FR - 1, IC + FC - 1>> O(out);
    O.setZero();
    for (int fr = 0; fr < FR; fr++)
        for (int fc = 0; fc < FC; fc++) O.template block<IR, IC>(fr, fc) += F(fr, fc) * I;
}

template <int M, int K, int N>
inline void matmul(const float *a, const float *b, float *out) {
    Eigen::Map<RowMat<M, N>> O(out);
    O.noalias() = Eigen::Map<const RowMat<M, K>>(a) * Eigen::Map<const RowMat<K, N>>(b);
}

/* Eigen's Householder QR (the matrix copied into Eigen's default column-major storage,
 * as a user would), Q formed explicitly with householderQ(), R the upper triangle of
 * matrixQR(). Eigen's Householder vectors have other signs than the C kernel's
 * (bench/vectorize/qr.c), so its Q and R may differ from the C's by the signs of rows of
 * R and columns of Q: the bench checks A = QR for both and times them, and compares
 * nothing else. */
template <int N>
inline void qr(const float *a, float *q, float *r) {
    Eigen::Map<const RowMat<N, N>> A(a);
    Eigen::Map<RowMat<N, N>> Q(q), R(r);
    Eigen::HouseholderQR<Eigen::Matrix<float, N, N>> h(A);
    Q = h.householderQ();
    R = h.matrixQR().template triangularView<Eigen::Upper>();
}

} // namespace

/* The SE(3) product of bench/vectorize/qprod.c with Eigen's quaternions (coefficients
 * x, y, z, w, as the C kernel stores them): r_q = a_q b_q, r_t = a_t + a_q b_t a_q^-1
 * (Eigen's _transformVector: the same uv = 2 q × p formula as the C). */
extern "C" void eigen_qprod(const float a_q[4], const float a_t[3], const float b_q[4], const float b_t[3],
                            float r_q[4], float r_t[3]) {
    Eigen::Map<const Eigen::Quaternionf> qa(a_q), qb(b_q);
    Eigen::Map<const Eigen::Vector3f> ta(a_t), tb(b_t);
    Eigen::Map<Eigen::Quaternionf> rq(r_q);
    Eigen::Map<Eigen::Vector3f> rt(r_t);
    rq = qa * qb;
    rt = ta + qa._transformVector(tb);
}

/* The other C entry points, one per size. The bench builds those it times: all of them,
 * or (--quick, a filter) a file that defines EIGEN_PEER_SELECTED, includes this one and
 * names its kernels with these macros (tests/vectorize/kernels.py eigen-tu). */
#define CONV(IR, IC, FR, FC)                                                                   \
    extern "C" void eigen_conv2d_##IR##x##IC##_##FR##x##FC(                                    \
        const float in[IR][IC], const float f[FR][FC], float out[IR + FR - 1][IC + FC - 1]) { \
        conv2d<IR, IC, FR, FC>(&in[0][0], &f[0][0], &out[0][0]);                              \
    }
#define MATMUL(M, K, N)                                                                        \
    extern "C" void eigen_matmul_##M##x##K##_##K##x##N(const float a[M][K], const float b[K][N], \
                                                       float out[M][N]) {                      \
        matmul<M, K, N>(&a[0][0], &b[0][0], &out[0][0]);                                       \
    }
#define QR(N)                                                                                  \
    extern "C" void eigen_qr_##N##x##N(const float a[N][N], float q[N][N], float r[N][N]) {   \
        qr<N>(&a[0][0], &q[0][0], &r[0][0]);                                                   \
    }

#ifndef EIGEN_PEER_SELECTED
CONV(3, 3, 2, 2)
CONV(3, 3, 3, 3)
CONV(3, 5, 3, 3)
CONV(4, 4, 3, 3)
CONV(8, 8, 3, 3)
CONV(10, 10, 2, 2)
CONV(10, 10, 3, 3)
CONV(10, 10, 4, 4)
CONV(16, 16, 2, 2)
CONV(16, 16, 3, 3)
CONV(16, 16, 4, 4)
MATMUL(2, 2, 2)
MATMUL(2, 3, 3)
MATMUL(3, 3, 3)
MATMUL(4, 4, 4)
MATMUL(8, 8, 8)
MATMUL(10, 10, 10)
MATMUL(16, 16, 16)
QR(3)
QR(4)
#endif
