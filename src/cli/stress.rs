//! `perftlab stress`: compare an external engine with perftlab on random reachable positions (biased
//! playouts, optionally from random Chess960 starts) and group the failures by the kind of move involved.

use super::common::{print_comparison, progress_bar, timeout, ProtocolArg, Summary};
use super::pictures::{self, PictureArgs};
use super::BackendArgs;
use crate::analyze::Line;
use crate::compare::random::{random_position, Rng};
use crate::compare::{self, Request};
use crate::error::{Error, Result};
use crate::render::report::Report;
use crate::validate::Checked;
use clap::Args;

/// Arguments of `perftlab stress`.
#[derive(Args, Debug)]
pub struct StressArgs {
    /// The engine's command line, e.g. "stockfish".
    #[arg(long)]
    engine: String,
    /// What the engine speaks.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Uci)]
    protocol: ProtocolArg,
    /// How many random positions.
    #[arg(long, default_value_t = 100)]
    positions: u64,
    /// The first position, by its index in the seed's sequence as the output names it (1 = the first):
    /// `--start 37 --positions 1` re-runs position 37 alone.
    #[arg(long, default_value_t = 1)]
    start: u64,
    /// Seed of the random playouts (same seed, same positions).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Depth compared at each position.
    #[arg(long, default_value_t = 3)]
    depth: u32,
    /// Start playouts from random Chess960 positions (castling shown as king takes rook).
    #[arg(long)]
    chess960: bool,
    /// Longest playout, in plies (0: every position is the start position, or a random Chess960 start).
    #[arg(long, default_value_t = 60)]
    max_plies: u32,
    /// For engines whose perft command prints only a total (e.g. Ethereal): the command to send after
    /// `position fen … moves …` instead of `go perft N`, with `{depth}` for the depth, e.g. 'perft {depth}'.
    /// perftlab reads the last integer printed and asks each child's total to find the differing move.
    #[arg(long, value_name = "COMMAND")]
    perft_command: Option<String>,
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
    backend: BackendArgs,
    #[command(flatten)]
    pictures: PictureArgs,
}

pub fn run(a: StressArgs) -> Result<i32> {
    crate::limits::check_depth("--depth", a.depth)?;
    crate::limits::check_plies(a.max_plies)?;
    if a.start == 0 {
        return Err(Error::Usage(
            "--start: '0' is not a position index (the first position is 1)".into(),
        ));
    }
    let timeout = timeout(a.timeout)?;
    a.pictures.create_files()?;
    let ours = a.backend.create()?;
    let start_engine = || {
        compare::start_with_perft_command(
            a.protocol.into(),
            &a.engine,
            a.perft_command.as_deref(),
            a.chess960,
            timeout,
        )
    };
    let mut engine = start_engine()?;
    let mut rng = Rng::new(a.seed);
    let bar = progress_bar(a.positions, a.quiet, "positions");
    let mut summary = Summary::default();
    summary.note_progress(a.positions as usize, a.json);
    let mut report = Report {
        title: format!("perftlab stress: {}", a.engine),
        summary: vec![
            ("engine".into(), a.engine.clone()),
            (
                "positions".into(),
                format!(
                    "{} random{} (seed {}, up to {} plies), depth {}",
                    a.positions,
                    if a.chess960 { " Chess960" } else { "" },
                    a.seed,
                    a.max_plies,
                    a.depth
                ),
            ),
        ],
        failures: Vec::new(),
    };
    let mut first_fen = String::new();
    let first = a.start - 1;
    for i in 0..first.saturating_add(a.positions) {
        // Reached by legal moves from a legal start, so valid by construction; checked all the same.
        let line = Line::new(Checked::new(random_position(
            &mut rng,
            a.chess960,
            a.max_plies,
        ))?);
        if i < first {
            continue;
        }
        let request = Request {
            line: &line,
            depth: a.depth,
            chess960: a.chess960 || line.end().needs_chess960_notation(),
        };
        let c = match compare::compare(engine.as_mut(), ours.as_ref(), &request, &mut |_, _| {}) {
            Ok(c) => c,
            // The engine crashed, hung or printed garbage on this position: report it, start a fresh
            // engine and go on (as `compare --suite` does); the run then ends with exit 2.
            Err(Error::Backend(msg)) => {
                let msg = format!("position {} of seed {}: {msg}", i + 1, a.seed);
                bar.suspend(|| eprintln!("{msg}"));
                summary.engine_errors.push(msg);
                engine = start_engine()?;
                bar.inc(1);
                continue;
            }
            Err(other) => return Err(other),
        };
        bar.inc(1);
        if a.pictures.wanted() {
            if i == first {
                first_fen = c.root.clone();
            }
            report.failures.extend(pictures::entry(
                &format!("position {} of seed {}", i + 1, a.seed),
                &c,
                engine.as_mut(),
                ours.as_ref(),
                &c.root,
                &[],
                line.end(),
                request.chess960,
            ));
        }
        if !c.agree() && !a.json {
            bar.suspend(|| {
                println!("position {} of seed {}:", i + 1, a.seed);
                print_comparison(&c, &engine.describe());
                println!();
            });
        }
        summary.add(c);
        summary.note_progress(a.positions as usize, a.json);
    }
    bar.finish_and_clear();
    summary.print(a.json);
    report.summary.extend(pictures::summary_rows(&summary));
    a.pictures.write(&report, &first_fen)?;
    Ok(if !summary.engine_errors.is_empty() {
        2
    } else if summary.failures.is_empty() {
        0
    } else {
        1
    })
}
