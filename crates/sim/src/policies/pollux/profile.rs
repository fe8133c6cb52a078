//! The Pollux simulator's job model of one application, read from its measured profile
//! (`docs/pollux-semantics.md` §1.2, §3.2-§3.4): the true step time of a placement and per-GPU
//! batch, the gradient statistics of a batch size in an epoch, the statistical gain of a step,
//! the progress thresholds of the epochs and the fixed-batch rule for per-GPU batch and
//! accumulation steps. Every function is pure; the arithmetic follows the original's expression
//! by expression, because the simulator rounds epoch durations to whole seconds.

use super::mesh::{self, Mesh};
use std::collections::{BTreeMap, HashMap};

/// The applications the profiles describe, with the constructor arguments the simulator gives
/// them: the epochs to train and, for yolov3, a per-GPU batch cap below the profiled one.
pub const APPLICATIONS: [(&str, usize, Option<u32>); 6] = [
    ("bert", 2, None),
    ("cifar10", 100, None),
    ("deepspeech2", 80, None),
    ("imagenet", 90, None),
    ("ncf", 10, None),
    ("yolov3", 50, Some(8)),
];

/// The simulator's nodes: more than this many are looked up as this many (a no-op on its
/// 16-node cluster, kept for larger ones).
const MAX_PROFILED_NODES: usize = 16;

/// One validated batch size's per-epoch table (`validation-<B>.csv`).
#[derive(Debug, Clone)]
struct Validation {
    batch: u32,
    progress: Vec<f64>,
    iteration: Vec<f64>,
    grad_sqr: Vec<f64>,
    grad_var: Vec<f64>,
}

/// Measured step and sync times of one canonical placement, by per-GPU batch.
#[derive(Debug, Clone, Default)]
struct Curve {
    local_bsz: Vec<f64>,
    times: Vec<[f64; 2]>,
}

/// One application's job model.
#[derive(Debug, Clone)]
pub struct Application {
    pub name: String,
    /// `B0`: the smallest validated total batch, the unit of progress.
    pub init_batch: u32,
    /// `Bmax`: the largest validated total batch.
    pub max_batch: u32,
    /// Smallest and largest per-GPU batch (profiled, or the simulator's override).
    pub min_local: u32,
    pub max_local: u32,
    pub max_epochs: usize,
    placements: HashMap<u64, Curve>,
    mesh: Mesh,
    /// Step and sync time at each mesh point.
    mesh_values: Vec<[f64; 2]>,
    validation: Vec<Validation>,
    /// `P(e)` for e in 0..=max_epochs.
    thresholds: Vec<f64>,
}

/// A job's per-GPU batch and extra accumulation micro-steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchPlan {
    pub atomic_bsz: u32,
    pub accum_steps: u32,
}

/// A profile file: its path, its file name and its contents.
type ProfileFile<'a> = (&'a str, &'a str, &'a [u8]);

/// The six applications' models (none in the empty default, which runs no job).
#[derive(Debug, Clone, Default)]
pub struct Profiles {
    pub applications: Vec<Application>,
}

impl Profiles {
    /// Reads the profile files, given as (path ending in `<application>/<file>.csv`, contents).
    /// Every application of [`APPLICATIONS`] needs its `placements.csv`, `scalability.csv` and
    /// at least one `validation-<B>.csv`.
    pub fn parse<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Result<Self, String> {
        let mut by_app: BTreeMap<&str, Vec<ProfileFile<'a>>> = BTreeMap::new();
        for (path, bytes) in files {
            let mut parts = path.rsplit('/');
            let (Some(file), Some(app)) = (parts.next(), parts.next()) else {
                return Err(format!("Pollux profile `{path}`: expected a path ending in <application>/<file>.csv"));
            };
            by_app.entry(app).or_default().push((path, file, bytes));
        }
        let mut meshes = mesh::embedded()?;
        let mut applications = Vec::new();
        for (name, max_epochs, max_local) in APPLICATIONS {
            let files = by_app.remove(name).unwrap_or_default();
            let mesh = meshes.remove(name).ok_or_else(|| format!("no embedded triangulation for `{name}`"))?;
            applications.push(Application::parse(name, max_epochs, max_local, &files, mesh)?);
        }
        Ok(Self { applications })
    }

