//! Piecewise-constant functions of time: ElasticFlow's planning timelines (free GPUs from each
//! key on) and allocation plans (GPUs a job holds from each key on), both Python dicts there.

use crate::core::SimTime;

/// Ordered `time -> value` points; the value at a key holds until the next key, the last value
/// forever. Keys are unique and ascending.
#[derive(Debug, Default, PartialEq)]
pub struct StepFunction<V> {
    points: Vec<(SimTime, V)>,
}

impl<V: Clone> Clone for StepFunction<V> {
    fn clone(&self) -> Self {
        Self { points: self.points.clone() }
    }

    /// Reuses the buffer (the derived one allocates anew): planners hand every runnable job a
    /// new plan at every decision.
    fn clone_from(&mut self, source: &Self) {
        self.points.clone_from(&source.points);
    }
}

/// GPUs a job holds from each time on.
pub type Allocation = StepFunction<u32>;

impl<V: Copy + PartialEq> StepFunction<V> {
    /// The single point `start -> value`.
    pub fn starting(start: SimTime, value: V) -> Self {
        Self { points: vec![(start, value)] }
    }

    /// Replaces every point by `start -> value`, keeping the allocation.
    pub fn reset(&mut self, start: SimTime, value: V) {
        self.points.clear();
        self.points.push((start, value));
    }

    pub fn points(&self) -> &[(SimTime, V)] {
        &self.points
    }

    pub fn len(&self) -> usize {
        self.points.len()
    }

    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    fn find(&self, time: SimTime) -> Result<usize, usize> {
        self.points.binary_search_by(|p| p.0.total_cmp(&time))
    }

    pub fn contains(&self, time: SimTime) -> bool {
        self.find(time).is_ok()
    }

    /// The value at key `time` exactly.
    pub fn get(&self, time: SimTime) -> Option<V> {
        self.find(time).ok().map(|i| self.points[i].1)
    }

    /// Sets the value of key `time`, inserting the key if needed.
    pub fn set(&mut self, time: SimTime, value: V) {
        match self.find(time) {
            Ok(i) => self.points[i].1 = value,
            Err(i) => self.points.insert(i, (time, value)),
        }
    }

    /// The value in force at `time` (`get_available_gpu`): `None` before the first key.
    pub fn value_at(&self, time: SimTime) -> Option<V> {
        match self.find(time) {
            Ok(i) => Some(self.points[i].1),
            Err(0) => None,
            Err(i) => Some(self.points[i - 1].1),
        }
    }

    /// Gives each of `keys` (ascending) that is not a key yet the value `value`, in one pass.
    pub fn fill_missing(&mut self, keys: &[SimTime], value: V) {
        if keys.iter().all(|&t| self.contains(t)) {
            return;
        }
        let old = std::mem::take(&mut self.points);
        let mut added = keys.iter().peekable();
        for point in old {
            while let Some(&&t) = added.peek().filter(|&&&t| t <= point.0) {
                if t < point.0 {
                    self.points.push((t, value));
                }
                added.next();
            }
            self.points.push(point);
        }
        self.points.extend(added.map(|&t| (t, value)));
    }

    /// Drops every key whose value equals the previous kept one (`utils.merge_dict`).
    pub fn merge(&mut self) {
        self.points.dedup_by(|next, kept| next.1 == kept.1);
    }

    /// On a merged function, [`StepFunction::set`] then [`StepFunction::merge`] for a `time` at
    /// or after the last key, in constant time. Such a `time` can only equal the last key of
    /// the unmerged function if that key was kept, so setting it again may drop it.
    pub fn set_merged(&mut self, time: SimTime, value: V) {
        let n = self.points.len();
        match self.points.last_mut() {
            Some(last) if last.0.total_cmp(&time).is_eq() => {
                last.1 = value;
                if n >= 2 && self.points[n - 2].1 == value {
                    self.points.pop();
                }
            }
            Some(last) if last.1 == value => {}
            _ => self.points.push((time, value)),
        }
    }
}

