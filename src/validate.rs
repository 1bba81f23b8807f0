//! Validity of a position, kept apart from FEN syntax (FIDE 3.10.3: a position is impossible if no series of
//! possible moves can reach it), and [`Checked`], the type of a position perft is defined on.
//!
//! Flow, as in shakmaty (`Setup` → `Chess`): text → [`Setup::from_fen`] (syntax only) → [`Checked::new`]
//! (validity) → any [`crate::backend::Backend`]. Every backend method takes a [`Checked`], so no backend can
//! count a position nobody checked.
//!
//! Two tiers, as perft tools need them:
//! - [`ValidityError`]: perft is ill-defined (no king to protect, a king that can be captured, a pawn that
//!   cannot move, castling or en-passant rights that name nothing). Perft refuses such positions.
//! - [`ValidityWarning`]: the position is impossible but perfectly playable (three checkers, more material than
//!   promotions allow). Perft still counts it; `analyze` reports it.
//!
//! Attacks are computed by the reference generator ([`crate::reference`]), the project's oracle, except the
//! test of every check that the side not to move is not in check, read off the board (`attacked`) and
//! tested against the oracle.

pub use crate::error::ValidityError;
use crate::error::{Error, Result};
use crate::position::Setup;
use crate::reference;
use crate::types::{
    CastlingSide, Color, Move, Piece, Role, Square, KING_STEPS, KNIGHT_STEPS, LINE_DIRECTIONS,
};
use std::fmt;

/// A position [`check`] found no [`ValidityError`] in, with the warnings it finds. The only ways to get
/// one are [`Checked::new`] (and its shorthands) and [`Checked::play`], which both check for errors, and,
/// inside the crate, `Checked::reached` for the positions of a split frontier (reached by legal moves from a
/// checked root; the king checks only). The warnings (the costlier retro-analysis counts) are computed on the
/// first call of [`Checked::warnings`], so the analyses that never read them (`dead` over millions of
/// positions, a deep run's frontier) do not pay for them.
///
/// It dereferences to its [`Setup`] for reading.
#[derive(Clone, Debug)]
pub struct Checked {
    setup: Setup,
    warnings: std::sync::OnceLock<Vec<ValidityWarning>>,
}

/// Equal when the positions are (every field of the [`Setup`]): the warnings are a function of the position,
/// computed or not. (`dead`'s memo recognizes the position it was made from by reference first, so a scan does
/// not compare boards: see `crate::analyze::dead::Memo`.)
impl PartialEq for Checked {
    fn eq(&self, other: &Checked) -> bool {
        self.setup == other.setup
    }
}

impl Eq for Checked {}

impl Checked {
    /// Check `setup`.
    ///
    /// # Errors
    /// [`Error::InvalidPosition`] with the position and every validity error (its message quotes the FEN and
    /// lists them).
    pub fn new(setup: Setup) -> Result<Checked> {
        let v = check_with(&setup, false);
        if !v.is_ok() {
            return Err(Error::invalid_position(setup, v.errors));
        }
        Ok(Checked {
            setup,
            warnings: std::sync::OnceLock::new(),
        })
    }

    /// A position reached from a [`Checked`] position by legal moves of the bitboard core's generator (the
    /// split frontier of a deep run, [`crate::deep::split`]): valid by construction, as a legal move keeps a
    /// valid position valid ([`Checked::play`]), so only the king checks of [`check`] are repeated (one king
    /// each, the side that just moved not in check); the warnings are computed only if asked for, as for
    /// [`Checked::new`]. A frontier has up to millions of positions;
    /// the full [`check`] (with its retro-analysis proofs) cost a split run more than counting them.
    ///
    /// # Errors
    /// [`Error::InvalidPosition`] when a king check fails (a bug of the generator that made the position).
    #[cfg(feature = "deep")]
    pub(crate) fn reached(setup: Setup) -> Result<Checked> {
        let kings = kings_of(&setup);
        let mut errors = Vec::new();
        king_count_errors(&kings, &mut errors);
        if errors.is_empty() {
            let their_king = kings[(!setup.turn).index()].1;
            if attacked(&setup, their_king, setup.turn) {
                errors.push(ValidityError::OppositeCheck);
            }
        }
        if !errors.is_empty() {
            return Err(Error::invalid_position(setup, errors));
        }
        Ok(Checked {
            setup,
            warnings: std::sync::OnceLock::new(),
        })
    }

