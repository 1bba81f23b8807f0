#!/usr/bin/env python3
"""Benchmarks of the Python package (docs/python.md#measurements), same run, interleaved, medians.

Needs perftlab installed (`pip install ./python`), python-chess, and for --dask dask[distributed]; the CLI
binary (`cargo build --release`) for the CLI comparisons. Each figure is a same-run ratio:

  perft      perft(start, 5) from Python vs python-chess's recursive legal_moves perft (the way its docs
             count) and vs the CLI's own counting time (`perftlab perft --depth 5`, its "cpu depth 5: T s")
  small      the cost of one small call: perft(fen, 1), legal_moves(fen), perft(board, 1)
  calls      analyze-sized calls: legal moves in UCI and SAN, check, outcome, for perftlab and python-chess
  dead       dead_many over real-game positions vs `perftlab dead FILE`'s CPU time (user+sys), both sides
  dask       the Dask recipe on one vs two local worker processes (wall time)

Node counts are asserted (CPW: perft(start, 5) = 4,865,609). Real-game positions: --positions FILE, one
FEN per line, optionally after a two-letter label (CHA's tests/lichess.txt format: `WB fen`).
"""

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import perftlab

START = perftlab.STARTPOS
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli_path():
    return os.environ.get("PERFTLAB_BIN", os.path.join(ROOT, "target", "release", "perftlab"))


def median(xs):
    return statistics.median(xs)


def pc_perft(board, depth):
    if depth == 0:
        return 1
    n = 0
    for m in board.legal_moves:
        board.push(m)
        n += pc_perft(board, depth - 1)
        board.pop()
    return n


def bench_perft(runs, chess_runs):
    import chess

    py, cli, pc = [], [], []
    for i in range(runs):
        perftlab.clear_hash()
        t = time.perf_counter()
        assert perftlab.perft(START, 5, hash_mb=64) == 4_865_609
        py.append(time.perf_counter() - t)
        out = subprocess.run([cli_path(), "perft", "--depth", "5"], capture_output=True, text=True, check=True)
        assert "Nodes searched: 4865609" in out.stdout
        cli.append(float(re.search(r"cpu depth 5: ([0-9.]+) s", out.stderr).group(1)))
        if i < chess_runs:
            t = time.perf_counter()
            assert pc_perft(chess.Board(), 5) == 4_865_609
            pc.append(time.perf_counter() - t)
    print(f"perft(start, 5): perftlab from Python {median(py) * 1e3:.1f} ms (median of {runs}), "
          f"CLI counting {median(cli) * 1e3:.1f} ms (median of {runs}): {median(py) / median(cli):.2f}x the CLI")
    if pc:  # --chess-runs 0 skips python-chess (about 30 s a run)
        print(f"  python-chess {median(pc):.1f} s (median of {len(pc)}): perftlab {median(pc) / median(py):.0f}x faster")


def per_call(f, n, repeats=5):
    """Median over `repeats` of the time per call of f() in a loop of n calls."""
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            f()
        out.append((time.perf_counter() - t) / n)
    return median(out)


def bench_small(n):
    import chess

    kiwi = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    board = chess.Board(kiwi)
    empty = per_call(lambda: None, n)
    for name, f in [
        ("perft(fen, 1)", lambda: perftlab.perft(kiwi, 1)),
        ("perft(fen, 0)", lambda: perftlab.perft(kiwi, 0)),
        ("legal_moves(fen)", lambda: perftlab.legal_moves(kiwi)),
        ("perft(board, 1)", lambda: perftlab.perft(board, 1)),
        ("board.fen() alone (python-chess)", lambda: board.fen()),
        ("python-chess len(list(Board(fen).legal_moves))", lambda: len(list(chess.Board(kiwi).legal_moves))),
    ]:
        t = per_call(f, n) - empty
        print(f"{name}: {t * 1e6:.2f} us per call (median of 5 loops of {n}, empty loop subtracted)")


def game_positions(path, limit):
    fens = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) == 7:
                parts = parts[1:]
            fens.append(" ".join(parts))
            if len(fens) == limit:
                break
    return fens


