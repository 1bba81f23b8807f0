//! The `perftlab` binary: a thin shell over [`perftlab::cli`].

fn main() {
    #[cfg(target_os = "linux")]
    if let Some(open) = stdout_probe::result() {
        perftlab::cli::record_stdout_at_start(open);
    }
    std::process::exit(perftlab::cli::main());
}

/// Whether file descriptor 1 was open when the process started. The standard library reopens a closed
/// descriptor 0–2 on `/dev/null` before `main`, after which a closed standard output (`perftlab perft >&-`)
/// cannot be told from a `/dev/null` the caller opened on purpose (Python's `subprocess.DEVNULL`). So the
/// descriptor is looked at earlier, by a function in `.init_array`, which the C runtime runs before the
/// Rust runtime's set-up.
#[cfg(target_os = "linux")]
mod stdout_probe {
    use std::sync::atomic::{AtomicU8, Ordering};

    /// 0: not probed (no `/proc`), 1: open, 2: closed.
    static STATE: AtomicU8 = AtomicU8::new(0);

    extern "C" fn probe() {
        // Without `/proc` nothing is known; with it, a missing `fd/1` entry means a closed descriptor.
        if std::fs::metadata("/proc/self/fd").is_ok() {
            let open = std::fs::symlink_metadata("/proc/self/fd/1").is_ok();
            STATE.store(if open { 1 } else { 2 }, Ordering::Relaxed);
        }
    }

    // Safety: `.init_array` entries are called once by the C runtime before `main`, single-threaded, with
    // (argc, argv, envp), which a C function of no parameters may ignore. `probe` only makes two `stat`
    // calls through the standard library (no state of the Rust runtime is needed for them) and stores an
    // atomic; it never panics across the FFI boundary (both calls return a `Result`).
    #[allow(unsafe_code)]
    #[used]
    #[unsafe(link_section = ".init_array")]
    static PROBE: extern "C" fn() = probe;

    /// `Some(open)` when the probe ran.
    pub fn result() -> Option<bool> {
        match STATE.load(Ordering::Relaxed) {
            1 => Some(true),
            2 => Some(false),
            _ => None,
        }
    }
}
