//! `dead`, `dead_many` (FIDE 1.5 dead positions, FIDE 6.9 flag-fall: can a side still checkmate?),
//! `reachable`, `reachable_many` (FIDE 3.10.3: is the position reachable by a legal game?) and `analyze`.
//!
//! Each answer is a [`Verdict`]. The batch forms are iterators ([`Batch`]) that pull their input in chunks
//! of [`CHUNK`], decide a chunk in parallel (one query per rayon job, as `perftlab dead FILE` does: queries
//! differ in cost by orders of magnitude) with the GIL released, and yield the verdicts in input order. A bad
//! item (a FEN that does not parse, an invalid position, a side that is not one) raises when the iterator
//! reaches it, after the verdicts before it.
//!
//! Every helpmate comes from `perftlab::analyze::dead::decide`, which replays it with the reference generator
//! before it answers; every proof game is replayed here again ([`reach`]) before it is returned.

use crate::errors::{self, fen_text, position, type_name};
use crate::{cancelled, run_long};
use perftlab::analyze::dead::Limits;
use perftlab::proofgame::{self, DecideOptions};
use perftlab::types::Color;
use perftlab::{Checked, Error};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyIterator, PyString, PyTuple};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod verdict;
pub use verdict::{analyze, Verdict, VerdictData};

/// Items a batch iterator decides at once.
const CHUNK: usize = 2048;

/// What a batch decides.
#[derive(Clone, Debug)]
enum Job {
    /// Winnability for the item's side (or both sides when none).
    Dead { side: Option<Color>, limits: Limits },
    /// Reachability.
    Reach(DecideOptions),
}

/// One query of a batch: the FEN as given, the position, the intended winner.
struct Query {
    fen: String,
    pos: Checked,
    side: Option<Color>,
}

static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());

/// The pool of `threads` workers (made on first use); `None`: rayon's global pool (all cores).
fn pool(py: Python<'_>, threads: Option<usize>) -> PyResult<Option<Arc<rayon::ThreadPool>>> {
    let Some(n) = threads else { return Ok(None) };
    perftlab::limits::check_thread_count("threads", n).map_err(|e| errors::from_core(py, e))?;
    let mut all = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = all.iter().find(|(k, _)| *k == n) {
        return Ok(Some(p.clone()));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| errors::backend(py, &format!("threads: cannot start {n} threads: {e}")))?;
    let p = Arc::new(p);
    all.push((n, p.clone()));
    Ok(Some(p))
}

/// A side argument: None, `"white"`/`"black"` (or `"w"`/`"b"`), or a python-chess colour (`True` is white).
fn side_arg(py: Python<'_>, what: &str, side: &Bound<'_, PyAny>) -> PyResult<Option<Color>> {
    if side.is_none() {
        return Ok(None);
    }
    if let Ok(b) = side.cast::<PyBool>() {
        return Ok(Some(if b.is_true() {
            Color::White
        } else {
            Color::Black
        }));
    }
    if let Ok(s) = side.cast::<PyString>() {
        return match &*s.to_cow()? {
            "white" | "w" => Ok(Some(Color::White)),
            "black" | "b" => Ok(Some(Color::Black)),
            other => Err(errors::usage(
                py,
                &format!("{what}: '{other}' is not a side (white, black, w, b, or None for both)"),
            )),
        };
    }
    Err(PyTypeError::new_err(format!(
        "{what}: expected 'white', 'black', a chess colour or None, got {}",
        type_name(side)
    )))
}

/// The limits of a dead-position query, checked.
fn dead_limits(py: Python<'_>, nodes: u64, time_limit: f64, quick: bool) -> PyResult<Limits> {
    if nodes == 0 {
        return Err(errors::usage(py, "nodes: must be at least 1"));
    }
    if !time_limit.is_finite() || !(0.0..=1e6).contains(&time_limit) {
        return Err(errors::usage(
            py,
            &format!("time_limit: '{time_limit}' is not a number of seconds from 0 to 1000000"),
        ));
    }
    Ok(Limits {
        nodes,
        time: (time_limit > 0.0).then(|| Duration::from_secs_f64(time_limit)),
        quick,
        scan: false,
    })
}

/// Seconds the guided proof-game search may take per position (`perftlab reachable --time-limit`'s default).
const REACH_SECONDS: u64 = 5;

