//! `perftlab reachable`: is a position reachable by a legal game (FIDE 3.10.3)? Prints a proof game (UCI and
//! SAN, replayed by the reference generator), a proof of impossibility (retro-analysis), or "undetermined"
//! (no game within `--max-plies`, which is not a proof). One `--fen`, or a file (`-`: standard input) with one
//! FEN per line (EPD operations after the fourth field and `#` comment lines are ignored), answered in input
//! order. Lines are read by [`crate::position_file`] (FEN or EPD, `#` comments, CHA's labels); a line it
//! cannot read (`… 0 1 garbage words here`) is answered `invalid` naming its line number.
//!
//! Exit code: 0 when every position is reachable, 1 when one is impossible or undetermined, 2 for bad input
//! (an unreadable file, a malformed FEN or an invalid position; in a file the other lines are still answered).

use crate::error::{Error, Result};
use crate::position::Setup;
use crate::proofgame::{self, DecideOptions, Limits, Verdict};
use crate::reference;
use crate::retro::{self, RetroOptions};
use crate::san;
use crate::suite::SuiteEntry;
use crate::validate;
use clap::Args;
use rayon::prelude::*;
use serde_json::{json, Value};

/// Arguments of `perftlab reachable`.
#[derive(Args, Debug)]
pub struct ReachableArgs {
    /// A file with one FEN per line, or `-` for standard input (instead of `--fen`).
    #[arg(value_name = "FILE")]
    input: Option<String>,
    /// The position (FEN or 4-field EPD; Shredder-FEN and X-FEN castling accepted).
    #[arg(long, conflicts_with = "input")]
    fen: Option<String>,
    /// Longest proof game tried, in plies.
    #[arg(long, default_value_t = 10)]
    max_plies: u32,
    /// Node budget per position of each proof-game search: the exact search with --shortest; else the staged
    /// search and the portfolio of guided searches, each up to this many positions expanded.
    #[arg(long, default_value_t = 20_000_000)]
    max_nodes: u64,
    /// Plies of retraction (un-moving the last moves) for impossibility proofs.
    #[arg(long, default_value_t = 2)]
    retro_plies: u32,
    /// Chess960: allow every Chess960 initial position (implied by non-standard castling rights); moves are
    /// shown as king takes rook.
    #[arg(long)]
    chess960: bool,
    /// Search games from this position instead of the initial one(s) (no impossibility proofs then).
    #[arg(long)]
    from: Option<String>,
    /// Only a shortest game: the exact iterative-deepening search (bounded by --max-plies and --max-nodes).
    /// Without it, short games (at most 6 plies) are tried exactly, then the fast weighted best-first search
    /// looks for any game, however long, within --time-limit.
    #[arg(long)]
    shortest: bool,
    /// Seconds per position at most (the whole decision: proofs, short games, the guided search; at most 600).
    #[arg(long, default_value_t = 5.0)]
    time_limit: f64,
    /// One JSON object per position (JSON lines) instead of text.
    #[arg(long)]
    json: bool,
    /// Worker threads for a file (positions in parallel, answers in input order) [default: 1].
    #[arg(long)]
    threads: Option<usize>,
    /// No progress bar (a file's positions, on stderr when it is a terminal).
    #[arg(long)]
    quiet: bool,
}

/// One answered position.
struct Answer {
    fen: String,
    verdict: std::result::Result<Verdict, String>,
    /// With `--json`, for an undetermined position: a proof kernel (the captures in order, see [`kernel`]).
    kernel: Option<Vec<String>>,
}

/// A worker's answer: the verdict and, for `--json`, the kernel of an undetermined position.
type Decided = (std::result::Result<Verdict, String>, Option<Vec<String>>);

/// The captures of a proof kernel of `setup` (issue 32 item 4: `kernel` in `--json`), each as
/// [`retro::kernel_search`] writes it, or `None` when its node budget ran out first. Only asked for an
/// undetermined position: a position without a kernel was proved impossible before the search.
fn kernel(setup: &Setup, cell: &retro::kernel_search::KernelCell) -> Option<Vec<String>> {
    match retro::kernel_search::kernel_in(setup, cell) {
        retro::kernel_search::KernelResult::Found(moves) => {
            Some(moves.iter().map(|m| m.to_string()).collect())
        }
        _ => None,
    }
}

/// SAN of a game, with move numbers ("1. e4 e5 2. Nf3").
fn san_line(start: &Setup, moves: &[crate::types::Move]) -> String {
    let positions = proofgame::replay(start, moves).expect("replayed before");
    let mut out = Vec::new();
    for (i, &m) in moves.iter().enumerate() {
        let pos = &positions[i];
        let legal = reference::legal_moves(pos);
        let s = san::to_san(pos, &legal, m);
        let number = pos.fullmoves;
        match pos.turn {
            crate::types::Color::White => out.push(format!("{number}. {s}")),
            crate::types::Color::Black if i == 0 => out.push(format!("{number}... {s}")),
            crate::types::Color::Black => out.push(s),
        }
    }
    out.join(" ")
}

