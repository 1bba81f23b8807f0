//! (b) The cooperative helpmate search (FIDE 1.5, 6.9: "by any possible series of legal moves"): both sides
//! play for the loser's checkmate. It only ever proves `Winnable` (with the line); it never proves anything
//! unwinnable, so its prunings and move-ordering heuristics cannot make an answer unsound.

use super::blocked::{blocked_reason, may_unblock};
use super::material::material_rule;
use super::{in_check, legal, Limit, DARK, LIGHT};
use crate::fast::attacks::{between, line, KING, KNIGHT, PAWN};
use crate::fast::board::{
    Board, CastlingData, BISHOP_I, KING_I, KNIGHT_I, NO_EP, PAWN_I, QUEEN_I, ROOK_I,
};
use crate::types::Color;
use std::sync::OnceLock;
use std::time::Instant;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;

/// Longest helpmate the depth-first search follows (plies).
const MAX_PLY: usize = 500;
/// Beyond this many plies the helpmate search rewards no progress (it would otherwise wander forever).
const REWARD_PLY: usize = 400;
/// Depth cost of a move that undoes progress (measured on CHA's vectors: 1 found more helpmates than 2 or 3;
/// such moves still lose the free move that follows progress).
const PUNISH: i32 = 1;

/// Knight distances between squares.
fn knight_distance(a: usize, b: usize) -> u8 {
    static TABLE: OnceLock<Vec<[u8; 64]>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        (0..64)
            .map(|from| {
                let mut d = [u8::MAX; 64];
                d[from] = 0;
                let mut frontier = 1u64 << from;
                let mut seen = frontier;
                let mut k = 0;
                while frontier != 0 {
                    k += 1;
                    let mut next = 0;
                    let mut bits = frontier;
                    while bits != 0 {
                        next |= KNIGHT[bits.trailing_zeros() as usize];
                        bits &= bits - 1;
                    }
                    next &= !seen;
                    seen |= next;
                    let mut bits = next;
                    while bits != 0 {
                        d[bits.trailing_zeros() as usize] = k;
                        bits &= bits - 1;
                    }
                    frontier = next;
                }
                d
            })
            .collect()
    });
    t[a][b]
}

fn king_distance(a: usize, b: usize) -> u8 {
    let (fa, ra, fb, rb) = (a % 8, a / 8, b % 8, b / 8);
    fa.abs_diff(fb).max(ra.abs_diff(rb)) as u8
}

/// Whether moving `role` from `from` to `to` brings it closer to `target` (slow pieces only).
fn closer(role: usize, from: usize, to: usize, target: usize) -> bool {
    match role {
        KING_I | BISHOP_I => king_distance(to, target) < king_distance(from, target),
        KNIGHT_I => knight_distance(to, target) < knight_distance(from, target),
        _ => false,
    }
}

/// The corner the search drives the loser's king to: on the winner's eighth rank, dark when the winner has a
/// dark bishop (or no bishop while the loser has a light one), else light. Returns (corner, winner's king
/// target two ranks off it, the loser's blocking square beside it).
fn corner(b: &Board, winner: usize) -> (usize, usize, usize) {
    let wb = b.roles[BISHOP_I] & b.colors[winner];
    let lb = b.roles[BISHOP_I] & b.colors[winner ^ 1];
    let dark = wb & DARK != 0 || (wb == 0 && lb & LIGHT != 0);
    // White winner: h8 (dark) or a8 (light); Black winner: a1 (dark) or h1 (light).
    let (corner, king, block): (usize, usize, usize) = match (winner, dark) {
        (0, true) => (63, 47, 62),
        (0, false) => (56, 40, 57),
        (_, true) => (0, 16, 1),
        (_, false) => (7, 23, 6),
    };
    (corner, king, block)
}

/// Whether the winner can only mate with the help of a piece the loser still has to promote (a heuristic for
/// move ordering only, after CHA): the winner has king and one knight while the loser has no knight, bishop
/// or rook; or the winner has only bishops of one colour while no bishop of the other colour and no loser's
/// knight is on the board.
fn loser_must_promote(b: &Board, winner: usize) -> bool {
    let (wp, lp) = (b.colors[winner], b.colors[winner ^ 1]);
    let r = &b.roles;
    let w_count = wp.count_ones();
    if w_count == 2
        && (r[KNIGHT_I] & wp).count_ones() == 1
        && lp & (r[KNIGHT_I] | r[BISHOP_I] | r[ROOK_I]) == 0
    {
        return true;
    }
    let wb = r[BISHOP_I] & wp;
    if wb == 0 || w_count != wb.count_ones() + 1 {
        return false;
    }
    let colour = if wb & DARK != 0 { DARK } else { LIGHT };
    r[BISHOP_I] & !colour == 0 && lp & r[KNIGHT_I] == 0
}

