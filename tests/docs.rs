//! The README and `docs/` as a reader meets them: every relative link of `README.md` and `docs/*.md` (images
//! included) points to a file of the repository and, where it names one, to a heading of that page (GitHub's
//! anchors); every page of `docs/` is listed in its index; and every command of the README's examples (the
//! `$ …` lines of its `console` blocks) is run against the built binary, its output compared with the lines
//! the README shows. Lines with a time or speed (`… s, … M nodes/s …`) are compared with their numbers
//! masked; a line `...` in the README stands for any number of lines. Examples that need Stockfish, a GPU
//! adapter or python3 fail when the tool is missing with `CI=true`, and are skipped, saying so, otherwise.
//! A figure quoted on several pages (a mutation score, the CHA comparison, a speed ratio) has one source
//! page, and every quote must read the same ([`FIGURES`]).

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `README.md` and every `docs/*.md`, relative to the repository root.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(root()).unwrap().to_path_buf())
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn read(page: &Path) -> String {
    std::fs::read_to_string(root().join(page)).unwrap_or_else(|e| panic!("{}: {e}", page.display()))
}

/// The page without its fenced code blocks: (line number, line) of the prose.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// The text with its code spans (`` `…` ``, also across lines of a paragraph) blanked out, so that a
/// `](` inside code is not read as a link. Newlines are kept, so line numbers stay right.
fn without_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        // The closing run of the same length, within the paragraph (no blank line in between).
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '\n' && chars.get(j + 1) == Some(&'\n') {
                break;
            }
            if chars[j] == '`' {
                let r = chars[j..].iter().take_while(|&&c| c == '`').count();
                if r == run {
                    close = Some(j + r);
                    break;
                }
                j += r;
                continue;
            }
            j += 1;
        }
        match close {
            Some(end) => {
                for &c in &chars[i..end] {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                }
                i = end;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// Link targets of a page's prose: (line number, target) of every `[text](target)` and `![alt](target)`.
fn links(text: &str) -> Vec<(usize, String)> {
    let lines = prose(text);
    let joined: String = lines.iter().map(|(_, l)| format!("{l}\n")).collect();
    let clean = without_code_spans(&joined);
    let mut out = Vec::new();
    for (k, line) in clean.lines().enumerate() {
        let mut rest = line;
        while let Some(p) = rest.find("](") {
            let after = &rest[p + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end]
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
            out.push((lines[k].0, target));
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, everything but letters, digits, spaces, `-` and `_` dropped,
/// spaces made `-`; a repeated anchor gets `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, line) in prose(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let slug: String = line[hashes..]
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut anchor = slug.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// `dir/../x` → `x`; `None` when the path leaves the repository.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(s) => out.push(s),
            _ => return None,
        }
    }
    Some(out)
}

#[test]
fn relative_links_point_to_files_and_headings() {
    let mut bad = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = read(&page);
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                Some(page.clone())
            } else {
                normalise(&page.parent().unwrap().join(path))
            };
            let where_ = format!("{}:{line}: ({target})", page.display());
            let Some(file) = file else {
                bad.push(format!("{where_} leaves the repository"));
                continue;
            };
            if !root().join(&file).exists() {
                bad.push(format!("{where_}: {} does not exist", file.display()));
                continue;
            }
            if let Some(anchor) = anchor {
                if file.extension().is_some_and(|e| e == "md")
                    && !anchors(&read(&file)).contains(anchor)
                {
                    bad.push(format!(
                        "{where_}: no heading #{anchor} in {}",
                        file.display()
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
    // README.md links to every docs page, images included: far more than a handful.
    assert!(
        checked > 50,
        "only {checked} relative links found: is the link reader broken?"
    );
}

#[test]
fn every_docs_page_is_in_the_index_and_the_readme_links_the_index() {
    let index = read(Path::new("docs/README.md"));
    let linked: BTreeSet<String> = links(&index).into_iter().map(|(_, t)| t).collect();
    for page in pages().iter().skip(1) {
        let name = page.file_name().unwrap().to_str().unwrap();
        if name != "README.md" {
            assert!(linked.contains(name), "docs/README.md does not list {name}");
        }
    }
    let readme: BTreeSet<String> = links(&read(Path::new("README.md")))
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert!(
        readme.contains("docs/README.md"),
        "README.md does not link docs/README.md"
    );
}

/// One example of the README: a command line and the output shown under it.
#[derive(Debug)]
struct Example {
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The `$ …` commands of the README's `console` blocks (a line ending in `\` continues on the next one), each
/// with the lines shown after it up to the next command or the end of the block.
fn examples(text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut continued = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") {
            in_console = !in_console && t.trim_end() == "```console";
            continued = false;
            continue;
        }
        if !in_console {
            continue;
        }
        if continued {
            let ex = out.last_mut().unwrap();
            ex.command.push(' ');
            ex.command.push_str(line.trim());
        } else if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Example {
                line: i + 1,
                command: cmd.trim().to_string(),
                expected: Vec::new(),
            });
        } else {
            let ex = out
                .last_mut()
                .expect("a console block's output before any `$ ` command");
            ex.expected.push(line.trim_end().to_string());
        }
        let ex = out.last_mut().unwrap();
        continued = ex.command.ends_with('\\');
        if continued {
            ex.command.pop();
            let trimmed = ex.command.trim_end().len();
            ex.command.truncate(trimmed);
        }
    }
    out
}

/// A line with a time or speed: its numbers differ from run to run.
fn is_timing(line: &str) -> bool {
    line.contains(" nodes/s") || line.contains(" s before counting")
}

/// The line with every number (digits, `.` and `,` between them) replaced by `#`.
fn mask_numbers(line: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in line.chars() {
        let digitish = c.is_ascii_digit() || (in_number && (c == '.' || c == ','));
        if digitish {
            if !in_number {
                out.push('#');
            }
        } else {
            out.push(c);
        }
        in_number = digitish;
    }
    out
}

fn line_matches(expected: &str, actual: &str) -> bool {
    if is_timing(expected) {
        mask_numbers(expected) == mask_numbers(actual)
    } else {
        expected == actual
    }
}

/// Whether `actual` is `expected`, where an expected line `...` stands for any number of lines.
fn output_matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => {
            (0..=actual.len()).any(|k| output_matches(rest, &actual[k..]))
        }
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, arest)| line_matches(e, a) && output_matches(rest, arest)),
    }
}

