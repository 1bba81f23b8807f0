//! `perftlab dead`: batch unwinnability (FIDE 1.5 dead positions, FIDE 6.9 flag-fall) for servers and
//! databases. Input lines are read by [`crate::position_file`] (FEN or EPD, CHA's labels, an optional side word
//! `white`/`black` in any case naming the intended winner); a line that cannot be read refuses the whole file
//! before any work, naming its line number and text (exit 2), as `suite` does. A line that reads but is not a
//! valid position (FIDE 3.10.3) is answered `invalid` with its reason and the others are answered; the run
//! then ends with exit 2.
//!
//! Positions run in parallel (rayon, one query per job); the answers are printed in input order as they
//! finish (a reorder buffer), one line each, flushed at once, so a pipe sees them early and SIGINT or SIGTERM
//! loses only the queries in flight (the stop says how many of how many were answered). Every helpmate
//! printed was replayed by the reference generator (a failed replay: exit 1).
//!
//! `--scan` streams instead ([`scan`]): each job reads, decides and prints a run of lines, so the scan keeps no
//! list of the whole input's positions and answers (its memory is the text and a few runs), and a line that
//! cannot be read ends it after the answers of the lines before it (exit 2); an interruption says how many
//! input lines were scanned.

use super::common::progress_bar;
use crate::analyze::dead::{self, Limits};
use crate::error::{Error, Result};
use crate::limits;
use crate::position_file::{self, FenWords, LineError};
use crate::types::{Color, Move};
use crate::validate::Checked;
use clap::{Args, ValueEnum};
use rayon::prelude::*;
use rayon::ThreadPool;
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// helpmate search; a helpmate met is not claimed: undetermined); prints only the queries proved
    /// unwinnable (and the summary line).
    #[arg(long, visible_alias = "unwinnable-only")]
    scan: bool,
    /// Positions visited at most per query.
    #[arg(long, default_value_t = 6_000_000)]
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
    /// For a winnable side, also search a shortest helpmate (a breadth-first closure of at most --nodes
    /// positions) and print it when it is shorter than the one found.
    #[arg(long)]
    shortest: bool,
}

/// One position of the input: its FEN (as slices of the input: the text is built only for the answers
/// printed), and the checked position or why it is not a valid one. Consecutive lines with the same FEN text
/// (files that ask for each side on a line of its own) are one position, read and checked once, with a query
/// per side asked.
struct Position<'a> {
    fen: FenWords<'a>,
    pos: std::result::Result<Checked, String>,
    /// Its pieces, where the validity screen gathered them ([`dead::screened`]).
    pieces: Option<dead::Pieces>,
}

/// One query: a position of the input (its index, [`Input::position`]) and an intended winner.
struct Query {
    at: usize,
    side: Color,
    /// Its input line (0 for `--fen`).
    line: usize,
    /// The last query of its line with `--side both` (the per-position `dead:` line follows it).
    pair_end: bool,
}

/// The positions of the run, as the runs of lines read them (no copy into one list: the positions of a file
/// of real games were a third of a scan's page faults, and their copy a twentieth of its instructions), and
/// their queries, in input order. A position's index is its run's number times [`READ_RUN_LINES`] plus its
/// place in the run.
struct Input<'a> {
    runs: Vec<Vec<Position<'a>>>,
    queries: Vec<Query>,
}

impl<'a> Input<'a> {
    /// The position at index `at` (of a query).
    fn position(&self, at: usize) -> &Position<'a> {
        &self.runs[at / READ_RUN_LINES][at % READ_RUN_LINES]
    }
}

/// One line's question: its line number, its side word (if any) and its position's place in its run.
struct LineQuery {
    line: usize,
    side: Option<Color>,
    at: usize,
}

/// The sides a line asks about.
fn sides_of(side: Option<Color>, default: SideArg) -> &'static [Color] {
    match side.map_or(default, |c| match c {
        Color::White => SideArg::White,
        Color::Black => SideArg::Black,
    }) {
        SideArg::White => &[Color::White],
        SideArg::Black => &[Color::Black],
        SideArg::Both => &[Color::White, Color::Black],
    }
}

