//! `crosscheck` and `stress`: a Python move generator (a callable `fen -> iterable of UCI strings or
//! chess.Move objects`) compared with perftlab's reference generator at every node, through the core's
//! [`perftlab::crosscheck`] (move sets, not counts: the right number of wrong moves is caught). The result is
//! a [`Report`] naming the failing node, its path from the root, the missing and extra moves and their kinds.
//!
//! The GIL stays held (every node calls Python). An exception raised by the generator, KeyboardInterrupt
//! included, stops the check and propagates unchanged.

use crate::errors::{self, type_name};
use perftlab::compare::kinds::{Kind, Positions};
use perftlab::crosscheck::{self as core, MoveGenerator, Options};
use pyo3::prelude::*;
use pyo3::types::PyString;

/// The callable as a [`MoveGenerator`]; the first Python exception is kept to be raised.
struct PyGen<'py> {
    f: Bound<'py, PyAny>,
    error: Option<PyErr>,
}

impl PyGen<'_> {
    fn call(&mut self, fen: &str) -> PyResult<Vec<String>> {
        let out = self.f.call1((fen,))?;
        let mut moves = Vec::new();
        for m in out.try_iter()? {
            let m = m?;
            if let Ok(s) = m.cast::<PyString>() {
                moves.push(s.to_cow()?.into_owned());
            } else if let Ok(u) = m.call_method0("uci") {
                moves.push(u.str()?.to_cow()?.into_owned());
            } else {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "movegen: returned a {} among its moves; expected UCI strings or chess.Move objects",
                    type_name(&m)
                )));
            }
        }
        Ok(moves)
    }
}

impl MoveGenerator for PyGen<'_> {
    fn legal_moves(&mut self, fen: &str, _chess960: bool) -> Result<Vec<String>, String> {
        if self.error.is_some() {
            return Err("stopped by an earlier Python exception".into());
        }
        self.call(fen).map_err(|e| {
            let text = e.to_string();
            self.error = Some(e);
            text
        })
    }
}

/// The first node where the generator disagrees with perftlab.
#[pyclass(frozen, get_all, module = "perftlab._native")]
#[derive(Clone)]
pub struct Failure {
    /// The root of the failing tree (FEN).
    root: String,
    /// The failing node (FEN).
    fen: String,
    /// UCI moves from the root to the failing node.
    path: Vec<String>,
    /// Legal moves the generator lacks there.
    missing: Vec<String>,
    /// Moves the generator gives that are not legal there.
    extra: Vec<String>,
    /// Moves the generator lists twice.
    duplicates: Vec<String>,
    /// The kinds of move involved: castling, en_passant, promotion, check_evasion, pin, other.
    kinds: Vec<&'static str>,
    /// The generator's error there, or why the root could not be checked.
    error: Option<String>,
}

#[pymethods]
impl Failure {
    /// The failing node as a `chess.Board` (python-chess).
    fn board<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("chess")?.getattr("Board")?.call1((&self.fen,))
    }
    fn __repr__(&self) -> String {
        format!(
            "Failure(fen={:?}, path={:?}, missing={:?}, extra={:?}, kinds={:?})",
            self.fen, self.path, self.missing, self.extra, self.kinds
        )
    }
}

impl Failure {
    fn of(f: &core::Failure) -> Failure {
        Failure {
            root: f.root.clone(),
            fen: f.fen.clone(),
            path: f.path.clone(),
            missing: f.missing.clone(),
            extra: f.extra.clone(),
            duplicates: f.duplicates.clone(),
            kinds: f.kinds.iter().map(|k| k.name()).collect(),
            error: f.error.clone(),
        }
    }

    /// Pieces on the board of the failing node, then plies from its root: the order of "smallest".
    fn size(&self) -> (usize, usize) {
        let board = self.fen.split(' ').next().unwrap_or("");
        (
            board.chars().filter(char::is_ascii_alphabetic).count(),
            self.path.len(),
        )
    }
}

/// What a cross-check found.
#[pyclass(frozen, get_all, module = "perftlab._native")]
pub struct Report {
    /// No failure.
    agree: bool,
    /// Nodes whose move sets were compared.
    nodes: u64,
    /// Root positions checked.
    positions: usize,
    /// The smallest failing position (fewest pieces, then shortest path), or None.
    failure: Option<Failure>,
    /// Every failing root's first failing node, in order.
    failures: Vec<Failure>,
    /// What `perftlab compare` prints for the failures, and the totals.
    text: String,
}

