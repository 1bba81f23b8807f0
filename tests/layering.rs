//! The module graph is what `src/lib.rs` says it is: this test reads every `crate::…` path in the code of
//! `src/` (in `use` lines and inline; comments skipped), maps each file and each path to its top-level module,
//! and fails on a cycle between top-level modules, or when the reference generator imports anything but the
//! vocabulary (`types`) and `position`. It also fails when code outside `src/cli/` mentions clap.

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
        if !statement.is_empty() || trimmed.starts_with("use crate::{") {
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
