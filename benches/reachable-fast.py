#!/usr/bin/env python3
"""Decided fraction and time per position of `perftlab reachable` (default: short games exactly, then the fast
search) on a file of FENs, one process per position, wall clock including process start.

    benches/reachable-fast.py FENS.txt [--every K] [--offset O] [--limit N] [-- extra reachable flags]

Lines may carry CHA-Solver's two-character label (`WB fen`); `#` lines are skipped. Prints one line per
position and a summary (reachable count, median and 90th percentile seconds, over the time limit). The binary
is $PERFTLAB (default target/release/perftlab); several, comma-separated (`PERFTLAB=old,new`), are run on each
position in turn, the order alternating from one position to the next (interleaved, so that the machine's load
falls on both alike), with a summary per binary. The load average is printed at the start and the end (the
figures are wall clock: on a shared machine they move with its load).
"""
import json, os, subprocess, sys, time

def main():
    args = sys.argv[1:]
    extra = args[args.index('--') + 1:] if '--' in args else []
    args = args[:args.index('--')] if '--' in args else args
    path, every, offset, limit = args[0], 1, 0, None
    if '--every' in args:
        every = int(args[args.index('--every') + 1])
    if '--offset' in args:
        offset = int(args[args.index('--offset') + 1])
    if '--limit' in args:
        limit = int(args[args.index('--limit') + 1])
    fens = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        if len(line) > 3 and line[2] == ' ' and set(line[:2]) <= set('WB-'):
            line = line[3:]
        fens.append(line)
    fens = fens[offset::every][:limit]
    bins = os.environ.get('PERFTLAB', 'target/release/perftlab').split(',')
    times = {b: [] for b in bins}
    found = {b: 0 for b in bins}
    print(f'# load average at start: {os.getloadavg()}', flush=True)
    for i, f in enumerate(fens):
        order = bins if i % 2 == 0 else bins[::-1]
        for b in order:
            t = time.time()
            p = subprocess.run([b, 'reachable', '--fen', f, '--json'] + extra, capture_output=True, text=True)
            dt = time.time() - t
            r = json.loads(p.stdout)['result'] if p.stdout else 'error'
            found[b] += r == 'reachable'
            times[b].append(dt)
            tag = f'\t{b}' if len(bins) > 1 else ''
            print(f'{r}\t{dt:.3f}\t{f}{tag}', flush=True)
    print(f'# load average at end: {os.getloadavg()}')
    for b in bins:
        ts = sorted(times[b])
        n = len(ts)
        print(f'# {b}: {found[b]} / {n} reachable; median {ts[n // 2]:.3f} s; 90th pct {ts[int(n * 0.9)]:.3f} s; '
              f'max {ts[-1]:.3f} s; over 5 s: {sum(t > 5.0 for t in ts)}')

main()
