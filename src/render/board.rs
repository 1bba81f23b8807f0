//! A self-contained SVG picture of a position: the pieces (simple shapes drawn as inline SVG paths, so no
//! font or image is needed), coordinates, the side to move, the last move of the path, the checking pieces
//! and the king they attack (FIDE 3.9), the pinned pieces, and arrows for moves: green for moves an engine
//! is missing, red for moves it gives that are not legal.
//!
//! White is always at the bottom. Every piece is a `<g class="piece" data-piece="K" data-square="e1">`
//! and every arrow a `<polygon class="arrow missing|extra" data-move="e2e4">`, so tests and scripts can read
//! the picture back. Text (coordinates, legend) uses the generic `sans-serif` family with ASCII only.

use super::escape;
use crate::analyze;
use crate::engines::looks_like_uci;
use crate::position::Setup;
use crate::reference;
use crate::types::{Color, Role, Square};
use crate::validate;
use std::fmt::Write;

/// Side of one square in SVG units.
const SQ: f64 = 50.0;
/// Left margin (rank numbers).
const LEFT: f64 = 22.0;
/// Top margin.
const TOP: f64 = 8.0;
/// Light and dark squares.
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
/// Colours of the marks.
const LAST_MOVE: &str = "#e9e335";
const CHECK: &str = "#e0301e";
const PIN: &str = "#1d5fd1";
const MISSING: &str = "#16a34a";
const EXTRA: &str = "#dc2626";

/// What to draw on top of the position.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    /// The last move played to reach the position (UCI), highlighted on its two squares.
    pub last_move: Option<String>,
    /// Moves the engine is missing (UCI): green arrows.
    pub missing: Vec<String>,
    /// Moves the engine gives that are not legal (UCI): red arrows.
    pub extra: Vec<String>,
    /// A line of text under the board (the FEN, say).
    pub caption: Option<String>,
}

/// The squares of a UCI move text, if it looks like one.
fn squares(text: &str) -> Option<(Square, Square)> {
    looks_like_uci(text).then(|| {
        (
            Square::parse(&text[0..2]).expect("checked"),
            Square::parse(&text[2..4]).expect("checked"),
        )
    })
}

/// Top-left corner of a square (White at the bottom).
fn corner(sq: Square) -> (f64, f64) {
    (
        LEFT + f64::from(sq.file()) * SQ,
        TOP + f64::from(7 - sq.rank()) * SQ,
    )
}

fn centre(sq: Square) -> (f64, f64) {
    let (x, y) = corner(sq);
    (x + SQ / 2.0, y + SQ / 2.0)
}

