//! `--svg FILE` and `--report FILE.html` for `compare`, `compare --suite`, `stress` and `suite`: the flags,
//! turning comparisons into report entries (with both divides at the failing position), and writing the
//! files. Both paths are checked before the run starts (an unwritable path, or one that is an input of the
//! run, fails at once) and written atomically at the end: a failed run leaves an old file as it was.

use super::common::Summary;
use super::write_file;
use crate::backend::Backend;
use crate::compare::Comparison;
use crate::engines::Engine;
use crate::error::{Error, Result};
use crate::line::play_line;
use crate::position::Setup;
use crate::render::board::{board_svg, Marks};
use crate::render::report::{self, Failure, Report};
use crate::validate::Checked;
use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The picture flags.
#[derive(Args, Debug, Clone, Default)]
pub struct PictureArgs {
    /// Draw the (first) minimal failing position as a self-contained SVG board: green arrows for the moves
    /// the engine is missing, red for those it gives that are not legal; the compared position when all
    /// agree.
    #[arg(long, value_name = "FILE.svg")]
    pub svg: Option<PathBuf>,
    /// Write a self-contained HTML report: the summary and every failure with its board, path (UCI and
    /// SAN), FEN, failing depth and both divides, grouped by kind.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
}

impl PictureArgs {
    /// Check the paths now, so that a path that cannot be written fails before a long run (nothing is
    /// written until the end).
    ///
    /// # Errors
    /// [`Error::Usage`] naming the flag and the path.
    pub fn create_files(&self) -> Result<()> {
        self.check(&[])
    }

    /// As [`PictureArgs::create_files`], also refusing a path that is one of `inputs` (what, path).
    ///
    /// # Errors
    /// [`Error::Usage`] naming the flag and the path.
    pub fn check(&self, inputs: &[(&str, &Path)]) -> Result<()> {
        let mut outputs: Vec<(&str, &Path)> = Vec::new();
        if let Some(p) = &self.svg {
            outputs.push(("--svg", p));
        }
        if let Some(p) = &self.report {
            outputs.push(("--report", p));
        }
        crate::files::check_outputs(&outputs, inputs)
    }

    /// Whether any picture is wanted (and so the divides at failing positions should be fetched).
    pub fn wanted(&self) -> bool {
        self.svg.is_some() || self.report.is_some()
    }

    /// Write the files: the board of the first failure (or of `fallback_fen` when there is none) and the
    /// report.
    ///
    /// # Errors
    /// [`Error::Usage`] when a file cannot be written.
    pub fn write(&self, report: &Report, fallback_fen: &str) -> Result<()> {
        if let Some(path) = &self.svg {
            let svg = match report.failures.first() {
                Some(f) => board_of(f),
                None => Setup::from_fen(fallback_fen)
                    .map(|s| {
                        board_svg(
                            &s,
                            &Marks {
                                caption: Some(fallback_fen.to_string()),
                                ..Marks::default()
                            },
                        )
                    })
                    .map_err(|e| Error::Usage(format!("--svg: {e}")))?,
            };
            write_file("--svg", path, &svg)?;
        }
        if let Some(path) = &self.report {
            write_file("--report", path, &report::html(report))?;
        }
        Ok(())
    }
}

/// The board of one failure: its position, the last move of its path, the arrows, the FEN as caption.
pub fn board_of(f: &Failure) -> String {
    match Setup::from_fen(&f.fen) {
        Ok(setup) => board_svg(
            &setup,
            &Marks {
                last_move: f.path.last().cloned(),
                missing: f.missing.clone(),
                extra: f.extra.clone(),
                caption: Some(f.fen.clone()),
            },
        ),
        Err(_) => String::new(),
    }
}

/// A report entry for a comparison that failed, with both divides at the failing position: the engine is
/// asked again for that node (`root_fen` with `sent` moves then the failure's path), perftlab counts it.
/// When the engine cannot answer again, the entry says so instead of showing the divides.
#[allow(clippy::too_many_arguments)]
pub fn entry(
    label: &str,
    c: &Comparison,
    engine: &mut dyn Engine,
    backend: &dyn Backend,
    root_fen: &str,
    sent: &[String],
    compared: &Checked,
    chess960: bool,
) -> Option<Failure> {
    let mut f = Failure::from_comparison(label, c)?;
    let mut moves = sent.to_vec();
    moves.extend(f.path.iter().cloned());
    let ours = play_line(compared, &f.path).and_then(|line| {
        let mut m = BTreeMap::new();
        for (mv, n) in backend.divide(line.end(), f.failing_depth)? {
            m.insert(mv.to_uci(chess960), n);
        }
        Ok(m)
    });
    let theirs = engine.divide(root_fen, &moves, f.failing_depth);
    match (theirs, ours) {
        (Ok(t), Ok(o)) => f.divides = Some((t.moves, o)),
        (Err(e), _) | (_, Err(e)) => f.note = Some(format!("no divide shown: {e}")),
    }
    Some(f)
}

/// The summary rows of a many-position run, as `Summary::print` words them.
pub fn summary_rows(s: &Summary) -> Vec<(String, String)> {
    // Counted by the groups the report lists the failures under (kinds joined: `pin + other`), so the
    // summary's numbers are those of the groups below it.
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    for f in s.failures.iter().filter_map(|c| c.failure.as_ref()) {
        let group = if f.kinds.is_empty() {
            "other".to_string()
        } else {
            f.kinds
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(" + ")
        };
        *by_kind.entry(group).or_insert(0) += 1;
    }
    let mut rows = vec![
        (
            "positions compared".to_string(),
            format!("{} ({} nodes)", s.compared, s.nodes),
        ),
        ("failed".to_string(), s.failures.len().to_string()),
        ("skipped".to_string(), s.skipped.to_string()),
    ];
    if !s.engine_errors.is_empty() {
        rows.push((
            report::ENGINE_ERRORS_ROW.to_string(),
            format!(
                "{} position{}: {}",
                s.engine_errors.len(),
                if s.engine_errors.len() == 1 { "" } else { "s" },
                s.engine_errors.join("; ")
            ),
        ));
    }
    if !by_kind.is_empty() {
        let parts: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
        rows.push(("failures by kind".to_string(), parts.join(", ")));
    }
    rows
}
