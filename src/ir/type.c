/* type.c — element kind × bits × lanes, and the helpers every pass uses on them. */
#include "../internal.h"

static const tine_type_t INVALID = {0, 0, 0};

tine_type_t tine_type(tine_kind_t kind, int bits, int lanes) {
    /* range-check before narrowing to the struct's fields (lanes 65537 is not 1) */
    if ((int)kind < 0 || (int)kind > TINE_BOOL || bits < 0 || bits > 255 || lanes < 1 || lanes > TINE_MAX_LANES)
        return INVALID;
    tine_type_t t = {(uint8_t)kind, (uint8_t)bits, (uint16_t)lanes};
    if (!tine_type_valid(t)) return INVALID;
    return t;
}

int tine_type_valid(tine_type_t t) {
    if (t.lanes < 1 || t.lanes > TINE_MAX_LANES) return 0;
    switch (t.kind) {
    case TINE_UINT:
    case TINE_INT: return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64 || t.bits == 128;
    case TINE_FLOAT: return t.bits == 32 || t.bits == 64;
    case TINE_BOOL: return t.bits == 1;
    }
    return 0;
}

int tine_type_eq(tine_type_t a, tine_type_t b) {
    return a.kind == b.kind && a.bits == b.bits && a.lanes == b.lanes;
}

int tine_type_is_int(tine_type_t t) { return t.kind == TINE_UINT || t.kind == TINE_INT; }

tine_type_t tine_type_with_lanes(tine_type_t t, int lanes) {
    return tine_type((tine_kind_t)t.kind, t.bits, lanes);
}

tine_type_t tine_type_with_kind(tine_type_t t, tine_kind_t kind) {
    if (!tine_type_is_int(t) || (kind != TINE_UINT && kind != TINE_INT)) return INVALID;
    return tine_type(kind, t.bits, t.lanes);
}

tine_type_t tine_type_widen(tine_type_t t) {
    if (!tine_type_is_int(t) || t.bits >= 128) return INVALID;
    return tine_type((tine_kind_t)t.kind, t.bits * 2, t.lanes);
}

tine_type_t tine_type_narrow(tine_type_t t) {
    if (!tine_type_is_int(t) || t.bits <= 8) return INVALID;
    return tine_type((tine_kind_t)t.kind, t.bits / 2, t.lanes);
}

tine_i128 tine_min_i128(tine_type_t t) {
    if (t.kind != TINE_INT) return 0;
    /* -2^(bits-1) through unsigned arithmetic: negating 2^127 as an i128 would overflow */
    return (tine_i128)~(((tine_u128)1 << (t.bits - 1)) - 1);
}

tine_i128 tine_max_i128(tine_type_t t) {
    if (t.kind == TINE_BOOL) return 1;
    if (t.kind == TINE_INT) return (tine_i128)(((tine_u128)1 << (t.bits - 1)) - 1);
    /* u128 max does not fit a signed 128-bit value; callers never ask for it exactly */
    if (t.bits >= 128) return (tine_i128)(~(tine_u128)0 >> 1);
    return (tine_i128)(((tine_u128)1 << t.bits) - 1);
}

int64_t tine_type_min(tine_type_t t) {
    if (!tine_type_is_int(t) || t.bits > 64) return 0;
    return (int64_t)tine_min_i128(t);
}

uint64_t tine_type_max(tine_type_t t) {
    if (!(tine_type_is_int(t) || t.kind == TINE_BOOL) || t.bits > 64) return 0;
    return (uint64_t)tine_max_i128(t);
}

bool tine_fits(tine_type_t t, tine_i128 v) {
    if (t.kind == TINE_BOOL) return v == 0 || v == 1;
    if (t.kind == TINE_UINT && t.bits == 128) return v >= 0;
    if (t.kind == TINE_INT && t.bits == 128) return true;
    return v >= tine_min_i128(t) && v <= tine_max_i128(t);
}

double tine_float_of_bits(tine_type_t t, tine_u128 v) {
    if (t.bits == 32) {
        uint32_t w = (uint32_t)v;
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    uint64_t w = (uint64_t)v;
    double d;
    memcpy(&d, &w, 8);
    return d;
}

tine_u128 tine_bits_of_float(tine_type_t t, double d) {
    if (t.bits == 32) {
        float f = (float)d;
        uint32_t w;
        memcpy(&w, &f, 4);
        return w;
    }
    uint64_t w;
    memcpy(&w, &d, 8);
    return w;
}

uint64_t tine_float_to_bits(tine_type_t t, double value) { return (uint64_t)tine_bits_of_float(t, value); }

tine_u128 tine_canon(tine_type_t t, tine_u128 v) {
    int bits = t.bits;
    if (bits >= 128) return v;
    tine_u128 mask = ((tine_u128)1 << bits) - 1;
    v &= mask;
    if (t.kind == TINE_INT && (v >> (bits - 1)) & 1) v |= ~mask;
    return v;
}

tine_type_t tine_type_join(tine_type_t a, tine_type_t b) {
    if (!tine_type_is_int(a) || !tine_type_is_int(b)) return INVALID;
    int lanes = a.lanes;
    if (a.kind == b.kind) return tine_type((tine_kind_t)a.kind, a.bits > b.bits ? a.bits : b.bits, lanes);
    tine_type_t s = a.kind == TINE_INT ? a : b, u = a.kind == TINE_INT ? b : a;
    if (s.bits > u.bits) return tine_type(TINE_INT, s.bits, lanes);
    return tine_type(TINE_INT, u.bits * 2, lanes);
}

const char *tine_type_name(tine_type_t t, char buf[16]) {
    switch (t.kind) {
    case TINE_UINT: snprintf(buf, 16, "u%d", t.bits); break;
    case TINE_INT: snprintf(buf, 16, "i%d", t.bits); break;
    case TINE_FLOAT: snprintf(buf, 16, "f%d", t.bits); break;
    case TINE_BOOL: snprintf(buf, 16, "bool"); break;
    default: snprintf(buf, 16, "?"); break;
    }
    return buf;
}

char *tine_type_str(tine_type_t t, char *buf, size_t n) {
    char e[16];
    tine_type_name(t, e);
    if (t.lanes == 1) snprintf(buf, n, "%s", e);
    else snprintf(buf, n, "%sx%d", e, t.lanes);
    return buf;
}

int tine_parse_type_name(const char *s, size_t n, tine_type_t *out) {
    if (n == 4 && memcmp(s, "bool", 4) == 0) {
        *out = tine_type(TINE_BOOL, 1, 1);
        return 1;
    }
    if (n < 2 || n > 4) return 0;
    tine_kind_t k;
    if (s[0] == 'u') k = TINE_UINT;
    else if (s[0] == 'i') k = TINE_INT;
    else if (s[0] == 'f') k = TINE_FLOAT;
    else return 0;
    int bits = 0;
    for (size_t i = 1; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        bits = bits * 10 + (s[i] - '0');
    }
    if (s[1] == '0') return 0;
    tine_type_t t = tine_type(k, bits, 1);
    if (!tine_type_valid(t)) return 0;
    *out = t;
    return 1;
}
