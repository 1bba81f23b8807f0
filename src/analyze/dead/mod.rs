//! Dead positions and unwinnability, decided with a proof (FIDE Laws 1.5, 5.2.2 and 6.9).
//!
//! - FIDE 1.5 / 5.2.2: "If the position is such that neither player can possibly checkmate the opponent's
//!   king, the game is drawn" (a *dead position*).
//! - FIDE 6.9: a player whose flag falls loses, unless the opponent cannot checkmate "by any possible series of
//!   legal moves"; then the game is drawn. That is the same question asked for one side.
//!
//! [`decide`] answers it for a checked position and an intended winner:
//! - [`Verdict::Winnable`] with a helpmate: legal moves from the position (both sides cooperating) that end in
//!   checkmate of the other side. Every helpmate is replayed by the reference generator
//!   ([`crate::reference`]) before it is returned; a failed replay is a bug and an [`Error::Mismatch`].
//! - [`Verdict::Unwinnable`] with a [`Reason`]: insufficient material (a rule proved in the comments at
//!   [`material_reason`]), a blocked structure (every pawn can never move or capture; the squares each piece
//!   can ever reach are listed, and none lets the winner give check), or an exhausted search (every position
//!   reachable from the root, exactly compared, was visited and none is a checkmate of the loser).
//! - [`Verdict::Undetermined`]: a node or time limit was reached first.
//!
//! Soundness comes first: `Unwinnable` is only returned with one of the three proofs above; the helpmate
//! search itself never proves anything unwinnable. The 50/75-move and repetition rules (FIDE 9) are ignored,
//! as by the Chess Unwinnability Analyzer (CHA): the question is whether a mate exists at all.
//!
//! Method (ideas from CHA by Miguel Ambrona, written afresh): material rules first, then the semi-static
//! blocked-structure argument, then a cooperative helpmate search (iterative deepening where moves that make
//! progress toward a mating net in a corner cost no depth, moves that undo it cost more; 128-bit keyed
//! transposition table), and a breadth-first closure of all reachable positions with exact keys, which both
//! finds the shortest helpmate of small positions and proves the rest unwinnable when it closes.

mod blocked;
mod closure;
mod helpmate;
mod lines;
mod material;
mod saturate;
mod tempo;

pub use material::material_reason;
pub use saturate::fortress;

use blocked::blocked_reason;
use closure::Closure;
use helpmate::{helpmate_search, Helpmate};
use saturate::fortress_reason;

use crate::bitboard::attacks::{MagicSliders, Sliders, KING, KNIGHT, PAWN};
use crate::bitboard::board::{Board, CastlingData, BISHOP_I, KNIGHT_I, PAWN_I, QUEEN_I, ROOK_I};
use crate::bitboard::movegen::{self as mg};
use crate::error::{Error, Result};
use crate::reference::Mailbox;
use crate::types::{Color, Move, Piece, Square};
use crate::validate::Checked;
use hashbrown::HashMap;
use serde::Serialize;
use std::fmt;
use std::time::{Duration, Instant};

/// Light squares (b1, a2, …, h8 is dark).
pub(super) const LIGHT: u64 = 0x55AA_55AA_55AA_55AA;
/// Dark squares (a1, h8, …).
pub(super) const DARK: u64 = !LIGHT;
/// Nodes of one iteration of the deepening helpmate search before it moves on to the next budget: half the
/// query's node limit, at least this many. Measured on the 67 queries of CHA's vectors that a fixed share of
/// 20,000 left undetermined, at 5,000,000 nodes: shares of 5,000, 20,000, 40,000, 160,000, 1,000,000 and
/// 5,000,000 found 9, 16, 22, 39, 58 and 55 helpmates.
const ITERATION_NODES_MIN: u64 = 20_000;
/// Nodes of the quick path's closure (gated by [`CLOSURE_GATE_MOVES`]).
const QUICK_NODES: u64 = 3_000;
/// Nodes of the quick path's helpmate probe.
const QUICK_PROBE_NODES: u64 = 1_000;
/// The quick and scan paths run their small closure only when the side to move has at most this many legal
/// moves: a closure of [`QUICK_NODES`] positions closes only where almost nothing can move, and an open
/// position would spend its whole budget for nothing.
const CLOSURE_GATE_MOVES: u64 = 8;
/// ... and the other side at most this many moves, roughly counted ([`other_side_mobility`]). Measured on
/// CHA-Solver's test files, scan mode, one thread (2026-12-03): without this gate tests/lichess.txt took 2.7 s
/// CPU and tests/positions.txt proved 2,433 queries unwinnable; with 24, 1.9 s and 2,433; with 16, 1.44 s and
/// 2,419 (CHA-Solver's fast check: 2,334); with 12, 1.45 s and 2,416. Lichess proved 2,410 at every setting.
const CLOSURE_GATE_OTHER_MOVES: u32 = 16;

