//! Counting a list of frontier positions (several at once on the CPU backends, in batches of one backend call
//! each on the GPU), with an optional journal and progress reported to the caller ([`Progress`]), and summing multiplicity × result into
//! totals (u128 throughout).

use super::seal::{as_u128, u128_value};
use super::split::Frontier;
use crate::backend::{Backend, Detail, Stats};
use crate::error::Result;
use crate::validate::Checked;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Statistics columns by name (the keys of [`crate::backend::Column::key`]), summed in u128.
pub type Columns = BTreeMap<String, u128>;

/// The columns of `detail` of one [`Stats`] value.
pub fn columns(s: &Stats, detail: Detail) -> Columns {
    s.columns(detail)
        .map(|(c, v)| (c.key().to_string(), v))
        .collect()
}

/// Whether `c` holds exactly the columns of `detail` (a result of other columns must not be mixed in).
pub fn has_columns(c: &Columns, detail: Detail) -> bool {
    c.len() == detail.columns().len() && detail.columns().iter().all(|k| c.contains_key(k.key()))
}

/// The name of a statistics level in plans and journals: `none`, `cpw` or `full`.
pub fn stats_name(stats: Option<Detail>) -> &'static str {
    match stats {
        None => "none",
        Some(Detail::Cpw) => "cpw",
        Some(Detail::Full) => "full",
    }
}

/// The result of one position: its leaf count and, when asked, its statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceResult {
    /// perft(rest) of the position.
    pub nodes: u128,
    /// Statistics of its subtree.
    pub stats: Option<Columns>,
}

impl PieceResult {
    /// `{"nodes": …, "stats": {…}}` (no `stats` key without statistics).
    pub fn to_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("nodes".into(), u128_value(self.nodes));
        if let Some(s) = &self.stats {
            m.insert("stats".into(), columns_json(s));
        }
        m
    }

    /// Read back what [`PieceResult::to_json`] wrote (`None` when malformed).
    pub fn from_json(v: &Value) -> Option<PieceResult> {
        let nodes = as_u128(v.get("nodes")?)?;
        let stats = match v.get("stats") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => {
                let mut c = Columns::new();
                for (k, x) in m {
                    c.insert(k.clone(), as_u128(x)?);
                }
                Some(c)
            }
            Some(_) => return None,
        };
        Some(PieceResult { nodes, stats })
    }
}

/// Columns as a JSON object of exact integers.
pub fn columns_json(c: &Columns) -> Value {
    Value::Object(c.iter().map(|(k, v)| (k.clone(), u128_value(*v))).collect())
}

/// Count one position.
///
/// # Errors
/// A backend failure.
pub fn evaluate(
    engine: &dyn Backend,
    pos: &Checked,
    rest: u32,
    stats: Option<Detail>,
) -> Result<PieceResult> {
    if let Some(detail) = stats {
        let (nodes, s) = engine.stats(pos, rest, detail)?;
        Ok(PieceResult {
            nodes,
            stats: Some(columns(&s, detail)),
        })
    } else {
        Ok(PieceResult {
            nodes: engine.perft(pos, rest)?,
            stats: None,
        })
    }
}

/// Count several positions: one [`Backend::perft_many`] call without statistics (the GPU backend counts the
/// whole batch in one run), one [`evaluate`] per position with them.
///
/// # Errors
/// A backend failure.
pub fn evaluate_many(
    engine: &dyn Backend,
    positions: &[Checked],
    rest: u32,
    stats: Option<Detail>,
) -> Result<Vec<PieceResult>> {
    if stats.is_some() {
        return positions
            .iter()
            .map(|p| evaluate(engine, p, rest, stats))
            .collect();
    }
    let counts = engine.perft_many(positions, rest)?;
    if counts.len() != positions.len() {
        return Err(crate::Error::Backend(format!(
            "{} backend returned {} counts for {} positions",
            engine.name(),
            counts.len(),
            positions.len()
        )));
    }
    Ok(counts
        .into_iter()
        .map(|nodes| PieceResult { nodes, stats: None })
        .collect())
}

