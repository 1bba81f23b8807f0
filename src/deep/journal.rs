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

use super::seal::{is_plain_json_str, is_sealed, push_json_str, seal, sha256_hex};
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
                if lineno > 1 {
                    let (i, r) = read_record(line, &header_sha, fens).map_err(damaged)?;
                    if done.get(&i).is_some_and(|old| *old != r) {
                        return Err(damaged("two records of one position disagree"));
                    }
                    done.insert(i, r);
                } else {
                    check_header(line, &identity, &name).map_err(|why| match why {
                        HeaderError::Damaged(why) => damaged(why),
                        HeaderError::Other(e) => e,
                    })?;
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

/// Why a journal's first line is refused ([`check_header`]).
enum HeaderError {
    /// Not a sealed journal header: the reason, for the damaged-journal message.
    Damaged(&'static str),
    /// A journal for other arguments.
    Other(Error),
}

/// Check the header line of the journal `name` against this run's `identity`.
fn check_header(line: &str, identity: &Value, name: &str) -> std::result::Result<(), HeaderError> {
    let v: Value = serde_json::from_str(line).map_err(|_| HeaderError::Damaged("not JSON"))?;
    if !is_sealed(&v) {
        return Err(HeaderError::Damaged("checksum mismatch"));
    }
    if v.get("perftlab_journal").is_none() {
        return Err(HeaderError::Damaged("not a perftlab checkpoint journal"));
    }
    if v["identity"] == *identity {
        return Ok(());
    }
    let why = format!(
        "{name}: this checkpoint journal is for other arguments ({}); delete it to start over",
        differences(&v["identity"], identity),
    );
    if identity["command"] != "perft" {
        return Err(HeaderError::Other(Error::Usage(why)));
    }
    // A count's journal is a setting of the count: its caller names it.
    Err(HeaderError::Other(
        SettingError {
            setting: Setting::Checkpoint,
            value: None,
            reason: vec![
                Part::Text(why + " or use another "),
                Part::Setting(Setting::Checkpoint),
                Part::Text(" file".into()),
            ],
        }
        .into(),
    ))
}

/// What a record line says, before it is checked against the journal ([`check_record`]).
struct Record<'a> {
    i: Option<u64>,
    fen: Option<&'a str>,
    journal: Option<&'a str>,
    result: Option<PieceResult>,
}

/// Read and check a record line (after the header): its position's index and result, or why it is damaged.
/// A line in the form [`push_record`] writes is read without a JSON tree ([`plain_record`]); any other (an older
/// form, statistics, escapes, an edit) through one, as before.
fn read_record<S: AsRef<str>>(
    line: &str,
    header_sha: &str,
    fens: &[S],
) -> std::result::Result<(usize, PieceResult), &'static str> {
    if let Some(rec) = plain_record(line) {
        return check_record(rec, header_sha, fens);
    }
    let v: Value = serde_json::from_str(line).map_err(|_| "not JSON")?;
    if !is_sealed(&v) {
        return Err("checksum mismatch");
    }
    let rec = Record {
        i: v["i"].as_u64(),
        fen: v["fen"].as_str(),
        journal: v["journal"].as_str(),
        result: PieceResult::from_json(&v),
    };
    check_record(rec, header_sha, fens)
}

/// Check a record against the journal's header checksum and the frontier's FENs.
fn check_record<S: AsRef<str>>(
    rec: Record<'_>,
    header_sha: &str,
    fens: &[S],
) -> std::result::Result<(usize, PieceResult), &'static str> {
    if rec.journal != Some(header_sha) {
        return Err("record of another journal");
    }
    let i = rec
        .i
        .map(|i| i as usize)
        .filter(|&i| i < fens.len())
        .ok_or("position index out of range")?;
    if rec.fen != Some(fens[i].as_ref()) {
        return Err("FEN is not that of the position");
    }
    Ok((i, rec.result.ok_or("bad result")?))
}

/// Append the sealed record line of position `i` (FEN `fen`, result `r`) of the journal with header checksum
/// `journal`: the text [`seal`] gives the object `{fen, i, journal, nodes, stats}` (keys in order), written
/// directly when there are no statistics (a unit or a count writes tens of thousands: about a microsecond each
/// through a JSON object, twice serialized), else through the object.
fn push_record(out: &mut String, i: usize, fen: &str, journal: &str, r: &PieceResult) {
    if r.stats.is_some() || !is_plain_json_str(journal) {
        let mut obj = r.to_json();
        obj.insert("i".into(), Value::from(i as u64));
        obj.insert("fen".into(), Value::from(fen));
        obj.insert("journal".into(), Value::from(journal));
        out.push_str(&format!("{}\n", seal(obj)));
        return;
    }
    let start = out.len();
    out.push_str("{\"fen\":");
    push_json_str(out, fen);
    out.push_str(&format!(
        ",\"i\":{i},\"journal\":\"{journal}\",\"nodes\":{}}}",
        r.nodes
    ));
    let sum = sha256_hex(&out.as_bytes()[start..]);
    out.pop();
    out.push_str(&format!(",\"sha256\":\"{sum}\"}}\n"));
}

