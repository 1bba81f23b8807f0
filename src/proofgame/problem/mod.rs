//! Proof-game problems as composers set them: a diagram (placement, side to move) and a number of plies N;
//! every game of exactly N plies from the initial position (FIDE 2.3) that reaches the diagram is a solution.
//! Castling rights and the e.p. square are free (any), unless the stipulation fixes them. The verdict is
//! **unique** (one solution), **cooked** (several), **no solution**, or **undetermined** (a limit stopped the
//! search first). docs/proofgames.md has the deductions, their proofs and the limits.
//!
//! [`solve`] first applies the deductions ([`bound`]) to the initial position, then counts every game with
//! the depth-first search of [`search`]: only positions from which both sides can still make the moves the
//! deductions ask for within the plies left are entered, and counts are merged per (position, plies left).
//! Every solution returned has been replayed by the reference generator ([`crate::reference`]) and checked to
//! end on the diagram.

pub mod bound;
mod budget;
mod cook;
mod count;
mod first;
mod fit;
mod memo;
mod search;
mod trim;

use crate::bitboard::board::Board;
use crate::position::Setup;
use crate::types::{CastlingRights, Color, Move, Square};
use bound::Diagram;
use count::{Count, Counted, Tables};
use search::{Budget, Finish};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Problems of at least this many plies are first searched for two games by the first-solution search
/// ([`first`]); shorter ones are counted at once (their trees are tiny).
const FIRST_FROM: u32 = 5;
/// The first-solution search's phases, each with the share of the time and node budget left when it starts
/// (together about 0.6 of the whole at most: the count has the rest): the budget search, which builds a game
/// from the plan, then the two best-first orders, until one of them finds a game. Measured on the bench
/// (docs/proofgames.md): each finds games the others miss.
const FIRST_ORDERS: [(Phase, f64); 3] = [
    (Phase::Budget, 0.3),
    (Phase::Best(first::Order::Weighted), 0.15),
    (Phase::Best(first::Order::Deepest), 0.3),
];

/// A phase of the first-solution search: the budget search ([`budget`], IDA*-style depth-first on the plies
/// left against the guide's estimate) or a best-first order ([`first`]).
#[derive(Clone, Copy, Debug)]
enum Phase {
    /// [`budget::games`].
    Budget,
    /// [`first::games`] in that order.
    Best(first::Order),
}
/// The share of the time and node budget left that the splice ([`cook`]) may spend on a first game's second: small,
/// since a unique problem tries every window in vain and its proof (the count) needs the time (at 0.2, two
/// unique verdicts of Euclide's collection found near the 10 s limit were lost; docs/proofgames.md).
const SPLICE_SHARE: f64 = 0.05;
/// The share of the time and node budget left that the guided game and its fitting to N plies ([`fit`]) may
/// spend when the first-solution search found no game; only with `--stop-at-cook` (a "no solution" proof
/// needs the count's time, and the fit decided no more bench problems: docs/proofgames.md).
const FIT_SHARE: f64 = 0.5;
/// The share of the time and node budget the count has first (its table kept for the final count): the
/// problems whose count is cheap are decided without the first-solution phases (docs/proofgames.md).
const PROBE_SHARE: f64 = 0.2;
/// Problems of at least this many plies are *long*: their count rarely finishes in the time of a problem
/// (every problem of Euclide's collection of 20 plies or more that a count decides at 10 s needs at most
/// 111,405 positions, about 0.3 s; the others run out of time), so the probe has [`LONG_PROBE_SHARE`] and the
/// first-solution search [`LONG_ORDERS`], whose budget search enters positions at about a quarter of the
/// count's rate (docs/proofgames.md, twelfth session).
const LONG_FROM: u32 = 20;
/// The probe's share on a long problem ([`LONG_FROM`]).
const LONG_PROBE_SHARE: f64 = 0.1;
/// The first-solution phases' shares on a long problem ([`LONG_FROM`]): the budget search has half the time
/// left after the probe (a 22-ply cook of Euclide's collection needs 232,775 of its positions).
const LONG_ORDERS: [(Phase, f64); 3] = [
    (Phase::Budget, 0.5),
    (Phase::Best(first::Order::Weighted), 0.15),
    (Phase::Best(first::Order::Deepest), 0.3),
];

