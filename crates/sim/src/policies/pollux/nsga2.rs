//! NSGA-II as Pollux's scheduler drives pymoo's (`docs/pollux-semantics.md` §5.5), in blox's own
//! code and seeded: a population of integer genomes evolved for a fixed number of generations by
//! binary tournaments (Pareto dominance, then crowding distance, then a coin), a
//! problem-defined crossover and mutation, repair of every child, elimination of children equal
//! to one already seen, and rank-and-crowding survival. Both objectives are minimised. The
//! result is the first front of the last population, in population order.

use rustc_hash::FxHashSet;

/// The problem a search runs on: genomes of `genes` small integers.
pub trait Problem {
    fn genes(&self) -> usize;
    /// Two children of two parents, written over `x` and `y` (buffers the search reuses).
    fn crossover(&mut self, a: &[u8], b: &[u8], x: &mut [u8], y: &mut [u8], rng: &mut Rng);
    fn mutate(&mut self, genome: &mut [u8], rng: &mut Rng);
    /// Makes a genome feasible and returns its two objectives (minimised): a repair walks the
    /// whole genome, and scoring it on the way saves a second walk.
    fn repair(&mut self, genome: &mut [u8], rng: &mut Rng) -> [f64; 2];
}

/// The search's sizes (Pollux: 100 and 100) and pymoo's defaults it keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub population: usize,
    /// Generations, the first being the initial population.
    pub generations: usize,
}

/// pymoo's default crossover probability.
const CROSSOVER_PROBABILITY: f64 = 0.9;
/// pymoo's cap on mating rounds while looking for new, distinct children.
const MATING_ATTEMPTS: usize = 100;

/// One member of a population.
#[derive(Debug, Clone)]
pub struct Member {
    pub genome: Vec<u8>,
    pub objectives: [f64; 2],
    rank: usize,
    crowding: f64,
}

/// Runs the search from `seeds` (repaired and de-duplicated first) and returns the first front
/// of the final population.
pub fn search<P: Problem>(problem: &mut P, seeds: Vec<Vec<u8>>, settings: Settings, rng: &mut Rng) -> Vec<Member> {
    // Genomes seen, by a 64-bit hash: two distinct genomes of one decision share one with a
    // chance near 1e-11, which would only drop a child.
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let mut population = Vec::with_capacity(2 * settings.population);
    for mut genome in seeds {
        let objectives = problem.repair(&mut genome, rng);
        if seen.insert(fingerprint(&genome)) {
            population.push(Member { genome, objectives, rank: 0, crowding: 0.0 });
        }
    }
    if population.is_empty() {
        return population;
    }
    let count = population.len();
    // Genomes of members that did not survive, reused for children.
    let mut spare: Vec<Vec<u8>> = Vec::new();
    population = survive(population, count, rng, &mut spare);
    let genes = problem.genes();
    // Buffers reused by every mating round: the tournaments' draws and winners, and the
    // children, first children of every pair then second ones, in one flat block.
    let (mut draws, mut parents, mut children) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 1..settings.generations {
        let mut offspring: Vec<Member> = Vec::with_capacity(settings.population);
        let mut attempts = 0;
        while offspring.len() < settings.population && attempts < MATING_ATTEMPTS {
            attempts += 1;
            let need = settings.population - offspring.len();
            let pairs = need.div_ceil(2);
            tournament(&population, 2 * pairs, rng, &mut draws, &mut parents);
            children.clear();
            children.resize(2 * pairs * genes, 0);
            let (firsts, seconds) = children.split_at_mut(pairs * genes);
            for (p, pair) in parents.chunks(2).enumerate() {
                let (a, b) = (&population[pair[0]].genome, &population[pair[1]].genome);
                let (x, y) = (&mut firsts[p * genes..(p + 1) * genes], &mut seconds[p * genes..(p + 1) * genes]);
                if rng.chance(CROSSOVER_PROBABILITY) {
                    problem.crossover(a, b, x, y, rng);
                } else {
                    x.copy_from_slice(a);
                    y.copy_from_slice(b);
                }
            }
            for c in 0..2 * pairs {
                let child = &mut children[c * genes..(c + 1) * genes];
                problem.mutate(child, rng);
                let objectives = problem.repair(child, rng);
                if offspring.len() < settings.population && seen.insert(fingerprint(child)) {
                    let mut genome = spare.pop().unwrap_or_default();
                    genome.clear();
                    genome.extend_from_slice(child);
                    offspring.push(Member { genome, objectives, rank: 0, crowding: 0.0 });
                }
            }
        }
        if offspring.is_empty() {
            break;
        }
        population.extend(offspring);
        population = survive(population, settings.population, rng, &mut spare);
        // Genomes that did not survive may come back as children, as in pymoo, which compares
        // children with the current population and the offspring only.
        seen.clear();
        seen.extend(population.iter().map(|m| fingerprint(&m.genome)));
    }
    population.retain(|m| m.rank == 0);
    population
}

