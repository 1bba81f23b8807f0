//! Snapshots of the backend's hash table beside a checkpoint journal, so that a resumed run starts with the
//! table the killed run had (the subtrees one ply below the split that the frontier's positions share), not an
//! empty one.
//!
//! The table is reached through [`TableStore`] (the command line implements it for the CPU backend; this
//! module does not know the backend). A snapshot `JOURNAL.table` is:
//! 1. one line of sealed JSON ([`super::seal`]) naming what the table is for: the build (SHA-256 of the
//!    running executable, and the file identity it was taken from: [`super::build`]), the Zobrist seed, the
//!    table's bytes and buckets, the record size, the smallest depth kept and the journal's header checksum
//!    (its identity);
//! 2. one or more segments, each the number of its records (u64, little-endian), the records (table entries
//!    of that depth or more) and a SHA-256 chained over the file: of the header and, for every segment so far,
//!    its records then its count. The first segment (the base) holds the whole table, streamed from it
//!    ([`TableStore::export`]: no copy of the table is made in memory); each later one (a delta) only the
//!    entries stored since the segment before ([`TableStore::export`] with the tags of what was written).
//!
//! The base is written to a temporary file and renamed (a reader sees the old snapshot or the new one, never
//! half of one); deltas are appended in one write each, so a `kill -9` during one leaves a last segment cut
//! off, which the loader drops (keeping the segments before it). Snapshots are taken every few journal writes
//! ([`Snapshots`]: at most about 2 % of the run's time goes to them); a delta costs a scan of the table and
//! the writing of what is new, so they come more often than whole snapshots did and a `kill -9` loses less.
//! Once the deltas add up to the base's size the next snapshot is a new base (compaction). On resume it is
//! loaded only when its header is the one this run would write (else it is ignored, and the caller says so);
//! its records are stored as they are read and, when a whole segment's checksum does not match (an edited or
//! damaged file), the table is cleared again before any counting.
//! Every entry is an exact subtree count keyed by the position's two hashes, so an accepted snapshot cannot
//! change a count; a rejected one costs only the time to refill the table.

use super::build;
use super::journal::Journal;
use super::seal::{is_sealed, seal};
use super::work::{self, PieceResult, Recorder};
use crate::backend::{Backend, Detail};
use crate::error::Result;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The size and keys of a hash table, part of a snapshot's seal: entries are placed by bucket and keyed by the
/// Zobrist keys, so they are valid only in a table of the same buckets hashed with the same keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableShape {
    /// The seed of the Zobrist keys.
    pub zobrist_seed: u64,
    /// Bytes of the table.
    pub bytes: u64,
    /// Buckets of the table.
    pub buckets: u64,
    /// Bytes of one exported entry.
    pub record_bytes: usize,
}

