/* parallel.c — the runtime of parallel loops, emitted as LLVM IR into the module that
 * uses it.
 *
 * stmt_gen.c outlines a parallel loop's body into `i32 body(ptr closure, i64 lo, i64 hi)`
 * (iterations [lo, hi), serially; 0 or a failed Assert's code) and calls
 *
 *   i32 tine.parallel_for(ptr body, ptr closure, i64 min, i64 extent)
 *
 * which splits [min, min + extent) into min(extent, threads) contiguous chunks, runs
 * chunk 0 on the calling thread and the others on threads of their own
 * (pthread_create/pthread_join; a chunk whose thread cannot be created runs on the
 * caller after its own), and returns the first non-zero chunk result in chunk order,
 * else 0. threads is TINE_NUM_THREADS when that is a number >= 1, else
 * sysconf(_SC_NPROCESSORS_ONLN); at most 64.
 *
 * The runtime is IR, not a C function of libtine: every function here has internal
 * linkage and is built once per module, so an object compiled ahead of time carries its
 * own copy (it needs only libc and pthreads) and the JIT runs the same code. Threads are
 * created per call; kernels are coarse enough (whole rows per chunk) that a pool would
 * not pay for itself yet.
 */
#define _POSIX_C_SOURCE 200809L
#include "codegen.h"

#include <pthread.h>
#include <unistd.h>

/* pthread_t is passed to pthread_join by value as the integer it is on the targets tine
 * builds for (x86-64 Linux: unsigned long). */
_Static_assert(sizeof(pthread_t) == 8, "pthread_t is a 64-bit integer");

enum { MAX_THREADS = 64 };

typedef struct {
    LLVMModuleRef m;
    LLVMContextRef lc;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    LLVMTypeRef i8, i32, i64, ptr;
} rt;

static LLVMValueRef declare(rt *r, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n) {
    LLVMValueRef f = LLVMGetNamedFunction(r->m, name);
    return f ? f : LLVMAddFunction(r->m, name, LLVMFunctionType(ret, params, (unsigned)n, 0));
}

static LLVMValueRef call(rt *r, LLVMValueRef f, LLVMValueRef *args, int n) {
    return LLVMBuildCall2(r->b, LLVMGlobalGetValueType(f), f, args, (unsigned)n, "");
}

static LLVMValueRef i64c(rt *r, long long v) { return LLVMConstInt(r->i64, (unsigned long long)v, 1); }

static LLVMBasicBlockRef block(rt *r, const char *name) { return LLVMAppendBasicBlockInContext(r->lc, r->fn, name); }

static LLVMValueRef internal_fn(rt *r, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n) {
    r->fn = LLVMAddFunction(r->m, name, LLVMFunctionType(ret, params, (unsigned)n, 0));
    LLVMSetLinkage(r->fn, LLVMInternalLinkage);
    LLVMPositionBuilderAtEnd(r->b, block(r, "entry"));
    return r->fn;
}

/* A counted loop i in [from, to): loop_begin leaves the builder in the body, loop_end
 * closes it and continues after it. */
typedef struct {
    LLVMBasicBlockRef head, done;
    LLVMValueRef i;
} rt_loop;

static LLVMValueRef loop_begin(rt *r, rt_loop *l, LLVMValueRef from, LLVMValueRef to) {
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(r->b), body = block(r, "body");
    l->head = block(r, "head");
    l->done = block(r, "done");
    LLVMBuildBr(r->b, l->head);
    LLVMPositionBuilderAtEnd(r->b, l->head);
    l->i = LLVMBuildPhi(r->b, r->i64, "t");
    LLVMAddIncoming(l->i, &from, &pre, 1);
    LLVMBuildCondBr(r->b, LLVMBuildICmp(r->b, LLVMIntSLT, l->i, to, ""), body, l->done);
    LLVMPositionBuilderAtEnd(r->b, body);
    return l->i;
}

