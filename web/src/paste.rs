//! A divide pasted into the page, compared with perftlab's by the library's divide diff
//! (`perftlab::compare::compare`, the one `perftlab compare` runs), with the pasted text standing in for
//! the engine.

use perftlab::compare::{Comparison, Request};
use perftlab::engines::{read_divide, Divide, Engine};
use perftlab::fast::CpuBackend;
use perftlab::line::Line;
use perftlab::{Checked, Error, Result};

/// Read a divide in Stockfish's `go perft` format with the library's reader ([`read_divide`], the one
/// `perftlab compare --engine` uses): `e2e4: 20` lines (other lines, such as `info string`, are skipped) and
/// an optional `Nodes searched: N` (when given, the counts must add up to it; the text after it is not read).
///
/// # Errors
/// [`Error::Usage`] naming the pasted line that cannot be read, a sum that differs from the total, or a
/// paste without any move line.
pub fn parse_divide(text: &str) -> Result<Divide> {
    read_divide(text).map_err(|e| match e.line.as_str() {
        "" => Error::Usage(format!("pasted divide: {}", e.why)),
        line => Error::Usage(format!("pasted divide: '{line}': {}", e.why)),
    })
}

/// The pasted divide as an engine that knows only the root.
struct Pasted(Divide);

impl Engine for Pasted {
    fn describe(&self) -> String {
        "the pasted divide".into()
    }

    fn divide(&mut self, _fen: &str, moves: &[String], _depth: u32) -> Result<Divide> {
        if moves.is_empty() {
            Ok(self.0.clone())
        } else {
            Err(Error::Backend(
                "the pasted divide has only the root: paste the divide after the differing move to go deeper"
                    .into(),
            ))
        }
    }
}

/// Compare the pasted divide of `pos` at `depth` with the fast CPU generator's.
///
/// # Errors
/// An unreadable paste; [`Error::Usage`] for depth 0.
pub fn compare(pos: &Checked, depth: u32, pasted: &str, chess960: bool) -> Result<Comparison> {
    let mut engine = Pasted(parse_divide(pasted)?);
    let backend = CpuBackend::new(16, None, true)?;
    let line = Line::new(pos.clone());
    let request = Request {
        line: &line,
        depth,
        chess960,
    };
    perftlab::compare::compare(&mut engine, &backend, &request, &mut |_, _| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stockfish_output_and_refuses_what_does_not_add_up() {
        let d = parse_divide("info string x\na2a3: 19\nb1c3: 1\n\nNodes searched: 20\n").unwrap();
        assert_eq!(d.total, 20);
        assert_eq!(d.moves["a2a3"], 19);
        let e = parse_divide("a2a3: 19\nNodes searched: 21").unwrap_err();
        assert_eq!(
            e.to_string(),
            "pasted divide: 'Nodes searched: 21': its move counts sum to 19"
        );
        assert!(parse_divide("hello").is_err());
        assert!(parse_divide("A2A3: 4")
            .unwrap_err()
            .to_string()
            .contains("'A2A3: 4'"));
    }

    #[test]
    fn a_missing_move_is_found_at_the_root() {
        // Stockfish 15.1 `go perft 1` of the initial position is every one of the 20 moves with count 1; drop
        // one and add an illegal one.
        let pos = Checked::startpos();
        let legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_uci(false)).collect();
        let mut text: String = legal
            .iter()
            .filter(|m| *m != "g1f3")
            .map(|m| format!("{m}: 1\n"))
            .collect();
        text.push_str("e2e5: 1\n");
        let c = compare(&pos, 1, &text, false).unwrap();
        let f = c.failure.unwrap();
        assert_eq!(f.missing, ["g1f3"]);
        assert_eq!(f.extra, ["e2e5"]);
    }
}
