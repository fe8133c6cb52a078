//! The Pollux scheduler as its simulator runs it (`docs/pollux-semantics.md` §5): at every
//! interval a genetic search ([`nsga2`]) over matrices of GPUs per (job, node), scoring each by
//! the fairness-weighted mean of the jobs' speedups over their fair share (a power mean with
//! p = -1, each job's share discounted when its allocation changes by the restart it costs) and,
//! as a second objective that only shapes the front, the cluster's utility. Candidates are
//! repaired to at most one distributed job per node (interference avoidance, when on), to each
//! job's GPU cap (1 at first, then twice the most it has run on) and to the nodes' GPUs. The
//! search starts from the previous decision's first front; the allocation taken is the front's
//! fairest member. Jobs train at the batch their agent ([`super::agent`]) finds best, except
//! ncf, fixed at 32768 on one GPU as in the original.

use super::agent::Batches;
use super::frame::{Allocator, JobView, Nodes};
use super::job::{BatchRule, RESTART_SECONDS};
use super::nsga2::{self, Binomial, Chance, Problem, Rng, Settings};
use super::profile::Application;
use crate::core::{JobId, JobSpec};
use rustc_hash::FxHashMap;

/// Applications the original trains at a fixed total batch on one GPU under Pollux.
const FIXED_BATCH_APPLICATIONS: [(&str, u32); 1] = [("ncf", 32768)];
/// The original's cap on any job's GPUs ("the simulator can't handle more").
const MAX_REPLICAS: u32 = 64;
/// The original's cap on the nodes one job spans (inert up to 16 nodes).
const MAX_NODES_PER_JOB: usize = 16;
/// Mutation's chances: a job's row back to the current allocation; a row thinned; a cell of a
/// thinned row zeroed.
const RESET_CHANCE: f64 = 0.1;
const THIN_ROW_CHANCE: f64 = 0.1;
const THIN_CELL_CHANCE: f64 = 0.1;
/// Added to every scaled speedup inside the power mean.
const MEAN_FLOOR: f64 = 1e-3;

/// The policy's options and its state across decisions.
#[derive(Debug)]
pub struct PolluxScheduler {
    avoid_interference: bool,
    settings: Settings,
    rng: Rng,
    /// The previous decision's first front and the job order of its rows.
    previous: Option<(Vec<Vec<u8>>, Vec<JobId>)>,
    /// Per job of the current decision, its scores by (nodes, GPUs), reused buffer.
    memo: Vec<Score>,
}

impl PolluxScheduler {
    pub fn new(avoid_interference: bool, settings: Settings, seed: u64) -> Self {
        Self { avoid_interference, settings, rng: Rng::new(seed), previous: None, memo: Vec::new() }
    }
}

/// What the search knows of one job.
struct Row {
    goodput: Option<super::agent::Goodput>,
    /// Goodput on its fair share, or `None` to score `r / fair_r` (no model yet).
    baseline: Option<f64>,
    max_replicas: u32,
    /// Its share's discount when its allocation changes (§5.3).
    restart_factor: f64,
}

/// What a row on one allocation adds to the objectives: its speedup, and its term of the power
/// mean when its allocation is kept and when it changes (the restart's discount). Memoised per
/// decision because a search scores each (row, nodes, GPUs) thousands of times; computed by the
/// same operations in the same order as when scored directly, so the sums are bit for bit equal.
#[derive(Debug, Clone, Copy)]
struct Score {
    speedup: f64,
    kept: f64,
    moved: f64,
}

/// A memo slot not computed yet.
const UNSCORED: Score = Score { speedup: f64::NAN, kept: f64::NAN, moved: f64::NAN };

