/* specs.c — what `tine synth lower` searches lowerings for: every FPIR op at every element
 * type its signature admits (from the op table, include/tine_ops.h), the primitive ops
 * whose instructions x86 has only at some types (min, max), variants under the operand
 * bounds the hand rules' predicates name, and windows of several ops that one
 * instruction computes (pairs of products, grouped sums: psadbw, pmaddwd).
 *
 * A spec is a template: $0..$3 are its variables (x y z w, typed), $c a count that is one
 * value in every lane (a shift; the rule's constant wildcard c0), @F the lane count of a
 * sum of groups of F lanes. synth_spec_text writes it at some lane count for the parser;
 * synth_spec_pattern as a rule's left side (whose grouped sums are written at 8 lanes).
 */
#include "synth.h"

static const char *const VAR[] = {"x", "y", "z", "w", "c0"};

typedef struct {
    synth_spec *v;
    size_t n, cap;
} list;

static const tine_type_t *types8(void) {
    static tine_type_t t[8];
    static const int bits[] = {8, 16, 32, 64};
    for (int i = 0; i < 8; i++) t[i] = tine_type(i % 2 ? TINE_INT : TINE_UINT, bits[i / 2], 1);
    return t;
}

static char *tname(tine_type_t t, char b[16]) { return (char *)tine_type_name(tine_type_with_lanes(t, 1), b); }

/* A spec of template tmpl on variables of types ts (nv of them; a `$c` count is the last). */
static synth_spec *add(list *L, const char *name, const char *tmpl, int nv, const tine_type_t *ts) {
    synth_spec s = {0};
    snprintf(s.tmpl, sizeof s.tmpl, "%s", tmpl);
    snprintf(s.name, sizeof s.name, "%s", name);
    s.nvars = nv;
    for (int k = 0; k < nv; k++) {
        s.type[k] = tine_type_with_lanes(ts[k], 1);
        s.var[k] = VAR[k];
    }
    if (strstr(tmpl, "$c")) {
        s.var[nv - 1] = VAR[4];
        s.uniform[nv - 1] = true;
    }
    s.swizzle = strstr(tmpl, "widening_mul") || strstr(tmpl, "@") || strstr(tmpl, " + ");
    TINE_PUSH(L->v, L->n, L->cap, s);
    return &L->v[L->n - 1];
}

static void range(synth_spec *s, int k, int64_t lo, int64_t hi, const char *pred) {
    s->lo[k] = lo;
    s->hi[k] = hi;
    snprintf(s->pred, sizeof s->pred, "%s", pred);
    s->priority = 1;
}

static bool valid(tine_type_t t) { return tine_type_valid(t) && t.bits >= 8 && t.bits <= 64; }

