//! A UCI engine as a divide oracle: `uci`/`uciok`, `setoption name UCI_Chess960 value true` when needed,
//! `isready`/`readyok`, then per request `position fen … moves …` and `go perft N`, reading `move: count`
//! lines until `Nodes searched: N` (Stockfish's format, read by [`super::DivideReader`]). The child process is killed on drop.
//!
//! Output is read on helper threads into a channel, so every wait has a deadline (`--timeout`), and the last
//! lines the engine printed (stderr included) are quoted in every error.

use super::divide::DivideReader;
use super::{
    kill_group, looks_like_uci, own_process_group, register, split_command, Divide, Engine,
};
use crate::error::{EngineError, EngineFailure, Error, Part, Result, Setting};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How many recent output lines errors quote.
const RECENT: usize = 8;

/// A running UCI engine.
pub struct UciEngine {
    command: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    recent: VecDeque<String>,
    timeout: Duration,
}

impl UciEngine {
    /// Start `command` and complete the UCI handshake (with `UCI_Chess960` set when `chess960`).
    ///
    /// # Errors
    /// [`Error::Setting`] ([`Setting::Engine`]) when the command cannot be started; [`Error::Backend`]
    /// when the engine exits or never says `uciok`/`readyok`, [`Error::Engine`] when it hangs.
    pub fn start(command: &str, chess960: bool, timeout: Duration) -> Result<UciEngine> {
        let words = split_command(command)?;
        let mut child = own_process_group(&mut Command::new(&words[0]))
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                // Debian and Ubuntu install Stockfish as /usr/games/stockfish, often not on PATH.
                let hint = if e.kind() == std::io::ErrorKind::NotFound
                    && !words[0].contains('/')
                    && std::path::Path::new("/usr/games").join(&words[0]).exists()
                {
                    vec![
                        Part::Text(format!(
                            " (Debian installs it as /usr/games/{0}: add /usr/games to PATH or pass ",
                            words[0]
                        )),
                        Part::Setting(Setting::Engine),
                        Part::Text(format!(" /usr/games/{})", words[0])),
                    ]
                } else if e.kind() == std::io::ErrorKind::NotFound && words[0] == "stockfish" {
                    vec![Part::Text(
                        " (Debian's package 'stockfish' installs it as /usr/games/stockfish)".into(),
                    )]
                } else {
                    vec![]
                };
                super::cannot_start(command, &e, hint)
            })?;
        register(&child);
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, rx) = mpsc::channel();
        let tx_err = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx_err.send(format!("(stderr) {line}")).is_err() {
                    break;
                }
            }
        });
        let mut engine = UciEngine {
            command: command.to_string(),
            child,
            stdin,
            lines: rx,
            recent: VecDeque::new(),
            timeout,
        };
        engine.send("uci")?;
        engine.wait_for("uci", |l| l.trim() == "uciok")?;
        if chess960 {
            engine.send("setoption name UCI_Chess960 value true")?;
        }
        engine.send("isready")?;
        engine.wait_for("isready", |l| l.trim() == "readyok")?;
        Ok(engine)
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn said(&self) -> String {
        if self.recent.is_empty() {
            "nothing".to_string()
        } else {
            self.recent
                .iter()
                .map(|l| format!("'{l}'"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    }

    fn remember(&mut self, line: String) {
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(line);
    }

    fn died(&mut self, waiting_for: &str) -> Error {
        // Collect what it printed before dying (a write can fail before its output has been read).
        for _ in 0..1000 {
            let Ok(line) = self.lines.recv_timeout(Duration::from_millis(200)) else {
                break;
            };
            self.remember(line);
        }
        // Give the process a moment to be reaped so the status is known.
        let mut status = None;
        for _ in 0..20 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let status = status.map_or("closed its output".to_string(), |s| format!("exited ({s})"));
        Error::Backend(format!(
            "engine '{}' {status} while perftlab waited for the answer to '{waiting_for}'; it said: {}",
            self.command,
            self.said()
        ))
    }

    fn send(&mut self, line: &str) -> Result<()> {
        if writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .is_err()
        {
            return Err(self.died(line));
        }
        Ok(())
    }

    /// The next line, within the deadline.
    fn next_line(&mut self, waiting_for: &str, deadline: Instant) -> Result<String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => {
                self.remember(line.clone());
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(EngineError::new(EngineFailure::NoAnswer {
                engine: self.command.clone(),
                waiting_for: waiting_for.to_string(),
                timeout: self.timeout,
                said: self.said(),
            })
            .into()),
            Err(RecvTimeoutError::Disconnected) => Err(self.died(waiting_for)),
        }
    }

    fn wait_for(&mut self, waiting_for: &str, done: impl Fn(&str) -> bool) -> Result<()> {
        let deadline = Instant::now() + self.timeout;
        loop {
            let line = self.next_line(waiting_for, deadline)?;
            if done(&line) {
                return Ok(());
            }
        }
    }

    fn garbage(&self, request: &str, line: &str, why: &str) -> Error {
        Error::Backend(format!(
            "engine '{}' answered '{request}' with an unreadable line '{line}' ({why}); it said: {}",
            self.command,
            self.said()
        ))
    }
}

/// What an engine's `--perft-command` must do, quoted in every error about its answers.
pub const PERFT_COMMAND_MUST: &str = "the engine's perft command must print the node count, alone on a line \
     or as the last number of a line such as 'Nodes searched: 8902', and the engine must answer 'isready' \
     with 'readyok'";

/// The last number of a line that may carry a perft total: not a divide line (`e2e4: 20`), not a UCI
/// `info` line; the number is a whole word (`8902`, `8902.`, `nodes 8902`), never digits inside a word
/// (`nn-ad9b42354671.nnue`).
fn total_of_line(line: &str) -> Option<u128> {
    let t = line.trim();
    if t.starts_with("info") {
        return None;
    }
    if let Some((mv, _)) = t.split_once(':') {
        if looks_like_uci(mv.trim()) {
            return None;
        }
    }
    t.split(|c: char| c.is_whitespace() || c == ':' || c == '=' || c == ',')
        .filter_map(|w| {
            let w = w.trim_end_matches(['.', ';', ')']);
            if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) {
                w.parse::<u128>().ok()
            } else {
                None
            }
        })
        .next_back()
}

