/* bench_report.c — what `tine bench` prints and writes: the table (median and min–max of
 * every implementation, tine's time over each peer's and over the best other, the
 * fraction of the memory roof, compile times), the notes on peers whose definition
 * differs from the kernel's, per-target geomeans and the kernels where tine is behind
 * each peer, compile time by phase, tine-bench.csv (every column) and a chart of tine
 * against Halide 14 and LLVM alone (SVG, and PNG through rsvg-convert).
 *
 * Ratios are of times: tine/Halide = 2 means tine takes twice as long as Halide.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char *const bench_impl_names[NIMPL] = {"tine", "tine auto", "LLVM alone", "Halide 14", "OpenCV", "XNNPACK",
                                             "clang", "gcc", "tine synth"};
static const char *const CSV_NAMES[NIMPL] = {"tine", "tine_auto", "llvm", "halide", "opencv", "xnnpack", "clang", "gcc",
                                             "tine_synth"};
/* the peers with a tine/peer column, a geomean and a "tine behind" line of their own */
static const int PEER_COLUMNS[] = {IMPL_HALIDE, IMPL_OPENCV, IMPL_XNNPACK};
enum { NPEER_COLUMNS = sizeof PEER_COLUMNS / sizeof *PEER_COLUMNS };
static const char *const STATE_NAMES[] = {"absent", "inexact", "failed", "timed"};

static bool timed(const meas *m) { return m->state == MEAS_TIMED && m->ms > 0; }

/* tine's time over the fastest other implementation (not tine's own automatic schedule);
 * 0 when none was timed */
static double over_best(const bench_row *r) {
    double best = 0;
    for (int i = IMPL_LLVM; i < NTABLE; i++)
        if (timed(&r->m[i]) && (best == 0 || r->m[i].ms < best)) best = r->m[i].ms;
    return best > 0 && timed(&r->m[IMPL_TINE]) ? r->m[IMPL_TINE].ms / best : 0;
}

/* one implementation's time over another's; 0 unless both were timed */
static double ratio(const bench_row *r, int one, int other) {
    return timed(&r->m[one]) && timed(&r->m[other]) ? r->m[one].ms / r->m[other].ms : 0;
}

static double over(const bench_row *r, int other) { return ratio(r, IMPL_TINE, other); }

/* whether rows[r] is the first row of its target (the summaries are per target) */
static bool first_of_target(const bench_row *rows, int r) {
    for (int q = 0; q < r; q++)
        if (!strcmp(rows[q].target, rows[r].target)) return false;
    return true;
}


/* "median [min-max]", or what kept it from being timed */
static void cell(char *buf, size_t n, const meas *m) {
    switch (m->state) {
    case MEAS_ABSENT: snprintf(buf, n, "-"); break;
    case MEAS_INEXACT: snprintf(buf, n, "NOT EXACT"); break;
    case MEAS_FAILED: snprintf(buf, n, "FAILED"); break;
    case MEAS_TIMED: snprintf(buf, n, "%.4g [%.3g-%.3g]", m->ms, m->min_ms, m->max_ms); break;
    }
}