/// The probe's share and the first-solution phases' shares for a problem of `plies` plies ([`LONG_FROM`]).
fn schedule(plies: u32) -> (f64, [(Phase, f64); 3]) {
    if plies >= LONG_FROM {
        (LONG_PROBE_SHARE, LONG_ORDERS)
    } else {
        (PROBE_SHARE, FIRST_ORDERS)
    }
}
/// Positions the first-solution search stores at most (about 110 bytes each: about 170 MB).
const FIRST_STORE: usize = 1_500_000;

/// A proof-game problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The diagram: placement and side to move (castling rights and e.p. square as the stipulation fixes them,
    /// else none).
    pub diagram: Setup,
    /// The number of plies N.
    pub plies: u32,
    /// The castling rights the final position must have exactly, when fixed (`--castling`).
    pub castling: Option<CastlingRights>,
    /// The square the last move (a double step) passed over, when fixed (`--ep`).
    pub ep: Option<Square>,
}

/// What the search may spend and what it returns.
#[derive(Clone, Debug)]
pub struct Options {
    /// Solutions listed at most.
    pub max_solutions: usize,
    /// Nodes (positions entered) at most, over all workers.
    pub max_nodes: u64,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Worker threads (the first ply's moves are shared among them).
    pub threads: usize,
    /// Stop as soon as two games are known (the verdict is then cooked, the count a lower bound) instead of
    /// counting every game.
    pub stop_at_cook: bool,
}

/// The verdict on a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Exactly one solution (the search was exhaustive).
    Unique,
    /// At least two solutions.
    Cooked,
    /// No solution (the search was exhaustive, or a deduction excludes every game).
    NoSolution,
    /// A limit stopped the search before it could say.
    Undetermined,
}

impl Verdict {
    /// `unique`, `cooked`, `no_solution` or `undetermined`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Unique => "unique",
            Verdict::Cooked => "cooked",
            Verdict::NoSolution => "no_solution",
            Verdict::Undetermined => "undetermined",
        }
    }
}

/// The answer to a problem.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The verdict.
    pub verdict: Verdict,
    /// Solutions counted: exact when the search was exhaustive, else a lower bound.
    pub count: u64,
    /// Whether the search was exhaustive (no limit hit).
    pub exhaustive: bool,
    /// Up to `max_solutions` solutions, each replayed by the reference generator.
    pub solutions: Vec<Vec<Move>>,
    /// Why the verdict holds (what made the search exhaustive, or which limit stopped it).
    pub reason: String,
    /// Positions entered.
    pub nodes: u64,
}

/// Parse a diagram: a FEN placement, optionally followed by the side to move (`w` or `b`); without it the
/// side to move follows from the parity of `plies` (White after an even number).
///
/// # Errors
/// A message naming the field and the text.
pub fn parse_diagram(text: &str, plies: u32) -> Result<Setup, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let turn = match fields.as_slice() {
        [_] => {
            if plies.is_multiple_of(2) {
                "w"
            } else {
                "b"
            }
        }
        [_, t] if *t == "w" || *t == "b" => t,
        [_, t] => return Err(format!("side to move: expected 'w' or 'b', not '{t}'")),
        [] => return Err("the diagram is empty".into()),
        _ => {
            return Err(format!(
                "expected a FEN placement and at most the side to move, not '{}'",
                text.trim()
            ))
        }
    };
    Setup::from_fen(&format!("{} {turn} - -", fields[0])).map_err(|e| e.to_string())
}

/// The placement part of a diagram's FEN with its side to move (`rnbqkbnr/… w`).
pub fn diagram_text(diagram: &Setup) -> String {
    let fen = diagram.to_fen();
    let mut f = fen.split_whitespace();
    format!("{} {}", f.next().unwrap_or(""), f.next().unwrap_or(""))
}

/// Whether a game's moves, replayed by the reference generator from the initial position, are legal and end
/// as `p` asks (placement, side to move, and the fixed castling rights or e.p. double step).
pub fn replays(p: &Problem, moves: &[Move]) -> bool {
    let Ok(positions) = super::replay(&Setup::startpos(), moves) else {
        return false;
    };
    let end = positions.last().expect("nonempty");
    if moves.len() != p.plies as usize || end.board != p.diagram.board || end.turn != p.diagram.turn
    {
        return false;
    }
    if p.castling.is_some_and(|c| c != end.castling) {
        return false;
    }
    match (p.ep, moves.last()) {
        (None, _) => true,
        (Some(ep), Some(m)) => {
            let before = &positions[positions.len() - 2];
            let pawn = before
                .piece_at(m.from())
                .is_some_and(|x| x.role == crate::types::Role::Pawn);
            pawn && m.from().file() == m.to().file()
                && m.from().rank().abs_diff(m.to().rank()) == 2
                && (m.from().to_u8() + m.to().to_u8()) / 2 == ep.to_u8()
        }
        (Some(_), None) => false,
    }
}

