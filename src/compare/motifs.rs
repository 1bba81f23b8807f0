//! The motifs of the directed stress kinds ([`super::kinds`]): for each kind, the few pieces that make its
//! rule matter (FIDE article in each doc comment), placed with random geometry for White to move, and the
//! board helpers they are built with (files and ranks 0–7; the position is mirrored afterwards). Each motif
//! returns `None` when its random geometry does not fit; [`super::kinds`] then tries again or falls back.

use crate::position::Setup;
use crate::random::{random_position, Rng};
use crate::reference::{self, Mailbox};
use crate::types::{CastlingSide, Color, Piece, Role, Square};
use crate::validate::Checked;

fn at(f: i32, r: i32) -> Option<Square> {
    Square::from_coords(f, r)
}

/// Put piece `c` (FEN letter) on (f, r) when the square exists and is empty and a pawn is not on a back rank.
fn put(s: &mut Setup, f: i32, r: i32, c: char) -> Option<Square> {
    let sq = at(f, r)?;
    let p = Piece::from_char(c)?;
    if s.board[sq.index()].is_some() || (p.role == Role::Pawn && (r == 0 || r == 7)) {
        return None;
    }
    s.board[sq.index()] = Some(p);
    Some(sq)
}

/// Put `c` on a random empty square (pawns off the back ranks).
fn put_random(s: &mut Setup, rng: &mut Rng, c: char) -> Option<Square> {
    for _ in 0..64 {
        let i = rng.below(64) as i32;
        if let Some(sq) = put(s, i % 8, i / 8, c) {
            return Some(sq);
        }
    }
    None
}

/// Put the kings that are still missing on random squares.
fn add_kings(s: &mut Setup, rng: &mut Rng) -> Option<()> {
    for c in ['K', 'k'] {
        let color = if c == 'K' { Color::White } else { Color::Black };
        if s.kings(color).is_empty() {
            put_random(s, rng, c)?;
        }
    }
    Some(())
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len() as u64) as usize]
}

/// A random non-king piece of either colour on a random empty square.
pub(super) fn add_random_piece(s: &mut Setup, rng: &mut Rng) {
    let c = pick(
        rng,
        &['P', 'P', 'N', 'B', 'R', 'Q', 'p', 'p', 'n', 'b', 'r', 'q'],
    );
    let _ = put_random(s, rng, c);
}

// The eight directions, orthogonal first (`DIRS[4..]` are the diagonals).
use crate::types::LINE_DIRECTIONS as DIRS;

/// A black slider that moves along `dir`.
fn slider_for(rng: &mut Rng, dir: (i32, i32), black: bool) -> char {
    let c = if dir.0 == 0 || dir.1 == 0 {
        pick(rng, &['r', 'r', 'q'])
    } else {
        pick(rng, &['b', 'b', 'q'])
    };
    if black {
        c
    } else {
        c.to_ascii_uppercase()
    }
}

pub(super) fn swap_colours(s: &Setup) -> Setup {
    let mut out = Setup::empty();
    for sq in Square::all() {
        if let Some(p) = s.piece_at(sq) {
            out.board[sq.flip_vertical().index()] = Some(Piece::new(!p.color, p.role));
        }
    }
    out.turn = !s.turn;
    for (color, side, rook) in s.castling.iter() {
        out.castling.set(!color, side, Some(rook.flip_vertical()));
    }
    out.ep_square = s.ep_square.map(Square::flip_vertical);
    out.halfmoves = s.halfmoves;
    out.fullmoves = s.fullmoves;
    out
}

pub(super) fn mirror_files(s: &Setup) -> Setup {
    let mut out = s.clone();
    for sq in Square::all() {
        let m = at(7 - sq.file() as i32, sq.rank() as i32).expect("on board");
        out.board[m.index()] = s.piece_at(sq);
    }
    out.ep_square = s
        .ep_square
        .map(|e| at(7 - e.file() as i32, e.rank() as i32).expect("on board"));
    out
}

pub(super) fn has_castling_right(s: &Setup) -> bool {
    s.castling.iter().any(|(c, _, _)| c == s.turn)
}

