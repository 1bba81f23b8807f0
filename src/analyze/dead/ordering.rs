//! The move ordering of the helpmate search ([`super::helpmate`]), after CHA: which moves make progress toward
//! a mating net in a corner (they cost no depth), which undo it (they cost more). A heuristic only: it orders
//! and prices moves, it proves nothing, so it cannot make an answer unsound.

use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::movegen::{
    self as mg, pack, pack_castle, pack_ep, pawn_moves_to, Consumer, Sink,
};
use crate::bitboard::{unpack, Bitboard};
use crate::types::{Color, MoveKind, Role, Square, KNIGHT_STEPS};

/// Depth cost of a move that undoes progress (measured on CHA's vectors: 1 found more helpmates than 2 or 3;
/// such moves still lose the free move that follows progress).
pub(super) const PUNISH: i32 = 1;

/// The winner's pawn pushes that are progress: onto this rank (0-based, from the winner's side) or beyond, that
/// is, every push past its third rank. Measured on every third position of CHA-Solver's tests/lichess.txt
/// (43,692 queries, node counts deterministic at `--time-limit 0`): from the sixth rank (index 5, before)
/// 51.65 M nodes in all, the fifth 30.30 M, the fourth (kept) 25.06 M, the third or every push 25.99 M; the
/// same verdicts (all winnable, 0 undetermined). A real game's winner mostly mates with a new queen.
const PAWN_PROGRESS_RANK: u8 = 3;

/// Distances between squares in king moves (`DISTANCE[0]`) and knight moves (`DISTANCE[1]`).
pub(super) static DISTANCE: [[[u8; 64]; 64]; 2] = distances();

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

/// `WITHIN[k][target][d]`: the squares less than `d` moves from `target` in [`DISTANCE`]`[k]` (king moves, knight
/// moves; no two squares are 8 or more apart in either), so that the targets of a piece on `from` that come
/// closer to `target` are one lookup ([`closer_squares`]) instead of a test per move.
static WITHIN: [[[u64; 8]; 64]; 2] = within();

const fn within() -> [[[u64; 8]; 64]; 2] {
    let mut w = [[[0u64; 8]; 64]; 2];
    let mut k = 0;
    while k < 2 {
        let mut t = 0;
        while t < 64 {
            let mut s = 0;
            while s < 64 {
                let mut d = DISTANCE[k][t][s] as usize + 1;
                while d < 8 {
                    w[k][t][d] |= 1 << s;
                    d += 1;
                }
                s += 1;
            }
            t += 1;
        }
        k += 1;
    }
    w
}

