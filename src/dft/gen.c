/* gen.c — the DFT generator: the complex DFT of size n built on the simplifying DAG of
 * dag.h by the algorithms genfft (FFTW's generator, fft.ml) picks, then written as tine IR.
 *
 * The algorithm for each n is genfft's, so that the simplified DAG has the operation
 * counts of FFTW's codelets:
 *   - n = 2^k >= 8: conjugate-pair split radix (DIT; a DFT of n/2 and two of n/4 over the
 *     inputs 4i + 1 and 4i - 1, twiddled by w^k and w^-k);
 *   - n = r * s with r, s coprime (r the largest such factor with r^2 <= n): the prime
 *     factor algorithm, no twiddles (6, 10, 12, 14, 15, 20, ...);
 *   - other composites (4, 9, 25, 27, 49): Cooley-Tukey with twiddles over the largest
 *     factor r with r^2 <= n;
 *   - primes 2, 3, 7, 11 (and 23, 47): the direct sum, whose symmetries (x_j + x_{n-j}
 *     under cosines, x_j - x_{n-j} under sines) the simplifier finds by collecting equal
 *     constants;
 *   - 5, 13, 17 and the other primes: Rader's algorithm, a cyclic convolution of size
 *     p - 1 done with DFTs of that size, either directly or through the even and odd parts
 *     of its sequences (genfft's variant for p <= 17); the DFTs of the constant sequence
 *     fold away. Above 17 each prime takes the cheapest of the three (prime_method).
 * Twiddles are computed in long double from the reduced fraction k/n by octant
 * symmetry, so cos(pi/2) is exactly 0 and sin(pi/4) = cos(pi/4) one constant.
 *
 * Writing the DAG as tine IR: a sum becomes adds of its positive terms then subtractions
 * of its negated ones (the simplifier puts them last, and no sum has only negated terms);
 * a product c * x one multiplication by the constant made at the type; a negation left
 * at an output is folded into its operand where that is free (k x as (-k) x, a - b as
 * b - a) and is a NEG only where the operand is needed as it is too.
 */
#include "gen.h"

#include <math.h>

#include "dag.h"

typedef struct {
    dd_node *re, *im;
} cx;

#define PI_L 3.141592653589793238462643383279502884L

static int gcd(int a, int b) {
    while (b) {
        int t = a % b;
        a = b, b = t;
    }
    return a < 0 ? -a : a;
}

/* ---- complex arithmetic ------------------------------------------------------------ */

static cx c_add(dd_dag *d, cx a, cx b) { return (cx){dd_add(d, a.re, b.re), dd_add(d, a.im, b.im)}; }
static cx c_sub(dd_dag *d, cx a, cx b) { return (cx){dd_sub(d, a.re, b.re), dd_sub(d, a.im, b.im)}; }

/* a * b, one of them constant: (ar br - ai bi) + i (ar bi + ai br). */
static cx c_mul(dd_dag *d, cx a, cx b) {
    return (cx){dd_sub(d, dd_mul(d, a.re, b.re), dd_mul(d, a.im, b.im)),
                dd_add(d, dd_mul(d, a.re, b.im), dd_mul(d, a.im, b.re))};
}

static cx c_const(dd_dag *d, long double re, long double im) { return (cx){dd_num(d, re), dd_num(d, im)}; }

/* The sum of n complex terms, each part one n-ary sum. */
static cx c_sum(dd_dag *d, const cx *t, int n) {
    dd_node **p = tine_xmalloc((size_t)(2 * n + 1) * sizeof *p);
    for (int i = 0; i < n; i++) p[i] = t[i].re, p[n + i] = t[i].im;
    cx r = {dd_plus(d, p, n), dd_plus(d, p + n, n)};
    free(p);
    return r;
}

/* cos and sin of 2 pi k / n: the reduced angle folded into [0, pi/4] by octant, so
 * values that symmetry makes equal are computed once the same way and exact values
 * (0, 1, 1/2, sqrt(1/2)) are exact. */
