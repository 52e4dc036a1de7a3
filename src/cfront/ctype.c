/* ctype.c — C types as cfront.h's tine_ctype, interned per file by kind and spelling.
 *
 * The kind and the element come from clang's canonical type (uint8x16_t is a vector of
 * 16 unsigned char, __m128i one of 2 long long); the spelling is the type as the source
 * names it (its typedef kept), and a pointer's or array's element type is taken from the
 * type as written, through its typedefs, so that `const uint8_t *` points to `const
 * uint8_t`, not to `const unsigned char`.
 */
#include "walk.h"

/* The integer or floating type of canonical scalar type c; bits 0 when it has none. */
static tine_type_t scalar_of(CXType c) {
    if (c.kind == CXType_Enum) c = clang_getCanonicalType(clang_getEnumDeclIntegerType(clang_getTypeDeclaration(c)));
    long long size = clang_Type_getSizeOf(c);
    int bits = size > 0 && size <= 16 ? (int)size * 8 : 0;
    tine_type_t t = {TINE_INT, (uint8_t)bits, 1};
    switch (c.kind) {
    case CXType_Bool: /* bool is a byte in memory: u8 */
    case CXType_Char_U:
    case CXType_UChar:
    case CXType_Char16:
    case CXType_Char32:
    case CXType_UShort:
    case CXType_UInt:
    case CXType_ULong:
    case CXType_ULongLong:
    case CXType_UInt128: t.kind = TINE_UINT; return t;
    case CXType_Char_S:
    case CXType_SChar:
    case CXType_WChar:
    case CXType_Short:
    case CXType_Int:
    case CXType_Long:
    case CXType_LongLong:
    case CXType_Int128: return t;
    case CXType_Float:
    case CXType_Double:
    case CXType_Half:
    case CXType_Float16:
    case CXType_BFloat16:
    case CXType_LongDouble:
    case CXType_Float128: t.kind = TINE_FLOAT; return t;
    default: return (tine_type_t){0, 0, 0};
    }
}

bool tine_cw_type_is_int(CXType t) {
    CXType c = clang_getCanonicalType(t);
    if (c.kind == CXType_Enum) return true;
    tine_type_t s = scalar_of(c);
    return s.bits && s.kind != TINE_FLOAT;
}

/* t without its sugar (typedefs, elaborated names, attributes), one step at a time so that
 * what it is made of keeps its own spelling. */
static CXType desugar(CXType t) {
    for (int i = 0; i < 64; i++) {
        CXType n;
        if (t.kind == CXType_Typedef) n = clang_getTypedefDeclUnderlyingType(clang_getTypeDeclaration(t));
        else if (t.kind == CXType_Elaborated) n = clang_Type_getNamedType(t);
        else if (t.kind == CXType_Attributed) n = clang_Type_getModifiedType(t);
        else return t;
        if (n.kind == CXType_Invalid) break;
        t = n;
    }
    return clang_getCanonicalType(t);
}

/* A struct's fields, looked at for the tuple shape (one field `val`, an array). */
typedef struct {
    int n;
    bool val;
    CXType type;
} fields;
static enum CXVisitorResult field_cb(CXCursor c, CXClientData data) {
    fields *fs = data;
    if (fs->n++ == 0) {
        CXString s = clang_getCursorSpelling(c);
        const char *name = clang_getCString(s);
        fs->val = name && strcmp(name, "val") == 0;
        clang_disposeString(s);
        fs->type = clang_getCursorType(c);
    }
    return fs->n > 1 ? CXVisit_Break : CXVisit_Continue;
}