/// The transposition table of one helpmate search: two-way buckets of (key, check, generation and budget),
/// fixed size. Losing an entry only costs work: the table prunes, it proves nothing.
struct Table {
    entries: Vec<[u64; 3]>,
    mask: usize,
    generation: u64,
}

thread_local! {
    /// The last search's entries and generation on this thread, reused (no allocation or clearing per query).
    static SPARE: std::cell::Cell<Option<(Vec<[u64; 3]>, u64)>> = const { std::cell::Cell::new(None) };
}

impl Table {
    fn new(node_limit: u64) -> Table {
        let size = (node_limit.clamp(1 << 10, 1 << 18) as usize).next_power_of_two();
        let (mut entries, mut generation) = SPARE.take().unwrap_or_default();
        if entries.len() < size {
            entries = vec![[0; 3]; size];
        }
        // Entries of earlier searches carry older generations: stale.
        generation += 1;
        Table {
            entries,
            mask: size - 2,
            generation,
        }
    }

    /// Record that `b` is searched with `budget` (≥ 0); false when it was searched with at least that already.
    #[inline]
    fn visit(&mut self, b: &Board, budget: i32) -> bool {
        let i = b.key as usize & self.mask;
        let stamp = self.generation << 32 | budget as u64;
        let mut victim = i;
        let mut victim_worth = u64::MAX;
        for j in [i, i + 1] {
            let e = &mut self.entries[j];
            let live = e[2] >> 32 == self.generation;
            if live && e[0] == b.key && e[1] == b.check {
                if (e[2] & 0xFFFF_FFFF) as i32 >= budget {
                    return false;
                }
                e[2] = stamp;
                return true;
            }
            // Replace a stale entry, else the one searched with the smaller budget.
            let worth = if live { 1 + (e[2] & 0xFFFF_FFFF) } else { 0 };
            if worth < victim_worth {
                (victim, victim_worth) = (j, worth);
            }
        }
        self.entries[victim] = [b.key, b.check, stamp];
        true
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        SPARE.set(Some((std::mem::take(&mut self.entries), self.generation)));
    }
}

/// How one search orders moves and prices them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Style {
    /// Generation order, [`PUNISH`] for moves that undo progress (the short probe).
    Probe,
    /// Progress moves first, then the rest, each in our generation order (king moves first); [`PUNISH`].
    Ordered,
    /// Progress moves first, then the rest, each in CHA's generation order ([`sf_order`]: pawn moves first, the
    /// king last); [`PUNISH`].
    OrderedPawns,
    /// CHA's search as it is: its generation order ([`sf_order`]), moves that undo progress cost [`PUNISH_CHA`],
    /// the loser's captures are punished even where it must promote, iterations from budget 1 with a node share
    /// growing with the budget. For the diagnostics in the tests (it finds CHA's lines in about CHA's node
    /// counts); as a second search beside [`Style::Ordered`] it cost more queries than it decided at 500,000
    /// nodes (docs/dead-positions.md).
    #[cfg_attr(not(test), allow(dead_code))]
    Cha,
}

/// Depth cost of a move that undoes progress in [`Style::Cha`] (CHA's: two plies more than a normal move).
const PUNISH_CHA: i32 = 3;

/// What one node of the search knows for pricing its moves.
struct Node {
    winners_turn: bool,
    winner: usize,
    targets: (usize, usize, usize),
    them: u64,
    loser_must_promote: bool,
    locked: bool,
    gap: Option<usize>,
    in_gap: bool,
    loser_bishops: u32,
    rewards: bool,
}

