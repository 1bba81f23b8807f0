//! `perftlab._native`, the extension module behind the Python package `perftlab` (python/perftlab/): perft,
//! divide and the CPW statistics on the fast CPU backend, dead positions (FIDE 1.5, 6.9), reachability
//! (FIDE 3.10.3), `analyze`, and the cross-check of a Python move generator against the reference generator.
//!
//! Every function takes a position as FEN text or as any object with a `.fen()` method (a `chess.Board`),
//! returns plain Python values, and raises the typed exceptions of `perftlab._errors` (FenError naming the
//! field, InvalidPositionError with every FIDE 3.10.3 reason, …). Long calls release the GIL and run on a
//! worker thread while the calling thread polls for signals, so Ctrl-C raises KeyboardInterrupt within
//! [`POLL`] and tells the worker to stop at its next check ([`run_long`]).
//!
//! Modules: `errors` (exceptions, positions and arguments in), `count` (perft, divide, stats), `dead`
//! (dead, reachable and their batch iterators), `check` (crosscheck, stress), `convert` (JSON values and
//! moves out).

mod check;
mod convert;
mod count;
mod dead;
mod errors;

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How often a thread waiting for a long call checks for signals (Ctrl-C).
pub const POLL: Duration = Duration::from_millis(20);

/// The cancellation flag a long job checks between its pieces of work.
pub type Cancel = Arc<AtomicBool>;

/// Whether the caller has given up on the job (Ctrl-C): the job returns [`perftlab::Error::Interrupted`].
pub fn cancelled(cancel: &AtomicBool) -> perftlab::Result<()> {
    if cancel.load(Ordering::Relaxed) {
        return Err(perftlab::Error::Interrupted("interrupted".into()));
    }
    Ok(())
}

/// Run `job` on a worker thread with the GIL released, polling for signals every [`POLL`]: a signal handler
/// that raises (Ctrl-C's KeyboardInterrupt) returns its exception at once and sets the job's [`Cancel`]
/// flag, so that the worker stops at its next check instead of finishing the whole computation.
pub fn run_long<T: Send + 'static>(
    py: Python<'_>,
    job: impl FnOnce(&AtomicBool) -> perftlab::Result<T> + Send + 'static,
) -> PyResult<T> {
    let cancel: Cancel = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let flag = cancel.clone();
    std::thread::Builder::new()
        .name("perftlab".into())
        .spawn(move || {
            let _ = tx.send(job(&flag));
        })
        .map_err(|e| errors::backend(py, &format!("cannot start a worker thread: {e}")))?;
    let mut rx = rx;
    loop {
        let (back, answer) = py.detach(move || {
            let answer = rx.recv_timeout(POLL);
            (rx, answer)
        });
        rx = back;
        match answer {
            Ok(result) => return result.map_err(|e| errors::from_core(py, e)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    cancel.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(errors::backend(
                    py,
                    "internal error: the worker thread stopped without an answer",
                ))
            }
        }
    }
}

/// The module: every function of the package, and the result classes.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(count::perft, m)?)?;
    m.add_function(wrap_pyfunction!(count::divide, m)?)?;
    m.add_function(wrap_pyfunction!(count::stats, m)?)?;
    m.add_function(wrap_pyfunction!(count::legal_moves, m)?)?;
    m.add_function(wrap_pyfunction!(count::clear_hash, m)?)?;
    m.add_function(wrap_pyfunction!(dead::dead, m)?)?;
    m.add_function(wrap_pyfunction!(dead::dead_many, m)?)?;
    m.add_function(wrap_pyfunction!(dead::reachable, m)?)?;
    m.add_function(wrap_pyfunction!(dead::reachable_many, m)?)?;
    m.add_function(wrap_pyfunction!(dead::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(check::crosscheck, m)?)?;
    m.add_function(wrap_pyfunction!(check::stress, m)?)?;
    m.add_class::<dead::Verdict>()?;
    m.add_class::<dead::Batch>()?;
    m.add_class::<check::Report>()?;
    m.add_class::<check::Failure>()?;
    Ok(())
}