/// Search limits of one query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Positions visited at most (helpmate search and closure together).
    pub nodes: u64,
    /// Wall-clock limit per query.
    pub time: Option<Duration>,
    /// The quick path: the static proofs (material, blocked structure, fortress), a small helpmate probe and,
    /// where the side to move has few moves, a small closure (sound, incomplete).
    pub quick: bool,
    /// The scan path, for database scans that want only the proofs of unwinnability: the static proofs and the
    /// gated small closure, no helpmate search (sound, incomplete; a helpmate the closure meets is still
    /// returned).
    pub scan: bool,
}

impl Default for Limits {
    /// 3,000,000 nodes and 1 s per query (CHA's default is 500,000 of its nodes; the units differ: this search
    /// does not count a loser's move into a leaf, it never makes it).
    fn default() -> Limits {
        Limits {
            nodes: 3_000_000,
            time: Some(Duration::from_secs(1)),
            quick: false,
            scan: false,
        }
    }
}

/// A piece and the squares it can ever reach in a blocked structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The piece.
    pub piece: Piece,
    /// Where it stands.
    pub square: Square,
    /// Every square it can ever stand on (its own square included), as a bitboard (bit 0 = a1).
    pub reach: u64,
}

/// Why a side can never checkmate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The game is over already: `checkmated` (the intended winner is mated) or `stalemate` (FIDE 5.2.1).
    GameOver(&'static str),
    /// A material rule (described in the text).
    InsufficientMaterial(String),
    /// Every pawn is fixed forever (blocked, and nothing can ever capture or be captured by a pawn), and from the
    /// squares its pieces can ever reach the intended winner never attacks a square the loser's king can reach.
    Blocked {
        /// The fixed pawns (bitboard).
        pawns: u64,
        /// Every other piece with the squares it can ever reach.
        regions: Vec<Region>,
    },
    /// The pawns can still move, but only into finitely many configurations (none with a promotion), and in each
    /// one, from the squares its pieces may stand on, the intended winner never attacks a square the loser's king
    /// may stand on without leaving it a flight square (the fortress proof, `saturate.rs`).
    Fortress {
        /// Pawn configurations reachable (over-approximated), the current one included.
        pawn_states: u64,
        /// Every other piece with the squares it may stand on while the pawns stand as now.
        regions: Vec<Region>,
    },
    /// The fortress proof ([`Reason::Fortress`]), where in some configurations the loser's king could be left
    /// without a flight square, but the loser has only king moves there and an exact search over the two kings'
    /// squares and the side to move reaches no checkmate: the mate would need the winner to gain a tempo
    /// (`tempo.rs`).
    Tempo {
        /// Pawn configurations reachable (over-approximated), the current one included.
        pawn_states: u64,
        /// Configurations decided by the search over the two kings and the side to move.
        tempo_states: u64,
        /// Placements of the two kings with the side to move reached in those configurations.
        king_positions: u64,
        /// Every other piece with the squares it may stand on while the pawns stand as now.
        regions: Vec<Region>,
    },
    /// Every line of at most `plies` legal moves ends where the winner lacks mating material or the game is
    /// over, with no checkmate of the loser on the way (`lines.rs`).
    EveryLine {
        /// Plies explored.
        plies: u32,
        /// Positions visited.
        positions: u64,
    },
    /// Every position reachable from this one was visited (exact comparison) and none is a checkmate.
    ExhaustedSearch {
        /// Distinct positions visited.
        positions: u64,
    },
    /// The position has only one legal move, and so on (`moves`, at most 100); the position they reach is
    /// unwinnable by `then`. Every position reachable from the first is either on that forced line (none of
    /// them a checkmate: each has a legal move) or reachable from the last, so the proof carries over.
    Forced {
        /// The forced moves, from the position.
        moves: Vec<Move>,
        /// The proof for the position after them.
        then: Box<Reason>,
    },
}

pub(super) fn squares_of(bb: u64) -> Vec<Square> {
    let mut out = Vec::new();
    let mut bits = bb;
    while bits != 0 {
        out.push(Square::new(bits.trailing_zeros() as u8));
        bits &= bits - 1;
    }
    out
}

