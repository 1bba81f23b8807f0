//! Work units for clusters: `plan` writes a plan directory ([`super::plan`]), `run-unit` counts one shard of it (idempotent,
//! resumable, atomic), `status` tells which shards are done, `merge` checks every result and sums
//! multiplicity × result in u128.
//!
//! A plan directory holds:
//! - `plan.json`: root, moves, depths, statistics, perftlab version, the number of distinct positions, the
//!   number of move paths (= perft at the split ply, checked against an independent perft when planning), the
//!   root moves, and the SHA-256 of every shard's unit file; the SHA-256 of `plan.json` itself names the plan;
//! - `units/shard-NNNNN.json`: per shard, its positions (global index, FEN, multiplicity, multiplicity per
//!   root move);
//! - `results/shard-NNNNN.json` (and `shard-NNNNN.tag-NAME.json` for `--tag` runs): sealed results (see
//!   [`super::seal`]) with the plan and shard hashes, backend, Zobrist seed, version, host, times,
//!   per-position results (with the plan's statistics columns: none, `cpw` or `full`) and the shard totals;
//! - `journal/`: the checkpoint journals of unfinished shards;
//! - `slurm.sbatch`, `k8s-job.yaml`, `run-parallel.sh`: launchers.
//!
//! Shard k holds the k-th of N equal runs of the positions in expansion order (siblings together), or, planned
//! with `--backend gpu`, grouped by the placement of the side not to move ([`super::group`]), so that a unit's
//! hash table or GPU runs find the transpositions its positions share; older plans dealt them round-robin
//! in FEN order (still run and merged).

use super::journal::Journal;
use super::plan::{check_plan_seal, host, now_secs, shard_name, FORMAT, MAX_PLAN_FILE_BYTES};
use super::seal::{as_u128, is_sealed, sealed_text, sha256_hex, write_atomic};
use super::work::{self, PieceResult, Totals};
use crate::backend::{Backend, Detail};
use crate::error::{named, Error, Result, Setting, SettingError};
use crate::position::Setup;
use crate::validate::Checked;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A loaded plan.
pub struct Plan {
    /// The directory.
    pub dir: PathBuf,
    /// plan.json.
    pub json: Value,
    /// SHA-256 of plan.json's bytes.
    pub sha: String,
    /// Number of shards.
    pub shards: usize,
    /// Statistics columns counted (plan.json's `stats`: `none`, `cpw` or `full`).
    pub stats: Option<Detail>,
}

impl Plan {
    /// Read `DIR/plan.json`.
    ///
    /// # Errors
    /// [`Error::Usage`] when it is missing or malformed.
    pub fn load(dir: &Path) -> Result<Plan> {
        let p = dir.join("plan.json");
        if !p.exists() {
            return Err(Error::Usage(format!(
                "{}: not found (is '{}' a plan directory written by `perftlab plan`?)",
                p.display(),
                dir.display()
            )));
        }
        let bytes = crate::files::read_input("the plan", &p, MAX_PLAN_FILE_BYTES)?;
        let json: Value = serde_json::from_slice(&bytes)
            .map_err(|e| Error::Usage(format!("{}: not a valid plan: {e}", p.display())))?;
        check_plan_seal(&json).map_err(|why| {
            Error::Usage(format!(
                "{}: not a valid plan: {why}; refusing to use it (write a new plan with `perftlab plan`)",
                p.display()
            ))
        })?;
        let shards = json["shards"].as_u64().unwrap_or(0) as usize;
        let ok = json["perftlab_plan"].as_u64() == Some(FORMAT)
            && shards > 0
            && json["shard_sha256"].as_array().map(Vec::len) == Some(shards)
            && json["depth"].as_u64().is_some()
            && json["split_depth"].as_u64().is_some();
        if !ok {
            return Err(Error::Usage(format!(
                "{}: not a valid plan (missing or inconsistent fields)",
                p.display()
            )));
        }
        let stats = match json["stats"].as_str() {
            Some("none") => None,
            Some("cpw") => Some(Detail::Cpw),
            Some("full") => Some(Detail::Full),
            _ => {
                return Err(Error::Usage(format!(
                    "{}: not a valid plan (stats: {} is not \"none\", \"cpw\" or \"full\")",
                    p.display(),
                    json["stats"]
                )))
            }
        };
        Ok(Plan {
            dir: dir.to_path_buf(),
            json,
            sha: sha256_hex(&bytes),
            shards,
            stats,
        })
    }

