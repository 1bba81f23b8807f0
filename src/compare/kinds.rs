//! Rule-directed positions for `stress`: generators of legal, reachable-looking positions that put one rule of
//! FIDE article 3 (or a game-end rule that must *not* leak into move generation) at its edge, then the standard
//! tricky suites, then random playouts.
//!
//! Random playouts rarely build the geometries that move generators get wrong (an e.p. capture that empties
//! the king's rank, a Chess960 rook that shields the king's destination) and never reach a halfmove clock of
//! 100, so [`Positions`] deals positions in rounds: one position of each chosen [`Kind`] per round, in the
//! fixed order of [`Kind::ALL`] (random playouts last). Each kind's docs name what it targets and the FIDE
//! article.
//!
//! How a directed position is made: a *motif* (the few pieces that make the rule matter: king, pinner, the two
//! pawns of an e.p. capture) is placed with random geometry, then 0–8 random other pieces, then the colours
//! are swapped and the board mirrored at random (a1↔h1 only without castling rights). The result is kept
//! only when it is a valid position ([`Checked`]) with no validity warning (no impossible check, no
//! impossible material: engines may refuse those) and the kind's *predicate* still holds on it (the e.p.
//! capture still exists and is still pinned, the side to move is still in check, …), checked with the
//! reference generator. After a bounded number of tries a fixed, hand-checked position of the kind is used
//! (tested to satisfy the predicate), so a kind always yields a position.
//!
//! Every position is reproducible from `(seed, index)`: a directed position's random numbers depend only on
//! the seed, its kind and its round; random playouts use one stream per seed, as before (`--kinds random`
//! gives the same positions as earlier versions of `stress`).

use crate::compare::random::{random_position, Rng};
use crate::position::Setup;
use crate::reference::{self, Mailbox};
use crate::types::{CastlingSide, Color, Piece, Role, Square};
use crate::validate::Checked;
use std::sync::OnceLock;

/// A kind of stress position. [`Kind::ALL`] is the documented order in which `stress` deals them.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Kind {
    /// En passant at its edges (FIDE 3.7.4.1, 3.7.4.2, 3.9.2): the capture that empties the king's rank
    /// (both pawns leave it), a capturer pinned on a file or diagonal (legal along the pin line), the capture
    /// of a double-stepped pawn that gives check (the only capture evasion), a capture that gives discovered
    /// check (through the capturer's or the captured pawn's square), and a capture that is illegal because the
    /// double step uncovered a check by another piece.
    Ep,
    /// Standard castling (FIDE 3.8.2, 3.8.2.1, 3.8.2.2): attacks on the king's square, on the squares it
    /// crosses and reaches (and on b1/b8 and the rook, which do not matter), pieces between king and rook,
    /// one-sided and lost rights, and the opponent's rook in reach (capturing it removes a right).
    Castling,
    /// Chess960 castling (FIDE 3.8.2 as the Chess960 rules apply it): king and rook on each other's target
    /// squares, a king that stays on g1/c1, adjacent king and rook, pieces on the target squares outside the
    /// king–rook span, and rook shields: an enemy rook or queen on the back rank whose attack on the king's
    /// target square is blocked only by the castling rook itself. Also the Chess960 suite positions
    /// (`chess960.epd`, X-FEN positions of `tricky.perft`) and short playouts from random Chess960 starts.
    Chess960,
    /// Promotion (FIDE 3.7.5.1–3.7.5.3): every piece, with and without capture (of a rook that still has
    /// its castling right too), blocked pushes, pinned promoting pawns, promotions that give (discovered)
    /// check and promotions that answer a check.
    Promotion,
    /// Check (FIDE 3.9.1, 3.9.2, 3.8.1): single checks by every piece (contact and distant), double checks
    /// (only king moves), and x-rays: the squares behind the king on a checking line stay attacked.
    Check,
    /// Pins (FIDE 3.9.2): every piece pinned on files, ranks and diagonals, moves along the pin line (legal),
    /// captures of the pinner, two pieces on the line (no pin), several pins at once.
    Pin,
    /// Mate and stalemate at the root (FIDE 1.4.1, 5.1.1, 5.2.1): positions without legal moves, which a
    /// perft counts as 0 at every depth.
    End,
    /// Halfmove clock 99–150 (FIDE 9.3, 9.6.2): the 50- and 75-move rules end games, not move generation, so
    /// the moves are the same as with the clock at 0.
    Clock,
    /// Insufficient and dead material (FIDE 1.5, 5.2.2, 6.9): K v K, K+minor v K, same-coloured bishops,
    /// K+NN v K, and positions one capture away from them: the moves are still generated.
    Material,
    /// The standard tricky suites, standard chess: the CPW perft positions and shakmaty's `tricky.perft`
    /// (e.p. pins and evasions, aligned pins, many checkers), then the 127 positions of `standard.epd`.
    Suite,
    /// Random playouts (biased towards castling, e.p., promotions, checks, captures), see
    /// [`crate::compare::random`]; from random Chess960 starts with `--chess960`.
    Random,
}

impl Kind {
    /// Every kind, in the order `stress` deals them.
    pub const ALL: [Kind; 11] = [
        Kind::Ep,
        Kind::Castling,
        Kind::Chess960,
        Kind::Promotion,
        Kind::Check,
        Kind::Pin,
        Kind::End,
        Kind::Clock,
        Kind::Material,
        Kind::Suite,
        Kind::Random,
    ];

