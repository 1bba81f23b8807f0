//! Zobrist keys, generated in `const` context by SplitMix64 from a fixed seed.
//!
//! A position's key is the XOR of one key per (colour, role, square) occupied, one for Black to move, one per
//! en-passant file (only when a capture there is pseudo-legal, see [`super::board`]) and one per castling right
//! *and its rook square*, so Chess960 positions that differ only in which rook may castle get different keys.

/// SplitMix64 step: returns (next state, output).
const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// All keys in one block.
pub struct Keys {
    /// Per colour, role, square.
    pub piece: [[[u64; 64]; 6]; 2],
    /// Black to move.
    pub black: u64,
    /// Per en-passant file.
    pub ep_file: [u64; 8],
    /// Per castling right (White king side, White queen side, Black king side, Black queen side) and rook square.
    pub castle: [[u64; 64]; 4],
}

const fn build() -> Keys {
    let mut k = Keys {
        piece: [[[0; 64]; 6]; 2],
        black: 0,
        ep_file: [0; 8],
        castle: [[0; 64]; 4],
    };
    let mut state = 0x5045_5246_544C_4142; // "PERFTLAB"
    let mut c = 0;
    while c < 2 {
        let mut r = 0;
        while r < 6 {
            let mut s = 0;
            while s < 64 {
                let (st, v) = splitmix(state);
                state = st;
                k.piece[c][r][s] = v;
                s += 1;
            }
            r += 1;
        }
        c += 1;
    }
    let (st, v) = splitmix(state);
    state = st;
    k.black = v;
    let mut f = 0;
    while f < 8 {
        let (st, v) = splitmix(state);
        state = st;
        k.ep_file[f] = v;
        f += 1;
    }
    let mut r = 0;
    while r < 4 {
        let mut s = 0;
        while s < 64 {
            let (st, v) = splitmix(state);
            state = st;
            k.castle[r][s] = v;
            s += 1;
        }
        r += 1;
    }
    k
}

/// The keys.
pub static KEYS: Keys = build();
