//! `perftlab perftree DEPTH FEN [MOVES]`: behave as a perftree script (`move count` lines, a blank line, the
//! total), so perftree users can plug perftlab in where they used Stockfish.

use super::{init_threads, EngineArgs};
use crate::backend;
use crate::compare;
use crate::error::{Error, Result};
use crate::perft::check_position;
use crate::position::Setup;
use clap::Args;

/// Arguments of `perftlab perftree`.
#[derive(Args, Debug)]
pub struct PerftreeArgs {
    /// Depth in plies.
    depth: u32,
    /// The position in FEN.
    fen: String,
    /// Moves (UCI) played first, separated by spaces, as one argument.
    moves: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
}

pub fn run(a: PerftreeArgs) -> Result<i32> {
    crate::limits::check_depth("DEPTH", a.depth)?;
    let root = Setup::from_fen(&a.fen).map_err(|e| Error::Usage(format!("FEN: {e}")))?;
    check_position(&root)?;
    let chess960 = root.needs_chess960_notation();
    let moves = compare::split_moves(a.moves.as_slice());
    let (_, setup) = compare::prepare_moves(&root, &moves, chess960)
        .map_err(|e| Error::Usage(e.to_string().replacen("--moves", "MOVES", 1)))?;
    check_position(&setup)?;
    let opts = a.engine.options()?;
    init_threads(opts.threads);
    let engine = backend::create(a.engine.backend, &opts)?;
    if a.depth == 0 {
        println!("\n1");
        return Ok(0);
    }
    let mut d = engine.divide(&setup, a.depth)?;
    d.sort_by_key(|(m, _)| m.to_uci(chess960));
    let mut total = 0u128;
    for (m, n) in &d {
        println!("{} {n}", m.to_uci(chess960));
        total += n;
    }
    println!();
    println!("{total}");
    Ok(0)
}