    /// The name used by `--kinds` and in output.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Ep => "ep",
            Kind::Castling => "castling",
            Kind::Chess960 => "chess960",
            Kind::Promotion => "promotion",
            Kind::Check => "check",
            Kind::Pin => "pin",
            Kind::End => "end",
            Kind::Clock => "clock",
            Kind::Material => "material",
            Kind::Suite => "suite",
            Kind::Random => "random",
        }
    }

    /// The FIDE articles the kind targets.
    pub fn articles(self) -> &'static str {
        match self {
            Kind::Ep => "3.7.4.1, 3.7.4.2, 3.9.2",
            Kind::Castling => "3.8.2, 3.8.2.1, 3.8.2.2",
            Kind::Chess960 => "3.8.2 (Chess960 rules)",
            Kind::Promotion => "3.7.5.1-3.7.5.3",
            Kind::Check => "3.9.1, 3.9.2, 3.8.1",
            Kind::Pin => "3.9.2",
            Kind::End => "1.4.1, 5.1.1, 5.2.1",
            Kind::Clock => "9.3, 9.6.2",
            Kind::Material => "1.5, 5.2.2, 6.9",
            Kind::Suite => "3.1-3.9",
            Kind::Random => "3.1-3.9",
        }
    }

    /// Parse a `--kinds` value: names separated by commas, `all` (every kind) or `standard` (every kind but
    /// `chess960`). The result is in the documented order, without repeats.
    ///
    /// # Errors
    /// A message naming the unknown word and the known names.
    pub fn parse_list(text: &str) -> Result<Vec<Kind>, String> {
        let mut chosen = Vec::new();
        for word in text.split(',').map(str::trim) {
            match word {
                "all" => chosen.extend(Kind::ALL),
                "standard" => chosen.extend(Kind::ALL.into_iter().filter(|&k| k != Kind::Chess960)),
                w => match Kind::ALL.into_iter().find(|k| k.name() == w) {
                    Some(k) => chosen.push(k),
                    None => {
                        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
                        return Err(format!(
                            "'{w}' is not a kind (known: {}, all, standard)",
                            names.join(", ")
                        ));
                    }
                },
            }
        }
        chosen.sort();
        chosen.dedup();
        Ok(chosen)
    }
}

/// One dealt position.
#[derive(Clone, Debug)]
pub struct Dealt {
    /// Its index in the run's sequence, from 1 (as `--start` takes it).
    pub index: u64,
    /// Its kind.
    pub kind: Kind,
    /// The position (valid, without warnings).
    pub position: Checked,
}

/// The sequence of stress positions of one seed: rounds of one position per chosen kind, in the documented
/// order.
#[derive(Clone, Debug)]
pub struct Positions {
    kinds: Vec<Kind>,
    seed: u64,
    chess960: bool,
    max_plies: u32,
    random: Rng,
    next: u64,
}

impl Positions {
    /// The positions of `seed` for `kinds` (at least one; an empty list means every kind). Random playouts
    /// start from random Chess960 starts when `chess960` and are at most `max_plies` long.
    pub fn new(kinds: &[Kind], seed: u64, chess960: bool, max_plies: u32) -> Positions {
        let kinds = if kinds.is_empty() {
            Kind::ALL.to_vec()
        } else {
            kinds.to_vec()
        };
        Positions {
            kinds,
            seed,
            chess960,
            max_plies,
            random: Rng::new(seed),
            next: 0,
        }
    }

    /// The kind of the position at 0-based `i`.
    fn kind_at(&self, i: u64) -> Kind {
        self.kinds[(i % self.kinds.len() as u64) as usize]
    }

    /// Skip the next position cheaply (random playouts are still played, to keep their stream).
    pub fn skip(&mut self) {
        if self.kind_at(self.next) == Kind::Random {
            let _ = random_position(&mut self.random, self.chess960, self.max_plies);
        }
        self.next += 1;
    }

    /// The next position.
    pub fn next_position(&mut self) -> Dealt {
        let i = self.next;
        self.next += 1;
        let kind = self.kind_at(i);
        let round = i / self.kinds.len() as u64;
        let position = match kind {
            Kind::Random => {
                let setup = random_position(&mut self.random, self.chess960, self.max_plies);
                // Reached by legal moves from a legal start: valid by construction.
                Checked::new(setup).expect("a playout from a legal start stays valid")
            }
            _ => directed(kind, self.seed, round),
        };
        Dealt {
            index: i + 1,
            kind,
            position,
        }
    }
}

/// The directed position of `kind` in round `round` of `seed`.
pub fn directed(kind: Kind, seed: u64, round: u64) -> Checked {
    try_directed(kind, seed, round).unwrap_or_else(|| {
        let list = fallbacks(kind);
        Checked::from_fen(list[(round % list.len() as u64) as usize])
            .expect("fallback positions are valid (tested)")
    })
}