/// A backend's hash table of subtree counts, as a snapshot sees it.
pub trait TableStore: Send + Sync {
    /// The table in use, or `None` when there is none to save (hashing off, or a table of statistics).
    fn shape(&self) -> Option<TableShape>;
    /// Stream the entries whose depth is in `depths` to `sink` in records of [`TableShape::record_bytes`];
    /// returns the number of records. With `seen` (a byte per entry, kept by the caller between exports and
    /// resized by the store), only the entries that changed since the export that last used it
    /// (`crate::fast::hash::HashTable::export_changed`).
    ///
    /// # Errors
    /// What `sink` returns.
    fn export(
        &self,
        depths: std::ops::Range<u32>,
        seen: Option<&mut Vec<u8>>,
        sink: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<u64>;
    /// Store whole exported records; false at a record no export of this table writes.
    fn import(&self, records: &[u8]) -> bool;
    /// Forget every entry.
    fn clear(&self);
}

/// Bytes of a segment besides its records: the record count (8 bytes) and the SHA-256 (32 bytes).
const SEGMENT_BYTES: u64 = 40;

/// Longest header line accepted.
const MAX_HEADER_BYTES: u64 = 4096;

/// Shortest time before the first snapshot of a run ([`first_interval`]).
const FIRST_INTERVAL: Duration = Duration::from_secs(1);

/// Shortest time between two snapshots.
const MIN_INTERVAL: Duration = Duration::from_secs(1);

/// Snapshots wait at least this many times the last one's writing time (so at most about 2 % of the run's
/// wall time goes to them).
const INTERVAL_PER_COST: u32 = 50;

/// Where a snapshot is written and what with: shared by the run and its [`crate::interrupt`] stop hook, which
/// writes it once more when SIGINT or SIGTERM stops the run (`writing` keeps the two from writing at once).
struct Target {
    store: Arc<dyn TableStore>,
    path: PathBuf,
    /// The header's fields but the build: [`Target::header`] adds it when a snapshot is first loaded or
    /// written, so that a run that ends before its first snapshot never hashes its executable (about 50 ms of
    /// CPU for a 60 MB build: at start perft 7, most of a `--checkpoint` run's cost above the plain count).
    fields: Map<String, Value>,
    /// The header line this run writes (and accepts), sealed; `None` inside when the build cannot be named.
    header: OnceLock<Option<String>>,
    depths: Depths,
    /// What the file holds now (one writer at a time).
    chain: Mutex<Chain>,
    /// Nanoseconds the last whole (base) snapshot took to write (0: none written yet): a delta takes less.
    last_cost_ns: AtomicU64,
}

/// Why a snapshot is neither loaded nor written when the running build has no name ([`build::build_id`]).
const NO_BUILD: &str = "the running build cannot be named (its executable cannot be read)";

impl Target {
    /// The sealed header line ([`Target::fields`] and the build, [`build::build_id`], hashed on the first
    /// call unless a snapshot header of this very executable file gave it); `None` when the build cannot be
    /// named.
    fn header(&self) -> Option<&str> {
        self.header
            .get_or_init(|| {
                let mut m = self.fields.clone();
                m.insert("build".into(), Value::from(build::build_id()?));
                Some(format!("{}\n", seal(m)))
            })
            .as_deref()
    }
}

/// The state of the snapshot file this process wrote: what a delta appends to.
#[derive(Default)]
struct Chain {
    /// The tag of each table entry last written ([`TableStore::export`]'s `seen`).
    seen: Vec<u8>,
    /// The chained SHA-256 over the file as it is now; `None` when no base was written by this process (or
    /// an append failed), so the next snapshot is a base.
    sha: Option<Sha256>,
    /// Bytes of the base segment and of the deltas after it.
    base_bytes: u64,
    delta_bytes: u64,
}

/// Longest time the snapshot written as SIGINT or SIGTERM stops the run may be expected to take: the process
/// stops within about a second ([`crate::interrupt`]), so a bigger table keeps the last periodic snapshot.
pub const STOP_WRITE_LIMIT: Duration = Duration::from_secs(1);

/// Bytes of table a snapshot is assumed to scan and write per second before one has been timed.
const ASSUMED_BYTES_PER_SECOND: u64 = 2 << 30;

/// Whether the snapshot may be written as the run stops: `Err(why)` when the last periodic one took longer
/// than [`STOP_WRITE_LIMIT`] or, before any was written, when a table of `table_bytes` would (at
/// [`ASSUMED_BYTES_PER_SECOND`]).
pub fn stop_write_allowed(
    last: Option<Duration>,
    table_bytes: u64,
) -> std::result::Result<(), String> {
    let (expected, how) = match last {
        Some(d) => (d, "the last one took"),
        None => (
            Duration::from_secs_f64(table_bytes as f64 / ASSUMED_BYTES_PER_SECOND as f64),
            "none was timed yet and the table's size gives",
        ),
    };
    if expected <= STOP_WRITE_LIMIT {
        return Ok(());
    }
    Err(format!(
        "the hash table snapshot was not written as the run stopped ({how} {:.1} s, more than the {} s \
         allowed): the resumed run loads the last periodic one",
        expected.as_secs_f64(),
        STOP_WRITE_LIMIT.as_secs()
    ))
}

/// The time before the first snapshot of a run whose table has `table_bytes`: [`INTERVAL_PER_COST`] times what
/// the snapshot is expected to take at [`ASSUMED_BYTES_PER_SECOND`] (every snapshot scans the whole table), at
/// least [`FIRST_INTERVAL`]. So the first snapshot, like the later ones, costs at most about 2 % of the run's
/// time: with the default 64 MiB table it comes after 1.56 s, not after 1 s, and a `run-unit` of a perft 8
/// shard (about 1.5 s on two threads) no longer scans its table once more than the plain count does (0.1 CPU
/// s, 5 % of the unit: docs/deep-runs.md, "session 57"). A `kill -9` before it keeps no table (the journal
/// keeps every finished position; SIGTERM and SIGINT write the snapshot as the run stops).
pub fn first_interval(table_bytes: u64) -> Duration {
    let expected = table_bytes as f64 / ASSUMED_BYTES_PER_SECOND as f64;
    FIRST_INTERVAL.max(Duration::from_secs_f64(
        expected * f64::from(INTERVAL_PER_COST),
    ))
}

/// The depths of the entries a snapshot keeps ([`depths`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Depths {
    /// The smallest depth kept (part of the seal).
    pub min: u32,
    /// The periodic snapshots and the shared table keep only the entries below this depth: those of depth
    /// `rest` are the frontier's own positions, each counted once and, at a batch's end, already in the journal
    /// (or, for the shared table, in no other shard). The snapshot written as SIGINT or SIGTERM stops the run
    /// keeps them too: they are the finished positions of the batch in flight, which the journal lacks.
    pub below: u32,
}