    /// The index of application `name` in [`Profiles::applications`].
    pub fn index(&self, name: &str) -> Option<usize> {
        self.applications.iter().position(|a| a.name == name)
    }
}

/// A CSV of numbers with a known header, as (line number, values) rows.
fn numeric_rows(path: &str, bytes: &[u8], header: &[&str]) -> Result<Vec<(usize, Vec<f64>)>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| format!("{path}: not UTF-8 text"))?;
    let mut lines = text.lines();
    let found: Vec<&str> = lines.next().unwrap_or_default().split(',').map(str::trim).collect();
    if found != header {
        return Err(format!("{path} line 1: expected the columns {}, found {}", header.join(","), found.join(",")));
    }
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let values: Result<Vec<f64>, String> = line
            .split(',')
            .zip(header)
            .map(|(v, column)| {
                pandas_float(v.trim())
                    .ok_or_else(|| format!("{path} line {}: `{column}` is not a number: `{v}`", i + 2))
            })
            .collect();
        let values = values?;
        if values.len() != header.len() {
            return Err(format!("{path} line {}: expected {} fields", i + 2, header.len()));
        }
        rows.push((i + 2, values));
    }
    Ok(rows)
}

impl Application {
    fn parse(
        name: &str,
        max_epochs: usize,
        max_local_override: Option<u32>,
        files: &[(&str, &str, &[u8])],
        mesh: Mesh,
    ) -> Result<Self, String> {
        let find = |file: &str| {
            files
                .iter()
                .find(|f| f.1 == file)
                .map(|f| (f.0, f.2))
                .ok_or_else(|| format!("Pollux profiles: `{name}/{file}` is missing"))
        };
        let (path, bytes) = find("placements.csv")?;
        let rows = numeric_rows(path, bytes, &["placement", "local_bsz", "step_time", "sync_time"])?;
        let mut placements: HashMap<u64, Curve> = HashMap::new();
        // (nodes, replicas, local_bsz) -> sums for the grouped means, in key order.
        let mut groups: BTreeMap<(u64, u64, u64), ([f64; 2], u32)> = BTreeMap::new();
        let (mut min_local, mut max_local) = (u32::MAX, 0);
        for (line, row) in &rows {
            let id = row[0] as u64;
            let digits: Vec<u64> = id.to_string().bytes().map(|d| u64::from(d - b'0')).collect();
            if row[0] != id as f64 || digits.contains(&0) {
                return Err(format!("{path} line {line}: `placement` must be digits 1-9, found {}", row[0]));
            }
            let local = row[1] as u32;
            if row[1] != f64::from(local) || local == 0 {
                return Err(format!("{path} line {line}: `local_bsz` must be a positive integer"));
            }
            min_local = min_local.min(local);
            max_local = max_local.max(local);
            let curve = placements.entry(id).or_default();
            curve.local_bsz.push(row[1]);
            curve.times.push([row[2], row[3]]);
            let key = (digits.len() as u64, digits.iter().sum(), u64::from(local));
            let group = groups.entry(key).or_insert(([0.0; 2], 0));
            group.0[0] += row[2];
            group.0[1] += row[3];
            group.1 += 1;
        }
        if placements.is_empty() {
            return Err(format!("{path}: no rows"));
        }
        let mut points: Vec<[f64; 3]> = Vec::new();
        let mut mesh_values: Vec<[f64; 2]> = Vec::new();
        for ((n, r, b), (sums, count)) in groups {
            points.push([n as f64, r as f64, b as f64]);
            mesh_values.push([sums[0] / f64::from(count), sums[1] / f64::from(count)]);
        }
        let (path, bytes) = find("scalability.csv")?;
        for (_, row) in
            numeric_rows(path, bytes, &["num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"])?
        {
            points.push([row[0], row[1], row[2]]);
            mesh_values.push([row[3], row[4]]);
        }
        if points != mesh.points {
            return Err(format!(
                "Pollux profiles: `{name}`'s placements and scalability tables are not the ones the embedded \
                 triangulation was made from (scripts/pollux_triangulation.py)"
            ));
        }
        let mut validation = Vec::new();
        for (path, file, bytes) in files {
            let Some(batch) = file.strip_prefix("validation-").and_then(|f| f.strip_suffix(".csv")) else { continue };
            let batch: u32 = batch.parse().map_err(|_| format!("{path}: expected validation-<batch size>.csv"))?;
            let rows = numeric_rows(path, bytes, &["progress", "iteration", "metric", "grad_sqr", "grad_var"])?;
            if rows.len() < max_epochs {
                return Err(format!("{path}: {} epochs, {name} trains {max_epochs}", rows.len()));
            }
            let column = |c: usize| rows.iter().map(|(_, r)| r[c]).collect();
            validation.push(Validation {
                batch,
                progress: column(0),
                iteration: column(1),
                grad_sqr: column(3),
                grad_var: column(4),
            });
        }
        validation.sort_by_key(|v| v.batch);
        let (Some(first), Some(last)) = (validation.first(), validation.last()) else {
            return Err(format!("Pollux profiles: `{name}` has no validation-<batch size>.csv"));
        };
        let (init_batch, max_batch) = (first.batch, last.batch);
        let mut thresholds = vec![0.0];
        for epoch in 1..=max_epochs {
            thresholds.push(validation.iter().map(|v| v.progress[epoch - 1]).fold(f64::INFINITY, f64::min));
        }
        Ok(Self {
            name: name.to_string(),
            init_batch,
            max_batch,
            min_local,
            max_local: max_local_override.unwrap_or(max_local),
            max_epochs,
            placements,
            mesh,
            mesh_values,
            validation,
            thresholds,
        })
    }

