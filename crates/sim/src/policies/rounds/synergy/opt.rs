//! Synergy-OPT's first problem: which CPUs and memory per GPU each admitted job gets in a round.
//!
//! Rule (`docs/synergy-semantics.md` §6.2, §6.6; Synergy `opt_algo/synergy_opt.py`,
//! `Solver.SolveFirstLP`, at 1bb2bed). Every job picks one cell `(c, m)` of its profile's
//! throughput matrix ([`crate::profiles::synergy::tput`]; row `c` = CPUs per GPU, column `m` =
//! GB per GPU) so that
//!
//! * the sum over jobs of the chosen matrix entries is as large as possible (each job counts its
//!   per-GPU throughput once, whatever its GPU count),
//! * the jobs' CPUs (`gpus × cpus per GPU`) and memory (`gpus × GB per GPU`) summed over the
//!   whole cluster stay within its totals (no per-server limit: OPT never places), and
//! * no job falls below its own entry at the GPU-proportional cell (the fairness floor).
//!
//! The original hands this 0/1 program to GLPK. Its optimum value is unique but the assignment
//! usually is not, and which optimum GLPK returns cannot be predicted when the totals bind.
//!
//! **Tie rule (blox's).** Among the assignments of optimal total throughput, the one whose cells
//! are greatest lexicographically in the jobs' given order, a cell comparing by CPU row, then
//! memory column (the doc's rank `5c + m`, higher first): the first job gets the most CPUs, then
//! the most memory, that any optimum allows it; the second job likewise given the first's, and
//! so on. The primary value is compared first and exactly, so the rule never trades throughput
//! for rank (an `ε·rank` term added to the objective in floating point could, if `ε` were too
//! large for the instance, and its sums depend on summation order). It agrees with GLPK's choice
//! observed while the totals do not bind: then every job can have at once its highest-ranked
//! cell of greatest throughput, which is what it gets here (24 CPUs and 250 GB per GPU for a
//! flat matrix such as the language models'), and what the doc's `ε·Σ rank` objective gives too.
//! When the totals bind, the rule gives earlier jobs (the policy's order) priority for the spare
//! CPUs and memory; the doc's summed-rank rule can pick differently there, and GLPK unpredictably.
//!
//! **Exactness.** Arithmetic is integer: throughputs in millionths (Synergy's have two
//! decimals), CPUs in units (every row is a whole number), memory in hundredths of a GB (every
//! column is, 20.83 included), totals rounded down to those units. Solution: a job's cells are
//! cut to those no other cell of the job dominates (at least the throughput with no more CPUs
//! and no more memory); a dynamic programme over the jobs keeps, per budget of CPUs above the
//! jobs' minimal CPUs (in units of their common divisor), the Pareto front of (memory above the
//! minimal, throughput); jobs left with one cell are constants. That gives the optimum; the tie
//! rule then fixes the jobs in order, each at its highest-ranked cell (dominated or not) for
//! which the front of the jobs after it, read at the resources left, still reaches the optimum.
//! The suffixes' fronts are kept while small, else rebuilt block by block from checkpoints.
//! When every job's best cell fits, that is the answer at once. Work grows with jobs × spare
//! CPUs × front length; Synergy's matrices keep the fronts short (their useful memory steps are
//! 62.5 GB), about 1-10 ms for 128 jobs on the default cluster; arbitrary matrices can be slower.

use crate::profiles::synergy::{TPUT_CPUS_PER_GPU, TPUT_MEM_GB_PER_GPU};

/// Rows (CPUs per GPU) of a throughput matrix.
pub const CPU_ROWS: usize = 9;
/// Columns (GB per GPU) of a throughput matrix.
pub const MEM_COLS: usize = 5;

/// Throughputs are compared in millionths.
const TPUT_SCALE: f64 = 1e6;
/// Memory is counted in hundredths of a GB.
const MEM_SCALE: f64 = 100.0;

/// One admitted job: its GPU count and its model's throughput matrix.
#[derive(Debug, Clone, Copy)]
pub struct OptJob<'a> {
    pub gpus: u32,
    pub tput: &'a [[f64; MEM_COLS]; CPU_ROWS],
}

/// A cell of a throughput matrix: CPUs per GPU `TPUT_CPUS_PER_GPU[cpu_row]`, memory per GPU
/// `TPUT_MEM_GB_PER_GPU[mem_col]`. Cells order by CPU row, then memory column (the tie rule's
/// rank).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    pub cpu_row: usize,
    pub mem_col: usize,
}

