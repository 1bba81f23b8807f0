//! Positions as plain data ([`Setup`]) and their FEN/EPD text form ([`fen`]).
//!
//! Flow, as in shakmaty: text → [`Setup::from_fen`] (syntax only) → [`crate::validate::Checked::new`]
//! (FIDE 3.10.3 and perft-ability, a layer above the reference generator) → a backend.

pub mod fen;
mod setup;

pub use fen::{FenError, FenField};
pub use setup::{Pieces, Setup};
