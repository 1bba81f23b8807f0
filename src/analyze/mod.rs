//! Position analysis: validity, side to move, check and checkers, pinned pieces, legal moves (UCI and SAN),
//! and the game state per the FIDE Laws of Chess.
//!
//! Game-state rules, by article:
//! - FIDE 5.1.1: checkmate ends the game;
//! - FIDE 5.2.1: stalemate ends the game in a draw;
//! - FIDE 5.2.2 (and 1.5): a dead position, where no series of legal moves can mate, ends the game in a draw;
//!   detected here for insufficient material (K v K, K+N v K, K and bishops all on squares of one colour), and
//!   decided in general, per side and with a proof, by [`dead`] (also FIDE 6.9);
//! - FIDE 9.2: a draw may be claimed when the same position has appeared at least three times;
//! - FIDE 9.3: a draw may be claimed after 50 moves by each player without a pawn move or capture;
//! - FIDE 9.6.1: the game is drawn when the same position has appeared at least five times;
//! - FIDE 9.6.2: the game is drawn after 75 moves by each player without a pawn move or capture, unless the
//!   last move mated (checkmate takes precedence).
//!
//! Repetition is judged over the history given (the root position and the positions after each move of
//! `--moves`); positions before the root are unknown.

pub mod dead;

use crate::position::Setup;
use crate::reference;
use crate::san;
use crate::types::{Color, MoveKind, Role, Square};
use crate::validate;
use serde::Serialize;

/// How the game has ended, if it has (FIDE 5.1.1, 5.2.1, 5.2.2, 9.6).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// FIDE 5.1.1: the side to move is checkmated.
    Checkmate,
    /// FIDE 5.2.1: the side to move has no legal move and is not in check.
    Stalemate,
    /// FIDE 5.2.2: a dead position by insufficient material.
    InsufficientMaterial,
    /// FIDE 9.6.2: 75 moves by each player without a pawn move or capture.
    SeventyfiveMoves,
    /// FIDE 9.6.1: the same position for at least the fifth time.
    FivefoldRepetition,
    /// FIDE 1.5, 5.2.2: neither side can checkmate by any series of legal moves, proved by [`dead`].
    DeadPosition,
}

/// A draw the player to move may claim (FIDE 9.2, 9.3).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Claim {
    /// FIDE 9.3: the last 50 moves by each player had no pawn move and no capture.
    FiftyMoves,
    /// FIDE 9.2: the position has appeared at least three times.
    ThreefoldRepetition,
}

/// Everything `analyze` reports about a position.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The analysed position's FEN.
    pub fen: String,
    /// No validity errors.
    pub valid: bool,
    /// Validity errors (perft is ill-defined).
    pub errors: Vec<String>,
    /// Validity warnings (FIDE 3.10.3: impossible but playable).
    pub warnings: Vec<String>,
    /// `white` or `black`.
    pub side_to_move: &'static str,
    /// FIDE 3.9.1: the side to move is in check.
    pub in_check: bool,
    /// Squares of the checking pieces (a1 … h8 order).
    pub checkers: Vec<String>,
    /// Squares of the side to move's pieces pinned to its king.
    pub pinned: Vec<String>,
    /// Legal moves in UCI.
    pub legal_moves: Vec<String>,
    /// The same moves in SAN, same order.
    pub san: Vec<String>,
    /// How the game has ended, if it has.
    pub outcome: Option<Outcome>,
    /// Draws the side to move may claim.
    pub claimable: Vec<Claim>,
    /// How often the position has appeared in the given history (this time included).
    pub repetitions: usize,
    // --- reachability (issue 19, FIDE 3.10.3) ---
    /// Reachable by a legal game? A cheap verdict: the static proofs, one ply of retraction and a proof-game
    /// search of at most [`REACH_PLIES`] plies (`perftlab reachable` goes further). `None` for an invalid
    /// position.
    pub reachability: Option<Reachability>,
    // --- FIDE 1.5 dead positions (issue 18): the fields and the function below form one block. ---
    /// Both sides' winnability and the FIDE 1.5 verdict (`winnable`, `dead`, `dead_reason` in JSON), when
    /// [`add_dead_position`] was called.
    #[serde(flatten)]
    pub dead_position: Option<dead::DeadReport>,
}