impl Cell {
    /// The cell of exactly `cpus_per_gpu` CPUs and `mem_gb_per_gpu` GB per GPU, as the original
    /// finds the proportional share (exact equality: e.g. 3 CPUs and 62.5 GB on the default
    /// cluster; none for 8 GB, the capacities LAS, FTF, DRF and Tetris pass, §6.5).
    pub fn fair(cpus_per_gpu: f64, mem_gb_per_gpu: f64) -> Option<Cell> {
        let cpu_row = TPUT_CPUS_PER_GPU.iter().position(|&c| c == cpus_per_gpu)?;
        let mem_col = TPUT_MEM_GB_PER_GPU.iter().position(|&m| m == mem_gb_per_gpu)?;
        Some(Cell { cpu_row, mem_col })
    }

    /// CPUs per GPU at this cell.
    pub fn cpus_per_gpu(self) -> f64 {
        TPUT_CPUS_PER_GPU[self.cpu_row]
    }

    /// Memory (GB) per GPU at this cell.
    pub fn mem_gb_per_gpu(self) -> f64 {
        TPUT_MEM_GB_PER_GPU[self.mem_col]
    }

    /// The doc's rank `5c + m` (0-44).
    pub fn rank(self) -> usize {
        MEM_COLS * self.cpu_row + self.mem_col
    }
}

/// Synergy-OPT's configuration per job: one cell per job, in the jobs' order, of greatest total
/// throughput within `total_cpus` and `total_mem_gb` (cluster-wide) with every job at or above
/// its entry at `fair_cell`; ties broken by the module's rule.
///
/// Err when no assignment satisfies every job's fairness floor within the totals, or on
/// malformed input (a negative or non-finite total or throughput, `fair_cell` outside the matrix).
pub fn solve(jobs: &[OptJob], total_cpus: f64, total_mem_gb: f64, fair_cell: Cell) -> Result<Vec<Cell>, String> {
    solve_keeping(jobs, total_cpus, total_mem_gb, fair_cell, KEEP_ALL_ENTRIES)
}

