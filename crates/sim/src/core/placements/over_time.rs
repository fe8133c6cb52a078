//! Pods that arrive and leave at their traced times (a `pod-list` workload with `over_time:
//! true`): the placement engine's policies on a cluster that also frees resources, so that GPU
//! sharing can be studied over time with job metrics (waiting time, JCT). FGD's paper and
//! simulator do not run this; the rules are blox's own (`docs/fgd-semantics.md`, Appendix D):
//!
//! - A pod arrives at its creation time (ties in list order) and is placed as in the paper's
//!   experiment (filter, score, ties to the lowest node rank: [`Placer::place`]); the ranks are
//!   the seed's Go `math/rand` permutation of the nodes, and a drawing policy draws on after it.
//!   Nothing is tuned or shuffled: the workload is the trace.
//! - A placed pod holds its resources for the time it ran in the traced cluster (deletion minus
//!   scheduling time; a pod never scheduled there: deletion minus creation), then leaves.
//! - A pod that fits no node waits. Whenever pods leave, the waiting pods are offered again in
//!   arrival order before that instant's arrivals (kube-scheduler moves unschedulable pods back
//!   to its active queue on cluster events; no head-of-line blocking). A pod still waiting at its
//!   deletion time was deleted by its user: it leaves unplaced (unfinished in the tables).
//! - A pod that fits no node of the empty cluster is unschedulable at arrival.
//!
//! At each instant something happened, in this order: departures, give-ups, the waiting pods,
//! the arrivals; then one timeline row.

use super::experiment::{Placer, ScorePolicy, sorted_by_name, two_decimals};
use super::{GPU_MILLI, Lifetime, Node, NodeState, Pod};
use crate::core::go_random::GoRandom;
use crate::core::metrics::{RecordSink, RunTables, RunTotals, SummaryBuilder, TimelineRow};
use crate::core::{JobLife, JobRecord, JobSpec, RunError, SimTime, StopFlag};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A run of pods over time: the nodes (any order), the pods and their lifetimes (one each).
pub struct OverTime<'a> {
    pub nodes: &'a [Node],
    pub pods: &'a [Pod],
    pub lifetimes: &'a [Lifetime],
}

/// Where a placed pod is, until it leaves.
struct Held {
    node: usize,
    devices: Vec<usize>,
}

