/* asm_loops.c — the loops of LLVM's verbose assembly of a kernel, and llvm-mca's
 * estimate of one (asm_loops.h): what `tine bench` measures on AArch64 rows (bench_mca.c)
 * and what `tine report` shows for every innermost loop.
 *
 * Codegen names a loop's blocks after the loop ("out.x.vec.body"; the parts of a
 * partitioned loop are "out.x.pro", "out.x" and "out.x.epi"; a loop without a name, such
 * as the lanes of a reduction or the rows of an unrolled tile, is "loop.body"), and LLVM
 * prints the nesting ("=>This Inner Loop Header", "in Loop: Header=BB0_5", "Parent Loop
 * BB0_3") and keeps the names, with suffixes of its own (".us", ".i", numbers). The
 * steady-state candidates among the innermost loops are those that have a block of a
 * vectorized loop (".vec.") or of an unnamed one ("loop."), have vector instructions, and
 * none of whose blocks or enclosing loops is a prologue or epilogue (".pro.", ".epi."). The
 * dominant loop is the candidate with the most vector instructions on whole registers,
 * then with the most vector instructions (bench_mca.c says why).
 *
 * The estimate: the loop's instructions (labels, directives and comments dropped, the
 * blocks in assembly order) go to llvm-mca with -iterations=100; cycles per iteration are
 * "Total Cycles" / 100, which counts loop-carried dependencies (the Block RThroughput
 * would not).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "asm_loops.h"

/* ---- the assembly's blocks --------------------------------------------------------------- */

void asm_free(asm_text *a) {
    for (int i = 0; i < a->nins; i++) free(a->ins[i]);
    free(a->ins);
    free(a->spill);
    free(a->b);
}

static void copy_id(char *dst, size_t n, const char *p) {
    size_t k = 0;
    while (k + 1 < n && (isalnum((unsigned char)p[k]) || p[k] == '_' || p[k] == '.')) dst[k] = p[k], k++;
    dst[k] = 0;
}

static void grow(void **p, int n, int *cap, size_t size) {
    if (n < *cap) return;
    *cap = *cap ? *cap * 2 : 256;
    if (!(*p = realloc(*p, (size_t)*cap * size))) abort();
}

/* Splits text into blocks and instructions (see the file's comment): a label or LLVM's
 * fall-through comment ("// %bb.3:", "# %bb.3:") starts a block, and LLVM's comments name
 * its IR block and the loop it is in. */
void asm_parse(const char *text, asm_isa isa, asm_text *a) {
    memset(a, 0, sizeof *a);
    a->isa = isa;
    const char *cmt = isa == ASM_X86 ? "#" : "//";
    size_t ncmt = strlen(cmt);
    int capi = 0, capb = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line - 1 ? len : sizeof line - 1), p);
        p += len + (e != NULL);
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        char *cm = strstr(s, cmt);
        bool fall = s == line && !strncmp(s, cmt, ncmt) && !strncmp(s + ncmt, " %bb.", 5);
        bool label = !fall && s == line && *s && *s != cmt[0] && strchr(s, ':') && (!cm || strchr(s, ':') < cm);
        if (label || fall) { /* a new block */
            grow((void **)&a->b, a->nb, &capb, sizeof *a->b);
            asm_block *b = &a->b[a->nb++];
            memset(b, 0, sizeof *b);
            b->first = a->nins;
            if (!strncmp(s, ".LBB", 4)) copy_id(b->id, sizeof b->id, s + 2);
            const char *nm = strstr(fall ? s + ncmt + 5 : s, cmt);
            if (nm && !strncmp(nm + ncmt, " %", 2)) copy_id(b->name, sizeof b->name, nm + ncmt + 2);
            continue;
        }
        if (!a->nb) continue;
        asm_block *b = &a->b[a->nb - 1];
        if (cm == s) { /* a comment: the loop nesting */
            const char *h;
            if ((h = strstr(s, "Loop Header")) && strstr(s, "=>")) {
                snprintf(b->loop, sizeof b->loop, "%s", b->id);
                b->inner_head = strstr(s, "Inner Loop Header") != NULL;
            } else if ((h = strstr(s, "in Loop: Header="))) {
                copy_id(b->loop, sizeof b->loop, h + 16);
            } else if ((h = strstr(s, "Parent Loop ")) && b->nparents < 8) {
                copy_id(b->parents[b->nparents++], sizeof b->parents[0], h + 12);
            }
            continue;
        }
        if (!*s || *s == '.' || *s == '/' || *s == '#') continue; /* directives */
        bool spill = cm && strstr(cm, "Spill");
        if (cm) *cm = 0;
        size_t n = strlen(s);
        while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
        for (char *q = s; *q; q++)
            if (*q == '\t') *q = ' ';
        int capi0 = capi;
        grow((void **)&a->ins, a->nins, &capi, sizeof *a->ins);
        if (capi != capi0 && !(a->spill = realloc(a->spill, (size_t)capi * sizeof *a->spill))) abort();
        a->spill[a->nins] = spill;
        if (!(a->ins[a->nins++] = strdup(s))) abort();
        b->count++;
    }
}

