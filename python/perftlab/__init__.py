"""perftlab: chess perft, dead positions, legality and move-generator cross-checks, in Rust.

Every function takes a position as a FEN string or any object with a ``.fen()`` method (a
``chess.Board``) and returns plain Python values. See docs/python.md for the whole API with examples.

>>> import perftlab
>>> perftlab.perft("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3)
8902
"""

from ._errors import (
    BackendError,
    FenError,
    InvalidPositionError,
    MismatchError,
    PerftlabError,
    UsageError,
)
from ._native import (
    Batch,
    Failure,
    Report,
    Verdict,
    analyze,
    clear_hash,
    crosscheck,
    dead,
    dead_many,
    divide,
    legal_moves,
    perft,
    reachable,
    reachable_many,
    stats,
    stress,
)

STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
"""The initial position (FIDE 2.3), as FEN."""

__all__ = [
    "STARTPOS",
    "BackendError",
    "FenError",
    "InvalidPositionError",
    "MismatchError",
    "PerftlabError",
    "UsageError",
    "Batch",
    "Failure",
    "Report",
    "Verdict",
    "analyze",
    "clear_hash",
    "crosscheck",
    "dead",
    "dead_many",
    "divide",
    "legal_moves",
    "perft",
    "reachable",
    "reachable_many",
    "stats",
    "stress",
]