    /// `setup` as a checked position where `screen`, a cheaper test than [`check`]'s for callers that check
    /// millions of positions (`dead`'s reading, `crate::analyze::dead::checked`), finds it plainly valid;
    /// otherwise [`Checked::new`], so every error and message is its. `screen` must answer `true` only where
    /// [`check`] finds no [`ValidityError`] (its tests compare it with [`check`]). Perft's paths do not use it.
    ///
    /// # Errors
    /// As [`Checked::new`].
    pub(crate) fn screened(setup: Setup, screen: impl FnOnce(&Setup) -> bool) -> Result<Checked> {
        if screen(&setup) {
            return Ok(Checked {
                setup,
                warnings: std::sync::OnceLock::new(),
            });
        }
        Checked::new(setup)
    }

    /// Parse and check a FEN.
    ///
    /// # Errors
    /// [`Error::Fen`] for a malformed FEN (the field and its text), [`Error::InvalidPosition`] for an invalid
    /// position.
    pub fn from_fen(fen: &str) -> Result<Checked> {
        Checked::new(Setup::from_fen(fen)?)
    }

    /// The FIDE initial position.
    pub fn startpos() -> Checked {
        Checked::new(Setup::startpos()).expect("the initial position is valid")
    }

    /// The position as plain data.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// Impossible-but-playable findings (perft still counts the position).
    pub fn warnings(&self) -> &[ValidityWarning] {
        self.warnings.get_or_init(|| check(&self.setup).warnings)
    }

    /// The plain data back.
    pub fn into_setup(self) -> Setup {
        self.setup
    }

    /// The legal moves, by the reference generator.
    pub fn legal_moves(&self) -> Vec<Move> {
        reference::legal_moves(&self.setup)
    }

    /// The position after `m`, checked again (a legal move keeps a valid position valid, so an error here
    /// means `m` was not legal).
    ///
    /// # Errors
    /// [`Error::InvalidPosition`] when the result is invalid.
    pub fn play(&self, m: Move) -> Result<Checked> {
        Checked::new(reference::play(&self.setup, m))
    }
}

impl std::ops::Deref for Checked {
    type Target = Setup;
    fn deref(&self) -> &Setup {
        &self.setup
    }
}

impl AsRef<Setup> for Checked {
    fn as_ref(&self) -> &Setup {
        &self.setup
    }
}

/// An impossible but playable position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ValidityWarning {
    /// A check no legal move can give: more than two checkers, or two checkers neither of which could have
    /// been uncovered, or two checkers on one line.
    ImpossibleCheck {
        /// The checking pieces' squares.
        checkers: Vec<Square>,
    },
    /// More pieces than the initial 16 and promotions allow (FIDE 2.2, 3.7.5).
    TooMuchMaterial(Color),
    /// Proved impossible by retro-analysis ([`crate::retro`], FIDE 3.10.3): the pawn structure needs more
    /// captures than the opponent has lost units, or (from [`check_retro`]) no legal last move.
    Impossible(crate::retro::Proof),
}

impl fmt::Display for ValidityWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValidityWarning::ImpossibleCheck { checkers } => {
                let list: Vec<String> = checkers.iter().map(|s| s.to_string()).collect();
                write!(f, "impossible_check: checkers on {}", list.join(", "))
            }
            ValidityWarning::TooMuchMaterial(c) => {
                write!(
                    f,
                    "too_much_material: {} has more pieces than promotions allow",
                    c.name()
                )
            }
            ValidityWarning::Impossible(proof) => write!(f, "{proof}"),
        }
    }
}

/// The result of [`check`].
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Validity {
    /// Reasons perft is ill-defined.
    pub errors: Vec<ValidityError>,
    /// Impossible-but-playable findings.
    pub warnings: Vec<ValidityWarning>,
}

impl Validity {
    /// No errors (warnings allowed).
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }
}

impl fmt::Display for Validity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.errors.iter().map(|e| e.to_string()).collect();
        write!(f, "{}", parts.join("; "))
    }
}

