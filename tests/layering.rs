//! The module graph is what `src/lib.rs` says it is: this test reads every `crate::…` path in the code of
//! `src/` (in `use` lines and inline; comments skipped), maps each file and each path to its top-level module,
//! and fails on a cycle between top-level modules, or when the reference generator imports anything but the
//! vocabulary (`types`) and `position`. It also fails when code outside `src/cli/` mentions clap, when code
//! outside `src/cli/` prints, on a cycle between the files of one folder (`crate::`, `super::` and `self::`
//! paths), when the core (every module but the feature-gated `cli`, `gpu`, `render` and `deep`) names an
//! optional dependency or a gated module, when a public field of `GpuContext` is reached from another file,
//! when `src/gpu/mod.rs` makes public more (or less) than the GPU backend's intended surface (`GPU_SURFACE`),
//! and, in CI, when the core does not build without default features, natively and for wasm32.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`None` for `lib.rs` and `main.rs`).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    match first.strip_suffix(".rs") {
        Some("lib" | "main") => None,
        Some(name) => Some(name.to_string()),
        None => Some(first),
    }
}

/// Code of a line without its `//` comment (good enough here: no `crate::` inside string literals).
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// Top-level modules named by the `crate::` paths of `text`, including `use crate::{a, b::c}` groups.
fn imports(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut statement = String::new();
    for line in text.lines() {
        let line = code(line);
        let trimmed = line.trim_start();
        // A multi-line `use crate::{` group: collect it up to its `;`.
        // (`pub use crate::{`, `pub(crate) use crate::{` too.)
        if !statement.is_empty() || trimmed.contains("use crate::{") {
            statement.push_str(line);
            if line.contains(';') {
                let group = statement
                    .split_once("crate::{")
                    .map_or("", |(_, g)| g)
                    .to_string();
                // Only the group's first level names top-level modules: split at depth 0.
                let mut depth = 0;
                let mut part = String::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            out.insert(ident(part.trim()));
                            part.clear();
                            continue;
                        }
                        _ => {}
                    }
                    part.push(c);
                }
                out.insert(ident(part.trim()));
                statement.clear();
            }
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name = ident(rest);
            if !name.is_empty() && !rest.starts_with('{') {
                out.insert(name);
            }
        }
    }
    out.retain(|m| !m.is_empty() && m != "self");
    out
}

/// Edges between top-level modules (self-edges dropped).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let Some(m) = module_of(&src, &f) else {
            continue;
        };
        let text = std::fs::read_to_string(&f).unwrap();
        let deps = g.entry(m.clone()).or_default();
        for d in imports(&text) {
            if d != m {
                deps.insert(d);
            }
        }
    }
    g
}

