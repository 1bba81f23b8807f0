//! `perftlab bench`: the six Chess Programming Wiki perft positions at fixed depths, each count checked against
//! the CPW table; nodes, seconds and nodes/s per position and in total (`--json` too). `--stockfish` runs
//! Stockfish's `go perft` on the same positions in the same run and prints the speed ratio.

use super::{init_threads, write_file, EngineArgs};
use crate::backend;
use crate::backend::EngineOptions;
use crate::error::{Error, Result};
use crate::perft::check_position;
use crate::position::Setup;
use crate::render::plot::{self, Bar};
use clap::Args;
use serde_json::json;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

/// One bench position: name, FEN, full depth and count, quick depth and count (Chess Programming Wiki,
/// "Perft Results", positions 1–6).
pub struct BenchPosition {
    /// Short name.
    pub name: &'static str,
    /// FEN.
    pub fen: &'static str,
    /// (depth, nodes) of the full bench.
    pub full: (u32, u128),
    /// (depth, nodes) of `--quick`.
    pub quick: (u32, u128),
}

/// The six CPW positions with their published counts.
pub const POSITIONS: [BenchPosition; 6] = [
    BenchPosition {
        name: "start",
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        full: (6, 119_060_324),
        quick: (5, 4_865_609),
    },
    BenchPosition {
        name: "kiwipete",
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        full: (5, 193_690_690),
        quick: (4, 4_085_603),
    },
    BenchPosition {
        name: "pos3",
        fen: "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        full: (7, 178_633_661),
        quick: (6, 11_030_083),
    },
    BenchPosition {
        name: "pos4",
        fen: "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        full: (5, 15_833_292),
        quick: (4, 422_333),
    },
    BenchPosition {
        name: "pos5",
        fen: "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        full: (5, 89_941_194),
        quick: (4, 2_103_487),
    },
    BenchPosition {
        name: "pos6",
        fen: "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        full: (5, 164_075_551),
        quick: (4, 3_894_594),
    },
];

/// Arguments of `perftlab bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// One ply shallower everywhere (about 30× faster), for smoke tests.
    #[arg(long)]
    quick: bool,
    /// Also run Stockfish's `go perft` on the same positions and print the ratio (optional path; default
    /// `stockfish` on PATH, then `/usr/games/stockfish`).
    #[arg(long, num_args = 0..=1, default_missing_value = "")]
    stockfish: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Draw the speeds as an SVG chart: nodes/s per position (Stockfish's beside it with `--stockfish`)
    /// and the aggregate; with `--depths`, nodes/s against depth.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Time one position (`--position`) at each depth of the range `A..B` (both included) instead of the
    /// six positions at their fixed depths; counts are checked against the CPW's published ones.
    #[arg(long, value_name = "A..B")]
    depths: Option<String>,
    /// The position of `--depths`: one of start, kiwipete, pos3, pos4, pos5, pos6.
    #[arg(long, default_value = "start", requires = "depths")]
    position: String,
}

/// Published node counts by depth (from 1) of the six positions (Chess Programming Wiki, "Perft
/// Results"), for `--depths`.
const CPW_NODES: [(&str, &[u128]); 6] = [
    (
        "start",
        &[
            20,
            400,
            8_902,
            197_281,
            4_865_609,
            119_060_324,
            3_195_901_860,
        ],
    ),
    (
        "kiwipete",
        &[48, 2_039, 97_862, 4_085_603, 193_690_690, 8_031_647_685],
    ),
    (
        "pos3",
        &[
            14,
            191,
            2_812,
            43_238,
            674_624,
            11_030_083,
            178_633_661,
            3_009_794_393,
        ],
    ),
    ("pos4", &[6, 264, 9_467, 422_333, 15_833_292, 706_045_033]),
    ("pos5", &[44, 1_486, 62_379, 2_103_487, 89_941_194]),
    (
        "pos6",
        &[46, 2_079, 89_890, 3_894_594, 164_075_551, 6_923_051_137],
    ),
];

/// Parse `--depths A..B` (or `A..=B`), both included, 1 ≤ A ≤ B.
fn parse_depths(text: &str) -> Result<(u32, u32)> {
    let bad = || {
        Error::Usage(format!(
            "--depths: '{text}' is not a range of depths like 1..6"
        ))
    };
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let b = b.strip_prefix('=').unwrap_or(b);
    let (a, b): (u32, u32) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a == 0 || a > b {
        return Err(bad());
    }
    Ok((a, b))
}