static void print_table(const bench_row *rows, int n) {
    printf("%-15s %-14s", "kernel", "target");
    for (int i = 0; i < NTABLE; i++) printf(" %-26s", bench_impl_names[i]);
    printf(" %8s %8s %8s %8s %8s %8s %8s %6s %6s %8s %8s %8s %6s\n", "t/Halide", "t/OpenCV", "t/XNNPK", "t/best",
           "auto/H", "auto/t", "roof ms", "roof:t", "roof:H", "cc tine", "cc LLVM", "cc Halid", "exact");
    for (int r = 0; r < n; r++) {
        const bench_row *row = &rows[r];
        printf("%-15s %-14s", row->kernel, row->target);
        bool exact = true;
        int diff = 0; /* the largest difference of a peer whose definition differs */
        for (int i = 0; i < NTABLE; i++) {
            char c[64];
            cell(c, sizeof c, &row->m[i]);
            printf(" %-26s", c);
            exact &= row->m[i].state == MEAS_TIMED || row->m[i].state == MEAS_ABSENT;
            if (row->m[i].max_diff > diff) diff = row->m[i].max_diff;
        }
        double b = over_best(row), ah = ratio(row, IMPL_AUTO, IMPL_HALIDE), at = ratio(row, IMPL_AUTO, IMPL_TINE);
        char ps[NPEER_COLUMNS][16], bs[16] = "-", ahs[16] = "-", ats[16] = "-", rt[16] = "-", rh[16] = "-", ch[16] = "-",
             ex[16] = "NO";
        for (int p = 0; p < NPEER_COLUMNS; p++) {
            double h = over(row, PEER_COLUMNS[p]);
            if (h > 0) snprintf(ps[p], sizeof ps[p], "%.2f", h);
            else snprintf(ps[p], sizeof ps[p], "-");
        }
        if (exact && diff) snprintf(ex, sizeof ex, "max %d", diff); /* see the notes below the table */
        else if (exact) snprintf(ex, sizeof ex, "yes");
        if (b > 0) snprintf(bs, sizeof bs, "%.2f", b);
        if (ah > 0) snprintf(ahs, sizeof ahs, "%.2f", ah);
        if (at > 0) snprintf(ats, sizeof ats, "%.2f", at);
        if (timed(&row->m[IMPL_TINE])) snprintf(rt, sizeof rt, "%.0f%%", 100 * row->roof_ms / row->m[IMPL_TINE].ms);
        if (timed(&row->m[IMPL_HALIDE])) snprintf(rh, sizeof rh, "%.0f%%", 100 * row->roof_ms / row->m[IMPL_HALIDE].ms);
        if (row->m[IMPL_HALIDE].compile_ms >= 0) snprintf(ch, sizeof ch, "%.0fms", row->m[IMPL_HALIDE].compile_ms);
        printf(" %8s %8s %8s %8s %8s %8s %8.3f %6s %6s %6.0fms %6.0fms %8s %6s\n", ps[0], ps[1], ps[2], bs, ahs, ats,
               row->roof_ms, rt, rh, row->m[IMPL_TINE].compile_ms, row->m[IMPL_LLVM].compile_ms, ch, ex);
    }
}

/* Under the table: the library peers run the same code in every row; and for each kernel
 * where a peer's definition differs from the kernel's, what differs and the largest
 * difference seen (once per kernel and peer: the same code gives it in every row). */
static void print_peer_notes(const bench_row *rows, int n) {
    bool any = false;
    for (int r = 0; r < n; r++)
        any |= rows[r].m[IMPL_OPENCV].state != MEAS_ABSENT || rows[r].m[IMPL_XNNPACK].state != MEAS_ABSENT;
    if (!any) return;
    printf("\nOpenCV and XNNPACK choose their instructions when they run: every row times the same code of theirs.\n"
           "Where a peer's definition differs from the kernel's, the exact column gives the largest |peer - tine| over\n"
           "the compared elements and fill patterns instead of \"yes\":\n");
    for (int r = 0; r < n; r++)
        for (int i = IMPL_OPENCV; i <= IMPL_XNNPACK; i++) {
            const meas *m = &rows[r].m[i];
            bool first = true;
            for (int q = 0; q < r; q++) first &= strcmp(rows[q].kernel, rows[r].kernel) || !rows[q].m[i].differs;
            if (!m->differs || !first) continue;
            int most = 0;
            for (int q = r; q < n; q++)
                if (!strcmp(rows[q].kernel, rows[r].kernel) && rows[q].m[i].max_diff > most) most = rows[q].m[i].max_diff;
            unsigned refused = 0;
            for (int q = r; q < n; q++)
                if (!strcmp(rows[q].kernel, rows[r].kernel)) refused |= rows[q].m[i].refused;
            printf("  %-15s %s: %s; max |%s - tine| %d%s\n", rows[r].kernel, bench_impl_names[i], m->differs,
                   bench_impl_names[i], most, refused ? "; some fill patterns refused, not compared (stderr says why)" : "");
        }
}

/* geomean of `one`'s time over `other`'s (-1: the best other than tine) across the rows of
 * one target; 0 when none */
static double geomean(const bench_row *rows, int n, const char *target, int one, int other, int *count) {
    double g = 0;
    *count = 0;
    for (int r = 0; r < n; r++) {
        if (strcmp(rows[r].target, target)) continue;
        double x = other < 0 ? over_best(&rows[r]) : ratio(&rows[r], one, other);
        if (x > 0) g += log(x), ++*count;
    }
    return *count ? exp(g / *count) : 0;
}

