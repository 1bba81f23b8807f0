//! Retraction of the last move (FIDE 3.10.3: a legal position has a legal history, so the side that just
//! moved has a move that led to it). For the side that just moved, every way back is generated:
//!
//! - un-moves of each piece along its own lines (FIDE 3.2–3.6, 3.8.1), the squares passed being empty;
//! - each of them with an un-capture: an enemy pawn, knight, bishop, rook or queen put back on the square left
//!   (never a king; a pawn never on the first or last rank);
//! - pawn un-moves: one or two squares back (FIDE 3.7.1, 3.7.2), diagonally back with an un-capture (3.7.3),
//!   un-e.p. (3.7.4: the enemy pawn put back beside, the position before having that e.p. square);
//! - un-promotions (3.7.5): a queen, rook, bishop or knight on the last rank back to a pawn, straight or with
//!   an un-capture;
//! - un-castling (3.8.2): a king on the g- or c-file beside its rook on the f- or d-file back to the initial
//!   king and rook squares: e1/h1 and e1/a1 in standard chess, any king file b–g with a rook beyond it in
//!   Chess960.
//!
//! A predecessor is kept when the side that did not move is not in check there (else the move before was
//! illegal), the static proofs ([`super::proofs`]) find nothing, and the reference generator's `play` of the
//! retracted move gives back exactly the position (placement, side to move, castling rights, e.p. square). The
//! predecessor gets the fewest castling rights that fit and no e.p. square (unless un-e.p. needs one), which
//! only ever allows more, so the search stays sound: the real history is always among the predecessors, or
//! one that allows at least as much. An initial position (standard, or any of the 960 with `chess960`) ends the
//! retraction successfully. Move counters are ignored.

use super::{proofs, Proof, ProofKind, RetroOptions};
use crate::position::Setup;
use crate::reference;
use crate::types::{CastlingSide, Color, Move, MoveKind, Piece, Role, Square};

/// The roles an un-capture may put back (never a king).
const UNCAPTURE: [Option<Role>; 6] = [
    None,
    Some(Role::Pawn),
    Some(Role::Knight),
    Some(Role::Bishop),
    Some(Role::Rook),
    Some(Role::Queen),
];

use crate::types::{KING_STEPS as KING, KNIGHT_STEPS as KNIGHT};
const DIAG: [(i32, i32); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];
const ORTH: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

fn at(sq: Square, df: i32, dr: i32) -> Option<Square> {
    Square::from_coords(sq.file() as i32 + df, sq.rank() as i32 + dr)
}

/// Which un-captures an un-move comes with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Uncapture {
    /// None (pawn steps forward, straight promotions, castling).
    Never,
    /// With or without one (pieces).
    Maybe,
    /// Always one (pawn captures, promotions by capture).
    Always,
}

/// Builds predecessors: the position with the side that moved to move and no e.p. square.
struct Unmover {
    base: Setup,
    x: Color,
}

impl Unmover {
    /// A normal un-move (an un-promotion when `from_role` is a pawn and the piece is not), with the un-captures
    /// on `to` that `captures` allows.
    fn push(
        &self,
        out: &mut Vec<Candidate>,
        from: Square,
        to: Square,
        from_role: Role,
        mv: Move,
        captures: Uncapture,
    ) {
        for cap in UNCAPTURE {
            if (cap.is_some() && captures == Uncapture::Never)
                || (cap.is_none() && captures == Uncapture::Always)
            {
                continue;
            }
            if cap == Some(Role::Pawn) && (to.rank() == 0 || to.rank() == 7) {
                continue;
            }
            let mut b = self.base.clone();
            b.board[from.index()] = Some(Piece::new(self.x, from_role));
            b.board[to.index()] = cap.map(|r| Piece::new(!self.x, r));
            out.push(Candidate { before: b, mv });
        }
    }
}

/// A candidate predecessor: the position before, the move played there, and whether its e.p. square is known
/// (`true` only when un-e.p. set it; otherwise "none" stands for "unknown").
struct Candidate {
    before: Setup,
    mv: Move,
}

