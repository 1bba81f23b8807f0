#!/usr/bin/env python3
"""Lane spread of the fused kernel's per-thread work at the remaining-2 level, from the event-count build of
tools/event-count.patch (docs/gpu-notes.md, "The fused kernel at perft 9's depth").

Each fused-kernel thread counts one remaining-2 position; the children of one parent are contiguous in the
level. For the first GROUPS paths of a tools/sample-nodes.py `.paths` file (uniformly drawn nodes: ply 6 for
perft 9), every child goes into an EPD line with ;D2, so the event-count build gives, per thread, its counting
calls (iterations of the outer loop) and its hand-weighted WGSL operations (the weights of
tools/event-counts.py). A warp issues at least as many instructions as its slowest lane, so
sum(work) / sum(lanes x max lane work) is an UPPER bound on the SIMT efficiency (the real cost is higher
still when lanes are slow in different loops). Two warp models: 32 consecutive threads of the groups
concatenated in sample order (neighbouring parents in the real level are siblings, likelier alike: this
overstates the spread across a parent boundary) and one parent's children as a warp (18-44 lanes: this
understates it). Errors: bootstrap over the parents (500 resamples, seed 1).

Usage: tools/warp-spread.py --bin /tmp/perftlab-ev --paths ply6a.epd.paths --groups 200 --out /tmp/warp
"""

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("event_counts", os.path.join(HERE, "event-counts.py"))
ec = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ec)


def eff_windows(groups, x, warp=32):
    seq = [x[j] for g in groups for j in g]
    tot = cap = 0
    for k in range(0, len(seq) - len(seq) % warp, warp):
        w = seq[k:k + warp]
        tot += sum(w)
        cap += warp * max(w)
    return tot / cap


def eff_groups(groups, x):
    tot = cap = 0
    for g in groups:
        w = [x[j] for j in g]
        tot += sum(w)
        cap += len(w) * max(w)
    return tot / cap


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the event-count build")
    ap.add_argument("--paths", required=True, help="a tools/sample-nodes.py .paths file")
    ap.add_argument("--groups", type=int, default=200, help="how many of its paths (parents)")
    ap.add_argument("--out", required=True, help="prefix of the files written (.epd, .json)")
    a = ap.parse_args()

    def perft_json(path, depth, divide):
        cmd = [a.bin, "perft", "--startpos", "--depth", str(depth), "--json", "--threads", "1", "--hash", "16"]
        if divide:
            cmd.append("--divide")
        if path:
            cmd += ["--moves", *path]
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)

    sizes, lines = [], []
    with open(a.paths) as f:
        parents = [line.split() for line in f.read().splitlines()[:a.groups]]
    for path in parents:
        kids = sorted(perft_json(path, 1, True)["divide"])
        sizes.append(len(kids))
        for m in kids:
            lines.append(f"{perft_json(path + [m], 1, False)['fen']} ;D2 1000000000000000\n")
    with open(a.out + ".epd", "w") as f:
        f.writelines(lines)

    per = {}
    for e in [0, 1] + sorted(e for e in ec.WEIGHTS if e != 1):
        per[e] = ec.run_suite(a.bin, a.out + ".epd", "gpu", e)
    n = len(per[1])
    work = [sum(ec.WEIGHTS[e] * per[e][i] for e in ec.WEIGHTS) for i in range(n)]
    calls = per[1]
    groups, i = [], 0
    for s in sizes:
        groups.append(list(range(i, i + s)))
        i += s

    rng = random.Random(1)
    print(f"{len(groups)} parents, {n} threads, {sum(calls)} counted positions; per thread: "
          f"{sum(work) / n:.0f} operations (coefficient of variation {statistics.pstdev(work) / (sum(work) / n):.2f}), "
          f"{sum(calls) / n:.2f} counting calls")
    res = {}
    for name, f in (("32 consecutive threads", eff_windows), ("one parent's children", eff_groups)):
        for label, x in (("operations", work), ("counting calls", calls)):
            reps = [f([groups[rng.randrange(len(groups))] for _ in groups], x) for _ in range(500)]
            v, se = f(groups, x), statistics.stdev(reps)
            res[f"{name}, {label}"] = {"efficiency_bound": v, "boot_se": se}
            print(f"warp = {name:<24} {label:<15} efficiency <= {v:.3f} ± {se:.3f}")
    with open(a.out + ".json", "w") as f:
        json.dump({"sizes": sizes, "per_line": {str(e): per[e] for e in per}, "results": res}, f)


if __name__ == "__main__":
    main()