pub(super) fn has_pawn_on_seventh(s: &Setup) -> bool {
    let rank = if s.turn == Color::White { 6 } else { 1 };
    (0..8)
        .any(|f| s.piece_at(at(f, rank).expect("on board")) == Some(Piece::new(s.turn, Role::Pawn)))
}

/// Squares of the side to move's pawns that could capture en passant (ignoring pins and checks).
pub(super) fn ep_capturers(s: &Setup) -> Vec<Square> {
    let Some(ep) = s.ep_square else {
        return Vec::new();
    };
    let rank = if s.turn == Color::White { 4 } else { 3 };
    [-1, 1]
        .into_iter()
        .filter_map(|d| at(ep.file() as i32 + d, rank))
        .filter(|&sq| s.piece_at(sq) == Some(Piece::new(s.turn, Role::Pawn)))
        .collect()
}

/// Whether a piece of the side to move (not the king) is pinned to its king.
pub(super) fn has_pinned_piece(s: &Setup) -> bool {
    let Some(&king) = s.kings(s.turn).first() else {
        return false;
    };
    Square::all().any(|sq| {
        s.piece_at(sq)
            .is_some_and(|p| p.color == s.turn && p.role != Role::King)
            && {
                let mut t = s.clone();
                t.board[sq.index()] = None;
                !reference::attackers(&t, king, !s.turn).is_empty()
            }
    })
}

/// A random square from which a `c` placed there attacks `target` (for Black: `by` the attacker's colour).
fn put_attacker(s: &mut Setup, rng: &mut Rng, c: char, target: Square) -> Option<Square> {
    let p = Piece::from_char(c)?;
    let start = rng.below(64) as usize;
    for k in 0..64 {
        let sq = Square::new(((start + k * 37) % 64) as u8);
        if sq == target || s.piece_at(sq).is_some() {
            continue;
        }
        if p.role == Role::Pawn && (sq.rank() == 0 || sq.rank() == 7) {
            continue;
        }
        s.board[sq.index()] = Some(p);
        if reference::attackers(s, target, p.color).contains(&sq) {
            return Some(sq);
        }
        s.board[sq.index()] = None;
    }
    None
}

// ---------------------------------------------------------------------------------------------------------
// Motifs, White to move.

