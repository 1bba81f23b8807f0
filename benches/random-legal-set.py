#!/usr/bin/env python3
"""Hard random positions with ground truth for `perftlab reachable` (issue 32): generate, then label with an
outside oracle, Texel's proof-game tool (Peter Österlund, GPL, github peterosterlund2/texel, `texelutil
proofgame -f`; built outside this repository, never copied into it).

    benches/random-legal-set.py generate N SEED --texel PATH/texelutil > candidates.txt
    benches/random-legal-set.py label candidates.txt OUT.txt --texel PATH/texelutil [--time-limit S] [--limit N]
    benches/random-legal-set.py redo-unknown OUT.txt --texel PATH/texelutil --time-limit S [--jobs J]

`generate` draws positions the way the estimates of the number of legal chess positions do (Tromp's
ChessPositionRanking; Texel's `rndfen`, described in Texel's doc/proofgame.md as an independent implementation
for that estimate): `texelutil rndfen N SEED` samples uniformly a set S of 2.2e53 positions (side to move, king
pair with castling flags, occupied squares, colours and kinds of the other units, e.p. code) and prints those
that Texel's cheap tests do not reject (no king capture, Texel's static illegality tests, a proof kernel goal
that is not impossible), about N legal and 9 N illegal ones. Those are "hard" random positions: Texel's
cheap tests do not show them illegal. Of them this script keeps the distinct FENs that pass python-chess's simple checks
(`Board.status() == STATUS_VALID`: one king each, the side not to move not in check, no pawn on rank 1 or 8,
at most 16 units and 8 pawns a side, castling rights and e.p. square consistent with the board, no impossible
check) and the promotion bounds (per side, pawns plus pieces beyond the initial ones, bishops counted per
square colour, at most 8). The seed fixes the output. Texel's generator is a separate program run from its own
build; no code of it is in this repository.

`label` runs `texelutil -j 1 proofgame -f -o TMP/out` on one position at a time under `nice -n 10` and a
wall-clock limit per position (default 60 s), and appends a line per position to OUT.txt (resumable: the
positions already in OUT.txt are skipped):

    legal FEN ; texel: SAN moves of Texel's proof game (replayed by python-chess: it must reach the FEN)
    illegal FEN ; texel: Texel's reason (e.g. "No proof kernel", "Other")
    unknown FEN ; texel: what Texel had when the limit ran out (kernel, path or fail; or "timeout")

A legal label is written only when python-chess replays Texel's game from the initial position to the same
placement, side to move, castling rights and e.p. square (a game that does not replay stops the run). The
lines are in the order of the candidates; `#` lines carry the provenance. `redo-unknown` labels the `unknown`
lines of OUT.txt again with a longer limit, J positions at a time, and rewrites OUT.txt (with a `#` line).
"""
import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

import chess


def within_promotion_bounds(board):
    """Per side, the pawns plus the pieces beyond the initial ones (a queen beyond one; rooks, knights beyond
    two; bishops beyond one per square colour) at most 8: each extra piece is a promoted pawn (FIDE 3.7.5)."""
    for color in chess.COLORS:
        bishops = board.pieces(chess.BISHOP, color)
        light = len(bishops & chess.SquareSet(chess.BB_LIGHT_SQUARES))
        extra = (max(0, len(board.pieces(chess.QUEEN, color)) - 1)
                 + max(0, len(board.pieces(chess.ROOK, color)) - 2)
                 + max(0, len(board.pieces(chess.KNIGHT, color)) - 2)
                 + max(0, light - 1) + max(0, len(bishops) - light - 1))
        if len(board.pieces(chess.PAWN, color)) + extra > 8:
            return False
    return True


def generate(texelutil, n, seed):
    """Texel's `rndfen n seed` candidates, kept when python-chess's simple checks pass (first occurrence)."""
    cmd = ["nice", "-n", "10", texelutil, "-j", "1", "rndfen", str(n), str(seed)]
    print(f"# Texel {' '.join(cmd[3:])} (texelutil, github peterosterlund2/texel), then python-chess "
          f"STATUS_VALID and promotion bounds; {time.strftime('%Y-%m-%d', time.gmtime())}", flush=True)
    seen = set()
    kept = 0
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as p:
        for line in p.stdout:
            fen = line.strip()
            if not fen or fen in seen:
                continue
            seen.add(fen)
            board = chess.Board(fen)
            if board.status() == chess.STATUS_VALID and within_promotion_bounds(board):
                print(fen, flush=True)
                kept += 1
    if p.returncode != 0:
        sys.exit(f"texelutil rndfen failed (exit code {p.returncode})")
    print(f"# {len(seen)} distinct candidates, {kept} pass the simple checks")


def same_position(a, b):
    """Same placement, side to move, castling rights and e.p. square (FIDE 3.10.3 with 9.2.3's rights)."""
    return (a.board_fen() == b.board_fen() and a.turn == b.turn and a.castling_rights == b.castling_rights
            and a.ep_square == b.ep_square)