fn trimmed_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// `PATH` for the examples: the built binary's folder first (so `perftlab` is this build), then the
/// inherited `PATH`, then `/usr/games` (where Debian puts Stockfish; `.ci/run` adds it too).
fn example_path() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_perftlab"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut dirs = vec![bin];
    if let Some(p) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&p));
    }
    dirs.push(PathBuf::from("/usr/games"));
    std::env::join_paths(dirs).unwrap().into_string().unwrap()
}

fn on_path(program: &str, path: &str) -> bool {
    std::env::split_paths(path).any(|d| d.join(program).is_file())
}

/// Whether wgpu finds an adapter: `perftlab devices` lists `0: …`.
fn gpu_adapter() -> bool {
    let out = Command::new(env!("CARGO_BIN_EXE_perftlab"))
        .arg("devices")
        .output()
        .expect("run perftlab devices");
    out.status.success()
        && String::from_utf8_lossy(&out.stdout)
            .lines()
            .any(|l| l.starts_with("0: "))
}

/// What an example needs besides perftlab, and whether it is there.
fn missing_tool(command: &str, path: &str) -> Option<&'static str> {
    if command.contains("--engine stockfish") && !on_path("stockfish", path) {
        return Some("Stockfish (apt-get install stockfish)");
    }
    if command.contains("python3") && !on_path("python3", path) {
        return Some("python3");
    }
    if command.contains("--backend gpu") && !gpu_adapter() {
        return Some("a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers libvulkan1)");
    }
    None
}

