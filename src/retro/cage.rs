//! Caged pieces: which squares a unit could ever have stood on, and where each piece on the board can have
//! come from (FIDE 3.10.3).
//!
//! **Walls.** A White pawn on its second rank (a Black pawn on its seventh) has never moved: pawns only move
//! forward (FIDE 3.7.1–3.7.3), so a pawn that moved is on the third rank or beyond; and it was never captured
//! (it is still there). So that square has held that pawn since the start of the game: no unit of either
//! side ever stood on it, no line piece ever passed over it (FIDE 3.2–3.4), and a king never stepped on it
//! (3.8). Only knights jump over it (3.6).
//!
//! **Reach.** From each square and for each role, the squares a piece of that role could ever reach by its
//! moves around the walls (every other unit ignored: that only allows more, so it is sound). Castling moves the
//! king and rook along the back rank, where there are no walls, so rook and king moves already cover it.
//!
//! **Origins.** Every piece on the board is an initial piece of its role that stayed within its reach, or a
//! promoted pawn (FIDE 3.7.5) that started on a promotion square some pawn can reach (past the enemy's
//! unmoved pawns, which it can neither pass on their file nor capture) and stayed within that square's reach;
//! distinct pieces have distinct origins and a side promotes at most as often as pawns are missing. An initial
//! piece whose reach no enemy unit can ever enter was never captured, so it is still on the board, within its
//! reach. Both conditions are bipartite matchings (pieces on the board, initial pieces and promotion slots), and
//! a matching covering both the pieces on the board and the uncapturable initial pieces exists if and only if
//! each exists on its own (Mendelsohn–Dulmage), so two matchings per side decide it.
//!
//! The initial squares of the pieces depend on the start: standard chess (FIDE 2.3) has one arrangement, and
//! Chess960 has 960 (bishops on opposite colours, the king between the rooks, Black mirroring White). A proof
//! holds for the arrangements it was checked against: the standard one, or all 960 with `chess960`; a position
//! impossible in standard chess but possible from some Chess960 start is said to be so.

use super::{proofs, Proof, ProofKind};
use crate::bitboard::Bitboard;
use crate::position::Setup;
use crate::types::{Color, Role, Square, KING_STEPS, KNIGHT_STEPS};
use std::cell::Cell;

