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
    #[command(flatten)]
    backend: BackendArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Md)]
    format: FormatArg,
    /// Columns: `cpw` (CPW's columns and stalemates) or `full` (also the check and mate categories).
    #[arg(long, value_name = "cpw|full", default_value = "cpw", value_parser = Detail::parse)]
    stats: Detail,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

pub fn run(a: TableArgs) -> Result<i32> {
    // A malformed FEN is reported before a bad --depth.
    a.position.setup()?;
    if a.depth == 0 {
        return Err(Error::Usage(
            "--depth: '0' gives an empty table (use 1 or more)".into(),
        ));
    }
    let pos = a.position.checked()?;
    let backend = a.backend.create()?;
    let bar = progress_bar(a.depth as u64, a.quiet, "depth");
    let rows = table::compute(backend.as_ref(), &pos, a.depth, a.stats, |d| {
        bar.set_position(d as u64)
    })?;
    bar.finish_and_clear();
    print!(
        "{}",
        table::render(
            &rows,
            a.stats,
            a.format.into(),
            &pos.to_fen(),
            backend.name()
        )
    );
    Ok(0)
}
