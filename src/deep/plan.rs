//! Writing a plan directory (`perftlab plan`, see [`super::units`] for what it holds): the frontier of the
//! split ply dealt into shards, the estimate from sampled positions, the sealed `plan.json` (a checksum per
//! field, so an edit names its field) and the launchers (`slurm.sbatch`, `k8s-job.yaml`, `run-parallel.sh`).
//! Also the names and helpers the unit runs share with it (shard names, host, clock).

use super::seal::{is_sealed, push_json_str, seal, sha256_hex, u128_value, write_atomic};
use super::split::{self, Frontier};
use super::work;
use crate::backend::{Backend, Detail};
use crate::error::{Error, Result, Setting, SettingError};
use crate::validate::Checked;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
/// Format version of plan, unit and result files.
pub const FORMAT: u64 = 1;

/// Largest plan.json read (its size does not grow with the positions: 1 MiB is far above any plan's).
pub(super) const MAX_PLAN_FILE_BYTES: u64 = 1 << 20;

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
    /// Deal the shards for units that run on a backend that merges transpositions only within a batch
    /// ([`Backend::merges_only_within_batch`] of the units' backend, not of the one that counts the plan's
    /// check and estimate): grouped by the placement of the side not to move ([`super::group`]).
    pub grouped: bool,
}

pub(super) fn shard_name(k: usize) -> String {
    format!("shard-{k:05}")
}