static void print_summaries(const bench_row *rows, int n) {
    printf("\nper target: geomean of tine's time over each other implementation's (below 1: tine faster)\n");
    for (int r = 0; r < n; r++) {
        if (!first_of_target(rows, r)) continue;
        const char *t = rows[r].target;
        printf("  %-14s", t);
        for (int i = IMPL_LLVM; i <= NTABLE; i++) {
            int cnt;
            double g = geomean(rows, n, t, IMPL_TINE, i == NTABLE ? -1 : i, &cnt);
            if (cnt) printf("  tine/%s %.3f (%d)", i == NTABLE ? "best other" : bench_impl_names[i], g, cnt);
        }
        int ca, cb;
        double ga = geomean(rows, n, t, IMPL_AUTO, IMPL_HALIDE, &ca), gb = geomean(rows, n, t, IMPL_AUTO, IMPL_TINE, &cb);
        if (ca || cb) printf("\n  %14s ", "");
        if (ca) printf(" tine auto/Halide 14 %.3f (%d)", ga, ca);
        if (cb) printf("  tine auto/tine (the hand schedules) %.3f (%d)", gb, cb);
        double cc[3] = {0, 0, 0};
        int halide_cc = 0;
        for (int q = 0; q < n; q++) {
            if (strcmp(rows[q].target, t)) continue;
            cc[0] += rows[q].m[IMPL_TINE].compile_ms;
            cc[1] += rows[q].m[IMPL_LLVM].compile_ms;
            if (timed(&rows[q].m[IMPL_HALIDE]) && rows[q].m[IMPL_HALIDE].compile_ms >= 0)
                cc[2] += rows[q].m[IMPL_HALIDE].compile_ms, halide_cc++;
        }
        char hc[32] = "-"; /* no Halide figure in this row: not 0.0 s */
        if (halide_cc) snprintf(hc, sizeof hc, "%.1f s", cc[2] / 1e3);
        printf("\n  %14s  compile time: tine %.1f s, LLVM alone %.1f s, Halide 14 %s (ahead of time)\n", "", cc[0] / 1e3,
               cc[1] / 1e3, hc);
        for (int p = 0; p < NPEER_COLUMNS; p++) {
            int i = PEER_COLUMNS[p], compared = 0;
            char behind[1024] = "";
            for (int q = 0; q < n; q++) {
                if (strcmp(rows[q].target, t)) continue;
                double h = over(&rows[q], i);
                compared += h > 0;
                if (h > 1.02 && strlen(behind) < sizeof behind - 40)
                    snprintf(behind + strlen(behind), sizeof behind - strlen(behind), " %s (%.2fx)", rows[q].kernel, h);
            }
            if (compared || i == IMPL_HALIDE) /* a row without the peer has no figure, not "none behind" */
                printf("  %14s  tine behind %s by more than 2%%:%s\n", "", bench_impl_names[i],
                       !compared ? " no figure" : behind[0] ? behind : " none");
        }
    }
}

static void print_phases(const bench_row *rows, int n) {
    printf("\ncompile time by phase, ms (parse = parsing and lowering to stages; select = lifting or expansion;\n"
           "LLVM = IR emission, O3 and machine code), medians over the targets:\n");
    printf("%-15s %8s %11s %11s %11s %11s\n", "kernel", "parse", "alone:exp", "alone:LLVM", "tine:lift", "tine:LLVM");
    for (int i = 0; i < n;) {
        int j = i;
        double v[5][8];
        while (j < n && !strcmp(rows[j].kernel, rows[i].kernel) && j - i < 8) {
            v[0][j - i] = rows[j].parse_ms;
            v[1][j - i] = rows[j].expand_ms;
            v[2][j - i] = rows[j].llvm_cg_ms;
            v[3][j - i] = rows[j].lift_ms;
            v[4][j - i] = rows[j].tine_cg_ms;
            j++;
        }
        for (int c = 0; c < 5; c++)
            for (int a = 0; a < j - i; a++) /* insertion sort: at most 8 */
                for (int b = a; b > 0 && v[c][b] < v[c][b - 1]; b--) {
                    double x = v[c][b];
                    v[c][b] = v[c][b - 1];
                    v[c][b - 1] = x;
                }
        int m = (j - i) / 2;
        printf("%-15s %8.1f %11.1f %11.1f %11.1f %11.1f\n", rows[i].kernel, v[0][m], v[1][m], v[2][m], v[3][m], v[4][m]);
        i = j;
    }
}

