//! `perftlab bench`: the six Chess Programming Wiki perft positions at fixed depths, each count checked against
//! the CPW table; nodes, seconds and nodes/s per position and in total (`--json` too). `--stockfish` runs
//! Stockfish's `go perft` on the same positions in the same run and prints the speed ratio, with the flags each
//! side ran with beside it. A count shorter than [`MIN_TIMED`] is repeated until that much time has passed
//! (bounded by [`MAX_TIMED`] and [`MAX_REPEATS`]), and the time per count is reported, so a ratio of short
//! counts is not one of clock ticks.

use super::common::{flag, timeout, BackendKind};
use super::{write_file, BackendArgs};
use crate::cpw::POSITIONS;
use crate::engines::{Engine, UciEngine};
use crate::error::{Error, Result, Setting};
use crate::render::plot::{self, Bar};
use crate::validate::Checked;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Least wall time (and, where the machine lets the process run, CPU time) a timed count is repeated for:
/// 20 ticks of the 10 ms CPU clock of `/proc/PID/stat` where [`cpu_seconds`] has only that clock, so a CPU
/// time is known to about 5%.
const MIN_TIMED: f64 = 0.2;

/// Most wall time spent repeating one count once it has run once, the making of a fresh backend per count
/// included (for the cpu backend's default 64 MiB table about as long as a quick count), so `bench --quick`
/// stays within seconds; a loaded machine may give the process less than [`MIN_TIMED`] of CPU in that
/// time, and the CPU time is then what was measured.
const MAX_TIMED: f64 = 2.0;

/// Most wall time spent repeating one count whose CPU time is still unmeasured (zero) at [`MAX_TIMED`].
/// Measured 2026-12-03 in CI's run on a loaded machine: `bench --quick` position 4 (0.7 ms a count, about
/// 50 ms a fresh 64 MiB table) read 0 CPU seconds after 41 counts in 2 s.
const UNMEASURED_TIMED: f64 = 6.0;

/// Most repetitions of one count.
const MAX_REPEATS: u32 = 100_000;

/// One count timed by [`timed`]: its nodes and the wall and CPU seconds per count, over `repeats` counts.
#[derive(Clone, Copy, Debug, Default)]
struct Timing {
    nodes: u128,
    seconds: f64,
    cpu: f64,
    repeats: u32,
}

/// Repeat `count` (one count: its nodes and wall and CPU seconds, any setup outside its times) until the
/// counts' times add up to [`MIN_TIMED`] of wall time and of CPU time (the CPU part only while the whole loop
/// is under [`MAX_TIMED`], setups included), at most [`MAX_REPEATS`] times; the times per count. A repetition
/// that counts a different number of nodes from the first ends the loop with that count (so the CPW check
/// sees it).
fn timed(mut count: impl FnMut() -> Result<(u128, f64, f64)>) -> Result<Timing> {
    let start = Instant::now();
    let mut t = Timing::default();
    let (mut wall, mut cpu) = (0.0, 0.0);
    loop {
        let (n, w, c) = count()?;
        if t.repeats > 0 && n != t.nodes {
            t.nodes = n;
            break;
        }
        t.nodes = n;
        t.repeats += 1;
        wall += w;
        cpu += c;
        let spent = start.elapsed().as_secs_f64();
        let enough = wall >= MIN_TIMED && (cpu >= MIN_TIMED || spent >= MAX_TIMED);
        // A CPU time still zero (no 10 ms tick landed inside a count: on a loaded machine the ticks may all
        // land in the making of the backends between counts of a millisecond) gets up to UNMEASURED_TIMED.
        let limit = if cpu > 0.0 {
            MAX_TIMED
        } else {
            UNMEASURED_TIMED
        };
        if enough || spent >= limit || t.repeats >= MAX_REPEATS {
            break;
        }
    }
    let reps = f64::from(t.repeats.max(1));
    t.seconds = wall / reps;
    t.cpu = cpu / reps;
    Ok(t)
}

/// Seconds with three significant digits (`0.000412`, `0.0371`, `1.24`), so a short count's time never reads
/// `0.00`; `-` for an unknown (zero) CPU time.
fn secs(x: f64) -> String {
    if x <= 0.0 {
        return "-".into();
    }
    let decimals = (2 - x.log10().floor() as i32).clamp(0, 9) as usize;
    format!("{x:.decimals$}")
}