/// En passant (FIDE 3.7.4): a black pawn has just double-stepped to (f, 4); a white pawn on (g, 4) can take
/// it, landing on (f, 5).
pub(super) fn ep_motif(rng: &mut Rng, variant: u64) -> Option<Setup> {
    let mut s = Setup::empty();
    let f = rng.below(8) as i32;
    let side = match f {
        0 => 1,
        7 => -1,
        _ => pick(rng, &[-1, 1]),
    };
    let g = f + side;
    put(&mut s, f, 4, 'p')?;
    put(&mut s, g, 4, 'P')?;
    s.ep_square = at(f, 5);
    if rng.below(4) == 0 {
        // A second capturer on the other side.
        let _ = put(&mut s, f - side, 4, 'P');
    }
    let slider = |rng: &mut Rng, diag: bool| {
        if diag {
            pick(rng, &['b', 'q'])
        } else {
            pick(rng, &['r', 'q'])
        }
    };
    // Files of a king and a slider at the two ends of the capture rank, outside the two pawns, in random
    // order (None when a pawn stands on an edge file).
    let rank_ends = |rng: &mut Rng| -> Option<(i32, i32)> {
        let (lo, hi) = (f.min(g), f.max(g));
        if lo == 0 || hi == 7 {
            return None;
        }
        let left = lo - 1 - rng.below(lo as u64) as i32;
        let right = hi + 1 + rng.below((7 - hi) as u64) as i32;
        Some(if rng.below(2) == 0 {
            (left, right)
        } else {
            (right, left)
        })
    };
    match variant {
        // The rank pin: king and enemy rook/queen on the capture rank with only the two pawns between.
        0 | 1 => {
            let (kf, sf) = rank_ends(rng)?;
            put(&mut s, kf, 4, 'K')?;
            let c = slider(rng, false);
            put(&mut s, sf, 4, c)?;
            if rng.below(4) == 0 {
                // A third piece on the rank: no pin any more.
                let between: Vec<i32> = (kf.min(sf) + 1..kf.max(sf))
                    .filter(|&x| x != f && x != g)
                    .collect();
                if !between.is_empty() {
                    let x = pick(rng, &between);
                    let c = pick(rng, &['N', 'B', 'n', 'b']);
                    put(&mut s, x, 4, c)?;
                }
            }
        }
        // The capturer pinned on a diagonal (legal when the capture runs along the pin line).
        2 => {
            let (df, dr) = pick(rng, &DIRS[4..]);
            let k1 = 1 + rng.below(3) as i32;
            let k2 = 1 + rng.below(3) as i32;
            put(&mut s, g - df * k1, 4 - dr * k1, 'K')?;
            let c = slider(rng, true);
            put(&mut s, g + df * k2, 4 + dr * k2, c)?;
        }
        // The capturer pinned on its file.
        3 => {
            put(&mut s, g, rng.below(4) as i32, 'K')?;
            let c = slider(rng, false);
            put(&mut s, g, 5 + rng.below(3) as i32, c)?;
        }
        // The double-stepped pawn gives check: capturing it e.p. is an evasion (unless the capturer is
        // pinned as well).
        4 => {
            let kf = f + pick(rng, &[-1, 1]);
            put(&mut s, kf, 3, 'K')?;
            if kf == g && rng.below(3) == 0 {
                let c = slider(rng, false);
                put(&mut s, g, 5 + rng.below(3) as i32, c)?;
            }
        }
        // The capture gives discovered check: along the emptied rank, or through the capturer's or the
        // captured pawn's square.
        5 => match rng.below(3) {
            0 => {
                let (kf, sf) = rank_ends(rng)?;
                put(&mut s, kf, 4, 'k')?;
                let c = slider(rng, false).to_ascii_uppercase();
                put(&mut s, sf, 4, c)?;
            }
            n => {
                let through = if n == 1 { g } else { f };
                let (df, dr) = pick(rng, &DIRS[4..]);
                let k1 = 1 + rng.below(3) as i32;
                let k2 = 1 + rng.below(3) as i32;
                put(&mut s, through + df * k1, 4 + dr * k1, 'k')?;
                let c = slider(rng, true).to_ascii_uppercase();
                put(&mut s, through - df * k2, 4 - dr * k2, c)?;
            }
        },
        // The double step uncovered a check by another piece: the e.p. capture does not answer it.
        _ => {
            let (df, dr) = pick(rng, &[(1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)]);
            let k1 = 1 + rng.below(4) as i32;
            let k2 = 1 + rng.below(2) as i32;
            put(&mut s, f + df * k1, 6 + dr * k1, 'K')?;
            let c = slider(rng, dr != 0);
            put(&mut s, f - df * k2, 6 - dr * k2, c)?;
        }
    }
    add_kings(&mut s, rng)?;
    Some(s)
}