#[test]
fn readme_examples_run_with_the_output_shown() {
    let examples = examples(&read(Path::new("README.md")));
    // The six the README promises: perft, divide, compare with Stockfish, verify, analyze, the GPU backend.
    for needed in [
        "perftlab perft --depth",
        "--divide",
        "perftlab compare --engine stockfish",
        "perftlab verify",
        "perftlab analyze",
        "--backend gpu",
    ] {
        assert!(
            examples.iter().any(|e| e.command.contains(needed)),
            "the README has no example with `{needed}`"
        );
    }
    let path = example_path();
    let mut failures = Vec::new();
    for ex in &examples {
        assert!(
            ex.command.starts_with("perftlab "),
            "README.md:{}: an example that is not a perftlab command: {}",
            ex.line,
            ex.command
        );
        if let Some(tool) = missing_tool(&ex.command, &path) {
            assert!(
                !in_ci(),
                "CI=true and {tool} is missing for README.md:{}: {}",
                ex.line,
                ex.command
            );
            eprintln!(
                "skipping README.md:{} ({tool} is missing): {}",
                ex.line, ex.command
            );
            continue;
        }
        // Standard error goes where standard output goes, as in the terminal the README shows.
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{{ {}\n}} 2>&1", ex.command))
            .current_dir(root())
            .env("PATH", &path)
            .output()
            .expect("run sh");
        let actual = trimmed_lines(&String::from_utf8_lossy(&out.stdout));
        let expected = trimmed_lines(&ex.expected.join("\n"));
        // A mismatch shown in the README is exit 1 (unless piped through another command); all else 0.
        let want_code =
            if expected.iter().any(|l| l.starts_with("MISMATCH")) && !ex.command.contains('|') {
                1
            } else {
                0
            };
        if !output_matches(&expected, &actual) || out.status.code() != Some(want_code) {
            failures.push(format!(
                "README.md:{}: $ {}\nexit code {:?} (expected {want_code})\n--- README shows:\n{}\n--- actual:\n{}\n",
                ex.line,
                ex.command,
                out.status.code(),
                expected.join("\n"),
                actual.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_output_matcher_can_fail() {
    let lines = |s: &[&str]| s.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    let timing =
        "cpu depth 6: 0.141 s, 847.2 M nodes/s (and 0.263 s before counting: backend start)";
    let other_time =
        "cpu depth 6: 12.5 s, 9.0 M nodes/s (and 1.000 s before counting: backend start)";
    assert!(output_matches(
        &lines(&["Nodes searched: 1", timing]),
        &lines(&["Nodes searched: 1", other_time])
    ));
    // Counts are compared exactly, also on a timing line's depth and the lines around a `...`.
    assert!(!output_matches(
        &lines(&["Nodes searched: 1"]),
        &lines(&["Nodes searched: 2"])
    ));
    assert!(!output_matches(
        &lines(&[timing]),
        &lines(&[&other_time.replace("cpu", "gpu")])
    ));
    assert!(output_matches(
        &lines(&["a", "...", "z"]),
        &lines(&["a", "b", "c", "z"])
    ));
    assert!(output_matches(
        &lines(&["a", "...", "z"]),
        &lines(&["a", "z"])
    ));
    assert!(!output_matches(
        &lines(&["a", "...", "z"]),
        &lines(&["a", "b"])
    ));
    assert!(!output_matches(&lines(&["a"]), &lines(&["a", "b"])));
    // Anchors and links as GitHub makes and reads them.
    let page = "# Title\n## `perftlab perft`\n## Engines: `--perft-command`\n```\n# not a heading\n```\n## Title\n";
    let a = anchors(page);
    for want in [
        "title",
        "perftlab-perft",
        "engines---perft-command",
        "title-1",
    ] {
        assert!(a.contains(want), "{want} not in {a:?}");
    }
    assert!(!a.contains("not-a-heading"));
    let found: Vec<String> =
        links("see [a](x.md#y) and `[b](not)` and ![c](d.svg)\n```\n[e](f)\n```\n")
            .into_iter()
            .map(|(_, t)| t)
            .collect();
    assert_eq!(found, ["x.md#y", "d.svg"]);
}

/// A figure quoted on several pages: the page that states it (its one source) and every page that quotes
/// it, each place named by the text just before the figure (whitespace collapsed, unique on its page). A
/// figure is what follows its place, `*` and spaces skipped: digits and the signs of a number or a range
/// (`196/244`, `3,598`, `2.02×`, `570–850`).
struct Figure {
    what: &'static str,
    source: (&'static str, &'static str),
    quotes: &'static [(&'static str, &'static str)],
}

/// The figures that more than one page quotes (issue 37 item 14: docs/commands.md once quoted stale CHA
/// figures against the README's). A page that quotes one of them anew belongs here.
const FIGURES: &[Figure] = &[
    Figure {
        what: "mutation score of `stress`, all kinds, depth 2",
        source: ("docs/stress.md", "| default (`--kinds all`) | "),
        quotes: &[
            ("README.md", "200 positions, depth 2 | "),
            ("docs/commands.md", "depth 2, seed 1): **detected "),
        ],
    },
    Figure {
        what: "mutation score of random playouts alone",
        source: ("docs/stress.md", "| `--kinds random` (the old `stress`) | "),
        quotes: &[
            ("README.md", "random playouts alone: "),
            ("docs/commands.md", "survivors at depth 3) against "),
        ],
    },
    Figure {
        what: "CHA test vectors: queries perftlab leaves undetermined",
        source: (
            "docs/dead-positions.md",
            "perftlab (defaults: 3,000,000 nodes, 1 s) | 3,598 | 0 | ",
        ),
        quotes: &[("README.md", "CHA, ")],
    },
    Figure {
        what: "CHA test vectors: full analysis speed against CHA",
        source: (
            "docs/dead-positions.md",
            "| 18.17 (18.17, 17.14, 20.15) | 18.14 | ",
        ),
        quotes: &[
            (
                "docs/dead-positions.md",
                "(target ≤ 20, met); full analysis ",
            ),
            ("README.md", "CHA's 3,606 test vectors | "),
        ],
    },
    Figure {
        what: "CHA-Solver's lichess.txt: full analysis speed against CHA-Solver",
        source: (
            "docs/dead-positions.md",
            "| tests/lichess.txt (session 71), full, 3 runs | ",
        ),
        quotes: &[("README.md", "131,072 queries | ")],
    },
    Figure {
        what: "CHA-Solver's lichess.txt: the scan against CHA-Solver's fast check",
        source: (
            "docs/dead-positions.md",
            "| tests/lichess.txt (session 71), `--scan`, 3 runs | ",
        ),
        quotes: &[("README.md", "| the same file | ")],
    },
    Figure {
        what: "the self-play finals: the scan against CHA-Solver's fast check",
        source: (
            "docs/dead-positions.md",
            "| self-play finals (session 71), `--scan`, 6 rounds of 11 runs | ",
        ),
        quotes: &[("README.md", "5,200 games each) | `--scan` ")],
    },
    Figure {
        what: "one CPU thread against Stockfish's `go perft`",
        source: ("docs/measurements.md", "on these positions, about "),
        quotes: &[
            ("README.md", "AVX-512/AVX2 lanes (≈ "),
            ("README.md", "G nodes/s | "),
        ],
    },
    Figure {
        what: "one CPU thread, G nodes/s on the CPW positions",
        source: ("docs/measurements.md", "So one thread now counts about "),
        quotes: &[("README.md", "six CPW positions, one thread | ")],
    },
    Figure {
        what: "GPU on lavapipe: start perft 6 against one fast CPU thread",
        source: ("docs/gpu-backend.md", "than in the table above), default "),
        quotes: &[
            ("README.md", "(CPU-emulated) | "),
            (
                "docs/measurements.md",
                "`--threads 1 --hash 0 --no-merge` | ",
            ),
            ("docs/gpu-notes.md", "inflated against the quiet-machine "),
            ("docs/gpu-notes.md", "were above the quiet-machine "),
        ],
    },
    Figure {
        what: "estimated perft 9 rate on an H200 (G nodes/s)",
        source: ("docs/gpu-notes.md", "The honest range is "),
        quotes: &[
            ("docs/gpu-backend.md", "≈ 570 G. So "),
            ("docs/measurements.md", "estimates only | "),
        ],
    },
];

/// The figure after `place` in `text` (whitespace collapsed): an error when `place` is missing, is not
/// unique, or no figure follows it.
fn figure_after(text: &str, place: &str) -> Result<String, String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut found = flat.match_indices(place);
    let Some((at, _)) = found.next() else {
        return Err(format!("'{place}' not found"));
    };
    if found.next().is_some() {
        return Err(format!("'{place}' is not unique"));
    }
    let rest = flat[at + place.len()..].trim_start_matches(['*', ' ', '≈']);
    let figure: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || ",./×–".contains(*c))
        .collect();
    let figure = figure.trim_end_matches(['.', ',']).to_string();
    if figure.is_empty() || !figure.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("no figure after '{place}'"));
    }
    Ok(figure)
}

/// Every quote of `f` that differs from its source (or cannot be read), one line each.
fn disagreements(f: &Figure, read_page: impl Fn(&str) -> String) -> Vec<String> {
    let (page, place) = f.source;
    let source = match figure_after(&read_page(page), place) {
        Ok(v) => v,
        Err(e) => return vec![format!("{}: source {page}: {e}", f.what)],
    };
    f.quotes
        .iter()
        .filter_map(
            |(page, place)| match figure_after(&read_page(page), place) {
                Ok(v) if v == source => None,
                Ok(v) => Some(format!(
                    "{}: {page} quotes {v}, {} says {source}",
                    f.what, f.source.0
                )),
                Err(e) => Some(format!("{}: {page}: {e}", f.what)),
            },
        )
        .collect()
}

#[test]
fn figures_quoted_in_several_pages_agree_with_their_source() {
    let wrong: Vec<String> = FIGURES
        .iter()
        .flat_map(|f| disagreements(f, |p| read(Path::new(p))))
        .collect();
    assert!(
        wrong.is_empty(),
        "figures quoted apart from their source (update the quote, or the source and every quote):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_figure_check_can_fail() {
    assert_eq!(figure_after("a **196/244** b", "a ").unwrap(), "196/244");
    assert_eq!(figure_after("x ≈ 2.02× CHA.", "x ").unwrap(), "2.02×");
    assert_eq!(figure_after("so 570–850 G", "so ").unwrap(), "570–850");
    assert!(figure_after("a 1 a 2", "a ")
        .unwrap_err()
        .contains("not unique"));
    assert!(figure_after("a b", "a ").unwrap_err().contains("no figure"));
    assert!(figure_after("a b", "c ").unwrap_err().contains("not found"));
    let f = Figure {
        what: "w",
        source: ("S", "n: "),
        quotes: &[("Q", "n: ")],
    };
    assert!(
        disagreements(&f, |p| format!("n: {}", if p == "S" { 87 } else { 86 }))[0]
            .contains("Q quotes 86, S says 87")
    );
    assert!(disagreements(&f, |_| "n: 87".into()).is_empty());
}
