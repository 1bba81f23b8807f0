//! Values out: JSON values (the `analyze --json` object) as Python dicts, lists, strings, ints and None;
//! UCI moves as strings or, on request, as `chess.Move` objects (python-chess imported on first use).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

static MOVE_FROM_UCI: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `chess.Move.from_uci(uci)`; an ImportError when python-chess is not installed.
pub fn chess_move<'py>(py: Python<'py>, uci: &str) -> PyResult<Bound<'py, PyAny>> {
    let from_uci = MOVE_FROM_UCI.get_or_try_init(py, || {
        py.import("chess")?
            .getattr("Move")?
            .getattr("from_uci")
            .map(Bound::unbind)
    })?;
    from_uci.bind(py).call1((uci,))
}

/// UCI moves as `str`s, or as `chess.Move`s when `as_moves`.
pub fn moves_out<'py>(
    py: Python<'py>,
    ucis: &[String],
    as_moves: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    ucis.iter()
        .map(|u| {
            if as_moves {
                chess_move(py, u)
            } else {
                Ok(u.into_pyobject(py)?.into_any())
            }
        })
        .collect()
}

/// A JSON value as the equivalent Python value (numbers as `int` where they are integers).
pub fn json<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_u64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Ok(i) = n.to_string().parse::<u128>() {
                i.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(json(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => {
            let dict = PyDict::new(py);
            for (k, x) in m {
                dict.set_item(k, json(py, x)?)?;
            }
            dict.into_any()
        }
    })
}
