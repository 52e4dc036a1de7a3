#!/usr/bin/env python3
"""dft.py — the helpers of tests/dft/bench.sh and bench_arm.sh (`tine bench --dft`).

  dft.py asm-stats FILE.s SYMBOL           instructions<TAB>spills<TAB>folded of SYMBOL's body
  dft.py report BUILD RESULTS.tsv           the x86 table (markdown, stdout and RESULTS.md)
  dft.py neon-cycles OBJDUMP TRACE SYMBOL HOWMANY MCPU
                                            cycles per transform of a traced call (Neon)
  dft.py report-arm BUILD RESULTS.tsv       the Neon table
  dft.py selftest                           the counters on small known inputs

Instructions are every instruction between SYMBOL's label and its end (.Lfunc_end, .size, or
the next global function). A spill is a move of a vector register to or from the stack —
x86: vmovaps/vmovups/vmovapd/vmovupd/vmovdqa*/vmovdqu*/vmovss/vmovsd (and their SSE forms)
with an rsp- or rbp-based memory operand; AArch64: str/ldr/stp/ldp/stur/ldur of a q, d or s
register at [sp ...] or [x29 ...] (the callee-saved d8-d15 a function saves count: they are
stack traffic that register pressure costs). `folded` counts the other instructions with a
vector register and a stack operand (a reload LLVM folded into an arithmetic instruction).
"""
import math
import os
import re
import subprocess
import sys
from collections import Counter

# ---- assembly statistics -----------------------------------------------------------------

def function_lines(path, symbol):
    """The lines of symbol's body in an assembly file (AT&T, Intel or AArch64 syntax)."""
    out, inside = [], False
    for line in open(path, errors="replace"):
        s = line.rstrip("\n")
        if not inside:
            if re.match(r"^\s*%s:" % re.escape(symbol), s):
                inside = True
            continue
        t = s.strip()
        if t.startswith(".Lfunc_end") or re.match(r"\.size\s+%s\b" % re.escape(symbol), t):
            break
        if re.match(r"^[A-Za-z_][\w.$]*:", t) and not t.startswith(".L"):
            break  # the next function
        out.append(s)
    return out


def strip_comment(s):
    """s without its comment: '//' (AArch64), or '#' not followed by a digit or '-' (x86;
    in AArch64 '#' starts an immediate, #16, #-16, #0x10)."""
    return re.sub(r"#(?![-\d]).*$", "", s.split("//")[0]).strip()


def instructions(lines):
    ins = []
    for l in lines:
        s = strip_comment(l)
        if not s:
            continue
        m = re.match(r"^(\.?[\w.$]+):\s*(.*)$", s)
        if m:
            s = m.group(2).strip()
            if not s:
                continue
        if s.startswith("."):
            continue
        ins.append(s)
    return ins


X86_MOVES = re.compile(r"^v?mov(aps|ups|apd|upd|dqa|dqu|dqa32|dqa64|dqu8|dqu16|dqu32|dqu64|ss|sd)$")
X86_VREG = re.compile(r"%?\b[xyz]mm\d+\b")
X86_STACK = re.compile(r"\(%(rsp|rbp)\b|\[\s*(rsp|rbp)\b")
ARM_MOVES = re.compile(r"^(str|ldr|stp|ldp|stur|ldur)$")
ARM_FPREG = re.compile(r"\b[qds]\d+\b")
ARM_STACK = re.compile(r"\[\s*(sp|x29)\b")


def stats(ins):
    """(instructions, spills, folded) of a list of instructions."""
    spills = folded = 0
    for s in ins:
        op = s.split()[0].lower()
        rest = s[len(op):]
        if X86_VREG.search(rest) and X86_STACK.search(rest):
            if X86_MOVES.match(op):
                spills += 1
            else:
                folded += 1
        elif ARM_STACK.search(rest) and ARM_FPREG.search(rest.split("[")[0]):
            if ARM_MOVES.match(op):
                spills += 1
            else:
                folded += 1
    return len(ins), spills, folded


