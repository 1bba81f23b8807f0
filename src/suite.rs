//! Perft suites as data: parsing both common formats and running them against any [`Backend`].
//!
//! - EPD lines: `FEN ;D1 20 ;D2 400 …` (FEN with 4 or 6 fields), read as the EPD standard reads
//!   operations: `FEN id "start"; D1 20; D2 400; c0 "any comment";` (quoted strings, any opcode, `;`
//!   terminators, lowercase `d1` too); `D<n>` are the perft counts, `id` names the position, other
//!   opcodes are ignored.
//! - Blocks (shakmaty's `.perft` files): `id NAME` starts a block, `epd FEN`, then `perft D N` lines.
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
/// In the block format an `id` line starts a block: its `epd` line gives the position and the `perft` lines
/// after it belong to that position (`perft` before its block's `epd` is an error, so a count can never be
/// checked against the position of the block before). An `epd` line without an `id` starts a block too.
///
/// # Errors
/// [`Error::Usage`] naming the file and line of the first malformed line.
pub fn parse(file: &str, text: &str) -> Result<Vec<SuiteEntry>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut entries: Vec<SuiteEntry> = Vec::new();
    // The block being read: its id and the line of its `id`, and whether its `epd` was read (it is then
    // the last entry).
    let mut block: Option<(String, usize)> = None;
    let mut block_has_epd = false;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (word, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(w, r)| (w, r.trim()));
        match word {
            "id" if rest.starts_with('"') || rest.contains(';') || rest.contains('/') => {
                // `id "kiwi"; FEN …`: an EPD line must start with its FEN (blamed here, not on the next line).
                return Err(malformed(
                    file,
                    line_no,
                    raw,
                    "an EPD line starts with its FEN and 'id' comes after it ('FEN ;id \"kiwi\" ;D1 48'); \
                     a block's 'id NAME' line is followed by an 'epd FEN' line",
                ));
            }
            "id" => {
                unfinished_block(&block, block_has_epd)
                    .map_or(Ok(()), |why| Err(malformed(file, line_no, raw, why)))?;
                block = Some((rest.to_string(), line_no));
                block_has_epd = false;
            }
            "epd" => {
                if block_has_epd {
                    // A second `epd` without an `id`: a block of its own.
                    block = None;
                }
                let setup = Setup::from_fen(rest).map_err(|e| malformed(file, line_no, raw, e))?;
                entries.push(SuiteEntry {
                    id: block.as_ref().map(|(id, _)| id.clone()),
                    setup,
                    fen: rest.to_string(),
                    line: line_no,
                    expected: Vec::new(),
                });
                block_has_epd = true;
            }
            "perft" => {
                if !block_has_epd {
                    let why = match &block {
                        Some((id, at)) => format!(
                            "'perft' before the 'epd' line of its block '{id}' (started at line {at})"
                        ),
                        None => "'perft' before any 'epd'".to_string(),
                    };
                    return Err(malformed(file, line_no, raw, why));
                }
                let entry = entries.last_mut().expect("a block with its epd");
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
            }
            _ => {
                unfinished_block(&block, block_has_epd)
                    .map_or(Ok(()), |why| Err(malformed(file, line_no, raw, why)))?;
                block = None;
                block_has_epd = false;
                let epd = parse_epd(line).map_err(|why| malformed(file, line_no, raw, why))?;
                let setup =
                    Setup::from_fen(&epd.fen).map_err(|e| malformed(file, line_no, raw, e))?;
                entries.push(SuiteEntry {
                    id: epd.id,
                    setup,
                    fen: epd.fen,
                    line: line_no,
                    expected: epd.expected,
                });
            }
        }
    }
    if let (Some((id, at)), false) = (&block, block_has_epd) {
        return Err(Error::Usage(format!(
            "{file}:{at}: block '{id}' has no 'epd' line"
        )));
    }
    if entries.is_empty() {
        return Err(Error::Usage(format!(
            "{file}: no positions in the suite (the file is empty or only comments)"
        )));
    }
    Ok(entries)
}

/// An EPD record of a suite: the FEN (4 fields, or 6 with the clocks), its `id` operation and its perft
/// counts (`D<depth> <nodes>` operations).
struct EpdLine {
    fen: String,
    id: Option<String>,
    expected: Vec<(u32, u128)>,
}

