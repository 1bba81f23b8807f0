//! The six positions of the Chess Programming Wiki's "Perft Results" page
//! (<https://www.chessprogramming.org/Perft_Results>, positions 1–6) with their published node counts: the one
//! copy used by `perftlab bench`, the criterion benches and the tests. `tests/data/cpw-detail.csv` holds the
//! same page's detail columns; a test checks this table against it.

/// One CPW position with two (depth, nodes) pairs from the page.
#[derive(Clone, Copy, Debug)]
pub struct CpwPosition {
    /// Short name (`start`, `kiwipete`, `pos3` … `pos6`).
    pub name: &'static str,
    /// FEN as the page gives it.
    pub fen: &'static str,
    /// (depth, nodes) of the full `bench`.
    pub full: (u32, u128),
    /// (depth, nodes) one ply shallower: `bench --quick`, the criterion benches.
    pub quick: (u32, u128),
    /// The page's node counts by depth, from depth 1 (`bench --depths`).
    pub nodes_by_depth: &'static [u128],
}

/// CPW position 1, the initial position.
pub const START: CpwPosition = POSITIONS[0];
/// CPW position 2, "Kiwipete" (Peter McKenzie).
pub const KIWIPETE: CpwPosition = POSITIONS[1];

/// The six positions, in the page's order.
pub const POSITIONS: [CpwPosition; 6] = [
    CpwPosition {
        name: "start",
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        full: (6, 119_060_324),
        quick: (5, 4_865_609),
        nodes_by_depth: &[
            20,
            400,
            8_902,
            197_281,
            4_865_609,
            119_060_324,
            3_195_901_860,
        ],
    },
    CpwPosition {
        name: "kiwipete",
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        full: (5, 193_690_690),
        quick: (4, 4_085_603),
        nodes_by_depth: &[48, 2_039, 97_862, 4_085_603, 193_690_690, 8_031_647_685],
    },
    CpwPosition {
        name: "pos3",
        fen: "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        full: (7, 178_633_661),
        quick: (6, 11_030_083),
        nodes_by_depth: &[
            14,
            191,
            2_812,
            43_238,
            674_624,
            11_030_083,
            178_633_661,
            3_009_794_393,
        ],
    },
    CpwPosition {
        name: "pos4",
        fen: "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        full: (5, 15_833_292),
        quick: (4, 422_333),
        nodes_by_depth: &[6, 264, 9_467, 422_333, 15_833_292, 706_045_033],
    },
    CpwPosition {
        name: "pos5",
        fen: "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        full: (5, 89_941_194),
        quick: (4, 2_103_487),
        nodes_by_depth: &[44, 1_486, 62_379, 2_103_487, 89_941_194],
    },
    CpwPosition {
        name: "pos6",
        fen: "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        full: (5, 164_075_551),
        quick: (4, 3_894_594),
        nodes_by_depth: &[46, 2_079, 89_890, 3_894_594, 164_075_551, 6_923_051_137],
    },
];