/// The squares closer to `target` than `from` is, in king moves (`Role::King`, `Role::Bishop`) or knight moves
/// (`Role::Knight`): the targets `to` for which [`closer`] holds; empty for the other roles.
#[inline]
fn closer_squares(role: Role, from: Square, target: Square) -> u64 {
    let k = match role {
        Role::King | Role::Bishop => 0,
        Role::Knight => 1,
        _ => return 0,
    };
    WITHIN[k][target.index()][DISTANCE[k][target.index()][from.index()] as usize]
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

/// The corner the search drives the loser's king to: dark when the winner has a dark bishop (or no bishop while
/// the loser has a light one), else light; of the two corners of that colour, the one nearer (in king moves)
/// to `anchor`, the loser king's square at the search's root, and on the winner's eighth rank when both are as
/// near. The anchor is the root's, not this position's: a corner chosen afresh in every position flipped as the
/// king walked between two corners (on the first 4,096 queries of CHA-Solver's tests/lichess.txt it cut the
/// nodes from 1.56 M to 1.11 M, but some middlegame queries went from 105 nodes to the 3,000,000-node limit).
#[cfg(test)]
fn corner(b: &Board, winner: Color, anchor: Option<Square>) -> Corner {
    Corners::new(winner, anchor).of(b)
}

/// The two mating corners a search can choose between ([`corner`]'s rule), made once per search (winner and
/// anchor fixed): the dark one and the light one; each position only picks by its bishops.
#[derive(Clone, Copy)]
pub(super) struct Corners {
    winner: Color,
    dark: Corner,
    light: Corner,
}

impl Corners {
    pub(super) fn new(winner: Color, anchor: Option<Square>) -> Corners {
        let pick = |dark: bool| {
            // White winner: h8 (dark) or a8 (light) on its eighth rank, else a1 or h1; Black winner the other way.
            let (home, away) = match (winner, dark) {
                (Color::White, true) => (Square::new(63), Square::new(0)),
                (Color::White, false) => (Square::new(56), Square::new(7)),
                (Color::Black, true) => (Square::new(0), Square::new(63)),
                (Color::Black, false) => (Square::new(7), Square::new(56)),
            };
            let king_distance = |a: Square, k: Square| DISTANCE[0][a.index()][k.index()];
            match anchor {
                Some(k) if king_distance(away, k) < king_distance(home, k) => Corner::at(away),
                _ => Corner::at(home),
            }
        };
        Corners {
            winner,
            dark: pick(true),
            light: pick(false),
        }
    }

    /// The corner of position `b`: dark when the winner has a dark bishop, or no bishop while the loser has a
    /// light one.
    #[inline]
    fn of(&self, b: &Board) -> Corner {
        let wb = b.pieces(self.winner, Role::Bishop);
        let lb = b.pieces(!self.winner, Role::Bishop);
        if wb.intersects(Bitboard::DARK) || (wb.is_empty() && lb.intersects(Bitboard::LIGHT)) {
            self.dark
        } else {
            self.light
        }
    }
}

impl Corner {
    /// The corner `corner`, the winner's king target two ranks off it on its file (h6 for h8), and the loser's
    /// blocking square beside it on its rank (g8 for h8).
    fn at(corner: Square) -> Corner {
        let (file, rank) = (corner.index() % 8, corner.index() / 8);
        let target_rank = if rank == 0 { 2 } else { 5 };
        let block_file = if file == 0 { 1 } else { 6 };
        Corner {
            corner,
            king_target: Square::new((target_rank * 8 + file) as u8),
            block: Square::new((rank * 8 + block_file) as u8),
        }
    }
}

/// Whether the winner can only mate with the help of a piece the loser still has to promote (a heuristic for
/// move ordering only, after CHA): the winner has king and one knight while the loser has no knight, bishop
/// or rook; or the winner has only bishops of one colour while no bishop of the other colour and no loser's
/// knight is on the board.
fn loser_must_promote(b: &Board, winner: Color) -> bool {
    let (wp, lp) = (b.occupied(winner), b.occupied(!winner));
    // The winner's units besides its king (no bit counts: they were software population counts here).
    let others = wp & !b.pieces(winner, Role::King);
    let minor_or_rook = b.role(Role::Knight) | b.role(Role::Bishop) | b.role(Role::Rook);
    let one_other = !others.is_empty() && !others.more_than_one();
    if one_other && others == b.pieces(winner, Role::Knight) && !lp.intersects(minor_or_rook) {
        return true;
    }
    let wb = b.pieces(winner, Role::Bishop);
    if wb.is_empty() || others != wb {
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
    /// The loser has more than one bishop.
    loser_bishops: bool,
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
        corners: &Corners,
    ) -> Progress {
        let winners_turn = b.turn() == winner;
        let (locked, gap) = lock_state(b);
        Progress {
            winner,
            winners_turn,
            corner: corners.of(b),
            them: b.occupied(!b.turn()),
            loser_must_promote: !winners_turn && loser_must_promote(b, winner),
            locked,
            gap,
            in_gap: locked && (gap.is_some() || was_gap),
            loser_bishops: b.pieces(!winner, Role::Bishop).more_than_one(),
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
        } else if self.locked && role == Role::Bishop && self.loser_bishops {
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

/// A move's tag in the helpmate search's move lists ([`Progress::tagged_moves`]): its cost in bits 24–30 and
/// whether it is progress in bit 31 (the packed move uses bits 0–18).
#[inline]
pub(super) fn tagged(m: u32, cost: i32, reward: bool) -> u32 {
    m | (cost as u32) << 24 | (reward as u32) << 31
}

/// The packed move of a tagged one.
#[inline]
pub(super) fn untag(t: u32) -> u32 {
    t & 0xFF_FFFF
}

/// The cost of a tagged move.
#[inline]
pub(super) fn cost_of(t: u32) -> i32 {
    (t >> 24 & 0x7F) as i32
}

/// Whether a tagged move is progress.
#[inline]
pub(super) fn is_progress(t: u32) -> bool {
    t >> 31 == 1
}

impl Progress {
    /// The legal moves of `b` (the position this ordering was made for) appended to `out` in generation order,
    /// each tagged ([`tagged`]) with what [`Progress::classify`] says of it. A piece's moves (not a pawn's) are
    /// classified as sets, once per piece ([`Progress::piece_masks`]); pawn moves, en passant and castling one
    /// by one with [`Progress::classify`]. (Classifying every move on its own was 13 % of a callgrind profile
    /// of CHA-Solver's tests/lichess.txt in full mode.)
    pub(super) fn tagged_moves(&self, b: &Board, cd: &CastlingData, out: &mut Vec<u32>) {
        let mut tagger = Tagger {
            order: self,
            out,
            pawn_masks: self.pawn_masks(),
            tags: self.tags(),
        };
        mg::generate::<MagicSliders, _>(b, cd, &mut tagger);
    }

    /// The targets of a normal move of the piece `role` (not a pawn) on `from` that [`Progress::classify`]
    /// calls progress, and those it punishes (undoing progress): the same rules, as sets of target squares.
    #[inline(always)]
    fn piece_masks(&self, role: Role, from: Square) -> (u64, u64) {
        let them = self.them.0;
        let king = role == Role::King;
        // Only the slow pieces (king, knights) make progress by coming closer.
        let slow = king || role == Role::Knight;
        let closer_to = |target| {
            if slow {
                closer_squares(role, from, target)
            } else {
                0
            }
        };
        let Corner {
            corner,
            king_target,
            block,
        } = self.corner;
        let (mut reward, mut punish) = if self.winners_turn {
            (them | closer_to(if king { king_target } else { corner }), 0)
        } else {
            let near = closer_to(if king { corner } else { block });
            // When the loser must promote, only a pawn move is useful: every other move is punished.
            (
                near,
                if self.loser_must_promote {
                    !near
                } else {
                    them & !near
                },
            )
        };
        if self.in_gap {
            let toward_gap = match self.gap {
                Some(g) if king => closer_squares(Role::King, from, g),
                _ => 0,
            };
            (reward, punish) = match (self.winners_turn, king) {
                (true, true) => (them | toward_gap, 0),
                (true, false) => (them, !them),
                (false, true) => (toward_gap, 0),
                (false, false) => (0, !0),
            };
        } else if self.locked && role == Role::Bishop && self.loser_bishops {
            let target = if self.winners_turn { corner } else { block };
            reward |= closer_squares(Role::Bishop, from, target);
        }
        if !self.rewards {
            reward = 0;
        }
        (reward, punish)
    }

    /// The targets of a pawn move that is not a promotion (nor en passant) that [`Progress::classify`] calls
    /// progress, and those it punishes: the same rules, as sets of target squares.
    #[inline]
    fn pawn_masks(&self) -> (u64, u64) {
        let them = self.them.0;
        let (mut reward, punish) = match (self.in_gap, self.winners_turn) {
            (true, true) => (them, !them),
            (true, false) => (0, !0),
            (false, true) => {
                // Pushes onto the winner's fourth rank ([`PAWN_PROGRESS_RANK`]) or beyond, and captures.
                let shift = 8 * PAWN_PROGRESS_RANK;
                let beyond = match self.winner {
                    Color::White => !0u64 << shift,
                    Color::Black => !0u64 >> shift,
                };
                (them | beyond, 0)
            }
            // Every pawn move that promotes to nothing is useful when the loser must promote.
            (false, false) if self.loser_must_promote => (!0, 0),
            (false, false) => (0, them),
        };
        if !self.rewards {
            reward = 0;
        }
        (reward, punish)
    }

    /// The three tags of a move that is not classified on its own: progress, punished, neither.
    #[inline]
    pub(super) fn tags(&self) -> [u32; 3] {
        [
            tagged(0, 0, true),
            tagged(0, self.plain_cost(true), false),
            tagged(0, self.plain_cost(false), false),
        ]
    }

    /// The tagged `m`, classified on its own.
    #[inline]
    fn tag(&self, m: u32) -> u32 {
        let (cost, reward) = self.classify(m);
        tagged(m, cost, reward)
    }

    /// The cost of a move that is not progress: [`PUNISH`] when it undoes progress, else 1 (0 right after
    /// progress), as in [`Progress::classify`].
    #[inline]
    fn plain_cost(&self, punished: bool) -> i32 {
        if punished {
            PUNISH
        } else if self.progress {
            0
        } else {
            1
        }
    }
}

/// Moves that are not progress, kept as a set of targets for the search's second pass
/// ([`Progress::staged_moves`]): a piece's, or one generator call's pawn moves that do not promote, or one move.
#[derive(Clone, Copy)]
pub(super) struct Rest {
    /// The target squares (a piece's, or the pawns' destinations); 0 for [`RestKind::One`].
    pub(super) targets: u64,
    /// Of them, those that undo progress (cost [`PUNISH`]); the others cost the plain cost.
    pub(super) punish: u64,
    pub(super) kind: RestKind,
}

/// What a [`Rest`] holds.
#[derive(Clone, Copy)]
pub(super) enum RestKind {
    /// A piece of this role (the generator's index) on this square.
    Piece(u8, u8),
    /// Pawns moving by this delta (from `to - delta`), none promoting.
    Pawns(i8),
    /// One tagged move (a promotion, en passant, castling).
    One(u32),
}

impl Rest {
    /// The tagged move of this rest to `to` (a target of a piece or of pawns), given [`Progress::tags`].
    #[inline(always)]
    pub(super) fn tagged_to(&self, to: u32, [_, punished, plain]: [u32; 3]) -> u32 {
        let tag = if self.punish >> to & 1 != 0 {
            punished
        } else {
            plain
        };
        match self.kind {
            RestKind::Piece(role, from) => pack(role as usize, from as usize, to) | tag,
            RestKind::Pawns(delta) => ((to as i32 - delta as i32) as u32) << 6 | to | tag,
            RestKind::One(t) => t,
        }
    }
}

impl Progress {
    /// [`Progress::tagged_moves`] in two stages: the progress moves tagged into `first` (in generation order),
    /// the other moves into `rest` as sets of targets (in generation order), so that a search that never comes
    /// back for them never lists them one by one. Expanded in order with [`Rest::tagged_to`], `first` followed
    /// by `rest` are the moves of [`Progress::tagged_moves`] that are progress, then those that are not, each
    /// in generation order (tested).
    pub(super) fn staged_moves(
        &self,
        b: &Board,
        cd: &CastlingData,
        first: &mut Vec<u32>,
        rest: &mut Vec<Rest>,
    ) {
        let mut stager = Stager {
            order: self,
            first,
            rest,
            pawn_masks: self.pawn_masks(),
            tags: self.tags(),
        };
        mg::generate::<MagicSliders, _>(b, cd, &mut stager);
    }

    /// The cost of a move that is not progress and not punished (1, or 0 right after progress).
    #[inline]
    pub(super) fn plain(&self) -> i32 {
        self.plain_cost(false)
    }
}

/// The sink of [`Progress::staged_moves`].
struct Stager<'a> {
    order: &'a Progress,
    first: &'a mut Vec<u32>,
    rest: &'a mut Vec<Rest>,
    pawn_masks: (u64, u64),
    tags: [u32; 3],
}

impl Sink for Stager<'_> {
    #[inline(always)]
    fn piece(&mut self, role: usize, from: usize, targets: u64) {
        if targets == 0 {
            return;
        }
        let (reward, punish) = self
            .order
            .piece_masks(Role::ALL[role], Square::new(from as u8));
        let progress = self.tags[0];
        let mut ahead = targets & reward;
        while ahead != 0 {
            let to = ahead.trailing_zeros();
            ahead &= ahead - 1;
            self.first.push(pack(role, from, to) | progress);
        }
        let others = targets & !reward;
        if others != 0 {
            self.rest.push(Rest {
                targets: others,
                punish: punish & others,
                kind: RestKind::Piece(role as u8, from as u8),
            });
        }
    }
    #[inline(always)]
    fn pawns(&mut self, targets: u64, delta: i32, promo: u64) {
        if targets & promo != 0 {
            // Promotions are rare: this call's moves one by one, in generation order.
            let mut t = targets;
            while t != 0 {
                let to = t.trailing_zeros();
                t &= t - 1;
                pawn_moves_to(to, delta, promo, &mut Staged(self));
            }
            return;
        }
        let (reward, punish) = self.pawn_masks;
        let mut ahead = targets & reward;
        while ahead != 0 {
            let to = ahead.trailing_zeros();
            ahead &= ahead - 1;
            pawn_moves_to(to, delta, 0, &mut Tagged(self.first, self.tags[0]));
        }
        let others = targets & !reward;
        if others != 0 {
            self.rest.push(Rest {
                targets: others,
                punish: punish & others,
                kind: RestKind::Pawns(delta as i8),
            });
        }
    }
    #[inline(always)]
    fn en_passant(&mut self, from: usize, to: usize) {
        self.take_one(pack_ep(from, to));
    }
    #[inline(always)]
    fn castle(&mut self, king: usize, rook: usize) {
        self.take_one(pack_castle(king, rook));
    }
}

impl Stager<'_> {
    /// One move classified on its own: see [`Stager::push_one`].
    #[inline(always)]
    fn take_one(&mut self, m: u32) {
        self.push_one(self.order.tag(m));
    }

    /// One tagged move: into `first` when it is progress, else a [`RestKind::One`].
    #[inline(always)]
    fn push_one(&mut self, t: u32) {
        if is_progress(t) {
            self.first.push(t);
        } else {
            self.rest.push(Rest {
                targets: 0,
                punish: 0,
                kind: RestKind::One(t),
            });
        }
    }
}

/// A pawn move of a call with promotions ([`pawn_moves_to`] hands it to a [`Consumer`]).
struct Staged<'t, 'a>(&'t mut Stager<'a>);

impl Consumer for Staged<'_, '_> {
    #[inline(always)]
    fn take(&mut self, m: u32) {
        // A pawn move that does not promote is tagged by the masks, as in `Tagger::pawns`.
        let t = if m >> 14 & 3 == 1 {
            self.0.order.tag(m)
        } else {
            let (reward, punish) = self.0.pawn_masks;
            m | tag_of(1 << (m & 63), reward, punish, self.0.tags)
        };
        self.0.push_one(t);
    }
}

/// The sink of [`Progress::tagged_moves`].
struct Tagger<'a> {
    order: &'a Progress,
    out: &'a mut Vec<u32>,
    /// [`Progress::pawn_masks`] and [`Progress::tags`], the same for every piece and pawn of the position
    /// (made once per position, not once per piece or pawn step: measured in session 58).
    pawn_masks: (u64, u64),
    tags: [u32; 3],
}

