//! `perftlab compare`: compare an external engine's divide (UCI `go perft` or a perftree script) with
//! perftlab's, drilling down to the minimal failing position; one position or a whole suite.

use super::stress::{note_progress, print_summary, progress_bar, Summary};
use super::{init_threads, EngineArgs, PositionArgs};
use crate::backend;
use crate::compare::{self, Comparison, Protocol};
use crate::error::{Error, Result};
use crate::perft::check_position;
use crate::suite;
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `perftlab compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The engine's command line, e.g. "stockfish" or "./perft.sh" (quotes group words).
    #[arg(long)]
    pub engine: String,
    /// What the engine speaks: UCI (`go perft`) or perftree's script protocol.
    #[arg(long, value_enum, default_value_t = Protocol::Uci)]
    pub protocol: Protocol,
    #[command(flatten)]
    pub position: PositionArgs,
    /// Moves (UCI) played from the position first; several per value or several values.
    #[arg(long, num_args = 1.., conflicts_with = "suite")]
    pub moves: Vec<String>,
    /// Depth in plies.
    #[arg(long)]
    pub depth: u32,
    /// Compare every position of a suite file (EPD or `.perft` blocks) at `--depth`.
    #[arg(long, conflicts_with_all = ["fen", "startpos"])]
    pub suite: Option<PathBuf>,
    /// Seconds the engine may take for one answer.
    #[arg(long, default_value_t = 120.0)]
    pub timeout: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub backend: EngineArgs,
}

/// A spinner on stderr for one comparison, hidden when stderr is not a terminal or with `--quiet`.
fn spinner(quiet: bool) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let s = indicatif::ProgressBar::new_spinner();
    s.enable_steady_tick(Duration::from_millis(120));
    s
}

/// Parse `--timeout`.
pub(crate) fn timeout(secs: f64) -> Result<Duration> {
    if !(secs > 0.0 && secs.is_finite()) {
        return Err(Error::Usage(format!(
            "--timeout: '{secs}' is not a positive number of seconds"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Print one comparison as text.
pub(crate) fn print_comparison(c: &Comparison, engine: &str) {
    if c.agree {
        println!(
            "agree: {} nodes at depth {} (engine '{engine}' and perftlab)",
            c.nodes, c.depth
        );
        return;
    }
    println!(
        "MISMATCH at depth {}: engine '{engine}' {} nodes, perftlab {}",
        c.depth, c.engine_nodes, c.nodes
    );
    println!("root:    {}", c.root);
    println!(
        "path:    {}",
        if c.path.is_empty() {
            "(root)".to_string()
        } else {
            c.path.join(" ")
        }
    );
    println!("fen:     {}", c.fen);
    println!("depth:   {}", c.failing_depth);
    println!("missing: {}", c.missing.join(" "));
    println!("extra:   {}", c.extra.join(" "));
    for w in &c.wrong_counts {
        println!(
            "count:   {} engine {} perftlab {}",
            w.mv, w.engine, w.perftlab
        );
    }
    let kinds: Vec<&str> = c.kinds.iter().map(|k| k.name()).collect();
    println!("kinds:   {}", kinds.join(" "));
}

pub fn run(a: CompareArgs) -> Result<i32> {
    let timeout = timeout(a.timeout)?;
    let opts = a.backend.options()?;
    init_threads(opts.threads);
    let ours = backend::create(a.backend.backend, &opts)?;
    if let Some(path) = &a.suite {
        let entries = suite::load(path)?;
        let chess960 =
            a.position.chess960 || entries.iter().any(|e| e.setup.needs_chess960_notation());
        let mut engine = compare::start(a.protocol, &a.engine, chess960, timeout)?;
        let bar = progress_bar(entries.len() as u64, a.quiet, "positions");
        let mut summary = Summary::default();
        note_progress(&summary, entries.len(), a.json);
        for e in &entries {
            bar.inc(1);
            if let Err(err) = check_position(&e.setup) {
                bar.suspend(|| eprintln!("skipped line {}: {err}", e.line));
                summary.skipped += 1;
                continue;
            }
            let fen = e.setup.to_fen();
            let c = match compare::compare(
                engine.as_mut(),
                ours.as_ref(),
                &fen,
                &[],
                &e.setup,
                a.depth,
                chess960,
            ) {
                Ok(c) => c,
                // The engine failed on this position (some crash on impossible ones): report it, start a
                // fresh engine and go on; the run then ends with exit 2.
                Err(Error::Backend(msg)) => {
                    bar.suspend(|| eprintln!("{}:{}: {msg}", path.display(), e.line));
                    summary
                        .engine_errors
                        .push(format!("{}:{}: {msg}", path.display(), e.line));
                    engine = compare::start(a.protocol, &a.engine, chess960, timeout)?;
                    continue;
                }
                Err(other) => return Err(other),
            };
            if !c.agree && !a.json {
                bar.suspend(|| {
                    println!("{}:{}:", path.display(), e.line);
                    print_comparison(&c, &engine.describe());
                    println!();
                });
            }
            summary.add(c);
            note_progress(&summary, entries.len(), a.json);
        }
        bar.finish_and_clear();
        print_summary(&summary, a.json);
        return Ok(if !summary.engine_errors.is_empty() {
            2
        } else if summary.failures.is_empty() {
            0
        } else {
            1
        });
    }
    let root = a.position.setup()?;
    check_position(&root)?;
    let chess960 = a.position.chess960_for(&root);
    let moves = compare::split_moves(&a.moves);
    let (prefix, start) = compare::prepare_moves(&root, &moves, chess960)?;
    check_position(&start)?;
    let mut engine = compare::start(a.protocol, &a.engine, chess960, timeout)?;
    let spinner = spinner(a.quiet);
    let c = compare::compare_with_progress(
        engine.as_mut(),
        ours.as_ref(),
        &root.to_fen(),
        &prefix,
        &start,
        a.depth,
        chess960,
        &mut |path, d| {
            spinner.set_message(if path.is_empty() {
                format!("comparing the root at depth {d}")
            } else {
                format!("drilling down: {} at depth {d}", path.join(" "))
            })
        },
    )?;
    spinner.finish_and_clear();
    if a.json {
        println!("{}", serde_json::to_string(&c).expect("serializable"));
    } else {
        print_comparison(&c, &engine.describe());
    }
    Ok(if c.agree { 0 } else { 1 })
}
