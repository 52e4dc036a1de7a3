/* halide_peer.h — what the Halide peer's generated entry table (entries.c, written by
 * CMakeLists.txt) and its binder (bind.c) share. */
#ifndef TINE_HALIDE_PEER_H
#define TINE_HALIDE_PEER_H
#include "../peer.h"

struct halide_filter_metadata_t;

/* One Halide ahead-of-time function: the `_argv` and `_metadata` entry points it has. */
typedef struct {
    const char *name; /* the function's name (halide_KERNEL_LEVEL) */
    int (*argv)(void **args);
    const struct halide_filter_metadata_t *(*metadata)(void);
} halide_peer_fn;

/* bind.c: the peer_entry functions of every Halide entry (impl: a halide_peer_fn) */
int halide_peer_runs_here(const peer_entry *e);
double halide_peer_compile_ms(const peer_entry *e);
peer_call *halide_peer_bind(const peer_entry *e, const bench_case *c, void *out, char *err, size_t n);
int halide_peer_run(peer_call *call);
void halide_peer_unbind(peer_call *call);

#endif