fn fingerprint(genome: &[u8]) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(genome)
}

/// `a` Pareto-dominates `b`: no worse in both objectives, better in one.
fn dominates(a: &[f64; 2], b: &[f64; 2]) -> bool {
    a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1])
}

/// Indices of `count` parents into `parents`: binary tournaments over concatenated random
/// permutations (drawn into `draws`).
fn tournament(population: &[Member], count: usize, rng: &mut Rng, draws: &mut Vec<usize>, parents: &mut Vec<usize>) {
    draws.clear();
    while draws.len() < 2 * count {
        let start = draws.len();
        draws.extend(0..population.len());
        rng.shuffle(&mut draws[start..]);
    }
    parents.clear();
    for duel in draws[..2 * count].chunks(2) {
        let (a, b) = (&population[duel[0]], &population[duel[1]]);
        parents.push(if dominates(&a.objectives, &b.objectives) {
            duel[0]
        } else if dominates(&b.objectives, &a.objectives) {
            duel[1]
        } else if a.crowding > b.crowding {
            duel[0]
        } else if b.crowding > a.crowding {
            duel[1]
        } else if rng.chance(0.5) {
            duel[0]
        } else {
            duel[1]
        });
    }
}

/// `x` as an integer that orders as [`f64::total_cmp`] orders floats: the sorts below compare
/// plain keys instead of calling a comparison through indices.
fn total_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// Non-dominated fronts of `objectives` (each in index order), for two objectives: in
/// lexicographic order a point joins the first front none of whose members dominates it.
fn fronts(objectives: &[[f64; 2]]) -> Vec<Vec<usize>> {
    // Ties by index, where a stable sort would leave them.
    let mut order: Vec<(i64, i64, usize)> =
        objectives.iter().enumerate().map(|(i, o)| (total_key(o[0]), total_key(o[1]), i)).collect();
    order.sort_unstable();
    // Per front: its least second objective and the least first objective among the points
    // holding it.
    let mut best: Vec<(f64, f64)> = Vec::new();
    let mut fronts: Vec<Vec<usize>> = Vec::new();
    // Without NaN, a front that does not dominate a point is followed by fronts that do not
    // either (each member of a later front is dominated by one of an earlier front, and
    // dominance is transitive), so the first such front is found by bisection.
    let ordered = !objectives.iter().flatten().any(|f| f.is_nan());
    for (_, _, i) in order {
        let [f0, f1] = objectives[i];
        let dominates = |&(m1, m0): &(f64, f64)| m1 < f1 || (m1 == f1 && m0 < f0);
        let k = if ordered {
            best.partition_point(dominates)
        } else {
            best.iter().position(|b| !dominates(b)).unwrap_or(best.len())
        };
        if k == best.len() {
            best.push((f1, f0));
            fronts.push(Vec::new());
        } else if f1 < best[k].0 {
            best[k] = (f1, f0);
        }
        fronts[k].push(i);
    }
    for front in &mut fronts {
        front.sort_unstable();
    }
    fronts
}