impl Sink for Tagger<'_> {
    #[inline(always)]
    fn piece(&mut self, role: usize, from: usize, mut targets: u64) {
        if targets == 0 {
            return;
        }
        let (reward, punish) = self
            .order
            .piece_masks(Role::ALL[role], Square::new(from as u8));
        let tags = self.tags;
        while targets != 0 {
            let to = targets.trailing_zeros();
            let tag = tag_of(1 << to, reward, punish, tags);
            targets &= targets - 1;
            self.out.push(pack(role, from, to) | tag);
        }
    }
    #[inline(always)]
    fn pawns(&mut self, mut targets: u64, delta: i32, promo: u64) {
        let (reward, punish) = self.pawn_masks;
        let tags = self.tags;
        while targets != 0 {
            let to = targets.trailing_zeros();
            targets &= targets - 1;
            if promo & (1 << to) != 0 {
                // Promotions one by one (the piece chosen matters to a loser that must promote).
                pawn_moves_to(to, delta, promo, &mut OneByOne(self));
            } else {
                let tag = tag_of(1 << to, reward, punish, tags);
                pawn_moves_to(to, delta, 0, &mut Tagged(self.out, tag));
            }
        }
    }
    #[inline(always)]
    fn en_passant(&mut self, from: usize, to: usize) {
        self.take_one(pack_ep(from, to));
    }
    #[inline(always)]
    fn castle(&mut self, king: usize, rook: usize) {
        self.take_one(pack_castle(king, rook));
    }
}