def bench_calls(fens, n, chess_n):
    import chess

    def pc_analyze(fen):
        board = chess.Board(fen)
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        return {
            "legal_moves": [m.uci() for m in moves],
            "san": [board.san(m) for m in moves],
            "in_check": board.is_check(),
            "checkers": [chess.square_name(s) for s in board.checkers()],
            "outcome": board.outcome(),
        }

    k = len(fens)
    for name, ours, theirs in [
        ("analyze(fen, dead=False, reachability=False)",
         lambda i: perftlab.analyze(fens[i % k], dead=False, reachability=False), lambda i: pc_analyze(fens[i % k])),
        ("legal_moves(fen)", lambda i: perftlab.legal_moves(fens[i % k]),
         lambda i: [m.uci() for m in chess.Board(fens[i % k]).legal_moves]),
    ]:
        t = time.perf_counter()
        for i in range(n):
            ours(i)
        a = (time.perf_counter() - t) / n
        t = time.perf_counter()
        for i in range(chess_n):
            theirs(i)
        b = (time.perf_counter() - t) / chess_n
        print(f"{name}: perftlab {a * 1e6:.1f} us per call over {n} calls, python-chess {b * 1e6:.1f} us over "
              f"{chess_n} calls: perftlab {b / a:.1f}x faster")


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def bench_dead(fens, runs, threads):
    with tempfile.NamedTemporaryFile("w", suffix=".fen", delete=False) as f:
        f.write("\n".join(fens) + "\n")
        path = f.name
    pairs = [(fen, side) for fen in fens for side in ("white", "black")]
    py, cli, counts = [], [], None
    for _ in range(runs):
        c = cpu_self()
        results = [v.result for v in perftlab.dead_many(pairs, threads=threads)]
        py.append(cpu_self() - c)
        c = cpu_children()
        args = [cli_path(), "dead", path, "--quiet"] + (["--threads", str(threads)] if threads else [])
        out = subprocess.run(args, capture_output=True, text=True, check=True)
        cli.append(cpu_children() - c)
        counts = (results.count("winnable"), results.count("unwinnable"), results.count("undetermined"))
        summary = out.stdout.strip().splitlines()[-1]
    os.unlink(path)
    print(f"dead over {len(fens)} positions, both sides ({len(pairs)} queries): dead_many {median(py):.1f} s CPU, "
          f"`perftlab dead FILE` {median(cli):.1f} s CPU (medians of {runs}): {median(py) / median(cli):.2f}x")
    print(f"  dead_many: {counts[0]} winnable, {counts[1]} unwinnable, {counts[2]} undetermined; CLI: {summary}")


def dask_run(fens, workers, partitions):
    import dask.bag as db
    from distributed import Client, LocalCluster

    def verdicts(part):
        import perftlab

        return [v.result for v in perftlab.dead_many(part, "white", threads=1)]

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            bag = db.from_sequence(fens, npartitions=partitions).map_partitions(verdicts)
            bag.count().compute()  # warm the workers (imports)
            t = time.perf_counter()
            out = bag.compute()
            return time.perf_counter() - t, out


def bench_dask(fens, runs):
    one, two = [], []
    for _ in range(runs):
        t1, r1 = dask_run(fens, 1, 32)
        t2, r2 = dask_run(fens, 2, 32)
        assert r1 == r2
        one.append(t1)
        two.append(t2)
    print(f"Dask recipe over {len(fens)} positions (white): 1 worker {median(one):.1f} s, 2 workers "
          f"{median(two):.1f} s (medians of {runs}): {median(one) / median(two):.2f}x")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("which", nargs="*", default=["perft", "small", "calls", "dead", "dask"])
    p.add_argument("--positions", help="real-game positions file (for calls, dead, dask)")
    p.add_argument("--count", type=int, default=30_000, help="positions taken from --positions")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--chess-runs", type=int, default=1, help="python-chess perft(start, 5) runs (~30 s each)")
    p.add_argument("--calls", type=int, default=1_000_000)
    p.add_argument("--chess-calls", type=int, default=50_000)
    p.add_argument("--threads", type=int, default=None)
    a = p.parse_args()
    fens = game_positions(a.positions, a.count) if a.positions else None
    print(f"python {sys.version.split()[0]}, perftlab {perftlab.__file__}, {os.cpu_count()} cores")
    if "perft" in a.which:
        bench_perft(a.runs, a.chess_runs)
    if "small" in a.which:
        bench_small(200_000)
    if fens and "calls" in a.which:
        bench_calls(fens, a.calls, a.chess_calls)
    if fens and "dead" in a.which:
        bench_dead(fens, a.runs, a.threads)
    if fens and "dask" in a.which:
        bench_dask(fens, a.runs)


if __name__ == "__main__":
    main()
