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
//! - [`Verdict::Unwinnable`] with a [`Reason`], each a proof written out where it is made: the game over
//!   already (FIDE 5.1.1, 5.2.1); insufficient material ([`material_reason`]); every short line ends without
//!   mate (`lines`); a blocked structure (`blocked`: every pawn can never move or capture; the squares each
//!   piece can ever reach are listed, and none lets the winner give check); a fortress over the reachable pawn
//!   configurations (`saturate`, with the tempo argument of `tempo`); every piece's region for the whole game
//!   with no square where the loser's king could be mated (`reach`, with case splits on pieces that have not
//!   moved but may be captured; after the full search's first stage), check chains followed to positions with
//!   such a proof (`reach`), the same regions on the hypothesis that no king takes a piece that never moves with
//!   a walk over the two kings' squares showing it breaks only in stalemate (`dance`); or an exhausted search
//!   (`closure`: every position reachable from the root, exactly compared, was visited and none is a checkmate
//!   of the loser).
//! - [`Verdict::Undetermined`]: a node or time limit was reached first.
//!
//! Soundness comes first: `Unwinnable` is only returned with one of the proofs above; the helpmate search
//! itself (`helpmate`, ordered by the heuristics of `ordering`) never proves anything unwinnable. The
//! 50/75-move and repetition rules (FIDE 9) are ignored, as by the Chess Unwinnability Analyzer (CHA): the
//! question is whether a mate exists at all.
//!
//! Method (ideas from CHA by Miguel Ambrona, written afresh): material rules first, then the semi-static
//! blocked-structure argument, then a cooperative helpmate search (iterative deepening where moves that make
//! progress toward a mating net in a corner cost no depth, moves that undo it cost more; 128-bit keyed
//! transposition table), and a breadth-first closure of all reachable positions with exact keys, which both
//! finds the shortest helpmate of small positions and proves the rest unwinnable when it closes.

mod blocked;
mod closure;
mod dance;
mod fast_path;
mod guided;
mod helpmate;
mod lines;
mod material;
mod ordering;
mod reach;
mod saturate;
mod screen;
mod tempo;
mod verdict;

pub use material::material_reason;
pub use saturate::fortress;
pub use screen::{checked, screened, screened_with, Pieces};
pub use verdict::{DeadReport, Decision, Limit, Reason, Region, SideReport, Sides, Verdict};

use blocked::blocked_reason;
use closure::Closure;
use helpmate::Helpmate;
use saturate::fortress_reason;

use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::king_attacks;
use crate::bitboard::movegen::{self as mg};
use crate::error::{Error, Result};
use crate::reference::Line;
use crate::types::{Color, Move, Role};
use crate::validate::Checked;
use hashbrown::HashMap;
use std::time::{Duration, Instant};

/// Nodes of one iteration of the deepening helpmate search before it moves on to the next budget: half the
/// query's node limit, at least this many. Measured on the 67 queries of CHA's vectors that a fixed share of
/// 20,000 left undetermined, at 5,000,000 nodes: shares of 5,000, 20,000, 40,000, 160,000, 1,000,000 and
/// 5,000,000 found 9, 16, 22, 39, 58 and 55 helpmates.
const ITERATION_NODES_MIN: u64 = 20_000;

/// The root's legal moves are counted up to this many ([`Root::count`]): the answers ask only whether a position
/// has none (the game is over), one (a forced move), or at most the gates' [`lines::GATE_MOVES`] and
/// [`fast_path::CLOSURE_GATE_MOVES`], which are below it (checked at compile time where they are defined).
const COUNT_CAP: u64 = 9;
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
    /// gated small closure, no helpmate search (sound, incomplete; a helpmate met on the way is neither replayed
    /// nor returned: `Undetermined` with [`Limit::Scan`]).
    pub scan: bool,
}

