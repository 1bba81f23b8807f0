//! (e) The reach proof (FIDE 1.5, 3.1–3.9): for every piece on the board, the squares it may ever stand on
//! (over-approximated together with which pieces may never move nor be captured, which may be captured, and
//! which squares a side attacks for the rest of the game), then no square the loser's king may stand on where
//! it could ever be checkmated. Idea after the static analysis of CHA-Solver (Miguel Ambrona, MIT), written
//! afresh; unlike the fortress proof ([`super::saturate`]) it keeps one region per piece for the whole game, so
//! it holds where the pawns may still capture or be captured but the pieces stay shut in.
//!
//! **Proof.** The sets below are a fixed point of the rules in [`Reach::grow`]. By induction on the moves of any
//! continuation that ends in a mate by the winner (no other matters; [`Round`] lists the moves none of them makes:
//! a capture of the winner's last piece, that piece's check next to a king that never moves where it must be taken,
//! a move that mates the winner): before each move every piece stands in its region, every *fixed* piece on its own
//! square, no piece that is not *capturable* has been captured, and every square in `attacked[c]` is attacked by a
//! piece of colour `c`. A move of piece `i` from `s` to `t` is then one the rules list from `s`: slider lines are
//! stopped only by fixed pieces (others may have gone), no piece enters the square of a king that never moves (a
//! king is never captured), a king never steps onto a square the enemy attacks (FIDE 3.8.2) nor onto a square
//! that is the enemy king's or next to it wherever in its region that king stands, no piece enters a square of a
//! fixed piece of its own colour, a pawn pushes only onto a square no fixed piece holds and captures only where an
//! enemy piece other than the king may stand (3.7), and no move crosses or ends on the squares of a piece that can
//! never be captured and never leaves them (the way is never free). So `t` lies in `i`'s region; a
//! captured piece was on a square of the capturer's region, so it is capturable; a piece that moves or is captured
//! is not fixed; a piece that is never captured attacks, from wherever it stands, every square it attacks from all
//! of its region with every square that may ever be occupied in the way (a ray can only be shorter with more pieces
//! in it), and pieces of one kind that are never captured, standing always on distinct squares of their regions'
//! union, attack every square that each arrangement of them on that union attacks (counted where the union has
//! at most two squares more than there are pieces). The proof gives up where a pawn may reach its last rank,
//! where castling or an en-passant capture is possible now.
//!
//! **Cases.** Where the proof fails it may split on pieces that have not moved but may be captured
//! ([`reach_reason`]). Take any continuation that ends in a mate and call such a piece *kept* unless it was
//! captured on its own square without ever moving, *still* otherwise: either way it meets the case's
//! condition (a kept piece is never captured before its first move, a still one never moves before it is
//! captured), so the continuation falls into one case at every level of the splits, and every still piece of
//! that case has been captured before the mate. The mate test of a case therefore leaves its still pieces out:
//! none of them checks, covers or blocks a square at the mate. The regions still count them until they go.
//!
//! **Mate.** When the loser's king is checkmated on a square `m` of its region, some piece of the winner other
//! than the king attacks `m` from a square of its region (lines stopped by fixed pieces only), and every square
//! next to `m` in the king's region (the others it can never step onto) holds a piece of the loser's or is
//! attacked by the winner: by a piece other than the king (over-approximated as above) or by the winner's king
//! standing on a square of its region not next to `m`. The loser's pieces that may stand on those squares each
//! cover one. Where no square of the region passes these tests the winner can never give mate.

use super::{exact_key, in_check, legal, Reason, Region};
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::{between, king_attacks, pawn_attacks, piece_attacks, Bitboard};
use crate::types::{Color, Piece, Role, Square};
use hashbrown::HashSet;

/// Rounds of [`Reach::grow`] at most (each adds a square to some region or ends the saturation; 32 regions of
/// at most 64 squares bound it in theory, this in practice).
const MAX_ROUNDS: usize = 200;

/// One piece of the position and the squares it may ever stand on.
#[derive(Clone, Copy)]
struct Man {
    piece: Piece,
    origin: Square,
    reach: Bitboard,
    /// The squares it may capture on: its region, or for a pawn the squares its captures may land on.
    hits: Bitboard,
    /// A pawn that may promote: from then on any piece (FIDE 3.7.5), anywhere but on a fixed king or a fixed
    /// piece of its own.
    promoted: bool,
}

/// The saturated sets of the proof (see the module's header).
struct Reach {
    men: Vec<Man>,
    /// The squares of the pieces that never move and are never captured (an under-approximation).
    fixed: Bitboard,
    /// The origins of the pieces that may be captured (an over-approximation).
    capturable: Bitboard,
    /// The squares a piece other than the king of each colour may stand on (an over-approximation).
    men_may_stand: [Bitboard; 2],
    /// The squares each colour attacks for the rest of the game (an under-approximation).
    attacked: [Bitboard; 2],
    /// The origins of each colour's pieces, and of the kings (the position's squares).
    origins: [Bitboard; 2],
    kings: Bitboard,
    /// The history this proof covers.
    case: Case,
    /// The side the proof is for, and whether it has one piece besides its king (see [`Round`]).
    winner: Color,
    /// The kings' dance's hypothesis ([`super::dance`]): no king takes an enemy piece whose region is its own
    /// square (one that never moves).
    spare: bool,
    lone: bool,
    /// The first pieces found that have not moved but may be captured (before any promotion).
    first_group: Option<Bitboard>,
    /// Whether the rounds reached the fixed point.
    saturated: bool,
}

/// Which history a case of the proof covers, for the pieces split on (origins; see [`reach_reason`]).
#[derive(Clone, Copy, Default)]
struct Case {
    /// Pieces never captured before their first move.
    kept: Bitboard,
    /// Pieces that never move (they may be captured where they stand).
    still: Bitboard,
}

