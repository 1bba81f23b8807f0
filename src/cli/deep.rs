//! `perftlab plan`, `run-unit`, `status` and `merge`: work units for Slurm, Kubernetes and GNU parallel (see
//! [`crate::deep::units`]).

use super::{BackendArgs, BackendKind, PositionArgs};
use crate::backend::{Backend, Column, Detail};
use crate::deep::plan::{self, PlanOptions};
use crate::deep::snapshot::{TableShape, TableStore};
use crate::deep::units::{self, RunUnitOptions};
use crate::deep::work;
use crate::error::{Error, Result};
use crate::fast::hash::EXPORT_RECORD_BYTES;
use crate::fast::CpuBackend;
use clap::Args;
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Parse the value of `--zobrist-seed`: a decimal number or `0x` and hex digits, up to 2^64 - 1.
///
/// # Errors
/// A message naming the accepted forms (clap reports it with the flag and exit code 2).
pub(crate) fn parse_zobrist_seed(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => t.parse().ok(),
        None => None,
    };
    parsed.ok_or_else(|| {
        format!(
            "'{s}' is not a seed (a number from 0 to 18446744073709551615, or 0x and 1 to 16 hex digits)"
        )
    })
}

/// A backend built from the flags, with its hash table when it is the CPU backend's (saved beside a deep
/// run's journal: [`crate::deep::snapshot`]).
pub(super) enum Engine {
    Cpu(std::sync::Arc<CpuBackend>),
    Other(Box<dyn Backend>),
}

impl Engine {
    /// [`BackendArgs::create_seeded`], keeping the CPU backend's type.
    ///
    /// # Errors
    /// As [`BackendArgs::create_seeded`].
    pub(super) fn create(a: &BackendArgs, seed: Option<u64>) -> Result<Engine> {
        if a.backend != BackendKind::Cpu {
            return Ok(Engine::Other(a.create_seeded(seed)?));
        }
        a.check(BackendKind::Cpu)?;
        super::init_threads(a.threads);
        let cpu = CpuBackend::new(a.hash_mb(), a.threads, !a.no_merge)?;
        Ok(Engine::Cpu(std::sync::Arc::new(match seed {
            Some(s) => cpu.with_zobrist_seed(s),
            None => cpu,
        })))
    }

    pub(super) fn backend(&self) -> &dyn Backend {
        match self {
            Engine::Cpu(c) => c.as_ref(),
            Engine::Other(b) => b.as_ref(),
        }
    }

    pub(super) fn table(&self) -> Option<std::sync::Arc<dyn TableStore>> {
        match self {
            Engine::Cpu(c) => Some(c.clone()),
            Engine::Other(_) => None,
        }
    }
}

/// The CPU backend's count table, as [`crate::deep::snapshot`] saves and loads it.
impl TableStore for CpuBackend {
    fn shape(&self) -> Option<TableShape> {
        self.with_count_table(|t| {
            t.map(|t| TableShape {
                zobrist_seed: self.zobrist_seed(),
                bytes: t.bytes() as u64,
                buckets: t.buckets() as u64,
                record_bytes: EXPORT_RECORD_BYTES,
            })
        })
    }

    fn export(
        &self,
        depths: std::ops::Range<u32>,
        seen: Option<&mut Vec<u8>>,
        sink: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<u64> {
        self.with_count_table(|t| t.map_or(Ok(0), |t| t.export_changed(depths, seen, sink)))
    }

    fn import(&self, records: &[u8]) -> bool {
        self.with_count_table(|t| t.is_some_and(|t| t.import(records)))
    }

    fn clear(&self) {
        self.clear_hash();
    }
}

/// Parse `--slurm-time` (it is written into slurm.sbatch): Slurm's forms `MM`, `MM:SS`, `HH:MM:SS`, `D-HH`,
/// `D-HH:MM`, `D-HH:MM:SS`, or `UNLIMITED`/`INFINITE`.
fn parse_slurm_time(s: &str) -> std::result::Result<String, String> {
    let ok = matches!(s, "UNLIMITED" | "INFINITE" | "unlimited" | "infinite") || {
        let (days, rest) = match s.split_once('-') {
            Some((d, r)) => (Some(d), r),
            None => (None, s),
        };
        let parts: Vec<&str> = rest.split(':').collect();
        let number =
            |t: &str| !t.is_empty() && t.len() <= 6 && t.bytes().all(|b| b.is_ascii_digit());
        days.is_none_or(number) && parts.len() <= 3 && parts.iter().all(|p| number(p))
    };
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "'{}' is not a Slurm time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED)",
            s.escape_debug()
        ))
    }
}

