//! Muri's scheduler, shared by its four policies (`muri-s`, `muri-l`, `muri-l-worst-ordering`,
//! `muri-l-without-blossom`): `run_sim.py` `multi_resource_blossom_same_sim_jobs` (lines
//! 933–1218) and `matching.py` `_Blossom_Same.run` / `blossom_one_round` (572–722) @ 4e69a78,
//! as `docs/muri-semantics.md` §7 specifies them.
//!
//! Rule, at every arrival and every completion (the family's skeleton, [`super::family`]):
//!
//! 1. **Key** (§7.2): every running job's key is updated — Muri-S: remaining GPU time
//!    `iterations left × solo time × GPUs`; the Muri-L variants: attained GPU time, wall seconds
//!    spent running (overheads included) × GPUs. The runnable jobs are stably sorted by key.
//! 2. **Admission by slots** (§7.3): from an empty cluster, in key order, a job not yet covered
//!    that MS-YARN can reserve opens a slot of its GPU count, covering it and the next
//!    `packing_num − 1` uncovered jobs of its GPU count in key order. `required` = the GPUs the
//!    admitted jobs would need alone.
//! 3. **Grouping** (§7.4, §7.6): jobs are grouped only among equal GPU counts, and only while
//!    `required` exceeds the cluster. With Blossom, up to `packing_num` rounds: per GPU count (in
//!    order of first appearance), a maximum-weight matching ([`super::matching`]) over the current
//!    groups, edge weight the used ratio of the merged group ([`super::group_time::used_ratio`]);
//!    matched pairs are merged in emission order until `required` fits. Without Blossom, each slot's
//!    jobs are merged into its first job in key order until `required` fits.
//! 4. **Autopack** (§7.7, option): a group slower than its members run one after another
//!    (best-order cycle over the sum of solo times `> 1`) is split; groups and singles are
//!    re-admitted by key from an empty cluster, skipping what does not fit.
//! 5. **Placement** (§7.8): runnable jobs are stably sorted by GPU count, descending (the order the
//!    next decision starts from); each group is placed once with MS-YARN at its first member, the
//!    others share its GPUs. Every member advances one iteration per group cycle
//!    ([`super::group_time::group_iteration_time`]) and is charged, in every interval, the sum of
//!    its members' restart overheads.
//!
//! Quirks kept (§11): the Muri-S key of a job that never ran is its trace duration × GPUs, without
//! the 1.015 of started jobs (item 4); key ties keep the previous decision's GPU-descending order
//! with arrivals behind in trace order (5); the matching's pairs are merged in emission order, not
//! by weight (6), and not at all while the admitted jobs fit alone (7); the matcher's own tie-break
//! (8); autopack judges with the best order even for the worst-ordering variant (10); the variant
//! without Blossom uses f_4 = 1.3/1.015 (11); one job alone runs at its solo time (12). A group
//! member that MS-YARN cannot place waits (the original's "unable to place", never observed).

use super::family::{Coincidence, Family, check_placed_job, job_overhead};
use super::group_time::{GroupJob, GroupTimeRule, MAX_GROUP, Ordering, group_iteration_time, used_ratio};
use super::matching::{Emitted, Matcher, WeightMatrix, edge_threshold};
use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx, JobStatus};
use crate::core::{ClusterSpec, RunError, SimTime};
use crate::policies::node::{NodeError, PolicyNode};
use crate::policies::{BuildContext, Built, OptionDoc, Params, PolicyConfig};
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Deserializer, de};

/// The original's `--multi_resource`: stage slots of the cycle and divisor of the used ratio, 4 in
/// every script of the paper (the shipped traces have three stage times, which selects the
/// recurrence of §8).
pub const MULTI_RESOURCE: usize = 4;

/// What a Muri policy's options give, common to the four variants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params4 {
    /// Largest group, `--packing_num` (1 to 4).
    pub packing_num: usize,
    /// `--autopack`.
    pub autopack: bool,
    /// `--weight_lbd`: a merged pair is an edge only if its used ratio exceeds
    /// `weight_lbd × jobs / 4`.
    pub weight_lbd: f64,
}

