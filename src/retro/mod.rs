//! Retro-analysis: proofs that a position cannot have been reached by any series of legal moves (FIDE 3.10.3),
//! each with a sentence a person can check.
//!
//! Sound by construction: every argument here only ever says "impossible" when no legal game, from the
//! standard initial position (FIDE 2.3) or from any of the 960 Chess960 initial positions, can reach the
//! position. Nothing here claims a position is reachable; that takes a game ([`crate::proofgame`]).
//!
//! - [`proofs`]: counting arguments on the position alone (material against promotions, bishops by square
//!   colour, the captures the pawn structure needs against the units the opponent has lost);
//! - [`kernel`]: the capture kernel of both sides at once: pawns that provably never left their file, and the
//!   pawns (or promotions) that would have had to pass them;
//! - [`cage`]: walls of unmoved pawns, the squares each piece could ever reach, and a matching of the pieces on
//!   the board to the initial pieces and promotions they can have come from (standard start, or every Chess960
//!   start with `chess960`);
//! - [`retract`]: retraction of the last move, recursively to a small number of plies (un-moves, un-captures of
//!   every kind the material allows, un-promotions, un-castling, un-e.p.): a position with no legal predecessor
//!   is impossible.
//!
//! A layer above the reference generator ([`crate::reference`]) and below [`crate::validate`], which reports
//! the static proofs as warnings; it imports only `types`, `position`, `reference` and `bitboard`.

pub mod cage;
pub mod kernel;
pub mod kernel_search;
pub mod proofs;
pub mod retract;

use std::fmt;

/// Which argument proved a position impossible.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ProofKind {
    /// More units, pawns or promoted pieces than a side can have (FIDE 2.3, 3.7.5).
    Material,
    /// More bishops on squares of one colour than the initial bishop and the promotions allow (FIDE 2.3, 3.7.5).
    BishopColours,
    /// The pawn structure (and the promotions) need more captures than the opponent has lost units (FIDE 3.7).
    PawnCaptures,
    /// No legal last move (retraction, FIDE 3.10.3).
    Retraction,
    /// A piece on the board that no initial piece or promotion can have become, or an initial piece that could
    /// never leave its cage nor be captured there and is missing (FIDE 3.7.1, 3.2-3.8, 3.10.3).
    CagedPieces,
    /// A pawn (or the pawn of a promoted piece) that must have passed an enemy pawn on a file that pawn never
    /// left, with too few captures to go round it (FIDE 3.7.1-3.7.3).
    BlockedPawns,
    /// No sequence of captures turns the initial pawn files and pieces into the position's: the proof-kernel
    /// search, exhaustive over a relaxation of the game (FIDE 3.7, 3.10.3).
    NoKernel,
}

impl ProofKind {
    /// Short snake_case name (used in warnings and JSON).
    pub const fn name(self) -> &'static str {
        match self {
            ProofKind::Material => "impossible_material",
            ProofKind::BishopColours => "impossible_bishops",
            ProofKind::PawnCaptures => "impossible_pawn_captures",
            ProofKind::Retraction => "no_legal_last_move",
            ProofKind::CagedPieces => "caged_pieces",
            ProofKind::BlockedPawns => "impossible_pawn_passing",
            ProofKind::NoKernel => "no_proof_kernel",
        }
    }
}

/// A proof that a position is impossible: which argument, and a sentence a person can check.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Proof {
    /// The argument.
    pub kind: ProofKind,
    /// The argument in words, with the numbers and squares it rests on.
    pub sentence: String,
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.sentence)
    }
}

/// How far and under which rules to look.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RetroOptions {
    /// Plies to retract (0: none; each ply multiplies the work).
    pub plies: u32,
    /// Allow every Chess960 initial position (un-castling from any king and rook files, any initial
    /// arrangement as the start). `false`: standard chess only.
    pub chess960: bool,
}

impl Default for RetroOptions {
    fn default() -> Self {
        RetroOptions {
            plies: 2,
            chess960: false,
        }
    }
}

/// The proofs that need more than counting (cheap: microseconds, a millisecond or two with `chess960`, which
/// tries every start), run by [`prove_impossible`] and [`deep_and_retraction`] but not by
/// [`proofs::static_proofs`], so `validate` (every `Checked` position, perft included) does not pay for them:
/// the capture kernel ([`kernel`]), then caged pieces ([`cage`]), then the proof-kernel search
/// ([`kernel_search`], bounded by its node budget).
pub fn deep_proofs(setup: &crate::position::Setup, chess960: bool) -> Option<Proof> {
    deep_proofs_in(setup, chess960, &kernel_search::KernelCell::new())
}

/// [`deep_proofs`] with the proof-kernel search's outcome kept in `cell` for later readers
/// ([`kernel_search::kernel_in`]: the proof-game search's initial path, `reachable --json`).
pub fn deep_proofs_in(
    setup: &crate::position::Setup,
    chess960: bool,
    cell: &kernel_search::KernelCell,
) -> Option<Proof> {
    kernel::kernel(setup)
        .or_else(|| cage::caged(setup, chess960))
        .or_else(|| kernel_search::no_kernel_in(setup, cell))
}

/// The first proof that `setup` is impossible: the static ones first, then [`deep_proofs`], then retraction to
/// `opts.plies`. `None` means no proof was found (not that the position is reachable). The position should have
/// no validity errors ([`crate::validate::check`]); kings are assumed to be one per side.
pub fn prove_impossible(setup: &crate::position::Setup, opts: RetroOptions) -> Option<Proof> {
    prove_impossible_in(setup, opts, &kernel_search::KernelCell::new())
}

/// [`prove_impossible`] with the proof-kernel search's outcome kept in `cell` ([`deep_proofs_in`]).
pub fn prove_impossible_in(
    setup: &crate::position::Setup,
    opts: RetroOptions,
    cell: &kernel_search::KernelCell,
) -> Option<Proof> {
    if let Some(p) = proofs::static_proofs(setup).into_iter().next() {
        return Some(p);
    }
    deep_proofs_in(setup, opts.chess960, cell).or_else(|| retract::retract(setup, opts))
}

/// [`prove_impossible`] without the static proofs (for callers that have run them, as `validate` does): the
/// [`deep_proofs`] on the position itself (not on each predecessor: they cost more), then retraction.
pub fn deep_and_retraction(setup: &crate::position::Setup, opts: RetroOptions) -> Option<Proof> {
    deep_proofs(setup, opts.chess960).or_else(|| retract::retract(setup, opts))
}
