#!/usr/bin/env python3
"""Per-counted-position event rates of the fused kernel (leaf2.wgsl + lean.wgsl), from the event-count build
of tools/event-count.patch (docs/gpu-notes.md, "The fused kernel at perft 9's depth").

The event-count build reads env PERFTLAB_EV: 0 is the normal move count (leaves), 1 counts the counting calls
(the counted positions, remaining depth 1), and 2-13 count how often one part of the generator ran in those
calls (EVENTS below). For each event this script runs `BIN suite EPD --backend gpu --no-merge --hash 0 --json`
(every line of EPD carries a placeholder count, so every line fails and reports its actual total: see
tools/sample-nodes.py), then reports each event per counted position as a ratio estimator
sum(events) / sum(counted positions) over the lines, with a bootstrap standard error over the lines
(--boot resamples, seed --boot-seed) and one from 10 batches, and the same for the hand-weighted WGSL
operation count (WEIGHTS; WEIGHTS_BEFORE for the kernel before the 32-bit magics). With one EPD line (a full tree) the figures are exact and no error is given.

As a check, --check-bin (a normal release build) runs the same suite on the CPU backend: its leaves must equal
event 0 line by line, and the magic lookups must equal 2 per counted position plus one per own slider, two per
king target and per e.p. capture tested, and one per castling destination tested (a residual of 0).

Usage: tools/event-counts.py --bin /tmp/perftlab-ev --epd ply6.epd [--check-bin target/release/perftlab]
       [--json out.json] [--events 0,1,...]
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys

EVENTS = {
    0: "leaves (the move count)",
    1: "counted positions (counting calls)",
    2: "magic slider lookups",
    3: "own sliders (bishops, rooks, queens twice)",
    4: "own knights",
    5: "king targets tested for attack (incl. castling paths)",
    6: "castling candidates past the rook test",
    7: "sniper lines (checker or pinner candidates)",
    8: "pinned pawns (not in check)",
    9: "e.p. captures tested",
    10: "in check",
    11: "double check",
    12: "castling destinations tested (one rook lookup each)",
    13: "e.p. square set",
}

# WGSL operations, counted by hand (docs/gpu-notes.md "Less work per count"), for the kernel as committed: a
# magic lookup with 32-bit split magics is 7 ALU operations + 4 loads = 11; 207 fixed part (with both sniper
# lookups) + 90 lean_make and loop per counted position; own slider 32, knight 19, king target 61, castling
# candidate 14 (one mask load and test, the king path), sniper line 25 (each including its own magic lookups);
# one extra rook lookup (11) per castling destination tested.
WEIGHTS = {1: 297, 3: 32, 4: 19, 5: 61, 6: 14, 7: 25, 12: 11}
# The same for the kernel before (commit d1543cd: 64-bit "fancy" magics from 32-bit halves, 33 per lookup;
# castling paths from `span`s, 55 per candidate), applied to the same events (the events are the same in
# both kernels), so one run gives both figures.
WEIGHTS_BEFORE = {1: 340, 3: 54, 4: 19, 5: 105, 6: 55, 7: 25, 12: 33}


def run_suite(binary, epd, backend, ev=None):
    env = dict(os.environ)
    if ev is not None:
        env["PERFTLAB_EV"] = str(ev)
    cmd = [binary, "suite", epd, "--backend", backend, "--no-merge", "--hash", "0", "--json", "--quiet"]
    if backend == "cpu":
        cmd += ["--threads", "1"]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"event-counts: {' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()}")
    d = json.loads(out.stdout)
    got = {}
    for f in d["failures"]:
        if f["error"] is not None or f["actual"] is None:
            sys.exit(f"event-counts: line {f['line']}: {f['error']}")
        got[f["line"]] = f["actual"]
    if d["passed"] != 0 or len(got) != d["positions"]:
        sys.exit(f"event-counts: expected every line to report (placeholder counts), got {d['passed']} passed")
    return [got[k] for k in sorted(got)]


def ratio(xs, ys):
    return sum(xs) / sum(ys)


def errors(xs, ys, boot, seed):
    n = len(xs)
    if n < 2:
        return None, None
    rng = random.Random(seed)
    reps = []
    for _ in range(boot):
        idx = [rng.randrange(n) for _ in range(n)]
        reps.append(sum(xs[i] for i in idx) / sum(ys[i] for i in idx))
    b = 10
    size = n // b
    batch = [ratio(xs[k * size:(k + 1) * size], ys[k * size:(k + 1) * size]) for k in range(b)] if size else []
    be = statistics.stdev(batch) / b ** 0.5 if len(batch) > 1 else None
    return statistics.stdev(reps), be


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the event-count build")
    ap.add_argument("--epd", required=True)
    ap.add_argument("--check-bin", help="a normal release build: CPU leaves must equal event 0")
    ap.add_argument("--events", default=",".join(str(e) for e in EVENTS))
    ap.add_argument("--boot", type=int, default=2000)
    ap.add_argument("--boot-seed", type=int, default=1)
    ap.add_argument("--json", help="write per-line totals and the results here")
    a = ap.parse_args()
    events = [int(e) for e in a.events.split(",")]
    for need in (0, 1):
        if need not in events:
            sys.exit("event-counts: --events must include 0 (leaves) and 1 (counted positions)")

    per = {}
    for e in events:
        per[e] = run_suite(a.bin, a.epd, "gpu", e)
        print(f"event {e:2}: total {sum(per[e])}", file=sys.stderr)
    n = len(per[1])
    if a.check_bin:
        cpu = run_suite(a.check_bin, a.epd, "cpu")
        if cpu != per[0]:
            sys.exit("event-counts: CHECK FAILED: GPU event 0 differs from the CPU backend's leaves")
        print(f"check: event 0 = CPU leaves on all {n} lines", file=sys.stderr)
    if all(e in per for e in (2, 3, 5, 9, 12)):
        resid = sum(per[2]) - 2 * sum(per[1]) - sum(per[3]) - 2 * sum(per[5]) - 2 * sum(per[9]) - sum(per[12])
        print(f"check: magic lookups less their call sites = {resid} (must be 0)", file=sys.stderr)

    ys = per[1]
    results = {}
    print(f"{n} lines, {sum(ys)} counted positions, {sum(per[0])} leaves")
    print(f"{'event':<55} {'per counted pos':>16} {'boot SE':>10} {'batch SE':>10}")
    for e in events:
        r = ratio(per[e], ys)
        se, be = errors(per[e], ys, a.boot, a.boot_seed)
        results[EVENTS[e]] = {"event": e, "per_counted": r, "boot_se": se, "batch_se": be}
        print(f"{EVENTS[e]:<55} {r:16.5f} {se or 0:10.5f} {be or 0:10.5f}")
    for label, weights in (("weighted WGSL operations", WEIGHTS),
                           ("weighted WGSL operations, kernel before", WEIGHTS_BEFORE)):
        if not all(e in per for e in weights):
            continue
        w = [sum(weights[e] * per[e][i] for e in weights) for i in range(n)]
        r = ratio(w, ys)
        se, be = errors(w, ys, a.boot, a.boot_seed)
        results[label] = {"per_counted": r, "boot_se": se, "batch_se": be}
        print(f"{label:<55} {r:16.2f} {se or 0:10.2f} {be or 0:10.2f}")
        lw = ratio(w, per[0])
        print(f"{label + ' per leaf':<55} {lw:16.2f}")
        results[label + " per leaf"] = {"per_leaf": lw}
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"epd": a.epd, "lines": n, "per_line": {str(e): per[e] for e in per},
                       "results": results, "weights": WEIGHTS,
                       "weights_before": WEIGHTS_BEFORE, "boot": a.boot, "boot_seed": a.boot_seed}, f)


if __name__ == "__main__":
    main()