def asm_stats(path, symbol):
    """The codelet's statistics: its entry point's and those of its block loops (tine dft
    writes them as the private function SYMBOL.blocks, .LSYMBOL.blocks in the assembly)."""
    lines = function_lines(path, symbol)
    if not lines:
        return None
    lines += function_lines(path, ".L%s.blocks" % symbol) or function_lines(path, "%s.blocks" % symbol)
    return stats(instructions(lines))

# ---- results -------------------------------------------------------------------------------

def read_result(path):
    """The key=value fields of the RESULT line of a driver's output, or None."""
    try:
        for line in open(path, errors="replace"):
            if line.startswith("RESULT\t"):
                return dict(f.split("=", 1) for f in line.rstrip("\n").split("\t")[1:] if "=" in f)
    except OSError:
        pass
    return None


def read_kv(path):
    out = {}
    if os.path.exists(path):
        for line in open(path, errors="replace"):
            if "\t" in line:
                k, v = line.rstrip("\n").split("\t", 1)
                out[k] = v
    return out


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def fmt_ns(v):
    if v is None:
        return "—"
    return "%.0f" % v if v >= 1000 else "%.1f" % v if v >= 10 else "%.2f" % v


def fmt_ratio(v):
    return "—" if v is None else "%.2f" % v


def gmean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def write_outputs(out, lines_tsv, results):
    """The table on stdout and in RESULTS with .md; the result lines in RESULTS."""
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    with open(results, "w") as f:
        f.write("\n".join(lines_tsv) + ("\n" if lines_tsv else ""))
    with open(os.path.splitext(results)[0] + ".md", "w") as f:
        f.write(text)


VARIANTS = [("tine", "tine"), ("nopeep", "--no-peephole"), ("nosched", "--no-schedule"), ("noopt", "neither")]


def asm_cell(d, v):
    st = read_kv(os.path.join(d, "asm.tsv")).get(v)
    if not st:
        return "—"
    i, s, f = st.split("\t")
    return "%s/%s" % (i, s) + (" (+%s folded)" % f if f != "0" else "")


