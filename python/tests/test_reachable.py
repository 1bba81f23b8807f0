"""reachable and reachable_many (FIDE 3.10.3) on tests/data/reachability.txt: each impossible position
proved impossible; each reachable twin, built by playing its SAN moves with python-chess, given a proof
game that python-chess replays to the same position."""

import pytest

import perftlab
from conftest import DATA, need

ROWS = [l.split("|") for l in (DATA / "reachability.txt").read_text().splitlines() if l and not l.startswith("#")]


@pytest.mark.parametrize("row", [r for r in ROWS if r[0] == "impossible"], ids=lambda r: r[2])
def test_impossible(row):
    v = perftlab.reachable(row[2])
    assert v.result == "impossible" and v.reason and v.game is None


@pytest.mark.parametrize("row", [r for r in ROWS if r[0] == "reachable"], ids=lambda r: r[1])
def test_reachable_twins(row):
    chess = need("chess")
    board = chess.Board()
    for san in row[1].split():
        board.push_san(san)
    v = perftlab.reachable(board, max_plies=len(board.move_stack))
    assert v.result == "reachable", v
    replay = chess.Board(v.start)
    for uci in v.game:
        replay.push_uci(uci)
    assert replay.board_fen() == board.board_fen() and replay.turn == board.turn
    assert replay.castling_rights == board.castling_rights


def test_reachable_many_in_order():
    fens = [r[2] for r in ROWS if r[0] == "impossible"]
    assert [v.result for v in perftlab.reachable_many(fens, threads=2)] == ["impossible"] * len(fens)
