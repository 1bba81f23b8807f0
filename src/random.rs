//! Random reachable positions for stress testing: playouts from the initial position (or a random Chess960
//! start), with moves drawn with weights that favour the rules move generators get wrong: captures, checks,
//! castling, en passant and promotions (and double steps, which create e.p. chances).
//!
//! Every position is reached by legal moves from a legal start, so it is valid (FIDE 3.10.3) by construction.
//! A seeded SplitMix64 generator makes runs reproducible (`--seed`).

use crate::position::Setup;
use crate::reference::Mailbox;
use crate::types::{Move, MoveKind, Role};

/// SplitMix64: tiny, seeded, good enough for choosing moves.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// Chess960 start position number `n` (0–959, 518 is the standard one) by Scharnagl's numbering, with
/// Shredder-FEN castling rights.
pub fn chess960_start(n: u32) -> Setup {
    let n = n % 960;
    let mut rank: [Option<char>; 8] = [None; 8];
    rank[(2 * (n % 4) + 1) as usize] = Some('b');
    let n = n / 4;
    rank[(2 * (n % 4)) as usize] = Some('b');
    let n = n / 4;
    let place = |rank: &mut [Option<char>; 8], k: u32, c: char| {
        let f = (0..8)
            .filter(|&f| rank[f].is_none())
            .nth(k as usize)
            .expect("free square");
        rank[f] = Some(c);
    };
    place(&mut rank, n % 6, 'q');
    let n = n / 6;
    const KNIGHTS: [(u32, u32); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n as usize];
    // Place the second knight first so the first one's index is not shifted.
    place(&mut rank, b, 'n');
    place(&mut rank, a, 'n');
    for c in ['r', 'k', 'r'] {
        place(&mut rank, 0, c);
    }
    let back: String = rank.iter().map(|c| c.expect("all placed")).collect();
    let rooks: Vec<char> = (0..8)
        .filter(|&f| rank[f] == Some('r'))
        .map(|f| (b'a' + f as u8) as char)
        .collect();
    let castling = format!(
        "{}{}{}{}",
        rooks[1].to_ascii_uppercase(),
        rooks[0].to_ascii_uppercase(),
        rooks[1],
        rooks[0]
    );
    let fen = format!(
        "{back}/pppppppp/8/8/8/8/PPPPPPPP/{} w {castling} - 0 1",
        back.to_ascii_uppercase()
    );
    Setup::from_fen(&fen).expect("Chess960 start FEN is valid")
}

/// The weight of a move in a playout: special moves and forcing moves are favoured.
fn weight(pos: &Mailbox, m: Move) -> u64 {
    let mut w = 1;
    match m.kind() {
        MoveKind::Castling | MoveKind::EnPassant | MoveKind::Promotion => w += 12,
        MoveKind::Normal => {}
    }
    if m.kind() != MoveKind::Castling && pos.piece_at(m.to()).is_some() {
        w += 3;
    }
    if pos.piece_at(m.from()).map(|p| p.role) == Some(Role::Pawn)
        && m.from().rank().abs_diff(m.to().rank()) == 2
    {
        w += 2;
    }
    if pos.play(m).in_check() {
        w += 4;
    }
    w
}

/// A random reachable position: a biased playout of 0–`max_plies` plies from the initial position, or from
/// a random Chess960 start when `chess960`. The playout stops early at a mate or stalemate.
pub fn random_position(rng: &mut Rng, chess960: bool, max_plies: u32) -> Setup {
    let start = if chess960 {
        chess960_start(rng.below(960) as u32)
    } else {
        Setup::startpos()
    };
    let plies = rng.below(max_plies as u64 + 1);
    let mut pos = Mailbox::from_setup(&start);
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let weights: Vec<u64> = moves.iter().map(|&m| weight(&pos, m)).collect();
        let mut pick = rng.below(weights.iter().sum());
        let mut chosen = moves[0];
        for (&m, &w) in moves.iter().zip(&weights) {
            if pick < w {
                chosen = m;
                break;
            }
            pick -= w;
        }
        pos = pos.play(chosen);
    }
    pos.to_setup()
}

/// A xorshift64 generator from `seed` (nonzero): the tests' seeded random walks and matrices, the same sequence
/// every run (each call returns the state after one step).
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// A child of `b` by a legal move drawn with `next` (uniform over the fast generator's move list), or `None`
/// when `b` has no legal move: the tests' seeded random walks.
#[cfg(test)]
pub(crate) fn random_child(
    b: &crate::bitboard::board::Board,
    cd: &crate::bitboard::board::CastlingData,
    next: &mut impl FnMut() -> u64,
) -> Option<crate::bitboard::board::Board> {
    let moves = crate::bitboard::movegen::moves::<crate::bitboard::attacks::MagicSliders>(b, cd);
    let moves = moves.as_slice();
    if moves.is_empty() {
        return None;
    }
    Some(b.make::<true>(cd, moves[(next() % moves.len() as u64) as usize]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scharnagl_numbering_matches_known_starts() {
        assert_eq!(
            chess960_start(518).to_fen(),
            Setup::startpos().to_fen(),
            "518 is the standard start"
        );
        assert!(chess960_start(0)
            .to_fen()
            .starts_with("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w"));
        assert!(chess960_start(959)
            .to_fen()
            .starts_with("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w"));
        let mut all: Vec<String> = (0..960).map(|n| chess960_start(n).to_fen()).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 960);
    }

    /// The same seed, the same positions (their validity is tested in `validate`'s tests, which sit above this
    /// module: `playouts_are_valid`).
    #[test]
    fn playouts_are_reproducible() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..20 {
            let p = random_position(&mut a, true, 40);
            assert_eq!(p, random_position(&mut b, true, 40));
        }
    }
}
