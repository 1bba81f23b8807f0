"""Type stubs of perftlab's extension module (the functions are re-exported by ``perftlab``)."""

from typing import Any, Iterable, Iterator, Optional, Protocol, Sequence, Tuple, Union

class _HasFen(Protocol):
    def fen(self) -> str: ...

class _HasUci(Protocol):
    def uci(self) -> str: ...

Position = Union[str, _HasFen]
"""A FEN string, or any object with a ``.fen()`` method (a ``chess.Board``)."""
Side = Union[str, bool, None]
"""``"white"``/``"black"`` (or ``"w"``/``"b"``), a python-chess colour (``True`` is white), or None."""
MoveText = Union[str, _HasUci]
MoveGenerator = Any
"""A callable ``fen -> iterable of UCI strings or chess.Move objects``."""

def perft(pos: Position, depth: int, *, threads: Optional[int] = None, hash_mb: int = 16) -> int:
    """The number of leaves of the legal move tree of ``depth`` plies below ``pos``."""

def divide(
    pos: Position, depth: int, *, threads: Optional[int] = None, hash_mb: int = 16, as_moves: bool = False
) -> dict[Any, int]:
    """perft of each root move's subtree, keyed by UCI (or ``chess.Move`` with ``as_moves``), in UCI order."""

def stats(pos: Position, depth: int, *, threads: Optional[int] = None, hash_mb: int = 16) -> dict[str, int]:
    """The CPW "Perft Results" columns: nodes, captures, en_passant, castles, promotions, checks,
    discovered_checks, double_checks, checkmates, stalemates."""

def legal_moves(pos: Position, *, as_moves: bool = False) -> list[Any]:
    """The legal moves in UCI (or ``chess.Move``), in UCI order."""

def clear_hash() -> None:
    """Empty the transposition tables kept between calls of perft, divide and stats."""

class Verdict:
    """The answer of dead, dead_many, reachable and reachable_many."""

    @property
    def fen(self) -> str: ...
    @property
    def side(self) -> Optional[str]: ...
    @property
    def result(self) -> str:
        """winnable / unwinnable / undetermined (dead); reachable / impossible / undetermined."""
    @property
    def helpmate(self) -> Optional[list[Any]]: ...
    @property
    def game(self) -> Optional[list[Any]]: ...
    @property
    def start(self) -> Optional[str]: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def nodes(self) -> Optional[int]: ...
    def to_dict(self) -> dict[str, Any]:
        """fen, side, result, helpmate (UCI joined by spaces), game, reason, nodes: a row for a DataFrame."""

class Batch(Iterator[Verdict]):
    """The iterator of dead_many and reachable_many: verdicts in input order."""

    def __iter__(self) -> "Batch": ...
    def __next__(self) -> Verdict: ...

def dead(
    pos: Position,
    side: Side = None,
    *,
    nodes: int = 3_000_000,
    time_limit: float = 1.0,
    quick: bool = False,
    as_moves: bool = False,
) -> Verdict:
    """Can ``side`` still checkmate (FIDE 6.9)? Both sides when None (FIDE 1.5, dead position)."""

def dead_many(
    items: Iterable[Union[Position, Tuple[Position, Side]]],
    side: Side = None,
    *,
    threads: Optional[int] = None,
    quick: bool = False,
    nodes: int = 3_000_000,
    time_limit: float = 1.0,
    as_moves: bool = False,
) -> Batch:
    """dead over positions or (position, side) pairs, in parallel; verdicts in input order."""

def reachable(
    pos: Position, *, max_plies: int = 10, max_nodes: int = 20_000_000, retro_plies: int = 2, as_moves: bool = False
) -> Verdict:
    """Is ``pos`` reachable by a legal game (FIDE 3.10.3)?"""

def reachable_many(
    items: Iterable[Position],
    *,
    threads: Optional[int] = None,
    max_plies: int = 10,
    max_nodes: int = 20_000_000,
    retro_plies: int = 2,
    as_moves: bool = False,
) -> Batch:
    """reachable over positions, in parallel; verdicts in input order."""

def analyze(
    pos: Position, *, moves: Optional[Sequence[MoveText]] = None, dead: bool = True, reachability: bool = True
) -> dict[str, Any]:
    """The fields of ``perftlab analyze --json``."""

class Failure:
    """The first node where a move generator disagrees with perftlab."""

    root: str
    fen: str
    path: list[str]
    missing: list[str]
    extra: list[str]
    duplicates: list[str]
    kinds: list[str]
    error: Optional[str]
    def board(self) -> Any:
        """The failing node as a ``chess.Board``."""

class Report:
    """What crosscheck or stress found; true when the generator agrees."""

    agree: bool
    nodes: int
    positions: int
    failure: Optional[Failure]
    failures: list[Failure]
    text: str
    def __bool__(self) -> bool: ...

def crosscheck(movegen: MoveGenerator, pos: Position, depth: int = 2, *, chess960: bool = False) -> Report:
    """Compare ``movegen(fen)`` with perftlab's legal moves at every node of the tree below ``pos``."""

def stress(
    movegen: MoveGenerator,
    positions: int = 1000,
    seed: int = 1,
    depth: int = 2,
    *,
    kinds: str = "standard",
    chess960: bool = False,
    fail_fast: bool = False,
) -> Report:
    """crosscheck on the rule-directed positions of ``perftlab stress``."""
