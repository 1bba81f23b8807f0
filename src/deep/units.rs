//! Work units for clusters: `plan` writes a plan directory, `run-unit` counts one shard of it (idempotent,
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
//! Shard k holds the k-th of N equal runs of the positions in the order the frontier expansion found them
//! ([`super::split::Frontier::count_order`]: siblings together), so that a unit's one hash table finds the
//! transpositions its positions share; plans written before dealt them round-robin in FEN order (still run
//! and merged).

use super::journal::Journal;
use super::seal::{as_u128, is_sealed, seal, sha256_hex, u128_value, write_atomic};
use super::split::{self, Frontier};
use super::work::{self, PieceResult, Totals};
use crate::backend::{Backend, Detail};
use crate::error::{Error, Result};
use crate::validate::Checked;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Format version of plan, unit and result files.
pub const FORMAT: u64 = 1;

/// Largest plan.json read (its size does not grow with the positions: 1 MiB is far above any plan's).
const MAX_PLAN_FILE_BYTES: u64 = 1 << 20;

/// Options of `plan`.
pub struct PlanOptions {
    /// The position searched (after any moves).
    pub root: Checked,
    /// The FEN given (before moves).
    pub fen: String,
    /// Moves played first (UCI).
    pub moves: Vec<String>,
    /// Total depth.
    pub depth: u32,
    /// Split ply.
    pub split: u32,
    /// Number of shards.
    pub shards: usize,
    /// Statistics columns to count (None: only nodes).
    pub stats: Option<Detail>,
    /// Chess960 notation for root moves.
    pub chess960: bool,
    /// The plan directory.
    pub out: PathBuf,
    /// CPUs per unit in the launchers (`--threads` of each `run-unit`).
    pub cpus_per_unit: usize,
    /// Slurm time limit (`--time`), if any.
    pub slurm_time: Option<String>,
    /// Memory budget of the split frontier, MiB (`--split-mem`; see [`split::budget_mib`]).
    pub split_mem: u64,
    /// Threads used for the estimate.
    pub threads: usize,
}

fn shard_name(k: usize) -> String {
    format!("shard-{k:05}")
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A number that names one plan: the clock's nanoseconds and the process id, hashed.
fn plan_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    sha256_hex(format!("{nanos} {} {}", std::process::id(), host()).as_bytes())[..16].to_string()
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Usage(format!("{}: {e}", path.display()))
}

/// Estimate of a plan's size from sampled frontier positions.
#[derive(Clone, Debug)]
pub struct Estimate {
    /// Estimated perft(depth): Σ multiplicity × subtree size.
    pub nodes: f64,
    /// Estimated leaves to count: Σ subtree size over distinct positions (the work).
    pub work_nodes: f64,
    /// Estimated core-hours at the sampled speed (shallow samples are slower per node than deep subtrees
    /// with a warm hash table, so this errs high).
    pub core_hours: f64,
    /// Positions sampled.
    pub sampled: usize,
    /// Depth the samples were counted to.
    pub sample_depth: u32,
}

/// Count up to 16 evenly spaced frontier positions at growing depths (about half a second in all), then
/// extrapolate each by the measured growth factor per ply to the full remaining depth.
fn estimate(
    engine: &dyn Backend,
    f: &Frontier,
    rest: u32,
    stats: Option<Detail>,
    threads: usize,
) -> Result<Estimate> {
    let n = f.len();
    let k = n.min(16);
    let sample: Vec<split::Piece> = (0..k).map(|j| f.piece(j * n / k)).collect();
    let mut depth = 0;
    let mut prev: Vec<f64> = vec![1.0; k];
    let mut cur = prev.clone();
    let mut rate = 0.0;
    let budget = Instant::now();
    while depth < rest && (depth == 0 || budget.elapsed().as_secs_f64() < 0.5) {
        depth += 1;
        let t = Instant::now();
        let mut next = Vec::with_capacity(k);
        for p in &sample {
            let pos = Checked::new(p.setup())?;
            next.push(work::evaluate(engine, &pos, depth, stats)?.nodes as f64);
        }
        let secs = t.elapsed().as_secs_f64().max(1e-6);
        rate = next.iter().sum::<f64>() / secs / threads.max(1) as f64;
        prev = cur;
        cur = next;
    }
    let growth = if depth < rest {
        let (a, b): (f64, f64) = (cur.iter().sum(), prev.iter().sum());
        if b > 0.0 {
            a / b
        } else {
            0.0
        }
    } else {
        1.0
    };
    let sizes: Vec<f64> = cur
        .iter()
        .map(|&c| c * growth.powi((rest - depth) as i32))
        .collect();
    let mult_sum: f64 = sample.iter().map(|p| p.mult as f64).sum();
    let weighted: f64 = sample
        .iter()
        .zip(&sizes)
        .map(|(p, s)| p.mult as f64 * s)
        .sum::<f64>()
        / mult_sum.max(1.0);
    let mean = sizes.iter().sum::<f64>() / k.max(1) as f64;
    let nodes = weighted * f.paths() as f64;
    let work_nodes = mean * n as f64;
    Ok(Estimate {
        nodes,
        work_nodes,
        core_hours: if rate > 0.0 {
            work_nodes / rate / 3600.0
        } else {
            0.0
        },
        sampled: k,
        sample_depth: depth,
    })
}