/// The table snapshot of one journal: where it lives, what it is sealed with, when the next is due.
pub struct Snapshots {
    target: Arc<Target>,
    last: Instant,
    interval: Duration,
    /// Set when a write failed: no more snapshots are tried; the warning for the caller to show.
    pub failed: Option<String>,
}

impl Snapshots {
    /// The snapshot beside the journal at `journal` (`JOURNAL.table`) of `store`'s table, keeping entries of
    /// the depths `depths` ([`depths`]), sealed with the journal's header checksum `journal_sha`; `None` when the
    /// backend has no table to save. The build is named (its executable hashed) only when a snapshot is
    /// first loaded or written ([`Target::header`]); a build that cannot be named writes none (the first
    /// write fails, [`Snapshots::failed`] says why) and loads none.
    pub fn new(
        store: Arc<dyn TableStore>,
        journal: &Path,
        journal_sha: &str,
        depths: Depths,
    ) -> Option<Snapshots> {
        let mut path = journal.as_os_str().to_owned();
        path.push(".table");
        Snapshots::at(store, PathBuf::from(path), journal_sha, depths)
    }

    /// The snapshot at `path`, sealed with `owner` (a journal's or a plan's checksum).
    pub fn at(
        store: Arc<dyn TableStore>,
        path: PathBuf,
        owner: &str,
        depths: Depths,
    ) -> Option<Snapshots> {
        let shape = store.shape()?;
        build::adopt_from(&path, MAX_HEADER_BYTES);
        let fields = json!({
            "perftlab_table": 1,
            "exe": build::exe_identity(),
            "zobrist_seed": shape.zobrist_seed,
            "table_bytes": shape.bytes,
            "buckets": shape.buckets,
            "record_bytes": shape.record_bytes,
            "min_depth": depths.min,
            "journal": owner,
        })
        .as_object()?
        .clone();
        Some(Snapshots {
            target: Arc::new(Target {
                store,
                path,
                fields,
                header: OnceLock::new(),
                depths,
                chain: Mutex::new(Chain::default()),
                last_cost_ns: AtomicU64::new(0),
            }),
            last: Instant::now(),
            interval: first_interval(shape.bytes),
            failed: None,
        })
    }

