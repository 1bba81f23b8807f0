//! The answers of [`super::decide`] (FIDE 1.5, 6.9): a [`Verdict`] per intended winner, the [`Reason`] of every
//! unwinnable verdict as the text a person reads, and the serializable reports of `analyze --json` and
//! `dead --json`.

use crate::bitboard::Bitboard;
use crate::types::{Color, Move, Piece, Square};
use serde::Serialize;
use std::fmt;

/// A piece and the squares it can ever reach in a blocked structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The piece.
    pub piece: Piece,
    /// Where it stands.
    pub square: Square,
    /// Every square it can ever stand on (its own square included), as a bitboard (bit 0 = a1).
    pub reach: u64,
}

/// Why a side can never checkmate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The game is over already: `checkmated` (the intended winner is mated) or `stalemate` (FIDE 5.2.1).
    GameOver(&'static str),
    /// A material rule (described in the text).
    InsufficientMaterial(String),
    /// Every pawn is fixed forever (blocked, and nothing can ever capture or be captured by a pawn), and from the
    /// squares its pieces can ever reach the intended winner never attacks a square the loser's king can reach.
    Blocked {
        /// The fixed pawns (bitboard).
        pawns: u64,
        /// Every other piece with the squares it can ever reach.
        regions: Vec<Region>,
    },
    /// The pawns can still move, but only into finitely many configurations (none with a promotion), and in each
    /// one, from the squares its pieces may stand on, the intended winner never attacks a square the loser's king
    /// may stand on without leaving it a flight square (the fortress proof, `saturate.rs`).
    Fortress {
        /// Pawn configurations reachable (over-approximated), the current one included.
        pawn_states: u64,
        /// Every other piece with the squares it may stand on while the pawns stand as now.
        regions: Vec<Region>,
    },
    /// The fortress proof ([`Reason::Fortress`]), where in some configurations the loser's king could be left
    /// without a flight square, but the loser has only king moves there and an exact search over the two kings'
    /// squares and the side to move reaches no checkmate: the mate would need the winner to gain a tempo
    /// (`tempo.rs`).
    Tempo {
        /// Pawn configurations reachable (over-approximated), the current one included.
        pawn_states: u64,
        /// Configurations decided by the search over the two kings and the side to move.
        tempo_states: u64,
        /// Placements of the two kings with the side to move reached in those configurations.
        king_positions: u64,
        /// Every other piece with the squares it may stand on while the pawns stand as now.
        regions: Vec<Region>,
    },
    /// Every piece's region over the whole game (over-approximated; the pieces that never move nor get
    /// captured fixed), and in none of the squares the loser's king may stand on could it be checkmated (the
    /// reach proof, `reach.rs`).
    Reach {
        /// The squares of the pieces that never move and are never captured (bitboard).
        fixed: u64,
        /// Every other piece with the squares it may ever stand on.
        regions: Vec<Region>,
        /// The pieces split on (bitboard): each either is never captured before its first move or never moves
        /// before it is captured; the proof holds in each of the `cases` combinations (the regions shown are
        /// the first's).
        split: u64,
        /// Cases proved (1 without a split).
        cases: u32,
    },
    /// The reach proof ([`Reason::Reach`]) on the hypothesis that no king takes an enemy piece that never moves,
    /// and an exact walk over the two kings' squares and the side to move that reaches no position where the
    /// winner could give mate, and where a king could take such a piece, only positions without a legal move
    /// after it (the kings' dance, `dance.rs`).
    Dance {
        /// The squares of the pieces that never move and are never captured on the hypothesis (bitboard).
        fixed: u64,
        /// Every other piece with the squares it may stand on while the hypothesis holds.
        regions: Vec<Region>,
        /// Positions of the two kings with the side to move reached by the walk.
        positions: u64,
        /// The squares of the pieces a king could take in the walk, each leaving the side to move without a
        /// legal move (bitboard).
        spared: u64,
    },
    /// Every move from the position, and every move after each check, was followed, none to a checkmate of the
    /// loser, and every position a move that gives no check reaches (past the first ply) has a reach proof (the
    /// check-chain proof, `reach.rs`).
    CheckChain {
        /// Positions followed.
        positions: u64,
        /// Reach proofs made.
        proofs: u64,
    },
    /// Every line of at most `plies` legal moves ends where the winner lacks mating material or the game is
    /// over, with no checkmate of the loser on the way (`lines.rs`).
    EveryLine {
        /// Plies explored.
        plies: u32,
        /// Positions visited.
        positions: u64,
    },
    /// Every position reachable from this one was visited (exact comparison) and none is a checkmate.
    ExhaustedSearch {
        /// Distinct positions visited.
        positions: u64,
    },
    /// The position has only one legal move, and so on (`moves`, at most 100); the position they reach is
    /// unwinnable by `then`. Every position reachable from the first is either on that forced line (none of
    /// them a checkmate: each has a legal move) or reachable from the last, so the proof carries over.
    Forced {
        /// The forced moves, from the position.
        moves: Vec<Move>,
        /// The proof for the position after them.
        then: Box<Reason>,
    },
}