impl Default for Limits {
    /// 6,000,000 nodes and 1 s per query (CHA's default is 500,000 of its nodes; the units differ: this search
    /// does not count a loser's move into a leaf, it never makes it). The nodes were 3,000,000 until session 64
    /// ([`FIRST_PART_NODES`]); the time limit did not need to rise with them: on CHA-Solver's tests/positions.txt
    /// (release, `--threads 1`, a 2-core machine at load 1.4–3.9, five runs) the five queries the late part finds
    /// took 0.39–0.80 s each (line 2217 for White, 5,788,919 nodes, 0.54–0.78 s; the guided search's nodes are
    /// cheaper than the helpmate search's), those left undetermined at 6,000,000 nodes 0.47–1.06 s, the last
    /// stage's queries at 2,987,990 nodes 0.30–0.52 s; the three runs at `--time-limit 1` gave the same
    /// verdicts. Under a heavier load both kinds stop at 1 s (docs/dead-positions.md, session 64).
    fn default() -> Limits {
        Limits {
            nodes: 6_000_000,
            time: Some(Duration::from_secs(1)),
            quick: false,
            scan: false,
        }
    }
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

pub(super) fn in_check(b: &Board) -> bool {
    mg::checkers::<MagicSliders>(b) != 0
}

pub(super) fn legal(b: &Board, cd: &CastlingData) -> mg::MoveList {
    mg::moves::<MagicSliders>(b, cd)
}

/// Whether the side to move has no legal move (counted, no list built). A king step onto a square without a
/// piece of its own that no enemy piece attacks with the king lifted off the board is legal (FIDE 3.8.2, 3.9),
/// so such a step answers first: the helpmate search asks at every leaf where the loser is in check, and most
/// of them have one (the whole count there was 3 % of a callgrind profile of CHA-Solver's tests/lichess.txt).
pub(super) fn no_legal_move(b: &Board, cd: &CastlingData) -> bool {
    let us = b.turn();
    if let Some(king) = b.king(us) {
        let lifted = b.occupied_all().0 & !(1u64 << king.index());
        for to in king_attacks(king) & !b.occupied(us) {
            if mg::attackers_of::<MagicSliders>(b, to.index(), lifted) == 0 {
                return false;
            }
        }
    }
    mg::count::<MagicSliders>(b, cd) == 0
}

/// The legal moves appended to `out` (a buffer the caller reuses: no allocation per position): the guided
/// search's lists, and the tests' oracle of the helpmate search's tagged lists (the helpmate search itself
/// generates through its move ordering).
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

#[cfg(test)]
pub(super) use crate::random::xorshift;

/// Calls `visit` with each position of seeded random walks and its legal moves in generation order
/// ([`legal_into`]): `walks` walks from each of `fens`, at most `plies` plies each, a walk ending where no move
/// is left. Each step draws its move with `next`, which `visit` may draw from too (the tests' walks).
#[cfg(test)]
pub(super) fn random_walks(
    fens: &[&str],
    (walks, plies): (usize, usize),
    next: &mut impl FnMut() -> u64,
    mut visit: impl FnMut(&str, &Board, &CastlingData, &[u32], &mut dyn FnMut() -> u64),
) {
    for fen in fens {
        let (root, cd) = Board::from_setup(&crate::position::Setup::from_fen(fen).unwrap());
        for _ in 0..walks {
            let mut b = root;
            for _ in 0..plies {
                let mut plain = Vec::new();
                legal_into(&b, &cd, &mut plain);
                if plain.is_empty() {
                    break;
                }
                visit(fen, &b, &cd, &plain, &mut *next);
                b = b.make::<false>(&cd, plain[(next() % plain.len() as u64) as usize]);
            }
        }
    }
}

/// The exact identity of a position (pieces, side to move, e.p. square, castling rights): no hash.
pub(super) fn exact_key(b: &Board) -> [u64; 8] {
    let role = |r: Role| b.role(r).0;
    [
        role(Role::Pawn),
        role(Role::Knight),
        role(Role::Bishop),
        role(Role::Rook),
        role(Role::Queen),
        b.occupied(Color::White).0,
        b.occupied(Color::Black).0,
        b.turn as u64 | (b.ep as u64) << 8 | (b.castling as u64) << 16,
    ]
}

// ---------------------------------------------------------------------------------------------------------
// The decision.

/// Replay `line` from `pos` with the reference generator: every move legal, and the end a checkmate of the
/// side that is not `winner` (FIDE 1.4.1, 3.9, 5.1.1). One legality check per ply on one board ([`Line`]:
/// the moving piece's moves only, the king-safety test along the lines the move can open, the kings' squares
/// kept) and the full move generation only in the last position.
fn replay(pos: &Checked, winner: Color, line: &[Move]) -> Result<()> {
    let mut cur = Line::new(pos.setup());
    for (i, &m) in line.iter().enumerate() {
        if !cur.play(m) {
            return Err(Error::Mismatch(format!(
                "bug: helpmate move {} ({}) is not legal in '{}' per the reference generator",
                i + 1,
                m.to_uci(true),
                cur.position().to_setup().to_fen()
            )));
        }
    }
    if cur.position().turn() == winner || !cur.is_checkmate() {
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

/// What the queries of one position tell the next query of the same position ([`decide_next`]). It borrows
/// the position it was made from: a later query of that same `Checked` (the same reference) is recognized
/// without comparing the positions; an equal position elsewhere is compared, any other starts afresh.
#[derive(Clone, Debug, Default)]
pub struct Memo<'a> {
    /// The scan path's small closure ran out of positions for an earlier winner.
    closure_stopped: bool,
    /// The position after its forced moves, as the first query found it.
    root: Option<Root<'a>>,
    /// A position and its pieces as the validity screen gathered them ([`Memo::screened`]).
    pieces: Option<(&'a Checked, Pieces)>,
}

impl<'a> Memo<'a> {
    /// A memo for the queries of `pos`, whose pieces the validity screen gathered ([`screened`]; `None`: not
    /// gathered): the first query builds its board from them instead of gathering them again.
    pub fn screened(pos: &'a Checked, pieces: Option<Pieces>) -> Memo<'a> {
        Memo {
            pieces: pieces.map(|p| (pos, p)),
            ..Memo::default()
        }
    }
}

/// [`decide`] for one of several intended winners of the same position, asked in turn with the same `memo`
/// (a new one per position). In the scan path a small closure that ran out of its positions for one winner is
/// not run for the next, which is then `Undetermined` (`Limit::Quick`): both closures explore the same
/// positions but for what each winner's material and blocked-structure proofs cut off, and on CHA-Solver's
/// tests/positions.txt (2026-12-03) none of the 444 + 36 + 24 positions whose first closure stopped had a
/// second one that closed (36 met a helpmate, which the scan neither replays nor claims: [`Limit::Scan`]). Every other answer is
/// [`decide`]'s. The memo also keeps the position after its forced moves, its number of legal moves and the
/// short-lines proof's first line (the same for every winner), so the second query does not generate them again.
///
/// # Errors
/// As [`decide`].
pub fn decide_next<'a>(
    pos: &'a Checked,
    winner: Color,
    limits: &Limits,
    memo: &mut Memo<'a>,
) -> Result<Decision> {
    // No clock is read without a time limit: `Instant::now` panics on wasm32-unknown-unknown (the web page
    // passes `time: None`).
    let deadline = limits.time.map(|t| Instant::now() + t);
    // The memo's root serves only the position it was made from (checked, not assumed): the same reference
    // (borrowed for the memo's life, so the same position), or an equal position.
    let Memo {
        closure_stopped,
        root,
        pieces,
    } = memo;
    if !root
        .as_ref()
        .is_some_and(|r| std::ptr::eq(r.source, pos) || r.source == pos)
    {
        *closure_stopped = false;
        *root = None;
    }
    // The screen's pieces serve only the position they were gathered from (the same reference).
    let gathered = pieces.and_then(|(p, pieces)| std::ptr::eq(p, pos).then_some(pieces));
    let shared = root.get_or_insert_with(|| Root::of(pos, gathered));
    decide_from(pos, winner, limits, closure_stopped, shared, deadline)
}

/// The position after its forced moves, the same for every intended winner (kept in a [`Memo`]).
#[derive(Clone, Debug)]
struct Root<'a> {
    /// The position it was made from.
    source: &'a Checked,
    /// The board, its hashes not computed ([`Board::without_keys`]): most queries need none ([`Root::keyed`]).
    board: Board,
    /// The board with its hashes, made when a search first needs them.
    keyed: std::cell::OnceCell<Board>,
    /// The fast paths' gate of the fortress proof ([`fast_path::fortress_may_hold`]), the same for both winners.
    fortress_gate: std::cell::OnceCell<bool>,
    cd: CastlingData,
    /// The forced moves played.
    prefix: Vec<u32>,
    /// The number of legal moves of `board` (the fast generator's count, exact as in perft) where it is below
    /// [`COUNT_CAP`], else at least [`COUNT_CAP`].
    count: u64,
    /// Its first line (each position's first legal move, from it down), as far as the short-lines proof has
    /// walked it: the same for every winner ([`lines::FirstLine`]).
    first_line: std::cell::RefCell<lines::FirstLine>,
    /// A forced line that came back to a position: the positions on it.
    repeated: Option<u64>,
}

impl<'a> Root<'a> {
    /// Forced moves first (after CHA's "trivial progress"): while there is only one legal move, play it. A
    /// forced line that repeats a position is everything reachable, with no mate on it.
    /// (Most positions have more than one move: the line's keys are only stored once there is a forced move.)
    /// The boards are not hashed ([`Board::without_keys`], `make::<false>`): [`Root::keyed`] hashes the last.
    /// `pieces`: `pos`'s pieces as the validity screen gathered them, if it did.
    fn of(pos: &'a Checked, pieces: Option<Pieces>) -> Root<'a> {
        let (mut root, cd) = match pieces {
            Some(p) => Board::without_keys_from(pos.setup(), p),
            None => Board::without_keys(pos.setup()),
        };
        let mut prefix: Vec<u32> = Vec::new();
        let mut line_seen: Vec<[u64; 8]> = Vec::new();
        // Counted, not listed, unless forced, and only up to the cap: most positions need only to know that
        // they have more moves than the gates take (the whole count was a tenth of a scan of real positions).
        let mut count = mg::count_up_to::<MagicSliders>(&root, &cd, COUNT_CAP);
        let mut repeated = None;
        while prefix.len() < 100 && count == 1 {
            let m = legal(&root, &cd).as_slice()[0];
            if line_seen.is_empty() {
                line_seen.push(exact_key(&root));
            }
            root = root.make::<false>(&cd, m);
            prefix.push(m);
            let key = exact_key(&root);
            if line_seen.contains(&key) {
                repeated = Some(line_seen.len() as u64);
                break;
            }
            line_seen.push(key);
            count = mg::count_up_to::<MagicSliders>(&root, &cd, COUNT_CAP);
        }
        Root {
            source: pos,
            board: root,
            keyed: std::cell::OnceCell::new(),
            fortress_gate: std::cell::OnceCell::new(),
            cd,
            prefix,
            count,
            first_line: std::cell::RefCell::default(),
            repeated,
        }
    }

    /// The board with its Zobrist key and check hash, for the searches (their tables are keyed by them);
    /// computed once, on first use.
    fn keyed(&self) -> &Board {
        self.keyed.get_or_init(|| {
            let mut b = self.board;
            [b.key, b.check] = b.compute_key(&self.cd);
            b
        })
    }
}

/// [`decide_next`] from the position after its forced moves.
fn decide_from(
    pos: &Checked,
    winner: Color,
    limits: &Limits,
    closure_stopped: &mut bool,
    shared: &Root,
    deadline: Option<Instant>,
) -> Result<Decision> {
    let query = Query {
        winner,
        limits,
        shared,
        deadline,
        forced: shared.prefix.iter().map(|&m| mg::to_move(m)).collect(),
    };
    let (verdict, nodes) = query.decide(closure_stopped);
    let verdict = match verdict {
        // The scan answers only with proofs of unwinnability: a helpmate it meets (a tenth of the queries of
        // real games, a tenth of the scan's time in its replay) is neither replayed nor claimed.
        Verdict::Winnable { .. } if limits.scan => Verdict::Undetermined { limit: Limit::Scan },
        Verdict::Winnable { helpmate } => {
            replay(pos, winner, &helpmate)?;
            Verdict::Winnable { helpmate }
        }
        other => other,
    };
    Ok(Decision {
        winner,
        verdict,
        nodes,
    })
}

/// One query of [`decide_from`]: the position after its forced moves and what the answer is wrapped in.
struct Query<'a> {
    winner: Color,
    limits: &'a Limits,
    shared: &'a Root<'a>,
    deadline: Option<Instant>,
    /// The forced moves played before `shared.board`.
    forced: Vec<Move>,
}

impl Query<'_> {
    /// The proof `reason` of the position after the forced moves, as a proof for the query's position.
    fn unwinnable(&self, reason: Reason) -> Verdict {
        let reason = if self.forced.is_empty() {
            reason
        } else {
            Reason::Forced {
                moves: self.forced.clone(),
                then: Box::new(reason),
            }
        };
        Verdict::Unwinnable { reason }
    }

    /// A helpmate `line` from the position after the forced moves, as a helpmate from the query's position.
    fn winnable(&self, line: Vec<u32>) -> Verdict {
        let helpmate = self
            .shared
            .prefix
            .iter()
            .copied()
            .chain(line)
            .map(mg::to_move)
            .collect();
        Verdict::Winnable { helpmate }
    }

    /// The verdict of a closure's outcome.
    fn of_closure(&self, outcome: Closure) -> Verdict {
        match outcome {
            Closure::Mate(line) => self.winnable(line),
            Closure::Closed(positions) => self.unwinnable(Reason::ExhaustedSearch { positions }),
            Closure::Stopped(limit) => Verdict::Undetermined { limit },
        }
    }

    /// The node limit of the query.
    fn total(&self) -> u64 {
        self.limits.nodes.max(1)
    }

    /// The nodes of the full search's first part ([`FIRST_PART_NODES`] at most): every stage before the late
    /// plans, the static proofs' searches included, runs as if the query's limit were this.
    fn first_part(&self) -> u64 {
        self.total().min(FIRST_PART_NODES)
    }

    /// The verdict and the nodes visited: the static proofs, then the quick and scan paths' small search or
    /// the full search.
    ///
    /// The full search puts the costly proofs that the fast paths' gates hold back (the short lines where the
    /// winner has more heavy units than plies and the side to move many moves, the fortress where a pawn runs
    /// free or few pawns stand blocked: [`Proofs::HeldBack`]) after the first stage of its helpmate search
    /// ([`SHARES`]): a helpmate found first makes them moot (no proof of unwinnability holds where a helpmate
    /// exists, and every helpmate is replayed), and on real game positions that stage finds one at once. They
    /// still run, in the same order, before any longer search.
    fn decide(&self, closure_stopped: &mut bool) -> (Verdict, u64) {
        let line_nodes = match self.static_proofs(Proofs::Gated, self.first_part()) {
            Ok(decided) => return decided,
            Err(line_nodes) => line_nodes,
        };
        // The root counted one node (the short lines visited it first).
        let mut nodes = line_nodes.max(1);
        if self.limits.scan || self.limits.quick {
            let (outcome, used) = fast_path::small_search(
                self.shared,
                self.winner,
                self.limits,
                self.first_part() - nodes,
                self.deadline,
                closure_stopped,
            );
            return (self.of_closure(outcome), nodes + used);
        }
        let mut search: Option<Helpmate> = None;
        nodes = match self.first_search(nodes, &mut search) {
            Ok(decided) => return decided,
            Err(nodes) => nodes,
        };
        match self.static_proofs(Proofs::HeldBack, self.first_part() - nodes) {
            Ok((verdict, used)) => (verdict, nodes + used),
            Err(line_nodes) => self.search(nodes + line_nodes, search),
        }
    }

    /// The helpmate search of the full path, fresh (its table sized for the query's node limit, its iterations
    /// for the first part's).
    fn new_search(&self) -> Helpmate<'_> {
        Helpmate::new(
            self.shared.keyed(),
            &self.shared.cd,
            self.winner,
            (self.first_part() / 2).max(ITERATION_NODES_MIN),
            i32::MAX - 1,
            self.total(),
            self.deadline,
        )
    }