fn square_list(bb: u64) -> String {
    squares_of(bb)
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// "; Ke1 reaches only a1 b1 …{suffix}" for each region.
fn write_regions(f: &mut fmt::Formatter<'_>, regions: &[Region], suffix: &str) -> fmt::Result {
    for r in regions {
        write!(
            f,
            "; {}{} reaches only {}{suffix}",
            r.piece.char(),
            r.square,
            square_list(r.reach)
        )?;
    }
    Ok(())
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::GameOver(what) => write!(f, "game over ({what})"),
            Reason::InsufficientMaterial(text) => write!(f, "insufficient material: {text}"),
            Reason::Blocked { pawns, regions } => {
                write!(
                    f,
                    "blocked structure: pawns {} can never move or capture",
                    square_list(*pawns)
                )?;
                write_regions(f, regions, "")?;
                write!(
                    f,
                    "; so wherever the winner could give check the king keeps a flight square"
                )
            }
            Reason::Fortress {
                pawn_states,
                regions,
            } => {
                write!(
                    f,
                    "fortress: the pawns can reach only {pawn_states} configurations, none with a promotion"
                )?;
                write_regions(f, regions, " while the pawns stand")?;
                write!(
                    f,
                    "; in every configuration, wherever the winner could give check the king keeps a flight square"
                )
            }
            Reason::Tempo {
                pawn_states,
                tempo_states,
                king_positions,
                regions,
            } => {
                write!(
                    f,
                    "fortress held by tempo: the pawns can reach only {pawn_states} configurations, none with a promotion"
                )?;
                write_regions(f, regions, " while the pawns stand")?;
                write!(
                    f,
                    "; in {tempo_states} of them the loser has only king moves, and of the {king_positions} placements of both kings with the side to move it can reach there none is a checkmate (the winner would need a tempo)"
                )?;
                if tempo_states < pawn_states {
                    write!(
                        f,
                        "; in the others, wherever the winner could give check the king keeps a flight square"
                    )?;
                }
                Ok(())
            }
            Reason::EveryLine { plies, positions } => write!(
                f,
                "every line of at most {plies} plies ends where the winner lacks mating material or the game is \
                 over, with no checkmate on the way ({positions} positions)"
            ),
            Reason::ExhaustedSearch { positions } => write!(
                f,
                "exhausted search: all {positions} reachable positions visited, none is a checkmate"
            ),
            Reason::Forced { moves, then } => write!(
                f,
                "only one legal move at a time ({}), then {then}",
                moves
                    .iter()
                    .map(|m| m.to_uci(false))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

/// Which limit stopped a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// `Limits::nodes`.
    Nodes,
    /// `Limits::time`.
    Time,
    /// The quick path does not search further.
    Quick,
}

/// The answer for one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The side can checkmate: the helpmate (replayed by the reference generator to checkmate).
    Winnable {
        /// The moves, from the position, ending in checkmate of the other side.
        helpmate: Vec<Move>,
    },
    /// The side can never checkmate, with the proof's kind.
    Unwinnable {
        /// Why.
        reason: Reason,
    },
    /// A limit was reached first.
    Undetermined {
        /// Which.
        limit: Limit,
    },
}

/// A verdict with the intended winner and the work done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The intended winner.
    pub winner: Color,
    /// The answer.
    pub verdict: Verdict,
    /// Positions visited.
    pub nodes: u64,
}

impl Decision {
    /// `winnable`, `unwinnable` or `undetermined`.
    pub fn result(&self) -> &'static str {
        match self.verdict {
            Verdict::Winnable { .. } => "winnable",
            Verdict::Unwinnable { .. } => "unwinnable",
            Verdict::Undetermined { .. } => "undetermined",
        }
    }

    /// The serializable report (moves in UCI; `chess960` selects king-takes-rook castling notation).
    pub fn report(&self, chess960: bool) -> SideReport {
        let (helpmate, reason) = match &self.verdict {
            Verdict::Winnable { helpmate } => (
                Some(helpmate.iter().map(|m| m.to_uci(chess960)).collect()),
                None,
            ),
            Verdict::Unwinnable { reason } => (None, Some(reason.to_string())),
            Verdict::Undetermined { limit } => (
                None,
                Some(
                    match limit {
                        Limit::Nodes => "node limit reached",
                        Limit::Time => "time limit reached",
                        Limit::Quick => "not decided by the quick path",
                    }
                    .to_string(),
                ),
            ),
        };
        SideReport {
            result: self.result(),
            helpmate,
            reason,
            nodes: self.nodes,
        }
    }
}

/// One side's verdict as `analyze --json` and `dead --json` print it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SideReport {
    /// `winnable`, `unwinnable` or `undetermined`.
    pub result: &'static str,
    /// The helpmate in UCI (only when winnable).
    pub helpmate: Option<Vec<String>>,
    /// The proof's text (unwinnable) or the limit reached (undetermined).
    pub reason: Option<String>,
    /// Positions visited.
    pub nodes: u64,
}

/// Both sides' verdicts and the FIDE 1.5 outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeadReport {
    /// Per side.
    pub winnable: Sides,
    /// FIDE 1.5: neither side can mate (`true`), one can (`false`), or not decided (`null`).
    pub dead: Option<bool>,
    /// Why the position is dead (both reasons), when it is.
    pub dead_reason: Option<String>,
}