/// Standard castling (FIDE 3.8.2): king on e1 with rooks and rights, attacked and occupied squares around.
pub(super) fn castling_motif(rng: &mut Rng) -> Option<Setup> {
    let mut s = Setup::empty();
    put(&mut s, 4, 0, 'K')?;
    let mut any = false;
    for (file, side) in [(7, CastlingSide::KingSide), (0, CastlingSide::QueenSide)] {
        if rng.below(8) != 0 {
            let rook = put(&mut s, file, 0, 'R')?;
            if rng.below(5) != 0 {
                s.castling.set(Color::White, side, Some(rook));
                any = true;
            }
        }
    }
    if !any {
        return None;
    }
    if rng.below(2) == 0 {
        put(&mut s, 4, 7, 'k')?;
        for (file, side) in [(7, CastlingSide::KingSide), (0, CastlingSide::QueenSide)] {
            if rng.below(3) != 0 {
                let rook = put(&mut s, file, 7, 'r')?;
                if rng.below(3) != 0 {
                    s.castling.set(Color::Black, side, Some(rook));
                }
            }
        }
    }
    add_kings(&mut s, rng)?;
    // Attackers of the squares that matter (e1, d1, f1, c1, g1) and of those that do not (b1, a1, h1).
    for _ in 0..1 + rng.below(3) {
        let target = at(pick(rng, &[4, 3, 5, 2, 6, 2, 6, 1, 0, 7]), 0)?;
        let c = pick(rng, &['n', 'b', 'r', 'q', 'p', 'b', 'r']);
        let _ = put_attacker(&mut s, rng, c, target);
    }
    // Pieces between king and rook (either colour).
    if rng.below(3) == 0 {
        let f = pick(rng, &[1, 2, 3, 5, 6]);
        let c = pick(rng, &['N', 'B', 'Q', 'n', 'b']);
        let _ = put(&mut s, f, 0, c);
    }
    // Own pawns in front, as in games.
    for f in 0..8 {
        if rng.below(3) == 0 {
            let _ = put(&mut s, f, 1, 'P');
        }
    }
    Some(s)
}

/// Chess960 castling (FIDE 3.8.2, Chess960 rules): any king file b–g with a rook on each side.
pub(super) fn chess960_motif(rng: &mut Rng, shield: bool) -> Option<Setup> {
    // (king file, queen-side rook file, king-side rook file): the edge cases first, then anything.
    const SPECIAL: [(i32, i32, i32); 10] = [
        (1, 0, 7), // king b1: queen-side castling moves the king to c1
        (6, 0, 7), // king g1 stays on g1 when castling king-side
        (5, 0, 6), // king f1, rook g1: they swap
        (3, 2, 7), // king d1, rook c1: they swap
        (2, 0, 7), // king c1 stays on c1 when castling queen-side
        (2, 1, 3), // king c1 between two adjacent rooks
        (4, 3, 5), // king e1 with rooks on d1 and f1 (their targets)
        (1, 0, 2), // rooks on a1 and c1, king between
        (6, 5, 7), // king g1 between f1 and h1
        (5, 1, 6), // rook b1 behind a long queen-side path
    ];
    let (kf, qf, rf) = if shield {
        // The shield only matters for a queen-side rook on b1 (an attacker on a1 then hits c1 once the rook
        // has left), so that is the set-up; the king anywhere from c1 to g1.
        let kf = 2 + rng.below(5) as i32;
        (kf, 1, kf + 1 + rng.below((7 - kf) as u64) as i32)
    } else if rng.below(3) != 0 {
        pick(rng, &SPECIAL)
    } else {
        let kf = 1 + rng.below(6) as i32;
        let qf = rng.below(kf as u64) as i32;
        let rf = kf + 1 + rng.below((7 - kf) as u64) as i32;
        (kf, qf, rf)
    };
    let mut s = Setup::empty();
    for (rank, king, rook, color) in [(0, 'K', 'R', Color::White), (7, 'k', 'r', Color::Black)] {
        put(&mut s, kf, rank, king)?;
        for (file, side) in [(qf, CastlingSide::QueenSide), (rf, CastlingSide::KingSide)] {
            if rng.below(8) != 0 {
                let sq = put(&mut s, file, rank, rook)?;
                if rng.below(6) != 0 {
                    s.castling.set(color, side, Some(sq));
                }
            }
        }
    }
    if !has_castling_right(&s) {
        return None;
    }
    // The rook shield: an enemy rook or queen on the back rank beyond the castling rook, whose attack on the
    // king's target square only that rook blocks.
    if shield {
        s.castling
            .set(Color::White, CastlingSide::QueenSide, at(1, 0));
        put(&mut s, 0, 0, pick(rng, &['r', 'q']))?;
    } else {
        for _ in 0..rng.below(3) {
            let target = at(pick(rng, &[kf, 2, 3, 5, 6, (kf + 2).min(6)]), 0)?;
            let c = pick(rng, &['n', 'b', 'r', 'q', 'p']);
            let _ = put_attacker(&mut s, rng, c, target);
        }
    }
    // A piece on a king's or rook's target square outside the king–rook span: it blocks that castling,
    // though no square between king and rook is occupied.
    if !shield && rng.below(2) == 0 {
        let mut targets = Vec::new();
        for (a, b, squares) in [(qf, kf, [2, 3]), (kf, rf, [5, 6])] {
            targets.extend(squares.into_iter().filter(|&t| t < a || t > b));
        }
        if !targets.is_empty() {
            let t = pick(rng, &targets);
            let _ = put(&mut s, t, 0, pick(rng, &['N', 'B', 'n', 'b']));
        }
    }
    // Other back-rank pieces (in the way or on a target square) and pawns, as in Chess960 games.
    for (rank, pawn_rank, upper) in [(0, 1, true), (7, 6, false)] {
        for f in 0..8 {
            if !shield && rng.below(3) == 0 {
                let c = pick(rng, &['N', 'B', 'Q']);
                let c = if upper { c } else { c.to_ascii_lowercase() };
                let _ = put(&mut s, f, rank, c);
            }
            if rng.below(3) != 0 {
                let _ = put(&mut s, f, pawn_rank, if upper { 'P' } else { 'p' });
            }
        }
    }
    Some(s)
}

