//! A library API for engine authors: check any move generator against perftlab's reference generator from
//! `cargo test`, without UCI.
//!
//! Implement [`MoveGenerator`] (legal moves of a FEN, as UCI text) for your generator, then call
//! [`check_tree`] (every node of the tree below one position, given as a [`Setup`], a [`Checked`] or FEN text
//! with X-FEN or Shredder-FEN castling) or [`stress`] (seeded random reachable positions), each with its
//! options by name ([`Options`], [`StressOptions`]). Both compare move *sets* at every node, so a generator
//! that lists the right number of wrong moves is caught, and each failing tree is reported at the first node
//! where the sets differ, with the path of UCI moves from its root. The legality rules are FIDE 3.1–3.9 (see
//! [`crate::reference`]). What a caller matches on is re-exported here: [`FailureKind`] (the kind of rule a
//! failing move exercises) and [`RootError`] (why a root could not be checked).
//!
//! ```
//! use perftlab::crosscheck::{check_tree, FailureKind, MoveGenerator, Options};
//!
//! /// A generator that forgets underpromotions (built on perftlab's own, to keep the example short).
//! struct QueensOnly;
//!
//! impl MoveGenerator for QueensOnly {
//!     fn legal_moves(&mut self, fen: &str, chess960: bool) -> Result<Vec<String>, String> {
//!         let setup = perftlab::Setup::from_fen(fen).map_err(|e| e.to_string())?;
//!         Ok(perftlab::reference::legal_moves(&setup)
//!             .iter()
//!             .map(|m| m.to_uci(chess960))
//!             .filter(|m| m.len() == 4 || m.ends_with('q'))
//!             .collect())
//!     }
//! }
//!
//! let options = Options { depth: 2, ..Options::default() };
//! let report = check_tree(&mut QueensOnly, "8/8/8/8/8/k7/7p/K7 b - - 0 1", &options);
//! assert!(!report.is_ok());
//! let failure = &report.failures[0];
//! assert!(failure.path.is_empty());
//! assert_eq!(failure.missing, ["h2h1b", "h2h1n", "h2h1r"]);
//! assert_eq!(failure.kinds, [FailureKind::Promotion]);
//! // Prints what `perftlab compare` prints: root, path, FEN, missing and extra moves, kinds.
//! println!("{report}");
//! ```

pub use crate::compare::FailureKind;
pub use crate::error::ValidityError;
pub use crate::position::{FenError, Setup};
pub use crate::validate::Checked;

use crate::compare::classify;
use crate::random::{random_position, Rng};
use crate::reference;
use crate::validate;
use crate::verify::{walk_tree, Node, Step};
use std::collections::BTreeMap;
use std::fmt;

/// Longest random playout of [`stress`], in plies, by default (as `perftlab stress`'s default).
pub const MAX_PLIES: u32 = 60;

/// Options of [`check_tree`], by name: `Options { depth: 3, ..Options::default() }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Plies of the tree whose nodes are checked: nodes at plies `0..depth` (1 checks the root's moves only,
    /// 0 only the root's validity). Default 2.
    pub depth: u32,
    /// Exchange castling moves with the generator as king takes rook (Chess960 UCI). Default false; a root
    /// whose castling rights are not the standard ones (a king or a castling rook off its standard square)
    /// uses Chess960 notation in any case.
    pub chess960: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            depth: 2,
            chess960: false,
        }
    }
}

/// Options of [`stress`], by name: `StressOptions { positions: 10_000, seed: 12, ..StressOptions::default() }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StressOptions {
    /// How many random positions. Default 1,000.
    pub positions: usize,
    /// The seed: the same positions for the same seed, as `perftlab stress --seed`. Default 1.
    pub seed: u64,
    /// Plies checked below each position (as [`Options::depth`]). Default 1.
    pub depth: u32,
    /// Random Chess960 starts instead of the initial position, and Chess960 castling notation. Default false.
    pub chess960: bool,
    /// Longest random playout, in plies. Default [`MAX_PLIES`].
    pub max_plies: u32,
}

impl Default for StressOptions {
    fn default() -> StressOptions {
        StressOptions {
            positions: 1_000,
            seed: 1,
            depth: 1,
            chess960: false,
            max_plies: MAX_PLIES,
        }
    }
}

/// The root of [`check_tree`]: a position as data, or FEN text (6 fields or EPD-style 4; castling as
/// X-FEN `KQkq` or Shredder-FEN rook files `HAha`, for Chess960). Made by `From` (`.into()`), so
/// [`check_tree`] takes a `&str`, a `String`, a [`Setup`] or a [`Checked`], owned or borrowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Root {
    /// A position.
    Setup(Setup),
    /// FEN text, parsed by [`Setup::from_fen`].
    Fen(String),
}