static void unit_root(int n, int k, long double *c, long double *s) {
    k %= n;
    if (k < 0) k += n;
    if (k == 0) {
        *c = 1, *s = 0;
        return;
    }
    int g = gcd(k, n);
    k /= g, n /= g;
    long o = 8L * k / n, r = 8L * k % n; /* the angle is (o + r / n) pi / 4 */
    long num = (o & 1) ? n - r : r, den = n; /* phi = (num / den) pi / 4 in [0, pi/4] */
    long h = gcd((int)num, (int)den);
    if (h > 1) num /= h, den /= h;
    long double cp, sp;
    if (num == 0)
        cp = 1, sp = 0;
    else if (num == den)
        cp = sp = sqrtl(0.5L);
    else if (3 * num == 2 * den) /* pi / 6 */
        cp = sqrtl(3.0L) / 2, sp = 0.5L;
    else {
        long double phi = PI_L / 4 * (long double)num / (long double)den;
        cp = cosl(phi), sp = sinl(phi);
    }
    switch (o) { /* theta = o pi/4 + phi for even o, (o + 1) pi/4 - phi for odd o */
    case 0: *c = cp, *s = sp; break;
    case 1: *c = sp, *s = cp; break;
    case 2: *c = -sp, *s = cp; break;
    case 3: *c = -cp, *s = sp; break;
    case 4: *c = -cp, *s = -sp; break;
    case 5: *c = -sp, *s = -cp; break;
    case 6: *c = sp, *s = -cp; break;
    default: *c = cp, *s = -sp; break;
    }
}

/* exp(2 pi i k / n) */
static cx c_root(dd_dag *d, int n, int k) {
    long double c, s;
    unit_root(n, k, &c, &s);
    return c_const(d, c, s);
}

static cx *c_alloc(int n) { return tine_xmalloc((size_t)n * sizeof(cx)); }

/* ---- the algorithms ---------------------------------------------------------------- */

static void dft(dd_dag *d, int sign, int n, const cx *in, cx *out);

/* genfft's choice of a factor r of n: the largest with r^2 <= n coprime to n / r, else the
 * largest with r^2 <= n; 1 for a prime. */
static int choose_factor(int n) {
    int f = 1;
    for (int i = 2; i * i <= n; i++)
        if (n % i == 0 && gcd(i, n / i) == 1) f = i;
    if (f > 1) return f;
    for (int i = 2; i * i <= n; i++)
        if (n % i == 0) f = i;
    return f;
}

/* The direct sum of a prime: y_k = sum_j w^{jk} x_j, for odd n as real part (cosines) plus
 * imaginary part (i sines) so that y_k and y_{n-k} share both. */
static void dft_prime(dd_dag *d, int sign, int n, const cx *in, cx *out) {
    cx *t = c_alloc(n);
    if (n == 2) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) t[j] = c_mul(d, c_root(d, n, sign * i * j), in[j]);
            out[i] = c_sum(d, t, n);
        }
        free(t);
        return;
    }
    t[0] = in[0];
    for (int j = 1; j < (n + 1) / 2; j++) t[j] = c_add(d, in[j], in[n - j]);
    out[0] = c_sum(d, t, (n + 1) / 2);
    cx *sr = c_alloc(n), *si = c_alloc(n);
    for (int i = 1; i <= n / 2; i++) {
        for (int j = 0; j < n; j++) {
            long double c, s;
            unit_root(n, sign * i * j, &c, &s);
            t[j] = c_mul(d, c_const(d, c, 0), in[j]);
        }
        sr[i] = c_sum(d, t, n);
        for (int j = 0; j < n; j++) {
            long double c, s;
            unit_root(n, sign * i * j, &c, &s);
            t[j] = c_mul(d, c_const(d, 0, s), in[j]);
        }
        si[i] = c_sum(d, t, n);
    }
    for (int i = 1; i < n; i++) out[i] = i < n - i ? c_add(d, sr[i], si[i]) : c_sub(d, sr[n - i], si[n - i]);
    free(t), free(sr), free(si);
}

