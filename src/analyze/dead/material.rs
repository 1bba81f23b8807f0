//! (a) Material: positions where a side can never checkmate whatever is played (FIDE 1.5, 5.2.2).

use crate::bitboard::board::Board;
use crate::bitboard::Bitboard;
use crate::types::{Color, Role};

/// A material rule proving that `winner` can never checkmate in `b`, with its text; `None` when no rule applies.
///
/// The rules, each with its proof:
/// 1. The winner has only its king: a king can never give check (it may not stand next to the other king), and
///    without pawns the winner can never get another piece.
/// 2. The winner has king and one knight and no pawns, the loser only its king: no piece can ever be added
///    (no pawns), and K+N cannot mate a bare king: the knight checks from a square that covers none of the
///    king's neighbours, and one king covers at most two of the loser king's at least three free neighbours
///    without standing next to it.
/// 3. The winner has no pawns, rooks, queens or knights, all its bishops on squares of one colour C, and the
///    loser has no pawns, knights, rooks or queens, its bishops (if any) also on C: no piece can be added, only
///    bishops of colour C can give check, so the mated king stands on C; its orthogonal neighbours are of the
///    other colour, cannot be attacked by the bishops and cannot be occupied by the loser's C bishops, so the
///    winner's king must cover them all without touching the mated king: a king on the edge has at least three
///    (in the corner two, whose only common neighbours are the corner itself and the square diagonal to it,
///    next to the mated king); impossible. Promoted bishops count like any other bishop.
/// 4. The winner has king and one knight and no pawns, the loser king and queens only (no pawns): no piece can
///    be added (no pawns), every capture keeps this true, and only the knight can give check (FIDE 3.6, 3.9).
///    Take coordinates with the mated king on k = (0,0) and the knight on n = (2,1) (the other seven knight
///    directions are mirror images); the box [0,2]×[0,1] spanned by k and n is on the board. k's neighbours
///    (1,0) and (1,1) touch n, so a queen there would take the knight (a pin needs a line piece, the winner
///    has none): they hold no queen, the knight does not attack them, and the winner's king must cover both
///    without standing next to k (FIDE 3.8.2): the only such square is (2,0). The last neighbour of k in the
///    box, (0,1), is attacked neither by that king nor by the knight, so for a mate it must hold a queen, and
///    that queen takes the knight along (0,1)-(1,1)-(2,1) ((1,1) is empty: no queen, no king, not n). So every
///    check can be answered; never a mate. (With no queens this is rule 2.)
/// 5. The winner has no pawns, knights, rooks or queens, all its bishops on squares of one colour C, and the
///    loser has no pawns or knights, its bishops (if any) on C, and any rooks and queens: no piece can be added
///    (no pawns), every capture keeps this true, and only the bishops can give check. Never two at once: a
///    double check needs a discovered check, and the piece uncovering a bishop's line is either the king
///    (which gives no check) or a bishop on that line, which would already be giving check. So a mate is a
///    single check by a bishop from k + d·(sx, sy) (d ≥ 1) to the king on k. The two neighbours k + (sx, 0) and
///    k + (0, sy) lie in the box spanned by k and the bishop (on the board), have the colour other than C (so
///    no bishop attacks them and no bishop of the loser stands there), and no square next to both is allowed
///    to the winner's king (their common neighbours are k and k + (sx, sy), next to k; FIDE 3.8.2). So one of
///    them holds a loser's rook or queen, which moves to k + (sx, sy) (one step along a rank or file): there
///    it takes a bishop with d = 1 or blocks the check; it is never pinned (only the bishops could pin, along
///    diagonals, and the rook or queen is not on a diagonal through k). Every check can be answered; never a
///    mate. (With no rooks or queens on the loser's side this is rule 3.)
pub fn material_reason(b: &Board, winner: Color) -> Option<String> {
    let name = winner.name();
    Some(match material_rule(b, winner)? {
        Rule::OnlyKing => format!("{name} has only its king"),
        Rule::KnightVsBareKing => {
            format!("{name} has king and knight, the other side a bare king")
        }
        Rule::KnightVsQueens => {
            format!("{name} has king and knight, the other side only king and queens")
        }
        Rule::BishopsAgainstHeavyPieces { light } => format!(
            "{name} has only bishops on {} squares, and the other side no pawns or knights, no bishops of the \
             other colour (rooks and queens can always block or take a bishop's check)",
            if light { "light" } else { "dark" }
        ),
        Rule::SameColourBishops { light } => format!(
            "{name} has only bishops on {} squares, and the other side at most bishops on the same colour",
            if light { "light" } else { "dark" }
        ),
    })
}

/// Which rule of [`material_reason`] applies (no text: the searches ask this at every node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rule {
    /// Rule 1.
    OnlyKing,
    /// Rule 2.
    KnightVsBareKing,
    /// Rule 4.
    KnightVsQueens,
    /// Rule 3, with the bishops' colour.
    SameColourBishops { light: bool },
    /// Rule 5, with the bishops' colour.
    BishopsAgainstHeavyPieces { light: bool },
}

/// [`material_reason`] without its text.
#[inline]
pub(super) fn material_rule(b: &Board, winner: Color) -> Option<Rule> {
    let (wp, lp) = (b.occupied(winner), b.occupied(!winner));
    let kings = b.role(Role::King);
    let w_others = wp & !kings;
    if w_others.is_empty() {
        return Some(Rule::OnlyKing);
    }
    if (b.role(Role::Pawn) | b.role(Role::Rook) | b.role(Role::Queen)).intersects(wp) {
        return None;
    }
    let l_others = lp & !kings;
    let (wn, wb) = (
        b.pieces(winner, Role::Knight),
        b.pieces(winner, Role::Bishop),
    );
    if wb.is_empty() && wn.count() == 1 && (l_others & !b.role(Role::Queen)).is_empty() {
        return Some(if l_others.is_empty() {
            Rule::KnightVsBareKing
        } else {
            Rule::KnightVsQueens
        });
    }
    if wn.is_empty() && !wb.is_empty() {
        let colour = if !wb.intersects(Bitboard::LIGHT) {
            Bitboard::DARK
        } else if !wb.intersects(Bitboard::DARK) {
            Bitboard::LIGHT
        } else {
            return None;
        };
        let l_bad = b.role(Role::Pawn) | b.role(Role::Knight) | (b.role(Role::Bishop) & !colour);
        let light = colour == Bitboard::LIGHT;
        if !l_others.intersects(l_bad) {
            return Some(
                if l_others.intersects(b.role(Role::Rook) | b.role(Role::Queen)) {
                    Rule::BishopsAgainstHeavyPieces { light }
                } else {
                    Rule::SameColourBishops { light }
                },
            );
        }
    }
    None
}
