/*
 * Generic differential driver for the retarget corpus.
 *
 * Build it together with every THEME.ref.c and every THEME.VARIANT.c of ONE
 * variant; name the variant with -DVARIANT='"neon"' or at run time with
 * --variant neon (or sse2, sse41, avx2; "ref" with -DHARNESS_SELF_REF, which
 * tests the reference against itself).  The function
 * table comes from corpus.def; each entry's SIG string says how to build the
 * arguments, its ARGS string how to pick the scalar values (see README.md).
 *
 * Calling convention: every parameter is a pointer, an int or a ptrdiff_t and
 * there are at most HARNESS_MAXP of them, so on x86-64 SysV and AAPCS64 each
 * one travels in its own integer register (or 8-byte stack slot).  The driver
 * therefore calls every function through one generic type taking eight
 * uintptr_t values: ints are passed sign-extended to 64 bits (the callee reads
 * the low 32 bits, a ptrdiff_t callee reads all 64), unused trailing values are
 * ignored by the callee, and the return register is truncated to the declared
 * return type.  `harness --protos` prints real prototypes from the SIG
 * strings; check_hand.sh force-includes them into every corpus file so that a
 * SIG that disagrees with the C definition is a compile error.
 *
 * Input buffers are placed against a PROT_NONE page (alternately after and
 * before the data), so reading past either end faults; the fault is reported
 * with the arguments.  Output buffers carry guard bytes on both sides and
 * start at a varying offset.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef VARIANT
#define VARIANT NULL /* then --variant is required */
#endif

#define HARNESS_MAXP 8
#define MAXVARS 16
#define MAXBYTES (1u << 20)
#define GUARD 64

typedef void (*any_fn)(void);
typedef uint64_t (*gen_fn)(uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                           uintptr_t, uintptr_t, uintptr_t, uintptr_t);

/* Declarations only serve to take the address; the real prototypes live in
 * the corpus files.  Variant symbols are weak so a variant file may lack
 * functions. */
#ifdef HARNESS_PROTOS_ONLY
#define REFWEAK __attribute__((weak))
#else
#define REFWEAK
#endif
#define FN(name, theme, sig, variants, args) \
  extern void name(void) __attribute__((weak)); \
  extern void ref_##name(void) REFWEAK;
#include "corpus.def"
#undef FN

#ifdef HARNESS_SELF_REF
#define VARSYM(name) ref_##name
#else
#define VARSYM(name) name
#endif

struct entry {
  const char *name, *theme, *sig, *variants, *args;
  any_fn var, ref;
};

static const struct entry table[] = {
#define FN(name, theme, sig, variants, args) \
  {#name, #theme, sig, variants, args, VARSYM(name), ref_##name},
#include "corpus.def"
#undef FN
};
#define NENTRIES ((int)(sizeof table / sizeof table[0]))

/* ------------------------------------------------------------------ types */

enum { T_U8, T_S8, T_U16, T_S16, T_U32, T_S32, T_U64, T_S64, T_INT, T_PTRDIFF,
       T_NONE };
static const struct {
  const char *name, *alias, *ctype;
  int size, is_signed;
} types[] = {
    {"u8", "u8", "uint8_t", 1, 0},       {"s8", "i8", "int8_t", 1, 1},
    {"u16", "u16", "uint16_t", 2, 0},    {"s16", "i16", "int16_t", 2, 1},
    {"u32", "u32", "uint32_t", 4, 0},    {"s32", "i32", "int32_t", 4, 1},
    {"u64", "u64", "uint64_t", 8, 0},    {"s64", "i64", "int64_t", 8, 1},
    {"int", "int", "int", 4, 1},         {"ptrdiff", "ptrdiff", "ptrdiff_t", 8, 1},
};

static int type_by_name(const char *s) {
  for (int i = 0; i < T_NONE; i++)
    if (!strcmp(s, types[i].name) || !strcmp(s, types[i].alias)) return i;
  return -1;
}
static int64_t type_min(int t) {
  if (!types[t].is_signed) return 0;
  return types[t].size == 8 ? INT64_MIN : -((int64_t)1 << (8 * types[t].size - 1));
}
static int64_t type_max(int t) {
  if (types[t].size == 8) return types[t].is_signed ? INT64_MAX : -1; /* u64 unused */
  return types[t].is_signed ? ((int64_t)1 << (8 * types[t].size - 1)) - 1
                            : ((int64_t)1 << (8 * types[t].size)) - 1;
}
/* Reduce a 64-bit register value to the declared type, as int64_t. */
static int64_t type_trunc(int t, uint64_t v) {
  switch (types[t].size) {
  case 1: return types[t].is_signed ? (int64_t)(int8_t)v : (int64_t)(uint8_t)v;
  case 2: return types[t].is_signed ? (int64_t)(int16_t)v : (int64_t)(uint16_t)v;
  case 4: return types[t].is_signed ? (int64_t)(int32_t)v : (int64_t)(uint32_t)v;
  default: return (int64_t)v;
  }
}
static void store_elt(void *p, int t, size_t i, int64_t v) {
  switch (t) {
  case T_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
  case T_S8: ((int8_t *)p)[i] = (int8_t)v; break;
  case T_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
  case T_S16: ((int16_t *)p)[i] = (int16_t)v; break;
  case T_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
  case T_S32: ((int32_t *)p)[i] = (int32_t)v; break;
  default: ((int64_t *)p)[i] = v; break;
  }
}
static int64_t load_elt(const void *p, int t, size_t i) {
  switch (t) {
  case T_U8: return ((const uint8_t *)p)[i];
  case T_S8: return ((const int8_t *)p)[i];
  case T_U16: return ((const uint16_t *)p)[i];
  case T_S16: return ((const int16_t *)p)[i];
  case T_U32: return ((const uint32_t *)p)[i];
  case T_S32: return ((const int32_t *)p)[i];
  default: return ((const int64_t *)p)[i];
  }
}

/* ------------------------------------------------------------------ rng */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void) {
  uint64_t x = rng_state;
  x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
  rng_state = x;
  return x * 0x2545F4914F6CDD1Dull;
}
static int64_t rng_range(int64_t lo, int64_t hi) { /* inclusive, hi >= lo */
  uint64_t span = (uint64_t)(hi - lo) + 1;
  return span == 0 ? (int64_t)rng() : lo + (int64_t)(rng() % span);
}

