//! (h) The guided helpmate search (FIDE 1.5, 6.9: "by any possible series of legal moves"), the full path's last
//! resort for the long helpmates of constructed positions: a bishop walking around a locked pawn chain to the
//! mating corner, the loser's king shuffling, a pawn promoting late (lines of up to 120 plies).
//!
//! Iterative deepening over a *depth* that moves raise by their class ([`Class`]): progress (the winner's pawn
//! moves and captures, kings and knights nearing their squares by the mating corner, bishops nearing it along
//! the diagonals the never-moving pawns leave open) costs nothing, an ordinary move one (none right after
//! progress), and a move that is punished (the loser's captures, and the root's moves into a position with a
//! static proof of unwinnability, wherever they are played) four. A transposition table keeps, from one
//! iteration to the next, the most depth left each position was searched with.
//!
//! A [`Plan`] sets the goals: the mating corner, what the loser's captures cost, whether rewards go first. The
//! full search runs CHA-Solver's own ([`PHASE_EIGHT`]), then the other [`PLANS`] with a fixed share each (a
//! portfolio of goals: each search is cheap where its corner is the right one, hopeless where it is not), and,
//! after the last stage of its first part, the costlier [`LATE_PLANS`] where the node limit leaves nodes for them.
//!
//! After CHA-Solver's phase 8 ("guided deep search using bishop distances and punishable moves", MIT, commit
//! 3484c7e: `src/search/{heuristics,engine,utils}.rs`), written afresh on this crate's board and move generator.
//! It only ever proves `Winnable` (every helpmate is replayed by the reference generator, `mod.rs` `replay`);
//! its cuts (a material rule or a proved blocked structure below a capture or a pawn move) are sound, and its
//! classes and table only choose what it searches first, so it cannot make an answer unsound.

use super::blocked::{blocked_reason, may_unblock};
use super::material::material_rule;
use super::ordering::DISTANCE;
use super::reach::reach_reason;
use super::{in_check, legal_into, no_legal_move, Limit};
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::movegen::{self as mg};
use crate::bitboard::{piece_attacks, Bitboard};
use crate::types::{Color, MoveKind, Role, Square};
use std::time::Instant;

/// Longest line followed (plies), as CHA-Solver.
const MAX_PLY: usize = 128;
/// The deepest iteration (depth units).
const MAX_DEPTH: u8 = 128;
/// The depth a punished move costs.
const PUNISH: u8 = 4;
/// Entries of the transposition table (a power of two; 8 bytes each: 8 MiB, only for the queries that get here).
const TABLE_SIZE: usize = 1 << 20;
/// Bishop distance of a square the mating corner's diagonals never reach.
const FAR: u8 = u8::MAX;

/// Where a [`Plan`] aims: the mating corner as the winner sees the board (its eighth rank on top).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Corner {
    /// h8 where the winner's bishops are dark-squared (or, without any, the loser's light-squared), else a8.
    ByBishops,
    /// h8, the far dark corner.
    FarDark,
    /// h1 (mirrored for Black), the near light corner.
    NearLight,
    /// a1 (mirrored for Black), the near dark corner.
    NearDark,
}

/// One guided search's goals and costs: where it steers the pieces, what the loser's captures of pieces cost,
/// and whether the rewarded moves are searched first.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Plan {
    pub(super) corner: Corner,
    /// The class of the loser's captures that take no pawn: punished (CHA-Solver's phase 8), ordinary, or
    /// progress (the loser takes the winner's pieces that wall in its own king or pawns).
    loser_captures: Class,
    /// Rewarded moves first (else generation order, with the same costs).
    sorted: bool,
}

/// CHA-Solver's phase 8 plan: the corner of the bishops, the loser's captures punished, rewards first.
pub(super) const PHASE_EIGHT: Plan = Plan {
    corner: Corner::ByBishops,
    loser_captures: Class::Punish,
    sorted: true,
};