    fn depth(&self) -> u32 {
        self.json["depth"].as_u64().unwrap_or(0) as u32
    }

    fn rest(&self) -> u32 {
        self.depth() - self.json["split_depth"].as_u64().unwrap_or(0) as u32
    }

    fn stats(&self) -> Option<Detail> {
        self.stats
    }

    fn unit_path(&self, k: usize) -> PathBuf {
        self.dir
            .join("units")
            .join(format!("{}.json", shard_name(k)))
    }

    fn journal_path(&self, k: usize, tag: Option<&str>) -> PathBuf {
        self.dir
            .join("journal")
            .join(format!("{}{}.jsonl", shard_name(k), tag_suffix(tag)))
    }

    fn result_path(&self, k: usize, tag: Option<&str>) -> PathBuf {
        self.dir
            .join("results")
            .join(format!("{}{}.json", shard_name(k), tag_suffix(tag)))
    }

    /// The unit of shard `k`, checked against the plan's SHA-256; with `moves`, each position's multiplicity
    /// per root move too (only `merge --divide` needs them: a unit's nodes and statistics are sums of
    /// multiplicity × result; left out, they are skipped by the JSON reader without being stored, which
    /// spared `merge` a third of its time at start perft 8, split 4).
    fn unit(&self, k: usize, moves: bool) -> std::result::Result<Unit, String> {
        let p = self.unit_path(k);
        let bytes = crate::files::read_input("the unit file", &p, crate::files::MAX_INPUT_BYTES)
            .map_err(|e| e.to_string())?;
        let want = self.json["shard_sha256"][k].as_str().unwrap_or_default();
        if sha256_hex(&bytes) != want {
            return Err(format!(
                "{}: does not match the plan's SHA-256 (edited or truncated)",
                p.display()
            ));
        }
        // Read into typed records, not a tree of JSON values: a unit has tens of thousands of positions.
        let raw: RawUnit = if moves {
            serde_json::from_slice(&bytes)
        } else {
            serde_json::from_slice::<RawUnitNoMoves>(&bytes).map(RawUnitNoMoves::into_unit)
        }
        .map_err(|e| format!("{}: {e}", p.display()))?;
        let bad = || format!("{}: malformed unit", p.display());
        let number = |n: serde_json::Number| as_u128(&Value::Number(n));
        let mut positions = Vec::with_capacity(raw.positions.len());
        for x in raw.positions {
            let by_move = x
                .by_move
                .into_iter()
                .map(|(m, c)| number(c).map(|c| (m, c)))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(bad)?;
            positions.push(UnitPosition {
                i: x.i,
                fen: x.fen,
                mult: number(x.mult).ok_or_else(bad)?,
                by_move,
            });
        }
        Ok(Unit {
            sha: want.to_string(),
            positions,
        })
    }
}

fn tag_suffix(tag: Option<&str>) -> String {
    tag.map(|t| format!(".tag-{t}")).unwrap_or_default()
}

/// A unit file as written by `plan` (other keys ignored).
#[derive(serde::Deserialize)]
struct RawUnit {
    positions: Vec<RawPosition>,
}

/// One position of a unit file.
#[derive(serde::Deserialize)]
struct RawPosition {
    i: usize,
    fen: String,
    mult: serde_json::Number,
    by_move: BTreeMap<String, serde_json::Number>,
}

/// A unit file read without the multiplicities per root move (other keys, `by_move` among them, skipped).
#[derive(serde::Deserialize)]
struct RawUnitNoMoves {
    positions: Vec<RawPositionNoMoves>,
}

/// One position of a unit file without its `by_move`.
#[derive(serde::Deserialize)]
struct RawPositionNoMoves {
    i: usize,
    fen: String,
    mult: serde_json::Number,
}

impl RawUnitNoMoves {
    fn into_unit(self) -> RawUnit {
        let positions = self.positions.into_iter();
        RawUnit {
            positions: positions
                .map(|x| RawPosition {
                    i: x.i,
                    fen: x.fen,
                    mult: x.mult,
                    by_move: BTreeMap::new(),
                })
                .collect(),
        }
    }
}