/// The options every Muri policy documents.
pub const OPTIONS: &[OptionDoc] = &[
    OptionDoc {
        name: "packing_num",
        example: "4",
        meaning: "largest group of interleaved jobs, 1 to 4 (--packing_num; default 4)",
    },
    OptionDoc {
        name: "autopack",
        example: "false",
        meaning: "split groups slower than their jobs run in turn, then re-admit by key (--autopack; default true, the original's HEAD; its published trace values match false)",
    },
    OptionDoc {
        name: "weight_lbd",
        example: "0",
        meaning: "a pair is grouped only if its used ratio exceeds weight_lbd x jobs / 4 (--weight_lbd; default 0)",
    },
];

/// `packing_num`: 1 to 4 (§11 item 21: the group cycle is defined for at most four jobs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackingNum(pub usize);

impl Default for PackingNum {
    fn default() -> Self {
        Self(MAX_GROUP)
    }
}

impl<'de> Deserialize<'de> for PackingNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = u64::deserialize(d)?;
        if (1..=MAX_GROUP as u64).contains(&v) {
            Ok(Self(v as usize))
        } else {
            Err(de::Error::custom(format!(
                "must be 1 to {MAX_GROUP} (Muri's group cycle is defined for at most {MAX_GROUP} jobs), got {v}"
            )))
        }
    }
}

/// `weight_lbd`: a non-negative, finite number.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WeightLbd(pub f64);

impl<'de> Deserialize<'de> for WeightLbd {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if v.is_finite() && v >= 0.0 {
            Ok(Self(v))
        } else {
            Err(de::Error::custom(format!("must be a non-negative number, got {v}")))
        }
    }
}

/// The original's default `--autopack` (HEAD, e7fc578).
fn autopack_default() -> bool {
    true
}

/// The options of every Muri policy ([`OPTIONS`]), as a spec gives them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    #[serde(default)]
    packing_num: PackingNum,
    #[serde(default = "autopack_default")]
    autopack: bool,
    #[serde(default)]
    weight_lbd: WeightLbd,
}

/// A Muri policy as a spec configured it: the options and the variant its descriptor names.
struct Configured {
    variant: Variant,
    params: Params4,
}

/// Reads a Muri policy's options for `variant`: the four descriptors differ only in the variant
/// they build, so each one's `parse` is this with its own.
pub fn parse_variant(node: &PolicyNode, variant: Variant) -> Result<Box<dyn PolicyConfig>, NodeError> {
    let Options { packing_num, autopack, weight_lbd } = Options::deserialize(node)?;
    let params = Params4 { packing_num: packing_num.0, autopack, weight_lbd: weight_lbd.0 };
    Ok(Box::new(Configured { variant, params }))
}

impl PolicyConfig for Configured {
    fn params(&self) -> Params {
        let mut params = Params::new();
        params.insert("packing_num", self.params.packing_num.into());
        params.insert("autopack", self.params.autopack.into());
        params.insert("weight_lbd", self.params.weight_lbd.into());
        params
    }

    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Event(Box::new(Muri::new(self.variant, self.params))))
    }
}

/// Which Muri policy (§7.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variant {
    /// Muri-S (`know_duration`): keyed by remaining GPU time; else by attained GPU time (Muri-L).
    pub knows_duration: bool,
    /// Groups by matchings (`blossom`); else by consecutive slots.
    pub blossom: bool,
    /// Ordering and interference factors of group cycles.
    pub rule: GroupTimeRule,
}

impl Variant {
    pub const MURI_S: Self = Self { knows_duration: true, blossom: true, rule: GroupTimeRule::MURI };
    pub const MURI_L: Self = Self { knows_duration: false, ..Self::MURI_S };
    pub const WORST_ORDERING: Self = Self { rule: GroupTimeRule::WORST_ORDERING, ..Self::MURI_L };
    pub const WITHOUT_BLOSSOM: Self = Self { blossom: false, rule: GroupTimeRule::WITHOUT_BLOSSOM, ..Self::MURI_L };
}