/// A running Stockfish process speaking UCI.
struct Stockfish {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Stockfish {
    fn start(path: &str) -> Result<Stockfish> {
        let candidates: Vec<PathBuf> = if path.is_empty() {
            vec!["stockfish".into(), "/usr/games/stockfish".into()]
        } else {
            vec![path.into()]
        };
        let mut last = String::new();
        for c in candidates {
            match Command::new(&c)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
            {
                Ok(mut child) => {
                    let out = BufReader::new(child.stdout.take().expect("piped stdout"));
                    let mut sf = Stockfish { child, out };
                    sf.send("uci\nisready")?;
                    sf.wait_for("readyok")?;
                    return Ok(sf);
                }
                Err(e) => last = format!("'{}': {e}", c.display()),
            }
        }
        Err(Error::Usage(format!("--stockfish: cannot start {last}")))
    }

    fn send(&mut self, text: &str) -> Result<()> {
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        writeln!(stdin, "{text}")
            .and_then(|_| stdin.flush())
            .map_err(|e| Error::Backend(format!("stockfish: write failed: {e}")))
    }

    fn wait_for(&mut self, prefix: &str) -> Result<String> {
        let mut line = String::new();
        loop {
            line.clear();
            let n = self
                .out
                .read_line(&mut line)
                .map_err(|e| Error::Backend(format!("stockfish: read failed: {e}")))?;
            if n == 0 {
                return Err(Error::Backend(format!(
                    "stockfish exited before '{prefix}'"
                )));
            }
            if line.starts_with(prefix) {
                return Ok(line.trim().to_string());
            }
        }
    }