/// A position of a unit. Its FEN is parsed only by `run-unit` (`status` and `merge` need none), and checked
/// there by [`Checked::new`] (the cheap error checks, no retro-analysis): the unit file matched the SHA-256 its
/// sealed plan gives it, but a plan edited and sealed again by hand must still not hand the generator a
/// position it cannot play (a pawn on a back rank, a castling right without its rook).
struct UnitPosition {
    i: usize,
    fen: String,
    mult: u128,
    /// Multiplicity per root move: empty unless the unit was read with them ([`Plan::unit`]).
    by_move: Vec<(String, u128)>,
}

struct Unit {
    sha: String,
    positions: Vec<UnitPosition>,
}

/// A unit's positions for [`work::run_positions`], in the unit file's order (plans write them in counting
/// order), each parsed from its FEN when its batch is counted.
struct UnitPositions<'a> {
    unit: &'a Unit,
    /// The unit file (named when a FEN is malformed).
    path: PathBuf,
}

impl work::Positions for UnitPositions<'_> {
    fn len(&self) -> usize {
        self.unit.positions.len()
    }
    fn index(&self, k: usize) -> usize {
        self.unit.positions[k].i
    }
    fn fen(&self, k: usize) -> &str {
        &self.unit.positions[k].fen
    }
    fn position(&self, k: usize) -> Result<Checked> {
        let p = &self.unit.positions[k];
        Setup::from_fen(&p.fen)
            .map_err(Error::from)
            .and_then(Checked::new)
            .map_err(|e| {
                Error::Usage(format!(
                    "{}: malformed unit (position {}: {e})",
                    self.path.display(),
                    p.i
                ))
            })
    }
}

/// A checked result file: its tag and per-position results.
struct ShardResult {
    file: PathBuf,
    tag: Option<String>,
    backend: String,
    /// The Zobrist seed of the run (None: results before seeds were recorded, or a backend without them).
    seed: Option<u64>,
    results: BTreeMap<usize, PieceResult>,
}

impl ShardResult {
    /// `cpu, Zobrist seed N` (what makes two runs independent).
    fn hashing(&self) -> String {
        match self.seed {
            Some(s) => format!("{}, Zobrist seed {s}", self.backend),
            None => self.backend.clone(),
        }
    }
}

/// Read and check one result file against the plan and unit; `Err` says what is wrong.
fn check_result(
    plan: &Plan,
    k: usize,
    unit: &Unit,
    file: &Path,
) -> std::result::Result<ShardResult, String> {
    let name = file.display();
    let bytes = crate::files::read_input("the result file", file, crate::files::MAX_INPUT_BYTES)
        .map_err(|e| e.to_string())?;
    let v: Value =
        serde_json::from_slice(&bytes).map_err(|_| format!("{name}: truncated or not JSON"))?;
    if !is_sealed(&v) {
        return Err(format!("{name}: edited (checksum mismatch)"));
    }
    if v["plan_sha256"].as_str() != Some(plan.sha.as_str()) {
        return Err(format!("{name}: belongs to another plan"));
    }
    if v["shard"].as_u64() != Some(k as u64) || v["shard_sha256"].as_str() != Some(&unit.sha) {
        return Err(format!(
            "{name}: belongs to shard {}, not to shard {k}",
            v["shard"]
        ));
    }
    if v["depth"].as_u64() != Some(plan.rest() as u64) {
        return Err(format!("{name}: counted to another depth"));
    }
    let mut results = BTreeMap::new();
    for x in v["positions"].as_array().into_iter().flatten() {
        let i = x["i"].as_u64().unwrap_or(u64::MAX) as usize;
        let r = PieceResult::from_json(x).ok_or_else(|| format!("{name}: malformed position"))?;
        let columns_ok = match (&r.stats, plan.stats()) {
            (None, None) => true,
            (Some(c), Some(d)) => work::has_columns(c, d),
            _ => false,
        };
        if !columns_ok {
            return Err(format!(
                "{name}: its statistics columns are not the plan's (stats {})",
                work::stats_name(plan.stats())
            ));
        }
        results.insert(i, r);
    }
    // The unit's positions in any order (plans write them in counting order, older plans by index).
    let mut want: Vec<usize> = unit.positions.iter().map(|p| p.i).collect();
    want.sort_unstable();
    if results.keys().copied().collect::<Vec<_>>() != want {
        return Err(format!(
            "{name}: its positions are not those of the shard's unit"
        ));
    }
    let totals = unit_totals(
        unit.positions
            .iter()
            .filter_map(|p| Some((p, results.get(&p.i)?))),
    );
    let stored = PieceResult::from_json(&v["totals"]);
    if stored
        != Some(PieceResult {
            nodes: totals.nodes,
            stats: totals.stats,
        })
    {
        return Err(format!(
            "{name}: its totals are not the sum of its positions"
        ));
    }
    Ok(ShardResult {
        file: file.to_path_buf(),
        tag: v["tag"].as_str().map(String::from),
        backend: v["backend"].as_str().unwrap_or("?").to_string(),
        seed: v["zobrist_seed"].as_u64(),
        results,
    })
}

