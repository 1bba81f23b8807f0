//! The one table of CPW positions (`perftlab::cpw`, used by `bench`, the criterion benches and the tests)
//! against the copies of outside data in `data/` and `tests/data/`: every (position, depth) that the CPW detail table or
//! the suites also record must have the same node count there, and at least the start position, Kiwipete and
//! position 3 must be found. (Positions 4–6 at the bench depths are in none of the files; `bench` checks them
//! against this table and `bench --stockfish` against Stockfish in the same run.)

mod common;

use perftlab::cpw::POSITIONS;
use perftlab::suite;

/// The first four FEN fields (placement, side, castling, e.p.), which identify a position.
fn key(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

#[test]
fn cpw_table_agrees_with_test_data() {
    // (FEN key, depth, nodes) from the detail table and the suites.
    let mut known: Vec<(String, u32, u128)> = common::cpw_rows()
        .into_iter()
        .map(|r| (key(&r.fen), r.depth, r.nodes))
        .collect();
    for file in ["standard.epd", "tricky.perft"] {
        for e in suite::load(&common::data(file)).unwrap() {
            for (d, n) in e.expected {
                known.push((key(&e.fen), d, n));
            }
        }
    }
    let mut compared = Vec::new();
    for p in &POSITIONS {
        let by_depth = p.nodes_by_depth.iter().enumerate();
        let by_depth = by_depth.map(|(i, n)| (i as u32 + 1, *n));
        for (depth, nodes) in [p.quick, p.full].into_iter().chain(by_depth) {
            for (_, _, n) in known
                .iter()
                .filter(|(k, d, _)| *k == key(p.fen) && *d == depth)
            {
                assert_eq!(*n, nodes, "{} depth {depth}", p.name);
                compared.push(p.name);
            }
        }
    }
    for p in &POSITIONS {
        for (depth, nodes) in [p.quick, p.full] {
            let listed = p.nodes_by_depth.get(depth as usize - 1);
            assert_eq!(
                listed,
                Some(&nodes),
                "{} depth {depth}: nodes_by_depth",
                p.name
            );
        }
    }
    for name in ["start", "kiwipete", "pos3"] {
        assert!(
            compared.contains(&name),
            "{name} not found in data/ or tests/data/"
        );
    }
}