/// How a verdict was reached (`method` in `--json`): `static` (material, bishops, pawn captures),
/// `retraction` (no legal last move), `search` (a proof game found and replayed); none when undetermined.
fn method(v: &Verdict) -> Option<&'static str> {
    match v {
        Verdict::Reachable(_) => Some("search"),
        Verdict::Impossible(p) => Some(match p.kind {
            retro::ProofKind::Retraction => "retraction",
            // The extended kernel: where units could ever have gone (issue 32's "kernel" layer).
            retro::ProofKind::CagedPieces
            | retro::ProofKind::BlockedPawns
            | retro::ProofKind::NoKernel => "kernel",
            _ => "static",
        }),
        Verdict::Undetermined(_) => None,
    }
}

fn parse_fen(flag: &str, text: &str) -> std::result::Result<Setup, String> {
    let setup = Setup::from_fen(text).map_err(|e| format!("{flag}: {e}"))?;
    let v = validate::check(&setup);
    if !v.is_ok() {
        return Err(format!("{flag}: invalid position '{}': {v}", text.trim()));
    }
    Ok(setup)
}

fn print_answer(a: &Answer, json_out: bool, chess960_flag: bool) {
    let chess960 = |s: &Setup| chess960_flag || s.needs_chess960_notation();
    match (&a.verdict, json_out) {
        (Err(e), true) => println!("{}", json!({"fen": a.fen, "result": "invalid", "error": e})),
        (Err(e), false) => {
            println!("fen:    {}", a.fen);
            println!("result: invalid ({e})");
        }
        (Ok(v), true) => {
            let mut o = json!({"fen": a.fen, "result": v.name(), "method": method(v), "proof": Value::Null, "game": Value::Null});
            match v {
                Verdict::Reachable(g) => {
                    let c = chess960(&g.start);
                    o["game"] = json!(g.moves.iter().map(|m| m.to_uci(c)).collect::<Vec<_>>());
                    o["san"] = json!(san_line(&g.start, &g.moves));
                    o["plies"] = json!(g.moves.len());
                    o["start"] = json!(g.start.to_fen());
                }
                Verdict::Impossible(p) => {
                    o["proof"] = json!(p.to_string());
                }
                Verdict::Undetermined(r) => {
                    o["reason"] = json!(r);
                    o["kernel"] = json!(a.kernel);
                }
            }
            println!("{o}");
        }
        (Ok(v), false) => {
            println!("fen:    {}", a.fen);
            println!("result: {}", v.name());
            match v {
                Verdict::Reachable(g) => {
                    let c = chess960(&g.start);
                    if g.start.board != Setup::startpos().board
                        || g.start.turn != Setup::startpos().turn
                    {
                        println!("start:  {}", g.start.to_fen());
                    }
                    let uci: Vec<String> = g.moves.iter().map(|m| m.to_uci(c)).collect();
                    println!("plies:  {}", g.moves.len());
                    println!("uci:    {}", uci.join(" "));
                    println!("san:    {}", san_line(&g.start, &g.moves));
                }
                Verdict::Impossible(p) => println!("proof:  {p}"),
                Verdict::Undetermined(r) => println!("reason: {r}"),
            }
        }
    }
}