static int write_csv(const char *path, const bench_row *rows, int n) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "kernel,target,runs,bytes,roof_ms");
    for (int i = 0; i < NIMPL; i++)
        fprintf(f, ",%s_ms,%s_min_ms,%s_max_ms,%s_state,%s_compile_ms,%s_roof_fraction", CSV_NAMES[i], CSV_NAMES[i],
                CSV_NAMES[i], CSV_NAMES[i], CSV_NAMES[i], CSV_NAMES[i]);
    fprintf(f, ",tine_over_halide,tine_over_best,auto_over_halide,auto_over_tine,parse_ms,expand_ms,llvm_codegen_ms,lift_ms,"
               "tine_codegen_ms,tine_over_opencv,tine_over_xnnpack,opencv_max_diff,xnnpack_max_diff,group\n");
    for (int r = 0; r < n; r++) {
        const bench_row *row = &rows[r];
        fprintf(f, "%s,%s,%d,%.0f,%.5g", row->kernel, row->target, row->runs, row->bytes, row->roof_ms);
        for (int i = 0; i < NIMPL; i++) {
            const meas *m = &row->m[i];
            if (timed(m))
                fprintf(f, ",%.5g,%.5g,%.5g,%s", m->ms, m->min_ms, m->max_ms, STATE_NAMES[m->state]);
            else
                fprintf(f, ",,,,%s", STATE_NAMES[m->state]);
            if (m->compile_ms >= 0) fprintf(f, ",%.1f", m->compile_ms);
            else fprintf(f, ",");
            if (timed(m)) fprintf(f, ",%.4g", row->roof_ms / m->ms);
            else fprintf(f, ",");
        }
        double h = over(row, IMPL_HALIDE), b = over_best(row);
        if (h > 0) fprintf(f, ",%.4g", h);
        else fprintf(f, ",");
        if (b > 0) fprintf(f, ",%.4g", b);
        else fprintf(f, ",");
        double ah = ratio(row, IMPL_AUTO, IMPL_HALIDE), at = ratio(row, IMPL_AUTO, IMPL_TINE);
        if (ah > 0) fprintf(f, ",%.4g", ah);
        else fprintf(f, ",");
        if (at > 0) fprintf(f, ",%.4g", at);
        else fprintf(f, ",");
        fprintf(f, ",%.3f,%.3f,%.3f,%.3f,%.3f", row->parse_ms, row->expand_ms, row->llvm_cg_ms, row->lift_ms,
                row->tine_cg_ms);
        for (int i = IMPL_OPENCV; i <= IMPL_XNNPACK; i++) {
            double o = over(row, i);
            if (o > 0) fprintf(f, ",%.4g", o);
            else fprintf(f, ",");
        }
        for (int i = IMPL_OPENCV; i <= IMPL_XNNPACK; i++) {
            if (timed(&row->m[i])) fprintf(f, ",%d", row->m[i].max_diff);
            else fprintf(f, ",");
        }
        fprintf(f, ",%s\n", row->user ? "user" : "benchmark");
    }
    bool ok = !ferror(f);
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* The implementation of a chart's bar: Halide 14, LLVM alone, or the kernel's library
 * (OpenCV or XNNPACK, whichever was timed: no kernel has both) */
static int bar_impl(const bench_row *r, int b) {
    return b == 0 ? IMPL_HALIDE : b == 1 ? IMPL_LLVM : timed(&r->m[IMPL_OPENCV]) ? IMPL_OPENCV : IMPL_XNNPACK;
}

/* The chart: for each target a panel, for each kernel three bars — tine's speedup over
 * Halide 14, over LLVM alone and over the kernel's library (the other's time over
 * tine's), on a log scale so that 10x slower and 10x faster are the same length. */