/// The totals of a unit's positions, each with its result (no division by root move).
fn unit_totals<'a>(
    results: impl IntoIterator<Item = (&'a UnitPosition, &'a PieceResult)>,
) -> Totals {
    let mut t = Totals::default();
    for (p, r) in results {
        t.add(p.mult, &p.by_move, r);
    }
    t
}

/// The result files of shard `k` (untagged and tagged).
fn result_files(plan: &Plan, k: usize) -> Vec<PathBuf> {
    let prefix = shard_name(k);
    let mut files: Vec<PathBuf> = std::fs::read_dir(plan.dir.join("results"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.ends_with(".json")
                    && (n == format!("{prefix}.json") || n.starts_with(&format!("{prefix}.tag-")))
            })
        })
        .collect();
    files.sort();
    files
}

/// Options of `run-unit`.
pub struct RunUnitOptions {
    /// The plan directory.
    pub dir: PathBuf,
    /// The shard (None: from `SLURM_ARRAY_TASK_ID` or `JOB_COMPLETION_INDEX`).
    pub shard: Option<usize>,
    /// Tag of an independent second result.
    pub tag: Option<String>,
    /// The seed of the Zobrist keys the backend hashes with (None: a backend without them), recorded in the
    /// result; a seed other than the default is part of the journal's identity.
    pub zobrist_seed: Option<u64>,
    /// The backend's hash table, saved beside the journal ([`super::snapshot`]).
    pub table: Option<std::sync::Arc<dyn super::snapshot::TableStore>>,
}

fn shard_from_env(shard: Option<usize>) -> Result<usize> {
    if let Some(k) = shard {
        return Ok(k);
    }
    for var in ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"] {
        if let Ok(v) = std::env::var(var) {
            return v
                .trim()
                .parse()
                .map_err(|_| Error::Usage(format!("{var}: '{v}' is not a shard number")));
        }
    }
    Err(Error::Usage(format!(
        "run-unit: no shard given: pass {} K, or run under a Slurm array (SLURM_ARRAY_TASK_ID) or a \
         Kubernetes Indexed Job (JOB_COMPLETION_INDEX)",
        named(Setting::Shard)
    )))
}

/// Check a `--tag`: 1 to 32 letters, digits, `-` or `_` (it becomes part of a file name).
///
/// # Errors
/// [`Error::Setting`] of [`Setting::Tag`] with the tag.
pub fn check_tag(t: &str) -> Result<()> {
    if t.is_empty()
        || t.len() > 32
        || !t
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(SettingError::new(
            Setting::Tag,
            Some(t.escape_debug().to_string()),
            "must be 1 to 32 letters, digits, '-' or '_'",
        )
        .into());
    }
    Ok(())
}