/// One line read and checked: `None` for a blank or comment line; a line that cannot be read is a
/// [`LineError`]; else its side word, its position pushed on `out` (written there in place: the copies of a
/// position returned through the layers of a result were a tenth of a scan of real positions), a position that
/// reads but is not valid (FIDE 3.10.3) with its reason. A line whose FEN's fields are the text of the last
/// position's (files that ask for each side on a line of its own) is that position, which is the same (a
/// function of that text): nothing is pushed, and the position is neither read nor checked again (that was
/// half of a scan of real positions).
fn read_line<'a>(
    line: usize,
    raw: &'a str,
    out: &mut Vec<Position<'a>>,
) -> Option<std::result::Result<Option<Color>, LineError>> {
    let previous = out.last();
    if let Some(side) = previous.and_then(|p| position_file::repeat_of(raw, &p.fen)) {
        return Some(Ok(side));
    }
    let before = previous.and_then(|p| Some((&p.fen, p.pos.as_ref().ok()?.setup())));
    let parsed = match position_file::parse_borrowed_after(line, raw, before)? {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    if let Err(e) = parsed.refuse_extras(line, true, false) {
        return Some(Err(e));
    }
    if previous.is_some_and(|p| p.fen == parsed.fen) {
        return Some(Ok(parsed.side));
    }
    let (pos, pieces) = dead::screened_with(parsed.setup, Some(parsed.pieces));
    out.push(Position {
        fen: parsed.fen,
        pos: pos.map_err(|e| e.to_string()),
        pieces,
    });
    Some(Ok(parsed.side))
}

/// What a run of lines read: its positions, each line's question, and the first line that cannot be read.
type Run<'a> = (Vec<Position<'a>>, Vec<LineQuery>, Option<LineError>);

/// The positions and line questions of a run of lines, read in turn (each line compared with the position
/// before it), up to the first line that cannot be read (then its error).
fn read_run<'a>(lines: &[(usize, &'a str)]) -> Run<'a> {
    let mut out: Vec<Position> = Vec::with_capacity(lines.len());
    let mut asked = Vec::with_capacity(lines.len());
    for &(n, l) in lines {
        match read_line(n, l, &mut out) {
            Some(Err(e)) => return (out, asked, Some(e)),
            Some(Ok(side)) => {
                asked.push(LineQuery {
                    line: n,
                    side,
                    at: out.len() - 1,
                });
            }
            None => {}
        }
    }
    (out, asked, None)
}

/// The positions of `lines` (read and checked in parallel in runs of [`READ_RUN_LINES`] lines, in the
/// caller's rayon pool; input order kept) and their queries: a side word names the winner, else `default`. A
/// line that cannot be read is an error (the first such line).
fn input_of<'a>(
    lines: &[(usize, &'a str)],
    default: SideArg,
) -> std::result::Result<Input<'a>, LineError> {
    // An indexed collect writes every run's result in place (a filtered one grew vectors and joined them: a
    // tenth of a scan of real positions in page faults and copies); the runs stay where they were read.
    let read: Vec<Run<'a>> = lines.par_chunks(READ_RUN_LINES).map(read_run).collect();
    let mut queries = Vec::with_capacity(read.iter().map(|r| r.1.len()).sum::<usize>() * 2);
    let mut runs = Vec::with_capacity(read.len());
    for (k, (run, asked, error)) in read.into_iter().enumerate() {
        if let Some(e) = error {
            return Err(e);
        }
        for l in asked {
            let sides = sides_of(l.side, default);
            for (i, &side) in sides.iter().enumerate() {
                queries.push(Query {
                    at: k * READ_RUN_LINES + l.at,
                    side,
                    line: l.line,
                    pair_end: sides.len() == 2 && i == 1,
                });
            }
        }
        runs.push(run);
    }
    Ok(Input { runs, queries })
}

/// Lines per run of [`input_of`] (a rayon job).
const READ_RUN_LINES: usize = 256;

/// The input of the run: `--fen`, or the text of the file (`-`: standard input) read by [`position_file`].
fn read_input<'a>(a: &'a DeadArgs, text: &'a str, name: &str) -> Result<Input<'a>> {
    if let Some(fen) = &a.fen {
        let input = input_of(&[(0, fen.as_str())], a.side).map_err(|e| fen_error(fen, &e.why))?;
        if input.queries.is_empty() {
            return Err(fen_error(fen, "empty text"));
        }
        return Ok(input);
    }
    let lines = position_file::bounded_lines("positions file", name, text)?;
    let input = input_of(&lines, a.side).map_err(|e| e.in_file(name))?;
    if input.queries.is_empty() {
        return Err(position_file::no_positions(name));
    }
    Ok(input)
}

