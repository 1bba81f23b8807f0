"""crosscheck and stress: a python-chess move generator is clean; the same generator with a planted bug is
caught at the right node, with the missing or extra moves and their kinds."""

import pytest

import perftlab
from conftest import need

chess = None


@pytest.fixture(autouse=True)
def _chess():
    global chess
    chess = need("chess")


def good(fen):
    return [m.uci() for m in chess.Board(fen).legal_moves]


def no_underpromotion(fen):
    """The planted bug: under-promotions are forgotten."""
    return [m for m in chess.Board(fen).legal_moves if m.promotion in (None, chess.QUEEN)]


def ep_through_pin(fen):
    """The planted bug: an e.p. capture that exposes the king along the rank is allowed (pseudo-legal e.p.)."""
    board = chess.Board(fen)
    moves = [m.uci() for m in board.legal_moves]
    moves += [m.uci() for m in board.pseudo_legal_moves if board.is_en_passant(m) and m.uci() not in moves]
    return moves


def test_clean_generator_agrees():
    r = perftlab.crosscheck(good, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2)
    assert r.agree and bool(r) and r.failure is None and r.nodes == 1 + 48
    assert perftlab.crosscheck(lambda f: chess.Board(f).legal_moves, chess.Board(), 3).nodes == 1 + 20 + 400


def test_planted_promotion_bug_found():
    r = perftlab.crosscheck(no_underpromotion, "8/8/8/8/8/k7/7p/K7 b - - 0 1", 2)
    assert not r.agree
    f = r.failure
    assert f.path == [] and f.missing == ["h2h1b", "h2h1n", "h2h1r"] and f.extra == []
    assert f.kinds == ["promotion"]
    assert f.board().fen() == "8/8/8/8/8/k7/7p/K7 b - - 0 1"
    assert "MISMATCH" in str(r)


def test_planted_bug_found_below_the_root():
    # CPW position 3, walked depth first in UCI order: after 1. Ra4 c5 the b5 pawn may not take e.p.
    # (b5xc6 would empty the fifth rank between the a5 king and the h5 rook, FIDE 3.9.2).
    r = perftlab.crosscheck(ep_through_pin, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3)
    assert not r.agree
    f = r.failure
    assert f.path == ["b4a4", "c7c5"] and f.extra == ["b5c6"] and f.missing == []
    assert "en_passant" in f.kinds
    board = f.board()
    assert board.is_en_passant(chess.Move.from_uci("b5c6")) and chess.Move.from_uci("b5c6") not in board.legal_moves


def test_stress_on_rule_directed_positions():
    clean = perftlab.stress(good, positions=110, seed=3, depth=2)
    assert clean.agree and clean.positions == 110
    buggy = perftlab.stress(no_underpromotion, positions=110, seed=3, depth=2)
    assert not buggy.agree
    assert all("promotion" in f.kinds for f in buggy.failures)
    assert all(set(m[-1] for m in f.missing) <= set("rnb") for f in buggy.failures)
    # The failure shown is the smallest: no failing node has fewer pieces.
    pieces = lambda f: sum(c.isalpha() for c in f.fen.split()[0])
    assert pieces(buggy.failure) == min(pieces(f) for f in buggy.failures)
    first = perftlab.stress(no_underpromotion, positions=110, seed=3, depth=2, fail_fast=True)
    assert len(first.failures) == 1


def test_generator_exceptions_propagate():
    def broken(fen):
        raise ZeroDivisionError("inside the generator")

    with pytest.raises(ZeroDivisionError, match="inside the generator"):
        perftlab.crosscheck(broken, perftlab.STARTPOS, 2)
    with pytest.raises(TypeError, match="movegen: returned a int"):
        perftlab.crosscheck(lambda fen: [1], perftlab.STARTPOS, 1)
