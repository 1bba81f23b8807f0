#!/usr/bin/env python3
"""Benchmarks of the Python package (docs/python.md#measurements), same run, interleaved, medians.

Needs perftlab installed (`pip install ./python`), python-chess, and for --dask dask[distributed]; the CLI
binary (`cargo build --release`) for the CLI comparisons. Each figure is a same-run ratio:

  perft      perft(start, 5) from Python vs python-chess's recursive legal_moves perft (the way its docs
             count) and vs the CLI's own counting time (`perftlab perft --depth 5`, its "cpu depth 5: T s")
  small      the cost of one small call: perft(fen, 1), legal_moves(fen), perft(board, 1)
  calls      analyze-sized calls: legal moves in UCI and SAN, check, outcome, for perftlab and python-chess
  dead       dead_many over real-game positions vs `perftlab dead FILE`'s CPU time (user+sys), both sides
  dask       the Dask recipe on one vs two local worker processes (wall time; the workers read their
             partitions of the file themselves), beside the same dead_many in one process

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


BLOCKS = 20


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
        # Interleaved: 20 blocks of each, alternating, so that a change of the machine's load falls on both.
        a = b = 0.0
        for block in range(BLOCKS):
            t = time.perf_counter()
            for i in range(block * n // BLOCKS, (block + 1) * n // BLOCKS):
                ours(i)
            a += time.perf_counter() - t
            t = time.perf_counter()
            for i in range(block * chess_n // BLOCKS, (block + 1) * chess_n // BLOCKS):
                theirs(i)
            b += time.perf_counter() - t
        a, b = a / n, b / chess_n
        print(f"{name}: perftlab {a * 1e6:.1f} us per call over {n} calls, python-chess {b * 1e6:.1f} us over "
              f"{chess_n} calls ({BLOCKS} alternating blocks, load {os.getloadavg()[0]:.1f} at the end): "
              f"perftlab {b / a:.1f}x faster")


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


def dask_partition(lines):
    """The recipe's per-partition function, as the bench runs it: the partition's lines (read by the worker
    from the file, not shipped from the client), decided by one dead_many call on one thread with a node
    limit only (verdicts independent of load); returns a summary row, so that little travels back."""
    import hashlib

    import perftlab

    fens = [line.strip() for line in lines if line.strip()]
    results = [v.result for v in perftlab.dead_many(fens, "white", threads=1, time_limit=0)]
    digest = hashlib.sha256("\n".join(results).encode()).hexdigest()
    return [(len(fens), results.count("winnable"), results.count("unwinnable"), digest)]


def dask_warm():
    """Import perftlab in a worker and decide one position (its tables built), before the clock starts."""
    import perftlab

    return list(perftlab.dead_many([perftlab.STARTPOS], "white", threads=1))[0].result


def dask_run(paths, workers):
    import dask.bag as db
    from distributed import Client, LocalCluster

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            client.wait_for_workers(workers)
            client.run(dask_warm)
            bag = db.read_text(paths).map_partitions(dask_partition)  # one partition per file
            before = client.run(cpu)
            t = time.perf_counter()
            out = bag.compute()
            wall = time.perf_counter() - t
            after = client.run(cpu)
            return wall, sum(after[w] - before[w] for w in after), out


def bench_dask(fens, runs, partitions):
    """One worker against two on the same partitions of the same file, alternating, medians; the single
    process's dead_many on the same positions (one thread, one call) says what Dask adds to one worker."""
    # Equal partitions by line count, one file each (`read_text` of a byte blocksize gives uneven ones, e.g. 7 for
    # 8 asked, which leaves one worker a partition more than the other).
    tmp = tempfile.TemporaryDirectory()
    paths = []
    for k in range(partitions):
        part = fens[k * len(fens) // partitions:(k + 1) * len(fens) // partitions]
        paths.append(os.path.join(tmp.name, f"part-{k:03}.fen"))
        with open(paths[-1], "w") as f:
            f.write("\n".join(part) + "\n")
    single, one, two, cpu1, cpu2 = [], [], [], [], []
    for _ in range(runs):
        t = time.perf_counter()
        base = [v.result for v in perftlab.dead_many(fens, "white", threads=1, time_limit=0)]
        single.append(time.perf_counter() - t)
        t1, c1, r1 = dask_run(paths, 1)
        t2, c2, r2 = dask_run(paths, 2)
        assert r1 == r2, "one and two workers disagree"
        assert sum(r[0] for r in r1) == len(fens)
        assert (sum(r[1] for r in r1), sum(r[2] for r in r1)) == (base.count("winnable"), base.count("unwinnable"))
        one.append(t1)
        two.append(t2)
        cpu1.append(c1)
        cpu2.append(c2)
    tmp.cleanup()
    print(f"Dask recipe over {len(fens)} positions (white), {len(r1)} partitions read by the workers, "
          f"load {os.getloadavg()[0]:.1f}: 1 worker {median(one):.2f} s, 2 workers {median(two):.2f} s "
          f"(wall, medians of {runs}, alternating): {median(one) / median(two):.2f}x")
    print(f"  the same dead_many in this process (1 thread, 1 call): {median(single):.2f} s, so one worker takes "
          f"{median(one) / median(single):.2f}x that; workers' CPU (user+sys): 1 worker {median(cpu1):.2f} s, "
          f"2 workers {median(cpu2):.2f} s in all")


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
    p.add_argument("--partitions", type=int, default=8, help="dask: partitions of the positions file")
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
        bench_dask(fens, a.runs, a.partitions)


if __name__ == "__main__":
    main()