/// The usage error of a `--fen` text that cannot be read (`why`).
fn fen_error(fen: &str, why: &str) -> Error {
    Error::Usage(format!("--fen: '{}': {why}", fen.trim()))
}

/// Counts of the answers printed.
#[derive(Default)]
struct Tally {
    winnable: usize,
    unwinnable: usize,
    undetermined: usize,
    invalid: usize,
}

impl Tally {
    /// Add the counts of `other`.
    fn add(&mut self, other: &Tally) {
        self.winnable += other.winnable;
        self.unwinnable += other.unwinnable;
        self.undetermined += other.undetermined;
        self.invalid += other.invalid;
    }
}

/// A decided query.
struct Done {
    decision: dead::Decision,
    micros: u128,
    /// With `--shortest` and a winnable side: whether the helpmate printed is proved shortest.
    shortest: Option<bool>,
}

/// One answer: the decision, or why the position is not valid.
type Answer = std::result::Result<Done, String>;

/// A shorter helpmate than the one `d` holds, by the breadth-first closure within `nodes` positions.
fn shorten(p: &Position, q: &Query, d: &mut dead::Decision, nodes: u64) -> Result<Option<bool>> {
    let (Ok(pos), dead::Verdict::Winnable { helpmate }) = (&p.pos, &mut d.verdict) else {
        return Ok(None);
    };
    match dead::shortest_helpmate(pos, q.side, nodes)? {
        Some(line) => {
            if line.len() < helpmate.len() {
                *helpmate = line;
            }
            Ok(Some(true))
        }
        None => Ok(Some(false)),
    }
}

/// Print one answer (a line of text or JSON) and count it.
fn print_answer(
    out: &mut impl Write,
    a: &DeadArgs,
    p: &Position,
    q: &Query,
    answer: &Answer,
    t: &mut Tally,
) -> std::io::Result<()> {
    let done = match answer {
        Err(why) => {
            t.invalid += 1;
            return if a.json {
                let o = json!({"fen": p.fen.to_string(), "side": q.side.name(), "result": "invalid", "reason": why});
                writeln!(out, "{o}")
            } else {
                writeln!(out, "{} {} invalid: {why}", p.fen, q.side.name())
            };
        }
        Ok(x) => x,
    };
    let chess960 = a.chess960 || p.pos.as_ref().is_ok_and(|p| p.needs_chess960_notation());
    let result = done.decision.result();
    match result {
        "winnable" => t.winnable += 1,
        "unwinnable" => t.unwinnable += 1,
        _ => t.undetermined += 1,
    }
    if a.scan && result != "unwinnable" {
        return Ok(());
    }
    if a.json {
        return print_json(out, p, q, done, chess960);
    }
    // The text line, written straight into `out`: `FEN SIDE RESULT: DETAIL (N nodes)`, the detail a helpmate in
    // UCI, the proof's reason or the limit reached (no `String` per move: formatting the helpmates of real game
    // positions was a sixth of a run).
    let d = &done.decision;
    write!(out, "{} {} {result}: ", p.fen, q.side.name())?;
    match &d.verdict {
        dead::Verdict::Winnable { helpmate } if helpmate.is_empty() => {
            out.write_all(b"already checkmate on the board")?;
        }
        dead::Verdict::Winnable { helpmate } => {
            out.write_all(b"helpmate")?;
            for &m in helpmate {
                let (text, n) = m.uci_bytes(chess960);
                let mut chunk = [b' ', 0, 0, 0, 0, 0];
                chunk[1..].copy_from_slice(&text);
                out.write_all(&chunk[..1 + n])?;
            }
            out.write_all(match done.shortest {
                Some(true) => b", shortest",
                Some(false) => b", not proved shortest (the closure ran out of positions)",
                None => b"",
            })?;
        }
        dead::Verdict::Unwinnable { reason } => write!(out, "{reason}")?,
        dead::Verdict::Undetermined { limit } => out.write_all(limit.text().as_bytes())?,
    }
    writeln!(out, " ({} nodes)", d.nodes)
}