/// [`directed`] without the fallback: `None` when 400 tries made nothing.
fn try_directed(kind: Kind, seed: u64, round: u64) -> Option<Checked> {
    let mut mix = Rng::new(seed ^ 0x5354_5245_5353_4b44);
    let mut rng = Rng::new(
        mix.next_u64()
            ^ (kind as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ round.wrapping_mul(0xD1B5_4A32_D192_ED03),
    );
    match kind {
        Kind::Suite => return Some(suite_position(standard_suite(), round)),
        // (`Positions` plays random playouts from one stream per seed; this is for callers of `directed`.)
        Kind::Random => return Checked::new(random_position(&mut rng, false, 60)).ok(),
        Kind::Chess960 if round % 4 == 3 => {
            return Some(suite_position(chess960_suite(), round / 4))
        }
        Kind::Chess960 if round % 4 == 1 => {
            // A short playout from a random Chess960 start: rights intact, pieces developing.
            for _ in 0..50 {
                let s = random_position(&mut rng, true, 10);
                if let Ok(c) = accept(s, |s| has_castling_right(s) && s.needs_chess960_notation()) {
                    return Some(c);
                }
            }
        }
        _ => {}
    }
    (0..400).find_map(|_| attempt(kind, &mut rng, round))
}

/// Keep `s` when it is valid, has no warnings and satisfies `pred`.
fn accept(s: Setup, pred: impl Fn(&Setup) -> bool) -> Result<Checked, ()> {
    let c = Checked::new(s).map_err(|_| ())?;
    if !c.warnings().is_empty() || !pred(c.setup()) {
        return Err(());
    }
    Ok(c)
}

/// One try at a directed position of `kind` in round `round` (which picks the motif's variant, so that
/// every variant comes up within a few rounds).
fn attempt(kind: Kind, rng: &mut Rng, round: u64) -> Option<Checked> {
    let (mut s, fill) = match kind {
        Kind::Ep => (ep_motif(rng, round % 7)?, 6),
        Kind::Castling => (castling_motif(rng)?, 6),
        Kind::Chess960 => (chess960_motif(rng, round.is_multiple_of(4))?, 3),
        Kind::Promotion => (promotion_motif(rng, round % 5)?, 5),
        Kind::Check => (check_motif(rng, round % 5)?, 6),
        Kind::Pin => (pin_motif(rng)?, 6),
        Kind::End => (end_motif(rng, round.is_multiple_of(2))?, 0),
        Kind::Clock => (clock_motif(rng, round % 4), 0),
        Kind::Material => (material_motif(rng, round % 9)?, 0),
        Kind::Suite | Kind::Random => unreachable!("not directed"),
    };
    if fill > 0 {
        let n = rng.below(fill + 1);
        for _ in 0..n {
            add_random_piece(&mut s, rng);
        }
    }
    if !matches!(kind, Kind::Clock | Kind::End) {
        s.halfmoves = if s.ep_square.is_some() {
            0
        } else {
            rng.below(20) as u32
        };
        s.fullmoves = 10 + rng.below(50) as u32;
    }
    if rng.below(2) == 1 {
        s = swap_colours(&s);
    }
    if s.castling.is_empty() && rng.below(2) == 1 {
        s = mirror_files(&s);
    }
    accept(s, |s| predicate(kind, s)).ok()
}

/// What a kind's position must show (checked on the final position, after filling and mirroring).
fn predicate(kind: Kind, s: &Setup) -> bool {
    let mb = Mailbox::from_setup(s);
    match kind {
        Kind::Ep => !ep_capturers(s).is_empty(),
        Kind::Castling => has_castling_right(s) && !s.needs_chess960_notation(),
        Kind::Chess960 => has_castling_right(s) && s.needs_chess960_notation(),
        Kind::Promotion => has_pawn_on_seventh(s),
        Kind::Check => mb.in_check(),
        Kind::Pin => !mb.in_check() && has_pinned_piece(s),
        Kind::End => mb.legal_moves().is_empty(),
        Kind::Clock => s.halfmoves >= 99,
        Kind::Material => true,
        Kind::Suite | Kind::Random => true,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Board helpers (files and ranks 0–7; motifs are built for White to move and mirrored afterwards).

fn at(f: i32, r: i32) -> Option<Square> {
    Square::from_coords(f, r)
}

/// Put piece `c` (FEN letter) on (f, r) when the square exists and is empty and a pawn is not on a back rank.
fn put(s: &mut Setup, f: i32, r: i32, c: char) -> Option<Square> {
    let sq = at(f, r)?;
    let p = Piece::from_char(c)?;
    if s.board[sq.index()].is_some() || (p.role == Role::Pawn && (r == 0 || r == 7)) {
        return None;
    }
    s.board[sq.index()] = Some(p);
    Some(sq)
}

/// Put `c` on a random empty square (pawns off the back ranks).
fn put_random(s: &mut Setup, rng: &mut Rng, c: char) -> Option<Square> {
    for _ in 0..64 {
        let i = rng.below(64) as i32;
        if let Some(sq) = put(s, i % 8, i / 8, c) {
            return Some(sq);
        }
    }
    None
}

/// Put the kings that are still missing on random squares.
fn add_kings(s: &mut Setup, rng: &mut Rng) -> Option<()> {
    for c in ['K', 'k'] {
        let color = if c == 'K' { Color::White } else { Color::Black };
        if s.kings(color).is_empty() {
            put_random(s, rng, c)?;
        }
    }
    Some(())
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len() as u64) as usize]
}

/// A random non-king piece of either colour on a random empty square.
fn add_random_piece(s: &mut Setup, rng: &mut Rng) {
    let c = pick(
        rng,
        &['P', 'P', 'N', 'B', 'R', 'Q', 'p', 'p', 'n', 'b', 'r', 'q'],
    );
    let _ = put_random(s, rng, c);
}

// The eight directions, orthogonal first (`DIRS[4..]` are the diagonals).
use crate::types::LINE_DIRECTIONS as DIRS;

/// A black slider that moves along `dir`.
fn slider_for(rng: &mut Rng, dir: (i32, i32), black: bool) -> char {
    let c = if dir.0 == 0 || dir.1 == 0 {
        pick(rng, &['r', 'r', 'q'])
    } else {
        pick(rng, &['b', 'b', 'q'])
    };
    if black {
        c
    } else {
        c.to_ascii_uppercase()
    }
}

fn swap_colours(s: &Setup) -> Setup {
    let mut out = Setup::empty();
    for sq in Square::all() {
        if let Some(p) = s.piece_at(sq) {
            out.board[sq.flip_vertical().index()] = Some(Piece::new(!p.color, p.role));
        }
    }
    out.turn = !s.turn;
    for (color, side, rook) in s.castling.iter() {
        out.castling.set(!color, side, Some(rook.flip_vertical()));
    }
    out.ep_square = s.ep_square.map(Square::flip_vertical);
    out.halfmoves = s.halfmoves;
    out.fullmoves = s.fullmoves;
    out
}

fn mirror_files(s: &Setup) -> Setup {
    let mut out = s.clone();
    for sq in Square::all() {
        let m = at(7 - sq.file() as i32, sq.rank() as i32).expect("on board");
        out.board[m.index()] = s.piece_at(sq);
    }
    out.ep_square = s
        .ep_square
        .map(|e| at(7 - e.file() as i32, e.rank() as i32).expect("on board"));
    out
}

fn has_castling_right(s: &Setup) -> bool {
    s.castling.iter().any(|(c, _, _)| c == s.turn)
}

fn has_pawn_on_seventh(s: &Setup) -> bool {
    let rank = if s.turn == Color::White { 6 } else { 1 };
    (0..8)
        .any(|f| s.piece_at(at(f, rank).expect("on board")) == Some(Piece::new(s.turn, Role::Pawn)))
}

/// Squares of the side to move's pawns that could capture en passant (ignoring pins and checks).
pub fn ep_capturers(s: &Setup) -> Vec<Square> {
    let Some(ep) = s.ep_square else {
        return Vec::new();
    };
    let rank = if s.turn == Color::White { 4 } else { 3 };
    [-1, 1]
        .into_iter()
        .filter_map(|d| at(ep.file() as i32 + d, rank))
        .filter(|&sq| s.piece_at(sq) == Some(Piece::new(s.turn, Role::Pawn)))
        .collect()
}

/// Whether a piece of the side to move (not the king) is pinned to its king.
fn has_pinned_piece(s: &Setup) -> bool {
    let Some(&king) = s.kings(s.turn).first() else {
        return false;
    };
    Square::all().any(|sq| {
        s.piece_at(sq)
            .is_some_and(|p| p.color == s.turn && p.role != Role::King)
            && {
                let mut t = s.clone();
                t.board[sq.index()] = None;
                !reference::attackers(&t, king, !s.turn).is_empty()
            }
    })
}

/// A random square from which a `c` placed there attacks `target` (for Black: `by` the attacker's colour).
fn put_attacker(s: &mut Setup, rng: &mut Rng, c: char, target: Square) -> Option<Square> {
    let p = Piece::from_char(c)?;
    let start = rng.below(64) as usize;
    for k in 0..64 {
        let sq = Square::new(((start + k * 37) % 64) as u8);
        if sq == target || s.piece_at(sq).is_some() {
            continue;
        }
        if p.role == Role::Pawn && (sq.rank() == 0 || sq.rank() == 7) {
            continue;
        }
        s.board[sq.index()] = Some(p);
        if reference::attackers(s, target, p.color).contains(&sq) {
            return Some(sq);
        }
        s.board[sq.index()] = None;
    }
    None
}

// ---------------------------------------------------------------------------------------------------------
// Motifs, White to move.

/// En passant (FIDE 3.7.4): a black pawn has just double-stepped to (f, 4); a white pawn on (g, 4) can take
/// it, landing on (f, 5).
fn ep_motif(rng: &mut Rng, variant: u64) -> Option<Setup> {
    let mut s = Setup::empty();
    let f = rng.below(8) as i32;
    let side = match f {
        0 => 1,
        7 => -1,
        _ => pick(rng, &[-1, 1]),
    };
    let g = f + side;
    put(&mut s, f, 4, 'p')?;
    put(&mut s, g, 4, 'P')?;
    s.ep_square = at(f, 5);
    if rng.below(4) == 0 {
        // A second capturer on the other side.
        let _ = put(&mut s, f - side, 4, 'P');
    }
    let slider = |rng: &mut Rng, diag: bool| {
        if diag {
            pick(rng, &['b', 'q'])
        } else {
            pick(rng, &['r', 'q'])
        }
    };
    // Files of a king and a slider at the two ends of the capture rank, outside the two pawns, in random
    // order (None when a pawn stands on an edge file).
    let rank_ends = |rng: &mut Rng| -> Option<(i32, i32)> {
        let (lo, hi) = (f.min(g), f.max(g));
        if lo == 0 || hi == 7 {
            return None;
        }
        let left = lo - 1 - rng.below(lo as u64) as i32;
        let right = hi + 1 + rng.below((7 - hi) as u64) as i32;
        Some(if rng.below(2) == 0 {
            (left, right)
        } else {
            (right, left)
        })
    };
    match variant {
        // The rank pin: king and enemy rook/queen on the capture rank with only the two pawns between.
        0 | 1 => {
            let (kf, sf) = rank_ends(rng)?;
            put(&mut s, kf, 4, 'K')?;
            let c = slider(rng, false);
            put(&mut s, sf, 4, c)?;
            if rng.below(4) == 0 {
                // A third piece on the rank: no pin any more.
                let between: Vec<i32> = (kf.min(sf) + 1..kf.max(sf))
                    .filter(|&x| x != f && x != g)
                    .collect();
                if !between.is_empty() {
                    let x = pick(rng, &between);
                    let c = pick(rng, &['N', 'B', 'n', 'b']);
                    put(&mut s, x, 4, c)?;
                }
            }
        }
        // The capturer pinned on a diagonal (legal when the capture runs along the pin line).
        2 => {
            let (df, dr) = pick(rng, &DIRS[4..]);
            let k1 = 1 + rng.below(3) as i32;
            let k2 = 1 + rng.below(3) as i32;
            put(&mut s, g - df * k1, 4 - dr * k1, 'K')?;
            let c = slider(rng, true);
            put(&mut s, g + df * k2, 4 + dr * k2, c)?;
        }
        // The capturer pinned on its file.
        3 => {
            put(&mut s, g, rng.below(4) as i32, 'K')?;
            let c = slider(rng, false);
            put(&mut s, g, 5 + rng.below(3) as i32, c)?;
        }
        // The double-stepped pawn gives check: capturing it e.p. is an evasion (unless the capturer is
        // pinned as well).
        4 => {
            let kf = f + pick(rng, &[-1, 1]);
            put(&mut s, kf, 3, 'K')?;
            if kf == g && rng.below(3) == 0 {
                let c = slider(rng, false);
                put(&mut s, g, 5 + rng.below(3) as i32, c)?;
            }
        }
        // The capture gives discovered check: along the emptied rank, or through the capturer's or the
        // captured pawn's square.
        5 => match rng.below(3) {
            0 => {
                let (kf, sf) = rank_ends(rng)?;
                put(&mut s, kf, 4, 'k')?;
                let c = slider(rng, false).to_ascii_uppercase();
                put(&mut s, sf, 4, c)?;
            }
            n => {
                let through = if n == 1 { g } else { f };
                let (df, dr) = pick(rng, &DIRS[4..]);
                let k1 = 1 + rng.below(3) as i32;
                let k2 = 1 + rng.below(3) as i32;
                put(&mut s, through + df * k1, 4 + dr * k1, 'k')?;
                let c = slider(rng, true).to_ascii_uppercase();
                put(&mut s, through - df * k2, 4 - dr * k2, c)?;
            }
        },
        // The double step uncovered a check by another piece: the e.p. capture does not answer it.
        _ => {
            let (df, dr) = pick(rng, &[(1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)]);
            let k1 = 1 + rng.below(4) as i32;
            let k2 = 1 + rng.below(2) as i32;
            put(&mut s, f + df * k1, 6 + dr * k1, 'K')?;
            let c = slider(rng, dr != 0);
            put(&mut s, f - df * k2, 6 - dr * k2, c)?;
        }
    }
    add_kings(&mut s, rng)?;
    Some(s)
}

/// Standard castling (FIDE 3.8.2): king on e1 with rooks and rights, attacked and occupied squares around.
fn castling_motif(rng: &mut Rng) -> Option<Setup> {
    let mut s = Setup::empty();
    put(&mut s, 4, 0, 'K')?;
    let mut any = false;
    for (file, side) in [(7, CastlingSide::KingSide), (0, CastlingSide::QueenSide)] {
        if rng.below(8) != 0 {
            let rook = put(&mut s, file, 0, 'R')?;
            if rng.below(5) != 0 {
                s.castling.set(Color::White, side, Some(rook));
                any = true;
            }
        }
    }
    if !any {
        return None;
    }
    if rng.below(2) == 0 {
        put(&mut s, 4, 7, 'k')?;
        for (file, side) in [(7, CastlingSide::KingSide), (0, CastlingSide::QueenSide)] {
            if rng.below(3) != 0 {
                let rook = put(&mut s, file, 7, 'r')?;
                if rng.below(3) != 0 {
                    s.castling.set(Color::Black, side, Some(rook));
                }
            }
        }
    }
    add_kings(&mut s, rng)?;
    // Attackers of the squares that matter (e1, d1, f1, c1, g1) and of those that do not (b1, a1, h1).
    for _ in 0..1 + rng.below(3) {
        let target = at(pick(rng, &[4, 3, 5, 2, 6, 2, 6, 1, 0, 7]), 0)?;
        let c = pick(rng, &['n', 'b', 'r', 'q', 'p', 'b', 'r']);
        let _ = put_attacker(&mut s, rng, c, target);
    }
    // Pieces between king and rook (either colour).
    if rng.below(3) == 0 {
        let f = pick(rng, &[1, 2, 3, 5, 6]);
        let c = pick(rng, &['N', 'B', 'Q', 'n', 'b']);
        let _ = put(&mut s, f, 0, c);
    }
    // Own pawns in front, as in games.
    for f in 0..8 {
        if rng.below(3) == 0 {
            let _ = put(&mut s, f, 1, 'P');
        }
    }
    Some(s)
}

/// Chess960 castling (FIDE 3.8.2, Chess960 rules): any king file b–g with a rook on each side.
fn chess960_motif(rng: &mut Rng, shield: bool) -> Option<Setup> {
    // (king file, queen-side rook file, king-side rook file): the edge cases first, then anything.
    const SPECIAL: [(i32, i32, i32); 10] = [
        (1, 0, 7), // king b1: queen-side castling moves the king to c1
        (6, 0, 7), // king g1 stays on g1 when castling king-side
        (5, 0, 6), // king f1, rook g1: they swap
        (3, 2, 7), // king d1, rook c1: they swap
        (2, 0, 7), // king c1 stays on c1 when castling queen-side
        (2, 1, 3), // king c1 between two adjacent rooks
        (4, 3, 5), // king e1 with rooks on d1 and f1 (their targets)
        (1, 0, 2), // rooks on a1 and c1, king between
        (6, 5, 7), // king g1 between f1 and h1
        (5, 1, 6), // rook b1 behind a long queen-side path
    ];
    let (kf, qf, rf) = if shield {
        // The shield only matters for a queen-side rook on b1 (an attacker on a1 then hits c1 once the rook
        // has left), so that is the set-up; the king anywhere from c1 to g1.
        let kf = 2 + rng.below(5) as i32;
        (kf, 1, kf + 1 + rng.below((7 - kf) as u64) as i32)
    } else if rng.below(3) != 0 {
        pick(rng, &SPECIAL)
    } else {
        let kf = 1 + rng.below(6) as i32;
        let qf = rng.below(kf as u64) as i32;
        let rf = kf + 1 + rng.below((7 - kf) as u64) as i32;
        (kf, qf, rf)
    };
    let mut s = Setup::empty();
    for (rank, king, rook, color) in [(0, 'K', 'R', Color::White), (7, 'k', 'r', Color::Black)] {
        put(&mut s, kf, rank, king)?;
        for (file, side) in [(qf, CastlingSide::QueenSide), (rf, CastlingSide::KingSide)] {
            if rng.below(8) != 0 {
                let sq = put(&mut s, file, rank, rook)?;
                if rng.below(6) != 0 {
                    s.castling.set(color, side, Some(sq));
                }
            }
        }
    }
    if !has_castling_right(&s) {
        return None;
    }
    // The rook shield: an enemy rook or queen on the back rank beyond the castling rook, whose attack on the
    // king's target square only that rook blocks.
    if shield {
        s.castling
            .set(Color::White, CastlingSide::QueenSide, at(1, 0));
        put(&mut s, 0, 0, pick(rng, &['r', 'q']))?;
    } else {
        for _ in 0..rng.below(3) {
            let target = at(pick(rng, &[kf, 2, 3, 5, 6, (kf + 2).min(6)]), 0)?;
            let c = pick(rng, &['n', 'b', 'r', 'q', 'p']);
            let _ = put_attacker(&mut s, rng, c, target);
        }
    }
    // A piece on a king's or rook's target square outside the king–rook span: it blocks that castling,
    // though no square between king and rook is occupied.
    if !shield && rng.below(2) == 0 {
        let mut targets = Vec::new();
        for (a, b, squares) in [(qf, kf, [2, 3]), (kf, rf, [5, 6])] {
            targets.extend(squares.into_iter().filter(|&t| t < a || t > b));
        }
        if !targets.is_empty() {
            let t = pick(rng, &targets);
            let _ = put(&mut s, t, 0, pick(rng, &['N', 'B', 'n', 'b']));
        }
    }
    // Other back-rank pieces (in the way or on a target square) and pawns, as in Chess960 games.
    for (rank, pawn_rank, upper) in [(0, 1, true), (7, 6, false)] {
        for f in 0..8 {
            if !shield && rng.below(3) == 0 {
                let c = pick(rng, &['N', 'B', 'Q']);
                let c = if upper { c } else { c.to_ascii_lowercase() };
                let _ = put(&mut s, f, rank, c);
            }
            if rng.below(3) != 0 {
                let _ = put(&mut s, f, pawn_rank, if upper { 'P' } else { 'p' });
            }
        }
    }
    Some(s)
}

/// Promotion (FIDE 3.7.5): pawns on the seventh rank with things to take, things in the way, pins and checks.
fn promotion_motif(rng: &mut Rng, variant: u64) -> Option<Setup> {
    let mut s = Setup::empty();
    let mut files = Vec::new();
    for _ in 0..1 + rng.below(2) {
        let p = rng.below(8) as i32;
        if put(&mut s, p, 6, 'P').is_some() {
            files.push(p);
        }
    }
    let p = *files.first()?;
    for &p in &files {
        for d in [-1, 1] {
            if rng.below(2) == 0 {
                let c = pick(rng, &['r', 'n', 'b', 'q']);
                let _ = put(&mut s, p + d, 7, c);
            }
        }
        if rng.below(4) == 0 {
            let _ = put(&mut s, p, 7, pick(rng, &['n', 'r']));
        }
    }
    match variant {
        // The promoted piece gives check: along the back rank, or as a knight.
        0 => {
            let squares = [
                (p + 1, 5),
                (p - 1, 5),
                (p + 2, 6),
                (p - 2, 6),
                (pick(rng, &[0, 1, 2, 5, 6, 7]), 7),
            ];
            let (f, r) = pick(rng, &squares);
            put(&mut s, f, r, 'k')?;
        }
        // The promoting pawn is pinned: on the seventh rank (no move) or on a diagonal (it may take the
        // pinner).
        1 => {
            if rng.below(2) == 0 {
                let kf = pick(rng, &[0, 7]);
                put(&mut s, kf, 6, 'K')?;
                let sf = if kf == 0 { 7 } else { 0 };
                if sf != p {
                    put(&mut s, sf, 6, pick(rng, &['r', 'q']))?;
                }
            } else {
                let df = pick(rng, &[-1, 1]);
                let k = 1 + rng.below(4) as i32;
                put(&mut s, p - df * k, 6 - k, 'K')?;
                let sq = at(p + df, 7)?;
                s.board[sq.index()] = Some(Piece::from_char(pick(rng, &['b', 'q']))?);
            }
        }
        // White is in check along the back rank, and the promotion square is between: promoting blocks.
        2 => {
            let kf = pick(rng, &[0, 7]);
            if kf == p {
                return None;
            }
            put(&mut s, kf, 7, 'K')?;
            let sf = if kf == 0 { 7 } else { 0 };
            let (lo, hi) = (kf.min(sf), kf.max(sf));
            if !(lo < p && p < hi) {
                return None;
            }
            for x in lo + 1..hi {
                if x != p {
                    let sq = at(x, 7)?;
                    s.board[sq.index()] = None;
                }
            }
            let sq = at(sf, 7)?;
            s.board[sq.index()] = Some(Piece::from_char(pick(rng, &['r', 'q']))?);
        }
        // Taking a rook that still has its castling right removes the right (FIDE 3.8.2.1).
        3 => {
            let (rf, pf, side) = pick(
                rng,
                &[
                    (7, 6, CastlingSide::KingSide),
                    (0, 1, CastlingSide::QueenSide),
                ],
            );
            let mut t = Setup::empty();
            put(&mut t, 4, 7, 'k')?;
            let rook = put(&mut t, rf, 7, 'r')?;
            t.castling.set(Color::Black, side, Some(rook));
            put(&mut t, pf, 6, 'P')?;
            if rng.below(2) == 0 {
                let other = put(&mut t, 7 - rf, 7, 'r')?;
                let other_side = if side == CastlingSide::KingSide {
                    CastlingSide::QueenSide
                } else {
                    CastlingSide::KingSide
                };
                t.castling.set(Color::Black, other_side, Some(other));
            }
            s = t;
        }
        // The promotion gives discovered check: the pawn stood between a white slider and the black king.
        _ => {
            let dirs: [(i32, i32); 2] = [(1, 0), (-1, 0)];
            let (df, _) = pick(rng, &dirs);
            let k1 = 1 + rng.below(3) as i32;
            let k2 = 1 + rng.below(3) as i32;
            put(&mut s, p + df * k1, 6, 'k')?;
            put(&mut s, p - df * k2, 6, pick(rng, &['R', 'Q']))?;
        }
    }
    add_kings(&mut s, rng)?;
    Some(s)
}

/// Check (FIDE 3.9.1): single, contact and double checks, with the line behind the king left open.
fn check_motif(rng: &mut Rng, variant: u64) -> Option<Setup> {
    let mut s = Setup::empty();
    let king = put_random(&mut s, rng, 'K')?;
    let (kf, kr) = (king.file() as i32, king.rank() as i32);
    let slider_check = |s: &mut Setup, rng: &mut Rng, dir: (i32, i32), k: i32| -> Option<()> {
        let c = slider_for(rng, dir, true);
        for i in 1..k {
            if s.piece_at(at(kf + dir.0 * i, kr + dir.1 * i)?).is_some() {
                return None;
            }
        }
        put(s, kf + dir.0 * k, kr + dir.1 * k, c)?;
        Some(())
    };
    match variant {
        0 => {
            let dir = pick(rng, &DIRS);
            let k = 2 + rng.below(5) as i32;
            slider_check(&mut s, rng, dir, k)?;
        }
        1 => {
            put_attacker(&mut s, rng, 'n', king)?;
        }
        2 => {
            put_attacker(&mut s, rng, 'p', king)?;
        }
        // Contact check by a queen or rook (protected or not: the filling decides).
        3 => {
            let dir = pick(rng, &DIRS);
            let c = pick(rng, &['q', 'q', 'r']);
            let c = if c == 'r' && dir.0 != 0 && dir.1 != 0 {
                'b'
            } else {
                c
            };
            put(&mut s, kf + dir.0, kr + dir.1, c)?;
        }
        // Double check: a slider and a knight, or two sliders on different lines.
        _ => {
            let dir = pick(rng, &DIRS);
            let k = 2 + rng.below(5) as i32;
            slider_check(&mut s, rng, dir, k)?;
            if rng.below(2) == 0 {
                put_attacker(&mut s, rng, 'n', king)?;
            } else {
                let other = pick(rng, &DIRS);
                // Not on the checking line (neither side): one checker would block the other.
                if other == dir || other == (-dir.0, -dir.1) {
                    return None;
                }
                let k = 1 + rng.below(5) as i32;
                slider_check(&mut s, rng, other, k)?;
            }
        }
    }
    add_kings(&mut s, rng)?;
    Some(s)
}

/// Pins (FIDE 3.9.2): a white piece between its king and a black slider; sometimes two pins, sometimes a
/// second piece on the line (no pin).
fn pin_motif(rng: &mut Rng) -> Option<Setup> {
    let mut s = Setup::empty();
    let king = put_random(&mut s, rng, 'K')?;
    let (kf, kr) = (king.file() as i32, king.rank() as i32);
    for n in 0..1 + rng.below(2) {
        let dir = pick(rng, &DIRS);
        let k1 = 1 + rng.below(3) as i32;
        let k2 = 1 + rng.below(4) as i32;
        let piece = pick(rng, &['P', 'N', 'B', 'R', 'Q', 'P']);
        let ok = put(&mut s, kf + dir.0 * k1, kr + dir.1 * k1, piece).is_some();
        let c = slider_for(rng, dir, true);
        let ok = ok && put(&mut s, kf + dir.0 * (k1 + k2), kr + dir.1 * (k1 + k2), c).is_some();
        if !ok && n == 0 {
            return None;
        }
        if ok && k2 > 1 && rng.below(6) == 0 {
            // A second piece on the line: nothing is pinned there.
            let _ = put(&mut s, kf + dir.0 * (k1 + 1), kr + dir.1 * (k1 + 1), 'N');
        }
    }
    add_kings(&mut s, rng)?;
    Some(s)
}

/// Mate or stalemate at the root (FIDE 1.4.1, 5.2.1): a random sparse position, then a move of the side to
/// move that leaves the opponent without legal moves.
fn end_motif(rng: &mut Rng, want_mate: bool) -> Option<Setup> {
    let mut s = Setup::empty();
    add_kings(&mut s, rng)?;
    for _ in 0..1 + rng.below(4) {
        let c = pick(rng, &['Q', 'R', 'R', 'B', 'N', 'P', 'Q', 'p', 'n']);
        let _ = put_random(&mut s, rng, c);
    }
    s.fullmoves = 30 + rng.below(40) as u32;
    let c = Checked::new(s).ok()?;
    if !c.warnings().is_empty() {
        return None;
    }
    let mb = Mailbox::from_setup(c.setup());
    let mut found = None;
    for m in mb.legal_moves() {
        let next = mb.play(m);
        if next.legal_moves().is_empty() {
            found = Some(next.clone());
            if next.in_check() == want_mate {
                break;
            }
        }
    }
    Some(found?.to_setup())
}

/// Halfmove clock 99–150 (FIDE 9.3, 9.6.2) on a random playout position.
fn clock_motif(rng: &mut Rng, variant: u64) -> Setup {
    let mut s = random_position(rng, false, 60);
    s.halfmoves = match variant {
        0 => 99,
        1 => 100,
        _ => 99 + rng.below(52) as u32,
    };
    // A clock above 0 means the last move was no double step.
    s.ep_square = None;
    s.fullmoves = s.fullmoves.max(s.halfmoves / 2 + 1);
    s
}

/// Insufficient or dead material (FIDE 1.5, 5.2.2, 6.9), or one capture away from it.
fn material_motif(rng: &mut Rng, variant: u64) -> Option<Setup> {
    let mut s = Setup::empty();
    add_kings(&mut s, rng)?;
    let pieces: &[char] = match variant {
        0 => &[],
        1 => &['B'],
        2 => &['N'],
        3 => &['N', 'N'],
        4 => &['B', 'n'],
        5 => &['N', 'n'],
        6 => &['R', 'n'], // the rook may be taken: then K+N v K
        7 => &['P', 'b'], // the pawn may be taken: then K+B v K
        _ => &['Q', 'b'],
    };
    for &c in pieces {
        put_random(&mut s, rng, c)?;
    }
    if rng.below(3) == 0 {
        // Bishops all on one colour: K+B… v K+B… with same-coloured bishops is dead.
        let colour = rng.below(2) as i32;
        for c in ['B', 'b', 'b'] {
            for _ in 0..20 {
                let f = rng.below(8) as i32;
                let r = rng.below(8) as i32;
                if (f + r) % 2 == colour && put(&mut s, f, r, c).is_some() {
                    break;
                }
            }
        }
    }
    s.turn = if rng.below(2) == 0 {
        Color::White
    } else {
        Color::Black
    };
    s.halfmoves = rng.below(60) as u32;
    s.fullmoves = 40 + rng.below(60) as u32;
    Some(s)
}

// ---------------------------------------------------------------------------------------------------------
// Suites and fallbacks.

const TRICKY: &str = include_str!("../../data/tricky.perft");
const STANDARD: &str = include_str!("../../data/standard.epd");
const CHESS960: &str = include_str!("../../data/chess960.epd");

/// FENs of a suite text: `epd` lines of `.perft` blocks, or EPD lines read by the one position-line reader
/// ([`crate::position_file`]).
fn suite_fens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().enumerate().filter_map(|(i, l)| {
        let l = l.trim();
        if l.starts_with("id ") || l.starts_with("perft ") {
            return None;
        }
        let l = l.strip_prefix("epd ").unwrap_or(l);
        crate::position_file::parse_line(i + 1, l)?
            .ok()
            .map(|r| r.fen)
    })
}

