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

/// Row potentials and each row's column left by an earlier assignment of a square matrix: a start for the next
/// one of the same size ([`assign_warm`]; the guided search's positions come one move apart, so most rows of
/// the next matrix are still tight under the same potentials).
#[derive(Clone, Debug)]
pub(super) struct Warm {
    /// Rows of the matrix the potentials came from (0: none yet).
    n: usize,
    /// Row potentials, 1-based as in [`assign_flat`].
    u: [i32; W],
    /// Each row's column (0-based).
    col: [usize; MAX_COLS],
}

impl Default for Warm {
    fn default() -> Self {
        Warm {
            n: 0,
            u: [0; W],
            col: [0; MAX_COLS],
        }
    }
}

/// Width of the potentials' arrays (index 0 is the Hungarian method's spare).
const W: usize = MAX_COLS + 1;
/// An infinite reduced cost.
const BIG: i32 = i32::MAX / 4;

/// [`assignment`] on a flat matrix: `cost` holds `rows.len()` rows of `m` columns one after the other
/// (`rows.len()` ≤ `m` ≤ [`MAX_COLS`]); writes each row's column into `rows` and returns the total.
///
/// # Panics
/// If `m` exceeds [`MAX_COLS`], there are more rows than columns, or `cost` is not `rows.len()` × `m`.
pub(super) fn assign_flat(cost: &[i32], m: usize, rows: &mut [usize]) -> i32 {
    assign_with(cost, m, rows, None)
}

/// [`assign_flat`] started from `warm`'s potentials when it holds a square matrix's of this size (else as
/// [`assign_flat`]), and leaving this one's in it. Any start gives the same minimum (the potentials are made
/// feasible first and only tight pairs are kept, [`Duals::warm`]); a good one saves augmentations.
pub(super) fn assign_warm(cost: &[i32], m: usize, rows: &mut [usize], warm: &mut Warm) -> i32 {
    assign_with(cost, m, rows, Some(warm))
}

/// The Hungarian method's state: row potentials indexed by row (1-based, 0 the spare), column potentials and
/// each column's row (0: free) by column (1-based), and which rows are matched.
struct Duals {
    u: [i32; W],
    v: [i32; W],
    p: [usize; W],
    matched: [bool; W],
}

fn assign_with(cost: &[i32], m: usize, rows: &mut [usize], warm: Option<&mut Warm>) -> i32 {
    let n = rows.len();
    if n == 0 {
        return 0;
    }
    assert!(
        n <= m && m <= MAX_COLS && cost.len() == n * m,
        "assignment of {n} rows to {m} columns"
    );
    let mut d = Duals {
        u: [0; W],
        v: [0; W],
        p: [0; W],
        matched: [false; W],
    };
    // Only a square matrix (the guide's: a row per unit) is started: with more columns than rows an unmatched
    // column's potential must stay 0.
    let square = n == m;
    match &warm {
        Some(w) if square && w.n == n => d.warm(cost, n, w),
        _ if square => d.column_reduction(cost, n),
        _ => {}
    }
    for i in 1..=n {
        if !d.matched[i] {
            d.augment(cost, m, i);
        }
    }
    let mut total = 0;
    for j in (1..=m).filter(|&j| d.p[j] != 0) {
        rows[d.p[j] - 1] = j - 1;
        total += cost[(d.p[j] - 1) * m + j - 1];
    }
    if let Some(w) = warm.filter(|_| square) {
        w.n = n;
        w.u[..=n].copy_from_slice(&d.u[..=n]);
        w.col[..n].copy_from_slice(rows);
    }
    total
}

impl Duals {
    /// Jonker and Volgenant's column reduction for an `n` × `n` matrix: each column's potential its cheapest
    /// cost, each row's its cheapest reduced cost, and a row takes that column when it is still free. The
    /// potentials stay feasible (cost ≥ u + v) and the pairs taken tight, so the rows left are augmented as
    /// usual and the total is the same minimum; most rows of the guide's matrices are matched here.
    fn column_reduction(&mut self, cost: &[i32], n: usize) {
        for j in 1..=n {
            self.v[j] = (0..n).map(|i| cost[i * n + j - 1]).min().unwrap_or(0);
        }
        for i in 1..=n {
            let row = &cost[(i - 1) * n..i * n];
            let (mut best, mut at) = (BIG, 0);
            for j in 1..=n {
                if row[j - 1] - self.v[j] < best {
                    best = row[j - 1] - self.v[j];
                    at = j;
                }
            }
            self.u[i] = best;
            if self.p[at] == 0 {
                self.p[at] = i;
                self.matched[i] = true;
            }
        }
    }