    /// Write the snapshot also when SIGINT or SIGTERM stops the run ([`crate::interrupt::set_stop_hook`]),
    /// until [`Snapshots::unhook`]: the entries stored since the last periodic snapshot (among them the
    /// finished positions of the batch in flight) are kept. The table is read while the workers go on
    /// storing; a record read torn is a miss once loaded ([`TableStore::export`]).
    pub fn hook_on_stop(&self) {
        let target = Arc::clone(&self.target);
        crate::interrupt::set_stop_hook(Some(Box::new(move || {
            let ns = target.last_cost_ns.load(Relaxed);
            let last = (ns > 0).then(|| Duration::from_nanos(ns));
            let bytes = target.store.shape().map_or(0, |s| s.bytes);
            match stop_write_allowed(last, bytes) {
                Ok(()) => {
                    let _ = target.write(true);
                }
                // Said with the stop message, which the signal watcher prints next.
                Err(why) => {
                    crate::interrupt::set_status(format!("{}; {why}", crate::interrupt::status()))
                }
            }
        })));
    }

    /// Remove the hook of [`Snapshots::hook_on_stop`] (waiting for it if it is writing).
    pub fn unhook(&self) {
        crate::interrupt::set_stop_hook(None);
    }

    /// The snapshot's path.
    pub fn path(&self) -> &Path {
        &self.target.path
    }

    /// Load the snapshot into the (empty) table: `Ok(None)` when there is none, `Ok(Some((n, torn)))` with the
    /// entries loaded and whether a last delta cut off by a kill was dropped, `Err(why)` when it is not this run's (other build, keys, table size or journal) or is
    /// damaged; a damaged one found after records were stored leaves the table cleared.
    pub fn load(&self) -> std::result::Result<Option<(u64, bool)>, String> {
        let t = &*self.target;
        let file = match std::fs::File::open(&t.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.to_string()),
            Ok(f) => f,
        };
        let len = file.metadata().map_err(|e| e.to_string())?.len();
        let mut r = std::io::BufReader::with_capacity(1 << 20, file);
        let mut line = Vec::new();
        (&mut r)
            .take(MAX_HEADER_BYTES)
            .read_until(b'\n', &mut line)
            .map_err(|e| e.to_string())?;
        let had: Value = serde_json::from_slice(&line).map_err(|_| "no header".to_string())?;
        if !is_sealed(&had) {
            return Err("its header's checksum does not match".into());
        }
        let want: Value = serde_json::from_str(t.header().ok_or_else(|| NO_BUILD.to_string())?)
            .map_err(|e| e.to_string())?;
        // Not the executable's file identity (another node's copy of the same build is the same build) nor
        // the checksum over it.
        let fields = |v: &Value| {
            let mut m = v.as_object().cloned().unwrap_or_default();
            m.remove("exe");
            m.remove("sha256");
            m
        };
        if fields(&had) != fields(&want) {
            let differ: Vec<&str> = [
                "perftlab_table",
                "build",
                "zobrist_seed",
                "table_bytes",
                "buckets",
                "record_bytes",
                "min_depth",
                "journal",
            ]
            .into_iter()
            .filter(|k| had.get(k) != want.get(k))
            .collect();
            return Err(format!("it is for another {}", differ.join(", ")));
        }
        let record = t.store.shape().map_or(1, |s| s.record_bytes) as u64;
        let mut h = Sha256::new();
        h.update(&line);
        let mut segments = Segments {
            r: &mut r,
            left: len.saturating_sub(line.len() as u64),
            record,
            sha: h,
        };
        let (mut entries, mut first) = (0u64, true);
        loop {
            match segments.next(&*t.store) {
                Segment::End => return Ok(Some((entries, false))),
                // A base cut off was not written by this program (it renames whole files): damaged. A delta
                // cut off is what a kill during its append leaves: the segments before it are whole.
                Segment::Torn if first => return Err("it is cut off (torn)".into()),
                Segment::Torn => return Ok(Some((entries, true))),
                Segment::Damaged(why) => {
                    t.store.clear();
                    return Err(why);
                }
                Segment::Loaded(n) => entries += n,
            }
            first = false;
        }
    }

    /// Write a snapshot now: a temporary file beside it, renamed over it when complete.
    ///
    /// # Errors
    /// The I/O error (the temporary file is removed).
    pub fn write(&mut self) -> std::io::Result<()> {
        let clock = Instant::now();
        let written = self.target.write(false);
        let cost = clock.elapsed();
        if let Ok(true) = written {
            let ns = u64::try_from(cost.as_nanos()).unwrap_or(u64::MAX).max(1);
            self.target.last_cost_ns.store(ns, Relaxed);
        }
        self.interval = MIN_INTERVAL.max(cost * INTERVAL_PER_COST);
        self.last = Instant::now();
        written.map(|_| ())
    }

    /// Write a snapshot when one is due (and none has failed).
    pub fn maybe_write(&mut self) {
        if self.failed.is_none() && self.last.elapsed() >= self.interval {
            if let Err(e) = self.write() {
                self.failed = Some(format!(
                    "warning: {}: cannot write the hash table snapshot ({e}); the run goes on without one",
                    self.path().display()
                ));
            }
        }
    }

    /// Remove the snapshot (the run is finished, or a new journal starts).
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.target.path);
    }
}

