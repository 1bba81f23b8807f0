//! The move ordering of the helpmate search ([`super::helpmate`]), after CHA: which moves make progress toward
//! a mating net in a corner (they cost no depth), which undo it (they cost more). A heuristic only: it orders
//! and prices moves, it proves nothing, so it cannot make an answer unsound.

use crate::bitboard::board::Board;
use crate::bitboard::{unpack, Bitboard};
use crate::types::{Color, MoveKind, Role, Square, KNIGHT_STEPS};

/// Depth cost of a move that undoes progress (measured on CHA's vectors: 1 found more helpmates than 2 or 3;
/// such moves still lose the free move that follows progress).
const PUNISH: i32 = 1;

/// The winner's pawn pushes that are progress: onto this rank (0-based, from the winner's side) or beyond, that
/// is, every push past its third rank. Measured on every third position of CHA-Solver's tests/lichess.txt
/// (43,692 queries, node counts deterministic at `--time-limit 0`): from the sixth rank (index 5, before)
/// 51.65 M nodes in all, the fifth 30.30 M, the fourth (kept) 25.06 M, the third or every push 25.99 M; the
/// same verdicts (all winnable, 0 undetermined). A real game's winner mostly mates with a new queen.
const PAWN_PROGRESS_RANK: u8 = 3;

/// Distances between squares in king moves (`DISTANCE[0]`) and knight moves (`DISTANCE[1]`).
static DISTANCE: [[[u8; 64]; 64]; 2] = distances();

const fn distances() -> [[[u8; 64]; 64]; 2] {
    let mut d = [[[u8::MAX; 64]; 64]; 2];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let (df, dr) = (
                (a % 8) as i32 - (b % 8) as i32,
                (a / 8) as i32 - (b / 8) as i32,
            );
            let (df, dr) = (if df < 0 { -df } else { df }, if dr < 0 { -dr } else { dr });
            d[0][a][b] = if df > dr { df } else { dr } as u8;
            b += 1;
        }
        // Knight: breadth-first from `a`.
        d[1][a][a] = 0;
        let mut k = 0u8;
        let mut changed = true;
        while changed {
            changed = false;
            let mut s = 0;
            while s < 64 {
                if d[1][a][s] == k {
                    let mut i = 0;
                    while i < 8 {
                        let (f, r) = (
                            (s % 8) as i32 + KNIGHT_STEPS[i].0,
                            (s / 8) as i32 + KNIGHT_STEPS[i].1,
                        );
                        if f >= 0 && f < 8 && r >= 0 && r < 8 {
                            let t = (r * 8 + f) as usize;
                            if d[1][a][t] == u8::MAX {
                                d[1][a][t] = k + 1;
                                changed = true;
                            }
                        }
                        i += 1;
                    }
                }
                s += 1;
            }
            k += 1;
        }
        a += 1;
    }
    d
}

/// Whether moving `role` from `from` to `to` brings it closer to `target` (slow pieces only; a bishop counts
/// in king moves).
#[inline]
fn closer(role: Role, from: Square, to: Square, target: Square) -> bool {
    let d = match role {
        Role::King | Role::Bishop => &DISTANCE[0][target.index()],
        Role::Knight => &DISTANCE[1][target.index()],
        _ => return false,
    };
    d[to.index()] < d[from.index()]
}

/// The mating corner of a position: the corner the search drives the loser's king to, the winner's king target
/// two ranks off it, and the loser's blocking square beside it (see [`corner`]).
#[derive(Clone, Copy)]
struct Corner {
    corner: Square,
    king_target: Square,
    block: Square,
}

/// The corner the search drives the loser's king to: on the winner's eighth rank, dark when the winner has a
/// dark bishop (or no bishop while the loser has a light one), else light.
fn corner(b: &Board, winner: Color) -> Corner {
    let wb = b.pieces(winner, Role::Bishop);
    let lb = b.pieces(!winner, Role::Bishop);
    let dark = wb.intersects(Bitboard::DARK) || (wb.is_empty() && lb.intersects(Bitboard::LIGHT));
    // White winner: h8 (dark) or a8 (light); Black winner: a1 (dark) or h1 (light).
    let (corner, king_target, block) = match (winner, dark) {
        (Color::White, true) => (63, 47, 62),
        (Color::White, false) => (56, 40, 57),
        (Color::Black, true) => (0, 16, 1),
        (Color::Black, false) => (7, 23, 6),
    };
    Corner {
        corner: Square::new(corner),
        king_target: Square::new(king_target),
        block: Square::new(block),
    }
}

/// Whether the winner can only mate with the help of a piece the loser still has to promote (a heuristic for
/// move ordering only, after CHA): the winner has king and one knight while the loser has no knight, bishop
/// or rook; or the winner has only bishops of one colour while no bishop of the other colour and no loser's
/// knight is on the board.
fn loser_must_promote(b: &Board, winner: Color) -> bool {
    let (wp, lp) = (b.occupied(winner), b.occupied(!winner));
    let w_count = wp.count();
    let minor_or_rook = b.role(Role::Knight) | b.role(Role::Bishop) | b.role(Role::Rook);
    if w_count == 2 && b.pieces(winner, Role::Knight).count() == 1 && !lp.intersects(minor_or_rook)
    {
        return true;
    }
    let wb = b.pieces(winner, Role::Bishop);
    if wb.is_empty() || w_count != wb.count() + 1 {
        return false;
    }
    let colour = if wb.intersects(Bitboard::DARK) {
        Bitboard::DARK
    } else {
        Bitboard::LIGHT
    };
    (b.role(Role::Bishop) & !colour).is_empty() && !lp.intersects(b.role(Role::Knight))
}

