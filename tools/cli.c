#define _XOPEN_SOURCE 700 /* realpath */
/* cli.c — the tine driver's command line, input files and outputs.
 *
 * Every option is one row of OPTIONS with the command forms that take it, so an option
 * given to a command that does not use it is refused instead of ignored. Bad usage is
 * exit 2 with a one-line message; input that cannot be read or used is exit 1.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../bench/ref/cases.h"
#include "cli.h"

#ifndef TINE_SOURCE_DIR
#define TINE_SOURCE_DIR "."
#endif

#ifndef TINE_VERSION
#define TINE_VERSION "0.1.0" /* CMake passes project(VERSION); this for a build without it */
#endif

#define F(x) (1u << CLI_##x)
static const char *const COMMANDS[CLI_FORMS] = {
    [CLI_DEMO] = "demo", [CLI_PRINT] = "print", [CLI_EXPAND] = "expand", [CLI_EVAL] = "eval",
    [CLI_LIFT] = "lift", [CLI_RULES] = "rules", [CLI_COMPILE_EXPR] = "compile", [CLI_RUN_EXPR] = "run",
    [CLI_OPS] = "ops", [CLI_BENCH] = "bench", [CLI_BENCH_IR] = "bench-ir", [CLI_BENCH_LIFT] = "bench-lift",
    [CLI_VERIFY] = "verify", [CLI_REPORT] = "report", [CLI_ISA] = "isa", [CLI_HELP] = "help",
    [CLI_SYNTH] = "synth", [CLI_RETARGET] = "retarget", [CLI_VECTORIZE] = "vectorize",
    [CLI_DFT] = "dft",
};
/* Each form's command lines, in the order usage lists them (`tine help COMMAND`: its own). */
static const struct {
    unsigned forms;
    const char *line;
} SYNOPSES[] = {
    {F(DEMO), "demo"},
    {F(PRINT), "print EXPR [--lanes N]"},
    {F(EXPAND), "expand EXPR [--lanes N]"},
    {F(EVAL), "eval EXPR [--lanes N] [--seed S]"},
    {F(LIFT), "lift EXPR [--lanes N] [--trace-rules] [--rules-extra FILE]"},
    {F(RULES), "rules --list | --check FILE"},
    {F(COMPILE_EXPR), "compile -e EXPR [--target T] [--lanes N] [--emit asm|llvm|fpir|lowered] [--select llvm|tine]\n"
                      "                    [--trace-rules] [--rules hand|synthesized]"},
    {F(RUN_EXPR), "run -e EXPR [--target T] [--lanes N] [--seed S] [--select llvm|tine] [--rules hand|synthesized]"},
    {F(COMPILE_KERNEL), "compile FILE [--target T] [--select llvm|tine] [--emit obj|h|asm|llvm|fpir|lowered|stmt|schedule|tprog] [-o OUT]\n"
                        "                    [--name N] [--dump-after STEP|all|help] [--rules hand|synthesized]"},
    {F(RUN_KERNEL), "run FILE [--target T] [--seed S] [--size WxH..] [--input-size NAME=WxH..] [--param NAME=V]...\n"
                    "                    [--rules hand|synthesized]"},
    {F(OPS), "ops"},
    {F(BENCH), "bench [--filter NAME] [--target T] [--peers halide,opencv,xnnpack,c,clang,gcc] [--rules synthesized] [--quick]"},
    {F(BENCH), "bench --retarget [--quick] [--target x86-64-avx2|x86-64-sse41|arm-64] [--filter NAME]"},
    {F(BENCH), "bench --vectorize [--quick] [--target x86-64-avx2|x86-64-avx512|arm-64] [--filter NAME]"},
    {F(BENCH), "bench --dft [--quick] [--target x86-64-avx2|x86-64-avx512|arm-64] [--filter N[,N...]]"},
    {F(BENCH_IR), "bench-ir [--nodes N]"},
    {F(BENCH_LIFT), "bench-lift [--nodes N]"},
    {F(VERIFY), "verify --rules lift|x86|arm|synthesized|peephole-x86|peephole-arm|FILE [--isa x86|arm] [--rule NAME] [--timeout MS] [--quiet]"},
    {F(VERIFY), "verify --vectorized FILE.c --function NAME --target T [--reassociate] [--contract]"},
    {F(VERIFY), "verify FILE [--target T] [--timeout MS]"},
    {F(VERIFY), "verify --bounds [--quick] [--timeout MS]"},
    {F(REPORT), "report FILE [--target T] [--select tine|llvm] [-o OUT.html] [--bench] [--rules hand|synthesized]"},
    {F(ISA), "isa import --intel FILE.xml [--cpuid SSE2,...,AVX512_VNNI] [-o OUT.isa] [--report FILE]"},
    {F(ISA), "isa classes [--isa x86|arm|all] [--timeout MS]"},
    {F(ISA), "isa list [--isa x86|arm|x86gen]"},
    {F(SYNTH), "synth lower --target T[,T...] [--op OP] [--size N] [--time-limit S] [--timeout MS] [-o FILE.rules]\n"
               "       tine synth lift [--size N] [--types u8,i8,...] [--time-limit S] [--timeout MS] [--from-scratch]\n"
                 "                    [--hand-only] [--focus OP] [--general] [-o FILE]"},
    {F(RETARGET), "retarget FILE --from T --to T [-o OUT.c] [--report] [--check] [-I DIR] [-D NAME[=V]]..."},
    {F(RETARGET), "retarget --emit-header --from T --to T [-o OUT.h]"},
    {F(DFT), "dft --n N [--inverse] [--type f32|f64] --target T [--emit obj|h|c|asm|llvm|tprog] [--name NAME] [-o OUT]\n"
             "                    [--no-peephole] [--no-schedule] [--no-contract] [--vector-bits B] [--report]"},
    {F(VECTORIZE), "vectorize FILE.c --function NAME --target T [--emit obj|h|c|asm|llvm|tprog|spec|egraph-stats] [-o OUT]\n"
                   "                    [--reassociate] [--contract] [--no-vectorize] [--no-validate] [-I DIR] [-D NAME[=V]]..."},
    {F(HELP), "help [COMMAND]"},
};
/* What each command does, in one line (`tine help COMMAND`). */
static const char *const COMMAND_WHAT[CLI_FORMS] = {
    [CLI_DEMO] = "the Sobel walk-through: parse, expand, lift and evaluate one expression",
    [CLI_PRINT] = "parse and type an expression, and print it back",
    [CLI_EXPAND] = "an expression with its FPIR ops replaced by their definitions",
    [CLI_EVAL] = "an expression evaluated on random inputs",
    [CLI_LIFT] = "an expression lifted into FPIR with the built-in rules",
    [CLI_RULES] = "the built-in lift rules, or a rule file compiled and checked",
    [CLI_COMPILE_EXPR] = "a kernel FILE ahead of time (object, header, assembly, listings), or an expression",
    [CLI_RUN_EXPR] = "a kernel FILE or an expression compiled, run on random inputs and compared with the "
                     "interpreter",
    [CLI_OPS] = "every op; the FPIR ops with their definitions",
    [CLI_BENCH] = "the benchmark kernels timed against their peers",
    [CLI_BENCH_IR] = "interning speed and memory per node",
    [CLI_BENCH_LIFT] = "lifting throughput on a generated corpus",
    [CLI_VERIFY] = "proofs with Z3: rules, a kernel's selection, or the interval rules",
    [CLI_REPORT] = "one self-contained HTML page: a kernel's source, loop nests, selection and assembly",
    [CLI_ISA] = "instruction descriptions: Intel's pseudocode imported as fixed entries; each form listed with "
                "where it runs; similarity classes (parameterised templates, members proven by Z3)",
    [CLI_HELP] = "the usage of tine, or of one command",
    [CLI_RETARGET] = "C written with one instruction set's intrinsics rewritten for another: lifted through each "
                     "intrinsic's semantics, selected for the target, written with its intrinsics",
    [CLI_VECTORIZE] = "a small fixed-size float kernel in C vectorized by equality saturation (Diospyros's "
                       "search: symbolic evaluation, lane-wise rewrite rules, shuffles priced per target) and validated "
                       "against the C, written with the function's own name and signature",
    [CLI_DFT] = "a straight-line complex DFT codelet in FFTW's batch layout (FFTW's algebra, one lane per transform), "
                "selected, peephole-optimized and scheduled for the target's registers",
    [CLI_SYNTH] = "rules found by search and proven with Z3: lowering rules over a target's instructions (lower), or "
                  "lifting rules that load beside lift.rules (lift)",
};
/* the forms whose positional argument is an expression (compile and run take a kernel file) */
static const unsigned TAKES_EXPR = F(PRINT) | F(EXPAND) | F(EVAL) | F(LIFT);

