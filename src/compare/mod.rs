//! Comparing perftlab with an external move generator: the [`Engine`] trait (a UCI engine answering
//! `go perft N`, or a perftree-style script), the divide diff, and the automatic drill-down to the minimal
//! failing position.
//!
//! The drill-down follows perftree's idea without the manual steps: compare both divides at the root; if a
//! move is missing or extra, that position is the answer; otherwise descend into the first move whose counts
//! differ, one ply shallower, until depth 1, where the move lists themselves must differ.

pub mod random;
pub mod script;
pub mod uci;

use crate::analyze;
use crate::error::{Error, Result};
use crate::perft::Backend;
use crate::position::Setup;
use crate::reference;
use crate::types::{Move, Role, Square};
use serde::Serialize;
use std::collections::BTreeMap;

pub use script::ScriptEngine;
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
    /// [`Error::Backend`] when the engine dies, hangs past the timeout, or prints something unreadable; the
    /// message quotes what it said.
    fn divide(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<Divide>;
}

/// Which protocol the external engine speaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Protocol {
    /// UCI: `position fen … moves …`, `go perft N`, `move: count` lines and `Nodes searched: N`.
    Uci,
    /// perftree's script protocol: `CMD "$depth" "$fen" "$moves"`, `move count` lines, a blank line, the total.
    Script,
}

/// Start an engine.
///
/// # Errors
/// [`Error::Usage`] when the command cannot be parsed or started; [`Error::Backend`] when it does not
/// complete the UCI handshake.
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

/// Split an `--engine` command line into program and arguments (whitespace separated; single and double
/// quotes group; backslash escapes the next character outside single quotes).
///
/// # Errors
/// [`Error::Usage`] for an empty command or an unclosed quote.
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
        return Err(Error::Usage(format!(
            "--engine: unclosed quote in '{text}'"
        )));
    }
    if in_word {
        words.push(cur);
    }
    if words.is_empty() {
        return Err(Error::Usage("--engine: the command is empty".into()));
    }
    Ok(words)
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

/// The kind of move a failure involves, for grouping stress failures.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Serialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// A castling move.
    Castling,
    /// An en-passant capture.
    EnPassant,
    /// A promotion.
    Promotion,
    /// Any move while in check.
    CheckEvasion,
    /// A move of a pinned piece, or one that would expose the king.
    Pin,
    /// None of the above.
    Other,
}

impl FailureKind {
    /// The snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Castling => "castling",
            FailureKind::EnPassant => "en_passant",
            FailureKind::Promotion => "promotion",
            FailureKind::CheckEvasion => "check_evasion",
            FailureKind::Pin => "pin",
            FailureKind::Other => "other",
        }
    }
}

/// Classify a move text (legal or not) in `setup` by the kind of rule it exercises.
pub fn classify(setup: &Setup, text: &str) -> FailureKind {
    if !looks_like_uci(text) {
        return FailureKind::Other;
    }
    let from = Square::parse(&text[0..2]).expect("checked");
    let to = Square::parse(&text[2..4]).expect("checked");
    let piece = setup.piece_at(from);
    let role = piece.map(|p| p.role);
    let own_rook = piece
        .is_some_and(|p| setup.piece_at(to) == Some(crate::types::Piece::new(p.color, Role::Rook)));
    if role == Some(Role::King) && (from.file().abs_diff(to.file()) == 2 || own_rook) {
        return FailureKind::Castling;
    }
    if role == Some(Role::Pawn) && from.file() != to.file() && setup.piece_at(to).is_none() {
        return FailureKind::EnPassant;
    }
    if text.len() == 5 || (role == Some(Role::Pawn) && (to.rank() == 0 || to.rank() == 7)) {
        return FailureKind::Promotion;
    }
    if reference::Position::from_setup(setup).in_check() {
        return FailureKind::CheckEvasion;
    }
    if analyze::pinned(setup).contains(&from) {
        return FailureKind::Pin;
    }
    // A pseudo-legal move that exposes the king (a king walking into an attack, say) is a king-safety slip.
    let mut probe = setup.clone();
    if let (Some(p), true) = (piece, role != Some(Role::King)) {
        probe.board[to.index()] = Some(p);
        probe.board[from.index()] = None;
        if probe
            .kings(p.color)
            .first()
            .is_some_and(|&k| !reference::attackers(&probe, k, !p.color).is_empty())
        {
            return FailureKind::Pin;
        }
    }
    FailureKind::Other
}

