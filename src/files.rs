//! Reading input files and writing output files without harming the user's files.
//!
//! - [`write_atomic`]: every file perftlab writes (`--report`, `--svg`, `bench --plot`, plan directories,
//!   result files) is written to a temporary file beside the target, flushed and renamed over it when
//!   complete, so a run that fails (or is interrupted) leaves the old file as it was. A target that exists
//!   and is not a regular file (`/dev/stdout`, a FIFO) is written directly, never renamed over.
//! - [`check_outputs`]: an output path that is one of the run's inputs (same device and inode, or the same
//!   canonical path) is refused before any work, and so is a path whose directory cannot take a new file.
//! - [`read_input`]: inputs must be regular files (or standard input where a command documents `-`), at
//!   most [`MAX_INPUT_BYTES`] long, so `/dev/zero` or a FIFO never makes perftlab read without end.

use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Largest input file read (suite, plan, unit and result files): 256 MiB.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Longest line of a text input (a suite line): 64 KiB.
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// A unique temporary name beside `path`.
fn temp_beside(path: &Path) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = format!(
        ".{name}.perftlab-{}-{}.tmp",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    match dir {
        Some(d) => d.join(tmp),
        None => PathBuf::from(tmp),
    }
}

/// The path a write to `path` lands on: a symbolic link is followed (the link stays a link).
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Write `bytes` to `path` atomically: a temporary file beside it, fsync, rename over the target (under the
/// interruption lock), fsync of the directory. A reader, a crash or an interruption sees the old file or the
/// new one, never a part of it. An existing target that is not a regular file (a device, a FIFO) is written
/// directly. An existing file keeps its permissions.
///
/// # Errors
/// The I/O error; the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = resolved(path);
    let old = std::fs::metadata(&target).ok();
    if old.as_ref().is_some_and(|m| !m.is_file()) {
        let mut f = std::fs::OpenOptions::new().write(true).open(&target)?;
        return f.write_all(bytes).and_then(|()| f.flush());
    }
    let tmp = temp_beside(&target);
    crate::interrupt::remove_on_stop(&tmp);
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        if let Some(m) = &old {
            f.set_permissions(m.permissions())?;
        }
        f.sync_all()?;
        drop(f);
        let _guard = crate::interrupt::critical();
        std::fs::rename(&tmp, &target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    crate::interrupt::keep_on_stop(&tmp);
    written?;
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

/// Whether two paths name the same existing file (same device and inode on Unix; same canonical path).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Check output paths before any work: each `(flag, path)` must not be one of `inputs` (nor another
/// output), must not be a directory, and its directory must exist and take a new file.
///
/// # Errors
/// [`Error::Usage`] naming the flag and the path.
pub fn check_outputs(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    for (k, &(flag, out)) in outputs.iter().enumerate() {
        let shown = out.display();
        if out.as_os_str().is_empty() {
            return Err(Error::Usage(format!("{flag}: '' is not a file name")));
        }
        for &(what, input) in inputs {
            if same_file(out, input) {
                return Err(Error::Usage(format!(
                    "{flag}: '{shown}' is {what}, which this run reads; choose another file (perftlab never \
                     overwrites its own input)"
                )));
            }
        }
        for &(other, path) in &outputs[..k] {
            if out == path || same_file(out, path) {
                return Err(Error::Usage(format!(
                    "{flag}: '{shown}' is also the file of {other}; choose another file"
                )));
            }
        }
        let target = resolved(out);
        match std::fs::metadata(&target) {
            Ok(m) if m.is_dir() => {
                return Err(Error::Usage(format!(
                    "{flag}: '{shown}' is a directory, not a file"
                )))
            }
            // A device or FIFO is written directly; a regular file is replaced by a rename.
            Ok(m) if !m.is_file() => continue,
            _ => {}
        }
        // The directory must take the temporary file that replaces the target at the end.
        let tmp = temp_beside(&target);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(_) => {
                let _ = std::fs::remove_file(&tmp);
            }
            Err(e) => return Err(Error::Usage(format!("{flag}: cannot write '{shown}': {e}"))),
        }
    }
    Ok(())
}

/// Read an input file whole: it must be a regular file (a symbolic link to one is fine) of at most
/// `max_bytes` bytes. `what` names it in errors (`suite file`, `--checkpoint`).
///
/// # Errors
/// [`Error::Io`] with the path when it is missing, unreadable or too large; [`Error::Usage`] when it is not a
/// regular file. Both messages name `what` and the path.
pub fn read_input(what: &str, path: &Path, max_bytes: u64) -> Result<Vec<u8>> {
    let shown = path.display();
    let io = |e: std::io::Error| {
        let message = format!("cannot read {what} '{shown}': {e}");
        Error::io(path, e, message)
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a device, FIFO or socket)"
        };
        return Err(Error::Usage(format!(
            "cannot read {what} '{shown}': it is {kind}"
        )));
    }
    if meta.len() > max_bytes {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "it is {} bytes, longer than the limit of {max_bytes} bytes",
                meta.len()
            ),
        )));
    }
    let file = std::fs::File::open(path).map_err(io)?;
    // Room for the whole file at once (and the byte that tells a longer file): no copy as the buffer grows.
    let room = meta.len().min(max_bytes).saturating_add(1);
    let bytes = Vec::with_capacity(usize::try_from(room).unwrap_or(usize::MAX));
    read_bounded_into(file, max_bytes, bytes).map_err(io)
}

