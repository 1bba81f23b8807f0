//! External move generators ("engines"), apart from the divide diff that compares them with perftlab
//! (`compare`): the [`Engine`] trait (a program that can divide), the [`Divide`] it reports, the
//! [`Protocol`]s it may speak, its factory [`start`], and splitting an engine's command line into words;
//! the protocols in `uci` (a UCI program answering `go perft N`), `script` (a perftree-style script) and
//! `total` ([`TotalOnlyEngine`], a UCI engine whose perft command prints only a total).

mod divide;
mod script;
mod total;
mod uci;

use crate::error::{Error, Part, Result, Setting, SettingError};
use crate::types::Square;
pub use divide::{read_divide, DivideError, DivideReader};
pub use script::ScriptEngine;
use std::collections::BTreeMap;
pub use total::{start_with_perft_command, TotalOnlyEngine};
pub use uci::UciEngine;

/// A divide as an engine reports it: each root move's (UCI) count, and the total it printed.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Divide {
    /// Move text → count. A move printed twice is summed (and so shows up as a wrong count).
    pub moves: BTreeMap<String, u128>,
    /// The total the engine printed.
    pub total: u128,
}

/// An external move generator that can divide.
pub trait Engine {
    /// How to name the engine in messages (its command line).
    fn describe(&self) -> String;

    /// The divide of the position reached by playing `moves` (UCI, in the notation the engine was set up
    /// for) from `fen`, at `depth` (at least 1).
    ///
    /// # Errors
    /// [`Error::Backend`] when the engine dies or prints something unreadable, [`Error::Engine`] when it
    /// hangs past the timeout; the message quotes what it said.
    fn divide(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<Divide>;

    /// The engine's total alone, for an engine that reports only totals (`--perft-command`): the
    /// comparison then asks for it first and divides only when it differs. `None` for engines that divide.
    fn total(&mut self, _fen: &str, _moves: &[String], _depth: u32) -> Option<Result<u128>> {
        None
    }
}

/// Which protocol the external engine speaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Protocol {
    /// UCI: `position fen … moves …`, `go perft N`, `move: count` lines and `Nodes searched: N`.
    Uci,
    /// perftree's script protocol: `CMD "$depth" "$fen" "$moves"`, `move count` lines, a blank line, the total.
    Script,
}

/// Start an engine.
///
/// # Errors
/// [`Error::Setting`] ([`Setting::Engine`]) when the command cannot be parsed or started;
/// [`Error::Backend`] or [`Error::Engine`] when it does not complete the UCI handshake.
pub fn start(
    protocol: Protocol,
    command: &str,
    chess960: bool,
    timeout: std::time::Duration,
) -> Result<Box<dyn Engine>> {
    Ok(match protocol {
        Protocol::Uci => Box::new(UciEngine::start(command, chess960, timeout)?),
        Protocol::Script => Box::new(ScriptEngine::new(command, timeout)?),
    })
}

/// Put the engine in a process group of its own (Unix), so that [`kill_group`] also reaches what it started
/// (a shell wrapper's python, a `sleep`).
pub(crate) fn own_process_group(cmd: &mut std::process::Command) -> &mut std::process::Command {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd
}

/// Kill an engine started with [`own_process_group`] together with every process of its group, then reap
/// it and forget its group (see [`register`]).
pub(crate) fn kill_group(child: &mut std::process::Child) {
    crate::interrupt::kill_groups(&[child.id()]);
    let _ = child.kill();
    let _ = child.wait();
    crate::interrupt::unregister_group(child.id());
}

/// Register a child started with [`own_process_group`] so that SIGINT/SIGTERM kill its whole group (the
/// normal and timeout paths call [`kill_group`] or [`unregister`]).
pub(crate) fn register(child: &std::process::Child) {
    crate::interrupt::register_group(child.id());
}

/// Forget a child that finished by itself.
pub(crate) fn unregister(child: &std::process::Child) {
    crate::interrupt::unregister_group(child.id());
}

/// Split an `--engine` command line into program and arguments (whitespace separated; single and double
/// quotes group; backslash escapes the next character outside single quotes).
///
/// # Errors
/// [`Error::Setting`] ([`Setting::Engine`], the command as its value) for an empty command or an unclosed
/// quote.
pub fn split_command(text: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => cur.push(c),
            (_, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                in_word = true;
            }
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(SettingError {
            setting: Setting::Engine,
            value: Some(text.to_string()),
            reason: vec![Part::Text("unclosed quote in ".into()), Part::Value],
        }
        .into());
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err(SettingError::new(Setting::Engine, None, "the command is empty").into());
    }
    Ok(words)
}

/// The engine `command` could not start (`error`), with `hint` after the operating system's words.
fn cannot_start(command: &str, error: &std::io::Error, hint: Vec<Part>) -> Error {
    let mut reason = vec![
        Part::Text("cannot start ".into()),
        Part::Value,
        Part::Text(format!(": {error}")),
    ];
    reason.extend(hint);
    SettingError {
        setting: Setting::Engine,
        value: Some(command.to_string()),
        reason,
    }
    .into()
}

/// Whether `text` looks like a UCI move (`e2e4`, `e7e8q`): two squares and an optional
/// promotion letter.
pub fn looks_like_uci(text: &str) -> bool {
    let b = text.as_bytes();
    text.is_ascii()
        && (b.len() == 4 || (b.len() == 5 && b"nbrqNBRQ".contains(&b[4])))
        && Square::parse(&text[0..2]).is_some()
        && Square::parse(&text[2..4]).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_like_a_shell() {
        assert_eq!(
            split_command("python3 'a b.py' --bug \"ep check\" x\\ y").unwrap(),
            vec!["python3", "a b.py", "--bug", "ep check", "x y"]
        );
        assert!(split_command("  ").is_err());
        assert!(split_command("a 'b").is_err());
    }
}
