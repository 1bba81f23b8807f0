//! `perftlab verify`: per-node cross-check of a backend's legal move sets against another's.

use super::common::{path_text, print_warnings, BackendKind};
use super::play_moves;
use super::BackendArgs;
use crate::error::{Error, Result};
use crate::position::Setup;
use crate::suite;
use crate::validate::Checked;
use crate::verify::verify;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `perftlab verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Root position in FEN (default: the initial position).
    #[arg(long, conflicts_with_all = ["startpos", "suite"])]
    fen: Option<String>,
    /// The initial position.
    #[arg(long, conflicts_with = "suite")]
    startpos: bool,
    /// Check every position of a suite file.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// Plies below each root whose nodes are checked.
    #[arg(long)]
    depth: u32,
    /// Moves (UCI or SAN) played from the position first; several per value or several values.
    #[arg(long, num_args = 1.., conflicts_with = "suite")]
    moves: Vec<String>,
    /// Show castling as king takes rook.
    #[arg(long)]
    chess960: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// The generator checked (`--backend`).
    #[command(flatten)]
    backend: BackendArgs,
    /// The generator it is checked against.
    #[arg(long, value_enum, default_value_t = BackendKind::Reference)]
    against: BackendKind,
}

pub fn run(a: VerifyArgs) -> Result<i32> {
    crate::limits::check_depth("--depth", a.depth)?;
    // Each root with where it comes from (a suite's `FILE:LINE`), for its warnings.
    let roots: Vec<(String, Setup, Option<String>)> = match (&a.suite, &a.fen) {
        (Some(path), _) => suite::load(path)?
            .into_iter()
            .map(|e| {
                let at = format!("{}:{}", path.display(), e.line);
                (e.fen, e.setup, Some(at))
            })
            .collect(),
        (None, Some(fen)) => vec![(
            fen.clone(),
            Setup::from_fen(fen).map_err(|e| Error::Usage(format!("--fen: {e}")))?,
            None,
        )],
        (None, None) => vec![(Setup::STARTPOS_FEN.to_string(), Setup::startpos(), None)],
    };
    let candidate = a.backend.create()?;
    let oracle = a.backend.create_kind(a.against)?;
    let mut checked = 0u64;
    let root_count = roots.len();
    let mut skipped = 0usize;
    for (fen, setup, at) in roots {
        let pos = match Checked::new(setup) {
            Ok(pos) => pos,
            // Named by its file and line, as the warnings are (the error quotes the FEN as typed).
            Err(e) if a.suite.is_some() => {
                skipped += 1;
                eprintln!("skipped {}: {e}", at.as_deref().unwrap_or(&fen));
                continue;
            }
            Err(e) => return Err(e),
        };
        match &at {
            // A suite's warning names the file, the line and the FEN it is about.
            Some(at) => {
                for w in pos.warnings() {
                    eprintln!("warning: {at}: {fen}: {w}");
                }
            }
            None => print_warnings(&pos),
        }
        let pos = if a.moves.is_empty() {
            pos
        } else {
            play_moves(&pos, &a.moves)?.end().clone()
        };
        let fen = if a.moves.is_empty() {
            fen
        } else {
            pos.to_fen()
        };
        let chess960 = a.chess960 || pos.needs_chess960_notation();
        let out = verify(&pos, a.depth, candidate.as_ref(), oracle.as_ref(), chess960)?;
        checked += out.nodes_checked;
        if let Some(d) = out.difference {
            if a.json {
                println!(
                    "{}",
                    json!({
                        "agree": false,
                        "backend": candidate.name(),
                        "against": oracle.name(),
                        "depth": a.depth,
                        "positions_checked": checked,
                        "difference": {
                            "root": fen,
                            "path": d.path,
                            "fen": d.fen,
                            "missing": d.missing,
                            "extra": d.extra,
                        },
                    })
                );
                return Ok(1);
            }
            println!(
                "MISMATCH between {} and {}",
                candidate.name(),
                oracle.name()
            );
            println!("root:    {fen}");
            println!("path:    {}", path_text(&d.path));
            println!("fen:     {}", d.fen);
            println!("missing: {}", d.missing.join(" "));
            println!("extra:   {}", d.extra.join(" "));
            return Ok(1);
        }
    }
    if a.json {
        println!(
            "{}",
            json!({
                "agree": true,
                "backend": candidate.name(),
                "against": oracle.name(),
                "depth": a.depth,
                "roots": root_count,
                "positions_checked": checked,
                "difference": null,
            })
        );
        return Ok(0);
    }
    let plural = |n: u64, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    let roots = (root_count - skipped) as u64;
    let skipped = if skipped > 0 {
        format!(", {skipped} skipped as invalid")
    } else {
        String::new()
    };
    println!(
        "{checked} {} checked against {} to depth {}: all legal move sets agree ({roots} {}{skipped})",
        plural(checked, "position", "positions"),
        oracle.name(),
        a.depth,
        plural(roots, "root", "roots"),
    );
    Ok(0)
}