/// Read at most `max_bytes` from `r`; more is an error (without reading further).
///
/// # Errors
/// The I/O error, or [`std::io::ErrorKind::InvalidData`] when there is more.
pub fn read_bounded(r: impl Read, max_bytes: u64) -> std::io::Result<Vec<u8>> {
    read_bounded_into(r, max_bytes, Vec::new())
}

/// [`read_bounded`] into `bytes` (empty, perhaps with room already).
fn read_bounded_into(r: impl Read, max_bytes: u64, mut bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    r.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it is longer than the limit of {max_bytes} bytes"),
        ));
    }
    Ok(bytes)
}

/// The bytes as UTF-8 text with no line longer than [`MAX_LINE_BYTES`].
///
/// # Errors
/// A message naming the first line that is not text or too long.
pub fn text_lines(bytes: Vec<u8>) -> std::result::Result<String, String> {
    let text = utf8_text(bytes)?;
    if let Some((i, _)) = text
        .split('\n')
        .enumerate()
        .find(|(_, l)| l.len() > MAX_LINE_BYTES)
    {
        return Err(format!(
            "line {} is longer than the limit of {MAX_LINE_BYTES} bytes",
            i + 1
        ));
    }
    Ok(text)
}

/// The bytes as UTF-8 text (the line lengths not checked: [`text_lines`] does, and so does
/// `position_file::bounded_lines` as it splits the lines).
///
/// # Errors
/// A message naming the first line that is not text.
pub fn utf8_text(bytes: Vec<u8>) -> std::result::Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        format!("line {line} is not UTF-8 text")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_refuses_inputs() {
        let dir = std::env::temp_dir().join(format!("perftlab-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.txt");
        std::fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert!(check_outputs(&[("--report", &p)], &[("the suite file", &p)]).is_err());
        let q = dir.join("b.txt");
        assert!(check_outputs(&[("--report", &q)], &[("the suite file", &p)]).is_ok());
        assert!(!q.exists(), "the check leaves no file behind");
        assert!(check_outputs(&[("--svg", &dir)], &[]).is_err());
        assert!(read_input("x", Path::new("/dev/zero"), 10).is_err());
        assert!(read_bounded(&b"12345"[..], 4).is_err());
        assert_eq!(read_bounded(&b"1234"[..], 4).unwrap(), b"1234");
        assert!(text_lines(vec![b'a'; MAX_LINE_BYTES + 1]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
