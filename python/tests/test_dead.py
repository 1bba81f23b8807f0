"""dead and dead_many (FIDE 1.5, 6.9) on tests/data/dead-positions.txt: each label checked, every helpmate
replayed by python-chess to checkmate (an outside opinion), verdicts in input order."""

import pytest

import perftlab
from conftest import labelled, need

LINES = [(label, fen) for label, fen in labelled("dead-positions.txt") if "?" not in label]


def _replays_to_mate(fen, helpmate):
    chess = need("chess")
    board = chess.Board(fen)
    board.chess960 = board.has_chess960_castling_rights()
    for uci in helpmate:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, (fen, helpmate, uci)
        board.push(move)
    return board.is_checkmate()


@pytest.mark.parametrize("label,fen", LINES)
def test_labels(label, fen):
    for side, letter in (("white", label[0]), ("black", label[1])):
        v = perftlab.dead(fen, side)
        assert v.side == side and v.fen == fen
        if letter == "-":
            assert v.result == "unwinnable" and v.reason and v.helpmate is None, (fen, side, v)
        else:
            assert v.result == "winnable", (fen, side, v)
            assert _replays_to_mate(fen, v.helpmate)
    both = perftlab.dead(fen)
    assert both.result == ("unwinnable" if label == "--" else "winnable")


def test_dead_many_in_order_with_pairs_and_boards():
    chess = need("chess")
    fens = [fen for _, fen in LINES]
    one = [perftlab.dead(f, "white") for f in fens]
    many = list(perftlab.dead_many(fens, "white", threads=2))
    assert [(v.fen, v.result, v.helpmate, v.nodes) for v in many] == [
        (v.fen, v.result, v.helpmate, v.nodes) for v in one
    ]
    pairs = [(f, "black") for f in fens[:5]] + [(chess.Board(fens[5]), chess.WHITE)]
    got = list(perftlab.dead_many(pairs))
    assert [v.side for v in got] == ["black"] * 5 + ["white"]
    assert got[-1].fen == chess.Board(fens[5]).fen()
    # More items than one chunk, from a generator.
    gen = (fens[i % len(fens)] for i in range(5000))
    results = [v.result for v in perftlab.dead_many(gen, "white", quick=True)]
    assert len(results) == 5000
    assert results[: len(fens)] == [v.result for v in perftlab.dead_many(fens, "white", quick=True)]


def test_moves_out_and_dicts():
    chess = need("chess")
    v = perftlab.dead("8/8/8/4k3/8/8/8/3QK3 b - - 0 1", "white", as_moves=True)
    assert v.result == "winnable" and all(isinstance(m, chess.Move) for m in v.helpmate)
    row = v.to_dict()
    assert row["result"] == "winnable" and isinstance(row["helpmate"], str)
    assert "Verdict(result=" in repr(v)


def test_limits():
    v = perftlab.dead("8/8/8/4k3/8/8/3p4/4KN2 w - - 0 1", "white", nodes=1000, time_limit=0)
    assert v.result == "undetermined" and "node limit" in v.reason