/// Plies below the split that `plan` leaves when `--split-depth` is not given.
pub const DEFAULT_SPLIT_REST: u32 = 4;

/// Deepest split ply `plan` chooses by itself (ply 5 of the start position: 822,518 positions, about 230 MiB
/// while the frontier is made).
pub const DEFAULT_SPLIT_MAX: u32 = 5;

/// The split ply of a plan of depth `depth` when `--split-depth` is not given: `depth` − 4 (between 1 and
/// [`DEFAULT_SPLIT_MAX`], below `depth`). Each position then has a subtree of at least 4 plies (about a
/// million leaves, milliseconds of counting, against some microseconds of per-position work outside the
/// backend: reading its FEN, one journal line), and transpositions down to that ply are merged exactly rather
/// than found again through each unit's own, initially empty hash table.
pub fn default_split(depth: u32) -> u32 {
    depth
        .saturating_sub(DEFAULT_SPLIT_REST)
        .clamp(1, DEFAULT_SPLIT_MAX)
        .min(depth.saturating_sub(1).max(1))
}

/// Write a plan directory; returns (plan.json's value, estimate). `note` receives the lines to show the user
/// (fewer shards than asked).
///
/// # Errors
/// [`Error::Usage`] for bad options or I/O errors; [`Error::Mismatch`] when the frontier's paths disagree with
/// an independent perft of the split ply.
pub fn plan(
    engine: &dyn Backend,
    o: &PlanOptions,
    note: &mut dyn FnMut(&str),
) -> Result<(Value, Estimate)> {
    if o.split == 0 || o.split >= o.depth {
        return Err(Error::Usage(format!(
            "--split-depth: '{}' must be at least 1 and below --depth ({})",
            o.split, o.depth
        )));
    }
    if o.split > 6 {
        return Err(Error::Usage(format!(
            "--split-depth: '{}' is deeper than 6 plies; the frontier would not fit in memory",
            o.split
        )));
    }
    if o.shards == 0 {
        return Err(Error::Usage(
            "--shards: '0' shards cannot hold any work (use 1 or more)".into(),
        ));
    }
    check_out_dir(&o.out)?;
    let f = split::frontier(&o.root, o.split, o.chess960, o.split_mem)?;
    let paths = f.paths();
    let perft_s = engine.perft(&o.root, o.split)?;
    if paths != perft_s {
        return Err(Error::Mismatch(format!(
            "the split frontier has {paths} move paths but perft {} is {perft_s}",
            o.split
        )));
    }
    let shards = o.shards.min(f.len()).max(1);
    if shards < o.shards {
        note(&format!(
            "note: only {} distinct positions at ply {}: {shards} shards instead of {}",
            f.len(),
            o.split,
            o.shards
        ));
    }
    for sub in ["units", "results", "journal", "logs"] {
        let d = o.out.join(sub);
        std::fs::create_dir_all(&d).map_err(io_err(&d))?;
    }
    let mut shard_sha = Vec::with_capacity(shards);
    // Shard k is the k-th of `shards` runs of the positions in the order the expansion found them, in that
    // order: siblings share transpositions, which the unit's one hash table then finds
    // ([`split::Frontier::count_order`]).
    let order = f.count_order();
    for k in 0..shards {
        // The unit's text is written position by position (a JSON value of the whole unit would hold
        // several hundred bytes per position more than the text).
        let mut text = format!("{{\"perftlab_unit\":{FORMAT},\"positions\":[");
        let run = &order[k * order.len() / shards..(k + 1) * order.len() / shards];
        for (n, (i, p)) in run.iter().map(|&i| (i, f.piece(i))).enumerate() {
            let by_move: Map<String, Value> = p
                .by_move()
                .map(|(m, c)| (f.root_moves[m as usize].clone(), u128_value(c)))
                .collect();
            if n > 0 {
                text.push(',');
            }
            text.push_str(
                &json!({ "i": i, "fen": p.fen, "mult": u128_value(p.mult), "by_move": by_move })
                    .to_string(),
            );
        }
        text.push_str(&format!("],\"shard\":{k}}}\n"));
        shard_sha.push(sha256_hex(text.as_bytes()));
        write_atomic(
            &o.out.join("units").join(format!("{}.json", shard_name(k))),
            text.as_bytes(),
        )?;
    }
    let est = estimate(engine, &f, o.depth - o.split, o.stats, o.threads)?;
    let plan = json!({
        "perftlab_plan": FORMAT,
        "version": env!("CARGO_PKG_VERSION"),
        "created": now_secs(),
        // Tells two plans of the same arguments apart (the results of one are foreign to the other).
        "plan_id": plan_id(),
        "fen": o.fen,
        "moves": o.moves,
        "root_fen": o.root.to_fen(),
        "depth": o.depth,
        "split_depth": o.split,
        "stats": work::stats_name(o.stats),
        "chess960": o.chess960,
        "shards": shards,
        "positions": f.len(),
        "paths": u128_value(paths),
        "root_moves": f.root_moves,
        "frontier_sha256": super::frontier_sha(&f),
        "shard_sha256": shard_sha,
        "estimate": {
            "nodes": est.nodes,
            "work_nodes": est.work_nodes,
            "core_hours": est.core_hours,
            "sampled_positions": est.sampled,
            "sample_depth": est.sample_depth,
        },
    });
    let plan = seal_plan(plan);
    let text = format!("{}\n", serde_json::to_string_pretty(&plan).expect("JSON"));
    write_launchers(o, shards)?;
    write_atomic(&o.out.join("plan.json"), text.as_bytes())?;
    Ok((plan, est))
}

