/* cfront.c — a C file parsed by libclang, handed back as cfront.h's tree.
 *
 * The text is always given to clang as an unsaved file (read here when the caller gives
 * none), so that the offsets of the tree are offsets of the text the caller gets back.
 * Clang's own headers (arm_neon.h, immintrin.h) live in its resource directory, which
 * libclang finds from where the library is installed; the parse passes one explicitly
 * (tine_cfront_resource_dir) so that a libclang installed elsewhere, or one whose guess
 * is wrong, still finds them. For a cross triple, Debian's cross libc headers
 * (/usr/<triple>/include, libc6-dev-arm64-cross) are added after the system directories:
 * clang finds them itself only through a cross gcc's installation.
 *
 * The first diagnostic of severity error or fatal fails the parse with a located message;
 * warnings are ignored; libclang prints nothing (clang_createIndex without display).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <unistd.h>

#include "walk.h"

/* The resource directory of the libclang this process runs with: the build's (CMake asks
 * clang-19 -print-resource-dir), else the places Debian and LLVM's own packages use for
 * libclang's major version. A directory counts when it has include/stddef.h. */
static bool has_headers(const char *dir) {
    char p[4096];
    int n = snprintf(p, sizeof p, "%s/include/stddef.h", dir);
    return n > 0 && (size_t)n < sizeof p && access(p, R_OK) == 0;
}

const char *tine_cfront_resource_dir(void) {
#ifdef TINE_CLANG_RESOURCE_DIR
    if (has_headers(TINE_CLANG_RESOURCE_DIR)) return TINE_CLANG_RESOURCE_DIR;
#endif
    /* "Debian clang version 19.1.7 (...)": the major version names the directories */
    static _Thread_local char dir[256];
    CXString v = clang_getClangVersion();
    const char *s = clang_getCString(v), *at = s ? strstr(s, "version ") : NULL;
    int major = at ? atoi(at + 8) : 0;
    clang_disposeString(v);
    if (major <= 0) return NULL;
    static const char *const forms[] = {"/usr/lib/llvm-%d/lib/clang/%d", "/usr/lib/clang/%d", "/usr/local/lib/clang/%d"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        snprintf(dir, sizeof dir, forms[i], major, major);
        if (has_headers(dir)) return dir;
    }
    return NULL;
}

/* The whole file, NUL-terminated (malloc'd); NULL with errno. */
static char *read_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    size_t n = 0, cap = 65536;
    char *p = tine_xmalloc(cap + 1);
    for (size_t got; (got = fread(p + n, 1, cap - n, fp)) > 0;) {
        n += got;
        if (n == cap) p = tine_xrealloc(p, (cap *= 2) + 1);
    }
    int err = ferror(fp) ? (errno ? errno : EIO) : 0;
    fclose(fp);
    if (err) {
        free(p);
        errno = err;
        return NULL;
    }
    p[n] = 0;
    *len = n;
    return p;
}

void tine_cfile_free(tine_cfile *f) {
    if (!f) return;
    if (f->tu) clang_disposeTranslationUnit(f->tu);
    if (f->index) clang_disposeIndex(f->index);
    tine_arena_free(&f->arena);
    free(f);
}

/* Clang's first error or fatal error as the context's error; false when there is none. */
static bool first_error(tine_ctx_t *ctx, tine_cfile *f) {
    CXFile main = clang_getFile(f->tu, f->path);
    unsigned n = clang_getNumDiagnostics(f->tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic d = clang_getDiagnostic(f->tu, i);
        if (clang_getDiagnosticSeverity(d) < CXDiagnostic_Error) {
            clang_disposeDiagnostic(d);
            continue;
        }
        CXString msg = clang_getDiagnosticSpelling(d);
        const char *m = clang_getCString(msg);
        if (!m) m = "error";
        /* where the text is written: a macro argument's place, a macro body's call */
        CXFile file;
        unsigned line, col, off;
        clang_getFileLocation(clang_getDiagnosticLocation(d), &file, &line, &col, &off);
        if (file && main && clang_File_isEqual(file, main)) {
            tine_cpos p = tine_cfile_pos(f, off);
            tine_diag(ctx, &f->src, p.line, p.col, "%s", m);
        } else if (file) {
            CXString name = clang_getFileName(file);
            tine_set_error(ctx, "%s:%u:%u: %s", clang_getCString(name), line, col, m);
            clang_disposeString(name);
        } else tine_set_error(ctx, "%s: %s", f->path, m);
        clang_disposeString(msg);
        clang_disposeDiagnostic(d);
        return true;
    }
    return false;
}