def replay(moves, fen):
    """Replays Texel's SAN (or UCI) moves from the initial position; the board reached, or an error string."""
    board = chess.Board()
    for m in moves:
        try:
            board.push_san(m)
        except ValueError:
            try:
                board.push_uci(m.lower())
            except ValueError:
                return f"move {len(board.move_stack) + 1} ({m}) is not legal in {board.fen()}"
    target = chess.Board(fen)
    # A target without an e.p. square is reached also after a double step that allows no e.p. capture.
    if target.ep_square is None and board.ep_square is not None and not board.has_legal_en_passant():
        board.ep_square = None
    return board if same_position(board, target) else f"the game ends in {board.fen()}, not {fen}"


def texel(texelutil, fen, limit, tmp):
    """Texel's verdict on one position: (label, detail, seconds)."""
    for f in glob.glob(os.path.join(tmp, "out*")):
        os.remove(f)
    t = time.time()
    cmd = ["nice", "-n", "10", "timeout", str(limit), texelutil, "-j", "1", "proofgame", "-f", "-o",
           os.path.join(tmp, "out")]
    subprocess.run(cmd, input=fen + "\n", capture_output=True, text=True, cwd=tmp)
    dt = time.time() - t
    outs = sorted(glob.glob(os.path.join(tmp, "out*")))
    line = ""
    for path in reversed(outs):
        text = open(path).read().strip()
        if text:
            line = text.splitlines()[0]
            break
    if not line:
        return "unknown", "timeout", dt
    tokens = line.split()
    rest = tokens[6:]
    if not rest:
        return "unknown", "no status", dt
    head = rest[0].rstrip(":")
    if head == "illegal":
        reason = []
        for tok in rest[1:]:
            if tok.endswith(":"):
                break
            reason.append(tok)
        return "illegal", " ".join(reason), dt
    if head == "legal":
        moves = rest[rest.index("proof:") + 1:] if "proof:" in rest else []
        return "legal", " ".join(moves), dt
    kinds = [tok.rstrip(":") for tok in rest if tok.endswith(":")]
    return "unknown", " ".join(kinds[1:]) or head, dt


def label(args):
    src, out = args[0], args[1]
    texelutil = args[args.index("--texel") + 1]
    limit = float(args[args.index("--time-limit") + 1]) if "--time-limit" in args else 60.0
    count = int(args[args.index("--limit") + 1]) if "--limit" in args else None
    fens = [l.strip() for l in open(src) if l.strip() and not l.startswith("#")][:count]
    done = set()
    fresh = not os.path.exists(out)
    if not fresh:
        for l in open(out):
            if not l.startswith("#") and " ; " in l:
                done.add(l.split(" ", 1)[1].split(" ; ")[0])
    tmp = tempfile.mkdtemp(prefix="texel-label-")
    try:
        with open(out, "a") as f:
            if fresh:
                f.write(f"# labels by Texel: texelutil -j 1 proofgame -f -o OUT, nice -n 10, wall-clock limit "
                        f"{limit:g} s per position; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
            for i, fen in enumerate(fens):
                if fen in done:
                    continue
                lab, detail, dt = texel(texelutil, fen, limit, tmp)
                if lab == "legal":
                    r = replay(detail.split(), fen)
                    if isinstance(r, str):
                        sys.exit(f"Texel's game for {fen} does not replay: {r}")
                    detail += f" ({len(detail.split())} plies, replayed)"
                f.write(f"{lab} {fen} ; texel: {detail}\n")
                f.flush()
                print(f"{i}\t{lab}\t{dt:.1f}s\t{fen}", flush=True)
    finally:
        shutil.rmtree(tmp)


def redo_unknown(args):
    """Labels the `unknown` lines of OUT again (a longer limit), JOBS positions at a time, rewriting OUT."""
    out = args[0]
    texelutil = args[args.index("--texel") + 1]
    limit = float(args[args.index("--time-limit") + 1])
    jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else 1
    lines = open(out).read().splitlines()
    todo = [i for i, l in enumerate(lines) if l.startswith("unknown ")]
    head = max((i for i, l in enumerate(lines) if l.startswith("#")), default=-1) + 1
    note = (f"# the {len(todo)} unknown ones labelled again: wall-clock limit {limit:g} s, {jobs} at a time; "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")

    def one(i):
        fen = lines[i].split(" ", 1)[1].split(" ; ")[0]
        tmp = tempfile.mkdtemp(prefix="texel-label-")
        try:
            lab, detail, dt = texel(texelutil, fen, limit, tmp)
        finally:
            shutil.rmtree(tmp)
        if lab == "legal":
            r = replay(detail.split(), fen)
            if isinstance(r, str):
                return i, None, f"Texel's game for {fen} does not replay: {r}"
            detail += f" ({len(detail.split())} plies, replayed)"
        print(f"{i}\t{lab}\t{dt:.1f}s\t{fen}", flush=True)
        return i, f"{lab} {fen} ; texel: {detail}", None

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(one, todo))
    for i, line, err in results:
        if err:
            sys.exit(err)
        lines[i] = line
    lines.insert(head, note)
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(out + ".tmp", out)


def main():
    args = sys.argv[1:]
    if len(args) == 5 and args[0] == "generate" and args[3] == "--texel":
        generate(args[4], int(args[1]), int(args[2]))
    elif len(args) >= 6 and args[0] == "redo-unknown":
        redo_unknown(args[1:])
    elif len(args) >= 5 and args[0] == "label":
        label(args[1:])
    else:
        sys.exit(__doc__)


main()