/// The jobs of one GPU count and their groups (each a list of jobs in group order).
#[derive(Debug, Default)]
struct Class {
    gpus: u32,
    /// Admission: the class's runnable jobs in key order, then the admitted prefix.
    jobs: Vec<JobIdx>,
    /// Admitted jobs covered by slots, and slots opened.
    chosen: usize,
    slots: usize,
    groups: Vec<Vec<JobIdx>>,
}

/// Index of the class of `gpus` GPUs in `classes`, appended (empty) if new: classes keep the order
/// in which their GPU count first appears (the original's dict insertion order).
fn class_of(classes: &mut Vec<Class>, gpus: u32) -> usize {
    match classes.iter().position(|c| c.gpus == gpus) {
        Some(c) => c,
        None => {
            classes.push(Class { gpus, ..Class::default() });
            classes.len() - 1
        }
    }
}

/// What [`Memo`] keeps of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Timing {
    /// The used ratio under the variant's rule (a matching's edge weight).
    UsedRatio,
    /// The cycle under the variant's rule (the members' iteration time).
    Cycle,
    /// The cycle at the best order (autopack's test).
    BestCycle,
}

/// Group timings and matchings by the profiles of the groups' members in group order: a timing
/// reads only each member's solo time and stage times, so groups of the same profiles in the
/// same order have bit-identical values (the shipped traces have 48 profiles, model × GPUs); a
/// class's graph is a function of its groups' profiles in class order (weights, threshold and
/// size cap are), and the matcher of its graph, so equal sequences match alike. Spares the
/// permutations of §8 in every matching round, and the matchings of classes a decision left as
/// the previous one had them.
#[derive(Debug, Default)]
struct Memo {
    /// Profile ids from 1, by the bits of (solo time, stage times).
    ids: HashMap<Vec<u64>, u32>,
    /// Per job index: its profile id.
    profile: Vec<u32>,
    values: HashMap<(u128, Timing), f64>,
    /// What the matching of a class emits, by its groups' keys in class order.
    matchings: HashMap<Vec<u128>, Vec<Emitted>>,
}

/// Matchings kept at most; the memo is emptied when full (memory stays bounded on long traces).
const MATCHINGS_KEPT: usize = 4096;

impl Memo {
    /// Gives `j` the id of its profile.
    fn add(&mut self, sim: &EventSim, family: &Family, j: JobIdx) {
        let job = group_job(sim, family, j);
        let bits: Vec<u64> =
            std::iter::once(job.iteration_time).chain(job.stages.iter().copied()).map(f64::to_bits).collect();
        let next = self.ids.len() as u32 + 1;
        let id = *self.ids.entry(bits).or_insert(next);
        if self.profile.len() <= j {
            self.profile.resize(j + 1, 0);
        }
        self.profile[j] = id;
    }

    /// The group's key: its members' profile ids, 32 bits each (groups have at most four).
    fn key<'a>(&self, members: impl Iterator<Item = &'a JobIdx>) -> u128 {
        members.enumerate().fold(0, |key, (i, &j)| key | u128::from(self.profile[j]) << (32 * i))
    }

    fn value(&mut self, timing: Timing, key: u128, compute: impl FnOnce() -> f64) -> f64 {
        *self.values.entry((key, timing)).or_insert_with(compute)
    }

    fn remember_matching(&mut self, graph: Vec<u128>, items: Vec<Emitted>) {
        if self.matchings.len() >= MATCHINGS_KEPT {
            self.matchings.clear();
        }
        self.matchings.insert(graph, items);
    }
}