/// Count one shard; returns the exit code (0 also when it was already done).
///
/// # Errors
/// [`Error::Usage`] for a bad plan, shard or tag; backend failures.
pub fn run_unit(
    engine: &dyn Backend,
    o: &RunUnitOptions,
    progress: &dyn work::Progress,
    note: &mut dyn FnMut(&str),
) -> Result<i32> {
    let plan = Plan::load(&o.dir)?;
    let k = shard_from_env(o.shard)?;
    if k >= plan.shards {
        return Err(SettingError::new(
            Setting::Shard,
            Some(k.to_string()),
            format!("is not a shard of this plan (0 to {})", plan.shards - 1),
        )
        .into());
    }
    if let Some(t) = &o.tag {
        check_tag(t)?;
    }
    let tag = o.tag.as_deref();
    let unit = plan.unit(k, false).map_err(Error::Usage)?;
    let out = plan.result_path(k, tag);
    if out.exists() {
        match check_result(&plan, k, &unit, &out) {
            Ok(done) => {
                // A different --zobrist-seed does not make a finished shard count again: say how to add it.
                let seeds = match (o.zobrist_seed, done.seed) {
                    (Some(want), Some(had)) if want != had => format!(
                        " with Zobrist seed {had}, not {want}: give this run a {} to add an \
                         independent result",
                        named(Setting::Tag)
                    ),
                    _ => String::new(),
                };
                note(&format!(
                    "shard {k} already done ({}){seeds}; nothing to do",
                    out.display()
                ));
                return Ok(0);
            }
            Err(why) => note(&format!("warning: {why}; counting shard {k} again")),
        }
    }
    let started = now_secs();
    let clock = Instant::now();
    let mut identity = json!({
        "command": "run-unit",
        "plan_sha256": plan.sha,
        "shard": k,
        "shard_sha256": unit.sha,
        "tag": tag,
    });
    if let Some(seed) = o
        .zobrist_seed
        .filter(|&s| s != crate::bitboard::zobrist::DEFAULT_SEED)
    {
        identity["zobrist_seed"] = json!(seed);
    }
    let n_all = plan.json["positions"].as_u64().unwrap_or(0) as usize;
    let mut fen_list = vec![""; n_all];
    for p in unit.positions.iter().filter(|p| p.i < n_all) {
        fen_list[p.i] = &p.fen;
    }
    let jpath = plan.journal_path(k, tag);
    let mut journal = Journal::open(&jpath, identity, &fen_list)?;
    if let Some(w) = &journal.cut_off {
        note(w);
    }
    let done_before = unit
        .positions
        .iter()
        .filter(|p| journal.done.contains_key(&p.i))
        .count();
    if done_before > 0 {
        note(&format!(
            "shard {k}: resuming from {}: {done_before} of {} positions already done",
            jpath.display(),
            unit.positions.len()
        ));
    }
    let others_done = (0..plan.shards).all(|j| j == k || plan.result_path(j, None).exists());
    // Made from their FEN one batch at a time, not all before the count.
    let todo = UnitPositions {
        unit: &unit,
        path: plan.unit_path(k),
    };
    let run = super::snapshot::run_journaled(
        engine,
        &todo,
        plan.rest(),
        plan.stats(),
        &mut journal,
        o.table.clone(),
        super::snapshot::Shared::of_plan(&o.dir, &plan.sha, tag, others_done),
        progress,
        &format!("run-unit shard {k}"),
        "; they are saved in the journal: run the same command again to resume",
        note,
    )?;
    // The results in the unit's order (the counting order).
    let results = || unit.positions.iter().zip(&run.results);
    let seconds = clock.elapsed().as_secs_f64();
    let totals = unit_totals(results());
    let mut r: BTreeMap<&str, String> = BTreeMap::new();
    let mut put = |k, v: Value| r.insert(k, v.to_string());
    put("perftlab_result", Value::from(FORMAT));
    put("plan_sha256", Value::from(plan.sha.as_str()));
    put("shard", Value::from(k as u64));
    put("shard_sha256", Value::from(unit.sha.as_str()));
    put("tag", tag.map_or(Value::Null, Value::from));
    put("backend", Value::from(engine.name()));
    put(
        "zobrist_seed",
        o.zobrist_seed.map_or(Value::Null, Value::from),
    );
    put("version", Value::from(env!("CARGO_PKG_VERSION")));
    put("host", Value::from(host()));
    put("started", Value::from(started));
    put("finished", Value::from(now_secs()));
    put("seconds", json!(seconds));
    // Where the time went: in the backend, and outside it (plan and journal reading, journal writes).
    put("backend_seconds", json!(run.backend_seconds));
    put(
        "overhead_seconds",
        json!((seconds - run.backend_seconds).max(0.0)),
    );
    put("batches", Value::from(run.batches as u64));
    put("depth", Value::from(plan.rest()));
    let totals_json = PieceResult {
        nodes: totals.nodes,
        stats: totals.stats.clone(),
    }
    .to_json();
    put("totals", Value::Object(totals_json));
    r.insert("positions", positions_text(results()));
    let text = format!("{}\n", sealed_text(r));
    write_atomic(&out, text.as_bytes())?;
    let _ = std::fs::remove_file(&jpath);
    note(&format!(
        "shard {k}: {} positions, {} nodes (× multiplicity) in {:.1} s ({:.1} s in the backend, {} batches) -> {}",
        unit.positions.len(),
        totals.nodes,
        clock.elapsed().as_secs_f64(),
        run.backend_seconds,
        run.batches,
        out.display()
    ));
    Ok(0)
}