/// The options of a reachability query, checked (the limits of `perftlab reachable`).
fn reach_options(
    py: Python<'_>,
    max_plies: u32,
    max_nodes: u64,
    retro_plies: u32,
) -> PyResult<DecideOptions> {
    if max_plies > 60 {
        return Err(errors::usage(
            py,
            &format!("max_plies: '{max_plies}' is beyond what the search can finish (at most 60)"),
        ));
    }
    if retro_plies > 4 {
        return Err(errors::usage(
            py,
            &format!("retro_plies: '{retro_plies}' is too many (each ply multiplies the work; at most 4)"),
        ));
    }
    Ok(DecideOptions {
        limits: proofgame::Limits {
            max_plies,
            max_nodes,
        },
        retro_plies,
        chess960: false,
        from: None,
        // As `perftlab reachable` by default: the exact search for short games, then the guided search for
        // any game, within 5 s a position.
        shortest: false,
        time_limit: Duration::from_secs(REACH_SECONDS),
    })
}

/// Decide one query.
fn decide(q: &Query, job: &Job) -> perftlab::Result<VerdictData> {
    match job {
        Job::Dead { limits, .. } => verdict::winnability(&q.fen, &q.pos, q.side, limits),
        Job::Reach(opts) => verdict::reach(&q.fen, &q.pos, opts),
    }
}

/// Decide `queries` in parallel (one per rayon job), in order, stopping when `cancel` is set.
fn decide_all(
    queries: Vec<Query>,
    job: Job,
    pool: Option<Arc<rayon::ThreadPool>>,
    cancel: &AtomicBool,
) -> perftlab::Result<Vec<VerdictData>> {
    let work = || -> perftlab::Result<Vec<VerdictData>> {
        queries
            .par_iter()
            .with_max_len(1)
            .map(|q| {
                cancelled(cancel)?;
                decide(q, &job)
            })
            .collect()
    };
    match pool {
        Some(p) => p.install(work),
        None => work(),
    }
}

/// dead(pos, side=None, *, nodes=3000000, time_limit=1.0, quick=False, as_moves=False) -> Verdict
///
/// Can `side` ("white"/"black", or a chess colour) still checkmate by any series of legal moves (FIDE 6.9:
/// the other side's flag fell)? `result` is "winnable" (with the `helpmate`, replayed to checkmate),
/// "unwinnable" (with the proof in `reason`) or "undetermined" (a limit was reached; `reason` says which).
/// With side=None both sides are decided: "unwinnable" then means a dead position (FIDE 1.5), "winnable"
/// that one side can mate (`side` names it).
#[pyfunction]
#[pyo3(signature = (pos, side=None, *, nodes=3_000_000, time_limit=1.0, quick=false, as_moves=false))]
pub fn dead(
    py: Python<'_>,
    pos: &Bound<'_, PyAny>,
    side: Option<&Bound<'_, PyAny>>,
    nodes: u64,
    time_limit: f64,
    quick: bool,
    as_moves: bool,
) -> PyResult<Verdict> {
    let fen = fen_text(pos)?;
    let pos = Checked::from_fen(&fen).map_err(|e| errors::from_core(py, e))?;
    let side = match side {
        Some(s) => side_arg(py, "side", s)?,
        None => None,
    };
    let limits = dead_limits(py, nodes, time_limit, quick)?;
    let q = Query { fen, pos, side };
    let job = Job::Dead { side, limits };
    let data = run_long(py, move |_| decide(&q, &job))?;
    Verdict::new(py, data, as_moves)
}

/// reachable(pos, *, max_plies=10, max_nodes=20000000, retro_plies=2, as_moves=False) -> Verdict
///
/// Is `pos` reachable by a legal game from the initial position (FIDE 3.10.3)? `result` is "reachable"
/// (with the proof `game` in UCI, replayed by the reference generator, and its `start`), "impossible" (the
/// retro-analytic proof in `reason`) or "undetermined" (no game within `max_plies`, which is not a proof).
#[pyfunction]
#[pyo3(signature = (pos, *, max_plies=10, max_nodes=20_000_000, retro_plies=2, as_moves=false))]
pub fn reachable(
    py: Python<'_>,
    pos: &Bound<'_, PyAny>,
    max_plies: u32,
    max_nodes: u64,
    retro_plies: u32,
    as_moves: bool,
) -> PyResult<Verdict> {
    let fen = fen_text(pos)?;
    let checked = position(py, pos)?;
    let job = Job::Reach(reach_options(py, max_plies, max_nodes, retro_plies)?);
    let q = Query {
        fen,
        pos: checked,
        side: None,
    };
    let data = run_long(py, move |_| decide(&q, &job))?;
    Verdict::new(py, data, as_moves)
}

/// The iterator of `dead_many` and `reachable_many`: verdicts in input order.
#[pyclass(module = "perftlab._native")]
pub struct Batch {
    source: Py<PyIterator>,
    job: Job,
    pool: Option<Arc<rayon::ThreadPool>>,
    as_moves: bool,
    ready: VecDeque<VerdictData>,
    /// The error of a bad item, raised once the verdicts before it are out.
    pending: Option<PyErr>,
    done: bool,
}

