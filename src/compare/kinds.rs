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

use super::motifs::{
    add_random_piece, castling_motif, check_motif, chess960_motif, clock_motif, end_motif,
    ep_capturers, ep_motif, has_castling_right, has_pawn_on_seventh, has_pinned_piece,
    material_motif, mirror_files, pin_motif, promotion_motif, swap_colours,
};
use crate::position::Setup;
use crate::random::{random_position, Rng};
use crate::reference::Mailbox;
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
    /// [`crate::random`]; from random Chess960 starts with `--chess960`.
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