/* The FPIR ops at type t. */
static void fpir_specs(list *L, tine_type_t t) {
    char b[16], name[48], tmpl[128];
    tine_type_t u = tine_type_with_kind(t, TINE_UINT), w = tine_type_widen(t);
    for (int op = TINE_FPIR_FIRST; op < TINE_FPIR_FIRST + TINE_FPIR_COUNT; op++) {
        const tine_fpir_info *f = &tine_fpir_table[op - TINE_FPIR_FIRST];
        snprintf(name, sizeof name, "%s_%s", f->name, tname(t, b));
        tine_type_t tt[3] = {t, t, u};
        switch (f->sig) {
        case TINE_SIG_SAME2:
        case TINE_SIG_SAME2_UNSIGNED:
            snprintf(tmpl, sizeof tmpl, "%s($0, $1)", f->name);
            add(L, name, tmpl, 2, tt);
            break;
        case TINE_SIG_SAME2_WIDE:
        case TINE_SIG_SAME2_WIDE_SGN:
        case TINE_SIG_MIXED2_WIDE:
            if (!valid(w)) break;
            snprintf(tmpl, sizeof tmpl, "%s($0, $1)", f->name);
            add(L, name, tmpl, 2, tt);
            if (f->sig == TINE_SIG_MIXED2_WIDE && t.kind == TINE_UINT) {
                tine_type_t m[2] = {t, tine_type_with_kind(t, TINE_INT)};
                snprintf(name, sizeof name, "%s_%s_%s", f->name, tname(t, b), "signed");
                add(L, name, tmpl, 2, m);
            }
            break;
        case TINE_SIG_UNARY_UNSIGNED:
            if (t.kind != TINE_INT) break;
            snprintf(tmpl, sizeof tmpl, "%s($0)", f->name);
            add(L, name, tmpl, 1, tt);
            break;
        case TINE_SIG_NARROW:
            if (t.bits < 16) break;
            snprintf(tmpl, sizeof tmpl, "%s($0)", f->name);
            add(L, name, tmpl, 1, tt);
            break;
        case TINE_SIG_CAST_PARAM:
            /* to every other type from a quarter of the width to the same width */
            for (int i = 0; i < 8; i++) {
                tine_type_t to = types8()[i];
                if (to.bits > t.bits || 4 * to.bits < t.bits || (to.bits == t.bits && to.kind == t.kind)) continue;
                char b2[16];
                snprintf(name, sizeof name, "%s_%s_%s", f->name, tname(t, b), tname(to, b2));
                snprintf(tmpl, sizeof tmpl, "saturating_cast<%s>($0)", b2);
                add(L, name, tmpl, 1, tt);
            }
            break;
        case TINE_SIG_SHIFT:
            if (op != TINE_OP_ROUNDING_SHR) break; /* the other shifts LLVM's own lowering serves */
            snprintf(tmpl, sizeof tmpl, "%s($0, $c)", f->name);
            snprintf(name, sizeof name, "%s_%s_const", f->name, tname(t, b));
            {
                synth_spec *s = add(L, name, tmpl, 2, tt);
                s->lo[1] = 1;
                s->hi[1] = t.bits - 1;
                snprintf(s->pred, sizeof s->pred, "c0 >= 1 && c0 < %d", t.bits);
            }
            /* and by a count of its own in each lane, unsigned(T) as the kernels' counts */
            snprintf(tmpl, sizeof tmpl, "%s($0, $1)", f->name);
            snprintf(name, sizeof name, "%s_%s", f->name, tname(t, b));
            add(L, name, tmpl, 2, (tine_type_t[]){t, u})->shift_var = true;
            break;
        case TINE_SIG_MULSHR:
            /* the high half, and the rounded Q format (one bit less) */
            if (t.bits > 32) break;
            snprintf(tmpl, sizeof tmpl, "%s($0, $1, %d)", f->name, op == TINE_OP_MUL_SHR ? t.bits : t.bits - 1);
            add(L, name, tmpl, 2, tt);
            if (op == TINE_OP_ROUNDING_MUL_SHR) {
                /* and the high half rounded (a u16 average's reciprocal multiply) */
                snprintf(tmpl, sizeof tmpl, "%s($0, $1, %d)", f->name, t.bits);
                snprintf(name, sizeof name, "%s_%s_by%d", f->name, tname(t, b), t.bits);
                add(L, name, tmpl, 2, tt);
            }
            if (op == TINE_OP_MUL_SHR) {
                /* and shifted further: the high half shifted by c0 - bits */
                snprintf(tmpl, sizeof tmpl, "%s($0, $1, $c)", f->name);
                snprintf(name, sizeof name, "%s_%s_high", f->name, tname(t, b));
                synth_spec *s = add(L, name, tmpl, 3, tt);
                s->lo[2] = t.bits + 1;
                s->hi[2] = 2 * t.bits - 1;
                snprintf(s->pred, sizeof s->pred, "c0 > %d && c0 < %d", t.bits, 2 * t.bits);
            }
            break;
        default: break;
        }
    }
}

static void window_specs(list *L) {
    const tine_type_t *T = types8();
    tine_type_t u8 = T[0], i8 = T[1], i16 = T[3];
    tine_type_t q4[4] = {i16, i16, i16, i16};
    add(L, "widening_mul_pair_i16", "widening_mul($0, $1) + widening_mul($2, $3)", 4, q4)->insns_only = true;
    tine_type_t ui[2] = {u8, i8};
    add(L, "sum2_widening_mul_i16", "vector_reduce_add(widening_mul($0, $1), @2)", 2, q4);
    add(L, "sum2_widen_i16", "vector_reduce_add(i32($0), @2)", 1, q4);
    add(L, "sum4_widening_mul_u8_i8", "vector_reduce_add(i32(widening_mul($0, $1)), @4)", 2, ui);
    tine_type_t uu[2] = {u8, u8};
    add(L, "sum8_absd_u8_u64", "vector_reduce_add(u64(absd($0, $1)), @8)", 2, uu);
    add(L, "sum8_absd_u8_u32", "vector_reduce_add(u32(absd($0, $1)), @8)", 2, uu);
    add(L, "sum8_absd_u8_u16", "vector_reduce_add(u16(absd($0, $1)), @8)", 2, uu);
}

