#!/usr/bin/env python3
"""Same-run comparison of `perftlab dead` with the Chess Unwinnability Analyzer (CHA, Miguel Ambrona,
github.com/miguel-ambrona/D3-Chess, GPL v3) and its Rust successor CHA-Solver (github.com/miguel-ambrona/
chasolver, MIT); neither is part of this repository.

Usage:
  benches/dead-vs-cha.py [--vectors PATH/test-vector.txt] [--labelled PATH ...] [--queries PATH ...] [--cha PATH/cha]
                         [--chasolver PATH/analyzer] [--perftlab BIN] [--runs 3] [--chunks K]
                         [--max-queries N] [--threads-check] [--modes full,quick,scan]
                         [--undetermined-out FILE]

CHA-Solver's tool is its batch example `analyzer` (stdin lines `FEN white|black`; `--fast` runs its
`is_unwinnable_fast` and prints only `unwinnable` lines): build it outside this repository, e.g.
`git clone https://github.com/miguel-ambrona/chasolver /tmp/chasolver && cd /tmp/chasolver &&
cargo build --release --example analyzer` (then `--chasolver /tmp/chasolver/target/release/examples/analyzer`).
Its test files `tests/positions.txt` (community queries) and `tests/lichess.txt` (Lichess positions) have the
same `LL FEN` format as CHA's vectors: pass them with `--labelled` (read from the path given, never copied).
Modes: `full` (perftlab, CHA, CHA-Solver), `quick` (perftlab --quick, CHA -quick), `scan` (perftlab --scan,
CHA-Solver --fast: proofs of unwinnability only). Decided verdicts of every tool are compared with the labels
and with one another (`cross-check`: queries two tools both decided with different verdicts).

Sets:
  - `vectors`: CHA's public test vectors (`tests/test-vector.txt` in its repository; read from the path given,
    never copied here). Each line `LL FEN` (LL = WB, W-, -B, --) gives two queries: White and Black.
  - `project`: tests/data/dead-positions.txt (positions perftlab constructs and labels with proofs).
  - `--queries PATH`: unlabelled `FEN white|black` lines, one query each, e.g. the final positions of
    Stockfish's games against itself that benches/selfplay-finals.py writes (the side that just moved): the
    tools' verdicts are counted and cross-checked, with no label to compare with.

For each set it reports:
  - agreement: decided queries whose verdict agrees / disagrees with the label, and the undetermined ones
    (listed, up to 30);
  - speed: queries per second of the whole process (start-up included, same for both tools), one thread, wall
    time and the child's CPU time (user + system: fairer on a loaded machine),
    full analysis and quick mode, runs interleaved (perftlab, CHA, perftlab quick, CHA quick, repeated
    `--runs` times); the median of the runs and the ratio of medians, and the median of the per-run ratios.
    With `--chunks K` each run goes through the queries in K slices, every tool on a slice before the next
    slice (the tools' order reversed on every other slice), so that a shared machine's drift, which lasts
    minutes, falls on both tools alike; a run's time is the sum over its slices;
  - with `--threads-check`: perftlab full analysis on 1 and 2 threads (median ratio).

CHA prints every verdict in full mode, only `unwinnable` ones with `-quick`; its default limit is 500,000 nodes
and it has no time limit. perftlab runs with its defaults (6,000,000 nodes, 1 s per query).
Build CHA (outside this repository): Stockfish at the commit CHA's lib/stockfish/Makefile names (51deae8), with
`stockfish.cpp` added to SRCS and `EXTRACXXFLAGS=-DNNUE_EMBEDDING_OFF` (no net file needed), then
`g++ -o cha util.cpp semistatic.cpp dynamic.cpp cha.cpp main.cpp -I<sf/src> <sf objects> -lpthread -O3`.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_labelled(path):
    """[(fen, label)] from `LL FEN` lines (comments and blank lines skipped)."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            label, fen = line.split(" ", 1)
            if "?" in label:  # a side not decided by a proof: no label to compare with
                continue
            fields = fen.split()
            # A few vectors give only placement and side to move: add "no castling, no e.p." for both tools.
            fields += ["-", "-"][: max(0, 4 - len(fields))]
            out.append((" ".join(fields), label))
    return out


def queries_of(positions):
    """[(fen, side, expected)] with expected True (can mate) / False (cannot)."""
    out = []
    for fen, label in positions:
        out.append((fen, "white", label[0] != "-"))
        out.append((fen, "black", label[1] != "-"))
    return out