/// Levels of case splits at most (see [`reach_reason`]).
const MAX_SPLIT_DEPTH: u32 = 2;

/// The reach proof for `winner` in `b`: `Some(Reason::Reach)` when the winner can never give mate.
///
/// Where the proof fails in a case, it splits it on the first pieces found that had not moved but may be
/// captured (at most two, not split on before): in any game each such piece either is never captured before its
/// first move, or never moves before it is captured; the proof must hold in every combination of these cases
/// ([`MAX_SPLIT_DEPTH`] levels at most).
pub(super) fn reach_reason(b: &Board, winner: Color) -> Option<Reason> {
    if b.ep_square().is_some() || b.has_castling() {
        return None;
    }
    let mut proof = Proof {
        shown: None,
        split: Bitboard::EMPTY,
        cases: 0,
    };
    proof.prove(b, winner, Case::default(), 0)?;
    let shown = proof.shown?;
    Some(shown.reason(proof.split, proof.cases))
}

/// The reach proof's sets on the kings' dance's hypothesis ([`super::dance`]): no king ever takes an enemy piece
/// whose region is its own square. Indexed by colour where an array.
pub(super) struct Field {
    /// The side the proof is for.
    pub(super) winner: Color,
    /// The kings' regions.
    pub(super) kings: [Bitboard; 2],
    /// What the winner's pieces other than the king may attack ([`Reach::hit`]).
    pub(super) hit: Bitboard,
    /// The regions of the loser's pieces other than the king.
    pub(super) blockers: Vec<Bitboard>,
    /// The squares each colour's pieces other than the king attack for the rest of the game.
    pub(super) guarded: [Bitboard; 2],
    /// Each colour's pieces other than the king that never move (the captures the hypothesis leaves out).
    pub(super) unmoved: [Vec<(Piece, Square)>; 2],
    /// The squares of the pieces that never move and are never captured, and of each colour's pieces.
    pub(super) fixed: Bitboard,
    pub(super) origins: [Bitboard; 2],
    /// Whether each colour has a piece other than the king that may move.
    pub(super) mobile: [bool; 2],
    /// The squares each colour's pieces other than the king may stand on.
    pub(super) stand: [Bitboard; 2],
    /// The regions of the winner's pieces that move along diagonals, and along ranks and files (all squares
    /// once a pawn may promote).
    pub(super) diag: Bitboard,
    pub(super) orth: Bitboard,
    /// The proof's text ([`Reason::Reach`]'s fields).
    pub(super) regions: Vec<Region>,
}

/// The sets of the reach proof for `winner` in `b` on the kings' dance's hypothesis; `None` where the proof
/// gives up (castling or an e.p. capture possible now, the rounds run out, a king missing).
pub(super) fn spared_field(b: &Board, winner: Color) -> Option<Field> {
    if b.ep_square().is_some() || b.has_castling() {
        return None;
    }
    let r = Reach::new(b, winner, Case::default(), true);
    if !r.saturated {
        return None;
    }
    let king = |c: Color| {
        r.men
            .iter()
            .find(|m| m.piece == Piece::new(c, Role::King))
            .map(|m| m.reach)
    };
    let kings = [king(Color::White)?, king(Color::Black)?];
    let ever = r.men.iter().fold(Bitboard::EMPTY, |acc, m| acc | m.reach);
    // A piece that never moves stands on its origin, where the board has it.
    let unmoved = Color::ALL.map(|c| {
        r.unmoved(c)
            .iter()
            .filter_map(|sq| b.piece_at(sq).map(|piece| (piece, sq)))
            .collect()
    });
    let mobile = Color::ALL.map(|c| {
        r.men.iter().any(|m| {
            m.piece.color == c
                && m.piece.role != Role::King
                && (m.reach.more_than_one() || m.promoted)
        })
    });
    let (mut diag, mut orth) = (Bitboard::EMPTY, Bitboard::EMPTY);
    for m in r.men.iter().filter(|m| m.piece.color == winner) {
        let all = if m.promoted { Bitboard::ALL } else { m.reach };
        if m.promoted || matches!(m.piece.role, Role::Bishop | Role::Queen) {
            diag |= all;
        }
        if m.promoted || matches!(m.piece.role, Role::Rook | Role::Queen) {
            orth |= all;
        }
    }
    Some(Field {
        winner,
        kings,
        hit: r.hit(winner),
        blockers: r.blockers(!winner),
        guarded: r.held(r.capturable, ever, false),
        unmoved,
        fixed: r.fixed,
        origins: r.origins,
        mobile,
        stand: r.men_may_stand,
        diag,
        orth,
        regions: r.regions(),
    })
}

/// Positions the check-chain proof explores at most ([`check_chain_reason`]).
const CHAIN_POSITIONS: usize = 1_000;
/// Reach proofs the check-chain proof makes at most.
const CHAIN_PROOFS: u64 = 200;
/// Plies the check-chain proof follows at most.
const CHAIN_PLIES: u32 = 16;

/// The check-chain proof for `winner` from `b` (FIDE 1.5, 3.9): every move from `b`, and from each position a
/// checking move reaches every move again, is followed; every position reached (past the first ply) by a move
/// that gives no check must have a reach proof ([`reach_reason`]), and no position on the way may be a
/// checkmate of the loser. Every position reachable from `b` then lies on a followed line or after a position
/// with a reach proof, so none is a mate. For positions the reach proof fails on only because a check or the
/// move just made still changes what the pieces can do. Idea after CHA-Solver's check-chain search, written
/// afresh.
pub(super) fn check_chain_reason(b: &Board, cd: &CastlingData, winner: Color) -> Option<Reason> {
    let mut chain = Chain {
        cd,
        winner,
        seen: HashSet::new(),
        proofs: 0,
    };
    chain.follow(b, 0)?;
    Some(Reason::CheckChain {
        positions: chain.seen.len() as u64,
        proofs: chain.proofs,
    })
}

