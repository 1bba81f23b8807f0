//! The checkpoint journal: one JSON line per finished position of the split frontier, appended as each
//! finishes (a batch's lines in one write, on a backend that counts batches), so a killed run loses only the
//! positions in flight.
//!
//! Line 1 is a sealed header (see [`super::seal`]) whose `identity` says what the journal is for (root, depth,
//! split ply, statistics, the SHA-256 of the frontier's position list, …). Every further line is a sealed
//! record `{"i": index, "fen": …, "journal": header checksum, "nodes": …, "stats": {…}}`. Opening refuses, with
//! a message naming the file (exit 2), a journal for another identity, a damaged line (bad JSON, checksum
//! mismatch, index or FEN not those of the frontier) and duplicates that disagree. A last line without its
//! newline (the process died while writing it) is dropped with a warning and overwritten.

use super::seal::{is_sealed, seal};
use super::work::{PieceResult, Recorder};
use crate::error::{Error, Part, Result, Setting, SettingError};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Longest journal record accepted when reading (a record with the full statistics columns is well below).
const MAX_RECORD_BYTES: u64 = 4096;

/// An open journal.
pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
    header_sha: String,
    /// Finished positions read from the file or recorded since.
    pub done: BTreeMap<usize, PieceResult>,
    /// The warning for a last line cut off by a killed run (dropped and counted again), for the caller to
    /// show.
    pub cut_off: Option<String>,
}