/// Each colour's number of kings and the square of its first (a1 when it has none), in one pass over the board.
fn kings_of(setup: &Setup) -> [(usize, Square); 2] {
    let mut kings = [(0usize, Square::new(0)); 2];
    for sq in Square::all() {
        if let Some(Piece {
            role: Role::King,
            color,
        }) = setup.piece_at(sq)
        {
            let k = &mut kings[color.index()];
            if k.0 == 0 {
                k.1 = sq;
            }
            k.0 += 1;
        }
    }
    kings
}

/// A missing king or more than one, per colour (White first).
fn king_count_errors(kings: &[(usize, Square); 2], errors: &mut Vec<ValidityError>) {
    for color in Color::ALL {
        match kings[color.index()].0 {
            0 => errors.push(ValidityError::MissingKing(color)),
            1 => {}
            _ => errors.push(ValidityError::TooManyKings(color)),
        }
    }
}

/// Check a position for errors and warnings.
pub fn check(setup: &Setup) -> Validity {
    check_with(setup, true)
}

/// [`check`]'s errors, and its warnings only when `warnings` is set.
fn check_with(setup: &Setup, warnings: bool) -> Validity {
    let mut v = Validity::default();
    let kings = kings_of(setup);
    king_count_errors(&kings, &mut v.errors);
    // Only the first and last ranks (a1..h1, a8..h8), in square order.
    for sq in (0..8).chain(56..64).map(Square::new) {
        if let Some(Piece {
            role: Role::Pawn, ..
        }) = setup.piece_at(sq)
        {
            v.errors.push(ValidityError::PawnOnBackRank(sq));
        }
    }
    check_castling(setup, &mut v);
    check_ep(setup, &mut v);
    let kings_ok = v.errors.iter().all(|e| {
        !matches!(
            e,
            ValidityError::MissingKing(_) | ValidityError::TooManyKings(_)
        )
    });
    if kings_ok {
        let them = !setup.turn;
        let their_king = kings[them.index()].1;
        if attacked(setup, their_king, setup.turn) {
            v.errors.push(ValidityError::OppositeCheck);
        }
        let our_king = kings[setup.turn.index()].1;
        if !warnings {
            return v;
        }
        let checkers = reference::attackers(setup, our_king, them);
        let ep_ok = !v
            .errors
            .iter()
            .any(|e| matches!(e, ValidityError::InvalidEpSquare { .. }));
        let impossible = match setup.ep_square {
            Some(ep) if ep_ok && !checkers.is_empty() => {
                impossible_check_after_double_step(setup, ep, our_king, &checkers)
            }
            _ => impossible_check(setup, our_king, &checkers),
        };
        if impossible {
            v.warnings
                .push(ValidityWarning::ImpossibleCheck { checkers });
        }
    }
    for color in Color::ALL {
        if too_much_material(setup, color) {
            v.warnings.push(ValidityWarning::TooMuchMaterial(color));
        }
    }
    // FIDE 3.10.3 by counting (crate::retro::proofs): material and bishop colours are the warning above; the
    // pawn-capture budget is new here. Sound for standard chess and Chess960 alike.
    v.warnings.extend(
        crate::retro::proofs::static_proofs(setup)
            .into_iter()
            .filter(|p| p.kind == crate::retro::ProofKind::PawnCaptures)
            .map(ValidityWarning::Impossible),
    );
    v
}

/// [`check`], then retraction of the last move to `opts.plies` plies ([`crate::retro::retract`], FIDE 3.10.3):
/// a position whose side that just moved has no legal last move gets an [`ValidityWarning::Impossible`]
/// warning. Costlier than [`check`] (each ply multiplies the work), so asked for explicitly (`analyze`,
/// `reachable`, `suite --check-reachability`).
pub fn check_retro(setup: &Setup, opts: crate::retro::RetroOptions) -> Validity {
    let mut v = check(setup);
    if v.is_ok() && v.warnings.is_empty() {
        if let Some(p) = crate::retro::deep_and_retraction(setup, opts) {
            v.warnings.push(ValidityWarning::Impossible(p));
        }
    }
    v
}