/// Whether `setup` is an initial position: the standard one, or with `chess960` any of the 960 (White to move).
pub fn is_initial(setup: &Setup, chess960: bool) -> bool {
    if setup.turn != Color::White {
        return false;
    }
    let start = Setup::startpos();
    if setup.board == start.board {
        return true;
    }
    if !chess960 {
        return false;
    }
    let mut back = [Role::King; 8];
    for f in 0..8u8 {
        let (w1, w2) = (Square::new(f), Square::new(8 + f));
        let (b7, b8) = (Square::new(48 + f), Square::new(56 + f));
        if setup.piece_at(w2) != Some(Piece::new(Color::White, Role::Pawn))
            || setup.piece_at(b7) != Some(Piece::new(Color::Black, Role::Pawn))
        {
            return false;
        }
        let Some(p) = setup.piece_at(w1) else {
            return false;
        };
        if p.color != Color::White
            || p.role == Role::Pawn
            || setup.piece_at(b8) != Some(Piece::new(Color::Black, p.role))
        {
            return false;
        }
        back[f as usize] = p.role;
    }
    for r in 2..6u8 {
        for f in 0..8u8 {
            if setup.piece_at(Square::new(r * 8 + f)).is_some() {
                return false;
            }
        }
    }
    let count = |role| back.iter().filter(|&&r| r == role).count();
    let files = |role| -> Vec<usize> { (0..8).filter(|&f| back[f] == role).collect() };
    let (k, rooks, bishops) = (files(Role::King), files(Role::Rook), files(Role::Bishop));
    count(Role::Queen) == 1
        && count(Role::Knight) == 2
        && k.len() == 1
        && rooks.len() == 2
        && bishops.len() == 2
        && rooks[0] < k[0]
        && k[0] < rooks[1]
        && (bishops[0] + bishops[1]) % 2 == 1
}

/// All candidate predecessors of `pos` (see the module docs). Over-generation is harmless (each is checked by
/// replaying it); a missing one would not be.
fn candidates(pos: &Setup, chess960: bool) -> Vec<Candidate> {
    let x = !pos.turn;
    let mut out = Vec::new();
    let mut base = pos.clone();
    base.turn = x;
    base.ep_square = None;
    let ctx = Unmover { base, x };
    // FIDE 3.7.2: an e.p. square names the last move (the double step of the pawn in front of it).
    if let Some(ep) = pos.ep_square {
        ctx.undo_double_step(pos, ep, &mut out);
        return out;
    }
    for to in Square::all() {
        let Some(p) = pos.piece_at(to) else { continue };
        if p.color != x {
            continue;
        }
        match p.role {
            Role::Pawn => ctx.unmove_pawn(pos, to, &mut out),
            Role::King => {
                ctx.unmove_leaper(pos, to, Role::King, &KING, &mut out);
                uncastle(pos, to, chess960, &mut out);
            }
            Role::Knight => ctx.unmove_leaper(pos, to, Role::Knight, &KNIGHT, &mut out),
            Role::Bishop | Role::Rook | Role::Queen => ctx.unmove_slider(pos, to, p.role, &mut out),
        }
        // FIDE 3.7.5: un-promotion of a piece on the last rank, straight or with an un-capture.
        if p.role != Role::Pawn && p.role != Role::King && to.rank() == x.back_rank() ^ 7 {
            ctx.unpromote(pos, to, p.role, &mut out);
        }
    }
    out
}

impl Unmover {
    /// The direction the side that moved pushes its pawns (+1 rank for White).
    fn forward(&self) -> i32 {
        if self.x == Color::White {
            1
        } else {
            -1
        }
    }

    /// FIDE 3.7.2: the double step that left the e.p. square `ep` (the pawn in front of it, its origin empty).
    fn undo_double_step(&self, pos: &Setup, ep: Square, out: &mut Vec<Candidate>) {
        let fwd = self.forward();
        if let (Some(pawn), Some(origin)) = (at(ep, 0, fwd), at(ep, 0, -fwd)) {
            if pos.piece_at(pawn) == Some(Piece::new(self.x, Role::Pawn))
                && pos.piece_at(ep).is_none()
                && pos.piece_at(origin).is_none()
            {
                self.push(
                    out,
                    origin,
                    pawn,
                    Role::Pawn,
                    Move::normal(origin, pawn),
                    Uncapture::Never,
                );
            }
        }
    }