impl UciEngine {
    /// The total of an engine whose perft command prints only a number: sends `position fen … moves …`,
    /// the `command` line and `isready`, and reads the last number printed (see [`PERFT_COMMAND_MUST`]).
    ///
    /// Engines run the command either in their input loop (the number comes before `readyok`) or on a search
    /// thread (Stockfish's `go perft`: `readyok` comes at once, the number later, after any divide lines). So
    /// the answer is complete when `readyok` has come *and* a number has been read after the last divide
    /// line. Then the engine is synchronised again (`isready` … `readyok`), so that nothing it prints late is
    /// read as the answer to the next question.
    ///
    /// # Errors
    /// [`Error::Backend`] when the engine dies or prints no number; [`Error::Engine`] when it hangs or does
    /// not know the command.
    pub fn total(&mut self, fen: &str, moves: &[String], command: &str) -> Result<u128> {
        let position = if moves.is_empty() {
            format!("position fen {fen}")
        } else {
            format!("position fen {fen} moves {}", moves.join(" "))
        };
        let request = format!("{position}; {command}");
        self.send(&position)?;
        self.send(command)?;
        self.send("isready")?;
        let deadline = Instant::now() + self.timeout;
        let mut ready = false;
        let mut last: Option<u128> = None;
        loop {
            let line = self.next_line(&request, deadline).map_err(must)?;
            let t = line.trim();
            if t == "readyok" {
                ready = true;
            } else if line.starts_with("(stderr)") {
                continue;
            } else if t.to_ascii_lowercase().contains("unknown command") {
                return Err(must(
                    EngineError::new(EngineFailure::UnknownPerftCommand {
                        engine: self.command.clone(),
                        request: request.clone(),
                        line: t.to_string(),
                        said: self.said(),
                    })
                    .into(),
                ));
            } else if t
                .split_once(':')
                .is_some_and(|(m, _)| looks_like_uci(m.trim()))
            {
                // A divide line: the total comes after it.
                last = None;
            } else if let Some(n) = total_of_line(t) {
                last = Some(n);
            }
            if let (true, Some(n)) = (ready, last) {
                self.sync(&request)?;
                return Ok(n);
            }
        }
    }

    /// Send `isready` and read up to its `readyok`, dropping what comes before.
    fn sync(&mut self, request: &str) -> Result<()> {
        self.send("isready")?;
        let deadline = Instant::now() + self.timeout;
        loop {
            let line = self
                .next_line(&format!("isready (after '{request}')"), deadline)
                .map_err(must)?;
            if line.trim() == "readyok" {
                return Ok(());
            }
        }
    }
}

/// An engine error with what the perft command must do.
fn must(e: Error) -> Error {
    match e {
        Error::Backend(m) => Error::Backend(format!("{m} ({PERFT_COMMAND_MUST})")),
        Error::Engine(mut e) => {
            e.note = Some(PERFT_COMMAND_MUST.to_string());
            Error::Engine(e)
        }
        other => other,
    }
}

impl Engine for UciEngine {
    fn describe(&self) -> String {
        self.command.clone()
    }

    fn divide(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<Divide> {
        let position = if moves.is_empty() {
            format!("position fen {fen}")
        } else {
            format!("position fen {fen} moves {}", moves.join(" "))
        };
        let go = format!("go perft {depth}");
        let request = format!("{position}; {go}");
        self.send(&position)?;
        self.send(&go)?;
        let deadline = Instant::now() + self.timeout;
        let mut reader = DivideReader::default();
        loop {
            let line = self.next_line(&request, deadline)?;
            match reader.line(&line) {
                Ok(Some(divide)) => return Ok(divide),
                Ok(None) => {}
                Err(e) => return Err(self.garbage(&request, &e.line, &e.why)),
            }
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        kill_group(&mut self.child);
    }
}
