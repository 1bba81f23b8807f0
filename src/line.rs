//! Lines of play in the rules layer, beside [`Checked`]: [`play_line`] plays moves given as text (UCI in
//! either castling notation, or SAN, FIDE Appendix C) from a checked position and keeps every position it
//! passes through, each checked again (a legal move, FIDE 3.1–3.9, keeps a valid position valid).
//! [`play_moves`] is the same for the command line's `--moves` values, which may hold several moves each.

use crate::error::{Error, Result};
use crate::san;
use crate::types::Move;
use crate::validate::Checked;

/// A line of play: the moves and every position they pass through.
#[derive(Clone, Debug)]
pub struct Line {
    /// The moves played.
    pub moves: Vec<Move>,
    /// The positions, the root first and the position after the last move last (one more than `moves`).
    pub positions: Vec<Checked>,
}

impl Line {
    /// The empty line at `root`.
    pub fn new(root: Checked) -> Line {
        Line {
            moves: Vec::new(),
            positions: vec![root],
        }
    }

    /// The position the line ends in.
    pub fn end(&self) -> &Checked {
        self.positions.last().expect("a line holds its root")
    }
}

/// The one move-line player of every command: play `moves` (each UCI in either castling notation, or SAN)
/// from `root`.
///
/// # Errors
/// [`Error::Usage`] naming `--moves`, the move number, its text and the position when a move is not legal.
pub fn play_line(root: &Checked, moves: &[String]) -> Result<Line> {
    let mut line = Line::new(root.clone());
    for (i, text) in moves.iter().enumerate() {
        let cur = line.end();
        let legal = cur.legal_moves();
        let m = Move::find_uci(&legal, text)
            .or_else(|| san::parse_san(cur, &legal, text))
            .ok_or_else(|| {
                Error::Usage(format!(
                    "--moves: move {} '{text}' is not a legal move (UCI or SAN) in '{}'",
                    i + 1,
                    cur.to_fen()
                ))
            })?;
        let next = cur.play(m)?;
        line.moves.push(m);
        line.positions.push(next);
    }
    Ok(line)
}

/// Split `--moves` values that hold several moves separated by spaces.
pub fn split_moves(moves: &[String]) -> Vec<String> {
    moves
        .iter()
        .flat_map(|m| m.split_whitespace().map(str::to_string))
        .collect()
}

/// [`play_line`] of `--moves` values ([`split_moves`] first): the helper every command with `--moves` uses.
///
/// # Errors
/// As [`play_line`].
pub fn play_moves(root: &Checked, values: &[String]) -> Result<Line> {
    play_line(root, &split_moves(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_split_and_play_in_uci_and_san() {
        let values = ["e2e4 e5".to_string(), "Nf3".to_string()];
        let line = play_moves(&Checked::startpos(), &values).unwrap();
        assert_eq!(line.moves.len(), 3);
        assert_eq!(line.positions.len(), 4);
        assert_eq!(
            line.end().to_fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
        );
        let err = play_moves(&Checked::startpos(), &["e2e4 e2e4".to_string()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--moves: move 2 'e2e4' is not a legal move (UCI or SAN) in \
             'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'"
        );
        assert_eq!(err.exit_code(), 2);
    }
}
