//! `perftlab plan`, `run-unit`, `status` and `merge`: work units for Slurm, Kubernetes and GNU parallel (see
//! [`crate::dist::units`]).

use super::{BackendArgs, PositionArgs};
use crate::analyze::play_line;
use crate::compare;
use crate::dist::units::{self, PlanOptions, RunUnitOptions};
use crate::dist::work;
use crate::error::{Error, Result};
use clap::{Args, ValueEnum};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Which statistics a plan counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum StatsMode {
    /// The Chess Programming Wiki columns (and stalemates).
    Cpw,
    /// The finer Grand Chess Tree columns (not available in this build).
    Full,
}

/// Arguments of `perftlab plan`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Moves (UCI) played from the position first; several per value or several values.
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Total depth in plies.
    #[arg(long)]
    depth: u32,
    /// Ply of the split: each distinct position there is one piece of work.
    #[arg(long)]
    split_depth: u32,
    /// Number of shards (work units) the positions are dealt into.
    #[arg(long)]
    shards: usize,
    /// Count detail statistics too (`--stats` = `--stats cpw`).
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "cpw")]
    stats: Option<StatsMode>,
    /// The plan directory to create.
    #[arg(long)]
    out: PathBuf,
    /// CPUs (threads) per unit in the launchers.
    #[arg(long, default_value_t = 1)]
    cpus_per_unit: usize,
    /// Slurm time limit per array task (`--time` of sbatch, e.g. 04:00:00).
    #[arg(long)]
    slurm_time: Option<String>,
    /// Print plan.json instead of the summary.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

pub fn plan(a: PlanArgs) -> Result<i32> {
    if a.stats == Some(StatsMode::Full) {
        return Err(Error::Usage(
            "--stats: 'full' (the Grand Chess Tree columns) is not computed by this build; use --stats"
                .into(),
        ));
    }
    if a.cpus_per_unit == 0 {
        return Err(Error::Usage(
            "--cpus-per-unit: '0' is not a CPU count (use 1 or more)".into(),
        ));
    }
    crate::limits::check_depth("--depth", a.depth)?;
    if a.cpus_per_unit > crate::limits::MAX_THREADS {
        return Err(Error::Usage(format!(
            "--cpus-per-unit: '{}' is more than the maximum of {} threads a unit can use",
            a.cpus_per_unit,
            crate::limits::MAX_THREADS
        )));
    }
    let given = a.position.checked()?;
    let chess960 = a.position.chess960_for(&given);
    let moves = compare::split_moves(&a.moves);
    let root = play_line(&given, &moves)?.end().clone();
    let engine = a.backend.create()?;
    let o = PlanOptions {
        root,
        fen: given.to_fen(),
        moves,
        depth: a.depth,
        split: a.split_depth,
        shards: a.shards,
        stats: a.stats.is_some(),
        chess960,
        out: a.out.clone(),
        cpus_per_unit: a.cpus_per_unit,
        slurm_time: a.slurm_time,
        threads: a.backend.threads.unwrap_or_else(rayon::current_num_threads),
    };
    let (plan, est) = units::plan(engine.as_ref(), &o)?;
    if a.json {
        println!("{plan}");
        return Ok(0);
    }
    println!(
        "plan {}: depth {} split at ply {}: {} distinct positions ({} move paths) in {} shards",
        a.out.display(),
        a.depth,
        a.split_depth,
        plan["positions"],
        plan["paths"],
        plan["shards"]
    );
    println!(
        "estimate (from {} sampled positions counted to depth {}): about {:.3e} nodes, {:.3e} leaves to \
         count, {} core-hours at this machine's speed",
        est.sampled,
        est.sample_depth,
        est.nodes,
        est.work_nodes,
        if est.core_hours < 1e6 {
            format!("{:.2}", est.core_hours)
        } else {
            format!("{:.3e}", est.core_hours)
        }
    );
    println!(
        "launchers: {0}/slurm.sbatch, {0}/k8s-job.yaml, {0}/run-parallel.sh",
        a.out.display()
    );
    Ok(0)
}

/// Arguments of `perftlab run-unit`.
#[derive(Args, Debug)]
pub struct RunUnitArgs {
    /// The plan directory.
    dir: PathBuf,
    /// The shard (default: SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX).
    #[arg(long)]
    shard: Option<usize>,
    /// Write an independent second result of the shard under this name (another backend, for cross-checking).
    #[arg(long)]
    tag: Option<String>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

pub fn run_unit(a: RunUnitArgs) -> Result<i32> {
    let engine = a.backend.create()?;
    units::run_unit(
        engine.as_ref(),
        &RunUnitOptions {
            dir: a.dir,
            shard: a.shard,
            tag: a.tag,
            quiet: a.quiet,
        },
    )
}

/// Arguments of `perftlab status`.
#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The plan directory.
    dir: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Print only the Slurm array string of the shards still to run (for `sbatch --array=…`).
    #[arg(long, conflicts_with = "json")]
    array: bool,
}

pub fn status(a: StatusArgs) -> Result<i32> {
    let (plan, s) = units::status(&a.dir)?;
    let complete = s.missing.is_empty();
    let array = units::array_string(&s.missing);
    if a.array {
        println!("{array}");
    } else if a.json {
        println!(
            "{}",
            json!({
                "shards": plan.shards,
                "done": s.done,
                "partial": s.partial,
                "missing": s.missing,
                "missing_array": array,
                "invalid": s.invalid,
                "complete": complete,
            })
        );
    } else {
        println!(
            "{} of {} shards done, {} partial (journal, no result), {} missing",
            s.done.len(),
            plan.shards,
            s.partial.len(),
            s.missing.len() - s.partial.len()
        );
        for why in &s.invalid {
            println!("invalid: {why}");
        }
        if !complete {
            println!("to run: {array}");
        }
    }
    Ok(if complete { 0 } else { 1 })
}

/// Arguments of `perftlab merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The plan directory.
    dir: PathBuf,
    /// Print the count of each root move as `perft --divide` does.
    #[arg(long)]
    divide: bool,
    /// Print one JSON object (the keys of `perft --json`).
    #[arg(long)]
    json: bool,
}

pub fn merge(a: MergeArgs) -> Result<i32> {
    let m = units::merge(&a.dir, a.divide)?;
    if a.json {
        let mut obj = Map::new();
        obj.insert("fen".into(), m.plan.json["root_fen"].clone());
        obj.insert("depth".into(), m.plan.json["depth"].clone());
        obj.insert("backend".into(), Value::from(m.backends.join(",")));
        obj.insert("shards".into(), Value::from(m.plan.shards as u64));
        obj.insert("positions".into(), m.plan.json["positions"].clone());
        obj.insert("results".into(), Value::from(m.files as u64));
        work::json_fields(&m.totals, &mut obj);
        println!("{}", Value::Object(obj));
    } else {
        work::print_text(&m.totals);
        eprintln!(
            "merged {} result files of {} shards ({})",
            m.files,
            m.plan.shards,
            m.backends.join(", ")
        );
    }
    Ok(0)
}
