//! The order in which a frontier's positions are dealt into work units and GPU batches: grouped by the
//! placement of the side that does **not** move next, so that the positions whose children transpose into
//! each other count together.
//!
//! Two frontier positions P and Q have a common child when one move of the side to move turns each into the
//! same position: apart from captures, the other side's pieces are then where they were in both, so P and Q
//! have the same placement of the side not to move (1. e4 e5 2. Nf3 and 1. Nf3 e5 2. e4 at ply 3 differ
//! only in White's pieces: the third ply has the same position among their children). Sorted by that placement
//! (pawns first, then knights … king), such positions lie next to each other, and a run of the order (a
//! shard, a GPU batch) merges its transpositions of the next ply within itself.
//!
//! Why it matters: the GPU counts a batch as one planned run that merges each level's transpositions within
//! the batch only. With shards cut from the expansion order (siblings together), start position perft 7 split
//! at ply 4 into 4 shards counted 1,194,752 distinct ply-5 positions at remaining depth 2, against the plain
//! count's 822,518 (1.45×; and 1,272,948 in the shards' batches), which is what the units path's ~1.5× on
//! lavapipe was; in this order the shards hold 825,604 (batches 838,369). Counted with python-chess over the
//! plan's unit files (docs/deep-runs.md, "GPU units"); the test below checks the effect at ply 3.

use super::split::{Boards, Frontier};
use crate::bitboard::board::Board;
use rayon::prelude::*;
use std::cmp::Ordering;

/// The order of two boards in the grouped order: the placement of the side not to move (its pieces role by
/// role, pawns first), then its castling rights, then the side to move's placement. Compared lazily, role by
/// role: most pairs differ in the first, and no key is held per position (a key each, made once for the sort,
/// was 112 bytes per position beyond the frontier's memory budget, more than its boards).
fn by_passive_side(a: &Board, b: &Board) -> Ordering {
    let passive = |x: &Board| usize::from(1 - x.turn.min(1));
    let (pa, pb) = (passive(a), passive(b));
    let placed = |x: &Board, color: usize, role: usize| x.roles[role] & x.colors[color];
    let rights = |x: &Board, color: usize| x.castling >> (2 * color) & 3;
    (0..6)
        .map(|r| placed(a, pa, r).cmp(&placed(b, pb, r)))
        .chain(std::iter::once(rights(a, pa).cmp(&rights(b, pb))))
        .chain((0..6).map(|r| placed(a, 1 - pa, r).cmp(&placed(b, 1 - pb, r))))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// The frontier's positions grouped by the placement of the side not to move ([`self`]): the places `j` of
/// the boards (the order the expansion found them, [`Frontier::count_order`]) in the grouped order, ties in
/// the expansion order (a stable sort).
pub fn grouped_found(boards: &Boards) -> Vec<u32> {
    let all = boards.boards();
    let mut found: Vec<u32> = (0..all.len() as u32).collect();
    found.par_sort_by(|&x, &y| by_passive_side(&all[x as usize], &all[y as usize]));
    found
}

/// [`grouped_found`] as indices of the frontier's positions (FEN order), as [`Frontier::count_order`] gives
/// the expansion order: how `plan` deals the positions into shards and lists them in each unit.
pub fn grouped_order(f: &Frontier, boards: &Boards) -> Vec<usize> {
    let by_found = f.count_order();
    grouped_found(boards)
        .into_iter()
        .map(|j| by_found[j as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::frontier;
    use crate::validate::Checked;

    /// Distinct children summed over `parts` equal runs of `order` (places in `boards`).
    fn children_per_run(boards: &Boards, order: &[u32], parts: usize) -> usize {
        let cd = boards.castling_data();
        (0..parts)
            .map(|k| {
                let run = &order[k * order.len() / parts..(k + 1) * order.len() / parts];
                let level: Vec<(Board, u64)> = run
                    .iter()
                    .map(|&j| (boards.boards()[j as usize], 1))
                    .collect();
                frontier::next_ply(&level, cd, true, u64::MAX)
                    .unwrap()
                    .len()
            })
            .sum()
    }

    #[test]
    fn grouped_runs_hold_the_transpositions_of_the_next_ply() {
        // Start position, ply 3: 5,362 distinct positions, 72,078 distinct at ply 4 (OEIS A083276).
        let root = Checked::startpos();
        let (f, boards) =
            super::super::split::frontier_with_boards(&root, 3, false, 64, true).unwrap();
        let grouped = grouped_found(&boards);
        // A permutation of the positions.
        let mut sorted = grouped.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..f.len() as u32).collect::<Vec<_>>());
        let mut order = grouped_order(&f, &boards);
        order.sort_unstable();
        assert_eq!(order, (0..f.len()).collect::<Vec<_>>());
        // One run: every child once, in any order.
        assert_eq!(children_per_run(&boards, &grouped, 1), 72_078);
        // Cut into 4 and 16 runs, the grouped order keeps nearly every transposition of ply 4 inside a run;
        // the expansion order does not. Counted independently with python-chess over the positions of
        // `plan --depth 5 --split-depth 3 --shards 1` (expansion order) and that order sorted by the passive
        // side's placement: 72,231 and 73,023 grouped, 75,829 and 88,575 in expansion order.
        let found: Vec<u32> = (0..f.len() as u32).collect();
        for (parts, grouped_kids, expansion_kids) in [(4, 72_231, 75_829), (16, 73_023, 88_575)] {
            let (g, e) = (
                children_per_run(&boards, &grouped, parts),
                children_per_run(&boards, &found, parts),
            );
            assert_eq!((g, e), (grouped_kids, expansion_kids), "{parts} runs");
        }
    }
}