/// Promotion (FIDE 3.7.5): pawns on the seventh rank with things to take, things in the way, pins and checks.
pub(super) fn promotion_motif(rng: &mut Rng, variant: u64) -> Option<Setup> {
    let mut s = Setup::empty();
    let mut files = Vec::new();
    for _ in 0..1 + rng.below(2) {
        let p = rng.below(8) as i32;
        if put(&mut s, p, 6, 'P').is_some() {
            files.push(p);
        }
    }
    let p = *files.first()?;
    for &p in &files {
        for d in [-1, 1] {
            if rng.below(2) == 0 {
                let c = pick(rng, &['r', 'n', 'b', 'q']);
                let _ = put(&mut s, p + d, 7, c);
            }
        }
        if rng.below(4) == 0 {
            let _ = put(&mut s, p, 7, pick(rng, &['n', 'r']));
        }
    }
    match variant {
        // The promoted piece gives check: along the back rank, or as a knight.
        0 => {
            let squares = [
                (p + 1, 5),
                (p - 1, 5),
                (p + 2, 6),
                (p - 2, 6),
                (pick(rng, &[0, 1, 2, 5, 6, 7]), 7),
            ];
            let (f, r) = pick(rng, &squares);
            put(&mut s, f, r, 'k')?;
        }
        // The promoting pawn is pinned: on the seventh rank (no move) or on a diagonal (it may take the
        // pinner).
        1 => {
            if rng.below(2) == 0 {
                let kf = pick(rng, &[0, 7]);
                put(&mut s, kf, 6, 'K')?;
                let sf = if kf == 0 { 7 } else { 0 };
                if sf != p {
                    put(&mut s, sf, 6, pick(rng, &['r', 'q']))?;
                }
            } else {
                let df = pick(rng, &[-1, 1]);
                let k = 1 + rng.below(4) as i32;
                put(&mut s, p - df * k, 6 - k, 'K')?;
                let sq = at(p + df, 7)?;
                s.board[sq.index()] = Some(Piece::from_char(pick(rng, &['b', 'q']))?);
            }
        }
        // White is in check along the back rank, and the promotion square is between: promoting blocks.
        2 => {
            let kf = pick(rng, &[0, 7]);
            if kf == p {
                return None;
            }
            put(&mut s, kf, 7, 'K')?;
            let sf = if kf == 0 { 7 } else { 0 };
            let (lo, hi) = (kf.min(sf), kf.max(sf));
            if !(lo < p && p < hi) {
                return None;
            }
            for x in lo + 1..hi {
                if x != p {
                    let sq = at(x, 7)?;
                    s.board[sq.index()] = None;
                }
            }
            let sq = at(sf, 7)?;
            s.board[sq.index()] = Some(Piece::from_char(pick(rng, &['r', 'q']))?);
        }
        // Taking a rook that still has its castling right removes the right (FIDE 3.8.2.1).
        3 => {
            let (rf, pf, side) = pick(
                rng,
                &[
                    (7, 6, CastlingSide::KingSide),
                    (0, 1, CastlingSide::QueenSide),
                ],
            );
            let mut t = Setup::empty();
            put(&mut t, 4, 7, 'k')?;
            let rook = put(&mut t, rf, 7, 'r')?;
            t.castling.set(Color::Black, side, Some(rook));
            put(&mut t, pf, 6, 'P')?;
            if rng.below(2) == 0 {
                let other = put(&mut t, 7 - rf, 7, 'r')?;
                let other_side = if side == CastlingSide::KingSide {
                    CastlingSide::QueenSide
                } else {
                    CastlingSide::KingSide
                };
                t.castling.set(Color::Black, other_side, Some(other));
            }
            s = t;
        }
        // The promotion gives discovered check: the pawn stood between a white slider and the black king.
        _ => {
            let dirs: [(i32, i32); 2] = [(1, 0), (-1, 0)];
            let (df, _) = pick(rng, &dirs);
            let k1 = 1 + rng.below(3) as i32;
            let k2 = 1 + rng.below(3) as i32;
            put(&mut s, p + df * k1, 6, 'k')?;
            put(&mut s, p - df * k2, 6, pick(rng, &['R', 'Q']))?;
        }
    }
    add_kings(&mut s, rng)?;
    Some(s)
}

