//! Lines of play in the rules layer, beside [`Checked`]: [`play_line`] plays moves given as text (UCI in
//! either castling notation, or SAN, FIDE Appendix C) from a checked position and keeps every position it
//! passes through, each checked again (a legal move, FIDE 3.1–3.9, keeps a valid position valid).
//! [`play_moves`] is the same for the command line's `--moves` values, which may hold several moves each.

use crate::error::{Error, Result, Setting, SettingError};
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

/// A move of a line that cannot be played: an error of [`Setting::Moves`].
fn moves_error(why: String) -> Error {
    SettingError::new(Setting::Moves, None, why).into()
}

/// The one move-line player of every command: play `moves` (each UCI in either castling notation, or SAN)
/// from `root`.
///
/// # Errors
/// [`Error::Setting`] of [`Setting::Moves`] (the CLI's `--moves`) with the move number, its text and the
/// position when a move is not legal.
pub fn play_line(root: &Checked, moves: &[String]) -> Result<Line> {
    let mut line = Line::new(root.clone());
    for (i, text) in moves.iter().enumerate() {
        let cur = line.end();
        let legal = cur.legal_moves();
        if legal.is_empty() {
            return Err(moves_error(format!(
                "move {} '{text}': the game is over ({}) in '{}'",
                i + 1,
                game_over(cur),
                cur.to_fen()
            )));
        }
        if is_result(text) {
            return Err(moves_error(format!(
                "move {} '{text}': a result ends the movetext; no move may follow it",
                i + 1
            )));
        }
        let m = Move::find_uci(&legal, text)
            .or_else(|| san::parse_san(cur, &legal, text))
            .ok_or_else(|| {
                moves_error(format!(
                    "move {} '{text}' is not a legal move (UCI or SAN) in '{}'",
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

/// Why a position without legal moves ends the game: checkmate (FIDE 5.1.1) or stalemate (FIDE 5.2.1).
fn game_over(pos: &Checked) -> &'static str {
    let checked = pos
        .kings(pos.turn)
        .first()
        .is_some_and(|&k| !crate::reference::attackers(pos, k, !pos.turn).is_empty());
    if checked {
        "checkmate"
    } else {
        "stalemate"
    }
}

/// A PGN game termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`).
fn is_result(word: &str) -> bool {
    matches!(word, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*")
}

/// `text` without PGN comments (`{…}`) and variations (`(…)`, nested), each replaced by a space. An opening
/// brace or parenthesis that is never closed is kept, so the move it hides is named in the error.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['{', '(']) {
        let close = if rest[at..].starts_with('{') {
            rest[at..].find('}').map(|e| at + e)
        } else {
            // The matching parenthesis (variations nest).
            let mut depth = 0usize;
            rest[at..].char_indices().find_map(|(i, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(at + i)
            })
        };
        let Some(end) = close else { break };
        out.push_str(&rest[..at]);
        out.push(' ');
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Split `--moves` values that hold several moves separated by spaces, reading them as PGN movetext does:
/// move numbers (`1.`, `1...`, also glued as `1.e4`), a lone `...`, check and annotation marks (`+ # ! ?`
/// after a move), numeric annotation glyphs (`$1`), comments (`{…}`), variations (`(…)`) and a result token
/// at the end (`1-0`, `0-1`, `1/2-1/2`, `*`) are dropped, so a numbered SAN line (as `reachable` prints) or a
/// game's movetext can be pasted. A result before the last word is kept: [`play_line`] refuses a move after it.
pub fn split_moves(moves: &[String]) -> Vec<String> {
    let mut words: Vec<String> = moves
        .iter()
        .flat_map(|m| {
            without_comments(m)
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter_map(|w| {
            let digits = w.bytes().take_while(u8::is_ascii_digit).count();
            let w = if digits > 0 && w[digits..].starts_with('.') {
                w[digits..].trim_start_matches('.')
            } else {
                w.trim_start_matches("...")
            };
            let w = w.trim_end_matches(['+', '#', '!', '?']);
            let nag =
                w.len() > 1 && w.starts_with('$') && w[1..].bytes().all(|b| b.is_ascii_digit());
            (!w.is_empty() && !nag).then(|| w.to_string())
        })
        .collect();
    if words.last().is_some_and(|w| is_result(w)) {
        words.pop();
    }
    words
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
            "moves: move 2 'e2e4' is not a legal move (UCI or SAN) in \
             'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1'"
        );
        assert!(matches!(&err, Error::Setting(s) if s.setting == Setting::Moves));
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn pgn_movetext_is_read() {
        let values = ["1. e4 e5 2.Nf3 Nc6! 3. Bb5?! a6 1/2-1/2".to_string()];
        assert_eq!(
            split_moves(&values),
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
        );
        assert_eq!(
            split_moves(&["1... e5 2. Qh5+ Ke7 *".to_string()]),
            ["e5", "Qh5", "Ke7"]
        );
        // Comments, variations (nested) and numeric annotation glyphs, as a game's PGN export has them.
        assert_eq!(
            split_moves(&[
                "1. e4 {best by test} e5 $1 (1... c5 2. Nf3 (2. c3)) 2. Nf3 1-0".to_string()
            ]),
            ["e4", "e5", "Nf3"]
        );
        // An unclosed comment is kept, to be named by the player.
        assert_eq!(split_moves(&["e4 {e5".to_string()]), ["e4", "{e5"]);
        // A move after the result is refused, not played.
        assert_eq!(split_moves(&["e4 0-1 e5".to_string()]), ["e4", "0-1", "e5"]);
        let err = play_moves(&Checked::startpos(), &["1. e4 0-1 e5".to_string()]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("moves: move 2 '0-1': a result ends the movetext"),
            "{err}"
        );
        let err = play_moves(&Checked::startpos(), &["f3 e5 g4 Qh4# a3".to_string()]).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("moves: move 5 'a3': the game is over (checkmate)"),
            "{err}"
        );
    }
}