/// The shapes of a piece in a 100×100 box; `detail` is the colour of inner lines (eye, mitre slit).
fn piece_shapes(role: Role, detail: &str) -> String {
    match role {
        Role::Pawn => concat!(
            r#"<circle cx="50" cy="32" r="13"/>"#,
            r#"<path d="M36,80 C36,64 42,54 50,50 C58,54 64,64 64,80 Z"/>"#,
            r#"<rect x="26" y="78" width="48" height="10" rx="3"/>"#
        )
        .to_string(),
        Role::Rook => concat!(
            r#"<path d="M31,80 L34,42 L66,42 L69,80 Z"/>"#,
            r#"<path d="M26,42 L26,18 L36,18 L36,27 L45,27 L45,18 L55,18 L55,27 L64,27 L64,18 L74,18 L74,42 Z"/>"#,
            r#"<rect x="22" y="78" width="56" height="10" rx="3"/>"#
        )
        .to_string(),
        Role::Knight => format!(
            concat!(
                r#"<path d="M28,88 L76,88 C78,62 74,40 61,28 L59,14 L51,23 L45,15 L42,27 "#,
                r#"C33,32 25,44 21,56 C19,64 27,68 32,63 C36,59 42,58 49,53 C49,66 36,74 28,88 Z"/>"#,
                r#"<circle cx="43" cy="37" r="4" fill="{d}" stroke="none"/>"#
            ),
            d = detail
        ),
        Role::Bishop => format!(
            concat!(
                r#"<circle cx="50" cy="14" r="6"/>"#,
                r#"<path d="M50,21 C65,32 69,50 61,66 L39,66 C31,50 35,32 50,21 Z"/>"#,
                r#"<path d="M55,34 L45,48" fill="none" stroke="{d}"/>"#,
                r#"<rect x="36" y="65" width="28" height="10" rx="2"/>"#,
                r#"<rect x="22" y="78" width="56" height="10" rx="3"/>"#
            ),
            d = detail
        ),
        Role::Queen => concat!(
            r#"<path d="M24,78 L13,34 L31,56 L33,22 L44,52 L50,15 L56,52 L67,22 L69,56 L87,34 L76,78 Z"/>"#,
            r#"<circle cx="13" cy="32" r="5"/><circle cx="33" cy="20" r="5"/><circle cx="50" cy="13" r="5"/>"#,
            r#"<circle cx="67" cy="20" r="5"/><circle cx="87" cy="32" r="5"/>"#,
            r#"<rect x="22" y="76" width="56" height="12" rx="3"/>"#
        )
        .to_string(),
        Role::King => concat!(
            r#"<path d="M46,6 L54,6 L54,14 L62,14 L62,22 L54,22 L54,34 L46,34 L46,22 L38,22 L38,14 L46,14 Z"/>"#,
            r#"<path d="M26,78 C13,60 21,40 38,42 C44,42 48,46 50,50 C52,46 56,42 62,42 C79,40 87,60 74,78 Z"/>"#,
            r#"<rect x="23" y="76" width="54" height="12" rx="3"/>"#
        )
        .to_string(),
    }
}