/// The `positions` array of a result file: `{"i": index, "nodes": …, "stats": {…}}` per position, as
/// `serde_json` writes it (written directly when there are no statistics).
fn positions_text<'a>(
    results: impl Iterator<Item = (&'a UnitPosition, &'a PieceResult)>,
) -> String {
    let mut text = String::from("[");
    for (n, (p, r)) in results.enumerate() {
        if n > 0 {
            text.push(',');
        }
        if r.stats.is_none() {
            text.push_str(&format!("{{\"i\":{},\"nodes\":{}}}", p.i, r.nodes));
        } else {
            let mut m = r.to_json();
            m.insert("i".into(), Value::from(p.i as u64));
            text.push_str(&Value::Object(m).to_string());
        }
    }
    text.push(']');
    text
}

/// Shards as a Slurm array string: `4,7,10-12`.
pub fn array_string(shards: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < shards.len() {
        let mut j = i;
        while j + 1 < shards.len() && shards[j + 1] == shards[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            shards[i].to_string()
        } else {
            format!("{}-{}", shards[i], shards[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// What `status` found.
#[derive(Debug, Default)]
pub struct Status {
    /// Shards with a valid result.
    pub done: Vec<usize>,
    /// Shards without a valid result but with a journal.
    pub partial: Vec<usize>,
    /// Shards without a valid result (partial ones included).
    pub missing: Vec<usize>,
    /// Result or unit files that failed their checks, with the reason.
    pub invalid: Vec<String>,
}

/// Which shards are done.
///
/// # Errors
/// [`Error::Usage`] for a bad plan directory.
pub fn status(dir: &Path) -> Result<(Plan, Status)> {
    let plan = Plan::load(dir)?;
    let mut s = Status::default();
    for k in 0..plan.shards {
        let ok = match plan.unit(k, false) {
            Ok(unit) => {
                // Done only when merge would accept it: every result file valid (merge refuses a shard
                // with a foreign, edited or truncated result beside a good one).
                let files = result_files(&plan, k);
                let mut ok = !files.is_empty();
                for f in files {
                    if let Err(why) = check_result(&plan, k, &unit, &f) {
                        s.invalid.push(why);
                        ok = false;
                    }
                }
                ok
            }
            Err(why) => {
                s.invalid.push(why);
                false
            }
        };
        if ok {
            s.done.push(k);
        } else {
            s.missing.push(k);
            let journal = std::fs::read_dir(plan.dir.join("journal"))
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| {
                    e.file_name()
                        .to_str()
                        .is_some_and(|n| n.starts_with(&format!("{}.", shard_name(k))))
                });
            if journal {
                s.partial.push(k);
            }
        }
    }
    Ok((plan, s))
}

/// The merged result of a plan.
pub struct Merged {
    /// Totals (divide when asked).
    pub totals: Totals,
    /// The plan.
    pub plan: Plan,
    /// Result files used.
    pub files: usize,
    /// Backends that produced them.
    pub backends: Vec<String>,
    /// Shards with two or more agreeing results (tagged runs).
    pub cross_checked: Vec<usize>,
    /// Warnings about the cross-checks (runs that agree but hashed alike).
    pub notes: Vec<String>,
}

/// Check every shard's results and sum them.
///
/// # Errors
/// [`Error::Mismatch`] naming the shard when a shard is missing, a result belongs to another plan or shard, was
/// edited or truncated, or two runs of a shard disagree; [`Error::Usage`] for a bad plan directory.
pub fn merge(dir: &Path, divide: bool) -> Result<Merged> {
    let plan = Plan::load(dir)?;
    let mut totals = Totals {
        divide: divide.then(|| {
            plan.json["root_moves"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m.as_str().map(|m| (m.to_string(), 0)))
                .collect()
        }),
        ..Totals::default()
    };
    let mut files = 0;
    let mut backends: Vec<String> = Vec::new();
    let mut cross_checked = Vec::new();
    let mut notes = Vec::new();
    for k in 0..plan.shards {
        let unit = plan
            .unit(k, divide)
            .map_err(|why| Error::Mismatch(format!("shard {k}: {why}")))?;
        let found = result_files(&plan, k);
        if found.is_empty() {
            return Err(Error::Mismatch(format!(
                "shard {k} is missing (no result in {}); run `perftlab status {}` for the list",
                plan.dir.join("results").display(),
                plan.dir.display()
            )));
        }
        let mut checked: Vec<ShardResult> = Vec::new();
        for f in &found {
            let r = check_result(&plan, k, &unit, f)
                .map_err(|why| Error::Mismatch(format!("shard {k}: {why}")))?;
            checked.push(r);
        }
        let first = &checked[0];
        for other in &checked[1..] {
            if let Some(p) = unit
                .positions
                .iter()
                .find(|p| first.results[&p.i] != other.results[&p.i])
            {
                let label = |r: &ShardResult| {
                    format!(
                        "{} ({}; {}; {} nodes)",
                        r.tag.as_deref().unwrap_or("untagged"),
                        r.file.display(),
                        r.hashing(),
                        r.results[&p.i].nodes
                    )
                };
                return Err(Error::Mismatch(format!(
                    "shard {k}: two runs disagree at position {} ({}): {} vs {}",
                    p.i,
                    p.fen,
                    label(first),
                    label(other)
                )));
            }
        }
        for p in &unit.positions {
            totals.add(p.mult, &p.by_move, &first.results[&p.i]);
        }
        if checked.len() > 1 {
            // Runs that hashed alike do not cross-check each other's hashing.
            let mut by_way: BTreeMap<String, Vec<&str>> = BTreeMap::new();
            for r in &checked {
                by_way
                    .entry(r.hashing())
                    .or_default()
                    .push(r.tag.as_deref().unwrap_or("untagged"));
            }
            for (way, runs) in by_way.iter().filter(|(_, runs)| runs.len() > 1) {
                notes.push(format!(
                    "shard {k}: runs {} agree but all used {way}: not independent hashings (give a {} run \
                     another {} or {})",
                    runs.join(", "),
                    named(Setting::Tag),
                    named(Setting::Backend),
                    named(Setting::ZobristSeed)
                ));
            }
            cross_checked.push(k);
        }
        files += checked.len();
        for r in &checked {
            if !backends.contains(&r.backend) {
                backends.push(r.backend.clone());
            }
        }
    }
    Ok(Merged {
        totals,
        plan,
        files,
        backends,
        cross_checked,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_results_positions_are_written_as_serde_json_writes_them() {
        // As run-unit wrote them before: each result's object with its index, in a JSON array.
        let unit = |i| UnitPosition {
            i,
            fen: String::new(),
            mult: 1,
            by_move: Vec::new(),
        };
        let ps = [unit(0), unit(72_077), unit(5)];
        let cpw = [("captures".to_string(), 34u128)].into_iter().collect();
        for stats in [None, Some(cpw)] {
            let rs = [20, 2_015_099_950_053_364_471_960, 8_902].map(|nodes| PieceResult {
                nodes,
                stats: stats.clone(),
            });
            let want: Vec<Value> = ps
                .iter()
                .zip(&rs)
                .map(|(p, r)| {
                    let mut m = r.to_json();
                    m.insert("i".into(), Value::from(p.i as u64));
                    Value::Object(m)
                })
                .collect();
            assert_eq!(
                positions_text(ps.iter().zip(&rs)),
                Value::Array(want).to_string()
            );
        }
        assert_eq!(positions_text(std::iter::empty()), "[]");
    }

    #[test]
    fn slurm_array_strings() {
        assert_eq!(array_string(&[]), "");
        assert_eq!(array_string(&[4]), "4");
        assert_eq!(array_string(&[4, 7, 10, 11, 12]), "4,7,10-12");
        assert_eq!(array_string(&[0, 1, 3, 4]), "0-1,3-4");
    }
}
