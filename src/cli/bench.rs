//! `perftlab bench`: the six Chess Programming Wiki perft positions at fixed depths, each count checked against
//! the CPW table; nodes, seconds and nodes/s per position and in total (`--json` too). `--stockfish` runs
//! Stockfish's `go perft` on the same positions in the same run and prints the speed ratio.

use super::common::timeout;
use super::{write_file, BackendArgs};
use crate::cpw::POSITIONS;
use crate::engines::{Engine, UciEngine};
use crate::error::{Error, Result};
use crate::render::plot::{self, Bar};
use crate::validate::Checked;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `perftlab bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    backend: BackendArgs,
    /// One ply shallower everywhere (about 30× faster), for smoke tests.
    #[arg(long)]
    quick: bool,
    /// Also run Stockfish's `go perft` on the same positions and print the ratio (optional path; default
    /// `stockfish` on PATH, then `/usr/games/stockfish`).
    #[arg(long, num_args = 0..=1, default_missing_value = "")]
    stockfish: Option<String>,
    /// Seconds Stockfish may take for one position.
    #[arg(long, default_value_t = 600.0)]
    timeout: f64,
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

/// Stockfish as a UCI engine (the one UCI client, [`UciEngine`]), for timing `go perft`.
struct Stockfish {
    uci: UciEngine,
}

impl Stockfish {
    /// Start `path` (empty: `stockfish` on PATH, then `/usr/games/stockfish`).
    fn start(path: &str, timeout: Duration) -> Result<Stockfish> {
        let candidates: Vec<&str> = if path.is_empty() {
            vec!["stockfish", "/usr/games/stockfish"]
        } else {
            vec![path]
        };
        let mut last = String::new();
        for c in candidates {
            // Quoted, so that a path with spaces stays one word.
            let command = format!("'{}'", c.replace('\'', "'\\''"));
            match UciEngine::start(&command, false, timeout) {
                Ok(uci) => return Ok(Stockfish { uci }),
                Err(Error::Usage(e)) => last = e.replacen("--engine", "--stockfish", 1),
                Err(e) => return Err(e),
            }
        }
        Err(Error::Usage(last))
    }

    /// (nodes, wall seconds, CPU seconds) of `go perft depth`, timed from the command to the result line.
    fn perft(&mut self, fen: &str, depth: u32) -> Result<(u128, f64, f64)> {
        let pid = Some(self.uci.pid());
        let cpu0 = cpu_seconds(pid).unwrap_or(0.0);
        let start = Instant::now();
        let nodes = self.uci.divide(fen, &[], depth)?.total;
        let seconds = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds(pid).unwrap_or(0.0) - cpu0;
        Ok((nodes, seconds, cpu))
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
    super::check_output("--plot", a.plot.as_deref())?;
    let timeout = timeout(a.timeout)?;
    let mut stockfish = match &a.stockfish {
        Some(path) => Some(Stockfish::start(path, timeout)?),
        None => None,
    };
    if let Some(range) = &a.depths {
        return run_depths(&a, range, stockfish.as_mut());
    }
    let mut bars = Vec::new();
    let mut rows = Vec::new();
    let (mut ours, mut theirs) = (Totals::default(), Totals::default());
    let mut name = "";
    let mut failed = false;
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
        let pos = Checked::from_fen(p.fen)?;
        // A fresh backend per position: its hash table starts empty, as in a separate run.
        let backend = a.backend.create()?;
        name = backend.name();
        let cpu0 = cpu_seconds(None).unwrap_or(0.0);
        let start = Instant::now();
        let n = backend.perft(&pos, depth)?;
        let s = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds(None).unwrap_or(0.0) - cpu0;
        drop(backend);
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
                "threads": a.backend.threads,
                "hash_mb": a.backend.hash_mb(),
                "merge": !a.backend.no_merge,
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
fn run_depths(a: &BenchArgs, range: &str, mut stockfish: Option<&mut Stockfish>) -> Result<i32> {
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
    let counts = p.nodes_by_depth;
    if hi as usize > counts.len() {
        return Err(Error::Usage(format!(
            "--depths: '{range}' goes past depth {}, the deepest published count of '{}'",
            counts.len(),
            p.name
        )));
    }
    let pos = Checked::from_fen(p.fen)?;
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
        // A fresh backend per depth: its hash table starts empty, as in a separate run.
        let backend = a.backend.create()?;
        name = backend.name();
        let start = Instant::now();
        let n = backend.perft(&pos, depth)?;
        let s = start.elapsed().as_secs_f64();
        drop(backend);
        if n != expected {
            eprintln!(
                "error: {} depth {depth}: expected {expected} nodes (CPW), got {n}",
                p.name
            );
            failed = true;
        }
        let sf = match stockfish.as_deref_mut() {
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