    /// `(step_time, sync_time)` of one optimizer step without accumulation on `placement` (GPUs
    /// per node, in allocation order; zeros ignored) at per-GPU batch `local_bsz`; `None` where
    /// the original fails (outside the measured batch range or the interpolation's hull).
    pub fn throughput(&self, placement: &[u32], local_bsz: u32) -> Option<(f64, f64)> {
        let placement: Vec<u32> = placement.iter().copied().filter(|&g| g > 0).collect();
        if placement.is_empty() {
            return None;
        }
        let canonical = (0..placement.len())
            .map(|i| [&placement[i..], &placement[..i]].concat())
            .min()
            .expect("a placement has a rotation");
        let measured =
            canonical.iter().all(|&g| g <= 9).then(|| canonical.iter().fold(0u64, |id, &g| id * 10 + u64::from(g)));
        if let Some(curve) = measured.and_then(|id| self.placements.get(&id)) {
            return curve.at(f64::from(local_bsz)).map(|[step, sync]| (step, sync));
        }
        let nodes = placement.len().min(MAX_PROFILED_NODES) as f64;
        let replicas: u32 = placement.iter().sum();
        let [step, sync] =
            self.mesh.interpolate(&self.mesh_values, [nodes, f64::from(replicas), f64::from(local_bsz)])?;
        Some((step, sync))
    }

    /// The validated batch sizes around `batch` (equal when it is validated); `None` outside
    /// the validated range.
    fn bracket(&self, batch: f64) -> Option<(&Validation, &Validation)> {
        let lower = self.validation.iter().rev().find(|v| f64::from(v.batch) <= batch)?;
        let upper = self.validation.iter().find(|v| f64::from(v.batch) >= batch)?;
        Some((lower, upper))
    }

    /// `column` of epoch row `epoch` interpolated linearly in the batch size, in the original's
    /// expression.
    fn interpolate(&self, batch: f64, epoch: usize, column: fn(&Validation) -> &[f64]) -> Option<f64> {
        let (lower, upper) = self.bracket(batch)?;
        let (lo, hi) = (column(lower)[epoch], column(upper)[epoch]);
        if lower.batch == upper.batch {
            return Some(lo);
        }
        let (lb, ub) = (f64::from(lower.batch), f64::from(upper.batch));
        Some(((batch - lb) * hi + (ub - batch) * lo) / (ub - lb))
    }

