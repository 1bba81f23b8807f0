//! `perftlab dead`: batch unwinnability (FIDE 1.5 dead positions, FIDE 6.9 flag-fall) for servers and
//! databases. One FEN per line, optionally followed by `white` or `black` (the intended winner); `#` comments
//! and blank lines skipped. One output line per query, in input order; positions run in parallel (rayon).
//! A malformed line refuses the whole file before any work, naming its line number and text (exit 2), as
//! `suite` does. Every helpmate printed was replayed by the reference generator (a failed replay: exit 1).

use super::common::progress_bar;
use crate::analyze::dead::{self, Limits};
use crate::error::{Error, Result};
use crate::limits;
use crate::types::Color;
use crate::validate::Checked;
use clap::{Args, ValueEnum};
use rayon::prelude::*;
use serde_json::json;
use std::io::Read;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Which side(s) to decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SideArg {
    /// White as the intended winner.
    White,
    /// Black as the intended winner.
    Black,
    /// Both sides.
    Both,
}

/// Arguments of `perftlab dead`.
#[derive(Args, Debug)]
pub struct DeadArgs {
    /// File of positions (`-` for standard input): one FEN per line, optionally followed by `white` or `black`.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// One position instead of a file.
    #[arg(long, conflicts_with = "file")]
    fen: Option<String>,
    /// The intended winner for lines that name none (and for --fen).
    #[arg(long, value_enum, default_value = "both")]
    side: SideArg,
    /// Sound but incomplete fast check: the static proofs (material, blocked structure, fortress), a
    /// 1,000-node helpmate probe and, where the side to move has at most 8 moves, a 3,000-position closure.
    #[arg(long, conflicts_with = "scan")]
    quick: bool,
    /// Database scan: only proofs of unwinnability (the static proofs and the small closure of --quick, no
    /// helpmate search); prints only the queries proved unwinnable (and the summary line).
    #[arg(long, visible_alias = "unwinnable-only")]
    scan: bool,
    /// Positions visited at most per query.
    #[arg(long, default_value_t = 3_000_000)]
    nodes: u64,
    /// Seconds per query at most (then `undetermined`); 0 for no limit.
    #[arg(long, default_value_t = 1.0)]
    time_limit: f64,
    /// Worker threads (positions in parallel) [default: all cores].
    #[arg(long)]
    threads: Option<usize>,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
    /// Show castling as king takes rook (Chess960 UCI notation); automatic for non-standard rights.
    #[arg(long)]
    chess960: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// One query: a position and an intended winner.
struct Query {
    pos: Checked,
    fen: String,
    side: Color,
}

/// Parse the input lines into queries; the first bad line is an error naming it.
fn parse(name: &str, text: &str, default: SideArg) -> Result<Vec<Query>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad =
            |why: String| Error::Usage(format!("{name}:{}: malformed line '{line}': {why}", i + 1));
        let mut fields: Vec<&str> = line.split_whitespace().collect();
        let side = match fields.last().copied() {
            Some("white") => Some(SideArg::White),
            Some("black") => Some(SideArg::Black),
            _ => None,
        };
        if side.is_some() {
            fields.pop();
        }
        let fen = fields.join(" ");
        let pos = Checked::from_fen(&fen).map_err(|e| bad(e.to_string()))?;
        let sides: &[Color] = match side.unwrap_or(default) {
            SideArg::White => &[Color::White],
            SideArg::Black => &[Color::Black],
            SideArg::Both => &[Color::White, Color::Black],
        };
        for &side in sides {
            out.push(Query {
                pos: pos.clone(),
                fen: fen.clone(),
                side,
            });
        }
    }
    if out.is_empty() {
        return Err(Error::Usage(format!(
            "{name}: no positions (the input is empty or only comments)"
        )));
    }
    Ok(out)
}

pub fn run(a: DeadArgs) -> Result<i32> {
    if let Some(t) = a.threads {
        if let Some(w) = limits::check_threads(t)? {
            eprintln!("warning: {w}");
        }
    }
    if a.nodes == 0 {
        return Err(Error::Usage("--nodes: must be at least 1".into()));
    }
    if !a.time_limit.is_finite() || a.time_limit < 0.0 || a.time_limit > 1e6 {
        return Err(Error::Usage(format!(
            "--time-limit: '{}' is not a number of seconds from 0 to 1000000",
            a.time_limit
        )));
    }
    let limits = Limits {
        nodes: a.nodes,
        time: (a.time_limit > 0.0).then(|| Duration::from_secs_f64(a.time_limit)),
        quick: a.quick,
        scan: a.scan,
    };
    let queries = match (&a.fen, &a.file) {
        (Some(fen), _) => parse("--fen", fen, a.side)?,
        (None, Some(path)) if path.as_os_str() != "-" => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Error::Usage(format!(
                    "cannot read positions file '{}': {e}",
                    path.display()
                ))
            })?;
            parse(&path.display().to_string(), &text, a.side)?
        }
        _ => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| {
                Error::Usage(format!("cannot read positions from standard input: {e}"))
            })?;
            parse("<stdin>", &text, a.side)?
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::Backend(format!("--threads: cannot start the thread pool: {e}")))?;
    let bar = progress_bar(queries.len() as u64, a.quiet, "queries");
    let results: Vec<Result<(dead::Decision, u128)>> = pool.install(|| {
        // One query per rayon job (`with_max_len(1)`): queries differ in cost by four orders of magnitude, so
        // every idle thread steals single queries and no thread is left with a long tail.
        queries
            .par_iter()
            .with_max_len(1)
            .map(|q| {
                let start = Instant::now();
                let d = dead::decide(&q.pos, q.side, &limits);
                bar.inc(1);
                d.map(|d| (d, start.elapsed().as_micros()))
            })
            .collect()
    });
    bar.finish_and_clear();
    let (mut win, mut unwin, mut undet) = (0, 0, 0);
    for (q, r) in queries.iter().zip(results) {
        let (d, micros) = r?;
        let chess960 = a.chess960 || q.pos.needs_chess960_notation();
        let rep = d.report(chess960);
        match rep.result {
            "winnable" => win += 1,
            "unwinnable" => unwin += 1,
            _ => undet += 1,
        }
        if a.scan && rep.result != "unwinnable" {
            continue;
        }
        if a.json {
            println!(
                "{}",
                json!({
                    "fen": q.fen,
                    "side": q.side.name(),
                    "result": rep.result,
                    "helpmate": rep.helpmate,
                    "reason": rep.reason,
                    "nodes": rep.nodes,
                    "microseconds": micros,
                })
            );
        } else {
            let detail = match (&rep.helpmate, &rep.reason) {
                (Some(h), _) => format!("helpmate {}", h.join(" ")),
                (None, Some(r)) => r.clone(),
                (None, None) => String::new(),
            };
            println!(
                "{} {} {}: {detail} ({} nodes)",
                q.fen,
                q.side.name(),
                rep.result,
                rep.nodes
            );
        }
    }
    if !a.json {
        println!("{win} winnable, {unwin} unwinnable, {undet} undetermined");
    }
    Ok(0)
}