impl Node {
    fn new(
        b: &Board,
        winner: usize,
        targets: (usize, usize, usize),
        was_gap: bool,
        rewards: bool,
    ) -> Node {
        let winners_turn = b.turn as usize == winner;
        let (locked, gap) = lock_state(b);
        Node {
            winners_turn,
            winner,
            targets,
            them: b.colors[b.turn as usize ^ 1],
            loser_must_promote: !winners_turn && loser_must_promote(b, winner),
            locked,
            gap,
            in_gap: locked && (gap.is_some() || was_gap),
            loser_bishops: (b.roles[BISHOP_I] & b.colors[winner ^ 1]).count_ones(),
            rewards,
        }
    }

    /// The depth cost of `m` and whether it makes progress; `progress`: the move that led here made progress.
    #[inline]
    fn classify(&self, m: u32, progress: bool, style: Style) -> (i32, bool) {
        let (corner, king_target, block) = self.targets;
        let from = ((m >> 6) & 63) as usize;
        let to = (m & 63) as usize;
        let role = (m >> 16) as usize;
        let capture = self.them & (1 << to) != 0 || (m >> 14) & 3 == 2;
        let promotion = ((m >> 14) & 3 == 1).then_some((m >> 12) & 3);
        // Progress (cost 0): the winner captures, pushes a pawn beyond its fifth rank, or brings its king
        // (toward the square two ranks off the corner) or a knight (toward the corner) closer; the loser
        // brings its king into the corner or a knight to the blocking square beside it, or pushes a
        // pawn when only a promoted piece of its own could let the winner mate.
        let slow = role == KING_I || role == KNIGHT_I;
        let (mut reward, mut punish) = if self.winners_turn {
            let rank = if self.winner == 0 { to / 8 } else { 7 - to / 8 };
            let target = if role == KING_I { king_target } else { corner };
            (
                capture
                    || (role == PAWN_I && rank >= 5)
                    || (slow && closer(role, from, to, target)),
                false,
            )
        } else {
            let target = if role == KING_I { corner } else { block };
            if slow && closer(role, from, to, target) {
                (true, false)
            } else if style == Style::Cha && capture {
                (false, true)
            } else if self.loser_must_promote {
                // Queen and rook promotions do not help (they are not what the winner needs).
                let useful = role == PAWN_I && !matches!(promotion, Some(2 | 3));
                (useful, !useful)
            } else {
                (false, capture)
            }
        };
        // Locked pawns and bishops only (after CHA's semi-blocked rule): once the line meets a gap
        // between two facing pawns, only the winner's captures and the kings' walks toward the gap are
        // progress, other king moves are normal and the rest is punished; before that, bishops heading
        // for the mating corner are progress when the loser has more than one bishop.
        if self.in_gap {
            (reward, punish) = if capture && self.winners_turn {
                (true, false)
            } else if role == KING_I {
                (self.gap.is_some_and(|g| closer(KING_I, from, to, g)), false)
            } else {
                (false, true)
            };
        } else if self.locked && role == BISHOP_I && self.loser_bishops > 1 {
            let target = if self.winners_turn { corner } else { block };
            reward |= closer(BISHOP_I, from, to, target);
        }
        let reward = reward && self.rewards;
        // Cost: 0 for progress, 1 normal (0 right after progress), more for moves that undo it.
        let cost = if reward {
            0
        } else if punish {
            if style == Style::Cha {
                PUNISH_CHA
            } else {
                PUNISH
            }
        } else if progress {
            0
        } else {
            1
        };
        (cost, reward)
    }
}

struct Search<'a> {
    cd: &'a CastlingData,
    winner: usize,
    targets: (usize, usize, usize),
    nodes: u64,
    node_limit: u64,
    /// Nodes of the current iteration, and the most one iteration may visit before the next, deeper one.
    local: u64,
    local_limit: u64,
    deadline: Option<Instant>,
    stopped: Option<Limit>,
    /// (key, check) → the largest budget a position was searched with (no mate found, or in progress).
    tt: Table,
    path: Vec<u32>,
    style: Style,
    /// [`sf_order`]'s lists, one per ply (reused), and its scratch table.
    orders: Vec<Vec<u32>>,
    index: Box<[u8; 4096]>,
}