/// Solve `p` (see the module docs).
///
/// # Errors
/// A message when a solution found by the search fails the reference generator's replay (a generator bug:
/// nothing is claimed then).
pub fn solve(p: &Problem, o: &Options) -> Result<Solved, String> {
    let diagram = Diagram::new(&p.diagram);
    let (root, cd) = Board::from_setup(&Setup::startpos());
    let mut answer = Solved {
        verdict: Verdict::NoSolution,
        count: 0,
        exhaustive: true,
        solutions: Vec::new(),
        reason: String::new(),
        nodes: 0,
    };
    let parity_turn = if p.plies.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    if p.diagram.turn != parity_turn {
        answer.reason = format!(
            "after {} plies {} is to move, not as the diagram says",
            p.plies,
            if parity_turn == Color::White {
                "White"
            } else {
                "Black"
            }
        );
        return Ok(answer);
    }
    let castling = match &p.castling {
        Some(rights) => {
            let Some(mask) = castle_mask(&cd, rights) else {
                answer.reason =
                    "the stipulated castling rights are not rights of the initial position".into();
                return Ok(answer);
            };
            Some(mask)
        }
        None => None,
    };
    let finish = Finish {
        castling,
        ep: p.ep.map(|s| s.to_u8()),
    };
    if let Err(why) = diagram.feasible(&root, p.plies) {
        answer.reason = format!("no game can reach the diagram: {why}, in the initial position");
        return Ok(answer);
    }
    // The count first, on a small share: a problem whose count is cheap (most unique and insoluble ones) is
    // decided before the first-solution phases spend their shares; its table is kept for the final count, so
    // the work is not lost when the probe stops.
    let count = Count {
        diagram: &diagram,
        cd: &cd,
        finish,
        root: &root,
        plies: p.plies,
        options: o,
    };
    let mut tables = Tables::new();
    let mut probe_nodes = 0;
    let mut probe_games = Vec::new();
    if p.plies >= FIRST_FROM {
        let (counted, probe, nodes) = probe(&count, &mut tables);
        probe_nodes = nodes;
        // A cook is answered here only with two games to list (a table entry may stand for the second).
        let cooked =
            o.stop_at_cook && probe.why.load(Ordering::Relaxed) == 4 && counted.found.len() >= 2;
        if counted.complete || cooked {
            answer.nodes = probe_nodes;
            return finish_count(p, o, answer, counted, &probe, Vec::new(), None);
        }
        probe_games = replayed(p, &counted.found)?;
    }
    // The phases' node shares are of the nodes the probe left.
    let rest = Options {
        max_nodes: o.max_nodes.saturating_sub(probe_nodes),
        ..o.clone()
    };
    // A game the probe met makes the first-solution phases moot: they look for a first game (and its second
    // by exchange or splice, tried here as they would), while a unique problem needs the count's time.
    let from_probe = !probe_games.is_empty();
    let (first, first_nodes) = if !from_probe {
        first_phase(p, &diagram, &cd, finish, &root, &rest)?
    } else {
        with_second(p, probe_games, &rest)
    };
    if first.len() >= 2 && o.stop_at_cook {
        answer.verdict = Verdict::Cooked;
        answer.count = first.len() as u64;
        answer.exhaustive = false;
        answer.nodes = probe_nodes + first_nodes;
        answer.reason = format!(
            "at least {} solutions, found by the {} ({first_nodes} positions expanded); the stop at a cook \
             ended the search there",
            first.len(),
            if from_probe {
                "probe's count and a splice"
            } else {
                "first-solution search"
            }
        );
        answer.solutions = first;
        answer.solutions.truncate(o.max_solutions);
        return Ok(answer);
    }
    let budget = Budget {
        max_nodes: o.max_nodes.saturating_sub(first_nodes + probe_nodes),
        deadline: o.deadline,
        nodes: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        why: AtomicU64::new(0),
    };
    let counted = count.run(&budget, &mut tables);
    let first_note = (p.plies >= FIRST_FROM).then(|| {
        if from_probe {
            format!(
                "; the probe met a game, so the first-solution search was not run (the splice entered \
                 {first_nodes} positions)"
            )
        } else {
            format!(
                "; the first-solution search found {} game(s) in {first_nodes} positions expanded",
                first.len()
            )
        }
    });
    answer.nodes = probe_nodes + first_nodes + budget.nodes.load(Ordering::Relaxed);
    finish_count(p, o, answer, counted, &budget, first, first_note)
}

