//! `perftlab compare`: compare an external engine's divide (UCI `go perft` or a perftree script) with
//! perftlab's, drilling down to the minimal failing position; one position or a whole suite.

use super::common::{print_comparison, progress_bar, spinner, timeout, ProtocolArg, Summary};
use super::{BackendArgs, PositionArgs};
use crate::analyze::{play_line, Line};
use crate::compare::{self, Request};
use crate::error::{Error, Result};
use crate::suite;
use crate::validate::Checked;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `perftlab compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The engine's command line, e.g. "stockfish" or "./perft.sh" (quotes group words).
    #[arg(long)]
    pub engine: String,
    /// What the engine speaks: UCI (`go perft`) or perftree's script protocol.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Uci)]
    pub protocol: ProtocolArg,
    #[command(flatten)]
    pub position: PositionArgs,
    /// Moves (UCI or SAN) played from the position first; several per value or several values.
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
    pub backend: BackendArgs,
}

pub fn run(a: CompareArgs) -> Result<i32> {
    let timeout = timeout(a.timeout)?;
    let ours = a.backend.create()?;
    let protocol = a.protocol.into();
    if let Some(path) = &a.suite {
        let entries = suite::load(path)?;
        let chess960 =
            a.position.chess960 || entries.iter().any(|e| e.setup.needs_chess960_notation());
        let mut engine = compare::start(protocol, &a.engine, chess960, timeout)?;
        let bar = progress_bar(entries.len() as u64, a.quiet, "positions");
        let mut summary = Summary::default();
        for e in &entries {
            bar.inc(1);
            let line = match Checked::new(e.setup.clone()) {
                Ok(pos) => Line::new(pos),
                Err(err) => {
                    bar.suspend(|| eprintln!("skipped line {}: {err}", e.line));
                    summary.skipped += 1;
                    continue;
                }
            };
            let request = Request {
                line: &line,
                depth: a.depth,
                chess960,
            };
            let c = match compare::compare(engine.as_mut(), ours.as_ref(), &request, &mut |_, _| {})
            {
                Ok(c) => c,
                // The engine failed on this position (some crash on impossible ones): report it, start a
                // fresh engine and go on; the run then ends with exit 2.
                Err(Error::Backend(msg)) => {
                    bar.suspend(|| eprintln!("{}:{}: {msg}", path.display(), e.line));
                    summary
                        .engine_errors
                        .push(format!("{}:{}: {msg}", path.display(), e.line));
                    engine = compare::start(protocol, &a.engine, chess960, timeout)?;
                    continue;
                }
                Err(other) => return Err(other),
            };
            if !c.agree() && !a.json {
                bar.suspend(|| {
                    println!("{}:{}:", path.display(), e.line);
                    print_comparison(&c, &engine.describe());
                    println!();
                });
            }
            summary.add(c);
        }
        bar.finish_and_clear();
        summary.print(a.json);
        return Ok(if !summary.engine_errors.is_empty() {
            2
        } else if summary.failures.is_empty() {
            0
        } else {
            1
        });
    }
    let root = a.position.checked()?;
    let chess960 = a.position.chess960_for(&root);
    let line = play_line(&root, &compare::split_moves(&a.moves))?;
    let mut engine = compare::start(protocol, &a.engine, chess960, timeout)?;
    let spinner = spinner(a.quiet);
    let request = Request {
        line: &line,
        depth: a.depth,
        chess960,
    };
    let c = compare::compare(engine.as_mut(), ours.as_ref(), &request, &mut |path, d| {
        spinner.set_message(if path.is_empty() {
            format!("comparing the root at depth {d}")
        } else {
            format!("drilling down: {} at depth {d}", path.join(" "))
        })
    })?;
    spinner.finish_and_clear();
    if a.json {
        println!("{}", serde_json::to_string(&c).expect("serializable"));
    } else {
        print_comparison(&c, &engine.describe());
    }
    Ok(if c.agree() { 0 } else { 1 })
}