/// A cycle through the graph, if there is one (depth-first search with an explicit path).
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        node: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == node) {
            let mut cycle = path[i..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in g.get(node).into_iter().flatten() {
            if let Some(c) = visit(g, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in g.keys() {
        if let Some(c) = visit(g, node, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}

#[test]
fn import_scanner_reads_paths_and_groups() {
    let text =
        "use crate::a::B;\nuse crate::{b, c::{D, E}, f::G};\nuse crate::{\n    h::I,\n    j,\n};\n\
                // crate::commented\nfn x() { crate::k::l(); let _ = \"x\"; } // crate::m\n";
    let want: BTreeSet<String> = ["a", "b", "c", "f", "h", "j", "k"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(imports(text), want);
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    assert_eq!(find_cycle(&g), None);
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        find_cycle(&g),
        Some(
            vec!["a", "b", "c", "a"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
}

#[test]
fn no_cycle_between_top_level_modules() {
    let g = graph();
    assert!(
        g.contains_key("reference") && g.contains_key("fast"),
        "{g:?}"
    );
    if let Some(cycle) = find_cycle(&g) {
        panic!("module cycle: {}\ngraph: {g:#?}", cycle.join(" -> "));
    }
}

#[test]
fn reference_imports_only_vocabulary_and_position() {
    let g = graph();
    let allowed: BTreeSet<String> = ["types", "position"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let extra: Vec<&String> = g["reference"].difference(&allowed).collect();
    assert!(
        extra.is_empty(),
        "reference imports {extra:?}; it may import only {allowed:?}"
    );
}

#[test]
fn fast_does_not_import_the_reference_generator() {
    // The fast generator shares only vocabulary and plain data with the oracle, so a bug cannot hide in
    // shared code.
    assert!(!graph()["fast"].contains("reference"));
}

#[test]
fn the_bitboard_core_lies_below_the_backend_and_the_analysis() {
    // `bitboard` is the one bitboard vocabulary: it needs only the vocabulary, plain positions and errors (not
    // the reference generator, not validity), and the modules above it reach it, never the CPU backend's
    // internals.
    let g = graph();
    let allowed: BTreeSet<String> = ["types", "position", "error"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let extra: Vec<&String> = g["bitboard"].difference(&allowed).collect();
    assert!(
        extra.is_empty(),
        "bitboard imports {extra:?}; it may import only {allowed:?}"
    );
    assert!(g["fast"].contains("bitboard"), "fast is built on bitboard");
    for above in ["analyze", "proofgame", "retro", "gpu", "deep"] {
        let deps = g.get(above).cloned().unwrap_or_default();
        assert!(
            !deps.contains("fast"),
            "{above} imports the CPU backend `fast`; it must use `bitboard`"
        );
    }
    for user in ["analyze", "proofgame", "gpu", "deep"] {
        assert!(
            g[user].contains("bitboard"),
            "{user} no longer uses bitboard?"
        );
    }
    // Paths the graph does not follow: up from a nested file with `super::super::fast`, or through the
    // crate's own name.
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let detours: Vec<String> = files
        .iter()
        .filter(|f| {
            module_of(&src, f).is_some_and(|m| {
                ["analyze", "proofgame", "retro", "gpu", "deep", "bitboard"].contains(&m.as_str())
            })
        })
        .filter(|f| {
            non_test_code(f).lines().any(|l| {
                let l = code(l);
                l.contains("super::fast") || l.contains("perftlab::fast")
            })
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(detours.is_empty(), "fast reached by a detour: {detours:?}");
}

#[test]
fn the_import_reader_sees_every_form_of_use() {
    // The checker itself: a `fast` import in any of these forms must be seen, or the test above could not fail.
    for text in [
        "use crate::fast::hash::Table;",
        "use crate::{fast, types::Color};",
        "pub use crate::{types::Color, fast::Frontier};",
        "pub(crate) use crate::{\n    types::Color,\n    fast::{self, Frontier},\n};",
        "let t = crate::fast::CpuBackend::new(1);",
    ] {
        assert!(imports(text).contains("fast"), "{text}");
    }
    assert!(!imports("// use crate::fast;\nuse crate::types;").contains("fast"));
}

/// The offences of `text` against "`line` and `san` are named by their own paths": a re-export of either
/// (`pub use crate::line…`, `pub use crate::san…`, also `pub(crate)`), or a path that reaches them, or their
/// items, through `analyze` (`analyze::san`, `analyze::{play_line, Line}`).
fn line_and_san_detours(text: &str) -> Vec<String> {
    let through_analyze = [
        "analyze::san",
        "analyze::line",
        "analyze::play_line",
        "analyze::Line",
    ];
    text.lines()
        .map(code)
        .filter(|l| {
            let t = l.trim_start();
            let t = t
                .strip_prefix("pub(crate) ")
                .or(t.strip_prefix("pub "))
                .unwrap_or("");
            t.starts_with("use crate::line")
                || t.starts_with("use crate::san")
                || through_analyze.iter().any(|p| l.contains(p))
        })
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn the_line_and_san_check_finds_detours() {
    assert_eq!(
        line_and_san_detours("pub use crate::san;\nuse crate::san;"),
        ["pub use crate::san;"]
    );
    assert_eq!(
        line_and_san_detours("pub(crate) use crate::line::Line;").len(),
        1
    );
    assert_eq!(
        line_and_san_detours("use crate::analyze::play_line; // old").len(),
        1
    );
    assert!(line_and_san_detours("use crate::line::play_line;\n// analyze::san").is_empty());
}

#[test]
fn line_and_san_are_reached_by_their_own_paths() {
    // `line` (playing moves given as text) and `san` belong to the rules layer: nothing re-exports them, and
    // `engines`, `compare` and `render` import them as `crate::line` / `crate::san`, not through the
    // analysis (issue 31). `engines` needs nothing else of `analyze`.
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for l in line_and_san_detours(&text) {
            found.push(format!("{}: {l}", f.display()));
        }
    }
    assert!(found.is_empty(), "line/san reached by a detour: {found:#?}");
    assert!(
        !graph()["engines"].contains("analyze"),
        "engines imports analyze"
    );
}

#[test]
fn clap_is_used_only_in_the_cli() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let outside: Vec<String> = files
        .iter()
        .filter(|f| module_of(&src, f).is_some_and(|m| m != "cli"))
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .any(|l| code(l).contains("clap"))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        outside.is_empty(),
        "clap used outside src/cli/: {outside:?}"
    );
}

/// Issue 31 item 3: how a count runs never depends on whether someone watches it, and progress reaches the
/// user through callbacks: no library module asks whether a stream is a terminal, and only the command line
/// draws a progress bar (indicatif).
#[test]
fn only_the_cli_looks_at_terminals_and_draws_progress() {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let outside: Vec<String> = files
        .iter()
        .filter(|f| module_of(&src, f).is_some_and(|m| m != "cli"))
        .flat_map(|f| {
            let text = non_test_code(f);
            let hits: Vec<String> = ["is_terminal", "IsTerminal", "isatty", "indicatif"]
                .iter()
                .filter(|w| text.lines().any(|l| code(l).contains(**w)))
                .map(|w| format!("{}: {w}", f.display()))
                .collect();
            hits
        })
        .collect();
    assert!(
        outside.is_empty(),
        "terminal checks or progress bars outside src/cli/: {outside:?}"
    );
    // The `deep` feature no longer brings indicatif (deep/ reports progress through `work::Progress`).
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let deep = manifest
        .lines()
        .find(|l| l.starts_with("deep = "))
        .expect("a deep feature");
    assert!(!deep.contains("indicatif"), "{deep}");
}

/// The modules behind cargo features (`src/lib.rs`), with their feature.
const GATED: [&str; 4] = ["cli", "gpu", "render", "deep"];

/// The optional dependencies, as their paths are written in code.
const OPTIONAL: [&str; 8] = [
    "wgpu",
    "clap",
    "plotters",
    "indicatif",
    "signal_hook",
    "sha2",
    "pollster",
    "bytemuck",
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The code of a file without its unit tests: files named `tests.rs` and the files of a `tests/` folder
/// (declared `#[cfg(test)] mod tests;`) are all test code, and a `#[cfg(test)]` followed by `mod tests {`
/// starts the test module, which comes last.
fn non_test_code(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs")
        || path
            .strip_prefix(src_dir())
            .is_ok_and(|rel| rel.parent().is_some_and(|d| d.ends_with("tests")))
    {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|next| next.trim_start().starts_with("mod tests {"))
        {
            break;
        }
        out.push_str(code(line));
        out.push('\n');
    }
    out
}

#[test]
fn only_the_cli_prints() {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut printing = BTreeSet::new();
    for f in &files {
        if module_of(&src, f).is_none_or(|m| m == "cli") {
            continue;
        }
        let text = non_test_code(f);
        if ["print!(", "println!(", "eprint!(", "eprintln!(", "dbg!("]
            .iter()
            .any(|m| text.contains(m))
        {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            printing.insert(rel);
        }
    }
    assert!(
        printing.is_empty(),
        "library code prints (only src/cli/ may; return the text or report through a callback): {printing:?}"
    );
}

#[test]
fn the_print_check_skips_comments_and_unit_tests() {
    let dir = std::env::temp_dir().join(format!("perftlab-layering-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("x.rs");
    std::fs::write(
        &f,
        "/// println!(\"doc\")\nfn a() {} // eprintln!(\"comment\")\n#[cfg(test)]\nmod tests {\n    fn t() { println!(\"test\"); }\n}\n",
    )
    .unwrap();
    assert!(!non_test_code(&f).contains("print"));
    std::fs::write(&f, "fn a() {\n    eprintln!(\"x\");\n}\n").unwrap();
    assert!(non_test_code(&f).contains("eprintln!("));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The module path of a file of `src/` (`fast/simd/mod.rs` → `[fast, simd]`; `lib.rs` → `[]`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") || parts == ["lib"] || parts == ["main"] {
        parts.pop();
    }
    parts
}

/// Every `crate::`, `super::` and `self::` path of `text` (comments already removed), as written: the chain of
/// names up to the first `{` group or non-name, with each first-level member of a group appended
/// (`use super::{a::B, c}` gives `[super, a]` and `[super, c]`).
fn written_paths(text: &str) -> Vec<Vec<String>> {
    let bytes = text.as_bytes();
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let ident_at = |i: usize| -> (String, usize) {
        let mut j = i;
        while j < bytes.len() && is_ident(bytes[j]) {
            j += 1;
        }
        (text[i..j].to_string(), j)
    };
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = ["crate::", "super::", "self::"]
            .iter()
            .any(|p| bytes[i..].starts_with(p.as_bytes()))
            && (i == 0
                || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b':' || bytes[i - 1] == b'$'));
        if !start {
            i += 1;
            continue;
        }
        let mut chain = Vec::new();
        let mut j = i;
        loop {
            let (name, end) = ident_at(j);
            if name.is_empty() {
                break;
            }
            chain.push(name);
            j = end;
            if !bytes[j..].starts_with(b"::") {
                break;
            }
            j = skip_space(j + 2);
            if bytes.get(j) == Some(&b'{') {
                // A group: the first name of each member at depth 0.
                let mut depth = 0;
                let mut member = String::new();
                let mut k = j + 1;
                while k < bytes.len() {
                    let c = bytes[k] as char;
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            push_member(&chain, &member, &mut out);
                            member.clear();
                            k += 1;
                            continue;
                        }
                        _ => {}
                    }
                    member.push(c);
                    k += 1;
                }
                push_member(&chain, &member, &mut out);
                chain.clear();
                j = k;
                break;
            }
        }
        if !chain.is_empty() {
            out.push(chain);
        }
        i = j.max(i + 1);
    }
    out
}

fn push_member(chain: &[String], member: &str, out: &mut Vec<Vec<String>>) {
    let first: String = member
        .trim()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    match first.as_str() {
        "" => {}
        "self" => out.push(chain.to_vec()),
        _ => {
            let mut p = chain.to_vec();
            p.push(first);
            out.push(p);
        }
    }
}

/// The modules directly inside the folder of module `folder` (its files but `mod.rs`, and its sub-folders).
fn children(src: &Path, folder: &[String]) -> BTreeSet<String> {
    let mut dir = src.to_path_buf();
    for p in folder {
        dir.push(p);
    }
    let mut out = BTreeSet::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                out.insert(name);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                if stem != "mod" && !(folder.is_empty() && (stem == "lib" || stem == "main")) {
                    out.insert(stem.to_string());
                }
            }
        }
    }
    out
}

/// For each folder (module path), the edges between the modules directly inside it: `a -> b` when code in
/// `a` (or below it) names `b` (or something in it) by a `crate::`, `super::` or `self::` path.
fn folder_graphs(src: &Path) -> BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut out: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for f in files {
        let from = module_path(src, &f);
        let text = non_test_code(&f);
        for path in written_paths(&text) {
            let to: Vec<String> = if path[0] == "crate" {
                path[1..].to_vec()
            } else {
                let mut cur = from.clone();
                let mut k = 0;
                while k < path.len() && (path[k] == "super" || path[k] == "self") {
                    if path[k] == "super" {
                        cur.pop();
                    }
                    k += 1;
                }
                cur.extend(path[k..].iter().cloned());
                cur
            };
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if from.len() > common && to.len() > common {
                let folder = from[..common].to_vec();
                if children(src, &folder).contains(&to[common]) {
                    out.entry(folder)
                        .or_default()
                        .entry(from[common].clone())
                        .or_default()
                        .insert(to[common].clone());
                }
            }
        }
    }
    out
}

#[test]
fn the_path_reader_resolves_groups_and_super() {
    let text = "use super::{board::Board, movegen, self};\nuse crate::fast::hash::X;\nfn f() { self::a::b(); $crate::no(); }";
    let got: Vec<String> = written_paths(text).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        got,
        [
            "super::board",
            "super::movegen",
            "super",
            "crate::fast::hash::X",
            "self::a::b"
        ]
    );
}

#[test]
fn no_cycle_inside_a_folder() {
    let src = src_dir();
    let graphs = folder_graphs(&src);
    assert!(
        graphs
            .get(&vec!["fast".to_string()])
            .is_some_and(|g| g.get("stats").is_some_and(|d| d.contains("stats_table"))),
        "the reader finds fast/stats.rs -> fast/stats_table.rs: {graphs:?}"
    );
    let mut unknown = Vec::new();
    for (folder, g) in &graphs {
        if folder.is_empty() {
            continue; // the top level: `no_cycle_between_top_level_modules`
        }
        if let Some(cycle) = find_cycle(g) {
            unknown.push(format!("src/{}/: {}", folder.join("/"), cycle.join(" -> ")));
        }
    }
    assert!(unknown.is_empty(), "cycles inside a folder: {unknown:?}");
}

#[test]
fn the_core_names_no_optional_dependency_and_no_gated_module() {
    let src = src_dir();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut bad = Vec::new();
    for f in &files {
        let Some(m) = module_of(&src, f) else {
            continue;
        };
        if GATED.contains(&m.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for line in text.lines().map(code) {
            for dep in OPTIONAL {
                let used = line.match_indices(dep).any(|(i, _)| {
                    let before = line[..i].chars().next_back();
                    let after = &line[i + dep.len()..];
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
                        && (after.starts_with("::") || after.starts_with(';'))
                });
                if used {
                    bad.push(format!("{}: {dep}", f.display()));
                }
            }
        }
    }
    for (m, deps) in graph() {
        if GATED.contains(&m.as_str()) {
            continue;
        }
        for d in deps.iter().filter(|d| GATED.contains(&d.as_str())) {
            bad.push(format!("core module {m} imports the gated module {d}"));
        }
    }
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    for m in GATED {
        if !lib.contains(&format!("#[cfg(feature = \"{m}\")]\npub mod {m};")) {
            bad.push(format!(
                "src/lib.rs does not gate `pub mod {m};` behind feature \"{m}\""
            ));
        }
    }
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    for dep in OPTIONAL {
        let name = dep.replace('_', "-");
        let line = manifest
            .lines()
            .find(|l| l.starts_with(&format!("{name} =")))
            .unwrap_or_default();
        if !line.contains("optional = true") {
            bad.push(format!("Cargo.toml: {name} is not optional: {line:?}"));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Run `cargo check --lib --no-default-features` (with `extra` arguments) in a target folder of its own:
/// type and target checks (a wasm32 build with code generation takes minutes of CPU more and finds nothing
/// more here).
fn build_core(extra: &[&str]) -> std::process::Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("core-check");
    std::process::Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", "--lib", "--no-default-features", "--target-dir"])
        .arg(&target)
        .args(extra)
        .output()
        .expect("cargo runs")
}

#[test]
fn the_core_builds_without_default_features_natively_and_for_wasm32() {
    // Two cargo checks of the core (about a minute of CPU with its dependencies): run in CI, or when
    // PERFTLAB_CHECK_CORE is set.
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if !ci && std::env::var_os("PERFTLAB_CHECK_CORE").is_none() {
        eprintln!("skipped: set CI=true or PERFTLAB_CHECK_CORE=1 to build the core without default features");
        return;
    }
    for extra in [&[][..], &["--target", "wasm32-unknown-unknown"][..]] {
        let out = build_core(extra);
        assert!(
            out.status.success(),
            "cargo check --lib --no-default-features {extra:?} failed (for wasm32: `rustup target add \
             wasm32-unknown-unknown`):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Code used only by a feature left out must not stay behind as dead code (a default-features = false
        // build printed 5 dead-code warnings: issue 37 item 15). Cargo replays a cached crate's warnings.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("warning: `perftlab`"),
            "warnings in cargo check --lib --no-default-features {extra:?}:\n{stderr}"
        );
    }
}

#[test]
fn the_gpu_feature_builds_for_wasm32() {
    // The GPU backend in the browser: wgpu on WebGPU, the async API only (no threads, no Vulkan memory
    // query, no blocking). A cargo check of the core and wgpu's web crates for wasm32 (a minute or two of CPU
    // the first time): run in CI, or when PERFTLAB_CHECK_CORE is set.
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if !ci && std::env::var_os("PERFTLAB_CHECK_CORE").is_none() {
        eprintln!(
            "skipped: set CI=true or PERFTLAB_CHECK_CORE=1 to build the gpu feature for wasm32"
        );
        return;
    }
    let out = build_core(&["--features", "gpu", "--target", "wasm32-unknown-unknown"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "cargo check --lib --no-default-features --features gpu --target wasm32-unknown-unknown failed \
         (`rustup target add wasm32-unknown-unknown`):\n{stderr}"
    );
    // Code cfg'd for native only must not leave dead code behind on wasm32.
    assert!(
        !stderr.contains("warning: `perftlab`"),
        "warnings in the wasm32 build of the gpu feature:\n{stderr}"
    );
}

#[test]
fn no_public_gpu_context_field_is_reached_from_another_file() {
    // `GpuContext`'s public fields reached as `ctx.field` from other files of src/gpu/.
    // None since the GPU host split (private fields, methods only); the list may only shrink.
    let known: BTreeSet<(&str, &str)> = BTreeSet::new();
    let gpu = src_dir().join("gpu");
    let mut files = Vec::new();
    rust_files(&gpu, &mut files);
    // The file that defines the struct, and its public fields.
    let mut public = BTreeSet::new();
    let mut home = None;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let Some(at) = text.find("pub struct GpuContext {") else {
            continue;
        };
        home = Some(f.clone());
        for line in text[at..].lines().skip(1) {
            let line = code(line).trim();
            if line.starts_with('}') {
                break;
            }
            if let Some(rest) = line.strip_prefix("pub") {
                let rest = rest.trim_start();
                let rest = if rest.starts_with('(') {
                    rest.split_once(')').map_or("", |(_, r)| r).trim_start()
                } else {
                    rest
                };
                if let Some((name, _)) = rest.split_once(':') {
                    public.insert(name.trim().to_string());
                }
            }
        }
    }
    let Some(home) = home else {
        panic!("no `pub struct GpuContext` in src/gpu/: if it was split or renamed, point this check at its parts");
    };
    let mut reached = Vec::new();
    for f in files.iter().filter(|f| **f != home) {
        let text = non_test_code(f);
        let name = f
            .strip_prefix(&gpu)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        for field in &public {
            let pattern = format!("ctx.{field}");
            let used = text.match_indices(&pattern).any(|(i, _)| {
                let after = &text[i + pattern.len()..];
                let before = text[..i].chars().next_back();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    && !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '(')
            });
            if used && !known.contains(&(name.as_str(), field.as_str())) {
                reached.push(format!("{name}: ctx.{field}"));
            }
        }
    }
    assert!(
        reached.is_empty(),
        "public GpuContext fields reached from another file (add a method instead): {reached:?}"
    );
}

/// The public surface of the GPU backend, as `src/gpu/mod.rs` declares it: what the CLI, the web page
/// (`web/`) and a library user need. Everything else in `src/gpu/` is private to the module; a new `pub`
/// item there (or a `pub mod`) is a decision to make here, not a side effect of a test reaching inside.
const GPU_SURFACE: [&str; 12] = [
    "ADAPTER_ENV",
    "AdapterSummary",
    "AdapterWork",
    "GpuBackend",
    "GpuOptions",
    "GpuProgress",
    "GpuReport",
    "Kernel",
    "LevelReport",
    "MAX_UNIT_LEAVES",
    "RootMoves",
    "list_adapters",
];

/// The names a module file makes public at its top level: `pub` items (`struct`, `enum`, `fn`, `const`,
/// `mod`, …) and `pub use` re-exports (one name, a group, or `*`), nested items (methods) and
/// `pub(crate)`/`pub(super)` skipped.
fn public_items(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut statement = String::new();
    for line in text.lines() {
        let line = code(line);
        if statement.is_empty() && !line.starts_with("pub ") {
            continue;
        }
        statement.push_str(line);
        statement.push(' ');
        let rest = statement.trim_start_matches("pub ").trim_start();
        if let Some(path) = rest.strip_prefix("use ") {
            let Some(path) = path.split_once(';').map(|(p, _)| p) else {
                continue; // a group over several lines
            };
            let names = match path.split_once('{') {
                Some((_, group)) => group.trim_end().trim_end_matches('}').to_string(),
                None => path.rsplit("::").next().unwrap_or("").to_string(),
            };
            for n in names.split(',') {
                let n = n.trim();
                let n = n.rsplit(" as ").next().unwrap_or(n);
                let n = n.rsplit("::").next().unwrap_or(n).trim();
                if !n.is_empty() {
                    out.insert(n.to_string());
                }
            }
        } else {
            let words: Vec<&str> = rest
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let kinds = [
                "struct", "enum", "fn", "const", "static", "mod", "trait", "type", "union",
            ];
            if let Some(k) = words.iter().position(|w| kinds.contains(w)) {
                if let Some(name) = words.get(k + 1) {
                    out.insert(name.to_string());
                }
            }
        }
        statement.clear();
    }
    out
}

#[test]
fn the_public_item_reader_sees_every_form() {
    let text = "pub mod a;\nmod b;\npub(crate) mod c;\npub use x::{D, e::F,\n    G as H};\npub use y::I;\n\
                pub struct J {\n    pub k: u8,\n}\npub async fn l() {}\npub const M: u8 = 0;\n\
                impl J {\n    pub fn n() {}\n}\n// pub use z::O;\npub(crate) use w::P;\n";
    let got: Vec<String> = public_items(text).into_iter().collect();
    assert_eq!(got, ["D", "F", "H", "I", "J", "M", "a", "l"]);
}

#[test]
fn the_gpu_module_exposes_only_its_intended_surface() {
    let text = std::fs::read_to_string(src_dir().join("gpu/mod.rs")).unwrap();
    let got = public_items(&text);
    let want: BTreeSet<String> = GPU_SURFACE.iter().map(|s| s.to_string()).collect();
    let extra: Vec<&String> = got.difference(&want).collect();
    let missing: Vec<&String> = want.difference(&got).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "src/gpu/mod.rs makes public {extra:?} beyond GPU_SURFACE, and not {missing:?}: a GPU internal stays \
         private (its tests go in src/gpu/tests/); a new part of the surface is added to GPU_SURFACE and \
         docs/gpu-backend.md"
    );
    // The submodules are private: nothing inside them is reachable but through those re-exports.
    let public_modules: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("pub") && l.contains(" mod "))
        .collect();
    assert!(
        public_modules.is_empty(),
        "public GPU submodules: {public_modules:?}"
    );
}
