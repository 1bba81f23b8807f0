//! The bitboard position ([`Board`]), the per-root castling data ([`CastlingData`]) and copy-make
//! ([`Board::make`]) with two incremental hashes, the Zobrist key and the check hash (the keys of
//! [`super::zobrist`], a value held by the root's `CastlingData`: [`Board::with_keys`] takes them, the
//! default seed's otherwise; the tables pick the bucket by the first and compare the second, `crate::fast`'s hash table).
//!
//! A `Board` is 88 bytes of `Copy` data: one bitboard per role (both colours), one per colour, the two hashes,
//! side to move, the en-passant square and four castling-right bits. Everything that stays fixed below a root (the
//! castling rooks' squares and the masks derived from them) lives in `CastlingData`, shared by reference.
//!
//! The en-passant square is kept only when an enemy pawn could capture there (pseudo-legally), so positions
//! that differ only by a useless e.p. square are equal and merge (as in Stockfish's key).

use super::attacks::{between, PAWN};
use super::zobrist::{Keys, Pair, ZobristKeys};
use crate::position::{Pieces, Setup};
use crate::types::{CastlingSide, Color, Move, MoveKind, Piece, Role, Square};

/// Role indices (same order as [`Role`]).
pub const PAWN_I: usize = 0;
/// Knight index.
pub const KNIGHT_I: usize = 1;
/// Bishop index.
pub const BISHOP_I: usize = 2;
/// Rook index.
pub const ROOK_I: usize = 3;
/// Queen index.
pub const QUEEN_I: usize = 4;
/// King index.
pub const KING_I: usize = 5;
/// No en-passant square.
pub const NO_EP: u8 = 64;

/// A position as bitboards. Equality compares everything but the hashes' staleness: the key and the check hash
/// are exact after [`Board::from_setup`] and `make::<true>`, and left stale by `make::<false>` (the no-hash
/// path).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Board {
    /// Pieces of each role, both colours.
    pub roles: [u64; 6],
    /// Pieces of each colour.
    pub colors: [u64; 2],
    /// Zobrist key (picks the bucket in the tables).
    pub key: u64,
    /// Check hash: the XOR of the second key of each feature, independent of `key` (identifies the position
    /// in the tables).
    pub check: u64,
    /// Side to move: 0 White, 1 Black.
    pub turn: u8,
    /// En-passant target square, or [`NO_EP`].
    pub ep: u8,
    /// Castling rights: bit `2 * colour + side` (side 0 = king side).
    pub castling: u8,
}

impl std::hash::Hash for Board {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.key);
    }
}

/// Castling data fixed below a root: per right (index `2 * colour + side`) the rook's square, the king's and
/// rook's destinations, the squares that must be empty, and the king's path that must not be attacked; and per
/// square the rights that survive a move from or to it. It also holds the Zobrist keys the boards below the
/// root are hashed with (read where the castling data are, by copy-make).
#[derive(Clone, Debug)]
pub struct CastlingData {
    /// Rook square per right.
    pub rook: [u8; 4],
    /// King destination per right.
    pub king_to: [u8; 4],
    /// Squares that must be empty (king and rook excluded).
    pub empty: [u64; 4],
    /// Squares from the king to its destination, inclusive.
    pub path: [u64; 4],
    /// Rights kept when a piece moves from or to each square.
    pub keep: [u8; 64],
    /// The Zobrist keys of the boards below the root.
    pub keys: ZobristKeys,
}

/// XOR one feature's keys into both hashes.
#[inline(always)]
fn xor(hashes: &mut Pair, keys: Pair) {
    hashes[0] ^= keys[0];
    hashes[1] ^= keys[1];
}

/// Inclusive span of files `a..=b` (either order) on `a`'s rank.
fn span(a: usize, b: usize) -> u64 {
    between(a, b) | (1 << a) | (1 << b)
}

impl Board {
    /// Convert plain data. The setup should be valid ([`crate::validate::Checked`]); rights whose rook or king
    /// is missing are dropped rather than trusted.
    pub fn from_setup(setup: &Setup) -> (Board, CastlingData) {
        Board::with_keys(setup, Keys::default_keys())
    }

    /// [`Board::from_setup`] hashed with `keys` (those of a `--zobrist-seed`): the board and every board made
    /// from it below carry keys of that seed.
    pub fn with_keys(setup: &Setup, keys: ZobristKeys) -> (Board, CastlingData) {
        let (mut b, cd) = Board::without_keys_of(setup, keys);
        [b.key, b.check] = b.compute_key(&cd);
        (b, cd)
    }

    /// [`Board::from_setup`] without its two hashes (both 0): for callers that read the pieces only, or that
    /// hash the board later ([`Board::compute_key`]) when a search needs it (`dead` over millions of real
    /// positions, most answered without one). Boards made from it by `make::<true>` carry hashes of the moves
    /// only, not of the position, until the root's are computed.
    pub fn without_keys(setup: &Setup) -> (Board, CastlingData) {
        Board::without_keys_of(setup, Keys::default_keys())
    }