/// One root move whose counts differ.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct WrongCount {
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// The engine's count.
    pub engine: u128,
    /// perftlab's count.
    pub perftlab: u128,
}

/// The result of comparing one root position.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// Both agree at the root.
    pub agree: bool,
    /// The root position compared (after `--moves`).
    pub root: String,
    /// Depth compared at the root.
    pub depth: u32,
    /// The engine's root total.
    pub engine_nodes: u128,
    /// perftlab's root total.
    pub nodes: u128,
    /// UCI moves from the root to the minimal failing position (empty when they agree).
    pub path: Vec<String>,
    /// The minimal failing position (the root when they agree).
    pub fen: String,
    /// The depth compared at the minimal failing position.
    pub failing_depth: u32,
    /// Legal moves the engine lacks there.
    pub missing: Vec<String>,
    /// Moves the engine gives there that are not legal.
    pub extra: Vec<String>,
    /// Moves both list whose counts still differ there (only when nothing is missing or extra: the engine
    /// lists a move twice, or its count after a move disagrees with its own divide one ply deeper).
    pub wrong_counts: Vec<WrongCount>,
    /// The kinds of move involved, for grouping.
    pub kinds: Vec<FailureKind>,
}

fn our_divide(
    backend: &dyn Backend,
    setup: &Setup,
    depth: u32,
    chess960: bool,
) -> Result<(BTreeMap<String, u128>, BTreeMap<String, Move>)> {
    let mut counts = BTreeMap::new();
    let mut moves = BTreeMap::new();
    for (m, n) in backend.divide(setup, depth)? {
        let text = m.to_uci(chess960);
        counts.insert(text.clone(), n);
        moves.insert(text, m);
    }
    Ok((counts, moves))
}

/// Compare `engine` with `backend` on the position reached from `root_fen` by `prefix` (UCI moves already
/// checked legal, in the engine's notation), at `depth` ≥ 1, drilling down to the minimal failing position.
///
/// # Errors
/// An engine or backend failure.
pub fn compare(
    engine: &mut dyn Engine,
    backend: &dyn Backend,
    root_fen: &str,
    prefix: &[String],
    start: &Setup,
    depth: u32,
    chess960: bool,
) -> Result<Comparison> {
    compare_with_progress(
        engine,
        backend,
        root_fen,
        prefix,
        start,
        depth,
        chess960,
        &mut |_, _| {},
    )
}

/// [`compare`], calling `progress(path, depth)` before each level of the drill-down.
///
/// # Errors
/// An engine or backend failure.
#[allow(clippy::too_many_arguments)]
pub fn compare_with_progress(
    engine: &mut dyn Engine,
    backend: &dyn Backend,
    root_fen: &str,
    prefix: &[String],
    start: &Setup,
    depth: u32,
    chess960: bool,
    progress: &mut dyn FnMut(&[String], u32),
) -> Result<Comparison> {
    if depth == 0 {
        return Err(Error::Usage(
            "--depth: '0' cannot be compared (use 1 or more)".into(),
        ));
    }
    let mut sent: Vec<String> = prefix.to_vec();
    let mut path: Vec<String> = Vec::new();
    let mut cur = start.clone();
    let mut d = depth;
    let mut totals: Option<(u128, u128)> = None;
    // Where we came from, for a count that no longer differs one ply deeper.
    let mut parent: Option<(Setup, WrongCount, u32)> = None;
    loop {
        progress(&path, d);
        let (ours, legal) = our_divide(backend, &cur, d, chess960)?;
        let theirs = same_castling_notation(engine.divide(root_fen, &sent, d)?, &legal, chess960);
        let our_total: u128 = ours.values().sum();
        let (engine_nodes, nodes) = *totals.get_or_insert((theirs.total, our_total));
        let missing: Vec<String> = ours
            .keys()
            .filter(|k| !theirs.moves.contains_key(*k))
            .cloned()
            .collect();
        let extra: Vec<String> = theirs
            .moves
            .keys()
            .filter(|k| !ours.contains_key(*k))
            .cloned()
            .collect();
        let differing: Vec<WrongCount> = ours
            .iter()
            .filter_map(|(k, &n)| {
                let e = *theirs.moves.get(k)?;
                (e != n).then(|| WrongCount {
                    mv: k.clone(),
                    engine: e,
                    perftlab: n,
                })
            })
            .collect();
        let fail = |cur: &Setup,
                    path: Vec<String>,
                    d: u32,
                    missing: Vec<String>,
                    extra: Vec<String>,
                    wrong: Vec<WrongCount>| {
            let mut kinds: Vec<FailureKind> = missing
                .iter()
                .chain(&extra)
                .chain(wrong.iter().map(|w| &w.mv))
                .map(|t| classify(cur, t))
                .collect();
            kinds.sort();
            kinds.dedup();
            Comparison {
                agree: false,
                root: start.to_fen(),
                depth,
                engine_nodes,
                nodes,
                path,
                fen: cur.to_fen(),
                failing_depth: d,
                missing,
                extra,
                wrong_counts: wrong,
                kinds,
            }
        };
        if !missing.is_empty() || !extra.is_empty() {
            return Ok(fail(&cur, path, d, missing, extra, differing));
        }
        if differing.is_empty() && theirs.total == our_total {
            if let Some((pset, wrong, pd)) = parent {
                // The engine's own count for this move disagrees with its divide one ply deeper: the fault
                // shows only when it plays the move itself, so report the parent position.
                path.pop();
                return Ok(fail(&pset, path, pd, vec![], vec![], vec![wrong]));
            }
            return Ok(Comparison {
                agree: true,
                root: start.to_fen(),
                depth,
                engine_nodes,
                nodes,
                path: vec![],
                fen: start.to_fen(),
                failing_depth: depth,
                missing: vec![],
                extra: vec![],
                wrong_counts: vec![],
                kinds: vec![],
            });
        }
        if differing.is_empty() || d == 1 {
            // Same moves, same counts, different total: the engine's sum is off; or a duplicated move at
            // depth 1.
            return Ok(fail(&cur, path, d, vec![], vec![], differing));
        }
        let first = differing[0].clone();
        let m = legal[&first.mv];
        parent = Some((cur.clone(), first.clone(), d));
        cur = reference::play(&cur, m);
        sent.push(first.mv.clone());
        path.push(first.mv);
        d -= 1;
    }
}