impl Search<'_> {
    /// Whether to stop: a global limit (recorded in `stopped`) or this iteration's node share.
    fn out_of_time(&mut self) -> bool {
        if self.stopped.is_some() {
            return true;
        }
        if self.nodes >= self.node_limit {
            self.stopped = Some(Limit::Nodes);
        } else if self.nodes.is_multiple_of(1024)
            && self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.stopped = Some(Limit::Time);
        }
        self.stopped.is_some() || self.local >= self.local_limit
    }

    /// Depth-first helpmate search with `budget` left; moves that make progress cost nothing. `recheck`: the
    /// move that led here captured, moved a pawn or castled, so the blocked-structure proof may now hold (after
    /// any other move it cannot change: every piece stays in its region); `was_gap`: the line went through a
    /// locked structure with a gap (see [`lock_state`]).
    fn search(
        &mut self,
        b: &Board,
        budget: i32,
        progress: bool,
        recheck: bool,
        was_gap: bool,
    ) -> bool {
        self.nodes += 1;
        self.local += 1;
        if self.out_of_time() {
            return false;
        }
        let winner = if self.winner == 0 {
            Color::White
        } else {
            Color::Black
        };
        // No checkmate of the loser where a material rule holds (the rule covers the position itself).
        if material_rule(b, winner).is_some() {
            return false;
        }
        // A leaf: only a checkmate counts, and only the loser in check can be checkmated (no move generation
        // for the other leaves, most of the tree).
        let loser_to_move = b.turn as usize != self.winner;
        if budget < 0 || self.path.len() >= MAX_PLY {
            return loser_to_move && in_check(b) && legal(b, self.cd).as_slice().is_empty();
        }
        let list = legal(b, self.cd);
        let moves = list.as_slice();
        if moves.is_empty() {
            return loser_to_move && in_check(b);
        }
        // A sound cut: no mate below a proved blocked structure.
        if recheck && blocked_reason(b, winner).is_some() {
            return false;
        }
        if !self.tt.visit(b, budget) {
            return false;
        }
        let ctx = Node::new(
            b,
            self.winner,
            self.targets,
            was_gap,
            self.path.len() < REWARD_PLY,
        );
        let style = self.style;
        let search_move = |s: &mut Self, m: u32| -> Option<bool> {
            let (cost, reward) = ctx.classify(m, progress, style);
            let child = b.make::<true>(s.cd, m);
            s.path.push(m);
            if s.search(&child, budget - cost, reward, may_unblock(b, m), ctx.in_gap) {
                return Some(true);
            }
            s.path.pop();
            if s.stopped.is_some() || s.local >= s.local_limit {
                return Some(false);
            }
            None
        };
        match style {
            // Generation order (the short probe: it looks for short mates, which progress-first lines would
            // pass by for long ones).
            Style::Probe => {
                for &m in moves {
                    if let Some(r) = search_move(self, m) {
                        return r;
                    }
                }
            }
            // Progress first, then the rest (on CHA's vectors this found 21 more of the 104 helpmates the
            // generation order missed at the default limits), in our generation order or CHA's.
            Style::Ordered | Style::OrderedPawns | Style::Cha => {
                let ply = self.path.len();
                if self.orders.len() <= ply {
                    self.orders.resize_with(ply + 1, Vec::new);
                }
                let mut order = std::mem::take(&mut self.orders[ply]);
                if style == Style::Ordered {
                    order.clear();
                    order.extend_from_slice(moves);
                } else {
                    sf_order(b, moves, &mut order, &mut self.index);
                }
                let passes: &[Option<bool>] = if style != Style::Cha {
                    &[Some(true), Some(false)]
                } else {
                    &[None]
                };
                let mut result = None;
                'outer: for &pass in passes {
                    for &m in &order {
                        if pass.is_some_and(|p| ctx.classify(m, progress, style).1 != p) {
                            continue;
                        }
                        if let Some(r) = search_move(self, m) {
                            result = Some(r);
                            break 'outer;
                        }
                    }
                }
                self.orders[ply] = order;
                if let Some(r) = result {
                    return r;
                }
            }
        }
        false
    }
}