    /// `(grad_sqr, grad_var)` measured during epoch `epoch` (0-based) at total batch `batch`.
    pub fn grad_stats(&self, batch: f64, epoch: usize) -> Option<(f64, f64)> {
        Some((self.interpolate(batch, epoch, |v| &v.grad_sqr)?, self.interpolate(batch, epoch, |v| &v.grad_var)?))
    }

    /// Optimizer steps at `batch` after completing epoch row `epoch` (the Optimus oracle's
    /// remaining work).
    pub fn iteration(&self, batch: f64, epoch: usize) -> Option<f64> {
        self.interpolate(batch, epoch, |v| &v.iteration)
    }

    /// Progress (steps at `B0`) at which epoch `epoch` is complete: the least end-of-epoch
    /// progress over the validated batch sizes.
    pub fn threshold(&self, epoch: usize) -> f64 {
        self.thresholds[epoch]
    }

    /// Progress one optimizer step at total batch `batch` makes, given the gradient statistics:
    /// the statistical efficiency times the batch's scale over `B0`.
    pub fn gain(&self, batch: f64, grad_sqr: f64, grad_var: f64) -> f64 {
        let scale = batch / f64::from(self.init_batch);
        (grad_var + grad_sqr) / (grad_var / scale + grad_sqr)
    }

    /// Per-GPU batch and accumulation of a job training at fixed total batch `batch` on
    /// `replicas` GPUs (§3.4): the smallest per-GPU batch within the cap, one extra micro-step
    /// at least for a single GPU above `B0` (`always_accumulate_alone`: at any batch, as the
    /// Optimus oracle predicts), never more than `Bmax` in all.
    pub fn fixed_batch_plan(&self, batch: u32, replicas: u32, always_accumulate_alone: bool) -> BatchPlan {
        let local = ceil_tolerant(f64::from(batch) / f64::from(replicas));
        let mut accum_steps = ceil_tolerant(local / f64::from(self.max_local)) - 1.0;
        if replicas == 1 && (always_accumulate_alone || batch > self.init_batch) {
            accum_steps = accum_steps.max(1.0);
        }
        let atomic = ceil_tolerant(local / (accum_steps + 1.0));
        self.capped(atomic as u32, replicas, accum_steps as u32)
    }

    /// The users' tuned (GPUs, total batch, predicted JCT in seconds) of `get_configurations`
    /// (`docs/pollux-semantics.md` §8.2), the choices Pollux's workload generator draws from: for
    /// each GPU count of 1, 2, 4, 6, 8, 12, 16, 24, 32, 48 (while its smallest per-GPU batches fit
    /// in `Bmax`), packed four to a node, the validated batch with the least predicted JCT at a
    /// fixed batch (the last epoch's steps times the step time with accumulation); a count is kept
    /// when that JCT is under 12 hours and its scaling efficiency over one GPU lies strictly
    /// between `lo` and `hi`. With none kept, the one-GPU choice. Errors name a placement whose
    /// step time the profile cannot give (the original fails there too).
    pub fn tuned_configurations(&self, lo: f64, hi: f64) -> Result<Vec<(u32, u32, f64)>, String> {
        const GPU_COUNTS: [u32; 10] = [1, 2, 4, 6, 8, 12, 16, 24, 32, 48];
        const GPUS_PER_NODE: u32 = 4;
        const MAX_JCT_S: f64 = 12.0 * 3600.0;
        let epoch = self.max_epochs - 1;
        let mut kept = Vec::new();
        let mut base: Option<(u32, f64)> = None;
        for replicas in GPU_COUNTS {
            if replicas * self.min_local > self.max_batch {
                break;
            }
            let placement: Vec<u32> = (0..replicas.div_ceil(GPUS_PER_NODE))
                .map(|node| (replicas - node * GPUS_PER_NODE).min(GPUS_PER_NODE))
                .collect();
            let mut best: Option<(u32, f64)> = None;
            for valid in &self.validation {
                let local = ceil_tolerant(f64::from(valid.batch) / f64::from(replicas));
                if local < f64::from(self.min_local) {
                    continue;
                }
                let accum_steps = ceil_tolerant(local / f64::from(self.max_local)) - 1.0;
                let atomic = ceil_tolerant(local / (accum_steps + 1.0));
                let (step, sync) = self.throughput(&placement, atomic as u32).ok_or_else(|| {
                    format!("{}: no step time for placement {placement:?} at per-GPU batch {atomic}", self.name)
                })?;
                let jct = valid.iteration[epoch] * (step + accum_steps * (step - sync));
                if best.is_none_or(|(_, b)| jct < b) {
                    best = Some((valid.batch, jct));
                }
            }
            let Some((batch, jct)) = best else {
                return Err(format!("{}: no validated batch fits {replicas} GPUs", self.name));
            };
            match base {
                None => base = Some((batch, jct)),
                Some((_, base_jct)) => {
                    let efficiency = base_jct / jct / f64::from(replicas);
                    if jct < MAX_JCT_S && lo < efficiency && efficiency < hi {
                        kept.push((replicas, batch, jct));
                    }
                }
            }
        }
        if kept.is_empty() {
            let (batch, jct) = base.ok_or_else(|| format!("{}: one GPU's smallest batch exceeds Bmax", self.name))?;
            kept.push((1, batch, jct));
        }
        Ok(kept)
    }

