#!/usr/bin/env python3
"""Same-run comparison of `perftlab proofgame` with Euclide (Étienne Dupuis, github.com/svart-riddare/euclide,
GPL v3; not part of this repository) on Euclide's own problems (issue 34: "decide more than Euclide on the same
problems, faster").

Usage:
  benches/proofgame-vs-euclide.py --euclide PATH/euclide-console --natch PATH/problems/natch-test-problems.txt
                                  [--perftlab BIN] [--rounds 1] [--time-limit 10] [--raw FILE]

The problems are the 92 of tests/data/proofgame-euclide.txt (names, plies and Euclide's published verdicts);
their diagrams are read from Euclide's `problems/natch-test-problems.txt` (knights written S there; read from
the path given, never copied). Each problem is solved by one process of each program with `--time-limit`
seconds (perftlab `proofgame DIAGRAM --plies N --stop-at-cook --time-limit T --json`, Euclide `FILE --quiet
--threads=1 --timeout=T`), the two alternated (perftlab first on every other problem and round), one thread
each; the CPU seconds (user + system) of each child are read from its resource usage.

Building Euclide on Linux (outside this repository): its CMake files are under euclide-console/build/linux
(add `-DCMAKE_POLICY_VERSION_MINIMUM=3.5` for a CMake of 4.x and `CXXFLAGS="-include limits -include
cstdint"` for a recent GCC). Euclide master (bc9a9c2, 2021) then answers "No solution" to 58 of the 92
problems, because its element-wise `minimize`/`maximize` overloads for `std::array` (utilities/algorithm.h)
declare the array's size as an `int` template parameter: GCC does not deduce it from `std::array<T, 64>`
(whose size is a `std::size_t`) and picks the scalar overload, which compares whole arrays
lexicographically, so a pawn's distances become those of one promoted personality. Declaring that parameter
`std::size_t` (two lines) makes the Linux build reproduce the published output (problems/
natch-test-problems.output.txt, made on Windows). See docs/proofgames.md.

Printed: the decided counts of each program, the problems where the verdicts differ, and on the problems both
decide the CPU totals, how many each is faster on and the median ratio. --raw writes one line per problem and
round: round, plies, name, perftlab verdict, CPU s, positions, Euclide verdict, CPU s, positions, load.
"""
import argparse
import collections
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECIDED = ("unique", "cooked", "no_solution")


def child_cpu(cmd, cwd=None):
    """Run `cmd`; its output and the CPU seconds (user + system) it used."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=cwd)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


def perftlab(binary, diagram, plies, limit):
    fen = diagram.replace("S", "N").replace("s", "n")
    cmd = [binary, "proofgame", fen, "--plies", plies, "--stop-at-cook", "--time-limit", str(limit), "--json"]
    p, cpu = child_cpu(cmd)
    lines = p.stdout.strip().splitlines()
    if p.returncode not in (0, 1) or not lines:  # 1: undetermined
        sys.exit(f"perftlab failed on {fen} {plies}: exit {p.returncode}: {p.stderr.strip()[:300]}")
    j = json.loads(lines[-1])
    return j["verdict"], cpu, str(j.get("nodes", "-"))


def euclide(binary, diagram, plies, limit, work):
    path = os.path.join(work, "p.txt")
    with open(path, "w") as f:
        f.write(f"----\n-- p.test\n----\n\n{diagram}\n{plies}\n")
    _, cpu = child_cpu([binary, path, "--quiet", "--threads=1", f"--timeout={limit}"], cwd=work)
    out_path = os.path.join(work, "p.output.txt")
    out = open(out_path, encoding="utf-8", errors="replace").read() if os.path.exists(out_path) else ""
    block = [l.strip() for l in out.split("Result:")[-1].split("\n")[:6] if l.strip()] if "Result:" in out else []
    positions = next((l.split(":")[1].strip() for l in block if l.startswith("Positions")), "-")
    said = next((l for l in block if not l.startswith(("Complexity", "Positions"))), "?")
    verdict = {"Unique proofgame": "unique", "No solution": "no_solution", "Cooked": "cooked",
               "Solving aborted": "undetermined"}.get(said, "cooked" if "solutions" in said else said)
    return verdict, cpu, positions


def problems(natch):
    text = open(natch, encoding="utf-8", errors="replace").read()
    diagrams = {m.group(1): (m.group(2), m.group(3))
                for m in re.finditer(r"-- (\S+)\.test\n-+\n\n(\S+)\n(\d+)", text)}
    ours = [l.split() for l in open(os.path.join(ROOT, "tests/data/proofgame-euclide.txt"))
            if l.strip() and not l.startswith("#")]
    missing = [f[3] for f in ours if f[3] not in diagrams]
    if missing:
        sys.exit(f"not in {natch}: {', '.join(missing[:5])}")
    return [(f[3], *diagrams[f[3]]) for f in ours]


def summary(rows):
    by = collections.defaultdict(list)
    for r in rows:
        by[r[2]].append(r)
    med = lambda v, i: statistics.median(float(r[i]) for r in v)
    print(f"problems {len(by)}; decided: perftlab {sum(v[0][3] in DECIDED for v in by.values())}, "
          f"Euclide {sum(v[0][6] in DECIDED for v in by.values())}")
    both, ratios, ours_total, theirs_total, faster = 0, [], 0.0, 0.0, 0
    for name, v in by.items():
        a, b = med(v, 4), med(v, 7)
        if v[0][3] != v[0][6]:
            print(f"  differ: {v[0][1]:>2} {name}: perftlab {v[0][3]} {a:.3f} s, Euclide {v[0][6]} {b:.3f} s")
        if v[0][3] in DECIDED and v[0][6] in DECIDED:
            both += 1
            ours_total += a
            theirs_total += b
            faster += a < b
            ratios.append(max(b, 0.001) / max(a, 0.001))
    if both:
        print(f"both decide {both}: CPU perftlab {ours_total:.2f} s, Euclide {theirs_total:.2f} s; perftlab "
              f"faster on {faster}; median Euclide/perftlab {statistics.median(ratios):.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--euclide", required=True)
    ap.add_argument("--natch", required=True)
    ap.add_argument("--perftlab", default=os.path.join(ROOT, "target/release/perftlab"))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--time-limit", type=int, default=10)
    ap.add_argument("--raw")
    a = ap.parse_args()
    rows = []
    work = tempfile.mkdtemp(prefix="euclide-")
    raw = open(a.raw, "w") if a.raw else None
    for rnd in range(a.rounds):
        for i, (name, diagram, plies) in enumerate(problems(a.natch)):
            if (rnd + i) % 2 == 0:
                x = perftlab(a.perftlab, diagram, plies, a.time_limit)
                y = euclide(a.euclide, diagram, plies, a.time_limit, work)
            else:
                y = euclide(a.euclide, diagram, plies, a.time_limit, work)
                x = perftlab(a.perftlab, diagram, plies, a.time_limit)
            row = [str(rnd), plies, name, x[0], f"{x[1]:.3f}", x[2], y[0], f"{y[1]:.3f}", y[2],
                   f"{os.getloadavg()[0]:.2f}"]
            rows.append(row)
            if raw:
                print("\t".join(row), file=raw, flush=True)
    summary(rows)


if __name__ == "__main__":
    main()
