//! (b) The cooperative helpmate search (FIDE 1.5, 6.9: "by any possible series of legal moves"): both sides
//! play for the loser's checkmate. It only ever proves `Winnable` (with the line); it never proves anything
//! unwinnable, so its prunings and move-ordering heuristics cannot make an answer unsound.

use super::blocked::{blocked_reason, may_unblock};
use super::material::material_rule;
use super::{in_check, legal_into, no_legal_move, Limit, DARK, LIGHT};
use crate::bitboard::attacks::{between, line, MagicSliders, Sliders, KNIGHT, PAWN};
use crate::bitboard::board::{
    Board, CastlingData, BISHOP_I, KING_I, KNIGHT_I, PAWN_I, QUEEN_I, ROOK_I,
};
use crate::types::{Color, KNIGHT_STEPS};
use std::time::Instant;

/// Longest helpmate the depth-first search follows (plies).
const MAX_PLY: usize = 500;
/// Beyond this many plies the helpmate search rewards no progress (it would otherwise wander forever).
const REWARD_PLY: usize = 400;
/// The budgets of the iterations: each next one is `1 + budget / BUDGET_STEP_DIVISOR` larger (0, 1, 2, 3, 4, 6,
/// 8, 11, 14, 18, …). Beyond a few plies an iteration costs hardly more than the one before (progress moves are
/// free), so steps of one spent most nodes re-searching; a search with a larger budget finds every mate a
/// smaller one finds (within its node share). On CHA's vectors at the default limits (3,606 queries; node counts are deterministic):
/// steps of one left 15 undetermined with 177.2 million nodes in all; divisor 3: 14, 161.3M; 4: 8, 159.9M;
/// 5: 14, 164.5M; 6: 11, 163.1M.
const BUDGET_STEP_DIVISOR: i32 = 4;
/// Depth cost of a move that undoes progress (measured on CHA's vectors: 1 found more helpmates than 2 or 3;
/// such moves still lose the free move that follows progress).
const PUNISH: i32 = 1;

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
fn closer(role: usize, from: usize, to: usize, target: usize) -> bool {
    let d = match role {
        KING_I | BISHOP_I => &DISTANCE[0][target],
        KNIGHT_I => &DISTANCE[1][target],
        _ => return false,
    };
    d[to] < d[from]
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

/// The transposition table of one helpmate search: four-way buckets of one word per entry (40 bits of the
/// position's check hash, an 8-bit generation, a 16-bit budget), fixed size. A bucket is 32 bytes, half a cache
/// line, and the whole table at most 2 MiB, so that it mostly stays in the core's cache (its loads were the
/// search's largest cost with three-word entries). Losing an entry, or a rare false match of the 40 check bits,
/// only costs work or a missed helpmate: the table prunes, it proves nothing.
struct Table {
    buckets: Vec<Bucket>,
    mask: usize,
    /// The current generation (1 to 255; 0 is never live).
    generation: u64,
}

thread_local! {
    /// The last search's entries and generation on this thread, reused (no allocation or clearing per query).
    static SPARE: std::cell::Cell<Option<(Vec<Bucket>, u64)>> = const { std::cell::Cell::new(None) };
}

/// Four entries, aligned so that a bucket never straddles two cache lines.
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Bucket([u64; 4]);

impl Table {
    fn new(node_limit: u64) -> Table {
        // Entries: the node limit, from 2^10 to 2^18 (measured: 2^16 missed helpmates, 2^20 found no more).
        let size = (node_limit.clamp(1 << 10, 1 << 18) as usize).next_power_of_two() / 4;
        let (mut buckets, mut generation) = SPARE.take().unwrap_or_default();
        if buckets.len() < size {
            buckets = vec![Bucket::default(); size];
            generation = 0;
        }
        // Entries of earlier searches carry older generations: stale. The generation has 8 bits: when it
        // wraps, the table is cleared, so an old entry can never look live again.
        generation = (generation + 1) & 0xFF;
        if generation == 0 {
            buckets.fill(Bucket::default());
            generation = 1;
        }
        Table {
            buckets,
            mask: size - 1,
            generation,
        }
    }

    /// Start loading the bucket of `key` into the cache (a hint: no effect on what is stored).
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p: *const Bucket = &self.buckets[key as usize & self.mask];
            // SAFETY: SSE is part of every x86_64 target; a prefetch only hints the cache (it reads nothing
            // and cannot fault), and `p` points into the table anyway.
            #[allow(unsafe_code)]
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    p as *const i8,
                )
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Record that `b` is searched with `budget` (≥ 0); false when it was searched with at least that already.
    #[inline]
    fn visit(&mut self, b: &Board, budget: i32) -> bool {
        let i = b.key as usize & self.mask;
        let id = b.check & !0xFF_FFFF;
        let budget = budget.min(0xFFFF) as u64;
        let entry = id | self.generation << 16 | budget;
        let bucket = &mut self.buckets[i].0;
        let mut victim = 0;
        let mut victim_worth = u64::MAX;
        for (j, e) in bucket.iter_mut().enumerate() {
            let live = (*e >> 16) & 0xFF == self.generation;
            if live && *e & !0xFF_FFFF == id {
                if *e & 0xFFFF >= budget {
                    return false;
                }
                *e = entry;
                return true;
            }
            // Replace a stale entry, else the one searched with the smallest budget.
            let worth = if live { 1 + (*e & 0xFFFF) } else { 0 };
            if worth < victim_worth {
                (victim, victim_worth) = (j, worth);
            }
        }
        bucket[victim] = entry;
        true
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        SPARE.set(Some((std::mem::take(&mut self.buckets), self.generation)));
    }
}