/// `moves` (the legal moves of `b`) in the order a Stockfish-style generator lists them, the order in which CHA's
/// search tries moves: pseudo-legal moves generated pawns first (single pushes, double pushes, promotions as
/// queen, rook, bishop, knight (a checking knight right after the queen), captures toward the h-file side of
/// the mover then the other, en passant), then knights, bishops, rooks, queens, each piece's targets from a1 up,
/// the king last (first when in check, only on squares off the checking lines); then each illegal one is
/// replaced by the last move of the list. A search heuristic only: any legal move it would not place is
/// appended, so `out` is always a permutation of `moves`.
/// `index` is all zero on entry and on return.
fn sf_order(b: &Board, moves: &[u32], out: &mut Vec<u32>, index: &mut [u8; 4096]) {
    out.clear();
    if moves.len() > 256 {
        out.extend_from_slice(moves);
        return;
    }
    let us = b.turn as usize;
    let white = us == 0;
    let (own, opp) = (b.colors[us], b.colors[us ^ 1]);
    let occ = own | opp;
    let r = &b.roles;
    let ksq = (r[KING_I] & own).trailing_zeros() as usize;
    let their_king = (r[KING_I] & opp).trailing_zeros() as usize & 63;
    // The legal moves by (from, to): index + 1 in `moves` (the queen of a promotion's four).
    for (i, &m) in moves.iter().enumerate().rev() {
        index[(m & 0xFFF) as usize] = i as u8 + 1;
    }
    let mut emitted = [0u64; 4];
    // The pseudo-legal list: a legal move, or `u32::MAX` for an illegal one.
    let mut pseudo: [u32; 320] = [u32::MAX; 320];
    let mut n = 0usize;
    let mut push = |from: usize, to: usize, promo: Option<u32>| {
        if n >= pseudo.len() {
            return;
        }
        let i = index[from << 6 | to] as usize;
        pseudo[n] = if i == 0 {
            u32::MAX
        } else {
            // Promotions are listed queen, rook, bishop, knight.
            let j = i - 1 + promo.map_or(0, |p| 3 - p as usize);
            emitted[j / 64] |= 1 << (j % 64);
            moves[j]
        };
        n += 1;
    };
    let checkers = super::checkers(b);
    let each = |mut bb: u64, f: &mut dyn FnMut(usize)| {
        while bb != 0 {
            f(bb.trailing_zeros() as usize);
            bb &= bb - 1;
        }
    };
    let target = if checkers != 0 {
        // Evasions: king moves first, off the lines of the checking sliders.
        let mut slider_lines = 0u64;
        each(checkers & !(r[KNIGHT_I] | r[PAWN_I]), &mut |s| {
            slider_lines |= line(ksq, s) & !checkers;
        });
        each(KING[ksq] & !own & !slider_lines, &mut |to| {
            push(ksq, to, None)
        });
        if checkers & (checkers - 1) != 0 {
            0
        } else {
            let c = checkers.trailing_zeros() as usize;
            between(ksq, c) | checkers
        }
    } else {
        !own
    };
    if target != 0 {
        let pawns = r[PAWN_I] & own;
        let (rank7, rank3) = if white {
            (0xFFu64 << 48, 0xFFu64 << 16)
        } else {
            (0xFF00, 0xFFu64 << 40)
        };
        let up = |bb: u64| if white { bb << 8 } else { bb >> 8 };
        // Toward the h-file for White, the a-file for Black ("up-right"), then the other diagonal.
        let up_right = |bb: u64| {
            if white {
                (bb & !FILE_H) << 9
            } else {
                (bb & !FILE_A) >> 9
            }
        };
        let up_left = |bb: u64| {
            if white {
                (bb & !FILE_A) << 7
            } else {
                (bb & !FILE_H) >> 7
            }
        };
        let (d_up, d_right, d_left): (i32, i32, i32) = if white { (8, 9, 7) } else { (-8, -9, -7) };
        let back = |to: usize, d: i32| (to as i32 - d) as usize;
        let empty = !occ;
        let enemies = opp & target;
        let (on7, not7) = (pawns & rank7, pawns & !rank7);
        let b1 = up(not7) & empty;
        let b2 = up(b1 & rank3) & empty;
        each(b1 & target, &mut |to| push(back(to, d_up), to, None));
        each(b2 & target, &mut |to| {
            push(back(back(to, d_up), d_up), to, None)
        });
        if on7 != 0 {
            let mut promote = |from: usize, to: usize| {
                let check = KNIGHT[to] & (1 << their_king) != 0;
                push(from, to, Some(3));
                if check {
                    push(from, to, Some(0));
                }
                push(from, to, Some(2));
                push(from, to, Some(1));
                if !check {
                    push(from, to, Some(0));
                }
            };
            each(up_right(on7) & enemies, &mut |to| {
                promote(back(to, d_right), to)
            });
            each(up_left(on7) & enemies, &mut |to| {
                promote(back(to, d_left), to)
            });
            each(up(on7) & empty & target, &mut |to| {
                promote(back(to, d_up), to)
            });
        }
        each(up_right(not7) & enemies, &mut |to| {
            push(back(to, d_right), to, None)
        });
        each(up_left(not7) & enemies, &mut |to| {
            push(back(to, d_left), to, None)
        });
        if b.ep != NO_EP {
            let ep = b.ep as usize;
            if checkers == 0 || target & (1u64 << back(ep, d_up)) != 0 {
                each(not7 & PAWN[us ^ 1][ep], &mut |from| push(from, ep, None));
            }
        }
        for role in [KNIGHT_I, BISHOP_I, ROOK_I, QUEEN_I] {
            each(r[role] & own, &mut |from| {
                each(super::attacks(role, from, occ) & target, &mut |to| {
                    push(from, to, None)
                });
            });
        }
        if checkers == 0 {
            each(KING[ksq] & target, &mut |to| push(ksq, to, None));
            // Castling, the h-side rook first.
            let mut castles: [Option<u32>; 2] = [None, None];
            for &m in moves {
                if (m >> 14) & 3 == 3 {
                    let k = usize::from(castles[0].is_some());
                    castles[k] = Some(m);
                }
            }
            if let [Some(a), Some(c)] = castles {
                if (a & 63) < (c & 63) {
                    castles = [Some(c), Some(a)];
                }
            }
            for m in castles.into_iter().flatten() {
                push(((m >> 6) & 63) as usize, (m & 63) as usize, None);
            }
        }
    }
    for &m in moves {
        index[(m & 0xFFF) as usize] = 0;
    }
    // Legal filter: an illegal move is replaced by the last one.
    let (mut cur, mut end) = (0, n);
    while cur < end {
        if pseudo[cur] == u32::MAX {
            end -= 1;
            pseudo[cur] = pseudo[end];
        } else {
            cur += 1;
        }
    }
    out.extend_from_slice(&pseudo[..end]);
    if out.len() < moves.len() {
        for (j, &m) in moves.iter().enumerate() {
            if emitted[j / 64] & (1 << (j % 64)) == 0 {
                out.push(m);
            }
        }
    }
}