static int pow_mod(int x, int e, int p) {
    int r = 1;
    for (int i = 0; i < e; i++) r = r * x % p;
    return r;
}

/* The smallest generator of the multiplicative group mod p. */
static int find_generator(int p) {
    for (int g = 2;; g++) {
        int x = g, period = 1;
        while (x != 1) x = x * g % p, period++;
        if (period == p - 1) return g;
    }
}

/* a[i] * (b[i] / n) for every i: the pointwise product of a convolution by DFTs. */
static void product(dd_dag *d, int n, const cx *a, const cx *b, cx *out) {
    for (int i = 0; i < n; i++) out[i] = c_mul(d, a[i], c_mul(d, c_const(d, 1.0L / n, 0), b[i]));
}

/* The cyclic convolution of a and b (b constant), plus dc at every point: *sum gets the
 * sum of a. By DFTs of size n: conv = DFT^-1(DFT(a) DFT(b) / n), dc added to its 0th
 * frequency. */
static void convolve(dd_dag *d, int n, const cx *a, const cx *b, cx dc, cx *sum, cx *conv) {
    cx *fa = c_alloc(n), *fb = c_alloc(n), *ab = c_alloc(n);
    dft(d, 1, n, a, fa);
    dft(d, 1, n, b, fb);
    product(d, n, fa, fb, ab);
    ab[0] = c_add(d, ab[0], dc);
    *sum = fa[0];
    dft(d, -1, n, ab, conv);
    free(fa), free(fb), free(ab);
}

/* The same through the even and odd parts of a and b (genfft's variant for small p): the
 * DFT of an even or odd sequence has half the distinct values, and the products of the
 * even and odd parts of the constant b fold into fewer multiplications. */
static void convolve_parts(dd_dag *d, int n, const cx *a, const cx *b, cx dc, cx *sum, cx *conv) {
    cx *part[4], *f[4];
    for (int k = 0; k < 4; k++) part[k] = c_alloc(n), f[k] = c_alloc(n);
    cx half = c_const(d, 0.5L, 0);
    for (int i = 0; i < n; i++) { /* a+, a-, b+, b- */
        int m = (n - i) % n;
        part[0][i] = c_mul(d, half, c_add(d, a[i], a[m]));
        part[1][i] = c_mul(d, half, c_sub(d, a[i], a[m]));
        part[2][i] = c_mul(d, half, c_add(d, b[i], b[m]));
        part[3][i] = c_mul(d, half, c_sub(d, b[i], b[m]));
    }
    for (int k = 0; k < 4; k++) dft(d, 1, n, part[k], f[k]);
    cx *pp = part[0], *pm = part[1], *mp = part[2], *mm = part[3]; /* reused for products */
    product(d, n, f[0], f[2], pp);
    product(d, n, f[0], f[3], pm);
    product(d, n, f[1], f[2], mp);
    product(d, n, f[1], f[3], mm);
    *sum = c_add(d, f[0][0], f[1][0]);
    for (int i = 0; i < n; i++) {
        f[2][i] = c_add(d, pp[i], mm[i]);
        if (i == 0) f[2][i] = c_add(d, f[2][i], dc);
        f[3][i] = c_add(d, pm[i], mp[i]);
    }
    dft(d, -1, n, f[2], f[0]);
    dft(d, -1, n, f[3], f[1]);
    for (int i = 0; i < n; i++) conv[i] = c_add(d, f[0][i], f[1][i]);
    for (int k = 0; k < 4; k++) free(part[k]), free(f[k]);
}