/// pymoo's crowding distance of one front: per objective, the gap between a point's
/// neighbours over the objective's range, averaged; extremes (and fronts of two) infinite;
/// repeated objective vectors count once, the repeats get 0.
fn crowding(objectives: &[[f64; 2]], front: &[usize]) -> Vec<f64> {
    if front.len() <= 2 {
        return vec![f64::INFINITY; front.len()];
    }
    // Repeats found by sorting: equal vectors sit together, in front order, so each run's first
    // is the first occurrence. Adding 0.0 keys -0.0 as 0.0, which it equals.
    let mut by_value: Vec<(i64, i64, usize)> = front
        .iter()
        .enumerate()
        .map(|(at, &i)| (total_key(objectives[i][0] + 0.0), total_key(objectives[i][1] + 0.0), at))
        .collect();
    by_value.sort_unstable();
    let mut repeat = vec![false; front.len()];
    for pair in by_value.windows(2) {
        if objectives[front[pair[0].2]] == objectives[front[pair[1].2]] {
            repeat[pair[1].2] = true;
        }
    }
    let unique: Vec<usize> = (0..front.len()).filter(|&at| !repeat[at]).collect();
    let mut distance = vec![0.0; front.len()];
    let mut sums = vec![0.0; unique.len()];
    let mut sorted: Vec<(i64, usize)> = Vec::with_capacity(unique.len());
    for objective in [0, 1] {
        let value = |u: usize| objectives[front[unique[u]]][objective];
        // Ties in unique order, where a stable sort would leave them.
        sorted.clear();
        sorted.extend((0..unique.len()).map(|u| (total_key(value(u)), u)));
        sorted.sort_unstable();
        let range = value(sorted[sorted.len() - 1].1) - value(sorted[0].1);
        for k in 0..sorted.len() {
            let here = value(sorted[k].1);
            let before = if k == 0 { f64::INFINITY } else { here - value(sorted[k - 1].1) };
            let after = if k + 1 == sorted.len() { f64::INFINITY } else { value(sorted[k + 1].1) - here };
            let part = |gap: f64| if range > 0.0 { gap / range } else { 0.0 };
            sums[sorted[k].1] += part(before) + part(after);
        }
    }
    for (u, &at) in unique.iter().enumerate() {
        distance[at] = sums[u] / 2.0;
    }
    distance
}

/// Rank-and-crowding survival of `count` members, front by front; the front that does not fit
/// whole gives its most crowded-apart members (ties in random order). The others' genomes go to
/// `spare`.
fn survive(population: Vec<Member>, count: usize, rng: &mut Rng, spare: &mut Vec<Vec<u8>>) -> Vec<Member> {
    let objectives: Vec<[f64; 2]> = population.iter().map(|m| m.objectives).collect();
    let mut slots: Vec<Option<Member>> = population.into_iter().map(Some).collect();
    let mut survivors = Vec::with_capacity(count);
    for (rank, front) in fronts(&objectives).into_iter().enumerate() {
        if survivors.len() >= count {
            break;
        }
        let distances = crowding(&objectives, &front);
        let mut chosen: Vec<usize> = (0..front.len()).collect();
        if survivors.len() + front.len() > count {
            rng.shuffle(&mut chosen);
            chosen.sort_by(|&a, &b| distances[b].total_cmp(&distances[a]));
            chosen.truncate(count - survivors.len());
        }
        for k in chosen {
            let mut member = slots[front[k]].take().expect("each member is in one front");
            member.rank = rank;
            member.crowding = distances[k];
            survivors.push(member);
        }
    }
    spare.extend(slots.into_iter().flatten().map(|m| m.genome));
    survivors
}

/// A probability as a threshold on 53 random bits: `rng.hit(c)` is `rng.chance(p)` without
/// the conversion to a float.
#[derive(Debug, Clone, Copy)]
pub struct Chance(u64);

impl Chance {
    pub fn new(probability: f64) -> Self {
        Self((probability.clamp(0.0, 1.0) * (1u64 << 53) as f64) as u64)
    }
}