/// The flags perftlab's side of a ratio ran with: backend, threads, hash table, merging.
fn our_flags(a: &BackendArgs, name: &str) -> String {
    let threads = a.threads.map_or_else(
        || format!("all {}", rayon::current_num_threads()),
        |n| n.to_string(),
    );
    let hash = match a.hash {
        Some(0) => "off (--hash 0)".to_string(),
        Some(n) => format!("{n} MiB"),
        None if name == "gpu" => "default".to_string(),
        None => format!("{} MiB (default)", a.hash_mb()),
    };
    let merge = if a.no_merge { "off (--no-merge)" } else { "on" };
    format!("perftlab --backend {name}: threads {threads}, hash table {hash}, merging {merge}")
}

/// The flags Stockfish's side ran with (`go perft` at the same depth: one thread, no hash table, whatever the
/// engine's `Threads` and `Hash` options).
const STOCKFISH_FLAGS: &str =
    "Stockfish: `go perft N` at the same depth (its perft uses one thread and no hash table)";

/// Whether perftlab's side did work Stockfish's `go perft` does not (a hash table, merging, more threads).
fn unlike(a: &BackendArgs) -> Option<String> {
    let mut extra = Vec::new();
    if a.hash != Some(0) {
        extra.push("its hash table");
    }
    if !a.no_merge {
        extra.push("transposition merging");
    }
    if a.threads != Some(1) {
        extra.push("more than one thread");
    }
    (!extra.is_empty()).then(|| {
        format!(
            "note: not like for like: perftlab counted with {}, which Stockfish's `go perft` does not use; \
             `--threads 1 --hash 0 --no-merge` compares the move generators alone",
            match extra.split_last() {
                Some((last, [])) => last.to_string(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => String::new(),
            }
        )
    })
}

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
                // The engine's error is about its command (`--engine` in the CLI's words) as quoted here:
                // say `--stockfish` and the path as typed.
                Err(Error::Setting(mut e)) if e.setting == Setting::Engine => {
                    e.value = Some(c.to_string());
                    last = e.message(&|s| match s {
                        Setting::Engine => "--stockfish",
                        other => flag(other),
                    });
                }
                Err(e) => return Err(e),
            }
        }
        Err(Error::Usage(last))
    }

    /// (nodes, wall seconds, CPU seconds) of one `go perft depth`, timed from the command to the result line.
    fn perft_once(&mut self, fen: &str, depth: u32) -> Result<(u128, f64, f64)> {
        let pid = Some(self.uci.pid());
        let cpu0 = cpu_seconds(pid).unwrap_or(0.0);
        let start = Instant::now();
        let nodes = self.uci.divide(fen, &[], depth)?.total;
        let seconds = start.elapsed().as_secs_f64();
        let cpu = (cpu_seconds(pid).unwrap_or(0.0) - cpu0).max(0.0);
        Ok((nodes, seconds, cpu))
    }

    /// `go perft depth`, repeated as [`timed`] says.
    fn perft(&mut self, fen: &str, depth: u32) -> Result<Timing> {
        timed(|| self.perft_once(fen, depth))
    }
}

/// CPU time (user + system, all threads) of a process so far, in seconds. `None` where `/proc` is missing
/// (not Linux). Under a loaded machine wall time overstates both programs' cost; CPU time does not.
///
/// Read as nanoseconds from each thread's `/proc/PID/task/TID/schedstat` (the scheduler's exact run time), so
/// a count of a millisecond is measured even when no 10 ms tick of `/proc/PID/stat` lands inside it (seen on
/// a loaded machine: `bench --quick` position 4 read 0 CPU seconds after 31 counts); `/proc/PID/stat`'s ticks
/// where the kernel has no schedstat. A thread that ends between two readings takes its time with it: the
/// backends' thread pools live across a count, so none does inside one.
fn cpu_seconds(pid: Option<u32>) -> Option<f64> {
    let proc_dir = match pid {
        Some(p) => format!("/proc/{p}"),
        None => "/proc/self".to_string(),
    };
    schedstat_seconds(&proc_dir).or_else(|| stat_seconds(&proc_dir))
}

/// The sum of the run times of a process's threads (`task/*/schedstat`, first field, nanoseconds).
fn schedstat_seconds(proc_dir: &str) -> Option<f64> {
    let mut total: u64 = 0;
    for task in std::fs::read_dir(format!("{proc_dir}/task")).ok()? {
        let path = task.ok()?.path().join("schedstat");
        // A thread that ended after the listing has no file any more: its time is gone either way.
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        total += text.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total as f64 / 1e9)
}