/// `plan --out` must be a new directory or an empty one: a plan is never written over (or mixed with) other
/// files, such as the journals and results of an older plan.
fn check_out_dir(out: &Path) -> Result<()> {
    let shown = out.display();
    if out.as_os_str().is_empty() {
        return Err(Error::Usage("--out: '' is not a directory name".into()));
    }
    if out.join("plan.json").exists() {
        return Err(Error::Usage(format!(
            "--out: '{shown}' already holds a plan.json; choose a new directory"
        )));
    }
    match std::fs::metadata(out) {
        Ok(m) if !m.is_dir() => Err(Error::Usage(format!(
            "--out: '{shown}' is a file, not a directory; choose a new directory"
        ))),
        Ok(_) => {
            let mut entries = std::fs::read_dir(out).map_err(|e| {
                Error::Usage(format!("--out: cannot read the directory '{shown}': {e}"))
            })?;
            match entries.next() {
                None => Ok(()),
                Some(e) => Err(Error::Usage(format!(
                    "--out: '{shown}' is not empty (it holds '{}') and has no plan.json; choose a new or \
                     empty directory",
                    e.map(|e| e.file_name().to_string_lossy().into_owned())
                        .unwrap_or_else(|_| "?".into())
                ))),
            }
        }
        Err(_) => Ok(()),
    }
}

/// Seal plan.json's object: `field_sha256` holds a checksum of each field (so an edit names its field) and
/// `sha256` one of the whole.
fn seal_plan(plan: Value) -> Value {
    let Value::Object(mut obj) = plan else {
        return plan;
    };
    let fields: Map<String, Value> = obj
        .iter()
        .map(|(k, v)| (k.clone(), Value::from(sha256_hex(v.to_string().as_bytes()))))
        .collect();
    obj.insert("field_sha256".into(), Value::Object(fields));
    seal(obj)
}