/// What [`Segments::next`] read.
enum Segment {
    /// The file ends where a segment would start.
    End,
    /// The file ends inside a segment (its count says more than is left).
    Torn,
    /// A whole segment whose records are not this table's or whose checksum does not match.
    Damaged(String),
    /// A whole segment of this many records, stored into the table.
    Loaded(u64),
}

/// The segments of a snapshot after its header: the reader, the bytes left, the record size, the chained
/// SHA-256 so far.
struct Segments<'r, R: Read> {
    r: &'r mut R,
    left: u64,
    record: u64,
    sha: Sha256,
}

impl<R: Read> Segments<'_, R> {
    /// Read the next segment, storing its records into `store` as they are read.
    fn next(&mut self, store: &dyn TableStore) -> Segment {
        if self.left == 0 {
            return Segment::End;
        }
        let mut count = [0u8; 8];
        if self.left < SEGMENT_BYTES || self.r.read_exact(&mut count).is_err() {
            return Segment::Torn;
        }
        let n = u64::from_le_bytes(count);
        let body = n.checked_mul(self.record);
        let Some(body) = body.filter(|b| *b <= self.left - SEGMENT_BYTES) else {
            return Segment::Torn;
        };
        let mut buf = vec![0u8; (1 << 20) / self.record as usize * self.record as usize];
        let (mut rest, mut foreign) = (body, false);
        while rest > 0 {
            let k = buf.len().min(rest as usize);
            if let Err(e) = self.r.read_exact(&mut buf[..k]) {
                return Segment::Damaged(e.to_string());
            }
            self.sha.update(&buf[..k]);
            // After a record that is not an entry of this table nothing more is stored, but the segment is
            // read to its end: a checksum that does not match says the file was edited.
            foreign = foreign || !store.import(&buf[..k]);
            rest -= k as u64;
        }
        self.sha.update(count);
        let mut digest = [0u8; 32];
        if let Err(e) = self.r.read_exact(&mut digest) {
            return Segment::Damaged(e.to_string());
        }
        self.left -= SEGMENT_BYTES + body;
        if self.sha.clone().finalize()[..] != digest {
            return Segment::Damaged("its checksum does not match (torn or edited)".into());
        }
        if foreign {
            return Segment::Damaged("a record is not an entry of this table".into());
        }
        Segment::Loaded(n)
    }
}

impl Target {
    /// Write the snapshot (one writer at a time): a delta appended to the file this process wrote, or a new
    /// base when there is none yet or the deltas add up to the base's size ([`Target::write_base`]); with
    /// `all`, the entries of the frontier's own depth too ([`Depths::below`]). Whether a base was written.
    fn write(&self, all: bool) -> std::io::Result<bool> {
        let mut chain = self.chain.lock().unwrap_or_else(|e| e.into_inner());
        let end = if all { u32::MAX } else { self.depths.below };
        if chain.sha.is_some() && (all || chain.delta_bytes < chain.base_bytes) {
            match self.append(&mut chain, end) {
                Ok(true) => return Ok(false),
                Ok(false) => {}
                Err(e) => {
                    chain.sha = None;
                    return Err(e);
                }
            }
        }
        self.write_base(&mut chain, end).map(|()| true)
    }