/// The number of successes in `n` independent trials of one probability, drawn by inverting its
/// distribution function, tabulated once: one draw where `n` coins would take `n`. With
/// [`Rng::subset`] it samples which of `n` trials succeed exactly as `n` coins do, because the
/// trials are exchangeable: given their count, every set of successes is equally likely.
#[derive(Debug, Clone)]
pub struct Binomial {
    /// `P(K <= k)` in units of 2^-53, as [`Chance`] holds a probability; the last is 2^53.
    thresholds: Vec<u64>,
}

impl Binomial {
    pub fn new(n: usize, probability: f64) -> Self {
        let p = probability.clamp(0.0, 1.0);
        let one = (1u64 << 53) as f64;
        let mut thresholds = Vec::with_capacity(n + 1);
        if p >= 1.0 {
            thresholds.resize(n, 0);
        } else {
            // The terms in logarithms, so that (1 - p)^n cannot underflow for large n.
            let (log_fail, log_odds) = ((1.0 - p).ln(), p.ln() - (1.0 - p).ln());
            let mut log_term = n as f64 * log_fail;
            let mut cumulative = 0.0;
            for k in 0..n {
                cumulative += log_term.exp();
                let threshold = (cumulative.min(1.0) * one) as u64;
                thresholds.push(threshold);
                if threshold == 1 << 53 {
                    break;
                }
                log_term += ((n - k) as f64 / (k + 1) as f64).ln() + log_odds;
            }
        }
        thresholds.resize(n + 1, 1 << 53);
        Self { thresholds }
    }

    pub fn draw(&self, rng: &mut Rng) -> usize {
        let u = rng.next_u64() >> 11;
        self.thresholds.iter().position(|&t| u < t).expect("the last threshold is 2^53")
    }

    /// Which trials succeed: their number drawn, then that many distinct trials uniformly, as
    /// [`Rng::subset`] appends and marks them.
    pub fn successes(&self, rng: &mut Rng, picked: &mut Vec<usize>, marks: &mut [bool]) {
        let count = self.draw(rng);
        rng.subset(self.thresholds.len() - 1, count, picked, marks);
    }
}

/// xoshiro256** seeded through SplitMix64: a small, fast generator whose stream is a function
/// of the seed alone.
#[derive(Debug, Clone)]
pub struct Rng {
    state: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut z = seed;
        let state = std::array::from_fn(|_| {
            z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            x ^ (x >> 31)
        });
        Self { state }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.state;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn chance(&mut self, probability: f64) -> bool {
        self.unit() < probability
    }

    /// A success of [`Chance`]: one draw compared with a precomputed threshold.
    pub fn hit(&mut self, chance: Chance) -> bool {
        (self.next_u64() >> 11) < chance.0
    }