/// One Muri policy.
#[derive(Debug)]
pub struct Muri {
    variant: Variant,
    params: Params4,
    family: Family,
    /// Per job index: the sort key (`sort_val`), and the values it is taken from.
    key: Vec<f64>,
    remaining_gputime: Vec<f64>,
    executed_gputime: Vec<f64>,
    /// Per job index: covered by an admission slot in this decision.
    covered: Vec<bool>,
    /// Per job index: its group in `packings` (index into `groups`).
    group_of: Vec<Option<usize>>,
    classes: Vec<Class>,
    next_classes: Vec<Class>,
    /// The final groups of this decision, and per group: placed yet, cycle, overhead.
    groups: Vec<Vec<JobIdx>>,
    placed: Vec<bool>,
    weights: WeightMatrix,
    matcher: Matcher,
    /// What the class being grouped emits, in the original's order.
    emitted: Vec<Emitted>,
    memo: Memo,
}

impl Muri {
    pub fn new(variant: Variant, params: Params4) -> Self {
        Self {
            variant,
            params,
            family: Family::new(Coincidence::Near),
            key: Vec::new(),
            remaining_gputime: Vec::new(),
            executed_gputime: Vec::new(),
            covered: Vec::new(),
            group_of: Vec::new(),
            classes: Vec::new(),
            next_classes: Vec::new(),
            groups: Vec::new(),
            placed: Vec::new(),
            weights: WeightMatrix::new(),
            matcher: Matcher::new(),
            emitted: Vec::new(),
            memo: Memo::default(),
        }
    }

    /// §7.2: arrivals' and running jobs' keys, then the stable sort by key.
    fn order_by_key(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) {
        for &j in arrivals {
            let spec = &sim.job(j).spec;
            self.remaining_gputime[j] = spec.work * f64::from(spec.gpus);
            self.executed_gputime[j] = 0.0;
        }
        self.family.progress(sim, now);
        for &j in sim.runnable() {
            let gpus = f64::from(sim.job(j).spec.gpus);
            if sim.job(j).status == JobStatus::Running {
                let job = self.family.job(j);
                self.remaining_gputime[j] = job.remaining * job.solo * gpus;
                self.executed_gputime[j] = job.executed * gpus;
            }
            self.key[j] =
                if self.variant.knows_duration { self.remaining_gputime[j] } else { self.executed_gputime[j] };
        }
        let key = &self.key;
        sim.reorder_runnable(|_, runnable| {
            runnable.sort_by(|&a, &b| key[a].partial_cmp(&key[b]).unwrap_or(std::cmp::Ordering::Equal))
        });
    }

    /// §7.3: slots per GPU count, from an empty cluster in key order; returns `required`.
    fn admit(&mut self, sim: &EventSim) -> u64 {
        self.classes.clear();
        for &j in sim.runnable() {
            let c = class_of(&mut self.classes, sim.job(j).spec.gpus);
            self.classes[c].jobs.push(j);
            self.covered[j] = false;
        }
        let p = self.params.packing_num;
        let nodes = self.family.empty_nodes();
        for &j in sim.runnable() {
            if self.covered[j] {
                continue;
            }
            let gpus = sim.job(j).spec.gpus;
            if nodes.take(gpus) {
                let class = self.classes.iter_mut().find(|c| c.gpus == gpus).expect("every runnable job has a class");
                let upto = (class.chosen + p).min(class.jobs.len());
                for &k in &class.jobs[class.chosen..upto] {
                    self.covered[k] = true;
                }
                class.slots += 1;
                class.chosen = upto;
            }
        }
        let mut required = 0;
        for class in &mut self.classes {
            class.jobs.truncate(class.chosen);
            required += class.chosen as u64 * u64::from(class.gpus);
        }
        required
    }

    /// §7.4: up to `packing_num` matching rounds, merging while `required` exceeds the cluster.
    fn group_by_matching(&mut self, sim: &EventSim, mut required: u64) {
        let total = u64::from(sim.total_gpus());
        for class in &mut self.classes {
            class.groups = class.jobs.iter().map(|&j| vec![j]).collect();
        }
        // When the admitted jobs fit alone, the first round merges nothing and ends the loop; only
        // autopack reads the order in which it emits the singles, so without it the matchings
        // would decide nothing.
        if required <= total && !self.params.autopack {
            return;
        }
        for _ in 0..self.params.packing_num {
            self.matching_round(sim, &mut required, total);
            if required <= total {
                break;
            }
        }
    }