enum { O_LANES, O_SEED, O_NODES, O_TRACE, O_LIST, O_CHECK, O_QUICK, O_FILTER, O_PEERS, O_TARGET, O_EMIT, O_SELECT,
       O_PARAM, O_SIZE, O_NAME, O_OUT, O_EXPR, O_RULES, O_ISA, O_RULE, O_TIMEOUT, O_BOUNDS, O_QUIET, O_DUMP_AFTER,
       O_INPUT_SIZE, O_BENCH, O_INTEL, O_CPUID, O_REPORT,
       O_TYPES, O_TIME_LIMIT, O_FROM_SCRATCH, O_FOCUS, O_RULES_EXTRA, O_GENERAL, O_HAND_ONLY, O_OP,
       O_FROM, O_TO, O_SHOW_REPORT, O_CHECK_RUN, O_EMIT_HEADER, O_NO_WIDEN, O_BENCH_RETARGET,
       O_FUNCTION, O_REASSOCIATE, O_CONTRACT, O_NO_VECTORIZE, O_NO_VALIDATE, O_BENCH_VECTORIZE, O_VECTORIZED,
       O_N, O_INVERSE, O_TYPE, O_NO_PEEPHOLE, O_NO_SCHEDULE, O_NO_CONTRACT, O_DFT_REPORT, O_VECTOR_BITS, O_BENCH_DFT, O_COUNT };
