/* check_main.c — runs one tine dft codelet (linked in as CODELET, element type T) against
 * a long-double O(n^2) DFT: random inputs and impulses, contiguous and strided layouts,
 * batches that are and are not a multiple of the vector's transforms; nothing written
 * outside the outputs. Prints the worst relative RMS error; exits 1 past the bound.
 *   cc -DCODELET=tine_dft_16 -DT=float -DN=16 [-DINVERSE] check_main.c codelet.o -lm */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void CODELET(const T *in, T *out, ptrdiff_t howmany, ptrdiff_t is, ptrdiff_t id, ptrdiff_t os, ptrdiff_t od);

#ifdef INVERSE
#define SIGN 1
#else
#define SIGN (-1)
#endif

static uint64_t rng = 88172645463325252ull;
static double urand(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

/* Relative RMS error of transform t's output against the exact DFT of its input. */
static double rel_rms(const T *in, const T *out, ptrdiff_t is, ptrdiff_t os) {
    long double num = 0, den = 0;
    for (int k = 0; k < N; k++) {
        long double re = 0, im = 0;
        for (int j = 0; j < N; j++) {
            long double a = 2 * 3.14159265358979323846264338327950288L * (long double)((j * k) % N) / N;
            long double c = cosl(a), s = SIGN * sinl(a);
            long double xr = in[2 * j * is], xi = in[2 * j * is + 1];
            re += xr * c - xi * s;
            im += xr * s + xi * c;
        }
        long double dr = re - out[2 * k * os], di = im - out[2 * k * os + 1];
        num += dr * dr + di * di;
        den += re * re + im * im;
    }
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

static int run(ptrdiff_t howmany, ptrdiff_t is, ptrdiff_t id, ptrdiff_t os, ptrdiff_t od, int impulse, double bound,
               double *worst) {
    size_t nin = (size_t)(2 * ((howmany - 1) * id + (N - 1) * is + 1)), nout = (size_t)(2 * ((howmany - 1) * od + (N - 1) * os + 1));
    const size_t pad = 64;
    T *in = malloc(sizeof(T) * (nin + 2 * pad)), *out = malloc(sizeof(T) * (nout + 2 * pad));
    for (size_t i = 0; i < nin + 2 * pad; i++) in[i] = (T)urand();
    for (size_t i = 0; i < nout + 2 * pad; i++) out[i] = (T)12345.0;
    T *ib = in + pad, *ob = out + pad;
    if (impulse)
        for (ptrdiff_t t = 0; t < howmany; t++)
            for (int j = 0; j < N; j++) {
                ib[2 * (t * id + j * is)] = (T)(j == t % N);
                ib[2 * (t * id + j * is) + 1] = 0;
            }
    CODELET(ib, ob, howmany, is, id, os, od);
    int bad = 0;
    for (ptrdiff_t t = 0; t < howmany; t++) {
        double e = rel_rms(ib + 2 * t * id, ob + 2 * t * od, is, os);
        if (!(e <= bound)) {
            if (!bad) fprintf(stderr, "n=%d howmany=%td strides %td %td %td %td: transform %td error %.3g > %.3g\n", N, howmany,
                              is, id, os, od, t, e, bound);
            bad = 1;
        }
        if (e > *worst) *worst = e;
    }
    /* nothing outside the outputs: every element not an output's is untouched */
    char *mark = calloc(nout, 1);
    for (ptrdiff_t t = 0; t < howmany; t++)
        for (int k = 0; k < N; k++) mark[2 * (t * od + k * os)] = mark[2 * (t * od + k * os) + 1] = 1;
    for (size_t i = 0; i < nout + 2 * pad; i++) {
        int inside = i >= pad && i < pad + nout && mark[i - pad];
        if (!inside && out[i] != (T)12345.0) {
            if (!bad) fprintf(stderr, "n=%d howmany=%td: element %zd outside the outputs written\n", N, howmany,
                              (ptrdiff_t)i - (ptrdiff_t)pad);
            bad = 1;
            break;
        }
    }
    free(mark);
    free(in);
    free(out);
    return bad;
}

/* In place (in == out, one layout): every transform against the exact DFT of its input. */
static int run_in_place(ptrdiff_t howmany, ptrdiff_t is, ptrdiff_t id, double bound, double *worst) {
    size_t nbuf = (size_t)(2 * ((howmany - 1) * id + (N - 1) * is + 1));
    T *buf = malloc(sizeof(T) * nbuf), *orig = malloc(sizeof(T) * nbuf);
    for (size_t i = 0; i < nbuf; i++) orig[i] = buf[i] = (T)urand();
    CODELET(buf, buf, howmany, is, id, is, id);
    int bad = 0;
    for (ptrdiff_t t = 0; t < howmany; t++) {
        double e = rel_rms(orig + 2 * t * id, buf + 2 * t * id, is, is);
        if (!(e <= bound)) {
            if (!bad) fprintf(stderr, "n=%d in place, howmany=%td strides %td %td: transform %td error %.3g > %.3g\n", N,
                              howmany, is, id, t, e, bound);
            bad = 1;
        }
        if (e > *worst) *worst = e;
    }
    free(buf);
    free(orig);
    return bad;
}

int main(void) {
    /* the bound: a few ulps times log2 n (docs/DFT.md) */
    double eps = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53, lg = log2((double)N) < 1 ? 1 : log2((double)N);
    double bound = 4 * eps * lg;
    double worst = 0;
    int bad = 0;
    ptrdiff_t counts[] = {1, 3, 8, 17, 33, 100};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        ptrdiff_t h = counts[c];
        bad |= run(h, 1, N, 1, N, 0, bound, &worst);          /* contiguous */
        bad |= run(h, 1, N, 1, N, 1, bound, &worst);          /* impulses */
        bad |= run(h, 3, 3 * N + 1, 2, 2 * N + 1, 0, bound, &worst); /* strided, with gaps */
        bad |= run(h, 1, N, h, 1, 0, bound, &worst);          /* outputs transposed: transforms adjacent */
        bad |= run(h, h, 1, 1, N, 0, bound, &worst);          /* transforms adjacent, elements h apart */
        bad |= run_in_place(h, 1, N, bound, &worst);          /* in place, contiguous */
        bad |= run_in_place(h, 2, 2 * N + 3, bound, &worst);  /* in place, strided */
    }
    printf("n=%d %s: worst relative rms error %.3g (bound %.3g)%s\n", N, sizeof(T) == 4 ? "f32" : "f64", worst, bound,
           bad ? " FAILED" : "");
    return bad;
}
