//! `perftlab stress`: compare an external engine with perftlab on rule-directed positions (e.p. pins,
//! castling, Chess960, promotions, checks, pins, mates, clocks, dead material, the tricky suites; see
//! [`crate::compare::kinds`]) dealt in rounds before random reachable positions (biased playouts, optionally
//! from random Chess960 starts), and group the failures by the kind of move involved.

use super::common::{print_comparison, progress_bar, timeout, ProtocolArg, Summary};
use super::pictures::{self, PictureArgs};
use super::BackendArgs;
use crate::compare::kinds::{Kind, Positions};
use crate::compare::{self, Request};
use crate::engines;
use crate::error::{Error, Result};
use crate::line::Line;
use crate::render::report::Report;
use clap::Args;
use serde_json::json;
use std::time::Instant;

/// Arguments of `perftlab stress`.
#[derive(Args, Debug)]
pub struct StressArgs {
    /// The engine's command line, e.g. "stockfish".
    #[arg(long)]
    engine: String,
    /// What the engine speaks.
    #[arg(long, value_enum, default_value_t = ProtocolArg::Uci)]
    protocol: ProtocolArg,
    /// How many positions.
    #[arg(long, default_value_t = 100)]
    positions: u64,
    /// Which kinds of position, dealt in rounds (one of each per round) in this fixed order: ep, castling,
    /// chess960, promotion, check, pin, end, clock, material, suite, random. Comma-separated names, `all`,
    /// or `standard` (all but chess960).
    #[arg(long, default_value = "all", value_name = "KINDS")]
    kinds: String,
    /// Stop at the first failure (or engine error), with exit 1 (2 for an engine error).
    #[arg(long)]
    fail_fast: bool,
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
    /// Start random playouts from random Chess960 positions (castling shown as king takes rook).
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
    if a.positions == 0 {
        return Err(Error::Usage(
            "--positions: '0' compares nothing (use 1 or more)".into(),
        ));
    }
    if a.start == 0 {
        return Err(Error::Usage(
            "--start: '0' is not a position index (the first position is 1)".into(),
        ));
    }
    let kinds = Kind::parse_list(&a.kinds).map_err(|e| Error::Usage(format!("--kinds: {e}")))?;
    let timeout = timeout(a.timeout)?;
    a.pictures.create_files()?;
    let ours = a.backend.create()?;
    // Chess960 positions come with the chess960 kind or --chess960: tell a UCI engine once, at the start.
    let engine_chess960 = a.chess960 || kinds.contains(&Kind::Chess960);
    let start_engine = || {
        engines::start_with_perft_command(
            a.protocol.into(),
            &a.engine,
            a.perft_command.as_deref(),
            engine_chess960,
            timeout,
        )
    };
    let mut engine = start_engine()?;
    let kind_names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
    let kinds_text = kind_names.join(",");
    let mut positions = Positions::new(&kinds, a.seed, a.chess960, a.max_plies);
    let bar = progress_bar(a.positions, a.quiet, "positions");
    let mut summary = Summary::default();
    summary.notes.insert("kinds".into(), json!(kind_names));
    summary
        .notes
        .insert("time_to_first_failure".into(), json!(null));
    summary.notes.insert("stopped_early".into(), json!(false));
    summary.notes.insert("positions_by_kind".into(), json!({}));
    summary.note_progress(a.positions as usize, a.json);
    let mut report = Report {
        title: format!("perftlab stress: {}", a.engine),
        summary: vec![
            ("engine".into(), a.engine.clone()),
            (
                "positions".into(),
                format!(
                    "{} ({}; seed {}, random playouts{} up to {} plies), depth {}",
                    a.positions,
                    kinds_text,
                    a.seed,
                    if a.chess960 {
                        " from Chess960 starts"
                    } else {
                        ""
                    },
                    a.max_plies,
                    a.depth
                ),
            ),
        ],
        failures: Vec::new(),
    };
    let mut first_fen = String::new();
    let first = a.start - 1;
    for _ in 0..first {
        positions.skip();
    }
    let started = Instant::now();
    let mut by_position_kind = std::collections::BTreeMap::<&str, u64>::new();
    for n in 0..a.positions {
        let dealt = positions.next_position();
        let (i, kind) = (dealt.index, dealt.kind);
        let line = Line::new(dealt.position);
        let request = Request {
            line: &line,
            depth: a.depth,
            chess960: engine_chess960 || line.end().needs_chess960_notation(),
        };
        let name = format!("position {i} of seed {}", a.seed);
        let c = match compare::compare(engine.as_mut(), ours.as_ref(), &request, &mut |_, _| {}) {
            Ok(c) => c,
            // The engine crashed, hung or printed garbage on this position: report it, start a fresh
            // engine and go on (as `compare --suite` does); the run then ends with exit 2.
            Err(e) if e.is_engine_failure() => {
                let msg = e.to_string();
                let msg = format!(
                    "{name}: {msg} ({} position {})",
                    kind.name(),
                    line.end().to_fen()
                );
                bar.suspend(|| eprintln!("{msg}"));
                summary.engine_errors.push(msg);
                note_first_failure(&mut summary, &started);
                bar.inc(1);
                if a.fail_fast {
                    summary.notes.insert("stopped_early".into(), json!(true));
                    break;
                }
                engine = start_engine()?;
                continue;
            }
            Err(other) => return Err(other),
        };
        bar.inc(1);
        *by_position_kind.entry(kind.name()).or_insert(0) += 1;
        summary
            .notes
            .insert("positions_by_kind".into(), json!(by_position_kind));
        if a.pictures.wanted() {
            if n == 0 {
                first_fen = c.root.clone();
            }
            report.failures.extend(pictures::entry(
                &name,
                &c,
                engine.as_mut(),
                ours.as_ref(),
                &c.root,
                &[],
                line.end(),
                request.chess960,
            ));
        }
        let failed = !c.agree();
        if failed && !a.json {
            bar.suspend(|| {
                println!("{name} ({}):", kind.name());
                print_comparison(&c, &engine.describe());
                println!();
            });
        }
        if failed {
            note_first_failure(&mut summary, &started);
            let mut rerun = format!(
                "--kinds {kinds_text} --seed {} --start {i} --positions 1 --depth {} --max-plies {}",
                a.seed, a.depth, a.max_plies
            );
            if a.chess960 {
                rerun.push_str(" --chess960");
            }
            let mut notes = serde_json::Map::new();
            notes.insert("index".into(), json!(i));
            notes.insert("seed".into(), json!(a.seed));
            notes.insert("position_kind".into(), json!(kind.name()));
            notes.insert("rerun".into(), json!(rerun));
            summary.failure_notes.push(notes);
        }
        summary.add(c);
        summary.note_progress(a.positions as usize, a.json);
        if failed && a.fail_fast {
            summary.notes.insert("stopped_early".into(), json!(true));
            break;
        }
    }
    bar.finish_and_clear();
    summary
        .notes
        .insert("seconds".into(), json!(started.elapsed().as_secs_f64()));
    summary.print(a.json);
    if !a.json {
        if let Some(t) = summary.notes["time_to_first_failure"].as_f64() {
            println!("first failure after {t:.3} s");
        }
    }
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

/// Record the time of the first failure (or engine error) since the first position was dealt.
fn note_first_failure(summary: &mut Summary, started: &Instant) {
    if summary.notes["time_to_first_failure"].is_null() {
        summary.notes.insert(
            "time_to_first_failure".into(),
            json!(started.elapsed().as_secs_f64()),
        );
    }
}