    /// Append the entries stored since the last segment as one segment, in one write: false (nothing
    /// written) when they would take the deltas past the base's size (a new base is due). A failed write is
    /// cut off again (the file as it was).
    fn append(&self, chain: &mut Chain, end: u32) -> std::io::Result<bool> {
        let room = chain.base_bytes.saturating_sub(chain.delta_bytes);
        let mut seg = vec![0u8; 8];
        let Chain { seen, sha, .. } = chain;
        let counted = self
            .store
            .export(self.depths.min..end, Some(seen), &mut |b| {
                if (seg.len() + b.len()) as u64 > room.max(1 << 20) {
                    return Err(std::io::Error::other("a new base is due"));
                }
                seg.extend_from_slice(b);
                Ok(())
            });
        let Ok(n) = counted else {
            return Ok(false);
        };
        let Some(sha) = sha.as_mut() else {
            return Ok(false);
        };
        sha.update(&seg[8..]);
        sha.update(n.to_le_bytes());
        seg[..8].copy_from_slice(&n.to_le_bytes());
        seg.extend_from_slice(&sha.clone().finalize());
        let mut f = std::fs::OpenOptions::new().append(true).open(&self.path)?;
        let before = f.metadata()?.len();
        let _guard = crate::interrupt::critical();
        if let Err(e) = f.write_all(&seg) {
            let _ = f.set_len(before);
            return Err(e);
        }
        chain.delta_bytes += seg.len() as u64;
        Ok(true)
    }

    /// Write a new base: a temporary file beside the snapshot, renamed over it when complete. The records go
    /// straight from the export's buffer to the file (no second buffer); their count, which comes first, is
    /// written in its place at the end.
    fn write_base(&self, chain: &mut Chain, end: u32) -> std::io::Result<()> {
        chain.sha = None;
        chain.seen.iter_mut().for_each(|t| *t = 0);
        let mut tmp = self.path.as_os_str().to_owned();
        tmp.push(format!(".tmp{}", std::process::id()));
        let tmp = PathBuf::from(tmp);
        crate::interrupt::remove_on_stop(&tmp);
        let written = (|| -> std::io::Result<(Sha256, u64)> {
            use std::io::{Seek, SeekFrom};
            let header = self
                .header()
                .ok_or_else(|| std::io::Error::other(NO_BUILD))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
            let mut h = Sha256::new();
            w.write_all(header.as_bytes())?;
            h.update(header.as_bytes());
            w.write_all(&[0u8; 8])?;
            let n = self
                .store
                .export(self.depths.min..end, Some(&mut chain.seen), &mut |b| {
                    h.update(b);
                    w.write_all(b)
                })?;
            h.update(n.to_le_bytes());
            w.write_all(&h.clone().finalize())?;
            let mut f = w.into_inner().map_err(|e| e.into_error())?;
            f.seek(SeekFrom::Start(header.len() as u64))?;
            f.write_all(&n.to_le_bytes())?;
            let bytes = f.seek(SeekFrom::End(0))?;
            let _guard = crate::interrupt::critical();
            std::fs::rename(&tmp, &self.path)?;
            Ok((h, bytes))
        })();
        crate::interrupt::keep_on_stop(&tmp);
        match written {
            Ok((h, bytes)) => {
                *chain = Chain {
                    seen: std::mem::take(&mut chain.seen),
                    sha: Some(h),
                    base_bytes: bytes,
                    delta_bytes: 0,
                };
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }
}

/// A journal that writes a table snapshot beside itself every few records ([`Snapshots::maybe_write`]).
pub struct Snapshotted<'j> {
    /// The journal.
    pub journal: &'j mut Journal,
    /// Its snapshot.
    pub table: Snapshots,
}

impl Recorder for Snapshotted<'_> {
    fn done(&self) -> &BTreeMap<usize, PieceResult> {
        self.journal.done()
    }

    fn record(&mut self, finished: &[(usize, &str, &PieceResult)]) -> Result<()> {
        self.journal.record(finished)?;
        self.table.maybe_write();
        Ok(())
    }

    fn sync(&self) {
        Recorder::sync(self.journal);
    }
}