/// One decision's problem: rows in the order of least attained service.
struct Allocation<'a> {
    rows: Vec<Row>,
    nodes: usize,
    gpus_per_node: u8,
    fair_replicas: f64,
    base: Vec<u8>,
    avoid_interference: bool,
    /// Scores per (row, GPUs, nodes), [`UNSCORED`] until computed: GPUs major, so that the
    /// small allocations a search mostly scores sit together.
    memo: &'a mut Vec<Score>,
    stride: usize,
    /// The agents' batch candidates by batch range (as bits), shared by the jobs of one
    /// application.
    batches: FxHashMap<(u64, u64), Batches>,
    /// Buffers reused across candidates.
    scratch_load: Vec<u8>,
    scratch_occupants: Vec<u8>,
    scratch_taken: Vec<u8>,
    scratch_spanned: Vec<usize>,
    scratch_free: Vec<u8>,
    scratch_marks: Vec<bool>,
    scratch_picked: Vec<usize>,
    scratch_cells: Vec<usize>,
    draws: MutationDraws,
}

/// Mutation's counts of successes (§5.5): rows reset and rows thinned among the jobs, cells
/// zeroed among a thinned row's nodes, jobs drawn at chance 1/J on a node with a free GPU.
struct MutationDraws {
    reset_rows: Binomial,
    thin_rows: Binomial,
    thin_cells: Binomial,
    any_job: Binomial,
}

impl<'a> Allocation<'a> {
    fn new(
        rows: Vec<Row>,
        nodes: usize,
        gpus_per_node: u8,
        fair_replicas: f64,
        base: Vec<u8>,
        avoid_interference: bool,
        memo: &'a mut Vec<Score>,
    ) -> Self {
        // A repaired row spans at most every node and holds at most MAX_REPLICAS GPUs.
        let stride = (nodes + 1) * (MAX_REPLICAS as usize + 1);
        memo.clear();
        memo.resize(rows.len() * stride, UNSCORED);
        let jobs = rows.len();
        Self {
            rows,
            nodes,
            gpus_per_node,
            fair_replicas,
            base,
            avoid_interference,
            memo,
            stride,
            batches: FxHashMap::default(),
            scratch_load: Vec::new(),
            scratch_occupants: Vec::new(),
            scratch_taken: Vec::new(),
            scratch_spanned: Vec::new(),
            scratch_free: Vec::new(),
            scratch_marks: vec![false; jobs.max(nodes)],
            scratch_picked: Vec::new(),
            scratch_cells: Vec::new(),
            draws: MutationDraws {
                reset_rows: Binomial::new(jobs, RESET_CHANCE),
                thin_rows: Binomial::new(jobs, THIN_ROW_CHANCE),
                thin_cells: Binomial::new(nodes, THIN_CELL_CHANCE),
                any_job: Binomial::new(jobs, 1.0 / jobs as f64),
            },
        }
    }

    fn score(&mut self, j: usize, nodes: usize, replicas: usize) -> Score {
        let at = j * self.stride + replicas * (self.nodes + 1) + nodes;
        let memo = self.memo[at];
        if !memo.speedup.is_nan() {
            return memo;
        }
        let speedup = self.speedup(j, nodes, replicas);
        // A share of one node's GPUs is a speedup of 1.
        let share = speedup / f64::from(self.gpus_per_node);
        let score = Score {
            speedup,
            kept: 1.0 / (share + MEAN_FLOOR),
            moved: 1.0 / (share * self.rows[j].restart_factor + MEAN_FLOOR),
        };
        self.memo[at] = score;
        score
    }

    fn speedup(&mut self, j: usize, nodes: usize, replicas: usize) -> f64 {
        if replicas == 0 {
            return 0.0;
        }
        let row = &self.rows[j];
        let (Some(goodput), Some(baseline)) = (row.goodput, row.baseline) else {
            return replicas as f64 / self.fair_replicas;
        };
        let range = goodput.batch_range(replicas as u32);
        let candidates = self
            .batches
            .entry((range.0.to_bits(), range.1.to_bits()))
            .or_insert_with(|| super::agent::batches(range.0, range.1));
        goodput.optimize_over(nodes as u32, replicas as u32, candidates).0 / baseline
    }
}

