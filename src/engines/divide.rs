//! The one reader of a divide in Stockfish's `go perft` format: `move: count` lines, other lines (`info
//! string …`) skipped, and `Nodes searched: N`, the total the counts must add up to. A UCI engine's output is
//! fed to it line by line as it arrives ([`super::UciEngine`]); a divide pasted into the web page is fed whole
//! and may leave the total out ([`DivideReader::finish`]).

use super::{looks_like_uci, Divide};

/// Why a divide could not be read: the offending line, as given (trimmed), and the reason.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DivideError {
    /// The line at fault (the total line when the counts do not add up).
    pub line: String,
    /// What is wrong with it, e.g. "the count is not a number".
    pub why: String,
}

/// A divide being read line by line.
#[derive(Default)]
pub struct DivideReader {
    divide: Divide,
    sum: u128,
    /// The first `move: count` line whose move is not UCI (`G1F3: 20`): engines print info lines too, so it
    /// is an error only when the counts do not add up to the total (or no total vouches for them).
    unreadable: Option<String>,
}

fn error(line: &str, why: &str) -> DivideError {
    DivideError {
        line: line.to_string(),
        why: why.to_string(),
    }
}

/// The reason given for a `move: count` line whose move is not UCI.
const NOT_UCI: &str =
    "its move lines are unreadable: a move must be UCI, such as 'g1f3' or 'e7e8q'";

impl DivideReader {
    /// Read one line; `Some` with the finished divide once the total line (`Nodes searched: N`) is read.
    ///
    /// # Errors
    /// A count or total that is not a number, counts that do not add up to the total (with the first
    /// unreadable move line when there was one), or a total with no move line before it that differs from 0.
    pub fn line(&mut self, line: &str) -> Result<Option<Divide>, DivideError> {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Nodes searched:") {
            let total: u128 = rest
                .trim()
                .parse()
                .map_err(|_| error(t, "the total is not a number"))?;
            return self.total(t, total).map(Some);
        }
        let Some((mv, count)) = t.split_once(':') else {
            return Ok(None);
        };
        let (mv, count) = (mv.trim(), count.trim());
        if !looks_like_uci(mv) {
            if self.unreadable.is_none() && count.parse::<u128>().is_ok() {
                self.unreadable = Some(t.to_string());
            }
            return Ok(None);
        }
        let n: u128 = count
            .parse()
            .map_err(|_| error(t, "the count is not a number"))?;
        self.sum += n;
        *self.divide.moves.entry(mv.to_string()).or_insert(0) += n;
        Ok(None)
    }

    /// The divide closed by the total line `t` (value `total`).
    fn total(&mut self, t: &str, total: u128) -> Result<Divide, DivideError> {
        if total != self.sum {
            return Err(match &self.unreadable {
                Some(l) => error(l, NOT_UCI),
                None if self.divide.moves.is_empty() => error(
                    t,
                    "it listed no moves, only a total: move lines read 'e2e4: 20'",
                ),
                None => error(t, &format!("its move counts sum to {}", self.sum)),
            });
        }
        self.divide.total = total;
        Ok(std::mem::take(&mut self.divide))
    }

    /// End of the text without a total line (a pasted divide may leave it out): the divide with the sum as
    /// its total.
    ///
    /// # Errors
    /// An unreadable move line (no total vouches for skipping it), or no move line at all.
    pub fn finish(mut self) -> Result<Divide, DivideError> {
        if let Some(l) = &self.unreadable {
            return Err(error(l, NOT_UCI));
        }
        if self.divide.moves.is_empty() {
            return Err(error(
                "",
                "no 'move: count' line (Stockfish's `go perft` prints 'e2e4: 20')",
            ));
        }
        self.divide.total = self.sum;
        Ok(std::mem::take(&mut self.divide))
    }
}

/// Read a whole divide text: up to its total line, or to its end when it has none.
///
/// # Errors
/// As [`DivideReader::line`] and [`DivideReader::finish`].
pub fn read_divide(text: &str) -> Result<Divide, DivideError> {
    let mut reader = DivideReader::default();
    for line in text.lines() {
        if let Some(d) = reader.line(line)? {
            return Ok(d);
        }
    }
    reader.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stockfish_lines_and_skips_info_lines() {
        // Stockfish 15.1 `go perft 1` after 1. a3 (20 moves) is shortened here to two lines that add up.
        let d = read_divide("info string x\na7a6: 19\nb8c6: 1\n\nNodes searched: 20\nafter: 3")
            .unwrap();
        assert_eq!(d.total, 20);
        assert_eq!(d.moves.len(), 2);
        assert_eq!(d.moves["a7a6"], 19);
    }

    #[test]
    fn a_sum_that_differs_from_the_total_names_the_cause() {
        let e = read_divide("a2a3: 19\nNodes searched: 21").unwrap_err();
        assert_eq!(e.line, "Nodes searched: 21");
        assert_eq!(e.why, "its move counts sum to 19");
        let e = read_divide("G1F3: 20\nNodes searched: 20").unwrap_err();
        assert_eq!((e.line.as_str(), e.why.as_str()), ("G1F3: 20", NOT_UCI));
        let e = read_divide("Nodes searched: 5").unwrap_err();
        assert!(e.why.contains("no moves"), "{e:?}");
        let e = read_divide("a2a3: x").unwrap_err();
        assert_eq!(e.why, "the count is not a number");
        let e = read_divide("a2a3: 1\nNodes searched: many").unwrap_err();
        assert_eq!(e.why, "the total is not a number");
    }

    #[test]
    fn an_unreadable_line_passes_only_when_the_total_vouches_for_the_rest() {
        let d = read_divide("Info: 7\na2a3: 1\nNodes searched: 1").unwrap();
        assert_eq!(d.total, 1);
        assert_eq!(read_divide("Info: 7\na2a3: 1").unwrap_err().line, "Info: 7");
        assert!(read_divide("hello")
            .unwrap_err()
            .why
            .contains("no 'move: count'"));
        // A mated side: no moves and a total of 0 is a complete divide.
        assert_eq!(read_divide("Nodes searched: 0").unwrap(), Divide::default());
    }
}
