/* synth.c — `tine synth lower` and `tine synth lift`: the searches of src/synth run from
 * the command line; the rules to -o FILE (or the standard output), the figures to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tine.h"

enum { DEFAULT_SIZE = 4, MAX_SIZE = 6, DEFAULT_TIME_LIMIT = 600, DEFAULT_TIMEOUT_MS = 10000 };
/* synth lower: nodes in a right side, quarter cycles, seconds per spec and level */
enum { LOWER_SIZE = 6, LOWER_MAX_SIZE = 8, LOWER_MAX_COST = 24, LOWER_SPEC_SECONDS = 20 };

/* --types u8,i8,...: integer element types; 0, or 2 after a message. */
static int parse_types(const char *text, tine_type_t *out, int *n) {
    static const char *const names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64"};
    *n = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, ",");
        int k = -1;
        for (int i = 0; i < 8; i++)
            if (strlen(names[i]) == len && !strncmp(p, names[i], len)) k = i;
        if (k < 0 || *n == 8) {
            fprintf(stderr, "tine synth: --types: '%.*s' is not one of u8 i8 u16 i16 u32 i32 u64 i64\n", (int)len, p);
            return 2;
        }
        out[(*n)++] = tine_type(k % 2 ? TINE_INT : TINE_UINT, 8 << (k / 2), 1);
        p += len + (p[len] == ',');
    }
    if (!*n) {
        fprintf(stderr, "tine synth: --types needs at least one type\n");
        return 2;
    }
    return 0;
}

/* The search's rules to -o FILE (or stdout), or its error; frees both. The exit status. */
static int finish(tine_ctx_t *ctx, const options *o, char *text, const char *prefix) {
    int rc = 1;
    if (!text) cli_report(ctx, prefix);
    else rc = cli_write(o->out, text, strlen(text));
    free(text);
    tine_ctx_free(ctx);
    return rc;
}

static int synth_lower(const options *o) {
    if (o->nsize > 1 || (o->nsize && (o->size[0] < 1 || o->size[0] > LOWER_MAX_SIZE))) {
        fprintf(stderr, "tine synth lower: --size takes one count from 1 to %d, got '%s'\n", LOWER_MAX_SIZE, o->size_text);
        return 2;
    }
    if (o->focus || o->types || o->from_scratch || o->hand_only || o->general) {
        fprintf(stderr, "tine synth lower: --focus, --types, --from-scratch, --hand-only and --general are synth lift's\n");
        return 2;
    }
    tine_synth_lower_opts so = {
        .targets = o->target ? o->target : "x86-64-avx2", .only = o->op,
        .size = o->nsize ? (int)o->size[0] : LOWER_SIZE, .max_cost = LOWER_MAX_COST,
        .spec_seconds = o->time_limit ? (double)o->time_limit : LOWER_SPEC_SECONDS,
        .timeout_ms = o->timeout_ms ? (unsigned)o->timeout_ms : DEFAULT_TIMEOUT_MS, .log = stderr};
    tine_ctx_t *ctx = tine_ctx_new();
    tine_synth_lower_stats st;
    char *text = tine_synth_lower(ctx, &so, &st);
    if (text) {
        fprintf(stderr,
                "tine synth lower: %ld rules from %ld searches (%ld specs) in %.1f s, %ld MB peak; %ld found a proven "
                "rewrite, %ld stopped by the time limit; %ld nodes built, %ld distinct, %ld matched the spec's "
                "fingerprint; %ld Z3 queries (%.1f s), %ld counterexamples, %ld unknown; %ld rules the prover "
                "did not prove (dropped)\n",
                st.rules, st.searches, st.specs, st.seconds, st.peak_kb / 1024, st.found, st.timed_out, st.enumerated,
                st.distinct, st.matched, st.queries, st.solver_seconds, st.counterexamples, st.unknown, st.unproven);
    }
    return finish(ctx, o, text, "tine synth lower: ");
}

int cli_cmd_synth(const options *o) {
    if (o->file && !strcmp(o->file, "lower")) return synth_lower(o);
    if (o->target || o->op) {
        fprintf(stderr, "tine synth lift: --target and --op are synth lower's\n");
        return 2;
    }
    if (!o->file || strcmp(o->file, "lift")) {
        fprintf(stderr, "tine synth: needs the kind of rules to synthesize, lower or lift (got %s%s%s)\n",
                o->file ? "'" : "nothing", o->file ? o->file : "", o->file ? "'" : "");
        return 2;
    }
    if (o->nsize > 1 || (o->nsize && (o->size[0] < 1 || o->size[0] > MAX_SIZE))) {
        fprintf(stderr, "tine synth: --size takes one count from 1 to %d, got '%s'\n", MAX_SIZE, o->size_text);
        return 2;
    }
    int focus = o->focus ? tine_op_lookup(o->focus) : -1;
    if (o->focus && focus < 0) {
        fprintf(stderr, "tine synth: --focus: unknown op '%s' (tine ops lists them)\n", o->focus);
        return 2;
    }
    tine_type_t types[8];
    int ntypes;
    if (parse_types(o->types ? o->types : "u8,i8,u16,i16,u32,i32", types, &ntypes)) return 2;
    tine_synth_lift_opts so = {
        .size = o->nsize ? (int)o->size[0] : DEFAULT_SIZE, .types = types, .ntypes = ntypes,
        .time_limit = o->time_limit ? (double)o->time_limit : DEFAULT_TIME_LIMIT,
        .timeout_ms = o->timeout_ms ? (unsigned)o->timeout_ms : DEFAULT_TIMEOUT_MS, .from_scratch = o->from_scratch,
        .focus = focus, .general = o->general, .hand_only = o->hand_only,
        .log = o->out ? stdout : NULL};
    tine_ctx_t *ctx = tine_ctx_new();
    tine_synth_lift_stats st;
    char *text = tine_synth_lift(ctx, &so, &st);
    if (text) {
        fprintf(stderr,
                "tine synth lift: %ld rules (%ld general in T), %.1f s%s; %ld expressions enumerated, %ld distinct, "
                "%ld FPIR candidates; %ld matched a candidate, %ld of them not cheaper than their lift, %ld "
                "unproven, %ld overlapping\n",
                st.rules, st.general, st.seconds, st.timed_out ? " (time limit reached)" : "", st.enumerated,
                st.distinct, st.fpir, st.matched, st.not_cheaper, st.unproven, st.overlaps);
    }
    return finish(ctx, o, text, "tine synth lift: ");
}