impl Tagger<'_> {
    #[inline(always)]
    fn take_one(&mut self, m: u32) {
        let t = self.order.tag(m);
        self.out.push(t);
    }
}

/// The tag (of [`Progress::tags`]) of a move to the square `bit` given the targets that are progress
/// (`reward`) and those that undo it (`punish`).
#[inline(always)]
fn tag_of(bit: u64, reward: u64, punish: u64, [progress, punished, plain]: [u32; 3]) -> u32 {
    if reward & bit != 0 {
        progress
    } else if punish & bit != 0 {
        punished
    } else {
        plain
    }
}

/// A pawn move that is no promotion, with the tag it was given ([`pawn_moves_to`] hands it to a [`Consumer`]).
struct Tagged<'t>(&'t mut Vec<u32>, u32);

impl Consumer for Tagged<'_> {
    #[inline(always)]
    fn take(&mut self, m: u32) {
        self.0.push(m | self.1);
    }
}

/// Promotions, one at a time ([`pawn_moves_to`] hands them to a [`Consumer`]).
struct OneByOne<'t, 'a>(&'t mut Tagger<'a>);

impl Consumer for OneByOne<'_, '_> {
    #[inline(always)]
    fn take(&mut self, m: u32) {
        self.0.take_one(m);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Setup;

    /// The moves as [`Progress::tagged_moves`] tags them are the legal moves in generation order, each tagged as
    /// [`Progress::classify`] (the rules move by move) says (and [`Progress::staged_moves`] gives the progress
    /// ones, then the others, each in that order), for both winners, every combination of the flags
    /// and several anchors, along seeded random walks from positions with a locked structure and a gap, two
    /// bishops a side, a loser that must promote, castling, en passant and promotions.
    #[test]
    fn tagged_moves_agree_with_classify() {
        use super::super::random_walks;
        let fens = [
            "3bkb2/8/1ppp1p2/pP1P1P1p/P1P4P/3B4/8/2B1K3 w - - 0 1",
            "3bkb2/8/1ppp1p2/pP1P1P1p/P1P4P/3B4/8/2B1K3 b - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/8/8/4k3/8/2p5/8/1N2K3 b - - 0 1",
            "8/8/8/4k3/8/2p5/1p6/2B1K3 b - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ];
        let mut next = super::super::xorshift(0x2545_F491_4F6C_DD1Du64);
        let (mut moves_tested, mut rewarded, mut punished, mut gaps, mut promote) = (0, 0, 0, 0, 0);
        random_walks(&fens, (12, 24), &mut next, |fen, b, cd, plain, next| {
            for flags in 0..32u32 {
                let winner = if flags & 1 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let anchor = (flags & 16 != 0).then(|| Square::new((next() % 64) as u8));
                let order = Progress::new(
                    b,
                    winner,
                    flags & 2 != 0,
                    flags & 4 != 0,
                    flags & 8 != 0,
                    &Corners::new(winner, anchor),
                );
                gaps += usize::from(order.in_gap);
                promote += usize::from(order.loser_must_promote);
                let mut tags = Vec::new();
                order.tagged_moves(b, cd, &mut tags);
                let expected: Vec<u32> = plain
                    .iter()
                    .map(|&m| {
                        let (cost, reward) = order.classify(m);
                        rewarded += usize::from(reward);
                        punished += usize::from(!reward && cost == PUNISH && order.progress);
                        tagged(m, cost, reward)
                    })
                    .collect();
                assert_eq!(tags, expected, "{fen}: flags {flags} in {b:?}");
                // Staged: the progress moves, then the others, each in generation order.
                let (mut first, mut rest) = (Vec::new(), Vec::new());
                order.staged_moves(b, cd, &mut first, &mut rest);
                for r in &rest {
                    let mut targets = r.targets;
                    if let RestKind::One(t) = r.kind {
                        assert!(targets == 0 && !is_progress(t));
                        first.push(t);
                    }
                    assert!(r.punish & !targets == 0);
                    while targets != 0 {
                        first.push(r.tagged_to(targets.trailing_zeros(), order.tags()));
                        targets &= targets - 1;
                    }
                }
                let (ahead, others): (Vec<u32>, Vec<u32>) =
                    expected.iter().partition(|&&t| is_progress(t));
                let staged_order = [ahead, others].concat();
                assert_eq!(first, staged_order, "staged: {fen}: flags {flags} in {b:?}");
                moves_tested += plain.len();
            }
        });
        // Every branch of the rules must have been met for the test to mean anything.
        assert!(
            moves_tested > 100_000
                && rewarded > 10_000
                && punished > 1_000
                && gaps > 100
                && promote > 100,
            "{moves_tested} {rewarded} {punished} {gaps} {promote}"
        );
    }

    /// The mating corner follows the bishops' colour and, of the two corners of that colour, the one nearer the
    /// root's loser king (king moves), the winner's eighth rank on a tie; the targets beside it are those of
    /// the h8 corner (h6, g8) mirrored.
    #[test]
    fn corner_nearest_the_roots_loser_king() {
        // White winner with a dark bishop (c1): a1 and h8 are the dark corners.
        let (b, _) = Board::from_setup(&Setup::from_fen("8/8/8/8/8/8/8/2B1K2k w - - 0 1").unwrap());
        let at = |sq: u8| corner(&b, Color::White, Some(Square::new(sq)));
        // d4 (27): a1 three king moves away, h8 four.
        let c = at(27);
        assert_eq!(
            (c.corner, c.king_target, c.block),
            (Square::new(0), Square::new(16), Square::new(1))
        );
        // e5 (36): h8 three away, a1 four; e4 (28): four each, the tie goes to h8.
        for sq in [36, 28] {
            let c = at(sq);
            assert_eq!(
                (c.corner, c.king_target, c.block),
                (Square::new(63), Square::new(47), Square::new(62))
            );
        }
        // No anchor (the quick path's probe): the winner's eighth rank. Black as winner, no bishop of its own
        // and a light one of White's (d1): dark corners, a1 on Black's eighth rank, h8 when the king is on g7.
        assert_eq!(corner(&b, Color::White, None).corner, Square::new(63));
        let (b, _) = Board::from_setup(&Setup::from_fen("k7/8/8/8/8/8/8/3BK3 b - - 0 1").unwrap());
        assert_eq!(corner(&b, Color::Black, None).corner, Square::new(0));
        let c = corner(&b, Color::Black, Some(Square::new(54)));
        assert_eq!(
            (c.corner, c.king_target, c.block),
            (Square::new(63), Square::new(47), Square::new(62))
        );
    }
}