impl Problem for Allocation<'_> {
    fn genes(&self) -> usize {
        self.base.len()
    }

    /// One-point crossover over job rows: the children swap the rows before the point.
    fn crossover(&mut self, a: &[u8], b: &[u8], x: &mut [u8], y: &mut [u8], rng: &mut Rng) {
        let cut = rng.below(self.rows.len()) * self.nodes;
        x[..cut].copy_from_slice(&b[..cut]);
        x[cut..].copy_from_slice(&a[cut..]);
        y[..cut].copy_from_slice(&a[..cut]);
        y[cut..].copy_from_slice(&b[cut..]);
    }

    /// §5.5's three stages: rows reset to the current allocation, rows thinned, and on every
    /// node with a free GPU cells re-drawn upwards (each job with chance 1/J, a job already there
    /// also with chance 1/occupants, which together are the original's `p1 + p2 - p1·p2`).
    /// Independent coins of one chance are drawn as their number of successes and a uniformly
    /// random set of that size, which is the same distribution in a few draws (§5.9).
    fn mutate(&mut self, genome: &mut [u8], rng: &mut Rng) {
        let n = self.nodes;
        let jobs = self.rows.len();
        let draws = &self.draws;
        let (marks, picked, cells) = (&mut self.scratch_marks, &mut self.scratch_picked, &mut self.scratch_cells);
        picked.clear();
        draws.reset_rows.successes(rng, picked, marks);
        for &j in picked.iter() {
            marks[j] = false;
            genome[j * n..(j + 1) * n].copy_from_slice(&self.base[j * n..(j + 1) * n]);
        }
        picked.clear();
        draws.thin_rows.successes(rng, picked, marks);
        for &j in picked.iter() {
            marks[j] = false;
        }
        for &j in picked.iter() {
            cells.clear();
            draws.thin_cells.successes(rng, cells, marks);
            for &k in cells.iter() {
                marks[k] = false;
                genome[j * n + k] = 0;
            }
        }
        let g = self.gpus_per_node;
        let (load, occupants) = (&mut self.scratch_load, &mut self.scratch_occupants);
        load.clear();
        load.resize(n, 0);
        occupants.clear();
        occupants.resize(n, 0);
        // Saturating bytes, 16 to a vector: a node's load is only compared with `g`, and its
        // occupants, each holding a GPU, are read only where the load is below `g` (≤ 255).
        for row in genome.chunks_exact(n) {
            add_to_columns(row, load, occupants);
        }
        for k in 0..n {
            if load[k] >= g {
                continue;
            }
            // The jobs drawn with chance 1/J, then those already there drawn with 1/occupants
            // (a job drawn twice grows once, as the original's one coin of the union).
            picked.clear();
            draws.any_job.successes(rng, picked, marks);
            if occupants[k] > 0 {
                let present = Chance::new(1.0 / f64::from(occupants[k]));
                for j in 0..jobs {
                    if genome[j * n + k] > 0 && !marks[j] && rng.hit(present) {
                        marks[j] = true;
                        picked.push(j);
                    }
                }
            }
            for &j in picked.iter() {
                marks[j] = false;
                let cell = &mut genome[j * n + k];
                *cell += rng.below(usize::from(g - *cell) + 1) as u8;
            }
        }
    }

    /// §5.6, in order: one distributed job per node (the first row wins), each job's GPU cap
    /// over its nodes in random order, each node's GPUs (earlier rows first). The three steps
    /// run row by row in one pass: a row's steps depend only on itself and on earlier rows'
    /// results, and only the cap draws, in row order, so the result and the draws are those of
    /// three passes. A row is final once its node step is done, so the same pass scores it: the
    /// objectives' sums take the rows in order, as a pass over the repaired genome would.
    fn repair(&mut self, genome: &mut [u8], rng: &mut Rng) -> [f64; 2] {
        let n = self.nodes;
        let g = self.gpus_per_node;
        let mut taken = std::mem::take(&mut self.scratch_taken);
        let mut free = std::mem::take(&mut self.scratch_free);
        let mut spanned = std::mem::take(&mut self.scratch_spanned);
        taken.clear();
        taken.resize(n, 0);
        free.clear();
        free.resize(n, g);
        let (mut harmonic, mut speedups) = (0.0, 0.0);
        for (j, cells) in genome.chunks_exact_mut(n).enumerate() {
            let max_replicas = self.rows[j].max_replicas;
            if self.avoid_interference && occupied(cells) >= 2 {
                zip_lanes(cells, &mut taken, |cell, taken| {
                    let present = u8::from(*cell > 0);
                    *cell = if *taken > 0 { 0 } else { *cell };
                    *taken |= present;
                });
            }
            let within_nodes = n <= MAX_NODES_PER_JOB || occupied(cells) <= MAX_NODES_PER_JOB;
            if total(cells) > max_replicas || !within_nodes {
                spanned.clear();
                spanned.extend((0..n).filter(|&k| cells[k] > 0));
                rng.shuffle(&mut spanned);
                let (mut kept, mut nodes) = (0u32, 0usize);
                for &k in spanned.iter() {
                    let keep = u32::from(cells[k]).min(max_replicas - kept);
                    if keep == 0 || nodes == MAX_NODES_PER_JOB {
                        cells[k] = 0;
                        continue;
                    }
                    cells[k] = keep as u8;
                    kept += keep;
                    nodes += 1;
                }
            }
            zip_lanes(cells, &mut free, |cell, free| {
                *cell = (*cell).min(*free);
                *free -= *cell;
            });
            let score = self.score(j, occupied(cells), total(cells) as usize);
            speedups += score.speedup;
            harmonic += if *cells == self.base[j * n..(j + 1) * n] { score.kept } else { score.moved };
        }
        // A node some job holds a GPU of has fewer than all free.
        let nodes_used = free.iter().filter(|&&f| f < g).count();
        (self.scratch_taken, self.scratch_free, self.scratch_spanned) = (taken, free, spanned);
        let fairness = self.rows.len() as f64 / harmonic;
        let utility = if nodes_used == 0 { 0.0 } else { speedups / (f64::from(g) * nodes_used as f64) };
        [-fairness, -utility]
    }
}

