//! The identity of the running build, which seals a hash table snapshot ([`super::snapshot`]): a snapshot is
//! loaded only by the build that wrote it, since another build may store other counts under the same keys.
//!
//! The identity is the SHA-256 of the executable file. Hashing it (60 MB) costs about 50 ms of CPU in every
//! process that writes or loads a snapshot, which a plan of many short work units pays once per unit. So a
//! snapshot's header also records where that hash came from: the executable's file identity (device, inode,
//! length, modification and status-change times, [`exe_identity`]). A process whose executable has the same
//! file identity as the one that wrote a snapshot it reads takes the hash from that header
//! ([`adopt_from`]) instead of hashing the file again; any other process (another node of a cluster, a
//! rebuilt or copied binary: a new inode or new times) hashes its executable and compares the hash itself, so
//! a stale hash in a header is never taken for the running build. The status-change time cannot be set by a
//! user, so a file rewritten in place changes it.

use super::seal::is_sealed;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::io::{BufRead, Read};
use std::path::Path;
use std::sync::OnceLock;

static ID: OnceLock<Option<String>> = OnceLock::new();

/// The running executable's file identity (see the module header); `None` when it cannot be read.
pub fn exe_identity() -> Option<&'static Value> {
    static EXE: OnceLock<Option<Value>> = OnceLock::new();
    EXE.get_or_init(|| {
        let m = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
        identity_of(&m)
    })
    .as_ref()
}

#[cfg(unix)]
fn identity_of(m: &std::fs::Metadata) -> Option<Value> {
    use std::os::unix::fs::MetadataExt;
    Some(json!({
        "dev": m.dev(),
        "ino": m.ino(),
        "len": m.len(),
        "mtime_ns": (m.mtime() as i128) * 1_000_000_000 + m.mtime_nsec() as i128,
        "ctime_ns": (m.ctime() as i128) * 1_000_000_000 + m.ctime_nsec() as i128,
    }))
}

#[cfg(not(unix))]
fn identity_of(_m: &std::fs::Metadata) -> Option<Value> {
    None
}

/// The SHA-256 of the running executable (hex): taken from a snapshot header by [`adopt_from`], else computed
/// once. `None` when the executable cannot be read.
pub fn build_id() -> Option<&'static str> {
    ID.get_or_init(hash_exe).as_deref()
}

fn hash_exe() -> Option<String> {
    let mut f = std::fs::File::open(std::env::current_exe().ok()?).ok()?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        match f.read(&mut buf).ok()? {
            0 => break,
            n => h.update(&buf[..n]),
        }
    }
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// If the snapshot at `path` has a sealed header written by this very executable file (its `exe` is
/// [`exe_identity`]), take its `build` as [`build_id`] (when that is not known yet), saving the hash of the
/// executable. Reads at most the header line; does nothing when the file is absent or its header is not so.
pub fn adopt_from(path: &Path, max_header: u64) {
    if ID.get().is_some() {
        return;
    }
    let Some(mine) = exe_identity() else {
        return;
    };
    let Ok(f) = std::fs::File::open(path) else {
        return;
    };
    let mut line = Vec::new();
    if std::io::BufReader::new(f)
        .take(max_header)
        .read_until(b'\n', &mut line)
        .is_err()
    {
        return;
    }
    let Ok(had) = serde_json::from_slice::<Value>(&line) else {
        return;
    };
    if !is_sealed(&had) || had.get("exe") != Some(mine) {
        return;
    }
    if let Some(Value::String(b)) = had.get("build") {
        if b.len() == 64 && b.bytes().all(|c| c.is_ascii_hexdigit()) {
            let _ = ID.set(Some(b.clone()));
        }
    }
}