/// The plans the full search tries after [`PHASE_EIGHT`], each with at most the nodes given, in this order: the
/// goals that constructed positions of CHA-Solver's tests/positions.txt need and [`PHASE_EIGHT`] misses (a mate
/// in a near corner, or in the far corner of the other colour; the loser freeing the winner's king or pawns by
/// taking the pieces that wall them in). Measured (node counts, deterministic) on the nine winnable queries that
/// `main` (d8d64fb) left undetermined there at the default limits and on line 832 for White (which the last
/// stage found with 1,982,514 nodes), each plan alone from the root with 3,000,000 nodes, all 24 combinations of
/// corner, loser-capture class and order tried; the nodes each needed, in the order 831 W, 1008 B, 1910 W,
/// 2100 W, 2131 W, 2168 W, 2178 B, 2217 W, 2218 W, 832 W (`-`: not within 3,000,000):
/// - near light, captures progress, generation order: -, 66,280, -, 417,170, -, 165,349, 42,508, -, -, 1,412,818
/// - far dark, captures ordinary, rewards first: -, -, -, 218,919, 83,287, -, 29,495, -, 220,219, -
/// - near dark, captures progress, rewards first (not in the list: its nodes would come out of the last stage,
///   which needs up to 1.98 M for the queries it finds there; the first of [`LATE_PLANS`] since session 64):
///   1,519,699, 1,478,486, 604,601, 2,207,489, -, 896,664, -, -, -, 617,929
/// - [`PHASE_EIGHT`] (for comparison): -, -, -, 463,867, -, -, 261,023, 1,238,924, 282,933, -
///
/// The two kept cost at most 295,000 nodes of the last stage's and decide 1008 B, 2100 W, 2131 W, 2178 B and
/// 2218 W at the default limits.
pub(super) const PLANS: [(Plan, u64); 2] = [
    (
        Plan {
            corner: Corner::NearLight,
            loser_captures: Class::Reward,
            sorted: false,
        },
        70_000,
    ),
    (
        Plan {
            corner: Corner::FarDark,
            loser_captures: Class::Normal,
            sorted: true,
        },
        225_000,
    ),
];

/// The plans the full search tries after its first part (mod.rs `FIRST_PART_NODES`: every stage the default
/// limit of 3,000,000 nodes allowed until session 64, the last stage included) where the query's node limit
/// leaves more, each with at most the nodes given or those left, in this order; the helpmate search resumed
/// takes the rest. The near dark corner (a1, a8 for Black) with the loser's captures as progress, rewards first,
/// is the plan that found most of the queries the first part leaves undetermined on CHA-Solver's
/// tests/positions.txt (the nodes from the root alone, measured in session 63 on the list of [`PLANS`]): lines
/// 831 (1,519,699), 832 (617,929), 1910 (604,601) and 2168 (896,664) for White; [`PHASE_EIGHT`] with more nodes
/// finds line 2217 for White (1,238,924), which no other plan finds within 3,000,000. Measured in session 64 with
/// the default limit raised to 6,000,000 nodes (node counts deterministic, `--time-limit 0`): the five found, in
/// all 4,519,694, 3,617,924, 3,604,595, 3,896,659 and 5,788,919 nodes; every other query of that file and of
/// CHA's 3,606 test vectors gets the same verdict with the same nodes (the first part is unchanged), so nothing
/// decided before is lost. The near dark plan goes first because it finds four of the five: in the other order
/// those four would each need 1,250,000 nodes more and only 2217 1,250,000 fewer.
pub(super) const LATE_PLANS: [(Plan, u64); 2] = [
    (
        Plan {
            corner: Corner::NearDark,
            loser_captures: Class::Reward,
            sorted: true,
        },
        1_550_000,
    ),
    (PHASE_EIGHT, 1_250_000),
];

/// What a move costs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    /// Progress: no depth (and the next ordinary move is free too).
    Reward,
    /// One depth.
    Normal,
    /// [`PUNISH`] depths.
    Punish,
}