/// Where finished positions go as they finish: the checkpoint journal ([`super::journal::Journal`]).
pub trait Recorder: Send {
    /// Results recorded by an earlier run (resumed, not counted again).
    fn done(&self) -> &BTreeMap<usize, PieceResult>;
    /// Record finished positions (index, FEN, result) in one write (a write that fails half-way leaves
    /// whole records, which are correct, and at most one cut-off line, which the next open drops).
    ///
    /// # Errors
    /// A write error naming the file.
    fn record(&mut self, finished: &[(usize, &str, &PieceResult)]) -> Result<()>;
    /// Flush what was recorded to disk.
    fn sync(&self);
}

/// Positions counted in one backend call on a backend that counts one call at a time (the GPU), at first:
/// the batch then doubles while a call takes less than half of [`BATCH_SECONDS`] and halves when it takes more
/// than twice that, so a killed run loses about one batch's time.
pub const FIRST_BATCH: usize = 1;

/// Largest batch of positions per backend call.
pub const MAX_BATCH: usize = 1 << 16;

/// The time one batch is aimed at (seconds).
pub const BATCH_SECONDS: f64 = 4.0;

/// The next batch size after a batch of `size` positions took `seconds`.
pub fn next_batch(size: usize, seconds: f64) -> usize {
    if seconds < BATCH_SECONDS / 2.0 {
        (size * 2).min(MAX_BATCH)
    } else if seconds > BATCH_SECONDS * 2.0 {
        (size / 2).max(1)
    } else {
        size
    }
}

/// What a run reports on the way, for a progress display the caller draws (the command line's bar): the
/// number of positions to count (and how many of them a journal already holds), then each batch finished.
/// The library draws nothing itself.
pub trait Progress: Sync {
    /// `total` positions in the run, `done` of them already finished (from a journal).
    fn start(&self, _done: u64, _total: u64) {}
    /// `n` more positions finished.
    fn advance(&self, _n: u64) {}
    /// The run is over (finished or failed).
    fn finish(&self) {}
}

/// No progress display.
pub struct NoProgress;

impl Progress for NoProgress {}

/// Count the positions `setups` (index, position, FEN) not already recorded, recording each as it finishes;
/// returns every result (the recorder's included). `what` names the run in the interruption message; `resume`
/// says how to resume. CPU backends count several positions at once, one per worker; a backend that counts
/// one call at a time (the GPU) gets batches of positions per call ([`Backend::perft_many`]), each batch
/// recorded when its call returns.
///
/// # Errors
/// A backend failure or a journal write error.
#[allow(clippy::too_many_arguments)]
pub fn run_positions(
    engine: &dyn Backend,
    setups: &[(usize, Checked, String)],
    rest: u32,
    stats: Option<Detail>,
    mut journal: Option<&mut dyn Recorder>,
    progress: &dyn Progress,
    what: &str,
    resume: &str,
) -> Result<BTreeMap<usize, PieceResult>> {
    let mut results: BTreeMap<usize, PieceResult> = BTreeMap::new();
    if let Some(j) = journal.as_deref() {
        for (i, _, _) in setups {
            if let Some(r) = j.done().get(i) {
                results.insert(*i, r.clone());
            }
        }
    }
    let total = setups.len();
    progress.start(results.len() as u64, total as u64);
    let status = |done: usize| {
        crate::interrupt::set_status(format!(
            "{what}: {done} of {total} positions of the split frontier finished{resume}"
        ))
    };
    status(results.len());
    let todo: Vec<&(usize, Checked, String)> = setups
        .iter()
        .filter(|(i, _, _)| !results.contains_key(i))
        .collect();
    struct Shared<'j> {
        results: BTreeMap<usize, PieceResult>,
        journal: Option<&'j mut dyn Recorder>,
        last_sync: Instant,
    }
    let shared = Mutex::new(Shared {
        results,
        journal: journal.take(),
        last_sync: Instant::now(),
    });
    // Record finished positions (journal first, then the results, the status and the progress).
    let finish = |done: &[(&(usize, Checked, String), PieceResult)]| -> Result<()> {
        let mut g = shared.lock().unwrap_or_else(|e| e.into_inner());
        let g = &mut *g;
        if let Some(j) = g.journal.as_deref_mut() {
            let rows: Vec<(usize, &str, &PieceResult)> = done
                .iter()
                .map(|((i, _, fen), r)| (*i, fen.as_str(), r))
                .collect();
            j.record(&rows)?;
            if g.last_sync.elapsed() > Duration::from_secs(2) {
                j.sync();
                g.last_sync = Instant::now();
            }
        }
        for ((i, _, _), r) in done {
            g.results.insert(*i, r.clone());
        }
        status(g.results.len());
        progress.advance(done.len() as u64);
        Ok(())
    };
    if parallel_pieces(engine) {
        // Several positions at once (each backend call parallel inside as well): no idle threads at the end
        // of each position, and a killed run loses at most one position per thread. Plain threads pull the
        // positions, not rayon tasks: a rayon worker waiting inside a backend call would steal further
        // positions onto its own stack and overflow it.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let workers = rayon::current_num_threads().max(1);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| -> Result<()> {
                        loop {
                            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(&t) = todo.get(k) else {
                                return Ok(());
                            };
                            let done =
                                evaluate(engine, &t.1, rest, stats).and_then(|r| finish(&[(t, r)]));
                            if let Err(e) = done {
                                // Stop the other workers too.
                                next.store(usize::MAX / 2, std::sync::atomic::Ordering::Relaxed);
                                return Err(e);
                            }
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect::<Result<Vec<()>>>()
        })?;
    } else {
        // One backend call per batch: the GPU backend counts a batch in one run, where one run per position
        // spent most of its time starting runs (about 21 positions/s on lavapipe).
        let mut size = FIRST_BATCH;
        let mut k = 0;
        while k < todo.len() {
            let batch = &todo[k..(k + size).min(todo.len())];
            let clock = Instant::now();
            let positions: Vec<Checked> = batch.iter().map(|t| t.1.clone()).collect();
            let counted = evaluate_many(engine, &positions, rest, stats)?;
            let done: Vec<(&(usize, Checked, String), PieceResult)> =
                batch.iter().copied().zip(counted).collect();
            finish(&done)?;
            k += batch.len();
            size = next_batch(size, clock.elapsed().as_secs_f64());
        }
    }
    let shared = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(j) = shared.journal.as_deref() {
        j.sync();
    }
    let results = shared.results;
    progress.finish();
    Ok(results)
}