    /// Uniform in `0..n` (`n > 0`), without bias (Lemire's multiply and reject). The rejection
    /// threshold is below `n`, so the division that computes it is needed only when the low
    /// half of the product is: the draws and results are those of always computing it.
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let mut product = u128::from(self.next_u64()) * u128::from(n);
        if (product as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (product as u64) < threshold {
                product = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (product >> 64) as usize
    }

    /// `k` distinct indices of `0..n`, every set of `k` equally likely (Floyd's algorithm: `k`
    /// draws), appended to `picked` and marked in `marks` (`n` long); the caller unmarks them.
    pub fn subset(&mut self, n: usize, k: usize, picked: &mut Vec<usize>, marks: &mut [bool]) {
        for i in n - k..n {
            let t = self.below(i + 1);
            let chosen = if marks[t] { i } else { t };
            marks[chosen] = true;
            picked.push(chosen);
        }
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fronts_and_crowding_on_a_hand_made_set() {
        // 0 and 1 trade off, 2 is dominated by 0, 3 repeats 1, 4 is dominated by everyone.
        let f = [[0.0, 2.0], [1.0, 1.0], [0.5, 2.5], [1.0, 1.0], [3.0, 3.0], [2.0, 0.0]];
        assert_eq!(fronts(&f), [vec![0, 1, 3, 5], vec![2], vec![4]]);
        let distances = crowding(&f, &[0, 1, 3, 5]);
        // 1 sits halfway on both axes: (1/2 + 1/2 + 1/2 + 1/2) / 2; its repeat 3 counts 0.
        assert_eq!(distances, [f64::INFINITY, 1.0, 0.0, f64::INFINITY]);
    }

    /// The fronts and crowding distances above, as first written (index sorts through
    /// comparisons, a quadratic search for repeats): the faster ones must agree exactly.
    fn plain_fronts(objectives: &[[f64; 2]]) -> Vec<Vec<usize>> {
        let mut order: Vec<usize> = (0..objectives.len()).collect();
        order.sort_by(|&a, &b| {
            objectives[a][0].total_cmp(&objectives[b][0]).then(objectives[a][1].total_cmp(&objectives[b][1]))
        });
        // Per front: its least second objective and the least first objective among the points
        // holding it.
        let mut best: Vec<(f64, f64)> = Vec::new();
        let mut fronts: Vec<Vec<usize>> = Vec::new();
        for i in order {
            let [f0, f1] = objectives[i];
            let k = best.iter().position(|&(m1, m0)| !(m1 < f1 || (m1 == f1 && m0 < f0))).unwrap_or(best.len());
            if k == best.len() {
                best.push((f1, f0));
                fronts.push(Vec::new());
            } else if f1 < best[k].0 {
                best[k] = (f1, f0);
            }
            fronts[k].push(i);
        }
        for front in &mut fronts {
            front.sort_unstable();
        }
        fronts
    }

    fn plain_crowding(objectives: &[[f64; 2]], front: &[usize]) -> Vec<f64> {
        if front.len() <= 2 {
            return vec![f64::INFINITY; front.len()];
        }
        let mut unique: Vec<usize> = Vec::with_capacity(front.len());
        let mut distance = vec![0.0; front.len()];
        for (at, &i) in front.iter().enumerate() {
            if !unique.iter().any(|&u| objectives[front[u]] == objectives[i]) {
                unique.push(at);
            }
        }
        let mut sums = vec![0.0; unique.len()];
        for objective in [0, 1] {
            let mut sorted: Vec<usize> = (0..unique.len()).collect();
            sorted.sort_by(|&a, &b| {
                objectives[front[unique[a]]][objective].total_cmp(&objectives[front[unique[b]]][objective])
            });
            let value = |k: usize| objectives[front[unique[sorted[k]]]][objective];
            let range = value(sorted.len() - 1) - value(0);
            for k in 0..sorted.len() {
                let before = if k == 0 { f64::INFINITY } else { value(k) - value(k - 1) };
                let after = if k + 1 == sorted.len() { f64::INFINITY } else { value(k + 1) - value(k) };
                let part = |gap: f64| if range > 0.0 { gap / range } else { 0.0 };
                sums[sorted[k]] += part(before) + part(after);
            }
        }
        for (u, &at) in unique.iter().enumerate() {
            distance[at] = sums[u] / 2.0;
        }
        distance
    }

    #[test]
    fn fronts_and_crowding_equal_the_plain_ones() {
        let mut rng = Rng::new(11);
        for trial in 0..2000 {
            // Few distinct values, so that ties, repeats, -0.0 and 0.0 are common.
            let values = [-0.0, 0.0, -1.0, -0.5, -0.25, -2.0, f64::NAN];
            let points = 1 + rng.below(60);
            let spread = 1 + rng.below(values.len() - usize::from(trial % 3 != 0));
            let f: Vec<[f64; 2]> =
                (0..points).map(|_| [values[rng.below(spread)], values[rng.below(spread)]]).collect();
            let fronts_now = fronts(&f);
            assert_eq!(fronts_now, plain_fronts(&f), "{f:?}");
            for front in &fronts_now {
                let (a, b) = (crowding(&f, front), plain_crowding(&f, front));
                assert_eq!(a.len(), b.len());
                assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()), "{f:?} {front:?}: {a:?} vs {b:?}");
            }
        }
    }