    /// `blossom_one_round`: a matching per class, then the merge pass over what they emitted, in
    /// class order. The pass is run class by class: a class's matching reads only the groups the
    /// round started with, so this is the original's order of work.
    ///
    /// Once the admitted jobs fit (`required <= total`), nothing later in the pass merges and the
    /// round is the last; without autopack nothing reads the order in which the remaining classes
    /// emit their groups (placement walks the runnable jobs, and a group is found by membership),
    /// so their matchings, which would decide nothing, are not run.
    fn matching_round(&mut self, sim: &EventSim, required: &mut u64, total: u64) {
        self.next_classes.clear();
        for c in 0..self.classes.len() {
            self.emitted.clear();
            if *required <= total && !self.params.autopack {
                self.emitted.extend((0..self.classes[c].groups.len()).map(Emitted::Single));
            } else {
                self.match_class(sim, c);
            }
            let gpus = self.classes[c].gpus;
            let next = class_of(&mut self.next_classes, gpus);
            let groups = &mut self.classes[c].groups;
            for &item in &self.emitted {
                match item {
                    Emitted::Single(u) => {
                        let group = std::mem::take(&mut groups[u]);
                        self.next_classes[next].groups.push(group);
                    }
                    Emitted::Pair(v, u) if *required <= total => {
                        let (first, second) = (std::mem::take(&mut groups[v]), std::mem::take(&mut groups[u]));
                        self.next_classes[next].groups.push(first);
                        self.next_classes[next].groups.push(second);
                    }
                    Emitted::Pair(v, u) => {
                        let mut merged = std::mem::take(&mut groups[v]);
                        merged.append(&mut groups[u]);
                        *required -= u64::from(gpus);
                        self.next_classes[next].groups.push(merged);
                    }
                }
            }
        }
        std::mem::swap(&mut self.classes, &mut self.next_classes);
    }

    /// The matching of class `c`'s groups (remembered by their profiles), emitted into
    /// `self.emitted` in the original's order.
    fn match_class(&mut self, sim: &EventSim, c: usize) {
        let p = self.params.packing_num;
        let rule = self.variant.rule;
        let lbd = self.params.weight_lbd;
        let class = &self.classes[c];
        let graph: Vec<u128> = class.groups.iter().map(|g| self.memo.key(g.iter())).collect();
        if let Some(items) = self.memo.matchings.get(&graph) {
            self.emitted.extend_from_slice(items);
            return;
        }
        let n = class.groups.len();
        // A pair's weight is a function of the two groups' keys: look each pair of distinct keys
        // up once (a class of 256 groups has about 8 distinct keys in the paper's traces).
        let mut kinds: Vec<u128> = Vec::new();
        let kind: Vec<usize> = graph
            .iter()
            .map(|key| {
                kinds.iter().position(|k| k == key).unwrap_or_else(|| {
                    kinds.push(*key);
                    kinds.len() - 1
                })
            })
            .collect();
        let t = kinds.len();
        let mut pair_weight: Vec<Option<f64>> = vec![None; t * t];
        let mut members: Vec<GroupJob<'_>> = Vec::with_capacity(MAX_GROUP);
        self.weights.reset(n);
        for u in 0..n {
            for v in 0..n {
                let size = class.groups[u].len() + class.groups[v].len();
                if u == v || size > p {
                    continue;
                }
                let w = *pair_weight[kind[u] * t + kind[v]].get_or_insert_with(|| {
                    let pair = || class.groups[u].iter().chain(&class.groups[v]);
                    self.memo.value(Timing::UsedRatio, self.memo.key(pair()), || {
                        members.clear();
                        members.extend(pair().map(|&j| group_job(sim, &self.family, j)));
                        used_ratio(&members, &rule)
                    })
                });
                self.weights.offer(u, v, w, edge_threshold(lbd, size, MULTI_RESOURCE));
            }
        }
        self.matcher.run(&self.weights);
        self.emitted.extend(self.matcher.emitted());
        self.memo.remember_matching(graph, self.emitted.clone());
    }

