//! Perft suites as data: parsing both common formats and running them against any [`Backend`].
//!
//! - EPD lines: `FEN ;D1 20 ;D2 400 …` (FEN with 4 or 6 fields), also standard EPD opcodes after the
//!   four FEN fields (`FEN D1 20; D2 400;`) and lowercase `d1`.
//! - Blocks (shakmaty's `.perft` files): `id NAME`, `epd FEN`, then `perft D N` lines.
//!
//! `#` starts a comment line; blank lines are ignored; a UTF-8 byte-order mark is skipped. A file without
//! any position is an error, and so is a depth above [`crate::limits::MAX_DEPTH`].

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::limits::MAX_DEPTH;
use crate::position::Setup;
use crate::validate::Checked;
use rayon::prelude::*;
use serde::Serialize;
use std::path::Path;

/// One position of a suite with its expected counts.
#[derive(Clone, Debug)]
pub struct SuiteEntry {
    /// Name (`id` line), if any.
    pub id: Option<String>,
    /// The position.
    pub setup: Setup,
    /// The FEN as written in the file.
    pub fen: String,
    /// 1-based line number of the position in the file.
    pub line: usize,
    /// (depth, expected nodes).
    pub expected: Vec<(u32, u128)>,
}

fn malformed(file: &str, line: usize, text: &str, why: impl std::fmt::Display) -> Error {
    Error::Usage(format!(
        "{file}:{line}: malformed suite line '{}': {why}",
        text.trim()
    ))
}

/// Parse suite text; `file` names it in errors.
///
/// # Errors
/// [`Error::Usage`] naming the file and line of the first malformed line.
pub fn parse(file: &str, text: &str) -> Result<Vec<SuiteEntry>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut entries: Vec<SuiteEntry> = Vec::new();
    let mut pending_id: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("id ") {
            pending_id = Some(rest.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("epd ") {
            let setup = Setup::from_fen(rest).map_err(|e| malformed(file, line_no, raw, e))?;
            entries.push(SuiteEntry {
                id: pending_id.take(),
                setup,
                fen: rest.trim().to_string(),
                line: line_no,
                expected: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let entry = entries
                .last_mut()
                .ok_or_else(|| malformed(file, line_no, raw, "'perft' before any 'epd'"))?;
            let mut parts = rest.split_whitespace();
            let (d, n) = (parts.next(), parts.next());
            let (Some(d), Some(n), None) = (d, n, parts.next()) else {
                return Err(malformed(
                    file,
                    line_no,
                    raw,
                    "expected 'perft DEPTH NODES'",
                ));
            };
            let depth = parse_depth(d).map_err(|why| malformed(file, line_no, raw, why))?;
            let nodes = n
                .parse()
                .map_err(|_| malformed(file, line_no, raw, format!("bad node count '{n}'")))?;
            entry.expected.push((depth, nodes));
        } else if let Some((fen, opcodes)) = split_epd(line) {
            let setup = Setup::from_fen(&fen).map_err(|e| malformed(file, line_no, raw, e))?;
            let mut expected = Vec::new();
            for part in opcodes.split(';') {
                let part = part.trim();
                if part.is_empty() {
                    continue;
                }
                let mut kv = part.split_whitespace();
                let (k, v) = (kv.next().unwrap_or(""), kv.next());
                let depth = match k.strip_prefix(['D', 'd']) {
                    Some(d) => parse_depth(d).map_err(|why| malformed(file, line_no, raw, why))?,
                    None => {
                        return Err(malformed(
                            file,
                            line_no,
                            raw,
                            format!("bad depth tag '{k}' (expected D1, D2, …)"),
                        ))
                    }
                };
                let nodes = match (v.and_then(|v| v.parse().ok()), kv.next()) {
                    (Some(n), None) => n,
                    _ => {
                        return Err(malformed(
                            file,
                            line_no,
                            raw,
                            format!("bad node count in '{part}'"),
                        ))
                    }
                };
                expected.push((depth, nodes));
            }
            entries.push(SuiteEntry {
                id: None,
                setup,
                fen,
                line: line_no,
                expected,
            });
        } else {
            return Err(malformed(
                file,
                line_no,
                raw,
                "expected 'FEN ;D1 N …', 'id', 'epd' or 'perft'",
            ));
        }
    }
    if entries.is_empty() {
        return Err(Error::Usage(format!(
            "{file}: no positions in the suite (the file is empty or only comments)"
        )));
    }
    Ok(entries)
}

/// A depth of a suite line: a number from 0 to [`MAX_DEPTH`].
fn parse_depth(text: &str) -> std::result::Result<u32, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("bad depth '{text}'"));
    }
    match text.parse::<u32>() {
        Ok(d) if d <= MAX_DEPTH => Ok(d),
        _ => Err(format!(
            "depth {text} is deeper than the maximum of {MAX_DEPTH} plies"
        )),
    }
}

