#!/usr/bin/env python3
"""Counting the solutions of short proof-game problems against a plain perft of the same depth (issue 34's
target: counting every N-ply game that reaches a diagram, N <= 10, faster than perft N), in the same run.

For N = 6..10, each problem of benches/proofgame-problems.txt with N plies is counted with `perftlab
proofgame DIAGRAM --plies N --json --count` and, for N <= MAX_PERFT, `perftlab perft --depth N --threads 1`
(the initial position, one core, its hash table and transposition merging) is run once per round; RUNS rounds,
interleaved. Time: user + system CPU of each process (getrusage of the children), so the machine's load
inflates both alike less than wall time would. Prints each round, then per N the median and maximum over the
problems and rounds, perft's median, and the verdicts and counts.

Usage: benches/proofgame-count-vs-perft.py [PERFTLAB] [RUNS] [MAX_PERFT]
(defaults target/release/perftlab, 3, 7; perft 8 takes about 10 s of CPU, 9 and 10 far more).
"""
import json
import os
import resource
import statistics
import subprocess
import sys

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/perftlab"
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
MAX_PERFT = int(sys.argv[3]) if len(sys.argv) > 3 else 7
HERE = os.path.dirname(os.path.abspath(__file__))


def problems():
    out = {}
    with open(os.path.join(HERE, "proofgame-problems.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            placement, turn, n = line.split()
            if int(n) <= 10:
                out.setdefault(int(n), []).append(f"{placement} {turn}")
    return out


def cpu(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), out.stdout


def main():
    probs = problems()
    res = {}
    for run in range(RUNS):
        for n in sorted(probs):
            for d in probs[n]:
                t, o = cpu([BIN, "proofgame", d, "--plies", str(n), "--json", "--count"])
                j = json.loads(o)
                res.setdefault(("count", n), []).append(t)
                res.setdefault(("verdicts", n), []).append((j["verdict"], j["count"]))
            if n <= MAX_PERFT:
                t, _ = cpu([BIN, "perft", "--depth", str(n), "--threads", "1", "--quiet"])
                res.setdefault(("perft", n), []).append(t)
            print(f"run {run + 1} N {n}: count CPU {[round(x, 4) for x in res[('count', n)][-len(probs[n]):]]}"
                  f" perft {res.get(('perft', n), [None])[-1]} load {os.getloadavg()[0]:.1f}", flush=True)
    print("N\tcount median s\tcount max s\tperft median s\tverdicts (count)")
    for n in sorted(probs):
        c = res[("count", n)]
        p = res.get(("perft", n))
        print(f"{n}\t{statistics.median(c):.4f}\t{max(c):.4f}\t"
              f"{'not run' if p is None else f'{statistics.median(p):.3f}'}\t{res[('verdicts', n)][:len(probs[n])]}")


if __name__ == "__main__":
    main()
