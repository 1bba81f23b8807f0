//! The minimum-cost assignment (Hungarian method) shared by the guided search's estimate ([`super::guide`]) and
//! its capture plan ([`super::plan`]).
//!
//! The estimate solves one assignment per side of every position it has not seen, so the method works on a
//! flat cost matrix (rows after rows) with its potentials in fixed arrays: no allocation per call (session 55:
//! the allocations were ~16 % of a proof-game count's instructions).

/// Columns at most: the units of one side, or pawns, each on its own square.
pub(super) const MAX_COLS: usize = 64;

/// Minimum cost of assigning each row of `cost` a distinct column (rows ≤ columns), Hungarian method with
/// potentials, and the assignment itself: each row's column.
pub(super) fn assignment(cost: &[Vec<i32>]) -> (i32, Vec<usize>) {
    let m = cost.first().map_or(0, Vec::len);
    let flat: Vec<i32> = cost.iter().flatten().copied().collect();
    let mut rows = vec![0usize; cost.len()];
    let total = assign_flat(&flat, m, &mut rows);
    (total, rows)
}

/// [`assignment`] on a flat matrix: `cost` holds `rows.len()` rows of `m` columns one after the other
/// (`rows.len()` ≤ `m` ≤ [`MAX_COLS`]); writes each row's column into `rows` and returns the total.
///
/// # Panics
/// If `m` exceeds [`MAX_COLS`], there are more rows than columns, or `cost` is not `rows.len()` × `m`.
pub(super) fn assign_flat(cost: &[i32], m: usize, rows: &mut [usize]) -> i32 {
    let n = rows.len();
    if n == 0 {
        return 0;
    }
    assert!(
        n <= m && m <= MAX_COLS && cost.len() == n * m,
        "assignment of {n} rows to {m} columns"
    );
    let big = i32::MAX / 4;
    const W: usize = MAX_COLS + 1;
    // Row potentials are indexed by row (1-based, 0 unused), column potentials and the rest by column.
    let (mut u, mut v) = ([0i32; W], [0i32; W]);
    let (mut p, mut way) = ([0usize; W], [0usize; W]);
    let (mut minv, mut used) = ([big; W], [false; W]);
    // A square matrix (the guide's: a row per unit) gets a start (Jonker and Volgenant's column reduction):
    // each column's potential its cheapest cost, each row's its cheapest reduced cost, and a row takes that
    // column when it is still free. The potentials stay feasible (cost ≥ u + v) and the pairs taken tight, so
    // the rows left are augmented below as usual and the total is the same minimum; most rows of the guide's
    // matrices are matched here. (With more columns than rows an unmatched column's potential must stay 0.)
    let mut matched = [false; W];
    let square = n == m;
    for j in (1..=m).filter(|_| square) {
        v[j] = (0..n).map(|i| cost[i * m + j - 1]).min().unwrap_or(0);
    }
    for i in (1..=n).filter(|_| square) {
        let row = &cost[(i - 1) * m..i * m];
        let (mut best, mut at) = (big, 0);
        for j in 1..=m {
            if row[j - 1] - v[j] < best {
                best = row[j - 1] - v[j];
                at = j;
            }
        }
        u[i] = best;
        if p[at] == 0 {
            p[at] = i;
            matched[i] = true;
        }
    }
    for i in (1..=n).filter(|&i| !matched[i]) {
        p[0] = i;
        let mut j0 = 0;
        minv[..=m].fill(big);
        used[..=m].fill(false);
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let row = &cost[(i0 - 1) * m..i0 * m];
            let mut delta = big;
            let mut j1 = 0;
            for j in 1..=m {
                if !used[j] {
                    let cur = row[j - 1] - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut total = 0;
    for j in (1..=m).filter(|&j| p[j] != 0) {
        rows[p[j] - 1] = j - 1;
        total += cost[(p[j] - 1) * m + j - 1];
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cheapest injection of the rows into the columns, by trying them all.
    fn brute(cost: &[Vec<i32>], row: usize, taken: u64) -> i32 {
        if row == cost.len() {
            return 0;
        }
        (0..cost[row].len())
            .filter(|&j| taken >> j & 1 == 0)
            .map(|j| cost[row][j] + brute(cost, row + 1, taken | 1 << j))
            .min()
            .unwrap_or(i32::MAX / 4)
    }

    #[test]
    fn the_flat_assignment_is_the_cheapest_and_a_true_one() {
        // Seeded xorshift64: random matrices up to 7 × 7, half of them square, with the estimate's "cannot" cost
        // (1 << 14) mixed in.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |k: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % k
        };
        for k in 0..4000 {
            let m = 1 + next(7) as usize;
            // Every other matrix square (the guide's, which the column reduction starts).
            let n = if k % 2 == 0 {
                m
            } else {
                1 + next(m as u64) as usize
            };
            let cost: Vec<Vec<i32>> = (0..n)
                .map(|_| {
                    (0..m)
                        .map(|_| {
                            if next(5) == 0 {
                                1 << 14
                            } else {
                                next(9) as i32
                            }
                        })
                        .collect()
                })
                .collect();
            let (total, rows) = assignment(&cost);
            assert_eq!(total, brute(&cost, 0, 0), "{cost:?}");
            let mut seen = 0u64;
            for (i, &j) in rows.iter().enumerate() {
                assert_eq!(seen >> j & 1, 0, "column {j} twice in {cost:?}");
                seen |= 1 << j;
                assert!(j < m && cost[i][j] <= total);
            }
            assert_eq!(
                rows.iter()
                    .enumerate()
                    .map(|(i, &j)| cost[i][j])
                    .sum::<i32>(),
                total
            );
        }
    }
}