/// The check-chain proof's state: the positions followed (exactly compared) and the reach proofs made.
struct Chain<'a> {
    cd: &'a CastlingData,
    winner: Color,
    seen: HashSet<[u64; 8]>,
    proofs: u64,
}

impl Chain<'_> {
    /// Follows `b` at `ply`: `None` where a mate of the loser is met, a reach proof fails or a bound is hit.
    fn follow(&mut self, b: &Board, ply: u32) -> Option<()> {
        if ply > CHAIN_PLIES || self.seen.len() >= CHAIN_POSITIONS {
            return None;
        }
        self.seen.insert(exact_key(b));
        let list = legal(b, self.cd);
        if list.as_slice().is_empty() {
            // Checkmate of the loser (FIDE 5.1.1): no proof; otherwise the game is over here (5.2.1).
            return (b.turn() == self.winner || !in_check(b)).then_some(());
        }
        for &m in list.as_slice() {
            let next = b.make::<false>(self.cd, m);
            if self.seen.contains(&exact_key(&next)) {
                continue;
            }
            if ply == 0 || in_check(&next) {
                self.follow(&next, ply + 1)?;
            } else {
                if self.proofs >= CHAIN_PROOFS {
                    return None;
                }
                self.proofs += 1;
                reach_reason(&next, self.winner)?;
            }
        }
        Some(())
    }
}

/// The cases proved so far: the first (shown), the pieces split on, how many.
struct Proof {
    shown: Option<Reach>,
    split: Bitboard,
    cases: u32,
}

impl Proof {
    /// Proves `case`, splitting it where it fails; `None` where some case fails unsplittable.
    fn prove(&mut self, b: &Board, winner: Color, case: Case, depth: u32) -> Option<()> {
        let reach = Reach::new(b, winner, case, false);
        let group = match reach.proves(winner) {
            Ok(()) => {
                self.cases += 1;
                self.shown.get_or_insert(reach);
                return Some(());
            }
            Err(group) => group? & !(case.kept | case.still),
        };
        if depth >= MAX_SPLIT_DEPTH || group.is_empty() || group.count() > 2 {
            return None;
        }
        self.split |= group;
        let pieces: Vec<Square> = group.iter().collect();
        for bits in 0..1u32 << pieces.len() {
            let mut next = case;
            for (k, &sq) in pieces.iter().enumerate() {
                if bits >> k & 1 == 0 {
                    next.kept = next.kept.with(sq);
                } else {
                    next.still = next.still.with(sq);
                }
            }
            self.prove(b, winner, next, depth + 1)?;
        }
        Some(())
    }
}

impl Reach {
    /// The saturated sets for `b` under `case`, for `winner`; with `spare`, on the kings' dance's hypothesis.
    fn new(b: &Board, winner: Color, case: Case, spare: bool) -> Reach {
        let men = b
            .occupied_all()
            .iter()
            .filter_map(|sq| {
                b.piece_at(sq).map(|piece| Man {
                    piece,
                    origin: sq,
                    reach: Bitboard::from_square(sq),
                    hits: Bitboard::EMPTY,
                    promoted: false,
                })
            })
            .collect();
        let mut reach = Reach {
            men,
            fixed: b.occupied_all(),
            capturable: Bitboard::EMPTY,
            men_may_stand: [Bitboard::EMPTY; 2],
            attacked: [Bitboard::EMPTY; 2],
            origins: Color::ALL.map(|c| b.occupied(c)),
            kings: b.role(Role::King),
            case,
            winner,
            spare,
            lone: (b.occupied(winner) & !b.role(Role::King)).count() == 1,
            first_group: None,
            saturated: false,
        };
        reach.derive();
        reach.saturated = reach.saturate().is_some();
        reach
    }

    /// `Ok` when the winner can never mate; else `Err` with the pieces to split on, if any.
    fn proves(&self, winner: Color) -> std::result::Result<(), Option<Bitboard>> {
        if self.saturated && !self.mate_possible(winner) {
            return Ok(());
        }
        Err(self.first_group)
    }

    /// The proof's text: the fixed pieces and the regions, with the split pieces and the number of cases.
    fn reason(&self, split: Bitboard, cases: u32) -> Reason {
        Reason::Reach {
            fixed: self.fixed.0,
            regions: self.regions(),
            split: split.0,
            cases,
        }
    }

    /// The region of every piece that is not fixed, for the proof's text.
    fn regions(&self) -> Vec<Region> {
        self.men
            .iter()
            .filter(|m| !self.fixed.contains(m.origin))
            .map(|m| Region {
                piece: m.piece,
                square: m.origin,
                reach: m.reach.0,
            })
            .collect()
    }

    /// Grows the regions to the fixed point; `None` where the rounds run out.
    fn saturate(&mut self) -> Option<()> {
        for _ in 0..MAX_ROUNDS {
            let grown = self.grow() | self.promote();
            if !grown {
                return Some(());
            }
            self.derive();
        }
        None
    }

    /// Marks the pawns whose region reaches their last rank as promoted; whether one was.
    fn promote(&mut self) -> bool {
        let mut any = false;
        for m in self
            .men
            .iter_mut()
            .filter(|m| m.piece.role == Role::Pawn && !m.promoted)
        {
            if m.reach
                .intersects(Bitboard::rank((!m.piece.color).back_rank()))
            {
                m.promoted = true;
                any = true;
            }
        }
        any
    }

    /// The squares a promoted pawn of `color` may stand on: all but those of fixed kings and of fixed pieces of
    /// its own.
    fn anywhere(&self, color: Color) -> Bitboard {
        !(self.fixed & (self.kings | self.origins[color.index()]))
    }

