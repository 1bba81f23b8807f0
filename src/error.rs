//! The crate's error type and the exit codes the CLI maps it to: 0 success, 1 a count mismatch or failed
//! check, 2 bad input or usage (including an unusable GPU).

use std::fmt;

/// Anything that stops a command.
#[derive(Debug)]
pub enum Error {
    /// Bad input or usage: a malformed FEN, an invalid position, a missing file, a bad flag value. Exit 2.
    Usage(String),
    /// A backend could not run (no GPU adapter, out of device memory, device lost). Exit 2.
    Backend(String),
    /// A count or check disagreed. Exit 1.
    Mismatch(String),
}

impl Error {
    /// Process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Mismatch(_) => 1,
            Error::Usage(_) | Error::Backend(_) => 2,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Backend(m) | Error::Mismatch(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::position::FenError> for Error {
    fn from(e: crate::position::FenError) -> Error {
        Error::Usage(e.to_string())
    }
}

/// Shorthand.
pub type Result<T> = std::result::Result<T, Error>;
