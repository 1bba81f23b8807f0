//! The planner: what a count will do, decided before any GPU work, as a value ([`Plan`]) that can be printed
//! and tested. A plan is the host levels (the plies above what one run counts, and more where progress or
//! several adapters want more pieces of work, expanded by the one frontier expansion of the CPU backend
//! ([`crate::bitboard::frontier`]: fast generator, transpositions merged with multiplicities, e.p. squares no
//! legal capture uses dropped) and counts found in the host table taken), the last host level's positions
//! left to count, cut into units of work, and how they are counted (per position, or one total). Inside a
//! run, the slices of a level are planned from its children's counts ([`plan_slices`]) before that level is
//! written. The executor ([`super::executor`]) runs plans; this module touches no GPU.

use super::buffers::GpuPos;
use super::memory::{HostKey, MAX_RUN_DEPTH};
use super::tables::HostTable;
use crate::bitboard::board::{Board, CastlingData, NO_EP};
use crate::bitboard::frontier::{next_ply_linked, Families, TooBig};
use crate::error::{Error, Result};
use crate::position::Setup;

/// What a run may use.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Merge transpositions.
    pub merge: bool,
    /// Use the transposition tables (when the context has one).
    pub cache: bool,
    /// Memory budget in bytes for the level buffers of one run.
    pub budget_bytes: u64,
    /// Deepest tree one run counts ([`MAX_RUN_DEPTH`]; smaller in tests of the host split).
    pub max_run_depth: u32,
    /// Plies always expanded on the host above the GPU runs (0: only those above `max_run_depth`); with the
    /// tables on, their counts go to the host table.
    pub host_plies: u32,
}

impl Settings {
    /// Whether runs only need totals (the fused kernel's one-total mode): without merging and tables every
    /// root is counted alone, and a root's count is the plain sum of the counts of its host-level
    /// descendants.
    pub fn totals_only(&self) -> bool {
        !self.merge && !self.cache
    }
}

/// Progress of a count ([`super::GpuBackend::perft_async`]): units of its plan done so far, of how many, and
/// the leaf nodes counted by them (each finished piece's counts times the number of ways the roots reach its
/// positions, plus what the host table answered at once: `nodes` ends at the roots' total).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuProgress {
    /// Units done.
    pub done: u64,
    /// Units in all.
    pub total: u64,
    /// Leaf nodes counted so far.
    pub nodes: u128,
}

/// Where a count reports its progress and learns whether to go on ([`std::ops::ControlFlow::Break`] stops it
/// with [`crate::Error::Interrupted`] after the unit in flight).
pub type Progress<'a> = &'a mut dyn FnMut(GpuProgress) -> std::ops::ControlFlow<()>;

/// Units of work a count with progress is cut into ([`super::GpuBackend::perft_async`]): the last host
/// level's positions in this many pieces (one GPU run or more each), with enough host plies for that many
/// positions. Blocking counts use one unit, so their runs are as large as the budget allows.
pub const PROGRESS_UNITS: usize = 32;

/// Fewest leaf nodes a unit of work should hold ([`Plan::estimated_leaves`]), so a count with progress is cut
/// into at most one unit per this many: each unit is a GPU run with its read-backs (in the browser a few ms
/// each) and, when small, dispatches too small to keep the adapter's threads busy. A count of a few million
/// leaves (about a second on SwiftShader) then has a few units; a large one still has [`PROGRESS_UNITS`].
pub const MIN_UNIT_LEAVES: f64 = (1u64 << 20) as f64;

/// Most leaf nodes a unit of work of a count with progress should hold ([`Plan::estimated_leaves`]): a
/// progress callback (the page's Cancel) is asked only between units, and SwiftShader counts about 8 million
/// leaves a second, so a unit of at most this many ends within about half a second (docs/web.md, "Units of
/// work"). A count with more leaves than [`PROGRESS_UNITS`] units of this size is cut into more units, with
/// the host expanding more plies where the last level has too few positions, up to [`MAX_UNITS`].
pub const MAX_UNIT_LEAVES: f64 = (1u64 << 22) as f64;

/// Most units of work of one count (and so most positions the host expands to make them): bounds the
/// host's memory (in the browser a few hundred bytes per position of the last host level); a count with
/// more than `MAX_UNITS * MAX_UNIT_LEAVES` leaves (about 2.7 × 10^11) has larger units.
pub const MAX_UNITS: usize = 1 << 16;