    /// Un-moves of the pawn on `to`: straight back one or two squares (FIDE 3.7.1, 3.7.2), diagonally back
    /// with an un-capture (3.7.3) or un-e.p. (3.7.4).
    fn unmove_pawn(&self, pos: &Setup, to: Square, out: &mut Vec<Candidate>) {
        let (x, fwd) = (self.x, self.forward());
        let empty = |sq: Square| pos.piece_at(sq).is_none();
        if let Some(from) = at(to, 0, -fwd).filter(|&s| empty(s)) {
            if from.rank() != x.back_rank() {
                self.push(
                    out,
                    from,
                    to,
                    Role::Pawn,
                    Move::normal(from, to),
                    Uncapture::Never,
                );
                let double_rank = if x == Color::White { 3 } else { 4 };
                if to.rank() == double_rank {
                    if let Some(from2) = at(from, 0, -fwd).filter(|&s| empty(s)) {
                        self.push(
                            out,
                            from2,
                            to,
                            Role::Pawn,
                            Move::normal(from2, to),
                            Uncapture::Never,
                        );
                    }
                }
            }
        }
        for df in [-1, 1] {
            let Some(from) = at(to, df, -fwd).filter(|&s| empty(s)) else {
                continue;
            };
            if from.rank() == x.back_rank() {
                continue;
            }
            for cap in UNCAPTURE.into_iter().flatten() {
                let mut b = self.base.clone();
                b.board[from.index()] = Some(Piece::new(x, Role::Pawn));
                b.board[to.index()] = Some(Piece::new(!x, cap));
                out.push(Candidate {
                    before: b,
                    mv: Move::normal(from, to),
                });
            }
            let ep_rank = if x == Color::White { 5 } else { 2 };
            let (Some(victim), Some(origin)) = (at(to, 0, -fwd), at(to, 0, fwd)) else {
                continue;
            };
            if to.rank() == ep_rank && empty(victim) && empty(origin) {
                let mut b = self.base.clone();
                b.board[from.index()] = Some(Piece::new(x, Role::Pawn));
                b.board[to.index()] = None;
                b.board[victim.index()] = Some(Piece::new(!x, Role::Pawn));
                b.ep_square = Some(to);
                out.push(Candidate {
                    before: b,
                    mv: Move::en_passant(from, to),
                });
            }
        }
    }

    /// Un-moves of the king or knight (`role`) on `to` by one of its `steps` (FIDE 3.6, 3.8.1).
    fn unmove_leaper(
        &self,
        pos: &Setup,
        to: Square,
        role: Role,
        steps: &[(i32, i32); 8],
        out: &mut Vec<Candidate>,
    ) {
        for &(df, dr) in steps {
            if let Some(from) = at(to, df, dr).filter(|&s| pos.piece_at(s).is_none()) {
                self.push(
                    out,
                    from,
                    to,
                    role,
                    Move::normal(from, to),
                    Uncapture::Maybe,
                );
            }
        }
    }

    /// Un-moves of the bishop, rook or queen (`role`) on `to` along its lines over empty squares (FIDE 3.2–3.4).
    fn unmove_slider(&self, pos: &Setup, to: Square, role: Role, out: &mut Vec<Candidate>) {
        let dirs: Vec<(i32, i32)> = match role {
            Role::Bishop => DIAG.to_vec(),
            Role::Rook => ORTH.to_vec(),
            _ => DIAG.iter().chain(ORTH.iter()).copied().collect(),
        };
        for (df, dr) in dirs {
            let mut cur = at(to, df, dr);
            while let Some(from) = cur.filter(|&s| pos.piece_at(s).is_none()) {
                self.push(
                    out,
                    from,
                    to,
                    role,
                    Move::normal(from, to),
                    Uncapture::Maybe,
                );
                cur = at(from, df, dr);
            }
        }
    }

    /// FIDE 3.7.5: the piece (`role`) on the last rank square `to` back to a pawn, straight or with an
    /// un-capture.
    fn unpromote(&self, pos: &Setup, to: Square, role: Role, out: &mut Vec<Candidate>) {
        let fwd = self.forward();
        for df in [-1, 0, 1] {
            let Some(from) = at(to, df, -fwd).filter(|&s| pos.piece_at(s).is_none()) else {
                continue;
            };
            self.push(
                out,
                from,
                to,
                Role::Pawn,
                Move::promotion(from, to, role),
                if df == 0 {
                    Uncapture::Never
                } else {
                    Uncapture::Always
                },
            );
        }
    }
}