/// Valid, warning-free positions of the suites, split by whether they need Chess960 notation.
fn suites() -> &'static (Vec<Checked>, Vec<Checked>) {
    static SUITES: OnceLock<(Vec<Checked>, Vec<Checked>)> = OnceLock::new();
    SUITES.get_or_init(|| {
        let mut standard = Vec::new();
        let mut chess960 = Vec::new();
        for fen in suite_fens(TRICKY)
            .chain(suite_fens(STANDARD))
            .chain(suite_fens(CHESS960))
        {
            let Ok(c) = Checked::from_fen(&fen) else {
                continue;
            };
            if !c.warnings().is_empty() {
                continue;
            }
            if c.needs_chess960_notation() {
                chess960.push(c);
            } else {
                standard.push(c);
            }
        }
        (standard, chess960)
    })
}

/// The standard-chess suite positions (tricky first, then `standard.epd`).
pub fn standard_suite() -> &'static [Checked] {
    &suites().0
}

/// The Chess960 suite positions (X-FEN ones of `tricky.perft`, then `chess960.epd`).
pub fn chess960_suite() -> &'static [Checked] {
    &suites().1
}

fn suite_position(list: &[Checked], round: u64) -> Checked {
    list[(round % list.len() as u64) as usize].clone()
}

/// Hand-checked positions of each directed kind, used when the random construction keeps failing (the
/// tests check that each satisfies its kind's predicate): one a line, the kind's name and the FEN.
/// - ep: the rank pin of CPW position 3 after e2e4; an evasion by e.p.; a diagonal pin;
/// - suite and random: the initial position.
const FALLBACKS: &str = "\
ep        8/2p5/3p4/KP5r/1R2Pp1k/8/6P1/8 b - e3 0 1
ep        8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1
ep        8/1k6/8/8/3Pp3/8/6B1/4K3 b - d3 0 1
castling  r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1
castling  r3k2r/8/8/8/8/8/6b1/R3K2R w KQkq - 0 1
chess960  1r1k2r1/8/8/8/8/8/8/qR1K2R1 w GBgb - 0 1
chess960  4rkr1/8/8/8/8/8/8/4RKR1 w GEge - 0 1
promotion n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1
promotion r3k2r/1P6/8/8/8/8/8/4K3 w kq - 0 1
check     3k4/8/8/8/8/8/8/R3K2r w - - 0 1
check     4k3/8/8/8/8/5n2/8/4K2r w - - 0 1
pin       4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1
pin       4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1
end       R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1
end       7k/5Q2/6K1/8/8/8/8/8 b - - 0 1
clock     8/8/8/4k3/8/8/4P3/R3K3 w - - 99 80
material  8/8/4k3/8/8/2B5/8/4K3 w - - 0 60
suite     rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
random    rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
";