/// A record line exactly as [`push_record`] writes it without statistics (`{"fen":…,"i":…,"journal":…,
/// "nodes":…,"sha256":…}`, no escapes, numbers without leading zeros) whose checksum matches: then its text
/// without the `sha256` field is the text [`is_sealed`] would check, so the line is what the JSON tree would
/// accept. `None` for any other line (read through the JSON tree).
fn plain_record(line: &str) -> Option<Record<'_>> {
    let body = line.strip_suffix('\n')?;
    let rest = body.strip_prefix("{\"fen\":\"")?;
    let (fen, rest) = rest.split_once('"')?;
    let (i, rest) = json_digits(rest.strip_prefix(",\"i\":")?)?;
    let (journal, rest) = rest.strip_prefix(",\"journal\":\"")?.split_once('"')?;
    let (nodes, rest) = json_digits(rest.strip_prefix(",\"nodes\":")?)?;
    let sum = rest.strip_prefix(",\"sha256\":\"")?.strip_suffix("\"}")?;
    if !is_plain_json_str(fen) || !is_plain_json_str(journal) || !is_plain_json_str(sum) {
        return None;
    }
    let unsealed = format!("{}}}", &body[..body.len() - rest.len()]);
    if sha256_hex(unsealed.as_bytes()) != sum {
        return None;
    }
    Some(Record {
        i: i.parse().ok(),
        fen: Some(fen),
        journal: Some(journal),
        result: Some(PieceResult {
            nodes: nodes.parse().ok()?,
            stats: None,
        }),
    })
}

/// The JSON integer at the start of `s` (digits, no leading zero) and what follows it.
fn json_digits(s: &str) -> Option<(&str, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || (n > 1 && s.starts_with('0')) {
        return None;
    }
    Some(s.split_at(n))
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
            push_record(&mut text, i, fen, &self.header_sha, r);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The record line as every journal wrote it before the direct writer: the sealed JSON object.
    fn sealed_line(i: usize, fen: &str, journal: &str, r: &PieceResult) -> String {
        let mut obj = r.to_json();
        obj.insert("i".into(), Value::from(i as u64));
        obj.insert("fen".into(), Value::from(fen));
        obj.insert("journal".into(), Value::from(journal));
        format!("{}\n", seal(obj))
    }

    fn result(nodes: u128, stats: bool) -> PieceResult {
        let stats = stats.then(|| [("captures".to_string(), 34u128)].into_iter().collect());
        PieceResult { nodes, stats }
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn records_are_written_as_the_sealed_object_and_read_back_with_or_without_the_json_tree() {
        let journal = sha256_hex(b"header");
        // Start perft 15 (CPW) exceeds u64; a FEN with a quote and a backslash takes the escaped path.
        let odd = "8/8/8/8/8/8/8/K\"k\\ w - - 0 1";
        let cases = [
            (0, START, result(0, false)),
            (7, START, result(20, false)),
            (72_077, START, result(2_015_099_950_053_364_471_960, false)),
            (3, START, result(8_902, true)),
            (1, odd, result(5, false)),
        ];
        let fens: Vec<&str> = (0..72_078)
            .map(|i| if i == 1 { odd } else { START })
            .collect();
        for (i, fen, r) in &cases {
            let mut line = String::new();
            push_record(&mut line, *i, fen, &journal, r);
            assert_eq!(line, sealed_line(*i, fen, &journal, r));
            let plain = r.stats.is_none() && *fen == START;
            assert_eq!(plain_record(&line).is_some(), plain, "{line}");
            assert_eq!(read_record(&line, &journal, &fens), Ok((*i, r.clone())));
        }
    }

    #[test]
    fn a_record_read_without_the_json_tree_is_refused_as_the_tree_refuses_it() {
        let journal = sha256_hex(b"header");
        let fens = [START; 8];
        let mut line = String::new();
        push_record(&mut line, 5, START, &journal, &result(8_902, false));
        // An edited count: the checksum no longer matches.
        let edited = line.replace("\"nodes\":8902", "\"nodes\":8903");
        assert!(plain_record(&edited).is_none());
        assert_eq!(
            read_record(&edited, &journal, &fens),
            Err("checksum mismatch")
        );
        // Another journal's record, an index beyond the frontier, another FEN.
        assert_eq!(
            read_record(&line, &sha256_hex(b"other"), &fens),
            Err("record of another journal")
        );
        assert_eq!(
            read_record(&line, &journal, &fens[..5]),
            Err("position index out of range")
        );
        let other = ["8/8/8/8/8/8/8/K6k w - - 0 1"; 8];
        assert_eq!(
            read_record(&line, &journal, &other),
            Err("FEN is not that of the position")
        );
        // Not the direct writer's form (a leading zero, a space), sealed or not: read through the tree.
        assert!(plain_record(&line.replace(",\"i\":5,", ",\"i\":05,")).is_none());
        let spaced = line.replacen(',', ", ", 1);
        assert!(plain_record(&spaced).is_none());
        assert_eq!(
            read_record(&spaced, &journal, &fens),
            Ok((5, result(8_902, false)))
        );
    }
}