static int write_svg(const char *path, const bench_row *rows, int n) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    const char *targets[8];
    int nt = 0, per = 0;
    for (int r = 0; r < n; r++) {
        bool seen = false;
        for (int t = 0; t < nt; t++) seen |= !strcmp(targets[t], rows[r].target);
        if (!seen && nt < 8) targets[nt++] = rows[r].target;
    }
    for (int r = 0; r < n; r++) per += !strcmp(rows[r].target, targets[0]);
    /* over() is tine/other; the bars show other/tine */
    double smin = 1, smax = 1;
    for (int r = 0; r < n; r++)
        for (int b = 0; b < 3; b++) {
            double x = over(&rows[r], bar_impl(&rows[r], b));
            if (x > 0) smin = fmin(smin, 1 / x), smax = fmax(smax, 1 / x);
        }
    double l0 = floor(log2(smin)), l1 = ceil(log2(smax));
    if (l1 < 1) l1 = 1; /* room above 1x, and the panel's label clear of the 1x line */
    int bw = 8, gap = 10, left = 70, ph = 220, top = 90, panel_gap = 110;
    if (per > 0 && (860 - left - 40) / per - gap > 3 * bw) bw = ((860 - left - 40) / per - gap) / 3;
    if (bw > 12) bw = 12;
    int width = left + per * (3 * bw + gap) + 40;
    if (width < 960) width = 960; /* the title and the legend fit */
    int height = top + nt * (ph + panel_gap) + 10;
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif' font-size='11'>\n",
            width, height);
    fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
    fprintf(f, "<text x='%d' y='20' font-size='15'>tine's speedup over Halide 14, LLVM alone and OpenCV or XNNPACK, "
               "per kernel</text>\n"
               "<text x='%d' y='36'>the other's time / tine's (median), log scale: below 1x tine is slower</text>\n",
            left, left);
    fprintf(f, "<rect x='%d' y='44' width='12' height='12' fill='#c0392b'/><text x='%d' y='54'>over Halide 14</text>\n",
            left, left + 16);
    fprintf(f, "<rect x='%d' y='44' width='12' height='12' fill='#3b6fb6'/><text x='%d' y='54'>over LLVM alone (same "
               "loops, LLVM's instruction selection)</text>\n", left + 120, left + 136);
    fprintf(f, "<rect x='%d' y='44' width='12' height='12' fill='#2e8b57'/><text x='%d' y='54'>over OpenCV or XNNPACK "
               "(the same library code in every row)</text>\n", left + 470, left + 486);
    for (int t = 0; t < nt; t++) {
        int y0 = top + t * (ph + panel_gap);
#define YOF(v) (y0 + ph - (int)(ph * (log2(v) - l0) / (l1 - l0)))
        fprintf(f, "<text x='%d' y='%d' font-size='13' font-weight='bold'>%s</text>\n", left, y0 - 6, targets[t]);
        for (double e = l0; e <= l1; e++) {
            double v = exp2(e);
            fprintf(f, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='%s'/>"
                       "<text x='%d' y='%d' text-anchor='end'>%s%gx</text>\n",
                    left, width - 20, YOF(v), YOF(v), e == 0 ? "black" : "#ddd", left - 6, YOF(v) + 4,
                    v < 1 ? "1/" : "", v < 1 ? 1 / v : v);
        }
        int k = 0;
        for (int r = 0; r < n; r++) {
            if (strcmp(rows[r].target, targets[t])) continue;
            int x = left + 8 + k++ * (3 * bw + gap);
            for (int b = 0; b < 3; b++) {
                static const char *const colour[3] = {"#c0392b", "#3b6fb6", "#2e8b57"};
                int i = bar_impl(&rows[r], b);
                double o = over(&rows[r], i);
                if (o <= 0) continue;
                int y1 = YOF(1.0), yv = YOF(1 / o);
                fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='%s'><title>%s over %s: %.2fx</title></rect>\n",
                        x + b * bw, yv < y1 ? yv : y1, bw, abs(yv - y1) > 0 ? abs(yv - y1) : 1,
                        colour[b], rows[r].kernel, bench_impl_names[i], 1 / o);
            }
            fprintf(f, "<text transform='translate(%d,%d) rotate(50)'>%s</text>\n", x + 4, y0 + ph + 10,
                    rows[r].kernel);
        }
#undef YOF
    }
    fprintf(f, "</svg>\n");
    bool ok = !ferror(f);
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* `--rules synthesized`: tine with the lowering rules tine synth lower found, over tine
 * with the hand rules, per kernel and per target (the goal: within 3%). */