/// Width of the byte vectors the row walks below are written for: a row of a cluster of 16
/// nodes is one vector, handled whole rather than by a loop too short to be vectorised.
const LANES: usize = 16;

/// `f` over the cells of `row` and the matching entries of `state`, in fixed blocks of
/// [`LANES`] that the compiler turns into vector code, then the rest one by one.
fn zip_lanes(row: &mut [u8], state: &mut [u8], f: impl Fn(&mut u8, &mut u8)) {
    let mut rows = row.chunks_exact_mut(LANES);
    let mut states = state.chunks_exact_mut(LANES);
    for (r, s) in (&mut rows).zip(&mut states) {
        let r: &mut [u8; LANES] = r.try_into().expect("a full block");
        let s: &mut [u8; LANES] = s.try_into().expect("a full block");
        for (cell, entry) in r.iter_mut().zip(s.iter_mut()) {
            f(cell, entry);
        }
    }
    for (cell, entry) in rows.into_remainder().iter_mut().zip(states.into_remainder()) {
        f(cell, entry);
    }
}

/// How many cells of `row` are non-zero: the nodes a job spans.
fn occupied(row: &[u8]) -> usize {
    let mut blocks = row.chunks_exact(LANES);
    let mut count = 0;
    for block in &mut blocks {
        let block: &[u8; LANES] = block.try_into().expect("a full block");
        // At most 16: a byte holds it.
        count += usize::from(block.iter().fold(0u8, |n, &g| n + u8::from(g > 0)));
    }
    count + blocks.remainder().iter().filter(|&&g| g > 0).count()
}

/// The sum of `row`'s cells: a job's GPUs.
fn total(row: &[u8]) -> u32 {
    let mut blocks = row.chunks_exact(LANES);
    let mut sum = 0;
    for block in &mut blocks {
        let block: &[u8; LANES] = block.try_into().expect("a full block");
        // At most 16 x 255: 16 bits hold it.
        sum += u32::from(block.iter().fold(0u16, |n, &g| n + u16::from(g)));
    }
    sum + blocks.remainder().iter().map(|&g| u32::from(g)).sum::<u32>()
}