/// User + system time from `/proc/PID/stat` (10 ms ticks, all threads, ended ones included).
fn stat_seconds(proc_dir: &str) -> Option<f64> {
    let text = std::fs::read_to_string(format!("{proc_dir}/stat")).ok()?;
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    let rest = &text[text.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn mnps(nodes: u128, seconds: f64) -> f64 {
    nodes as f64 / seconds.max(1e-9) / 1e6
}

/// One perftlab count of `pos` at `depth`, timed as [`timed`] says: a fresh backend per count (its hash table
/// starts empty, as in a separate run), its creation outside the times.
fn time_ours(a: &BenchArgs, pos: &Checked, depth: u32, name: &mut &'static str) -> Result<Timing> {
    timed(|| {
        let backend = a.backend.create()?;
        *name = backend.name();
        let cpu0 = cpu_seconds(None).unwrap_or(0.0);
        let start = Instant::now();
        let n = backend.perft(pos, depth)?;
        let s = start.elapsed().as_secs_f64();
        let cpu = (cpu_seconds(None).unwrap_or(0.0) - cpu0).max(0.0);
        Ok((n, s, cpu))
    })
}

/// The ratio `theirs / ours` of two times, `None` when either is unknown (zero).
fn ratio(theirs: f64, ours: f64) -> Option<f64> {
    (theirs > 0.0 && ours > 0.0).then(|| theirs / ours)
}

fn ratio_text(r: Option<f64>) -> String {
    r.map_or_else(|| "-".into(), |r| format!("{r:.2}"))
}

/// The table's heading (and, with Stockfish, what its ratios compare).
fn print_heading(with_sf: bool, flags: &str) {
    let sf_head = if with_sf {
        println!("ratios: Stockfish's time / perftlab's, per count; {flags}");
        format!(
            "  {:>9} {:>9} {:>8} {:>6} {:>6} {:>6}",
            "sf s", "sf cpu s", "sf Mn/s", "sf n", "ratio", "cpu ×"
        )
    } else {
        String::new()
    };
    println!(
        "{:<9} {:>5} {:>13} {:>9} {:>9} {:>8} {:>6}{sf_head}",
        "position", "depth", "nodes", "seconds", "cpu s", "Mnodes/s", "n"
    );
}

/// One row of the table: perftlab's time per count (`n`: counts timed) and Stockfish's beside it.
fn print_row(label: &str, depth: &str, ours: &Timing, sf: Option<&Timing>) {
    let sf_cols = sf.map_or(String::new(), |t| {
        format!(
            "  {:>9} {:>9} {:>8.1} {:>6} {:>6} {:>6}",
            secs(t.seconds),
            secs(t.cpu),
            mnps(t.nodes, t.seconds),
            t.repeats,
            ratio_text(ratio(t.seconds, ours.seconds)),
            ratio_text(ratio(t.cpu, ours.cpu)),
        )
    });
    println!(
        "{label:<9} {depth:>5} {:>13} {:>9} {:>9} {:>8.1} {:>6}{sf_cols}",
        ours.nodes,
        secs(ours.seconds),
        secs(ours.cpu),
        mnps(ours.nodes, ours.seconds),
        ours.repeats,
    )
}

/// Add one position's times (per count) to a total.
fn add(total: &mut Timing, t: &Timing) {
    total.nodes += t.nodes;
    total.seconds += t.seconds;
    total.cpu += t.cpu;
    total.repeats += t.repeats;
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
    let (mut ours, mut theirs) = (Timing::default(), Timing::default());
    // The backend's name (as the backend gives it once made; the flags line needs it before the first count).
    let mut name: &'static str = match a.backend.backend {
        BackendKind::Reference => "reference",
        BackendKind::Cpu => "cpu",
        BackendKind::Gpu => "gpu",
    };
    let flags = format!("{}; {STOCKFISH_FLAGS}", our_flags(&a.backend, name));
    let mut failed = false;
    if !a.json {
        print_heading(stockfish.is_some(), &flags);
    }
    for p in &POSITIONS {
        let (depth, expected) = if a.quick { p.quick } else { p.full };
        let pos = Checked::from_fen(p.fen)?;
        let t = time_ours(&a, &pos, depth, &mut name)?;
        if t.nodes != expected {
            eprintln!(
                "error: {} depth {depth}: expected {expected} nodes (CPW), got {}",
                p.name, t.nodes
            );
            failed = true;
        }
        add(&mut ours, &t);
        let sf = match stockfish.as_mut() {
            Some(sf) => {
                let st = sf.perft(p.fen, depth)?;
                if st.nodes != expected {
                    eprintln!(
                        "error: stockfish {} depth {depth}: got {}",
                        p.name, st.nodes
                    );
                    failed = true;
                }
                add(&mut theirs, &st);
                Some(st)
            }
            None => None,
        };
        if !a.json {
            print_row(p.name, &depth.to_string(), &t, sf.as_ref());
        }
        bars.push(Bar {
            label: p.name.to_string(),
            ours: t.nodes as f64 / t.seconds.max(1e-9),
            stockfish: sf.map(|st| expected as f64 / st.seconds.max(1e-9)),
        });
        rows.push(json!({
            "name": p.name, "fen": p.fen, "depth": depth, "nodes": t.nodes, "seconds": t.seconds,
            "cpu_seconds": t.cpu, "repeats": t.repeats, "nps": t.nodes as f64 / t.seconds.max(1e-9),
            "stockfish_seconds": sf.map(|x| x.seconds),
            "stockfish_cpu_seconds": sf.map(|x| x.cpu),
            "stockfish_repeats": sf.map(|x| x.repeats),
        }));
    }
    let with_sf = stockfish.is_some();
    let wall_ratio = with_sf
        .then(|| ratio(theirs.seconds, ours.seconds))
        .flatten();
    let cpu_ratio = with_sf.then(|| ratio(theirs.cpu, ours.cpu)).flatten();
    if let Some(path) = &a.plot {
        bars.push(Bar {
            label: "total".into(),
            ours: ours.nodes as f64 / ours.seconds.max(1e-9),
            stockfish: with_sf.then(|| theirs.nodes as f64 / theirs.seconds.max(1e-9)),
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
                "min_timed_seconds": MIN_TIMED,
                "positions": rows,
                "total": {
                    "nodes": ours.nodes, "seconds": ours.seconds, "cpu_seconds": ours.cpu,
                    "nps": ours.nodes as f64 / ours.seconds.max(1e-9),
                },
                "stockfish": with_sf.then(|| json!({
                    "seconds": theirs.seconds, "cpu_seconds": theirs.cpu,
                    "nps": theirs.nodes as f64 / theirs.seconds.max(1e-9),
                })),
                "ratio": wall_ratio,
                "cpu_time_ratio": cpu_ratio,
                "flags": with_sf.then(|| json!({
                    "perftlab": our_flags(&a.backend, name), "stockfish": STOCKFISH_FLAGS,
                    "like_for_like": unlike(&a.backend).is_none(),
                })),
                "ok": !failed,
            })
        );
    } else {
        print_row("total", "", &ours, with_sf.then_some(&theirs));
        if with_sf {
            println!(
                "{name} is {}x Stockfish's aggregate nodes/s by wall time, {}x by CPU time (sums of the \
                 times per count); {}; {STOCKFISH_FLAGS}",
                ratio_text(wall_ratio),
                ratio_text(cpu_ratio),
                our_flags(&a.backend, name)
            );
            if let Some(note) = unlike(&a.backend) {
                println!("{note}");
            }
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
        // A fresh backend per count (its hash table starts empty), short counts repeated.
        let t = time_ours(a, &pos, depth, &mut name)?;
        let (n, s) = (t.nodes, t.seconds);
        if n != expected {
            eprintln!(
                "error: {} depth {depth}: expected {expected} nodes (CPW), got {n}",
                p.name
            );
            failed = true;
        }
        let sf = match stockfish.as_deref_mut() {
            Some(sf) => {
                let st = sf.perft(p.fen, depth)?;
                if st.nodes != expected {
                    eprintln!(
                        "error: stockfish {} depth {depth}: got {}",
                        p.name, st.nodes
                    );
                    failed = true;
                }
                Some(st.seconds)
            }
            None => None,
        };
        if !a.json {
            let sf_cols = sf.map_or(String::new(), |ss| {
                format!(" {:>8} {:>8.1}", secs(ss), mnps(expected, ss))
            });
            println!(
                "{depth:<5} {n:>13} {:>8} {:>8.1}{sf_cols}",
                secs(s),
                mnps(n, s)
            );
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
