//! (b) The cooperative helpmate search (FIDE 1.5, 6.9: "by any possible series of legal moves"): both sides
//! play for the loser's checkmate. It only ever proves `Winnable` (with the line); it never proves anything
//! unwinnable, so its prunings and move-ordering heuristics cannot make an answer unsound.

use super::blocked::{blocked_reason, may_unblock};
use super::material::material_rule;
use super::ordering::{cost_of, is_progress, untag, Corners, Progress, Rest, RestKind, PUNISH};
use super::{in_check, no_legal_move, Limit};
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::{
    between, knight_attacks, line, pawn_attacks, piece_attacks, unpack, Bitboard,
};
use crate::types::{Color, MoveKind, Role, Square};
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

/// The transposition table of one helpmate search: four-way buckets of one word per entry (36 bits of the
/// position's check hash, a 12-bit generation ([`GENERATIONS`]), a 16-bit budget), fixed size. A bucket is 32 bytes, half a cache
/// line, and the whole table at most 2 MiB, so that it mostly stays in the core's cache (its loads were the
/// search's largest cost with three-word entries). Losing an entry, or a rare false match of the 36 check bits,
/// only costs work or a missed helpmate: the table prunes, it proves nothing.
struct Table {
    buckets: Vec<Bucket>,
    mask: usize,
    /// The current generation (1 to [`GENERATIONS`]; 0 is never live).
    generation: u64,
}

/// The largest generation of the table (12 bits). Each search takes the next; when it wraps, the whole table is
/// cleared (2 MiB at the default limits), so more bits clear it less often: with 8 bits (a clear every 255
/// tables, one or two a query) the clearing was 0.65 % of a `perf` profile of CHA-Solver's tests/lichess.txt.
const GENERATIONS: u64 = 0xFFF;
/// The bits of an entry below the check hash's: the generation (bits 16–27) and the budget (bits 0–15).
const ENTRY_LOW: u64 = 0xFFF_FFFF;

thread_local! {
    /// The last search's entries and generation on this thread, reused (no allocation or clearing per query).
    static SPARE: std::cell::Cell<Option<(Vec<Bucket>, u64)>> = const { std::cell::Cell::new(None) };
}

/// Four entries, aligned so that a bucket never straddles two cache lines.
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Bucket([u64; 4]);

impl Table {
    /// Buckets for a search of `nodes` nodes: one entry a node, from 2^10 to 2^18 entries (measured: 2^16 missed
    /// helpmates, 2^20 found no more).
    fn buckets_for(nodes: u64) -> usize {
        (nodes.clamp(1 << 10, 1 << 18) as usize).next_power_of_two() / 4
    }

    /// A table sized for `nodes` nodes, on this thread's spare entries (their older generations are stale).
    fn new(nodes: u64) -> Table {
        let (buckets, generation) = SPARE.take().unwrap_or_default();
        let mut t = Table {
            buckets,
            mask: 0,
            generation,
        };
        t.resize(Table::buckets_for(nodes));
        t
    }

    /// Use `size` buckets (a power of two) from now on, every entry stale: the entries in use are the first
    /// `size` of the allocation, which is grown when it is smaller. A search of a few thousand nodes thus
    /// touches a table that stays in the core's cache (128 KiB for 10,000 nodes) instead of scattering its
    /// loads over 2 MiB; a search resumed with more nodes gets a larger one (its earlier entries are dropped,
    /// which only costs work: the table prunes, it proves nothing).
    fn resize(&mut self, size: usize) {
        if self.buckets.len() < size {
            self.buckets = vec![Bucket::default(); size];
            self.generation = 0;
        }
        self.mask = size - 1;
        // Entries of earlier searches carry older generations: stale. The generation has 12 bits: when it
        // wraps, the table is cleared, so an old entry can never look live again.
        self.generation = (self.generation + 1) & GENERATIONS;
        if self.generation == 0 {
            self.buckets.fill(Bucket::default());
            self.generation = 1;
        }
    }

    /// Make every entry stale (the next generation), keeping the size.
    fn forget(&mut self) {
        self.resize(self.mask + 1);
    }