pub fn run(a: ReachableArgs) -> Result<i32> {
    let from = match &a.from {
        Some(f) => Some(parse_fen("--from", f).map_err(Error::Usage)?),
        None => None,
    };
    if a.max_plies > 60 {
        return Err(Error::Usage(format!(
            "--max-plies: '{}' is beyond what the search can finish (at most 60)",
            a.max_plies
        )));
    }
    if a.retro_plies > 4 {
        return Err(Error::Usage(format!(
            "--retro-plies: '{}' is too many (each ply multiplies the work; at most 4)",
            a.retro_plies
        )));
    }
    if !(a.time_limit > 0.0 && a.time_limit <= 600.0) {
        return Err(Error::Usage(format!(
            "--time-limit: '{}' is not a number of seconds in (0, 600]",
            a.time_limit
        )));
    }
    let opts = |setup: &Setup| DecideOptions {
        limits: Limits {
            max_plies: a.max_plies,
            max_nodes: a.max_nodes,
        },
        retro_plies: a.retro_plies,
        chess960: a.chess960 || setup.needs_chess960_notation(),
        from: from.clone(),
        shortest: a.shortest,
        time_limit: std::time::Duration::from_secs_f64(a.time_limit),
    };
    let fens: Vec<(String, String, Option<String>)> = match (&a.fen, &a.input) {
        (Some(f), None) => {
            // One position: bad input is an error (exit 2), not an answer.
            parse_fen("--fen", f).map_err(Error::Usage)?;
            vec![(f.clone(), "--fen".to_string(), None)]
        }
        (None, Some(path)) => {
            // The one position-file reader: bounded, and a line with trailing garbage is answered
            // `invalid` naming its line (the other lines are still answered).
            let (name, text) =
                crate::position_file::read("positions file", std::path::Path::new(path))?;
            let lines: Vec<_> = crate::position_file::parse_text(&text)
                .into_iter()
                .map(|r| match r.and_then(|rec| rec.refuse_extras(false, false).map(|()| rec)) {
                    Ok(rec) => (rec.fen, format!("{name}:{}", rec.line), None),
                    Err(e) => {
                        let why = format!("{name}:{}: {}", e.line, e.why);
                        (e.text, String::new(), Some(why))
                    }
                })
                .collect();
            if lines.is_empty() {
                return Err(crate::position_file::no_positions(&name));
            }
            lines
        }
        (None, None) => {
            return Err(Error::Usage(
                "reachable: give a position with --fen FEN, or a file of FENs (or - for standard input)".into(),
            ))
        }
        (Some(_), Some(_)) => unreachable!("clap refuses --fen with a file"),
    };
    if let Some(t) = a.threads {
        if let Some(w) = crate::limits::check_threads("--threads", t)? {
            eprintln!("warning: {w}");
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(1))
        .build()
        .map_err(|e| Error::Backend(format!("--threads: cannot start the thread pool: {e}")))?;
    let total = fens.len();
    let bar = super::common::progress_bar(total as u64, a.quiet || a.fen.is_some(), "positions");
    let decide_one = |(fen, flag, bad): &(String, String, Option<String>)| -> Decided {
        if let Some(why) = bad {
            return (Err(why.clone()), None);
        }
        match parse_fen(flag, fen) {
            Err(e) => (Err(e), None),
            Ok(setup) => {
                // The kernel searched once: for the proof, the initial path and `--json`.
                let cell = retro::kernel_search::KernelCell::new();
                let v = proofgame::decide_in(&setup, &opts(&setup), &cell);
                let undetermined = matches!(v, Verdict::Undetermined(_));
                let k = if a.json && undetermined {
                    kernel(&setup, &cell)
                } else {
                    None
                };
                (Ok(v), k)
            }
        }
    };
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Decided)>();
    let printed = std::thread::scope(|scope| {
        let (fens, bar, decide_one) = (&fens, &bar, &decide_one);
        scope.spawn(move || {
            pool.install(|| {
                // One position per rayon job: positions differ in cost by orders of magnitude.
                fens.par_iter()
                    .enumerate()
                    .with_max_len(1)
                    .for_each_with(tx, |tx, (i, f)| {
                        let _ = tx.send((i, decide_one(f)));
                        bar.inc(1);
                    });
            });
        });
        print_in_order(&a, fens, rx)
    });
    bar.finish_and_clear();
    let (invalid, open) = printed?;
    Ok(if invalid {
        2
    } else if open {
        1
    } else {
        0
    })
}

/// Print the answers in input order as they come (each game replayed once more first); (invalid, open).
fn print_in_order(
    a: &ReachableArgs,
    fens: &[(String, String, Option<String>)],
    rx: std::sync::mpsc::Receiver<(usize, Decided)>,
) -> Result<(bool, bool)> {
    let (mut invalid, mut open) = (false, false);
    let mut waiting = std::collections::BTreeMap::new();
    let (mut next, total) = (0, fens.len());
    while let Ok((i, verdict)) = rx.recv() {
        waiting.insert(i, verdict);
        while let Some((verdict, kernel)) = waiting.remove(&next) {
            let fen = &fens[next].0;
            match &verdict {
                Err(_) => invalid = true,
                Ok(Verdict::Reachable(g)) => {
                    // Replayed by the reference generator: the search already did, this is the printed game.
                    let end = proofgame::replay(&g.start, &g.moves).map_err(|i| {
                        Error::Usage(format!("internal: move {i} of the game is not legal"))
                    })?;
                    let target = Setup::from_fen(fen).expect("parsed above");
                    if !proofgame::matches(end.last().expect("nonempty"), &target) {
                        return Err(Error::Usage(
                            "internal: the game does not reach the position".into(),
                        ));
                    }
                }
                Ok(_) => open = true,
            }
            print_answer(
                &Answer {
                    fen: fen.clone(),
                    verdict,
                    kernel,
                },
                a.json,
                a.chess960,
            );
            next += 1;
            crate::interrupt::set_status(format!("{next} of {total} positions answered"));
        }
    }
    Ok((invalid, open))
}

/// `suite --check-reachability`: the proofs of impossibility of a suite's positions (static proofs and one
/// ply of retraction), as `(line, fen, proof)`; each is also printed on stderr as a warning.
pub(super) fn check_suite(file: &std::path::Path, entries: &[SuiteEntry]) -> Vec<Value> {
    let mut out = Vec::new();
    for e in entries {
        if !validate::check(&e.setup).is_ok() {
            continue;
        }
        // Chess960's un-castling is the more permissive one: sound for suites of either kind.
        let opts = RetroOptions {
            plies: 1,
            chess960: true,
        };
        if let Some(p) = retro::prove_impossible(&e.setup, opts) {
            eprintln!(
                "warning: {}:{}: impossible position {}: {p}",
                file.display(),
                e.line,
                e.fen
            );
            out.push(json!({"line": e.line, "fen": e.fen, "proof": p.to_string()}));
        }
    }
    out
}