/// Write the engine's castling moves in perftlab's notation when it used the other one (king to its target
/// square instead of king takes rook, or the reverse): the comparison is about move generation, and perftree
/// scripts have no way to learn which notation is wanted. A text that is also a plain king move stays as it is.
fn same_castling_notation(
    mut theirs: Divide,
    legal: &BTreeMap<String, Move>,
    chess960: bool,
) -> Divide {
    let moves: Vec<Move> = legal.values().copied().collect();
    let renamed: Vec<(String, String)> = theirs
        .moves
        .keys()
        .filter(|k| !legal.contains_key(*k))
        .filter_map(|k| {
            let m = Move::find_uci(&moves, k)?;
            (m.kind() == crate::types::MoveKind::Castling).then(|| (k.clone(), m.to_uci(chess960)))
        })
        .collect();
    for (from, to) in renamed {
        if let Some(n) = theirs.moves.remove(&from) {
            *theirs.moves.entry(to).or_insert(0) += n;
        }
    }
    theirs
}

/// Turn `--moves` (UCI in either castling notation) into legal moves from `root`, written in the notation
/// chosen (`chess960`: king takes rook); returns them and the position they reach.
///
/// # Errors
/// [`Error::Usage`] naming the move and position when a move is not legal.
pub fn prepare_moves(
    root: &Setup,
    moves: &[String],
    chess960: bool,
) -> Result<(Vec<String>, Setup)> {
    let mut cur = root.clone();
    let mut out = Vec::new();
    for (i, text) in moves.iter().enumerate() {
        let legal = reference::legal_moves(&cur);
        let m = Move::find_uci(&legal, text).ok_or_else(|| {
            Error::Usage(format!(
                "--moves: move {} '{text}' is not legal in '{}'",
                i + 1,
                cur.to_fen()
            ))
        })?;
        out.push(m.to_uci(chess960));
        cur = reference::play(&cur, m);
    }
    Ok((out, cur))
}

