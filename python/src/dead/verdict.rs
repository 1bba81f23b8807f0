//! The answers of `dead` and `reachable` ([`Verdict`], made from the thread-free [`VerdictData`]), the two
//! deciders behind them, and `analyze`.

use super::replay_failed;
use crate::errors::{self, type_name};
use crate::{convert, run_long};
use perftlab::analyze::dead::{self as deadpos, Limits, SideReport};
use perftlab::proofgame::{self, DecideOptions, Verdict as Reach};
use perftlab::types::Color;
use perftlab::{Checked, Setup};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// A verdict as computed (no Python objects, so it can be made on a worker thread).
#[derive(Clone, Debug)]
pub struct VerdictData {
    fen: String,
    side: Option<&'static str>,
    result: &'static str,
    helpmate: Option<Vec<String>>,
    game: Option<Vec<String>>,
    start: Option<String>,
    reason: Option<String>,
    nodes: Option<u64>,
}

/// The answer of `dead`, `dead_many`, `reachable` and `reachable_many`.
#[pyclass(frozen, module = "perftlab._native")]
pub struct Verdict {
    data: VerdictData,
    as_moves: bool,
}

impl Verdict {
    /// The Python object of `data` (moves as `chess.Move` when `as_moves`; python-chess is checked now).
    pub fn new(py: Python<'_>, data: VerdictData, as_moves: bool) -> PyResult<Verdict> {
        if as_moves {
            convert::chess_move(py, "0000")?;
        }
        Ok(Verdict { data, as_moves })
    }

    fn moves<'py>(
        &self,
        py: Python<'py>,
        m: &Option<Vec<String>>,
    ) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
        m.as_ref()
            .map(|m| convert::moves_out(py, m, self.as_moves))
            .transpose()
    }
}

#[pymethods]
impl Verdict {
    /// The position, as given (FEN).
    #[getter]
    fn fen(&self) -> &str {
        &self.data.fen
    }
    /// The intended winner ("white"/"black"), the side that can mate when both were asked and one can, or
    /// None.
    #[getter]
    fn side(&self) -> Option<&'static str> {
        self.data.side
    }
    /// "winnable", "unwinnable" or "undetermined" (dead); "reachable", "impossible" or "undetermined".
    #[getter]
    fn result(&self) -> &'static str {
        self.data.result
    }
    /// The helpmate (UCI strings, or chess.Move), ending in checkmate, when winnable; else None.
    #[getter]
    fn helpmate<'py>(&self, py: Python<'py>) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
        self.moves(py, &self.data.helpmate)
    }
    /// The proof game from `start` (UCI strings, or chess.Move), when reachable; else None.
    #[getter]
    fn game<'py>(&self, py: Python<'py>) -> PyResult<Option<Vec<Bound<'py, PyAny>>>> {
        self.moves(py, &self.data.game)
    }
    /// The start of the proof game (FEN), when reachable.
    #[getter]
    fn start(&self) -> Option<&str> {
        self.data.start.as_deref()
    }
    /// The proof (unwinnable, impossible) or why the question stays open (undetermined).
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.data.reason.as_deref()
    }
    /// Positions the dead-position search visited (None for reachability).
    #[getter]
    fn nodes(&self) -> Option<u64> {
        self.data.nodes
    }
    /// The verdict as a dict of plain values (moves as UCI strings): a row for a DataFrame or Parquet.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let v = &self.data;
        d.set_item("fen", &v.fen)?;
        d.set_item("side", v.side)?;
        d.set_item("result", v.result)?;
        d.set_item("helpmate", v.helpmate.as_ref().map(|m| m.join(" ")))?;
        d.set_item("game", v.game.as_ref().map(|m| m.join(" ")))?;
        d.set_item("reason", &v.reason)?;
        d.set_item("nodes", v.nodes)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        let v = &self.data;
        let detail = match (&v.helpmate, &v.game, &v.reason) {
            (Some(h), _, _) => format!(", helpmate={h:?}"),
            (_, Some(g), _) => format!(", game={g:?}"),
            (_, _, Some(r)) => format!(", reason={r:?}"),
            _ => String::new(),
        };
        let side = v.side.map(|s| format!(", side={s:?}")).unwrap_or_default();
        let nodes = v.nodes.map(|n| format!(", nodes={n}")).unwrap_or_default();
        format!("Verdict(result={:?}{side}{detail}{nodes})", v.result)
    }
}

/// One side's report as data.
fn side_data(fen: &str, side: Option<Color>, r: SideReport) -> VerdictData {
    VerdictData {
        fen: fen.to_string(),
        side: side.map(|c| c.name()),
        result: r.result,
        helpmate: r.helpmate,
        game: None,
        start: None,
        reason: r.reason,
        nodes: Some(r.nodes),
    }
}