/// Open the snapshot of `journal` for `store` (none without a store or a table to save): when the journal
/// resumes, load it, saying on `note` what was loaded or why it was ignored; when the journal is new, remove
/// a snapshot left by an older run.
pub fn open(
    store: Option<Arc<dyn TableStore>>,
    journal: &Journal,
    depths: Depths,
    note: &mut dyn FnMut(&str),
) -> Option<(Snapshots, bool)> {
    let s = Snapshots::new(store?, journal.path(), journal.header_sha(), depths)?;
    if journal.done.is_empty() {
        s.remove();
        return Some((s, false));
    }
    let loaded = s.load_saying(note);
    Some((s, loaded))
}

impl Snapshots {
    /// [`Snapshots::load`], saying on `note` what was loaded or why the snapshot was ignored; whether entries
    /// were loaded.
    pub fn load_saying(&self, note: &mut dyn FnMut(&str)) -> bool {
        match self.load() {
            Ok(None) => false,
            Ok(Some((n, torn))) => {
                note(&format!(
                    "loaded {n} hash table entries from {}{}",
                    self.path().display(),
                    if torn {
                        " (its last part, cut off as the run was killed while writing it, was dropped)"
                    } else {
                        ""
                    }
                ));
                true
            }
            Err(why) => {
                note(&format!(
                    "warning: ignoring the hash table snapshot {}: {why}; the table starts empty (the count \
                     is not affected)",
                    self.path().display()
                ));
                false
            }
        }
    }
}

/// A table shared by the runs of one plan's shards (`DIR/tables/`): loaded by a unit that starts without its
/// own snapshot, written back (with what the unit added) when the unit has finished, so that a unit finds the
/// subtrees below its frontier that the shards counted before it share with it.
pub struct Shared<'p> {
    /// The file.
    pub path: PathBuf,
    /// The plan's checksum, which it is sealed with.
    pub plan_sha: &'p str,
    /// Whether the unit writes it back when finished: not when every other shard has a result already (the
    /// last unit of a plan: no unit would read it, and writing it costs about as much as loading it).
    pub write_back: bool,
}

impl<'p> Shared<'p> {
    /// The shared table of the plan in `dir` with checksum `plan_sha` (`DIR/tables/shared.table`), for an
    /// untagged run only (`tag` None): a cross-check must not read what the run it checks stored. It is
    /// written back unless `others_done` (every other shard has a result).
    pub fn of_plan(
        dir: &Path,
        plan_sha: &'p str,
        tag: Option<&str>,
        others_done: bool,
    ) -> Option<Shared<'p>> {
        tag.is_none().then(|| Shared {
            path: dir.join("tables").join("shared.table"),
            plan_sha,
            write_back: !others_done,
        })
    }
}

/// [`work::run_positions`] recording in `journal`, with the table snapshot beside it when `store` has a table
/// to save and the run counts no statistics ([`open`]; entries of the depths [`depths`]`(rest)`); the
/// snapshot is removed when the run has finished.
///
/// # Errors
/// As [`work::run_positions`].
#[allow(clippy::too_many_arguments)]
pub fn run_journaled(
    engine: &dyn Backend,
    todo: &dyn work::Positions,
    rest: u32,
    stats: Option<Detail>,
    journal: &mut Journal,
    store: Option<Arc<dyn TableStore>>,
    shared: Option<Shared<'_>>,
    progress: &dyn work::Progress,
    what: &str,
    resume: &str,
    note: &mut dyn FnMut(&str),
) -> Result<work::Counted> {
    let store = store.filter(|_| stats.is_none());
    if let Some(s) = &shared {
        build::adopt_from(&s.path, MAX_HEADER_BYTES);
    }
    let Some((table, loaded)) = open(store, journal, depths(rest), note) else {
        return work::run_positions(
            engine,
            todo,
            rest,
            stats,
            Some(journal),
            progress,
            what,
            resume,
        );
    };
    let write_back = shared.as_ref().is_some_and(|s| s.write_back);
    let shared = shared.and_then(|s| {
        Snapshots::at(
            Arc::clone(&table.target.store),
            s.path,
            s.plan_sha,
            depths(rest),
        )
    });
    if let (Some(s), false) = (&shared, loaded) {
        s.load_saying(note);
    }
    table.hook_on_stop();
    let mut rec = Snapshotted { journal, table };
    let run = work::run_positions(
        engine,
        todo,
        rest,
        stats,
        Some(&mut rec),
        progress,
        what,
        resume,
    );
    rec.table.unhook();
    if let Some(w) = &rec.table.failed {
        note(w);
    }
    if run.is_ok() {
        rec.table.remove();
        if let Some(mut s) = shared.filter(|_| write_back) {
            if let Some(dir) = s.path().parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Err(e) = s.write() {
                note(&format!(
                    "warning: {}: cannot write the shared hash table ({e}); the result is kept",
                    s.path().display()
                ));
            }
        }
    }
    run
}

