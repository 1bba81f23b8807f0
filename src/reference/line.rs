//! A line of moves replayed by the reference generator, one legality test per move and no scan of the board
//! for the kings: the check of every helpmate the dead-position analysis prints ([`crate::analyze::dead`]).
//!
//! Each move is tested by the same rules as [`Mailbox::play_legal_in_place`]: the moving piece's own moves
//! (FIDE 3.1–3.8, [`Mailbox::has_piece_move`]), then the king-safety test of 3.9.2. Two facts of a line that
//! starts in a legal position make that test cheap:
//! - **The side not to move is never in check** (3.9.2: the move that led here did not leave its king
//!   attacked). So after a move, the side to move is in check exactly when the move made an attack on its king:
//!   by the piece on the square the move reached (it attacks the king from there), or along the line from the
//!   king through a square the move emptied (its from-square: a line uncovered). En passant and castling, which
//!   move or remove a second piece, get the whole test ([`Mailbox::attacked`]).
//! - **A move of a piece other than the king, out of no check, can only expose its king along the line through
//!   the square it leaves** (3.9.2): every other line to the king is as it was, and none attacked it. A king's
//!   move, a move out of check, en passant and castling get the whole test.
//!
//! The kings' squares are kept, not searched for. Where the start is not such a position (a side with no king
//! or more than one, the side not to move in check), every move gets [`Mailbox::play_legal_in_place`]'s whole
//! test. The tests check both against the reference generator's legal moves on every move of pseudo-random
//! games, with en passant, castling (Chess960 too) and promotions, and after every move the kept check state.

use super::{code, mailbox, Mailbox, KING_STEPS, KNIGHT_STEPS};
use crate::position::Setup;
use crate::types::{Color, Move, MoveKind, Piece, Role};

/// A position a line is replayed from, with its kings' squares and whether the side to move is in check.
#[derive(Clone, Debug)]
pub struct Line {
    pos: Mailbox,
    /// Mailbox index of each side's king (by [`Color`] index); `None` when the start had no king of that
    /// side or more than one: then every move gets the whole test.
    kings: Option<[usize; 2]>,
    /// The side to move is in check (FIDE 3.9.1).
    in_check: bool,
    /// Scratch for a pawn's or king's pseudo-legal moves.
    buf: Vec<Move>,
}

impl Line {
    /// The start of a line: `setup` (any setup; the short test applies only where it is legal as above).
    pub fn new(setup: &Setup) -> Line {
        let pos = Mailbox::from_setup(setup);
        let kings_of = |c: Color| {
            let k = code(Piece::new(c, Role::King));
            let mut found = (21..99).filter(|&i| pos.board[i] == k);
            match (found.next(), found.next()) {
                (Some(i), None) => Some(i),
                _ => None,
            }
        };
        let kings = match (kings_of(Color::White), kings_of(Color::Black)) {
            (Some(w), Some(b)) if !pos.attacked([w, b][(!pos.turn).index()], pos.turn) => {
                Some([w, b])
            }
            _ => None,
        };
        let in_check = pos.in_check();
        Line {
            pos,
            kings,
            in_check,
            buf: Vec::with_capacity(32),
        }
    }

    /// The position now.
    pub fn position(&self) -> &Mailbox {
        &self.pos
    }

    /// Whether the side to move is in check (FIDE 3.9.1).
    pub fn in_check(&self) -> bool {
        self.in_check
    }

    /// Whether the side to move is checkmated (FIDE 5.1.1: in check, with no legal move), by
    /// [`Line::check_answers`].
    pub fn is_checkmate(&mut self) -> bool {
        self.in_check && self.check_answers().is_empty()
    }

    /// The legal moves of the side to move, which is in check (FIDE 3.9, 3.10.1). Where the kings are kept,
    /// only the pseudo-legal moves that can answer the check take the king-safety test: the king's own moves,
    /// en passant, and a move of another piece onto the square of every piece giving check or between it and
    /// the king. Any other move leaves every check (3.9.2): it takes no checking piece, and no square between a
    /// checking piece and the king gets a piece (a knight, pawn or king has none: it attacks by its step alone,
    /// 3.6–3.8). Elsewhere every pseudo-legal move takes the test.
    pub fn check_answers(&mut self) -> Vec<Move> {
        let us = self.pos.turn;
        let king = self.kings.map(|k| k[us.index()]);
        let checkers = king.map(|k| self.pos.attackers_mb(k, !us));
        let mut legal = Vec::new();
        for m in self.pos.pseudo_legal() {
            let to = mailbox(m.to());
            let answers = match (king, &checkers) {
                (Some(k), Some(by)) => {
                    mailbox(m.from()) == k
                        || m.kind() == MoveKind::EnPassant
                        || by.iter().all(|&c| c == to || between(k, c, to))
                }
                _ => true,
            };
            if answers && self.pos.keeps_king_safe_here(m) {
                legal.push(m);
            }
        }
        legal
    }