/// The count first, on the probe's share of the budget ([`schedule`]): the run, its budget (which says what
/// stopped it) and the positions it entered.
fn probe(count: &Count, tables: &mut Tables) -> (Counted, Budget, u64) {
    let o = count.options;
    let probe = Budget::new(o.max_nodes, o.deadline, schedule(count.plies).0);
    let counted = count.run(&probe, tables);
    let nodes = probe.nodes.load(Ordering::Relaxed);
    (counted, probe, nodes)
}

/// The answer from the count (`counted`: games, complete, games listed) and the first-solution search's
/// games: merged, completed by a second game by exchange or splice when the count stopped at one, decided.
///
/// # Errors
/// When a game fails the reference replay, or an exhaustive count misses a game the first search found.
fn finish_count(
    p: &Problem,
    o: &Options,
    mut answer: Solved,
    counted: Counted,
    budget: &Budget,
    first: Vec<Vec<Move>>,
    first_note: Option<String>,
) -> Result<Solved, String> {
    answer.count = counted.games;
    answer.exhaustive = counted.complete;
    answer.solutions = replayed(p, &counted.found)?;
    merge(&mut answer, first)?;
    let mut second = false;
    if !counted.complete && answer.count == 1 {
        let spend = cook::Spend {
            max_nodes: o.max_nodes.saturating_sub(answer.nodes),
            deadline: o.deadline,
        };
        if let Some(game) = answer.solutions.first() {
            let (g, n) = cook::second(p, game, spend);
            answer.nodes += n;
            if let Some(g) = g {
                answer.solutions.push(g);
                answer.count = 2;
                second = true;
            }
        }
    }
    decide(&mut answer, budget, p.plies);
    if second {
        answer.reason +=
            "; the second game takes another way through part of the first (exchange or splice)";
    }
    answer.reason += first_note.as_deref().unwrap_or("");
    answer.solutions.truncate(o.max_solutions);
    Ok(answer)
}

