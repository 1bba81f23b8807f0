//! (d) The fortress proof over pawn configurations (FIDE 1.5, 3.7, 3.8, 3.9): pawns that can still move a
//! little, but only ever into configurations where the winner can never give mate.
//!
//! The blocked-structure proof ([`super::blocked`]) needs every pawn fixed now. Here the pawns may move and
//! capture: the proof explores every *pawn configuration* (the squares of the white and of the black pawns)
//! that any series of legal moves could reach, over-approximated, and for each one the squares each piece may
//! stand on while those pawns stand; then it applies the final step of the blocked-structure proof
//! ([`super::blocked::flight_argument`]) in every configuration. Idea after the semi-static analysis of the
//! Chess Unwinnability Analyzer (CHA, Miguel Ambrona), written afresh, with one region per piece and per pawn
//! configuration instead of one per piece.

use super::blocked::{blocked_reason, flight_argument, region_attacks};
use super::tempo::{tempo_argument, Entry};
use super::{in_check, Reason, Region};
use crate::bitboard::board::Board;
use crate::bitboard::{between, king_attacks, line, pawn_attacks, piece_attacks, Bitboard};
use crate::types::{Color, Piece, Role, Square};
use crate::validate::Checked;
use hashbrown::HashMap;
use std::collections::VecDeque;
use std::time::Instant;

/// Pawn configurations explored at most.
const MAX_STATES: usize = 20_000;
/// Configuration (re)visits at most (each recomputes the regions of one configuration).
const MAX_VISITS: usize = 60_000;
/// Configurations decided by the tempo argument ([`tempo_argument`]) at most.
const MAX_TEMPO: usize = 32;

/// The squares reachable from `seeds` by steps of `role` onto `passable` squares (lines stopped by `pawns`).
/// The seeds themselves are kept even when not passable (a king standing in check from a pawn that just moved).
fn flood(role: Role, seeds: Bitboard, passable: Bitboard, pawns: Bitboard) -> Bitboard {
    let mut reach = seeds;
    let mut frontier = seeds;
    while !frontier.is_empty() {
        let next = region_attacks(role, frontier, pawns) & passable & !reach;
        reach |= next;
        frontier = next;
    }
    reach
}

/// A pawn configuration: the squares of the white and of the black pawns (indexed by [`Color::index`]).
type Pawns = [Bitboard; 2];

/// The pieces of a set of piece indices (bit i = piece i) as a set.
type PieceSet = u64;

/// One abstract move: the pawn configuration after it; for a piece capturing a pawn, that piece (index) and the
/// square it lands on; the pieces that may have been captured by then; the colour that moved.
#[derive(Clone, Copy)]
struct Step {
    pawns: Pawns,
    capturer: Option<(usize, Square)>,
    captured: PieceSet,
    color: Color,
}

/// The squares `defender`'s pieces (its king and other pieces, not its pawns) can never reach in `pos`, when
/// the blocked-structure argument, or else the fortress proof over pawn configurations
/// ([`saturate`]: then the union of its regions over every configuration), proves that the other side
/// can never checkmate (`None` otherwise, and without pawns): the fortress, for pictures (`analyze --svg`). The
/// current pawn squares are left out.
pub fn fortress(pos: &Checked, defender: Color) -> Option<u64> {
    let (root, _) = Board::from_setup(pos.setup());
    let pawns = root.role(Role::Pawn);
    if pawns.is_empty() {
        return None;
    }
    if let Some(Reason::Blocked { regions, .. }) = blocked_reason(&root, !defender) {
        let reach = regions
            .iter()
            .filter(|r| r.piece.color == defender)
            .fold(Bitboard::EMPTY, |acc, r| acc | Bitboard(r.reach));
        return Some((!reach & !pawns).0);
    }
    let proof = saturate(&root, !defender, None)?;
    Some((!proof.ever[defender.index()] & !pawns).0)
}