/* ------------------------------------------------------------------ signature */

enum { K_IN, K_OUT, K_IO, K_SCALAR };
struct param {
  int kind, type;
  char expr[96];   /* element count (buffers) */
  char name[32];   /* scalar name */
  int has_range;
  int64_t lo, hi;  /* value range of buffer elements */
};
struct sig {
  int np, ret;
  struct param p[HARNESS_MAXP];
};
struct var {
  char name[32];
  char spec[160];
  int has_spec, state, index; /* state: 0 unset, 1 resolving, 2 set */
  int64_t val;
};

static const struct entry *cur;      /* for diagnostics */
static char bad_msg[256];
static int bad;                      /* manifest error in the current entry */

static void manifest_error(const char *fmt, ...) {
  if (bad) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(bad_msg, sizeof bad_msg, fmt, ap);
  va_end(ap);
  bad = 1;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}

/* Parse an integer range "LO..HI" of plain integer literals. */
static int parse_lit_range(const char *s, int64_t *lo, int64_t *hi) {
  char *end;
  const char *dots = strstr(s, "..");
  if (!dots) return 0;
  *lo = strtoll(s, &end, 0);
  if (end != dots) return 0;
  *hi = strtoll(dots + 2, &end, 0);
  return *end == 0 && *hi >= *lo;
}

static void parse_sig(const char *src, struct sig *sg) {
  char buf[512];
  memset(sg, 0, sizeof *sg);
  sg->ret = T_NONE;
  snprintf(buf, sizeof buf, "%s", src);
  for (char *save = NULL, *item = strtok_r(buf, ";", &save); item;
       item = strtok_r(NULL, ";", &save)) {
    char *tok[6];
    int nt = 0;
    for (char *s2 = NULL, *t = strtok_r(item, " \t", &s2); t && nt < 6;
         t = strtok_r(NULL, " \t", &s2))
      tok[nt++] = t;
    if (nt == 0) continue;
    if (!strcmp(tok[0], "ret")) {
      if (nt != 2 || (sg->ret = type_by_name(tok[1])) < 0)
        manifest_error("bad ret item in SIG");
      continue;
    }
    if (sg->np == HARNESS_MAXP) { manifest_error("more than %d parameters", HARNESS_MAXP); return; }
    struct param *p = &sg->p[sg->np++];
    if (!strcmp(tok[0], "in") || !strcmp(tok[0], "out") || !strcmp(tok[0], "io")) {
      p->kind = tok[0][0] == 'i' ? (tok[0][1] == 'n' ? K_IN : K_IO) : K_OUT;
      if (nt < 3 || nt > 4 || (p->type = type_by_name(tok[1])) < 0 || p->type > T_S32)
        { manifest_error("bad buffer item '%s'", tok[0]); return; }
      snprintf(p->expr, sizeof p->expr, "%s", tok[2]);
      p->lo = type_min(p->type);
      p->hi = type_max(p->type);
      if (nt == 4) {
        if (p->kind == K_OUT || !parse_lit_range(tok[3], &p->lo, &p->hi) ||
            p->lo < type_min(p->type) || p->hi > type_max(p->type))
          { manifest_error("bad value range '%s'", tok[3]); return; }
        p->has_range = 1;
      }
    } else {
      p->kind = K_SCALAR;
      const char *nm = tok[0];
      p->type = T_INT;
      if (nt == 2) {
        if (!strcmp(tok[0], "int")) p->type = T_INT;
        else if (!strcmp(tok[0], "ptrdiff")) p->type = T_PTRDIFF;
        else { manifest_error("bad scalar type '%s'", tok[0]); return; }
        nm = tok[1];
      } else if (nt != 1) { manifest_error("bad scalar item"); return; }
      if (!isalpha((unsigned char)nm[0]) && nm[0] != '_') { manifest_error("bad scalar name '%s'", nm); return; }
      snprintf(p->name, sizeof p->name, "%s", nm);
    }
  }
}

