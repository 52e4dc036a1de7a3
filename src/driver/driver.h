/* driver.h — the compile driver: one job from a kernel's text to its code, every step in
 * order in one function (compile.c, tine_compile_kernel), the steps named by the one
 * table of tine.h (TINE_STEPS). The public calls that compile, emit, print or interpret a
 * kernel (api.c) are thin wrappers that fill a job and run it.
 */
#ifndef TINE_DRIVER_H
#define TINE_DRIVER_H

#include "../stmt/passes.h"

typedef struct tine_job tine_job;
/* Sees each step's result (job->kernel after parse and target, job->stmt after build ...
 * hoist, job->bytes after emit), right after the step. */
typedef void (*tine_step_fn)(void *user, tine_step_t step, const tine_job *job);

struct tine_job {
    /* what to compile */
    tine_ctx_t *ctx;         /* with text and file: parsed when kernel is NULL */
    const char *text, *file;
    bool common;             /* parse every target's kernel only, not one per `on` ISA */
    tine_kernel_t *kernel;   /* the kernel; after the target step, the target's */
    const char *target;      /* "host", or a target's name */
    const char *targets;     /* a header's: the list of a multi-target object's targets, or NULL */
    int sel;                 /* a tine_selection_t, or -1: stop before selection */
    tine_step_t last;        /* the last step run (TINE_STEP_EMIT: all) */
    bool jit;                /* emit compiles for this process (job->compiled) */
    tine_emit_kind_t kind;   /* else what emit makes (job->bytes) */
    int bad_kind;            /* tine_kernel_emit's unknown kind: refused where it always was */
    const char *kind_text;   /* its text, for the message */
    const char *name;        /* the entry point's name (obj, asm, llvm, h) */
    bool whole;              /* run the statement steps even when the output needs none */
    tine_stmt_pool *pool;    /* where the statement lives (the caller's), or NULL: the job's */
    tine_step_fn after;      /* if not NULL, sees every step */
    void *user;
    /* what the steps produced */
    tine_kernel_t *parsed;   /* the kernel before the target step (its schedule, every target's) */
    tine_stmt *stmt;         /* the statement after the latest statement step */
    tine_compiled_t *compiled;
    void *bytes;
    size_t size;
    double stmt_ms;          /* the statement steps' time, selection included */
    tine_buf listing;        /* --emit tprog: the peephole step's listing, until emit takes it */
    tine_stmt_pool own_pool;
    bool parsed_here;        /* the job parsed the text: tine_job_free frees the kernel */
};

/* Runs the job's steps up to job->last; false with an error. tine_job_free frees what
 * the job made (not job->compiled or job->bytes, which the caller takes). */
bool tine_compile_kernel(tine_job *job);
void tine_job_free(tine_job *job);

/* The statement of k for target, after every step from build to hoist (sel < 0: to
 * unswitch), in pool; `after` (if not NULL) sees each statement step by name. NULL with
 * an error. What `tine verify` proves and the tests inspect. */
typedef void (*tine_pass_fn)(void *user, const char *pass, const tine_stmt *s);
tine_stmt *tine_compile_stmt(tine_stmt_pool *pool, tine_kernel_t *k, int sel, const char *target, tine_pass_fn after,
                             void *user);

/* run.c: kernel k run on the statement interpreter, its statement taken after the
 * driver's step `pass` ("build", ..., "select", "hoist"; sel as for tine_compile_stmt).
 * 0, or -1 with an error (a failed Assert's message, as the JIT gives it). */
int tine_kernel_interpret_stmt(tine_kernel_t *k, const char *pass, int sel, const char *target,
                               tine_buffer_t *const *inputs, const void *const *params, tine_buffer_t *out);

#endif