static const struct {
    const char *name;
    int value;      /* takes a value */
    unsigned forms; /* the command forms that take it */
    const char *arg, *what; /* its value's name (NULL: a flag), and what it does (help) */
} OPTIONS[O_COUNT] = {
    [O_LANES] = {"--lanes", 1, F(PRINT) | F(EXPAND) | F(EVAL) | F(LIFT) | F(COMPILE_EXPR) | F(RUN_EXPR),
        "N", "lanes of the expression's vectors (default 16)"},
    [O_SEED] = {"--seed", 1, F(EVAL) | F(RUN_EXPR) | F(RUN_KERNEL),
        "S", "seed of the random inputs and parameters (default 1)"},
    [O_NODES] = {"--nodes", 1, F(BENCH_IR) | F(BENCH_LIFT),
        "N", "nodes to build (default 1000000)"},
    [O_TRACE] = {"--trace-rules", 0, F(LIFT) | F(COMPILE_EXPR),
        NULL, "print each rule as it applies"},
    [O_LIST] = {"--list", 0, F(RULES),
        NULL, "list the built-in lift rules"},
    [O_CHECK] = {"--check", 1, F(RULES),
        "FILE", "compile a rule file and count its rules"},
    [O_QUICK] = {"--quick", 0, F(BENCH) | F(VERIFY),
        NULL, "the reduced set CI runs"},
    [O_FILTER] = {"--filter", 1, F(BENCH),
        "NAME", "only the kernels whose name contains NAME"},
    [O_PEERS] = {"--peers", 1, F(BENCH),
        "LIST", "the peers to time, comma-separated (halide,opencv,xnnpack,c,clang,gcc)"},
    [O_N] = {"--n", 1, F(DFT), "N", "the transform's size (2 to 64)"},
    [O_INVERSE] = {"--inverse", 0, F(DFT), NULL, "the inverse transform (sign +1, FFTW_BACKWARD; unnormalized)"},
    [O_TYPE] = {"--type", 1, F(DFT), "T", "f32 (default) or f64"},
    [O_NO_PEEPHOLE] = {"--no-peephole", 0, F(DFT), NULL, "skip the peephole optimizer (the ablation)"},
    [O_NO_SCHEDULE] = {"--no-schedule", 0, F(DFT), NULL, "keep the selection's order (the scheduler's ablation)"},
    [O_NO_CONTRACT] = {"--no-contract", 0, F(DFT), NULL, "no fused multiply-adds"},
    [O_DFT_REPORT] = {"--report", 0, F(DFT), NULL, "what each step made, on the standard error"},
    [O_VECTOR_BITS] = {"--vector-bits", 1, F(DFT), "B",
        "the block's vector width: 128, 256 or 512 (default: the target's widest, at most 256: docs/DFT.md)"},
    [O_TARGET] = {"--target", 1, F(DFT) | F(VECTORIZE) | F(COMPILE_EXPR) | F(RUN_EXPR) | F(COMPILE_KERNEL) | F(RUN_KERNEL) | F(BENCH) | F(VERIFY) | F(REPORT) | F(SYNTH),
        "T", "the target: host (this machine, the default) or a name such as x86-64-avx2 (an unknown one lists them); "
             "synth lower: the x86 levels to search, comma-separated"},
    [O_EMIT] = {"--emit", 1, F(COMPILE_EXPR) | F(COMPILE_KERNEL) | F(VECTORIZE) | F(DFT),
        "KIND", "what to write (the kinds the command line above lists; default asm for -e, obj for FILE)"},
    [O_SELECT] = {"--select", 1, F(COMPILE_EXPR) | F(RUN_EXPR) | F(COMPILE_KERNEL) | F(REPORT),
        "S", "instruction selection: tine (lifting and lowering rules, default) or llvm (LLVM alone)"},
    [O_PARAM] = {"--param", 1, F(RUN_KERNEL),
        "NAME=V", "a parameter's value (others are drawn: docs/KERNELS.md, tine run)"},
    [O_SIZE] = {"--size", 1, F(RUN_KERNEL) | F(SYNTH),
        "WxH..", "the output's extents, one per dimension (default 67x45x3x2, as many as it has); synth: the most "
                 "operators in an expression searched (synth lift: default 4; synth lower: 6)"},
    [O_NAME] = {"--name", 1, F(COMPILE_KERNEL) | F(DFT),
        "N", "the entry point's name (default: the file's name up to its last '.')"},
    [O_FROM] = {"--from", 1, F(RETARGET), "T", "the target the source's intrinsics are for (arm-64, x86-64-sse2 ...)"},
    [O_TO] = {"--to", 1, F(RETARGET), "T", "the target to rewrite it for"},
    [O_SHOW_REPORT] = {"--report", 0, F(RETARGET), NULL, "per call site, what it became (on stderr)"},
    [O_CHECK_RUN] = {"--check", 0, F(RETARGET), NULL,
        "compile the source and the result, run both on the same inputs, report equal or the first difference"},
    [O_BENCH_RETARGET] = {"--retarget", 0, F(BENCH), NULL,
        "time tine retarget's corpus instead: each function's Neon code retargeted against the hand port, SIMDe and "
        "plain C (tests/retarget/bench.sh; --target x86-64-sse41 for that level, --target arm-64 for SSE2 code retargeted "
        "to Neon by llvm-mca: tests/retarget/bench_arm.sh; --filter for a theme or a function)"},
    [O_NO_WIDEN] = {"--no-widen", 0, F(RETARGET), NULL,
        "keep loops of 128-bit vectors at 128 bits on a target with wider registers (AVX2, AVX-512)"},
    [O_FUNCTION] = {"--function", 1, F(VECTORIZE) | F(VERIFY), "NAME", "the kernel: a function of FILE"},
    [O_VECTORIZED] = {"--vectorized", 0, F(VERIFY), NULL,
        "FILE.c --function NAME --target T: tine vectorize's program for the kernel, every output proven equal to the "
        "C's in Z3's floating-point theory (over the reals with --reassociate or --contract)"},
    [O_REASSOCIATE] = {"--reassociate", 0, F(VECTORIZE) | F(VERIFY), NULL,
        "let + and * reassociate and commute (equal to the C over the reals, not bit for bit)"},
    [O_CONTRACT] = {"--contract", 0, F(VECTORIZE) | F(VERIFY), NULL, "let a*b + c become one fused multiply-add"},
    [O_NO_VECTORIZE] = {"--no-vectorize", 0, F(VECTORIZE), NULL, "the specification as scalar code (no vector rules)"},
    [O_NO_VALIDATE] = {"--no-validate", 0, F(VECTORIZE), NULL, "skip translation validation"},
    [O_BENCH_VECTORIZE] = {"--vectorize", 0, F(BENCH), NULL,
        "time tine vectorize's kernels (bench/vectorize) against naive fixed-size C and Eigen (tests/vectorize/bench.sh; "
        "--target arm-64 by llvm-mca: tests/vectorize/bench_arm.sh)"},
    [O_BENCH_DFT] = {"--dft", 0, F(BENCH), NULL,
        "time tine dft's codelets against FFTW 3.3.10 and KissFFT: N = 2..64, f32 and f64, with the ablations "
        "(tests/dft/bench.sh; --filter takes sizes; --target arm-64 by llvm-mca beside FFTW's Neon codelets: "
        "tests/dft/bench_arm.sh)"},
    [O_EMIT_HEADER] = {"--emit-header", 0, F(RETARGET), NULL,
        "write the emulation header: every intrinsic of --from as C for --to, from its semantics"},
    [O_OUT] = {"-o", 1, F(COMPILE_KERNEL) | F(REPORT) | F(ISA) | F(SYNTH) | F(RETARGET) | F(VECTORIZE) | F(DFT),
        "OUT", "the file to write (default: the standard output; report: FILE's name with .html)"},
    [O_EXPR] = {"-e", 1, F(COMPILE_EXPR) | F(RUN_EXPR),
        "EXPR", "an expression instead of a kernel FILE"},
    [O_RULES] = {"--rules", 1, F(VERIFY) | F(COMPILE_EXPR) | F(RUN_EXPR) | F(COMPILE_KERNEL) | F(RUN_KERNEL) | F(BENCH) | F(REPORT),
        "R", "verify: prove a rule set: lift, x86, arm, synthesized (x86's found by tine synth lower), peephole-x86, peephole-arm (the peephole optimizer's), or a rule FILE; "
             "compile, run, bench, report: the x86 lowering rules, hand (default) or synthesized"},
    [O_ISA] = {"--isa", 1, F(VERIFY) | F(ISA),
        "ISA", "verify: the instruction set of a rule file's lowering rules (x86 or arm); isa list: the one to list "
               "(x86, arm, x86gen); isa classes: x86, arm or all"},
    [O_RULE] = {"--rule", 1, F(VERIFY),
        "NAME", "prove this rule only"},
    [O_TIMEOUT] = {"--timeout", 1, F(VERIFY) | F(ISA) | F(SYNTH),
        "MS", "the time limit of each Z3 query, in milliseconds"},
    [O_BOUNDS] = {"--bounds", 0, F(VERIFY),
        NULL, "prove the interval rule of every op"},
    [O_QUIET] = {"--quiet", 0, F(VERIFY),
        NULL, "print only the instantiations not proven"},
    [O_INPUT_SIZE] = {"--input-size", 1, F(RUN_KERNEL),
        "NAME=WxH..", "an input's extents (default: the region the kernel reads; an error if smaller)"},
    [O_DUMP_AFTER] = {"--dump-after", 1, F(COMPILE_KERNEL),
        "STEP", "print what the driver made after STEP (all: after every step; help: the steps)"},
    [O_BENCH] = {"--bench", 0, F(REPORT),
        NULL, "add the kernel's tine bench row and a chart (one of the 20 benchmark kernels)"},
    [O_INTEL] = {"--intel", 1, F(ISA),
        "FILE.xml", "the Intel Intrinsics Guide data file to import"},
    [O_CPUID] = {"--cpuid", 1, F(ISA),
        "LIST", "only the intrinsics of these extensions (Intel's CPUID names, comma-separated; default: all tine knows)"},
    [O_REPORT] = {"--report", 1, F(ISA),
        "FILE", "where to list the intrinsics not imported and why (default: the standard error)"},
    [O_TYPES] = {"--types", 1, F(SYNTH),
        "LIST", "the variables' element types searched, comma-separated (default u8,i8,u16,i16,u32,i32)"},
    [O_TIME_LIMIT] = {"--time-limit", 1, F(SYNTH),
        "S", "synth lift: stop the search after S seconds (default 600); synth lower: the seconds per spec and level "
             "(default 20)"},
    [O_FROM_SCRATCH] = {"--from-scratch", 0, F(SYNTH),
        NULL, "search against no rules (rediscovers lift.rules' own) instead of beside lift.rules"},
    [O_FOCUS] = {"--focus", 1, F(SYNTH),
        "OP", "only rules whose left side holds the op OP (rounding_shr, widening_add, ...)"},
    [O_HAND_ONLY] = {"--hand-only", 0, F(SYNTH),
        NULL, "search beside lift.rules alone, without src/lift/lift.synth.rules (to regenerate that file)"},
    [O_GENERAL] = {"--general", 0, F(SYNTH),
        NULL, "only rules that hold for every type T they type at (not for one type or signedness)"},
    [O_OP] = {"--op", 1, F(SYNTH),
        "OP", "synth lower: only the specs of this op (min, rounding_shr, saturating_cast_i16, ...: a prefix of their names; several, comma-separated)"},
    [O_RULES_EXTRA] = {"--rules-extra", 1, F(LIFT),
        "FILE", "lift with this rule file's rules beside the built-in ones (tine synth lift writes one)"},
};