/* ------------------------------------------------------------------ expressions */

static struct var vars[MAXVARS];
static int nvars, iter_no;
static const int64_t sizes[] = {0, 1, 7, 15, 16, 17, 31, 33, 64, 100, 257};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int64_t resolve(struct var *v);

static struct var *find_var(const char *name, size_t len) {
  for (int i = 0; i < nvars; i++)
    if (strlen(vars[i].name) == len && !strncmp(vars[i].name, name, len)) return &vars[i];
  return NULL;
}

struct ev { const char *s; };
static int64_t ev_sum(struct ev *e);
static void ev_ws(struct ev *e) { while (isspace((unsigned char)*e->s)) e->s++; }
static int64_t ev_atom(struct ev *e) {
  ev_ws(e);
  if (*e->s == '-') { e->s++; return -ev_atom(e); }
  if (*e->s == '(') {
    e->s++;
    int64_t v = ev_sum(e);
    ev_ws(e);
    if (*e->s++ != ')') manifest_error("missing ')'");
    return v;
  }
  if (isdigit((unsigned char)*e->s)) return strtoll(e->s, (char **)&e->s, 0);
  if (isalpha((unsigned char)*e->s) || *e->s == '_') {
    const char *b = e->s;
    while (isalnum((unsigned char)*e->s) || *e->s == '_') e->s++;
    size_t len = (size_t)(e->s - b);
    ev_ws(e);
    if (*e->s == '(' && (len == 3 && (!strncmp(b, "max", 3) || !strncmp(b, "min", 3)))) {
      e->s++;
      int64_t a = ev_sum(e);
      ev_ws(e);
      if (*e->s++ != ',') manifest_error("expected ','");
      int64_t c = ev_sum(e);
      ev_ws(e);
      if (*e->s++ != ')') manifest_error("missing ')'");
      return b[1] == 'a' ? (a > c ? a : c) : (a < c ? a : c);
    }
    struct var *v = find_var(b, len);
    if (!v) { manifest_error("unknown name '%.*s'", (int)len, b); return 0; }
    return resolve(v);
  }
  manifest_error("bad expression near '%s'", e->s);
  e->s += strlen(e->s);
  return 0;
}
static int64_t ev_prod(struct ev *e) {
  int64_t v = ev_atom(e);
  for (;;) {
    ev_ws(e);
    if (*e->s == '*') { e->s++; v *= ev_atom(e); }
    else if (*e->s == '/') {
      e->s++;
      int64_t d = ev_atom(e);
      if (d == 0) { manifest_error("division by zero"); return 0; }
      v /= d;
    } else return v;
  }
}
static int64_t ev_sum(struct ev *e) {
  int64_t v = ev_prod(e);
  for (;;) {
    ev_ws(e);
    if (*e->s == '+') { e->s++; v += ev_prod(e); }
    else if (*e->s == '-') { e->s++; v -= ev_prod(e); }
    else return v;
  }
}
static int64_t eval(const char *s) {
  struct ev e = {s};
  int64_t v = ev_sum(&e);
  ev_ws(&e);
  if (*e.s) manifest_error("trailing text in expression '%s'", s);
  return v;
}
static int64_t eval_n(const char *s, size_t len) {
  char buf[160];
  snprintf(buf, sizeof buf, "%.*s", (int)len, s);
  return eval(buf);
}

/* "sizes" or "sizes,E1,E2...": the standard list plus extra values. */
static int64_t pick_size(const struct var *v, const char *extra) {
  int64_t list[NSIZES + 8];
  int cnt = 0;
  for (int i = 0; i < NSIZES; i++) list[cnt++] = sizes[i];
  while (extra && *extra == ',' && cnt < NSIZES + 8) {
    const char *e = strchr(extra + 1, ',');
    size_t len = e ? (size_t)(e - extra - 1) : strlen(extra + 1);
    list[cnt++] = eval_n(extra + 1, len);
    extra += len + 1;
  }
  if (iter_no < 4 * cnt) return list[(iter_no + 3 * v->index) % cnt];
  if (rng() % 4 == 0) return rng_range(0, 300);
  return list[rng() % (uint64_t)cnt];
}

/* --bench: one fixed argument set per function (see ../bench.md).  n, w, h
 * that take the default or a "sizes" spec get the bench sizes; a stride with a
 * range gets w+16 (or LO+16) when that is in range; any other range its
 * middle, a list its first value, an expression its value. */