/// [`solve`], keeping every suffix's front only up to `keep_all_entries` entries in all.
fn solve_keeping(
    jobs: &[OptJob],
    total_cpus: f64,
    total_mem_gb: f64,
    fair_cell: Cell,
    keep_all_entries: usize,
) -> Result<Vec<Cell>, String> {
    if !(total_cpus.is_finite() && total_cpus >= 0.0 && total_mem_gb.is_finite() && total_mem_gb >= 0.0) {
        return Err(format!("Synergy-OPT: invalid totals ({total_cpus} CPUs, {total_mem_gb} GB)"));
    }
    if fair_cell.cpu_row >= CPU_ROWS || fair_cell.mem_col >= MEM_COLS {
        return Err(format!("Synergy-OPT: the fair cell {fair_cell:?} is outside the throughput matrix"));
    }
    // Floors with a margin far below one unit, so that e.g. 62.49 GB is 6249 hundredths.
    // (Capped far above any cluster, so that no sum overflows.)
    let cpu_cap = ((total_cpus + 1e-9).floor() as i64).min(1 << 53);
    let mem_cap = ((total_mem_gb * MEM_SCALE + 1e-6).floor() as i64).min(1 << 53);
    let prepared = jobs.iter().map(|job| Prepared::new(job, fair_cell)).collect::<Result<Vec<_>, _>>()?;

    // Every job's own best cell, if they fit together.
    let best: Vec<&Choice> = prepared.iter().map(|p| p.best()).collect();
    if best.iter().map(|c| c.w).sum::<i64>() <= cpu_cap && best.iter().map(|c| c.v).sum::<i64>() <= mem_cap {
        return Ok(best.iter().map(|c| c.cell).collect());
    }

    let n = prepared.len();
    // Per suffix j.. : minimal CPUs and memory, and the throughput of single-option jobs.
    let mut base_w = vec![0i64; n + 1];
    let mut base_v = vec![0i64; n + 1];
    let mut constant = vec![0i64; n + 1];
    for j in (0..n).rev() {
        base_w[j] = base_w[j + 1] + prepared[j].base_w;
        base_v[j] = base_v[j + 1] + prepared[j].base_v;
        constant[j] = constant[j + 1] + if prepared[j].options.len() == 1 { prepared[j].options[0].2 } else { 0 };
    }
    let cpu_spare = cpu_cap - base_w[0];
    let mem_spare = mem_cap - base_v[0];
    let infeasible = || {
        Err(format!(
            "Synergy-OPT: no configuration gives every job its fair-share throughput within {total_cpus} CPUs and \
             {total_mem_gb} GB"
        ))
    };
    if cpu_spare < 0 || mem_spare < 0 {
        return infeasible();
    }

    let multi: Vec<usize> = (0..n).filter(|&j| prepared[j].options.len() > 1).collect();
    let unit = multi.iter().flat_map(|&j| prepared[j].options.iter().map(|o| o.0)).fold(0, gcd).max(1);
    let mut fronts = Fronts::new(&prepared, &multi, unit, cpu_spare / unit, mem_spare, keep_all_entries);

    let Some(best_suffix) = fronts.get(0).query(cpu_spare / unit, mem_spare) else {
        return infeasible();
    };
    let optimum = constant[0] + best_suffix;

    // The tie rule: fix the jobs in order, each at its highest-ranked cell that keeps the optimum.
    let mut cells = Vec::with_capacity(n);
    let (mut cpu_left, mut mem_left, mut value) = (cpu_cap, mem_cap, 0i64);
    for (k, job) in prepared.iter().enumerate() {
        let rest = multi.partition_point(|&j| j <= k);
        let front = fronts.get(rest);
        let chosen = job.cells.iter().find(|x| {
            let cpu = cpu_left - x.w - base_w[k + 1];
            let mem = mem_left - x.v - base_v[k + 1];
            cpu >= 0 && front.query(cpu / unit, mem).is_some_and(|v| value + x.p + constant[k + 1] + v >= optimum)
        });
        let Some(x) = chosen else {
            return Err("Synergy-OPT: internal error, the optimum was lost while breaking ties".into());
        };
        cells.push(x.cell);
        cpu_left -= x.w;
        mem_left -= x.v;
        value += x.p;
    }
    debug_assert_eq!(value, optimum);
    Ok(cells)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// A cell with the CPUs (units), memory (hundredths of a GB) and throughput (millionths) it
/// costs and gives one job.
#[derive(Debug, Clone, Copy)]
struct Choice {
    cell: Cell,
    w: i64,
    v: i64,
    p: i64,
}

/// One job's cells in integer units.
struct Prepared {
    /// Every cell at or above the fairness floor, highest rank first.
    cells: Vec<Choice>,
    /// The cells no other cell dominates, as (extra CPUs, extra memory, throughput) over
    /// `base_w` and `base_v`.
    options: Vec<(i64, i64, i64)>,
    /// The fewest CPUs and the least memory of any such cell.
    base_w: i64,
    base_v: i64,
}

impl Prepared {
    fn new(job: &OptJob, fair: Cell) -> Result<Self, String> {
        if job.tput.iter().flatten().any(|t| !t.is_finite() || *t < 0.0) {
            return Err("Synergy-OPT: a throughput matrix has a negative or non-finite entry".into());
        }
        let g = i64::from(job.gpus);
        let p = |c: usize, m: usize| (job.tput[c][m] * TPUT_SCALE).round() as i64;
        let floor = p(fair.cpu_row, fair.mem_col);
        let mut cells = Vec::with_capacity(CPU_ROWS * MEM_COLS);
        for c in (0..CPU_ROWS).rev() {
            for m in (0..MEM_COLS).rev() {
                if p(c, m) >= floor {
                    cells.push(Choice {
                        cell: Cell { cpu_row: c, mem_col: m },
                        w: g * TPUT_CPUS_PER_GPU[c] as i64,
                        v: g * (TPUT_MEM_GB_PER_GPU[m] * MEM_SCALE).round() as i64,
                        p: p(c, m),
                    });
                }
            }
        }
        // Non-dominated cells: by CPUs, then memory, ascending, best throughput first, each kept
        // unless an earlier kept one has no more memory and at least its throughput.
        let mut sorted = cells.clone();
        sorted.sort_by(|a, b| a.w.cmp(&b.w).then(a.v.cmp(&b.v)).then(b.p.cmp(&a.p)));
        let mut kept: Vec<Choice> = Vec::new();
        for x in sorted {
            if !kept.iter().any(|y| y.v <= x.v && y.p >= x.p) {
                kept.push(x);
            }
        }
        let base_w = kept.iter().map(|x| x.w).min().expect("the fair cell is always allowed");
        let base_v = kept.iter().map(|x| x.v).min().expect("the fair cell is always allowed");
        let options = kept.iter().map(|x| (x.w - base_w, x.v - base_v, x.p)).collect();
        Ok(Self { cells, options, base_w, base_v })
    }

    /// The highest-ranked cell of greatest throughput.
    fn best(&self) -> &Choice {
        let top = self.cells.iter().map(|x| x.p).max().expect("the fair cell is always allowed");
        self.cells.iter().find(|x| x.p == top).expect("present")
    }
}

/// For some jobs, per budget of extra CPUs (index, in units of the common divisor; the last row
/// serves every larger budget), the Pareto front of (extra memory, throughput): memory
/// ascending, throughput strictly ascending.
#[derive(Debug, Clone)]
struct Front {
    rows: Vec<Vec<(i64, i64)>>,
}

impl Front {
    fn empty() -> Self {
        Self { rows: vec![vec![(0, 0)]] }
    }

    /// The front with one more job of `options` (extra CPUs already in units), budgets capped
    /// at `cpu_spare` units and `mem_spare`.
    fn extend(&self, options: &[(i64, i64, i64)], cpu_spare: i64, mem_spare: i64) -> Self {
        let widest = options.iter().map(|o| o.0).max().unwrap_or(0);
        let last = self.rows.len() - 1;
        let len = (last as i64 + widest).min(cpu_spare) as usize + 1;
        let mut rows = Vec::with_capacity(len);
        let mut scratch: Vec<(i64, i64)> = Vec::new();
        for budget in 0..len {
            // Merge the options' shifted fronts one at a time, keeping the Pareto front.
            let mut row: Vec<(i64, i64)> = Vec::new();
            for &(w, v, p) in options {
                let Some(left) = (budget as i64).checked_sub(w).filter(|l| *l >= 0) else { continue };
                let shifted = &self.rows[(left as usize).min(last)];
                let end = shifted.partition_point(|&(mem, _)| mem + v <= mem_spare);
                scratch.clear();
                let (mut a, mut b) = (0, 0);
                while a < row.len() || b < end {
                    let take_row = b == end
                        || (a < row.len() && {
                            let (ma, va) = row[a];
                            let mb = shifted[b].0 + v;
                            ma < mb || (ma == mb && va >= shifted[b].1 + p)
                        });
                    let next = if take_row {
                        a += 1;
                        row[a - 1]
                    } else {
                        b += 1;
                        (shifted[b - 1].0 + v, shifted[b - 1].1 + p)
                    };
                    if scratch.last().is_none_or(|&(_, top)| next.1 > top) {
                        scratch.push(next);
                    }
                }
                std::mem::swap(&mut row, &mut scratch);
            }
            rows.push(row);
        }
        Self { rows }
    }

    /// The greatest throughput within `cpu` extra CPU units and `mem` extra memory.
    fn query(&self, cpu: i64, mem: i64) -> Option<i64> {
        if cpu < 0 || mem < 0 {
            return None;
        }
        let row = &self.rows[(cpu as usize).min(self.rows.len() - 1)];
        let fit = row.partition_point(|&(m, _)| m <= mem);
        (fit > 0).then(|| row[fit - 1].1)
    }
}

/// Fronts kept in all (above this many entries, only the checkpoints).
const KEEP_ALL_ENTRIES: usize = 1 << 20;

/// The fronts of the suffixes `multi[i..]` of the multi-option jobs, `i = 0..=multi.len()`. All
/// are kept while they are small; otherwise every `block`-th and the last, the others rebuilt a
/// block at a time when asked for (in increasing `i`, as the tie rule asks, each block once).
struct Fronts {
    options: Vec<Vec<(i64, i64, i64)>>,
    cpu_spare: i64,
    mem_spare: i64,
    block: usize,
    stored: Vec<Option<Front>>,
    /// The block in hand: its first index and the fronts from there to its end.
    cached: Option<(usize, Vec<Front>)>,
}

impl Fronts {
    fn new(
        prepared: &[Prepared],
        multi: &[usize],
        unit: i64,
        cpu_spare: i64,
        mem_spare: i64,
        keep_all_entries: usize,
    ) -> Self {
        let options: Vec<Vec<(i64, i64, i64)>> =
            multi.iter().map(|&j| prepared[j].options.iter().map(|&(w, v, p)| (w / unit, v, p)).collect()).collect();
        let r = options.len();
        let block = (r as f64).sqrt().ceil().max(1.0) as usize;
        let mut stored: Vec<Option<Front>> = vec![None; r + 1];
        let (mut entries, mut keep_all) = (0, true);
        let mut keep = |i: usize, front: Front, stored: &mut Vec<Option<Front>>| {
            entries += front.rows.iter().map(Vec::len).sum::<usize>();
            if keep_all && entries > keep_all_entries {
                keep_all = false;
                for (j, s) in stored.iter_mut().enumerate() {
                    if !j.is_multiple_of(block) && j != r {
                        *s = None;
                    }
                }
            }
            if keep_all || i.is_multiple_of(block) || i == r {
                stored[i] = Some(front);
            }
        };
        let mut current = Front::empty();
        for i in (0..r).rev() {
            let next = current.extend(&options[i], cpu_spare, mem_spare);
            keep(i + 1, std::mem::replace(&mut current, next), &mut stored);
        }
        keep(0, current, &mut stored);
        Self { options, cpu_spare, mem_spare, block, stored, cached: None }
    }

    /// The front of suffix `i`.
    fn get(&mut self, i: usize) -> &Front {
        if self.stored[i].is_some() {
            return self.stored[i].as_ref().expect("stored");
        }
        // Not kept: rebuild start+1 .. end from the front at `end` (both ends are kept).
        let start = i - i % self.block;
        if self.cached.as_ref().is_none_or(|(s, _)| *s != start) {
            let end = (start + self.block).min(self.options.len());
            let mut front = self.stored[end].clone().expect("a kept front");
            let mut built = vec![Front::empty(); end - start];
            for j in (start + 1..end).rev() {
                front = front.extend(&self.options[j], self.cpu_spare, self.mem_spare);
                built[j - start] = front.clone();
            }
            self.cached = Some((start, built));
        }
        let (start, built) = self.cached.as_ref().expect("just built");
        &built[i - start]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::synergy::{MODELS, tput};
    use std::collections::HashMap;
    use std::time::Instant;

    /// The default cluster's proportional share: 3 CPUs, 62.5 GB per GPU.
    const FAIR: Cell = Cell { cpu_row: 2, mem_col: 1 };

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn cents(x: f64) -> i64 {
        (x * 100.0).round() as i64
    }

    /// CPUs, memory (hundredths of a GB) and throughput (hundredths) of `cell` for `job`.
    fn costs(job: &OptJob, cell: Cell) -> (i64, i64, i64) {
        let g = i64::from(job.gpus);
        (g * cell.cpus_per_gpu() as i64, g * cents(cell.mem_gb_per_gpu()), cents(job.tput[cell.cpu_row][cell.mem_col]))
    }

    fn caps(total_cpus: f64, total_mem_gb: f64) -> (i64, i64) {
        (total_cpus.floor() as i64, (total_mem_gb * 100.0 + 1e-6).floor() as i64)
    }

    fn allowed(job: &OptJob, fair: Cell) -> Vec<Cell> {
        let floor = job.tput[fair.cpu_row][fair.mem_col];
        let mut cells = Vec::new();
        for cpu_row in (0..CPU_ROWS).rev() {
            for mem_col in (0..MEM_COLS).rev() {
                if job.tput[cpu_row][mem_col] >= floor {
                    cells.push(Cell { cpu_row, mem_col });
                }
            }
        }
        cells
    }

    /// Every assignment, visited greatest rank vector first; the first of the greatest value wins.
    fn brute_force(jobs: &[OptJob], total_cpus: f64, total_mem_gb: f64, fair: Cell) -> Option<Vec<Cell>> {
        let (cpu_cap, mem_cap) = caps(total_cpus, total_mem_gb);
        let lists: Vec<Vec<Cell>> = jobs.iter().map(|j| allowed(j, fair)).collect();
        let mut idx = vec![0usize; jobs.len()];
        let mut best: Option<(i64, Vec<Cell>)> = None;
        loop {
            let cells: Vec<Cell> = idx.iter().zip(&lists).map(|(&i, l)| l[i]).collect();
            let (mut w, mut v, mut p) = (0, 0, 0);
            for (job, &cell) in jobs.iter().zip(&cells) {
                let c = costs(job, cell);
                (w, v, p) = (w + c.0, v + c.1, p + c.2);
            }
            if w <= cpu_cap && v <= mem_cap && best.as_ref().is_none_or(|(b, _)| p > *b) {
                best = Some((p, cells));
            }
            // Odometer, last job fastest.
            let mut k = jobs.len();
            loop {
                if k == 0 {
                    return best.map(|(_, c)| c);
                }
                k -= 1;
                idx[k] += 1;
                if idx[k] < lists[k].len() {
                    break;
                }
                idx[k] = 0;
            }
        }
    }

    /// An independent exact solver for medium instances: per suffix of jobs, every reachable
    /// (CPUs, memory) with its best throughput; then the jobs fixed in order.
    fn reference(jobs: &[OptJob], total_cpus: f64, total_mem_gb: f64, fair: Cell) -> Option<Vec<Cell>> {
        let (cpu_cap, mem_cap) = caps(total_cpus, total_mem_gb);
        let n = jobs.len();
        let mut suffix: Vec<HashMap<(i64, i64), i64>> = vec![HashMap::new(); n + 1];
        suffix[n].insert((0, 0), 0);
        for j in (0..n).rev() {
            let mut next = HashMap::new();
            for (&(w, v), &p) in &suffix[j + 1] {
                for cell in allowed(&jobs[j], fair) {
                    let c = costs(&jobs[j], cell);
                    let key = (w + c.0, v + c.1);
                    if key.0 <= cpu_cap && key.1 <= mem_cap {
                        let e = next.entry(key).or_insert(i64::MIN);
                        *e = (*e).max(p + c.2);
                    }
                }
            }
            suffix[j] = next;
        }
        let within = |map: &HashMap<(i64, i64), i64>, w: i64, v: i64| {
            map.iter().filter(|((a, b), _)| *a <= w && *b <= v).map(|(_, p)| *p).max()
        };
        let optimum = within(&suffix[0], cpu_cap, mem_cap)?;
        let (mut w, mut v, mut p) = (cpu_cap, mem_cap, 0);
        let mut cells = Vec::new();
        for (k, job) in jobs.iter().enumerate() {
            let cell = allowed(job, fair).into_iter().find(|&cell| {
                let c = costs(job, cell);
                within(&suffix[k + 1], w - c.0, v - c.1).is_some_and(|rest| p + c.2 + rest == optimum)
            })?;
            let c = costs(job, cell);
            (w, v, p) = (w - c.0, v - c.1, p + c.2);
            cells.push(cell);
        }
        Some(cells)
    }

    fn check_feasible(jobs: &[OptJob], cells: &[Cell], total_cpus: f64, total_mem_gb: f64, fair: Cell) {
        assert_eq!(jobs.len(), cells.len());
        let (cpu_cap, mem_cap) = caps(total_cpus, total_mem_gb);
        let (mut w, mut v) = (0, 0);
        for (job, &cell) in jobs.iter().zip(cells) {
            let c = costs(job, cell);
            (w, v) = (w + c.0, v + c.1);
            assert!(job.tput[cell.cpu_row][cell.mem_col] >= job.tput[fair.cpu_row][fair.mem_col]);
        }
        assert!(w <= cpu_cap && v <= mem_cap, "{w} CPUs of {cpu_cap}, {v} cGB of {mem_cap}");
    }

    fn random_jobs<'a>(rng: &mut Rng, n: usize, matrices: &'a [[[f64; 5]; 9]]) -> Vec<OptJob<'a>> {
        (0..n)
            .map(|_| OptJob {
                gpus: [1, 2, 4, 8][rng.below(4) as usize],
                tput: &matrices[rng.below(matrices.len() as u64) as usize],
            })
            .collect()
    }

    /// Totals between the fair share's and ample, often binding; memory with two decimals.
    fn random_totals(rng: &mut Rng, jobs: &[OptJob]) -> (f64, f64) {
        let g: u64 = jobs.iter().map(|j| u64::from(j.gpus)).sum();
        let cpus = g + rng.below(g * 12 + 1);
        let mem_cents = g * 2000 + rng.below(g * 20_000 + 1);
        (cpus as f64, mem_cents as f64 / 100.0)
    }

    fn zoo() -> Vec<[[f64; 5]; 9]> {
        (0..MODELS.len()).map(|c| *tput(c)).collect()
    }

    /// Matrices of a few two-decimal values, many ties.
    fn random_matrices(rng: &mut Rng, count: usize) -> Vec<[[f64; 5]; 9]> {
        let values = [0.5, 1.0, 1.25, 1.5, 2.0, 2.94];
        (0..count)
            .map(|_| {
                let mut t = [[0.0; 5]; 9];
                for row in &mut t {
                    for x in row.iter_mut() {
                        *x = values[rng.below(values.len() as u64) as usize];
                    }
                }
                t
            })
            .collect()
    }

    fn compare(jobs: &[OptJob], cpus: f64, mem: f64, fair: Cell, expected: Option<Vec<Cell>>) {
        let got = solve(jobs, cpus, mem, fair);
        // The same with only the checkpoint fronts kept.
        assert_eq!(solve_keeping(jobs, cpus, mem, fair, 0), got);
        match expected {
            Some(cells) => {
                let got = got.unwrap_or_else(|e| panic!("{e}: {cpus} CPUs, {mem} GB"));
                check_feasible(jobs, &got, cpus, mem, fair);
                assert_eq!(
                    got,
                    cells,
                    "{cpus} CPUs, {mem} GB, gpus {:?}",
                    jobs.iter().map(|j| j.gpus).collect::<Vec<_>>()
                );
            }
            None => assert!(got.is_err(), "expected infeasible: {cpus} CPUs, {mem} GB"),
        }
    }

    #[test]
    fn matches_brute_force_on_small_instances() {
        let mut rng = Rng(7);
        let zoo = zoo();
        let random = random_matrices(&mut rng, 6);
        let fairs = [FAIR, FAIR, FAIR, Cell { cpu_row: 3, mem_col: 1 }, Cell { cpu_row: 5, mem_col: 2 }];
        let (mut binding, mut infeasible) = (0, 0);
        for round in 0..600 {
            let matrices: &[[[f64; 5]; 9]] = if round % 3 == 2 { &random } else { &zoo };
            let n = 2 + rng.below(3) as usize;
            let jobs = random_jobs(&mut rng, n, matrices);
            let (cpus, mem) = random_totals(&mut rng, &jobs);
            let fair = fairs[rng.below(fairs.len() as u64) as usize];
            let size: usize = jobs.iter().map(|j| allowed(j, fair).len()).product();
            if size > 250_000 {
                continue;
            }
            let expected = brute_force(&jobs, cpus, mem, fair);
            match &expected {
                None => infeasible += 1,
                Some(cells) => {
                    let own: Vec<Cell> = jobs.iter().map(|j| best_alone(j, fair)).collect();
                    binding += usize::from(*cells != own);
                }
            }
            compare(&jobs, cpus, mem, fair, expected);
        }
        assert!(binding > 100 && infeasible > 10, "binding {binding}, infeasible {infeasible}");
    }

    fn best_alone(job: &OptJob, fair: Cell) -> Cell {
        let cells = allowed(job, fair);
        let top = cells.iter().map(|c| cents(job.tput[c.cpu_row][c.mem_col])).max().unwrap();
        *cells.iter().find(|c| cents(job.tput[c.cpu_row][c.mem_col]) == top).unwrap()
    }

    #[test]
    fn matches_the_reference_on_medium_instances() {
        let mut rng = Rng(11);
        let zoo = zoo();
        let random = random_matrices(&mut rng, 4);
        let mut binding = 0;
        for round in 0..50 {
            let matrices: &[[[f64; 5]; 9]] = if round % 4 == 3 { &random } else { &zoo };
            let n = 5 + rng.below(3) as usize;
            let jobs = random_jobs(&mut rng, n, matrices);
            let (cpus, mem) = random_totals(&mut rng, &jobs);
            let expected = reference(&jobs, cpus, mem, FAIR);
            let own: Vec<Cell> = jobs.iter().map(|j| best_alone(j, FAIR)).collect();
            binding += usize::from(expected.as_ref().is_some_and(|cells| *cells != own));
            compare(&jobs, cpus, mem, FAIR, expected);
        }
        assert!(binding > 25, "binding {binding}");
    }

    #[test]
    fn non_binding_gives_every_job_its_highest_optimal_cell() {
        let top = Cell { cpu_row: 8, mem_col: 4 };
        // A 4-GPU language job: 96 CPUs and 1,000 GB, as GLPK chose (§6.6).
        let lang = OptJob { gpus: 4, tput: tput(5) };
        assert_eq!(solve(&[lang], 384.0, 8000.0, FAIR), Ok(vec![top]));
        // Every model's greatest throughput includes 24 CPUs, 250 GB.
        let jobs: Vec<OptJob> = (0..10).map(|c| OptJob { gpus: [1, 2, 4, 8][c % 4], tput: tput(c) }).collect();
        let g: u32 = jobs.iter().map(|j| j.gpus).sum();
        let (cpus, mem) = (24.0 * f64::from(g), 250.0 * f64::from(g));
        assert_eq!(solve(&jobs, cpus, mem, FAIR), Ok(vec![top; 10]));
        // Throughput does not bind but the spare resources do: the first job in order is served
        // first, the second gets what is left (1 CPU, 20.83 GB per GPU).
        let two = [OptJob { gpus: 1, tput: tput(6) }, OptJob { gpus: 1, tput: tput(7) }];
        assert_eq!(solve(&two, 25.0, 270.83, FAIR), Ok(vec![top, Cell { cpu_row: 0, mem_col: 0 }]));
        // Memory is counted in hundredths of a GB: three GPUs at 20.83 GB fit in 62.49 GB.
        let three = [OptJob { gpus: 3, tput: tput(5) }];
        assert_eq!(solve(&three, 3.0, 62.49, FAIR), Ok(vec![Cell { cpu_row: 0, mem_col: 0 }]));
        assert!(solve(&three, 3.0, 62.48, FAIR).is_err());
    }

    #[test]
    fn binding_example() {
        // Two 1-GPU res18 jobs and an alexnet job on 24 CPUs, 500 GB: alexnet's 2.94 at 12 CPUs
        // costs 12 CPUs; res18's 2.4 at 9. Best: alexnet 12 (2.94) + res18 9 (2.4) + res18 3
        // (1.0) = 6.34 vs alexnet 6 (1.75) + 9 + 9 = 6.55 -> the latter.
        let jobs =
            [OptJob { gpus: 1, tput: tput(1) }, OptJob { gpus: 1, tput: tput(0) }, OptJob { gpus: 1, tput: tput(1) }];
        let cells = solve(&jobs, 24.0, 500.0, FAIR).unwrap();
        let cpus: Vec<f64> = cells.iter().map(|c| c.cpus_per_gpu()).collect();
        assert_eq!(cpus, [9.0, 6.0, 9.0]);
        // Memory: res18 and alexnet gain nothing from more than 62.5 GB (alexnet only at 12
        // CPUs): the first job takes the most memory left over.
        assert_eq!(cells.iter().map(|c| c.mem_gb_per_gpu()).collect::<Vec<_>>(), [250.0, 187.5, 62.5]);
    }

    #[test]
    fn infeasible_input_is_an_error() {
        let res18 = OptJob { gpus: 4, tput: tput(1) };
        assert!(solve(&[res18, res18], 23.0, 8000.0, FAIR).is_err());
        assert!(solve(&[res18, res18], 24.0, 499.0, FAIR).is_err());
        assert_eq!(solve(&[res18, res18], 24.0, 500.0, FAIR), Ok(vec![FAIR, FAIR]));
        assert!(solve(&[res18], 384.0, 8000.0, Cell { cpu_row: 9, mem_col: 0 }).is_err());
        assert!(solve(&[res18], f64::NAN, 8000.0, FAIR).is_err());
        // The capacities LAS, FTF, DRF and Tetris pass: no fair cell (the original's error).
        assert_eq!(Cell::fair(8.0, 8.0), None);
        assert_eq!(Cell::fair(384.0 / 128.0, 8000.0 / 128.0), Some(FAIR));
        assert_eq!(Cell::fair(4.0, 62.5), Some(Cell { cpu_row: 3, mem_col: 1 }));
        assert_eq!(solve(&[], 0.0, 0.0, FAIR), Ok(vec![]));
    }

    fn timed(label: &str, jobs: &[OptJob], cpus: f64, mem: f64) -> Vec<Cell> {
        let start = Instant::now();
        let cells = solve(jobs, cpus, mem, FAIR).unwrap();
        let took = start.elapsed();
        assert_eq!(solve_keeping(jobs, cpus, mem, FAIR, 0).unwrap(), cells);
        let gpus: u32 = jobs.iter().map(|j| j.gpus).sum();
        let value: f64 = jobs.iter().zip(&cells).map(|(j, c)| j.tput[c.cpu_row][c.mem_col]).sum();
        eprintln!(
            "{label}: {} jobs, {gpus} GPUs, {cpus} CPUs, {mem} GB: throughput {value:.2} in {took:?}",
            jobs.len()
        );
        check_feasible(jobs, &cells, cpus, mem, FAIR);
        cells
    }

    #[test]
    fn large_instances() {
        let mut rng = Rng(3);
        // 128 one-GPU jobs of mixed models fill the default cluster (admission is by GPU count).
        for mix in 0..3 {
            let jobs: Vec<OptJob> = (0..128)
                .map(|_| {
                    let class = match mix {
                        0 => rng.below(10) as usize,
                        1 => [0, 1, 2, 3, 4, 8][rng.below(6) as usize],
                        _ => [0, 1, 2, 3, 4, 8, 5, 5, 6, 7][rng.below(10) as usize],
                    };
                    OptJob { gpus: 1, tput: tput(class) }
                })
                .collect();
            timed(&format!("default cluster, mix {mix}"), &jobs, 384.0, 8000.0);
            // Half the cluster's GPUs busy: more to share.
            timed(&format!("default cluster, mix {mix}, 64 jobs"), &jobs[..64], 384.0, 8000.0);
        }
        // 128 jobs of 1-8 GPUs on a cluster sized to them at 3 CPUs, 62.5 GB per GPU.
        for _ in 0..3 {
            let jobs: Vec<OptJob> = (0..128)
                .map(|_| OptJob { gpus: 1 + rng.below(8) as u32, tput: tput(rng.below(10) as usize) })
                .collect();
            let g = f64::from(jobs.iter().map(|j| j.gpus).sum::<u32>());
            timed("sized cluster", &jobs, 3.0 * g, 62.5 * g);
        }
    }
}