/// The squares the search steers pieces to, and the bishops' distances to the mating corner.
struct Guide {
    winner: Color,
    plan: Plan,
    /// Targets of the winner's king, the winner's knights, the loser's king, the loser's knights.
    targets: [u8; 4],
    /// Bishop moves from each square to the mating corner (or a square beside it) through squares without a
    /// pawn that never moves ([`steady_pawns`]), those pawns blocking the lines; [`FAR`] where none leads.
    bishop: [u8; 64],
    /// The root's moves (their low 16 bits) into a position with a static proof that the winner cannot mate:
    /// punished wherever played (as CHA-Solver does).
    punished: Vec<u16>,
}

/// Pawns that stand with a pawn right in front of them (they can move only by capturing): the walls a bishop
/// walks around. An estimate only (it steers the search, proves nothing).
fn steady_pawns(b: &Board) -> u64 {
    let white = b.pieces(Color::White, Role::Pawn).0;
    let black = b.pieces(Color::Black, Role::Pawn).0;
    let pawns = white | black;
    (white & (pawns >> 8)) | (black & (pawns << 8))
}

/// Whether a square is dark (a1 is).
fn dark(sq: u8) -> bool {
    Bitboard::DARK.contains(Square::new(sq))
}

impl Guide {
    /// The guide for `winner` from `root` by `plan`: its mating corner (for [`Corner::ByBishops`] chosen by the
    /// bishops' colours: the winner's, else the opposite of the loser's), seen from the winner's side.
    fn new(root: &Board, cd: &CastlingData, winner: Color, plan: Plan) -> Guide {
        // Squares as the winner sees them (its eighth rank on top): a mirror for Black.
        let rel = |sq: u8| if winner == Color::White { sq } else { sq ^ 56 };
        let bishops_on = |color: Color, want_dark: bool| {
            Bitboard(root.pieces(color, Role::Bishop).0)
                .into_iter()
                .any(|s| dark(rel(s.index() as u8)) == want_dark)
        };
        let own = root.pieces(winner, Role::Bishop).0 != 0;
        let dark_corner = bishops_on(winner, true) || (!own && bishops_on(!winner, false));
        // The h8 corner's targets (g7 for the king, e5 for knights, h8 and g8 for the loser's king and
        // knights), mirrored to the a-file for the other colour, then to the winner's side.
        let flip = match plan.corner {
            Corner::ByBishops if dark_corner => 0,
            Corner::ByBishops => 7,
            Corner::FarDark => 0,
            Corner::NearLight => 56,
            Corner::NearDark => 63,
        };
        let place = |sq: u8| rel(sq ^ flip);
        let targets = [54, 36, 63, 62].map(place);
        let corner = [63, 62, 55].map(place);
        let bishop = bishop_distances(steady_pawns(root), corner);
        let mut punished = Vec::new();
        for &m in mg::moves::<MagicSliders>(root, cd).as_slice() {
            let child = root.make::<false>(cd, m);
            if material_rule(&child, winner).is_some()
                || blocked_reason(&child, winner).is_some()
                || reach_reason(&child, winner).is_some()
            {
                punished.push(m as u16);
            }
        }
        Guide {
            winner,
            plan,
            targets,
            bishop,
            punished,
        }
    }