    /// Play `m` when it is legal here (FIDE 3.1–3.9) and return `true`; else `false`, the position unchanged.
    pub fn play(&mut self, m: Move) -> bool {
        let Some(mut kings) = self.kings else {
            let legal = self.pos.play_legal_in_place(m, &mut self.buf);
            self.in_check = self.pos.in_check();
            return legal;
        };
        let from = mailbox(m.from());
        let us = self.pos.turn;
        let Some(p) = self.pos.piece(from) else {
            return false;
        };
        if p.color != us || !self.pos.has_piece_move(from, p.role, m, &mut self.buf) {
            return false;
        }
        if !self.keeps_king_safe(m, p.role, kings[us.index()]) {
            return false;
        }
        self.pos.make(m);
        if p.role == Role::King {
            kings[us.index()] = match m.kind() {
                MoveKind::Castling => mailbox(m.castling_king_target()),
                _ => mailbox(m.to()),
            };
        }
        self.kings = Some(kings);
        self.in_check = self.gives_check(m, from, kings[(!us).index()]);
        true
    }

    /// FIDE 3.9.2 for the pseudo-legal `m` of a `role` from the side to move, whose king stands on `king`: the
    /// king is not attacked after it (see the module's header for when one line suffices).
    fn keeps_king_safe(&mut self, m: Move, role: Role, king: usize) -> bool {
        if m.kind() == MoveKind::Castling {
            return self.pos.keeps_king_safe_here(m);
        }
        let whole = self.in_check || m.kind() != MoveKind::Normal;
        let (from, to, them) = (mailbox(m.from()), mailbox(m.to()), !self.pos.turn);
        self.pos.with_move_on_board(m, |p| match role {
            Role::King => !p.attacked(to, them),
            _ if whole => !p.attacked(king, them),
            _ => !p.slider_on_line(king, from, them),
        })
    }

    /// Whether `m` (just made; its piece left `from`) attacks the king of the side now to move, on `king`
    /// (FIDE 3.1.2, 3.9.1): see the module's header.
    fn gives_check(&self, m: Move, from: usize, king: usize) -> bool {
        let pos = &self.pos;
        let by = !pos.turn;
        if matches!(m.kind(), MoveKind::Castling | MoveKind::EnPassant) {
            return pos.attacked(king, by);
        }
        let to = mailbox(m.to());
        let step = king as i32 - to as i32;
        let reaches = match pos.piece(to).map(|p| p.role) {
            // FIDE 3.7.3: a pawn attacks the two squares diagonally in front of it.
            Some(Role::Pawn) => {
                let ahead = if by == Color::White { 10 } else { -10 };
                step == ahead - 1 || step == ahead + 1
            }
            Some(Role::Knight) => KNIGHT_STEPS.contains(&step),
            Some(Role::King) => KING_STEPS.contains(&step),
            // A slider: the line from the king toward it (the first piece on it is this one or a blocker).
            _ => pos.slider_on_line(king, to, by),
        };
        reaches || pos.slider_on_line(king, from, by)
    }
}

impl Mailbox {
    /// Whether the first piece on the line from `king` through `through` (a rank, file or diagonal, when the
    /// two squares share one) is `by`'s queen, or its rook on a rank or file, or its bishop on a diagonal
    /// (FIDE 3.2–3.4: a line attack on `king` along that line).
    fn slider_on_line(&self, king: usize, through: usize, by: Color) -> bool {
        let Some(dir) = line_step(king, through) else {
            return false;
        };
        let mut s = king as i32 + dir;
        while self.board[s as usize] == 0 {
            s += dir;
        }
        let c = self.board[s as usize];
        let line = if dir.abs() == 1 || dir.abs() == 10 {
            Role::Rook
        } else {
            Role::Bishop
        };
        c == code(Piece::new(by, Role::Queen)) || c == code(Piece::new(by, line))
    }
}

/// Whether `sq` lies strictly between `a` and `b` on a rank, file or diagonal (mailbox indices).
fn between(a: usize, b: usize, sq: usize) -> bool {
    let Some(dir) = line_step(a, b) else {
        return false;
    };
    let mut s = a as i32 + dir;
    while s != b as i32 {
        if s == sq as i32 {
            return true;
        }
        s += dir;
    }
    false
}

/// The mailbox step from `from` toward `to` along the rank, file or diagonal they share; `None` where they
/// share none (or are the same square).
fn line_step(from: usize, to: usize) -> Option<i32> {
    let (df, dr) = (
        (to % 10) as i32 - (from % 10) as i32,
        (to / 10) as i32 - (from / 10) as i32,
    );
    if (df, dr) == (0, 0) || (df != 0 && dr != 0 && df.abs() != dr.abs()) {
        return None;
    }
    Some(dr.signum() * 10 + df.signum())
}
