//! `perftlab perft`: count, divide (Stockfish's format), detail statistics, JSON.

use super::{BackendArgs, PositionArgs};
use crate::backend::{Detail, Stats};
use crate::deep::{self, work};
use crate::error::Result;
use clap::Args;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `perftlab perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Depth in plies.
    #[arg(long)]
    depth: u32,
    /// Moves (UCI or SAN) played from the position first, as Stockfish's `position … moves …`.
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    #[command(flatten)]
    backend: BackendArgs,
    /// Print the count of each root move (`e2e4: 9744`), a blank line, then `Nodes searched: N`.
    #[arg(long)]
    divide: bool,
    /// Print detail statistics: `--stats` (= `--stats cpw`) the CPW columns (captures, e.p., castles,
    /// promotions, checks, discovered and double checks, mates) and stalemates; `--stats full` also the check
    /// and mate categories.
    #[arg(long, value_name = "cpw|full", num_args = 0..=1, default_missing_value = "cpw",
          value_parser = Detail::parse)]
    stats: Option<Detail>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Journal each finished position of the split frontier in FILE; the same command run again resumes
    /// from it. A journal for other arguments, or a damaged one, is refused (exit 2).
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Split the count at this ply of the frontier (with a progress bar on a terminal); the ply of
    /// --checkpoint's journal (default with --checkpoint: 4 from depth 8, on the GPU from depth 6 depth − 3
    /// between 3 and 5; else the first ply with at least 2000 distinct positions, at most 3). Without
    /// --checkpoint the GPU counts by the positions depth − 3 plies deep where that is deeper (at most 5, from
    /// depth 6), as it merges transpositions only within a batch. Without this flag or --checkpoint a count is
    /// never split.
    #[arg(long)]
    split_depth: Option<u32>,
    /// Memory budget of the split frontier in MiB (default 1024, at most three quarters of the memory
    /// available); a frontier that needs more is refused, naming the memory it needs (exit 2).
    #[arg(long, value_name = "MiB")]
    split_mem: Option<u64>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Seed of the cpu backend's Zobrist keys (decimal or 0x hex; default: the built-in keys, seed
    /// 0x50455246544C4142): a second run with another seed hashes independently.
    #[arg(long, value_name = "N", value_parser = super::deep::parse_zobrist_seed)]
    zobrist_seed: Option<u64>,
}

pub fn run(a: PerftArgs) -> Result<i32> {
    crate::limits::check_depth("--depth", a.depth)?;
    let pos = a.position.checked_after(&a.moves)?;
    let chess960 = a.position.chess960_for(&pos);
    let seed = super::deep::zobrist_seed(a.zobrist_seed, a.backend.backend)?;
    let setup_start = Instant::now();
    let engine = super::deep::Engine::create(&a.backend, seed)?;
    let backend = engine.backend();
    let start = Instant::now();
    let setup_seconds = (start - setup_start).as_secs_f64();
    crate::interrupt::set_status(format!(
        "perft depth {} of {} had not finished (no result)",
        a.depth,
        pos.to_fen()
    ));
    // The route of a count is chosen by the flags alone, never by whether someone watches it (a terminal).
    let split_run = a.depth >= 2 && (a.checkpoint.is_some() || a.split_depth.is_some());
    if split_run {
        let outcome = deep::perft_split(
            backend,
            &pos,
            a.depth,
            &deep::SplitRun {
                split: a.split_depth,
                stats: a.stats,
                divide: a.divide,
                chess960,
                checkpoint: a.checkpoint.as_deref(),
                progress: &super::common::PositionsBar::new(a.quiet),
                split_mem: deep::split::budget_mib(a.split_mem)?,
                zobrist_seed: a
                    .zobrist_seed
                    .filter(|&s| s != crate::fast::DEFAULT_ZOBRIST_SEED),
                table: engine.table(),
            },
            &mut |line| eprintln!("{line}"),
        )?;
        let seconds = start.elapsed().as_secs_f64();
        let (totals, counted) = (&outcome.totals, outcome.counted);
        // Time outside the backend: the frontier, the journal (reading and writing), status and progress.
        let overhead = (seconds - outcome.backend_seconds).max(0.0);
        // The speed of this run: leaves counted now, not those read from the checkpoint journal.
        let nps = if seconds > 0.0 {
            counted as f64 / seconds
        } else {
            0.0
        };
        let resumed = totals.nodes - counted.min(totals.nodes);
        if a.json {
            let mut obj = Map::new();
            obj.insert("fen".into(), json!(pos.to_fen()));
            obj.insert("depth".into(), json!(a.depth));
            obj.insert("backend".into(), json!(backend.name()));
            obj.insert("seconds".into(), json!(seconds));
            obj.insert("setup_seconds".into(), json!(setup_seconds));
            obj.insert("nps".into(), json!(nps));
            obj.insert("backend_seconds".into(), json!(outcome.backend_seconds));
            obj.insert("overhead_seconds".into(), json!(overhead));
            obj.insert("batches".into(), json!(outcome.batches));
            obj.insert("split_ply".into(), json!(outcome.split_ply));
            work::json_fields(totals, &mut obj);
            if resumed > 0 {
                obj.insert("resumed_nodes".into(), json!(resumed));
            }
            if a.zobrist_seed.is_some() {
                obj.insert("zobrist_seed".into(), json!(seed));
            }
            println!("{}", Value::Object(obj));
        } else {
            super::deep::print_totals(totals);
            let from_journal = if resumed > 0 {
                format!(
                    "; {resumed} of the nodes came from the checkpoint journal, the speed is of the {counted} \
                     counted now"
                )
            } else {
                String::new()
            };
            eprintln!(
                "{} depth {}: {seconds:.3} s, {:.1} M nodes/s (and {setup_seconds:.3} s before counting: \
                 backend start, hash table allocation){from_journal}",
                backend.name(),
                a.depth,
                nps / 1e6
            );
            if !a.quiet {
                eprintln!(
                    "split at ply {}: {:.3} s in the backend ({} batches), {overhead:.3} s outside it \
                     (frontier, journal)",
                    outcome.split_ply, outcome.backend_seconds, outcome.batches
                );
            }
        }
        return Ok(0);
    }
    if a.checkpoint.is_some() {
        eprintln!(
            "note: --checkpoint: depth {} is too shallow to split; counting directly",
            a.depth
        );
    }
    let mut divide = None;
    let mut stats: Option<Stats> = None;
    let nodes = if a.divide && a.depth > 0 {
        let mut d = backend.divide(&pos, a.depth)?;
        d.sort_by_key(|(m, _)| m.to_uci(chess960));
        let total = d.iter().map(|(_, n)| n).sum();
        divide = Some(d);
        total
    } else if a.stats.is_none() {
        backend.perft(&pos, a.depth)?
    } else {
        0
    };
    let nodes = if let Some(detail) = a.stats {
        let (n, s) = backend.stats(&pos, a.depth, detail)?;
        stats = Some(s);
        n
    } else {
        nodes
    };
    let seconds = start.elapsed().as_secs_f64();
    let report = if a.json || a.backend.verbose {
        backend.report()?
    } else {
        None
    };
    if let (true, Some(r)) = (a.backend.verbose, &report) {
        eprint!("{}", r.text);
    }
    let nps = if seconds > 0.0 {
        nodes as f64 / seconds
    } else {
        0.0
    };
    if a.json {
        let divide_json = divide.as_ref().map(|d| {
            let mut m = Map::new();
            for (mv, n) in d {
                m.insert(mv.to_uci(chess960), json!(n));
            }
            Value::Object(m)
        });
        let mut out = json!({
            "fen": pos.to_fen(),
            "depth": a.depth,
            "backend": backend.name(),
            "nodes": nodes,
            "seconds": seconds,
            "setup_seconds": setup_seconds,
            "nps": nps,
            "divide": divide_json,
            "stats": stats.zip(a.stats).map(|(s, d)| s.to_json(d)),
        });
        if let Some(r) = report {
            out[backend.name()] = r.json;
        }
        if a.zobrist_seed.is_some() {
            out["zobrist_seed"] = json!(seed);
        }
        println!("{out}");
        return Ok(0);
    }
    if let Some(d) = &divide {
        for (mv, n) in d {
            println!("{}: {n}", mv.to_uci(chess960));
        }
        println!();
    }
    if let (Some(s), Some(detail)) = (&stats, a.stats) {
        let width = detail.columns().iter().map(|c| c.label().len()).max();
        for (c, v) in s.columns(detail) {
            println!("{:<w$} {v}", c.label(), w = width.unwrap_or(0) + 1);
        }
    }
    println!("Nodes searched: {nodes}");
    eprintln!(
        "{} depth {}: {seconds:.3} s, {:.1} M nodes/s (and {setup_seconds:.3} s before counting: backend start, \
         hash table allocation)",
        backend.name(),
        a.depth,
        nps / 1e6
    );
    Ok(0)
}