struct Search<'a> {
    cd: &'a CastlingData,
    winner: usize,
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
    /// One move buffer per ply (reused).
    lists: Vec<Vec<u32>>,
    /// Progress moves first (else generation order).
    ordered: bool,
}

impl Search<'_> {
    /// The intended winner as a colour (`winner` is its index, used in the bit tests).
    fn winner_color(&self) -> Color {
        if self.winner == 0 {
            Color::White
        } else {
            Color::Black
        }
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
        if self.count(1) {
            return false;
        }
        // A leaf: only a checkmate counts, and only the loser in check can be checkmated (no move list for the
        // other leaves, most of the tree; a mate needs no material test: a material rule covers the position
        // itself, so it never holds at a mate).
        let loser_to_move = b.turn as usize != self.winner;
        if budget < 0 || self.path.len() >= MAX_PLY {
            return loser_to_move && in_check(b) && no_legal_move(b, self.cd);
        }
        // No checkmate of the loser where a material rule holds. Material only changes with a capture or a
        // promotion (both set `recheck`), and the root was tested before the search.
        if recheck && material_rule(b, self.winner_color()).is_some() {
            return false;
        }
        // Searched before with at least this budget (a mate found there would have ended the search): the
        // table is read before any move is generated.
        if !self.tt.visit(b, budget) {
            return false;
        }
        // The moves go into this ply's buffer (reused: no allocation per position); each gets its cost and
        // whether it is progress in the high byte (the packed move uses bits 0-18).
        let ply = self.path.len();
        if self.lists.len() <= ply {
            self.lists.resize_with(ply + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        legal_into(b, self.cd, &mut moves);
        let found = self.expand(
            b,
            &mut moves,
            budget,
            progress,
            recheck,
            was_gap,
            loser_to_move,
        );
        self.lists[ply] = moves;
        found
    }

    /// The moves of a searched (not leaf) position `b`, in `moves`: see [`Search::search`].
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        b: &Board,
        moves: &mut [u32],
        budget: i32,
        progress: bool,
        recheck: bool,
        was_gap: bool,
        loser_to_move: bool,
    ) -> bool {
        if moves.is_empty() {
            return loser_to_move && in_check(b);
        }
        // A sound cut: no mate below a proved blocked structure.
        if recheck && blocked_reason(b, self.winner_color()).is_some() {
            return false;
        }
        let winners_turn = b.turn as usize == self.winner;
        // The mating corner of this position (its colour follows the bishops on the board now: a promotion
        // or a capture can change it, after CHA).
        let (corner, king_target, block) = corner(b, self.winner);
        let them = b.colors[b.turn as usize ^ 1];
        let loser_must_promote = !winners_turn && loser_must_promote(b, self.winner);
        let (locked, gap) = lock_state(b);
        let in_gap = locked && (gap.is_some() || was_gap);
        let loser_bishops = (b.roles[BISHOP_I] & b.colors[self.winner ^ 1]).count_ones();
        let rewards = self.path.len() < REWARD_PLY;
        let me = self.winner;
        let classify = |m: u32| -> (i32, bool) {
            let from = ((m >> 6) & 63) as usize;
            let to = (m & 63) as usize;
            let role = (m >> 16) as usize;
            let capture = them & (1 << to) != 0 || (m >> 14) & 3 == 2;
            let promotion = ((m >> 14) & 3 == 1).then_some((m >> 12) & 3);
            // Progress (cost 0): the winner captures, pushes a pawn beyond its fifth rank, or brings its king
            // (toward the square two ranks off the corner) or a knight (toward the corner) closer; the loser
            // brings its king into the corner or a knight to the blocking square beside it, or pushes a
            // pawn when only a promoted piece of its own could let the winner mate.
            let slow = role == KING_I || role == KNIGHT_I;
            let (mut reward, mut punish) = if winners_turn {
                let rank = if me == 0 { to / 8 } else { 7 - to / 8 };
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
                } else if loser_must_promote {
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
            if in_gap {
                (reward, punish) = if capture && winners_turn {
                    (true, false)
                } else if role == KING_I {
                    (gap.is_some_and(|g| closer(KING_I, from, to, g)), false)
                } else {
                    (false, true)
                };
            } else if locked && role == BISHOP_I && loser_bishops > 1 {
                let target = if winners_turn { corner } else { block };
                reward |= closer(BISHOP_I, from, to, target);
            }
            let reward = reward && rewards;
            // Cost: 0 for progress, 1 normal (0 right after progress), more for moves that undo it.
            let cost = if reward {
                0
            } else if punish {
                PUNISH
            } else if progress {
                0
            } else {
                1
            };
            (cost, reward)
        };
        // Progress first, then the rest, each in generation order (on CHA's vectors this found 21 more of the
        // 104 helpmates the generation order missed at the default limits). The short probe keeps generation
        // order: it looks for short mates, which progress-first lines would pass by for long ones. Each move
        // is tagged with its cost and whether it is progress here; the order is made by two passes below.
        for m in moves.iter_mut() {
            let (cost, reward) = classify(*m);
            *m |= (cost as u32) << 24 | (reward as u32) << 31;
        }
        let cost_of = |t: u32| (t >> 24 & 0x7F) as i32;
        let deeper = self.path.len() + 1 < MAX_PLY;
        // A loser's move into a leaf leaves the winner to move there: never a mate of the loser, so that child
        // is not made.
        let wanted = |t: u32| winners_turn || (deeper && budget - cost_of(t) >= 0);
        // Ordered: progress moves first, then the rest, each in generation order (two passes over the list:
        // `pass` 0 takes the progress moves, 1 the others; unordered, one pass takes all).
        let two_passes = self.ordered;
        let take = move |t: u32, pass: u8| !two_passes || (t >> 31 == 0) == (pass == 1);
        // A winner's move into a leaf leaves the loser to move there, checkmated only when in check: where the
        // children can be leaves, a move that gives no check (by the check info, without making it) is
        // counted as a visited leaf and not made.
        let checks = (winners_turn && (budget < 1 || !deeper)).then(|| CheckInfo::new(b));
        // The next child is made (and its table slot fetched into the cache) before the search descends into
        // the current one, so that the table's memory load overlaps with the work in between. A leaf child
        // is made without its hashes (a leaf never reads the table).
        let mut i = 0;
        let mut pass = 0u8;
        let mut quiet_leaves = 0u64;
        // `room`: nodes left before the node limit; counting that many quiet leaves stops the search.
        let make_next = |i: &mut usize,
                         pass: &mut u8,
                         quiet_leaves: &mut u64,
                         tt: &Table,
                         room: u64|
         -> Option<(Board, u32)> {
            loop {
                while *i < moves.len() && !(wanted(moves[*i]) && take(moves[*i], *pass)) {
                    *i += 1;
                }
                if *i == moves.len() {
                    if !two_passes || *pass == 1 {
                        return None;
                    }
                    (*i, *pass) = (0, 1);
                    continue;
                }
                let t = moves[*i];
                *i += 1;
                let m = t & 0xFF_FFFF;
                if deeper && budget - cost_of(t) >= 0 {
                    let child = b.make::<true>(self.cd, m);
                    tt.prefetch(child.key);
                    return Some((child, t));
                }
                if checks.as_ref().and_then(|c| c.gives_check(m)) == Some(false) {
                    *quiet_leaves += 1;
                    if *quiet_leaves >= room {
                        return None;
                    }
                    continue;
                }
                return Some((b.make::<false>(self.cd, m), t));
            }
        };
        let room = self.node_limit.saturating_sub(self.nodes);
        let mut next = make_next(&mut i, &mut pass, &mut quiet_leaves, &self.tt, room);
        if quiet_leaves > 0 && self.count(std::mem::take(&mut quiet_leaves)) {
            return false;
        }
        while let Some((child, t)) = next {
            let room = self.node_limit.saturating_sub(self.nodes);
            next = make_next(&mut i, &mut pass, &mut quiet_leaves, &self.tt, room);
            // The quiet leaves are counted before the descent, so that the node limit is kept exactly.
            if quiet_leaves > 0 && self.count(std::mem::take(&mut quiet_leaves)) {
                return false;
            }
            let (m, reward) = (t & 0xFF_FFFF, t >> 31 == 1);
            self.path.push(m);
            if self.search(
                &child,
                budget - cost_of(t),
                reward,
                may_unblock(b, m),
                in_gap,
            ) {
                return true;
            }
            self.path.pop();
            if self.stopped.is_some() || self.local >= self.local_limit {
                return false;
            }
        }
        false
    }

    /// Count `n` visited nodes (a searched position, or leaves decided without being made, see
    /// [`Search::expand`]); whether to stop: a global limit (recorded in `stopped`; the clock is read each time
    /// the count passes a multiple of 1,024) or this iteration's node share.
    fn count(&mut self, n: u64) -> bool {
        let before = self.nodes;
        self.nodes += n;
        self.local += n;
        if self.stopped.is_none() {
            if self.nodes >= self.node_limit {
                self.stopped = Some(Limit::Nodes);
            } else if before / 1024 != self.nodes / 1024
                && self.deadline.is_some_and(|d| Instant::now() >= d)
            {
                self.stopped = Some(Limit::Time);
            }
        }
        self.stopped.is_some() || self.local >= self.local_limit
    }
}

/// What a move of the side to move must do to give check (after Stockfish's check info): the squares from
/// which each role would attack the other king, and the side's own pieces whose leaving opens a line from
/// one of its sliders to that king.
struct CheckInfo {
    king: usize,
    squares: [u64; 6],
    blockers: u64,
}

impl CheckInfo {
    fn new(b: &Board) -> CheckInfo {
        let us = b.turn as usize;
        let them = us ^ 1;
        let king = (b.roles[KING_I] & b.colors[them]).trailing_zeros() as usize;
        let occ = b.colors[0] | b.colors[1];
        let (diagonal, straight) = (
            MagicSliders::bishop(king, occ),
            MagicSliders::rook(king, occ),
        );
        let mut squares = [0; 6];
        squares[PAWN_I] = PAWN[them][king];
        squares[KNIGHT_I] = KNIGHT[king];
        squares[BISHOP_I] = diagonal;
        squares[ROOK_I] = straight;
        squares[QUEEN_I] = diagonal | straight;
        let r = &b.roles;
        let ours = b.colors[us];
        let mut snipers = ours
            & ((MagicSliders::bishop(king, 0) & (r[BISHOP_I] | r[QUEEN_I]))
                | (MagicSliders::rook(king, 0) & (r[ROOK_I] | r[QUEEN_I])));
        let mut blockers = 0;
        while snipers != 0 {
            let between = between(king, snipers.trailing_zeros() as usize) & occ;
            if between.count_ones() == 1 {
                blockers |= between & ours;
            }
            snipers &= snipers - 1;
        }
        CheckInfo {
            king,
            squares,
            blockers,
        }
    }

    /// Whether the legal move `m` gives check; `None` for castling, promotions and en passant (make them).
    #[inline]
    fn gives_check(&self, m: u32) -> Option<bool> {
        if (m >> 14) & 3 != 0 {
            return None;
        }
        let (from, to, role) = (
            ((m >> 6) & 63) as usize,
            (m & 63) as usize,
            (m >> 16) as usize,
        );
        if self.squares[role] & (1 << to) != 0 {
            return Some(true);
        }
        // A blocker that leaves the line to the king uncovers check.
        Some(self.blockers & (1 << from) != 0 && line(from, to) & (1 << self.king) == 0)
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

/// A helpmate search from one root with iterative deepening (budgets from 0 up in growing steps, see
/// [`BUDGET_STEP_DIVISOR`]; each iteration at most
/// `local_limit` nodes), which can be resumed with more nodes: it goes on with the next budget and keeps its
/// table.
pub(super) struct Helpmate<'a> {
    s: Search<'a>,
    root: Board,
    next_budget: i32,
    max_budget: i32,
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
                nodes: 0,
                node_limit: 0,
                local: 0,
                local_limit,
                deadline,
                stopped: None,
                tt: Table::new(size_hint),
                path: Vec::new(),
                lists: Vec::new(),
                ordered: true,
            },
            root: *root,
            next_budget: 0,
            max_budget,
        }
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
            self.next_budget = budget.saturating_add(1 + budget / BUDGET_STEP_DIVISOR);
            s.local = 0;
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
    );
    h.s.ordered = false;
    h.run(node_limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Setup;

    /// The check info agrees with making the move and asking whether the other king is in check, for every
    /// legal move along seeded random walks from positions rich in discovered checks, pins and promotions.
    #[test]
    fn gives_check_agrees_with_making_the_move() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2B2R2/8/8/3Q4/4K3 w - - 0 1",
            "k7/1P6/8/8/8/8/6p1/K6B b - - 0 1",
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut tested, mut checks, mut discovered) = (0, 0, 0);
        for fen in fens {
            let (root, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
            for _ in 0..40 {
                let mut b = root;
                for _ in 0..30 {
                    let mut moves = Vec::new();
                    legal_into(&b, &cd, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    let info = CheckInfo::new(&b);
                    for &m in &moves {
                        let made = in_check(&b.make::<false>(&cd, m));
                        if let Some(says) = info.gives_check(m) {
                            assert_eq!(says, made, "{fen}: move {m:#x} in {b:?}");
                            tested += 1;
                            checks += usize::from(made);
                            let direct = info.squares[(m >> 16) as usize] & 1 << (m & 63) != 0;
                            discovered += usize::from(made && !direct);
                        }
                    }
                    b = b.make::<false>(&cd, moves[(next() % moves.len() as u64) as usize]);
                }
            }
        }
        // The walks must have met both kinds of check for the test to mean anything.
        assert!(
            tested > 10_000 && checks > 300 && discovered > 10,
            "{tested} {checks} {discovered}"
        );
    }

    /// The table's 8-bit generation wraps: an entry written 255 searches ago must not read as live.
    #[test]
    fn table_entries_of_old_searches_never_prune() {
        let (b, _) = Board::from_setup(&Setup::startpos());
        for gap in 250..262 {
            let mut t = Table::new(1 << 10);
            assert!(t.visit(&b, 3));
            assert!(!t.visit(&b, 3), "the entry must be live in its own search");
            drop(t);
            for _ in 1..gap {
                drop(Table::new(1 << 10));
            }
            let mut t = Table::new(1 << 10);
            assert!(
                t.visit(&b, 3),
                "an entry {gap} searches old pruned a position"
            );
        }
    }
}
