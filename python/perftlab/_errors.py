"""The exceptions of perftlab: each is a PerftlabError; bad input is also a ValueError."""


class PerftlabError(Exception):
    """Any error perftlab raises (KeyboardInterrupt and TypeError aside)."""


class UsageError(PerftlabError, ValueError):
    """A bad argument value; the message names the argument and the offending value."""


class FenError(UsageError):
    """A FEN that does not parse.

    Attributes: ``field`` (``"board"``, ``"side_to_move"``, ``"castling"``, ``"en_passant"``,
    ``"halfmove_clock"``, ``"fullmove_number"``, or None when the text is empty or has too many fields) and
    ``text`` (the offending text, or None).
    """

    field = None
    text = None


class InvalidPositionError(UsageError):
    """A position perft is ill-defined on (FIDE 3.10.3): no king, a pawn on a back rank, the side not to
    move in check, ...

    Attributes: ``fen`` and ``errors`` (every reason, as text).
    """

    fen = None
    errors = ()


class MismatchError(PerftlabError):
    """A check failed inside perftlab (a helpmate or proof game that fails its replay: a bug)."""


class BackendError(PerftlabError, RuntimeError):
    """The work could not run (a thread pool or hash table that cannot be made)."""