/* How the form is named in messages: compile and run by the form they take. */
static const char *form_name(const options *o) {
    switch (o->form) {
    case CLI_COMPILE_EXPR: return "compile -e";
    case CLI_RUN_EXPR: return "run -e";
    case CLI_COMPILE_KERNEL: return "compile FILE";
    case CLI_RUN_KERNEL: return "run FILE";
    default: return o->cmd;
    }
}

const char *const CLI_VERSION_TEXT = TINE_VERSION;

/* The forms a command name covers: compile and run take a FILE or -e EXPR. */
static unsigned command_forms(int form) {
    if (form == CLI_COMPILE_EXPR) return F(COMPILE_EXPR) | F(COMPILE_KERNEL);
    if (form == CLI_RUN_EXPR) return F(RUN_EXPR) | F(RUN_KERNEL);
    return 1u << form;
}

/* The command lines of the forms in `forms`, the first after "usage: ". */
static void print_synopses(FILE *f, unsigned forms) {
    bool first = true;
    for (size_t i = 0; i < sizeof SYNOPSES / sizeof *SYNOPSES; i++)
        if (SYNOPSES[i].forms & forms) {
            fprintf(f, "%s%s\n", first ? "usage: tine " : "       tine ", SYNOPSES[i].line);
            first = false;
        }
}

static const char *const EXIT_TEXT =
    "exit status: 0 success, 1 an error in the input (or a limit), 2 usage, 3 internal error (tine's bug)\n";

static void print_usage(FILE *f) {
    print_synopses(f, ~0u);
    fprintf(f, "       tine --version\n"
               "compile and run read a kernel FILE (any name); an expression goes through -e EXPR.\n"
               "T: host (this CPU, as LLVM detects it), x86-64-sse2, -sse41 (-v2), -avx2 (-v3), -v4, -avx512 (v4 with VNNI),\n"
               "   arm-64, arm-64-dotprod, arm-64-i8mm; compile FILE --emit obj|h|asm|llvm takes a list T1,T2,...: one\n"
               "   object that runs the first the CPU has (TINE_DISPATCH=T caps it; docs/KERNELS.md, Targets)\n"
               "tine help COMMAND (or tine COMMAND --help) says what a command does and lists its options.\n%s",
            EXIT_TEXT);
}

int cli_usage(void) {
    print_usage(stderr);
    return 2;
}

int cli_help(const options *o) {
    int form = -1;
    for (int f = 0; f < CLI_FORMS && o->help; f++)
        if (COMMANDS[f] && !strcmp(o->help, COMMANDS[f])) form = f;
    if (form < 0) {
        print_usage(stdout);
        return 0;
    }
    unsigned forms = command_forms(form);
    print_synopses(stdout, forms);
    printf("%s: %s.\n", COMMANDS[form], COMMAND_WHAT[form]);
    int width = (int)strlen("--help");
    for (int k = 0; k < O_COUNT; k++)
        if (OPTIONS[k].forms & forms) {
            int w = (int)strlen(OPTIONS[k].name) + (OPTIONS[k].arg ? 1 + (int)strlen(OPTIONS[k].arg) : 0);
            width = w > width ? w : width;
        }
    printf("options:\n");
    for (int k = 0; k < O_COUNT; k++)
        if (OPTIONS[k].forms & forms) {
            char left[64];
            snprintf(left, sizeof left, "%s%s%s", OPTIONS[k].name, OPTIONS[k].arg ? " " : "",
                     OPTIONS[k].arg ? OPTIONS[k].arg : "");
            /* compile and run: an option of one of their two forms says which */
            unsigned of = OPTIONS[k].forms & forms;
            const char *only = k == O_EXPR                                        ? ""
                               : of == F(COMPILE_EXPR) || of == F(RUN_EXPR)       ? "; -e EXPR only"
                               : of == F(COMPILE_KERNEL) || of == F(RUN_KERNEL) ? "; kernel FILE only"
                                                                                 : "";
            printf("  %-*s  %s%s\n", width, left, OPTIONS[k].what, only);
        }
    printf("  %-*s  %s\n", width, "--help", "this text");
    return 0;
}

/* The name of names[0..n) closest to word, if it is close enough to be a slip (at most a
 * third of the word's letters changed, at least one), else NULL. */
const char *cli_closest(const char *word, const char *const *names, int n) {
    int most = (int)strlen(word) / 3 > 1 ? (int)strlen(word) / 3 : 1, best = most + 1;
    const char *found = NULL;
    for (int i = 0; i < n; i++) {
        int d = names[i] ? tine_edit_distance(word, names[i], strlen(names[i])) : most + 1;
        if (d < best) {
            best = d;
            found = names[i];
        }
    }
    return found;
}

/* "; did you mean 'NAME'?" when there is a close name, else nothing. */
static void suggest(const char *word, const char *const *names, int n) {
    const char *c = cli_closest(word, names, n);
    if (c) fprintf(stderr, "; did you mean '%s'?", c);
    fputc('\n', stderr);
}

static bool is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

/* A whole number in [lo, hi], decimal digits only (no sign, space or suffix). */
static int parse_count(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *out) {
    char *end;
    errno = 0;
    uint64_t v = isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
    if (!isdigit((unsigned char)text[0]) || *end || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "tine: %s needs a whole number from %" PRIu64 " to %" PRIu64 ", got '%s'\n", opt, lo, hi,
                text);
        return -1;
    }
    *out = v;
    return 0;
}