    /// One round: every piece's moves from every square of its region added to it (FIDE 3.2–3.8, over the
    /// module's rules); whether a region grew.
    fn grow(&mut self) -> bool {
        let confined = self.confined();
        // The squares no piece of each colour may enter: its own fixed pieces, the fixed kings (a king is never
        // captured, FIDE 1.4.1), and those the case keeps in place.
        let kept = self.kept_in_place();
        let shut = self
            .origins
            .map(|own| (self.fixed & (own | self.kings)) | kept);
        let round = Round::new(self);
        let zones = self.king_zones();
        let mut grown = false;
        for i in 0..self.men.len() {
            let man = self.men[i];
            if self.case.still.contains(man.origin) {
                continue;
            }
            let never_captures = self.lone && man.piece.color != self.winner;
            if man.promoted {
                let all = self.anywhere(man.piece.color);
                let all_hits = if never_captures { Bitboard::EMPTY } else { all };
                if man.reach | all != man.reach || man.hits | all_hits != man.hits {
                    self.men[i].reach |= all;
                    self.men[i].hits |= all_hits;
                    grown = true;
                }
                continue;
            }
            let pawn = man.piece.role == Role::Pawn;
            let c = man.piece.color.index();
            let shut = match man.piece.role {
                Role::King if self.spare => shut[c] | zones[1 - c] | self.unmoved(!man.piece.color),
                Role::King => shut[c] | zones[1 - c],
                _ => shut[c],
            };
            let (mut added, mut hits) = (Bitboard::EMPTY, man.hits);
            for from in man.reach.iter() {
                for to in self.moves(man.piece, from, shut).iter() {
                    let diagonal = pawn && from.file() != to.file();
                    if never_captures && diagonal {
                        continue;
                    }
                    let capture = !never_captures && (!pawn || diagonal);
                    let known = (man.reach | added).contains(to) && (!capture || hits.contains(to));
                    if known
                        || blocked_way(&confined, i, from, to)
                        || self.faced(i, from, to)
                        || round.futile(self, i, from, to)
                    {
                        continue;
                    }
                    added = added.with(to);
                    if capture {
                        hits = hits.with(to);
                    } else if pawn && from.rank().abs_diff(to.rank()) == 2 {
                        added |= between(from, to);
                    }
                }
            }
            added &= !man.reach;
            if !added.is_empty() || hits != man.hits {
                self.men[i].reach |= added;
                self.men[i].hits = hits;
                grown = true;
            }
        }
        grown
    }

    /// For each colour, the squares its king stands on or next to wherever it stands in its region (empty
    /// without a king): the enemy king never steps there (FIDE 3.8.2, 1.4.1).
    fn king_zones(&self) -> [Bitboard; 2] {
        let mut zones = [Bitboard::EMPTY; 2];
        for m in self.men.iter().filter(|m| m.piece.role == Role::King) {
            zones[m.piece.color.index()] = m
                .reach
                .iter()
                .fold(Bitboard::ALL, |acc, s| acc & king_attacks(s).with(s));
        }
        zones
    }

    /// The squares `piece` may move to from `from`, by the module's rules (before the confined pieces' test),
    /// never onto the squares `shut` to its colour ([`Reach::grow`]).
    fn moves(&self, piece: Piece, from: Square, shut: Bitboard) -> Bitboard {
        let c = piece.color.index();
        match piece.role {
            Role::Pawn => {
                let one = Bitboard::from_square(from).forward(piece.color) & !self.fixed;
                let start = match piece.color {
                    Color::White => 1,
                    Color::Black => 6,
                };
                let two = if from.rank() == start {
                    one.forward(piece.color) & !self.fixed
                } else {
                    Bitboard::EMPTY
                };
                let enemy = self.men_may_stand[1 - c];
                one | two | (pawn_attacks(piece.color, from) & enemy)
            }
            Role::King => king_attacks(from) & !shut & !self.attacked[1 - c],
            role => piece_attacks(role, from, self.fixed) & !shut,
        }
    }

    /// Whether the move of pawn `i` from `from` to `to` is a push onto or past the origin of an enemy pawn on
    /// the same file, while neither ever leaves the file and the enemy pawn is never captured: pawns on one file
    /// move only by pushes onto empty squares, so neither passes the other, and the enemy pawn only comes
    /// nearer from its origin (FIDE 3.7.1–3.7.2).
    fn faced(&self, i: usize, from: Square, to: Square) -> bool {
        let p = &self.men[i];
        if p.piece.role != Role::Pawn || from.file() != to.file() {
            return false;
        }
        let file = Bitboard::file(from.file());
        if !(p.reach & !file).is_empty() {
            return false;
        }
        let ahead = |a: Square, b: Square| match p.piece.color {
            Color::White => a.rank() > b.rank(),
            Color::Black => a.rank() < b.rank(),
        };
        self.men.iter().any(|q| {
            q.piece == Piece::new(!p.piece.color, Role::Pawn)
                && file.contains(q.origin)
                && (q.reach & !file).is_empty()
                && !self.capturable.contains(q.origin)
                && ahead(q.origin, p.origin)
                && !ahead(q.origin, to)
        })
    }

    /// The squares of the pieces the case keeps from capture that have not moved (none may enter them).
    fn kept_in_place(&self) -> Bitboard {
        self.men
            .iter()
            .filter(|m| self.case.kept.contains(m.origin) && !m.reach.more_than_one())
            .fold(Bitboard::EMPTY, |acc, m| acc.with(m.origin))
    }