/* How a prime's DFT is made: genfft's choice up to 17 (the direct sum below 13, Rader's
 * algorithm for 5 and from 13, through the even and odd parts up to 17); above, where
 * FFTW has no codelet, the one of the three whose simplified DAG has the fewest
 * operations (adds + muls; a tie goes to fewer muls), as measured for a DFT of that
 * size alone (direct / Rader / Rader by parts):
 *   19: 720 / 656 / 744     23: 1056 / 1176 / 1100   29: 1680 / 1156 / 1060
 *   31: 1920 / 1144 / 1168  37: 2736 / 1460 / 1584   41: 3360 / 1500 / 1496
 *   43: 3696 / 2016 / 1844  47: 4416 / 5160 / 4692   53: 5616 / 2676 / 2676
 *   59: 6960 / 5200 / 4612  61: 7440 / 2532 / 2500
 * Rader's convolution of size p - 1 costs what that DFT costs, so a prime with a large
 * prime factor in p - 1 (23 = 2 * 11 + 1, 47 = 2 * 23 + 1) is cheaper summed directly. */
enum { PRIME_DIRECT, PRIME_RADER, PRIME_RADER_PARTS };
static int prime_method(int p) {
    switch (p) {
    case 5: case 13: case 17: case 29: case 41: case 43: case 59: case 61: return PRIME_RADER_PARTS;
    case 19: case 31: case 37: case 53: return PRIME_RADER;
    default: return PRIME_DIRECT; /* 2, 3, 7, 11, 23, 47 */
    }
}

/* Rader: for a prime p with generator g, y_{g^-i} - x_0 is the cyclic convolution of
 * x_{g^i} with w^{g^-i} (i < p - 1), and y_0 = x_0 + sum of the other x. */
static void dft_rader(dd_dag *d, int sign, int p, bool parts, const cx *in, cx *out) {
    int g = find_generator(p), ginv = pow_mod(g, p - 2, p), n = p - 1;
    cx *a = c_alloc(n), *b = c_alloc(n), *conv = c_alloc(n), sum;
    for (int i = 0; i < n; i++) {
        a[i] = in[pow_mod(g, i, p)];
        b[i] = c_root(d, p, sign * pow_mod(ginv, i, p));
    }
    if (parts)
        convolve_parts(d, n, a, b, in[0], &sum, conv);
    else
        convolve(d, n, a, b, in[0], &sum, conv);
    out[0] = c_add(d, in[0], sum);
    for (int i = 0; i < n; i++) out[pow_mod(ginv, i, p)] = conv[i];
    free(a), free(b), free(conv);
}

/* Split radix, conjugate pair: y_k = U_{k mod n/2} + w^k Z_{k mod n/4} + w^-k Z'_{k mod n/4}
 * with U the DFT of the even inputs, Z of x_{4i+1} and Z' of x_{4i-1}. */
static void dft_split_radix(dd_dag *d, int sign, int n, const cx *in, cx *out) {
    int h = n / 2, q = n / 4;
    cx *e = c_alloc(h), *z = c_alloc(q), *z2 = c_alloc(q), *u = c_alloc(h), *fz = c_alloc(q), *fz2 = c_alloc(q);
    for (int i = 0; i < h; i++) e[i] = in[2 * i];
    for (int i = 0; i < q; i++) z[i] = in[4 * i + 1], z2[i] = in[(n + 4 * i - 1) % n];
    dft(d, sign, h, e, u);
    dft(d, sign, q, z, fz);
    dft(d, sign, q, z2, fz2);
    for (int k = 0; k < n; k++) {
        cx g = c_add(d, c_mul(d, c_root(d, n, sign * k), fz[k % q]), c_mul(d, c_root(d, n, -sign * k), fz2[k % q]));
        out[k] = c_add(d, u[k % h], g);
    }
    free(e), free(z), free(z2), free(u), free(fz), free(fz2);
}