impl OverTime<'_> {
    /// Runs `policy` under `seed` until nothing is left or `horizon` (seconds; pods running or
    /// waiting then are unfinished, later ones never arrive), handing the record of each pod that
    /// arrived to `sink` in list order at the end (pod `i` is job `i`); one timeline row per
    /// instant when `record_timeline`.
    pub fn run_into(
        &self,
        policy: &mut dyn ScorePolicy,
        seed: i64,
        horizon: Option<SimTime>,
        stop: &StopFlag,
        sink: &mut dyn RecordSink,
        record_timeline: bool,
    ) -> Result<RunTables, RunError> {
        assert_eq!(self.pods.len(), self.lifetimes.len(), "one lifetime per pod");
        let nodes = sorted_by_name(self.nodes);
        let mut rng = GoRandom::seed(seed);
        let ranks = rng.perm(nodes.len()).into_iter().map(|r| r as u32).collect();
        let mut placer = Placer::new(&nodes, self.pods, ranks, rng);
        let empty: Vec<NodeState> = nodes.iter().map(|n| NodeState::empty(n, 0)).collect();
        let fits_empty = |pod: &Pod| nodes.iter().zip(&empty).any(|(node, state)| state.fits(pod, node));

        let mut arrivals: Vec<usize> = (0..self.pods.len()).collect();
        arrivals.sort_by_key(|&i| self.lifetimes[i].created);
        let mut next_arrival = 0;
        // (time, pod) of each placed pod's departure, earliest first; ties by pod.
        let mut departures: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::new();
        let mut held: Vec<Option<Held>> = (0..self.pods.len()).map(|_| None).collect();
        let mut lives = vec![JobLife::default(); self.pods.len()];
        // Waiting pods in arrival order.
        let mut waiting: Vec<usize> = Vec::new();
        let mut freed_nodes: Vec<usize> = Vec::new();
        let mut unschedulable = 0u64;
        let mut timeline = Vec::new();
        let (mut arrived_milli, mut allocated_milli, mut gpus_held, mut cpu_milli_held) = (0i64, 0i64, 0u64, 0i64);
        let (mut running, mut instants) = (0u32, 0u64);
        let mut busy_gpu_seconds = 0.0;
        let mut last_time: Option<i64> = None;

        loop {
            let next_departure = departures.peek().map(|Reverse((t, _))| *t);
            let next_give_up = waiting.iter().map(|&i| self.lifetimes[i].deleted).min();
            let next_created = arrivals.get(next_arrival).map(|&i| self.lifetimes[i].created);
            let Some(now) = [next_departure, next_give_up, next_created].into_iter().flatten().min() else { break };
            if stop.is_stopped() {
                return Err(RunError::Stopped);
            }
            let held_gpus = allocated_milli as f64 / GPU_MILLI as f64;
            if let Some(end) = horizon.filter(|&h| now as SimTime > h) {
                if let Some(before) = last_time {
                    busy_gpu_seconds += held_gpus * (end - before as SimTime).max(0.0);
                }
                last_time = Some(end.floor() as i64);
                break;
            }
            if let Some(before) = last_time {
                busy_gpu_seconds += held_gpus * (now - before) as f64;
            }
            last_time = Some(now);
            instants += 1;

            freed_nodes.clear();
            while let Some(&Reverse((t, i))) = departures.peek()
                && t == now
            {
                departures.pop();
                let Held { node, devices } = held[i].take().expect("a departing pod is placed");
                let pod = &self.pods[i];
                placer.remove(node, pod, &devices);
                allocated_milli -= pod.gpu_request();
                gpus_held -= u64::from(pod.gpus);
                cpu_milli_held -= pod.cpu;
                running -= 1;
                lives[i].finish(now as SimTime, false);
                freed_nodes.push(node);
            }
            waiting.retain(|&i| self.lifetimes[i].deleted > now);
            let mut place = |i: usize, placer: &mut Placer| -> bool {
                let pod = &self.pods[i];
                let Some((node, devices)) = placer.place(pod, policy) else { return false };
                held[i] = Some(Held { node, devices });
                allocated_milli += pod.gpu_request();
                gpus_held += u64::from(pod.gpus);
                cpu_milli_held += pod.cpu;
                running += 1;
                let life = &mut lives[i];
                life.first_start = Some(now as SimTime);
                life.attained_service = self.lifetimes[i].runs_for as f64;
                departures.push(Reverse((now + self.lifetimes[i].runs_for, i)));
                true
            };
            if !freed_nodes.is_empty() {
                // Only a node that gained room since a waiting pod's last try can take it now:
                // the full placement runs for the pods that fit one of them.
                let nodes = &nodes;
                waiting.retain(|&i| {
                    let pod = &self.pods[i];
                    let may_fit = freed_nodes.iter().any(|&n| placer.state(n).fits(pod, &nodes[n]));
                    !(may_fit && place(i, &mut placer))
                });
            }
            while let Some(&i) = arrivals.get(next_arrival).filter(|&&i| self.lifetimes[i].created == now) {
                next_arrival += 1;
                let pod = &self.pods[i];
                arrived_milli += pod.gpu_request();
                if !fits_empty(pod) {
                    unschedulable += 1;
                } else if !place(i, &mut placer) && self.lifetimes[i].deleted > now {
                    waiting.push(i);
                }
            }
            if record_timeline {
                let (fragment, ratio) = placer.fragmentation();
                timeline.push(TimelineRow {
                    time: now as SimTime,
                    free_gpus: placer.idle_gpus,
                    gpu_demand: gpus_held,
                    running,
                    queued: waiting.len() as u32,
                    admission_backlog: None,
                    preemptions: 0,
                    resizes: 0,
                    cluster_efficiency: None,
                    cpus_in_use: Some(cpu_milli_held as f64 / 1000.0),
                    memory_gb_in_use: None,
                    arrived_gpu_milli: Some(arrived_milli as u64),
                    allocated_gpu_milli: Some(allocated_milli as u64),
                    fragmented_gpu_milli: Some(two_decimals(fragment)),
                    fragmentation_ratio: Some(two_decimals(ratio)),
                });
            }
        }

        // Every pod that arrived before the end has a record; pods a horizon cut off have none.
        let end = last_time.unwrap_or(0);
        let mut summary = SummaryBuilder::default();
        let (mut tracked, mut finished) = (0u64, 0u64);
        for (i, (pod, life)) in self.pods.iter().zip(&lives).enumerate() {
            if self.lifetimes[i].created > end {
                continue;
            }
            let record = JobRecord::of(&job_of(i, pod, &self.lifetimes[i]), life, pod.gpus);
            tracked += 1;
            finished += u64::from(record.finish.is_some());
            summary.add(&record);
            sink.push(record).map_err(RunError::Output)?;
        }
        let first = arrivals.first().map_or(0, |&i| self.lifetimes[i].created);
        let makespan = last_time.map_or(0, |t| t - first) as f64;
        let totals = RunTotals {
            tracked_jobs: tracked,
            jobs_finished: finished,
            jobs_unschedulable: unschedulable,
            makespan,
            rounds: instants,
            preemptions: 0,
            resizes: 0,
            busy_gpu_seconds,
            capacity_gpu_seconds: f64::from(placer.total_gpus()) * makespan,
        };
        Ok(RunTables { summary: summary.finish(totals), timeline })
    }
}

