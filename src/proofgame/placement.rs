//! Concrete squares for the captures of a proof kernel ([`kernel_search`]): the intermediate positions of the
//! initial path ([`super::initial_path`]). Each capture of the kernel is made on the board of the start, the
//! pawns moved forward on their files (FIDE 3.7.1: a pawn only moves forward, and changes file only by
//! capturing, 3.7.3), the pieces left at home (a piece that takes walks out and back in the first leg):
//!
//! - **pawn takes pawn** (`wPa0xPb1`): the victim advances on its file to the capture rank, the capturer to the
//!   square diagonally behind, and takes; eight options: four ranks ([`ranks_for`]) and the same with the two
//!   files swapped (both pawns on their initial squares: the same side's pawn of the other file takes);
//! - **piece takes pawn** (`wxPa0`): the pawn is removed from the board where it stands (the piece goes out
//!   and back in the first leg); one option;
//! - **pawn takes piece** (`wPa0xpieceb2`), only in a chain ([`Placing::chain`], session 58): the capturer
//!   advances and takes on the other file at one of five ranks ([`piece_ranks`]), the enemy pawns of that
//!   file moved past the capture square where the kernel's order of the file needs it; the victim is an
//!   initial piece of the other side whose role (a bishop: of the capture square's colour, FIDE 3.2) the
//!   board holds more of than the target ([`Placing::victim`]), removed from home. Each such capture ends a
//!   stage ([`Placing::stages`]): the first leg goes through one intermediate position per capture, so each
//!   leg walks one victim to its capture square (session 53 placed them all in one position and its first
//!   leg was never found);
//! - a piece takes a piece, and a pawn takes a piece outside a chain: left to the second leg (the files they
//!   touch are not placed further).
//!
//! A capture that does not fit the board (a pawn in the way, a pawn that would have to move backwards) has
//! no option; nothing here is a proof, the legs' searches and the replay by the reference generator decide.

use crate::position::Setup;
use crate::retro::kernel_search::state::KernelMove;
use crate::types::{Color, Piece, Role, Square};

/// The start with some of the kernel's captures made: the board, the pawn moves of each side, the files no
/// longer placed (a capture there was left to the second leg) and the options chosen (the ranking's tie-break).
#[derive(Clone, Debug)]
pub(super) struct Placing {
    pub(super) setup: Setup,
    plies: u32,
    touched: [bool; 8],
    pub(super) key: Vec<u8>,
    /// Captures placed.
    pub(super) placed: u32,
    /// Per colour (White first), the pawn moves placed, in order: (from, to). With `direct`, the first leg is
    /// these moves and a knight's tempo moves ([`super::initial_path`]).
    pub(super) steps: [Vec<(Square, Square)>; 2],
    /// Whether only pawns moved (no piece's capture placed): the first leg can be built from `steps`.
    pub(super) direct: bool,
    /// With a chain: the target, whose surplus of pieces names the victims ([`Placing::victim`]).
    target: Option<Box<Setup>>,
    /// The intermediate position after each pawn-takes-piece capture placed, in order.
    pub(super) stages: Vec<Setup>,
}

/// The capture ranks of pawn takes piece (0-based, from White's side), in order of trial.
fn piece_ranks(by: Color) -> [u8; 5] {
    match by {
        Color::White => [5, 4, 3, 6, 2],
        Color::Black => [2, 3, 4, 1, 5],
    }
}

/// The capture ranks of pawn takes pawn (0-based, from White's side), in order: a Black pawn takes on the
/// fourth rank first (the White victim's double step), a White one on the fifth.
fn ranks_for(by: Color) -> [u8; 4] {
    match by {
        Color::White => [4, 3, 5, 2],
        Color::Black => [3, 4, 2, 5],
    }
}

/// A pawn's initial rank (FIDE 2.3).
fn pawn_rank(c: Color) -> u8 {
    match c {
        Color::White => 1,
        Color::Black => 6,
    }
}

fn sq(file: u8, rank: u8) -> Square {
    Square::from_coords(i32::from(file), i32::from(rank)).expect("on the board")
}

