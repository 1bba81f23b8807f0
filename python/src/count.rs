//! `perft`, `divide`, `stats` and `legal_moves` on the fast CPU backend ([`CpuBackend`]), with the command
//! line's defaults (16 MiB hash table, all cores, transpositions merged).
//!
//! Backends are kept per `(threads, hash_mb)`, so a small call pays neither a thread pool's start nor a hash
//! table's allocation; the table keeps its entries between calls (`clear_hash()` empties it). Counts of
//! depth [`SPLIT_DEPTH`] and deeper are split into root-move subtrees, checking the cancellation flag
//! between them, so that Ctrl-C stops the work and not only the wait for it.

use crate::errors::{self, position};
use crate::{cancelled, run_long};
use perftlab::backend::{Backend, Detail, Stats};
use perftlab::fast::CpuBackend;
use perftlab::{limits, Checked};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// Depths from which a count runs as subtrees of the root's moves (each of depth `SPLIT_DEPTH - 1` or less
/// runs whole, so a check comes every ~0.1 s at most on a few cores).
pub const SPLIT_DEPTH: u32 = 7;
/// Depths from which a count runs on a worker thread ([`run_long`]); smaller ones run on the calling thread
/// (the GIL released from depth 3 on).
const LONG_DEPTH: u32 = 4;

type Key = (Option<usize>, usize);
static BACKENDS: Mutex<Vec<(Key, Arc<CpuBackend>)>> = Mutex::new(Vec::new());

/// The backend of `threads` workers and a `hash_mb` MiB table, made on first use.
fn backend(py: Python<'_>, threads: Option<usize>, hash_mb: usize) -> PyResult<Arc<CpuBackend>> {
    if let Some(t) = threads {
        limits::check_thread_count("threads", t).map_err(|e| errors::from_core(py, e))?;
    }
    if hash_mb > 1 << 20 {
        return Err(errors::usage(
            py,
            &format!("hash_mb: '{hash_mb}' is more than the maximum of 1048576 MiB"),
        ));
    }
    let mut all = BACKENDS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, b)) = all.iter().find(|(k, _)| *k == (threads, hash_mb)) {
        return Ok(b.clone());
    }
    let b =
        Arc::new(CpuBackend::new(hash_mb, threads, true).map_err(|e| errors::from_core(py, e))?);
    all.push(((threads, hash_mb), b.clone()));
    Ok(b)
}

fn check_depth(py: Python<'_>, depth: u32) -> PyResult<()> {
    limits::check_depth("depth", depth).map_err(|e| errors::from_core(py, e))
}

/// Leaf count, split into root-move subtrees from [`SPLIT_DEPTH`] on (checking `cancel` between them).
fn count(
    cpu: &CpuBackend,
    pos: &Checked,
    depth: u32,
    cancel: &AtomicBool,
) -> perftlab::Result<u128> {
    cancelled(cancel)?;
    if depth < SPLIT_DEPTH {
        return cpu.perft(pos, depth);
    }
    let mut total = 0;
    for m in pos.legal_moves() {
        total += count(cpu, &pos.play(m)?, depth - 1, cancel)?;
    }
    Ok(total)
}

/// Statistics, split as [`count`] is.
fn count_stats(
    cpu: &CpuBackend,
    pos: &Checked,
    depth: u32,
    cancel: &AtomicBool,
) -> perftlab::Result<(u128, Stats)> {
    cancelled(cancel)?;
    if depth < SPLIT_DEPTH {
        return cpu.stats(pos, depth, Detail::Cpw);
    }
    let (mut total, mut stats) = (0, Stats::default());
    for m in pos.legal_moves() {
        let (n, s) = count_stats(cpu, &pos.play(m)?, depth - 1, cancel)?;
        total += n;
        stats += s;
    }
    Ok((total, stats))
}

/// perft(pos, depth, *, threads=None, hash_mb=16) -> int
///
/// The number of leaves of the legal move tree of `depth` plies below `pos` (perft(pos, 0) == 1). `pos` is
/// a FEN string or any object with a `.fen()` method (a `chess.Board`). `threads`: worker threads (None: all
/// cores); `hash_mb`: the transposition table's size in MiB (0: none; kept between calls).
///
/// Raises FenError / InvalidPositionError for a bad position, UsageError for a bad argument.
#[pyfunction]
#[pyo3(signature = (pos, depth, *, threads=None, hash_mb=16))]
pub fn perft(
    py: Python<'_>,
    pos: &Bound<'_, PyAny>,
    depth: u32,
    threads: Option<usize>,
    hash_mb: usize,
) -> PyResult<u128> {
    let pos = position(py, pos)?;
    check_depth(py, depth)?;
    let cpu = backend(py, threads, hash_mb)?;
    let result = match depth {
        0..=2 => cpu.perft(&pos, depth),
        d if d < LONG_DEPTH => py.detach(|| cpu.perft(&pos, d)),
        d => return run_long(py, move |cancel| count(&cpu, &pos, d, cancel)),
    };
    result.map_err(|e| errors::from_core(py, e))
}