/// One `--json` answer line, written straight into `out` (a printed helpmate is a few dozen moves: no `String`
/// per move, no JSON tree, no escaping of move text, which is ASCII letters and digits). The keys in sorted
/// order, as `json!` printed them; the free texts (the FEN, the reason) escaped by `serde_json`.
fn print_json(
    out: &mut impl Write,
    p: &Position,
    q: &Query,
    done: &Done,
    chess960: bool,
) -> std::io::Result<()> {
    let (helpmate, reason): (_, Option<&dyn std::fmt::Display>) = match &done.decision.verdict {
        dead::Verdict::Winnable { helpmate } => (Some(helpmate.as_slice()), None),
        dead::Verdict::Unwinnable { reason } => (None, Some(reason)),
        dead::Verdict::Undetermined { limit } => (None, Some(limit)),
    };
    let line = JsonAnswer {
        fen: &p.fen,
        helpmate,
        chess960,
        microseconds: done.micros,
        nodes: done.decision.nodes,
        reason,
        result: done.decision.result(),
        shortest: done.shortest,
        side: q.side.name(),
    };
    line.write(out)
}

/// A `--json` answer line (see [`print_json`]).
struct JsonAnswer<'a> {
    fen: &'a dyn std::fmt::Display,
    helpmate: Option<&'a [Move]>,
    /// Castling in the helpmate as king takes rook.
    chess960: bool,
    microseconds: u128,
    nodes: u64,
    reason: Option<&'a dyn std::fmt::Display>,
    /// A fixed word (`winnable`, …): no escaping.
    result: &'static str,
    shortest: Option<bool>,
    /// `white` or `black`.
    side: &'static str,
}

impl JsonAnswer<'_> {
    /// The line, `shortest` only when it is known, then a newline.
    fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(b"{\"fen\":")?;
        serde_json::to_writer(&mut *out, &Shown(self.fen))?;
        out.write_all(b",\"helpmate\":")?;
        match self.helpmate {
            Some(line) => write_uci_array(out, line, self.chess960)?,
            None => out.write_all(b"null")?,
        }
        write!(
            out,
            ",\"microseconds\":{},\"nodes\":{},\"reason\":",
            self.microseconds, self.nodes
        )?;
        match self.reason {
            Some(r) => serde_json::to_writer(&mut *out, &Shown(r))?,
            None => out.write_all(b"null")?,
        }
        write!(out, ",\"result\":\"{}\"", self.result)?;
        if let Some(s) = self.shortest {
            write!(out, ",\"shortest\":{s}")?;
        }
        writeln!(out, ",\"side\":\"{}\"}}", self.side)
    }
}

/// A value serialized as a JSON string of its text (escaped by the serializer, with no `String` made).
struct Shown<T>(T);

impl<T: std::fmt::Display> serde::Serialize for Shown<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

/// A helpmate as a JSON array of UCI moves (`chess960`: king-takes-rook castling), as [`Move::to_uci`] writes
/// them: ASCII letters and digits, written as they are (no escaping needed).
fn write_uci_array(out: &mut impl Write, line: &[Move], chess960: bool) -> std::io::Result<()> {
    out.write_all(b"[")?;
    for (i, &m) in line.iter().enumerate() {
        // One write a move: the comma, the quoted text (one buffered write instead of four).
        let (text, n) = m.uci_bytes(chess960);
        let mut chunk = [b',', b'"', 0, 0, 0, 0, 0, 0];
        chunk[2..7].copy_from_slice(&text);
        chunk[2 + n] = b'"';
        out.write_all(&chunk[usize::from(i == 0)..3 + n])?;
    }
    out.write_all(b"]")
}

/// The per-position line of `--side both`: dead (FIDE 1.5) when neither side can win.
fn dead_line(fen: FenWords, white: &Answer, black: &Answer) -> String {
    let verdict = |a: &Answer| a.as_ref().ok().map(|d| d.decision.result());
    let word = match (verdict(white), verdict(black)) {
        (None, _) | (_, None) => return format!("{fen} dead: invalid position"),
        (Some("unwinnable"), Some("unwinnable")) => "yes (neither side can checkmate, FIDE 1.5)",
        (Some("winnable"), _) | (_, Some("winnable")) => "no (a side can checkmate)",
        _ => "undetermined (a side is undetermined, none can be shown to win)",
    };
    format!("{fen} dead: {word}")
}

