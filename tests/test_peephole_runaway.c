/* test_peephole_runaway.c — the peephole optimizer given rule sets that do not terminate
 * must say so, not loop (src/peephole/peephole.c: a pass past its round limit, a chain of
 * rewrites deeper than its limit).
 *
 * Each case gives its rule set to tine_peephole_with on a small arm-64 program, in a child
 * process killed after TIME_LIMIT seconds: a hang is a failure, not a stuck ctest.
 *
 *   control     one terminating rule (a + (-b) -> a - b): the substitution works, the
 *               result is right
 *   cycle       fadd(a, b) -> fadd(b, a) in one pass: an error naming the pass
 *   grow        fneg(a) -> fneg(fneg(fneg(a))): an error, in bounded time and memory
 *   ping-pong   two passes undoing each other (each terminates alone): an error
 */
#define _POSIX_C_SOURCE 200809L /* fork, pipe, waitpid, kill, nanosleep */
#include "internal.h"
#include "peephole/peephole.h"
#include "testutil.h"
#include "tprog/tprog.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char RULES_FILE[] = "tests/test_peephole_runaway.c";

enum { TIME_LIMIT = 10 };

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

typedef struct {
    const char *name;
    const char *rules;
    bool want_ok;          /* the optimizer must succeed (the control) */
    const char *want_text; /* in the error (or NULL) */
} rcase;

static const rcase cases[] = {
    {"control", "pass sign\nadd_neg: fadd_f32(a:f32, fneg_f32(b:f32)) -> fsub_f32(a, b)  # a + (-b) is a - b\n", true,
     NULL},
    {"cycle", "pass swap\nswap: fadd_f32(a:f32, b:f32) -> fadd_f32(b, a)  # commutes forever\n", false, "swap"},
    {"grow", "pass grow\ngrow: fneg_f32(a:f32) -> fneg_f32(fneg_f32(fneg_f32(a)))  # two more each time\n", false,
     "grow"},
    {"ping-pong",
     "pass fold\nfold: fadd_f32(a:f32, fneg_f32(b:f32)) -> fsub_f32(a, b)  # a + (-b) is a - b\n"
     "pass unfold\nunfold: fsub_f32(a:f32, b:f32) -> fadd_f32(a, fneg_f32(b))  # and back\n",
     false, NULL},
};

/* In the child: 0 the outcome wanted, 1 not; its findings on stdout. */
static int child(const rcase *c) {
#ifndef UNDER_ASAN /* AddressSanitizer reserves terabytes of address space for its shadow */
    struct rlimit lim = {(rlim_t)4 << 30, (rlim_t)4 << 30}; /* a runaway's memory: 4 GB, then it fails */
    setrlimit(RLIMIT_AS, &lim);
#endif
    tine_ctx_t *ctx = tine_ctx_new();
    tine_type_t t = tine_type(TINE_FLOAT, 32, 4);
    tine_expr_t *a = tine_var(ctx, "a", t), *b = tine_var(ctx, "b", t);
    tine_expr_t *e = tine_binary(ctx, TINE_OP_ADD, a, tine_unary(ctx, TINE_OP_NEG, b));
    tine_tprog *p = tine_tprog_new(ctx, "arm-64");
    tine_tprog_input(p, a);
    tine_tprog_input(p, b);
    tine_tprog_output(p, "y", e);
    if (!tine_tprog_select(p)) {
        printf("select: %s\n", tine_error(ctx));
        return 1;
    }
    tine_peep_opts o = {0};
    tine_peep_stats st;
    double t0 = now();
    bool ok = tine_peephole_with(p, &o, c->rules, RULES_FILE, &st);
    double dt = now() - t0;
    const char *err = tine_error(ctx);
    int rc = 0;
    if (c->want_ok) {
        bool right = ok && tine_tprog_check(p) && p->outs[0].value->op == TINE_OP_INSN &&
                     !strcmp(tine_insn_name(ctx, p->outs[0].value->imm), "fsub_f32") && p->outs[0].value->ops[0] == a &&
                     p->outs[0].value->ops[1] == b;
        if (!right) {
            printf("the control rule set did not give fsub_f32(a, b) (%s)\n", ok ? "returned true" : err ? err : "?");
            rc = 1;
        } else printf("a + (-b) became fsub_f32(a, b)\n");
    } else if (ok) {
        tine_buf buf = {0};
        tine_tprog_print(p, &buf);
        printf("tine_peephole returned true after %d passes (rewrites:", st.passes);
        for (int k = 0; k < st.passes; k++) printf(" %s %d in %d rounds", st.pass_name[k], st.pass_rewrites[k], st.pass_rounds[k]);
        printf("), no error; the program it left:\n%s", buf.p ? buf.p : "");
        free(buf.p);
        rc = 1;
    } else if (!err || !strstr(err, RULES_FILE) || !strstr(err, "peephole pass") ||
               (c->want_text && !strstr(err, c->want_text))) {
        printf("the error is not a pass's, naming the rules' file%s%s: %s\n", c->want_text ? " and the pass " : "",
               c->want_text ? c->want_text : "", err ? err : "(none)");
        rc = 1;
    } else {
        printf("reported in %.2f s: %s\n", dt, err);
    }
    tine_tprog_free(p);
    tine_ctx_free(ctx);
    return rc;
}

int main(void) {
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const rcase *c = &cases[i];
        fflush(stdout);
        int fds[2];
        if (pipe(fds)) {
            fail("pipe");
            continue;
        }
        pid_t pid = fork();
        if (pid < 0) {
            fail("fork");
            continue;
        }
        if (pid == 0) {
            close(fds[0]);
            dup2(fds[1], 1);
            dup2(fds[1], 2);
            int rc = child(c);
            fflush(stdout);
            _exit(rc);
        }
        close(fds[1]);
        double t0 = now();
        int status = 0;
        bool done = false, killed = false;
        while (!done) {
            pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid) {
                done = true;
                break;
            }
            if (now() - t0 > TIME_LIMIT) {
                kill(pid, SIGKILL); /* the child this loop started */
                waitpid(pid, &status, 0);
                killed = done = true;
                break;
            }
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        }
        char out[4096];
        ssize_t n = read(fds[0], out, sizeof out - 1);
        close(fds[0]);
        out[n > 0 ? n : 0] = 0;
        if (killed)
            fail("%s: still running after %d s (a rule set that does not terminate loops)\n%s", c->name, TIME_LIMIT, out);
        else if (!WIFEXITED(status))
            fail("%s: the optimizer died (signal %d)\n%s", c->name, WIFSIGNALED(status) ? WTERMSIG(status) : 0, out);
        else if (WEXITSTATUS(status) != 0)
            fail("%s: %s", c->name, out);
        else {
            pass();
            printf("%-10s ok (%.2f s) %s", c->name, now() - t0, out);
        }
    }
    printf("test_peephole_runaway: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