/* The variants under bounds: the operand ranges the hand rules' predicates name. */
static void bounded_specs(list *L) {
    const tine_type_t *T = types8();
    tine_type_t i16[2] = {T[3], T[3]}, u16[2] = {T[2], T[2]}, u32[1] = {T[4]};
    range(add(L, "rounding_mul_shr_i16_nomin", "rounding_mul_shr($0, $1, 15)", 2, i16), 0, -32767, 32767,
          "lower_bounded(x, -32767)");
    range(add(L, "saturating_narrow_u16_small", "saturating_narrow($0)", 1, u16), 0, 0, 32767,
          "upper_bounded(x, 32767)");
    range(add(L, "saturating_narrow_u32_small", "saturating_narrow($0)", 1, u32), 0, 0, 2147483647,
          "upper_bounded(x, 2147483647)");
    /* a narrow that can overflow by one only, at the top (a Q31 product rounded, whose
       range is [-2^31 + 1, 2^31]: INT_MIN * INT_MIN alone reaches 2^31) */
    tine_type_t i64[1] = {T[7]};
    range(add(L, "saturating_narrow_i64_top", "saturating_narrow($0)", 1, i64), 0, -2147483647ll, 2147483648ll,
          "lower_bounded(x, -2147483647) && upper_bounded(x, 2147483648)");
    /* and one that cannot overflow (a Q31 product of operands bounds keep small) */
    range(add(L, "saturating_narrow_i64_small", "saturating_narrow($0)", 1, i64), 0, -2147483648ll, 2147483647ll,
          "lower_bounded(x, -2147483648) && upper_bounded(x, 2147483647)");
    /* a rounding shift whose rounding term cannot carry out of the type: x at most half
       the type's range, the count below its width (mul's shift after its Q31 multiply) */
    tine_type_t iu32[2] = {T[5], T[4]};
    synth_spec *r = add(L, "rounding_shr_i32_small", "rounding_shr($0, $1)", 2, iu32);
    range(r, 0, INT32_MIN, 1073741823, "upper_bounded(x, 1073741823) && upper_bounded(y, 31)");
    r->lo[1] = 0;
    r->hi[1] = 31;
    r->shift_var = true;
    synth_spec *s = add(L, "widening_mul_u16_small", "widening_mul($0, $1)", 2, u16);
    range(s, 0, 0, 32767, "upper_bounded(x, 32767) && upper_bounded(y, 32767)");
    s->lo[1] = 0;
    s->hi[1] = 32767;
}

size_t synth_specs(synth_spec **out) {
    list L = {0};
    const tine_type_t *T = types8();
    char b[16], name[48];
    for (int i = 0; i < 8; i++) {
        tine_type_t tt[2] = {T[i], T[i]};
        snprintf(name, sizeof name, "min_%s", tname(T[i], b));
        add(&L, name, "min($0, $1)", 2, tt);
        snprintf(name, sizeof name, "max_%s", tname(T[i], b));
        add(&L, name, "max($0, $1)", 2, tt);
        fpir_specs(&L, T[i]);
    }
    window_specs(&L);
    bounded_specs(&L);
    *out = L.v;
    return L.n;
}

/* The template with $k replaced (text: every occurrence typed by suffix at `lanes`;
 * pattern: the first `x:T`, then `x`) and @F by the group sum's lanes. */
static void expand(tine_buf *b, const synth_spec *s, int lanes, bool pattern, bool generic) {
    bool seen[SYNTH_MAX_VARS] = {0};
    char tn[16];
    for (const char *p = s->tmpl; *p; p++) {
        if (*p == '$') {
            int k = p[1] == 'c' ? s->nvars - 1 : p[1] - '0';
            p++;
            if (!pattern) tine_buf_printf(b, "%s_%sx%d", s->var[k], tname(s->type[k], tn), lanes);
            else if (!seen[k] && !s->uniform[k]) tine_buf_printf(b, "%s:%s", s->var[k], generic ? "T" : tname(s->type[k], tn));
            else tine_buf_puts(b, s->var[k]);
            seen[k] = true;
        } else if (*p == '@') {
            int f = p[1] - '0';
            p++;
            tine_buf_printf(b, "%d", (pattern ? 8 : lanes) / f);
        } else {
            tine_buf_putc(b, *p);
        }
    }
}

void synth_spec_text(tine_buf *b, const synth_spec *s, int lanes) { expand(b, s, lanes, false, false); }

void synth_spec_pattern(tine_buf *b, const synth_spec *s) { expand(b, s, 8, true, false); }

void synth_spec_pattern_generic(tine_buf *b, const synth_spec *s) { expand(b, s, 8, true, true); }

bool synth_spec_is_prim(const synth_spec *s) { return !strncmp(s->tmpl, "min(", 4) || !strncmp(s->tmpl, "max(", 4); }
