//! `perftlab suite`: run a perft suite file; the last line is `N passed, M failed, K skipped`.

use super::common::progress_bar;
use super::pictures::PictureArgs;
use super::BackendArgs;
use crate::error::Result;
use crate::render::report::{Failure, Report};
use crate::suite::{self, Budget};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `perftlab suite`.
#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// The suite file.
    file: PathBuf,
    #[command(flatten)]
    backend: BackendArgs,
    #[command(flatten)]
    pictures: PictureArgs,
    /// Skip depths deeper than this [default: no limit].
    #[arg(long)]
    max_depth: Option<u32>,
    /// Skip depths whose expected node count is above this [default: no limit].
    #[arg(long)]
    max_nodes: Option<u128>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Warn (stderr; `impossible` in --json) about positions proved impossible by retro-analysis (FIDE
    /// 3.10.3); they are still counted.
    #[arg(long)]
    check_reachability: bool,
}

pub fn run(a: SuiteArgs) -> Result<i32> {
    let entries = suite::load(&a.file)?;
    let impossible = if a.check_reachability {
        Some(super::reachable::check_suite(&a.file, &entries))
    } else {
        None
    };
    let backend = a.backend.create()?;
    a.pictures.create_files()?;
    let start = Instant::now();
    let budget = Budget {
        max_depth: a.max_depth.unwrap_or(u32::MAX),
        max_nodes: a.max_nodes.unwrap_or(u128::MAX),
    };
    let bar = progress_bar(entries.len() as u64, a.quiet, "positions");
    let report = suite::run_with_progress(
        &entries,
        backend.as_ref(),
        budget,
        backend.name() != "gpu",
        &|| bar.inc(1),
    );
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        let mut out = json!({
                "file": a.file.display().to_string(),
                "backend": backend.name(),
                "positions": entries.len(),
                "passed": report.passed,
                "failed": report.failed,
                "skipped": report.skipped,
                "nodes": report.nodes,
                "seconds": seconds,
                "failures": report.failures,
        });
        if let Some(list) = impossible {
            out["impossible"] = json!(list);
        }
        println!("{out}");
    } else {
        for f in &report.failures {
            match (&f.actual, &f.error) {
                (Some(n), _) => println!(
                    "FAIL {}:{} {} depth {}: expected {}, got {}",
                    a.file.display(),
                    f.line,
                    f.fen,
                    f.depth,
                    f.expected,
                    n
                ),
                (None, e) => println!(
                    "FAIL {}:{} {} depth {}: {}",
                    a.file.display(),
                    f.line,
                    f.fen,
                    f.depth,
                    e.as_deref().unwrap_or("no result")
                ),
            }
        }
        eprintln!(
            "{}: {} positions, {} nodes in {seconds:.2} s ({:.1} M nodes/s)",
            backend.name(),
            entries.len(),
            report.nodes,
            report.nodes as f64 / seconds.max(1e-9) / 1e6
        );
        println!(
            "{} passed, {} failed, {} skipped",
            report.passed, report.failed, report.skipped
        );
    }
    if a.pictures.wanted() {
        let failures = report
            .failures
            .iter()
            .map(|f| Failure {
                label: format!("{}:{}", a.file.display(), f.line),
                root: f.fen.clone(),
                fen: f.fen.clone(),
                failing_depth: f.depth,
                kinds: vec![if f.actual.is_some() {
                    "wrong count".into()
                } else {
                    "no count".into()
                }],
                note: Some(match (&f.actual, &f.error) {
                    (Some(n), _) => format!(
                        "depth {}: expected {}, {} counted {n}",
                        f.depth,
                        f.expected,
                        backend.name()
                    ),
                    (None, e) => e.clone().unwrap_or_else(|| "no result".into()),
                }),
                ..Failure::default()
            })
            .collect();
        let first = entries
            .first()
            .map(|e| e.setup.to_fen())
            .unwrap_or_default();
        a.pictures.write(
            &Report {
                title: format!("perftlab suite {}", a.file.display()),
                summary: vec![
                    ("backend".into(), backend.name().to_string()),
                    ("positions".into(), entries.len().to_string()),
                    (
                        "checks".into(),
                        format!(
                            "{} passed, {} failed, {} skipped",
                            report.passed, report.failed, report.skipped
                        ),
                    ),
                    ("nodes".into(), report.nodes.to_string()),
                ],
                failures,
            },
            &first,
        )?;
    }
    Ok(if report.failed > 0 { 1 } else { 0 })
}