    /// The pieces that can never be captured and may stand on a few squares only, but not one only (those are
    /// fixed): index and region.
    fn confined(&self) -> Vec<(usize, Bitboard)> {
        self.men
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                !self.capturable.contains(m.origin)
                    && m.reach.more_than_one()
                    && m.reach.count() <= 8
            })
            .map(|(i, m)| (i, m.reach))
            .collect()
    }

    /// The fixed, capturable, may-stand and attacked sets from the regions (see the module's header).
    fn derive(&mut self) {
        let mut fixed = self.fixed;
        let mut stand = [Bitboard::EMPTY; 2];
        let mut ever = Bitboard::EMPTY;
        for m in &self.men {
            let others = m.reach.without(m.origin);
            if !others.is_empty() {
                fixed = fixed.without(m.origin);
            }
            fixed &= !others;
            ever |= m.reach;
            if m.piece.role != Role::King {
                stand[m.piece.color.index()] |= m.reach;
            }
        }
        let mut capturable = self.capturable;
        let kept = self.kept_in_place();
        for m in self
            .men
            .iter()
            .filter(|m| m.piece.role != Role::King && !kept.contains(m.origin))
        {
            let mut enemies = self.men.iter().filter(|e| e.piece.color != m.piece.color);
            if enemies.any(|e| e.hits.intersects(m.reach)) {
                capturable = capturable.with(m.origin);
            }
        }
        let unmoved = self
            .men
            .iter()
            .filter(|m| !m.reach.more_than_one())
            .fold(Bitboard::EMPTY, |acc, m| acc.with(m.origin));
        let newly = capturable & !self.capturable & unmoved & !(self.case.kept | self.case.still);
        let promoted = self.men.iter().any(|m| m.promoted);
        if self.first_group.is_none() && !newly.is_empty() && !promoted {
            self.first_group = Some(newly);
        }
        self.fixed = fixed & !capturable;
        self.capturable = capturable;
        self.men_may_stand = stand;
        self.attacked = self.held(capturable, ever, true);
    }

    /// The squares each colour attacks for the rest of the game: those each of its pieces that is never captured
    /// nor promoted (the kings only `with_kings`) attacks from every square of its region, with every square in
    /// `ever` occupied in the way, and those of its groups ([`Reach::group_attacks`]).
    fn held(&self, capturable: Bitboard, ever: Bitboard, with_kings: bool) -> [Bitboard; 2] {
        let mut attacked = [Bitboard::EMPTY; 2];
        for m in self.men.iter().filter(|m| {
            !capturable.contains(m.origin)
                && !m.promoted
                && (with_kings || m.piece.role != Role::King)
        }) {
            let always = m
                .reach
                .iter()
                .fold(Bitboard::ALL, |acc, s| acc & attacks(m.piece, s, ever));
            attacked[m.piece.color.index()] |= always;
        }
        let together = self.group_attacks(capturable, ever);
        [0, 1].map(|c| attacked[c] | together[c])
    }

    /// The squares of `color`'s pieces other than the king whose region is their own square (they have not
    /// moved so far in the saturation).
    fn unmoved(&self, color: Color) -> Bitboard {
        self.men
            .iter()
            .filter(|m| {
                m.piece.color == color && m.piece.role != Role::King && !m.reach.more_than_one()
            })
            .fold(Bitboard::EMPTY, |acc, m| acc.with(m.origin))
    }

    /// The squares each colour attacks with its groups: the pieces of one kind (colour and role, not pawns or
    /// kings) that are never captured nor promoted, where their regions together hold at most [`GROUP_HOLES`]
    /// squares more than there are pieces. At every moment they stand on distinct squares of that union, so
    /// they attack every square that each such arrangement attacks, with every square another piece may stand
    /// on in the way (seven bishops shut in eight squares defend what either of two of them defends).
    fn group_attacks(&self, capturable: Bitboard, ever: Bitboard) -> [Bitboard; 2] {
        let mut attacked = [Bitboard::EMPTY; 2];
        for color in Color::ALL {
            for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
                let piece = Piece::new(color, role);
                let member =
                    |m: &Man| m.piece == piece && !capturable.contains(m.origin) && !m.promoted;
                let (mut squares, mut others, mut count) = (Bitboard::EMPTY, Bitboard::EMPTY, 0);
                for m in &self.men {
                    if member(m) {
                        squares |= m.reach;
                        count += 1;
                    } else {
                        others |= m.reach;
                    }
                }
                let holes = squares.count().saturating_sub(count);
                if count < 2 || holes == 0 || holes > GROUP_HOLES || squares.count() > GROUP_SQUARES
                {
                    continue;
                }
                let outside = (ever & !squares) | (squares & others);
                let mut together = Bitboard::ALL;
                for empty in hole_sets(squares, holes) {
                    let stand = squares & !empty;
                    let occupied = outside | stand;
                    together &= stand
                        .iter()
                        .fold(Bitboard::EMPTY, |acc, s| acc | attacks(piece, s, occupied));
                }
                attacked[color.index()] |= together;
            }
        }
        attacked
    }

    /// Whether `m` may stand on the board when the loser is mated: not one of the case's still pieces, which
    /// never move before they are captured and are gone by any mate the case covers (the module's header,
    /// *Cases*).
    fn present(&self, m: &Man) -> bool {
        !self.case.still.contains(m.origin)
    }

    /// Whether the winner could ever checkmate the loser, by the test of the module's header.
    fn mate_possible(&self, winner: Color) -> bool {
        let loser = !winner;
        let king_of = |c: Color| {
            self.men
                .iter()
                .find(|m| m.piece == Piece::new(c, Role::King))
                .map(|m| m.reach)
        };
        let (Some(region), Some(winner_king)) = (king_of(loser), king_of(winner)) else {
            return true;
        };
        let hit = self.hit(winner);
        let blockers = self.blockers(loser);
        (hit & region)
            .iter()
            .any(|m| flights_coverable(m, region & !hit, winner_king, &blockers))
    }

    /// The squares `winner`'s pieces other than the king may attack from their regions, lines stopped by fixed
    /// pieces only (all squares once a pawn may promote).
    fn hit(&self, winner: Color) -> Bitboard {
        let mut hit = Bitboard::EMPTY;
        for m in self
            .men
            .iter()
            .filter(|m| m.piece.color == winner && m.piece.role != Role::King && self.present(m))
        {
            if m.promoted {
                hit = Bitboard::ALL;
            }
            for s in m.reach.iter() {
                hit |= attacks(m.piece, s, self.fixed);
            }
        }
        hit
    }

    /// The regions of `loser`'s pieces other than the king (each may stand on a flight square of its king).
    fn blockers(&self, loser: Color) -> Vec<Bitboard> {
        self.men
            .iter()
            .filter(|m| m.piece.color == loser && m.piece.role != Role::King && self.present(m))
            .map(|m| m.reach)
            .collect()
    }
}

