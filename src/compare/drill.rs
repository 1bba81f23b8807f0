//! The divide diff and the automatic drill-down to the minimal failing position.
//!
//! The drill-down follows perftree's idea without the manual steps: compare both divides at the root; if a
//! move is missing or extra, that position is the answer; otherwise descend into the first move whose counts
//! differ, one ply shallower, until depth 1, where the move lists themselves must differ.

use super::{classify, FailureKind};
use crate::backend::Backend;
use crate::engines::{Divide, Engine};
use crate::error::Result;
use crate::line::Line;
use crate::types::{Move, MoveKind};
use crate::validate::Checked;
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;

/// What to compare: the engine is given the line's root and moves, both sides count the line's end position
/// at `depth`.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The root position and the moves played from it (both already checked).
    pub line: &'a Line,
    /// Depth compared at the line's end, at least 1.
    pub depth: u32,
    /// Write castling as king takes rook (and tell a UCI engine `UCI_Chess960`).
    pub chess960: bool,
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

/// Where and how the engine and perftlab disagree: the minimal failing position.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Failure {
    /// UCI moves from the compared position to the failing one.
    pub path: Vec<String>,
    /// The failing position.
    pub fen: String,
    /// The depth compared there.
    pub depth: u32,
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

/// The result of comparing one position.
///
/// As JSON: `agree`, `root`, `depth`, `engine_nodes`, `nodes`, and the failure's fields (`path`, `fen`,
/// `failing_depth`, `missing`, `extra`, `wrong_counts`, `kinds`), which say the root, the depth and empty
/// lists when both agree.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Comparison {
    /// The position compared (after the line's moves).
    pub root: String,
    /// Depth compared there.
    pub depth: u32,
    /// The engine's total there.
    pub engine_nodes: u128,
    /// perftlab's total there.
    pub nodes: u128,
    /// `None` when both agree.
    pub failure: Option<Failure>,
    /// The engine failed (died, hung, garbage) during the drill-down after the totals differed: `failure` is
    /// then the deepest mismatch known before, and this says what happened.
    pub engine_error: Option<String>,
}

impl Comparison {
    /// Both agree.
    pub fn agree(&self) -> bool {
        self.failure.is_none()
    }
}

impl Serialize for Comparison {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a> {
            agree: bool,
            root: &'a str,
            depth: u32,
            engine_nodes: u128,
            nodes: u128,
            path: &'a [String],
            fen: &'a str,
            failing_depth: u32,
            missing: &'a [String],
            extra: &'a [String],
            wrong_counts: &'a [WrongCount],
            kinds: &'a [FailureKind],
            #[serde(skip_serializing_if = "Option::is_none")]
            engine_error: Option<&'a str>,
        }
        let f = self.failure.as_ref();
        Wire {
            agree: f.is_none(),
            root: &self.root,
            depth: self.depth,
            engine_nodes: self.engine_nodes,
            nodes: self.nodes,
            path: f.map_or(&[], |f| &f.path),
            fen: f.map_or(&self.root, |f| &f.fen),
            failing_depth: f.map_or(self.depth, |f| f.depth),
            missing: f.map_or(&[], |f| &f.missing),
            extra: f.map_or(&[], |f| &f.extra),
            wrong_counts: f.map_or(&[], |f| &f.wrong_counts),
            kinds: f.map_or(&[], |f| &f.kinds),
            engine_error: self.engine_error.as_deref(),
        }
        .serialize(s)
    }
}

fn our_divide(
    backend: &dyn Backend,
    pos: &Checked,
    depth: u32,
    chess960: bool,
) -> Result<(BTreeMap<String, u128>, BTreeMap<String, Move>)> {
    let mut counts = BTreeMap::new();
    let mut moves = BTreeMap::new();
    for (m, n) in backend.divide(pos, depth)? {
        let text = m.to_uci(chess960);
        counts.insert(text.clone(), n);
        moves.insert(text, m);
    }
    Ok((counts, moves))
}

fn failure(
    pos: &Checked,
    path: Vec<String>,
    depth: u32,
    missing: Vec<String>,
    extra: Vec<String>,
    wrong_counts: Vec<WrongCount>,
) -> Failure {
    let mut kinds: Vec<FailureKind> = missing
        .iter()
        .chain(&extra)
        .chain(wrong_counts.iter().map(|w| &w.mv))
        .map(|t| classify(pos, t))
        .collect();
    kinds.sort();
    kinds.dedup();
    Failure {
        path,
        fen: pos.to_fen(),
        depth,
        missing,
        extra,
        wrong_counts,
        kinds,
    }
}