/// Whether a king of colour `c`, standing on a square of `from`, that captures the pawn on `p` (pawns `after`
/// the capture; `pieces` and their regions `reg` as in [`saturate`]) always ends the game with no checkmate of
/// the loser (`winner`'s opponent), so the transition can be left out.
///
/// Proof. After the capture the opponent is to move. It has only its king and pawns (else `false`). No pawn of
/// it can move: the square in front holds a pawn or the capturing king (FIDE 3.7.1), no capturer's pawn or
/// non-king piece can stand diagonally ahead (3.7.3), and no e.p. capture follows a king move (3.7.3.2). Its
/// king stands on a square of its region not on or next to `p` (kings never stand next to each other, 3.8.2),
/// and every neighbour holds its own pawn, is attacked by a capturer's pawn, or is next to the capturing king:
/// no legal move (3.8.2). So the game is over (FIDE 5.1.1, 5.2.1): when the opponent is the winner, it is not a
/// checkmate of the loser. When the opponent is the loser, it must not be in check: before the move it was not
/// (the capturer was to move), a king gives no check, and the king now on `p` blocks every line through `p`; so
/// a check could only come along a line that the king opened by leaving its square `f` (next to `p`, in
/// `from`): a line from the loser king's square through `f`, empty of pawns between them, that beyond `f`
/// (before a pawn or `p`) meets the region of a winner's bishop, rook or queen moving along it. When no such
/// line exists the position is stalemate (5.2.1).
fn capture_ends_game(
    c: Color,
    p: Square,
    from: Bitboard,
    after: Pawns,
    pieces: &[Piece],
    reg: &[Bitboard],
    winner: Color,
) -> bool {
    let them = !c;
    if pieces
        .iter()
        .any(|piece| piece.color == them && piece.role != Role::King)
    {
        return false;
    }
    let Some(king) = pieces.iter().position(|piece| piece.color == them) else {
        return false;
    };
    let (own, theirs) = (after[them.index()], after[c.index()]);
    let pawns = own | theirs;
    let walls = pawns.with(p);
    let capturer_pieces = pieces
        .iter()
        .zip(reg)
        .filter(|&(piece, _)| piece.color == c && piece.role != Role::King)
        .fold(Bitboard::EMPTY, |acc, (_, &r)| acc | r);
    // Every pawn of the opponent stopped: the square in front filled, nothing to capture diagonally ahead.
    if own.iter().any(|s| {
        !walls.intersects(Bitboard::from_square(s).forward(them))
            || pawn_attacks(them, s).intersects(theirs | capturer_pieces)
    }) {
        return false;
    }
    let illegal = own | theirs.pawn_attacks(c) | king_attacks(p) | Bitboard::from_square(p);
    let places = reg[king] & !king_attacks(p) & !Bitboard::from_square(p);
    if places
        .iter()
        .any(|q| !(king_attacks(q) & !illegal).is_empty())
    {
        return false;
    }
    if them == winner {
        return true;
    }
    // A check discovered by the capturing king's leaving `f`: from a capturer's slider beyond `f`, on the line
    // from the opponent's king on `q` through `f`.
    let discovered = |q: Square, f: Square| {
        if line(q, f).is_empty() || between(q, f).intersects(walls) {
            return false;
        }
        let (sf, sr) = (
            (i32::from(f.file()) - i32::from(q.file())).signum(),
            (i32::from(f.rank()) - i32::from(q.rank())).signum(),
        );
        let mover = if sf != 0 && sr != 0 {
            Role::Bishop
        } else {
            Role::Rook
        };
        let beyond = std::iter::successors(Some(f), |s| {
            Square::from_coords(i32::from(s.file()) + sf, i32::from(s.rank()) + sr)
        })
        .skip(1)
        .take_while(|&s| !walls.contains(s));
        let checker = |s: Square| {
            pieces.iter().zip(reg).any(|(piece, r)| {
                piece.color == c
                    && (piece.role == mover || piece.role == Role::Queen)
                    && r.contains(s)
            })
        };
        { beyond }.any(checker)
    };
    let origins = from & king_attacks(p);
    !places
        .iter()
        .any(|q| origins.iter().any(|f| discovered(q, f)))
}