    /// `atomic_bsz` capped so that the effective batch does not exceed `Bmax`.
    pub fn capped(&self, atomic_bsz: u32, replicas: u32, accum_steps: u32) -> BatchPlan {
        let count = f64::from(replicas) * f64::from(accum_steps + 1);
        let cap = (f64::from(self.max_batch) / count) as u32;
        BatchPlan { atomic_bsz: atomic_bsz.min(cap), accum_steps }
    }
}

/// A decimal number as pandas 1.1's default CSV parser reads it (the simulator's tables went
/// through it): digits accumulated in a double, then scaled by powers of ten by repeated
/// squaring. Not always the nearest double (one unit in the last place off at times), which
/// decides epoch thresholds and step times to the bit.
pub fn pandas_float(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let negative = match bytes.first() {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut number = 0.0f64;
    let mut digits = 0;
    let mut exponent: i32 = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        number = number * 10.0 + f64::from(bytes[i] - b'0');
        i += 1;
        digits += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            number = number * 10.0 + f64::from(bytes[i] - b'0');
            i += 1;
            digits += 1;
            exponent -= 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if negative {
        number = -number;
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let rest = &text[i + 1..];
        let value: i32 = rest.parse().ok()?;
        exponent = exponent.checked_add(value)?;
        i = bytes.len();
    }
    if i != bytes.len() || !(f64::MIN_EXP..=f64::MAX_EXP).contains(&exponent) {
        return None;
    }
    let mut p10 = 10.0f64;
    let mut n = exponent.unsigned_abs();
    while n > 0 {
        if n & 1 == 1 {
            if exponent < 0 { number /= p10 } else { number *= p10 }
        }
        n >>= 1;
        p10 *= p10;
    }
    Some(number)
}

/// Python's `math.ceil(x - 1e-8)`: a ceiling that forgives float noise.
pub fn ceil_tolerant(x: f64) -> f64 {
    (x - 1e-8).ceil()
}

impl Curve {
    /// scipy's `interp1d` (linear, bounds checked) at `x`: the segment found by a left binary
    /// search, clipped to the first and last segments, in slope form.
    fn at(&self, x: f64) -> Option<[f64; 2]> {
        let xs = &self.local_bsz;
        if xs.len() < 2 || x < xs[0] || x > xs[xs.len() - 1] {
            return (xs.len() == 1 && x == xs[0]).then(|| self.times[0]);
        }
        let hi = xs.partition_point(|&v| v < x).clamp(1, xs.len() - 1);
        let lo = hi - 1;
        let mut out = [0.0; 2];
        for (c, o) in out.iter_mut().enumerate() {
            let slope = (self.times[hi][c] - self.times[lo][c]) / (xs[hi] - xs[lo]);
            *o = slope * (x - xs[lo]) + self.times[lo][c];
        }
        Some(out)
    }
}
