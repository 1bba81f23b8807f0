//! perftlab counts chess move trees (perft) on the CPU and the GPU, checks move generators against each other
//! node by node, and analyses positions. This crate is the library behind the `perftlab` command line.
//!
//! Parse a FEN into a [`Checked`] position (validity is settled there, once), count it with a backend, and
//! compare two backends:
//!
//! ```
//! use perftlab::backend::{Backend, ReferenceBackend};
//! use perftlab::fast::CpuBackend;
//! use perftlab::Checked;
//!
//! // Kiwipete, CPW "Perft Results" position 2.
//! let pos = Checked::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")?;
//! // The fast CPU backend: a 16 MiB hash table, one thread, transpositions merged.
//! let cpu = CpuBackend::new(16, Some(1), true)?;
//! assert_eq!(cpu.perft(&pos, 3)?, 97_862);
//! // The same count from the reference generator, and the same legal move set at every node of the tree.
//! assert_eq!(ReferenceBackend.perft(&pos, 3)?, 97_862);
//! let report = perftlab::verify::verify(&pos, 2, &cpu, &ReferenceBackend, false)?;
//! assert!(report.difference.is_none());
//! // Invalid positions never reach a backend.
//! assert!(Checked::from_fen("8/8/8/8/8/8/8/4K3 w - - 0 1").is_err());
//! # Ok::<(), perftlab::Error>(())
//! ```
//!
//! Cargo features, all on by default: `gpu` (the [`gpu`] backend: wgpu), `render` (pictures and plots:
//! plotters), `deep` (deep runs: sha2) and `cli` (the command line: clap, indicatif, signal-hook; it needs
//! the other three). With `default-features = false` the crate is the core: every module below but those
//! four, depending only on serde, serde_json, rayon and hashbrown; it builds for `wasm32-unknown-unknown`
//! (`tests/layering.rs` checks both).
//!
//! Modules, lowest layer first; each depends only on layers listed before it (`tests/layering.rs` checks
//! that there is no cycle):
//! - [`types`]: squares, colours, pieces, packed moves, castling rights (the vocabulary);
//! - [`position`]: [`position::Setup`] (plain data) and FEN/EPD;
//! - [`error`]: [`Error`], whose kinds a caller can match (FEN field errors, validity errors as data, usage,
//!   engine, I/O with the path, mismatch, backend), and its exit codes;
//! - [`limits`]: the documented limits (depth, threads, memory, timeouts) every command checks;
//! - [`interrupt`]: what a run has done so far, for the message of a stop on SIGINT/SIGTERM (exit 130/143;
//!   the signal watcher itself is the command line's);
//! - [`files`]: atomic output files, outputs that are inputs refused, bounded reads of input files;
//! - [`position_file`]: the one reader of position files (FEN or EPD lines, CHA labels, a side word), bounded;
//! - [`cpw`]: the CPW benchmark positions and their published counts;
//! - [`reference`](mod@reference): the mailbox reference generator, the oracle (FIDE 3.1–3.9, findable by article number);
//!   it imports only `types` and `position`;
//! - [`retro`]: retro-analysis, proofs that a position is impossible (FIDE 3.10.3): counting arguments and
//!   retraction of the last move; imports only `types`, `position` and `reference`;
//! - [`validate`]: validity (FIDE 3.10.3) and [`Checked`], the type of a position perft is defined on;
//! - [`random`]: random reachable positions (seeded playouts from the standard or a Chess960 start), for
//!   `stress` and for the tests of every layer above `reference`; imports only `types`, `position` and `reference`;
//! - [`san`]: Standard Algebraic Notation (FIDE Appendix C), written and read;
//! - [`line`]: lines of play: moves given as UCI or SAN text played from a [`Checked`] position
//!   ([`line::play_line`], and [`line::play_moves`] for `--moves`);
//! - [`backend`]: the [`backend::Backend`] trait, CPW detail [`backend::Stats`], the reference backend;
//! - [`bitboard`]: the bitboard core (`Bitboard`, `Board` with its typed face, attacks, magics, Zobrist keys, the
//!   legal move generator, the frontier), used by everything that needs bitboards;
//! - [`fast`]: the fast CPU backend on [`bitboard`] (perft walks, bulk counting, vector lanes, lock-free hash
//!   table, rayon, merging, statistics);
//! - [`proofgame`]: proof games (IDA* on the fast generator) and the reachability verdict;
//! - [`gpu`]: the GPU backend (WGSL kernels on wgpu);
//! - [`suite`]: perft suite files and their runner;
//! - [`verify`]: the per-node cross-check of two backends' legal move sets;
//! - [`table`]: the rows of the `table` command (CPW-style detail tables);
//! - [`analyze`]: position analysis and game state (FIDE 5, 9);
//! - [`engines`]: external move generators (the `Engine` trait; UCI, perftree scripts, total-only engines);
//! - [`compare`]: comparing an engine with a backend: the divide diff, drill-down, stress positions;
//! - [`crosscheck`]: the library API that checks any Rust move generator against the reference;
//! - [`render`]: SVG board pictures, HTML reports of failures, bench plots;
//! - [`deep`]: deep runs: split frontier, checkpoint journal, work units (plan, run-unit, status, merge);
//! - [`cli`]: the `perftlab` command line (the only user of clap).
#![warn(missing_docs)]
#![deny(unsafe_code)]

pub mod analyze;
pub mod backend;
pub mod bitboard;
#[cfg(feature = "cli")]
pub mod cli;
pub mod compare;
pub mod cpw;
pub mod crosscheck;
#[cfg(feature = "deep")]
pub mod deep;
pub mod engines;
pub mod error;
pub mod fast;
pub mod files;
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod interrupt;
pub mod limits;
pub mod line;
pub mod position;
pub mod position_file;
pub mod proofgame;
pub mod random;
pub mod reference;
#[cfg(feature = "render")]
pub mod render;
pub mod retro;
pub mod san;
pub mod suite;
pub mod table;
pub mod types;
pub mod validate;
pub mod verify;

pub use error::{Error, InvalidPosition, Result, ValidityError};
pub use position::{FenError, FenField, Setup};
pub use validate::{Checked, ValidityWarning};
