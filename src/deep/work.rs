//! Counting a list of frontier positions in batches of one backend call each (sized to a time per batch,
//! [`Batching`]), each batch journaled in one write, with progress reported to the caller ([`Progress`]) and
//! the time in and out of the backend measured ([`Counted`]), and summing multiplicity × result into totals
//! (u128 throughout).

use super::seal::{as_u128, u128_value};
use super::split::Frontier;
use crate::backend::{Backend, Detail, Stats};
use crate::bitboard::board::{Board, CastlingData};
use crate::error::Result;
use crate::validate::Checked;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

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

/// Count several positions in one backend call: [`Backend::perft_many`] without statistics,
/// [`Backend::stats_many`] with them (the CPU backend counts the batch with all its workers and its one hash
/// table, the GPU backend counts a batch of plain counts in one run).
///
/// # Errors
/// A backend failure.
pub fn evaluate_many(
    engine: &dyn Backend,
    positions: &[Checked],
    rest: u32,
    stats: Option<Detail>,
) -> Result<Vec<PieceResult>> {
    let counted: Vec<PieceResult> = match stats {
        Some(detail) => engine
            .stats_many(positions, rest, detail)?
            .into_iter()
            .map(|(nodes, s)| PieceResult {
                nodes,
                stats: Some(columns(&s, detail)),
            })
            .collect(),
        None => engine
            .perft_many(positions, rest)?
            .into_iter()
            .map(|nodes| PieceResult { nodes, stats: None })
            .collect(),
    };
    one_count_each(engine, counted.len(), positions.len())?;
    Ok(counted)
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

/// How batches are sized on one backend: the first batch, and the time each batch is aimed at. The batch
/// doubles while a call takes less than half the aim and halves when it takes more than twice the aim
/// ([`Batching::next`]), so a killed run loses about one batch's time and each batch is long enough for the
/// per-batch costs (journal write, status, progress) not to count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Batching {
    /// Positions in the first backend call (at least).
    pub first: usize,
    /// When not 0, the first call takes at least this share of the positions to count (1/`share`):
    /// [`Batching::first_of`].
    pub share: usize,
    /// The time one batch is aimed at (seconds).
    pub seconds: f64,
}

/// Largest batch of positions per backend call.
pub const MAX_BATCH: usize = 1 << 16;

/// Batches on a backend that counts one call at a time with the whole device (the GPU): a 32nd of the
/// positions at first (each call is a planned run with a start cost of its own; from one position, doubling,
/// a checkpointed perft 6 took 13 calls), aimed at 4 s.
pub const GPU_BATCHING: Batching = Batching {
    first: 1,
    share: 32,
    seconds: 4.0,
};

/// Batches on the CPU backends: 64 positions at first, aimed at a quarter of a second (a killed run loses
/// at most that; 4 journal writes a second cost nothing measurable).
pub const CPU_BATCHING: Batching = Batching {
    first: 64,
    share: 0,
    seconds: 0.25,
};

impl Batching {
    /// The batching for `engine`: [`GPU_BATCHING`] for a backend that counts each call as one run of its own
    /// ([`Backend::merges_only_within_batch`]: the GPU), else [`CPU_BATCHING`]. A property of the backend, not
    /// its name.
    pub fn of(engine: &dyn Backend) -> Batching {
        if engine.merges_only_within_batch() {
            GPU_BATCHING
        } else {
            CPU_BATCHING
        }
    }

    /// The size of the first batch of a run that counts `todo` positions.
    pub fn first_of(&self, todo: usize) -> usize {
        match self.share {
            0 => self.first,
            n => (todo / n).clamp(self.first, MAX_BATCH),
        }
    }

