//! A memo of the deductions' bound per side ([`Diagram::need`]), one per worker of the count: the need of a
//! colour reads only that colour's units (per role), its castling rights and the number of the other side's
//! units (bound.rs, [`Diagram::needs_after`]), so positions that differ only in the other side's units (the
//! count's transpositions of the other side's moves) share it. Each slot keeps its whole key, compared in
//! full: a slot answers only for exactly the units it was computed for, so the bound is the same as
//! computed afresh (session 55: `Diagram::need` was 36 % of the 15-ply count's time).

use super::bound::{Diagram, NeedOf, Why};
use crate::bitboard::board::Board;

/// Slots of the memo (direct-mapped: a new key replaces the slot's old one).
const SLOTS: usize = 1 << 15;

/// One slot: the colour's units per role, the rest of the key (`tag`, 0 when empty) and the bound.
#[derive(Clone, Copy)]
struct Slot {
    units: [u64; 6],
    tag: u32,
    need: Result<u32, Why>,
}

/// The memo (see the module docs); its slots are allocated on the first lookup, so a worker that enters few
/// positions (a cook window) allocates little.
#[derive(Default)]
pub(super) struct NeedMemo {
    slots: Vec<Slot>,
}

impl NeedMemo {
    /// [`Diagram::need`] of colour `c` in `b`, from the memo when it holds exactly this key.
    #[inline]
    pub fn need(&mut self, diagram: &Diagram, b: &Board, c: usize) -> Result<u32, Why> {
        let own = b.colors[c];
        let units: [u64; 6] = std::array::from_fn(|r| b.roles[r] & own);
        let castle = u32::from(b.castling >> (2 * c) & 3);
        let enemy = b.colors[c ^ 1].count_ones();
        let tag = 1 << 31 | enemy << 3 | castle << 1 | c as u32;
        let mut h = u64::from(tag).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for u in units {
            h = (h ^ u).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            h ^= h >> 31;
        }
        if self.slots.is_empty() {
            let empty = Slot {
                units: [0; 6],
                tag: 0,
                need: Ok(0),
            };
            self.slots = vec![empty; SLOTS];
        }
        let slot = &mut self.slots[(h >> 40) as usize % SLOTS];
        if slot.tag == tag && slot.units == units {
            return slot.need;
        }
        let need = diagram.need(b, c);
        *slot = Slot { units, tag, need };
        need
    }
}

impl NeedOf for NeedMemo {
    #[inline]
    fn need(&mut self, diagram: &Diagram, b: &Board, c: usize) -> Result<u32, Why> {
        NeedMemo::need(self, diagram, b, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Setup;

    /// Random games from the initial position (seeded xorshift64): the memo's bound equals the bound computed
    /// afresh on every position, both colours, on the first pass (misses) and on a second pass over the same
    /// games (hits).
    #[test]
    fn the_memo_gives_the_bound_computed_afresh() {
        let (root, cd) = Board::from_setup(&Setup::startpos());
        let mut next = crate::random::xorshift(0x9E37_79B9_7F4A_7C15);
        let walk = |plies: usize, seed: u64| {
            let mut r = crate::random::xorshift(seed);
            let mut b = root;
            let mut line = vec![b];
            for _ in 0..plies {
                let Some(next) = crate::random::random_child(&b, &cd, &mut r) else {
                    break;
                };
                b = next;
                line.push(b);
            }
            line
        };
        let (mut again, mut checked) = (0, 0);
        for _ in 0..6 {
            let target = *walk(16, next() | 1).last().unwrap();
            let diagram = Diagram::new(&target.to_setup(&cd));
            let mut memo = NeedMemo::default();
            let games: Vec<Vec<Board>> = (0..40).map(|_| walk(20, next() | 1)).collect();
            for pass in 0..2 {
                for b in games.iter().flatten() {
                    for c in 0..2 {
                        assert_eq!(memo.need(&diagram, b, c), diagram.need(b, c));
                        checked += 1;
                        again += pass;
                    }
                }
            }
        }
        assert!(checked > 4000 && again > 2000, "{checked} {again}");
    }
}