    /// §7.6: each slot's jobs join its first job while `required` exceeds the cluster; the slot's
    /// jobs left alone come before its group.
    fn group_by_slots(&mut self, sim: &EventSim, mut required: u64) {
        let total = u64::from(sim.total_gpus());
        let p = self.params.packing_num;
        for class in &mut self.classes {
            class.groups.clear();
            for s in 0..class.slots {
                let mut leader = vec![class.jobs[s * p]];
                for k in 1..p {
                    let Some(&j) = class.jobs.get(s * p + k) else { break };
                    if required > total {
                        leader.push(j);
                        required -= u64::from(class.gpus);
                    } else {
                        class.groups.push(vec![j]);
                    }
                }
                class.groups.push(leader);
            }
        }
    }

    /// §7.7: splits groups slower than their jobs in turn (best order), then re-admits groups and
    /// singles by key from an empty cluster.
    fn autopack(&mut self, sim: &EventSim) {
        let best = GroupTimeRule { ordering: Ordering::Best, ..self.variant.rule };
        let mut items: Vec<(u32, Vec<JobIdx>, f64)> = Vec::new();
        let mut members: Vec<GroupJob<'_>> = Vec::with_capacity(MAX_GROUP);
        for class in &mut self.classes {
            for group in class.groups.drain(..) {
                let cycle = self.memo.value(Timing::BestCycle, self.memo.key(group.iter()), || {
                    members.clear();
                    members.extend(group.iter().map(|&j| group_job(sim, &self.family, j)));
                    group_iteration_time(&members, &best)
                });
                let solo_sum = group.iter().fold(0.0, |sum, &j| sum + self.family.job(j).solo);
                if cycle / solo_sum > 1.0 {
                    items.extend(group.iter().map(|&j| (class.gpus, vec![j], self.key[j])));
                } else {
                    let key = group.iter().map(|&j| self.key[j]).fold(f64::INFINITY, |m, k| if k < m { k } else { m });
                    items.push((class.gpus, group, key));
                }
            }
        }
        items.sort_by(|a, b| a.2.partial_cmp(&b.2).unwrap_or(std::cmp::Ordering::Equal));
        self.classes.clear();
        let nodes = self.family.empty_nodes();
        for (gpus, group, _) in items {
            if nodes.take(gpus) {
                let c = class_of(&mut self.classes, gpus);
                self.classes[c].groups.push(group);
            }
        }
    }

    /// §7.8: GPU-descending order, one placement per group, cycle and summed overhead per member.
    fn place(&mut self, sim: &mut EventSim) -> Result<(), RunError> {
        sim.reorder_runnable(|jobs, runnable| runnable.sort_by_key(|&j| std::cmp::Reverse(jobs[j].spec.gpus)));
        self.groups.clear();
        for &j in sim.runnable() {
            self.group_of[j] = None;
        }
        for class in &mut self.classes {
            for group in class.groups.drain(..) {
                for &j in &group {
                    self.group_of[j] = Some(self.groups.len());
                }
                self.groups.push(group);
            }
        }
        self.placed.clear();
        self.placed.resize(self.groups.len(), false);
        self.family.clear_run_set(sim);
        self.family.empty_nodes();
        let mut members: Vec<GroupJob<'_>> = Vec::with_capacity(MAX_GROUP);
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            let Some(g) = self.group_of[j] else { continue };
            let group = &self.groups[g];
            let rule = self.variant.rule;
            let cycle = self.memo.value(Timing::Cycle, self.memo.key(group.iter()), || {
                members.clear();
                members.extend(group.iter().map(|&m| group_job(sim, &self.family, m)));
                group_iteration_time(&members, &rule)
            });
            let mut overhead = 0.0;
            for &m in group {
                overhead += job_overhead(&sim.job(m).spec)
                    .map_err(|e| RunError::InvalidJob { id: sim.job(m).spec.id, reason: e.to_string() })?;
            }
            self.family.set_speed(j, cycle, overhead);
            if self.placed[g] {
                self.family.run(j, false);
            } else if self.family.nodes().take(sim.job(j).spec.gpus) {
                self.placed[g] = true;
                self.family.run(j, true);
            }
        }
        Ok(())
    }
}