/// Un-castling (FIDE 3.8.2): the king of the side that moved on the g- or c-file of its back rank, its rook on
/// the f- or d-file beside it.
fn uncastle(pos: &Setup, king: Square, chess960: bool, out: &mut Vec<Candidate>) {
    let x = !pos.turn;
    let rank = x.back_rank();
    if king.rank() != rank {
        return;
    }
    let side = match king.file() {
        6 => CastlingSide::KingSide,
        2 => CastlingSide::QueenSide,
        _ => return,
    };
    let rook_now = Square::new(rank * 8 + if side == CastlingSide::KingSide { 5 } else { 3 });
    if pos.piece_at(rook_now) != Some(Piece::new(x, Role::Rook)) {
        return;
    }
    let pairs: Vec<(u8, u8)> = if chess960 {
        let mut v = Vec::new();
        for kf in 1..=6u8 {
            match side {
                CastlingSide::KingSide => v.extend((kf + 1..=7).map(|rf| (kf, rf))),
                CastlingSide::QueenSide => v.extend((0..kf).map(|rf| (kf, rf))),
            }
        }
        v
    } else {
        match side {
            CastlingSide::KingSide => vec![(4, 7)],
            CastlingSide::QueenSide => vec![(4, 0)],
        }
    };
    for (kf, rf) in pairs {
        let (ksq, rsq) = (Square::new(rank * 8 + kf), Square::new(rank * 8 + rf));
        let mut b = pos.clone();
        b.turn = x;
        b.ep_square = None;
        b.board[king.index()] = None;
        b.board[rook_now.index()] = None;
        if b.piece_at(ksq).is_some() || b.piece_at(rsq).is_some() {
            continue;
        }
        b.board[ksq.index()] = Some(Piece::new(x, Role::King));
        b.board[rsq.index()] = Some(Piece::new(x, Role::Rook));
        b.castling.set(x, side, Some(rsq));
        let mv = Move::castling(ksq, rsq);
        // Castling has conditions of its own (empty and unattacked squares): ask the reference generator.
        if reference::legal_moves(&b).contains(&mv) {
            out.push(Candidate { before: b, mv });
        }
    }
}

/// Whether playing the candidate's move gives back `pos`. `ep_known`: `pos`'s "no e.p. square" is a fact
/// (from a FEN: no e.p. capture may then be possible); otherwise it stands for "unknown".
fn replays_to(c: &Candidate, pos: &Setup, ep_known: bool) -> bool {
    let after = reference::play(&c.before, c.mv);
    if after.board != pos.board || after.turn != pos.turn || after.castling != pos.castling {
        return false;
    }
    match (pos.ep_square, after.ep_square) {
        (Some(a), b) => b == Some(a),
        (None, None) => true,
        (None, Some(_)) => {
            !ep_known
                || !reference::legal_moves(&after)
                    .iter()
                    .any(|m| m.kind() == MoveKind::EnPassant)
        }
    }
}

/// The predecessor is possible as far as a quick look tells: the side that did not move is not in check
/// (FIDE 3.9.2), and no static proof applies.
fn plausible(before: &Setup) -> bool {
    let y = !before.turn;
    let Some(&king) = before.kings(y).first() else {
        return false;
    };
    reference::attackers(before, king, before.turn).is_empty()
        && proofs::static_proofs(before).is_empty()
}

/// Whether `pos` has a legal history of `depth` plies back (or reaches an initial position sooner).
fn has_history(pos: &Setup, ep_known: bool, depth: u32, chess960: bool) -> bool {
    if is_initial(pos, chess960) || depth == 0 {
        return true;
    }
    candidates(pos, chess960).iter().any(|c| {
        plausible(&c.before)
            && replays_to(c, pos, ep_known)
            && has_history(&c.before, c.before.ep_square.is_some(), depth - 1, chess960)
    })
}

