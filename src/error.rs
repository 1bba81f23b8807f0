//! The crate's error type, whose kinds a caller can match, and the exit codes the CLI maps it to: 0 success,
//! 1 a count mismatch or failed check, 2 bad input or usage (including an unusable GPU or engine).
//!
//! [`Error`]'s `Display` is the message the command line prints after `error: `; the kinds keep the data
//! behind it: a FEN error names its [`FenField`](crate::position::FenField) and the offending text
//! ([`FenError`]), an invalid position carries the position and every [`ValidityError`] (FIDE 3.10.3), an I/O
//! error the path and the operating system's error.
//!
//! Errors about a caller's settings ([`Error::Memory`], [`Error::Adapter`], [`Error::Setting`]) and an
//! external engine's failures to answer ([`Error::Engine`]) keep the offending values and name no flag of the
//! command line: their messages call each [`Setting`] by a name ([`Setting::name`], or the flag where the CLI
//! chose flags with [`name_settings`]).
//!
//! Why the names are chosen once per process rather than passed to each message (a reviewer's question,
//! issue 31 item 4): [`Error::message`] takes the names explicitly, but the command line also quotes errors
//! *inside* other text that the library builds: a comparison's `engine_error`, a suite's or a stress run's
//! failure lines, a deep run's checkpoint message (`deep/`, `gpu/` call [`named`] where they write one). With
//! explicit names each of those would have to carry the [`Error`] instead of its text to the CLI, a change
//! across `compare/`, `deep/`, `gpu/` and `cli/` for no user-visible gain. The process-wide choice is safe
//! for the other users: only `cli::main` (the binary) calls [`name_settings`]; the Python package, the web
//! page and every test run in-process never do, so they always see [`Setting::name`] (`hash size`, never
//! `--hash`), and a `OnceLock` set before anything runs cannot race (tests that check the CLI's words run the
//! binary, a process of its own).
//!
//! [`ValidityError`] lives here rather than in [`crate::validate`] so that this module, which `validate`
//! builds on, does not depend on it; `validate` re-exports it.

use crate::position::{FenError, Setup};
use crate::types::{Color, Square};
use std::fmt;
use std::path::PathBuf;

/// Anything that stops a command.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Bad input or usage: a missing file, a bad flag value, a move that is not legal. Exit 2.
    Usage(String),
    /// A backend could not run (no GPU adapter, out of device memory, device lost). Exit 2.
    Backend(String),
    /// A count or check disagreed. Exit 1.
    Mismatch(String),
    /// A FEN that does not parse: which field, and the text that is wrong. Exit 2.
    Fen(FenError),
    /// A position perft is ill-defined on (FIDE 3.10.3), with every reason. Exit 2.
    InvalidPosition(Box<InvalidPosition>),
    /// An external engine did not answer in time, or does not know its perft command ([`EngineError`]);
    /// its other failures (it died, answered something unreadable) are [`Error::Backend`]. Exit 2.
    Engine(Box<EngineError>),
    /// The caller stopped a computation through its progress callback (the GPU backend's
    /// `perft_async`); the text says what was stopped. Exit 130, like an interrupt.
    Interrupted(String),
    /// A memory request the host or a GPU adapter cannot meet: what asked for it, how much, and the limit
    /// ([`MemoryError`]). Exit 2.
    Memory(Box<MemoryError>),
    /// The GPU adapter choice names no usable adapter, or is malformed ([`AdapterError`]). Exit 2.
    Adapter(Box<AdapterError>),
    /// A setting's value the library cannot use, with the value and why ([`SettingError`]). Exit 2.
    Setting(Box<SettingError>),
    /// A file could not be read or written. Exit 2.
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
        /// The message shown (it names the file, or the flag that gave it, and quotes `source`).
        message: String,
    },
}

/// The data of [`Error::InvalidPosition`]: the position, and why perft is ill-defined on it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InvalidPosition {
    /// The position as given.
    pub setup: Setup,
    /// Every reason, in the order [`crate::validate::check`] found them (never empty).
    pub errors: Vec<ValidityError>,
}

impl Error {
    /// Whether an external engine failed: it died, hung, did not know its perft command or answered something
    /// unreadable ([`Error::Engine`], or [`Error::Backend`] from the engine's side). Callers that drive many
    /// positions report it, start a fresh engine and go on.
    pub fn is_engine_failure(&self) -> bool {
        matches!(self, Error::Backend(_) | Error::Engine(_))
    }

