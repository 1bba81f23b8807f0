//! Comparing perftlab with an external move generator (an "engine": a UCI program answering `go perft N`, or
//! a perftree-style script; the engines themselves, their trait and protocols, are in [`crate::engines`]), by
//! concern:
//! - `drill`: the divide diff and the drill-down to the minimal failing position ([`compare`], [`Request`],
//!   [`Comparison`] with an optional [`Failure`]);
//! - `classify`: which kind of rule a failing move exercises ([`FailureKind`]);
//! - [`kinds`]: rule-directed positions for `stress` (e.p. pins, castling, Chess960, promotions, checks, ...),
//!   dealt before random playouts;
//! - `motifs`: the pieces each directed kind places to put its rule at its edge, and their board helpers;
//! - [`random`]: random reachable positions for `stress` ([`crate::random`], re-exported here).

mod classify;
mod drill;
pub mod kinds;
mod motifs;
pub use crate::random;

pub use classify::{classify, FailureKind};
pub use drill::{compare, Comparison, Failure, Request, WrongCount};
