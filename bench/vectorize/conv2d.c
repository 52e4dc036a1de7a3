/* conv2d.c — 2-D "full" convolution, Diospyros's 2DConv benchmark (f32), one function per
 * size: conv2d_IRxIC_FRxFC convolves an IR×IC input with an FR×FC filter into the
 * (IR+FR-1)×(IC+FC-1) output,
 *
 *     out[r][c] = sum over fr, fc with 0 <= r-fr < IR and 0 <= c-fc < IC of in[r-fr][c-fc] * f[fr][fc]
 *
 * summed from 0.0f in the order of the loops (fr, then fc, ascending). The bounds test is
 * the boundary condition Diospyros's kernel has (its "if"), written on the loop indices
 * alone because the subset `tine vectorize` reads has no integer locals.
 *
 * These are plain C in the subset `tine vectorize` accepts, and the "Naive (fixed size)"
 * baseline of `tine bench --vectorize` (the same file at clang-19 -O3 -march=native).
 */

void conv2d_3x3_2x2(const float in[3][3], const float f[2][2], float out[4][4]) {
    for (int r = 0; r < 4; r++) {
        for (int c = 0; c < 4; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 2; fr++) {
                for (int fc = 0; fc < 2; fc++) {
                    if (r - fr >= 0 && r - fr < 3 && c - fc >= 0 && c - fc < 3)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_3x3_3x3(const float in[3][3], const float f[3][3], float out[5][5]) {
    for (int r = 0; r < 5; r++) {
        for (int c = 0; c < 5; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 3; fr++) {
                for (int fc = 0; fc < 3; fc++) {
                    if (r - fr >= 0 && r - fr < 3 && c - fc >= 0 && c - fc < 3)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_3x5_3x3(const float in[3][5], const float f[3][3], float out[5][7]) {
    for (int r = 0; r < 5; r++) {
        for (int c = 0; c < 7; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 3; fr++) {
                for (int fc = 0; fc < 3; fc++) {
                    if (r - fr >= 0 && r - fr < 3 && c - fc >= 0 && c - fc < 5)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_4x4_3x3(const float in[4][4], const float f[3][3], float out[6][6]) {
    for (int r = 0; r < 6; r++) {
        for (int c = 0; c < 6; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 3; fr++) {
                for (int fc = 0; fc < 3; fc++) {
                    if (r - fr >= 0 && r - fr < 4 && c - fc >= 0 && c - fc < 4)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_8x8_3x3(const float in[8][8], const float f[3][3], float out[10][10]) {
    for (int r = 0; r < 10; r++) {
        for (int c = 0; c < 10; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 3; fr++) {
                for (int fc = 0; fc < 3; fc++) {
                    if (r - fr >= 0 && r - fr < 8 && c - fc >= 0 && c - fc < 8)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_10x10_2x2(const float in[10][10], const float f[2][2], float out[11][11]) {
    for (int r = 0; r < 11; r++) {
        for (int c = 0; c < 11; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 2; fr++) {
                for (int fc = 0; fc < 2; fc++) {
                    if (r - fr >= 0 && r - fr < 10 && c - fc >= 0 && c - fc < 10)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_10x10_3x3(const float in[10][10], const float f[3][3], float out[12][12]) {
    for (int r = 0; r < 12; r++) {
        for (int c = 0; c < 12; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 3; fr++) {
                for (int fc = 0; fc < 3; fc++) {
                    if (r - fr >= 0 && r - fr < 10 && c - fc >= 0 && c - fc < 10)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_10x10_4x4(const float in[10][10], const float f[4][4], float out[13][13]) {
    for (int r = 0; r < 13; r++) {
        for (int c = 0; c < 13; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 4; fr++) {
                for (int fc = 0; fc < 4; fc++) {
                    if (r - fr >= 0 && r - fr < 10 && c - fc >= 0 && c - fc < 10)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_16x16_2x2(const float in[16][16], const float f[2][2], float out[17][17]) {
    for (int r = 0; r < 17; r++) {
        for (int c = 0; c < 17; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 2; fr++) {
                for (int fc = 0; fc < 2; fc++) {
                    if (r - fr >= 0 && r - fr < 16 && c - fc >= 0 && c - fc < 16)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_16x16_3x3(const float in[16][16], const float f[3][3], float out[18][18]) {
    for (int r = 0; r < 18; r++) {
        for (int c = 0; c < 18; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 3; fr++) {
                for (int fc = 0; fc < 3; fc++) {
                    if (r - fr >= 0 && r - fr < 16 && c - fc >= 0 && c - fc < 16)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}

void conv2d_16x16_4x4(const float in[16][16], const float f[4][4], float out[19][19]) {
    for (int r = 0; r < 19; r++) {
        for (int c = 0; c < 19; c++) {
            out[r][c] = 0.0f;
            for (int fr = 0; fr < 4; fr++) {
                for (int fc = 0; fc < 4; fc++) {
                    if (r - fr >= 0 && r - fr < 16 && c - fc >= 0 && c - fc < 16)
                        out[r][c] += in[r - fr][c - fc] * f[fr][fc];
                }
            }
        }
    }
}