impl From<Setup> for Root {
    fn from(s: Setup) -> Root {
        Root::Setup(s)
    }
}

impl From<&Setup> for Root {
    fn from(s: &Setup) -> Root {
        Root::Setup(s.clone())
    }
}

impl From<Checked> for Root {
    fn from(c: Checked) -> Root {
        Root::Setup(c.into_setup())
    }
}

impl From<&Checked> for Root {
    fn from(c: &Checked) -> Root {
        Root::Setup(c.setup().clone())
    }
}

impl From<&str> for Root {
    fn from(fen: &str) -> Root {
        Root::Fen(fen.to_string())
    }
}

impl From<String> for Root {
    fn from(fen: String) -> Root {
        Root::Fen(fen)
    }
}

impl From<&String> for Root {
    fn from(fen: &String) -> Root {
        Root::Fen(fen.clone())
    }
}

/// Why a root could not be checked (its [`Failure`] has no path and no moves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootError {
    /// The FEN text does not parse: the field and the text ([`FenError`]).
    Fen(FenError),
    /// Perft is ill-defined on the position (FIDE 3.10.3): every reason.
    Invalid(Vec<ValidityError>),
}

/// A move generator under test.
pub trait MoveGenerator {
    /// Legal moves of the position `fen` in UCI notation (Chess960 castling as king-takes-rook
    /// when `chess960` is true).
    ///
    /// # Errors
    /// A message when the generator cannot handle the position (it is reported as a failure there).
    fn legal_moves(&mut self, fen: &str, chess960: bool) -> Result<Vec<String>, String>;
}

/// The first node of one tree where the generator disagrees with perftlab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The root of the tree (FEN).
    pub root: String,
    /// UCI moves from the root to the failing node.
    pub path: Vec<String>,
    /// The failing node (FEN).
    pub fen: String,
    /// Legal moves the generator lacks there.
    pub missing: Vec<String>,
    /// Moves the generator gives there that are not legal.
    pub extra: Vec<String>,
    /// Moves the generator lists more than once there.
    pub duplicates: Vec<String>,
    /// The kinds of move involved (castling, en passant, promotion, check evasion, pin, other).
    pub kinds: Vec<FailureKind>,
    /// The generator's error, or why the root could not be checked (the message of [`Failure::root_error`]).
    pub error: Option<String>,
    /// Why the root could not be checked, as data (then `path`, `missing` and `extra` are empty).
    pub root_error: Option<RootError>,
}

/// What a check found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Nodes whose move sets were compared.
    pub nodes: u64,
    /// Root positions checked.
    pub positions: usize,
    /// One entry per failing root position.
    pub failures: Vec<Failure>,
}

impl Report {
    /// No failures.
    pub fn is_ok(&self) -> bool {
        self.failures.is_empty()
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "MISMATCH")?;
        writeln!(f, "root:    {}", self.root)?;
        let path = if self.path.is_empty() {
            "(root)".to_string()
        } else {
            self.path.join(" ")
        };
        writeln!(f, "path:    {path}")?;
        writeln!(f, "fen:     {}", self.fen)?;
        if let Some(e) = &self.error {
            writeln!(f, "error:   {e}")?;
        }
        writeln!(f, "missing: {}", self.missing.join(" "))?;
        writeln!(f, "extra:   {}", self.extra.join(" "))?;
        if !self.duplicates.is_empty() {
            writeln!(f, "twice:   {}", self.duplicates.join(" "))?;
        }
        let kinds: Vec<&str> = self.kinds.iter().map(|k| k.name()).collect();
        writeln!(f, "kinds:   {}", kinds.join(" "))
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for failure in &self.failures {
            writeln!(f, "{failure}")?;
        }
        write!(
            f,
            "{} positions checked ({} nodes), {} failed",
            self.positions,
            self.nodes,
            self.failures.len()
        )
    }
}

/// Compare `g`'s move sets with perftlab's at every node of the tree of depth `options.depth` below `root`
/// (nodes at plies `0..depth`; depth 1 checks the root's moves only). The tree is walked depth first and
/// stops at its first failing node. A root that cannot be checked (a FEN that does not parse, an invalid
/// position) is a failure with a [`RootError`], not a panic.
pub fn check_tree(g: &mut impl MoveGenerator, root: impl Into<Root>, options: &Options) -> Report {
    let mut report = Report {
        positions: 1,
        ..Report::default()
    };
    let root = match root.into() {
        Root::Setup(s) => s,
        Root::Fen(fen) => match Setup::from_fen(&fen) {
            Ok(s) => s,
            Err(e) => {
                report
                    .failures
                    .push(bad_root(&fen, e.to_string(), RootError::Fen(e)));
                return report;
            }
        },
    };
    let chess960 = options.chess960 || root.needs_chess960_notation();
    check_root(g, &root, options.depth, chess960, &mut report);
    report
}

