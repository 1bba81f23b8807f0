//! perftlab in the browser: the WebAssembly exports behind `web/index.html` (docs/web.md).
//!
//! Everything here is a thin wrapper over the `perftlab` library, so the page counts, analyses and draws
//! exactly what the command line does:
//! - [`Counter`]: perft and divide on the fast CPU generator, one root move per call, so the page can show
//!   progress and yield to the browser (cancel) between root moves (`count`);
//! - [`analyze`]: what `perftlab analyze --json` prints (validity, check, pins, legal moves, outcome,
//!   reachability, both sides' winnability and the FIDE 1.5 dead-position verdict);
//! - [`board`]: the CLI's SVG board (`perftlab::render::board`);
//! - [`compare_pasted`]: the divide diff of `perftlab compare` against a divide pasted in Stockfish's `go
//!   perft` format (`paste`);
//! - with the `webgpu` feature, `GpuCounter` (`webgpu`): the same WGSL kernels on the browser's WebGPU.
//!
//! Numbers cross into JavaScript as decimal strings (counts are `u128`); results are JSON text.

mod count;
mod paste;
#[cfg(feature = "webgpu")]
mod webgpu;

pub use count::Counter;
#[cfg(feature = "webgpu")]
pub use webgpu::GpuCounter;

use perftlab::analyze;
use perftlab::render::board::{board_svg, Marks};
use perftlab::{Checked, Setup};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// A library error as a JavaScript `Error` carrying the library's message.
pub(crate) fn js_error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// Parse a FEN the way the command line does, trimming the text a user may paste around it.
pub(crate) fn setup(fen: &str) -> Result<Setup, JsError> {
    Setup::from_fen(fen.trim()).map_err(|e| js_error(perftlab::Error::from(e)))
}

/// Parse and check a FEN (validity errors refuse it, as `perft` does).
pub(crate) fn checked(fen: &str) -> Result<Checked, JsError> {
    Checked::from_fen(fen.trim()).map_err(js_error)
}

/// Whether moves are written in Chess960 notation (king takes rook): asked for, or needed by the position.
pub(crate) fn chess960_for(setup: &Setup, asked: bool) -> bool {
    asked || setup.needs_chess960_notation()
}

/// The library's version and the build's features, for the page's footer.
#[wasm_bindgen]
pub fn version() -> String {
    format!(
        "perftlab {} (wasm{}{})",
        env!("CARGO_PKG_VERSION"),
        if cfg!(target_feature = "simd128") {
            ", simd128"
        } else {
            ""
        },
        if cfg!(feature = "webgpu") {
            ", webgpu"
        } else {
            ""
        }
    )
}

/// Whether this module was built with the WebGPU path.
#[wasm_bindgen]
pub fn has_webgpu() -> bool {
    cfg!(feature = "webgpu")
}

/// The FEN of a position, normalised (`Err` with the parser's message, naming the field, when it is not a
/// FEN). Validity is not checked: an invalid position can still be analysed and drawn.
#[wasm_bindgen]
pub fn normalize_fen(fen: &str) -> Result<String, JsError> {
    Ok(setup(fen)?.to_fen())
}

/// `perftlab analyze --json` of `fen`: the analysis, both sides' winnability and the FIDE 1.5 verdict.
///
/// The dead-position search runs with a fixed node limit (1,000,000 per side, a third of the command line's
/// default, so that a hard position holds the tab for about a second at most) and no time limit (a browser's
/// wasm has no clock the library can read), so the verdict is the same on every machine.
#[wasm_bindgen]
pub fn analyze(fen: &str, chess960: bool) -> Result<String, JsError> {
    let root = setup(fen)?;
    let chess960 = chess960_for(&root, chess960);
    let mut analysis = analyze::analyze(std::slice::from_ref(&root), chess960);
    if let Ok(pos) = Checked::new(root) {
        let limits = analyze::dead::Limits {
            nodes: 1_000_000,
            time: None,
            ..Default::default()
        };
        let report = analyze::dead::dead_report(&pos, &limits, chess960).map_err(js_error)?;
        analyze::add_dead_position(&mut analysis, report);
    }
    serde_json::to_string(&analysis).map_err(js_error)
}

/// What to draw on the board besides the position (JSON, every field optional).
#[derive(Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct MarksIn {
    last_move: Option<String>,
    missing: Vec<String>,
    extra: Vec<String>,
    caption: Option<String>,
}

/// The command line's SVG board of `fen` with `marks` (JSON: `last_move`, `missing`, `extra`, `caption`;
/// empty text for none): checkers, pins, the last move, green arrows for moves an engine is missing and red
/// ones for moves it gives that are not legal.
#[wasm_bindgen]
pub fn board(fen: &str, marks: &str) -> Result<String, JsError> {
    let s = setup(fen)?;
    let m: MarksIn = if marks.trim().is_empty() {
        MarksIn::default()
    } else {
        serde_json::from_str(marks).map_err(|e| js_error(format!("board marks: {e}")))?
    };
    Ok(board_svg(
        &s,
        &Marks {
            last_move: m.last_move,
            missing: m.missing,
            extra: m.extra,
            caption: m.caption,
        },
    ))
}

/// The FEN after playing `mv` (UCI in either castling notation, or SAN) in `fen`.
#[wasm_bindgen]
pub fn play(fen: &str, mv: &str) -> Result<String, JsError> {
    let pos = checked(fen)?;
    let line = perftlab::line::play_line(&pos, &[mv.trim().to_string()]).map_err(js_error)?;
    Ok(line.end().to_fen())
}

/// Compare the divide pasted in `pasted` (Stockfish's `go perft` output: `e2e4: 20` lines and `Nodes
/// searched: N`) with perftlab's at `depth`, by the divide diff of `perftlab compare` (JSON as `compare
/// --json`: `agree`, `missing`, `extra`, `wrong_counts`, ...). A pasted divide has no deeper levels, so a
/// wrong count is reported at the root (with `engine_error` saying why the drill-down stopped there).
#[wasm_bindgen]
pub fn compare_pasted(
    fen: &str,
    depth: u32,
    pasted: &str,
    chess960: bool,
) -> Result<String, JsError> {
    let pos = checked(fen)?;
    let chess960 = chess960_for(&pos, chess960);
    let comparison = paste::compare(&pos, depth, pasted, chess960).map_err(js_error)?;
    serde_json::to_string(&comparison).map_err(js_error)
}