    /// The first stage of [`SHARES`], a helpmate search, `nodes` visited so far; `Err` with the nodes visited
    /// when it decides nothing (the search is kept in `search` to be resumed).
    fn first_search<'s>(
        &'s self,
        nodes: u64,
        search: &mut Option<Helpmate<'s>>,
    ) -> std::result::Result<(Verdict, u64), u64> {
        let left = self.first_part().saturating_sub(nodes);
        if left == 0 {
            return Err(nodes);
        }
        let (_, share) = SHARES[0];
        let (found, used) = search
            .get_or_insert_with(|| self.new_search())
            .run_iterations((left / 2).clamp(1, share), FIRST_ITERATION_NODES);
        let nodes = nodes + used;
        self.stage_end(found, nodes).ok_or(nodes)
    }

    /// A search stage's outcome, `nodes` visited so far: the verdict where it ends the query (a helpmate found,
    /// or out of time), `None` where the next stage goes on.
    fn stage_end(
        &self,
        found: std::result::Result<Vec<u32>, Limit>,
        nodes: u64,
    ) -> Option<(Verdict, u64)> {
        match found {
            Ok(line) => Some((self.winnable(line), nodes)),
            Err(Limit::Time) => Some((Verdict::Undetermined { limit: Limit::Time }, nodes)),
            Err(_) => None,
        }
    }

    /// The proofs that need no search, in order: a forced line that repeats, the game over, material, every
    /// short line ends, the blocked structure, the fortress over pawn configurations; the costly two only
    /// where the fast paths' gates let them through ([`Proofs::Gated`]), or only where they hold them back
    /// ([`Proofs::HeldBack`]: then nothing else), the short-lines proof visiting at most `left` positions. `Err`
    /// with the nodes the short-lines proof visited when none holds. The nodes of a proof: the positions it
    /// visited, or the root for a static one (counted in the first pass only, so that the node limit holds).
    fn static_proofs(&self, which: Proofs, left: u64) -> std::result::Result<(Verdict, u64), u64> {
        let (root, cd, winner) = (&self.shared.board, &self.shared.cd, self.winner);
        let gated = which == Proofs::Gated;
        let root_node = u64::from(gated);
        if gated {
            if let Some(decided) = self.cheap_proofs() {
                return Ok(decided);
            }
        }
        // The short-lines proof needs every line to end within a few plies; the gate holds it back where the
        // winner has more pawns, rooks and queens than plies and the side to move many moves ([`lines::may_end`]).
        let (proof, line_nodes) =
            if left == 0 || lines::may_end(root, winner, self.shared.count as usize) != gated {
                (None, 0)
            } else {
                let mut line = self.shared.first_line.borrow_mut();
                lines::every_line(root, cd, winner, left, &mut line)
            };
        if let Some(positions) = proof {
            let reason = Reason::EveryLine {
                plies: lines::PLIES,
                positions,
            };
            return Ok((self.unwinnable(reason), positions));
        }
        if gated {
            if let Some(reason) = blocked_reason(root, winner) {
                return Ok((self.unwinnable(reason), root_node));
            }
        }
        // The fortress proof over pawn configurations (saturate.rs): pawns that can still move a little. The
        // gate holds it back where a pawn has an empty file ahead ([`fast_path::free_pawn`]) or few pawns stand
        // blocked ([`fast_path::mostly_blocked`]).
        let may_hold = *self
            .shared
            .fortress_gate
            .get_or_init(|| fast_path::fortress_may_hold(root));
        if may_hold == gated {
            if let Some(reason) = fortress_reason(root, winner, self.deadline) {
                return Ok((self.unwinnable(reason), root_node));
            }
        }
        // The reach proof (reach.rs): pieces shut in for the whole game while pawns may still capture. Only
        // after the first stage of the full search, which decides real game positions first.
        if !gated {
            if let Some(reason) = reach::reach_reason(root, winner) {
                return Ok((self.unwinnable(reason), root_node));
            }
            if let Some(reason) = reach::check_chain_reason(root, cd, winner) {
                return Ok((self.unwinnable(reason), root_node));
            }
            if let Some(reason) = dance::dance_reason(root, winner) {
                return Ok((self.unwinnable(reason), root_node));
            }
        }
        Err(line_nodes)
    }

    /// The proofs that cost next to nothing: a forced line that repeats, the game over, material.
    fn cheap_proofs(&self) -> Option<(Verdict, u64)> {
        let (root, winner) = (&self.shared.board, self.winner);
        if let Some(positions) = self.shared.repeated {
            let verdict = Verdict::Unwinnable {
                reason: Reason::ExhaustedSearch { positions },
            };
            return Some((verdict, positions));
        }
        // The game is over already (FIDE 5.1.1, 5.2.1).
        if self.shared.count == 0 {
            let verdict = if !in_check(root) {
                self.unwinnable(Reason::GameOver("stalemate"))
            } else if root.turn() == winner {
                self.unwinnable(Reason::GameOver("checkmated"))
            } else {
                self.winnable(Vec::new())
            };
            return Some((verdict, 1));
        }
        let text = material_reason(root, winner)?;
        Some((self.unwinnable(Reason::InsufficientMaterial(text)), 1))
    }

    /// The full search after the static proofs and [`SHARES`]' first stage (kept in `search`), `nodes` visited
    /// so far: the first part ([`Query::first_part`]: the closure and the helpmate search in turn, the rest of
    /// [`SHARES`], the guided plans, the search with the nodes left), then the late part ([`Query::late_part`]).
    fn search<'s>(&'s self, nodes: u64, mut search: Option<Helpmate<'s>>) -> (Verdict, u64) {
        let mut nodes = match self.shares(nodes, &mut search) {
            Ok(decided) => return decided,
            Err(nodes) => nodes,
        };
        // The guided search (guided.rs) with a share of the nodes left (at most `left - 1`: some are always left
        // after it), then its other plans with their nodes (at most half of those left each), then the search
        // with the rest of the first part.
        let total = self.first_part();
        if total > nodes {
            let plans = std::iter::once((guided::PHASE_EIGHT, (total - nodes) / GUIDED_SHARE));
            nodes = match self.plans(nodes, plans.chain(guided::PLANS), total, 2) {
                Ok(decided) => return decided,
                Err(nodes) => nodes,
            };
            let search = search.get_or_insert_with(|| self.new_search());
            let (found, used) = search.run(total.saturating_sub(nodes));
            nodes += used;
            match found {
                Ok(line) => return (self.winnable(line), nodes),
                Err(Limit::Nodes) => {}
                Err(limit) => return (Verdict::Undetermined { limit }, nodes),
            }
        }
        self.late_part(nodes, search)
    }

    /// The rest of [`SHARES`] after its first stage (kept in `search`), `nodes` visited so far: the closure and
    /// the helpmate search in turn; `Err` with the nodes visited when they decide nothing.
    fn shares<'s>(
        &'s self,
        mut nodes: u64,
        search: &mut Option<Helpmate<'s>>,
    ) -> std::result::Result<(Verdict, u64), u64> {
        let (cd, winner) = (&self.shared.cd, self.winner);
        let total = self.first_part();
        let mut run: Option<closure::Run> = None;
        for &(is_closure, share) in &SHARES[1..] {
            let left = total.saturating_sub(nodes);
            if left == 0 {
                break;
            }
            if is_closure {
                let run = run.get_or_insert_with(|| closure::Run::new(self.shared.keyed()));
                let before = run.len();
                let outcome = run.run(cd, winner, share.min(before + left), self.deadline);
                nodes += run.len() - before;
                match outcome {
                    Closure::Stopped(Limit::Nodes | Limit::Quick) => {}
                    decided => return Ok((self.of_closure(decided), nodes)),
                }
            } else {
                let (found, used) = search
                    .get_or_insert_with(|| self.new_search())
                    .run((left / 2).clamp(1, share));
                nodes += used;
                if let Some(decided) = self.stage_end(found, nodes) {
                    return Ok(decided);
                }
            }
        }
        Err(nodes)
    }

    /// The guided search by each of `plans` in turn, `nodes` visited so far, each with at most its nodes and a
    /// `part` of those left below `total`; `Err` with the nodes visited when none finds a helpmate.
    fn plans(
        &self,
        mut nodes: u64,
        plans: impl Iterator<Item = (guided::Plan, u64)>,
        total: u64,
        part: u64,
    ) -> std::result::Result<(Verdict, u64), u64> {
        let (keyed, cd) = (self.shared.keyed(), &self.shared.cd);
        for (plan, share) in plans {
            let share = share.min(total.saturating_sub(nodes) / part);
            if share == 0 {
                continue;
            }
            let (found, used) =
                guided::guided_search(keyed, cd, self.winner, plan, share, self.deadline);
            nodes += used;
            if let Some(decided) = self.stage_end(found, nodes) {
                return Ok(decided);
            }
        }
        Err(nodes)
    }

    /// The late part of the full search, `nodes` visited so far: where the query's node limit exceeds
    /// [`FIRST_PART_NODES`], the late plans ([`guided::LATE_PLANS`], each with at most its nodes), then the
    /// helpmate search (`search`, resumed) with the rest; out of nodes otherwise (said first: with `--quick` and
    /// a tiny limit, the limit is what stopped it).
    fn late_part<'s>(&'s self, nodes: u64, search: Option<Helpmate<'s>>) -> (Verdict, u64) {
        let total = self.total();
        let nodes = match self.plans(nodes, guided::LATE_PLANS.into_iter(), total, 1) {
            Ok(decided) => return decided,
            Err(nodes) => nodes,
        };
        if total <= nodes {
            let limit = Limit::Nodes;
            return (Verdict::Undetermined { limit }, nodes);
        }
        let (found, used) = search
            .unwrap_or_else(|| self.new_search())
            .run(total - nodes);
        match found {
            Ok(line) => (self.winnable(line), nodes + used),
            Err(limit) => (Verdict::Undetermined { limit }, nodes + used),
        }
    }
}