/// A report per side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sides {
    /// White as the intended winner.
    pub white: SideReport,
    /// Black as the intended winner.
    pub black: SideReport,
}

/// FIDE 1.5 from the two sides' decisions: dead when neither can mate, alive when one can, else unknown.
pub fn dead_outcome(white: &Decision, black: &Decision) -> Option<bool> {
    match (&white.verdict, &black.verdict) {
        (Verdict::Winnable { .. }, _) | (_, Verdict::Winnable { .. }) => Some(false),
        (Verdict::Unwinnable { .. }, Verdict::Unwinnable { .. }) => Some(true),
        _ => None,
    }
}

/// Decide both sides and FIDE 1.5 for `pos`.
///
/// # Errors
/// [`Error::Mismatch`] when a helpmate fails its replay (a bug).
pub fn dead_report(pos: &Checked, limits: &Limits, chess960: bool) -> Result<DeadReport> {
    let w = decide(pos, Color::White, limits)?;
    let b = decide(pos, Color::Black, limits)?;
    let dead = dead_outcome(&w, &b);
    let dead_reason = match (dead, &w.verdict, &b.verdict) {
        (Some(true), Verdict::Unwinnable { reason: rw }, Verdict::Unwinnable { reason: rb }) => {
            Some(if rw == rb {
                rw.to_string()
            } else {
                format!("white: {rw}; black: {rb}")
            })
        }
        _ => None,
    };
    Ok(DeadReport {
        winnable: Sides {
            white: w.report(chess960),
            black: b.report(chess960),
        },
        dead,
        dead_reason,
    })
}

// ---------------------------------------------------------------------------------------------------------
// Bitboard helpers.

pub(super) fn attacks(role: usize, sq: usize, occ: u64) -> u64 {
    match role {
        KNIGHT_I => KNIGHT[sq],
        BISHOP_I => MagicSliders::bishop(sq, occ),
        ROOK_I => MagicSliders::rook(sq, occ),
        QUEEN_I => MagicSliders::bishop(sq, occ) | MagicSliders::rook(sq, occ),
        _ => KING[sq],
    }
}

pub(super) fn pawn_attacks(pawns: u64, color: usize) -> u64 {
    let mut out = 0;
    let mut bits = pawns;
    while bits != 0 {
        out |= PAWN[color][bits.trailing_zeros() as usize];
        bits &= bits - 1;
    }
    out
}

pub(super) fn in_check(b: &Board) -> bool {
    mg::checkers::<MagicSliders>(b) != 0
}

pub(super) fn legal(b: &Board, cd: &CastlingData) -> mg::MoveList {
    mg::moves::<MagicSliders>(b, cd)
}

/// Whether the side to move has no legal move (counted, no list built).
pub(super) fn no_legal_move(b: &Board, cd: &CastlingData) -> bool {
    mg::count::<MagicSliders>(b, cd) == 0
}

/// The legal moves appended to `out` (a buffer the caller reuses: no allocation per position).
pub(super) fn legal_into(b: &Board, cd: &CastlingData, out: &mut Vec<u32>) {
    struct Into<'a>(&'a mut Vec<u32>);
    impl mg::Consumer for Into<'_> {
        #[inline(always)]
        fn take(&mut self, m: u32) {
            self.0.push(m);
        }
    }
    mg::generate::<MagicSliders, _>(b, cd, &mut Into(out));
}

/// The exact identity of a position (pieces, side to move, e.p. square, castling rights): no hash.
pub(super) fn exact_key(b: &Board) -> [u64; 8] {
    let r = &b.roles;
    [
        r[PAWN_I],
        r[KNIGHT_I],
        r[BISHOP_I],
        r[ROOK_I],
        r[QUEEN_I],
        b.colors[0],
        b.colors[1],
        b.turn as u64 | (b.ep as u64) << 8 | (b.castling as u64) << 16,
    ]
}

// ---------------------------------------------------------------------------------------------------------
// The decision.

/// Replay `line` from `pos` with the reference generator: every move legal, and the end a checkmate of the
/// side that is not `winner` (FIDE 1.4.1, 3.9, 5.1.1). One legality check per ply ([`Mailbox::is_legal`]: the
/// moving piece's moves only) and the full move list only in the last position.
fn replay(pos: &Checked, winner: Color, line: &[Move]) -> Result<()> {
    let mut cur = Mailbox::from_setup(pos.setup());
    for (i, &m) in line.iter().enumerate() {
        if !cur.is_legal(m) {
            return Err(Error::Mismatch(format!(
                "bug: helpmate move {} ({}) is not legal in '{}' per the reference generator",
                i + 1,
                m.to_uci(true),
                cur.to_setup().to_fen()
            )));
        }
        cur = cur.play(m);
    }
    if cur.turn() == winner || !cur.legal_moves().is_empty() || !cur.in_check() {
        return Err(Error::Mismatch(format!(
            "bug: helpmate for {} from '{}' does not end in checkmate per the reference generator",
            winner.name(),
            pos.to_fen()
        )));
    }
    Ok(())
}

