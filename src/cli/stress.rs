//! `perftlab stress`: compare an external engine with perftlab on random reachable positions (biased
//! playouts, optionally from random Chess960 starts) and group the failures by the kind of move involved.

use super::compare::{print_comparison, timeout};
use super::{init_threads, EngineArgs};
use crate::backend;
use crate::compare::random::{random_position, Rng};
use crate::compare::{self, Comparison, FailureKind, Protocol};
use crate::error::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::IsTerminal;

/// Arguments of `perftlab stress`.
#[derive(Args, Debug)]
pub struct StressArgs {
    /// The engine's command line, e.g. "stockfish".
    #[arg(long)]
    engine: String,
    /// What the engine speaks.
    #[arg(long, value_enum, default_value_t = Protocol::Uci)]
    protocol: Protocol,
    /// How many random positions.
    #[arg(long, default_value_t = 100)]
    positions: u64,
    /// Seed of the random playouts (same seed, same positions).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Depth compared at each position.
    #[arg(long, default_value_t = 3)]
    depth: u32,
    /// Start playouts from random Chess960 positions (castling shown as king takes rook).
    #[arg(long)]
    chess960: bool,
    /// Longest playout, in plies.
    #[arg(long, default_value_t = 60)]
    max_plies: u32,
    /// Seconds the engine may take for one answer.
    #[arg(long, default_value_t = 120.0)]
    timeout: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    backend: EngineArgs,
}

/// A progress bar on stderr, hidden when stderr is not a terminal or with `--quiet`.
pub(crate) fn progress_bar(len: u64, quiet: bool, unit: &str) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {unit} {{elapsed}}"))
    {
        bar.set_style(style);
    }
    bar
}

/// Totals of a many-position run.
#[derive(Default)]
pub(crate) struct Summary {
    pub compared: u64,
    pub skipped: u64,
    /// Positions where the engine failed (died, hung, garbage), with the message (suites only).
    pub engine_errors: Vec<String>,
    pub nodes: u128,
    pub failures: Vec<Comparison>,
}

impl Summary {
    pub fn add(&mut self, c: Comparison) {
        self.compared += 1;
        self.nodes += c.nodes;
        if !c.agree {
            self.failures.push(c);
        }
    }

    fn by_kind(&self) -> BTreeMap<&'static str, usize> {
        let mut m = BTreeMap::new();
        for f in &self.failures {
            for k in &f.kinds {
                *m.entry(k.name()).or_insert(0) += 1;
            }
            if f.kinds.is_empty() {
                *m.entry(FailureKind::Other.name()).or_insert(0) += 1;
            }
        }
        m
    }
}

/// The summary as one JSON object.
pub(crate) fn summary_json(s: &Summary) -> serde_json::Value {
    json!({
            "agree": s.failures.is_empty(),
            "positions": s.compared,
            "skipped": s.skipped,
            "engine_errors": s.engine_errors,
            "failed": s.failures.len(),
            "nodes": s.nodes,
            "by_kind": s.by_kind(),
            "failures": s.failures,
    })
}

/// After each position: what an interruption prints (the JSON summary so far with `--json`) and says.
pub(crate) fn note_progress(s: &Summary, total: usize, as_json: bool) {
    crate::interrupt::set_status(format!(
        "{} of {total} positions compared ({} failed, {} skipped)",
        s.compared,
        s.failures.len(),
        s.skipped
    ));
    if as_json {
        let mut v = summary_json(s);
        v["interrupted"] = json!(true);
        crate::interrupt::set_partial_stdout(Some(v.to_string()));
    }
}

/// Print the summary (text or one JSON object).
pub(crate) fn print_summary(s: &Summary, as_json: bool) {
    if as_json {
        println!("{}", summary_json(s));
        return;
    }
    let by_kind = s.by_kind();
    println!(
        "{} positions compared ({} nodes), {} failed, {} skipped",
        s.compared,
        s.nodes,
        s.failures.len(),
        s.skipped
    );
    if !s.engine_errors.is_empty() {
        println!(
            "{} positions where the engine failed (see stderr)",
            s.engine_errors.len()
        );
    }
    if !by_kind.is_empty() {
        let parts: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!("failures by kind: {}", parts.join(", "));
    }
}

pub fn run(a: StressArgs) -> Result<i32> {
    let timeout = timeout(a.timeout)?;
    let opts = a.backend.options()?;
    init_threads(opts.threads);
    let ours = backend::create(a.backend.backend, &opts)?;
    let mut engine = compare::start(a.protocol, &a.engine, a.chess960, timeout)?;
    let mut rng = Rng::new(a.seed);
    let bar = progress_bar(a.positions, a.quiet, "positions");
    let mut summary = Summary::default();
    note_progress(&summary, a.positions as usize, a.json);
    for i in 0..a.positions {
        let setup = random_position(&mut rng, a.chess960, a.max_plies);
        let fen = setup.to_fen();
        let c = compare::compare(
            engine.as_mut(),
            ours.as_ref(),
            &fen,
            &[],
            &setup,
            a.depth,
            a.chess960 || setup.needs_chess960_notation(),
        )?;
        bar.inc(1);
        if !c.agree && !a.json {
            bar.suspend(|| {
                println!("position {} of seed {}:", i + 1, a.seed);
                print_comparison(&c, &engine.describe());
                println!();
            });
        }
        summary.add(c);
        note_progress(&summary, a.positions as usize, a.json);
    }
    bar.finish_and_clear();
    print_summary(&summary, a.json);
    Ok(if summary.failures.is_empty() { 0 } else { 1 })
}