static void print_synth(const bench_row *rows, int n) {
    bool any = false;
    for (int r = 0; r < n; r++) any |= rows[r].m[IMPL_SYNTH].state != MEAS_ABSENT;
    if (!any) return;
    printf("\nsynthesized lowering rules (src/targets/x86.synth.rules, tine synth lower) against the hand rules\n"
           "(x86.rules), the same kernels and schedules in the same interleaved runs; synth/hand above 1: slower\n");
    printf("  %-15s %-14s %-26s %-26s %10s\n", "kernel", "target", "tine (hand rules)", "tine synth", "synth/hand");
    for (int r = 0; r < n; r++) {
        char h[64], sy[64], q[16] = "-";
        cell(h, sizeof h, &rows[r].m[IMPL_TINE]);
        cell(sy, sizeof sy, &rows[r].m[IMPL_SYNTH]);
        double x = ratio(&rows[r], IMPL_SYNTH, IMPL_TINE);
        if (x > 0) snprintf(q, sizeof q, "%.3f", x);
        printf("  %-15s %-14s %-26s %-26s %10s%s\n", rows[r].kernel, rows[r].target, h, sy, q,
               x > 1.03 ? "  slower" : x > 0 && x < 0.97 ? "  faster" : "");
    }
    for (int r = 0; r < n; r++) {
        if (!first_of_target(rows, r)) continue;
        int cnt;
        double g = geomean(rows, n, rows[r].target, IMPL_SYNTH, IMPL_TINE, &cnt);
        if (cnt) printf("  geomean synth/hand %-14s %.3f (%d kernels)\n", rows[r].target, g, cnt);
    }
}

/* More ISA must never give slower code: per kernel, tine's (and tine auto's) time at each
 * level against every lower level's (rows come in the registry's order, lowest level
 * first). The rows are timed one after another, not interleaved, so an inversion is
 * called only when the higher level's fastest run is slower than the lower level's
 * median by more than 5%: a slow moment of the machine does not make one. */
static void print_inversions(const bench_row *rows, int n) {
    static const int IMPLS[] = {IMPL_TINE, IMPL_AUTO};
    int pairs = 0, found = 0;
    printf("\nISA inversions (a kernel slower at a higher level than at a lower one: its fastest run slower than\n"
           "the lower level's median by more than 5%%):");
    for (int hi = 0; hi < n; hi++)
        for (int lo = 0; lo < hi; lo++) {
            if (strcmp(rows[lo].kernel, rows[hi].kernel)) continue;
            for (int k = 0; k < 2; k++) {
                const meas *a = &rows[lo].m[IMPLS[k]], *b = &rows[hi].m[IMPLS[k]];
                if (!timed(a) || !timed(b)) continue;
                pairs++;
                if (b->min_ms <= a->ms * 1.05) continue;
                printf("\n  INVERSION %-15s %-9s %s %.4g ms [min %.4g] > %s %.4g ms", rows[hi].kernel,
                       bench_impl_names[IMPLS[k]], rows[hi].target, b->ms, b->min_ms, rows[lo].target, a->ms);
                found++;
            }
        }
    printf("%s (%d pairs of levels compared)\n", found ? "" : " none", pairs);
}

/* The user kernels' table (bench/user: no hand schedule, so tine's column is tine auto):
 * tine auto beside LLVM alone, Halide 14 and the C references, its time over each, and per
 * target the geomeans and the kernels where tine auto is behind Halide 14 by more than 10%. */