/// The seed `backend` hashes with: `--zobrist-seed` or the default (None for backends without the fast
/// backend's keys); given to the backend when it is made ([`super::BackendArgs::create_seeded`]).
///
/// # Errors
/// [`Error::Usage`] when a seed is given for a backend that does not use it.
pub(crate) fn zobrist_seed(seed: Option<u64>, backend: super::BackendKind) -> Result<Option<u64>> {
    if backend != super::BackendKind::Cpu {
        return match seed {
            Some(s) => Err(Error::Usage(format!(
                "--zobrist-seed: '{s}' is for --backend cpu (the {} backend does not use these Zobrist keys)",
                format!("{backend:?}").to_lowercase()
            ))),
            None => Ok(None),
        };
    }
    Ok(Some(seed.unwrap_or(crate::fast::DEFAULT_ZOBRIST_SEED)))
}

/// Arguments of `perftlab plan`.
#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Moves (UCI or SAN) played from the position first; several per value or several values.
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Total depth in plies.
    #[arg(long)]
    depth: u32,
    /// Ply of the split: each distinct position there is one piece of work (default: --depth minus 4, minus
    /// 3 with --backend gpu, between 1 and 5, see `plan::default_split`).
    #[arg(long)]
    split_depth: Option<u32>,
    /// Memory budget of the split frontier in MiB (default 1024, at most three quarters of the memory
    /// available); a frontier that needs more is refused, naming the memory it needs (exit 2).
    #[arg(long, value_name = "MiB")]
    split_mem: Option<u64>,
    /// Number of shards (work units) the positions are dealt into.
    #[arg(long)]
    shards: usize,
    /// Count detail statistics too: `--stats` (= `--stats cpw`) the CPW columns and stalemates, `--stats full`
    /// also the check and mate categories (the columns of `perft --stats full`).
    #[arg(long, value_name = "cpw|full", num_args = 0..=1, default_missing_value = "cpw",
          value_parser = Detail::parse)]
    stats: Option<Detail>,
    /// The plan directory to create.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// CPUs (threads) per unit in the launchers.
    #[arg(long, default_value_t = 1)]
    cpus_per_unit: usize,
    /// Slurm time limit per array task (`--time` of sbatch, e.g. 04:00:00 or 2-12:00:00).
    #[arg(long, value_parser = parse_slurm_time)]
    slurm_time: Option<String>,
    /// Print plan.json instead of the summary.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

/// The hash table of `plan`'s backend without `--hash`: it counts perft S (the check of the frontier's paths)
/// and a few sampled positions to a shallow depth, which a 16 MiB table holds; the default 64 MiB cost a
/// tenth of `plan`'s time to allocate and clear.
const PLAN_HASH_MB: usize = 16;

/// The GPU flags `plan --backend gpu` was given and does not use (it opens no GPU: its check and estimate are
/// counted on the cpu backend), one warning each; the units' `run-unit --backend gpu` takes them.
fn gpu_flags_unused_by_plan(b: &BackendArgs) -> Vec<String> {
    [
        ("--adapter", b.adapter.is_some()),
        ("--gpu-mem", b.gpu_mem.is_some()),
        ("--checked-shaders", b.checked_shaders),
    ]
    .into_iter()
    .filter(|(_, given)| *given)
    .map(|(flag, _)| {
        format!(
            "{flag} does nothing for `plan --backend gpu` (the plan opens no GPU: it counts its check and \
             estimate on the cpu backend); give it to each `run-unit --backend gpu`"
        )
    })
    .collect()
}