/// `utils.align_to_time_slot`: `t` rounded up to the grid `start + k * unit`.
pub fn align(start: SimTime, t: SimTime, unit: f64) -> SimTime {
    let offset = t - start;
    // `offset.div_euclid(unit)`, then `+ 1` if `offset.rem_euclid(unit) > 0`: std's two bodies
    // written out to share their `%` (a libm `fmod` call, the planners' costliest step). Whole
    // seconds below 2^53 take the integer remainder instead, which is the same number (`fmod` is
    // exact; its -0.0 for a negative multiple becomes 0.0, and only the sign of `r` is read).
    const EXACT: f64 = 9_007_199_254_740_992.0;
    let (whole_offset, whole_unit) = (offset as i64, unit as i64);
    let r = if offset.abs() < EXACT
        && unit.abs() < EXACT
        && whole_unit != 0
        && whole_offset as f64 == offset
        && whole_unit as f64 == unit
    {
        (whole_offset % whole_unit) as f64
    } else {
        offset % unit
    };
    let mut k = (offset / unit).trunc();
    if r < 0.0 {
        k = if unit > 0.0 { k - 1.0 } else { k + 1.0 };
    }
    if (if r < 0.0 { r + unit.abs() } else { r }) > 0.0 {
        k += 1.0;
    }
    start + k * unit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn align_rounds_up_on_a_grid_anchored_at_start() {
        assert_eq!(align(9356.0, 9511.0, 240.0), 9596.0);
        assert_eq!(align(0.0, 5896.0, 240.0), 6000.0);
        assert_eq!(align(0.0, 480.0, 240.0), 480.0);
        assert_eq!(align(100.0, 100.0, 240.0), 100.0);
        // Off the whole-second path (fractions, negative offsets, beyond 2^53) as on it.
        assert_eq!(align(0.0, 480.5, 240.0), 720.0);
        assert_eq!(align(0.5, 480.5, 240.0), 480.5);
        assert_eq!(align(1000.0, 500.0, 240.0), 520.0);
        assert_eq!(align(1000.0, 520.0, 240.0), 520.0);
        assert_eq!(align(0.0, 9.0e18, 60.0), 9.0e18);
    }

    /// The shared `%` gives what `div_euclid` and `rem_euclid` give, bit for bit.
    #[test]
    fn align_is_the_euclidean_rounding() {
        let by_std = |start: f64, t: f64, unit: f64| {
            let offset = t - start;
            let k = offset.div_euclid(unit) + if offset.rem_euclid(unit) > 0.0 { 1.0 } else { 0.0 };
            start + k * unit
        };
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..100_000 {
            let start = (next() % 2_000_000) as f64 / [1.0, 2.0, 3.0, 10.0][(next() % 4) as usize];
            let t = start + ((next() % 4_000_000) as f64 - 1_000_000.0) / [1.0, 4.0, 7.0][(next() % 3) as usize];
            let unit = [60.0, 240.0, 0.5, 7.3, -60.0][(next() % 5) as usize];
            assert_eq!(align(start, t, unit).to_bits(), by_std(start, t, unit).to_bits(), "{start} {t} {unit}");
        }
    }

    #[test]
    fn merge_keeps_a_key_only_when_its_value_changes() {
        let mut f = Allocation::starting(0.0, 128);
        for (t, v) in [(240.0, 64), (480.0, 64), (720.0, 128), (960.0, 128)] {
            f.set(t, v);
        }
        f.merge();
        assert_eq!(f.points(), [(0.0, 128), (240.0, 64), (720.0, 128)]);
        assert_eq!((f.value_at(500.0), f.value_at(-1.0), f.get(500.0)), (Some(64), None, None));
        f.fill_missing(&[0.0, 120.0, 240.0, 960.0], 0);
        assert_eq!(f.points(), [(0.0, 128), (120.0, 0), (240.0, 64), (720.0, 128), (960.0, 0)]);
    }

    #[test]
    fn set_merged_is_set_then_merge() {
        let steps = [(0.0, 0), (0.0, 4), (60.0, 4), (120.0, 0), (120.0, 4), (180.0, 8), (180.0, 4), (240.0, 0)];
        let (mut plain, mut merged) = (Allocation::starting(0.0, 0), Allocation::starting(0.0, 0));
        for (k, &(t, g)) in steps.iter().enumerate() {
            plain.set(t, g);
            merged.set_merged(t, g);
            let mut expected = plain.clone();
            expected.merge();
            assert_eq!(merged, expected, "after step {k}");
        }
        assert_eq!(merged.points(), [(0.0, 4), (240.0, 0)]);
    }
}