/// Winnability of `side` (both sides when None: FIDE 1.5) in `pos`.
pub fn winnability(
    fen: &str,
    pos: &Checked,
    side: Option<Color>,
    limits: &Limits,
) -> perftlab::Result<VerdictData> {
    let chess960 = pos.needs_chess960_notation();
    if let Some(c) = side {
        return Ok(side_data(
            fen,
            Some(c),
            deadpos::decide(pos, c, limits)?.report(chess960),
        ));
    }
    let w = deadpos::decide(pos, Color::White, limits)?.report(chess960);
    if w.result == "winnable" {
        return Ok(side_data(fen, Some(Color::White), w));
    }
    let b = deadpos::decide(pos, Color::Black, limits)?.report(chess960);
    let nodes = w.nodes + b.nodes;
    if b.result == "winnable" {
        let mut d = side_data(fen, Some(Color::Black), b);
        d.nodes = Some(nodes);
        return Ok(d);
    }
    let (rw, rb) = (w.reason.unwrap_or_default(), b.reason.unwrap_or_default());
    let both_unwinnable = w.result == "unwinnable" && b.result == "unwinnable";
    Ok(VerdictData {
        fen: fen.to_string(),
        side: None,
        result: if both_unwinnable {
            "unwinnable"
        } else {
            "undetermined"
        },
        helpmate: None,
        game: None,
        start: None,
        reason: Some(if both_unwinnable && rw == rb {
            rw
        } else {
            format!("white: {rw}; black: {rb}")
        }),
        nodes: Some(nodes),
    })
}

/// Reachability of `pos`; a proof game is replayed by the reference generator before it is returned.
pub fn reach(fen: &str, pos: &Checked, opts: &DecideOptions) -> perftlab::Result<VerdictData> {
    let mut opts = opts.clone();
    opts.chess960 = pos.needs_chess960_notation();
    let mut data = VerdictData {
        fen: fen.to_string(),
        side: None,
        result: "",
        helpmate: None,
        game: None,
        start: None,
        reason: None,
        nodes: None,
    };
    let verdict = proofgame::decide(pos.setup(), &opts);
    data.result = verdict.name();
    match verdict {
        Reach::Reachable(g) => {
            let end = proofgame::replay(&g.start, &g.moves)
                .map_err(|i| replay_failed(&format!("move {i} of the proof game is not legal")))?;
            if !proofgame::matches(end.last().expect("a replay holds its start"), pos.setup()) {
                return Err(replay_failed("the proof game does not reach the position"));
            }
            data.game = Some(g.moves.iter().map(|m| m.to_uci(opts.chess960)).collect());
            data.start = Some(g.start.to_fen());
        }
        Reach::Impossible(p) => data.reason = Some(p.to_string()),
        Reach::Undetermined(r) => data.reason = Some(r),
    }
    Ok(data)
}

/// A move argument: UCI or SAN text, or an object with a `.uci()` method (a `chess.Move`).
fn move_text(m: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = m.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if let Ok(uci) = m.call_method0("uci") {
        return Ok(uci.str()?.to_cow()?.into_owned());
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "moves: expected UCI or SAN strings or chess.Move objects, got {}",
        type_name(m)
    )))
}

/// analyze(pos, *, moves=None, dead=True, reachability=True) -> dict
///
/// What `perftlab analyze --json` prints: validity (`valid`, `errors`, `warnings`), `side_to_move`,
/// `in_check`, `checkers`, `pinned`, `legal_moves` (UCI) and `san`, `outcome`, `claimable`, `repetitions`,
/// `reachability` (a cheap verdict; None with reachability=False) and, with dead=True, `winnable` (both
/// sides), `dead` and `dead_reason`. `moves` (UCI, SAN or chess.Move) are played first and make the
/// history the repetition rules count. An invalid position is reported (valid False), not raised.
#[pyfunction]
#[pyo3(signature = (pos, *, moves=None, dead=true, reachability=true))]
pub fn analyze<'py>(
    py: Python<'py>,
    pos: &Bound<'py, PyAny>,
    moves: Option<Vec<Bound<'py, PyAny>>>,
    dead: bool,
    reachability: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let root = errors::setup(py, pos)?;
    let chess960 = root.needs_chess960_notation();
    let moves: Vec<String> = moves
        .unwrap_or_default()
        .iter()
        .map(move_text)
        .collect::<PyResult<_>>()?;
    let history: Vec<Setup> = if moves.is_empty() {
        vec![root]
    } else {
        let start = Checked::new(root).map_err(|e| errors::from_core(py, e))?;
        let line =
            perftlab::line::play_line(&start, &moves).map_err(|e| errors::from_core(py, e))?;
        line.positions
            .into_iter()
            .map(Checked::into_setup)
            .collect()
    };
    let work = move || -> perftlab::Result<serde_json::Value> {
        let mut a = if reachability {
            perftlab::analyze::analyze(&history, chess960)
        } else {
            perftlab::analyze::analyze_without_search(&history, chess960)
        };
        if dead {
            if let Ok(end) = Checked::new(history.last().expect("not empty").clone()) {
                let report = deadpos::dead_report(&end, &Limits::default(), chess960)?;
                perftlab::analyze::add_dead_position(&mut a, report);
            }
        }
        serde_json::to_value(&a).map_err(|e| perftlab::Error::Backend(format!("internal: {e}")))
    };
    let value = if dead || reachability {
        run_long(py, move |_| work())?
    } else {
        work().map_err(|e| errors::from_core(py, e))?
    };
    convert::json(py, &value)
}
