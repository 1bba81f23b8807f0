//! The documented limits of every command, checked before any work starts (bad values are errors, exit 2,
//! naming the offending value and the setting: by the name the caller passes, or, for memory, as an
//! [`Error::Memory`] kind whose setting the CLI names by its flag):
//!
//! - **depth** at most [`MAX_DEPTH`] plies: perft 15 of the initial position is the deepest count ever
//!   finished, but positions with a single line of play finish at any depth (`tricky.perft`'s `prison` is
//!   counted to depth 32), so the limit is set by what every generator's recursion handles (each backend is
//!   checked at the limit), not by time;
//! - **threads** at most [`MAX_THREADS`], with a warning above the number of cores;
//! - **memory**: a host hash table (the CLI's `--hash MB`) must fit the memory the machine has available
//!   (`MemAvailable` of `/proc/meminfo` on Linux), checked before allocating;
//! - **timeouts** between [`MIN_TIMEOUT_SECS`] and [`MAX_TIMEOUT_SECS`] seconds;
//! - **playout length** (`stress --max-plies`) at most [`MAX_PLIES`].

use crate::error::{Error, MemoryError, MemoryLimit, MemoryRequest, Result, Setting};
use std::time::Duration;

/// The deepest perft any command accepts, in plies.
pub const MAX_DEPTH: u32 = 64;

/// The most worker threads any command accepts.
pub const MAX_THREADS: usize = 1024;

/// The shortest engine timeout, in seconds.
pub const MIN_TIMEOUT_SECS: f64 = 0.001;

/// The longest engine timeout, in seconds (about 11.6 days).
pub const MAX_TIMEOUT_SECS: f64 = 1_000_000.0;

/// The longest random playout of `stress`, in plies.
pub const MAX_PLIES: u32 = 10_000;

/// Refuse a depth deeper than [`MAX_DEPTH`]; `what` names the flag or the suite line.
///
/// # Errors
/// [`Error::Usage`] naming `what`, the depth and the limit.
pub fn check_depth(what: &str, depth: u32) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(Error::Usage(format!(
            "{what}: depth '{depth}' is deeper than the maximum of {MAX_DEPTH} plies"
        )));
    }
    Ok(())
}

/// The number of cores (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Check a worker thread count named `what` (the CLI's `--threads`): 1..=[`MAX_THREADS`]. Returns a warning
/// when it is above the number of cores.
///
/// # Errors
/// [`Error::Usage`] for 0 or more than [`MAX_THREADS`], naming `what`.
pub fn check_threads(what: &str, threads: usize) -> Result<Option<String>> {
    check_thread_count(what, threads)?;
    // One thread is never more than the cores (whose count costs a dozen system calls: a server starting
    // `dead --scan --threads 1` per batch pays it each start).
    if threads == 1 {
        return Ok(None);
    }
    let cores = cores();
    Ok((threads > cores).then(|| {
        format!("{what} {threads} is more than the {cores} cores of this machine: expect it to be slower, not faster")
    }))
}

/// Check a thread count given by `flag` (`--threads`, `plan --cpus-per-unit`): 1..=[`MAX_THREADS`].
///
/// # Errors
/// [`Error::Usage`] for 0 or more than [`MAX_THREADS`], naming `flag`.
pub fn check_thread_count(flag: &str, threads: usize) -> Result<()> {
    if threads == 0 {
        return Err(Error::Usage(format!(
            "{flag}: '0' is not a valid thread count (use 1 to {MAX_THREADS})"
        )));
    }
    if threads > MAX_THREADS {
        return Err(Error::Usage(format!(
            "{flag}: '{threads}' is more than the maximum of {MAX_THREADS} threads"
        )));
    }
    Ok(())
}

/// Memory the machine can give without swapping, in bytes (`MemAvailable` of `/proc/meminfo`); `None` when
/// unknown (not Linux).
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line
        .trim_start_matches("MemAvailable:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kb.checked_mul(1024)
}

/// Check a host memory budget of `mb` MiB for `setting` against [`available_memory`].
///
/// # Errors
/// [`Error::Memory`] with the request and the available memory (the CLI names the setting's flag).
pub fn check_host_memory(setting: Setting, mb: u64) -> Result<()> {
    check_host_memory_of(vec![MemoryRequest {
        setting,
        mib: mb,
        default: false,
    }])
}

