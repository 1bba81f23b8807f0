//! `perftlab compare`: compare an external engine's divide (UCI `go perft` or a perftree script) with
//! perftlab's, drilling down to the minimal failing position; one position or a whole suite.

use super::common::{print_comparison, progress_bar, spinner, timeout, ProtocolArg, Summary};
use super::pictures::{self, PictureArgs};
use super::play_moves;
use super::{BackendArgs, PositionArgs};
use crate::compare::{self, Request};
use crate::engines;
use crate::error::Result;
use crate::line::Line;
use crate::render::report::Report;
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
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fen", "startpos"])]
    pub suite: Option<PathBuf>,
    /// For engines whose perft command prints only a total (e.g. Ethereal): the command to send after
    /// `position fen … moves …` instead of `go perft N`, with `{depth}` for the depth, e.g. 'perft {depth}'.
    /// perftlab reads the last integer printed and asks each child's total to find the differing move.
    #[arg(long, value_name = "COMMAND")]
    pub perft_command: Option<String>,
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
    #[command(flatten)]
    pub pictures: PictureArgs,
}

/// The report's title and summary rows.
fn report_head(a: &CompareArgs, what: &str) -> Report {
    Report {
        title: format!("perftlab compare: {}", a.engine),
        summary: vec![
            ("engine".into(), a.engine.clone()),
            ("compared".into(), what.to_string()),
            ("depth".into(), a.depth.to_string()),
        ],
        failures: Vec::new(),
    }
}

pub fn run(a: CompareArgs) -> Result<i32> {
    crate::limits::check_depth("--depth", a.depth)?;
    let timeout = timeout(a.timeout)?;
    match &a.suite {
        Some(path) => a.pictures.check(&[("the --suite file", path.as_path())])?,
        None => a.pictures.create_files()?,
    }
    let ours = a.backend.create()?;
    let protocol = a.protocol.into();
    // The engine, started at first and again after it failed on a position.
    let start_engine = |chess960: bool| {
        engines::start_with_perft_command(
            protocol,
            &a.engine,
            a.perft_command.as_deref(),
            chess960,
            timeout,
        )
    };
    if let Some(path) = &a.suite {
        let mut report = report_head(&a, &format!("suite {}", path.display()));
        let entries = suite::load(path)?;
        let chess960 =
            a.position.chess960 || entries.iter().any(|e| e.setup.needs_chess960_notation());
        let mut engine = start_engine(chess960)?;
        let bar = progress_bar(entries.len() as u64, a.quiet, "positions");
        let mut summary = Summary::default();
        summary.note_progress(entries.len(), a.json);
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
                Err(failed) if failed.is_engine_failure() => {
                    let msg = failed.to_string();
                    crate::interrupt::park_if_stopping();
                    bar.suspend(|| eprintln!("{}:{}: {msg}", path.display(), e.line));
                    summary
                        .engine_errors
                        .push(format!("{}:{}: {msg}", path.display(), e.line));
                    engine = start_engine(chess960)?;
                    continue;
                }
                Err(other) => return Err(other),
            };
            if a.pictures.wanted() {
                let label = format!("{}:{}", path.display(), e.line);
                report.failures.extend(pictures::entry(
                    &label,
                    &c,
                    engine.as_mut(),
                    ours.as_ref(),
                    &line.positions[0].to_fen(),
                    &[],
                    line.end(),
                    chess960,
                ));
            }
            if !c.agree() && !a.json {
                bar.suspend(|| {
                    println!("{}:{}:", path.display(), e.line);
                    print_comparison(&c, &engine.describe());
                    println!();
                });
            }
            if c.engine_error.is_some() {
                // The engine died during the drill-down: a fresh one for the next position.
                engine = start_engine(chess960)?;
            }
            summary.add(c);
            summary.note_progress(entries.len(), a.json);
        }
        bar.finish_and_clear();
        summary.print(a.json);
        report.summary.extend(pictures::summary_rows(&summary));
        let first = entries
            .first()
            .map(|e| e.setup.to_fen())
            .unwrap_or_default();
        a.pictures.write(&report, &first)?;
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
    let line = play_moves(&root, &a.moves)?;
    let mut engine = start_engine(chess960)?;
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
    if a.pictures.wanted() {
        let mut report = report_head(&a, &c.root);
        let sent: Vec<String> = line.moves.iter().map(|m| m.to_uci(chess960)).collect();
        report.summary.push((
            "nodes".into(),
            format!("engine {}, perftlab {}", c.engine_nodes, c.nodes),
        ));
        report.failures.extend(pictures::entry(
            "compare",
            &c,
            engine.as_mut(),
            ours.as_ref(),
            &line.positions[0].to_fen(),
            &sent,
            line.end(),
            chess960,
        ));
        a.pictures.write(&report, &c.root)?;
    }
    if a.json {
        println!("{}", serde_json::to_string(&c).expect("serializable"));
        if let Some(e) = &c.engine_error {
            eprintln!("error: {e}");
        }
    } else {
        print_comparison(&c, &engine.describe());
    }
    Ok(if c.agree() { 0 } else { 1 })
}
