//! perftree's script protocol: run `CMD "$depth" "$fen" "$moves"` once per request and read `move count`
//! lines, a blank line, then the total.
//!
//! Chess960 (FIDE 3.8.2 as the Chess960 rules apply it): a script cannot be told `UCI_Chess960`, so the
//! position itself says it. When the root's castling rights are not the standard ones (a king off e1/e8 or a
//! castling rook off a1/h1/a8/h8: [`Setup::needs_chess960_notation`]), the FEN is sent with Shredder-FEN
//! castling (the rooks' file letters, `HAha`, never the ambiguous `KQkq`) and the moves with castling as
//! king takes rook (`e1h1`); otherwise the FEN has `KQkq` castling and the moves castle as the king's move
//! (`e1g1`). The environment variable `PERFTLAB_CHESS960` is `1` in the first case and `0` in the second,
//! for scripts that would rather not look. Castling printed back in either notation is accepted.

use super::{
    cannot_start, kill_group, looks_like_uci, own_process_group, register, split_command,
    unregister, Divide, Engine,
};
use crate::error::{EngineError, EngineFailure, Error, Result};
use crate::position::Setup;
use crate::reference;
use crate::types::{CastlingSide, Color, Move};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A perftree-style script.
pub struct ScriptEngine {
    command: String,
    words: Vec<String>,
    timeout: Duration,
}

impl ScriptEngine {
    /// A script run as `command depth fen moves`.
    ///
    /// # Errors
    /// [`Error::Setting`] for an empty or badly quoted command.
    pub fn new(command: &str, timeout: Duration) -> Result<ScriptEngine> {
        Ok(ScriptEngine {
            command: command.to_string(),
            words: split_command(command)?,
            timeout,
        })
    }
}

/// The FEN with Shredder-FEN castling (each right as its rook's file letter, white's first, king side first).
pub fn shredder_fen(setup: &Setup) -> String {
    let mut castling = String::new();
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if let Some(rook) = setup.castling.rook(color, side) {
                let c = (b'a' + rook.file()) as char;
                castling.push(if color == Color::White {
                    c.to_ascii_uppercase()
                } else {
                    c
                });
            }
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    let fen = setup.to_fen();
    let mut fields: Vec<&str> = fen.split(' ').collect();
    fields[2] = &castling;
    fields.join(" ")
}

/// What a script is sent for `fen` and `moves`: the FEN (Shredder-FEN castling when the rights are Chess960
/// ones), the moves in the matching castling notation, and whether that is Chess960. A FEN or a move that
/// does not parse is passed on as it is (the script's answer then shows the problem).
pub fn script_request(fen: &str, moves: &[String]) -> (String, Vec<String>, bool) {
    let Ok(setup) = Setup::from_fen(fen) else {
        return (fen.to_string(), moves.to_vec(), false);
    };
    let chess960 = setup.needs_chess960_notation();
    let fen = if chess960 {
        shredder_fen(&setup)
    } else {
        fen.to_string()
    };
    let mut cur = setup;
    let mut out = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let legal = reference::legal_moves(&cur);
        let Some(m) = Move::find_uci(&legal, text) else {
            out.extend(moves[i..].iter().cloned());
            break;
        };
        out.push(m.to_uci(chess960));
        cur = reference::play(&cur, m);
    }
    (fen, out, chess960)
}

/// Parse the script's output.
///
/// # Errors
/// A description of the first unreadable line.
pub fn parse_output(text: &str) -> std::result::Result<Divide, String> {
    let mut divide = Divide::default();
    let mut lines = text.lines().map(str::trim);
    let mut blank_seen = false;
    for line in lines.by_ref() {
        if line.is_empty() {
            blank_seen = true;
            break;
        }
        let mut parts = line.split_whitespace();
        let (Some(mv), Some(count), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("'{line}' is not 'move count'"));
        };
        if !looks_like_uci(mv) {
            return Err(format!("'{line}': '{mv}' is not a UCI move"));
        }
        let n: u128 = count
            .parse()
            .map_err(|_| format!("'{line}': '{count}' is not a count"))?;
        *divide.moves.entry(mv.to_string()).or_insert(0) += n;
    }
    // perftree: with no moves at all, the output may be just the blank line and the total.
    let total_line = lines.find(|l| !l.is_empty());
    match (blank_seen, total_line) {
        (true, Some(t)) => {
            divide.total = t
                .parse()
                .map_err(|_| format!("the total '{t}' is not a number"))?;
            Ok(divide)
        }
        _ => Err("no blank line followed by the total".into()),
    }
}