/// Split an EPD perft line into its FEN and its opcode text: `FEN ;D1 20 ;D2 400` (the FEN ends at the
/// first `;`) or standard EPD `FEN D1 20; D2 400;` (opcodes start at the first `D<n>`/`d<n>` word after the
/// four FEN fields). `None` when the line has neither form.
fn split_epd(line: &str) -> Option<(String, String)> {
    let (head, tail) = match line.split_once(';') {
        Some((h, t)) => (h, Some(t)),
        None => (line, None),
    };
    let words: Vec<&str> = head.split_whitespace().collect();
    let is_opcode = |w: &&str| {
        w.strip_prefix(['D', 'd'])
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    };
    match words.iter().skip(4).position(is_opcode) {
        Some(i) => {
            let fen = words[..4 + i].join(" ");
            let ops = words[4 + i..].join(" ");
            Some((fen, format!("{ops};{}", tail.unwrap_or(""))))
        }
        None => tail.map(|t| (head.trim().to_string(), t.to_string())),
    }
}

/// Read and parse a suite file; `-` reads standard input.
///
/// # Errors
/// [`Error::Io`] with the path when the file cannot be read; [`Error::Usage`] when a line is malformed.
pub fn load(path: &Path) -> Result<Vec<SuiteEntry>> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| Error::Usage(format!("cannot read the suite from standard input: {e}")))?;
        return parse("-", &text);
    }
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        let message = format!("cannot read suite file '{name}': {e}");
        Error::io(path, e, message)
    })?;
    parse(&name, &text)
}

/// Limits on what a suite run computes.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Skip depths deeper than this.
    pub max_depth: u32,
    /// Skip depths whose expected count is above this.
    pub max_nodes: u128,
}

/// One failed check of a suite (a wrong count, or a position refused or a backend failure).
#[derive(Clone, Debug, Serialize)]
pub struct CheckFailure {
    /// The position's FEN.
    pub fen: String,
    /// Suite line.
    pub line: usize,
    /// Depth checked (the line's depth also when the position itself was refused; 0 only when the line
    /// names no depth).
    pub depth: u32,
    /// Expected count.
    pub expected: u128,
    /// Computed count, or none when the position was refused or the backend failed.
    pub actual: Option<u128>,
    /// Why, when there is no count.
    pub error: Option<String>,
}

/// Totals of a suite run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// Checks that matched.
    pub passed: usize,
    /// Checks that did not.
    pub failed: usize,
    /// Checks skipped by the budget.
    pub skipped: usize,
    /// Nodes counted.
    pub nodes: u128,
    /// Details of each failure.
    pub failures: Vec<CheckFailure>,
}

/// Run every entry within `budget`. Positions run in parallel when the backend allows it.
pub fn run(
    entries: &[SuiteEntry],
    backend: &dyn Backend,
    budget: Budget,
    parallel: bool,
) -> Report {
    run_with_progress(entries, backend, budget, parallel, &|| {})
}