/// The depths of the table entries a snapshot keeps for positions counted to depth `rest`: from the subtrees
/// one ply below the split, which the frontier's positions share (the shallower ones are many, quick to count
/// again and mostly replaced anyway), to the frontier's own ([`Depths::below`]).
pub fn depths(rest: u32) -> Depths {
    Depths {
        min: rest.saturating_sub(1).max(2),
        below: rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_snapshot_waits_fifty_times_its_expected_cost_and_at_least_a_second() {
        // 2 GiB a second: a 16 MiB table takes 7.8 ms, ×50 = 0.39 s: the one-second floor.
        assert_eq!(first_interval(16 << 20), Duration::from_secs(1));
        assert_eq!(first_interval(0), Duration::from_secs(1));
        // 64 MiB: 31.25 ms, ×50 = 1.5625 s; 1 GiB: 25 s.
        assert_eq!(first_interval(64 << 20), Duration::from_micros(1_562_500));
        assert_eq!(first_interval(1 << 30), Duration::from_secs(25));
    }

    /// A table of no entries (what a snapshot's header and seal need of a store).
    struct Empty;

    impl TableStore for Empty {
        fn shape(&self) -> Option<TableShape> {
            Some(TableShape {
                zobrist_seed: 1,
                bytes: 1 << 20,
                buckets: 1 << 14,
                record_bytes: 16,
            })
        }
        fn export(
            &self,
            _: std::ops::Range<u32>,
            _: Option<&mut Vec<u8>>,
            _: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
        ) -> std::io::Result<u64> {
            Ok(0)
        }
        fn import(&self, _: &[u8]) -> bool {
            true
        }
        fn clear(&self) {}
    }

    #[test]
    fn the_build_is_named_only_when_a_snapshot_is_first_loaded_or_written() {
        // A run that ends before its first snapshot leaves its header unmade, so it hashes no executable
        // (Target::header); the first write makes it, with the build, and the file starts with it.
        let store: Arc<dyn TableStore> = Arc::new(Empty);
        let path =
            std::env::temp_dir().join(format!("perftlab-lazy-header-{}.table", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let depths = Depths { min: 1, below: 2 };
        let mut s = Snapshots::at(store, path.clone(), "owner", depths).unwrap();
        assert_eq!(s.load(), Ok(None));
        assert!(s.target.header.get().is_none(), "named before any snapshot");
        s.write().unwrap();
        let header = s.target.header().unwrap().to_string();
        assert!(header.contains(build::build_id().unwrap()), "{header}");
        assert!(std::fs::read(&path).unwrap().starts_with(header.as_bytes()));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn the_stop_snapshot_is_skipped_when_it_would_take_over_a_second() {
        let ms = Duration::from_millis;
        assert!(stop_write_allowed(Some(ms(30)), 64 << 20).is_ok());
        assert!(stop_write_allowed(Some(ms(1000)), 1 << 40).is_ok());
        let why = stop_write_allowed(Some(ms(1500)), 64 << 20).unwrap_err();
        assert!(why.contains("the last one took 1.5 s"), "{why}");
        // Before any periodic snapshot: judged by the table's size, 2 GiB a second.
        assert!(stop_write_allowed(None, 2 << 30).is_ok());
        let why = stop_write_allowed(None, 8 << 30).unwrap_err();
        assert!(
            why.contains("4.0 s") && why.contains("last periodic one"),
            "{why}"
        );
    }
}