fn squares_of(bb: u64) -> Vec<Square> {
    Bitboard(bb).iter().collect()
}

fn square_list(bb: u64) -> String {
    squares_of(bb)
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// "; Ke1 reaches only a1 b1 …{suffix}" for each region.
fn write_regions(f: &mut fmt::Formatter<'_>, regions: &[Region], suffix: &str) -> fmt::Result {
    for r in regions {
        write!(
            f,
            "; {}{} reaches only {}{suffix}",
            r.piece.char(),
            r.square,
            square_list(r.reach)
        )?;
    }
    Ok(())
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::GameOver(what) => write!(f, "game over ({what})"),
            Reason::InsufficientMaterial(text) => write!(f, "insufficient material: {text}"),
            Reason::Blocked { pawns, regions } => {
                write!(
                    f,
                    "blocked structure: pawns {} can never move or capture",
                    square_list(*pawns)
                )?;
                write_regions(f, regions, "")?;
                write!(
                    f,
                    "; so wherever the winner could give check the king keeps a flight square"
                )
            }
            Reason::Fortress {
                pawn_states,
                regions,
            } => {
                write!(
                    f,
                    "fortress: the pawns can reach only {pawn_states} configurations, none with a promotion"
                )?;
                write_regions(f, regions, " while the pawns stand")?;
                write!(
                    f,
                    "; in every configuration, wherever the winner could give check the king keeps a flight square"
                )
            }
            Reason::Tempo {
                pawn_states,
                tempo_states,
                king_positions,
                regions,
            } => {
                write!(
                    f,
                    "fortress held by tempo: the pawns can reach only {pawn_states} configurations, none with a promotion"
                )?;
                write_regions(f, regions, " while the pawns stand")?;
                write!(
                    f,
                    "; in {tempo_states} of them the loser has only king moves, and of the {king_positions} placements of both kings with the side to move it can reach there none is a checkmate (the winner would need a tempo)"
                )?;
                if tempo_states < pawn_states {
                    write!(
                        f,
                        "; in the others, wherever the winner could give check the king keeps a flight square"
                    )?;
                }
                Ok(())
            }
            Reason::Reach {
                fixed,
                regions,
                split,
                cases,
            } => {
                write!(f, "reach: ")?;
                if *split != 0 {
                    write!(
                        f,
                        "in each of {cases} cases (the pieces on {} either never captured before they move or \
                         never moving), as in the first: ",
                        square_list(*split)
                    )?;
                }
                write!(
                    f,
                    "the pieces on {} never move and are never captured",
                    square_list(*fixed)
                )?;
                write_regions(f, regions, "")?;
                write!(
                    f,
                    "; so no square the king can reach is one where the winner could give check without a \
                     flight square left"
                )
            }
            Reason::Dance {
                fixed,
                regions,
                positions,
                spared,
            } => {
                write!(
                    f,
                    "kings' dance: while no king takes a piece that never moves, the pieces on {} never move and \
                     are never captured",
                    square_list(*fixed)
                )?;
                write_regions(f, regions, "")?;
                write!(
                    f,
                    "; of the {positions} placements of both kings with the side to move that play can reach, \
                     none lets the winner give check without a flight square left"
                )?;
                if *spared != 0 {
                    write!(
                        f,
                        ", and wherever a king could take a piece on {}, the side to move is then left without a \
                         legal move",
                        square_list(*spared)
                    )?;
                }
                Ok(())
            }
            Reason::CheckChain { positions, proofs } => write!(
                f,
                "check chains: every move, and every move after each check, followed ({positions} positions, \
                 none a checkmate); each of the {proofs} positions reached by a move that gives no check has a \
                 reach proof"
            ),
            Reason::EveryLine { plies, positions } => write!(
                f,
                "every line of at most {plies} plies ends where the winner lacks mating material or the game is \
                 over, with no checkmate on the way ({positions} positions)"
            ),
            Reason::ExhaustedSearch { positions } => write!(
                f,
                "exhausted search: all {positions} reachable positions visited, none is a checkmate"
            ),
            Reason::Forced { moves, then } => write!(
                f,
                "only one legal move at a time ({}), then {then}",
                moves
                    .iter()
                    .map(|m| m.to_uci(false))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

/// Which limit stopped a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// `Limits::nodes`.
    Nodes,
    /// `Limits::time`.
    Time,
    /// The quick path does not search further.
    Quick,
    /// The scan met a helpmate: it proves only unwinnability, so it neither replays nor claims it.
    Scan,
}

impl Limit {
    /// What an undetermined answer says of its limit (the report's reason, the command line's text and JSON).
    pub fn text(self) -> &'static str {
        match self {
            Limit::Nodes => "node limit reached",
            Limit::Time => "time limit reached",
            Limit::Quick => "not decided by the quick path",
            Limit::Scan => "a helpmate met by the scan, not claimed (it proves only unwinnability)",
        }
    }
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

/// The answer for one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The side can checkmate: the helpmate (replayed by the reference generator to checkmate).
    Winnable {
        /// The moves, from the position, ending in checkmate of the other side.
        helpmate: Vec<Move>,
    },
    /// The side can never checkmate, with the proof's kind.
    Unwinnable {
        /// Why.
        reason: Reason,
    },
    /// A limit was reached first.
    Undetermined {
        /// Which.
        limit: Limit,
    },
}

/// A verdict with the intended winner and the work done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The intended winner.
    pub winner: Color,
    /// The answer.
    pub verdict: Verdict,
    /// Positions visited.
    pub nodes: u64,
}

