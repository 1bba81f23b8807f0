//! perftlab: counts chess move trees (perft) on the GPU and CPU, checks move generators against each other,
//! and analyses positions.
//!
//! Layers, each depending only on those above it:
//! - [`types`]: squares, pieces, packed moves, castling rights;
//! - [`position`]: [`position::Setup`] (plain data), FEN/EPD;
//! - [`reference`]: the mailbox reference generator, the oracle (FIDE 3.1–3.9, findable by article number);
//! - [`validate`]: validity checks (FIDE 3.10.3) and [`Checked`], the type of a position perft is defined on;
//! - [`backend`]: the [`backend::Backend`] trait, CPW detail [`backend::Stats`], the reference backend;
//! - [`fast`]: the fast CPU backend (bitboards, bulk counting, lock-free hash table, rayon, merging);
//! - [`suite`]: perft suite files and their runner;
//! - [`verify`]: the per-node cross-check of two generators' legal move sets;
//! - [`compare`]: comparing external engines (UCI, perftree scripts), drill-down, random stress;
//! - [`analyze`]: position analysis and game state (FIDE 5, 9), SAN;
//! - [`table`]: CPW-style perft reference tables;
//! - [`gpu`]: the GPU backend (WGSL kernels on wgpu);
//! - [`cli`]: the `perftlab` command line.
#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod analyze;
pub mod backend;
pub mod cli;
pub mod compare;
pub mod cpw;
pub mod error;
pub mod fast;
pub mod gpu;
pub mod position;
pub mod reference;
pub mod suite;
pub mod table;
pub mod types;
pub mod validate;
pub mod verify;

pub use error::{Error, Result};
pub use validate::Checked;
