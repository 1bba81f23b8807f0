//! Stopping on SIGINT and SIGTERM within a second, saying what was done (the only user of signal-hook). The
//! state it reports (status, partial output, the lock of file writes) is [`crate::interrupt`]'s; see there
//! for the four steps of a stop.

use crate::interrupt;

fn signal_name(signal: i32) -> String {
    match signal {
        2 => "SIGINT".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

/// Start watching SIGINT and SIGTERM (idempotent in effect; called once by [`super::main`]).
pub fn install() {
    interrupt::mark_start();
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

/// Print what was done and exit with 128 + `signal`. Never returns.
pub fn stop(signal: i32) -> ! {
    use std::io::Write;
    interrupt::begin_stop();
    let _guard = interrupt::critical();
    if let Some(text) = interrupt::partial_stdout() {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
    let status = interrupt::status();
    let secs = interrupt::started().map_or(0.0, |t| t.elapsed().as_secs_f64());
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
    interrupt::release_for_stop();
    std::process::exit(interrupt::exit_code(signal));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named() {
        assert_eq!(signal_name(2), "SIGINT");
        assert_eq!(signal_name(15), "SIGTERM");
        assert_eq!(signal_name(1), "signal 1");
    }
}