impl Decision {
    /// `winnable`, `unwinnable` or `undetermined`.
    pub fn result(&self) -> &'static str {
        match self.verdict {
            Verdict::Winnable { .. } => "winnable",
            Verdict::Unwinnable { .. } => "unwinnable",
            Verdict::Undetermined { .. } => "undetermined",
        }
    }

    /// The serializable report (moves in UCI; `chess960` selects king-takes-rook castling notation).
    pub fn report(&self, chess960: bool) -> SideReport {
        let (helpmate, reason) = match &self.verdict {
            Verdict::Winnable { helpmate } => (
                Some(helpmate.iter().map(|m| m.to_uci(chess960)).collect()),
                None,
            ),
            Verdict::Unwinnable { reason } => (None, Some(reason.to_string())),
            Verdict::Undetermined { limit } => (None, Some(limit.text().to_string())),
        };
        SideReport {
            result: self.result(),
            helpmate,
            reason,
            nodes: self.nodes,
        }
    }
}

/// One side's verdict as `analyze --json` and `dead --json` print it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SideReport {
    /// `winnable`, `unwinnable` or `undetermined`.
    pub result: &'static str,
    /// The helpmate in UCI (only when winnable).
    pub helpmate: Option<Vec<String>>,
    /// The proof's text (unwinnable) or the limit reached (undetermined).
    pub reason: Option<String>,
    /// Positions visited.
    pub nodes: u64,
}

/// Both sides' verdicts and the FIDE 1.5 outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeadReport {
    /// Per side.
    pub winnable: Sides,
    /// FIDE 1.5: neither side can mate (`true`), one can (`false`), or not decided (`null`).
    pub dead: Option<bool>,
    /// Why the position is dead (both reasons), when it is.
    pub dead_reason: Option<String>,
}

/// A report per side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sides {
    /// White as the intended winner.
    pub white: SideReport,
    /// Black as the intended winner.
    pub black: SideReport,
}