pub fn run(a: DeadArgs) -> Result<i32> {
    if let Some(t) = a.threads {
        if let Some(w) = limits::check_threads("--threads", t)? {
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
    let (name, text) = match &a.fen {
        Some(_) => ("--fen".to_string(), String::new()),
        None => {
            let path = a.file.clone().unwrap_or_else(|| PathBuf::from("-"));
            position_file::read_unsplit("positions file", &path)?
        }
    };
    // A scan on one thread runs on this one: no pool and no second thread to start (a server that starts
    // `dead --scan --threads 1` per batch pays each start).
    if a.scan && a.threads == Some(1) {
        return scan(&a, &text, &name, &limits, None);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::Backend(format!("--threads: cannot start the thread pool: {e}")))?;
    if a.scan {
        return scan(&a, &text, &name, &limits, Some(pool));
    }
    let input = pool.install(|| read_input(&a, &text, &name))?;
    let total = input.queries.len();
    crate::interrupt::set_status(format!("0 of {total} queries answered"));
    let bar = progress_bar(total as u64, a.quiet, "queries");
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<Answer>)>();
    let shortest = a.shortest;
    let (tally, failure) = std::thread::scope(|scope| {
        let input = &input;
        let (limits, bar) = (&limits, &bar);
        scope.spawn(move || {
            pool.install(|| {
                // One query per job, one job at a time per thread (`with_max_len(1)`): queries differ in cost
                // by four orders of magnitude, so every idle thread steals single queries and no thread is
                // left with a long tail.
                (0..total)
                    .into_par_iter()
                    .with_max_len(1)
                    .for_each_with(tx, |tx, i| {
                        let q = &input.queries[i];
                        let p = input.position(q.at);
                        let answer = decide_one(
                            p,
                            p,
                            q,
                            limits,
                            shortest,
                            &mut memo_of(p),
                            &mut Instant::now(),
                        );
                        bar.inc(1);
                        let _ = tx.send((i, answer));
                    });
            });
        });
        print_in_order(&a, input, rx)
    });
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(summary(&a, &tally))
}

/// The summary line (not with `--json`) and the exit code: 2 where a position was invalid, else 0.
fn summary(a: &DeadArgs, tally: &Tally) -> i32 {
    if !a.json {
        let invalid = if tally.invalid > 0 {
            format!(", {} invalid", tally.invalid)
        } else {
            String::new()
        };
        println!(
            "{} winnable, {} unwinnable, {} undetermined{invalid}",
            tally.winnable, tally.unwinnable, tally.undetermined
        );
    }
    if tally.invalid > 0 {
        2
    } else {
        0
    }
}

/// `--scan`: the lines read, decided and printed a run of [`READ_RUN_LINES`] lines at a time, each run one
/// rayon job of `pool` (its positions read, their queries decided in turn with one [`dead::Memo`] per position,
/// the answers it prints written into a buffer), the runs printed in input order as they finish; without a pool
/// (one thread) the runs are decided and printed in turn on this thread. No list of every position and answer
/// is kept: a scan's memory is its text and a few runs, reused from run to run (the list of every position of a
/// file of real games was half of the scan's page faults, each about 4 µs on this project's machines). A line
/// that cannot be read ends the scan after the answers of the lines before it (exit 2).
fn scan(
    a: &DeadArgs,
    text: &str,
    name: &str,
    limits: &Limits,
    pool: Option<ThreadPool>,
) -> Result<i32> {
    let one;
    let lines = match &a.fen {
        Some(fen) => {
            one = [(0, fen.as_str())];
            &one[..]
        }
        None => &position_file::bounded_lines("positions file", name, text)?[..],
    };
    let bad = |e: LineError| match &a.fen {
        Some(fen) => fen_error(fen, &e.why),
        None => e.in_file(name),
    };
    let total = lines.len();
    crate::interrupt::set_status(format!("0 of {total} input lines scanned"));
    let bar = progress_bar(total as u64, a.quiet, "lines");
    let mut printer = ScanPrinter::new(lines);
    let failure = match pool {
        None => lines
            .chunks(READ_RUN_LINES)
            .enumerate()
            .find_map(|(k, run)| {
                let scanned = scan_run(a, limits, run, &bad);
                bar.inc(run.len() as u64);
                printer.print([(k, scanned)])
            }),
        Some(pool) => {
            let stop = AtomicBool::new(false);
            let (tx, rx) = std::sync::mpsc::channel::<(usize, Scanned)>();
            std::thread::scope(|scope| {
                let (bar, stop, bad) = (&bar, &stop, &bad);
                scope.spawn(move || {
                    pool.install(|| {
                        lines
                            .par_chunks(READ_RUN_LINES)
                            .enumerate()
                            .with_max_len(1)
                            .for_each_with(tx, |tx, (k, run)| {
                                // After a failure printed in order, the runs after it are not needed.
                                if stop.load(Ordering::Relaxed) {
                                    return;
                                }
                                let scanned = scan_run(a, limits, run, bad);
                                bar.inc(run.len() as u64);
                                let _ = tx.send((k, scanned));
                            });
                    });
                });
                printer.print_arriving(rx, stop)
            })
        }
    };
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e);
    }
    if printer.queries == 0 {
        return Err(match &a.fen {
            Some(fen) => fen_error(fen, "empty text"),
            None => position_file::no_positions(name),
        });
    }
    Ok(summary(a, &printer.tally))
}