    /// Make room for a search that will have visited `nodes` nodes in all (never smaller than now).
    fn reserve(&mut self, nodes: u64) {
        let size = Table::buckets_for(nodes);
        if size > self.mask + 1 {
            self.resize(size);
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
        let id = b.check & !ENTRY_LOW;
        let budget = budget.min(0xFFFF) as u64;
        let entry = id | self.generation << 16 | budget;
        let bucket = &mut self.buckets[i].0;
        let mut victim = 0;
        let mut victim_worth = u64::MAX;
        for (j, e) in bucket.iter_mut().enumerate() {
            let live = (*e >> 16) & GENERATIONS == self.generation;
            if live && *e & !ENTRY_LOW == id {
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

thread_local! {
    /// The last search's per-ply move buffers on this thread, reused: a query's searches allocate none once
    /// an earlier query went as deep (a line of 44 plies, the median helpmate on CHA-Solver's
    /// tests/lichess.txt, used to allocate and grow 44 buffers in each of a query's two searches). One per ply
    /// below [`MAX_PLY`], each empty (unallocated) until a search first reaches its ply.
    static LISTS: std::cell::Cell<Vec<Moves>> = const { std::cell::Cell::new(Vec::new()) };
}

/// One ply's move buffers: the moves handed out one by one (the progress moves when ordered, else all), and
/// the other moves as sets of targets ([`Progress::staged_moves`]).
type Moves = (Vec<u32>, Vec<Rest>);

/// The per-ply move buffers of a search: [`MAX_PLY`] of them, this thread's (given back when dropped). The
/// search at ply `p` gets the buffers of plies `p` and below as one slice and hands the rest to its children:
/// no buffer is taken out and put back per position (1 % of the instructions of full mode on real game
/// positions).
struct Lists(Vec<Moves>);

impl Lists {
    fn new() -> Lists {
        let mut lists = LISTS.take();
        lists.resize_with(MAX_PLY, Moves::default);
        Lists(lists)
    }
}

impl Drop for Lists {
    fn drop(&mut self) {
        LISTS.set(std::mem::take(&mut self.0));
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        SPARE.set(Some((std::mem::take(&mut self.buckets), self.generation)));
    }
}

struct Search<'a> {
    cd: &'a CastlingData,
    winner: Color,
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
    /// Progress moves first (else generation order).
    ordered: bool,
    /// The mating corners (of the right colour, the one nearest the loser's king at the root).
    corners: Corners,
}

impl Search<'_> {
    /// Depth-first helpmate search with `budget` left; moves that make progress cost nothing. `recheck`: the
    /// move that led here captured, moved a pawn or castled, so the blocked-structure proof may now hold (after
    /// any other move it cannot change: every piece stays in its region); `was_gap`: the line went through a
    /// locked structure with a gap (see [`super::ordering::lock_state`]); `lists`: the move buffers of this ply
    /// and the plies below it ([`Lists`]).
    fn search(
        &mut self,
        b: &Board,
        lists: &mut [Moves],
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
        let loser_to_move = b.turn() != self.winner;
        if budget < 0 || self.path.len() >= MAX_PLY {
            return loser_to_move && in_check(b) && no_legal_move(b, self.cd);
        }
        // No checkmate of the loser where a material rule holds. Material only changes with a capture or a
        // promotion (both set `recheck`), and the root was tested before the search.
        if recheck && material_rule(b, self.winner).is_some() {
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
        // A position searched further is below the ply limit, so it has its buffers.
        let ((first, rest), below) = lists
            .split_first_mut()
            .expect("a move buffer for each ply below MAX_PLY");
        first.clear();
        rest.clear();
        let order = Progress::new(
            b,
            self.winner,
            progress,
            was_gap,
            ply < REWARD_PLY,
            &self.corners,
        );
        // Ordered, the moves that are not progress stay sets of targets until the search comes back for them
        // (most positions are left after their first progress moves, or drop those moves at once).
        if self.ordered {
            order.staged_moves(b, self.cd, first, rest);
        } else {
            order.tagged_moves(b, self.cd, first);
        }
        if first.is_empty() && rest.is_empty() {
            loser_to_move && in_check(b)
        } else {
            self.expand(b, (first, rest), below, &order, budget, recheck)
        }
    }

    /// The moves of a searched (not leaf) position `b` that has some, in `first` and `rest`, tagged by
    /// `order`, the plies below having the buffers `below`: see [`Search::search`].
    fn expand(
        &mut self,
        b: &Board,
        (first, rest): (&[u32], &[Rest]),
        below: &mut [Moves],
        order: &Progress,
        budget: i32,
        recheck: bool,
    ) -> bool {
        // A sound cut: no mate below a proved blocked structure.
        if recheck && blocked_reason(b, self.winner).is_some() {
            return false;
        }
        // Progress first, then the rest, each in generation order (on CHA's vectors this found 21 more of the
        // 104 helpmates the generation order missed at the default limits). The quick path's probe keeps
        // generation order: it looks for short mates, which progress-first lines would pass by for long ones. Each
        // move was tagged with its cost and whether it is progress here as it was generated; the order is made
        // by two passes below.
        let ply = self.path.len();
        let mut children = Children::new(b, self.cd, first, rest, order, budget, ply);
        // The next child is made (and its table slot fetched into the cache) before the search descends into
        // the current one, so that the table's memory load overlaps with the work in between.
        let room = self.node_limit.saturating_sub(self.nodes);
        let mut next = children.next(&self.tt, room);
        if children.quiet_leaves > 0 && self.count(std::mem::take(&mut children.quiet_leaves)) {
            return false;
        }
        while let Some((slot, t)) = next {
            let room = self.node_limit.saturating_sub(self.nodes);
            // Made into the other slot: this child stays where it is.
            next = children.next(&self.tt, room);
            // The quiet leaves are counted before the descent, so that the node limit is kept exactly.
            if children.quiet_leaves > 0 && self.count(std::mem::take(&mut children.quiet_leaves)) {
                return false;
            }
            let m = untag(t);
            self.path.push(m);
            let budget = budget - cost_of(t);
            if self.search(
                &children.slots[slot],
                below,
                budget,
                is_progress(t),
                may_unblock(b, m),
                order.in_gap,
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

/// The children of a searched position, made one at a time in the search's order (progress moves first when
/// ordered, then the rest, each in generation order; unordered, generation order). The moves come tagged with
/// their cost and whether they are progress: ordered, the progress moves one by one and the rest as sets of
/// targets ([`Progress::staged_moves`]), which the second pass expands only when the search comes back for
/// them; unordered, all one by one ([`Progress::tagged_moves`]). A loser's move into a leaf is dropped: in the
/// second pass a whole set at once, by its costs. A winner's piece moves into leaves that give no check are
/// counted as quiet leaves a set at once (those before each move handed out, so that the count is the one
/// move-by-move reading gives).
struct Children<'m> {
    b: &'m Board,
    /// The children are made in place into these two slots in turn (no copy of a board per child): the one
    /// searched stays put while the next one is made into the other (measured in session 58).
    slots: [Board; 2],
    /// The slot the next child is made into.
    fill: usize,
    cd: &'m CastlingData,
    /// The moves handed out one by one (first pass), and the sets of the second pass.
    first: &'m [u32],
    rest: &'m [Rest],
    /// [`Progress::tags`] and the cost of a move neither progress nor punished.
    tags: [u32; 3],
    plain: i32,
    budget: i32,
    /// The children may be searched further (not leaves by the ply limit).
    deeper: bool,
    winners_turn: bool,
    /// A winner's move into a leaf leaves the loser to move there, checkmated only when in check: where the
    /// children can be leaves, a move that gives no check (by the check info, without making it) is counted
    /// as a visited leaf ([`Children::quiet_leaves`]) and not made.
    checks: Option<CheckInfo>,
    /// The next move (first pass) or set (second pass) to read.
    i: usize,
    second: bool,
    /// The set being expanded: its targets still to hand out, its quiet leaves not yet counted.
    group: Rest,
    cur: u64,
    quiet: u64,
    /// Quiet leaves counted and not yet reported to the node count.
    quiet_leaves: u64,
}

/// A board for a slot before a child is made into it (never read: every child is made whole).
const NO_BOARD: Board = Board {
    roles: [0; 6],
    colors: [0; 2],
    key: 0,
    check: 0,
    turn: 0,
    ep: 0,
    castling: 0,
};

impl<'m> Children<'m> {
    /// Inlined, so that the children are set up in the caller's frame (not made and then moved there).
    #[inline(always)]
    fn new(
        b: &'m Board,
        cd: &'m CastlingData,
        first: &'m [u32],
        rest: &'m [Rest],
        order: &Progress,
        budget: i32,
        ply: usize,
    ) -> Children<'m> {
        let deeper = ply + 1 < MAX_PLY;
        let winners_turn = order.winners_turn;
        let checks = (winners_turn && (budget < 1 || !deeper)).then(|| CheckInfo::new(b));
        Children {
            b,
            slots: [NO_BOARD; 2],
            fill: 0,
            cd,
            first,
            rest,
            tags: order.tags(),
            plain: order.plain(),
            budget,
            deeper,
            winners_turn,
            checks,
            i: 0,
            second: false,
            group: Rest {
                targets: 0,
                punish: 0,
                kind: RestKind::One(0),
            },
            cur: 0,
            quiet: 0,
            quiet_leaves: 0,
        }
    }

    /// Count `n` quiet leaves; whether they reach `room` (then the count stops there, as one at a time).
    #[inline(always)]
    fn add_quiet(&mut self, n: u64, room: u64) -> bool {
        let total = self.quiet_leaves + n;
        if total >= room {
            self.quiet_leaves = room.max(self.quiet_leaves + 1);
            return true;
        }
        self.quiet_leaves = total;
        false
    }

    /// A set's targets to hand out one by one, and its quiet leaves to count at once: the targets whose cost
    /// fits the budget (searched further); a loser's others are dropped (leaves: never a mate); a winner's
    /// piece's others are handed out when they give check (by the check info) and else counted.
    #[inline(always)]
    fn split(&self, r: &Rest) -> (u64, u64) {
        let mut searched = if self.deeper { r.targets } else { 0 };
        if self.budget < PUNISH {
            searched &= !r.punish;
        }
        if self.budget < self.plain {
            searched &= r.punish;
        }
        if !self.winners_turn {
            return (searched, 0);
        }
        let leaves = r.targets & !searched;
        match (r.kind, &self.checks) {
            (RestKind::Piece(role, from), Some(c)) if leaves != 0 => {
                let gives = leaves & c.checking(role as usize, from);
                (searched | gives, leaves & !gives)
            }
            _ => (r.targets, 0),
        }
    }

    /// The next tagged move of the second pass; `None` at the end, or when the quiet leaves counted reach
    /// `room`.
    #[inline(always)]
    fn next_rest(&mut self, room: u64) -> Option<u32> {
        loop {
            if self.cur == 0 {
                if self.quiet != 0 {
                    let n = std::mem::take(&mut self.quiet).count_ones() as u64;
                    if self.add_quiet(n, room) {
                        return None;
                    }
                }
                let r = *self.rest.get(self.i)?;
                self.i += 1;
                if let RestKind::One(t) = r.kind {
                    return Some(t);
                }
                (self.cur, self.quiet) = self.split(&r);
                self.group = r;
                continue;
            }
            let to = self.cur.trailing_zeros();
            self.cur &= self.cur - 1;
            let below = self.quiet & ((1u64 << to) - 1);
            if below != 0 {
                self.quiet &= !below;
                if self.add_quiet(below.count_ones() as u64, room) {
                    return None;
                }
            }
            return Some(self.group.tagged_to(to, self.tags));
        }
    }

    /// The next child's slot (in [`Children::slots`]) and its tagged move; `None` at the end, or when the
    /// quiet leaves counted reach `room` (the nodes left before the node limit). A child to be searched further
    /// is made with its hashes and its table slot fetched into the cache; a leaf child without hashes (a leaf
    /// never reads the table).
    #[inline(always)]
    fn next(&mut self, tt: &Table, room: u64) -> Option<(usize, u32)> {
        loop {
            let t = if self.second {
                self.next_rest(room)?
            } else if let Some(&t) = self.first.get(self.i) {
                self.i += 1;
                t
            } else {
                (self.second, self.i) = (true, 0);
                continue;
            };
            let searched = self.deeper && self.budget - cost_of(t) >= 0;
            // A loser's move into a leaf leaves the winner to move there, never a mate of the loser.
            if !(self.winners_turn || searched) {
                continue;
            }
            let m = untag(t);
            let slot = self.fill;
            if searched {
                self.slots[slot] = self.b.make::<true>(self.cd, m);
                tt.prefetch(self.slots[slot].key);
                self.fill ^= 1;
                return Some((slot, t));
            }
            if self.checks.as_ref().and_then(|c| c.gives_check(m)) == Some(false) {
                if self.add_quiet(1, room) {
                    return None;
                }
                continue;
            }
            self.slots[slot] = self.b.make::<false>(self.cd, m);
            self.fill ^= 1;
            return Some((slot, t));
        }
    }
}

/// What a move of the side to move must do to give check (after Stockfish's check info): the squares from
/// which each role would attack the other king, and the side's own pieces whose leaving opens a line from
/// one of its sliders to that king.
struct CheckInfo {
    king: Square,
    /// Per role (index), the squares it would give check from.
    squares: [Bitboard; 6],
    blockers: Bitboard,
}

impl CheckInfo {
    fn new(b: &Board) -> CheckInfo {
        let us = b.turn();
        let king = b.king(!us).expect("a checked position has both kings");
        let occ = b.occupied_all();
        let (diagonal, straight) = (
            piece_attacks(Role::Bishop, king, occ),
            piece_attacks(Role::Rook, king, occ),
        );
        let mut squares = [Bitboard::EMPTY; 6];
        squares[Role::Pawn.index()] = pawn_attacks(!us, king);
        squares[Role::Knight.index()] = knight_attacks(king);
        squares[Role::Bishop.index()] = diagonal;
        squares[Role::Rook.index()] = straight;
        squares[Role::Queen.index()] = diagonal | straight;
        let ours = b.occupied(us);
        let (queens, empty) = (b.role(Role::Queen), Bitboard::EMPTY);
        let snipers = ours
            & ((piece_attacks(Role::Bishop, king, empty) & (b.role(Role::Bishop) | queens))
                | (piece_attacks(Role::Rook, king, empty) & (b.role(Role::Rook) | queens)));
        let mut blockers = Bitboard::EMPTY;
        for sniper in snipers {
            let between = between(king, sniper) & occ;
            if between.count() == 1 {
                blockers |= between & ours;
            }
        }
        CheckInfo {
            king,
            squares,
            blockers,
        }
    }

    /// The targets of a normal move of the piece `role` (the generator's index) on `from` that give check: the
    /// squares it attacks the king from, and every square off the line to the king when it uncovers a slider
    /// there ([`CheckInfo::gives_check`] as a set).
    #[inline(always)]
    fn checking(&self, role: usize, from: u8) -> u64 {
        let from = Square::new(from);
        let uncovers = if self.blockers.contains(from) {
            !line(from, self.king).0
        } else {
            0
        };
        self.squares[role].0 | uncovers
    }

    /// Whether the legal packed move `m` gives check; `None` for castling, promotions and en passant (make
    /// them).
    #[inline]
    fn gives_check(&self, m: u32) -> Option<bool> {
        let (mv, role) = unpack(m);
        if mv.kind() != MoveKind::Normal {
            return None;
        }
        let (from, to) = (mv.from(), mv.to());
        if self.squares[role.index()].contains(to) {
            return Some(true);
        }
        // A blocker that leaves the line to the king uncovers check.
        Some(self.blockers.contains(from) && !line(from, to).contains(self.king))
    }
}

/// A helpmate search from one root with iterative deepening (budgets from 0 up in growing steps, see
/// [`BUDGET_STEP_DIVISOR`]; each iteration at most
/// `local_limit` nodes), which can be resumed with more nodes: it goes on with the next budget and keeps its
/// table.
pub(super) struct Helpmate<'a> {
    s: Search<'a>,
    lists: Lists,
    root: Board,
    next_budget: i32,
    max_budget: i32,
    /// The first budget of this call whose iteration its node share cut short ([`Helpmate::run_iterations`]).
    cut: Option<i32>,
    /// The most nodes it will be given in all (bounds the table).
    size_hint: u64,
}

impl<'a> Helpmate<'a> {
    /// `size_hint`: the most nodes it will be given in all (bounds the table, which grows with the nodes each
    /// [`Helpmate::run`] is given).
    pub(super) fn new(
        root: &Board,
        cd: &'a CastlingData,
        winner: Color,
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
                tt: Table::new(0),
                path: Vec::new(),
                ordered: true,
                corners: Corners::new(winner, root.king(!winner)),
            },
            lists: Lists::new(),
            root: *root,
            next_budget: 0,
            cut: None,
            max_budget,
            size_hint,
        }
    }

    /// [`Helpmate::run`] with each iteration given at most `iteration` nodes (instead of the search's share)
    /// before the next, larger budget: the first, short stage of the full search. When it finds no mate, the
    /// search is wound back to the first budget that this small share cut short, with every table entry made
    /// stale (an entry of a cut iteration would prune the same budget searched again), so that the later
    /// stages search it with their full share: on CHA-Solver's tests/positions.txt, going on from the budget
    /// reached left 25 more winnable queries undetermined at the default limits (2026-12-05).
    pub(super) fn run_iterations(
        &mut self,
        nodes: u64,
        iteration: u64,
    ) -> (std::result::Result<Vec<u32>, Limit>, u64) {
        let share = std::mem::replace(&mut self.s.local_limit, iteration);
        self.cut = None;
        let result = self.run(nodes);
        self.s.local_limit = share;
        if let (Err(Limit::Nodes | Limit::Quick), Some(budget)) = (&result.0, self.cut) {
            self.next_budget = budget;
            self.s.tt.forget();
        }
        result
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
        // The first call's table is sized for its nodes; a search resumed grows it at once to the size for all
        // it may be given, so that a search resumed stage after stage drops its entries once.
        s.tt.reserve(if start == 0 {
            s.node_limit
        } else {
            self.size_hint.max(s.node_limit)
        });
        s.stopped = None;
        while self.next_budget <= self.max_budget {
            let budget = self.next_budget;
            self.next_budget = budget.saturating_add(1 + budget / BUDGET_STEP_DIVISOR);
            s.local = 0;
            s.path.clear();
            if s.search(&self.root, &mut self.lists.0, budget, false, false, false) {
                return (Ok(std::mem::take(&mut s.path)), s.nodes - start);
            }
            if let Some(limit) = s.stopped {
                return (Err(limit), s.nodes - start);
            }
            if s.local >= s.local_limit && self.cut.is_none() {
                self.cut = Some(budget);
            }
        }
        (Err(Limit::Quick), s.nodes - start)
    }
}

/// One [`Helpmate`] search with at most `node_limit` nodes, moves in generation order (the quick path's probe).
pub(super) fn helpmate_search(
    root: &Board,
    cd: &CastlingData,
    winner: Color,
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
    // Generation order and the winner's home corner, as before the root's anchor existed: the quick path's
    // probe looks for short mates.
    h.s.ordered = false;
    h.s.corners = Corners::new(winner, None);
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
        use super::super::random_walks;
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2B2R2/8/8/3Q4/4K3 w - - 0 1",
            "k7/1P6/8/8/8/8/6p1/K6B b - - 0 1",
        ];
        let mut next = super::super::xorshift(0x9E37_79B9_7F4A_7C15u64);
        let (mut tested, mut checks, mut discovered) = (0, 0, 0);
        random_walks(&fens, (40, 30), &mut next, |fen, b, cd, moves, _| {
            let info = CheckInfo::new(b);
            for &m in moves {
                let made = in_check(&b.make::<false>(cd, m));
                if let Some(says) = info.gives_check(m) {
                    assert_eq!(says, made, "{fen}: move {m:#x} in {b:?}");
                    // The same as a set of targets of the piece.
                    let (mv, role) = unpack(m);
                    let set = info.checking(role.index(), mv.from().index() as u8);
                    assert_eq!(set >> mv.to().index() & 1 != 0, made, "{fen}: {m:#x}");
                    tested += 1;
                    checks += usize::from(made);
                    let direct = info.squares[role.index()].contains(mv.to());
                    discovered += usize::from(made && !direct);
                }
            }
        });
        // The walks must have met both kinds of check for the test to mean anything.
        assert!(
            tested > 10_000 && checks > 300 && discovered > 10,
            "{tested} {checks} {discovered}"
        );
    }

    /// The children as [`Children`] hands them out (the rest as sets, quiet leaves counted a set at once) are
    /// the moves of [`Progress::tagged_moves`] read one by one: progress first, then the others, each in
    /// generation order, a loser's move into a leaf dropped, a winner's that gives no check counted as a quiet
    /// leaf, the same count before each child and the same stop when the count reaches the room left; for
    /// both winners, budgets 0 to 2, with and without progress before, at the ply limit and below it, along
    /// seeded random walks.
    #[test]
    fn children_are_the_tagged_moves_read_one_by_one() {
        use super::super::random_walks;
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "3bkb2/8/1ppp1p2/pP1P1P1p/P1P4P/3B4/8/2B1K3 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/8/8/4k3/8/2p5/1p6/2B1K3 b - - 0 1",
            "4k3/8/8/2B2R2/8/8/3Q4/4K3 w - - 0 1",
        ];
        let mut next = super::super::xorshift(0x51_7CC1_B727_220Au64);
        let tt = Table::new(1 << 10);
        let (mut children, mut quiet, mut stops) = (0, 0, 0);
        random_walks(&fens, (8, 24), &mut next, |fen, b, cd, _, _| {
            for flags in 0..24u32 {
                let winner = if flags & 1 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let progress = flags & 2 != 0;
                let ply = if flags & 4 != 0 { MAX_PLY - 1 } else { 3 };
                let budget = (flags / 8) as i32;
                let corners = Corners::new(winner, b.king(!winner));
                let order = Progress::new(b, winner, progress, false, true, &corners);
                // The reference: every move read one by one.
                let mut all = Vec::new();
                order.tagged_moves(b, cd, &mut all);
                let (ahead, others): (Vec<u32>, Vec<u32>) =
                    all.iter().partition(|&&t| is_progress(t));
                let deeper = ply + 1 < MAX_PLY;
                let info = CheckInfo::new(b);
                let checks = order.winners_turn && (budget < 1 || !deeper);
                let mut expected = Vec::new();
                let mut q = 0u64;
                for t in ahead.into_iter().chain(others) {
                    let searched = deeper && budget - cost_of(t) >= 0;
                    if !(order.winners_turn || searched) {
                        continue;
                    }
                    if !searched && checks && info.gives_check(untag(t)) == Some(false) {
                        q += 1;
                        continue;
                    }
                    expected.push((t, std::mem::take(&mut q)));
                }
                let trailing = q;
                for room in [u64::MAX, 1, 2, 3] {
                    let (mut first, mut rest) = (Vec::new(), Vec::new());
                    order.staged_moves(b, cd, &mut first, &mut rest);
                    let mut c = Children::new(b, cd, &first, &rest, &order, budget, ply);
                    let mut got = Vec::new();
                    while let Some((slot, t)) = c.next(&tt, room) {
                        let made = b.make::<false>(cd, untag(t));
                        assert_eq!(c.slots[slot].colors, made.colors, "{fen}");
                        got.push((t, std::mem::take(&mut c.quiet_leaves)));
                    }
                    // The reference stopped where a count since the last child reaches the room.
                    let mut want = Vec::new();
                    let mut end = trailing;
                    for &(t, q) in &expected {
                        if q >= room {
                            end = q;
                            break;
                        }
                        want.push((t, q));
                    }
                    let end = end.min(room);
                    if end == room {
                        stops += 1;
                    }
                    assert_eq!(got, want, "{fen}: flags {flags} room {room} in {b:?}");
                    assert_eq!(c.quiet_leaves, end, "{fen}: flags {flags} room {room}");
                    if room == u64::MAX {
                        children += got.len();
                        quiet += got.iter().map(|g| g.1).sum::<u64>() + end;
                    }
                }
            }
        });
        assert!(
            children > 10_000 && quiet > 10_000 && stops > 1_000,
            "{children} {quiet} {stops}"
        );
    }

