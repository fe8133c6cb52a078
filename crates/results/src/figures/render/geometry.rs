//! Polyline geometry in floating-point pixels: clipping, dashing and thinning, done before
//! anything reaches a backend so that every backend gets the same, bounded input.

pub(super) type Point = (f64, f64);

/// Axis-aligned rectangle in pixels (y grows downwards).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Rect {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

impl Rect {
    pub fn width(&self) -> f64 {
        self.right - self.left
    }

    pub fn height(&self) -> f64 {
        self.bottom - self.top
    }

    pub fn center(&self) -> Point {
        ((self.left + self.right) / 2.0, (self.top + self.bottom) / 2.0)
    }

    pub fn contains(&self, (x, y): Point) -> bool {
        (self.left..=self.right).contains(&x) && (self.top..=self.bottom).contains(&y)
    }
}

/// The parts of `points` inside `rect`, as separate polylines (Liang-Barsky per segment).
pub(super) fn clip_polyline(points: &[Point], rect: Rect) -> Vec<Vec<Point>> {
    let mut pieces: Vec<Vec<Point>> = Vec::new();
    let mut current: Vec<Point> = Vec::new();
    for pair in points.windows(2) {
        let Some((start, end, start_moved, end_moved)) = clip_segment(pair[0], pair[1], rect) else {
            if current.len() > 1 {
                pieces.push(std::mem::take(&mut current));
            }
            current.clear();
            continue;
        };
        if start_moved || current.is_empty() {
            if current.len() > 1 {
                pieces.push(std::mem::take(&mut current));
            }
            current = vec![start];
        }
        current.push(end);
        if end_moved {
            pieces.push(std::mem::take(&mut current));
        }
    }
    if current.len() > 1 {
        pieces.push(current);
    }
    pieces
}

/// Clipped segment plus whether each end was moved onto the border.
fn clip_segment(a: Point, b: Point, rect: Rect) -> Option<(Point, Point, bool, bool)> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-dx, a.0 - rect.left), (dx, rect.right - a.0), (-dy, a.1 - rect.top), (dy, rect.bottom - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
            continue;
        }
        let t = q / p;
        if p < 0.0 {
            if t > t1 {
                return None;
            }
            t0 = t0.max(t);
        } else {
            if t < t0 {
                return None;
            }
            t1 = t1.min(t);
        }
    }
    let at = |t: f64| (a.0 + t * dx, a.1 + t * dy);
    Some((at(t0), at(t1), t0 > 0.0, t1 < 1.0))
}

/// Splits a polyline into the "on" pieces of `pattern` (alternating on/off lengths in pixels,
/// restarting at each call). An empty pattern means solid.
pub(super) fn dash(points: &[Point], pattern: &[f64]) -> Vec<Vec<Point>> {
    let pattern_ok = !pattern.is_empty() && pattern.iter().all(|length| *length > 0.0);
    if !pattern_ok || points.len() < 2 {
        return vec![points.to_vec()];
    }
    let mut pieces = Vec::new();
    let mut current = vec![points[0]];
    let (mut phase, mut left_in_phase) = (0usize, pattern[0]);
    for pair in points.windows(2) {
        let (mut from, to) = (pair[0], pair[1]);
        let mut remaining = (to.0 - from.0).hypot(to.1 - from.1);
        while remaining > left_in_phase {
            let t = left_in_phase / remaining;
            from = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
            remaining -= left_in_phase;
            let drawing = phase % 2 == 0;
            if drawing {
                current.push(from);
                pieces.push(std::mem::take(&mut current));
            } else {
                current = vec![from];
            }
            phase = (phase + 1) % pattern.len();
            left_in_phase = pattern[phase];
        }
        left_in_phase -= remaining;
        if phase % 2 == 0 {
            current.push(to);
        }
    }
    if phase % 2 == 0 && current.len() > 1 {
        pieces.push(current);
    }
    pieces
}

/// Drops points that cannot change the picture: within each run of consecutive points in the
/// same pixel column only the first, lowest, highest and last survive (the M4 rule), so a
/// 100k-point timeline costs no more than the plot is wide.
pub(super) fn thin_out(points: &[Point]) -> Vec<Point> {
    let mut kept = Vec::with_capacity(points.len().min(4096));
    let mut run_start = 0;
    while run_start < points.len() {
        let column = points[run_start].0.floor();
        let run_end =
            points[run_start..].iter().position(|p| p.0.floor() != column).map_or(points.len(), |n| run_start + n);
        let run = &points[run_start..run_end];
        if run.len() <= 4 {
            kept.extend_from_slice(run);
        } else {
            let by_y = |a: &&Point, b: &&Point| a.1.total_cmp(&b.1);
            let lowest = run.iter().enumerate().min_by(|a, b| by_y(&a.1, &b.1)).map_or(0, |(i, _)| i);
            let highest = run.iter().enumerate().max_by(|a, b| by_y(&a.1, &b.1)).map_or(0, |(i, _)| i);
            let mut indices = [0, lowest, highest, run.len() - 1];
            indices.sort_unstable();
            let mut previous = None;
            for index in indices {
                if previous != Some(index) {
                    kept.push(run[index]);
                }
                previous = Some(index);
            }
        }
        run_start = run_end;
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOX: Rect = Rect { left: 0.0, top: 0.0, right: 10.0, bottom: 10.0 };

    #[test]
    fn clipping_keeps_inside_parts_and_splits_at_exits() {
        let pieces = clip_polyline(&[(-5.0, 5.0), (5.0, 5.0), (5.0, 20.0), (8.0, 20.0), (8.0, 5.0)], BOX);
        assert_eq!(pieces, vec![vec![(0.0, 5.0), (5.0, 5.0), (5.0, 10.0)], vec![(8.0, 10.0), (8.0, 5.0)]]);
        assert!(clip_polyline(&[(20.0, 20.0), (30.0, 30.0)], BOX).is_empty());
    }

    #[test]
    fn dashes_alternate_on_and_off() {
        let pieces = dash(&[(0.0, 0.0), (10.0, 0.0)], &[3.0, 2.0]);
        assert_eq!(pieces, vec![vec![(0.0, 0.0), (3.0, 0.0)], vec![(5.0, 0.0), (8.0, 0.0)]]);
    }

    #[test]
    fn thinning_keeps_column_extremes_in_order() {
        let points: Vec<Point> = (0..100)
            .map(|i| {
                (
                    0.5,
                    if i == 40 {
                        9.0
                    } else if i == 70 {
                        -9.0
                    } else {
                        0.0
                    },
                )
            })
            .collect();
        assert_eq!(thin_out(&points), vec![(0.5, 0.0), (0.5, 9.0), (0.5, -9.0), (0.5, 0.0)]);
    }
}