    /// Process exit code for this error: 1 for [`Error::Mismatch`], 130 for [`Error::Interrupted`], 2 for
    /// everything else.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Mismatch(_) => 1,
            Error::Interrupted(_) => 130,
            Error::Usage(_)
            | Error::Backend(_)
            | Error::Fen(_)
            | Error::InvalidPosition(_)
            | Error::Engine(_)
            | Error::Memory(_)
            | Error::Adapter(_)
            | Error::Setting(_)
            | Error::Io { .. } => 2,
        }
    }

    /// An [`Error::Io`] about `path`, shown as `message`.
    pub fn io(
        path: impl Into<PathBuf>,
        source: std::io::Error,
        message: impl Into<String>,
    ) -> Error {
        Error::Io {
            path: path.into(),
            source,
            message: message.into(),
        }
    }

    /// An [`Error::InvalidPosition`].
    pub fn invalid_position(setup: Setup, errors: Vec<ValidityError>) -> Error {
        Error::InvalidPosition(Box::new(InvalidPosition { setup, errors }))
    }
}

/// How `Display` calls a [`Setting`]: [`Setting::name`] unless a program chose its own names
/// ([`name_settings`]).
static SETTING_NAMES: std::sync::OnceLock<fn(Setting) -> &'static str> = std::sync::OnceLock::new();

/// Make every message of this process call each [`Setting`] by `name` (the command line: by its flag, so that
/// a message quoted inside a report, a suite failure or a note names the flag too). Once per process: `false`
/// when names were already chosen.
pub fn name_settings(name: fn(Setting) -> &'static str) -> bool {
    SETTING_NAMES.set(name).is_ok()
}

/// The name this process's messages give `s` ([`name_settings`], else [`Setting::name`]).
pub fn named(s: Setting) -> &'static str {
    SETTING_NAMES.get().map_or_else(|| s.name(), |name| name(s))
}

impl Error {
    /// The message, each [`Setting`] called by `name`. `Display` calls them by [`Setting::name`] (`hash size`)
    /// or the names chosen with [`name_settings`] (the command line: `--hash`).
    pub fn message(&self, name: &dyn Fn(Setting) -> &'static str) -> String {
        match self {
            Error::Memory(m) => m.message(name),
            Error::Adapter(a) => a.message(name),
            Error::Setting(s) => s.message(name),
            Error::Engine(e) => e.message(name),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Backend(m) | Error::Mismatch(m) | Error::Interrupted(m) => {
                f.write_str(m)
            }
            Error::Io { message, .. } => f.write_str(message),
            Error::Fen(e) => write!(f, "{e}"),
            Error::InvalidPosition(p) => write!(f, "{p}"),
            Error::Memory(m) => f.write_str(&m.message(&named)),
            Error::Adapter(a) => f.write_str(&a.message(&named)),
            Error::Setting(s) => f.write_str(&s.message(&named)),
            Error::Engine(e) => f.write_str(&e.message(&named)),
        }
    }
}

impl fmt::Display for InvalidPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.errors.iter().map(|e| e.to_string()).collect();
        write!(
            f,
            "invalid position '{}': {}",
            self.setup.to_fen(),
            parts.join("; ")
        )
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Fen(e) => Some(e),
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<FenError> for Error {
    fn from(e: FenError) -> Error {
        Error::Fen(e)
    }
}

/// Shorthand.
pub type Result<T> = std::result::Result<T, Error>;

mod kinds;
pub use kinds::{
    AdapterError, EngineError, EngineFailure, MemoryError, MemoryLimit, MemoryRequest, Part,
    Setting, SettingError,
};

/// A reason perft is ill-defined on a position (found by [`crate::validate::check`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ValidityError {
    /// A side has no king.
    MissingKing(Color),
    /// A side has more than one king.
    TooManyKings(Color),
    /// The side not to move is in check: its king could be captured (FIDE 3.9.2 was broken).
    OppositeCheck,
    /// A pawn stands on the first or last rank, where no pawn can be (FIDE 3.7.5).
    PawnOnBackRank(Square),
    /// A castling right without the king and that rook on their squares (FIDE 3.8.2.1).
    InvalidCastlingRight {
        /// Whose right.
        color: Color,
        /// The rook square the right names.
        rook: Square,
        /// What is wrong.
        reason: &'static str,
    },
    /// An en-passant square that no double step just played can explain (FIDE 3.7.4.2).
    InvalidEpSquare {
        /// The square.
        square: Square,
        /// What is wrong.
        reason: &'static str,
    },
}

impl fmt::Display for ValidityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValidityError::MissingKing(c) => write!(f, "missing_king: {} has no king", c.name()),
            ValidityError::TooManyKings(c) => {
                write!(f, "too_many_kings: {} has more than one king", c.name())
            }
            ValidityError::OppositeCheck => {
                write!(f, "opposite_check: the side not to move is in check")
            }
            ValidityError::PawnOnBackRank(sq) => write!(f, "pawn_on_back_rank: pawn on {sq}"),
            ValidityError::InvalidCastlingRight {
                color,
                rook,
                reason,
            } => {
                write!(
                    f,
                    "invalid_castling_right: {} right with rook {rook}: {reason}",
                    color.name()
                )
            }
            ValidityError::InvalidEpSquare { square, reason } => {
                write!(f, "invalid_ep_square: {square}: {reason}")
            }
        }
    }
}
