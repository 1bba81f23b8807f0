//! What a run has done so far, for the message printed when it is stopped by SIGINT or SIGTERM, and the lock
//! that keeps such a stop from cutting a file write in half. Plain state: the command line's signal watcher
//! (`src/cli/signals.rs`, the only user of signal-hook) reads it, so the library itself never prints.
//!
//! When SIGINT or SIGTERM comes, the watcher does not wait for the running computation (a perft subtree can
//! take minutes) but stops the process at once:
//! 0. it runs the [`set_stop_hook`] hook, if one is set (a deep run's table snapshot is written there, so a
//!    resumed run finds the table the stopped one had, not the last periodic snapshot);
//! 1. it takes the [`critical`] lock, so that no journal record or result file is half written, kills the
//!    process group of every external engine still registered with [`register_group`] (an engine and what
//!    it started never outlive perftlab), and removes the temporary files of unfinished atomic writes
//!    ([`release_for_stop`]);
//! 2. prints on stdout what a command registered with [`set_partial_stdout`] (`stress --json` and
//!    `compare --suite --json` keep their summary of the positions compared so far there);
//! 3. prints on stderr `interrupted by SIGINT after 12.3 s: ` and what the command registered with
//!    [`set_status`] (for example how many positions of the split frontier were finished and how to resume);
//! 4. exits with [`exit_code`]: 128 + the signal number, **130** for SIGINT, **143** for SIGTERM (the shell
//!    convention).
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

/// Work to save before an interruption stops the process ([`set_stop_hook`]).
pub type StopHook = Box<dyn Fn() + Send>;

static STOP_HOOK: Mutex<Option<StopHook>> = Mutex::new(None);

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

/// Remember now as the start of the run (the first call counts; the signal watcher calls it as it starts).
pub fn mark_start() {
    let _ = STARTED.set(Instant::now());
}

/// When [`mark_start`] was first called.
pub fn started() -> Option<Instant> {
    STARTED.get().copied()
}

/// Describe what the running command has done so far (printed on stderr if it is interrupted).
pub fn set_status(text: impl Into<String>) {
    if let Ok(mut s) = STATUS.lock() {
        *s = text.into();
    }
}

/// What was last given to [`set_status`] (empty when nothing).
pub fn status() -> String {
    STATUS.lock().map(|s| s.clone()).unwrap_or_default()
}

/// Text printed on stdout if the command is interrupted (a partial JSON summary); `None` for nothing.
pub fn set_partial_stdout(text: Option<String>) {
    if let Ok(mut s) = PARTIAL_STDOUT.lock() {
        *s = text;
    }
}

/// What was last given to [`set_partial_stdout`].
pub fn partial_stdout() -> Option<String> {
    PARTIAL_STDOUT.lock().map(|s| s.clone()).unwrap_or_default()
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

/// Mark the start of an interruption: from now on [`stopping`] is true; then run the [`set_stop_hook`] hook
/// (before the watcher takes [`critical`], which the hook may take for its own atomic rename). The signal
/// watcher calls it first.
pub fn begin_stop() {
    STOPPING.store(true, Ordering::SeqCst);
    let hook = STOP_HOOK.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(h) = hook.as_ref() {
        h();
    }
}

/// Set (or with `None` remove) the work an interruption does before it stops the process: saving what a
/// long computation holds in memory (a deep run's hash table). One hook at a time; it runs while the
/// computation goes on in other threads, so it must read shared state safely. Removing it waits for a hook
/// that is running, so that what the caller does next (removing the file the hook writes) comes after it.
pub fn set_stop_hook(hook: Option<StopHook>) {
    *STOP_HOOK.lock().unwrap_or_else(|e| e.into_inner()) = hook;
}

/// Kill the process groups registered with [`register_group`] and remove the temporary files registered with
/// [`remove_on_stop`]; the signal watcher calls it, holding [`critical`], last before it exits (so that a
/// command seeing its engine die already finds [`stopping`] set).
pub fn release_for_stop() {
    let groups = GROUPS.lock().map(|g| g.clone()).unwrap_or_default();
    kill_groups(&groups);
    for tmp in TEMP_FILES.lock().map(|t| t.clone()).unwrap_or_default() {
        let _ = std::fs::remove_file(tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_shell_convention() {
        assert_eq!(exit_code(2), 130);
        assert_eq!(exit_code(15), 143);
    }

    #[test]
    fn status_and_partial_output_read_back() {
        set_status("3 of 20 positions");
        assert_eq!(status(), "3 of 20 positions");
        set_partial_stdout(Some("{}".into()));
        assert_eq!(partial_stdout().as_deref(), Some("{}"));
        set_partial_stdout(None);
        assert_eq!(partial_stdout(), None);
    }
}
