//! Detail statistics in the Chess Programming Wiki's "Perft Results" convention, counted at the leaves: for
//! each move of the last ply, whether it captures, is en passant, castles, promotes, gives check (mates
//! included), gives a discovered check (the one checker is not the piece that moved; CPW counts double
//! checks only in their own column), a double check, or mates;
//! stalemates are an extra column.

use crate::reference::Mailbox;
use crate::types::{Move, MoveKind};
use serde::Serialize;
use std::ops::Add;

/// Leaf statistics; see the module docs for each column's meaning.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize)]
pub struct Stats {
    /// Captures, en passant included.
    pub captures: u64,
    /// En-passant captures.
    pub en_passant: u64,
    /// Castling moves.
    pub castles: u64,
    /// Promotions (each piece counted).
    pub promotions: u64,
    /// Moves giving check, mates included.
    pub checks: u64,
    /// Single checks given by a piece other than the one that moved (CPW counts a double check only as
    /// a double check).
    pub discovered_checks: u64,
    /// Checks by two pieces.
    pub double_checks: u64,
    /// Moves that checkmate.
    pub checkmates: u64,
    /// Moves that stalemate.
    pub stalemates: u64,
}

impl Stats {
    /// Account one leaf move `m` played from `pos` (reference generator).
    pub fn add_leaf(&mut self, pos: &Mailbox, m: Move) {
        let capture = m.kind() == MoveKind::EnPassant
            || (m.kind() != MoveKind::Castling && pos.piece_at(m.to()).is_some());
        self.captures += capture as u64;
        self.en_passant += (m.kind() == MoveKind::EnPassant) as u64;
        self.castles += (m.kind() == MoveKind::Castling) as u64;
        self.promotions += (m.kind() == MoveKind::Promotion) as u64;
        let next = pos.play(m);
        let checkers = next.checkers();
        let mover = if m.kind() == MoveKind::Castling {
            m.castling_rook_target()
        } else {
            m.to()
        };
        if !checkers.is_empty() {
            self.checks += 1;
            self.discovered_checks += (checkers.len() == 1 && checkers[0] != mover) as u64;
            self.double_checks += (checkers.len() >= 2) as u64;
        }
        if next.legal_moves().is_empty() {
            if checkers.is_empty() {
                self.stalemates += 1;
            } else {
                self.checkmates += 1;
            }
        }
    }
}

impl Add for Stats {
    type Output = Stats;
    fn add(self, o: Stats) -> Stats {
        Stats {
            captures: self.captures + o.captures,
            en_passant: self.en_passant + o.en_passant,
            castles: self.castles + o.castles,
            promotions: self.promotions + o.promotions,
            checks: self.checks + o.checks,
            discovered_checks: self.discovered_checks + o.discovered_checks,
            double_checks: self.double_checks + o.double_checks,
            checkmates: self.checkmates + o.checkmates,
            stalemates: self.stalemates + o.stalemates,
        }
    }
}