/// Parse an EPD suite line with the one position-line reader ([`crate::position_file`], the EPD standard's
/// operations): `D<n> <nodes>` (also `d<n>`) are the perft counts, `id "name"` names the position, any other
/// operation (`bm`, `c0`, a trailing comment) is ignored. A line without any perft count is an error, and so
/// is a side word or ply count after the FEN.
fn parse_epd(line: &str) -> std::result::Result<EpdLine, String> {
    let rec = match crate::position_file::parse_line(1, line) {
        Some(Ok(rec)) => rec,
        Some(Err(e)) => return Err(e.why),
        None => return Err("expected 'FEN ;D1 N …'".into()),
    };
    rec.refuse_extras(false, false).map_err(|e| e.why)?;
    let digits = |w: &String| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    let mut expected = Vec::new();
    for op in &rec.ops {
        let Some(d) = op
            .opcode
            .strip_prefix(['D', 'd'])
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let depth = parse_depth(d)?;
        let nodes = match op.operands.as_slice() {
            [n] if digits(n) => n
                .parse()
                .map_err(|_| format!("bad node count in '{} {n}'", op.opcode))?,
            other => {
                return Err(format!(
                    "bad node count in '{} {}' (expected one number)",
                    op.opcode,
                    other.join(" ")
                ))
            }
        };
        expected.push((depth, nodes));
    }
    if expected.is_empty() {
        return Err("no perft count on the line (operations such as ';D1 20 ;D2 400')".into());
    }
    let id = rec.op("id").and_then(|o| o.first().cloned());
    Ok(EpdLine {
        fen: rec.fen,
        id,
        expected,
    })
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

/// Read and parse a suite file; `-` reads standard input. The file must be a regular file of at most
/// [`crate::files::MAX_INPUT_BYTES`] bytes of UTF-8 text, no line longer than
/// [`crate::files::MAX_LINE_BYTES`] (standard input: the same limits).
///
/// # Errors
/// [`Error::Io`] with the path when the file cannot be read or is too long; [`Error::Usage`] when it is not a
/// regular file or a line is malformed.
pub fn load(path: &Path) -> Result<Vec<SuiteEntry>> {
    let (name, bytes) = if path == Path::new("-") {
        // Line by line, as the position files are: endless input without a newline (`suite - < /dev/zero`)
        // stops at the first line over the limit, not after 256 MiB held in memory.
        let text = crate::position_file::read_lines(
            std::io::stdin().lock(),
            crate::files::MAX_INPUT_BYTES,
        )
        .map_err(|e| Error::Usage(format!("cannot read the suite from standard input: {e}")))?;
        ("-".to_string(), text.into_bytes())
    } else {
        let name = path.display().to_string();
        (
            name,
            crate::files::read_input("suite file", path, crate::files::MAX_INPUT_BYTES)?,
        )
    };
    let text = crate::files::text_lines(bytes)
        .map_err(|why| Error::Usage(format!("cannot read suite file '{name}': {why}")))?;
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
    /// The position's name (`id`), if the suite gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
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
    run_with_progress(entries, backend, budget, parallel, &|_, _| {})
}

/// As [`run`], calling `done(index, report of that entry)` as each entry finishes (for a progress bar, and
/// to show failures as they are found).
pub fn run_with_progress(
    entries: &[SuiteEntry],
    backend: &dyn Backend,
    budget: Budget,
    parallel: bool,
    done: &(dyn Fn(usize, &Report) + Sync),
) -> Report {
    let one = |(i, e): (usize, &SuiteEntry)| {
        let r = run_entry(e, backend, budget);
        done(i, &r);
        r
    };
    let reports: Vec<Report> = if parallel {
        entries.par_iter().enumerate().map(one).collect()
    } else {
        entries.iter().enumerate().map(one).collect()
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
        id: e.id.clone(),
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
            // The FEN quoted as typed (`KQ`), not as rewritten (`HA`).
            let why = match &err {
                Error::InvalidPosition(p) => {
                    let parts: Vec<String> = p.errors.iter().map(|e| e.to_string()).collect();
                    format!("invalid position '{}': {}", e.fen, parts.join("; "))
                }
                other => other.to_string(),
            };
            for (depth, expected) in checks {
                r.failed += 1;
                r.failures
                    .push(fail(depth, expected, None, Some(why.clone())));
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

/// Why a new `id` block (or a line outside the block grammar) cannot start here: the open block `(id, line)`
/// never had its `epd` line.
fn unfinished_block(block: &Option<(String, usize)>, has_epd: bool) -> Option<String> {
    match (block, has_epd) {
        (Some((id, at)), false) => Some(format!("block '{id}' (line {at}) has no 'epd' line")),
        _ => None,
    }
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
