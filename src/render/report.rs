//! HTML reports: one self-contained page (inline SVG boards and CSS, no scripts, no external files) with the
//! run's summary and every failure: its board with arrows ([`super::board`]), the path from the root in UCI
//! and SAN, the FEN as selectable text, the failing depth, the divide of both sides at that node side by
//! side, and the failure kinds. Failures are grouped by kind, and only the first few of each group are
//! expanded (`<details open>`), so a page with hundreds of failures stays readable.

use super::board::{board_svg, Marks};
use super::escape;
use crate::compare::Comparison;
use crate::position::Setup;
use crate::reference;
use crate::san;
use crate::types::Move;
use std::collections::BTreeMap;
use std::fmt::Write;

/// How many failures of each group are shown expanded.
pub const EXPANDED: usize = 3;

/// One failure as the report shows it.
#[derive(Clone, Debug, Default)]
pub struct Failure {
    /// Where it came from: `position 3 of seed 1`, `suite.epd:12`.
    pub label: String,
    /// The root position (FEN).
    pub root: String,
    /// UCI moves from the root to the failing position.
    pub path: Vec<String>,
    /// The failing position (FEN).
    pub fen: String,
    /// The depth compared there.
    pub failing_depth: u32,
    /// Legal moves the engine lacks there.
    pub missing: Vec<String>,
    /// Moves the engine gives there that are not legal.
    pub extra: Vec<String>,
    /// Moves whose counts differ: (move, engine's count, perftlab's count).
    pub wrong_counts: Vec<(String, u128, u128)>,
    /// The kinds of move involved (`castling`, `en_passant`, …), for grouping.
    pub kinds: Vec<String>,
    /// Both divides at the failing position: (the engine's, perftlab's), when known.
    pub divides: Option<(BTreeMap<String, u128>, BTreeMap<String, u128>)>,
    /// A free-form line (a suite's expected and actual count, an engine's error).
    pub note: Option<String>,
}

impl Failure {
    /// The failure of a [`Comparison`], or `None` when it agrees.
    pub fn from_comparison(label: &str, c: &Comparison) -> Option<Failure> {
        let f = c.failure.as_ref()?;
        Some(Failure {
            label: label.to_string(),
            root: c.root.clone(),
            path: f.path.clone(),
            fen: f.fen.clone(),
            failing_depth: f.depth,
            missing: f.missing.clone(),
            extra: f.extra.clone(),
            wrong_counts: f
                .wrong_counts
                .iter()
                .map(|w| (w.mv.clone(), w.engine, w.perftlab))
                .collect(),
            kinds: f.kinds.iter().map(|k| k.name().to_string()).collect(),
            divides: None,
            note: None,
        })
    }

    /// The group this failure is listed under: its kinds joined, or `other`.
    pub fn group(&self) -> String {
        if self.kinds.is_empty() {
            "other".into()
        } else {
            self.kinds.join(" + ")
        }
    }
}

/// A whole report.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The page title (`perftlab stress: fake_engine.py --bug ep`).
    pub title: String,
    /// Summary rows (name, value), shown at the top in this order.
    pub summary: Vec<(String, String)>,
    /// The failures, in the order found.
    pub failures: Vec<Failure>,
}

/// The path in SAN, move by move from `root`; a move that cannot be played there is shown as `?uci`.
pub fn san_path(root: &str, path: &[String]) -> Vec<String> {
    let Ok(mut cur) = Setup::from_fen(root) else {
        return path.iter().map(|m| format!("?{m}")).collect();
    };
    let mut out = Vec::new();
    for (i, text) in path.iter().enumerate() {
        let legal = reference::legal_moves(&cur);
        let Some(m) = Move::find_uci(&legal, text) else {
            out.extend(path[i..].iter().map(|m| format!("?{m}")));
            break;
        };
        let number = if cur.turn == crate::types::Color::White {
            format!("{}.", cur.fullmoves)
        } else if i == 0 {
            format!("{}...", cur.fullmoves)
        } else {
            String::new()
        };
        out.push(format!("{number}{}", san::to_san(&cur, &legal, m)));
        cur = reference::play(&cur, m);
    }
    out
}

