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
use super::{attacks, in_check, pawn_attacks, Reason, Region};
use crate::bitboard::attacks::KING;
use crate::bitboard::attacks::PAWN;
use crate::bitboard::board::{Board, BISHOP_I, KING_I, KNIGHT_I, PAWN_I, QUEEN_I, ROOK_I};
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

const RANK_1: u64 = 0xFF;
const RANK_8: u64 = 0xFF << 56;

/// The squares reachable from `seeds` by steps of `role` onto `passable` squares (lines stopped by `pawns`).
/// The seeds themselves are kept even when not passable (a king standing in check from a pawn that just moved).
fn flood(role: usize, seeds: u64, passable: u64, pawns: u64) -> u64 {
    let mut reach = seeds;
    let mut frontier = seeds;
    while frontier != 0 {
        let mut next = 0;
        let mut bits = frontier;
        while bits != 0 {
            next |= attacks(role, bits.trailing_zeros() as usize, pawns);
            bits &= bits - 1;
        }
        next &= passable & !reach;
        reach |= next;
        frontier = next;
    }
    reach
}

/// One abstract move: the pawn configuration after it; for a piece capturing a pawn, that piece (index) and the
/// square it lands on; the pieces that may have been captured by then (bit i = piece i); the colour that moved.
type Step = ([u64; 2], Option<(usize, usize)>, u64, usize);

/// The squares `defender`'s pieces (its king and other pieces, not its pawns) can never reach in `pos`, when
/// the blocked-structure argument, or else the fortress proof over pawn configurations
/// ([`saturate`]: then the union of its regions over every configuration), proves that the other side
/// can never checkmate (`None` otherwise, and without pawns): the fortress, for pictures (`analyze --svg`). The
/// current pawn squares are left out.
pub fn fortress(pos: &Checked, defender: Color) -> Option<u64> {
    let (root, _) = Board::from_setup(pos.setup());
    let pawns = root.roles[PAWN_I];
    if pawns == 0 {
        return None;
    }
    if let Some(Reason::Blocked { regions, .. }) = blocked_reason(&root, !defender) {
        let reach = regions
            .iter()
            .filter(|r| r.piece.color == defender)
            .fold(0, |acc, r| acc | r.reach);
        return Some(!reach & !pawns);
    }
    let proof = saturate(&root, !defender, None)?;
    Some(!proof.ever[defender.index()] & !pawns)
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
    c: usize,
    p: usize,
    from: u64,
    after: [u64; 2],
    pieces: &[(usize, usize)],
    reg: &[u64],
    winner: usize,
) -> bool {
    let them = c ^ 1;
    if pieces
        .iter()
        .any(|&(color, role)| color == them && role != KING_I)
    {
        return false;
    }
    let Some(king) = pieces.iter().position(|&(color, _)| color == them) else {
        return false;
    };
    let (own, theirs) = (after[them], after[c]);
    let pawns = own | theirs;
    let pbit = 1u64 << p;
    let capturer_pieces = pieces
        .iter()
        .zip(reg)
        .filter(|&(&(color, role), _)| color == c && role != KING_I)
        .fold(0, |acc, (_, &r)| acc | r);
    let mut bits = own;
    while bits != 0 {
        let s = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let front = if them == 0 { s + 8 } else { s - 8 };
        if (pawns | pbit) & (1u64 << front) == 0 || PAWN[them][s] & (theirs | capturer_pieces) != 0
        {
            return false;
        }
    }
    let illegal = own | pawn_attacks(theirs, c) | KING[p] | pbit;
    let places = reg[king] & !KING[p] & !pbit;
    let mut qs = places;
    while qs != 0 {
        let q = qs.trailing_zeros() as usize;
        qs &= qs - 1;
        if KING[q] & !illegal != 0 {
            return false;
        }
    }
    if them == winner {
        return true;
    }
    let on_board = |f: i32, r: i32| (0..8).contains(&f) && (0..8).contains(&r);
    let mut qs = places;
    while qs != 0 {
        let q = qs.trailing_zeros() as i32;
        qs &= qs - 1;
        let mut origins = from & KING[p];
        while origins != 0 {
            let f = origins.trailing_zeros() as i32;
            origins &= origins - 1;
            let (df, dr) = (f % 8 - q % 8, f / 8 - q / 8);
            if !(df == 0 || dr == 0 || df.abs() == dr.abs()) {
                continue;
            }
            let (sf, sr) = (df.signum(), dr.signum());
            let mover = if sf != 0 && sr != 0 { BISHOP_I } else { ROOK_I };
            let (mut cf, mut cr) = (q % 8 + sf, q / 8 + sr);
            let mut clear = true;
            while (cf, cr) != (f % 8, f / 8) {
                if (pawns | pbit) & (1u64 << (cr * 8 + cf)) != 0 {
                    clear = false;
                    break;
                }
                cf += sf;
                cr += sr;
            }
            if !clear {
                continue;
            }
            let (mut cf, mut cr) = (f % 8 + sf, f / 8 + sr);
            while on_board(cf, cr) {
                let bit = 1u64 << (cr * 8 + cf);
                if (pawns | pbit) & bit != 0 {
                    break;
                }
                let checker = pieces.iter().zip(reg).any(|(&(color, role), &r)| {
                    color == c && (role == mover || role == QUEEN_I) && r & bit != 0
                });
                if checker {
                    return false;
                }
                cf += sf;
                cr += sr;
            }
        }
    }
    true
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
    pub(super) ever: [u64; 2],
}

