#!/usr/bin/env python3
"""Sample nodes of the start position's move tree uniformly at a given ply (with multiplicity: every path of
PLY moves is equally likely), and write them as an EPD suite file.

Method: draw r uniformly in [0, perft(root, PLY)), then walk down, at each node taking the child (root moves
in UCI order, from `perftlab perft --divide --json`) whose cumulative perft at the remaining depth passes r
(r minus the counts of the children before it). The node reached is the r-th path of the tree in that order,
so each of the perft(root, PLY) paths is drawn with the same probability. Divides are cached by path.

Each EPD line is `FEN ;DDEPTH EXPECTED` with a placeholder EXPECTED (default 10^15, never a count here) so
that `perftlab suite --json` reports every line's actual count as a failure: that is how
tools/event-counts.py reads per-position totals of the event-count build. A second file (OUT.paths) holds
the move path of each sample, one per line, for provenance.

Usage: tools/sample-nodes.py --ply 6 --count 1000 --seed 9 --out /tmp/ply6.epd [--bin target/release/perftlab]
       [--depth 3] [--expected 1000000000000000]
Pure Python (3.8+); `random.Random(seed).randrange` is stable across CPython 3.2+.
"""

import argparse
import json
import os
import random
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ply", type=int, required=True, help="depth of the sampled nodes (plies from the start)")
    ap.add_argument("--count", type=int, required=True, help="how many samples (with replacement)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True, help="EPD file to write")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target",
                                                  "release", "perftlab"))
    ap.add_argument("--depth", type=int, default=3, help="depth of the EPD's ;D opcode")
    ap.add_argument("--expected", type=int, default=10**15, help="placeholder count in the ;D opcode")
    a = ap.parse_args()
    if a.ply < 1 or a.count < 1 or a.depth < 1:
        sys.exit("sample-nodes: --ply, --count and --depth must be at least 1")

    cache = {}

    def perft_json(path, depth, divide):
        cmd = [a.bin, "perft", "--startpos", "--depth", str(depth), "--json", "--threads", "1", "--hash", "16"]
        if divide:
            cmd.append("--divide")
        if path:
            cmd += ["--moves", *path]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def divide(path, depth):
        key = (path, depth)
        if key not in cache:
            cache[key] = sorted(perft_json(path, depth, True)["divide"].items())
        return cache[key]

    total = sum(n for _, n in divide((), a.ply))
    rng = random.Random(a.seed)
    lines, paths = [], []
    for i in range(a.count):
        r = rng.randrange(total)
        path = ()
        for remaining in range(a.ply, 0, -1):
            for move, n in divide(path, remaining):
                if r < n:
                    path += (move,)
                    break
                r -= n
            else:
                sys.exit("sample-nodes: walk fell off the tree (divide counts do not add up)")
        fen = perft_json(path, 1, False)["fen"]
        lines.append(f"{fen} ;D{a.depth} {a.expected}\n")
        paths.append(" ".join(path) + "\n")
        if (i + 1) % 100 == 0:
            print(f"sample-nodes: {i + 1}/{a.count}", file=sys.stderr)
    with open(a.out, "w") as f:
        f.writelines(lines)
    with open(a.out + ".paths", "w") as f:
        f.writelines(paths)
    print(f"sample-nodes: {a.count} nodes at ply {a.ply} of {total} paths, seed {a.seed} -> {a.out}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