/// The reachability verdict of [`Analysis`] (`"reachability": {"result", "proof", "game"}` in JSON).
#[derive(Clone, Debug, Serialize)]
pub struct Reachability {
    /// `reachable`, `impossible` or `undetermined`.
    pub result: &'static str,
    /// The proof of impossibility, or why the question stays open.
    pub proof: Option<String>,
    /// A shortest game (UCI) from the initial position, when one was found.
    pub game: Option<Vec<String>>,
}

/// Longest proof game `analyze` tries (plies), and its node budget.
pub const REACH_PLIES: u32 = 6;
const REACH_NODES: u64 = 200_000;

/// The cheap reachability verdict of `analyze` (see [`Analysis::reachability`]).
pub fn reachability(setup: &Setup, chess960: bool) -> Reachability {
    use crate::proofgame::{decide, DecideOptions, Limits, Verdict};
    let opts = DecideOptions {
        limits: Limits {
            max_plies: REACH_PLIES,
            max_nodes: REACH_NODES,
        },
        retro_plies: 1,
        chess960,
        from: None,
        shortest: true,
        time_limit: std::time::Duration::ZERO,
    };
    let v = decide(setup, &opts);
    let c960 = chess960 || setup.needs_chess960_notation();
    Reachability {
        result: v.name(),
        proof: match &v {
            Verdict::Impossible(p) => Some(p.to_string()),
            Verdict::Undetermined(r) => Some(r.clone()),
            Verdict::Reachable(_) => None,
        },
        game: match &v {
            Verdict::Reachable(g) => Some(g.moves.iter().map(|m| m.to_uci(c960)).collect()),
            _ => None,
        },
    }
}

/// Attach both sides' winnability ([`dead::dead_report`]) to `a`; a proved dead position becomes the outcome
/// [`Outcome::DeadPosition`] unless the game has ended otherwise already (FIDE 1.5, 5.2.2).
pub fn add_dead_position(a: &mut Analysis, report: dead::DeadReport) {
    if a.outcome.is_none() && report.dead == Some(true) {
        a.outcome = Some(Outcome::DeadPosition);
    }
    a.dead_position = Some(report);
}

/// The key of FIDE 9.2.3: same player to move, same pieces on the same squares, same possible moves (castling
/// rights, and the e.p. square only when an en-passant capture is actually possible).
fn repetition_key(setup: &Setup) -> (Vec<Option<char>>, Color, String, Option<Square>) {
    let ep = setup.ep_square.filter(|_| {
        reference::legal_moves(setup)
            .iter()
            .any(|m| m.kind() == MoveKind::EnPassant)
    });
    (
        setup.board.iter().map(|p| p.map(|p| p.char())).collect(),
        setup.turn,
        format!("{:?}", setup.castling),
        ep,
    )
}

/// Pieces of the side to move pinned to their king: each stands alone between the king and an enemy slider
/// that moves along that line.
pub fn pinned(setup: &Setup) -> Vec<Square> {
    let us = setup.turn;
    let Some(&king) = setup.kings(us).first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (df, dr) in crate::types::LINE_DIRECTIONS {
        let diagonal = df != 0 && dr != 0;
        let mut blocker = None;
        let (mut f, mut r) = (king.file() as i32 + df, king.rank() as i32 + dr);
        while let Some(sq) = Square::from_coords(f, r) {
            if let Some(p) = setup.piece_at(sq) {
                if p.color == us {
                    if blocker.is_some() {
                        break;
                    }
                    blocker = Some(sq);
                } else {
                    let slides = p.role == Role::Queen
                        || (diagonal && p.role == Role::Bishop)
                        || (!diagonal && p.role == Role::Rook);
                    if slides {
                        out.extend(blocker);
                    }
                    break;
                }
            }
            f += df;
            r += dr;
        }
    }
    out.sort();
    out
}