/// [`crate::Error::Interrupted`] when a progress callback asked to stop.
///
/// # Errors
/// [`crate::Error::Interrupted`] on [`std::ops::ControlFlow::Break`].
pub fn stop_if_asked(flow: std::ops::ControlFlow<()>) -> Result<()> {
    match flow {
        std::ops::ControlFlow::Continue(()) => Ok(()),
        std::ops::ControlFlow::Break(()) => Err(crate::Error::Interrupted(
            "the GPU count was stopped by its caller".into(),
        )),
    }
}

/// How the GPU runs of a plan count their roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counting {
    /// Each root's count is read back (merging or tables on, or several roots).
    PerPosition,
    /// Only the sum of the roots' counts (one root, merging and tables off): the fused kernel's one-total
    /// mode.
    Total,
}

/// One position of a host level: its key, its board and family ([`Families`]: the castling data it is
/// expanded with), its children (indices into the next host level, one per legal move: a transposition appears
/// as the same index twice), its count once known, and the number of ways the roots reach it (for progress).
struct HostNode {
    key: GpuPos,
    board: Board,
    family: usize,
    kids: Vec<u32>,
    count: Option<u128>,
    ways: u128,
}

impl HostNode {
    fn new(board: Board, family: usize, cd: &CastlingData, ways: u128) -> HostNode {
        HostNode {
            key: gpu_pos(&board, cd),
            board,
            family,
            kids: Vec::new(),
            count: None,
            ways,
        }
    }
}

/// The GPU layout of `b` (below a root with castling data `cd`): [`GpuPos::from_setup`] of its setup, without
/// making one.
fn gpu_pos(b: &Board, cd: &CastlingData) -> GpuPos {
    let mut bb = [0u64; 7];
    bb[..6].copy_from_slice(&b.roles);
    bb[6] = b.colors[0];
    let mut castle = 0;
    for (right, &rook) in cd.rook.iter().enumerate() {
        let sq = if b.castling & (1 << right) != 0 {
            u32::from(rook)
        } else {
            u32::from(NO_EP)
        };
        castle |= sq << (8 * right);
    }
    GpuPos {
        bb: bb.map(|b| [b as u32, (b >> 32) as u32]),
        castle,
        info: u32::from(b.turn) | u32::from(b.ep) << 8,
    }
}

/// A host level that would not fit in memory.
fn too_big(e: TooBig) -> Error {
    Error::Backend(format!(
        "the host levels need more than {} positions ({} MiB) at one level",
        e.positions,
        e.bytes >> 20
    ))
}

/// The plan of one count: its host levels, the last host level's positions left to count on the GPU (at
/// remaining depth [`Plan::remaining`]) in [`Plan::units`] units, and how they are counted. Made by
/// [`plan`]; the executor feeds it each unit's counts ([`Plan::finish_unit`]) and folds the host levels
/// ([`Plan::fold`]).
pub struct Plan {
    depth: u32,
    plies: u32,
    levels: Vec<Vec<HostNode>>,
    root_nodes: Vec<usize>,
    counting: Counting,
    todo: Vec<usize>,
    piece: usize,
    known: u128,
    expanded: u64,
    /// Mean moves per position of the last host ply (children before merging over positions expanded).
    branching: f64,
}

/// Host plies beyond what the GPU's runs need: while the level to expand has at most `max_open` positions left
/// to count, expand it on the host, down to remaining depth `remaining` (≥ 1). The executor asks for this
/// while the big kernels (the fused leaves, expand) are not built ([`SHALLOW`]), so a small tree is counted
/// by the kernels cheapest to build (`count` at remaining 1) instead of waiting for their compilation (in a
/// browser on SwiftShader 1–3 s each, docs/web.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deepen {
    /// Remaining depth the host expands down to (at least 1).
    pub remaining: u32,
    /// Most positions left to count of a level the host expands: its children are about 35 times as many
    /// (up to 218), each held in memory with its board and key.
    pub max_open: usize,
}

/// The deepening of the executor's plans while the big kernels are not built: down to remaining 1 (the `count`
/// kernel), expanding levels of at most 16,384 positions left (start position: perft 5 reaches remaining 1,
/// perft 6 stops at remaining 2).
pub const SHALLOW: Deepen = Deepen {
    remaining: 1,
    max_open: 16_384,
};