    /// The class of the legal move `m` in `b`.
    fn class(&self, b: &Board, m: u32) -> Class {
        if self.punished.contains(&(m as u16)) {
            return Class::Punish;
        }
        let (from, to) = (((m >> 6) & 63) as u8, (m & 63) as u8);
        let role = Role::ALL[((m >> 16) & 7) as usize];
        let kind = (m >> 14) & 3;
        let capture = kind == MoveKind::EnPassant as u32
            || (kind != MoveKind::Castling as u32 && (b.occupied_all().0 >> to) & 1 != 0);
        let winner = b.turn() == self.winner;
        let target = match (role, winner) {
            (Role::King, true) => Some(self.targets[0]),
            (Role::Knight, true) => Some(self.targets[1]),
            (Role::King, false) => Some(self.targets[2]),
            (Role::Knight, false) => Some(self.targets[3]),
            _ => None,
        };
        let nearer = target.is_some_and(|t| {
            // King moves, or knight moves ([`DISTANCE`]'s two tables).
            let distance = &DISTANCE[usize::from(role == Role::Knight)];
            distance[usize::from(to)][usize::from(t)] < distance[usize::from(from)][usize::from(t)]
        });
        let (d_from, d_to) = (self.bishop[from as usize], self.bishop[to as usize]);
        if winner {
            if role == Role::Pawn || capture || nearer {
                return Class::Reward;
            }
            // A bishop nearing the corner from afar, or making room right beside it.
            if role == Role::Bishop
                && d_from != FAR
                && ((d_from <= 1 && d_from < d_to) || (d_from > 2 && d_to < d_from))
            {
                return Class::Reward;
            }
            return Class::Normal;
        }
        let pawn_taken =
            capture && (role == Role::Pawn || b.role_at(Square::new(to)) == Some(Role::Pawn));
        if pawn_taken && b.occupied_all().0.count_ones() > 5 {
            return Class::Reward;
        }
        if (role == Role::Bishop && d_to < d_from) || nearer {
            return Class::Reward;
        }
        if capture {
            return self.plan.loser_captures;
        }
        Class::Normal
    }
}

/// Bishop moves from each square to one of `corner`, through squares without a `steady` pawn (which stop the
/// lines), breadth first from the corner.
fn bishop_distances(steady: u64, corner: [u8; 3]) -> [u8; 64] {
    let mut dist = [FAR; 64];
    let mut frontier: u64 = corner.iter().fold(0, |acc, &s| acc | (1 << s)) & !steady;
    let mut seen = frontier;
    let mut d = 0;
    while frontier != 0 {
        for s in Bitboard(frontier) {
            dist[s.index()] = d;
        }
        let mut next = 0;
        for s in Bitboard(frontier) {
            next |= piece_attacks(Role::Bishop, s, Bitboard(steady)).0;
        }
        frontier = next & !steady & !seen;
        seen |= frontier;
        d += 1;
    }
    dist
}

/// One guided search.
struct Search<'a> {
    cd: &'a CastlingData,
    guide: Guide,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stopped: Option<Limit>,
    /// Iteration's depth limit.
    max_depth: u8,
    /// Direct-mapped: the key's high 56 bits and 1 + the depth left the position was searched with.
    table: Vec<u64>,
    path: Vec<u32>,
    lists: Vec<Vec<u32>>,
}

