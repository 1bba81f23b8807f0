//! `perftlab table`: a CPW-style perft reference table (Markdown, CSV or JSON).

use super::common::progress_bar;
use super::{BackendArgs, PositionArgs};
use crate::backend::Detail;
use crate::error::{Error, Result};
use crate::table::{self, Format};
use clap::Args;

/// Output format of `perftlab table` (`--format`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
enum FormatArg {
    /// A Markdown table (CPW's column names).
    Md,
    /// CSV with a header line (the column names of `tests/data/cpw-detail.csv`, plus `stalemates`).
    Csv,
    /// One JSON object: `fen`, `backend`, `rows` (each `depth`, `nodes` and the statistics).
    Json,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Md => Format::Md,
            FormatArg::Csv => Format::Csv,
            FormatArg::Json => Format::Json,
        }
    }
}

/// Arguments of `perftlab table`.
#[derive(Args, Debug)]
pub struct TableArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Deepest row, in plies.
    #[arg(long)]
    depth: u32,
    /// Moves (UCI or SAN) played from the position first.
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    #[command(flatten)]
    backend: BackendArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Md)]
    format: FormatArg,
    /// Columns: `cpw` (CPW's columns and stalemates; also `--stats` alone) or `full` (also the check and mate
    /// categories).
    #[arg(long, value_name = "cpw|full", num_args = 0..=1, default_value = "cpw",
          default_missing_value = "cpw", value_parser = Detail::parse)]
    stats: Detail,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

pub fn run(a: TableArgs) -> Result<i32> {
    // A malformed FEN is reported before a bad --depth.
    a.position.setup()?;
    crate::limits::check_depth("--depth", a.depth)?;
    if a.depth == 0 {
        return Err(Error::Usage(
            "--depth: '0' gives an empty table (use 1 or more)".into(),
        ));
    }
    let pos = a.position.checked_after(&a.moves)?;
    let backend = a.backend.create()?;
    // The bar follows nodes: each depth costs about the branching factor times the one before, so a bar
    // by depths would say 80% done when 4 % of the work is.
    let bar = progress_bar(1, a.quiet, "nodes");
    let fen = pos.to_fen();
    let format: Format = a.format.into();
    // Rows are printed as they finish (Markdown, CSV), so an interruption keeps them; JSON is one object,
    // which an interruption prints with the rows finished so far and `"interrupted": true`.
    let mut so_far: Vec<table::Row> = Vec::new();
    let mut printed = 0;
    crate::interrupt::set_status(format!("no row finished (depth 1 of {fen} was counting)"));
    let (mut done, mut last, mut prev) = (0u128, 0u128, 0u128);
    table::compute(backend.as_ref(), &pos, a.depth, a.stats, |row| {
        so_far.push(*row);
        let text = table::render(&so_far, a.stats, format, &fen, backend.name());
        let _critical = crate::interrupt::critical();
        if format == Format::Json {
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            v["interrupted"] = serde_json::json!(true);
            crate::interrupt::set_partial_stdout(Some(v.to_string()));
        } else {
            bar.suspend(|| print!("{}", &text[printed..]));
            printed = text.len();
        }
        crate::interrupt::set_status(if row.depth < a.depth {
            format!(
                "rows 1 to {} finished; depth {} had not finished",
                row.depth,
                row.depth + 1
            )
        } else {
            "every row finished".to_string()
        });
        done += row.nodes;
        (prev, last) = (last, row.nodes);
        let branching = last.checked_div(prev).unwrap_or(last).max(1);
        let mut estimate = done;
        let mut next = last;
        for _ in row.depth..a.depth {
            next = next.saturating_mul(branching);
            estimate = estimate.saturating_add(next);
        }
        let clamp = |n: u128| u64::try_from(n).unwrap_or(u64::MAX);
        bar.set_length(clamp(estimate));
        bar.set_position(clamp(done));
    })?;
    bar.finish_and_clear();
    if format == Format::Json {
        let _critical = crate::interrupt::critical();
        crate::interrupt::set_partial_stdout(None);
        print!(
            "{}",
            table::render(&so_far, a.stats, format, &fen, backend.name())
        );
    }
    Ok(0)
}