/// Whether a unit of `by` attacks `target` (FIDE 3.2–3.8: a knight's jump, a king's step, a pawn's diagonal
/// step forward, a bishop, rook or queen along an open line), read off the board square by square: the test
/// "the side not to move is in check" of every [`Checked::new`], without the reference generator's mailbox
/// (building one per position was a tenth of a `dead --scan` of real positions). The same answer as
/// `!reference::attackers(setup, target, by).is_empty()` (the oracle; compared on every square of random-game
/// positions and constructed checks in the tests below).
fn attacked(setup: &Setup, target: Square, by: Color) -> bool {
    let (file, rank) = (i32::from(target.file()), i32::from(target.rank()));
    let at = |df: i32, dr: i32| Square::from_coords(file + df, rank + dr);
    let holds = |sq: Option<Square>, role: Role| {
        sq.is_some_and(|s| setup.piece_at(s) == Some(Piece::new(by, role)))
    };
    // FIDE 3.7.3: a pawn attacks diagonally forward, so an attacking pawn stands diagonally behind.
    let behind = match by {
        Color::White => -1,
        Color::Black => 1,
    };
    if holds(at(-1, behind), Role::Pawn) || holds(at(1, behind), Role::Pawn) {
        return true;
    }
    // FIDE 3.6 (knight) and 3.8.1 (king).
    if KNIGHT_STEPS
        .iter()
        .any(|&(df, dr)| holds(at(df, dr), Role::Knight))
        || KING_STEPS
            .iter()
            .any(|&(df, dr)| holds(at(df, dr), Role::King))
    {
        return true;
    }
    // FIDE 3.2–3.5: along each line to the first unit; diagonals for bishops, files and ranks for rooks.
    LINE_DIRECTIONS.iter().enumerate().any(|(i, &(df, dr))| {
        // LINE_DIRECTIONS: files and ranks first, then the diagonals.
        let slider = if i < 4 { Role::Rook } else { Role::Bishop };
        let mut k = 1;
        while let Some(sq) = at(df * k, dr * k) {
            if let Some(p) = setup.piece_at(sq) {
                return p.color == by && (p.role == slider || p.role == Role::Queen);
            }
            k += 1;
        }
        false
    })
}

fn check_castling(setup: &Setup, v: &mut Validity) {
    for (color, side, rook) in setup.castling.iter() {
        let bad = |reason| ValidityError::InvalidCastlingRight {
            color,
            rook,
            reason,
        };
        let king = setup
            .kings(color)
            .into_iter()
            .find(|k| k.rank() == color.back_rank());
        if rook.rank() != color.back_rank()
            || setup.piece_at(rook) != Some(Piece::new(color, Role::Rook))
        {
            v.errors
                .push(bad("no rook of that colour on that back-rank square"));
        } else if let Some(king) = king {
            let right_side = match side {
                CastlingSide::KingSide => rook.file() > king.file(),
                CastlingSide::QueenSide => rook.file() < king.file(),
            };
            if !right_side {
                v.errors
                    .push(bad("the rook is not on that side of the king"));
            }
        } else {
            v.errors.push(bad("the king is not on its back rank"));
        }
    }
}

fn check_ep(setup: &Setup, v: &mut Validity) {
    let Some(ep) = setup.ep_square else { return };
    let bad = |reason| ValidityError::InvalidEpSquare { square: ep, reason };
    let (ep_rank, dir): (u8, i32) = match setup.turn {
        Color::White => (5, -1),
        Color::Black => (2, 1),
    };
    if ep.rank() != ep_rank {
        v.errors.push(bad(
            "not on the rank a pawn of the side that just moved passes over",
        ));
        return;
    }
    let pawn_sq = Square::from_coords(ep.file() as i32, ep.rank() as i32 + dir).expect("on board");
    let origin = Square::from_coords(ep.file() as i32, ep.rank() as i32 - dir).expect("on board");
    if setup.piece_at(pawn_sq) != Some(Piece::new(!setup.turn, Role::Pawn)) {
        v.errors.push(bad(
            "no pawn that just made a double step stands in front of it",
        ));
    } else if setup.piece_at(ep).is_some() || setup.piece_at(origin).is_some() {
        v.errors.push(bad(
            "the square passed over or the pawn's starting square is occupied",
        ));
    }
}

fn is_slider(setup: &Setup, sq: Square) -> bool {
    matches!(
        setup.piece_at(sq),
        Some(Piece {
            role: Role::Bishop | Role::Rook | Role::Queen,
            ..
        })
    )
}