/// Compare `engine` with `backend` on `request`, drilling down to the minimal failing position; calls
/// `progress(path, depth)` before each level of the drill-down.
///
/// # Errors
/// [`Error::Usage`] for depth 0; an engine or backend failure.
pub fn compare(
    engine: &mut dyn Engine,
    backend: &dyn Backend,
    request: &Request,
    progress: &mut dyn FnMut(&[String], u32),
) -> Result<Comparison> {
    let Request {
        line,
        depth,
        chess960,
    } = *request;
    if depth == 0 {
        return Err(crate::error::SettingError::new(
            crate::error::Setting::Depth,
            Some("0".into()),
            "cannot be compared (use 1 or more)",
        )
        .into());
    }
    let root_fen = line.positions[0].to_fen();
    let start = line.end();
    let mut sent: Vec<String> = line.moves.iter().map(|m| m.to_uci(chess960)).collect();
    // An engine that reports only totals is asked for the total first: when it agrees, so does the
    // comparison (its divide, built from more questions, is needed only to find a difference).
    if let Some(theirs) = engine.total(&root_fen, &sent, depth) {
        progress(&[], depth);
        let theirs = theirs?;
        let ours = backend.perft(start, depth)?;
        if theirs == ours {
            return Ok(Comparison {
                root: start.to_fen(),
                depth,
                engine_nodes: theirs,
                nodes: ours,
                failure: None,
                engine_error: None,
            });
        }
    }
    let mut path: Vec<String> = Vec::new();
    let mut cur = start.clone();
    let mut d = depth;
    let mut totals: Option<(u128, u128)> = None;
    // Where we came from, for a count that no longer differs one ply deeper.
    let mut parent: Option<(Checked, WrongCount, u32)> = None;
    loop {
        progress(&path, d);
        let (ours, legal) = our_divide(backend, &cur, d, chess960)?;
        let theirs = match (engine.divide(&root_fen, &sent, d), &parent, totals) {
            (Ok(t), _, _) => t,
            // The engine failed below a count that differed: that difference is the deepest one known.
            (Err(e), Some((pset, wrong, pd)), Some((engine_nodes, nodes)))
                if e.is_engine_failure() =>
            {
                path.pop();
                return Ok(Comparison {
                    root: start.to_fen(),
                    depth,
                    engine_nodes,
                    nodes,
                    failure: Some(failure(
                        pset,
                        path,
                        *pd,
                        vec![],
                        vec![],
                        vec![wrong.clone()],
                    )),
                    engine_error: Some(e.to_string()),
                });
            }
            (Err(e), _, _) => return Err(e),
        };
        let theirs = same_castling_notation(theirs, &legal, chess960);
        let our_total: u128 = ours.values().sum();
        let (engine_nodes, nodes) = *totals.get_or_insert((theirs.total, our_total));
        let done = |failure| Comparison {
            root: start.to_fen(),
            depth,
            engine_nodes,
            nodes,
            failure,
            engine_error: None,
        };
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
        if !missing.is_empty() || !extra.is_empty() {
            return Ok(done(Some(failure(
                &cur, path, d, missing, extra, differing,
            ))));
        }
        if differing.is_empty() && theirs.total == our_total {
            if let Some((pset, wrong, pd)) = parent {
                // The engine's own count for this move disagrees with its divide one ply deeper: the fault
                // shows only when it plays the move itself, so report the parent position.
                path.pop();
                return Ok(done(Some(failure(
                    &pset,
                    path,
                    pd,
                    vec![],
                    vec![],
                    vec![wrong],
                ))));
            }
            return Ok(done(None));
        }
        if differing.is_empty() || d == 1 {
            // Same moves, same counts, different total: the engine's sum is off; or a duplicated move at
            // depth 1.
            return Ok(done(Some(failure(
                &cur,
                path,
                d,
                vec![],
                vec![],
                differing,
            ))));
        }
        let first = differing[0].clone();
        let m = legal[&first.mv];
        parent = Some((cur.clone(), first.clone(), d));
        cur = cur.play(m)?;
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
            (m.kind() == MoveKind::Castling).then(|| (k.clone(), m.to_uci(chess960)))
        })
        .collect();
    for (from, to) in renamed {
        if let Some(n) = theirs.moves.remove(&from) {
            *theirs.moves.entry(to).or_insert(0) += n;
        }
    }
    theirs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::play_line;

    /// An in-process engine: the reference generator's divide, then `tamper` applied to it.
    struct Mock<F: FnMut(&[String], u32, &mut Divide)>(F);

    impl<F: FnMut(&[String], u32, &mut Divide)> Engine for Mock<F> {
        fn describe(&self) -> String {
            "mock".into()
        }
        fn divide(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<Divide> {
            let line = play_line(&Checked::from_fen(fen).unwrap(), moves)?;
            let mut d = Divide::default();
            for (m, n) in crate::backend::ReferenceBackend.divide(line.end(), depth)? {
                d.moves.insert(m.to_uci(false), n);
                d.total += n;
            }
            (self.0)(moves, depth, &mut d);
            Ok(d)
        }
    }

    fn run(tamper: impl FnMut(&[String], u32, &mut Divide)) -> Comparison {
        let line = play_line(&Checked::startpos(), &[]).unwrap();
        let request = Request {
            line: &line,
            depth: 3,
            chess960: false,
        };
        compare(
            &mut Mock(tamper),
            &crate::backend::ReferenceBackend,
            &request,
            &mut |_, _| {},
        )
        .unwrap()
    }

    #[test]
    fn drill_down_reports_duplicates_and_self_contradictions() {
        // Honest mock: agreement.
        assert!(run(|_, _, _| {}).agree());
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
        let f = c.failure.expect("a failure");
        assert_eq!(f.path, ["e2e4", "e7e5"]);
        assert_eq!(f.depth, 1);
        assert!(f.missing.is_empty() && f.extra.is_empty());
        assert_eq!(
            f.wrong_counts,
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
        assert_eq!(c.engine_nodes + 5, c.nodes);
        let f = c.failure.expect("a failure");
        assert_eq!((f.path.len(), f.depth), (0, 3));
        assert_eq!(f.wrong_counts[0].mv, "g1f3");
    }

    #[test]
    fn castling_in_the_other_notation_is_the_same_move() {
        let s = Checked::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let line = play_line(&s, &[]).unwrap();
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
                &crate::backend::ReferenceBackend,
                &Request {
                    line: &line,
                    depth: 1,
                    chess960: ours,
                },
                &mut |_, _| {},
            )
            .unwrap();
            assert!(
                c.agree(),
                "perftlab chess960={ours}, engine chess960={theirs}: {c:?}"
            );
        }
    }
}
