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
    a.pictures.check(&[("the suite file", a.file.as_path())])?;
    let entries = suite::load(&a.file)?;
    let impossible = if a.check_reachability {
        Some(super::reachable::check_suite(&a.file, &entries))
    } else {
        None
    };
    let backend = a.backend.create()?;
    let start = Instant::now();
    let budget = Budget {
        max_depth: a.max_depth.unwrap_or(u32::MAX),
        max_nodes: a.max_nodes.unwrap_or(u128::MAX),
    };
    let bar = progress_bar(entries.len() as u64, a.quiet, "positions");
    let file = a.file.display().to_string();
    // Entries finish in any order (they run in parallel): each one's FAIL lines are printed as soon as every
    // entry before it has finished, so the output keeps the file's order; an interruption prints what was
    // finished and not yet shown (text), or the summary so far (JSON).
    let shown = std::sync::Mutex::new(Shown {
        reports: vec![None; entries.len()],
        next: 0,
    });
    if a.json {
        let mut v = summary_json(
            &file,
            backend.name(),
            entries.len(),
            &suite::Report::default(),
            0.0,
        );
        v["interrupted"] = json!(true);
        crate::interrupt::set_partial_stdout(Some(v.to_string()));
    }
    let report = suite::run_with_progress(
        &entries,
        backend.as_ref(),
        budget,
        backend.name() != "gpu",
        &|i, r| {
            bar.inc(1);
            let _critical = crate::interrupt::critical();
            let Ok(mut shown) = shown.lock() else { return };
            shown.reports[i] = Some(r.clone());
            while let Some(Some(r)) = shown.reports.get(shown.next) {
                if !a.json {
                    let lines = fail_lines(&file, &r.failures);
                    if !lines.is_empty() {
                        bar.suspend(|| print!("{lines}"));
                    }
                }
                shown.next += 1;
            }
            let so_far = shown.total();
            crate::interrupt::set_status(format!(
                "{} of {} positions finished ({} passed, {} failed, {} skipped)",
                shown.reports.iter().flatten().count(),
                entries.len(),
                so_far.passed,
                so_far.failed,
                so_far.skipped
            ));
            crate::interrupt::set_partial_stdout(if a.json {
                let mut v = summary_json(&file, backend.name(), entries.len(), &so_far, 0.0);
                v["seconds"] = json!(start.elapsed().as_secs_f64());
                v["interrupted"] = json!(true);
                Some(v.to_string())
            } else {
                let late: Vec<_> = shown.reports[shown.next..]
                    .iter()
                    .flatten()
                    .flat_map(|r| r.failures.clone())
                    .collect();
                let text = fail_lines(&file, &late);
                (!text.is_empty()).then(|| text.trim_end().to_string())
            });
        },
    );
    {
        let _critical = crate::interrupt::critical();
        crate::interrupt::set_partial_stdout(None);
    }
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    if a.json {
        let mut out = summary_json(&file, backend.name(), entries.len(), &report, seconds);
        if let Some(list) = impossible {
            out["impossible"] = json!(list);
        }
        println!("{out}");
    } else {
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

/// The entries finished so far, and the first one whose FAIL lines are not printed yet.
struct Shown {
    reports: Vec<Option<suite::Report>>,
    next: usize,
}

impl Shown {
    /// The totals of the finished entries, failures in file order.
    fn total(&self) -> suite::Report {
        let mut t = suite::Report::default();
        for r in self.reports.iter().flatten() {
            t.passed += r.passed;
            t.failed += r.failed;
            t.skipped += r.skipped;
            t.nodes += r.nodes;
            t.failures.extend(r.failures.iter().cloned());
        }
        t
    }
}

/// The JSON summary of a suite run.
fn summary_json(
    file: &str,
    backend: &str,
    positions: usize,
    report: &suite::Report,
    seconds: f64,
) -> serde_json::Value {
    json!({
        "file": file,
        "backend": backend,
        "positions": positions,
        "passed": report.passed,
        "failed": report.failed,
        "skipped": report.skipped,
        "nodes": report.nodes,
        "seconds": seconds,
        "failures": report.failures,
    })
}

/// The `FAIL` lines of some failures (each ending with a newline).
fn fail_lines(file: &str, failures: &[suite::CheckFailure]) -> String {
    let mut out = String::new();
    for f in failures {
        let id =
            f.id.as_ref()
                .map(|id| format!("[{id}] "))
                .unwrap_or_default();
        out += &match (&f.actual, &f.error) {
            (Some(n), _) => format!(
                "FAIL {file}:{} {id}{} depth {}: expected {}, got {}\n",
                f.line, f.fen, f.depth, f.expected, n
            ),
            (None, e) => format!(
                "FAIL {file}:{} {id}{} depth {}: {}\n",
                f.line,
                f.fen,
                f.depth,
                e.as_deref().unwrap_or("no result")
            ),
        };
    }
    out
}