    /// `below` skips the division unless the product's low half is below `n`: its draws and
    /// values are those of the plain multiply-and-reject, small and huge bounds alike.
    #[test]
    fn below_is_the_plain_multiply_and_reject() {
        fn plain(rng: &mut Rng, n: usize) -> usize {
            let n = n as u64;
            let threshold = n.wrapping_neg() % n;
            loop {
                let product = u128::from(rng.next_u64()) * u128::from(n);
                if (product as u64) >= threshold {
                    return (product >> 64) as usize;
                }
            }
        }
        let (mut fast, mut slow) = (Rng::new(3), Rng::new(3));
        for n in (1..300).chain([(1 << 63) + 1, usize::MAX, (usize::MAX / 3) * 2]) {
            for _ in 0..200 {
                assert_eq!(fast.below(n), plain(&mut slow, n), "n = {n}");
            }
        }
        assert_eq!(fast.next_u64(), slow.next_u64(), "both consumed the same draws");
    }

    /// A count of successes and a uniformly random set of that size: every set of successes
    /// comes out as often as from one coin per trial (chi-square over all 2^5 sets), and the
    /// certain and impossible chances give every trial and none.
    #[test]
    fn binomial_subsets_are_independent_coins() {
        let (n, p, trials) = (5, 0.3, 200_000);
        let binomial = Binomial::new(n, p);
        let mut rng = Rng::new(5);
        let (mut marks, mut picked) = (vec![false; n], Vec::new());
        let mut seen = [0u32; 32];
        for _ in 0..trials {
            picked.clear();
            binomial.successes(&mut rng, &mut picked, &mut marks);
            let set = picked.iter().fold(0usize, |set, &i| set | 1 << i);
            assert_eq!(set.count_ones() as usize, picked.len(), "distinct indices");
            picked.iter().for_each(|&i| marks[i] = false);
            seen[set] += 1;
        }
        let chi_square: f64 = (0..32)
            .map(|set: usize| {
                let k = set.count_ones() as i32;
                let expected = trials as f64 * p.powi(k) * (1.0 - p).powi(n as i32 - k);
                (f64::from(seen[set]) - expected).powi(2) / expected
            })
            .sum();
        // 31 degrees of freedom: above 61 with chance 0.001.
        assert!(chi_square < 61.0, "chi-square {chi_square}: {seen:?}");
        for (n, p, expected) in [(7, 1.0, 7), (7, 0.0, 0), (0, 0.5, 0), (1, 1.0, 1)] {
            assert!((0..100).all(|_| Binomial::new(n, p).draw(&mut rng) == expected), "n {n}, p {p}");
        }
        // A huge count whose (1 - p)^n underflows still centres on n·p.
        let huge = Binomial::new(20_000, 0.1);
        let mean = (0..2000).map(|_| huge.draw(&mut rng)).sum::<usize>() as f64 / 2000.0;
        assert!((mean - 2000.0).abs() < 10.0, "{mean}");
    }

    /// A toy problem: minimise (x, 10 - x) over genomes summing to x: every genome is on the
    /// front, and the search keeps distinct ones.
    struct Line;
    impl Problem for Line {
        fn genes(&self) -> usize {
            2
        }
        fn crossover(&mut self, a: &[u8], b: &[u8], x: &mut [u8], y: &mut [u8], _: &mut Rng) {
            x.copy_from_slice(&[b[0], a[1]]);
            y.copy_from_slice(&[a[0], b[1]]);
        }
        fn mutate(&mut self, g: &mut [u8], rng: &mut Rng) {
            let i = rng.below(2);
            g[i] = rng.below(6) as u8;
        }
        fn repair(&mut self, g: &mut [u8], _: &mut Rng) -> [f64; 2] {
            let x = f64::from(g[0]) + f64::from(g[1]);
            [x, 10.0 - x]
        }
    }

    #[test]
    fn search_is_a_function_of_its_seed() {
        let settings = Settings { population: 10, generations: 20 };
        let run = |seed| {
            search(&mut Line, vec![vec![0, 0]], settings, &mut Rng::new(seed))
                .into_iter()
                .map(|m| m.genome)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        let front = run(7);
        assert!(front.len() > 1 && front.len() <= 10, "{front:?}");
        let distinct: std::collections::BTreeSet<&Vec<u8>> = front.iter().collect();
        assert_eq!(distinct.len(), front.len());
    }
}
