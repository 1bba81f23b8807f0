#!/usr/bin/env python3
"""Final positions of games Stockfish plays against itself from varied openings, as `FEN SIDE` queries for
`perftlab dead` and CHA-Solver's `analyzer` (the side that just moved: the winner a server asks about when the
other side's flag falls or the game ends). A Lichess-like workload made here (issue 33), beside CHA-Solver's
own tests/lichess.txt.

Usage:
  benches/selfplay-finals.py --out FILE [--games 1000] [--seed 1] [--nodes 2000] [--opening 4:10]
                             [--max-plies 300] [--stop-chance 0.02] [--stockfish PATH]

Each game starts from the standard position with a random number of uniformly random legal moves (`--opening
A:B` plies, seeded by `--seed`), then Stockfish (`go nodes N` per move; python-chess drives it over UCI) plays
both sides until the game ends (checkmate, stalemate, insufficient material, the fivefold repetition or the
75-move rule), `--max-plies` is reached, or, after each move, with the chance `--stop-chance` (a flag that
falls: most real games that reach a server's adjudication end on time, not in mate). The position reached is
written as `FEN white|black`, the side being the one that just moved. The header records the arguments and the
engine's name, so the same file can be made again (Stockfish's search at a fixed node count with one thread is
deterministic). Needs python-chess (PyPI `chess`) and a Stockfish binary (Debian's `stockfish`).
"""
import argparse
import random
import shutil
import sys

try:
    import chess
    import chess.engine
except ImportError:
    sys.exit("needs python-chess: pip install chess")


def play(engine, rng, a):
    """One game: the final board."""
    lo, hi = a.opening
    while True:
        board = chess.Board()
        for _ in range(rng.randint(lo, hi)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            break
    limit = chess.engine.Limit(nodes=a.nodes)
    while not board.is_game_over() and board.ply() < a.max_plies:
        board.push(engine.play(board, limit).move)
        if rng.random() < a.stop_chance:
            break
    return board


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--opening", default="4:10", help="random plies first, A:B")
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument("--stop-chance", type=float, default=0.02)
    ap.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    a = ap.parse_args()
    try:
        lo, hi = (int(x) for x in a.opening.split(":"))
    except ValueError:
        sys.exit(f"--opening: expected A:B, got '{a.opening}'")
    if not (0 <= lo <= hi) or a.games < 1 or a.nodes < 1 or not (0 <= a.stop_chance < 1):
        sys.exit("--opening needs 0 <= A <= B; --games and --nodes at least 1; --stop-chance in [0, 1)")
    a.opening = (lo, hi)
    rng = random.Random(a.seed)
    engine = chess.engine.SimpleEngine.popen_uci(a.stockfish, timeout=120)
    engine.configure({"Threads": 1, "Hash": 16})
    ends = {}
    try:
        with open(a.out, "w") as f:
            f.write(f"# {a.games} final positions of {engine.id.get('name', 'stockfish')} against itself: "
                    f"seed {a.seed}, {a.nodes} nodes a move, {lo}-{hi} random opening plies, at most "
                    f"{a.max_plies} plies, stop chance {a.stop_chance} a move (benches/selfplay-finals.py).\n"
                    "# Each line: FEN and the side that just moved.\n")
            for _ in range(a.games):
                board = play(engine, rng, a)
                outcome = board.outcome()
                end = outcome.termination.name.lower() if outcome else "stopped"
                ends[end] = ends.get(end, 0) + 1
                side = "black" if board.turn == chess.WHITE else "white"
                f.write(f"{board.fen()} {side}\n")
    finally:
        engine.quit()
    print(f"{a.games} games: " + ", ".join(f"{n} {e}" for e, n in sorted(ends.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
