//! `perftlab perftree DEPTH FEN [MOVES]`: behave as a perftree script (`move count` lines, a blank line, the
//! total), so perftree users can plug perftlab in where they used Stockfish.

use super::common::print_warnings;
use super::play_moves;
use super::BackendArgs;
use crate::error::{Error, Result};
use crate::position::Setup;
use crate::validate::Checked;
use clap::Args;

/// Arguments of `perftlab perftree`.
#[derive(Args, Debug)]
pub struct PerftreeArgs {
    /// Depth in plies.
    depth: u32,
    /// The position in FEN.
    fen: String,
    /// Moves (UCI or SAN) played first, separated by spaces, as one argument.
    moves: Option<String>,
    #[command(flatten)]
    backend: BackendArgs,
}

pub fn run(a: PerftreeArgs) -> Result<i32> {
    crate::limits::check_depth("DEPTH", a.depth)?;
    let root = Setup::from_fen(&a.fen).map_err(|e| Error::Usage(format!("FEN: {e}")))?;
    let root = Checked::new(root)?;
    print_warnings(&root);
    let chess960 = root.needs_chess960_notation();
    let line = play_moves(&root, a.moves.as_slice())
        .map_err(|e| Error::Usage(e.to_string().replacen("--moves", "MOVES", 1)))?;
    let backend = a.backend.create()?;
    if a.depth == 0 {
        println!("\n1");
        return Ok(0);
    }
    let mut d = backend.divide(line.end(), a.depth)?;
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
