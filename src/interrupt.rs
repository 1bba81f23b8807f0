//! Stopping on SIGINT and SIGTERM within a second, saying what was done.
//!
//! The command line calls [`install`] once. From then on a watcher thread (signal-hook's iterator) waits for
//! SIGINT or SIGTERM; when one comes it does not wait for the running computation (a perft subtree can take
//! minutes) but stops the process at once:
//! 1. it takes the [`critical`] lock, so that no journal record or result file is half written, kills the
//!    process group of every external engine still registered with [`register_group`] (an engine and what
//!    it started never outlive perftlab), and removes the temporary files of unfinished atomic writes;
//! 2. prints on stdout what a command registered with [`set_partial_stdout`] (`stress --json` and
//!    `compare --suite --json` keep their summary of the positions compared so far there);
//! 3. prints on stderr `interrupted by SIGINT after 12.3 s: ` and what the command registered with
//!    [`set_status`] (for example how many positions of the split frontier were finished and how to resume);
//! 4. exits with 128 + the signal number: **130** for SIGINT, **143** for SIGTERM (the shell convention).
//!
//! Everything that must survive (checkpoint journals, shard results) is written record by record, so nothing
//! is lost but the piece of work in flight.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

static STATUS: Mutex<String> = Mutex::new(String::new());
static PARTIAL_STDOUT: Mutex<Option<String>> = Mutex::new(None);
static CRITICAL: Mutex<()> = Mutex::new(());
static STARTED: OnceLock<Instant> = OnceLock::new();
static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());
static TEMP_FILES: Mutex<Vec<std::path::PathBuf>> = Mutex::new(Vec::new());

/// Kill every process of the process groups `groups` (Unix; by the shell's `kill -KILL -PGID`, which needs
/// no unsafe code).
pub fn kill_groups(groups: &[u32]) {
    #[cfg(unix)]
    if !groups.is_empty() {
        let ids: Vec<String> = groups.iter().map(|g| format!("-{g}")).collect();
        let _ = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("kill -KILL {} 2>/dev/null", ids.join(" ")))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = groups;
}

/// Register the process group `pgid` of a running external engine: an interruption kills it. Call
/// [`unregister_group`] once it has been killed and reaped.
pub fn register_group(pgid: u32) {
    if let Ok(mut g) = GROUPS.lock() {
        g.push(pgid);
    }
}

/// Forget a process group registered with [`register_group`].
pub fn unregister_group(pgid: u32) {
    if let Ok(mut g) = GROUPS.lock() {
        if let Some(i) = g.iter().position(|&x| x == pgid) {
            g.swap_remove(i);
        }
    }
}

/// Remove `path` if the run is interrupted (a temporary file of an atomic write in progress).
pub fn remove_on_stop(path: &std::path::Path) {
    if let Ok(mut t) = TEMP_FILES.lock() {
        t.push(path.to_path_buf());
    }
}

/// Forget a path given to [`remove_on_stop`].
pub fn keep_on_stop(path: &std::path::Path) {
    if let Ok(mut t) = TEMP_FILES.lock() {
        t.retain(|p| p != path);
    }
}

/// Exit code for a signal number: 128 + n (130 for SIGINT, 143 for SIGTERM).
pub fn exit_code(signal: i32) -> i32 {
    128 + signal
}

fn signal_name(signal: i32) -> String {
    match signal {
        2 => "SIGINT".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

/// Start watching SIGINT and SIGTERM (idempotent in effect; call once from the command line).
pub fn install() {
    let _ = STARTED.set(Instant::now());
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
            Ok(mut signals) => {
                let spawned = std::thread::Builder::new()
                    .name("perftlab-signals".into())
                    .spawn(move || {
                        if let Some(sig) = signals.forever().next() {
                            stop(sig);
                        }
                    });
                if let Err(e) = spawned {
                    eprintln!("warning: cannot watch SIGINT/SIGTERM: {e}");
                }
            }
            Err(e) => eprintln!("warning: cannot watch SIGINT/SIGTERM: {e}"),
        }
    }
}

/// Describe what the running command has done so far (printed on stderr if it is interrupted).
pub fn set_status(text: impl Into<String>) {
    if let Ok(mut s) = STATUS.lock() {
        *s = text.into();
    }
}

/// Text printed on stdout if the command is interrupted (a partial JSON summary); `None` for nothing.
pub fn set_partial_stdout(text: Option<String>) {
    if let Ok(mut s) = PARTIAL_STDOUT.lock() {
        *s = text;
    }
}

/// Hold this guard while writing something that must not be cut in half by an interruption (a journal record,
/// a result file's rename); the signal watcher waits for it before exiting.
pub fn critical() -> std::sync::MutexGuard<'static, ()> {
    CRITICAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Set when an interruption has begun: the process is about to exit with 128 + the signal number.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Whether an interruption has begun (see [`park_if_stopping`]).
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// If an interruption has begun, wait for it to end the process (never return): a command whose engine was
/// just killed by the interruption must not report that as its own error, or exit first with another code.
pub fn park_if_stopping() {
    while stopping() {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Print what was done, kill the engines still running and exit with 128 + `signal`. Never returns.
pub fn stop(signal: i32) -> ! {
    use std::io::Write;
    STOPPING.store(true, Ordering::SeqCst);
    let _guard = critical();
    let partial = PARTIAL_STDOUT.lock().map(|s| s.clone()).unwrap_or_default();
    if let Some(text) = partial {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
    let status = STATUS.lock().map(|s| s.clone()).unwrap_or_default();
    let secs = STARTED.get().map_or(0.0, |t| t.elapsed().as_secs_f64());
    let what = if status.is_empty() {
        "nothing finished".to_string()
    } else {
        status
    };
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "\ninterrupted by {} after {secs:.1} s: {what}",
        signal_name(signal)
    );
    let _ = err.flush();
    // Last, so that a command seeing its engine die already finds `stopping()` set.
    let groups = GROUPS.lock().map(|g| g.clone()).unwrap_or_default();
    kill_groups(&groups);
    for tmp in TEMP_FILES.lock().map(|t| t.clone()).unwrap_or_default() {
        let _ = std::fs::remove_file(tmp);
    }
    std::process::exit(exit_code(signal));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        assert_eq!(exit_code(2), 130);
        assert_eq!(exit_code(15), 143);
        assert_eq!(signal_name(2), "SIGINT");
        assert_eq!(signal_name(15), "SIGTERM");
    }
}