/// Decide whether `winner` can still checkmate in `pos` by any series of legal moves (FIDE 1.5, 6.9).
///
/// # Errors
/// [`Error::Mismatch`] when a helpmate found does not replay to checkmate in the reference generator (a bug;
/// never returned as an answer).
pub fn decide(pos: &Checked, winner: Color, limits: &Limits) -> Result<Decision> {
    decide_next(pos, winner, limits, &mut Memo::default())
}

/// What the queries of one position tell the next query of the same position ([`decide_next`]).
#[derive(Clone, Debug, Default)]
pub struct Memo {
    /// The scan path's small closure ran out of positions for an earlier winner.
    closure_stopped: bool,
}

/// [`decide`] for one of several intended winners of the same position, asked in turn with the same `memo`
/// (a new one per position). In the scan path a small closure that ran out of its positions for one winner is
/// not run for the next, which is then `Undetermined` (`Limit::Quick`): both closures explore the same
/// positions but for what each winner's material and blocked-structure proofs cut off, and on CHA-Solver's
/// tests/positions.txt (2026-12-03) none of the 444 + 36 + 24 positions whose first closure stopped had a
/// second one that closed (36 met a helpmate, which the scan does not print). Every other answer is
/// [`decide`]'s.
///
/// # Errors
/// As [`decide`].
pub fn decide_next(
    pos: &Checked,
    winner: Color,
    limits: &Limits,
    memo: &mut Memo,
) -> Result<Decision> {
    // No clock is read without a time limit: `Instant::now` panics on wasm32-unknown-unknown (the web page
    // passes `time: None`).
    let deadline = limits.time.map(|t| Instant::now() + t);
    let (mut root, cd) = Board::from_setup(pos.setup());
    let finish = |verdict: Verdict, nodes: u64| -> Result<Decision> {
        if let Verdict::Winnable { helpmate } = &verdict {
            replay(pos, winner, helpmate)?;
        }
        Ok(Decision {
            winner,
            verdict,
            nodes,
        })
    };
    // Forced moves first (after CHA's "trivial progress"): while there is only one legal move, play it. A forced
    // line that repeats a position is everything reachable, with no mate on it.
    // (Most positions have more than one move: the line's keys are only stored once there is a forced move.)
    let mut prefix: Vec<u32> = Vec::new();
    let mut line_seen: Vec<[u64; 8]> = Vec::new();
    let mut list = legal(&root, &cd);
    while prefix.len() < 100 {
        let &[m] = list.as_slice() else { break };
        if line_seen.is_empty() {
            line_seen.push(exact_key(&root));
        }
        root = root.make::<true>(&cd, m);
        prefix.push(m);
        let key = exact_key(&root);
        if line_seen.contains(&key) {
            let positions = line_seen.len() as u64;
            return finish(
                Verdict::Unwinnable {
                    reason: Reason::ExhaustedSearch { positions },
                },
                positions,
            );
        }
        line_seen.push(key);
        list = legal(&root, &cd);
    }
    let forced: Vec<Move> = prefix.iter().map(|&m| mg::to_move(m)).collect();
    let wrap = |reason: Reason| {
        if forced.is_empty() {
            reason
        } else {
            Reason::Forced {
                moves: forced.clone(),
                then: Box::new(reason),
            }
        }
    };
    let to_moves = |line: Vec<u32>| {
        prefix
            .iter()
            .copied()
            .chain(line)
            .map(mg::to_move)
            .collect::<Vec<_>>()
    };
    // The game is over already (FIDE 5.1.1, 5.2.1).
    let root_moves = list.as_slice();
    if root_moves.is_empty() {
        let verdict = if !in_check(&root) {
            Verdict::Unwinnable {
                reason: wrap(Reason::GameOver("stalemate")),
            }
        } else if root.turn as usize == winner.index() {
            Verdict::Unwinnable {
                reason: wrap(Reason::GameOver("checkmated")),
            }
        } else {
            Verdict::Winnable {
                helpmate: to_moves(Vec::new()),
            }
        };
        return finish(verdict, 1);
    }
    if let Some(text) = material_reason(&root, winner) {
        return finish(
            Verdict::Unwinnable {
                reason: wrap(Reason::InsufficientMaterial(text)),
            },
            1,
        );
    }
    let total = limits.nodes.max(1);
    // The short-lines proof needs every line to end within a few plies; the fast paths skip it where the
    // winner has more pawns, rooks and queens than plies and the side to move many moves ([`lines::may_end`]).
    let (proof, line_nodes) =
        if (limits.scan || limits.quick) && !lines::may_end(&root, winner, root_moves.len()) {
            (None, 0)
        } else {
            lines::every_line(&root, &cd, winner, total, root_moves)
        };
    if let Some(positions) = proof {
        return finish(
            Verdict::Unwinnable {
                reason: wrap(Reason::EveryLine {
                    plies: lines::PLIES,
                    positions,
                }),
            },
            positions,
        );
    }
    if let Some(reason) = blocked_reason(&root, winner) {
        return finish(
            Verdict::Unwinnable {
                reason: wrap(reason),
            },
            1,
        );
    }
    // The fortress proof over pawn configurations (saturate.rs): pawns that can still move a little. The quick
    // and scan paths skip it where a pawn has an empty file ahead ([`free_pawn`]) or few pawns stand blocked
    // ([`mostly_blocked`]).
    let gated = (limits.scan || limits.quick) && (free_pawn(&root) || !mostly_blocked(&root));
    let fortress = if gated {
        None
    } else {
        fortress_reason(&root, winner, deadline)
    };
    if let Some(reason) = fortress {
        return finish(
            Verdict::Unwinnable {
                reason: wrap(reason),
            },
            1,
        );
    }
    // The root counted one node (the short lines visited it first).
    let mut nodes = line_nodes.max(1);
    if limits.scan || limits.quick {
        let (outcome, used) =
            small_search(&root, &cd, winner, limits, total - nodes, deadline, memo);
        let verdict = match outcome {
            Closure::Mate(line) => Verdict::Winnable {
                helpmate: to_moves(line),
            },
            Closure::Closed(positions) => Verdict::Unwinnable {
                reason: wrap(Reason::ExhaustedSearch { positions }),
            },
            Closure::Stopped(limit) => Verdict::Undetermined { limit },
        };
        return finish(verdict, nodes + used);
    }
    // A short helpmate probe: most positions with material to mate have one within a few plies.
    // (The root counted one node; every stage below gets at most the nodes left, so the limit holds exactly.)
    let probe = (total - nodes).min(5_000);
    let (found, used) = if probe > 0 {
        helpmate_search(&root, &cd, winner.index(), probe, probe, 2, deadline)
    } else {
        (Err(Limit::Nodes), 0)
    };
    nodes += used;
    if let Ok(line) = found {
        return finish(
            Verdict::Winnable {
                helpmate: to_moves(line),
            },
            nodes,
        );
    }
    if matches!(found, Err(Limit::Time)) {
        return finish(Verdict::Undetermined { limit: Limit::Time }, nodes);
    }
    // Then alternate the closure (resumed up to each size: positions stored in all) with the helpmate search
    // (each stage at most half the nodes left, and the number given): small positions are decided by the first
    // closure, most winnable ones by the first search; a larger closure, a longer search, the largest closure,
    // then the search with the rest. On CHA's vectors at 2,000,000 nodes, against one closure of 10,000 and one
    // of 200,000 around a search of 100,000 (25 undetermined, 25.5 s, median of 5 runs): a middle search of
    // 300,000 gave 26 and 21.7 s (median of 3), of 500,000 (kept) 25 and 19.6 s (one run); a noisy machine.
    //
    // The first stage is a search of 10,000 nodes: real game positions the probe misses are mostly found within
    // it (the first 4,000 queries of CHA-Solver's tests/lichess.txt: 6.05 M nodes in all with the closure
    // first, 4.38 M with this search first; the same verdicts), and small positions pay 10,000 nodes more.
    let shares: &[(bool, u64)] = &[
        (false, 10_000),
        (true, 10_000),
        (false, 100_000),
        (true, 50_000),
        (false, 500_000),
        (true, 200_000),
    ];
    let mut run: Option<closure::Run> = None;
    // One helpmate search for the two search stages: the second goes on where the first stopped.
    let mut search: Option<Helpmate> = None;
    let new_search = || {
        Helpmate::new(
            &root,
            &cd,
            winner.index(),
            (total / 2).max(ITERATION_NODES_MIN),
            i32::MAX - 1,
            total,
            deadline,
        )
    };
    for &(is_closure, share) in shares {
        let left = total.saturating_sub(nodes);
        if left == 0 {
            break;
        }
        if is_closure {
            let run = run.get_or_insert_with(|| closure::Run::new(&root));
            let before = run.len();
            let outcome = run.run(&cd, winner, share.min(before + left), deadline);
            nodes += run.len() - before;
            match outcome {
                Closure::Mate(line) => {
                    return finish(
                        Verdict::Winnable {
                            helpmate: to_moves(line),
                        },
                        nodes,
                    )
                }
                Closure::Closed(positions) => {
                    return finish(
                        Verdict::Unwinnable {
                            reason: wrap(Reason::ExhaustedSearch { positions }),
                        },
                        nodes,
                    )
                }
                Closure::Stopped(Limit::Time) => {
                    return finish(Verdict::Undetermined { limit: Limit::Time }, nodes)
                }
                Closure::Stopped(_) => {}
            }
        } else {
            let (found, used) = search
                .get_or_insert_with(new_search)
                .run((left / 2).clamp(1, share));
            nodes += used;
            match found {
                Ok(line) => {
                    return finish(
                        Verdict::Winnable {
                            helpmate: to_moves(line),
                        },
                        nodes,
                    )
                }
                Err(Limit::Time) => {
                    return finish(Verdict::Undetermined { limit: Limit::Time }, nodes)
                }
                Err(_) => {}
            }
        }
    }
    // Out of nodes (said first: with `--quick` and a tiny limit, the limit is what stopped it).
    let left = total.saturating_sub(nodes);
    if left == 0 {
        return finish(
            Verdict::Undetermined {
                limit: Limit::Nodes,
            },
            nodes,
        );
    }
    let (found, used) = search.get_or_insert_with(new_search).run(left);
    nodes += used;
    match found {
        Ok(line) => finish(
            Verdict::Winnable {
                helpmate: to_moves(line),
            },
            nodes,
        ),
        Err(limit) => finish(Verdict::Undetermined { limit }, nodes),
    }
}