/// What a run of lines of the scan gave: the text it prints, its counts and queries, and the failure that ends
/// the scan after that text (a line that cannot be read, a helpmate that did not replay).
struct Scanned {
    text: Vec<u8>,
    tally: Tally,
    queries: usize,
    failure: Option<Error>,
}

/// One run of the scan's lines: read, its queries decided in input order (the queries of one position, on
/// one line or on consecutive lines, with one memo), the answers the scan prints written.
fn scan_run(
    a: &DeadArgs,
    limits: &Limits,
    lines: &[(usize, &str)],
    bad: &impl Fn(LineError) -> Error,
) -> Scanned {
    let (positions, asked, error) = read_run(lines);
    let mut s = Scanned {
        text: Vec::new(),
        tally: Tally::default(),
        queries: 0,
        failure: None,
    };
    let mut memo = dead::Memo::default();
    let mut clock = Instant::now();
    // The position of the query before, and the first of its run of equal positions (the memo's).
    let (mut at, mut first) = (usize::MAX, usize::MAX);
    for l in &asked {
        for &side in sides_of(l.side, a.side) {
            if at == usize::MAX || !same(&positions[at], &positions[l.at]) {
                memo = memo_of(&positions[l.at]);
                first = l.at;
            }
            at = l.at;
            let q = Query {
                at,
                side,
                line: l.line,
                pair_end: false,
            };
            let p = &positions[at];
            let answer = decide_one(
                p,
                &positions[first],
                &q,
                limits,
                a.shortest,
                &mut memo,
                &mut clock,
            );
            match answer {
                Ok(answer) => {
                    // Writing into a vector does not fail.
                    let _ = print_answer(&mut s.text, a, p, &q, &answer, &mut s.tally);
                    s.queries += 1;
                }
                Err(e) => {
                    s.failure = Some(e);
                    return s;
                }
            }
        }
    }
    s.failure = error.map(bad);
    s
}

/// The scan's printer: the runs in input order (a reorder buffer), their counts and the queries answered.
struct ScanPrinter<'l> {
    waiting: BTreeMap<usize, Scanned>,
    /// The next run to print.
    next: usize,
    tally: Tally,
    queries: usize,
    lines: &'l [(usize, &'l str)],
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
}

impl<'l> ScanPrinter<'l> {
    fn new(lines: &'l [(usize, &'l str)]) -> Self {
        ScanPrinter {
            waiting: BTreeMap::new(),
            next: 0,
            tally: Tally::default(),
            queries: 0,
            lines,
            out: std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
        }
    }

    /// Take the runs that `arrived`, print those now next in input order and flush once; at a run with a
    /// failure, print its text and return the failure (the scan ends there).
    fn print(&mut self, arrived: impl IntoIterator<Item = (usize, Scanned)>) -> Option<Error> {
        self.waiting.extend(arrived);
        let guard = crate::interrupt::critical();
        let mut failure = None;
        let mut written = Ok(());
        while let Some(s) = self.waiting.remove(&self.next) {
            written = written.and_then(|()| self.out.write_all(&s.text));
            self.tally.add(&s.tally);
            self.queries += s.queries;
            self.next += 1;
            if s.failure.is_some() {
                failure = s.failure;
                break;
            }
        }
        if let Err(e) = written.and_then(|()| self.out.flush()) {
            std::process::exit(super::write_error_exit(&e.to_string()));
        }
        if failure.is_none() {
            let total = self.lines.len();
            let done = (self.next * READ_RUN_LINES).min(total);
            let at = line_done(done.checked_sub(1).map(|i| self.lines[i].0));
            crate::interrupt::set_status(format!("{done} of {total} input lines scanned{at}"));
        }
        drop(guard);
        failure
    }

    /// Print the runs in input order as they arrive from the pool: a drained batch at a time, then a nap, as
    /// [`print_in_order`]. At a failure, raise `stop` (the runs after it are not needed) and return it.
    fn print_arriving(
        &mut self,
        rx: std::sync::mpsc::Receiver<(usize, Scanned)>,
        stop: &AtomicBool,
    ) -> Option<Error> {
        let runs = self.lines.len().div_ceil(READ_RUN_LINES);
        while let Ok(first) = rx.recv() {
            if let Some(failure) = self.print(std::iter::once(first).chain(rx.try_iter())) {
                stop.store(true, Ordering::Relaxed);
                return Some(failure);
            }
            if self.next < runs {
                std::thread::sleep(NAP);
            }
        }
        None
    }
}