impl Engine for ScriptEngine {
    fn describe(&self) -> String {
        self.command.clone()
    }

    fn divide(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<Divide> {
        let (fen, moves, chess960) = script_request(fen, moves);
        let mut child = own_process_group(&mut Command::new(&self.words[0]))
            .args(&self.words[1..])
            .arg(depth.to_string())
            .arg(&fen)
            .arg(moves.join(" "))
            .env("PERFTLAB_CHESS960", if chess960 { "1" } else { "0" })
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| cannot_start(&self.command, &e, vec![]))?;
        register(&child);
        let mut stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        let out_thread = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stdout.read_to_string(&mut s);
            s
        });
        let err_thread = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        let request = format!("{} {depth} '{fen}' '{}'", self.command, moves.join(" "));
        let deadline = Instant::now() + self.timeout;
        let status = loop {
            if let Ok(Some(s)) = child.try_wait() {
                unregister(&child);
                break s;
            }
            if Instant::now() >= deadline {
                kill_group(&mut child);
                return Err(EngineError::new(EngineFailure::ScriptTimeout {
                    request,
                    timeout: self.timeout,
                })
                .into());
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let out = out_thread.join().unwrap_or_default();
        let err = err_thread.join().unwrap_or_default();
        let said = |s: &str| {
            let t: Vec<&str> = s.lines().rev().take(8).collect();
            let t: Vec<&str> = t.into_iter().rev().collect();
            format!("'{}'", t.join(" | "))
        };
        if !status.success() {
            return Err(Error::Backend(format!(
                "script '{request}' failed ({status}); it said: {} {}",
                said(&out),
                said(&err)
            )));
        }
        parse_output(&out).map_err(|why| {
            Error::Backend(format!(
                "script '{request}' printed an unreadable answer: {why}; it said: {}",
                said(&out)
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_perftree_output() {
        let d = parse_output("e2e4 20\ne7e8q 3\n\n23\n").unwrap();
        assert_eq!(d.total, 23);
        assert_eq!(d.moves["e7e8q"], 3);
        assert_eq!(parse_output("\n0\n").unwrap().total, 0);
        assert!(parse_output("e2e4 twenty\n\n20").is_err());
        assert!(parse_output("e2e4 20\n").is_err());
        assert!(parse_output("hello world\n\n1").is_err());
    }

    #[test]
    fn chess960_rights_are_sent_as_shredder_fen_with_king_takes_rook() {
        // X-FEN `KQkq` with the kings on f1/f8 (rooks b and g): sent as `GBgb`, castling as king takes rook.
        let fen = "1r3kr1/8/8/8/8/8/8/1R3KR1 w KQkq - 0 1";
        let (sent, moves, c960) = script_request(fen, &["f1g1".into(), "f8b8".into()]);
        assert!(c960);
        assert_eq!(sent, "1r3kr1/8/8/8/8/8/8/1R3KR1 w GBgb - 0 1");
        assert_eq!(moves, ["f1g1", "f8b8"]);
        // Standard rights stay `KQkq`, and castling given as king takes rook is sent as the king's move.
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        let (sent, moves, c960) = script_request(fen, &["e1h1".into(), "e8c8".into()]);
        assert!(!c960);
        assert_eq!(sent, fen);
        assert_eq!(moves, ["e1g1", "e8c8"]);
        // An unreadable move is passed on as it is, with what follows.
        let (_, moves, _) = script_request(fen, &["e1e9".into(), "e8c8".into()]);
        assert_eq!(moves, ["e1e9", "e8c8"]);
    }
}