/// The fortress proof ([`fortress_reason`]) with the union of all regions.
pub(super) fn saturate(b: &Board, winner: Color, deadline: Option<Instant>) -> Option<Saturated> {
    let pawns0 = b.roles[PAWN_I];
    if pawns0 == 0 {
        return None;
    }
    let w = winner.index();
    // The root's non-pawn pieces: (colour, role) and square.
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    let mut squares: Vec<usize> = Vec::new();
    let mut bits = (b.colors[0] | b.colors[1]) & !pawns0;
    while bits != 0 {
        let sq = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let bit = 1u64 << sq;
        pieces.push((usize::from(b.colors[1] & bit != 0), b.role_on(bit)));
        squares.push(sq);
    }
    let n = pieces.len();
    if n > 64 {
        return None;
    }
    let mut keys: Vec<[u64; 2]> = vec![[pawns0 & b.colors[0], pawns0 & b.colors[1]]];
    let mut index: HashMap<[u64; 2], u32> = HashMap::new();
    index.insert(keys[0], 0);
    let mut seeds: Vec<u64> = squares.iter().map(|&s| 1u64 << s).collect();
    let mut regions: Vec<u64> = vec![0; n];
    // Per state, the pieces (bit i = pieces[i]) that may have been captured on some way to it.
    let mut captured: Vec<u64> = vec![0];
    let mut visited = vec![false];
    let mut queued = vec![true];
    let mut queue: VecDeque<usize> = VecDeque::from([0]);
    let mut att = vec![0u64; n];
    let mut reach = vec![0u64; n];
    let mut steps: Vec<Step> = Vec::new();
    let mut visits = 0;
    let kings: u64 = (0..n)
        .filter(|&i| pieces[i].1 == KING_I)
        .fold(0, |acc, i| acc | 1 << i);
    // The tempo argument (tempo.rs) for configurations where the final step fails: only when the loser has
    // nothing but its king and pawns, and no castling right remains. Per configuration, the colours whose move
    // may enter it (bit c), and the configurations it decided.
    let loser_king = pieces.iter().position(|&(c, r)| c != w && r == KING_I);
    let winner_king = pieces.iter().position(|&(c, r)| c == w && r == KING_I);
    let tempo_kings = match (loser_king, winner_king) {
        (Some(l), Some(k))
            if b.castling == 0 && pieces.iter().all(|&(c, r)| c == w || r == KING_I) =>
        {
            Some((l, k))
        }
        _ => None,
    };
    let root_check = in_check(b);
    let root_loser_to_move = b.turn as usize != w;
    let mut entered_by: Vec<u8> = vec![0];
    let mut flagged: Vec<usize> = Vec::new();
    // Every way play may enter configuration `s`: the root (configuration 0 is never entered again: every
    // transition advances a pawn or removes one), or a move of a colour in `entered_by[s]` (the other colour then
    // to move; the loser possibly in check after the winner's), with the kings on their seed squares.
    let entries = |s: usize, seeds: &[u64], entered_by: &[u8], (l, k): (usize, usize)| {
        let (loser, winner) = (seeds[s * n + l], seeds[s * n + k]);
        let mut out = Vec::new();
        if s == 0 {
            out.push(Entry {
                loser,
                winner,
                loser_to_move: root_loser_to_move,
                check: root_check,
            });
        }
        for c in 0..2 {
            if entered_by[s] & (1 << c) != 0 {
                out.push(Entry {
                    loser,
                    winner,
                    loser_to_move: c == w,
                    check: true,
                });
            }
        }
        out
    };
    while let Some(s) = queue.pop_front() {
        queued[s] = false;
        visits += 1;
        if visits > MAX_VISITS
            || (visits % 256 == 0 && deadline.is_some_and(|d| Instant::now() >= d))
        {
            return None;
        }
        let [wp, bp] = keys[s];
        let pawns = wp | bp;
        let patt = [pawn_attacks(wp, 0), pawn_attacks(bp, 1)];
        let seed = &seeds[s * n..(s + 1) * n];
        // Sure pieces: on one square for as long as these pawns stand (region one square), never captured on
        // the way here (kings never are) and never capturable here (no enemy region meets their square).
        // Start from every candidate and drop those the regions refute, until the two agree.
        // (None while castling rights remain: in Chess960 castling may swap a king and a rook, both one-square
        // regions otherwise.)
        let mut sure: u64 = (0..n)
            .filter(|&i| {
                b.castling == 0
                    && seed[i].count_ones() == 1
                    && (kings | !captured[s]) & (1 << i) != 0
            })
            .fold(0, |acc, i| acc | 1 << i);
        loop {
            let mut on = [0u64; 2];
            // Squares each king may not step on beyond the pawn attacks: next to a sure enemy king (FIDE
            // 3.8.2), attacked by a sure enemy knight.
            let mut guarded = [patt[1], patt[0]];
            for i in 0..n {
                if sure & (1 << i) != 0 {
                    let (color, role) = pieces[i];
                    on[color] |= seed[i];
                    let sq = seed[i].trailing_zeros() as usize;
                    if role == KING_I || role == KNIGHT_I {
                        guarded[color ^ 1] |= attacks(role, sq, 0);
                    }
                }
            }
            let occ = pawns | on[0] | on[1];
            for i in 0..n {
                let (color, role) = pieces[i];
                let mut passable = !pawns & !(on[color] & !seed[i]);
                if role == KING_I {
                    passable &= !guarded[color];
                }
                reach[i] = flood(role, seed[i], passable, occ);
            }
            let mut side = [0u64; 2];
            for i in 0..n {
                side[pieces[i].0] |= reach[i];
            }
            let still = (0..n)
                .filter(|&i| {
                    sure & (1 << i) != 0
                        && reach[i].count_ones() == 1
                        && reach[i] & side[pieces[i].0 ^ 1] == 0
                })
                .fold(0, |acc, i| acc | 1 << i);
            if still == sure {
                break;
            }
            sure = still;
        }
        let mut changed = !visited[s];
        visited[s] = true;
        for i in 0..n {
            if reach[i] != regions[s * n + i] {
                regions[s * n + i] = reach[i];
                changed = true;
            }
        }
        if !changed {
            continue;
        }
        let reg = &regions[s * n..(s + 1) * n];
        for i in 0..n {
            att[i] = region_attacks(pieces[i].1, reg[i], pawns);
        }
        if !flight_argument(pawns, patt[w], w, &pieces, reg, &att) {
            // The tempo argument instead; it is monotone too, so a failure now is final. It is repeated at the
            // end with the final regions and entries (so here only the first time a state needs it).
            let kings = tempo_kings?;
            if !flagged.contains(&s) {
                if flagged.len() >= MAX_TEMPO {
                    return None;
                }
                let entry = entries(s, &seeds, &entered_by, kings);
                tempo_argument(pawns, patt[w], w, &pieces, reg, &att, &entry)?;
                flagged.push(s);
            }
        }
        // What a king may not capture or step next to, and the pieces that may be captured while these pawns
        // stand (some enemy region meets theirs).
        let mut side = [0u64; 2];
        let mut sure_sq = 0;
        let mut guarded = [patt[1], patt[0]];
        for i in 0..n {
            side[pieces[i].0] |= reg[i];
            if sure & (1 << i) != 0 {
                sure_sq |= reg[i];
                let (color, role) = pieces[i];
                if role == KING_I || role == KNIGHT_I {
                    guarded[color ^ 1] |= attacks(role, reg[i].trailing_zeros() as usize, 0);
                }
            }
        }
        let mut maybe = captured[s];
        for i in 0..n {
            if pieces[i].1 != KING_I && reg[i] & side[pieces[i].0 ^ 1] != 0 {
                maybe |= 1 << i;
            }
        }
        let blocked = pawns | sure_sq;
        steps.clear();
        for c in 0..2 {
            let own = [wp, bp][c];
            let enemy = [wp, bp][c ^ 1];
            let enemy_pieces = pieces
                .iter()
                .zip(reg)
                .filter(|&(&(color, role), _)| color != c && role != KING_I)
                .fold(0, |acc, (_, &r)| acc | r);
            let (last, ep_rank) = if c == 0 {
                (RANK_8, 0xFFu64 << 32)
            } else {
                (RANK_1, 0xFFu64 << 24)
            };
            let ahead = |sq: usize| if c == 0 { sq + 8 } else { sq - 8 };
            // The enemy pieces a pawn capture on `bit` may take.
            let victims = |bit: u64| {
                (0..n)
                    .filter(|&i| pieces[i].0 != c && pieces[i].1 != KING_I && reg[i] & bit != 0)
                    .fold(0u64, |acc, i| acc | 1 << i)
            };
            let mut bits = own;
            while bits != 0 {
                let from = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let without = own & !(1u64 << from);
                let with = |to: usize, taken: u64| {
                    let mut k = [0u64; 2];
                    k[c] = without | 1u64 << to;
                    k[c ^ 1] = enemy & !taken;
                    k
                };
                // Pushes (FIDE 3.7.1, 3.7.2).
                let one = ahead(from);
                if blocked & (1u64 << one) == 0 {
                    if last & (1u64 << one) != 0 {
                        return None;
                    }
                    steps.push((with(one, 0), None, maybe, c));
                    let start = if c == 0 { from / 8 == 1 } else { from / 8 == 6 };
                    let two = ahead(one);
                    if start && blocked & (1u64 << two) == 0 {
                        steps.push((with(two, 0), None, maybe, c));
                    }
                }
                // Captures (FIDE 3.7.3), en passant included (3.7.3.2).
                let mut targets = PAWN[c][from];
                while targets != 0 {
                    let to = targets.trailing_zeros() as usize;
                    targets &= targets - 1;
                    let bit = 1u64 << to;
                    if (enemy | enemy_pieces) & bit != 0 {
                        if last & bit != 0 {
                            return None;
                        }
                        steps.push((with(to, enemy & bit), None, maybe | victims(bit), c));
                    }
                    if ep_rank & (1u64 << from) != 0 {
                        let (beside, origin) = if c == 0 {
                            (to - 8, to + 8)
                        } else {
                            (to + 8, to - 8)
                        };
                        if enemy & (1u64 << beside) != 0 && pawns & (bit | 1u64 << origin) == 0 {
                            steps.push((with(to, 1u64 << beside), None, maybe, c));
                        }
                    }
                }
            }
            // Pieces capturing a pawn (FIDE 3.1; a king only one that no enemy pawn, sure knight or sure king
            // guards, 3.8.2).
            for i in 0..n {
                let (color, role) = pieces[i];
                if color != c {
                    continue;
                }
                let mut prey = att[i] & enemy;
                if role == KING_I {
                    prey &= !guarded[c];
                }
                while prey != 0 {
                    let p = prey.trailing_zeros() as usize;
                    prey &= prey - 1;
                    let mut k = [0u64; 2];
                    k[c] = own;
                    k[c ^ 1] = enemy & !(1u64 << p);
                    if role == KING_I && capture_ends_game(c, p, reg[i], k, &pieces, reg, w) {
                        continue;
                    }
                    steps.push((k, Some((i, p)), maybe, c));
                }
            }
        }
        for &(key, mover, gone, color) in &steps {
            let t = match index.get(&key) {
                Some(&t) => t as usize,
                None => {
                    if keys.len() >= MAX_STATES {
                        return None;
                    }
                    let t = keys.len();
                    keys.push(key);
                    index.insert(key, t as u32);
                    seeds.extend(std::iter::repeat_n(0, n));
                    regions.extend(std::iter::repeat_n(0, n));
                    captured.push(0);
                    entered_by.push(0);
                    visited.push(false);
                    queued.push(false);
                    t
                }
            };
            let after = key[0] | key[1];
            entered_by[t] |= 1 << color;
            let mut grew = gone & !captured[t] != 0;
            captured[t] |= gone;
            for i in 0..n {
                let seed = match mover {
                    Some((x, p)) if x == i => 1u64 << p,
                    _ => regions[s * n + i] & !after,
                };
                let old = seeds[t * n + i];
                if seed & !old != 0 {
                    seeds[t * n + i] = old | seed;
                    grew = true;
                }
            }
            if (grew || !visited[t]) && !queued[t] {
                queued[t] = true;
                queue.push_back(t);
            }
        }
    }
    // The configurations decided by the tempo argument, again with their final regions and entries.
    let mut king_positions = 0;
    for &s in &flagged {
        let [wp, bp] = keys[s];
        let pawns = wp | bp;
        let reg = &regions[s * n..(s + 1) * n];
        let att: Vec<u64> = (0..n)
            .map(|i| region_attacks(pieces[i].1, reg[i], pawns))
            .collect();
        let entry = entries(s, &seeds, &entered_by, tempo_kings?);
        let winner_pawn_att = pawn_attacks([wp, bp][w], w);
        king_positions += tempo_argument(pawns, winner_pawn_att, w, &pieces, reg, &att, &entry)?;
    }
    let root_regions = pieces
        .iter()
        .enumerate()
        .map(|(i, &(color, role))| Region {
            piece: Piece::new(Color::ALL[color], Role::ALL[role]),
            square: Square::new(squares[i] as u8),
            reach: regions[i],
        })
        .collect();
    let mut ever = [0u64; 2];
    for (j, &r) in regions.iter().enumerate() {
        ever[pieces[j % n].0] |= r;
    }
    let pawn_states = keys.len() as u64;
    let reason = if flagged.is_empty() {
        Reason::Fortress {
            pawn_states,
            regions: root_regions,
        }
    } else {
        Reason::Tempo {
            pawn_states,
            tempo_states: flagged.len() as u64,
            king_positions,
            regions: root_regions,
        }
    };
    Some(Saturated { reason, ever })
}