/* 1 to 4 extents joined by 'x' (64x32) into ext[], their count in *n; 0, or -1 after a
 * message naming opt and what (the option's whole value). */
static int parse_extents(const char *opt, const char *what, const char *text, int64_t *ext, int *n) {
    const char *p = text;
    *n = 0;
    for (;;) {
        char *end = (char *)p;
        errno = 0;
        long long v = isdigit((unsigned char)*p) ? strtoll(p, &end, 10) : 0;
        if (end == p || errno == ERANGE || v < 1 || v > (1 << 24) || *n == 4 || (*end && *end != 'x')) {
            fprintf(stderr, "tine: %s needs 1 to 4 extents from 1 to %d joined by 'x' (64x32), got '%s'\n", opt,
                    1 << 24, what);
            return -1;
        }
        ext[(*n)++] = v;
        if (!*end) return 0;
        p = end + 1;
    }
}

/* --input-size NAME=WxH..: the name checked against the kernel's inputs by tine run. */
static int parse_input_size(char *text, options *o) {
    char *eq = strchr(text, '=');
    if (!eq || eq == text) {
        fprintf(stderr, "tine: --input-size needs NAME=WxH.. (in=64x32), got '%s'\n", text);
        return -1;
    }
    cli_input_size *is = &o->input_sizes[o->ninput_sizes];
    if (parse_extents("--input-size", text, eq + 1, is->extent, &is->n)) return -1;
    *eq = 0;
    for (int j = 0; j < o->ninput_sizes; j++)
        if (!strcmp(o->input_sizes[j].name, text)) {
            fprintf(stderr, "tine: --input-size %s is given twice\n", text);
            return -1;
        }
    is->name = text;
    is->text = eq + 1;
    o->ninput_sizes++;
    return 0;
}

/* The magnitude of an integer written in decimal or 0x hex (no sign, space or suffix; a
 * leading 0 is not octal): 0, 1 when it is not such a number, 2 when it passes 64 bits. */
static int parse_magnitude(const char *s, uint64_t *out) {
    int base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
    const char *p = base == 16 ? s + 2 : s;
    if (!isxdigit((unsigned char)p[0]) || (base == 10 && !isdigit((unsigned char)p[0]))) return 1;
    char *end;
    errno = 0;
    *out = strtoull(p, &end, base);
    if (*end) return 1;
    return errno == ERANGE ? 2 : 0;
}

/* NAME=INTEGER: the name non-empty, the integer decimal or 0x hex with an optional '-';
 * its range is the parameter's type, checked by cli_param_value. */
static int parse_param(char *text, options *o) {
    char *eq = strchr(text, '=');
    uint64_t mag;
    bool digits = eq && parse_magnitude(eq + 1 + (eq[1] == '-'), &mag) != 1;
    if (!eq || eq == text || !digits) {
        fprintf(stderr, "tine: --param needs NAME=INTEGER, got '%s'\n", text);
        return -1;
    }
    *eq = 0;
    for (int j = 0; j < o->nparams; j++)
        if (!strcmp(o->params[j].name, text)) {
            fprintf(stderr, "tine: --param %s is given twice\n", text);
            return -1;
        }
    o->params[o->nparams++] = (cli_param){text, eq + 1};
    return 0;
}

/* The words after the command: opt[i] is word i's option (O_*), -1 a positional argument
 * (the last in *positional), -2 an option's value; *has_expr: -e given. 0 or 2. */
static int classify_words(int argc, char **argv, int form, int *opt, const char **positional, bool *has_expr,
                          options *o) {
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        opt[i] = -1;
        /* two options may share a name in different commands (--report, --check): the
           one this command takes */
        for (int k = 0; k < O_COUNT; k++)
            if (!strcmp(a, OPTIONS[k].name) && (opt[i] < 0 || (OPTIONS[k].forms & (1u << form)))) opt[i] = k;
        /* retarget passes the C compiler's own words through to its front end */
        if (opt[i] < 0 && (form == CLI_RETARGET || form == CLI_VECTORIZE) && a[0] == '-' &&
            (a[1] == 'I' || a[1] == 'D' || a[1] == 'U' || !strncmp(a, "-std=", 5) || !strcmp(a, "-include") ||
             !strcmp(a, "-isystem"))) {
            bool split = (a[2] == 0 && (a[1] == 'I' || a[1] == 'D' || a[1] == 'U')) || !strcmp(a, "-include") ||
                         !strcmp(a, "-isystem");
            o->cflags[o->ncflags++] = a;
            opt[i] = -2;
            if (split) {
                if (i + 1 == argc) {
                    fprintf(stderr, "tine: %s needs a value\n", a);
                    return 2;
                }
                o->cflags[o->ncflags++] = argv[++i];
                opt[i] = -2;
            }
            continue;
        }
        if (opt[i] < 0 && a[0] == '-' && a[1] == '-') {
            const char *names[O_COUNT];
            for (int k = 0; k < O_COUNT; k++) names[k] = OPTIONS[k].name;
            fprintf(stderr, "tine: unknown option '%s'", a);
            suggest(a, names, O_COUNT);
            return 2;
        } else if (opt[i] < 0 && *positional) {
            fprintf(stderr, "tine %s: unexpected argument '%s'\n", argv[1], a);
            return 2;
        } else if (opt[i] < 0) {
            *positional = a;
        } else if (OPTIONS[opt[i]].value) {
            /* an option in the place of the value means the value is missing (an
               expression may begin with '-', so -e takes anything) */
            if (i + 1 == argc || (opt[i] != O_EXPR && !strncmp(argv[i + 1], "--", 2))) {
                fprintf(stderr, "tine: %s needs a value\n", a);
                return 2;
            }
            *has_expr |= opt[i] == O_EXPR;
            opt[++i] = -2; /* a value */
        }
    }
    return 0;
}

/* The command's form once its positional argument is known (compile and run take a
 * kernel FILE or -e EXPR), and that argument's place in o. 0 or 2. */