/// As [`run`], calling `done` after each entry (for a progress bar).
pub fn run_with_progress(
    entries: &[SuiteEntry],
    backend: &dyn Backend,
    budget: Budget,
    parallel: bool,
    done: &(dyn Fn() + Sync),
) -> Report {
    let one = |e: &SuiteEntry| {
        let r = run_entry(e, backend, budget);
        done();
        r
    };
    let reports: Vec<Report> = if parallel {
        entries.par_iter().map(one).collect()
    } else {
        entries.iter().map(one).collect()
    };
    let mut total = Report::default();
    for r in reports {
        total.passed += r.passed;
        total.failed += r.failed;
        total.skipped += r.skipped;
        total.nodes += r.nodes;
        total.failures.extend(r.failures);
    }
    total
}

fn run_entry(e: &SuiteEntry, backend: &dyn Backend, budget: Budget) -> Report {
    let mut r = Report::default();
    let fail = |depth, expected, actual, error| CheckFailure {
        fen: e.fen.clone(),
        line: e.line,
        depth,
        expected,
        actual,
        error,
    };
    let pos = match Checked::new(e.setup.clone()) {
        Ok(pos) => pos,
        Err(err) => {
            // Every count of the line fails, each named by its own depth and expected count.
            let checks = if e.expected.is_empty() {
                vec![(0, 0)]
            } else {
                e.expected.clone()
            };
            for (depth, expected) in checks {
                r.failed += 1;
                r.failures
                    .push(fail(depth, expected, None, Some(err.to_string())));
            }
            return r;
        }
    };
    for &(depth, expected) in &e.expected {
        if depth > budget.max_depth || expected > budget.max_nodes {
            r.skipped += 1;
            continue;
        }
        match backend.perft(&pos, depth) {
            Ok(n) if n == expected => {
                r.passed += 1;
                r.nodes += n;
            }
            Ok(n) => {
                r.failed += 1;
                r.nodes += n;
                r.failures.push(fail(depth, expected, Some(n), None));
            }
            Err(err) => {
                r.failed += 1;
                r.failures
                    .push(fail(depth, expected, None, Some(err.to_string())));
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_formats() {
        let epd = "# c\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\n";
        let e = parse("x.epd", epd).unwrap();
        assert_eq!(e[0].expected, vec![(1, 20), (2, 400)]);
        assert_eq!(e[0].line, 2);
        let blocks = "id a\nepd 4k3/8/8/8/8/8/8/4K2R w K -\nperft 1 15\nperft 2 66\n";
        let b = parse("x.perft", blocks).unwrap();
        assert_eq!(b[0].id.as_deref(), Some("a"));
        assert_eq!(b[0].expected, vec![(1, 15), (2, 66)]);
    }

    #[test]
    fn malformed_lines_name_file_and_line() {
        for (text, needle) in [
            ("8/8/8/8/8/8/8/8 w - - ;X1 3\n", "f.epd:1:"),
            ("\n8/8/8/8/8/8/8/8 w - - ;D1 x\n", "f.epd:2:"),
            ("perft 1 2\n", "before any 'epd'"),
            ("epd 8/8/8/8/8/8/8/8 w - -\nperft 1\n", "f.epd:2:"),
            ("hello\n", "'hello'"),
            ("epd 8/8/8 w - -\n", "board"),
            (
                "8/8/8/8/8/8/8/8 w - - ;D65 1\n",
                "deeper than the maximum of 64",
            ),
            (
                "epd 8/8/8/8/8/8/8/8 w - -\nperft 99999999999 1\n",
                "f.epd:2:",
            ),
            ("8/8/8/8/8/8/8/8 w - - ;D1 1 2\n", "bad node count"),
            ("", "no positions"),
            ("# nothing\n\n", "no positions"),
        ] {
            let err = parse("f.epd", text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text:?}: {err}");
        }
    }

    #[test]
    fn epd_opcodes_bom_and_lowercase() {
        let text = "\u{feff}rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - D1 20; D2 400;\n\
                    4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;d1 15; d2 66\n";
        let e = parse("x.epd", text).unwrap();
        assert_eq!(e[0].expected, vec![(1, 20), (2, 400)]);
        assert_eq!(
            e[0].fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
        );
        assert_eq!(e[1].expected, vec![(1, 15), (2, 66)]);
        assert_eq!(e[1].fen, "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    }
}