fn impossible_check(setup: &Setup, king: Square, checkers: &[Square]) -> bool {
    match checkers {
        [] | [_] => false,
        [a, b] => {
            // A double check needs a discovered check, and only a slider can be uncovered.
            if !is_slider(setup, *a) && !is_slider(setup, *b) {
                return true;
            }
            // Two checkers on one line through the king: one would block the other.
            let dir = |s: Square| {
                let (df, dr) = (
                    s.file() as i32 - king.file() as i32,
                    s.rank() as i32 - king.rank() as i32,
                );
                (
                    df.signum(),
                    dr.signum(),
                    df.abs() == dr.abs() || df == 0 || dr == 0,
                )
            };
            let (da, db) = (dir(*a), dir(*b));
            da.2 && db.2 && (da.0, da.1) == (db.0, db.1)
        }
        _ => true,
    }
}

/// python-chess's rule for a check in a position with a valid en-passant square: the last move was that
/// pawn's double step, so the check must be the pawn's own or one it uncovered. Impossible when there are two
/// checkers (a double step cannot give double check) or when the king was already attacked before the step
/// (the pawn moved back to its starting square).
fn impossible_check_after_double_step(
    setup: &Setup,
    ep: Square,
    king: Square,
    checkers: &[Square],
) -> bool {
    let dir = match setup.turn {
        Color::White => -1,
        Color::Black => 1,
    };
    let (Some(pawn_sq), Some(origin)) = (
        Square::from_coords(ep.file() as i32, ep.rank() as i32 + dir),
        Square::from_coords(ep.file() as i32, ep.rank() as i32 - dir),
    ) else {
        return false;
    };
    match checkers {
        [c] if *c == pawn_sq => false,
        [_] => {
            let mut before = setup.clone();
            before.board[origin.index()] = before.board[pawn_sq.index()].take();
            !reference::attackers(&before, king, !setup.turn).is_empty()
        }
        _ => true,
    }
}