#[pymethods]
impl Report {
    fn __bool__(&self) -> bool {
        self.agree
    }
    fn __str__(&self) -> String {
        self.text.clone()
    }
    fn __repr__(&self) -> String {
        format!(
            "Report(agree={}, nodes={}, positions={}, failures={})",
            if self.agree { "True" } else { "False" },
            self.nodes,
            self.positions,
            self.failures.len()
        )
    }
}

fn report(py: Python<'_>, g: PyGen<'_>, r: core::Report) -> PyResult<Report> {
    if let Some(e) = g.error {
        return Err(e);
    }
    // A root the check refused (bad FEN, invalid position) is the caller's error, raised as such.
    if let Some(f) = r.failures.iter().find(|f| f.root_error.is_some()) {
        let e = match f.root_error.clone() {
            Some(core::RootError::Fen(e)) => perftlab::Error::Fen(e),
            Some(core::RootError::Invalid(errs)) => {
                let setup = perftlab::Setup::from_fen(&f.root)
                    .map_err(|e| errors::from_core(py, perftlab::Error::Fen(e)))?;
                perftlab::Error::invalid_position(setup, errs)
            }
            None => unreachable!("found with a root error"),
        };
        return Err(errors::from_core(py, e));
    }
    let failures: Vec<Failure> = r.failures.iter().map(Failure::of).collect();
    Ok(Report {
        agree: failures.is_empty(),
        nodes: r.nodes,
        positions: r.positions,
        failure: failures.iter().min_by_key(|f| f.size()).cloned(),
        failures,
        text: r.to_string(),
    })
}

/// crosscheck(movegen, pos, depth=2, *, chess960=False) -> Report
///
/// Compare `movegen(fen)` (an iterable of UCI strings or chess.Move objects) with perftlab's legal moves at
/// every node of the tree of `depth` plies below `pos` (depth 1: the root's moves only). The walk stops at
/// the first failing node: `report.failure` names its `fen`, `path`, `missing`, `extra` and `kinds`.
/// `chess960`: castling as king takes rook (automatic for non-standard castling rights).
#[pyfunction]
#[pyo3(signature = (movegen, pos, depth=2, *, chess960=false))]
pub fn crosscheck<'py>(
    py: Python<'py>,
    movegen: Bound<'py, PyAny>,
    pos: &Bound<'py, PyAny>,
    depth: u32,
    chess960: bool,
) -> PyResult<Report> {
    if !movegen.is_callable() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "movegen: expected a callable fen -> moves, got {}",
            type_name(&movegen)
        )));
    }
    perftlab::limits::check_depth("depth", depth).map_err(|e| errors::from_core(py, e))?;
    let fen = errors::fen_text(pos)?;
    let mut g = PyGen {
        f: movegen,
        error: None,
    };
    let r = core::check_tree(&mut g, fen.as_str(), &Options { depth, chess960 });
    report(py, g, r)
}

/// stress(movegen, positions=1000, seed=1, depth=2, *, kinds="standard", chess960=False, fail_fast=False)
///
/// `crosscheck` on the rule-directed positions of `perftlab stress` (e.p. pins, castling through attacks,
/// promotions, checks, pins, mates, clocks, material, the tricky suites, then random playouts), dealt in
/// rounds of one per kind; the same positions for the same seed. `kinds` as `perftlab stress --kinds`
/// ("standard": every kind but chess960; "all"; or names separated by commas).
#[pyfunction]
#[pyo3(signature = (movegen, positions=1000, seed=1, depth=2, *, kinds="standard", chess960=false, fail_fast=false))]
#[allow(clippy::too_many_arguments)]
pub fn stress<'py>(
    py: Python<'py>,
    movegen: Bound<'py, PyAny>,
    positions: usize,
    seed: u64,
    depth: u32,
    kinds: &str,
    chess960: bool,
    fail_fast: bool,
) -> PyResult<Report> {
    let kinds = Kind::parse_list(kinds).map_err(|e| errors::usage(py, &format!("kinds: {e}")))?;
    perftlab::limits::check_depth("depth", depth).map_err(|e| errors::from_core(py, e))?;
    let mut dealer = Positions::new(&kinds, seed, chess960, core::MAX_PLIES);
    let mut g = PyGen {
        f: movegen,
        error: None,
    };
    let mut total = core::Report::default();
    for _ in 0..positions {
        py.check_signals()?;
        let dealt = dealer.next_position();
        let r = core::check_tree(&mut g, dealt.position, &Options { depth, chess960 });
        total.nodes += r.nodes;
        total.positions += r.positions;
        total.failures.extend(r.failures);
        if g.error.is_some() || (fail_fast && !total.failures.is_empty()) {
            break;
        }
    }
    report(py, g, total)
}