/// Which of the costly static proofs (the short lines, the fortress) a call of [`Query::static_proofs`] tries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Proofs {
    /// Those the fast paths' gates let through, with the cheap proofs and the blocked structure.
    Gated,
    /// Only those the gates hold back (the full search tries them after the first stage of its helpmate search).
    HeldBack,
}

/// The stages of the full search after the static proofs ([`Query::first_search`], then [`Query::search`]; the
/// proofs the gates hold back run after the first stage): a closure (`true`, resumed up to each
/// size: positions stored in all) or the helpmate search (`false`, each stage at most half the nodes left, and
/// the number given). Small positions are decided by the first closure, most winnable ones by the first search;
/// a larger closure, a longer search, the largest closure, then the search with the rest. On CHA's vectors at
/// 2,000,000 nodes, against one closure of 10,000 and one of 200,000 around a search of 100,000 (25
/// undetermined, 25.5 s, median of 5 runs): a middle search of 300,000 gave 26 and 21.7 s (median of 3), of
/// 500,000 (kept) 25 and 19.6 s (one run); a noisy machine.
///
/// The first stage was a search of 10,000 nodes: real game positions are mostly found within it (the first 4,000
/// queries of CHA-Solver's tests/lichess.txt: 6.05 M nodes in all with the closure first, 4.38 M with this
/// search first; the same verdicts), and small positions pay 10,000 nodes more. It replaced a 5,000-node
/// probe in generation order before it (issue 33; every third position of tests/lichess.txt, 43,692 queries,
/// `--time-limit 0`: 25.06 M nodes with the probe, 17.13 M without, CPU 3.13/2.99 s against 2.84/2.77 s; the
/// same verdicts there, on tests/positions.txt (95 undetermined each) and on CHA's vectors (7 each)).
///
/// It is 30,000 nodes since session 62: on the whole of tests/lichess.txt (131,072 queries, `--time-limit 0`) 350
/// queries went past a first stage of 10,000 nodes, all winnable, most found 0–20,000 nodes into the third stage
/// after a closure of 10,000 positions that decided none of them; a first stage of 20,000, 25,000, 30,000,
/// 35,000, 40,000 or 50,000 nodes: 43.22 M nodes in all before, 41.27 M, 40.91 M, **40.82 M**, 40.87 M, 41.17 M,
/// 41.80 M; the same verdicts. On tests/positions.txt the queries that the held-back proofs (289 reach proofs)
/// or the closure (378) prove unwinnable pay up to 20,000 nodes more (337.1 M → 350.5 M nodes in all at
/// `--time-limit 0`; 48 → 47 undetermined, one more helpmate found).
///
/// The last closure holds up to 300,000 positions since session 63 (200,000 before): the closures of lines 1514
/// and 3016 of tests/positions.txt for Black (a king walled in by its own blocked pawns, whose every move is a
/// pawn step, so the game ends in stalemate within a few dozen plies) close at 202,215 positions (0.3 s, 832,219
/// nodes), and no helpmate found before is lost (18 → 16 undetermined on that file). The next closures that
/// would close are much larger (line 2131 for Black at 527,022 positions, 2127 for White at 1,738,032).
const SHARES: &[(bool, u64)] = &[
    (false, 30_000),
    (true, 10_000),
    (false, 100_000),
    (true, 50_000),
    (false, 500_000),
    (true, 300_000),
];