/// The options of `m` (see the module docs); 0 when it is left to the second leg. `chain`: pawn takes piece
/// placed ([`Placing::chain`]).
pub(super) fn options(m: &KernelMove, chain: bool) -> usize {
    match *m {
        KernelMove::PawnTakesPawn { .. } => 8,
        KernelMove::PieceTakesPawn { .. } => 1,
        KernelMove::PawnTakesPiece {
            to_at: Some(_),
            promoted_on: None,
            ..
        } if chain => 5,
        _ => 0,
    }
}

impl Placing {
    /// The start, nothing placed.
    pub(super) fn new(start: &Setup) -> Placing {
        Placing {
            setup: start.clone(),
            plies: 0,
            touched: [false; 8],
            key: Vec::new(),
            placed: 0,
            steps: [Vec::new(), Vec::new()],
            direct: true,
            target: None,
            stages: Vec::new(),
        }
    }

    /// The start, nothing placed, pawn-takes-piece captures placed as a chain of stages towards `target`.
    pub(super) fn chain(start: &Setup, target: &Setup) -> Placing {
        let mut p = Placing::new(start);
        p.target = Some(Box::new(target.clone()));
        p
    }

    /// Pieces of `c` and `role` on `board` (a bishop: on squares of `dark`'s colour only).
    fn count(board: &Setup, c: Color, role: Role, dark: bool) -> i32 {
        Square::all()
            .filter(|&s| {
                board.piece_at(s) == Some(Piece::new(c, role))
                    && (role != Role::Bishop || is_dark(s) == dark)
            })
            .count() as i32
    }

    /// The victim of a pawn's capture on `at`: a piece of `c` (not the king) whose role, a bishop of `at`'s
    /// colour, the board holds more of than the target (the most surplus first, then the nearest to `at`).
    fn victim(&self, c: Color, at: Square) -> Option<Square> {
        let target = self.target.as_deref()?;
        let dist = |s: Square| {
            s.file()
                .abs_diff(at.file())
                .max(s.rank().abs_diff(at.rank()))
        };
        Square::all()
            .filter_map(|s| {
                let q = self.setup.piece_at(s)?;
                let ok = q.color == c
                    && matches!(
                        q.role,
                        Role::Knight | Role::Bishop | Role::Rook | Role::Queen
                    )
                    && (q.role != Role::Bishop || is_dark(s) == is_dark(at));
                let dark = is_dark(s);
                let surplus = Self::count(&self.setup, c, q.role, dark)
                    - Self::count(target, c, q.role, dark);
                (ok && surplus > 0).then_some((std::cmp::Reverse(surplus), dist(s), s))
            })
            .min()
            .map(|(_, _, s)| s)
    }

    /// The enemy pawns of `file` on or beyond `r` moved past it (downwards for White's, upwards for Black's) until `to_at`
    /// pawns stand below `r`, the nearest first; `None` when that cannot be done.
    fn make_way(&mut self, by: Color, file: u8, r: u8, to_at: u8) -> Option<()> {
        let below = |p: &Placing| p.column(file).iter().filter(|(q, _)| *q < r).count();
        while below(self) != usize::from(to_at) {
            let col = self.column(file);
            let (q, color) = match by {
                Color::White if below(self) < usize::from(to_at) => {
                    col.into_iter().find(|&(q, _)| q >= r)?
                }
                Color::Black if below(self) > usize::from(to_at) => {
                    col.into_iter().rev().find(|&(q, _)| q <= r)?
                }
                _ => return None,
            };
            if color == by {
                return None;
            }
            // To the first empty square past r on its way.
            let mut dest = r;
            loop {
                dest = match by {
                    Color::White => dest.checked_sub(1)?,
                    Color::Black => (dest < 7).then_some(dest + 1)?,
                };
                if self.setup.piece_at(sq(file, dest)).is_none() {
                    break;
                }
            }
            self.advance(file, q, dest)?;
        }
        Some(())
    }