/// The fortress proof for `winner` in `b`: `Some(Reason::Fortress)` when, in every pawn configuration reachable
/// from `b`, the loser's king can never be checkmated; `None` when the proof does not hold, needs a promotion,
/// or exceeds its bounds ([`MAX_STATES`], [`MAX_VISITS`], the `deadline`).
///
/// Proof. Let the *state* of a position be its pawn configuration S = (white pawns, black pawns). The search
/// below computes a set of states 𝒮 ∋ S₀ (the root's) and for each S ∈ 𝒮 and each non-pawn piece X of the root
/// a region R(X, S), and shows by induction over any series of legal moves from the root (FIDE 1.5: "any
/// possible series of legal moves") the invariant: the position's state S is in 𝒮, no pawn has promoted (so
/// the non-pawn pieces are the root's, some perhaps captured), and every piece X still on the board stands in
/// R(X, S). At the root it holds (each X's square seeds its region). A move from a position with state S:
/// 1. moves no pawn and captures no pawn (FIDE 3.1–3.6, castling 3.8.2 included: the king and the rook each
///    only pass or land on empty squares, and the king only on squares not attacked): the state stays S; the
///    moving piece steps along its own move pattern (lines stopped by pieces, among them at least S's pawns)
///    onto a square without a pawn, and a king never onto a square one of S's enemy pawns attacks (FIDE 3.8.2:
///    moving into check is illegal, and that pawn attacks it in the real position). R(X, S) is closed under such
///    steps (the flood below, with lines stopped by S's pawns only and every other square passable), so the
///    invariant holds again;
/// 2. pushes a pawn one square (the square in front is empty: it holds no pawn of S, and no king whose region
///    in S is that square alone: such a king stands there) or two from its starting rank (both squares empty),
///    FIDE 3.7.1–3.7.2; or captures with a pawn diagonally forward (FIDE 3.7.3): onto an enemy pawn of S, or an
///    enemy non-king piece Y (kings are never captured), which then stands on that square, in R(Y, S); or en
///    passant (FIDE 3.7.3.2): an enemy pawn beside it on its fifth rank, the squares behind that pawn (which
///    just passed them) empty of pawns. Each such move is a transition S → S' below (more are allowed than are
///    legal: an over-approximation). A piece X that did not move stands on a square of R(X, S) that holds no
///    pawn of S', and R(X, S') contains R(X, S) minus S''s pawns. A captured piece is gone (keeping its region
///    only adds attackers and blockers, which only makes the final step harder to pass);
/// 3. a piece X captures a pawn (FIDE 3.1): X stood on a square of R(X, S) from which it attacks the pawn's
///    square (lines stopped by S's pawns only), and a king only a pawn no other enemy pawn of S defends
///    (FIDE 3.8.2): transition S → S minus that pawn, and R(X, S') contains the pawn's square, every other
///    piece's region contains its region in S. A king's capture that always ends the game at once with no
///    checkmate of the loser (a stalemate, or the winner without a move: [`capture_ends_game`]) leads nowhere
///    and is left out.
///
/// *Sure pieces* sharpen steps 1–3. In state S a piece X is sure when R(X, S) is one square q, X can never have
/// been captured on any way into S (a flag per state and piece, carried along every transition and set when an
/// enemy region met X's region, or a pawn captured onto a square of it; kings are never captured), and no enemy
/// piece's region in S contains q. Then, in every position with state S, X stands on q (it is on the board and in
/// its region) and stays there while S lasts: it cannot move, no enemy piece can reach q to capture it, and an
/// enemy pawn capturing it changes the state. So, within S: X's own side's pieces never move onto q nor through it
/// (lines stopped there), no pawn pushes onto q, and, when X is a knight or a king, the enemy king never steps
/// onto a square X attacks (FIDE 3.8.2; a pinned piece still attacks) nor captures a pawn there. Regions and sure
/// pieces are computed together: start from every candidate, flood, drop the candidates the regions refute (a
/// second square, or an enemy region reaching q), and repeat until they agree; the agreed regions are closed
/// under the moves of steps 1–3 given the sure pieces, which is what the induction needs. While castling rights
/// remain no piece is sure (a Chess960 castling may swap a king and a rook).
///
/// These are all the moves (FIDE 3); a move onto the last rank (a promotion, FIDE 3.7.5) ends the proof with
/// `None`. The regions grow monotonically to the least fixed point (finitely many bits), so the search ends.
/// Finally, in every state S ∈ 𝒮, [`flight_argument`] shows that no position with state S and its pieces in
/// their regions is a checkmate of the loser; by the invariant every reachable position is such a position, so
/// the winner can never checkmate (FIDE 1.5, 6.9). The final step is monotone (larger regions only make it
/// harder to pass), so it may be applied as soon as a state is (re)computed, and a failure stops at once.
///
/// Where the final step fails in a state S and the loser has only its king and pawns (and no castling right
/// remains), the tempo argument ([`tempo_argument`], proved there) may show instead that no position with
/// state S reachable from the root is a checkmate of the loser: it follows the two kings' squares and the side
/// to move from every way into S (the root for S₀, which no transition re-enters: each one advances a pawn or
/// removes one; else a transition by a colour recorded per state, the kings on their seed squares, the loser
/// possibly in check after the winner's). It is monotone too, so it is tried at once and repeated at the end
/// with the final regions and entries ([`MAX_TEMPO`] such states at most); the answer is then a
/// [`Reason::Tempo`].
pub(super) fn fortress_reason(
    b: &Board,
    winner: Color,
    deadline: Option<Instant>,
) -> Option<Reason> {
    saturate(b, winner, deadline).map(|s| s.reason)
}