static int bench_mode;
static int64_t bench_n = 4096, bench_w = 256, bench_h = 64;
static int64_t bench_value(struct var *v, const char *spec) {
  int dflt = !v->has_spec || !strncmp(spec, "sizes", 5);
  if (dflt && !strcmp(v->name, "w")) return bench_w;
  if (dflt && !strcmp(v->name, "h")) return bench_h;
  if (!strncmp(spec, "sizes", 5)) return bench_n;
  if (strchr(spec, '|')) return eval_n(spec, strcspn(spec, "|"));
  const char *dots = strstr(spec, "..");
  if (!dots) return eval(spec);
  int64_t lo = eval_n(spec, (size_t)(dots - spec)), hi = eval(dots + 2);
  if (strstr(v->name, "stride")) {
    struct var *w = find_var("w", 1);
    if (w && resolve(w) + 16 >= lo && resolve(w) + 16 <= hi) return resolve(w) + 16;
    if (lo + 16 <= hi) return lo + 16;
  }
  return lo + (hi - lo) / 2;
}

static int64_t resolve(struct var *v) {
  if (v->state == 2) return v->val;
  if (v->state == 1) { manifest_error("cyclic definition of '%s'", v->name); return 0; }
  v->state = 1;
  const char *spec = v->spec;
  int64_t val = 0;
  if (!v->has_spec) {
    if (!strcmp(v->name, "n") || !strcmp(v->name, "w")) spec = "sizes";
    else if (!strcmp(v->name, "h")) spec = "0..8";
    else if (strstr(v->name, "stride") && find_var("w", 1)) spec = "w..w+19";
    else { manifest_error("no ARGS range for scalar '%s'", v->name); spec = "0"; }
  }
  if (bench_mode) { v->val = bench_value(v, spec); v->state = 2; return v->val; }
  const char *dots = strstr(spec, "..");
  if (!strncmp(spec, "sizes", 5) && (spec[5] == 0 || spec[5] == ',')) {
    val = pick_size(v, spec + 5);
  } else if (strchr(spec, '|')) {
    int cnt = 1;
    for (const char *q = spec; *q; q++) cnt += *q == '|';
    int k = (int)(rng() % (uint64_t)cnt);
    const char *b = spec;
    while (k--) b = strchr(b, '|') + 1;
    const char *e = strchr(b, '|');
    val = eval_n(b, e ? (size_t)(e - b) : strlen(b));
  } else if (dots) {
    int64_t lo = eval_n(spec, (size_t)(dots - spec)), hi = eval(dots + 2);
    if (hi < lo) { manifest_error("empty range for '%s' (%" PRId64 "..%" PRId64 ")", v->name, lo, hi); hi = lo; }
    uint64_t r = rng() % 8;
    val = r == 0 ? lo : r == 1 ? hi : rng_range(lo, hi);
  } else {
    val = eval(spec);
  }
  v->val = val;
  v->state = 2;
  return val;
}

static void setup_vars(const struct sig *sg, const char *args) {
  nvars = 0;
  for (int i = 0; i < sg->np; i++) {
    if (sg->p[i].kind != K_SCALAR) continue;
    if (find_var(sg->p[i].name, strlen(sg->p[i].name))) { manifest_error("duplicate scalar '%s'", sg->p[i].name); return; }
    struct var *v = &vars[nvars];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", sg->p[i].name);
    v->index = nvars++;
  }
  char buf[512];
  snprintf(buf, sizeof buf, "%s", args);
  for (char *save = NULL, *item = strtok_r(buf, ";", &save); item;
       item = strtok_r(NULL, ";", &save)) {
    char *it = trim(item);
    if (!*it) continue;
    char *eq = strchr(it, '=');
    if (!eq) { manifest_error("ARGS item without '=': '%s'", it); return; }
    *eq = 0;
    char *nm = trim(it), *spec = trim(eq + 1);
    struct var *v = find_var(nm, strlen(nm));
    if (!v) {
      if (nvars == MAXVARS) { manifest_error("too many variables"); return; }
      v = &vars[nvars];
      memset(v, 0, sizeof *v);
      snprintf(v->name, sizeof v->name, "%s", nm);
      v->index = nvars++;
    } else if (v->has_spec) { manifest_error("'%s' given twice in ARGS", nm); return; }
    snprintf(v->spec, sizeof v->spec, "%s", spec);
    v->has_spec = 1;
  }
}

/* ------------------------------------------------------------------ buffers */

static uint8_t *in_region[HARNESS_MAXP]; /* [guard page][MAXBYTES][guard page] */
static uint8_t *out_region[2][HARNESS_MAXP];
static size_t page;

