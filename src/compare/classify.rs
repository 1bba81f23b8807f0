//! Failure classification: which kind of rule (castling, en passant, promotion, check evasion, pins) a
//! move that two generators disagree on exercises, for grouping `stress` and suite failures.

use crate::analyze;
use crate::engines::looks_like_uci;
use crate::position::Setup;
use crate::reference;
use crate::types::{Piece, Role, Square};
use serde::Serialize;

/// The kind of move a failure involves, for grouping stress failures.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Serialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// A castling move.
    Castling,
    /// An en-passant capture.
    EnPassant,
    /// A promotion.
    Promotion,
    /// Any move while in check.
    CheckEvasion,
    /// A move of a pinned piece, or one that would expose the king.
    Pin,
    /// None of the above.
    Other,
}

impl FailureKind {
    /// The snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Castling => "castling",
            FailureKind::EnPassant => "en_passant",
            FailureKind::Promotion => "promotion",
            FailureKind::CheckEvasion => "check_evasion",
            FailureKind::Pin => "pin",
            FailureKind::Other => "other",
        }
    }
}

/// Classify a move text (legal or not) in `setup` by the kind of rule it exercises.
pub fn classify(setup: &Setup, text: &str) -> FailureKind {
    if !looks_like_uci(text) {
        return FailureKind::Other;
    }
    let from = Square::parse(&text[0..2]).expect("checked");
    let to = Square::parse(&text[2..4]).expect("checked");
    let piece = setup.piece_at(from);
    let role = piece.map(|p| p.role);
    let own_rook =
        piece.is_some_and(|p| setup.piece_at(to) == Some(Piece::new(p.color, Role::Rook)));
    if role == Some(Role::King) && (from.file().abs_diff(to.file()) == 2 || own_rook) {
        return FailureKind::Castling;
    }
    if role == Some(Role::Pawn) && from.file() != to.file() && setup.piece_at(to).is_none() {
        return FailureKind::EnPassant;
    }
    if text.len() == 5 || (role == Some(Role::Pawn) && (to.rank() == 0 || to.rank() == 7)) {
        return FailureKind::Promotion;
    }
    if reference::Mailbox::from_setup(setup).in_check() {
        return FailureKind::CheckEvasion;
    }
    if analyze::pinned(setup).contains(&from) {
        return FailureKind::Pin;
    }
    // A pseudo-legal move that exposes the king (a king walking into an attack, say) is a king-safety slip.
    let mut probe = setup.clone();
    if let (Some(p), true) = (piece, role != Some(Role::King)) {
        probe.board[to.index()] = Some(p);
        probe.board[from.index()] = None;
        if probe
            .kings(p.color)
            .first()
            .is_some_and(|&k| !reference::attackers(&probe, k, !p.color).is_empty())
        {
            return FailureKind::Pin;
        }
    }
    FailureKind::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_moves_by_rule() {
        let s = Setup::from_fen("r3k2r/8/8/3pP3/8/8/1p6/R3K2R w KQkq d6 0 1").unwrap();
        assert_eq!(classify(&s, "e1g1"), FailureKind::Castling);
        assert_eq!(classify(&s, "e1h1"), FailureKind::Castling);
        assert_eq!(classify(&s, "e5d6"), FailureKind::EnPassant);
        let s = Setup::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(classify(&s, "b7b8n"), FailureKind::Promotion);
        let s = Setup::from_fen("4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1").unwrap();
        assert_eq!(classify(&s, "a1a2"), FailureKind::CheckEvasion);
        let s = Setup::from_fen("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1").unwrap();
        assert_eq!(classify(&s, "e2d2"), FailureKind::Pin);
        assert_eq!(classify(&s, "e1f1"), FailureKind::Other);
        assert!(looks_like_uci("e7e8q") && !looks_like_uci("e7e8x") && !looks_like_uci("Nodes"));
        assert!(!looks_like_uci("aé4x") && !looks_like_uci("é2e4"));
    }
}