static int positional_form(char **argv, int *form, const char *positional, bool has_expr, options *o) {
    if (*form == CLI_COMPILE_EXPR || *form == CLI_RUN_EXPR) {
        if (has_expr && positional) {
            fprintf(stderr, "tine %s: give a kernel FILE or -e EXPR, not both\n", argv[1]);
            return 2;
        } else if (!has_expr && !positional) {
            fprintf(stderr, "tine %s: needs a kernel FILE or -e EXPR\n", argv[1]);
            return 2;
        } else if (positional) {
            *form = *form == CLI_COMPILE_EXPR ? CLI_COMPILE_KERNEL : CLI_RUN_KERNEL;
            o->file = positional;
        }
    } else if ((1u << *form) & TAKES_EXPR) {
        o->expr = positional;
        if (!positional) {
            fprintf(stderr, "tine %s: needs an expression\n", argv[1]);
            return 2;
        }
    } else if (*form == CLI_VERIFY || *form == CLI_SYNTH) {
        o->file = positional; /* a kernel, or none with --rules or --bounds */
    } else if (*form == CLI_ISA) {
        o->sub = positional;
        if (!positional) {
            fprintf(stderr, "tine isa: needs a subcommand (import, list, classes)\n");
            return 2;
        }
    } else if (*form == CLI_RETARGET) {
        o->file = positional;
        bool header = false; /* --emit-header needs no FILE (argv ends in NULL, as main's) */
        for (int i = 2; argv[i]; i++) header |= !strcmp(argv[i], "--emit-header");
        if (!positional && !header) {
            fprintf(stderr, "tine retarget: needs a C FILE (or --emit-header)\n");
            return 2;
        }
    } else if (*form == CLI_VECTORIZE) {
        o->file = positional;
        if (!positional) {
            fprintf(stderr, "tine vectorize: needs a C FILE\n");
            return 2;
        }
    } else if (*form == CLI_REPORT) {
        o->file = positional;
        if (!positional) {
            fprintf(stderr, "tine report: needs a kernel FILE\n");
            return 2;
        }
    } else if (positional) {
        fprintf(stderr, "tine %s: unexpected argument '%s'\n", argv[1], positional);
        return 2;
    }
    return 0;
}

/* Option k (the word word, its value v, NULL for a flag) into o. 0 or 2. */
static int take_option(int k, const char *word, char *v, options *o) {
    uint64_t n;
    switch (k) {
    case O_LANES:
        if (parse_count(word, v, 1, TINE_MAX_LANES, &n)) return 2;
        o->lanes = (int)n;
        break;
    case O_SEED:
        if (parse_count(word, v, 0, UINT64_MAX, &o->seed)) return 2;
        break;
    case O_NODES:
        if (parse_count(word, v, 1000, 10000000, &n)) return 2; /* ~1 GB at the most */
        o->nodes = (long)n;
        break;
    case O_TRACE: o->trace = 1; break;
    case O_LIST: o->list = 1; break;
    case O_QUICK: o->quick = 1; break;
    case O_CHECK: o->check = v; break;
    case O_FILTER: o->filter = v; break;
    case O_PEERS: o->peers = v; break;
    case O_TARGET: o->target = v; break;
    case O_EMIT: o->emit = v; break;
    case O_SELECT: o->select = v; break;
    case O_NAME: o->name = v; break;
    case O_OUT: o->out = v; break;
    case O_EXPR: o->expr = v; break;
    case O_RULES: o->rules = v; break;
    case O_ISA: o->isa = v; break;
    case O_RULE: o->rule = v; break;
    case O_BOUNDS: o->bounds = 1; break;
    case O_QUIET: o->quiet = 1; break;
    case O_DUMP_AFTER: o->dump_after = v; break;
    case O_BENCH: o->bench = 1; break;
    case O_INTEL: o->intel = v; break;
    case O_CPUID: o->cpuid = v; break;
    case O_REPORT: o->report = v; break;
    case O_FROM: o->from = v; break;
    case O_TO: o->to = v; break;
    case O_SHOW_REPORT: o->show_report = 1; break;
    case O_CHECK_RUN: o->check_run = 1; break;
    case O_EMIT_HEADER: o->emit_header = 1; break;
    case O_NO_WIDEN: o->no_widen = 1; break;
    case O_BENCH_RETARGET: o->bench_retarget = 1; break;
    case O_BENCH_VECTORIZE: o->bench_vectorize = 1; break;
    case O_BENCH_DFT: o->bench_dft = 1; break;
    case O_FUNCTION: o->function = v; break;
    case O_VECTORIZED: o->vectorized = 1; break;
    case O_REASSOCIATE: o->reassociate = 1; break;
    case O_CONTRACT: o->contract = 1; break;
    case O_NO_VECTORIZE: o->no_vectorize = 1; break;
    case O_NO_VALIDATE: o->no_validate = 1; break;
    case O_N:
        if (parse_count(word, v, 1, 1 << 20, &n)) return 2;
        o->dft_n = (int)n;
        break;
    case O_INVERSE: o->inverse = 1; break;
    case O_TYPE: o->type = v; break;
    case O_NO_PEEPHOLE: o->no_peephole = 1; break;
    case O_NO_SCHEDULE: o->no_schedule = 1; break;
    case O_NO_CONTRACT: o->no_contract = 1; break;
    case O_DFT_REPORT: o->dft_report = 1; break;
    case O_VECTOR_BITS:
        if (parse_count(word, v, 1, 4096, &n)) return 2;
        o->vector_bits = (int)n;
        break;
    case O_TYPES: o->types = v; break;
    case O_FOCUS: o->focus = v; break;
    case O_RULES_EXTRA: o->rules_extra = v; break;
    case O_GENERAL: o->general = 1; break;
    case O_OP: o->op = v; break;
    case O_HAND_ONLY: o->hand_only = 1; break;
    case O_FROM_SCRATCH: o->from_scratch = 1; break;
    case O_TIME_LIMIT:
        if (parse_count(word, v, 1, 86400, &n)) return 2;
        o->time_limit = (long)n;
        break;
    case O_TIMEOUT:
        if (parse_count(word, v, 1, 3600000, &n)) return 2;
        o->timeout_ms = (long)n;
        break;
    case O_PARAM:
        if (parse_param(v, o)) return 2;
        break;
    case O_SIZE:
        o->size_text = v;
        if (parse_extents("--size", v, v, o->size, &o->nsize)) return 2;
        break;
    case O_INPUT_SIZE:
        if (parse_input_size(v, o)) return 2;
        break;
    }
    return 0;
}