static void loop_end(rt *r, rt_loop *l) {
    LLVMValueRef next = LLVMBuildAdd(r->b, l->i, i64c(r, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(r->b);
    LLVMAddIncoming(l->i, &next, &latch, 1);
    LLVMBuildBr(r->b, l->head);
    LLVMPositionBuilderAtEnd(r->b, l->done);
}

/* i64 tine.threads(): TINE_NUM_THREADS if it is a number >= 1, else the processors
 * online; 1..64. The environment is read on every call, so a program may change it
 * between runs. */
static LLVMValueRef threads_fn(rt *r) {
    LLVMValueRef f = internal_fn(r, "tine.threads", r->i64, NULL, 0);
    LLVMTypeRef p3[3] = {r->ptr, r->ptr, r->i32};
    LLVMValueRef getenv_fn = declare(r, "getenv", r->ptr, &r->ptr, 1);
    LLVMValueRef strtol_fn = declare(r, "strtol", r->i64, p3, 3);
    LLVMValueRef sysconf_fn = declare(r, "sysconf", r->i64, &r->i32, 1);
    LLVMValueRef name = LLVMBuildGlobalString(r->b, "TINE_NUM_THREADS", "tine.num_threads_name");
    LLVMSetLinkage(name, LLVMPrivateLinkage);
    LLVMValueRef s = call(r, getenv_fn, &name, 1);
    LLVMBasicBlockRef env = block(r, "env"), use = block(r, "use"), procs = block(r, "procs");
    LLVMBuildCondBr(r->b, LLVMBuildIsNull(r->b, s, ""), procs, env);
    LLVMPositionBuilderAtEnd(r->b, env);
    LLVMValueRef args[3] = {s, LLVMConstNull(r->ptr), LLVMConstInt(r->i32, 10, 0)};
    LLVMValueRef v = call(r, strtol_fn, args, 3);
    LLVMBuildCondBr(r->b, LLVMBuildICmp(r->b, LLVMIntSGE, v, i64c(r, 1), ""), use, procs);
    /* the constant is the build host's; tine compiles for the host's kind of system */
    LLVMPositionBuilderAtEnd(r->b, procs);
    LLVMValueRef sc = LLVMConstInt(r->i32, _SC_NPROCESSORS_ONLN, 0);
    LLVMValueRef np = call(r, sysconf_fn, &sc, 1);
    LLVMBuildBr(r->b, use);
    LLVMPositionBuilderAtEnd(r->b, use);
    LLVMValueRef n = LLVMBuildPhi(r->b, r->i64, "n");
    LLVMBasicBlockRef from[2] = {env, procs};
    LLVMValueRef vals[2] = {v, np};
    LLVMAddIncoming(n, vals, from, 2);
    n = LLVMBuildSelect(r->b, LLVMBuildICmp(r->b, LLVMIntSLT, n, i64c(r, 1), ""), i64c(r, 1), n, "");
    n = LLVMBuildSelect(r->b, LLVMBuildICmp(r->b, LLVMIntSGT, n, i64c(r, MAX_THREADS), ""), i64c(r, MAX_THREADS), n, "");
    LLVMBuildRet(r->b, n);
    return f;
}

/* A chunk: { ptr body, ptr closure, i64 lo, i64 hi, i32 result }. */
static LLVMTypeRef task_type(rt *r) {
    LLVMTypeRef f[5] = {r->ptr, r->ptr, r->i64, r->i64, r->i32};
    return LLVMStructTypeInContext(r->lc, f, 5, 0);
}

static LLVMValueRef field(rt *r, LLVMTypeRef tt, LLVMValueRef task, int i) {
    return LLVMBuildStructGEP2(r->b, tt, task, (unsigned)i, "");
}

/* ptr tine.parallel_task(ptr task): runs the chunk, stores its result; a thread's entry. */
static LLVMValueRef task_fn(rt *r, LLVMTypeRef tt, LLVMTypeRef body_ty) {
    LLVMValueRef f = internal_fn(r, "tine.parallel_task", r->ptr, &r->ptr, 1);
    LLVMValueRef t = LLVMGetParam(f, 0);
    LLVMValueRef args[3] = {LLVMBuildLoad2(r->b, r->ptr, field(r, tt, t, 1), ""),
                            LLVMBuildLoad2(r->b, r->i64, field(r, tt, t, 2), ""),
                            LLVMBuildLoad2(r->b, r->i64, field(r, tt, t, 3), "")};
    LLVMValueRef body = LLVMBuildLoad2(r->b, r->ptr, field(r, tt, t, 0), "");
    LLVMValueRef rc = LLVMBuildCall2(r->b, body_ty, body, args, 3, "");
    LLVMBuildStore(r->b, rc, field(r, tt, t, 4));
    LLVMBuildRet(r->b, LLVMConstNull(r->ptr));
    return f;
}

static LLVMValueRef parallel_for_fn(rt *r) {
    LLVMTypeRef body_p[3] = {r->ptr, r->i64, r->i64};
    LLVMTypeRef body_ty = LLVMFunctionType(r->i32, body_p, 3, 0), tt = task_type(r);
    LLVMValueRef threads = threads_fn(r), task = task_fn(r, tt, body_ty);
    LLVMTypeRef create_p[4] = {r->ptr, r->ptr, r->ptr, r->ptr}, join_p[2] = {r->i64, r->ptr};
    LLVMValueRef create = declare(r, "pthread_create", r->i32, create_p, 4);
    LLVMValueRef join = declare(r, "pthread_join", r->i32, join_p, 2);

    LLVMTypeRef params[4] = {r->ptr, r->ptr, r->i64, r->i64};
    LLVMValueRef f = internal_fn(r, "tine.parallel_for", r->i32, params, 4);
    LLVMValueRef body = LLVMGetParam(f, 0), clo = LLVMGetParam(f, 1), min = LLVMGetParam(f, 2), ext = LLVMGetParam(f, 3);
    LLVMValueRef tasks = LLVMBuildAlloca(r->b, LLVMArrayType(tt, MAX_THREADS), "tasks");
    LLVMValueRef tids = LLVMBuildAlloca(r->b, LLVMArrayType(r->i64, MAX_THREADS), "tids");
    LLVMValueRef started = LLVMBuildAlloca(r->b, LLVMArrayType(r->i8, MAX_THREADS), "started");
    LLVMValueRef zero = LLVMConstInt(r->i32, 0, 0);
#define AT(arr, ty, i) LLVMBuildGEP2(r->b, (ty), (arr), (LLVMValueRef[]){i}, 1, "")
    /* nothing to run; one chunk: the caller runs the loop */
    LLVMBasicBlockRef none = block(r, "none"), some = block(r, "some"), one = block(r, "one"), split = block(r, "split");
    LLVMBuildCondBr(r->b, LLVMBuildICmp(r->b, LLVMIntSLE, ext, i64c(r, 0), ""), none, some);
    LLVMPositionBuilderAtEnd(r->b, none);
    LLVMBuildRet(r->b, zero);
    LLVMPositionBuilderAtEnd(r->b, some);
    LLVMValueRef n = call(r, threads, NULL, 0);
    n = LLVMBuildSelect(r->b, LLVMBuildICmp(r->b, LLVMIntSLT, ext, n, ""), ext, n, "nchunks");
    LLVMBuildCondBr(r->b, LLVMBuildICmp(r->b, LLVMIntEQ, n, i64c(r, 1), ""), one, split);
    LLVMPositionBuilderAtEnd(r->b, one);
    LLVMValueRef whole[3] = {clo, min, LLVMBuildAdd(r->b, min, ext, "")};
    LLVMBuildRet(r->b, LLVMBuildCall2(r->b, body_ty, body, whole, 3, ""));
    LLVMPositionBuilderAtEnd(r->b, split);

    /* chunk t is [min + ext * t / n, min + ext * (t + 1) / n): ext < 2^32, t <= 64 */
    rt_loop l;
    LLVMValueRef t = loop_begin(r, &l, i64c(r, 0), n);
    LLVMValueRef tk = AT(tasks, tt, t);
    LLVMValueRef lo = LLVMBuildAdd(r->b, min, LLVMBuildSDiv(r->b, LLVMBuildMul(r->b, ext, t, ""), n, ""), "");
    LLVMValueRef t1 = LLVMBuildAdd(r->b, t, i64c(r, 1), "");
    LLVMValueRef hi = LLVMBuildAdd(r->b, min, LLVMBuildSDiv(r->b, LLVMBuildMul(r->b, ext, t1, ""), n, ""), "");
    LLVMBuildStore(r->b, body, field(r, tt, tk, 0));
    LLVMBuildStore(r->b, clo, field(r, tt, tk, 1));
    LLVMBuildStore(r->b, lo, field(r, tt, tk, 2));
    LLVMBuildStore(r->b, hi, field(r, tt, tk, 3));
    LLVMBuildStore(r->b, zero, field(r, tt, tk, 4));
    loop_end(r, &l);

    /* chunks 1.. on threads of their own */
    t = loop_begin(r, &l, i64c(r, 1), n);
    LLVMValueRef cargs[4] = {AT(tids, r->i64, t), LLVMConstNull(r->ptr), task, AT(tasks, tt, t)};
    LLVMValueRef ok = LLVMBuildICmp(r->b, LLVMIntEQ, call(r, create, cargs, 4), zero, "");
    LLVMBuildStore(r->b, LLVMBuildZExt(r->b, ok, r->i8, ""), AT(started, r->i8, t));
    loop_end(r, &l);

    /* chunk 0 here, then each thread joined, or its chunk run here if it has none */
    LLVMValueRef t0 = AT(tasks, tt, i64c(r, 0));
    call(r, task, &t0, 1);
    t = loop_begin(r, &l, i64c(r, 1), n);
    LLVMBasicBlockRef joined = block(r, "join"), inline_ = block(r, "inline"), next = block(r, "next");
    LLVMValueRef st = LLVMBuildLoad2(r->b, r->i8, AT(started, r->i8, t), "");
    LLVMBuildCondBr(r->b, LLVMBuildICmp(r->b, LLVMIntNE, st, LLVMConstInt(r->i8, 0, 0), ""), joined, inline_);
    LLVMPositionBuilderAtEnd(r->b, joined);
    LLVMValueRef jargs[2] = {LLVMBuildLoad2(r->b, r->i64, AT(tids, r->i64, t), ""), LLVMConstNull(r->ptr)};
    call(r, join, jargs, 2);
    LLVMBuildBr(r->b, next);
    LLVMPositionBuilderAtEnd(r->b, inline_);
    LLVMValueRef tk2 = AT(tasks, tt, t);
    call(r, task, &tk2, 1);
    LLVMBuildBr(r->b, next);
    LLVMPositionBuilderAtEnd(r->b, next);
    loop_end(r, &l);

    /* the first failure in chunk order */
    t = loop_begin(r, &l, i64c(r, 0), n);
    LLVMValueRef rc = LLVMBuildLoad2(r->b, r->i32, field(r, tt, AT(tasks, tt, t), 4), "");
    LLVMBasicBlockRef failed = block(r, "failed"), fine = block(r, "fine");
    LLVMBuildCondBr(r->b, LLVMBuildICmp(r->b, LLVMIntNE, rc, zero, ""), failed, fine);
    LLVMPositionBuilderAtEnd(r->b, failed);
    LLVMBuildRet(r->b, rc);
    LLVMPositionBuilderAtEnd(r->b, fine);
    loop_end(r, &l);
    LLVMBuildRet(r->b, zero);
#undef AT
    return f;
}

LLVMValueRef tine_cg_parallel_runtime(LLVMModuleRef m) {
    LLVMValueRef f = LLVMGetNamedFunction(m, "tine.parallel_for");
    if (f) return f;
    rt r = {.m = m, .lc = LLVMGetModuleContext(m)};
    r.i8 = LLVMInt8TypeInContext(r.lc);
    r.i32 = LLVMInt32TypeInContext(r.lc);
    r.i64 = LLVMInt64TypeInContext(r.lc);
    r.ptr = LLVMPointerTypeInContext(r.lc, 0);
    r.b = LLVMCreateBuilderInContext(r.lc);
    f = parallel_for_fn(&r);
    LLVMDisposeBuilder(r.b);
    return f;
}
