#!/usr/bin/env python3
"""Proof-game speed (issue 19): positions after random games of PLIES plies (uniform random legal moves,
seeded, chosen from `perftlab analyze --json`), then `perftlab reachable --fen` on each, one at a time (the
search is single-threaded), timed by wall clock including process start. Prints each position's time, result
and game length, then the count, the median, the maximum and how many took more than one second.

Usage: benches/reachable-times.py [N (100)] [SEED (11)] [PLIES (10)] [BIN (target/release/perftlab)]
"""
import json
import random
import statistics
import subprocess
import sys
import time

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 11
plies = int(sys.argv[3]) if len(sys.argv) > 3 else 10
binary = sys.argv[4] if len(sys.argv) > 4 else "target/release/perftlab"
random.seed(seed)


def analyze(moves):
    args = [binary, "analyze", "--json"] + (["--moves"] + moves if moves else [])
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


times = []
results = {}
for i in range(n):
    moves = []
    a = analyze(moves)
    while len(moves) < plies and a["legal_moves"]:
        moves.append(random.choice(a["legal_moves"]))
        a = analyze(moves)
    start = time.perf_counter()
    out = subprocess.run([binary, "reachable", "--fen", a["fen"], "--json"], capture_output=True, text=True)
    dt = time.perf_counter() - start
    r = json.loads(out.stdout)
    times.append(dt)
    results[r["result"]] = results.get(r["result"], 0) + 1
    print(f"{dt:7.3f} s  {r['result']:<12} {r.get('plies')!s:>4} plies (played {len(moves)})  {a['fen']}")
print(
    f"{n} positions: {results}; wall time per position: median {statistics.median(times):.3f} s, "
    f"max {max(times):.3f} s, over 1 s: {sum(t > 1 for t in times)}"
)