    /// The mate test's king-step shortcut ([`no_legal_move`]) agrees with counting the legal moves, along
    /// seeded random walks from positions with checks, pins, castling and e.p., and in mates and stalemates.
    #[test]
    fn no_legal_move_agrees_with_the_count() {
        use crate::bitboard::attacks::MagicSliders;
        use crate::bitboard::movegen as mg;
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/8/8/2B2R2/8/8/3Q4/4K3 w - - 0 1",
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1",
            "k7/8/1Q6/8/8/8/8/6K1 b - - 0 1",
        ];
        let mut next = super::super::xorshift(0x2F8A_61D3_09B4_C75Eu64);
        let (mut tested, mut none) = (0, 0);
        for fen in fens {
            let (root, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
            for _ in 0..40 {
                let mut b = root;
                for _ in 0..40 {
                    let count = mg::count::<MagicSliders>(&b, &cd);
                    assert_eq!(no_legal_move(&b, &cd), count == 0, "{fen}: {b:?}");
                    tested += 1;
                    if count == 0 {
                        none += 1;
                        break;
                    }
                    let moves = mg::moves::<MagicSliders>(&b, &cd);
                    b = b.make::<false>(&cd, moves.as_slice()[(next() % count) as usize]);
                }
            }
        }
        assert!(tested > 4_000 && none >= 100, "{tested} {none}");
    }

    /// The table's 12-bit generation wraps: an entry written 4,095 searches ago must not read as live.
    #[test]
    fn table_entries_of_old_searches_never_prune() {
        let (b, _) = Board::from_setup(&Setup::startpos());
        for gap in (GENERATIONS - 5)..(GENERATIONS + 7) {
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