static void init_regions(void) {
  page = (size_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < HARNESS_MAXP; i++) {
    size_t len = MAXBYTES + 2 * page;
    uint8_t *r = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED) { perror("mmap"); exit(2); }
    if (mprotect(r, page, PROT_NONE) || mprotect(r + page + MAXBYTES, page, PROT_NONE)) {
      perror("mprotect");
      exit(2);
    }
    in_region[i] = r + page;
    for (int k = 0; k < 2; k++) {
      out_region[k][i] = aligned_alloc(64, MAXBYTES + 2 * GUARD + 128);
      if (!out_region[k][i]) exit(2);
    }
  }
}

static const char *mode_names[] = {"random", "random", "random", "lo", "hi", "lo/hi",
                                   "hi/lo", "edges", "zero", "small"};
#define NMODES ((int)(sizeof mode_names / sizeof mode_names[0]))

static void fill(void *p, int t, size_t cnt, int64_t lo, int64_t hi, int mode) {
  int64_t zero = lo > 0 ? lo : hi < 0 ? hi : 0;
  for (size_t i = 0; i < cnt; i++) {
    int64_t v;
    switch (mode) {
    case 3: v = lo; break;
    case 4: v = hi; break;
    case 5: v = (i & 1) ? hi : lo; break;
    case 6: v = (i & 1) ? lo : hi; break;
    case 7: {
      int64_t c[6] = {lo, hi, lo + (hi > lo), hi - (hi > lo), zero, lo + (hi - lo) / 2};
      v = c[rng() % 6];
      break;
    }
    case 8: v = zero; break;
    case 9: v = zero + rng_range(0, 3); if (v > hi) v = hi; break;
    default: v = rng_range(lo, hi); break;
    }
    store_elt(p, t, i, v);
  }
}

/* ------------------------------------------------------------------ faults */

static char fault_ctx[1024];
static void on_fault(int sig) {
  char msg[1200];
  int len = snprintf(msg, sizeof msg, "%s: FAULT (signal %d) %s\n",
                     cur ? cur->name : "?", sig, fault_ctx);
  if (len > 0) { ssize_t r = write(1, msg, (size_t)len); (void)r; }
  _exit(1);
}

/* ------------------------------------------------------------------ running */

static const char *variant = VARIANT;
static int default_iters = 300;

static int listed(const char *variants, const char *v) {
  const char *plus = strchr(v, '+'); /* "avx2+sse41+sse2": listed for any of them */
  if (plus) {
    char first[32];
    snprintf(first, sizeof first, "%.*s", (int)(plus - v), v);
    return listed(variants, first) || listed(variants, plus + 1);
  }
  size_t len = strlen(v);
  for (const char *p = variants; (p = strstr(p, v)); p += len)
    if ((p == variants || p[-1] == ' ') && (p[len] == 0 || p[len] == ' ')) return 1;
  return 0;
}

static void describe_args(char *out, size_t cap, const struct sig *sg, const int *modes) {
  size_t o = 0;
  o += (size_t)snprintf(out + o, cap - o, "[%s iter=%d]", variant, iter_no);
  for (int i = 0; i < nvars && o < cap; i++)
    o += (size_t)snprintf(out + o, cap - o, " %s=%" PRId64, vars[i].name, vars[i].val);
  for (int i = 0; i < sg->np && o < cap; i++)
    if (sg->p[i].kind == K_IN || sg->p[i].kind == K_IO)
      o += (size_t)snprintf(out + o, cap - o, " arg%d:%s", i + 1, mode_names[modes[i]]);
}