/// Check (FIDE 3.9.1): single, contact and double checks, with the line behind the king left open.
pub(super) fn check_motif(rng: &mut Rng, variant: u64) -> Option<Setup> {
    let mut s = Setup::empty();
    let king = put_random(&mut s, rng, 'K')?;
    let (kf, kr) = (king.file() as i32, king.rank() as i32);
    let slider_check = |s: &mut Setup, rng: &mut Rng, dir: (i32, i32), k: i32| -> Option<()> {
        let c = slider_for(rng, dir, true);
        for i in 1..k {
            if s.piece_at(at(kf + dir.0 * i, kr + dir.1 * i)?).is_some() {
                return None;
            }
        }
        put(s, kf + dir.0 * k, kr + dir.1 * k, c)?;
        Some(())
    };
    match variant {
        0 => {
            let dir = pick(rng, &DIRS);
            let k = 2 + rng.below(5) as i32;
            slider_check(&mut s, rng, dir, k)?;
        }
        1 => {
            put_attacker(&mut s, rng, 'n', king)?;
        }
        2 => {
            put_attacker(&mut s, rng, 'p', king)?;
        }
        // Contact check by a queen or rook (protected or not: the filling decides).
        3 => {
            let dir = pick(rng, &DIRS);
            let c = pick(rng, &['q', 'q', 'r']);
            let c = if c == 'r' && dir.0 != 0 && dir.1 != 0 {
                'b'
            } else {
                c
            };
            put(&mut s, kf + dir.0, kr + dir.1, c)?;
        }
        // Double check: a slider and a knight, or two sliders on different lines.
        _ => {
            let dir = pick(rng, &DIRS);
            let k = 2 + rng.below(5) as i32;
            slider_check(&mut s, rng, dir, k)?;
            if rng.below(2) == 0 {
                put_attacker(&mut s, rng, 'n', king)?;
            } else {
                let other = pick(rng, &DIRS);
                // Not on the checking line (neither side): one checker would block the other.
                if other == dir || other == (-dir.0, -dir.1) {
                    return None;
                }
                let k = 1 + rng.below(5) as i32;
                slider_check(&mut s, rng, other, k)?;
            }
        }
    }
    add_kings(&mut s, rng)?;
    Some(s)
}