/// FIDE 5.2.2 (1.5): a dead position by insufficient material: no pawns, rooks or queens, and either at most
/// one knight or bishop in all, or only bishops, all on squares of one colour (K+B v K+B same colour).
pub fn insufficient_material(setup: &Setup) -> bool {
    let mut minors = 0;
    let mut knights = 0;
    let mut bishop_colours = [false; 2];
    for sq in Square::all() {
        let Some(p) = setup.piece_at(sq) else {
            continue;
        };
        match p.role {
            Role::King => {}
            Role::Knight => {
                minors += 1;
                knights += 1;
            }
            Role::Bishop => {
                minors += 1;
                bishop_colours[((sq.file() + sq.rank()) % 2) as usize] = true;
            }
            Role::Pawn | Role::Rook | Role::Queen => return false,
        }
    }
    minors <= 1 || (knights == 0 && !(bishop_colours[0] && bishop_colours[1]))
}

/// Analyse the last position of `history` (the positions of the game so far, oldest first).
pub fn analyze(history: &[Setup], chess960: bool) -> Analysis {
    let mut a = analyze_without_search(history, chess960);
    if a.valid {
        let setup = history.last().expect("history is not empty");
        a.reachability = Some(reachability(setup, chess960));
    }
    a
}

/// [`analyze`] without its one search, the reachability verdict (`reachability` is `None`): the cheap part,
/// for callers that analyse many positions (the Python package's `analyze(pos, reachability=False)`).
pub fn analyze_without_search(history: &[Setup], chess960: bool) -> Analysis {
    let setup = history.last().expect("history is not empty");
    let validity = validate::check(setup);
    let mut a = Analysis {
        fen: setup.to_fen(),
        valid: validity.is_ok(),
        errors: validity.errors.iter().map(|e| e.to_string()).collect(),
        warnings: validity.warnings.iter().map(|w| w.to_string()).collect(),
        side_to_move: match setup.turn {
            Color::White => "white",
            Color::Black => "black",
        },
        in_check: false,
        checkers: Vec::new(),
        pinned: Vec::new(),
        legal_moves: Vec::new(),
        san: Vec::new(),
        outcome: None,
        claimable: Vec::new(),
        repetitions: 0,
        reachability: None,
        dead_position: None,
    };
    if !a.valid {
        return a;
    }
    let pos = reference::Mailbox::from_setup(setup);
    let mut checkers = pos.checkers();
    checkers.sort();
    a.in_check = !checkers.is_empty();
    a.checkers = checkers.iter().map(|s| s.to_string()).collect();
    a.pinned = pinned(setup).iter().map(|s| s.to_string()).collect();
    let mut legal = pos.legal_moves();
    legal.sort_by_key(|m| m.to_uci(chess960));
    a.legal_moves = legal.iter().map(|m| m.to_uci(chess960)).collect();
    a.san = legal
        .iter()
        .map(|&m| san::to_san(setup, &legal, m))
        .collect();
    let key = repetition_key(setup);
    a.repetitions = history.iter().filter(|h| repetition_key(h) == key).count();
    // FIDE 5.1.1 first: checkmate takes precedence over every draw (9.6.2 says so for the 75-move rule).
    a.outcome = if legal.is_empty() && a.in_check {
        Some(Outcome::Checkmate)
    } else if legal.is_empty() {
        Some(Outcome::Stalemate)
    } else if insufficient_material(setup) {
        Some(Outcome::InsufficientMaterial)
    } else if setup.halfmoves >= 150 {
        Some(Outcome::SeventyfiveMoves)
    } else if a.repetitions >= 5 {
        Some(Outcome::FivefoldRepetition)
    } else {
        None
    };
    if a.outcome.is_none() {
        if setup.halfmoves >= 100 {
            a.claimable.push(Claim::FiftyMoves);
        }
        if a.repetitions >= 3 {
            a.claimable.push(Claim::ThreefoldRepetition);
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cheap analysis is the full one but for the reachability verdict (CPW position 2, Kiwipete: 48
    /// legal moves, CPW "Perft Results").
    #[test]
    fn without_search_is_analyze_without_reachability() {
        let s =
            Setup::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
                .unwrap();
        let full = analyze(std::slice::from_ref(&s), false);
        let cheap = analyze_without_search(std::slice::from_ref(&s), false);
        assert!(full.reachability.is_some() && cheap.reachability.is_none());
        assert_eq!(cheap.legal_moves.len(), 48);
        assert_eq!(
            (cheap.legal_moves, cheap.san, cheap.outcome),
            (full.legal_moves, full.san, full.outcome)
        );
    }
}