static uint64_t call(any_fn f, const uintptr_t *a) {
  gen_fn g = (gen_fn)f;
  return g(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
}

/* Returns 0 ok, 1 failed. */
static int run_entry(const struct entry *e, int iters) {
  struct sig sg;
  bad = 0;
  parse_sig(e->sig, &sg);
  if (!bad) setup_vars(&sg, e->args);
  if (bad) { printf("%s: BAD MANIFEST: %s\n", e->name, bad_msg); return 1; }
  if (!listed(e->variants, "ref")) { printf("%s: BAD MANIFEST: VARIANTS lacks ref\n", e->name); return 1; }
  if (!e->var) {
    if (listed(e->variants, variant)) { printf("%s: MISSING (corpus.def lists %s)\n", e->name, variant); return 1; }
    printf("%s: skipped\n", e->name);
    return 0;
  }
#ifndef HARNESS_SELF_REF
  if (!listed(e->variants, variant)) { printf("%s: UNLISTED (defined, but corpus.def does not list %s)\n", e->name, variant); return 1; }
#endif
  for (iter_no = 0; iter_no < iters; iter_no++) {
    for (int i = 0; i < nvars; i++) vars[i].state = 0;
    for (int i = 0; i < nvars; i++) resolve(&vars[i]);
    int64_t cnt[HARNESS_MAXP] = {0};
    int modes[HARNESS_MAXP] = {0};
    uintptr_t av[2][HARNESS_MAXP] = {{0}};
    uint8_t *outp[2][HARNESS_MAXP] = {{0}};
    int at_end = iter_no & 1;
    for (int i = 0; i < sg.np && !bad; i++) {
      struct param *p = &sg.p[i];
      if (p->kind == K_SCALAR) {
        int64_t v = find_var(p->name, strlen(p->name))->val;
        av[0][i] = av[1][i] = (uintptr_t)v; /* sign-extended */
        continue;
      }
      cnt[i] = eval(p->expr);
      size_t es = (size_t)types[p->type].size, bytes = (size_t)cnt[i] * es;
      if (cnt[i] < 0 || bytes > MAXBYTES) { manifest_error("buffer %d size %" PRId64 " out of range", i + 1, cnt[i]); break; }
      modes[i] = (int)(rng() % NMODES);
      if (p->kind == K_IN) {
        uint8_t *b = at_end ? in_region[i] + MAXBYTES - bytes : in_region[i];
        fill(b, p->type, (size_t)cnt[i], p->lo, p->hi, modes[i]);
        av[0][i] = av[1][i] = (uintptr_t)b;
      } else {
        size_t off = GUARD + (rng() % 8) * es;
        for (int k = 0; k < 2; k++) {
          outp[k][i] = out_region[k][i] + off;
          for (size_t g = 0; g < GUARD; g++) {
            outp[k][i][-1 - (ptrdiff_t)g] = (uint8_t)(0xA5 ^ g);
            outp[k][i][bytes + g] = (uint8_t)(0x5A ^ g);
          }
          av[k][i] = (uintptr_t)outp[k][i];
        }
        if (p->kind == K_IO) fill(outp[0][i], p->type, (size_t)cnt[i], p->lo, p->hi, modes[i]);
        else for (size_t b = 0; b < bytes; b++) outp[0][i][b] = (uint8_t)rng();
        memcpy(outp[1][i], outp[0][i], bytes);
      }
    }
    if (bad) { printf("%s: BAD MANIFEST: %s\n", e->name, bad_msg); return 1; }
    describe_args(fault_ctx, sizeof fault_ctx, &sg, modes);
    uint64_t rv = call(e->var, av[0]);
    uint64_t rr = call(e->ref, av[1]);
    char where[400] = "";
    if (sg.ret != T_NONE && type_trunc(sg.ret, rv) != type_trunc(sg.ret, rr))
      snprintf(where, sizeof where, "return value: got %" PRId64 " want %" PRId64,
               type_trunc(sg.ret, rv), type_trunc(sg.ret, rr));
    for (int i = 0; i < sg.np && !where[0]; i++) {
      struct param *p = &sg.p[i];
      if (p->kind != K_OUT && p->kind != K_IO) continue;
      size_t bytes = (size_t)cnt[i] * (size_t)types[p->type].size;
      for (int k = 0; k < 2 && !where[0]; k++)
        for (size_t g = 0; g < GUARD; g++)
          if (outp[k][i][-1 - (ptrdiff_t)g] != (uint8_t)(0xA5 ^ g) ||
              outp[k][i][bytes + g] != (uint8_t)(0x5A ^ g)) {
            snprintf(where, sizeof where, "arg%d: %s wrote outside the buffer (%s guard byte %zu)",
                     i + 1, k ? "REFERENCE" : "variant",
                     outp[k][i][-1 - (ptrdiff_t)g] != (uint8_t)(0xA5 ^ g) ? "leading" : "trailing", g);
            break;
          }
      for (int64_t j = 0; j < cnt[i] && !where[0]; j++) {
        int64_t got = load_elt(outp[0][i], p->type, (size_t)j);
        int64_t want = load_elt(outp[1][i], p->type, (size_t)j);
        if (got != want)
          snprintf(where, sizeof where, "arg%d (%s %s[%" PRId64 "]) index %" PRId64 ": got %" PRId64 " want %" PRId64,
                   i + 1, p->kind == K_OUT ? "out" : "io", types[p->type].name, cnt[i], j, got, want);
      }
    }
    if (where[0]) {
      printf("%s: MISMATCH %s: %s\n", e->name, fault_ctx, where);
      return 1;
    }
  }
  printf("%s: ok\n", e->name);
  return 0;
}

/* ------------------------------------------------------------------ --bench */

/* Time the variant: one argument set per function (bench_value), inputs random
 * in their ranges, filled once; batches of calls of about bench_ms each, timed
 * with CLOCK_MONOTONIC (--bench-clock cpu: CLOCK_THREAD_CPUTIME_ID); prints
 * "NAME<TAB>median ns/call<TAB>min<TAB>max<TAB>calls per batch<TAB>arguments"
 * over bench_batches batches.  --bench-set
 * 'NAME:ITEM;ITEM' overrides, for NAME only, a scalar's ARGS spec (VAR=SPEC) or
 * an input buffer's value range (argK=LO..HI, K counted from 1). */
static double bench_ms = 2.0;
static int bench_batches = 9;
static const char *bench_sets[32];
static int nbench_sets;
static volatile uint64_t bench_sink;

static void bench_apply_sets(const struct entry *e, struct sig *sg) {
  size_t len = strlen(e->name);
  for (int k = 0; k < nbench_sets; k++) {
    if (strncmp(bench_sets[k], e->name, len) || bench_sets[k][len] != ':') continue;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", bench_sets[k] + len + 1);
    for (char *save = NULL, *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
      char *it = trim(item), *eq = strchr(it, '=');
      if (!*it) continue;
      if (!eq) { manifest_error("--bench-set item without '=': '%s'", it); return; }
      *eq = 0;
      char *nm = trim(it), *spec = trim(eq + 1);
      int argk;
      if (sscanf(nm, "arg%d", &argk) == 1) {
        struct param *p = argk >= 1 && argk <= sg->np ? &sg->p[argk - 1] : NULL;
        if (!p || p->kind == K_SCALAR || p->kind == K_OUT || !parse_lit_range(spec, &p->lo, &p->hi))
          { manifest_error("bad --bench-set range '%s=%s'", nm, spec); return; }
        continue;
      }
      struct var *v = find_var(nm, strlen(nm));
      if (!v) {
        if (nvars == MAXVARS) { manifest_error("too many variables"); return; }
        v = &vars[nvars];
        memset(v, 0, sizeof *v);
        snprintf(v->name, sizeof v->name, "%s", nm);
        v->index = nvars++;
      }
      snprintf(v->spec, sizeof v->spec, "%s", spec);
      v->has_spec = 1;
    }
  }
}

static clockid_t bench_clock = CLOCK_MONOTONIC; /* --bench-clock cpu: this thread's CPU time */
static double now_ns(void) {
  struct timespec ts;
  clock_gettime(bench_clock, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
static double time_batch(any_fn f, const uintptr_t *a, long reps) {
  uint64_t acc = 0;
  double t0 = now_ns();
  for (long r = 0; r < reps; r++) acc += call(f, a);
  double t = now_ns() - t0;
  bench_sink += acc;
  return t;
}
static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static int run_bench(const struct entry *e) {
  struct sig sg;
  bad = 0;
  parse_sig(e->sig, &sg);
  if (!bad) setup_vars(&sg, e->args);
  if (!bad) bench_apply_sets(e, &sg);
  for (int i = 0; i < nvars && !bad; i++) vars[i].state = 0;
  for (int i = 0; i < nvars && !bad; i++) resolve(&vars[i]);
  uintptr_t av[HARNESS_MAXP] = {0};
  for (int i = 0; i < sg.np && !bad; i++) {
    struct param *p = &sg.p[i];
    if (p->kind == K_SCALAR) { av[i] = (uintptr_t)find_var(p->name, strlen(p->name))->val; continue; }
    int64_t cnt = eval(p->expr);
    size_t bytes = (size_t)cnt * (size_t)types[p->type].size;
    if (cnt < 0 || bytes > MAXBYTES) { manifest_error("buffer %d size %" PRId64 " out of range", i + 1, cnt); break; }
    uint8_t *b = p->kind == K_IN ? in_region[i] : out_region[0][i] + GUARD;
    if (p->kind == K_OUT) for (size_t k = 0; k < bytes; k++) b[k] = (uint8_t)rng();
    else fill(b, p->type, (size_t)cnt, p->lo, p->hi, 0);
    av[i] = (uintptr_t)b;
  }
  if (bad) { printf("%s\tBAD MANIFEST: %s\n", e->name, bad_msg); return 1; }
  if (!e->var) { printf("%s\tskipped\n", e->name); return 0; }
  char desc[400] = "";
  size_t o = 0;
  for (int i = 0; i < nvars && o < sizeof desc; i++)
    o += (size_t)snprintf(desc + o, sizeof desc - o, "%s%s=%" PRId64, i ? " " : "", vars[i].name, vars[i].val);
  snprintf(fault_ctx, sizeof fault_ctx, "[bench %s] %s", variant ? variant : "?", desc);
  double target = bench_ms * 1e6, t = time_batch(e->var, av, 1);
  long reps = 1;
  while (t < target && reps < (1L << 40)) {
    reps = t < target / 10 ? reps * 10 : (long)((double)reps * 1.1 * target / t) + 1;
    t = time_batch(e->var, av, reps);
  }
  double ns[256];
  int nb = bench_batches < 1 ? 1 : bench_batches > 256 ? 256 : bench_batches;
  for (int k = 0; k < nb; k++) ns[k] = time_batch(e->var, av, reps) / (double)reps;
  qsort(ns, (size_t)nb, sizeof ns[0], cmp_double);
  double med = nb & 1 ? ns[nb / 2] : (ns[nb / 2 - 1] + ns[nb / 2]) / 2;
  printf("%s\t%.3f\t%.3f\t%.3f\t%ld\t%s\n", e->name, med, ns[0], ns[nb - 1], reps, desc);
  fflush(stdout);
  return 0;
}

static void print_protos(void) {
  printf("/* generated by harness --protos from corpus.def */\n"
         "#include <stddef.h>\n#include <stdint.h>\n");
  for (int i = 0; i < NENTRIES; i++) {
    struct sig sg;
    bad = 0;
    parse_sig(table[i].sig, &sg);
    if (bad) { fprintf(stderr, "%s: BAD MANIFEST: %s\n", table[i].name, bad_msg); exit(1); }
    char params[600] = "";
    size_t o = 0;
    for (int k = 0; k < sg.np; k++) {
      const struct param *p = &sg.p[k];
      const char *sep = k ? ", " : "";
      if (p->kind == K_SCALAR)
        o += (size_t)snprintf(params + o, sizeof params - o, "%s%s %s", sep, types[p->type].ctype, p->name);
      else
        o += (size_t)snprintf(params + o, sizeof params - o, "%s%s%s *", sep,
                              p->kind == K_IN ? "const " : "", types[p->type].ctype);
    }
    const char *rt = sg.ret == T_NONE ? "void" : types[sg.ret].ctype;
    printf("%s %s(%s);\n%s ref_%s(%s);\n", rt, table[i].name, params[0] ? params : "void",
           rt, table[i].name, params[0] ? params : "void");
  }
}

int main(int argc, char **argv) {
  int iters = default_iters, nsel = 0, failed = 0, ok = 0, skipped = 0;
  const char *sel[64];
  if (getenv("CORPUS_ITERS")) iters = atoi(getenv("CORPUS_ITERS"));
  if (getenv("CORPUS_SEED")) rng_state = strtoull(getenv("CORPUS_SEED"), NULL, 0) | 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--protos")) { print_protos(); return 0; }
    if (!strcmp(argv[i], "--list")) {
      for (int k = 0; k < NENTRIES; k++)
        printf("%s\t%s\t%s\t%s\t%s\n", table[k].name, table[k].theme, table[k].variants,
               table[k].sig, table[k].args);
      return 0;
    }
    if (!strcmp(argv[i], "--iters") && i + 1 < argc) { iters = atoi(argv[++i]); continue; }
    if (!strcmp(argv[i], "--variant") && i + 1 < argc) { variant = argv[++i]; continue; }
    if (!strcmp(argv[i], "--seed") && i + 1 < argc) { rng_state = strtoull(argv[++i], NULL, 0) | 1; continue; }
    if (!strcmp(argv[i], "--bench")) { bench_mode = 1; continue; }
    if (!strcmp(argv[i], "--bench-n") && i + 1 < argc) { bench_n = atoll(argv[++i]); continue; }
    if (!strcmp(argv[i], "--bench-w") && i + 1 < argc) { bench_w = atoll(argv[++i]); continue; }
    if (!strcmp(argv[i], "--bench-h") && i + 1 < argc) { bench_h = atoll(argv[++i]); continue; }
    if (!strcmp(argv[i], "--bench-ms") && i + 1 < argc) { bench_ms = atof(argv[++i]); continue; }
    if (!strcmp(argv[i], "--bench-clock") && i + 1 < argc) { bench_clock = strcmp(argv[++i], "cpu") ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID; continue; }
    if (!strcmp(argv[i], "--bench-batches") && i + 1 < argc) { bench_batches = atoi(argv[++i]); continue; }
    if (!strcmp(argv[i], "--bench-set") && i + 1 < argc) { if (nbench_sets < 32) bench_sets[nbench_sets++] = argv[++i]; else ++i; continue; }
    if (argv[i][0] == '-') { fprintf(stderr, "usage: %s [--variant V] [--iters N] [--seed S] [--protos] [--list] [--bench [--bench-n N] [--bench-w W] [--bench-h H] [--bench-ms MS] [--bench-batches B] [--bench-clock monotonic|cpu] [--bench-set 'NAME:VAR=SPEC;argK=LO..HI']] [NAME|THEME...]\n", argv[0]); return 2; }
    if (nsel < 64) sel[nsel++] = argv[i];
  }
  if (!variant && !bench_mode) { fprintf(stderr, "%s: no variant name (build with -DVARIANT or pass --variant)\n", argv[0]); return 2; }
  init_regions();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fault;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  sigaction(SIGILL, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);
  for (int i = 0; i < NENTRIES; i++) {
    int want = nsel == 0;
    for (int k = 0; k < nsel; k++) want |= !strcmp(sel[k], table[i].name) || !strcmp(sel[k], table[i].theme);
    if (!want) continue;
    cur = &table[i];
    fault_ctx[0] = 0;
    int had_var = table[i].var != NULL;
    if (bench_mode) { failed += run_bench(&table[i]); continue; }
    if (run_entry(&table[i], iters)) failed++;
    else if (had_var) ok++;
    else skipped++;
  }
  cur = NULL;
  if (bench_mode) return failed != 0;
  printf("== %s: %d ok, %d skipped, %d failed\n", variant, ok, skipped, failed);
  return failed != 0;
}