/// Whether two positions of a run of the scan are equal valid positions: the same one, or equal ones, compared
/// only where the placements are the same text ([`FenWords::placement`]: a position of another board is told
/// apart without reading it).
fn same(a: &Position, b: &Position) -> bool {
    std::ptr::eq(a, b)
        || matches!(
            (&a.pos, &b.pos),
            (Ok(x), Ok(y)) if a.fen.placement() == b.fen.placement() && x == y
        )
}

/// A new memo for the queries of `p` (with the pieces its screen gathered).
fn memo_of<'a>(p: &'a Position) -> dead::Memo<'a> {
    match p {
        Position {
            pos: Ok(pos),
            pieces,
            ..
        } => dead::Memo::screened(pos, *pieces),
        _ => dead::Memo::default(),
    }
}

/// Decide one query (and, with `--shortest`, shorten its helpmate). `same` is `p` or the first of the equal
/// positions before it in a run of the scan ([`same`]) that `memo` was made from: the query is decided on it.
/// Its time runs from `clock`, which is left at its end: the scan decides a run's queries one after the other
/// and reads the clock once a query (the second reading was a twentieth of a scan of real positions); between
/// two of them it only counts the answer before (written when it is printed) and, for a new position, makes
/// its memo.
fn decide_one<'a>(
    p: &Position,
    same: &'a Position,
    q: &Query,
    limits: &Limits,
    shortest: bool,
    memo: &mut dead::Memo<'a>,
    clock: &mut Instant,
) -> Result<Answer> {
    let pos = match &same.pos {
        Ok(pos) => pos,
        Err(why) => return Ok(Err(why.clone())),
    };
    let start = *clock;
    let mut decision = dead::decide_next(pos, q.side, limits, memo)?;
    let shortest = if shortest {
        shorten(p, q, &mut decision, limits.nodes)?
    } else {
        None
    };
    *clock = Instant::now();
    Ok(Ok(Done {
        decision,
        micros: clock.duration_since(start).as_micros(),
        shortest,
    }))
}

/// Print the answers in input order as they arrive (a reorder buffer), a drained batch at a time: the printer
/// blocks for the first answer, takes every other one already there, prints the consecutive ones, flushes once
/// and then naps for [`NAP`] before it looks again (a printer woken for every answer cost a fifth of a scan of
/// real positions in thread switches). The stop message of an interruption counts only flushed answers.
/// Returns the tally and the first failure (a helpmate that did not replay, a closed output).
fn print_in_order(
    a: &DeadArgs,
    input: &Input,
    rx: std::sync::mpsc::Receiver<(usize, Result<Answer>)>,
) -> (Tally, Option<Error>) {
    // The answers that came early, by the index of their query.
    let mut waiting: BTreeMap<usize, Result<Answer>> = BTreeMap::new();
    let (mut next, mut tally) = (0, Tally::default());
    let mut previous: Option<Answer> = None;
    let total = input.queries.len();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    while let Ok((i, answer)) = rx.recv() {
        waiting.insert(i, answer);
        waiting.extend(rx.try_iter());
        let guard = crate::interrupt::critical();
        let mut written = Ok(());
        while let Some(answer) = waiting.remove(&next) {
            let q = &input.queries[next];
            let p = input.position(q.at);
            let answer = match answer {
                Ok(x) => x,
                Err(e) => return (tally, Some(e)),
            };
            written = written.and_then(|()| print_answer(&mut out, a, p, q, &answer, &mut tally));
            if q.pair_end && !a.json {
                if let Some(white) = &previous {
                    written = written
                        .and_then(|()| writeln!(out, "{}", dead_line(p.fen, white, &answer)));
                }
            }
            next += 1;
            previous = Some(answer);
        }
        if let Err(e) = written.and_then(|()| out.flush()) {
            // As every command's `println!` (cli::write_error_exit): a closed pipe (`dead FILE | head -1`) is
            // exit 141 without a message, a full disk a message and exit 2.
            std::process::exit(super::write_error_exit(&e.to_string()));
        }
        let at = line_done(next.checked_sub(1).map(|i| input.queries[i].line));
        crate::interrupt::set_status(format!("{next} of {total} queries answered{at}"));
        drop(guard);
        if next < total {
            std::thread::sleep(NAP);
        }
    }
    (tally, None)
}