/// Whether `b` is a locked pawn structure (no knights, rooks or queens; at least four White pawns each blocked
/// by a Black pawn right in front; every file holds White pawns below the seventh rank exactly when it holds
/// Black pawns above the second), and the lowest gap of such a structure: a square between a White pawn and a
/// Black pawn two squares ahead of it, on ranks 3 to 6. For move ordering only (after CHA), never a proof.
fn lock_state(b: &Board) -> (bool, Option<usize>) {
    let r = &b.roles;
    if r[KNIGHT_I] | r[ROOK_I] | r[QUEEN_I] != 0 {
        return (false, None);
    }
    let (wp, bp) = (r[PAWN_I] & b.colors[0], r[PAWN_I] & b.colors[1]);
    if ((wp << 8) & bp).count_ones() < 4 {
        return (false, None);
    }
    let files = |bb: u64| {
        let mut f = 0u8;
        let mut bits = bb;
        while bits != 0 {
            f |= 1 << (bits.trailing_zeros() % 8);
            bits &= bits - 1;
        }
        f
    };
    if files(wp & !0x00FF_0000_0000_0000) != files(bp & !0xFF00) {
        return (false, None);
    }
    let gap = (wp << 8) & (bp >> 8) & 0x0000_FFFF_FFFF_0000;
    (true, (gap != 0).then(|| gap.trailing_zeros() as usize))
}

/// A helpmate search from one root with iterative deepening (budgets from 0 up, each iteration at most
/// `local_limit` nodes), which can be resumed with more nodes: it goes on with the next budget and keeps its
/// table.
pub(super) struct Helpmate<'a> {
    s: Search<'a>,
    root: Board,
    next_budget: i32,
    max_budget: i32,
    /// Nodes of one iteration ([`Style::Cha`]: per unit of budget).
    local_base: u64,
}