/// How the group timing sees job `j`: its solo time and stage times.
fn group_job<'a>(sim: &'a EventSim, family: &Family, j: JobIdx) -> GroupJob<'a> {
    GroupJob { iteration_time: family.job(j).solo, stages: sim.job(j).spec.stage_times.as_deref().unwrap_or_default() }
}

impl EventPolicy for Muri {
    fn check_job(&self, job: &EventJob, cluster: &ClusterSpec) -> Result<(), String> {
        let spec = &job.spec;
        check_placed_job(spec, cluster, true)
    }

    /// Progress is accounted in [`EventPolicy::decide`], after the arrivals (§7.2).
    fn advance(&mut self, _sim: &mut EventSim, _delta: f64, _now: SimTime) -> Result<(), RunError> {
        Ok(())
    }

    fn complete(&mut self, sim: &mut EventSim, now: SimTime, _ends: &[JobIdx]) {
        self.family.complete(sim, now);
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        self.family.arrive(sim, arrivals);
        let n = sim.jobs().len();
        if self.key.len() < n {
            self.key.resize(n, 0.0);
            self.remaining_gputime.resize(n, 0.0);
            self.executed_gputime.resize(n, 0.0);
            self.covered.resize(n, false);
            self.group_of.resize(n, None);
        }
        for &j in arrivals {
            self.memo.add(sim, &self.family, j);
        }
        self.order_by_key(sim, now, arrivals);
        let required = self.admit(sim);
        if self.variant.blossom {
            self.group_by_matching(sim, required);
        } else {
            self.group_by_slots(sim, required);
        }
        if self.params.autopack {
            self.autopack(sim);
        }
        self.place(sim)?;
        self.family.apply(sim, now);
        self.family.plan_ends(sim, now);
        Ok(())
    }

    fn occupies_gpus(&self, _sim: &EventSim, j: JobIdx) -> bool {
        self.family.occupies(j)
    }