static tine_cfile *parse(tine_ctx_t *ctx, const char *path, const char *text, const char *const *args, int nargs,
                         const char *triple) {
    if (!path || nargs < 0 || (nargs && !args)) {
        tine_set_error(ctx, "tine_cfront_parse: no file, or a negative number of arguments");
        return NULL;
    }
    size_t len = 0;
    char *owned = NULL;
    if (!text) {
        owned = read_file(path, &len);
        if (!owned) {
            tine_set_error(ctx, "%s: cannot read the file: %s", path, strerror(errno));
            return NULL;
        }
        text = owned;
    } else len = strlen(text);
    if (len > UINT32_MAX / 2) {
        free(owned);
        tine_set_limit_error(ctx, "%s: %zu bytes is more than the C front end reads (2 GiB)", path, len);
        return NULL;
    }

    tine_cfile *f = tine_xcalloc(1, sizeof *f);
    f->path = tine_arena_strdup(&f->arena, path, strlen(path));
    f->text = tine_arena_strdup(&f->arena, text, len);
    f->len = len;
    free(owned);
    int nlines = 1;
    for (size_t i = 0; i < len; i++) nlines += f->text[i] == '\n';
    f->line_at = tine_arena_alloc(&f->arena, (size_t)nlines * sizeof *f->line_at);
    f->nlines = 0;
    f->line_at[f->nlines++] = 0;
    for (size_t i = 0; i < len; i++)
        if (f->text[i] == '\n') f->line_at[f->nlines++] = i + 1;
    f->src = (tine_src){f->path, f->text, f->line_at, f->nlines};

    /* our arguments first, so that the caller's (-x, -std, -resource-dir ...) win */
    const char **argv = tine_xmalloc(((size_t)nargs + 8) * sizeof *argv);
    int n = 0;
    argv[n++] = "-x";
    argv[n++] = "c";
    bool own_rd = false;
    for (int i = 0; i < nargs; i++) own_rd |= args[i] && strncmp(args[i], "-resource-dir", 13) == 0;
    const char *rd = own_rd ? NULL : tine_cfront_resource_dir();
    if (rd) {
        argv[n++] = "-resource-dir";
        argv[n++] = rd;
    }
    char target[256], cross[300];
    if (triple && !*triple) triple = NULL; /* "": the host's, as NULL */
    if (triple) {
        snprintf(target, sizeof target, "--target=%s", triple);
        argv[n++] = target;
        snprintf(cross, sizeof cross, "/usr/%s/include", triple);
        if (!strchr(triple, '/') && access(cross, R_OK) == 0) {
            argv[n++] = "-idirafter";
            argv[n++] = cross;
        }
    }
    for (int i = 0; i < nargs; i++)
        if (args[i]) argv[n++] = args[i];

    f->index = clang_createIndex(0, 0);
    struct CXUnsavedFile unsaved = {f->path, f->text, (unsigned long)len};
    enum CXErrorCode rc = clang_parseTranslationUnit2(
        f->index, f->path, argv, n, &unsaved, 1,
        CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles, &f->tu);
    free(argv);
    if (rc != CXError_Success || !f->tu) {
        tine_set_error(ctx, "%s: libclang could not parse the file (error %d): is the target triple (%s) or an "
                       "argument wrong?", path, (int)rc, triple ? triple : "the host's");
        f->tu = NULL;
        tine_cfile_free(f);
        return NULL;
    }
    if (first_error(ctx, f) || !tine_cw_walk(ctx, f)) {
        tine_cfile_free(f);
        return NULL;
    }
    return f;
}

tine_cfile *tine_cfront_parse(tine_ctx_t *ctx, const char *path, const char *text, const char *const *args,
                              int nargs, const char *triple) {
    tine_cfile *f;
    TINE_GUARD(ctx, NULL, f, parse(ctx, path, text, args, nargs, triple));
    return f;
}

const char *tine_cfile_text(const tine_cfile *f, size_t *len) {
    if (len) *len = f->len;
    return f->text;
}
const char *tine_cfile_path(const tine_cfile *f) { return f->path; }
int tine_cfile_nfuncs(const tine_cfile *f) { return f->nfuncs; }
const tine_cfunc *tine_cfile_func(const tine_cfile *f, int i) { return i >= 0 && i < f->nfuncs ? f->funcs[i] : NULL; }
int tine_cfile_nincludes(const tine_cfile *f) { return f->nincs; }
const tine_cinclude *tine_cfile_include(const tine_cfile *f, int i) {
    return i >= 0 && i < f->nincs ? &f->incs[i] : NULL;
}
tine_cpos tine_cfile_pos(const tine_cfile *f, unsigned off) { return tine_cw_pos(f, off); }

void tine_cfile_error(tine_ctx_t *ctx, const tine_cfile *f, tine_cpos at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tine_vdiag(ctx, &f->src, at.line, at.col, fmt, ap);
    va_end(ap);
}