/// Plan the count of each of `roots` to `depth` (≥ 1): expand at least `plies` plies on the host (more, up
/// to `depth - 1`, while the last level's positions left to count are fewer than `min_frontier`, or than
/// `units` when there are several), merging transpositions (with `s.merge`: each distinct position once per
/// level, its multiplicity carried by the parents' child lists); with the tables on (`s.cache`) every
/// position's count is looked up in `host` first (whole position and remaining depth: exact). The last host
/// level's positions left are cut into `units` units. The levels are expanded by
/// [`crate::bitboard::frontier`]'s expansion (so a position's e.p. square is kept only where a legal capture uses
/// it, FIDE 3.7.d).
///
/// # Errors
/// [`Error::Backend`] when a host level would have more than 2^32 positions.
#[cfg(test)]
pub fn plan(
    roots: &[Setup],
    depth: u32,
    plies: u32,
    s: &Settings,
    min_frontier: usize,
    units: usize,
    host: &mut HostTable,
) -> Result<Plan> {
    plan_deeper(roots, depth, plies, s, min_frontier, units, host, None)
}

/// [`plan`], with the host expanding further as `deepen` says ([`Deepen`]; `None`: as [`plan`]).
///
/// # Errors
/// As [`plan`].
#[allow(clippy::too_many_arguments)]
pub fn plan_deeper(
    roots: &[Setup],
    depth: u32,
    plies: u32,
    s: &Settings,
    min_frontier: usize,
    units: usize,
    host: &mut HostTable,
    deepen: Option<Deepen>,
) -> Result<Plan> {
    let units = units.max(1);
    let want = min_frontier.max(if units > 1 { units } else { 0 });
    let mut plies = plies;
    let mut levels: Vec<Vec<HostNode>> = Vec::with_capacity(plies as usize + 1);
    // Each root's node in level 0 (equal roots merged, as the positions of any level).
    let mut families = Families::default();
    let mut root_nodes = Vec::with_capacity(roots.len());
    let mut top: Vec<HostNode> = Vec::new();
    let mut index: hashbrown::HashMap<GpuPos, usize> = hashbrown::HashMap::new();
    for setup in roots {
        let (board, family) = families.root(setup);
        let node = HostNode::new(board, family, families.cd(family), 0);
        let at = match index.get(&node.key) {
            Some(&at) if s.merge => at,
            _ => {
                index.insert(node.key, top.len());
                top.push(node);
                top.len() - 1
            }
        };
        top[at].ways += 1;
        root_nodes.push(at);
    }
    levels.push(top);
    // Leaf nodes known so far: the counts found in the host table, times the ways the roots reach them.
    let mut known = 0u128;
    let mut expanded = 0u64;
    // Mean moves per position of the last ply expanded (30, about the middlegame's, before any).
    let mut branching = 30.0;
    let mut ply = 0;
    loop {
        let remaining = depth - ply;
        let level = levels.last_mut().expect("a level");
        if s.cache {
            for node in level.iter_mut() {
                node.count = host.get(&(node.key, remaining));
            }
        }
        let open = level.iter().filter(|n| n.count.is_none()).count();
        if ply >= plies {
            let deeper =
                deepen.is_some_and(|d| depth - ply > d.remaining.max(1) && open <= d.max_open);
            if open == 0 || (open >= want && !deeper) || ply + 1 >= depth {
                break;
            }
            plies = ply + 1;
        }
        known += level
            .iter()
            .filter_map(|n| n.count.map(|c| c * n.ways))
            .sum::<u128>();
        expanded += open as u64;
        // The positions left to count, family by family, one ply deeper.
        let mut next: Vec<HostNode> = Vec::new();
        let mut moves = 0usize;
        for family in 0..families.len() {
            let cd = families.cd(family);
            let parents: Vec<usize> = (0..level.len())
                .filter(|&i| level[i].count.is_none() && level[i].family == family)
                .collect();
            if parents.is_empty() {
                continue;
            }
            let boards: Vec<(Board, u128)> = parents
                .iter()
                .map(|&i| (level[i].board, level[i].ways))
                .collect();
            let (kids, links) = next_ply_linked(&boards, cd, s.merge, u64::MAX).map_err(too_big)?;
            let base = next.len() as u32;
            next.extend(
                kids.into_iter()
                    .map(|(b, ways)| HostNode::new(b, family, cd, ways)),
            );
            for (&i, list) in parents.iter().zip(links) {
                moves += list.len();
                level[i].kids = list.into_iter().map(|k| base + k).collect();
            }
        }
        if open > 0 {
            branching = moves as f64 / open as f64;
        }
        levels.push(next);
        ply += 1;
    }
    let frontier = levels.last().expect("a level");
    known += frontier
        .iter()
        .filter_map(|n| n.count.map(|c| c * n.ways))
        .sum::<u128>();
    let todo: Vec<usize> = (0..frontier.len())
        .filter(|&i| frontier[i].count.is_none())
        .collect();
    let piece = todo.len().div_ceil(units).max(1);
    Ok(Plan {
        depth,
        plies,
        counting: if s.totals_only() && roots.len() == 1 {
            Counting::Total
        } else {
            Counting::PerPosition
        },
        levels,
        root_nodes,
        todo,
        piece,
        known,
        expanded,
        branching,
    })
}

