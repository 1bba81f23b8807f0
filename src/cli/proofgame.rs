//! `perftlab proofgame`: proof-game problems (a diagram and exactly N plies from the initial position):
//! every solution up to `--max-solutions` in numbered SAN (each replayed by the reference generator) and the
//! verdict unique / cooked / no solution / undetermined. `DIAGRAM --plies N`, or a file (`-`: standard input)
//! of `DIAGRAM N` lines (`#` comments), read bounded in size. docs/proofgames.md has the deductions.
//!
//! Exit code: 0 when every problem is decided (unique, cooked, no solution), 1 when one is undetermined (a
//! limit stopped its search) or a found game failed the replay, 2 for bad input.

use crate::error::{Error, Result};
use crate::position::Setup;
use crate::proofgame::problem::{self, Options, Problem, Solved};
use crate::reference;
use crate::types::{Color, Move, Square};
use crate::validate;
use clap::Args;
use serde_json::json;
use std::time::{Duration, Instant};

/// Input files larger than this are refused.
const MAX_INPUT: u64 = 1 << 20;
/// Plies accepted at most.
const MAX_PLIES: u32 = 60;

/// Arguments of `perftlab proofgame`.
#[derive(Args, Debug)]
pub struct ProofgameArgs {
    /// The diagram (FEN placement, optionally the side to move: 'PLACEMENT b'); with no --plies, a file of
    /// 'DIAGRAM N' lines, or - for standard input.
    #[arg(value_name = "DIAGRAM|FILE")]
    input: String,
    /// The number of plies of the games.
    #[arg(long)]
    plies: Option<u32>,
    /// The castling rights the final position must have (FEN field, '-' for none); free by default.
    #[arg(long)]
    castling: Option<String>,
    /// The e.p. square: the last move was the double step over it; free by default.
    #[arg(long)]
    ep: Option<String>,
    /// Solutions listed at most.
    #[arg(long, default_value_t = 10)]
    max_solutions: usize,
    /// Count the solutions without listing them.
    #[arg(long)]
    count: bool,
    /// Stop as soon as two games are found (the verdict is then "cooked (at least 2)") instead of counting
    /// every game.
    #[arg(long)]
    stop_at_cook: bool,
    /// Worker threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seconds per problem at most (the verdict is then undetermined unless already decided).
    #[arg(long)]
    time_limit: Option<f64>,
    /// Positions entered per problem at most.
    #[arg(long, default_value_t = 200_000_000)]
    max_nodes: u64,
    /// One JSON object per problem (JSON lines).
    #[arg(long)]
    json: bool,
}

/// Numbered SAN of a game from the initial position ("1. e4 e5 2. Nf3").
fn san_line(moves: &[Move]) -> String {
    let Ok(positions) = crate::proofgame::replay(&Setup::startpos(), moves) else {
        return String::new();
    };
    let mut out = Vec::new();
    for (i, &m) in moves.iter().enumerate() {
        let pos = &positions[i];
        let s = crate::san::to_san(pos, &reference::legal_moves(pos), m);
        match pos.turn {
            Color::White => out.push(format!("{}. {s}", pos.fullmoves)),
            Color::Black => out.push(s),
        }
    }
    out.join(" ")
}

fn problem_of(
    diagram: &str,
    plies: u32,
    a: &ProofgameArgs,
    at: &str,
) -> std::result::Result<Problem, String> {
    if plies > MAX_PLIES {
        return Err(format!(
            "{at}: plies '{plies}' is more than the search takes (at most {MAX_PLIES})"
        ));
    }
    let mut d =
        problem::parse_diagram(diagram, plies).map_err(|e| format!("{at}: diagram: {e}"))?;
    let castling = match &a.castling {
        Some(c) => {
            let (place, turn) = problem::diagram_text(&d)
                .split_once(' ')
                .map(|(p, t)| (p.to_string(), t.to_string()))
                .unwrap_or_default();
            let s = Setup::from_fen(&format!("{place} {turn} {c} -"))
                .map_err(|e| format!("--castling: {e}"))?;
            d.castling = s.castling;
            Some(s.castling)
        }
        None => None,
    };
    let ep = match &a.ep {
        Some(t) => {
            let sq = Square::parse(t).filter(|s| s.rank() == 2 || s.rank() == 5);
            let sq = sq.ok_or_else(|| format!("--ep: '{t}' is not a square on rank 3 or 6"))?;
            d.ep_square = Some(sq);
            Some(sq)
        }
        None => None,
    };
    let v = validate::check(&d);
    if !v.is_ok() {
        return Err(format!("{at}: invalid diagram '{}': {v}", diagram.trim()));
    }
    d.ep_square = None;
    Ok(Problem {
        diagram: d,
        plies,
        castling,
        ep,
    })
}

