//! The reference move generator: the oracle every other generator is checked against.
//!
//! Deliberately simple and independent: a 10×12 mailbox board, pseudo-legal generation that follows FIDE
//! articles 3.1–3.8 line by line, then "make the move, reject it if one's own king is attacked" (FIDE 3.9.2).
//! It shares no attack tables, pin logic or bitboard tricks with the fast or GPU generators; only the
//! vocabulary types ([`crate::types`]) and [`Setup`]. Speed does not matter here; clarity does.
//!
//! Chess960 castling (and standard castling as its special case): king and rook end on the g/f or c/d files;
//! every square between the king and its destination and between the rook and its destination is empty except
//! for that king and rook; no square the king stands on, passes or reaches is attacked.

mod line;

pub use line::Line;

use crate::position::Setup;
use crate::types::{CastlingRights, CastlingSide, Color, Move, MoveKind, Piece, Role, Square};

/// Off-board marker in the mailbox.
const OFF: i8 = 99;

/// Mailbox steps (10×12 board: +1 east, +10 north).
const KNIGHT_STEPS: [i32; 8] = [-21, -19, -12, -8, 8, 12, 19, 21];
const BISHOP_DIRS: [i32; 4] = [-11, -9, 9, 11];
const ROOK_DIRS: [i32; 4] = [-10, -1, 1, 10];
const KING_STEPS: [i32; 8] = [-11, -10, -9, -1, 1, 9, 10, 11];

fn mailbox(sq: Square) -> usize {
    21 + sq.file() as usize + 10 * sq.rank() as usize
}

/// The square of each mailbox index on the board (64 and above: off the board), so that [`square_of`] is a
/// load, not a division (the replay of every helpmate converts each move it lists).
const SQUARE_OF: [u8; 120] = {
    let mut t = [u8::MAX; 120];
    let mut i = 0;
    while i < 64 {
        t[21 + i % 8 + 10 * (i / 8)] = i as u8;
        i += 1;
    }
    t
};

fn square_of(mb: usize) -> Square {
    Square::new(SQUARE_OF[mb])
}

fn code(p: Piece) -> i8 {
    let v = p.role as i8 + 1;
    if p.color == Color::White {
        v
    } else {
        -v
    }
}

fn decode(c: i8) -> Option<Piece> {
    if c == 0 || c == OFF {
        return None;
    }
    let role = Role::ALL[(c.unsigned_abs() - 1) as usize];
    Some(Piece::new(
        if c > 0 { Color::White } else { Color::Black },
        role,
    ))
}

/// A position on the 10×12 mailbox board (the reference generator's own board; plain data is
/// [`Setup`]). Build one with [`Mailbox::from_setup`].
#[derive(Clone, Debug)]
pub struct Mailbox {
    board: [i8; 120],
    turn: Color,
    castling: CastlingRights,
    ep: Option<Square>,
    halfmoves: u32,
    fullmoves: u32,
}

impl Mailbox {
    /// Build a mailbox position. No validity check is done here; see `crate::validate` (a layer above this one).
    pub fn from_setup(setup: &Setup) -> Mailbox {
        let mut board = [OFF; 120];
        for sq in Square::all() {
            board[mailbox(sq)] = setup.piece_at(sq).map_or(0, code);
        }
        Mailbox {
            board,
            turn: setup.turn,
            castling: setup.castling,
            ep: setup.ep_square,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves,
        }
    }

    /// Back to plain data.
    pub fn to_setup(&self) -> Setup {
        let mut s = Setup::empty();
        for sq in Square::all() {
            s.board[sq.index()] = decode(self.board[mailbox(sq)]);
        }
        s.turn = self.turn;
        s.castling = self.castling;
        s.ep_square = self.ep;
        s.halfmoves = self.halfmoves;
        s.fullmoves = self.fullmoves;
        s
    }