def load_queries(path):
    """[(fen, side, None)] from unlabelled `FEN SIDE` lines (CHA-Solver's query format; comments skipped)."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fen, _, side = line.rpartition(" ")
            if side not in ("white", "black") or not fen:
                sys.exit(f"{path}:{n}: expected `FEN white` or `FEN black`")
            out.append((fen, side, None))
    return out


def run_timed(cmd, text):
    """(stdout, wall seconds, CPU seconds of the child: user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(cmd, input=text, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    return p.stdout, seconds, cpu


def perftlab_results(stdout, queries, scan):
    """perftlab's verdicts in input order (--scan prints only the unwinnable ones: the rest undetermined)."""
    rows = [json.loads(l) for l in stdout.splitlines() if l.startswith("{")]
    if not scan:
        return [r["result"] for r in rows]
    unwinnable = {f"{r['fen']} {r['side']}" for r in rows if r["result"] == "unwinnable"}
    return ["unwinnable" if f"{fen} {side}" in unwinnable else "undetermined" for fen, side, _ in queries]


def chasolver_results(stdout, queries, fast):
    """CHA-Solver analyzer's verdicts in input order: lines `VERDICT [moves M] FEN SIDE`."""
    found = {}
    for l in stdout.splitlines():
        word, _, rest = l.partition(" ")
        if word not in ("winnable", "unwinnable", "undetermined"):
            continue
        if word == "winnable" and rest.startswith("moves "):
            rest = rest.split(" ", 2)[2] if rest.count(" ") >= 2 else ""
        found[rest.strip()] = word
    out = [found.get(f"{fen} {side}", "undetermined") for fen, side, _ in queries]
    if not fast and len(found) < len(set(f"{fen} {side}" for fen, side, _ in queries)):
        sys.exit(f"CHA-Solver printed {len(found)} verdicts for {len(queries)} queries")
    return out


def cross_check(results):
    """Print, for each pair of tools, the queries both decided with different verdicts."""
    names = list(results)
    total = 0
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            both = [(a, b) for a, b in zip(results[x], results[y]) if "undetermined" not in (a, b)]
            bad = sum(a != b for a, b in both)
            total += bad
            print(f"  cross-check {x} vs {y}: {len(both)} decided by both, {bad} disagree")
    return total


def cha_results(stdout, queries, quick):
    """CHA's verdicts in input order ('undetermined' where quick mode prints nothing)."""
    words = ("winnable", "unwinnable", "undetermined")
    lines = [l for l in stdout.splitlines() if l.split(" ", 1)[0].rstrip("#") in words]
    if not quick:
        if len(lines) != len(queries):
            sys.exit(f"CHA printed {len(lines)} verdicts for {len(queries)} queries")
        return [l.split(" ", 1)[0].rstrip("#") for l in lines]
    unwinnable = {l.rsplit("(", 1)[1].rstrip(")").strip() for l in lines}
    return ["unwinnable" if f"{fen} {side}" in unwinnable else "undetermined" for fen, side, _ in queries]


def agreement(name, queries, results):
    agree, disagree, undetermined = 0, [], []
    if all(expected is None for _, _, expected in queries):
        undetermined = [f"{fen} {side}" for (fen, side, _), r in zip(queries, results) if r == "undetermined"]
        won = sum(r == "winnable" for r in results)
        print(f"  {name}: {won} winnable, {len(results) - won - len(undetermined)} unwinnable, "
              f"{len(undetermined)} undetermined of {len(queries)} queries (unlabelled)")
        for u in undetermined[:30]:
            print(f"    undetermined {u}")
        return 0, [], undetermined
    for (fen, side, expected), r in zip(queries, results):
        if r == "undetermined":
            undetermined.append(f"{fen} {side}")
        elif (r == "winnable") == expected:
            agree += 1
        else:
            disagree.append(f"{fen} {side}: {r}")
    print(f"  {name}: {agree} agree, {len(disagree)} disagree, {len(undetermined)} undetermined "
          f"of {len(queries)} queries")
    for d in disagree[:30]:
        print(f"    DISAGREE {d}")
    for u in undetermined[:30]:
        print(f"    undetermined {u}")
    return agree, disagree, undetermined


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vectors", help="CHA's tests/test-vector.txt")
    ap.add_argument("--cha", default=os.environ.get("CHA"), help="the CHA binary (optional)")
    ap.add_argument("--chasolver", default=os.environ.get("CHASOLVER"),
                    help="CHA-Solver's examples/analyzer binary (optional)")
    ap.add_argument("--labelled", action="append", default=[],
                    help="another `LL FEN` file (e.g. CHA-Solver's tests/positions.txt or tests/lichess.txt)")
    ap.add_argument("--queries", action="append", default=[],
                    help="an unlabelled `FEN SIDE` file (e.g. from benches/selfplay-finals.py): speed and the "
                         "cross-check only")
    ap.add_argument("--perftlab", default=os.path.join(ROOT, "target/release/perftlab"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chunks", type=int, default=1, help="slices per run, tools interleaved per slice")
    ap.add_argument("--max-queries", type=int, default=0, help="use only the first N positions of each set (2N queries)")
    ap.add_argument("--threads-check", action="store_true")
    ap.add_argument("--modes", default="full,quick", help="full, quick, scan (comma-separated)")
    ap.add_argument("--undetermined-out", help="write every undetermined query of each tool here (with its label)")
    a = ap.parse_args()
    if a.runs < 1 or a.chunks < 1:
        sys.exit(f"--runs and --chunks must be at least 1 (got {a.runs} and {a.chunks})")

    # Each set: (name, queries per position, queries).
    sets = [("project", 2, queries_of(load_labelled(os.path.join(ROOT, "tests/data/dead-positions.txt"))))]
    if a.vectors:
        sets.append(("vectors", 2, queries_of(load_labelled(a.vectors))))
    for path in a.labelled:
        sets.append((os.path.basename(path), 2, queries_of(load_labelled(path))))
    for path in a.queries:
        sets.append((os.path.basename(path), 1, load_queries(path)))
    if a.chasolver and not os.access(a.chasolver, os.X_OK):
        sys.exit(f"--chasolver: '{a.chasolver}' is not an executable")
    if a.cha and not os.access(a.cha, os.X_OK):
        sys.exit(f"--cha: '{a.cha}' is not an executable")
    if not a.cha:
        print("CHA not given (--cha or $CHA): perftlab only")

    for name, per_position, queries in sets:
        if a.max_queries:
            queries = queries[: per_position * a.max_queries]
        positions = range(len(queries) // per_position)
        k = min(a.chunks, len(queries))
        slices = [queries[len(queries) * i // k: len(queries) * (i + 1) // k] for i in range(k)]
        texts, paths = [], []
        for sl in slices:
            texts.append("".join(f"{fen} {side}\n" for fen, side, _ in sl))
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                f.write(texts[-1])
                paths.append(f.name)
        print(f"set {name}: {len(positions)} positions, {len(queries)} queries, {a.runs} interleaved runs"
              f" of {k} slice(s)")
        modes = a.modes.split(",")
        tools = []
        # Each tool: (name, command with PATH where the slice's file goes, quick mode).
        if "full" in modes:
            tools.append(("perftlab", [a.perftlab, "dead", "PATH", "--json", "--threads", "1", "--quiet"], False))
            if a.cha:
                tools.append(("cha", [a.cha], False))
            if a.chasolver:
                tools.append(("chasolver", [a.chasolver], False))
        if "quick" in modes:
            tools.append(("perftlab --quick", [a.perftlab, "dead", "PATH", "--json", "--threads", "1", "--quiet",
                                               "--quick"], True))
            if a.cha:
                tools.append(("cha -quick", [a.cha, "-quick"], True))
        if "scan" in modes:
            tools.append(("perftlab --scan", [a.perftlab, "dead", "PATH", "--json", "--threads", "1", "--quiet",
                                              "--scan"], True))
            if a.chasolver:
                tools.append(("chasolver --fast", [a.chasolver, "--fast"], True))
        if a.threads_check and "full" in modes:
            tools.append(("perftlab 2 threads", [a.perftlab, "dead", "PATH", "--json", "--threads", "2",
                                                 "--quiet"], False))
        times = {t[0]: [] for t in tools}
        cpus = {t[0]: [] for t in tools}
        results = {t[0]: [] for t in tools}
        for run in range(a.runs):
            for t in tools:
                times[t[0]].append(0.0)
                cpus[t[0]].append(0.0)
            for i, (sl, slice_text, path) in enumerate(zip(slices, texts, paths)):
                for tool, cmd, quick in (tools if i % 2 == 0 else tools[::-1]):
                    cmd = [path if c == "PATH" else c for c in cmd]
                    stdin = slice_text if tool.startswith("cha") else None
                    out, secs, cpu = run_timed(cmd, stdin)
                    times[tool][-1] += secs
                    cpus[tool][-1] += cpu
                    if run == 0:
                        if tool.startswith("perftlab"):
                            results[tool] += perftlab_results(out, sl, tool.endswith("--scan"))
                        elif tool.startswith("chasolver"):
                            results[tool] += chasolver_results(out, sl, quick)
                        else:
                            results[tool] += cha_results(out, sl, quick)
        for path in paths:
            os.unlink(path)
        for tool, _, _ in tools:
            _, _, und = agreement(tool, queries, results[tool])
            if a.undetermined_out:
                labels = {f"{fen} {side}": expected for fen, side, expected in queries}
                with open(a.undetermined_out, "a") as f:
                    for q in und:
                        label = {True: "winnable", False: "unwinnable", None: "none"}[labels[q]]
                        f.write(f"{name}\t{tool}\t{q}\tlabel={label}\n")
        med = {t: statistics.median(v) for t, v in times.items()}
        cmed = {t: statistics.median(v) for t, v in cpus.items()}
        for tool in times:
            print(f"  {tool}: wall median {med[tool]:.3f} s, {len(queries) / med[tool]:.0f} queries/s; "
                  f"CPU median {cmed[tool]:.3f} s (wall runs: {', '.join(f'{s:.3f}' for s in times[tool])}; "
                  f"CPU runs: {', '.join(f'{s:.3f}' for s in cpus[tool])})")
        def paired(peer, ours, table):
            return statistics.median(p / o for p, o in zip(table[peer], table[ours]))

        if a.cha and "full" in modes:
            print(f"  full analysis: perftlab / CHA speed = {med['cha'] / med['perftlab']:.2f}x wall, "
                  f"{cmed['cha'] / cmed['perftlab']:.2f}x CPU (ratio of medians); "
                  f"{paired('cha', 'perftlab', times):.2f}x wall, {paired('cha', 'perftlab', cpus):.2f}x CPU "
                  f"(median of the per-run ratios)")
        if a.cha and "quick" in modes:
            print(f"  quick: perftlab / CHA speed = {med['cha -quick'] / med['perftlab --quick']:.2f}x wall, "
                  f"{cmed['cha -quick'] / cmed['perftlab --quick']:.2f}x CPU (ratio of medians); "
                  f"{paired('cha -quick', 'perftlab --quick', times):.2f}x wall, "
                  f"{paired('cha -quick', 'perftlab --quick', cpus):.2f}x CPU (median of the per-run ratios)")
            pq = sum(r == "unwinnable" for r in results["perftlab --quick"])
            cq = sum(r == "unwinnable" for r in results["cha -quick"])
            print(f"  quick: unwinnable proved: perftlab {pq}, CHA {cq}")
        if a.chasolver and "full" in modes:
            print(f"  full analysis: perftlab / CHA-Solver speed = {med['chasolver'] / med['perftlab']:.2f}x wall, "
                  f"{cmed['chasolver'] / cmed['perftlab']:.2f}x CPU (ratio of medians); "
                  f"{paired('chasolver', 'perftlab', cpus):.2f}x CPU (median of the per-run ratios)")
        if a.chasolver and "scan" in modes:
            print(f"  scan: perftlab --scan / CHA-Solver --fast speed = "
                  f"{med['chasolver --fast'] / med['perftlab --scan']:.2f}x wall, "
                  f"{cmed['chasolver --fast'] / cmed['perftlab --scan']:.2f}x CPU (ratio of medians); "
                  f"{paired('chasolver --fast', 'perftlab --scan', cpus):.2f}x CPU (median of the per-run ratios)")
            pq = sum(r == "unwinnable" for r in results["perftlab --scan"])
            cq = sum(r == "unwinnable" for r in results["chasolver --fast"])
            print(f"  scan: unwinnable proved: perftlab {pq}, CHA-Solver {cq}")
        if len(results) > 1:
            cross_check(results)
        if a.threads_check and "full" in modes:
            print(f"  threads: 2 / 1 speed = {med['perftlab'] / med['perftlab 2 threads']:.2f}x (medians)")


if __name__ == "__main__":
    main()
