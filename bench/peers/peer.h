/* peer.h — a peer: another compiler's ahead-of-time build of the benchmark kernels, in a
 * shared object that `tine bench` and the tests load (dlopen) by path.
 *
 * A peer module exports `tine_peer_entries`, a table with one entry per kernel and tine
 * target row (or one entry for every row, for a library that picks its instructions when
 * it runs, as OpenCV and XNNPACK do). An entry binds a benchmark case (cases.h: the same buffers and parameter
 * values the tine kernels and the C references get) once, and then runs as often as it is
 * timed. The interface is plain C so that tine, a C program, needs no peer's headers.
 */
#ifndef TINE_BENCH_PEER_H
#define TINE_BENCH_PEER_H
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../ref/cases.h"

typedef struct peer_call peer_call;
typedef struct peer_entry peer_entry;

struct peer_entry {
    const char *kernel;      /* bench/kernels/NAME.tine */
    /* the tine target row: "x86-64-sse2" ... "x86-64-avx512"; NULL: every row (the same
     * code, which chooses its instructions at run time) */
    const char *target;
    const char *peer_target; /* the peer's own name for the code it built */
    /* nonzero when this machine runs the entry's code */
    int (*runs_here)(const peer_entry *e);
    /* how long the peer took to compile the entry ahead of time, ms; negative if unknown */
    double (*compile_ms)(const peer_entry *e);
    /* The case bound to the kernel, writing into out (c->out's geometry); NULL with a
     * message in err when the two disagree (names, types, dimensions) or memory runs out. */
    peer_call *(*bind)(const peer_entry *e, const bench_case *c, void *out, char *err, size_t n);
    int (*run)(peer_call *call); /* 0, or the peer's error code */
    void (*unbind)(peer_call *call);
    const void *impl; /* the peer's own data */
    /* Where the peer's definition differs from the kernel's (rounding, requantization in
     * float, border rules): what differs, said in the bench's notes, and the largest
     * |peer - kernel| it allows; NULL and 0 for a peer that computes the kernel exactly. */
    const char *differs;
    int tolerance;
    /* Output elements left out of the comparison at both ends of each dimension: where
     * the peer's border rule and the kernel's give different pixels (e.g. OpenCV
     * replicating the image's edge where the kernel reads the margin around it). */
    int frame[4];
};

#define PEER_ENTRIES_SYMBOL "tine_peer_entries"
/* The module's entries, ending with one whose kernel is NULL. */
typedef const peer_entry *(*peer_entries_fn)(void);


/* Loads the peer module at path: its entries, or NULL with the reason in err. The module
 * stays loaded for the life of the process (its code is called until exit). */
static inline const peer_entry *peer_load(const char *path, char *err, size_t n) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, n, "cannot load %s: %s", path, dlerror());
        return NULL;
    }
    void *sym = dlsym(h, PEER_ENTRIES_SYMBOL);
    if (!sym) {
        snprintf(err, n, "%s has no %s", path, PEER_ENTRIES_SYMBOL);
        dlclose(h);
        return NULL;
    }
    peer_entries_fn f;
    memcpy(&f, &sym, sizeof f);
    return f();
}

#endif