/// Whether some pawn has no unit of either colour anywhere ahead of it on its file. The fortress proof over pawn
/// configurations then meets the configuration where that pawn promotes (pieces step aside) and gives up, so the
/// quick and scan paths skip it (a gate only, never a proof: the default path still tries it). Most real game
/// positions have such a pawn, and the proof's regions were a fifth of the scan's time; the gate cost no proof
/// on CHA-Solver's test files (scan mode, 2026-12-03: tests/lichess.txt 2,409 and tests/positions.txt 2,369
/// queries proved unwinnable with and without it).
fn free_pawn(root: &Board) -> bool {
    let pawns = root.roles[PAWN_I];
    let white = pawns & root.colors[Color::White.index()];
    let black = pawns & root.colors[Color::Black.index()];
    // The squares with a unit somewhere above (for White) and below (for Black) on the file.
    let units = root.colors[0] | root.colors[1];
    let (mut ahead_w, mut ahead_b) = (units >> 8, units << 8);
    for _ in 0..5 {
        ahead_w |= ahead_w >> 8;
        ahead_b |= ahead_b << 8;
    }
    white & !ahead_w != 0 || black & !ahead_b != 0
}

/// Whether at least max(1, pawns / 2 − 2) pawns stand blocked by an enemy pawn in front of them (after the
/// "low entropy" condition of CHA-Solver's fast check, which tries its deeper steps only then). A gate of the
/// quick and scan paths' fortress proof, never a proof. Measured with the closure's [`free_pawn`] gate, scan
/// mode, one thread, CHA-Solver's test files (2026-12-03, shared machine, two runs): tests/lichess.txt
/// 1.79–1.83 s CPU before, 1.12–1.21 s with both gates, 2,410 proved either way; tests/positions.txt
/// 2,419 proved before, 2,379 with both (CHA-Solver's fast check: 2,334).
fn mostly_blocked(root: &Board) -> bool {
    let pawns = |c: Color| root.colors[c.index()] & root.roles[PAWN_I];
    let blocked = ((pawns(Color::White) << 8) & pawns(Color::Black)).count_ones();
    let all = root.roles[PAWN_I].count_ones();
    blocked >= (all / 2).saturating_sub(2).max(1)
}

