//! ElasticFlow's event list (`JOBS.job_events`): arrivals and planned ends by time, and the slot
//! coalescing that decides when the next decision happens (`docs/elasticflow-semantics.md` §2.2,
//! §2.3).
//!
//! The original keeps an unsorted Python list, re-sorted at fixed points, and looks events up as
//! "the first with this time". Its times are unique (an end is appended to an existing event of
//! the same time; coalescing merges every event within one slot), so a list kept sorted by
//! binary insertion behaves identically without sorting at every decision.

use super::JobIdx;
use crate::core::SimTime;
use std::collections::VecDeque;

/// The jobs that arrive and the jobs that end at one time, in the order they were added (which
/// fixes the order of the completion rows).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Event {
    pub time: SimTime,
    pub arrivals: Vec<JobIdx>,
    pub ends: Vec<JobIdx>,
}

/// Pending events, earliest first, at most one per time.
#[derive(Debug, Clone, Default)]
pub struct EventList {
    events: VecDeque<Event>,
}

impl EventList {
    /// One arrival event per distinct submission time (`prepare_job_start_events`).
    pub fn from_arrivals(arrivals: impl IntoIterator<Item = (JobIdx, SimTime)>) -> Self {
        let mut list = Self::default();
        for (job, time) in arrivals {
            let i = list.entry(time);
            list.events[i].arrivals.push(job);
        }
        list
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn front(&self) -> Option<&Event> {
        self.events.front()
    }

    pub fn front_mut(&mut self) -> Option<&mut Event> {
        self.events.front_mut()
    }

    pub fn pop_front(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Event> {
        self.events.iter()
    }

    fn find(&self, time: SimTime) -> Result<usize, usize> {
        self.events.binary_search_by(|e| e.time.total_cmp(&time))
    }

    /// Index of the event at `time`, created empty if missing (`add_scale_new` when called alone).
    pub fn entry(&mut self, time: SimTime) -> usize {
        match self.find(time) {
            Ok(i) => i,
            Err(i) => {
                self.events.insert(i, Event { time, ..Event::default() });
                i
            }
        }
    }

    /// `add_end`: `job` ends at `time` (listed once).
    pub fn add_end(&mut self, job: JobIdx, time: SimTime) {
        let i = self.entry(time);
        let ends = &mut self.events[i].ends;
        if !ends.contains(&job) {
            ends.push(job);
        }
    }

    /// `change_end`: moves `job`'s end from `old` to `new`; an event left without arrivals and
    /// ends disappears. Nothing happens when the time did not change.
    pub fn move_end(&mut self, job: JobIdx, old: SimTime, new: SimTime) {
        if old == new {
            return;
        }
        if let Ok(i) = self.find(old) {
            let event = &mut self.events[i];
            if let Some(k) = event.ends.iter().position(|&j| j == job) {
                event.ends.remove(k);
            }
            if event.ends.is_empty() && event.arrivals.is_empty() {
                self.events.remove(i);
            }
        }
        self.add_end(job, new);
    }

    /// Slot coalescing after a decision at `reference` (§2.3): the earliest event moves to
    /// `reference + slot` and absorbs every later event within that slot, so decisions are at
    /// least a slot apart, except that a lone last event keeps its own time. Ends are merged only
    /// when `merge_ends` (dlas and gandiva keep no ends here). Returns the next decision time.
    pub fn coalesce(&mut self, reference: SimTime, slot: f64, merge_ends: bool) -> Option<SimTime> {
        let mut next = self.events.front()?.time;
        while (next - reference).trunc() <= slot && self.events.len() > 1 {
            self.events[0].time = reference + slot;
            if self.events[1].time - reference > slot {
                break;
            }
            next = self.events[1].time;
            let Some(absorbed) = self.events.remove(1) else { break };
            let first = &mut self.events[0];
            first.arrivals.extend(absorbed.arrivals);
            if merge_ends {
                first.ends.extend(absorbed.ends);
            }
        }
        self.events.front().map(|e| e.time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(list: &EventList) -> Vec<f64> {
        list.iter().map(|e| e.time).collect()
    }

    #[test]
    fn arrivals_group_by_time_and_ends_join_existing_events() {
        let mut list = EventList::from_arrivals([(0, 0.0), (1, 10.0), (2, 10.0)]);
        assert_eq!(times(&list), [0.0, 10.0]);
        assert_eq!(list.iter().nth(1).unwrap().arrivals, [1, 2]);
        list.add_end(0, 10.0);
        list.add_end(0, 10.0);
        list.add_end(3, 5.0);
        assert_eq!(times(&list), [0.0, 5.0, 10.0]);
        assert_eq!(list.iter().nth(2).unwrap().ends, [0]);
        list.move_end(3, 5.0, 20.0);
        assert_eq!(times(&list), [0.0, 10.0, 20.0], "an emptied event disappears");
        list.move_end(3, 20.0, 20.0);
        assert_eq!(list.iter().nth(2).unwrap().ends, [3]);
    }

    /// The Figure 10 example of §7: after the decision at 9116, arrival 9203 moves to 9356 and
    /// absorbs job 2's end (9274) and arrival 9336; 10596 stays.
    #[test]
    fn coalescing_moves_the_first_event_a_slot_on_and_merges_the_slot() {
        let mut list = EventList::from_arrivals([(3, 9203.0), (4, 9336.0), (5, 20000.0)]);
        list.add_end(2, 9274.0);
        assert_eq!(list.coalesce(9116.0, 240.0, true), Some(9356.0));
        assert_eq!(times(&list), [9356.0, 20000.0]);
        let first = list.front().unwrap();
        assert_eq!((first.arrivals.as_slice(), first.ends.as_slice()), ([3, 4].as_slice(), [2].as_slice()));

        // Without merging ends, the absorbed end is dropped (dlas/gandiva keep none here).
        let mut list = EventList::from_arrivals([(3, 9203.0), (4, 9336.0), (5, 20000.0)]);
        list.add_end(2, 9274.0);
        list.coalesce(9116.0, 240.0, false);
        assert!(list.front().unwrap().ends.is_empty());
    }

    #[test]
    fn a_lone_event_keeps_its_time_and_far_events_are_untouched() {
        let mut list = EventList::from_arrivals([(0, 100.0)]);
        assert_eq!(list.coalesce(0.0, 240.0, true), Some(100.0));
        let mut list = EventList::from_arrivals([(0, 300.0), (1, 400.0)]);
        assert_eq!(list.coalesce(0.0, 240.0, true), Some(300.0));
        // Two events within the slot become one at reference + slot.
        let mut list = EventList::from_arrivals([(0, 100.0), (1, 200.0)]);
        assert_eq!(list.coalesce(0.0, 240.0, true), Some(240.0));
        assert_eq!(list.len(), 1);
        assert_eq!(EventList::default().coalesce(0.0, 240.0, true), None);
    }
}