    /// [`Board::without_keys`] for a caller that has already gathered `setup`'s pieces: `pieces` must be
    /// [`Setup::pieces`] (the FEN reader and `dead`'s validity screen make them; checked in debug builds).
    pub fn without_keys_from(setup: &Setup, pieces: Pieces) -> (Board, CastlingData) {
        debug_assert_eq!(setup.pieces(), pieces);
        Board::finish(setup, pieces.roles, pieces.colors, Keys::default_keys())
    }

    /// The board and castling data of `setup`, the hashes 0, the castling data holding `keys`.
    fn without_keys_of(setup: &Setup, keys: ZobristKeys) -> (Board, CastlingData) {
        let pieces = setup.pieces();
        Board::finish(setup, pieces.roles, pieces.colors, keys)
    }

    /// [`Board::without_keys_of`] from `setup`'s pieces gathered (`roles`, `colors`): the rest of the board
    /// (turn, castling rights, en passant) and the castling data.
    #[inline(always)]
    fn finish(
        setup: &Setup,
        roles: [u64; 6],
        colors: [u64; 2],
        keys: ZobristKeys,
    ) -> (Board, CastlingData) {
        let mut b = Board {
            roles,
            colors,
            key: 0,
            check: 0,
            turn: setup.turn as u8,
            ep: NO_EP,
            castling: 0,
        };
        let mut cd = CastlingData {
            rook: [0; 4],
            king_to: [0; 4],
            empty: [0; 4],
            path: [0; 4],
            keep: [0x0f; 64],
            keys,
        };
        for (color, side, rook) in setup.castling.iter() {
            let king = b.roles[KING_I] & b.colors[color.index()];
            if king == 0 || setup.piece_at(rook) != Some(Piece::new(color, Role::Rook)) {
                continue;
            }
            let ksq = king.trailing_zeros() as usize;
            if ksq / 8 != color.back_rank() as usize {
                continue;
            }
            let right = 2 * color.index() + side as usize;
            let m = Move::castling(Square::new(ksq as u8), rook);
            let (kt, rt) = (
                m.castling_king_target().index(),
                m.castling_rook_target().index(),
            );
            let r = rook.index();
            cd.rook[right] = r as u8;
            cd.king_to[right] = kt as u8;
            cd.empty[right] = (span(ksq, kt) | span(r, rt)) & !(1 << ksq) & !(1 << r);
            cd.path[right] = span(ksq, kt);
            cd.keep[r] &= !(1 << right);
            cd.keep[ksq] &= !(0b11 << (2 * color.index()));
            b.castling |= 1 << right;
        }
        if let Some(ep) = setup.ep_square {
            let us = setup.turn.index();
            if PAWN[us ^ 1][ep.index()] & b.roles[PAWN_I] & b.colors[us] != 0 {
                b.ep = ep.to_u8();
            }
        }
        (b, cd)
    }

    /// The Zobrist key and the check hash computed from scratch (tests compare them with the incremental ones).
    pub fn compute_key(&self, cd: &CastlingData) -> Pair {
        let keys = &*cd.keys;
        let mut key = [0; 2];
        for c in 0..2 {
            for r in 0..6 {
                let mut bb = self.roles[r] & self.colors[c];
                while bb != 0 {
                    xor(&mut key, keys.piece[c][r][bb.trailing_zeros() as usize]);
                    bb &= bb - 1;
                }
            }
        }
        if self.turn == 1 {
            xor(&mut key, keys.black);
        }
        if self.ep != NO_EP {
            xor(&mut key, keys.ep_file[(self.ep & 7) as usize]);
        }
        for right in 0..4 {
            if self.castling & (1 << right) != 0 {
                xor(&mut key, keys.castle[right][cd.rook[right] as usize]);
            }
        }
        key
    }

    /// Back to plain data (clocks reset: perft does not read them).
    #[allow(clippy::wrong_self_convention)] // an 88-byte board: by reference, though it is `Copy`
    pub fn to_setup(&self, cd: &CastlingData) -> Setup {
        let mut s = Setup::empty();
        let white = super::Bitboard(self.colors[0]);
        for (role, &bits) in Role::ALL.iter().zip(&self.roles) {
            for sq in super::Bitboard(bits) {
                let color = if white.contains(sq) {
                    Color::White
                } else {
                    Color::Black
                };
                s.board[sq.index()] = Some(Piece::new(color, *role));
            }
        }
        s.turn = if self.turn == 0 {
            Color::White
        } else {
            Color::Black
        };
        for right in 0..4 {
            if self.castling & (1 << right) != 0 {
                let color = Color::ALL[right / 2];
                s.castling.set(
                    color,
                    CastlingSide::ALL[right % 2],
                    Some(Square::new(cd.rook[right])),
                );
            }
        }
        s.ep_square = Square::try_new(self.ep);
        s
    }