/// The pseudo-legal moves of the side not to move, counted roughly (each piece's attacked squares not held by
/// its own side, each pawn's push onto an empty square and captures): the side to move having few moves is not
/// enough for the small closure when the other side moves freely.
fn other_side_mobility(root: &Board) -> u32 {
    let them = root.turn as usize ^ 1;
    let (own, occ) = (root.colors[them], root.colors[0] | root.colors[1]);
    let pawns = root.roles[PAWN_I] & own;
    let ahead = if them == 0 { pawns << 8 } else { pawns >> 8 };
    let pushes = ahead & !occ;
    let mut count =
        pushes.count_ones() + (pawn_attacks(pawns, them) & root.colors[them ^ 1]).count_ones();
    let mut bits = own & !pawns;
    while bits != 0 {
        let sq = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        count += (attacks(root.role_on(1u64 << sq), sq, occ) & !own).count_ones();
    }
    count
}

/// The gate of the quick and scan paths' small closure: the side to move has at most [`CLOSURE_GATE_MOVES`]
/// legal moves, the other side at most [`CLOSURE_GATE_OTHER_MOVES`] ([`other_side_mobility`]), some pawn
/// stands blocked by an enemy pawn in front of it (after CHA-Solver's fast check,
/// which tries its deeper steps only on mutually blocked pawn structures), and no pawn has an empty file ahead
/// ([`free_pawn`]: its promotion alone would fill the closure's budget). A closure of [`QUICK_NODES`]
/// positions closes only where almost nothing can move; measured: on CHA-Solver's tests/positions.txt the
/// scan proves 2,399 queries unwinnable with the move gate alone and 2,369 with both (1,877 with no closure),
/// and on the first 4,000 queries of its tests/lichess.txt the blocked-pawn gate halves the scan's time.
fn closure_may_close(root: &Board, cd: &CastlingData) -> bool {
    let pawns = |c: Color| root.colors[c.index()] & root.roles[PAWN_I];
    let blocked = (pawns(Color::White) << 8) & pawns(Color::Black);
    blocked != 0
        && !free_pawn(root)
        && mg::count::<MagicSliders>(root, cd) <= CLOSURE_GATE_MOVES
        && other_side_mobility(root) <= CLOSURE_GATE_OTHER_MOVES
}

