//! Pictures: the SVG board is well-formed XML with every piece on its FEN square and the marks (check,
//! pins, last move, arrows) where they belong; the HTML report is self-contained and grouped; `analyze
//! --svg` and `bench --plot` write valid SVG.

mod common;

use common::perftlab;
use perftlab::position::Setup;
use perftlab::render::board::{board_svg, Marks};
use perftlab::render::report::{self, Failure, Report};
use std::collections::BTreeMap;

/// The pieces of a FEN's placement field, read independently of perftlab: square name → piece letter.
fn fen_pieces(fen: &str) -> BTreeMap<String, char> {
    let mut out = BTreeMap::new();
    let placement = fen.split(' ').next().unwrap();
    for (row, text) in placement.split('/').enumerate() {
        let rank = 8 - row;
        let mut file = 0u8;
        for c in text.chars() {
            if let Some(n) = c.to_digit(10) {
                file += n as u8;
            } else {
                out.insert(format!("{}{rank}", (b'a' + file) as char), c);
                file += 1;
            }
        }
    }
    out
}

/// `data-*` attribute pairs of the elements of one class.
fn marked(doc: &roxmltree::Document, class: &str, attr: &str) -> Vec<String> {
    let mut v: Vec<String> = doc
        .descendants()
        .filter(|n| {
            n.attribute("class")
                .is_some_and(|c| c.split(' ').any(|w| w == class))
        })
        .filter_map(|n| n.attribute(attr).map(str::to_string))
        .collect();
    v.sort();
    v
}

fn pieces_of(doc: &roxmltree::Document) -> BTreeMap<String, char> {
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("piece"))
        .map(|n| {
            (
                n.attribute("data-square").unwrap().to_string(),
                n.attribute("data-piece").unwrap().chars().next().unwrap(),
            )
        })
        .collect()
}

#[test]
fn board_is_well_formed_with_every_piece_on_its_square() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
    ] {
        let setup = Setup::from_fen(fen).unwrap();
        let svg = board_svg(
            &setup,
            &Marks {
                caption: Some(format!("<{fen}> & \"quotes\"")),
                ..Marks::default()
            },
        );
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        assert_eq!(
            doc.root_element().tag_name().namespace(),
            Some("http://www.w3.org/2000/svg")
        );
        assert_eq!(pieces_of(&doc), fen_pieces(fen), "{fen}");
        // Self-contained: nothing fetched from elsewhere.
        assert!(!svg.contains("href") && !svg.contains("url("), "{svg}");
        let side = if fen.contains(" w ") {
            "white"
        } else {
            "black"
        };
        assert_eq!(marked(&doc, "to-move", "data-side"), [side]);
        // The caption is escaped text, not markup.
        let caption = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("caption"))
            .unwrap();
        assert_eq!(
            caption.text(),
            Some(format!("<{fen}> & \"quotes\"").as_str())
        );
    }
}

#[test]
fn board_marks_check_pins_last_move_and_arrows() {
    // White king e1 in check from the rook on h1; the d2 pawn is pinned by the bishop on b4.
    let setup = Setup::from_fen("4k3/8/8/8/1b6/8/3P4/R3K2r w - - 0 1").unwrap();
    let svg = board_svg(
        &setup,
        &Marks {
            last_move: Some("h8h1".into()),
            missing: vec!["e1f2".into(), "e1d1".into()],
            extra: vec!["d2d3".into(), "e1c1".into(), "garbage".into()],
            caption: None,
        },
    );
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    assert_eq!(marked(&doc, "checker", "data-square"), ["h1"]);
    assert_eq!(marked(&doc, "in-check", "data-square"), ["e1"]);
    assert_eq!(marked(&doc, "pinned", "data-square"), ["d2"]);
    assert_eq!(marked(&doc, "last-move", "data-square"), ["h1", "h8"]);
    assert_eq!(marked(&doc, "missing", "data-move"), ["e1d1", "e1f2"]);
    // A text that is not a move gets no arrow.
    assert_eq!(marked(&doc, "extra", "data-move"), ["d2d3", "e1c1"]);
    for n in doc.descendants().filter(|n| n.has_tag_name("polygon")) {
        let colour = n.attribute("fill").unwrap();
        match n.attribute("class").unwrap() {
            "arrow missing" => assert_eq!(colour, "#16a34a"),
            "arrow extra" => assert_eq!(colour, "#dc2626"),
            other => panic!("unexpected polygon {other}"),
        }
    }
    // An invalid position (no black king) is still drawn, without check or pin marks.
    let svg = board_svg(
        &Setup::from_fen("8/8/8/8/8/8/8/4K2r w - - 0 1").unwrap(),
        &Marks::default(),
    );
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert!(marked(&doc, "checker", "data-square").is_empty());
    assert_eq!(pieces_of(&doc).len(), 2);
}

