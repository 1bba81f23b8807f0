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

use crate::error::{Error, Result};
use crate::fast::attacks::{MagicSliders, Sliders, KING, KNIGHT, PAWN};
use crate::fast::board::{
    Board, CastlingData, BISHOP_I, KING_I, KNIGHT_I, NO_EP, PAWN_I, QUEEN_I, ROOK_I,
};
use crate::fast::movegen::{self as mg};
use crate::reference::Mailbox;
use crate::types::{Color, Move, Piece, Role, Square};
use crate::validate::Checked;
use hashbrown::HashMap;
use serde::Serialize;
use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Light squares (b1, a2, …, h8 is dark).
const LIGHT: u64 = 0x55AA_55AA_55AA_55AA;
/// Dark squares (a1, h8, …).
const DARK: u64 = !LIGHT;
/// Longest helpmate the depth-first search follows (plies).
const MAX_PLY: usize = 500;
/// Beyond this many plies the helpmate search rewards no progress (it would otherwise wander forever).
const REWARD_PLY: usize = 400;
/// Nodes of one iteration of the deepening helpmate search before it moves on to the next budget.
const ITERATION_NODES: u64 = 20_000;
/// Depth cost of a move that undoes progress (measured on CHA's vectors: 1 found more helpmates than 2 or 3;
/// such moves still lose the free move that follows progress). Children are searched in generation order.
const PUNISH: i32 = 1;
/// Nodes of each step of the quick path (helpmate probe, closure).
const QUICK_NODES: u64 = 3_000;

/// Search limits of one query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Positions visited at most (helpmate search and closure together).
    pub nodes: u64,
    /// Wall-clock limit per query.
    pub time: Option<Duration>,
    /// The quick path: material and blocked-structure proofs, and only a small search (sound, incomplete).
    pub quick: bool,
}