impl Search<'_> {
    /// Record that `b` is searched with `left` depth left (replacing whatever the slot held).
    fn record(&mut self, b: &Board, left: u8) {
        self.table[b.key as usize & (TABLE_SIZE - 1)] = (b.key & !0xFF) | (u64::from(left) + 1);
    }

    /// Count one node; true when a limit stops the search.
    fn count(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            self.stopped = Some(Limit::Nodes);
        } else if self.nodes & 0xFFF == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped = Some(Limit::Time);
        }
        self.stopped.is_some()
    }

    /// Depth-first from `b` at `depth`; `progress`: the move here was progress; `recheck`: it captured, moved a
    /// pawn or otherwise may have changed what the material and blocked-structure proofs see.
    fn search(&mut self, b: &Board, depth: u8, progress: bool, recheck: bool) -> bool {
        let left = self.max_depth.saturating_sub(depth);
        if self.seen_before(b, left) {
            return false;
        }
        let ply = self.path.len();
        if self.lists.len() <= ply {
            self.lists.resize_with(ply + 1, || Vec::with_capacity(64));
        }
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        legal_into(b, self.cd, &mut moves);
        let found = self.expand(b, &mut moves, depth, progress, recheck);
        self.lists[ply] = moves;
        found
    }

    /// Whether `b` was searched (or is being searched, further up the line) with at least `left` depth left.
    fn seen_before(&self, b: &Board, left: u8) -> bool {
        let slot = self.table[b.key as usize & (TABLE_SIZE - 1)];
        slot & !0xFF == b.key & !0xFF && (slot & 0xFF) as u8 > left
    }

    /// The moves of `b` (legal, generation order), searched rewards first.
    fn expand(
        &mut self,
        b: &Board,
        moves: &mut [u32],
        depth: u8,
        progress: bool,
        recheck: bool,
    ) -> bool {
        if moves.is_empty() {
            return b.turn() != self.guide.winner && in_check(b);
        }
        // Sound cuts: no mate where a material rule holds or below a proved blocked structure.
        if recheck
            && (material_rule(b, self.guide.winner).is_some()
                || blocked_reason(b, self.guide.winner).is_some())
        {
            return false;
        }
        if depth >= self.max_depth || self.path.len() >= MAX_PLY {
            return false;
        }
        let left = self.max_depth - depth;
        self.record(b, left);
        // Classes in the high bits (Reward 0, Normal 1, Punish 2), sorted stably: rewards first.
        for m in moves.iter_mut() {
            let class = self.guide.class(b, *m) as u32;
            *m |= class << 24;
        }
        if self.guide.plan.sorted {
            moves.sort_by_key(|m| m >> 24);
        }
        let winner = b.turn() == self.guide.winner;
        for &t in moves.iter() {
            let m = t & 0xFF_FFFF;
            let cost = match t >> 24 {
                0 => 0,
                1 => u8::from(!progress),
                _ => PUNISH,
            };
            let child_depth = depth.saturating_add(cost);
            // A leaf (no depth or plies left): only the loser checkmated counts there, so a loser's move into
            // one is not even made (the winner would be to move), and a winner's move is made only to test it.
            let leaf = child_depth >= self.max_depth || self.path.len() + 1 >= MAX_PLY;
            if leaf && !winner {
                continue;
            }
            if self.count() {
                return false;
            }
            let child = b.make::<true>(self.cd, m);
            self.path.push(m);
            let found = if leaf {
                in_check(&child) && no_legal_move(&child, self.cd)
            } else {
                self.search(&child, child_depth, t >> 24 == 0, may_unblock(b, m))
            };
            if found {
                return true;
            }
            self.path.pop();
            if self.stopped.is_some() {
                return false;
            }
        }
        false
    }
}

