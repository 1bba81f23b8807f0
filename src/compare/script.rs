//! perftree's script protocol: run `CMD "$depth" "$fen" "$moves"` once per request and read `move count`
//! lines, a blank line, then the total.

use super::engine::{kill_group, own_process_group, register, unregister};
use super::{looks_like_uci, split_command, Divide, Engine};
use crate::error::{Error, Result};
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
    /// [`Error::Usage`] for an empty or badly quoted command.
    pub fn new(command: &str, timeout: Duration) -> Result<ScriptEngine> {
        Ok(ScriptEngine {
            command: command.to_string(),
            words: split_command(command)?,
            timeout,
        })
    }
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
        let mut child = own_process_group(&mut Command::new(&self.words[0]))
            .args(&self.words[1..])
            .arg(depth.to_string())
            .arg(fen)
            .arg(moves.join(" "))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::Usage(format!("--engine: cannot start '{}': {e}", self.command)))?;
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
                return Err(Error::Backend(format!(
                    "script '{request}' did not finish within {} s (--timeout)",
                    self.timeout.as_secs_f64()
                )));
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
}