pub fn plan(mut a: PlanArgs) -> Result<i32> {
    a.backend.hash.get_or_insert(PLAN_HASH_MB);
    crate::limits::check_thread_count("--cpus-per-unit", a.cpus_per_unit)?;
    crate::limits::check_depth("--depth", a.depth)?;
    let given = a.position.checked()?;
    let chess960 = a.position.chess960_for(&given);
    let moves = crate::line::split_moves(&a.moves);
    let root = super::play_line(&given, &moves)?.end().clone();
    // A plan for the GPU counts its check of perft S and its estimate on the CPU: they are the same numbers
    // (the estimate's core-hours then CPU core-hours), and opening the GPU and building its kernels for a few
    // shallow counts cost 0.9 CPU s against 0.25 (start perft 7, split 4; docs/deep-runs.md, "GPU units").
    // Only the shards' order is the GPU's ([`crate::gpu::GpuBackend::MERGES_ONLY_WITHIN_BATCH`]).
    let (engine, grouped) = if a.backend.backend == BackendKind::Gpu {
        for line in gpu_flags_unused_by_plan(&a.backend) {
            eprintln!("warning: {line}");
        }
        let cpu = a.backend.create_kind(BackendKind::Cpu)?;
        (cpu, crate::gpu::GpuBackend::MERGES_ONLY_WITHIN_BATCH)
    } else {
        let engine = a.backend.create()?;
        let grouped = engine.merges_only_within_batch();
        (engine, grouped)
    };
    let split = a
        .split_depth
        .unwrap_or(plan::default_split(a.depth, grouped));
    let o = PlanOptions {
        root,
        fen: given.to_fen(),
        moves,
        depth: a.depth,
        split,
        shards: a.shards,
        stats: a.stats,
        chess960,
        out: a.out.clone(),
        cpus_per_unit: a.cpus_per_unit,
        slurm_time: a.slurm_time,
        threads: a.backend.threads.unwrap_or_else(rayon::current_num_threads),
        split_mem: crate::deep::split::budget_mib(a.split_mem)?,
        grouped,
    };
    let (plan, est) = plan::plan(engine.as_ref(), &o, &mut |line| eprintln!("{line}"))?;
    if a.json {
        println!("{plan}");
        return Ok(0);
    }
    println!(
        "plan {}: depth {} split at ply {}: {} distinct positions ({} move paths) in {} shards",
        a.out.display(),
        a.depth,
        split,
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
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The shard (default: SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX).
    #[arg(long)]
    shard: Option<usize>,
    /// Write an independent second result of the shard under this name (another backend or another
    /// --zobrist-seed, for cross-checking).
    #[arg(long)]
    tag: Option<String>,
    /// Seed of the cpu backend's Zobrist keys (decimal or 0x hex; default: the built-in keys, seed
    /// 0x50455246544C4142): a --tag run with another seed hashes independently. Recorded in the result.
    #[arg(long, value_name = "N", value_parser = parse_zobrist_seed)]
    zobrist_seed: Option<u64>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

pub fn run_unit(a: RunUnitArgs) -> Result<i32> {
    if let Some(t) = &a.tag {
        units::check_tag(t)?;
    }
    let seed = zobrist_seed(a.zobrist_seed, a.backend.backend)?;
    let engine = Engine::create(&a.backend, seed)?;
    let code = units::run_unit(
        engine.backend(),
        &RunUnitOptions {
            dir: a.dir,
            shard: a.shard,
            tag: a.tag,
            zobrist_seed: seed,
            table: engine.table(),
        },
        &super::common::PositionsBar::new(a.quiet),
        &mut |line| eprintln!("{line}"),
    )?;
    // As `perft --verbose`: the backend's work report (the GPU's levels, distinct positions, table hits).
    if a.backend.verbose {
        if let Some(r) = engine.backend().report()? {
            eprint!("{}", r.text);
        }
    }
    Ok(code)
}

/// Arguments of `perftlab status`.
#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The plan directory.
    #[arg(value_name = "DIR")]
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
    #[arg(value_name = "DIR")]
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
        obj.insert("cross_checked_shards".into(), json!(m.cross_checked));
        work::json_fields(&m.totals, &mut obj);
        println!("{}", Value::Object(obj));
    } else {
        print_totals(&m.totals);
        eprintln!(
            "merged {} result files of {} shards ({}); {} shards cross-checked by two or more agreeing runs",
            m.files,
            m.plan.shards,
            m.backends.join(", "),
            m.cross_checked.len()
        );
    }
    for n in &m.notes {
        eprintln!("note: {n}");
    }
    Ok(0)
}

/// Print deep-run totals as `perft` does: divide lines and a blank line, statistics lines (the columns in `perft`'s
/// order, labels padded alike), `Nodes searched: N`.
pub(super) fn print_totals(t: &work::Totals) {
    if let Some(d) = &t.divide {
        for (m, n) in d {
            println!("{m}: {n}");
        }
        println!();
    }
    if let Some(s) = &t.stats {
        let cols: Vec<Column> = Column::ALL
            .into_iter()
            .filter(|c| s.contains_key(c.key()))
            .collect();
        let width = cols.iter().map(|c| c.label().len()).max().unwrap_or(0) + 1;
        for c in cols {
            println!("{:<width$} {}", c.label(), s[c.key()]);
        }
    }
    println!("Nodes searched: {}", t.nodes);
}