/// The guided search by `plan` from `root` (with its Zobrist key) for `winner`, at most `nodes` nodes (moves
/// made) and until `deadline`: a helpmate's moves, or the limit that stopped it ([`Limit::Quick`] when every
/// depth was searched without a mate: no proof of anything), and the nodes visited.
pub(super) fn guided_search(
    root: &Board,
    cd: &CastlingData,
    winner: Color,
    plan: Plan,
    nodes: u64,
    deadline: Option<Instant>,
) -> (std::result::Result<Vec<u32>, Limit>, u64) {
    let mut s = Search {
        cd,
        guide: Guide::new(root, cd, winner, plan),
        nodes: 0,
        node_limit: nodes,
        deadline,
        stopped: None,
        max_depth: 0,
        table: vec![0; TABLE_SIZE],
        path: Vec::new(),
        lists: Vec::new(),
    };
    for max_depth in 2..=MAX_DEPTH {
        s.max_depth = max_depth;
        s.path.clear();
        if s.search(root, 0, false, false) {
            return (Ok(s.path), s.nodes.min(nodes));
        }
        if let Some(limit) = s.stopped {
            return (Err(limit), s.nodes.min(nodes));
        }
    }
    (Err(Limit::Quick), s.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bishop distances to the h8 corner (h8, g8, h7): one move from the long diagonal, none into a corner a
    /// steady pawn shuts off, and around a pawn on the diagonal by way of other diagonals.
    #[test]
    fn bishop_distances_go_around_steady_pawns() {
        let sq = |name: &str| Square::parse(name).unwrap().index() as u8;
        let corner = [sq("h8"), sq("g8"), sq("h7")];
        let open = bishop_distances(0, corner);
        assert_eq!(open[sq("h8") as usize], 0);
        assert_eq!(open[sq("a1") as usize], 1);
        assert_eq!(open[sq("b1") as usize], 1, "b1-h7");
        // A pawn on b2 shuts a1 off; c3 still sees h8.
        let b2 = bishop_distances(1 << sq("b2"), corner);
        assert_eq!(b2[sq("a1") as usize], FAR);
        assert_eq!(b2[sq("c3") as usize], 1);
        // A pawn on d4: c3 must go round (c3-e1-h4-f6 or c3-a5-d8-f6…), more than one move.
        let d4 = bishop_distances(1 << sq("d4"), corner);
        assert!(d4[sq("c3") as usize] > 1 && d4[sq("c3") as usize] != FAR);
        assert_eq!(d4[sq("e5") as usize], 1);
    }

    /// The corner follows the bishops' colour and the winner's side: White's dark bishop aims at h8, Black's
    /// light bishop at h1 (mirrored: the square of its colour on White's first rank).
    #[test]
    fn corner_follows_the_bishops() {
        let guide = |fen: &str, winner: Color| {
            let (b, cd) = Board::from_setup(&crate::position::Setup::from_fen(fen).unwrap());
            Guide::new(&b, &cd, winner, PHASE_EIGHT)
        };
        let sq = |name: &str| Square::parse(name).unwrap().index() as u8;
        let white = guide("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", Color::White);
        assert_eq!(white.targets, [sq("g7"), sq("e5"), sq("h8"), sq("g8")]);
        let black = guide("4k3/8/8/8/8/8/8/4K2b w - - 0 1", Color::Black);
        assert_eq!(black.targets, [sq("g2"), sq("e4"), sq("h1"), sq("g1")]);
        // White's light bishop: a8.
        let light = guide("4k3/8/8/8/8/8/8/3BK3 w - - 0 1", Color::White);
        assert_eq!(light.targets[2], sq("a8"));
    }

    /// The plans' own corners, whatever the bishops: h1 (near, light), h8 (far, dark) and a1 (near, dark) for
    /// White, mirrored to h8, h1 and a8 for Black.
    #[test]
    fn plans_set_their_corners() {
        let (b, cd) = Board::from_setup(
            &crate::position::Setup::from_fen("4k3/8/8/8/8/8/8/3BK3 w - - 0 1").unwrap(),
        );
        let sq = |name: &str| Square::parse(name).unwrap().index() as u8;
        let near = PLANS[0].0;
        let far = PLANS[1].0;
        assert_eq!(
            (near.corner, far.corner),
            (Corner::NearLight, Corner::FarDark)
        );
        let targets = |winner, plan| Guide::new(&b, &cd, winner, plan).targets;
        assert_eq!(
            targets(Color::White, near),
            [sq("g2"), sq("e4"), sq("h1"), sq("g1")]
        );
        assert_eq!(
            targets(Color::Black, near),
            [sq("g7"), sq("e5"), sq("h8"), sq("g8")]
        );
        assert_eq!(
            targets(Color::White, far),
            [sq("g7"), sq("e5"), sq("h8"), sq("g8")]
        );
        assert_eq!(
            targets(Color::Black, far),
            [sq("g2"), sq("e4"), sq("h1"), sq("g1")]
        );
        let near_dark = LATE_PLANS[0].0;
        assert_eq!(near_dark.corner, Corner::NearDark);
        assert_eq!(
            targets(Color::White, near_dark),
            [sq("b2"), sq("d4"), sq("a1"), sq("b1")]
        );
        assert_eq!(
            targets(Color::Black, near_dark),
            [sq("b7"), sq("d5"), sq("a8"), sq("b8")]
        );
    }
}
