/* matmul.c — matrix products, Diospyros's MatMul benchmark (f32), one function per size:
 * matmul_MxK_KxN multiplies an M×K matrix by a K×N one,
 *
 *     out[i][j] = a[i][0]*b[0][j] + a[i][1]*b[1][j] + ... + a[i][K-1]*b[K-1][j]
 *
 * summed from 0.0f, k ascending.
 *
 * Plain C in the subset `tine vectorize` accepts; the same file at clang-19 -O3
 * -march=native is the "Naive (fixed size)" baseline of `tine bench --vectorize`.
 */

void matmul_2x2_2x2(const float a[2][2], const float b[2][2], float out[2][2]) {
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            float sum = 0.0f;
            for (int k = 0; k < 2; k++)
                sum += a[i][k] * b[k][j];
            out[i][j] = sum;
        }
    }
}

void matmul_2x3_3x3(const float a[2][3], const float b[3][3], float out[2][3]) {
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 3; j++) {
            float sum = 0.0f;
            for (int k = 0; k < 3; k++)
                sum += a[i][k] * b[k][j];
            out[i][j] = sum;
        }
    }
}

void matmul_3x3_3x3(const float a[3][3], const float b[3][3], float out[3][3]) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            float sum = 0.0f;
            for (int k = 0; k < 3; k++)
                sum += a[i][k] * b[k][j];
            out[i][j] = sum;
        }
    }
}

void matmul_4x4_4x4(const float a[4][4], const float b[4][4], float out[4][4]) {
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++)
                sum += a[i][k] * b[k][j];
            out[i][j] = sum;
        }
    }
}

void matmul_8x8_8x8(const float a[8][8], const float b[8][8], float out[8][8]) {
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            float sum = 0.0f;
            for (int k = 0; k < 8; k++)
                sum += a[i][k] * b[k][j];
            out[i][j] = sum;
        }
    }
}

void matmul_10x10_10x10(const float a[10][10], const float b[10][10], float out[10][10]) {
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            float sum = 0.0f;
            for (int k = 0; k < 10; k++)
                sum += a[i][k] * b[k][j];
            out[i][j] = sum;
        }
    }
}

void matmul_16x16_16x16(const float a[16][16], const float b[16][16], float out[16][16]) {
    for (int i = 0; i < 16; i++) {
        for (int j = 0; j < 16; j++) {
            float sum = 0.0f;
            for (int k = 0; k < 16; k++)
                sum += a[i][k] * b[k][j];
            out[i][j] = sum;
        }
    }
}
