//! Engines whose perft command prints only a total (Ethereal's `perft N`, many hobby engines): the divide is
//! built by asking for totals. `--perft-command 'perft {depth}'` is sent after `position fen … moves …`
//! instead of `go perft N`, and the last integer the engine prints is its count.
//!
//! A divide at depth `d` ≥ 2 asks the total of the node, then the total at depth `d − 1` after each of
//! perftlab's legal moves, so the drill-down finds the differing move as with a dividing engine; a move the
//! engine cannot play (it dies or answers nothing readable) is left out of its divide, so it shows as
//! missing, and a fresh engine is started. Moves the engine has and perftlab has not cannot be asked for:
//! they show as a total that differs while every child agrees. The move
//! list itself cannot be read from such an engine: at depth 1 every legal move counts 1 and only the total
//! is the engine's, so a failure there names the exact position and both totals but no move (the engine
//! counts a move it should not, or misses one).

use super::{Divide, Engine, UciEngine};
use crate::error::{Part, Result, Setting, SettingError};
use crate::line::play_line;
use crate::validate::Checked;
use std::time::Duration;

/// A UCI engine answering a custom perft command with a total only.
pub struct TotalOnlyEngine {
    uci: UciEngine,
    command: String,
    template: String,
    chess960: bool,
    timeout: Duration,
    /// The last total asked for: (fen, moves, depth, total), so the comparison's first question is not asked
    /// twice.
    last: Option<(String, Vec<String>, u32, u128)>,
}

impl TotalOnlyEngine {
    /// Start `command` (UCI handshake as for [`UciEngine`]); `template` is the perft command with
    /// `{depth}` where the depth goes.
    ///
    /// # Errors
    /// [`Error::Setting`] when `template` has no `{depth}` ([`Setting::PerftCommand`]) or the command
    /// cannot start ([`Setting::Engine`]); [`Error::Backend`] or [`Error::Engine`] when the handshake fails.
    pub fn start(
        command: &str,
        template: &str,
        chess960: bool,
        timeout: Duration,
    ) -> Result<TotalOnlyEngine> {
        if !template.contains("{depth}") || template.contains('\n') {
            return Err(SettingError::new(
                Setting::PerftCommand,
                Some(template.to_string()),
                "must be one line holding {depth}, e.g. 'perft {depth}'",
            )
            .into());
        }
        Ok(TotalOnlyEngine {
            uci: UciEngine::start(command, chess960, timeout)?,
            command: command.to_string(),
            template: template.to_string(),
            chess960,
            timeout,
            last: None,
        })
    }

    fn ask(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<u128> {
        if let Some((f, m, d, n)) = &self.last {
            if f == fen && m == moves && *d == depth {
                return Ok(*n);
            }
        }
        let command = self.template.replace("{depth}", &depth.to_string());
        let n = self.uci.total(fen, moves, &command)?;
        self.last = Some((fen.to_string(), moves.to_vec(), depth, n));
        Ok(n)
    }
}

impl Engine for TotalOnlyEngine {
    fn describe(&self) -> String {
        self.uci.describe()
    }

    fn divide(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<Divide> {
        let root = Checked::from_fen(fen)?;
        let node = play_line(&root, moves)?;
        let legal = node.end().legal_moves();
        let mut divide = Divide {
            total: self.ask(fen, moves, depth)?,
            ..Divide::default()
        };
        let mut child = moves.to_vec();
        for m in legal {
            let text = m.to_uci(self.chess960);
            if depth == 1 {
                divide.moves.insert(text, 1);
                continue;
            }
            child.push(text.clone());
            match self.ask(fen, &child, depth - 1) {
                Ok(n) => {
                    divide.moves.insert(text, n);
                }
                // The engine cannot play this move (it died or choked on it): it does not know the move,
                // which the drill-down then reports as missing. A fresh engine takes over.
                Err(e) if e.is_engine_failure() => {
                    self.uci = UciEngine::start(&self.command, self.chess960, self.timeout)?;
                }
                Err(e) => return Err(e),
            }
            child.pop();
        }
        Ok(divide)
    }

    fn total(&mut self, fen: &str, moves: &[String], depth: u32) -> Option<Result<u128>> {
        Some(self.ask(fen, moves, depth))
    }
}

/// Start an engine for `compare`/`stress`: a [`TotalOnlyEngine`] when `perft_command` is given (UCI only),
/// else as [`super::start`].
///
/// # Errors
/// As the engines' `start`; [`Error::Setting`] ([`Setting::PerftCommand`]) for a perft command with the
/// script protocol.
pub fn start_with_perft_command(
    protocol: super::Protocol,
    command: &str,
    perft_command: Option<&str>,
    chess960: bool,
    timeout: Duration,
) -> Result<Box<dyn Engine>> {
    match (perft_command, protocol) {
        (None, _) => super::start(protocol, command, chess960, timeout),
        (Some(t), super::Protocol::Uci) => Ok(Box::new(TotalOnlyEngine::start(
            command, t, chess960, timeout,
        )?)),
        (Some(_), super::Protocol::Script) => Err(SettingError {
            setting: Setting::PerftCommand,
            value: None,
            reason: vec![
                Part::Text("only for UCI engines (".into()),
                Part::Setting(Setting::UciProtocol),
                Part::Text(")".into()),
            ],
        }
        .into()),
    }
}