impl Plan {
    /// Plies expanded on the host.
    #[cfg(test)]
    pub fn host_plies(&self) -> u32 {
        self.plies
    }

    /// Remaining depth of the positions counted on the GPU.
    pub fn remaining(&self) -> u32 {
        self.depth - self.plies
    }

    /// Positions of each host level (the roots' level first; the last is counted on the GPU).
    pub fn level_sizes(&self) -> Vec<usize> {
        self.levels.iter().map(Vec::len).collect()
    }

    /// Distinct positions expanded on the host.
    pub fn expanded(&self) -> u64 {
        self.expanded
    }

    /// Positions the GPU counts (the last host level's not found in the host table).
    pub fn gpu_positions(&self) -> usize {
        self.todo.len()
    }

    /// Units of work: pieces of the positions the GPU counts.
    pub fn units(&self) -> usize {
        self.todo.len().div_ceil(self.piece)
    }

    /// How the GPU runs count.
    pub fn counting(&self) -> Counting {
        self.counting
    }

    /// Leaf nodes known before any GPU work (host-table counts times the ways the roots reach them).
    pub fn known_nodes(&self) -> u128 {
        self.known
    }

    /// Leaf nodes the GPU's part is estimated to count: its positions times the last host ply's mean moves
    /// per position to the power of the remaining depth (30 where no ply was expanded).
    pub fn estimated_leaves(&self) -> f64 {
        self.todo.len() as f64 * self.branching.powi(self.remaining() as i32)
    }

    /// Cut the positions the GPU counts into at most `units` units (at least one), of equal size but the
    /// last.
    pub fn set_units(&mut self, units: usize) {
        self.piece = self.todo.len().div_ceil(units.max(1)).max(1);
    }

    fn unit(&self, k: usize) -> &[usize] {
        let start = (k * self.piece).min(self.todo.len());
        &self.todo[start..(start + self.piece).min(self.todo.len())]
    }

    /// The positions of unit `k`.
    pub fn unit_batch(&self, k: usize) -> Vec<GpuPos> {
        let frontier = self.levels.last().expect("a level");
        self.unit(k).iter().map(|&i| frontier[i].key).collect()
    }

    /// Take the GPU's `counts` of unit `k` (in [`Plan::unit_batch`] order), each kept by `keep`; the leaf
    /// nodes they add (times the ways the roots reach them).
    pub fn finish_unit(
        &mut self,
        k: usize,
        counts: &[u128],
        keep: &mut dyn FnMut(HostKey, u128),
    ) -> u128 {
        let remaining = self.remaining();
        let start = (k * self.piece).min(self.todo.len());
        let end = (start + self.piece).min(self.todo.len());
        let frontier = self.levels.last_mut().expect("a level");
        let mut nodes = 0;
        for (&i, &c) in self.todo[start..end].iter().zip(counts) {
            frontier[i].count = Some(c);
            nodes += c * frontier[i].ways;
            keep((frontier[i].key, remaining), c);
        }
        nodes
    }

    /// Once every unit is finished: add the counts up the host levels (a position's count is the sum over its
    /// moves of its children's counts, each kept by `keep`), and return each root's count.
    pub fn fold(mut self, keep: &mut dyn FnMut(HostKey, u128)) -> Vec<u128> {
        for ply in (0..self.plies as usize).rev() {
            let (upper, lower) = self.levels.split_at_mut(ply + 1);
            let (upper, lower) = (&mut upper[ply], &lower[0]);
            for node in upper.iter_mut().filter(|n| n.count.is_none()) {
                let c: u128 = node
                    .kids
                    .iter()
                    .map(|&k| lower[k as usize].count.expect("counted"))
                    .sum();
                node.count = Some(c);
                keep((node.key, self.depth - ply as u32), c);
            }
        }
        self.root_nodes
            .iter()
            .map(|&i| self.levels[0][i].count.expect("counted"))
            .collect()
    }
}

