//! Perft reference tables in the Chess Programming Wiki's "Perft Results" style: one row per depth with
//! nodes and the statistics columns of [`crate::backend::Column`] (the CPW columns and stalemates, or all of
//! them with [`Detail::Full`]), as Markdown, CSV or JSON.

use crate::backend::{Backend, Detail, Stats};
use crate::error::Result;
use crate::validate::Checked;

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
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Row {
    /// Depth in plies.
    pub depth: u32,
    /// Leaf count.
    pub nodes: u128,
    /// Leaf statistics.
    pub stats: Stats,
}

/// Compute rows for depths `1..=depth` with the columns of `detail`, calling `done(row)` after each.
///
/// # Errors
/// A backend failure, or a backend that cannot compute the columns of `detail`.
pub fn compute(
    backend: &dyn Backend,
    pos: &Checked,
    depth: u32,
    detail: Detail,
    mut done: impl FnMut(&Row),
) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for d in 1..=depth {
        let (nodes, stats) = backend.stats(pos, d, detail)?;
        rows.push(Row {
            depth: d,
            nodes,
            stats,
        });
        done(&rows[rows.len() - 1]);
    }
    Ok(rows)
}

/// The cells of a row: depth, nodes, then the columns of `detail`.
fn cells(r: &Row, detail: Detail) -> Vec<String> {
    [r.depth as u128, r.nodes]
        .into_iter()
        .chain(r.stats.columns(detail).map(|(_, v)| v))
        .map(|n| n.to_string())
        .collect()
}

/// Render rows with the columns of `detail` in `format`.
pub fn render(rows: &[Row], detail: Detail, format: Format, fen: &str, backend: &str) -> String {
    let columns = detail.columns();
    match format {
        Format::Md => {
            let head: Vec<&str> = ["Depth", "Nodes"]
                .into_iter()
                .chain(columns.iter().map(|c| c.title()))
                .collect();
            let mut out = format!("| {} |\n", head.join(" | "));
            out += &format!(
                "|{}\n",
                head.iter()
                    .enumerate()
                    .map(|(i, _)| if i == 0 { ":-:|" } else { "--:|" })
                    .collect::<String>()
            );
            for r in rows {
                out += &format!("| {} |\n", cells(r, detail).join(" | "));
            }
            out
        }
        Format::Csv => {
            let head: Vec<&str> = ["depth", "nodes"]
                .into_iter()
                .chain(columns.iter().map(|c| c.key()))
                .collect();
            let mut out = head.join(",") + "\n";
            for r in rows {
                out += &cells(r, detail).join(",");
                out.push('\n');
            }
            out
        }
        Format::Json => {
            let rows: Vec<serde_json::Value> = rows
                .iter()
                .map(|r| {
                    let mut row = serde_json::json!({ "depth": r.depth, "nodes": r.nodes });
                    if let (Some(m), serde_json::Value::Object(cols)) =
                        (row.as_object_mut(), r.stats.to_json(detail))
                    {
                        m.extend(cols);
                    }
                    row
                })
                .collect();
            let v = serde_json::json!({ "fen": fen, "backend": backend, "rows": rows });
            format!("{v}\n")
        }
    }
}
