//! `perftlab table`: a CPW-style perft reference table (Markdown, CSV or JSON).

use super::stress::progress_bar;
use super::{init_threads, EngineArgs, PositionArgs};
use crate::backend;
use crate::error::{Error, Result};
use crate::perft::{check_position, Detail};
use crate::table::{self, Format};
use clap::Args;

/// Arguments of `perftlab table`.
#[derive(Args, Debug)]
pub struct TableArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Deepest row, in plies.
    #[arg(long)]
    depth: u32,
    #[command(flatten)]
    engine: EngineArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    format: Format,
    /// Columns: `cpw` (CPW's columns and stalemates) or `full` (also the check and mate categories).
    #[arg(long, value_name = "cpw|full", default_value = "cpw", value_parser = Detail::parse)]
    stats: Detail,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

pub fn run(a: TableArgs) -> Result<i32> {
    let setup = a.position.setup()?;
    if a.depth == 0 {
        return Err(Error::Usage(
            "--depth: '0' gives an empty table (use 1 or more)".into(),
        ));
    }
    for w in check_position(&setup)? {
        eprintln!("warning: {w}");
    }
    let opts = a.engine.options()?;
    init_threads(opts.threads);
    let engine = backend::create(a.engine.backend, &opts)?;
    let bar = progress_bar(a.depth as u64, a.quiet, "depth");
    let rows = table::compute(engine.as_ref(), &setup, a.depth, a.stats, |d| {
        bar.set_position(d as u64)
    })?;
    bar.finish_and_clear();
    print!(
        "{}",
        table::render(&rows, a.stats, a.format, &setup.to_fen(), engine.name())
    );
    Ok(0)
}
