//! Positions as plain data ([`Setup`]), their FEN/EPD text form ([`fen`]) and validity checks ([`validate`]).
//!
//! Flow, as in shakmaty: text → [`Setup::from_fen`] (syntax only) → [`validate::check`] (FIDE 3.10.3 and
//! perft-ability) → a generator's own position type.

pub mod fen;
mod setup;
pub mod validate;

pub use fen::FenError;
pub use setup::Setup;
pub use validate::{Validity, ValidityError, ValidityWarning};
