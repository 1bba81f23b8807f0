"""Bad input: typed exceptions naming the field or argument and the offending text; never a crash."""

import pytest

import perftlab

START = perftlab.STARTPOS


@pytest.mark.parametrize(
    "fen,field,text",
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side_to_move", "x"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNZ w KQkq - 0 1", "board", None),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en_passant", "e9"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove_clock", "x"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", "castling", None),
        ("", None, None),
    ],
)
def test_fen_errors_name_the_field(fen, field, text):
    with pytest.raises(perftlab.FenError) as e:
        perftlab.perft(fen, 1)
    assert isinstance(e.value, ValueError) and isinstance(e.value, perftlab.PerftlabError)
    assert e.value.field == field
    if text is not None:
        assert e.value.text == text and f"'{text}'" in str(e.value)


def test_invalid_positions_give_every_reason():
    with pytest.raises(perftlab.InvalidPositionError) as e:
        perftlab.perft("8/8/8/8/8/8/8/4K3 w - - 0 1", 1)
    assert isinstance(e.value, ValueError)
    assert any("no king" in r for r in e.value.errors)
    # The side not to move in check (FIDE 3.10.3): perft is ill-defined.
    with pytest.raises(perftlab.InvalidPositionError):
        perftlab.dead("4k3/8/8/8/8/8/8/4RK2 w - - 0 1")
    with pytest.raises(perftlab.InvalidPositionError):
        list(perftlab.dead_many(["P3k3/8/8/8/8/8/8/4K3 w - - 0 1"]))


def test_bad_arguments():
    with pytest.raises(perftlab.UsageError, match="depth"):
        perftlab.perft(START, 65)
    with pytest.raises(perftlab.UsageError, match="threads"):
        perftlab.perft(START, 1, threads=0)
    with pytest.raises(perftlab.UsageError, match="depth"):
        perftlab.divide(START, 0)
    with pytest.raises(perftlab.UsageError, match="side.*green"):
        perftlab.dead(START, "green")
    with pytest.raises(perftlab.UsageError, match="nodes"):
        perftlab.dead(START, nodes=0)
    with pytest.raises(perftlab.UsageError, match="time_limit"):
        perftlab.dead(START, time_limit=float("nan"))
    with pytest.raises(perftlab.UsageError, match="max_plies"):
        perftlab.reachable(START, max_plies=61)
    with pytest.raises(perftlab.UsageError, match="kinds.*bogus"):
        perftlab.stress(lambda fen: [], kinds="bogus")
    with pytest.raises(perftlab.UsageError, match="moves: move 1 'e5'"):
        perftlab.analyze(START, moves=["e5"], dead=False, reachability=False)
    with pytest.raises(OverflowError):
        perftlab.perft(START, -1)


def test_wrong_types():
    with pytest.raises(TypeError, match="FEN string or an object with a .fen"):
        perftlab.perft(42, 1)

    class Bad:
        def fen(self):
            return 7

    with pytest.raises(TypeError, match="returned int"):
        perftlab.perft(Bad(), 1)
    with pytest.raises(TypeError, match="iterable"):
        perftlab.dead_many(5)
    with pytest.raises(TypeError, match="callable"):
        perftlab.crosscheck("not callable", START)


def test_bad_item_raises_after_the_verdicts_before_it():
    it = perftlab.dead_many(["8/8/8/4k3/8/8/8/4K3 w - - 0 1", "not a fen", START])
    assert next(it).result == "unwinnable"
    with pytest.raises(perftlab.FenError):
        next(it)
    with pytest.raises(StopIteration):
        next(it)