fn too_much_material(setup: &Setup, color: Color) -> bool {
    let mut count = [0i32; 6];
    let mut bishops_on = [0i32; 2];
    for sq in Square::all() {
        if let Some(p) = setup.piece_at(sq) {
            if p.color == color {
                count[p.role.index()] += 1;
                if p.role == Role::Bishop {
                    bishops_on[((sq.file() + sq.rank()) % 2) as usize] += 1;
                }
            }
        }
    }
    let total: i32 = count.iter().sum();
    let promoted = (count[Role::Queen.index()] - 1).max(0)
        + (count[Role::Rook.index()] - 2).max(0)
        + (count[Role::Knight.index()] - 2).max(0)
        + (bishops_on[0] - 1).max(0)
        + (bishops_on[1] - 1).max(0);
    total > 16 || count[Role::Pawn.index()] > 8 || promoted > 8 - count[Role::Pawn.index()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{random_position, Rng};

    /// `attacked` against the oracle, on every square and for both colours of `setup`; the number of
    /// (square, colour) pairs attacked.
    fn compare_all(setup: &Setup) -> usize {
        let mut hits = 0;
        for sq in Square::all() {
            for by in Color::ALL {
                let oracle = !reference::attackers(setup, sq, by).is_empty();
                assert_eq!(
                    attacked(setup, sq, by),
                    oracle,
                    "{} {sq} {by:?}",
                    setup.to_fen()
                );
                hits += usize::from(oracle);
            }
        }
        hits
    }

    /// Random playouts ([`crate::random`], standard and Chess960 starts) reach valid positions (FIDE 3.10.3).
    #[test]
    fn playouts_are_valid() {
        let mut rng = Rng::new(7);
        for _ in 0..20 {
            let p = random_position(&mut rng, true, 40);
            assert!(check(&p).is_ok(), "{}", p.to_fen());
        }
    }

    /// Two positions are equal as [`Checked`] exactly when they are equal as [`Setup`]s: random-game positions
    /// against each other, each against itself with one square changed (a piece added, removed, recoloured
    /// or replaced) and with one other field changed.
    #[test]
    fn checked_equality_is_setup_equality() {
        let mut rng = Rng::new(7);
        let setups: Vec<Setup> = (0..200)
            .map(|g| random_position(&mut rng, g % 4 == 0, 120))
            .collect();
        let checked = |s: &Setup| Checked::new(s.clone()).expect("reached by legal moves");
        for (a, b) in setups.iter().zip(setups.iter().skip(1)) {
            assert_eq!(
                checked(a) == checked(b),
                a == b,
                "{} {}",
                a.to_fen(),
                b.to_fen()
            );
        }
        let pieces: Vec<Option<Piece>> = std::iter::once(None)
            .chain(
                Color::ALL
                    .iter()
                    .flat_map(|&c| Role::ALL.map(|r| Some(Piece::new(c, r)))),
            )
            .collect();
        let mut differ = 0;
        for s in &setups {
            let c = checked(s);
            assert!(c == checked(s));
            for p in &pieces {
                let mut t = s.clone();
                t.board[rng.below(64) as usize] = *p;
                let same = *s == t;
                // Changed boards need not be valid: those that are are compared as `Checked`.
                if let Ok(ct) = Checked::new(t.clone()) {
                    assert_eq!(c == ct, same, "{}", t.to_fen());
                    differ += usize::from(!same);
                }
            }
            let mut t = s.clone();
            match rng.below(3) {
                0 => t.halfmoves += 1,
                1 => t.fullmoves += 1,
                _ => t.turn = !t.turn,
            }
            if let Ok(ct) = Checked::new(t) {
                assert!(c != ct);
            }
        }
        assert!(differ > 500, "{differ}");
    }

    /// The square next to `target` on the line to `from` when they share a file, rank or diagonal and are not
    /// neighbours.
    fn between(from: Square, target: Square) -> Option<Square> {
        let df = i32::from(from.file()) - i32::from(target.file());
        let dr = i32::from(from.rank()) - i32::from(target.rank());
        let aligned = df == 0 || dr == 0 || df.abs() == dr.abs();
        let next = Square::from_coords(
            i32::from(target.file()) + df.signum(),
            i32::from(target.rank()) + dr.signum(),
        );
        next.filter(|&s| aligned && s != from)
    }

    /// Positions of random games (standard and Chess960 starts, up to 200 plies): the same answer as the
    /// reference generator's attackers on every square, for both colours.
    #[test]
    fn attacked_agrees_with_the_reference_on_random_games() {
        let mut rng = Rng::new(33);
        let mut hits = 0;
        for game in 0..400 {
            hits += compare_all(&random_position(&mut rng, game % 4 == 0, 200));
        }
        assert!(hits > 10_000, "{hits}");
    }

    /// Each kind of unit of each colour on every square, alone with an empty target square and then with a
    /// unit of either colour on a square between or beside them (blocked and unblocked lines): the same answer
    /// as the reference generator, and each kind does attack (pawns and knights included).
    #[test]
    fn attacked_agrees_with_the_reference_on_constructed_checks() {
        let mut rng = Rng::new(15);
        for color in Color::ALL {
            for role in Role::ALL {
                let (mut hits, mut blocked) = (0, 0);
                for target in Square::all() {
                    for from in Square::all().filter(|&s| s != target) {
                        let mut setup = Setup::empty();
                        setup.board[from.index()] = Some(Piece::new(color, role));
                        let alone = attacked(&setup, target, color);
                        assert_eq!(
                            alone,
                            !reference::attackers(&setup, target, color).is_empty()
                        );
                        hits += usize::from(alone);
                        // A third unit, of either colour: on the line between them (next to the target) where
                        // there is one, else anywhere.
                        let other = between(from, target)
                            .unwrap_or_else(|| Square::new(rng.below(64) as u8));
                        if other != from && other != target {
                            let c = if rng.below(2) == 0 { color } else { !color };
                            setup.board[other.index()] = Some(Piece::new(c, Role::Knight));
                            let now = attacked(&setup, target, color);
                            let oracle = !reference::attackers(&setup, target, color).is_empty();
                            assert_eq!(now, oracle, "{} {target}", setup.to_fen());
                            blocked += usize::from(alone && !now);
                        }
                    }
                }
                assert!(hits >= 64, "{color:?} {role:?}: {hits}");
                if matches!(role, Role::Bishop | Role::Rook | Role::Queen) {
                    assert!(blocked > 300, "{color:?} {role:?}: {blocked}");
                }
            }
        }
    }
}