static const asm_block *find_block(const asm_text *a, const char *id) {
    for (int i = 0; i < a->nb; i++)
        if (id[0] && !strcmp(a->b[i].id, id)) return &a->b[i];
    return NULL;
}

/* ---- what an instruction is ------------------------------------------------------------ */

/* A vector instruction on AArch64: one with a Neon register operand (v0.16b, q1, d2 as a vector's half,
 * a lane v3.h[1]): any "vN." or a q register. */
static bool arm_vector(const char *ins) {
    const char *ops = strchr(ins, ' ');
    for (const char *p = ops ? ops : ins + strlen(ins); *p; p++) {
        bool start = p == ops || !isalnum((unsigned char)p[-1]);
        if (!start || !isdigit((unsigned char)p[1])) continue;
        int k = 1;
        while (isdigit((unsigned char)p[k])) k++;
        if ((*p == 'v' && p[k] == '.') || (*p == 'q' && !isalnum((unsigned char)p[k]))) return true;
    }
    return false;
}

/* A vector instruction on whole 128-bit registers: a q register or an arrangement of 16
 * bytes (.16b, .8h, .4s, .2d). A loop of 64-bit ones (.2s, .4h, d registers) is one that
 * LLVM vectorized from scalar code, a tail, not a steady state (fully_connected's remaining
 * terms of a reduction: zip1 and mla on .2s). */
static bool arm_wide(const char *ins) {
    static const char *const arr[] = {".16b", ".8h", ".4s", ".2d"};
    for (int i = 0; i < 4; i++)
        if (strstr(ins, arr[i])) return true;
    const char *ops = strchr(ins, ' ');
    for (const char *p = ops ? ops : ins + strlen(ins); *p; p++)
        if (*p == 'q' && (p == ops || !isalnum((unsigned char)p[-1])) && isdigit((unsigned char)p[1])) {
            int k = 1;
            while (isdigit((unsigned char)p[k])) k++;
            if (!isalnum((unsigned char)p[k])) return true;
        }
    return false;
}

/* Bytes one AArch64 store instruction writes (0 for anything else). */
static int arm_store_bytes(const char *ins) {
    if (strncmp(ins, "st", 2) || !strncmp(ins, "stlr", 4)) return 0;
    const char *ops = strchr(ins, ' ');
    if (!ops || strstr(ops, "[sp")) return 0; /* a spill is not output */
    if (ins[2] >= '1' && ins[2] <= '4') { /* st1..st4 {list}[lane] */
        int bytes = 0;
        const char *end = strchr(ops, '}');
        bool lane = end && end[1] == '[';
        for (const char *p = strchr(ops, '.'); p && (!end || p < end); p = strchr(p + 1, '.')) {
            int lanes = isdigit((unsigned char)p[1]) ? atoi(p + 1) : 1;
            char t = isdigit((unsigned char)p[1]) ? p[1 + (p[2] == '6' ? 2 : 1)] : p[1];
            int esz = t == 'b' ? 1 : t == 'h' ? 2 : t == 's' ? 4 : 8;
            bytes += lane ? esz : lanes * esz;
        }
        return bytes;
    }
    while (*ops == ' ') ops++;
    int w = ops[0] == 'q' ? 16 : ops[0] == 'd' || ops[0] == 'x' ? 8 : ops[0] == 's' || ops[0] == 'w' ? 4 : ops[0] == 'h' ? 2 : 1;
    if (!strncmp(ins, "strb", 4) || !strncmp(ins, "sturb", 5)) w = 1;
    if (!strncmp(ins, "strh", 4) || !strncmp(ins, "sturh", 5)) w = 2;
    return !strncmp(ins, "stp", 3) || !strncmp(ins, "stnp", 4) ? 2 * w : w;
}

/* On x86 every instruction with an xmm, ymm or zmm operand counts as a vector one on a
 * whole register (the target's widest is not known here); stores are not counted (only
 * the AArch64 rows of `tine bench` divide by them). */
static bool x86_vector(const char *ins) { return strstr(ins, "%xmm") || strstr(ins, "%ymm") || strstr(ins, "%zmm"); }

static bool is_vector(asm_isa isa, const char *ins) { return isa == ASM_X86 ? x86_vector(ins) : arm_vector(ins); }
static bool is_wide(asm_isa isa, const char *ins) { return isa == ASM_X86 ? x86_vector(ins) : arm_wide(ins); }
static int store_bytes(asm_isa isa, const char *ins) { return isa == ASM_X86 ? 0 : arm_store_bytes(ins); }

/* ---- loops ------------------------------------------------------------------------------- */

static bool part_edge(const char *name) { return strstr(name, ".pro.") || strstr(name, ".epi."); }