/// One arrow (a polygon: shaft and head) from the centre of `from` to the centre of `to`.
fn arrow(from: Square, to: Square) -> String {
    let (x1, y1) = centre(from);
    let (x2, y2) = centre(to);
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    let (shaft, head_w, head_l) = (4.0, 11.0, 17.0);
    // Start a little off the origin's centre, end at the target's centre.
    let (sx, sy) = (x1 + ux * 8.0, y1 + uy * 8.0);
    let (bx, by) = (x2 - ux * head_l, y2 - uy * head_l);
    let pts = [
        (sx + nx * shaft, sy + ny * shaft),
        (bx + nx * shaft, by + ny * shaft),
        (bx + nx * head_w, by + ny * head_w),
        (x2, y2),
        (bx - nx * head_w, by - ny * head_w),
        (bx - nx * shaft, by - ny * shaft),
        (sx - nx * shaft, sy - ny * shaft),
    ];
    pts.iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The arrows of one colour, one per (from, to) pair; promotions to several pieces share an arrow labelled
/// with their letters.
fn arrows(out: &mut String, moves: &[String], class: &str, colour: &str) {
    let mut groups: Vec<((Square, Square), Vec<String>, String)> = Vec::new();
    for m in moves {
        let Some(sqs) = squares(m) else { continue };
        match groups.iter_mut().find(|g| g.0 == sqs) {
            Some(g) => {
                g.1.push(m.clone());
                g.2.push_str(&m[4..]);
            }
            None => groups.push((sqs, vec![m.clone()], m[4..].to_string())),
        }
    }
    for ((from, to), texts, promos) in groups {
        let _ = write!(
            out,
            r##"<polygon class="arrow {class}" data-move="{}" points="{}" fill="{colour}" fill-opacity="0.8" stroke="#fff" stroke-width="1" stroke-opacity="0.6"><title>{class}: {}</title></polygon>"##,
            escape(&texts.join(" ")),
            arrow(from, to),
            escape(&texts.join(" "))
        );
        if !promos.is_empty() {
            let (x, y) = centre(to);
            let _ = write!(
                out,
                r##"<text x="{:.1}" y="{:.1}" font-family="sans-serif" font-size="13" font-weight="bold" fill="{colour}" stroke="#fff" stroke-width="3" paint-order="stroke">{}</text>"##,
                x + 8.0,
                y - 10.0,
                escape(&promos)
            );
        }
    }
}

/// The SVG picture of `setup` with `marks` (a complete, standalone SVG document; also valid inline in HTML).
/// Checkers and pinned pieces are marked when the position is valid (FIDE 3.10.3).
pub fn board_svg(setup: &Setup, marks: &Marks) -> String {
    board_svg_shaded(setup, marks, None)
}

/// [`board_svg`] with squares shaded as out of reach (`unreachable`: a side and a bitboard, bit 0 = a1): in a
/// blocked structure, the squares the defending side's pieces can never reach (FIDE 1.5,
/// `analyze::dead::fortress`), each a `<rect class="unreachable" data-side="…" data-square="…">`.
pub fn board_svg_shaded(setup: &Setup, marks: &Marks, unreachable: Option<(Color, u64)>) -> String {
    let board = 8.0 * SQ;
    let width = LEFT + board + 34.0;
    let legend_y = TOP + board + 38.0;
    let height = legend_y + if marks.caption.is_some() { 40.0 } else { 26.0 };
    let mut s = String::with_capacity(16 * 1024);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" class="board" role="img">"#
    );
    let _ = write!(
        s,
        "<title>{}</title>",
        escape(&format!("chess position {}", setup.to_fen()))
    );
    let _ = write!(
        s,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    // Squares.
    for sq in Square::all() {
        let (x, y) = corner(sq);
        let colour = if (sq.file() + sq.rank()) % 2 == 0 {
            DARK
        } else {
            LIGHT
        };
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{y}" width="{SQ}" height="{SQ}" fill="{colour}"/>"#
        );
    }
    // Out of the defender's reach (a fortress).
    if let Some((side, squares)) = unreachable {
        for sq in Square::all().filter(|sq| squares >> sq.index() & 1 != 0) {
            let (x, y) = corner(sq);
            let _ = write!(
                s,
                r##"<rect class="unreachable" data-side="{}" data-square="{sq}" x="{x}" y="{y}" width="{SQ}" height="{SQ}" fill="#404040" fill-opacity="0.45"/>"##,
                side.name()
            );
        }
    }
    // Last move.
    if let Some((from, to)) = marks.last_move.as_deref().and_then(squares) {
        for sq in [from, to] {
            let (x, y) = corner(sq);
            let _ = write!(
                s,
                r#"<rect class="last-move" data-square="{sq}" x="{x}" y="{y}" width="{SQ}" height="{SQ}" fill="{LAST_MOVE}" fill-opacity="0.55"/>"#
            );
        }
    }
    // Check and pins, only where they are well defined.
    let (mut checkers, mut pinned, mut checked_king) = (Vec::new(), Vec::new(), None);
    if validate::check(setup).is_ok() {
        checkers = reference::Mailbox::from_setup(setup).checkers();
        pinned = analyze::pinned(setup);
        if !checkers.is_empty() {
            checked_king = setup.kings(setup.turn).first().copied();
        }
    }
    if let Some(k) = checked_king {
        let (x, y) = centre(k);
        let _ = write!(
            s,
            r#"<circle class="in-check" data-square="{k}" cx="{x}" cy="{y}" r="{}" fill="{CHECK}" fill-opacity="0.6"/>"#,
            SQ * 0.48
        );
    }
    for sq in &checkers {
        let (x, y) = corner(*sq);
        let _ = write!(
            s,
            r#"<rect class="checker" data-square="{sq}" x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{CHECK}" stroke-width="4"/>"#,
            x + 2.0,
            y + 2.0,
            SQ - 4.0,
            SQ - 4.0
        );
    }
    for sq in &pinned {
        let (x, y) = corner(*sq);
        let _ = write!(
            s,
            r#"<rect class="pinned" data-square="{sq}" x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{PIN}" stroke-width="4" stroke-dasharray="7 4"/>"#,
            x + 2.0,
            y + 2.0,
            SQ - 4.0,
            SQ - 4.0
        );
    }
    // Pieces.
    for sq in Square::all() {
        let Some(p) = setup.piece_at(sq) else {
            continue;
        };
        let (x, y) = corner(sq);
        let (fill, detail) = match p.color {
            Color::White => ("#ffffff", "#000000"),
            Color::Black => ("#262626", "#ffffff"),
        };
        let _ = write!(
            s,
            r##"<g class="piece" data-piece="{}" data-square="{sq}" transform="translate({x} {y}) scale({})" fill="{fill}" stroke="#000000" stroke-width="4" stroke-linejoin="round"><title>{} {} {sq}</title>{}</g>"##,
            p.char(),
            SQ / 100.0,
            p.color.name(),
            p.role.name(),
            piece_shapes(p.role, detail)
        );
    }
    // Arrows over the pieces.
    arrows(&mut s, &marks.missing, "missing", MISSING);
    arrows(&mut s, &marks.extra, "extra", EXTRA);
    // Coordinates.
    for i in 0..8u8 {
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-family="sans-serif" font-size="13" text-anchor="middle" fill="#333">{}</text>"##,
            LEFT + f64::from(i) * SQ + SQ / 2.0,
            TOP + board + 15.0,
            (b'a' + i) as char
        );
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-family="sans-serif" font-size="13" text-anchor="middle" fill="#333">{}</text>"##,
            LEFT / 2.0,
            TOP + f64::from(7 - i) * SQ + SQ / 2.0 + 5.0,
            i + 1
        );
    }
    // Side to move: a disc beside the mover's side of the board.
    let (disc_y, fill) = match setup.turn {
        Color::White => (TOP + board - SQ / 2.0, "#ffffff"),
        Color::Black => (TOP + SQ / 2.0, "#262626"),
    };
    let _ = write!(
        s,
        r##"<circle class="to-move" data-side="{}" cx="{}" cy="{disc_y}" r="10" fill="{fill}" stroke="#000" stroke-width="2"><title>{} to move</title></circle>"##,
        setup.turn.name(),
        LEFT + board + 17.0,
        setup.turn.name()
    );
    // Legend.
    let items = [
        (LAST_MOVE, "last move"),
        (CHECK, "check"),
        (PIN, "pinned"),
        (MISSING, "missing move"),
        (EXTRA, "illegal move"),
    ];
    let mut x = LEFT;
    for (colour, label) in items {
        let _ = write!(
            s,
            r##"<rect x="{x}" y="{}" width="11" height="11" fill="{colour}"/><text x="{}" y="{legend_y}" font-family="sans-serif" font-size="11" fill="#333">{label}</text>"##,
            legend_y - 9.0,
            x + 15.0
        );
        x += 15.0 + 6.0 * label.len() as f64 + 12.0;
    }
    let _ = write!(
        s,
        r##"<text class="side-to-move" x="{LEFT}" y="{}" font-family="sans-serif" font-size="12" font-weight="bold" fill="#333">{} to move</text>"##,
        legend_y + 18.0,
        setup.turn.name()
    );
    if let Some((side, _)) = unreachable {
        let _ = write!(
            s,
            r##"<text class="unreachable-legend" x="{}" y="{}" font-family="sans-serif" font-size="11" fill="#333">shaded: squares {}'s pieces can never reach</text>"##,
            LEFT + 120.0,
            legend_y + 18.0,
            side.name()
        );
    }
    if let Some(c) = &marks.caption {
        let _ = write!(
            s,
            r##"<text class="caption" x="{LEFT}" y="{}" font-family="monospace" font-size="10" fill="#333">{}</text>"##,
            legend_y + 34.0,
            escape(c)
        );
    }
    s.push_str("</svg>\n");
    s
}