/// Check memory requests that are allocated together against [`available_memory`].
///
/// # Errors
/// [`Error::Memory`] with the requests and the available memory.
pub fn check_host_memory_of(wanted: Vec<MemoryRequest>) -> Result<()> {
    let mb = wanted.iter().fold(0u64, |t, r| t.saturating_add(r.mib));
    let avail = available_memory();
    let limit = match (mb.checked_mul(1 << 20), avail) {
        (None, avail) => MemoryLimit::Impossible {
            available_mib: avail.map(|a| a >> 20),
        },
        (Some(b), Some(avail)) if b > avail => MemoryLimit::Host {
            available_mib: avail >> 20,
        },
        _ => return Ok(()),
    };
    Err(MemoryError::TooMuch { wanted, limit }.into())
}

/// Parse an engine timeout in seconds.
///
/// # Errors
/// [`Error::Usage`] naming `flag`, the value and the accepted range.
pub fn timeout(flag: &str, secs: f64) -> Result<Duration> {
    if !(MIN_TIMEOUT_SECS..=MAX_TIMEOUT_SECS).contains(&secs) {
        return Err(Error::Usage(format!(
            "{flag}: '{secs}' is not a number of seconds from {MIN_TIMEOUT_SECS} to {MAX_TIMEOUT_SECS}"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Check a random playout's length (`stress --max-plies`).
///
/// # Errors
/// [`Error::Setting`] of [`Setting::MaxPlies`] above [`MAX_PLIES`].
pub fn check_plies(plies: u32) -> Result<()> {
    if plies > MAX_PLIES {
        return Err(crate::error::SettingError::new(
            Setting::MaxPlies,
            Some(plies.to_string()),
            format!("is more than the maximum of {MAX_PLIES} plies"),
        )
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_limit() {
        assert!(check_depth("--depth", MAX_DEPTH).is_ok());
        let e = check_depth("--depth", MAX_DEPTH + 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--depth") && e.contains("'65'") && e.contains("64"),
            "{e}"
        );
    }

    #[test]
    fn timeout_range() {
        for bad in [0.0, -1.0, 1e20, f64::NAN, f64::INFINITY, 0.0001] {
            let e = timeout("--timeout", bad).unwrap_err().to_string();
            assert!(e.contains("--timeout") && e.contains("0.001"), "{e}");
        }
        assert_eq!(
            timeout("--timeout", 2.5).unwrap(),
            Duration::from_millis(2500)
        );
    }

    #[test]
    fn meminfo() {
        let text = "MemTotal:       24000000 kB\nMemAvailable:   16000000 kB\n";
        assert_eq!(parse_meminfo(text), Some(16_000_000 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn host_memory() {
        let e = check_host_memory(Setting::Hash, u64::MAX).unwrap_err();
        match &e {
            Error::Memory(m) => match &**m {
                MemoryError::TooMuch { wanted, limit } => {
                    assert_eq!(wanted[0].setting, Setting::Hash);
                    assert_eq!(wanted[0].mib, u64::MAX);
                    assert!(matches!(limit, MemoryLimit::Impossible { .. }), "{limit:?}");
                }
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
        let text = e.to_string();
        assert!(
            text.starts_with("hash size: '18446744073709551615' MiB"),
            "{text}"
        );
        assert!(!text.contains("--"), "the library names no flag: {text}");
        assert!(check_host_memory(Setting::Hash, 1).is_ok());
        if let Some(avail) = available_memory() {
            let e = check_host_memory(Setting::Hash, (avail >> 20) + 1)
                .unwrap_err()
                .to_string();
            assert!(e.contains("available"), "{e}");
        }
    }

    #[test]
    fn threads() {
        assert!(check_threads("t", 0).is_err());
        assert!(check_threads("t", MAX_THREADS + 1).is_err());
        assert_eq!(check_threads("t", 1).unwrap(), None);
        assert!(check_threads("t", cores() + 1).unwrap().is_some());
    }
}