/// The fields in which two identities differ: `depth 5 (this run: 6), plan_sha256 1a2b3c4d… (this run: …)`.
fn differences(had: &Value, want: &Value) -> String {
    let short = |v: &Value| {
        let t = v.to_string();
        if t.chars().count() > 20 {
            format!("{}…", t.chars().take(18).collect::<String>())
        } else {
            t
        }
    };
    let (Some(a), Some(b)) = (had.as_object(), want.as_object()) else {
        return "not an identity".into();
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            let show = |v: Option<&Value>| v.map_or("(none)".to_string(), short);
            format!("{k} {} (this run: {})", show(a.get(k)), show(b.get(k)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl Journal {
    /// Open (or create) the journal at `path` for `identity`; `fens[i]` is the FEN of position `i`.
    ///
    /// # Errors
    /// [`Error::Usage`] for an unreadable, foreign or damaged journal, naming the file and the line; a count's
    /// journal of other arguments is [`Error::Setting`] of [`Setting::Checkpoint`].
    pub fn open<S: AsRef<str>>(path: &Path, identity: Value, fens: &[S]) -> Result<Journal> {
        let name = path.display().to_string();
        let io = |e: std::io::Error| Error::Usage(format!("{name}: {e}"));
        // A journal is a regular file (or not there yet) of bounded size: a device such as /dev/full or
        // /dev/zero would be read without end.
        let max = (fens.len() as u64 + 1).saturating_mul(MAX_RECORD_BYTES);
        let text = match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(e)),
            Ok(m) if m.is_dir() => {
                return Err(Error::Usage(format!(
                    "{name}: is a directory, not a checkpoint journal file"
                )))
            }
            Ok(m) if !m.is_file() => {
                return Err(Error::Usage(format!(
                    "{name}: is not a regular file (a device, FIFO or socket); a checkpoint journal must be \
                     a file"
                )))
            }
            Ok(_) => {
                let bytes = crate::files::read_input("the checkpoint journal", path, max)?;
                String::from_utf8(bytes).map_err(|_| {
                    Error::Usage(format!(
                        "{name}: damaged checkpoint journal (not UTF-8 text); refusing to resume from it"
                    ))
                })?
            }
        };
        let mut header = Map::new();
        header.insert("perftlab_journal".into(), Value::from(1));
        header.insert("identity".into(), identity.clone());
        let header = seal(header);
        let header_sha = header["sha256"].as_str().unwrap_or_default().to_string();
        let mut done = BTreeMap::new();
        let mut cut_off = None;
        let mut good_len = 0usize;
        if !text.is_empty() {
            let mut offset = 0usize;
            for (n, line) in text.split_inclusive('\n').enumerate() {
                let lineno = n + 1;
                if !line.ends_with('\n') {
                    cut_off = Some(format!(
                        "warning: {name}: line {lineno} was cut off (the run was killed while writing \
                         it); it is dropped and that position is counted again"
                    ));
                    break;
                }
                let damaged = |why: &str| {
                    Error::Usage(format!(
                        "{name}: damaged checkpoint journal at line {lineno} ({why}); refusing to resume \
                         from it (delete the file to start over)"
                    ))
                };
                let v: Value = serde_json::from_str(line).map_err(|_| damaged("not JSON"))?;
                if !is_sealed(&v) {
                    return Err(damaged("checksum mismatch"));
                }
                if lineno == 1 {
                    if v.get("perftlab_journal").is_none() {
                        return Err(damaged("not a perftlab checkpoint journal"));
                    }
                    if v["identity"] != identity {
                        let why = format!(
                            "{name}: this checkpoint journal is for other arguments ({}); delete it to start \
                             over",
                            differences(&v["identity"], &identity),
                        );
                        if identity["command"] != "perft" {
                            return Err(Error::Usage(why));
                        }
                        // A count's journal is a setting of the count: its caller names it.
                        return Err(SettingError {
                            setting: Setting::Checkpoint,
                            value: None,
                            reason: vec![
                                Part::Text(why + " or use another "),
                                Part::Setting(Setting::Checkpoint),
                                Part::Text(" file".into()),
                            ],
                        }
                        .into());
                    }
                } else {
                    if v["journal"].as_str() != Some(header_sha.as_str()) {
                        return Err(damaged("record of another journal"));
                    }
                    let i = v["i"]
                        .as_u64()
                        .map(|i| i as usize)
                        .filter(|&i| i < fens.len())
                        .ok_or_else(|| damaged("position index out of range"))?;
                    if v["fen"].as_str() != Some(fens[i].as_ref()) {
                        return Err(damaged("FEN is not that of the position"));
                    }
                    let r = PieceResult::from_json(&v).ok_or_else(|| damaged("bad result"))?;
                    if let Some(old) = done.get(&i) {
                        if *old != r {
                            return Err(damaged("two records of one position disagree"));
                        }
                    }
                    done.insert(i, r);
                }
                offset += line.len();
                good_len = offset;
            }
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(io)?;
        file.set_len(good_len as u64).map_err(io)?;
        use std::io::Seek;
        file.seek(std::io::SeekFrom::End(0)).map_err(io)?;
        if good_len == 0 {
            file.write_all(format!("{header}\n").as_bytes())
                .map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        Ok(Journal {
            path: path.to_path_buf(),
            file,
            header_sha,
            done,
            cut_off,
        })
    }

    /// Flush the journal to disk (fsync).
    pub fn sync(&self) {
        let _ = self.file.sync_data();
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The checksum of the journal's header (its identity).
    pub fn header_sha(&self) -> &str {
        &self.header_sha
    }
}

impl Recorder for Journal {
    fn done(&self) -> &BTreeMap<usize, PieceResult> {
        &self.done
    }

    /// Append one line per finished position, all in one write under the interruption lock (a batch is
    /// recorded whole or, when the process dies in the write, up to a cut-off last line that the next open
    /// drops).
    fn record(&mut self, finished: &[(usize, &str, &PieceResult)]) -> Result<()> {
        let mut text = String::new();
        for &(i, fen, r) in finished {
            let mut obj = r.to_json();
            obj.insert("i".into(), Value::from(i as u64));
            obj.insert("fen".into(), Value::from(fen));
            obj.insert("journal".into(), Value::from(self.header_sha.as_str()));
            text.push_str(&format!("{}\n", seal(obj)));
        }
        {
            let _guard = crate::interrupt::critical();
            self.file
                .write_all(text.as_bytes())
                .map_err(|e| Error::Usage(format!("{}: {e}", self.path.display())))?;
        }
        for &(i, _, r) in finished {
            self.done.insert(i, r.clone());
        }
        Ok(())
    }

    fn sync(&self) {
        Journal::sync(self);
    }
}