/// Adds `row` to each node's load and its occupants, both saturating at 255.
fn add_to_columns(row: &[u8], load: &mut [u8], occupants: &mut [u8]) {
    let add = |cell: u8, l: &mut u8, o: &mut u8| {
        *l = l.saturating_add(cell);
        *o = o.saturating_add(u8::from(cell > 0));
    };
    let mut rows = row.chunks_exact(LANES);
    let mut loads = load.chunks_exact_mut(LANES);
    let mut counts = occupants.chunks_exact_mut(LANES);
    for ((r, l), o) in (&mut rows).zip(&mut loads).zip(&mut counts) {
        let r: &[u8; LANES] = r.try_into().expect("a full block");
        let l: &mut [u8; LANES] = l.try_into().expect("a full block");
        let o: &mut [u8; LANES] = o.try_into().expect("a full block");
        for i in 0..LANES {
            add(r[i], &mut l[i], &mut o[i]);
        }
    }
    let rest = rows.remainder().iter().zip(loads.into_remainder()).zip(counts.into_remainder());
    for ((&cell, l), o) in rest {
        add(cell, l, o);
    }
}

/// `a` as GPUs per node, in the node order of the matrix.
fn row_of(alloc: &[u32], nodes: usize) -> Vec<u8> {
    let mut row = vec![0u8; nodes];
    for &node in alloc {
        row[node as usize] += 1;
    }
    row
}

impl Allocator for PolluxScheduler {
    fn batch_rule(&self, _spec: &JobSpec, app: &Application) -> Result<BatchRule, String> {
        Ok(FIXED_BATCH_APPLICATIONS
            .iter()
            .find(|(name, _)| *name == app.name)
            .map_or(BatchRule::Goodput, |&(_, batch)| BatchRule::Fixed(batch)))
    }

    fn learns_throughput(&self) -> bool {
        true
    }