/// The guided search ([`guided`]) gets the nodes left after [`SHARES`] divided by this (about 32,000 of 2,070,000
/// within the first part, [`FIRST_PART_NODES`]; 2,170,000 before session 63), the last stage (the helpmate search
/// resumed) the rest. Measured on CHA-Solver's tests/positions.txt (6,828 queries, default limits, 2026-12-06): the
/// helpmates the guided search finds within any share it was given there cost it at most 6,522 nodes (the next ones
/// 228,704 and more), while the last stage needs up to 1,982,514 nodes for one it finds (line 832 of that file, for
/// White), so a small share keeps both. An eleventh: 40 undetermined on the guided search's branch (48 before), but
/// with the 30,000-node first stage of [`SHARES`] line 832 was lost (19 undetermined in the merged tree); a
/// sixty-fourth: 18, no verdict of the session's start lost. The guided search's other plans ([`guided::PLANS`]) follow
/// with their fixed shares (295,000 nodes at most, taken from the last stage: line 832 for White, which needs 1.98 M
/// there, is lost, five queries that needed a plan are won; 832 is found again by the late part since session 64).
const GUIDED_SHARE: u64 = 64;

/// The nodes of the full search's first part: every stage it ran within the default limit of 3,000,000 nodes
/// until session 64 ([`SHARES`], the guided search and its [`guided::PLANS`], the last stage), run exactly as then
/// (the helpmate search's iterations capped at half of these, not of the query's limit); the nodes above go to
/// the late part ([`Query::late_part`]: [`guided::LATE_PLANS`], then the helpmate search resumed). With
/// `--nodes` at most this, nothing changed. The default limit is 6,000,000 since session 64: the five winnable
/// queries of CHA-Solver's tests/positions.txt that the first part leaves undetermined (lines 831, 832, 1910,
/// 2168 and 2217 for White) are found with 3.60–5.79 M nodes, and no other query of that file or of CHA's
/// vectors changes its verdict or its nodes (`--time-limit 0`, node counts deterministic). The late plans could
/// not run inside the first 3,000,000: the last stage finds lines 1908 and 1927 for White there with 2,987,990
/// nodes, line 1521 for Black with 2,756,534, and so on, and every node a plan takes comes out of it.
const FIRST_PART_NODES: u64 = 3_000_000;