static void print_user_table(const bench_row *rows, int n) {
    static const int cols[] = {IMPL_AUTO, IMPL_LLVM, IMPL_HALIDE, IMPL_CLANG, IMPL_GCC};
    enum { NCOLS = sizeof cols / sizeof *cols };
    printf("\nuser kernels (bench/user: written plainly as a user would, no hand schedule: the automatic scheduler's\n"
           "choice); auto/X = tine auto's time over X's\n");
    printf("%-15s %-14s", "kernel", "target");
    for (int i = 0; i < NCOLS; i++) printf(" %-26s", bench_impl_names[cols[i]]);
    printf(" %8s %8s %8s %8s %8s %8s %6s\n", "auto/H", "auto/LLVM", "auto/gcc", "auto/best", "roof:a", "cc auto", "exact");
    for (int r = 0; r < n; r++) {
        const bench_row *row = &rows[r];
        printf("%-15s %-14s", row->kernel, row->target);
        bool exact = true;
        double best = 0;
        for (int i = 0; i < NCOLS; i++) {
            char c[64];
            cell(c, sizeof c, &row->m[cols[i]]);
            printf(" %-26s", c);
            exact &= row->m[cols[i]].state == MEAS_TIMED || row->m[cols[i]].state == MEAS_ABSENT;
            if (i && timed(&row->m[cols[i]]) && (best == 0 || row->m[cols[i]].ms < best)) best = row->m[cols[i]].ms;
        }
        char q[4][16] = {"-", "-", "-", "-"}, rt[16] = "-";
        const int over_of[3] = {IMPL_HALIDE, IMPL_LLVM, IMPL_GCC};
        double x[4];
        for (int i = 0; i < 3; i++) x[i] = ratio(row, IMPL_AUTO, over_of[i]);
        x[3] = best > 0 && timed(&row->m[IMPL_AUTO]) ? row->m[IMPL_AUTO].ms / best : 0;
        for (int i = 0; i < 4; i++)
            if (x[i] > 0) snprintf(q[i], sizeof q[i], "%.2f", x[i]);
        if (timed(&row->m[IMPL_AUTO])) snprintf(rt, sizeof rt, "%.0f%%", 100 * row->roof_ms / row->m[IMPL_AUTO].ms);
        printf(" %8s %8s %8s %8s %8s %6.0fms %6s\n", q[0], q[1], q[2], q[3], rt, row->m[IMPL_AUTO].compile_ms,
               exact ? "yes" : "NO");
    }
    printf("\nuser kernels per target: geomean of tine auto's time over each other implementation's (below 1: faster)\n");
    for (int r = 0; r < n; r++) {
        if (!first_of_target(rows, r)) continue;
        const char *t = rows[r].target;
        printf("  %-14s", t);
        for (int i = 1; i < NCOLS; i++) {
            int cnt;
            double g = geomean(rows, n, t, IMPL_AUTO, cols[i], &cnt);
            if (cnt) printf("  tine auto/%s %.3f (%d)", bench_impl_names[cols[i]], g, cnt);
        }
        char behind[1024] = "";
        int compared = 0;
        for (int q = 0; q < n; q++) {
            if (strcmp(rows[q].target, t)) continue;
            double h = ratio(&rows[q], IMPL_AUTO, IMPL_HALIDE);
            compared += h > 0;
            if (h > 1.1 && strlen(behind) < sizeof behind - 40)
                snprintf(behind + strlen(behind), sizeof behind - strlen(behind), " %s (%.2fx)", rows[q].kernel, h);
        }
        printf("\n  %14s  tine auto behind Halide 14 by more than 10%%:%s\n", "",
               !compared ? " no figure" : behind[0] ? behind : " none");
    }
}

int bench_report(const bench_row *rows, int n, const bench_roof *roof, bool quick) {
    printf("tine bench: median [min-max] ms of interleaved runs after 2 warm-ups, single thread%s\n",
           quick ? " (quick sizes)" : "");
    printf("roof: this machine copies %.1f GB/s (memcpy, bytes read + written) and streams reads at %.1f GB/s; a\n"
           "row's roof is its bytes (inputs once + output once) at the copy rate, roof:X = roof / X's time\n\n",
           roof->copy_gbs, roof->read_gbs);
    if (roof->not_run[0]) printf("not run: %s (this processor lacks the instructions)\n\n", roof->not_run);
    printf("AArch64 rows: tine bench --target arm-64 (llvm-mca estimates of the inner loops, LLVM alone beside tine)\n\n");
    /* the user kernels' rows come after the others (bench_entries' order) */
    int nb = 0;
    while (nb < n && !rows[nb].user) nb++;
    if (nb) {
        print_table(rows, nb);
        print_peer_notes(rows, nb);
        print_summaries(rows, nb);
    }
    if (nb < n) print_user_table(rows + nb, n - nb);
    print_inversions(rows, n);
    print_synth(rows, n);
    print_phases(rows, n);
    if (write_csv("tine-bench.csv", rows, n)) {
        fprintf(stderr, "tine: cannot write tine-bench.csv: %s\n", strerror(errno));
        return 1;
    }
    if (write_svg("tine-bench.svg", rows, nb ? nb : n)) {
        fprintf(stderr, "tine: cannot write tine-bench.svg: %s\n", strerror(errno));
        return 1;
    }
    bool png = system("command -v rsvg-convert >/dev/null 2>&1") == 0 &&
               system("rsvg-convert tine-bench.svg -o tine-bench.png") == 0;
    printf("wrote tine-bench.csv, tine-bench.svg%s\n", png ? ", tine-bench.png" : " (no PNG: rsvg-convert is not installed)");
    return 0;
}