/// The stop message's note of the last input line done (`line`: its number; none, or 0 for `--fen`: no note).
fn line_done(line: Option<usize>) -> String {
    match line {
        Some(line) if line > 0 => format!(" (input line {line} done)"),
        _ => String::new(),
    }
}

/// How long the printer waits between two looks at the answers (a bound on how late a line is printed).
const NAP: Duration = Duration::from_millis(2);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Setup;

    /// A `--json` answer line is the one `serde_json` makes of the same values (keys sorted, the FEN and the
    /// reason escaped: quotes, a backslash, a newline, a non-ASCII letter; a 128-bit time, the largest node
    /// count, `shortest` only when known), for a helpmate with promotions, an empty one and none.
    #[test]
    fn json_line_is_serde_json() {
        let setup = Setup::from_fen("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1").unwrap();
        let moves = crate::reference::legal_moves(&setup);
        assert!(moves.iter().any(|m| m.promotion_role().is_some()));
        let fen = "8/8 \"x\\ é";
        let reason = "a \"quoted\" reason \\ with\na newline";
        // A helpmate, a reason, `shortest`.
        type Case<'a> = (
            Option<&'a [Move]>,
            Option<&'a dyn std::fmt::Display>,
            Option<bool>,
        );
        let cases: [Case; 3] = [
            (Some(&moves), None, Some(true)),
            (None, Some(&reason), None),
            (Some(&moves[..0]), None, Some(false)),
        ];
        let micros = 12_345_678_901_234_567_890_123u128;
        for (helpmate, why, shortest) in cases {
            let line = JsonAnswer {
                fen: &fen,
                helpmate,
                chess960: false,
                microseconds: micros,
                nodes: u64::MAX,
                reason: why,
                result: "winnable",
                shortest,
                side: "black",
            };
            let mut out = Vec::new();
            line.write(&mut out).unwrap();
            let uci = helpmate.map(|h| h.iter().map(|m| m.to_uci(false)).collect::<Vec<_>>());
            let why = why.map(|r| r.to_string());
            let expected = match shortest {
                Some(s) => {
                    json!({"fen": fen, "helpmate": uci, "microseconds": micros, "nodes": u64::MAX,
                    "reason": why, "result": "winnable", "shortest": s, "side": "black"})
                }
                None => {
                    json!({"fen": fen, "helpmate": uci, "microseconds": micros, "nodes": u64::MAX,
                    "reason": why, "result": "winnable", "side": "black"})
                }
            };
            assert_eq!(String::from_utf8(out).unwrap(), format!("{expected}\n"));
        }
    }

    /// The `--json` writer's array is the one `json!` makes of [`Move::to_uci`]'s texts, in both castling
    /// notations, on every legal move of positions with castling (both wings, both colours), promotions,
    /// under-promotions with capture and en passant.
    #[test]
    fn json_uci_text_is_to_uci() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ];
        let mut seen = 0;
        for fen in fens {
            let moves = crate::reference::legal_moves(&Setup::from_fen(fen).unwrap());
            for chess960 in [false, true] {
                let theirs: Vec<String> = moves.iter().map(|m| m.to_uci(chess960)).collect();
                let mut array = Vec::new();
                write_uci_array(&mut array, &moves, chess960).unwrap();
                assert_eq!(array, json!(theirs).to_string().as_bytes(), "{fen}");
                seen += moves.len();
            }
        }
        assert!(seen > 150, "{seen}");
    }
}
