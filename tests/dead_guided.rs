//! Dead positions (FIDE 1.5, 6.9; issue 33): the long helpmates of constructed positions that only the guided
//! search (src/analyze/dead/guided.rs) finds at the default limits, each checked by replaying it with the
//! reference generator (tests/data/dead-guided.txt, labels from CHA-Solver's tests/positions.txt).

mod dead_common;

use dead_common::*;
use perftlab::analyze::dead::{self, Limits, Verdict};
use perftlab::types::Color;
use perftlab::Checked;

#[test]
fn guided_search_finds_the_long_helpmates_at_the_default_limits() {
    let mut queries = 0;
    for line in data_lines("dead-guided.txt") {
        let (side, fen) = line.split_once(' ').unwrap();
        let winner = match side {
            "white" => Color::White,
            "black" => Color::Black,
            _ => panic!("{line}: bad side"),
        };
        let pos = Checked::from_fen(fen).unwrap();
        // The default node limit, no time limit: the verdict does not depend on the machine's speed.
        let d = dead::decide(&pos, winner, &limits(Limits::default().nodes)).unwrap();
        match &d.verdict {
            Verdict::Winnable { helpmate } => assert_helpmate(&pos, winner, helpmate),
            v => panic!("{fen}: {winner:?} decided {v:?}"),
        }
        assert!(
            d.nodes <= Limits::default().nodes,
            "{fen}: {} nodes",
            d.nodes
        );
        queries += 1;
    }
    assert_eq!(queries, 16);
}

/// The late plans (guided::LATE_PLANS) run only with the nodes above the full search's first part (3,000,000):
/// line 2217 of CHA-Solver's tests/positions.txt for White (W-), found at the default limit, stays undetermined
/// within 3,000,000 nodes.
#[test]
fn the_late_plans_need_the_nodes_above_the_first_part() {
    let fen = "1b3kBR/4pP1P/1pBpP2P/1P1P1Bp1/1pK1B1P1/1P1B1B2/8/8 b - -";
    let pos = Checked::from_fen(fen).unwrap();
    let d = dead::decide(&pos, Color::White, &limits(3_000_000)).unwrap();
    assert!(matches!(d.verdict, Verdict::Undetermined { .. }), "{d:?}");
    assert_eq!(d.nodes, 3_000_000);
}
