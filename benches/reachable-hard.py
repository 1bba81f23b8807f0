#!/usr/bin/env python3
"""`perftlab reachable` scored against labelled hard random positions (issue 32's held-out target: at least 95 %
of the illegal ones proved impossible, at least 90 % of the legal ones shown by a game, 0 wrong).

    benches/reachable-hard.py [LABELS (tests/data/hard-random-texel.txt)] [--offset O] [--limit N]
        [-- extra reachable flags]

LABELS holds lines `legal FEN ; ...`, `illegal FEN ; ...` or `unknown FEN ; ...` (written by
benches/random-legal-set.py from Texel's proof-game tool); `#` lines are skipped. Each position is decided by
its own process, `perftlab reachable --fen FEN --json` at the defaults (`--time-limit 5`) plus the extra flags,
timed by wall clock including process start. Every game perftlab prints is replayed here by python-chess from
the initial position (an independent generator) and must reach the FEN (placement, side to move, castling
rights, and the e.p. square when one is given).

Wrong answers: a position labelled legal (Texel's game replayed) called impossible, a position labelled illegal
(Texel's proof) given a game, or a game that does not replay. Each is printed at once with its FEN and makes
the exit code 1. Prints one line per position and a summary: per label, the counts of impossible / reachable
/ undetermined, the median and maximum seconds; the load average at the start and the end. The binary is
$PERFTLAB (default target/release/perftlab). `--offset O --limit N` takes positions O to O + N - 1 (0-based)
of the labelled ones, so that a long run can be split.
"""
import json
import os
import statistics
import subprocess
import sys
import time

import chess


def replays(uci_moves, fen):
    """True when the UCI moves, played by python-chess from the initial position, reach FEN."""
    board = chess.Board()
    for m in uci_moves:
        move = chess.Move.from_uci(m)
        if move not in board.legal_moves:
            return False
        board.push(move)
    target = chess.Board(fen)
    if target.ep_square is None:
        board.ep_square = None
    return (board.board_fen() == target.board_fen() and board.turn == target.turn
            and board.castling_rights == target.castling_rights and board.ep_square == target.ep_square)


def main():
    args = sys.argv[1:]
    extra = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    limit = offset = None
    for flag in ("--limit", "--offset"):
        if flag in args:
            i = args.index(flag)
            if flag == "--limit":
                limit = int(args[i + 1])
            else:
                offset = int(args[i + 1])
            del args[i:i + 2]
    path = args[0] if args else "tests/data/hard-random-texel.txt"
    rows = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        label, rest = line.split(" ", 1)
        rows.append((label, rest.split(" ; ")[0].strip()))
    rows = rows[offset:][:limit]
    binary = os.environ.get("PERFTLAB", "target/release/perftlab")
    print(f"# {binary} reachable --json {' '.join(extra)} on {len(rows)} positions of {path}")
    print(f"# load average at start: {os.getloadavg()}", flush=True)
    counts, times, wrong = {}, {}, []
    for label, fen in rows:
        t = time.time()
        p = subprocess.run([binary, "reachable", "--fen", fen, "--json"] + extra, capture_output=True, text=True)
        dt = time.time() - t
        try:
            out = json.loads(p.stdout)
            result = out["result"]
        except (ValueError, KeyError):
            out, result = {}, "error"
        if result == "reachable":
            start_ok = out.get("start", chess.STARTING_FEN).split()[:4] == chess.STARTING_FEN.split()[:4]
            if not (start_ok and replays(out.get("game") or [], fen)):
                result = "bad-game"
        bad = (result == "bad-game" or result == "error" or result == "invalid"
               or (label == "legal" and result == "impossible")
               or (label == "illegal" and result == "reachable"))
        if bad:
            wrong.append((label, result, fen))
            print(f"WRONG: labelled {label}, perftlab says {result}: {fen}", flush=True)
        counts.setdefault(label, {}).setdefault(result, 0)
        counts[label][result] += 1
        times.setdefault(label, []).append(dt)
        print(f"{label}\t{result}\t{dt:.3f}\t{fen}", flush=True)
    print(f"# load average at end: {os.getloadavg()}")
    every = [t for ts in times.values() for t in ts]
    for label in sorted(counts):
        c, ts = counts[label], times[label]
        n = len(ts)
        shown = {"legal": "reachable", "illegal": "impossible"}.get(label)
        frac = f"; {c.get(shown, 0)} / {n} {shown} ({100.0 * c.get(shown, 0) / n:.1f} %)" if shown else ""
        print(f"# {label}: {n} positions: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())) + frac
              + f"; median {statistics.median(ts):.3f} s, max {max(ts):.3f} s")
    if every:
        print(f"# all: {len(every)} positions, median {statistics.median(every):.3f} s, "
              f"over 5.5 s: {sum(t > 5.5 for t in every)}; wrong: {len(wrong)}")
    sys.exit(1 if wrong else 0)


main()