/// Pod `i` as the job its record describes: it asks for its GPUs (a share of one as milli),
/// CPUs and memory, and its work is the time it runs.
fn job_of(i: usize, pod: &Pod, lifetime: &Lifetime) -> JobSpec {
    let created = lifetime.created as SimTime;
    JobSpec {
        id: i as u64,
        arrival: created,
        submitted: created,
        gpus: pod.gpus,
        gpu_milli: pod.is_share().then_some(pod.milli as u32),
        cpus: Some(pod.cpu as f64 / 1000.0),
        memory_gb: Some(pod.memory as f64 / (1u64 << 30) as f64),
        work: lifetime.runs_for as f64,
        ..JobSpec::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::placements::fragmentation::Fragmentation;

    /// Scores every node alike: ties go to the lowest rank.
    struct Alike;

    impl ScorePolicy for Alike {
        fn score(&mut self, _: &Pod, _: &NodeState, _: &mut Fragmentation) -> i64 {
            0
        }
    }

    fn node(name: &str, gpus: u32) -> Node {
        Node { name: name.into(), cpu: 64_000, memory: 256 << 30, gpus, model: "T4".into() }
    }

    fn pod(gpus: u32, milli: i64) -> Pod {
        Pod { name: "p".into(), cpu: 1000, memory: 1 << 30, gpus, milli, models: String::new() }
    }

    fn life(created: i64, runs_for: i64, deleted: i64) -> Lifetime {
        Lifetime { created, runs_for, deleted }
    }

    fn run(nodes: &[Node], pods: &[Pod], lifetimes: &[Lifetime]) -> (Vec<JobRecord>, RunTables) {
        let mut records = Vec::new();
        let tables = OverTime { nodes, pods, lifetimes }
            .run_into(&mut Alike, 42, None, &StopFlag::new(), &mut records, true)
            .unwrap();
        (records, tables)
    }

    #[test]
    fn shares_of_one_gpu_run_together_and_a_third_waits_for_a_departure() {
        let nodes = [node("n0", 1)];
        let pods = [pod(1, 500), pod(1, 500), pod(1, 400)];
        let lifetimes = [life(0, 100, 1000), life(10, 50, 1000), life(20, 30, 1000)];
        let (records, tables) = run(&nodes, &pods, &lifetimes);
        let times: Vec<_> = records.iter().map(|r| (r.first_start, r.finish)).collect();
        // The GPU is full from 10 s: the third waits until the second leaves at 60, then runs 30 s.
        assert_eq!(times, [(Some(0.0), Some(100.0)), (Some(10.0), Some(60.0)), (Some(60.0), Some(90.0))]);
        let rows: Vec<_> = tables.timeline.iter().map(|r| (r.time, r.allocated_gpu_milli, r.queued)).collect();
        assert_eq!(
            rows,
            [
                (0.0, Some(500), 0),
                (10.0, Some(1000), 0),
                (20.0, Some(1000), 1),
                (60.0, Some(900), 0),
                (90.0, Some(500), 0),
                (100.0, Some(0), 0)
            ]
        );
        assert_eq!(tables.summary.jobs_finished, 3);
        // GPU-seconds held: 0.5 x 10 + 1.0 x 50 + 0.9 x 30 + 0.5 x 10 = 87 over 100 s of 1 GPU.
        assert!((tables.summary.gpu_utilization - 0.87).abs() < 1e-12, "{}", tables.summary.gpu_utilization);
    }

    #[test]
    fn a_waiting_pod_gives_up_at_its_deletion_and_an_impossible_one_never_waits() {
        let nodes = [node("n0", 2)];
        let pods = [pod(2, 1000), pod(1, 1000), pod(4, 1000)];
        let lifetimes = [life(0, 100, 100), life(5, 10, 50), life(6, 10, 60)];
        let (records, tables) = run(&nodes, &pods, &lifetimes);
        assert_eq!((records[1].first_start, records[1].finish), (None, None), "deleted at 50, still waiting");
        assert_eq!(records[2].first_start, None);
        assert_eq!(tables.summary.jobs_unschedulable, 1, "four GPUs on a two-GPU cluster");
        assert_eq!(tables.summary.jobs_finished, 1);
        let queued: Vec<_> = tables.timeline.iter().map(|r| (r.time, r.queued)).collect();
        assert_eq!(queued, [(0.0, 0), (5.0, 1), (6.0, 1), (50.0, 0), (100.0, 0)]);
    }

    #[test]
    fn a_horizon_ends_the_run_with_running_and_waiting_pods_unfinished() {
        let nodes = [node("n0", 1)];
        let pods = [pod(1, 1000), pod(1, 1000), pod(1, 1000)];
        let lifetimes = [life(0, 100, 1000), life(10, 10, 1000), life(500, 10, 1000)];
        let mut records = Vec::new();
        let tables = OverTime { nodes: &nodes, pods: &pods, lifetimes: &lifetimes }
            .run_into(&mut Alike, 42, Some(50.0), &StopFlag::new(), &mut records, true)
            .unwrap();
        let states: Vec<_> = records.iter().map(|r| (r.first_start, r.finish)).collect();
        assert_eq!(states, [(Some(0.0), None), (None, None)], "the third arrives after the horizon: no record");
        assert_eq!(tables.summary.makespan, 50.0);
        assert_eq!(tables.summary.gpu_utilization, 1.0, "the GPU was held throughout the 50 s");
        assert_eq!(tables.timeline.len(), 2, "the instants 0 and 10");
    }

    #[test]
    fn the_pod_that_waited_longest_goes_first_when_room_frees() {
        let nodes = [node("n0", 1)];
        let pods = [pod(1, 1000), pod(1, 1000), pod(1, 1000)];
        let lifetimes = [life(0, 10, 100), life(1, 10, 100), life(2, 10, 100)];
        let (records, _) = run(&nodes, &pods, &lifetimes);
        let starts: Vec<_> = records.iter().map(|r| r.first_start).collect();
        assert_eq!(starts, [Some(0.0), Some(10.0), Some(20.0)]);
        let waits: Vec<_> = records.iter().map(|r| r.first_start.unwrap() - r.arrival).collect();
        assert_eq!(waits, [0.0, 9.0, 18.0]);
    }

    #[test]
    fn a_waiting_pod_takes_the_node_a_departure_frees() {
        // Two nodes, each filled by a whole-GPU pod; the waiting pod lands on the node freed.
        let nodes = [node("a", 1), node("b", 1)];
        let pods = [pod(1, 1000), pod(1, 1000), pod(1, 1000)];
        let lifetimes = [life(0, 30, 100), life(0, 10, 100), life(1, 5, 100)];
        let (records, tables) = run(&nodes, &pods, &lifetimes);
        assert_eq!(records[2].first_start, Some(10.0));
        assert_eq!(records[2].finish, Some(15.0));
        let free: Vec<_> = tables.timeline.iter().map(|r| (r.time, r.free_gpus)).collect();
        assert_eq!(free, [(0.0, 0), (1.0, 0), (10.0, 0), (15.0, 1), (30.0, 2)]);
    }
}