/// [`check_tree`] on `options.positions` random reachable positions (biased playouts of up to
/// `options.max_plies` plies from the initial position, or from random Chess960 starts when
/// `options.chess960`), the same ones for the same seed as `perftlab stress --seed`.
pub fn stress(g: &mut impl MoveGenerator, options: &StressOptions) -> Report {
    let mut rng = Rng::new(options.seed);
    let mut report = Report::default();
    for _ in 0..options.positions {
        let root = random_position(&mut rng, options.chess960, options.max_plies);
        report.positions += 1;
        check_root(g, &root, options.depth, options.chess960, &mut report);
    }
    report
}

fn bad_root(fen: &str, error: String, why: RootError) -> Failure {
    Failure {
        root: fen.to_string(),
        path: Vec::new(),
        fen: fen.to_string(),
        missing: Vec::new(),
        extra: Vec::new(),
        duplicates: Vec::new(),
        kinds: Vec::new(),
        error: Some(error),
        root_error: Some(why),
    }
}

fn check_root(
    g: &mut impl MoveGenerator,
    root: &Setup,
    depth: u32,
    chess960: bool,
    report: &mut Report,
) {
    let validity = validate::check(root);
    if !validity.is_ok() {
        report.failures.push(bad_root(
            &root.to_fen(),
            format!("invalid position (FIDE 3.10.3): {validity}"),
            RootError::Invalid(validity.errors),
        ));
        return;
    }
    if depth == 0 {
        return;
    }
    let root_fen = root.to_fen();
    let nodes = &mut report.nodes;
    // The one cross-check walk (`crate::verify`), one node at a time: depth first, children in UCI order.
    let found = walk_tree(
        root.clone(),
        depth,
        1,
        &|s: &Setup, m| Ok::<_, std::convert::Infallible>(reference::play(s, m)),
        &mut |batch: &[Node<Setup>]| {
            *nodes += batch.len() as u64;
            Ok(check_node(g, &root_fen, &batch[0], chess960))
        },
    );
    if let Ok(Some(f)) = found {
        report.failures.push(f);
    }
}

/// Compare `g`'s moves with the reference's at one node: a failure, or the legal moves to walk into (in UCI
/// order).
fn check_node(
    g: &mut impl MoveGenerator,
    root: &str,
    node: &Node<Setup>,
    chess960: bool,
) -> Step<Failure> {
    let setup = &node.pos;
    let fen = setup.to_fen();
    let legal = reference::legal_moves(setup);
    let ours: BTreeMap<String, _> = legal.iter().map(|&m| (m.to_uci(chess960), m)).collect();
    let fail = |missing: Vec<String>,
                extra: Vec<String>,
                duplicates: Vec<String>,
                error: Option<String>| {
        let mut kinds: Vec<FailureKind> = missing
            .iter()
            .chain(&extra)
            .chain(&duplicates)
            .map(|t| classify(setup, t))
            .collect();
        kinds.sort();
        kinds.dedup();
        Step::Stop(Failure {
            root: root.to_string(),
            path: node.path.iter().map(|m| m.to_uci(chess960)).collect(),
            fen: fen.clone(),
            missing,
            extra,
            duplicates,
            kinds,
            error,
            root_error: None,
        })
    };
    let theirs = match g.legal_moves(&fen, chess960) {
        Ok(t) => t,
        Err(e) => return fail(vec![], vec![], vec![], Some(e)),
    };
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for m in &theirs {
        *counts.entry(m.as_str()).or_insert(0) += 1;
    }
    let missing: Vec<String> = ours
        .keys()
        .filter(|k| !counts.contains_key(k.as_str()))
        .cloned()
        .collect();
    let extra: Vec<String> = counts
        .keys()
        .filter(|k| !ours.contains_key(**k))
        .map(|k| k.to_string())
        .collect();
    let duplicates: Vec<String> = counts
        .iter()
        .filter(|(_, &n)| n > 1)
        .map(|(k, _)| k.to_string())
        .collect();
    if !missing.is_empty() || !extra.is_empty() || !duplicates.is_empty() {
        return fail(missing, extra, duplicates, None);
    }
    Step::Into(vec![ours.into_values().collect()])
}