    /// The next batch size after a batch of `size` positions took `seconds`.
    pub fn next(&self, size: usize, seconds: f64) -> usize {
        if seconds < self.seconds / 2.0 {
            (size * 2).min(MAX_BATCH)
        } else if seconds > self.seconds * 2.0 {
            (size / 2).max(1)
        } else {
            size
        }
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

/// What [`run_positions`] did: every result, and where its time went.
#[derive(Clone, Debug, Default)]
pub struct Counted {
    /// Every position's result (the journal's included), by place `k` in the counting order
    /// ([`Positions::index`] gives each one's index).
    pub results: Vec<PieceResult>,
    /// Seconds spent inside backend calls.
    pub backend_seconds: f64,
    /// Seconds of the whole call (backend calls, journal writes, status and progress).
    pub seconds: f64,
    /// Backend calls made.
    pub batches: usize,
}

/// The positions a run counts, by their place `k` in the counting order: the index of each one's result, its
/// FEN (named in the journal) and the position itself, made when its batch is counted, so that a run holds
/// one batch of backend positions at a time, not the whole frontier.
pub trait Positions: Sync {
    /// Number of positions.
    fn len(&self) -> usize;
    /// Whether there is none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The index of the `k`-th position's result.
    fn index(&self, k: usize) -> usize;
    /// The `k`-th position's FEN (for the journal).
    fn fen(&self, k: usize) -> &str;
    /// The `k`-th position.
    ///
    /// # Errors
    /// When it cannot be made (a bug of the caller's generator).
    fn position(&self, k: usize) -> Result<Checked>;
    /// The castling data that every position shares when the positions are held as boards of the fast
    /// generator below one root (the split frontier's); then [`Positions::board`] gives each, and a count
    /// without statistics hands the backend the boards ([`Backend::perft_boards`]). `None` (the default) for
    /// positions read as text (work units).
    fn castling_data(&self) -> Option<&CastlingData> {
        None
    }
    /// The `k`-th position as a board, checked as [`Positions::position`] checks it (only called where
    /// [`Positions::castling_data`] is `Some`).
    ///
    /// # Errors
    /// As [`Positions::position`].
    fn board(&self, k: usize) -> Result<Board> {
        Err(crate::Error::Backend(format!(
            "position {k} is not held as a board"
        )))
    }
    /// The boards of the places `ks` where they are held side by side in the counting order (the split
    /// frontier's, unless a grouping reorders them), each checked as [`Positions::board`] checks it: a batch
    /// is then counted from them as they are, without a copy. `None` (the default) where they are not.
    fn board_run(&self, _ks: std::ops::Range<usize>) -> Option<Result<&[Board]>> {
        None
    }
}

/// An error unless `engine` returned one count (`got`) for each of the `asked` positions it was given.
fn one_count_each(engine: &dyn Backend, got: usize, asked: usize) -> Result<()> {
    if got == asked {
        return Ok(());
    }
    Err(crate::Error::Backend(format!(
        "{} backend returned {got} counts for {asked} positions",
        engine.name()
    )))
}

/// Count the positions `setups` not already recorded, in batches of one backend call each
/// ([`evaluate_many`], sized by [`Batching::of`] the engine), each batch recorded in one journal write when
/// its call returns; returns every result (the recorder's included) and the time spent in and out of the
/// backend. `what` names the run in the interruption message; `resume` says how to resume.
///
/// # Errors
/// A backend failure, a position that cannot be made, or a journal write error.
#[allow(clippy::too_many_arguments)]
pub fn run_positions(
    engine: &dyn Backend,
    setups: &dyn Positions,
    rest: u32,
    stats: Option<Detail>,
    mut journal: Option<&mut dyn Recorder>,
    progress: &dyn Progress,
    what: &str,
    resume: &str,
) -> Result<Counted> {
    let clock = Instant::now();
    let mut out = Counted::default();
    let total = setups.len();
    // The journal's results by place in the counting order, only where it holds some (a vector, not a map: a
    // split of 72,078 positions spent about 35 M instructions inserting into, searching and freeing a map by
    // index).
    let kept: Vec<Option<PieceResult>> = match journal.as_deref() {
        Some(j) if !j.done().is_empty() => (0..total)
            .map(|k| j.done().get(&setups.index(k)).cloned())
            .collect(),
        _ => Vec::new(),
    };
    let mut done = kept.iter().flatten().count();
    progress.start(done as u64, total as u64);
    let status = |done: usize| {
        crate::interrupt::set_status(format!(
            "{what}: {done} of {total} positions of the split frontier finished{resume}"
        ))
    };
    status(done);
    let todo: Vec<usize> = (0..total)
        .filter(|&k| kept.get(k).is_none_or(Option::is_none))
        .collect();
    // This run's results in the order counted (the places `todo` lists, rising), written once each where
    // they stay: 48 bytes a position (3.5 MB for the 72,078 of start ply 4), huge pages where Linux allows.
    let mut counted_here: Vec<PieceResult> = Vec::with_capacity(todo.len());
    crate::bitboard::memory::advise_spare(&mut counted_here);
    let batching = Batching::of(engine);
    let mut size = batching.first_of(todo.len());
    let mut last_sync = Instant::now();
    let mut at = 0;
    let finished = (|| -> Result<()> {
        while at < todo.len() {
            let batch = &todo[at..(at + size).min(todo.len())];
            let from = counted_here.len();
            let seconds = count_batch(engine, setups, batch, rest, stats, &mut counted_here)?;
            out.backend_seconds += seconds;
            out.batches += 1;
            if let Some(j) = journal.as_deref_mut() {
                let rows: Vec<(usize, &str, &PieceResult)> = batch
                    .iter()
                    .zip(&counted_here[from..])
                    .map(|(&k, r)| (setups.index(k), setups.fen(k), r))
                    .collect();
                j.record(&rows)?;
                if last_sync.elapsed() > Duration::from_secs(2) {
                    j.sync();
                    last_sync = Instant::now();
                }
            }
            done += batch.len();
            status(done);
            progress.advance(batch.len() as u64);
            at += batch.len();
            size = batching.next(size, seconds);
        }
        Ok(())
    })();
    if let Some(j) = journal.as_deref() {
        j.sync();
    }
    progress.finish();
    finished?;
    out.results = if kept.is_empty() {
        counted_here
    } else {
        let mut here = counted_here.into_iter();
        let mut all = Vec::with_capacity(total);
        all.extend(kept.into_iter().map_while(|r| r.or_else(|| here.next())));
        all
    };
    one_count_each(engine, out.results.len(), total)?;
    out.seconds = clock.elapsed().as_secs_f64();
    Ok(out)
}

/// Count the positions `batch` (places in the counting order) of `setups` in one backend call: as boards
/// ([`Backend::perft_boards`]) where they are held as boards and no statistics are asked, else as checked
/// positions ([`evaluate_many`]). Appends the results to `out` (kept from batch to batch: no list per batch
/// to allocate, fault in and copy) and returns the seconds of the backend call.
///
/// # Errors
/// A position that cannot be made, or a backend failure.
fn count_batch(
    engine: &dyn Backend,
    setups: &dyn Positions,
    batch: &[usize],
    rest: u32,
    stats: Option<Detail>,
    out: &mut Vec<PieceResult>,
) -> Result<f64> {
    use rayon::prelude::*;
    if let (None, Some(cd)) = (stats, setups.castling_data()) {
        // The places of a batch rise: first to last without a gap is a run.
        let run = match (batch.first(), batch.last()) {
            (Some(&a), Some(&z)) if z + 1 - a == batch.len() => setups.board_run(a..z + 1),
            _ => None,
        };
        let made: Vec<Board>;
        let boards: &[Board] = match run {
            Some(run) => run?,
            None => {
                made = batch
                    .par_iter()
                    .map(|&k| setups.board(k))
                    .collect::<Result<_>>()?;
                &made
            }
        };
        let call = Instant::now();
        let nodes = engine.perft_boards(boards, cd, rest)?;
        let seconds = call.elapsed().as_secs_f64();
        one_count_each(engine, nodes.len(), boards.len())?;
        out.extend(
            nodes
                .into_iter()
                .map(|nodes| PieceResult { nodes, stats: None }),
        );
        return Ok(seconds);
    }
    let positions: Vec<Checked> = batch
        .par_iter()
        .map(|&k| setups.position(k))
        .collect::<Result<_>>()?;
    let call = Instant::now();
    out.extend(evaluate_many(engine, &positions, rest, stats)?);
    Ok(call.elapsed().as_secs_f64())
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

/// Sum the results of a whole frontier, each with its position's index (any order).
pub fn frontier_totals<'a>(
    f: &Frontier,
    results: impl IntoIterator<Item = (usize, &'a PieceResult)>,
    divide: bool,
) -> Totals {
    let mut t = Totals {
        divide: divide.then(|| f.root_moves.iter().map(|m| (m.clone(), 0)).collect()),
        ..Totals::default()
    };
    // Each result looked up in the frontier (not each position looked up among the results).
    for (i, r) in results {
        if !divide {
            t.add(f.mult(i), &[], r);
            continue;
        }
        // The root moves' names only for a divide (a split of 72,078 positions has some 200,000).
        let p = f.piece(i);
        let by_move: Vec<(String, u128)> = p
            .by_move()
            .map(|(k, n)| (f.root_moves[k as usize].clone(), n))
            .collect();
        t.add(p.mult, &by_move, r);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_gpu_batch_is_a_share_of_the_frontier_and_the_cpu_one_fixed() {
        // Start position perft 7 split at ply 4: 72,078 positions (OEIS A083276), a 32nd is 2,252.
        assert_eq!(GPU_BATCHING.first_of(72_078), 2_252);
        assert_eq!(GPU_BATCHING.first_of(10), 1);
        assert_eq!(GPU_BATCHING.first_of(usize::MAX), MAX_BATCH);
        assert_eq!(CPU_BATCHING.first_of(72_078), 64);
    }

    /// A backend of a given name and merging property that counts nothing (only [`Batching::of`] reads it).
    struct Named(&'static str, bool);

    impl Backend for Named {
        fn name(&self) -> &'static str {
            self.0
        }
        fn merges_only_within_batch(&self) -> bool {
            self.1
        }
        fn perft(&self, _: &Checked, _: u32) -> Result<u128> {
            unreachable!("not counted")
        }
        fn legal_moves(&self, _: &[Checked]) -> Result<Vec<Vec<crate::types::Move>>> {
            unreachable!("not counted")
        }
        fn stats(&self, _: &Checked, _: u32, _: Detail) -> Result<(u128, Stats)> {
            unreachable!("not counted")
        }
    }

    #[test]
    fn the_batching_follows_the_backends_merging_not_its_name() {
        assert_eq!(Batching::of(&Named("gpu", true)), GPU_BATCHING);
        assert_eq!(Batching::of(&Named("gpu", false)), CPU_BATCHING);
        assert_eq!(Batching::of(&Named("other", true)), GPU_BATCHING);
        assert_eq!(
            Batching::of(&crate::backend::ReferenceBackend),
            CPU_BATCHING
        );
    }
}
