//! Perft reference tables in the Chess Programming Wiki's "Perft Results" style: one row per depth with
//! nodes, captures, e.p., castles, promotions, checks, discovered checks, double checks, checkmates (and
//! stalemates), as Markdown, CSV or JSON.

use crate::backend::{Backend, Stats};
use crate::error::Result;
use crate::validate::Checked;
use serde::Serialize;

/// Output format of a table.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// A Markdown table (CPW's column names).
    Md,
    /// CSV with a header line (the column names of `tests/data/cpw-detail.csv`, plus `stalemates`).
    Csv,
    /// One JSON object: `fen`, `backend`, `rows` (each `depth`, `nodes` and the statistics).
    Json,
}

/// One row: the leaf statistics of one depth.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
pub struct Row {
    /// Depth in plies.
    pub depth: u32,
    /// Leaf count.
    pub nodes: u128,
    /// Leaf statistics.
    #[serde(flatten)]
    pub stats: Stats,
}

/// Compute rows for depths `1..=depth`, calling `done(row)` after each.
///
/// # Errors
/// A backend failure.
pub fn compute(
    backend: &dyn Backend,
    pos: &Checked,
    depth: u32,
    mut done: impl FnMut(&Row),
) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for d in 1..=depth {
        let (nodes, stats) = backend.stats(pos, d)?;
        rows.push(Row {
            depth: d,
            nodes,
            stats,
        });
        done(&rows[rows.len() - 1]);
    }
    Ok(rows)
}

fn cells(r: &Row) -> [u128; 11] {
    let s = &r.stats;
    [
        r.depth as u128,
        r.nodes,
        s.captures as u128,
        s.en_passant as u128,
        s.castles as u128,
        s.promotions as u128,
        s.checks as u128,
        s.discovered_checks as u128,
        s.double_checks as u128,
        s.checkmates as u128,
        s.stalemates as u128,
    ]
}

/// Render rows in `format`.
pub fn render(rows: &[Row], format: Format, fen: &str, backend: &str) -> String {
    match format {
        Format::Md => {
            let head = [
                "Depth",
                "Nodes",
                "Captures",
                "E.p.",
                "Castles",
                "Promotions",
                "Checks",
                "Discovery Checks",
                "Double Checks",
                "Checkmates",
                "Stalemates",
            ];
            let mut out = format!("| {} |\n", head.join(" | "));
            out += &format!(
                "|{}\n",
                head.iter()
                    .enumerate()
                    .map(|(i, _)| if i == 0 { ":-:|" } else { "--:|" })
                    .collect::<String>()
            );
            for r in rows {
                let c: Vec<String> = cells(r).iter().map(|n| n.to_string()).collect();
                out += &format!("| {} |\n", c.join(" | "));
            }
            out
        }
        Format::Csv => {
            let mut out =
                "depth,nodes,captures,en_passant,castles,promotions,checks,discovered_checks,\
                           double_checks,checkmates,stalemates\n"
                    .to_string();
            for r in rows {
                let c: Vec<String> = cells(r).iter().map(|n| n.to_string()).collect();
                out += &c.join(",");
                out.push('\n');
            }
            out
        }
        Format::Json => {
            let v = serde_json::json!({ "fen": fen, "backend": backend, "rows": rows });
            format!("{v}\n")
        }
    }
}