int asm_find_loops(const asm_text *a, asm_loop *out, int max, int *steady) {
    int n = 0;
    for (int i = 0; i < a->nb && n < max; i++) {
        if (!a->b[i].inner_head) continue;
        asm_loop *l = &out[n++];
        memset(l, 0, sizeof *l);
        snprintf(l->head, sizeof l->head, "%s", a->b[i].id);
        snprintf(l->name, sizeof l->name, "%s", a->b[i].name);
        for (int j = 0; j < a->nb && l->nblocks < 64; j++)
            if (!strcmp(a->b[j].loop, l->head)) l->blocks[l->nblocks++] = j;
        for (int j = 0; j < l->nblocks; j++) {
            const asm_block *b = &a->b[l->blocks[j]];
            for (int k = b->first; k < b->first + b->count; k++) {
                l->ins++;
                l->vec += is_vector(a->isa, a->ins[k]);
                l->wide += is_wide(a->isa, a->ins[k]);
                l->stored += a->spill[k] ? 0 : store_bytes(a->isa, a->ins[k]);
            }
        }
    }
    /* the steady ones first */
    int s = 0;
    for (int i = 0; i < n; i++) {
        bool edge = false, vec = false;
        for (int j = 0; j < out[i].nblocks; j++) {
            const asm_block *b = &a->b[out[i].blocks[j]];
            edge |= part_edge(b->name);
            vec |= strstr(b->name, ".vec.") || !strncmp(b->name, "loop.", 5);
        }
        const asm_block *h = find_block(a, out[i].head);
        for (int j = 0; h && j < h->nparents; j++) {
            const asm_block *pb = find_block(a, h->parents[j]);
            edge |= pb && part_edge(pb->name);
        }
        if (vec && !edge && out[i].vec > 0) {
            asm_loop t = out[s];
            out[s++] = out[i];
            out[i] = t;
        }
    }
    *steady = s;
    return n;
}

int asm_pick_loop(const asm_loop *ls, int n, int steady, const char *same_name) {
    int m = steady ? steady : n, best = -1;
    for (int i = 0; i < m && same_name; i++)
        if (!strcmp(ls[i].name, same_name)) return i;
    for (int i = 0; i < m; i++)
        if (best < 0 || ls[i].wide > ls[best].wide || (ls[i].wide == ls[best].wide && ls[i].vec > ls[best].vec)) best = i;
    return best;
}

/* ---- llvm-mca -------------------------------------------------------------------------- */

const char *asm_mca_path(void) {
    const char *p = getenv("TINE_LLVM_MCA");
    return p && *p ? p : "llvm-mca-19";
}

double asm_mca_cycles(const asm_text *a, const asm_loop *l, const char *cpu, const char *what) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/tine-mca-%ld.s", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tine: cannot write %s\n", path);
        return -1;
    }
    for (int j = 0; j < l->nblocks; j++) {
        const asm_block *b = &a->b[l->blocks[j]];
        for (int k = b->first; k < b->first + b->count; k++) fprintf(f, "%s\n", a->ins[k]);
    }
    fclose(f);
    char cmd[512];
    /* the features only let the assembler accept every target's instructions; the
       scheduling model is the CPU's */
    const char *triple = a->isa == ASM_X86 ? "x86_64" : "aarch64";
    const char *attr = a->isa == ASM_X86 ? "" : " -mattr=+v8.2a,+rdm,+dotprod,+i8mm";
    snprintf(cmd, sizeof cmd, "%s -mtriple=%s -mcpu=%s%s -iterations=100 %s 2>&1", asm_mca_path(), triple, cpu, attr,
             path);
    FILE *pp = popen(cmd, "r");
    /* the report's "Total Cycles: N": a positive number alone on its line, or nothing is
       measured (a program that is not llvm-mca, a version that words it otherwise) */
    double total = -1;
    char line[512], first_err[512] = "", first[512] = "";
    while (pp && fgets(line, sizeof line, pp)) {
        if (!first[0] && strspn(line, " \t\r\n") < strlen(line)) snprintf(first, sizeof first, "%s", line);
        if (!strncmp(line, "Total Cycles:", 13)) {
            char *end;
            double v = strtod(line + 13, &end);
            end += strspn(end, " \t\r\n");
            if (!*end && isfinite(v) && v > 0) total = v;
        }
        if (!first_err[0] && strstr(line, "error")) snprintf(first_err, sizeof first_err, "%s", line);
    }
    if (pp) pclose(pp);
    remove(path);
    if (total < 0) {
        const char *said = first_err[0] ? first_err : first;
        fprintf(stderr, "\r%30s\rtine: %s on %s: llvm-mca ('%s') gave no cycle count: expected its report's line "
                        "'Total Cycles: N' with a number N > 0; %s%.*s\n",
                "", what, cpu, asm_mca_path(), said[0] ? "it printed: " : "it printed nothing",
                (int)strcspn(said, "\r\n"), said);
        return -1;
    }
    return total / 100.0;
}