impl<'a> Helpmate<'a> {
    /// `size_hint`: the most nodes it will be given in all (sizes the table).
    pub(super) fn new(
        root: &Board,
        cd: &'a CastlingData,
        winner: usize,
        local_limit: u64,
        max_budget: i32,
        size_hint: u64,
        deadline: Option<Instant>,
    ) -> Helpmate<'a> {
        Helpmate {
            s: Search {
                cd,
                winner,
                targets: corner(root, winner),
                nodes: 0,
                node_limit: 0,
                local: 0,
                local_limit,
                deadline,
                stopped: None,
                tt: Table::new(size_hint),
                path: Vec::new(),
                style: Style::Ordered,
                orders: Vec::new(),
                index: Box::new([0; 4096]),
            },
            root: *root,
            next_budget: 0,
            max_budget,
            local_base: local_limit,
        }
    }

    /// The same search with another [`Style`] ([`Style::Ordered`] by default).
    pub(super) fn with_style(mut self, style: Style) -> Helpmate<'a> {
        self.s.style = style;
        // CHA starts at its depth 2.
        self.next_budget = i32::from(style == Style::Cha);
        self
    }

    /// Search on with at most `nodes` more nodes: the mate's moves, or the limit that stopped it
    /// ([`Limit::Quick`] when every budget up to the maximum was searched), and the nodes visited in this call.
    ///
    /// The table is kept from one iteration to the next and across calls (after CHA): a position searched with
    /// a budget at least as large, in this iteration or an earlier one, is not searched again. On CHA's vectors
    /// this found 23 more of the 104 helpmates that clearing it per iteration missed; together with a fixed
    /// iteration share and progress moves first, 37. An iteration cut short by the node limit is not redone:
    /// the next call starts with the next budget, which covers it.
    pub(super) fn run(&mut self, nodes: u64) -> (std::result::Result<Vec<u32>, Limit>, u64) {
        let s = &mut self.s;
        let start = s.nodes;
        s.node_limit = start.saturating_add(nodes);
        s.stopped = None;
        while self.next_budget <= self.max_budget {
            let budget = self.next_budget;
            self.next_budget += 1;
            s.local = 0;
            // CHA's share grows with the depth (budget + 1 is its maximum depth).
            if s.style == Style::Cha {
                s.local_limit = self.local_base * (budget as u64 + 1);
            }
            s.path.clear();
            if s.search(&self.root, budget, false, false, false) {
                return (Ok(std::mem::take(&mut s.path)), s.nodes - start);
            }
            if let Some(limit) = s.stopped {
                return (Err(limit), s.nodes - start);
            }
        }
        (Err(Limit::Quick), s.nodes - start)
    }
}

/// One [`Helpmate`] search with at most `node_limit` nodes, moves in generation order (the short probe).
pub(super) fn helpmate_search(
    root: &Board,
    cd: &CastlingData,
    winner: usize,
    node_limit: u64,
    local_limit: u64,
    max_budget: i32,
    deadline: Option<Instant>,
) -> (std::result::Result<Vec<u32>, Limit>, u64) {
    let mut h = Helpmate::new(
        root,
        cd,
        winner,
        local_limit,
        max_budget,
        node_limit,
        deadline,
    )
    .with_style(Style::Probe);
    h.run(node_limit)
}

#[cfg(test)]
mod explain {
    //! Why a search misses a known helpmate: the depth budget each style needs for the line (the sum of its
    //! move costs), and how many nodes each style takes from the root (diagnostics, run by hand).
    use super::*;
    use crate::fast::movegen::to_move;
    use crate::validate::Checked;

    /// Each style's cost of `line` from `root` (all moves but the last: the last node is a leaf) and the moves
    /// the style punishes.
    fn line_cost(
        root: &Board,
        cd: &CastlingData,
        winner: usize,
        line: &[u32],
        style: Style,
    ) -> (i32, Vec<usize>) {
        let targets = corner(root, winner);
        let (mut b, mut progress, mut was_gap, mut cost, mut punished) =
            (*root, false, false, 0, Vec::new());
        for (i, &m) in line.iter().enumerate() {
            let ctx = Node::new(&b, winner, targets, was_gap, i < REWARD_PLY);
            let (c, reward) = ctx.classify(m, progress, style);
            if i + 1 < line.len() {
                cost += c;
            }
            if c > 1 || (c == 1 && progress) {
                punished.push(i);
            }
            progress = reward;
            was_gap = ctx.in_gap;
            b = b.make::<true>(cd, m);
        }
        (cost, punished)
    }