/// Whether the squares next to `m` in `free` (the king's region that no piece of the winner but the king may
/// attack) can all be covered: each by one of the loser's pieces whose region holds it, the rest by the winner's
/// king from a square of `winner_king` not next to `m` (over-approximated: the loser's pieces are counted, not
/// matched).
fn flights_coverable(
    m: Square,
    free: Bitboard,
    winner_king: Bitboard,
    blockers: &[Bitboard],
) -> bool {
    let flights = king_attacks(m) & free;
    if blockable(flights, blockers) {
        return true;
    }
    let stands = winner_king & !king_attacks(m) & !Bitboard::from_square(m);
    stands
        .iter()
        .any(|k| blockable(flights & !king_attacks(k), blockers))
}

/// Whether the loser's pieces whose regions are `blockers` could stand on all of the squares `left`
/// (over-approximated: counted, not matched).
pub(super) fn blockable(left: Bitboard, blockers: &[Bitboard]) -> bool {
    let reachers = blockers.iter().filter(|r| r.intersects(left)).count() as u32;
    let coverable = blockers.iter().fold(Bitboard::EMPTY, |acc, &r| acc | r);
    left.count() <= reachers && (left & !coverable).is_empty()
}

/// Empty squares a group may leave at most ([`Reach::group_attacks`]), and the squares it may hold at most
/// (at most C(16, 2) = 120 arrangements).
const GROUP_HOLES: u32 = 2;
const GROUP_SQUARES: u32 = 16;

/// Every set of `holes` squares of `squares` (`holes` is 1 or 2).
fn hole_sets(squares: Bitboard, holes: u32) -> Vec<Bitboard> {
    let list: Vec<Square> = squares.iter().collect();
    let mut sets = Vec::new();
    for (i, &a) in list.iter().enumerate() {
        if holes == 1 {
            sets.push(Bitboard::from_square(a));
            continue;
        }
        for &b in &list[i + 1..] {
            sets.push(Bitboard::from_square(a).with(b));
        }
    }
    sets
}

/// The squares `piece` on `s` attacks with `occupied` in the way.
fn attacks(piece: Piece, s: Square, occupied: Bitboard) -> Bitboard {
    match piece.role {
        Role::Pawn => pawn_attacks(piece.color, s),
        role => piece_attacks(role, s, occupied),
    }
}

/// What the rules of one round of [`Reach::grow`] read beside the regions, for the moves no continuation that
/// ends in the winner's mate can make (FIDE 1.5, 3.9, 5.1.1):
/// - *the lone piece*: where the winner has one piece besides its king, a capture of it leaves a bare king that
///   can never mate, so in such a continuation the loser never captures;
/// - *the lone piece's futile check*: that piece moving next to the loser's king where the king never moves,
///   giving check where the winner's king can never defend it or a fixed piece of the loser always attacks it:
///   every reply captures it (none steps away, none interposes next to the king), and the position is no mate;
/// - *the loser's mate*: a move of the loser that surely checks the winner's king where that king never moves
///   (directly, or by opening the line of a fixed piece), where no piece of the winner may ever stand on the
///   checking piece's square or between: the winner is checkmated (the king's moves all lie in its region).
struct Round {
    /// The kings that never move (their region is their square).
    loser_king: Option<Square>,
    winner_king: Option<Square>,
    /// The squares the winner's king may attack from its region.
    king_near: Bitboard,
    /// The squares the loser's fixed pieces other than the king always attack.
    guard: Bitboard,
    /// The squares the winner's pieces other than the king may stand on.
    winner_men: Bitboard,
    /// The squares in some region, and in two or more.
    ever: Bitboard,
    multi: Bitboard,
    /// The loser's fixed line pieces.
    sliders: Vec<(Square, Role)>,
}

impl Round {
    fn new(r: &Reach) -> Round {
        let loser = !r.winner;
        let fixed_king = |c: Color| {
            r.men
                .iter()
                .find(|m| m.piece == Piece::new(c, Role::King) && !m.reach.more_than_one())
                .map(|m| m.origin)
        };
        let (mut ever, mut multi) = (Bitboard::EMPTY, Bitboard::EMPTY);
        let (mut king_near, mut winner_men) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for m in &r.men {
            multi |= ever & m.reach;
            ever |= m.reach;
            if m.piece == Piece::new(r.winner, Role::King) {
                king_near = m
                    .reach
                    .iter()
                    .fold(king_near, |acc, s| acc | king_attacks(s));
            } else if m.piece.color == r.winner {
                winner_men |= m.reach;
            }
        }
        let (mut guard, mut sliders) = (Bitboard::EMPTY, Vec::new());
        for m in r.men.iter().filter(|m| {
            m.piece.color == loser && m.piece.role != Role::King && r.fixed.contains(m.origin)
        }) {
            guard |= attacks(m.piece, m.origin, ever);
            if matches!(m.piece.role, Role::Bishop | Role::Rook | Role::Queen) {
                sliders.push((m.origin, m.piece.role));
            }
        }
        Round {
            loser_king: fixed_king(loser),
            winner_king: fixed_king(r.winner),
            king_near,
            guard,
            winner_men,
            ever,
            multi,
            sliders,
        }
    }