/// A proof that `pos` has no legal history of `opts.plies` plies (or none reaching an initial position sooner),
/// or `None`. `pos` is taken as a FEN states it: no e.p. square means no e.p. capture is possible.
pub fn retract(pos: &Setup, opts: RetroOptions) -> Option<Proof> {
    if opts.plies == 0 || is_initial(pos, opts.chess960) {
        return None;
    }
    let x = !pos.turn;
    let xn = if x == Color::White { "White" } else { "Black" };
    let yn = if x == Color::White { "Black" } else { "White" };
    let cands = candidates(pos, opts.chess960);
    // Fast path (the usual case): the first predecessor with a history ends the search.
    if cands.iter().any(|c| {
        plausible(&c.before)
            && replays_to(c, pos, true)
            && has_history(
                &c.before,
                c.before.ep_square.is_some(),
                opts.plies - 1,
                opts.chess960,
            )
    }) {
        return None;
    }
    let first: Vec<&Candidate> = cands
        .iter()
        .filter(|c| plausible(&c.before) && replays_to(c, pos, true))
        .collect();
    if !first.is_empty() {
        let list: Vec<String> = first.iter().take(8).map(|c| describe(c)).collect();
        let more = if first.len() > 8 { ", …" } else { "" };
        return Some(Proof {
            kind: ProofKind::Retraction,
            sentence: format!(
                "{xn}'s possible last moves ({}{more}) each lead back to a position with no legal history of {} \
                 more plies (retraction of every un-move, un-capture, un-promotion, un-castling and un-e.p., FIDE \
                 3.10.3)",
                list.join(", "),
                opts.plies - 1
            ),
        });
    }
    let sentence = if let Some(ep) = pos.ep_square {
        format!(
            "the e.p. square {ep} says {xn}'s last move was the pawn's double step across it (FIDE 3.7.2), but \
             that move cannot have been played: in the position before it {yn}'s king would be in check or the \
             position impossible"
        )
    } else {
        let king = pos.kings(pos.turn)[0];
        let checkers = reference::attackers(pos, king, x);
        let checks = if checkers.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = checkers.iter().map(|s| s.to_string()).collect();
            format!(" ({yn} is in check from {})", list.join(", "))
        };
        format!(
            "{xn} has no legal last move{checks}: every un-move, un-capture, un-promotion, un-castling and un-e.p. \
             of {xn}'s units leaves {yn}'s king in check with {xn} to move (FIDE 3.9.2), gives back a different \
             position, or a position the counting arguments prove impossible"
        )
    };
    Some(Proof {
        kind: ProofKind::Retraction,
        sentence,
    })
}

/// A retracted move in words: UCI, with the un-captured unit.
fn describe(c: &Candidate) -> String {
    let captured = match c.mv.kind() {
        MoveKind::Castling => None,
        MoveKind::EnPassant => Some('p'),
        _ => c.before.piece_at(c.mv.to()).map(|p| p.role.char()),
    };
    match captured {
        Some(r) => format!("{}x{}", c.mv.to_uci(true), r),
        None => c.mv.to_uci(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retract_fen(fen: &str, plies: u32) -> Option<Proof> {
        retract(
            &Setup::from_fen(fen).unwrap(),
            RetroOptions {
                plies,
                chess960: false,
            },
        )
    }

    #[test]
    fn start_and_early_positions_have_a_history() {
        assert!(retract_fen(Setup::STARTPOS_FEN, 3).is_none());
        assert!(retract_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            3
        )
        .is_none());
        assert!(retract_fen(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            3
        )
        .is_none());
    }

    #[test]
    fn check_no_move_can_have_given() {
        // White is in check from the rook on e8; the rook cannot have come along the 8th rank (White knights on
        // d8 and f8) and along the e-file it would have given check already; Black's king cannot have uncovered
        // anything. No legal last move.
        let p = retract_fen("k2NrN2/8/8/8/8/8/8/4K3 w - - 0 1", 1).expect("impossible");
        assert_eq!(p.kind, ProofKind::Retraction);
        // The twin: with f8 empty the rook came from f8, g8 or h8.
        assert!(retract_fen("k2Nr3/8/8/8/8/8/8/4K3 w - - 0 1", 2).is_none());
    }
}
