//! Comparing perftlab with an external move generator (an "engine": a UCI program answering `go perft N`, or
//! a perftree-style script), by concern:
//! - [`engine`](Engine): the [`Engine`] trait, its factory [`start`] and command splitting; the two protocols in
//!   `uci` and `script`;
//! - `drill`: the divide diff and the drill-down to the minimal failing position ([`compare`], [`Request`],
//!   [`Comparison`] with an optional [`Failure`]);
//! - `classify`: which kind of rule a failing move exercises ([`FailureKind`]);
//! - [`kinds`]: rule-directed positions for `stress` (e.p. pins, castling, Chess960, promotions, checks, ...),
//!   dealt before random playouts;
//! - [`random`]: random reachable positions for `stress`;
//! - `total`: [`TotalOnlyEngine`], a UCI engine whose perft command prints only a total.

mod classify;
mod drill;
mod engine;
pub mod kinds;
pub mod random;
mod script;
mod total;
mod uci;

pub use classify::{classify, FailureKind};
pub use drill::{compare, Comparison, Failure, Request, WrongCount};
pub use engine::{looks_like_uci, split_command, start, Divide, Engine, Protocol};
pub use script::ScriptEngine;
pub use total::{start_with_perft_command, TotalOnlyEngine};
pub use uci::UciEngine;

pub use crate::line::split_moves;