impl Batch {
    /// One input item as a query: a position, or a `(position, side)` pair for `dead_many`.
    fn query(&self, py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<Query> {
        let (pos, side) = match (&self.job, item.cast::<PyTuple>()) {
            (Job::Dead { side, .. }, Ok(t)) if t.len() == 2 => (
                t.get_item(0)?,
                side_arg(py, "side of a (position, side) pair", &t.get_item(1)?)?.or(*side),
            ),
            (Job::Dead { side, .. }, _) => (item.clone(), *side),
            (Job::Reach(_), _) => (item.clone(), None),
        };
        let fen = fen_text(&pos)?;
        let pos = Checked::from_fen(&fen).map_err(|e| errors::from_core(py, e))?;
        Ok(Query { fen, pos, side })
    }

    /// Pull and decide the next chunk.
    fn fill(&mut self, py: Python<'_>) -> PyResult<()> {
        let mut queries = Vec::new();
        let mut source = self.source.bind(py).clone();
        while queries.len() < CHUNK {
            let Some(item) = source.next() else {
                self.done = true;
                break;
            };
            match item.and_then(|i| self.query(py, &i)) {
                Ok(q) => queries.push(q),
                Err(e) => {
                    self.pending = Some(e);
                    self.done = true;
                    break;
                }
            }
        }
        if queries.is_empty() {
            return Ok(());
        }
        let (job, pool) = (self.job.clone(), self.pool.clone());
        let verdicts = run_long(py, move |cancel| decide_all(queries, job, pool, cancel))?;
        self.ready.extend(verdicts);
        Ok(())
    }
}

#[pymethods]
impl Batch {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Verdict>> {
        if self.ready.is_empty() && !self.done {
            self.fill(py)?;
        }
        match self.ready.pop_front() {
            Some(v) => Verdict::new(py, v, self.as_moves).map(Some),
            None => match self.pending.take() {
                Some(e) => Err(e),
                None => Ok(None),
            },
        }
    }
}

/// An iterator over `items` (`iter(items)`), or a TypeError naming the argument.
fn source(items: &Bound<'_, PyAny>) -> PyResult<Py<PyIterator>> {
    items.try_iter().map(Bound::unbind).map_err(|_| {
        PyTypeError::new_err(format!(
            "items: expected an iterable of positions, got {}",
            type_name(items)
        ))
    })
}

/// dead_many(items, side=None, *, threads=None, quick=False, nodes=3000000, time_limit=1.0, as_moves=False)
///
/// `dead` over an iterable of FEN strings, boards or `(position, side)` pairs, decided in parallel on
/// `threads` workers (None: all cores); yields one Verdict per item, in input order.
#[pyfunction]
#[pyo3(signature = (items, side=None, *, threads=None, quick=false, nodes=3_000_000, time_limit=1.0, as_moves=false))]
#[allow(clippy::too_many_arguments)]
pub fn dead_many(
    py: Python<'_>,
    items: &Bound<'_, PyAny>,
    side: Option<&Bound<'_, PyAny>>,
    threads: Option<usize>,
    quick: bool,
    nodes: u64,
    time_limit: f64,
    as_moves: bool,
) -> PyResult<Batch> {
    let side = match side {
        Some(s) => side_arg(py, "side", s)?,
        None => None,
    };
    Ok(Batch {
        source: source(items)?,
        job: Job::Dead {
            side,
            limits: dead_limits(py, nodes, time_limit, quick)?,
        },
        pool: pool(py, threads)?,
        as_moves,
        ready: VecDeque::new(),
        pending: None,
        done: false,
    })
}

/// reachable_many(items, *, threads=None, max_plies=10, max_nodes=20000000, retro_plies=2, as_moves=False)
///
/// `reachable` over an iterable of FEN strings or boards, in parallel; yields Verdicts in input order.
#[pyfunction]
#[pyo3(signature = (items, *, threads=None, max_plies=10, max_nodes=20_000_000, retro_plies=2, as_moves=false))]
pub fn reachable_many(
    py: Python<'_>,
    items: &Bound<'_, PyAny>,
    threads: Option<usize>,
    max_plies: u32,
    max_nodes: u64,
    retro_plies: u32,
    as_moves: bool,
) -> PyResult<Batch> {
    Ok(Batch {
        source: source(items)?,
        job: Job::Reach(reach_options(py, max_plies, max_nodes, retro_plies)?),
        pool: pool(py, threads)?,
        as_moves,
        ready: VecDeque::new(),
        pending: None,
        done: false,
    })
}

/// A core error for a game that fails its replay (a bug, never expected).
fn replay_failed(what: &str) -> Error {
    Error::Mismatch(format!("internal: {what}"))
}