/// The quick and scan paths after the static proofs, with `left` nodes: a small helpmate probe (quick only),
/// then, where the side to move has at most [`CLOSURE_GATE_MOVES`] moves, a closure of [`QUICK_NODES`]
/// positions. The outcome and the nodes used; `Stopped(Limit::Quick)` when these small steps decided nothing
/// with nodes left.
fn small_search(
    root: &Board,
    cd: &CastlingData,
    winner: Color,
    limits: &Limits,
    left: u64,
    deadline: Option<Instant>,
    memo: &mut Memo,
) -> (Closure, u64) {
    let mut used = 0;
    if !limits.scan {
        let probe = left.min(QUICK_PROBE_NODES);
        let (found, n) = helpmate_search(root, cd, winner.index(), probe, probe, 2, deadline);
        used += n;
        match found {
            Ok(line) => return (Closure::Mate(line), used),
            Err(Limit::Time) => return (Closure::Stopped(Limit::Time), used),
            Err(_) => {}
        }
    }
    let left = left - used;
    if left == 0 {
        return (Closure::Stopped(Limit::Nodes), used);
    }
    if (limits.scan && memo.closure_stopped) || !closure_may_close(root, cd) {
        return (Closure::Stopped(Limit::Quick), used);
    }
    let mut run = closure::Run::new(root);
    let before = run.len();
    let share = QUICK_NODES;
    let outcome = run.run(cd, winner, share.min(before + left), deadline);
    used += run.len() - before;
    if matches!(outcome, Closure::Stopped(Limit::Nodes)) {
        memo.closure_stopped = true;
    }
    let outcome = match outcome {
        Closure::Stopped(Limit::Nodes) if left > share => Closure::Stopped(Limit::Quick),
        other => other,
    };
    (outcome, used)
}

/// A shortest helpmate for `winner` from `pos` (FIDE 1.5, 6.9), by the breadth-first closure over every
/// reachable position with at most `max_positions` stored: `Ok(None)` when none is found within them (none
/// exists when the closure ends first; [`decide`] says which). [`decide`] returns the first helpmate its search
/// meets, often longer; this one is shortest in plies. Replayed by the reference generator like every helpmate.
pub fn shortest_helpmate(
    pos: &Checked,
    winner: Color,
    max_positions: u64,
) -> Result<Option<Vec<Move>>> {
    let (root, cd) = Board::from_setup(pos.setup());
    match closure::Run::new(&root).run(&cd, winner, max_positions.max(1), None) {
        Closure::Mate(line) => {
            let line: Vec<Move> = line.into_iter().map(mg::to_move).collect();
            replay(pos, winner, &line)?;
            Ok(Some(line))
        }
        Closure::Closed(_) | Closure::Stopped(_) => Ok(None),
    }
}

/// Bounded exhaustive cooperative search, for tests: whether any line of at most `plies` legal moves from `pos`
/// ends in checkmate of the side that is not `winner` (plain full-width search with exact keys, no pruning
/// rules: independent of [`decide`]'s proofs).
pub fn mate_within(pos: &Checked, winner: Color, plies: u32) -> bool {
    fn walk(
        b: &Board,
        cd: &CastlingData,
        winner: usize,
        left: u32,
        seen: &mut HashMap<[u64; 8], u32>,
    ) -> bool {
        let list = legal(b, cd);
        let moves = list.as_slice();
        if moves.is_empty() {
            return b.turn as usize != winner && in_check(b);
        }
        if left == 0 {
            return false;
        }
        match seen.get(&exact_key(b)) {
            Some(&l) if l >= left => return false,
            _ => {
                seen.insert(exact_key(b), left);
            }
        }
        moves
            .iter()
            .any(|&m| walk(&b.make::<false>(cd, m), cd, winner, left - 1, seen))
    }
    let (root, cd) = Board::from_setup(pos.setup());
    walk(&root, &cd, winner.index(), plies, &mut HashMap::new())
}