/// The problems: one from the arguments, or one per line of the file.
/// A problem line as given, its plies, and the problem or why it is bad input.
type Line = (String, u32, std::result::Result<Problem, String>);

fn problems(a: &ProofgameArgs) -> Result<Vec<Line>> {
    if let Some(n) = a.plies {
        let p = problem_of(&a.input, n, a, "DIAGRAM").map_err(Error::Usage)?;
        return Ok(vec![(a.input.trim().to_string(), n, Ok(p))]);
    }
    let bytes = if a.input == "-" {
        crate::files::read_bounded(std::io::stdin().lock(), MAX_INPUT)
            .map_err(|e| Error::Usage(format!("-: cannot read standard input: {e}")))?
    } else {
        crate::files::read_input("problem file", std::path::Path::new(&a.input), MAX_INPUT)?
    };
    let text =
        crate::files::text_lines(bytes).map_err(|e| Error::Usage(format!("{}: {e}", a.input)))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = format!("{}:{}", a.input, i + 1);
        let (diagram, n) = line.rsplit_once(char::is_whitespace).unwrap_or(("", line));
        match n.parse::<u32>() {
            Ok(n) => out.push((
                diagram.trim().to_string(),
                n,
                problem_of(diagram, n, a, &at),
            )),
            Err(_) => out.push((
                line.to_string(),
                0,
                Err(format!(
                    "{at}: expected 'DIAGRAM N', the plies '{n}' is not a number"
                )),
            )),
        }
    }
    if out.is_empty() {
        return Err(Error::Usage(format!("{}: no problem in the file", a.input)));
    }
    Ok(out)
}

fn print(p: &Problem, s: &Solved, a: &ProofgameArgs) {
    let diagram = problem::diagram_text(&p.diagram);
    if a.json {
        let games: Vec<Vec<String>> = s
            .solutions
            .iter()
            .map(|g| g.iter().map(|m| m.to_uci(false)).collect())
            .collect();
        println!(
            "{}",
            json!({"diagram": diagram, "plies": p.plies, "verdict": s.verdict.name(), "count": s.count,
                   "solutions": games, "reason": s.reason, "nodes": s.nodes})
        );
        return;
    }
    println!("problem: {diagram}, {} plies", p.plies);
    for (i, g) in s.solutions.iter().enumerate() {
        println!("  {}: {}", i + 1, san_line(g));
    }
    let verdict = match s.verdict {
        problem::Verdict::Unique => "unique".to_string(),
        problem::Verdict::Cooked if s.exhaustive => format!("cooked ({} solutions)", s.count),
        problem::Verdict::Cooked => format!("cooked (at least {} solutions)", s.count),
        problem::Verdict::NoSolution => "no solution".to_string(),
        problem::Verdict::Undetermined => "undetermined".to_string(),
    };
    println!("verdict: {verdict}");
    println!("reason:  {}", s.reason);
}

pub fn run(a: ProofgameArgs) -> Result<i32> {
    if a.threads == 0 {
        return Err(Error::Usage(
            "--threads: '0' is not a number of threads (at least 1)".into(),
        ));
    }
    crate::limits::check_thread_count("--threads", a.threads)?;
    let limit = match a.time_limit {
        Some(t) => Some(crate::limits::timeout("--time-limit", t)?),
        None => None,
    };
    let list = problems(&a)?;
    let (mut bad, mut open) = (false, false);
    for (text, n, p) in &list {
        let p = match p {
            Ok(p) => p,
            Err(e) => {
                bad = true;
                if a.json {
                    println!(
                        "{}",
                        json!({"diagram": text, "plies": n, "verdict": "invalid", "reason": e})
                    );
                } else {
                    println!("problem: {text}, {n} plies\nverdict: invalid\nreason:  {e}");
                }
                continue;
            }
        };
        let o = Options {
            max_solutions: if a.count { 0 } else { a.max_solutions },
            max_nodes: a.max_nodes,
            deadline: limit.map(|d: Duration| Instant::now() + d),
            threads: a.threads,
            stop_at_cook: a.stop_at_cook,
        };
        match problem::solve(p, &o) {
            Ok(s) => {
                open |= s.verdict == problem::Verdict::Undetermined;
                print(p, &s, &a);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(1);
            }
        }
    }
    Ok(if bad {
        2
    } else if open {
        1
    } else {
        0
    })
}