    /// The start from an earlier `n` × `n` assignment's row potentials: each column's potential the least
    /// cost less row potential in it (so every reduced cost is ≥ 0: feasible whatever the earlier matrix
    /// was), each row's raised by its least reduced cost, and a row takes a tight free column (its earlier
    /// one first). Feasible potentials and tight pairs: the augmentations give the same minimum.
    fn warm(&mut self, cost: &[i32], n: usize, w: &Warm) {
        self.u[1..=n].copy_from_slice(&w.u[1..=n]);
        for j in 1..=n {
            self.v[j] = (0..n)
                .map(|i| cost[i * n + j - 1] - self.u[i + 1])
                .min()
                .unwrap_or(0);
        }
        for i in 1..=n {
            let row = &cost[(i - 1) * n..i * n];
            let (u, v) = (self.u[i], &self.v);
            let slack = (1..=n).map(|j| row[j - 1] - u - v[j]).min().unwrap_or(0);
            self.u[i] += slack;
            let tight = |j: usize| row[j - 1] - self.u[i] - self.v[j] == 0 && self.p[j] == 0;
            let before = w.col[i - 1] + 1;
            let at = if before <= n && tight(before) {
                Some(before)
            } else {
                (1..=n).find(|&j| tight(j))
            };
            if let Some(j) = at {
                self.p[j] = i;
                self.matched[i] = true;
            }
        }
    }

    /// Match row `i` by a shortest augmenting path in the reduced costs (the potentials kept feasible).
    fn augment(&mut self, cost: &[i32], m: usize, i: usize) {
        let (u, v, p) = (&mut self.u, &mut self.v, &mut self.p);
        let mut way = [0usize; W];
        let (mut minv, mut used) = ([BIG; W], [false; W]);
        p[0] = i;
        let mut j0 = 0;
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let row = &cost[(i0 - 1) * m..i0 * m];
            let mut delta = BIG;
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
        self.matched[i] = true;
    }
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
        let mut step = crate::random::xorshift(0x2545_F491_4F6C_DD1D);
        let mut next = |k: u64| step() % k;
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

    #[test]
    fn a_warm_start_gives_the_same_minimum() {
        // Seeded xorshift64: sequences of square matrices up to 7 × 7, each the one before with a column
        // rewritten and a few entries changed (the guide's, one move apart), now and then a new size or
        // random potentials (any start must give the minimum); each checked against brute force.
        let mut step = crate::random::xorshift(0x9E37_79B9_7F4A_7C15);
        let mut next = |k: u64| step() % k;
        let mut warm = Warm::default();
        let mut cost: Vec<Vec<i32>> = Vec::new();
        let mut warmed = 0;
        for k in 0..6000 {
            let entry = |next: &mut dyn FnMut(u64) -> u64| {
                if next(6) == 0 {
                    1 << 14
                } else {
                    next(9) as i32
                }
            };
            if k % 50 == 0 {
                let n = 1 + next(7) as usize;
                cost = (0..n)
                    .map(|_| (0..n).map(|_| entry(&mut next)).collect())
                    .collect();
            } else {
                let n = cost.len();
                let j = next(n as u64) as usize;
                for row in cost.iter_mut() {
                    row[j] = entry(&mut next);
                }
                for _ in 0..next(3) {
                    let (i, j) = (next(n as u64) as usize, next(n as u64) as usize);
                    cost[i][j] = entry(&mut next);
                }
            }
            if k % 97 == 0 {
                for u in warm.u.iter_mut() {
                    *u = next(40) as i32 - 20;
                }
            }
            let n = cost.len();
            warmed += usize::from(warm.n == n);
            let flat: Vec<i32> = cost.iter().flatten().copied().collect();
            let mut rows = vec![0usize; n];
            let total = assign_warm(&flat, n, &mut rows, &mut warm);
            assert_eq!(total, brute(&cost, 0, 0), "{cost:?}");
            let mut seen = 0u64;
            for &j in &rows {
                assert_eq!(seen >> j & 1, 0, "column {j} twice in {cost:?}");
                seen |= 1 << j;
            }
            let sum: i32 = rows.iter().enumerate().map(|(i, &j)| cost[i][j]).sum();
            assert_eq!(sum, total);
        }
        assert!(warmed > 5000, "only {warmed} warm starts");
    }
}