/* n = n1 n2. Cooley-Tukey: DFTs of size n1 over the stride-n2 inputs, twiddles
 * w_n^{i1 i2}, DFTs of size n2. With n1, n2 coprime, the prime factor algorithm: the
 * inputs indexed (i1 n2 + i2 n1) mod n and outputs by the Chinese remainder theorem need
 * no twiddles. */
static void dft_two_factors(dd_dag *d, int sign, int n1, int n2, bool pfa, const cx *in, cx *out) {
    int n = n1 * n2;
    cx *t1 = c_alloc(n), *t2 = c_alloc(n), *col = c_alloc(n1 > n2 ? n1 : n2);
    for (int i2 = 0; i2 < n2; i2++) { /* t1[i2 n1 + k1]: size-n1 DFT number i2 */
        for (int i1 = 0; i1 < n1; i1++) col[i1] = in[pfa ? (i1 * n2 + i2 * n1) % n : i1 * n2 + i2];
        dft(d, sign, n1, col, t1 + i2 * n1);
    }
    for (int k1 = 0; k1 < n1; k1++) { /* t2[k1 n2 + k2] */
        for (int i2 = 0; i2 < n2; i2++) {
            col[i2] = t1[i2 * n1 + k1];
            if (!pfa) col[i2] = c_mul(d, c_root(d, n, sign * k1 * i2), col[i2]);
        }
        dft(d, sign, n2, col, t2 + k1 * n2);
    }
    for (int k = 0; k < n; k++) out[k] = pfa ? t2[(k % n1) * n2 + k % n2] : t2[(k % n1) * n2 + k / n1];
    free(t1), free(t2), free(col);
}

static void dft(dd_dag *d, int sign, int n, const cx *in, cx *out) {
    if (n == 1) {
        out[0] = in[0];
        return;
    }
    int r = choose_factor(n);
    if (r == 1 && prime_method(n) == PRIME_DIRECT)
        dft_prime(d, sign, n, in, out);
    else if (r == 1)
        dft_rader(d, sign, n, prime_method(n) == PRIME_RADER_PARTS, in, out);
    else if (gcd(r, n / r) == 1)
        dft_two_factors(d, sign, r, n / r, true, in, out);
    else if (n % 4 == 0 && n > 4)
        dft_split_radix(d, sign, n, in, out);
    else
        dft_two_factors(d, sign, r, n / r, false, in, out);
}

/* ---- tine IR -------------------------------------------------------------------------- */

typedef struct {
    tine_ctx_t *ctx;
    tine_type_t t;
    dd_dag *d;
    tine_expr_t *const *in;
    tine_expr_t **val; /* by node id: the node's value, where it is needed as it is */
    bool *need;
} emitter;

/* A constant at type t, rounded once from long double. */
static tine_expr_t *konst(const emitter *e, long double c) {
    double v = e->t.bits == 32 ? (double)(float)c : (double)c;
    return tine_const_float(e->ctx, e->t, v);
}

/* Marks x and what it reads as needed (a negated term of a sum needs its operand). */
static void mark(emitter *e, dd_node *x) {
    dd_node **stack = NULL;
    size_t n = 0, cap = 0;
    TINE_PUSH(stack, n, cap, x);
    while (n) {
        dd_node *y = stack[--n];
        if (y->kind == DD_NEG) y = y->op[0];
        if (e->need[y->id]) continue;
        e->need[y->id] = true;
        for (int i = 0; i < y->n; i++) TINE_PUSH(stack, n, cap, y->op[i]);
    }
    free(stack);
}

/* The negation of x can be written without a NEG: -(k y) = (-k) y, -(a - b) = b - a. */
static bool flips(const dd_node *x) {
    if (x->kind == DD_NUM || x->kind == DD_TIMES) return true;
    if (x->kind != DD_PLUS) return false;
    for (int i = 0; i < x->n; i++)
        if (x->op[i]->kind == DD_NEG) return true;
    return false;
}

/* The sum of x's terms, or of their negations: positive terms added, then the others
 * subtracted. */
