//! Errors out and positions in: the core's [`perftlab::Error`] as the typed exceptions of
//! `perftlab/_errors.py` (FenError and InvalidPositionError are ValueErrors; each carries its data as
//! attributes), and a position argument (FEN text, or any object with a `.fen()` method) as a [`Checked`].

use perftlab::{Checked, Error, FenError, Setup};
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyString};

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// An instance of the exception class `name` of `perftlab._errors` with `message`, as a [`PyErr`]; `attrs`
/// are set on it.
fn raise<'py>(
    py: Python<'py>,
    name: &str,
    message: &str,
    attrs: &[(&str, Bound<'py, PyAny>)],
) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let module =
            ERRORS.get_or_try_init(py, || py.import("perftlab._errors").map(Bound::unbind))?;
        let exc = module.bind(py).getattr(name)?.call1((message,))?;
        for (k, v) in attrs {
            exc.setattr(*k, v)?;
        }
        Ok(PyErr::from_value(exc))
    })();
    made.unwrap_or_else(|e| e)
}

/// A `BackendError` (a RuntimeError): the work could not run.
pub fn backend(py: Python<'_>, message: &str) -> PyErr {
    raise(py, "BackendError", message, &[])
}

/// A `UsageError` (a ValueError): a bad argument value, naming the argument.
pub fn usage(py: Python<'_>, message: &str) -> PyErr {
    raise(py, "UsageError", message, &[])
}

/// The field name of a FEN error (`board`, `side_to_move`, …), `None` when it names none.
fn fen_field(e: &FenError) -> Option<&'static str> {
    use perftlab::FenField::*;
    let field = match e {
        FenError::Empty | FenError::TooManyFields { .. } => return None,
        FenError::MissingField { field } | FenError::Invalid { field, .. } => field,
    };
    Some(match field {
        Board => "board",
        SideToMove => "side_to_move",
        Castling => "castling",
        EnPassant => "en_passant",
        HalfmoveClock => "halfmove_clock",
        FullmoveNumber => "fullmove_number",
    })
}

/// The core's error as the matching Python exception.
pub fn from_core(py: Python<'_>, e: Error) -> PyErr {
    let message = e.to_string();
    match e {
        Error::Fen(f) => {
            let text = match &f {
                FenError::Invalid { text, .. } | FenError::TooManyFields { text } => {
                    Some(text.clone())
                }
                _ => None,
            };
            let attrs = [
                (
                    "field",
                    fen_field(&f).into_pyobject(py).map(|o| o.into_any()),
                ),
                ("text", text.into_pyobject(py).map(|o| o.into_any())),
            ];
            let attrs: Vec<(&str, Bound<'_, PyAny>)> = attrs
                .into_iter()
                .filter_map(|(k, v)| v.ok().map(|v| (k, v)))
                .collect();
            raise(py, "FenError", &message, &attrs)
        }
        Error::InvalidPosition(p) => {
            let reasons: Vec<String> = p.errors.iter().map(|r| r.to_string()).collect();
            let mut attrs = vec![("fen", PyString::new(py, &p.setup.to_fen()).into_any())];
            if let Ok(list) = PyList::new(py, reasons) {
                attrs.push(("errors", list.into_any()));
            }
            raise(py, "InvalidPositionError", &message, &attrs)
        }
        Error::Usage(_) => raise(py, "UsageError", &message, &[]),
        Error::Mismatch(_) => raise(py, "MismatchError", &message, &[]),
        Error::Backend(_) | Error::Adapter(_) => raise(py, "BackendError", &message, &[]),
        Error::Memory(_) | Error::Setting(_) => raise(py, "UsageError", &message, &[]),
        Error::Interrupted(_) => PyKeyboardInterrupt::new_err(message),
        _ => raise(py, "PerftlabError", &message, &[]),
    }
}

/// The FEN text of a position argument: a `str`, or the result of calling its `.fen()` method.
pub fn fen_text(pos: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = pos.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    match pos.getattr("fen") {
        Ok(method) => {
            let fen = method.call0()?;
            let text = fen.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "pos: {}.fen() returned {}, not a str",
                    type_name(pos),
                    type_name(&fen)
                ))
            })?;
            Ok(text.to_cow()?.into_owned())
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "pos: expected a FEN string or an object with a .fen() method (a chess.Board), got {}",
            type_name(pos)
        ))),
    }
}

/// The position argument parsed (FEN fields) and validated (FIDE 3.10.3).
pub fn position(py: Python<'_>, pos: &Bound<'_, PyAny>) -> PyResult<Checked> {
    let fen = fen_text(pos)?;
    Checked::from_fen(&fen).map_err(|e| from_core(py, e))
}

/// The position argument parsed but not validated (`analyze` reports an invalid position as data).
pub fn setup(py: Python<'_>, pos: &Bound<'_, PyAny>) -> PyResult<Setup> {
    let fen = fen_text(pos)?;
    Setup::from_fen(&fen).map_err(|e| from_core(py, Error::Fen(e)))
}

/// The name of an object's type, for messages.
pub fn type_name(o: &Bound<'_, PyAny>) -> String {
    o.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}