fn failure(i: usize, kinds: &[&str]) -> Failure {
    Failure {
        label: format!("position {i}"),
        root: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
        path: vec!["e2e4".into(), "d7d5".into(), "e4e5".into(), "f7f5".into()],
        fen: "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3".into(),
        failing_depth: 1,
        missing: vec!["e5f6".into()],
        extra: vec!["e5e6x".into()],
        wrong_counts: vec![],
        kinds: kinds.iter().map(|k| k.to_string()).collect(),
        divides: Some((
            [("e5e6".to_string(), 1u128), ("a2a3".into(), 1)].into(),
            [("e5f6".to_string(), 1u128), ("a2a3".into(), 1)].into(),
        )),
        note: None,
    }
}

#[test]
fn report_is_self_contained_grouped_and_mostly_collapsed() {
    let mut failures: Vec<Failure> = (0..40).map(|i| failure(i, &["en_passant"])).collect();
    failures.push(failure(40, &["castling", "pin"]));
    let html = report::html(&Report {
        title: "perftlab stress <test>".into(),
        summary: vec![("engine".into(), "fake & broken".into())],
        failures,
    });
    assert!(html.starts_with("<!DOCTYPE html>"));
    let stripped = html.replace(r#"xmlns="http://www.w3.org/2000/svg""#, "");
    assert!(
        !stripped.contains("<script") && !stripped.contains("src=") && !stripped.contains("http:")
    );
    assert!(!stripped.contains("https:") && !stripped.contains("<link"));
    assert!(html.contains("perftlab stress &lt;test&gt;") && html.contains("fake &amp; broken"));
    // Two groups; the first 3 of each open.
    assert!(html.contains("en_passant &#8212; 40 failures"));
    assert!(html.contains("castling + pin &#8212; 1 failure<"));
    assert_eq!(html.matches("<details open>").count(), 4);
    assert_eq!(html.matches("<details>").count(), 37);
    // Each failure has its board (with the green and red arrows), both paths, the selectable FEN and the
    // divide side by side.
    assert_eq!(html.matches("<svg ").count(), 41);
    assert!(html.contains(r#"class="arrow missing" data-move="e5f6""#));
    assert!(html.contains("1.e4 d5 2.e5 f5"), "SAN path");
    assert!(html.contains(
        r#"<code class="fen">rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3</code>"#
    ));
    assert!(html.contains(
        r#"<tr class="missing"><td><code>e5f6</code></td><td class="n">-</td><td class="n">1</td>"#
    ));
    assert!(html.contains(
        r#"<tr class="extra"><td><code>e5e6</code></td><td class="n">1</td><td class="n">-</td>"#
    ));
}

fn svg_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("perftlab-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn analyze_svg_writes_the_position_after_the_moves() {
    let path = svg_file("analyze.svg");
    let out = perftlab()
        .args([
            "analyze", "--moves", "e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#", "--svg",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let svg = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let pieces = pieces_of(&doc);
    assert_eq!(pieces.get("f7"), Some(&'Q'));
    assert_eq!(marked(&doc, "checker", "data-square"), ["f7"]);
    assert_eq!(marked(&doc, "in-check", "data-square"), ["e8"]);
    assert_eq!(marked(&doc, "last-move", "data-square"), ["f7", "h5"]);
    // An unwritable path is a usage error naming the flag.
    let out = perftlab()
        .args(["analyze", "--svg", "/nonexistent-dir/x.svg"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--svg"));
}

#[test]
fn bench_plot_writes_valid_svg() {
    let path = svg_file("bench.svg");
    let out = perftlab()
        .args(["bench", "--quick", "--backend", "cpu", "--plot"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let svg = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    for name in ["start", "kiwipete", "pos3", "pos4", "pos5", "pos6", "total"] {
        assert!(texts.contains(&name), "label {name} in {texts:?}");
    }
    // Seven bars (filled rects in perftlab's colour).
    let bars = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#2563EB"))
        .count();
    assert_eq!(bars, 7 + 1, "seven bars and the legend swatch");

    let path = svg_file("depths.svg");
    let out = perftlab()
        .args([
            "bench",
            "--depths",
            "1..4",
            "--position",
            "kiwipete",
            "--plot",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let svg = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    assert!(doc.descendants().any(|n| n.has_tag_name("polyline")));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("4085603"), "{text}");

    for (args, flag) in [
        (vec!["bench", "--depths", "3..1"], "--depths"),
        (vec!["bench", "--depths", "x"], "--depths"),
        (vec!["bench", "--depths", "1..9"], "--depths"),
        (
            vec!["bench", "--depths", "1..2", "--position", "nowhere"],
            "--position",
        ),
    ] {
        let out = perftlab().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(flag),
            "{args:?}"
        );
    }
}

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_engine.py");

#[test]
fn stress_report_shows_each_failing_board_with_its_arrows() {
    let (html, svg) = (svg_file("stress.html"), svg_file("stress.svg"));
    let out = perftlab()
        .args([
            "stress",
            "--engine",
            &format!("python3 {FAKE} --bug castle-attacked --bug pin"),
            "--positions",
            "30",
            "--depth",
            "2",
            "--seed",
            "3",
            "--quiet",
            "--json",
            "--report",
        ])
        .arg(&html)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let failures = json["failures"].as_array().unwrap();
    assert!(!failures.is_empty());
    let page = std::fs::read_to_string(&html).unwrap();
    // One board per failure, each with a red arrow per illegal move it gives (grouped promotions aside).
    assert_eq!(page.matches("<svg ").count(), failures.len());
    for f in failures {
        assert!(page.contains(&format!(
            r#"<code class="fen">{}</code>"#,
            f["fen"].as_str().unwrap()
        )));
        for m in f["extra"].as_array().unwrap() {
            let m = m.as_str().unwrap();
            assert!(page.contains(&format!(r#"data-move="{m}""#)), "{m}");
            assert!(page.contains(&format!(r#"<tr class="extra"><td><code>{m}</code>"#)));
        }
    }
    assert!(page.contains("<details open>"));
    // --svg: the first failure's board, parsed back.
    let doc_text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&doc_text).unwrap();
    let first = &failures[0];
    assert_eq!(pieces_of(&doc), fen_pieces(first["fen"].as_str().unwrap()));
    let mut extra: Vec<String> = first["extra"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    extra.sort();
    assert_eq!(marked(&doc, "extra", "data-move"), extra);
}

#[test]
fn compare_svg_draws_the_minimal_failing_position() {
    let svg = svg_file("compare.svg");
    let out = perftlab()
        .args([
            "compare",
            "--engine",
            &format!("python3 {FAKE} --bug no-underpromotion"),
            "--fen",
            "8/P7/8/8/8/8/8/k6K b - - 0 1",
            "--depth",
            "3",
            "--quiet",
            "--svg",
        ])
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let doc_text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&doc_text).unwrap();
    // The promotions missing: one green arrow a7a8, labelled with the three letters.
    assert_eq!(marked(&doc, "missing", "data-move"), ["a7a8b a7a8n a7a8r"]);
    assert_eq!(marked(&doc, "to-move", "data-side"), ["white"]);
    assert_eq!(marked(&doc, "last-move", "data-square").len(), 2);
}

#[test]
fn suite_report_lists_wrong_counts_and_unwritable_paths_fail_first() {
    let dir = svg_file("suite");
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("wrong.epd");
    // The second count is deliberately wrong (the CPW says 400).
    std::fs::write(
        &suite,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n",
    )
    .unwrap();
    let html = dir.join("suite.html");
    let out = perftlab()
        .arg("suite")
        .arg(&suite)
        .arg("--report")
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("depth 2: expected 401"), "{page}");
    assert!(page.contains("wrong count &#8212; 1 failure<"));
    // An unwritable report path is refused before anything runs.
    let out = perftlab()
        .args([
            "stress",
            "--engine",
            "no-such-engine-binary",
            "--report",
            "/nonexistent-dir/r.html",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--report"));
}