    /// The intermediate position: the side to move set by the parity of the pawn moves (each side's pieces
    /// home again after an even number of moves each: White is to move when the pawn moves are even).
    pub(super) fn position(&self) -> Setup {
        let mut s = self.setup.clone();
        s.turn = if self.plies.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        s.ep_square = None;
        s
    }

    /// `m` left to the second leg: the files it touches are not placed further.
    pub(super) fn skip(&self, m: &KernelMove) -> Placing {
        let mut p = self.clone();
        for f in files(m) {
            p.touched[usize::from(f)] = true;
        }
        p
    }

    /// The pawns of `file` from White's side: (rank, colour).
    fn column(&self, file: u8) -> Vec<(u8, Color)> {
        (0..8)
            .filter_map(|r| match self.setup.piece_at(sq(file, r)) {
                Some(Piece {
                    role: Role::Pawn,
                    color,
                }) => Some((r, color)),
                _ => None,
            })
            .collect()
    }

    /// Move the pawn of `file` on `from` to `to` (forward for its colour, every square up to `to` empty).
    fn advance(&mut self, file: u8, from: u8, to: u8) -> Option<()> {
        if from == to {
            return Some(());
        }
        let p = self.setup.piece_at(sq(file, from))?;
        let up = to > from;
        if up != (p.color == Color::White) || !(1..=6).contains(&to) {
            return None;
        }
        let (lo, hi) = if up { (from + 1, to) } else { (to, from - 1) };
        if (lo..=hi).any(|r| self.setup.piece_at(sq(file, r)).is_some()) {
            return None;
        }
        let d = u32::from(from.abs_diff(to));
        let double = from == pawn_rank(p.color) && d >= 2;
        self.plies += if double { d - 1 } else { d };
        // The moves: a double step first where it fits (FIDE 3.7.2), then single steps.
        let mut r = from;
        while r != to {
            let n = match (up, double && r == from) {
                (true, true) => r + 2,
                (false, true) => r - 2,
                (true, false) => r + 1,
                (false, false) => r - 1,
            };
            self.steps[p.color.index()].push((sq(file, r), sq(file, n)));
            r = n;
        }
        self.setup.board[sq(file, from).index()] = None;
        self.setup.board[sq(file, to).index()] = Some(p);
        Some(())
    }

    /// The pawn of `c` at place `at` of `file`: its rank.
    fn pawn(&self, file: u8, at: u8, c: Color) -> Option<u8> {
        let col = self.column(file);
        let &(r, color) = col.get(usize::from(at))?;
        (color == c).then_some(r)
    }

    /// The capturer on `(f, rank)` advances to the square behind `(g, r)` and takes there.
    fn take(&mut self, c: Color, f: u8, rank: u8, g: u8, r: u8) -> Option<()> {
        let behind = match c {
            Color::White => r.checked_sub(1)?,
            Color::Black => r + 1,
        };
        self.advance(f, rank, behind)?;
        self.steps[c.index()].push((sq(f, behind), sq(g, r)));
        self.setup.board[sq(f, behind).index()] = None;
        self.setup.board[sq(g, r).index()] = Some(Piece::new(c, Role::Pawn));
        self.plies += 1;
        Some(())
    }