impl std::fmt::Display for Plan {
    /// For example `depth 5: host levels 1, 20, 400; 400 positions at remaining 3 on the GPU in 31 units of up
    /// to 13, counted per position`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sizes: Vec<String> = self.level_sizes().iter().map(|n| n.to_string()).collect();
        write!(
            f,
            "depth {}: host levels {}; {} positions at remaining {} on the GPU in {} units of up to {}, \
             counted {}",
            self.depth,
            sizes.join(", "),
            self.gpu_positions(),
            self.remaining(),
            self.units(),
            self.piece,
            match self.counting {
                Counting::PerPosition => "per position",
                Counting::Total => "as one total",
            }
        )
    }
}

/// Host plies a count of `depth` needs at least: those above what one run counts, and at least
/// `s.host_plies` (below `depth`).
pub fn host_plies(s: &Settings, depth: u32) -> u32 {
    let run_depth = depth.min(s.max_run_depth.clamp(1, MAX_RUN_DEPTH));
    (depth - run_depth).max(s.host_plies.min(depth - 1))
}

/// A slice of a level: positions `first..end`, whose `children` children are written from index `base` of
/// the next level (relative to their chunk).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// First position.
    pub first: u64,
    /// One past the last position.
    pub end: u64,
    /// Index of the first child in the next level.
    pub base: u64,
    /// Children of the slice.
    pub children: u64,
}

/// Cut a level into consecutive slices whose children (from the per-position `counts`) fit `room` slots.
///
/// # Errors
/// [`crate::error::MemoryError::LevelRoom`] when one position alone has more children than `room`: the memory
/// budget is too small for this depth.
pub fn plan_slices(counts: &[u32], room: u64) -> Result<Vec<Slice>> {
    let mut out = Vec::new();
    let (mut first, mut base, mut sum) = (0u64, 0u64, 0u64);
    for (i, &c) in counts.iter().enumerate() {
        let c = u64::from(c);
        if c > room {
            return Err(crate::error::MemoryError::LevelRoom { room, moves: c }.into());
        }
        if sum + c > room {
            out.push(Slice {
                first,
                end: i as u64,
                base,
                children: sum,
            });
            first = i as u64;
            base += sum;
            sum = 0;
        }
        sum += c;
    }
    out.push(Slice {
        first,
        end: counts.len() as u64,
        base,
        children: sum,
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::frontier::children;

    /// [`SHALLOW`] takes the host down to remaining 1 while the levels to expand are small: the start
    /// position's perft 5 (5,362 distinct positions at ply 3, merged) reaches it, perft 6 (ply 4 has more than
    /// 16,384) stops at remaining 2; without deepening, 32 units need only one host ply. The level sizes are
    /// the distinct positions after merging transpositions (1, 20, 400, 5,362: every position of ply 3 once).
    #[test]
    fn shallow_plans_expand_small_trees_down_to_remaining_one() {
        let start = [Setup::from_fen(crate::cpw::POSITIONS[0].fen).unwrap()];
        let s = Settings {
            merge: true,
            cache: false,
            budget_bytes: 64 << 20,
            max_run_depth: MAX_RUN_DEPTH,
            host_plies: 0,
        };
        let mut host = HostTable::new(0);
        let mut plan = |depth, deepen| {
            plan_deeper(&start, depth, 0, &s, 0, PROGRESS_UNITS, &mut host, deepen).unwrap()
        };
        let p = plan(5, Some(SHALLOW));
        assert_eq!((p.host_plies(), p.remaining()), (4, 1), "{p}");
        assert_eq!(p.level_sizes()[..4], [1, 20, 400, 5362], "{p}");
        let p = plan(6, Some(SHALLOW));
        assert_eq!((p.host_plies(), p.remaining()), (4, 2), "{p}");
        let p = plan(5, None);
        assert_eq!((p.host_plies(), p.remaining()), (2, 3), "{p}");
    }

    /// [`gpu_pos`] is [`GpuPos::from_setup`] of the board's setup: the roots and their children, for
    /// positions with castling rights, Chess960 rook files, usable and unusable e.p. squares and promotions.
    #[test]
    fn gpu_pos_of_a_board_is_that_of_its_setup() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // CPW "Perft Results" position 2 (Kiwipete), 3 and 4, and Chess960 position 1 of the CPW page.
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ] {
            let setup = Setup::from_fen(fen).unwrap();
            let (b, cd) = Board::from_setup(&setup);
            for p in std::iter::once(b).chain(children(&b, &cd)) {
                assert_eq!(
                    gpu_pos(&p, &cd),
                    GpuPos::from_setup(&p.to_setup(&cd)),
                    "{fen}"
                );
            }
        }
    }
}