/// The fallback positions of `kind` ([`FALLBACKS`]), in the table's order.
fn fallbacks(kind: Kind) -> Vec<&'static str> {
    FALLBACKS
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(k, _)| *k == kind.name())
        .map(|(_, fen)| fen.trim_start())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::MoveKind;

    #[test]
    fn kinds_parse_in_documented_order() {
        assert_eq!(
            Kind::parse_list("random,ep,ep").unwrap(),
            [Kind::Ep, Kind::Random]
        );
        assert_eq!(Kind::parse_list("all").unwrap(), Kind::ALL);
        assert!(!Kind::parse_list("standard")
            .unwrap()
            .contains(&Kind::Chess960));
        let e = Kind::parse_list("ep,castle").unwrap_err();
        assert!(e.contains("'castle'"), "{e}");
    }

    #[test]
    fn fallbacks_satisfy_their_predicates() {
        for kind in Kind::ALL {
            assert!(!fallbacks(kind).is_empty(), "{kind:?} has no fallback");
            if matches!(kind, Kind::Suite | Kind::Random) {
                continue;
            }
            for fen in fallbacks(kind) {
                let c = Checked::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
                assert!(c.warnings().is_empty(), "{fen}");
                assert!(predicate(kind, c.setup()), "{kind:?}: {fen}");
            }
        }
    }

    #[test]
    fn every_directed_position_is_valid_and_on_target() {
        for kind in Kind::ALL {
            for round in 0..40 {
                let c = directed(kind, 1, round);
                assert!(c.warnings().is_empty(), "{kind:?} {}", c.to_fen());
                assert!(
                    crate::validate::check(c.setup()).is_ok(),
                    "{kind:?} {}",
                    c.to_fen()
                );
                if !matches!(kind, Kind::Suite | Kind::Random) {
                    assert!(predicate(kind, c.setup()), "{kind:?}: {}", c.to_fen());
                }
            }
        }
    }

    #[test]
    fn directed_kinds_rarely_need_their_fallback() {
        for kind in Kind::ALL {
            if kind == Kind::Random {
                continue;
            }
            let made = (0..60)
                .filter(|&r| try_directed(kind, 2, r).is_some())
                .count();
            assert!(
                made >= 57,
                "{kind:?}: only {made} of 60 rounds made a position"
            );
        }
    }

    #[test]
    fn positions_are_dealt_in_rounds_and_reproducible() {
        let kinds = [Kind::Ep, Kind::Pin, Kind::Random];
        let mut a = Positions::new(&kinds, 9, false, 40);
        let all: Vec<Dealt> = (0..9).map(|_| a.next_position()).collect();
        let names: Vec<Kind> = all.iter().map(|d| d.kind).collect();
        assert_eq!(names, [kinds, kinds, kinds].concat());
        // Skipping to position 8 gives the same position as dealing all of them.
        let mut b = Positions::new(&kinds, 9, false, 40);
        for _ in 0..7 {
            b.skip();
        }
        let d = b.next_position();
        assert_eq!(d.index, 8);
        assert_eq!(d.position, all[7].position);
    }

    #[test]
    fn random_kind_alone_is_the_old_playout_stream() {
        let mut p = Positions::new(&[Kind::Random], 5, false, 60);
        let mut rng = Rng::new(5);
        for _ in 0..10 {
            assert_eq!(
                p.next_position().position.into_setup(),
                random_position(&mut rng, false, 60)
            );
        }
    }

    #[test]
    fn ep_positions_cover_their_edges() {
        // Over a few rounds the e.p. kind yields illegal captures (pins), legal ones, check evasions and
        // captures that give check: each edge, checked with the reference generator.
        let (mut illegal, mut legal, mut evasion, mut gives_check) = (0, 0, 0, 0);
        for round in 0..200 {
            let c = directed(Kind::Ep, 3, round);
            let mb = Mailbox::from_setup(c.setup());
            let ep: Vec<_> = mb
                .legal_moves()
                .into_iter()
                .filter(|m| m.kind() == MoveKind::EnPassant)
                .collect();
            if ep.is_empty() {
                illegal += 1;
            } else {
                legal += 1;
                if mb.in_check() {
                    evasion += 1;
                }
                if ep.iter().any(|&m| mb.play(m).in_check()) {
                    gives_check += 1;
                }
            }
        }
        assert!(illegal >= 20 && legal >= 20, "{illegal} {legal}");
        assert!(evasion >= 5 && gives_check >= 5, "{evasion} {gives_check}");
    }
}