def report(build, results):
    meta = read_kv(os.path.join(build, "meta.tsv"))
    rows = [l.split("\t") for l in open(os.path.join(build, "rows.tsv")).read().splitlines() if l]
    variants = [v for v in VARIANTS if v[0] in meta.get("variants", "tine").split()]
    out = []
    out.append("tine bench --dft: %s; %s" % (meta.get("tine", "tine dft"), meta.get("params", "")))
    out.append("FFTW: %s. KissFFT %s." % (meta.get("fftw", ""), meta.get("kiss", "")))
    out.append("")
    lines_tsv = []
    for target in sorted(set(r[0] for r in rows), key=lambda t: [r[0] for r in rows].index(t)):
        out.append("### %s" % target)
        out.append("")
        head = ["N", "type", "tine ns", "FFTW ns", "KissFFT ns", "FFTW/tine", "Kiss/tine", "insns/spills"]
        for v, label in variants[1:]:
            head += ["%s ns (×tine)" % label, "insns/spills"]
        head += ["spread"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        gm = {}
        notes = []
        for t, ty, n, d in (r for r in rows if r[0] == target):
            res = read_result(os.path.join(d, "run.txt"))
            note = open(os.path.join(d, "notes.txt")).read().strip() if os.path.exists(os.path.join(d, "notes.txt")) else ""
            if note:
                notes.append("N=%s %s: %s" % (n, ty, note.replace("\n", "; ")))
            if not res:
                out.append("| %s | %s | %s |" % (n, ty, " | ".join(["—"] * (len(head) - 2))))
                continue
            lines_tsv.append("\t".join(["%s=%s" % kv for kv in res.items()]))
            g = lambda k: fnum(res.get(k))
            cells = [n, ty, fmt_ns(g("tine_ns")), fmt_ns(g("fftw_ns")), fmt_ns(g("kiss_ns")),
                     fmt_ratio(g("fftw_over_tine")), fmt_ratio(g("kiss_over_tine")), asm_cell(d, "tine")]
            for v, _ in variants[1:]:
                if g(v + "_ns") is None:
                    cells += ["—", asm_cell(d, v)]
                else:
                    cells += ["%s (%.2f)" % (fmt_ns(g(v + "_ns")), g(v + "_over_tine")), asm_cell(d, v)]
            spread = [(g(k + "_q3") - g(k + "_q1")) / g(k + "_ns") for k in ["tine", "fftw", "kiss"] + [v for v, _ in variants]
                      if g(k + "_ns") and g(k + "_q1") is not None]
            cells.append("%.1f%%" % (100 * max(spread)) if spread else "—")
            out.append("| " + " | ".join(cells) + " |")
            for k in ["fftw_over_tine", "kiss_over_tine"] + [v + "_over_tine" for v, _ in variants[1:]]:
                gm.setdefault((ty, k), []).append(g(k))
        for ty in ("f32", "f64"):
            if (ty, "fftw_over_tine") not in gm:
                continue
            cells = ["geomean", ty, "", "", "", fmt_ratio(gmean(gm[(ty, "fftw_over_tine")])),
                     fmt_ratio(gmean(gm.get((ty, "kiss_over_tine"), []))), ""]
            for v, _ in variants[1:]:
                cells += [fmt_ratio(gmean(gm.get((ty, v + "_over_tine"), []))), ""]
            cells.append("")
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        for n in notes:
            out.append("- " + n)
        if notes:
            out.append("")
    out.append("ns: median ns per transform over the rounds; FFTW/tine, Kiss/tine: the median of the per-round "
               "ratios (above 1: tine faster); an ablation's (×tine): its time over the full tine's, per round "
               "(above 1: the pass it lacks helps); insns/spills: instructions in the codelet's body and vector "
               "moves to or from the stack (folded: other stack operands); spread: the largest IQR/median of the row.")
    write_outputs(out, lines_tsv, results)

# ---- Neon: llvm-mca over a traced call -------------------------------------------------------

def objdump_function(path):
    """address -> instruction text (branch targets as addresses), from llvm-objdump -d."""
    text = {}
    for l in open(path, errors="replace"):
        m = re.match(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{8}\s+)?(.*)$", l)
        if m and m.group(2).strip():
            text[int(m.group(1), 16)] = re.sub(r"\s*<[^>]*>", "", m.group(2)).split("//")[0].strip()
    return text


def branch_target(s):
    op = s.split()[0]
    if op in ("b", "bl") or op.startswith("b.") or op in ("cbz", "cbnz", "tbz", "tbnz"):
        m = re.search(r"(?:0x)?([0-9a-f]+)\s*$", s)
        if m:
            return op, int(m.group(1), 16)
    return None, None


def for_mca(s):
    """An objdump instruction as llvm-mca reads it: branch targets become one label."""
    op, tgt = branch_target(s)
    if tgt is None:
        return s
    return re.sub(r"(?:0x)?[0-9a-f]+\s*$", ".Lt", s)


def mca(ins, mcpu, iterations):
    out = subprocess.run(["llvm-mca-19", "-mtriple=aarch64", "-mcpu=" + mcpu, "-iterations=%d" % iterations],
                         input=".Lt:\n" + "\n".join(ins) + "\n", capture_output=True, text=True)
    m = re.search(r"Total Cycles:\s+(\d+)", out.stdout)
    it = re.search(r"Iterations:\s+(\d+)", out.stdout)
    if not m or not it:
        return None, " ".join(out.stderr.strip().splitlines()[:2])
    return int(m.group(1)) / int(it.group(1)), None


TRACE_LIMIT = 200000  # instructions of a traced call llvm-mca is given
LOOP_COVERAGE = 0.85  # the share of a call's instructions its loop must execute to stand for it


def neon_cycles(objdump_txt, trace_log, howmany, mcpu):
    """(cycles per transform in the steady-state loop, transforms per iteration, loop
    instructions, cycles per transform of the whole call, note)."""
    text = objdump_function(objdump_txt)
    pcs = []
    for l in open(trace_log, errors="replace"):
        m = re.search(r"\[[0-9a-f]+/([0-9a-f]+)/", l)
        if m:
            pc = int(m.group(1), 16)
            if pc in text:
                pcs.append(pc)
    if not pcs:
        return None, None, None, None, "no trace"
    count = Counter(pcs)
    best = None
    for a, s in text.items():
        op, tgt = branch_target(s)
        if tgt is not None and tgt <= a and tgt in text and count[a] > 0:
            key = (count[a], -(a - tgt))
            if best is None or key > best[0]:
                best = (key, a, tgt)
    # the whole call, back to back, unless the trace is too long for llvm-mca to be quick
    per_call, note = None, ""
    if len(pcs) <= TRACE_LIMIT:
        call, err = mca([for_mca(text[p]) for p in pcs], mcpu, max(1, min(10, TRACE_LIMIT // len(pcs))))
        per_call = call / howmany if call is not None else None
    else:
        note = "call not measured: %d instructions traced; " % len(pcs)
    if best is None:
        return None, None, None, per_call, note + "no loop in the trace"
    _, a, tgt = best
    body = [for_mca(text[x]) for x in sorted(text) if tgt <= x <= a]
    iters = count[a]
    per_iter = howmany / iters
    # a loop that is not most of the call (a codelet with inner loops, the stand-in) does
    # not stand for it: then the whole call is the measure
    coverage = len(body) * iters / len(pcs)
    if coverage < LOOP_COVERAGE:
        return per_call, per_iter, len(body), per_call, note + "the hottest loop is %.0f%% of the call: whole-call cycles" % (100 * coverage)
    cyc, err2 = mca(body, mcpu, 100)
    if cyc is None:
        return None, per_iter, len(body), per_call, note + "llvm-mca: %s" % err2
    return cyc / per_iter, per_iter, len(body), per_call, note.rstrip("; ")





def report_arm(build, results):
    meta = read_kv(os.path.join(build, "meta.tsv"))
    rows = [l.split("\t") for l in open(os.path.join(build, "rows.tsv")).read().splitlines() if l]
    variants = [v for v in VARIANTS if v[0] in meta.get("variants", "tine").split()]
    fftw = meta.get("fftw_neon", "") == "yes"
    out = ["tine bench --dft --target arm-64: %s; llvm-mca-19 -mcpu=%s" % (meta.get("tine", "tine dft"), meta.get("mcpu", "")),
           "FFTW-Neon: %s" % meta.get("fftw_note", ""), ""]
    head = ["N", "type", "tine cycles", "per iter", "insns/spills"]
    if fftw:
        head += ["FFTW-Neon cycles", "FFTW/tine", "FFTW insns/spills"]
    for v, label in variants[1:]:
        head += ["%s cycles (×tine)" % label]
    head += ["tine call cycles"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    lines_tsv, notes, gm = [], [], {}
    for ty, n, d in rows:
        cyc = {}
        for l in open(os.path.join(d, "cycles.tsv")).read().splitlines() if os.path.exists(os.path.join(d, "cycles.tsv")) else []:
            f = l.split("\t")
            cyc[f[0]] = f[1:]
        note = open(os.path.join(d, "notes.txt")).read().strip() if os.path.exists(os.path.join(d, "notes.txt")) else ""
        note = "; ".join([note.replace("\n", "; ")] * bool(note) +
                         ["%s: %s" % (v, f[4]) for v, f in cyc.items() if len(f) > 4 and f[4]])
        if note:
            notes.append("N=%s %s: %s" % (n, ty, note))
        g = lambda v, i: fnum(cyc.get(v, [None] * 5)[i])
        t = g("tine", 0)
        cells = [n, ty, "%.2f" % t if t is not None else "—", cyc.get("tine", ["", "—"])[1] or "—", asm_cell(d, "tine")]
        if fftw:
            # the better of FFTW's codelet built by clang and by gcc
            best = min((k for k in ("fftw", "fftwg") if g(k, 0) is not None), key=lambda k: g(k, 0), default=None)
            f = g(best, 0) if best else None
            r = f / t if f is not None and t else None
            gm.setdefault((ty, "fftw"), []).append(r)
            cells += ["%.2f (%s)" % (f, "gcc" if best == "fftwg" else "clang") if f is not None else "—", fmt_ratio(r),
                      asm_cell(d, best) if best else "—"]
        for v, _ in variants[1:]:
            c = g(v, 0)
            cells.append("%.2f (%.2f)" % (c, c / t) if c is not None and t else "—")
            if c is not None and t:
                gm.setdefault((ty, v), []).append(c / t)
        c = g("tine", 3)
        cells.append("%.2f" % c if c is not None else "—")
        out.append("| " + " | ".join(cells) + " |")
        for v, f in cyc.items():
            lines_tsv.append("\t".join(["n=%s" % n, "type=%s" % ty, "impl=%s" % v, "cycles=%s" % f[0], "per_iter=%s" % f[1],
                                        "loop_insns=%s" % f[2], "call_cycles=%s" % f[3], "note=%s" % f[4]]))
    for ty in ("f32", "f64"):
        if not any(k[0] == ty for k in gm):
            continue
        cells = ["geomean", ty, "", "", ""]
        if fftw:
            cells += ["", fmt_ratio(gmean(gm.get((ty, "fftw"), []))), ""]
        for v, _ in variants[1:]:
            cells.append(fmt_ratio(gmean(gm.get((ty, v), []))))
        cells.append("")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    for n in notes:
        out.append("- " + n)
    out.append("")
    out.append("cycles: llvm-mca's cycles per transform of the codelet's steady-state loop (the hottest backward "
               "branch of a call on %s contiguous transforms traced under qemu-aarch64, 100 iterations) divided by "
               "the transforms one iteration does (per iter); FFTW/tine above 1: tine faster; call cycles: the whole "
               "traced call (prologue, loop, epilogue) per transform." % meta.get("howmany", "?"))
    write_outputs(out, lines_tsv, results)

# ---- the counters' own test ------------------------------------------------------------------

SELFTEST = [
    ("AT&T", """f:
	vmovaps	%ymm3, -40(%rsp)                # 32-byte Spill
	vaddps	(%rsp), %ymm1, %ymm2            # 32-byte Folded Reload
	vmovups	(%rdi), %ymm0
	vmovups	%ymm0, 32(%rsi)
	vmovaps	-72(%rbp), %zmm4
	retq
.Lfunc_end0:
""", (6, 2, 1)),
    ("Intel", """f:
	vmovapd	ymmword ptr [rsp + 32], ymm1
	vmovupd	ymm2, ymmword ptr [rdi]
	vmulpd	ymm0, ymm1, ymmword ptr [rsp + 64]
	ret
	.size f, .-f
""", (4, 1, 1)),
    ("AArch64", """f:                                      // @f
	stp	d9, d8, [sp, #-16]!             // 16-byte Folded Spill
	ldr	q0, [x0, #16]
	str	q1, [sp, #32]                   // 16-byte Spill
	fadd	v0.4s, v0.4s, v1.4s
	stp	x29, x30, [sp, #48]
	ldp	q2, q3, [x29, #-32]
.LBB0_2:
	b.ne	.LBB0_2
	ret
.Lfunc_end0:
""", (8, 3, 0)),
]


def selftest():
    import tempfile
    bad = 0
    for name, text, want in SELFTEST:
        with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
            f.write("\t.text\n" + text + "g:\n\tret\n")
        got = asm_stats(f.name, "f")
        os.unlink(f.name)
        if got != want:
            print("dft.py selftest: %s: got %s, want %s (instructions, spills, folded)" % (name, got, want))
            bad += 1
    return 1 if bad else 0


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    cmd = argv[1]
    if cmd == "asm-stats":
        st = asm_stats(argv[2], argv[3])
        if st is None:
            print("-\t-\t-")
            return 1
        print("%d\t%d\t%d" % st)
        return 0
    if cmd == "report":
        report(argv[2], argv[3])
        return 0
    if cmd == "report-arm":
        report_arm(argv[2], argv[3])
        return 0
    if cmd == "neon-cycles":
        c, per, nins, call, note = neon_cycles(argv[2], argv[3], int(argv[5]), argv[6])
        f = lambda v: "-" if v is None else "%.2f" % v if isinstance(v, float) else str(v)
        print("\t".join([f(c), f(per), f(nins), f(call), note]))
        return 0
    if cmd == "selftest":
        return selftest()
    sys.stderr.write("dft.py: unknown command %s\n" % cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