/// Whether positions are counted several at once: yes for the CPU backends; the GPU backend counts one
/// batch at a time with the whole device (its memory budget is per call).
fn parallel_pieces(engine: &dyn Backend) -> bool {
    engine.name() != "gpu"
}

/// Totals of a split run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Leaf count.
    pub nodes: u128,
    /// Statistics columns.
    pub stats: Option<Columns>,
    /// Count per root move (UCI).
    pub divide: Option<BTreeMap<String, u128>>,
}

impl Totals {
    /// Add `mult` × `r` (and `r` times each root move's multiplicity into the divide when present).
    pub fn add(&mut self, mult: u128, by_move: &[(String, u128)], r: &PieceResult) {
        self.nodes += mult * r.nodes;
        if let Some(s) = &r.stats {
            let acc = self.stats.get_or_insert_with(Columns::new);
            for (k, v) in s {
                *acc.entry(k.clone()).or_insert(0) += mult * v;
            }
        }
        if let Some(d) = &mut self.divide {
            for (m, k) in by_move {
                *d.entry(m.clone()).or_insert(0) += k * r.nodes;
            }
        }
    }
}

/// Sum the results of a whole frontier.
pub fn frontier_totals(
    f: &Frontier,
    results: &BTreeMap<usize, PieceResult>,
    divide: bool,
) -> Totals {
    let mut t = Totals {
        divide: divide.then(|| f.root_moves.iter().map(|m| (m.clone(), 0)).collect()),
        ..Totals::default()
    };
    for (i, p) in f.pieces().enumerate() {
        if let Some(r) = results.get(&i) {
            let by_move: Vec<(String, u128)> = p
                .by_move()
                .map(|(k, n)| (f.root_moves[k as usize].clone(), n))
                .collect();
            t.add(p.mult, &by_move, r);
        }
    }
    t
}

/// The `nodes`, `stats` and `divide` keys of `perft --json` (exact integers), added to `obj`.
pub fn json_fields(t: &Totals, obj: &mut Map<String, Value>) {
    obj.insert("nodes".into(), u128_value(t.nodes));
    obj.insert(
        "stats".into(),
        t.stats.as_ref().map_or(Value::Null, columns_json),
    );
    obj.insert(
        "divide".into(),
        t.divide.as_ref().map_or(Value::Null, |d| {
            Value::Object(d.iter().map(|(k, v)| (k.clone(), u128_value(*v))).collect())
        }),
    );
}