    /// Whether no continuation that ends in the winner's mate makes the move of piece `i` from `from` to `to`
    /// (the rules of [`Round`]; kings' moves and promotions are never left out).
    fn futile(&self, r: &Reach, i: usize, from: Square, to: Square) -> bool {
        let man = &r.men[i];
        let promotes = man.piece.role == Role::Pawn && to.rank() == (!man.piece.color).back_rank();
        if man.piece.role == Role::King || promotes {
            return false;
        }
        if man.piece.color == r.winner {
            return r.lone && self.lone_check_futile(man.piece, to);
        }
        let others = (self.ever & !man.reach) | (self.multi & man.reach);
        self.mates_winner(man.piece, from, to, others)
    }

    /// The lone piece's futile check ([`Round`]).
    fn lone_check_futile(&self, piece: Piece, to: Square) -> bool {
        let Some(k) = self.loser_king else {
            return false;
        };
        king_attacks(k).contains(to)
            && attacks(piece, to, Bitboard::ALL).contains(k)
            && (!self.king_near.contains(to) || self.guard.contains(to))
    }

    /// The loser's mate ([`Round`]): `others`, the squares pieces other than the mover may stand on.
    fn mates_winner(&self, piece: Piece, from: Square, to: Square, others: Bitboard) -> bool {
        let Some(k) = self.winner_king else {
            return false;
        };
        let unanswerable = |way: Bitboard| (self.winner_men & way).is_empty();
        let direct = match piece.role {
            Role::Knight | Role::Pawn => attacks(piece, to, Bitboard::ALL).contains(k),
            role => {
                piece_attacks(role, to, Bitboard::EMPTY).contains(k)
                    && (between(to, k) & others).is_empty()
            }
        };
        if direct && unanswerable(between(to, k).with(to)) {
            return true;
        }
        self.sliders.iter().any(|&(l, role)| {
            let way = between(l, k);
            piece_attacks(role, l, Bitboard::EMPTY).contains(k)
                && way.contains(from)
                && !way.contains(to)
                && (way.without(from) & others).is_empty()
                && unanswerable(way.with(l))
        })
    }
}