/// Games in the fast generator's encoding as moves, each replayed by the reference generator to the diagram
/// ([`replays`]).
///
/// # Errors
/// When one fails the replay (a generator bug: nothing is claimed then).
fn replayed(p: &Problem, games: &[Vec<u32>]) -> Result<Vec<Vec<Move>>, String> {
    let games: Vec<Vec<Move>> = games
        .iter()
        .map(|g| {
            g.iter()
                .map(|&m| crate::bitboard::movegen::to_move(m))
                .collect()
        })
        .collect();
    if let Some(bad) = games.iter().find(|g| !replays(p, g)) {
        return Err(format!(
            "internal: a game the search found fails the reference generator's replay: {}",
            bad.iter()
                .map(|m| m.to_uci(false))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    Ok(games)
}

/// The first-solution search ([`first`]) for up to two games on the phases' shares of the budget
/// ([`schedule`]; problems of at least `FIRST_FROM` plies), completed by [`cook::second`] when it finds one
/// (the later phases are then not run: the count has their time): the distinct replayed games and the
/// positions it expanded.
fn first_phase(
    p: &Problem,
    diagram: &Diagram,
    cd: &crate::bitboard::board::CastlingData,
    finish: Finish,
    root: &Board,
    o: &Options,
) -> Result<(Vec<Vec<Move>>, u64), String> {
    if p.plies < FIRST_FROM {
        return Ok((Vec::new(), 0));
    }
    let guide = crate::proofgame::guide::Guide::new(&Setup::startpos(), &p.diagram);
    let goal = first::Goal {
        diagram,
        guide: &guide,
        cd,
        finish,
        root,
        plies: p.plies,
    };
    let (mut games, mut nodes) = (Vec::new(), 0);
    for (phase, share) in schedule(p.plies).1 {
        let now = Instant::now();
        let limits = first::Limits {
            max_nodes: (o.max_nodes as f64 * share) as u64,
            deadline: o.deadline.map(|d| {
                let left = d.saturating_duration_since(now).as_secs_f64();
                now + Duration::from_secs_f64(left * share)
            }),
            store: FIRST_STORE,
        };
        let (found, n) = match phase {
            Phase::Budget => budget::games(goal, limits, 2),
            Phase::Best(order) => first::games(goal, limits, order, 2),
        };
        nodes += n;
        for g in found {
            if !games.contains(&g) {
                games.push(g);
            }
        }
        if games.len() >= 2 {
            break;
        }
        if games.len() == 1 {
            let mut one = replayed(p, &games)?;
            let spend =
                cook::Spend::share(o.max_nodes.saturating_sub(nodes), o.deadline, SPLICE_SHARE);
            let (g, n) = cook::second(p, &one[0], spend);
            nodes += n;
            if let Some(g) = g {
                one.push(g);
                return Ok((one, nodes));
            }
            // One game and no second by exchange or splice: the later phases are not run. They rarely give
            // a second (the bench's cooks are found with their first game, docs/proofgames.md), while a
            // unique problem needs the count's time to be proved.
            break;
        }
    }
    let mut games = replayed(p, &games)?;
    if games.is_empty() && o.stop_at_cook {
        let spend = cook::Spend::share(o.max_nodes.saturating_sub(nodes), o.deadline, FIT_SHARE);
        let (g, n) = fit::first_game(p, spend);
        nodes += n;
        if let Some(g) = g {
            let (second, n) = cook::second(p, &g, spend);
            nodes += n;
            games.push(g);
            games.extend(second);
        }
    }
    Ok((games, nodes))
}

/// The probe's games (`games`, replayed, at least one) completed by a second by exchange or splice
/// ([`cook::second`] on [`SPLICE_SHARE`] of `o`'s budget, as [`first_phase`] tries one after its first game)
/// when there is only one: the games and the positions the splice entered.
fn with_second(p: &Problem, mut games: Vec<Vec<Move>>, o: &Options) -> (Vec<Vec<Move>>, u64) {
    if games.len() >= 2 {
        return (games, 0);
    }
    let spend = cook::Spend::share(o.max_nodes, o.deadline, SPLICE_SHARE);
    let (g, n) = cook::second(p, &games[0], spend);
    games.extend(g);
    (games, n)
}

/// Merge the first-solution search's games into the count's answer: an exhaustive count must include them
/// (else a generator bug), a stopped one knows at least the distinct games of both.
fn merge(a: &mut Solved, first: Vec<Vec<Move>>) -> Result<(), String> {
    if a.exhaustive {
        if a.count < first.len() as u64 {
            return Err(format!(
                "internal: the exhaustive count ({}) is below the {} games the first-solution search found",
                a.count,
                first.len()
            ));
        }
        return Ok(());
    }
    for g in first {
        if !a.solutions.contains(&g) {
            a.solutions.push(g);
        }
    }
    a.count = a.count.max(a.solutions.len() as u64);
    Ok(())
}

/// The verdict and its reason from the count and whether the search finished.
fn decide(a: &mut Solved, budget: &Budget, plies: u32) {
    let limit = match budget.why.load(Ordering::Relaxed) {
        1 => format!("the node limit ({} nodes)", budget.max_nodes),
        2 => "the time limit".to_string(),
        4 => "the stop at a cook (two games counted)".to_string(),
        _ => "an interruption".to_string(),
    };
    (a.verdict, a.reason) = match (a.exhaustive, a.count) {
        (true, 0) => (
            Verdict::NoSolution,
            format!(
                "every game of {plies} plies was searched ({} positions entered; pruned only by the deductions \
                 of docs/proofgames.md)",
                a.nodes
            ),
        ),
        (true, 1) => (
            Verdict::Unique,
            format!("exhaustive search of every game of {plies} plies ({} positions entered)", a.nodes),
        ),
        (true, n) => (
            Verdict::Cooked,
            format!("{n} solutions, exhaustive search ({} positions entered)", a.nodes),
        ),
        (false, n) if n >= 2 => (
            Verdict::Cooked,
            format!("at least {n} solutions found before {limit} stopped the search"),
        ),
        (false, n) => (
            Verdict::Undetermined,
            format!("{limit} stopped the search after {n} solution(s) found"),
        ),
    };
}

/// The castling bits of `rights` in the initial position's data (`None` when one is not a right there).
fn castle_mask(cd: &crate::bitboard::board::CastlingData, rights: &CastlingRights) -> Option<u8> {
    let mut mask = 0u8;
    for (color, side, rook) in rights.iter() {
        let bit = 2 * color.index() + side as usize;
        if cd.rook[bit] != rook.to_u8() {
            return None;
        }
        mask |= 1 << bit;
    }
    Some(mask)
}