    /// Side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    fn piece(&self, mb: usize) -> Option<Piece> {
        decode(self.board[mb])
    }

    fn king(&self, color: Color) -> Option<usize> {
        let k = code(Piece::new(color, Role::King));
        // A slice search (no index check per square): the same first match as a walk from a1 (21) to h8 (98).
        self.board[21..99]
            .iter()
            .position(|&c| c == k)
            .map(|i| i + 21)
    }

    /// Squares of `by`'s pieces that attack `target` (FIDE 3.1.2, 3.1.3: a piece attacks a square even if it
    /// could not legally move there). Walks outward from the target, one piece kind at a time.
    fn attackers_mb(&self, target: usize, by: Color) -> Vec<usize> {
        let mut found = Vec::new();
        let own = |role: Role| code(Piece::new(by, role));
        // FIDE 3.6: knights jump.
        for step in KNIGHT_STEPS {
            let s = (target as i32 + step) as usize;
            if self.board[s] == own(Role::Knight) {
                found.push(s);
            }
        }
        // FIDE 3.8.1: the king attacks adjacent squares.
        for step in KING_STEPS {
            let s = (target as i32 + step) as usize;
            if self.board[s] == own(Role::King) {
                found.push(s);
            }
        }
        // FIDE 3.7.3: a pawn attacks diagonally forward, so an attacking pawn stands diagonally behind.
        let behind = if by == Color::White { -10 } else { 10 };
        for side in [-1, 1] {
            let s = (target as i32 + behind + side) as usize;
            if self.board[s] == own(Role::Pawn) {
                found.push(s);
            }
        }
        // FIDE 3.2–3.5: sliders along lines, not through other pieces.
        for (dirs, role) in [(BISHOP_DIRS, Role::Bishop), (ROOK_DIRS, Role::Rook)] {
            for dir in dirs {
                let mut s = (target as i32 + dir) as usize;
                while self.board[s] == 0 {
                    s = (s as i32 + dir) as usize;
                }
                if self.board[s] == own(role) || self.board[s] == own(Role::Queen) {
                    found.push(s);
                }
            }
        }
        found
    }

    /// Whether any of `by`'s pieces attacks `target`: the rules of [`Mailbox::attackers_mb`] (FIDE 3.1.2,
    /// 3.1.3), its own walk, stopping at the first attacker found and building no list (the king-safety test
    /// of 3.9.2 asks only yes or no). The nearest squares first: pawns, knights, the king, then the lines.
    fn attacked(&self, target: usize, by: Color) -> bool {
        let own = |role: Role| code(Piece::new(by, role));
        let at = |step: i32| self.board[(target as i32 + step) as usize];
        // FIDE 3.7.3: an attacking pawn stands diagonally behind the target, seen from its own side.
        let behind = if by == Color::White { -10 } else { 10 };
        let pawn = own(Role::Pawn);
        if at(behind - 1) == pawn || at(behind + 1) == pawn {
            return true;
        }
        // FIDE 3.6: knights jump.
        let knight = own(Role::Knight);
        if KNIGHT_STEPS.iter().any(|&step| at(step) == knight) {
            return true;
        }
        // FIDE 3.8.1: the king attacks adjacent squares.
        let king = own(Role::King);
        if KING_STEPS.iter().any(|&step| at(step) == king) {
            return true;
        }
        // FIDE 3.2–3.5: sliders along lines, not through other pieces.
        let queen = own(Role::Queen);
        [
            (BISHOP_DIRS, own(Role::Bishop)),
            (ROOK_DIRS, own(Role::Rook)),
        ]
        .iter()
        .any(|&(dirs, slider)| {
            dirs.iter().any(|&dir| {
                let mut s = target as i32 + dir;
                while self.board[s as usize] == 0 {
                    s += dir;
                }
                let c = self.board[s as usize];
                c == slider || c == queen
            })
        })
    }

    /// FIDE 3.9.1: whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.king(self.turn)
            .is_some_and(|k| self.attacked(k, !self.turn))
    }

    /// Squares of the pieces giving check to the side to move.
    pub fn checkers(&self) -> Vec<Square> {
        match self.king(self.turn) {
            Some(k) => self
                .attackers_mb(k, !self.turn)
                .into_iter()
                .map(square_of)
                .collect(),
            None => Vec::new(),
        }
    }

    /// Pseudo-legal moves: FIDE 3.1–3.8 without the king-safety rule 3.9.2.
    fn pseudo_legal(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(64);
        let us = self.turn;
        for from in 21..99 {
            let Some(p) = self.piece(from) else { continue };
            if p.color != us {
                continue;
            }
            self.piece_moves(from, p.role, &mut moves);
        }
        moves
    }

    /// Pseudo-legal moves of the side to move's `role` on `from` (FIDE 3.2–3.8).
    fn piece_moves(&self, from: usize, role: Role, moves: &mut Vec<Move>) {
        match role {
            Role::Pawn => self.pawn_moves(from, moves),
            Role::Knight => self.step_moves(from, &KNIGHT_STEPS, moves),
            Role::Bishop => self.slide_moves(from, &BISHOP_DIRS, moves),
            Role::Rook => self.slide_moves(from, &ROOK_DIRS, moves),
            Role::Queen => {
                self.slide_moves(from, &BISHOP_DIRS, moves);
                self.slide_moves(from, &ROOK_DIRS, moves);
            }
            Role::King => {
                self.step_moves(from, &KING_STEPS, moves);
                self.castling_moves(from, moves);
            }
        }
    }

    /// FIDE 3.1: a piece may move to an empty square or capture an opponent's piece, never its own.
    fn can_land(&self, to: usize) -> bool {
        match self.board[to] {
            OFF => false,
            0 => true,
            c => (c > 0) != (self.turn == Color::White),
        }
    }

    /// FIDE 3.6 (knight) and 3.8.1 (king): one step to a fixed set of squares.
    fn step_moves(&self, from: usize, steps: &[i32], out: &mut Vec<Move>) {
        for step in steps {
            let to = (from as i32 + step) as usize;
            if self.can_land(to) {
                out.push(Move::normal(square_of(from), square_of(to)));
            }
        }
    }

    /// FIDE 3.2–3.5: bishop, rook and queen move along lines and may not pass over other pieces.
    fn slide_moves(&self, from: usize, dirs: &[i32], out: &mut Vec<Move>) {
        for dir in dirs {
            let mut to = (from as i32 + dir) as usize;
            while self.can_land(to) {
                out.push(Move::normal(square_of(from), square_of(to)));
                if self.board[to] != 0 {
                    break;
                }
                to = (to as i32 + dir) as usize;
            }
        }
    }

    /// FIDE 3.7: pawn moves.
    fn pawn_moves(&self, from: usize, out: &mut Vec<Move>) {
        let (fwd, start_rank, last_rank) = match self.turn {
            Color::White => (10i32, 1u8, 7u8),
            Color::Black => (-10i32, 6u8, 0u8),
        };
        let from_sq = square_of(from);
        // FIDE 3.7.5.1: reaching the last rank, the pawn is exchanged for a queen, rook, bishop or knight.
        let push = |to: usize, out: &mut Vec<Move>| {
            let to_sq = square_of(to);
            if to_sq.rank() == last_rank {
                for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    out.push(Move::promotion(from_sq, to_sq, role));
                }
            } else {
                out.push(Move::normal(from_sq, to_sq));
            }
        };
        // FIDE 3.7.1: one square forward to an unoccupied square.
        let one = (from as i32 + fwd) as usize;
        if self.board[one] == 0 {
            push(one, out);
            // FIDE 3.7.2: on its first move, two squares forward if both are unoccupied.
            let two = (one as i32 + fwd) as usize;
            if from_sq.rank() == start_rank && self.board[two] == 0 {
                out.push(Move::normal(from_sq, square_of(two)));
            }
        }
        for side in [-1, 1] {
            let to = (from as i32 + fwd + side) as usize;
            let c = self.board[to];
            // FIDE 3.7.3: capture an opponent's piece diagonally in front.
            if c != 0 && c != OFF && (c > 0) != (self.turn == Color::White) {
                push(to, out);
            }
            // FIDE 3.7.4.1/3.7.4.2: en passant, only on the move right after the double step, which is what
            // the e.p. square records; the captured pawn stands beside the capturing one.
            if c == 0 && self.ep == Some(square_of(to)) {
                let victim = (to as i32 - fwd) as usize;
                if self.board[victim] == code(Piece::new(!self.turn, Role::Pawn)) {
                    out.push(Move::en_passant(from_sq, square_of(to)));
                }
            }
        }
    }

    /// FIDE 3.8.2: castling, with the rights of 3.8.2.1 and the temporary bars of 3.8.2.2 (Chess960 rules,
    /// of which standard castling is the special case).
    fn castling_moves(&self, king_mb: usize, out: &mut Vec<Move>) {
        let us = self.turn;
        let king = square_of(king_mb);
        if king.rank() != us.back_rank() {
            return;
        }
        for side in CastlingSide::ALL {
            // FIDE 3.8.2.1: the right must remain (neither king nor that rook has moved).
            let Some(rook) = self.castling.rook(us, side) else {
                continue;
            };
            if self.piece(mailbox(rook)) != Some(Piece::new(us, Role::Rook)) {
                continue;
            }
            let m = Move::castling(king, rook);
            let (king_to, rook_to) = (m.castling_king_target(), m.castling_rook_target());
            // FIDE 3.8.2.2.2: no piece between king and rook; in Chess960 terms, every square the king or the
            // rook passes or reaches is empty but for this king and this rook.
            let span = |a: Square, b: Square| {
                let (lo, hi) = (a.file().min(b.file()), a.file().max(b.file()));
                (lo..=hi).map(move |f| Square::new(a.rank() * 8 + f))
            };
            let blocked = span(king, king_to)
                .chain(span(rook, rook_to))
                .any(|sq| sq != king && sq != rook && self.board[mailbox(sq)] != 0);
            if blocked {
                continue;
            }
            // FIDE 3.8.2.2.1: the king's square, the squares it crosses and the one it reaches are not attacked.
            // The destination is checked after the move too (by the 3.9.2 filter), which also covers an attack
            // the castling rook itself was blocking.
            if span(king, king_to).any(|sq| self.attacked(mailbox(sq), !us)) {
                continue;
            }
            out.push(m);
        }
    }

    /// Play a pseudo-legal move and return the new position (copy-make: [`Mailbox::make`] on a copy).
    pub fn play(&self, m: Move) -> Mailbox {
        let mut next = self.clone();
        next.make(m);
        next
    }

    /// Play a pseudo-legal move on this position, in place. Every square and right the move changes is read
    /// before it is written.
    fn make(&mut self, m: Move) {
        let us = self.turn;
        let (from, to) = (mailbox(m.from()), mailbox(m.to()));
        let moving = self.board[from];
        let capture = self.board[to] != 0 && m.kind() != MoveKind::Castling;
        self.ep = None;
        match m.kind() {
            MoveKind::Castling => {
                let (kt, rt) = (
                    mailbox(m.castling_king_target()),
                    mailbox(m.castling_rook_target()),
                );
                let rook = self.board[to];
                self.board[from] = 0;
                self.board[to] = 0;
                self.board[kt] = moving;
                self.board[rt] = rook;
            }
            MoveKind::EnPassant => {
                let victim = if us == Color::White { to - 10 } else { to + 10 };
                self.board[victim] = 0;
                self.board[to] = moving;
                self.board[from] = 0;
            }
            MoveKind::Promotion => {
                let role = m.promotion_role().expect("promotion has a role");
                self.board[to] = code(Piece::new(us, role));
                self.board[from] = 0;
            }
            MoveKind::Normal => {
                self.board[to] = moving;
                self.board[from] = 0;
                // FIDE 3.7.2: after a double step, record the square passed over for 3.7.4.
                if moving.unsigned_abs() == Role::Pawn as u8 + 1 && from.abs_diff(to) == 20 {
                    self.ep = Some(square_of((from + to) / 2));
                }
            }
        }
        // FIDE 3.8.2.1: a king move loses both rights; a rook that moves or is captured loses its own.
        if moving.unsigned_abs() == Role::King as u8 + 1 {
            self.castling.clear_color(us);
        }
        self.castling.clear_square(m.from());
        self.castling.clear_square(m.to());
        let pawn_move = moving.unsigned_abs() == Role::Pawn as u8 + 1;
        self.halfmoves = if capture || pawn_move || m.kind() == MoveKind::EnPassant {
            0
        } else {
            self.halfmoves + 1
        };
        if us == Color::Black {
            self.fullmoves += 1;
        }
        self.turn = !us;
    }

    /// FIDE 3.9.2 / 3.10.1: the legal moves, those pseudo-legal moves that do not leave or put one's own king
    /// in check.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.pseudo_legal()
            .into_iter()
            .filter(|&m| self.keeps_king_safe(m))
            .collect()
    }

    /// FIDE 3.9.2: after the pseudo-legal move `m`, the mover's king is not attacked.
    fn keeps_king_safe(&self, m: Move) -> bool {
        let us = self.turn;
        let next = self.play(m);
        next.king(us).is_none_or(|k| !next.attacked(k, !us))
    }

    /// Whether `m` is one of [`Mailbox::legal_moves`], by the same rules but listing only the pseudo-legal
    /// moves of the piece on `m.from()` (FIDE 3.1–3.8), then the king-safety test of 3.9.2 for `m` alone: one
    /// move's check instead of the whole list (a replayed line needs no more).
    pub fn is_legal(&self, m: Move) -> bool {
        self.play_legal(m, &mut Vec::with_capacity(32)).is_some()
    }

    /// [`Mailbox::is_legal`] and [`Mailbox::play`] in one: the position after `m` when `m` is legal, else
    /// `None`. The same rules and the same single copy-make (the king-safety test of 3.9.2 looks at the
    /// position the move makes, which is then returned); `buf` is scratch for the piece's pseudo-legal moves,
    /// reused by a caller that replays a whole line (no allocation per ply).
    pub fn play_legal(&self, m: Move, buf: &mut Vec<Move>) -> Option<Mailbox> {
        let from = mailbox(m.from());
        let p = self.piece(from)?;
        if p.color != self.turn {
            return None;
        }
        if !self.has_piece_move(from, p.role, m, buf) {
            return None;
        }
        let us = self.turn;
        let next = self.play(m);
        next.king(us)
            .is_none_or(|k| !next.attacked(k, !us))
            .then_some(next)
    }

    /// [`Mailbox::play_legal`] on this position, in place (no copy of the board per ply): plays `m` and
    /// returns `true` when `m` is legal, else returns `false` and leaves the position as it was. The same rules:
    /// the moving piece's moves (FIDE 3.1–3.8), then the king-safety test of 3.9.2
    /// ([`Mailbox::keeps_king_safe_here`]).
    pub fn play_legal_in_place(&mut self, m: Move, buf: &mut Vec<Move>) -> bool {
        let from = mailbox(m.from());
        let Some(p) = self.piece(from) else {
            return false;
        };
        if p.color != self.turn || !self.has_piece_move(from, p.role, m, buf) {
            return false;
        }
        let safe = self.keeps_king_safe_here(m);
        if safe {
            self.make(m);
        }
        safe
    }

    /// [`Mailbox::keeps_king_safe`] without a copy of the position (FIDE 3.9.2), the board left as it was
    /// ([`Mailbox::with_move_on_board`]); a castling, which moves two pieces, is tested on a copy.
    #[inline]
    fn keeps_king_safe_here(&mut self, m: Move) -> bool {
        let us = self.turn;
        if m.kind() == MoveKind::Castling {
            return self.keeps_king_safe(m);
        }
        self.with_move_on_board(m, |p| p.king(us).is_none_or(|k| !p.attacked(k, !us)))
    }

    /// `test` of the board as the move `m` (not a castling) leaves it, the board then put back: a test that
    /// reads only the board (as the king-safety test of FIDE 3.9.2 does) needs no copy of the position. The
    /// move's from, to and en passant victim squares are set as the move sets them but for a promotion's piece
    /// kind (any own piece on a square blocks a line alike).
    #[inline(always)]
    fn with_move_on_board<R>(&mut self, m: Move, test: impl FnOnce(&Mailbox) -> R) -> R {
        let (from, to) = (mailbox(m.from()), mailbox(m.to()));
        let victim = match (m.kind(), self.turn) {
            (MoveKind::EnPassant, Color::White) => to - 10,
            (MoveKind::EnPassant, Color::Black) => to + 10,
            _ => to,
        };
        let (moving, on_to, on_victim) = (self.board[from], self.board[to], self.board[victim]);
        self.board[victim] = 0;
        self.board[to] = moving;
        self.board[from] = 0;
        let result = test(self);
        self.board[from] = moving;
        self.board[to] = on_to;
        self.board[victim] = on_victim;
        result
    }

    /// Whether the side to move has a legal move, i.e. [`Mailbox::legal_moves`] is not empty (FIDE 3.9.2,
    /// 5.1.1, 5.2.1): the same pseudo-legal moves and the same king-safety test, on one board, stopping at the
    /// first legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut probe = self.clone();
        self.pseudo_legal()
            .into_iter()
            .any(|m| probe.keeps_king_safe_here(m))
    }

    /// Whether `m` is one of [`Mailbox::piece_moves`] of `role` on `from` (the side to move's piece; FIDE
    /// 3.2–3.8), without listing them where a move has one way to be there: a knight's or king's step is one of
    /// its steps onto a square it may land on (3.6, 3.8.1), a bishop's, rook's or queen's move a line of empty
    /// squares in one of its directions ending on one (3.2–3.5). A pawn's moves and a castling are listed into
    /// `buf` and looked up.
    fn has_piece_move(&self, from: usize, role: Role, m: Move, buf: &mut Vec<Move>) -> bool {
        let to = mailbox(m.to());
        let normal = m == Move::normal(m.from(), m.to());
        let step = to as i32 - from as i32;
        match role {
            Role::Knight => normal && KNIGHT_STEPS.contains(&step) && self.can_land(to),
            Role::King if m.kind() != MoveKind::Castling => {
                normal && KING_STEPS.contains(&step) && self.can_land(to)
            }
            Role::Bishop => normal && self.slides_to(from, to, &BISHOP_DIRS),
            Role::Rook => normal && self.slides_to(from, to, &ROOK_DIRS),
            Role::Queen => {
                normal
                    && (self.slides_to(from, to, &BISHOP_DIRS)
                        || self.slides_to(from, to, &ROOK_DIRS))
            }
            Role::Pawn | Role::King => {
                buf.clear();
                self.piece_moves(from, role, buf);
                buf.contains(&m)
            }
        }
    }

    /// Whether a slider on `from` moving in one of `dirs` reaches `to` over empty squares and may land there
    /// (FIDE 3.2–3.5; the walk stays between the two squares, and a line that leaves the board meets a border
    /// square first).
    fn slides_to(&self, from: usize, to: usize, dirs: &[i32]) -> bool {
        let diff = to as i32 - from as i32;
        dirs.iter().any(|&dir| {
            if diff % dir != 0 || diff / dir <= 0 {
                return false;
            }
            let mut s = from as i32 + dir;
            while s != to as i32 {
                if self.board[s as usize] != 0 {
                    return false;
                }
                s += dir;
            }
            self.can_land(to)
        })
    }

    /// Piece on a square.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.piece(mailbox(sq))
    }
}

/// Squares of `by`'s pieces that attack `target` in `setup` (used by validity checks).
pub fn attackers(setup: &Setup, target: Square, by: Color) -> Vec<Square> {
    Mailbox::from_setup(setup)
        .attackers_mb(mailbox(target), by)
        .into_iter()
        .map(square_of)
        .collect()
}

/// Legal moves of a plain [`Setup`].
pub fn legal_moves(setup: &Setup) -> Vec<Move> {
    Mailbox::from_setup(setup).legal_moves()
}

/// Play a move on a plain [`Setup`] (the move must be legal there).
pub fn play(setup: &Setup, m: Move) -> Setup {
    Mailbox::from_setup(setup).play(m).to_setup()
}

#[cfg(test)]
mod tests;