    /// Forget the en-passant square (used when no legal capture uses it), keeping both hashes exact.
    pub fn drop_ep(&mut self, cd: &CastlingData) {
        if self.ep != NO_EP {
            let k = cd.keys.ep_file[(self.ep & 7) as usize];
            self.key ^= k[0];
            self.check ^= k[1];
            self.ep = NO_EP;
        }
    }

    /// The role on `sq` (which must be occupied).
    #[inline(always)]
    pub fn role_on(&self, bit: u64) -> usize {
        let mut r = 0;
        while r < 5 && self.roles[r] & bit == 0 {
            r += 1;
        }
        r
    }

    /// Play the legal move `m` (a [`Move`] in its low 16 bits, the moving role in bits 16–18) and return the
    /// new position. `HASH`: keep the key and the check hash exact (else they are left stale).
    #[inline(always)]
    pub fn make<const HASH: bool>(&self, cd: &CastlingData, m: u32) -> Board {
        let mut n = *self;
        let us = self.turn as usize;
        let them = us ^ 1;
        let from = ((m >> 6) & 63) as usize;
        let to = (m & 63) as usize;
        let role = (m >> 16) as usize;
        let kind = (m >> 14) & 3;
        let (fb, tb) = (1u64 << from, 1u64 << to);
        let keys = &*cd.keys;
        let mut key = [self.key, self.check];
        if HASH {
            xor(&mut key, keys.black);
            if self.ep != NO_EP {
                xor(&mut key, keys.ep_file[(self.ep & 7) as usize]);
            }
        }
        n.ep = NO_EP;
        if kind == MoveKind::Castling as u32 {
            // King takes own rook: the king lands on the g- or c-file, the rook on the f- or d-file.
            let rank = from / 8 * 8;
            let (kt, rt) = if to > from {
                (rank + 6, rank + 5)
            } else {
                (rank + 2, rank + 3)
            };
            let (kb, rb) = (1u64 << kt, 1u64 << rt);
            n.roles[KING_I] = (self.roles[KING_I] & !fb) | kb;
            n.roles[ROOK_I] = (self.roles[ROOK_I] & !tb) | rb;
            n.colors[us] = (self.colors[us] & !fb & !tb) | kb | rb;
            if HASH {
                let k = &keys.piece[us];
                xor(&mut key, k[KING_I][from]);
                xor(&mut key, k[KING_I][kt]);
                xor(&mut key, k[ROOK_I][to]);
                xor(&mut key, k[ROOK_I][rt]);
            }
        } else {
            if self.colors[them] & tb != 0 {
                let cap = self.role_on(tb);
                n.roles[cap] ^= tb;
                n.colors[them] ^= tb;
                if HASH {
                    xor(&mut key, keys.piece[them][cap][to]);
                }
            }
            n.colors[us] ^= fb | tb;
            if kind == MoveKind::Normal as u32 {
                n.roles[role] ^= fb | tb;
                if HASH {
                    xor(&mut key, keys.piece[us][role][from]);
                    xor(&mut key, keys.piece[us][role][to]);
                }
                if role == PAWN_I && (from ^ to) == 16 {
                    let ep = (from + to) / 2;
                    if PAWN[us][ep] & self.roles[PAWN_I] & self.colors[them] != 0 {
                        n.ep = ep as u8;
                        if HASH {
                            xor(&mut key, keys.ep_file[ep & 7]);
                        }
                    }
                }
            } else if kind == MoveKind::Promotion as u32 {
                let promo = KNIGHT_I + ((m >> 12) & 3) as usize;
                n.roles[PAWN_I] ^= fb;
                n.roles[promo] ^= tb;
                if HASH {
                    xor(&mut key, keys.piece[us][PAWN_I][from]);
                    xor(&mut key, keys.piece[us][promo][to]);
                }
            } else {
                // En passant: the captured pawn stands beside the mover, on the mover's rank.
                let cap = to ^ 8;
                n.roles[PAWN_I] ^= fb | tb | (1 << cap);
                n.colors[them] ^= 1 << cap;
                if HASH {
                    xor(&mut key, keys.piece[us][PAWN_I][from]);
                    xor(&mut key, keys.piece[us][PAWN_I][to]);
                    xor(&mut key, keys.piece[them][PAWN_I][cap]);
                }
            }
        }
        if self.castling != 0 {
            let mut keep = cd.keep[from] & cd.keep[to];
            if role == KING_I {
                keep &= !(0b11 << (2 * us));
            }
            n.castling = self.castling & keep;
            if HASH {
                let mut lost = self.castling & !n.castling;
                while lost != 0 {
                    let r = lost.trailing_zeros() as usize;
                    xor(&mut key, keys.castle[r][cd.rook[r] as usize]);
                    lost &= lost - 1;
                }
            }
        }
        n.turn ^= 1;
        [n.key, n.check] = key;
        n
    }
}