/// What the fortress proof establishes.
pub(super) struct Saturated {
    /// The proof (a [`Reason::Fortress`]).
    pub(super) reason: Reason,
    /// Per colour, every square one of its non-pawn pieces may ever stand on, in any pawn configuration.
    pub(super) ever: [Bitboard; 2],
}

/// The fortress proof ([`fortress_reason`]) with the union of all regions.
pub(super) fn saturate(b: &Board, winner: Color, deadline: Option<Instant>) -> Option<Saturated> {
    let mut search = Search::new(b, winner)?;
    let mut visits = 0;
    while let Some(s) = search.queue.pop_front() {
        search.states[s].queued = false;
        visits += 1;
        if visits > MAX_VISITS
            || (visits % 256 == 0 && deadline.is_some_and(|d| Instant::now() >= d))
        {
            return None;
        }
        search.visit(s)?;
    }
    search.finish()
}

/// One pawn configuration of the search ([`Search`]).
struct State {
    pawns: Pawns,
    /// The pieces that may have been captured on some way to it.
    captured: PieceSet,
    /// The colours whose move may enter it (bit [`Color::index`]).
    entered_by: u8,
    visited: bool,
    queued: bool,
}

impl State {
    fn new(pawns: Pawns) -> State {
        State {
            pawns,
            captured: 0,
            entered_by: 0,
            visited: false,
            queued: false,
        }
    }
}

/// The fortress proof's search over pawn configurations ([`fortress_reason`] proves it): the configurations
/// met, and per configuration and per non-pawn piece of the root its seed squares (where it may stand on
/// entering) and its region (the flood of the seeds).
struct Search<'b> {
    b: &'b Board,
    winner: Color,
    /// The root's non-pawn pieces and their squares.
    pieces: Vec<Piece>,
    squares: Vec<Square>,
    /// The kings among them.
    kings: PieceSet,
    states: Vec<State>,
    index: HashMap<Pawns, u32>,
    /// Per configuration `s`, `pieces.len()` entries from `s * pieces.len()`.
    seeds: Vec<Bitboard>,
    regions: Vec<Bitboard>,
    queue: VecDeque<usize>,
    /// Scratch: the regions being computed, their attacks, the transitions of one configuration.
    reach: Vec<Bitboard>,
    att: Vec<Bitboard>,
    steps: Vec<Step>,
    /// The tempo argument (tempo.rs) for configurations where the final step fails: only when the loser has
    /// nothing but its king and pawns, and no castling right remains; (loser's king, winner's king) indices.
    tempo_kings: Option<(usize, usize)>,
    root_check: bool,
    /// The configurations the tempo argument decided.
    flagged: Vec<usize>,
}