/// Pins (FIDE 3.9.2): a white piece between its king and a black slider; sometimes two pins, sometimes a
/// second piece on the line (no pin).
pub(super) fn pin_motif(rng: &mut Rng) -> Option<Setup> {
    let mut s = Setup::empty();
    let king = put_random(&mut s, rng, 'K')?;
    let (kf, kr) = (king.file() as i32, king.rank() as i32);
    for n in 0..1 + rng.below(2) {
        let dir = pick(rng, &DIRS);
        let k1 = 1 + rng.below(3) as i32;
        let k2 = 1 + rng.below(4) as i32;
        let piece = pick(rng, &['P', 'N', 'B', 'R', 'Q', 'P']);
        let ok = put(&mut s, kf + dir.0 * k1, kr + dir.1 * k1, piece).is_some();
        let c = slider_for(rng, dir, true);
        let ok = ok && put(&mut s, kf + dir.0 * (k1 + k2), kr + dir.1 * (k1 + k2), c).is_some();
        if !ok && n == 0 {
            return None;
        }
        if ok && k2 > 1 && rng.below(6) == 0 {
            // A second piece on the line: nothing is pinned there.
            let _ = put(&mut s, kf + dir.0 * (k1 + 1), kr + dir.1 * (k1 + 1), 'N');
        }
    }
    add_kings(&mut s, rng)?;
    Some(s)
}

/// Mate or stalemate at the root (FIDE 1.4.1, 5.2.1): a random sparse position, then a move of the side to
/// move that leaves the opponent without legal moves.
pub(super) fn end_motif(rng: &mut Rng, want_mate: bool) -> Option<Setup> {
    let mut s = Setup::empty();
    add_kings(&mut s, rng)?;
    for _ in 0..1 + rng.below(4) {
        let c = pick(rng, &['Q', 'R', 'R', 'B', 'N', 'P', 'Q', 'p', 'n']);
        let _ = put_random(&mut s, rng, c);
    }
    s.fullmoves = 30 + rng.below(40) as u32;
    let c = Checked::new(s).ok()?;
    if !c.warnings().is_empty() {
        return None;
    }
    let mb = Mailbox::from_setup(c.setup());
    let mut found = None;
    for m in mb.legal_moves() {
        let next = mb.play(m);
        if next.legal_moves().is_empty() {
            found = Some(next.clone());
            if next.in_check() == want_mate {
                break;
            }
        }
    }
    Some(found?.to_setup())
}

/// Halfmove clock 99–150 (FIDE 9.3, 9.6.2) on a random playout position.
pub(super) fn clock_motif(rng: &mut Rng, variant: u64) -> Setup {
    let mut s = random_position(rng, false, 60);
    s.halfmoves = match variant {
        0 => 99,
        1 => 100,
        _ => 99 + rng.below(52) as u32,
    };
    // A clock above 0 means the last move was no double step.
    s.ep_square = None;
    s.fullmoves = s.fullmoves.max(s.halfmoves / 2 + 1);
    s
}

/// Insufficient or dead material (FIDE 1.5, 5.2.2, 6.9), or one capture away from it.
pub(super) fn material_motif(rng: &mut Rng, variant: u64) -> Option<Setup> {
    let mut s = Setup::empty();
    add_kings(&mut s, rng)?;
    let pieces: &[char] = match variant {
        0 => &[],
        1 => &['B'],
        2 => &['N'],
        3 => &['N', 'N'],
        4 => &['B', 'n'],
        5 => &['N', 'n'],
        6 => &['R', 'n'], // the rook may be taken: then K+N v K
        7 => &['P', 'b'], // the pawn may be taken: then K+B v K
        _ => &['Q', 'b'],
    };
    for &c in pieces {
        put_random(&mut s, rng, c)?;
    }
    if rng.below(3) == 0 {
        // Bishops all on one colour: K+B… v K+B… with same-coloured bishops is dead.
        let colour = rng.below(2) as i32;
        for c in ['B', 'b', 'b'] {
            for _ in 0..20 {
                let f = rng.below(8) as i32;
                let r = rng.below(8) as i32;
                if (f + r) % 2 == colour && put(&mut s, f, r, c).is_some() {
                    break;
                }
            }
        }
    }
    s.turn = if rng.below(2) == 0 {
        Color::White
    } else {
        Color::Black
    };
    s.halfmoves = rng.below(60) as u32;
    s.fullmoves = 40 + rng.below(60) as u32;
    Some(s)
}