static tine_expr_t *emit_sum(emitter *e, const dd_node *x, bool negate) {
    tine_expr_t *acc = NULL;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < x->n; i++) {
            dd_node *t = x->op[i];
            bool neg = (t->kind == DD_NEG) != negate;
            if (neg != (pass == 1)) continue;
            tine_expr_t *v = e->val[t->kind == DD_NEG ? t->op[0]->id : t->id];
            if (!acc) {
                TINE_ASSERT(!neg); /* a sum has a positive term, and the first is one */
                acc = v;
            } else
                acc = tine_binary(e->ctx, neg ? TINE_OP_SUB : TINE_OP_ADD, acc, v);
        }
    return acc;
}

static tine_expr_t *emit_node(emitter *e, const dd_node *x) {
    switch (x->kind) {
    case DD_LOAD: return e->in[x->leaf];
    case DD_NUM: return konst(e, x->c);
    case DD_TIMES: return tine_binary(e->ctx, TINE_OP_MUL, konst(e, x->k->c), e->val[x->op[0]->id]);
    case DD_PLUS: return emit_sum(e, x, false);
    default: TINE_ASSERT(!"a negation is needed only through its operand"); return NULL;
    }
}

/* An output: the node's value, or for a negation its operand's folded or negated. */
static tine_expr_t *emit_output(emitter *e, const dd_node *r) {
    if (r->kind != DD_NEG) return e->val[r->id];
    const dd_node *x = r->op[0];
    if (e->need[x->id]) return tine_unary(e->ctx, TINE_OP_NEG, e->val[x->id]);
    if (x->kind == DD_NUM) return konst(e, -x->c);
    if (x->kind == DD_TIMES) return tine_binary(e->ctx, TINE_OP_MUL, konst(e, -x->k->c), e->val[x->op[0]->id]);
    return emit_sum(e, x, true);
}

static void emit(tine_ctx_t *ctx, tine_type_t t, dd_dag *d, tine_expr_t *const *in, dd_node *const *roots,
                 int nroots, tine_expr_t **out) {
    int count = dd_count(d);
    emitter e = {ctx, t, d, in, tine_xcalloc((size_t)count, sizeof(tine_expr_t *)),
                 tine_xcalloc((size_t)count, sizeof(bool))};
    /* outputs as they are, and negated ones that cannot fold, first: what they need is
     * needed; then the operands of the foldable ones */
    for (int i = 0; i < nroots; i++)
        if (roots[i]->kind != DD_NEG || !flips(roots[i]->op[0])) mark(&e, roots[i]->kind == DD_NEG ? roots[i]->op[0] : roots[i]);
    for (int i = 0; i < nroots; i++)
        if (roots[i]->kind == DD_NEG && flips(roots[i]->op[0]))
            for (int j = 0; j < roots[i]->op[0]->n; j++) mark(&e, roots[i]->op[0]->op[j]);
    for (int id = 0; id < count; id++) /* ids order operands first */
        if (e.need[id]) TINE_ASSERT((e.val[id] = emit_node(&e, dd_at(d, id))) != NULL);
    for (int i = 0; i < nroots; i++) TINE_ASSERT((out[i] = emit_output(&e, roots[i])) != NULL);
    free(e.val), free(e.need);
}

/* ---- counting ------------------------------------------------------------------------ */

typedef struct {
    const tine_expr_t **v;
    size_t cap, n;
} ptr_set;

