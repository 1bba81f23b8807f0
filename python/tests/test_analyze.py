"""analyze: the fields of `perftlab analyze --json`, compared with python-chess where it has them."""

import perftlab
from conftest import need

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def test_fields_match_python_chess():
    chess = need("chess")
    for fen in (perftlab.STARTPOS, KIWIPETE, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"):
        a = perftlab.analyze(fen, dead=False, reachability=False)
        board = chess.Board(fen)
        pairs = sorted((m.uci(), board.san(m)) for m in board.legal_moves)
        assert list(zip(a["legal_moves"], a["san"])) == pairs
        assert a["valid"] and a["in_check"] == board.is_check() and a["outcome"] is None
        assert a["reachability"] is None and "dead" not in a


def test_mate_after_moves_and_full_analysis():
    chess = need("chess")
    moves = ["f3", "e5", "g4", chess.Move.from_uci("d8h4")]
    a = perftlab.analyze(perftlab.STARTPOS, moves=moves)
    assert a["outcome"] == "checkmate" and a["in_check"] and a["checkers"] == ["h4"]
    assert a["reachability"]["result"] == "reachable"
    assert a["winnable"]["black"]["result"] == "winnable" and a["dead"] is False


def test_dead_and_invalid_positions():
    a = perftlab.analyze("8/8/8/4k3/8/8/8/4KB2 b - - 0 1")
    assert a["outcome"] == "insufficient_material" and a["dead"] is True
    bad = perftlab.analyze("8/8/8/8/8/8/8/4K3 w - - 0 1")
    assert bad["valid"] is False and bad["errors"]