const DIAG: [(i32, i32); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];
const ORTH: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// The five piece roles, in the order of [`Reach`]'s tables.
const PIECES: [Role; 5] = [
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

fn piece_index(role: Role) -> usize {
    PIECES
        .iter()
        .position(|&r| r == role)
        .expect("a piece role")
}

/// The squares that have held the same unmoved pawn since the start (see the module docs).
pub fn walls(setup: &Setup) -> Bitboard {
    let mut w = Bitboard::EMPTY;
    for sq in Square::all() {
        if let Some(p) = setup.piece_at(sq) {
            if p.role == Role::Pawn && sq.rank() == second_rank(p.color) {
                w = w.with(sq);
            }
        }
    }
    w
}

fn second_rank(color: Color) -> u8 {
    match color {
        Color::White => 1,
        Color::Black => 6,
    }
}

fn step(sq: Square, (df, dr): (i32, i32)) -> Option<Square> {
    Square::from_coords(sq.file() as i32 + df, sq.rank() as i32 + dr)
}

/// The squares a piece of `role` standing on `from` could ever reach around `walls`, `from` included.
pub fn reach(role: Role, from: Square, walls: Bitboard) -> Bitboard {
    let (dirs, slide): (&[(i32, i32)], bool) = match role {
        Role::Knight => (&KNIGHT_STEPS, false),
        Role::King => (&KING_STEPS, false),
        Role::Bishop => (&DIAG, true),
        Role::Rook => (&ORTH, true),
        _ => (&KING_STEPS, true),
    };
    let mut seen = Bitboard::from_square(from);
    let mut todo = vec![from];
    while let Some(sq) = todo.pop() {
        for &d in dirs {
            let mut cur = sq;
            while let Some(next) = step(cur, d) {
                if walls.contains(next) {
                    break;
                }
                if !seen.contains(next) {
                    seen = seen.with(next);
                    todo.push(next);
                }
                if !slide {
                    break;
                }
                cur = next;
            }
        }
    }
    seen
}

/// [`reach`] for every role and square of one position's walls, each computed when first asked for.
pub struct Reach {
    table: Vec<[Cell<Option<Bitboard>>; 64]>,
    walls: Bitboard,
}

impl Reach {
    /// The tables for `walls`.
    pub fn new(walls: Bitboard) -> Reach {
        let table = PIECES
            .iter()
            .map(|_| std::array::from_fn(|_| Cell::new(None)))
            .collect();
        Reach { table, walls }
    }

    /// The squares a piece of `role` on `from` could ever reach.
    pub fn of(&self, role: Role, from: Square) -> Bitboard {
        let cell = &self.table[piece_index(role)][from.index()];
        cell.get().unwrap_or_else(|| {
            let r = reach(role, from, self.walls);
            cell.set(Some(r));
            r
        })
    }

    /// The squares a piece of `role` could reach from any square of `from`.
    fn of_set(&self, role: Role, from: Bitboard) -> Bitboard {
        from.iter()
            .fold(Bitboard::EMPTY, |acc, sq| acc | self.of(role, sq))
    }
}

/// The back-rank arrangements of the starts allowed: the standard one (FIDE 2.3) first, then, with `chess960`,
/// the other 959 (bishops on squares of opposite colours, the king between the rooks).
pub fn arrangements(chess960: bool) -> Vec<[Role; 8]> {
    use Role::{Bishop as B, King as K, Knight as N, Queen as Q, Rook as R};
    let standard = [R, N, B, Q, K, B, N, R];
    let mut out = vec![standard];
    if !chess960 {
        return out;
    }
    for light in (1..8).step_by(2) {
        for dark in (0..8).step_by(2) {
            for q in 0..6 {
                for n1 in 0..5 {
                    for n2 in n1 + 1..5 {
                        let mut a = [None; 8];
                        a[light] = Some(B);
                        a[dark] = Some(B);
                        let free = |a: &[Option<Role>; 8]| -> Vec<usize> {
                            (0..8).filter(|&f| a[f].is_none()).collect()
                        };
                        let f = free(&a);
                        a[f[q]] = Some(Q);
                        let f = free(&a);
                        a[f[n1]] = Some(N);
                        a[f[n2]] = Some(N);
                        let f = free(&a);
                        a[f[0]] = Some(R);
                        a[f[1]] = Some(K);
                        a[f[2]] = Some(R);
                        let roles = a.map(|r| r.expect("all eight files filled"));
                        if roles != standard {
                            out.push(roles);
                        }
                    }
                }
            }
        }
    }
    out
}

/// The squares of the last rank some pawn of `color` that has left its starting square can reach: one rank a
/// move, a file change only by a capture, never onto a square an unmoved enemy pawn holds (FIDE 3.7).
pub fn promotion_squares(color: Color, walls: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    let start = second_rank(color);
    let last = color.back_rank() ^ 7;
    for f0 in 0..8u8 {
        let sq = Square::new(start * 8 + f0);
        if walls.contains(sq) {
            continue;
        }
        let costs = proofs::captures_to_rank(color, f0, 7, walls.0);
        for (f, &c) in costs.iter().enumerate() {
            if c < proofs::INF {
                out = out.with(Square::new(last * 8 + f as u8));
            }
        }
    }
    out
}

/// Every square a pawn of `color` that has moved could ever stand on (captures unlimited).
fn pawn_squares(color: Color, walls: Bitboard) -> Bitboard {
    let start = second_rank(color);
    let fwd: i32 = if color == Color::White { 1 } else { -1 };
    let mut row: Vec<bool> = (0..8)
        .map(|f| !walls.contains(Square::new(start * 8 + f)))
        .collect();
    let mut out = Bitboard::EMPTY;
    let mut rank = start as i32;
    for _ in 0..5 {
        rank += fwd;
        let mut next = vec![false; 8];
        for f in 0..8usize {
            let sq = Square::new(rank as u8 * 8 + f as u8);
            let from = row[f] || (f > 0 && row[f - 1]) || (f < 7 && row[f + 1]);
            if from && !walls.contains(sq) {
                next[f] = true;
                out = out.with(sq);
            }
        }
        row = next;
    }
    out
}

/// Where a piece of one side can have come from.
#[derive(Clone, Copy, Debug)]
enum Origin {
    /// The initial piece of this role on this square.
    Initial(Role, Square),
    /// A promoted pawn.
    Promoted,
}

/// One side's origins problem under one arrangement.
struct Side {
    color: Color,
    /// The side's pieces on the board (pawns left out).
    pieces: Vec<(Role, Square)>,
    origins: Vec<Origin>,
    /// `edges[i]`: the origins piece `i` may come from.
    edges: Vec<Vec<usize>>,
    /// The initial pieces no enemy unit can ever capture (indices into `origins`).
    forced: Vec<usize>,
    /// Promotion squares and how many promotions at most.
    promo: (Bitboard, usize),
}

/// Why a side's pieces do not fit its origins.
enum Misfit {
    /// These pieces (indices) have only these origins between them, fewer than the pieces.
    Pieces(Vec<usize>, Vec<usize>),
    /// These uncapturable initial pieces (indices into origins) have only these pieces on the board to be.
    Stuck(Vec<usize>, Vec<usize>),
}

fn enemy_reach(setup: &Setup, color: Color, arr: &[Role; 8], reach: &Reach) -> Bitboard {
    let back = color.back_rank();
    let mut e = pawn_squares(color, reach.walls);
    for (f, &role) in arr.iter().enumerate() {
        e |= reach.of(role, Square::new(back * 8 + f as u8));
    }
    let pawns = pawn_count(setup, color);
    if pawns < 8 {
        let promo = promotion_squares(color, reach.walls);
        e |= reach.of_set(Role::Queen, promo) | reach.of_set(Role::Knight, promo);
    }
    e
}

fn pawn_count(setup: &Setup, color: Color) -> usize {
    Square::all()
        .filter(|&sq| {
            setup
                .piece_at(sq)
                .is_some_and(|p| p.color == color && p.role == Role::Pawn)
        })
        .count()
}

impl Side {
    fn new(setup: &Setup, color: Color, arr: &[Role; 8], reach: &Reach) -> Side {
        let back = color.back_rank();
        let pieces: Vec<(Role, Square)> = Square::all()
            .filter_map(|sq| setup.piece_at(sq).map(|p| (p, sq)))
            .filter(|(p, _)| p.color == color && p.role != Role::Pawn)
            .map(|(p, sq)| (p.role, sq))
            .collect();
        let mut origins: Vec<Origin> = arr
            .iter()
            .enumerate()
            .map(|(f, &role)| Origin::Initial(role, Square::new(back * 8 + f as u8)))
            .collect();
        let slots = 8 - pawn_count(setup, color);
        let promo_sq = if slots > 0 {
            promotion_squares(color, reach.walls)
        } else {
            Bitboard::EMPTY
        };
        let slots = if promo_sq.is_empty() { 0 } else { slots };
        origins.extend((0..slots).map(|_| Origin::Promoted));
        let promo_reach: Vec<Bitboard> =
            PIECES.iter().map(|&r| reach.of_set(r, promo_sq)).collect();
        let edges = pieces
            .iter()
            .map(|&(role, sq)| {
                (0..origins.len())
                    .filter(|&o| match origins[o] {
                        Origin::Initial(r, from) => r == role && reach.of(r, from).contains(sq),
                        Origin::Promoted => {
                            role != Role::King && promo_reach[piece_index(role)].contains(sq)
                        }
                    })
                    .collect()
            })
            .collect();
        let enemy = enemy_reach(setup, !color, arr, reach);
        let forced = (0..8)
            .filter(|&o| match origins[o] {
                Origin::Initial(r, from) => (reach.of(r, from) & enemy).is_empty(),
                Origin::Promoted => false,
            })
            .collect();
        Side {
            color,
            pieces,
            origins,
            edges,
            forced,
            promo: (promo_sq, slots),
        }
    }

    /// A reason the pieces do not fit, or `None` when both matchings exist.
    fn misfit(&self) -> Option<Misfit> {
        let n_o = self.origins.len();
        // Pieces to origins.
        let mut owner: Vec<Option<usize>> = vec![None; n_o];
        for p in 0..self.pieces.len() {
            let mut seen = vec![false; n_o];
            if !augment(p, &self.edges, &mut owner, &mut seen) {
                let origins: Vec<usize> = (0..n_o).filter(|&o| seen[o]).collect();
                let mut pieces: Vec<usize> = origins.iter().filter_map(|&o| owner[o]).collect();
                pieces.push(p);
                pieces.sort_unstable();
                return Some(Misfit::Pieces(pieces, origins));
            }
        }
        // Uncapturable initial pieces to pieces on the board.
        let mut back: Vec<Vec<usize>> = vec![Vec::new(); n_o];
        for (p, es) in self.edges.iter().enumerate() {
            for &o in es {
                back[o].push(p);
            }
        }
        let mut holder: Vec<Option<usize>> = vec![None; self.pieces.len()];
        for &o in &self.forced {
            let mut seen = vec![false; self.pieces.len()];
            if !augment(o, &back, &mut holder, &mut seen) {
                let pieces: Vec<usize> = (0..self.pieces.len()).filter(|&p| seen[p]).collect();
                let mut stuck: Vec<usize> = pieces.iter().filter_map(|&p| holder[p]).collect();
                stuck.push(o);
                stuck.sort_unstable();
                return Some(Misfit::Stuck(stuck, pieces));
            }
        }
        None
    }
}

/// Kuhn's augmenting path from left node `a` (`edges[a]`: its right nodes; `owner[b]`: the left node matched to
/// right node `b`).
fn augment(a: usize, edges: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
    for &b in &edges[a] {
        if seen[b] {
            continue;
        }
        seen[b] = true;
        if owner[b].is_none_or(|a2| augment(a2, edges, owner, seen)) {
            owner[b] = Some(a);
            return true;
        }
    }
    false
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn squares(b: Bitboard) -> String {
    let v: Vec<String> = b.iter().map(|s| s.to_string()).collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

fn describe_origin(side: &Side, o: usize, reach: &Reach) -> String {
    match side.origins[o] {
        Origin::Initial(role, from) => format!(
            "the {} from {from} (which can only ever stand on {})",
            role.name(),
            squares(reach.of(role, from))
        ),
        Origin::Promoted => "a promoted pawn".to_string(),
    }
}

/// The sentence for a side's misfit.
fn sentence(side: &Side, misfit: &Misfit, reach: &Reach) -> String {
    let n = side_name(side.color);
    let t = side_name(!side.color);
    let walls = squares(reach.walls);
    let (promo_sq, slots) = side.promo;
    let promo = if slots == 0 {
        format!(
            "{n} cannot have promoted (no pawn missing, or none can reach the last rank past the unmoved {t} pawns)"
        )
    } else {
        format!(
            "{n} can have promoted at most {slots} times, on {}",
            squares(promo_sq)
        )
    };
    let piece = |i: usize| {
        let (r, sq) = side.pieces[i];
        format!("{} on {sq}", r.name())
    };
    let basis = format!(
        "the pawns on {walls} have never moved (a pawn on its second rank never moved, FIDE 3.7.1) and no piece \
         but a knight passes them (FIDE 3.2-3.8)"
    );
    match misfit {
        Misfit::Pieces(pieces, origins) => {
            let list: Vec<String> = pieces.iter().map(|&i| piece(i)).collect();
            let from: Vec<String> = origins
                .iter()
                .map(|&o| describe_origin(side, o, reach))
                .collect();
            let it = if pieces.len() == 1 { "it" } else { "them" };
            let from = if from.is_empty() {
                format!("no initial piece of its kind can have reached {it}")
            } else {
                format!("only {} can have reached {it}", from.join(", "))
            };
            format!(
                "{n}'s {} must each have come from a different initial piece of its kind or a promoted pawn (FIDE \
                 2.3, 3.7.5), but {from}: {basis}; {promo}",
                list.join(", "),
            )
        }
        Misfit::Stuck(stuck, pieces) => {
            let list: Vec<String> = stuck
                .iter()
                .map(|&o| describe_origin(side, o, reach))
                .collect();
            let on: Vec<String> = pieces.iter().map(|&i| piece(i)).collect();
            let on = if on.is_empty() {
                "none".to_string()
            } else {
                on.join(", ")
            };
            format!(
                "{n}'s {} can never have been captured, since no {t} unit can ever enter those squares, so {} still \
                 on the board there; but the {n} pieces that can be {} are only: {on}; {basis}",
                list.join(" and "),
                if stuck.len() == 1 { "it is" } else { "they are" },
                if stuck.len() == 1 { "it" } else { "them" },
            )
        }
    }
}

/// The first side whose pieces do not fit their origins under `arr`, with the sentence.
fn check_arrangement(setup: &Setup, arr: &[Role; 8], reach: &Reach) -> Option<String> {
    Color::ALL.iter().find_map(|&c| {
        let side = Side::new(setup, c, arr, reach);
        side.misfit().map(|m| sentence(&side, &m, reach))
    })
}

/// The caged-pieces proof (see the module docs): `None` when some allowed start fits (or nothing is walled in).
pub fn caged(setup: &Setup, chess960: bool) -> Option<Proof> {
    let w = walls(setup);
    if w.is_empty() {
        // No walls: every piece reaches every square of its colour (bishops) or all squares.
        return None;
    }
    let reach = Reach::new(w);
    let arrs = arrangements(true);
    let standard = check_arrangement(setup, &arrs[0], &reach)?;
    let other_fits = arrs[1..]
        .iter()
        .any(|a| check_arrangement(setup, a, &reach).is_none());
    if chess960 && other_fits {
        return None;
    }
    let tail = if other_fits {
        " (in standard chess: some Chess960 start allows it)"
    } else {
        " (from the standard start, and by the same count from each of the 960 Chess960 starts)"
    };
    Some(Proof {
        kind: ProofKind::CagedPieces,
        sentence: format!("{standard}{tail}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proof(fen: &str, chess960: bool) -> Option<Proof> {
        caged(&Setup::from_fen(fen).unwrap(), chess960)
    }

    #[test]
    fn arrangements_are_the_960() {
        let a = arrangements(true);
        assert_eq!(a.len(), 960);
        let set: std::collections::BTreeSet<_> = a.iter().map(|r| r.map(|x| x.index())).collect();
        assert_eq!(set.len(), 960);
        assert_eq!(arrangements(false).len(), 1);
    }

    #[test]
    fn start_and_open_positions_pass() {
        assert!(proof(Setup::STARTPOS_FEN, false).is_none());
        assert!(proof(Setup::STARTPOS_FEN, true).is_none());
        // 1.e4 e5 2.Bc4.
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2";
        assert!(proof(fen, false).is_none());
    }

    #[test]
    fn bishop_on_a1_behind_b2() {
        // A White bishop on a1 behind the unmoved b2 pawn (the c1 bishop never left c1), c1 empty: impossible
        // in standard chess; from the Chess960 start BNRQKBNR (Black mirrors it) the c1 rook was captured.
        let fen = "bnrqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BN1QKBNR w Kk - 0 1";
        let p = proof(fen, false).expect("impossible in standard chess");
        assert_eq!(p.kind, ProofKind::CagedPieces);
        assert!(p.sentence.contains("Chess960 start allows it"), "{p}");
        assert!(proof(fen, true).is_none());
        // Black's back rank standard: Black mirrors White in Chess960, and the a8 rook never left the 8th rank,
        // so no start has a bishop on a1.
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BN1QKBNR w Kkq - 0 1";
        assert!(proof(fen, true).is_some());
    }

    #[test]
    fn queen_shut_in() {
        // All eight White pawns unmoved, the queen on d4: no piece but a knight leaves the first rank.
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/3Q4/8/PPPPPPPP/RNB1KBNR b KQkq - 0 2";
        let p = proof(fen, true).expect("impossible from every start");
        assert!(p.sentence.contains("queen on d4"), "{p}");
    }
}
