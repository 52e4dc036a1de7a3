/* qr.c — Diospyros's QRDecomp benchmark (f32): the QR decomposition of a square matrix
 * by Householder reflections, A = Q R with Q orthogonal and R upper triangular, written
 * as Diospyros's kernel is: for each column k but the last, the reflection
 * H = I - 2 v v^T that maps the column's part x from row k down onto alpha e1, with
 *
 *     alpha = -sgn(x[0]) ||x||,   u = x + alpha e1,   v = u / ||u||,
 *
 * formed as a full matrix (the identity outside rows and columns k..N-1) and multiplied
 * into R and into the product of the previous reflections; Q is that product transposed.
 * sgn(0) is 0 and nothing guards a zero column (its v is 0/0): Diospyros's kernel as it is.
 *
 * Plain C in the subset `tine vectorize` accepts (static helpers, inlined; sqrtf; the sign
 * by a conditional on a float comparison); the same file at clang-19 -O3 -march=native is
 * the "Naive (fixed size)" baseline of `tine bench --vectorize`.
 */
#include <math.h>

static float qr_sgn(float v) {
    return v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : 0.0f);
}

static void qr3_matmul(const float a[3][3], const float b[3][3], float c[3][3]) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            c[i][j] = 0.0f;
            for (int k = 0; k < 3; k++)
                c[i][j] += a[i][k] * b[k][j];
        }
    }
}

void qr_3x3(const float a[3][3], float q[3][3], float r[3][3]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[i][j] = a[i][j];

    for (int k = 0; k < 2; k++) {
        /* x: column k from row k down (x[0 .. 3-k-1]) */
        float x[3];
        for (int i = 0; i < 3 - k; i++)
            x[i] = r[k + i][k];

        float norm_x = 0.0f;
        for (int i = 0; i < 3 - k; i++)
            norm_x += x[i] * x[i];
        float alpha = -qr_sgn(x[0]) * sqrtf(norm_x);

        float u[3];
        for (int i = 0; i < 3 - k; i++)
            u[i] = x[i];
        u[0] = u[0] + alpha;
        float norm_u = 0.0f;
        for (int i = 0; i < 3 - k; i++)
            norm_u += u[i] * u[i];
        norm_u = sqrtf(norm_u);
        float v[3];
        for (int i = 0; i < 3 - k; i++)
            v[i] = u[i] / norm_u;

        /* h = I - 2 v v^T on rows and columns k..2, the identity elsewhere */
        float h[3][3];
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                if (i < k || j < k) {
                    if (i == j)
                        h[i][j] = 1.0f;
                    else
                        h[i][j] = 0.0f;
                } else if (i == j) {
                    h[i][j] = 1.0f - 2.0f * v[i - k] * v[j - k];
                } else {
                    h[i][j] = 0.0f - 2.0f * v[i - k] * v[j - k];
                }
            }
        }

        if (k == 0) {
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    q[i][j] = h[i][j];
            qr3_matmul(h, a, r);
        } else {
            float t[3][3];
            qr3_matmul(h, q, t);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    q[i][j] = t[i][j];
            qr3_matmul(h, r, t);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    r[i][j] = t[i][j];
        }
    }

    /* q holds H_2 ... H_1: Q is its transpose */
    for (int i = 0; i < 3; i++) {
        for (int j = i + 1; j < 3; j++) {
            float tmp = q[i][j];
            q[i][j] = q[j][i];
            q[j][i] = tmp;
        }
    }
}

static void qr4_matmul(const float a[4][4], const float b[4][4], float c[4][4]) {
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            c[i][j] = 0.0f;
            for (int k = 0; k < 4; k++)
                c[i][j] += a[i][k] * b[k][j];
        }
    }
}

void qr_4x4(const float a[4][4], float q[4][4], float r[4][4]) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r[i][j] = a[i][j];

    for (int k = 0; k < 3; k++) {
        /* x: column k from row k down (x[0 .. 4-k-1]) */
        float x[4];
        for (int i = 0; i < 4 - k; i++)
            x[i] = r[k + i][k];

        float norm_x = 0.0f;
        for (int i = 0; i < 4 - k; i++)
            norm_x += x[i] * x[i];
        float alpha = -qr_sgn(x[0]) * sqrtf(norm_x);

        float u[4];
        for (int i = 0; i < 4 - k; i++)
            u[i] = x[i];
        u[0] = u[0] + alpha;
        float norm_u = 0.0f;
        for (int i = 0; i < 4 - k; i++)
            norm_u += u[i] * u[i];
        norm_u = sqrtf(norm_u);
        float v[4];
        for (int i = 0; i < 4 - k; i++)
            v[i] = u[i] / norm_u;

        /* h = I - 2 v v^T on rows and columns k..3, the identity elsewhere */
        float h[4][4];
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                if (i < k || j < k) {
                    if (i == j)
                        h[i][j] = 1.0f;
                    else
                        h[i][j] = 0.0f;
                } else if (i == j) {
                    h[i][j] = 1.0f - 2.0f * v[i - k] * v[j - k];
                } else {
                    h[i][j] = 0.0f - 2.0f * v[i - k] * v[j - k];
                }
            }
        }

        if (k == 0) {
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    q[i][j] = h[i][j];
            qr4_matmul(h, a, r);
        } else {
            float t[4][4];
            qr4_matmul(h, q, t);
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    q[i][j] = t[i][j];
            qr4_matmul(h, r, t);
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                    r[i][j] = t[i][j];
        }
    }

    /* q holds H_3 ... H_1: Q is its transpose */
    for (int i = 0; i < 4; i++) {
        for (int j = i + 1; j < 4; j++) {
            float tmp = q[i][j];
            q[i][j] = q[j][i];
            q[j][i] = tmp;
        }
    }
}