    /// [`sf_order`] is a permutation of the legal moves (every move once) and leaves its table clear, along
    /// random games from positions with castling (standard and Chess960), en passant, promotions and checks.
    #[test]
    fn sf_order_permutes_the_legal_moves() {
        let mut index = Box::new([0u8; 4096]);
        let mut out = Vec::new();
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut checked = 0;
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1",
            "r3k2r/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQkq c6 0 1",
            "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1",
        ] {
            let pos = Checked::from_fen(fen).unwrap();
            let (root, cd) = Board::from_setup(pos.setup());
            for _ in 0..20 {
                let mut b = root;
                for _ in 0..60 {
                    let list = legal(&b, &cd);
                    let moves = list.as_slice();
                    if moves.is_empty() {
                        break;
                    }
                    sf_order(&b, moves, &mut out, &mut index);
                    let (mut want, mut got) = (moves.to_vec(), out.clone());
                    want.sort_unstable();
                    got.sort_unstable();
                    assert_eq!(want, got, "{}", b.to_setup(&cd).to_fen());
                    assert!(index.iter().all(|&x| x == 0));
                    checked += 1;
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    b = b.make::<true>(&cd, moves[(seed >> 33) as usize % moves.len()]);
                }
            }
        }
        assert!(checked > 3_000, "{checked}");
    }

    /// In the position before a king-and-queen mate, CHA's order lists pawn pushes, then promotions (queen,
    /// rook, bishop, knight), then the pieces, the king last (Stockfish's movegen.cpp, `generate_all`).
    #[test]
    fn sf_order_lists_pawns_first_and_the_king_last() {
        let pos = Checked::from_fen("4k3/P7/8/8/8/8/1P6/4K2R w K - 0 1").unwrap();
        let (b, cd) = Board::from_setup(pos.setup());
        let list = legal(&b, &cd);
        let mut out = Vec::new();
        sf_order(&b, list.as_slice(), &mut out, &mut Box::new([0u8; 4096]));
        let uci: Vec<String> = out.iter().map(|&m| to_move(m).to_uci(false)).collect();
        assert_eq!(
            uci.join(" "),
            "b2b3 b2b4 a7a8q a7a8r a7a8b a7a8n h1f1 h1g1 h1h2 h1h3 h1h4 h1h5 h1h6 h1h7 h1h8 \
             e1d1 e1f1 e1d2 e1e2 e1f2 e1g1"
        );
    }

    /// `HM_LINES=/path/und-main.cha.txt cargo test --release --lib explain -- --ignored --nocapture`
    #[test]
    #[ignore = "diagnostics by hand: needs a file of CHA's answers"]
    fn explain_lines() {
        let Ok(path) = std::env::var("HM_LINES") else {
            return;
        };
        for l in std::fs::read_to_string(path).unwrap().lines() {
            let Some(rest) = l.strip_prefix("winnable ") else {
                continue;
            };
            let (moves, tail) = rest.split_once('#').unwrap();
            let q = tail.split_once('(').unwrap().1.trim_end_matches(')');
            let (fen, side) = q.rsplit_once(' ').unwrap();
            let winner = usize::from(side == "black");
            let pos = Checked::from_fen(fen).unwrap();
            let (root, cd) = Board::from_setup(pos.setup());
            let mut b = root;
            let mut line = Vec::new();
            for u in moves.split_whitespace() {
                let list = legal(&b, &cd);
                let m = *list
                    .as_slice()
                    .iter()
                    .find(|&&m| to_move(m).to_uci(false) == u)
                    .unwrap();
                line.push(m);
                b = b.make::<true>(&cd, m);
            }
            print!("{q}: {} plies;", line.len());
            for style in [Style::Ordered, Style::OrderedPawns, Style::Cha] {
                let (cost, punished) = line_cost(&root, &cd, winner, &line, style);
                let local = match style {
                    Style::Cha => 10_000,
                    Style::OrderedPawns => crate::analyze::dead::PAWNS_ITERATION_NODES,
                    _ => crate::analyze::dead::ITERATION_NODES,
                };
                let mut h = Helpmate::new(&root, &cd, winner, local, i32::MAX - 1, 4_000_000, None)
                    .with_style(style);
                let (found, nodes) = h.run(4_000_000);
                print!(
                    " {style:?}: needs budget {cost}, punishes plies {punished:?}, finds {} in {nodes} nodes (last budget {});",
                    found.map_or("none".into(), |l| format!("{} plies", l.len())),
                    h.next_budget - 1
                );
            }
            println!();
        }
    }
}