    fn allocate(&mut self, now: i64, jobs: &[JobView<'_>], nodes: Nodes) -> Result<Vec<Vec<u32>>, String> {
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        let n = nodes.count;
        let gpus_per_node = u8::try_from(nodes.gpus_per_node).map_err(|_| {
            format!("Pollux's search holds at most 255 GPUs per node; nodes have {}", nodes.gpus_per_node)
        })?;
        // Rows: least attained service first, then earliest submission; ties in arrival order.
        let mut order: Vec<usize> = (0..jobs.len()).collect();
        order.sort_by(|&a, &b| {
            let key = |j: &JobView<'_>| (j.sim.attained_service, j.spec.arrival);
            let (ka, kb) = (key(&jobs[a]), key(&jobs[b]));
            ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
        });
        let fair_replicas = (f64::from(nodes.total()) / jobs.len() as f64).ceil();
        let rows: Vec<Row> = order
            .iter()
            .map(|&i| {
                let job = &jobs[i];
                let agent = job.sim.agent.as_ref().expect("Pollux jobs have agents");
                let goodput = agent.goodput(job.app);
                let baseline = goodput.map(|g| g.optimize(1, fair_replicas as u32).0).filter(|&b| b > 0.0);
                let cap = (2 * agent.max_profiled_replicas())
                    .clamp(1, MAX_REPLICAS)
                    .min(job.app.max_batch / job.app.min_local);
                let fixed = matches!(job.sim.rule, BatchRule::Fixed(_));
                let age = (now as f64 - job.spec.arrival).max(0.0);
                let restarts = f64::from(job.sim.restarts.unwrap_or(0));
                let delay = RESTART_SECONDS as f64;
                Row {
                    goodput,
                    baseline,
                    max_replicas: if fixed { 1 } else { cap },
                    restart_factor: (age - restarts * delay).max(0.0) / (age + delay),
                }
            })
            .collect();
        let ids: Vec<JobId> = order.iter().map(|&i| jobs[i].spec.id).collect();
        let mut base = Vec::with_capacity(jobs.len() * n);
        for &i in &order {
            base.extend(row_of(jobs[i].alloc, n));
        }
        let seeds = match &self.previous {
            None => vec![base.clone()],
            Some((front, previous_ids)) => adapt_front(front, previous_ids, &ids, n),
        };
        let mut problem =
            Allocation::new(rows, n, gpus_per_node, fair_replicas, base, self.avoid_interference, &mut self.memo);
        let front = nsga2::search(&mut problem, seeds, self.settings, &mut self.rng);
        let chosen = front
            .iter()
            .fold(None, |best: Option<&nsga2::Member>, m| match best {
                Some(b) if b.objectives[0] <= m.objectives[0] => best,
                _ => Some(m),
            })
            .expect("the search keeps at least its seed");
        let mut allocs = vec![Vec::new(); jobs.len()];
        for (row, &i) in order.iter().enumerate() {
            for (k, &g) in chosen.genome[row * n..(row + 1) * n].iter().enumerate() {
                allocs[i].extend(std::iter::repeat_n(k as u32, usize::from(g)));
            }
        }
        self.previous = Some((front.into_iter().map(|m| m.genome).collect(), ids));
        Ok(allocs)
    }
}

/// The previous front as seeds of this decision (§5.4), with the original's pairing: the k-th
/// job still active, in the previous order, gives its row to the k-th job that was active before,
/// in the current order (so rows move between jobs whose order changed); new jobs start empty.
fn adapt_front(front: &[Vec<u8>], previous: &[JobId], current: &[JobId], nodes: usize) -> Vec<Vec<u8>> {
    let sources: Vec<usize> = (0..previous.len()).filter(|&i| current.contains(&previous[i])).collect();
    let targets: Vec<usize> = (0..current.len()).filter(|&i| previous.contains(&current[i])).collect();
    front
        .iter()
        .map(|genome| {
            let mut seed = vec![0u8; current.len() * nodes];
            for (&from, &to) in sources.iter().zip(&targets) {
                seed[to * nodes..(to + 1) * nodes].copy_from_slice(&genome[from * nodes..(from + 1) * nodes]);
            }
            seed
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decision over `caps.len()` jobs on `nodes` nodes of 4 GPUs, every job without a model
    /// yet (speedup `r / fair share`), allocated nothing so far.
    fn problem<'a>(memo: &'a mut Vec<Score>, caps: &[u32], nodes: usize, avoid_interference: bool) -> Allocation<'a> {
        let rows = caps
            .iter()
            .map(|&max_replicas| Row { goodput: None, baseline: None, max_replicas, restart_factor: 0.5 })
            .collect();
        Allocation::new(rows, nodes, 4, 2.0, vec![0; caps.len() * nodes], avoid_interference, memo)
    }

    /// §5.6: with avoidance on, a node keeps only the first distributed job (in row order) of
    /// those on it; single-node jobs stay; then each node's GPUs go to earlier rows first.
    #[test]
    fn repair_keeps_one_distributed_job_per_node() {
        let mut memo = Vec::new();
        let mut rng = Rng::new(0);
        // Rows: job 0 on both nodes (2+2), job 1 on both (1+1), job 2 on node 0 only (3).
        let genome = [2, 2, 1, 1, 3, 0];
        let mut avoided = genome;
        problem(&mut memo, &[64, 64, 64], 2, true).repair(&mut avoided, &mut rng);
        assert_eq!(avoided, [2, 2, 0, 0, 2, 0], "job 1 loses both nodes to job 0; job 2 gets what is left");
        let mut shared = genome;
        problem(&mut memo, &[64, 64, 64], 2, false).repair(&mut shared, &mut rng);
        assert_eq!(shared, [2, 2, 1, 1, 1, 0], "without avoidance only the nodes' 4 GPUs bind");
        // Whatever the candidate, no node ends with two distributed jobs.
        for seed in 0..200 {
            let mut rng = Rng::new(seed);
            let mut genome: Vec<u8> = (0..5 * 4).map(|_| rng.below(5) as u8).collect();
            problem(&mut memo, &[64; 5], 4, true).repair(&mut genome, &mut rng);
            let distributed: Vec<bool> =
                genome.chunks(4).map(|row| row.iter().filter(|&&g| g > 0).count() > 1).collect();
            for node in 0..4 {
                let sharing = (0..5).filter(|&j| distributed[j] && genome[j * 4 + node] > 0).count();
                assert!(sharing <= 1, "seed {seed}: node {node} of {genome:?}");
                assert!((0..5).map(|j| u32::from(genome[j * 4 + node])).sum::<u32>() <= 4);
            }
        }
    }

    /// §5.6 step 2: a job over its cap keeps replicas node by node in random order until the cap.
    #[test]
    fn repair_caps_a_job_at_its_max_replicas() {
        let mut memo = Vec::new();
        for seed in 0..20 {
            let mut genome = [2, 3, 0, 1];
            problem(&mut memo, &[1], 4, true).repair(&mut genome, &mut Rng::new(seed));
            assert_eq!(genome.iter().map(|&g| u32::from(g)).sum::<u32>(), 1, "{genome:?}");
        }
        let mut genome = [2, 3, 0, 0, 1, 1, 0, 0];
        problem(&mut memo, &[3, 4], 4, false).repair(&mut genome, &mut Rng::new(1));
        assert_eq!(genome[..4].iter().map(|&g| u32::from(g)).sum::<u32>(), 3);
        assert_eq!(genome[4..], [1, 1, 0, 0], "a job within its cap is untouched");
    }

    /// §5.3 by hand: two jobs without a model (speedup r / 2) on 2 nodes of 4 GPUs; job 0 on
    /// 2 GPUs of node 0 (speedup 1, share 1/4, halved by its restart as its row changed), job 1
    /// on nothing. Fairness = harmonic mean of (share + 0.001); utility = Σ speedups / (4 · nodes
    /// used).
    #[test]
    fn objectives_are_the_originals_by_hand() {
        let mut memo = Vec::new();
        let mut p = problem(&mut memo, &[64, 64], 2, true);
        // Both genomes are feasible: the repair leaves them as they are and scores them.
        let mut genome = [2, 0, 0, 0];
        let [fairness, utility] = p.repair(&mut genome, &mut Rng::new(0));
        assert_eq!(genome, [2, 0, 0, 0]);
        let expected = 2.0 / (1.0 / (0.125 + 0.001) + 1.0 / 0.001);
        assert!((-fairness - expected).abs() < 1e-15, "{fairness} vs {expected}");
        assert_eq!(-utility, 1.0 / 4.0);
        let [fairness, utility] = p.repair(&mut [0; 4], &mut Rng::new(0));
        assert!((fairness + 0.001).abs() < 1e-15 && utility == 0.0, "{fairness} {utility}");
    }

    /// The blocked row walks equal plain ones at every row length, blocks of 16 and the rest.
    #[test]
    fn row_walks_equal_plain_loops() {
        let mut rng = Rng::new(9);
        for len in 0..50 {
            for _ in 0..20 {
                let row: Vec<u8> = (0..len).map(|_| if rng.chance(0.5) { 0 } else { rng.below(256) as u8 }).collect();
                assert_eq!(occupied(&row), row.iter().filter(|&&g| g > 0).count());
                assert_eq!(total(&row), row.iter().map(|&g| u32::from(g)).sum::<u32>());
                let state: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
                let (mut cells, mut free) = (row.clone(), state.clone());
                zip_lanes(&mut cells, &mut free, |cell, free| {
                    *cell = (*cell).min(*free);
                    *free -= *cell;
                });
                let plain: Vec<(u8, u8)> = row.iter().zip(&state).map(|(&c, &f)| (c.min(f), f - c.min(f))).collect();
                assert_eq!(cells.into_iter().zip(free).collect::<Vec<_>>(), plain);
                let (mut load, mut occupants) = (state.clone(), state.clone());
                add_to_columns(&row, &mut load, &mut occupants);
                for k in 0..len {
                    assert_eq!(load[k], state[k].saturating_add(row[k]));
                    assert_eq!(occupants[k], state[k].saturating_add(u8::from(row[k] > 0)));
                }
            }
        }
    }

    /// Mutation as first written, one coin per row and per cell (§5.5 literally).
    fn mutate_with_coins(p: &Allocation<'_>, genome: &mut [u8], rng: &mut Rng) {
        let (n, g) = (p.nodes, p.gpus_per_node);
        for (row, base) in genome.chunks_exact_mut(n).zip(p.base.chunks_exact(n)) {
            if rng.chance(RESET_CHANCE) {
                row.copy_from_slice(base);
            }
        }
        for row in genome.chunks_exact_mut(n) {
            if rng.chance(THIN_ROW_CHANCE) {
                row.iter_mut().for_each(|cell| *cell = if rng.chance(THIN_CELL_CHANCE) { 0 } else { *cell });
            }
        }
        let load: Vec<u8> = (0..n).map(|k| genome.iter().skip(k).step_by(n).sum()).collect();
        let occupants: Vec<usize> =
            (0..n).map(|k| genome.iter().skip(k).step_by(n).filter(|&&c| c > 0).count()).collect();
        for k in (0..n).filter(|&k| load[k] < g) {
            for cell in genome[k..].iter_mut().step_by(n) {
                let p2 = if *cell > 0 { 1.0 / occupants[k] as f64 } else { 0.0 };
                if rng.chance(1.0 / p.rows.len() as f64 + p2 - p2 / p.rows.len() as f64) {
                    *cell += rng.below(usize::from(g - *cell) + 1) as u8;
                }
            }
        }
    }

    /// The counted draws of `mutate` sample the children one coin per row and cell would: a
    /// two-sample chi-square over the children of one genome (3 jobs on 3 nodes of 4 GPUs, a
    /// non-empty current allocation, one full node).
    #[test]
    fn mutation_samples_the_coins_distribution() {
        let mut memo = Vec::new();
        let rows =
            (0..3).map(|_| Row { goodput: None, baseline: None, max_replicas: 64, restart_factor: 0.5 }).collect();
        let base = vec![1, 0, 0, 0, 2, 0, 0, 0, 3];
        let mut p = Allocation::new(rows, 3, 4, 2.0, base, true, &mut memo);
        let parent = [2, 1, 0, 2, 0, 0, 0, 3, 1];
        let trials = 300_000;
        let mut counts: FxHashMap<Vec<u8>, [u32; 2]> = FxHashMap::default();
        let (mut counted, mut coins) = (Rng::new(1), Rng::new(2));
        for _ in 0..trials {
            let mut child = parent;
            p.mutate(&mut child, &mut counted);
            counts.entry(child.to_vec()).or_default()[0] += 1;
            let mut child = parent;
            mutate_with_coins(&p, &mut child, &mut coins);
            counts.entry(child.to_vec()).or_default()[1] += 1;
        }
        // Bins of at least 20 children; the rare ones pooled.
        let (mut statistic, mut bins, mut pooled) = (0.0, 0, [0u32; 2]);
        for [a, b] in counts.into_values() {
            if a + b < 20 {
                pooled = [pooled[0] + a, pooled[1] + b];
                continue;
            }
            statistic += f64::from(a.abs_diff(b)).powi(2) / f64::from(a + b);
            bins += 1;
        }
        if pooled[0] + pooled[1] > 0 {
            statistic += f64::from(pooled[0].abs_diff(pooled[1])).powi(2) / f64::from(pooled[0] + pooled[1]);
            bins += 1;
        }
        let freedom = f64::from(bins - 1);
        // Above df + 5·sqrt(2·df) with a chance far below 1e-4.
        assert!(bins > 50 && statistic < freedom + 5.0 * (2.0 * freedom).sqrt(), "{statistic} over {bins} bins");
    }

    /// §5.4's example, checked against the original's `_adapt_prev_states`: previous order A,
    /// B, C; current order D (new), B, A (C finished).
    #[test]
    fn seeds_pair_rows_by_position_as_the_original() {
        let front = vec![vec![1, 0, 0, 2, 3, 0]];
        let seeds = adapt_front(&front, &[10, 11, 12], &[13, 11, 10], 2);
        assert_eq!(seeds, [vec![0, 0, 1, 0, 0, 2]]);
    }
}
