//! Piecewise-constant functions of time: ElasticFlow's planning timelines (free GPUs from each
//! key on) and allocation plans (GPUs a job holds from each key on), both Python dicts there.

use crate::core::SimTime;

/// Ordered `time -> value` points; the value at a key holds until the next key, the last value
/// forever. Keys are unique and ascending.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepFunction<V> {
    points: Vec<(SimTime, V)>,
}

/// Free GPUs from each time on. Signed: a plan built on the planner's stale values (§4 (*) of
/// `docs/elasticflow-semantics.md`) must not wrap around.
pub type FreeTimeline = StepFunction<i64>;

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
}

impl FreeTimeline {
    /// Adds `delta` to the value of every key in `[from, to)`.
    pub fn add_range(&mut self, from: SimTime, to: SimTime, delta: i64) {
        let first = self.points.partition_point(|p| p.0 < from);
        for point in self.points[first..].iter_mut().take_while(|p| p.0 < to) {
            point.1 += delta;
        }
    }

    /// Adds `delta` to the value of the existing key `time`; a missing key is left alone.
    pub fn add(&mut self, time: SimTime, delta: i64) {
        if let Ok(i) = self.find(time) {
            self.points[i].1 += delta;
        }
    }
}

/// `utils.align_to_time_slot`: `t` rounded up to the grid `start + k * unit`.
pub fn align(start: SimTime, t: SimTime, unit: f64) -> SimTime {
    let offset = t - start;
    let mut k = offset.div_euclid(unit);
    if offset.rem_euclid(unit) > 0.0 {
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
    }

    #[test]
    fn merge_keeps_a_key_only_when_its_value_changes() {
        let mut f = FreeTimeline::starting(0.0, 128);
        for (t, v) in [(240.0, 64), (480.0, 64), (720.0, 128), (960.0, 128)] {
            f.set(t, v);
        }
        f.merge();
        assert_eq!(f.points(), [(0.0, 128), (240.0, 64), (720.0, 128)]);
        assert_eq!((f.value_at(500.0), f.value_at(-1.0), f.get(500.0)), (Some(64), None, None));
        f.add(240.0, -8);
        f.add(241.0, -8);
        assert_eq!(f.points(), [(0.0, 128), (240.0, 56), (720.0, 128)]);
        f.add_range(100.0, 720.0, 8);
        assert_eq!(f.points(), [(0.0, 128), (240.0, 64), (720.0, 128)]);
        f.fill_missing(&[0.0, 120.0, 240.0, 960.0], 0);
        assert_eq!(f.points(), [(0.0, 128), (120.0, 0), (240.0, 64), (720.0, 128), (960.0, 0)]);
    }
}
