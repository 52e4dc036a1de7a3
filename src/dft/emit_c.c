/* emit_c.c — a DFT codelet as C with the target's intrinsics (src/codegen/c.c writes each
 * value: the instruction's intrinsic, GCC/Clang vector extensions for the rest), in the
 * program's order, inside the same block loop as the LLVM codelet (emit_llvm.c): lanes
 * past the last transform repeat it. Inputs are gathered into vectors with initializer
 * lists and outputs scattered through lane subscripts, both vector-extension C that gcc
 * and clang compile alike. */
#include "dft.h"

#include "../codegen/c.h"
#include "../targets/targets.h"

typedef struct {
    const dft_codelet *c;
    tine_cemit *ce;
    const char *vtype;
    char **re, **im; /* per output element: its parts' C names, once stored */
} cw;

/* Input leaf q read first: element j of the v transforms, both parts, as vectors built
 * from the block's pointers. */
static void gather(void *user, int q, tine_buf *out) {
    cw *w = user;
    const dft_codelet *c = w->c;
    const tine_tprog *p = c->prog;
    int j = c->in_elem[q];
    for (int part = 0; part < 2; part++) {
        tine_buf_printf(out, "        %s x%c%d = {", w->vtype, part ? 'i' : 'r', j);
        for (int l = 0; l < c->v; l++) tine_buf_printf(out, "%sib[%d][2 * %d * is + %d]", l ? ", " : "", l, j, part);
        tine_buf_puts(out, "};\n");
    }
    for (int r = 0; r < p->ninputs; r++)
        if (c->in_elem[r] == j) {
            char nm[32];
            snprintf(nm, sizeof nm, "x%c%d", c->in_part[r] ? 'i' : 'r', j);
            tine_cemit_bind(w->ce, p->inputs[r], nm);
        }
}

/* Output k stored: once both parts of its element are, their lanes go to the v transforms. */
static void scatter(void *user, int k, const char *value, tine_buf *out) {
    cw *w = user;
    const dft_codelet *c = w->c;
    int e = c->out_elem[k];
    char **slot = c->out_part[k] ? &w->im[e] : &w->re[e];
    free(*slot);
    *slot = tine_strdup(value);
    if (w->re[e] && w->im[e])
        for (int l = 0; l < c->v; l++)
            tine_buf_printf(out, "        ob[%d][2 * %d * os] = %s[%d], ob[%d][2 * %d * os + 1] = %s[%d];\n", l, e,
                            w->re[e], l, l, e, w->im[e], l);
}

char *dft_emit_c(tine_ctx_t *ctx, const dft_codelet *c, size_t *size) {
    const tine_tprog *p = c->prog;
    tine_cemit *ce = tine_cemit_new(ctx, p->target, "        ");
    if (!ce) return NULL;
    const char *T = c->elem.bits == 64 ? "double" : "float";
    tine_type_t vt = tine_type_with_lanes(c->elem, c->v);
    char tb[64];
    char *vtype = tine_strdup(tine_cemit_type(ce, vt, tb, sizeof tb));
    tine_buf body = {0};
    int v = c->v;
    cw w = {c, ce, vtype, tine_xcalloc((size_t)c->n, sizeof(char *)), tine_xcalloc((size_t)c->n, sizeof(char *))};
    bool ok = tine_cemit_program(ce, p, gather, scatter, &w, &body);
    char *out = NULL;
    if (ok) {
        tine_buf b = {0};
        tine_buf_printf(&b, "/* %s: %d-point complex DFTs for %s, written by tine dft (FFTW's layout: element j of\n"
                            " * transform t at in[2 * (t * idist + j * istride)]). Build with -ffp-contract=off: the\n"
                            " * program says where a product and a sum round once. */\n",
                        c->name, c->n, p->target);
        const tine_target_info *ti = tine_target_find(p->target);
        bool arm = ti && ti->isa && !strcmp(ti->isa, "arm");
        tine_buf_printf(&b, "#include <stddef.h>\n#include <stdint.h>\n#include <%s>\n", arm ? "arm_neon.h" : "immintrin.h");
        tine_cemit_prelude(ce, &b);
        tine_buf_printf(&b,
                        "\nstatic void %s_blocks(const %s *restrict in, %s *restrict out, ptrdiff_t howmany, ptrdiff_t is,\n"
                        "        ptrdiff_t id, ptrdiff_t os, ptrdiff_t od) {\n"
                        "    for (ptrdiff_t b = 0; b < howmany; b += %d) {\n"
                        "        const %s *ib[%d];\n        %s *ob[%d];\n"
                        "        for (int l = 0; l < %d; l++) {\n"
                        "            ptrdiff_t t = b + l < howmany ? b + l : howmany - 1;\n"
                        "            ib[l] = in + 2 * t * id;\n            ob[l] = out + 2 * t * od;\n        }\n",
                        c->name, T, T, v, T, v, T, v, v);
        tine_buf_puts(&b, body.p ? body.p : "");
        tine_buf_puts(&b, "    }\n}\n");
        /* the entry point: in place (in == out, one layout) through a copy of each block */
        tine_buf_printf(&b,
                        "\nvoid %s(const %s *in, %s *out, ptrdiff_t howmany, ptrdiff_t is, ptrdiff_t id, ptrdiff_t os,\n"
                        "        ptrdiff_t od);\n"
                        "void %s(const %s *in, %s *out, ptrdiff_t howmany, ptrdiff_t is, ptrdiff_t id, ptrdiff_t os,\n"
                        "        ptrdiff_t od) {\n"
                        "    if (in != out) {\n"
                        "        %s_blocks(in, out, howmany, is, id, os, od);\n"
                        "        return;\n"
                        "    }\n"
                        "    %s buf[%d];\n"
                        "    for (ptrdiff_t b = 0; b < howmany; b += %d) {\n"
                        "        ptrdiff_t cnt = howmany - b < %d ? howmany - b : %d;\n"
                        "        for (ptrdiff_t l = 0; l < cnt; l++)\n"
                        "            for (int j = 0; j < %d; j++) {\n"
                        "                buf[2 * (l * %d + j)] = in[2 * ((b + l) * id + j * is)];\n"
                        "                buf[2 * (l * %d + j) + 1] = in[2 * ((b + l) * id + j * is) + 1];\n"
                        "            }\n"
                        "        %s_blocks(buf, out + 2 * b * od, cnt, 1, %d, os, od);\n"
                        "    }\n"
                        "}\n",
                        c->name, T, T, c->name, T, T, c->name, T, 2 * c->n * v, v, v, v, c->n, c->n, c->n, c->name,
                        c->n);
        out = b.p;
        *size = b.n;
    }
    for (int k = 0; k < c->n; k++) free(w.re[k]), free(w.im[k]);
    free(w.re);
    free(w.im);
    free(vtype);
    free(body.p);
    tine_cemit_free(ce);
    return out;
}