int cli_parse(int argc, char **argv, options *o) {
    *o = (options){.lanes = 16, .seed = 1, .nodes = 1000000, .cmd = argc > 1 ? argv[1] : NULL};
    if (argc < 2) return cli_usage();
    if (!strcmp(argv[1], "--version")) {
        o->form = CLI_VERSION;
        if (argc == 2) return 0;
        fprintf(stderr, "tine --version takes nothing after it, got '%s'\n", argv[2]);
        return 2;
    }
    int form = -1;
    for (int f = 0; f < CLI_FORMS; f++)
        if (COMMANDS[f] && !strcmp(argv[1], COMMANDS[f])) form = f;
    if (is_help(argv[1]) || form == CLI_HELP) { /* tine --help, tine help [COMMAND] */
        o->form = CLI_HELP;
        o->help = argc > 2 ? argv[2] : NULL;
        bool known = false;
        for (int f = 0; f < CLI_FORMS && o->help; f++) known |= COMMANDS[f] && !strcmp(o->help, COMMANDS[f]);
        if (argc > 3) {
            fprintf(stderr, "tine help: takes one COMMAND, got '%s' too\n", argv[3]);
            return 2;
        } else if (o->help && !known) {
            fprintf(stderr, "tine help: unknown command '%s'", o->help);
            suggest(o->help, COMMANDS, CLI_FORMS);
            return 2;
        }
        return 0;
    }
    if (form < 0) {
        fprintf(stderr, "tine: unknown command '%s'", argv[1]);
        suggest(argv[1], COMMANDS, CLI_FORMS);
        fprintf(stderr, "(tine --help lists the commands)\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) { /* tine COMMAND --help, wherever it stands */
        if (i > 2 && !strcmp(argv[i - 1], "-e")) continue; /* an expression may be anything */
        if (is_help(argv[i])) {
            o->form = CLI_HELP;
            o->help = argv[1];
            return 0;
        }
    }
    /* first the words: options with their values, and positional arguments */
    int *opt = malloc(sizeof *opt * (size_t)argc);
    o->params = malloc(sizeof *o->params * (size_t)argc);
    o->input_sizes = malloc(sizeof *o->input_sizes * (size_t)argc);
    o->cflags = malloc(sizeof *o->cflags * (size_t)argc);
    if (!opt || !o->params || !o->input_sizes || !o->cflags) {
        free(opt);
        fprintf(stderr, "tine: out of memory\n");
        return 2;
    }
    const char *positional = NULL;
    bool has_expr = false;
    int rc = classify_words(argc, argv, form, opt, &positional, &has_expr, o);
    if (!rc) rc = positional_form(argv, &form, positional, has_expr, o);
    o->form = (cli_form)form;
    /* then each option: taken by this form, given once (--param once per name), a valid value */
    bool seen[O_COUNT] = {0};
    for (int i = 2; i < argc && !rc; i++) {
        int k = opt[i];
        if (k < 0) continue;
        if (!(OPTIONS[k].forms & (1u << form))) {
            fprintf(stderr, "tine %s does not take %s\n", form_name(o), OPTIONS[k].name);
            rc = 2;
        } else if (seen[k] && k != O_PARAM && k != O_INPUT_SIZE) { /* those once per name */
            fprintf(stderr, "tine: %s is given twice\n", OPTIONS[k].name);
            rc = 2;
        } else {
            seen[k] = true;
            rc = take_option(k, argv[i], OPTIONS[k].value ? argv[i + 1] : NULL, o);
        }
        if (OPTIONS[k].value) i++;
    }
    free(opt);
    if (!rc && form == CLI_RULES && !o->check && !o->list) {
        fprintf(stderr, "tine rules: needs --list or --check FILE\n");
        rc = 2;
    }
    return rc;
}

void cli_free(options *o) {
    free(o->params);
    free(o->input_sizes);
    free(o->cflags);
    o->cflags = NULL;
    o->params = NULL;
    o->input_sizes = NULL;
}

/* ---- files --------------------------------------------------------------------------- */

/* file:line:col: message, the line up to `at` and a caret under it, as the library's
 * located errors look. Tabs and other control bytes are shown as spaces (one column
 * each, so the caret stays under its byte), trailing ones dropped. */
static void located(const char *path, const char *text, size_t at, const char *msg) {
    size_t ls = at;
    while (ls > 0 && text[ls - 1] != '\n') ls--;
    int line = 1;
    for (size_t i = 0; i < ls; i++) line += text[i] == '\n';
    size_t le = at;
    while (le > ls && ((unsigned char)text[le - 1] <= ' ' || text[le - 1] == 0x7f)) le--;
    fprintf(stderr, "%s:%d:%zu: %s\n", path, line, at - ls + 1, msg);
    for (size_t i = ls; i < le; i++)
        fputc((unsigned char)text[i] < ' ' || text[i] == 0x7f ? ' ' : text[i], stderr);
    fprintf(stderr, "\n%*s^\n", (int)(at - ls), "");
}

char *tine_cli_read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tine: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    /* read at most one byte past the limit: /dev/zero or a huge file is refused after
       16 MiB, not read to the end */
    size_t cap = 4096, n = 0;
    char *text = malloc(cap);
    while (text) {
        if (n + 4096 + 1 > cap) {
            char *t = realloc(text, cap *= 2);
            if (!t) free(text);
            text = t;
            if (!text) break;
        }
        size_t want = CLI_MAX_FILE + 1 - n < 4096 ? CLI_MAX_FILE + 1 - n : 4096;
        size_t got = fread(text + n, 1, want, f);
        n += got;
        if (got < want || n > CLI_MAX_FILE) break;
    }
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (!text) {
        fprintf(stderr, "tine: out of memory reading %s\n", path);
        return NULL;
    }
    const char *why = err ? strerror(err) : n > CLI_MAX_FILE ? "larger than 16 MiB, the limit for an input file" : NULL;
    if (why) {
        fprintf(stderr, "tine: cannot read %s: %s\n", path, why);
        free(text);
        return NULL;
    }
    text[n] = 0;
    /* the parsers see a C string: a NUL byte would silently end the text there */
    const char *nul = memchr(text, 0, n);
    if (nul) {
        located(path, text, (size_t)(nul - text), "a NUL byte (tine reads text files)");
        free(text);
        return NULL;
    }
    return text;
}

/* ---- outputs ------------------------------------------------------------------------- */

/* Writes the bytes to f; 0, or the errno (EIO when there is none) after a short write or
 * a failed close. f is closed. */
static int write_close(FILE *f, const void *bytes, size_t n) {
    errno = 0;
    int err = fwrite(bytes, 1, n, f) == n ? 0 : errno ? errno : EIO;
    errno = 0;
    if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
    return err;
}

/* A regular file (or one to be made) is written whole or not at all: the bytes go to a
 * temporary file beside it, which is renamed over it, so a reader (or a second tine
 * writing the same path) never sees a mixture, and a failure leaves the old file as it
 * was. The new file has the old one's permissions, or those fopen would give (0666 less
 * the umask). A symbolic link is followed to the file it names; what is not a regular
 * file (a device such as /dev/null, a pipe) is written in place. */
static int write_replace(const char *path, const void *bytes, size_t n) {
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) return EISDIR;
    if (exists && !S_ISREG(st.st_mode)) {
        FILE *f = fopen(path, "wb");
        return f ? write_close(f, bytes, n) : errno;
    }
    char *real = exists ? realpath(path, NULL) : NULL; /* through symbolic links */
    const char *target = real ? real : path;
    const char *slash = strrchr(target, '/');
    size_t dir = slash ? (size_t)(slash - target) + 1 : 0;
    char *tmp = malloc(dir + strlen(".tine-XXXXXX") + 1);
    if (!tmp) {
        free(real);
        return ENOMEM;
    }
    memcpy(tmp, target, dir);
    strcpy(tmp + dir, ".tine-XXXXXX");
    mode_t mask = umask(0);
    umask(mask);
    int err = 0, fd = mkstemp(tmp);
    if (fd < 0) {
        err = errno;
    } else if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) != 0) {
        err = errno;
        close(fd);
    } else {
        FILE *f = fdopen(fd, "wb");
        if (!f) {
            err = errno;
            close(fd);
        } else {
            err = write_close(f, bytes, n);
        }
        if (!err && rename(tmp, target) != 0) err = errno;
    }
    if (fd >= 0 && err) unlink(tmp);
    free(tmp);
    free(real);
    return err;
}