/* The product's high bits: nodes sit at regular strides in the arena. */
static size_t ptr_hash(const void *p, size_t cap) {
    return (size_t)(((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* Adds p; false if it was there. */
static bool set_add(ptr_set *s, const tine_expr_t *p) {
    if (2 * (s->n + 1) > s->cap) {
        ptr_set b = {tine_xcalloc(s->cap ? 2 * s->cap : 256, sizeof *b.v), s->cap ? 2 * s->cap : 256, 0};
        for (size_t i = 0; i < s->cap; i++)
            if (s->v[i]) set_add(&b, s->v[i]);
        free(s->v);
        *s = b;
    }
    size_t h = ptr_hash(p, s->cap);
    while (s->v[h]) {
        if (s->v[h] == p) return false;
        h = (h + 1) & (s->cap - 1);
    }
    s->v[h] = p, s->n++;
    return true;
}

/* The operations between the inputs and the outputs, each node once. */
static tine_dft_counts count_ops(tine_expr_t *const *in, int nin, tine_expr_t *const *out, int nout) {
    tine_dft_counts c = {0, 0, 0, 0};
    ptr_set seen = {0};
    for (int i = 0; i < nin; i++) set_add(&seen, in[i]);
    tine_expr_t **stack = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < nout; i++) TINE_PUSH(stack, n, cap, out[i]);
    while (n) {
        tine_expr_t *x = stack[--n];
        if (!set_add(&seen, x)) continue;
        switch (tine_expr_op(x)) {
        case TINE_OP_ADD: case TINE_OP_SUB: c.adds++; break;
        case TINE_OP_MUL: c.muls++; break;
        case TINE_OP_NEG: c.negs++; break;
        case TINE_OP_CONST: c.consts++; break;
        default: break;
        }
        for (int i = 0; i < tine_expr_nops(x); i++) TINE_PUSH(stack, n, cap, tine_expr_operand(x, i));
    }
    free(stack), free(seen.v);
    return c;
}

/* ---- the entry point ----------------------------------------------------------------- */

bool tine_dft_size_ok(int n) { return n >= 2 && n <= 64; }

bool tine_dft_gen(tine_ctx_t *ctx, int n, int sign, tine_type_t t, tine_expr_t *const *in, tine_expr_t **out,
                  tine_dft_counts *counts) {
    char ts[32];
    if (!tine_dft_size_ok(n)) {
        tine_set_error(ctx, "dft: the generator makes sizes 2 to 64, not %d", n);
        return false;
    }
    if (sign != -1 && sign != 1) {
        tine_set_error(ctx, "dft: the sign is -1 (forward) or +1 (inverse), not %d", sign);
        return false;
    }
    if (!tine_type_valid(t) || t.kind != TINE_FLOAT || (t.bits != 32 && t.bits != 64)) {
        tine_set_error(ctx, "dft: the type is f32 or f64 (any lanes), not %s", tine_type_str(t, ts, sizeof ts));
        return false;
    }
    if (!in || !out) {
        tine_set_error(ctx, "dft: no %s array", in ? "output" : "input");
        return false;
    }
    for (int i = 0; i < 2 * n; i++) {
        char us[32];
        if (!in[i]) {
            tine_set_error(ctx, "dft: input %d is NULL", i);
            return false;
        }
        if (!tine_type_eq(tine_expr_type(in[i]), t)) {
            tine_set_error(ctx, "dft: input %d is %s, not %s", i, tine_type_str(tine_expr_type(in[i]), us, sizeof us),
                           tine_type_str(t, ts, sizeof ts));
            return false;
        }
    }
    dd_dag *d = dd_new(2 * n, 0x5eed0000u + (uint64_t)n);
    cx *x = c_alloc(n), *y = c_alloc(n);
    dd_node **roots = tine_xmalloc((size_t)(2 * n) * sizeof *roots);
    for (int j = 0; j < n; j++) x[j] = (cx){dd_load(d, 2 * j), dd_load(d, 2 * j + 1)};
    dft(d, sign, n, x, y);
    for (int k = 0; k < n; k++) roots[2 * k] = y[k].re, roots[2 * k + 1] = y[k].im;
    d = dd_transpose_simplify(d, roots, 2 * n, roots);
    emit(ctx, t, d, in, roots, 2 * n, out);
    if (counts) *counts = count_ops(in, 2 * n, out, 2 * n);
    dd_free(d);
    free(x), free(y), free(roots);
    return true;
}