/// Check plan.json's seal; `Err` names the fields that were edited.
fn check_plan_seal(plan: &Value) -> std::result::Result<(), String> {
    if is_sealed(plan) {
        return Ok(());
    }
    let Some(obj) = plan.as_object() else {
        return Err("not a JSON object".into());
    };
    if !obj.contains_key("sha256") {
        return Err("it has no checksum (sha256): not written by this perftlab, or edited".into());
    }
    let Some(fields) = obj.get("field_sha256").and_then(Value::as_object) else {
        return Err("its field checksums (field_sha256) are missing".into());
    };
    let mut edited: Vec<String> = obj
        .iter()
        .filter(|(k, _)| *k != "sha256" && *k != "field_sha256")
        .filter(|(k, v)| {
            let want = sha256_hex(v.to_string().as_bytes());
            fields.get(*k).and_then(Value::as_str) != Some(want.as_str())
        })
        .map(|(k, _)| format!("'{k}'"))
        .collect();
    edited.extend(
        fields
            .keys()
            .filter(|k| !obj.contains_key(*k))
            .map(|k| format!("'{k}' (removed)")),
    );
    if edited.is_empty() {
        return Err("its checksums (sha256, field_sha256) were edited".into());
    }
    Err(format!(
        "field {} was edited (its checksum no longer matches)",
        edited.join(", ")
    ))
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn write_launchers(o: &PlanOptions, shards: usize) -> Result<()> {
    let dir = std::fs::canonicalize(&o.out).map_err(io_err(&o.out))?;
    let dir_s = dir.display().to_string();
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "perftlab".into());
    let cpus = o.cpus_per_unit.max(1);
    let time = o
        .slurm_time
        .as_ref()
        .map(|t| format!("#SBATCH --time={t}\n"))
        .unwrap_or_default();
    let sbatch = format!(
        r#"#!/bin/bash
# perftlab work units on Slurm: one array task per shard. Submit with `sbatch {dir}/slurm.sbatch`.
# Resubmit only what is missing with `sbatch --array=$(perftlab status {dir} --array) {dir}/slurm.sbatch`.
# 120 s before the time limit Slurm sends SIGUSR1 to this script, which stops perftlab (its journal keeps
# every finished position) and requeues the task; the requeued task resumes from the journal.
# MaxArraySize defaults to 1001 in slurm.conf: plans with more shards need it raised (or several arrays).
#SBATCH --job-name=perftlab
#SBATCH --array=0-{last}
#SBATCH --cpus-per-task={cpus}
#SBATCH --output={logs}/slurm-%A_%a.out
#SBATCH --open-mode=append
#SBATCH --signal=B:USR1@120
#SBATCH --requeue
{time}
PERFTLAB=${{PERFTLAB:-{exe}}}
PLAN_DIR=${{PERFTLAB_PLAN_DIR:-{dir}}}
requeue() {{
  kill -TERM "$child" 2>/dev/null
  wait "$child"
  scontrol requeue "${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}"
  exit 0
}}
trap requeue USR1
"$PERFTLAB" run-unit "$PLAN_DIR" --shard "$SLURM_ARRAY_TASK_ID" --threads "${{SLURM_CPUS_PER_TASK:-{cpus}}}" &
child=$!
wait "$child"
"#,
        dir = shell_quote(&dir_s),
        last = shards - 1,
        logs = dir.join("logs").display(),
        exe = shell_quote(&exe),
    );
    let k8s = format!(
        r#"# perftlab work units as a Kubernetes Indexed Job: pod i runs shard i (JOB_COMPLETION_INDEX).
# The plan directory must be on a shared volume (here the PersistentVolumeClaim "perftlab-plan", mounted at
# /plan) and the image must contain the perftlab binary. A pod that fails (or is evicted: SIGTERM, exit 143,
# journal kept) is retried up to backoffLimitPerIndex times for its index; retries resume from the journal.
# Needs Kubernetes 1.33 or newer (backoffLimitPerIndex is GA there). Run: kubectl apply -f k8s-job.yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: perftlab-units
spec:
  completionMode: Indexed
  completions: {shards}
  parallelism: {par}
  backoffLimitPerIndex: 3
  maxFailedIndexes: {shards}
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 30
      containers:
        - name: perftlab
          image: perftlab:latest
          command: ["perftlab", "run-unit", "/plan", "--threads", "{cpus}"]
          env:
            - name: JOB_COMPLETION_INDEX
              valueFrom:
                fieldRef:
                  fieldPath: metadata.annotations['batch.kubernetes.io/job-completion-index']
          resources:
            requests:
              cpu: "{cpus}"
          volumeMounts:
            - name: plan
              mountPath: /plan
      volumes:
        - name: plan
          persistentVolumeClaim:
            claimName: perftlab-plan
"#,
        par = shards.min(64),
    );
    let parallel = format!(
        r#"#!/usr/bin/env bash
# perftlab work units with GNU parallel: one job per shard, in a fixed order so that --resume-failed can match
# them. Extra arguments go to parallel, e.g. `-j 8` or `--sshloginfile hosts.txt` (every host needs perftlab
# and this directory at the same path, e.g. on NFS). Rerunning this script reruns only failed or missing
# shards (joblog: parallel.joblog); finished shards are also skipped by run-unit itself.
set -uo pipefail
PERFTLAB=${{PERFTLAB:-{exe}}}
PLAN_DIR=${{PERFTLAB_PLAN_DIR:-{dir}}}
seq 0 {last} | parallel --joblog "$PLAN_DIR/parallel.joblog" --resume-failed "$@" \
  "$PERFTLAB" run-unit "$PLAN_DIR" --shard {{}} --threads {cpus} --quiet
"$PERFTLAB" status "$PLAN_DIR"
"#,
        dir = shell_quote(&dir_s),
        last = shards - 1,
        exe = shell_quote(&exe),
    );
    for (name, text, exec) in [
        ("slurm.sbatch", sbatch, true),
        ("k8s-job.yaml", k8s, false),
        ("run-parallel.sh", parallel, true),
    ] {
        let p = o.out.join(name);
        write_atomic(&p, text.as_bytes())?;
        #[cfg(unix)]
        if exec {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755));
        }
        #[cfg(not(unix))]
        let _ = exec;
    }
    Ok(())
}

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

    /// The unit of shard `k`, checked against the plan's SHA-256.
    fn unit(&self, k: usize) -> std::result::Result<Unit, String> {
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
        let v: Value =
            serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", p.display()))?;
        let bad = || format!("{}: malformed unit", p.display());
        let mut positions = Vec::new();
        for x in v["positions"].as_array().ok_or_else(bad)? {
            let i = x["i"].as_u64().ok_or_else(bad)? as usize;
            let fen = x["fen"].as_str().ok_or_else(bad)?.to_string();
            let setup = Checked::from_fen(&fen).map_err(|_| bad())?;
            let mult = as_u128(&x["mult"]).ok_or_else(bad)?;
            let by_move = x["by_move"]
                .as_object()
                .ok_or_else(bad)?
                .iter()
                .map(|(m, c)| as_u128(c).map(|c| (m.clone(), c)))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(bad)?;
            positions.push(UnitPosition {
                i,
                fen,
                setup,
                mult,
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

struct UnitPosition {
    i: usize,
    fen: String,
    setup: Checked,
    mult: u128,
    by_move: Vec<(String, u128)>,
}

struct Unit {
    sha: String,
    positions: Vec<UnitPosition>,
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
    let totals = unit_totals(unit, &results, false);
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

fn unit_totals(unit: &Unit, results: &BTreeMap<usize, PieceResult>, divide: bool) -> Totals {
    let mut t = Totals {
        divide: divide.then(BTreeMap::new),
        ..Totals::default()
    };
    for p in &unit.positions {
        if let Some(r) = results.get(&p.i) {
            t.add(p.mult, &p.by_move, r);
        }
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
    Err(Error::Usage(
        "run-unit: no shard given: pass --shard K, or run under a Slurm array (SLURM_ARRAY_TASK_ID) or a \
         Kubernetes Indexed Job (JOB_COMPLETION_INDEX)"
            .into(),
    ))
}

/// Check a `--tag`: 1 to 32 letters, digits, `-` or `_` (it becomes part of a file name).
///
/// # Errors
/// [`Error::Usage`] naming `--tag`.
pub fn check_tag(t: &str) -> Result<()> {
    if t.is_empty()
        || t.len() > 32
        || !t
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(Error::Usage(format!(
            "--tag: '{}' must be 1 to 32 letters, digits, '-' or '_'",
            t.escape_debug()
        )));
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
        return Err(Error::Usage(format!(
            "--shard: '{k}' is not a shard of this plan (0 to {})",
            plan.shards - 1
        )));
    }
    if let Some(t) = &o.tag {
        check_tag(t)?;
    }
    let tag = o.tag.as_deref();
    let unit = plan.unit(k).map_err(Error::Usage)?;
    let out = plan.result_path(k, tag);
    if out.exists() {
        match check_result(&plan, k, &unit, &out) {
            Ok(done) => {
                // A different --zobrist-seed does not make a finished shard count again: say how to add it.
                let seeds = match (o.zobrist_seed, done.seed) {
                    (Some(want), Some(had)) if want != had => format!(
                        " with Zobrist seed {had}, not {want}: give this run a --tag to add an \
                         independent result"
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
    let fens: BTreeMap<usize, &str> = unit
        .positions
        .iter()
        .map(|p| (p.i, p.fen.as_str()))
        .collect();
    let n_all = plan.json["positions"].as_u64().unwrap_or(0) as usize;
    let mut fen_list = vec![String::new(); n_all];
    for (&i, &f) in &fens {
        if i < n_all {
            fen_list[i] = f.to_string();
        }
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
    let todo: Vec<(usize, Checked, String)> = unit
        .positions
        .iter()
        .map(|p| (p.i, p.setup.clone(), p.fen.clone()))
        .collect();
    let run = work::run_positions(
        engine,
        &todo,
        plan.rest(),
        plan.stats(),
        Some(&mut journal as &mut dyn work::Recorder),
        progress,
        &format!("run-unit shard {k}"),
        "; they are saved in the journal: run the same command again to resume",
    )?;
    let results = &run.results;
    let seconds = clock.elapsed().as_secs_f64();
    let totals = unit_totals(&unit, results, false);
    let positions: Vec<Value> = unit
        .positions
        .iter()
        .map(|p| {
            let mut m = results[&p.i].to_json();
            m.insert("i".into(), Value::from(p.i as u64));
            Value::Object(m)
        })
        .collect();
    let mut r = Map::new();
    r.insert("perftlab_result".into(), Value::from(FORMAT));
    r.insert("plan_sha256".into(), Value::from(plan.sha.as_str()));
    r.insert("shard".into(), Value::from(k as u64));
    r.insert("shard_sha256".into(), Value::from(unit.sha.as_str()));
    r.insert("tag".into(), tag.map_or(Value::Null, Value::from));
    r.insert("backend".into(), Value::from(engine.name()));
    r.insert(
        "zobrist_seed".into(),
        o.zobrist_seed.map_or(Value::Null, Value::from),
    );
    r.insert("version".into(), Value::from(env!("CARGO_PKG_VERSION")));
    r.insert("host".into(), Value::from(host()));
    r.insert("started".into(), Value::from(started));
    r.insert("finished".into(), Value::from(now_secs()));
    r.insert("seconds".into(), json!(seconds));
    // Where the time went: in the backend, and outside it (plan and journal reading, journal writes).
    r.insert("backend_seconds".into(), json!(run.backend_seconds));
    r.insert(
        "overhead_seconds".into(),
        json!((seconds - run.backend_seconds).max(0.0)),
    );
    r.insert("batches".into(), Value::from(run.batches as u64));
    r.insert("depth".into(), Value::from(plan.rest()));
    r.insert("positions".into(), Value::Array(positions));
    r.insert(
        "totals".into(),
        Value::Object(
            PieceResult {
                nodes: totals.nodes,
                stats: totals.stats.clone(),
            }
            .to_json(),
        ),
    );
    let text = format!("{}\n", seal(r));
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
        let ok = match plan.unit(k) {
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
            .unit(k)
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
                    "shard {k}: runs {} agree but all used {way}: not independent hashings (give a --tag \
                     run another --backend or --zobrist-seed)",
                    runs.join(", ")
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
    fn default_split_leaves_four_plies_between_ply_1_and_5() {
        let got: Vec<u32> = (2..=12).map(super::default_split).collect();
        assert_eq!(got, [1, 1, 1, 1, 2, 3, 4, 5, 5, 5, 5]);
    }

    #[test]
    fn slurm_array_strings() {
        assert_eq!(array_string(&[]), "");
        assert_eq!(array_string(&[4]), "4");
        assert_eq!(array_string(&[4, 7, 10, 11, 12]), "4,7,10-12");
        assert_eq!(array_string(&[0, 1, 3, 4]), "0-1,3-4");
    }
}