int cli_write(const char *path, const void *bytes, size_t n) {
    if (!path) { /* stdout is checked once, by cli_finish */
        fwrite(bytes, 1, n, stdout);
        return 0;
    }
    int err = write_replace(path, bytes, n);
    if (err) fprintf(stderr, "tine: cannot write %s: %s\n", path, strerror(err));
    return err ? 1 : 0;
}

int cli_finish(int rc) {
    errno = 0;
    bool lost = fflush(stdout) != 0 || ferror(stdout);
    int err = errno;
    /* a closed stdout (EBADF) loses nothing when nothing was written to it */
    if (fclose(stdout) != 0 && errno != EBADF) {
        lost = true;
        if (!err) err = errno;
    }
    if (lost) {
        fprintf(stderr, "tine: cannot write the standard output: %s\n", err ? strerror(err) : "write error");
        return rc ? rc : 1;
    }
    return rc;
}

/* ---- parameters ---------------------------------------------------------------------- */

int cli_param_value(const char *name, tine_type_t t, const char *text, uint64_t *out) {
    char ts[32];
    tine_type_str(tine_type_with_lanes(t, 1), ts, sizeof ts);
    if (t.kind == TINE_FLOAT) {
        fprintf(stderr, "tine: parameter '%s' is %s: --param gives integers only\n", name, ts);
        return 1;
    }
    bool neg = text[0] == '-';
    uint64_t mag;
    bool over = parse_magnitude(text + neg, &mag) != 0; /* parse_param checked the syntax */
    int64_t lo = t.kind == TINE_BOOL ? 0 : tine_type_min(t);
    uint64_t hi = t.kind == TINE_BOOL ? 1 : tine_type_max(t);
    /* |lo| as unsigned: 0 for unsigned types, 2^(bits-1) for signed ones */
    uint64_t neg_limit = lo < 0 ? (uint64_t)0 - (uint64_t)lo : 0;
    if (over || (neg ? mag > neg_limit : mag > hi)) {
        fprintf(stderr, "tine: parameter '%s' is %s: %s is out of range [%" PRId64 ", %" PRIu64 "]\n", name, ts, text,
                lo, hi);
        return 1;
    }
    *out = neg ? (uint64_t)0 - mag : mag;
    return 0;
}

/* ---- reporting and timing ---------------------------------------------------------- */

static bool internal_error_seen;

void cli_report(tine_ctx_t *ctx, const char *prefix) {
    const char *msg = tine_error(ctx);
    if (!msg) msg = "failed without a message";
    if (tine_error_kind(ctx) == TINE_ERROR_INTERNAL) {
        internal_error_seen = true;
        fprintf(stderr, "tine: internal error: %s\n(this is a bug in tine, not in the input)\n", msg);
    } else {
        fprintf(stderr, "%s%s\n", prefix, msg);
    }
}

bool cli_internal_error_seen(void) { return internal_error_seen; }

tine_kernel_t *cli_bench_kernel(tine_ctx_t *ctx, const char *name, bool common) {
    char path[512];
    const bench_entry *be = bench_entry_find(name);
    snprintf(path, sizeof path, "%s/bench/%s/%s.tine", TINE_SOURCE_DIR, be ? bench_entry_dir(be) : "kernels", name);
    char *text = tine_cli_read_file(path);
    if (!text) return NULL;
    tine_kernel_t *k = common ? tine_kernel_parse_common(ctx, text, path) : tine_kernel_parse(ctx, text, path);
    free(text);
    return k;
}

const char *const CLI_SOBEL =
    "u8(min(absd(u16(a_u8) + u16(b_u8)*2 + u16(c_u8), u16(d_u8) + u16(e_u8)*2 + u16(f_u8))\n"
    "     + absd(u16(g_u8) + u16(h_u8)*2 + u16(i_u8), u16(j_u8) + u16(k_u8)*2 + u16(l_u8)), 255))";

int cli_edge_values(tine_type_t t, uint64_t *v) {
    if (t.kind == TINE_BOOL) {
        v[0] = 0;
        v[1] = 1;
        return 2;
    }
    int n = 0;
    v[n++] = 0;
    v[n++] = 1;
    v[n++] = tine_type_max(t);
    if (t.kind == TINE_INT) {
        v[n++] = (uint64_t)tine_type_min(t);
        v[n++] = (uint64_t)-1;
    }
    return n;
}

uint64_t cli_random_lane(tine_type_t t, uint64_t *s) {
    uint64_t r = cli_rand(s);
    if (t.kind == TINE_BOOL) return r & 1;
    if (t.kind == TINE_FLOAT) {
        return tine_float_to_bits(t, (double)(int64_t)(r >> 40) / 4096.0);
    }
    if ((r & 3) == 0) { /* an edge value a quarter of the time */
        uint64_t edges[5];
        int n = cli_edge_values(tine_type_with_lanes(t, 1), edges);
        r = edges[(r >> 2) % (uint64_t)n];
    }
    if (t.bits < 64) {
        r &= (UINT64_C(1) << t.bits) - 1;
        if (t.kind == TINE_INT && (r >> (t.bits - 1)) & 1) r |= ~((UINT64_C(1) << t.bits) - 1);
    }
    return r;
}

void cli_store_elem(void *dst, uint64_t v, tine_type_t t, size_t bytes) {
    memcpy(dst, &v, bytes < 8 ? bytes : 8);
    if (bytes > 8) memset((char *)dst + 8, t.kind == TINE_INT && (int64_t)v < 0 ? 0xff : 0, bytes - 8);
}

tine_kernel_t *cli_load_kernel(tine_ctx_t *ctx, const char *path) {
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        fprintf(stderr, "tine: cannot read %s: %s (compile and run take a kernel file; an expression goes through -e)\n",
                path, strerror(errno));
        return NULL;
    }
    char *text = tine_cli_read_file(path);
    if (!text) return NULL;
    tine_kernel_t *k = tine_kernel_parse(ctx, text, path);
    free(text);
    if (!k) cli_report(ctx, "");
    return k;
}

uint64_t cli_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

tine_ctx_t *cli_ctx(const options *o) {
    tine_ctx_t *ctx = tine_ctx_new();
    if (o->rules && o->form != CLI_VERIFY && tine_set_lower_rules(ctx, o->rules)) {
        fprintf(stderr, "tine %s: --rules takes hand or synthesized, not '%s'\n", o->cmd, o->rules);
        tine_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}