    /// (nodes, wall seconds, CPU seconds) of `go perft depth`, timed from the command to the result line.
    fn perft(&mut self, fen: &str, depth: u32) -> Result<(u128, f64, f64)> {
        self.send(&format!("position fen {fen}\nisready"))?;
        self.wait_for("readyok")?;
        let pid = Some(self.child.id());
        let cpu0 = cpu_seconds(pid).unwrap_or(0.0);
        let start = Instant::now();
        self.send(&format!("go perft {depth}"))?;
        let line = self.wait_for("Nodes searched:")?;
        let seconds = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds(pid).unwrap_or(0.0) - cpu0;
        let nodes = line
            .trim_start_matches("Nodes searched:")
            .trim()
            .parse()
            .map_err(|_| Error::Backend(format!("stockfish: cannot read '{line}'")))?;
        Ok((nodes, seconds, cpu))
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

/// CPU time (user + system, all threads) of a process so far, from `/proc/PID/stat` (Linux; 10 ms ticks).
/// `None` elsewhere. Under a loaded machine wall time overstates both programs' cost; CPU time does not.
fn cpu_seconds(pid: Option<u32>) -> Option<f64> {
    let path = match pid {
        Some(p) => format!("/proc/{p}/stat"),
        None => "/proc/self/stat".to_string(),
    };
    let text = std::fs::read_to_string(path).ok()?;
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    let rest = &text[text.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn mnps(nodes: u128, seconds: f64) -> f64 {
    nodes as f64 / seconds.max(1e-9) / 1e6
}

/// Totals of one side of the comparison.
#[derive(Default)]
struct Totals {
    nodes: u128,
    seconds: f64,
    cpu: f64,
}

pub fn run(a: BenchArgs) -> Result<i32> {
    let opts = a.engine.options()?;
    init_threads(opts.threads);
    if let Some(range) = &a.depths {
        return run_depths(&a, range, &opts);
    }
    let mut stockfish = match &a.stockfish {
        Some(path) => Some(Stockfish::start(path)?),
        None => None,
    };
    let mut rows = Vec::new();
    let (mut ours, mut theirs) = (Totals::default(), Totals::default());
    let mut name = "";
    let mut failed = false;
    let mut bars = Vec::new();
    if !a.json {
        let sf_head = if stockfish.is_some() {
            format!(
                "  {:>8} {:>8} {:>8} {:>6} {:>6}",
                "sf s", "sf cpu s", "sf Mn/s", "ratio", "cpu ×"
            )
        } else {
            String::new()
        };
        println!(
            "{:<9} {:>5} {:>13} {:>8} {:>8} {:>8}{sf_head}",
            "position", "depth", "nodes", "seconds", "cpu s", "Mnodes/s"
        );
    }
    for p in &POSITIONS {
        let (depth, expected) = if a.quick { p.quick } else { p.full };
        let setup = Setup::from_fen(p.fen).expect("bench FEN is valid");
        check_position(&setup)?;
        // A fresh backend per position: its hash table starts empty, as in a separate run.
        let engine = backend::create(a.engine.backend, &opts)?;
        name = engine.name();
        let cpu0 = cpu_seconds(None).unwrap_or(0.0);
        let start = Instant::now();
        let n = engine.perft(&setup, depth)?;
        let s = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds(None).unwrap_or(0.0) - cpu0;
        drop(engine);
        if n != expected {
            eprintln!(
                "error: {} depth {depth}: expected {expected} nodes (CPW), got {n}",
                p.name
            );
            failed = true;
        }
        ours.nodes += n;
        ours.seconds += s;
        ours.cpu += cpu;
        let sf = match stockfish.as_mut() {
            Some(sf) => {
                let (sn, ss, sc) = sf.perft(p.fen, depth)?;
                if sn != expected {
                    eprintln!("error: stockfish {} depth {depth}: got {sn}", p.name);
                    failed = true;
                }
                theirs.nodes += sn;
                theirs.seconds += ss;
                theirs.cpu += sc;
                Some((ss, sc))
            }
            None => None,
        };
        if !a.json {
            let sf_cols = sf.map_or(String::new(), |(ss, sc)| {
                format!(
                    "  {ss:>8.3} {sc:>8.2} {:>8.1} {:>6.2} {:>6.2}",
                    mnps(n, ss),
                    ss / s.max(1e-9),
                    sc / cpu.max(0.01)
                )
            });
            println!(
                "{:<9} {depth:>5} {n:>13} {s:>8.3} {cpu:>8.2} {:>8.1}{sf_cols}",
                p.name,
                mnps(n, s)
            );
        }
        bars.push(Bar {
            label: p.name.to_string(),
            ours: n as f64 / s.max(1e-9),
            stockfish: sf.map(|(ss, _)| expected as f64 / ss.max(1e-9)),
        });
        rows.push(json!({
            "name": p.name, "fen": p.fen, "depth": depth, "nodes": n, "seconds": s, "cpu_seconds": cpu,
            "nps": n as f64 / s.max(1e-9),
            "stockfish_seconds": sf.map(|x| x.0),
            "stockfish_cpu_seconds": sf.map(|x| x.1),
        }));
    }
    let ratio = stockfish
        .is_some()
        .then(|| theirs.seconds / ours.seconds.max(1e-9));
    let cpu_ratio = stockfish.is_some().then(|| theirs.cpu / ours.cpu.max(0.01));
    if let Some(path) = &a.plot {
        bars.push(Bar {
            label: "total".into(),
            ours: ours.nodes as f64 / ours.seconds.max(1e-9),
            stockfish: ratio.map(|_| theirs.nodes as f64 / theirs.seconds.max(1e-9)),
        });
        let title = format!(
            "perftlab bench{}: nodes/s per position",
            if a.quick { " --quick" } else { "" }
        );
        write_file("--plot", path, &plot::speed_bars(&title, name, &bars)?)?;
    }
    if a.json {
        println!(
            "{}",
            json!({
                "backend": name,
                "threads": opts.threads,
                "hash_mb": opts.hash_mb,
                "merge": opts.merge,
                "quick": a.quick,
                "positions": rows,
                "total": {
                    "nodes": ours.nodes, "seconds": ours.seconds, "cpu_seconds": ours.cpu,
                    "nps": ours.nodes as f64 / ours.seconds.max(1e-9),
                },
                "stockfish": ratio.map(|_| json!({
                    "seconds": theirs.seconds, "cpu_seconds": theirs.cpu,
                    "nps": theirs.nodes as f64 / theirs.seconds.max(1e-9),
                })),
                "ratio": ratio,
                "cpu_time_ratio": cpu_ratio,
                "ok": !failed,
            })
        );
    } else {
        let sf_cols = match (ratio, cpu_ratio) {
            (Some(r), Some(c)) => format!(
                "  {:>8.3} {:>8.2} {:>8.1} {r:>6.2} {c:>6.2}",
                theirs.seconds,
                theirs.cpu,
                mnps(theirs.nodes, theirs.seconds)
            ),
            _ => String::new(),
        };
        println!(
            "{:<9} {:>5} {:>13} {:>8.3} {:>8.2} {:>8.1}{sf_cols}",
            "total",
            "",
            ours.nodes,
            ours.seconds,
            ours.cpu,
            mnps(ours.nodes, ours.seconds)
        );
        if let (Some(r), Some(c)) = (ratio, cpu_ratio) {
            println!(
                "{name} is {r:.2}x Stockfish's aggregate nodes/s by wall time, {c:.2}x by CPU time"
            );
        }
    }
    Ok(if failed { 1 } else { 0 })
}

/// `bench --depths A..B`: one position at each depth, counts checked against the CPW's.
fn run_depths(a: &BenchArgs, range: &str, opts: &EngineOptions) -> Result<i32> {
    let (lo, hi) = parse_depths(range)?;
    let names: Vec<&str> = POSITIONS.iter().map(|p| p.name).collect();
    let p = POSITIONS
        .iter()
        .find(|p| p.name == a.position)
        .ok_or_else(|| {
            Error::Usage(format!(
                "--position: '{}' is not one of {}",
                a.position,
                names.join(", ")
            ))
        })?;
    let counts = CPW_NODES
        .iter()
        .find(|c| c.0 == p.name)
        .expect("every bench position has counts")
        .1;
    if hi as usize > counts.len() {
        return Err(Error::Usage(format!(
            "--depths: '{range}' goes past depth {}, the deepest published count of '{}'",
            counts.len(),
            p.name
        )));
    }
    let setup = Setup::from_fen(p.fen).expect("bench FEN is valid");
    check_position(&setup)?;
    let mut stockfish = match &a.stockfish {
        Some(path) => Some(Stockfish::start(path)?),
        None => None,
    };
    let mut points = Vec::new();
    let mut rows = Vec::new();
    let mut failed = false;
    let mut name = "";
    if !a.json {
        println!(
            "{:<5} {:>13} {:>8} {:>8}{}",
            "depth",
            "nodes",
            "seconds",
            "Mnodes/s",
            if stockfish.is_some() {
                format!(" {:>8} {:>8}", "sf s", "sf Mn/s")
            } else {
                String::new()
            }
        );
    }
    for depth in lo..=hi {
        let expected = counts[depth as usize - 1];
        let engine = backend::create(a.engine.backend, opts)?;
        name = engine.name();
        let start = Instant::now();
        let n = engine.perft(&setup, depth)?;
        let s = start.elapsed().as_secs_f64();
        drop(engine);
        if n != expected {
            eprintln!(
                "error: {} depth {depth}: expected {expected} nodes (CPW), got {n}",
                p.name
            );
            failed = true;
        }
        let sf = match stockfish.as_mut() {
            Some(sf) => {
                let (sn, ss, _) = sf.perft(p.fen, depth)?;
                if sn != expected {
                    eprintln!("error: stockfish {} depth {depth}: got {sn}", p.name);
                    failed = true;
                }
                Some(ss)
            }
            None => None,
        };
        if !a.json {
            let sf_cols = sf.map_or(String::new(), |ss| {
                format!(" {ss:>8.3} {:>8.1}", mnps(expected, ss))
            });
            println!("{depth:<5} {n:>13} {s:>8.3} {:>8.1}{sf_cols}", mnps(n, s));
        }
        points.push((
            depth,
            n as f64 / s.max(1e-9),
            sf.map(|ss| expected as f64 / ss.max(1e-9)),
        ));
        rows.push(json!({
            "depth": depth, "nodes": n, "seconds": s, "nps": n as f64 / s.max(1e-9),
            "stockfish_seconds": sf,
        }));
    }
    if a.json {
        println!(
            "{}",
            json!({"backend": name, "position": p.name, "fen": p.fen, "depths": rows, "ok": !failed})
        );
    }
    if let Some(path) = &a.plot {
        let title = format!("perftlab bench: nodes/s by depth, {}", p.name);
        write_file(
            "--plot",
            path,
            &plot::speed_by_depth(&title, name, &points)?,
        )?;
    }
    Ok(if failed { 1 } else { 0 })
}