    fn next_decision(&mut self, sim: &mut EventSim, _now: SimTime) -> Result<Option<SimTime>, RunError> {
        Ok(self.family.next_decision(sim))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::JobSpec;
    use crate::policies::events::muri::family::testing::{finishes, job, run};
    use crate::policies::events::muri::group_time::solo_iteration_time;

    const BERT: (f64, [f64; 3]) = (178.0, [0.5, 160.0, 0.0]);
    const A2C: (f64, [f64; 3]) = (517.0, [514.0, 14.0, 0.0]);
    const VGG16: (f64, [f64; 3]) = (107.0, [117.0, 68.0, 0.0]);

    fn params(autopack: bool) -> Params4 {
        Params4 { packing_num: 4, autopack, weight_lbd: 0.0 }
    }

    fn pair(first: (&str, (f64, [f64; 3]), f64), second: (&str, (f64, [f64; 3]), f64)) -> Vec<JobSpec> {
        let (m0, (ms0, s0), n0) = first;
        let (m1, (ms1, s1), n1) = second;
        vec![job(0, 0.0, 1, n0, m0, ms0, s0), job(1, 0.0, 1, n1, m1, ms1, s1)]
    }

    /// Two 1-GPU jobs on one GPU: the slot admits both, they do not fit alone, the matching pairs
    /// them; both advance one iteration per group cycle (Appendix B: bert/1 + a2c/1 best
    /// 0.6918620689655174 s) and pay 10 + 38 s per interval; the survivor then runs alone.
    #[test]
    fn a_pair_shares_the_gpus_at_the_group_cycle() {
        let jobs = pair(("bert", BERT, 1000.0), ("a2c", A2C, 2000.0));
        let out = run(1, 1, Box::new(Muri::new(Variant::MURI_S, params(false))), jobs);
        let cycle = 0.6918620689655174;
        let first = 1000.0 * cycle;
        let left = 2000.0 - (first - 0.0 - 48.0) / cycle;
        let second = first + left * solo_iteration_time(517.0);
        assert_eq!(finishes(&out), [first, second]);
        assert_eq!(out.jobs.iter().map(|r| r.first_start).collect::<Vec<_>>(), [Some(0.0), Some(0.0)]);
        // The group holds one GPU, counted once.
        assert_eq!(out.timeline[0].free_gpus, 0);
        assert_eq!(out.timeline[0].running, 2);
    }

    /// The worst-ordering ablation charges the group its worst order (0.9015172413793106 s).
    #[test]
    fn the_worst_ordering_variant_runs_groups_at_their_worst_cycle() {
        let jobs = pair(("bert", BERT, 1000.0), ("a2c", A2C, 2000.0));
        let out = run(1, 1, Box::new(Muri::new(Variant::WORST_ORDERING, params(false))), jobs);
        assert_eq!(out.jobs[0].finish, Some(1000.0 * 0.9015172413793106));
    }

    /// vgg16/1 twice is slower grouped (0.3066 s) than in turn (2 × 0.1086 s): autopack splits it
    /// and only one fits; without autopack both run grouped.
    #[test]
    fn autopack_splits_a_group_slower_than_its_jobs_in_turn() {
        let jobs = || pair(("vgg16", VGG16, 1000.0), ("vgg16", VGG16, 2000.0));
        let split = run(1, 1, Box::new(Muri::new(Variant::MURI_S, params(true))), jobs());
        assert_eq!(split.jobs[0].finish, Some(1000.0 * solo_iteration_time(107.0)));
        assert_eq!(split.jobs[1].first_start, split.jobs[0].finish);
        let grouped = run(1, 1, Box::new(Muri::new(Variant::MURI_S, params(false))), jobs());
        assert_eq!(grouped.jobs[0].finish, Some(1000.0 * 0.3066206896551725));
        assert_eq!(grouped.jobs[1].first_start, Some(0.0));
    }

    /// Without Blossom (§7.6), the first slot's four jobs form one group (factor 1.3/1.015 for
    /// four) while the second slot's job runs alone.
    #[test]
    fn without_blossom_each_slot_is_a_group() {
        let (ms, stages) = BERT;
        let jobs: Vec<JobSpec> = (0..5).map(|i| job(i, 0.0, 1, 1000.0 * (i + 1) as f64, "bert", ms, stages)).collect();
        let out = run(1, 2, Box::new(Muri::new(Variant::WITHOUT_BLOSSOM, params(false))), jobs);
        assert!(out.jobs.iter().all(|r| r.first_start == Some(0.0)));
        let stages = stages.map(|s| s / 1000.0);
        let member = GroupJob { iteration_time: solo_iteration_time(ms), stages: &stages };
        let cycle = group_iteration_time(&[member; 4], &GroupTimeRule::WITHOUT_BLOSSOM);
        assert_eq!(out.jobs[0].finish, Some(1000.0 * cycle));
        assert_ne!(cycle, group_iteration_time(&[member; 4], &GroupTimeRule::MURI));
    }

    #[test]
    fn packing_num_is_1_to_4() {
        let parse = |text: &str| serde_saphyr::from_str::<PackingNum>(text).map_err(|e| e.to_string());
        assert_eq!(parse("2"), Ok(PackingNum(2)));
        assert!(parse("5").unwrap_err().contains("must be 1 to 4"));
        assert!(parse("0").is_err());
        assert!(serde_saphyr::from_str::<WeightLbd>("-1").is_err());
    }
}