impl<'b> Search<'b> {
    fn new(b: &'b Board, winner: Color) -> Option<Search<'b>> {
        let pawns0 = b.role(Role::Pawn);
        if pawns0.is_empty() {
            return None;
        }
        let squares: Vec<Square> = (b.occupied_all() & !pawns0).iter().collect();
        let pieces = squares
            .iter()
            .map(|&sq| b.piece_at(sq))
            .collect::<Option<Vec<Piece>>>()?;
        let n = pieces.len();
        if n > 64 {
            return None;
        }
        let root = Color::ALL.map(|c| b.pieces(c, Role::Pawn));
        let king_of = |c: Color| {
            pieces
                .iter()
                .position(|p| p.color == c && p.role == Role::King)
        };
        let tempo_kings = match (king_of(!winner), king_of(winner)) {
            (Some(l), Some(k))
                if !b.has_castling()
                    && pieces
                        .iter()
                        .all(|p| p.color == winner || p.role == Role::King) =>
            {
                Some((l, k))
            }
            _ => None,
        };
        let mut root_state = State::new(root);
        root_state.queued = true;
        Some(Search {
            b,
            winner,
            kings: (0..n)
                .filter(|&i| pieces[i].role == Role::King)
                .fold(0, |acc, i| acc | 1 << i),
            seeds: squares.iter().map(|&s| Bitboard::from_square(s)).collect(),
            regions: vec![Bitboard::EMPTY; n],
            pieces,
            squares,
            states: vec![root_state],
            index: HashMap::from_iter([(root, 0)]),
            queue: VecDeque::from([0]),
            reach: vec![Bitboard::EMPTY; n],
            att: vec![Bitboard::EMPTY; n],
            steps: Vec::new(),
            tempo_kings,
            root_check: in_check(b),
            flagged: Vec::new(),
        })
    }

    fn n(&self) -> usize {
        self.pieces.len()
    }

    fn seeds(&self, s: usize) -> &[Bitboard] {
        &self.seeds[s * self.n()..(s + 1) * self.n()]
    }

    fn regions(&self, s: usize) -> &[Bitboard] {
        &self.regions[s * self.n()..(s + 1) * self.n()]
    }

    /// Every way play may enter configuration `s`: the root (configuration 0 is never entered again: every
    /// transition advances a pawn or removes one), or a move of a colour in its `entered_by` (the other colour
    /// then to move; the loser possibly in check after the winner's), with the kings on their seed squares.
    fn entries(&self, s: usize, (l, k): (usize, usize)) -> Vec<Entry> {
        let seed = self.seeds(s);
        let (loser, winner) = (seed[l], seed[k]);
        let mut out = Vec::new();
        if s == 0 {
            out.push(Entry {
                loser,
                winner,
                loser_to_move: self.b.turn() != self.winner,
                check: self.root_check,
            });
        }
        for c in Color::ALL {
            if self.states[s].entered_by & (1 << c.index()) != 0 {
                out.push(Entry {
                    loser,
                    winner,
                    loser_to_move: c == self.winner,
                    check: true,
                });
            }
        }
        out
    }

    /// (Re)compute configuration `s`: its regions and sure pieces, the final step (or the tempo argument), and
    /// its transitions to the next configurations. `None` when the proof fails.
    fn visit(&mut self, s: usize) -> Option<()> {
        let sure = self.sure_regions(s);
        let mut changed = !self.states[s].visited;
        self.states[s].visited = true;
        let n = self.n();
        for i in 0..n {
            if self.reach[i] != self.regions[s * n + i] {
                self.regions[s * n + i] = self.reach[i];
                changed = true;
            }
        }
        if !changed {
            return Some(());
        }
        self.final_step(s)?;
        self.transitions(s, sure)?;
        self.apply(s)
    }

    /// The regions of configuration `s` from its seeds, into `reach`, and its sure pieces: on one square for as
    /// long as these pawns stand (region one square), never captured on the way here (kings never are) and
    /// never capturable here (no enemy region meets their square). Start from every candidate and drop those
    /// the regions refute, until the two agree. (None while castling rights remain: in Chess960 castling may
    /// swap a king and a rook, both one-square regions otherwise.)
    fn sure_regions(&mut self, s: usize) -> PieceSet {
        let n = self.n();
        let [wp, bp] = self.states[s].pawns;
        let pawns = wp | bp;
        let patt = [wp.pawn_attacks(Color::White), bp.pawn_attacks(Color::Black)];
        let seed = &self.seeds[s * n..(s + 1) * n];
        let captured = self.states[s].captured;
        let castling = self.b.has_castling();
        let mut sure: PieceSet = (0..n)
            .filter(|&i| {
                !castling && seed[i].count() == 1 && (self.kings | !captured) & (1 << i) != 0
            })
            .fold(0, |acc, i| acc | 1 << i);
        loop {
            let mut on = [Bitboard::EMPTY; 2];
            // Squares each king may not step on beyond the pawn attacks: next to a sure enemy king (FIDE
            // 3.8.2), attacked by a sure enemy knight.
            let mut guarded = [patt[1], patt[0]];
            for (i, piece) in self.pieces.iter().enumerate() {
                if sure & (1 << i) != 0 {
                    on[piece.color.index()] |= seed[i];
                    if let (Role::King | Role::Knight, Some(sq)) = (piece.role, seed[i].first()) {
                        guarded[(!piece.color).index()] |=
                            piece_attacks(piece.role, sq, Bitboard::EMPTY);
                    }
                }
            }
            let occ = pawns | on[0] | on[1];
            for (i, piece) in self.pieces.iter().enumerate() {
                let mut passable = !pawns & !(on[piece.color.index()] & !seed[i]);
                if piece.role == Role::King {
                    passable &= !guarded[piece.color.index()];
                }
                self.reach[i] = flood(piece.role, seed[i], passable, occ);
            }
            let mut side = [Bitboard::EMPTY; 2];
            for (i, piece) in self.pieces.iter().enumerate() {
                side[piece.color.index()] |= self.reach[i];
            }
            let still = (0..n)
                .filter(|&i| {
                    sure & (1 << i) != 0
                        && self.reach[i].count() == 1
                        && !self.reach[i].intersects(side[(!self.pieces[i].color).index()])
                })
                .fold(0, |acc, i| acc | 1 << i);
            if still == sure {
                return sure;
            }
            sure = still;
        }
    }

    /// The final step in configuration `s` ([`flight_argument`]), else the tempo argument; both are monotone, so
    /// a failure now is final. The tempo argument is repeated at the end with the final regions and entries
    /// (so here only the first time a configuration needs it).
    fn final_step(&mut self, s: usize) -> Option<()> {
        let n = self.n();
        let pawns = self.states[s].pawns;
        let all = pawns[0] | pawns[1];
        let w = self.winner;
        let winner_pawn_att = pawns[w.index()].pawn_attacks(w);
        for i in 0..n {
            self.att[i] = region_attacks(self.pieces[i].role, self.regions[s * n + i], all);
        }
        let reg = self.regions(s);
        if flight_argument(all, winner_pawn_att, w, &self.pieces, reg, &self.att) {
            return Some(());
        }
        let kings = self.tempo_kings?;
        if !self.flagged.contains(&s) {
            if self.flagged.len() >= MAX_TEMPO {
                return None;
            }
            let entry = self.entries(s, kings);
            tempo_argument(
                all,
                winner_pawn_att,
                w,
                &self.pieces,
                reg,
                &self.att,
                &entry,
            )?;
            self.flagged.push(s);
        }
        Some(())
    }

    /// The transitions out of configuration `s` (steps 2 and 3 of the proof), into `steps`; `None` when one
    /// reaches the last rank (a promotion ends the proof).
    fn transitions(&mut self, s: usize, sure: PieceSet) -> Option<()> {
        let n = self.n();
        let pawns = self.states[s].pawns;
        let reg = &self.regions[s * n..(s + 1) * n];
        // What a king may not capture or step next to, and the pieces that may be captured while these pawns
        // stand (some enemy region meets theirs).
        let mut side = [Bitboard::EMPTY; 2];
        let mut sure_sq = Bitboard::EMPTY;
        let mut guarded = [
            pawns[1].pawn_attacks(Color::Black),
            pawns[0].pawn_attacks(Color::White),
        ];
        for (i, piece) in self.pieces.iter().enumerate() {
            side[piece.color.index()] |= reg[i];
            if sure & (1 << i) != 0 {
                sure_sq |= reg[i];
                if let (Role::King | Role::Knight, Some(sq)) = (piece.role, reg[i].first()) {
                    guarded[(!piece.color).index()] |=
                        piece_attacks(piece.role, sq, Bitboard::EMPTY);
                }
            }
        }
        let mut maybe = self.states[s].captured;
        for (i, piece) in self.pieces.iter().enumerate() {
            if piece.role != Role::King && reg[i].intersects(side[(!piece.color).index()]) {
                maybe |= 1 << i;
            }
        }
        let blocked = pawns[0] | pawns[1] | sure_sq;
        let mut steps = std::mem::take(&mut self.steps);
        steps.clear();
        for c in Color::ALL {
            self.pawn_steps(reg, pawns, c, blocked, maybe, &mut steps)?;
            self.capture_steps(reg, pawns, c, &guarded, maybe, &mut steps);
        }
        self.steps = steps;
        Some(())
    }

    /// The pawn moves of colour `c` (step 2): pushes (FIDE 3.7.1, 3.7.2) onto squares not `blocked`, captures
    /// (FIDE 3.7.3) of an enemy pawn or non-king piece's region, en passant (3.7.3.2).
    fn pawn_steps(
        &self,
        reg: &[Bitboard],
        pawns: Pawns,
        c: Color,
        blocked: Bitboard,
        maybe: PieceSet,
        steps: &mut Vec<Step>,
    ) -> Option<()> {
        let (own, enemy) = (pawns[c.index()], pawns[(!c).index()]);
        let all = own | enemy;
        let enemy_pieces = self
            .pieces
            .iter()
            .zip(reg)
            .filter(|&(piece, _)| piece.color != c && piece.role != Role::King)
            .fold(Bitboard::EMPTY, |acc, (_, &r)| acc | r);
        let (last, ep_rank, start) = match c {
            Color::White => (Bitboard::rank(7), Bitboard::rank(4), 1),
            Color::Black => (Bitboard::rank(0), Bitboard::rank(3), 6),
        };
        // The enemy pieces a pawn capture on `to` may take.
        let victims = |to: Square| {
            (0..self.n())
                .filter(|&i| {
                    let piece = self.pieces[i];
                    piece.color != c && piece.role != Role::King && reg[i].contains(to)
                })
                .fold(0, |acc: PieceSet, i| acc | 1 << i)
        };
        let ahead = |sq: Square| Bitboard::from_square(sq).forward(c).first();
        for from in own {
            let without = own.without(from);
            let step = |to: Square, taken: Bitboard, captured: PieceSet| {
                let mut k = [Bitboard::EMPTY; 2];
                k[c.index()] = without.with(to);
                k[(!c).index()] = enemy & !taken;
                Step {
                    pawns: k,
                    capturer: None,
                    captured,
                    color: c,
                }
            };
            // Pushes (FIDE 3.7.1, 3.7.2).
            let one = ahead(from)?;
            if !blocked.contains(one) {
                if last.contains(one) {
                    return None;
                }
                steps.push(step(one, Bitboard::EMPTY, maybe));
                let two = ahead(one)?;
                if from.rank() == start && !blocked.contains(two) {
                    steps.push(step(two, Bitboard::EMPTY, maybe));
                }
            }
            // Captures (FIDE 3.7.3), en passant included (3.7.3.2).
            for to in pawn_attacks(c, from) {
                if (enemy | enemy_pieces).contains(to) {
                    if last.contains(to) {
                        return None;
                    }
                    let taken = enemy & Bitboard::from_square(to);
                    steps.push(step(to, taken, maybe | victims(to)));
                }
                if ep_rank.contains(from) {
                    // The enemy pawn beside, and the square it came from (behind `to`).
                    let beside = Bitboard::from_square(to).forward(!c);
                    let origin = Bitboard::from_square(to).forward(c);
                    if enemy.intersects(beside) && !all.intersects(origin.with(to)) {
                        steps.push(step(to, beside, maybe));
                    }
                }
            }
        }
        Some(())
    }

    /// The pieces of colour `c` capturing a pawn (step 3, FIDE 3.1; a king only one that no enemy pawn, sure
    /// knight or sure king guards, 3.8.2).
    fn capture_steps(
        &self,
        reg: &[Bitboard],
        pawns: Pawns,
        c: Color,
        guarded: &[Bitboard; 2],
        maybe: PieceSet,
        steps: &mut Vec<Step>,
    ) {
        let (own, enemy) = (pawns[c.index()], pawns[(!c).index()]);
        for (i, piece) in self.pieces.iter().enumerate() {
            if piece.color != c {
                continue;
            }
            let mut prey = self.att[i] & enemy;
            if piece.role == Role::King {
                prey &= !guarded[c.index()];
            }
            for p in prey {
                let mut k = [Bitboard::EMPTY; 2];
                k[c.index()] = own;
                k[(!c).index()] = enemy.without(p);
                if piece.role == Role::King
                    && capture_ends_game(c, p, reg[i], k, &self.pieces, reg, self.winner)
                {
                    continue;
                }
                steps.push(Step {
                    pawns: k,
                    capturer: Some((i, p)),
                    captured: maybe,
                    color: c,
                });
            }
        }
    }

    /// Follow the transitions out of configuration `s`: each target configuration (new ones added, at most
    /// [`MAX_STATES`]) gets the moved pieces' seeds, the colour that entered it and the pieces that may have
    /// been captured, and is queued when any of them grew or it was never visited.
    fn apply(&mut self, s: usize) -> Option<()> {
        let n = self.n();
        let steps = std::mem::take(&mut self.steps);
        for step in &steps {
            let t = match self.index.get(&step.pawns) {
                Some(&t) => t as usize,
                None => {
                    if self.states.len() >= MAX_STATES {
                        return None;
                    }
                    let t = self.states.len();
                    self.states.push(State::new(step.pawns));
                    self.index.insert(step.pawns, t as u32);
                    self.seeds.extend(std::iter::repeat_n(Bitboard::EMPTY, n));
                    self.regions.extend(std::iter::repeat_n(Bitboard::EMPTY, n));
                    t
                }
            };
            let after = step.pawns[0] | step.pawns[1];
            let state = &mut self.states[t];
            state.entered_by |= 1 << step.color.index();
            let mut grew = step.captured & !state.captured != 0;
            state.captured |= step.captured;
            for i in 0..n {
                let seed = match step.capturer {
                    Some((x, p)) if x == i => Bitboard::from_square(p),
                    _ => self.regions[s * n + i] & !after,
                };
                let old = self.seeds[t * n + i];
                if !(seed & !old).is_empty() {
                    self.seeds[t * n + i] = old | seed;
                    grew = true;
                }
            }
            let state = &mut self.states[t];
            if (grew || !state.visited) && !state.queued {
                state.queued = true;
                self.queue.push_back(t);
            }
        }
        self.steps = steps;
        Some(())
    }

    /// The proof once every configuration is closed: the configurations decided by the tempo argument again,
    /// with their final regions and entries, then the reason and the union of the regions.
    fn finish(self) -> Option<Saturated> {
        let n = self.n();
        let w = self.winner;
        let mut king_positions = 0;
        for &s in &self.flagged {
            let pawns = self.states[s].pawns;
            let all = pawns[0] | pawns[1];
            let reg = self.regions(s);
            let att: Vec<Bitboard> = (0..n)
                .map(|i| region_attacks(self.pieces[i].role, reg[i], all))
                .collect();
            let entry = self.entries(s, self.tempo_kings?);
            let winner_pawn_att = pawns[w.index()].pawn_attacks(w);
            king_positions +=
                tempo_argument(all, winner_pawn_att, w, &self.pieces, reg, &att, &entry)?;
        }
        let regions = (0..n)
            .map(|i| Region {
                piece: self.pieces[i],
                square: self.squares[i],
                reach: self.regions[i].0,
            })
            .collect();
        let mut ever = [Bitboard::EMPTY; 2];
        for (j, &r) in self.regions.iter().enumerate() {
            ever[self.pieces[j % n].color.index()] |= r;
        }
        let pawn_states = self.states.len() as u64;
        let reason = if self.flagged.is_empty() {
            Reason::Fortress {
                pawn_states,
                regions,
            }
        } else {
            Reason::Tempo {
                pawn_states,
                tempo_states: self.flagged.len() as u64,
                king_positions,
                regions,
            }
        };
        Some(Saturated { reason, ever })
    }
}
