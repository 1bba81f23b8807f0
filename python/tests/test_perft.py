"""perft, divide, stats, legal_moves: exact counts from the Chess Programming Wiki and the public suites
(data/: standard.epd, chess960.epd; tests/data/: cpw-detail.csv), python-chess boards in and out, threads."""

import csv
import threading

import pytest

import perftlab
from conftest import DATA, epd, need

START = perftlab.STARTPOS
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize("fen,depth,count", epd("standard.epd", 200_000))
def test_standard_suite(fen, depth, count):
    assert perftlab.perft(fen, depth) == count


@pytest.mark.parametrize("fen,depth,count", epd("chess960.epd", 100_000)[:60])
def test_chess960_suite(fen, depth, count):
    assert perftlab.perft(fen, depth) == count


def test_cpw_start_and_kiwipete():
    # CPW "Perft Results": initial position 119,060,324 at depth 6, Kiwipete 4,085,603 at depth 4.
    assert perftlab.perft(START, 6) == 119_060_324
    assert perftlab.perft(KIWIPETE, 4) == 4_085_603
    assert perftlab.perft(START, 0) == 1


def test_stats_cpw_columns():
    rows = [r for r in csv.reader(l for l in open(DATA / "cpw-detail.csv") if not l.startswith("#"))]
    header, rows = rows[0], rows[1:]
    checked = 0
    for r in rows:
        row = dict(zip(header, r))
        if int(row["nodes"]) > 5_000_000:
            continue
        got = perftlab.stats(row["fen"], int(row["depth"]))
        want = {k: int(v) for k, v in row.items() if k not in ("position", "fen", "depth") and v != ""}
        assert {k: got[k] for k in want} == want, row
        checked += 1
    assert checked >= 8


def test_threads_and_hash_give_the_same_count():
    for threads in (1, 2, None):
        for hash_mb in (0, 1, 16):
            assert perftlab.perft(KIWIPETE, 4, threads=threads, hash_mb=hash_mb) == 4_085_603
    perftlab.clear_hash()
    assert perftlab.perft(KIWIPETE, 4) == 4_085_603


def test_python_threads_run_at_once():
    results = {}

    def work(i):
        results[i] = perftlab.perft(KIWIPETE, 4, threads=1)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert results == {i: 4_085_603 for i in range(4)}


def test_board_in_and_moves_out():
    chess = need("chess")
    board = chess.Board(KIWIPETE)
    d = perftlab.divide(board, 3)
    # Every root move of python-chess, and the counts add up to perft 3 (CPW: 97,862).
    assert set(d) == {m.uci() for m in board.legal_moves}
    assert sum(d.values()) == 97_862
    assert list(d) == sorted(d)
    # python-chess's own count of one subtree.
    board.push_uci("e2a6")
    assert d["e2a6"] == _pc_perft(board, 2)
    moves = perftlab.divide(chess.Board(), 1, as_moves=True)
    assert all(isinstance(m, chess.Move) for m in moves) and len(moves) == 20
    assert perftlab.legal_moves(chess.Board()) == sorted(m.uci() for m in chess.Board().legal_moves)
    assert perftlab.legal_moves(chess.Board(), as_moves=True)[0] == chess.Move.from_uci("a2a3")


def _pc_perft(board, depth):
    if depth == 0:
        return 1
    n = 0
    for m in board.legal_moves:
        board.push(m)
        n += _pc_perft(board, depth - 1)
        board.pop()
    return n


def test_divide_deep_is_split_and_equal():
    # Depth 7 runs as root subtrees (the split that lets Ctrl-C stop it): CPW position 3 at depth 7 is
    # 178,633,661; here depth 6 (11,030,083) through divide's per-move path and the whole.
    pos3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
    assert sum(perftlab.divide(pos3, 6).values()) == 11_030_083
    assert perftlab.perft(pos3, 7) == 178_633_661