impl Default for Limits {
    /// 500,000 nodes (CHA's default) and 1 s per query.
    fn default() -> Limits {
        Limits {
            nodes: 500_000,
            time: Some(Duration::from_secs(1)),
            quick: false,
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

fn squares_of(bb: u64) -> Vec<Square> {
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
                for r in regions {
                    write!(
                        f,
                        "; {}{} reaches only {}",
                        r.piece.char(),
                        r.square,
                        square_list(r.reach)
                    )?;
                }
                write!(
                    f,
                    "; so wherever the winner could give check the king keeps a flight square"
                )
            }
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

fn attacks(role: usize, sq: usize, occ: u64) -> u64 {
    match role {
        KNIGHT_I => KNIGHT[sq],
        BISHOP_I => MagicSliders::bishop(sq, occ),
        ROOK_I => MagicSliders::rook(sq, occ),
        QUEEN_I => MagicSliders::bishop(sq, occ) | MagicSliders::rook(sq, occ),
        _ => KING[sq],
    }
}

fn pawn_attacks(pawns: u64, color: usize) -> u64 {
    let mut out = 0;
    let mut bits = pawns;
    while bits != 0 {
        out |= PAWN[color][bits.trailing_zeros() as usize];
        bits &= bits - 1;
    }
    out
}

fn in_check(b: &Board) -> bool {
    mg::checkers::<MagicSliders>(b) != 0
}

fn legal(b: &Board, cd: &CastlingData) -> mg::MoveList {
    mg::moves::<MagicSliders>(b, cd)
}

/// The exact identity of a position (pieces, side to move, e.p. square, castling rights): no hash.
fn exact_key(b: &Board) -> [u64; 8] {
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
// (a) Material (FIDE 1.5, 5.2.2).

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
pub fn material_reason(b: &Board, winner: Color) -> Option<String> {
    let w = winner.index();
    let (wp, lp) = (b.colors[w], b.colors[w ^ 1]);
    let r = &b.roles;
    let w_others = wp & !r[KING_I];
    if w_others == 0 {
        return Some(format!("{} has only its king", winner.name()));
    }
    if r[PAWN_I] & wp != 0 || (r[ROOK_I] | r[QUEEN_I]) & wp != 0 {
        return None;
    }
    let l_others = lp & !r[KING_I];
    let (wn, wb) = (r[KNIGHT_I] & wp, r[BISHOP_I] & wp);
    if wb == 0 && wn.count_ones() == 1 && l_others == 0 {
        return Some(format!(
            "{} has king and knight, the other side a bare king",
            winner.name()
        ));
    }
    if wn == 0 && wb != 0 {
        let colour = if wb & LIGHT == 0 {
            DARK
        } else if wb & DARK == 0 {
            LIGHT
        } else {
            return None;
        };
        let l_bad = r[PAWN_I] | r[KNIGHT_I] | r[ROOK_I] | r[QUEEN_I] | (r[BISHOP_I] & !colour);
        if l_others & l_bad == 0 {
            return Some(format!(
                "{} has only bishops on {} squares, and the other side at most bishops on the same colour",
                winner.name(),
                if colour == LIGHT { "light" } else { "dark" }
            ));
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------------------
// (c) Blocked structure (semi-static).

/// Squares `role` can reach from `start` moving through `passable` squares, with slider lines stopped by `occ`.
fn flood(role: usize, start: usize, passable: u64, occ: u64) -> u64 {
    let mut reach = 1u64 << start;
    let mut frontier = reach;
    while frontier != 0 {
        let s = frontier.trailing_zeros() as usize;
        frontier &= frontier - 1;
        let next = attacks(role, s, occ) & passable & !reach;
        reach |= next;
        frontier |= next;
    }
    reach
}

/// The fixed pawn structure of `b`: `Some(pawns, regions)` when the proof below holds for every pawn and piece.
///
/// Proof (by induction on the moves of any continuation, up to the first move that changes the pawns): a pawn is
/// *blocked* when the square in front holds a blocked pawn (greatest fixed point: two pawns facing each other block
/// each other) or a king whose region (below) is its own square only: kings are never captured, so such a king stands
/// there for as long as the pawns do. No pawn can capture now (no enemy piece on a square it attacks, no e.p. square).
/// Each king can only walk through squares that hold no pawn and that no enemy pawn attacks (FIDE 3.8.2: moving onto an
/// attacked square is illegal, and these attacks last while the pawns stand); it may never stand next to an enemy pawn
/// that no other enemy pawn defends, unless the enemy king stands next to that pawn and can never move (kings never
/// stand next to each other, FIDE 3.8.2). Every other piece moves through squares without pawns (lines stopped by pawns
/// only: other pieces can move away or be captured, which only shrinks the region), its region never attacks an enemy
/// pawn and never contains a square an enemy pawn attacks. Then no move can ever capture a pawn or be a pawn move, so
/// the pawns stand forever and every piece stays in its region.
fn blocked_structure(b: &Board) -> Option<(u64, Vec<Region>)> {
    let r = &b.roles;
    let pawns = r[PAWN_I];
    let kings = r[KING_I];
    let mut fixed = pawns;
    loop {
        let white = fixed & b.colors[0] & ((fixed | kings) >> 8);
        let black = fixed & b.colors[1] & ((fixed | kings) << 8);
        let next = white | black;
        if next == fixed {
            break;
        }
        fixed = next;
    }
    if fixed != pawns || b.ep != NO_EP {
        return None;
    }
    // Kings standing right in front of a pawn: each must be unable to ever leave its square (checked below).
    let blocking_kings = kings & (((pawns & b.colors[0]) << 8) | ((pawns & b.colors[1]) >> 8));
    let pawn_att = [
        pawn_attacks(pawns & b.colors[0], 0),
        pawn_attacks(pawns & b.colors[1], 1),
    ];
    if pawn_att[0] & b.colors[1] != 0 || pawn_att[1] & b.colors[0] != 0 {
        return None;
    }
    // A king that can never move guards its neighbours for good: the other king never stands next to it.
    let guard = [0, 1].map(|c: usize| {
        let k = kings & b.colors[c];
        if k == 0 {
            return 0;
        }
        let reach = flood(
            KING_I,
            k.trailing_zeros() as usize,
            !(pawns | pawn_att[c ^ 1]),
            pawns,
        );
        if reach.count_ones() == 1 {
            KING[reach.trailing_zeros() as usize]
        } else {
            0
        }
    });
    let mut regions = Vec::new();
    let mut pieces = (b.colors[0] | b.colors[1]) & !pawns;
    while pieces != 0 {
        let sq = pieces.trailing_zeros() as usize;
        pieces &= pieces - 1;
        let bit = 1u64 << sq;
        let c = usize::from(b.colors[1] & bit != 0);
        let role = b.role_on(bit);
        let enemy_pawns = pawns & b.colors[c ^ 1];
        let enemy_att = pawn_att[c ^ 1];
        let reach = if role == KING_I {
            let reach = flood(KING_I, sq, !(pawns | enemy_att), pawns);
            let touch = squares_of(reach)
                .iter()
                .fold(0, |acc, s| acc | KING[s.index()]);
            if touch & enemy_pawns & !(enemy_att | guard[c ^ 1]) != 0 {
                return None;
            }
            if blocking_kings & bit != 0 && reach != bit {
                return None;
            }
            reach
        } else {
            let reach = flood(role, sq, !pawns, pawns);
            let att = squares_of(reach)
                .iter()
                .fold(0, |acc, s| acc | attacks(role, s.index(), pawns));
            if att & enemy_pawns != 0 || reach & enemy_att != 0 {
                return None;
            }
            reach
        };
        let color = if c == 0 { Color::White } else { Color::Black };
        regions.push(Region {
            piece: Piece::new(color, Role::ALL[role]),
            square: Square::new(sq as u8),
            reach,
        });
    }
    Some((pawns, regions))
}

/// The blocked-structure proof for `winner`: the structure is fixed (see [`blocked_structure`]), so every piece
/// stays in its region forever. Over-approximate what the winner can ever do: `attacked`, every square a winner's
/// pawn attacks, or a winner's piece attacks from a square of its region (lines stopped by pawns only), or the
/// winner's king touches from its region; `occupied`, every square of a winner's non-king piece's region. For
/// each square `k` the loser's king can reach and a winner's pawn or non-king piece can attack (elsewhere it is
/// never in check: a king never gives check; nor can it stand next to a winner's king that can never move), count
/// the neighbours of `k` that hold no pawn and that the winner can never attack or occupy ("free" squares): only
/// the loser's own non-king pieces could ever stand there, one square each. If at every such `k` the free
/// squares outnumber the loser's pieces that can reach any of them, the king on `k` always has a flight square
/// (moving there is legal: never attacked, never occupied by the winner, FIDE 3.8), so it is never checkmated.
fn blocked_reason(b: &Board, winner: Color) -> Option<Reason> {
    let (pawns, regions) = blocked_structure(b)?;
    let w = winner.index();
    let mut attacked = pawn_attacks(pawns & b.colors[w], w);
    // What can give check: pawns and pieces other than the king (a king never checks, FIDE 3.8.2).
    let mut checks = attacked;
    let mut occupied = 0;
    let mut loser_king = 0;
    let mut loser_pieces = Vec::new();
    for reg in &regions {
        let role = reg.piece.role.index();
        match (reg.piece.color == winner, role == KING_I) {
            (true, is_king) => {
                let mut att = 0;
                for s in squares_of(reg.reach) {
                    att |= attacks(role, s.index(), pawns);
                }
                attacked |= att;
                if !is_king {
                    occupied |= reg.reach;
                    checks |= att;
                }
            }
            (false, true) => loser_king = reg.reach,
            (false, false) => loser_pieces.push(reg.reach),
        }
    }
    // A winner's king that can never leave its square keeps the loser's king off that square and its neighbours
    // (kings never stand next to each other, FIDE 3.8.2).
    for reg in &regions {
        if reg.piece.color == winner
            && reg.piece.role.index() == KING_I
            && reg.reach.count_ones() == 1
        {
            loser_king &= !(reg.reach | KING[reg.reach.trailing_zeros() as usize]);
        }
    }
    let mut checkable = loser_king & checks;
    while checkable != 0 {
        let k = checkable.trailing_zeros() as usize;
        checkable &= checkable - 1;
        let free = KING[k] & !pawns & !attacked & !occupied;
        let blockers = loser_pieces.iter().filter(|&&r| r & free != 0).count();
        if free.count_ones() as usize <= blockers {
            return None;
        }
    }
    Some(Reason::Blocked { pawns, regions })
}

/// The squares `defender`'s pieces (its king and other pieces, not its pawns) can never reach in `pos`, when
/// the blocked-structure argument proves that the other side can never checkmate (`None` otherwise): the
/// fortress, for pictures (`analyze --svg`). Pawn squares are left out.
pub fn fortress(pos: &Checked, defender: Color) -> Option<u64> {
    let (root, _) = Board::from_setup(pos.setup());
    match blocked_reason(&root, !defender)? {
        Reason::Blocked { pawns, regions } if pawns != 0 => {
            let reach = regions
                .iter()
                .filter(|r| r.piece.color == defender)
                .fold(0, |acc, r| acc | r.reach);
            Some(!reach & !pawns)
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------------------
// (b) Cooperative helpmate search.

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
    tt: HashMap<(u64, u64), i32>,
    path: Vec<u32>,
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
        let list = legal(b, self.cd);
        let moves = list.as_slice();
        if moves.is_empty() {
            return b.turn as usize != self.winner && in_check(b);
        }
        let winner = if self.winner == 0 {
            Color::White
        } else {
            Color::Black
        };
        if budget < 0 || self.path.len() >= MAX_PLY || material_reason(b, winner).is_some() {
            return false;
        }
        // A sound cut: no mate below a proved blocked structure.
        if recheck && blocked_reason(b, winner).is_some() {
            return false;
        }
        match self.tt.get_mut(&(b.key, b.check)) {
            Some(seen) if *seen >= budget => return false,
            Some(seen) => *seen = budget,
            None => {
                self.tt.insert((b.key, b.check), budget);
            }
        }
        let winners_turn = b.turn as usize == self.winner;
        let (corner, king_target, block) = self.targets;
        let them = b.colors[b.turn as usize ^ 1];
        let loser_must_promote = !winners_turn && loser_must_promote(b, self.winner);
        let (locked, gap) = lock_state(b);
        let in_gap = locked && (gap.is_some() || was_gap);
        let loser_bishops = (b.roles[BISHOP_I] & b.colors[self.winner ^ 1]).count_ones();
        let rewards = self.path.len() < REWARD_PLY;
        let (cd, me) = (self.cd, self.winner);
        let children = moves.iter().map(|&m| {
            let child = b.make::<true>(cd, m);
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
            // Cost: 0 for progress, 1 normal (0 right after progress), 3 for moves that undo it.
            let cost = if reward {
                0
            } else if punish {
                PUNISH
            } else if progress {
                0
            } else {
                1
            };
            (cost, reward, m, child)
        });
        for (cost, reward, m, child) in children {
            self.path.push(m);
            if self.search(&child, budget - cost, reward, may_unblock(b, m), in_gap) {
                return true;
            }
            self.path.pop();
            if self.stopped.is_some() || self.local >= self.local_limit {
                return false;
            }
        }
        false
    }
}

/// Whether the blocked-structure argument ([`blocked_reason`]) may answer differently after move `m` than in
/// `b`: after a capture, a pawn move, castling, a move from a position with an e.p. square, or a king leaving a
/// square an enemy pawn attacks. After any other move every pawn and piece is where it was or, for the moved
/// piece, in the same region (regions are connected components of symmetric move graphs fixed by the pawns),
/// and the argument depends only on the pawns, the regions and the e.p. square.
fn may_unblock(b: &Board, m: u32) -> bool {
    let (from, to, role) = (
        ((m >> 6) & 63) as usize,
        (m & 63) as usize,
        (m >> 16) as usize,
    );
    let us = b.turn as usize;
    let them = b.colors[us ^ 1];
    them & (1 << to) != 0
        || role == PAWN_I
        || (m >> 14) & 3 == 3
        || b.ep != NO_EP
        || (role == KING_I && PAWN[us][from] & them & b.roles[PAWN_I] != 0)
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

/// The helpmate search from `root` with iterative deepening (budgets `0..=max_budget`, each iteration at most
/// `local_limit` nodes) up to the limits: the mate's moves, or the limit that stopped it.
fn helpmate_search(
    root: &Board,
    cd: &CastlingData,
    winner: usize,
    node_limit: u64,
    local_limit: u64,
    max_budget: i32,
    deadline: Option<Instant>,
) -> (std::result::Result<Vec<u32>, Limit>, u64) {
    let mut s = Search {
        cd,
        winner,
        targets: corner(root, winner),
        nodes: 0,
        node_limit,
        local: 0,
        local_limit,
        deadline,
        stopped: None,
        tt: HashMap::new(),
        path: Vec::new(),
    };
    for budget in 0..=max_budget {
        s.tt.clear();
        s.local = 0;
        // Deeper iterations get more nodes (after CHA: the iteration's share grows with its depth).
        if max_budget > 2 {
            s.local_limit = local_limit.saturating_mul(budget as u64 + 2) / 2;
        }
        s.path.clear();
        if s.search(root, budget, false, false, false) {
            return (Ok(s.path), s.nodes);
        }
        if let Some(limit) = s.stopped {
            return (Err(limit), s.nodes);
        }
    }
    (Err(Limit::Quick), s.nodes)
}

// ---------------------------------------------------------------------------------------------------------
// The closure: every reachable position, exactly.

enum Closure {
    Mate(Vec<u32>, u64),
    Closed(u64),
    Stopped(Limit, u64),
}

/// Breadth-first over every position reachable from `root` (exact keys), stopping at the first checkmate of the
/// loser (its line is a shortest helpmate). Positions where a material rule or the blocked-structure argument
/// proves the winner cannot mate are not expanded (a proof covers everything after them). The blocked-structure
/// argument is only re-tried after a capture, a pawn move, castling or an e.p. square: after any other move every
/// piece stays in the region it had (regions are connected components of symmetric move graphs), so the
/// argument gives the same answer as in the parent.
fn closure(
    root: &Board,
    cd: &CastlingData,
    winner: Color,
    state_limit: u64,
    deadline: Option<Instant>,
) -> Closure {
    let mut seen: HashMap<[u64; 8], ()> = HashMap::new();
    let mut states: Vec<(Board, u32, u32, bool)> = vec![(*root, u32::MAX, 0, true)];
    seen.insert(exact_key(root), ());
    let mut i = 0;
    while i < states.len() {
        if i.is_multiple_of(1024) && deadline.is_some_and(|d| Instant::now() >= d) {
            return Closure::Stopped(Limit::Time, states.len() as u64);
        }
        let (b, _, _, recheck) = states[i];
        let list = legal(&b, cd);
        let moves = list.as_slice();
        if moves.is_empty() {
            if b.turn as usize != winner.index() && in_check(&b) {
                let mut line = Vec::new();
                let mut j = i;
                while states[j].1 != u32::MAX {
                    line.push(states[j].2);
                    j = states[j].1 as usize;
                }
                line.reverse();
                return Closure::Mate(line, states.len() as u64);
            }
        } else if material_reason(&b, winner).is_none()
            && !(recheck && blocked_reason(&b, winner).is_some())
        {
            for &m in moves {
                let child = b.make::<true>(cd, m);
                if seen.insert(exact_key(&child), ()).is_none() {
                    if states.len() as u64 >= state_limit {
                        return Closure::Stopped(Limit::Nodes, states.len() as u64);
                    }
                    states.push((child, i as u32, m, may_unblock(&b, m)));
                }
            }
        }
        i += 1;
    }
    Closure::Closed(states.len() as u64)
}

// ---------------------------------------------------------------------------------------------------------
// The decision.

/// Replay `line` from `pos` with the reference generator: every move legal, and the end a checkmate of the
/// side that is not `winner` (FIDE 1.4.1, 3.9, 5.1.1).
fn replay(pos: &Checked, winner: Color, line: &[Move]) -> Result<()> {
    let mut cur = Mailbox::from_setup(pos.setup());
    for (i, &m) in line.iter().enumerate() {
        if !cur.legal_moves().contains(&m) {
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
    let mut prefix: Vec<u32> = Vec::new();
    let mut line_seen: HashMap<[u64; 8], ()> = HashMap::new();
    line_seen.insert(exact_key(&root), ());
    while prefix.len() < 100 {
        let list = legal(&root, &cd);
        let &[m] = list.as_slice() else { break };
        root = root.make::<true>(&cd, m);
        prefix.push(m);
        if line_seen.insert(exact_key(&root), ()).is_some() {
            let positions = line_seen.len() as u64;
            return finish(
                Verdict::Unwinnable {
                    reason: Reason::ExhaustedSearch { positions },
                },
                positions,
            );
        }
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
    if legal(&root, &cd).as_slice().is_empty() {
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
    if let Some(reason) = blocked_reason(&root, winner) {
        return finish(
            Verdict::Unwinnable {
                reason: wrap(reason),
            },
            1,
        );
    }
    let mut nodes = 1u64;
    let total = limits.nodes.max(1);
    // A short helpmate probe: most positions with material to mate have one within a few plies.
    let probe = total.min(if limits.quick { QUICK_NODES } else { 5_000 });
    let (found, used) = helpmate_search(&root, &cd, winner.index(), probe, probe, 2, deadline);
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
    // Then alternate: a small closure (small positions are decided at once), the helpmate search with half the
    // budget (most winnable positions end there), a larger closure, the search with the rest.
    let shares: Vec<(bool, u64)> = if limits.quick {
        vec![(true, QUICK_NODES)]
    } else {
        vec![(true, 10_000), (false, 2), (true, 200_000)]
    };
    for &(is_closure, share) in &shares {
        let left = total.saturating_sub(nodes).max(1);
        if is_closure {
            match closure(&root, &cd, winner, left.min(share), deadline) {
                Closure::Mate(line, visited) => {
                    return finish(
                        Verdict::Winnable {
                            helpmate: to_moves(line),
                        },
                        nodes + visited,
                    )
                }
                Closure::Closed(positions) => {
                    return finish(
                        Verdict::Unwinnable {
                            reason: wrap(Reason::ExhaustedSearch { positions }),
                        },
                        nodes + positions,
                    )
                }
                Closure::Stopped(Limit::Time, visited) => {
                    return finish(
                        Verdict::Undetermined { limit: Limit::Time },
                        nodes + visited,
                    )
                }
                Closure::Stopped(_, visited) => nodes += visited,
            }
        } else {
            let (found, used) = helpmate_search(
                &root,
                &cd,
                winner.index(),
                left / share,
                ITERATION_NODES,
                i32::MAX - 1,
                deadline,
            );
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
    if limits.quick {
        return finish(
            Verdict::Undetermined {
                limit: Limit::Quick,
            },
            nodes,
        );
    }
    let (found, used) = helpmate_search(
        &root,
        &cd,
        winner.index(),
        total.saturating_sub(nodes).max(1),
        ITERATION_NODES,
        i32::MAX - 1,
        deadline,
    );
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