/// The move ordering of one searched position ([`Progress::classify`]): what counts as progress toward a
/// mating net in a corner there, after CHA.
pub(super) struct Progress {
    winner: Color,
    pub(super) winners_turn: bool,
    /// The mating corner of this position (its colour follows the bishops on the board now: a promotion or a
    /// capture can change it, after CHA).
    corner: Corner,
    /// The side not to move's pieces (a move onto one captures).
    them: Bitboard,
    /// The loser is to move and only a promoted piece of its own could let the winner mate.
    loser_must_promote: bool,
    /// A locked pawn structure ([`lock_state`]) and its gap.
    locked: bool,
    gap: Option<Square>,
    /// The line is in or went through a locked structure with a gap.
    pub(super) in_gap: bool,
    loser_bishops: u32,
    /// The move that led here was progress (the next normal move then costs nothing).
    progress: bool,
    /// Progress is rewarded (the line is shorter than the helpmate search's `REWARD_PLY`).
    rewards: bool,
}

impl Progress {
    pub(super) fn new(
        b: &Board,
        winner: Color,
        progress: bool,
        was_gap: bool,
        rewards: bool,
    ) -> Progress {
        let winners_turn = b.turn() == winner;
        let (locked, gap) = lock_state(b);
        Progress {
            winner,
            winners_turn,
            corner: corner(b, winner),
            them: b.occupied(!b.turn()),
            loser_must_promote: !winners_turn && loser_must_promote(b, winner),
            locked,
            gap,
            in_gap: locked && (gap.is_some() || was_gap),
            loser_bishops: b.pieces(!winner, Role::Bishop).count(),
            progress,
            rewards,
        }
    }

    /// The cost of the packed move `m` (0 for progress, 1 normal, 0 right after progress, [`PUNISH`] for moves
    /// that undo it) and whether it is progress.
    #[inline]
    pub(super) fn classify(&self, m: u32) -> (i32, bool) {
        let (mv, role) = unpack(m);
        let (from, to) = (mv.from(), mv.to());
        let capture = self.them.contains(to) || mv.kind() == MoveKind::EnPassant;
        // Progress (cost 0): the winner captures, pushes a pawn beyond its third rank ([`PAWN_PROGRESS_RANK`]), or brings its king
        // (toward the square two ranks off the corner) or a knight (toward the corner) closer; the loser
        // brings its king into the corner or a knight to the blocking square beside it, or pushes a
        // pawn when only a promoted piece of its own could let the winner mate.
        let slow = role == Role::King || role == Role::Knight;
        let Corner {
            corner,
            king_target,
            block,
        } = self.corner;
        let (mut reward, mut punish) = if self.winners_turn {
            let rank = match self.winner {
                Color::White => to.rank(),
                Color::Black => 7 - to.rank(),
            };
            let target = if role == Role::King {
                king_target
            } else {
                corner
            };
            (
                capture
                    || (role == Role::Pawn && rank >= PAWN_PROGRESS_RANK)
                    || (slow && closer(role, from, to, target)),
                false,
            )
        } else {
            let target = if role == Role::King { corner } else { block };
            if slow && closer(role, from, to, target) {
                (true, false)
            } else if self.loser_must_promote {
                // Queen and rook promotions do not help (they are not what the winner needs).
                let useful = role == Role::Pawn
                    && !matches!(mv.promotion_role(), Some(Role::Rook | Role::Queen));
                (useful, !useful)
            } else {
                (false, capture)
            }
        };
        // Locked pawns and bishops only (after CHA's semi-blocked rule): once the line meets a gap between two
        // facing pawns, only the winner's captures and the kings' walks toward the gap are progress, other king
        // moves are normal and the rest is punished; before that, bishops heading for the mating corner are
        // progress when the loser has more than one bishop.
        if self.in_gap {
            (reward, punish) = if capture && self.winners_turn {
                (true, false)
            } else if role == Role::King {
                (
                    self.gap.is_some_and(|g| closer(Role::King, from, to, g)),
                    false,
                )
            } else {
                (false, true)
            };
        } else if self.locked && role == Role::Bishop && self.loser_bishops > 1 {
            let target = if self.winners_turn { corner } else { block };
            reward |= closer(Role::Bishop, from, to, target);
        }
        let reward = reward && self.rewards;
        // Cost: 0 for progress, 1 normal (0 right after progress), more for moves that undo it.
        let cost = if reward {
            0
        } else if punish {
            PUNISH
        } else if self.progress {
            0
        } else {
            1
        };
        (cost, reward)
    }
}

/// Whether `b` is a locked pawn structure (no knights, rooks or queens; at least four White pawns each blocked
/// by a Black pawn right in front; every file holds White pawns below the seventh rank exactly when it holds
/// Black pawns above the second), and the lowest gap of such a structure: a square between a White pawn and a
/// Black pawn two squares ahead of it, on ranks 3 to 6. For move ordering only (after CHA), never a proof.
pub(super) fn lock_state(b: &Board) -> (bool, Option<Square>) {
    if !(b.role(Role::Knight) | b.role(Role::Rook) | b.role(Role::Queen)).is_empty() {
        return (false, None);
    }
    let (wp, bp) = (
        b.pieces(Color::White, Role::Pawn),
        b.pieces(Color::Black, Role::Pawn),
    );
    if (wp.forward(Color::White) & bp).count() < 4 {
        return (false, None);
    }
    if (wp & !Bitboard::rank(6)).files() != (bp & !Bitboard::rank(1)).files() {
        return (false, None);
    }
    let middle = Bitboard(0x0000_FFFF_FFFF_0000);
    let gap = wp.forward(Color::White) & bp.forward(Color::Black) & middle;
    (true, gap.first())
}