/// divide(pos, depth, *, threads=None, hash_mb=16, as_moves=False) -> dict[str, int]
///
/// perft of each root move's subtree (depth - 1 plies below it), keyed by the move in UCI (king takes rook
/// for Chess960 castling rights), in UCI order. With `as_moves=True` the keys are `chess.Move` objects.
#[pyfunction]
#[pyo3(signature = (pos, depth, *, threads=None, hash_mb=16, as_moves=false))]
pub fn divide<'py>(
    py: Python<'py>,
    pos: &Bound<'py, PyAny>,
    depth: u32,
    threads: Option<usize>,
    hash_mb: usize,
    as_moves: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let pos = position(py, pos)?;
    check_depth(py, depth)?;
    if depth == 0 {
        return Err(errors::usage(
            py,
            "depth: divide needs a depth of at least 1",
        ));
    }
    let cpu = backend(py, threads, hash_mb)?;
    let chess960 = pos.needs_chess960_notation();
    let job = move |cancel: &AtomicBool| -> perftlab::Result<Vec<(String, u128)>> {
        let mut out = Vec::new();
        if depth < SPLIT_DEPTH {
            for (m, n) in cpu.divide(&pos, depth)? {
                out.push((m.to_uci(chess960), n));
            }
        } else {
            for m in pos.legal_moves() {
                out.push((
                    m.to_uci(chess960),
                    count(&cpu, &pos.play(m)?, depth - 1, cancel)?,
                ));
            }
        }
        out.sort();
        Ok(out)
    };
    let rows = run_long(py, job)?;
    let dict = PyDict::new(py);
    for (uci, n) in rows {
        if as_moves {
            dict.set_item(crate::convert::chess_move(py, &uci)?, n)?;
        } else {
            dict.set_item(uci, n)?;
        }
    }
    Ok(dict)
}

/// stats(pos, depth, *, threads=None, hash_mb=16) -> dict
///
/// The Chess Programming Wiki's "Perft Results" columns at `depth`: `nodes`, `captures`, `en_passant`,
/// `castles`, `promotions`, `checks`, `discovered_checks`, `double_checks`, `checkmates`, and `stalemates`.
#[pyfunction]
#[pyo3(signature = (pos, depth, *, threads=None, hash_mb=16))]
pub fn stats<'py>(
    py: Python<'py>,
    pos: &Bound<'py, PyAny>,
    depth: u32,
    threads: Option<usize>,
    hash_mb: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let pos = position(py, pos)?;
    check_depth(py, depth)?;
    let cpu = backend(py, threads, hash_mb)?;
    let (total, s) = run_long(py, move |cancel| count_stats(&cpu, &pos, depth, cancel))?;
    let dict = PyDict::new(py);
    dict.set_item("nodes", total)?;
    for (column, value) in s.columns(Detail::Cpw) {
        dict.set_item(column.key(), value)?;
    }
    Ok(dict)
}

/// legal_moves(pos, *, as_moves=False) -> list[str]
///
/// The legal moves of `pos` in UCI, in UCI order (`chess.Move` objects with `as_moves=True`).
#[pyfunction]
#[pyo3(signature = (pos, *, as_moves=false))]
pub fn legal_moves<'py>(
    py: Python<'py>,
    pos: &Bound<'py, PyAny>,
    as_moves: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let pos = position(py, pos)?;
    let chess960 = pos.needs_chess960_notation();
    let mut ucis: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| m.to_uci(chess960))
        .collect();
    ucis.sort();
    crate::convert::moves_out(py, &ucis, as_moves)
}

/// clear_hash() -> None
///
/// Empty the transposition tables that `perft`, `divide` and `stats` keep between calls (benchmarks use
/// this so that one run does not feed the next).
#[pyfunction]
pub fn clear_hash() {
    for (_, b) in BACKENDS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        b.clear_hash();
    }
}