static unsigned hash_str(const char *s, unsigned h) {
    while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static const tine_ctype *intern(tine_cw *w, tine_ctype_kind kind, const char *spelling, bool *fresh, unsigned *slot) {
    unsigned h = hash_str(spelling, 2166136261u ^ (unsigned)kind);
    if (2 * (w->ntypes + 1) > w->captypes) {
        unsigned cap = w->captypes ? 2 * w->captypes : 256;
        tine_cw_tslot *t = tine_xcalloc(cap, sizeof *t);
        for (unsigned i = 0; i < w->captypes; i++) {
            if (!w->types[i].t) continue;
            unsigned j = w->types[i].hash & (cap - 1);
            while (t[j].t) j = (j + 1) & (cap - 1);
            t[j] = w->types[i];
        }
        free(w->types);
        w->types = t;
        w->captypes = cap;
    }
    unsigned j = h & (w->captypes - 1);
    for (; w->types[j].t; j = (j + 1) & (w->captypes - 1))
        if (w->types[j].hash == h && w->types[j].t->kind == kind && strcmp(w->types[j].t->spelling, spelling) == 0) {
            *fresh = false;
            return w->types[j].t;
        }
    *fresh = true;
    *slot = j;
    w->types[j].hash = h;
    return NULL;
}

static tine_ctype_kind kind_of(CXType c) {
    switch (c.kind) {
    case CXType_Void: return TINE_CT_VOID;
    case CXType_Pointer:
    case CXType_BlockPointer: return TINE_CT_PTR;
    case CXType_ConstantArray:
    case CXType_IncompleteArray:
    case CXType_VariableArray:
    case CXType_DependentSizedArray: return TINE_CT_ARRAY;
    case CXType_Vector:
    case CXType_ExtVector: return TINE_CT_VECTOR;
    case CXType_Record: return TINE_CT_STRUCT; /* or TUPLE: looked at below */
    default: break;
    }
    tine_type_t s = scalar_of(c);
    if (!s.bits) return TINE_CT_OTHER;
    return s.kind == TINE_FLOAT ? TINE_CT_FLOAT : TINE_CT_INT;
}

static const tine_ctype *type_of(tine_cw *w, CXType t, int depth) {
    CXType c = clang_getCanonicalType(t);
    tine_ctype_kind kind = kind_of(c);
    fields fs = {0};
    if (kind == TINE_CT_STRUCT) {
        clang_Type_visitFields(c, field_cb, &fs);
        CXType ft = clang_getCanonicalType(fs.type);
        if (fs.n == 1 && fs.val && ft.kind == CXType_ConstantArray &&
            clang_getCanonicalType(clang_getArrayElementType(ft)).kind == CXType_Vector)
            kind = TINE_CT_TUPLE;
    }
    CXString sp = clang_getTypeSpelling(t);
    const char *spelling = clang_getCString(sp);
    if (!spelling) spelling = "";
    bool fresh;
    unsigned slot = 0;
    const tine_ctype *old = intern(w, kind, spelling, &fresh, &slot);
    if (!fresh) {
        clang_disposeString(sp);
        return old;
    }
    tine_ctype *ct = tine_arena_alloc(w->arena, sizeof *ct);
    ct->kind = kind;
    ct->spelling = tine_arena_strdup(w->arena, spelling, strlen(spelling));
    clang_disposeString(sp);
    /* in the table before its parts are: a struct's pointer to itself is not followed, but
       the parts' own interning may grow (move) the table, so the slot is filled first */
    w->types[slot].t = ct;
    w->ntypes++;
    CXType d = desugar(t);
    switch (kind) {
    case TINE_CT_INT:
    case TINE_CT_FLOAT: ct->elem = scalar_of(c); break;
    case TINE_CT_PTR: {
        CXType p = clang_getPointeeType(d.kind == c.kind ? d : c);
        /* through typedefs too: `cint *` of typedef const int cint */
        ct->is_const = clang_isConstQualifiedType(p) || clang_isConstQualifiedType(clang_getCanonicalType(p));
        /* deeper than any C a person writes: the rest is OTHER, not a stack overflow */
        if (depth < 32) ct->pointee = type_of(w, p, depth + 1);
        break;
    }
    case TINE_CT_ARRAY: {
        CXType e = clang_getArrayElementType(d.kind == c.kind ? d : c);
        long long n = clang_getArraySize(c);
        ct->count = n > 0 && n <= INT32_MAX ? (int)n : 0;
        if (depth < 32) ct->pointee = type_of(w, e, depth + 1);
        break;
    }
    case TINE_CT_VECTOR: {
        long long n = clang_getNumElements(c);
        ct->elem = scalar_of(clang_getCanonicalType(clang_getElementType(c)));
        ct->elem.lanes = n > 0 && n <= 65535 ? (uint16_t)n : 0;
        break;
    }
    case TINE_CT_TUPLE: {
        CXType ft = clang_getCanonicalType(fs.type);
        long long n = clang_getArraySize(ft);
        ct->count = n > 0 && n <= INT32_MAX ? (int)n : 0;
        /* the vector's type as the field names it (uint8x16_t) */
        CXType v = desugar(fs.type);
        CXType ve = clang_getArrayElementType(v.kind == CXType_ConstantArray ? v : ft);
        if (depth < 32) {
            ct->pointee = type_of(w, ve, depth + 1);
            ct->elem = ct->pointee->elem;
        }
        break;
    }
    default: break;
    }
    return ct;
}

const tine_ctype *tine_cw_type(tine_cw *w, CXType t) { return type_of(w, t, 0); }

void tine_cw_types_free(tine_cw *w) {
    free(w->types);
    w->types = NULL;
    w->ntypes = w->captypes = 0;
}