/// Whether a confined piece other than `mover` (see [`Reach::confined`]) always stands on the way of the move
/// from `from` to `to` (the two squares and those between), so that the move can never be made.
fn blocked_way(confined: &[(usize, Bitboard)], mover: usize, from: Square, to: Square) -> bool {
    let way = between(from, to).with(from).with(to);
    confined
        .iter()
        .any(|&(i, region)| i != mover && (region & !way).is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::dead::{mate_within, random_walks};
    use crate::position::Setup;
    use crate::validate::Checked;

    fn board(fen: &str) -> Board {
        Board::from_setup(&Setup::from_fen(fen).unwrap()).0
    }

    /// Soundness on seeded random walks from locked and open positions (CHA-Solver's community positions the
    /// proof decides, a pawn break, open middlegame-like ones): wherever the reach proof or the check-chain
    /// proof answers, the independent exhaustive search finds no mate within 3 plies; and each answers often
    /// enough that this checks it.
    #[test]
    fn no_proof_where_a_short_mate_exists() {
        let fens = [
            "8/8/1k1p1p2/3PbP2/3pKp2/b2P1P2/8/3B1B2 w - - 0 1",
            "1k4b1/1P1p4/BP1Pp1p1/1P2P1P1/p7/PpB5/1P1B4/K7 b - - 0 1",
            "8/7B/7b/8/3p1p1p/b1pP1PpP/B1PpBkP1/3K1BRB w - - 0 1",
            "5kBR/4pPpP/1b2P1P1/8/1b6/1B5B/8/1B4K1 w - - 0 1",
            "4k3/8/1p2K3/bP5B/Pp6/1Pp5/B1P5/NB6 b - - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
            "r5k1/5ppp/8/3B4/8/8/5PPP/3R2K1 b - - 0 1",
        ];
        let n = walk_proofs(&fens, 0x9E37_79B9_7F4A_7C15, (6, 24), Some(4));
        assert!(n.proofs > 200 && n.chains > 50 && n.mates > 20, "{n:?}");
    }

    /// Soundness of the rules of [`Round`] on seeded random walks: from positions where one side has a single
    /// piece besides its king (a queen, a rook, a knight, against pawns and pieces, and CHA-Solver's walled-in
    /// nest, line 2072 of its tests/positions.txt) and where a king is walled in among pawns that the other
    /// side's pieces may check (lines 2003 and 2114): wherever the reach proof answers, the independent
    /// exhaustive search finds no mate within 3 plies; and it answers often enough, for lone pieces too, that
    /// this checks it.
    #[test]
    fn no_lone_piece_or_walled_king_proof_beside_a_short_mate() {
        let fens = [
            "8/5ppp/8/8/ppp5/bkp4Q/qnp5/n1K5 b - - 0 1",
            "6Q1/8/4n3/8/ppp5/qkp3b1/rnp5/n1K5 b - - 0 1",
            "k7/pp6/8/8/8/8/5n2/K6R w - - 0 1",
            "6k1/5ppp/8/8/8/3b4/8/N5K1 w - - 0 1",
            "1k6/1p6/1P6/8/8/8/3q4/K7 b - - 0 1",
            "6b1/8/1k6/3p1p2/3PpP1B/3pKp2/3P1P1n/B7 w - - 0 1",
            "8/2b4B/4k3/8/8/2p1p1p1/2PpP1P1/1B1K3n b - - 0 1",
        ];
        let n = walk_proofs(&fens, 0x2545_F491_4F6C_DD1D, (8, 20), None);
        assert!(n.proofs > 100 && n.lone > 30 && n.mates > 20, "{n:?}");
    }

    /// Soundness of the still case and of the groups ([`Reach::group_attacks`]) on seeded random walks: from
    /// CHA-Solver's lines 2123 and 2127 (a rook that may be taken on a1 without moving) and 3290 (seven bishops
    /// in eight squares), from the same nests with a queen that mates, and with six bishops in the eight squares
    /// (two may be missing at once, so no pawn is always defended): wherever the reach proof or the check-chain
    /// proof answers, the independent exhaustive search finds no mate within 3 plies; and each answers often
    /// enough that this checks it.
    #[test]
    fn no_still_case_or_group_proof_beside_a_short_mate() {
        let fens = [
            "B2b4/8/8/4k3/1p6/1Pp1p1pB/K1P1P1Pb/RB6 b - - 0 1",
            "B2b4/8/8/4k2B/1p1p1p1p/1PpP1P1P/K1P5/RB4b1 b - - 0 1",
            "B2b3Q/8/8/4k3/1p6/1Pp1p1pB/K1P1P1Pb/RB6 b - - 0 1",
            "B2b4/8/8/4k3/1p6/1Pp1p1pB/K1P1P1Pb/RB2q3 w - - 0 1",
            "B1B1B1B1/pBpBpBp1/P1P1P1P1/4b3/5b2/8/8/k1K5 w - - 0 1",
            "B1B1B1B1/pBpBpBp1/P1P1P1P1/4b3/5b1q/8/8/k1K5 w - - 0 1",
            "B1B1B3/pBpBpBp1/P1P1P1P1/4b3/5b2/8/8/k1K5 w - - 0 1",
        ];
        let n = walk_proofs(&fens, 0x5851_F42D_4C95_7F2D, (8, 20), Some(4));
        assert!(n.proofs > 100 && n.chains > 10 && n.mates > 20, "{n:?}");
    }

    /// What [`walk_proofs`] counted: reach proofs (and those for a side with one piece besides its king), check
    /// chains, and mates within 3 plies.
    #[derive(Debug, Default)]
    struct Walked {
        proofs: usize,
        lone: usize,
        chains: usize,
        mates: usize,
    }

    /// Seeded random walks from `fens` (`walks` walks of at most so many plies each): wherever the reach proof
    /// (and, on every `chain_every`-th position, the check-chain proof) answers for a side, the independent
    /// exhaustive search must find no mate for it within 3 plies.
    fn walk_proofs(
        fens: &[&str],
        seed: u64,
        walks: (usize, usize),
        chain_every: Option<u32>,
    ) -> Walked {
        let mut next = crate::random::xorshift(seed);
        let (mut n, mut seen) = (Walked::default(), 0u32);
        random_walks(fens, walks, &mut next, |_, b, cd, _, _| {
            let pos = Checked::new(b.to_setup(cd)).unwrap();
            seen += 1;
            for winner in Color::ALL {
                let mate = mate_within(&pos, winner, 3);
                n.mates += usize::from(mate);
                let beside = |what: &str| {
                    assert!(
                        !mate,
                        "{}: {what} for {winner:?} beside a mate",
                        pos.to_fen()
                    )
                };
                if reach_reason(b, winner).is_some() {
                    beside("proof");
                    n.proofs += 1;
                    n.lone += usize::from((b.occupied(winner) & !b.role(Role::King)).count() == 1);
                }
                // The chain follows up to 1,000 positions: on some positions only.
                if chain_every.is_some_and(|k| seen % k == 0)
                    && check_chain_reason(b, cd, winner).is_some()
                {
                    beside("chain");
                    n.chains += 1;
                }
            }
        });
        n
    }

    /// A pawn facing an enemy pawn on its file never passes it while neither leaves the file and the enemy one
    /// is never captured (FIDE 3.7): White's king may take Black's b3 pawn (CHA-Solver's community position,
    /// line 2246 of its tests/positions.txt, labelled dead) and White's b2 pawn then move on, but Black's b3 pawn
    /// never gets past b2 (without the rule its region would run to b1 and the proof would fail).
    #[test]
    fn facing_pawns_never_pass() {
        let b = board("1k4b1/1P1p4/BP1Pp1p1/1P2P1P1/8/PpB5/1P1B4/K7 b - - 0 1");
        let reach = Reach::new(&b, Color::White, Case::default(), false);
        let man = |sq: &str| {
            reach
                .men
                .iter()
                .find(|m| m.origin.to_string() == sq)
                .unwrap()
        };
        assert_eq!(
            man("b3").reach,
            Bitboard::from_square(Square::parse("b3").unwrap())
        );
        assert!(man("b2").reach.more_than_one());
        let text = reach_reason(&b, Color::White).unwrap().to_string();
        assert!(text.starts_with("reach: the pieces on"), "{text}");
    }

    /// Where the pawns can still break through (a white pawn takes on b5 and queens) the proof does not answer,
    /// and where castling or an e.p. capture is possible it does not try.
    #[test]
    fn no_proof_through_a_pawn_break_or_with_castling() {
        for fen in [
            "4k3/8/8/1p6/P7/8/8/4K3 w - - 0 1",
            "8/8/1k1p1p2/3PbP2/3pKp2/b2P1P2/8/R3K2R w KQ - 0 1",
        ] {
            for winner in Color::ALL {
                assert!(reach_reason(&board(fen), winner).is_none(), "{fen}");
            }
        }
    }
}
