//! Minimum-cost assignment of rows to columns (rectangular), as AlloX needs it.
//!
//! The algorithm is the shortest augmenting path method (Crouse, "On implementing 2D rectangular
//! assignment algorithms", IEEE TAES 2016) that scipy's `linear_sum_assignment` uses, with its
//! choices where several paths cost the same: columns are scanned from the last to the first, and
//! among equally short paths one that ends at a free column wins. Following it keeps the
//! original's choice among equal-cost assignments, which decides who runs first under AlloX.

/// Assigns every row of the `rows x columns` matrix `cost` (row-major, `rows <= columns`) to a
/// distinct column minimising the total cost; returns each row's column. `None` if a cost is NaN
/// or negative infinity, or no assignment has a finite cost.
pub fn min_cost_assignment(cost: &[f64], rows: usize, columns: usize) -> Option<Vec<usize>> {
    assert_eq!(cost.len(), rows * columns, "cost matrix size");
    assert!(rows <= columns, "more rows than columns");
    if cost.iter().any(|c| c.is_nan() || *c == f64::NEG_INFINITY) {
        return None;
    }
    let mut u = vec![0.0; rows];
    let mut v = vec![0.0; columns];
    let mut shortest = vec![f64::INFINITY; columns];
    let mut path = vec![usize::MAX; columns];
    let mut column_of = vec![usize::MAX; rows];
    let mut row_of = vec![usize::MAX; columns];
    let mut row_seen = vec![false; rows];
    let mut column_seen = vec![false; columns];
    let mut remaining = vec![0; columns];
    for current in 0..rows {
        // Shortest augmenting path from `current` (Dijkstra over reduced costs).
        let mut left = columns;
        for (k, slot) in remaining.iter_mut().enumerate() {
            *slot = columns - k - 1;
        }
        row_seen.fill(false);
        column_seen.fill(false);
        shortest.fill(f64::INFINITY);
        let mut min_value = 0.0;
        let mut i = current;
        let sink = loop {
            let mut index = usize::MAX;
            let mut lowest = f64::INFINITY;
            row_seen[i] = true;
            for (k, &j) in remaining[..left].iter().enumerate() {
                let reduced = min_value + cost[i * columns + j] - u[i] - v[j];
                if reduced < shortest[j] {
                    path[j] = i;
                    shortest[j] = reduced;
                }
                if shortest[j] < lowest || (shortest[j] == lowest && row_of[j] == usize::MAX) {
                    lowest = shortest[j];
                    index = k;
                }
            }
            min_value = lowest;
            if min_value == f64::INFINITY {
                return None;
            }
            let j = remaining[index];
            column_seen[j] = true;
            left -= 1;
            remaining[index] = remaining[left];
            if row_of[j] == usize::MAX {
                break j;
            }
            i = row_of[j];
        };
        // Dual update.
        u[current] += min_value;
        for r in 0..rows {
            if row_seen[r] && r != current {
                u[r] += min_value - shortest[column_of[r]];
            }
        }
        for j in 0..columns {
            if column_seen[j] {
                v[j] -= min_value - shortest[j];
            }
        }
        // Augment along the path.
        let mut j = sink;
        loop {
            let i = path[j];
            row_of[j] = i;
            std::mem::swap(&mut column_of[i], &mut j);
            if i == current {
                break;
            }
        }
    }
    Some(column_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::python_random::PyRandom;

    fn total(cost: &[f64], columns: usize, assignment: &[usize]) -> f64 {
        assignment.iter().enumerate().map(|(i, &j)| cost[i * columns + j]).sum()
    }

    /// The cheapest assignment by trying every injective map (small sizes only).
    fn brute_force(cost: &[f64], rows: usize, columns: usize) -> f64 {
        fn go(cost: &[f64], rows: usize, columns: usize, row: usize, used: &mut Vec<bool>) -> f64 {
            if row == rows {
                return 0.0;
            }
            let mut best = f64::INFINITY;
            for j in 0..columns {
                if !used[j] {
                    used[j] = true;
                    best = best.min(cost[row * columns + j] + go(cost, rows, columns, row + 1, used));
                    used[j] = false;
                }
            }
            best
        }
        go(cost, rows, columns, 0, &mut vec![false; columns])
    }

    #[test]
    fn optimal_on_random_matrices_with_ties() {
        let mut rng = PyRandom::seed(7);
        for _ in 0..300 {
            let rows = 1 + rng.randbelow(5) as usize;
            let columns = rows + rng.randbelow(4) as usize;
            let cost: Vec<f64> = (0..rows * columns).map(|_| rng.randbelow(6) as f64).collect();
            let assignment = min_cost_assignment(&cost, rows, columns).unwrap();
            let mut seen = assignment.clone();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), rows, "distinct columns: {assignment:?}");
            assert_eq!(total(&cost, columns, &assignment), brute_force(&cost, rows, columns), "{cost:?}");
        }
    }

    /// Ties are broken as scipy 1.17's `linear_sum_assignment` breaks them (its outputs for
    /// these matrices): a constant matrix gives the identity, and equal paths end at free columns.
    #[test]
    fn ties_follow_scipy() {
        assert_eq!(min_cost_assignment(&[1.0; 9], 3, 3).unwrap(), [0, 1, 2]);
        let cost = [1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 3.0, 3.0, 3.0, 3.0];
        assert_eq!(min_cost_assignment(&cost, 2, 6).unwrap(), [0, 1]);
        // Random integer matrices (Python `random.seed(5)`) and scipy's answers.
        let cases: [(usize, usize, &[u8], &[usize]); 12] = [
            (
                4,
                12,
                &[
                    5, 2, 1, 2, 4, 3, 2, 4, 2, 1, 2, 5, 5, 4, 2, 2, 1, 1, 2, 2, 2, 2, 3, 3, 2, 5, 2, 2, 2, 4, 3, 1, 3,
                    4, 2, 2, 3, 1, 3, 3, 5, 5, 1, 5, 3, 1, 3, 3,
                ],
                &[2, 4, 7, 1],
            ),
            (3, 9, &[4, 1, 5, 4, 3, 4, 5, 1, 4, 1, 2, 5, 2, 1, 2, 4, 3, 5, 3, 5, 3, 4, 1, 5, 3, 3, 1], &[1, 0, 4]),
            (3, 6, &[5, 1, 3, 3, 3, 2, 1, 2, 3, 4, 2, 1, 1, 5, 5, 4, 1, 2], &[1, 0, 4]),
            (
                4,
                12,
                &[
                    1, 2, 4, 3, 2, 1, 4, 3, 2, 4, 5, 2, 5, 4, 4, 3, 4, 3, 3, 4, 4, 2, 1, 4, 5, 2, 4, 3, 2, 1, 4, 3, 5,
                    5, 5, 3, 1, 3, 5, 1, 3, 3, 5, 3, 4, 3, 3, 3,
                ],
                &[0, 10, 5, 3],
            ),
            (
                4,
                8,
                &[3, 3, 3, 4, 3, 2, 4, 3, 3, 5, 2, 5, 2, 2, 3, 4, 3, 1, 4, 2, 5, 5, 5, 4, 3, 5, 5, 3, 1, 2, 2, 5],
                &[5, 2, 1, 4],
            ),
            (3, 6, &[1, 2, 1, 3, 2, 4, 2, 5, 1, 4, 4, 3, 4, 5, 1, 5, 2, 2], &[0, 2, 4]),
            (
                4,
                12,
                &[
                    5, 3, 3, 2, 4, 4, 5, 5, 3, 4, 2, 2, 5, 4, 5, 4, 2, 2, 5, 1, 3, 1, 4, 1, 3, 5, 5, 5, 2, 3, 5, 4, 4,
                    4, 2, 4, 3, 4, 4, 4, 2, 5, 5, 3, 3, 4, 3, 4,
                ],
                &[3, 7, 10, 4],
            ),
            (2, 6, &[1, 5, 4, 2, 3, 1, 2, 4, 1, 4, 5, 5], &[0, 2]),
            (3, 6, &[3, 3, 4, 5, 4, 5, 5, 1, 1, 2, 3, 3, 5, 3, 5, 3, 5, 1], &[0, 1, 5]),
            (3, 9, &[4, 4, 5, 5, 4, 4, 4, 4, 2, 3, 4, 1, 3, 1, 4, 5, 3, 4, 3, 2, 2, 4, 5, 4, 3, 5, 2], &[8, 2, 1]),
            (3, 6, &[3, 4, 1, 4, 4, 1, 1, 1, 2, 5, 1, 2, 3, 4, 2, 2, 5, 2], &[2, 0, 3]),
            (3, 6, &[3, 1, 5, 5, 1, 4, 5, 2, 1, 4, 1, 3, 5, 4, 4, 3, 3, 1], &[1, 2, 5]),
        ];
        for (rows, columns, cost, scipy) in cases {
            let cost: Vec<f64> = cost.iter().map(|&c| f64::from(c)).collect();
            assert_eq!(min_cost_assignment(&cost, rows, columns).unwrap(), scipy, "{cost:?}");
        }
    }

    #[test]
    fn infeasible_and_invalid_costs_are_none() {
        assert_eq!(min_cost_assignment(&[f64::INFINITY, f64::INFINITY], 1, 2), None);
        assert_eq!(min_cost_assignment(&[f64::NAN, 1.0], 1, 2), None);
        assert_eq!(min_cost_assignment(&[], 0, 3), Some(vec![]));
    }
}
