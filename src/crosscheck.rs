//! A library API for engine authors: check any move generator against perftlab's reference generator from
//! `cargo test`, without UCI.
//!
//! Implement [`MoveGenerator`] (legal moves of a FEN, as UCI text) for your generator, then call
//! [`check_tree`] (every node of the tree below one position) or [`stress`] (seeded random reachable
//! positions). Both compare move *sets* at every node, so a generator that lists the right number of
//! wrong moves is caught, and each failing tree is reported at the first node where the sets differ, with
//! the path of UCI moves from its root. The legality rules are FIDE 3.1–3.9 (see [`crate::reference`]).
//!
//! ```
//! use perftlab::crosscheck::{check_tree, MoveGenerator};
//!
//! /// A generator that forgets underpromotions (built on perftlab's own, to keep the example short).
//! struct QueensOnly;
//!
//! impl MoveGenerator for QueensOnly {
//!     fn legal_moves(&mut self, fen: &str, chess960: bool) -> Result<Vec<String>, String> {
//!         let setup = perftlab::position::Setup::from_fen(fen).map_err(|e| e.to_string())?;
//!         Ok(perftlab::reference::legal_moves(&setup)
//!             .iter()
//!             .map(|m| m.to_uci(chess960))
//!             .filter(|m| m.len() == 4 || m.ends_with('q'))
//!             .collect())
//!     }
//! }
//!
//! let report = check_tree(&mut QueensOnly, "8/8/8/8/8/k7/7p/K7 b - - 0 1", 2, false);
//! assert!(!report.is_ok());
//! let failure = &report.failures[0];
//! assert!(failure.path.is_empty());
//! assert_eq!(failure.missing, ["h2h1b", "h2h1n", "h2h1r"]);
//! // Prints what `perftlab compare` prints: root, path, FEN, missing and extra moves, kinds.
//! println!("{report}");
//! ```

use crate::compare::random::{random_position, Rng};
use crate::compare::{classify, FailureKind};
use crate::position::Setup;
use crate::reference;
use crate::validate;
use std::collections::BTreeMap;
use std::fmt;

/// Longest random playout of [`stress`], in plies (as `perftlab stress`'s default).
pub const MAX_PLIES: u32 = 60;

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
    /// The generator's error, or why the root could not be checked (an invalid FEN).
    pub error: Option<String>,
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

/// Compare `g`'s move sets with perftlab's at every node of the tree of depth `depth` below `fen` (nodes at
/// plies `0..depth`; depth 1 checks the root's moves only). The tree is walked depth first and stops at its
/// first failing node.
pub fn check_tree(g: &mut impl MoveGenerator, fen: &str, depth: u32, chess960: bool) -> Report {
    let mut report = Report {
        positions: 1,
        ..Report::default()
    };
    let root = match Setup::from_fen(fen) {
        Ok(s) => s,
        Err(e) => {
            report
                .failures
                .push(bad_root(fen, format!("invalid FEN: {e}")));
            return report;
        }
    };
    check_root(g, &root, depth, chess960, &mut report);
    report
}

/// [`check_tree`] on `positions` random reachable positions (biased playouts of up to [`MAX_PLIES`] plies
/// from the initial position, or from random Chess960 starts when `chess960`), the same ones for the same
/// `seed` as `perftlab stress --seed`.
pub fn stress(
    g: &mut impl MoveGenerator,
    positions: usize,
    seed: u64,
    depth: u32,
    chess960: bool,
) -> Report {
    let mut rng = Rng::new(seed);
    let mut report = Report::default();
    for _ in 0..positions {
        let root = random_position(&mut rng, chess960, MAX_PLIES);
        report.positions += 1;
        check_root(g, &root, depth, chess960, &mut report);
    }
    report
}

fn bad_root(fen: &str, error: String) -> Failure {
    Failure {
        root: fen.to_string(),
        path: Vec::new(),
        fen: fen.to_string(),
        missing: Vec::new(),
        extra: Vec::new(),
        duplicates: Vec::new(),
        kinds: Vec::new(),
        error: Some(error),
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
        ));
        return;
    }
    if depth == 0 {
        return;
    }
    let root_fen = root.to_fen();
    let mut path = Vec::new();
    if let Some(f) = walk(
        g,
        &root_fen,
        root,
        &mut path,
        depth,
        chess960,
        &mut report.nodes,
    ) {
        report.failures.push(f);
    }
}

fn walk(
    g: &mut impl MoveGenerator,
    root: &str,
    setup: &Setup,
    path: &mut Vec<String>,
    depth: u32,
    chess960: bool,
    nodes: &mut u64,
) -> Option<Failure> {
    *nodes += 1;
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
        Failure {
            root: root.to_string(),
            path: path.clone(),
            fen: fen.clone(),
            missing,
            extra,
            duplicates,
            kinds,
            error,
        }
    };
    let theirs = match g.legal_moves(&fen, chess960) {
        Ok(t) => t,
        Err(e) => return Some(fail(vec![], vec![], vec![], Some(e))),
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
        return Some(fail(missing, extra, duplicates, None));
    }
    if depth > 1 {
        for (text, &m) in &ours {
            path.push(text.clone());
            let child = reference::play(setup, m);
            let found = walk(g, root, &child, path, depth - 1, chess960, nodes);
            path.pop();
            if found.is_some() {
                return found;
            }
        }
    }
    None
}