/// Split `--moves` values that hold several moves separated by spaces.
pub fn split_moves(moves: &[String]) -> Vec<String> {
    moves
        .iter()
        .flat_map(|m| m.split_whitespace().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An in-process engine: the reference generator's divide, then `tamper` applied to it.
    struct Mock<F: FnMut(&[String], u32, &mut Divide)>(F);

    impl<F: FnMut(&[String], u32, &mut Divide)> Engine for Mock<F> {
        fn describe(&self) -> String {
            "mock".into()
        }
        fn divide(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<Divide> {
            let (_, setup) = prepare_moves(&Setup::from_fen(fen).unwrap(), moves, false)?;
            let mut d = Divide::default();
            for (m, n) in crate::perft::ReferenceBackend.divide(&setup, depth)? {
                d.moves.insert(m.to_uci(false), n);
                d.total += n;
            }
            (self.0)(moves, depth, &mut d);
            Ok(d)
        }
    }

    fn run(tamper: impl FnMut(&[String], u32, &mut Divide)) -> Comparison {
        let s = Setup::startpos();
        compare(
            &mut Mock(tamper),
            &crate::perft::ReferenceBackend,
            &s.to_fen(),
            &[],
            &s,
            3,
            false,
        )
        .unwrap()
    }

    #[test]
    fn drill_down_reports_duplicates_and_self_contradictions() {
        // Honest mock: agreement.
        assert!(run(|_, _, _| {}).agree);
        // A move listed twice at depth 1 after e2e4 e7e5 (and so counted once more in each count above it):
        // the move sets agree everywhere, the count is wrong there.
        let c = run(|moves, _, d| {
            let next = match moves.len() {
                0 => "e2e4",
                1 if moves == ["e2e4"] => "e7e5",
                2 if moves == ["e2e4", "e7e5"] => "d1h5",
                _ => return,
            };
            *d.moves.get_mut(next).unwrap() += 1;
            d.total += 1;
        });
        assert!(!c.agree);
        assert_eq!(c.path, ["e2e4", "e7e5"]);
        assert_eq!(c.failing_depth, 1);
        assert!(c.missing.is_empty() && c.extra.is_empty());
        assert_eq!(
            c.wrong_counts,
            [WrongCount {
                mv: "d1h5".into(),
                engine: 2,
                perftlab: 1
            }]
        );
        // The root count of g1f3 is off, but the engine's own divide after g1f3 is right: the fault is
        // reported at the root, on g1f3.
        let c = run(|moves, depth, d| {
            if moves.is_empty() && depth == 3 {
                *d.moves.get_mut("g1f3").unwrap() -= 5;
                d.total -= 5;
            }
        });
        assert_eq!((c.path.len(), c.failing_depth), (0, 3));
        assert_eq!(c.wrong_counts[0].mv, "g1f3");
        assert_eq!(c.engine_nodes + 5, c.nodes);
    }

    #[test]
    fn castling_in_the_other_notation_is_the_same_move() {
        let s = Setup::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        for (ours, theirs) in [(true, false), (false, true)] {
            let c = compare(
                &mut Mock(|_: &[String], _, d: &mut Divide| {
                    d.moves = std::mem::take(&mut d.moves)
                        .into_iter()
                        .map(|(k, n)| {
                            let k = match (k.as_str(), theirs) {
                                ("e1g1", true) => "e1h1".to_string(),
                                ("e1c1", true) => "e1a1".to_string(),
                                _ => k,
                            };
                            (k, n)
                        })
                        .collect();
                }),
                &crate::perft::ReferenceBackend,
                &s.to_fen(),
                &[],
                &s,
                1,
                ours,
            )
            .unwrap();
            assert!(
                c.agree,
                "perftlab chess960={ours}, engine chess960={theirs}: {c:?}"
            );
        }
    }

    #[test]
    fn splits_commands_like_a_shell() {
        assert_eq!(
            split_command("python3 'a b.py' --bug \"ep check\" x\\ y").unwrap(),
            vec!["python3", "a b.py", "--bug", "ep check", "x y"]
        );
        assert!(split_command("  ").is_err());
        assert!(split_command("a 'b").is_err());
    }

    #[test]
    fn classifies_moves_by_rule() {
        let s = Setup::from_fen("r3k2r/8/8/3pP3/8/8/1p6/R3K2R w KQkq d6 0 1").unwrap();
        assert_eq!(classify(&s, "e1g1"), FailureKind::Castling);
        assert_eq!(classify(&s, "e1h1"), FailureKind::Castling);
        assert_eq!(classify(&s, "e5d6"), FailureKind::EnPassant);
        let s = Setup::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(classify(&s, "b7b8n"), FailureKind::Promotion);
        let s = Setup::from_fen("4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1").unwrap();
        assert_eq!(classify(&s, "a1a2"), FailureKind::CheckEvasion);
        let s = Setup::from_fen("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1").unwrap();
        assert_eq!(classify(&s, "e2d2"), FailureKind::Pin);
        assert_eq!(classify(&s, "e1f1"), FailureKind::Other);
        assert!(looks_like_uci("e7e8q") && !looks_like_uci("e7e8x") && !looks_like_uci("Nodes"));
        assert!(!looks_like_uci("aé4x") && !looks_like_uci("é2e4"));
    }
}
