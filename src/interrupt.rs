//! Stopping on SIGINT and SIGTERM within a second, saying what was done.
//!
//! The command line calls [`install`] once. From then on a watcher thread (signal-hook's iterator) waits for
//! SIGINT or SIGTERM; when one comes it does not wait for the running computation (a perft subtree can take
//! minutes) but stops the process at once:
//! 1. it takes the [`critical`] lock, so that no journal record or result file is half written;
//! 2. prints on stdout what a command registered with [`set_partial_stdout`] (`stress --json` and
//!    `compare --suite --json` keep their summary of the positions compared so far there);
//! 3. prints on stderr `interrupted by SIGINT after 12.3 s: ` and what the command registered with
//!    [`set_status`] (for example how many positions of the split frontier were finished and how to resume);
//! 4. exits with 128 + the signal number: **130** for SIGINT, **143** for SIGTERM (the shell convention).
//!
//! Everything that must survive (checkpoint journals, shard results) is written record by record, so nothing
//! is lost but the piece of work in flight.

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

static STATUS: Mutex<String> = Mutex::new(String::new());
static PARTIAL_STDOUT: Mutex<Option<String>> = Mutex::new(None);
static CRITICAL: Mutex<()> = Mutex::new(());
static STARTED: OnceLock<Instant> = OnceLock::new();

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

/// Print what was done and exit with 128 + `signal`. Never returns.
pub fn stop(signal: i32) -> ! {
    use std::io::Write;
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