/// Nodes of one iteration of [`SHARES`]' first stage at most (the later stages allow half the query's nodes):
/// an iteration that would wander through its whole share at a small budget (progress costs nothing, so
/// a budget-0 line can be long) gives way to the next, larger budget; when the stage finds no mate the search is
/// wound back ([`Helpmate::run_iterations`]). Measured (node counts deterministic, `--time-limit 0`, 2026-12-05)
/// on the first 4,096 queries of CHA-Solver's tests/lichess.txt: 1.56 M nodes in all before, 1.21 M with a cap
/// of 2,000 alone (1,000: 0.94 M and 3,000: 0.94 M with a per-position corner), 1.15 M with the wind-back and
/// the root's corner ([`ordering`]); every fourth position after the first 2,048 (31,744 queries): 13.40 M,
/// 11.02 M; the same verdicts; tests/positions.txt 93 undetermined (95 before).
const FIRST_ITERATION_NODES: u64 = 2_000;

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
        winner: Color,
        left: u32,
        seen: &mut HashMap<[u64; 8], u32>,
    ) -> bool {
        let list = legal(b, cd);
        let moves = list.as_slice();
        if moves.is_empty() {
            return b.turn() != winner && in_check(b);
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
    walk(&root, &cd, winner, plies, &mut HashMap::new())
}