pub(super) fn now_secs() -> u64 {
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

pub(super) fn host() -> String {
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

/// Plies below the split that `plan` leaves when `--split-depth` is not given and the units' backend merges
/// transpositions only within a batch (the GPU, [`PlanOptions::grouped`]): the grouped order keeps together
/// the positions whose children transpose ([`super::group`]), one ply down, so each position's subtree is
/// its children's level (merged within the batch) and the fused last two plies. Split four plies above, the
/// level two plies down transposes across the batches and shards: start perft 8 split at ply 4, one shard of
/// four expanded 4,624,202 distinct positions at remaining depth 2 in its 47 batches (1,107,947 of them
/// answered by its table), where the plain count's one run expanded 11,120,887 − 1,313,079 = 9,807,808 in
/// all (docs/deep-runs.md, "GPU units (session 63)").
pub const GROUPED_SPLIT_REST: u32 = 3;

/// The split ply of a plan of depth `depth` when `--split-depth` is not given: `depth` − 4, or `depth` − 3
/// for units on a backend that merges only within a batch (`grouped`, [`GROUPED_SPLIT_REST`]); between 1
/// and [`DEFAULT_SPLIT_MAX`], below `depth`. Each position then has a subtree of at least 4 (3) plies (about
/// a million (thirty thousand) leaves, milliseconds of counting, against some microseconds of per-position
/// work outside the backend: reading its FEN, one journal line), and transpositions down to that ply are
/// merged exactly rather than found again through each unit's own, initially empty hash table.
pub fn default_split(depth: u32, grouped: bool) -> u32 {
    let rest = if grouped {
        GROUPED_SPLIT_REST
    } else {
        DEFAULT_SPLIT_REST
    };
    depth
        .saturating_sub(rest)
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
    super::check_split_depth(o.split, o.depth)?;
    if o.shards == 0 {
        return Err(SettingError::new(
            Setting::Shards,
            Some("0".into()),
            "shards cannot hold any work (use 1 or more)",
        )
        .into());
    }
    check_out_dir(&o.out)?;
    let (f, boards) = split::frontier_with_boards(&o.root, o.split, o.chess960, o.split_mem, true)?;
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
    // ([`split::Frontier::count_order`]). Planned for a backend whose runs merge transpositions only within
    // a batch (`o.grouped`: `plan --backend gpu`), the positions are grouped by the placement of the side
    // not to move instead, so that those whose children transpose into each other fall in one shard and one
    // batch of it ([`super::group`]; on the CPU that order cost 1.5× the plain count's time at start perft
    // 8, where the expansion order costs 1.1×: docs/deep-runs.md, "GPU units").
    let order = if o.grouped {
        super::group::grouped_order(&f, &boards)
    } else {
        f.count_order()
    };
    drop(boards);
    let by_name = name_ranks(&f.root_moves);
    for k in 0..shards {
        // The unit's text is written position by position (a JSON value of the whole unit would hold
        // several hundred bytes per position more than the text).
        let mut text = format!("{{\"perftlab_unit\":{FORMAT},\"positions\":[");
        let run = &order[k * order.len() / shards..(k + 1) * order.len() / shards];
        for (n, &i) in run.iter().enumerate() {
            if n > 0 {
                text.push(',');
            }
            push_unit_position(&mut text, i, &f.piece(i), &f.root_moves, &by_name);
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

/// Each root move's rank among the root moves' names in text order (the order of a JSON object's keys).
fn name_ranks(names: &[String]) -> Vec<usize> {
    let mut sorted: Vec<usize> = (0..names.len()).collect();
    sorted.sort_by(|&a, &b| names[a].cmp(&names[b]));
    let mut rank = vec![0; names.len()];
    for (r, m) in sorted.into_iter().enumerate() {
        rank[m] = r;
    }
    rank
}

/// Append a unit file's position `i` as its JSON object `{"by_move": {move: multiplicity, …}, "fen", "i",
/// "mult"}`, keys in order (the text `serde_json` writes for that object, without making it: `plan` writes
/// one per frontier position); `rank` from [`name_ranks`] of the root move names `names`.
fn push_unit_position(
    out: &mut String,
    i: usize,
    p: &split::Piece<'_>,
    names: &[String],
    rank: &[usize],
) {
    let mut moves: Vec<(usize, u128)> = p.by_move().map(|(m, c)| (m as usize, c)).collect();
    moves.sort_by_key(|&(m, _)| rank[m]);
    out.push_str("{\"by_move\":{");
    for (n, (m, c)) in moves.into_iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        push_json_str(out, &names[m]);
        out.push_str(&format!(":{c}"));
    }
    out.push_str("},\"fen\":");
    push_json_str(out, p.fen);
    out.push_str(&format!(",\"i\":{i},\"mult\":{}}}", p.mult));
}

/// `plan --out` must be a new directory or an empty one: a plan is never written over (or mixed with) other
/// files, such as the journals and results of an older plan.
fn check_out_dir(out: &Path) -> Result<()> {
    let shown = out.display();
    let refuse = |value: Option<String>, why: String| -> Result<()> {
        Err(SettingError::new(Setting::Out, value, why).into())
    };
    if out.as_os_str().is_empty() {
        return refuse(Some(String::new()), "is not a directory name".into());
    }
    if out.join("plan.json").exists() {
        return refuse(
            Some(shown.to_string()),
            "already holds a plan.json; choose a new directory".into(),
        );
    }
    match std::fs::metadata(out) {
        Ok(m) if !m.is_dir() => refuse(
            Some(shown.to_string()),
            "is a file, not a directory; choose a new directory".into(),
        ),
        Ok(_) => {
            let mut entries = match std::fs::read_dir(out) {
                Ok(entries) => entries,
                Err(e) => return refuse(None, format!("cannot read the directory '{shown}': {e}")),
            };
            match entries.next() {
                None => Ok(()),
                Some(e) => refuse(
                    Some(shown.to_string()),
                    format!(
                        "is not empty (it holds '{}') and has no plan.json; choose a new or empty directory",
                        e.map(|e| e.file_name().to_string_lossy().into_owned())
                            .unwrap_or_else(|_| "?".into())
                    ),
                ),
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
pub(super) fn check_plan_seal(plan: &Value) -> std::result::Result<(), String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_positions_are_written_as_serde_json_writes_their_objects() {
        // The six CPW "Perft Results" positions at ply 2 (castling, promotions, e.p.) and the start position at
        // ply 3: each position's text is that of the JSON object the plan wrote before (keys and root moves
        // in text order), and its by_move is the frontier's.
        let mut roots: Vec<(Checked, u32)> = crate::cpw::POSITIONS
            .iter()
            .map(|p| (Checked::from_fen(p.fen).unwrap(), 2))
            .collect();
        roots.push((Checked::startpos(), 3));
        for (root, plies) in roots {
            let f = split::frontier(&root, plies, false, split::DEFAULT_BUDGET_MIB).unwrap();
            let rank = name_ranks(&f.root_moves);
            for (i, p) in f.pieces().enumerate() {
                let by_move: Map<String, Value> = p
                    .by_move()
                    .map(|(m, c)| (f.root_moves[m as usize].clone(), u128_value(c)))
                    .collect();
                assert_eq!(by_move.len(), p.by_move().len(), "{}", p.fen);
                let want =
                    json!({ "i": i, "fen": p.fen, "mult": u128_value(p.mult), "by_move": by_move });
                let mut got = String::new();
                push_unit_position(&mut got, i, &p, &f.root_moves, &rank);
                assert_eq!(got, want.to_string());
            }
        }
    }

    #[test]
    fn default_split_leaves_four_plies_between_ply_1_and_5() {
        let got: Vec<u32> = (2..=12).map(|d| super::default_split(d, false)).collect();
        assert_eq!(got, [1, 1, 1, 1, 2, 3, 4, 5, 5, 5, 5]);
    }

    #[test]
    fn default_split_of_a_grouped_plan_leaves_three_plies_between_ply_1_and_5() {
        let got: Vec<u32> = (2..=12).map(|d| super::default_split(d, true)).collect();
        assert_eq!(got, [1, 1, 1, 2, 3, 4, 5, 5, 5, 5, 5]);
    }
}