    /// Option `o` of `m` placed, or `None` when it does not fit (see the module docs).
    pub(super) fn place(&self, m: &KernelMove, o: usize) -> Option<Placing> {
        if files(m).any(|f| self.touched[usize::from(f)]) {
            return None;
        }
        let mut p = self.clone();
        match *m {
            KernelMove::PawnTakesPawn {
                by,
                from,
                at,
                to,
                to_at,
            } => {
                let (from, to) = if o >= 4 {
                    // The files swapped: only between two pawns on their initial squares.
                    let home = |f: u8| self.column(f) == [(1, Color::White), (6, Color::Black)];
                    if !home(from) || !home(to) {
                        return None;
                    }
                    (to, from)
                } else {
                    (from, to)
                };
                let r = ranks_for(by)[o % 4];
                let own = p.pawn(from, at, by)?;
                let victim = p.pawn(to, to_at, !by)?;
                p.advance(to, victim, r)?;
                p.take(by, from, own, to, r)?;
            }
            KernelMove::PieceTakesPawn { by, file, at } => {
                let r = p.pawn(file, at, !by)?;
                p.setup.board[sq(file, r).index()] = None;
                p.direct = false;
            }
            KernelMove::PawnTakesPiece {
                by,
                from,
                at,
                to,
                to_at: Some(to_at),
                promoted_on: None,
            } if p.target.is_some() => {
                let r = *piece_ranks(by).get(o)?;
                let own = p.pawn(from, at, by)?;
                p.make_way(by, to, r, to_at)?;
                let land = sq(to, r);
                if p.setup.piece_at(land).is_some() {
                    return None;
                }
                let v = p.victim(!by, land)?;
                p.setup.board[v.index()] = None;
                p.setup.castling.clear_square(v);
                p.take(by, from, own, to, r)?;
                p.direct = false;
                p.stages.push(p.position());
            }
            _ => return None,
        }
        p.key.push(o as u8);
        p.placed += 1;
        Some(p)
    }
}

/// Whether `s` is a dark square (a1 is dark).
fn is_dark(s: Square) -> bool {
    (s.file() + s.rank()).is_multiple_of(2)
}

/// The files a kernel move changes.
fn files(m: &KernelMove) -> impl Iterator<Item = u8> {
    let (a, b, c) = match *m {
        KernelMove::PawnTakesPawn { from, to, .. } => (Some(from), Some(to), None),
        KernelMove::PawnTakesPiece {
            from,
            to,
            promoted_on,
            ..
        } => (Some(from), Some(to), promoted_on),
        KernelMove::PieceTakesPawn { file, .. } => (Some(file), None, None),
        KernelMove::PieceTakesPiece { promoted_on, .. } => (promoted_on, None, None),
    };
    [a, b, c].into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_way_is_made_past_the_last_rank() {
        // Black takes on a6 with no pawn of the a-file below it: White's a2-pawn would have to pass a6, but a7
        // and a8 are taken, so there is no way (None), not a square off the board.
        let start = Setup::startpos();
        let mut p = Placing::chain(&start, &start);
        assert_eq!(p.make_way(Color::Black, 0, 5, 0), None);
        // With a7 free, the pawn stops there.
        p.setup.board[sq(0, 6).index()] = None;
        assert_eq!(p.make_way(Color::Black, 0, 5, 0), Some(()));
        assert_eq!(
            p.setup.piece_at(sq(0, 6)),
            Some(Piece::new(Color::White, Role::Pawn))
        );
    }

    #[test]
    fn places_a_black_pawn_capture_on_the_fourth_rank() {
        let m = KernelMove::PawnTakesPawn {
            by: Color::Black,
            from: 0,
            at: 1,
            to: 1,
            to_at: 0,
        };
        let t1 = Placing::new(&Setup::startpos())
            .place(&m, 0)
            .expect("pawns at home")
            .position();
        // b2-b4, a7-a5, a5xb4: one White pawn move, two Black ones; White's knight out and back makes it
        // Black's turn (White one move ahead).
        let want = Setup::from_fen("rnbqkbnr/1ppppppp/8/8/1p6/8/P1PPPPPP/RNBQKBNR b KQkq - 0 1")
            .expect("valid");
        assert_eq!(t1.board, want.board);
        assert_eq!(t1.turn, Color::Black);
    }

    #[test]
    fn a_piece_takes_a_pawn_at_home() {
        let m = KernelMove::PieceTakesPawn {
            by: Color::White,
            file: 2,
            at: 1,
        };
        let t1 = Placing::new(&Setup::startpos())
            .place(&m, 0)
            .expect("fits")
            .position();
        let want = Setup::from_fen("rnbqkbnr/pp1ppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            .expect("valid");
        assert_eq!(t1.board, want.board);
        // A White piece cannot take a White pawn.
        let m = KernelMove::PieceTakesPawn {
            by: Color::White,
            file: 2,
            at: 0,
        };
        assert!(Placing::new(&Setup::startpos()).place(&m, 0).is_none());
    }
}
