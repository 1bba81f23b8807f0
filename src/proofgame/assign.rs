//! The minimum-cost assignment (Hungarian method) shared by the guided search's estimate ([`super::guide`]) and
//! its capture plan ([`super::plan`]).

/// Minimum cost of assigning each row of `cost` a distinct column (rows ≤ columns), Hungarian method with
/// potentials, and the assignment itself: each row's column.
pub(super) fn assignment(cost: &[Vec<i32>]) -> (i32, Vec<usize>) {
    let n = cost.len();
    if n == 0 {
        return (0, Vec::new());
    }
    let m = cost[0].len();
    let big = i32::MAX / 4;
    let (mut u, mut v) = (vec![0i32; n + 1], vec![0i32; m + 1]);
    let (mut p, mut way) = (vec![0usize; m + 1], vec![0usize; m + 1]);
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0;
        let mut minv = vec![big; m + 1];
        let mut used = vec![false; m + 1];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = big;
            let mut j1 = 0;
            for j in 1..=m {
                if !used[j] {
                    let cur = cost[i0 - 1][j - 1] - u[i0] - v[j];
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
    let mut rows = vec![0usize; n];
    let mut total = 0;
    for j in (1..=m).filter(|&j| p[j] != 0) {
        rows[p[j] - 1] = j - 1;
        total += cost[p[j] - 1][j - 1];
    }
    (total, rows)
}