const CSS: &str = "
body{font-family:sans-serif;margin:1.5em;color:#222;background:#fafafa;max-width:72em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse}td,th{padding:.15em .6em;text-align:left;vertical-align:top}
table.summary td:first-child{color:#555}
nav a{margin-right:1em}
details{background:#fff;border:1px solid #ddd;border-radius:4px;margin:.5em 0;padding:.3em .6em}
summary{cursor:pointer;font-weight:bold}
.failure{display:flex;flex-wrap:wrap;gap:1.2em;margin-top:.6em}
.failure svg{flex:none}
.info{flex:1;min-width:24em}
.info dt{color:#555;margin-top:.4em}.info dd{margin:0 0 0 1em}
code{font-family:monospace;background:#f0f0f0;padding:0 .2em}
.fen{user-select:all;-webkit-user-select:all;word-break:break-all}
.missing{color:#15803d;font-weight:bold}.extra{color:#b91c1c;font-weight:bold}.differs{color:#a16207;font-weight:bold}
table.divide td.n{text-align:right;font-family:monospace}
table.divide tr:nth-child(even){background:#f4f4f4}
.failure details.agree{border:none;padding:0;margin:.3em 0;background:none}.failure details.agree summary{font-weight:normal;color:#555}
.ok{color:#15803d}.bad{color:#b91c1c}
";

fn list(moves: &[String], class: &str) -> String {
    if moves.is_empty() {
        return "none".into();
    }
    moves
        .iter()
        .map(|m| format!(r#"<code class="{class}">{}</code>"#, escape(m)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn divide_table(f: &Failure) -> String {
    let Some((theirs, ours)) = &f.divides else {
        return String::new();
    };
    let mut keys: Vec<&String> = theirs.keys().chain(ours.keys()).collect();
    keys.sort();
    keys.dedup();
    let head =
        r#"<table class="divide"><tr><th>move</th><th>engine</th><th>perftlab</th><th></th></tr>"#;
    let show = |n: Option<&u128>| n.map_or("-".to_string(), |n| n.to_string());
    // The rows that differ first, then the total, then the agreeing rows folded away.
    let (mut differ, mut agree) = (String::new(), String::new());
    let mut agreeing = 0;
    for k in keys {
        let (e, o) = (theirs.get(k), ours.get(k));
        let (class, what) = match (e, o) {
            (None, Some(_)) => ("missing", "missing"),
            (Some(_), None) => ("extra", "not legal"),
            (Some(a), Some(b)) if a != b => ("differs", "differs"),
            _ => ("", ""),
        };
        let row = format!(
            r#"<tr class="{class}"><td><code>{}</code></td><td class="n">{}</td><td class="n">{}</td><td>{what}</td></tr>"#,
            escape(k),
            show(e),
            show(o)
        );
        if class.is_empty() {
            agreeing += 1;
            agree.push_str(&row);
        } else {
            differ.push_str(&row);
        }
    }
    let total = |m: &BTreeMap<String, u128>| m.values().sum::<u128>();
    let mut s = format!(
        r#"{head}{differ}<tr><th>total</th><td class="n">{}</td><td class="n">{}</td><td></td></tr></table>"#,
        total(theirs),
        total(ours)
    );
    if agreeing > 0 {
        let _ = write!(
            s,
            "<details class=\"agree\"><summary>{agreeing} move{} with the same count</summary>{head}{agree}</table></details>",
            if agreeing == 1 { "" } else { "s" }
        );
    }
    s
}

fn failure_html(out: &mut String, index: usize, f: &Failure, open: bool) {
    let picture = match Setup::from_fen(&f.fen) {
        Ok(setup) => board_svg(
            &setup,
            &Marks {
                last_move: f.path.last().cloned(),
                missing: f.missing.clone(),
                extra: f.extra.clone(),
                caption: None,
            },
        ),
        Err(e) => format!("<p>(no picture: {})</p>", escape(&e.to_string())),
    };
    let uci = if f.path.is_empty() {
        "(root)".to_string()
    } else {
        f.path.join(" ")
    };
    let san = if f.path.is_empty() {
        "(root)".to_string()
    } else {
        san_path(&f.root, &f.path).join(" ")
    };
    let _ = write!(
        out,
        r#"<details{}><summary>#{index} {} &#8212; path {} &#8212; depth {} &#8212; {} missing, {} extra</summary>"#,
        if open { " open" } else { "" },
        escape(&f.label),
        escape(&uci),
        f.failing_depth,
        f.missing.len(),
        f.extra.len()
    );
    let _ = write!(
        out,
        r#"<div class="failure">{picture}<div class="info"><dl>"#
    );
    let _ = write!(
        out,
        r#"<dt>root</dt><dd><code class="fen">{}</code></dd>"#,
        escape(&f.root)
    );
    let _ = write!(
        out,
        r#"<dt>path (UCI)</dt><dd><code>{}</code></dd><dt>path (SAN)</dt><dd><code>{}</code></dd>"#,
        escape(&uci),
        escape(&san)
    );
    let _ = write!(
        out,
        r#"<dt>failing position (FEN)</dt><dd><code class="fen">{}</code></dd><dt>failing depth</dt><dd>{}</dd>"#,
        escape(&f.fen),
        f.failing_depth
    );
    let _ = write!(
        out,
        r#"<dt>missing (green arrows)</dt><dd>{}</dd><dt>not legal (red arrows)</dt><dd>{}</dd>"#,
        list(&f.missing, "missing"),
        list(&f.extra, "extra")
    );
    // The divide table shows differing counts; without it, list them here.
    let counts: &[(String, u128, u128)] = if f.divides.is_some() {
        &[]
    } else {
        &f.wrong_counts
    };
    for (m, e, o) in counts {
        let _ = write!(
            out,
            r#"<dt>count</dt><dd><code class="differs">{}</code> engine {e}, perftlab {o}</dd>"#,
            escape(m)
        );
    }
    let _ = write!(out, "<dt>kinds</dt><dd>{}</dd>", escape(&f.kinds.join(" ")));
    if let Some(n) = &f.note {
        let _ = write!(out, "<dt>note</dt><dd>{}</dd>", escape(n));
    }
    out.push_str("</dl>");
    if f.divides.is_some() {
        let _ = write!(
            out,
            "<p>divide at the failing position, depth {}:</p>{}",
            f.failing_depth,
            divide_table(f)
        );
    }
    out.push_str("</div></div></details>\n");
}

/// The summary row of the engine's errors: its value is `N: message; message…` (see [`html`]'s verdict).
pub const ENGINE_ERRORS_ROW: &str = "engine errors";

/// The page (UTF-8 HTML5).
pub fn html(r: &Report) -> String {
    let mut groups: BTreeMap<String, Vec<(usize, &Failure)>> = BTreeMap::new();
    for (i, f) in r.failures.iter().enumerate() {
        groups.entry(f.group()).or_default().push((i + 1, f));
    }
    let mut s = String::with_capacity(64 * 1024 + r.failures.len() * 24 * 1024);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{CSS}</style></head><body>\n",
        escape(&r.title)
    );
    let _ = write!(
        s,
        "<h1>{}</h1>\n<table class=\"summary\">",
        escape(&r.title)
    );
    for (k, v) in &r.summary {
        let _ = write!(s, "<tr><td>{}</td><td>{}</td></tr>", escape(k), escape(v));
    }
    // A run where the engine failed on some positions did not compare them: never "no failures" then.
    let engine_errors = r
        .summary
        .iter()
        .find(|(k, _)| k == ENGINE_ERRORS_ROW)
        .map(|(_, v)| v.split(':').next().unwrap_or("").trim().to_string());
    let plural = |n: usize, one: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    let verdict = match (r.failures.len(), engine_errors) {
        (0, None) => r#"<span class="ok">no failures</span>"#.to_string(),
        (n, None) => format!(r#"<span class="bad">{}</span>"#, plural(n, "failure")),
        (n, Some(e)) => format!(
            r#"<span class="bad">{}, and the engine failed on {e} (those were not compared)</span>"#,
            plural(n, "failure")
        ),
    };
    let _ = writeln!(s, "<tr><td>result</td><td>{verdict}</td></tr></table>");
    if !groups.is_empty() {
        s.push_str("<nav>by kind: ");
        for (g, fs) in &groups {
            let _ = write!(
                s,
                "<a href=\"#kind-{}\">{} ({})</a>",
                anchor(g),
                escape(g),
                fs.len()
            );
        }
        s.push_str("</nav>\n");
    }
    for (g, fs) in &groups {
        let _ = writeln!(
            s,
            "<section id=\"kind-{}\"><h2>{} &#8212; {} failure{}</h2>",
            anchor(g),
            escape(g),
            fs.len(),
            if fs.len() == 1 { "" } else { "s" }
        );
        for (n, (index, f)) in fs.iter().enumerate() {
            failure_html(&mut s, *index, f, n < EXPANDED);
        }
        s.push_str("</section>\n");
    }
    s.push_str("</body></html>\n");
    s
}

fn anchor(group: &str) -> String {
    group
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
